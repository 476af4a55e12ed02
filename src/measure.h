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

/*
 * A point to measure buffer, WAL and WAL I/O usage from, or a sum of usage:
 * only the counters walload reports (WlCounters), so that marking and
 * adding up cost a handful of instructions on every executor phase.
 */
typedef struct WlUsageMark
{
	int64		shared_blks_hit;
	int64		shared_blks_read;
	int64		shared_blks_dirtied;
	int64		shared_blks_written;
	int64		wal_records;
	int64		wal_fpi;
	uint64		wal_bytes;
	uint64		wal_fpi_bytes;	/* 0 before 19 */
	WlWalIo		walio;
	bool		walio_valid;
} WlUsageMark;

extern void wl_usage_mark(WlUsageMark *mark);
extern void wl_usage_accum(WlUsageMark *acc, const WlUsageMark *mark);
extern void wl_usage_counters(const WlUsageMark *acc, WlCounters *c);
extern void wl_usage_since(const WlUsageMark *mark, WlCounters *c);
extern void wl_counters_add(WlCounters *dst, const WlCounters *src);

#endif							/* WALLOAD_MEASURE_H */
