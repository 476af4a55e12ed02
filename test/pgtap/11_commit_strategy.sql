-- clusters: minimal replica
-- walload.commit_strategy: walload sets wal_skip_threshold for one commit
-- and core decides with it.  Under minimal: 'wal' WAL-logs a large new file
-- (no sync, no scan), 'sync' fsyncs a small one (one scan), 'auto' never
-- chooses what it predicts to be dearer than core's own choice, a file
-- truncated in place is synced whatever the strategy; the session's
-- wal_skip_threshold is unchanged afterwards.  Under replica it never acts.
\ir 00_helpers.inc
SELECT current_setting('wal_level') = 'minimal' AS minimal \gset
SELECT current_setting('wal_skip_threshold') AS session_threshold \gset
SELECT plan(22);

SELECT throws_ok($$SET walload.commit_strategy = 'bogus'$$, '22023', NULL,
                 'an unknown strategy is refused');
SELECT is(current_setting('walload.commit_strategy'), 'off', 'off by default');

-- off: core's own choice, recorded as such
BEGIN;
CREATE TABLE cs_off (id int, pad text);
COPY cs_off FROM PROGRAM 'seq 1 100000 | sed "s/$/,large row padding/"' WITH (FORMAT csv);
COMMIT;
SELECT is((xact_of('CREATE TABLE cs_off')).commit_strategy, 'off', 'off: recorded');
SELECT is((xact_of('CREATE TABLE cs_off')).commit_threshold_kb, 2048, 'off: the session''s threshold, 2 MB');
SELECT is((xact_of('CREATE TABLE cs_off')).synced_rels, CASE WHEN :'minimal'::bool THEN 1 ELSE 0 END,
          'off: the large file is synced under minimal only');

-- wal: the large file is WAL-logged whole
SET walload.commit_strategy = 'wal';
BEGIN;
CREATE TABLE cs_wal (id int, pad text);
COPY cs_wal FROM PROGRAM 'seq 1 100000 | sed "s/$/,large row padding/"' WITH (FORMAT csv);
COMMIT;
SELECT is((xact_of('CREATE TABLE cs_wal')).synced_rels, 0, 'wal: nothing synced');
SELECT is((xact_of('CREATE TABLE cs_wal')).scans_flush_pending, 0::bigint, 'wal: no sync scan');
SELECT cmp_ok((xact_of('CREATE TABLE cs_wal')).commit_threshold_kb * 1024::bigint,
              CASE WHEN :'minimal'::bool THEN '>' ELSE '=' END,
              CASE WHEN :'minimal'::bool THEN pg_relation_size('cs_wal') ELSE 2048 * 1024 END,
              CASE WHEN :'minimal'::bool THEN 'wal: the threshold was raised above the file'
                   ELSE 'wal under replica: the threshold is untouched' END);
SELECT cmp_ok((xact_of('CREATE TABLE cs_wal')).wal_logged_blocks * 8192,
              CASE WHEN :'minimal'::bool THEN '>=' ELSE '=' END,
              CASE WHEN :'minimal'::bool THEN pg_relation_size('cs_wal') ELSE 0 END,
              CASE WHEN :'minimal'::bool THEN 'wal: the file was WAL-logged at commit'
                   ELSE 'wal under replica: nothing WAL-logged at commit' END);
SELECT is(current_setting('wal_skip_threshold'), :'session_threshold', 'the session''s wal_skip_threshold is unchanged');
SELECT is((SELECT count(*) FROM cs_wal), 100000::bigint, 'wal: every row is there');
SELECT ok(EXISTS (SELECT 1 FROM walload_findings((xact_of('CREATE TABLE cs_wal')).xact_id)
                  WHERE finding = 'walload chose how new files reach disk'
                    AND detail LIKE CASE WHEN :'minimal'::bool THEN '%set wal_skip_threshold for 1 of them:%'
                                           ELSE '%set wal_skip_threshold for 0 of them. %' END),
          'walload_findings() explains what the strategy did');
SELECT ok(NOT EXISTS (SELECT 1 FROM walload_findings((xact_of('CREATE TABLE cs_off')).xact_id)
                      WHERE finding LIKE 'walload chose%'),
          'and says nothing of it for a commit with the strategy off');

-- sync: even a one-row table is fsynced, after a scan
SET walload.commit_strategy = 'sync';
BEGIN;
CREATE TABLE cs_sync (id int);
INSERT INTO cs_sync VALUES (1);
COMMIT;
SELECT is((xact_of('CREATE TABLE cs_sync')).scans_flush_pending, CASE WHEN :'minimal'::bool THEN 1 ELSE 0 END::bigint,
          'sync: a scan for the one-row table under minimal only');
SELECT is((xact_of('CREATE TABLE cs_sync')).commit_threshold_kb, CASE WHEN :'minimal'::bool THEN 0 ELSE 2048 END,
          'sync: threshold 0 under minimal, untouched under replica');
SELECT is((xact_of('CREATE TABLE cs_sync')).wal_logged_rels, 0, 'sync: nothing WAL-logged');

-- a file truncated in place is synced whatever the strategy
SET walload.commit_strategy = 'wal';
BEGIN;
CREATE TABLE cs_trunc (id int);
INSERT INTO cs_trunc VALUES (1);
TRUNCATE cs_trunc;
INSERT INTO cs_trunc VALUES (2);
COMMIT;
SELECT is((xact_of('CREATE TABLE cs_trunc')).synced_rels, CASE WHEN :'minimal'::bool THEN 1 ELSE 0 END,
          'wal: a file truncated in place is still synced (minimal)');

-- auto: never a choice predicted dearer than core's
SET walload.commit_strategy = 'auto';
BEGIN;
CREATE TABLE cs_auto_big (id int, pad text);
COPY cs_auto_big FROM PROGRAM 'seq 1 100000 | sed "s/$/,large row padding/"' WITH (FORMAT csv);
CREATE TABLE cs_auto_small (id int);
INSERT INTO cs_auto_small VALUES (1);
COMMIT;
SELECT is((xact_of('CREATE TABLE cs_auto_big')).commit_strategy, 'auto', 'auto: recorded');
SELECT ok((xact_of('CREATE TABLE cs_auto_big')).pred_commit_ms
          <= (xact_of('CREATE TABLE cs_auto_big')).pred_core_commit_ms + 1e-6,
          'auto: the chosen commit is predicted no dearer than core''s');
SELECT is((xact_of('CREATE TABLE cs_auto_big')).synced_rels + (xact_of('CREATE TABLE cs_auto_big')).wal_logged_rels,
          (xact_of('CREATE TABLE cs_auto_big')).wal_skipped_rels,
          'auto: every pending sync either synced or WAL-logged');
SELECT ok(CASE WHEN :'minimal'::bool THEN true
               ELSE (xact_of('CREATE TABLE cs_auto_big')).pred_commit_ms = (xact_of('CREATE TABLE cs_auto_big')).pred_core_commit_ms END,
          'auto under replica: the same prediction as core''s (it did not act)');
SELECT is((SELECT count(*) FROM cs_auto_big) + (SELECT count(*) FROM cs_auto_small), 100001::bigint,
          'auto: every row is there');
RESET walload.commit_strategy;

DROP TABLE cs_off, cs_wal, cs_sync, cs_trunc, cs_auto_big, cs_auto_small;
SELECT * FROM finish();
