/*-------------------------------------------------------------------------
 *
 * store.c
 *		walload's shared memory: the statistics hash, the rings of recent
 *		transactions and statements, the totals since reset, and their
 *		persistence across a clean shutdown.
 *
 * Sizes are fixed at server start by walload.max_stats, walload.max_xacts
 * and walload.max_statements; nothing grows afterwards.
 *
 * Eviction rules:
 *	- walload_xacts / walload_statements are rings: a new record overwrites
 *	  the oldest one.
 *	- walload_stats: when an aggregate must be added to a full table, the
 *	  5% least recently updated aggregates (at least one) are removed first.
 *
 * Locking: one LWLock.  Recording takes it shared (ring slots are claimed
 * with an atomic counter and written under a per-slot spinlock; aggregates
 * are updated under a per-entry spinlock); adding an aggregate, eviction
 * and reset take it exclusive.  Readers take it shared.  Every acquisition
 * first tries without waiting; one that has to wait is counted and timed
 * (walload_info.lock_waits, lock_wait_ms), so that what walload's lock
 * costs its callers is measured, not assumed.  A waiting backend shows
 * wait_event_type 'LWLock', wait_event 'walload' in pg_stat_activity.
 *
 * Persistence: at a clean shutdown the postmaster writes everything to
 * pg_stat/walload.stat; at start it reads the file back and removes it.  A
 * file that is unreadable, truncated or from another walload or PostgreSQL
 * version is ignored with a LOG message.
 *
 *-------------------------------------------------------------------------
 */
#include "walload.h"

#include <math.h>
#include <sys/stat.h>

#include "access/twophase.h"
#include "access/xact.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "port/atomics.h"
#include "storage/fd.h"
#include "storage/ipc.h"
#include "storage/lwlock.h"
#include "storage/shmem.h"
#include "storage/spin.h"
#include "utils/hsearch.h"

#define WL_DUMP_FILE		"pg_stat/walload.stat"
#define WL_DUMP_MAGIC		0x574c4431	/* "WLD1" */

typedef struct WlStatsEntry
{
	WlStatsKey	key;			/* hash key, must be first */
	slock_t		mutex;
	int64		calls;
	int64		errors;
	double		total_ms;
	double		min_ms;
	double		max_ms;
	double		mean_ms;
	double		sum_var_ms;
	int64		wal_skipped_calls;
	int64		scanned_buffers;
	WlCounters	c;
	uint64		last_used;
	char		query[WL_QUERY_LEN];
} WlStatsEntry;

typedef struct WlXactSlot
{
	slock_t		mutex;
	uint64		pos_plus_one;	/* 0: empty */
	WlXactRecord rec;
} WlXactSlot;

typedef struct WlStmtSlot
{
	slock_t		mutex;
	uint64		pos_plus_one;	/* 0: empty */
	WlStmtRecord rec;
} WlStmtSlot;

/*
 * What a prepared transaction will delete at COMMIT / ROLLBACK PREPARED,
 * decided at PREPARE (the 2PC state keeps the file lists; core does not
 * export them).  One slot per max_prepared_transactions.
 */
typedef struct WlPreparedSlot
{
	bool		used;
	Oid			dbid;
	char		gid[GIDSIZE];
	bool		commit_scan;
	bool		abort_scan;
	int32		commit_rels;
	int32		abort_rels;
} WlPreparedSlot;

typedef struct WlShared
{
	LWLock	   *lock;
	slock_t		mutex;			/* protects the plain fields below */
	TimestampTz stats_reset;
	int64		stats_evicted;
	int64		scans[WL_NUM_SCAN_KINDS];
	int64		scanned_buffers;
	TimestampTz calibrated_at;
	double		ns_per_buffer;
	uint64		xact_base;		/* positions before the last reset */
	uint64		stmt_base;
	pg_atomic_uint64 next_xact_id;
	pg_atomic_uint64 xact_pos;
	pg_atomic_uint64 stmt_pos;
	pg_atomic_uint64 lru_clock;
	pg_atomic_uint64 lock_waits;	/* acquisitions that had to wait */
	pg_atomic_uint64 lock_wait_us;	/* and how long they waited */
	int			max_xacts;
	int			max_statements;
	int			max_prepared;
	Size		total_bytes;
} WlShared;

static WlShared *wl_shared = NULL;
static HTAB *wl_stats = NULL;
static WlXactSlot *xact_ring = NULL;
static WlStmtSlot *stmt_ring = NULL;
static WlPreparedSlot *prepared = NULL;

static void store_shutdown(int code, Datum arg);
static void load_dump(void);
static void put_xact(const WlXactRecord *rec);
static uint64 put_statement(const WlStmtRecord *rec);

static Size
fixed_size(void)
{
	Size		size = MAXALIGN(sizeof(WlShared));

	size = add_size(size, mul_size(wl_max_xacts, sizeof(WlXactSlot)));
	size = add_size(size, mul_size(wl_max_statements, sizeof(WlStmtSlot)));
	size = add_size(size, mul_size(max_prepared_xacts, sizeof(WlPreparedSlot)));
	return size;
}

static Size
total_size(void)
{
	return add_size(fixed_size(),
					hash_estimate_size(wl_max_stats, sizeof(WlStatsEntry)));
}

void
wl_shmem_request(void)
{
	RequestAddinShmemSpace(total_size());
	RequestNamedLWLockTranche("walload", 1);
}

void
wl_shmem_startup(void)
{
	bool		found;
	HASHCTL		info;
	char	   *p;

	LWLockAcquire(AddinShmemInitLock, LW_EXCLUSIVE);

	wl_shared = ShmemInitStruct("walload", fixed_size(), &found);
	p = (char *) wl_shared + MAXALIGN(sizeof(WlShared));
	xact_ring = (WlXactSlot *) p;
	stmt_ring = (WlStmtSlot *) (p + mul_size(wl_max_xacts, sizeof(WlXactSlot)));
	prepared = (WlPreparedSlot *) ((char *) stmt_ring +
								   mul_size(wl_max_statements, sizeof(WlStmtSlot)));

	if (!found)
	{
		memset(wl_shared, 0, fixed_size());
		wl_shared->lock = &(GetNamedLWLockTranche("walload"))->lock;
		SpinLockInit(&wl_shared->mutex);
		wl_shared->stats_reset = GetCurrentTimestamp();
		pg_atomic_init_u64(&wl_shared->next_xact_id, 1);
		pg_atomic_init_u64(&wl_shared->xact_pos, 0);
		pg_atomic_init_u64(&wl_shared->stmt_pos, 0);
		pg_atomic_init_u64(&wl_shared->lru_clock, 1);
		pg_atomic_init_u64(&wl_shared->lock_waits, 0);
		pg_atomic_init_u64(&wl_shared->lock_wait_us, 0);
		wl_shared->max_xacts = wl_max_xacts;
		wl_shared->max_statements = wl_max_statements;
		wl_shared->max_prepared = max_prepared_xacts;
		wl_shared->total_bytes = total_size();
		for (int i = 0; i < wl_max_xacts; i++)
			SpinLockInit(&xact_ring[i].mutex);
		for (int i = 0; i < wl_max_statements; i++)
			SpinLockInit(&stmt_ring[i].mutex);
	}

	memset(&info, 0, sizeof(info));
	info.keysize = sizeof(WlStatsKey);
	info.entrysize = sizeof(WlStatsEntry);
	wl_stats = WlShmemInitHash("walload stats", wl_max_stats, wl_max_stats,
							   &info, HASH_ELEM | HASH_BLOBS);

	LWLockRelease(AddinShmemInitLock);

	/* in the postmaster: load saved state, arrange to save it at exit */
	if (!IsUnderPostmaster)
	{
		on_shmem_exit(store_shutdown, (Datum) 0);
		if (!found)
		{
			int			passes;

			load_dump();
			wl_shared->ns_per_buffer = wl_calibrate_pass_ns(3, &passes);
			wl_shared->calibrated_at = GetCurrentTimestamp();
		}
	}
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

/*
 * Take walload's lock.  Uncontended, this costs what LWLockAcquire costs;
 * contended, the wait is counted and timed.
 */
static void
store_lock(LWLockMode mode)
{
	instr_time	start;
	instr_time	waited;

	if (LWLockConditionalAcquire(wl_shared->lock, mode))
		return;
	INSTR_TIME_SET_CURRENT(start);
	LWLockAcquire(wl_shared->lock, mode);
	INSTR_TIME_SET_CURRENT(waited);
	INSTR_TIME_SUBTRACT(waited, start);
	pg_atomic_fetch_add_u64(&wl_shared->lock_waits, 1);
	pg_atomic_fetch_add_u64(&wl_shared->lock_wait_us,
							(uint64) INSTR_TIME_GET_MICROSEC(waited));
}

/* ----------------------------------------------------------------
 * statistics hash
 * ----------------------------------------------------------------
 */
static int
lru_cmp(const void *a, const void *b)
{
	uint64		la = (*(WlStatsEntry *const *) a)->last_used;
	uint64		lb = (*(WlStatsEntry *const *) b)->last_used;

	return (la > lb) - (la < lb);
}

/* Remove the 5% least recently used aggregates.  Lock held exclusive. */
static void
evict_stats(void)
{
	HASH_SEQ_STATUS hs;
	WlStatsEntry **all;
	WlStatsEntry *e;
	long		n = hash_get_num_entries(wl_stats);
	int			i = 0;
	int			nvictims;

	all = palloc(sizeof(WlStatsEntry *) * n);
	hash_seq_init(&hs, wl_stats);
	while ((e = hash_seq_search(&hs)) != NULL)
		all[i++] = e;
	qsort(all, i, sizeof(WlStatsEntry *), lru_cmp);
	nvictims = Max(1, i / 20);
	for (int v = 0; v < nvictims && v < i; v++)
		hash_search(wl_stats, &all[v]->key, HASH_REMOVE, NULL);
	pfree(all);

	SpinLockAcquire(&wl_shared->mutex);
	wl_shared->stats_evicted += nvictims;
	SpinLockRelease(&wl_shared->mutex);
}

/*
 * Find the aggregate for key, creating it if needed.  Called with the lock
 * held shared; may return with it held exclusive.
 */
static WlStatsEntry *
stats_entry(const WlStatsKey *key, const char *query, bool create)
{
	WlStatsEntry *e;
	bool		found;

	e = hash_search(wl_stats, key, HASH_FIND, NULL);
	if (e != NULL || !create)
		return e;

	LWLockRelease(wl_shared->lock);
	store_lock(LW_EXCLUSIVE);
	e = hash_search(wl_stats, key, HASH_FIND, NULL);
	if (e != NULL)
		return e;
	if (hash_get_num_entries(wl_stats) >= wl_max_stats)
		evict_stats();
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
	return e;
}

static void
stats_key_of(const WlStmtRecord *rec, WlStatsKey *key)
{
	memset(key, 0, sizeof(*key));
	key->userid = rec->userid;
	key->dbid = rec->dbid;
	key->queryid = rec->queryid;
	key->tag = rec->tag;
	key->toplevel = rec->toplevel;
}

/*
 * Record a finished statement: into the statement ring and its aggregate.
 * Returns its ring position.
 */
int64
wl_store_statement(const WlStmtRecord *rec)
{
	uint64		pos;
	WlStatsKey	key;
	WlStatsEntry *e;
	int64		full = wl_full_scans(&rec->c);

	if (wl_shared == NULL)
		return -1;

	store_lock(LW_SHARED);
	pos = put_statement(rec);

	stats_key_of(rec, &key);
	e = stats_entry(&key, rec->query, true);
	if (e != NULL)
	{
		double		x = rec->elapsed_ms;
		uint64		stamp = pg_atomic_fetch_add_u64(&wl_shared->lru_clock, 1);

		SpinLockAcquire(&e->mutex);
		e->calls++;
		if (rec->status == WL_STMT_ERROR)
			e->errors++;
		if (e->calls == 1)
		{
			e->min_ms = x;
			e->max_ms = x;
			e->mean_ms = x;
			e->sum_var_ms = 0;
		}
		else
		{
			double		old_mean = e->mean_ms;

			e->mean_ms += (x - old_mean) / e->calls;
			e->sum_var_ms += (x - old_mean) * (x - e->mean_ms);
			e->min_ms = Min(e->min_ms, x);
			e->max_ms = Max(e->max_ms, x);
		}
		e->total_ms += x;
		if (rec->wal_skipped)
			e->wal_skipped_calls++;
		e->scanned_buffers += full * rec->nbuffers;
		wl_counters_add(&e->c, &rec->c);
		e->last_used = stamp;
		SpinLockRelease(&e->mutex);
	}

	LWLockRelease(wl_shared->lock);
	return (int64) pos;
}

/* A commit-time scan attributed to an already recorded statement. */
void
wl_store_add_statement_scans(int64 ring_pos, uint64 xact_id, int32 stmt_no,
							 const WlStatsKey *key, WlScanKind kind, int64 n,
							 int32 nbuffers)
{
	WlStatsEntry *e;

	if (wl_shared == NULL)
		return;
	store_lock(LW_SHARED);
	if (ring_pos >= 0)
	{
		WlStmtSlot *slot = &stmt_ring[ring_pos % wl_shared->max_statements];

		SpinLockAcquire(&slot->mutex);
		if (slot->pos_plus_one == (uint64) ring_pos + 1 &&
			slot->rec.xact_id == xact_id && slot->rec.stmt_no == stmt_no)
			slot->rec.c.scans[kind] += n;
		SpinLockRelease(&slot->mutex);
	}
	e = stats_entry(key, "", false);
	if (e != NULL)
	{
		SpinLockAcquire(&e->mutex);
		e->c.scans[kind] += n;
		e->scanned_buffers += n * nbuffers;
		SpinLockRelease(&e->mutex);
	}
	LWLockRelease(wl_shared->lock);
}

/* claim the next ring slot and write rec into it */
static void
put_xact(const WlXactRecord *rec)
{
	uint64		pos = pg_atomic_fetch_add_u64(&wl_shared->xact_pos, 1);
	WlXactSlot *slot = &xact_ring[pos % wl_shared->max_xacts];

	SpinLockAcquire(&slot->mutex);
	slot->pos_plus_one = pos + 1;
	slot->rec = *rec;
	SpinLockRelease(&slot->mutex);
}

static uint64
put_statement(const WlStmtRecord *rec)
{
	uint64		pos = pg_atomic_fetch_add_u64(&wl_shared->stmt_pos, 1);
	WlStmtSlot *slot = &stmt_ring[pos % wl_shared->max_statements];

	SpinLockAcquire(&slot->mutex);
	slot->pos_plus_one = pos + 1;
	slot->rec = *rec;
	SpinLockRelease(&slot->mutex);
	return pos;
}

void
wl_store_xact(const WlXactRecord *rec)
{
	if (wl_shared == NULL)
		return;
	store_lock(LW_SHARED);
	put_xact(rec);
	LWLockRelease(wl_shared->lock);
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

void
wl_store_set_calibration(double ns_per_buffer)
{
	SpinLockAcquire(&wl_shared->mutex);
	wl_shared->ns_per_buffer = ns_per_buffer;
	wl_shared->calibrated_at = GetCurrentTimestamp();
	SpinLockRelease(&wl_shared->mutex);
}

double
wl_store_ns_per_buffer(void)
{
	double		ns;

	if (wl_shared == NULL)
		return 0;
	SpinLockAcquire(&wl_shared->mutex);
	ns = wl_shared->ns_per_buffer;
	SpinLockRelease(&wl_shared->mutex);
	return ns;
}

/* ----------------------------------------------------------------
 * prepared transactions
 * ----------------------------------------------------------------
 */
void
wl_store_remember_prepared(const char *gid, bool commit_scan, int32 commit_rels,
						   bool abort_scan, int32 abort_rels)
{
	WlPreparedSlot *slot = NULL;

	if (wl_shared == NULL || wl_shared->max_prepared == 0)
		return;
	store_lock(LW_EXCLUSIVE);
	for (int i = 0; i < wl_shared->max_prepared; i++)
	{
		if (!prepared[i].used ||
			(prepared[i].dbid == MyDatabaseId && strcmp(prepared[i].gid, gid) == 0))
		{
			slot = &prepared[i];
			break;
		}
	}
	if (slot != NULL)
	{
		slot->used = true;
		slot->dbid = MyDatabaseId;
		strlcpy(slot->gid, gid, GIDSIZE);
		slot->commit_scan = commit_scan;
		slot->commit_rels = commit_rels;
		slot->abort_scan = abort_scan;
		slot->abort_rels = abort_rels;
	}
	LWLockRelease(wl_shared->lock);
}

/*
 * COMMIT / ROLLBACK PREPARED of gid succeeded: did it scan?  False (and
 * *known = false) for a transaction prepared before walload's shared memory
 * was set up (e.g. before a restart).
 */
bool
wl_store_take_prepared(const char *gid, bool commit, int32 *nrels, bool *known)
{
	bool		scan = false;

	*known = false;
	*nrels = 0;
	if (wl_shared == NULL || wl_shared->max_prepared == 0)
		return false;
	store_lock(LW_EXCLUSIVE);
	for (int i = 0; i < wl_shared->max_prepared; i++)
	{
		WlPreparedSlot *slot = &prepared[i];

		if (slot->used && strcmp(slot->gid, gid) == 0)
		{
			*known = true;
			scan = commit ? slot->commit_scan : slot->abort_scan;
			*nrels = commit ? slot->commit_rels : slot->abort_rels;
			slot->used = false;
			break;
		}
	}
	LWLockRelease(wl_shared->lock);
	return scan;
}

/* ----------------------------------------------------------------
 * readers
 * ----------------------------------------------------------------
 */
static int
xact_pos_cmp(const void *a, const void *b)
{
	uint64		pa = ((const WlXactRecord *) a)->xact_id;
	uint64		pb = ((const WlXactRecord *) b)->xact_id;

	return (pa > pb) - (pa < pb);
}

int
wl_store_copy_xacts(WlXactRecord **out)
{
	int			n = 0;

	wl_store_require();
	*out = palloc(sizeof(WlXactRecord) * wl_shared->max_xacts);
	store_lock(LW_SHARED);
	for (int i = 0; i < wl_shared->max_xacts; i++)
	{
		WlXactSlot *slot = &xact_ring[i];

		SpinLockAcquire(&slot->mutex);
		if (slot->pos_plus_one != 0)
			(*out)[n++] = slot->rec;
		SpinLockRelease(&slot->mutex);
	}
	LWLockRelease(wl_shared->lock);
	qsort(*out, n, sizeof(WlXactRecord), xact_pos_cmp);
	return n;
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

int
wl_store_copy_statements(WlStmtRecord **out)
{
	int			n = 0;

	wl_store_require();
	*out = palloc(sizeof(WlStmtRecord) * wl_shared->max_statements);
	store_lock(LW_SHARED);
	for (int i = 0; i < wl_shared->max_statements; i++)
	{
		WlStmtSlot *slot = &stmt_ring[i];

		SpinLockAcquire(&slot->mutex);
		if (slot->pos_plus_one != 0)
			(*out)[n++] = slot->rec;
		SpinLockRelease(&slot->mutex);
	}
	LWLockRelease(wl_shared->lock);
	qsort(*out, n, sizeof(WlStmtRecord), stmt_cmp);
	return n;
}

int
wl_store_copy_stats(WlStatsEntryCopy **out)
{
	HASH_SEQ_STATUS hs;
	WlStatsEntry *e;
	int			n = 0;
	long		cap;
	double		ns = wl_store_ns_per_buffer();

	wl_store_require();
	store_lock(LW_SHARED);
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
		c->calls = e->calls;
		c->errors = e->errors;
		c->total_ms = e->total_ms;
		c->min_ms = e->min_ms;
		c->max_ms = e->max_ms;
		c->mean_ms = e->mean_ms;
		c->sum_var_ms = e->sum_var_ms;
		c->wal_skipped_calls = e->wal_skipped_calls;
		c->est_scan_ms = ns > 0 ? e->scanned_buffers * ns / 1e6 : 0;
		c->scanned_buffers = e->scanned_buffers;
		c->c = e->c;
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
	uint64		xpos,
				spos;

	wl_store_require();
	memset(info, 0, sizeof(*info));
	store_lock(LW_SHARED);
	xpos = pg_atomic_read_u64(&wl_shared->xact_pos);
	spos = pg_atomic_read_u64(&wl_shared->stmt_pos);
	SpinLockAcquire(&wl_shared->mutex);
	info->stats_reset = wl_shared->stats_reset;
	info->xacts_recorded = xpos - wl_shared->xact_base;
	info->statements_recorded = spos - wl_shared->stmt_base;
	info->stats_evicted = wl_shared->stats_evicted;
	memcpy(info->scans, wl_shared->scans, sizeof(info->scans));
	info->scanned_buffers = wl_shared->scanned_buffers;
	info->calibrated_at = wl_shared->calibrated_at;
	info->ns_per_buffer = wl_shared->ns_per_buffer;
	SpinLockRelease(&wl_shared->mutex);
	info->xacts_overwritten = info->xacts_recorded > (uint64) wl_shared->max_xacts ?
		info->xacts_recorded - wl_shared->max_xacts : 0;
	info->statements_overwritten = info->statements_recorded > (uint64) wl_shared->max_statements ?
		info->statements_recorded - wl_shared->max_statements : 0;
	info->stats_entries = (int32) hash_get_num_entries(wl_stats);
	info->shmem_bytes = wl_shared->total_bytes;
	info->lock_waits = (int64) pg_atomic_read_u64(&wl_shared->lock_waits);
	info->lock_wait_ms = pg_atomic_read_u64(&wl_shared->lock_wait_us) / 1000.0;
	LWLockRelease(wl_shared->lock);
}

void
wl_store_reset(void)
{
	HASH_SEQ_STATUS hs;
	WlStatsEntry *e;

	wl_store_require();
	store_lock(LW_EXCLUSIVE);
	hash_seq_init(&hs, wl_stats);
	while ((e = hash_seq_search(&hs)) != NULL)
		hash_search(wl_stats, &e->key, HASH_REMOVE, NULL);
	for (int i = 0; i < wl_shared->max_xacts; i++)
		xact_ring[i].pos_plus_one = 0;
	for (int i = 0; i < wl_shared->max_statements; i++)
		stmt_ring[i].pos_plus_one = 0;
	SpinLockAcquire(&wl_shared->mutex);
	wl_shared->stats_reset = GetCurrentTimestamp();
	wl_shared->stats_evicted = 0;
	memset(wl_shared->scans, 0, sizeof(wl_shared->scans));
	wl_shared->scanned_buffers = 0;
	wl_shared->xact_base = pg_atomic_read_u64(&wl_shared->xact_pos);
	wl_shared->stmt_base = pg_atomic_read_u64(&wl_shared->stmt_pos);
	SpinLockRelease(&wl_shared->mutex);
	pg_atomic_write_u64(&wl_shared->lock_waits, 0);
	pg_atomic_write_u64(&wl_shared->lock_wait_us, 0);
	LWLockRelease(wl_shared->lock);
}

void
wl_usage_mark(WlUsageMark *mark)
{
	mark->buf = pgBufferUsage;
	mark->wal = pgWalUsage;
	mark->walio_valid = wl_wal_io_read(&mark->walio);
	wl_wal_io_available = mark->walio_valid;
}

/* fill c's buffer, WAL and WAL I/O counters with the usage since mark */
void
wl_usage_since(const WlUsageMark *mark, WlCounters *c)
{
	BufferUsage bu;
	WalUsage	wu;
	WlWalIo		io;

	memset(&bu, 0, sizeof(bu));
	BufferUsageAccumDiff(&bu, &pgBufferUsage, &mark->buf);
	memset(&wu, 0, sizeof(wu));
	WalUsageAccumDiff(&wu, &pgWalUsage, &mark->wal);
	c->shared_blks_hit = bu.shared_blks_hit;
	c->shared_blks_read = bu.shared_blks_read;
	c->shared_blks_dirtied = bu.shared_blks_dirtied;
	c->shared_blks_written = bu.shared_blks_written;
	c->wal_records = wu.wal_records;
	c->wal_fpi = wu.wal_fpi;
	c->wal_bytes = wu.wal_bytes;

	/*
	 * The pending WAL I/O counters are zeroed when the backend reports its
	 * statistics (only outside transactions); clamp rather than go negative.
	 */
	if (mark->walio_valid && wl_wal_io_read(&io))
	{
		c->wal_writes = Max(io.writes - mark->walio.writes, 0);
		c->wal_syncs = Max(io.syncs - mark->walio.syncs, 0);
		c->wal_sync_us = Max(io.sync_us - mark->walio.sync_us, 0);
	}
}

void
wl_counters_add(WlCounters *dst, const WlCounters *src)
{
	dst->rows += src->rows;
	dst->shared_blks_hit += src->shared_blks_hit;
	dst->shared_blks_read += src->shared_blks_read;
	dst->shared_blks_dirtied += src->shared_blks_dirtied;
	dst->shared_blks_written += src->shared_blks_written;
	dst->wal_records += src->wal_records;
	dst->wal_fpi += src->wal_fpi;
	dst->wal_bytes += src->wal_bytes;
	dst->wal_writes += src->wal_writes;
	dst->wal_syncs += src->wal_syncs;
	dst->wal_sync_us += src->wal_sync_us;
	for (int i = 0; i < WL_NUM_SCAN_KINDS; i++)
		dst->scans[i] += src->scans[i];
}

/* ----------------------------------------------------------------
 * persistence
 * ----------------------------------------------------------------
 */
typedef struct WlDumpHeader
{
	uint32		magic;
	uint32		pg_version;
	uint32		sizeof_entry;
	uint32		sizeof_xact;
	uint32		sizeof_stmt;
	int32		nentries;
	int32		nxacts;
	int32		nstmts;
	TimestampTz stats_reset;
	int64		stats_evicted;
	int64		scans[WL_NUM_SCAN_KINDS];
	int64		scanned_buffers;
	uint64		next_xact_id;
} WlDumpHeader;

static void
store_shutdown(int code, Datum arg)
{
	FILE	   *f;
	WlDumpHeader h;
	HASH_SEQ_STATUS hs;
	WlStatsEntry *e;
	uint64		xpos,
				spos;

	/* don't save after a crash, or when not asked to */
	if (code != 0 || wl_shared == NULL || !wl_save)
		return;

	f = AllocateFile(WL_DUMP_FILE ".tmp", PG_BINARY_W);
	if (f == NULL)
		goto error;

	memset(&h, 0, sizeof(h));
	h.magic = WL_DUMP_MAGIC;
	h.pg_version = PG_VERSION_NUM;
	h.sizeof_entry = sizeof(WlStatsEntry);
	h.sizeof_xact = sizeof(WlXactRecord);
	h.sizeof_stmt = sizeof(WlStmtRecord);
	h.nentries = (int32) hash_get_num_entries(wl_stats);
	xpos = pg_atomic_read_u64(&wl_shared->xact_pos);
	spos = pg_atomic_read_u64(&wl_shared->stmt_pos);
	h.nxacts = (int32) Min(xpos - wl_shared->xact_base, (uint64) wl_shared->max_xacts);
	h.nstmts = (int32) Min(spos - wl_shared->stmt_base, (uint64) wl_shared->max_statements);
	h.stats_reset = wl_shared->stats_reset;
	h.stats_evicted = wl_shared->stats_evicted;
	memcpy(h.scans, wl_shared->scans, sizeof(h.scans));
	h.scanned_buffers = wl_shared->scanned_buffers;
	h.next_xact_id = pg_atomic_read_u64(&wl_shared->next_xact_id);

	if (fwrite(&h, sizeof(h), 1, f) != 1)
		goto error;
	hash_seq_init(&hs, wl_stats);
	while ((e = hash_seq_search(&hs)) != NULL)
	{
		if (fwrite(e, sizeof(WlStatsEntry), 1, f) != 1)
		{
			hash_seq_term(&hs);
			goto error;
		}
	}
	/* rings, oldest first */
	for (uint64 p = xpos - h.nxacts; p < xpos; p++)
		if (fwrite(&xact_ring[p % wl_shared->max_xacts].rec, sizeof(WlXactRecord), 1, f) != 1)
			goto error;
	for (uint64 p = spos - h.nstmts; p < spos; p++)
		if (fwrite(&stmt_ring[p % wl_shared->max_statements].rec, sizeof(WlStmtRecord), 1, f) != 1)
			goto error;

	if (FreeFile(f))
	{
		f = NULL;
		goto error;
	}
	(void) durable_rename(WL_DUMP_FILE ".tmp", WL_DUMP_FILE, LOG);
	return;

error:
	ereport(LOG,
			(errcode_for_file_access(),
			 errmsg("could not write file \"%s\": %m", WL_DUMP_FILE ".tmp")));
	if (f)
		FreeFile(f);
	unlink(WL_DUMP_FILE ".tmp");
}

static void
load_dump(void)
{
	FILE	   *f;
	WlDumpHeader h;
	WlStatsEntry buf;
	const char *problem = NULL;

	f = AllocateFile(WL_DUMP_FILE, PG_BINARY_R);
	if (f == NULL)
	{
		if (errno != ENOENT)
			ereport(LOG,
					(errcode_for_file_access(),
					 errmsg("could not read file \"%s\": %m", WL_DUMP_FILE)));
		return;
	}

	if (fread(&h, sizeof(h), 1, f) != 1)
		problem = "it is truncated";
	else if (h.magic != WL_DUMP_MAGIC || h.pg_version != PG_VERSION_NUM ||
			 h.sizeof_entry != sizeof(WlStatsEntry) ||
			 h.sizeof_xact != sizeof(WlXactRecord) ||
			 h.sizeof_stmt != sizeof(WlStmtRecord) ||
			 h.nentries < 0 || h.nxacts < 0 || h.nstmts < 0)
		problem = "it was not written by this version of walload and PostgreSQL";

	for (int i = 0; problem == NULL && i < h.nentries; i++)
	{
		WlStatsEntry *e;
		bool		found;

		if (fread(&buf, sizeof(buf), 1, f) != 1)
		{
			problem = "it is truncated";
			break;
		}
		if (hash_get_num_entries(wl_stats) >= wl_max_stats)
			continue;			/* walload.max_stats was lowered */
		e = hash_search(wl_stats, &buf.key, HASH_ENTER_NULL, &found);
		if (e == NULL || found)
			continue;
		memcpy((char *) e + sizeof(WlStatsKey), (char *) &buf + sizeof(WlStatsKey),
			   sizeof(WlStatsEntry) - sizeof(WlStatsKey));
		SpinLockInit(&e->mutex);
		e->query[WL_QUERY_LEN - 1] = '\0';
	}
	for (int i = 0; problem == NULL && i < h.nxacts; i++)
	{
		WlXactRecord rec;

		if (fread(&rec, sizeof(rec), 1, f) != 1)
			problem = "it is truncated";
		else
			put_xact(&rec);
	}
	for (int i = 0; problem == NULL && i < h.nstmts; i++)
	{
		WlStmtRecord rec;

		if (fread(&rec, sizeof(rec), 1, f) != 1)
		{
			problem = "it is truncated";
			break;
		}
		rec.query[WL_QUERY_LEN - 1] = '\0';
		(void) put_statement(&rec);
	}

	if (problem == NULL)
	{
		wl_shared->stats_reset = h.stats_reset;
		wl_shared->stats_evicted = h.stats_evicted;
		memcpy(wl_shared->scans, h.scans, sizeof(h.scans));
		wl_shared->scanned_buffers = h.scanned_buffers;
		pg_atomic_write_u64(&wl_shared->next_xact_id, Max(h.next_xact_id, 1));
	}
	else
	{
		HASH_SEQ_STATUS hs;
		WlStatsEntry *e;

		ereport(LOG,
				(errmsg("ignoring walload statistics file \"%s\": %s",
						WL_DUMP_FILE, problem)));
		/* start from nothing rather than from half a file */
		hash_seq_init(&hs, wl_stats);
		while ((e = hash_seq_search(&hs)) != NULL)
			hash_search(wl_stats, &e->key, HASH_REMOVE, NULL);
		for (int i = 0; i < wl_shared->max_xacts; i++)
			xact_ring[i].pos_plus_one = 0;
		for (int i = 0; i < wl_shared->max_statements; i++)
			stmt_ring[i].pos_plus_one = 0;
		pg_atomic_write_u64(&wl_shared->xact_pos, 0);
		pg_atomic_write_u64(&wl_shared->stmt_pos, 0);
	}

	FreeFile(f);
	unlink(WL_DUMP_FILE);
}
