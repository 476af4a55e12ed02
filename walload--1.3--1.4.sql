/* walload--1.3--1.4.sql */

-- complain if script is sourced in psql, rather than via ALTER EXTENSION
\echo Use "ALTER EXTENSION walload UPDATE TO '1.4'" to load this file. \quit

--
-- 1.4: walload_info shows what the server's own commits taught walload of
-- the storage: fsync_time_ratio, the fsyncs of synced files at recent
-- commits over what the calibration at server start predicts for them (1:
-- as timed), and fsync_time_commits, how many commits taught it; and
-- file_commit_us, core's work at commit per fsynced or WAL-logged file that
-- nothing times, learned from commits of many small new files, with
-- file_commit_commits; and scan_time_ratio, the walks of shared_buffers at
-- recent commits over the calibration's estimate of them, with
-- scan_time_commits.  The commit predictions (walload_activity,
-- pred_commit_ms) use all three, est_scan_ms the last.
--
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
    OUT scan_time_commits bigint
)
RETURNS record
AS 'MODULE_PATHNAME', 'walload_info_1_4'
LANGUAGE C STRICT VOLATILE PARALLEL RESTRICTED;

CREATE VIEW @extschema@.walload_info AS
    SELECT * FROM @extschema@.walload_info();

GRANT SELECT ON @extschema@.walload_info TO PUBLIC;
