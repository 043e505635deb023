#!/usr/bin/env bash
# Watching must not disturb measuring (issue 17): one run at a fixed request rate against a separate simulator
# process, (1) from the CLI (`unibench run --config`), (2) in the service with nobody watching, (3) in the service
# with its live events streamed to a client the whole time (GET /api/runs/{id}/events: what the live page reads; the
# page's own drawing costs the browser's process, not the service's). Service runs alternate unwatched/watched after
# one warm-up run, so drift on the shared host hits both. Prints, per run: the client process's CPU seconds during the
# run (service: /proc/PID/stat before POST and after the end; CLI: the whole process, JVM start included), achieved
# req/s and TTFT p99 (the stored report's, from every request).
#   bench/web/run-live.sh                 RATE=1000 SECS=20 CONC=64 MAX_TOKENS=16 PAIRS=2
# MEMORY=1 instead: the service under -Xmx256m running 256 concurrent streams (MAX_TOKENS=256, ITL 20 ms: ~5 s each)
# with its live events streamed; prints the heap's peak from its /metrics and the run's end.
# Takes the shared CPU lock itself (do not wrap it in flock).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$here"
rate="${RATE:-1000}"; secs="${SECS:-20}"; conc="${CONC:-64}"; tokens="${MAX_TOKENS:-16}"; pairs="${PAIRS:-2}"
exec 9>/tmp/unibench-bench.lock
flock 9
./unibench --version >/dev/null
work="$(mktemp -d /tmp/unibench-webbench.XXXXXX)"
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$work"; }
trap cleanup EXIT
tck="$(getconf CLK_TCK)"
cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
wait_line() { # file pattern: the first match, waiting up to 60 s for it
  for _ in $(seq 1 600); do grep -m1 -o "$2" "$1" 2>/dev/null && return 0; sleep 0.1; done
  echo "run-live.sh: no '$2' in $1" >&2; cat "$1" >&2; return 1
}

if [ "${MEMORY:-0}" = 1 ]; then conc=256; tokens="${MAX_TOKENS:-256}"; itl=20; else itl=1; fi
./unibench sim --port 0 --ttft-ms 5 --itl-ms "$itl" --max-num-seqs 1024 >"$work/sim.log" 2>&1 &
pids+=($!)
sim="$(wait_line "$work/sim.log" 'http://127.0.0.1:[0-9]*')"

doc() { # name requests
  cat <<EOF
name: $1
provider: {name: sim, base_url: "$sim/v1", model: unibench-sim}
generation: {max_tokens: $tokens, ignore_eos: true}
concurrency: {fixed: $conc, requests_per_level: $2}
$( [ "${MEMORY:-0}" = 1 ] || echo "rate_limit: {requests_per_sec: $rate}" )
scenarios:
  - {name: steady, type: chat, stream: true, prompt: "Say hello to the benchmark."}
EOF
}
p99_of() { python3 -c 'import json,sys
rows=json.load(open(sys.argv[1])); print(next(r["TTFT (ms)"] for r in rows if r["Percentiles"]=="99%"))' "$1"; }

if [ "${MEMORY:-0}" != 1 ]; then
  n=$((rate * secs))
  doc cli "$n" >"$work/cli.yaml"
  /usr/bin/time -f "%U %S %e" -o "$work/cli.time" ./unibench run --config "$work/cli.yaml" --no-db \
    --outputs-dir "$work/cli-out" --no-timestamp >"$work/cli.log" 2>&1
  read -r u s e <"$work/cli.time"
  pct="$(find "$work/cli-out" -name benchmark_percentile.json | head -1)"
  sum="$(find "$work/cli-out" -name benchmark_summary.json | head -1)"
  rps="$(python3 -c 'import json,sys; print(round(json.load(open(sys.argv[1]))["Req Throughput (req/s)"],1))' "$sum")"
  printf "%-22s cpu %6.2f s  (whole process, %s s wall)  %7s req/s  TTFT p99 %s ms\n" "cli" \
    "$(echo "$u + $s" | bc)" "$e" "$rps" "$(p99_of "$pct")"
fi

java_opts=""; [ "${MEMORY:-0}" = 1 ] && java_opts="-Xmx256m"
UNIBENCH_JAVA_OPTS="$java_opts" ./unibench serve --port 0 --db "$work/serve.db" --outputs-dir "$work/serve-out" \
  >"$work/serve.log" 2>&1 &
serve=$!
pids+=("$serve")
base="$(wait_line "$work/serve.log" 'http://127.0.0.1:[0-9]*')"

service_run() { # label requests watched
  local c0 id c1
  doc "$1" "$2" >"$work/$1.yaml"
  c0="$(cpu_ticks "$serve")"
  id="$(curl -sf -X POST "$base/api/runs" -H 'Content-Type: application/yaml' --data-binary @"$work/$1.yaml" \
    | python3 -c 'import json,sys; print(json.load(sys.stdin)["id"])')"
  if [ "$3" = watched ]; then
    curl -sN "$base/api/runs/$id/events" >"$work/$1.events"
  else
    until curl -sf "$base/api/runs/$id" | grep -q '"status":"\(finished\|failed\|cancelled\|interrupted\)"'; do
      sleep 1
    done
  fi
  c1="$(cpu_ticks "$serve")"
  curl -sf "$base/api/runs/$id" >"$work/$1.json"
  python3 - "$1" "$(echo "scale=2; ($c1 - $c0) / $tck" | bc)" "$work/$1.json" "$work/$1.events" <<'PY'
import json, os, sys
label, cpu, d, events = sys.argv[1], float(sys.argv[2]), json.load(open(sys.argv[3])), sys.argv[4]
p = d["points"][0]
p99 = next(r["TTFT (ms)"] for r in p["percentiles"] if r["Percentiles"] == "99%")
snaps = open(events).read().count("event: snapshot") if os.path.exists(events) else 0
print(f"{label:22s} cpu {cpu:6.2f} s  {d['status']:8s} {p['summary']['Req Throughput (req/s)']:7.1f} req/s  "
      f"TTFT p99 {p99} ms  snapshots streamed {snaps}")
PY
}

if [ "${MEMORY:-0}" = 1 ]; then
  ( peak=0; while kill -0 "$serve" 2>/dev/null; do
      h="$(curl -sf "$base/metrics" | awk '/^unibench_jvm_heap_used_bytes/ {print $2}')" || true
      [ -n "$h" ] && python3 -c "import sys; sys.exit(0 if float('$h') > $peak else 1)" && peak="$h" && echo "$peak" >"$work/peak"
      sleep 0.5; done ) &
  pids+=($!)
  service_run memory-256-streams $((conc * 4)) watched
  printf "heap peak %.0f MB of -Xmx256m (sampled every 0.5 s from /metrics)\n" \
    "$(python3 -c "print(float(open('$work/peak').read()) / 1e6)")"
  grep -i "OutOfMemory" "$work/serve.log" || echo "no OutOfMemoryError in the service's log"
  exit 0
fi

service_run warm-up $((rate * 5)) unwatched >/dev/null
for i in $(seq 1 "$pairs"); do
  service_run "service-unwatched-$i" $((rate * secs)) unwatched
  service_run "service-watched-$i" $((rate * secs)) watched
done
