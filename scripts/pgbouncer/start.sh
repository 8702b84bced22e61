#!/usr/bin/env bash
# Starts Debian's PgBouncer on 127.0.0.1:6432 in transaction pooling mode, with the settings of
# docs/scaling.md, in front of the Postgres on ${PGB_UPSTREAM_PORT:-5434} (scripts/standby/start.sh's primary, whose role carries statement_timeout). Any database name is
# forwarded (tests make their own). Config, log and pid under ${PGB_DIR:-/tmp/sdg-pgbouncer}.
# Idempotent: a PgBouncer already answering on the port is left alone.
#   scripts/pgbouncer/start.sh   then   npm run test:pgbouncer
set -euo pipefail
DIR="${PGB_DIR:-/tmp/sdg-pgbouncer}"
PORT="${PGB_PORT:-6432}"
UPSTREAM="${PGB_UPSTREAM_PORT:-5434}"
command -v pgbouncer >/dev/null || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq pgbouncer >/dev/null; }
if pg_isready -q -h 127.0.0.1 -p "$PORT"; then echo "pgbouncer on $PORT is already running"; exit 0; fi
mkdir -p "$DIR"
echo '"postgres" ""' >"$DIR/users.txt"
cat >"$DIR/pgbouncer.ini" <<INI
[databases]
* = host=127.0.0.1 port=$UPSTREAM

[pgbouncer]
listen_addr = 127.0.0.1
listen_port = $PORT
unix_socket_dir =
auth_type = trust
auth_file = $DIR/users.txt
pool_mode = transaction
; node-postgres sends statement_timeout as a startup parameter: PgBouncer cannot keep it per
; session in transaction mode, so it is dropped here and set on the role instead (docs/scaling.md).
ignore_startup_parameters = extra_float_digits,statement_timeout
max_client_conn = 1000
default_pool_size = 20
max_db_connections = 60
server_reset_query =
server_idle_timeout = 10
logfile = $DIR/pgbouncer.log
pidfile = $DIR/pgbouncer.pid
admin_users = postgres
INI
chown -R postgres "$DIR"
runuser -u postgres -- pgbouncer -d "$DIR/pgbouncer.ini"
for _ in $(seq 1 20); do pg_isready -q -h 127.0.0.1 -p "$PORT" && break; sleep 0.5; done
pg_isready -h 127.0.0.1 -p "$PORT"
