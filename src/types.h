/*-------------------------------------------------------------------------
 *
 * types.h
 *		The types every part of walload shares: kinds of scans and of time,
 *		the work counters, the records of statements and transactions, the
 *		scan-cost calibration.  No functions: each part has a header of its
 *		own (src/<part>.h), so that an #include names a dependency.
 *
 * The parts, each calling only those listed below it (data flows down the
 * list and back up as return values; scripts/check-layers.sh enforces the
 * order, docs/architecture.md draws it):
 *
 * walload.c      module start-up: settings, shared memory, hooks
 * diagnose.c     walload_diagnose(): findings from the recorded figures
 * whatif.c       the what-if engine: core's decisions replayed on the
 *                recorded figures under another setting or shape, priced
 * views.c        SQL-callable functions behind the views
 * hooks.c        every entry point core calls: ProcessUtility, executor,
 *                object access, transaction callbacks; the one gate
 * accumulator.c  the backend's statements in progress, its open
 *                transaction, commit-phase timing, commit-time attribution,
 *                the finished records on their way to the store, 2PC
 * strategy.c     walload.commit_strategy: which new files a commit fsyncs
 *                and which it WAL-logs
 * observe.c      what a utility statement did, seen before and after it
 * scan_model.c   mirrors of core's pending-file lists and its commit and
 *                abort decisions
 * calibrate.c    the calibration worker: the per-unit costs, timed here
 * cost.c         the one cost model: walks and commits, counts times
 *                per-unit costs
 * persist.c      the stats file: shared memory across a clean shutdown
 * store.c        shared memory: rings, statistics
 * metrics.c      counters for exporters: totals per command kind,
 *                histograms of commit and walk time
 * measure.c      usage marks: buffer, WAL and WAL I/O counters
 * settings.c     the walload.* settings
 * compat.h       differences between PostgreSQL versions
 *
 *-------------------------------------------------------------------------
 */
#ifndef WALLOAD_TYPES_H
#define WALLOAD_TYPES_H

#include "compat.h"

#include "executor/instrument.h"
#include "nodes/execnodes.h"
#include "portability/instr_time.h"
#include "tcop/cmdtag.h"
#include "utils/rel.h"
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

/*
 * Work counters shared by statements, transactions and aggregates, each
 * declared once here: the struct, the usage marks (measure.c: how each is
 * read from core), their sum, the stats file's check (persist.c) and the
 * views' columns (views.c) are generated from these lists.  X(type, name,
 * source): type int64 or uint64; source, the core counter a usage mark
 * reads (measure.c, where pgBufferUsage, pgWalUsage and compat.h are at
 * hand), or for the WAL I/O counters the field of WlWalIo (compat.h).
 * The order is the struct's, and so the stats file's.
 */
#define WL_BUFFER_WAL_COUNTERS(X) \
	X(int64, shared_blks_hit, pgBufferUsage.shared_blks_hit) \
	X(int64, shared_blks_read, pgBufferUsage.shared_blks_read) \
	X(int64, shared_blks_dirtied, pgBufferUsage.shared_blks_dirtied) \
	X(int64, shared_blks_written, pgBufferUsage.shared_blks_written) \
	X(int64, wal_records, pgWalUsage.wal_records) \
	X(int64, wal_fpi, pgWalUsage.wal_fpi) \
	X(uint64, wal_bytes, pgWalUsage.wal_bytes)

/* of wal_bytes, full-page images (19+; else 0) */
#define WL_FPI_BYTES_COUNTERS(X) \
	X(uint64, wal_fpi_bytes, WlWalFpiBytes(pgWalUsage))

/*
 * WAL writes this backend did itself, WAL flushes (fsyncs) it did, and
 * their time (with track_wal_io_timing)
 */
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
 * The process that did a record's work (1.10): a client's backend, or a
 * background process walload records at its transactions' boundaries
 * (hooks.c, observe.c wl_observe_worker_xact).  Kept in a byte that was
 * padding in both records: older records read 0, a client's.
 */
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

/* One finished statement, as kept in the statement ring */
typedef struct WlStmtRecord
{
	uint64		xact_id;
	int32		stmt_no;
	int32		pid;
	Oid			userid;
	Oid			dbid;
	uint64		queryid;
	bool		toplevel;
	bool		wal_skipped;
	uint8		status;			/* WlStmtStatus */
	int8		backend_kind;	/* WlBackendKind, in what was padding */
	int16		nest_level;
	CommandTag	tag;
	TimestampTz start;
	double		elapsed_ms;
	int32		nbuffers;		/* NBuffers when it ran */
	int32		vacuum_ring_kb; /* VACUUM: ring size; 0 otherwise */
	int64		vacuum_pages;	/* VACUUM: heap pages of its tables before */
	int64		vacuum_pages_removed;	/* VACUUM: pages truncated away */
	WlCounters	c;
	char		query[WL_QUERY_LEN];

	/*
	 * The measured commit (or abort) phase of its transaction charged to it
	 * (accumulator.c, charge_commit_phase); after the text, so that the
	 * fields before keep their places in the stats file.
	 */
	double		commit_ms;
} WlStmtRecord;

typedef enum WlOutcome
{
	WL_OUTCOME_COMMIT = 0,
	WL_OUTCOME_ABORT,
	WL_OUTCOME_PREPARE
} WlOutcome;

/* One finished transaction, as kept in the transaction ring */
typedef struct WlXactRecord
{
	uint64		xact_id;
	int32		pid;
	Oid			userid;
	Oid			dbid;

	/*
	 * Of synced_rels, the files truncated in place in the transaction that
	 * created them, which core syncs whatever wal_skip_threshold says (1.10,
	 * whatif.c).  In what was padding: the record keeps the layout of
	 * earlier libraries, whose records read 0 (none known) here.
	 */
	int32		synced_truncated_rels;
	TimestampTz start;
	TimestampTz end;
	uint8		outcome;		/* WlOutcome */
	int8		wal_level;
	int8		synchronous_commit;
	int8		backend_kind;	/* WlBackendKind, in what was padding */

	/*
	 * Of c.scan_est_ns, the page faults of this backend's first walk as
	 * priced (cost.c wl_scan_fault_ns), in ms; 0 if none.
	 */
	float4		scan_fault_ms;
	double		total_ms;
	double		commit_ms;
	double		commit_sync_ms;
	double		commit_cleanup_ms;
	int32		statements;
	int32		inner_xacts;
	double		kind_ms[WL_NUM_TIME_KINDS];
	WlCounters	c;
	uint64		commit_wal_bytes;
	int32		wal_skipped_rels;
	int32		synced_rels;
	int64		synced_blocks;
	int32		wal_logged_rels;
	int64		wal_logged_blocks;
	int32		dropped_rels;
	int32		nbuffers;
	int32		wal_skip_threshold_kb;	/* the transaction's, read at its
										 * (last) commit before the strategy
										 * acts; an abort's at its end */
	double		pred_commit_ms; /* predicted at PRE_COMMIT (cost.c) */
	double		pred_core_commit_ms;	/* the same, without commit_strategy */
	int8		commit_strategy;	/* WlCommitStrategy (settings.h) */

	/*
	 * What the strategy did at the record's commits (a statement that
	 * commits inside itself has several): the strongest WlStrategyAction,
	 * and how many commits it changed wal_skip_threshold for.
	 */
	int8		strategy_action;
	int16		strategy_changed;
	int32		commit_threshold_kb;	/* wal_skip_threshold core used */

	/*
	 * The session (1.6): when its backend started, whether this is the
	 * first record it wrote, and its application_name as the record's last
	 * recorded statement ran (as userid: accumulator.c, WlOpenXact)
	 */
	TimestampTz backend_start;
	bool		first_in_session;
	char		application_name[NAMEDATALEN];

	/*
	 * The sync part of the last commit split (1.10, accumulator.c
	 * commit_parts): whether it waited for a synchronous standby; its local
	 * WAL flush (measured with track_wal_io_timing on 15-17, else priced);
	 * the wait for the standby, derived: the sync part less its local parts.
	 * The rest of commit_sync_ms is the walk and the new files' syncs or
	 * WAL-logging.
	 */
	bool		commit_standby_wait;
	int32		synced_truncated_blocks;	/* the blocks of synced_truncated_rels
											 * (1.10, in what was padding; at
											 * most PG_INT32_MAX) */
	double		commit_wal_ms;
	double		commit_standby_ms;
} WlXactRecord;

/*
 * A session's recorded transactions summed per minute (walload_minutes,
 * 1.8): the transactions of one backend (pid and backend_start), role,
 * database and application_name that ended in one minute.  What
 * walload_report() needs from them, kept when the transaction ring has
 * long overwritten them.  Sums are in the units of WlXactRecord.
 */
typedef struct WlMinuteRecord
{
	int32		pid;
	Oid			userid;
	Oid			dbid;
	bool		first_in_session;	/* the session's first record is here */
	TimestampTz backend_start;
	TimestampTz minute;			/* when the minute began */
	TimestampTz first_start;	/* the earliest start of its transactions */
	TimestampTz last_end;		/* the latest end */
	int64		xacts;
	double		total_ms;
	double		commit_sync_ms;
	double		commit_cleanup_ms;
	double		kind_ms[WL_NUM_TIME_KINDS];
	int64		kind_xacts[WL_NUM_TIME_KINDS];	/* with time of the kind */
	int64		commit_sync_xacts;	/* with a sync phase */
	int64		commit_cleanup_xacts;
	int64		synced_rels;
	int64		wal_logged_rels;
	int64		dropped_rels;
	int64		scans_flush_pending;
	int64		scans_drop_pending;
	char		application_name[NAMEDATALEN];
	double		commit_standby_ms;	/* 1.10: the waits for a standby */
	int64		commit_standby_xacts;	/* commits that waited */
} WlMinuteRecord;

/*
 * What walload.commit_strategy did at a commit, strongest last: it was off
 * or had nothing to decide; it kept the transaction's threshold; it stood
 * aside because the transaction set wal_skip_threshold itself (SET LOCAL
 * wins), or because auto's figures were not timed since the server's last
 * start or crash-restart (core decides then); it changed the threshold.
 */
typedef enum WlStrategyAction
{
	WL_ACTION_NONE = 0,
	WL_ACTION_KEPT,
	WL_ACTION_ASIDE_SET_LOCAL,
	WL_ACTION_ASIDE_UNCALIBRATED,
	WL_ACTION_CHANGED,
	WL_ACTION_ASIDE_MISPREDICTED	/* 1.10, last to keep the values before:
									 * auto stood aside, its recent commits
									 * took far longer than it predicted
									 * (strategy.c) */
} WlStrategyAction;

/* Key of an aggregate in walload_stats */
typedef struct WlStatsKey
{
	Oid			userid;
	Oid			dbid;
	uint64		queryid;
	CommandTag	tag;
	bool		toplevel;
} WlStatsKey;


/* ---------- the calibration of a scan's cost (calibrate.c, kept by store.c, read by cost.c) ---------- */
#define WL_COST_GRID	5		/* relation counts the many-file walk is timed at */
#define WL_COST_GRID_FILES	{1, 8, 20, 21, 1024}

/*
 * The storage under the data directory, as the calibration worker timed it
 * (see calibrate.c): what a commit's syncs, WAL and file deletions cost
 * besides the scans.
 */
typedef struct WlIoCost
{
	bool		valid;			/* the figures below timed */
	double		write_ns_per_block; /* write() of a block the file has */
	double		fsync_ns_per_block; /* fsync of a written block */
	double		fsync_ns_per_file;	/* fsync of a new file with one block */
	double		wal_flush_ns;	/* a block rewritten and fdatasync'ed */
	double		delete_ns_per_file; /* deleting a relation file (truncation) */
	double		delete_ns_per_block;	/* and per block it held */
	double		delete_cached_ns_per_file;	/* the same for a file whose
											 * blocks are only in the page
											 * cache (written, never
											 * allocated on disk) */
	double		delete_cached_ns_per_block;
	double		open_ns;		/* opening and closing a file that exists */
	double		open_missing_ns;	/* asking for a file that does not */
	double		fpi_ns_per_block;	/* checksum and copy of a full-page image */
	double		page_bytes;		/* the OS page size */
	double		wal_fault_ns_per_page;	/* first write to a shared page that
										 * the process has not mapped yet */
	double		record_space_ns;	/* a backend's first WAL record of many
									 * blocks: its block slots allocated */

	/*
	 * Learned from the server's own commits (store.c), not timed: the
	 * storage's syncs at recent commits over what the figures above predict
	 * for them (1: as timed; 0 is read as 1), and how many commits taught it.
	 */
	double		fsync_time_ratio;
	int64		fsync_time_samples;

	/*
	 * Also learned: core's work at commit per file it fsyncs or WAL-logs
	 * that nothing above times (releasing the creating statements' locks,
	 * relcache invalidation, log_newpage_range's buffer lookups), ns; and
	 * how many commits taught it.
	 */
	double		file_commit_ns;
	int64		file_commit_samples;
} WlIoCost;

typedef struct WlScanCost
{
	double		single_ns;		/* ns per buffer header: one relation file */
	double		flush_ns[WL_COST_GRID]; /* many-file walks (see calibrate.c): */
	double		drop_ns[WL_COST_GRID];	/* at commit, and at commit or abort */
	bool		multi_valid;	/* flush_ns and drop_ns timed */
	double		fault_ns_per_page;	/* a header page mapped by the walk */
	double		invalidate_ns_per_buffer;	/* a deleted file's buffer the walk
											 * finds and invalidates */
	WlIoCost	io;				/* the storage */
} WlScanCost;

/*
 * What COMMIT (or PREPARE) of the current transaction will do, as core will
 * decide it (scan_model.c); its cost is cost.c's.
 */
typedef struct WlCommitModel
{
	/* at PREPARE: what ROLLBACK PREPARED will delete (COMMIT PREPARED: drop_*) */
	bool		abort_drop_scan;
	int32		abort_rels;
	int64		abort_buffers;	/* their buffers in shared buffers, sized
								 * as dropped_buffers */
	bool		sync_scan;		/* FlushRelationsAllBuffers will run */
	int32		sync_stmt_no;	/* first statement that created a synced
								 * file, or -1 */
	int32		wal_skipped_rels;	/* pending syncs considered */
	int32		synced_rels;
	int64		synced_blocks;
	int32		synced_truncated_rels;	/* of the synced: truncated in place,
										 * synced whatever the threshold */
	int64		synced_truncated_blocks;
	int32		wal_logged_rels;
	int64		wal_logged_blocks;
	bool		drop_scan;		/* DropRelFileNodesAllBuffers will scan */
	int32		drop_stmt_no;	/* first statement that scheduled a deleted
								 * file, or -1 */
	int32		dropped_rels;
	int64		dropped_blocks; /* blocks of their forks */
	int32		dropped_forks;	/* forks of those that exist */
	int32		dropped_stored_forks;	/* of those, forks with blocks the file
										 * system has allocated (not only in
										 * the page cache) */
	int64		dropped_stored_blocks;	/* and those blocks */
	int64		dropped_buffers;	/* their blocks in shared buffers, which
									 * the deletion's walk invalidates (the
									 * five sizes estimated from the first
									 * WL_DROP_SIZE_SAMPLE files) */
} WlCommitModel;

/*
 * What COMMIT PREPARED or ROLLBACK PREPARED will delete, as PREPARE left it
 * (the 2PC state file keeps the file lists; core does not export them):
 * whether deleting them walks the pool, how many files, and how many of
 * their buffers the walk invalidates, as counted at PREPARE.
 */
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
	int64		wal_own_bytes;	/* WAL this backend has inserted since it
								 * started */
	int64		wal_ring_bytes; /* the WAL buffers (wal_buffers) */
	bool		record_space_ready; /* this backend has WAL-logged a file at
									 * commit before */
} WlCommitState;

/*
 * A backend's running load, as walload_activity shows it: published by the
 * backend at every recorded statement's start and end (accumulator.c), in
 * a slot of its own (store.c).
 */
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
	/* what COMMIT and ROLLBACK would do if issued at predicted_at */
	TimestampTz predicted_at;	/* 0: no prediction yet */
	int32		pred_statements;	/* statements recorded when it was made */
	WlCommitModel pred;
	WlCommitState pred_state;	/* what the prediction assumed */
	double		pred_commit_ms;
	double		pred_scan_ms;	/* of which scans */
	int32		pred_abort_scans;
	int32		pred_abort_rels;
	int32		nbuffers;
	int32		wal_skip_threshold_kb;
} WlActivity;

/* helpers */

/*
 * The bounds of what the server's commits teach (store.c), which
 * walload.unit_costs keeps to as well (settings.c): a learned ratio within
 * [1/WL_LEARNED_BOUND, WL_LEARNED_BOUND], core's work per file at most
 * WL_FILE_COMMIT_MAX_NS.
 */
#define WL_LEARNED_BOUND	4.0
#define WL_FILE_COMMIT_MAX_NS	1e5

/* a ratio learned from commits (WlScanCost, WlIoCost): 0, none yet, is 1 */
static inline double
wl_learned_ratio(double ratio)
{
	return ratio > 0 ? ratio : 1;
}

static inline int64
wl_full_scans(const WlCounters *c)
{
	int64		n = 0;

	for (int i = 0; i < WL_NUM_SCAN_KINDS; i++)
		n += c->scans[i];
	return n;
}

#endif							/* WALLOAD_TYPES_H */
