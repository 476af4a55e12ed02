-- COPY (100000 rows, then 1000 in an explicit transaction; FROM STDIN via
-- \copy) into a table created in an earlier transaction: it is WAL-logged at
-- every wal_level and nothing is pending: no scan.
-- @expect minimal: none
-- @expect replica: none
-- @setup
CREATE TABLE existing (id int, pad text);
INSERT INTO existing SELECT g, 'first' FROM generate_series(1, 1000) g;
-- @run
\copy existing FROM PROGRAM 'seq 1 100000 | sed "s/$/,large row padding/"' WITH (FORMAT csv)
BEGIN;
\copy existing FROM PROGRAM 'seq 1 1000 | sed "s/$/,in a transaction/"' WITH (FORMAT csv)
COMMIT;
