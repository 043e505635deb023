#!/usr/bin/env bash
# Stops the nginx started by setup.sh (by its pid file only) and removes its state directory.
set -euo pipefail
dir="${STATE_DIR:-/tmp/unibench-static-target}"
if [ -s "$dir/nginx.pid" ]; then
  pid="$(cat "$dir/nginx.pid")"
  kill -QUIT "$pid" 2>/dev/null || true
  for i in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
fi
rm -rf "$dir"
echo "static target stopped"
