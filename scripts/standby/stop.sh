#!/usr/bin/env bash
# Stops the standby and the primary of scripts/standby/start.sh (or only the one named).
set -euo pipefail
DIR="${STANDBY_DIR:-/tmp/sdg-standby}"
BIN="/usr/lib/postgresql/${PG_MAJOR:-15}/bin"
as_pg() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
for which in ${1:-standby primary}; do
  d="$DIR/$which"
  [ -f "$d/PG_VERSION" ] || continue
  if as_pg "$BIN/pg_ctl" -D "$d" status >/dev/null 2>&1; then
    as_pg "$BIN/pg_ctl" -D "$d" -m fast -w stop >/dev/null && echo "stopped $which"
  fi
done
