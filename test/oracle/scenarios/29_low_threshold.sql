-- wal_skip_threshold lowered for the session (SET wal_skip_threshold =
-- '64kB'): a transaction creating a 5000-row table (about 180 kB) and a
-- 10-row one commits with one FlushRelationsAllBuffers under minimal; a
-- transaction with only a one-page table does not (WAL-logged).  With
-- wal_skip_threshold = 0 even an empty new table is synced: CREATE TABLE
-- alone, 1 scan.
-- @expect minimal: flush_pending=2
-- @expect replica: none
SET wal_skip_threshold = '64kB';
BEGIN;
CREATE TABLE lt_big (id int);
INSERT INTO lt_big SELECT generate_series(1, 5000);
CREATE TABLE lt_tiny (id int);
INSERT INTO lt_tiny SELECT generate_series(1, 10);
COMMIT;
BEGIN;
CREATE TABLE lt_one (id int);
INSERT INTO lt_one SELECT generate_series(1, 10);
COMMIT;
SET wal_skip_threshold = 0;
CREATE TABLE lt_empty (id int);
RESET wal_skip_threshold;
