#!/usr/bin/env bash
# How faithfully the open loop sends a shaped schedule: bench/accuracy/run-arrivals.sh [RATE=200] [NUMBER=4000] ["0.25 1 4"]
# For each --burstiness B: one `perf --open-loop --rate RATE --burstiness B` against the embedded simulator (one-token
# replies), then from requests.jsonl: the CV of the scheduled gaps (the schedule's own; gamma(B) has CV 1/sqrt(B)),
# the CV of the actual send gaps, the achieved send rate, and the schedule lag (actual send - scheduled) p50/p99/max.
# Takes the shared CPU lock itself: run it WITHOUT an outer flock.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$here"
. scripts/find-java.sh
unibench_find_jdk
./unibench --version >/dev/null
rate="${1:-200}"; number="${2:-4000}"; shapes="${3:-0.25 1 4}"
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
exec 9>/tmp/unibench-bench.lock
flock 9
printf '%-6s %-8s %-10s %-10s %-10s %-24s %s\n' B "CV 1/√B" "CV sched" "CV sent" "sent/s" "lag p50/p99/max (ms)" "load"
for b in $shapes; do
  ./unibench perf --no-db --no-test-connection --outputs-dir "$out" --no-timestamp --name "b$b" --open-loop \
    --rate "$rate" --number "$number" --burstiness "$b" --max-tokens 1 --seed 1 >/dev/null 2>&1
  python3 - "$out/b$b/rate_${rate}.0_number_${number}/requests.jsonl" "$b" "$(cut -d' ' -f1-3 /proc/loadavg)" <<'PY'
import json, math, statistics, sys
rows = sorted((json.loads(l) for l in open(sys.argv[1])), key=lambda r: r["index"])
def cv(xs):
    gaps = [b - a for a, b in zip(xs, xs[1:])]
    return statistics.pstdev(gaps) / statistics.mean(gaps)
sched = [r["scheduled_s"] for r in rows]
sent = [r["start_s"] for r in rows]
lag = sorted((s - c) * 1000 for s, c in zip(sent, sched))
b = float(sys.argv[2])
q = lambda p: lag[min(len(lag) - 1, int(len(lag) * p))]
print(f"{b:<6g} {1 / math.sqrt(b):<8.3f} {cv(sched):<10.3f} {cv(sent):<10.3f} {(len(sent) - 1) / (sent[-1] - sent[0]):<10.1f} "
      f"{q(0.5):.2f} / {q(0.99):.2f} / {lag[-1]:.2f}{'':8} {sys.argv[3]}")
PY
done
