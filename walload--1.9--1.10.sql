/* walload--1.9--1.10.sql */

-- complain if script is sourced in psql, rather than via ALTER EXTENSION
\echo Use "ALTER EXTENSION walload UPDATE TO '1.10'" to load this file. \quit

--
-- 1.10: (sections below, one per change)
--

-- whatif: walload_diagnose() says what to change as data, and rounds for reading
--
-- Every saving comes from the what-if engine (whatif.c).  Each finding with
-- a saving names one change: setting and value (a GUC and its value as SET
-- or ALTER SYSTEM writes it) or shape (one_transaction, batch_commits,
-- indexes_after_load, no_truncate_reload, single_transaction_restore,
-- drop_in_one_transaction).  saving_ms is numeric, 1 decimal.  The first
-- row is the verdict in words.
DROP FUNCTION @extschema@.walload_diagnose(bigint, timestamptz, timestamptz, integer, text, oid, oid);

CREATE FUNCTION @extschema@.walload_diagnose(
    xact_id bigint DEFAULT NULL,
    since timestamptz DEFAULT NULL,
    until timestamptz DEFAULT NULL,
    pid integer DEFAULT NULL,
    application_name text DEFAULT NULL,
    userid oid DEFAULT NULL,
    dbid oid DEFAULT NULL,
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
