#!/usr/bin/env bash
# The report's percentile figures for N distinct intervals: full sort vs selection, under the launcher's C1 flags.
# Usage: bench/report-ranks/run.sh [N=7650000] [ROUNDS=5] [zeros]  (after mvn compile; holds the CPU lock)
set -euo pipefail
cd "$(dirname "$0")/../.."
source scripts/find-java.sh && unibench_find_jdk >/dev/null
out=target/report-ranks && mkdir -p "$out"
javac -d "$out" -cp target/classes bench/report-ranks/ReportRanks.java
flock /tmp/unibench-cpu.lock java -Xmx2g -XX:TieredStopAtLevel=1 -XX:CompileThresholdScaling=0.25 \
    -cp target/classes:"$out" io.unibench.metrics.ReportRanks "${1:-7650000}" "${2:-5}" ${3:-}
