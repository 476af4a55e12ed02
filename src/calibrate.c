/*-------------------------------------------------------------------------
 *
 * calibrate.c
 *		The calibration worker: times, on this server, the per-unit costs
 *		that cost.c's model multiplies by counts; its request protocol.
 *
 * The walks are core's own functions called for files no buffer can hold
 * (tablespace 0): every header compared, nothing locked or written; each
 * pass after writes that evict the CPU caches (real walks find the headers
 * in memory), less the time spent waiting for a CPU.  The storage is timed
 * in a scratch file under base/pgsql_tmp.  The worker times everything at
 * every start and crash-restart; until it is done the figures are zero,
 * which every estimate reads as none.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "calibrate.h"

#include "cost.h"

#include "store_shm.h"

#ifndef WIN32
#include <dlfcn.h>
#endif
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "access/xlogrecord.h"
#include "access/xlogutils.h"
#include "miscadmin.h"
#include "port/pg_crc32c.h"
#include "pgstat.h"
#include "postmaster/bgworker.h"
#include "postmaster/interrupt.h"
#include "storage/bufmgr.h"
#include "storage/fd.h"
#include "storage/ipc.h"
#include "storage/latch.h"
#include "tcop/tcopprot.h"
#include "utils/guc.h"
#include "utils/memutils.h"
#include "utils/ps_status.h"
#include "utils/resowner.h"

PGDLLEXPORT void walload_calibration_main(Datum main_arg);

static const int cost_grid[WL_COST_GRID] = WL_COST_GRID_FILES;

/* passes at server start: the median of 9 is stable to a few percent */
#define WL_STARTUP_CALIBRATION_PASSES 9

static double
ns_since(instr_time start)
{
	instr_time	now;

	INSTR_TIME_SET_CURRENT(now);
	INSTR_TIME_SUBTRACT(now, start);
	return INSTR_TIME_GET_DOUBLE(now) * 1e9;
}

WL_CMP_FUNCTION(cmp_double, double)

/* the i-th lowest of v[0..n), which it sorts */
static double
nth_lowest(double *v, int n, int i)
{
	qsort(v, n, sizeof(double), cmp_double);
	return v[i];
}
#define median_of(v, n)		nth_lowest((v), (n), (n) / 2)

typedef enum WalkKind
{
	WALK_ONE_FILE,				/* DropRelFileNodeBuffers / DropRelationBuffers */
	WALK_FLUSH_ALL,				/* FlushRelationsAllBuffers */
	WALK_DROP_ALL				/* DropRelFileNodesAllBuffers / DropRelationsAllBuffers */
} WalkKind;

/*
 * What timed walks work on: in the calibration's context, reset after it;
 * only the eviction buffer, up to 128 MB, goes before the storage is timed.
 */
typedef struct Walker
{
	SMgrRelationData *files;	/* files no buffer holds: tablespace 0 (palloc0) */
	SMgrRelation *filep;
	volatile char *evict;		/* NULL: passes timed warm, an underestimate */
	Size		evict_len;
	double	   *ns;				/* a figure per pass */
} Walker;

static void
set_cached_nblocks(const Walker *w, int nfiles, BlockNumber nblocks)
{
	for (int i = 0; i < nfiles; i++)
		for (int f = 0; f <= MAX_FORKNUM; f++)
			w->files[i].smgr_cached_nblocks[f] = nblocks;
}

static void
walker_init(Walker *w, int nfiles, int passes)
{
	long		llc = -1;

	w->files = palloc0(sizeof(SMgrRelationData) * nfiles);
	w->filep = palloc(sizeof(SMgrRelation) * nfiles);
	for (int i = 0; i < nfiles; i++)
	{
		SMgrRelationData *srel = &w->files[i];

		WL_REL_NUMBER(WlSmgrFile(srel)) = PG_UINT32_MAX - i;
		WlSmgrBackend(srel) = WL_INVALID_BACKEND;
		w->filep[i] = srel;
	}
	set_cached_nblocks(w, nfiles, InvalidBlockNumber);
	w->ns = palloc(sizeof(double) * passes);

	/*
	 * Bytes written between passes so that the headers leave the CPU caches:
	 * twice the last-level cache libc reports (some VMs' kernels misreport).
	 */
#ifdef _SC_LEVEL3_CACHE_SIZE
	llc = sysconf(_SC_LEVEL3_CACHE_SIZE);
	if (llc <= 0)
		llc = sysconf(_SC_LEVEL2_CACHE_SIZE);
#endif
	if (llc <= 0)
		llc = 32L * 1024 * 1024;
	w->evict_len = (Size) Min(Max(2 * llc, 16L * 1024 * 1024), 128L * 1024 * 1024);
	w->evict = palloc_extended(w->evict_len, MCXT_ALLOC_HUGE | MCXT_ALLOC_NO_OOM);
}

/* ns this thread waited for a CPU while runnable; -1 if unknown */
static double
run_delay_ns(void)
{
	FILE	   *f = fopen("/proc/thread-self/schedstat", "r");
	unsigned long long on_cpu,
				waited;
	double		ns = -1;

	if (f == NULL)
		return -1;
	if (fscanf(f, "%llu %llu", &on_cpu, &waited) == 2)
		ns = (double) waited;
	fclose(f);
	return ns;
}

/*
 * ns of one walk over nfiles files.  The many-file drop skips the walk where
 * it knows each fork is small (in recovery): told sizes as then, far above.
 */
static double
time_walk(const Walker *w, WalkKind walk, int nfiles, int pass)
{
	instr_time	start;
	double		waited,
				now,
				ns;

	CHECK_FOR_INTERRUPTS();
	if (w->evict != NULL)
		for (Size off = 0; off < w->evict_len; off += 64)
			w->evict[off] = (char) (pass + off);
	waited = run_delay_ns();
	INSTR_TIME_SET_CURRENT(start);
	if (walk == WALK_ONE_FILE)
	{
		ForkNumber	fork = MAIN_FORKNUM;
		BlockNumber first_block = 0;

		WlDropRelationBuffers(&w->files[0], &fork, 1, &first_block);
	}
	else if (walk == WALK_FLUSH_ALL)
		FlushRelationsAllBuffers(w->filep, nfiles);
	else
	{
		bool		was_in_recovery = InRecovery;

		set_cached_nblocks(w, nfiles, (BlockNumber) NBuffers);
		InRecovery = true;
		PG_TRY();
		{
			WlDropRelationsAllBuffers(w->filep, nfiles);
		}
		PG_FINALLY();
		{
			InRecovery = was_in_recovery;
			set_cached_nblocks(w, nfiles, InvalidBlockNumber);
		}
		PG_END_TRY();
	}
	ns = ns_since(start);

	/*
	 * Less the time other processes had the CPU, but not what the hypervisor
	 * steals from a running walk, as a real walk pays it.
	 */
	now = waited >= 0 ? run_delay_ns() : -1;
	waited = waited >= 0 && now >= waited ? now - waited : 0;
	return Max(ns - waited, 0);
}

/* the median of passes walks, in ns per buffer header */
static double
median_walk(const Walker *w, WalkKind walk, int nfiles, int passes)
{
	for (int p = 0; p < passes; p++)
		w->ns[p] = time_walk(w, walk, nfiles, p);
	return median_of(w->ns, passes) / Max(NBuffers, 1);
}

/* unmap the buffer headers' pages in this process: how many, -1 if refused */
static int64
unmap_headers(void)
{
	uintptr_t	start,
				end;

	wl_header_pages(&start, &end);
	if (madvise((void *) start, end - start, MADV_DONTNEED) != 0)
		return -1;
	return wl_header_page_count();
}

/*
 * The median ns per header page unmapped and walked, over walk_ns; -1 where
 * unmapping is refused (huge pages on older kernels).
 */
static double
remapped_fault_ns(const Walker *w, double walk_ns, int passes)
{
	int			n = 0;

	for (int p = 0; p < passes; p++)
	{
		int64		unmapped = unmap_headers();

		if (unmapped <= 0)
			break;
		w->ns[n++] = Max(time_walk(w, WALK_ONE_FILE, 1, p) - walk_ns, 0) / unmapped;
	}
	return n > 0 ? median_of(w->ns, n) : -1;
}

/*
 * What invalidating a buffer adds to the walk that finds it, ns per buffer:
 * clean zero pages of a nowhere file are made and dropped.  Later passes
 * find warm entries, real walks cold ones: the first pass is a floor.
 */
static double
invalidate_ns_per_buffer(const Walker *w, int passes)
{
	int			nbuffers = Min(1024, NBuffers / 16);
	double		walk_ns;
	double		first;

	if (nbuffers < 64)
		return 0;
	walk_ns = median_walk(w, WALK_ONE_FILE, 1, passes) * Max(NBuffers, 1);
	for (int p = 0; p < passes; p++)
	{
		for (int b = 0; b < nbuffers; b++)
		{
			Buffer		buf = ReadBufferWithoutRelcache(WlSmgrFile(&w->files[0]), MAIN_FORKNUM,
														(BlockNumber) b, RBM_ZERO_AND_LOCK,
														NULL, true);

			UnlockReleaseBuffer(buf);
		}
		w->ns[p] = Max(time_walk(w, WALK_ONE_FILE, 1, p) - walk_ns, 0) / nbuffers;
	}
	first = w->ns[0];
	return Max(median_of(w->ns, passes), first);
}

/* the many-file walks need a resource owner; the invalidation makes buffers */
static void
wl_scan_cost_calibrate(int passes, bool invalidate, WlScanCost *cost)
{
	Walker		w;
	int64		unmapped;
	double		first_ns;

	memset(cost, 0, sizeof(*cost));
	walker_init(&w, cost_grid[WL_COST_GRID - 1], passes);
	/* a calibration after this process's first one maps them again */
	unmapped = unmap_headers();
	first_ns = time_walk(&w, WALK_ONE_FILE, 1, 0);
	cost->single_ns = median_walk(&w, WALK_ONE_FILE, 1, passes);

	/*
	 * A new process's first walk varies by a factor of two, so the walk is
	 * repeated after unmapping, which is cheaper (the page tables stay): a
	 * floor to the first walk's figure.
	 */
	if (unmapped > 0)
	{
		double		walk_ns = cost->single_ns * NBuffers;
		double		first = Max(first_ns - walk_ns, 0) / unmapped;
		double		remapped = remapped_fault_ns(&w, walk_ns, passes);

		if (remapped >= 0)
			elog(DEBUG1, "walload calibration: page faults: %.0f ns a page mapped again, %.0f in this process's first walk",
				 remapped, first);
		cost->fault_ns_per_page = Max(remapped, first);
	}
	if (CurrentResourceOwner != NULL)
	{
		/*
		 * The many-file walks, as multiples of the one-file walk timed in the
		 * same pass: other processes slow their comparisons more, so a low
		 * pass (the second lowest) is the figure.  By pass: at [2g] the flush
		 * of cost_grid[g] files, [2g + 1] the drop.
		 */
		double	   *ratio = palloc(sizeof(double) * passes * WL_COST_GRID * 2);

		for (int p = 0; p < passes; p++)
		{
			double		one = Max(time_walk(&w, WALK_ONE_FILE, 1, p), 1);

			for (int i = 0; i < WL_COST_GRID * 2; i++)
				ratio[i * passes + p] = time_walk(&w, i % 2 ? WALK_DROP_ALL : WALK_FLUSH_ALL,
												  cost_grid[i / 2], p) / one;
		}
		for (int i = 0; i < WL_COST_GRID * 2; i++)
			(i % 2 ? cost->drop_ns : cost->flush_ns)[i / 2] =
				cost->single_ns * nth_lowest(&ratio[i * passes], passes, passes >= 3);
		cost->multi_valid = true;
		if (invalidate)
			cost->invalidate_ns_per_buffer = invalidate_ns_per_buffer(&w, passes);
	}
	if (w.evict != NULL)
		pfree((void *) w.evict);
	elog(DEBUG1, "walload calibration: %d passes, ns per buffer header: one file %.3f, "
		 "flush of 1/8/20/21/1024 files %.3f/%.3f/%.3f/%.3f/%.3f, "
		 "drop of 1/8/20/21/1024 files %.3f/%.3f/%.3f/%.3f/%.3f; %.0f ns per unmapped page (%lld pages); "
		 "%.0f ns per buffer invalidated",
		 passes, cost->single_ns,
		 cost->flush_ns[0], cost->flush_ns[1], cost->flush_ns[2], cost->flush_ns[3], cost->flush_ns[4],
		 cost->drop_ns[0], cost->drop_ns[1], cost->drop_ns[2], cost->drop_ns[3], cost->drop_ns[4],
		 cost->fault_ns_per_page, (long long) unmapped, cost->invalidate_ns_per_buffer);
}

/* ---------------- the storage: writes, fsyncs, file deletion ---------- */
#define WL_IO_BLOCKS	1024	/* blocks written and synced per pass */
static int64 io_bytes_written = 0;	/* under the data directory */

/* the storage's times, by pass */
typedef struct IoTimes
{
	double		write[5];
	double		fsync[5];
	double		flush[5];
	double		del[5];
	double		open[5];
	double		missing[5];
} IoTimes;

/*
 * Time at pass p a new scratch file of nblocks blocks: unless cached (its
 * blocks only in the page cache), rewritten (a commit overwrites blocks core
 * extended, which costs less), fsynced, and a block flushed as WAL is
 * (rewritten in a preallocated file, data synced); then deleted as a
 * relation file is, by truncating it (mdunlinkfork).
 */
static bool
time_file(const char *path, int nblocks, const char *block, bool cached, IoTimes *t, int p)
{
	int			fd = BasicOpenFile(path, O_RDWR | O_CREAT | O_TRUNC | PG_BINARY);
	bool		ok = fd >= 0;
	instr_time	start;

	for (int i = 0; i < nblocks && ok; i++)
	{
		ok = (write(fd, block, BLCKSZ) == BLCKSZ);
		io_bytes_written += ok ? BLCKSZ : 0;
	}
	if (ok && !cached)
	{
		INSTR_TIME_SET_CURRENT(start);
		for (int i = 0; i < nblocks && ok; i++)
			ok = (pg_pwrite(fd, block, BLCKSZ, (off_t) i * BLCKSZ) == BLCKSZ);
		t->write[p] = ns_since(start);
		io_bytes_written += ok ? (int64) nblocks * BLCKSZ : 0;
		INSTR_TIME_SET_CURRENT(start);
		ok = ok && pg_fsync(fd) == 0;
		t->fsync[p] = ns_since(start);
		INSTR_TIME_SET_CURRENT(start);
		ok = ok && pg_pwrite(fd, block, BLCKSZ, 0) == BLCKSZ && pg_fdatasync(fd) == 0;
		t->flush[p] = ns_since(start);
		io_bytes_written += ok ? BLCKSZ : 0;
	}
	INSTR_TIME_SET_CURRENT(start);
	ok = ok && ftruncate(fd, 0) == 0;
	t->del[p] = ns_since(start);
	if (fd >= 0)
		close(fd);
	return unlink(path) == 0 && ok;
}

/* ns of an open and close of path, which exists or not as expected; else -1 */
static double
time_open(const char *path, bool exists)
{
	instr_time	start;

	INSTR_TIME_SET_CURRENT(start);
	for (int i = 0; i < 16; i++)
	{
		int			fd = BasicOpenFile(path, O_RDWR | PG_BINARY);

		if (fd >= 0)
			close(fd);
		if ((fd >= 0) != exists)
			return -1;
	}
	return ns_since(start) / 16;
}

/*
 * A backend's first writes: to shared memory another process filled (the
 * WAL buffers), and to core's WAL record space for 32 blocks (new memory).
 * Without these figures the first writes are left out, nothing else.
 */
static void
time_first_writes(WlIoCost *io)
{
	long		page = sysconf(_SC_PAGESIZE);
	Size		shared_size = 4 * 1024 * 1024;
	Size		space = XLR_MAX_BLOCK_ID * (BLCKSZ + BLCKSZ / 64);
	double		f[3],
				a[3];
	char	   *shared;
	bool		ok = true;

	if (page <= 0)
		return;
	shared = mmap(NULL, shared_size, PROT_READ | PROT_WRITE,
				  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (shared == MAP_FAILED)
		return;
	memset(shared, 1, shared_size);
	for (int p = 0; p < 3 && ok; p++)
	{
		instr_time	start;
		char	   *fresh;

		ok = madvise(shared, shared_size, MADV_DONTNEED) == 0;
		INSTR_TIME_SET_CURRENT(start);
		for (Size off = 0; off < shared_size && ok; off += page)
			shared[off] = (char) p;
		f[p] = ns_since(start) / (shared_size / page);

		INSTR_TIME_SET_CURRENT(start);
		fresh = mmap(NULL, space, PROT_READ | PROT_WRITE,
					 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		ok = ok && fresh != MAP_FAILED;
		if (fresh != MAP_FAILED)
		{
			memset(fresh, 0, space);
			munmap(fresh, space);
		}
		a[p] = ns_since(start);
	}
	munmap(shared, shared_size);
	if (!ok)
		return;
	io->wal_fault_ns_per_page = median_of(f, 3);
	io->record_space_ns = median_of(a, 3);
	io->page_bytes = (double) page;
}

/* time the storage into cost->io; returns the bytes written (76 MB at 8 kB) */
static int64
wl_io_cost_calibrate(WlScanCost *cost)
{
	char		path[MAXPGPATH];
	char		missing[MAXPGPATH];
	char	   *block = palloc(BLCKSZ);
	char	   *copy = palloc(BLCKSZ);
	instr_time	start;
	pg_crc32c	crc;
	IoTimes		big,
				one,
				cached_big,
				cached_one;
	IoTimes    *runs[] = {&big, &one, &cached_big, &cached_one};
	bool		ok = MakePGDirectory("base/" PG_TEMP_FILES_DIR) == 0 || errno == EEXIST;

	io_bytes_written = 0;
	/* not all zeros: some file systems store those for free */
	for (int i = 0; i < BLCKSZ; i++)
		block[i] = (char) (i * 131 + 17);
	snprintf(path, sizeof(path), "base/%s/%swalload_calibration.%d",
			 PG_TEMP_FILES_DIR, PG_TEMP_FILE_PREFIX, MyProcPid);
	snprintf(missing, sizeof(missing), "%s_fsm", path);
	/* many blocks in 3 passes, one in 5; then both with blocks only cached */
	for (int r = 0; r < lengthof(runs); r++)
		for (int p = 0; p < (r % 2 ? 5 : 3) && ok; p++)
			ok = time_file(path, r % 2 ? 1 : WL_IO_BLOCKS, block, r >= 2, runs[r], p);
	/* md.c's questions: mdexists reopens each fork, the others are usually missing */
	for (int p = 0; p < 5 && ok; p++)
	{
		int			fd = BasicOpenFile(path, O_RDWR | O_CREAT | O_TRUNC | PG_BINARY);

		if (fd >= 0)
			close(fd);
		one.open[p] = time_open(path, true);
		one.missing[p] = time_open(missing, false);
		ok = one.open[p] >= 0 && one.missing[p] >= 0 && unlink(path) == 0;
	}
	if (!ok)
	{
		(void) unlink(path);
		ereport(LOG,
				(errmsg("walload could not time the storage in \"%s\": %m", path),
				 errdetail("Commit-time predictions leave out the cost of fsync and WAL.")));
		return io_bytes_written;
	}
	/* a full-page image's CRC-32C and copy into the WAL buffers, ns */
	INSTR_TIME_SET_CURRENT(start);
	for (int i = 0; i < 64; i++)
	{
		INIT_CRC32C(crc);
		COMP_CRC32C(crc, block, BLCKSZ);
		FIN_CRC32C(crc);
		memcpy(copy, block, BLCKSZ);
		copy[i] ^= (char) crc;	/* keep the work */
	}
	cost->io.fpi_ns_per_block = ns_since(start) / 64;
	time_first_writes(&cost->io);
	cost->io.fsync_ns_per_file = median_of(one.fsync, 5);
	cost->io.write_ns_per_block = median_of(big.write, 3) / WL_IO_BLOCKS;
	cost->io.fsync_ns_per_block = Max(median_of(big.fsync, 3) - cost->io.fsync_ns_per_file, 0) / WL_IO_BLOCKS;
	cost->io.delete_ns_per_file = median_of(one.del, 5);
	cost->io.delete_ns_per_block = Max(median_of(big.del, 3) - cost->io.delete_ns_per_file, 0) /
		(WL_IO_BLOCKS - 1);
	cost->io.delete_cached_ns_per_file = median_of(cached_one.del, 5);
	cost->io.delete_cached_ns_per_block = Max(median_of(cached_big.del, 3) - cost->io.delete_cached_ns_per_file, 0) /
		(WL_IO_BLOCKS - 1);
	cost->io.wal_flush_ns = median_of(big.flush, 3);
	cost->io.open_ns = median_of(one.open, 5);
	cost->io.open_missing_ns = median_of(one.missing, 5);
	cost->io.valid = true;
	elog(DEBUG1, "walload calibration: storage: write %.0f ns per block, fsync %.0f ns per block + %.0f ns per new file, WAL flush %.0f ns, file deletion %.0f ns + %.0f ns per block (%.0f + %.0f only cached), open %.0f ns, missing file %.0f ns, full-page image %.0f ns, first write to a shared page %.0f ns, WAL record space %.0f ns",
		 cost->io.write_ns_per_block, cost->io.fsync_ns_per_block, cost->io.fsync_ns_per_file,
		 cost->io.wal_flush_ns, cost->io.delete_ns_per_file, cost->io.delete_ns_per_block,
		 cost->io.delete_cached_ns_per_file, cost->io.delete_cached_ns_per_block,
		 cost->io.open_ns, cost->io.open_missing_ns, cost->io.fpi_ns_per_block,
		 cost->io.wal_fault_ns_per_page, cost->io.record_space_ns);
	return io_bytes_written;
}

/* ---------------- the calibration worker ---------------- */

void
wl_calibration_register_worker(void)
{
	BackgroundWorker worker = {
		.bgw_name = "walload calibration",
		.bgw_type = "walload calibration",
		.bgw_flags = BGWORKER_SHMEM_ACCESS | BGWORKER_BACKEND_DATABASE_CONNECTION,
		.bgw_start_time = BgWorkerStart_RecoveryFinished,
		/* s after it died; at once after a crash-restart */
		.bgw_restart_time = 10,
		.bgw_library_name = "walload",
		.bgw_function_name = "walload_calibration_main",
	};
#ifndef WIN32
	Dl_info		self;

	/*
	 * In the file the postmaster preloaded, which knows the store: by name,
	 * a preload by a path would put $libdir's other copy in the worker.
	 */
	if (dladdr((void *) wl_calibration_register_worker, &self) != 0 &&
		self.dli_fname != NULL && strlen(self.dli_fname) < sizeof(worker.bgw_library_name))
		strlcpy(worker.bgw_library_name, self.dli_fname, sizeof(worker.bgw_library_name));
#endif

	RegisterBackgroundWorker(&worker);
}

/*
 * A walk timed at server start, the busiest moment, can be far slower: the
 * one-file walk kept is the median of the first figure and later rounds
 * (not the lowest: real walks come at any moment), which the many-file
 * walks scale with; the page faults take the rounds' median too.
 */
#define WL_SETTLE_ROUNDS	4
#define WL_SETTLE_PASSES	3
#define WL_SETTLE_GAP_MS	1000

static void
settle_walk_cost(WlScanCost *cost)
{
	double		ns[WL_SETTLE_ROUNDS + 1];
	double		faults[WL_SETTLE_ROUNDS + 1];
	int			nfaults = 0;
	double		best;
	Walker		w;

	if (cost->single_ns <= 0)
		return;
	ns[0] = cost->single_ns;
	/* timed where the worker's first walk mapped the pages */
	if (cost->fault_ns_per_page > 0)
		faults[nfaults++] = cost->fault_ns_per_page;
	walker_init(&w, 1, WL_SETTLE_PASSES);
	for (int r = 0; r < WL_SETTLE_ROUNDS; r++)
	{
		/* a shutdown or a crash-restart ends the wait (die sets the latch) */
		(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH,
						 WL_SETTLE_GAP_MS, PG_WAIT_EXTENSION);
		ResetLatch(MyLatch);
		CHECK_FOR_INTERRUPTS();
		ns[r + 1] = median_walk(&w, WALK_ONE_FILE, 1, WL_SETTLE_PASSES);
		if (nfaults > 0 &&
			(faults[nfaults] = remapped_fault_ns(&w, ns[r + 1] * NBuffers, WL_SETTLE_PASSES)) >= 0)
			nfaults++;
	}
	if (nfaults > 1)
	{
		double		first = cost->fault_ns_per_page;

		cost->fault_ns_per_page = median_of(faults, nfaults);
		elog(DEBUG1, "walload calibration: page faults %.0f ns a page, the median of %.0f at first and %d later rounds",
			 cost->fault_ns_per_page, first, nfaults - 1);
	}
	best = median_of(ns, WL_SETTLE_ROUNDS + 1);
	for (int i = 0; i < WL_COST_GRID * 2; i++)
		(i % 2 ? cost->drop_ns : cost->flush_ns)[i / 2] *= best / cost->single_ns;
	elog(DEBUG1, "walload calibration: one-file walk %.3f ns per buffer header, the median of this worker's %.3f and %d later rounds",
		 best, cost->single_ns, WL_SETTLE_ROUNDS);
	cost->single_ns = best;
}

/* ---------------- the request protocol, in the store (store_shm.h) ----- */

/*
 * The worker died: a calibration running failed, the requests so far are
 * answered (the next worker does not take them up), the askers woken.
 */
static void
worker_detach(int code, Datum arg)
{
	SpinLockAcquire(&wl_shared->mutex);
	wl_shared->worker_pid = 0;
	wl_shared->worker_latch = NULL;
	if (wl_shared->calibration == WL_CALIB_RUNNING)
		wl_shared->calibration = WL_CALIB_FAILED;
	wl_shared->calib_answered = wl_shared->calib_requested;
	SpinLockRelease(&wl_shared->mutex);
	ConditionVariableBroadcast(&wl_shared->calib_cv);
}

/*
 * Answers the requests up to request.  A later one than the start's keeps
 * the invalidation's figure: timing it makes buffers, which would evict.
 */
static void
calibrate(int passes, uint64 request, bool at_start, MemoryContext cxt)
{
	MemoryContext old = MemoryContextSwitchTo(cxt);
	WlScanCost	cost;
	WlScanCost	before;
	instr_time	start;
	int64		io_bytes;
	double		ms;

	set_ps_display("calibrating");
	pgstat_report_activity(STATE_RUNNING, "calibrating");
	INSTR_TIME_SET_CURRENT(start);
	wl_store_get_scan_cost(&before);
	wl_scan_cost_calibrate(passes > 0 ? passes : WL_STARTUP_CALIBRATION_PASSES,
						   at_start || before.invalidate_ns_per_buffer <= 0, &cost);
	if (!at_start && before.invalidate_ns_per_buffer > 0)
		cost.invalidate_ns_per_buffer = before.invalidate_ns_per_buffer;
	CHECK_FOR_INTERRUPTS();
	io_bytes = wl_io_cost_calibrate(&cost);
	CHECK_FOR_INTERRUPTS();
	settle_walk_cost(&cost);
	wl_store_set_scan_cost(&cost);
	ms = ns_since(start) / 1e6;
	SpinLockAcquire(&wl_shared->mutex);
	wl_shared->calibration = cost.io.valid ? WL_CALIB_DONE : WL_CALIB_FAILED;
	wl_shared->calibrated = cost.io.valid;
	wl_shared->calibration_ms = ms;
	wl_shared->calibration_io_bytes = io_bytes;
	wl_shared->calib_answered = Max(wl_shared->calib_answered, request);
	if (cost.io.valid)
		wl_shared->calib_completed = Max(wl_shared->calib_completed, request);
	SpinLockRelease(&wl_shared->mutex);
	ConditionVariableBroadcast(&wl_shared->calib_cv);
	MemoryContextSwitchTo(old);
	MemoryContextReset(cxt);
}

/* calibrates at its start (the store is new), then waits for requests */
void
walload_calibration_main(Datum main_arg)
{
	MemoryContext cxt;
	uint64		request;
	int			passes;
	bool		at_start;

	/*
	 * Not the standard handler, which raises FATAL inside the signal handler
	 * (in malloc, holding the store's spinlock): die() only asks.
	 */
	pqsignal(SIGTERM, die);
	pqsignal(SIGHUP, SignalHandlerForConfigReload);
	BackgroundWorkerUnblockSignals();
	BackgroundWorkerInitializeConnection(NULL, NULL, 0);
	CurrentResourceOwner = ResourceOwnerCreate(NULL, "walload calibration");
	cxt = AllocSetContextCreate(TopMemoryContext, "walload calibration",
								ALLOCSET_DEFAULT_SIZES);

	/* another copy of the library (a path too long to register): no store */
	if (wl_shared == NULL)
	{
		ereport(WARNING,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("walload's calibration worker is not in the library the server preloaded"),
				 errhint("Preload walload by name, or by a path shorter than %d bytes.",
						 (int) sizeof(MyBgworkerEntry->bgw_library_name))));
		proc_exit(0);			/* not restarted */
	}

	/* WL_CALIB_RUNNING where this start has had no calibration yet */
	SpinLockAcquire(&wl_shared->mutex);
	wl_shared->worker_pid = MyProcPid;
	wl_shared->worker_latch = MyLatch;
	at_start = wl_shared->calibration == WL_CALIB_RUNNING;
	SpinLockRelease(&wl_shared->mutex);
	before_shmem_exit(worker_detach, (Datum) 0);

	for (;;)
	{
		/*
		 * Told to stop while idle: out without CHECK_FOR_INTERRUPTS's FATAL
		 * message.  Exit code 1: after pg_terminate_backend() the postmaster
		 * starts the worker again.
		 */
		if (ProcDiePending)
		{
			elog(DEBUG1, "walload calibration worker exiting");
			proc_exit(1);
		}
		CHECK_FOR_INTERRUPTS();
		if (ConfigReloadPending)
		{
			ConfigReloadPending = false;
			ProcessConfigFile(PGC_SIGHUP);
		}
		/* a calibration at start or when asked (passes 0: none asked) */
		SpinLockAcquire(&wl_shared->mutex);
		request = wl_shared->calib_requested;
		passes = request > wl_shared->calib_answered ? wl_shared->calib_passes : at_start ? 0 : -1;
		if (passes >= 0)
			wl_shared->calibration = WL_CALIB_RUNNING;
		SpinLockRelease(&wl_shared->mutex);
		if (passes >= 0)
		{
			calibrate(passes, request, at_start, cxt);
			at_start = false;
			continue;
		}
		set_ps_display("idle");
		pgstat_report_activity(STATE_IDLE, NULL);
		(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_EXIT_ON_PM_DEATH, -1L,
						 PG_WAIT_EXTENSION);
		ResetLatch(MyLatch);
	}
}

/* the request's number, or 0 where no worker runs */
uint64
wl_store_request_calibration(int passes)
{
	uint64		request = 0;
	Latch	   *latch;

	SpinLockAcquire(&wl_shared->mutex);
	latch = wl_shared->worker_latch;
	if (wl_shared->worker_pid != 0 && latch != NULL)
	{
		request = ++wl_shared->calib_requested;
		wl_shared->calib_passes = passes;
	}
	SpinLockRelease(&wl_shared->mutex);
	/* no system call under the spinlock; a latch set too many is harmless */
	if (latch != NULL)
		SetLatch(latch);
	return request;
}

/*
 * Wait at most timeout_s for the answer: true where a completed calibration
 * answered; false where the worker died first or the calibration failed.
 */
bool
wl_store_wait_calibration(uint64 request, int timeout_s, int *passes)
{
	TimestampTz deadline = TimestampTzPlusMilliseconds(GetCurrentTimestamp(),
													   timeout_s * 1000L);
	bool		answered;
	bool		completed;

	ConditionVariablePrepareToSleep(&wl_shared->calib_cv);
	for (;;)
	{
		SpinLockAcquire(&wl_shared->mutex);
		answered = wl_shared->calib_answered >= request || wl_shared->worker_pid == 0;
		completed = wl_shared->calib_completed >= request;
		*passes = wl_shared->calib_passes;
		SpinLockRelease(&wl_shared->mutex);
		if (answered)
			break;
		CHECK_FOR_INTERRUPTS();
		if (GetCurrentTimestamp() >= deadline)
		{
			ConditionVariableCancelSleep();
			ereport(ERROR,
					(errcode(ERRCODE_QUERY_CANCELED),
					 errmsg("walload's calibration did not finish within %d s", timeout_s),
					 errhint("The calibration worker goes on; walload_info shows when it is done.")));
		}
		/* woken by the worker's broadcast; the timeout only bounds the wait */
		(void) ConditionVariableTimedSleep(&wl_shared->calib_cv, 1000, PG_WAIT_EXTENSION);
	}
	ConditionVariableCancelSleep();
	return completed;
}

const char *
wl_calibration_name(WlCalibration state)
{
	static const char *const names[] = {
		[WL_CALIB_RUNNING] = "running",
		[WL_CALIB_DONE] = "done",
		[WL_CALIB_FAILED] = "failed",
		[WL_CALIB_OFF] = "off",
	};

	return (int) state >= 0 && (int) state < lengthof(names) ? names[state] : "unknown";
}
