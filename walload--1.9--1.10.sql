/* walload--1.9--1.10.sql */

-- complain if script is sourced in psql, rather than via ALTER EXTENSION
\echo Use "ALTER EXTENSION walload UPDATE TO '1.10'" to load this file. \quit

--
-- 1.10: (sections below, one per change)
--

-- metrics: counters an exporter can trust (issue 53)
--
-- walload_command_totals: per database, role and command kind (the command
-- tag, never the query text), totals that only rise until walload_reset(),
-- in a fixed table of 1,024 entries that nothing evicts (a kind that finds
-- it full is counted under command 'other'; see src/metrics.c).
-- walload_histograms: cumulative histograms of a recorded transaction's
-- commit (or abort) phase and of its walks' estimated time.  Neither is
-- saved across restarts: stats_reset says since when they count.
-- walload_build_info: the library's version and the extension's;
-- walload_info gains library_version.  No column of the three views is
-- NULL.  Like walload_stats, no query text: every row to everyone.

CREATE FUNCTION @extschema@.walload_command_totals(
    OUT datname name,
    OUT rolname name,
    OUT command text,
    OUT calls bigint,
    OUT total_seconds double precision,
    OUT commit_seconds double precision,
    OUT rows bigint,
    OUT walks bigint,
    OUT wal_bytes numeric,
    OUT stats_reset timestamptz
)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'walload_command_totals'
LANGUAGE C STRICT VOLATILE PARALLEL RESTRICTED;

CREATE VIEW @extschema@.walload_command_totals AS
    SELECT * FROM @extschema@.walload_command_totals();

GRANT SELECT ON @extschema@.walload_command_totals TO PUBLIC;

CREATE FUNCTION @extschema@.walload_histograms(
    OUT metric text,
    OUT le double precision,
    OUT count bigint,
    OUT sum_seconds double precision,
    OUT max_seconds double precision,
    OUT stats_reset timestamptz
)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'walload_histograms'
LANGUAGE C STRICT VOLATILE PARALLEL RESTRICTED;

CREATE VIEW @extschema@.walload_histograms AS
    SELECT * FROM @extschema@.walload_histograms();

GRANT SELECT ON @extschema@.walload_histograms TO PUBLIC;

CREATE FUNCTION @extschema@.walload_library_version()
RETURNS text
AS 'MODULE_PATHNAME', 'walload_library_version'
LANGUAGE C STRICT VOLATILE PARALLEL SAFE;

CREATE FUNCTION @extschema@.walload_build_info(
    OUT version text,
    OUT sql_version text)
RETURNS record
LANGUAGE sql STABLE
SET search_path = pg_catalog, pg_temp
AS $build_info$
    SELECT @extschema@.walload_library_version(),
           COALESCE((SELECT e.extversion
                     FROM pg_catalog.pg_extension e
                     WHERE e.extname OPERATOR(pg_catalog.=) 'walload'), '')
$build_info$;

CREATE VIEW @extschema@.walload_build_info AS
    SELECT * FROM @extschema@.walload_build_info();

GRANT SELECT ON @extschema@.walload_build_info TO PUBLIC;

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
    OUT commit_cleanup_ms double precision,
    OUT minutes_recorded bigint,
    OUT minutes_overwritten bigint,
    OUT library_version text
)
RETURNS record
AS 'MODULE_PATHNAME', 'walload_info_1_10'
LANGUAGE C STRICT VOLATILE PARALLEL RESTRICTED;

CREATE VIEW @extschema@.walload_info AS
    SELECT * FROM @extschema@.walload_info();

GRANT SELECT ON @extschema@.walload_info TO PUBLIC;
