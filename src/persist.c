/*-------------------------------------------------------------------------
 *
 * persist.c
 *		walload's shared memory across a clean shutdown: written to
 *		pg_stat/walload.stat at the postmaster's exit, read back (or
 *		ignored whole, with a LOG line) and removed at start.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "persist.h"

#include "settings.h"
#include "store_shm.h"

#include <math.h>
#include <sys/stat.h>

#include "access/xact.h"
#include "access/xlog.h"
#include "miscadmin.h"
#include "port/pg_crc32c.h"
#include "storage/fd.h"
#include "storage/ipc.h"
#include "utils/timestamp.h"

#define WL_DUMP_FILE		"pg_stat/walload.stat"
#define WL_DUMP_MAGIC		0x574c4432	/* "WLD2" */

/*
 * The file: a header, the aggregates (most recently used first), the rings
 * (oldest first), each record its struct whole, a CRC-32C of it all.  Bump
 * WL_DUMP_FORMAT with any change to it.  Formats 9 and 8 (no CRC) are still
 * read: their transaction records and per-minute sums lack 1.10's fields.
 */
#define WL_DUMP_FORMAT		10
#define WL_DUMP_FORMAT_NO_CRC	8

/* the size of a ring's record in a file of format */
static Size
dump_rec_size(const WlRing *r, uint32 format)
{
	if (format == WL_DUMP_FORMAT || r == &wl_rings[WL_RING_STMTS])
		return r->rec_size;
	if (r == &wl_rings[WL_RING_XACTS])
		return MAXALIGN(offsetof(WlXactRecord, commit_standby_wait));
	return MAXALIGN(offsetof(WlMinuteRecord, commit_standby_ms));
}

/* the header, checked by kind as the records (types.h; any: below) */
#define WL_DUMP_HEADER(X) \
	X(any, uint32, magic, , ) \
	X(any, uint32, format, , ) \
	X(any, uint32, pg_version, , ) \
	X(any, uint32, sizeof_header, , ) \
	X(any, uint32, sizeof_entry, , ) \
	X(any, uint32, sizeof_xact, , ) \
	X(any, uint32, sizeof_stmt, , ) \
	X(any, uint32, sizeof_minute, , ) \
	X(count, int32, nentries, , ) \
	X(any, int32, nkept, [WL_NUM_RINGS], ) /* records, in WlRingId's order */ \
	X(ts, TimestampTz, stats_reset, , ) \
	X(count, int64, stats_evicted, , ) \
	X(count, int64, scans, [WL_NUM_SCAN_KINDS], ) \
	X(count, int64, scanned_buffers, , ) \
	X(any, uint64, next_xact_id, , ) \
	X(any, uint64, xacts_recorded, , ) /* since the last reset */ \
	X(any, uint64, statements_recorded, , ) \
	X(any, uint64, minutes_recorded, , ) \
	X(bytes, uint64, commit_sync_us, , ) \
	X(bytes, uint64, commit_cleanup_us, , )

typedef struct WlDumpHeader
{
	WL_DUMP_HEADER(WL_FIELD)
} WlDumpHeader;

/* the header's other figures of each ring, in WlRingId's order */
#define RING_RECORDED(h) {&(h)->xacts_recorded, &(h)->minutes_recorded, &(h)->statements_recorded}
#define RING_SIZEOF(h) {&(h)->sizeof_xact, &(h)->sizeof_minute, &(h)->sizeof_stmt}

static int
lru_cmp_desc(const void *a, const void *b)
{
	uint64		la = (*(WlStatsEntry *const *) a)->last_used;
	uint64		lb = (*(WlStatsEntry *const *) b)->last_used;

	return (la < lb) - (la > lb);
}

/* write or read a part of the file, adding it to the file's CRC */
static bool
file_part(FILE *f, bool write, void *part, Size len, pg_crc32c *crc)
{
	if ((write ? fwrite(part, len, 1, f) : fread(part, len, 1, f)) != 1)
		return false;
	COMP_CRC32C(*crc, part, len);
	return true;
}

static void
store_shutdown(int code, Datum arg)
{
	FILE	   *f;
	WlDumpHeader h;
	HASH_SEQ_STATUS hs;
	WlStatsEntry *e;
	WlStatsEntry **all;
	long		n = 0;
	uint64	   *recorded[] = RING_RECORDED(&h);
	uint32	   *sizes[] = RING_SIZEOF(&h);
	pg_crc32c	crc;

	if (code != 0 || wl_shared == NULL || !wl_save)
		return;

	/* aggregates most recently used first: see wl_persist_startup() */
	all = palloc_extended(sizeof(WlStatsEntry *) * Max(hash_get_num_entries(wl_stats), 1),
						  MCXT_ALLOC_HUGE | MCXT_ALLOC_NO_OOM);
	if (all == NULL)
	{
		ereport(LOG,
				(errmsg("could not save walload statistics: out of memory")));
		return;
	}
	hash_seq_init(&hs, wl_stats);
	while ((e = hash_seq_search(&hs)) != NULL)
		all[n++] = e;
	qsort(all, n, sizeof(WlStatsEntry *), lru_cmp_desc);

	f = AllocateFile(WL_DUMP_FILE ".tmp", PG_BINARY_W);
	if (f == NULL)
		goto error;

	memset(&h, 0, sizeof(h));
	h.magic = WL_DUMP_MAGIC;
	h.format = WL_DUMP_FORMAT;
	h.pg_version = PG_VERSION_NUM;
	h.sizeof_header = sizeof(WlDumpHeader);
	h.sizeof_entry = sizeof(WlStatsEntry);
	h.nentries = (int32) n;
	for (int r = 0; r < WL_NUM_RINGS; r++)
	{
		*sizes[r] = wl_rings[r].rec_size;
		*recorded[r] = pg_atomic_read_u64(wl_rings[r].pos) - *wl_rings[r].base;
		h.nkept[r] = (int32) Min(*recorded[r], (uint64) wl_rings[r].size);
	}
	h.stats_reset = wl_shared->stats_reset;
	h.stats_evicted = wl_shared->stats_evicted;
	memcpy(h.scans, wl_shared->scans, sizeof(h.scans));
	h.scanned_buffers = wl_shared->scanned_buffers;
	h.next_xact_id = pg_atomic_read_u64(&wl_shared->next_xact_id);
	h.commit_sync_us = pg_atomic_read_u64(&wl_shared->commit_sync_us);
	h.commit_cleanup_us = pg_atomic_read_u64(&wl_shared->commit_cleanup_us);

	INIT_CRC32C(crc);
	if (!file_part(f, true, &h, sizeof(h), &crc))
		goto error;
	for (long i = 0; i < n; i++)
		if (!file_part(f, true, all[i], sizeof(WlStatsEntry), &crc))
			goto error;
	for (int r = 0; r < WL_NUM_RINGS; r++)
	{
		uint64		pos = pg_atomic_read_u64(wl_rings[r].pos);

		for (uint64 p = pos - h.nkept[r]; p < pos; p++)
			if (!file_part(f, true, WL_RING_REC(&wl_rings[r], p), wl_rings[r].rec_size, &crc))
				goto error;
	}
	FIN_CRC32C(crc);
	if (fwrite(&crc, sizeof(crc), 1, f) != 1)
		goto error;

	if (FreeFile(f))
	{
		f = NULL;
		goto error;
	}
	pfree(all);
	(void) durable_rename(WL_DUMP_FILE ".tmp", WL_DUMP_FILE, LOG);
	return;

error:
	ereport(LOG,
			(errcode_for_file_access(),
			 errmsg("could not write file \"%s\": %m", WL_DUMP_FILE ".tmp")));
	if (f)
		FreeFile(f);
	unlink(WL_DUMP_FILE ".tmp");
	pfree(all);
}

/*
 * The checks of what is read back, by kind (types.h): NULL for a value
 * walload could have written, else what is wrong (the whole file is then
 * ignored), so that no reader indexes by, or computes with, what walload
 * cannot make (a subnormal time made walload_report() underflow).  A count
 * is below 2^62; a time is finite, negative only if signed, 0 or at least
 * WL_MIN_MS (a nanosecond split among 2^31 statements is 5e-16 ms); a
 * timestamp lies between 1970 and a day after the file is read.
 */
#define WL_MAX_COUNT	(INT64CONST(1) << 62)
#define WL_MIN_MS		1e-30
#define WL_MAX_MS		1e13	/* 317 years */
#define WL_MAX_SUM_MS	1e18
#define WL_MIN_TIME		(-INT64CONST(946684800) * USECS_PER_SEC) /* 1970-01-01 */

/* the end of the times a file may hold (wl_persist_startup) */
static TimestampTz latest_time;

static const char *
check_int(const char *what, int64 v, int64 max)
{
	if (v < 0 || v > max)
		return psprintf("%s is %s (" INT64_FORMAT ")", what,
						v < 0 ? "negative" : "out of range", v);
	return NULL;
}

static const char *
check_time(const char *what, double v, double max, bool signed_ok)
{
	if (isnan(v) || isinf(v))
		return psprintf("%s is not a finite number", what);
	if (v < 0 && !signed_ok)
		return psprintf("%s is negative (%g)", what, v);
	if (v != 0 && (fabs(v) < WL_MIN_MS || fabs(v) > max))
		return psprintf("%s is out of range (%g)", what, v);
	return NULL;
}

/* one check per kind of field (types.h); at points to the value */
#define check_any(what, at)			NULL
#define check_count(what, at)		check_int(what, (int64) *(at), WL_MAX_COUNT)
#define check_bytes(what, at)		check_int(what, (int64) Min(*(at), (uint64) PG_INT64_MAX), WL_MAX_COUNT)
#define check_ms(what, at)			check_time(what, *(at), WL_MAX_MS, false)
#define check_sum_ms(what, at)		check_time(what, *(at), WL_MAX_SUM_MS, false)
#define check_signed_ms(what, at)	check_time(what, *(at), WL_MAX_SUM_MS, true)
#define check_finite(what, at) \
	(isfinite(*(at)) ? NULL : psprintf("%s is not a finite number", what))
#define check_ts(what, at) \
	(*(at) < WL_MIN_TIME || *(at) > latest_time ? \
	 psprintf("%s is out of range (" INT64_FORMAT ")", what, (int64) *(at)) : NULL)
#define check_bool(what, at)		check_int(what, *(const uint8 *) (at), 1)
#define check_text(what, at) \
	(memchr(*(at), '\0', sizeof(*(at))) ? NULL : psprintf("%s is not terminated", what))
#define check_tag(what, at)			check_int("command tag", (int) *(at), WL_NUM_COMMAND_TAGS - 1)
#define check_status(what, at)		check_int(what, *(at), WL_STMT_ERROR)
#define check_outcome(what, at)		check_int(what, *(at), WL_OUTCOME_PREPARE)
#define check_bkind(what, at)		check_int(what, *(at), WL_KIND_AUTOVACUUM)
#define check_wal_level(what, at)	check_int(what, *(at), WAL_LEVEL_LOGICAL)
#define check_sync_commit(what, at) check_int(what, *(at), SYNCHRONOUS_COMMIT_REMOTE_APPLY)
#define check_strategy(what, at)	check_int(what, *(at), WL_STRATEGY_SYNC)
#define check_action(what, at)		check_int(what, *(at), WL_ACTION_ASIDE_MISPREDICTED)
#define check_counters(what, at)	check_counters_of(at)

/* every field of record r, by its kind; p, the first problem */
#define CHECK_FIELD(kind, type, name, dims, add) \
	for (int k = 0; p == NULL && k < (int) (sizeof(r->name) / sizeof(type)); k++) \
		p = check_##kind(#name, &((const type *) &r->name)[k]);

static const char *
check_counters_of(const WlCounters *r)
{
	const char *p = NULL;

#define check_int64(what, at)	check_count(what, at)
#define check_uint64(what, at)	check_bytes(what, at)
#define CHECK_COUNTER(type, name, source) CHECK_FIELD(type, type, name, , )
	CHECK_FIELD(count, int64, rows, , )
	WL_BUFFER_WAL_COUNTERS(CHECK_COUNTER)
	WL_FPI_BYTES_COUNTERS(CHECK_COUNTER)
	WL_WAL_IO_COUNTERS(CHECK_COUNTER)
	CHECK_FIELD(count, int64, scans, , )
	CHECK_FIELD(count, int64, scan_est_ns, , )
	return p;
}

static const char *
check_entry(const WlStatsEntry *r, uint64 newer_than)
{
	const char *p = check_tag("tag", &r->key.tag);

	if (p == NULL)
		p = check_bool("toplevel", &r->key.toplevel);
	WL_STATS_FIELDS(CHECK_FIELD)
	CHECK_FIELD(text, WlQuery, query, , )
	if (p == NULL && (r->errors > r->calls || r->wal_skipped_calls > r->calls))
		p = "more errors or WAL-skipping calls than calls";
	if (p == NULL && r->last_used > newer_than)
		p = "the aggregates are not in order of last use";
	return p;
}

static const char *
check_xact(const void *rec, const WlDumpHeader *h)
{
	const WlXactRecord *r = rec;
	const char *p = NULL;

	WL_XACT_FIELDS(CHECK_FIELD)
	if (p == NULL && (r->xact_id == 0 || r->xact_id >= h->next_xact_id))
		p = "xact_id is out of range";
	/* as finish_record computes it (of either sign: a wall clock's) */
	if (p == NULL && r->total_ms != (double) (r->end - r->start) / 1000.0)
		p = psprintf("total_ms %g is not its end less its start", r->total_ms);
	return p;
}

static const char *
check_minute(const void *rec, const WlDumpHeader *h)
{
	const WlMinuteRecord *r = rec;
	const char *p = NULL;

	WL_MINUTE_FIELDS(CHECK_FIELD)
	if (p == NULL && (r->xacts == 0 || r->minute % USECS_PER_MINUTE != 0 ||
					  r->first_start > r->last_end || r->last_end < r->minute ||
					  r->last_end >= r->minute + USECS_PER_MINUTE))
		p = "its times disagree";
	return p;
}

static const char *
check_stmt(const void *rec, const WlDumpHeader *h)
{
	const WlStmtRecord *r = rec;
	const char *p = NULL;

	WL_STMT_FIELDS(CHECK_FIELD)
	if (p == NULL && (r->xact_id >= h->next_xact_id || r->stmt_no < -1))
		p = "xact_id or stmt_no is out of range";
	return p;
}

static const char *(*const check_rec[WL_NUM_RINGS]) (const void *, const WlDumpHeader *) = {
	check_xact, check_minute, check_stmt
};

static const char *
check_header(const WlDumpHeader *h, off_t file_size)
{
	const uint64 *recorded[] = RING_RECORDED(h);
	const uint32 *sizes[] = RING_SIZEOF(h);
	const WlDumpHeader *r = h;
	const char *p = NULL;
	uint64		expected = sizeof(WlDumpHeader) + (uint64) h->nentries * sizeof(WlStatsEntry);

	if (h->magic != WL_DUMP_MAGIC || h->format < WL_DUMP_FORMAT_NO_CRC ||
		h->format > WL_DUMP_FORMAT || h->pg_version != PG_VERSION_NUM ||
		h->sizeof_header != sizeof(WlDumpHeader) ||
		h->sizeof_entry != sizeof(WlStatsEntry))
		return "it was not written by this version of walload and PostgreSQL";
	for (int i = 0; i < WL_NUM_RINGS; i++)
	{
		if (*sizes[i] != dump_rec_size(&wl_rings[i], h->format))
			return "it was not written by this version of walload and PostgreSQL";
		if (h->nkept[i] < 0 || (uint64) h->nkept[i] > *recorded[i] ||
			*recorded[i] > PG_INT64_MAX)
			return "the numbers of records kept and recorded disagree";
		expected += (uint64) h->nkept[i] * *sizes[i];
	}
	WL_DUMP_HEADER(CHECK_FIELD)
	if (p != NULL)
		return p;
	if (h->next_xact_id == 0 || h->next_xact_id > PG_INT64_MAX)
		return "next_xact_id is out of range";
	if (h->format != WL_DUMP_FORMAT_NO_CRC)
		expected += sizeof(pg_crc32c);
	if ((uint64) file_size < expected)
		return "it is truncated";
	if ((uint64) file_size > expected)
		return psprintf("it is %lld bytes long, its header says " UINT64_FORMAT,
						(long long) file_size, expected);
	return NULL;
}

/*
 * In the postmaster: save the store at exit; into a store just created, read
 * the file a clean shutdown wrote and put it back, or, at a CRC that does
 * not match (bytes changed since) or any invalid value (written wrong, which
 * no CRC finds), ignore it whole with a LOG line naming the problem.  The
 * aggregates, most recently used first, are renumbered so that the eviction
 * order survives and new ones count as newer; the rings go back to their
 * positions, so that walload_info's counts survive.  Smaller sizes keep the
 * most recent.
 */
void
wl_persist_startup(bool created)
{
	FILE	   *f;
	WlDumpHeader h;
	WlStatsEntry buf;
	uint64	   *recorded[] = RING_RECORDED(&h);
	struct stat st;
	const char *problem = NULL;
	uint64		prev_last_used = PG_UINT64_MAX;
	pg_crc32c	crc;
	pg_crc32c	file_crc;

	if (IsUnderPostmaster)
		return;
	on_shmem_exit(store_shutdown, (Datum) 0);
	if (!created)
		return;
	latest_time = GetCurrentTimestamp() + USECS_PER_DAY;
	INIT_CRC32C(crc);
	f = AllocateFile(WL_DUMP_FILE, PG_BINARY_R);
	if (f == NULL)
	{
		if (errno != ENOENT)
			ereport(LOG,
					(errcode_for_file_access(),
					 errmsg("could not read file \"%s\": %m", WL_DUMP_FILE)));
		return;
	}
	if (fstat(fileno(f), &st) != 0)
		problem = psprintf("could not stat it: %m");
	else if (!file_part(f, false, &h, sizeof(h), &crc))
		problem = "it is truncated";
	else
		problem = check_header(&h, st.st_size);

	for (int i = 0; problem == NULL && i < h.nentries; i++)
	{
		WlStatsEntry *e;
		WlStatsKey	key;
		bool		found;

		if (!file_part(f, false, &buf, sizeof(buf), &crc))
			problem = "it is truncated";
		else if ((problem = check_entry(&buf, prev_last_used)) != NULL)
			problem = psprintf("aggregate %d: %s", i + 1, problem);
		if (problem != NULL)
			break;
		prev_last_used = buf.last_used;
		if (hash_get_num_entries(wl_stats) >= wl_max_stats)
			continue;			/* walload.max_stats was lowered */
		/* the key as wl_store_statements() builds it: no stray padding */
		memset(&key, 0, sizeof(key));
		key.userid = buf.key.userid;
		key.dbid = buf.key.dbid;
		key.queryid = buf.key.queryid;
		key.tag = buf.key.tag;
		key.toplevel = buf.key.toplevel;
		e = hash_search(wl_stats, &key, HASH_ENTER_NULL, &found);
		if (e == NULL)
			continue;
		if (found)
		{
			problem = psprintf("aggregate %d: its key appears twice", i + 1);
			break;
		}
		memcpy((char *) e + sizeof(WlStatsKey), (char *) &buf + sizeof(WlStatsKey),
			   sizeof(WlStatsEntry) - sizeof(WlStatsKey));
		SpinLockInit(&e->mutex);
		e->last_used = (uint64) (h.nentries - i);
	}
	for (int r = 0; r < WL_NUM_RINGS && problem == NULL; r++)
	{
		WlRing	   *ring = &wl_rings[r];
		char	   *rec = palloc(ring->rec_size);

		pg_atomic_write_u64(ring->pos, *recorded[r] - h.nkept[r]);
		for (int i = 0; problem == NULL && i < h.nkept[r]; i++)
		{
			memset(rec, 0, ring->rec_size);
			if (!file_part(f, false, rec, dump_rec_size(ring, h.format), &crc))
				problem = "it is truncated";
			else if ((problem = check_rec[r] (rec, &h)) != NULL)
				problem = psprintf("%s %d: %s", ring->name, i + 1, problem);
			else
				(void) wl_ring_put(ring, rec);
		}
		pfree(rec);
	}
	FIN_CRC32C(crc);
	if (problem == NULL && h.format != WL_DUMP_FORMAT_NO_CRC)
	{
		if (fread(&file_crc, sizeof(file_crc), 1, f) != 1)
			problem = "it is truncated";
		else if (!EQ_CRC32C(crc, file_crc))
			problem = "its CRC does not match its contents";
	}

	if (problem == NULL)
	{
		wl_shared->stats_reset = h.stats_reset;
		wl_shared->stats_evicted = h.stats_evicted;
		memcpy(wl_shared->scans, h.scans, sizeof(h.scans));
		wl_shared->scanned_buffers = h.scanned_buffers;
		pg_atomic_write_u64(&wl_shared->next_xact_id, h.next_xact_id);
		pg_atomic_write_u64(&wl_shared->lru_clock, (uint64) h.nentries + 1);
		pg_atomic_write_u64(&wl_shared->commit_sync_us, h.commit_sync_us);
		pg_atomic_write_u64(&wl_shared->commit_cleanup_us, h.commit_cleanup_us);
	}
	else
	{
		ereport(LOG,
				(errmsg("ignoring walload statistics file \"%s\": %s",
						WL_DUMP_FILE, problem)));
		/* start from nothing rather than from half a file */
		wl_store_empty();
		for (int r = 0; r < WL_NUM_RINGS; r++)
			pg_atomic_write_u64(wl_rings[r].pos, 0);
		pg_atomic_write_u64(&wl_shared->lru_clock, 1);
	}
	FreeFile(f);
	unlink(WL_DUMP_FILE);
}
