#!/usr/bin/env bash
# walload against the machine in pglogical's processes (TAP; root, bpftrace,
# pglogical installed).
#
#   sudo PG_CONFIG=... test/oracle/pglogical.sh
#
# pglogical 2 as subscriber at wal_level = minimal (wal_skip_threshold =
# 128kB), walload preloaded: its initial sync of four tables (one of 9 MB),
# then replayed TRUNCATEs (of one table, of two in one transaction) and a
# TRUNCATE + reload of 1000 rows (29 pages, above the threshold) in one
# transaction.  Uprobes count the calls of the functions that walk the
# buffer pool, per process of the subscriber; walload's walks per process
# are its records' (walload_xacts by walload_xact_backend_types()'s pid).
# The two must be the same map, and pglogical's apply worker must have
# walked (the comparison is about it).  A call is counted as a walk: these
# processes call them only on permanent relations, where no early return is
# left outside recovery (the timed oracle, run.sh, judges core's own
# workers' calls of the same functions, scenarios 40-42).
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$here" || exit 1
. test/oracle/probe_lib.sh "pglogical"
[ -e "$("$PG_CONFIG" --pkglibdir)/pglogical.so" ] || probe_skip "pglogical" "pglogical is not installed"
major=$("$PG_CONFIG" --version | sed -E 's/^PostgreSQL ([0-9]+).*/\1/')
if [ "$major" -ge 16 ]; then
  fns="FlushRelationBuffers:flush_rel FlushRelationsAllBuffers:flush_pending DropRelationBuffers:drop_rel DropRelationsAllBuffers:drop_pending DropDatabaseBuffers:db FlushDatabaseBuffers:db"
else
  fns="FlushRelationBuffers:flush_rel FlushRelationsAllBuffers:flush_pending DropRelFileNodeBuffers:drop_rel DropRelFileNodesAllBuffers:drop_pending DropDatabaseBuffers:db FlushDatabaseBuffers:db"
fi

probe_tmp pglogical

pub=$tmp/pub; sub=$tmp/sub

cluster_init "$pub" "wal_level = logical" "max_wal_senders = 8" "max_replication_slots = 8" \
  "shared_preload_libraries = 'pglogical'" "max_worker_processes = 12" >/dev/null &&
  cluster_start "$pub" >/dev/null || tap_bail "pglogical: the provider did not start"
# where the server restricts output plugins to a list, pglogical's is put on it
if [ "$(psql_on "$pub" -c "SELECT count(*) FROM pg_settings WHERE name = 'output_plugin_libraries'")" = 1 ]; then
  psql_on "$pub" -c "ALTER SYSTEM SET output_plugin_libraries = 'pglogical_output'" -c "SELECT pg_reload_conf()" >/dev/null
fi
cluster_init "$sub" "wal_level = minimal" "max_wal_senders = 0" "wal_skip_threshold = '128kB'" \
  "shared_preload_libraries = 'pglogical, walload'" "max_worker_processes = 12" >/dev/null &&
  cluster_start "$sub" >/dev/null || tap_bail "pglogical: the subscriber did not start"
pm=$(head -1 "$sub/data/postmaster.pid")

ddl="CREATE TABLE t1 (id int PRIMARY KEY, pad text); CREATE TABLE t2 (id int PRIMARY KEY, pad text);
     CREATE TABLE t3 (id int PRIMARY KEY, pad text); CREATE TABLE t4 (id int PRIMARY KEY, pad text);"
psql_on "$pub" -c "$ddl" -c "INSERT INTO t1 SELECT g, repeat('p', 200) FROM generate_series(1, 2000) g;
  INSERT INTO t2 SELECT g, repeat('p', 200) FROM generate_series(1, 3000) g;
  INSERT INTO t3 SELECT g, repeat('p', 200) FROM generate_series(1, 500) g;
  INSERT INTO t4 SELECT g, repeat('p', 200) FROM generate_series(1, 40000) g;" \
  -c "CREATE EXTENSION pglogical" \
  -c "SELECT pglogical.create_node(node_name := 'provider', dsn := 'host=$pub port=5432 user=postgres dbname=postgres')" \
  -c "SELECT pglogical.replication_set_add_all_tables('default', ARRAY['public'])" >/dev/null ||
  tap_bail "pglogical: the provider's set-up failed"
psql_on "$sub" -c "$ddl" -c "CREATE EXTENSION pglogical" -c "CREATE EXTENSION walload" \
  -c "SELECT pglogical.create_node(node_name := 'subscriber', dsn := 'host=$sub port=5432 user=postgres dbname=postgres')" >/dev/null ||
  tap_bail "pglogical: the subscriber's set-up failed"

# the probes: every call of a walking function in a child of the subscriber
prog="BEGIN { printf(\"attached\\n\"); }"
for f in $fns; do
  prog="$prog uprobe:$binary:${f%%:*} /curtask->real_parent->tgid == $pm/ { @c[pid, \"${f#*:}\"] = count(); }"
done
ulimit -l 8192 2>/dev/null; bpftrace -B line -e "$prog" >"$tmp/trace" 2>&1 &
bt_pid=$!
deadline=$((SECONDS + 120))
until grep -q '^attached' "$tmp/trace"; do
  kill -0 "$bt_pid" 2>/dev/null && [ $SECONDS -lt $deadline ] || { cat "$tmp/trace" >&2; tap_bail "pglogical: bpftrace did not attach"; }
  sleep 0.2
done
psql_on "$sub" -c "SELECT walload_reset()" >/dev/null

# the measured part: the initial sync, then the replayed TRUNCATEs
psql_on "$sub" -c "SELECT pglogical.create_subscription(subscription_name := 's', provider_dsn := 'host=$pub port=5432 user=postgres dbname=postgres',
  synchronize_structure := false, synchronize_data := true)" >/dev/null || tap_bail "pglogical: create_subscription failed"
psql_on "$sub" -c "SELECT pglogical.wait_for_subscription_sync_complete('s')" >/dev/null
wait_for "$sub" "SELECT (SELECT count(*) FROM t4) = 40000" "the initial sync"
apply=$(psql_on "$sub" -c "SELECT pid FROM pg_stat_activity WHERE backend_type LIKE 'pglogical apply %'")
psql_on "$pub" -c "TRUNCATE t1" -c "TRUNCATE t2, t3" \
  -c "BEGIN; TRUNCATE t4; INSERT INTO t4 SELECT g, repeat('r', 200) FROM generate_series(1, 1000) g; COMMIT" >/dev/null
wait_for "$sub" "SELECT (SELECT count(*) FROM t4 WHERE pad LIKE 'r%') = 1000 AND (SELECT count(*) FROM t1) = 0" "the replayed transactions"
sleep 1
kill -INT "$bt_pid"; wait "$bt_pid"; bt_pid=""

# "pid:kind=n,..." per process, sorted, from both sides
machine=$(python3 - "$tmp/trace" <<'PY'
import re, sys
n = {}
for line in open(sys.argv[1]):
    m = re.match(r'@c\[(\d+), "?(\w+)"?\]: (\d+)', line)
    if m:
        k = n.setdefault(m.group(1), {})
        k[m.group(2)] = k.get(m.group(2), 0) + int(m.group(3))
print(" ".join(p + ":" + ",".join("%s=%d" % kv for kv in sorted(n[p].items())) for p in sorted(n)))
PY
)
walload=$(psql_on "$sub" -c "SELECT string_agg(pid || ':' || kinds, ' ' ORDER BY pid::text) FROM (
    SELECT b.pid, concat_ws(',',
      'db=' || nullif(sum(x.scans_db), 0), 'drop_pending=' || nullif(sum(x.scans_drop_pending), 0),
      'drop_rel=' || nullif(sum(x.scans_drop_rel), 0), 'flush_pending=' || nullif(sum(x.scans_flush_pending), 0),
      'flush_rel=' || nullif(sum(x.scans_flush_rel), 0)) AS kinds
    FROM walload_xacts x JOIN walload_xact_backend_types() b USING (xact_id)
    GROUP BY b.pid) w WHERE kinds <> ''")
apply_walks=$(psql_on "$sub" -c "SELECT coalesce(sum(x.scans_flush_pending + x.scans_drop_pending), 0)
    FROM walload_xacts x JOIN walload_xact_backend_types() b USING (xact_id) WHERE b.pid = ${apply:-0}")

tap_plan 2
tap_diag "pglogical apply worker: pid ${apply:-?} ($(psql_on "$sub" -c "SELECT backend_type FROM pg_stat_activity WHERE pid = ${apply:-0}"))"
tap_check "walks per process of the subscriber: walload=${walload:-none} uprobe=${machine:-none}" "${machine:-none}" "${walload:-none}"
tap_check "pglogical's apply worker walked, and walload recorded it ($apply_walks)" 1 "$(( ${apply_walks:-0} > 0 ))"
