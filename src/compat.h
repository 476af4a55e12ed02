/*-------------------------------------------------------------------------
 *
 * compat.h
 *		Every difference between the PostgreSQL major versions walload
 *		builds against: macros and types here, functions in compat.c.  The
 *		rest of the code is written against PostgreSQL 15's names.
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
#include "replication/origin.h"
#include "replication/walsender_private.h"
#include "storage/shmem.h"
#include "storage/smgr.h"
#include "tcop/cmdtag.h"
#include "tcop/utility.h"
/* base/pgsql_tmp's name: 17+ give it in file_utils.h */
#include "storage/fd.h"
#ifndef PG_TEMP_FILES_DIR
#include "common/file_utils.h"
#endif

/*
 * 16: RelFileNode became RelFileLocator.  The buffer tag macros read a
 * header unlocked, as core's pre-check does.  WlExecutorRows: rows as
 * pg_stat_statements counts them, 16+ over all ExecutorRun calls, 15 the
 * last call's.  WlGucMalloc: a GUC check hook's "extra".
 */
#if PG_VERSION_NUM >= 160000
#include "storage/relfilelocator.h"
#include "utils/guc.h"
#include "utils/relfilenumbermap.h"
typedef RelFileLocator WlRelFile;
#define WL_REL_SPC(r)				((r).spcOid)
#define WL_REL_DB(r)				((r).dbOid)
#define WL_REL_NUMBER(r)			((r).relNumber)
#define WlRelFileEquals(a, b)		RelFileLocatorEquals(a, b)
#define WlRelationFile(rel)			((rel)->rd_locator)
#define WlSkippingWAL(r)			RelFileLocatorSkippingWAL(r)
#define WlSmgrFile(srel)			((srel)->smgr_rlocator.locator)
#define WlSmgrBackend(srel)			((srel)->smgr_rlocator.backend)
#define WlRelationMapOidToFile(relid, shared)	RelationMapOidToFilenumber(relid, shared)
#define WlInitBufferTag(tag, file, fork, block)	InitBufferTag(&(tag), &(file), (fork), (block))
#define WlBufTagMatches(buf, file)	BufTagMatchesRelFileLocator(&(buf)->tag, &(file))
#define WlBufTagFile(buf)		BufTagGetRelFileLocator(&(buf)->tag)
#define WlBufTagDatabase(buf)	((buf)->tag.dbOid)
#define WlDropRelationBuffers(srel, forks, n, first) \
	DropRelationBuffers((srel), (forks), (n), (first))
#define WlDropRelationsAllBuffers(srels, n)	DropRelationsAllBuffers((srels), (n))
#define WL_NEW_FILE_SUBID(rel)		((rel)->rd_newRelfilelocatorSubid)
#define WlExecutorRows(estate)		((estate)->es_total_processed)
#define WlGucMalloc(size)			guc_malloc(LOG, (size))
#define WlRelidByFile(file)			RelidByRelfilenumber((file).spcOid, (file).relNumber)
#else
#include "storage/relfilenode.h"
#include "utils/relfilenodemap.h"
typedef RelFileNode WlRelFile;
#define WL_REL_SPC(r)				((r).spcNode)
#define WL_REL_DB(r)				((r).dbNode)
#define WL_REL_NUMBER(r)			((r).relNode)
#define WlRelFileEquals(a, b)		RelFileNodeEquals(a, b)
#define WlRelationFile(rel)			((rel)->rd_node)
#define WlSkippingWAL(r)			RelFileNodeSkippingWAL(r)
#define WlSmgrFile(srel)			((srel)->smgr_rnode.node)
#define WlSmgrBackend(srel)			((srel)->smgr_rnode.backend)
#define WlRelationMapOidToFile(relid, shared)	RelationMapOidToFilenode(relid, shared)
#define WlInitBufferTag(tag, file, fork, block)	INIT_BUFFERTAG((tag), (file), (fork), (block))
#define WlBufTagMatches(buf, file)	RelFileNodeEquals((buf)->tag.rnode, (file))
#define WlBufTagFile(buf)		((buf)->tag.rnode)
#define WlBufTagDatabase(buf)	((buf)->tag.rnode.dbNode)
#define WlDropRelationBuffers(srel, forks, n, first) \
	DropRelFileNodeBuffers((srel), (forks), (n), (first))
#define WlDropRelationsAllBuffers(srels, n)	DropRelFileNodesAllBuffers((srels), (n))
#define WL_NEW_FILE_SUBID(rel)		((rel)->rd_newRelfilenodeSubid)
#define WlExecutorRows(estate)		((estate)->es_processed)
#define WlGucMalloc(size)			malloc(size)
#define WlRelidByFile(file)			RelidByRelfilenode((file).spcNode, (file).relNode)
#endif

/*
 * 17: BackendId became ProcNumber.  WL_MY_BACKEND_SLOT: this backend's slot
 * among MaxBackends, -1 where there is none (17+ number PGPROCs from 0,
 * 15-16 backends from 1).  WL_NUM_COMMAND_TAGS: 17 dropped
 * COMMAND_TAG_NEXTTAG, so cmdtaglist.h's entries are counted.
 */
#if PG_VERSION_NUM >= 170000
#define WL_INVALID_BACKEND			INVALID_PROC_NUMBER
#define WL_MY_BACKEND_SLOT()		((int) MyProcNumber)
#define WlSmgrOpen(r)				smgropen((r), INVALID_PROC_NUMBER)
#define PG_CMDTAG(...) + 1
enum
{
	WL_NUM_COMMAND_TAGS = 0
#include "tcop/cmdtaglist.h"
};
#undef PG_CMDTAG
#define WlLockHeldByMe(tag, mode)	LockHeldByMe((tag), (mode), false)
#define WL_BKTYPE_APPLY				"logical replication apply worker"
#define WL_BKTYPE_TABLESYNC			"logical replication tablesync worker"
#else
#define WL_INVALID_BACKEND			InvalidBackendId
#define WL_MY_BACKEND_SLOT()		(MyBackendId == InvalidBackendId ? -1 : (int) MyBackendId - 1)
#define WlSmgrOpen(r)				smgropen((r), InvalidBackendId)
#define WL_NUM_COMMAND_TAGS			COMMAND_TAG_NEXTTAG
#define WlLockHeldByMe(tag, mode)	LockHeldByMe((tag), (mode))
#define WL_BKTYPE_APPLY				"logical replication worker"
#define WL_BKTYPE_TABLESYNC			"logical replication worker"
#endif
#define WL_BKTYPE_AUTOVACUUM		"autovacuum worker"
#define WL_BKTYPE_CLIENT			"client backend"

/* the advice may name BUFFER_USAGE_LIMIT (16+), pg_stat_checkpointer (17+) */
#define WL_HAS_BUFFER_USAGE_LIMIT	(PG_VERSION_NUM >= 160000)
#define WL_HAS_STAT_CHECKPOINTER	(PG_VERSION_NUM >= 170000)

/*
 * This backend's own WAL writes and syncs, cumulative: PendingWalStats up to
 * 17, a plain read core's commit callback may do (WL_WAL_IO_PLAIN_READ);
 * the backend's I/O statistics from 18, which flushes and locks.
 */
typedef struct WlWalIo
{
	int64		writes;			/* XLogWrite calls that wrote */
	int64		syncs;			/* WAL fsyncs (issue_xlog_fsync) */
	int64		sync_us;		/* their time, with track_wal_io_timing */
} WlWalIo;

/* 18: ExecutorRun lost execute_once; relpathperm returns a struct */
#if PG_VERSION_NUM >= 180000
#define WL_EXECUTOR_RUN_ARGS		QueryDesc *queryDesc, ScanDirection direction, uint64 count
#define WL_EXECUTOR_RUN_PASS		queryDesc, direction, count
#define WlForkPath(file, fork, buf) \
	strlcpy((buf), relpathperm((file), (fork)).str, MAXPGPATH)
#define WL_WAL_IO_PLAIN_READ		false
extern bool wl_wal_io_read(WlWalIo *io);
#else
#include "pgstat.h"
#define WL_EXECUTOR_RUN_ARGS		QueryDesc *queryDesc, ScanDirection direction, uint64 count, bool execute_once
#define WL_EXECUTOR_RUN_PASS		queryDesc, direction, count, execute_once
#define WlForkPath(file, fork, buf) \
	do { \
		char	   *path_ = relpathperm((file), (fork)); \
		strlcpy((buf), path_, MAXPGPATH); \
		pfree(path_); \
	} while (0)
#define WL_WAL_IO_PLAIN_READ		true
static inline bool
wl_wal_io_read(WlWalIo *io)
{
	io->writes = PendingWalStats.wal_write;
	io->syncs = PendingWalStats.wal_sync;
#if PG_VERSION_NUM >= 160000
	io->sync_us = (int64) INSTR_TIME_GET_MICROSEC(PendingWalStats.wal_sync_time);
#else
	io->sync_us = (int64) PendingWalStats.wal_sync_time;
#endif
	return true;
}
#endif

/*
 * 19: REPACK rewrites as CLUSTER does; JumbleState is const in the hook;
 * full-page image bytes are counted; a shared hash table is allocated at
 * its maximum size; the replaying worker's origin LSN moved; log_min_messages
 * is per process type (WlDebugMayOutput: false only where elog outputs none).
 */
#if PG_VERSION_NUM >= 190000
#define WL_CASE_CMDTAG_REPACK		case CMDTAG_REPACK:
typedef const JumbleState WlHookJumbleState;
#define WL_HAVE_WAL_FPI_BYTES		true
#define WlWalFpiBytes(walusage)		((walusage).wal_fpi_bytes)
#define WlShmemInitHash(name, init_size, max_size, info, flags) \
	ShmemInitHash((name), (max_size), (info), (flags))
#define WlReplayedOriginLsn()		(replorigin_xact_state.origin_lsn)
#define WlDebugMayOutput(level)		message_level_is_interesting(level)
#else
#define WL_CASE_CMDTAG_REPACK
typedef JumbleState WlHookJumbleState;
#define WL_HAVE_WAL_FPI_BYTES		false
#define WlWalFpiBytes(walusage)		((uint64) 0)
#define WlShmemInitHash(name, init_size, max_size, info, flags) \
	ShmemInitHash((name), (init_size), (max_size), (info), (flags))
#define WlReplayedOriginLsn()		(replorigin_session_origin_lsn)
#define WlDebugMayOutput(level)	(log_min_messages <= (level) || client_min_messages <= (level))
#endif

/*
 * Whether synchronous standbys are defined, read without a lock as
 * SyncRepWaitForLSN does (a bit of sync_standbys_status since 15.13, 16.9,
 * 17.5 and 18), at every commit.
 */
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

/* the per-block drop path's full-scan threshold: taken only in recovery */
#define WL_BUF_DROP_FULL_SCAN_THRESHOLD		((uint64) (NBuffers / 32))

/* compat.c */
extern uint64 wl_compute_utility_queryid(PlannedStmt *pstmt, const char *queryString);
extern void wl_jumble_query(Query *query, const char *sourceText);
extern int	wl_vacuum_ring_kb(List *options);
extern bool wl_guc_set_local(const char *name);

#endif							/* WALLOAD_COMPAT_H */
