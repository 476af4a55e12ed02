/*-------------------------------------------------------------------------
 *
 * strategy.c
 *		walload.commit_strategy: act, not only advise.  Under
 *		wal_level=minimal, core decides per pending sync at commit: a file
 *		smaller than wal_skip_threshold is WAL-logged whole, a larger one
 *		(or one truncated in place) is fsynced after one scan of all shared
 *		buffers, paid once for all synced files.  Both keep every committed
 *		row safe across a crash; they differ only in cost, which depends on
 *		shared_buffers (the scan) and on the storage (fsync, WAL).
 *
 * Right before core decides (XACT_EVENT_PRE_COMMIT, after which
 * smgrDoPendingSyncs reads wal_skip_threshold), walload may set
 * wal_skip_threshold for this transaction only (as SET LOCAL would):
 *
 *	off   nothing (the default): core decides as it always does;
 *	auto  the threshold with the lowest predicted cost: WAL-log the k
 *		  smallest files and fsync the rest, for the best k (0 to all),
 *		  by the one cost model of the predictions (cost.c,
 *		  wl_commit_est); ties keep the session's threshold;
 *	wal   WAL-log every file that can be (the threshold above the largest);
 *	sync  fsync every file (threshold 0).
 *
 * It never acts under any other wal_level (there are no pending syncs),
 * never for a file truncated in place (core syncs it whatever the
 * threshold), and never changes what survives a crash: WAL-logged or
 * fsynced, a committed file is durable when COMMIT returns.
 *
 * It stands aside, and core decides by the transaction's threshold, where
 *	- the transaction set wal_skip_threshold itself (SET LOCAL): the most
 *	  local explicit choice wins, as PostgreSQL settles such conflicts
 *	  (a session's SET does not: the strategy is as much the session's);
 *	- auto would choose by figures not timed since the server's last start
 *	  or crash-restart (store.c, WlCalibration): a model without the
 *	  storage's figures prices fsyncs at nothing.  wal and sync need none.
 *	- auto's own recent commits ran far above what it predicted for them
 *	  (1.10, see wl_strategy_note_commit): the figures it chooses by are
 *	  not this server's, and its choice may cost more than core's.
 * The record says which (WlStrategyAction); walload_info counts the last.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "strategy.h"

#include "access/xlog.h"
#include "catalog/storage.h"
#include "utils/guc.h"

#include "compat.h"

#include "cost.h"
#include "settings.h"
#include "store.h"

/*
 * auto checks itself.  Each auto commit that took the path auto chose (it
 * kept or changed the threshold) notes its measured commit time, less any
 * wait for a synchronous standby (no path changes that), against the time
 * the model predicted for the path chosen (accumulator.c, at the end of the
 * commit).  When the median of measured/predicted over the backend's last
 * WL_AUTO_WINDOW such commits is above WL_AUTO_ASIDE_FACTOR, auto stands
 * aside in this backend (core decides, as with off) until walload.unit_costs
 * changes: a model that far off prices the two paths by figures that are
 * not this storage's.  The factor is far above the spread of a right
 * model's predictions (a commit's time varies by a few times on a busy
 * machine, not by an order of magnitude over a median of 16).  A prediction
 * below WL_AUTO_PRED_FLOOR_MS counts as that floor: a commit that creates
 * a file does far more than that (tens of microseconds at the least),
 * and a ratio to nothing says nothing.
 * Backend-local state, no allocation: noted from the commit cleanup.
 */
#define WL_AUTO_WINDOW			16
#define WL_AUTO_ASIDE_FACTOR	10.0
#define WL_AUTO_PRED_FLOOR_MS	0.0001

static double auto_ratios[WL_AUTO_WINDOW];
static int	auto_samples = 0;	/* in auto_ratios, at most WL_AUTO_WINDOW */
static int	auto_next = 0;
static bool auto_aside = false;
static double auto_aside_median = 0;
static uint64 auto_generation = 0;

/* new unit costs (walload.unit_costs): a new model, a new window */
static void
auto_window_for_costs(void)
{
	uint64		generation = wl_unit_costs_generation();

	if (generation != auto_generation)
	{
		auto_generation = generation;
		auto_samples = auto_next = 0;
		auto_aside = false;
		auto_aside_median = 0;
	}
}

void
wl_strategy_note_commit(double measured_ms, double predicted_ms)
{
	double		sorted[WL_AUTO_WINDOW];
	double		median;

	auto_window_for_costs();
	if (auto_aside)
		return;
	auto_ratios[auto_next] = Max(measured_ms, 0) / Max(predicted_ms, WL_AUTO_PRED_FLOOR_MS);
	auto_next = (auto_next + 1) % WL_AUTO_WINDOW;
	if (auto_samples < WL_AUTO_WINDOW)
		auto_samples++;
	if (auto_samples < WL_AUTO_WINDOW)
		return;

	/* the window's median (insertion sort: 16 values, no allocation) */
	for (int i = 0; i < WL_AUTO_WINDOW; i++)
	{
		double		v = auto_ratios[i];
		int			j = i;

		while (j > 0 && sorted[j - 1] > v)
		{
			sorted[j] = sorted[j - 1];
			j--;
		}
		sorted[j] = v;
	}
	median = (sorted[WL_AUTO_WINDOW / 2 - 1] + sorted[WL_AUTO_WINDOW / 2]) / 2;
	if (median > WL_AUTO_ASIDE_FACTOR)
	{
		auto_aside = true;
		auto_aside_median = median;
	}
}

typedef struct SyncSize
{
	int64		blocks;
} SyncSize;

static int
cmp_blocks(const void *a, const void *b)
{
	int64		x = ((const SyncSize *) a)->blocks;
	int64		y = ((const SyncSize *) b)->blocks;

	return x < y ? -1 : x > y ? 1 : 0;
}

/* the sync and WAL part of a commit decided as m (the rest is the same) */
static double
sync_part_ns(const WlCommitModel *m, const WlScanCost *cost, const WlCommitState *st)
{
	WlCommitEstimate est;

	wl_commit_est(m, cost, st, &est);
	return est.total_ns;
}

/* the threshold, in kB, below which a file of blocks blocks is WAL-logged */
static int
threshold_above(int64 blocks)
{
	int64		kb = (blocks + 1) * (BLCKSZ / 1024);

	return (int) Min(kb, (int64) MAX_KILOBYTES);
}

/*
 * Choose the threshold for the pending syncs s[0..n) (see the header); the
 * files are sorted by size, and moving them one by one from fsync to WAL
 * costs one evaluation each.
 */
static int
choose_threshold(int strategy, const WlPendingSync *s, int n, const WlScanCost *cost,
				 const WlCommitState *st, int session_kb, double *core_ns, double *chosen_ns)
{
	WlCommitModel m;
	SyncSize   *sizes = palloc(sizeof(SyncSize) * Max(n, 1));
	int			nsizes = 0;
	int			best_kb = session_kb;
	double		best_ns;

	memset(&m, 0, sizeof(m));
	m.sync_stmt_no = m.drop_stmt_no = -1;
	wl_model_decide_syncs(s, n, session_kb, &m);
	*core_ns = best_ns = sync_part_ns(&m, cost, st);

	for (int i = 0; i < n; i++)
		if (!s[i].truncated)
			sizes[nsizes++].blocks = s[i].blocks;
	qsort(sizes, nsizes, sizeof(SyncSize), cmp_blocks);

	if (strategy == WL_STRATEGY_SYNC)
		best_kb = 0;
	else if (strategy == WL_STRATEGY_WAL)
		best_kb = nsizes > 0 ? threshold_above(sizes[nsizes - 1].blocks) : session_kb;
	else
	{
		/* all synced, then the k smallest WAL-logged, k = 1 .. nsizes */
		memset(&m, 0, sizeof(m));
		wl_model_decide_syncs(s, n, 0, &m);
		for (int k = 0; k <= nsizes; k++)
		{
			double		ns;

			if (k > 0)
			{
				m.synced_rels--;
				m.synced_blocks -= sizes[k - 1].blocks;
				m.wal_logged_rels++;
				m.wal_logged_blocks += sizes[k - 1].blocks;
				m.sync_scan = m.synced_rels > 0;
				/* files of the same size go together */
				if (k < nsizes && sizes[k].blocks == sizes[k - 1].blocks)
					continue;
			}
			ns = sync_part_ns(&m, cost, st);
			if (ns < best_ns)
			{
				best_ns = ns;
				best_kb = k == 0 ? 0 : threshold_above(sizes[k - 1].blocks);
			}
		}
	}

	memset(&m, 0, sizeof(m));
	wl_model_decide_syncs(s, n, best_kb, &m);
	*chosen_ns = sync_part_ns(&m, cost, st);
	pfree(sizes);
	return best_kb;
}

/*
 * At XACT_EVENT_PRE_COMMIT (or PRE_PREPARE): apply walload.commit_strategy
 * to this commit.  dirty_buffers: see accumulator.c, note_dirtied_by_load.
 * s, n: the pending syncs, as the commit's one reading of core's lists
 * found them (wl_model_read_commit).
 */
void
wl_strategy_apply(WlStrategyChoice *choice, int64 dirty_buffers,
				  const WlPendingSync *s, int n)
{
	WlScanCost	cost;
	WlCommitState st;
	WlCommitModel all;

	memset(choice, 0, sizeof(*choice));
	choice->action = WL_ACTION_NONE;
	choice->threshold_kb = choice->core_threshold_kb = wal_skip_threshold;
	if (wl_commit_strategy == WL_STRATEGY_OFF || XLogIsNeeded())
		return;
	if (n == 0)
		return;
	if (wl_guc_set_local("wal_skip_threshold"))
		choice->action = WL_ACTION_ASIDE_SET_LOCAL;
	else if (wl_commit_strategy == WL_STRATEGY_AUTO &&
			 !wl_store_calibrated())
		choice->action = WL_ACTION_ASIDE_UNCALIBRATED;
	else if (wl_commit_strategy == WL_STRATEGY_AUTO &&
			 (auto_window_for_costs(), auto_aside))
	{
		choice->action = WL_ACTION_ASIDE_MISPREDICTED;
		wl_store_note_auto_aside(auto_aside_median);
	}
	if (choice->action != WL_ACTION_NONE)
		return;
	choice->action = WL_ACTION_KEPT;

	/* the state as a commit that syncs everything would find it */
	memset(&all, 0, sizeof(all));
	wl_model_decide_syncs(s, n, 0, &all);
	wl_commit_state_now(&st, &all, dirty_buffers, false);
	wl_cost_figures(&cost);

	/*
	 * Decide by the calibration of this start alone, not by the fsync ratio
	 * the server's commits taught: it moves with every commit, and a
	 * decision that follows it changed from round to round of one and the
	 * same load.  Both paths pay core's work per file alike.
	 */
	cost.io.fsync_time_ratio = 0;

	choice->threshold_kb = choose_threshold(wl_commit_strategy, s, n, &cost, &st,
											wal_skip_threshold,
											&choice->core_ns, &choice->chosen_ns);
	if (choice->threshold_kb != wal_skip_threshold)
	{
		char		value[32];

		snprintf(value, sizeof(value), "%d", choice->threshold_kb);
		(void) set_config_option("wal_skip_threshold", value, PGC_USERSET, PGC_S_SESSION,
								 GUC_ACTION_LOCAL, true, 0, false);
		choice->action = WL_ACTION_CHANGED;
	}
}
