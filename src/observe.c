/*-------------------------------------------------------------------------
 *
 * observe.c
 *		What a utility statement did to relation storage that core does not
 *		report, seen before and after it and at its object access events,
 *		and what a background process's transaction did, at its commit.
 *		Returns effects (WlEffects); records nothing.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "cost.h"
#include "observe.h"

#include "access/heapam.h"
#include "access/htup_details.h"
#include "access/table.h"
#include "access/tableam.h"
#include "access/xact.h"
#include "access/xlog.h"
#include "catalog/dependency.h"
#include "catalog/namespace.h"
#include "catalog/pg_class.h"
#include "catalog/pg_database.h"
#include "catalog/pg_inherits.h"
#include "catalog/pg_subscription_rel.h"
#include "commands/dbcommands.h"
#include "commands/defrem.h"
#include "commands/progress.h"
#include "lib/stringinfo.h"
#include "miscadmin.h"
#include "nodes/parsenodes.h"
#include "postmaster/bgworker.h"
#include "replication/worker_internal.h"
#include "storage/lock.h"
#include "utils/backend_status.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/syscache.h"

typedef struct RelSize
{
	Oid			relid;
	WlRelFile	file;
	BlockNumber blocks;			/* not for sequences */
	WlTailSample cached;		/* VACUUM: which blocks shared buffers held */
} RelSize;

struct WlObservation
{
	NodeTag		tag;			/* the statement's */
	MemoryContext cxt;
	/* of RelSize: VACUUM's sizes before; COPY's WAL-skipping partitions; sequences */
	List	   *sizes;
	int			ring_kb;
	/* TRUNCATE */
	List	   *relids;			/* every relation it checked */
	int64		inplace_scans;	/* RelationTruncate calls to come */
	List	   *inplace_files;	/* their files (for is_truncated) */
	WlObservation *saved_truncate;
	bool		restart_seqs;
	char	   *dbname;			/* databases */
	Oid			dboid;
	Oid			dbtablespace;
	int64		db_buffers;		/* DROP DATABASE: its buffers, sampled */
	RangeVar   *copy_rel;		/* COPY FROM */
	char	   *gid;			/* COMMIT / ROLLBACK PREPARED */
	bool		commit_prepared;
};

/* the TRUNCATE whose object access events come */
static WlObservation *current_truncate = NULL;

/* a relation truncated in place, and its indexes if with_indexes */
static void
add_inplace(WlObservation *t, Oid relid, bool with_indexes)
{
	Relation	rel = RelationIdGetRelation(relid);
	WlRelFile  *f;

	if (rel == NULL)
		return;
	f = palloc(sizeof(WlRelFile));
	*f = WlRelationFile(rel);
	t->inplace_files = lappend(t->inplace_files, f);
	t->inplace_scans++;
	if (with_indexes)
	{
		List	   *indexes = RelationGetIndexList(rel);
		ListCell   *lc;

		foreach(lc, indexes)
			add_inplace(t, lfirst_oid(lc), false);
		list_free(indexes);
	}
	RelationClose(rel);
}

/*
 * OAT_TRUNCATE, per relation, before any is truncated: ExecuteTruncateGuts
 * truncates one whose file is new in this subtransaction in place, one walk
 * per heap, index, TOAST heap and index.
 */
void
wl_observe_truncate(Oid relid)
{
	WlObservation *t = current_truncate;
	Relation	rel;
	SubTransactionId mysubid = GetCurrentSubTransactionId();

	if (t == NULL || list_member_oid(t->relids, relid))
		return;
	t->relids = lappend_oid(t->relids, relid);
	rel = RelationIdGetRelation(relid);
	if (rel == NULL)
		return;
	if (rel->rd_rel->relkind != RELKIND_PARTITIONED_TABLE &&
		rel->rd_rel->relkind != RELKIND_FOREIGN_TABLE &&
		rel->rd_rel->relpersistence != RELPERSISTENCE_TEMP &&
		(rel->rd_createSubid == mysubid || WL_NEW_FILE_SUBID(rel) == mysubid))
	{
		add_inplace(t, relid, true);
		if (OidIsValid(rel->rd_rel->reltoastrelid))
			add_inplace(t, rel->rd_rel->reltoastrelid, true);
	}
	RelationClose(rel);
}

/*
 * OAT_POST_CREATE (created): a new unlogged sequence is written and flushed
 * (fill_seq_with_data).  OAT_POST_ALTER with the current file doomed:
 * ATExecSetTableSpace, which flushed it.
 */
void
wl_observe_relation(Oid relid, bool created, WlEffects *eff)
{
	Relation	rel = RelationIdGetRelation(relid);
	WlRelFile  *doomed;

	if (rel == NULL)
		return;
	if (created)
	{
		if (rel->rd_rel->relkind == RELKIND_SEQUENCE &&
			rel->rd_rel->relpersistence == RELPERSISTENCE_UNLOGGED)
			wl_effects_add_scans(eff, WL_SCAN_FLUSH_REL, 1, 1);
	}
	else if (RELKIND_HAS_STORAGE(rel->rd_rel->relkind) &&
			 rel->rd_rel->relpersistence != RELPERSISTENCE_TEMP)
	{
		int			n = smgrGetPendingDeletes(true, &doomed);
		int			i = 0;

		while (i < n && !WlRelFileEquals(WlRelationFile(rel), doomed[i]))
			i++;
		if (i < n)
			wl_effects_add_scans(eff, WL_SCAN_FLUSH_REL, 1, 1);
		if (doomed)
			pfree(doomed);
	}
	RelationClose(rel);
}

/* a relation: VACUUM's size and cached tail, COPY's size if it skips WAL, ALTER's sequence */
static void
add_rel(WlObservation *obs, Oid relid)
{
	WlRelFile	file;
	char		relkind;
	RelSize    *rs;
	bool		vacuum = obs->tag == T_VacuumStmt;
	bool		copy = obs->tag == T_CopyStmt;

	if (!wl_model_relation_file(relid, &file, &relkind, NULL) ||
		(copy && !WlSkippingWAL(file)) || (!vacuum && !copy && relkind != RELKIND_SEQUENCE))
		return;
	rs = palloc0(sizeof(RelSize));
	obs->sizes = lappend(obs->sizes, rs);
	rs->relid = relid;
	rs->file = file;
	if (vacuum || copy)
		rs->blocks = wl_model_main_fork_blocks(file);
	if (vacuum)
		wl_model_sample_tail(file, rs->blocks, &rs->cached);
}

static bool
skips_wal(Oid relid)
{
	WlRelFile	file;

	return OidIsValid(relid) && wl_model_relation_file(relid, &file, NULL, NULL) &&
		WlSkippingWAL(file);
}

/* a relation's TOAST table (RELOID) or a database's tablespace; InvalidOid if gone */
static Oid
catalog_oid(int cacheid, Oid oid)
{
	HeapTuple	tup = SearchSysCache1(cacheid, ObjectIdGetDatum(oid));

	if (!HeapTupleIsValid(tup))
		return InvalidOid;
	oid = cacheid == RELOID ? ((Form_pg_class) GETSTRUCT(tup))->reltoastrelid :
		((Form_pg_database) GETSTRUCT(tup))->dattablespace;
	ReleaseSysCache(tup);
	return oid;
}

/* the relations a (non-FULL) VACUUM will process, with their sizes now */
static void
observe_vacuum_targets(WlObservation *obs, VacuumStmt *stmt)
{
	ListCell   *lc;

	if (stmt->rels == NIL)
	{
		Relation	pgclass = table_open(RelationRelationId, AccessShareLock);
		TableScanDesc scan = table_beginscan_catalog(pgclass, 0, NULL);
		HeapTuple	tup;

		while ((tup = heap_getnext(scan, ForwardScanDirection)) != NULL)
		{
			Form_pg_class cls = (Form_pg_class) GETSTRUCT(tup);

			if (cls->relkind == RELKIND_RELATION || cls->relkind == RELKIND_MATVIEW ||
				cls->relkind == RELKIND_TOASTVALUE)
				add_rel(obs, cls->oid);
		}
		table_endscan(scan);
		table_close(pgclass, AccessShareLock);
		return;
	}
	foreach(lc, stmt->rels)
	{
		VacuumRelation *vrel = lfirst_node(VacuumRelation, lc);
		Oid			relid = vrel->oid;
		List	   *rels;
		ListCell   *lc2;

		if (!OidIsValid(relid) && vrel->relation)
			relid = RangeVarGetRelid(vrel->relation, NoLock, true);
		if (!OidIsValid(relid))
			continue;
		rels = get_rel_relkind(relid) == RELKIND_PARTITIONED_TABLE ?
			find_all_inheritors(relid, NoLock, NULL) : list_make1_oid(relid);
		/* each with its TOAST table */
		foreach(lc2, rels)
		{
			Oid			toast = catalog_oid(RELOID, lfirst_oid(lc2));

			add_rel(obs, lfirst_oid(lc2));
			if (OidIsValid(toast))
				add_rel(obs, toast);
		}
	}
}

static DefElem *
find_option(List *options, const char *name)
{
	ListCell   *lc;

	foreach(lc, options)
		if (strcmp(lfirst_node(DefElem, lc)->defname, name) == 0)
			return lfirst_node(DefElem, lc);
	return NULL;
}

static bool
watched(Node *parsetree)
{
	ListCell   *lc;
	DefElem    *full;

	switch (nodeTag(parsetree))
	{
		case T_VacuumStmt:
			full = find_option(((VacuumStmt *) parsetree)->options, "full");
			return ((VacuumStmt *) parsetree)->is_vacuumcmd && !(full && defGetBoolean(full));
		case T_TruncateStmt:
		case T_DropdbStmt:
		case T_CreatedbStmt:
		case T_AlterSeqStmt:
			return true;
		case T_AlterDatabaseStmt:
			return find_option(((AlterDatabaseStmt *) parsetree)->options, "tablespace") != NULL;
		case T_AlterTableStmt:
			foreach(lc, ((AlterTableStmt *) parsetree)->cmds)
				if (lfirst_node(AlterTableCmd, lc)->subtype == AT_SetLogged ||
					lfirst_node(AlterTableCmd, lc)->subtype == AT_SetUnLogged)
					return true;
			return false;
		case T_TransactionStmt:
			return ((TransactionStmt *) parsetree)->kind == TRANS_STMT_COMMIT_PREPARED ||
				((TransactionStmt *) parsetree)->kind == TRANS_STMT_ROLLBACK_PREPARED;
		case T_CopyStmt:
			return ((CopyStmt *) parsetree)->is_from &&
				((CopyStmt *) parsetree)->relation != NULL && !XLogIsNeeded();
		default:
			return false;
	}
}

/* fill obs for parsetree; runs in obs's context */
static void
observe_before(WlObservation *obs, Node *parsetree)
{
	bool		seq = IsA(parsetree, AlterSeqStmt);
	Oid			relid;
	ListCell   *lc;
	int64		pages_mapped;

	obs->tag = nodeTag(parsetree);
	switch (obs->tag)
	{
		case T_VacuumStmt:
			obs->ring_kb = wl_vacuum_ring_kb(((VacuumStmt *) parsetree)->options);
			observe_vacuum_targets(obs, (VacuumStmt *) parsetree);
			break;
		case T_TruncateStmt:
			obs->restart_seqs = ((TruncateStmt *) parsetree)->restart_seqs;
			obs->saved_truncate = current_truncate;
			current_truncate = obs;
			break;
		case T_DropdbStmt:
			obs->dbname = pstrdup(((DropdbStmt *) parsetree)->dbname);
			obs->dboid = get_database_oid(obs->dbname, true);
			/* right before it: its buffers, sampled (the pages then cost its walk nothing) */
			obs->db_buffers = wl_sizing_owned_buffers(obs->dboid, NULL, 0, &pages_mapped);
			wl_header_pages_mapped(pages_mapped);
			break;
		case T_AlterDatabaseStmt:
			obs->dboid = get_database_oid(((AlterDatabaseStmt *) parsetree)->dbname, true);
			obs->dbtablespace = catalog_oid(DATABASEOID, obs->dboid);
			break;
		case T_CreatedbStmt:
			obs->dbname = pstrdup(((CreatedbStmt *) parsetree)->dbname);
			break;
		case T_AlterSeqStmt:
		case T_AlterTableStmt:
			relid = RangeVarGetRelid(seq ? ((AlterSeqStmt *) parsetree)->sequence :
									 ((AlterTableStmt *) parsetree)->relation, NoLock, true);
			if (!OidIsValid(relid))
				break;
			add_rel(obs, relid);
			if (!seq)
				foreach(lc, getOwnedSequences(relid))
					add_rel(obs, lfirst_oid(lc));
			break;
		case T_CopyStmt:
			obs->copy_rel = copyObject(((CopyStmt *) parsetree)->relation);
			relid = RangeVarGetRelid(obs->copy_rel, NoLock, true);
			/* partitioned: no hook tells where rows went; one that skips WAL and grew was written */
			if (OidIsValid(relid) && get_rel_relkind(relid) == RELKIND_PARTITIONED_TABLE)
				foreach(lc, find_all_inheritors(relid, NoLock, NULL))
					add_rel(obs, lfirst_oid(lc));
			break;
		case T_TransactionStmt:
			obs->gid = pstrdup(((TransactionStmt *) parsetree)->gid);
			obs->commit_prepared =
				((TransactionStmt *) parsetree)->kind == TRANS_STMT_COMMIT_PREPARED;
			break;
		default:
			break;
	}
}

/*
 * The outermost observation reuses one context that keeps its first block:
 * one made per COPY let glibc trim the heap, which COPY faulted in again.
 */
static MemoryContext kept_cxt = NULL;
static bool kept_cxt_in_use = false;

static void
release_context(MemoryContext cxt)
{
	if (cxt == kept_cxt)
	{
		MemoryContextReset(cxt);
		kept_cxt_in_use = false;
	}
	else
		MemoryContextDelete(cxt);
}

/*
 * Before a utility statement to watch: what it will change, in a context
 * under TopMemoryContext (VACUUM and DROP DATABASE commit) freed after.  Out
 * of line: most statements are not watched, and return without its frame.
 */
static pg_noinline WlObservation *
observe_start(Node *parsetree)
{
	WlObservation *obs;
	MemoryContext cxt;
	MemoryContext old;

	if (!kept_cxt_in_use)
	{
		if (kept_cxt == NULL)
			kept_cxt = AllocSetContextCreate(TopMemoryContext, "walload observation",
											 0, 32 * 1024, ALLOCSET_DEFAULT_MAXSIZE);
		cxt = kept_cxt;
		kept_cxt_in_use = true;
	}
	else
		cxt = AllocSetContextCreate(TopMemoryContext, "walload observation",
									ALLOCSET_SMALL_SIZES);
	old = MemoryContextSwitchTo(cxt);
	obs = palloc0(sizeof(WlObservation));
	obs->cxt = cxt;

	/* reading catalogs can fail: the context must not outlive the error */
	PG_TRY();
	{
		observe_before(obs, parsetree);
	}
	PG_CATCH();
	{
		MemoryContextSwitchTo(old);
		if (current_truncate == obs)
			current_truncate = obs->saved_truncate;
		release_context(cxt);
		PG_RE_THROW();
	}
	PG_END_TRY();
	MemoryContextSwitchTo(old);
	return obs;
}

/* before a utility statement: its observation if it is watched, else NULL */
WlObservation *
wl_observe_before(Node *parsetree)
{
	return watched(parsetree) ? observe_start(parsetree) : NULL;
}

/* the statement succeeded: what it changed, from obs */
static void
observe_after(WlObservation *obs, WlEffects *eff)
{
	WlRelFile	file;
	ListCell   *lc;
	RelSize    *rs;
	BlockNumber after;
	List	   *seqs = NIL;
	Oid			spcoid;
	char		persistence;

	switch (obs->tag)
	{
		case T_VacuumStmt:
			foreach(lc, obs->sizes)
			{
				rs = lfirst(lc);
				eff->vacuum_pages += rs->blocks;
				/* same file, fewer blocks: truncated (one scan per round) */
				if (wl_model_relation_file(rs->relid, &file, NULL, NULL) &&
					WlRelFileEquals(file, rs->file) &&
					(after = wl_model_main_fork_blocks(file)) < rs->blocks)
				{
					wl_effects_add_scans(eff, WL_SCAN_DROP_REL, 1, 1);
					wl_effects_add_invalidated(eff, WL_SCAN_DROP_REL,
											   wl_model_tail_buffers(&rs->cached, after));
					eff->vacuum_pages_removed += rs->blocks - after;
				}
			}
			eff->vacuum = true;
			eff->vacuum_ring_kb = obs->ring_kb;
			break;
		case T_TruncateStmt:
			wl_effects_add_scans(eff, WL_SCAN_DROP_REL, obs->inplace_scans, 1);
			wl_model_note_truncated_in_place(obs->inplace_files);
			/* RESTART IDENTITY rewrites owned sequences */
			foreach(lc, obs->restart_seqs ? obs->relids : NIL)
				seqs = list_concat_unique_oid(seqs, getOwnedSequences(lfirst_oid(lc)));
			foreach(lc, seqs)
				if (get_rel_persistence(lfirst_oid(lc)) == RELPERSISTENCE_UNLOGGED)
					wl_effects_add_scans(eff, WL_SCAN_FLUSH_REL, 1, 1);
			break;
		case T_DropdbStmt:
			if (OidIsValid(obs->dboid) && !OidIsValid(get_database_oid(obs->dbname, true)))
			{
				wl_effects_add_scans(eff, WL_SCAN_DB, 1, 1);
				wl_effects_add_invalidated(eff, WL_SCAN_DB, obs->db_buffers);
			}
			break;
		case T_AlterDatabaseStmt:
			spcoid = catalog_oid(DATABASEOID, obs->dboid);
			if (OidIsValid(spcoid) && spcoid != obs->dbtablespace)
				wl_effects_add_scans(eff, WL_SCAN_DB, 1, 1);
			break;
		case T_CreatedbStmt:
			/* WAL_LOG under minimal: the copies skip WAL */
			if (wl_model_note_created_database(obs->dbname))
				eff->wal_skipped = true;
			break;
		case T_AlterSeqStmt:
		case T_AlterTableStmt:
			foreach(lc, obs->sizes)
			{
				rs = lfirst(lc);
				if (wl_model_relation_file(rs->relid, &file, NULL, &persistence) &&
					!WlRelFileEquals(file, rs->file) && persistence == RELPERSISTENCE_UNLOGGED)
					wl_effects_add_scans(eff, WL_SCAN_FLUSH_REL, 1, 1);
			}
			break;
		case T_TransactionStmt:
			/* what it deletes was noted at its PREPARE (accumulator.c) */
			eff->finish_prepared = true;
			eff->commit_prepared = obs->commit_prepared;
			strlcpy(eff->gid, obs->gid, GIDSIZE);
			break;
		case T_CopyStmt:
			if (skips_wal(RangeVarGetRelid(obs->copy_rel, NoLock, true)))
				eff->wal_skipped = true;
			/* a partitioned table: one of its partitions grew */
			foreach(lc, obs->sizes)
			{
				rs = lfirst(lc);
				if (!eff->wal_skipped && wl_model_main_fork_blocks(rs->file) > rs->blocks)
					eff->wal_skipped = true;
			}
			break;
		default:
			break;
	}
}

/* after the statement (into eff), or in its error handler (!success: reads nothing); frees obs */
void
wl_observe_after(WlObservation *obs, bool success, WlEffects *eff)
{
	if (obs == NULL)
		return;
	if (obs->tag == T_TruncateStmt)
		current_truncate = obs->saved_truncate;
	/* reading the catalogs again can fail: the context goes in any case */
	PG_TRY();
	{
		if (success)
			observe_after(obs, eff);
	}
	PG_FINALLY();
	{
		release_context(obs->cxt);
	}
	PG_END_TRY();
}

/* the relation the tablesync worker has recorded the initial copy of */
static Oid	copied_relid = InvalidOid;

/* the end of the last remote transaction recorded as replayed */
static XLogRecPtr replayed_lsn = InvalidXLogRecPtr;

WlBackendKind
wl_observe_worker_kind(void)
{
	if (MyBackendType == B_AUTOVAC_WORKER)
		return WL_KIND_AUTOVACUUM;
	if (MyBackendType != B_BG_WORKER)
		return WL_KIND_CLIENT;
	if (MyLogicalRepWorker != NULL)
		return am_tablesync_worker() ? WL_KIND_TABLESYNC : WL_KIND_APPLY;

	/*
	 * pglogical's apply and sync workers replay with a replication origin as
	 * core's does (the sync worker's initial copy is a client's COPY).
	 */
	if (MyBgworkerEntry != NULL &&
		strcmp(MyBgworkerEntry->bgw_library_name, "pglogical") == 0 &&
		(strcmp(MyBgworkerEntry->bgw_function_name, "pglogical_apply_main") == 0 ||
		 strcmp(MyBgworkerEntry->bgw_function_name, "pglogical_sync_main") == 0))
		return WL_KIND_APPLY;
	return WL_KIND_CLIENT;
}

/* schema.name of a relation, or its OID if it is gone */
static char *
qualified_name(Oid relid)
{
	char	   *rel = get_rel_name(relid);

	if (rel == NULL)
		return psprintf("%u", relid);
	return quote_qualified_identifier(get_namespace_name(get_rel_namespace(relid)), rel);
}

/*
 * At PRE_COMMIT of a background process's transaction, which loads without
 * a hooked statement (replication workers, autovacuum): what it did, as one
 * statement, with the walks core's lists do not show; false if nothing.
 */
bool
wl_observe_worker_xact(WlBackendKind kind, WlWorkerWork *w, WlEffects *eff)
{
	w->kind = kind;
	w->rows = 0;
	w->text[0] = '\0';

	if (kind == WL_KIND_TABLESYNC)
	{
		Oid			relid = MyLogicalRepWorker->relid;
		LOCKTAG		tag;

		/* the initial copy: the table locked in DATASYNC; rows: COPY's progress */
		SET_LOCKTAG_RELATION(tag, MyDatabaseId, relid);
		if (MyLogicalRepWorker->relstate == SUBREL_STATE_DATASYNC &&
			copied_relid != relid && WlLockHeldByMe(&tag, RowExclusiveLock))
		{
			copied_relid = relid;
			w->tag = CMDTAG_COPY;
			if (MyBEEntry != NULL)
				w->rows = (uint64) Max(MyBEEntry->st_progress_param[PROGRESS_COPY_TUPLES_PROCESSED], 0);
			snprintf(w->text, WL_QUERY_LEN, "initial copy of %s (subscription %s)",
					 qualified_name(relid), MySubscription ? MySubscription->name : "?");
			if (skips_wal(relid))
				eff->wal_skipped = true;
			return true;
		}
	}

	if (kind == WL_KIND_APPLY || kind == WL_KIND_TABLESYNC)
	{
		StringInfoData names;
		int			ntables = 0;
		char		sub[NAMEDATALEN + BGW_MAXLEN];
		WlRelFile  *files;
		int			n;

		/* a replayed transaction: a new origin LSN (bookkeeping keeps the old) */
		if (!TransactionIdIsValid(GetTopTransactionIdIfAny()) ||
			WlReplayedOriginLsn() == InvalidXLogRecPtr ||
			WlReplayedOriginLsn() == replayed_lsn)
			return false;
		replayed_lsn = WlReplayedOriginLsn();
		/* core's subscription, or pglogical's worker as pg_stat_activity names it */
		if (MyLogicalRepWorker != NULL)
			snprintf(sub, sizeof(sub), "subscription %s", MySubscription ? MySubscription->name : "?");
		else
			strlcpy(sub, MyBgworkerEntry ? MyBgworkerEntry->bgw_name : "?", sizeof(sub));
		/* the tables that got a new file in this transaction (replayed TRUNCATEs) */
		initStringInfo(&names);
		n = smgrGetPendingDeletes(false, &files);
		for (int i = 0; i < n; i++)
		{
			Oid			relid = WlRelidByFile(files[i]);

			if (!OidIsValid(relid) || get_rel_relkind(relid) != RELKIND_RELATION)
				continue;
			if (ntables < 8)
				appendStringInfo(&names, "%s%s", ntables > 0 ? ", " : "", qualified_name(relid));
			ntables++;
		}
		if (files)
			pfree(files);
		if (ntables > 8)
			appendStringInfo(&names, " and %d more", ntables - 8);
		w->tag = ntables > 0 ? CMDTAG_TRUNCATE_TABLE : CMDTAG_UNKNOWN;
		snprintf(w->text, WL_QUERY_LEN, "replayed transaction%s%s (%s)",
				 ntables > 0 ? " with TRUNCATE of " : "", names.data, sub);
		pfree(names.data);
		return true;
	}

	if (kind == WL_KIND_AUTOVACUUM)
	{
		LockData   *ld = GetLockStatusData();
		Oid			relid = InvalidOid;
		WlRelFile	file;
		BlockNumber before;
		BlockNumber after;

		/* its table: the one it holds ShareUpdateExclusiveLock on */
		for (int i = 0; i < ld->nelements && !OidIsValid(relid); i++)
		{
			LockInstanceData *li = &ld->locks[i];

			if (li->pid == MyProcPid &&
				li->locktag.locktag_type == LOCKTAG_RELATION &&
				li->locktag.locktag_field1 == MyDatabaseId &&
				(li->holdMask & LOCKBIT_ON(ShareUpdateExclusiveLock)))
				relid = li->locktag.locktag_field2;
		}
		/* fewer blocks than VACUUM's progress counter says it began with: one walk */
		if (!OidIsValid(relid) || MyBEEntry == NULL ||
			!wl_model_relation_file(relid, &file, NULL, NULL))
			return false;
		before = (BlockNumber) MyBEEntry->st_progress_param[PROGRESS_VACUUM_TOTAL_HEAP_BLKS];
		after = wl_model_main_fork_blocks(file);
		if (after >= before)
			return false;
		wl_effects_add_scans(eff, WL_SCAN_DROP_REL, 1, 1);
		eff->vacuum = true;
		eff->vacuum_pages = before;
		eff->vacuum_pages_removed = before - after;
		w->tag = CMDTAG_VACUUM;
		snprintf(w->text, WL_QUERY_LEN, "autovacuum of %s", qualified_name(relid));
		return true;
	}
	return false;
}
