#!/usr/bin/env bash
# Builds and installs Citus 13.2.2 from ../shared/vendor into the Debian PostgreSQL 15 here.
# Idempotent: does nothing when citus.so of this version is already installed.
#   scripts/citus/build.sh            build if needed
#   CITUS_FORCE=1 scripts/citus/build.sh   rebuild anyway
set -euo pipefail
VERSION=13.2.2
HERE="$(cd "$(dirname "$0")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
TARBALL="${CITUS_TARBALL:-$ROOT/../shared/vendor/citus-$VERSION.tar.gz}"
PG_MAJOR="${PG_MAJOR:-15}"
PG_CONFIG="/usr/lib/postgresql/$PG_MAJOR/bin/pg_config"
STAMP="/usr/lib/postgresql/$PG_MAJOR/lib/citus.so.version"

installed() {
  [ -f "/usr/lib/postgresql/$PG_MAJOR/lib/citus.so" ] && [ -f "$STAMP" ] && [ "$(cat "$STAMP")" = "$VERSION" ]
}

if installed && [ -z "${CITUS_FORCE:-}" ]; then
  echo "citus $VERSION is already installed for PostgreSQL $PG_MAJOR"
  exit 0
fi

[ -f "$TARBALL" ] || { echo "citus source not found at $TARBALL (set CITUS_TARBALL)" >&2; exit 1; }

echo "::: installing build dependencies"
DEPS="postgresql-server-dev-$PG_MAJOR libcurl4-openssl-dev liblz4-dev libzstd-dev libkrb5-dev libssl-dev libselinux1-dev libxslt1-dev libpam0g-dev libreadline-dev make gcc"
missing=""
for p in $DEPS; do dpkg -s "$p" >/dev/null 2>&1 || missing="$missing $p"; done
if [ -n "$missing" ]; then
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $missing >/dev/null
fi

WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
tar xzf "$TARBALL" -C "$WORK"
SRC="$WORK/citus-$VERSION"

# PostgreSQL 15.20 exports have_createdb_privilege() itself; Citus's static inline copy then clashes.
# Remove the copy only when the server headers declare the function, so older minors still build.
HEADER="$("$PG_CONFIG" --includedir-server)/commands/dbcommands.h"
if grep -q 'have_createdb_privilege' "$HEADER"; then
  echo "::: patching pg_version_compat.h (have_createdb_privilege comes from $HEADER)"
  perl -0pi -e 's/static inline bool\nhave_createdb_privilege\(void\)\n\{.*?\n\}\n//s' "$SRC/src/include/pg_version_compat.h"
  if grep -q '^have_createdb_privilege(void)' "$SRC/src/include/pg_version_compat.h"; then
    echo "patch did not apply" >&2; exit 1
  fi
fi

echo "::: building citus $VERSION (about 10 minutes on 2 cores)"
start=$(date +%s)
cd "$SRC"
./configure --without-libcurl PG_CONFIG="$PG_CONFIG" >"$WORK/configure.log" 2>&1 || { tail -30 "$WORK/configure.log"; exit 1; }
make -j"$(nproc)" >"$WORK/make.log" 2>&1 || { tail -40 "$WORK/make.log"; exit 1; }
make install >"$WORK/install.log" 2>&1 || { tail -30 "$WORK/install.log"; exit 1; }
echo "$VERSION" >"$STAMP"
echo "::: citus $VERSION installed in $(( $(date +%s) - start )) s"
