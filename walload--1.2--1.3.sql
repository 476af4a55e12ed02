/* walload--1.2--1.3.sql */

-- complain if script is sourced in psql, rather than via ALTER EXTENSION
\echo Use "ALTER EXTENSION walload UPDATE TO '1.3'" to load this file. \quit

--
-- 1.3: the running loads.  walload_activity shows every backend whose open
-- transaction did recorded work, with what its COMMIT (and ROLLBACK) would
-- do if issued now; walload_diagnose_backend(pid) explains it and prices
-- the choices.  walload_xacts gains pred_commit_ms, the commit phase
-- predicted at PRE_COMMIT, beside commit_ms; and what
-- walload.commit_strategy did at the commit: the setting, the
-- wal_skip_threshold core used, and the commit predicted as core alone
-- would have done it.
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
    OUT pred_core_commit_ms double precision
)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'walload_xacts'
LANGUAGE C STRICT VOLATILE PARALLEL RESTRICTED;

CREATE VIEW @extschema@.walload_xacts AS
    SELECT * FROM @extschema@.walload_xacts();

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
    OUT wal_skip_threshold_kb integer
)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'walload_activity'
LANGUAGE C STRICT VOLATILE PARALLEL RESTRICTED;

CREATE VIEW @extschema@.walload_activity AS
    SELECT * FROM @extschema@.walload_activity();

CREATE FUNCTION @extschema@.walload_diagnose_backend(
    pid integer,
    OUT severity text,
    OUT finding text,
    OUT evidence text,
    OUT hint text
)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'walload_diagnose_backend'
LANGUAGE C VOLATILE PARALLEL RESTRICTED;

GRANT SELECT ON @extschema@.walload_xacts, @extschema@.walload_activity TO PUBLIC;
