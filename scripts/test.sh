#!/usr/bin/env bash
# walload: run every test.  Installs what it needs (scripts/deps.sh), builds
# and installs walload, then runs, each against throwaway clusters:
#   pg_regress (sql/, expected/), pgTAP (test/pgtap/, with pg_prove),
#   TAP (test/t/, PostgreSQL::Test::Cluster), the uprobe oracle (test/oracle/).
# Ends with "N passed, N failed" (suites); exits non-zero on any failure.
# Then PostgreSQL 16 (PyPI build: pg_regress, oracle), and the same suite on 17
# and 18 in Debian chroots (scripts/matrix.sh;
# WALLOAD_NO_MATRIX=1 skips it, WALLOAD_MATRIX_VERSIONS picks versions).
# Honours PG_CONFIG (default: PostgreSQL 15 from Debian's packages).
set -uo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
cd "$here"
export PG_CONFIG=${PG_CONFIG:-/usr/lib/postgresql/15/bin/pg_config}

bash scripts/deps.sh || { echo "could not install dependencies"; exit 1; }
major=$("$PG_CONFIG" --version | sed -E 's/^PostgreSQL ([0-9]+).*/\1/')
bindir=$("$PG_CONFIG" --bindir)
as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }

echo "== building and installing walload for PostgreSQL $major"
make -s PG_CONFIG="$PG_CONFIG" >/dev/null || exit 1
as_root make -s PG_CONFIG="$PG_CONFIG" install >/dev/null || exit 1

passed=0; failed=0; failures=""
suite() {   # suite NAME COMMAND...
  local name=$1; shift
  echo
  echo "== $name"
  if "$@"; then passed=$((passed + 1)); echo "== $name: ok"
  else failed=$((failed + 1)); failures="$failures $name"; echo "== $name: FAILED"; fi
}

# a throwaway cluster with walload, then a command inside it (pg_virtualenv)
with_cluster() {  # with_cluster "opt=val ..." COMMAND...
  local opts=() o
  for o in $1; do opts+=(-o "$o"); done
  shift
  (cd /tmp && pg_virtualenv -v "$major" "${opts[@]}" "$@")
}

base="max_wal_senders=0 autovacuum=off max_prepared_transactions=5 fsync=on"

regress() {
  rm -rf "$here/results" "$here/regression.diffs"
  with_cluster "shared_preload_libraries=walload,pg_stat_statements $base" \
    make -s -C "$here" PG_CONFIG="$PG_CONFIG" installcheck
  local rc=$?
  [ $rc -ne 0 ] && [ -f "$here/regression.diffs" ] && cat "$here/regression.diffs"
  return $rc
}

pgtap() {  # pgtap "cluster options" files...
  local opts=$1; shift
  with_cluster "$opts" pg_prove -q --failures "$@"
}

suite "pg_regress" regress
suite "pgTAP, wal_level=minimal, walload first" \
  pgtap "shared_preload_libraries=walload,pg_stat_statements wal_level=minimal shared_buffers=256MB $base" \
  $here/test/pgtap/01_load_minimal.sql $here/test/pgtap/02_nesting.sql $here/test/pgtap/03_pgss_join.sql \
  $here/test/pgtap/05_diagnose.sql
suite "pgTAP, wal_level=replica, pg_stat_statements first" \
  pgtap "shared_preload_libraries=pg_stat_statements,walload wal_level=replica $base" \
  $here/test/pgtap/03_pgss_join.sql $here/test/pgtap/02_nesting.sql $here/test/pgtap/05_diagnose.sql
suite "pgTAP, VACUUM outside shared buffers" \
  pgtap "shared_preload_libraries=walload shared_buffers=16MB fsync=on $base" \
  $here/test/pgtap/06_vacuum_ring.sql
suite "pgTAP, small rings" \
  pgtap "shared_preload_libraries=walload walload.max_xacts=10 walload.max_statements=100 walload.max_stats=100 $base" \
  $here/test/pgtap/04_rings.sql

# TAP: PostgreSQL::Test::Cluster refuses to run as root; run as postgres
tap() {
  local tmp
  tmp=$(mktemp -d /tmp/walload-tap.XXXXXX); chmod 755 "$tmp"
  local run=(env PATH="$bindir:$PATH" TESTDIR="$tmp" PG_REGRESS="$("$PG_CONFIG" --pgxs | xargs dirname | xargs dirname)/test/regress/pg_regress"
             PERL5LIB="$("$PG_CONFIG" --pgxs | xargs dirname | xargs dirname)/test/perl"
             prove -v "$here"/test/t/*.pl)
  if [ "$(id -u)" = 0 ]; then chown postgres "$tmp"; su postgres -s /bin/bash -c "cd '$tmp' && $(printf '%q ' "${run[@]}")"
  else (cd "$tmp" && "${run[@]}"); fi
  local rc=$?
  rm -rf "$tmp"
  return $rc
}
if ls test/t/*.pl >/dev/null 2>&1; then suite "TAP (restart, crash, concurrency)" tap; fi

suite "PostgreSQL's own regression suite with walload preloaded" prove -v test/core-regress.sh

if [ -x test/oracle/run.sh ]; then
  suite "uprobe oracle" prove -v test/oracle/run.sh
fi

# the other major versions, each in a Debian chroot (skip: WALLOAD_NO_MATRIX=1)
if [ "$major" = 15 ] && [ -z "${WALLOAD_NO_MATRIX:-}" ]; then
  suite "PostgreSQL ${WALLOAD_MATRIX_VERSIONS:-16 17 18} (scripts/matrix.sh)" \
    bash scripts/matrix.sh ${WALLOAD_MATRIX_VERSIONS:-16 17 18}
fi

echo
[ -n "$failures" ] && echo "failed:$failures"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
