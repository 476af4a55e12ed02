-- clusters: smallbuf
-- Cluster: shared_buffers=16MB.  VACUUM of a table mostly outside shared
-- buffers dirties pages in its ring and must flush WAL to reuse them (seed 001).
-- A VACUUM of a table inside shared buffers must not be named for it.
-- On 18+, walload's WAL write and flush counts are checked against the
-- backend's own I/O statistics (pg_stat_get_backend_io(), object wal,
-- context normal), which 15-17 do not have.
\ir 00_helpers.inc
SELECT plan(12);
SELECT current_setting('server_version_num')::int >= 180000 AS backend_io \gset
CREATE TABLE vr (id int, t text) WITH (autovacuum_enabled = off);
INSERT INTO vr SELECT g, md5(g::text) FROM generate_series(1, 400000) g;
VACUUM FREEZE vr;
UPDATE vr SET t = t || 'x' WHERE id % 10 = 0;
DELETE FROM vr WHERE id % 3 = 0;
CHECKPOINT;
SELECT walload_reset();
SET track_wal_io_timing = on;
-- 16+ made the ring adjustable (default 256kB in 16, 2MB from 17): use 15's
SELECT current_setting('server_version_num')::int >= 160000 AS ring_adjustable \gset
\if :ring_adjustable
SET vacuum_buffer_usage_limit = '256kB';
\endif
\if :backend_io
SELECT writes AS w0, fsyncs AS s0, fsync_time AS t0 FROM pg_stat_get_backend_io(pg_backend_pid())
WHERE object = 'wal' AND context = 'normal' \gset
\endif
VACUUM vr;
\if :backend_io
SELECT writes AS w1, fsyncs AS s1, fsync_time AS t1 FROM pg_stat_get_backend_io(pg_backend_pid())
WHERE object = 'wal' AND context = 'normal' \gset
\endif
SELECT coalesce(wal_syncs, -1) AS wal_syncs, coalesce(wal_sync_ms, -1) AS wal_sync_ms, vacuum_ring_kb, vacuum_pages
FROM walload_statements WHERE command = 'VACUUM' \gset
SELECT cmp_ok(:wal_syncs::bigint, '>', 10::bigint, 'VACUUM outside shared buffers flushed WAL itself many times: ' || :wal_syncs);
SELECT cmp_ok(:wal_sync_ms::float8, '>', 0::float8, 'and the flushes were timed (track_wal_io_timing)');
SELECT is(:vacuum_ring_kb, 256, 'the ring size is reported (256 kB)');
SELECT is((SELECT count(*) FROM walload_findings() WHERE finding = 'VACUUM forced into WAL flushes'
           AND evidence LIKE '%flushed WAL ' || :wal_syncs || ' times%'), 1::bigint,
          'the diagnosis names the ring-forced WAL flushes with their count');
\if :backend_io
-- the VACUUM ran in a transaction of its own, with nothing else of this
-- backend's between the two reads: its transaction's counts are the delta
SELECT is((SELECT wal_writes || '/' || wal_syncs || '/' || round(wal_sync_ms::numeric, 3)
           FROM walload_xacts x WHERE EXISTS (SELECT FROM walload_statements s
                                              WHERE s.xact_id = x.xact_id AND s.command = 'VACUUM')),
          (:w1 - :w0) || '/' || (:s1 - :s0) || '/' || round((:t1 - :t0)::numeric, 3),
          'VACUUM''s WAL writes/flushes/flush ms are the delta of pg_stat_get_backend_io() (wal, normal)');
\else
SELECT skip('PostgreSQL ' || current_setting('server_version') || ' has no pg_stat_get_backend_io() (18+)', 1);
\endif
DROP TABLE vr;

-- the same dead rows in a table that fits in shared buffers: VACUUM finds
-- its pages there and reuses no dirty buffer of its ring
CREATE TABLE vs (id int, t text) WITH (autovacuum_enabled = off);
INSERT INTO vs SELECT g, md5(g::text) FROM generate_series(1, 20000) g;
VACUUM FREEZE vs;
UPDATE vs SET t = t || 'x' WHERE id % 10 = 0;
DELETE FROM vs WHERE id % 3 = 0;
CHECKPOINT;
SELECT walload_reset();
VACUUM vs;
SELECT coalesce(wal_syncs, -1) AS small_syncs FROM walload_statements WHERE command = 'VACUUM' \gset
SELECT ok(:small_syncs BETWEEN 0 AND 9, 'VACUUM of a table in shared buffers flushed WAL at most a few times: ' || :small_syncs);
SELECT is((SELECT count(*) FROM walload_findings() WHERE finding LIKE 'VACUUM forced%'), 0::bigint,
          'and is not named as forced into WAL flushes by its ring');
DROP TABLE vs;

-- a statement inside a transaction block: the reads before and after it
-- bracket it alone (stats_fetch_consistency = none: no cached snapshot)
CREATE TABLE wi (id int, t text);
SELECT walload_reset();
BEGIN;
SET LOCAL stats_fetch_consistency = none;
\if :backend_io
SELECT writes AS w0, fsyncs AS s0, fsync_time AS t0 FROM pg_stat_get_backend_io(pg_backend_pid())
WHERE object = 'wal' AND context = 'normal' \gset
\endif
INSERT INTO wi SELECT g, md5(g::text) FROM generate_series(1, 300000) g;
\if :backend_io
SELECT writes AS w1, fsyncs AS s1, fsync_time AS t1 FROM pg_stat_get_backend_io(pg_backend_pid())
WHERE object = 'wal' AND context = 'normal' \gset
\endif
COMMIT;
SELECT wal_writes AS ins_writes, wal_syncs AS ins_syncs, round(wal_sync_ms::numeric, 3) AS ins_ms
FROM walload_statements WHERE query LIKE 'INSERT INTO wi%' \gset
SELECT cmp_ok(:ins_writes::bigint, '>', 100::bigint,
              'INSERT of 300000 rows wrote WAL itself (WAL buffers full, dirty buffers evicted): ' || :ins_writes || ' writes');
SELECT cmp_ok((SELECT wal_syncs FROM walload_xacts x WHERE EXISTS (SELECT FROM walload_statements s
                WHERE s.xact_id = x.xact_id AND s.query LIKE 'INSERT INTO wi%')), '>', :ins_syncs::bigint,
              'its transaction also has the commit''s WAL flush');
\if :backend_io
SELECT is(:ins_writes::bigint, (:w1 - :w0)::bigint, 'the INSERT''s wal_writes are the delta of pg_stat_get_backend_io() writes: ' || (:w1 - :w0));
SELECT is(:ins_syncs::bigint, (:s1 - :s0)::bigint, 'its wal_syncs the delta of fsyncs: ' || (:s1 - :s0));
SELECT is(:ins_ms::numeric, round((:t1 - :t0)::numeric, 3), 'its wal_sync_ms the delta of fsync_time');
\else
SELECT skip('PostgreSQL ' || current_setting('server_version') || ' has no pg_stat_get_backend_io() (18+)', 3);
\endif
DROP TABLE wi;
SELECT * FROM finish();
