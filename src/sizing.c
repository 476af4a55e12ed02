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
#include "utils/builtins.h"
#include "utils/relmapper.h"
#include "utils/syscache.h"

int
wl_relfile_cmp(const void *a, const void *b)
{
	return memcmp(a, b, sizeof(WlRelFile));
}

/*
 * Blocks over all existing forks of a pending sync, as smgrDoPendingSyncs()
 * counts them.  md.c is not asked whether a fork exists (it would reopen it)
 * where core caches its size (no other backend writes a file new in this
 * transaction; core unlinks only whole files) or this backend has it open.
 * No init fork: the relation is permanent.
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

/* a pg_class row's file as RelationInitPhysicalAddr; false: none, or temp */
bool
wl_sizing_class_file(Oid relid, Form_pg_class cls, WlRelFile *file)
{
	if (!RELKIND_HAS_STORAGE(cls->relkind) ||
		cls->relpersistence == RELPERSISTENCE_TEMP)
		return false;
	WL_REL_SPC(*file) = OidIsValid(cls->reltablespace) ? cls->reltablespace :
		(cls->relisshared ? GLOBALTABLESPACE_OID : MyDatabaseTableSpace);
	WL_REL_DB(*file) = cls->relisshared ? InvalidOid : MyDatabaseId;
	WL_REL_NUMBER(*file) = OidIsValid(cls->relfilenode) ? cls->relfilenode :
		WlRelationMapOidToFile(relid, cls->relisshared);
	return OidIsValid(WL_REL_NUMBER(*file));
}

/* relid's file from the syscache, false if none; and what else is asked */
bool
wl_sizing_rel_file(Oid relid, WlRelFile *file, char *relkind,
				   char *relpersistence, BlockNumber *relpages)
{
	HeapTuple	tup = SearchSysCache1(RELOID, ObjectIdGetDatum(relid));
	Form_pg_class cls;
	bool		has_file;

	if (!HeapTupleIsValid(tup))
		return false;
	cls = (Form_pg_class) GETSTRUCT(tup);
	if (relkind)
		*relkind = cls->relkind;
	if (relpersistence)
		*relpersistence = cls->relpersistence;
	if (relpages)
		*relpages = (BlockNumber) Max(cls->relpages, 0);
	has_file = wl_sizing_class_file(relid, cls, file);
	ReleaseSysCache(tup);
	return has_file;
}

BlockNumber
wl_model_main_fork_blocks(WlRelFile file)
{
	SMgrRelation srel = WlSmgrOpen(file);

	return smgrexists(srel, MAIN_FORKNUM) ? smgrnblocks(srel, MAIN_FORKNUM) : 0;
}

/*
 * Blocks of an open segment the file system has allocated (FS_IOC_FIEMAP;
 * delayed allocation not counted); -1 where it does not tell.
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

		memset(&buf.map, 0, sizeof(buf.map));	/* the kernel writes the rest */
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
 * A fork's blocks over all segments as mdnblocks() counts them, and those
 * stored (-1: not known), asked of the file system: several times cheaper
 * than smgrexists() and smgrnblocks(), which reopen the fork.  path: the
 * fork's, of len, in a WL_FORK_PATH_SIZE buffer, left as it was.  FORK_ABSENT on
 * ENOENT for the first segment (as mdexists()), FORK_UNKNOWN on another error.
 */
static ForkOnDisk
fork_on_disk(char *path, size_t len, BlockNumber *nblocks, int64 *stored)
{
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
		fd = open(path, O_RDONLY | PG_BINARY | O_CLOEXEC);	/* BasicOpenFile() costs more */
		if (fd < 0 && (errno == EMFILE || errno == ENFILE)) /* it frees a VFD */
			fd = BasicOpenFile(path, O_RDONLY | PG_BINARY);
		if (fd < 0 || fstat(fd, &st) != 0)
		{
			if (fd >= 0 || errno != ENOENT)
				result = FORK_UNKNOWN;
			else if (seg == 0)
				result = FORK_ABSENT;
			if (fd >= 0)
				close(fd);
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

/* a fork's buffers: WL_BUFFER_SAMPLE blocks spread over it, looked up */
#define WL_BUFFER_SAMPLE	16

/* is this block in shared buffers now?  (the partition's lock, shared) */
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

/*
 * One more fork of one->file: nblocks, stored of them on disk; its buffers.
 * A one-block fork is taken to be cached, not looked up: the lookup costs
 * about what the one invalidation it could rule out adds to a walk.
 */
void
wl_sizing_add_fork(WlFileSizes *one, ForkNumber fork, BlockNumber nblocks, int64 stored)
{
	int			k = (int) Min((BlockNumber) WL_BUFFER_SAMPLE, nblocks);
	int			found = 0;

	for (int i = 0; i < k; i++)
		found += (nblocks == 1 ||
				  block_cached(one->file, fork, (BlockNumber) (((uint64) nblocks * i) / k))) ? 1 : 0;
	one->forks++;
	one->blocks += nblocks;
	one->stored_blocks += stored;
	one->stored_forks += stored > 0 ? 1 : 0;
	one->buffers += k > 0 ? (double) found * nblocks / k : 0;
}

/*
 * Which of a main fork's blocks are cached before a VACUUM that may truncate
 * its tail, whose walk invalidates each.  Core truncates at least 1000
 * blocks or a sixteenth: WL_TAIL_SAMPLE / 3 blocks each of the whole fork,
 * its last quarter and its last sixteenth; a small fork block by block.
 */
static BlockNumber
tail_sample_block(BlockNumber nblocks, int i)
{
	int			per = WL_TAIL_SAMPLE / 3;
	uint64		len = (uint64) nblocks >> (2 * (i / per));	/* 1, 1/4, 1/16 */

	if (nblocks <= WL_TAIL_SAMPLE)
		return (BlockNumber) i;
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

/* the buffers the truncation from "from" on invalidates, from the sample */
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
 * How many buffers a database or some files hold, without a walk: a run of
 * headers at random in each stretch, read unlocked as core's pre-check does;
 * then counted header by header where the sample found them (their range,
 * else their stretches) and outward.  Buffers of one owner lie together, so
 * a sample alone errs by whole stretches; spread wider, it is the figure.
 */
#define WL_DB_BUFFER_RUN	16
#define WL_DB_BUFFER_SAMPLE	(WL_BUFFER_COUNT_SAMPLE_HEADERS / WL_DB_BUFFER_RUN)
#define WL_DB_BUFFER_REFINE	64
#define WL_DB_BUFFER_RANGE	(3 * WL_DB_BUFFER_REFINE)
#define WL_DB_BUFFER_GROW	WL_DB_BUFFER_REFINE

static int64
stretch_start(int i, int k)
{
	return ((int64) NBuffers * i) / k;
}

/* a database, or files (sorted beyond WL_FILES_LINEAR, as core's walk) */
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

	for (int64 b = from; b < to; b++)
	{
		BufferDesc *buf = GetBufferDescriptor((int) b);

		if (OidIsValid(owner->dboid))
			found += WlBufTagDatabase(buf) == owner->dboid ? 1 : 0;
		else if (owner->nfiles <= WL_FILES_LINEAR)
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
 * A read fault maps the pages around it (fault_around_bytes, 64 kB by
 * default): a count that reads one header page in four maps them all.
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

/* a file's sizes at commit, asked of the file system (else md.c); any fork? */
bool
wl_sizing_file(WlRelFile file, WlFileSizes *one)
{
	char		path[WL_FORK_PATH_SIZE];
	size_t		len;

	*one = (WlFileSizes) {.file = file};

	/*
	 * The main fork's, as GetRelationPath() names it; in the default
	 * tablespace by hand, as a DDL transaction's commit sizes every file it
	 * creates or drops (core's psprintf, or snprintf, costs more).
	 */
	if (WL_REL_SPC(file) != DEFAULTTABLESPACE_OID)
		WlForkPath(file, MAIN_FORKNUM, path);
	else
	{
		/* "base/<db>/" kept: a backend's files are its database's */
		static char prefix[16] = "base/";
		static size_t prefix_len;
		static Oid	prefix_db = InvalidOid;

		if (prefix_db != WL_REL_DB(file))
		{
			prefix_db = WL_REL_DB(file);
			prefix_len = pg_ultostr(prefix + 5, prefix_db) + 1 - prefix;
			prefix[prefix_len - 1] = '/';
		}
		memcpy(path, prefix, sizeof(prefix));
		*pg_ultostr(path + prefix_len, WL_REL_NUMBER(file)) = '\0';
	}
	len = strlen(path);
	for (ForkNumber fork = 0; fork <= MAX_FORKNUM; fork++)
	{
		/* as GetRelationPath() names the other forks: "_" and the name */
		static const char suffix[MAX_FORKNUM + 1][6] = {"", "_fsm", "_vm", "_init"};
		static const uint8 suffix_len[MAX_FORKNUM + 1] = {0, 4, 3, 5};
		StaticAssertDecl(MAX_FORKNUM == INIT_FORKNUM, "a fork without a suffix");
		BlockNumber nblocks;
		int64		stored;
		ForkOnDisk	found;
#ifdef USE_ASSERT_CHECKING
		char		core[WL_FORK_PATH_SIZE];
#endif

		memcpy(path + len, suffix[fork], sizeof(suffix[fork]));	/* and '\0' */
#ifdef USE_ASSERT_CHECKING
		WlForkPath(file, fork, core);
		Assert(strcmp(core, path) == 0);
#endif
		found = fork_on_disk(path, len + suffix_len[fork], &nblocks, &stored);
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
		/* stored not known: as if all were on disk */
		wl_sizing_add_fork(one, fork, nblocks, stored < 0 ? nblocks : stored);
	}
	return one->forks > 0;
}

/*
 * The buffers database dboid holds, else (InvalidOid) files: core's list at
 * an abort, without a lock or an allocation, sorted in place where it is long.
 * *pages_mapped: the header pages the count maps (the walk will not again).
 */
int64
wl_sizing_owned_buffers(Oid dboid, WlRelFile *files, int n, int64 *pages_mapped)
{
	BufferOwner owner = {dboid, files, n};
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
	bool		range,
				refine;
	double		buffers = 0;

	if (n > WL_FILES_LINEAR)
		qsort(files, n, sizeof(WlRelFile), wl_relfile_cmp);
	*pages_mapped = 0;
	if (k <= 0 || (!OidIsValid(dboid) && n <= 0))
		return 0;
	/* k * run <= NBuffers: every stretch holds at least one run */
	for (int i = 0; i < k; i++)
	{
		int			first = (int) pg_prng_uint64_range(&pg_global_prng_state,
													   stretch_start(i, k),
													   stretch_start(i + 1, k) - run);

		hits[i] = (uint8) owned_buffers_in(&owner, first, first + run);
		if (hits[i] > 0)
		{
			stretches_hit++;
			first_hit = first_hit < 0 ? i : first_hit;
			last_hit = i;
		}
	}
	range = stretches_hit > 0 && last_hit - first_hit + 3 <= WL_DB_BUFFER_RANGE;
	refine = !range && stretches_hit > 0 && stretches_hit <= WL_DB_BUFFER_REFINE;
	for (int i = 0; i < k; i++)
	{
		bool		near_hit = hits[i] > 0 || (i > 0 && hits[i - 1] > 0) ||
			(i + 1 < k && hits[i + 1] > 0);

		counted[i] = -1;
		if (range ? i >= first_hit - 1 && i <= last_hit + 1 : refine && near_hit)
			counted[i] = (int32) count_in_stretch(&owner, i, k, &pages, page);
	}

	/* the sample can miss the stretch beyond an edge */
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
				counted[j] = (int32) count_in_stretch(&owner, j, k, &pages, page);
				grown++;
				again = true;
			}
		}
	}

	for (int i = 0; i < k; i++)
		buffers += counted[i] >= 0 ? counted[i] :
			(double) hits[i] * (stretch_start(i + 1, k) - stretch_start(i, k)) / run;
	if ((double) (NBuffers / k) * sizeof(BufferDescPadded) <= WL_FAULT_AROUND_BYTES)
		*pages_mapped = all_pages;
	else
		*pages_mapped = Min(all_pages, k * (int64) (WL_FAULT_AROUND_BYTES / page) + pages);
	return (int64) buffers;
}
