#!/usr/bin/env bash
# Regenerates the guide's generated references from the code: docs/reference/cli.md (the picocli model: every
# command's --help) and docs/reference/scenario-schema.md (bench.schema.json, the scenario validator's schema).
# CliReferenceTest fails when they are stale. Usage: scripts/gen-docs.sh
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# shellcheck source=scripts/find-java.sh
. "$here/scripts/find-java.sh"
unibench_find_jdk || exit 1
cd "$here"
mvn -q -B -ntp -DskipTests package >&2
exec "$JAVA_HOME/bin/java" -cp target/unibench.jar io.unibench.cli.DocsReference "$here"
