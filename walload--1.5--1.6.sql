/* walload--1.5--1.6.sql */

-- complain if script is sourced in psql, rather than via ALTER EXTENSION
\echo Use "ALTER EXTENSION walload UPDATE TO '1.6'" to load this file. \quit

--
-- 1.6: walload_xacts gains the session of each transaction: its backend's
-- start (as pg_stat_activity.backend_start, and like it shown only to
-- roles that may see that backend), whether it is the first transaction
-- the session recorded, and its application_name at the transaction's end.
--
-- walload_report(), where a load's time went.  The load is the recorded
-- transactions that began at or after since and ended by until, of a
-- backend (pid), an application_name, a role (userid) and a database
-- (dbid), each filter optional.  Its time is, per session, from its first
-- transaction's start (from the session's start, where its first recorded
-- transaction is in the load) to its last one's end, summed over the
-- sessions.  The parts add up to that time exactly, largest first: the
-- top-level statements by kind, the commit's two phases, the time inside
-- transactions outside recorded statements, the time between transactions,
-- and the time before a session's first transaction.  All are measured (no
-- estimate among them); share is of the load's time.  Read from
-- walload_xacts, so it sees what that view shows, and only what its ring
-- still holds: a window that begins before the oldest transaction kept is
-- reported with a warning.
--
-- walload_diagnose() takes the same filters and ranks its findings:
-- saving_ms is what following a finding's hint would save, as its what-if
-- prices it (NULL for a fact, or advice no what-if prices), largest first;
-- a saving of at least a tenth of the load's time makes a finding a
-- warning.
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
    OUT strategy_changed_commits integer,
    OUT backend_start timestamptz,
    OUT first_in_session boolean,
    OUT application_name text
)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'walload_xacts'
LANGUAGE C STRICT VOLATILE PARALLEL RESTRICTED;

CREATE VIEW @extschema@.walload_xacts AS
    SELECT * FROM @extschema@.walload_xacts();

GRANT SELECT ON @extschema@.walload_xacts TO PUBLIC;

DROP FUNCTION @extschema@.walload_diagnose(bigint);

CREATE FUNCTION @extschema@.walload_diagnose(
    xact_id bigint DEFAULT NULL,
    since timestamptz DEFAULT NULL,
    until timestamptz DEFAULT NULL,
    pid integer DEFAULT NULL,
    application_name text DEFAULT NULL,
    userid oid DEFAULT NULL,
    dbid oid DEFAULT NULL,
    OUT severity text,
    OUT finding text,
    OUT evidence text,
    OUT hint text,
    OUT saving_ms double precision
)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'walload_diagnose'
LANGUAGE C VOLATILE PARALLEL RESTRICTED;

CREATE FUNCTION @extschema@.walload_report(
    since timestamptz DEFAULT NULL,
    until timestamptz DEFAULT NULL,
    pid integer DEFAULT NULL,
    application_name text DEFAULT NULL,
    userid oid DEFAULT NULL,
    dbid oid DEFAULT NULL,
    OUT part text,
    OUT ms double precision,
    OUT share double precision,
    OUT transactions bigint,
    OUT detail text)
RETURNS SETOF record
LANGUAGE plpgsql STABLE
SET search_path = pg_catalog, pg_temp
AS $report$
DECLARE
    oldest timestamptz;
    overwritten bigint;
BEGIN
    IF since IS NOT NULL AND until IS NOT NULL AND since > until THEN
        RAISE EXCEPTION 'since must not be later than until'
            USING ERRCODE = 'invalid_parameter_value';
    END IF;
    SELECT min(x.xact_start) INTO oldest FROM @extschema@.walload_xacts x;
    SELECT i.xacts_overwritten INTO overwritten FROM @extschema@.walload_info i;
    IF overwritten > 0 AND (since IS NULL OR oldest IS NULL OR since < oldest) THEN
        RAISE WARNING 'the report lacks the % oldest transactions, which walload''s ring no longer holds',
            overwritten
            USING DETAIL = format('The oldest transaction kept began at %s.', coalesce(oldest::text, 'none')),
                  HINT = 'Raise walload.max_xacts (a restart) to keep a whole load, or report a window that begins later.';
    END IF;

    RETURN QUERY
    WITH x AS (
        SELECT * FROM @extschema@.walload_xacts x
        WHERE (walload_report.since IS NULL OR x.xact_start >= walload_report.since)
          AND (walload_report.until IS NULL OR x.xact_end <= walload_report.until)
          AND (walload_report.pid IS NULL OR x.pid = walload_report.pid)
          AND (walload_report.application_name IS NULL
               OR x.application_name = walload_report.application_name)
          AND (walload_report.userid IS NULL OR x.userid = walload_report.userid)
          AND (walload_report.dbid IS NULL OR x.dbid = walload_report.dbid)
    ),
    sessions AS (
        SELECT x.backend_start, min(x.xact_start) AS first_start, max(x.xact_end) AS last_end,
               sum(x.total_ms) AS in_xacts_ms, bool_or(x.first_in_session) AS has_first
        FROM x GROUP BY x.pid, x.backend_start
    ),
    backends AS (
        SELECT extract(epoch FROM s.last_end - s.first_start) * 1000 AS span_ms, s.in_xacts_ms,
               CASE WHEN s.has_first
                    THEN extract(epoch FROM s.first_start -
                                 greatest(s.backend_start, coalesce(walload_report.since, s.backend_start))) * 1000
                    ELSE 0 END AS before_ms
        FROM sessions s
    ),
    parts(part, ms, transactions, detail) AS (
        SELECT 'COPY', sum(x.copy_ms), count(*) FILTER (WHERE x.copy_ms > 0), NULL FROM x
        UNION ALL
        SELECT 'CREATE TABLE, TABLE AS, MATERIALIZED VIEW, DATABASE', sum(x.create_ms),
               count(*) FILTER (WHERE x.create_ms > 0), NULL FROM x
        UNION ALL
        SELECT 'CREATE INDEX, REINDEX', sum(x.index_ms), count(*) FILTER (WHERE x.index_ms > 0), NULL FROM x
        UNION ALL
        SELECT 'INSERT, UPDATE, DELETE, MERGE, SELECT', sum(x.dml_ms), count(*) FILTER (WHERE x.dml_ms > 0), NULL FROM x
        UNION ALL
        SELECT 'VACUUM, ANALYZE', sum(x.vacuum_ms), count(*) FILTER (WHERE x.vacuum_ms > 0), NULL FROM x
        UNION ALL
        SELECT 'TRUNCATE', sum(x.truncate_ms), count(*) FILTER (WHERE x.truncate_ms > 0), NULL FROM x
        UNION ALL
        SELECT 'DROP', sum(x.drop_ms), count(*) FILTER (WHERE x.drop_ms > 0), NULL FROM x
        UNION ALL
        SELECT 'CLUSTER, REFRESH, ALTER TABLE', sum(x.rewrite_ms), count(*) FILTER (WHERE x.rewrite_ms > 0),
               NULL FROM x
        UNION ALL
        SELECT 'other statements', sum(x.other_ms), count(*) FILTER (WHERE x.other_ms > 0), NULL FROM x
        UNION ALL
        SELECT 'commit: syncs, commit record, WAL flush', sum(x.commit_sync_ms),
               count(*) FILTER (WHERE x.commit_sync_ms > 0),
               format('files synced: %s, WAL-logged whole: %s; walks of shared buffers: %s',
                      sum(x.synced_rels), sum(x.wal_logged_rels), sum(x.scans_flush_pending)) FROM x
        UNION ALL
        SELECT 'commit or abort: file deletion, cleanup', sum(x.commit_cleanup_ms),
               count(*) FILTER (WHERE x.commit_cleanup_ms > 0),
               format('files deleted: %s; walks of shared buffers: %s',
                      sum(x.dropped_rels), sum(x.scans_drop_pending)) FROM x
        UNION ALL
        SELECT 'in transactions, outside recorded statements (client, network)',
               sum(x.total_ms - x.commit_ms - x.copy_ms - x.create_ms - x.index_ms - x.dml_ms - x.vacuum_ms
                   - x.truncate_ms - x.drop_ms - x.rewrite_ms - x.other_ms),
               count(*), NULL FROM x
        UNION ALL
        SELECT 'between transactions (client, or transactions not recorded)',
               sum(b.span_ms - b.in_xacts_ms), NULL::bigint,
               format('sessions: %s', count(*)) FROM backends b
        UNION ALL
        SELECT 'before a session''s first transaction (connection, authentication, client)',
               sum(b.before_ms), NULL::bigint,
               format('sessions that began in the load: %s', count(*) FILTER (WHERE b.before_ms > 0))
        FROM backends b
    ),
    load AS (SELECT sum(b.span_ms + b.before_ms) AS load_ms FROM backends b)
    SELECT p.part, p.ms::double precision,
           (CASE WHEN l.load_ms > 0 THEN p.ms / l.load_ms END)::double precision,
           p.transactions, p.detail
    FROM parts p, load l
    WHERE p.ms IS NOT NULL AND (p.ms <> 0 OR p.part LIKE 'between%')
    ORDER BY p.ms DESC, p.part;
END
$report$;
