# A subscription's initial sync of six tables (CREATE SUBSCRIPTION ... WITH
# (copy_data = true)): each table is copied by a tablesync worker into the
# subscriber's existing, empty table (one of them 9 MB, above
# wal_skip_threshold), then the apply worker takes over.  The copy fills
# relfilenodes created before its transaction: WAL-logged, nothing to sync
# at commit, nothing dropped: no walk at either wal_level.  walload records
# each copy in its worker (observe.c wl_observe_worker_xact); the oracle
# counts the tablesync and apply workers' calls per process
# (run.sh worker_fns).  The run waits (bounded) for every table to be
# ready (srsubstate 'r') with all its rows, then drops the subscription, so
# that its workers have exited before the cut.
# @publisher: yes
# @expect minimal: none
# @expect replica: none
set -eu
pub="host=$ORACLE_PUBHOST port=5432 user=postgres dbname=$ORACLE_DB"
tables="s1:1000 s2:2000 s3:5000 s4:0 s5:300 s6:40000"
ddl() { echo "CREATE TABLE $1 (id int PRIMARY KEY, pad text);"; }
case $1 in
  setup)
    for t in $tables; do
      name=${t%%:*} n=${t#*:}
      psql -X -q -v ON_ERROR_STOP=1 -d "$pub" \
        -c "$(ddl "$name") INSERT INTO $name SELECT g, repeat('p', 200) FROM generate_series(1, $n) g"
      psql -X -q -v ON_ERROR_STOP=1 -d "$ORACLE_DB" -c "$(ddl "$name")"
    done
    psql -X -q -v ON_ERROR_STOP=1 -d "$pub" -c "CREATE PUBLICATION p_sync FOR TABLE s1, s2, s3, s4, s5, s6"
    ;;
  run)
    psql -X -q -v ON_ERROR_STOP=1 -d "$ORACLE_DB" \
      -c "CREATE SUBSCRIPTION s_sync CONNECTION '$pub' PUBLICATION p_sync WITH (copy_data = true)"
    # every table ready and complete (bounded: 300 s)
    expect=0
    for t in $tables; do expect=$((expect + ${t#*:})); done
    deadline=$((SECONDS + 300))
    until [ "$(psql -X -At -d "$ORACLE_DB" -c "SELECT (SELECT count(*) FROM pg_subscription_rel
                  WHERE srsubstate <> 'r') = 0 AND (SELECT count(*) FROM pg_subscription_rel) = 6
                  AND (SELECT count(*) FROM s1) + (SELECT count(*) FROM s2) + (SELECT count(*) FROM s3)
                    + (SELECT count(*) FROM s4) + (SELECT count(*) FROM s5) + (SELECT count(*) FROM s6) = $expect")" = t ]; do
      [ $SECONDS -lt $deadline ] || { echo "ERROR: the initial sync did not finish within 300 s" >&2; exit 1; }
      sleep 0.1
    done
    psql -X -q -v ON_ERROR_STOP=1 -d "$ORACLE_DB" -c "DROP SUBSCRIPTION s_sync"
    ;;
esac
