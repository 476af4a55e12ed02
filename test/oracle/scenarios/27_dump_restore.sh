# pg_dump (custom format) of a small database, and pg_restore
# --single-transaction into a new database created in the set-up, outside
# the measured window.  pg_dump only reads.  The restore creates, loads and
# indexes everything in one transaction: o_d1 (about 4.5 MB) is above
# wal_skip_threshold, so under minimal the commit syncs (1 scan); nothing is
# dropped.
# @needs: pg_dump pg_restore
# @expect minimal: flush_pending=1
# @expect replica: none
set -eu
case $1 in
  setup)
    psql -X -q -v ON_ERROR_STOP=1 -d "$ORACLE_DB" <<'SQL'
CREATE TABLE o_d1 (id int PRIMARY KEY, t text);
INSERT INTO o_d1 SELECT g, repeat('r', 50) FROM generate_series(1, 50000) g;
CREATE TABLE o_d2 (id serial, t text);
INSERT INTO o_d2 (t) SELECT 'x' FROM generate_series(1, 100);
CREATE INDEX ON o_d2 (t);
SQL
    psql -X -q -v ON_ERROR_STOP=1 -d postgres -c "CREATE DATABASE ${ORACLE_DB}_restored" ;;
  run)
    pg_dump -Fc -d "$ORACLE_DB" -f "$ORACLE_WORK/dump.fc"
    pg_restore --single-transaction -d "${ORACLE_DB}_restored" "$ORACLE_WORK/dump.fc" ;;
esac
