/* walload--1.6--1.7.sql */

-- complain if script is sourced in psql, rather than via ALTER EXTENSION
\echo Use "ALTER EXTENSION walload UPDATE TO '1.7'" to load this file. \quit

--
-- 1.7: walload_activity says how far the running statement is and how old
-- its prediction is; walload_diagnose() reads without psql's expanded mode.
--
-- progress and progress_rows: the running statement's progress where core
-- counts it, read from core's own progress views (pg_stat_progress_copy,
-- _create_index, _vacuum and _cluster, which also serves VACUUM FULL):
-- rows so far, and blocks or bytes of the total where core knows them.
-- Like those views, they are shown only to roles that may see the backend.
-- Nothing is added to a statement's path: the view joins them when read.
--
-- prediction_behind: recorded statements that ended after the prediction
-- was made.  0 means the prediction (predicted_at) follows the last
-- statement; more means a transaction that pends thousands of files went
-- past the budget of predictions it may make (reference.md), and the
-- prediction is that many statements old.
--
-- walload_info gains commit_sync_ms and commit_cleanup_ms: the recorded
-- transactions' commit (or abort) phases added up since the reset, as
-- running totals that outlive the ring of walload_xacts, for counters
-- (an exporter's rate()).
--
-- walload_diagnose(): saving_ms comes second, evidence and hint are a few
-- words each (the numbers, the change to make), and the full texts they
-- were before are in detail, the last column.
--
DROP VIEW @extschema@.walload_activity;
DROP FUNCTION @extschema@.walload_activity();

CREATE FUNCTION @extschema@.walload_activity(
    OUT pid integer,
    OUT userid oid,
    OUT dbid oid,
    OUT xact_start timestamptz,
    OUT state_change timestamptz,
    OUT statements integer,
    OUT current_command text,
    OUT current_stmt_start timestamptz,
    OUT total_ms double precision,
    OUT copy_ms double precision,
    OUT create_ms double precision,
    OUT index_ms double precision,
    OUT dml_ms double precision,
    OUT vacuum_ms double precision,
    OUT truncate_ms double precision,
    OUT drop_ms double precision,
    OUT rewrite_ms double precision,
    OUT other_ms double precision,
    OUT rows bigint,
    OUT wal_bytes numeric,
    OUT full_scans_so_far bigint,
    OUT est_scan_ms_so_far double precision,
    OUT predicted_at timestamptz,
    OUT wal_skipped_rels integer,
    OUT pred_commit_scans integer,
    OUT pred_synced_rels integer,
    OUT pred_synced_blocks bigint,
    OUT pred_wal_logged_rels integer,
    OUT pred_wal_logged_blocks bigint,
    OUT pred_dropped_rels integer,
    OUT pred_scan_ms double precision,
    OUT pred_commit_ms double precision,
    OUT pred_abort_scans integer,
    OUT pred_abort_rels integer,
    OUT shared_buffers integer,
    OUT wal_skip_threshold_kb integer,
    OUT prediction_behind integer
)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'walload_activity'
LANGUAGE C STRICT VOLATILE PARALLEL RESTRICTED;

CREATE VIEW @extschema@.walload_activity AS
    SELECT a.*,
           CASE
             WHEN a.xact_start IS NULL THEN NULL  -- another role's load
             WHEN c.pid IS NOT NULL THEN
               format('%s: %s rows', c.command, c.tuples_processed) ||
               CASE WHEN c.bytes_total > 0
                    THEN format(', %s of %s', pg_size_pretty(c.bytes_processed), pg_size_pretty(c.bytes_total))
                    WHEN c.bytes_processed > 0
                    THEN format(', %s', pg_size_pretty(c.bytes_processed))
                    ELSE '' END
             WHEN i.pid IS NOT NULL THEN
               format('%s, %s: ', i.command, i.phase) ||
               CASE WHEN i.blocks_total > 0
                    THEN format('blocks %s of %s', i.blocks_done, i.blocks_total)
                    ELSE format('tuples %s of %s', i.tuples_done, i.tuples_total) END
             WHEN v.pid IS NOT NULL THEN
               format('VACUUM, %s: heap blocks %s of %s scanned', v.phase,
                      v.heap_blks_scanned, v.heap_blks_total)
             WHEN k.pid IS NOT NULL THEN
               format('%s, %s: heap blocks %s of %s, %s rows', k.command, k.phase,
                      k.heap_blks_scanned, k.heap_blks_total, k.heap_tuples_scanned)
           END AS progress,
           COALESCE(c.tuples_processed, i.tuples_done, k.heap_tuples_scanned) AS progress_rows
    FROM @extschema@.walload_activity() a
    LEFT JOIN pg_catalog.pg_stat_progress_copy c ON c.pid = a.pid
    LEFT JOIN pg_catalog.pg_stat_progress_create_index i ON i.pid = a.pid
    LEFT JOIN pg_catalog.pg_stat_progress_vacuum v ON v.pid = a.pid
    LEFT JOIN pg_catalog.pg_stat_progress_cluster k ON k.pid = a.pid;

GRANT SELECT ON @extschema@.walload_activity TO PUBLIC;

DROP FUNCTION @extschema@.walload_diagnose(bigint, timestamptz, timestamptz, integer, text, oid, oid);

CREATE FUNCTION @extschema@.walload_diagnose(
    xact_id bigint DEFAULT NULL,
    since timestamptz DEFAULT NULL,
    until timestamptz DEFAULT NULL,
    pid integer DEFAULT NULL,
    application_name text DEFAULT NULL,
    userid oid DEFAULT NULL,
    dbid oid DEFAULT NULL,
    OUT severity text,
    OUT saving_ms double precision,
    OUT finding text,
    OUT evidence text,
    OUT hint text,
    OUT detail text
)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'walload_diagnose'
LANGUAGE C VOLATILE PARALLEL RESTRICTED;

DROP VIEW @extschema@.walload_info;
DROP FUNCTION @extschema@.walload_info();

CREATE FUNCTION @extschema@.walload_info(
    OUT stats_reset timestamptz,
    OUT xacts_recorded bigint,
    OUT xacts_overwritten bigint,
    OUT statements_recorded bigint,
    OUT statements_overwritten bigint,
    OUT stats_entries integer,
    OUT stats_evicted bigint,
    OUT scans_flush_rel bigint,
    OUT scans_flush_pending bigint,
    OUT scans_drop_rel bigint,
    OUT scans_drop_pending bigint,
    OUT scans_db bigint,
    OUT full_scans bigint,
    OUT scanned_buffers bigint,
    OUT calibrated_at timestamptz,
    OUT scan_ns_per_buffer double precision,
    OUT shmem_bytes bigint,
    OUT lock_waits bigint,
    OUT lock_wait_ms double precision,
    OUT fsync_time_ratio double precision,
    OUT fsync_time_commits bigint,
    OUT file_commit_us double precision,
    OUT file_commit_commits bigint,
    OUT scan_time_ratio double precision,
    OUT scan_time_commits bigint,
    OUT calibration text,
    OUT calibration_ms double precision,
    OUT calibration_io_bytes bigint,
    OUT commit_sync_ms double precision,
    OUT commit_cleanup_ms double precision
)
RETURNS record
AS 'MODULE_PATHNAME', 'walload_info_1_7'
LANGUAGE C STRICT VOLATILE PARALLEL RESTRICTED;


CREATE VIEW @extschema@.walload_info AS
    SELECT * FROM @extschema@.walload_info();

GRANT SELECT ON @extschema@.walload_info TO PUBLIC;
