/*-------------------------------------------------------------------------
 *
 * store.c
 *		walload's shared memory: the statistics hash, the rings of recent
 *		transactions, per-minute sums and statements, the totals since
 *		reset, sized at server start (walload.max_*).  persist.c keeps them
 *		across a clean shutdown.  The rings overwrite their oldest record.
 *
 * Locking: one LWLock, for the statistics hash: recording a statement
 * takes it shared (aggregates are updated under a per-entry spinlock);
 * adding an aggregate, eviction and reset take it exclusive.  Ring slots
 * and prepared-transaction slots are claimed with an atomic counter and
 * written and read under per-slot spinlocks.  Every acquisition first tries
 * without waiting; a wait is counted and timed (walload_info.lock_waits).
 * The abort path and the commit cleanup only try (may_wait = false), and
 * there nothing allocates or can error under the lock (an error would be a
 * PANIC): eviction, which allocates, waits for the backend's next safe
 * point (in_cleanup), as when the lock is busy.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "store_shm.h"

#include "measure.h"
#include "metrics.h"
#include "settings.h"

#include <math.h>

#include "access/twophase.h"
#include "miscadmin.h"
#include "storage/shmem.h"
#include "utils/timestamp.h"

/* a wl_store_statements() of the commit cleanup or the abort path is running */
static bool in_cleanup = false;
static bool stmts_locked = false;	/* false: wl_store_statements() holds no lock */

/* what a prepared transaction's COMMIT / ROLLBACK PREPARED will delete */
typedef struct WlPreparedSlot
{
	slock_t		mutex;
	bool		used;
	char		gid[GIDSIZE];
	WlPreparedDeletion at_commit;
	WlPreparedDeletion at_rollback;
} WlPreparedSlot;

/*
 * A backend's running load (walload_activity).  Only the backend writes its
 * slot, without a lock, bumping changecount before and after; a reader
 * copies it until it sees the same even count on both sides, as core's
 * pgstat_begin_write_activity.
 */
typedef struct WlActivitySlot
{
	uint32		changecount;
	WlActivity	a;
} WlActivitySlot;

WlShared   *wl_shared = NULL;

static WlActivitySlot *activity = NULL;
HTAB	   *wl_stats = NULL;
WlRing		wl_rings[WL_NUM_RINGS];
static WlPreparedSlot *prepared = NULL;

/* the slot (position + 1) of this backend's latest per-minute sum; 0: none */
static uint64 my_minute = 0;

/* the fixed part's size, and with base (its start) where each array is */
static Size
layout(char *base)
{
	Size		size = MAXALIGN(sizeof(WlShared));

#define PLACE(ptr, type, n) \
	do { \
		if (base) \
			ptr = (void *) (base + size); \
		size = add_size(size, mul_size((n), sizeof(type))); \
	} while (0)
	PLACE(wl_rings[WL_RING_XACTS].slots, WlXactSlot, wl_max_xacts);
	PLACE(wl_rings[WL_RING_MINUTES].slots, WlMinuteSlot, wl_max_minutes);
	PLACE(wl_rings[WL_RING_STMTS].slots, WlStmtSlot, wl_max_statements);
	PLACE(prepared, WlPreparedSlot, max_prepared_xacts);
	PLACE(activity, WlActivitySlot, MaxBackends);
#undef PLACE
	return size;
}

static Size
total_size(void)
{
	return add_size(add_size(layout(NULL),
							 hash_estimate_size(wl_max_stats, sizeof(WlStatsEntry))),
					wl_metrics_shmem_size());
}

void
wl_store_shmem_request(void)
{
	RequestAddinShmemSpace(total_size());
	RequestNamedLWLockTranche("walload", 1);
}

/* attach to (in the postmaster, create) the store: true if created (persist.c fills it) */
bool
wl_store_shmem_startup(void)
{
	bool		found;
	bool		metrics_found;
	HASHCTL		info = {.keysize = sizeof(WlStatsKey), .entrysize = sizeof(WlStatsEntry)};
	void	   *metrics;

	LWLockAcquire(AddinShmemInitLock, LW_EXCLUSIVE);

	metrics = ShmemInitStruct("walload metrics", wl_metrics_shmem_size(), &metrics_found);
	wl_metrics_shmem_init(metrics, metrics_found);

	wl_shared = ShmemInitStruct("walload", layout(NULL), &found);
#define RING(id, what, ring, type, max) \
	wl_rings[id] = (WlRing) {what, &wl_shared->ring##_pos, &wl_shared->ring##_base, max, \
		NULL, sizeof(type), offsetof(type, rec), sizeof(((type *) NULL)->rec)}
	RING(WL_RING_XACTS, "transaction record", xact, WlXactSlot, wl_max_xacts);
	RING(WL_RING_MINUTES, "per-minute sum", minute, WlMinuteSlot, wl_max_minutes);
	RING(WL_RING_STMTS, "statement record", stmt, WlStmtSlot, wl_max_statements);
#undef RING
	(void) layout((char *) wl_shared);	/* the rings' slots too */

	if (!found)
	{
		memset(wl_shared, 0, layout(NULL));
		wl_shared->lock = &(GetNamedLWLockTranche("walload"))->lock;
		SpinLockInit(&wl_shared->mutex);
		wl_shared->stats_reset = GetCurrentTimestamp();
#define INIT(name, start, reset) pg_atomic_init_u64(&wl_shared->name, start);
		WL_SHARED_ATOMICS(INIT)
#undef INIT
		wl_shared->total_bytes = total_size();
		wl_shared->calibration = wl_calibration_on ? WL_CALIB_RUNNING : WL_CALIB_OFF;
		wl_shared->calibration_ms = -1;
		ConditionVariableInit(&wl_shared->calib_cv);
		for (int r = 0; r < WL_NUM_RINGS; r++)
			for (int i = 0; i < wl_rings[r].size; i++)
				SpinLockInit(&WL_RING_SLOT(&wl_rings[r], i)->mutex);
		for (int i = 0; i < max_prepared_xacts; i++)
			SpinLockInit(&prepared[i].mutex);
	}

	wl_stats = WlShmemInitHash("walload stats", wl_max_stats, wl_max_stats,
							   &info, HASH_ELEM | HASH_BLOBS);

	LWLockRelease(AddinShmemInitLock);
	return !found;
}

bool
wl_store_ready(void)
{
	return wl_shared != NULL;
}

void
wl_store_require(void)
{
	if (wl_shared == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("walload must be loaded via \"shared_preload_libraries\""),
				 errhint("Add walload to shared_preload_libraries in postgresql.conf and restart the server.")));
}

uint64
wl_store_next_xact_id(void)
{
	if (wl_shared == NULL)
		return 0;
	return pg_atomic_fetch_add_u64(&wl_shared->next_xact_id, 1);
}

/* take walload's lock; a wait is counted and timed */
static pg_attribute_always_inline bool
store_lock(LWLockMode mode, bool may_wait)
{
	instr_time	start;
	instr_time	waited;

	if (LWLockConditionalAcquire(wl_shared->lock, mode))
		return true;
	if (!may_wait)
		return false;
	INSTR_TIME_SET_CURRENT(start);
	LWLockAcquire(wl_shared->lock, mode);
	INSTR_TIME_SET_CURRENT(waited);
	INSTR_TIME_SUBTRACT(waited, start);
	pg_atomic_fetch_add_u64(&wl_shared->lock_waits, 1);
	pg_atomic_fetch_add_u64(&wl_shared->lock_wait_us,
							(uint64) INSTR_TIME_GET_MICROSEC(waited));
	return true;
}

typedef struct WlLruItem
{
	uint64		last_used;
	WlStatsEntry *e;
} WlLruItem;

/*
 * Remove the 10% least recently used aggregates (at least one), the lock
 * held exclusive (every recorder waits: a selection, not a sort).  A tenth,
 * not pg_stat_statements' twentieth: a load of ever new texts pays a walk
 * of the table per tenth of it, and a full table keeps 90% of max_stats.
 */
static void
evict_stats(void)
{
	HASH_SEQ_STATUS hs;
	WlLruItem  *all;
	WlStatsEntry *e;
	long		n = hash_get_num_entries(wl_stats);
	long		nall = 0;
	long		nvictims;

	Assert(!in_cleanup);
	all = palloc(sizeof(WlLruItem) * Max(n, 1));
	hash_seq_init(&hs, wl_stats);
	while ((e = hash_seq_search(&hs)) != NULL)
	{
		if (nall >= n)
		{
			hash_seq_term(&hs);
			break;
		}
		all[nall].last_used = e->last_used;
		all[nall].e = e;
		nall++;
	}
	nvictims = Min(Max(1, nall / 10), nall);

	/*
	 * all[0 .. nvictims-1] made the nvictims least recently used: Hoare's
	 * selection, linear on average (none where there are none).
	 */
	for (long lo = 0, hi = nall - 1; lo < hi;)
	{
		long		mid = lo + (hi - lo) / 2;
		uint64		x = all[lo].last_used;
		uint64		y = all[mid].last_used;
		uint64		z = all[hi].last_used;
		uint64		pivot;
		long		i = lo;
		long		j = hi;

		/* median of three: no quadratic case on ordered input */
		pivot = x < y ? (y < z ? y : (x < z ? z : x)) : (x < z ? x : (y < z ? z : y));
		while (i <= j)
		{
			while (all[i].last_used < pivot)
				i++;
			while (all[j].last_used > pivot)
				j--;
			if (i <= j)
			{
				WlLruItem	t = all[i];

				all[i] = all[j];
				all[j] = t;
				i++;
				j--;
			}
		}
		/* all[lo .. j] <= pivot <= all[i .. hi], and all[j+1 .. i-1] == pivot */
		if (nvictims - 1 <= j)
			hi = j;
		else if (nvictims - 1 >= i)
			lo = i;
		else
			break;
	}
	for (long v = 0; v < nvictims; v++)
		hash_search(wl_stats, &all[v].e->key, HASH_REMOVE, NULL);
	pfree(all);
	wl_shared->stats_removals++;

	SpinLockAcquire(&wl_shared->mutex);
	wl_shared->stats_evicted += nvictims;
	SpinLockRelease(&wl_shared->mutex);
}

/*
 * The aggregates this backend found last, a few by key, found again without
 * hashing: entries of a shared hash table never move, and removing one
 * takes the lock exclusive and bumps stats_removals, so under the shared
 * lock a cached entry with an unchanged count is still the key's.
 */
#define WL_STATS_CACHE_BITS	4
typedef struct WlStatsCached
{
	WlStatsKey	key;
	WlStatsEntry *e;
	uint64		removals;		/* wl_shared->stats_removals when cached */
} WlStatsCached;

static WlStatsCached stats_cache[1 << WL_STATS_CACHE_BITS];

/*
 * Find the aggregate for key (its padding zeroed: the hash and the cache
 * compare bytes), creating it if needed.  Called with the lock held shared;
 * may return with it held exclusive.  With may_wait false, returns NULL and
 * releases the lock (busy) when creating would have to wait for the
 * exclusive lock; in the commit cleanup and on the abort path (in_cleanup),
 * also when it would have to evict.
 */
static WlStatsEntry *
stats_entry(const WlStatsKey *key, const char *query, bool may_wait)
{
	uint64		h = (key->queryid ^ key->tag ^ ((uint64) key->userid << 32)) *
		UINT64CONST(0x9E3779B97F4A7C15);
	WlStatsCached *c = &stats_cache[h >> (64 - WL_STATS_CACHE_BITS)];
	WlStatsEntry *e;
	bool		full;
	bool		found;

	if (c->e != NULL && c->removals == wl_shared->stats_removals &&
		memcmp(&c->key, key, sizeof(WlStatsKey)) == 0)
		return c->e;
	e = hash_search(wl_stats, key, HASH_FIND, NULL);
	if (e == NULL)
	{
		full = in_cleanup && hash_get_num_entries(wl_stats) >= wl_max_stats;
		LWLockRelease(wl_shared->lock);
		if (full || !store_lock(LW_EXCLUSIVE, may_wait))
			return NULL;
		/* another backend may have added it meanwhile: then nothing to evict */
		if (hash_get_num_entries(wl_stats) >= wl_max_stats &&
			hash_search(wl_stats, key, HASH_FIND, NULL) == NULL)
		{
			if (in_cleanup)
			{
				LWLockRelease(wl_shared->lock);
				return NULL;
			}
			evict_stats();
		}
		e = hash_search(wl_stats, key, HASH_ENTER_NULL, &found);
		if (e == NULL)
			return NULL;
		if (!found)
		{
			memset((char *) e + sizeof(WlStatsKey), 0,
				   sizeof(WlStatsEntry) - sizeof(WlStatsKey));
			SpinLockInit(&e->mutex);
			strlcpy(e->query, query, WL_QUERY_LEN);
		}
	}
	/* under the lock: the removals cannot change meanwhile */
	memcpy(&c->key, key, sizeof(WlStatsKey));
	c->e = e;
	c->removals = wl_shared->stats_removals;
	return e;
}

/*
 * Record n finished statements, stride bytes apart, in order: each into its
 * aggregate and the statement ring; returns how many were.  With may_wait
 * false (the abort path and the commit cleanup) it stops where that would
 * mean waiting for walload's lock; with cleanup (may_wait false too), also
 * at a new aggregate in a full walload_stats (see the locking note).  The
 * lock stays held for the next run (no lock, nothing that can fail between
 * them) until wl_store_unlock(); a short count has released it.
 */
int
wl_store_statements(const WlStmtRecord *rec, size_t stride, int n,
					bool may_wait, bool cleanup)
{
	int			i;

	Assert(!cleanup || !may_wait);
	if (wl_shared == NULL)
		return n;
	if (!(stmts_locked && LWLockHeldByMe(wl_shared->lock)) &&
		!(stmts_locked = store_lock(LW_SHARED, may_wait)))
		return 0;
	in_cleanup = cleanup;		/* where it is set, nothing below can fail */
	for (i = 0; i < n; i++, rec = (const WlStmtRecord *) ((const char *) rec + stride))
	{
		WlStatsKey	key;
		WlStatsEntry *e;
		int64		full = wl_full_scans(&rec->c);

		memset(&key, 0, sizeof(key));
		key.userid = rec->userid;
		key.dbid = rec->dbid;
		key.queryid = rec->queryid;
		key.tag = rec->tag;
		key.toplevel = rec->toplevel;
		e = stats_entry(&key, rec->query, may_wait);
		if (e == NULL && !(stmts_locked = LWLockHeldByMe(wl_shared->lock)))
			break;				/* busy: released, and stmts_locked says so */
		wl_metrics_statement(rec, full);
		if (e != NULL)
		{
			double		x = rec->elapsed_ms;
			double		old_mean;
			uint64		stamp = pg_atomic_fetch_add_u64(&wl_shared->lru_clock, 1);

			SpinLockAcquire(&e->mutex);
			e->calls++;
			if (rec->status == WL_STMT_ERROR)
				e->errors++;
			/* Welford's: from a new aggregate's zeros, mean x and variance sum 0 */
			old_mean = e->mean_ms;
			e->mean_ms += (x - old_mean) / e->calls;
			e->sum_var_ms += (x - old_mean) * (x - e->mean_ms);
			e->min_ms = e->calls == 1 ? x : Min(e->min_ms, x);
			e->max_ms = e->calls == 1 ? x : Max(e->max_ms, x);
			e->total_ms += x;
			if (rec->wal_skipped)
				e->wal_skipped_calls++;
			e->scanned_buffers += full * rec->nbuffers;
			e->commit_ms += rec->commit_ms;
			wl_counters_add(&e->c, &rec->c);
			e->last_used = stamp;
			SpinLockRelease(&e->mutex);
		}
		(void) wl_ring_put(&wl_rings[WL_RING_STMTS], rec);
	}
	in_cleanup = false;
	return i;
}

/* the end of a run of wl_store_statements() calls, the last returned: exact */
void
wl_store_unlock(void)
{
	if (stmts_locked)
		LWLockRelease(wl_shared->lock);
	stmts_locked = false;
}

/*
 * Remove every aggregate and empty every ring's slots, under the slots'
 * spinlocks: readers copy without the lock.
 */
void
wl_store_empty(void)
{
	HASH_SEQ_STATUS hs;
	WlStatsEntry *e;

	hash_seq_init(&hs, wl_stats);
	while ((e = hash_seq_search(&hs)) != NULL)
		hash_search(wl_stats, &e->key, HASH_REMOVE, NULL);
	wl_shared->stats_removals++;
	for (int r = 0; r < WL_NUM_RINGS; r++)
		for (int i = 0; i < wl_rings[r].size; i++)
		{
			WlSlotHead *slot = WL_RING_SLOT(&wl_rings[r], i);

			SpinLockAcquire(&slot->mutex);
			slot->pos_plus_one = 0;
			SpinLockRelease(&slot->mutex);
		}
}

/*
 * Add a transaction record to its session's sum for the minute it ended in
 * (under one role, database and application_name).  Each sum has one
 * writer, the backend that recorded it (a prepared transaction's record goes
 * to the finishing backend's): it claims a new slot when the key changes or
 * the ring overwrote its last.  A session's ends only grow, so a minute once
 * left is not come back to.
 */
static void
add_minute(const WlXactRecord *rec)
{
	TimestampTz minute = rec->end - rec->end % USECS_PER_MINUTE;
	WlMinuteSlot *slot = NULL;
	WlMinuteRecord *m;

	if (my_minute != 0)
	{
		slot = (WlMinuteSlot *) WL_RING_SLOT(&wl_rings[WL_RING_MINUTES], my_minute - 1);
		SpinLockAcquire(&slot->mutex);
		m = &slot->rec;
		if (slot->pos_plus_one != my_minute || m->minute != minute ||
			m->pid != rec->pid || m->backend_start != rec->backend_start ||
			m->userid != rec->userid || m->dbid != rec->dbid ||
			strcmp(m->application_name, rec->application_name) != 0)
		{
			SpinLockRelease(&slot->mutex);
			slot = NULL;
		}
	}
	if (slot == NULL)
	{
		my_minute = pg_atomic_fetch_add_u64(&wl_shared->minute_pos, 1) + 1;
		slot = (WlMinuteSlot *) WL_RING_SLOT(&wl_rings[WL_RING_MINUTES], my_minute - 1);
		SpinLockAcquire(&slot->mutex);
		slot->pos_plus_one = my_minute;
		m = &slot->rec;
		memset(m, 0, sizeof(*m));
		m->pid = rec->pid;
		m->userid = rec->userid;
		m->dbid = rec->dbid;
		m->backend_start = rec->backend_start;
		m->minute = minute;
		m->first_start = rec->start;
		strlcpy(m->application_name, rec->application_name, NAMEDATALEN);
	}
	m->first_in_session |= rec->first_in_session;
	m->first_start = Min(m->first_start, rec->start);
	m->last_end = Max(m->last_end, rec->end);
#define ADD(kind, type, name, dims, add) \
	StaticAssertStmt(sizeof(m->name) == sizeof(type) || \
					 sizeof(m->name) == WL_NUM_TIME_KINDS * sizeof(type), #name); \
	if (k < (int) (sizeof(m->name) / sizeof(type))) \
		((type *) &m->name)[k] += (add);
	_Pragma("GCC unroll 16")	/* k 0 and the kinds run: others add 0 */
	for (int k = 0; k < WL_NUM_TIME_KINDS; k++)
		if (k == 0 || rec->kind_ms[k] != 0)
		{
			WL_MINUTE_SUMS(ADD)
			WL_MINUTE_SUMS_1_10(ADD)
		}
#undef ADD
	SpinLockRelease(&slot->mutex);
}

/* without the LWLock (the commit cleanup): may survive a concurrent reset */
void
wl_store_xact(const WlXactRecord *rec)
{
	if (wl_shared == NULL)
		return;
	(void) wl_ring_put(&wl_rings[WL_RING_XACTS], rec);
	add_minute(rec);
	wl_metrics_xact(rec);
	/* totals that survive the ring (exporters' rate()); a signed conversion */
	pg_atomic_fetch_add_u64(&wl_shared->commit_sync_us,
							(uint64) (int64) Max(rec->commit_sync_ms * 1000.0, 0));
	pg_atomic_fetch_add_u64(&wl_shared->commit_cleanup_us,
							(uint64) (int64) Max(rec->commit_cleanup_ms * 1000.0, 0));
}

void
wl_store_add_scan_totals(WlScanKind kind, int64 n, int32 nbuffers)
{
	if (wl_shared == NULL)
		return;
	SpinLockAcquire(&wl_shared->mutex);
	wl_shared->scans[kind] += n;
	wl_shared->scanned_buffers += n * nbuffers;
	SpinLockRelease(&wl_shared->mutex);
}

/*
 * The calibration worker's figures, as of now; what the commits taught
 * (WlIoCost from fsync_time_ratio on) is no calibration's to replace.
 */
void
wl_store_set_scan_cost(const WlScanCost *cost)
{
	TimestampTz now = GetCurrentTimestamp();
	WlScanCost	c = *cost;
	Size		off = offsetof(WlIoCost, fsync_time_ratio);

	SpinLockAcquire(&wl_shared->mutex);
	memcpy((char *) &c.io + off, (char *) &wl_shared->scan_cost.io + off, sizeof(WlIoCost) - off);
	wl_shared->scan_cost = c;
	wl_shared->calibrated_at = now;
	SpinLockRelease(&wl_shared->mutex);
}

/*
 * What a commit teaches (the caller decides which commits say enough), under
 * the spinlock only: with ratio, that its fsyncs of synced files took x
 * times what the calibration predicts (a running geometric mean, the
 * calibration counting as one commit that took 1); else that it spent x ns
 * per file it synced or WAL-logged beyond the rest of its prediction (a
 * running mean).  The k-th commit to teach weighs 1/(k+1) (1/k), at least
 * WL_LEARNED_MIN_WEIGHT, so that the last few rule; x is first bounded
 * (types.h).  A negative x teaches nothing.
 */
void
wl_store_learn(bool ratio, double x)
{
	WlIoCost   *io;
	double	   *learned;
	int64	   *samples;
	double		w;

	if (wl_shared == NULL || x < 0)
		return;
	io = &wl_shared->scan_cost.io;
	learned = ratio ? &io->fsync_time_ratio : &io->file_commit_ns;
	samples = ratio ? &io->fsync_time_samples : &io->file_commit_samples;
	SpinLockAcquire(&wl_shared->mutex);
	w = Max(1.0 / (*samples + (ratio ? 2 : 1)), WL_LEARNED_MIN_WEIGHT);
	if (ratio)
		*learned = exp((1 - w) * log(wl_learned_ratio(*learned)) +
					   w * log(Min(Max(x, 1.0 / WL_LEARNED_BOUND), WL_LEARNED_BOUND)));
	else
		*learned = (1 - w) * Max(*learned, 0) + w * Min(x, WL_FILE_COMMIT_MAX_NS);
	(*samples)++;
	SpinLockRelease(&wl_shared->mutex);
}

/* the calibration; all zero (no estimate) before there is one */
void
wl_store_get_scan_cost(WlScanCost *cost)
{
	if (wl_shared == NULL)
	{
		memset(cost, 0, sizeof(*cost));
		return;
	}
	SpinLockAcquire(&wl_shared->mutex);
	*cost = wl_shared->scan_cost;	/* whole: no memset before */
	SpinLockRelease(&wl_shared->mutex);
}

/* whether all the figures were timed since the last start (auto acts on those) */
bool
wl_store_calibrated(void)
{
	bool		done;

	if (wl_shared == NULL)
		return false;
	SpinLockAcquire(&wl_shared->mutex);
	done = wl_shared->calibrated;
	SpinLockRelease(&wl_shared->mutex);
	return done;
}

/*
 * auto stood aside at a commit: the backend's recent commits took ratio
 * times what it predicted (strategy.c).  Atomics only (PRE_COMMIT calls it).
 */
void
wl_store_note_auto_aside(double ratio)
{
	if (wl_shared == NULL)
		return;
	pg_atomic_fetch_add_u64(&wl_shared->auto_aside_commits, 1);
	pg_atomic_write_u64(&wl_shared->auto_aside_ratio,
						(uint64) Min(Max(ratio, 0) * 1000.0, 1e15));
}

/* the slot of a prepared gid (NULL: a free one), its spinlock held; or NULL */
static WlPreparedSlot *
prepared_slot(const char *gid)
{
	for (int i = 0; wl_shared != NULL && i < max_prepared_xacts; i++)
	{
		WlPreparedSlot *slot = &prepared[i];

		SpinLockAcquire(&slot->mutex);
		if (gid == NULL ? !slot->used : slot->used && strcmp(slot->gid, gid) == 0)
			return slot;
		SpinLockRelease(&slot->mutex);
	}
	return NULL;
}

/*
 * Core accepted a PREPARE TRANSACTION (XACT_EVENT_PREPARE, where an error
 * would be too late): remember what its COMMIT / ROLLBACK PREPARED will
 * delete, under a slot's spinlock only.  There are as many slots as
 * prepared transactions, so one is free unless a transaction finished
 * while walload was not observing left it.
 */
void
wl_store_remember_prepared(const char *gid, const WlPreparedDeletion *at_commit,
						   const WlPreparedDeletion *at_rollback)
{
	WlPreparedSlot *slot = prepared_slot(NULL);

	if (slot == NULL)
		return;
	slot->used = true;
	strlcpy(slot->gid, gid, GIDSIZE);
	slot->at_commit = *at_commit;
	slot->at_rollback = *at_rollback;
	SpinLockRelease(&slot->mutex);
}

/*
 * COMMIT / ROLLBACK PREPARED of gid succeeded: what did it delete?  False
 * (and an empty *deletion) if walload did not see it prepared.
 */
bool
wl_store_take_prepared(const char *gid, bool commit, WlPreparedDeletion *deletion)
{
	WlPreparedSlot *slot = prepared_slot(gid);

	memset(deletion, 0, sizeof(*deletion));
	if (slot == NULL)
		return false;
	*deletion = commit ? slot->at_commit : slot->at_rollback;
	slot->used = false;
	SpinLockRelease(&slot->mutex);
	return true;
}

/* this backend's walload_activity slot, kept for its life, or NULL */
static WlActivitySlot *
my_activity_slot(void)
{
	static WlActivitySlot *slot = NULL;

	if (slot == NULL && activity != NULL && WL_MY_BACKEND_SLOT() >= 0 &&
		WL_MY_BACKEND_SLOT() < MaxBackends)
		slot = &activity[WL_MY_BACKEND_SLOT()];
	return slot;
}

/* a write of the backend's slot (see WlActivitySlot): the commit cleanup's too */
#define ACTIVITY_WRITE(slot, stmts) \
	do { \
		(slot)->changecount++; \
		pg_write_barrier(); \
		stmts; \
		pg_write_barrier(); \
		(slot)->changecount++; \
	} while (0)

/*
 * Publish this backend's running load (a->pid 0: none).  whole false: the
 * slot holds a's prediction (pred to pred_abort_rels) or a has none
 * (predicted_at 0): not written.  The slot is the backend's for its life.
 */
void
wl_store_publish_activity(const WlActivity *a, bool whole)
{
	WlActivitySlot *slot = my_activity_slot();

	if (slot == NULL)
		return;
	if (whole)
		ACTIVITY_WRITE(slot, slot->a = *a);
	else
		ACTIVITY_WRITE(slot, memcpy(&slot->a, a, offsetof(WlActivity, pred)));
}

/* a recorded statement starts: its command and times (the rest, at its end) */
void
wl_store_publish_command(CommandTag command, TimestampTz start)
{
	WlActivitySlot *slot = my_activity_slot();

	if (slot != NULL)
		ACTIVITY_WRITE(slot, (slot->a.current_command = command,
							  slot->a.current_stmt_start = start,
							  slot->a.state_change = start));
}

/* no running load in this backend */
void
wl_store_clear_activity(void)
{
	WlActivitySlot *slot = my_activity_slot();

	if (slot != NULL && slot->a.pid != 0)
		ACTIVITY_WRITE(slot, slot->a.pid = 0);
}

/* the running loads, palloc'd, copied consistently (WlActivitySlot); how many */
int
wl_store_copy_activity(WlActivity **out)
{
	int			n = 0;

	*out = palloc(sizeof(WlActivity) * Max(MaxBackends, 1));
	for (int i = 0; activity != NULL && i < MaxBackends; i++)
	{
		volatile WlActivitySlot *slot = &activity[i];
		uint32		before;

		do
		{
			CHECK_FOR_INTERRUPTS();
			before = slot->changecount;
			pg_read_barrier();
			memcpy(&(*out)[n], (const void *) &slot->a, sizeof(WlActivity));
			pg_read_barrier();
		} while (before != slot->changecount || (before & 1) != 0);
		if ((*out)[n].pid != 0)
			n++;
	}
	return n;
}

/*
 * The ring readers copy the records at positions [lo, hi) as of the copy's
 * start (no older than the last reset or the ring's size), leaving out
 * those overwritten meanwhile.  Each slot is copied under its spinlock, not
 * walload's lock: a reader re-taking the shared lock per chunk would pass
 * a waiting exclusive locker time and again (LWLocks do not queue shared
 * lockers behind exclusive waiters).  A copy may exceed 1 GB.
 */
#define WL_COPY_CHUNK		4096

static void
ring_bounds(WlRing *r, uint64 *lo, uint64 *hi)
{
	wl_store_require();
	store_lock(LW_SHARED, true);
	*hi = pg_atomic_read_u64(r->pos);
	SpinLockAcquire(&wl_shared->mutex);
	*lo = *r->base;
	SpinLockRelease(&wl_shared->mutex);
	LWLockRelease(wl_shared->lock);
	if (*hi - *lo > (uint64) r->size)
		*lo = *hi - r->size;
}

/* copy the record at position p into out if the ring still holds it */
static bool
ring_get(WlRing *r, uint64 p, void *out)
{
	WlSlotHead *slot = WL_RING_SLOT(r, p);
	bool		held;

	SpinLockAcquire(&slot->mutex);
	held = slot->pos_plus_one == p + 1;
	if (held)
		memcpy(out, (char *) slot + r->rec_off, r->rec_size);
	SpinLockRelease(&slot->mutex);
	return held;
}

/* a ring's records (those filter keeps) palloc'd, oldest first or by cmp */
static int
ring_copy(WlRing *r, WlStmtFilter filter, void *arg, int (*cmp) (const void *, const void *),
		  char **out)
{
	int			n = 0;
	uint64		lo,
				hi;
	Size		cap;

	ring_bounds(r, &lo, &hi);
	cap = filter ? Min(hi - lo, 64) : hi - lo;
	*out = MemoryContextAllocHuge(CurrentMemoryContext, r->rec_size * Max(cap, 1));
	for (uint64 p = lo; p < hi; p++)
	{
		char	   *rec;

		if (n >= cap)
		{
			cap = Min(cap * 2, hi - lo);
			*out = repalloc_huge(*out, r->rec_size * cap);
		}
		rec = *out + (Size) n * r->rec_size;
		if (ring_get(r, p, rec) && (filter == NULL || filter((const WlStmtRecord *) rec, arg)))
			n++;
		if (p % WL_COPY_CHUNK == 0)
			CHECK_FOR_INTERRUPTS();
	}
	if (cmp != NULL)
		qsort(*out, n, r->rec_size, cmp);
	return n;
}

/* by xact_id, the record's first field */
StaticAssertDecl(offsetof(WlXactRecord, xact_id) == 0, "xact_cmp compares a record's first field");
WL_CMP_FUNCTION(xact_cmp, uint64)

int
wl_store_copy_xacts(WlXactRecord **out)
{
	return ring_copy(&wl_rings[WL_RING_XACTS], NULL, NULL, xact_cmp, (char **) out);
}

/* the per-minute sums, in the order they were begun */
int
wl_store_copy_minutes(WlMinuteRecord **out)
{
	return ring_copy(&wl_rings[WL_RING_MINUTES], NULL, NULL, NULL, (char **) out);
}

static int
stmt_cmp(const void *a, const void *b)
{
	const WlStmtRecord *sa = a;
	const WlStmtRecord *sb = b;

	if (sa->xact_id != sb->xact_id)
		return (sa->xact_id > sb->xact_id) - (sa->xact_id < sb->xact_id);
	return (sa->stmt_no > sb->stmt_no) - (sa->stmt_no < sb->stmt_no);
}

/* the statements that filter keeps, by transaction and number */
int
wl_store_copy_statements_filtered(WlStmtFilter filter, void *arg, WlStmtRecord **out)
{
	return ring_copy(&wl_rings[WL_RING_STMTS], filter, arg, stmt_cmp, (char **) out);
}

/*
 * walload_statements' read: as ring_copy, a chunk at a time into the
 * caller's buffer, so that what it holds does not grow with the ring.
 */
void
wl_store_scan_statements(WlStmtScan *scan)
{
	ring_bounds(&wl_rings[WL_RING_STMTS], &scan->next, &scan->hi);
}

/*
 * The records still held at the next max positions, into buf; how many (0
 * if all were overwritten: go on while scan->next < scan->hi).
 */
int
wl_store_scan_statements_next(WlStmtScan *scan, WlStmtRecord *buf, int max)
{
	uint64		end = Min(scan->next + (uint64) max, scan->hi);
	int			n = 0;

	for (; scan->next < end; scan->next++)
		n += ring_get(&wl_rings[WL_RING_STMTS], scan->next, &buf[n]);
	return n;
}

int
wl_store_copy_stats(WlStatsEntryCopy **out)
{
	HASH_SEQ_STATUS hs;
	WlStatsEntry *e;
	int			n = 0;
	long		cap;

	wl_store_require();
	store_lock(LW_SHARED, true);
	cap = Max(hash_get_num_entries(wl_stats), 1);
	*out = palloc(sizeof(WlStatsEntryCopy) * cap);
	hash_seq_init(&hs, wl_stats);
	while ((e = hash_seq_search(&hs)) != NULL)
	{
		WlStatsEntryCopy *c = &(*out)[n];

		if (n >= cap)
		{
			hash_seq_term(&hs);
			break;
		}
		SpinLockAcquire(&e->mutex);
		c->key = e->key;
#define COPY(kind, type, name, dims, add) c->name = e->name;
		WL_STATS_FIELDS(COPY)
#undef COPY
		memcpy(c->query, e->query, WL_QUERY_LEN);
		SpinLockRelease(&e->mutex);
		if (c->calls > 0)
			n++;
	}
	LWLockRelease(wl_shared->lock);
	return n;
}

void
wl_store_info(WlInfo *info)
{
	WlShared   *s = wl_shared;

	wl_store_require();
	memset(info, 0, sizeof(*info));
	store_lock(LW_SHARED, true);
	SpinLockAcquire(&s->mutex);
#define FILL(kind, type, name, dims, source) \
	for (int k = 0; k < (int) (sizeof(info->name) / sizeof(type)); k++) \
		((type *) &info->name)[k] = (source);
	WL_INFO_FIELDS(FILL)
#undef FILL
	SpinLockRelease(&s->mutex);
	LWLockRelease(s->lock);
}

void
wl_store_reset(void)
{
	wl_store_require();
	store_lock(LW_EXCLUSIVE, true);
	wl_store_empty();
	SpinLockAcquire(&wl_shared->mutex);
	wl_shared->stats_reset = GetCurrentTimestamp();
	wl_shared->stats_evicted = 0;
	memset(wl_shared->scans, 0, sizeof(wl_shared->scans));
	wl_shared->scanned_buffers = 0;
	for (int r = 0; r < WL_NUM_RINGS; r++)
		*wl_rings[r].base = pg_atomic_read_u64(wl_rings[r].pos);
	SpinLockRelease(&wl_shared->mutex);
#define RESET(name, start, reset) \
	if (reset) \
		pg_atomic_write_u64(&wl_shared->name, 0);
	WL_SHARED_ATOMICS(RESET)
#undef RESET
	wl_metrics_reset();
	LWLockRelease(wl_shared->lock);
}
