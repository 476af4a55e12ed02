/* walload--1.4--1.5.sql */

-- complain if script is sourced in psql, rather than via ALTER EXTENSION
\echo Use "ALTER EXTENSION walload UPDATE TO '1.5'" to load this file. \quit

--
-- 1.5: what walload.commit_strategy did, as each commit recorded it.
-- walload_xacts gains strategy_action ('kept', 'changed', 'stood aside:
-- SET LOCAL', 'stood aside: not calibrated'; NULL where it was off or had
-- nothing to decide) and strategy_changed_commits, the commits of the row
-- whose wal_skip_threshold it changed (a statement that commits inside
-- itself has several); wal_skip_threshold_kb is now the transaction's own,
-- read at its commit.  walload_info gains calibration: whether the figures
-- auto chooses by were timed since the server's last start or
-- crash-restart by the calibration worker ('done'; else 'running',
-- 'failed', or 'off' with walload.calibration = off, and auto stands
-- aside), calibration_ms (the last calibration's wall-clock time) and
-- calibration_io_bytes (what it wrote under the data directory to time the
-- storage); both NULL before the first one.
--
DROP VIEW @extschema@.walload_xacts;
DROP FUNCTION @extschema@.walload_xacts();

CREATE FUNCTION @extschema@.walload_xacts(
    OUT xact_id bigint,
    OUT pid integer,
    OUT userid oid,
    OUT dbid oid,
    OUT xact_start timestamptz,
    OUT xact_end timestamptz,
    OUT outcome text,
    OUT total_ms double precision,
    OUT commit_ms double precision,
    OUT commit_sync_ms double precision,
    OUT commit_cleanup_ms double precision,
    OUT statements integer,
    OUT inner_xacts integer,
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
    OUT shared_blks_hit bigint,
    OUT shared_blks_read bigint,
    OUT shared_blks_dirtied bigint,
    OUT shared_blks_written bigint,
    OUT wal_records bigint,
    OUT wal_fpi bigint,
    OUT wal_bytes numeric,
    OUT commit_wal_bytes numeric,
    OUT wal_skipped_rels integer,
    OUT synced_rels integer,
    OUT synced_blocks bigint,
    OUT wal_logged_rels integer,
    OUT wal_logged_blocks bigint,
    OUT dropped_rels integer,
    OUT scans_flush_rel bigint,
    OUT scans_flush_pending bigint,
    OUT scans_drop_rel bigint,
    OUT scans_drop_pending bigint,
    OUT scans_db bigint,
    OUT full_scans bigint,
    OUT scanned_buffers bigint,
    OUT est_scan_ms double precision,
    OUT wal_level text,
    OUT synchronous_commit text,
    OUT shared_buffers integer,
    OUT wal_skip_threshold_kb integer,
    OUT wal_writes bigint,
    OUT wal_syncs bigint,
    OUT wal_sync_ms double precision,
    OUT wal_fpi_bytes numeric,
    OUT pred_commit_ms double precision,
    OUT commit_strategy text,
    OUT commit_threshold_kb integer,
    OUT pred_core_commit_ms double precision,
    OUT strategy_action text,
    OUT strategy_changed_commits integer
)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'walload_xacts'
LANGUAGE C STRICT VOLATILE PARALLEL RESTRICTED;

CREATE VIEW @extschema@.walload_xacts AS
    SELECT * FROM @extschema@.walload_xacts();

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
    OUT calibration_io_bytes bigint
)
RETURNS record
AS 'MODULE_PATHNAME', 'walload_info_1_5'
LANGUAGE C STRICT VOLATILE PARALLEL RESTRICTED;

CREATE VIEW @extschema@.walload_info AS
    SELECT * FROM @extschema@.walload_info();

GRANT SELECT ON @extschema@.walload_xacts, @extschema@.walload_info TO PUBLIC;
