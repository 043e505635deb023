#!/usr/bin/env bash
# The parse path's CPU per reply (ReplyParseBench.java) on the static target's bodies, under the launcher's JIT (C1).
# Usage: bench/parse/run.sh [SECONDS=3]   env: JAR (target/unibench.jar), BODIES (/tmp/unibench-static-target/www,
#   written by bench/static-target/setup.sh or make-bodies.py), FILES (default: chat, Responses, Anthropic bodies)
# Run it holding the CPU lock: flock /tmp/unibench-bench.lock bench/parse/run.sh
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
. "$here/../../scripts/find-java.sh"; unibench_find_jdk >/dev/null
jar="${JAR:-$here/../../target/unibench.jar}"; w="${BODIES:-/tmp/unibench-static-target/www}"
out="$(mktemp -d /tmp/unibench-parse.XXXXXX)"
"$JAVA_HOME/bin/javac" -d "$out" -cp "$jar" "$here/ReplyParseBench.java"
"$JAVA_HOME/bin/java" -XX:TieredStopAtLevel=1 -cp "$out:$jar" io.unibench.client.ReplyParseBench \
  "${FILES:-$w/stream.sse:CHAT,$w/responses.sse:RESPONSES,$w/anthropic.sse:ANTHROPIC}" "${1:-3}"
rm -rf "$out"
