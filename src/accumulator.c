/*-------------------------------------------------------------------------
 *
 * accumulator.c
 *		The backend's accumulator: statements in progress, the open
 *		transaction record, its commit and abort phases, the attribution of
 *		their walks and time to statements, the queue of finished records
 *		for the store, and what a PREPARE leaves for its COMMIT PREPARED.
 *
 * The statement stack lives in TopMemoryContext: a statement that runs
 * several transactions (VACUUM, a procedure that commits) is folded into
 * the record of the one that ends it (inner_xacts).
 *
 * Phases as xact.c runs them.  Commit: PRE_COMMIT, pending syncs (the sync
 * walk), the commit record and its flush, the standby wait; COMMIT: locks
 * released, pending deletes (the drop walk); TopTransactionContext's reset
 * ends it.  Abort: ABORT to the reset (or to the locks' release where core
 * cleans up only at ROLLBACK).  ABORT_SUB: its walk counted.
 *
 * A FATAL exit unwinds nothing: wl_acc_exit_begins ends the statements as
 * errors, core's abort records the transaction, wl_acc_backend_exit stores
 * what waits.
 *
 * The abort path and the commit cleanup (an error there is a PANIC): no
 * allocation but core's file lists in TransactionAbortContext; no read of
 * memory core may have freed (copy_text); no file I/O; no wait on walload's
 * lock, no eviction (what cannot be stored waits); no ERROR or WARNING
 * (docs/guarantees.md).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "accumulator.h"

#include "access/xact.h"
#include "access/xlog.h"
#include "mb/pg_wchar.h"
#include "replication/syncrep.h"
#include "replication/walsender.h"
#include "miscadmin.h"
#include "storage/bufmgr.h"
#include "storage/ipc.h"
#include "utils/guc.h"
#include "utils/memutils.h"

#include "measure.h"
#include "cost.h"
#include "settings.h"
#include "store.h"
#include "strategy.h"

/* a statement's start: a held plain SELECT whole, a stack entry's head */
typedef struct WlStmtStart
{
	CommandTag	tag;
	uint64		queryid;
	Oid			userid;			/* the role at its start, right at an abort */
	int			nest_level;
	QueryDesc  *queryDesc;		/* executor only; compared, not dereferenced */
	int32		stmt_no;
	uint64		xact_epoch;		/* transaction it started in */
	SubTransactionId subid;
	/* core's text, readable only while its hook runs; NULL once copied */
	const char *source_text;
	int			query_location;
	int			query_len;
	instr_time	start;			/* utility: start; executor: start of Run */
	WlUsageMark usage_start;	/* utility: start; executor: start of phase */
} WlStmtStart;

/* One statement in progress */
typedef struct WlActiveStmt
{
	WlStmtStart st;
	uint64		serial;			/* unique in this backend: finds the entry */
	bool		tracked;		/* else kept for its nested work only */
	bool		is_utility;
	bool		conditional;	/* plain SELECT: recorded only if it wrote */
	TimestampTz start_ts;		/* plain SELECT: 0 until needed */
	instr_time	phase_start;	/* executor: start of the phase running now */

	/* new_entry zeroes from here to query */
	bool		storage_effects;	/* created or scheduled deletion of files */
	bool		wal_skipped;
	int			text_len;		/* query[]'s bytes of text, before the NUL */
	int			running;		/* executor: inside ExecutorRun/Finish */
	bool		measured;		/* utility: measured (time, usage) */
	double		measured_ms;	/* Run/Finish time, or the utility's */
	WlUsageMark usage;			/* the same for usage; c.scans: its walks */
	int32		vacuum_ring_kb;
	int64		vacuum_pages;
	int64		vacuum_pages_removed;
	char		query[WL_QUERY_LEN];
} WlActiveStmt;

static WlActiveStmt *stmt_stack = NULL;
static int	stmt_depth = 0;
static int	stmt_capacity = 0;
static uint64 next_serial = 1;

/* local epoch of top-level transactions, see wl_acc_xact_end() */
static uint64 xact_epoch_now = 1;

/*
 * A plain SELECT (recorded only if it writes) is held here, not pushed: most
 * never write.  It becomes an entry (promote_light) when a statement starts
 * inside it, its phase wrote WAL, or its phase may be resumed.
 */
typedef struct WlLightStmt
{
	bool		active;
	bool		running;		/* inside its ExecutorRun */
	bool		ran;			/* its one phase ended, nothing written */
	WlStmtStart st;				/* start: of its phase */
} WlLightStmt;

static WlLightStmt light;

/* what a statement's time is counted as in its transaction */
static WlTimeKind
time_kind(CommandTag tag)
{
	switch (tag)
	{
		case CMDTAG_COPY:
		case CMDTAG_COPY_FROM:
			return WL_TIME_COPY;
		case CMDTAG_CREATE_TABLE:
		case CMDTAG_CREATE_TABLE_AS:
		case CMDTAG_SELECT_INTO:
		case CMDTAG_CREATE_MATERIALIZED_VIEW:
		case CMDTAG_CREATE_SEQUENCE:
		case CMDTAG_CREATE_DATABASE:
			return WL_TIME_CREATE;
		case CMDTAG_CREATE_INDEX:
		case CMDTAG_REINDEX:
			return WL_TIME_INDEX;
		case CMDTAG_INSERT:
		case CMDTAG_UPDATE:
		case CMDTAG_DELETE:
		case CMDTAG_MERGE:
		case CMDTAG_SELECT:
			return WL_TIME_DML;
		case CMDTAG_VACUUM:
		case CMDTAG_ANALYZE:
			return WL_TIME_VACUUM;
		case CMDTAG_TRUNCATE_TABLE:
			return WL_TIME_TRUNCATE;
		case CMDTAG_DROP_TABLE:
		case CMDTAG_DROP_INDEX:
		case CMDTAG_DROP_SEQUENCE:
		case CMDTAG_DROP_MATERIALIZED_VIEW:
		case CMDTAG_DROP_SCHEMA:
		case CMDTAG_DROP_OWNED:
		case CMDTAG_DROP_DATABASE:
		case CMDTAG_DROP_EXTENSION:
			return WL_TIME_DROP;
		case CMDTAG_CLUSTER:
			WL_CASE_CMDTAG_REPACK
		case CMDTAG_REFRESH_MATERIALIZED_VIEW:
		case CMDTAG_ALTER_TABLE:
		case CMDTAG_ALTER_INDEX:
		case CMDTAG_ALTER_MATERIALIZED_VIEW:
			return WL_TIME_REWRITE;
		default:
			return WL_TIME_OTHER;
	}
}

/* this backend has stored a transaction record (WlXactRecord.first_in_session) */
static bool recorded_before = false;

/*
 * Finished statements to store, in order.  A held one (it created or doomed
 * files) waits for the record's end, which charges it its share of the commit.
 */
typedef struct WlQueued
{
	WlStmtRecord rec;
	bool		held;
	int32		sync_files;
	int32		cleanup_files;
	int32		text_len;		/* rec.query is zero past it, free slots too */
} WlQueued;

static WlQueued *finished = NULL;
static int	n_finished = 0;
static int	finished_capacity = 0;

/* the open transaction: its record, filled in place, and what fills it */
typedef struct WlOpenXact
{
	WlXactRecord rec;
	bool		observed;		/* a statement started with tracking on */
	bool		active;			/* there is something to record */
	int32		next_stmt_no;
	double		faults_mark;	/* wl_scan_faults_priced_ns() when observed */
	/* rec.userid, application_name: the last (top-level) statement's, as run */
	bool		role_from_toplevel; /* rec.userid is a top-level statement's */
	bool		usage_baseline_set;

	/* walload_activity: what this backend shows of the record */
	bool		shown;			/* its slot holds this record */
	bool		storage_touched;	/* the pending files may have changed */
	int64		pred_work;		/* pending files the predictions went over */
	int64		dirty_load_blocks;	/* <= NBuffers: see note_dirtied_by_load */
	int32		failed_stmt_no; /* the last recorded statement that failed */

	int32		pred_small_files;	/* files WAL-logged, if nothing else */
	bool		threshold_read; /* rec's thresholds were read at a commit */
	bool		prepare_pending;	/* PREPARE: its deletions to keep */

	/* the commit or abort phase in progress (rec.outcome: which) */
	bool		in_phase;
	bool		abort_deferred;
	bool		phase_has_xid;	/* core may wait on a standby for its record */
	bool		phase_io_valid; /* phase_io read at the phase's start */
	int8		commit_action;	/* this commit's WlStrategyAction */
	int32		charge_sync_files;	/* files it acts on (charge_commit_phase) */
	int32		charge_cleanup_files;
	int32		worker_stmt_no; /* a background process's work's statement */
	WlActivity	act;			/* as published; rows, scans: the record's */

	/* set before read: the record's end zeroes cur up to act.pred (empty_pred_in_act) */
	WlUsageMark usage_baseline; /* if usage_baseline_set */
	instr_time	phase_start;	/* begin_phase */
	instr_time	phase_mid;
	instr_time	phase_afterlocks;
	uint64		phase_wal_start;
	WlWalIo		phase_io;
	double		pred_files_ns;	/* PRE_COMMIT: walk, syncs, WAL-logging */
	double		wal_flush_price_ns; /* a WAL flush as calibrated */
} WlOpenXact;

static WlOpenXact cur;

/* which commits teach the store what (see learn_from_commit) */
#define WL_FSYNC_TIME_MIN_NS	2e6
#define WL_FILE_COMMIT_MIN		8
#define WL_FILE_COMMIT_BLOCKS	2

static char prepare_gid[GIDSIZE];

/* PREPARE TRANSACTION gid is running: the gid is kept for its end */
void
wl_acc_set_prepare_gid(const char *gid)
{
	strlcpy(prepare_gid, gid, GIDSIZE);
}

/* a statement starts with tracking on: observe the transaction */
void
wl_acc_observe(void)
{
	if (cur.observed)
		return;
	cur.observed = true;
	/* what walload_activity shows of the backend, for the record's life */
	cur.act.pid = MyProcPid;
	cur.act.dbid = MyDatabaseId;
	cur.act.nbuffers = NBuffers;
	cur.faults_mark = wl_scan_faults_priced_ns();
	cur.rec.start = IsTransactionState() ?
		GetCurrentTransactionStartTimestamp() : GetCurrentTimestamp();
}

bool
wl_acc_observed(void)
{
	return cur.observed;
}

/* the record's, kept across records: copied only when it changed */
static WlName record_app;

/* the record is the role's and application's (see WlOpenXact) */
static void
take_role_and_application(Oid userid)
{
	const char *name = application_name ? application_name : "";

	cur.rec.userid = userid;
	if (strcmp(record_app, name) != 0)
		strncpy(record_app, name, NAMEDATALEN - 1);
}

static void
activate(bool take_role)
{
	if (cur.active)
		return;
	cur.active = true;
	cur.rec.xact_id = wl_store_next_xact_id();
	if (take_role)
		take_role_and_application(GetUserId());
	wl_acc_observe();
}

/* the transaction's usage counts from its first statement (or since) */
static void
note_activity(const WlUsageMark *since)
{
	if (cur.usage_baseline_set)
		return;
	if (since)
		cur.usage_baseline = *since;
	else
		wl_usage_mark(&cur.usage_baseline);
	cur.usage_baseline_set = true;
}

/* the open record's queued statement stmt_no (WL_ANY_STMT: any), or NULL */
#define WL_ANY_STMT PG_INT32_MIN
static WlQueued *
queued(int32 stmt_no, bool held_only)
{
	if (stmt_no < 0 && stmt_no != WL_ANY_STMT)
		return NULL;
	for (int i = n_finished - 1; i >= 0; i--)
		if (finished[i].rec.xact_id == cur.rec.xact_id && (finished[i].held || !held_only) &&
			(finished[i].rec.stmt_no == stmt_no || stmt_no == WL_ANY_STMT))
			return &finished[i];
	return NULL;
}

#define holds_statements() (queued(WL_ANY_STMT, true) != NULL)

/* ---------- handing over to the store ---------- */

/* which of the open record's queued statements flush_finished leaves queued */
typedef enum WlKeep
{
	WL_KEEP_OPEN,				/* all: the record is open */
	WL_KEEP_HELD,				/* the held ones */
	WL_KEEP_NONE
} WlKeep;

/*
 * Store the queue but what keep keeps, in one hold of walload's lock.
 * may_wait false: only if it is free; in_cleanup: see store.c.
 */
static pg_attribute_always_inline void
flush_finished(bool may_wait, WlKeep keep, bool in_cleanup)
{
	int			kept = 0;
	int			i = 0;

	for (; i < n_finished; kept++, i++)
	{
		int			run = 0;
		int			stored;

		/* a run to store: up to a statement kept, the open record's tail (all kept) */
		for (WlQueued *q = &finished[i]; i + run < n_finished; run++, q++)
			if (cur.active && q->rec.xact_id == cur.rec.xact_id &&
				(keep == WL_KEEP_OPEN || (keep == WL_KEEP_HELD && q->held)))
				break;
		stored = run > 0 ? wl_store_statements(&finished[i].rec, sizeof(WlQueued),
											   run, may_wait, in_cleanup) : 0;
		i += stored;
		if (stored < run || i == n_finished || keep == WL_KEEP_OPEN)
			break;
		if (kept != i)			/* kept, if not in place (a commit's held one is) */
			finished[kept] = finished[i];
	}
	if (i > kept)				/* else nothing stored: walload's lock is free */
		wl_store_unlock();
	if (kept < i && i < n_finished)
		memmove(&finished[kept], &finished[i], sizeof(WlQueued) * (n_finished - i));
	n_finished = kept + n_finished - i;
}

/*
 * A statement starts or a commit begins: store what waits if the lock is free
 * (at a commit, all but the held ones); past WL_QUEUE_BOUND wait for it; past
 * WL_HELD_BOUND (a restore's DROPs) store the held ones too, uncharged.
 */
#define WL_QUEUE_BOUND	64
#define WL_HELD_BOUND	1024

static void
flush_at_safe_point(int more, bool at_commit)
{
	flush_finished(false, at_commit ? WL_KEEP_HELD : WL_KEEP_OPEN, false);
	if (n_finished + more > WL_QUEUE_BOUND)
		flush_finished(true, WL_KEEP_HELD, false);
	if (n_finished + more > WL_HELD_BOUND)
		flush_finished(true, WL_KEEP_NONE, false);
}

/* a statement starts: room to queue `more` without allocating (error paths) */
static pg_attribute_always_inline void
reserve_finished(int more)
{
	/* room beyond what an ordinary transaction grows to is given back */
	if (n_finished == 0 && finished_capacity > 4 * WL_QUEUE_BOUND)
	{
		pfree(finished);
		finished = NULL;
		finished_capacity = 0;
	}
	if (n_finished == 0 && more <= finished_capacity)
		return;
	/* only the open record's statements queued: flush_at_safe_point keeps all */
	if (n_finished > 0 && cur.active && finished[0].rec.xact_id == cur.rec.xact_id &&
		n_finished + more <= Min(finished_capacity, WL_QUEUE_BOUND))
		return;
	flush_at_safe_point(more, false);
	if (n_finished + more > finished_capacity)
	{
		int			newcap = Max(64, (n_finished + more) * 2);

		finished = finished == NULL ?
			MemoryContextAlloc(TopMemoryContext, sizeof(WlQueued) * newcap) :
			repalloc(finished, sizeof(WlQueued) * newcap);
		/* new slots hold no text (WlQueued.text_len) */
		memset(&finished[finished_capacity], 0,
			   sizeof(WlQueued) * (newcap - finished_capacity));
		finished_capacity = newcap;
	}
}

/* ---------- walload_activity: the running load, shown to others ---------- */

/*
 * A prediction reads every pending file, quadratic over thousands: at most
 * WL_PREDICT_BUDGET_FILES files plus WL_PREDICT_PER_STMT per statement (not
 * time: independent of the load); then the last prediction stays.
 */
#define WL_PREDICT_BUDGET_FILES		4096
#define WL_PREDICT_PER_STMT			16

/* a commit with nothing pending, priced at current_cost's last reading */
static const WlCommitModel empty_model = {.sync_stmt_no = -1,.drop_stmt_no = -1};
static const WlCommitState empty_state;
static WlCommitEstimate empty_est;
static bool empty_pred_in_act = false;	/* cur.act's (and the slot's) prediction */
static bool pred_unshown = false;	/* cur.act's prediction newer than the slot's */

/* the calibration, read again at most once a second */
static const WlScanCost *
current_cost(TimestampTz now)
{
	static WlScanCost cost;
	static TimestampTz read_at = 0;
	static uint64 generation = 0;

	if (read_at == 0 || now - read_at > USECS_PER_SEC ||
		generation != wl_unit_costs_generation())
	{
		wl_cost_figures(&cost);
		read_at = now;
		empty_pred_in_act = false;
		generation = wl_unit_costs_generation();
		/* wl_commit_est is pure: the same until the next reading */
		wl_commit_est(&empty_model, &cost, &empty_state, &empty_est);
	}
	return &cost;
}

/* blocks the commit's sync finds dirty: a utility leaves at most its ring */
#define WL_BULKWRITE_RING_BLOCKS	(16 * 1024 * 1024 / BLCKSZ)

static inline void
note_dirtied_by_load(const WlStmtRecord *rec)
{
	if (!rec->wal_skipped)
		return;
	cur.dirty_load_blocks = Min(cur.dirty_load_blocks +
								(time_kind(rec->tag) == WL_TIME_DML ?
								 rec->c.shared_blks_dirtied :
								 Min(rec->c.shared_blks_dirtied, WL_BULKWRITE_RING_BLOCKS)),
								(int64) NBuffers);
}

/* what COMMIT and ROLLBACK would do now, priced by cost.c; false: no budget */
static bool
predict_commit(WlActivity *a, TimestampTz now)
{
	WlCommitModel m;
	WlCommitEstimate est;
	int32		abort_rels = 0;

	pred_unshown = false;
	if (cur.storage_touched)
	{
		WlCommitFiles cf;

		if (cur.pred_work > WL_PREDICT_BUDGET_FILES +
			WL_PREDICT_PER_STMT * (int64) cur.rec.statements)
			return false;
		wl_model_read_commit(true, true, &cf);
		wl_model_commit(&cf, false, true, &m, NULL);
		abort_rels = cf.ncreated;
		wl_model_free_commit(&cf);
		/* the state takes the WAL insert spinlock: only where files are pending */
		wl_commit_state_now(&a->pred_state, &m, cur.dirty_load_blocks, true);
		wl_commit_est(&m, current_cost(now), &a->pred_state, &est);
		cur.pred_work += 1 + m.synced_rels + m.wal_logged_rels + m.dropped_rels + abort_rels;
		empty_pred_in_act = false;
	}
	else
	{
		(void) current_cost(now);	/* nothing pending: empty_est */
		if (empty_pred_in_act)
			return true;
		empty_pred_in_act = true;
		a->pred_state = empty_state;
		m = empty_model;
		est = empty_est;
	}
	a->pred = m;
	a->pred_commit_ms = est.total_ns / 1e6;
	a->pred_scan_ms = est.scan_ns / 1e6;
	a->pred_abort_scans = abort_rels > 0 ? 1 : 0;
	a->pred_abort_rels = abort_rels;
	pred_unshown = true;
	return true;
}

/*
 * Show the open record at a recorded statement's start (starting: now is
 * command_start) and end (predict: a new prediction).  Not on the abort path.
 */
static pg_attribute_always_inline void
publish_activity(CommandTag command, TimestampTz command_start, bool starting,
				 bool predict)
{
	WlActivity *a = &cur.act;
	/* a prediction is written when new; with nothing pending it only dates */
	bool		whole = predict && (cur.storage_touched || a->predicted_at == 0);
	TimestampTz now;

	if (!cur.observed)
		return;
	now = starting ? command_start : GetCurrentTimestamp();
	/* starting: the entry being pushed read the role at its start */
	a->userid = starting ? stmt_stack[stmt_depth].st.userid : GetUserId();
	a->xact_start = cur.rec.start;
	a->state_change = now;
	a->current_command = command;
	a->current_stmt_start = command_start;
	a->wal_bytes = cur.usage_baseline_set ?
		pgWalUsage.wal_bytes - cur.usage_baseline.c.wal_bytes : 0;
	a->wal_skip_threshold_kb = wal_skip_threshold;
	if (predict && IsTransactionState() && (!whole || predict_commit(a, now)))
	{
		a->predicted_at = now;
		a->pred_statements = cur.rec.statements;
	}
	wl_store_publish_activity(a, whole && pred_unshown);
	cur.shown = true;
}

/* the record is over: its row goes (no lock, nothing that can fail) */
static void
unpublish_activity(void)
{
	if (cur.shown)
		wl_store_clear_activity();
	cur.shown = false;
}

/* the backend exits, after core's abort: store what waits */
void
wl_acc_backend_exit(void)
{
	unpublish_activity();
	if (n_finished > 0)
		flush_finished(true, WL_KEEP_NONE, false);
}

/* ---------- scans ---------- */

/* returns whether the scans count: something, in an observed transaction */
static bool
xact_add_scans(WlScanKind kind, int64 n, double est_ns)
{
	if (n < 0 || (n == 0 && est_ns == 0) || !cur.observed)
		return false;
	activate(true);
	cur.act.scans[kind] += n;
	cur.act.scan_est_ns += (int64) est_ns;
	if (n > 0)
		wl_store_add_scan_totals(kind, n, NBuffers);
	return true;
}

/* the innermost statement running now (tracked_only: recorded one), or -1 */
static int
current_statement(bool tracked_only)
{
	for (int i = stmt_depth - 1; i >= 0; i--)
		if ((stmt_stack[i].is_utility || stmt_stack[i].running > 0) &&
			(stmt_stack[i].tracked || !tracked_only))
			return i;
	return -1;
}

/* a scan during the innermost running statement: its and the transaction's */
static void
add_scans_to_current(WlScanKind kind, int64 n, double est_ns)
{
	int			idx = current_statement(false);

	if (xact_add_scans(kind, n, est_ns) && idx >= 0)
	{
		stmt_stack[idx].usage.c.scans[kind] += n;
		stmt_stack[idx].usage.c.scan_est_ns += (int64) est_ns;
	}
}

/*
 * A walk at commit or abort caused by statement stmt_no (-1: unknown): to its
 * held record, its entry if it runs, else the statement running now; at an
 * abort, files of no known creator are the failed statement's.
 */
static void
add_attributed_scan(WlScanKind kind, int32 stmt_no, int nfiles, int64 buffers,
					bool on_abort_path)
{
	double		est_ns = wl_scans_est_ns(kind, 1, nfiles, buffers);
	WlQueued   *q;
	WlCounters *c = NULL;

	if (stmt_no < 0 && cur.worker_stmt_no > 0)
		stmt_no = cur.worker_stmt_no;
	q = queued(stmt_no, true);
	if (q == NULL && stmt_no < 0 && on_abort_path)
		q = queued(cur.failed_stmt_no, false);
	if (q != NULL)
		c = &q->rec.c;
	for (int i = stmt_depth - 1; i >= 0 && stmt_no >= 0 && c == NULL; i--)
		if (stmt_stack[i].st.stmt_no == stmt_no && stmt_stack[i].storage_effects)
			c = &stmt_stack[i].usage.c;
	if (c == NULL)
	{
		add_scans_to_current(kind, 1, est_ns);
		return;
	}
	xact_add_scans(kind, 1, est_ns);
	c->scans[kind]++;
	c->scan_est_ns += (int64) est_ns;
}

/*
 * ---------- the commit phase charged to statements ----------
 * Split equally among the files it acted on, each share to the held statement
 * the file came from (commit_ms): syncs to their creators, deletions to who
 * scheduled them (an abort's: creators).  Inner commits are not charged.
 */
static void
clear_commit_charges(void)
{
	for (int i = 0; i < n_finished; i++)
		finished[i].sync_files = finished[i].cleanup_files = 0;
	cur.charge_sync_files = cur.charge_cleanup_files = 0;
}

/* one file per entry of creators (a statement number, or -1) */
static void
count_charged_files(const int32 *creators, int n, bool sync)
{
	WlQueued   *q;

	for (int i = 0; i < n; i++)
		if ((q = queued(creators[i], true)) != NULL)
			*(sync ? &q->sync_files : &q->cleanup_files) += 1;
	*(sync ? &cur.charge_sync_files : &cur.charge_cleanup_files) = n;
}

/* the phase is over and timed: each held statement's share, into its record */
static void
charge_commit_phase(void)
{
	for (int i = 0; i < n_finished; i++)
	{
		WlQueued   *q = &finished[i];

		if (q->sync_files > 0)
			q->rec.commit_ms += cur.rec.commit_sync_ms * q->sync_files / cur.charge_sync_files;
		if (q->cleanup_files > 0)
			q->rec.commit_ms += cur.rec.commit_cleanup_ms * q->cleanup_files / cur.charge_cleanup_files;
	}
	clear_commit_charges();
}

/* ---------- the statement stack ---------- */

static double
ms_between(instr_time from, instr_time to)
{
	INSTR_TIME_SUBTRACT(to, from);
	return INSTR_TIME_GET_MILLISEC(to);
}

/* copy the statement's text into the entry, once; its source must be valid */
static pg_attribute_always_inline void
copy_text(WlActiveStmt *s)
{
	const char *q;

	if (s->st.source_text == NULL)
		return;
	/* cleaned in place: read only here, and no stack protector for locals */
	q = s->st.source_text + Max(s->st.query_location, 0);
	/* CleanQuerytext() trims only bytes up to ' ': none at either end, as is */
	if (s->st.query_location < 0 || s->st.query_len <= 0 ||
		(unsigned char) q[0] <= ' ' || (unsigned char) q[s->st.query_len - 1] <= ' ')
		q = CleanQuerytext(s->st.source_text, &s->st.query_location, &s->st.query_len);
	s->text_len = s->st.query_len < WL_QUERY_LEN ? s->st.query_len :
		pg_mbcliplen(q, s->st.query_len, WL_QUERY_LEN - 1);
	memcpy(s->query, q, s->text_len);	/* text_len bytes are read: no NUL */
	s->st.source_text = NULL;
}

/* a statement's start by the wall clock: a plain SELECT's derived late */
static pg_noinline TimestampTz
derive_start_ts(WlActiveStmt *s)
{
	instr_time	since;

	INSTR_TIME_SET_CURRENT(since);
	INSTR_TIME_SUBTRACT(since, s->st.start);
	s->start_ts = GetCurrentTimestamp() - (TimestampTz) INSTR_TIME_GET_MICROSEC(since);
	return s->start_ts;
}

static inline TimestampTz
statement_start_ts(WlActiveStmt *s)
{
	return s->start_ts != 0 ? s->start_ts : derive_start_ts(s);
}

static void
grow_stack(void)
{
	int			newcap = stmt_capacity == 0 ? 16 : stmt_capacity * 2;

	stmt_stack = stmt_stack == NULL ?
		MemoryContextAllocZero(TopMemoryContext, sizeof(WlActiveStmt) * newcap) :
		repalloc(stmt_stack, sizeof(WlActiveStmt) * newcap);
	stmt_capacity = newcap;
}

/* what every statement takes at its start, but the clocks */
static inline void
start_statement(WlStmtStart *st, bool tracked, CommandTag tag, uint64 queryid,
				int nest_level, QueryDesc *queryDesc, const char *source_text,
				int query_location, int query_len)
{
	st->tag = tag;
	st->queryid = queryid;
	st->nest_level = nest_level;
	st->queryDesc = queryDesc;
	st->source_text = source_text;
	st->query_location = query_location;
	st->query_len = query_len;
	/* numbers saturate: a record of 2^31 statements keeps counting them */
	if (tracked && cur.next_stmt_no < PG_INT32_MAX)
		cur.next_stmt_no++;
	st->stmt_no = tracked ? cur.next_stmt_no : -1;
	/* after the stores of the arguments: no register is kept over a call */
	st->userid = GetUserId();
	st->xact_epoch = xact_epoch_now;
	st->subid = GetCurrentSubTransactionId();
}

/* the stack's next entry, all but its WlStmtStart and start_ts set */
static pg_attribute_always_inline WlActiveStmt *
new_entry(bool tracked, bool is_utility, bool conditional)
{
	WlActiveStmt *s;

	if (stmt_depth >= stmt_capacity)
		grow_stack();
	note_activity(NULL);
	s = &stmt_stack[stmt_depth];
	memset(&s->storage_effects, 0, offsetof(WlActiveStmt, query) -
		   offsetof(WlActiveStmt, storage_effects));
	s->serial = next_serial++;
	s->tracked = tracked;
	s->is_utility = is_utility;
	s->conditional = conditional;
	return s;
}

/* the held SELECT becomes an entry, in its phase if it runs (room reserved) */
static void
promote_light(void)
{
	WlActiveStmt *s = new_entry(true, false, true);

	light.active = false;
	s->st = light.st;
	s->start_ts = 0;
	s->running = light.running ? 1 : 0;
	s->phase_start = light.st.start;	/* read only while it runs */
	stmt_depth++;
}

static pg_attribute_always_inline WlActiveStmt *
push_statement(bool tracked, bool is_utility, bool conditional, CommandTag tag,
			   uint64 queryid, int nest_level, QueryDesc *queryDesc,
			   const char *source_text, int query_location, int query_len)
{
	WlActiveStmt *s;

	/* a statement starts inside the held plain SELECT: it is their parent */
	if (light.active && light.running)
		promote_light();
	/* room to queue every statement on the stack without allocating */
	reserve_finished(stmt_depth + 1);
	s = new_entry(tracked, is_utility, conditional);
	start_statement(&s->st, tracked, tag, queryid, nest_level, queryDesc,
					source_text, query_location, query_len);
	s->start_ts = conditional ? 0 : GetCurrentTimestamp();
	/* read by a utility's measure and a plain SELECT's start_ts only */
	if (is_utility || conditional)
		INSTR_TIME_SET_CURRENT(s->st.start);
	if (is_utility)
		wl_usage_mark(&s->st.usage_start);	/* buffers again right before the call */
	if (tracked && !conditional)
	{
		copy_text(s);
		if (cur.shown)			/* shown: observed */
		{
			cur.act.current_command = tag;
			cur.act.current_stmt_start = cur.act.state_change = s->start_ts;
			wl_store_publish_command(tag, s->start_ts);
		}
		else
			publish_activity(tag, s->start_ts, true, false);
	}
	stmt_depth++;
	return s;
}

static pg_attribute_always_inline void
remove_statement(int idx)
{
	Assert(idx >= 0 && idx < stmt_depth);
	if (idx < stmt_depth - 1)
		memmove(&stmt_stack[idx], &stmt_stack[idx + 1],
				sizeof(WlActiveStmt) * (stmt_depth - idx - 1));
	stmt_depth--;
}

static int
find_serial(uint64 serial)
{
	for (int i = stmt_depth - 1; i >= 0; i--)
		if (stmt_stack[i].serial == serial)
			return i;
	return -1;
}

/* is any statement on the stack (running, or a cursor's, between FETCHes) */
bool
wl_acc_statement_on_stack(void)
{
	/* an event inside the held plain SELECT is its own: it needs an entry */
	if (light.active && light.running)
		promote_light();
	return stmt_depth > 0;
}

/* stmt_no of the statement that takes the attribution of work done now */
int32
wl_acc_current_statement_no(void)
{
	int			idx = current_statement(true);

	return idx >= 0 ? stmt_stack[idx].st.stmt_no : -1;
}

/*
 * What the statement running now did (model.c, observe.c); files
 * created or doomed make the nearest recorded statement a held one.
 */
void
wl_acc_apply_effects(const WlEffects *eff)
{
	int			idx = current_statement(false);
	int			held = eff->storage ? current_statement(true) : -1;

	for (int k = 0; eff->scanned && k < WL_NUM_SCAN_KINDS; k++)
		if (eff->scans[k].n > 0)
		{
			add_scans_to_current((WlScanKind) k, eff->scans[k].n,
								 wl_scans_est_ns((WlScanKind) k, eff->scans[k].n,
												 eff->scans[k].nfiles,
												 eff->scans[k].invalidated));
			cur.storage_touched = true;
		}
	if (idx >= 0 && eff->wal_skipped)
		stmt_stack[idx].wal_skipped = true;
	if (eff->wal_skipped || eff->storage || eff->finish_prepared)
		cur.storage_touched = true;
	if (idx >= 0 && eff->vacuum)
	{
		stmt_stack[idx].vacuum_ring_kb = eff->vacuum_ring_kb;
		stmt_stack[idx].vacuum_pages += eff->vacuum_pages;
		stmt_stack[idx].vacuum_pages_removed += eff->vacuum_pages_removed;
	}
	if (held >= 0)
		stmt_stack[held].storage_effects = true;
	/* COMMIT / ROLLBACK PREPARED: what its PREPARE left to delete, and the walk */
	if (eff->finish_prepared)
	{
		WlPreparedDeletion del;
		bool		known = wl_store_take_prepared(eff->gid, eff->commit_prepared, &del);

		if (del.scan)
			add_scans_to_current(WL_SCAN_DROP_PENDING, 1,
								 wl_scans_est_ns(WL_SCAN_DROP_PENDING, 1, del.rels, del.buffers));
		cur.rec.dropped_rels += del.rels;
		if (!known)
			ereport(DEBUG1,
					(errmsg("walload: prepared transaction \"%s\" was prepared before walload's state was set up; its file deletion is not counted",
							eff->gid)));
	}
}

static pg_noinline void
measure_utility(WlActiveStmt *s)
{
	instr_time	now;

	INSTR_TIME_SET_CURRENT(now);
	s->measured_ms = ms_between(s->st.start, now);
	wl_usage_accum_buffers(&s->usage, &s->st.usage_start);
	s->measured = true;
}

/*
 * A utility statement's time and buffers are measured around core's call
 * only, not walload's looks: from now (after a look), or up to now; its WAL
 * from its start to its end (measure.c)
 */
void
wl_acc_utility_measure(uint64 serial, bool from_now)
{
	int			i = find_serial(serial);

	if (i >= 0 && from_now)
	{
		INSTR_TIME_SET_CURRENT(stmt_stack[i].st.start);
		wl_usage_mark_buffers(&stmt_stack[i].st.usage_start);
	}
	else if (i >= 0 && !stmt_stack[i].measured)
		measure_utility(&stmt_stack[i]);
}

/*
 * Queue the record of stack entry idx and pop it.  source_valid: its text
 * may be read (not on the abort path).  Allocates nothing.
 */
static pg_attribute_always_inline void
finish_statement(int idx, WlStmtStatus status, uint64 rows, bool source_valid)
{
	WlActiveStmt *s = &stmt_stack[idx];
	WlQueued   *q;
	WlStmtRecord *rec;

	/* a plain SELECT is recorded only if it wrote WAL, touched storage or walked */
	bool		record = s->tracked &&
		!(s->conditional && !s->storage_effects && s->usage.c.wal_records == 0 &&
		  wl_sum_scans(s->usage.c.scans) == 0);

	/* untracked: its scans and WAL-skipping go to the nearest tracked parent */
	for (int j = idx - 1; j >= 0 && !s->tracked; j--)
		if (stmt_stack[j].tracked)
		{
			for (int k = 0; k < WL_NUM_SCAN_KINDS; k++)
				stmt_stack[j].usage.c.scans[k] += s->usage.c.scans[k];
			stmt_stack[j].usage.c.scan_est_ns += s->usage.c.scan_est_ns;
			stmt_stack[j].wal_skipped |= s->wal_skipped;
			break;
		}
	/* room in the queue was reserved when the statement started */
	Assert(!record || n_finished < finished_capacity);
	if (!record || n_finished >= finished_capacity)
	{
		remove_statement(idx);
		return;
	}
	q = &finished[n_finished];
	rec = &q->rec;
	/* every field is written: the slot's padding stays as allocated (0) */
	rec->stmt_no = s->st.stmt_no;
	rec->pid = MyProcPid;
	rec->userid = s->st.userid;
	rec->dbid = MyDatabaseId;
	rec->queryid = s->st.queryid;
	rec->toplevel = (s->st.nest_level == 0);
	rec->nest_level = s->st.nest_level;
	rec->tag = s->st.tag;
	rec->status = status;
	rec->start = statement_start_ts(s);
	rec->wal_skipped = s->wal_skipped;
	rec->nbuffers = NBuffers;
	rec->backend_kind = cur.rec.backend_kind;

	if (s->is_utility && !s->measured)
		measure_utility(s);
	rec->elapsed_ms = s->measured_ms;
	rec->c = s->usage.c;
	rec->c.rows = (int64) rows;
	rec->vacuum_ring_kb = s->vacuum_ring_kb;
	rec->vacuum_pages = s->vacuum_pages;
	rec->vacuum_pages_removed = s->vacuum_pages_removed;

	if (source_valid)
		copy_text(s);
	memcpy(rec->query, s->query, s->text_len);
	if (q->text_len > s->text_len)	/* the rest of the slot's last text */
		memset(rec->query + s->text_len, 0, q->text_len - s->text_len);
	q->text_len = s->text_len;
	rec->commit_ms = 0;

	activate(false);			/* the role: taken below */
	n_finished++;
	rec->xact_id = cur.rec.xact_id;
	q->held = s->storage_effects;
	q->sync_files = q->cleanup_files = 0;
	if (status == WL_STMT_ERROR)
		cur.failed_stmt_no = rec->stmt_no;
	/* a nested statement names the role only until a top-level one does */
	if (rec->toplevel || !cur.role_from_toplevel)
	{
		take_role_and_application(rec->userid);
		cur.role_from_toplevel |= rec->toplevel;
	}
	if (rec->toplevel)
	{
		WlTimeKind	k = time_kind(rec->tag);

		note_dirtied_by_load(rec);
		/* walload_activity's copies, kept with rec's (publish copies none) */
		cur.act.statements = ++cur.rec.statements;
		cur.act.kind_ms[k] = cur.rec.kind_ms[k] += rec->elapsed_ms;
		cur.act.rows += rec->c.rows;
	}
	remove_statement(idx);

	/* what it leaves running; predicted unless failed or PRE_COMMIT follows */
	if (source_valid)
	{
		int			t = current_statement(true);

		publish_activity(t >= 0 ? stmt_stack[t].st.tag : CMDTAG_UNKNOWN,
						 t >= 0 ? statement_start_ts(&stmt_stack[t]) : 0, false,
						 status == WL_STMT_OK && (!rec->toplevel || IsTransactionBlock()));
	}
}

/* a phase begun at start ends now: its time, its usage if outermost (true) */
static bool
end_phase(WlActiveStmt *s, instr_time start, instr_time now)
{
	s->measured_ms += ms_between(start, now);
	if (--s->running > 0)
		return false;
	wl_usage_accum_buffers(&s->usage, &s->st.usage_start);
	wl_usage_accum_wal(&s->usage, &s->st.usage_start);
	return true;
}

/*
 * The exit begins (FATAL, client gone), before core's abort or from it where
 * core aborts first: every statement on the stack failed now, the held SELECT
 * too if it wrote.  Reads no memory of core's; allocates nothing (reserved).
 */
void
wl_acc_exit_begins(void)
{
	instr_time	now;

	INSTR_TIME_SET_CURRENT(now);
	if (light.active && light.running &&
		pgWalUsage.wal_records != light.st.usage_start.c.wal_records &&
		stmt_depth < stmt_capacity && n_finished + stmt_depth < finished_capacity)
		promote_light();
	light.active = false;
	for (int i = stmt_depth - 1; i >= 0; i--)
	{
		if (!stmt_stack[i].is_utility && stmt_stack[i].running > 0)
		{
			stmt_stack[i].running = 1;
			end_phase(&stmt_stack[i], stmt_stack[i].phase_start, now);
		}
		else if (stmt_stack[i].is_utility)	/* its WAL: as wl_acc_utility_done */
			wl_usage_accum_wal(&stmt_stack[i].usage, &stmt_stack[i].st.usage_start);
		finish_statement(i, WL_STMT_ERROR, 0, false);
	}
}

/* ---------- background processes (hooks.c, observe.c) ---------- */

/* the end of the process's last transaction, its usage then (0: none) */
static TimestampTz worker_boundary_ts;
static WlUsageMark worker_boundary_mark;

/* a worker's transaction ends (even by abort): its next is timed from here */
void
wl_acc_worker_boundary(void)
{
	worker_boundary_ts = GetCurrentTimestamp();
	wl_usage_mark(&worker_boundary_mark);
}

/*
 * At PRE_COMMIT of a background process's transaction that did something: one
 * statement, w, from its start or the previous one's end, taking the walks.
 */
void
wl_acc_worker_statement(const WlWorkerWork *w, const WlEffects *eff)
{
	TimestampTz start = IsTransactionState() ? GetCurrentTransactionStartTimestamp() : 0;
	TimestampTz now = GetCurrentTimestamp();
	WlActiveStmt *s;

	start = Min(Max(Max(start, worker_boundary_ts), MyStartTimestamp), now);
	wl_acc_observe();
	cur.rec.start = start;
	cur.rec.backend_kind = (int8) w->kind;
	/* before any boundary: the usage so far (a zero mark) */
	note_activity(&worker_boundary_mark);

	s = push_statement(true, true, false, w->tag, 0, 0, NULL, w->text, 0, 0);
	s->start_ts = start;
	s->measured = true;
	s->measured_ms = (double) (now - start) / 1000.0;
	wl_usage_since(&cur.usage_baseline, &s->usage.c);
	wl_acc_apply_effects(eff);
	s->storage_effects = true;	/* held (WlQueued) */
	cur.worker_stmt_no = s->st.stmt_no;
	finish_statement(s - stmt_stack, WL_STMT_OK, w->rows, true);
}

/* A utility statement starts: returns the serial that finds its entry */
uint64
wl_acc_utility_start(bool tracked, CommandTag tag, uint64 queryid, int nest_level,
					 const char *source_text, int query_location, int query_len)
{
	return push_statement(tracked, true, false, tag, queryid, nest_level, NULL,
						  source_text, query_location, query_len)->serial;
}

/* finish the utility statement entry `serial`, if it is still there */
void
wl_acc_utility_done(uint64 serial, WlStmtStatus status, uint64 rows)
{
	int			i = find_serial(serial);

	if (i < 0)
		return;
	wl_usage_accum_wal(&stmt_stack[i].usage, &stmt_stack[i].st.usage_start);
	finish_statement(i, status, rows, true);
}

/* is the innermost statement a utility statement at this level (CREATE TABLE AS) */
bool
wl_acc_innermost_is_utility_at(int nest_level)
{
	return stmt_depth > 0 && stmt_stack[stmt_depth - 1].is_utility &&
		stmt_stack[stmt_depth - 1].st.nest_level == nest_level;
}

static int
find_executor_entry(QueryDesc *queryDesc)
{
	for (int i = stmt_depth - 1; i >= 0; i--)
		if (!stmt_stack[i].is_utility && stmt_stack[i].st.queryDesc == queryDesc)
			return i;
	return -1;
}

static inline bool
is_light(QueryDesc *queryDesc)
{
	return light.active && light.st.queryDesc == queryDesc;
}

/* a query starts: a held SELECT at its QueryDesc's address ended unseen */
void
wl_acc_executor_starting(QueryDesc *queryDesc)
{
	if (is_light(queryDesc))
		light.active = false;
}

/* an executor statement starts; may_be_light: no backward fetch (WlLightStmt) */
void
wl_acc_executor_start(bool conditional, bool may_be_light, CommandTag tag,
					  uint64 queryid, int nest_level, QueryDesc *queryDesc)
{
	PlannedStmt *ps = queryDesc->plannedstmt;

	if (conditional && may_be_light && !light.active)
	{
		/* what push_statement does first, so that promoting it need not */
		if (stmt_depth >= stmt_capacity)
			grow_stack();
		reserve_finished(stmt_depth + 1);
		note_activity(NULL);
		light.running = light.ran = false;
		light.active = true;
		start_statement(&light.st, true, tag, queryid, nest_level, queryDesc,
						queryDesc->sourceText, ps->stmt_location, ps->stmt_len);
		return;
	}
	(void) push_statement(true, false, conditional, tag, queryid, nest_level,
						  queryDesc, queryDesc->sourceText,
						  ps->stmt_location, ps->stmt_len);
}

bool
wl_acc_executor_tracked(QueryDesc *queryDesc)
{
	return is_light(queryDesc) || (stmt_depth > 0 && find_executor_entry(queryDesc) >= 0);
}

/*
 * ExecutorRun and ExecutorFinish: time and usage inside them count (as in
 * pg_stat_statements).  Returns whether recorded; if not, reads no clock.
 */
bool
wl_acc_executor_phase_begin(QueryDesc *queryDesc, instr_time *start)
{
	int			idx;

	/* a second phase of the held SELECT (ExecutorRewind) needs an entry */
	if (is_light(queryDesc) && light.ran)
		promote_light();
	else if (is_light(queryDesc))
	{
		light.running = true;
		wl_usage_mark(&light.st.usage_start);
		INSTR_TIME_SET_CURRENT(light.st.start);
		*start = light.st.start;
		return true;
	}
	idx = stmt_depth > 0 ? find_executor_entry(queryDesc) : -1;
	if (idx < 0)
		return false;
	if (stmt_stack[idx].running++ == 0)
		wl_usage_mark(&stmt_stack[idx].st.usage_start);
	INSTR_TIME_SET_CURRENT(*start);
	if (stmt_stack[idx].running == 1)
		stmt_stack[idx].phase_start = *start;
	return true;
}

/* resumable: a row count was given, another phase may follow */
void
wl_acc_executor_phase_end(QueryDesc *queryDesc, instr_time start, bool failed,
						  bool resumable)
{
	int			idx;
	instr_time	now;
	WlActiveStmt *s;
	int64		wal_before;

	if (is_light(queryDesc))
	{
		/* it wrote nothing, and failed or may not resume: no record, no clock */
		if (pgWalUsage.wal_records == light.st.usage_start.c.wal_records &&
			(failed || !resumable))
		{
			light.running = false;
			light.active = !failed;
			light.ran = true;
			return;
		}
		light.running = true;	/* its phase ends on the entry */
		promote_light();
	}
	idx = find_executor_entry(queryDesc);
	if (idx < 0)
		return;
	s = &stmt_stack[idx];
	wal_before = s->usage.c.wal_records;
	INSTR_TIME_SET_CURRENT(now);
	/* a plain SELECT (tracked) that wrote is recorded: keep its text now */
	if (end_phase(s, start, now) && s->conditional && s->usage.c.wal_records != wal_before)
		copy_text(s);
	if (failed)
		finish_statement(idx, WL_STMT_ERROR, 0, true);
}

/* after ExecutorEnd (AFTER triggers included): the statement is done */
void
wl_acc_executor_done(QueryDesc *queryDesc, uint64 rows, bool wal_skipped)
{
	int			idx;

	/* still held: it wrote nothing, ran nothing inside it, is not recorded */
	if (is_light(queryDesc))
	{
		light.active = false;
		return;
	}
	idx = find_executor_entry(queryDesc);
	if (idx < 0)
		return;
	stmt_stack[idx].wal_skipped |= wal_skipped;
	cur.storage_touched |= wal_skipped;
	finish_statement(idx, WL_STMT_OK, rows, true);
}

/* ---------- transaction events (hooks.c's callbacks call in) ---------- */

static pg_attribute_always_inline void
begin_phase(bool is_abort, bool is_prepare)
{
	cur.in_phase = true;
	cur.rec.outcome = is_abort ? WL_OUTCOME_ABORT :
		is_prepare ? WL_OUTCOME_PREPARE : WL_OUTCOME_COMMIT;
	/* in a failed transaction block core cleans up only at ROLLBACK */
	cur.abort_deferred = is_abort && TransactionBlockStatusCode() == 'T';
	INSTR_TIME_SET_CURRENT(cur.phase_start);
	cur.phase_mid = cur.phase_start;	/* an abort's stays: all cleanup */
	INSTR_TIME_SET_ZERO(cur.phase_afterlocks);
	cur.phase_wal_start = pgWalUsage.wal_bytes;
	cur.rec.commit_standby_wait = false;
	cur.rec.commit_wal_ms = cur.rec.commit_standby_ms = 0;
	cur.phase_io_valid = !is_abort && wl_wal_io_plain(&cur.phase_io);
}

/* nothing recorded or held, no xid (an OLTP read): forgotten, not timed */
static bool
forget_quiet_transaction(bool has_xid, bool is_prepare)
{
	if (has_xid || is_prepare || cur.active || cur.shown || stmt_depth > 0 || n_finished > 0)
		return false;
	cur.observed = cur.usage_baseline_set = cur.storage_touched = false;
	cur.next_stmt_no = 0;
	xact_epoch_now++;
	return true;
}

/* the commit's prediction (learn_from_commit) and what a PREPARE leaves */
static WlCommitEstimate commit_pred;
static WlPreparedDeletion prepare_at_commit;
static WlPreparedDeletion prepare_at_rollback;

/* a commit's walks as core will do them, the strategy, the prediction */
static pg_noinline void
pre_commit_record(bool is_prepare)
{
	/* as of the record's last showing (its statement's end), else now */
	const WlScanCost *cost = current_cost(cur.act.state_change != 0 ?
										  cur.act.state_change : GetCurrentTimestamp());
	WlXactRecord *rec = &cur.rec;
	WlCommitModel m;
	WlCommitEstimate *est = &commit_pred;	/* read after a commit only */
	WlCommitState st;
	WlStrategyChoice choice = {.action = WL_ACTION_NONE,.threshold_kb = wal_skip_threshold};
	WlCommitFiles cf;
	bool		pending;
	bool		charge = false; /* the phase to the statements of its files */
	int32		few[16];		/* their creators (most commits act on few) */
	int32	   *creators = few;	/* syncs', then deleted files' (none at PREPARE) */

	/* read here: the record's end has undone a SET LOCAL */
	cur.threshold_read = true;
	rec->wal_skip_threshold_kb = wal_skip_threshold;
	wl_model_read_commit(is_prepare, false, &cf);
	/* nothing pending (most commits): nothing to choose, no model, the flush */
	if ((pending = is_prepare || cf.ndoomed > 0 || cf.nsyncs > 0))
	{
		if (cf.nsyncs > 0)		/* else it leaves choice as it is */
			wl_strategy_apply(&choice, cur.dirty_load_blocks, cf.syncs, cf.nsyncs);
		if ((charge = current_statement(false) < 0 && holds_statements()) &&
			cf.nsyncs + cf.ndoomed > lengthof(few))
			creators = palloc(sizeof(int32) * (cf.nsyncs + cf.ndoomed));
		wl_model_commit(&cf, is_prepare, false, &m, charge ? creators : NULL);
		/* predicted before the scans are counted (which maps the pages) */
		wl_commit_state_now(&st, &m, cur.dirty_load_blocks, false);
		wl_commit_est(&m, cost, &st, est);
	}
	else
		wl_commit_est_flush(cost, -1, est);
	rec->commit_strategy = (int8) wl_commit_strategy;
	rec->commit_threshold_kb = choice.threshold_kb;
	rec->strategy_action = Max(rec->strategy_action, (int8) choice.action);
	cur.commit_action = (int8) choice.action;
	if (choice.action == WL_ACTION_CHANGED && rec->strategy_changed < PG_INT16_MAX)
		rec->strategy_changed++;
	rec->pred_commit_ms = est->total_ns / 1e6;
	rec->pred_core_commit_ms = (est->total_ns - choice.chosen_ns + choice.core_ns) / 1e6;
	cur.wal_flush_price_ns = cost->io.valid ? cost->io.wal_flush_ns : 0;
	cur.pred_files_ns = Max(est->sync_phase_ns - cur.wal_flush_price_ns, 0);
	if (WlDebugMayOutput(DEBUG1))
		elog(DEBUG1, "walload: commit predicted to take %.3f ms: scans %.3f ms, sync %.3f ms, WAL %.3f ms, file deletion %.3f ms, per-file work %.3f ms; of the sync, fsyncs %.3f ms (%.3f ms as timed at start); of the deletion, %.3f ms if all blocks were on disk",
			 est->total_ns / 1e6, est->scan_ns / 1e6, est->sync_ns / 1e6, est->wal_ns / 1e6, est->drop_ns / 1e6,
			 est->files_ns / 1e6, est->fsync_ns / 1e6, est->fsync_timed_ns / 1e6, est->drop_ondisk_ns / 1e6);
	/* the files whose statements the phase will be charged to */
	clear_commit_charges();
	if (charge)
	{
		count_charged_files(creators, cf.nsyncs, true);
		count_charged_files(creators + cf.nsyncs, is_prepare ? 0 : cf.ndoomed, false);
		if (creators != few)
			pfree(creators);
	}
	wl_model_free_commit(&cf);
	if (!pending)
		return;
	if (!is_prepare && m.synced_rels == 0 && m.dropped_rels == 0 &&
		!m.sync_scan && !m.drop_scan &&
		m.wal_logged_blocks <= WL_FILE_COMMIT_BLOCKS * (int64) m.wal_logged_rels)
		cur.pred_small_files = m.wal_logged_rels;
	if (m.wal_logged_rels > 0)
		wl_note_commit_wal_logged();
	if (m.sync_scan)
		add_attributed_scan(WL_SCAN_FLUSH_PENDING, m.sync_stmt_no, m.synced_rels,
							est->sync_written, false);
	if (m.drop_scan && !is_prepare)
		add_attributed_scan(WL_SCAN_DROP_PENDING, m.drop_stmt_no, m.dropped_rels,
							m.dropped_buffers, false);
	rec->wal_skipped_rels += m.wal_skipped_rels;
	rec->synced_rels += m.synced_rels;
	rec->synced_blocks += m.synced_blocks;
	rec->synced_truncated_rels += m.synced_truncated_rels;
	rec->synced_truncated_blocks = (int32)
		Min(rec->synced_truncated_blocks + m.synced_truncated_blocks, PG_INT32_MAX);
	rec->wal_logged_rels += m.wal_logged_rels;
	rec->wal_logged_blocks += m.wal_logged_blocks;
	if (!is_prepare)
		rec->dropped_rels += m.dropped_rels;
	else
	{
		/* kept at XACT_EVENT_PREPARE, once core has accepted it */
		cur.prepare_pending = true;
		prepare_at_commit = (WlPreparedDeletion) {.scan = m.drop_scan,
			.rels = m.dropped_rels, .buffers = m.dropped_buffers};
		prepare_at_rollback = (WlPreparedDeletion) {.scan = m.abort_drop_scan,
			.rels = m.abort_rels, .buffers = m.abort_buffers};
	}
}

/* PRE_COMMIT; returns whether wl_acc_xact_end is to watch the end */
bool
wl_acc_pre_commit(bool is_prepare)
{
	bool		has_xid = TransactionIdIsValid(GetTopTransactionIdIfAny());

	if (forget_quiet_transaction(has_xid, is_prepare))
		return false;
	cur.pred_small_files = 0;
	cur.pred_files_ns = cur.wal_flush_price_ns = 0;
	cur.commit_action = WL_ACTION_NONE;
	/* as RecordTransactionCommit decides whether to wait (wl_acc_commit_done) */
	cur.phase_has_xid = has_xid && XactLastRecEnd != InvalidXLogRecPtr;
	if (has_xid || cur.active)
		pre_commit_record(is_prepare);
	else
		memset(&commit_pred, 0, sizeof(commit_pred));
	/* store what waits, but the statements the phase may be charged to */
	flush_at_safe_point(0, true);
	/* walload.warn_scan_ms: the record's walks, all known at its last commit */
	if (!is_prepare && cur.active && current_statement(false) < 0 &&
		wl_warn_scan_ms >= 0 && wl_sum_scans(cur.act.scans) > 0 &&
		cur.act.scan_est_ns / 1e6 >= wl_warn_scan_ms)
		ereport(WARNING,
				(errmsg("this transaction scanned all %d shared buffers %lld times, an estimated %.1f ms",
						NBuffers, (long long) wl_sum_scans(cur.act.scans), cur.act.scan_est_ns / 1e6),
				 errdetail("flush of one relation: %lld, commit-time sync: %lld, truncation: %lld, file deletion: %lld, database: %lld.",
						   (long long) cur.act.scans[WL_SCAN_FLUSH_REL],
						   (long long) cur.act.scans[WL_SCAN_FLUSH_PENDING],
						   (long long) cur.act.scans[WL_SCAN_DROP_REL],
						   (long long) cur.act.scans[WL_SCAN_DROP_PENDING],
						   (long long) cur.act.scans[WL_SCAN_DB]),
				 errhint("Run SELECT * FROM walload_diagnose(%llu) for the causes and what to change.",
						 (unsigned long long) cur.rec.xact_id)));
	begin_phase(false, is_prepare);
	return true;
}

/*
 * At an abort, the most buffers the deleted files can hold: blocks dirtied or
 * read since the first statement; 0 where counting costs more than it saves
 * (a fixed WL_INVALIDATE_HEADERS header reads a buffer, not a calibration).
 */
#define WL_INVALIDATE_HEADERS	32

static int64
abort_buffers_bound(void)
{
	int64		bound;

	if (!cur.usage_baseline_set)
		return 0;
	bound = (pgBufferUsage.shared_blks_dirtied - cur.usage_baseline.c.shared_blks_dirtied) +
		(pgBufferUsage.shared_blks_read - cur.usage_baseline.c.shared_blks_read);
	return bound * WL_INVALIDATE_HEADERS < WL_BUFFER_COUNT_SAMPLE_HEADERS ? 0 : bound;
}

/*
 * The abort (the header's rules) of subtransaction subid or, if invalid, the
 * transaction: the statements the error interrupted; the walk of its deleted
 * files, to their first creator; a top-level abort's phase, charged by them.
 */
void
wl_acc_subxact_abort(SubTransactionId subid)
{
	bool		top = subid == InvalidSubTransactionId;
	bool		charge;
	WlAbortFiles ab;

	/* the exit's statements, if core aborts before walload's exit callback */
	if (proc_exit_inprogress)
		wl_acc_exit_begins();
	/* executor statements failed where no hook runs; utility ones still run */
	if (light.active && !light.running && light.st.xact_epoch == xact_epoch_now &&
		light.st.subid >= subid)
		light.active = false;	/* a held SELECT not ended wrote nothing */
	for (int i = stmt_depth - 1; i >= 0; i--)
		if (!stmt_stack[i].is_utility && stmt_stack[i].st.xact_epoch == xact_epoch_now &&
			stmt_stack[i].st.subid >= subid)
			finish_statement(i, WL_STMT_ERROR, 0, false);
	charge = top && current_statement(false) < 0 && holds_statements();
	wl_model_read_abort(!top, abort_buffers_bound(), charge, &ab);
	if (ab.scan)
	{
		wl_header_pages_mapped(ab.pages_mapped);
		cur.rec.dropped_rels += ab.nrels;
		add_attributed_scan(WL_SCAN_DROP_PENDING, ab.first_creator, ab.nrels,
							ab.buffers, true);
	}
	if (!top)
		return;
	cur.prepare_pending = false;
	clear_commit_charges();
	if (charge)
		count_charged_files(ab.creators, ab.nrels, false);
	if (ab.creators != NULL)
		pfree(ab.creators);
	begin_phase(true, false);
}

/*
 * XACT_EVENT_COMMIT (reads only memory): the sync part is over: the walk and
 * syncs (predicted), the record's flush (timed with track_wal_io_timing where
 * compat.h reads the counters, else priced), the standby wait, the rest.
 */
void
wl_acc_commit_done(void)
{
	WlWalIo		io;

	if (!cur.in_phase)
		return;
	INSTR_TIME_SET_CURRENT(cur.phase_mid);
	if (cur.phase_io_valid && wl_wal_io_plain(&io))
		cur.rec.commit_wal_ms = track_wal_io_timing ?
			Max(io.sync_us - cur.phase_io.sync_us, 0) / 1000.0 :
			Max(io.syncs - cur.phase_io.syncs, 0) * cur.wal_flush_price_ns / 1e6;
	else if (cur.phase_has_xid && synchronous_commit > SYNCHRONOUS_COMMIT_OFF)
		cur.rec.commit_wal_ms = cur.wal_flush_price_ns / 1e6;
	cur.rec.commit_standby_wait = cur.rec.outcome == WL_OUTCOME_COMMIT &&
		cur.phase_has_xid && SyncRepRequested() && wl_sync_standbys_defined();
}

/* XACT_EVENT_PREPARE: remember what COMMIT / ROLLBACK PREPARED will delete */
void
wl_acc_prepare_done(void)
{
	if (cur.in_phase)
		INSTR_TIME_SET_CURRENT(cur.phase_mid);
	if (cur.prepare_pending)
		wl_store_remember_prepared(prepare_gid, &prepare_at_commit, &prepare_at_rollback);
	cur.prepare_pending = false;
}

/* the top-level transaction's locks are released: just before file deletion */
void
wl_acc_locks_released(void)
{
	if (cur.in_phase)
		INSTR_TIME_SET_CURRENT(cur.phase_afterlocks);
}

/* ---------- end of a top-level transaction ---------- */

/* the record is over: what only its end knows, then into the ring (no lock) */
static void
finish_record(void)
{
	WlXactRecord *rec = &cur.rec;

	rec->pid = MyProcPid;
	rec->dbid = MyDatabaseId;
	rec->end = GetCurrentTimestamp();
	rec->wal_level = wal_level;
	rec->synchronous_commit = synchronous_commit;
	rec->total_ms = (double) (rec->end - rec->start) / 1000.0;
	rec->backend_start = MyStartTimestamp;
	rec->first_in_session = !recorded_before;
	recorded_before = true;
	if (cur.usage_baseline_set)
		wl_usage_since(&cur.usage_baseline, &rec->c);
	rec->c.rows = cur.act.rows;
	memcpy(rec->c.scans, cur.act.scans, sizeof(rec->c.scans));
	rec->c.scan_est_ns = cur.act.scan_est_ns;
	rec->scan_fault_ms = (float4) ((wl_scan_faults_priced_ns() - cur.faults_mark) / 1e6);
	rec->nbuffers = NBuffers;
	if (!cur.threshold_read)
		rec->wal_skip_threshold_kb = rec->commit_threshold_kb = wal_skip_threshold;
	memcpy(rec->application_name, record_app, sizeof(WlName));
	wl_store_xact(rec);
}

/* one part of a phase: the phase less the prediction's other parts, per `per` */
static double
part_of_phase(double phase_ms, double pred_ns, double part_ns, double per)
{
	return Max(phase_ms * 1e6 - (pred_ns - part_ns), 0) / per;
}

/*
 * What a commit teaches the store (its spinlock only): the storage's speed,
 * from a sync phase mostly of fsyncs (WL_FSYNC_TIME_MIN_NS predicted); core's
 * untimed work per file, from a priced commit that only WAL-logs small files.
 */
static void
learn_from_commit(void)
{
	const WlCommitEstimate *e = &commit_pred;

	if (e->fsync_timed_ns >= WL_FSYNC_TIME_MIN_NS && e->fsync_ns >= e->sync_phase_ns / 2)
		wl_store_learn(true, part_of_phase(cur.rec.commit_sync_ms, e->sync_phase_ns,
										   e->fsync_ns, e->fsync_timed_ns));
	if (cur.pred_small_files >= WL_FILE_COMMIT_MIN && e->wal_ns > 0)
		wl_store_learn(false, part_of_phase(cur.rec.commit_ms, e->total_ns,
											e->files_ns, cur.pred_small_files));
}

/* TopTransactionContext is reset: the phase is over.  The header's rules apply. */
void
wl_acc_xact_end(void)
{
	WlXactRecord *rec = &cur.rec;
	instr_time	end;

	if (!cur.in_phase)
		return;
	INSTR_TIME_SET_CURRENT(end);
	if (cur.abort_deferred && !INSTR_TIME_IS_ZERO(cur.phase_afterlocks))
		end = cur.phase_afterlocks;
	cur.in_phase = false;
	rec->commit_wal_bytes += pgWalUsage.wal_bytes - cur.phase_wal_start;
	rec->commit_ms = ms_between(cur.phase_start, end);
	rec->commit_sync_ms = ms_between(cur.phase_start, cur.phase_mid);
	rec->commit_cleanup_ms = ms_between(cur.phase_mid, end);
	/* a standby's wait: the rest of the sync part (wl_acc_commit_done) */
	if (rec->commit_standby_wait)
		rec->commit_standby_ms = Max(rec->commit_sync_ms - cur.pred_files_ns / 1e6 -
									 rec->commit_wal_ms, 0);
	rec->commit_wal_ms = Min(rec->commit_wal_ms, rec->commit_sync_ms);
	/* aborts and PREPAREs teach nothing; auto checks itself (strategy.c) */
	if (rec->outcome == WL_OUTCOME_COMMIT)
	{
		learn_from_commit();
		if (rec->commit_strategy == WL_STRATEGY_AUTO &&
			(cur.commit_action == WL_ACTION_KEPT || cur.commit_action == WL_ACTION_CHANGED))
			wl_strategy_note_commit(rec->commit_ms - rec->commit_standby_ms, rec->pred_commit_ms);
	}
	wl_model_xact_end();

	/* a statement still running ended a transaction: fold it into the record */
	if (current_statement(false) >= 0)
	{
		rec->inner_xacts++;
		clear_commit_charges();
		return;
	}
	/* forget executor entries core never ended */
	xact_epoch_now++;
	if (!light.running)
		light.active = false;
	for (int i = stmt_depth - 1; i >= 0; i--)
		if (!stmt_stack[i].is_utility && stmt_stack[i].running == 0)
			remove_statement(i);
	unpublish_activity();
	if (cur.active)
	{
		charge_commit_phase();
		if (n_finished > 0)		/* else walload's lock was not taken */
			flush_finished(false, WL_KEEP_NONE, true);
		finish_record();
	}
	explicit_bzero(&cur, offsetof(WlOpenXact, act.pred));	/* not memset's rep stosq */
}
