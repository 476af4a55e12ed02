#!/usr/bin/env bash
# scripts/report.py and scripts/timeline.py (walload-report and
# walload-timeline in the walload-tools package) as the roles that use them.
# Prints TAP; scripts/test.sh runs it with prove (suite "tools").
#
# A cluster with walload preloaded records a load of the postgres user
# (CREATE TABLE + COPY in one transaction under wal_level=minimal, then its
# DROP TABLE).  Then, as each of
#   postgres          a superuser
#   walload_plain     a plain role
#   walload_stats     a member of pg_read_all_stats
#   walload_quiet     a plain role granted SET ON PARAMETER walload.track
# both tools run (the roles reach them through libpq's environment, PGUSER):
#  - they succeed; the report has the load's COPY part and its finding of
#    the DROP's file deletion; the timeline draws every transaction
#    walload_xacts holds for that role
#  - the timeline holds the load's statement texts for the superuser and
#    pg_read_all_stats, and not for the plain role (walload shows another
#    role's texts as pg_stat_statements does)
#  - where the role may set walload.track (postgres, walload_quiet), the
#    tools' own queries add no transaction to walload_xacts
# and in a database whose walload views and functions were revoked from
# PUBLIC, the plain role gets a clear one-line error from each tool (its
# name and psql's "permission denied"), no Python traceback, and a
# non-zero exit status.
set -uo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$here" || exit 1
. scripts/lib/tap.sh
. scripts/lib/cluster.sh
export PG_CONFIG=${PG_CONFIG:-/usr/lib/postgresql/15/bin/pg_config}
cluster__bindir || { tap_skip_all "no pg_config at $PG_CONFIG"; exit 0; }
export PATH="$cluster_bindir:$PATH"
command -v python3 >/dev/null || { tap_skip_all "python3 is not installed"; exit 0; }

tmp=$(mktemp -d /tmp/walload-tools.XXXXXX)
chmod 755 "$tmp"
[ "$(id -u)" != 0 ] || chown postgres "$tmp"
trap 'cluster_stop_all; rm -rf "$tmp"' EXIT
out="$tmp/out"; mkdir -p "$out"; chmod 777 "$out"

cluster_init "$tmp/c" "shared_preload_libraries = 'walload'" "wal_level = minimal" "max_wal_senders = 0" ||
  tap_bail "initdb"
cluster_start "$tmp/c" || tap_bail "the cluster did not start"
sql() { psql -X -q -At -v ON_ERROR_STOP=1 "$@"; }

# the setup is not part of the load
PGOPTIONS="-c walload.track=none" sql <<'SQL' || tap_bail "setup"
CREATE EXTENSION walload;
CREATE ROLE walload_plain LOGIN;
CREATE ROLE walload_stats LOGIN IN ROLE pg_read_all_stats;
CREATE ROLE walload_quiet LOGIN;
GRANT SET ON PARAMETER walload.track TO walload_quiet;
CREATE DATABASE locked;
SQL
PGOPTIONS="-c walload.track=none" sql -d locked <<'SQL' || tap_bail "setup of the locked database"
CREATE EXTENSION walload;
REVOKE SELECT ON ALL TABLES IN SCHEMA public FROM PUBLIC;
REVOKE EXECUTE ON ALL FUNCTIONS IN SCHEMA public FROM PUBLIC;
SQL
{ echo "BEGIN;"
  echo "CREATE TABLE tools_load (id int, payload text);"
  echo "COPY tools_load FROM STDIN;"
  awk 'BEGIN { for (i = 1; i <= 100000; i++) printf "%d\tpayload of row %d, padded to some length\n", i, i }'
  echo '\.'
  echo "COMMIT;"
  echo "DROP TABLE tools_load;"
} | sql || tap_bail "the load"
tap_check "the load is recorded: a transaction of 2 statements synced at commit, one of its DROP" "2|1
1|0" "$(sql -c "SELECT statements, synced_rels FROM walload_xacts WHERE statements > 0 ORDER BY xact_id")"

xacts() { sql -c "SELECT count(*) FROM walload_xacts"; }
for role in postgres walload_plain walload_stats walload_quiet; do
  before=$(xacts)
  PGUSER=$role python3 scripts/report.py -o "$out/report-$role.md" >"$out/report-$role.log" 2>&1
  rc=$?
  tap_check "[$role] scripts/report.py succeeds" "0" "$rc"
  [ "$rc" = 0 ] || tap_diag <"$out/report-$role.log"
  tap_check "[$role] the report has the load: its time, its COPY part, the DROP's file deletion finding" "1|1|1" \
    "$(grep -c '^## Where the time went' "$out/report-$role.md" 2>/dev/null)|$(grep -c '^| COPY |' "$out/report-$role.md" 2>/dev/null)|$(grep -c '^| .*| file deletion at commit' "$out/report-$role.md" 2>/dev/null)"
  # walload_report() 1.10: the first row is the verdict in words, and the
  # parts' shares are percentages with one decimal
  tap_check "[$role] the report's first row is the verdict; COPY's share is a percentage" "1|1" \
    "$(grep '^| ' "$out/report-$role.md" 2>/dev/null | sed -n 2p | grep -c "^| verdict: .*% of the load's .* ms |")|$(grep -cE '^\| COPY \| [0-9]+\.[0-9] \| [0-9]+\.[0-9]% \|' "$out/report-$role.md" 2>/dev/null)"
  PGUSER=$role python3 scripts/timeline.py -o "$out/timeline-$role.html" >"$out/timeline-$role.log" 2>&1
  rc=$?
  tap_check "[$role] scripts/timeline.py succeeds" "0" "$rc"
  [ "$rc" = 0 ] || tap_diag <"$out/timeline-$role.log"
  tap_check "[$role] the timeline draws every transaction walload_xacts shows the role" \
    "$(PGUSER=$role sql -c "SELECT count(*) FROM walload_xacts")" \
    "$(grep -o 'class="xact"' "$out/timeline-$role.html" 2>/dev/null | wc -l)"
  texts=$(grep -c 'COPY tools_load FROM STDIN' "$out/timeline-$role.html" 2>/dev/null)
  case $role in
    walload_plain|walload_quiet)
      tap_check "[$role] the timeline holds no statement text of the postgres user" "0" "$texts" ;;
    *)
      if [ "${texts:-0}" -gt 0 ]; then tap_ok "[$role] the timeline holds the load's statement texts"
      else tap_not_ok "[$role] the timeline holds the load's statement texts"; fi ;;
  esac
  case $role in
    postgres|walload_quiet)
      tap_check "[$role] may set walload.track: the tools' own queries are not recorded" "$before" "$(xacts)" ;;
  esac
done

# a role that may not read walload's views: a clear error, not a traceback
for tool in report timeline; do
  PGUSER=walload_plain PGDATABASE=locked python3 "scripts/$tool.py" -o "$out/locked-$tool" >"$out/locked-$tool.log" 2>&1
  rc=$?
  if [ "$rc" != 0 ] && grep -q "^$tool.py: psql failed: .*permission denied" "$out/locked-$tool.log" &&
     ! grep -q Traceback "$out/locked-$tool.log"; then
    tap_ok "[walload_plain, views revoked] scripts/$tool.py fails with a clear error: $(head -1 "$out/locked-$tool.log")"
  else
    tap_not_ok "[walload_plain, views revoked] scripts/$tool.py fails with a clear error (status $rc)"
    tap_diag <"$out/locked-$tool.log"
  fi
  [ ! -s "$out/locked-$tool" ] && tap_ok "[walload_plain, views revoked] scripts/$tool.py wrote no output file" ||
    tap_not_ok "[walload_plain, views revoked] scripts/$tool.py wrote no output file"
done
cluster_stop "$tmp/c"
tap_done
