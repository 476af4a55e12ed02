-- ROLLBACK of a transaction that created two tables (one with a primary key
-- and a toast table): their files are dropped at abort in one call.
-- @expect minimal: drop_pending=1
-- @expect replica: drop_pending=1
BEGIN;
CREATE TABLE rb1 (id int);
CREATE TABLE rb2 (id int PRIMARY KEY, doc text);
INSERT INTO rb2 SELECT g, 'x' FROM generate_series(1, 1000) g;
ROLLBACK;
