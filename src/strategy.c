/*-------------------------------------------------------------------------
 *
 * strategy.c
 *		walload.commit_strategy.  Under wal_level=minimal core WAL-logs a
 *		pending sync below wal_skip_threshold whole at commit and fsyncs a
 *		larger one (or one truncated in place) after one walk of shared
 *		buffers: both durable, at different costs.
 *
 * At XACT_EVENT_PRE_COMMIT, before smgrDoPendingSyncs reads it, walload may
 * SET LOCAL wal_skip_threshold: auto, to the lowest predicted cost (the k
 * smallest files WAL-logged, for the best k; ties keep the session's); wal,
 * above every file; sync, 0.  It stands aside where the transaction SET
 * LOCAL it itself, where auto's figures were not timed since the last start
 * and where auto's recent commits ran far above their predictions.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "strategy.h"

#include "access/xlog.h"
#include "catalog/storage.h"
#include "utils/guc.h"

#include "cost.h"
#include "settings.h"
#include "store.h"

/*
 * auto stands aside until walload.unit_costs changes once the median of
 * measured over predicted times of the backend's last WL_AUTO_WINDOW commits
 * exceeds WL_AUTO_ASIDE_FACTOR (far above a right model's spread).  No
 * allocation: noted from commit cleanup.
 */
#define WL_AUTO_WINDOW			16
#define WL_AUTO_ASIDE_FACTOR	10.0
#define WL_AUTO_PRED_FLOOR_MS	0.0001

static double auto_ratios[WL_AUTO_WINDOW];
static int	auto_samples = 0;
static int	auto_next = 0;
static bool auto_aside = false;
static double auto_aside_median = 0;
static uint64 auto_generation = 0;

WL_CMP_FUNCTION(cmp_double, double)
WL_CMP_FUNCTION(cmp_int64, int64)

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
	auto_samples = Min(auto_samples + 1, WL_AUTO_WINDOW);
	if (auto_samples < WL_AUTO_WINDOW)
		return;

	/* pg_qsort sorts in place, without allocating */
	memcpy(sorted, auto_ratios, sizeof(sorted));
	qsort(sorted, WL_AUTO_WINDOW, sizeof(double), cmp_double);
	median = (sorted[WL_AUTO_WINDOW / 2 - 1] + sorted[WL_AUTO_WINDOW / 2]) / 2;
	if (median > WL_AUTO_ASIDE_FACTOR)
	{
		auto_aside = true;
		auto_aside_median = median;
	}
}

/*
 * A commit decided as m (only its sync and WAL parts differ); with s, m is
 * first decided afresh at threshold kb.
 */
static double
commit_ns(WlCommitModel *m, const WlPendingSync *s, int n, int kb,
		  const WlScanCost *cost, const WlCommitState *st)
{
	WlCommitEstimate est;

	if (s != NULL)
	{
		memset(m, 0, sizeof(*m));
		wl_model_decide_syncs(s, n, kb, m);
	}
	wl_commit_est(m, cost, st, &est);
	return est.total_ns;
}

/* the threshold, in kB, below which a file of blocks blocks is WAL-logged */
static int
threshold_above(int64 blocks)
{
	return (int) Min((blocks + 1) * (BLCKSZ / 1024), (int64) MAX_KILOBYTES);
}

/*
 * At XACT_EVENT_PRE_COMMIT (or PRE_PREPARE): apply walload.commit_strategy.
 * s, n: the pending syncs of the commit's one reading of core's lists.
 */
void
wl_strategy_apply(WlStrategyChoice *choice, int64 dirty_buffers,
				  const WlPendingSync *s, int n)
{
	WlScanCost	cost;
	WlCommitState st;
	WlCommitModel all = {0};
	WlCommitModel m;
	int64	   *sizes;
	int			nsizes = 0;
	double		best_ns;

	*choice = (WlStrategyChoice) {.action = WL_ACTION_NONE,.threshold_kb = wal_skip_threshold};
	if (wl_commit_strategy == WL_STRATEGY_OFF || XLogIsNeeded() || n == 0)
		return;
	if (wl_guc_set_local("wal_skip_threshold"))
		choice->action = WL_ACTION_ASIDE_SET_LOCAL;
	else if (wl_commit_strategy == WL_STRATEGY_AUTO && !wl_store_calibrated())
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
	wl_model_decide_syncs(s, n, 0, &all);
	wl_commit_state_now(&st, &all, dirty_buffers, false);
	wl_cost_figures(&cost);

	/* not by the fsync ratio commits teach: it would flip within a load */
	cost.io.fsync_time_ratio = 0;

	/* the threshold, s sorted by size: each file moved to WAL costs one evaluation */
	choice->core_ns = best_ns = commit_ns(&m, s, n, wal_skip_threshold, &cost, &st);
	sizes = palloc(sizeof(int64) * Max(n, 1));
	for (int i = 0; i < n; i++)
		if (!s[i].truncated)
			sizes[nsizes++] = s[i].blocks;
	qsort(sizes, nsizes, sizeof(int64), cmp_int64);
	if (wl_commit_strategy == WL_STRATEGY_SYNC)
		choice->threshold_kb = 0;
	else if (wl_commit_strategy == WL_STRATEGY_WAL)
		choice->threshold_kb = nsizes > 0 ? threshold_above(sizes[nsizes - 1]) :
			wal_skip_threshold;
	else
	{
		/* all synced, then the k smallest WAL-logged, k = 1 .. nsizes */
		for (int k = 0; k <= nsizes; k++)
		{
			double		ns;

			if (k > 0)
			{
				m.synced_rels--;
				m.synced_blocks -= sizes[k - 1];
				m.wal_logged_rels++;
				m.wal_logged_blocks += sizes[k - 1];
				m.sync_scan = m.synced_rels > 0;
				/* files of the same size go together */
				if (k < nsizes && sizes[k] == sizes[k - 1])
					continue;
			}
			ns = commit_ns(&m, k == 0 ? s : NULL, n, 0, &cost, &st);
			if (ns < best_ns)
			{
				best_ns = ns;
				choice->threshold_kb = k == 0 ? 0 : threshold_above(sizes[k - 1]);
			}
		}
	}
	choice->chosen_ns = commit_ns(&m, s, n, choice->threshold_kb, &cost, &st);
	pfree(sizes);
	if (choice->threshold_kb != wal_skip_threshold)
	{
		char		value[32];

		snprintf(value, sizeof(value), "%d", choice->threshold_kb);
		(void) set_config_option("wal_skip_threshold", value, PGC_USERSET, PGC_S_SESSION,
								 GUC_ACTION_LOCAL, true, 0, false);
		choice->action = WL_ACTION_CHANGED;
	}
}
