-- TRUNCATE inside a savepoint.
-- (a) A table created earlier, truncated in a savepoint that is released:
--     new relfilenodes; the old files go at the top-level commit: 1 drop scan.
-- (b) A table created in this transaction, truncated in a savepoint (another
--     subtransaction, so new relfilenodes, not an in-place truncation) that
--     is rolled back: ROLLBACK TO drops the new files (1 drop scan); the
--     commit drops nothing, and nothing is big enough to be synced.
-- @expect minimal: drop_pending=2
-- @expect replica: drop_pending=2
-- @setup
CREATE TABLE sv_old (id int PRIMARY KEY, doc text);
INSERT INTO sv_old SELECT g, 'x' FROM generate_series(1, 1000) g;
-- @run
BEGIN;
SAVEPOINT s;
TRUNCATE sv_old;
RELEASE s;
COMMIT;
BEGIN;
CREATE TABLE sv_new (id int, doc text);
INSERT INTO sv_new SELECT g, 'x' FROM generate_series(1, 100) g;
SAVEPOINT s;
TRUNCATE sv_new;
ROLLBACK TO s;
COMMIT;
