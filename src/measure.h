/*-------------------------------------------------------------------------
 *
 * measure.h
 *		Usage marks: buffer, WAL and WAL I/O usage between two points (measure.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef WALLOAD_MEASURE_H
#define WALLOAD_MEASURE_H

#include "walload.h"

/* a point to measure buffer, WAL and WAL I/O usage from */
typedef struct WlUsageMark
{
	BufferUsage buf;
	WalUsage	wal;
	WlWalIo		walio;
	bool		walio_valid;
} WlUsageMark;

extern void wl_usage_mark(WlUsageMark *mark);
extern void wl_usage_accum(WlUsageMark *acc, const WlUsageMark *mark);
extern void wl_usage_counters(const WlUsageMark *acc, WlCounters *c);
extern void wl_usage_since(const WlUsageMark *mark, WlCounters *c);
extern void wl_counters_add(WlCounters *dst, const WlCounters *src);

#endif							/* WALLOAD_MEASURE_H */
