#!/usr/bin/env bash
# Starts a local Citus cluster: a coordinator on 9700 and two workers on 9701 and 9702, each its own
# PostgreSQL 15 instance with shared_preload_libraries = citus and trust auth on 127.0.0.1, data under
# $CITUS_DIR (default /tmp/sdg-citus, outside the repository). The workers are registered in the coordinator's
# `postgres` database; test databases register them again (test/helpers/citus.ts).
# Idempotent: an instance already running is left alone.
#   scripts/citus/start.sh   then   DATABASE_URL=postgres://postgres@127.0.0.1:9700/postgres npm run test:citus
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
DIR="${CITUS_DIR:-/tmp/sdg-citus}"
BIN="/usr/lib/postgresql/${PG_MAJOR:-15}/bin"
PORTS=(9700 9701 9702)
[ -f "/usr/lib/postgresql/${PG_MAJOR:-15}/lib/citus.so" ] || { echo "citus is not installed: run scripts/citus/build.sh" >&2; exit 1; }
# initdb and postgres refuse to run as root: run them as the postgres user when we are root.
as_pg() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
mkdir -p "$DIR"
[ "$(id -u)" = 0 ] && chown postgres "$DIR"
# Settings live in sdg.conf, written on every start so a cluster made by an older version of this
# script gets them too (a running node whose settings changed is restarted). Headroom: the suite runs
# several databases at once, and Citus caps the coordinator's connections to a worker per database
# (citus.max_shared_pool_size) while every database also has its maintenance daemon and its prepared
# (two-phase) transactions. One CI run failed a coordinator transaction with "failure on connection
# marked as essential: 127.0.0.1:9701" and its worker log was not kept (.ci/run now prints the nodes'
# errors when the Citus pass fails); running out of connection or prepared-transaction slots on the
# worker both fit, so the workers get far more of each than one database's pool may take.
settings() { # port
  cat <<CONF
listen_addresses = '127.0.0.1'
port = $1
unix_socket_directories = '$DIR/$1'
shared_preload_libraries = 'citus'
max_connections = 1000
shared_buffers = 128MB
fsync = off
synchronous_commit = off
full_page_writes = off
max_prepared_transactions = 1000
citus.max_client_connections = 250
citus.max_shared_pool_size = 200
CONF
}
for port in "${PORTS[@]}"; do
  data="$DIR/$port"
  if [ ! -f "$data/PG_VERSION" ]; then
    as_pg "$BIN/initdb" -D "$data" -U postgres --auth=trust -E UTF8 --locale=C.UTF-8 >/dev/null
  fi
  grep -q "^include = 'sdg.conf'" "$data/postgresql.conf" || echo "include = 'sdg.conf'" >>"$data/postgresql.conf"
  changed=1
  [ -f "$data/sdg.conf" ] && [ "$(cat "$data/sdg.conf")" = "$(settings "$port")" ] && changed=0
  settings "$port" >"$data/sdg.conf"
  [ "$(id -u)" = 0 ] && chown postgres "$data/sdg.conf"
  if as_pg "$BIN/pg_ctl" -D "$data" status >/dev/null 2>&1; then
    if [ "$changed" = 1 ]; then
      as_pg "$BIN/pg_ctl" -D "$data" -l "$data/server.log" -w -m fast restart >/dev/null
      echo "restarted citus node on $port with new settings"
    else
      echo "citus node on $port is already running"
    fi
  else
    as_pg "$BIN/pg_ctl" -D "$data" -l "$data/server.log" -w start >/dev/null
    echo "started citus node on $port"
  fi
done
psql() { command psql -X -q -v ON_ERROR_STOP=1 -h 127.0.0.1 -U postgres "$@"; }
for port in "${PORTS[@]}"; do psql -p "$port" -d postgres -c 'create extension if not exists citus'; done
psql -p 9700 -d postgres -c "select citus_set_coordinator_host('127.0.0.1', 9700)" >/dev/null
for port in 9701 9702; do
  psql -p 9700 -d postgres -c "select citus_add_node('127.0.0.1', $port) where not exists (select 1 from pg_dist_node where nodeport = $port)" >/dev/null
done
psql -p 9700 -d postgres -At -c "select 'workers: ' || string_agg(nodename || ':' || nodeport, ', ') from pg_dist_node where groupid <> 0"
