/*-------------------------------------------------------------------------
 *
 * measure.h
 *		Usage marks: buffer, WAL and WAL I/O usage between two points
 *		(measure.c; the marks and adds every statement makes, inline here).
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

extern void wl_usage_since(const WlUsageMark *mark, WlCounters *c);
extern void wl_counters_add(WlCounters *pg_restrict dst,
							const WlCounters *pg_restrict src);
extern bool wl_wal_io_plain(WlWalIo *io);

static inline void
wl_usage_mark(WlUsageMark *mark)
{
	WlWalIo		io;

#define MARK(type, name, source) mark->c.name = source;
	WL_BUFFER_WAL_COUNTERS(MARK)
	WL_FPI_BYTES_COUNTERS(MARK)
#undef MARK
	mark->walio_valid = wl_wal_io_read(&io);
#define MARK_IO(type, name, field) mark->c.name = io.field;
	WL_WAL_IO_COUNTERS(MARK_IO)
#undef MARK_IO
}

/*
 * A utility statement's usage in two halves (accumulator.c): its buffers
 * around core's call, as pg_stat_statements counts them; its WAL from its
 * start to its end, with the page images of hint bits walload's look-ups set.
 */
static inline void
wl_usage_mark_buffers(WlUsageMark *mark)
{
#define MARK(type, name, source) mark->c.name = source;
	WL_BUFFER_COUNTERS(MARK)
#undef MARK
}

static inline void
wl_usage_accum_buffers(WlUsageMark *acc, const WlUsageMark *mark)
{
#define ACCUM(type, name, source) acc->c.name += source - mark->c.name;
	WL_BUFFER_COUNTERS(ACCUM)
#undef ACCUM
}

/*
 * The WAL and WAL I/O usage since mark, added to acc (the buffers': above;
 * end_phase adds both).  WAL I/O counters can go back
 * (compat.h, wl_wal_io_read: on 15-17 the pending ones, zeroed when the
 * backend reports statistics outside transactions): clamped at 0.
 */
static inline void
wl_usage_accum_wal(WlUsageMark *acc, const WlUsageMark *mark)
{
	WlWalIo		io;

#define ACCUM(type, name, source) acc->c.name += source - mark->c.name;
	WL_WAL_COUNTERS(ACCUM)
	WL_FPI_BYTES_COUNTERS(ACCUM)
#undef ACCUM
	if (mark->walio_valid && wl_wal_io_read(&io))
	{
#define ACCUM_IO(type, name, field) acc->c.name += Max(io.field - mark->c.name, 0);
		WL_WAL_IO_COUNTERS(ACCUM_IO)
#undef ACCUM_IO
		acc->walio_valid = true;
	}
}

#endif							/* WALLOAD_MEASURE_H */
