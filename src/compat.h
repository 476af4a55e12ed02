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

/* does a buffer header hold a block of this relation file (unlocked pre-check) */
#if PG_VERSION_NUM >= 160000
#define WlBufTagMatches(buf, file)	BufTagMatchesRelFileLocator(&(buf)->tag, &(file))
#else
#define WlBufTagMatches(buf, file)	RelFileNodeEquals((buf)->tag.rnode, (file))
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

/* --- buffer usage counters: block I/O timing fields were renamed in 17 --- */
#if PG_VERSION_NUM >= 170000
#define WL_BLK_READ_TIME(bu)		((bu).shared_blk_read_time)
#define WL_BLK_WRITE_TIME(bu)		((bu).shared_blk_write_time)
#else
#define WL_BLK_READ_TIME(bu)		((bu).blk_read_time)
#define WL_BLK_WRITE_TIME(bu)		((bu).blk_write_time)
#endif

/*
 * Backend-local counters of WAL writes and syncs this backend did itself.
 * 15: PendingWalStats (PgStat_WalStats, times in microseconds as counters).
 * 16-17: PendingWalStats (PgStat_PendingWalStats, times as instr_time).
 * 18: removed (moved to pg_stat_io, not readable by extensions).
 */
typedef struct WlWalIo
{
	int64		writes;			/* XLogWrite calls that wrote */
	int64		syncs;			/* WAL fsyncs (issue_xlog_fsync) */
	int64		sync_us;		/* their time, with track_wal_io_timing */
	int64		buffers_full;	/* WAL buffers full: had to write to insert */
} WlWalIo;

/*
 * Whether the WAL I/O columns (wal_writes, wal_syncs, wal_sync_ms) can be
 * filled: a property of the version, the same in every backend.
 */
#if PG_VERSION_NUM >= 180000
#define WL_HAVE_WAL_IO				false
#else
#define WL_HAVE_WAL_IO				true
#endif

/* read this backend's WAL write/sync counters; false where none exist */
#if PG_VERSION_NUM >= 180000
static inline bool
wl_wal_io_read(WlWalIo *io)
{
	memset(io, 0, sizeof(*io));
	return false;
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

/* --- role check for reading other users' rows --- */
#if PG_VERSION_NUM >= 160000
#define WlCanReadAllStats(roleid)	has_privs_of_role((roleid), ROLE_PG_READ_ALL_STATS)
#else
#define WlCanReadAllStats(roleid)	is_member_of_role((roleid), ROLE_PG_READ_ALL_STATS)
#endif

/*
 * Full-scan threshold of the per-block buffer drop path (14+): only taken
 * when every fork size is cached, which smgrnblocks_cached() reports only
 * during recovery.  Normal backends always take the full scan.
 */
#define WL_BUF_DROP_FULL_SCAN_THRESHOLD		((uint64) (NBuffers / 32))

#endif							/* WALLOAD_COMPAT_H */
