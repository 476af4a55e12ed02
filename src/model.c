/*-------------------------------------------------------------------------
 *
 * model.c
 *		Which full scans of the shared buffer pool core performs, and which
 *		files it syncs, WAL-logs and deletes, decided from the state core
 *		decides from (its exported functions tell it all):
 *
 * - deletion at commit/abort (DropRelFileNodesAllBuffers): the files
 *   smgrGetPendingDeletes() lists; a walk unless none or no fork exists;
 * - the sync at commit (FlushRelationsAllBuffers, wal_level=minimal): the
 *   new files RelFileNodeSkippingWAL() names, not deleted; one walk if any
 *   was truncated in place or is at least wal_skip_threshold large;
 * - truncation in place (DropRelFileNodeBuffers): TRUNCATE of a table new
 *   in the subtransaction, a walk per file; VACUUM's truncation of a tail;
 * - FlushRelationBuffers (SET TABLESPACE, unlogged sequences) and
 *   DropDatabaseBuffers (DROP DATABASE, ALTER DATABASE SET TABLESPACE).
 *
 * It records nothing and calls only sizing.c.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "model.h"

#include "access/heapam.h"
#include "access/htup_details.h"
#include "access/table.h"
#include "access/tableam.h"
#include "access/xact.h"
#include "access/xlog.h"
#include "catalog/pg_database.h"
#include "catalog/pg_tablespace.h"
#include "commands/dbcommands.h"
#include "common/hashfn.h"
#include "common/relpath.h"
#include "miscadmin.h"
#include "storage/fd.h"
#include "utils/inval.h"
#include "utils/memutils.h"
#include "utils/syscache.h"

/* simplehash: no indirect calls, emptied by one memset; entries move */
typedef struct FileEntry
{
	WlRelFile	file;			/* hash key */
	char		status;
	union
	{
		int32		stmt_no;	/* statement that created or scheduled it */
		WlFileSizes sizes;		/* doomed_sizes */
		BlockNumber blocks[MAX_FORKNUM + 1];	/* seen_sizes (or Invalid) */
	}			v;
} FileEntry;

#define SH_PREFIX		wl_files
#define SH_ELEMENT_TYPE	FileEntry
#define SH_KEY_TYPE		WlRelFile
#define SH_KEY			file
#define SH_HASH_KEY(tb, key)	murmurhash32(WL_REL_NUMBER(key))
#define SH_EQUAL(tb, a, b)		WlRelFileEquals(a, b)
#define SH_SCOPE		static inline
#define SH_DECLARE
#define SH_DEFINE
#include "lib/simplehash.h"

/* the maps of relations: known_rels' file, created_rels' nothing */
typedef struct RelEntry
{
	Oid			relid;			/* hash key */
	char		status;
	WlRelFile	file;
} RelEntry;

#define SH_PREFIX		wl_rels
#define SH_ELEMENT_TYPE	RelEntry
#define SH_KEY_TYPE		Oid
#define SH_KEY			relid
#define SH_HASH_KEY(tb, key)	murmurhash32(key)
#define SH_EQUAL(tb, a, b)		((a) == (b))
#define SH_SCOPE		static inline
#define SH_DECLARE
#define SH_DEFINE
#include "lib/simplehash.h"

/* a pending sync core lists nowhere: an aborted subxact's, a new database's */
typedef struct ExtraSync
{
	WlRelFile	file;
	bool		truncated;
	bool		ghost;			/* an aborted subxact's: its file is gone */
	int32		creator;		/* statement that created it, or -1 */
} ExtraSync;

static MemoryContext model_cxt = NULL;	/* per transaction: the lists */
static MemoryContext model_hash_cxt = NULL; /* the maps, kept across xacts */
static wl_files_hash *created_files = NULL;	/* deleted at abort: created */
static wl_files_hash *doomed_files = NULL;	/* deleted at commit */
static wl_files_hash *truncated_files = NULL;	/* syncs truncated in place */
static List *extra_syncs = NIL; /* of ExtraSync */
static wl_rels_hash *known_rels = NULL; /* relid -> its file, as last seen */
static wl_files_hash *doomed_sizes = NULL;	/* deleted at commit, sized */
static wl_files_hash *seen_sizes = NULL;	/* syncs' forks, as last known */
static wl_rels_hash *created_rels = NULL;	/* created in the transaction */
static bool model_dirty = false;	/* the maps were used in this transaction */

/*
 * A single-statement transaction's changes are read by its commit or abort
 * anyway: under a WAL-logging level its statement's end leaves them unread,
 * and a file no map names is then owed_stmt's (creator_in).  Read before a
 * statement that may change core's lists starts (wl_model_settle).
 */
static int32 owed_stmt = -1;

/*
 * Relations invalidated since the last look (no file changes without), noted
 * by a callback that may not fail or allocate.
 */
#define WL_CHANGED_RELS		64
static Oid	changed_rels[WL_CHANGED_RELS];
static int	n_changed_rels = 0;
static bool changed_all = false;

/* maps of more buckets than this at transaction end are freed, not emptied */
#define WL_MODEL_KEEP_BUCKETS	1024
/* emptying clears every bucket, and most transactions add an entry or two */
#define WL_MODEL_MAP_SIZE		4
/* below this many files created or doomed, core's lists are cheaper */
#define WL_LISTS_CHEAP	64

/*
 * Core's lists as a statement's end read them, reused by the predictions and
 * the commit while no relation is invalidated, in the same (sub)transaction.
 * Their own context, reset at each reading and at transaction end: growing
 * lists freed one by one would leave chunks in a context never reset.
 */
static MemoryContext kept_cxt = NULL;
static struct
{
	WlRelFile  *files[2];		/* [forCommit] */
	int			n[2];
	bool		valid;			/* no invalidation since */
	SubTransactionId subxact;
	TransactionId xid;
	TimestampTz xact_start;
	WlPendingSync *syncs;		/* pending_syncs() of them, unsized */
	int			nsyncs;
	uint32		notes;			/* MODEL_NOTES() then: no map shrinks */
}			kept;

#define MODEL_NOTES()	(created_files->members + truncated_files->members + \
						 created_rels->members + list_length(extra_syncs))

static void
relcache_changed(Datum arg, Oid relid)
{
	kept.valid = false;
	if (changed_all)
		return;
	/* invalidated at each command counter increment of its statement */
	for (int i = n_changed_rels - 1; i >= 0; i--)
		if (changed_rels[i] == relid)
			return;
	if (!OidIsValid(relid) || n_changed_rels >= WL_CHANGED_RELS)
		changed_all = true;
	else
		changed_rels[n_changed_rels++] = relid;
}

/* the per-transaction context's first block is note_extra_sync's reserve */
void
wl_model_register(void)
{
	CacheRegisterRelcacheCallback(relcache_changed, (Datum) 0);
	if (model_cxt == NULL)
		model_cxt = AllocSetContextCreate(TopMemoryContext, "walload scan model",
										  8 * 1024, 8 * 1024, 8 * 1024);
}

/* the maps, made together (ensure_model_state), emptied or freed together */
static wl_files_hash **const file_maps[] =
{
	&created_files, &doomed_files, &truncated_files, &doomed_sizes, &seen_sizes
};
static wl_rels_hash **const rel_maps[] = {&known_rels, &created_rels};

static void
ensure_model_state(void)
{
	model_dirty = true;
	if (created_files != NULL)
		return;
	if (model_hash_cxt == NULL)
		model_hash_cxt = AllocSetContextCreate(TopMemoryContext, "walload scan model maps",
											   ALLOCSET_SMALL_SIZES);
	for (int i = 0; i < lengthof(file_maps); i++)
		*file_maps[i] = wl_files_create(model_hash_cxt, WL_MODEL_MAP_SIZE, NULL);
	for (int i = 0; i < lengthof(rel_maps); i++)
		*rel_maps[i] = wl_rels_create(model_hash_cxt, WL_MODEL_MAP_SIZE, NULL);
}

/* at a top-level transaction's end the maps are emptied, or freed if large */
void
wl_model_xact_end(void)
{
	bool		large = false;

	/* a call saved where nothing was allocated (most transactions) */
	if (model_cxt != NULL && !model_cxt->isReset)
		MemoryContextReset(model_cxt);
	extra_syncs = NIL;
	owed_stmt = -1;
	n_changed_rels = 0;
	changed_all = false;
	if (kept_cxt != NULL && !kept_cxt->isReset)
		MemoryContextReset(kept_cxt);
	kept.valid = false;			/* the rest unread until a reading sets it */
	kept.syncs = NULL;			/* not to be freed again (pending_syncs) */
	/* every use of the maps begins with ensure_model_state() */
	if (created_files == NULL || !model_dirty)
		return;
	model_dirty = false;
	for (int i = 0; i < lengthof(file_maps); i++)
		large |= (*file_maps[i])->size > WL_MODEL_KEEP_BUCKETS;
	for (int i = 0; i < lengthof(rel_maps); i++)
		large |= (*rel_maps[i])->size > WL_MODEL_KEEP_BUCKETS;
	if (large)
		MemoryContextReset(model_hash_cxt);
	for (int i = 0; i < lengthof(file_maps); i++)
		if (large)
			*file_maps[i] = NULL;
		else if ((*file_maps[i])->members > 0)
			wl_files_reset(*file_maps[i]);
	for (int i = 0; i < lengthof(rel_maps); i++)
		if (large)
			*rel_maps[i] = NULL;
		else if ((*rel_maps[i])->members > 0)
			wl_rels_reset(*rel_maps[i]);
}

/*
 * OAT_POST_CREATE; one of an aborted subtransaction stays, harmlessly.  Read
 * for pending syncs only: none where WAL is needed.
 */
void
wl_model_note_created(Oid relid)
{
	bool		found;

	if (XLogIsNeeded())
		return;
	ensure_model_state();
	(void) wl_rels_insert(created_rels, relid, &found);
}

/*
 * A pending sync's blocks without a system call: core's cached sizes (lost
 * at each relcache rebuild), else seen_sizes', the main fork's relpages if
 * more, of the relation created in the xact whose first file this is (no
 * other: another file number looked up as an OID leaves a negative entry),
 * read into *pages once (-2: not yet; kept while no relation is invalidated).
 * A file enters seen_sizes once core has cached a size of it: an entry of
 * unknown sizes tells nothing, and each new file's grew the map in mid-load,
 * where core's COPYs reuse the heap (each COPY then grew the heap twice).
 */
static uint64
file_live_blocks(WlRelFile file, int64 *pages)
{
	SMgrRelation srel = WlSmgrOpen(file);
	Oid			relid = WL_REL_NUMBER(file);
	BlockNumber relpages;
	WlRelFile	cur;
	FileEntry  *seen;
	bool		found;
	bool		cached = false;
	uint64		total = 0;

	ensure_model_state();
	for (ForkNumber fork = 0; fork <= MAX_FORKNUM; fork++)
		cached |= srel->smgr_cached_nblocks[fork] != InvalidBlockNumber;
	if (cached)
		seen = wl_files_insert(seen_sizes, file, &found);
	else
		found = (seen = wl_files_lookup(seen_sizes, file)) != NULL;
	for (ForkNumber fork = 0; fork <= MAX_FORKNUM; fork++)
	{
		BlockNumber known = srel->smgr_cached_nblocks[fork];

		if (seen && !found)
			seen->v.blocks[fork] = InvalidBlockNumber;
		if (known != InvalidBlockNumber)
			seen->v.blocks[fork] = known;
		else if (fork == MAIN_FORKNUM)
		{
			if (*pages < 0)
				*pages = (WL_REL_DB(file) != MyDatabaseId || created_rels == NULL ||
						  wl_rels_lookup(created_rels, relid) == NULL ||
						  !wl_sizing_rel_file(relid, &cur, NULL, NULL, &relpages) ||
						  !WlRelFileEquals(cur, file)) ? 0 : relpages;
			known = seen ? seen->v.blocks[fork] : InvalidBlockNumber;
			if (*pages > 0 && (known == InvalidBlockNumber || *pages > known))
				known = (BlockNumber) *pages;
		}
		else if (seen)
			known = seen->v.blocks[fork];
		if (known != InvalidBlockNumber)
			total += known;
	}
	return total;
}

/*
 * The files a commit deletes: the first WL_DROP_SIZE_SAMPLE sized, the rest
 * scaled; live: as noted.  Returns whether DropRelFileNodesAllBuffers()
 * walks: outside recovery, unless no fork exists.
 */
#define WL_DROP_SIZE_SAMPLE	64

static bool
size_doomed(WlRelFile *files, int n, bool live, WlCommitModel *m)
{
	int			k = Min(n, WL_DROP_SIZE_SAMPLE);
	WlFileSizes	all = {0};
	WlFileSizes	one;
	double		scale = k > 0 ? (double) n / k : 0;
	bool		found_fork = false;

	if (live)
		ensure_model_state();
	for (int i = 0; i < k; i++)
	{
		FileEntry  *noted = NULL;

		if (!live)
			found_fork |= wl_sizing_file(files[i], &one);
		else if ((noted = wl_files_lookup(doomed_sizes, files[i])) != NULL)
			one = noted->v.sizes;
		else
			one = (WlFileSizes) {.forks = 1};
		all.blocks += one.blocks;
		all.forks += one.forks;
		all.stored_forks += one.stored_forks;
		all.stored_blocks += one.stored_blocks;
		all.buffers += one.buffers;
	}
	m->dropped_blocks = (int64) (all.blocks * scale);
	m->dropped_forks = (int32) (all.forks * scale);
	m->dropped_stored_forks = (int32) (all.stored_forks * scale);
	m->dropped_stored_blocks = (int64) (all.stored_blocks * scale);
	m->dropped_buffers = (int64) (all.buffers * scale);
	if (n == 0)
		return false;
	if (WL_BUF_DROP_FULL_SCAN_THRESHOLD == 0 || live || found_fork)
		return true;
	for (int i = k; i < n; i++)
		if (wl_sizing_file(files[i], &one))
			return true;
	return false;
}

/*
 * relid's file's sizes for the live prediction, without a system call:
 * cached, else seen_sizes', the main fork at least relpages; a fork of
 * unknown size taken not to exist, every block to be on disk.
 */
static void
note_doomed_rel(Oid relid)
{
	WlRelFile	file;
	BlockNumber relpages;
	WlFileSizes *d;
	FileEntry  *seen;
	bool		found;
	SMgrRelation srel;

	if (!wl_sizing_rel_file(relid, &file, NULL, NULL, &relpages))
		return;

	/* seen_sizes is filled only under wal_level=minimal (file_live_blocks) */
	seen = seen_sizes->members == 0 ? NULL : wl_files_lookup(seen_sizes, file);
	d = &wl_files_insert(doomed_sizes, file, &found)->v.sizes;
	*d = (WlFileSizes) {.file = file};
	srel = WlSmgrOpen(file);
	for (ForkNumber fork = 0; fork <= MAX_FORKNUM; fork++)
	{
		BlockNumber nblocks = srel->smgr_cached_nblocks[fork];

		if (nblocks == InvalidBlockNumber && seen != NULL)
			nblocks = seen->v.blocks[fork];
		if (fork == MAIN_FORKNUM && (nblocks == InvalidBlockNumber || relpages > nblocks))
			nblocks = relpages;
		else if (fork != MAIN_FORKNUM && (nblocks == InvalidBlockNumber || nblocks == 0))
			continue;
		wl_sizing_add_fork(d, fork, nblocks, nblocks);
	}
}

/*
 * DROP (OAT_DROP) or TRUNCATE (OAT_TRUNCATE, with_dependents: its indexes
 * and TOAST too) will doom relid's file: its sizes while they can be told.
 */
void
wl_model_note_doomed(Oid relid, bool with_dependents)
{
	Relation	rel;
	Oid			toastrelid;
	List	   *indexes;
	ListCell   *lc;

	ensure_model_state();
	note_doomed_rel(relid);
	if (!with_dependents || (rel = RelationIdGetRelation(relid)) == NULL)
		return;
	toastrelid = rel->rd_rel->reltoastrelid;
	indexes = RelationGetIndexList(rel);
	RelationClose(rel);
	foreach(lc, indexes)
		note_doomed_rel(lfirst_oid(lc));
	list_free(indexes);
	if (OidIsValid(toastrelid))
		wl_model_note_doomed(toastrelid, true);
}

/* note stmt_no as the creator of file if new in map; whether it was */
static pg_attribute_always_inline bool
note_new_file(wl_files_hash *map, WlRelFile file, int32 stmt_no, bool *skipping_wal)
{
	bool		found;
	FileEntry  *fc = wl_files_insert(map, file, &found);

	if (found)
		return false;
	fc->v.stmt_no = stmt_no;
	if (skipping_wal && WlSkippingWAL(file))
		*skipping_wal = true;
	return true;
}

/* note the creator of files new in a pending list (newest first); in its caller */
static pg_attribute_always_inline bool
note_new_files(bool forCommit, wl_files_hash *map, int32 stmt_no, bool *skipping_wal)
{
	MemoryContext old = MemoryContextSwitchTo(kept_cxt);
	int			n = smgrGetPendingDeletes(forCommit, &kept.files[forCommit]);
	int			i = 0;

	MemoryContextSwitchTo(old);
	kept.n[forCommit] = n;
	while (i < n && note_new_file(map, kept.files[forCommit][i], stmt_no, skipping_wal))
		i++;
	return i > 0;
}

/*
 * Did a changed relation touch the pending lists as known_rels does not
 * explain?  One created here with its first file is noted at once.  Only the
 * syscache is read: the relation may be another session's, unlocked.
 */
static bool
change_needs_lists(Oid relid, int32 stmt_no, bool *created, bool *skipping)
{
	RelEntry   *k = wl_rels_lookup(known_rels, relid);
	HeapTuple	tup = SearchSysCache1(RELOID, ObjectIdGetDatum(relid));
	Form_pg_class cls;
	bool		needs = false;
	WlRelFile	file;

	if (!HeapTupleIsValid(tup))
		return true;			/* dropped (or not visible): ask core */
	cls = (Form_pg_class) GETSTRUCT(tup);
	if (!RELKIND_HAS_STORAGE(cls->relkind) || cls->relpersistence == RELPERSISTENCE_TEMP)
		needs = (k != NULL);	/* had a file, has none now */
	else if (!wl_sizing_class_file(relid, cls, &file))
		needs = true;
	else if (k != NULL)
		needs = !WlRelFileEquals(k->file, file);
	else if (cls->relfilenode == relid && !(tup->t_data->t_infomask & HEAP_UPDATED) &&
			 TransactionIdIsCurrentTransactionId(HeapTupleHeaderGetXmin(tup->t_data)))
	{
		bool		found;

		*created |= note_new_file(created_files, file, stmt_no,
								  XLogIsNeeded() ? NULL : skipping);
		wl_rels_insert(known_rels, relid, &found)->file = file;
	}
	else
		needs = true;
	ReleaseSysCache(tup);
	return needs;
}

/*
 * Note which statement created or doomed files; core's lists read only when
 * known_rels cannot explain a change (O(N^2) over N CREATE TABLEs).  A
 * top_level statement outside a transaction block leaves them owed.
 */
void
wl_model_read_pending_changes(int32 stmt_no, bool top_level, WlEffects *eff)
{
	bool		created = false,
				doomed = false,
				skipping = false,
				needs_lists = changed_all;

	/* the commit's reading names its files: held, as if it had changed some */
	if (top_level && stmt_no >= 0 && XLogIsNeeded() && (changed_all || n_changed_rels > 0) &&
		!IsTransactionBlock())
	{
		owed_stmt = stmt_no;
		eff->storage = true;
		return;
	}
	ensure_model_state();
	/* with few files the lists cost less; known_rels is caught up later */
	if (n_changed_rels > 0 &&
		created_files->members + doomed_files->members < WL_LISTS_CHEAP)
	{
		needs_lists = true;
		n_changed_rels = 0;		/* nothing to remember */
	}
	for (int i = 0; i < n_changed_rels && !needs_lists; i++)
		needs_lists = change_needs_lists(changed_rels[i], stmt_no, &created, &skipping);
	if (needs_lists)
	{
		/* an invalidation while they are read leaves them not kept */
		if (kept_cxt == NULL)
			kept_cxt = AllocSetContextCreate(TopMemoryContext, "walload pending lists",
											 ALLOCSET_SMALL_SIZES);
		MemoryContextReset(kept_cxt);
		memset(&kept, 0, sizeof(kept));
		kept.valid = true;
		kept.subxact = GetCurrentSubTransactionId();
		kept.xid = GetTopTransactionIdIfAny();
		kept.xact_start = GetCurrentTransactionStartTimestamp();
		created |= note_new_files(false, created_files, stmt_no,
								  XLogIsNeeded() ? NULL : &skipping);
		doomed = note_new_files(true, doomed_files, stmt_no, NULL);
		/* the lists read: remember the changed relations' files */
		for (int i = 0; i < n_changed_rels; i++)
		{
			WlRelFile	file;
			bool		found;

			if (wl_model_relation_file(changed_rels[i], &file, NULL, NULL))
				wl_rels_insert(known_rels, changed_rels[i], &found)->file = file;
			else
				(void) wl_rels_delete(known_rels, changed_rels[i]);
		}
	}
	n_changed_rels = 0;
	changed_all = false;
	eff->storage |= created || doomed;
	eff->wal_skipped |= skipping;
}

/* a statement that may change core's lists starts: read what is owed */
void
wl_model_settle(void)
{
	WlEffects	eff;
	int32		stmt_no = owed_stmt;

	if (stmt_no < 0)
		return;
	owed_stmt = -1;
	eff.storage = eff.wal_skipped = false;	/* its end set them */
	wl_model_read_pending_changes(stmt_no, false, &eff);
}

/* the statement a creator map names for file, else the one owed, or -1 */
static int32
creator_in(wl_files_hash *map, const WlRelFile *file)
{
	FileEntry  *fc = map == NULL ? NULL : wl_files_lookup(map, *file);

	return fc ? fc->v.stmt_no : owed_stmt;
}

#define in_map(map, file)	((map) != NULL && wl_files_lookup((map), *(file)) != NULL)

/*
 * The first statement map names for files, or -1; each's into out if asked
 * (out may overlay files: out[i] is written after files[i] is read).
 */
static int32
min_creator(wl_files_hash *map, WlRelFile *files, int n, int32 *out)
{
	int32		best = -1;

	for (int i = 0; i < n; i++)
	{
		int32		c = creator_in(map, &files[i]);

		if (out)
			out[i] = c;
		if (c >= 0 && (best < 0 || c < best))
			best = c;
	}
	return best;
}

#define file_in_sorted(file, files, n) \
	((n) > 0 && bsearch(&(file), (files), (n), sizeof(WlRelFile), wl_relfile_cmp) != NULL)

/* a sorted copy without duplicates (core syncs a file listed twice once) */
static WlRelFile *
sorted_copy(const WlRelFile *list, int *n)
{
	WlRelFile  *copy = palloc(sizeof(WlRelFile) * Max(*n, 1));
	int			k = 0;

	for (int i = 0; i < *n; i++)	/* newest first: reversed, mostly sorted */
		copy[i] = list[*n - 1 - i];
	if (*n <= 1)
		return copy;
	qsort(copy, *n, sizeof(WlRelFile), wl_relfile_cmp);
	for (int i = 1; i < *n; i++)
		if (wl_relfile_cmp(&copy[i], &copy[k]) != 0)
			copy[++k] = copy[i];
	*n = k + 1;
	return copy;
}

/*
 * The pending syncs COMMIT will consider (wal_level=minimal), unsized: files
 * created in the transaction that skip WAL and are not doomed, then
 * extra_syncs (a ghost's file not listed again); into kept.syncs.
 */
static void
pending_syncs(const WlCommitFiles *cf)
{
	MemoryContext old = MemoryContextSwitchTo(cf->kept ? kept_cxt : CurrentMemoryContext);
	int			ndoomed = cf->ndoomed,
				ncreated = cf->ncreated;
	WlRelFile  *doomed = sorted_copy(cf->doomed, &ndoomed);
	WlRelFile  *created = sorted_copy(cf->created, &ncreated);
	int			all = ncreated + list_length(extra_syncs);
	WlPendingSync *s = palloc(sizeof(WlPendingSync) * Max(all, 1));
	int			n = 0;

	for (int i = 0; i < all; i++)
	{
		ExtraSync  *x = i < ncreated ? NULL : list_nth(extra_syncs, i - ncreated);
		WlRelFile	f = x ? x->file : created[i];

		if (!WlSkippingWAL(f) || file_in_sorted(f, doomed, ndoomed) ||
			(x && x->ghost && file_in_sorted(f, created, ncreated)))
			continue;
		s[n].file = f;
		s[n].relpages = (x && x->ghost) ? -1 : -2;
		s[n].truncated = x ? x->truncated : in_map(truncated_files, &f);
		s[n].creator = x ? x->creator : creator_in(created_files, &f);
		n++;
	}
	pfree(created);
	pfree(doomed);
	if (kept.syncs != NULL)
		pfree(kept.syncs);
	kept.syncs = s;
	kept.nsyncs = n;
	kept.notes = cf->kept ? MODEL_NOTES() : 0;
	MemoryContextSwitchTo(old);
}

/*
 * The one reading of core's pending lists for a commit, PREPARE or its
 * prediction (the statement's, if nothing changed since); the abort's list
 * with_created or under wal_level=minimal.
 */
void
wl_model_read_commit(bool with_created, bool live, WlCommitFiles *cf)
{
	memset(cf, 0, sizeof(*cf));
	/* kept: still the model's, for the next reading */
	cf->kept = kept.valid && kept.subxact == GetCurrentSubTransactionId() &&
		kept.xid == GetTopTransactionIdIfAny() &&
		kept.xact_start == GetCurrentTransactionStartTimestamp();
	cf->ndoomed = cf->kept ? kept.n[1] : smgrGetPendingDeletes(true, &cf->doomed);
	if (with_created || !XLogIsNeeded())
		cf->ncreated = cf->kept ? kept.n[0] : smgrGetPendingDeletes(false, &cf->created);
	if (cf->kept)
	{
		cf->doomed = kept.files[1];
		cf->created = cf->ncreated > 0 ? kept.files[0] : NULL;	/* if read */
	}
	if (XLogIsNeeded())
		return;
	if (!cf->kept || kept.syncs == NULL || kept.notes != MODEL_NOTES())
		pending_syncs(cf);
	cf->syncs = kept.syncs;
	cf->nsyncs = kept.nsyncs;
	if (!cf->kept)
		kept.syncs = NULL;		/* cf's alone */
	for (int i = 0; i < cf->nsyncs; i++)
	{
		WlPendingSync *s = &cf->syncs[i];

		s->blocks = !live ? (int64) wl_sizing_total_blocks(s->file) :
			s->relpages == -1 ? 0 : (int64) file_live_blocks(s->file, &s->relpages);
	}
}

/* the reading's own lists freed; cf is not read again */
void
wl_model_free_commit(WlCommitFiles *cf)
{
	if (cf->kept)				/* the model's, for the next reading */
		return;
	if (cf->doomed)
		pfree(cf->doomed);
	if (cf->created)
		pfree(cf->created);
	if (cf->syncs)
		pfree(cf->syncs);
}

/* smgrDoPendingSyncs() at wal_skip_threshold = threshold_kb.  Pure. */
void
wl_model_decide_syncs(const WlPendingSync *s, int n, int threshold_kb, WlCommitModel *m)
{
	uint64		threshold_blocks = threshold_kb * (uint64) 1024 / BLCKSZ;

	for (int i = 0; i < n; i++)
	{
		m->wal_skipped_rels++;
		if (s[i].truncated || (uint64) s[i].blocks >= threshold_blocks)
		{
			m->synced_rels++;
			m->synced_blocks += s[i].blocks;
			if (s[i].truncated)
			{
				m->synced_truncated_rels++;
				m->synced_truncated_blocks += s[i].blocks;
			}
			if (s[i].creator >= 0 && (m->sync_stmt_no < 0 || s[i].creator < m->sync_stmt_no))
				m->sync_stmt_no = s[i].creator;
		}
		else
		{
			m->wal_logged_rels++;
			m->wal_logged_blocks += s[i].blocks;
		}
	}
	m->sync_scan = (m->synced_rels > 0);
}

/*
 * What COMMIT (or PREPARE) would do now; live: without a system call.  The
 * statement behind each pending sync, then (not at PREPARE) each deleted
 * file, or -1, into creators if given.
 */
void
wl_model_commit(WlCommitFiles *cf, bool is_prepare, bool live, WlCommitModel *m,
				int32 *creators)
{
	*m = (WlCommitModel) {.sync_stmt_no = -1,.drop_stmt_no = -1};
	/* no pending syncs are read where WAL is needed */
	wl_model_decide_syncs(cf->syncs, cf->nsyncs, wal_skip_threshold, m);
	for (int i = 0; creators != NULL && i < cf->nsyncs; i++)
		creators[i] = cf->syncs[i].creator;

	/* the deletion after commit; at PREPARE it moves to COMMIT PREPARED */
	m->dropped_rels = cf->ndoomed;
	if (cf->ndoomed > 0)
	{
		m->drop_scan = size_doomed(cf->doomed, cf->ndoomed, live, m);
		m->drop_stmt_no = min_creator(doomed_files, cf->doomed, cf->ndoomed,
									  creators && !is_prepare ? creators + cf->nsyncs : NULL);
	}

	/* at PREPARE, ROLLBACK PREPARED's buffers: a bound, no one reads them */
	if (is_prepare)
	{
		WlCommitModel created;

		m->abort_rels = cf->ncreated;
		m->abort_drop_scan = size_doomed(cf->created, cf->ncreated, false, &created);
		m->abort_buffers = created.dropped_buffers;
	}
}

/*
 * A pending sync core lists nowhere, if it skips WAL: a ghost (an aborted
 * subxact's deleted file, whose sync core keeps until commit) or a new
 * database's file.  On the abort path too: model_cxt's block is the reserve.
 */
static void
note_extra_sync(WlRelFile file, bool ghost)
{
	MemoryContext old;
	ExtraSync  *x;

	if (!WlSkippingWAL(file))
		return;
	old = MemoryContextSwitchTo(model_cxt);
	x = palloc(sizeof(ExtraSync));
	x->file = file;
	x->ghost = ghost;
	x->truncated = ghost && in_map(truncated_files, &file);
	x->creator = ghost ? creator_in(created_files, &file) : -1;
	extra_syncs = lappend(extra_syncs, x);
	MemoryContextSwitchTo(old);
}

/*
 * The one reading of core's list at an abort: no file I/O, no allocation but
 * core's list; each file has its main fork, so core walks iff it is not
 * empty.  ab->creators overlays core's list; the caller pfrees it.
 */
StaticAssertDecl(sizeof(WlRelFile) >= sizeof(int32),
				 "a file's creator must fit in its place in core's list");

void
wl_model_read_abort(bool subxact, int64 max_buffers, bool want_creators, WlAbortFiles *ab)
{
	WlRelFile  *files;
	int			n = smgrGetPendingDeletes(false, &files);

	*ab = (WlAbortFiles) {.nrels = n,.scan = n > 0};
	for (int i = 0; subxact && !XLogIsNeeded() && i < n; i++)
		note_extra_sync(files[i], true);
	if (n > 0 && max_buffers > 0)
		ab->buffers = Min(wl_sizing_owned_buffers(InvalidOid, files, n, &ab->pages_mapped), max_buffers);
	if (want_creators && n > 0)
		ab->creators = (int32 *) files;
	ab->first_creator = min_creator(created_files, files, n, ab->creators);
	if (ab->creators == NULL && files)
		pfree(files);
}

/* TRUNCATE in place: such a pending sync is synced whatever its size */
void
wl_model_note_truncated_in_place(List *files)
{
	ListCell   *lc;

	ensure_model_state();
	foreach(lc, files)
	{
		WlRelFile  *f = lfirst(lc);
		bool		found;

		if (WlSkippingWAL(*f))
			(void) wl_files_insert(truncated_files, *f, &found);
		(void) wl_files_delete(seen_sizes, *f);
	}
}

/* CREATE DATABASE under wal_level=minimal: true if a file of it skips WAL */
bool
wl_model_note_created_database(const char *dbname)
{
	Oid			dboid = get_database_oid(dbname, true);
	Relation	spcrel;
	TableScanDesc scan;
	HeapTuple	tup;
	bool		skipping = false;

	if (!OidIsValid(dboid) || XLogIsNeeded())
		return false;

	spcrel = table_open(TableSpaceRelationId, AccessShareLock);
	scan = table_beginscan_catalog(spcrel, 0, NULL);
	while ((tup = heap_getnext(scan, ForwardScanDirection)) != NULL)
	{
		Oid			spcoid = ((Form_pg_tablespace) GETSTRUCT(tup))->oid;
		char	   *path;
		DIR		   *dir;
		struct dirent *de;

		if (spcoid == GLOBALTABLESPACE_OID)
			continue;
		path = GetDatabasePath(dboid, spcoid);
		dir = AllocateDir(path);
		while (dir != NULL && (de = ReadDirExtended(dir, path, LOG)) != NULL)
		{
			char	   *end;
			unsigned long num;
			WlRelFile	file;

			/* main fork files only: "12345" or "12345.1" */
			num = strtoul(de->d_name, &end, 10);
			if (!isdigit((unsigned char) de->d_name[0]) || *end != '\0')
				continue;
			WL_REL_SPC(file) = spcoid;
			WL_REL_DB(file) = dboid;
			WL_REL_NUMBER(file) = (Oid) num;
			skipping |= WlSkippingWAL(file);
			note_extra_sync(file, false);
		}
		if (dir)
			FreeDir(dir);
		pfree(path);
	}
	table_endscan(scan);
	table_close(spcrel, AccessShareLock);
	return skipping;
}

/* Does this relation's current file skip WAL (minimal, new in this xact)? */
bool
wl_model_relation_skips_wal(Relation rel)
{
	if (XLogIsNeeded() || rel->rd_rel->relpersistence != RELPERSISTENCE_PERMANENT)
		return false;
	return WlSkippingWAL(WlRelationFile(rel));
}
