#!/usr/bin/env bash
# The verdict table of issue 30's closing note (docs/metrics.md, "Verdict"): five real runs of the built tool against
# the embedded simulator (or `unibench sim` for the reasoning run), each point's Verdict, Verdict Reasons and the
# figures beside them, as one Markdown table on stdout (the commands first, on stderr as they run).
#   a. the quick start, `./unibench perf` as the README says (a sweep: --parallel 1 8 32 --number 8 64 256)
#   b. a run offered more than the client can deliver: an open loop at a very high --rate
#   c. a client-bound run: the client pinned to CPU 0 (`taskset -c 0`) beside a `stress-ng --cpu 1 --taskset 0`
#      burner on the same CPU
#   d. a 10-request run
#   e. a reasoning run: `unibench sim --reasoning-share 0.5`, TTFT (first reasoning token) vs TTFCT (first answer token)
# Usage: bench/verdict/run-verdict-table.sh [OUT_DIR]
#   env: LOCK (a file: each run holds `flock LOCK` while it runs, as the shared bench machine asks), RATE (b's
#        --rate, 20000), NUMBER_B (b's requests, 4000), CASES (which runs, "a b c d e"; the table lists every run in
#        OUT_DIR, so a second call with CASES="d e" completes a first one's)
# The runs keep their own history and find no calibration: UNIBENCH_HOME is OUT_DIR/home.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
out="${1:-$(mktemp -d /tmp/unibench-verdict.XXXXXX)}"
mkdir -p "$out/home"
export UNIBENCH_HOME="$out/home"
ub="$root/unibench"
locked() { if [ -n "${LOCK:-}" ]; then flock "$LOCK" "$@"; else "$@"; fi; }
# builds the jar (and its AOT cache) once, outside the measured runs
locked "$ub" --version >/dev/null

cases=" ${CASES:-a b c d e} "
run() { # CASE SHOWN COMMAND...: runs one case into $out/CASE (SHOWN: the command as the table shows it)
  local case="$1" shown="$2"; shift 2
  [[ "$cases" == *" ${case%%-*} "* ]] || return 0
  mkdir -p "$out/$case"
  printf '%s\n' "$shown" >"$out/$case/command"
  echo "[$case] $shown" >&2
  (cd "$out/$case" && "$@" >"$out/$case/stdout" 2>"$out/$case/stderr") || echo "[$case] exit $?" >&2
}

# a. the quick start
run a-quick-start "./unibench perf" locked "$ub" perf
# b. offered more than the client can deliver
run b-offered-too-much "./unibench perf --open-loop --rate ${RATE:-20000} --number ${NUMBER_B:-4000}" \
  locked "$ub" perf --open-loop --rate "${RATE:-20000}" --number "${NUMBER_B:-4000}"
# c. CPU-starved: the client on one CPU that a burner shares (the burner lives as long as the run)
burner() {
  stress-ng --cpu 1 --taskset 0 --quiet & local b=$!
  local rc=0
  taskset -c 0 "$@" || rc=$?
  kill "$b" 2>/dev/null; wait "$b" 2>/dev/null || true
  return $rc
}
run c-client-bound "stress-ng --cpu 1 --taskset 0 & taskset -c 0 ./unibench perf --parallel 64 --number 2000" \
  locked bash -c "$(declare -f burner); burner \"\$@\"" _ "$ub" perf --parallel 64 --number 2000
# d. 10 requests
run d-ten-requests "./unibench perf --parallel 1 --number 10" locked "$ub" perf --parallel 1 --number 10
# e. a reasoning model: half of each reply's tokens reasoning, streamed before the answer
port_file="$out/e-reasoning.port"
reasoning() {
  "$1" sim --port 0 --reasoning-share 0.5 >"$2" 2>&1 & local s=$!
  local port=""
  for _ in $(seq 1 600); do # up to a minute for the simulator's JVM to start
    port="$(grep -oE '127\.0\.0\.1:[0-9]+' "$2" | head -1 | cut -d: -f2 || true)"
    [ -n "$port" ] && break
    sleep 0.1
  done
  local rc=0
  "$1" perf --url "http://127.0.0.1:$port/v1/chat/completions" --model unibench-sim --parallel 4 --number 200 --max-tokens 64 \
    --extra-args '{"ignore_eos": true}' || rc=$?
  kill "$s" 2>/dev/null; wait "$s" 2>/dev/null || true
  return $rc
}
run e-reasoning "./unibench sim --port 0 --reasoning-share 0.5 & ./unibench perf --url http://127.0.0.1:PORT/v1/chat/completions --model unibench-sim --parallel 4 --number 200 --max-tokens 64 --extra-args '{\"ignore_eos\": true}'" \
  locked bash -c "$(declare -f reasoning); reasoning \"\$@\"" _ "$ub" "$port_file"

python3 - "$out" <<'PY'
import glob, json, os, sys
out = sys.argv[1]
def f(v, d=1):
    return "" if v is None else (f"{v:,.{d}f}" if isinstance(v, (int, float)) else str(v))
print("| run | command | point | Verdict | Verdict Reasons | offered / delivered req/s | dispatch lag p99 ms "
      "| mean in-flight | client CPU avg % / loop lag p99 ms | TTFT avg [95% CI] ms | TTFT p99 [95% CI] ms "
      "| TTFCT avg [95% CI] ms |")
print("|---|---|---|---|---|---|---|---|---|---|---|---|")
for case in sorted(d for d in os.listdir(out) if os.path.isdir(os.path.join(out, d)) and d != "home"):
    cmd = open(os.path.join(out, case, "command")).read().strip().replace("|", "\\|")
    summaries = sorted(glob.glob(os.path.join(out, case, "outputs", "**", "benchmark_summary.json"), recursive=True),
                       key=os.path.getmtime)
    if not summaries:
        print(f"| {case} | `{cmd}` | (no point: see {out}/{case}/stderr) |||||||||")
    for path in summaries:
        s = json.load(open(path))
        rows = {r["Percentiles"]: r for r in json.load(open(os.path.join(os.path.dirname(path), "benchmark_percentile.json")))}
        p99 = rows.get("99%", {})
        ci = lambda v: "" if not v else f" [{f(v[0])}, {f(v[1])}]"
        reasons = (s.get("Verdict Reasons") or "").replace("|", "\\|")
        print(f"| {case} | `{cmd}` | {os.path.basename(os.path.dirname(path))} | **{s.get('Verdict')}** | {reasons} "
              f"| {f(s.get('Offered Rate (req/s)'))} / {f(s.get('Delivered Rate (req/s)'))} "
              f"| {f(s.get('Dispatch Lag p99 (ms)'))} | {f(s.get('Mean In-Flight'))} "
              f"| {f(s.get('Client CPU Avg (%)'))} / {f(s.get('Event Loop Lag P99 (ms)'))} "
              f"| {f(s.get('Avg TTFT (ms)'))}{ci(s.get('Avg TTFT (ms) 95% CI'))} "
              f"| {f(p99.get('TTFT (ms)'))}{ci(p99.get('TTFT (ms) 95% CI'))} "
              f"| {f(s.get('Avg TTFCT (ms)'))}{ci(s.get('Avg TTFCT (ms) 95% CI'))} |")
print(f"\nOutputs, stdout and stderr of each run: {out}")
PY
