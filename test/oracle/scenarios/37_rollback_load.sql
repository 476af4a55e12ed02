-- A load rolled back: the table created in the transaction, filled by
-- INSERT (whose pages stay in shared buffers: about 800 of them), is
-- deleted at abort, and the walk invalidates each of its buffers, which
-- walload counts in the pool (it cannot size files on the abort path).
-- Then the same in a savepoint rolled back.
-- @expect minimal: drop_pending=2
-- @expect replica: drop_pending=2
BEGIN;
CREATE TABLE rl1 (id int, pad text);
INSERT INTO rl1 SELECT g, repeat('r', 60) FROM generate_series(1, 100000) g;
ROLLBACK;
BEGIN;
SAVEPOINT s;
CREATE TABLE rl2 (id int, pad text);
INSERT INTO rl2 SELECT g, repeat('s', 60) FROM generate_series(1, 100000) g;
ROLLBACK TO SAVEPOINT s;
COMMIT;
