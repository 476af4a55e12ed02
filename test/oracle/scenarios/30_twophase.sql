-- Two-phase commit (max_prepared_transactions = 10).  A prepared
-- transaction that created and loaded a table (100000 rows, 3.5 MB) and
-- dropped an old one: under minimal the sync runs at PREPARE (1 scan);
-- COMMIT PREPARED drops the old table's files (1 drop scan).  A prepared
-- transaction that created a table, then ROLLBACK PREPARED: 1 drop scan.  A
-- prepared transaction that only inserted: COMMIT PREPARED drops nothing.
-- @expect minimal: flush_pending=1 drop_pending=2
-- @expect replica: drop_pending=2
-- @setup
CREATE TABLE tp_old (id int);
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
PREPARE TRANSACTION 'oracle_g2';
ROLLBACK PREPARED 'oracle_g2';
BEGIN;
INSERT INTO tp_keep VALUES (1);
PREPARE TRANSACTION 'oracle_g3';
COMMIT PREPARED 'oracle_g3';
