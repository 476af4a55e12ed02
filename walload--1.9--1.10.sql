/* walload--1.9--1.10.sql */

-- complain if script is sourced in psql, rather than via ALTER EXTENSION
\echo Use "ALTER EXTENSION walload UPDATE TO '1.10'" to load this file. \quit

--
-- 1.10: (sections below, one per change)
--
