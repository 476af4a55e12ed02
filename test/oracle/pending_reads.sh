#!/usr/bin/env bash
# walload: one reading of core's pending-file lists per commit and per abort
# (TAP; root, bpftrace).
#
#   sudo PG_CONFIG=... test/oracle/pending_reads.sh
#
# A uprobe counts the calls of smgrGetPendingDeletes() in each statement of
# one session: a CREATE TABLE + COPY + CREATE INDEX transaction under
# wal_level = minimal with walload.commit_strategy = auto, a TRUNCATE/DROP
# loop, a rolled-back load and a rolled-back savepoint; once with walload
# preloaded (walload.track = all) and once without (core's own calls).
# Each COMMIT, ROLLBACK and ROLLBACK TO may call it at most twice more with
# walload than without: one reading of both of core's lists (files to
# delete at commit, at abort) for the model, the strategy, the attribution
# and the charging together.  The other statements' counts (walload's
# reading after a utility statement, its prediction of the commit at a
# statement's end) are shown, not judged.  Then under wal_level = replica
# single-statement transactions (CREATE TABLE, COPY, DROP TABLE, ...): the
# statement and its commit together at most once more than without (the
# commit's reading names the statement's files; none at the statement's
# end).  A count is a rule, not a timing.
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$here" || exit 1
. test/oracle/probe_lib.sh "pending reads"

probe_tmp pending

cat >"$tmp/load.sql" <<'EOF'
BEGIN;
CREATE TABLE load1 (a int, b text);
COPY load1 (a) FROM PROGRAM 'seq 1 20000';
CREATE INDEX load1_a ON load1 (a);
COMMIT;
BEGIN;
TRUNCATE load1;
COMMIT;
BEGIN;
DROP TABLE load1;
COMMIT;
BEGIN;
CREATE TABLE loop2 AS SELECT g AS a FROM generate_series(1, 1000) g;
COMMIT;
BEGIN;
TRUNCATE loop2;
COMMIT;
BEGIN;
DROP TABLE loop2;
COMMIT;
BEGIN;
CREATE TABLE gone (a int);
INSERT INTO gone SELECT generate_series(1, 1000);
ROLLBACK;
BEGIN;
CREATE TABLE kept (a int);
SAVEPOINT s1;
CREATE TABLE gone2 (a int);
ROLLBACK TO SAVEPOINT s1;
DROP TABLE kept;
COMMIT;
EOF
cat >"$tmp/alone.sql" <<'EOF'
CREATE TABLE alone1 (a int);
COPY alone1 FROM PROGRAM 'seq 1 100';
DROP TABLE alone1;
CREATE TABLE alone2 AS SELECT g AS a FROM generate_series(1, 1000) g;
TRUNCATE alone2;
DROP TABLE alone2;
EOF
chmod 644 "$tmp/load.sql" "$tmp/alone.sql"

# count LIBS: per statement of the session, "N<TAB>statement", in order
# count LIBS LEVEL LOAD: the calls in each statement of LOAD's session
count() {
  local libs=$1 level=$2 load=$3 dir=$tmp/c-${1:-none}-$2 trace=$tmp/trace-${1:-none}-$2 deadline
  cluster_init "$dir" "wal_level = $level" "max_wal_senders = 0" \
    "shared_preload_libraries = '$libs'" "walload.commit_strategy = auto" \
    "walload.track = all" >/dev/null || return 1
  cluster_start "$dir" >/dev/null || return 1
  bpftrace -B line -e "
    BEGIN { printf(\"attached\\n\"); }
    uprobe:$binary:pg_parse_query { printf(\"%d Q %s\\n\", pid, str(arg0)); }
    uprobe:$binary:smgrGetPendingDeletes { printf(\"%d S\\n\", pid); }" >"$trace" 2>&1 &
  bt_pid=$!
  deadline=$((SECONDS + 120))
  until grep -q '^attached' "$trace"; do
    kill -0 "$bt_pid" 2>/dev/null && [ $SECONDS -lt $deadline ] || { cat "$trace" >&2; return 1; }
    sleep 0.2
  done
  cluster_as_pg "$bindir/psql" -X -q -v ON_ERROR_STOP=1 -f "$load" >/dev/null || return 1
  sleep 1
  kill -INT "$bt_pid"; wait "$bt_pid"; bt_pid=""
  cluster_stop "$dir" >/dev/null
  # the session's backend: the one process that ran load1's CREATE TABLE
  local pid
  pid=$(awk '$2 == "Q" && /CREATE TABLE (load1|alone1)/ {print $1; exit}' "$trace")
  awk -v pid="$pid" '
    $1 != pid { next }
    $2 == "Q" { if (q != "") printf "%d\t%s\n", n, q; q = substr($0, index($0, "Q ") + 2); n = 0; next }
    $2 == "S" { n++ }
    END { if (q != "") printf "%d\t%s\n", n, q }' "$trace"
}

with=$(count "walload" minimal "$tmp/load.sql") || { tap_bail "pending reads: the run with walload failed"; }
without=$(count "" minimal "$tmp/load.sql") || { tap_bail "pending reads: the run without walload failed"; }
awith=$(count "walload" replica "$tmp/alone.sql") || { tap_bail "pending reads: the replica run with walload failed"; }
awithout=$(count "" replica "$tmp/alone.sql") || { tap_bail "pending reads: the replica run without walload failed"; }
mapfile -t aw <<<"$awith"
mapfile -t ac <<<"$awithout"

mapfile -t w <<<"$with"
mapfile -t c <<<"$without"
nstmt=$(grep -c . "$tmp/load.sql")
nalone=$(grep -c . "$tmp/alone.sql")
if [ "${#w[@]}" -ne "$nstmt" ] || [ "${#c[@]}" -ne "$nstmt" ] ||
  [ "${#aw[@]}" -ne "$nalone" ] || [ "${#ac[@]}" -ne "$nalone" ]; then
  tap_plan 1
  tap_not_ok "each run saw its statements ($nstmt: with walload ${#w[@]}, without ${#c[@]}; $nalone: ${#aw[@]}, ${#ac[@]})"
  printf '%s\n' "with:" "$with" "without:" "$without" "replica, with:" "$awith" "without:" "$awithout" | tap_diag
  exit 1
fi
# the commits and aborts: one reading of both lists (two calls) by walload
ends=0
for i in "${!c[@]}"; do [[ ${c[$i]#*$'\t'} =~ ^(COMMIT|ROLLBACK) ]] && ends=$((ends + 1)); done
tap_plan $((ends + 1 + nalone))
tw=0; tc=0
for i in "${!w[@]}"; do
  nw=${w[$i]%%$'\t'*}; nc=${c[$i]%%$'\t'*}; stmt=${c[$i]#*$'\t'}
  tw=$((tw + nw)); tc=$((tc + nc))
  if [[ $stmt =~ ^(COMMIT|ROLLBACK) ]]; then
    tap_check "statement $((i + 1)), \"$stmt\": smgrGetPendingDeletes $nw times with walload, $nc without (at most 2 more)" 1 "$((nw <= nc + 2))"
  else
    tap_diag "statement $((i + 1)), \"$stmt\": $nw with walload, $nc without"
  fi
done
# the first transaction (statements 1-5) as the issue counted it
t1w=0; t1c=0
for i in 0 1 2 3 4; do t1w=$((t1w + ${w[$i]%%$'\t'*})); t1c=$((t1c + ${c[$i]%%$'\t'*})); done
tap_ok "counted: the load transaction $t1w times with walload, $t1c without; the whole session $tw with, $tc without"
for i in "${!aw[@]}"; do
  nw=${aw[$i]%%$'\t'*}; nc=${ac[$i]%%$'\t'*}; stmt=${ac[$i]#*$'\t'}
  tap_check "wal_level = replica, \"$stmt\" alone: smgrGetPendingDeletes $nw times with walload, $nc without (at most 1 more)" 1 "$((nw <= nc + 1))"
done
