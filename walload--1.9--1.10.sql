/* walload--1.9--1.10.sql */

-- complain if script is sourced in psql, rather than via ALTER EXTENSION
\echo Use "ALTER EXTENSION walload UPDATE TO '1.10'" to load this file. \quit

--
-- 1.10: (sections below, one per change)
--

-- workers: the background processes walload records (logical replication's
-- tablesync and apply workers, autovacuum), by the backend_type
-- pg_stat_activity gives them; walload_diagnose() scoped to one of them.
CREATE FUNCTION @extschema@.walload_xact_backend_types(
    OUT xact_id bigint,
    OUT pid integer,
    OUT backend_type text
)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'walload_xact_backend_types'
LANGUAGE C STRICT VOLATILE PARALLEL RESTRICTED;

GRANT EXECUTE ON FUNCTION @extschema@.walload_xact_backend_types() TO PUBLIC;

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
    OUT saving_ms double precision,
    OUT finding text,
    OUT evidence text,
    OUT hint text,
    OUT detail text
)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'walload_diagnose'
LANGUAGE C VOLATILE PARALLEL RESTRICTED;
