#!/usr/bin/env bash
# Client figures against the static nginx target (issue 7): for each concurrency, one `unibench perf` JVM run with
# CPU and peak RSS from /usr/bin/time (whole process: JVM start, JIT and report included), the run's own CPU from
# the self-check (benchmark_summary.json), peak heap from the GC log, and the reported TTFT/ITL.
# Usage: bench/client-load.sh [CONCURRENCIES="1 64 256 1024 4096"] [EXTRA perf flags...]
#   env: PORT (18080), SCHEME (http; https = the target's TLS port TLS_PORT, 18443, with its certificate trusted
#        through --ca-cert), NUMBER (3000; at least 2x the concurrency), PATH_SUFFIX (/v1/chat/completions),
#        JAVA_OPTS (default: the ./unibench launcher's flags, -XX:TieredStopAtLevel=1 -XX:CompileThresholdScaling=0.25
#        and its AOT cache target/unibench.aot when ./unibench made one for this jar), JAR (target/unibench.jar),
#        WORKLOAD (--prompt hi; e.g. "--dataset random --tokenizer-path cl100k_base --min-prompt-length 128
#        --max-prompt-length 128" for synthesized prompts), EVENTS (260: SSE events per reply, for µs/event;
#        the target's responses.sse has 264, anthropic.sse 262), MAX_TOKENS (--max-tokens 256; MAX_TOKENS= for
#        --api openai_embedding, which refuses it)
# Needs bench/static-target/setup.sh running. Prints one Markdown table row per run.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
. "$here/../scripts/find-java.sh"; unibench_find_jdk >/dev/null
jar="${JAR:-$here/../target/unibench.jar}"
[ -f "$jar" ] || (cd "$here/.." && mvn -q -B -DskipTests package)
aot_default=""
[ -f "$here/../target/unibench.aot" ] && [ "$here/../target/unibench.aot" -nt "$jar" ] && aot_default="-XX:AOTCache=$here/../target/unibench.aot -Xlog:aot*=off,cds*=off"
java_opts="${JAVA_OPTS--XX:TieredStopAtLevel=1 -XX:CompileThresholdScaling=0.25 $aot_default}"
port="${PORT:-18080}"; scheme="${SCHEME:-http}"; tls_flags=()
if [ "$scheme" = https ]; then port="${TLS_PORT:-18443}"; tls_flags=(--ca-cert /tmp/unibench-static-target/cert.pem); fi
base="${NUMBER:-3000}"; suffix="${PATH_SUFFIX:-/v1/chat/completions}"
concs="${1:-1 64 256 1024 4096}"; shift || true
out="$(mktemp -d /tmp/unibench-bench.XXXXXX)"
echo "| conc | requests | req/s | chunks/s | run CPU-s /1k req | run µs/event | process CPU-s | peak RSS MiB | peak heap MiB | TTFT p50/p99 ms | ITL p99 ms | self-check CPU avg/max %, lag p99 ms |"
echo "|---|---|---|---|---|---|---|---|---|---|---|---|"
for c in $concs; do
  n=$(( base > 2 * c ? base : 2 * c ))
  dir="$out/c$c"
  /usr/bin/time -f "%e %U %S %M" -o "$out/time.$c" "$JAVA_HOME/bin/java" $java_opts -Xlog:gc:file="$out/gc.$c.log" -jar "$jar" perf \
    --url "$scheme://127.0.0.1:$port$suffix" "${tls_flags[@]}" --model m ${WORKLOAD:---prompt hi} --no-test-connection ${MAX_TOKENS---max-tokens 256} \
    --parallel "$c" --number "$n" --outputs-dir "$dir" --no-timestamp --name r "$@" >"$out/out.$c" 2>"$out/err.$c"
  python3 - "$dir/r/parallel_${c}_number_${n}" "$out/time.$c" "$out/gc.$c.log" "$c" "$n" "${EVENTS:-260}" <<'PY'
import json, re, sys
d, timef, gcf, c, n, events = sys.argv[1:]
s = json.load(open(d + "/benchmark_summary.json"))
rows = {r["Percentiles"]: r for r in json.load(open(d + "/benchmark_percentile.json"))}
wall, user, sys_, rss = open(timef).read().split()[-4:]
heap = 0
for line in open(gcf):
    for m in re.finditer(r"(\d+)M->(\d+)M", line):
        heap = max(heap, int(m.group(1)), int(m.group(2)))
ok = s["Success Requests"]; dur = s["Test Duration (s)"]
chunks = ok * int(events)  # chat: role + 256 tokens + finish + usage + [DONE] per reply
cpu = s.get("Client CPU (s)") or float("nan")
print(f"| {c} | {ok}/{n} | {s['Req Throughput (req/s)']:.0f} | {chunks/dur:,.0f} | {cpu/ok*1000:.2f} | {cpu/chunks*1e6:.2f} | "
      f"{float(user)+float(sys_):.1f} | {int(rss)/1024:.0f} | {heap} | {rows['50%']['TTFT (ms)']}/{rows['99%']['TTFT (ms)']} | "
      f"{rows['99%']['ITL (ms)']} | {s.get('Client CPU Avg (%)')}/{s.get('Client CPU Max (%)')}, {s.get('Timing Lag P99 (ms)')} |")
PY
done
echo "(raw output in $out)" >&2
