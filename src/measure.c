/*-------------------------------------------------------------------------
 *
 * measure.c
 *		Usage marks: the backend's buffer, WAL and WAL I/O counters at a
 *		point, the usage since a mark, and usage accumulated over several
 *		intervals (an executor statement's ExecutorRun / ExecutorFinish
 *		calls).  Reads core's counters; keeps no state of its own (on 18+
 *		reading the WAL I/O counters flushes this backend's pending I/O
 *		statistics into its shared entry and remembers what it read: see
 *		wl_wal_io_read in compat.h).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "measure.h"

void
wl_usage_mark(WlUsageMark *mark)
{
	WlWalIo		io;

	mark->c.shared_blks_hit = pgBufferUsage.shared_blks_hit;
	mark->c.shared_blks_read = pgBufferUsage.shared_blks_read;
	mark->c.shared_blks_dirtied = pgBufferUsage.shared_blks_dirtied;
	mark->c.shared_blks_written = pgBufferUsage.shared_blks_written;
	mark->c.wal_records = pgWalUsage.wal_records;
	mark->c.wal_fpi = pgWalUsage.wal_fpi;
	mark->c.wal_bytes = pgWalUsage.wal_bytes;
	mark->c.wal_fpi_bytes = WlWalFpiBytes(pgWalUsage);
	mark->walio_valid = wl_wal_io_read(&io);
	mark->c.wal_writes = io.writes;
	mark->c.wal_syncs = io.syncs;
	mark->c.wal_sync_us = io.sync_us;
}

/*
 * Add the usage since mark to acc (a mark used as a sum, zeroed to
 * start).  The WAL I/O counters can go back (compat.h, wl_wal_io_read: on
 * 15-17 they are the pending ones, zeroed when the backend reports its
 * statistics, only outside transactions); clamp rather than go negative.
 */
void
wl_usage_accum(WlUsageMark *acc, const WlUsageMark *mark)
{
	WlWalIo		io;

	acc->c.shared_blks_hit += pgBufferUsage.shared_blks_hit - mark->c.shared_blks_hit;
	acc->c.shared_blks_read += pgBufferUsage.shared_blks_read - mark->c.shared_blks_read;
	acc->c.shared_blks_dirtied += pgBufferUsage.shared_blks_dirtied - mark->c.shared_blks_dirtied;
	acc->c.shared_blks_written += pgBufferUsage.shared_blks_written - mark->c.shared_blks_written;
	acc->c.wal_records += pgWalUsage.wal_records - mark->c.wal_records;
	acc->c.wal_fpi += pgWalUsage.wal_fpi - mark->c.wal_fpi;
	acc->c.wal_bytes += pgWalUsage.wal_bytes - mark->c.wal_bytes;
	acc->c.wal_fpi_bytes += WlWalFpiBytes(pgWalUsage) - mark->c.wal_fpi_bytes;
	if (mark->walio_valid && wl_wal_io_read(&io))
	{
		acc->c.wal_writes += Max(io.writes - mark->c.wal_writes, 0);
		acc->c.wal_syncs += Max(io.syncs - mark->c.wal_syncs, 0);
		acc->c.wal_sync_us += Max(io.sync_us - mark->c.wal_sync_us, 0);
		acc->walio_valid = true;
	}
}

/* fill c's buffer, WAL and WAL I/O counters with the usage since mark */
void
wl_usage_since(const WlUsageMark *mark, WlCounters *c)
{
	WlUsageMark acc;

	memset(&acc, 0, sizeof(acc));
	wl_usage_accum(&acc, mark);
	*c = acc.c;
}

void
wl_counters_add(WlCounters *dst, const WlCounters *src)
{
	dst->rows += src->rows;
	dst->shared_blks_hit += src->shared_blks_hit;
	dst->shared_blks_read += src->shared_blks_read;
	dst->shared_blks_dirtied += src->shared_blks_dirtied;
	dst->shared_blks_written += src->shared_blks_written;
	dst->wal_records += src->wal_records;
	dst->wal_fpi += src->wal_fpi;
	dst->wal_bytes += src->wal_bytes;
	dst->wal_fpi_bytes += src->wal_fpi_bytes;
	dst->wal_writes += src->wal_writes;
	dst->wal_syncs += src->wal_syncs;
	dst->wal_sync_us += src->wal_sync_us;
	for (int i = 0; i < WL_NUM_SCAN_KINDS; i++)
		dst->scans[i] += src->scans[i];
	dst->scan_est_ns += src->scan_est_ns;
}

/*
 * This backend's WAL write and sync counters where reading them cannot
 * fail (compat.h, WL_WAL_IO_PLAIN_READ): for core's commit callback, after
 * the commit record.  false (io zeroed) where they cannot be read so.
 */
bool
wl_wal_io_plain(WlWalIo *io)
{
	if (!WL_WAL_IO_PLAIN_READ)
	{
		memset(io, 0, sizeof(*io));
		return false;
	}
	return wl_wal_io_read(io);
}
