#!/usr/bin/env bash
# The Debian packaging (debian/), as Debian builds and tests its PostgreSQL
# extensions.  Prints TAP; scripts/test.sh runs it with prove (suite
# "package").  Needs root (dpkg -i).
#
#  1. dpkg-buildpackage -us -uc -b in a copy of the checkout builds one
#     postgresql-NN-walload package per version pg_buildext supports here
#     (debian/pgversions x /usr/share/postgresql-common/supported-versions),
#     running the build-time installcheck (dh_pgxs_test) on the way
#  2. lintian: no error, and no tag but those justified in docs/packaging.md;
#     a copy of the package without its copyright file must get an error
#     (the gate can fail)
#  3. dpkg -i: the package owns walload.so and walload.control
#  4. debian/tests/installcheck (the autopkgtest): the pg_regress and
#     isolation suites against the installed package
#  5. a smoke load in a fresh cluster of the installed server: CREATE
#     EXTENSION gives the control file's version; a CREATE TABLE + COPY of
#     100,000 rows in one transaction under wal_level=minimal is synced at
#     commit (one scan), its DROP TABLE scans once; an INSERT into an
#     existing table scans nothing
#  6. walload-tools (arch all): walload-report and walload-timeline run from
#     PATH against that cluster (the breakdown and findings; a drawing of
#     its transactions), and /usr/share/walload/prometheus holds the
#     monitoring files as in the source (metrics.yaml, every collector file
#     gen.py writes from it, the rules and their unit tests, the dashboard)
#
# Environment: WALLOAD_PACKAGE_PORT (default 5601; 5602 is used too): the
# TCP ports of the pg_virtualenv clusters the installchecks make.
set -uo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
port=${WALLOAD_PACKAGE_PORT:-5601}
n=0; failures=0
ok()    { n=$((n + 1)); echo "ok $n - $*"; }
notok() { n=$((n + 1)); echo "not ok $n - $*"; failures=$((failures + 1)); }
check() {  # check DESCRIPTION EXPECTED ACTUAL
  if [ "$2" = "$3" ]; then ok "$1"; else notok "$1"; echo "#   expected: $2"; echo "#   got:      $3"; fi
}
diag()  { sed 's/^/#   /'; }
finish() { echo "1..$n"; [ "$failures" -eq 0 ]; exit $?; }

if [ "$(id -u)" != 0 ]; then echo "1..0 # SKIP needs root (dpkg -i)"; exit 0; fi
for c in dpkg-buildpackage pg_buildext lintian; do
  command -v "$c" >/dev/null || { echo "1..0 # SKIP $c is not installed (scripts/deps.sh)"; exit 0; }
done

tmp=$(mktemp -d /tmp/walload-package.XXXXXX)
chmod 755 "$tmp"
pgdata=""
cleanup() {
  [ -n "$pgdata" ] && [ -f "$pgdata/postmaster.pid" ] &&
    runuser -u postgres -- "$bindir/pg_ctl" -D "$pgdata" -m immediate -w stop >/dev/null 2>&1
  rm -rf "$tmp"
}
trap cleanup EXIT

# ------------------------------------------------------------------ 1. build
src="$tmp/walload"
mkdir -p "$src"
if git -C "$here" rev-parse --git-dir >/dev/null 2>&1; then
  (cd "$here" && git ls-files -co --exclude-standard -z | tar --null -T - -cf -) | tar -xf - -C "$src"
else
  cp -a "$here/." "$src/"
fi
cd "$src" || exit 1
versions=$(pg_buildext supported-versions)
echo "# pg_buildext supported-versions: $(echo $versions)"
t=$SECONDS
if PGPORT=$port dpkg-buildpackage -us -uc -b >"$tmp/build.log" 2>&1; then
  ok "dpkg-buildpackage -us -uc -b ($((SECONDS - t)) s)"
else
  notok "dpkg-buildpackage -us -uc -b"; tail -40 "$tmp/build.log" | diag; finish
fi
grep -E '^test |tests passed|tests? failed' "$tmp/build.log" | diag
check "build-time installcheck (dh_pgxs_test) ran the pg_regress and isolation suites for each version" \
  "$(echo "$versions" | wc -w)" "$(grep -c '^### End [0-9]* installcheck ###$' "$tmp/build.log")"
ver=$(dpkg-parsechangelog -S Version)
debs=()
for v in $versions; do
  f="$tmp/postgresql-$v-walload_${ver}_$(dpkg --print-architecture).deb"
  if [ -f "$f" ]; then
    ok "built $(basename "$f")"; debs+=("$f")
  else
    notok "built postgresql-$v-walload ($f)"
  fi
done
tools="$tmp/walload-tools_${ver}_all.deb"
if [ -f "$tools" ]; then ok "built $(basename "$tools")"; debs+=("$tools"); else notok "built walload-tools ($tools)"; fi
extver=$(sed -nE "s/^default_version *= *'([^']*)'.*/\1/p" walload.control)
# every version the tree has a script for: the base scripts and each update's target
extversions=$(echo $(ls walload--*.sql | sed -E 's/.*--([0-9.]+)\.sql$/\1/' | sort -uV))
check "the package's upstream version is the extension's default_version" "$extver" "${ver%-*}"
[ "${#debs[@]}" -gt 0 ] || finish

# ---------------------------------------------------------------- 2. lintian
# the tags docs/packaging.md justifies; anything else is a failure
justified="initial-upload-closes-no-bugs hardening-no-fortify-functions repeated-path-segment"
changes=$(ls "$tmp"/walload_*.changes)
lintian -E -I --pedantic "$changes" >"$tmp/lintian.log" 2>&1
diag <"$tmp/lintian.log"
unexpected=$(grep -E '^[EWIPX]: ' "$tmp/lintian.log" | awk '{print $3}' | sort -u |
             grep -vxF -f <(tr ' ' '\n' <<<"$justified") || true)
check "lintian: no error" "0" "$(grep -c '^E: ' "$tmp/lintian.log")"
check "lintian: no tag but the justified ones" "" "$(echo $unexpected)"
# the gate can fail: the same package without its copyright file
mkdir -p "$tmp/broken"
dpkg-deb -R "${debs[0]}" "$tmp/broken/root"
rm -f "$tmp"/broken/root/usr/share/doc/*/copyright
dpkg-deb -b "$tmp/broken/root" "$tmp/broken/broken.deb" >/dev/null 2>&1
lintian "$tmp/broken/broken.deb" >"$tmp/broken/lintian.log" 2>&1
if grep -q '^E: .* no-copyright-file' "$tmp/broken/lintian.log"; then
  ok "lintian reports an error (no-copyright-file) for the package without its copyright file"
else
  notok "lintian reports an error for the package without its copyright file"
fi

# ---------------------------------------------------------------- 3. install
if dpkg -i "${debs[@]}" >"$tmp/dpkg.log" 2>&1; then ok "dpkg -i ${debs[*]##*/}"; else notok "dpkg -i"; diag <"$tmp/dpkg.log"; finish; fi
for v in $versions; do
  check "postgresql-$v-walload owns walload.so" "postgresql-$v-walload" \
    "$(dpkg -S "/usr/lib/postgresql/$v/lib/walload.so" 2>/dev/null | cut -d: -f1)"
  check "postgresql-$v-walload owns walload.control" "postgresql-$v-walload" \
    "$(dpkg -S "/usr/share/postgresql/$v/extension/walload.control" 2>/dev/null | cut -d: -f1)"
  check "dpkg --verify: the installed files are the package's" "" "$(dpkg --verify "postgresql-$v-walload" 2>&1)"
done

# ------------------------------------------------- 4. autopkgtest installcheck
check "pg_buildext installed-versions lists the installed packages" "$(echo $versions)" "$(echo $(pg_buildext installed-versions))"
if PGPORT=$((port + 1)) AUTOPKGTEST_TMP="$tmp" debian/tests/installcheck >"$tmp/installcheck.log" 2>&1; then
  ok "debian/tests/installcheck against the installed package"
else
  notok "debian/tests/installcheck against the installed package"; tail -60 "$tmp/installcheck.log" | diag
fi
grep -E '^test |tests passed|failed' "$tmp/installcheck.log" | diag
check "installcheck ran the suites once per installed version" \
  "$(echo "$versions" | wc -w)" "$(grep -c '^### End [0-9]* installcheck ###$' "$tmp/installcheck.log")"

# ---------------------------------------------------------------- 5. smoke
for v in $versions; do
  bindir=/usr/lib/postgresql/$v/bin
  pgdata="$tmp/pg$v/data"; sock="$tmp/pg$v"
  mkdir -p "$sock"; chown postgres "$sock"
  runuser -u postgres -- "$bindir/initdb" -D "$pgdata" -U postgres -A trust --no-sync >"$tmp/initdb.log" 2>&1 ||
    { notok "initdb $v"; diag <"$tmp/initdb.log"; continue; }
  cat >>"$pgdata/postgresql.conf" <<EOF
listen_addresses = ''
unix_socket_directories = '$sock'
shared_preload_libraries = 'walload'
wal_level = minimal
max_wal_senders = 0
autovacuum = off
EOF
  if ! runuser -u postgres -- "$bindir/pg_ctl" -D "$pgdata" -l "$sock/server.log" -w -t 60 start >/dev/null 2>&1; then
    notok "PostgreSQL $v starts with the packaged walload preloaded"; tail -5 "$sock/server.log" | diag; continue
  fi
  ok "PostgreSQL $v starts with the packaged walload preloaded"
  sql() { "$bindir/psql" -X -q -At -v ON_ERROR_STOP=1 -h "$sock" -U postgres -d postgres "$@"; }
  sql -c "CREATE EXTENSION walload" >/dev/null 2>&1
  check "[$v] CREATE EXTENSION walload installs $extver" "$extver" \
    "$(sql -c "SELECT extversion FROM pg_extension WHERE extname = 'walload'")"
  check "[$v] every version has its scripts ($extversions)" "$extversions" \
    "$(echo $(sql -c "SELECT version FROM pg_available_extension_versions WHERE name = 'walload'" | sort -V))"
  { echo "BEGIN;"
    echo "CREATE TABLE smoke (id int, payload text);"
    echo "COPY smoke FROM STDIN;"
    awk 'BEGIN { for (i = 1; i <= 100000; i++) printf "%d\tpayload of row %d, padded to some length\n", i, i }'
    echo '\.'
    echo "COMMIT;"
  } | sql >/dev/null
  check "[$v] the load: one transaction, synced at commit with one scan" "2|1|1" \
    "$(sql -c "SELECT statements, synced_rels, scans_flush_pending FROM walload_xacts ORDER BY xact_id DESC LIMIT 1")"
  # no scan: an INSERT into the table that exists now
  sql -c "INSERT INTO smoke SELECT g, 'more' FROM generate_series(1, 1000) g" >/dev/null
  check "[$v] an INSERT into an existing table: recorded, no scan" "INSERT|0" \
    "$(sql -c "SELECT command, full_scans FROM walload_statements ORDER BY xact_id DESC, stmt_no DESC LIMIT 1")"
  sql -c "DROP TABLE smoke" >/dev/null
  check "[$v] DROP TABLE: one drop scan at commit" "DROP TABLE|1" \
    "$(sql -c "SELECT command, scans_drop_pending FROM walload_statements ORDER BY xact_id DESC, stmt_no DESC LIMIT 1")"
  check "[$v] walload_info: the two scans, and only them" "1|1|2" \
    "$(sql -c "SELECT scans_flush_pending, scans_drop_pending, full_scans FROM walload_info")"
  # walload-tools' commands, from PATH, against this cluster
  if [ "$(command -v walload-report)" = /usr/bin/walload-report ] && [ "$(command -v walload-timeline)" = /usr/bin/walload-timeline ]; then
    ok "[$v] walload-report and walload-timeline are on PATH (/usr/bin)"
  else
    notok "[$v] walload-report and walload-timeline are on PATH: $(command -v walload-report walload-timeline)"
  fi
  PGHOST=$sock PGUSER=postgres PGDATABASE=postgres walload-report -o "$tmp/report-$v.md" >"$tmp/report.log" 2>&1
  check "[$v] walload-report: the breakdown and the findings of the smoke load" "1|1|1" \
    "$(grep -c '^## Where the time went' "$tmp/report-$v.md")|$(grep -c '^| COPY |' "$tmp/report-$v.md")|$(grep -c '^| .*| file deletion at commit' "$tmp/report-$v.md")"
  PGHOST=$sock PGUSER=postgres PGDATABASE=postgres walload-timeline -o "$tmp/timeline-$v.html" >"$tmp/timeline.log" 2>&1
  check "[$v] walload-timeline draws every transaction of walload_xacts" "$(sql -c "SELECT count(*) FROM walload_xacts")" \
    "$(grep -o 'class="xact"' "$tmp/timeline-$v.html" | wc -l)"
  runuser -u postgres -- "$bindir/pg_ctl" -D "$pgdata" -m fast -w stop >/dev/null 2>&1
done
# the monitoring files, where docs/monitoring.md says
# (every file prometheus/gen.py writes, their source, the rules and their unit tests)
for f in metrics.yaml walload_queries.yaml walload_query_exporter.yaml walload_sql_exporter.collector.yml \
         walload_otelcol.yaml walload_pgwatch.yaml walload_alerts.yml walload_alerts_test.yml walload_dashboard.json; do
  check "walload-tools ships /usr/share/walload/prometheus/$f as in the source" "" \
    "$(cmp "/usr/share/walload/prometheus/$f" "$src/prometheus/$f" 2>&1)"
done
check "dpkg --verify walload-tools" "" "$(dpkg --verify walload-tools 2>&1)"
finish
