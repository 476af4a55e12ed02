/*-------------------------------------------------------------------------
 *
 * observe.c
 *		What a utility statement did to relation storage that core does not
 *		report, seen before and after it and at its object access events
 *		(VACUUM's truncation, TRUNCATE in place, databases dropped, moved or
 *		created, sequences rewritten, COPY into a file that skips WAL, a
 *		prepared transaction finished), and what a background process's
 *		transaction did, at its commit.  Returns effects (WlEffects);
 *		records nothing.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "observe.h"

#include "cost.h"

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

/* ----------------------------------------------------------------
 * TRUNCATE
 * ----------------------------------------------------------------
 */
typedef struct TruncateObservation
{
	List	   *relids;			/* every relation TRUNCATE checked */
	int64		inplace_scans;	/* RelationTruncate calls to come */
	List	   *inplace_files;	/* their files (for is_truncated) */
} TruncateObservation;

static TruncateObservation *current_truncate = NULL;

static void
add_inplace_file(TruncateObservation *t, Relation rel)
{
	WlRelFile  *f = palloc(sizeof(WlRelFile));

	*f = WlRelationFile(rel);
	t->inplace_files = lappend(t->inplace_files, f);
	t->inplace_scans++;
}

static void
add_inplace_with_indexes(TruncateObservation *t, Relation rel)
{
	List	   *indexes = RelationGetIndexList(rel);
	ListCell   *lc;

	add_inplace_file(t, rel);
	foreach(lc, indexes)
	{
		Relation	irel = RelationIdGetRelation(lfirst_oid(lc));

		if (irel == NULL)
			continue;
		add_inplace_file(t, irel);
		RelationClose(irel);
	}
	list_free(indexes);
}

/*
 * OAT_TRUNCATE, per relation, before any is truncated: as
 * ExecuteTruncateGuts decides, one with a file new in this subtransaction
 * is truncated in place, one walk per heap, index, TOAST heap and index.
 */
void
wl_observe_truncate(Oid relid)
{
	TruncateObservation *t = current_truncate;
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
		Oid			toastrelid = rel->rd_rel->reltoastrelid;

		add_inplace_with_indexes(t, rel);
		if (OidIsValid(toastrelid))
		{
			Relation	toastrel = RelationIdGetRelation(toastrelid);

			if (toastrel != NULL)
			{
				add_inplace_with_indexes(t, toastrel);
				RelationClose(toastrel);
			}
		}
	}
	RelationClose(rel);
}

/* ----------------------------------------------------------------
 * relations created and altered
 * ----------------------------------------------------------------
 */

/* A new unlogged sequence is written and flushed (fill_seq_with_data). */
void
wl_observe_created_relation(Oid relid, WlEffects *eff)
{
	Relation	rel = RelationIdGetRelation(relid);

	if (rel == NULL)
		return;
	if (rel->rd_rel->relkind == RELKIND_SEQUENCE &&
		rel->rd_rel->relpersistence == RELPERSISTENCE_UNLOGGED)
		wl_effects_add_scans(eff, WL_SCAN_FLUSH_REL, 1, 1);
	RelationClose(rel);
}

/*
 * OAT_POST_ALTER in ALTER TABLE: only ATExecSetTableSpace fires it with the
 * relation's current file doomed, after a copy that began with
 * FlushRelationBuffers.
 */
void
wl_observe_altered_relation(Oid relid, WlEffects *eff)
{
	Relation	rel = RelationIdGetRelation(relid);
	WlRelFile  *doomed;
	int			n;

	if (rel == NULL)
		return;
	if (RELKIND_HAS_STORAGE(rel->rd_rel->relkind) &&
		rel->rd_rel->relpersistence != RELPERSISTENCE_TEMP)
	{
		n = smgrGetPendingDeletes(true, &doomed);
		for (int i = 0; i < n; i++)
		{
			if (WlRelFileEquals(WlRelationFile(rel), doomed[i]))
			{
				wl_effects_add_scans(eff, WL_SCAN_FLUSH_REL, 1, 1);
				break;
			}
		}
		if (doomed)
			pfree(doomed);
	}
	RelationClose(rel);
}

/* ----------------------------------------------------------------
 * before / after observations of utility statements
 * ----------------------------------------------------------------
 */
typedef enum ObservationKind
{
	OBS_VACUUM,
	OBS_TRUNCATE,
	OBS_DROPDB,
	OBS_MOVEDB,
	OBS_CREATEDB,
	OBS_SEQUENCES,
	OBS_COPY_FROM,
	OBS_FINISH_PREPARED
} ObservationKind;

typedef struct RelSize
{
	Oid			relid;
	WlRelFile	file;
	BlockNumber blocks;
	WlTailSample cached;		/* VACUUM: which blocks shared buffers held */
} RelSize;

struct WlObservation
{
	ObservationKind kind;
	MemoryContext cxt;
	/* VACUUM: sizes before, ring */
	RelSize    *sizes;
	int			nsizes;
	int			ring_kb;
	/* TRUNCATE */
	TruncateObservation truncate;
	TruncateObservation *saved_truncate;
	bool		restart_seqs;
	/* databases */
	char	   *dbname;
	Oid			dboid;
	Oid			dbtablespace;
	int64		db_buffers;		/* DROP DATABASE: its buffers, sampled */
	/* sequences whose storage may be rewritten: relid -> file before */
	RelSize    *seqs;
	int			nseqs;
	/* COPY FROM */
	RangeVar   *copy_rel;
	/* COMMIT / ROLLBACK PREPARED */
	char	   *gid;
	bool		commit_prepared;
};

static bool
vacuum_option(VacuumStmt *stmt, const char *name)
{
	ListCell   *lc;

	foreach(lc, stmt->options)
	{
		DefElem    *opt = lfirst(lc);

		if (strcmp(opt->defname, name) == 0)
			return defGetBoolean(opt);
	}
	return false;
}

/*
 * COPY FROM into a partitioned table: no hook tells which partitions its
 * rows went to, so the sizes of those that skip WAL are noted, and one
 * that grew was written (rows that fit its free space are missed).
 */
static void
observe_wal_skipping_partitions(WlObservation *obs, Oid relid)
{
	List	   *parts = find_all_inheritors(relid, NoLock, NULL);
	int			cap = Max(list_length(parts), 1);
	ListCell   *lc;

	obs->sizes = palloc(sizeof(RelSize) * cap);
	foreach(lc, parts)
	{
		WlRelFile	file;
		RelSize    *rs;

		if (!wl_model_relation_file(lfirst_oid(lc), &file, NULL, NULL) || !WlSkippingWAL(file))
			continue;
		rs = &obs->sizes[obs->nsizes++];
		memset(rs, 0, sizeof(*rs));
		rs->relid = lfirst_oid(lc);
		rs->file = file;
		rs->blocks = wl_model_main_fork_blocks(file);
	}
}

static void
add_rel_size(WlObservation *obs, Oid relid, int *cap)
{
	WlRelFile	file;

	if (!wl_model_relation_file(relid, &file, NULL, NULL))
		return;
	if (obs->nsizes >= *cap)
	{
		*cap *= 2;
		obs->sizes = repalloc(obs->sizes, sizeof(RelSize) * *cap);
	}
	obs->sizes[obs->nsizes].relid = relid;
	obs->sizes[obs->nsizes].file = file;
	obs->sizes[obs->nsizes].blocks = wl_model_main_fork_blocks(file);
	wl_model_sample_tail(file, obs->sizes[obs->nsizes].blocks, &obs->sizes[obs->nsizes].cached);
	obs->nsizes++;
}

static void
add_with_toast(WlObservation *obs, Oid relid, int *cap)
{
	Oid			toast = InvalidOid;
	HeapTuple	tup = SearchSysCache1(RELOID, ObjectIdGetDatum(relid));

	if (HeapTupleIsValid(tup))
	{
		toast = ((Form_pg_class) GETSTRUCT(tup))->reltoastrelid;
		ReleaseSysCache(tup);
	}
	add_rel_size(obs, relid, cap);
	if (OidIsValid(toast))
		add_rel_size(obs, toast, cap);
}

/* the relations a (non-FULL) VACUUM will process, with their sizes now */
static void
observe_vacuum_targets(WlObservation *obs, VacuumStmt *stmt)
{
	int			cap = 64;

	obs->sizes = palloc(sizeof(RelSize) * cap);
	if (stmt->rels == NIL)
	{
		Relation	pgclass = table_open(RelationRelationId, AccessShareLock);
		TableScanDesc scan = table_beginscan_catalog(pgclass, 0, NULL);
		HeapTuple	tup;

		while ((tup = heap_getnext(scan, ForwardScanDirection)) != NULL)
		{
			Form_pg_class cls = (Form_pg_class) GETSTRUCT(tup);

			if (cls->relkind == RELKIND_RELATION ||
				cls->relkind == RELKIND_MATVIEW ||
				cls->relkind == RELKIND_TOASTVALUE)
				add_rel_size(obs, cls->oid, &cap);
		}
		table_endscan(scan);
		table_close(pgclass, AccessShareLock);
		return;
	}

	{
		ListCell   *lc;

		foreach(lc, stmt->rels)
		{
			VacuumRelation *vrel = lfirst_node(VacuumRelation, lc);
			Oid			relid = vrel->oid;

			if (!OidIsValid(relid) && vrel->relation)
				relid = RangeVarGetRelid(vrel->relation, NoLock, true);
			if (!OidIsValid(relid))
				continue;
			if (get_rel_relkind(relid) == RELKIND_PARTITIONED_TABLE)
			{
				List	   *parts = find_all_inheritors(relid, NoLock, NULL);
				ListCell   *lc2;

				foreach(lc2, parts)
					add_with_toast(obs, lfirst_oid(lc2), &cap);
			}
			else
				add_with_toast(obs, relid, &cap);
		}
	}
}

static void
observe_sequence(WlObservation *obs, Oid relid, int *cap)
{
	WlRelFile	file;
	char		relkind;

	if (!wl_model_relation_file(relid, &file, &relkind, NULL) || relkind != RELKIND_SEQUENCE)
		return;
	if (obs->nseqs >= *cap)
	{
		*cap *= 2;
		obs->seqs = repalloc(obs->seqs, sizeof(RelSize) * *cap);
	}
	obs->seqs[obs->nseqs].relid = relid;
	obs->seqs[obs->nseqs].file = file;
	obs->nseqs++;
}

static bool
alter_table_changes_persistence(AlterTableStmt *stmt)
{
	ListCell   *lc;

	foreach(lc, stmt->cmds)
	{
		AlterTableCmd *cmd = lfirst_node(AlterTableCmd, lc);

		if (cmd->subtype == AT_SetLogged || cmd->subtype == AT_SetUnLogged)
			return true;
	}
	return false;
}

static void observe_before(WlObservation *obs, Node *parsetree);

/* right before DROP DATABASE: its buffers, sampled (the pages then cost its walk nothing) */
void
wl_observe_before_walk(WlObservation *obs)
{
	int64		pages_mapped;

	if (obs->kind != OBS_DROPDB)
		return;
	obs->db_buffers = wl_model_database_buffers(obs->dboid, &pages_mapped);
	wl_header_pages_mapped(pages_mapped);
}

/* the outermost observation's context, kept (see wl_observe_before) */
#define KEPT_CXT_BLOCK (32 * 1024)
static MemoryContext kept_cxt = NULL;
static bool kept_cxt_in_use = false;

/* an observation's context given back: the kept one reset, others deleted */
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
 * Before a utility statement to watch: what it will change, measured now;
 * NULL for others.  Lives in its own context under TopMemoryContext (VACUUM
 * and DROP DATABASE commit transactions), freed by wl_observe_after or on
 * an error in here.
 */
WlObservation *
wl_observe_before(Node *parsetree)
{
	WlObservation *obs;
	MemoryContext cxt;
	MemoryContext old;

	switch (nodeTag(parsetree))
	{
		case T_VacuumStmt:
			{
				VacuumStmt *stmt = (VacuumStmt *) parsetree;

				if (!stmt->is_vacuumcmd || vacuum_option(stmt, "full"))
					return NULL;
				break;
			}
		case T_TruncateStmt:
		case T_DropdbStmt:
		case T_CreatedbStmt:
		case T_AlterSeqStmt:
			break;
		case T_AlterDatabaseStmt:
			{
				ListCell   *lc;
				bool		moves = false;

				foreach(lc, ((AlterDatabaseStmt *) parsetree)->options)
					if (strcmp(((DefElem *) lfirst(lc))->defname, "tablespace") == 0)
						moves = true;
				if (!moves)
					return NULL;
				break;
			}
		case T_AlterTableStmt:
			if (!alter_table_changes_persistence((AlterTableStmt *) parsetree))
				return NULL;
			break;
		case T_TransactionStmt:
			{
				TransactionStmt *stmt = (TransactionStmt *) parsetree;

				if (stmt->kind != TRANS_STMT_COMMIT_PREPARED &&
					stmt->kind != TRANS_STMT_ROLLBACK_PREPARED)
					return NULL;
				break;
			}
		case T_CopyStmt:
			if (!((CopyStmt *) parsetree)->is_from ||
				((CopyStmt *) parsetree)->relation == NULL || XLogIsNeeded())
				return NULL;
			break;
		default:
			return NULL;
	}

	/*
	 * The outermost observation reuses one context with a first block that
	 * stays: one made and deleted per COPY moved the heap's top across
	 * glibc's trim threshold, and core's COPY faulted its pages in again.
	 */
	if (!kept_cxt_in_use)
	{
		if (kept_cxt == NULL)
			kept_cxt = AllocSetContextCreate(TopMemoryContext,
											 "walload observation",
											 0, KEPT_CXT_BLOCK,
											 ALLOCSET_DEFAULT_MAXSIZE);
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
		if (current_truncate == &obs->truncate)
			current_truncate = obs->saved_truncate;
		release_context(cxt);
		PG_RE_THROW();
	}
	PG_END_TRY();
	MemoryContextSwitchTo(old);
	return obs;
}

/* fill obs for parsetree; runs in obs's context */
static void
observe_before(WlObservation *obs, Node *parsetree)
{
	switch (nodeTag(parsetree))
	{
		case T_VacuumStmt:
			obs->kind = OBS_VACUUM;
			obs->ring_kb = wl_vacuum_ring_kb(((VacuumStmt *) parsetree)->options);
			observe_vacuum_targets(obs, (VacuumStmt *) parsetree);
			break;
		case T_TruncateStmt:
			obs->kind = OBS_TRUNCATE;
			obs->restart_seqs = ((TruncateStmt *) parsetree)->restart_seqs;
			obs->saved_truncate = current_truncate;
			current_truncate = &obs->truncate;
			break;
		case T_DropdbStmt:
			obs->kind = OBS_DROPDB;
			obs->dbname = pstrdup(((DropdbStmt *) parsetree)->dbname);
			obs->dboid = get_database_oid(obs->dbname, true);
			break;
		case T_AlterDatabaseStmt:
			{
				HeapTuple	tup;

				obs->kind = OBS_MOVEDB;
				obs->dbname = pstrdup(((AlterDatabaseStmt *) parsetree)->dbname);
				obs->dboid = get_database_oid(obs->dbname, true);
				tup = SearchSysCache1(DATABASEOID, ObjectIdGetDatum(obs->dboid));
				if (HeapTupleIsValid(tup))
				{
					obs->dbtablespace = ((Form_pg_database) GETSTRUCT(tup))->dattablespace;
					ReleaseSysCache(tup);
				}
				break;
			}
		case T_CreatedbStmt:
			obs->kind = OBS_CREATEDB;
			obs->dbname = pstrdup(((CreatedbStmt *) parsetree)->dbname);
			break;
		case T_AlterSeqStmt:
		case T_AlterTableStmt:
			{
				int			cap = 4;
				bool		seq = IsA(parsetree, AlterSeqStmt);
				Oid			relid = RangeVarGetRelid(seq ? ((AlterSeqStmt *) parsetree)->sequence :
													 ((AlterTableStmt *) parsetree)->relation,
													 NoLock, true);

				obs->kind = OBS_SEQUENCES;
				obs->seqs = palloc(sizeof(RelSize) * cap);
				if (OidIsValid(relid))
				{
					ListCell   *lc;

					observe_sequence(obs, relid, &cap);
					if (!seq)
						foreach(lc, getOwnedSequences(relid))
							observe_sequence(obs, lfirst_oid(lc), &cap);
				}
				break;
			}
		case T_CopyStmt:
			{
				Oid			relid;

				obs->kind = OBS_COPY_FROM;
				obs->copy_rel = copyObject(((CopyStmt *) parsetree)->relation);
				relid = RangeVarGetRelid(obs->copy_rel, NoLock, true);
				if (OidIsValid(relid) && get_rel_relkind(relid) == RELKIND_PARTITIONED_TABLE)
					observe_wal_skipping_partitions(obs, relid);
				break;
			}
		case T_TransactionStmt:
			obs->kind = OBS_FINISH_PREPARED;
			obs->gid = pstrdup(((TransactionStmt *) parsetree)->gid);
			obs->commit_prepared =
				((TransactionStmt *) parsetree)->kind == TRANS_STMT_COMMIT_PREPARED;
			break;
		default:
			break;
	}
}

static void observe_after(WlObservation *obs, WlEffects *eff);

/* after the statement (into eff), or in its error handler (!success: reads nothing); frees obs */
void
wl_observe_after(WlObservation *obs, bool success, WlEffects *eff)
{
	if (obs == NULL)
		return;

	if (obs->kind == OBS_TRUNCATE)
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

/* the statement succeeded: what it changed, from obs */
static void
observe_after(WlObservation *obs, WlEffects *eff)
{
	{
		switch (obs->kind)
		{
			case OBS_VACUUM:
				{
					int64		pages = 0;
					int64		removed = 0;

					for (int i = 0; i < obs->nsizes; i++)
					{
						WlRelFile	file;
						BlockNumber after;

						pages += obs->sizes[i].blocks;
						/* same file, fewer blocks: truncated (one scan per round) */
						if (wl_model_relation_file(obs->sizes[i].relid, &file, NULL, NULL) &&
							WlRelFileEquals(file, obs->sizes[i].file) &&
							(after = wl_model_main_fork_blocks(file)) < obs->sizes[i].blocks)
						{
							wl_effects_add_scans(eff, WL_SCAN_DROP_REL, 1, 1);
							wl_effects_add_invalidated(eff, WL_SCAN_DROP_REL,
													   wl_model_tail_buffers(&obs->sizes[i].cached, after));
							removed += obs->sizes[i].blocks - after;
						}
					}
					eff->vacuum = true;
					eff->vacuum_ring_kb = obs->ring_kb;
					eff->vacuum_pages += pages;
					eff->vacuum_pages_removed += removed;
					break;
				}
			case OBS_TRUNCATE:
				{
					ListCell   *lc;

					wl_effects_add_scans(eff, WL_SCAN_DROP_REL, obs->truncate.inplace_scans, 1);
					wl_model_note_truncated_in_place(obs->truncate.inplace_files);
					/* RESTART IDENTITY rewrites owned sequences */
					if (obs->restart_seqs)
					{
						List	   *seqs = NIL;

						foreach(lc, obs->truncate.relids)
							seqs = list_concat_unique_oid(seqs,
														  getOwnedSequences(lfirst_oid(lc)));
						foreach(lc, seqs)
							if (get_rel_persistence(lfirst_oid(lc)) == RELPERSISTENCE_UNLOGGED)
								wl_effects_add_scans(eff, WL_SCAN_FLUSH_REL, 1, 1);
					}
					break;
				}
			case OBS_DROPDB:
				if (OidIsValid(obs->dboid) && !OidIsValid(get_database_oid(obs->dbname, true)))
				{
					wl_effects_add_scans(eff, WL_SCAN_DB, 1, 1);
					wl_effects_add_invalidated(eff, WL_SCAN_DB, obs->db_buffers);
				}
				break;
			case OBS_MOVEDB:
				{
					HeapTuple	tup = SearchSysCache1(DATABASEOID, ObjectIdGetDatum(obs->dboid));

					if (HeapTupleIsValid(tup))
					{
						if (((Form_pg_database) GETSTRUCT(tup))->dattablespace != obs->dbtablespace)
							wl_effects_add_scans(eff, WL_SCAN_DB, 1, 1);
						ReleaseSysCache(tup);
					}
					break;
				}
			case OBS_CREATEDB:
				/* WAL_LOG under minimal: the copies skip WAL */
				if (wl_model_note_created_database(obs->dbname))
					eff->wal_skipped = true;
				break;
			case OBS_SEQUENCES:
				for (int i = 0; i < obs->nseqs; i++)
				{
					WlRelFile	file;
					char		persistence;

					if (wl_model_relation_file(obs->seqs[i].relid, &file, NULL, &persistence) &&
						!WlRelFileEquals(file, obs->seqs[i].file) &&
						persistence == RELPERSISTENCE_UNLOGGED)
						wl_effects_add_scans(eff, WL_SCAN_FLUSH_REL, 1, 1);
				}
				break;
			case OBS_FINISH_PREPARED:
				/* what it deletes was noted at its PREPARE (accumulator.c) */
				eff->finish_prepared = true;
				eff->commit_prepared = obs->commit_prepared;
				strlcpy(eff->gid, obs->gid, GIDSIZE);
				break;
			case OBS_COPY_FROM:
				{
					Oid			relid = RangeVarGetRelid(obs->copy_rel, NoLock, true);
					WlRelFile	file;

					if (OidIsValid(relid) && wl_model_relation_file(relid, &file, NULL, NULL) &&
						WlSkippingWAL(file))
						eff->wal_skipped = true;
					/* a partitioned table: one of its partitions grew */
					for (int i = 0; i < obs->nsizes && !eff->wal_skipped; i++)
						if (wl_model_main_fork_blocks(obs->sizes[i].file) > obs->sizes[i].blocks)
							eff->wal_skipped = true;
					break;
				}
		}
	}
}


/* ----------------------------------------------------------------
 * background processes that load without a hooked statement: the logical
 * replication workers (CopyFrom, their own executor calls,
 * ExecuteTruncateGuts) and autovacuum; looked at once, at PRE_COMMIT
 * ----------------------------------------------------------------
 */

/* the relation the tablesync worker has recorded the initial copy of */
static Oid	copied_relid = InvalidOid;

/* the end of the last remote transaction recorded as replayed */
static XLogRecPtr replayed_lsn = InvalidXLogRecPtr;

/*
 * pglogical's apply and sync workers: background workers of its library
 * without core's MyLogicalRepWorker, that replay with a replication origin
 * as core's apply worker does (the sync worker's catch-up too; its initial
 * copy is a COPY FROM STDIN over libpq, a client's statement).
 */
static bool
pglogical_apply_worker(void)
{
	return MyBgworkerEntry != NULL &&
		strcmp(MyBgworkerEntry->bgw_library_name, "pglogical") == 0 &&
		(strcmp(MyBgworkerEntry->bgw_function_name, "pglogical_apply_main") == 0 ||
		 strcmp(MyBgworkerEntry->bgw_function_name, "pglogical_sync_main") == 0);
}

WlBackendKind
wl_observe_worker_kind(void)
{
	if (MyBackendType == B_AUTOVAC_WORKER)
		return WL_KIND_AUTOVACUUM;
	if (MyBackendType == B_BG_WORKER && MyLogicalRepWorker != NULL)
		return am_tablesync_worker() ? WL_KIND_TABLESYNC : WL_KIND_APPLY;
	if (MyBackendType == B_BG_WORKER && pglogical_apply_worker())
		return WL_KIND_APPLY;
	return WL_KIND_CLIENT;
}

/* schema.name of a relation, or its OID if it is gone */
static char *
qualified_name(Oid relid)
{
	char	   *rel = get_rel_name(relid);
	char	   *nsp = rel ? get_namespace_name(get_rel_namespace(relid)) : NULL;

	if (rel == NULL)
		return psprintf("%u", relid);
	return quote_qualified_identifier(nsp, rel);
}

/* does this transaction hold lockmode on relation relid of this database */
static bool
relation_locked_by_me(Oid relid, LOCKMODE lockmode)
{
	LOCKTAG		tag;

	SET_LOCKTAG_RELATION(tag, MyDatabaseId, relid);
	return WlLockHeldByMe(&tag, lockmode);
}

/* the tables given a new file in this transaction (by replayed TRUNCATEs) */
static void
truncated_tables(StringInfo names, int *ntables)
{
	WlRelFile  *files;
	int			n = smgrGetPendingDeletes(false, &files);

	for (int i = 0; i < n; i++)
	{
		Oid			relid = WlRelidByFile(files[i]);

		if (!OidIsValid(relid) || get_rel_relkind(relid) != RELKIND_RELATION)
			continue;
		if (*ntables < 8)
			appendStringInfo(names, "%s%s", *ntables > 0 ? ", " : "", qualified_name(relid));
		(*ntables)++;
	}
	if (files)
		pfree(files);
	if (*ntables > 8)
		appendStringInfo(names, " and %d more", *ntables - 8);
}

/* autovacuum's table: the one it holds ShareUpdateExclusiveLock on */
static Oid
autovacuum_table(void)
{
	LockData   *ld = GetLockStatusData();
	Oid			relid = InvalidOid;

	for (int i = 0; i < ld->nelements && !OidIsValid(relid); i++)
	{
		LockInstanceData *li = &ld->locks[i];

		if (li->pid == MyProcPid &&
			li->locktag.locktag_type == LOCKTAG_RELATION &&
			li->locktag.locktag_field1 == MyDatabaseId &&
			(li->holdMask & LOCKBIT_ON(ShareUpdateExclusiveLock)))
			relid = li->locktag.locktag_field2;
	}
	return relid;
}

/*
 * At PRE_COMMIT of a background process's transaction: what it did, as one
 * statement, with the walks core's lists do not show; false if nothing.
 */
bool
wl_observe_worker_xact(WlBackendKind kind, WlWorkerWork *w, WlEffects *eff)
{
	bool		has_xid = TransactionIdIsValid(GetTopTransactionIdIfAny());

	w->kind = kind;
	w->rows = 0;
	w->text[0] = '\0';

	if (kind == WL_KIND_TABLESYNC)
	{
		Oid			relid = MyLogicalRepWorker->relid;

		/* the initial copy: the table locked in DATASYNC; rows: COPY's progress */
		if (MyLogicalRepWorker->relstate == SUBREL_STATE_DATASYNC &&
			copied_relid != relid &&
			relation_locked_by_me(relid, RowExclusiveLock))
		{
			WlRelFile	file;

			copied_relid = relid;
			w->tag = CMDTAG_COPY;
			if (MyBEEntry != NULL)
				w->rows = (uint64) Max(MyBEEntry->st_progress_param[PROGRESS_COPY_TUPLES_PROCESSED], 0);
			snprintf(w->text, WL_QUERY_LEN, "initial copy of %s (subscription %s)",
					 qualified_name(relid), MySubscription ? MySubscription->name : "?");
			if (wl_model_relation_file(relid, &file, NULL, NULL) && WlSkippingWAL(file))
				eff->wal_skipped = true;
			return true;
		}
	}

	if (kind == WL_KIND_APPLY || kind == WL_KIND_TABLESYNC)
	{
		StringInfoData names;
		int			ntables = 0;
		char		sub[NAMEDATALEN + BGW_MAXLEN];

		/* a replayed transaction: a new origin LSN (bookkeeping keeps the old) */
		if (!has_xid || WlReplayedOriginLsn() == InvalidXLogRecPtr ||
			WlReplayedOriginLsn() == replayed_lsn)
			return false;
		replayed_lsn = WlReplayedOriginLsn();
		/* core's subscription, or pglogical's worker as pg_stat_activity names it */
		if (MyLogicalRepWorker != NULL)
			snprintf(sub, sizeof(sub), "subscription %s", MySubscription ? MySubscription->name : "?");
		else
			strlcpy(sub, MyBgworkerEntry ? MyBgworkerEntry->bgw_name : "?", sizeof(sub));
		initStringInfo(&names);
		truncated_tables(&names, &ntables);
		w->tag = ntables > 0 ? CMDTAG_TRUNCATE_TABLE : CMDTAG_UNKNOWN;
		if (ntables > 0)
			snprintf(w->text, WL_QUERY_LEN, "replayed transaction with TRUNCATE of %s (%s)", names.data, sub);
		else
			snprintf(w->text, WL_QUERY_LEN, "replayed transaction (%s)", sub);
		pfree(names.data);
		return true;
	}

	if (kind == WL_KIND_AUTOVACUUM)
	{
		Oid			relid = autovacuum_table();
		WlRelFile	file;
		BlockNumber before;
		BlockNumber after;

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
