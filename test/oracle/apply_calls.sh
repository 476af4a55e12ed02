#!/usr/bin/env bash
# walload: nothing on the apply worker's per-row path (TAP; root, bpftrace).
#
#   sudo PG_CONFIG=... test/oracle/apply_calls.sh
#
# A subscriber with walload preloaded replays two batches of 20
# transactions from a publisher: one row each, then 1,000 rows each.
# Uprobes on walload.so's functions (wl_*: every one that one file calls
# in another) count the calls made in the apply worker's process during
# each batch.  walload records a replayed
# transaction at its commit and runs nothing per row (issue 52, item 4), so
# the 1,000-row batch may not call walload more than the one-row batch,
# give or take one call a transaction.  To show that the count can see a
# per-row path, the same probes count core's heap_insert() in the same
# process, which must rise with the rows.  Counts, not times: the machine
# may be busy (and a VM without hardware counters cannot count
# instructions: bench/apply_cost.sh).
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$here" || exit 1
. test/oracle/probe_lib.sh "apply calls"

probe_tmp apply

pub=$tmp/pub; sub=$tmp/sub

cluster_init "$pub" "wal_level = logical" "max_wal_senders = 4" "max_replication_slots = 4" >/dev/null &&
  cluster_start "$pub" >/dev/null || tap_bail "apply calls: the publisher did not start"
cluster_init "$sub" "shared_preload_libraries = 'walload'" "walload.track = top" \
  "max_logical_replication_workers = 4" >/dev/null &&
  cluster_start "$sub" >/dev/null || tap_bail "apply calls: the subscriber did not start"
for d in "$pub" "$sub"; do psql_on "$d" -c "CREATE TABLE r (id bigint, payload text)" >/dev/null; done
psql_on "$pub" -c "CREATE PUBLICATION p FOR TABLE r" >/dev/null
psql_on "$sub" -c "CREATE EXTENSION walload" >/dev/null
psql_on "$sub" -c "CREATE SUBSCRIPTION s CONNECTION 'host=$pub port=5432 user=postgres dbname=postgres' PUBLICATION p WITH (copy_data = false)" >/dev/null 2>&1 ||
  tap_bail "apply calls: CREATE SUBSCRIPTION failed"

probe_wait_seconds=120
wait_for "$sub" "SELECT count(*) = 1 FROM pg_stat_subscription WHERE relid IS NULL AND pid IS NOT NULL" "the apply worker"
wait_for "$pub" "SELECT count(*) = 1 FROM pg_stat_replication WHERE state = 'streaming'" "the walsender"
apply=$(psql_on "$sub" -c "SELECT pid FROM pg_stat_subscription WHERE relid IS NULL")

# batch ROWS: 20 transactions of ROWS rows each on the publisher, replayed;
# prints "walload_calls heap_inserts" of the apply worker meanwhile
batch() {
  local rows=$1 trace=$tmp/trace-$1 deadline target
  bpftrace -B line -e "
    BEGIN { printf(\"attached\\n\"); }
    uprobe:$lib:wl_* /pid == $apply/ { @w = count(); }
    uprobe:$binary:heap_insert /pid == $apply/ { @h = count(); }
" >"$trace" 2>&1 &
  bt_pid=$!
  deadline=$((SECONDS + 120))
  until grep -q '^attached' "$trace"; do
    kill -0 "$bt_pid" 2>/dev/null && [ $SECONDS -lt $deadline ] || { cat "$trace" >&2; return 1; }
    sleep 0.2
  done
  target=$(( $(psql_on "$pub" -c "SELECT count(*) FROM r") + 20 * rows ))
  for i in $(seq 1 20); do
    echo "INSERT INTO r SELECT g, 'x' FROM generate_series(1, $rows) g;"
  done | psql_on "$pub" >/dev/null || return 1
  wait_for "$sub" "SELECT count(*) = $target FROM r" "the batch of $rows-row transactions to be replayed"
  sleep 1
  kill -INT "$bt_pid"; wait "$bt_pid"; bt_pid=""
  # bpftrace prints its maps at exit: "@w: N" (none if never hit)
  echo "$(awk '$1 == "@w:" {n = $2} END {print n + 0}' "$trace") $(awk '$1 == "@h:" {n = $2} END {print n + 0}' "$trace")"
}

tap_plan 4
read -r w1 h1 <<<"$(batch 1)" || tap_bail "apply calls: the one-row batch failed"
read -r w1000 h1000 <<<"$(batch 1000)" || tap_bail "apply calls: the 1,000-row batch failed"
tap_diag "apply worker $apply: 20 transactions of 1 row: walload's functions called ${w1:-?} times, heap_insert ${h1:-?}"
tap_diag "apply worker $apply: 20 transactions of 1,000 rows: walload's functions called ${w1000:-?} times, heap_insert ${h1000:-?}"
tap_check "walload is called in the apply worker (its transactions are recorded)" 1 "$(( ${w1:-0} > 0 ))"
tap_check "the probes see core's per-row path: heap_insert rises with the rows (${h1:-?} -> ${h1000:-?})" 1 \
  "$(( ${h1000:-0} >= 20000 && ${h1:-0} <= 40 ))"
tap_check "walload's calls do not rise with the rows: ${w1:-?} for 20 rows, ${w1000:-?} for 20,000 (at most one a transaction more)" 1 \
  "$(( ${w1000:-0} <= ${w1:-0} + 20 ))"
recorded=$(psql_on "$sub" -c "SELECT count(*) FROM walload_xact_backend_types() WHERE pid = $apply")
tap_check "walload recorded the 40 replayed transactions of the apply worker ($recorded)" 1 "$(( recorded >= 40 ))"
