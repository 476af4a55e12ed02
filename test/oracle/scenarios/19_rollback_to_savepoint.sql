-- ROLLBACK TO SAVEPOINT after creating two tables in the savepoint: 1 drop
-- scan at the ROLLBACK TO.  The commit drops nothing; the tables created
-- before and after the savepoint are small (no sync scan).
-- @expect minimal: drop_pending=1
-- @expect replica: drop_pending=1
BEGIN;
CREATE TABLE rs_before (id int);
SAVEPOINT s;
CREATE TABLE rs_in1 (id int);
CREATE TABLE rs_in2 (id int, doc text);
ROLLBACK TO SAVEPOINT s;
CREATE TABLE rs_after (id int);
COMMIT;
