-- CREATE DATABASE with STRATEGY WAL_LOG and FILE_COPY, and DROP DATABASE,
-- from a session on the postgres database: one DropDatabaseBuffers per
-- DROP.  WAL_LOG copies every relation of the template as a pending sync;
-- with the default threshold none is big enough (WAL-logged, no scan); with
-- wal_skip_threshold = 64kB some are, so under minimal that commit does one
-- FlushRelationsAllBuffers.  FILE_COPY's checkpoints run in the
-- checkpointer, which is not a client backend.
-- @db: postgres
-- @expect minimal: db=3 flush_pending=1
-- @expect replica: db=3
CREATE DATABASE o_walog STRATEGY = WAL_LOG;
CREATE DATABASE o_filecopy STRATEGY = FILE_COPY;
DROP DATABASE o_walog;
DROP DATABASE o_filecopy;
SET wal_skip_threshold = '64kB';
CREATE DATABASE o_walog_low STRATEGY = WAL_LOG;
RESET wal_skip_threshold;
DROP DATABASE o_walog_low;
