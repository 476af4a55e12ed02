/*-------------------------------------------------------------------------
 *
 * walload.h
 *		Types and the interfaces between walload's parts.
 *
 * walload.c      module init, GUCs
 * hooks.c        ProcessUtility / executor / object-access hooks and the
 *                stack of statements in progress
 * xact_track.c   transaction and subtransaction callbacks, commit and
 *                abort phase timing, the backend's open transaction record
 * scan_model.c   which full shared-buffer scans core performs, decided
 *                the way core decides them; calibration of their cost
 * store.c        shared memory: statistics hash, transaction and
 *                statement rings, persistence across restarts
 * views.c        SQL-callable functions behind the views
 * diagnose.c     walload_diagnose(): findings from the recorded figures
 *
 *-------------------------------------------------------------------------
 */
#ifndef WALLOAD_H
#define WALLOAD_H

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

typedef enum WlTrackLevel
{
	WL_TRACK_NONE = 0,
	WL_TRACK_TOP,
	WL_TRACK_ALL
} WlTrackLevel;

#define WL_QUERY_LEN		256		/* bytes of query text kept, incl. NUL */

/* Work counters shared by statements, transactions and aggregates */
typedef struct WlCounters
{
	int64		rows;
	int64		shared_blks_hit;
	int64		shared_blks_read;
	int64		shared_blks_dirtied;
	int64		shared_blks_written;
	int64		wal_records;
	int64		wal_fpi;
	uint64		wal_bytes;
	uint64		wal_fpi_bytes;	/* of those, full-page images (19+; else 0) */
	int64		wal_writes;		/* WAL writes this backend did itself */
	int64		wal_syncs;		/* WAL flushes (fsyncs) this backend did */
	int64		wal_sync_us;	/* their time, with track_wal_io_timing */
	int64		scans[WL_NUM_SCAN_KINDS];
	int64		scan_est_ns;	/* the scans' estimated duration (scan_cost.c) */
} WlCounters;

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
	TimestampTz start;
	TimestampTz end;
	uint8		outcome;		/* WlOutcome */
	int8		wal_level;
	int8		synchronous_commit;
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
	int32		wal_skip_threshold_kb;
} WlXactRecord;

/* Key of an aggregate in walload_stats */
typedef struct WlStatsKey
{
	Oid			userid;
	Oid			dbid;
	uint64		queryid;
	CommandTag	tag;
	bool		toplevel;
} WlStatsKey;

/* ---------- walload.c: settings ---------- */
extern int	wl_track;
extern bool wl_track_utility;
extern bool wl_track_dml;
extern int	wl_max_stats;
extern int	wl_max_xacts;
extern int	wl_max_statements;
extern bool wl_save;
extern bool wl_compute_query_id;
extern double wl_warn_scan_ms;

/* ---------- hooks.c ---------- */
extern void wl_install_hooks(void);
extern bool wl_statement_in_progress(void);
extern void wl_add_scans_to_current(WlScanKind kind, int64 n, double est_ns);
extern void wl_add_vacuum_to_current(int ring_kb, int64 pages, int64 pages_removed);
extern void wl_xact_mark_wal_skipped_current(void);
extern int32 wl_current_statement_no(void);
extern void wl_note_storage_effects(void);
extern void wl_stack_abort(SubTransactionId subid);
extern void wl_stack_xact_end(void);
extern const char *wl_command_name(CommandTag tag);
extern WlTimeKind wl_time_kind(CommandTag tag);

/* ---------- xact_track.c ---------- */
extern void wl_register_xact_callbacks(void);
extern void wl_xact_observe(void);
extern bool wl_xact_observed(void);
extern void wl_xact_note_activity(void);
extern void wl_xact_add_dropped_rels(int32 n);
extern void wl_xact_add_scans(WlScanKind kind, int64 n, double est_ns);
extern int32 wl_xact_next_stmt_no(void);
extern void wl_xact_reserve_finished(int more);
extern void wl_xact_statement_done(const WlStmtRecord *rec, bool count_in_xact);
extern void wl_xact_note_storage_statement(int32 stmt_no);
extern void wl_model_set_prepare_gid(const char *gid);

/* ---------- scan_model.c ---------- */
typedef struct WlCommitModel
{
	/* at PREPARE: what COMMIT / ROLLBACK PREPARED will delete */
	bool		abort_drop_scan;
	int32		abort_rels;
	bool		sync_scan;		/* FlushRelationsAllBuffers will run */
	int32		wal_skipped_rels;	/* pending syncs considered */
	int32		synced_rels;
	int64		synced_blocks;
	int32		wal_logged_rels;
	int64		wal_logged_blocks;
	bool		drop_scan;		/* DropRelFileNodesAllBuffers will scan */
	int32		dropped_rels;
} WlCommitModel;

extern void wl_model_register(void);
extern void wl_model_init(void);
extern void wl_model_commit(bool is_prepare, WlCommitModel *model);
extern int32 wl_model_sync_statement(void);
extern int32 wl_model_drop_statement(void);
extern bool wl_model_abort_drop_scan(int32 *nrels);
extern int32 wl_model_abort_statement(int nest_level);
extern void wl_model_subxact_abort(void);
extern void wl_model_xact_end(void);
extern bool wl_model_after_utility(int32 stmt_no);
extern void wl_model_note_truncate(Oid relid);
extern void wl_model_note_created_relation(Oid relid);
extern void wl_model_note_altered_relation(Oid relid);
extern bool wl_model_relation_skips_wal(Relation rel);

/* per-statement before/after observations (VACUUM, databases, sequences) */
typedef struct WlUtilityObservation WlUtilityObservation;
extern WlUtilityObservation *wl_model_utility_before(Node *parsetree);
extern void wl_model_utility_after(WlUtilityObservation *obs, bool success);

/* --- scan_cost.c: the calibration and the one scans-to-time formula --- */

/*
 * Passes of the calibration at server start (each one walk of all buffer
 * headers, after a cache-evicting write): the median of 9 is stable to a few
 * percent where single walks vary by a third.
 */
#define WL_STARTUP_CALIBRATION_PASSES 9
#define WL_COST_GRID	5		/* relation counts the many-file walk is timed at */

typedef struct WlScanCost
{
	double		single_ns;		/* ns per buffer header: one relation file */
	double		warm_ns;		/* the same, right after another walk */
	double		flush_ns[WL_COST_GRID]; /* many-file walks (see scan_cost.c): */
	double		drop_ns[WL_COST_GRID];	/* at commit, and at commit or abort */
	bool		multi_valid;	/* flush_ns and drop_ns timed */
	double		fault_ns_per_page;	/* a header page mapped by the walk */
} WlScanCost;

extern void wl_scan_cost_calibrate(int passes, bool measure_faults, WlScanCost *cost);
extern double wl_scan_est_ns(const WlScanCost *cost, WlScanKind kind, int nfiles,
							 int64 unmapped_pages);
extern double wl_scans_est_ns(WlScanKind kind, int64 n, int nfiles, bool before_scan);
extern void wl_header_pages_sample(void);
extern void wl_scan_cost_register_worker(void);

/* ---------- store.c ---------- */
extern void wl_shmem_request(void);
extern void wl_shmem_startup(void);
extern bool wl_store_ready(void);
extern void wl_store_require(void);
extern uint64 wl_store_next_xact_id(void);
extern bool wl_store_statement(const WlStmtRecord *rec, bool may_wait,
							   int64 *ring_pos);
extern bool wl_store_add_statement_scans(int64 ring_pos, uint64 xact_id, int32 stmt_no,
										 const WlStatsKey *key, WlScanKind kind,
										 int64 n, int32 nbuffers, double est_ns,
										 bool may_wait);
extern void wl_store_xact(const WlXactRecord *rec);
extern void wl_store_add_scan_totals(WlScanKind kind, int64 n, int32 nbuffers);
extern void wl_store_set_scan_cost(const WlScanCost *cost, bool whole);
extern void wl_store_get_scan_cost(WlScanCost *cost);
extern void wl_store_remember_prepared(const char *gid, bool commit_scan, int32 commit_rels,
									   bool abort_scan, int32 abort_rels);
extern bool wl_store_take_prepared(const char *gid, bool commit, int32 *nrels, bool *known);

/* accessors used by views.c and diagnose.c; return palloc'd copies */
extern int	wl_store_copy_xacts(WlXactRecord **out);
extern int	wl_store_copy_statements(WlStmtRecord **out);
typedef bool (*WlStmtFilter) (const WlStmtRecord *rec, void *arg);
extern int	wl_store_copy_statements_filtered(WlStmtFilter filter, void *arg,
											  WlStmtRecord **out);

typedef struct WlStatsEntryCopy
{
	WlStatsKey	key;
	int64		calls;
	int64		errors;
	double		total_ms;
	double		min_ms;
	double		max_ms;
	double		mean_ms;
	double		sum_var_ms;
	int64		wal_skipped_calls;
	double		est_scan_ms;
	int64		scanned_buffers;
	WlCounters	c;
	char		query[WL_QUERY_LEN];
} WlStatsEntryCopy;
extern int	wl_store_copy_stats(WlStatsEntryCopy **out);

typedef struct WlInfo
{
	TimestampTz stats_reset;
	uint64		xacts_recorded;
	uint64		xacts_overwritten;
	uint64		statements_recorded;
	uint64		statements_overwritten;
	int32		stats_entries;
	int64		stats_evicted;
	int64		scans[WL_NUM_SCAN_KINDS];
	int64		scanned_buffers;
	TimestampTz calibrated_at;
	double		ns_per_buffer;
	Size		shmem_bytes;
	int64		lock_waits;
	double		lock_wait_ms;
} WlInfo;
extern void wl_store_info(WlInfo *info);
extern void wl_store_reset(void);

/* ---------- views.c ---------- */
extern const char *wl_wal_level_name(int level);
extern const char *wl_sync_commit_name(int value);
extern bool wl_check_columns(ReturnSetInfo *rsinfo, int cols, int cols_added,
							 const char *fn);

/* helpers */
static inline int64
wl_full_scans(const WlCounters *c)
{
	int64		n = 0;

	for (int i = 0; i < WL_NUM_SCAN_KINDS; i++)
		n += c->scans[i];
	return n;
}

extern void wl_counters_add(WlCounters *dst, const WlCounters *src);

/* a point to measure buffer, WAL and WAL I/O usage from */
typedef struct WlUsageMark
{
	BufferUsage buf;
	WalUsage	wal;
	WlWalIo		walio;
	bool		walio_valid;
} WlUsageMark;
extern void wl_usage_mark(WlUsageMark *mark);
extern void wl_usage_accum(WlUsageMark *acc, const WlUsageMark *mark);
extern void wl_usage_counters(const WlUsageMark *acc, WlCounters *c);
extern void wl_usage_since(const WlUsageMark *mark, WlCounters *c);

#endif							/* WALLOAD_H */
