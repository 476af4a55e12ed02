/*-------------------------------------------------------------------------
 *
 * model.h
 *		Mirrors of core's pending-file lists and its commit and abort
 *		decisions (model.c), and the effects a statement had that core
 *		does not report, as the model and observe.c return them.
 *
 *-------------------------------------------------------------------------
 */
#ifndef WALLOAD_MODEL_H
#define WALLOAD_MODEL_H

#include "sizing.h"

#include "access/twophase.h"
#include "utils/rel.h"

/* n walks of one kind by a statement, each comparing nfiles files */
typedef struct WlScanBatch
{
	int64		n;
	int32		nfiles;
	int64		invalidated;	/* buffers the walks find and invalidate */
} WlScanBatch;

/* what a statement did that core does not report; the accumulator applies it */
typedef struct WlEffects
{
	WlScanBatch scans[WL_NUM_SCAN_KINDS];
	bool		scanned;		/* any scans[].n above 0 */
	bool		wal_skipped;	/* wrote into a relation file that skips WAL */
	bool		storage;		/* created relation files or scheduled their
								 * deletion: may receive commit-time scans */
	bool		vacuum;			/* a VACUUM: the three below are set */
	int			vacuum_ring_kb;
	int64		vacuum_pages;
	int64		vacuum_pages_removed;
	bool		finish_prepared;	/* COMMIT / ROLLBACK PREPARED gid */
	bool		commit_prepared;
	char		gid[GIDSIZE];
} WlEffects;

/* count n scans of kind, each comparing nfiles files */
static inline void
wl_effects_add_scans(WlEffects *eff, WlScanKind kind, int64 n, int nfiles)
{
	if (n <= 0)
		return;
	eff->scans[kind].n += n;
	eff->scanned = true;
	eff->scans[kind].nfiles = nfiles;
}

/* the walks of kind counted so far also invalidate buffers */
static inline void
wl_effects_add_invalidated(WlEffects *eff, WlScanKind kind, int64 buffers)
{
	eff->scans[kind].invalidated += Max(buffers, 0);
}

/* module start, transaction end */
extern void wl_model_register(void);
extern void wl_model_xact_end(void);

/* what statements changed in the pending lists */
extern void wl_model_read_pending_changes(int32 stmt_no, bool top_level, WlEffects *eff);
extern void wl_model_settle(void);
extern void wl_model_note_truncated_in_place(List *files);
extern void wl_model_note_doomed(Oid relid, bool with_dependents);
extern void wl_model_note_created(Oid relid);
extern bool wl_model_note_created_database(const char *dbname);

/* a pending sync COMMIT considers (wal_level=minimal) */
typedef struct WlPendingSync
{
	WlRelFile	file;
	int64		blocks;			/* over all forks */
	bool		truncated;		/* truncated in place: synced whatever its size */
	int32		creator;		/* statement that created it, or -1 */
	int64		relpages;		/* model.c's: -1 a ghost's, -2 not read */
} WlPendingSync;

/* one reading of core's pending lists at a commit (wl_model_read_commit) */
typedef struct WlCommitFiles
{
	WlRelFile  *doomed;			/* files COMMIT deletes, as core lists them */
	int			ndoomed;
	WlRelFile  *created;		/* files an abort deletes (if read) */
	int			ncreated;
	WlPendingSync *syncs;		/* pending syncs (wal_level=minimal) */
	int			nsyncs;
	bool		kept;			/* doomed, created, syncs: the model's */
} WlCommitFiles;

/* one reading of core's list at an abort (wl_model_read_abort) */
typedef struct WlAbortFiles
{
	int32		nrels;			/* files deleted */
	bool		scan;			/* their deletion walks the pool */
	int64		buffers;		/* their buffers, bounded (max_buffers > 0) */
	int64		pages_mapped;	/* header pages the count mapped */
	int32		first_creator;	/* first statement that created one, or -1 */
	int32	   *creators;		/* per file (want_creators), or NULL */
} WlAbortFiles;

/* core's decisions at commit and abort */
extern void wl_model_read_commit(bool with_created, bool live, WlCommitFiles *cf);
extern void wl_model_free_commit(WlCommitFiles *cf);
extern void wl_model_decide_syncs(const WlPendingSync *s, int n, int threshold_kb,
								  WlCommitModel *m);
extern void wl_model_commit(WlCommitFiles *cf, bool is_prepare, bool live,
							WlCommitModel *model, int32 *creators);
extern void wl_model_read_abort(bool subxact, int64 max_buffers, bool want_creators,
								WlAbortFiles *ab);

extern bool wl_model_relation_skips_wal(Relation rel);

#endif							/* WALLOAD_MODEL_H */
