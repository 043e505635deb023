#!/usr/bin/env bash
# Runs both shipped scenario examples with JAR and prints each level's req/s and the knee (issue 14 §5: the default
# start-rate limit). Usage: bench/counts/examples-rps.sh JAR [OUTDIR]. Takes the shared CPU lock per run.
set -euo pipefail
jar=$1; outdir=${2:-$(mktemp -d)}
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
for ex in sim-quick multi-turn; do
  out="$outdir/$ex"
  rm -rf "$out"
  flock /tmp/unibench-bench.lock java -XX:TieredStopAtLevel=1 -jar "$jar" run --config "$repo/examples/$ex.yaml" \
    --outputs-dir "$out" --no-timestamp --no-db > "$out.stdout" 2> "$out.stderr"
  grep -E '^\[' "$out.stderr" || true
  grep -E 'Knee|Rate-limited|rate limit' "$out.stdout" || true
done
