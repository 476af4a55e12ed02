/*-------------------------------------------------------------------------
 *
 * cost.c
 *		walload's one cost model: what a walk of shared buffers and a commit
 *		cost, as exact counts times per-unit costs that the calibration
 *		worker (calibrate.c) timed on this server.
 *
 * A walk, priced cold: NBuffers x ns per header (by files compared), +
 * unmapped header pages x ns per fault, + buffers it acts on x ns per
 * invalidation.  Nothing here times; only wl_commit_state_now reads the system.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "cost.h"

#include "settings.h"
#include "store.h"

#include <math.h>
#include <unistd.h>

#include "access/xlog.h"
#include "executor/instrument.h"
#include "miscadmin.h"
#include "storage/buf_internals.h"
#include "storage/fd.h"
#include "utils/timestamp.h"

static const int cost_grid[WL_COST_GRID] = WL_COST_GRID_FILES;

static bool headers_mapped = false;	/* this backend has walked them */
static int64 mapped_before_walk = 0;	/* before its first walk (an abort's) */
static double faults_priced_ns = 0; /* its walk estimates' faults so far */
static bool record_space_ready = false; /* it WAL-logged files at a commit */

/* the store's figures, or walload.unit_costs'; a spinlock, no system call */
void
wl_cost_figures(WlScanCost *cost)
{
	wl_store_get_scan_cost(cost);
	wl_unit_costs_apply(cost);
}

/* The pages that hold the buffer header array: [start, end), page-aligned. */
void
wl_header_pages(uintptr_t *start, uintptr_t *end)
{
	uintptr_t	page = (uintptr_t) sysconf(_SC_PAGESIZE);

	*start = TYPEALIGN_DOWN(page, (uintptr_t) GetBufferDescriptor(0));
	*end = TYPEALIGN(page, (uintptr_t) GetBufferDescriptor(NBuffers - 1) +
					 sizeof(BufferDescPadded));
}

/* ns per header comparing nfiles files: linear up to 20 (one by one), log2 beyond (bsearch) */
static double
multi_ns_per_header(const double *grid_ns, int nfiles)
{
	int			g;
	bool		logs;
	double		x0,
				x1,
				x;

	if (nfiles <= 1)
		return grid_ns[0];
	for (g = 1; g < WL_COST_GRID - 1 && nfiles > cost_grid[g]; g++)
		;
	/* points g-1 and g bracket nfiles (or g is the last one: extrapolate) */
	if (cost_grid[g - 1] <= 20 && cost_grid[g] > 20)
		return nfiles <= 20 ? grid_ns[g - 1] : grid_ns[g];	/* the switch to bsearch */
	logs = cost_grid[g - 1] > 20;
	x0 = logs ? log2(cost_grid[g - 1]) : cost_grid[g - 1];
	x1 = logs ? log2(cost_grid[g]) : cost_grid[g];
	x = logs ? log2(nfiles) : nfiles;
	return Max(grid_ns[g - 1] + (grid_ns[g] - grid_ns[g - 1]) * (x - x0) / (x1 - x0), 0);
}

static double
wl_scan_fault_ns(const WlScanCost *cost, int64 unmapped_pages)
{
	return cost->single_ns <= 0 ? 0 : cost->fault_ns_per_page * Max(unmapped_pages, 0);
}

/* one cold walk over nfiles files, without page faults */
double
wl_scan_timed_ns(const WlScanCost *cost, WlScanKind kind, int nfiles)
{
	const double *grid = !cost->multi_valid ? NULL : kind == WL_SCAN_FLUSH_PENDING ? cost->flush_ns :
		kind == WL_SCAN_DROP_PENDING ? cost->drop_ns : NULL;

	if (cost->single_ns <= 0)
		return 0;
	return (grid ? multi_ns_per_header(grid, nfiles) : cost->single_ns) * NBuffers;
}

int64
wl_header_page_count(void)
{
	uintptr_t	start,
				end;

	wl_header_pages(&start, &end);
	return (int64) ((end - start) / (uintptr_t) sysconf(_SC_PAGESIZE));
}

/* the header pages this backend's next walk maps: none once it has walked */
static int64
header_pages_unmapped(void)
{
	return headers_mapped ? 0 : Max(wl_header_page_count() - mapped_before_walk, 0);
}

/* sizing.c's count at an abort mapped pages.  No system call: abort path. */
void
wl_header_pages_mapped(int64 pages)
{
	if (!headers_mapped)
		mapped_before_walk += Max(pages, 0);
}

/* buffers a walk invalidates or writes (bookkeeping about as much), per invalidation */
static double
wl_scan_buffers_ns(const WlScanCost *cost, int64 buffers)
{
	return Max(buffers, 0) * Max(cost->invalidate_ns_per_buffer, 0);
}

/* n walks by this backend, its first mapping the pages.  No system call. */
double
wl_scans_est_ns(WlScanKind kind, int64 n, int nfiles, int64 buffers)
{
	WlScanCost	cost;
	int64		unmapped = header_pages_unmapped();
	double		est;
	double		fault_ns;

	if (n <= 0)
		return 0;
	wl_cost_figures(&cost);
	headers_mapped = true;
	fault_ns = wl_scan_fault_ns(&cost, unmapped);
	est = n * wl_scan_timed_ns(&cost, kind, nfiles) + fault_ns + wl_scan_buffers_ns(&cost, buffers);
	faults_priced_ns += fault_ns;
	if (WlDebugMayOutput(DEBUG2))
		elog(DEBUG2, "walload: %lld walk(s) of kind %d over %d file(s): %lld unmapped header pages, "
			 "%lld buffers %s: %.3f ms, page faults %.3f ms",
			 (long long) n, (int) kind, nfiles, (long long) unmapped, (long long) buffers,
			 kind == WL_SCAN_FLUSH_PENDING ? "written" : "invalidated", est / 1e6, fault_ns / 1e6);
	return est;
}

/* a running total, which a record takes the difference of */
double
wl_scan_faults_priced_ns(void)
{
	return faults_priced_ns;
}

/* the system's dirty page cache, a bound on what fsyncs write; -1: unknown */
static int64
wl_os_dirty_blocks(void)
{
	FILE	   *f = AllocateFile("/proc/meminfo", "r");
	char		line[128];
	long long	kb = -1;

	if (f == NULL)
		return -1;
	/* sscanf sets kb only on the Dirty line */
	while (kb < 0 && fgets(line, sizeof(line), f) != NULL)
		(void) sscanf(line, "Dirty: %lld kB", &kb);
	FreeFile(f);
	return kb < 0 ? -1 : kb * 1024 / BLCKSZ;
}

/* the live prediction reads /proc/meminfo at most once a second */
#define WL_LIVE_STATE_REREAD_US	1000000
#define WL_UNFLUSHED_WAL_BYTES()	((int64) (GetXLogInsertRecPtr() - GetFlushRecPtr(NULL)))

/* what the commit's cost depends on besides core's decisions, now */
void
wl_commit_state_now(WlCommitState *st, const WlCommitModel *m, int64 dirty_buffers, bool live)
{
	static int64 dirty_lately;
	static TimestampTz read_at = 0; /* 0: never read */
	TimestampTz now = live && m->synced_blocks > 0 ? GetCurrentTimestamp() : 0;

	if (now != 0 && (read_at == 0 || now - read_at >= WL_LIVE_STATE_REREAD_US))
	{
		dirty_lately = wl_os_dirty_blocks();
		read_at = now;
	}
	st->unmapped_pages = m->sync_scan || m->drop_scan ? header_pages_unmapped() : 0;
	st->os_dirty_blocks = m->synced_blocks <= 0 ? -1 : live ? dirty_lately : wl_os_dirty_blocks();
	st->dirty_buffers = dirty_buffers;
	st->unflushed_wal_bytes = WL_UNFLUSHED_WAL_BYTES();
	st->wal_own_bytes = (int64) pgWalUsage.wal_bytes;
	st->wal_ring_bytes = (int64) XLOGbuffers * XLOG_BLCKSZ;
	st->record_space_ready = record_space_ready;
}

/* core has grown this backend's WAL record space for 32 blocks */
void
wl_note_commit_wal_logged(void)
{
	record_space_ready = true;
}

/* WAL bytes per whole block logged besides it: XLOG_FPI and page headers */
#define WL_FPI_OVERHEAD_BYTES	50

/* WAL buffer pages the images go to that this backend has not mapped (one writer) */
static double
wal_pages_unmapped(const WlCommitModel *m, const WlCommitState *st, const WlIoCost *io)
{
	double		ring = (double) st->wal_ring_bytes;
	double		images = Min((double) m->wal_logged_blocks *
							 (BLCKSZ + WL_FPI_OVERHEAD_BYTES), ring);
	double		written_ahead = Min(Max((double) Max(st->wal_own_bytes, 0) + images - ring, 0), images);

	if (images <= 0 || ring <= 0 || io->page_bytes <= 0)
		return 0;
	return (images - written_ahead) / io->page_bytes;
}

/* deleting rels files, forks forks, stored_forks with stored_blocks on disk */
static double
deleted_files_ns(const WlIoCost *io, int64 rels, int64 forks, int64 stored_forks,
				 int64 stored_blocks, int64 blocks)
{
	return rels * io->open_ns +
		Max(rels * (MAX_FORKNUM + 2) - forks, 0) * io->open_missing_ns +
		stored_forks * io->delete_ns_per_file + stored_blocks * io->delete_ns_per_block +
		Max(forks - stored_forks, 0) * io->delete_cached_ns_per_file +
		Max(blocks - stored_blocks, 0) * io->delete_cached_ns_per_block;
}

/* wal_bytes written and flushed, the new segments zero-filled first: the I/O alone */
double
wl_wal_written_ns(const WlIoCost *io, double wal_bytes)
{
	double		blocks = wal_bytes / XLOG_BLCKSZ;
	double		new_blocks = Max(wal_bytes - wal_segment_size, 0) / XLOG_BLCKSZ;

	return (blocks + new_blocks) * (Max(io->write_ns_per_block, 0) + Max(io->fsync_ns_per_block, 0));
}

/* a commit with nothing pending: writing and flushing wal_blocks (< 0: all unflushed now) */
void
wl_commit_est_flush(const WlScanCost *cost, double wal_blocks, WlCommitEstimate *est)
{
	double		wal_ns;

	if (wal_blocks < 0)			/* fmax reads the pointers once, Max twice */
		wal_blocks = fmax((double) WL_UNFLUSHED_WAL_BYTES(), 0) / BLCKSZ;
	wal_ns = !cost->io.valid ? 0 : wal_blocks *
		(cost->io.write_ns_per_block + cost->io.fsync_ns_per_block) + cost->io.wal_flush_ns;
	*est = (WlCommitEstimate) {.wal_ns = wal_ns,.sync_phase_ns = wal_ns,.total_ns = wal_ns};
}

/*
 * A commit core decides as m, in state st: scan (walks, faults, buffers);
 * sync (dirty buffers written, fsyncs scaled by the learned
 * io.fsync_time_ratio); wal (the flush and whole blocks); drop (deleting
 * files); io.file_commit_ns per file, learned.  Pure.
 */
void
wl_commit_est(const WlCommitModel *m, const WlScanCost *cost, const WlCommitState *st,
			  WlCommitEstimate *est)
{
	int64		to_write = Min(Max(st->dirty_buffers, 0), m->synced_blocks);
	int64		dirty = m->synced_blocks;
	double		wal_blocks = m->wal_logged_blocks +
		(double) Max(st->unflushed_wal_bytes, 0) / BLCKSZ;
	double		fault_ns = m->sync_scan || m->drop_scan ? wl_scan_fault_ns(cost, st->unmapped_pages) : 0;
	double		sync_scan_ns = m->sync_scan ?
		wl_scan_timed_ns(cost, WL_SCAN_FLUSH_PENDING, m->synced_rels) : 0;
	double		drop_scan_ns = m->drop_scan ?
		wl_scan_timed_ns(cost, WL_SCAN_DROP_PENDING, m->dropped_rels) : 0;
	double		sync_buffers_ns;

	wl_commit_est_flush(cost, wal_blocks, est);
	/* nothing pending: every term but the WAL flush has a zero count (the fast path) */
	if (!m->sync_scan && !m->drop_scan && m->synced_rels == 0 &&
		m->synced_blocks == 0 && m->wal_logged_rels == 0 &&
		m->wal_logged_blocks == 0 && m->dropped_rels == 0 &&
		m->dropped_blocks == 0 && m->dropped_forks == 0 &&
		m->dropped_stored_forks == 0 && m->dropped_stored_blocks == 0)
		return;
	est->sync_written = m->sync_scan ? to_write : 0;
	sync_buffers_ns = wl_scan_buffers_ns(cost, est->sync_written);
	est->scan_ns = sync_scan_ns + drop_scan_ns + fault_ns +
		(m->drop_scan ? wl_scan_buffers_ns(cost, m->dropped_buffers) : 0) + sync_buffers_ns;
	est->sync_phase_ns = sync_scan_ns + sync_buffers_ns + (m->sync_scan ? fault_ns : 0);
	if (cost->io.valid)
	{
		const WlIoCost *io = &cost->io;
		double		forks_ns = io->open_ns + (MAX_FORKNUM) * io->open_missing_ns;
		double		ratio = wl_learned_ratio(io->fsync_time_ratio);
		/* blocks WAL-logged into new, zero-filled segments (the first finds one recycled) */
		double		new_segment_blocks = Max((double) m->wal_logged_blocks -
											 (double) wal_segment_size / (BLCKSZ + WL_FPI_OVERHEAD_BYTES), 0);
		/* log_newpage_range reads blocks a bulk write's ring no longer holds */
		double		unread = m->wal_logged_blocks <= 0 ? 0 : m->wal_logged_blocks *
			(1 - Min((double) Max(st->dirty_buffers, 0) / ((double) m->synced_blocks + m->wal_logged_blocks), 1));

		if (st->os_dirty_blocks >= 0)
			dirty = Min(dirty, st->os_dirty_blocks + to_write);
		est->fsync_timed_ns = m->synced_rels * io->fsync_ns_per_file +
			dirty * io->fsync_ns_per_block;
		est->fsync_ns = est->fsync_timed_ns * ratio;
		est->sync_ns = to_write * io->write_ns_per_block +
			m->synced_rels * 2 * forks_ns + est->fsync_ns;
		est->wal_ns = est->wal_ns + m->wal_logged_blocks * io->fpi_ns_per_block +
			new_segment_blocks * (io->write_ns_per_block + io->fsync_ns_per_block) +
			unread * io->write_ns_per_block + m->wal_logged_rels * forks_ns +
			wal_pages_unmapped(m, st, io) * io->wal_fault_ns_per_page +
			(m->wal_logged_rels > 0 && !st->record_space_ready ? io->record_space_ns : 0);
		est->sync_phase_ns += est->sync_ns + est->wal_ns;
		est->drop_ns = deleted_files_ns(io, m->dropped_rels, m->dropped_forks,
										m->dropped_stored_forks, m->dropped_stored_blocks,
										m->dropped_blocks);
		/* read by pre_commit_record's message alone */
		est->drop_ondisk_ns = !WlDebugMayOutput(DEBUG1) ? 0 :
			deleted_files_ns(io, m->dropped_rels, m->dropped_forks, m->dropped_forks,
							 m->dropped_blocks, m->dropped_blocks);
	}
	est->files_ns = (m->synced_rels + m->wal_logged_rels) * Max(cost->io.file_commit_ns, 0);
	est->total_ns = est->scan_ns + est->sync_ns + est->wal_ns + est->drop_ns + est->files_ns;
}

