/*-------------------------------------------------------------------------
 *
 * store_shm.h
 *		The layout of walload's shared memory (store.c), for the files that
 *		read or fill it whole (persist.c, calibrate.c's worker state); the
 *		other parts use store.h's functions.
 *
 *-------------------------------------------------------------------------
 */
#ifndef WALLOAD_STORE_SHM_H
#define WALLOAD_STORE_SHM_H

#include "store.h"

#include "port/atomics.h"
#include "storage/condition_variable.h"
#include "storage/latch.h"
#include "storage/lwlock.h"
#include "storage/spin.h"
#include "utils/hsearch.h"

typedef struct WlStatsEntry
{
	WlStatsKey	key;			/* hash key, must be first */
	slock_t		mutex;
	WL_STATS_FIELDS(WL_FIELD)
	uint64		last_used;
	WlQuery		query;
} WlStatsEntry;

/* a ring's slot: its spinlock, its position + 1 (0: empty), its record */
typedef struct WlSlotHead
{
	slock_t		mutex;
	uint64		pos_plus_one;
} WlSlotHead;
#define WL_SLOT(rectype) struct { slock_t mutex; uint64 pos_plus_one; rectype rec; }
typedef WL_SLOT(WlXactRecord) WlXactSlot;
typedef WL_SLOT(WlMinuteRecord) WlMinuteSlot;
typedef WL_SLOT(WlStmtRecord) WlStmtSlot;

typedef enum WlRingId
{
	WL_RING_XACTS = 0,			/* in the stats file's order */
	WL_RING_MINUTES,
	WL_RING_STMTS,
	WL_NUM_RINGS
} WlRingId;

/* where a ring is, in this process */
typedef struct WlRing
{
	const char *name;			/* of a record, for messages */
	pg_atomic_uint64 *pos;		/* the next position to write */
	uint64	   *base;			/* the position at the last reset */
	int			size;
	char	   *slots;
	Size		slot_size;
	Size		rec_off;
	Size		rec_size;
} WlRing;

#define WL_RING_SLOT(r, p)	((WlSlotHead *) ((r)->slots + ((p) % (r)->size) * (r)->slot_size))
#define WL_RING_REC(r, p)	((char *) WL_RING_SLOT(r, p) + (r)->rec_off)

/*
 * WlShared's atomics: X(name, value at start, zeroed by walload_reset()).
 * commit_*_us: the recorded transactions' commit (or abort) phases;
 * auto_aside_*: the auto commits that stood aside, mispredicted, and the
 * last backend's median ratio x 1000 (neither kept on disk).
 */
#define WL_SHARED_ATOMICS(X) \
	X(next_xact_id, 1, false) \
	X(xact_pos, 0, false) /* the next positions to write */ \
	X(minute_pos, 0, false) \
	X(stmt_pos, 0, false) \
	X(lru_clock, 1, false) \
	X(lock_waits, 0, true) /* acquisitions that had to wait */ \
	X(lock_wait_us, 0, true) /* and how long they waited */ \
	X(commit_sync_us, 0, true) \
	X(commit_cleanup_us, 0, true) \
	X(auto_aside_commits, 0, true) \
	X(auto_aside_ratio, 0, true)
#define WL_ATOMIC_FIELD(name, start, reset) pg_atomic_uint64 name;

typedef struct WlShared
{
	LWLock	   *lock;
	slock_t		mutex;			/* protects the plain fields below */
	TimestampTz stats_reset;
	int64		stats_evicted;
	uint64		stats_removals; /* removals (exclusive lock; stats_cache) */
	int64		scans[WL_NUM_SCAN_KINDS];
	int64		scanned_buffers;
	TimestampTz calibrated_at;
	WlCalibration calibration;	/* how far it has come since this start */
	bool		calibrated;		/* a calibration of this start was done */
	double		calibration_ms; /* the last one's wall-clock time; -1: none */
	int64		calibration_io_bytes;	/* what it wrote under the data dir */
	WlScanCost	scan_cost;		/* calibrate.c's calibration */

	/*
	 * The calibration worker while it runs (pid 0 otherwise): the latch a
	 * request sets, the requests (walload_calibrate()) made, answered, and
	 * answered by a calibration that completed, the last one's passes, and
	 * where the askers wait.
	 */
	int			worker_pid;
	Latch	   *worker_latch;
	uint64		calib_requested;
	uint64		calib_answered;
	uint64		calib_completed;
	int			calib_passes;
	ConditionVariable calib_cv;
	uint64		xact_base;		/* positions before the last reset */
	uint64		stmt_base;
	uint64		minute_base;
	WL_SHARED_ATOMICS(WL_ATOMIC_FIELD)
	Size		total_bytes;
} WlShared;

extern WlShared *wl_shared;
extern HTAB *wl_stats;
extern WlRing wl_rings[WL_NUM_RINGS];

/*
 * Claim the next slot of a ring and write rec into it; returns its
 * position.  Needs no lock but the slot's spinlock: rings are written
 * without walload's lock.  Inline: every recorded statement's store.
 */
static inline uint64
wl_ring_put(WlRing *r, const void *rec)
{
	uint64		pos = pg_atomic_fetch_add_u64(r->pos, 1);
	WlSlotHead *slot = WL_RING_SLOT(r, pos);

	SpinLockAcquire(&slot->mutex);
	slot->pos_plus_one = pos + 1;
	memcpy((char *) slot + r->rec_off, rec, r->rec_size);
	SpinLockRelease(&slot->mutex);
	return pos;
}

/* store.c's, for persist.c */
extern void wl_store_empty(void);

#endif							/* WALLOAD_STORE_SHM_H */
