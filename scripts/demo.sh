#!/usr/bin/env bash
# walload demo: build and install walload, start a throwaway cluster
# (scripts/lib/cluster.sh) with walload and pg_stat_statements preloaded, replay the
# bulk loads of the seed report, and print what walload recorded and its
# diagnosis.
#
#   scripts/demo.sh                       # wal_level=minimal, shared_buffers=4GB
#   WALLOAD_DEMO_SHARED_BUFFERS=16GB WALLOAD_DEMO_WAL_LEVEL=replica scripts/demo.sh
#   WALLOAD_DEMO_TIMELINE=load.html scripts/demo.sh   # also draws the load (scripts/timeline.py),
#                                                     # and saves what it drew in load.json
#
# Honours PG_CONFIG (default: PostgreSQL 15 from Debian's packages).
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
cd "$here"

export PG_CONFIG=${PG_CONFIG:-/usr/lib/postgresql/15/bin/pg_config}
shared_buffers=${WALLOAD_DEMO_SHARED_BUFFERS:-4GB}
wal_level=${WALLOAD_DEMO_WAL_LEVEL:-minimal}

WALLOAD_DEPS_DEMO=1 bash scripts/deps.sh
# what the demo runs beyond PostgreSQL's programs: named at once if missing
# (ps: scripts/lib/cluster.sh waits for walload's calibration worker by its
# process title), not found out minutes later
for tool in ps awk make python3 dpkg-query; do
  command -v "$tool" >/dev/null 2>&1 ||
    { echo "demo.sh: $tool is not installed (scripts/deps.sh installs it: is its package held or removed?)" >&2; exit 1; }
done
major=$("$PG_CONFIG" --version | sed -E 's/^PostgreSQL ([0-9]+).*/\1/')

as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }
. scripts/lib/cluster.sh
cluster_bindir=$("$PG_CONFIG" --bindir)

echo "== building and installing walload for PostgreSQL $major"
# a packaged walload is replaced by this checkout's build: say so, and how
# to get the package's files back
pkg=$(dpkg-query -S "$("$PG_CONFIG" --pkglibdir)/walload.so" 2>/dev/null | cut -d: -f1 || true)
if [ -n "$pkg" ]; then
  pver=$(dpkg-query -W -f '${Version}' "$pkg" 2>/dev/null || true)
  # a package from a repository apt knows comes back by name; one built
  # here (docs/packaging.md) only from its .deb, which dpkg-buildpackage
  # wrote next to the checkout
  deb="$(dirname "$here")/${pkg}_${pver}_$(dpkg --print-architecture).deb"
  if [ -f "$deb" ]; then
    restore="apt install --reinstall $deb"
  elif apt-cache madison "$pkg" 2>/dev/null | grep -q "| *$pver *|.*Packages"; then
    restore="apt install --reinstall $pkg"
  else
    restore="build the package again (docs/packaging.md) and apt install its .deb"
  fi
  echo "note: walload.so belongs to the package $pkg ($pver); this checkout's build replaces its files"
  echo "note: to restore the package's files: $restore"
fi
make -s PG_CONFIG="$PG_CONFIG" >/dev/null
as_root make -s PG_CONFIG="$PG_CONFIG" install >/dev/null

# the data: 50 files of 1000 rows (the seed's 10 tables x 5 COPYs) and
# 3 files of 100000 rows (each table larger than wal_skip_threshold)
data=$(mktemp -d /tmp/walload-demo.XXXXXX)
trap 'cluster_stop_all; rm -rf "$data"' EXIT
chmod 755 "$data"
awk -v dir="$data" 'BEGIN {
  for (f = 1; f <= 50; f++) {
    file = sprintf("%s/small_%02d.csv", dir, f)
    for (i = 1; i <= 1000; i++) {
      id = (f - 1) * 1000 + i
      printf "%d,customer %d,%d.%02d,2024-%02d-%02d 12:00:00\n", id, id % 977, id % 5000, id % 100, id % 12 + 1, id % 28 + 1 > file
    }
    close(file)
  }
  for (f = 1; f <= 3; f++) {
    file = sprintf("%s/large_%d.csv", dir, f)
    for (i = 1; i <= 100000; i++)
      printf "%d,order line %d for customer %d,%d.%02d,2024-%02d-%02d 08:30:00\n", i, i, i % 977, i % 5000, i % 100, i % 12 + 1, i % 28 + 1 > file
    close(file)
  }
}'
chmod 644 "$data"/*.csv

cat > "$data/load.sh" <<'LOAD'
#!/usr/bin/env bash
set -euo pipefail
data=$1
psql() { command psql -X -q -v ON_ERROR_STOP=1 "$@"; }

psql -c "CREATE EXTENSION walload" -c "CREATE EXTENSION pg_stat_statements"
psql -At -c "SELECT 'server: PostgreSQL ' || current_setting('server_version') || ', wal_level=' || current_setting('wal_level') || ', shared_buffers=' || current_setting('shared_buffers') || ', wal_skip_threshold=' || current_setting('wal_skip_threshold')"
psql -c "SELECT walload_reset()" -c "SELECT pg_stat_statements_reset()" >/dev/null

echo
echo "== load 1 (the seed report's shape): 10 tables created, 5 COPYs of 1000 rows each, one transaction; then DROP TABLE one by one"
{
  echo "BEGIN;"
  for t in $(seq 1 10); do
    echo "CREATE TABLE load_$t (id int, name text, amount numeric, created timestamp);"
  done
  f=1
  for round in 1 2 3 4 5; do
    for t in $(seq 1 10); do
      printf "COPY load_%d FROM '%s/small_%02d.csv' WITH (FORMAT csv);\n" "$t" "$data" "$f"
      f=$((f + 1))
    done
  done
  echo "COMMIT;"
  for t in $(seq 1 10); do echo "DROP TABLE load_$t;"; done
} > "$data/load1.sql"
since=$(date -u '+%Y-%m-%d %H:%M:%S.%N+00')
start=$(date +%s%N); psql -f "$data/load1.sql"; end=$(date +%s%N)
echo "client-side time: $(( (end - start) / 1000000 )) ms"
client_ms=$(( (end - start) / 1000000 ))

echo
echo "== load 2: 3 tables created and loaded with 100000 rows each in one transaction (each above wal_skip_threshold), indexed, then dropped together"
{
  echo "BEGIN;"
  for t in 1 2 3; do
    echo "CREATE TABLE big_$t (id int, note text, amount numeric, created timestamp);"
    echo "COPY big_$t FROM '$data/large_$t.csv' WITH (FORMAT csv);"
    echo "CREATE INDEX ON big_$t (id);"
  done
  echo "COMMIT;"
  echo "DROP TABLE big_1, big_2, big_3;"
} > "$data/load2.sql"
start=$(date +%s%N); psql -f "$data/load2.sql"; end=$(date +%s%N)
echo "client-side time: $(( (end - start) / 1000000 )) ms"
client_ms=$(( client_ms + (end - start) / 1000000 ))
until=$(date -u '+%Y-%m-%d %H:%M:%S.%N+00')

echo
echo "== walload_report(): where the two loads' time went (client-side, with psql's start and connection: $client_ms ms)"
# not recorded itself: a SELECT that prunes the catalog pages the DROPs left
# writes WAL, which walload records as a transaction of a third session
psql -P pager=off -c "SET walload.track = 'none'" -c "
SELECT * FROM walload_report(since => '$since', until => '$until')"

echo
echo "== walload_xacts: the recorded transactions"
psql -P pager=off -c "
SELECT xact_id, outcome, statements AS stmts, round(total_ms::numeric, 1) AS total_ms,
       round(copy_ms::numeric, 1) AS copy_ms, round(commit_ms::numeric, 1) AS commit_ms,
       synced_rels AS synced, wal_logged_rels AS wal_logged,
       scans_flush_pending AS sync_scans, scans_drop_pending AS drop_scans, full_scans,
       round(est_scan_ms::numeric, 2) AS est_scan_ms, pg_size_pretty(wal_bytes) AS wal
FROM walload_xacts
WHERE statements > 0
ORDER BY xact_id"

echo
echo "== walload_stats joined with pg_stat_statements (USING userid, dbid, queryid, toplevel)"
psql -P pager=off -c "
SELECT w.command, sum(w.calls) AS calls, round(sum(w.total_ms)::numeric, 1) AS walload_ms,
       round(sum(p.total_exec_time)::numeric, 1) AS pgss_ms,
       sum(w.rows) AS rows, sum(w.full_scans) AS full_scans,
       round(sum(w.est_scan_ms)::numeric, 2) AS est_scan_ms,
       pg_size_pretty(sum(w.wal_bytes)) AS wal
FROM walload_stats w JOIN pg_stat_statements p USING (userid, dbid, queryid, toplevel)
WHERE w.command IN ('CREATE TABLE', 'COPY', 'CREATE INDEX', 'DROP TABLE')
GROUP BY w.command ORDER BY w.command"

echo
echo "== walload_diagnose(): findings, the largest avoidable cost first"
psql -P pager=off -c "SELECT * FROM walload_diagnose()"
echo "== the verdict, then the first finding in full (walload_findings().detail)"
psql -P pager=off -At -c "SELECT detail FROM walload_findings() LIMIT 2" | fold -s -w 100

if [ -n "${WALLOAD_DEMO_TIMELINE:-}" ]; then
  echo
  echo "== the timeline (scripts/timeline.py)"
  python3 "$WALLOAD_DEMO_HERE/scripts/timeline.py" -o "$WALLOAD_DEMO_TIMELINE" --save "${WALLOAD_DEMO_TIMELINE%.html}.json"
  echo "== the report for a ticket (scripts/report.py): ${WALLOAD_DEMO_TIMELINE%.html}.md, .txt"
  python3 "$WALLOAD_DEMO_HERE/scripts/report.py" -o "${WALLOAD_DEMO_TIMELINE%.html}.md"
  python3 "$WALLOAD_DEMO_HERE/scripts/report.py" --format text -o "${WALLOAD_DEMO_TIMELINE%.html}.txt"
  python3 "$WALLOAD_DEMO_HERE/scripts/report.py" --application-name 'no such application' -o "${WALLOAD_DEMO_TIMELINE%.html}-none.md"
fi
LOAD
chmod 755 "$data/load.sh"

if [ -n "${WALLOAD_DEMO_TIMELINE:-}" ]; then
  export WALLOAD_DEMO_TIMELINE=$(realpath -m "$WALLOAD_DEMO_TIMELINE") WALLOAD_DEMO_HERE=$here
fi
echo "== starting a throwaway cluster: wal_level=$wal_level, shared_buffers=$shared_buffers"
mkdir "$data/cluster"
[ "$(id -u)" != 0 ] || chown postgres "$data/cluster"
cluster_init "$data/cluster" "shared_preload_libraries = 'walload,pg_stat_statements'" \
  "wal_level = $wal_level" "max_wal_senders = 0" "shared_buffers = '$shared_buffers'"
cluster_start "$data/cluster"
PATH="$cluster_bindir:$PATH" bash "$data/load.sh" "$data"
cluster_stop "$data/cluster"
