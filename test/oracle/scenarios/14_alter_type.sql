-- ALTER TABLE ... ALTER COLUMN TYPE rewrites the table and rebuilds its
-- index: new relfilenodes (small: no sync scan), the old ones dropped at
-- commit: 1 drop scan.
-- @expect minimal: drop_pending=1
-- @expect replica: drop_pending=1
-- @setup
CREATE TABLE at (id int, doc text);
INSERT INTO at SELECT g, repeat('a', 100) FROM generate_series(1, 2000) g;
CREATE INDEX at_id ON at (id);
-- @run
ALTER TABLE at ALTER COLUMN id TYPE bigint;
