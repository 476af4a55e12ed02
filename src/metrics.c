/*-------------------------------------------------------------------------
 *
 * metrics.c
 *		Counters for exporters that only rise until walload_reset():
 *		walload_command_totals and walload_histograms.
 *
 * A sum over walload_stats falls when it evicts (to Prometheus, a reset):
 * these live in a fixed table.  A (database, role, command) that finds it
 * full folds into its database's and role's 'other', then into database 0,
 * role 0, 'other': never dropped.  The spinlocks are taken in commit cleanup
 * and abort: nothing under them allocates or can error.  Not kept across a
 * restart.  Every caller has the store, which attaches these first.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "metrics.h"

#include "storage/spin.h"
#include "utils/float.h"
#include "utils/timestamp.h"

typedef struct WlMetricsShared
{
	slock_t		cmd_mutex;		/* the command table and overflow */
	slock_t		hist_mutex;		/* the histograms */
	TimestampTz stats_reset;	/* written under cmd_mutex */
	int			used;
	/* an entry is used once it counts a call (command_totals' caller) */
	WlCommandTotals cmd[WL_METRICS_COMMANDS + 1];	/* the last: database 0, role 0, 'other' */
	WlHistogram hist[WL_NUM_HIST];
} WlMetricsShared;

static WlMetricsShared *wl_metrics = NULL;

/* the buckets' upper bounds in seconds; -1: +Infinity */
static const double bounds[WL_HIST_BUCKETS] = {
	0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, -1
};

Size
wl_metrics_shmem_size(void)
{
	return MAXALIGN(sizeof(WlMetricsShared));
}

/* mem: wl_metrics_shmem_size() bytes of the store's shared memory */
void
wl_metrics_shmem_init(void *mem, bool found)
{
	wl_metrics = (WlMetricsShared *) mem;
	if (found)
		return;
	memset(wl_metrics, 0, sizeof(WlMetricsShared));
	SpinLockInit(&wl_metrics->cmd_mutex);
	SpinLockInit(&wl_metrics->hist_mutex);
	wl_metrics->stats_reset = GetCurrentTimestamp();
}

/* the upper bound of a bucket in seconds; +Infinity for the last */
double
wl_metrics_bound(int bucket)
{
	return bounds[bucket] < 0 ? get_float8_infinity() : bounds[bucket];
}

/* the entry of (dbid, userid, tag), claimed if new and fewer than limit used; else NULL */
static pg_attribute_always_inline WlCommandTotals *
command_slot(Oid dbid, Oid userid, CommandTag tag, int limit)
{
	uint32		h = (uint32) dbid * 0x9E3779B1u ^ (uint32) userid * 0x85EBCA77u ^
		(uint32) tag * 0xC2B2AE3Du;

	for (int n = 0; n < WL_METRICS_COMMANDS; n++)
	{
		WlCommandTotals *t = &wl_metrics->cmd[(h + n) % WL_METRICS_COMMANDS];

		if (t->calls == 0)
		{
			if (wl_metrics->used >= limit)
				return NULL;
			*t = (WlCommandTotals) {.dbid = dbid,.userid = userid,.tag = tag};
			wl_metrics->used++;
			return t;
		}
		if (t->dbid == dbid && t->userid == userid && t->tag == tag)
			return t;
	}
	return NULL;
}

/* a statement stored (store.c, wl_store_statements); walks: its full scans */
void
wl_metrics_statement(const WlStmtRecord *rec, int64 walks)
{
	WlCommandTotals *t;

	SpinLockAcquire(&wl_metrics->cmd_mutex);
	/* the last entries are kept for 'other' rows */
	t = command_slot(rec->dbid, rec->userid, rec->tag,
					 WL_METRICS_COMMANDS - WL_METRICS_OTHER_RESERVE);
	if (t == NULL && rec->tag != CMDTAG_UNKNOWN)
		t = command_slot(rec->dbid, rec->userid, CMDTAG_UNKNOWN, WL_METRICS_COMMANDS);
	if (t == NULL)
	{
		t = &wl_metrics->cmd[WL_METRICS_COMMANDS];
		t->tag = CMDTAG_UNKNOWN;
	}
	t->calls++;
	t->total_ms += Max(rec->elapsed_ms, 0);
	t->commit_ms += Max(rec->commit_ms, 0);
	t->rows += rec->c.rows;
	t->walks += walks;
	t->wal_bytes += rec->c.wal_bytes;
	SpinLockRelease(&wl_metrics->cmd_mutex);
}

static pg_attribute_always_inline void
observe(WlHistogram *h, double s)
{
	int			b = 0;

	s = s > 0 ? s : 0;			/* also NaN */
	while (b < WL_HIST_BUCKETS - 1 && s > bounds[b])
		b++;
	h->count[b]++;
	h->sum_s += s;
	h->max_s = Max(h->max_s, s);
}

/* a transaction stored (store.c, wl_store_xact) */
void
wl_metrics_xact(const WlXactRecord *rec)
{
	SpinLockAcquire(&wl_metrics->hist_mutex);
	observe(&wl_metrics->hist[WL_HIST_COMMIT], rec->commit_ms / 1000.0);
	observe(&wl_metrics->hist[WL_HIST_WALK], rec->c.scan_est_ns / 1e9);
	SpinLockRelease(&wl_metrics->hist_mutex);
}

/* walload_reset(), with the store's lock held exclusively */
void
wl_metrics_reset(void)
{
	TimestampTz now = GetCurrentTimestamp();

	SpinLockAcquire(&wl_metrics->cmd_mutex);
	memset(wl_metrics->cmd, 0, sizeof(wl_metrics->cmd));
	wl_metrics->used = 0;
	wl_metrics->stats_reset = now;
	SpinLockRelease(&wl_metrics->cmd_mutex);
	SpinLockAcquire(&wl_metrics->hist_mutex);
	memset(wl_metrics->hist, 0, sizeof(wl_metrics->hist));
	SpinLockRelease(&wl_metrics->hist_mutex);
}

/* the entries in use (the overflow row last, if used); returns how many */
int
wl_metrics_copy_commands(WlCommandTotals **out, TimestampTz *stats_reset)
{
	int			n = 0;

	*out = palloc(sizeof(wl_metrics->cmd));
	/* a part at a time: the spinlock is held for a short copy only */
	for (int lo = 0; lo < lengthof(wl_metrics->cmd); lo += 64)
	{
		SpinLockAcquire(&wl_metrics->cmd_mutex);
		for (int i = lo; i < Min(lo + 64, lengthof(wl_metrics->cmd)); i++)
			if (wl_metrics->cmd[i].calls > 0)
				(*out)[n++] = wl_metrics->cmd[i];
		*stats_reset = wl_metrics->stats_reset;
		SpinLockRelease(&wl_metrics->cmd_mutex);
	}
	return n;
}

void
wl_metrics_copy_histograms(WlHistogram *out, TimestampTz *stats_reset)
{
	SpinLockAcquire(&wl_metrics->hist_mutex);
	memcpy(out, wl_metrics->hist, sizeof(WlHistogram) * WL_NUM_HIST);
	*stats_reset = wl_metrics->stats_reset;
	SpinLockRelease(&wl_metrics->hist_mutex);
}
