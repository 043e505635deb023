#!/usr/bin/env bash
# The client's own cost at concurrency 1 (issue 14 §2): unibench's TTFT p50 beside the C floor client's
# (bench/accuracy/ttft-floor.c), against nginx's static SSE body served two ways: keep-alive connections, and a new
# connection per request (keepalive_timeout 0: every reply says Connection: close and the connection is closed, as
# llama.cpp's server closes after every reply). unibench runs closed-loop (--parallel 1); the floor client opens its
# requests at RATE per second on one connection (-N: a new one per request), so neither queues. Both TTFTs count from
# just before the request is handed to the connection (unibench: before the pool hands out a connection, connection
# set-up included; the floor client: before write(), or before socket() with -N).
# SCHEME=https: the same over the two instances' TLS ports (PORT+2, PORT+3) with their certificate trusted (--ca-cert),
# beside bench/accuracy/ttft-floor-tls.c (OpenSSL, the same verification and ALPN offer; it resumes TLS sessions as
# unibench's client does, FLOOR_TLS_FLAGS="-R"; with -N its TTFT counts from before socket(), handshake included).
# Usage: bench/accuracy/run-ttft-c1.sh [NUMBER=3000] [RUNS=1]   (NUMBER=140: the issue's run length, a short run)
# env: PORT (18941; PORT+1 is the closing instance, PORT+2 and PORT+3 their TLS ports), SCHEME (http), RATE (300), JAR (target/unibench.jar), JAVA_OPTS
#      ("-XX:TieredStopAtLevel=1 -XX:CompileThresholdScaling=0.25", the launcher's JIT), LOCK (/tmp/unibench-bench.lock; each run holds it once, for
#      both servers and every jar), PERF_FLAGS (more `unibench perf` flags, e.g. "--warmup-num 300" to run the JIT's
#      warm-up on the target before the clock, "--no-client-warmup" to skip the client's in-process warm-up),
#      JARS ("LABEL=PATH[=JVM,FLAGS] ...": several jars, run one after another inside each run, e.g. before and after
#      a change, each with JAVA_OPTS or the comma-separated JVM flags given; default JAR alone, labelled "unibench").
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
. "$here/../../scripts/find-java.sh"; unibench_find_jdk >/dev/null
number="${1:-3000}"; runs="${2:-1}"
port="${PORT:-18941}"; rate="${RATE:-300}"; lock="${LOCK-/tmp/unibench-bench.lock}"; scheme="${SCHEME:-http}"
jar="${JAR:-$here/../../target/unibench.jar}"; java_opts="${JAVA_OPTS--XX:TieredStopAtLevel=1 -XX:CompileThresholdScaling=0.25}"
jars="${JARS:-unibench=$jar}"
[ -n "${JARS:-}" ] || [ -f "$jar" ] || (cd "$here/../.." && mvn -q -B -DskipTests package)
out="$(mktemp -d /tmp/unibench-ttft-c1.XXXXXX)"
cc -O2 -Wall -o "$out/ttft-floor" "$here/ttft-floor.c" -lm
[ "$scheme" = https ] && cc -O2 -Wall -o "$out/ttft-floor-tls" "$here/ttft-floor-tls.c" -lssl -lcrypto -lm
STATE_DIR=/tmp/unibench-ttft-c1-keep TLS_PORT=$((port + 2)) "$here/../static-target/setup.sh" "$port" 1 256 >&2
STATE_DIR=/tmp/unibench-ttft-c1-close TLS_PORT=$((port + 3)) KEEPALIVE_TIMEOUT=0 "$here/../static-target/setup.sh" "$((port + 1))" 1 256 >&2
trap 'STATE_DIR=/tmp/unibench-ttft-c1-keep "$here/../static-target/teardown.sh" >&2;
      STATE_DIR=/tmp/unibench-ttft-c1-close "$here/../static-target/teardown.sh" >&2' EXIT

echo "| server | jar | floor TTFT p50 ms | unibench TTFT p50 ms | difference ms | unibench start→written p50 ms | new connections | client warm-up | load avg |"
echo "|---|---|---|---|---|---|---|---|---|"
for r in $(seq 1 "$runs"); do
  # one hold of the lock per run: both servers, the floor and every jar under the same host conditions
  [ -n "$lock" ] && { exec 9>"$lock"; flock 9; }
  for mode in keep close; do
    p=$port; fresh=""; state=/tmp/unibench-ttft-c1-keep; [ "$mode" = close ] && { p=$((port + 1)); fresh="-N"; state=/tmp/unibench-ttft-c1-close; }
    if [ "$scheme" = https ]; then
      p=$((p + 2)); tls=(--ca-cert "$state/cert.pem")
      floor=$("$out/ttft-floor-tls" -C "$state/cert.pem" -p "$p" -r "$rate" -w 500 -n "$number" $fresh ${FLOOR_TLS_FLAGS--R} \
        | awk '/^TTFT from write/ { for (i = 1; i <= NF; i++) if ($i == "p50") print $(i + 1) }')
    else
      tls=()
      floor=$("$out/ttft-floor" -p "$p" -r "$rate" -c 1 -w 500 -n "$number" $fresh \
        | awk '/^TTFT from write/ { for (i = 1; i <= NF; i++) if ($i == "p50") print $(i + 1) }')
    fi
    for labelled in $jars; do
      label="${labelled%%=*}"; j="${labelled#*=}"; opts="$java_opts"
      case "$j" in *=*) opts="${j#*=}"; opts="${opts//,/ }"; j="${j%%=*}" ;; esac
      dir="$out/$mode-$r-$label"
      "$JAVA_HOME/bin/java" $opts -jar "$j" perf --url "$scheme://127.0.0.1:$p/v1/chat/completions" "${tls[@]}" \
        --model m --prompt hi --max-tokens 256 --parallel 1 --number "$number" --no-test-connection --no-db \
        --outputs-dir "$dir" --no-timestamp --name r ${PERF_FLAGS:-} >"$dir.log" 2>&1
      warm=$(sed -n 's/^client warm-up: \([0-9]* ms, [0-9]* requests\( over TLS\)*\).*/\1/p' "$dir.log" | head -1)
      python3 - "$dir/r/parallel_1_number_$number/requests.jsonl" "$mode" "$floor" "$label" "${warm:-none}" \
        "$(cut -d' ' -f1 /proc/loadavg)" "$scheme" <<'PY'
import json, math, sys
path, mode, floor, label, warm, load = sys.argv[1], sys.argv[2], float(sys.argv[3]), sys.argv[4], sys.argv[5], sys.argv[6]
ok = [r for r in map(json.loads, open(path)) if r["success"]]
def p50(v):  # nearest rank, as the floor client
    v = sorted(v); return v[max(1, math.ceil(0.5 * len(v))) - 1]
ttft = p50([r["ttft_s"] * 1e3 for r in ok])
written = p50([(r["written_s"] - r["start_s"]) * 1e3 for r in ok])
new = sum(r["new_connection"] for r in ok)
name = ("keep-alive" if mode == "keep" else "closes after each reply") + (", https" if sys.argv[7] == "https" else "")
print(f"| {name} | {label} | {floor:.3f} | {ttft:.3f} | {ttft - floor:+.3f} | {written:.3f} | {new}/{len(ok)} | {warm} | {load} |")
PY
    done
  done
  [ -n "$lock" ] && exec 9>&-
done
echo "(raw output in $out)" >&2
