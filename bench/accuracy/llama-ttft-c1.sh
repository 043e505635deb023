#!/usr/bin/env bash
# Issue 31: TTFT minus the server's own timings.prompt_ms at concurrency 1 against a real llama-server
# (/work/shared/reference/real-servers.md), unibench (scrape on, and --server-metrics off) beside min_client.py,
# a fresh server for every run, the clients interleaved. Prints p50s per run and over all requests.
# Usage: flock /tmp/unibench-cpu.lock bench/accuracy/llama-ttft-c1.sh [PAIRS=4] [N=30]
# env: JAR (target/unibench.jar), JAVA_OPTS (the launcher's C1 flags), LLAMA (~/llama.cpp/build/bin/llama-server),
#      MODEL (~/tiny.gguf), PORT (18090)
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
. "$here/scripts/find-java.sh"
unibench_find_jdk >/dev/null
pairs="${1:-4}" n="${2:-30}" port="${PORT:-18090}"
jar="${JAR:-$here/target/unibench.jar}"
opts="${JAVA_OPTS--XX:TieredStopAtLevel=1 -XX:CompileThresholdScaling=0.25}"
prompt="Write a short story about a lighthouse keeper who finds a message in a bottle."
out="$(mktemp -d)"
server_pid=""
stop() { [ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null && wait "$server_pid" 2>/dev/null; server_pid=""; }
trap stop EXIT
start() {
  "${LLAMA:-$HOME/llama.cpp/build/bin/llama-server}" -m "${MODEL:-$HOME/tiny.gguf}" --host 127.0.0.1 --port "$port" \
    -t 2 -c 16384 -np 4 --metrics --alias tiny -n 512 --no-webui >"$out/server.log" 2>&1 &
  server_pid=$!
  for _ in $(seq 1 300); do # polling a server's start: nothing to wait on but its health answer
    curl -fs "http://127.0.0.1:$port/health" >/dev/null 2>&1 && return 0
    sleep 0.1
  done
  echo "llama-server did not start" >&2; exit 1
}
ours() { # LABEL [perf flags]: ttft_ms - prompt_ms per request into $out/LABEL
  local label="$1"; shift
  # shellcheck disable=SC2086
  "$JAVA_HOME/bin/java" $opts -jar "$jar" perf --no-db --url "http://127.0.0.1:$port/v1/chat/completions" \
    --model tiny --prompt "$prompt" --max-tokens 8 --parallel 1 --number "$n" --outputs-dir "$out/o" \
    --name "$label" "$@" >"$out/$label.log" 2>&1
  python3 - "$out/o" >>"$out/$label" <<'PY'
import json, sys, pathlib
f = sorted(pathlib.Path(sys.argv[1]).rglob("requests.jsonl"), key=lambda p: p.stat().st_mtime)[-1]
for line in f.read_text().splitlines():
    r = json.loads(line)
    if r.get("ttft_s") is not None and r.get("server_prompt_ms") is not None:
        print(f'{r["ttft_s"] * 1000 - r["server_prompt_ms"]:.3f}')
f.unlink()
PY
}
theirs() {
  python3 "$here/bench/accuracy/min_client.py" 127.0.0.1 "$port" "$n" "$prompt" 8 \
    | awk '{printf "%.3f\n", $1 - $2}' >>"$out/python"
}
p50() { sort -n "$1" | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
for i in $(seq 1 "$pairs"); do
  start; ours unibench; stop
  start; theirs; stop
  start; ours unibench-no-scrape --server-metrics off; stop
done
echo "| client | requests | TTFT − prompt_ms p50, ms |"
echo "| --- | --- | --- |"
for c in unibench unibench-no-scrape python; do echo "| $c | $(wc -l <"$out/$c") | $(p50 "$out/$c") |"; done
echo "(files in $out; load $(cut -d' ' -f1-3 /proc/loadavg))"
