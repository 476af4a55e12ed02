-- clusters: smallbuf
-- Cluster: shared_buffers=16MB.  VACUUM of a table mostly outside shared
-- buffers dirties pages in its ring and must flush WAL to reuse them (seed 001).
\ir 00_helpers.inc
SELECT plan(4);
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
VACUUM vr;
SELECT coalesce(wal_syncs, -1) AS wal_syncs, coalesce(wal_sync_ms, -1) AS wal_sync_ms, vacuum_ring_kb, vacuum_pages
FROM walload_statements WHERE command = 'VACUUM' \gset
SELECT current_setting('server_version_num')::int >= 180000 AS no_wal_counters \gset
\if :no_wal_counters
-- PostgreSQL 18 moved the backend's WAL write/sync counters to pg_stat_io,
-- out of an extension's reach: walload reports NULL rather than a guess
SELECT is(:wal_syncs::bigint, -1::bigint, '18: WAL flushes are not available (NULL)');
SELECT is(:wal_sync_ms::float8, -1::float8, '18: nor their time (NULL)');
SELECT is(:vacuum_ring_kb, 256, 'the ring size is reported (256 kB)');
SELECT is((SELECT count(*) FROM walload_diagnose() WHERE finding LIKE 'VACUUM forced%'), 0::bigint,
          '18: no ring finding without the counters');
\else
SELECT cmp_ok(:wal_syncs::bigint, '>', 10::bigint, 'VACUUM outside shared buffers flushed WAL itself many times: ' || :wal_syncs);
SELECT cmp_ok(:wal_sync_ms::float8, '>', 0::float8, 'and the flushes were timed (track_wal_io_timing)');
SELECT is(:vacuum_ring_kb, 256, 'the ring size is reported (256 kB)');
SELECT is((SELECT count(*) FROM walload_diagnose() WHERE finding = 'VACUUM forced into WAL flushes by its buffer ring'
           AND evidence LIKE '%flushed WAL ' || :wal_syncs || ' times%'), 1::bigint,
          'the diagnosis names the ring-forced WAL flushes with their count');
\endif
DROP TABLE vr;
SELECT * FROM finish();
