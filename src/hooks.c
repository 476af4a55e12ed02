/*-------------------------------------------------------------------------
 *
 * hooks.c
 *		Every entry point core calls into walload: ProcessUtility, the
 *		executor hooks, object access, the transaction and subtransaction
 *		callbacks, the end of a transaction's memory, the backend's exit.
 *
 * Every hook is chained.  One gate (tracking_on) decides whether walload
 * observes a statement; nesting is counted as pg_stat_statements counts it,
 * restored on error too.  What is seen goes to accumulator.c; what core
 * decided comes from model.c and observe.c as effects.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "hooks.h"

#include "access/parallel.h"
#include "access/transam.h"
#include "access/xact.h"
#include "catalog/objectaccess.h"
#include "catalog/pg_class.h"
#include "executor/executor.h"
#include "nodes/nodeFuncs.h"
#include "nodes/parsenodes.h"
#include "parser/analyze.h"
#include "storage/ipc.h"
#include "tcop/utility.h"
#include "utils/evtcache.h"
#include "utils/inval.h"
#include "utils/memutils.h"
#include "utils/resowner.h"
#include "utils/syscache.h"

#include "accumulator.h"
#include "observe.h"
#include "model.h"
#include "settings.h"
#include "store.h"

/* nesting depth of executor / utility calls, as in pg_stat_statements */
static int	wl_nested_level = 0;

static ProcessUtility_hook_type prev_ProcessUtility = NULL;
static ExecutorStart_hook_type prev_ExecutorStart = NULL;
static ExecutorRun_hook_type prev_ExecutorRun = NULL;
static ExecutorFinish_hook_type prev_ExecutorFinish = NULL;
static ExecutorEnd_hook_type prev_ExecutorEnd = NULL;
static object_access_hook_type prev_object_access_hook = NULL;
static post_parse_analyze_hook_type prev_post_parse_analyze_hook = NULL;

/* the previous hook, or core's standard_* function: called, never skipped */
#define PREV_OR(prev, standard) ((prev) ? (prev) : (standard))

/* the utility statement currently inside standard_ProcessUtility, if any */
static NodeTag current_utility_tag = T_Invalid;

/* ---------- the gate ---------- */

/* can this backend be observed at all: walload's store, not a worker */
static inline bool
backend_observable(void)
{
	static bool store_ready = false;	/* once attached, for good */

	return (store_ready || (store_ready = wl_store_ready())) && !IsParallelWorker();
}

/* the gate at a statement's start; an observed transaction is closed regardless */
static inline bool
tracking_on(void)
{
	return wl_track != WL_TRACK_NONE && backend_observable();
}

/*
 * The backend's exit, around core's ShutdownPostgres (before_shmem_exit,
 * registered at start, aborts the open transaction; such callbacks run last
 * registered first): as before_shmem_exit (begins) it ends the statements in
 * progress before it (a FATAL unwinds nothing); as on_shmem_exit it stores
 * what waits after it, before ProcKill, which waiting for walload's lock needs.
 */
static void
backend_exit(int code, Datum begins)
{
	if (!backend_observable())
		return;
	if (DatumGetBool(begins))
		wl_acc_exit_begins();
	else
		wl_acc_backend_exit();
}

static void
watch_backend_exit(void)
{
	static bool registered = false;

	if (!registered)
	{
		on_shmem_exit(backend_exit, BoolGetDatum(false));
		before_shmem_exit(backend_exit, BoolGetDatum(true));
		registered = true;
	}
}

/*
 * The release of the top-level locks (its last phase, just before file
 * deletion) times the end of an abort core finishes only at ROLLBACK.  Core
 * calls a release callback six times per transaction: registered only once
 * the backend runs more than a plain SELECT, never on the abort path (it
 * allocates).
 */
static void
wl_resource_release(ResourceReleasePhase phase, bool isCommit,
					bool isTopLevel, void *arg)
{
	if (phase == RESOURCE_RELEASE_AFTER_LOCKS && isTopLevel &&
		CurrentResourceOwner == TopTransactionResourceOwner)
		wl_acc_locks_released();
}

static void
watch_locks_release(void)
{
	static bool registered = false;

	if (!registered)
		RegisterResourceReleaseCallback(wl_resource_release, NULL);
	registered = true;
}

/* ---------- which statements are recorded ---------- */

/* is a statement at the current nesting level recorded */
static inline bool
level_recorded(void)
{
	return wl_track == WL_TRACK_ALL || wl_nested_level == 0;
}

/* utility statements that can do bulk work or touch relation storage */
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

/* after which core's pending lists are read: those that can create or delete files */
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

/* ---------- query ids ----------
 * With compute_query_id = auto and nobody asking, core computes none;
 * walload computes them with core's JumbleQuery at core's point, only for
 * the statements it may record (jumbling all costs read-only loads).
 */

/* does this expression tree call a function or operator not built in */
static bool
calls_user_code(Node *node, void *context)
{
	if (node == NULL)
		return false;
	if ((IsA(node, FuncExpr) && ((FuncExpr *) node)->funcid >= FirstNormalObjectId) ||
		(IsA(node, OpExpr) && ((OpExpr *) node)->opfuncid >= FirstNormalObjectId))
		return true;
	if (IsA(node, Query))
		return query_tree_walker((Query *) node, calls_user_code, context, 0);
	return expression_tree_walker(node, calls_user_code, context);
}

/* a SELECT calling user code in its select list or FROM (not WHERE: a short walk) */
static bool
select_calls_user_code(Query *query)
{
	ListCell   *lc;

	foreach(lc, query->targetList)
	{
		Node	   *expr = (Node *) lfirst_node(TargetEntry, lc)->expr;

		/* columns and constants, the common case, need no walk */
		if (expr == NULL || IsA(expr, Var) || IsA(expr, Const) || IsA(expr, Param))
			continue;
		if (calls_user_code(expr, NULL))
			return true;
	}
	foreach(lc, query->rtable)
	{
		RangeTblEntry *rte = lfirst_node(RangeTblEntry, lc);

		if (rte->rtekind == RTE_FUNCTION &&
			calls_user_code((Node *) rte->functions, NULL))
			return true;
	}
	return false;
}

/*
 * Could it be recorded: work, DML, and a SELECT that may write (modifying
 * WITH, FOR UPDATE, user code).  Another SELECT that writes is recorded
 * with core's query id, if any.
 */
static bool
query_may_be_recorded(Query *query)
{
	switch (query->commandType)
	{
		case CMD_UTILITY:
			return wl_track_utility && query->utilityStmt != NULL &&
				utility_is_work(query->utilityStmt);
		case CMD_INSERT:
		case CMD_UPDATE:
		case CMD_DELETE:
		case CMD_MERGE:
			return wl_track_dml;
		case CMD_SELECT:
			return wl_track_dml && (query->hasModifyingCTE || query->rowMarks != NIL ||
									select_calls_user_code(query));
		default:
			return false;
	}
}

static void
wl_post_parse_analyze(ParseState *pstate, Query *query, WlHookJumbleState *jstate)
{
	if (!query_id_enabled && query->queryId == 0 && wl_compute_query_id &&
		compute_query_id == COMPUTE_QUERY_ID_AUTO &&
		query_may_be_recorded(query) && tracking_on() && level_recorded())
		wl_jumble_query(query, pstate->p_sourcetext);

	if (prev_post_parse_analyze_hook)
		prev_post_parse_analyze_hook(pstate, query, jstate);
}

/* ---------- ProcessUtility ---------- */

static void
wl_ProcessUtility(PlannedStmt *pstmt, const char *queryString, bool readOnlyTree,
				  ProcessUtilityContext context, ParamListInfo params,
				  QueryEnvironment *queryEnv, DestReceiver *dest, QueryCompletion *qc)
{
	Node	   *parsetree = pstmt->utilityStmt;
	NodeTag		parsetree_tag = nodeTag(parsetree);
	bool		on = tracking_on();
	bool		observe = on && utility_is_work(parsetree);
	bool		touches = utility_may_touch_storage(parsetree_tag);
	/* not EXECUTE, PREPARE, DEALLOCATE: as pgss */
	bool		nests = !IsA(parsetree, ExecuteStmt) && !IsA(parsetree, PrepareStmt) &&
		!IsA(parsetree, DeallocateStmt);
	int			saved_level = wl_nested_level;
	NodeTag		saved_utility_tag = current_utility_tag;
	WlObservation *volatile obs = NULL;
	volatile bool ran = false;
	uint64		serial = 0;

	if (on)
		wl_acc_observe();
	if (touches && parsetree_tag != T_TransactionStmt)	/* transaction ends read the owed */
		wl_model_settle();

	/* PREPARE TRANSACTION runs at the end of the statement; keep its GID */
	if (parsetree_tag == T_TransactionStmt &&
		((TransactionStmt *) parsetree)->kind == TRANS_STMT_PREPARE)
		wl_acc_set_prepare_gid(((TransactionStmt *) parsetree)->gid);

	/* save what we need before the next hook can change or free it */
	if (observe)
	{
		bool		track = wl_track_utility && level_recorded();
		uint64		queryid = track ? pstmt->queryId : 0;

		/* zeroed by a hook called before (pgss listed after walload): as core does */
		if (track && queryid == UINT64CONST(0) && IsQueryIdEnabled())
			queryid = wl_compute_utility_queryid(pstmt, queryString);
		watch_backend_exit();
		watch_locks_release();
		serial = wl_acc_utility_start(track, CreateCommandTag(parsetree), queryid,
									  wl_nested_level, queryString,
									  pstmt->stmt_location, pstmt->stmt_len);
	}

	if (nests)
		wl_nested_level++;
	current_utility_tag = parsetree_tag;
	PG_TRY();
	{
		/* marked again after a look only: the start's marks miss little else */
		if (observe && (obs = wl_observe_before(parsetree)) != NULL)
			wl_acc_utility_measure(serial, true);
		PREV_OR(prev_ProcessUtility, standard_ProcessUtility)
			(pstmt, queryString, readOnlyTree, context, params, queryEnv, dest, qc);
		ran = true;
		wl_nested_level = saved_level;
		current_utility_tag = saved_utility_tag;
		/* pstmt may have been freed (COMMIT inside a procedure) */
		if (observe)
			wl_acc_utility_measure(serial, false);
		if (observe && (obs != NULL || touches))
		{
			WlEffects	eff;

			memset(&eff, 0, offsetof(WlEffects, gid));	/* gid: finish_prepared's */
			if (obs != NULL)	/* frees it, also on error */
				wl_observe_after(obs, true, &eff);
			if (touches)		/* adds to eff */
				wl_model_read_pending_changes(wl_acc_current_statement_no(), saved_level == 0, &eff);
			wl_acc_apply_effects(&eff);
		}
	}
	PG_CATCH();
	{
		wl_nested_level = saved_level;
		current_utility_tag = saved_utility_tag;
		if (observe)
		{
			if (!ran)
				wl_observe_after(obs, false, NULL);
			wl_acc_utility_done(serial, WL_STMT_ERROR, 0);	/* measures it */
		}
		PG_RE_THROW();
	}
	PG_END_TRY();
	if (observe)
		wl_acc_utility_done(serial, WL_STMT_OK,
							qc && (qc->commandTag == CMDTAG_COPY ||
								   qc->commandTag == CMDTAG_SELECT ||
								   qc->commandTag == CMDTAG_FETCH ||
								   qc->commandTag == CMDTAG_REFRESH_MATERIALIZED_VIEW) ?
							qc->nprocessed : 0);
}

/* ---------- executor ---------- */

static void
wl_ExecutorStart(QueryDesc *queryDesc, int eflags)
{
	/* the statements recorded here, by operation (others: CMDTAG_UNKNOWN) */
	static const CommandTag dml_tag[] = {
		[CMD_SELECT] = CMDTAG_SELECT, [CMD_UPDATE] = CMDTAG_UPDATE,
		[CMD_INSERT] = CMDTAG_INSERT, [CMD_DELETE] = CMDTAG_DELETE,
		[CMD_MERGE] = CMDTAG_MERGE
	};
	PlannedStmt *ps = queryDesc->plannedstmt;
	CmdType		op = queryDesc->operation;

	PREV_OR(prev_ExecutorStart, standard_ExecutorStart) (queryDesc, eflags);

	wl_acc_executor_starting(queryDesc);
	if ((eflags & EXEC_FLAG_EXPLAIN_ONLY) || !tracking_on())
		return;
	wl_acc_observe();
	if (op != CMD_SELECT || ps->hasModifyingCTE)
		watch_locks_release();
	if (!wl_track_dml || !level_recorded())
		return;

	/* a utility statement's inner query: counted by it, as pgss does */
	if ((ps->queryId == UINT64CONST(0) &&
		 wl_acc_innermost_is_utility_at(wl_nested_level - 1)) ||
		(size_t) op >= lengthof(dml_tag) || dml_tag[op] == CMDTAG_UNKNOWN)
		return;

	watch_backend_exit();

	/* a plain SELECT without backward fetch may be held light */
	wl_acc_executor_start(op == CMD_SELECT && !ps->hasModifyingCTE,
						  (eflags & EXEC_FLAG_BACKWARD) == 0,
						  dml_tag[op], ps->queryId, wl_nested_level, queryDesc);
}

/*
 * ExecutorRun and ExecutorFinish: the previous hook's call, nesting one
 * level deeper; a recorded query's phase is timed, ended by an error too.
 */
#define MEASURED_PHASE(call, resumable) \
	do { \
		instr_time	start; \
		int			saved_level = wl_nested_level; \
		bool		mine = wl_acc_executor_phase_begin(queryDesc, &start); \
		volatile bool ran = false; \
\
		wl_nested_level++; \
		PG_TRY(); \
		{ \
			call; \
			ran = true; \
		} \
		PG_FINALLY(); \
		{ \
			wl_nested_level = saved_level; \
			if (mine) \
				wl_acc_executor_phase_end(queryDesc, start, !ran, resumable); \
		} \
		PG_END_TRY(); \
	} while (0)

static void
wl_ExecutorRun(WL_EXECUTOR_RUN_ARGS)
{
	MEASURED_PHASE(PREV_OR(prev_ExecutorRun, standard_ExecutorRun) (WL_EXECUTOR_RUN_PASS),
				   count != 0);
}

/* has one of these result relations (ResultRelInfo *) triggers, or skips WAL? */
static bool
any_result_rel(List *result_rels, bool skips_wal)
{
	ListCell   *lc;

	foreach(lc, result_rels)
	{
		ResultRelInfo *rri = (ResultRelInfo *) lfirst(lc);

		if (skips_wal ? wl_model_relation_skips_wal(rri->ri_RelationDesc) :
			rri->ri_TrigDesc != NULL)
			return true;
	}
	return false;
}

/*
 * ExecutorFinish runs writable CTEs' ModifyTable nodes to completion and the
 * AFTER triggers queued (foreign keys' too): with neither it reads no buffer,
 * writes no WAL and nests nothing, and a recorded statement loses nothing.
 */
static bool
finish_runs_nothing(QueryDesc *queryDesc)
{
	EState	   *estate = queryDesc->estate;

	if (queryDesc->plannedstmt->hasModifyingCTE)
		return false;
	if (queryDesc->operation == CMD_SELECT)
		return true;
	if (estate == NULL || estate->es_auxmodifytables != NIL)
		return false;
	if (estate->es_top_eflags & EXEC_FLAG_SKIP_TRIGGERS)
		return true;
	return !any_result_rel(estate->es_opened_result_relations, false) &&
		!any_result_rel(estate->es_tuple_routing_result_relations, false) &&
		!any_result_rel(estate->es_trig_target_relations, false);
}

static pg_noinline void
measured_ExecutorFinish(QueryDesc *queryDesc)
{
	MEASURED_PHASE(PREV_OR(prev_ExecutorFinish, standard_ExecutorFinish) (queryDesc),
				   false);
}

/* a plain SELECT's Finish, or one without triggers: passed on unmeasured */
static void
wl_ExecutorFinish(QueryDesc *queryDesc)
{
	if (!finish_runs_nothing(queryDesc))
		measured_ExecutorFinish(queryDesc);
	else
		PREV_OR(prev_ExecutorFinish, standard_ExecutorFinish) (queryDesc);
}

static void
wl_ExecutorEnd(QueryDesc *queryDesc)
{
	bool		mine = wl_acc_executor_tracked(queryDesc);
	bool		wal_skipped = false;
	uint64		rows = 0;

	if (mine && queryDesc->estate)
	{
		rows = WlExecutorRows(queryDesc->estate);
		/* the relations it opened, and the partitions it routed rows to */
		wal_skipped = any_result_rel(queryDesc->estate->es_opened_result_relations, true) ||
			any_result_rel(queryDesc->estate->es_tuple_routing_result_relations, true);
	}

	PREV_OR(prev_ExecutorEnd, standard_ExecutorEnd) (queryDesc);

	/* after the end: AFTER triggers and their nested work are included */
	if (mine)
		wl_acc_executor_done(queryDesc, rows, wal_skipped);
}

/* ------ object access: facts the scan model needs as they happen ------ */

/* EventCacheLookup's two probes for a DROP, kept till event triggers change */
static int	drop_triggers = -1;	/* -1: to look up */

static void
event_triggers_changed(Datum arg, int cacheid, uint32 hashvalue)
{
	drop_triggers = -1;
}

static bool
drop_triggers_exist(void)
{
	bool		exist;

	if (drop_triggers >= 0)
		return drop_triggers;
	drop_triggers = 2;			/* a change during the lookups sets -1: not kept */
	exist = EventCacheLookup(EVT_SQLDrop) != NIL ||
		EventCacheLookup(EVT_DDLCommandEnd) != NIL;
	drop_triggers = drop_triggers == 2 ? exist : -1;
	return exist;
}

/*
 * A relation's access (prev_object_access_hook called first, as for any
 * object).  Out of line: core calls the hook on every function an
 * expression runs, which only passes on.
 */
static pg_noinline void
relation_access(ObjectAccessType access, Oid classId, Oid objectId, int subId, void *arg)
{
	WlEffects	eff;

	if (prev_object_access_hook)
		prev_object_access_hook(access, classId, objectId, subId, arg);
	if (!wl_acc_statement_on_stack() || !wl_acc_observed())
		return;

	switch (access)
	{
		case OAT_TRUNCATE:
			wl_observe_truncate(objectId);
			wl_model_note_doomed(objectId, true);
			break;
		case OAT_DROP:
			/* read by predictions only: none follow a lone DROP */
			if (wl_nested_level > 1 || current_utility_tag != T_DropStmt ||
				IsTransactionBlock() || drop_triggers_exist())
				wl_model_note_doomed(objectId, false);
			break;
		case OAT_POST_CREATE:
		case OAT_POST_ALTER:
			if (access == OAT_POST_CREATE)
				wl_model_note_created(objectId);
			/* a new sequence (core's CREATE TABLE too runs CREATE SEQUENCE) */
			if (access == OAT_POST_CREATE ? current_utility_tag != T_CreateSeqStmt :
				(current_utility_tag != T_AlterTableStmt &&
				 current_utility_tag != T_AlterTableMoveAllStmt))
				break;
			memset(&eff, 0, sizeof(eff));
			wl_observe_relation(objectId, access == OAT_POST_CREATE, &eff);
			wl_acc_apply_effects(&eff);
			break;
		default:
			break;
	}
}

static void
wl_object_access(ObjectAccessType access, Oid classId, Oid objectId, int subId, void *arg)
{
	if (classId == RelationRelationId && subId == 0)
		relation_access(access, classId, objectId, subId, arg);
	else if (prev_object_access_hook)
		prev_object_access_hook(access, classId, objectId, subId, arg);
}

/* ---------- transactions ---------- */

static bool xact_end_watched = false;

static void
xact_memory_reset(void *arg)
{
	xact_end_watched = false;
	wl_acc_xact_end();
}

/* the phase's end: a reset callback on TopTransactionContext, static (no allocation) */
static MemoryContextCallback xact_end_callback = {xact_memory_reset, NULL, NULL};

static void
watch_xact_end(void)
{
	if (!xact_end_watched)
		MemoryContextRegisterResetCallback(TopTransactionContext, &xact_end_callback);
	xact_end_watched = true;
}

/*
 * Background processes that load without a hooked statement (observe.c):
 * looked at once per transaction, at PRE_COMMIT.
 */
static void
worker_pre_commit(WlBackendKind kind)
{
	WlWorkerWork w;
	WlEffects	eff;

	if (!tracking_on() || wl_acc_observed())
		return;
	memset(&eff, 0, sizeof(eff));
	if (wl_observe_worker_xact(kind, &w, &eff))
	{
		watch_backend_exit();
		wl_acc_worker_statement(&w, &eff);
	}
}

static void
wl_xact_callback(XactEvent event, void *arg)
{
	static int	worker_kind = -1;	/* this process's WlBackendKind, once read */

	if (worker_kind < 0)
		worker_kind = (int) wl_observe_worker_kind();
	if (worker_kind != WL_KIND_CLIENT && event == XACT_EVENT_PRE_COMMIT)
		worker_pre_commit((WlBackendKind) worker_kind);
	if (wl_acc_observed() && backend_observable())
	{
		switch (event)
		{
			case XACT_EVENT_PRE_COMMIT:
			case XACT_EVENT_PRE_PREPARE:
				if (wl_acc_pre_commit(event == XACT_EVENT_PRE_PREPARE))
				{
					watch_xact_end();
					watch_locks_release();
				}
				break;
			case XACT_EVENT_COMMIT:
				wl_acc_commit_done();
				break;
			case XACT_EVENT_PREPARE:
				wl_acc_prepare_done();
				break;
			case XACT_EVENT_ABORT:
				wl_acc_abort();
				watch_xact_end();
				break;
			default:
				break;
		}
	}
	/* after the accumulator's own end of the record: where a worker's next one is measured from */
	if (worker_kind != WL_KIND_CLIENT &&
		(event == XACT_EVENT_COMMIT || event == XACT_EVENT_ABORT) && backend_observable())
		wl_acc_worker_boundary();
}

static void
wl_subxact_callback(SubXactEvent event, SubTransactionId mySubid,
					SubTransactionId parentSubid, void *arg)
{
	if (event == SUBXACT_EVENT_ABORT_SUB && wl_acc_observed() && backend_observable())
		wl_acc_subxact_abort(mySubid);
}

void
wl_install_hooks(void)
{
#define INSTALL(hook, prev, mine) (prev = hook, hook = mine)
	INSTALL(ProcessUtility_hook, prev_ProcessUtility, wl_ProcessUtility);
	INSTALL(ExecutorStart_hook, prev_ExecutorStart, wl_ExecutorStart);
	INSTALL(ExecutorRun_hook, prev_ExecutorRun, wl_ExecutorRun);
	INSTALL(ExecutorFinish_hook, prev_ExecutorFinish, wl_ExecutorFinish);
	INSTALL(ExecutorEnd_hook, prev_ExecutorEnd, wl_ExecutorEnd);
	INSTALL(object_access_hook, prev_object_access_hook, wl_object_access);
	INSTALL(post_parse_analyze_hook, prev_post_parse_analyze_hook, wl_post_parse_analyze);
#undef INSTALL
	RegisterXactCallback(wl_xact_callback, NULL);
	RegisterSubXactCallback(wl_subxact_callback, NULL);
	CacheRegisterSyscacheCallback(EVENTTRIGGEROID, event_triggers_changed, (Datum) 0);
}
