/* walload--1.2.sql */

-- complain if script is sourced in psql, rather than via CREATE EXTENSION
\echo Use "CREATE EXTENSION walload" to load this file. \quit

-- Every object below is created in the extension's schema; every reference
-- to a core object is schema-qualified with pg_catalog, so a hostile
-- search_path cannot capture anything at creation or at run time.

--
-- Transactions
--
CREATE FUNCTION walload_xacts(
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

CREATE VIEW walload_xacts AS
    SELECT * FROM @extschema@.walload_xacts();

--
-- Statements of the recorded transactions
--
CREATE FUNCTION walload_statements(
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

CREATE VIEW walload_statements AS
    SELECT * FROM @extschema@.walload_statements();

--
-- Aggregates per (userid, dbid, queryid, toplevel, command)
--
CREATE FUNCTION walload_stats(
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

CREATE VIEW walload_stats AS
    SELECT * FROM @extschema@.walload_stats();

--
-- Totals since the last reset, and the state of the store
--
CREATE FUNCTION walload_info(
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
    OUT lock_wait_ms double precision
)
RETURNS record
AS 'MODULE_PATHNAME', 'walload_info_1_1'
LANGUAGE C STRICT VOLATILE PARALLEL RESTRICTED;

CREATE VIEW walload_info AS
    SELECT * FROM @extschema@.walload_info();

CREATE FUNCTION walload_reset()
RETURNS void
AS 'MODULE_PATHNAME', 'walload_reset'
LANGUAGE C STRICT VOLATILE PARALLEL RESTRICTED;

--
-- Measure what one read-only pass over all buffer headers costs here
--
CREATE FUNCTION walload_calibrate(
    passes integer DEFAULT 5,
    OUT passes_run integer,
    OUT buffers integer,
    OUT ms_per_scan double precision,
    OUT ns_per_buffer double precision
)
RETURNS record
AS 'MODULE_PATHNAME', 'walload_calibrate'
LANGUAGE C VOLATILE PARALLEL RESTRICTED;

--
-- Diagnosis: findings with evidence and what to change
--
CREATE FUNCTION walload_diagnose(
    xact_id bigint DEFAULT NULL,
    OUT severity text,
    OUT finding text,
    OUT evidence text,
    OUT hint text
)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'walload_diagnose'
LANGUAGE C VOLATILE PARALLEL RESTRICTED;

-- Reading is for everyone (rows of other users are masked in C unless the
-- caller has pg_read_all_stats); changing state is not.
REVOKE ALL ON FUNCTION walload_reset() FROM PUBLIC;
REVOKE ALL ON FUNCTION walload_calibrate(integer) FROM PUBLIC;
GRANT SELECT ON walload_xacts, walload_statements, walload_stats, walload_info TO PUBLIC;
