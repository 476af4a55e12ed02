# An idle subscriber: a subscription (copy_data = false) whose apply worker
# starts, connects and streams from the publisher, which changes nothing.
# No walk in any process, and walload records none (the case where the
# workers' walks must not appear).  The run waits (bounded) until the
# publisher's walsender for it is streaming, then drops the subscription,
# so that its worker has exited before the cut.
# @publisher: yes
# @expect minimal: none
# @expect replica: none
set -eu
pub="host=$ORACLE_PUBHOST port=5432 user=postgres dbname=$ORACLE_DB"
ddl="CREATE TABLE i1 (id int PRIMARY KEY, pad text); INSERT INTO i1 SELECT g, 'p' FROM generate_series(1, 1000) g;"
case $1 in
  setup)
    psql -X -q -v ON_ERROR_STOP=1 -d "$pub" -c "$ddl" -c "CREATE PUBLICATION p_idle FOR TABLE i1"
    psql -X -q -v ON_ERROR_STOP=1 -d "$ORACLE_DB" -c "$ddl"
    ;;
  run)
    psql -X -q -v ON_ERROR_STOP=1 -d "$ORACLE_DB" \
      -c "CREATE SUBSCRIPTION s_idle CONNECTION '$pub' PUBLICATION p_idle WITH (copy_data = false)"
    deadline=$((SECONDS + 300))
    until [ "$(psql -X -At -d "$pub" -c "SELECT count(*) FROM pg_stat_replication
                                         WHERE application_name = 's_idle' AND state = 'streaming'")" = 1 ]; do
      [ $SECONDS -lt $deadline ] || { echo "ERROR: the apply worker was not streaming within 300 s" >&2; exit 1; }
      sleep 0.1
    done
    psql -X -q -v ON_ERROR_STOP=1 -d "$ORACLE_DB" -c "DROP SUBSCRIPTION s_idle"
    ;;
esac
