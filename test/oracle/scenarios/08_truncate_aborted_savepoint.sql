-- A table created, loaded and truncated inside a savepoint that is then
-- rolled back: the in-place truncation scans once (heap only: no index, no
-- toast), ROLLBACK TO drops its files (1 drop scan), and its pending-sync
-- entry survives the rollback marked as truncated, so under minimal the
-- top-level COMMIT still does one FlushRelationsAllBuffers (notes 2.2).
-- @expect minimal: drop_rel=1 drop_pending=1 flush_pending=1
-- @expect replica: drop_rel=1 drop_pending=1
BEGIN;
CREATE TABLE kept (id int);
SAVEPOINT s;
CREATE TABLE gone (id int);
INSERT INTO gone SELECT generate_series(1, 1000);
TRUNCATE gone;
ROLLBACK TO s;
COMMIT;
