/*-------------------------------------------------------------------------
 *
 * types.h
 *		The types every part of walload shares; each part's functions are in
 *		its own header, so that an #include names a dependency.
 *
 *-------------------------------------------------------------------------
 */
#ifndef WALLOAD_TYPES_H
#define WALLOAD_TYPES_H

#include "compat.h"

#include "executor/instrument.h"
#include "portability/instr_time.h"
#include "tcop/cmdtag.h"
#include "utils/timestamp.h"

/* ---------- kinds of full shared-buffer scans ---------- */
typedef enum WlScanKind
{
	WL_SCAN_FLUSH_REL = 0,		/* FlushRelationBuffers */
	WL_SCAN_FLUSH_PENDING,		/* FlushRelationsAllBuffers at commit */
	WL_SCAN_DROP_REL,			/* DropRelFileNodeBuffers (truncation) */
	WL_SCAN_DROP_PENDING,		/* DropRelFileNodesAllBuffers (file deletion) */
	WL_SCAN_DB,					/* DropDatabaseBuffers / FlushDatabaseBuffers */
	WL_NUM_SCAN_KINDS
} WlScanKind;

/* ---------- what a statement's time is counted as, per transaction ---------- */
typedef enum WlTimeKind
{
	WL_TIME_COPY = 0,
	WL_TIME_CREATE,
	WL_TIME_INDEX,
	WL_TIME_DML,
	WL_TIME_VACUUM,
	WL_TIME_TRUNCATE,
	WL_TIME_DROP,
	WL_TIME_REWRITE,
	WL_TIME_OTHER,
	WL_NUM_TIME_KINDS
} WlTimeKind;

#define WL_QUERY_LEN		256		/* bytes of query text kept, incl. NUL */

/* work counters, X(type, name, source): core's counter (measure.c) or WlWalIo's field */
#define WL_BUFFER_WAL_COUNTERS(X) WL_BUFFER_COUNTERS(X) WL_WAL_COUNTERS(X)
#define WL_BUFFER_COUNTERS(X) \
	X(int64, shared_blks_hit, pgBufferUsage.shared_blks_hit) \
	X(int64, shared_blks_read, pgBufferUsage.shared_blks_read) \
	X(int64, shared_blks_dirtied, pgBufferUsage.shared_blks_dirtied) \
	X(int64, shared_blks_written, pgBufferUsage.shared_blks_written)
#define WL_WAL_COUNTERS(X) \
	X(int64, wal_records, pgWalUsage.wal_records) \
	X(int64, wal_fpi, pgWalUsage.wal_fpi) \
	X(uint64, wal_bytes, pgWalUsage.wal_bytes)

/* of wal_bytes, full-page images (19+; else 0) */
#define WL_FPI_BYTES_COUNTERS(X) \
	X(uint64, wal_fpi_bytes, WlWalFpiBytes(pgWalUsage))

/* the backend's own WAL writes and flushes, their time (track_wal_io_timing) */
#define WL_WAL_IO_COUNTERS(X) \
	X(int64, wal_writes, writes) \
	X(int64, wal_syncs, syncs) \
	X(int64, wal_sync_us, sync_us)

#define WL_COUNTER_FIELD(type, name, source) type name;

typedef struct WlCounters
{
	int64		rows;
	WL_BUFFER_WAL_COUNTERS(WL_COUNTER_FIELD)
	WL_FPI_BYTES_COUNTERS(WL_COUNTER_FIELD)
	WL_WAL_IO_COUNTERS(WL_COUNTER_FIELD)
	int64		scans[WL_NUM_SCAN_KINDS];
	int64		scan_est_ns;	/* the scans' estimated duration (cost.c) */
} WlCounters;

/*
 * The records, each a list X(kind, type, name, dims, add): the struct (in
 * the stats file's order), persist.c's checks by kind, the views' columns
 * by type, the per-minute sums by add (of the transaction record rec, k an
 * array's index).  kind: count (>= 0), bytes, ms, sum_ms (>= 0), signed_ms,
 * finite, ts, bool, text, an enumeration's name, counters, any (unchecked).
 * A record grows at its end only: an older file's is read into a zeroed one.
 */
typedef char WlQuery[WL_QUERY_LEN];
typedef char WlName[NAMEDATALEN];
#define WL_FIELD(kind, type, name, dims, add) type name dims;

/* the process that did a record's work (hooks.c, observe.c) */
typedef enum WlBackendKind
{
	WL_KIND_CLIENT = 0,
	WL_KIND_APPLY,				/* logical replication apply worker */
	WL_KIND_TABLESYNC,			/* logical replication tablesync worker */
	WL_KIND_AUTOVACUUM			/* autovacuum worker */
} WlBackendKind;

typedef enum WlStmtStatus
{
	WL_STMT_OK = 0,
	WL_STMT_ERROR
} WlStmtStatus;

/*
 * A finished statement.  vacuum_*: a VACUUM's ring, heap pages before and
 * truncated away; commit_ms: its transaction's commit charged to it.
 */
#define WL_STMT_FIELDS(X) \
	X(any, uint64, xact_id, , ) \
	X(any, int32, stmt_no, , ) \
	X(count, int32, pid, , ) \
	X(any, Oid, userid, , ) \
	X(any, Oid, dbid, , ) \
	X(any, uint64, queryid, , ) \
	X(bool, bool, toplevel, , ) \
	X(bool, bool, wal_skipped, , ) \
	X(status, uint8, status, , ) \
	X(bkind, int8, backend_kind, , ) \
	X(count, int16, nest_level, , ) \
	X(tag, CommandTag, tag, , ) \
	X(ts, TimestampTz, start, , ) \
	X(ms, double, elapsed_ms, , ) \
	X(count, int32, nbuffers, , ) \
	X(count, int32, vacuum_ring_kb, , ) \
	X(count, int64, vacuum_pages, , ) \
	X(count, int64, vacuum_pages_removed, , ) \
	X(counters, WlCounters, c, , ) \
	X(text, WlQuery, query, , ) \
	X(ms, double, commit_ms, , )

typedef struct WlStmtRecord
{
	WL_STMT_FIELDS(WL_FIELD)
} WlStmtRecord;

typedef enum WlOutcome
{
	WL_OUTCOME_COMMIT = 0,
	WL_OUTCOME_ABORT,
	WL_OUTCOME_PREPARE
} WlOutcome;

/*
 * One finished transaction; walload_xacts shows WL_XACT_TIMES and
 * WL_XACT_FILES as they are.  synced_truncated_*: of synced_rels, files
 * truncated in place where created, which core syncs whatever
 * wal_skip_threshold says (blocks at most PG_INT32_MAX).  scan_fault_ms:
 * of c.scan_est_ns, the first walk's page faults.  wal_skip_threshold_kb:
 * read at the last commit before the strategy acts; commit_threshold_kb,
 * the one core used.  pred_core_commit_ms: pred_commit_ms without
 * commit_strategy.  strategy_action: the strongest of its commits.  The
 * last commit's sync part: its standby wait, local WAL flush, standby's.
 */
#define WL_XACT_TIMES(X) \
	X(signed_ms, double, total_ms, , ) \
	X(ms, double, commit_ms, , ) \
	X(ms, double, commit_sync_ms, , ) \
	X(ms, double, commit_cleanup_ms, , ) \
	X(count, int32, statements, , ) \
	X(count, int32, inner_xacts, , ) \
	X(ms, double, kind_ms, [WL_NUM_TIME_KINDS], )
#define WL_XACT_FILES(X) \
	X(bytes, uint64, commit_wal_bytes, , ) \
	X(count, int32, wal_skipped_rels, , ) \
	X(count, int32, synced_rels, , ) \
	X(count, int64, synced_blocks, , ) \
	X(count, int32, wal_logged_rels, , ) \
	X(count, int64, wal_logged_blocks, , ) \
	X(count, int32, dropped_rels, , )
#define WL_XACT_FIELDS(X) \
	X(any, uint64, xact_id, , ) \
	X(count, int32, pid, , ) \
	X(any, Oid, userid, , ) \
	X(any, Oid, dbid, , ) \
	X(count, int32, synced_truncated_rels, , ) \
	X(ts, TimestampTz, start, , ) \
	X(ts, TimestampTz, end, , ) \
	X(outcome, uint8, outcome, , ) \
	X(wal_level, int8, wal_level, , ) \
	X(sync_commit, int8, synchronous_commit, , ) \
	X(bkind, int8, backend_kind, , ) \
	X(ms, float4, scan_fault_ms, , ) \
	WL_XACT_TIMES(X) \
	X(counters, WlCounters, c, , ) \
	WL_XACT_FILES(X) \
	X(count, int32, nbuffers, , ) \
	X(count, int32, wal_skip_threshold_kb, , ) \
	X(ms, double, pred_commit_ms, , ) \
	X(signed_ms, double, pred_core_commit_ms, , ) \
	X(strategy, int8, commit_strategy, , ) \
	X(action, int8, strategy_action, , ) \
	X(count, int16, strategy_changed, , ) \
	X(count, int32, commit_threshold_kb, , ) \
	X(ts, TimestampTz, backend_start, , ) \
	X(bool, bool, first_in_session, , ) \
	X(text, WlName, application_name, , ) \
	X(bool, bool, commit_standby_wait, , ) \
	X(count, int32, synced_truncated_blocks, , ) \
	X(ms, double, commit_wal_ms, , ) \
	X(ms, double, commit_standby_ms, , )

typedef struct WlXactRecord
{
	WL_XACT_FIELDS(WL_FIELD)
} WlXactRecord;

/*
 * A session's transactions that ended in one minute, summed: what
 * walload_report() needs once the ring has overwritten them (the sums are
 * walload_minutes' columns in this order).
 */
#define WL_MINUTE_SUMS(X) \
	X(count, int64, xacts, , 1) \
	X(signed_ms, double, total_ms, , rec->total_ms) \
	X(sum_ms, double, commit_sync_ms, , rec->commit_sync_ms) \
	X(sum_ms, double, commit_cleanup_ms, , rec->commit_cleanup_ms) \
	X(sum_ms, double, kind_ms, [WL_NUM_TIME_KINDS], rec->kind_ms[k]) \
	X(count, int64, kind_xacts, [WL_NUM_TIME_KINDS], rec->kind_ms[k] > 0) \
	X(count, int64, commit_sync_xacts, , rec->commit_sync_ms > 0) \
	X(count, int64, commit_cleanup_xacts, , rec->commit_cleanup_ms > 0) \
	X(count, int64, synced_rels, , rec->synced_rels) \
	X(count, int64, wal_logged_rels, , rec->wal_logged_rels) \
	X(count, int64, dropped_rels, , rec->dropped_rels) \
	X(count, int64, scans_flush_pending, , rec->c.scans[WL_SCAN_FLUSH_PENDING]) \
	X(count, int64, scans_drop_pending, , rec->c.scans[WL_SCAN_DROP_PENDING])
#define WL_MINUTE_SUMS_1_10(X) \
	X(sum_ms, double, commit_standby_ms, , rec->commit_standby_ms) \
	X(count, int64, commit_standby_xacts, , rec->commit_standby_wait)
#define WL_MINUTE_FIELDS(X) \
	X(count, int32, pid, , ) \
	X(any, Oid, userid, , ) \
	X(any, Oid, dbid, , ) \
	X(bool, bool, first_in_session, , ) \
	X(ts, TimestampTz, backend_start, , ) \
	X(ts, TimestampTz, minute, , ) \
	X(ts, TimestampTz, first_start, , ) \
	X(ts, TimestampTz, last_end, , ) \
	WL_MINUTE_SUMS(X) \
	X(text, WlName, application_name, , ) \
	WL_MINUTE_SUMS_1_10(X)

typedef struct WlMinuteRecord
{
	WL_MINUTE_FIELDS(WL_FIELD)
} WlMinuteRecord;

/* what walload.commit_strategy did at a commit, strongest last */
typedef enum WlStrategyAction
{
	WL_ACTION_NONE = 0,
	WL_ACTION_KEPT,
	WL_ACTION_ASIDE_SET_LOCAL,
	WL_ACTION_ASIDE_UNCALIBRATED,
	WL_ACTION_CHANGED,
	WL_ACTION_ASIDE_MISPREDICTED
} WlStrategyAction;

typedef struct WlStatsKey
{
	Oid			userid;
	Oid			dbid;
	uint64		queryid;
	CommandTag	tag;
	bool		toplevel;
} WlStatsKey;

/* ---------- a scan's cost: calibrate.c times it, store.c keeps it, cost.c reads it ---------- */
#define WL_COST_GRID	5		/* relation counts the many-file walk is timed at */
#define WL_COST_GRID_FILES	{1, 8, 20, 21, 1024}

/* the storage under the data directory: a commit's syncs, WAL and deletions */
typedef struct WlIoCost
{
	bool		valid;			/* the figures below timed */
	double		write_ns_per_block; /* write() of a block the file has */
	double		fsync_ns_per_block; /* fsync of a written block */
	double		fsync_ns_per_file;	/* fsync of a new file with one block */
	double		wal_flush_ns;	/* a block rewritten and fdatasync'ed */
	double		delete_ns_per_file; /* deleting a relation file (truncation) */
	double		delete_ns_per_block;	/* and per block it held */
	double		delete_cached_ns_per_file;	/* the same, blocks only cached */
	double		delete_cached_ns_per_block;
	double		open_ns;		/* opening and closing a file that exists */
	double		open_missing_ns;	/* asking for a file that does not */
	double		fpi_ns_per_block;	/* checksum and copy of a full-page image */
	double		page_bytes;		/* the OS page size */
	double		wal_fault_ns_per_page;	/* first write to an unmapped page */
	double		record_space_ns;	/* a first WAL record of many blocks */
	/* learned from commits (a calibration keeps them), with how many taught each */
	double		fsync_time_ratio;	/* syncs over their prediction (0 is 1) */
	int64		fsync_time_samples;
	double		file_commit_ns; /* core's untimed work per file at commit */
	int64		file_commit_samples;
} WlIoCost;

typedef struct WlScanCost
{
	double		single_ns;		/* ns per buffer header: one relation file */
	double		flush_ns[WL_COST_GRID]; /* many-file walks (see calibrate.c): */
	double		drop_ns[WL_COST_GRID];	/* at commit, and at commit or abort */
	bool		multi_valid;	/* flush_ns and drop_ns timed */
	double		fault_ns_per_page;	/* a header page mapped by the walk */
	double		invalidate_ns_per_buffer;	/* a deleted file's buffer */
	WlIoCost	io;				/* the storage */
} WlScanCost;

/* what COMMIT (or PREPARE) will do, as core will decide it (model.c) */
typedef struct WlCommitModel
{
	/* at PREPARE: what ROLLBACK PREPARED will delete (COMMIT PREPARED: drop_*) */
	bool		abort_drop_scan;
	int32		abort_rels;
	int64		abort_buffers;	/* their buffers, as dropped_buffers */
	bool		sync_scan;		/* FlushRelationsAllBuffers will run */
	int32		sync_stmt_no;	/* first creator of a synced file, or -1 */
	int32		wal_skipped_rels;	/* pending syncs considered */
	int32		synced_rels;
	int64		synced_blocks;
	int32		synced_truncated_rels;	/* see WlXactRecord */
	int64		synced_truncated_blocks;
	int32		wal_logged_rels;
	int64		wal_logged_blocks;
	bool		drop_scan;		/* DropRelFileNodesAllBuffers will scan */
	int32		drop_stmt_no;	/* first to schedule a deletion, or -1 */
	int32		dropped_rels;
	int64		dropped_blocks; /* blocks of their forks */
	int32		dropped_forks;	/* forks of those that exist */
	int32		dropped_stored_forks;	/* of those, with blocks on disk */
	int64		dropped_stored_blocks;	/* and those blocks */
	int64		dropped_buffers;	/* in shared buffers (from a sample) */
} WlCommitModel;

/* what COMMIT / ROLLBACK PREPARED will delete, counted at PREPARE (core does not say) */
typedef struct WlPreparedDeletion
{
	bool		scan;
	int32		rels;
	int64		buffers;
} WlPreparedDeletion;

/* what else a commit's cost depends on (cost.c, wl_commit_est) */
typedef struct WlCommitState
{
	int64		unmapped_pages; /* header pages not mapped yet */
	int64		os_dirty_blocks;	/* the page cache's dirty blocks, or -1 */
	int64		dirty_buffers;	/* synced files' blocks dirty in shared buffers */
	int64		unflushed_wal_bytes;	/* WAL inserted, not flushed yet */
	int64		wal_own_bytes;	/* WAL this backend inserted since start */
	int64		wal_ring_bytes; /* the WAL buffers (wal_buffers) */
	bool		record_space_ready; /* it WAL-logged a file at commit before */
} WlCommitState;

/* a backend's running load (walload_activity), published at statements' ends */
typedef struct WlActivity
{
	int32		pid;			/* 0: the slot is empty */
	Oid			userid;
	Oid			dbid;
	TimestampTz xact_start;
	TimestampTz state_change;	/* when this was published */
	int32		statements;
	CommandTag	current_command;	/* CMDTAG_UNKNOWN: between statements */
	TimestampTz current_stmt_start;
	double		kind_ms[WL_NUM_TIME_KINDS];
	int64		rows;
	uint64		wal_bytes;
	int64		scans[WL_NUM_SCAN_KINDS];	/* so far */
	int64		scan_est_ns;
	int32		nbuffers;
	int32		wal_skip_threshold_kb;
	/* what COMMIT and ROLLBACK would do if issued at predicted_at */
	TimestampTz predicted_at;	/* 0: no prediction yet */
	int32		pred_statements;	/* statements recorded when it was made */
	WlCommitModel pred;
	WlCommitState pred_state;	/* what the prediction assumed */
	double		pred_commit_ms;
	double		pred_scan_ms;	/* of which scans */
	int32		pred_abort_scans;
	int32		pred_abort_rels;
} WlActivity;

/* what commits teach and unit_costs sets: ratios in [1/WL_LEARNED_BOUND, WL_LEARNED_BOUND] */
#define WL_LEARNED_BOUND	4.0
#define WL_FILE_COMMIT_MAX_NS	1e5

/* a ratio learned from commits (WlScanCost, WlIoCost): 0, none yet, is 1 */
static inline double
wl_learned_ratio(double ratio)
{
	return ratio > 0 ? ratio : 1;
}

static inline int64
wl_sum_scans(const int64 *scans)
{
	int64		n = 0;

	for (int i = 0; i < WL_NUM_SCAN_KINDS; i++)
		n += scans[i];
	return n;
}

#define wl_full_scans(c)	wl_sum_scans((c)->scans)

/* name: a qsort and bsearch comparator of values of type, in ascending order */
#define WL_CMP_FUNCTION(name, type) \
static int \
name(const void *a, const void *b) \
{ \
	return (*(const type *) a > *(const type *) b) - (*(const type *) a < *(const type *) b); \
}

#endif							/* WALLOAD_TYPES_H */
