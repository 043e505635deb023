#!/usr/bin/env bash
# Issue 31: what a user pays before a short run — `perf --duration 5` with random 128-token cl100k_base prompts
# against the embedded simulator, --number 1000 vs 100000, whole process under /usr/bin/time -v.
# Usage: flock /tmp/unibench-bench.lock bench/synth/number-pair.sh [NUMBERS="1000 100000"]
# env: JAR (target/unibench.jar), JAVA_OPTS (the launcher's C1 flags), PERF_FLAGS (extra perf flags)
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
. "$here/scripts/find-java.sh"
unibench_find_jdk >/dev/null
jar="${JAR:-$here/target/unibench.jar}"
opts="${JAVA_OPTS--XX:TieredStopAtLevel=1 -XX:CompileThresholdScaling=0.25}"
out="$(mktemp -d)"
echo "| --number | wall s | peak RSS MiB | process CPU-s |"
echo "| --- | --- | --- | --- |"
for n in ${1:-1000 100000}; do
  # shellcheck disable=SC2086
  /usr/bin/time -v -o "$out/time" "$JAVA_HOME/bin/java" $opts -jar "$jar" perf --no-db --outputs-dir "$out/o$n" \
      --dataset random --tokenizer-path cl100k_base --min-prompt-length 128 --max-prompt-length 128 \
      --parallel 64 --max-tokens 16 --number "$n" --duration 5 ${PERF_FLAGS:-} >"$out/log$n" 2>&1 || true
  wall=$(awk -F': ' '/Elapsed \(wall clock\)/ {n=split($2,a,":"); s=0; for(i=1;i<=n;i++) s=s*60+a[i]; print s}' "$out/time")
  rss=$(awk -F': ' '/Maximum resident/ {printf "%.0f", $2/1024}' "$out/time")
  cpu=$(awk -F': ' '/User time/ {u=$2} /System time/ {s=$2} END {printf "%.1f", u+s}' "$out/time")
  echo "| $n | $wall | $rss | $cpu |"
done
echo "(logs in $out)"
