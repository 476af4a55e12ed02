-- clusters: replica
-- walload_findings(): full-page images by cause.  Index builds and other
-- writers of new files log every page whole (XLOG/FPI records) whatever the
-- checkpoints and full_page_writes: no checkpoint advice for them.  The
-- first change of a page after a checkpoint does get it.  Never advise
-- full_page_writes = off.  pg_walinspect checks the attribution.
\ir 00_helpers.inc
CREATE EXTENSION IF NOT EXISTS pg_walinspect;
SELECT plan(15);

-- images in an LSN range, by record kind: XLOG/FPI or any other record.  The
-- range ends at most at the flushed WAL, which 15's pg_walinspect requires:
-- a background process may insert after the statement's commit, which was
-- flushed (synchronous_commit is on), so nothing of the statement is cut.
CREATE FUNCTION wal_images(l0 pg_lsn, l1 pg_lsn, OUT fpi_records bigint, OUT other bigint)
LANGUAGE sql AS $$
  SELECT coalesce(sum(n) FILTER (WHERE resource_manager = 'XLOG' AND record_type = 'FPI'), 0),
         coalesce(sum(n) FILTER (WHERE NOT (resource_manager = 'XLOG' AND record_type = 'FPI')), 0)
  FROM (SELECT resource_manager, record_type,
               (length(block_ref) - length(replace(block_ref, '(FPW', ''))) / 4 AS n
        FROM pg_get_wal_records_info(l0, least(l1, pg_current_wal_flush_lsn()))) r
$$;
-- the images walload recorded for the top-level statement starting with prefix
CREATE FUNCTION stmt_fpi(prefix text) RETURNS bigint
LANGUAGE sql AS $$
  SELECT wal_fpi FROM walload_statements
  WHERE pid = pg_backend_pid() AND toplevel AND query LIKE prefix || '%'
  ORDER BY xact_id DESC LIMIT 1
$$;

-- 1. the issue's repro: CREATE INDEX on a fresh table
SELECT walload_reset();
CREATE TABLE fc_t AS SELECT g FROM generate_series(1, 300000) g;
SELECT pg_current_wal_insert_lsn() AS l0 \gset
CREATE INDEX fc_t_g ON fc_t (g);
SELECT pg_current_wal_insert_lsn() AS l1 \gset
SELECT (xact_of('CREATE INDEX fc_t_g')).xact_id AS ix \gset
SELECT stmt_fpi('CREATE INDEX fc_t_g') AS ix_fpi \gset
SELECT * FROM wal_images(:'l0', :'l1') \gset ix_

SELECT ok(:ix_fpi > 500 AND :ix_fpi_records::numeric BETWEEN 0.95 * :ix_fpi AND :ix_fpi,
          format('pg_walinspect: %s of the %s images walload recorded for CREATE INDEX are XLOG/FPI records, %s in other records',
                 :ix_fpi_records, :ix_fpi, :ix_other));
SELECT is((SELECT count(*) FROM walload_findings(:ix) WHERE finding = 'full-page images of new files'
           AND detail LIKE format('%%; %s pages of new files logged whole (CREATE INDEX %s)%%', :ix_fpi, :ix_fpi)),
          1::bigint, 'CREATE INDEX: its images are named as pages of new files logged whole');
SELECT is((SELECT count(*) FROM walload_findings(:ix)
           WHERE detail ~ 'max_wal_size|checkpoint_timeout' OR finding ~ 'after checkpoints'),
          0::bigint, 'CREATE INDEX: no checkpoint advice');
SELECT is((SELECT count(*) FROM walload_findings(:ix) WHERE detail ~* 'full_page_writes *= *off'),
          0::bigint, 'CREATE INDEX: no full_page_writes = off advice');

-- 2. first changes after a checkpoint dominate: UPDATE every row after CHECKPOINT
-- (two rows a page: one image of each page, small HOT update records)
CREATE TABLE fc_u (id int, v int, pad text) WITH (fillfactor = 50);
INSERT INTO fc_u SELECT g, 0, repeat('u', 1500) FROM generate_series(1, 3000) g;
CHECKPOINT;
SELECT walload_reset();
SELECT pg_current_wal_insert_lsn() AS l0 \gset
UPDATE fc_u SET v = v + 1;
SELECT pg_current_wal_insert_lsn() AS l1 \gset
SELECT (xact_of('UPDATE fc_u')).xact_id AS up \gset
SELECT stmt_fpi('UPDATE fc_u') AS up_fpi \gset
SELECT * FROM wal_images(:'l0', :'l1') \gset up_

SELECT ok(:up_fpi > 1000 AND :up_fpi_records = 0 AND :up_other::numeric BETWEEN 0.95 * :up_fpi AND :up_fpi,
          format('pg_walinspect: the %s images of the UPDATE are in its own records (%s), no XLOG/FPI records (%s)',
                 :up_fpi, :up_other, :up_fpi_records));
SELECT is((SELECT count(*) FROM walload_findings(:up) WHERE severity = 'warning'
           AND finding = 'full-page images after checkpoints'
           AND detail LIKE format('%%; %s first changes of a page after a checkpoint (UPDATE %s)%%', :up_fpi, :up_fpi)),
          1::bigint, 'UPDATE after CHECKPOINT: the checkpoint finding, with the UPDATE''s images');
SELECT is((SELECT count(*) FROM walload_findings(:up) WHERE detail LIKE '%max_wal_size%' AND detail LIKE '%checkpoint_timeout%'),
          1::bigint, 'UPDATE after CHECKPOINT: the checkpoint advice');
SELECT is((SELECT count(*) FROM walload_findings(:up) WHERE detail ~* 'full_page_writes'),
          0::bigint, 'UPDATE after CHECKPOINT: no full_page_writes advice');

-- 3. the whole ring (the UPDATE and the assertions' own transactions)
SELECT is((SELECT count(*) FROM walload_findings() WHERE detail ~* 'full_page_writes *= *off'),
          0::bigint, 'whole ring: no full_page_writes = off advice');

-- 4. rewrites: VACUUM FULL (tag VACUUM) and CLUSTER log the new heap whole
SELECT walload_reset();
VACUUM (FULL) fc_u;
CLUSTER fc_t USING fc_t_g;
VACUUM fc_t;
SELECT is((SELECT count(*) FROM walload_findings() WHERE finding = 'full-page images of new files'
           AND detail ~ format('pages of new files logged whole \((VACUUM FULL %s, CLUSTER %s|CLUSTER %s, VACUUM FULL %s)\)',
                                 stmt_fpi('VACUUM (FULL) fc_u'), stmt_fpi('CLUSTER fc_t'),
                                 stmt_fpi('CLUSTER fc_t'), stmt_fpi('VACUUM (FULL) fc_u'))),
          1::bigint, 'VACUUM (FULL) and CLUSTER: pages of new files, VACUUM FULL told from VACUUM');

-- the same, to a role that may not read the statements' text
-- (walload_statements' rule): VACUUM FULL told by the files its
-- transaction deleted, which a plain VACUUM never does
SELECT stmt_fpi('VACUUM (FULL) fc_u') AS vf_fpi \gset
CREATE ROLE fc_reader;
SET ROLE fc_reader;
SELECT is((SELECT count(*) FROM walload_statements WHERE query <> '<insufficient privilege>' AND command = 'VACUUM'),
          0::bigint, 'a role without pg_read_all_stats reads no VACUUM text');
SELECT is((SELECT count(*) FROM walload_findings() WHERE finding = 'full-page images of new files'
           AND detail ~ format('pages of new files logged whole \([^)]*VACUUM FULL %s[,)]', :vf_fpi)
           AND detail !~ 'pages of new files logged whole \([^)]*VACUUM [0-9]'),
          1::bigint, 'without the text: VACUUM FULL told by its deleted files, the plain VACUUM not taken for one');
RESET ROLE;
DROP ROLE fc_reader;

-- 5. the repro again with full_page_writes = off: the index build still logs
-- every page (log_newpage forces the image), so turning it off is no fix
ALTER SYSTEM SET full_page_writes = off;
SELECT pg_reload_conf() AS reloaded \gset
SELECT pg_sleep(0.5) AS slept \gset
SELECT is(current_setting('full_page_writes'), 'off', 'full_page_writes is off');
SELECT walload_reset();
SELECT pg_current_wal_insert_lsn() AS l0 \gset
REINDEX INDEX fc_t_g;
SELECT pg_current_wal_insert_lsn() AS l1 \gset
SELECT (xact_of('REINDEX INDEX fc_t_g')).xact_id AS rx \gset
SELECT stmt_fpi('REINDEX INDEX fc_t_g') AS rx_fpi \gset
SELECT * FROM wal_images(:'l0', :'l1') \gset rx_
ALTER SYSTEM RESET full_page_writes;
SELECT pg_reload_conf() AS reloaded \gset

SELECT ok(:rx_fpi > 500 AND :rx_fpi_records::numeric BETWEEN 0.95 * :rx_fpi AND :rx_fpi,
          format('full_page_writes = off: REINDEX still wrote %s images, %s of them XLOG/FPI records',
                 :rx_fpi, :rx_fpi_records));
SELECT is((SELECT count(*) FROM walload_findings(:rx)
           WHERE detail ~ 'max_wal_size|checkpoint_timeout' OR detail ~* 'full_page_writes *= *off'),
          0::bigint, 'full_page_writes = off: still no checkpoint or full_page_writes advice for the REINDEX');

DROP TABLE fc_t, fc_u;
SELECT * FROM finish();
