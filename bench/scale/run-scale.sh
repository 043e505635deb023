#!/usr/bin/env bash
# Scale (issue 7): PARALLEL concurrent streaming conversations against a separate simulator process, the client with
# a capped heap and a GC log; prints the heap over time (10 s buckets, from the GC log) and the run's summary.
# Usage: bench/scale/run-scale.sh [PARALLEL=10000] [NUMBER=2*PARALLEL]; SNAPSHOTS="30 70" forces full GCs then
#   env: XMX (1g), ITL_MS (200), MAX_TOKENS (200), PORT (18092)
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$here"
. scripts/find-java.sh
unibench_find_jdk
./unibench --version >/dev/null
par="${1:-10000}"; num="${2:-$((2 * par))}"
xmx="${XMX:-1g}"; itl="${ITL_MS:-200}"; tokens="${MAX_TOKENS:-200}"; port="${PORT:-18092}"
out="$(mktemp -d /tmp/unibench-scale.XXXXXX)"
"$JAVA_HOME/bin/java" -jar target/unibench.jar sim --profile instant --itl-ms "$itl" --decode-ms-per-seq 0 \
  --max-num-seqs "$par" --max-queue "$((par + num))" --port "$port" >"$out/sim.log" 2>&1 &
sim=$!
trap 'kill $sim 2>/dev/null || true' EXIT
for _ in $(seq 1 50); do curl -fs "http://127.0.0.1:$port/health" >/dev/null && break; sleep 0.2; done
echo "== $(date -u +%FT%TZ) parallel=$par number=$num itl=${itl}ms max_tokens=$tokens -Xmx$xmx load: $(cut -d' ' -f1-3 /proc/loadavg)"
/usr/bin/time -f "client process: wall %e s, user %U s, sys %S s, peak RSS %M KiB" -o "$out/time" \
  "$JAVA_HOME/bin/java" -Xmx"$xmx" -Xlog:gc:file="$out/gc.log":uptime -jar target/unibench.jar perf \
  --url "http://127.0.0.1:$port/v1/chat/completions" --model unibench-sim --prompt hi --no-test-connection \
  --parallel "$par" --number "$num" --max-tokens "$tokens" --extra-args '{"ignore_eos":true}' --no-db \
  --outputs-dir "$out/runs" --no-timestamp --name r >"$out/out" 2>"$out/err" &
timer=$!
# live-set snapshots: a full GC (jcmd GC.run) at each of SNAPSHOTS seconds after the start ("Pause Full" in the log)
start=$(date +%s)
for at in ${SNAPSHOTS:-}; do
  while [ $(( $(date +%s) - start )) -lt "$at" ] && kill -0 "$timer" 2>/dev/null; do sleep 0.5; done
  jpid="$(pgrep -P "$timer" java || true)"
  [ -n "$jpid" ] && "$JAVA_HOME/bin/jcmd" "$jpid" GC.run >/dev/null 2>&1 || true
done
wait "$timer" || { tail -20 "$out/err"; exit 1; }
cat "$out/time"
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg); files in $out"
python3 - "$out/gc.log" "$out/runs/r/parallel_${par}_number_${num}/benchmark_summary.json" <<'PY'
import json, re, sys
gc, summary = sys.argv[1:]
buckets = {}
pauses = []
for line in open(gc):
    m = re.search(r"\[(\d+\.\d+)s\].*Pause.*?(\d+)M->(\d+)M\((\d+)M\) (\d+\.\d+)ms", line)
    if not m: continue
    t, before, after, cap, ms = float(m.group(1)), int(m.group(2)), int(m.group(3)), int(m.group(4)), float(m.group(5))
    b = buckets.setdefault(int(t // 10) * 10, [0, 10**9, 0, 0, 0.0])
    b[0] = max(b[0], before); b[1] = min(b[1], after); b[2] = max(b[2], after); b[3] += 1; b[4] = max(b[4], ms)
    pauses.append(ms)
print("| t (s) | GCs | heap before GC, max MiB | heap after GC, min–max MiB | longest pause ms |")
print("|---|---|---|---|---|")
for t in sorted(buckets):
    b = buckets[t]
    print(f"| {t}–{t+10} | {b[3]} | {b[0]} | {b[1]}–{b[2]} | {b[4]:.0f} |")
for line in open(gc):
    m = re.search(r"\[(\d+\.\d+)s\].*Pause Full.*?(\d+)M->(\d+)M\((\d+)M\) (\d+\.\d+)ms", line)
    if m: print(f"full GC (live set) at {float(m.group(1)):.0f} s: {m.group(2)}M -> {m.group(3)}M, {float(m.group(5)):.0f} ms")
pauses.sort()
if pauses: print(f"GC pauses: {len(pauses)}, p50 {pauses[len(pauses)//2]:.1f} ms, max {pauses[-1]:.1f} ms, total {sum(pauses)/1000:.2f} s")
s = json.load(open(summary))
keys = ["Time taken for tests (s)", "Number of concurrency", "Total requests", "Succeed requests", "Failed requests",
        "Request throughput (req/s)", "Output token throughput (tok/s)", "Average time to first token (s)",
        "Average inter-token latency (s)"]
print({k: v for k, v in s.items() if k in keys or "Client" in k or "Lag" in k or "lag" in k})
PY
