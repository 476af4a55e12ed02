#!/usr/bin/env bash
# Smoke test of walload on one PostgreSQL installation, run by
# scripts/matrix/run.sh inside each version's environment (as root; the
# clusters run as the postgres user).  For each load order of
# shared_preload_libraries, a fresh cluster with wal_level=minimal:
#   BEGIN; CREATE TABLE; COPY 100,000 rows; COMMIT;   then   DROP TABLE;
# and checks that walload saw the commit-time sync scan of the load
# (scans_flush_pending = 1) and the buffer drop scan of the drop
# (scans_drop_pending = 1), and that walload_stats joins pg_stat_statements
# on (userid, dbid, queryid, toplevel) for the COPY and the CREATE TABLE.
#
#   PG_CONFIG=... scripts/matrix/smoke.sh [SOURCE_DIR]
# SOURCE_DIR (default: the checkout this script is in) is built and
# installed first.  Prints TAP.
set -uo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
. "$here/scripts/lib/tap.sh"
. "$here/scripts/lib/cluster.sh"
PG_CONFIG=${PG_CONFIG:-pg_config}
src=${1:-$here}
bindir=$("$PG_CONFIG" --bindir)
cluster_bindir=$bindir
ok() { tap_ok "$@"; }
notok() { tap_not_ok "$@"; }
check() { tap_check "$@"; }

if ! { make -s -C "$src" PG_CONFIG="$PG_CONFIG" >/dev/null && make -s -C "$src" PG_CONFIG="$PG_CONFIG" install >/dev/null; }; then
  notok "walload builds and installs"; tap_done; exit 1
fi

tmp=$(mktemp -d /tmp/walload-smoke.XXXXXX)
chmod 755 "$tmp"
[ "$(id -u)" = 0 ] && chown postgres "$tmp"
cleanup() {
  cluster_stop_all
  rm -rf "$tmp"
}
trap cleanup EXIT

sql() { cluster_as_pg "$bindir/psql" -X -q -At -v ON_ERROR_STOP=1 -h "$cl" -p 5432 -d postgres "$@"; }

n_order=0
for order in "walload,pg_stat_statements" "pg_stat_statements,walload"; do
  echo "# shared_preload_libraries = '$order', wal_level = minimal ($("$bindir/postgres" --version))"
  n_order=$((n_order + 1)); cl=$tmp/c$n_order
  if ! cluster_init "$cl" "shared_preload_libraries = '$order'" "wal_level = minimal" \
         "max_wal_senders = 0" "shared_buffers = 128MB" 2>"$tmp/err"; then
    notok "[$order] initdb"; tail -5 "$tmp/err" | tap_diag; continue
  fi
  if ! cluster_start "$cl" 2>"$tmp/err"; then
    notok "[$order] server starts"; tail -7 "$tmp/err" | tap_diag; continue
  fi
  ok "[$order] server starts with walload preloaded"

  if sql -c "CREATE EXTENSION walload" -c "CREATE EXTENSION pg_stat_statements" \
         -c "SELECT pg_stat_statements_reset()" -c "SELECT walload_reset()" >/dev/null 2>"$tmp/err"; then
    ok "[$order] CREATE EXTENSION walload"
  else
    notok "[$order] CREATE EXTENSION walload"; tap_diag <"$tmp/err"
  fi

  # the load: one transaction, 100,000 rows (about 8 MB, past wal_skip_threshold)
  if { echo "BEGIN;"
       echo "CREATE TABLE smoke_load (id int, payload text);"
       echo "COPY smoke_load FROM STDIN;"
       awk 'BEGIN { for (i = 1; i <= 100000; i++) printf "%d\tpayload of row %d, padded to some length\n", i, i }'
       echo '\.'
       echo "COMMIT;"
     } | sql >/dev/null 2>"$tmp/err"; then
    ok "[$order] CREATE TABLE + COPY of 100000 rows in one transaction"
  else
    notok "[$order] CREATE TABLE + COPY of 100000 rows in one transaction"; tap_diag <"$tmp/err"
  fi
  sql -c "DROP TABLE smoke_load" >/dev/null 2>"$tmp/err" || { notok "[$order] DROP TABLE"; tap_diag <"$tmp/err"; }

  xact_of() {  # the walload_xacts columns of the transaction that ran a statement starting with $1
    sql -c "SELECT x.rows || ' ' || x.scans_flush_pending || ' ' || x.scans_drop_pending
              FROM walload_xacts x JOIN walload_statements s USING (xact_id)
             WHERE s.query LIKE '$1%' ORDER BY x.xact_id DESC LIMIT 1" 2>&1
  }
  check "[$order] walload_xacts: the load (100000 rows) has scans_flush_pending = 1, scans_drop_pending = 0" \
    "100000 1 0" "$(xact_of 'COPY smoke_load')"
  check "[$order] walload_xacts: the DROP TABLE has scans_drop_pending = 1" \
    "0 0 1" "$(xact_of 'DROP TABLE smoke_load')"

  join() {  # COMMAND LIKE-PATTERN -> "walload.calls pgss.calls walload.rows pgss.rows" of the joined row(s)
    sql -c "SELECT count(*) || ':' || coalesce(string_agg(w.calls || ' ' || p.calls || ' ' || w.rows || ' ' || p.rows, ';'), '')
              FROM walload_stats w JOIN pg_stat_statements p USING (userid, dbid, queryid, toplevel)
             WHERE w.command = '$1' AND p.query LIKE '$2'" 2>&1
  }
  check "[$order] walload_stats JOIN pg_stat_statements USING (userid, dbid, queryid, toplevel): the COPY row (calls, rows equal)" \
    "1:1 1 100000 100000" "$(join COPY 'COPY smoke_load%')"
  check "[$order] ... and the CREATE TABLE row" \
    "1:1 1 0 0" "$(join 'CREATE TABLE' 'CREATE TABLE smoke_load%')"
  check "[$order] no COPY / CREATE TABLE / DROP TABLE entry of walload_stats has query id 0" \
    "0" "$(sql -c "SELECT count(*) FROM walload_stats WHERE command IN ('COPY', 'CREATE TABLE', 'DROP TABLE') AND queryid = 0" 2>&1)"
  echo "# $(sql -c "SELECT string_agg(command || '=' || queryid, ' ' ORDER BY command) FROM walload_stats WHERE command IN ('COPY', 'CREATE TABLE', 'DROP TABLE')" 2>&1)"

  # more utility statements, one of them a multi-statement string, one with
  # subcommands (the primary key's index): every top-level entry of
  # walload_stats must find its pg_stat_statements row
  if sql -c "CREATE TABLE smoke_more (id int PRIMARY KEY, t text)" \
         -c "COPY smoke_more (id) FROM PROGRAM 'seq 1 1000'" \
         -c "CREATE INDEX smoke_more_t ON smoke_more (t)" \
         -c "ALTER TABLE smoke_more ADD COLUMN x int" \
         -c "TRUNCATE smoke_more" -c "VACUUM smoke_more" \
         -c "CREATE TABLE smoke_m1 (a int); CREATE TABLE smoke_m2 (b int); DROP TABLE smoke_m1, smoke_m2" \
         -c "DROP TABLE smoke_more" >/dev/null 2>"$tmp/err"; then
    check "[$order] every top-level walload_stats entry joins pg_stat_statements (CREATE INDEX, ALTER, TRUNCATE, VACUUM, a multi-statement string)" \
      "0" "$(sql -c "SELECT count(*) FROM walload_stats w WHERE w.toplevel AND NOT EXISTS
                      (SELECT 1 FROM pg_stat_statements p
                        WHERE (p.userid, p.dbid, p.queryid, p.toplevel) = (w.userid, w.dbid, w.queryid, w.toplevel))" 2>&1)"
    sql -c "SELECT '#   walload: ' || command || ' ' || queryid || ' ' || left(query, 60) FROM walload_stats w WHERE w.toplevel AND NOT EXISTS
              (SELECT 1 FROM pg_stat_statements p WHERE (p.userid, p.dbid, p.queryid, p.toplevel) = (w.userid, w.dbid, w.queryid, w.toplevel))" 2>&1
  else
    notok "[$order] more utility statements"; tap_diag <"$tmp/err"
  fi

  cluster_stop "$cl" || notok "[$order] the server stops"
  if grep -qE 'PANIC|server process .* was terminated' "$cl/server.log"; then
    notok "[$order] no crash in the server log"; grep -E 'PANIC|terminated' "$cl/server.log" | tap_diag
  fi
done
tap_done
