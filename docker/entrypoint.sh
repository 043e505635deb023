#!/usr/bin/env bash
# Entrypoint of the unibench image (Dockerfile, compose.yaml, deploy/k8s/). Runs `java -jar unibench.jar ARGS`
# after turning the container's environment into flags; every problem is one line on stderr and exit 2.
#
#   healthcheck                      GET http://127.0.0.1:$UNIBENCH_PORT/healthz; exit 0 on 200 (Docker HEALTHCHECK)
#   serve …                          adds --port $UNIBENCH_PORT unless --port is given
#   perf …, run …                    with UNIBENCH_SHARDS=N: adds --shard $JOB_COMPLETION_INDEX/N (a Kubernetes
#                                    Indexed Job's pod index; UNIBENCH_SHARD_INDEX outside Kubernetes) and
#                                    --run-group $UNIBENCH_RUN_GROUP, unless --shard is given
#   NAME_FILE=/run/secrets/x         for secrets (names with KEY, TOKEN, PASSWORD or SECRET, and UNIBENCH_DB): NAME is
#                                    read from the file (Docker/Compose secrets); NAME and NAME_FILE both set is refused
#   UNIBENCH_JAVA_OPTS               JVM flags, after the defaults (-XX:MaxRAMPercentage=50: a 512 MB container
#                                    keeps room for metaspace, code and Netty's direct buffers; perf and run also C1 only)
# Secret values are never printed.
set -euo pipefail

fail() {
  echo "unibench-entrypoint: $*" >&2
  exit 2
}

is_secret_name() {
  [[ "$1" =~ (KEY|TOKEN|PASSWORD|SECRET) || "$1" == UNIBENCH_DB ]]
}

# NAME_FILE → NAME for secret-named variables (the convention of the official database images)
load_secret_files() {
  local file_var name path
  while IFS= read -r file_var; do
    name="${file_var%_FILE}"
    is_secret_name "$name" || continue
    path="${!file_var}"
    if [ -n "${!name:-}" ]; then
      fail "$name and $file_var are both set; set one of them"
    fi
    [ -r "$path" ] || fail "$file_var=$path: not a readable file"
    # the file's content without its trailing newlines, as `docker secret` and Kubernetes write them
    export "$name=$(<"$path")"
    unset "$file_var"
  done < <(compgen -e | grep -E '^[A-Z][A-Z0-9_]*_FILE$' || true)
}

healthcheck() {
  local port="${UNIBENCH_PORT:-8080}" status
  [[ "$port" =~ ^[0-9]+$ ]] || fail "UNIBENCH_PORT=$port: not a port number"
  exec 3<>"/dev/tcp/127.0.0.1/$port" 2>/dev/null || exit 1
  printf 'GET /healthz HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n' >&3
  IFS= read -r -t 5 status <&3 || exit 1
  [[ "$status" =~ ^HTTP/1\.[01]\ 200 ]] || exit 1
  exit 0
}

has_flag() { # has_flag FLAG ARGS…: the flag given as `--flag V` or `--flag=V`
  local flag="$1" a
  shift
  for a in "$@"; do
    [[ "$a" == "$flag" || "$a" == "$flag="* ]] && return 0
  done
  return 1
}

[ "${1:-}" = healthcheck ] && healthcheck
load_secret_files

args=("$@")
[ ${#args[@]} -gt 0 ] || args=(serve --host 0.0.0.0)
jvm=(-XX:MaxRAMPercentage=50) # 75 reached 494 of 512 MB in a capped container (issue 29)
case "${args[0]}" in
  serve)
    if [ -n "${UNIBENCH_PORT:-}" ] && ! has_flag --port "${args[@]}"; then
      [[ "$UNIBENCH_PORT" =~ ^[0-9]+$ ]] || fail "UNIBENCH_PORT=$UNIBENCH_PORT: not a port number"
      args+=(--port "$UNIBENCH_PORT")
    fi
    ;;
  perf|run)
    # as ./unibench runs it: C1 only (less CPU per run than C2's compilations) where TLS runs on BoringSSL
    # (linux-x86_64); the JDK's TLS (arm64 images, -Dunibench.tls=jdk in any case and in any variable the JVM reads
    # flags from) needs C2's AES-GCM intrinsics
    opts=" ${UNIBENCH_JAVA_OPTS:-} ${JAVA_TOOL_OPTIONS:-} ${JDK_JAVA_OPTIONS:-} "
    if [ "$(uname -m)" = x86_64 ] && [[ "${opts,,}" != *" -dunibench.tls=jdk "* ]]; then
      jvm+=(-XX:TieredStopAtLevel=1)
    fi
    jvm+=(-XX:CompileThresholdScaling=0.25)
    if [ -n "${UNIBENCH_SHARDS:-}" ] && ! has_flag --shard "${args[@]}"; then
      [[ "$UNIBENCH_SHARDS" =~ ^[1-9][0-9]*$ ]] || fail "UNIBENCH_SHARDS=$UNIBENCH_SHARDS: expected a shard count ≥ 1"
      index="${JOB_COMPLETION_INDEX:-${UNIBENCH_SHARD_INDEX:-}}"
      [ -n "$index" ] || fail "UNIBENCH_SHARDS=$UNIBENCH_SHARDS needs JOB_COMPLETION_INDEX (an Indexed Job) or UNIBENCH_SHARD_INDEX"
      [[ "$index" =~ ^[0-9]+$ ]] || fail "JOB_COMPLETION_INDEX/UNIBENCH_SHARD_INDEX=$index: expected an index ≥ 0"
      [ "$index" -lt "$UNIBENCH_SHARDS" ] || fail "shard index $index: must be below UNIBENCH_SHARDS=$UNIBENCH_SHARDS"
      [ -n "${UNIBENCH_RUN_GROUP:-}" ] || has_flag --run-group "${args[@]}" \
        || fail "UNIBENCH_SHARDS=$UNIBENCH_SHARDS needs UNIBENCH_RUN_GROUP (or --run-group): the name the shards share"
      args+=(--shard "$index/$UNIBENCH_SHARDS")
      if [ -n "${UNIBENCH_RUN_GROUP:-}" ] && ! has_flag --run-group "${args[@]}"; then
        args+=(--run-group "$UNIBENCH_RUN_GROUP")
      fi
    fi
    ;;
esac
# word-split on purpose: several JVM flags in one variable, as the launcher reads it
# shellcheck disable=SC2206
[ -n "${UNIBENCH_JAVA_OPTS:-}" ] && jvm+=(${UNIBENCH_JAVA_OPTS})
exec "${UNIBENCH_JAVA:-java}" "${jvm[@]}" -jar "${UNIBENCH_JAR:-/opt/unibench/unibench.jar}" "${args[@]}"
