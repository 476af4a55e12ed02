/*-------------------------------------------------------------------------
 *
 * compat.h
 *		Every difference between the PostgreSQL major versions walload
 *		builds against lives here, and nowhere else.
 *
 * The rest of the code is written against PostgreSQL 15's names; the
 * macros below map them onto the running version.
 *
 *-------------------------------------------------------------------------
 */
#ifndef WALLOAD_COMPAT_H
#define WALLOAD_COMPAT_H

#include "postgres.h"

#if PG_VERSION_NUM < 150000
#error "walload requires PostgreSQL 15 or later"
#endif

#include "catalog/storage.h"
#if PG_VERSION_NUM >= 160000
#include "nodes/queryjumble.h"
#else
#include "utils/queryjumble.h"
#endif
#include "storage/smgr.h"
#include "tcop/utility.h"

/* --- relation file identity: RelFileNode (15) / RelFileLocator (16+) --- */
#if PG_VERSION_NUM >= 160000
#include "storage/relfilelocator.h"
typedef RelFileLocator WlRelFile;
#define WL_REL_SPC(r)				((r).spcOid)
#define WL_REL_DB(r)				((r).dbOid)
#define WL_REL_NUMBER(r)			((r).relNumber)
#define WlRelFileEquals(a, b)		RelFileLocatorEquals(a, b)
#define WlRelationFile(rel)			((rel)->rd_locator)
#define WlSkippingWAL(r)			RelFileLocatorSkippingWAL(r)
#define WlSmgrFile(srel)			((srel)->smgr_rlocator.locator)
#else
#include "storage/relfilenode.h"
typedef RelFileNode WlRelFile;
#define WL_REL_SPC(r)				((r).spcNode)
#define WL_REL_DB(r)				((r).dbNode)
#define WL_REL_NUMBER(r)			((r).relNode)
#define WlRelFileEquals(a, b)		RelFileNodeEquals(a, b)
#define WlRelationFile(rel)			((rel)->rd_node)
#define WlSkippingWAL(r)			RelFileNodeSkippingWAL(r)
#define WlSmgrFile(srel)			((srel)->smgr_rnode.node)
#endif

/* relation file number of a mapped (system catalog) relation */
#if PG_VERSION_NUM >= 160000
#define WlRelationMapOidToFile(relid, shared)	RelationMapOidToFilenumber(relid, shared)
#else
#define WlRelationMapOidToFile(relid, shared)	RelationMapOidToFilenode(relid, shared)
#endif

/* the buffer tag of a block of a relation file */
#if PG_VERSION_NUM >= 160000
#define WlInitBufferTag(tag, file, fork, block)	InitBufferTag(&(tag), &(file), (fork), (block))
#else
#define WlInitBufferTag(tag, file, fork, block)	INIT_BUFFERTAG((tag), (file), (fork), (block))
#endif

/* does a buffer header hold a block of this relation file (unlocked pre-check) */
#if PG_VERSION_NUM >= 160000
#define WlBufTagMatches(buf, file)	BufTagMatchesRelFileLocator(&(buf)->tag, &(file))
#else
#define WlBufTagMatches(buf, file)	RelFileNodeEquals((buf)->tag.rnode, (file))
#endif

/* the relation file of a buffer header's block (unlocked, as core's pre-check) */
#if PG_VERSION_NUM >= 160000
#define WlBufTagFile(buf)		BufTagGetRelFileLocator(&(buf)->tag)
#else
#define WlBufTagFile(buf)		((buf)->tag.rnode)
#endif

/* the database of a buffer header's block (unlocked, as core's pre-check) */
#if PG_VERSION_NUM >= 160000
#define WlBufTagDatabase(buf)	((buf)->tag.dbOid)
#else
#define WlBufTagDatabase(buf)	((buf)->tag.rnode.dbNode)
#endif

/*
 * Core's drop of one relation's buffers (DropRelFileNodeBuffers, 16+
 * DropRelationBuffers).  Outside recovery it cannot know the fork sizes, so
 * it walks every buffer header with its unlocked pre-check: the calibration
 * times exactly that walk for a file no buffer holds.
 */
#if PG_VERSION_NUM >= 170000
#define WL_INVALID_BACKEND			INVALID_PROC_NUMBER
#else
#define WL_INVALID_BACKEND			InvalidBackendId
#endif
#if PG_VERSION_NUM >= 160000
#define WlSmgrBackend(srel)			((srel)->smgr_rlocator.backend)
#define WlDropRelationBuffers(srel, forks, n, first) \
	DropRelationBuffers((srel), (forks), (n), (first))
#define WlDropRelationsAllBuffers(srels, n)	DropRelationsAllBuffers((srels), (n))
#else
#define WlSmgrBackend(srel)			((srel)->smgr_rnode.backend)
#define WlDropRelationBuffers(srel, forks, n, first) \
	DropRelFileNodeBuffers((srel), (forks), (n), (first))
#define WlDropRelationsAllBuffers(srels, n)	DropRelFileNodesAllBuffers((srels), (n))
#endif

/*
 * This backend's slot among MaxBackends (walload_activity): 17+ numbers the
 * PGPROCs from 0, 15-16 the backends from 1.  -1 where there is none.
 */
#if PG_VERSION_NUM >= 170000
#define WL_MY_BACKEND_SLOT()		((int) MyProcNumber)
#else
#define WL_MY_BACKEND_SLOT()		(MyBackendId == InvalidBackendId ? -1 : (int) MyBackendId - 1)
#endif

/* the directory of temporary files (base/pgsql_tmp): 17+ name it in file_utils.h */
#include "storage/fd.h"
#ifndef PG_TEMP_FILES_DIR
#include "common/file_utils.h"
#endif

/* the path of a fork of a permanent relation file, into buf[MAXPGPATH] */
#if PG_VERSION_NUM >= 180000
#define WlForkPath(file, fork, buf) \
	strlcpy((buf), relpathperm((file), (fork)).str, MAXPGPATH)
#else
#define WlForkPath(file, fork, buf) \
	do { \
		char	   *path_ = relpathperm((file), (fork)); \
		strlcpy((buf), path_, MAXPGPATH); \
		pfree(path_); \
	} while (0)
#endif

/* smgropen() of a permanent relation file */
#if PG_VERSION_NUM >= 170000
#define WlSmgrOpen(r)				smgropen((r), INVALID_PROC_NUMBER)
#else
#define WlSmgrOpen(r)				smgropen((r), InvalidBackendId)
#endif

/* newly assigned relfilenode of a relation created or rewritten in this subxact */
#if PG_VERSION_NUM >= 160000
#define WL_NEW_FILE_SUBID(rel)		((rel)->rd_newRelfilelocatorSubid)
#else
#define WL_NEW_FILE_SUBID(rel)		((rel)->rd_newRelfilenodeSubid)
#endif

/*
 * --- number of command tags: COMMAND_TAG_NEXTTAG ends the enum up to 16; 17
 * dropped it, so count the entries of cmdtaglist.h (an X-macro list) ---
 */
#include "tcop/cmdtag.h"
#if PG_VERSION_NUM >= 170000
#define PG_CMDTAG(...) + 1
enum
{
	WL_NUM_COMMAND_TAGS = 0
#include "tcop/cmdtaglist.h"
};
#undef PG_CMDTAG
#else
#define WL_NUM_COMMAND_TAGS			COMMAND_TAG_NEXTTAG
#endif

/* --- hook signatures --- */
#if PG_VERSION_NUM >= 180000
#define WL_EXECUTOR_RUN_ARGS		QueryDesc *queryDesc, ScanDirection direction, uint64 count
#define WL_EXECUTOR_RUN_PASS		queryDesc, direction, count
#else
#define WL_EXECUTOR_RUN_ARGS		QueryDesc *queryDesc, ScanDirection direction, uint64 count, bool execute_once
#define WL_EXECUTOR_RUN_PASS		queryDesc, direction, count, execute_once
#endif

/*
 * REPACK (19) rewrites a table as CLUSTER and VACUUM FULL do: its time
 * counts as a rewrite.  (In 19 CLUSTER is a RepackStmt that keeps the tag
 * CLUSTER; VACUUM FULL is still a VacuumStmt, tag VACUUM.)  A case label
 * where the tag exists, nothing before.
 */
#if PG_VERSION_NUM >= 190000
#define WL_CASE_CMDTAG_REPACK		case CMDTAG_REPACK:
#else
#define WL_CASE_CMDTAG_REPACK
#endif

/*
 * Query id of a utility statement, computed the way core computes it, for
 * when an extension called before walload zeroed PlannedStmt.queryId
 * (pg_stat_statements does, when it is listed after walload).
 *
 * Core computes it only at parse analysis, for the statements it analyses.
 * Subcommands that ProcessUtilitySlow wraps in PlannedStmts of its own
 * (canSetTag false: the indexes and sequences of a CREATE TABLE, ...) never
 * get one: they stay 0 here too, whatever the load order.
 */
#if PG_VERSION_NUM < 160000
/* 15: a hash of the statement's text (queryjumble.c, compute_utility_query_id) */
#include "common/hashfn.h"
static inline uint64
wl_compute_utility_queryid(PlannedStmt *pstmt, const char *queryString)
{
	int			loc = pstmt->stmt_location;
	int			len = pstmt->stmt_len;
	const char *sql;
	uint64		id;

	if (!pstmt->canSetTag || queryString == NULL)
		return UINT64CONST(0);
	sql = CleanQuerytext(queryString, &loc, &len);
	id = DatumGetUInt64(hash_any_extended((const unsigned char *) sql, len, 0));
	return id == UINT64CONST(0) ? UINT64CONST(2) : id;
}
#else
/*
 * 16+: JumbleQuery() of the Query that parse analysis wraps around a utility
 * statement (transformStmt: commandType CMD_UTILITY, the statement itself;
 * transformTopLevelStmt: its location), which is what core does in
 * parse_analyze_*().  Only the statement tree and commandType take part in
 * the jumble (every other field of that Query is zero or ignored), and the
 * PlannedStmt carries that same tree (pg_plan_queries), unchanged before
 * execution.  A zero hash becomes 2, as in core.
 */
static inline uint64
wl_compute_utility_queryid(PlannedStmt *pstmt, const char *queryString)
{
	Query	   *query;
	JumbleState *jstate;
	uint64		id;

	if (!pstmt->canSetTag || pstmt->utilityStmt == NULL)
		return UINT64CONST(0);
	query = makeNode(Query);
	query->commandType = CMD_UTILITY;
	query->querySource = QSRC_ORIGINAL;
	query->canSetTag = true;
	query->utilityStmt = pstmt->utilityStmt;
	query->stmt_location = pstmt->stmt_location;
	query->stmt_len = pstmt->stmt_len;
	jstate = JumbleQuery(query);
	id = (uint64) query->queryId;
	pfree(jstate->jumble);
	pfree(jstate->clocations);
	pfree(jstate);
	pfree(query);
	return id;
}
#endif

/*
 * The rows of an executor statement, as pg_stat_statements counts them at
 * ExecutorEnd: 16 added es_total_processed, the rows of all its ExecutorRun
 * calls (a cursor fetched several times); es_processed holds the last
 * call's only, which is what 15 counts.
 */
#if PG_VERSION_NUM >= 160000
#define WlExecutorRows(estate)		((estate)->es_total_processed)
#else
#define WlExecutorRows(estate)		((estate)->es_processed)
#endif

/* post_parse_analyze_hook's JumbleState became const in 19 */
#if PG_VERSION_NUM >= 190000
typedef const JumbleState WlHookJumbleState;
#else
typedef JumbleState WlHookJumbleState;
#endif

/*
 * Core's query id for an analysed Query, computed as parse_analyze_*() would
 * have computed it had query ids been enabled: JumbleQuery() takes the
 * statement's text on 15 (a utility statement's id is a hash of it) and the
 * tree alone on 16+.  Its working state is left to the memory context of
 * parse analysis, as core leaves it (a plan cache entry copies the analysed
 * tree into a context of its own).
 *
 * It leaves no global state changed, also when jumbling errors (a stack
 * depth overflow: from 16 on core jumbles a utility statement's raw tree,
 * which parse analysis never walked).  query_id_enabled, left set, would
 * make core compute a query id for every statement of the backend from then
 * on.  The only reader of that flag under JumbleQuery() is its assertion that
 * query ids are enabled, on every version from 15 to 19: so the flag is set
 * only where assertions are compiled in, and put back whatever happens.
 */
static inline void
wl_jumble_query_call(Query *query, const char *sourceText)
{
#if PG_VERSION_NUM >= 160000
	(void) JumbleQuery(query);
#else
	(void) JumbleQuery(query, sourceText);
#endif
}

static inline void
wl_jumble_query(Query *query, const char *sourceText)
{
#ifdef USE_ASSERT_CHECKING
	bool		was_enabled = query_id_enabled;

	query_id_enabled = true;
	PG_TRY();
	{
		wl_jumble_query_call(query, sourceText);
	}
	PG_FINALLY();
	{
		query_id_enabled = was_enabled;
	}
	PG_END_TRY();
#else
	wl_jumble_query_call(query, sourceText);
#endif
}

/* --- buffer usage counters: block I/O timing fields were renamed in 17 --- */
#if PG_VERSION_NUM >= 170000
#define WL_BLK_READ_TIME(bu)		((bu).shared_blk_read_time)
#define WL_BLK_WRITE_TIME(bu)		((bu).shared_blk_write_time)
#else
#define WL_BLK_READ_TIME(bu)		((bu).blk_read_time)
#define WL_BLK_WRITE_TIME(bu)		((bu).blk_write_time)
#endif

/*
 * Counters of the WAL writes and syncs this backend did itself, as
 * cumulative values: walload only ever uses their differences.
 * 15: PendingWalStats (PgStat_WalStats, times in microseconds as counters).
 * 16-17: PendingWalStats (PgStat_PendingWalStats, times as instr_time).
 * 18+: the backend's own I/O statistics (see below).
 */
typedef struct WlWalIo
{
	int64		writes;			/* XLogWrite calls that wrote */
	int64		syncs;			/* WAL fsyncs (issue_xlog_fsync) */
	int64		sync_us;		/* their time, with track_wal_io_timing */
	int64		buffers_full;	/* WAL buffers full: had to write to insert */
} WlWalIo;

/*
 * Bytes of full-page images in the WAL written (WalUsage.wal_fpi_bytes, new
 * in 19): the column wal_fpi_bytes is NULL where the version does not count
 * them.
 */
#if PG_VERSION_NUM >= 190000
#define WL_HAVE_WAL_FPI_BYTES		true
#define WlWalFpiBytes(walusage)		((walusage).wal_fpi_bytes)
#else
#define WL_HAVE_WAL_FPI_BYTES		false
#define WlWalFpiBytes(walusage)		((uint64) 0)
#endif

#if PG_VERSION_NUM >= 180000
/*
 * 18+: XLogWrite() and issue_xlog_fsync() (xlog.c) count the WAL writes and
 * fsyncs as I/O: pgstat_count_io_op_time(IOOBJECT_WAL, IOCONTEXT_NORMAL,
 * IOOP_WRITE / IOOP_FSYNC), timed with track_wal_io_timing alone.  That adds
 * them to two backend-local arrays, both static: PendingIOStats
 * (pgstat_io.c, flushed to pg_stat_io's per-backend-type totals) and
 * PendingBackendStats (pgstat_backend.c, flushed to this backend's own
 * entry, which pg_stat_get_backend_io() reports).  Neither can be read from
 * an extension.
 *
 * What can be read is this backend's shared entry (PGSTAT_KIND_BACKEND,
 * keyed by MyProcNumber), once the pending backend counts are in it:
 * pgstat_flush_backend(false, PGSTAT_BACKEND_FLUSH_IO) moves them there, as
 * walsenders do to keep their entry current.  It leaves PendingIOStats
 * alone, so pg_stat_io reports exactly what it would without walload, and
 * adds nothing to the backend's own totals: pg_stat_get_backend_io() only
 * sees them earlier.  (Its times are kept in whole microseconds and each
 * flush truncates the pending nanoseconds of each counter that has any: a
 * flush walload forces may drop up to 1 us per such counter that a later
 * flush would have kept.)  The entry is read under its lock, directly:
 * pgstat_fetch_stat_backend() would answer from the statistics snapshot
 * under stats_fetch_consistency = cache or snapshot.
 *
 * Flushing costs a pass over every I/O counter, so it is done only when
 * one of ours may have moved.  A WAL write or fsync of ours always moves
 * the shared WAL positions XLogWrite() publishes at its end: a write
 * advances logWriteResult, and the fsync (in XLogWrite(), with or without
 * a write in the same call) advances logFlushResult, as only XLogWrite()
 * does, holding WALWriteLock.  So when both positions are where they were
 * just before our last flush, our counts are still the ones read then.
 * (During recovery, where GetFlushRecPtr() may not be called, every read
 * flushes.)
 *
 * pg_stat_reset_backend_stats() zeroes the entry and sets its reset time:
 * the counts read after a reset are added to those read before it, so
 * walload's differences stay whole (only counts that core flushed in
 * between, while the backend was idle, are lost).
 */
#include "access/xlog.h"
#include "executor/instrument.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "storage/procnumber.h"
#include "utils/pgstat_internal.h"

/* read this backend's WAL write/sync counters; false where none exist */
static inline bool
wl_wal_io_read(WlWalIo *io)
{
	/* one reader: measure.c */
	static bool have_last = false;
	static bool positions_valid = false;
	static XLogRecPtr seen_write;
	static XLogRecPtr seen_flush;
	static TimestampTz seen_reset;
	static WlWalIo base;		/* counts of the entry before its resets */
	static WlWalIo last;
	bool		recovery;
	XLogRecPtr	write = InvalidXLogRecPtr;
	XLogRecPtr	flush = InvalidXLogRecPtr;
	PgStat_EntryRef *ref;
	PgStat_Backend *st;
	TimestampTz reset;
	int64		writes,
				syncs,
				sync_us;

	memset(io, 0, sizeof(*io));
	if (!pgstat_tracks_backend_bktype(MyBackendType))
		return false;
	recovery = RecoveryInProgress();
	if (!recovery)
	{
		flush = GetFlushRecPtr(NULL);
		write = GetXLogWriteRecPtr();
		if (positions_valid && write == seen_write && flush == seen_flush)
		{
			*io = last;
			io->buffers_full = pgWalUsage.wal_buffers_full;
			return true;
		}
	}

	(void) pgstat_flush_backend(false, PGSTAT_BACKEND_FLUSH_IO);
	ref = pgstat_get_entry_ref(PGSTAT_KIND_BACKEND, InvalidOid, MyProcNumber,
							   false, NULL);
	if (ref == NULL)
	{
		positions_valid = false;
		return false;
	}
	(void) pgstat_lock_entry_shared(ref, false);
	st = &((PgStatShared_Backend *) ref->shared_stats)->stats;
	writes = st->io_stats.counts[IOOBJECT_WAL][IOCONTEXT_NORMAL][IOOP_WRITE];
	syncs = st->io_stats.counts[IOOBJECT_WAL][IOCONTEXT_NORMAL][IOOP_FSYNC];
	sync_us = st->io_stats.times[IOOBJECT_WAL][IOCONTEXT_NORMAL][IOOP_FSYNC];
	reset = st->stat_reset_timestamp;
	pgstat_unlock_entry(ref);

	if (have_last && reset != seen_reset)
		base = last;
	last.writes = base.writes + writes;
	last.syncs = base.syncs + syncs;
	last.sync_us = base.sync_us + sync_us;
	seen_reset = reset;
	seen_write = write;
	seen_flush = flush;
	positions_valid = !recovery;
	have_last = true;
	*io = last;
	io->buffers_full = pgWalUsage.wal_buffers_full;
	return true;
}
#else
#include "pgstat.h"
static inline bool
wl_wal_io_read(WlWalIo *io)
{
	io->writes = PendingWalStats.wal_write;
	io->syncs = PendingWalStats.wal_sync;
	io->buffers_full = PendingWalStats.wal_buffers_full;
#if PG_VERSION_NUM >= 160000
	io->sync_us = (int64) INSTR_TIME_GET_MICROSEC(PendingWalStats.wal_sync_time);
#else
	io->sync_us = (int64) PendingWalStats.wal_sync_time;
#endif
	return true;
}
#endif

/*
 * Size of the ring of buffers VACUUM works through, in kB.
 * 15: fixed at 256 kB.  16+: BUFFER_USAGE_LIMIT option, else the
 * vacuum_buffer_usage_limit setting (0: no ring).
 */
#if PG_VERSION_NUM >= 160000
#include "commands/defrem.h"
#include "miscadmin.h"
#include "utils/guc.h"
static inline int
wl_vacuum_ring_kb(List *options)
{
	ListCell   *lc;

	foreach(lc, options)
	{
		DefElem    *opt = lfirst(lc);
		int			kb;

		if (strcmp(opt->defname, "buffer_usage_limit") == 0 &&
			parse_int(defGetString(opt), &kb, GUC_UNIT_KB, NULL))
			return kb;
	}
	return VacuumBufferUsageLimit;
}
#else
static inline int
wl_vacuum_ring_kb(List *options)
{
	return 256;
}
#endif

/*
 * Whether the current transaction gave the setting name a value of its own
 * with SET LOCAL (or SET then SET LOCAL): such a value sits on the
 * setting's GUC stack until the transaction ends.  A value set in a
 * released subtransaction has moved to the transaction's level by then.
 * 15 has no find_option() outside guc.c: its array, searched (only at a
 * commit with pending syncs that the strategy would decide).
 */
#include "utils/guc_tables.h"
static inline bool
wl_guc_set_local(const char *name)
{
	struct config_generic *conf = NULL;

#if PG_VERSION_NUM >= 160000
	conf = find_option(name, false, true, ERROR);
#else
	struct config_generic **vars = get_guc_variables();
	int			n = GetNumConfigOptions();

	for (int i = 0; i < n && conf == NULL; i++)
		if (pg_strcasecmp(vars[i]->name, name) == 0)
			conf = vars[i];
#endif
	if (conf == NULL)
		return false;
	for (GucStack *s = conf->stack; s != NULL; s = s->prev)
		if (s->state == GUC_LOCAL || s->state == GUC_SET_LOCAL)
			return true;
	return false;
}

/*
 * A shared hash table of at most max_size entries.  19: one size, the
 * maximum, and the whole table is allocated at once (the legacy
 * ShmemInitHash, beside the new ShmemRequestHash); the space is the same
 * hash_estimate_size(max_size, entrysize) that was requested.
 */
#include "storage/shmem.h"
#if PG_VERSION_NUM >= 190000
#define WlShmemInitHash(name, init_size, max_size, info, flags) \
	ShmemInitHash((name), (max_size), (info), (flags))
#else
#define WlShmemInitHash(name, init_size, max_size, info, flags) \
	ShmemInitHash((name), (init_size), (max_size), (info), (flags))
#endif

/*
 * Full-scan threshold of the per-block buffer drop path (14+): only taken
 * when every fork size is cached, which smgrnblocks_cached() reports only
 * during recovery.  Normal backends always take the full scan.
 */
#define WL_BUF_DROP_FULL_SCAN_THRESHOLD		((uint64) (NBuffers / 32))

/*
 * What the advice may name: VACUUM's BUFFER_USAGE_LIMIT and
 * vacuum_buffer_usage_limit (16+); pg_stat_checkpointer, which took the
 * checkpoint counts from pg_stat_bgwriter (17+).
 */
#define WL_HAS_BUFFER_USAGE_LIMIT	(PG_VERSION_NUM >= 160000)
#define WL_HAS_STAT_CHECKPOINTER	(PG_VERSION_NUM >= 170000)

/*
 * --- a GUC check hook's "extra": malloc'd (15), allocated in GUC's memory
 * context (16+), where core frees it with pfree ---
 */
#if PG_VERSION_NUM >= 160000
#include "utils/guc.h"
#define WlGucMalloc(size)			guc_malloc(LOG, (size))
#else
#define WlGucMalloc(size)			malloc(size)
#endif

/*
 * Whether this backend's WAL write and sync counters (wl_wal_io_read) are a
 * plain read of its own memory: 15-17 (PendingWalStats).  Only then are they
 * read in core's commit callback, after the commit record, where nothing
 * may fail; 18+ reads them from the shared statistics (a flush, a lock).
 */
#if PG_VERSION_NUM >= 180000
#define WL_WAL_IO_PLAIN_READ		false
#else
#define WL_WAL_IO_PLAIN_READ		true
#endif

/*
 * Whether synchronous standbys are defined, as SyncRepWaitForLSN reads it
 * without a lock: WalSndCtl->sync_standbys_status's SYNC_STANDBY_DEFINED
 * bit since 15.13, 16.9, 17.5 and 18 (a flag word that also says whether
 * the checkpointer has read synchronous_standby_names yet), a bool before.
 */
#include "replication/walsender_private.h"
static inline bool
wl_sync_standbys_defined(void)
{
#ifdef SYNC_STANDBY_DEFINED
	return (((volatile WalSndCtlData *) WalSndCtl)->sync_standbys_status &
			SYNC_STANDBY_DEFINED) != 0;
#else
	return ((volatile WalSndCtlData *) WalSndCtl)->sync_standbys_defined;
#endif
}

/*
 * --- background processes that load (observe.c, wl_observe_worker_xact):
 * a relation file's relation, a lock held, and the names pg_stat_activity
 * gives the processes in backend_type (15-16: one bgw_type for both logical
 * replication workers; 17+: apply and tablesync named apart) ---
 */
#if PG_VERSION_NUM >= 160000
#include "utils/relfilenumbermap.h"
#define WlRelidByFile(file)			RelidByRelfilenumber((file).spcOid, (file).relNumber)
#else
#include "utils/relfilenodemap.h"
#define WlRelidByFile(file)			RelidByRelfilenode((file).spcNode, (file).relNode)
#endif
#if PG_VERSION_NUM >= 170000
#define WlLockHeldByMe(tag, mode)	LockHeldByMe((tag), (mode), false)
#define WL_BKTYPE_APPLY				"logical replication apply worker"
#define WL_BKTYPE_TABLESYNC			"logical replication tablesync worker"
#else
#define WlLockHeldByMe(tag, mode)	LockHeldByMe((tag), (mode))
#define WL_BKTYPE_APPLY				"logical replication worker"
#define WL_BKTYPE_TABLESYNC			"logical replication worker"
#endif
#define WL_BKTYPE_AUTOVACUUM		"autovacuum worker"

/* the end of the remote commit a replaying worker commits (origin's progress) */
#include "replication/origin.h"
#if PG_VERSION_NUM >= 190000
#define WlReplayedOriginLsn()		(replorigin_xact_state.origin_lsn)
#else
#define WlReplayedOriginLsn()		(replorigin_session_origin_lsn)
#endif
#define WL_BKTYPE_CLIENT			"client backend"

#endif							/* WALLOAD_COMPAT_H */
