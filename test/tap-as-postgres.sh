#!/usr/bin/env bash
# Runs one PostgreSQL::Test::Cluster test file under prove, as the postgres
# OS user when run as root (Cluster.pm refuses root), from a temporary copy
# it can read (the checkout may be one it cannot).  Used by the suites of
# scripts/test.sh that are not in test/t/ (sqlsmith, faults, size) and by
# their soak scripts.  Environment is passed on (SQLSMITH_*, WALLOAD_*).
#
#   test/tap-as-postgres.sh FILE.pl
set -uo pipefail
file=${1:?test file}
PG_CONFIG=${PG_CONFIG:-/usr/lib/postgresql/15/bin/pg_config}
bindir=$("$PG_CONFIG" --bindir)
pgxs_top=$(dirname "$(dirname "$("$PG_CONFIG" --pgxs)")")
if [ ! -e "$pgxs_top/test/perl/PostgreSQL/Test/Cluster.pm" ]; then
  echo "1..0 # SKIP PostgreSQL::Test::Cluster is not installed ($pgxs_top/test/perl)"; exit 0
fi
dir=$(mktemp -d "${TMPDIR:-/tmp}/walload-pl.XXXXXX") || exit 1
keep=${WALLOAD_KEEP:-}
trap '[ "$keep" = 1 ] && echo "kept $dir" >&2 || rm -rf "$dir"' EXIT
chmod 755 "$dir"
cp "$file" "$dir/" && chmod 644 "$dir/$(basename "$file")"
# the helper module test/t's files use (WalloadTAP.pm), where there is one
if [ -f "$(dirname "$file")/WalloadTAP.pm" ]; then
  cp "$(dirname "$file")/WalloadTAP.pm" "$dir/" && chmod 644 "$dir/WalloadTAP.pm"
fi
run=()
if [ "$(id -u)" = 0 ]; then chown postgres "$dir"; run=(runuser -u postgres --); fi
rc=0
(cd "$dir" && "${run[@]}" env PATH="$bindir:$PATH" TESTDIR="$dir" \
   PG_REGRESS="$pgxs_top/test/regress/pg_regress" PERL5LIB="$pgxs_top/test/perl" \
   prove -v "$dir/$(basename "$file")") || rc=$?
if [ $rc != 0 ]; then
  for l in "$dir"/tmp_check/log/*.log; do
    [ -f "$l" ] && { echo "--- $l (last 40 lines)"; tail -40 "$l"; }
  done
fi
exit $rc
