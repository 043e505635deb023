#!/usr/bin/env bash
# Runs every bad input of the table below through the built jar and classifies each:
#   ok        exit 2 and one line on stderr, no stack trace
#   TRACE     a stack trace (or "Exception") in the output
#   ACCEPTED  exit 0: the input was taken
#   OTHER     any other exit code / several lines
# Usage: scripts/bad-inputs.sh [-v]   (build first: ./unibench --version; JAR=path tries another build). Runs in a scratch dir with HOME and
# UNIBENCH_DB pointing into it; accepted perf inputs run 1 request against the embedded simulator.
set -uo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
. "$here/scripts/find-java.sh"
unibench_find_jdk >/dev/null || exit 1
verbose="${1:-}"
jar="${JAR:-$here/target/unibench.jar}"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
mkdir home; touch afile; printf 'hi\n' > prompts.txt; printf '{"messages": [{"role": "user"}]}\n' > bad.jsonl
printf 'not: [yaml\n' > bad.yaml; printf '{"a": 1}\n' > notasim.json
printf '{"text": "a"}\n{"nope": 1}\n' > texts.jsonl; printf '{"query": "q", "documents": ["a"]}\n{"documents": []}\n' > rerank.jsonl
printf '[{"instruction": "a"}, {"input": "b"}]\n' > alpaca.json
export HOME="$tmp/home" UNIBENCH_DB="$tmp/home/db/unibench.db"
j() { timeout 60 "$JAVA_HOME/bin/java" -XX:TieredStopAtLevel=1 -jar "$jar" "$@"; }
# perf cases get --number 1 --max-tokens 2 unless they set those flags themselves (a flag given twice is an
# error of its own and would hide the value under test); results go to ./outputs, runs to the scratch store
P=(perf)
# a port in use, for `sim`
python3 -c 'import socket,time; s=socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1); s.bind(("0.0.0.0", 8877)); s.listen(); time.sleep(600)' 2>/dev/null &
holder=$!
trap 'kill $holder 2>/dev/null; rm -rf "$tmp"' EXIT
sleep 0.5
# a stored run, for `runs` (its id is looked up below)
j perf --outputs-dir "$tmp/out" --number 1 --parallel 1 --max-tokens 2 --name stored >/dev/null 2>&1
RUN=$(j runs list --json 2>/dev/null | python3 -c 'import json,sys; print(json.load(sys.stdin)[0]["run_id"])' 2>/dev/null || echo none)

cases=(
  # perf: numbers
  "${P[*]} --number 0" "${P[*]} --number -3" "${P[*]} --parallel 0" "${P[*]} --parallel -1"
  "${P[*]} --rate 0" "${P[*]} --rate -2" "${P[*]} --duration 0" "${P[*]} --duration -1"
  "${P[*]} --warmup-num -1" "${P[*]} --sleep-interval -1" "${P[*]} --max-tokens 0" "${P[*]} --max-tokens 5 2" "${P[*]} --max-tokens 0 3"
  "${P[*]} --min-tokens -1" "${P[*]} --temperature -1" "${P[*]} --top-p 1.5" "${P[*]} --top-p -0.1" "${P[*]} --top-k -2"
  "${P[*]} --connect-timeout -1" "${P[*]} --connect-timeout 0" "${P[*]} --read-timeout -1" "${P[*]} --total-timeout 0"
  "${P[*]} --dataset-offset -1" "${P[*]} --min-prompt-length -1" "${P[*]} --max-prompt-length 0"
  "${P[*]} --min-prompt-length 50 --max-prompt-length 10" "${P[*]} --prefix-length -1"
  "${P[*]} --log-every-n-query 0" "${P[*]} --log-every-n-query -5" "${P[*]} --number abc" "${P[*]} --rate x"
  "${P[*]} --frequency-penalty abc" "${P[*]} --frequency-penalty 3" "${P[*]} --n-choices 0" "${P[*]} --stop-token-ids x"
  "${P[*]} --stop-token-ids -1" "${P[*]} --repetition-penalty 0" "${P[*]} --enable-progress-tracker --outputs-dir /proc/nope"
  "${P[*]} --sla-auto-tune" "${P[*]} --visualizer wandb" "${P[*]} --port 8001" "${P[*]} --data-source modelscope"
  "${P[*]} --image-width 10" "${P[*]} --tokenize-prompt" "${P[*]} --attn-implementation x" "${P[*]} --db-commit-interval x"
  "${P[*]} --min-turns 0 --multi-turn --max-turns 2" "${P[*]} --max-turns 0 --multi-turn" "${P[*]} --multi-turn --max-turns 1 --min-turns 3"
  "${P[*]} --max-traces 0" "${P[*]} --chars-per-token 0" "${P[*]} --tool-latency-scale -1"
  "${P[*]} --open-loop" "${P[*]} --open-loop --rate -1" "${P[*]} --open-loop --multi-turn --rate 5 --max-turns 2"
  # perf: strings
  "${P[*]} --model ''" "${P[*]} --model ' '" "${P[*]} --url ''" "${P[*]} --url http://" "${P[*]} --url ftp://x/y"
  "${P[*]} --url http://999.1.1.1:1/v1 --model m" "${P[*]} --api ''" "${P[*]} --api nope" "${P[*]} --headers novalue"
  "${P[*]} --headers =v" "${P[*]} --dataset ''" "${P[*]} --dataset nope" "${P[*]} --name ''" "${P[*]} --outputs-dir ''"
  "${P[*]} --prompt ''" "${P[*]} --extra-args '[1]'" "${P[*]} --extra-args '{bad'" "${P[*]} --query-template '{bad'"
  "${P[*]} --query-template '[1]'" "${P[*]} --query-template @missing.json" "${P[*]} --dataset-args '{bad'"
  "${P[*]} --rate-mode nope --multi-turn --max-turns 2" "${P[*]} --tokenizer-path nope" "${P[*]} --tag ''"
  "${P[*]} --stop ''" "${P[*]} --db jdbc:mysql://x/y" "${P[*]} --db ''"
  # perf: paths
  "${P[*]} --outputs-dir afile" "${P[*]} --outputs-dir /proc/nope" "${P[*]} --prompt @missing.txt" "${P[*]} --prompt @."
  "${P[*]} --dataset openqa --dataset-path missing.jsonl" "${P[*]} --dataset openqa --dataset-path ." "${P[*]} --dataset custom"
  "${P[*]} --dataset custom_multi_turn --multi-turn --dataset-path bad.jsonl"
  "${P[*]} --dataset line_by_line --dataset-path /proc/nope" "${P[*]} --tokenizer-path /proc/nope" "${P[*]} --db afile/x.db"
  "${P[*]} --db /proc/nope/x.db" "${P[*]} --swe-smith-input missing --dataset swe_smith --multi-turn"
  "${P[*]} --api openai_embedding --dataset embedding --dataset-path texts.jsonl"
  "${P[*]} --api openai_rerank --dataset rerank --dataset-path rerank.jsonl"
  "${P[*]} --dataset longalpaca --dataset-path alpaca.json" "${P[*]} --dataset random_vl" "${P[*]} --api dashscope"
  # sim
  "sim" "sim --host 999.1.1.1 --port 0" "sim --host '' --port 0" "sim --port -1" "sim --port 70000" "sim --itl-ms -1 --port 0"
  "sim --ttft-ms abc --port 0" "sim --max-num-seqs 0 --port 0" "sim --block-size 0 --port 0" "sim --fault-rate-429 2 --port 0"
  "sim --fault-rate-500 -0.1 --port 0" "sim --profile nope --port 0" "sim --config missing.yaml --port 0" "sim --config bad.yaml --port 0"
  "sim --config notasim.json --port 0" "sim --config . --port 0" "sim --model '' --port 0" "sim --tokenizer nope --port 0"
  "sim --mean-output-tokens 0 --port 0" "sim --max-model-len 0 --port 0" "sim --max-queue -1 --port 0"
  # runs
  "runs show nope" "runs show ''" "runs compare A A" "runs compare $RUN $RUN" "runs compare $RUN nope" "runs export nope"
  "runs export $RUN --format xml" "runs export $RUN --format csv -o /proc/nope" "runs export $RUN --format csv -o afile"
  "runs export $RUN -o /proc/nope/x.json" "runs export $RUN -o ." "runs list --limit 0" "runs list --limit -1"
  "runs list --since yesterday" "runs list --until 2025-13-01" "runs list --status nope" "runs delete nope"
  "runs list --db jdbc:mysql://x" "runs list --db /proc/nope/x.db" "runs list --db afile/x.db" "runs report nope"
  # run (scenario files)
  "run" "run -c missing.yaml" "run -c bad.yaml" "run -c . " "run -c notasim.json --check" "run -c $here/examples/sim-quick.yaml --report nope --check"
  "run -c $here/examples/sim-quick.yaml --outputs-dir afile --no-db"
  # dataset
  "dataset build-swe-smith --input missing.jsonl --tokenizer-path cl100k_base" "dataset build-swe-smith --input prompts.txt --tokenizer-path nope"
  "dataset build-swe-smith --input prompts.txt --tokenizer-path cl100k_base --number 0"
  "dataset build-swe-smith --input prompts.txt --tokenizer-path cl100k_base --min-turns 0"
  "dataset build-swe-smith --input prompts.txt --tokenizer-path cl100k_base --output /proc/nope/x.json"
  "dataset build-swe-smith --input prompts.txt --tokenizer-path cl100k_base --first-turn-length -1"
  "dataset build-swe-smith --input prompts.txt --tokenizer-path cl100k_base --num-workers 0"
)

declare -A count=([ok]=0 [TRACE]=0 [ACCEPTED]=0 [OTHER]=0)
for c in "${cases[@]}"; do
  eval "set -- $c"
  if [ "$1" = perf ]; then
    case " $c " in *" --number "*|*" -n "*) ;; *) set -- "$@" --number 1 ;; esac
    # (embeddings and rerank refuse --max-tokens: they generate nothing)
    case " $c " in *" --max-tokens "*|*" --api openai_embedding "*|*" --api openai_rerank "*) ;; *) set -- "$@" --max-tokens 2 ;; esac
  fi
  out=$(j "$@" 2>"$tmp/err" >"$tmp/out.txt"; echo "rc=$?")
  rc=${out##*rc=}
  err=$(cat "$tmp/err")
  all="$err$(cat "$tmp/out.txt")"
  if grep -qE $'Exception|\tat |^\s+at ' <<<"$all"; then k=TRACE
  elif [ "$rc" = 0 ]; then k=ACCEPTED
  elif [ "$rc" = 2 ] && [ "$(grep -c . <<<"$err")" = 1 ]; then k=ok
  else k=OTHER
  fi
  count[$k]=$((count[$k] + 1))
  if [ "$k" != ok ] || [ -n "$verbose" ]; then
    printf '%-8s rc=%-3s %s\n         %s\n' "$k" "$rc" "$c" "$(head -c 300 <<<"$err" | head -3 | tr '\n' ' ')"
  fi
done
printf '\ntried %d | one clear line %d | stack traces %d | wrongly accepted %d | other %d\n' "${#cases[@]}" \
  "${count[ok]}" "${count[TRACE]}" "${count[ACCEPTED]}" "${count[OTHER]}"
