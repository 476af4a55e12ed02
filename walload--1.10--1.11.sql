/* walload--1.10--1.11.sql */

-- complain if script is sourced in psql, rather than via ALTER EXTENSION
\echo Use "ALTER EXTENSION walload UPDATE TO '1.11'" to load this file. \quit

--
-- 1.11: (sections below, one per change)
--
