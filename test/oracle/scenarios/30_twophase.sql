-- Two-phase commit (max_prepared_transactions = 10).  A prepared
-- transaction that created and loaded a table (100000 rows, 3.5 MB) and
-- dropped an old one (300000 rows, its 1328 blocks in shared buffers):
-- under minimal the sync runs at PREPARE (1 scan); COMMIT PREPARED drops
-- the old table's files (1 drop scan, invalidating its buffers).  A
-- prepared transaction that created and loaded a table below
-- wal_skip_threshold (40000 rows, 1.4 MB: WAL-logged at PREPARE under
-- minimal), then ROLLBACK PREPARED: 1 drop scan, invalidating its buffers.
-- A prepared transaction that only inserted: COMMIT PREPARED drops nothing.
-- @expect minimal: flush_pending=1 drop_pending=2
-- @expect replica: drop_pending=2
-- @setup
CREATE TABLE tp_old (id int);
INSERT INTO tp_old SELECT generate_series(1, 300000);
CREATE TABLE tp_keep (id int);
-- @run
BEGIN;
CREATE TABLE tp_new (id int);
INSERT INTO tp_new SELECT generate_series(1, 100000);
DROP TABLE tp_old;
PREPARE TRANSACTION 'oracle_g1';
COMMIT PREPARED 'oracle_g1';
BEGIN;
CREATE TABLE tp_aborted (id int);
INSERT INTO tp_aborted SELECT generate_series(1, 40000);
PREPARE TRANSACTION 'oracle_g2';
ROLLBACK PREPARED 'oracle_g2';
BEGIN;
INSERT INTO tp_keep VALUES (1);
PREPARE TRANSACTION 'oracle_g3';
COMMIT PREPARED 'oracle_g3';
