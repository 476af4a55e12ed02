/* walload--1.8--1.9.sql */

-- complain if script is sourced in psql, rather than via ALTER EXTENSION
\echo Use "ALTER EXTENSION walload UPDATE TO '1.9'" to load this file. \quit

--
-- 1.9: every object of the extension binds only pg_catalog's functions and
-- operators and its own.
--
-- 1.7's walload_activity called format() and pg_size_pretty() and used
-- ||, = and > unqualified.  A view binds its functions and operators when
-- it is created, with the search_path CREATE EXTENSION and ALTER EXTENSION
-- set: the extension's schema, usually public, behind pg_catalog.  Behind
-- it, but a function of that schema with the exact argument types of a
-- call (public.format(text, text, bigint)) is a closer match than
-- pg_catalog's format(text, VARIADIC "any") and wins; a database's owner
-- may create it there (CREATE on public is theirs since PostgreSQL 15),
-- and it then ran as whoever read walload_activity, superusers included.
-- The view is replaced (its columns unchanged, so views of yours over it
-- stay) with every function and operator schema-qualified, which drops
-- whatever the old definition bound.  The views over the extension's own
-- functions name them with their schema since 1.2 (walload_info 1.8,
-- walload_stats 1.8, walload_xacts 1.6, walload_statements 1.2,
-- walload_minutes 1.8); walload_report() pins its search_path.
--
-- walload_report(): the part "before a session's first transaction" is
-- never negative.  Over the per-minute sums, a window's first minute may
-- hold a session's first transaction that began before the window did;
-- the part ran from the window's start to that transaction's start,
-- backwards.  It is now none, as over walload_xacts, which leaves such a
-- transaction out.
--

CREATE OR REPLACE VIEW @extschema@.walload_activity AS
    SELECT a.*,
           CASE
             WHEN a.xact_start IS NULL THEN NULL  -- another role's load
             WHEN c.pid IS NOT NULL THEN
               pg_catalog.format('%s: %s rows', c.command, c.tuples_processed) OPERATOR(pg_catalog.||)
               CASE WHEN c.bytes_total OPERATOR(pg_catalog.>) 0
                    THEN pg_catalog.format(', %s of %s', pg_catalog.pg_size_pretty(c.bytes_processed),
                                           pg_catalog.pg_size_pretty(c.bytes_total))
                    WHEN c.bytes_processed OPERATOR(pg_catalog.>) 0
                    THEN pg_catalog.format(', %s', pg_catalog.pg_size_pretty(c.bytes_processed))
                    ELSE '' END
             WHEN i.pid IS NOT NULL THEN
               pg_catalog.format('%s, %s: ', i.command, i.phase) OPERATOR(pg_catalog.||)
               CASE WHEN i.blocks_total OPERATOR(pg_catalog.>) 0
                    THEN pg_catalog.format('blocks %s of %s', i.blocks_done, i.blocks_total)
                    ELSE pg_catalog.format('tuples %s of %s', i.tuples_done, i.tuples_total) END
             WHEN v.pid IS NOT NULL THEN
               pg_catalog.format('VACUUM, %s: heap blocks %s of %s scanned', v.phase,
                                 v.heap_blks_scanned, v.heap_blks_total)
             WHEN k.pid IS NOT NULL THEN
               pg_catalog.format('%s, %s: heap blocks %s of %s, %s rows', k.command, k.phase,
                                 k.heap_blks_scanned, k.heap_blks_total, k.heap_tuples_scanned)
           END AS progress,
           COALESCE(c.tuples_processed, i.tuples_done, k.heap_tuples_scanned) AS progress_rows
    FROM @extschema@.walload_activity() a
    LEFT JOIN pg_catalog.pg_stat_progress_copy c ON c.pid OPERATOR(pg_catalog.=) a.pid
    LEFT JOIN pg_catalog.pg_stat_progress_create_index i ON i.pid OPERATOR(pg_catalog.=) a.pid
    LEFT JOIN pg_catalog.pg_stat_progress_vacuum v ON v.pid OPERATOR(pg_catalog.=) a.pid
    LEFT JOIN pg_catalog.pg_stat_progress_cluster k ON k.pid OPERATOR(pg_catalog.=) a.pid;

CREATE OR REPLACE FUNCTION @extschema@.walload_report(
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
    oldest_minute timestamptz;
    info record;
    by_minute boolean;
BEGIN
    IF since IS NOT NULL AND until IS NOT NULL AND since > until THEN
        RAISE EXCEPTION 'since must not be later than until'
            USING ERRCODE = 'invalid_parameter_value';
    END IF;
    SELECT i.xacts_overwritten, i.minutes_overwritten INTO info FROM @extschema@.walload_info i;
    SELECT min(x.xact_start) INTO oldest FROM @extschema@.walload_xacts x;
    -- the ring holds the whole window, or the sums are read
    by_minute := info.xacts_overwritten > 0 AND (since IS NULL OR oldest IS NULL OR since < oldest);
    IF by_minute THEN
        SELECT min(m.minute) INTO oldest_minute FROM @extschema@.walload_minutes m;
        IF info.minutes_overwritten > 0 AND
           (since IS NULL OR oldest_minute IS NULL OR since < oldest_minute + interval '1 minute') THEN
            RAISE WARNING 'the report lacks the transactions of % per-minute sums, which walload''s ring no longer holds',
                info.minutes_overwritten
                USING DETAIL = format('The oldest minute kept began at %s.', coalesce(oldest_minute::text, 'none')),
                      HINT = 'Raise walload.max_minutes (a restart) to keep a whole load, or report a window that begins later.';
        END IF;
    END IF;

    RETURN QUERY
    WITH x AS (
        -- one row per transaction, or per session's minute: the same sums
        SELECT x.pid, x.backend_start, x.xact_start AS first_start, x.xact_end AS last_end,
               x.first_in_session, 1::bigint AS xacts, x.total_ms, x.commit_sync_ms, x.commit_cleanup_ms,
               x.copy_ms, x.create_ms, x.index_ms, x.dml_ms, x.vacuum_ms, x.truncate_ms, x.drop_ms,
               x.rewrite_ms, x.other_ms,
               (x.copy_ms > 0)::int::bigint AS copy_xacts, (x.create_ms > 0)::int::bigint AS create_xacts,
               (x.index_ms > 0)::int::bigint AS index_xacts, (x.dml_ms > 0)::int::bigint AS dml_xacts,
               (x.vacuum_ms > 0)::int::bigint AS vacuum_xacts, (x.truncate_ms > 0)::int::bigint AS truncate_xacts,
               (x.drop_ms > 0)::int::bigint AS drop_xacts, (x.rewrite_ms > 0)::int::bigint AS rewrite_xacts,
               (x.other_ms > 0)::int::bigint AS other_xacts,
               (x.commit_sync_ms > 0)::int::bigint AS commit_sync_xacts,
               (x.commit_cleanup_ms > 0)::int::bigint AS commit_cleanup_xacts,
               x.synced_rels::bigint, x.wal_logged_rels::bigint, x.dropped_rels::bigint,
               x.scans_flush_pending, x.scans_drop_pending
        FROM @extschema@.walload_xacts x
        WHERE NOT by_minute
          AND (walload_report.since IS NULL OR x.xact_start >= walload_report.since)
          AND (walload_report.until IS NULL OR x.xact_end <= walload_report.until)
          AND (walload_report.pid IS NULL OR x.pid = walload_report.pid)
          AND (walload_report.application_name IS NULL
               OR x.application_name = walload_report.application_name)
          AND (walload_report.userid IS NULL OR x.userid = walload_report.userid)
          AND (walload_report.dbid IS NULL OR x.dbid = walload_report.dbid)
        UNION ALL
        SELECT m.pid, m.backend_start, m.first_start, m.last_end,
               m.first_in_session, m.xacts, m.total_ms, m.commit_sync_ms, m.commit_cleanup_ms,
               m.copy_ms, m.create_ms, m.index_ms, m.dml_ms, m.vacuum_ms, m.truncate_ms, m.drop_ms,
               m.rewrite_ms, m.other_ms,
               m.copy_xacts, m.create_xacts, m.index_xacts, m.dml_xacts, m.vacuum_xacts,
               m.truncate_xacts, m.drop_xacts, m.rewrite_xacts, m.other_xacts,
               m.commit_sync_xacts, m.commit_cleanup_xacts,
               m.synced_rels, m.wal_logged_rels, m.dropped_rels,
               m.scans_flush_pending, m.scans_drop_pending
        FROM @extschema@.walload_minutes m
        WHERE by_minute
          AND (walload_report.since IS NULL OR m.minute + interval '1 minute' > walload_report.since)
          AND (walload_report.until IS NULL OR m.minute <= walload_report.until)
          AND (walload_report.pid IS NULL OR m.pid = walload_report.pid)
          AND (walload_report.application_name IS NULL
               OR m.application_name = walload_report.application_name)
          AND (walload_report.userid IS NULL OR m.userid = walload_report.userid)
          AND (walload_report.dbid IS NULL OR m.dbid = walload_report.dbid)
    ),
    sessions AS (
        SELECT x.backend_start, min(x.first_start) AS first_start, max(x.last_end) AS last_end,
               sum(x.total_ms) AS in_xacts_ms, bool_or(x.first_in_session) AS has_first
        FROM x GROUP BY x.pid, x.backend_start
    ),
    backends AS (
        SELECT extract(epoch FROM s.last_end - s.first_start) * 1000 AS span_ms, s.in_xacts_ms,
               -- from the session's start, or the window's, to its first
               -- transaction; none if that transaction began before the
               -- window did (only the per-minute sums hold such a one)
               CASE WHEN s.has_first
                    THEN greatest(extract(epoch FROM s.first_start -
                                          greatest(s.backend_start, coalesce(walload_report.since, s.backend_start))) * 1000,
                                  0)
                    ELSE 0 END AS before_ms
        FROM sessions s
    ),
    parts(part, ms, transactions, detail) AS (
        SELECT 'COPY', sum(x.copy_ms), sum(x.copy_xacts)::bigint, NULL FROM x
        UNION ALL
        SELECT 'CREATE TABLE, TABLE AS, MATERIALIZED VIEW, DATABASE', sum(x.create_ms),
               sum(x.create_xacts)::bigint, NULL FROM x
        UNION ALL
        SELECT 'CREATE INDEX, REINDEX', sum(x.index_ms), sum(x.index_xacts)::bigint, NULL FROM x
        UNION ALL
        SELECT 'INSERT, UPDATE, DELETE, MERGE, SELECT', sum(x.dml_ms), sum(x.dml_xacts)::bigint, NULL FROM x
        UNION ALL
        SELECT 'VACUUM, ANALYZE', sum(x.vacuum_ms), sum(x.vacuum_xacts)::bigint, NULL FROM x
        UNION ALL
        SELECT 'TRUNCATE', sum(x.truncate_ms), sum(x.truncate_xacts)::bigint, NULL FROM x
        UNION ALL
        SELECT 'DROP', sum(x.drop_ms), sum(x.drop_xacts)::bigint, NULL FROM x
        UNION ALL
        SELECT 'CLUSTER, REFRESH, ALTER TABLE', sum(x.rewrite_ms), sum(x.rewrite_xacts)::bigint, NULL FROM x
        UNION ALL
        SELECT 'other statements', sum(x.other_ms), sum(x.other_xacts)::bigint, NULL FROM x
        UNION ALL
        SELECT 'commit: syncs, commit record, WAL flush', sum(x.commit_sync_ms),
               sum(x.commit_sync_xacts)::bigint,
               format('files synced: %s, WAL-logged whole: %s; walks of shared buffers: %s',
                      sum(x.synced_rels), sum(x.wal_logged_rels), sum(x.scans_flush_pending)) FROM x
        UNION ALL
        SELECT 'commit or abort: file deletion, cleanup', sum(x.commit_cleanup_ms),
               sum(x.commit_cleanup_xacts)::bigint,
               format('files deleted: %s; walks of shared buffers: %s',
                      sum(x.dropped_rels), sum(x.scans_drop_pending)) FROM x
        UNION ALL
        SELECT 'in transactions, outside recorded statements (client, network)',
               sum(x.total_ms - x.commit_sync_ms - x.commit_cleanup_ms - x.copy_ms - x.create_ms
                   - x.index_ms - x.dml_ms - x.vacuum_ms - x.truncate_ms - x.drop_ms - x.rewrite_ms
                   - x.other_ms),
               sum(x.xacts)::bigint, NULL FROM x
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
