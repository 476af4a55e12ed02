-- Cluster: walload.max_xacts=10, max_statements=100, max_stats=100.
\ir 00_helpers.inc
SELECT plan(6);
CREATE TABLE ring (id int);
SELECT walload_reset();
INSERT INTO ring VALUES (1);
INSERT INTO ring VALUES (2);
INSERT INTO ring VALUES (3);
INSERT INTO ring VALUES (4);
INSERT INTO ring VALUES (5);
INSERT INTO ring VALUES (6);
INSERT INTO ring VALUES (7);
INSERT INTO ring VALUES (8);
INSERT INTO ring VALUES (9);
INSERT INTO ring VALUES (10);
INSERT INTO ring VALUES (11);
INSERT INTO ring VALUES (12);
INSERT INTO ring VALUES (13);
INSERT INTO ring VALUES (14);
INSERT INTO ring VALUES (15);
-- read the state before any assertion (assertions may be recorded too)
SELECT count(*) AS ring_rows, min(rows) AS ring_min_rows, max(xact_id) - min(xact_id) AS ring_span,
       (SELECT xacts_recorded || '/' || xacts_overwritten FROM walload_info) AS ring_info
FROM walload_xacts \gset
SELECT is(:ring_rows::bigint, 10::bigint, 'the transaction ring keeps walload.max_xacts rows');
SELECT is(:'ring_info'::text, '15/5'::text, 'walload_info counts the overwritten ones');
SELECT is(:ring_min_rows::bigint, 1::bigint, 'each kept transaction inserted one row');
SELECT is(:ring_span::bigint, 9::bigint, 'the newest ten are kept, consecutive');
-- 150 distinct statements into a 100-entry statistics table
SELECT walload_reset();
SET walload.track = 'all';
-- each statement has a different shape (constants do not make query ids differ)
DO $$ BEGIN FOR i IN 1..150 LOOP EXECUTE 'INSERT INTO ring SELECT ' || repeat('1 + ', i) || '0'; END LOOP; END $$;
INSERT INTO ring SELECT 424242;
SELECT ok((SELECT count(*) <= 100 AND (SELECT stats_evicted FROM walload_info) > 0 FROM walload_stats),
          'a full statistics table evicts (at most walload.max_stats entries)');
SELECT is((SELECT count(*) FROM walload_stats WHERE query = 'INSERT INTO ring SELECT 424242'), 1::bigint,
          'the most recent statement survives eviction');
DROP TABLE ring;
SELECT * FROM finish();
