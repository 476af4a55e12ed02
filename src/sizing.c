/*-------------------------------------------------------------------------
 *
 * sizing.c
 *		The sizes of relation files and how many of their blocks (or a
 *		database's) shared buffers hold, as the model of core's decisions
 *		(model.c) and the observations (observe.c) need them.
 *
 * Keeps no state and calls no other part of walload.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "sizing.h"

#include <fcntl.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>
#ifdef __linux__
#include <linux/fiemap.h>
#include <linux/fs.h>
#endif

#include "access/htup_details.h"
#include "catalog/pg_tablespace.h"
#include "common/pg_prng.h"
#include "common/relpath.h"
#include "miscadmin.h"
#include "storage/buf_internals.h"
#include "storage/bufmgr.h"
#include "storage/fd.h"
#include "utils/relmapper.h"
#include "utils/syscache.h"

int
wl_relfile_cmp(const void *a, const void *b)
{
	return memcmp(a, b, sizeof(WlRelFile));
}

/* true if any fork of the file exists on disk */
bool
wl_sizing_file_exists(WlRelFile file)
{
	SMgrRelation srel = WlSmgrOpen(file);

	for (ForkNumber fork = 0; fork <= MAX_FORKNUM; fork++)
		if (smgrexists(srel, fork))
			return true;
	return false;
}

/*
 * Blocks over all existing forks of a file whose sync is pending, as
 * smgrDoPendingSyncs() counts them (smgrexists, then smgrnblocks), for the
 * commit.  Where core's storage manager knows the size of a fork
 * (smgr_cached_nblocks: the size it last asked the kernel for, and the
 * blocks it extended the fork by since; no other backend writes a file
 * created in the running transaction), the existence check is answered
 * without asking md.c, which would close and reopen the fork, or fail to
 * open it: a fork known to be empty adds nothing whether it exists or not
 * (the free space map and visibility map code cache 0 for a missing fork),
 * and a fork known to have blocks exists -- core never unlinks one fork of
 * such a file, only the whole file (at commit, or at a subtransaction's
 * abort, which closes it first and so forgets the sizes).  So does a fork
 * this backend has open.  Its size is still asked of the kernel.  And a
 * file that skips WAL belongs to a permanent relation, which has no init
 * fork (core asserts as much when it finds one): not looked for.
 */
uint64
wl_sizing_total_blocks(WlRelFile file)
{
	SMgrRelation srel = WlSmgrOpen(file);
	uint64		total = 0;

	for (ForkNumber fork = 0; fork <= MAX_FORKNUM; fork++)
	{
		BlockNumber cached = srel->smgr_cached_nblocks[fork];

		if (cached == 0 || fork == INIT_FORKNUM)
			continue;
		if (cached != InvalidBlockNumber || srel->md_num_open_segs[fork] > 0 ||
			smgrexists(srel, fork))
			total += smgrnblocks(srel, fork);
	}
	return total;
}

/*
 * The relation file of a relation, from its pg_class row (as
 * RelationInitPhysicalAddr computes it).  False for relations without
 * storage and temporary ones.
 */
bool
wl_sizing_class_file(Oid relid, Form_pg_class cls, WlRelFile *file)
{
	Oid			filenumber;

	if (!RELKIND_HAS_STORAGE(cls->relkind) ||
		cls->relpersistence == RELPERSISTENCE_TEMP)
		return false;
	WL_REL_SPC(*file) = OidIsValid(cls->reltablespace) ? cls->reltablespace :
		(cls->relisshared ? GLOBALTABLESPACE_OID : MyDatabaseTableSpace);
	WL_REL_DB(*file) = cls->relisshared ? InvalidOid : MyDatabaseId;
	filenumber = cls->relfilenode;
	if (!OidIsValid(filenumber))
		filenumber = WlRelationMapOidToFile(relid, cls->relisshared);
	WL_REL_NUMBER(*file) = filenumber;
	return OidIsValid(filenumber);
}

bool
wl_model_relation_file(Oid relid, WlRelFile *file, char *relkind, char *relpersistence)
{
	HeapTuple	tup;
	Form_pg_class cls;
	bool		has_file;

	tup = SearchSysCache1(RELOID, ObjectIdGetDatum(relid));
	if (!HeapTupleIsValid(tup))
		return false;
	cls = (Form_pg_class) GETSTRUCT(tup);
	if (relkind)
		*relkind = cls->relkind;
	if (relpersistence)
		*relpersistence = cls->relpersistence;
	has_file = wl_sizing_class_file(relid, cls, file);
	ReleaseSysCache(tup);
	return has_file;
}

BlockNumber
wl_model_main_fork_blocks(WlRelFile file)
{
	SMgrRelation srel = WlSmgrOpen(file);

	if (!smgrexists(srel, MAIN_FORKNUM))
		return 0;
	return smgrnblocks(srel, MAIN_FORKNUM);
}

/*
 * Blocks of an open segment file that the file system has allocated on
 * disk, as FS_IOC_FIEMAP reports its extents: extents only in the page
 * cache (delayed allocation) are not counted.  -1 where the file system
 * does not tell (no FIEMAP).
 */
static int64
segment_stored_blocks(int fd)
{
#ifdef FS_IOC_FIEMAP
	int64		stored = 0;
	uint64		start = 0;

	for (;;)
	{
		union
		{
			struct fiemap map;
			char		space[sizeof(struct fiemap) + 16 * sizeof(struct fiemap_extent)];
		}			buf;
		bool		last = false;

		memset(&buf, 0, sizeof(buf));
		buf.map.fm_start = start;
		buf.map.fm_length = FIEMAP_MAX_OFFSET - start;
		buf.map.fm_extent_count = 16;
		if (ioctl(fd, FS_IOC_FIEMAP, &buf.map) != 0)
			return -1;
		for (uint32 i = 0; i < buf.map.fm_mapped_extents; i++)
		{
			struct fiemap_extent *e = &buf.map.fm_extents[i];

			if ((e->fe_flags & (FIEMAP_EXTENT_DELALLOC | FIEMAP_EXTENT_UNKNOWN)) == 0)
				stored += (int64) (e->fe_length / BLCKSZ);
			start = e->fe_logical + e->fe_length;
			last = last || (e->fe_flags & FIEMAP_EXTENT_LAST) != 0;
		}
		if (last || buf.map.fm_mapped_extents < 16)
			return stored;
	}
#else
	return -1;
#endif
}

/* a fork's path: a file's path, "_" and a fork's name, "." and a segment */
#define WL_FORK_PATH_SIZE	(MAXPGPATH + 1 + FORKNAMECHARS + 12)

typedef enum ForkOnDisk
{
	FORK_ABSENT,				/* no such fork */
	FORK_SIZED,					/* it exists, and is sized */
	FORK_UNKNOWN				/* the file system did not answer */
} ForkOnDisk;

/*
 * The size of a fork of a relation file, asked of the file system directly:
 * its blocks over all segments, as mdnblocks() counts them (a segment of
 * RELSEG_SIZE blocks is followed by the next one, if there is one), and
 * those of them stored on disk (segment_stored_blocks; -1 where not known).
 * path: the fork's, in a buffer of WL_FORK_PATH_SIZE, left as it was.
 * FORK_ABSENT where the first segment cannot be opened for want of the file
 * (ENOENT), as mdexists() decides that a fork does not exist; any other
 * failure is no answer (FORK_UNKNOWN): the caller asks md.c then.  An open,
 * an fstat, an ioctl and a close per segment.  md.c's own way, smgrexists()
 * and smgrnblocks(), costs several times the instructions: mdexists()
 * closes the fork and opens it again through a virtual file descriptor,
 * and each fork's path is built anew.
 */
static ForkOnDisk
fork_on_disk(char *path, BlockNumber *nblocks, int64 *stored)
{
	size_t		len = strlen(path);
	ForkOnDisk	result = FORK_SIZED;

	*nblocks = 0;
	*stored = 0;
	for (int seg = 0;; seg++)
	{
		struct stat st;
		int64		seg_stored;
		BlockNumber seg_blocks;
		int			fd;

		/* path has room for a segment's suffix: see WL_FORK_PATH_SIZE */
		if (seg > 0)
			snprintf(path + len, WL_FORK_PATH_SIZE - len, ".%d", seg);
		fd = BasicOpenFile(path, O_RDONLY | PG_BINARY);
		if (fd < 0)
		{
			if (errno != ENOENT)
				result = FORK_UNKNOWN;
			else if (seg == 0)
				result = FORK_ABSENT;
			break;
		}
		if (fstat(fd, &st) != 0)
		{
			close(fd);
			result = FORK_UNKNOWN;
			break;
		}
		seg_blocks = (BlockNumber) (st.st_size / BLCKSZ);
		seg_stored = *stored < 0 ? -1 : segment_stored_blocks(fd);
		close(fd);
		*nblocks += seg_blocks;
		*stored = seg_stored < 0 ? -1 : *stored + Min(seg_stored, (int64) seg_blocks);
		if (seg_blocks < (BlockNumber) RELSEG_SIZE)
			break;
	}
	path[len] = '\0';
	return result;
}

/*
 * How many of a fork's nblocks blocks are in shared buffers, estimated from
 * up to WL_BUFFER_SAMPLE blocks spread over it, each looked up in the
 * buffer mapping table (under its partition's lock, shared, as a reader of
 * a page does).  The walk that deletes the file invalidates each of them.
 */
#define WL_BUFFER_SAMPLE	16

/* is this block of file's fork in shared buffers now? */
static bool
block_cached(WlRelFile file, ForkNumber fork, BlockNumber block)
{
	BufferTag	tag;
	uint32		hash;
	LWLock	   *lock;
	bool		found;

	WlInitBufferTag(tag, file, fork, block);
	hash = BufTableHashCode(&tag);
	lock = BufMappingPartitionLock(hash);
	LWLockAcquire(lock, LW_SHARED);
	found = BufTableLookup(&tag, hash) >= 0;
	LWLockRelease(lock);
	return found;
}

double
wl_sizing_fork_buffers(WlRelFile file, ForkNumber fork, BlockNumber nblocks)
{
	int			k = (int) Min((BlockNumber) WL_BUFFER_SAMPLE, nblocks);
	int			found = 0;

	for (int i = 0; i < k; i++)
		found += block_cached(file, fork,
							  (BlockNumber) (((uint64) nblocks * i) / k)) ? 1 : 0;
	return k > 0 ? (double) found * nblocks / k : 0;
}

/*
 * Which of a main fork's blocks are in shared buffers, sampled before a
 * VACUUM that may truncate its empty tail: the truncation's walk
 * (DropRelFileNodeBuffers from smgrtruncate) invalidates each cached block
 * of the tail, at the price of an invalidation (a tail of some hundred
 * cached blocks adds a sixth to a first walk at 2GB).  VACUUM reads the tail back to
 * front before truncating, through its ring: what was cached stays, and
 * at most the ring's few dozen buffers are added.  Core truncates a tail of
 * at least 1000 blocks or a sixteenth of the relation, so the sample is
 * spread over three stretches, WL_TAIL_SAMPLE / 3 blocks each: the whole
 * fork, its last quarter and its last sixteenth; a relation of at most
 * WL_TAIL_SAMPLE blocks is looked up block by block.
 */
static BlockNumber
tail_sample_block(BlockNumber nblocks, int i)
{
	int			per = WL_TAIL_SAMPLE / 3;
	int			stretch = i / per;
	uint64		len;

	if (nblocks <= WL_TAIL_SAMPLE)
		return (BlockNumber) i;
	len = stretch == 0 ? nblocks : stretch == 1 ? nblocks / 4 : nblocks / 16;
	return (BlockNumber) (nblocks - len + (len * (i % per)) / per);
}

void
wl_model_sample_tail(WlRelFile file, BlockNumber nblocks, WlTailSample *sample)
{
	int			k = (int) Min((BlockNumber) WL_TAIL_SAMPLE, nblocks);

	sample->nblocks = nblocks;
	sample->cached = 0;
	for (int i = 0; i < k; i++)
		if (block_cached(file, MAIN_FORKNUM, tail_sample_block(nblocks, i)))
			sample->cached |= UINT64CONST(1) << i;
}

/*
 * How many buffers of the blocks from "from" on the truncation invalidates,
 * from the sample taken before: the share of the sampled blocks in that
 * range that were cached, times its length.
 */
int64
wl_model_tail_buffers(const WlTailSample *sample, BlockNumber from)
{
	int			k = (int) Min((BlockNumber) WL_TAIL_SAMPLE, sample->nblocks);
	int			in_tail = 0,
				found = 0;

	if (from >= sample->nblocks)
		return 0;
	for (int i = 0; i < k; i++)
	{
		if (tail_sample_block(sample->nblocks, i) < from)
			continue;
		in_tail++;
		found += (sample->cached >> i) & 1;
	}
	if (in_tail == 0)
		return 0;
	return (int64) ((double) found * (sample->nblocks - from) / in_tail);
}

/*
 * How many buffers of database dboid shared buffers hold: the buffers
 * DropDatabaseBuffers' walk invalidates.  A full count would be a walk of
 * its own, so the pool is sampled first: WL_DB_BUFFER_SAMPLE equal
 * stretches, in each a run of WL_DB_BUFFER_RUN adjacent headers at random,
 * each header read without its lock as DropDatabaseBuffers pre-checks it.
 * Then the stretches where the database can be are counted header by
 * header: from the one before the first stretch the sample found it in to
 * the one after the last, where that range is at most WL_DB_BUFFER_RANGE
 * stretches; else, where it was found in at most WL_DB_BUFFER_REFINE
 * stretches, those and their neighbours; and from a counted stretch that
 * holds its buffers, outward stretch by stretch until one holds none (at
 * most WL_DB_BUFFER_GROW more: the sample can miss the stretches at the
 * range's ends).  A database's buffers lie together, in the part of the
 * pool its creation or its last load took them from, so a sample alone
 * errs by whole stretches, and so do the found stretches' neighbours
 * alone.  Found in more stretches than that, the database is spread over
 * the pool and the sample alone is the figure: its error is that of many
 * stretches' hits.  The sample reads 16384 headers, a kilobyte in order
 * each (1/16 of the pool at 2GB, 1/128 at 16GB), the count at most
 * WL_DB_BUFFER_RANGE stretches, before a statement that waits for a
 * checkpoint anyway; in a backend that had not mapped the header pages the
 * sample maps one in four (observe.c counts them again for the walk).
 */
#define WL_DB_BUFFER_SAMPLE	1024
#define WL_DB_BUFFER_RUN	16
StaticAssertDecl(WL_DB_BUFFER_SAMPLE * WL_DB_BUFFER_RUN == WL_BUFFER_COUNT_SAMPLE_HEADERS,
				 "the sample's size as scan_model.h gives it");
#define WL_DB_BUFFER_REFINE	64
#define WL_DB_BUFFER_RANGE	(3 * WL_DB_BUFFER_REFINE)
#define WL_DB_BUFFER_GROW	WL_DB_BUFFER_REFINE

static int64
stretch_start(int i, int k)
{
	return ((int64) NBuffers * i) / k;
}

/*
 * What the buffers counted belong to: a database (dboid), or else a set of
 * relation files (files, nfiles of them, sorted by wl_relfile_cmp where there are
 * more than WL_FILES_LINEAR: searched as core's walk searches them).
 */
typedef struct BufferOwner
{
	Oid			dboid;
	const WlRelFile *files;
	int			nfiles;
} BufferOwner;

#define WL_FILES_LINEAR		20

/* the headers from..to-1 whose tag is the owner's, each read unlocked */
static int64
owned_buffers_in(const BufferOwner *owner, int64 from, int64 to)
{
	int64		found = 0;

	if (OidIsValid(owner->dboid))
	{
		for (int64 b = from; b < to; b++)
			if (WlBufTagDatabase(GetBufferDescriptor((int) b)) == owner->dboid)
				found++;
		return found;
	}
	for (int64 b = from; b < to; b++)
	{
		BufferDesc *buf = GetBufferDescriptor((int) b);

		if (owner->nfiles <= WL_FILES_LINEAR)
		{
			for (int j = 0; j < owner->nfiles; j++)
				if (WlBufTagMatches(buf, owner->files[j]))
				{
					found++;
					break;
				}
		}
		else
		{
			WlRelFile	file = WlBufTagFile(buf);

			if (bsearch(&file, owner->files, owner->nfiles, sizeof(WlRelFile), wl_relfile_cmp))
				found++;
		}
	}
	return found;
}

/*
 * What the kernel maps at a read fault on shared memory: the page and the
 * pages around it in the same window of fault_around_bytes (64 kB, its
 * default since Linux 3.15; not readable without debugfs).  So a count
 * that reads one header page in four maps them all, and the walk after it
 * pays no page fault (the uprobe oracle's traces agree).
 */
#define WL_FAULT_AROUND_BYTES	(64 * 1024)

/* the memory pages that hold the headers from..to-1 */
static int64
header_pages_of(int64 from, int64 to, uintptr_t page)
{
	return ((uintptr_t) GetBufferDescriptor((int) (to - 1)) + sizeof(BufferDescPadded) - 1) / page -
		(uintptr_t) GetBufferDescriptor((int) from) / page + 1;
}

static int64
count_in_stretch(const BufferOwner *owner, int i, int k, int64 *pages, uintptr_t page)
{
	int64		from = stretch_start(i, k);
	int64		to = stretch_start(i + 1, k);

	*pages += header_pages_of(from, to, page);
	return owned_buffers_in(owner, from, to);
}

/*
 * The sample and the count described above, for any owner; *pages_mapped:
 * the memory pages of the header array that reading them maps in a backend
 * that had not mapped them (its walk will not map them again): all of them
 * where a stretch is at most WL_FAULT_AROUND_BYTES, else a window around
 * each run and the stretches counted whole.
 */
static int64
owned_buffers(const BufferOwner *owner, int64 *pages_mapped)
{
	int			run = Min(WL_DB_BUFFER_RUN, NBuffers);
	int			k = Min(WL_DB_BUFFER_SAMPLE, NBuffers / run);
	uintptr_t	page = (uintptr_t) sysconf(_SC_PAGESIZE);
	int64		all_pages = header_pages_of(0, NBuffers, page);
	int64		pages = 0;
	uint8		hits[WL_DB_BUFFER_SAMPLE];
	int32		counted[WL_DB_BUFFER_SAMPLE];	/* -1: not counted */
	int			stretches_hit = 0;
	int			first_hit = -1,
				last_hit = -1;
	int			grown = 0;
	double		buffers = 0;

	*pages_mapped = 0;
	if (k <= 0)
		return 0;
	/* k * run <= NBuffers: every stretch holds at least one run */
	for (int i = 0; i < k; i++)
	{
		int			first = (int) pg_prng_uint64_range(&pg_global_prng_state,
													   stretch_start(i, k),
													   stretch_start(i + 1, k) - run);

		hits[i] = (uint8) owned_buffers_in(owner, first, first + run);
		if (hits[i] > 0)
		{
			stretches_hit++;
			if (first_hit < 0)
				first_hit = i;
			last_hit = i;
		}
	}
	for (int i = 0; i < k; i++)
		counted[i] = -1;
	if (stretches_hit > 0 && last_hit - first_hit + 3 <= WL_DB_BUFFER_RANGE)
	{
		for (int i = Max(first_hit - 1, 0); i <= Min(last_hit + 1, k - 1); i++)
			counted[i] = (int32) count_in_stretch(owner, i, k, &pages, page);
	}
	else if (stretches_hit > 0 && stretches_hit <= WL_DB_BUFFER_REFINE)
	{
		for (int i = 0; i < k; i++)
		{
			bool		near_hit = hits[i] > 0 || (i > 0 && hits[i - 1] > 0) ||
				(i + 1 < k && hits[i + 1] > 0);

			if (near_hit)
				counted[i] = (int32) count_in_stretch(owner, i, k, &pages, page);
		}
	}

	/*
	 * A counted stretch at the edge of what was counted that holds the
	 * owner's buffers: the sample may have missed the stretch beyond it
	 * (runs of 16 in stretches where the buffers lie in blocks), so count
	 * outward until a stretch holds none, at most WL_DB_BUFFER_GROW more.
	 */
	for (bool again = true; again && grown < WL_DB_BUFFER_GROW;)
	{
		again = false;
		for (int i = 0; i < k && grown < WL_DB_BUFFER_GROW; i++)
		{
			if (counted[i] <= 0)
				continue;
			for (int j = i - 1; j <= i + 1; j += 2)
			{
				if (j < 0 || j >= k || counted[j] >= 0 || grown >= WL_DB_BUFFER_GROW)
					continue;
				counted[j] = (int32) count_in_stretch(owner, j, k, &pages, page);
				grown++;
				again = true;
			}
		}
	}

	for (int i = 0; i < k; i++)
	{
		if (counted[i] >= 0)
			buffers += counted[i];
		else
			buffers += (double) hits[i] * (stretch_start(i + 1, k) - stretch_start(i, k)) / run;
	}
	if ((double) (NBuffers / k) * sizeof(BufferDescPadded) <= WL_FAULT_AROUND_BYTES)
		*pages_mapped = all_pages;
	else
		*pages_mapped = Min(all_pages, k * (int64) (WL_FAULT_AROUND_BYTES / page) + pages);
	return (int64) buffers;
}

int64
wl_model_database_buffers(Oid dboid, int64 *pages_mapped)
{
	BufferOwner owner = {dboid, NULL, 0};

	*pages_mapped = 0;
	if (!OidIsValid(dboid))
		return 0;
	return owned_buffers(&owner, pages_mapped);
}

/*
 * One file's sizes for size_doomed (below), at commit; true if a fork of it
 * exists.  Each fork is asked of the file system directly (fork_on_disk),
 * and of md.c only where that gives no answer.
 */
bool
wl_sizing_file(WlRelFile file, WlFileSizes *one)
{
	char		path[WL_FORK_PATH_SIZE];
	size_t		len;

	memset(one, 0, sizeof(*one));
	one->file = file;
	WlForkPath(file, MAIN_FORKNUM, path);
	len = strlen(path);
	for (ForkNumber fork = 0; fork <= MAX_FORKNUM; fork++)
	{
		BlockNumber nblocks;
		int64		stored;
		ForkOnDisk	found;

		/* as GetRelationPath() names the other forks: "_" and the name */
		if (fork != MAIN_FORKNUM)
		{
			path[len] = '_';
			strcpy(path + len + 1, forkNames[fork]);
		}
		found = fork_on_disk(path, &nblocks, &stored);
		if (found == FORK_ABSENT)
			continue;
		if (found == FORK_UNKNOWN)
		{
			SMgrRelation srel = WlSmgrOpen(file);

			if (!smgrexists(srel, fork))
				continue;
			nblocks = smgrnblocks(srel, fork);
			stored = -1;
		}
		if (stored < 0)
			stored = nblocks;	/* not known: as if all were on disk */
		one->forks++;
		one->blocks += nblocks;
		one->stored_blocks += stored;
		one->stored_forks += stored > 0 ? 1 : 0;
		one->buffers += wl_sizing_fork_buffers(file, fork, nblocks);
	}
	return one->forks > 0;
}

/*
 * The buffers of these files (core's list at an abort), counted as a
 * database's are, without a lock or an allocation: files is sorted in
 * place where it is long.
 */
int64
wl_sizing_files_buffers(WlRelFile *files, int n, int64 *pages_mapped)
{
	BufferOwner owner = {InvalidOid, files, n};

	*pages_mapped = 0;
	if (n <= 0)
		return 0;
	if (n > WL_FILES_LINEAR)
		qsort(files, n, sizeof(WlRelFile), wl_relfile_cmp);
	return owned_buffers(&owner, pages_mapped);
}
