-- clusters: replica
-- wal_fpi_bytes (extension version 1.2): the bytes of full-page images in a
-- statement's WAL, from PostgreSQL 19's WalUsage; NULL before 19.
\ir 00_helpers.inc
SELECT plan(4);
SELECT current_setting('server_version_num')::int >= 190000 AS has_fpi_bytes \gset

CREATE TABLE fb (id int, pad text);
INSERT INTO fb SELECT g, repeat('f', 50) FROM generate_series(1, 20000) g;
SELECT walload_reset();
CREATE INDEX fb_id ON fb (id);
INSERT INTO fb VALUES (0, 'after the index');
SELECT wal_fpi, coalesce(wal_fpi_bytes, -1) AS fpi_bytes, wal_bytes
FROM walload_statements WHERE command = 'CREATE INDEX' \gset idx_
SELECT wal_fpi, coalesce(wal_fpi_bytes, -1) AS fpi_bytes
FROM walload_statements WHERE command = 'INSERT' \gset ins_

SELECT cmp_ok(:idx_wal_fpi::bigint, '>', 0::bigint, 'the index build logged its pages as images: ' || :idx_wal_fpi);
\if :has_fpi_bytes
SELECT ok(:idx_fpi_bytes::numeric > 0 AND :idx_fpi_bytes::numeric <= :idx_wal_fpi::numeric * 8192 AND :idx_fpi_bytes::numeric < :idx_wal_bytes::numeric,
          '19: wal_fpi_bytes is at most a page per image and less than the WAL: ' || :idx_fpi_bytes || ' of ' || :idx_wal_bytes);
SELECT ok(:ins_wal_fpi::bigint = 0 AND :ins_fpi_bytes::numeric = 0,
          '19: the INSERT after it (pages already changed since the checkpoint) has no image and wal_fpi_bytes = 0');
SELECT is((SELECT count(*) FROM walload_xacts WHERE wal_fpi_bytes IS NULL), 0::bigint,
          '19: every recorded transaction has wal_fpi_bytes');
\else
SELECT is(:idx_fpi_bytes::numeric, -1::numeric, 'before 19: wal_fpi_bytes is NULL (not counted by core)');
SELECT is(:ins_fpi_bytes::numeric, -1::numeric, 'before 19: NULL for every statement');
SELECT is((SELECT count(*) FROM walload_stats WHERE wal_fpi_bytes IS NOT NULL), 0::bigint,
          'before 19: NULL in walload_stats too');
\endif
DROP TABLE fb;
SELECT * FROM finish();
