/*-------------------------------------------------------------------------
 *
 * settings.c
 *		The walload.* settings: their variables, defaults, ranges and who
 *		may change them.  Defined once, in the postmaster, at module start.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "settings.h"

#include "utils/guc.h"

int			wl_track = WL_TRACK_TOP;
bool		wl_track_utility = true;
bool		wl_track_dml = true;
int			wl_max_stats = 5000;
int			wl_max_xacts = 1000;
int			wl_max_minutes = 5000;
int			wl_max_statements = 5000;
bool		wl_save = true;
bool		wl_compute_query_id = true;
double		wl_warn_scan_ms = -1;
int			wl_commit_strategy = WL_STRATEGY_OFF;
bool		wl_calibration_on = true;

static const struct config_enum_entry track_options[] = {
	{"none", WL_TRACK_NONE, false},
	{"top", WL_TRACK_TOP, false},
	{"all", WL_TRACK_ALL, false},
	{NULL, 0, false}
};

static const struct config_enum_entry commit_strategy_options[] = {
	{"off", WL_STRATEGY_OFF, false},
	{"auto", WL_STRATEGY_AUTO, false},
	{"wal", WL_STRATEGY_WAL, false},
	{"sync", WL_STRATEGY_SYNC, false},
	{NULL, 0, false}
};

void
wl_settings_define(void)
{
	DefineCustomEnumVariable("walload.track",
							 "Selects which statements walload records.",
							 "top: statements sent by clients; all: also statements "
							 "nested in functions and DO blocks; none: nothing.",
							 &wl_track,
							 WL_TRACK_TOP,
							 track_options,
							 PGC_SUSET,
							 0,
							 NULL, NULL, NULL);

	DefineCustomBoolVariable("walload.track_utility",
							 "Records utility commands (CREATE, COPY, VACUUM, DROP, ...).",
							 NULL,
							 &wl_track_utility,
							 true,
							 PGC_SUSET,
							 0,
							 NULL, NULL, NULL);

	DefineCustomBoolVariable("walload.track_dml",
							 "Records INSERT, UPDATE, DELETE, MERGE and data-modifying SELECT.",
							 NULL,
							 &wl_track_dml,
							 true,
							 PGC_SUSET,
							 0,
							 NULL, NULL, NULL);

	DefineCustomIntVariable("walload.max_stats",
							"Number of (user, database, query, command) aggregates kept.",
							"When full, the least recently used 10% are evicted.",
							&wl_max_stats,
							5000,
							100,
							1000000,
							PGC_POSTMASTER,
							0,
							NULL, NULL, NULL);

	DefineCustomIntVariable("walload.max_xacts",
							"Number of recent transactions kept in walload_xacts.",
							"A ring: the oldest transaction is overwritten first.",
							&wl_max_xacts,
							1000,
							10,
							1000000,
							PGC_POSTMASTER,
							0,
							NULL, NULL, NULL);

	DefineCustomIntVariable("walload.max_minutes",
							"Number of per-session, per-minute sums of transactions kept in walload_minutes.",
							"A ring: the sum begun longest ago is overwritten first.",
							&wl_max_minutes,
							5000,
							100,
							1000000,
							PGC_POSTMASTER,
							0,
							NULL, NULL, NULL);

	DefineCustomIntVariable("walload.max_statements",
							"Number of recent statements kept in walload_statements.",
							"A ring: the oldest statement is overwritten first.",
							&wl_max_statements,
							5000,
							100,
							10000000,
							PGC_POSTMASTER,
							0,
							NULL, NULL, NULL);

	DefineCustomBoolVariable("walload.save",
							 "Saves walload_stats across server shutdowns.",
							 NULL,
							 &wl_save,
							 true,
							 PGC_SIGHUP,
							 0,
							 NULL, NULL, NULL);

	DefineCustomRealVariable("walload.warn_scan_ms",
							 "Warns at commit when the transaction's full shared-buffer "
							 "scans are estimated to have cost more than this many milliseconds.",
							 "-1 disables the warning.",
							 &wl_warn_scan_ms,
							 -1,
							 -1,
							 1e9,
							 PGC_USERSET,
							 GUC_UNIT_MS,
							 NULL, NULL, NULL);

	DefineCustomBoolVariable("walload.compute_query_id",
							 "Computes core's query id for the statements walload records, when core does not.",
							 "Core computes them for every statement when compute_query_id = on, or "
							 "auto with pg_stat_statements loaded; with compute_query_id = off there are none.",
							 &wl_compute_query_id,
							 true,
							 PGC_SUSET,
							 0,
							 NULL, NULL, NULL);

	/*
	 * Like wal_skip_threshold, which it sets for one commit, it changes how
	 * a commit's files reach the disk, never whether they do: any user may
	 * set it.
	 */
	DefineCustomEnumVariable("walload.commit_strategy",
							 "Chooses per commit which new files are fsynced and which are WAL-logged (wal_level=minimal).",
							 "off: core decides by wal_skip_threshold; auto: the cheaper by walload's "
							 "predicted cost; wal: WAL-log them; sync: fsync them.",
							 &wl_commit_strategy,
							 WL_STRATEGY_OFF,
							 commit_strategy_options,
							 PGC_USERSET,
							 0,
							 NULL, NULL, NULL);

	/*
	 * The calibration walks shared_buffers and writes some MB under the data
	 * directory for several seconds after every start: a server that wants
	 * none of it (and a test that wants no figures) turns it off, and goes
	 * without estimates.
	 */
	DefineCustomBoolVariable("walload.calibration",
							 "Times the buffer pool's walks and the storage in a background worker after every start.",
							 "off: no worker, no estimates, and walload.commit_strategy = auto stands aside.",
							 &wl_calibration_on,
							 true,
							 PGC_POSTMASTER,
							 0,
							 NULL, NULL, NULL);

	MarkGUCPrefixReserved("walload");
}
