#!/usr/bin/env bash
# Issue 31: what a user pays for a whole `vllm bench serve` process, measured as bench/synth/whole-process.sh measures
# unibench: random 128-token prompts, c=256 (--max-concurrency), N streamed chat requests (30,000) against the static
# SSE target, minus a 1-request run of the same client (interpreter start, imports, tokenizer, report), as CPU-s per
# 1,000 requests; wall time, peak RSS and the client's own "Request throughput (req/s)" (its measured window) beside it.
# Usage: flock /tmp/unibench-cpu.lock bench/vllm-client/whole-process.sh
# env: VLLM_SERVE (the command that is `vllm bench serve`; default "vllm bench serve", an installed vLLM), TOKENIZER
#      (its --tokenizer; unset: none given), N (30000), C (256), REPEATS (1), PORT (18080; bench/static-target/setup.sh
#      running), LABEL (the table's client column)
# This script does not build or fetch vLLM; see README.md in this directory for the client measured in HISTORY.md.
set -euo pipefail
n="${N:-30000}"; c="${C:-256}"; port="${PORT:-18080}"; repeats="${REPEATS:-1}"
# shellcheck disable=SC2206
serve=(${VLLM_SERVE:-vllm bench serve})
tok=(); [ -n "${TOKENIZER:-}" ] && tok=(--tokenizer "$TOKENIZER")
out="$(mktemp -d /tmp/vllm-whole.XXXXXX)"; label="${LABEL:-vllm bench serve}"
run() { # count concurrency name -> "wall cpu rss reqs"
  local count="$1" par="$2" name="$3"
  /usr/bin/time -f "%e %U %S %M" -o "$out/$name.time" "${serve[@]}" --backend openai-chat \
    --base-url "http://127.0.0.1:$port" --endpoint /v1/chat/completions --model m "${tok[@]}" \
    --dataset-name random --random-input-len 128 --random-output-len 256 --num-prompts "$count" \
    --max-concurrency "$par" --request-rate inf --seed 0 >"$out/$name.out" 2>"$out/$name.err"
  local rps; rps="$(awk -F: '/^Request throughput \(req\/s\)/ {gsub(/ /, "", $2); print $2}' "$out/$name.out")"
  grep -q "^Failed requests: *0 *$" "$out/$name.out" || { echo "failed requests in $out/$name.out" >&2; exit 1; }
  awk -v r="${rps:-n/a}" '{printf "%s %.2f %.0f %s\n", $1, $2+$3, $4/1024, r}' "$out/$name.time"
}
echo "| client | run | wall s | process CPU-s | peak RSS MiB | marginal CPU-s /1k req | window req/s |"
echo "| --- | --- | --- | --- | --- | --- | --- |"
for r in $(seq 1 "$repeats"); do
  read -r w1 c1 m1 _ < <(run 1 1 "one.$r")
  echo "| $label | 1 request | $w1 | $c1 | $m1 | | |"
  read -r wn cn mn rps < <(run "$n" "$c" "n.$r")
  marg="$(awk -v a="$cn" -v b="$c1" -v n="$n" 'BEGIN {printf "%.3f", (a - b) / (n - 1) * 1000}')"
  echo "| $label | $n requests | $wn | $cn | $mn | **$marg** | $rps |"
done
echo "(raw output in $out)" >&2
