# Replayed TRUNCATEs on a subscriber (copy_data = false, its tables filled
# in the set-up as the publisher's): TRUNCATE of one table, of two tables
# in one transaction, and a TRUNCATE and reload of 1000 rows (29 pages,
# above the database's wal_skip_threshold of 128kB) in one transaction.
# The apply worker replays each in a transaction of its own; each commit
# deletes the old files (one drop-all walk, whatever the number of
# tables), and under minimal the reloaded table's new heap is synced at
# its commit (one flush-all walk; the emptied tables' new files and the
# reloaded index are below the threshold: WAL-logged instead).  walload
# records them in the apply worker (observe.c wl_observe_worker_xact), the
# oracle counts them there (run.sh worker_fns).  The reload is small
# because the apply worker leaves every page it filled dirty: the sync's
# walk writes them all, and the oracle's walk time is that call's time
# less the writes and a probe-trap charge per write; with the 1177 pages
# of a 9 MB reload that charge's spread (2.6-5.1 us a write on 19rc1)
# exceeded the walk itself, which once measured below a quarter of a scan
# and was counted as an early return.  The run waits (bounded) for the
# last transaction's rows, then drops the subscription, so that its worker
# has exited before the cut.
# @publisher: yes
# @expect minimal: flush_pending=1 drop_pending=3
# @expect replica: drop_pending=3
set -eu
pub="host=$ORACLE_PUBHOST port=5432 user=postgres dbname=$ORACLE_DB"
fill="CREATE TABLE r1 (id int PRIMARY KEY, pad text); CREATE TABLE r2 (id int PRIMARY KEY, pad text);
      CREATE TABLE r3 (id int PRIMARY KEY, pad text); CREATE TABLE r4 (id int PRIMARY KEY, pad text);
      INSERT INTO r1 SELECT g, repeat('p', 200) FROM generate_series(1, 2000) g;
      INSERT INTO r2 SELECT g, repeat('p', 200) FROM generate_series(1, 3000) g;
      INSERT INTO r3 SELECT g, repeat('p', 200) FROM generate_series(1, 500) g;
      INSERT INTO r4 SELECT g, repeat('p', 200) FROM generate_series(1, 1000) g;"
sub() { psql -X -q -At -v ON_ERROR_STOP=1 -d "$ORACLE_DB" -c "$1"; }
case $1 in
  setup)
    psql -X -q -v ON_ERROR_STOP=1 -d "$pub" -c "$fill" -c "CREATE PUBLICATION p_trunc FOR TABLE r1, r2, r3, r4"
    sub "$fill"
    # read by the apply worker at its start (pg_db_role_setting)
    sub "ALTER DATABASE $ORACLE_DB SET wal_skip_threshold = '128kB'"
    ;;
  run)
    sub "CREATE SUBSCRIPTION s_trunc CONNECTION '$pub' PUBLICATION p_trunc WITH (copy_data = false)"
    # the subscription's slot exists from here on: what follows is decoded
    psql -X -q -v ON_ERROR_STOP=1 -d "$pub" \
      -c "TRUNCATE r1" \
      -c "TRUNCATE r2, r3" \
      -c "BEGIN; TRUNCATE r4; INSERT INTO r4 SELECT g, repeat('r', 200) FROM generate_series(1, 1000) g; COMMIT"
    # the transactions are replayed in order: the last one's rows mean all
    # have been (bounded: 300 s)
    deadline=$((SECONDS + 300))
    until [ "$(sub "SELECT count(*) FROM r4 WHERE pad LIKE 'r%'")" = 1000 ]; do
      [ $SECONDS -lt $deadline ] || { echo "ERROR: the replayed transactions did not arrive within 300 s" >&2; exit 1; }
      sleep 0.1
    done
    [ "$(sub "SELECT (SELECT count(*) FROM r1) + (SELECT count(*) FROM r2) + (SELECT count(*) FROM r3) + (SELECT count(*) FROM r4)")" = 1000 ] ||
      { echo "ERROR: premise: r1, r2 and r3 are not empty" >&2; exit 1; }
    # the reloaded heap at or above the threshold, its index below it
    [ "$(sub "SELECT pg_relation_size('r4') >= 131072 AND pg_relation_size('r4_pkey') < 131072
              AND current_setting('wal_skip_threshold') = '128kB'")" = t ] ||
      { echo "ERROR: premise: r4 not above wal_skip_threshold, or r4_pkey not below it" >&2; exit 1; }
    sub "DROP SUBSCRIPTION s_trunc"
    ;;
esac
