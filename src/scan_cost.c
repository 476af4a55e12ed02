/*-------------------------------------------------------------------------
 *
 * scan_cost.c
 *		What one full scan of the shared buffer pool costs: the calibration
 *		(timed on core's own scanning functions) and the one formula that
 *		turns a scan into an estimated duration.
 *
 * A scan walks NBuffers buffer headers with an unlocked pre-check of each
 * header's tag.  Its duration depends on three things, each timed here:
 *
 * - the pre-check: one relation file (DropRelFileNodeBuffers, 16+
 *   DropRelationBuffers; FlushRelationBuffers and the database-wide walks
 *   compare the same way) against the many-file walks at commit or abort
 *   (FlushRelationsAllBuffers, DropRelFileNodesAllBuffers, 16+
 *   DropRelationsAllBuffers), which compare each header with every file, one
 *   by one up to 20 files and by binary search above that.  Timed by calling
 *   FlushRelationsAllBuffers for 1, 8, 20, 21 and 1024 files;
 * - main memory: a real scan finds the headers in memory, not in the CPU
 *   caches, so every timed pass follows writes to a scratch area twice the
 *   size of the last-level cache;
 * - page faults: a backend starts with none of the shared memory mapped, and
 *   its first walk over the header array maps it, page by page.  The extra
 *   cost per page is timed in a new process, and a backend's first walk is
 *   priced with every header page, less those an abort's count of buffers
 *   has mapped before it (wl_header_pages_mapped).
 *
 * Every walk is priced cold.  A walk soon after another may find headers
 * still in the CPU cache, and a commit's walks may take longer than the
 * calibration's when the host is busier; walload priced both once (a cache
 * share by pages touched, walks in a row and age; a ratio learned from the
 * commits' walks).  Set beside the uprobe oracle's traces, at 1, 4 and 16GB,
 * the cache share moved no scenario's estimate measurably and the learned
 * ratio moved them away from the walks (docs/benchmarks.md, "Ablation"), so
 * both went.
 *
 * Each pass times one call of core's function for relation files that no
 * buffer can hold (tablespace 0, which no buffer tag carries: the walk
 * compares every header, finds nothing to lock or invalidate, and writes
 * nothing), in wall-clock time less the time the process waited for a CPU.
 * The figure kept is the median of the passes.
 *
 * One background worker times everything, in a process of its own: the
 * postmaster starts it after every start and crash-restart, it calibrates
 * then, and stays, idle, until walload_calibrate() asks it for another
 * calibration.  The postmaster times nothing (a walk there delayed every
 * start and crash recovery); until the worker is done, the figures are all
 * zero, which every estimate reads as none.
 *
 * The rest of a commit's cost is the storage's: the worker also times, in a
 * scratch file under the data directory (base/pgsql_tmp, removed at once,
 * and at any server start), writing 1024 blocks, their fsync, rewriting one
 * of them with fdatasync (a WAL flush), the fsync of a new one-block file
 * and its truncation, which is what deleting a relation file costs at commit
 * (and the truncation of files written but never synced, whose blocks the
 * file system has not allocated yet), medians of 3 and 5 passes, opening a
 * file that exists and one that does not (core asks for each fork of each
 * file it syncs, WAL-logs or deletes),
 * the checksum and copy of a full-page image, and what a backend's first
 * write somewhere costs: to a page of shared memory it has not mapped yet
 * (the WAL buffers), and to new memory (core's WAL record space for 32
 * blocks, allocated at a backend's first commit that WAL-logs files whole).
 * wl_commit_est() turns a commit decided as scan_model.c decides it into a
 * duration from these figures: the one cost model of the live predictions
 * (walload_activity), of the prediction recorded at PRE_COMMIT and of the
 * diagnosis.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "scan_cost.h"

#include "store.h"

#include <fcntl.h>
#include <math.h>
#include <sys/mman.h>
#include <unistd.h>

#include "access/xlog.h"
#include "access/xlogrecord.h"
#include "access/xlogutils.h"
#include "executor/instrument.h"
#include "miscadmin.h"
#include "port/pg_crc32c.h"
#include "pgstat.h"
#include "postmaster/bgworker.h"
#include "postmaster/interrupt.h"
#include "storage/buf_internals.h"
#include "storage/bufmgr.h"
#include "storage/fd.h"
#include "storage/ipc.h"
#include "storage/latch.h"
#include "storage/pmsignal.h"
#include "tcop/tcopprot.h"
#include "utils/guc.h"
#include "utils/memutils.h"
#include "utils/ps_status.h"
#include "utils/resowner.h"

PGDLLEXPORT void walload_calibration_main(Datum main_arg);

/* relation counts at which the many-file walk is timed */
static const int cost_grid[WL_COST_GRID] = {1, 8, 20, 21, 1024};

/* this backend's header pages are all mapped (it has walked them) */
static bool headers_mapped = false;

/* header pages mapped before this backend's first walk (an abort's count) */
static int64 mapped_before_walk = 0;

/* the page faults this backend's walk estimates have priced so far (ns) */
static double faults_priced_ns = 0;

static int64 header_page_count(void);

/* this backend has WAL-logged files at a commit (see wl_commit_est) */
static bool record_space_ready = false;

/*
 * The pages that hold the buffer header array: first page address and one
 * past the last (both page-aligned).
 */
static void
header_pages(uintptr_t *start, uintptr_t *end)
{
	uintptr_t	page = (uintptr_t) sysconf(_SC_PAGESIZE);

	*start = TYPEALIGN_DOWN(page, (uintptr_t) GetBufferDescriptor(0));
	*end = TYPEALIGN(page, (uintptr_t) GetBufferDescriptor(NBuffers - 1) +
					 sizeof(BufferDescPadded));
}

/*
 * The size of the last-level CPU cache in bytes as the C library tells it
 * (level 3, else level 2), else 32 MB.
 */
static long
libc_cache_bytes(void)
{
	long		llc = -1;

#ifdef _SC_LEVEL3_CACHE_SIZE
	llc = sysconf(_SC_LEVEL3_CACHE_SIZE);
	if (llc <= 0)
		llc = sysconf(_SC_LEVEL2_CACHE_SIZE);
#endif
	return llc > 0 ? llc : 32L * 1024 * 1024;
}

/*
 * Bytes to write between two timed passes so that the buffer headers are no
 * longer in the CPU caches: twice the last-level cache as the C library
 * tells its size, else 64 MB; at least 16 MB, at most 128 MB.  (Not the
 * kernel's figure: on some virtual machines the kernel says 32 MB and the
 * C library 256 MB; the uprobe oracle checked the estimates with the 128 MB
 * write.)
 */
static Size
cache_evict_bytes(void)
{
	return (Size) Min(Max(2 * libc_cache_bytes(), 16L * 1024 * 1024), 128L * 1024 * 1024);
}

static int
cmp_double(const void *a, const void *b)
{
	double		x = *(const double *) a;
	double		y = *(const double *) b;

	return x < y ? -1 : x > y ? 1 : 0;
}

/* the median of v[0..n), which it sorts */
static double
median_of(double *v, int n)
{
	qsort(v, n, sizeof(double), cmp_double);
	return v[n / 2];
}

/* the second lowest of v[0..n), the lowest if n < 3 (sorts v) */
static double
second_lowest(double *v, int n)
{
	qsort(v, n, sizeof(double), cmp_double);
	return v[n >= 3 ? 1 : 0];
}

/* a relation file that no buffer holds: tablespace 0, file number 2^32-1 */
static void
init_nowhere(SMgrRelationData *srel, Oid filenumber)
{
	memset(srel, 0, sizeof(*srel));
	WL_REL_SPC(WlSmgrFile(srel)) = InvalidOid;
	WL_REL_DB(WlSmgrFile(srel)) = InvalidOid;
	WL_REL_NUMBER(WlSmgrFile(srel)) = filenumber;
	WlSmgrBackend(srel) = WL_INVALID_BACKEND;
	for (int f = 0; f <= MAX_FORKNUM; f++)
		srel->smgr_cached_nblocks[f] = InvalidBlockNumber;
}

typedef enum WalkKind
{
	WALK_ONE_FILE,				/* DropRelFileNodeBuffers / DropRelationBuffers */
	WALK_FLUSH_ALL,				/* FlushRelationsAllBuffers */
	WALK_DROP_ALL				/* DropRelFileNodesAllBuffers / DropRelationsAllBuffers */
} WalkKind;

/*
 * The time this thread has spent waiting for a CPU while runnable, in ns
 * (/proc/thread-self/schedstat, second field); -1 if unknown.  Plain stdio:
 * the postmaster calls it too.
 */
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
 * Time one walk of core's over nfiles files (WALK_ONE_FILE: the first).
 * Returns ns for the whole walk.
 *
 * The many-file drop takes its short path (no walk) when it knows each
 * fork's size and the sum is small, which outside recovery it never does,
 * and it asks the file system whether a fork it does not know exists: for
 * files that do not exist it would return without walking.  So for the walk
 * it is told sizes, as in recovery: InRecovery is set for the call (and
 * restored, also on error), and every fork is said to have NBuffers blocks,
 * far above its short-path limit (NBuffers / 32).
 */
static double
time_walk(WalkKind walk, int nfiles, SMgrRelationData *files, SMgrRelation *filep,
		  volatile char *evict, Size evict_len, int pass)
{
	instr_time	start,
				d;
	double		waited;

	CHECK_FOR_INTERRUPTS();
	if (evict != NULL)
		for (Size off = 0; off < evict_len; off += 64)
			evict[off] = (char) (pass + off);
	waited = run_delay_ns();
	INSTR_TIME_SET_CURRENT(start);
	if (walk == WALK_ONE_FILE)
	{
		ForkNumber	fork = MAIN_FORKNUM;
		BlockNumber first_block = 0;

		WlDropRelationBuffers(&files[0], &fork, 1, &first_block);
	}
	else if (walk == WALK_FLUSH_ALL)
		FlushRelationsAllBuffers(filep, nfiles);
	else
	{
		bool		was_in_recovery = InRecovery;

		for (int i = 0; i < nfiles; i++)
			for (int f = 0; f <= MAX_FORKNUM; f++)
				files[i].smgr_cached_nblocks[f] = (BlockNumber) NBuffers;
		InRecovery = true;
		PG_TRY();
		{
			WlDropRelationsAllBuffers(filep, nfiles);
		}
		PG_FINALLY();
		{
			InRecovery = was_in_recovery;
			for (int i = 0; i < nfiles; i++)
				for (int f = 0; f <= MAX_FORKNUM; f++)
					files[i].smgr_cached_nblocks[f] = InvalidBlockNumber;
		}
		PG_END_TRY();
	}
	INSTR_TIME_SET_CURRENT(d);
	INSTR_TIME_SUBTRACT(d, start);

	/*
	 * Not the time other processes had the CPU while this one waited for it
	 * (at a busy start, the server's first sessions or a test harness);
	 * but, as in a real scan, what the hypervisor steals from a running
	 * walk, which a CPU clock would leave out.
	 */
	if (waited >= 0)
	{
		double		now = run_delay_ns();

		waited = now >= waited ? now - waited : 0;
	}
	else
		waited = 0;
	return Max(INSTR_TIME_GET_DOUBLE(d) * 1e9 - waited, 0);
}

/* the median of passes walks, in ns per buffer header */
static double
median_walk(WalkKind walk, int nfiles, SMgrRelationData *files, SMgrRelation *filep,
			volatile char *evict, Size evict_len, int passes, double *ns)
{
	for (int p = 0; p < passes; p++)
	{
		CHECK_FOR_INTERRUPTS();
		ns[p] = time_walk(walk, nfiles, files, filep, evict, evict_len, p);
	}
	return median_of(ns, passes) / Max(NBuffers, 1);
}

/*
 * The header pages unmapped in this process only (MADV_DONTNEED on a shared
 * mapping drops this process's page table entries and nothing else: the
 * next access maps the same pages again) and walked, up to passes times
 * (*timed, where given: how many): the median ns a page mapped, over the
 * walk's walk_ns.  -1 where unmapping is refused (huge pages on older
 * kernels).
 */
static double
remapped_fault_ns(double walk_ns, SMgrRelationData *files, SMgrRelation *filep,
				  volatile char *evict, Size evict_len, int passes, double *ns,
				  int *timed)
{
	uintptr_t	start,
				end;
	int			n = 0;

	header_pages(&start, &end);
	for (int p = 0; p < passes; p++)
	{
		int64		unmapped;
		double		t;

		if (madvise((void *) start, end - start, MADV_DONTNEED) != 0)
			break;
		unmapped = header_page_count();
		t = time_walk(WALK_ONE_FILE, 1, files, filep, evict, evict_len, p);
		ns[n++] = Max(t - walk_ns, 0) / unmapped;
	}
	if (timed != NULL)
		*timed = n;
	return n > 0 ? median_of(ns, n) : -1;
}

/*
 * What mapping one page of buffer headers costs a walk.  The first walk of
 * a new process (first_ns, over unmapped pages) says it once, but a single
 * walk varies by a factor of two; so the header pages are unmapped again in
 * this process only and the walk repeated (remapped_fault_ns).  Mapping
 * them again is cheaper than a new process's first mapping (the page
 * tables themselves stay): at 4GB, three server starts gave 239-285 ns a
 * page that way against 271-316 for the worker's own first walk, and
 * 294-305 for a new backend's first DROP (its commit cleanup less the next
 * DROP's).  So the median of the passes is a floor, and the first walk's
 * figure counts where it is higher.  Where unmapping is refused, the first
 * walk's figure stands.  The worker times the remapping again later
 * (settle_walk_cost).
 */
static double
fault_ns_per_page(double single_ns, int64 first_unmapped, double first_ns,
				  SMgrRelationData *files, SMgrRelation *filep,
				  volatile char *evict, Size evict_len, int passes, double *ns)
{
	double		walk_ns = single_ns * NBuffers;
	double		first_walk = Max(first_ns - walk_ns, 0) / first_unmapped;
	int			timed;
	double		remapped = remapped_fault_ns(walk_ns, files, filep, evict, evict_len,
											 passes, ns, &timed);

	if (remapped < 0)
		return first_walk;
	elog(DEBUG1, "walload calibration: page faults: %.0f ns a page mapped again (median of %d passes), %.0f in this process's first walk",
		 remapped, timed, first_walk);
	return Max(remapped, first_walk);
}

/*
 * What invalidating a deleted file's buffer adds to the walk that finds it
 * (core's InvalidateBuffer, for each header whose tag matches): nbuffers
 * buffers of the first nowhere file are made (zero pages, no I/O: their
 * file is in no tablespace), and the one-file walk that drops them is
 * timed against the walk that finds none; ns per buffer.  The buffers are
 * clean, so nothing is written; at server start they come from the free
 * list.  The first pass costs more than the next ones, which find the same
 * buffers and the same entries of the buffer mapping table again, in pages
 * this process has mapped: here 320 ns a buffer against 150.  Real walks
 * find buffers nobody touched lately: the uprobe oracle measured 450-550 ns
 * a buffer at 2GB (DROP TABLE of 883 cached blocks against an empty one,
 * DROP DATABASE of 921 buffers against one with none).  So the figure is
 * the higher of the first pass and the median of the others, still low.
 * 0 if no buffer could be made.
 */
static double
invalidate_ns_per_buffer(SMgrRelationData *files, SMgrRelation *filep,
						 volatile char *evict, Size evict_len, int passes, double *ns)
{
	int			nbuffers = Min(1024, NBuffers / 16);
	double		walk_ns;
	double		first;
	int			n = 0;

	if (nbuffers < 64)
		return 0;
	for (int p = 0; p < passes; p++)
		ns[p] = time_walk(WALK_ONE_FILE, 1, files, filep, evict, evict_len, p);
	walk_ns = median_of(ns, passes);
	for (int p = 0; p < passes; p++)
	{
		double		t;

		for (int b = 0; b < nbuffers; b++)
		{
			Buffer		buf = ReadBufferWithoutRelcache(WlSmgrFile(&files[0]), MAIN_FORKNUM,
														(BlockNumber) b, RBM_ZERO_AND_LOCK,
														NULL, true);

			LockBuffer(buf, BUFFER_LOCK_UNLOCK);
			ReleaseBuffer(buf);
		}
		t = time_walk(WALK_ONE_FILE, 1, files, filep, evict, evict_len, p);
		ns[n++] = Max(t - walk_ns, 0) / nbuffers;
	}
	first = ns[0];
	return Max(median_of(ns, n), first);
}

/*
 * The many-file walks: each pass times the one-file walk and then, for
 * each number of files of the grid, the flush and the drop, each as a
 * multiple of that pass's one-file walk; a figure is the second lowest of
 * its multiples (the lowest with fewer than three passes) times
 * cost->single_ns.  The files are compared with each header one by one (up
 * to 20), work for the CPU more than for memory, and that varies with what
 * else the host runs: timed one number of files after the other, the same
 * server's 20-file drop came to 5.6 ns a header at one start and 9.3 at
 * another, where walks of 18 files then took 6.6.  Taken within one pass,
 * the multiple keeps the moment's speed out, but not all of it: the other
 * processes that start with the server slow the comparisons more than the
 * one-file walk, and at three starts the 8-file drop's multiple fell from
 * 1.6-2.3 in the first passes to 1.1-1.3 in the last (median 1.39-1.46),
 * where a real 3-file walk took what a one-file walk takes.  What slows a
 * pass only adds to it, so a low pass is the figure.
 */
static void
multi_file_walks(SMgrRelationData *files, SMgrRelation *filep, volatile char *evict,
				 Size evict_len, int passes, WlScanCost *cost)
{
	double	   *flush = palloc(sizeof(double) * passes * WL_COST_GRID);
	double	   *drop = palloc(sizeof(double) * passes * WL_COST_GRID);
	double	   *ns = palloc(sizeof(double) * passes);

	for (int p = 0; p < passes; p++)
	{
		double		one = Max(time_walk(WALK_ONE_FILE, 1, files, filep, evict, evict_len, p), 1);

		for (int g = 0; g < WL_COST_GRID; g++)
		{
			flush[g * passes + p] = time_walk(WALK_FLUSH_ALL, cost_grid[g], files, filep,
											  evict, evict_len, p) / one;
			drop[g * passes + p] = time_walk(WALK_DROP_ALL, cost_grid[g], files, filep,
											 evict, evict_len, p) / one;
		}
	}
	for (int g = 0; g < WL_COST_GRID; g++)
	{
		memcpy(ns, &flush[g * passes], sizeof(double) * passes);
		cost->flush_ns[g] = cost->single_ns * second_lowest(ns, passes);
		memcpy(ns, &drop[g * passes], sizeof(double) * passes);
		cost->drop_ns[g] = cost->single_ns * second_lowest(ns, passes);
	}
	pfree(ns);
	pfree(drop);
	pfree(flush);
}

/*
 * Time core's walks, passes times each, and fill cost: always the one-file
 * walk; the many-file walks where the process has a resource owner; the
 * cost of a page fault where measure_faults (the header pages are unmapped
 * from this process first, where they were mapped: its first pass maps
 * them); the invalidation of a buffer where invalidate (it makes buffers:
 * at a start, from the free list; later, they would evict others).
 */
void
wl_scan_cost_calibrate(int passes, bool measure_faults, bool invalidate, WlScanCost *cost)
{
	int			maxfiles = cost_grid[WL_COST_GRID - 1];
	SMgrRelationData *files;
	SMgrRelation *filep;
	double	   *ns;
	Size		evict_len = cache_evict_bytes();
	volatile char *evict;
	int64		unmapped = 0;
	double		first_ns = 0;

	memset(cost, 0, sizeof(*cost));
	files = palloc(sizeof(SMgrRelationData) * maxfiles);
	filep = palloc(sizeof(SMgrRelation) * maxfiles);
	for (int i = 0; i < maxfiles; i++)
	{
		init_nowhere(&files[i], PG_UINT32_MAX - i);
		filep[i] = &files[i];
	}
	ns = palloc(sizeof(double) * passes);
	/* without the scratch area the passes are timed warm: an underestimate */
	evict = palloc_extended(evict_len, MCXT_ALLOC_HUGE | MCXT_ALLOC_NO_OOM);

	if (measure_faults)
	{
		uintptr_t	start,
					end;

		/* a calibration after this process's first one maps them again */
		header_pages(&start, &end);
		if (madvise((void *) start, end - start, MADV_DONTNEED) == 0)
			unmapped = header_page_count();
		first_ns = time_walk(WALK_ONE_FILE, 1, files, filep, evict, evict_len, 0);
	}
	cost->single_ns = median_walk(WALK_ONE_FILE, 1, files, filep, evict, evict_len, passes, ns);
	if (measure_faults && unmapped > 0)
		cost->fault_ns_per_page = fault_ns_per_page(cost->single_ns, unmapped, first_ns,
													files, filep, evict, evict_len,
													passes, ns);
	/* this process has walked them now */
	if (IsUnderPostmaster)
		headers_mapped = true;

	if (CurrentResourceOwner != NULL)
	{
		multi_file_walks(files, filep, evict, evict_len, passes, cost);
		cost->multi_valid = true;
		if (invalidate)
			cost->invalidate_ns_per_buffer = invalidate_ns_per_buffer(files, filep, evict,
																	  evict_len, passes, ns);
	}

	if (evict != NULL)
		pfree((void *) evict);
	pfree(ns);
	pfree(filep);
	pfree(files);
	elog(DEBUG1, "walload calibration: %d passes, ns per buffer header: one file %.3f, "
		 "flush of 1/8/20/21/1024 files %.3f/%.3f/%.3f/%.3f/%.3f, "
		 "drop of 1/8/20/21/1024 files %.3f/%.3f/%.3f/%.3f/%.3f; %.0f ns per unmapped page (%lld pages); "
		 "%.0f ns per buffer invalidated",
		 passes, cost->single_ns,
		 cost->flush_ns[0], cost->flush_ns[1], cost->flush_ns[2], cost->flush_ns[3], cost->flush_ns[4],
		 cost->drop_ns[0], cost->drop_ns[1], cost->drop_ns[2], cost->drop_ns[3], cost->drop_ns[4],
		 cost->fault_ns_per_page, (long long) unmapped, cost->invalidate_ns_per_buffer);
}

/*
 * ns per buffer header of a walk comparing each header with nfiles files:
 * linear in nfiles up to 20 (core compares one by one), linear in log2
 * beyond (binary search), from the timed points.
 */
static double
multi_ns_per_header(const double *grid_ns, int nfiles)
{
	int			g;
	double		x0,
				x1,
				x;

	if (nfiles <= 1)
		return grid_ns[0];
	for (g = 1; g < WL_COST_GRID - 1 && nfiles > cost_grid[g]; g++)
		;
	/* points g-1 and g bracket nfiles (or g is the last one: extrapolate) */
	if (cost_grid[g - 1] > 20)
	{
		x0 = log2(cost_grid[g - 1]);
		x1 = log2(cost_grid[g]);
		x = log2(nfiles);
	}
	else if (cost_grid[g] > 20)
	{
		/* 20 -> 21 is the switch to binary search: no interpolation */
		return nfiles <= 20 ? grid_ns[g - 1] : grid_ns[g];
	}
	else
	{
		x0 = cost_grid[g - 1];
		x1 = cost_grid[g];
		x = nfiles;
	}
	return Max(grid_ns[g - 1] + (grid_ns[g] - grid_ns[g - 1]) * (x - x0) / (x1 - x0), 0);
}

/*
 * The estimated duration, in ns, of one walk of the given kind comparing
 * nfiles relation files (1 for the one-file and database-wide kinds), in a
 * backend with unmapped_pages header pages not yet mapped: the walk as
 * timed (wl_scan_timed_ns) and its page faults (wl_scan_fault_ns).
 */
double
wl_scan_est_ns(const WlScanCost *cost, WlScanKind kind, int nfiles, int64 unmapped_pages)
{
	return wl_scan_timed_ns(cost, kind, nfiles) + wl_scan_fault_ns(cost, unmapped_pages);
}

/*
 * Of a walk's estimate: mapping the header pages this backend has not
 * mapped yet, as the calibration timed it in a new process.
 */
double
wl_scan_fault_ns(const WlScanCost *cost, int64 unmapped_pages)
{
	if (cost->single_ns <= 0)
		return 0;
	return cost->fault_ns_per_page * Max(unmapped_pages, 0);
}

/*
 * One cold walk of the given kind over nfiles files, as the calibration
 * timed it, without page faults: NBuffers headers at the one-file price,
 * or at the many-file price for nfiles (multi_ns_per_header).
 */
double
wl_scan_timed_ns(const WlScanCost *cost, WlScanKind kind, int nfiles)
{
	double		per_header;

	if (cost->single_ns <= 0)
		return 0;
	if (kind == WL_SCAN_FLUSH_PENDING && cost->multi_valid)
		per_header = multi_ns_per_header(cost->flush_ns, nfiles);
	else if (kind == WL_SCAN_DROP_PENDING && cost->multi_valid)
		per_header = multi_ns_per_header(cost->drop_ns, nfiles);
	else
		per_header = cost->single_ns;
	return per_header * NBuffers;
}

/* the number of pages that hold the buffer header array */
static int64
header_page_count(void)
{
	uintptr_t	start,
				end;

	header_pages(&start, &end);
	return (int64) ((end - start) / (uintptr_t) sysconf(_SC_PAGESIZE));
}

/*
 * The header pages this backend's next walk maps: none once it has walked,
 * else all of them but those mapped before (wl_header_pages_mapped).  No
 * system call beyond sysconf: a process maps a page of shared memory when it
 * first touches it, and a backend touches few header pages before its first
 * walk besides the buffers it pins, which the oracle's scenarios found too
 * few to matter (counting them in /proc/self/pagemap, as walload did until
 * 1.5.2, moved no estimate).
 */
static int64
header_pages_unmapped(void)
{
	if (headers_mapped)
		return 0;
	return Max(header_page_count() - mapped_before_walk, 0);
}

/*
 * Something other than a walk (scan_model.c's count of an abort's buffers)
 * has mapped pages of the header array if this backend had not: the walk
 * that follows does not map them again.  No system call: on the abort
 * path.
 */
void
wl_header_pages_mapped(int64 pages)
{
	if (!headers_mapped)
		mapped_before_walk += Max(pages, 0);
}

/*
 * The estimated duration of n walks of one kind comparing nfiles files, by
 * this backend: the first walk of a backend also maps the header pages.
 * Plus the buffers the walks act on (wl_scan_buffers_ns): those they
 * invalidate (the drops), or those the sync's walk writes (kind
 * WL_SCAN_FLUSH_PENDING).  Reads the calibration from the store (a
 * spinlock); no system call.
 */
double
wl_scans_est_ns(WlScanKind kind, int64 n, int nfiles, int64 buffers)
{
	WlScanCost	cost;
	int64		unmapped;
	double		est;
	double		fault_ns;

	if (n <= 0)
		return 0;
	wl_store_get_scan_cost(&cost);
	unmapped = header_pages_unmapped();
	headers_mapped = true;
	fault_ns = wl_scan_fault_ns(&cost, unmapped);
	est = n * wl_scan_timed_ns(&cost, kind, nfiles) + fault_ns + wl_scan_buffers_ns(&cost, buffers);
	faults_priced_ns += fault_ns;
	elog(DEBUG2, "walload: %lld walk(s) of kind %d over %d file(s): %lld unmapped header pages, "
		 "%lld buffers %s: %.3f ms, page faults %.3f ms",
		 (long long) n, (int) kind, nfiles, (long long) unmapped, (long long) buffers,
		 kind == WL_SCAN_FLUSH_PENDING ? "written" : "invalidated", est / 1e6, fault_ns / 1e6);
	return est;
}

/*
 * The page faults of mapping the header pages that this backend's walk
 * estimates (wl_scans_est_ns) have priced so far, in ns: a running total,
 * which a record takes the difference of.
 */
double
wl_scan_faults_priced_ns(void)
{
	return faults_priced_ns;
}

/*
 * What the buffers a walk acts on add to it, each at the calibrated price
 * of an invalidation (invalidate_ns_per_buffer), not scaled by what the
 * commits taught of the walks; 0 where the calibration could not time it.
 * A deleted file's or a dropped database's buffer is invalidated (core's
 * InvalidateBuffer).  A synced file's dirty buffer is written by the
 * sync's walk (FlushRelationsAllBuffers: pin, content lock, I/O flags,
 * the WAL check, FlushBuffer's bookkeeping around the write): besides the
 * write, each took about as long as an invalidation.  The uprobe oracle
 * (15, 2GB, twelve runs, the walk's time on CPU with its page writes taken
 * out) left 0.36-0.47 us per written buffer beyond the walk's estimate
 * (scenario medians: copy_large 637 written, databases 571, partitioned
 * 956, twophase 443), where the calibration timed an invalidation at
 * 0.30-0.33 us and walks that wrote nothing came out at their estimates.
 */
double
wl_scan_buffers_ns(const WlScanCost *cost, int64 buffers)
{
	return Max(buffers, 0) * Max(cost->invalidate_ns_per_buffer, 0);
}

/* ----------------------------------------------------------------
 * the storage: writes, fsyncs, file deletion
 * ----------------------------------------------------------------
 */
#define WL_IO_BLOCKS	1024	/* blocks written and synced per pass */

/* bytes the storage's timing has written under the data directory */
static int64 io_bytes_written = 0;

static double
ns_since(instr_time start)
{
	instr_time	now;

	INSTR_TIME_SET_CURRENT(now);
	INSTR_TIME_SUBTRACT(now, start);
	return INSTR_TIME_GET_DOUBLE(now) * 1e9;
}

/*
 * A new scratch file at path with nblocks blocks written into it (in the
 * page cache, not synced): its descriptor, or -1 with nothing left behind.
 */
static int
written_file(const char *path, int nblocks, const char *block)
{
	int			fd = BasicOpenFile(path, O_RDWR | O_CREAT | O_TRUNC | PG_BINARY);
	bool		ok = fd >= 0;

	for (int i = 0; i < nblocks && ok; i++)
	{
		ok = (write(fd, block, BLCKSZ) == BLCKSZ);
		io_bytes_written += ok ? BLCKSZ : 0;
	}
	if (!ok && fd >= 0)
	{
		close(fd);
		(void) unlink(path);
		fd = -1;
	}
	return fd;
}

/*
 * Deleting a relation file at commit truncates its main fork to nothing at
 * once and leaves the unlink to the next checkpoint (md.c mdunlinkfork):
 * time the truncation of the scratch file fd, then close and remove it.
 * ok: the caller's steps so far succeeded; false if any step failed.
 */
static bool
time_truncation(int fd, const char *path, bool ok, double *delete_ns)
{
	instr_time	start;

	INSTR_TIME_SET_CURRENT(start);
	ok = ok && ftruncate(fd, 0) == 0;
	*delete_ns = ns_since(start);
	close(fd);
	if (unlink(path) != 0)
		ok = false;
	return ok;
}

/*
 * Extend a new scratch file at path by nblocks blocks, write them again,
 * fsync it, rewrite one block and fdatasync it, truncate it to nothing and
 * unlink it; the nanoseconds of the second write pass, the fsync, the
 * one-block flush and the truncation.  The blocks a commit writes out of
 * shared buffers (and the WAL it writes into segments core preallocated)
 * exist in their files already: core extended the relation when it added
 * the block, so a write overwrites, which costs less than extending (on
 * ext4 here about a third); the file system allocates them at the fsync,
 * as in the file timed.  False if the file could not be made or written
 * (then nothing is left behind).
 */
static bool
time_file(const char *path, int nblocks, const char *block,
		  double *write_ns, double *fsync_ns, double *flush_ns, double *delete_ns)
{
	int			fd = written_file(path, nblocks, block);
	instr_time	start;
	bool		ok = true;

	if (fd < 0)
		return false;
	INSTR_TIME_SET_CURRENT(start);
	for (int i = 0; i < nblocks && ok; i++)
		ok = (pg_pwrite(fd, block, BLCKSZ, (off_t) i * BLCKSZ) == BLCKSZ);
	*write_ns = ns_since(start);
	io_bytes_written += ok ? (int64) nblocks * BLCKSZ : 0;
	INSTR_TIME_SET_CURRENT(start);
	ok = ok && pg_fsync(fd) == 0;
	*fsync_ns = ns_since(start);

	/*
	 * A WAL flush: one block rewritten in a file that exists, and its data
	 * synced (no metadata to journal, as in a WAL segment core preallocated).
	 */
	INSTR_TIME_SET_CURRENT(start);
	ok = ok && pg_pwrite(fd, block, BLCKSZ, 0) == BLCKSZ && pg_fdatasync(fd) == 0;
	*flush_ns = ns_since(start);
	io_bytes_written += ok ? BLCKSZ : 0;

	return time_truncation(fd, path, ok, delete_ns);
}

/*
 * Deleting a relation file whose blocks are still only in the page cache
 * (written, not synced: the file system has not allocated them yet, so the
 * truncation only drops pages): ns for a new file of nblocks blocks
 * truncated right after it was written.  False if it could not be made.
 */
static bool
time_cached_truncation(const char *path, int nblocks, const char *block, double *ns)
{
	int			fd = written_file(path, nblocks, block);

	if (fd < 0)
		return false;
	return time_truncation(fd, path, true, ns);
}

/*
 * What core's questions to the file system about a relation file cost
 * (md.c): mdexists closes and reopens each fork, and a relation's free
 * space map, visibility map and init fork are usually missing: a failed
 * open (or unlink) each.  Times 16 opens and closes of path (which exists),
 * then 16 opens of a name next to it that does not; ns for one of each.
 */
static bool
time_file_checks(const char *path, double *open_ns, double *missing_ns)
{
	char		missing[MAXPGPATH];
	instr_time	start;
	int			fd;

	snprintf(missing, sizeof(missing), "%s_fsm", path);
	INSTR_TIME_SET_CURRENT(start);
	for (int i = 0; i < 16; i++)
	{
		fd = BasicOpenFile(path, O_RDWR | PG_BINARY);
		if (fd < 0)
			return false;
		close(fd);
	}
	*open_ns = ns_since(start) / 16;
	INSTR_TIME_SET_CURRENT(start);
	for (int i = 0; i < 16; i++)
	{
		fd = BasicOpenFile(missing, O_RDWR | PG_BINARY);
		if (fd >= 0)
		{
			close(fd);
			return false;
		}
	}
	*missing_ns = ns_since(start) / 16;
	return true;
}

/*
 * What putting a full-page image of a block into the WAL costs the backend
 * besides writing the WAL: its CRC-32C and its copy into the WAL buffers
 * (xloginsert.c, xlog.c), ns per block over 64 blocks.
 */
static double
time_page_images(const char *block)
{
	char	   *copy = palloc(BLCKSZ);
	instr_time	start;
	pg_crc32c	crc;
	double		ns;

	INSTR_TIME_SET_CURRENT(start);
	for (int i = 0; i < 64; i++)
	{
		INIT_CRC32C(crc);
		COMP_CRC32C(crc, block, BLCKSZ);
		FIN_CRC32C(crc);
		memcpy(copy, block, BLCKSZ);
		copy[i] ^= (char) crc;	/* keep the work */
	}
	ns = ns_since(start) / 64;
	pfree(copy);
	return ns;
}

/*
 * What a backend pays where it writes for the first time (wl_commit_est):
 * a write to a page of shared memory that another process has filled (the
 * WAL buffers) maps it, ns per page; core's WAL record space for 32 blocks
 * (XLogEnsureRecordSpace: a slot of about a block each, allocated and
 * zeroed) costs new memory, ns for all of it.  Timed on mappings of this
 * process's own (a shared one filled, then unmapped from the page tables
 * only, as a new process finds shared memory; a new private one), medians
 * of 3 passes.  False if a mapping failed.
 */
static bool
time_first_writes(double *fault_ns, double *space_ns, double *page_bytes)
{
	long		page = sysconf(_SC_PAGESIZE);
	Size		shared_size = 4 * 1024 * 1024;
	Size		space = XLR_MAX_BLOCK_ID * (BLCKSZ + BLCKSZ / 64);
	double		f[3],
				a[3];
	char	   *shared;
	bool		ok = true;

	if (page <= 0)
		return false;
	shared = mmap(NULL, shared_size, PROT_READ | PROT_WRITE,
				  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (shared == MAP_FAILED)
		return false;
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
		return false;
	*fault_ns = median_of(f, 3);
	*space_ns = median_of(a, 3);
	*page_bytes = (double) page;
	return true;
}

/*
 * Time the storage under the data directory (see the header): fills the
 * storage figures of cost (cost->io), or leaves them invalid with a LOG
 * message.  Returns the bytes it wrote there (all in one scratch file at a
 * time, removed at once): what the calibration costs the storage, a fixed
 * amount: 76 MB at 8 kB blocks.
 */
int64
wl_io_cost_calibrate(WlScanCost *cost)
{
	char		path[MAXPGPATH];
	char	   *block = palloc(BLCKSZ);
	double		w[3],
				f[3],
				fl[3],
				d[3],
				f1[5],
				u[5],
				o[5],
				m[5],
				cd[3],
				cu[5],
				dummy;
	bool		ok = true;

	io_bytes_written = 0;
	/* not all zeros: some file systems store those for free */
	for (int i = 0; i < BLCKSZ; i++)
		block[i] = (char) (i * 131 + 17);
	if (MakePGDirectory("base/" PG_TEMP_FILES_DIR) != 0 && errno != EEXIST)
		ok = false;
	snprintf(path, sizeof(path), "base/%s/%swalload_calibration.%d",
			 PG_TEMP_FILES_DIR, PG_TEMP_FILE_PREFIX, MyProcPid);
	for (int p = 0; p < 3 && ok; p++)
		ok = time_file(path, WL_IO_BLOCKS, block, &w[p], &f[p], &fl[p], &d[p]);
	for (int p = 0; p < 5 && ok; p++)
		ok = time_file(path, 1, block, &dummy, &f1[p], &dummy, &u[p]);
	for (int p = 0; p < 3 && ok; p++)
		ok = time_cached_truncation(path, WL_IO_BLOCKS, block, &cd[p]);
	for (int p = 0; p < 5 && ok; p++)
		ok = time_cached_truncation(path, 1, block, &cu[p]);
	for (int p = 0; p < 5 && ok; p++)
	{
		int			fd = BasicOpenFile(path, O_RDWR | O_CREAT | O_TRUNC | PG_BINARY);

		ok = fd >= 0;
		if (ok)
			close(fd);
		ok = ok && time_file_checks(path, &o[p], &m[p]);
		if (unlink(path) != 0)
			ok = false;
	}
	if (ok)
		cost->io.fpi_ns_per_block = time_page_images(block);
	/* without these the first writes are left out, nothing else */
	if (ok && !time_first_writes(&cost->io.wal_fault_ns_per_page, &cost->io.record_space_ns,
								 &cost->io.page_bytes))
		cost->io.wal_fault_ns_per_page = cost->io.record_space_ns = cost->io.page_bytes = 0;
	pfree(block);
	if (!ok)
	{
		(void) unlink(path);
		ereport(LOG,
				(errmsg("walload could not time the storage in \"%s\": %m", path),
				 errdetail("Commit-time predictions leave out the cost of fsync and WAL.")));
		return io_bytes_written;
	}
	cost->io.fsync_ns_per_file = median_of(f1, 5);
	cost->io.write_ns_per_block = median_of(w, 3) / WL_IO_BLOCKS;
	cost->io.fsync_ns_per_block = Max(median_of(f, 3) - cost->io.fsync_ns_per_file, 0) / WL_IO_BLOCKS;
	cost->io.delete_ns_per_file = median_of(u, 5);
	cost->io.delete_ns_per_block = Max(median_of(d, 3) - cost->io.delete_ns_per_file, 0) /
		(WL_IO_BLOCKS - 1);
	cost->io.delete_cached_ns_per_file = median_of(cu, 5);
	cost->io.delete_cached_ns_per_block = Max(median_of(cd, 3) - cost->io.delete_cached_ns_per_file, 0) /
		(WL_IO_BLOCKS - 1);
	cost->io.wal_flush_ns = median_of(fl, 3);
	cost->io.open_ns = median_of(o, 5);
	cost->io.open_missing_ns = median_of(m, 5);
	cost->io.valid = true;
	elog(DEBUG1, "walload calibration: storage: write %.0f ns per block, fsync %.0f ns per block + %.0f ns per new file, WAL flush %.0f ns, file deletion %.0f ns + %.0f ns per block (%.0f + %.0f only cached), open %.0f ns, missing file %.0f ns, full-page image %.0f ns, first write to a shared page %.0f ns, WAL record space %.0f ns",
		 cost->io.write_ns_per_block, cost->io.fsync_ns_per_block, cost->io.fsync_ns_per_file,
		 cost->io.wal_flush_ns, cost->io.delete_ns_per_file, cost->io.delete_ns_per_block,
		 cost->io.delete_cached_ns_per_file, cost->io.delete_cached_ns_per_block,
		 cost->io.open_ns, cost->io.open_missing_ns, cost->io.fpi_ns_per_block,
		 cost->io.wal_fault_ns_per_page, cost->io.record_space_ns);
	return io_bytes_written;
}

/*
 * Dirty page-cache blocks of the whole system (/proc/meminfo "Dirty"), an
 * upper bound of what a commit-time fsync writes; -1 if unknown.
 */
int64
wl_os_dirty_blocks(void)
{
	FILE	   *f = AllocateFile("/proc/meminfo", "r");
	char		line[128];
	int64		kb = -1;

	if (f == NULL)
		return -1;
	while (fgets(line, sizeof(line), f) != NULL)
	{
		long long	v;

		if (sscanf(line, "Dirty: %lld kB", &v) == 1)
		{
			kb = v;
			break;
		}
	}
	FreeFile(f);
	return kb < 0 ? -1 : kb * 1024 / BLCKSZ;
}

/*
 * The live prediction's read of /proc/meminfo (wl_commit_state_now): at
 * most once a second, as a transaction's statements each predict its
 * commit.  The page cache's dirty blocks are the kernel's.  The commit
 * itself reads it afresh.
 */
#define WL_LIVE_STATE_REREAD_US	1000000

typedef struct LiveReading
{
	int64		value;
	TimestampTz read_at;		/* 0: never read */
} LiveReading;

static LiveReading live_os_dirty;

/* r's value, read again with reader() if it is a second old */
static int64
read_lately(LiveReading *r, int64 (*reader) (void))
{
	TimestampTz now = GetCurrentTimestamp();

	if (r->read_at == 0 || now - r->read_at >= WL_LIVE_STATE_REREAD_US)
	{
		r->value = reader();
		r->read_at = now;
	}
	return r->value;
}

/*
 * What the commit's cost depends on besides core's decisions, as it stands
 * in this backend now (dirty_buffers: see accumulator.c,
 * note_dirtied_by_load).  Reads /proc/meminfo only when files are to be
 * synced; live (the prediction at a statement's end), at most once a
 * second.
 */
void
wl_commit_state_now(WlCommitState *st, const WlCommitModel *m, int64 dirty_buffers, bool live)
{
	st->unmapped_pages = m->sync_scan || m->drop_scan ? header_pages_unmapped() : 0;
	st->os_dirty_blocks = m->synced_blocks <= 0 ? -1 :
		live ? read_lately(&live_os_dirty, wl_os_dirty_blocks) : wl_os_dirty_blocks();
	st->dirty_buffers = dirty_buffers;
	st->unflushed_wal_bytes = (int64) (GetXLogInsertRecPtr() - GetFlushRecPtr(NULL));
	st->wal_own_bytes = (int64) pgWalUsage.wal_bytes;
	st->wal_ring_bytes = (int64) XLOGbuffers * XLOG_BLCKSZ;
	st->record_space_ready = record_space_ready;
}

/*
 * This backend's commit is WAL-logging files whole (called once the commit
 * is predicted): core has grown its WAL record space for 32 blocks.
 */
void
wl_note_commit_wal_logged(void)
{
	record_space_ready = true;
}

/*
 * WAL bytes per block that a commit WAL-logs whole besides the block: its
 * block header, image header and file (XLOG_FPI records of up to 32 blocks,
 * log_newpage_range), and the WAL page headers.
 */
#define WL_FPI_OVERHEAD_BYTES	50

/*
 * Pages of the WAL buffers that the commit's page images are copied into
 * and that this backend has not written since it started, so has not
 * mapped (a process maps a page of shared memory when it first touches it,
 * and then keeps it).  The images go where the WAL buffers' ring was
 * written one turn ago; a backend that has inserted less than a turn of WAL
 * wrote only behind the insert position (one writer at a time is assumed:
 * others' WAL between this backend's records would leave more unmapped).
 */
static double
wal_pages_unmapped(const WlCommitModel *m, const WlCommitState *st, const WlIoCost *io)
{
	double		ring = (double) st->wal_ring_bytes;
	double		images = Min((double) m->wal_logged_blocks *
							 (BLCKSZ + WL_FPI_OVERHEAD_BYTES), ring);
	double		written_ahead;

	if (images <= 0 || ring <= 0 || io->page_bytes <= 0)
		return 0;
	written_ahead = Min(Max((double) Max(st->wal_own_bytes, 0) + images - ring, 0), images);
	return (images - written_ahead) / io->page_bytes;
}

/*
 * Of the blocks a commit WAL-logs, those that go to WAL segments made for
 * them: a new segment is written whole with zeros and synced before it is
 * used (wal_init_zero), so such a block is written and synced twice.  The
 * first segment's worth is taken to find one ready: a checkpoint keeps the
 * next segment, and those it recycles, for reuse.
 */
static double
wal_logged_in_new_segments(const WlCommitModel *m)
{
	double		per_segment = (double) wal_segment_size / (BLCKSZ + WL_FPI_OVERHEAD_BYTES);

	return Max((double) m->wal_logged_blocks - per_segment, 0);
}

/*
 * Of the blocks a commit WAL-logs, those it reads from the page cache:
 * log_newpage_range reads every block through shared buffers, and a file a
 * COPY or other bulk write loaded kept only its ring there.  The pending
 * syncs' blocks still in shared buffers (st->dirty_buffers, see
 * accumulator.c note_dirtied_by_load) are taken to be spread over all of
 * them alike.
 */
static double
wal_logged_unread(const WlCommitModel *m, const WlCommitState *st)
{
	double		pending = (double) m->synced_blocks + m->wal_logged_blocks;

	if (m->wal_logged_blocks <= 0)
		return 0;
	return m->wal_logged_blocks *
		(1 - Min((double) Max(st->dirty_buffers, 0) / pending, 1));
}

/*
 * The predicted duration of a commit that core decides as m, in the state
 * st.  Parts:
 *
 * - scan: the sync's walk (FlushRelationsAllBuffers, comparing the synced
 *   files) and the deletion's (DropRelFileNodesAllBuffers, the deleted
 *   files), each as scan_cost's one formula gives it, the first one with
 *   the header pages this backend has not mapped yet; and the buffers they
 *   act on besides the comparisons: the deleted files' buffers the second
 *   invalidates, the dirty ones the first writes (the writes themselves
 *   are the sync's);
 * - sync: the synced files' blocks still dirty in shared buffers are
 *   written first (FlushRelationsAllBuffers; at most st->dirty_buffers);
 *   then one fsync per file, for its blocks still dirty in the page cache
 *   (at most st->os_dirty_blocks: written back by the kernel meanwhile, they
 *   cost nothing more);
 * - wal: the commit's WAL flush writes and syncs what no one flushed yet
 *   (st->unflushed_wal_bytes), the blocks of the small files WAL-logged
 *   whole, and the commit record (one flush); a WAL-logged block beyond
 *   the first segment's worth is written and synced twice, first as the
 *   zeros of a new segment (wal_logged_in_new_segments), and read from the
 *   page cache where it is no longer in shared buffers (wal_logged_unread;
 *   a read priced as a write, one copy of a block through the page cache);
 * - drop: deleting the files (truncating the main fork, which md.c
 *   unlinks at the next checkpoint, and unlinking the others that exist:
 *   each costs per fork and per block, far less where the file system has
 *   not allocated the blocks yet, written but only in the page cache);
 * - and the questions to the file system (md.c): before deciding, core asks
 *   whether each fork of each pending file exists (mdexists: a reopen of the
 *   main fork, and a failed open of each of the three others, which a new
 *   table seldom has), and asks again for each synced file before its fsync;
 *   a deleted file's main fork is opened to be truncated, its first
 *   segment's next one and its forks that do not exist looked for in vain;
 *   each WAL-logged block is also checksummed and copied into the WAL
 *   buffers as a full-page image;
 * - and the first writes: the images go to WAL buffer pages this backend
 *   may never have written (wal_pages_unmapped), each mapped at its first
 *   write; a backend's first commit that WAL-logs files also allocates
 *   core's record space for 32 blocks (XLogEnsureRecordSpace).  Measured on
 *   a new backend at 1GB: 20 one-block files took 0.50-0.60 ms for the
 *   sync part with 106-108 page faults, 0.24-0.29 ms with none.
 *
 * The fsyncs of the synced files are scaled by io.fsync_time_ratio, what the
 * server's own commits taught (store.c wl_store_note_fsync_time): the
 * device's speed drifts (here an fsync of 1024 new blocks took 11-26 us per
 * block within a minute, 14 and 26 at two server starts), and the
 * calibration worker times it once, at start.  Not the WAL's writes and
 * flush: overwriting a preallocated WAL segment is another operation for
 * the file system than allocating a data file's new blocks, and no commit
 * times them apart from its walk and fsyncs.  Nor the deletions: truncating
 * a file is the file system's work more than the device's, and no commit
 * times its deletions apart from its other cleanup.
 *
 * And core's own work per synced or WAL-logged file that the calibration
 * cannot time without doing it (releasing the locks of the statements that
 * created the file, invalidating its cache entries, log_newpage_range's
 * buffer lookups and locks): io.file_commit_ns, learned from commits that
 * WAL-log many small files (store.c wl_store_note_file_commit).  Traced on
 * a commit of 20 one-block files at 4GB: 0.17-0.25 ms after core's COMMIT
 * callback, with no file to delete.
 *
 * Pure: reads nothing but its arguments.
 */
/*
 * Deleting rels relation files with forks forks in all (stored_forks of them
 * with blocks on disk: stored_blocks; blocks in all): asking for each
 * relation's forks, truncating and unlinking them (md.c mdunlinkfork), at
 * the storage's calibrated prices.  Pure.
 */
static double
deleted_files_ns(const WlIoCost *io, int64 rels, int64 forks, int64 stored_forks,
				 int64 stored_blocks, int64 blocks)
{
	return rels * io->open_ns +
		Max(rels * (MAX_FORKNUM + 2) - forks, 0) * io->open_missing_ns +
		stored_forks * io->delete_ns_per_file +
		stored_blocks * io->delete_ns_per_block +
		Max(forks - stored_forks, 0) * io->delete_cached_ns_per_file +
		Max(blocks - stored_blocks, 0) * io->delete_cached_ns_per_block;
}

void
wl_commit_est(const WlCommitModel *m, const WlScanCost *cost, const WlCommitState *st,
			  WlCommitEstimate *est)
{
	int64		to_write = Min(Max(st->dirty_buffers, 0), m->synced_blocks);
	int64		dirty = m->synced_blocks;
	double		wal_blocks = m->wal_logged_blocks +
		(double) Max(st->unflushed_wal_bytes, 0) / BLCKSZ;

	memset(est, 0, sizeof(*est));
	/* the first walk maps the header pages this backend has not mapped */
	if (m->sync_scan || m->drop_scan)
		est->fault_ns = wl_scan_fault_ns(cost, st->unmapped_pages);
	if (m->sync_scan)
		est->sync_scan_ns = wl_scan_timed_ns(cost, WL_SCAN_FLUSH_PENDING, m->synced_rels);
	if (m->drop_scan)
		est->drop_scan_ns = wl_scan_timed_ns(cost, WL_SCAN_DROP_PENDING, m->dropped_rels);
	est->sync_written = m->sync_scan ? to_write : 0;
	est->sync_buffers_ns = wl_scan_buffers_ns(cost, est->sync_written);
	est->scan_ns = est->sync_scan_ns + est->drop_scan_ns + est->fault_ns +
		(m->drop_scan ? wl_scan_buffers_ns(cost, m->dropped_buffers) : 0) +
		est->sync_buffers_ns;
	est->sync_phase_ns = est->sync_scan_ns + est->sync_buffers_ns +
		(m->sync_scan ? est->fault_ns : 0);
	if (cost->io.valid)
	{
		const WlIoCost *io = &cost->io;
		double		forks_ns = io->open_ns + (MAX_FORKNUM) * io->open_missing_ns;
		double		ratio = wl_learned_ratio(io->fsync_time_ratio);

		if (st->os_dirty_blocks >= 0)
			dirty = Min(dirty, st->os_dirty_blocks + to_write);
		est->fsync_timed_ns = m->synced_rels * io->fsync_ns_per_file +
			dirty * io->fsync_ns_per_block;
		est->fsync_ns = est->fsync_timed_ns * ratio;
		est->sync_ns = to_write * io->write_ns_per_block +
			m->synced_rels * 2 * forks_ns + est->fsync_ns;
		est->wal_ns = wal_blocks * (io->write_ns_per_block + io->fsync_ns_per_block) +
			m->wal_logged_blocks * io->fpi_ns_per_block +
			wal_logged_in_new_segments(m) * (io->write_ns_per_block + io->fsync_ns_per_block) +
			wal_logged_unread(m, st) * io->write_ns_per_block +
			m->wal_logged_rels * forks_ns +
			wal_pages_unmapped(m, st, io) * io->wal_fault_ns_per_page +
			(m->wal_logged_rels > 0 && !st->record_space_ready ? io->record_space_ns : 0) +
			io->wal_flush_ns;
		est->sync_phase_ns += est->sync_ns + est->wal_ns;
		est->drop_ns = deleted_files_ns(io, m->dropped_rels, m->dropped_forks,
										m->dropped_stored_forks, m->dropped_stored_blocks,
										m->dropped_blocks);
	}
	est->files_ns = (m->synced_rels + m->wal_logged_rels) * Max(cost->io.file_commit_ns, 0);
	est->total_ns = est->scan_ns + est->sync_ns + est->wal_ns + est->drop_ns + est->files_ns;
}

/* ----------------------------------------------------------------
 * the calibration worker
 * ----------------------------------------------------------------
 */

/*
 * After it died (an error, pg_terminate_backend()), the postmaster starts
 * the worker again this much later; after a crash-restart, at once.
 */
#define WL_CALIBRATION_RESTART_S	10

/*
 * Registered from shared_preload_libraries, as pg_prewarm's autoprewarm
 * registers its leader, but to be started again: after a crash-restart the
 * store is made anew, with no figures, and only this worker times them.  It
 * connects to no database, which gives it a row in pg_stat_activity
 * (backend_type "walload calibration").
 */
void
wl_scan_cost_register_worker(void)
{
	BackgroundWorker worker;

	memset(&worker, 0, sizeof(worker));
	worker.bgw_flags = BGWORKER_SHMEM_ACCESS | BGWORKER_BACKEND_DATABASE_CONNECTION;
	worker.bgw_start_time = BgWorkerStart_RecoveryFinished;
	worker.bgw_restart_time = WL_CALIBRATION_RESTART_S;
	strlcpy(worker.bgw_library_name, "walload", BGW_MAXLEN);
	strlcpy(worker.bgw_function_name, "walload_calibration_main", BGW_MAXLEN);
	strlcpy(worker.bgw_name, "walload calibration", BGW_MAXLEN);
	strlcpy(worker.bgw_type, "walload calibration", BGW_MAXLEN);
	RegisterBackgroundWorker(&worker);
}

/*
 * The one-file walk, cold, timed now: median of passes, ns per header.
 * Where *fault_ns is given, also what mapping a header page costs it now
 * (remapped_fault_ns, passes times; -1 where unmapping is refused).
 */
static double
one_file_walk_now(int passes, double *fault_ns)
{
	SMgrRelationData file;
	SMgrRelation filep = &file;
	Size		evict_len = cache_evict_bytes();
	volatile char *evict;
	double	   *ns = palloc(sizeof(double) * passes);
	double		median;

	init_nowhere(&file, PG_UINT32_MAX);
	evict = palloc_extended(evict_len, MCXT_ALLOC_HUGE | MCXT_ALLOC_NO_OOM);
	median = median_walk(WALK_ONE_FILE, 1, &file, &filep, evict, evict_len, passes, ns);
	if (fault_ns != NULL)
		*fault_ns = remapped_fault_ns(median * NBuffers, &file, &filep, evict, evict_len,
									  passes, ns, NULL);
	if (evict != NULL)
		pfree((void *) evict);
	pfree(ns);
	return median;
}

/*
 * The walks' figures of cost, timed at server start, from several moments
 * rather than one.  Server start is the machine's busiest moment for
 * walload's purpose (the other processes start, and so do the clients
 * waiting for it): the one-file walk at 9 server starts at 2GB took
 * 1.76-3.48 ns a header in the postmaster (which timed one until 1.5),
 * 1.77-3.29 in the worker, and whole runs of the uprobe oracle after a start
 * timed at 2.7 were priced 1.3 times what their walks took (22 of 51
 * scenarios within 20%; 47 at the next start, timed at 2.1).  So the
 * one-file walk kept is the median of the worker's first figure and
 * WL_SETTLE_ROUNDS medians of WL_SETTLE_PASSES walks, WL_SETTLE_GAP_MS
 * apart, five figures in all (an odd count: the median is one of them): one
 * slow moment among them moves it little.  Not the lowest: real walks come
 * at any moment, and whole oracle runs priced from the lowest came out at
 * 0.82-0.83 of their walks (medians; 27 and 33 of 51 within 20%).  The many-file walks,
 * timed by the worker against its own one-file walk, are scaled with it.
 *
 * The page faults of a backend's first walk likewise: each round also
 * times mapping the header pages again (remapped_fault_ns), and the figure
 * kept is the median of the worker's first one (fault_ns_per_page) and the
 * rounds'.  At one moment the figure varies more than the faults do: at
 * eight starts on a 2-vCPU host it came out at 204-585 ns a page, where
 * the backends' first walks, less their second, took 320-420 at 1, 4 and
 * 16GB; a start that priced them at 514 put twelve of the oracle's
 * scenarios on 18 at 1.25-1.63 of their walks.
 */
#define WL_SETTLE_ROUNDS	4
#define WL_SETTLE_PASSES	3
#define WL_SETTLE_GAP_MS	1000

static void
settle_walk_cost(WlScanCost *cost)
{
	double		ns[WL_SETTLE_ROUNDS + 1];
	double		faults[WL_SETTLE_ROUNDS + 1];
	int			n = 0;
	int			nfaults = 0;
	double		best;
	double		scale;

	if (cost->single_ns <= 0)
		return;
	ns[n++] = cost->single_ns;
	/* timed where the worker's first walk mapped the pages (measure_faults) */
	if (cost->fault_ns_per_page > 0)
		faults[nfaults++] = cost->fault_ns_per_page;
	for (int r = 0; r < WL_SETTLE_ROUNDS; r++)
	{
		double		fault_ns = -1;

		/* a shutdown or a crash-restart ends the wait (die sets the latch) */
		(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH,
						 WL_SETTLE_GAP_MS, PG_WAIT_EXTENSION);
		ResetLatch(MyLatch);
		CHECK_FOR_INTERRUPTS();
		ns[n++] = one_file_walk_now(WL_SETTLE_PASSES, nfaults > 0 ? &fault_ns : NULL);
		if (fault_ns >= 0)
			faults[nfaults++] = fault_ns;
	}
	if (nfaults > 1)
	{
		double		first = cost->fault_ns_per_page;

		cost->fault_ns_per_page = median_of(faults, nfaults);
		elog(DEBUG1, "walload calibration: page faults %.0f ns a page, the median of %.0f at first and %d later rounds",
			 cost->fault_ns_per_page, first, nfaults - 1);
	}
	best = median_of(ns, n);
	scale = best / cost->single_ns;
	for (int g = 0; g < WL_COST_GRID; g++)
	{
		cost->flush_ns[g] *= scale;
		cost->drop_ns[g] *= scale;
	}
	elog(DEBUG1, "walload calibration: one-file walk %.3f ns per buffer header, the median of this worker's %.3f and %d later rounds",
		 best, cost->single_ns, WL_SETTLE_ROUNDS);
	cost->single_ns = best;
}

/*
 * One calibration, of passes passes (0: WL_STARTUP_CALIBRATION_PASSES),
 * answering the requests up to request: everything timed anew, in this
 * process, kept in the store at once when it is done.  at_start: the first
 * of this start; later ones keep the invalidation's figure (timing it makes
 * buffers, which would evict others once the server has run).
 */
static void
calibrate(int passes, uint64 request, bool at_start, MemoryContext cxt)
{
	MemoryContext old = MemoryContextSwitchTo(cxt);
	WlScanCost	cost;
	WlScanCost	before;
	instr_time	start;
	int64		io_bytes;

	set_ps_display("calibrating");
	pgstat_report_activity(STATE_RUNNING, "calibrating");
	INSTR_TIME_SET_CURRENT(start);
	wl_store_get_scan_cost(&before);
	wl_scan_cost_calibrate(passes > 0 ? passes : WL_STARTUP_CALIBRATION_PASSES, true,
						   at_start || before.invalidate_ns_per_buffer <= 0, &cost);
	if (!at_start && before.invalidate_ns_per_buffer > 0)
		cost.invalidate_ns_per_buffer = before.invalidate_ns_per_buffer;
	CHECK_FOR_INTERRUPTS();
	io_bytes = wl_io_cost_calibrate(&cost);
	CHECK_FOR_INTERRUPTS();
	settle_walk_cost(&cost);
	wl_store_set_scan_cost(&cost);
	wl_store_calibration_ended(cost.io.valid, request, ns_since(start) / 1e6, io_bytes);
	MemoryContextSwitchTo(old);
	MemoryContextReset(cxt);
	set_ps_display("idle");
	pgstat_report_activity(STATE_IDLE, NULL);
}

/*
 * The worker: calibrates at its start (the store is new: a start or a
 * crash-restart), then waits on its latch for walload_calibrate()'s
 * requests.  No timeout: a request or a signal sets the latch, and the
 * postmaster's death ends the wait.
 */
void
walload_calibration_main(Datum main_arg)
{
	MemoryContext cxt;
	uint64		request;
	int			passes;

	/*
	 * A shutdown or a restart while the worker runs: not the standard
	 * handler of background workers, which raises FATAL from within the
	 * signal handler wherever the worker was (in malloc, holding the store's
	 * spinlock); a restart during the worker's life once went unanswered for
	 * 60 s in a TAP test on 18, cause not established.  die() only asks (and
	 * sets the latch), and the worker exits at its next
	 * CHECK_FOR_INTERRUPTS: between two timed walks, in the rounds' waits,
	 * at most about a second later, or at once when idle.
	 */
	pqsignal(SIGTERM, die);
	pqsignal(SIGHUP, SignalHandlerForConfigReload);
	BackgroundWorkerUnblockSignals();
	BackgroundWorkerInitializeConnection(NULL, NULL, 0);
	CurrentResourceOwner = ResourceOwnerCreate(NULL, "walload calibration");
	cxt = AllocSetContextCreate(TopMemoryContext, "walload calibration",
								ALLOCSET_DEFAULT_SIZES);

	if (wl_store_worker_attach() == WL_CALIB_RUNNING)
	{
		passes = wl_store_calibration_begins(&request);
		calibrate(passes, request, true, cxt);
	}
	else
	{
		set_ps_display("idle");
		pgstat_report_activity(STATE_IDLE, NULL);
	}

	for (;;)
	{
		/*
		 * Told to stop while idle: out without the FATAL message that
		 * CHECK_FOR_INTERRUPTS would log at every shutdown.  Exit code 1: if
		 * it was pg_terminate_backend(), the postmaster starts the worker
		 * again (which then waits for a request).
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
		if (wl_store_calibration_wanted())
		{
			passes = wl_store_calibration_begins(&request);
			calibrate(passes, request, false, cxt);
			continue;
		}
		(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_EXIT_ON_PM_DEATH, -1L,
						 PG_WAIT_EXTENSION);
		ResetLatch(MyLatch);
	}
}
