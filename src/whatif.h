/*-------------------------------------------------------------------------
 *
 * whatif.h
 *		The what-if engine (whatif.c): recorded loads replayed, changed.
 *
 *-------------------------------------------------------------------------
 */
#ifndef WALLOAD_WHATIF_H
#define WALLOAD_WHATIF_H

#include "types.h"

/* the changes of shape a finding may name: SQL interface (shape), bench/ applies them */
typedef enum WlShape
{
	WL_SHAPE_NONE = 0,
	WL_SHAPE_ONE_TRANSACTION,	/* the load's transactions run as one */
	WL_SHAPE_BATCH_COMMITS,		/* small commits grouped */
	WL_SHAPE_INDEXES_AFTER_LOAD,	/* indexes, constraints after the data */
	WL_SHAPE_NO_TRUNCATE_RELOAD,	/* no TRUNCATE of a table created in the
									 * transaction: load it once */
	WL_SHAPE_SINGLE_TRANSACTION_RESTORE,	/* pg_restore --single-transaction */
	WL_SHAPE_DROP_IN_ONE_TRANSACTION	/* the load's DROPs in one transaction */
} WlShape;

extern const char *wl_shape_name(WlShape shape);

/* one alternative replayed: the change (a setting and value, or a shape) and its saving */
typedef struct WlWhatIf
{
	const char *setting;		/* a GUC, or NULL for a shape */
	char		value[32];		/* as written in SET / ALTER SYSTEM */
	WlShape		shape;
	int			xacts;			/* transactions replayed (shapes, wal_level) */
	int64		walks_saved;	/* walks of the pool that no longer happen */
	int64		flushes_saved;	/* commit records' WAL flushes */
	double		walks_ms;		/* of saving_ms: the walks removed */
	double		saving_ms;		/* 0: none */
	uint64		wal_bytes_saved;	/* wal_level: the WAL not written */
	double		added_ms;		/* wal_level: the commit-time work added */
	double		overlap_ms;		/* of saving_ms: what other changes save too */
} WlWhatIf;

/* every alternative the engine replays for one load */
typedef struct WlWhatIfs
{
	WlWhatIf	restore;		/* pg_restore's commits: --single-transaction */
	WlWhatIf	drops;			/* commits that deleted files, as one */
	WlWhatIf	syncs;			/* commits that synced new files, as one */
	WlWhatIf	threshold;		/* wal_skip_threshold above their files */
	WlWhatIf	truncate;		/* no in-place truncation: load once */
	WlWhatIf	small;			/* small synchronous commits, batched */
	WlWhatIf	buffers;		/* shared_buffers for the load */
	WlWhatIf	wal_level;		/* wal_level = minimal, where allowed */
	bool		minimal_allowed;	/* this server could run wal_level=minimal */
	double		small_commit_ms;	/* small commits' sync phases */
	double		small_total_ms; /* and whole transactions */
	double		truncate_reload_ms; /* TRUNCATEs and the loads they discard */
	int32		truncated_synced;	/* files truncated in place and synced */
	int			later_xacts;	/* of syncs: loaded tables made before */
	int			later_only;		/* of those, replayed for that alone */
} WlWhatIfs;

extern void wl_whatif_load(WlXactRecord **in, int n, const double *reload_ms,
						   const uint64 *later_bytes, WlWhatIfs *w);
extern void wl_whatif_minimal(WlXactRecord **in, int n, const int32 *new_files,
							  const uint64 *skip_bytes, bool skip_small, bool skip_restore,
							  WlWhatIf *w);
extern double wl_whatif_index_load(const WlStmtRecord *s);
extern void wl_whatif_to_wal(const WlCommitModel *m, bool truncated, WlCommitModel *alt);

#endif							/* WALLOAD_WHATIF_H */
