/*-------------------------------------------------------------------------
 *
 * views.c
 *		The SQL functions behind walload's views, walload_reset() and
 *		walload_calibrate().  Who sees what follows core: query texts and ids
 *		as pg_stat_statements (wl_can_see_text), a session's start and a
 *		running load as pg_stat_activity (wl_can_see_backend).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "views.h"

#include <math.h>

#include "access/htup_details.h"
#include "access/xact.h"
#include "access/xlog.h"
#include "catalog/pg_authid.h"
#include "commands/dbcommands.h"
#include "catalog/pg_operator_d.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "lib/stringinfo.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"	/* get_database_name() on 19 */
#include "utils/tuplesort.h"
#include "utils/tuplestore.h"

#include "calibrate.h"
#include "metrics.h"
#include "settings.h"
#include "store.h"

PG_FUNCTION_INFO_V1(walload_xacts);
PG_FUNCTION_INFO_V1(walload_minutes);
PG_FUNCTION_INFO_V1(walload_statements);
PG_FUNCTION_INFO_V1(walload_stats);
PG_FUNCTION_INFO_V1(walload_library_version);
PG_FUNCTION_INFO_V1(walload_command_totals);
PG_FUNCTION_INFO_V1(walload_histograms);
PG_FUNCTION_INFO_V1(walload_reset);
PG_FUNCTION_INFO_V1(walload_calibrate);
PG_FUNCTION_INFO_V1(walload_activity);
PG_FUNCTION_INFO_V1(walload_xact_backend_types);

#define DATUM_int32(v)	Int32GetDatum(v)
#define DATUM_int64(v)	Int64GetDatum(v)
#define DATUM_uint64(v) uint64_numeric(v)
#define DATUM_double(v) Float8GetDatum(v)

static Datum
uint64_numeric(uint64 v)
{
	char		buf[32];

	snprintf(buf, sizeof(buf), UINT64_FORMAT, v);
	return DirectFunctionCall3(numeric_in, CStringGetDatum(buf),
							   ObjectIdGetDatum(0), Int32GetDatum(-1));
}

/* the name of value v of an enumeration named by names[0 .. n-1] */
static const char *
name_of(const char *const *names, int n, int v)
{
	return v >= 0 && v < n ? names[v] : "unknown";
}

const char *
wl_sync_commit_name(int value)
{
	static const char *const names[] = {"off", "local", "remote_write", "on", "remote_apply"};

	StaticAssertStmt(SYNCHRONOUS_COMMIT_OFF == 0 && SYNCHRONOUS_COMMIT_REMOTE_FLUSH == 3 &&
					 SYNCHRONOUS_COMMIT_REMOTE_APPLY == 4, "synchronous_commit's values");
	return name_of(names, lengthof(names), value);
}

/* walload_xacts.strategy_action, in WlStrategyAction's order */
static const char *const action_names[] = {
	"unknown", "kept", "stood aside: SET LOCAL", "stood aside: not calibrated", "changed",
	"stood aside: commits took far longer than predicted"
};

/* userid's query text and id: its own, or with pg_read_all_stats' privileges */
bool
wl_can_see_text(Oid userid)
{
	return userid == GetUserId() || has_privs_of_role(GetUserId(), ROLE_PG_READ_ALL_STATS);
}

/* a backend's load, as HAS_PGSTAT_PERMISSIONS: it tells as much as its query */
bool
wl_can_see_backend(Oid userid)
{
	return has_privs_of_role(GetUserId(), userid) ||
		has_privs_of_role(GetUserId(), ROLE_PG_READ_ALL_STATS);
}

/* the five scan kinds, their sum, the buffers walked and the estimate */
#define PUT_SCANS(c, scanned) \
	do { \
		for (int k = 0; k < WL_NUM_SCAN_KINDS; k++) \
			values[i++] = Int64GetDatum((c)->scans[k]); \
		values[i++] = Int64GetDatum(wl_full_scans(c)); \
		values[i++] = Int64GetDatum(scanned); \
		values[i++] = Float8GetDatum((c)->scan_est_ns / 1e6); \
	} while (0)

/* the backend's own WAL writes and flushes */
#define PUT_WAL_IO(c) \
	(values[i++] = Int64GetDatum((c)->wal_writes), values[i++] = Int64GetDatum((c)->wal_syncs), \
	 values[i++] = Float8GetDatum((c)->wal_sync_us / 1000.0))

/* rows and the buffer and WAL counters (types.h) */
#define PUT_BUFFER(type, name, source) values[i++] = DATUM_##type(c->name);
#define PUT_COUNTERS(counters) \
	do { \
		const WlCounters *c = (counters); \
		values[i++] = Int64GetDatum(c->rows); \
		WL_BUFFER_WAL_COUNTERS(PUT_BUFFER) \
	} while (0)

/* who: the backend, its role and database */
#define PUT_WHO(r) \
	(values[i++] = Int32GetDatum((r)->pid), values[i++] = ObjectIdGetDatum((r)->userid), \
	 values[i++] = ObjectIdGetDatum((r)->dbid))

/* the columns of a run of fields of rec (types.h), as they are */
#define EMIT(kind, type, name, dims, add) \
	for (int k = 0; k < (int) (sizeof(rec->name) / sizeof(type)); k++) \
		values[i++] = DATUM_##type(((const type *) &rec->name)[k]);

/*
 * The column counts each function serves, one per extension version that
 * added columns (at the end), until ALTER EXTENSION walload UPDATE; any
 * other shape is an error before a row is built.
 */
#define WL_MAX_COLS		65		/* walload_xacts' */
#define ROW_COLS	(cols[lengthof(cols) - 1])	/* a function's widest row */

/* which of the ncounts column counts fn()'s definition has; else an error */
int
wl_check_columns(ReturnSetInfo *rsinfo, const int *counts, int ncounts, const char *fn)
{
	int			natts = rsinfo->setDesc->natts;
	StringInfoData expected;

	for (int i = 0; i < ncounts; i++)
		if (natts == counts[i])
			return i;
	initStringInfo(&expected);
	for (int i = 0; i < ncounts; i++)
		appendStringInfo(&expected, "%s%d",
						 i == 0 ? "" : i == ncounts - 1 ? " or " : ", ", counts[i]);
	ereport(ERROR,
			(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
			 errmsg("%s() is defined with %d columns, the installed library returns %s",
					fn, natts, expected.data),
			 errhint("Run ALTER EXTENSION walload UPDATE, or reinstall the extension.")));
}

/* start set-returning function fn, defined with one of the column counts cols */
#define BEGIN_SRF(fn) \
	(AssertMacro(ROW_COLS <= WL_MAX_COLS), wl_store_require(), InitMaterializedSRF(fcinfo, 0), \
	 (void) wl_check_columns((ReturnSetInfo *) fcinfo->resultinfo, cols, lengthof(cols), fn), \
	 (ReturnSetInfo *) fcinfo->resultinfo)

/* BEGIN_SRF, and one row's columns: PUT_* fill them, PUT_ROW() stores and clears them */
#define SRF_ROWS(fn) \
	ReturnSetInfo *rsinfo = BEGIN_SRF(fn); \
	Datum		values[WL_MAX_COLS]; \
	bool		nulls[WL_MAX_COLS] = {0}; \
	int			i = 0

/* the next column of values and nulls: datum, or NULL (datum unevaluated) */
#define PUT_COL(isnull, datum) \
	(nulls[i] = (isnull), values[i] = nulls[i] ? (Datum) 0 : (datum), i++)
/* full-page image bytes (1.2), NULL where the version has none */
#define PUT_FPI_BYTES(c)	PUT_COL(!WL_HAVE_WAL_FPI_BYTES, uint64_numeric((c)->wal_fpi_bytes))
/* a session's start (and whether this holds its first record), as pg_stat_activity shows it */
#define PUT_SESSION(r) \
	(PUT_COL(!wl_can_see_backend((r)->userid), TimestampTzGetDatum((r)->backend_start)), \
	 PUT_COL(nulls[i - 1], BoolGetDatum((r)->first_in_session)))
/* the row built, every column of the function's largest shape put; the next one starts */
#define PUT_ROW() \
	(AssertMacro(i == ROW_COLS), \
	 tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls), \
	 memset(nulls, 0, sizeof(nulls)), i = 0)

Datum
walload_xacts(PG_FUNCTION_ARGS)
{
	static const int cols[] = {52, 53, 57, 59, 62, 65};
	static const char *const strategies[] = {"off", "auto", "wal", "sync"};
	static const char *const wal_levels[] = {"minimal", "replica", "logical"};
	StaticAssertDecl(WAL_LEVEL_MINIMAL == 0 && WAL_LEVEL_LOGICAL == 2, "wal_level's values");
	SRF_ROWS("walload_xacts");
	WlXactRecord *recs;
	int			n = wl_store_copy_xacts(&recs);

	for (int r = 0; r < n; r++)
	{
		WlXactRecord *rec = &recs[r];
		bool		aborted = rec->outcome == WL_OUTCOME_ABORT;

		values[i++] = Int64GetDatum((int64) rec->xact_id);
		PUT_WHO(rec);
		values[i++] = TimestampTzGetDatum(rec->start);
		values[i++] = TimestampTzGetDatum(rec->end);
		values[i++] = CStringGetTextDatum(rec->outcome == WL_OUTCOME_COMMIT ? "commit" :
										  rec->outcome == WL_OUTCOME_PREPARE ? "prepare" : "abort");
		WL_XACT_TIMES(EMIT)
		PUT_COUNTERS(&rec->c);
		WL_XACT_FILES(EMIT)
		PUT_SCANS(&rec->c, wl_full_scans(&rec->c) * rec->nbuffers);
		values[i++] = CStringGetTextDatum(name_of(wal_levels, lengthof(wal_levels), rec->wal_level));
		values[i++] = CStringGetTextDatum(wl_sync_commit_name(rec->synchronous_commit));
		values[i++] = Int32GetDatum(rec->nbuffers);
		values[i++] = Int32GetDatum(rec->wal_skip_threshold_kb);
		PUT_WAL_IO(&rec->c);
		PUT_FPI_BYTES(&rec->c);
		/* an abort has no commit to predict or choose for */
		PUT_COL(aborted, Float8GetDatum(rec->pred_commit_ms));
		PUT_COL(aborted, CStringGetTextDatum(strategies[rec->commit_strategy]));
		PUT_COL(aborted, Int32GetDatum(rec->commit_threshold_kb));
		PUT_COL(aborted, Float8GetDatum(rec->pred_core_commit_ms));
		PUT_COL(rec->strategy_action == WL_ACTION_NONE,
				CStringGetTextDatum(name_of(action_names, lengthof(action_names),
											rec->strategy_action)));
		values[i++] = Int32GetDatum(rec->strategy_changed);
		PUT_SESSION(rec);
		values[i++] = CStringGetTextDatum(rec->application_name);
		values[i++] = Float8GetDatum(rec->commit_wal_ms);
		values[i++] = Float8GetDatum(rec->commit_standby_ms);
		values[i++] = BoolGetDatum(rec->commit_standby_wait);
		PUT_ROW();
	}
	return (Datum) 0;
}

Datum
walload_minutes(PG_FUNCTION_ARGS)
{
	static const int cols[] = {38, 40};
	SRF_ROWS("walload_minutes");
	WlMinuteRecord *recs;
	int			n = wl_store_copy_minutes(&recs);

	for (int r = 0; r < n; r++)
	{
		WlMinuteRecord *rec = &recs[r];

		PUT_WHO(rec);
		PUT_SESSION(rec);
		values[i++] = CStringGetTextDatum(rec->application_name);
		values[i++] = TimestampTzGetDatum(rec->minute);
		values[i++] = TimestampTzGetDatum(rec->first_start);
		values[i++] = TimestampTzGetDatum(rec->last_end);
		WL_MINUTE_SUMS(EMIT)
		WL_MINUTE_SUMS_1_10(EMIT)
		PUT_ROW();
	}
	return (Datum) 0;
}

/* a chunk of the ring at a time, sorted: memory bounded by work_mem, not the ring */
#define WL_STMT_CHUNK	1024

Datum
walload_statements(PG_FUNCTION_ARGS)
{
	static const int cols[] = {36, 37};
	ReturnSetInfo *rsinfo = BEGIN_SRF("walload_statements");
	bool		with_fpi = rsinfo->setDesc->natts > cols[0];	/* 1.2: wal_fpi_bytes */
	WlStmtScan	scan;
	AttrNumber	keys[2] = {1, 2};	/* xact_id, stmt_no */
	Oid			ops[2] = {Int8LessOperator, Int4LessOperator};
	Oid			colls[2] = {InvalidOid, InvalidOid};
	bool		nulls_first[2] = {false, false};
	Tuplesortstate *sort = tuplesort_begin_heap(rsinfo->setDesc, 2, keys, ops, colls, nulls_first,
												work_mem, NULL, TUPLESORT_NONE);
	TupleTableSlot *row = MakeSingleTupleTableSlot(rsinfo->setDesc, &TTSOpsVirtual);
	TupleTableSlot *sorted = MakeSingleTupleTableSlot(rsinfo->setDesc, &TTSOpsMinimalTuple);
	/* each row's text values, freed once the sort has copied the row */
	MemoryContext rowcxt = AllocSetContextCreate(CurrentMemoryContext, "walload_statements row",
												 ALLOCSET_SMALL_SIZES);
	WlStmtRecord *recs = palloc(sizeof(WlStmtRecord) * WL_STMT_CHUNK);

	wl_store_scan_statements(&scan);
	while (scan.next < scan.hi)
	{
		int			n = wl_store_scan_statements_next(&scan, recs, WL_STMT_CHUNK);

		for (int r = 0; r < n; r++)
		{
			WlStmtRecord *s = &recs[r];
			Datum	   *values = row->tts_values;
			bool	   *nulls = row->tts_isnull;
			int			i = 0;
			MemoryContext old = MemoryContextSwitchTo(rowcxt);
			bool		visible = wl_can_see_text(s->userid);

			ExecClearTuple(row);
			memset(nulls, 0, sizeof(bool) * rsinfo->setDesc->natts);
			values[i++] = Int64GetDatum((int64) s->xact_id);
			values[i++] = Int32GetDatum(s->stmt_no);
			PUT_WHO(s);
			PUT_COL(!visible, Int64GetDatum((int64) s->queryid));
			values[i++] = BoolGetDatum(s->toplevel);
			values[i++] = Int32GetDatum(s->nest_level);
			values[i++] = CStringGetTextDatum(GetCommandTagName(s->tag));
			values[i++] = CStringGetTextDatum(s->status == WL_STMT_OK ? "ok" : "error");
			values[i++] = TimestampTzGetDatum(s->start);
			values[i++] = Float8GetDatum(s->elapsed_ms);
			PUT_COUNTERS(&s->c);
			values[i++] = BoolGetDatum(s->wal_skipped);
			PUT_SCANS(&s->c, wl_full_scans(&s->c) * s->nbuffers);
			values[i++] = CStringGetTextDatum(visible ? s->query : "<insufficient privilege>");
			PUT_WAL_IO(&s->c);
			PUT_COL(s->tag != CMDTAG_VACUUM, Int32GetDatum(s->vacuum_ring_kb));
			PUT_COL(s->tag != CMDTAG_VACUUM, Int64GetDatum(s->vacuum_pages));
			PUT_COL(s->tag != CMDTAG_VACUUM, Int64GetDatum(s->vacuum_pages_removed));
			if (with_fpi)
				PUT_FPI_BYTES(&s->c);
			Assert(i == rsinfo->setDesc->natts);
			ExecStoreVirtualTuple(row);
			tuplesort_puttupleslot(sort, row);
			MemoryContextSwitchTo(old);
			MemoryContextReset(rowcxt);
		}
		CHECK_FOR_INTERRUPTS();
	}
	pfree(recs);
	MemoryContextDelete(rowcxt);

	tuplesort_performsort(sort);
	while (tuplesort_gettupleslot(sort, true, false, sorted, NULL))
		tuplestore_puttupleslot(rsinfo->setResult, sorted);
	tuplesort_end(sort);
	ExecDropSingleTupleTableSlot(row);
	ExecDropSingleTupleTableSlot(sorted);
	return (Datum) 0;
}

Datum
walload_stats(PG_FUNCTION_ARGS)
{
	static const int cols[] = {33, 34, 35};
	SRF_ROWS("walload_stats");
	WlStatsEntryCopy *recs;
	int			n = wl_store_copy_stats(&recs);

	for (int r = 0; r < n; r++)
	{
		WlStatsEntryCopy *e = &recs[r];
		bool		visible = wl_can_see_text(e->key.userid);

		values[i++] = ObjectIdGetDatum(e->key.userid);
		values[i++] = ObjectIdGetDatum(e->key.dbid);
		PUT_COL(!visible, Int64GetDatum((int64) e->key.queryid));
		values[i++] = BoolGetDatum(e->key.toplevel);
		values[i++] = CStringGetTextDatum(GetCommandTagName(e->key.tag));
		values[i++] = Int64GetDatum(e->calls);
		values[i++] = Int64GetDatum(e->errors);
		values[i++] = Float8GetDatum(e->total_ms);
		values[i++] = Float8GetDatum(e->min_ms);
		values[i++] = Float8GetDatum(e->max_ms);
		values[i++] = Float8GetDatum(e->mean_ms);
		values[i++] = Float8GetDatum(e->calls > 1 ? sqrt(e->sum_var_ms / e->calls) : 0.0);
		PUT_COUNTERS(&e->c);
		values[i++] = Int64GetDatum(e->wal_skipped_calls);
		PUT_SCANS(&e->c, e->scanned_buffers);
		values[i++] = CStringGetTextDatum(visible ? e->query : "<insufficient privilege>");
		PUT_WAL_IO(&e->c);
		PUT_FPI_BYTES(&e->c);
		values[i++] = Float8GetDatum(e->commit_ms);
		PUT_ROW();
	}
	return (Datum) 0;
}

/* walload_info: one row, its columns by kind (store.h), NULL where there is no figure */
#define WL_INFO_COLS_1_10	35
#define INFO_ts(v)				PUT_COL(false, TimestampTzGetDatum(v))
#define INFO_int32(v)			PUT_COL(false, Int32GetDatum(v))
#define INFO_int64(v)			PUT_COL(false, Int64GetDatum((int64) (v)))
#define INFO_float8(v)			PUT_COL(false, Float8GetDatum(v))
#define INFO_calibrated_at(v)	PUT_COL((v) == 0, TimestampTzGetDatum(v))
#define INFO_calibration(v)		PUT_COL(false, CStringGetTextDatum(wl_calibration_name(v)))
#define INFO_calibration_ms(v)	PUT_COL((v) < 0, Float8GetDatum(v))
#define INFO_calibration_io(v)	PUT_COL(info.calibration_ms < 0, Int64GetDatum(v))
#define INFO_auto_aside(v) \
	PUT_COL(info.auto_aside_commits <= 0, \
			 CStringGetTextDatum(psprintf("walload.commit_strategy = auto stood aside: a backend's last " \
										  "auto commits took %.0f times their predicted time (median); " \
										  "it acts like off there until walload.unit_costs changes " \
										  "or the session ends", v)))

#ifndef WALLOAD_VERSION
#error "WALLOAD_VERSION is not defined: the Makefile passes META.json's version"
#endif

static Datum
info_row(FunctionCallInfo fcinfo, int ncols)
{
	TupleDesc	tupdesc;
	WlInfo		info;
	Datum		values[WL_INFO_COLS_1_10];
	bool		nulls[WL_INFO_COLS_1_10];
	int			i = 0;

	wl_store_require();
	if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "return type must be a row type");
	if (tupdesc->natts != ncols)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("walload_info() returns %d columns, the installed library expected %d",
						tupdesc->natts, ncols),
				 errhint("Run ALTER EXTENSION walload UPDATE.")));

	wl_store_info(&info);
#define EMIT_INFO(kind, type, name, dims, source) \
	for (int k = 0; k < (int) (sizeof(info.name) / sizeof(type)); k++) \
		INFO_##kind(((type *) &info.name)[k]);
	WL_INFO_FIELDS(EMIT_INFO)
	PUT_COL(false, CStringGetTextDatum(WALLOAD_VERSION));
	Assert(i == lengthof(values));
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(tupdesc, values, nulls)));
}

/* walload_info of each extension version */
#define INFO_FN(fn, ncols) \
	PG_FUNCTION_INFO_V1(fn); \
	Datum fn(PG_FUNCTION_ARGS) { return info_row(fcinfo, ncols); }
INFO_FN(walload_info, 17)
INFO_FN(walload_info_1_1, 19)
INFO_FN(walload_info_1_4, 25)
INFO_FN(walload_info_1_5, 28)
INFO_FN(walload_info_1_7, 30)
INFO_FN(walload_info_1_8, 32)
INFO_FN(walload_info_1_10, WL_INFO_COLS_1_10)

/* walload_build_info (1.10): the library's version; needs no shared memory */
Datum
walload_library_version(PG_FUNCTION_ARGS)
{
	PG_RETURN_TEXT_P(cstring_to_text(WALLOAD_VERSION));
}

/* walload_command_totals (1.10), to everyone; a dropped database or role shows its oid */
Datum
walload_command_totals(PG_FUNCTION_ARGS)
{
	static const int cols[] = {10};
	SRF_ROWS("walload_command_totals");
	WlCommandTotals *t;
	TimestampTz reset;
	int			n = wl_metrics_copy_commands(&t, &reset);

	for (int r = 0; r < n; r++)
	{
		char	   *db = OidIsValid(t[r].dbid) ? get_database_name(t[r].dbid) : NULL;
		char	   *role = OidIsValid(t[r].userid) ? GetUserNameFromId(t[r].userid, true) : NULL;

		values[i++] = DirectFunctionCall1(namein, CStringGetDatum(db ? db : psprintf("%u", t[r].dbid)));
		values[i++] = DirectFunctionCall1(namein, CStringGetDatum(role ? role : psprintf("%u", t[r].userid)));
		values[i++] = CStringGetTextDatum(t[r].tag == CMDTAG_UNKNOWN ? "other" :
										  GetCommandTagName(t[r].tag));
		values[i++] = Int64GetDatum(t[r].calls);
		values[i++] = Float8GetDatum(t[r].total_ms / 1000.0);
		values[i++] = Float8GetDatum(t[r].commit_ms / 1000.0);
		values[i++] = Int64GetDatum(t[r].rows);
		values[i++] = Int64GetDatum(t[r].walks);
		values[i++] = uint64_numeric(t[r].wal_bytes);
		values[i++] = TimestampTzGetDatum(reset);
		PUT_ROW();
	}
	return (Datum) 0;
}

/* walload_histograms (1.10): cumulative buckets, as Prometheus' le */
Datum
walload_histograms(PG_FUNCTION_ARGS)
{
	static const int cols[] = {6};
	static const char *const names[WL_NUM_HIST] = {"commit_seconds", "walk_seconds"};
	SRF_ROWS("walload_histograms");
	WlHistogram h[WL_NUM_HIST];
	TimestampTz reset;

	wl_metrics_copy_histograms(h, &reset);
	for (int m = 0; m < WL_NUM_HIST; m++)
	{
		int64		cumulative = 0;

		for (int b = 0; b < WL_HIST_BUCKETS; b++)
		{
			cumulative += h[m].count[b];
			values[i++] = CStringGetTextDatum(names[m]);
			values[i++] = Float8GetDatum(wl_metrics_bound(b));
			values[i++] = Int64GetDatum(cumulative);
			values[i++] = Float8GetDatum(h[m].sum_s);
			values[i++] = Float8GetDatum(h[m].max_s);
			values[i++] = TimestampTzGetDatum(reset);
			PUT_ROW();
		}
	}
	return (Datum) 0;
}

Datum
walload_reset(PG_FUNCTION_ARGS)
{
	wl_store_reset();
	PG_RETURN_VOID();
}

/* a calibration takes seconds, more with many passes at a large pool */
#define WL_CALIBRATE_WAIT_S		600

/* walload_calibrate(passes): asks the worker (calibrate.c), and waits */
Datum
walload_calibrate(PG_FUNCTION_ARGS)
{
	int32		passes;
	int			passes_run = 0;
	TupleDesc	tupdesc;
	Datum		values[4];
	bool		nulls[4] = {false, false, false, false};
	WlScanCost	cost;
	uint64		request;

	wl_store_require();
	if (PG_ARGISNULL(0))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("passes must not be null")));
	passes = PG_GETARG_INT32(0);
	if (passes < 1 || passes > 1000)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("passes must be between 1 and 1000, not %d", passes)));
	if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "return type must be a row type");

	if (!wl_calibration_on)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("walload's calibration is off"),
				 errhint("Set walload.calibration = on and restart the server.")));
	request = wl_store_request_calibration(passes);
	if (request == 0)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("walload's calibration worker is not running"),
				 errhint("The postmaster starts it again some seconds after it ended; "
						 "the server log says why it ended.")));
	if (!wl_store_wait_calibration(request, WL_CALIBRATE_WAIT_S, &passes_run))
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("walload's calibration did not complete"),
				 errdetail("The calibration worker ended, or could not time everything, before it finished."),
				 errhint("The server log says why; walload_info.calibration shows the state.")));

	wl_store_get_scan_cost(&cost);
	values[0] = Int32GetDatum(passes_run);
	values[1] = Int32GetDatum(NBuffers);
	values[2] = Float8GetDatum(cost.single_ns * NBuffers / 1e6);
	values[3] = Float8GetDatum(cost.single_ns);
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(tupdesc, values, nulls)));
}

/* walload_activity: the running loads, with what COMMIT would do now */
Datum
walload_activity(PG_FUNCTION_ARGS)
{
	static const int cols[] = {36, 37};	/* 1.3 to 1.6; 1.7 */
	TimestampTz now = GetCurrentTimestamp();
	SRF_ROWS("walload_activity");
	WlActivity *acts;
	int			n = wl_store_copy_activity(&acts);

	for (int r = 0; r < n; r++)
	{
		WlActivity *a = &acts[r];
		bool		predicted = a->predicted_at != 0;

		PUT_WHO(a);
		if (!wl_can_see_backend(a->userid))
		{
			/* the row stays, as in pg_stat_activity: who and where, no more */
			while (i < ROW_COLS)
				nulls[i++] = true;
			PUT_ROW();
			continue;
		}
		values[i++] = TimestampTzGetDatum(a->xact_start);
		values[i++] = TimestampTzGetDatum(a->state_change);
		values[i++] = Int32GetDatum(a->statements);
		PUT_COL(a->current_command == CMDTAG_UNKNOWN,
				CStringGetTextDatum(GetCommandTagName(a->current_command)));
		PUT_COL(a->current_command == CMDTAG_UNKNOWN, TimestampTzGetDatum(a->current_stmt_start));
		values[i++] = Float8GetDatum(Max(now - a->xact_start, 0) / 1000.0);
		for (int k = 0; k < WL_NUM_TIME_KINDS; k++)
			values[i++] = Float8GetDatum(a->kind_ms[k]);
		values[i++] = Int64GetDatum(a->rows);
		values[i++] = uint64_numeric(a->wal_bytes);
		values[i++] = Int64GetDatum(wl_sum_scans(a->scans));
		values[i++] = Float8GetDatum(a->scan_est_ns / 1e6);
		PUT_COL(!predicted, TimestampTzGetDatum(a->predicted_at));
		PUT_COL(!predicted, Int32GetDatum(a->pred.wal_skipped_rels));
		PUT_COL(!predicted, Int32GetDatum((a->pred.sync_scan ? 1 : 0) + (a->pred.drop_scan ? 1 : 0)));
		PUT_COL(!predicted, Int32GetDatum(a->pred.synced_rels));
		PUT_COL(!predicted, Int64GetDatum(a->pred.synced_blocks));
		PUT_COL(!predicted, Int32GetDatum(a->pred.wal_logged_rels));
		PUT_COL(!predicted, Int64GetDatum(a->pred.wal_logged_blocks));
		PUT_COL(!predicted, Int32GetDatum(a->pred.dropped_rels));
		PUT_COL(!predicted, Float8GetDatum(a->pred_scan_ms));
		PUT_COL(!predicted, Float8GetDatum(a->pred_commit_ms));
		PUT_COL(!predicted, Int32GetDatum(a->pred_abort_scans));
		PUT_COL(!predicted, Int32GetDatum(a->pred_abort_rels));
		values[i++] = Int32GetDatum(a->nbuffers);
		values[i++] = Int32GetDatum(a->wal_skip_threshold_kb);
		/* recorded statements ended since the prediction: 0, it is current */
		PUT_COL(!predicted, Int32GetDatum(a->statements - a->pred_statements));
		PUT_ROW();
	}
	return (Datum) 0;
}

/* walload_xact_backend_types (1.10): as pg_stat_activity.backend_type names it */
const char *
wl_backend_kind_name(int kind)
{
	static const char *const names[] = {
		WL_BKTYPE_CLIENT, WL_BKTYPE_APPLY, WL_BKTYPE_TABLESYNC, WL_BKTYPE_AUTOVACUUM
	};

	return kind > 0 && kind < lengthof(names) ? names[kind] : WL_BKTYPE_CLIENT;
}

Datum
walload_xact_backend_types(PG_FUNCTION_ARGS)
{
	static const int cols[] = {3};
	SRF_ROWS("walload_xact_backend_types");
	WlXactRecord *recs;
	int			n = wl_store_copy_xacts(&recs);

	for (int r = 0; r < n; r++)
	{
		values[i++] = Int64GetDatum((int64) recs[r].xact_id);
		values[i++] = Int32GetDatum(recs[r].pid);
		values[i++] = CStringGetTextDatum(wl_backend_kind_name(recs[r].backend_kind));
		PUT_ROW();
	}
	return (Datum) 0;
}
