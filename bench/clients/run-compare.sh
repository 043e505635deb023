#!/usr/bin/env bash
# HTTP client candidates on the static SSE body: bench/clients/run-compare.sh ["64 256"] [REPEATS=3] [N=5000]
# Needs bench/static-target/setup.sh (nginx on 127.0.0.1:18080). Candidates alternate so load drifts hit both.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$here"
. scripts/find-java.sh
unibench_find_jdk
./unibench --version >/dev/null
concs="${1:-64 256}"; repeats="${2:-3}"; n="${3:-5000}"; port="${PORT:-18080}"
for c in $concs; do
  for r in $(seq 1 "$repeats"); do
    for which in netty jdk; do
      "$JAVA_HOME/bin/java" -cp target/unibench.jar bench/clients/ClientCompareBench.java "$which" "$c" "$n" 2000 "http://127.0.0.1:$port/v1/chat/completions" 2>&1 | grep -v WARNING
    done
  done
done
