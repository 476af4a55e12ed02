/* walload--1.7--1.8.sql */

-- complain if script is sourced in psql, rather than via ALTER EXTENSION
\echo Use "ALTER EXTENSION walload UPDATE TO '1.8'" to load this file. \quit

--
-- 1.8: walload_stats gains commit_ms, the measured commit (or abort) phases
-- of the statements' transactions charged to the statements whose files
-- those phases synced, WAL-logged or deleted: a split of measured time, by
-- the rule of docs/reference.md (walload_stats).  Like pg_stat_statements'
-- update scripts, the view and its function are dropped and recreated.
--
DROP VIEW @extschema@.walload_stats;
DROP FUNCTION @extschema@.walload_stats();

CREATE FUNCTION @extschema@.walload_stats(
    OUT userid oid,
    OUT dbid oid,
    OUT queryid bigint,
    OUT toplevel boolean,
    OUT command text,
    OUT calls bigint,
    OUT errors bigint,
    OUT total_ms double precision,
    OUT min_ms double precision,
    OUT max_ms double precision,
    OUT mean_ms double precision,
    OUT stddev_ms double precision,
    OUT rows bigint,
    OUT shared_blks_hit bigint,
    OUT shared_blks_read bigint,
    OUT shared_blks_dirtied bigint,
    OUT shared_blks_written bigint,
    OUT wal_records bigint,
    OUT wal_fpi bigint,
    OUT wal_bytes numeric,
    OUT wal_skipped_calls bigint,
    OUT scans_flush_rel bigint,
    OUT scans_flush_pending bigint,
    OUT scans_drop_rel bigint,
    OUT scans_drop_pending bigint,
    OUT scans_db bigint,
    OUT full_scans bigint,
    OUT scanned_buffers bigint,
    OUT est_scan_ms double precision,
    OUT query text,
    OUT wal_writes bigint,
    OUT wal_syncs bigint,
    OUT wal_sync_ms double precision,
    OUT wal_fpi_bytes numeric,
    OUT commit_ms double precision
)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'walload_stats'
LANGUAGE C STRICT VOLATILE PARALLEL RESTRICTED;

CREATE VIEW @extschema@.walload_stats AS
    SELECT * FROM @extschema@.walload_stats();

GRANT SELECT ON @extschema@.walload_stats TO PUBLIC;
