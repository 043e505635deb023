#!/usr/bin/env bash
# Timestamp lag against a separate simulator process: bench/accuracy/run-lag.sh ["100 1000 5000"] [REPEATS=3]
# CLIENT=shipped measures unibench's own LlmClient (ShippedClientLagBench; the simulator writes its send stamps as the
# token text); CLIENT=floor the same workload with a minimal single-threaded C epoll client (lag-floor.c, needs a C
# compiler: the machine's floor); the default, CLIENT=lookalike, a client of LlmClient's shape (TimingLagBench, stamps
# in a JSON field).
# Each stream's first reply (MAX_TOKENS x ITL_MS = 5 s by default) is warm-up: SECONDS_MEASURED must be longer.
# env: ITL_MS (50), MAX_TOKENS (100), SECONDS_MEASURED (20), PORT (18090), BENCH_JAVA_OPTS (client JVM; default the
#      launcher's -XX:TieredStopAtLevel=1, BENCH_JAVA_OPTS= for the JVM's defaults; -Dlag.dump=FILE with
#      CLIENT=shipped writes every chunk's send and arrival stamps), SIM_JAVA_OPTS,
#      SPEED_PROBE (1: run bench/accuracy/vcpu-speed alongside each run, when a C compiler is there, and also print the
#      lag outside the VM's vCPU slow episodes; 0: off), SIM_CPUS / BENCH_CPUS (taskset CPU lists, e.g. 1 and 0: the
#      simulator and the client on separate cores, so the simulator's write bursts do not take the client's CPU).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$here"
. scripts/find-java.sh
unibench_find_jdk
./unibench --version >/dev/null
conc="${1:-100 1000 5000}"; repeats="${2:-3}"
itl="${ITL_MS:-50}"; tokens="${MAX_TOKENS:-100}"; secs="${SECONDS_MEASURED:-20}"; port="${PORT:-18090}"
sim_pin=(); bench_pin=()
[ -n "${SIM_CPUS:-}" ] && sim_pin=(taskset -c "$SIM_CPUS")
[ -n "${BENCH_CPUS:-}" ] && bench_pin=(taskset -c "$BENCH_CPUS")
case "${CLIENT:-lookalike}" in
  lookalike) stamp_knob=--debug-send-times ;;
  shipped) stamp_knob=--debug-send-times-in-text ;;
  floor) stamp_knob=--debug-send-times-in-text
         cc -O2 -o /tmp/unibench-lag-floor bench/accuracy/lag-floor.c -lm ;;
  *) echo "run-lag.sh: CLIENT must be lookalike, shipped or floor, got ${CLIENT}" >&2; exit 2 ;;
esac
# one measurement at a time on this machine (bench/README.md)
exec 9>/tmp/unibench-bench.lock
flock 9
"${sim_pin[@]}" "$JAVA_HOME/bin/java" ${SIM_JAVA_OPTS:-} -jar target/unibench.jar sim --profile instant --itl-ms "$itl" --decode-ms-per-seq 0 \
  --max-num-seqs 10000 --max-queue 20000 "$stamp_knob" true --port "$port" >/tmp/unibench-lag-sim.log 2>&1 &
sim=$!
trap 'kill $sim 2>/dev/null || true' EXIT
probe=""
if [ "${SPEED_PROBE:-1}" = 1 ] && command -v cc >/dev/null; then
  probe=/tmp/unibench-vcpu-speed
  cc -O1 -o "$probe" bench/accuracy/vcpu-speed.c
fi
for _ in $(seq 1 50); do curl -fs "http://127.0.0.1:$port/health" >/dev/null && break; sleep 0.2; done
for c in $conc; do
  for r in $(seq 1 "$repeats"); do
    echo "== $(date -u +%FT%TZ) streams=$c run=$r load: $(cut -d' ' -f1-3 /proc/loadavg)"
    episodes=()
    if [ -n "$probe" ]; then
      "$probe" $((secs + 60)) >/tmp/unibench-vcpu-episodes.txt & probe_pid=$!
      episodes=(-Dlag.episodes=/tmp/unibench-vcpu-episodes.txt)
    fi
    if [ "${CLIENT:-lookalike}" = floor ]; then
      # its SECONDS include the warm-up reply (MAX_TOKENS x ITL_MS), the Java benches' do not
      "${bench_pin[@]}" /tmp/unibench-lag-floor "$c" $((secs + tokens * itl / 1000 + 1)) "$port" "$tokens"
      echo "simulator CPU-s so far: $(ps -o times= -p "$sim")"
      if [ -n "$probe" ]; then kill "$probe_pid" 2>/dev/null || true; wait "$probe_pid" 2>/dev/null || true; fi
      continue
    fi
    if [ "$stamp_knob" = --debug-send-times ]; then
      bench=(bench/accuracy/TimingLagBench.java "$c" "$secs" "$itl" "$tokens" "http://127.0.0.1:$port")
    else
      bench=(bench/accuracy/ShippedClientLagBench.java "$c" "$secs" "http://127.0.0.1:$port/v1/chat/completions" "$tokens")
    fi
    # shellcheck disable=SC2086
    "${bench_pin[@]}" "$JAVA_HOME/bin/java" ${BENCH_JAVA_OPTS--XX:TieredStopAtLevel=1} "${episodes[@]}" -cp target/unibench.jar "${bench[@]}" \
      2>&1 | grep -v WARNING | grep -v '^$' || true
    echo "simulator CPU-s so far: $(ps -o times= -p "$sim")"
    if [ -n "$probe" ]; then kill "$probe_pid" 2>/dev/null || true; wait "$probe_pid" 2>/dev/null || true; fi
  done
done
