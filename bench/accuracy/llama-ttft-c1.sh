#!/usr/bin/env bash
# Issue 31: TTFT minus the server's own timings.prompt_ms at concurrency 1 against a real llama-server
# (/work/shared/reference/real-servers.md), one or more unibench jars (each also with --server-metrics off, the
# /metrics scrape's effect) beside bench/accuracy/min_client.py (python3 http.client, a connection per request), a
# fresh server for every client run, the clients interleaved (their order rotates each round). Every jar runs the way
# the launcher runs it: C1 (-XX:TieredStopAtLevel=1 -XX:CompileThresholdScaling=0.25) and, on JDK >= 25, an AOT cache
# trained for that jar as the launcher trains it. Each run's first request is dropped (unibench's connection test
# is a request the run does not count; min_client sends N+1 and its first is dropped likewise), so every client's
# measured requests find the server's prompt cache in the same state.
# Prints one row per client: requests, p50 of TTFT − prompt_ms, its difference to min_client's, p50 of start →
# request written, and the requests unibench sent again after a stale pooled connection; then the p50 by request
# index within a run (requests 1–10 and 11–N), beside min_client's.
# Usage: bench/accuracy/llama-ttft-c1.sh [PAIRS=18] [N=30]
#   issue 31's table: JARS="before=/work/jars/base-main-0333.jar after=target/unibench.jar" SCRAPE_OFF=after \
#     bench/accuracy/llama-ttft-c1.sh 18 30
# env: JARS ("LABEL=PATH[=JVM,FLAGS] ...", default after=target/unibench.jar; the flags comma-separated), SCRAPE_OFF (1: also each jar with
#      --server-metrics off, labelled LABEL-no-scrape; 0: none; or the labels to do it for, e.g. "after"),
#      LOCK (/tmp/unibench-cpu.lock, held for one round at a time; empty: none, e.g. when the caller holds it for
#      the whole run: flock /tmp/unibench-cpu.lock env LOCK= bench/accuracy/llama-ttft-c1.sh), LLAMA (~/llama.cpp/build/bin/llama-server), MODEL (~/tiny.gguf), PORT (18190),
#      THREADS (the server's -t, 2), SERVER_CPUS / CLIENT_CPUS (taskset CPU lists for the server / every client run,
#      e.g. THREADS=1 SERVER_CPUS=1 CLIENT_CPUS=0: the server alone on one core, the clients on the other)
#      WIRE (1: capture each run's loopback packets with tcpdump — root — and split TTFT − prompt_ms into the
#      server's part, the request's last packet → the first content packet minus prompt_ms, and the client's part,
#      TTFT minus that packet interval: bench/accuracy/pcap_split.py; a second table)
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
. "$here/scripts/find-java.sh"
unibench_find_jdk >/dev/null
pairs="${1:-18}" n="${2:-30}" port="${PORT:-18190}" lock="${LOCK-/tmp/unibench-cpu.lock}"
jars="${JARS:-after=$here/target/unibench.jar}" scrape_off="${SCRAPE_OFF:-1}"
threads="${THREADS:-2}" server_cpus="${SERVER_CPUS:-}" client_cpus="${CLIENT_CPUS:-}"
pin=(); [ -n "$client_cpus" ] && pin=(taskset -c "$client_cpus")
wire="${WIRE:-0}" capture_pid=""
[ "$wire" = 1 ] && ! command -v tcpdump >/dev/null && { echo "WIRE=1 needs tcpdump (apt-get install -y tcpdump)" >&2; exit 2; }
jit="-XX:TieredStopAtLevel=1 -XX:CompileThresholdScaling=0.25"
prompt="Write a short story about a lighthouse keeper who finds a message in a bottle."
out="$(mktemp -d /tmp/unibench-llama-ttft.XXXXXX)"
server_pid=""
stop() {
  if [ -n "$capture_pid" ]; then
    sleep 1.5 # tcpdump drains the kernel's buffer lazily: an early stop loses the run's last packets
    kill -INT "$capture_pid" 2>/dev/null || true; wait "$capture_pid" 2>/dev/null || true; capture_pid=""
  fi
  if [ -n "$server_pid" ]; then kill "$server_pid" 2>/dev/null || true; wait "$server_pid" 2>/dev/null || true; fi; server_pid=""
}
capture() { # the run's packets, once tcpdump says it listens
  rm -f "$out/cap.pcap" "$out/cap.err"
  tcpdump -i lo -w "$out/cap.pcap" --time-stamp-precision=nano -B 16384 -U "tcp port $port" 2>"$out/cap.err" &
  capture_pid=$!
  until grep -q listening "$out/cap.err" 2>/dev/null; do sleep 0.05; done
}
trap stop EXIT
start() {
  ${server_cpus:+taskset -c "$server_cpus"} "${LLAMA:-$HOME/llama.cpp/build/bin/llama-server}" -m "${MODEL:-$HOME/tiny.gguf}" --host 127.0.0.1 --port "$port" \
    -t "$threads" -c 16384 -np 4 --metrics --alias tiny -n 512 --no-webui >>"$out/server.log" 2>&1 &
  server_pid=$!
  for _ in $(seq 1 300); do # polling a server's start: nothing to wait on but its health answer
    curl -fs "http://127.0.0.1:$port/health" >/dev/null 2>&1 && return 0
    sleep 0.1
  done
  echo "llama-server did not start (log: $out/server.log)" >&2; exit 1
}
no_scrape() { [ "$scrape_off" = 1 ] || [[ " $scrape_off " == *" $1 "* ]]; }
declare -A jar_of aot_of opts_of
clients=()
for labelled in $jars; do
  label="${labelled%%=*}"; j="${labelled#*=}"; o=""
  case "$j" in *=*) o="${j#*=}"; o="${o//,/ }"; j="${j%%=*}" ;; esac
  jar_of[$label]="$j"; opts_of[$label]="$o"; clients+=("$label")
  no_scrape "$label" && { jar_of[$label-no-scrape]="$j"; opts_of[$label-no-scrape]="$o"; clients+=("$label-no-scrape"); }
done
clients+=(python)
# the launcher's AOT cache, one per jar (JDK >= 25); JAR.aot when it is there and newer than the jar (e.g. a before
# jar's cache made the way its own launcher made it)
for labelled in $jars; do
  label="${labelled%%=*}"; j="${jar_of[$label]}"; cache="$out/$label.aot"
  if [ -f "$j.aot" ] && [ "$j.aot" -nt "$j" ]; then
    cp "$j.aot" "$cache"
  elif unibench_jdk_at_least 25; then
    [ -n "$lock" ] && { exec 9>"$lock"; flock 9; }
    # shellcheck disable=SC2086
    unibench_aot_train "$cache" "$j" "$out/aot-$label.log" "$out/aot-$label" $jit || true
    [ -n "$lock" ] && exec 9>&-
  fi
  aot_of[$label]=""; [ -f "$cache" ] && aot_of[$label]="-XX:AOTCache=$cache -Xlog:aot*=off,cds*=off"
  no_scrape "$label" && aot_of[$label-no-scrape]="${aot_of[$label]}"
done
ours_run() { # CLIENT: one run into $out/o
  local c="$1" flags=()
  [[ "$c" == *-no-scrape ]] && flags=(--server-metrics off)
  rm -rf "$out/o"
  # shellcheck disable=SC2086
  "${pin[@]}" "$JAVA_HOME/bin/java" $jit ${aot_of[$c]} ${opts_of[$c]} -jar "${jar_of[$c]}" perf --no-db \
    --url "http://127.0.0.1:$port/v1/chat/completions" --model tiny --prompt "$prompt" --max-tokens 8 --parallel 1 \
    --number "$n" --outputs-dir "$out/o" --no-timestamp --name r "${flags[@]}" >>"$out/$c.log" 2>&1
}
ours_rows() { # CLIENT: its run's lines into $out/CLIENT (ttft−prompt_ms start→written stale [server's part client's part])
  local c="$1"
  python3 - "$out/o/r/parallel_1_number_$n/requests.jsonl" "$out/wire" >>"$out/$c" <<'PY'
import json, os, sys
records = sorted((json.loads(line) for line in open(sys.argv[1])), key=lambda r: r["start_s"])
wire = [list(map(int, l.split())) for l in open(sys.argv[2])] if os.path.exists(sys.argv[2]) else None
# the connection test's POST first; a request sent again after a stale connection posted twice, or once when its
# first attempt never reached the wire (written to a socket the server had already closed)
twice = True
if wire is not None:
    posts = 1 + sum(2 if r.get("retried_stale_connection") else 1 for r in records)
    twice = len(wire) == posts
    if not twice and len(wire) != 1 + len(records):
        print(f"capture: {len(wire)} POSTs for {posts} sent, the run's split left out", file=sys.stderr)
        wire = None
w = 1
for r in records:
    w += 2 if twice and r.get("retried_stale_connection") else 1
    if r.get("ttft_s") is None or r.get("server_prompt_ms") is None:
        continue
    line = (f'{r["ttft_s"] * 1000 - r["server_prompt_ms"]:.3f} {(r["written_s"] - r["start_s"]) * 1000:.3f} '
            f'{int(bool(r.get("retried_stale_connection")))}')
    if wire is not None and wire[w - 1][1]:
        packets = (wire[w - 1][1] - wire[w - 1][0]) / 1e6
        line += f' {packets - r["server_prompt_ms"]:.3f} {r["ttft_s"] * 1000 - packets:.3f}'
    print(line)
PY
}
theirs_run() {
  "${pin[@]}" python3 "$here/bench/accuracy/min_client.py" 127.0.0.1 "$port" "$((n + 1))" "$prompt" 8 >"$out/py.txt"
}
theirs_rows() { # its first request dropped, as unibench's connection test is; with WIRE, the packets' times beside
  if [ -f "$out/wire" ]; then paste -d' ' "$out/py.txt" "$out/wire"; else cat "$out/py.txt"; fi | tail -n +2 \
    | awk '$1 != "-" { if (NF == 5 && $5 > 0) { p = ($5 - $4) / 1e6; printf "%.3f %.3f 0 %.3f %.3f\n", $1 - $2, $3, p - $2, $1 - p }
                       else printf "%.3f %.3f 0\n", $1 - $2, $3 }' >>"$out/python"
}
k=${#clients[@]}
for i in $(seq 1 "$pairs"); do
  [ -n "$lock" ] && { exec 9>"$lock"; flock 9; }
  for j in $(seq 0 $((k - 1))); do
    c="${clients[$(((i + j) % k))]}"
    start
    rm -f "$out/wire"; [ "$wire" = 1 ] && capture
    if [ "$c" = python ]; then theirs_run; else ours_run "$c"; fi
    stop
    [ "$wire" = 1 ] && python3 "$here/bench/accuracy/pcap_split.py" "$out/cap.pcap" "$port" >"$out/wire"
    if [ "$c" = python ]; then theirs_rows; else ours_rows "$c"; fi
  done
  [ -n "$lock" ] && exec 9>&-
  echo "round $i of $pairs done (load $(cut -d' ' -f1 /proc/loadavg))" >&2
done
python3 - "$out" "$n" "${clients[@]}" <<'PY'
import math, sys
out, n, clients = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
def q(v, p):  # nearest rank
    v = sorted(v); return v[max(1, math.ceil(p * len(v))) - 1]
def p50(v):
    return q(v, 0.5)
rows = {}
for c in clients:
    rows[c] = [tuple(map(float, l.split())) for l in open(f"{out}/{c}") if l.strip()]
floor = p50([r[0] for r in rows["python"]])
print("| client | requests | TTFT − prompt_ms p50, ms | − min_client's | p10 / p25 / p75 / p90, ms | start → request written p50, ms | sent again (stale) |")
print("| --- | --- | --- | --- | --- | --- | --- |")
for c in clients:
    r = rows[c]; t = p50([x[0] for x in r])
    stale = "—" if c == "python" else str(int(sum(x[2] for x in r)))
    qs = " / ".join(f"{q([x[0] for x in r], p):.2f}" for p in (0.1, 0.25, 0.75, 0.9))
    print(f"| {c} | {len(r)} | {t:.3f} | {t - floor:+.3f} | {qs} | {p50([x[1] for x in r]):.3f} | {stale} |")
# with WIRE: the server's part (the request's last packet → the first content packet, minus prompt_ms) and the
# client's part (TTFT minus that packet interval), over the requests whose run's capture matched
if any(len(x) == 5 for c in clients for x in rows[c]):
    split = {c: [x for x in rows[c] if len(x) == 5] for c in clients}
    fs, fc = p50([x[3] for x in split["python"]]), p50([x[4] for x in split["python"]])
    print()
    print("| client | requests captured | server's part p50, ms (− min_client's) | client's part p50, ms (− min_client's) | p25 / p75 server's, ms | p25 / p75 client's, ms |")
    print("| --- | --- | --- | --- | --- | --- |")
    for c in clients:
        r = split[c]
        if not r:
            continue
        s, k = p50([x[3] for x in r]), p50([x[4] for x in r])
        print(f"| {c} | {len(r)} | {s:.3f} ({s - fs:+.3f}) | {k:.3f} ({k - fc:+.3f}) | "
              f"{q([x[3] for x in r], .25):.2f} / {q([x[3] for x in r], .75):.2f} | {q([x[4] for x in r], .25):.2f} / {q([x[4] for x in r], .75):.2f} |")
# by request index within a run (each run wrote n lines in order): what is left of warming up is in the first ones
parts = [(1, min(10, n))] + ([(11, n)] if n > 10 else [])
print()
print("| client | " + " | ".join(f"requests {a}–{b}: p50 (− min_client's)" for a, b in parts) + " |")
print("| --- | " + " | ".join("---" for _ in parts) + " |")
def part(r, a, b):
    return [x[0] for i, x in enumerate(r) if a <= i % n + 1 <= b]
for c in clients:
    cells = []
    for a, b in parts:
        v, f = p50(part(rows[c], a, b)), p50(part(rows["python"], a, b))
        cells.append(f"{v:.3f} ({v - f:+.3f})")
    print(f"| {c} | " + " | ".join(cells) + " |")
PY
echo "(files in $out; load $(cut -d' ' -f1-3 /proc/loadavg))"
