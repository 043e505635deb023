#!/usr/bin/env bash
# Before/after pair of issue 28's two kept figures, interleaved in one session against the static nginx target:
#   (1) run CPU-s per 1,000 requests at c=256 (bench/client-load.sh 256 --no-db, NUMBER requests; --no-db
#       as in run-ttft-rate.sh, and because an older jar refuses a run history a newer one has migrated), and
#   (2) TTFT p99 at a Poisson 1,000 req/s (bench/accuracy/run-ttft-rate.sh 1000: 20,000 requests after 5,000 warm-up).
# Usage: bench/pair/run-pair.sh BEFORE.jar AFTER.jar [PAIRS=3]
# Order: for each pair, c=256 before, c=256 after, TTFT before, TTFT after. Each run holds LOCK (/tmp/unibench-cpu.lock).
# env: PORT (18280) and TLS_PORT (18643) of the target this script starts and stops (STATE_DIR
#      /tmp/unibench-static-target-pair), NUMBER (60000, as HISTORY's c=256 rows), TTFT_NUMBER (20000) and
#      TTFT_WARMUP (5000) for the rate runs, C256_JAVA_OPTS (client-load.sh's
#      C1 flags, no AOT cache for either jar), STOP_AT (a time for `date -d`: start no pair that the last pair's
#      duration says would end after it), OUT (a new /tmp/unibench-pair.XXXXXX: raw lines and results.tsv).
# Prints one line per run as it finishes, then the table (each run, medians, after/before ratio).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
[ $# -ge 2 ] || { echo "usage: $0 BEFORE.jar AFTER.jar [PAIRS=3]" >&2; exit 2; }
before="$(realpath "$1")"; after="$(realpath "$2")"; pairs="${3:-3}"
for j in "$before" "$after"; do [ -f "$j" ] || { echo "$0: no jar $j" >&2; exit 2; }; done
export PORT="${PORT:-18280}" TLS_PORT="${TLS_PORT:-18643}" STATE_DIR="${STATE_DIR:-/tmp/unibench-static-target-pair}"
lock="${LOCK:-/tmp/unibench-cpu.lock}"; number="${NUMBER:-60000}"
c256_opts="${C256_JAVA_OPTS:--XX:TieredStopAtLevel=1 -XX:CompileThresholdScaling=0.25}"
out="${OUT:-$(mktemp -d /tmp/unibench-pair.XXXXXX)}"; mkdir -p "$out"
"$here/static-target/setup.sh" "$PORT" >&2
trap '"$here/static-target/teardown.sh" >&2' EXIT
res="$out/results.tsv"; : >"$res"

c256() { # label jar
  local log="$out/c256.$1.$i"
  flock "$lock" env JAR="$2" NUMBER="$number" JAVA_OPTS="$c256_opts" "$here/client-load.sh" 256 --no-db >"$log" 2>&1
  local raw; raw="$(sed -n 's/^(raw output in \(.*\))$/\1/p' "$log")"
  python3 - "$raw/c256/r/parallel_256_number_$number/benchmark_summary.json" "$1" "$(cut -d' ' -f1 /proc/loadavg)" >>"$res" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
print("c256\t%s\t%.4f\t%d req, %.0f req/s, load %s" % (sys.argv[2], s["Client CPU (s)"] / s["Success Requests"] * 1000,
      s["Success Requests"], s["Req Throughput (req/s)"], sys.argv[3]))
PY
  rm -rf "$raw"; tail -1 "$res"
}
ttft() { # label jar
  local log="$out/ttft.$1.$i"
  flock "$lock" env -u JAVA_OPTS JAR="$2" NUMBER="${TTFT_NUMBER:-20000}" WARMUP="${TTFT_WARMUP:-5000}" \
    "$here/accuracy/run-ttft-rate.sh" 1000 1 >"$log" 2>&1
  python3 - "$log" "$1" >>"$res" <<'PY'
import re, sys
t = open(sys.argv[1]).read()
p99 = re.search(r"TTFT ms p50 \S+ p90 \S+ p99 (\S+)", t).group(1)
load = re.search(r"load: (\S+)", t).group(1); cpu = re.search(r"per 1,000 requests (\S+);", t).group(1)
print("ttft\t%s\t%s\tload %s, run CPU-s per 1,000 %s" % (sys.argv[2], p99, load, cpu))
PY
  tail -1 "$res"
}
last=0
for i in $(seq 1 "$pairs"); do
  start=$(date +%s)
  if [ -n "${STOP_AT:-}" ] && [ $(( start + last )) -gt "$(date -d "$STOP_AT" +%s)" ]; then
    echo "stopping after $((i - 1)) pairs: another would end after $STOP_AT" >&2; break
  fi
  c256 before "$before"; c256 after "$after"
  ttft before "$before"; ttft after "$after"
  last=$(( $(date +%s) - start ))
done
python3 - "$res" <<'PY'
import statistics, sys
rows = [l.rstrip("\n").split("\t") for l in open(sys.argv[1])]
for kind, name in (("c256", "run CPU-s per 1,000 requests, c=256"), ("ttft", "TTFT p99 ms, Poisson 1,000 req/s")):
    b = [float(r[2]) for r in rows if r[0] == kind and r[1] == "before"]
    a = [float(r[2]) for r in rows if r[0] == kind and r[1] == "after"]
    if not b or not a: continue
    mb, ma = statistics.median(b), statistics.median(a)
    print("| %s | %s | %s | %.4g | %.4g | %.3f |" % (name, " / ".join(map(str, b)), " / ".join(map(str, a)), mb, ma, ma / mb))
PY
echo "(raw lines in $out)" >&2
