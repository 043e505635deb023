#!/usr/bin/env bash
# The machine's TTFT floor at a fixed Poisson rate: bench/accuracy/ttft-floor.c (a minimal C epoll client) against the
# static target, with bench/accuracy/vcpu-speed alongside so the p99 outside the host's vCPU slow episodes is printed too.
# Usage: bench/accuracy/run-ttft-floor.sh [RATE=1000] [RUNS=1]
# env: PORT (18080, bench/static-target/setup.sh must be running), CONNS (256), WARMUP (5000), NUMBER (20000),
#      SEED (1; run r uses SEED+r-1... +1 for its measured phase), SPEED_PROBE (1; 0: off), MARGIN_MS (20: an episode
#      is extended by this much for the backlog to drain), OUT (/tmp/ttft-floor-runs: rows and episodes files),
#      LOCK (/tmp/unibench-bench.lock; each run holds it; LOCK= to run without).
# The probe costs ~5% of a core (and ~40% inside an episode, when its fixed chunk runs slowly); at 1,000 req/s the C
# client's p99 tracked the episode share (0.73-0.82 ms at 6.7-8.4%, 0.41 ms at 3.8%) and was 0.35-0.55 ms in runs
# without the probe, so SPEED_PROBE=0 gives the cleaner floor and SPEED_PROBE=1 the explanation of its tail.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
rate="${1:-1000}"; runs="${2:-1}"
port="${PORT:-18080}"; conns="${CONNS:-256}"; warmup="${WARMUP:-5000}"; number="${NUMBER:-20000}"; seed="${SEED:-1}"
out="${OUT:-/tmp/ttft-floor-runs}"; margin="${MARGIN_MS:-20}"; lock="${LOCK-/tmp/unibench-bench.lock}"
mkdir -p "$out"
cc -O2 -Wall -o "$out/ttft-floor" "$here/ttft-floor.c" -lm
cc -O1 -o "$out/vcpu-speed" "$here/vcpu-speed.c"
lockcmd=(); [ -n "$lock" ] && lockcmd=(flock "$lock")
secs=$(python3 -c "print(int(($warmup + $number) / $rate) + 15)")
for r in $(seq 1 "$runs"); do
  tag="r${rate}-$(date -u +%H%M%S)-$r"
  rows="$out/$tag.tsv"; eps="$out/$tag.episodes"
  # One locked shell per run: the probe and the client start and stop together inside the lock.
  "${lockcmd[@]}" bash -c '
    echo "== $(date -u +%FT%TZ) rate='"$rate"' run='"$r"' load before: $(cut -d" " -f1-3 /proc/loadavg)"
    probe=""
    if [ "'"${SPEED_PROBE:-1}"'" = 1 ]; then "'"$out"'/vcpu-speed" '"$secs"' > "'"$eps"'" & probe=$!; fi
    rc=0
    /usr/bin/time -f "whole process (warm-up included): user %U s sys %S s, max RSS %M KiB" "'"$out"'/ttft-floor" -p '"$port"' -r '"$rate"' -c '"$conns"' -w '"$warmup"' -n '"$number"' -s '"$((seed + 2 * (r - 1)))"' -o "'"$rows"'" || rc=$?
    [ -n "$probe" ] && { kill "$probe" 2>/dev/null || true; wait "$probe" 2>/dev/null || true; }
    echo "load after: $(cut -d" " -f1-3 /proc/loadavg)"
    exit $rc'
  if [ "${SPEED_PROBE:-1}" = 1 ]; then
    # TTFT (write -> first text event) of the requests whose [scheduled, first text event] does not overlap a slow
    # episode extended by MARGIN_MS (same rule as ttft-outside-episodes.py; both files use CLOCK_MONOTONIC).
    python3 - "$rows" "$eps" "$margin" <<'PY'
import sys, math
rows, eps_file, margin = sys.argv[1], sys.argv[2], float(sys.argv[3]) / 1000
eps = []
for l in open(eps_file):
    if l.startswith('episode'):
        x = l.split(); s = float(x[4]); eps.append((s, s + float(x[6]) / 1000 + margin))
recs = []
for l in list(open(rows))[1:]:
    f = l.split('\t'); sched, write, token = float(f[2]), float(f[3]), float(f[5])
    if token >= 0 and write >= 0: recs.append((sched, write, token))
t0 = min(r[0] for r in recs); t1 = max(r[2] for r in recs)
inrun = [(a, b) for a, b in eps if a <= t1 and b >= t0]
def rank(v, q): v = sorted(v); return v[max(1, min(len(v), math.ceil(q * len(v)))) - 1] * 1e3
print("episodes in the measured phase: %d, %.1f%% of it (with %g ms margin)" %
      (len(inrun), 100 * sum(min(b, t1) - max(a, t0) for a, b in inrun) / (t1 - t0), margin * 1e3))
allv = [t - w for s, w, t in recs]
clean = [t - w for s, w, t in recs if not any(a <= t and s <= b for a, b in eps)]
for name, v in (("all", allv), ("outside episodes", clean)):
    print("TTFT from write, %-16s n=%5d p50 %.3f p90 %.3f p99 %.3f p99.9 %.3f max %.3f ms (nearest rank)" %
          (name, len(v), rank(v, .5), rank(v, .9), rank(v, .99), rank(v, .999), max(v) * 1e3))
PY
    tail -1 "$eps"
  fi
done
