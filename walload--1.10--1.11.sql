/* walload--1.10--1.11.sql */

-- complain if script is sourced in psql, rather than via ALTER EXTENSION
\echo Use "ALTER EXTENSION walload UPDATE TO '1.11'" to load this file. \quit

--
-- 1.11: (sections below, one per change)
--

-- diag: walload_diagnose() for reading, walload_findings() for programs
--
-- walload_diagnose()'s nine columns printed 250-character lines.  Now
-- walload_findings() (the same parameters) returns the whole record:
-- severity, saving_ms, finding, change (the change as one short text:
-- wal_skip_threshold = '80kB', or the shape's name), evidence, hint,
-- setting, value, shape, detail; walload_diagnose() the columns to read:
-- severity, saving_ms, finding, change, each short enough that SELECT *
-- fits 100 columns in psql.  walload_diagnose_backend() likewise, over
-- walload_findings_backend().  One C routine fills both from the library;
-- the 1.10 definitions read with it too (it returns what each asks for).
DROP FUNCTION @extschema@.walload_diagnose(bigint, timestamptz, timestamptz, integer, text, oid, oid, text);
DROP FUNCTION @extschema@.walload_diagnose_backend(integer);

CREATE FUNCTION @extschema@.walload_findings(
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
    OUT change text,
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
    OUT change text
)
RETURNS SETOF record
LANGUAGE sql VOLATILE PARALLEL RESTRICTED
SET search_path = pg_catalog, pg_temp
AS $diagnose$
    SELECT f.severity, f.saving_ms, f.finding, f.change
    FROM @extschema@.walload_findings($1, $2, $3, $4, $5, $6, $7, $8) WITH ORDINALITY AS f
    ORDER BY f.ordinality
$diagnose$;

CREATE FUNCTION @extschema@.walload_findings_backend(
    pid integer,
    OUT severity text,
    OUT saving_ms numeric,
    OUT finding text,
    OUT change text,
    OUT evidence text,
    OUT hint text,
    OUT setting text,
    OUT value text,
    OUT shape text,
    OUT detail text
)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'walload_diagnose_backend'
LANGUAGE C VOLATILE PARALLEL RESTRICTED;

CREATE FUNCTION @extschema@.walload_diagnose_backend(
    pid integer,
    OUT severity text,
    OUT saving_ms numeric,
    OUT finding text,
    OUT change text
)
RETURNS SETOF record
LANGUAGE sql VOLATILE PARALLEL RESTRICTED
SET search_path = pg_catalog, pg_temp
AS $diagnose$
    SELECT f.severity, f.saving_ms, f.finding, f.change
    FROM @extschema@.walload_findings_backend($1) WITH ORDINALITY AS f
    ORDER BY f.ordinality
$diagnose$;
