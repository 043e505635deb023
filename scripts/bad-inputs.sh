#!/usr/bin/env bash
# Runs every bad input of the table src/test/resources/bad-inputs/cases.txt (the one the in-process test
# io.unibench.cli.BadInputTableTest reads) through the built jar, one JVM per case, and classifies each:
#   ok        exit 2 and one line on stderr that names what the table says, no stack trace
#   UNNAMED   exit 2 and one line, but not naming the flag / file:line / key of the table
#   TRACE     a stack trace (or "Exception") in the output
#   ACCEPTED  exit 0: the input was taken
#   OTHER     any other exit code / several lines
# Usage: scripts/bad-inputs.sh [-v]   (build first: ./unibench --version; JAR=path tries another build). Runs in a
# scratch dir with HOME and UNIBENCH_DB pointing into it; perf cases get --number 1 --max-tokens 2 (and --no-db,
# --outputs-dir in the scratch dir) unless they give those flags, so an input wrongly accepted runs 1 short request
# against the embedded simulator.
set -uo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
. "$here/scripts/find-java.sh"
unibench_find_jdk >/dev/null || exit 1
verbose="${1:-}"
jar="${JAR:-$here/target/unibench.jar}"
res="$here/src/test/resources/bad-inputs"
tmp="$(mktemp -d)"
cd "$tmp"
mkdir home; touch afile
export HOME="$tmp/home" UNIBENCH_DB="$tmp/home/unibench.db"
j() { timeout 120 "$JAVA_HOME/bin/java" -XX:TieredStopAtLevel=1 -jar "$jar" "$@" </dev/null; }
# a port in use, for `sim --port {port}`
python3 -c 'import socket,sys,time; s=socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(); print(s.getsockname()[1], flush=True); time.sleep(3600)' > port.txt &
holder=$!
trap 'kill $holder 2>/dev/null; rm -rf "$tmp"' EXIT
while [ ! -s port.txt ]; do sleep 0.1; done
port=$(cat port.txt)
# a run history holding one run, for the runs cases
j perf --outputs-dir "$tmp/out" --number 1 --parallel 1 --max-tokens 2 --no-client-warmup --db "$tmp/runs.db" >/dev/null 2>"$tmp/err"
run=$(grep -o 'Run history: run [^ ]*' "$tmp/err" | cut -d' ' -f4)

declare -A count=([ok]=0 [UNNAMED]=0 [TRACE]=0 [ACCEPTED]=0 [OTHER]=0)
declare -A exits=()
total=0
fill() { local s="$1"; s="${s//\{res\}/$res}"; s="${s//\{tmp\}/$tmp}"; s="${s//\{db\}/$tmp/runs.db}"; s="${s//\{run\}/$run}"; s="${s//\{port\}/$port}"; printf '%s' "$s"; }
while IFS= read -r line <&3; do
  case "$line" in ''|'#'*) continue ;; esac
  expected="$(fill "${line%% | *}")"
  c="$(fill "${line#* | }")"
  eval "set -- $c"
  if [ "$1" = perf ]; then
    case " $c " in *" --number "*) ;; *) set -- "$@" --number 1 ;; esac
    # (embeddings and rerank refuse --max-tokens: they generate nothing)
    case " $c " in *" --max-tokens "*|*" openai_embedding "*|*" openai_rerank "*) ;; *) set -- "$@" --max-tokens 2 ;; esac
    case " $c " in *" --db "*) ;; *) set -- "$@" --no-db ;; esac
    case " $c " in *" --outputs-dir "*) ;; *) set -- "$@" --outputs-dir "$tmp/out" ;; esac
  fi
  out=$(j "$@" 2>"$tmp/err" >"$tmp/out.txt"; echo "rc=$?")
  rc=${out##*rc=}
  err=$(cat "$tmp/err")
  all="$err$(cat "$tmp/out.txt")"
  if grep -qE $'Exception|\tat |^\s+at ' <<<"$all"; then k=TRACE
  elif [ "$rc" = 0 ]; then k=ACCEPTED
  elif [ "$rc" = 2 ] && [ "$(grep -c . <<<"$err")" = 1 ]; then
    if grep -qF -- "$expected" <<<"$err"; then k=ok; else k=UNNAMED; fi
  else k=OTHER
  fi
  total=$((total + 1))
  count[$k]=$((count[$k] + 1))
  exits[$rc]=$((${exits[$rc]:-0} + 1))
  if [ "$k" != ok ] || [ -n "$verbose" ]; then
    printf '%-8s rc=%-3s %s\n         %s\n' "$k" "$rc" "$c" "$(head -c 300 <<<"$err" | head -3 | tr '\n' ' ')"
  fi
done 3< "$res/cases.txt"
printf '\ntried %d | one clear line naming the input %d | one line, not naming it %d | stack traces %d | wrongly accepted %d | other %d\n' \
  "$total" "${count[ok]}" "${count[UNNAMED]}" "${count[TRACE]}" "${count[ACCEPTED]}" "${count[OTHER]}"
printf 'exit codes:'; for rc in "${!exits[@]}"; do printf ' %s×%d' "$rc" "${exits[$rc]}"; done; echo
