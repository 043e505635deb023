#!/usr/bin/env bash
# unibench's TTFT at a fixed Poisson rate against the static target, with the phases of TTFT and the run's CPU:
# bench/accuracy/run-ttft-rate.sh [RATE=1000] [RUNS=1]
# env: JAR (target/unibench.jar), JAVA_OPTS (-XX:TieredStopAtLevel=1), PORT (18080; bench/static-target/setup.sh must
#      be running), NUMBER (20000), WARMUP (5000). Each run holds /tmp/unibench-bench.lock. Percentiles: nearest rank
#      over requests.jsonl. Compare with bench/accuracy/run-ttft-floor.sh (the machine's floor, a minimal C client).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
. "$here/scripts/find-java.sh"; unibench_find_jdk >/dev/null
rate="${1:-1000}"; runs="${2:-1}"; jar="${JAR:-$here/target/unibench.jar}"
[ -f "$jar" ] || (cd "$here" && ./unibench --version >/dev/null)
for r in $(seq 1 "$runs"); do
  out="$(mktemp -d /tmp/unibench-ttft.XXXXXX)"
  exec 9>/tmp/unibench-bench.lock; flock 9
  echo "== $(date -u +%FT%TZ) rate=$rate run=$r load: $(cut -d' ' -f1-3 /proc/loadavg)"
  # shellcheck disable=SC2086
  "$JAVA_HOME/bin/java" ${JAVA_OPTS--XX:TieredStopAtLevel=1} -jar "$jar" perf \
    --url "http://127.0.0.1:${PORT:-18080}/v1/chat/completions" --model m --prompt hi --no-test-connection --no-db \
    --parallel 256 --number "${NUMBER:-20000}" --warmup-num "${WARMUP:-5000}" --rate "$rate" \
    --outputs-dir "$out" --no-timestamp --name r >"$out/out.txt" 2>&1
  flock -u 9
  python3 - "$out"/r/*/requests.jsonl "$out"/r/*/benchmark_summary.json <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
s = json.load(open(sys.argv[2]))
def pct(v, q):
    v = sorted(v); return v[min(len(v) - 1, int(q * len(v)))] * 1e3
ttft = [r["ttft_s"] for r in rows if r["ttft_s"] is not None]
phase = lambda k: [r["phases_ms"][k] / 1e3 for r in rows]
print("requests %d ok %d  TTFT ms p50 %.3f p90 %.3f p99 %.3f p99.9 %.3f max %.3f" % (
    len(rows), s["Success Requests"], pct(ttft, .5), pct(ttft, .9), pct(ttft, .99), pct(ttft, .999), max(ttft) * 1e3))
print("phases p50/p99 ms: queue (start -> write) %.3f/%.3f  write %.3f/%.3f  server wait %.3f/%.3f;"
      " scheduled -> start %.3f/%.3f" % (pct(phase("queue"), .5), pct(phase("queue"), .99), pct(phase("write"), .5),
      pct(phase("write"), .99), pct(phase("server_wait"), .5), pct(phase("server_wait"), .99),
      pct([r["queue_delay_s"] for r in rows], .5), pct([r["queue_delay_s"] for r in rows], .99)))
print("run CPU-s per 1,000 requests %.3f; machine CPU slowed %s%% of the run" % (
    s["Client CPU (s)"] / len(rows) * 1000, s.get("Machine CPU Slowed (%)")))
PY
  rm -rf "$out"
done
