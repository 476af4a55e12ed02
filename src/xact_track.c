/*-------------------------------------------------------------------------
 *
 * xact_track.c
 *		The backend's open transaction record: transaction and
 *		subtransaction callbacks, commit and abort phase timing, and the
 *		hand-over of finished statements and transactions to the store.
 *
 * Windows, as core's xact.c runs them (PostgreSQL 15-18):
 *
 *	commit:  XACT_EVENT_PRE_COMMIT ........ start of the commit phase
 *			   ON COMMIT actions, pending syncs (the sync scan), commit
 *			   record, its flush and the synchronous replication wait
 *			 XACT_EVENT_COMMIT ............ end of the sync part
 *			   locks released, pending deletes (the drop scan)
 *			 TopTransactionContext reset .. end of the cleanup part
 *
 *	abort:   XACT_EVENT_ABORT ............. start of the abort phase
 *			   locks released, pending deletes (the drop scan)
 *			 TopTransactionContext reset .. end (at once, except after an
 *			   error inside a transaction block, where core cleans up only
 *			   at the client's ROLLBACK; then the phase ends when the
 *			   transaction's locks have been released)
 *
 * A statement that commits transactions itself (VACUUM, CLUSTER without a
 * table, CREATE INDEX CONCURRENTLY, a procedure that commits or rolls back)
 * keeps one record: its inner transactions are folded into the transaction
 * that ends the statement, and counted in inner_xacts.  The record starts
 * with the first of them.
 *
 * Which transactions are observed: one in which a statement started while
 * tracking was on (walload.track is not none).  An observed transaction is
 * closed and recorded whatever walload.track says by its end (SET LOCAL
 * walload.track = none cannot leave a record open); an unobserved one is
 * not looked at, not even at its commit.
 *
 * Rules for the abort path (XACT_EVENT_ABORT, SUBXACT_EVENT_ABORT_SUB) and
 * the commit cleanup (the TopTransactionContext reset callback, after the
 * commit record), where an error would be a PANIC or an unkept promise:
 *	- no allocation but core's own lists of files to delete, in core's
 *	  TransactionAbortContext (the reserve core keeps for its abort; core
 *	  allocates the same array at the same moment, smgrDoPendingDeletes);
 *	- no read of memory core may have freed (statement texts: hooks.c);
 *	- no file I/O;
 *	- no wait on walload's lock: the store is tried without waiting, and
 *	  what could not be stored waits in this backend for its next statement,
 *	  its next commit or its exit (flush_at_safe_point).  Elsewhere, too,
 *	  walload waits for its lock only when a backend holds more than
 *	  WL_QUEUE_BOUND statements or WL_LATE_SCANS late scans;
 *	- no ERROR or WARNING.
 * docs/guarantees.md states the same, with the tests that check it.
 *
 *-------------------------------------------------------------------------
 */
#include "walload.h"

#include "access/parallel.h"
#include "access/twophase.h"
#include "access/xact.h"
#include "access/xlog.h"
#include "miscadmin.h"
#include "storage/bufmgr.h"
#include "storage/ipc.h"
#include "utils/memutils.h"
#include "utils/resowner.h"

/* finished statements waiting to be stored (see wl_xact_statement_done) */
static WlStmtRecord *finished = NULL;
static int	n_finished = 0;
static int	finished_capacity = 0;

/* statements of the open record that may receive commit-time scans */
typedef struct WlStmtRef
{
	int32		stmt_no;
	int64		ring_pos;		/* position in the statement ring, or -1 */
	WlStatsKey	key;
	bool		stored;
	int64		scans[WL_NUM_SCAN_KINDS];	/* arrived, not yet stored */
	int64		scan_est_ns;
} WlStmtRef;

/*
 * Scans attributed on the abort path to statements already stored, when
 * the store could not be had without waiting: kept here until the next
 * safe point.  Fixed size, made before any abort can need it.
 */
#define WL_LATE_SCANS	16
typedef struct WlLateScan
{
	int64		ring_pos;
	uint64		xact_id;
	int32		stmt_no;
	WlStatsKey	key;
	WlScanKind	kind;
	int64		n;
	double		est_ns;
} WlLateScan;

static WlLateScan late_scans[WL_LATE_SCANS];
static int	n_late_scans = 0;

typedef struct WlOpenXact
{
	bool		observed;		/* a statement started with tracking on */
	bool		active;			/* there is something to record */
	uint64		xact_id;
	TimestampTz start_ts;
	int32		statements;
	int32		inner_xacts;
	int32		next_stmt_no;
	double		kind_ms[WL_NUM_TIME_KINDS];
	int64		rows;
	int64		scans[WL_NUM_SCAN_KINDS];
	int64		scan_est_ns;
	uint64		commit_wal_bytes;
	WlCommitModel model;
	bool		usage_baseline_set;
	WlUsageMark usage_baseline;

	/* PREPARE TRANSACTION in progress: what it will leave to finish */
	bool		prepare_pending;
	WlCommitModel prepare_model;

	/* the commit or abort phase in progress */
	bool		in_phase;
	bool		phase_is_abort;
	bool		phase_is_prepare;
	bool		abort_deferred;
	instr_time	phase_start;
	instr_time	phase_mid;
	instr_time	phase_afterlocks;
	uint64		phase_wal_start;
	double		commit_ms;
	double		sync_ms;
	double		cleanup_ms;
	bool		ended_commit;	/* outcome of the transaction that ended */

	WlStmtRef  *refs;
	int			n_refs;
	int			refs_capacity;
} WlOpenXact;

static WlOpenXact cur;

/*
 * The end of the phase: a reset callback on TopTransactionContext.  Static,
 * so that registering it allocates nothing (it is registered at most once
 * per top-level transaction; the flag says whether it is).
 */
static void xact_end_callback(void *arg);
static MemoryContextCallback end_callback = {xact_end_callback, NULL, NULL};
static bool end_callback_registered = false;

/* refs arrays larger than this are given back at the end of a record */
#define WL_KEEP_REFS	64

/* GID of the PREPARE TRANSACTION being executed */
static char prepare_gid[GIDSIZE];

void
wl_model_set_prepare_gid(const char *gid)
{
	strlcpy(prepare_gid, gid, GIDSIZE);
}

/*
 * A statement starts with tracking on (hooks.c): the transaction is
 * observed from its start.
 */
void
wl_xact_observe(void)
{
	if (cur.observed)
		return;
	cur.observed = true;
	cur.start_ts = IsTransactionState() ?
		GetCurrentTransactionStartTimestamp() : GetCurrentTimestamp();
}

bool
wl_xact_observed(void)
{
	return cur.observed;
}

static void
activate(void)
{
	if (cur.active)
		return;
	cur.active = true;
	cur.xact_id = wl_store_next_xact_id();
	if (!cur.observed)
		wl_xact_observe();
}

/*
 * A statement starts: the transaction's usage is measured from its first
 * statement (on 15-17 the backend's WAL I/O counters are zeroed between
 * transactions, when it reports its statistics).
 */
void
wl_xact_note_activity(void)
{
	if (!cur.usage_baseline_set)
	{
		wl_usage_mark(&cur.usage_baseline);
		cur.usage_baseline_set = true;
	}
}

/*
 * Files a statement deleted outside this transaction's own commit or abort:
 * COMMIT / ROLLBACK PREPARED deletes the prepared transaction's files.
 */
void
wl_xact_add_dropped_rels(int32 n)
{
	cur.model.dropped_rels += n;
}

/* statement numbers saturate: a record of 2^31 statements keeps counting them */
int32
wl_xact_next_stmt_no(void)
{
	if (cur.next_stmt_no < PG_INT32_MAX)
		cur.next_stmt_no++;
	return cur.next_stmt_no;
}

static WlStmtRef *
find_ref(int32 stmt_no)
{
	for (int i = cur.n_refs - 1; i >= 0; i--)
		if (cur.refs[i].stmt_no == stmt_no)
			return &cur.refs[i];
	return NULL;
}

/*
 * Remember that statement stmt_no may receive commit-time scans later.
 * Called outside error context only.
 */
void
wl_xact_note_storage_statement(int32 stmt_no)
{
	WlStmtRef  *ref;

	if (stmt_no < 0 || find_ref(stmt_no) != NULL)
		return;
	if (cur.n_refs >= cur.refs_capacity)
	{
		int			newcap = cur.refs_capacity == 0 ? 16 : cur.refs_capacity * 2;

		if (cur.refs == NULL)
			cur.refs = MemoryContextAlloc(TopMemoryContext, sizeof(WlStmtRef) * newcap);
		else
			cur.refs = repalloc(cur.refs, sizeof(WlStmtRef) * newcap);
		cur.refs_capacity = newcap;
	}
	ref = &cur.refs[cur.n_refs++];
	memset(ref, 0, sizeof(*ref));
	ref->stmt_no = stmt_no;
	ref->ring_pos = -1;
}

/* ----------------------------------------------------------------
 * handing over to the store
 * ----------------------------------------------------------------
 */

/* store the late scans; false if the store could not be had */
static bool
flush_late_scans(bool may_wait)
{
	int			done = 0;

	while (done < n_late_scans)
	{
		WlLateScan *l = &late_scans[done];

		if (!wl_store_add_statement_scans(l->ring_pos, l->xact_id, l->stmt_no,
										  &l->key, l->kind, l->n, NBuffers, l->est_ns,
										  may_wait))
			break;
		done++;
	}
	if (done > 0)
	{
		memmove(late_scans, late_scans + done,
				sizeof(WlLateScan) * (n_late_scans - done));
		n_late_scans -= done;
	}
	return n_late_scans == 0;
}

/* the scans (and their estimate) that arrived for a queued statement */
static void
take_ref_scans(WlStmtRecord *rec, WlStmtRef *ref)
{
	for (int k = 0; k < WL_NUM_SCAN_KINDS; k++)
		rec->c.scans[k] += ref->scans[k];
	rec->c.scan_est_ns += ref->scan_est_ns;
	memset(ref->scans, 0, sizeof(ref->scans));
	ref->scan_est_ns = 0;
}

/*
 * The record ends: scans that arrived for its statements still queued go
 * into their queued records (the refs are forgotten with the record).
 * Backend memory only.
 */
static void
settle_ref_scans(void)
{
	for (int i = 0; i < n_finished; i++)
	{
		WlStmtRecord *rec = &finished[i];
		WlStmtRef  *ref;

		if (rec->xact_id != cur.xact_id || (ref = find_ref(rec->stmt_no)) == NULL ||
			ref->stored)
			continue;
		take_ref_scans(rec, ref);
	}
}

/*
 * Store queued statements (ring and aggregates) and late scans.  With
 * may_wait false (abort path, commit cleanup), only what can be stored
 * without waiting for walload's lock; the rest stays queued, in order.
 */
static void
flush_finished(bool may_wait, bool ended_only)
{
	int			done = 0;

	if (!flush_late_scans(may_wait))
		return;
	while (done < n_finished)
	{
		WlStmtRecord *rec = &finished[done];
		WlStmtRef  *ref;
		int64		pos;

		/*
		 * The open record's statements wait for its commit: a reset meanwhile
		 * must not remove half of a transaction.
		 */
		if (ended_only && cur.active && rec->xact_id == cur.xact_id)
			break;
		ref = rec->xact_id == cur.xact_id ? find_ref(rec->stmt_no) : NULL;

		/* scans that arrived for it before it was stored */
		if (ref != NULL && !ref->stored)
			take_ref_scans(rec, ref);

		/* not stored: it keeps the scans just added, and waits in order */
		if (!wl_store_statement(rec, may_wait, &pos))
			break;

		if (ref != NULL)
		{
			ref->stored = true;
			ref->ring_pos = pos;
			ref->key.userid = rec->userid;
			ref->key.dbid = rec->dbid;
			ref->key.queryid = rec->queryid;
			ref->key.tag = rec->tag;
			ref->key.toplevel = rec->toplevel;
		}
		done++;
	}
	if (done > 0)
	{
		memmove(finished, finished + done,
				sizeof(WlStmtRecord) * (n_finished - done));
		n_finished -= done;
	}
}

/*
 * A point where walload may store (a statement starts, a commit begins):
 * store what waits if walload's lock can be had at once -- at a statement's
 * start only what ended records left, at the commit everything.  Wait for
 * the lock only when this backend holds more than WL_QUEUE_BOUND
 * statements or a full list of late scans, which bounds what it keeps.
 */
#define WL_QUEUE_BOUND	64

static void
flush_at_safe_point(int more, bool at_commit)
{
	if (n_finished > 0 || n_late_scans > 0)
		flush_finished(false, !at_commit);
	if (n_finished + more > WL_QUEUE_BOUND || n_late_scans >= WL_LATE_SCANS)
		flush_finished(true, false);
}

/* the backend exits: store what still waits */
static void
flush_at_exit(int code, Datum arg)
{
	if (wl_store_ready() && !IsParallelWorker() &&
		(n_finished > 0 || n_late_scans > 0))
		flush_finished(true, false);
}

/*
 * A statement starts: make sure that `more` statements can be queued
 * without allocating (statements can finish inside error handlers, where
 * walload neither allocates nor waits), storing what waits first.
 */
void
wl_xact_reserve_finished(int more)
{
	static bool exit_hook = false;

	flush_at_safe_point(more, false);
	if (n_finished + more > finished_capacity)
	{
		int			newcap = Max(64, (n_finished + more) * 2);

		if (finished == NULL)
			finished = MemoryContextAlloc(TopMemoryContext, sizeof(WlStmtRecord) * newcap);
		else
			finished = repalloc(finished, sizeof(WlStmtRecord) * newcap);
		finished_capacity = newcap;
	}
	if (!exit_hook)
	{
		before_shmem_exit(flush_at_exit, (Datum) 0);
		exit_hook = true;
	}
}

void
wl_xact_statement_done(const WlStmtRecord *rec, bool count_in_xact)
{
	/* capacity was reserved when the statement started */
	Assert(n_finished < finished_capacity);
	if (n_finished >= finished_capacity)
		return;
	activate();
	finished[n_finished] = *rec;
	finished[n_finished].xact_id = cur.xact_id;
	n_finished++;

	if (count_in_xact)
	{
		cur.statements++;
		cur.kind_ms[wl_time_kind(rec->tag)] += rec->elapsed_ms;
		cur.rows += rec->c.rows;
	}
}

/* ----------------------------------------------------------------
 * scans
 * ----------------------------------------------------------------
 */
void
wl_xact_add_scans(WlScanKind kind, int64 n, double est_ns)
{
	if (n <= 0 || !cur.observed)
		return;
	activate();
	cur.scans[kind] += n;
	cur.scan_est_ns += (int64) est_ns;
	wl_store_add_scan_totals(kind, n, NBuffers);
}

/*
 * A scan at commit or abort, caused by statement stmt_no of the open record
 * (or by no known statement: -1).  Falls back to the statement running now
 * (inner transactions of VACUUM and the like).  Stored for an already
 * stored statement if walload's lock can be had at once, else kept as a
 * late scan; on_abort_path false (at PRE_COMMIT): with the late list full,
 * stored waiting.
 */
static void
add_attributed_scan(WlScanKind kind, int32 stmt_no, int nfiles, bool on_abort_path)
{
	WlStmtRef  *ref = stmt_no >= 0 ? find_ref(stmt_no) : NULL;
	double		est_ns = wl_scans_est_ns(kind, 1, nfiles, !on_abort_path);

	if (ref == NULL)
	{
		wl_add_scans_to_current(kind, 1, est_ns);
		return;
	}

	wl_xact_add_scans(kind, 1, est_ns);
	if (!ref->stored)
	{
		ref->scans[kind]++;
		ref->scan_est_ns += (int64) est_ns;
	}
	else if (!wl_store_add_statement_scans(ref->ring_pos, cur.xact_id, ref->stmt_no,
										   &ref->key, kind, 1, NBuffers, est_ns, false))
	{
		/* later, from this backend's next safe point */
		for (int i = 0; i < n_late_scans; i++)
		{
			WlLateScan *l = &late_scans[i];

			if (l->ring_pos == ref->ring_pos && l->kind == kind)
			{
				l->n++;
				l->est_ns += est_ns;
				return;
			}
		}
		if (n_late_scans >= WL_LATE_SCANS && !on_abort_path)
		{
			(void) wl_store_add_statement_scans(ref->ring_pos, cur.xact_id, ref->stmt_no,
												&ref->key, kind, 1, NBuffers, est_ns, true);
			return;
		}
		if (n_late_scans < WL_LATE_SCANS)
		{
			WlLateScan *l = &late_scans[n_late_scans++];

			l->ring_pos = ref->ring_pos;
			l->xact_id = cur.xact_id;
			l->stmt_no = ref->stmt_no;
			l->key = ref->key;
			l->kind = kind;
			l->n = 1;
			l->est_ns = est_ns;
		}

		/*
		 * Else lost for the statement (still counted for the transaction
		 * and the totals): more than WL_LATE_SCANS statements met a busy
		 * store on the abort path before this backend's next statement.
		 */
	}
}

/* ----------------------------------------------------------------
 * transaction callbacks
 * ----------------------------------------------------------------
 */
static void
begin_phase(bool is_abort, bool is_prepare)
{
	cur.in_phase = true;
	cur.phase_is_abort = is_abort;
	cur.phase_is_prepare = is_prepare;
	cur.abort_deferred = false;
	INSTR_TIME_SET_CURRENT(cur.phase_start);
	cur.phase_mid = cur.phase_start;
	INSTR_TIME_SET_ZERO(cur.phase_afterlocks);
	cur.phase_wal_start = pgWalUsage.wal_bytes;

	/* the end of the phase: TopTransactionContext is reset or deleted */
	if (!end_callback_registered)
	{
		MemoryContextRegisterResetCallback(TopTransactionContext, &end_callback);
		end_callback_registered = true;
	}
}

static void
maybe_warn(int64 scans)
{
	double		est;

	if (wl_warn_scan_ms < 0 || scans == 0)
		return;
	est = cur.scan_est_ns / 1e6;
	if (est < wl_warn_scan_ms)
		return;
	ereport(WARNING,
			(errmsg("this transaction scanned all %d shared buffers %lld times, an estimated %.1f ms",
					NBuffers, (long long) scans, est),
			 errdetail("flush of one relation: %lld, commit-time sync: %lld, truncation: %lld, file deletion: %lld, database: %lld.",
					   (long long) cur.scans[WL_SCAN_FLUSH_REL],
					   (long long) cur.scans[WL_SCAN_FLUSH_PENDING],
					   (long long) cur.scans[WL_SCAN_DROP_REL],
					   (long long) cur.scans[WL_SCAN_DROP_PENDING],
					   (long long) cur.scans[WL_SCAN_DB]),
			 errhint("Run SELECT * FROM walload_diagnose(%llu) for the causes and what to change.",
					 (unsigned long long) cur.xact_id)));
}

/*
 * Before the commit record: store what waits (without waiting, unless the
 * backend holds too much), decide the commit's scans the way core will,
 * and warn if asked to.
 */
static void
on_pre_commit(bool is_prepare)
{
	WlCommitModel model;
	bool		has_xid = TransactionIdIsValid(GetTopTransactionIdIfAny());

	flush_at_safe_point(0, true);

	if (has_xid || cur.active)
	{
		wl_model_commit(is_prepare, &model);
		if (model.sync_scan)
			add_attributed_scan(WL_SCAN_FLUSH_PENDING, wl_model_sync_statement(),
								model.synced_rels, false);
		if (model.drop_scan && !is_prepare)
			add_attributed_scan(WL_SCAN_DROP_PENDING, wl_model_drop_statement(),
								model.dropped_rels, false);
		cur.model.wal_skipped_rels += model.wal_skipped_rels;
		cur.model.synced_rels += model.synced_rels;
		cur.model.synced_blocks += model.synced_blocks;
		cur.model.wal_logged_rels += model.wal_logged_rels;
		cur.model.wal_logged_blocks += model.wal_logged_blocks;
		if (!is_prepare)
			cur.model.dropped_rels += model.dropped_rels;
		else
		{
			/* kept at XACT_EVENT_PREPARE, once core has accepted it */
			cur.prepare_pending = true;
			cur.prepare_model = model;
		}
	}

	/* the last transaction of the record: its scans are all known now */
	if (!is_prepare && cur.active && !wl_statement_in_progress())
	{
		int64		scans = 0;

		for (int k = 0; k < WL_NUM_SCAN_KINDS; k++)
			scans += cur.scans[k];
		maybe_warn(scans);
	}

	begin_phase(false, is_prepare);
}

/* The abort path: see the rules in the header comment. */
static void
on_abort(void)
{
	int32		nrels = 0;

	/* statements interrupted by the error */
	wl_stack_abort(InvalidSubTransactionId);

	if (wl_model_abort_drop_scan(&nrels))
	{
		cur.model.dropped_rels += nrels;
		add_attributed_scan(WL_SCAN_DROP_PENDING, wl_model_abort_statement(0), nrels, true);
	}
	cur.prepare_pending = false;

	begin_phase(true, false);

	/*
	 * After an error inside a transaction block, core cleans up (and so
	 * calls us back) only at the client's ROLLBACK.
	 */
	cur.abort_deferred = (TransactionBlockStatusCode() == 'T');
}

static bool
callbacks_apply(void)
{
	return cur.observed && wl_store_ready() && !IsParallelWorker();
}

static void
wl_xact_callback(XactEvent event, void *arg)
{
	if (!callbacks_apply())
		return;

	switch (event)
	{
		case XACT_EVENT_PRE_COMMIT:
			on_pre_commit(false);
			break;
		case XACT_EVENT_PRE_PREPARE:
			on_pre_commit(true);
			break;
		case XACT_EVENT_COMMIT:
			if (cur.in_phase)
				INSTR_TIME_SET_CURRENT(cur.phase_mid);
			break;
		case XACT_EVENT_PREPARE:
			if (cur.in_phase)
				INSTR_TIME_SET_CURRENT(cur.phase_mid);
			/* core accepted the PREPARE: remember what it leaves */
			if (cur.prepare_pending)
				wl_store_remember_prepared(prepare_gid,
										   cur.prepare_model.drop_scan,
										   cur.prepare_model.dropped_rels,
										   cur.prepare_model.abort_drop_scan,
										   cur.prepare_model.abort_rels);
			cur.prepare_pending = false;
			break;
		case XACT_EVENT_ABORT:
			on_abort();
			break;
		default:
			break;
	}
}

/* The abort path of a subtransaction: see the rules in the header. */
static void
wl_subxact_callback(SubXactEvent event, SubTransactionId mySubid,
					SubTransactionId parentSubid, void *arg)
{
	int32		nrels = 0;

	if (event != SUBXACT_EVENT_ABORT_SUB || !callbacks_apply())
		return;

	wl_stack_abort(mySubid);

	if (wl_model_abort_drop_scan(&nrels))
	{
		cur.model.dropped_rels += nrels;
		add_attributed_scan(WL_SCAN_DROP_PENDING,
							wl_model_abort_statement(GetCurrentTransactionNestLevel()),
							nrels, true);
	}
	wl_model_subxact_abort();
}

/* the last release phase of the top-level owner: just before file deletion */
static void
wl_resource_release(ResourceReleasePhase phase, bool isCommit,
					bool isTopLevel, void *arg)
{
	if (phase == RESOURCE_RELEASE_AFTER_LOCKS && isTopLevel && cur.in_phase &&
		CurrentResourceOwner == TopTransactionResourceOwner)
		INSTR_TIME_SET_CURRENT(cur.phase_afterlocks);
}

/* ----------------------------------------------------------------
 * end of a top-level transaction
 * ----------------------------------------------------------------
 */
static void
finish_record(void)
{
	WlXactRecord rec;

	memset(&rec, 0, sizeof(rec));
	rec.xact_id = cur.xact_id;
	rec.pid = MyProcPid;
	rec.userid = GetUserId();
	rec.dbid = MyDatabaseId;
	rec.start = cur.start_ts;
	rec.end = GetCurrentTimestamp();
	rec.outcome = cur.ended_commit ? WL_OUTCOME_COMMIT : WL_OUTCOME_ABORT;
	if (cur.phase_is_prepare && cur.ended_commit)
		rec.outcome = WL_OUTCOME_PREPARE;
	rec.wal_level = wal_level;
	rec.synchronous_commit = synchronous_commit;
	rec.total_ms = (double) (rec.end - rec.start) / 1000.0;
	rec.commit_ms = cur.commit_ms;
	rec.commit_sync_ms = cur.sync_ms;
	rec.commit_cleanup_ms = cur.cleanup_ms;
	rec.statements = cur.statements;
	rec.inner_xacts = cur.inner_xacts;
	memcpy(rec.kind_ms, cur.kind_ms, sizeof(rec.kind_ms));

	if (cur.usage_baseline_set)
		wl_usage_since(&cur.usage_baseline, &rec.c);
	rec.c.rows = cur.rows;
	memcpy(rec.c.scans, cur.scans, sizeof(rec.c.scans));
	rec.c.scan_est_ns = cur.scan_est_ns;
	rec.commit_wal_bytes = cur.commit_wal_bytes;
	rec.wal_skipped_rels = cur.model.wal_skipped_rels;
	rec.synced_rels = cur.model.synced_rels;
	rec.synced_blocks = cur.model.synced_blocks;
	rec.wal_logged_rels = cur.model.wal_logged_rels;
	rec.wal_logged_blocks = cur.model.wal_logged_blocks;
	rec.dropped_rels = cur.model.dropped_rels;
	rec.nbuffers = NBuffers;
	rec.wal_skip_threshold_kb = wal_skip_threshold;

	/* into the ring without walload's lock (store.c) */
	wl_store_xact(&rec);
}

static void
reset_open_record(void)
{
	WlStmtRef  *refs = cur.refs;
	int			cap = cur.refs_capacity;

	/* one huge transaction does not keep its memory */
	if (cap > WL_KEEP_REFS)
	{
		pfree(refs);
		refs = NULL;
		cap = 0;
	}
	memset(&cur, 0, sizeof(cur));
	cur.refs = refs;
	cur.refs_capacity = cap;
}

/*
 * TopTransactionContext is being reset or deleted: the commit or abort
 * phase is over.  Runs with interrupts held at the very end of
 * CommitTransaction / CleanupTransaction: the rules of the header apply.
 */
static void
xact_end_callback(void *arg)
{
	instr_time	end;
	instr_time	d;
	bool		was_abort = cur.phase_is_abort;

	end_callback_registered = false;
	if (!cur.in_phase)
		return;

	INSTR_TIME_SET_CURRENT(end);
	if (was_abort && cur.abort_deferred && !INSTR_TIME_IS_ZERO(cur.phase_afterlocks))
		end = cur.phase_afterlocks;

	cur.in_phase = false;
	cur.ended_commit = !was_abort;
	cur.commit_wal_bytes += pgWalUsage.wal_bytes - cur.phase_wal_start;

	d = end;
	INSTR_TIME_SUBTRACT(d, cur.phase_start);
	cur.commit_ms = INSTR_TIME_GET_MILLISEC(d);
	if (was_abort)
	{
		cur.sync_ms = 0;
		cur.cleanup_ms = cur.commit_ms;
	}
	else
	{
		d = cur.phase_mid;
		INSTR_TIME_SUBTRACT(d, cur.phase_start);
		cur.sync_ms = INSTR_TIME_GET_MILLISEC(d);
		d = end;
		INSTR_TIME_SUBTRACT(d, cur.phase_mid);
		cur.cleanup_ms = INSTR_TIME_GET_MILLISEC(d);
	}

	wl_model_xact_end();

	/*
	 * A statement still running committed (or rolled back) a transaction of
	 * its own: keep the record open, fold this transaction into it.
	 */
	if (wl_statement_in_progress())
	{
		cur.inner_xacts++;
		return;
	}

	wl_stack_xact_end();

	if (cur.active)
	{
		settle_ref_scans();
		flush_finished(false, false);
		finish_record();
	}
	reset_open_record();
}

void
wl_register_xact_callbacks(void)
{
	RegisterXactCallback(wl_xact_callback, NULL);
	RegisterSubXactCallback(wl_subxact_callback, NULL);
	RegisterResourceReleaseCallback(wl_resource_release, NULL);
}
