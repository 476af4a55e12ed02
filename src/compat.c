/*-------------------------------------------------------------------------
 *
 * compat.c
 *		The functions whose code differs between the PostgreSQL major
 *		versions walload builds against (compat.h holds the macros).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "compat.h"

#include "access/xlog.h"
#include "commands/defrem.h"
#include "common/hashfn.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "utils/guc.h"
#include "utils/guc_tables.h"
#if PG_VERSION_NUM >= 180000
#include "storage/procnumber.h"
#include "utils/pgstat_internal.h"
#endif

#if PG_VERSION_NUM < 160000
/*
 * 15's query id of a utility statement, compute_utility_query_id's: its
 * cleaned text hashed, 0 made 2.  Loads repeat their DDL and COPY texts: the
 * ids of the last four are kept, each found by the statement's bytes whole,
 * as CleanQuerytext() starts from them.
 */
static struct
{
	uint64		id;				/* 0: unused */
	int			len;
	char		text[128];
}			text_ids[4];
static int	text_ids_next = 0;

static uint64
utility_text_id(const char *queryString, int loc, int len)
{
	const char *raw = queryString + Max(loc, 0);
	int			raw_len = loc >= 0 && len > 0 ? len : (int) strlen(raw);
	const char *sql;
	uint64		id;

	for (int i = 0; i < lengthof(text_ids); i++)
		if (text_ids[i].len == raw_len && text_ids[i].id != 0 &&
			memcmp(text_ids[i].text, raw, raw_len) == 0)
			return text_ids[i].id;
	sql = CleanQuerytext(queryString, &loc, &len);
	id = DatumGetUInt64(hash_any_extended((const unsigned char *) sql, len, 0));
	id = id == UINT64CONST(0) ? UINT64CONST(2) : id;
	if (raw_len <= sizeof(text_ids[0].text))
	{
		memcpy(text_ids[text_ids_next].text, raw, raw_len);
		text_ids[text_ids_next].len = raw_len;
		text_ids[text_ids_next].id = id;
		text_ids_next = (text_ids_next + 1) % lengthof(text_ids);
	}
	return id;
}
#endif

/*
 * Query id of a utility statement as core computes it at parse analysis,
 * for when an extension called before walload zeroed PlannedStmt.queryId.
 * Subcommands get none, as in core.  16+: JumbleQuery() of the Query parse
 * analysis wraps around it.
 */
uint64
wl_compute_utility_queryid(PlannedStmt *pstmt, const char *queryString)
{
#if PG_VERSION_NUM < 160000
	if (!pstmt->canSetTag || queryString == NULL)
		return UINT64CONST(0);
	return utility_text_id(queryString, pstmt->stmt_location, pstmt->stmt_len);
#else
	Query	   *query;
	JumbleState *jstate;
	uint64		id;

	if (!pstmt->canSetTag || pstmt->utilityStmt == NULL)
		return UINT64CONST(0);
	query = makeNode(Query);
	query->commandType = CMD_UTILITY;
	query->querySource = QSRC_ORIGINAL;
	query->canSetTag = true;
	query->utilityStmt = pstmt->utilityStmt;
	query->stmt_location = pstmt->stmt_location;
	query->stmt_len = pstmt->stmt_len;
	jstate = JumbleQuery(query);
	id = (uint64) query->queryId;
	pfree(jstate->jumble);
	pfree(jstate->clocations);
	pfree(jstate);
	pfree(query);
	return id;
#endif
}

#if PG_VERSION_NUM >= 160000
#define jumble_query_call(query, sourceText)	((void) JumbleQuery(query))
#else
/* a utility statement's as 15's JumbleQuery() computes it */
#define jumble_query_call(query, sourceText) \
	((query)->utilityStmt == NULL ? (void) JumbleQuery((query), (sourceText)) : \
	 (void) ((query)->queryId = utility_text_id((sourceText), (query)->stmt_location, (query)->stmt_len)))
#endif

/*
 * Core's query id for an analysed Query, as parse_analyze_*() computes it.
 * query_id_enabled, read under JumbleQuery() only by an assertion, is set
 * only with assertions, and put back also on error: left set, core would
 * compute an id for every later statement.
 */
void
wl_jumble_query(Query *query, const char *sourceText)
{
#ifdef USE_ASSERT_CHECKING
	bool		was_enabled = query_id_enabled;

	query_id_enabled = true;
	PG_TRY();
	{
		jumble_query_call(query, sourceText);
	}
	PG_FINALLY();
	{
		query_id_enabled = was_enabled;
	}
	PG_END_TRY();
#else
	jumble_query_call(query, sourceText);
#endif
}

#if PG_VERSION_NUM >= 180000
/*
 * 18+ counts WAL I/O in backend-local arrays; this backend's shared entry
 * is read under its lock once pgstat_flush_backend() moved them there.  A
 * flush passes over every counter: only when the WAL write or flush
 * position moved (every read in recovery).  Counts before a reset of the
 * entry are added on, so differences stay whole.
 */
static bool have_last = false;
static bool positions_valid = false;
static XLogRecPtr seen_write;
static XLogRecPtr seen_flush;
static TimestampTz seen_reset;
static WlWalIo base;			/* counts of the entry before its resets */
static WlWalIo last;

bool
wl_wal_io_read(WlWalIo *io)
{
	bool		recovery;
	XLogRecPtr	write = InvalidXLogRecPtr;
	XLogRecPtr	flush = InvalidXLogRecPtr;
	PgStat_EntryRef *ref;
	PgStat_Backend *st;
	TimestampTz reset;
	int64		writes,
				syncs,
				sync_us;

	memset(io, 0, sizeof(*io));
	if (!pgstat_tracks_backend_bktype(MyBackendType))
		return false;
	recovery = RecoveryInProgress();
	if (!recovery)
	{
		flush = GetFlushRecPtr(NULL);
		write = GetXLogWriteRecPtr();
		if (positions_valid && write == seen_write && flush == seen_flush)
		{
			*io = last;
			return true;
		}
	}

	(void) pgstat_flush_backend(false, PGSTAT_BACKEND_FLUSH_IO);
	ref = pgstat_get_entry_ref(PGSTAT_KIND_BACKEND, InvalidOid, MyProcNumber,
							   false, NULL);
	if (ref == NULL)
	{
		positions_valid = false;
		return false;
	}
	(void) pgstat_lock_entry_shared(ref, false);
	st = &((PgStatShared_Backend *) ref->shared_stats)->stats;
	writes = st->io_stats.counts[IOOBJECT_WAL][IOCONTEXT_NORMAL][IOOP_WRITE];
	syncs = st->io_stats.counts[IOOBJECT_WAL][IOCONTEXT_NORMAL][IOOP_FSYNC];
	sync_us = st->io_stats.times[IOOBJECT_WAL][IOCONTEXT_NORMAL][IOOP_FSYNC];
	reset = st->stat_reset_timestamp;
	pgstat_unlock_entry(ref);

	if (have_last && reset != seen_reset)
		base = last;
	last.writes = base.writes + writes;
	last.syncs = base.syncs + syncs;
	last.sync_us = base.sync_us + sync_us;
	seen_reset = reset;
	seen_write = write;
	seen_flush = flush;
	positions_valid = !recovery;
	have_last = true;
	*io = last;
	return true;
}
#endif

/* VACUUM's ring in kB: 15 256; 16+ BUFFER_USAGE_LIMIT, else the GUC */
int
wl_vacuum_ring_kb(List *options)
{
#if PG_VERSION_NUM >= 160000
	ListCell   *lc;

	foreach(lc, options)
	{
		DefElem    *opt = lfirst(lc);
		int			kb;

		if (strcmp(opt->defname, "buffer_usage_limit") == 0 &&
			parse_int(defGetString(opt), &kb, GUC_UNIT_KB, NULL))
			return kb;
	}
	return VacuumBufferUsageLimit;
#else
	return 256;
#endif
}

/*
 * Whether the current transaction SET LOCAL the setting name (a value on its
 * GUC stack).  15 has no find_option() outside guc.c: its array is searched.
 */
bool
wl_guc_set_local(const char *name)
{
	struct config_generic *conf = NULL;

#if PG_VERSION_NUM >= 160000
	conf = find_option(name, false, true, ERROR);
#else
	struct config_generic **vars = get_guc_variables();
	int			n = GetNumConfigOptions();

	for (int i = 0; i < n && conf == NULL; i++)
		if (pg_strcasecmp(vars[i]->name, name) == 0)
			conf = vars[i];
#endif
	for (GucStack *s = conf ? conf->stack : NULL; s != NULL; s = s->prev)
		if (s->state == GUC_LOCAL || s->state == GUC_SET_LOCAL)
			return true;
	return false;
}
