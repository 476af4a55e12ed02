/*-------------------------------------------------------------------------
 *
 * xact_track.c
 *		The backend's open transaction record: transaction and
 *		subtransaction callbacks, commit and abort phase timing, and the
 *		hand-over of finished statements and transactions to the store.
 *
 * Windows, as core's xact.c runs them (PostgreSQL 15; see docs/internals.md):
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
 * table, CREATE INDEX CONCURRENTLY, a procedure that commits) keeps one
 * record: its inner transactions are folded into the transaction that ends
 * the statement, and counted in inner_xacts.
 *
 *-------------------------------------------------------------------------
 */
#include "walload.h"

#include "access/parallel.h"
#include "access/xact.h"
#include "access/xlog.h"
#include "miscadmin.h"
#include "storage/bufmgr.h"
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
	int64		scans[WL_NUM_SCAN_KINDS];	/* arrived before it was stored */
} WlStmtRef;

typedef struct WlOpenXact
{
	bool		active;
	uint64		xact_id;
	TimestampTz start_ts;
	int32		statements;
	int32		inner_xacts;
	int32		next_stmt_no;
	double		kind_ms[WL_NUM_TIME_KINDS];
	int64		rows;
	int64		scans[WL_NUM_SCAN_KINDS];
	uint64		commit_wal_bytes;
	WlCommitModel model;
	bool		wal_skipped_any;
	bool		usage_baseline_set;
	WlUsageMark usage_baseline;

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
	bool		phase_done;		/* the ending phase has been measured */
	bool		ended_commit;	/* outcome of the transaction that ended */

	WlStmtRef  *refs;
	int			n_refs;
	int			refs_capacity;
} WlOpenXact;

static WlOpenXact cur;


static void xact_end_callback(void *arg);

/* GID of the PREPARE TRANSACTION being executed */
static char prepare_gid[GIDSIZE];

void
wl_model_set_prepare_gid(const char *gid)
{
	strlcpy(prepare_gid, gid, GIDSIZE);
}

bool
wl_xact_is_active(void)
{
	return cur.active;
}

void
wl_xact_activate(void)
{
	if (cur.active)
		return;
	cur.active = true;
	cur.xact_id = wl_store_next_xact_id();
	cur.start_ts = IsTransactionState() ?
		GetCurrentTransactionStartTimestamp() : GetCurrentTimestamp();
}

/*
 * A statement starts: the transaction's usage is measured from its first
 * statement (the backend's WAL I/O counters are zeroed between
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

int32
wl_xact_next_stmt_no(void)
{
	return ++cur.next_stmt_no;
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
 * finished statements
 * ----------------------------------------------------------------
 */

/*
 * Make sure that `more` statements can be queued without allocating:
 * statements can finish inside error handlers, where walload neither
 * allocates nor touches shared memory.
 */
void
wl_xact_reserve_finished(int more)
{
	if (n_finished + more <= finished_capacity)
		return;
	if (n_finished > 0 && !IsParallelWorker())
		wl_xact_flush_finished();
	if (n_finished + more > finished_capacity)
	{
		int			newcap = Max(64, (n_finished + more) * 2);

		if (finished == NULL)
			finished = MemoryContextAlloc(TopMemoryContext, sizeof(WlStmtRecord) * newcap);
		else
			finished = repalloc(finished, sizeof(WlStmtRecord) * newcap);
		finished_capacity = newcap;
	}
}

void
wl_xact_statement_done(const WlStmtRecord *rec, bool count_in_xact)
{
	/* capacity was reserved when the statement started */
	Assert(n_finished < finished_capacity);
	if (n_finished >= finished_capacity)
		return;
	wl_xact_activate();
	finished[n_finished] = *rec;
	finished[n_finished].xact_id = cur.xact_id;
	n_finished++;

	if (count_in_xact)
	{
		cur.statements++;
		cur.kind_ms[wl_time_kind(rec->tag)] += rec->elapsed_ms;
		cur.rows += rec->c.rows;
	}
	if (rec->wal_skipped)
		cur.wal_skipped_any = true;
}

/* Store queued statements: ring and aggregates.  Not in error context. */
void
wl_xact_flush_finished(void)
{
	for (int i = 0; i < n_finished; i++)
	{
		WlStmtRecord *rec = &finished[i];
		WlStmtRef  *ref = find_ref(rec->stmt_no);
		int64		pos;

		/* scans that arrived for it before it was stored */
		if (ref != NULL && !ref->stored)
		{
			for (int k = 0; k < WL_NUM_SCAN_KINDS; k++)
				rec->c.scans[k] += ref->scans[k];
			memset(ref->scans, 0, sizeof(ref->scans));
		}

		pos = wl_store_statement(rec);

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
	}
	n_finished = 0;
}

/* ----------------------------------------------------------------
 * scans
 * ----------------------------------------------------------------
 */
void
wl_xact_add_scans(WlScanKind kind, int64 n)
{
	if (n <= 0)
		return;
	wl_xact_activate();
	cur.scans[kind] += n;
	wl_store_add_scan_totals(kind, n, NBuffers);
}

/*
 * A scan at commit or abort, caused by statement stmt_no of the open record
 * (or by no known statement: -1).  Falls back to the statement running now
 * (inner transactions of VACUUM and the like).
 */
static void
add_attributed_scan(WlScanKind kind, int32 stmt_no)
{
	WlStmtRef  *ref = stmt_no >= 0 ? find_ref(stmt_no) : NULL;

	if (ref == NULL)
	{
		wl_add_scans_to_current(kind, 1);
		return;
	}

	wl_xact_add_scans(kind, 1);
	if (!ref->stored)
		ref->scans[kind]++;
	else
		wl_store_add_statement_scans(ref->ring_pos, cur.xact_id, ref->stmt_no,
									 &ref->key, kind, 1, NBuffers);
}

/* ----------------------------------------------------------------
 * transaction callbacks
 * ----------------------------------------------------------------
 */
static bool
tracking_enabled(void)
{
	return wl_track != WL_TRACK_NONE && wl_store_ready() && !IsParallelWorker();
}

static void
begin_phase(bool is_abort, bool is_prepare)
{
	MemoryContextCallback *cb;

	cur.in_phase = true;
	cur.phase_done = false;
	cur.phase_is_abort = is_abort;
	cur.phase_is_prepare = is_prepare;
	cur.abort_deferred = false;
	INSTR_TIME_SET_CURRENT(cur.phase_start);
	cur.phase_mid = cur.phase_start;
	INSTR_TIME_SET_ZERO(cur.phase_afterlocks);
	cur.phase_wal_start = pgWalUsage.wal_bytes;

	/* the end of the phase: TopTransactionContext is reset or deleted */
	cb = MemoryContextAlloc(TopTransactionContext, sizeof(MemoryContextCallback));
	cb->func = xact_end_callback;
	cb->arg = NULL;
	MemoryContextRegisterResetCallback(TopTransactionContext, cb);
}

static void
on_pre_commit(bool is_prepare)
{
	WlCommitModel model;
	bool		has_xid = TransactionIdIsValid(GetTopTransactionIdIfAny());

	wl_xact_flush_finished();

	if (has_xid || cur.active)
	{
		wl_model_commit(is_prepare, &model);
		if (model.sync_scan)
			add_attributed_scan(WL_SCAN_FLUSH_PENDING, wl_model_sync_statement());
		if (model.drop_scan && !is_prepare)
			add_attributed_scan(WL_SCAN_DROP_PENDING, wl_model_drop_statement());
		cur.model.wal_skipped_rels += model.wal_skipped_rels;
		cur.model.synced_rels += model.synced_rels;
		cur.model.synced_blocks += model.synced_blocks;
		cur.model.wal_logged_rels += model.wal_logged_rels;
		cur.model.wal_logged_blocks += model.wal_logged_blocks;
		if (!is_prepare)
			cur.model.dropped_rels += model.dropped_rels;
		else
			wl_store_remember_prepared(prepare_gid,
									   model.drop_scan, model.dropped_rels,
									   model.abort_drop_scan, model.abort_rels);
	}

	begin_phase(false, is_prepare);
}

static void
on_abort(void)
{
	int32		nrels = 0;

	/* statements interrupted by the error */
	wl_note_subxact_abort(InvalidSubTransactionId);

	if (wl_model_abort_drop_scan(&nrels))
	{
		cur.model.dropped_rels += nrels;
		add_attributed_scan(WL_SCAN_DROP_PENDING, wl_model_abort_statement(0));
	}

	begin_phase(true, false);

	/*
	 * After an error inside a transaction block, core cleans up (and so
	 * calls us back) only at the client's ROLLBACK.
	 */
	cur.abort_deferred = (TransactionBlockStatusCode() == 'T');
}

static void
wl_xact_callback(XactEvent event, void *arg)
{
	if (!tracking_enabled())
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
		case XACT_EVENT_PREPARE:
			if (cur.in_phase)
				INSTR_TIME_SET_CURRENT(cur.phase_mid);
			break;
		case XACT_EVENT_ABORT:
			on_abort();
			break;
		default:
			break;
	}
}

static void
wl_subxact_callback(SubXactEvent event, SubTransactionId mySubid,
					SubTransactionId parentSubid, void *arg)
{
	int32		nrels = 0;

	if (!tracking_enabled() || event != SUBXACT_EVENT_ABORT_SUB)
		return;

	wl_note_subxact_abort(mySubid);

	if (wl_model_abort_drop_scan(&nrels))
	{
		cur.model.dropped_rels += nrels;
		add_attributed_scan(WL_SCAN_DROP_PENDING,
							wl_model_abort_statement(GetCurrentTransactionNestLevel()));
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
maybe_warn(const WlXactRecord *rec)
{
	double		est;
	int64		scans = wl_full_scans(&rec->c);

	if (wl_warn_scan_ms < 0 || scans == 0 || rec->outcome != WL_OUTCOME_COMMIT)
		return;
	est = wl_est_scan_ms(scans, NBuffers);
	if (est < wl_warn_scan_ms)
		return;
	ereport(WARNING,
			(errmsg("this transaction scanned all %d shared buffers %lld times, an estimated %.1f ms",
					NBuffers, (long long) scans, est),
			 errdetail("flush of one relation: %lld, commit-time sync: %lld, truncation: %lld, file deletion: %lld, database: %lld.",
					   (long long) rec->c.scans[WL_SCAN_FLUSH_REL],
					   (long long) rec->c.scans[WL_SCAN_FLUSH_PENDING],
					   (long long) rec->c.scans[WL_SCAN_DROP_REL],
					   (long long) rec->c.scans[WL_SCAN_DROP_PENDING],
					   (long long) rec->c.scans[WL_SCAN_DB]),
			 errhint("Run SELECT * FROM walload_diagnose(%llu) for the causes and what to change.",
					 (unsigned long long) rec->xact_id)));
}

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
	rec.commit_wal_bytes = cur.commit_wal_bytes;
	rec.wal_skipped_rels = cur.model.wal_skipped_rels;
	rec.synced_rels = cur.model.synced_rels;
	rec.synced_blocks = cur.model.synced_blocks;
	rec.wal_logged_rels = cur.model.wal_logged_rels;
	rec.wal_logged_blocks = cur.model.wal_logged_blocks;
	rec.dropped_rels = cur.model.dropped_rels;
	rec.nbuffers = NBuffers;
	rec.wal_skip_threshold_kb = wal_skip_threshold;

	wl_store_xact(&rec);
	maybe_warn(&rec);
}

static void
reset_open_record(void)
{
	WlStmtRef  *refs = cur.refs;
	int			cap = cur.refs_capacity;

	memset(&cur, 0, sizeof(cur));
	cur.refs = refs;
	cur.refs_capacity = cap;
	cur.n_refs = 0;
}

/*
 * TopTransactionContext is being reset or deleted: the commit or abort
 * phase is over.  Runs with interrupts held at the very end of
 * CommitTransaction / CleanupTransaction; must not fail.
 */
static void
xact_end_callback(void *arg)
{
	instr_time	end;
	instr_time	d;
	bool		was_abort = cur.phase_is_abort;

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
	if (was_abort)
	{
		cur.commit_ms = INSTR_TIME_GET_MILLISEC(d);
		cur.sync_ms = 0;
		cur.cleanup_ms = cur.commit_ms;
	}
	else
	{
		cur.commit_ms = INSTR_TIME_GET_MILLISEC(d);
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

	wl_reset_statement_stack();

	if (cur.active)
	{
		wl_xact_flush_finished();
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
