-- clusters: minimal
-- walload_findings(), the commit-time sync's wal_skip_threshold (whatif.c):
-- core syncs a file created in the transaction at commit if it was
-- truncated in place or is at least wal_skip_threshold large (storage.c
-- smgrDoPendingSyncs), so a higher threshold can spare the sync and its
-- walk of the pool only for files not truncated in place.  Positive: three
-- loads of a new table each, synced because wal_skip_threshold = 0: the
-- finding names the setting and a value.  Negative: three loads whose
-- table was truncated in place before it was loaded again: synced whatever
-- the threshold, so no threshold is offered.  Unit costs fixed
-- (walload.unit_costs: 100 ns each, an fsync 1 ms a file), so the replay
-- prices counts, never a timed figure.
\ir 00_helpers.inc
SELECT plan(8);
SET walload.unit_costs = 'others=100, fsync_ns_per_file=1e6';

SELECT walload_reset();
SET wal_skip_threshold = 0;
BEGIN; CREATE TABLE th1 (a int); INSERT INTO th1 SELECT g FROM generate_series(1, 2000) g; COMMIT;
BEGIN; CREATE TABLE th2 (a int); INSERT INTO th2 SELECT g FROM generate_series(1, 2000) g; COMMIT;
BEGIN; CREATE TABLE th3 (a int); INSERT INTO th3 SELECT g FROM generate_series(1, 2000) g; COMMIT;
RESET wal_skip_threshold;
CREATE TEMP TABLE d1 AS SELECT * FROM walload_findings();

SELECT is((SELECT sum(synced_rels)::int FROM walload_xacts WHERE outcome = 'commit'), 3,
          'three new tables synced at commit');
SELECT is((SELECT setting || ' ' || (value ~ '^[0-9]+kB$')::text || ' ' || coalesce(shape, '-')
           FROM d1 WHERE finding LIKE 'commit-time sync%'),
          'wal_skip_threshold true -',
          'the commit-time sync names wal_skip_threshold and a value in kB, no shape');
SELECT ok((SELECT saving_ms > 0 AND scale(saving_ms) <= 1 FROM d1 WHERE finding LIKE 'commit-time sync%'),
          'priced by the replay, rounded to one decimal');
SELECT is((SELECT count(*) FROM d1 WHERE saving_ms > 0 AND num_nonnulls(setting, shape) <> 1), 0::bigint,
          'every finding with a saving carries exactly one change');

SELECT walload_reset();
BEGIN; CREATE TABLE tr1 (a int); INSERT INTO tr1 SELECT g FROM generate_series(1, 2000) g;
TRUNCATE tr1; INSERT INTO tr1 SELECT g FROM generate_series(1, 2000) g; COMMIT;
BEGIN; CREATE TABLE tr2 (a int); INSERT INTO tr2 SELECT g FROM generate_series(1, 2000) g;
TRUNCATE tr2; INSERT INTO tr2 SELECT g FROM generate_series(1, 2000) g; COMMIT;
BEGIN; CREATE TABLE tr3 (a int); INSERT INTO tr3 SELECT g FROM generate_series(1, 2000) g;
TRUNCATE tr3; INSERT INTO tr3 SELECT g FROM generate_series(1, 2000) g; COMMIT;
CREATE TEMP TABLE d2 AS SELECT * FROM walload_findings();

SELECT is((SELECT sum(synced_rels)::int FROM walload_xacts WHERE outcome = 'commit'), 3,
          'three small tables truncated in place: synced at commit, below the default threshold');
SELECT is((SELECT count(*) FROM d2 WHERE setting = 'wal_skip_threshold'), 0::bigint,
          'no wal_skip_threshold offered for files truncated in place');
SELECT ok((SELECT detail NOT LIKE '%Raising wal_skip_threshold%' AND detail !~ 'wal_skip_threshold = [0-9]+kB'
                  AND detail LIKE '%3 file(s) were truncated in place%'
           FROM d2 WHERE finding LIKE 'commit-time sync%'),
          'nor in the words: the finding says core syncs them whatever the threshold');
SELECT is((SELECT coalesce(setting, '-') || ' ' || coalesce(shape, '-') || ' ' || coalesce(saving_ms::text, '-')
           FROM d2 WHERE finding LIKE 'commit-time sync%') || ', ' ||
          (SELECT shape FROM d2 WHERE finding LIKE 'in-place truncation%'),
          '- - -, no_truncate_reload',
          'what saves their syncs is loading each table once, and only that finding counts it');

RESET walload.unit_costs;
DROP TABLE th1, th2, th3, tr1, tr2, tr3;
SELECT * FROM finish();
