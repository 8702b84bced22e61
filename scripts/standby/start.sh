#!/usr/bin/env bash
# Starts a local primary on 127.0.0.1:5434 and a hot standby of it on 5435, made by pg_basebackup and
# kept up by streaming replication (PostgreSQL 15, trust auth, data under ${STANDBY_DIR:-/tmp/sdg-standby}).
# The primary's `postgres` role gets statement_timeout = 10s (PgBouncer runs in front of it too:
# scripts/pgbouncer/start.sh, which cannot forward the timeout per session).
# Idempotent: running instances are left alone.   Stop: scripts/standby/stop.sh [standby|primary]
set -euo pipefail
DIR="${STANDBY_DIR:-/tmp/sdg-standby}"
BIN="/usr/lib/postgresql/${PG_MAJOR:-15}/bin"
as_pg() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
mkdir -p "$DIR"
[ "$(id -u)" = 0 ] && chown postgres "$DIR"
P="$DIR/primary"
S="$DIR/standby"
if [ ! -f "$P/PG_VERSION" ]; then
  as_pg "$BIN/initdb" -D "$P" -U postgres --auth=trust -E UTF8 --locale=C.UTF-8 >/dev/null
  cat >>"$P/postgresql.conf" <<CONF
listen_addresses = '127.0.0.1'
port = 5434
unix_socket_directories = '$P'
wal_level = replica
max_wal_senders = 5
hot_standby = on
max_connections = 200
# As on the shared test server: the plan tests analyze when they mean to.
autovacuum = off
fsync = off
CONF
  echo "host replication postgres 127.0.0.1/32 trust" >>"$P/pg_hba.conf"
fi
if ! as_pg "$BIN/pg_ctl" -D "$P" status >/dev/null 2>&1; then
  as_pg "$BIN/pg_ctl" -D "$P" -l "$P/server.log" -w start >/dev/null
  echo "started primary on 5434"
fi
psql -X -q -h 127.0.0.1 -p 5434 -U postgres -d postgres -c "alter role postgres set statement_timeout = '10s'"
if [ ! -f "$S/PG_VERSION" ]; then
  # -R writes standby.signal and primary_conninfo: a hot standby streaming from the primary.
  as_pg "$BIN/pg_basebackup" -h 127.0.0.1 -p 5434 -U postgres -D "$S" -R -X stream -c fast
  sed -i -e 's/^port = 5434/port = 5435/' -e "s#^unix_socket_directories = .*#unix_socket_directories = '$S'#" "$S/postgresql.conf"
fi
if ! as_pg "$BIN/pg_ctl" -D "$S" status >/dev/null 2>&1; then
  as_pg "$BIN/pg_ctl" -D "$S" -l "$S/server.log" -w start >/dev/null
  echo "started standby on 5435"
fi
psql -X -At -h 127.0.0.1 -p 5435 -U postgres -d postgres -c "select 'standby in recovery: ' || pg_is_in_recovery()"
