/*-------------------------------------------------------------------------
 *
 * persist.c
 *		walload's shared memory across a clean shutdown: at the
 *		postmaster's exit everything is written to pg_stat/walload.stat;
 *		at start the file is read back and removed.  A file that is
 *		unreadable, truncated, from another walload or PostgreSQL version,
 *		whose CRC-32C does not match, or that holds any value walload could
 *		not have written is ignored as a whole with a LOG message.
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

static void store_shutdown(int code, Datum arg);
static void load_dump(void);

/*
 * In the postmaster, once the store is made: load the saved state into a
 * store just created, and arrange to save it at exit.
 */
void
wl_persist_startup(bool created)
{
	if (IsUnderPostmaster)
		return;
	on_shmem_exit(store_shutdown, (Datum) 0);
	if (created)
		load_dump();
}

/* ----------------------------------------------------------------
 * persistence
 *
 * pg_stat/walload.stat: a header, the aggregates (most recently used
 * first), the transaction ring, the per-minute sums and the statement ring
 * (oldest first), then (format 9) a CRC-32C of all of it.  Format 10
 * (1.10) adds the commit's standby wait and local WAL flush to the
 * transaction records and the standby's waits to the per-minute sums, at
 * their ends: a file of format 9 or 8 is still read, each of its records
 * into a zeroed one of today's (its records were zeroed before they were
 * filled, so what was padding reads as nothing recorded).
 * WL_DUMP_FORMAT is the layout's own version: bump it with any change to
 * what is written, whether or not the sizes change.  A file of format 8
 * (1.8's libraries: the same, without the CRC) is still read.
 * ----------------------------------------------------------------
 */
#define WL_DUMP_FORMAT		10
#define WL_DUMP_FORMAT_1_9	9
#define WL_DUMP_FORMAT_NO_CRC	8

/* the records' sizes in files of formats 8 and 9 (1.8, 1.9) */
#define WL_XACT_SIZE_1_9	MAXALIGN(offsetof(WlXactRecord, commit_standby_wait))
#define WL_MINUTE_SIZE_1_9	MAXALIGN(offsetof(WlMinuteRecord, commit_standby_ms))

/* the size of a transaction and of a per-minute record in a file of format */
static Size
dump_xact_size(uint32 format)
{
	return format == WL_DUMP_FORMAT ? sizeof(WlXactRecord) : WL_XACT_SIZE_1_9;
}

static Size
dump_minute_size(uint32 format)
{
	return format == WL_DUMP_FORMAT ? sizeof(WlMinuteRecord) : WL_MINUTE_SIZE_1_9;
}

typedef struct WlDumpHeader
{
	uint32		magic;
	uint32		format;			/* WL_DUMP_FORMAT */
	uint32		pg_version;
	uint32		sizeof_header;
	uint32		sizeof_entry;
	uint32		sizeof_xact;
	uint32		sizeof_stmt;
	uint32		sizeof_minute;
	int32		nentries;
	int32		nxacts;
	int32		nminutes;
	int32		nstmts;
	TimestampTz stats_reset;
	int64		stats_evicted;
	int64		scans[WL_NUM_SCAN_KINDS];
	int64		scanned_buffers;
	uint64		next_xact_id;
	uint64		xacts_recorded; /* since the last reset */
	uint64		statements_recorded;
	uint64		minutes_recorded;
	uint64		commit_sync_us;
	uint64		commit_cleanup_us;
} WlDumpHeader;

static int
lru_cmp_desc(const void *a, const void *b)
{
	return lru_cmp(b, a);
}

/* write a part of the file, adding it to the file's CRC */
static bool
write_part(FILE *f, const void *part, Size len, pg_crc32c *crc)
{
	COMP_CRC32C(*crc, part, len);
	return fwrite(part, len, 1, f) == 1;
}

/* read a part of the file, adding it to the file's CRC */
static bool
read_part(FILE *f, void *part, Size len, pg_crc32c *crc)
{
	if (fread(part, len, 1, f) != 1)
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
	uint64		xpos,
				mpos,
				spos;
	pg_crc32c	crc;

	/* don't save after a crash, or when not asked to */
	if (code != 0 || wl_shared == NULL || !wl_save)
		return;

	/* aggregates most recently used first: see load_dump() */
	all = palloc_extended(sizeof(WlStatsEntry *) * Max(hash_get_num_entries(wl_stats), 1),
						  MCXT_ALLOC_HUGE | MCXT_ALLOC_NO_OOM);
	if (all == NULL)
	{
		errno = ENOMEM;
		goto error_nofile;
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
	h.sizeof_xact = sizeof(WlXactRecord);
	h.sizeof_stmt = sizeof(WlStmtRecord);
	h.sizeof_minute = sizeof(WlMinuteRecord);
	h.nentries = (int32) n;
	xpos = pg_atomic_read_u64(&wl_shared->xact_pos);
	spos = pg_atomic_read_u64(&wl_shared->stmt_pos);
	h.xacts_recorded = xpos - wl_shared->xact_base;
	h.statements_recorded = spos - wl_shared->stmt_base;
	mpos = pg_atomic_read_u64(&wl_shared->minute_pos);
	h.minutes_recorded = mpos - wl_shared->minute_base;
	h.nminutes = (int32) Min(h.minutes_recorded, (uint64) wl_shared->max_minutes);
	h.nxacts = (int32) Min(h.xacts_recorded, (uint64) wl_shared->max_xacts);
	h.nstmts = (int32) Min(h.statements_recorded, (uint64) wl_shared->max_statements);
	h.stats_reset = wl_shared->stats_reset;
	h.stats_evicted = wl_shared->stats_evicted;
	memcpy(h.scans, wl_shared->scans, sizeof(h.scans));
	h.scanned_buffers = wl_shared->scanned_buffers;
	h.next_xact_id = pg_atomic_read_u64(&wl_shared->next_xact_id);
	h.commit_sync_us = pg_atomic_read_u64(&wl_shared->commit_sync_us);
	h.commit_cleanup_us = pg_atomic_read_u64(&wl_shared->commit_cleanup_us);

	INIT_CRC32C(crc);
	if (!write_part(f, &h, sizeof(h), &crc))
		goto error;
	for (long i = 0; i < n; i++)
		if (!write_part(f, all[i], sizeof(WlStatsEntry), &crc))
			goto error;
	/* rings, oldest first */
	for (uint64 p = xpos - h.nxacts; p < xpos; p++)
		if (!write_part(f, &xact_ring[p % wl_shared->max_xacts].rec, sizeof(WlXactRecord), &crc))
			goto error;
	for (uint64 p = mpos - h.nminutes; p < mpos; p++)
		if (!write_part(f, &minute_ring[p % wl_shared->max_minutes].rec, sizeof(WlMinuteRecord), &crc))
			goto error;
	for (uint64 p = spos - h.nstmts; p < spos; p++)
		if (!write_part(f, &stmt_ring[p % wl_shared->max_statements].rec, sizeof(WlStmtRecord), &crc))
			goto error;
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
	return;

error_nofile:
	ereport(LOG,
			(errmsg("could not save walload statistics: out of memory")));
}

/*
 * Checks of every field read back from the file.  Each returns NULL when
 * the value is one walload could have written, else what is wrong with it
 * (which makes load_dump() ignore the whole file).  What must hold is what
 * the readers rely on: command tags index core's table of names, enums
 * select names, strings must end; and what walload's arithmetic can make,
 * so that no reader's arithmetic fails on what it loaded (a tiny time in
 * walload_xacts made walload_report() fail with "value out of range:
 * underflow" until a reset):
 *	- a count grows from 0, by one per event: never negative, and no server
 *	  counts 2^62 of anything (WL_MAX_COUNT), bytes included;
 *	- a time is a finite number of ms: measured ones (on the monotonic
 *	  clock) and predicted ones are not negative (total_ms, on the wall
 *	  clock, and the difference pred_core_commit_ms may be); each is 0 or
 *	  of a magnitude of at least WL_MIN_MS (the least walload makes: a
 *	  nanosecond split among at most 2^31 statements, about 5e-16 ms;
 *	  sums, differences and predictions keep far above 1e-30 ms); one
 *	  record's at most WL_MAX_MS, a sum's at most WL_MAX_SUM_MS;
 *	- a timestamp lies between 1970 and a day after the file is read (a
 *	  clock set back further since the shutdown is not expected);
 *	- a transaction's total_ms is its end less its start, as finish_record
 *	  computes it.
 */
#define WL_MAX_COUNT	(INT64CONST(1) << 62)
#define WL_MIN_MS		1e-30
#define WL_MAX_MS		1e13	/* 317 years */
#define WL_MAX_SUM_MS	1e18
#define WL_MIN_TIME		(-INT64CONST(946684800) * USECS_PER_SEC) /* 1970-01-01 */

/* the end of the times a file may hold (load_dump) */
static TimestampTz latest_time;

static const char *
check_tag(CommandTag tag)
{
	if ((int) tag < 0 || (int) tag >= WL_NUM_COMMAND_TAGS)
		return psprintf("command tag %d is out of range", (int) tag);
	return NULL;
}

static const char *
check_bool(const char *what, bool b)
{
	uint8		v;

	memcpy(&v, &b, 1);
	if (v > 1)
		return psprintf("%s is %u, not a boolean", what, v);
	return NULL;
}

static const char *
check_count(const char *what, int64 v)
{
	if (v < 0)
		return psprintf("%s is negative (" INT64_FORMAT ")", what, v);
	if (v > WL_MAX_COUNT)
		return psprintf("%s is out of range (" INT64_FORMAT ")", what, v);
	return NULL;
}

static const char *
check_bytes(const char *what, uint64 v)
{
	if (v > (uint64) WL_MAX_COUNT)
		return psprintf("%s is out of range (" UINT64_FORMAT ")", what, v);
	return NULL;
}

/* finite (a sum of squares: walload_stats' variance) */
static const char *
check_finite(const char *what, double v)
{
	if (isnan(v) || isinf(v))
		return psprintf("%s is not a finite number", what);
	return NULL;
}

/* a time in ms, of either sign, 0 or of a magnitude within min..max */
static const char *
check_ms_within(const char *what, double v, double max)
{
	const char *p = check_finite(what, v);

	if (p == NULL && v != 0 && (fabs(v) < WL_MIN_MS || fabs(v) > max))
		p = psprintf("%s is out of range (%g)", what, v);
	return p;
}

/* a time, or a sum of times, that cannot be negative */
static const char *
check_ms_not_negative(const char *what, double v, double max)
{
	const char *p = check_ms_within(what, v, max);

	if (p == NULL && v < 0)
		p = psprintf("%s is negative (%g)", what, v);
	return p;
}

/* a time one record measured, or predicted */
static const char *
check_ms(const char *what, double v)
{
	return check_ms_not_negative(what, v, WL_MAX_MS);
}

/* a sum of measured times */
static const char *
check_sum_ms(const char *what, double v)
{
	return check_ms_not_negative(what, v, WL_MAX_SUM_MS);
}

static const char *
check_timestamp(const char *what, TimestampTz t)
{
	if (!IS_VALID_TIMESTAMP(t) || t < WL_MIN_TIME || t > latest_time)
		return psprintf("%s is out of range (" INT64_FORMAT ")", what, (int64) t);
	return NULL;
}

static const char *
check_nbuffers(int32 v)
{
	if (v < 0 || v > INT_MAX / 2)
		return psprintf("nbuffers %d is out of range", v);
	return NULL;
}

static const char *
check_text(const char *what, const char *s, Size len)
{
	if (memchr(s, '\0', len) == NULL)
		return psprintf("%s is not terminated", what);
	return NULL;
}

static const char *
check_counters(const WlCounters *c)
{
	const char *p = NULL;

#define check_int64 check_count
#define check_uint64 check_bytes
#define CHECK(type, name, source) (p = check_##type(#name, c->name)) ||
	if ((p = check_count("rows", c->rows)) ||
		WL_BUFFER_WAL_COUNTERS(CHECK)
		WL_FPI_BYTES_COUNTERS(CHECK)
		WL_WAL_IO_COUNTERS(CHECK)
		(p = check_count("scan_est_ns", c->scan_est_ns)))
		return p;
#undef CHECK
#undef check_int64
#undef check_uint64
	for (int k = 0; k < WL_NUM_SCAN_KINDS; k++)
		if ((p = check_count("a scan count", c->scans[k])))
			return p;
	return NULL;
}

static const char *
check_entry(const WlStatsEntry *e, uint64 newer_than)
{
	const char *p = NULL;

	if ((p = check_tag(e->key.tag)) ||
		(p = check_bool("toplevel", e->key.toplevel)) ||
		(p = check_count("calls", e->calls)) ||
		(p = check_count("errors", e->errors)) ||
		(p = check_count("wal_skipped_calls", e->wal_skipped_calls)) ||
		(p = check_count("scanned_buffers", e->scanned_buffers)) ||
		(p = check_sum_ms("total_ms", e->total_ms)) ||
		(p = check_ms("min_ms", e->min_ms)) ||
		(p = check_ms("max_ms", e->max_ms)) ||
		(p = check_ms("mean_ms", e->mean_ms)) ||
		(p = check_finite("sum_var_ms", e->sum_var_ms)) ||
		(p = check_sum_ms("commit_ms", e->commit_ms)) ||
		(p = check_counters(&e->c)) ||
		(p = check_text("the query text", e->query, WL_QUERY_LEN)))
		return p;
	if (e->errors > e->calls || e->wal_skipped_calls > e->calls)
		return "more errors or WAL-skipping calls than calls";
	if (e->last_used > newer_than)
		return "the aggregates are not in order of last use";
	return NULL;
}

static const char *
check_xact(const WlXactRecord *x, uint64 next_xact_id)
{
	const char *p = NULL;

	if (x->xact_id == 0 || x->xact_id >= next_xact_id)
		return psprintf("xact_id " UINT64_FORMAT " is out of range", x->xact_id);
	if (x->outcome > WL_OUTCOME_PREPARE)
		return psprintf("outcome %u is out of range", x->outcome);
	if (x->commit_strategy < 0 || x->commit_strategy > WL_STRATEGY_SYNC ||
		x->commit_threshold_kb < 0 ||
		x->strategy_action < WL_ACTION_NONE || x->strategy_action > WL_ACTION_ASIDE_MISPREDICTED ||
		x->strategy_changed < 0)
		return psprintf("commit strategy %d, threshold %d kB, action %d, %d changed are out of range",
						x->commit_strategy, x->commit_threshold_kb,
						x->strategy_action, x->strategy_changed);
	if (x->wal_level < WAL_LEVEL_MINIMAL || x->wal_level > WAL_LEVEL_LOGICAL)
		return psprintf("wal_level %d is out of range", x->wal_level);
	if (x->synchronous_commit < SYNCHRONOUS_COMMIT_OFF ||
		x->synchronous_commit > SYNCHRONOUS_COMMIT_REMOTE_APPLY)
		return psprintf("synchronous_commit %d is out of range", x->synchronous_commit);
	if ((p = check_count("pid", x->pid)) ||
		(p = check_timestamp("a transaction's start", x->start)) ||
		(p = check_timestamp("a transaction's end", x->end)) ||
		(p = check_ms("commit_ms", x->commit_ms)) ||
		(p = check_ms("commit_sync_ms", x->commit_sync_ms)) ||
		(p = check_ms("commit_cleanup_ms", x->commit_cleanup_ms)) ||
		(p = check_ms("commit_wal_ms", x->commit_wal_ms)) ||
		(p = check_ms("commit_standby_ms", x->commit_standby_ms)) ||
		(p = check_bool("commit_standby_wait", x->commit_standby_wait)) ||
		(p = check_ms("pred_commit_ms", x->pred_commit_ms)) ||
		(p = check_ms_within("pred_core_commit_ms", x->pred_core_commit_ms, WL_MAX_MS)) ||
		(p = check_ms("scan_fault_ms", x->scan_fault_ms)) ||
		(p = check_bytes("commit_wal_bytes", x->commit_wal_bytes)) ||
		(p = check_nbuffers(x->nbuffers)) ||
		(p = check_count("statements", x->statements)) ||
		(p = check_count("inner_xacts", x->inner_xacts)) ||
		(p = check_counters(&x->c)) ||
		(p = check_count("wal_skipped_rels", x->wal_skipped_rels)) ||
		(p = check_count("synced_rels", x->synced_rels)) ||
		(p = check_count("synced_blocks", x->synced_blocks)) ||
		(p = check_count("synced_truncated_rels", x->synced_truncated_rels)) ||
		(p = check_count("synced_truncated_blocks", x->synced_truncated_blocks)) ||
		(p = check_count("wal_logged_rels", x->wal_logged_rels)) ||
		(p = check_count("wal_logged_blocks", x->wal_logged_blocks)) ||
		(p = check_count("dropped_rels", x->dropped_rels)) ||
		(p = check_count("nbuffers", x->nbuffers)) ||
		(p = check_count("wal_skip_threshold_kb", x->wal_skip_threshold_kb)) ||
		(p = check_timestamp("a backend's start", x->backend_start)) ||
		(p = check_bool("first_in_session", x->first_in_session)) ||
		(p = check_text("an application_name", x->application_name, NAMEDATALEN)))
		return p;
	for (int k = 0; k < WL_NUM_TIME_KINDS; k++)
		if ((p = check_ms("a time by kind", x->kind_ms[k])))
			return p;
	/* as finish_record computes it (of either sign: a wall clock's) */
	if (x->total_ms != (double) (x->end - x->start) / 1000.0)
		return psprintf("total_ms %g is not its end less its start", x->total_ms);
	return NULL;
}

static const char *
check_stmt(const WlStmtRecord *s, uint64 next_xact_id)
{
	const char *p = NULL;

	if (s->xact_id >= next_xact_id)
		return psprintf("xact_id " UINT64_FORMAT " is out of range", s->xact_id);
	if (s->stmt_no < -1)
		return psprintf("stmt_no %d is out of range", s->stmt_no);
	if (s->status > WL_STMT_ERROR)
		return psprintf("status %u is out of range", s->status);
	if ((p = check_tag(s->tag)) ||
		(p = check_bool("toplevel", s->toplevel)) ||
		(p = check_bool("wal_skipped", s->wal_skipped)) ||
		(p = check_count("pid", s->pid)) ||
		(p = check_count("nest_level", s->nest_level)) ||
		(p = check_timestamp("a statement's start", s->start)) ||
		(p = check_ms("elapsed_ms", s->elapsed_ms)) ||
		(p = check_nbuffers(s->nbuffers)) ||
		(p = check_count("vacuum_ring_kb", s->vacuum_ring_kb)) ||
		(p = check_count("vacuum_pages", s->vacuum_pages)) ||
		(p = check_count("vacuum_pages_removed", s->vacuum_pages_removed)) ||
		(p = check_counters(&s->c)) ||
		(p = check_text("the query text", s->query, WL_QUERY_LEN)) ||
		(p = check_ms("commit_ms", s->commit_ms)))
		return p;
	return NULL;
}

static const char *
check_minute(const WlMinuteRecord *m)
{
	const char *p = NULL;

	if ((p = check_count("pid", m->pid)) ||
		(p = check_bool("first_in_session", m->first_in_session)) ||
		(p = check_timestamp("a backend's start", m->backend_start)) ||
		(p = check_timestamp("a minute", m->minute)) ||
		(p = check_timestamp("a transaction's start", m->first_start)) ||
		(p = check_timestamp("a transaction's end", m->last_end)) ||
		(p = check_count("xacts", m->xacts)) ||
		(p = check_ms_within("total_ms", m->total_ms, WL_MAX_SUM_MS)) ||
		(p = check_sum_ms("commit_sync_ms", m->commit_sync_ms)) ||
		(p = check_sum_ms("commit_cleanup_ms", m->commit_cleanup_ms)) ||
		(p = check_count("commit_sync_xacts", m->commit_sync_xacts)) ||
		(p = check_count("commit_cleanup_xacts", m->commit_cleanup_xacts)) ||
		(p = check_sum_ms("commit_standby_ms", m->commit_standby_ms)) ||
		(p = check_count("commit_standby_xacts", m->commit_standby_xacts)) ||
		(p = check_count("synced_rels", m->synced_rels)) ||
		(p = check_count("wal_logged_rels", m->wal_logged_rels)) ||
		(p = check_count("dropped_rels", m->dropped_rels)) ||
		(p = check_count("scans_flush_pending", m->scans_flush_pending)) ||
		(p = check_count("scans_drop_pending", m->scans_drop_pending)) ||
		(p = check_text("an application_name", m->application_name, NAMEDATALEN)))
		return p;
	for (int k = 0; k < WL_NUM_TIME_KINDS; k++)
		if ((p = check_sum_ms("a time by kind", m->kind_ms[k])) ||
			(p = check_count("transactions by kind", m->kind_xacts[k])))
			return p;
	if (m->xacts == 0 || m->minute % USECS_PER_MINUTE != 0 ||
		m->first_start > m->last_end || m->last_end < m->minute ||
		m->last_end >= m->minute + USECS_PER_MINUTE)
		return "its times disagree";
	return NULL;
}

/* and the synced files truncated in place (1.10), in padding */
StaticAssertDecl(offsetof(WlXactRecord, start) ==
				 TYPEALIGN(ALIGNOF_DOUBLE, offsetof(WlXactRecord, dbid) + sizeof(Oid)),
				 "synced_truncated_rels must fit in the padding before start");
StaticAssertDecl(offsetof(WlXactRecord, commit_wal_ms) ==
				 TYPEALIGN(ALIGNOF_DOUBLE, offsetof(WlXactRecord, commit_standby_wait) + 1),
				 "synced_truncated_blocks must fit in the padding after commit_standby_wait");

static const char *
check_header(const WlDumpHeader *h, off_t file_size)
{
	const char *p = NULL;
	uint64		expected;

	if (h->magic != WL_DUMP_MAGIC ||
		(h->format != WL_DUMP_FORMAT && h->format != WL_DUMP_FORMAT_1_9 &&
		 h->format != WL_DUMP_FORMAT_NO_CRC) ||
		h->pg_version != PG_VERSION_NUM ||
		h->sizeof_header != sizeof(WlDumpHeader) ||
		h->sizeof_entry != sizeof(WlStatsEntry) ||
		h->sizeof_xact != dump_xact_size(h->format) ||
		h->sizeof_stmt != sizeof(WlStmtRecord) ||
		h->sizeof_minute != dump_minute_size(h->format))
		return "it was not written by this version of walload and PostgreSQL";
	if ((p = check_count("the number of aggregates", h->nentries)) ||
		(p = check_count("the number of transactions", h->nxacts)) ||
		(p = check_count("the number of statements", h->nstmts)) ||
		(p = check_count("the number of per-minute sums", h->nminutes)) ||
		(p = check_timestamp("stats_reset", h->stats_reset)) ||
		(p = check_count("stats_evicted", h->stats_evicted)) ||
		(p = check_count("scanned_buffers", h->scanned_buffers)) ||
		(p = check_count("commit_sync_us", (int64) h->commit_sync_us)) ||
		(p = check_count("commit_cleanup_us", (int64) h->commit_cleanup_us)))
		return p;
	for (int k = 0; k < WL_NUM_SCAN_KINDS; k++)
		if ((p = check_count("a scan count", h->scans[k])))
			return p;
	if (h->next_xact_id == 0 || h->next_xact_id > PG_INT64_MAX)
		return "next_xact_id is out of range";
	if ((uint64) h->nxacts > h->xacts_recorded ||
		(uint64) h->nstmts > h->statements_recorded ||
		(uint64) h->nminutes > h->minutes_recorded ||
		h->xacts_recorded > PG_INT64_MAX || h->statements_recorded > PG_INT64_MAX ||
		h->minutes_recorded > PG_INT64_MAX)
		return "the numbers of records kept and recorded disagree";

	expected = sizeof(WlDumpHeader) +
		(uint64) h->nentries * sizeof(WlStatsEntry) +
		(uint64) h->nxacts * h->sizeof_xact +
		(uint64) h->nminutes * h->sizeof_minute +
		(uint64) h->nstmts * sizeof(WlStmtRecord);
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
 * Read the file a clean shutdown wrote, check every field, and put its
 * contents back.  Anything invalid, or a CRC that does not match, and the
 * whole file is ignored, with a LOG line naming the problem.  The CRC finds
 * bytes changed since the shutdown; the checks of the fields, values that
 * were written wrong (or by a walload with a bug), which no CRC can.
 *
 * The aggregates come most recently used first; they are renumbered on the
 * way in (the first gets the highest stamp, nentries) and the clock is set
 * after the last of them, so that the eviction order survives the restart
 * and new aggregates count as newer than every loaded one.  When
 * walload.max_stats was lowered, the most recently used are kept.
 *
 * The rings go back to the positions they had (as counted since the last
 * reset), so that walload_info's recorded and overwritten counts survive.
 * When a ring was made smaller, its newest records are kept.
 */
static void
load_dump(void)
{
	FILE	   *f;
	WlDumpHeader h;
	WlStatsEntry buf;
	struct stat st;
	const char *problem = NULL;
	uint64		prev_last_used = PG_UINT64_MAX;
	pg_crc32c	crc;
	pg_crc32c	file_crc;

	/* a day's leeway for a clock set back since the shutdown */
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
	{
		ereport(LOG,
				(errcode_for_file_access(),
				 errmsg("could not stat file \"%s\": %m", WL_DUMP_FILE)));
		FreeFile(f);
		return;
	}

	if (!read_part(f, &h, sizeof(h), &crc))
		problem = "it is truncated";
	else
		problem = check_header(&h, st.st_size);

	for (int i = 0; problem == NULL && i < h.nentries; i++)
	{
		WlStatsEntry *e;
		WlStatsKey	key;
		bool		found;

		if (!read_part(f, &buf, sizeof(buf), &crc))
		{
			problem = "it is truncated";
			break;
		}
		if ((problem = check_entry(&buf, prev_last_used)) != NULL)
		{
			problem = psprintf("aggregate %d: %s", i + 1, problem);
			break;
		}
		prev_last_used = buf.last_used;

		if (hash_get_num_entries(wl_stats) >= wl_max_stats)
			continue;			/* walload.max_stats was lowered */
		/* the key as stats_key_of() builds it: no stray padding */
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
	if (problem == NULL)
		pg_atomic_write_u64(&wl_shared->xact_pos, h.xacts_recorded - h.nxacts);
	for (int i = 0; problem == NULL && i < h.nxacts; i++)
	{
		WlXactRecord rec;

		memset(&rec, 0, sizeof(rec));
		if (!read_part(f, &rec, h.sizeof_xact, &crc))
			problem = "it is truncated";
		else if ((problem = check_xact(&rec, h.next_xact_id)) != NULL)
			problem = psprintf("transaction record %d: %s", i + 1, problem);
		else
			put_xact(&rec);
	}
	if (problem == NULL)
		pg_atomic_write_u64(&wl_shared->minute_pos, h.minutes_recorded - h.nminutes);
	for (int i = 0; problem == NULL && i < h.nminutes; i++)
	{
		WlMinuteRecord rec;
		uint64		pos;
		WlMinuteSlot *slot;

		memset(&rec, 0, sizeof(rec));
		if (!read_part(f, &rec, h.sizeof_minute, &crc))
			problem = "it is truncated";
		else if ((problem = check_minute(&rec)) != NULL)
			problem = psprintf("per-minute sum %d: %s", i + 1, problem);
		else
		{
			pos = pg_atomic_fetch_add_u64(&wl_shared->minute_pos, 1);
			slot = &minute_ring[pos % wl_shared->max_minutes];
			slot->pos_plus_one = pos + 1;
			slot->rec = rec;
		}
	}
	if (problem == NULL)
		pg_atomic_write_u64(&wl_shared->stmt_pos, h.statements_recorded - h.nstmts);
	for (int i = 0; problem == NULL && i < h.nstmts; i++)
	{
		WlStmtRecord rec;

		if (!read_part(f, &rec, sizeof(rec), &crc))
			problem = "it is truncated";
		else if ((problem = check_stmt(&rec, h.next_xact_id)) != NULL)
			problem = psprintf("statement record %d: %s", i + 1, problem);
		else
			(void) put_statement(&rec);
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
		wl_shared->xact_base = 0;
		wl_shared->minute_base = 0;
		wl_shared->stmt_base = 0;
		pg_atomic_write_u64(&wl_shared->next_xact_id, h.next_xact_id);
		pg_atomic_write_u64(&wl_shared->lru_clock, (uint64) h.nentries + 1);
		pg_atomic_write_u64(&wl_shared->commit_sync_us, h.commit_sync_us);
		pg_atomic_write_u64(&wl_shared->commit_cleanup_us, h.commit_cleanup_us);
	}
	else
	{
		HASH_SEQ_STATUS hs;
		WlStatsEntry *e;

		ereport(LOG,
				(errmsg("ignoring walload statistics file \"%s\": %s",
						WL_DUMP_FILE, problem)));
		/* start from nothing rather than from half a file */
		hash_seq_init(&hs, wl_stats);
		while ((e = hash_seq_search(&hs)) != NULL)
			hash_search(wl_stats, &e->key, HASH_REMOVE, NULL);
		for (int i = 0; i < wl_shared->max_xacts; i++)
			xact_ring[i].pos_plus_one = 0;
		for (int i = 0; i < wl_shared->max_minutes; i++)
			minute_ring[i].pos_plus_one = 0;
		for (int i = 0; i < wl_shared->max_statements; i++)
			stmt_ring[i].pos_plus_one = 0;
		pg_atomic_write_u64(&wl_shared->xact_pos, 0);
		pg_atomic_write_u64(&wl_shared->minute_pos, 0);
		pg_atomic_write_u64(&wl_shared->stmt_pos, 0);
		pg_atomic_write_u64(&wl_shared->lru_clock, 1);
	}

	FreeFile(f);
	unlink(WL_DUMP_FILE);
}
