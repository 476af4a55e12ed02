/*-------------------------------------------------------------------------
 *
 * measure.c
 *		Usage marks: the backend's buffer, WAL and WAL I/O counters at a
 *		point; the usage since a mark or summed over several intervals (a
 *		statement's ExecutorRun / ExecutorFinish calls).  No state of its
 *		own (on 18+ reading WAL I/O flushes pending statistics: compat.h).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "measure.h"

/* c: its buffer, WAL and WAL I/O counters' usage since mark, the rest 0 */
void
wl_usage_since(const WlUsageMark *mark, WlCounters *c)
{
	WlWalIo		io;
	bool		io_valid = mark->walio_valid && wl_wal_io_read(&io);

	c->rows = 0;				/* and the scans, last */
	memset(&c->scans, 0, sizeof(WlCounters) - offsetof(WlCounters, scans));
#define SINCE(type, name, source) c->name = source - mark->c.name;
	WL_BUFFER_WAL_COUNTERS(SINCE)
	WL_FPI_BYTES_COUNTERS(SINCE)
#undef SINCE
#define SINCE_IO(type, name, field) c->name = io_valid ? Max(io.field - mark->c.name, 0) : 0;
	WL_WAL_IO_COUNTERS(SINCE_IO)
#undef SINCE_IO
}

/*
 * Every counter is an 8-byte integer (checked below), added as one array: a
 * loop the compiler vectorizes and unrolls.  Signed overflow wraps (-fwrapv).
 */
void
wl_counters_add(WlCounters *pg_restrict dst, const WlCounters *pg_restrict src)
{
	int64	   *d = (int64 *) dst;
	const int64 *s = (const int64 *) src;

#define ONE(type, name, source) + 1
	StaticAssertStmt(sizeof(WlCounters) == sizeof(int64) *
					 (2 + WL_NUM_SCAN_KINDS WL_BUFFER_WAL_COUNTERS(ONE)
					  WL_FPI_BYTES_COUNTERS(ONE) WL_WAL_IO_COUNTERS(ONE)),
					 "WlCounters is rows, the lists, scans and scan_est_ns, 8 bytes each");
#undef ONE
#define INTEGER(type, name, source) \
	StaticAssertStmt((type) 1 / 2 == 0, "counter " #name " is not an integer");
	WL_BUFFER_WAL_COUNTERS(INTEGER)
	WL_FPI_BYTES_COUNTERS(INTEGER)
	WL_WAL_IO_COUNTERS(INTEGER)
#undef INTEGER
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC unroll 32
#endif
	for (int i = 0; i < (int) (sizeof(WlCounters) / sizeof(int64)); i++)
		d[i] += s[i];
}

/*
 * This backend's WAL write and sync counters where reading them cannot fail
 * (compat.h, WL_WAL_IO_PLAIN_READ), for core's commit callback after the
 * commit record; else false, io zeroed.
 */
bool
wl_wal_io_plain(WlWalIo *io)
{
	if (WL_WAL_IO_PLAIN_READ)
		return wl_wal_io_read(io);
	memset(io, 0, sizeof(*io));
	return false;
}
