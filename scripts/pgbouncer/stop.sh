#!/usr/bin/env bash
# Stops the PgBouncer of scripts/pgbouncer/start.sh.
set -euo pipefail
DIR="${PGB_DIR:-/tmp/sdg-pgbouncer}"
if [ -f "$DIR/pgbouncer.pid" ] && kill -0 "$(cat "$DIR/pgbouncer.pid")" 2>/dev/null; then
  kill "$(cat "$DIR/pgbouncer.pid")" && echo "stopped pgbouncer"
fi
