#!/usr/bin/env bash
# CPU seconds per thread group of one `unibench perf` run against the static target (bench/static-target), sampled
# from /proc/<pid>/task/*/stat every 0.3 s (a thread's last sample before it ends counts; threads shorter than one
# period are missed, so the groups sum to slightly less than the process). Groups: unibench-client (Netty event
# loops), ForkJoinPool (virtual-thread carriers: request bodies, records, sinks), C (JIT compiler threads), java
# (main: start-up and the report), unibench-store (SQLite writer), G/GC (collector).
# Usage: bench/profile/thread-cpu.sh LABEL CONCURRENCY NUMBER [extra perf flags...]
#   env: JAR (target/unibench.jar), JAVA_OPTS (default -XX:TieredStopAtLevel=1, as ./unibench), PORT (18080),
#        WORKLOAD (--prompt hi; e.g. "--dataset random --tokenizer-path cl100k_base --min-prompt-length 128
#        --max-prompt-length 128": the unibench-prefetch group is then the prompts' synthesis)
# Example with a JFR profile: JAVA_OPTS="-XX:TieredStopAtLevel=1 -XX:StartFlightRecording=filename=/tmp/x.jfr,settings=profile" \
#   bench/profile/thread-cpu.sh x 256 60000; then bench/profile/jfr-top.py /tmp/x.jfr
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
. "$here/../../scripts/find-java.sh"; unibench_find_jdk >/dev/null
label=$1; c=$2; n=$3; shift 3
jar="${JAR:-$here/../../target/unibench.jar}"
out="/tmp/unibench-threads-$label"; rm -rf "$out"; mkdir -p "$out"
# shellcheck disable=SC2086
"$JAVA_HOME/bin/java" ${JAVA_OPTS--XX:TieredStopAtLevel=1} -jar "$jar" perf \
  --url "http://127.0.0.1:${PORT:-18080}/v1/chat/completions" --model m ${WORKLOAD:---prompt hi} --no-test-connection \
  --max-tokens 256 --parallel "$c" --number "$n" --outputs-dir "$out" --no-timestamp --name r "$@" >"$out/out.txt" 2>&1 &
pid=$!
declare -A cpu
total=""
while kill -0 "$pid" 2>/dev/null; do
  for t in /proc/$pid/task/*; do
    line=$(cat "$t/stat" 2>/dev/null) || continue
    name=$(cat "$t/comm" 2>/dev/null) || continue
    name=${name%%[0-9]*}
    # shellcheck disable=SC2086
    set -- ${line#*) }
    cpu[${t##*/}]="${name// /_} ${12} ${13}"
  done
  pl=$(cat /proc/$pid/stat 2>/dev/null) && { set -- ${pl#*) }; total="${12} ${13}"; }
  sleep 0.3
done
wait "$pid" || { echo "perf failed: see $out/out.txt" >&2; exit 1; }
tick=$(getconf CLK_TCK)
echo "process user+sys CPU-s: $(echo "$total" | awk -v t="$tick" '{print ($1+$2)/t}')"
for k in "${!cpu[@]}"; do echo "${cpu[$k]}"; done \
  | awk -v t="$tick" '{s[$1]+=($2+$3)/t} END {for (k in s) if (s[k] >= 0.01) printf "  %-24s %7.2f\n", k, s[k]}' | sort -k2 -n -r
python3 - "$out/r/parallel_${c}_number_${n}/benchmark_summary.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
ok, cpu = s["Success Requests"], s.get("Client CPU (s)")
print(f"ok={ok} req/s={s['Req Throughput (req/s)']:.0f} run CPU-s={cpu} per 1k={cpu / ok * 1000:.3f} µs/event={cpu / ok / 260 * 1e6:.2f}")
PY
