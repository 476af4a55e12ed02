/*-------------------------------------------------------------------------
 *
 * metrics.h
 *		Counters for exporters that only rise between resets (metrics.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef WALLOAD_METRICS_H
#define WALLOAD_METRICS_H

#include "types.h"

#define WL_METRICS_COMMANDS		1024	/* the command table's entries */
#define WL_METRICS_OTHER_RESERVE	64	/* of them, for 'other' rows */
#define WL_HIST_BUCKETS			18	/* histogram buckets (bounds: metrics.c) */

typedef enum WlHistMetric
{
	WL_HIST_COMMIT = 0,			/* a transaction's commit (or abort) phase */
	WL_HIST_WALK,				/* its walks of shared buffers (estimated) */
	WL_NUM_HIST
} WlHistMetric;

/* one row of walload_command_totals */
typedef struct WlCommandTotals
{
	Oid			dbid;			/* InvalidOid: the row every overflow folds into */
	Oid			userid;
	CommandTag	tag;			/* CMDTAG_UNKNOWN: 'other' */
	int64		calls;
	double		total_ms;
	double		commit_ms;
	int64		rows;
	int64		walks;
	uint64		wal_bytes;
} WlCommandTotals;

/* one histogram: counts per bucket (not cumulative), sum and max */
typedef struct WlHistogram
{
	int64		count[WL_HIST_BUCKETS];
	double		sum_s;
	double		max_s;
} WlHistogram;

extern Size wl_metrics_shmem_size(void);
extern void wl_metrics_shmem_init(void *mem, bool found);

extern void wl_metrics_statement(const WlStmtRecord *rec, int64 walks);
extern void wl_metrics_xact(const WlXactRecord *rec);
extern void wl_metrics_reset(void);

/* readers: copies */
extern int	wl_metrics_copy_commands(WlCommandTotals **out, TimestampTz *stats_reset);
extern void wl_metrics_copy_histograms(WlHistogram *out, TimestampTz *stats_reset);
extern double wl_metrics_bound(int bucket);

#endif							/* WALLOAD_METRICS_H */
