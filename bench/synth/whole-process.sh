#!/usr/bin/env bash
# Issue 31: what a user pays for a whole `unibench perf` process — random 128-token cl100k_base prompts, c=256,
# N streamed requests (30,000) against the static SSE target — minus a 1-request run of the same jar and flags
# (JVM start, tokenizer, connection test, report), as CPU-s per 1,000 requests; wall time, peak RSS, the measured
# window's req/s and the run's own CPU (the self-check's "Client CPU (s)") beside it.
# Usage: flock /tmp/unibench-cpu.lock bench/synth/whole-process.sh JAR... (e.g. a before and an after jar)
# env: N (30000), C (256), REPEATS (1), PORT (18080; bench/static-target/setup.sh running), AOT (1: the launcher's
#      AOT cache, trained once per jar as ./unibench trains it, into JAR.aot; 0: none), JAVA_OPTS (the launcher's C1
#      flags), PERF_FLAGS (extra perf flags)
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
. "$here/scripts/find-java.sh"
unibench_find_jdk >/dev/null
n="${N:-30000}"; c="${C:-256}"; port="${PORT:-18080}"; repeats="${REPEATS:-1}"
jit="${JAVA_OPTS--XX:TieredStopAtLevel=1 -XX:CompileThresholdScaling=0.25}"
out="$(mktemp -d /tmp/unibench-whole.XXXXXX)"
# WORKLOAD (env) replaces the prompts, e.g. WORKLOAD="--prompt @/tmp/p128.txt" for the client alone
# shellcheck disable=SC2206
workload=(${WORKLOAD:---dataset random --tokenizer-path cl100k_base --min-prompt-length 128 --max-prompt-length 128})
run() { # jar opts count parallel dir -> "wall cpu rss"
  local jar="$1" opts="$2" count="$3" par="$4" dir="$5"
  # shellcheck disable=SC2086
  /usr/bin/time -f "%e %U %S %M" -o "$dir.time" "$JAVA_HOME/bin/java" $opts -jar "$jar" perf --no-db \
    --url "http://127.0.0.1:$port/v1/chat/completions" --model m "${workload[@]}" --max-tokens 256 \
    --parallel "$par" --number "$count" --outputs-dir "$dir" --no-timestamp --name r ${PERF_FLAGS:-} >"$dir.out" 2>"$dir.err"
  awk '{printf "%s %.2f %.0f\n", $1, $2+$3, $4/1024}' "$dir.time"
}
echo "| jar | run | wall s | process CPU-s | peak RSS MiB | marginal CPU-s /1k req | window req/s | run CPU-s (self-check) | preparation waits |"
echo "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"
for r in $(seq 1 "$repeats"); do
  for jar in "$@"; do
    opts="$jit"
    if [ "${AOT:-1}" = 1 ] && unibench_jdk_at_least 25; then
      if [ ! -f "$jar.aot" ] || [ "$jar" -nt "$jar.aot" ]; then
        # shellcheck disable=SC2086
        unibench_aot_train "$jar.aot" "$jar" "$out/train.log" "$out/train" $jit || true
      fi
      [ -f "$jar.aot" ] && opts="$jit -XX:AOTCache=$jar.aot -Xlog:aot*=off,cds*=off"
    fi
    name="$(basename "$jar" .jar)"
    read -r w1 c1 m1 < <(run "$jar" "$opts" 1 1 "$out/$name.$r.one")
    read -r wn cn mn < <(run "$jar" "$opts" "$n" "$c" "$out/$name.$r.n")
    summary="$out/$name.$r.n/r/parallel_${c}_number_${n}/benchmark_summary.json"
    python3 - "$summary" "$name" "$w1" "$c1" "$m1" "$wn" "$cn" "$mn" "$n" <<'PY'
import json, sys
f, name, w1, c1, m1, wn, cn, mn, n = sys.argv[1:]
s = json.load(open(f))
marg = (float(cn) - float(c1)) / (int(n) - 1) * 1000
print(f"| {name} | 1 request | {w1} | {c1} | {m1} | | | | |")
print(f"| {name} | {int(n):,} requests | {wn} | {cn} | {mn} | **{marg:.3f}** | {s['Req Throughput (req/s)']:,.0f} | "
      f"{s.get('Client CPU (s)')} | {s.get('Preparation Waits', 'n/a')} ({s.get('Preparation Wait (s)', 'n/a')} s) |")
PY
  done
done
echo "(raw output in $out)" >&2
