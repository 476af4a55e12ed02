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
	bool		tracked;		/* will be recorded (else kept only for
								 * attribution of nested work) */
	bool		is_utility;
	bool		conditional;	/* plain SELECT: recorded only if it wrote */
	bool		storage_effects;	/* created or scheduled deletion of files */
	int			running;		/* executor: inside ExecutorRun/Finish */
	CommandTag	tag;
	uint64		queryid;
	int			nest_level;
	QueryDesc  *queryDesc;		/* executor statements only */
	int32		stmt_no;
	uint64		xact_epoch;		/* transaction it started in */
	SubTransactionId subid;
	TimestampTz start_ts;
	instr_time	start;			/* utility: start; executor: start of Run */
	instr_time	elapsed;		/* executor: accumulated Run/Finish time */
	WlUsageMark usage_start;
	int64		scans[WL_NUM_SCAN_KINDS];	/* immediate scans attributed */
	int32		vacuum_ring_kb;
	int64		vacuum_pages;
	int64		vacuum_pages_removed;
	bool		wal_skipped;
	/* the statement's text, copied only if the statement is recorded */
	const char *query_text;
	int			query_location;
	int			query_len;
} WlActiveStmt;

static WlActiveStmt *stmt_stack = NULL;
static int	stmt_depth = 0;
static int	stmt_capacity = 0;

/* does this server version have backend-local WAL write/sync counters */
bool		wl_wal_io_available = false;

/* nesting depth of executor / utility calls, as in pg_stat_statements */
static int	wl_nested_level = 0;

/* local epoch of top-level transactions, see wl_note_xact_boundary() */
static uint64 wl_xact_epoch = 1;

static ProcessUtility_hook_type prev_ProcessUtility = NULL;
static ExecutorStart_hook_type prev_ExecutorStart = NULL;
static ExecutorRun_hook_type prev_ExecutorRun = NULL;
static ExecutorFinish_hook_type prev_ExecutorFinish = NULL;
static ExecutorEnd_hook_type prev_ExecutorEnd = NULL;
static object_access_hook_type prev_object_access_hook = NULL;

/* the utility statement currently inside standard_ProcessUtility, if any */
static NodeTag current_utility_tag = T_Invalid;

static void finish_statement(int idx, WlStmtStatus status, uint64 rows);

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
static bool
track_level_allows(void)
{
	if (wl_track == WL_TRACK_NONE || IsParallelWorker() || !wl_store_ready())
		return false;
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
static int
push_statement(bool tracked, bool is_utility, CommandTag tag, uint64 queryid,
			   QueryDesc *queryDesc, const char *query_text,
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
	memset(s, 0, sizeof(WlActiveStmt));
	s->tracked = tracked;
	s->is_utility = is_utility;
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
	wl_usage_mark(&s->usage_start);
	s->query_text = query_text;
	s->query_location = query_location;
	s->query_len = query_len;

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

int
wl_nesting_level(void)
{
	return wl_nested_level;
}

bool
wl_statement_in_progress(void)
{
	return current_statement() >= 0;
}

/*
 * A scan happened (or is certain to happen) during the current statement:
 * count it for the innermost running statement and for the transaction.
 */
void
wl_add_scans_to_current(WlScanKind kind, int64 n)
{
	int			idx;

	if (n <= 0)
		return;
	idx = current_statement();
	if (idx >= 0)
		stmt_stack[idx].scans[kind] += n;
	wl_xact_add_scans(kind, n);
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
 * Build the finished record of stack entry idx, hand it to the transaction
 * tracker, and remove it from the stack.
 */
static void
finish_statement(int idx, WlStmtStatus status, uint64 rows)
{
	WlActiveStmt *s = &stmt_stack[idx];
	WlStmtRecord rec;
	instr_time	now;
	bool		keep;

	if (!s->tracked)
	{
		/* untracked entries carry scans up to the nearest tracked parent */
		int64		scans[WL_NUM_SCAN_KINDS];

		memcpy(scans, s->scans, sizeof(scans));
		remove_statement(idx);
		for (int k = 0; k < WL_NUM_SCAN_KINDS; k++)
		{
			if (scans[k] == 0)
				continue;
			for (int j = Min(idx, stmt_depth) - 1; j >= 0; j--)
			{
				if (stmt_stack[j].tracked)
				{
					stmt_stack[j].scans[k] += scans[k];
					break;
				}
			}
		}
		return;
	}

	/*
	 * A plain SELECT is recorded only when it wrote WAL, touched storage or
	 * scanned the pool.  Most do none of that: decide before building the
	 * record (this is the hot path of read-only workloads).
	 */
	if (s->conditional && !s->storage_effects &&
		pgWalUsage.wal_records == s->usage_start.wal.wal_records)
	{
		bool		scanned = false;

		for (int k = 0; k < WL_NUM_SCAN_KINDS; k++)
			scanned |= (s->scans[k] != 0);
		if (!scanned)
		{
			remove_statement(idx);
			return;
		}
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
		INSTR_TIME_SET_CURRENT(now);
		INSTR_TIME_SUBTRACT(now, s->start);
		rec.elapsed_ms = INSTR_TIME_GET_MILLISEC(now);
	}
	else
		rec.elapsed_ms = INSTR_TIME_GET_MILLISEC(s->elapsed);

	wl_usage_since(&s->usage_start, &rec.c);
	rec.c.rows = (int64) rows;
	memcpy(rec.c.scans, s->scans, sizeof(rec.c.scans));
	rec.vacuum_ring_kb = s->vacuum_ring_kb;
	rec.vacuum_pages = s->vacuum_pages;
	rec.vacuum_pages_removed = s->vacuum_pages_removed;

	/* a plain SELECT is recorded only when it wrote WAL or touched storage */
	keep = !s->conditional ||
		rec.c.wal_records > 0 || s->storage_effects ||
		wl_full_scans(&rec.c) > 0;

	if (keep && s->query_text != NULL)
	{
		int			loc = s->query_location;
		int			len = s->query_len;
		const char *q = CleanQuerytext(s->query_text, &loc, &len);
		int			clip = len < WL_QUERY_LEN ? len :
			pg_mbcliplen(q, len, WL_QUERY_LEN - 1);

		memcpy(rec.query, q, clip);
		rec.query[clip] = '\0';
	}

	remove_statement(idx);

	if (keep)
		wl_xact_statement_done(&rec, rec.toplevel);
}

/*
 * A (sub)transaction is aborting: statements that began inside it and are
 * still on the stack failed.  Executor statements interrupted outside
 * ExecutorRun/Finish end up here; utility statements were already removed
 * by their own error handler.
 */
void
wl_note_subxact_abort(SubTransactionId subid)
{
	for (int i = stmt_depth - 1; i >= 0; i--)
	{
		WlActiveStmt *s = &stmt_stack[i];

		if (s->xact_epoch == wl_xact_epoch &&
			(subid == InvalidSubTransactionId || s->subid >= subid))
			finish_statement(i, WL_STMT_ERROR, 0);
	}
}

/* Called by xact_track.c when a top-level transaction has ended */
void
wl_reset_statement_stack(void)
{
	wl_xact_epoch++;
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
static void
wl_ProcessUtility(PlannedStmt *pstmt, const char *queryString,
				  bool readOnlyTree,
				  ProcessUtilityContext context,
				  ParamListInfo params, QueryEnvironment *queryEnv,
				  DestReceiver *dest, QueryCompletion *qc)
{
	Node	   *parsetree = pstmt->utilityStmt;
	bool		is_work = utility_is_work(parsetree);
	bool		track = is_work && wl_track_utility && track_level_allows();
	uint64		queryid = 0;
	CommandTag	tag = CreateCommandTag(parsetree);
	WlUtilityObservation *obs = NULL;
	NodeTag		saved_utility_tag = current_utility_tag;
	NodeTag		parsetree_tag = nodeTag(parsetree);
	int			idx = -1;
	int32		my_stmt_no;

	/* save what we need before the next hook can change or free it */
	if (track)
		queryid = utility_queryid(pstmt, queryString);

	/* PREPARE TRANSACTION runs at the end of the statement; keep its GID */
	if (IsA(parsetree, TransactionStmt) &&
		((TransactionStmt *) parsetree)->kind == TRANS_STMT_PREPARE)
		wl_model_set_prepare_gid(((TransactionStmt *) parsetree)->gid);

	if (is_work && wl_store_ready() && !IsParallelWorker())
	{
		obs = wl_model_utility_before(parsetree);
		idx = push_statement(track, true, tag, queryid, NULL, queryString,
							 pstmt->stmt_location, pstmt->stmt_len);
	}
	my_stmt_no = idx >= 0 ? stmt_stack[idx].stmt_no : -1;

	wl_nested_level++;
	current_utility_tag = nodeTag(parsetree);
	PG_TRY();
	{
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
		wl_nested_level--;
		current_utility_tag = saved_utility_tag;
		if (idx >= 0)
		{
			wl_model_utility_after(obs, false);
			/* the entry may have moved if cursors closed meanwhile */
			for (int i = stmt_depth - 1; i >= 0; i--)
			{
				if (stmt_stack[i].is_utility &&
					stmt_stack[i].nest_level == wl_nested_level &&
					stmt_stack[i].stmt_no == my_stmt_no)
				{
					finish_statement(i, WL_STMT_ERROR, 0);
					break;
				}
			}
		}
		PG_RE_THROW();
	}
	PG_END_TRY();
	wl_nested_level--;
	current_utility_tag = saved_utility_tag;

	/*
	 * CAUTION: pstmt may have been freed (e.g. COMMIT inside a procedure).
	 */
	if (idx >= 0)
	{
		uint64		rows;

		wl_model_utility_after(obs, true);
		if (utility_may_touch_storage(parsetree_tag) &&
			wl_model_after_utility(wl_current_statement_no()))
			wl_xact_mark_wal_skipped_current();
		rows = (qc && (qc->commandTag == CMDTAG_COPY ||
					   qc->commandTag == CMDTAG_SELECT ||
					   qc->commandTag == CMDTAG_FETCH ||
					   qc->commandTag == CMDTAG_REFRESH_MATERIALIZED_VIEW)) ?
			qc->nprocessed : 0;
		for (int i = stmt_depth - 1; i >= 0; i--)
		{
			if (stmt_stack[i].is_utility &&
				stmt_stack[i].nest_level == wl_nested_level &&
				stmt_stack[i].stmt_no == my_stmt_no &&
				stmt_stack[i].xact_epoch <= wl_xact_epoch)
			{
				finish_statement(i, WL_STMT_OK, rows);
				break;
			}
		}
	}
}

NodeTag
wl_current_utility(void)
{
	return current_utility_tag;
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
	bool		track;
	bool		conditional = false;
	CommandTag	tag;

	if (prev_ExecutorStart)
		prev_ExecutorStart(queryDesc, eflags);
	else
		standard_ExecutorStart(queryDesc, eflags);

	if ((eflags & EXEC_FLAG_EXPLAIN_ONLY) || !wl_track_dml || !track_level_allows())
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

	track = true;
	{
		int			idx = push_statement(track, false, tag, ps->queryId,
										 queryDesc, queryDesc->sourceText,
										 ps->stmt_location, ps->stmt_len);

		stmt_stack[idx].conditional = conditional;
	}
}

/*
 * ExecutorRun and ExecutorFinish: time spent inside them counts for the
 * statement (as in pg_stat_statements), and nesting deepens.
 */
static void
executor_phase_begin(QueryDesc *queryDesc, instr_time *start)
{
	int			idx = find_executor_entry(queryDesc);

	if (idx >= 0)
		stmt_stack[idx].running++;
	INSTR_TIME_SET_CURRENT(*start);
	wl_nested_level++;
}

static void
executor_phase_end(QueryDesc *queryDesc, instr_time start, bool failed)
{
	int			idx;
	instr_time	now;

	wl_nested_level--;
	idx = find_executor_entry(queryDesc);
	if (idx < 0)
		return;
	INSTR_TIME_SET_CURRENT(now);
	INSTR_TIME_SUBTRACT(now, start);
	INSTR_TIME_ADD(stmt_stack[idx].elapsed, now);
	if (failed)
		finish_statement(idx, WL_STMT_ERROR, 0);
	else
		stmt_stack[idx].running--;
}

static void
wl_ExecutorRun(WL_EXECUTOR_RUN_ARGS)
{
	instr_time	start;

	executor_phase_begin(queryDesc, &start);
	PG_TRY();
	{
		if (prev_ExecutorRun)
			prev_ExecutorRun(WL_EXECUTOR_RUN_PASS);
		else
			standard_ExecutorRun(WL_EXECUTOR_RUN_PASS);
	}
	PG_CATCH();
	{
		executor_phase_end(queryDesc, start, true);
		PG_RE_THROW();
	}
	PG_END_TRY();
	executor_phase_end(queryDesc, start, false);
}

static void
wl_ExecutorFinish(QueryDesc *queryDesc)
{
	instr_time	start;

	executor_phase_begin(queryDesc, &start);
	PG_TRY();
	{
		if (prev_ExecutorFinish)
			prev_ExecutorFinish(queryDesc);
		else
			standard_ExecutorFinish(queryDesc);
	}
	PG_CATCH();
	{
		executor_phase_end(queryDesc, start, true);
		PG_RE_THROW();
	}
	PG_END_TRY();
	executor_phase_end(queryDesc, start, false);
}

static void
wl_ExecutorEnd(QueryDesc *queryDesc)
{
	int			idx = find_executor_entry(queryDesc);
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
	idx = find_executor_entry(queryDesc);
	if (idx >= 0)
		finish_statement(idx, WL_STMT_OK, rows);
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

	if (classId != RelationRelationId || subId != 0 ||
		IsParallelWorker() || !wl_store_ready())
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
