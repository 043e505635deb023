#!/usr/bin/env bash
# Timestamp lag of the shipped LlmClient against a separate simulator process that writes its send stamps as the
# token text: bench/accuracy/run-shipped-lag.sh ["100 1000 5000"] [REPEATS=2]
# env: SECONDS_MEASURED (15), PORT (18097), SIM_CPUS / BENCH_CPUS (taskset CPU lists, e.g. 1 and 0: simulator and
#      client on separate cores), SPEED_PROBE (1: run bench/accuracy/vcpu-speed alongside when a C compiler is there,
#      and also print the lag of the chunks outside the VM's vCPU slow episodes; 0: off), BENCH_JAVA_OPTS.
# Each run holds /tmp/unibench-bench.lock (bench/README.md: one measurement at a time on this machine).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$here"
. scripts/find-java.sh
unibench_find_jdk
./unibench --version >/dev/null
conc="${1:-100 1000 5000}"; repeats="${2:-2}"
secs="${SECONDS_MEASURED:-15}"; port="${PORT:-18097}"
sim_pin=(); bench_pin=()
[ -n "${SIM_CPUS:-}" ] && sim_pin=(taskset -c "$SIM_CPUS")
[ -n "${BENCH_CPUS:-}" ] && bench_pin=(taskset -c "$BENCH_CPUS")
probe=""
if [ "${SPEED_PROBE:-1}" = 1 ] && command -v cc >/dev/null; then
  probe=/tmp/unibench-vcpu-speed
  cc -O1 -o "$probe" bench/accuracy/vcpu-speed.c
fi
sim=""; probe_pid=""
cleanup() { for p in $sim $probe_pid; do kill "$p" 2>/dev/null || true; done; }
trap cleanup EXIT
exec 9>/tmp/unibench-bench.lock
for c in $conc; do
  for r in $(seq 1 "$repeats"); do
    flock 9
    "${sim_pin[@]}" "$JAVA_HOME/bin/java" -XX:TieredStopAtLevel=1 -jar target/unibench.jar sim --profile instant \
      --itl-ms 50 --decode-ms-per-seq 0 --max-num-seqs 10000 --max-queue 20000 --debug-send-times-in-text true \
      --port "$port" >/tmp/unibench-shipped-lag-sim.log 2>&1 &
    sim=$!
    for _ in $(seq 1 50); do curl -fs "http://127.0.0.1:$port/health" >/dev/null && break; sleep 0.2; done
    echo "== $(date -u +%FT%TZ) streams=$c run=$r load: $(cut -d' ' -f1-3 /proc/loadavg)"
    episodes=()
    if [ -n "$probe" ]; then
      "$probe" $((secs + 60)) >/tmp/unibench-vcpu-episodes.txt & probe_pid=$!
      episodes=(-Dlag.episodes=/tmp/unibench-vcpu-episodes.txt)
    fi
    # shellcheck disable=SC2086
    "${bench_pin[@]}" "$JAVA_HOME/bin/java" -XX:TieredStopAtLevel=1 ${BENCH_JAVA_OPTS:-} "${episodes[@]}" \
      -cp target/unibench.jar bench/accuracy/ShippedClientLagBench.java "$c" "$secs" \
      "http://127.0.0.1:$port/v1/chat/completions" 2>&1 | grep -v WARNING | grep -v '^$' || true
    [ -n "$probe_pid" ] && { kill "$probe_pid" 2>/dev/null || true; wait "$probe_pid" 2>/dev/null || true; probe_pid=""; }
    echo "simulator CPU-s: $(ps -o times= -p "$sim")"
    kill "$sim"; wait "$sim" 2>/dev/null || true; sim=""
    flock -u 9
  done
done
