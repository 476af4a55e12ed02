/*-------------------------------------------------------------------------
 *
 * measure.h
 *		Usage marks: buffer, WAL and WAL I/O usage between two points (measure.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef WALLOAD_MEASURE_H
#define WALLOAD_MEASURE_H

#include "types.h"

/*
 * A point to measure buffer, WAL and WAL I/O usage from, or a sum of usage
 * (zeroed to start), in c's fields for them (rows and scans unused): only
 * what walload reports, cheap to mark and add up on every executor phase.
 */
typedef struct WlUsageMark
{
	WlCounters	c;
	bool		walio_valid;	/* c's WAL I/O counters were read */
} WlUsageMark;

extern void wl_usage_mark(WlUsageMark *mark);
extern void wl_usage_accum(WlUsageMark *acc, const WlUsageMark *mark);
extern void wl_usage_since(const WlUsageMark *mark, WlCounters *c);
extern void wl_usage_mark_buffers(WlUsageMark *mark);
extern void wl_usage_accum_buffers(WlUsageMark *acc, const WlUsageMark *mark);
extern void wl_usage_accum_wal(WlUsageMark *acc, const WlUsageMark *mark);
extern void wl_counters_add(WlCounters *pg_restrict dst,
							const WlCounters *pg_restrict src);
extern bool wl_wal_io_plain(WlWalIo *io);

#endif							/* WALLOAD_MEASURE_H */
