-- clusters: minimal
-- What the server's own commits teach of the storage (store.c
-- wl_store_note_fsync_time, accumulator.c learn_fsync_time): a commit whose
-- predicted duration is mostly the fsyncs of synced files, at least 2 ms of
-- them, moves walload_info.fsync_time_ratio toward what those fsyncs
-- really took; no other commit touches it.  Under minimal a table
-- created and loaded in its transaction, larger than wal_skip_threshold, is
-- fsynced at COMMIT.  Whether the learned ratio makes the predictions
-- better is measured in bench/ (predict); this checks which commits teach,
-- and that each moves the ratio the way its commit went.
\ir 00_helpers.inc
SELECT plan(9);

SELECT fsync_time_ratio AS r0, fsync_time_commits AS n0 FROM walload_info \gset
SELECT ok(:r0 >= 0.25 AND :r0 <= 4, 'the learned ratio is within its bounds (1/4 to 4)');

-- a commit that WAL-logs one small new file: it syncs no file, so it
-- teaches nothing
BEGIN;
CREATE TABLE sl_small (a int);
INSERT INTO sl_small VALUES (1);
COMMIT;
SELECT is((xact_of('CREATE TABLE sl_small')).wal_logged_rels, 1, 'the small table was WAL-logged whole at commit');
SELECT is((SELECT fsync_time_commits FROM walload_info), :'n0'::bigint,
          'a commit that only WAL-logs a small file does not teach');

-- a load rolled back: no sync, nothing taught
BEGIN;
CREATE TABLE sl_gone (a int, b text);
INSERT INTO sl_gone SELECT g, repeat('r', 60) FROM generate_series(1, 60000) g;
ROLLBACK;
SELECT is((SELECT fsync_time_commits FROM walload_info), :'n0'::bigint,
          'a rolled-back load does not teach');

-- a load of about 5 MB, fsynced at commit: teaches once
BEGIN;
CREATE TABLE sl_big (a int, b text);
INSERT INTO sl_big SELECT g, repeat('s', 60) FROM generate_series(1, 60000) g;
COMMIT;
SELECT fsync_time_ratio AS r1, fsync_time_commits AS n1 FROM walload_info \gset
SELECT is((xact_of('CREATE TABLE sl_big')).synced_rels, 1, 'the large table was fsynced at commit');
SELECT is(:'n1'::bigint, :'n0'::bigint + 1, 'the fsync commit taught once');
-- the prediction's parts before the COMMIT callback are all of
-- pred_commit_ms here (nothing is deleted): the measured sync phase above it
-- means the storage waited longer than predicted at ratio r0
SELECT ok(CASE WHEN (xact_of('CREATE TABLE sl_big')).commit_sync_ms > (xact_of('CREATE TABLE sl_big')).pred_commit_ms
               THEN :r1 > :r0 OR :r0 = 4 ELSE :r1 < :r0 OR :r0 = 0.25 END,
          'the ratio moved the way the commit went (' || round(:r0::numeric, 3) || ' -> ' || round(:r1::numeric, 3) ||
          ', sync phase ' || round((xact_of('CREATE TABLE sl_big')).commit_sync_ms::numeric, 2) || ' ms, predicted ' ||
          round((xact_of('CREATE TABLE sl_big')).pred_commit_ms::numeric, 2) || ' ms)');
SELECT ok(:r1 >= 0.25 AND :r1 <= 4, 'still within its bounds');

-- deleting the table is a commit of file deletions and a scan: it does not teach
DROP TABLE sl_big;
SELECT is((SELECT fsync_time_commits FROM walload_info), :'n1'::bigint,
          'the DROP''s commit does not teach');

DROP TABLE sl_small;
SELECT * FROM finish();
