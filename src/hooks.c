/*-------------------------------------------------------------------------
 *
 * hooks.c
 *		ProcessUtility, executor and object-access hooks, and the stack of
 *		statements in progress in this backend.
 *
 * Every hooked call is passed on to the previous hook (or the standard
 * function).  A statement is recorded ("tracked") when walload.track and
 * its kind allow it; nesting is counted the way pg_stat_statements counts
 * it, so `toplevel` means the same in both extensions.
 *
 * The stack lives in TopMemoryContext: a statement such as VACUUM, CALL of
 * a procedure that commits, or CREATE INDEX CONCURRENTLY runs several
 * transactions, and its record must survive them.
 *
 *-------------------------------------------------------------------------
 */
#include "walload.h"

#include "access/parallel.h"
#include "access/xact.h"
#include "catalog/objectaccess.h"
#include "catalog/pg_class.h"
#include "common/hashfn.h"
#include "executor/executor.h"
#include "mb/pg_wchar.h"
#include "miscadmin.h"
#include "nodes/parsenodes.h"
#include "tcop/utility.h"
#include "utils/memutils.h"

/* One statement in progress */
typedef struct WlActiveStmt
{
	uint64		serial;			/* unique in this backend: finds the entry */
	bool		tracked;		/* will be recorded (else kept only for
								 * attribution of nested work) */
	bool		is_utility;
	bool		conditional;	/* plain SELECT: recorded only if it wrote */
	bool		storage_effects;	/* created or scheduled deletion of files */
	bool		wal_skipped;
	bool		has_text;		/* query[] holds the statement's text */
	int			running;		/* executor: inside ExecutorRun/Finish */
	CommandTag	tag;
	uint64		queryid;
	int			nest_level;
	QueryDesc  *queryDesc;		/* executor statements only; compared, never
								 * dereferenced after its ExecutorStart */
	int32		stmt_no;
	uint64		xact_epoch;		/* transaction it started in */
	SubTransactionId subid;
	TimestampTz start_ts;
	instr_time	start;			/* utility: start; executor: start of Run */
	instr_time	elapsed;		/* executor: accumulated Run/Finish time */

	/*
	 * Usage.  A utility statement is measured from its start to its end; an
	 * executor statement only inside ExecutorRun and ExecutorFinish, as its
	 * time is (and as pg_stat_statements measures it): a cursor's query is
	 * not charged what other statements did between its FETCHes.
	 */
	WlUsageMark usage_start;	/* utility: start; executor: start of phase */
	WlUsageMark usage;			/* executor: accumulated over its phases */
	bool		measured;		/* utility: measured (time, usage) */
	double		measured_ms;
	WlCounters	measured_usage;
	int64		scans[WL_NUM_SCAN_KINDS];	/* immediate scans attributed */
	int64		scan_est_ns;	/* their estimated duration */
	int32		vacuum_ring_kb;
	int64		vacuum_pages;
	int64		vacuum_pages_removed;

	/*
	 * The statement's text.  The source is core's (the portal's or the
	 * message's memory): it may be read only while the statement's own hook
	 * is on the C stack.  Recorded statements copy it at their start, plain
	 * SELECTs (recorded only if they write) when a phase wrote WAL; an
	 * abort never reads it (core has freed the portals by then).
	 */
	const char *source_text;
	int			query_location;
	int			query_len;
	char		query[WL_QUERY_LEN];
} WlActiveStmt;

static WlActiveStmt *stmt_stack = NULL;
static int	stmt_depth = 0;
static int	stmt_capacity = 0;
static uint64 next_serial = 1;

/* nesting depth of executor / utility calls, as in pg_stat_statements */
static int	wl_nested_level = 0;

/* local epoch of top-level transactions, see wl_stack_xact_end() */
static uint64 wl_xact_epoch = 1;

static ProcessUtility_hook_type prev_ProcessUtility = NULL;
static ExecutorStart_hook_type prev_ExecutorStart = NULL;
static ExecutorRun_hook_type prev_ExecutorRun = NULL;
static ExecutorFinish_hook_type prev_ExecutorFinish = NULL;
static ExecutorEnd_hook_type prev_ExecutorEnd = NULL;
static object_access_hook_type prev_object_access_hook = NULL;

/* the utility statement currently inside standard_ProcessUtility, if any */
static NodeTag current_utility_tag = T_Invalid;

static void finish_statement(int idx, WlStmtStatus status, uint64 rows,
							 bool source_valid);

/* ----------------------------------------------------------------
 * command names and time kinds
 * ----------------------------------------------------------------
 */
const char *
wl_command_name(CommandTag tag)
{
	return GetCommandTagName(tag);
}

WlTimeKind
wl_time_kind(CommandTag tag)
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

/* ----------------------------------------------------------------
 * which statements are recorded
 * ----------------------------------------------------------------
 */

/*
 * The one gate: is walload observing this backend now?  Decided when a
 * statement starts; a transaction observed at its start is also closed,
 * whatever walload.track says by its end (xact_track.c).
 */
static inline bool
tracking_on(void)
{
	return wl_track != WL_TRACK_NONE && wl_store_ready() && !IsParallelWorker();
}

/* is a statement at the current nesting level recorded */
static inline bool
level_recorded(void)
{
	return wl_track == WL_TRACK_ALL || wl_nested_level == 0;
}

/*
 * Utility statements that cannot do bulk work or touch relation storage
 * are not recorded: transaction control, settings, prepared-statement and
 * cursor plumbing, LISTEN/NOTIFY, LOCK.
 */
static bool
utility_is_work(Node *parsetree)
{
	switch (nodeTag(parsetree))
	{
		case T_TransactionStmt:
			/* COMMIT / ROLLBACK PREPARED delete files: they are work */
			return ((TransactionStmt *) parsetree)->kind == TRANS_STMT_COMMIT_PREPARED ||
				((TransactionStmt *) parsetree)->kind == TRANS_STMT_ROLLBACK_PREPARED;
		case T_VariableSetStmt:
		case T_VariableShowStmt:
		case T_PrepareStmt:
		case T_ExecuteStmt:
		case T_DeallocateStmt:
		case T_DeclareCursorStmt:
		case T_FetchStmt:
		case T_ClosePortalStmt:
		case T_ListenStmt:
		case T_UnlistenStmt:
		case T_NotifyStmt:
		case T_DiscardStmt:
		case T_LockStmt:
		case T_ConstraintsSetStmt:
			return false;
		default:
			return true;
	}
}

/*
 * Does this utility statement make the statements it runs one level
 * deeper?  Not EXECUTE (its statement is the prepared one, top-level if
 * EXECUTE is), nor PREPARE and DEALLOCATE: as in pg_stat_statements, so
 * that toplevel means the same in both extensions.
 */
static inline bool
utility_nests(Node *parsetree)
{
	return !IsA(parsetree, ExecuteStmt) &&
		!IsA(parsetree, PrepareStmt) &&
		!IsA(parsetree, DeallocateStmt);
}

/*
 * Utility statements after which the pending file lists are examined (to
 * attribute commit-time scans).  Those that can neither create nor delete
 * relation files are skipped: the examination walks the whole list.
 */
static bool
utility_may_touch_storage(NodeTag tag)
{
	switch (tag)
	{
		case T_CopyStmt:
		case T_VacuumStmt:
		case T_CommentStmt:
		case T_GrantStmt:
		case T_GrantRoleStmt:
		case T_CreateFunctionStmt:
		case T_AlterFunctionStmt:
		case T_CreateRoleStmt:
		case T_AlterRoleStmt:
		case T_ViewStmt:
		case T_CheckPointStmt:
		case T_CreatedbStmt:
		case T_DropdbStmt:
			return false;
		default:
			return true;
	}
}

/* ----------------------------------------------------------------
 * the stack
 * ----------------------------------------------------------------
 */

/* copy the statement's text into the entry; its source must be valid */
static void
copy_text(WlActiveStmt *s)
{
	int			loc = s->query_location;
	int			len = s->query_len;
	const char *q;
	int			clip;

	if (s->has_text || s->source_text == NULL)
		return;
	q = CleanQuerytext(s->source_text, &loc, &len);
	clip = len < WL_QUERY_LEN ? len : pg_mbcliplen(q, len, WL_QUERY_LEN - 1);
	memcpy(s->query, q, clip);
	s->query[clip] = '\0';
	s->has_text = true;
}

static int
push_statement(bool tracked, bool is_utility, bool conditional, CommandTag tag,
			   uint64 queryid, QueryDesc *queryDesc, const char *source_text,
			   int query_location, int query_len)
{
	WlActiveStmt *s;

	if (stmt_depth >= stmt_capacity)
	{
		int			newcap = stmt_capacity == 0 ? 16 : stmt_capacity * 2;

		if (stmt_stack == NULL)
			stmt_stack = MemoryContextAllocZero(TopMemoryContext,
												sizeof(WlActiveStmt) * newcap);
		else
			stmt_stack = repalloc(stmt_stack, sizeof(WlActiveStmt) * newcap);
		stmt_capacity = newcap;
	}

	/* room to queue every statement on the stack without allocating */
	wl_xact_reserve_finished(stmt_depth + 1);
	wl_xact_note_activity();

	s = &stmt_stack[stmt_depth];
	memset(s, 0, offsetof(WlActiveStmt, query));
	s->query[0] = '\0';
	s->serial = next_serial++;
	s->tracked = tracked;
	s->is_utility = is_utility;
	s->conditional = conditional;
	s->tag = tag;
	s->queryid = queryid;
	s->nest_level = wl_nested_level;
	s->queryDesc = queryDesc;
	s->stmt_no = tracked ? wl_xact_next_stmt_no() : -1;
	s->xact_epoch = wl_xact_epoch;
	s->subid = GetCurrentSubTransactionId();
	s->start_ts = GetCurrentTimestamp();
	INSTR_TIME_SET_CURRENT(s->start);
	INSTR_TIME_SET_ZERO(s->elapsed);
	if (is_utility)
		wl_usage_mark(&s->usage_start);	/* again right before the call */
	s->source_text = source_text;
	s->query_location = query_location;
	s->query_len = query_len;
	if (tracked && !conditional)
		copy_text(s);

	return stmt_depth++;
}

static void
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

/* innermost statement that is running now, or -1 */
static int
current_statement(void)
{
	for (int i = stmt_depth - 1; i >= 0; i--)
	{
		WlActiveStmt *s = &stmt_stack[i];

		if (s->is_utility || s->running > 0)
			return i;
	}
	return -1;
}

bool
wl_statement_in_progress(void)
{
	return current_statement() >= 0;
}

/*
 * Whether a utility statement can walk the buffer pool while it runs, or
 * leave a walk to an abort: everything but the session and transaction
 * control statements that OLTP sends all the time (BEGIN, COMMIT, SET,
 * PREPARE, cursors...), for which counting unmapped header pages
 * (scan_cost.c) would be pure cost.
 */
static bool
utility_may_walk(Node *parsetree)
{
	switch (nodeTag(parsetree))
	{
		case T_TransactionStmt:
		case T_VariableSetStmt:
		case T_VariableShowStmt:
		case T_PrepareStmt:
		case T_ExecuteStmt:
		case T_DeallocateStmt:
		case T_DeclareCursorStmt:
		case T_FetchStmt:
		case T_ClosePortalStmt:
		case T_ListenStmt:
		case T_NotifyStmt:
		case T_UnlistenStmt:
		case T_LockStmt:
		case T_DiscardStmt:
		case T_CheckPointStmt:
		case T_ExplainStmt:
			return false;
		default:
			return true;
	}
}

/*
 * A scan happened (or is certain to happen) during the current statement:
 * count it for the innermost running statement and for the transaction.
 */
void
wl_add_scans_to_current(WlScanKind kind, int64 n, double est_ns)
{
	int			idx;

	if (n <= 0 || !wl_xact_observed())
		return;
	idx = current_statement();
	if (idx >= 0)
	{
		stmt_stack[idx].scans[kind] += n;
		stmt_stack[idx].scan_est_ns += (int64) est_ns;
	}
	wl_xact_add_scans(kind, n, est_ns);
}

/* A VACUUM statement's ring size and the pages of its tables */
void
wl_add_vacuum_to_current(int ring_kb, int64 pages, int64 pages_removed)
{
	int			idx = current_statement();

	if (idx < 0)
		return;
	stmt_stack[idx].vacuum_ring_kb = ring_kb;
	stmt_stack[idx].vacuum_pages += pages;
	stmt_stack[idx].vacuum_pages_removed += pages_removed;
}

/* The statement's rows wrote into a relation that skips WAL */
void
wl_xact_mark_wal_skipped_current(void)
{
	int			idx = current_statement();

	if (idx >= 0)
		stmt_stack[idx].wal_skipped = true;
}

/* the nearest recorded statement running now, or -1 */
static int
current_tracked_statement(void)
{
	for (int idx = current_statement(); idx >= 0; idx--)
	{
		if (stmt_stack[idx].tracked &&
			(stmt_stack[idx].is_utility || stmt_stack[idx].running > 0))
			return idx;
	}
	return -1;
}

/* stmt_no of the statement that takes the attribution of work done now */
int32
wl_current_statement_no(void)
{
	int			idx = current_tracked_statement();

	return idx >= 0 ? stmt_stack[idx].stmt_no : -1;
}

/* The current statement created relation files or scheduled their deletion */
void
wl_note_storage_effects(void)
{
	int			idx = current_tracked_statement();

	if (idx >= 0)
		stmt_stack[idx].storage_effects = true;
}

/*
 * A utility statement is measured around the call of standard_ProcessUtility
 * (as pg_stat_statements measures it), not around walload's own look at it
 * before and after: start_utility_measure() right before the call,
 * measure_utility() right after it (or in its error handler).
 */
static void
start_utility_measure(uint64 serial)
{
	int			i = find_serial(serial);

	if (i < 0)
		return;
	INSTR_TIME_SET_CURRENT(stmt_stack[i].start);
	wl_usage_mark(&stmt_stack[i].usage_start);
}

static void
measure_utility(WlActiveStmt *s)
{
	instr_time	now;

	INSTR_TIME_SET_CURRENT(now);
	INSTR_TIME_SUBTRACT(now, s->start);
	s->measured_ms = INSTR_TIME_GET_MILLISEC(now);
	wl_usage_since(&s->usage_start, &s->measured_usage);
	s->measured = true;
}

static void
measure_utility_serial(uint64 serial)
{
	int			i = find_serial(serial);

	if (i >= 0 && !stmt_stack[i].measured)
		measure_utility(&stmt_stack[i]);
}

/*
 * Build the finished record of stack entry idx, hand it to the transaction
 * tracker, and remove it from the stack.  source_valid: the statement's
 * source text may be read (false on the abort path).  Allocates nothing.
 */
static void
finish_statement(int idx, WlStmtStatus status, uint64 rows, bool source_valid)
{
	WlActiveStmt *s = &stmt_stack[idx];
	WlStmtRecord rec;
	bool		scanned = false;

	if (!s->tracked)
	{
		/*
		 * Untracked entries (sub-commands, nested statements under track =
		 * top) carry their scans and WAL-skipping up to the nearest tracked
		 * parent: CREATE TABLE ... PRIMARY KEY creates its index in a
		 * sub-command.
		 */
		int64		scans[WL_NUM_SCAN_KINDS];
		int64		scan_est_ns = s->scan_est_ns;
		bool		wal_skipped = s->wal_skipped;

		memcpy(scans, s->scans, sizeof(scans));
		remove_statement(idx);
		for (int j = Min(idx, stmt_depth) - 1; j >= 0; j--)
		{
			if (stmt_stack[j].tracked)
			{
				for (int k = 0; k < WL_NUM_SCAN_KINDS; k++)
					stmt_stack[j].scans[k] += scans[k];
				stmt_stack[j].scan_est_ns += scan_est_ns;
				stmt_stack[j].wal_skipped |= wal_skipped;
				break;
			}
		}
		return;
	}

	for (int k = 0; k < WL_NUM_SCAN_KINDS; k++)
		scanned |= (s->scans[k] != 0);

	/*
	 * A plain SELECT is recorded only when it wrote WAL, touched storage or
	 * scanned the pool.  Most do none of that: decide before building the
	 * record (this is the hot path of read-only workloads).
	 */
	if (s->conditional && !s->storage_effects && !scanned &&
		s->usage.wal.wal_records == 0)
	{
		remove_statement(idx);
		return;
	}

	memset(&rec, 0, sizeof(rec));
	rec.stmt_no = s->stmt_no;
	rec.pid = MyProcPid;
	rec.userid = GetUserId();
	rec.dbid = MyDatabaseId;
	rec.queryid = s->queryid;
	rec.toplevel = (s->nest_level == 0);
	rec.nest_level = s->nest_level;
	rec.tag = s->tag;
	rec.status = status;
	rec.start = s->start_ts;
	rec.wal_skipped = s->wal_skipped;
	rec.nbuffers = NBuffers;

	if (s->is_utility)
	{
		if (!s->measured)
			measure_utility(s);
		rec.elapsed_ms = s->measured_ms;
		rec.c = s->measured_usage;
	}
	else
	{
		rec.elapsed_ms = INSTR_TIME_GET_MILLISEC(s->elapsed);
		wl_usage_counters(&s->usage, &rec.c);
	}
	rec.c.rows = (int64) rows;
	memcpy(rec.c.scans, s->scans, sizeof(rec.c.scans));
	rec.c.scan_est_ns = s->scan_est_ns;
	rec.vacuum_ring_kb = s->vacuum_ring_kb;
	rec.vacuum_pages = s->vacuum_pages;
	rec.vacuum_pages_removed = s->vacuum_pages_removed;

	if (source_valid)
		copy_text(s);
	if (s->has_text)
		memcpy(rec.query, s->query, WL_QUERY_LEN);

	remove_statement(idx);
	wl_xact_statement_done(&rec, rec.toplevel);
}

/*
 * A (sub)transaction is aborting: executor statements that began inside it
 * and are still on the stack were interrupted where no hook of theirs runs
 * (a cursor or a SQL function's query whose portal core has dropped).
 * They failed.  Utility statements are not touched: one that is on the
 * stack here is still running and ended the transaction itself (ROLLBACK
 * in a procedure); a failed one was finished by its own error handler.
 * Runs on the abort path: reads no memory of core's, allocates nothing.
 */
void
wl_stack_abort(SubTransactionId subid)
{
	for (int i = stmt_depth - 1; i >= 0; i--)
	{
		WlActiveStmt *s = &stmt_stack[i];

		if (!s->is_utility && s->xact_epoch == wl_xact_epoch &&
			(subid == InvalidSubTransactionId || s->subid >= subid))
			finish_statement(i, WL_STMT_ERROR, 0, false);
	}
}

/*
 * A top-level transaction has ended and no statement is running: entries
 * left on the stack are executor statements whose end core never reported;
 * forget them (their portals are gone).  Allocates nothing.
 */
void
wl_stack_xact_end(void)
{
	wl_xact_epoch++;
	for (int i = stmt_depth - 1; i >= 0; i--)
		if (!stmt_stack[i].is_utility && stmt_stack[i].running == 0)
			remove_statement(i);
}

/* ----------------------------------------------------------------
 * query id of a utility statement
 * ----------------------------------------------------------------
 */
static uint64
utility_queryid(PlannedStmt *pstmt, const char *queryString)
{
	if (pstmt->queryId != UINT64CONST(0) || !IsQueryIdEnabled())
		return pstmt->queryId;

	/*
	 * An extension called before us (pg_stat_statements when it is listed
	 * after walload in shared_preload_libraries) zeroed it: compute it the
	 * way core does (compat.h).
	 */
	return wl_compute_utility_queryid(pstmt, queryString);
}

/* ----------------------------------------------------------------
 * ProcessUtility
 * ----------------------------------------------------------------
 */

/* finish the utility statement entry `serial`, if it is still there */
static void
finish_utility(uint64 serial, WlStmtStatus status, uint64 rows)
{
	int			i = find_serial(serial);

	if (i >= 0)
		finish_statement(i, status, rows, true);
}

static void
wl_ProcessUtility(PlannedStmt *pstmt, const char *queryString,
				  bool readOnlyTree,
				  ProcessUtilityContext context,
				  ParamListInfo params, QueryEnvironment *queryEnv,
				  DestReceiver *dest, QueryCompletion *qc)
{
	Node	   *parsetree = pstmt->utilityStmt;
	NodeTag		parsetree_tag = nodeTag(parsetree);
	bool		on = tracking_on();
	bool		observe = on && utility_is_work(parsetree);
	bool		nests = utility_nests(parsetree);
	int			saved_level = wl_nested_level;
	NodeTag		saved_utility_tag = current_utility_tag;
	WlUtilityObservation *volatile obs = NULL;
	uint64		serial = 0;

	if (on)
		wl_xact_observe();

	/* PREPARE TRANSACTION runs at the end of the statement; keep its GID */
	if (parsetree_tag == T_TransactionStmt &&
		((TransactionStmt *) parsetree)->kind == TRANS_STMT_PREPARE)
		wl_model_set_prepare_gid(((TransactionStmt *) parsetree)->gid);

	/* save what we need before the next hook can change or free it */
	if (observe)
	{
		bool		track = wl_track_utility && level_recorded();
		int			idx;

		idx = push_statement(track, true, false,
							 CreateCommandTag(parsetree),
							 track ? utility_queryid(pstmt, queryString) : 0,
							 NULL, queryString,
							 pstmt->stmt_location, pstmt->stmt_len);
		serial = stmt_stack[idx].serial;
	}

	if (nests)
		wl_nested_level++;
	current_utility_tag = parsetree_tag;
	PG_TRY();
	{
		if (observe)
		{
			obs = wl_model_utility_before(parsetree);
			/* a scan it does also maps the header pages, if first */
			if (obs != NULL || utility_may_walk(parsetree))
				wl_header_pages_sample();
			start_utility_measure(serial);
		}
		if (prev_ProcessUtility)
			prev_ProcessUtility(pstmt, queryString, readOnlyTree,
								context, params, queryEnv,
								dest, qc);
		else
			standard_ProcessUtility(pstmt, queryString, readOnlyTree,
									context, params, queryEnv,
									dest, qc);
	}
	PG_CATCH();
	{
		wl_nested_level = saved_level;
		current_utility_tag = saved_utility_tag;
		if (observe)
		{
			measure_utility_serial(serial);
			wl_model_utility_after(obs, false);
			finish_utility(serial, WL_STMT_ERROR, 0);
		}
		PG_RE_THROW();
	}
	PG_END_TRY();
	wl_nested_level = saved_level;
	current_utility_tag = saved_utility_tag;
	if (observe)
		measure_utility_serial(serial);

	/*
	 * CAUTION: pstmt may have been freed (e.g. COMMIT inside a procedure).
	 */
	if (observe)
	{
		uint64		rows;

		PG_TRY();
		{
			wl_model_utility_after(obs, true);
			if (utility_may_touch_storage(parsetree_tag) &&
				wl_model_after_utility(wl_current_statement_no()))
				wl_xact_mark_wal_skipped_current();
		}
		PG_CATCH();
		{
			finish_utility(serial, WL_STMT_ERROR, 0);
			PG_RE_THROW();
		}
		PG_END_TRY();
		rows = (qc && (qc->commandTag == CMDTAG_COPY ||
					   qc->commandTag == CMDTAG_SELECT ||
					   qc->commandTag == CMDTAG_FETCH ||
					   qc->commandTag == CMDTAG_REFRESH_MATERIALIZED_VIEW)) ?
			qc->nprocessed : 0;
		finish_utility(serial, WL_STMT_OK, rows);
	}
}

/* ----------------------------------------------------------------
 * executor
 * ----------------------------------------------------------------
 */
static int
find_executor_entry(QueryDesc *queryDesc)
{
	for (int i = stmt_depth - 1; i >= 0; i--)
		if (!stmt_stack[i].is_utility && stmt_stack[i].queryDesc == queryDesc)
			return i;
	return -1;
}

static void
wl_ExecutorStart(QueryDesc *queryDesc, int eflags)
{
	PlannedStmt *ps;
	bool		conditional = false;
	CommandTag	tag;

	if (prev_ExecutorStart)
		prev_ExecutorStart(queryDesc, eflags);
	else
		standard_ExecutorStart(queryDesc, eflags);

	if ((eflags & EXEC_FLAG_EXPLAIN_ONLY) || !tracking_on())
		return;
	wl_xact_observe();
	if (!wl_track_dml || !level_recorded())
		return;

	ps = queryDesc->plannedstmt;

	/*
	 * The inner query of a utility statement (CREATE TABLE AS, COPY (query)
	 * TO, REFRESH, EXPLAIN ANALYZE, ...) has no query id of its own, exactly
	 * as pg_stat_statements sees it: the utility statement counts it.
	 */
	if (ps->queryId == UINT64CONST(0) && stmt_depth > 0 &&
		stmt_stack[stmt_depth - 1].is_utility &&
		stmt_stack[stmt_depth - 1].nest_level == wl_nested_level - 1)
		return;

	switch (queryDesc->operation)
	{
		case CMD_INSERT:
			tag = CMDTAG_INSERT;
			break;
		case CMD_UPDATE:
			tag = CMDTAG_UPDATE;
			break;
		case CMD_DELETE:
			tag = CMDTAG_DELETE;
			break;
		case CMD_MERGE:
			tag = CMDTAG_MERGE;
			break;
		case CMD_SELECT:
			tag = CMDTAG_SELECT;
			conditional = !ps->hasModifyingCTE;
			break;
		default:
			return;
	}

	(void) push_statement(true, false, conditional, tag, ps->queryId,
						  queryDesc, queryDesc->sourceText,
						  ps->stmt_location, ps->stmt_len);
}

/*
 * ExecutorRun and ExecutorFinish: time and usage inside them count for the
 * statement (as in pg_stat_statements), and nesting deepens.  A query that
 * is not recorded (nested under track = top) costs a look at the stack and
 * nothing else: no clock is read for it.
 */
static bool
executor_phase_begin(QueryDesc *queryDesc, instr_time *start)
{
	int			idx = stmt_depth > 0 ? find_executor_entry(queryDesc) : -1;

	wl_nested_level++;
	if (idx < 0)
		return false;
	if (stmt_stack[idx].running++ == 0)
		wl_usage_mark(&stmt_stack[idx].usage_start);
	INSTR_TIME_SET_CURRENT(*start);
	return true;
}

static void
executor_phase_end(QueryDesc *queryDesc, instr_time start, bool failed)
{
	int			idx;
	instr_time	now;
	WlActiveStmt *s;

	idx = find_executor_entry(queryDesc);
	if (idx < 0)
		return;
	s = &stmt_stack[idx];
	INSTR_TIME_SET_CURRENT(now);
	INSTR_TIME_SUBTRACT(now, start);
	INSTR_TIME_ADD(s->elapsed, now);
	if (--s->running == 0)
	{
		int64		wal_before = s->usage.wal.wal_records;

		wl_usage_accum(&s->usage, &s->usage_start);
		/* a plain SELECT that wrote will be recorded: keep its text now */
		if (s->conditional && s->tracked && s->usage.wal.wal_records != wal_before)
			copy_text(s);
	}
	if (failed)
		finish_statement(idx, WL_STMT_ERROR, 0, true);
}

static void
wl_ExecutorRun(WL_EXECUTOR_RUN_ARGS)
{
	instr_time	start;
	int			saved_level = wl_nested_level;
	bool		mine = executor_phase_begin(queryDesc, &start);

	PG_TRY();
	{
		if (prev_ExecutorRun)
			prev_ExecutorRun(WL_EXECUTOR_RUN_PASS);
		else
			standard_ExecutorRun(WL_EXECUTOR_RUN_PASS);
	}
	PG_CATCH();
	{
		wl_nested_level = saved_level;
		if (mine)
			executor_phase_end(queryDesc, start, true);
		PG_RE_THROW();
	}
	PG_END_TRY();
	wl_nested_level = saved_level;
	if (mine)
		executor_phase_end(queryDesc, start, false);
}

static void
wl_ExecutorFinish(QueryDesc *queryDesc)
{
	instr_time	start;
	int			saved_level = wl_nested_level;
	bool		mine = executor_phase_begin(queryDesc, &start);

	PG_TRY();
	{
		if (prev_ExecutorFinish)
			prev_ExecutorFinish(queryDesc);
		else
			standard_ExecutorFinish(queryDesc);
	}
	PG_CATCH();
	{
		wl_nested_level = saved_level;
		if (mine)
			executor_phase_end(queryDesc, start, true);
		PG_RE_THROW();
	}
	PG_END_TRY();
	wl_nested_level = saved_level;
	if (mine)
		executor_phase_end(queryDesc, start, false);
}

static void
wl_ExecutorEnd(QueryDesc *queryDesc)
{
	int			idx = stmt_depth > 0 ? find_executor_entry(queryDesc) : -1;
	uint64		rows = 0;

	if (idx >= 0 && queryDesc->estate)
	{
		ListCell   *lc;

		rows = queryDesc->estate->es_processed;
		foreach(lc, queryDesc->estate->es_opened_result_relations)
		{
			ResultRelInfo *rri = lfirst(lc);

			if (wl_model_relation_skips_wal(rri->ri_RelationDesc))
				stmt_stack[idx].wal_skipped = true;
		}
	}

	if (prev_ExecutorEnd)
		prev_ExecutorEnd(queryDesc);
	else
		standard_ExecutorEnd(queryDesc);

	/* after the end: AFTER triggers and their nested work are included */
	if (idx >= 0 && (idx = find_executor_entry(queryDesc)) >= 0)
		finish_statement(idx, WL_STMT_OK, rows, true);
}

/* ----------------------------------------------------------------
 * object access: facts the scan model needs at the moment they happen
 * ----------------------------------------------------------------
 */
static void
wl_object_access(ObjectAccessType access, Oid classId, Oid objectId,
				 int subId, void *arg)
{
	if (prev_object_access_hook)
		prev_object_access_hook(access, classId, objectId, subId, arg);

	if (classId != RelationRelationId || subId != 0 || stmt_depth == 0 ||
		!wl_xact_observed())
		return;

	switch (access)
	{
		case OAT_TRUNCATE:
			wl_model_note_truncate(objectId);
			break;
		case OAT_POST_CREATE:
			wl_model_note_created_relation(objectId);
			break;
		case OAT_POST_ALTER:
			if (current_utility_tag == T_AlterTableStmt ||
				current_utility_tag == T_AlterTableMoveAllStmt)
				wl_model_note_altered_relation(objectId);
			break;
		default:
			break;
	}
}

void
wl_install_hooks(void)
{
	prev_ProcessUtility = ProcessUtility_hook;
	ProcessUtility_hook = wl_ProcessUtility;
	prev_ExecutorStart = ExecutorStart_hook;
	ExecutorStart_hook = wl_ExecutorStart;
	prev_ExecutorRun = ExecutorRun_hook;
	ExecutorRun_hook = wl_ExecutorRun;
	prev_ExecutorFinish = ExecutorFinish_hook;
	ExecutorFinish_hook = wl_ExecutorFinish;
	prev_ExecutorEnd = ExecutorEnd_hook;
	ExecutorEnd_hook = wl_ExecutorEnd;
	prev_object_access_hook = object_access_hook;
	object_access_hook = wl_object_access;
}
