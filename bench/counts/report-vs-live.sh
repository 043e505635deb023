#!/usr/bin/env bash
# The quick start (`perf` with no flags: the embedded simulator) with a store, then `runs report` of that run; prints
# both Workload Throughput tables and diffs every table of the two reports (issue 14 §5).
# Usage: bench/counts/report-vs-live.sh JAR [OUTDIR]. Takes the shared CPU lock for the run.
set -euo pipefail
jar=$1; d=${2:-$(mktemp -d)}
mkdir -p "$d"
db="jdbc:sqlite:$d/u.db"
flock /tmp/unibench-bench.lock java -XX:TieredStopAtLevel=1 -jar "$jar" perf --outputs-dir "$d/out" --no-timestamp \
  --db "$db" > "$d/live.txt" 2> "$d/live.err"
id=$(grep -o 'Run history: run [^ ]*' "$d/live.err" | awk '{print $4}')
java -jar "$jar" runs report "$id" --db "$db" > "$d/report.txt" 2>&1
for f in live report; do echo "== $f"; sed -n '/^Workload Throughput/,/^$/p' "$d/$f.txt"; done
if diff <(sed -n '/^Performance Overview/,$p' "$d/live.txt" | sed '/^Reproduce:/,$d') \
        <(sed -n '/^Performance Overview/,$p' "$d/report.txt"); then
  echo "every table identical"
fi
