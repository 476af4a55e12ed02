-- clusters: minimal
-- What the server's own commits teach walload (store.c wl_store_learn,
-- accumulator.c learn_from_commit):
-- - a commit whose predicted duration is mostly the fsyncs of synced files,
--   at least 2 ms of them, moves walload_info.fsync_time_ratio toward what
--   those fsyncs really took;
-- - a commit that only WAL-logs at least 8 small new files moves
--   file_commit_us (core's untimed work per file) toward what the commit
--   took beyond the rest of its prediction;
-- no other commit touches either.  Under minimal a table created and
-- loaded in its transaction, larger than wal_skip_threshold, is fsynced at
-- COMMIT; a smaller one is WAL-logged whole.  Whether the learned figures
-- make the predictions better is measured in bench/ (predict).  Which
-- commits teach, and what, depends on their predictions: here the unit
-- costs are fixed (walload.unit_costs), so that which commits teach is a
-- matter of counts, and what each teaches is checked against the rule
-- itself, from the commit's recorded duration (no timed figure is judged).
\ir 00_helpers.inc
SELECT plan(21);

-- the rules (store.c wl_store_learn): the k-th
-- teaching weighs max(1/(k+1), 1/4) (the fsync ratio counts the calibration
-- as one more), each figure first bounded
CREATE FUNCTION learned_ratio(old float8, samples bigint, ratio float8) RETURNS float8
LANGUAGE sql IMMUTABLE AS $$
  SELECT exp((1 - w) * ln(old) + w * ln(least(greatest(ratio, 0.25), 4)))
  FROM (SELECT greatest(1.0 / (samples + 2), 0.25) AS w) s
$$;
CREATE FUNCTION learned_file_us(old_us float8, samples bigint, ns float8) RETURNS float8
LANGUAGE sql IMMUTABLE AS $$
  SELECT ((1 - w) * old_us * 1000 + w * least(greatest(ns, 0), 1e5)) / 1000
  FROM (SELECT greatest(1.0 / (samples + 1), 0.25) AS w) s
$$;
CREATE FUNCTION near(a float8, b float8) RETURNS bool
LANGUAGE sql IMMUTABLE AS $$ SELECT abs(a - b) <= 1e-9 * greatest(abs(a), abs(b), 1e-9) $$;

SELECT fsync_time_ratio AS r0, fsync_time_commits AS n0,
       file_commit_us AS f0, file_commit_commits AS m0 FROM walload_info \gset
SELECT ok(:r0 >= 0.25 AND :r0 <= 4, 'the learned ratio is within its bounds (1/4 to 4)');

-- a commit that WAL-logs one small new file: it syncs no file, so it
-- teaches nothing
BEGIN;
CREATE TABLE sl_small (a int);
INSERT INTO sl_small VALUES (1);
COMMIT;
SELECT is((xact_of('CREATE TABLE sl_small')).wal_logged_rels, 1, 'the small table was WAL-logged whole at commit');
SELECT is((SELECT fsync_time_commits FROM walload_info), :'n0'::bigint,
          'a commit that only WAL-logs a small file does not teach the fsync ratio');
SELECT is((SELECT file_commit_commits FROM walload_info), :'m0'::bigint,
          'nor, with one file, the per-file work');

-- eight small new files WAL-logged, nothing else: teaches the per-file work.
-- With every figure 0 but a WAL flush of 1 ns, what it teaches is all of
-- the commit but that, per file (bounded to 100 us)
SET walload.unit_costs = 'others=0, wal_flush_ns=1';
BEGIN;
CREATE TABLE sl_g1 (a int); INSERT INTO sl_g1 VALUES (1);
CREATE TABLE sl_g2 (a int); INSERT INTO sl_g2 VALUES (1);
CREATE TABLE sl_g3 (a int); INSERT INTO sl_g3 VALUES (1);
CREATE TABLE sl_g4 (a int); INSERT INTO sl_g4 VALUES (1);
CREATE TABLE sl_g5 (a int); INSERT INTO sl_g5 VALUES (1);
CREATE TABLE sl_g6 (a int); INSERT INTO sl_g6 VALUES (1);
CREATE TABLE sl_g7 (a int); INSERT INTO sl_g7 VALUES (1);
CREATE TABLE sl_g8 (a int); INSERT INTO sl_g8 VALUES (1);
COMMIT;
SELECT file_commit_us AS f1, file_commit_commits AS m1 FROM walload_info \gset
SELECT is((xact_of('CREATE TABLE sl_g1')).wal_logged_rels, 8, 'the eight small tables were WAL-logged whole');
SELECT is((xact_of('CREATE TABLE sl_g1')).pred_commit_ms, 1e-6::float8,
          'priced at the fixed figures: the commit''s one WAL flush, 1 ns');
SELECT is(:'m1'::bigint, :'m0'::bigint + 1, 'their commit taught the per-file work once');
SELECT ok(near(:f1, learned_file_us(:f0, :m0, ((xact_of('CREATE TABLE sl_g1')).commit_ms * 1e6 - 1) / 8)),
          'it taught its commit less the prediction, per file (' || round(:f0::numeric, 3) || ' -> ' ||
          round(:f1::numeric, 3) || ' us, commit ' || round((xact_of('CREATE TABLE sl_g1')).commit_ms::numeric, 3) || ' ms)');

-- then with a WAL flush priced at 1000 s: the commit took less than the
-- rest of its prediction, so it teaches 0 ns per file
SET walload.unit_costs = 'wal_flush_ns=1e12';
BEGIN;
CREATE TABLE sl_f1 (a int); INSERT INTO sl_f1 VALUES (1);
CREATE TABLE sl_f2 (a int); INSERT INTO sl_f2 VALUES (1);
CREATE TABLE sl_f3 (a int); INSERT INTO sl_f3 VALUES (1);
CREATE TABLE sl_f4 (a int); INSERT INTO sl_f4 VALUES (1);
CREATE TABLE sl_f5 (a int); INSERT INTO sl_f5 VALUES (1);
CREATE TABLE sl_f6 (a int); INSERT INTO sl_f6 VALUES (1);
CREATE TABLE sl_f7 (a int); INSERT INTO sl_f7 VALUES (1);
CREATE TABLE sl_f8 (a int); INSERT INTO sl_f8 VALUES (1);
COMMIT;
SELECT file_commit_us AS f2, file_commit_commits AS m2 FROM walload_info \gset
SELECT is((xact_of('CREATE TABLE sl_f1')).wal_logged_rels, 8, 'the eight small tables were WAL-logged whole');
SELECT is(:'m2'::bigint, :'m1'::bigint + 1, 'that commit taught the per-file work once more');
SELECT ok(near(:f2, learned_file_us(:f1, :m1, 0)),
          'a commit quicker than the rest of its prediction teaches 0 per file (' ||
          round(:f1::numeric, 3) || ' -> ' || round(:f2::numeric, 3) || ' us)');
SELECT is((SELECT fsync_time_commits FROM walload_info), :'n0'::bigint,
          'a commit that syncs no file does not teach the fsync ratio');

RESET walload.unit_costs;

-- a load rolled back: no sync, nothing taught
BEGIN;
CREATE TABLE sl_gone (a int, b text);
INSERT INTO sl_gone SELECT g, repeat('r', 60) FROM generate_series(1, 60000) g;
ROLLBACK;
SELECT is((SELECT fsync_time_commits FROM walload_info), :'n0'::bigint,
          'a rolled-back load does not teach');

-- a load of about 48 MB, fsynced at commit.  With its file's fsync priced
-- at 1000 s, the fsyncs are at least 2 ms and most of the predicted sync
-- phase: it teaches once, and a sync phase shorter than a quarter of that
-- teaches the lower bound, 1/4.
SET walload.unit_costs = 'fsync_ns_per_file=1e12';
BEGIN;
CREATE TABLE sl_big AS SELECT g AS a, repeat('s', 60) AS b FROM generate_series(1, 500000) g;
COMMIT;
SELECT fsync_time_ratio AS r1, fsync_time_commits AS n1 FROM walload_info \gset
SELECT is((xact_of('CREATE TABLE sl_big')).synced_rels, 1, 'the large table was fsynced at commit');
SELECT is(:'n1'::bigint, :'n0'::bigint + 1, 'the fsync commit taught once');
SELECT is((SELECT file_commit_commits FROM walload_info), :'m2'::bigint,
          'a commit that fsyncs a file does not teach the per-file work');
SELECT ok(near(:r1, learned_ratio(:r0, :n0, 0)),
          'a sync phase far below its prediction teaches the lower bound (' || round(:r0::numeric, 4) || ' -> ' ||
          round(:r1::numeric, 4) || ')');

-- the same load with nothing priced but 2 ms for the file's fsync: the
-- sync phase is all fsync, and it teaches the measured phase over 2 ms
SET walload.unit_costs = 'others=0, fsync_ns_per_file=2e6';
BEGIN;
CREATE TABLE sl_big2 AS SELECT g AS a, repeat('s', 60) AS b FROM generate_series(1, 500000) g;
COMMIT;
RESET walload.unit_costs;
SELECT fsync_time_ratio AS r2, fsync_time_commits AS n2 FROM walload_info \gset
SELECT is(:'n2'::bigint, :'n1'::bigint + 1, 'the second fsync commit taught once');
SELECT ok(near(:r2, learned_ratio(:r1, :n1, (xact_of('CREATE TABLE sl_big2')).commit_sync_ms / 2)),
          'it taught its sync phase over the 2 ms predicted (' || round(:r1::numeric, 4) || ' -> ' ||
          round(:r2::numeric, 4) || ', sync phase ' ||
          round((xact_of('CREATE TABLE sl_big2')).commit_sync_ms::numeric, 2) || ' ms)');
SELECT ok(:r2 >= 0.25 AND :r2 <= 4, 'still within its bounds');

-- deleting the table is a commit of file deletions and a scan: it does not teach
DROP TABLE sl_big;
SELECT is((SELECT fsync_time_commits FROM walload_info), :'n2'::bigint,
          'the DROP''s commit does not teach');

DROP TABLE sl_big2, sl_small, sl_f1, sl_f2, sl_f3, sl_f4, sl_f5, sl_f6, sl_f7, sl_f8,
  sl_g1, sl_g2, sl_g3, sl_g4, sl_g5, sl_g6, sl_g7, sl_g8;
SELECT * FROM finish();
