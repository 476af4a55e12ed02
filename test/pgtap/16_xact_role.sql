-- clusters: minimal
-- Whose a transaction's record is: the role and application_name of its
-- last recorded statement as it ran (pg_stat_statements keys a statement by
-- the role executing it), not those current at the transaction's end, when
-- core has undone SET LOCAL and a final SET ROLE has handed the session to
-- another role.  A plain transaction keeps its session's role and
-- application_name.
\ir 00_helpers.inc
SELECT plan(17);
SELECT walload_reset();

CREATE ROLE xr_alice;
GRANT ALL ON SCHEMA public TO xr_alice;
CREATE TABLE xr_t (id int);
GRANT ALL ON xr_t TO xr_alice;
SET application_name = 'xr_session';
SELECT oid AS me FROM pg_roles WHERE rolname = current_user \gset
SELECT oid AS alice FROM pg_roles WHERE rolname = 'xr_alice' \gset

-- a plain transaction: the session's role and application_name
BEGIN;
INSERT INTO xr_t VALUES (1);
COMMIT;
SELECT is((xact_of('INSERT INTO xr_t VALUES (1)')).userid, :'me'::oid,
          'a plain transaction is its session role''s');
SELECT is((xact_of('INSERT INTO xr_t VALUES (1)')).application_name, 'xr_session',
          'with its session''s application_name');

-- SET LOCAL ROLE: the role its statements ran as, undone by the commit
BEGIN;
SET LOCAL ROLE xr_alice;
INSERT INTO xr_t VALUES (2);
COMMIT;
SELECT is(current_user::text, (SELECT rolname::text FROM pg_roles WHERE oid = :'me'),
          'the commit undid SET LOCAL ROLE');
SELECT is((SELECT userid FROM walload_statements WHERE query = 'INSERT INTO xr_t VALUES (2)'),
          :'alice'::oid, 'its statement ran as the role SET LOCAL chose');
SELECT is((xact_of('INSERT INTO xr_t VALUES (2)')).userid, :'alice'::oid,
          'and the transaction is that role''s, not the one the commit restored');

-- SET LOCAL application_name: the name its statements ran under
BEGIN;
SET LOCAL application_name = 'xr_local';
INSERT INTO xr_t VALUES (3);
COMMIT;
SELECT is(current_setting('application_name'), 'xr_session', 'the commit undid SET LOCAL application_name');
SELECT is((xact_of('INSERT INTO xr_t VALUES (3)')).application_name, 'xr_local',
          'the transaction keeps the application_name its statement ran under');

-- a final SET ROLE (no statement recorded after it) gives the record away
-- to nobody: the transaction stays the role of its recorded statement
BEGIN;
INSERT INTO xr_t VALUES (4);
SET ROLE xr_alice;
SET application_name = 'xr_after';
COMMIT;
SELECT is(current_user::text, 'xr_alice', 'SET ROLE outlived the commit');
RESET ROLE;
SET application_name = 'xr_session';
SELECT is((xact_of('INSERT INTO xr_t VALUES (4)')).userid, :'me'::oid,
          'a final SET ROLE does not make the transaction another role''s');
SELECT is((xact_of('INSERT INTO xr_t VALUES (4)')).application_name, 'xr_session',
          'nor does a final application_name rename it');
SELECT xact_id AS x4 FROM xact_of('INSERT INTO xr_t VALUES (4)') \gset
SELECT xact_id AS x2 FROM xact_of('INSERT INTO xr_t VALUES (2)') \gset

-- who sees the session's start follows that role (pg_stat_activity's rule)
SET ROLE xr_alice;
SELECT ok((SELECT backend_start IS NULL AND first_in_session IS NULL
           FROM walload_xacts WHERE xact_id = :x4),
          'the other role does not see the session start of the superuser''s transaction');
SELECT ok((SELECT backend_start IS NOT NULL FROM walload_xacts WHERE xact_id = :x2),
          'it sees that of the transaction that ran as it');
RESET ROLE;

-- the last recorded statement names the role: SET LOCAL ROLE mid-way
BEGIN;
INSERT INTO xr_t VALUES (5);
SET LOCAL ROLE xr_alice;
INSERT INTO xr_t VALUES (6);
COMMIT;
SELECT is((xact_of('INSERT INTO xr_t VALUES (6)')).userid, :'alice'::oid,
          'the role of the last recorded statement');
-- and the other way round
BEGIN;
SET LOCAL ROLE xr_alice;
INSERT INTO xr_t VALUES (7);
RESET ROLE;
INSERT INTO xr_t VALUES (8);
COMMIT;
SELECT is((xact_of('INSERT INTO xr_t VALUES (8)')).userid, :'me'::oid,
          'the role of the last recorded statement, whatever came before');

-- a statement failing inside a SECURITY DEFINER function, where core gives
-- the caller's role back only in the abort: the statement and its
-- transaction are the caller's, not the function owner's
CREATE FUNCTION xr_fail() RETURNS int LANGUAGE plpgsql SECURITY DEFINER
SET search_path = pg_catalog, public AS $$
BEGIN
  INSERT INTO xr_t VALUES (9);
  RAISE EXCEPTION 'xr_fail fails';
END $$;
ALTER FUNCTION xr_fail() OWNER TO xr_alice;
\set ON_ERROR_STOP 0
BEGIN;
INSERT INTO xr_t VALUES (10);
INSERT INTO xr_t SELECT xr_fail();
COMMIT;
\set ON_ERROR_STOP 1
SELECT is((SELECT status || ':' || userid FROM walload_statements
           WHERE query = 'INSERT INTO xr_t SELECT xr_fail()'), 'error:' || :'me',
          'a statement that failed in a SECURITY DEFINER function ran as its caller');
SELECT is((xact_of('INSERT INTO xr_t VALUES (10)')).outcome, 'abort', 'its transaction aborted');
SELECT is((xact_of('INSERT INTO xr_t VALUES (10)')).userid, :'me'::oid,
          'and is the caller''s, not the function owner''s');

SELECT * FROM finish();
DROP FUNCTION xr_fail();
DROP TABLE xr_t;
REVOKE ALL ON SCHEMA public FROM xr_alice;
DROP ROLE xr_alice;
