/*-------------------------------------------------------------------------
 *
 * strategy.h
 *		walload.commit_strategy: choosing, per commit, which pending syncs
 *		core fsyncs and which it WAL-logs (strategy.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef WALLOAD_STRATEGY_H
#define WALLOAD_STRATEGY_H

#include "model.h"

/* what the strategy decided for one commit */
typedef struct WlStrategyChoice
{
	WlStrategyAction action;	/* what it did (types.h) */
	int			threshold_kb;	/* the wal_skip_threshold core uses */
	double		core_ns;		/* predicted sync and WAL part at the
								 * transaction's, had walload not acted */
	double		chosen_ns;		/* and at threshold_kb */
} WlStrategyChoice;

extern void wl_strategy_apply(WlStrategyChoice *choice, int64 dirty_buffers,
							  const WlPendingSync *s, int n);
extern void wl_strategy_note_commit(double measured_ms, double predicted_ms);

#endif							/* WALLOAD_STRATEGY_H */
