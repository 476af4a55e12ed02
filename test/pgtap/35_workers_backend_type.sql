-- clusters: minimal
-- The process a recorded transaction ran in (1.10): a client's statements
-- are 'client backend' in walload_xact_backend_types(), walload_diagnose()
-- scoped to it keeps them and scoped to a worker kind drops them, and a
-- backend_type walload does not record is an error; walload_report() alike.
\ir 00_helpers.inc
SELECT plan(8);
SELECT walload_reset();

CREATE TABLE bt_t (id int);
INSERT INTO bt_t SELECT generate_series(1, 10);

SELECT is((SELECT b.backend_type FROM walload_xact_backend_types() b
           JOIN walload_statements s USING (xact_id)
           WHERE s.query = 'INSERT INTO bt_t SELECT generate_series(1, 10)'),
          'client backend', 'a client''s transaction is a client backend''s');
SELECT is((SELECT count(*) FROM walload_xact_backend_types()),
          (SELECT count(*) FROM walload_xacts), 'every recorded transaction has its backend_type');
SELECT isnt((SELECT finding FROM walload_diagnose(backend_type => 'client backend') LIMIT 1),
            'nothing recorded', 'scoped to client backends the load is there');
SELECT is((SELECT finding FROM walload_diagnose(backend_type => 'autovacuum worker') LIMIT 1),
          'nothing recorded', 'scoped to autovacuum workers it is not');
SELECT throws_ok($$SELECT * FROM walload_diagnose(backend_type => 'walsender')$$,
                 '22023', 'walload records no backend_type "walsender"',
                 'an unknown backend_type is an error');

SELECT is((SELECT count(*) FROM walload_report(backend_type => 'client backend')
           WHERE part = 'INSERT/UPDATE/DELETE/MERGE/SELECT' AND xacts >= 1),
          1::bigint, 'walload_report() scoped to client backends has the INSERT');
SELECT is((SELECT count(*) FROM walload_report(backend_type => 'autovacuum worker')),
          0::bigint, 'scoped to autovacuum workers it has no part');
SELECT throws_ok($$SELECT * FROM walload_report(backend_type => 'walsender')$$,
                 '22023', 'walload records no backend_type "walsender"',
                 'walload_report(): an unknown backend_type is an error');

SELECT * FROM finish();
