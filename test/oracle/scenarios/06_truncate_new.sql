-- TRUNCATE of a table created in the same transaction, with a primary key
-- and a toast table: truncated in place, one DropRelFileNodeBuffers per
-- storage relation (heap, index, toast heap, toast index: 4).  A truncated
-- relation is synced at commit under minimal whatever its size: one
-- FlushRelationsAllBuffers.  Nothing is dropped.
-- @expect minimal: drop_rel=4 flush_pending=1
-- @expect replica: drop_rel=4
BEGIN;
CREATE TABLE fresh (id int PRIMARY KEY, doc text);
INSERT INTO fresh SELECT g, repeat('y', 100) FROM generate_series(1, 1000) g;
TRUNCATE fresh;
INSERT INTO fresh SELECT g, 'z' FROM generate_series(1, 10) g;
COMMIT;
