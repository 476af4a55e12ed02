/* walload--1.1--1.2.sql */

-- complain if script is sourced in psql, rather than via ALTER EXTENSION
\echo Use "ALTER EXTENSION walload UPDATE TO '1.2'" to load this file. \quit

--
-- 1.2: walload_xacts, walload_statements and walload_stats gain
-- wal_fpi_bytes, the bytes of full-page images in the WAL written (NULL
-- before PostgreSQL 19, which counts them).  Like pg_stat_statements'
-- update scripts, each view and its function are dropped and recreated.
--
DROP VIEW @extschema@.walload_xacts;
DROP FUNCTION @extschema@.walload_xacts();
DROP VIEW @extschema@.walload_statements;
DROP FUNCTION @extschema@.walload_statements();
DROP VIEW @extschema@.walload_stats;
DROP FUNCTION @extschema@.walload_stats();

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
    OUT wal_fpi_bytes numeric
)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'walload_xacts'
LANGUAGE C STRICT VOLATILE PARALLEL RESTRICTED;

CREATE VIEW @extschema@.walload_xacts AS
    SELECT * FROM @extschema@.walload_xacts();

CREATE FUNCTION @extschema@.walload_statements(
    OUT xact_id bigint,
    OUT stmt_no integer,
    OUT pid integer,
    OUT userid oid,
    OUT dbid oid,
    OUT queryid bigint,
    OUT toplevel boolean,
    OUT nest_level integer,
    OUT command text,
    OUT status text,
    OUT stmt_start timestamptz,
    OUT elapsed_ms double precision,
    OUT rows bigint,
    OUT shared_blks_hit bigint,
    OUT shared_blks_read bigint,
    OUT shared_blks_dirtied bigint,
    OUT shared_blks_written bigint,
    OUT wal_records bigint,
    OUT wal_fpi bigint,
    OUT wal_bytes numeric,
    OUT wal_skipped boolean,
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
    OUT vacuum_ring_kb integer,
    OUT vacuum_pages bigint,
    OUT vacuum_pages_removed bigint,
    OUT wal_fpi_bytes numeric
)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'walload_statements'
LANGUAGE C STRICT VOLATILE PARALLEL RESTRICTED;

CREATE VIEW @extschema@.walload_statements AS
    SELECT * FROM @extschema@.walload_statements();

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
    OUT wal_fpi_bytes numeric
)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'walload_stats'
LANGUAGE C STRICT VOLATILE PARALLEL RESTRICTED;

CREATE VIEW @extschema@.walload_stats AS
    SELECT * FROM @extschema@.walload_stats();

GRANT SELECT ON @extschema@.walload_xacts, @extschema@.walload_statements, @extschema@.walload_stats TO PUBLIC;
