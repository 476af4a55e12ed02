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

-- standby: the commit phase split (the wait for synchronous standbys); auto checks itself
--
-- Issue 51, items 4 and 6.
-- walload_xacts gains commit_wal_ms (the last commit's local WAL flush:
-- measured with track_wal_io_timing on 15-17, else priced),
-- commit_standby_ms (its wait for synchronous standbys, derived: the sync
-- part less its local parts) and commit_standby_wait (whether core waited
-- for a standby at it); walload_minutes sums the waits
-- (commit_standby_ms, commit_standby_xacts); walload_report() (its 1.10
-- definition: the advbench section below) shows them as their own part,
-- 'commit: waiting for sync standbys', no longer in 'commit: syncs,
-- record, WAL flush'.  walload_info gains
-- auto_aside_commits and auto_aside_reason: auto commits that stood aside
-- because the backend's recent auto commits took far longer than predicted.
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
    OUT application_name text,
    OUT commit_wal_ms double precision,
    OUT commit_standby_ms double precision,
    OUT commit_standby_wait boolean
)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'walload_xacts'
LANGUAGE C STRICT VOLATILE PARALLEL RESTRICTED;

CREATE VIEW @extschema@.walload_xacts AS
    SELECT * FROM @extschema@.walload_xacts();

GRANT SELECT ON @extschema@.walload_xacts TO PUBLIC;

DROP VIEW @extschema@.walload_minutes;
DROP FUNCTION @extschema@.walload_minutes();

CREATE FUNCTION @extschema@.walload_minutes(
    OUT pid integer,
    OUT userid oid,
    OUT dbid oid,
    OUT backend_start timestamptz,
    OUT first_in_session boolean,
    OUT application_name text,
    OUT minute timestamptz,
    OUT first_start timestamptz,
    OUT last_end timestamptz,
    OUT xacts bigint,
    OUT total_ms double precision,
    OUT commit_sync_ms double precision,
    OUT commit_cleanup_ms double precision,
    OUT copy_ms double precision,
    OUT create_ms double precision,
    OUT index_ms double precision,
    OUT dml_ms double precision,
    OUT vacuum_ms double precision,
    OUT truncate_ms double precision,
    OUT drop_ms double precision,
    OUT rewrite_ms double precision,
    OUT other_ms double precision,
    OUT copy_xacts bigint,
    OUT create_xacts bigint,
    OUT index_xacts bigint,
    OUT dml_xacts bigint,
    OUT vacuum_xacts bigint,
    OUT truncate_xacts bigint,
    OUT drop_xacts bigint,
    OUT rewrite_xacts bigint,
    OUT other_xacts bigint,
    OUT commit_sync_xacts bigint,
    OUT commit_cleanup_xacts bigint,
    OUT synced_rels bigint,
    OUT wal_logged_rels bigint,
    OUT dropped_rels bigint,
    OUT scans_flush_pending bigint,
    OUT scans_drop_pending bigint,
    OUT commit_standby_ms double precision,
    OUT commit_standby_xacts bigint
)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'walload_minutes'
LANGUAGE C STRICT VOLATILE PARALLEL RESTRICTED;

CREATE VIEW @extschema@.walload_minutes AS
    SELECT * FROM @extschema@.walload_minutes();

GRANT SELECT ON @extschema@.walload_minutes TO PUBLIC;

-- walload_info, for both sections above: auto_aside_commits and
-- auto_aside_reason (standby), then library_version (metrics).

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
    OUT auto_aside_commits bigint,
    OUT auto_aside_reason text,
    OUT library_version text
)
RETURNS record
AS 'MODULE_PATHNAME', 'walload_info_1_10'
LANGUAGE C STRICT VOLATILE PARALLEL RESTRICTED;

CREATE VIEW @extschema@.walload_info AS
    SELECT * FROM @extschema@.walload_info();

GRANT SELECT ON @extschema@.walload_info TO PUBLIC;

-- whatif: walload_diagnose() says what to change as data, and rounds for reading
--
-- Every saving comes from the what-if engine (whatif.c).  Each finding with
-- a saving names one change: setting and value (a GUC and its value as SET
-- or ALTER SYSTEM writes it) or shape (one_transaction, batch_commits,
-- indexes_after_load, no_truncate_reload, single_transaction_restore,
-- drop_in_one_transaction).  saving_ms is numeric, 1 decimal.  The first
-- row is the verdict in words.  (backend_type, the eighth parameter: see
-- the workers' section below.)
DROP FUNCTION @extschema@.walload_diagnose(bigint, timestamptz, timestamptz, integer, text, oid, oid);

CREATE FUNCTION @extschema@.walload_diagnose(
    xact_id bigint DEFAULT NULL,
    since timestamptz DEFAULT NULL,
    until timestamptz DEFAULT NULL,
    pid integer DEFAULT NULL,
    application_name text DEFAULT NULL,
    userid oid DEFAULT NULL,
    dbid oid DEFAULT NULL,
    backend_type text DEFAULT NULL,
    OUT severity text,
    OUT saving_ms numeric,
    OUT finding text,
    OUT evidence text,
    OUT hint text,
    OUT setting text,
    OUT value text,
    OUT shape text,
    OUT detail text
)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'walload_diagnose'
LANGUAGE C VOLATILE PARALLEL RESTRICTED;

-- workers: the background processes walload records (logical replication's
-- tablesync and apply workers, autovacuum), by the backend_type
-- pg_stat_activity gives them; walload_diagnose() scoped to one of them
-- (its backend_type parameter, in the whatif section's definition above).
CREATE FUNCTION @extschema@.walload_xact_backend_types(
    OUT xact_id bigint,
    OUT pid integer,
    OUT backend_type text
)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'walload_xact_backend_types'
LANGUAGE C STRICT VOLATILE PARALLEL RESTRICTED;

GRANT EXECUTE ON FUNCTION @extschema@.walload_xact_backend_types() TO PUBLIC;

-- advbench: walload_report() for people: rounded figures, a verdict, 100 columns
--
-- walload_report() printed unrounded doubles (11171.743475000001) in
-- 207-character lines.  Now: ms is numeric with 1 decimal, pct the share
-- of the load's time as a percentage with 1 decimal (it was share, a
-- fraction: renamed, so that no reader takes a percentage for a fraction),
-- xacts (was transactions) the transactions that had the part, and the
-- parts' names and details shortened so that SELECT * fits 100 columns in
-- psql.  The first row is the verdict in words: whose time the load mostly
-- was (the server's statements, the commit phase, or the client's own
-- time), with its share of the load's time; its ms and pct are NULL, so
-- that the parts' ms still add up to the load's time (within the
-- rounding: 0.05 ms a part) and their pct to 100.  The rows follow in the
-- order of their unrounded time, largest first, as before.
--
-- backend_type (workers): the transactions of one kind of process, as
-- pg_stat_activity.backend_type names it (walload_xact_backend_types());
-- read from the ring only, which alone records the kind.
DROP FUNCTION @extschema@.walload_report(timestamptz, timestamptz, integer, text, oid, oid);

CREATE FUNCTION @extschema@.walload_report(
    since timestamptz DEFAULT NULL,
    until timestamptz DEFAULT NULL,
    pid integer DEFAULT NULL,
    application_name text DEFAULT NULL,
    userid oid DEFAULT NULL,
    dbid oid DEFAULT NULL,
    backend_type text DEFAULT NULL,
    OUT part text,
    OUT ms numeric,
    OUT pct numeric,
    OUT xacts bigint,
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
    IF backend_type IS NOT NULL AND backend_type <> ALL (ARRAY['client backend', 'autovacuum worker',
            'logical replication worker', 'logical replication apply worker',
            'logical replication tablesync worker']) THEN
        RAISE EXCEPTION 'walload records no backend_type "%"', backend_type
            USING ERRCODE = 'invalid_parameter_value',
                  HINT = 'Name one of client backend, autovacuum worker, logical replication worker (15-16), logical replication apply worker or logical replication tablesync worker (17 and later).';
    END IF;
    SELECT i.xacts_overwritten, i.minutes_overwritten INTO info FROM @extschema@.walload_info i;
    SELECT min(x.xact_start) INTO oldest FROM @extschema@.walload_xacts x;
    -- the ring holds the whole window, or the sums are read (which do not
    -- know the kind of process: a report of one kind reads the ring only)
    by_minute := info.xacts_overwritten > 0 AND (since IS NULL OR oldest IS NULL OR since < oldest)
                 AND backend_type IS NULL;
    IF backend_type IS NOT NULL AND info.xacts_overwritten > 0 AND (since IS NULL OR oldest IS NULL OR since < oldest) THEN
        RAISE WARNING 'the report of backend_type "%" holds only the transactions walload''s ring still holds',
            backend_type
            USING DETAIL = format('The oldest transaction kept began at %s.', coalesce(oldest::text, 'none'));
    END IF;
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
               x.commit_standby_ms, x.commit_standby_wait::int::bigint AS commit_standby_xacts,
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
          AND (walload_report.backend_type IS NULL OR x.xact_id IN
               (SELECT b.xact_id FROM @extschema@.walload_xact_backend_types() b
                WHERE b.backend_type = walload_report.backend_type))
        UNION ALL
        SELECT m.pid, m.backend_start, m.first_start, m.last_end,
               m.first_in_session, m.xacts, m.total_ms, m.commit_sync_ms, m.commit_cleanup_ms,
               m.commit_standby_ms, m.commit_standby_xacts,
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
    -- whose time each part is: the server's statements, the commit phase,
    -- or the client's (and the network's, and the connection's)
    parts(part, whose, ms, xacts, detail) AS (
        SELECT 'COPY', 'statements', sum(x.copy_ms), sum(x.copy_xacts)::bigint, NULL FROM x
        UNION ALL
        SELECT 'CREATE TABLE, MATVIEW, DATABASE', 'statements', sum(x.create_ms),
               sum(x.create_xacts)::bigint, NULL FROM x
        UNION ALL
        SELECT 'CREATE INDEX, REINDEX', 'statements', sum(x.index_ms), sum(x.index_xacts)::bigint, NULL FROM x
        UNION ALL
        SELECT 'INSERT/UPDATE/DELETE/MERGE/SELECT', 'statements', sum(x.dml_ms), sum(x.dml_xacts)::bigint,
               NULL FROM x
        UNION ALL
        SELECT 'VACUUM, ANALYZE', 'statements', sum(x.vacuum_ms), sum(x.vacuum_xacts)::bigint, NULL FROM x
        UNION ALL
        SELECT 'TRUNCATE', 'statements', sum(x.truncate_ms), sum(x.truncate_xacts)::bigint, NULL FROM x
        UNION ALL
        SELECT 'DROP', 'statements', sum(x.drop_ms), sum(x.drop_xacts)::bigint, NULL FROM x
        UNION ALL
        SELECT 'CLUSTER, REFRESH, ALTER TABLE', 'statements', sum(x.rewrite_ms), sum(x.rewrite_xacts)::bigint,
               NULL FROM x
        UNION ALL
        SELECT 'other statements', 'statements', sum(x.other_ms), sum(x.other_xacts)::bigint, NULL FROM x
        UNION ALL
        SELECT 'commit: syncs, record, WAL flush', 'commit', sum(x.commit_sync_ms - x.commit_standby_ms),
               sum(x.commit_sync_xacts)::bigint,
               format('synced %s, WAL-logged %s; walks %s',
                      sum(x.synced_rels), sum(x.wal_logged_rels), sum(x.scans_flush_pending)) FROM x
        UNION ALL
        -- derived: each waiting commit's sync part less its local WAL
        -- flush and file work (the standby section's part, above)
        SELECT 'commit: waiting for sync standbys', 'commit', sum(x.commit_standby_ms),
               sum(x.commit_standby_xacts)::bigint, 'derived: less the local parts' FROM x
        UNION ALL
        SELECT 'commit or abort: file deletion', 'commit', sum(x.commit_cleanup_ms),
               sum(x.commit_cleanup_xacts)::bigint,
               format('files deleted %s; walks %s', sum(x.dropped_rels), sum(x.scans_drop_pending)) FROM x
        UNION ALL
        SELECT 'in transactions, client/network', 'client',
               sum(x.total_ms - x.commit_sync_ms - x.commit_cleanup_ms - x.copy_ms - x.create_ms
                   - x.index_ms - x.dml_ms - x.vacuum_ms - x.truncate_ms - x.drop_ms - x.rewrite_ms
                   - x.other_ms),
               sum(x.xacts)::bigint, 'outside recorded statements' FROM x
        UNION ALL
        SELECT 'between transactions', 'client', sum(b.span_ms - b.in_xacts_ms), NULL::bigint,
               format('client, or unrecorded; sessions %s', count(*)) FROM backends b
        UNION ALL
        SELECT 'before a session''s first xact', 'client', sum(b.before_ms), NULL::bigint,
               format('connection; sessions begun %s', count(*) FILTER (WHERE b.before_ms > 0))
        FROM backends b
    ),
    load AS (SELECT sum(b.span_ms + b.before_ms) AS load_ms FROM backends b),
    shown AS (
        SELECT p.* FROM parts p
        WHERE p.ms IS NOT NULL AND (p.ms <> 0 OR p.part LIKE 'between%')
    ),
    -- the verdict: the largest of the three, in words
    verdict AS (
        SELECT s.whose, sum(s.ms) AS ms FROM shown s GROUP BY s.whose
        ORDER BY sum(s.ms) DESC, array_position(ARRAY['statements', 'commit', 'client'], s.whose)
        LIMIT 1
    )
    SELECT r.part, r.ms, r.pct, r.xacts, r.detail
    FROM (
        SELECT 0 AS ord, NULL::double precision AS raw_ms,
               CASE v.whose WHEN 'statements' THEN 'verdict: the server''s statements'
                            WHEN 'commit' THEN 'verdict: the commit phase'
                            ELSE 'verdict: the client''s own time' END AS part,
               NULL::numeric AS ms, NULL::numeric AS pct,
               (SELECT sum(x.xacts) FROM x)::bigint AS xacts,
               CASE WHEN l.load_ms > 0
                    THEN format('%s%% of the load''s %s ms',
                                round((100 * v.ms / l.load_ms)::numeric, 1), round(l.load_ms::numeric, 1))
                    ELSE format('the load''s %s ms', round(l.load_ms::numeric, 1)) END AS detail
        FROM verdict v, load l
        UNION ALL
        SELECT 1, s.ms, s.part, round(s.ms::numeric, 1),
               CASE WHEN l.load_ms > 0 THEN round((100 * s.ms / l.load_ms)::numeric, 1) END,
               s.xacts, s.detail
        FROM shown s, load l
    ) r
    ORDER BY r.ord, r.raw_ms DESC, r.part;
END
$report$;
