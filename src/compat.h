/*-------------------------------------------------------------------------
 *
 * compat.h
 *		Every difference between the PostgreSQL major versions walload
 *		builds against lives here (macros, types) and in compat.c
 *		(functions), and nowhere else.
 *
 * The rest of the code is written against PostgreSQL 15's names.
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
 * Core's drop of one relation's buffers: outside recovery it walks every
 * header (the calibration times that walk for a file no buffer holds).
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
 * This backend's slot among MaxBackends: 17+ numbers PGPROCs from 0, 15-16
 * backends from 1.  -1 where there is none.
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

/*--- number of command tags: 17 dropped COMMAND_TAG_NEXTTAG, so count the
 *entries of cmdtaglist.h ---
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
 * REPACK (19) rewrites a table as CLUSTER and VACUUM FULL do (19's CLUSTER
 * keeps its tag): a case label where the tag exists.
 */
#if PG_VERSION_NUM >= 190000
#define WL_CASE_CMDTAG_REPACK		case CMDTAG_REPACK:
#else
#define WL_CASE_CMDTAG_REPACK
#endif

/*
 * An executor statement's rows as pg_stat_statements counts them: 16+ over
 * all its ExecutorRun calls, 15 the last call's.
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

/* compat.c */
extern uint64 wl_compute_utility_queryid(PlannedStmt *pstmt, const char *queryString);
extern void wl_jumble_query(Query *query, const char *sourceText);
extern int	wl_vacuum_ring_kb(List *options);
extern bool wl_guc_set_local(const char *name);

/* --- buffer usage counters: block I/O timing fields were renamed in 17 --- */
#if PG_VERSION_NUM >= 170000
#define WL_BLK_READ_TIME(bu)		((bu).shared_blk_read_time)
#define WL_BLK_WRITE_TIME(bu)		((bu).shared_blk_write_time)
#else
#define WL_BLK_READ_TIME(bu)		((bu).blk_read_time)
#define WL_BLK_WRITE_TIME(bu)		((bu).blk_write_time)
#endif

/*
 * Counters of the WAL writes and syncs this backend did itself, cumulative
 * (only differences are used): PendingWalStats up to 17, the backend's own
 * I/O statistics from 18 (compat.c).
 */
typedef struct WlWalIo
{
	int64		writes;			/* XLogWrite calls that wrote */
	int64		syncs;			/* WAL fsyncs (issue_xlog_fsync) */
	int64		sync_us;		/* their time, with track_wal_io_timing */
	int64		buffers_full;	/* WAL buffers full: had to write to insert */
} WlWalIo;

/*
 * Read this backend's WAL write/sync counters; false where none exist.
 * 15-17: a plain read, inline (on the statement's path); 18+: compat.c.
 */
#if PG_VERSION_NUM >= 180000
extern bool wl_wal_io_read(WlWalIo *io);
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
 * Whether synchronous standbys are defined, read without a lock as
 * SyncRepWaitForLSN does (a bit of sync_standbys_status since 15.13, 16.9,
 * 17.5 and 18), at every commit.
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

/* Bytes of full-page images in the WAL (19+; NULL in the views before). */
#if PG_VERSION_NUM >= 190000
#define WL_HAVE_WAL_FPI_BYTES		true
#define WlWalFpiBytes(walusage)		((walusage).wal_fpi_bytes)
#else
#define WL_HAVE_WAL_FPI_BYTES		false
#define WlWalFpiBytes(walusage)		((uint64) 0)
#endif

/*
 * A shared hash table of at most max_size entries: 19 takes one size and
 * allocates it all at once (the same hash_estimate_size as requested).
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
 * Full-scan threshold of the per-block drop path: taken only with every fork
 * size cached, which happens only in recovery.
 */
#define WL_BUF_DROP_FULL_SCAN_THRESHOLD		((uint64) (NBuffers / 32))

/*
 * What the advice may name: BUFFER_USAGE_LIMIT (16+), pg_stat_checkpointer
 * (17+).
 */
#define WL_HAS_BUFFER_USAGE_LIMIT	(PG_VERSION_NUM >= 160000)
#define WL_HAS_STAT_CHECKPOINTER	(PG_VERSION_NUM >= 170000)

/*--- a GUC check hook's "extra": malloc'd (15), in GUC's memory context
 *(16+) ---
 */
#if PG_VERSION_NUM >= 160000
#include "utils/guc.h"
#define WlGucMalloc(size)			guc_malloc(LOG, (size))
#else
#define WlGucMalloc(size)			malloc(size)
#endif

/*
 * Whether wl_wal_io_read is a plain read of backend memory (15-17), which
 * core's commit callback may do where nothing may fail; 18+ flushes and
 * locks.
 */
#if PG_VERSION_NUM >= 180000
#define WL_WAL_IO_PLAIN_READ		false
#else
#define WL_WAL_IO_PLAIN_READ		true
#endif

/*--- background processes that load (observe.c): a file's relation, a lock
 *held, and their backend_type (17+ names apply and tablesync apart) ---
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
