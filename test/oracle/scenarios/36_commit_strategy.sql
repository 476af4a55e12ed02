-- walload.commit_strategy acts on core: it sets wal_skip_threshold for the
-- commit, and core then decides.  The same load as 02_copy_large under each
-- strategy: 'wal' WAL-logs the 5 MB file (no sync, no scan), 'sync' fsyncs
-- even a one-row table (one scan); under replica nothing is synced whatever
-- the setting.  The oracle checks that the scans walload counts are the ones
-- core did.  ('auto' chooses by measured costs, so its scans depend on the
-- machine: test/pgtap/11_commit_strategy.sql checks it.)
-- @expect minimal: flush_pending=1
-- @expect replica: none
SET walload.commit_strategy = 'wal';
BEGIN;
CREATE TABLE cs_large (id int, pad text);
COPY cs_large FROM PROGRAM 'seq 1 100000 | sed "s/$/,large row padding/"' WITH (FORMAT csv);
COMMIT;
SET walload.commit_strategy = 'sync';
BEGIN;
CREATE TABLE cs_small (id int);
INSERT INTO cs_small VALUES (1);
COMMIT;
DO $$ BEGIN ASSERT pg_relation_size('cs_large') > 2 * 1024 * 1024, 'premise: cs_large is above wal_skip_threshold'; END $$;
