#!/usr/bin/env bash
# Stops the local Citus cluster of scripts/citus/start.sh (its data stays; CITUS_WIPE=1 deletes it).
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
DIR="${CITUS_DIR:-/tmp/sdg-citus}"
BIN="/usr/lib/postgresql/${PG_MAJOR:-15}/bin"
as_pg() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
for port in 9702 9701 9700; do
  data="$DIR/$port"
  [ -f "$data/PG_VERSION" ] || continue
  if as_pg "$BIN/pg_ctl" -D "$data" status >/dev/null 2>&1; then
    as_pg "$BIN/pg_ctl" -D "$data" -m fast -w stop >/dev/null && echo "stopped citus node on $port"
  fi
done
[ -n "${CITUS_WIPE:-}" ] && rm -rf "$DIR" && echo "removed $DIR"
exit 0
