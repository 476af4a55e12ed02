/*-------------------------------------------------------------------------
 *
 * settings.c
 *		The walload.* settings: their variables, defaults, ranges and who
 *		may change them.  Defined once, in the postmaster, at module start.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <ctype.h>
#include <math.h>
#include <unistd.h>

#include "settings.h"
#include "types.h"
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

/* the figures walload.unit_costs may name, where they go in WlScanCost */
typedef struct UnitCostName
{
	const char *name;
	size_t		offset;
	double		min;
	double		max;
} UnitCostName;

/* at most about a day, in ns: beyond it no commit is priced meaningfully */
#define WL_UNIT_COST_MAX_NS		1e14

#define WL_UC(name, field) {name, offsetof(WlScanCost, field), 0, WL_UNIT_COST_MAX_NS}
/* a many-file walk's, at each of WL_COST_GRID_FILES */
#define WL_UC_GRID(walk) \
	WL_UC(#walk "_walk_ns_per_buffer_1", walk##_ns[0]), WL_UC(#walk "_walk_ns_per_buffer_8", walk##_ns[1]), \
	WL_UC(#walk "_walk_ns_per_buffer_20", walk##_ns[2]), WL_UC(#walk "_walk_ns_per_buffer_21", walk##_ns[3]), \
	WL_UC(#walk "_walk_ns_per_buffer_1024", walk##_ns[4])

static const UnitCostName unit_cost_names[] = {
	WL_UC("walk_ns_per_buffer", single_ns),
	WL_UC_GRID(flush),
	WL_UC_GRID(drop),
	WL_UC("fault_ns_per_page", fault_ns_per_page),
	WL_UC("invalidate_ns_per_buffer", invalidate_ns_per_buffer),
	WL_UC("write_ns_per_block", io.write_ns_per_block),
	WL_UC("fsync_ns_per_block", io.fsync_ns_per_block),
	WL_UC("fsync_ns_per_file", io.fsync_ns_per_file),
	WL_UC("wal_flush_ns", io.wal_flush_ns),
	WL_UC("delete_ns_per_file", io.delete_ns_per_file),
	WL_UC("delete_ns_per_block", io.delete_ns_per_block),
	WL_UC("delete_cached_ns_per_file", io.delete_cached_ns_per_file),
	WL_UC("delete_cached_ns_per_block", io.delete_cached_ns_per_block),
	WL_UC("open_ns", io.open_ns),
	WL_UC("open_missing_ns", io.open_missing_ns),
	WL_UC("fpi_ns_per_block", io.fpi_ns_per_block),
	WL_UC("wal_fault_ns_per_page", io.wal_fault_ns_per_page),
	WL_UC("record_space_ns", io.record_space_ns),
	{"file_commit_ns", offsetof(WlScanCost, io.file_commit_ns), 0, WL_FILE_COMMIT_MAX_NS},
	/* a ratio, not a cost: "others" leaves it (its min is not 0) */
	{"fsync_time_ratio", offsetof(WlScanCost, io.fsync_time_ratio), 1.0 / WL_LEARNED_BOUND, WL_LEARNED_BOUND},
	{"others", 0, 0, WL_UNIT_COST_MAX_NS},
};

/* the last name is no figure: "others" sets every cost not named */
#define WL_UC_OTHERS	((int) lengthof(unit_cost_names) - 1)

/* walload.unit_costs as set, and its check hook's result (NULL if empty) */
typedef struct WlUnitCosts
{
	bool		set[lengthof(unit_cost_names)];
	double		value[lengthof(unit_cost_names)];
} WlUnitCosts;

static char *wl_unit_costs_string = NULL;
static const WlUnitCosts *unit_costs = NULL;
static uint64 unit_costs_generation = 0;

#define BAD_ITEM(...) do { GUC_check_errdetail(__VA_ARGS__); goto bad; } while (0)

/*
 * Parse walload.unit_costs: name=value, comma-separated, each name once;
 * "others=value" for every unit cost not named (not fsync_time_ratio).  Any
 * error rejects the whole setting, naming the wrong item.
 */
static bool
check_unit_costs(char **newval, void **extra, GucSource source)
{
	WlUnitCosts uc = {0};
	char	   *copy;
	char	   *next;
	WlUnitCosts *result;

	*extra = NULL;
	if (*newval == NULL || (*newval)[strspn(*newval, " \t\n\r")] == '\0')
		return true;
	copy = pstrdup(*newval);
	for (char *item = copy; item != NULL; item = next)
	{
		char	   *name = item;
		char	   *value;
		char	   *end;
		double		v;
		int			i;

		next = strchr(item, ',');
		if (next != NULL)
			*next++ = '\0';
		value = strchr(item, '=');
		if (item[strspn(item, " \t\n\r")] == '\0')
			BAD_ITEM("An item of the list is empty.");
		if (value == NULL)
			BAD_ITEM("Item \"%s\" is not of the form name=value.", item);
		*value++ = '\0';
		while (isspace((unsigned char) *name))
			name++;
		for (end = name + strlen(name); end > name && isspace((unsigned char) end[-1]); end--)
			end[-1] = '\0';
		errno = 0;
		v = strtod(value, &end);
		while (isspace((unsigned char) *end))
			end++;
		if (end == value || *end != '\0' || errno != 0 || isnan(v) || isinf(v))
			BAD_ITEM("The value of \"%s\" is not a number: \"%s\".", name, value);
		for (i = 0; i <= WL_UC_OTHERS; i++)
			if (strcmp(unit_cost_names[i].name, name) == 0)
				break;
		if (i > WL_UC_OTHERS)
		{
			GUC_check_errhint("The unit costs are listed in walload's docs/reference.md, with the setting.");
			BAD_ITEM("\"%s\" is not one of walload's unit costs.", name);
		}
		if (uc.set[i])
			BAD_ITEM("\"%s\" is given more than once.", name);
		if (v < unit_cost_names[i].min || v > unit_cost_names[i].max)
			BAD_ITEM("\"%s\" must be between %g and %g.", name,
					 unit_cost_names[i].min, unit_cost_names[i].max);
		uc.set[i] = true;
		uc.value[i] = v;
	}
	pfree(copy);
	for (int j = 0; j < WL_UC_OTHERS; j++)
		if (!uc.set[j] && uc.set[WL_UC_OTHERS] && unit_cost_names[j].min == 0)
		{
			uc.set[j] = true;
			uc.value[j] = Min(uc.value[WL_UC_OTHERS], unit_cost_names[j].max);
		}
	/* GUC "extra", which the GUC machinery frees (compat.h) */
	result = (WlUnitCosts *) WlGucMalloc(sizeof(WlUnitCosts));
	if (result == NULL)
	{
		GUC_check_errcode(ERRCODE_OUT_OF_MEMORY);
		GUC_check_errmsg("out of memory");
		return false;
	}
	*result = uc;
	*extra = result;
	return true;

bad:
	pfree(copy);
	return false;
}

static void
assign_unit_costs(const char *newval, void *extra)
{
	unit_costs = (const WlUnitCosts *) extra;
	unit_costs_generation++;
}

/* changes of walload.unit_costs here: a reader keeping figures re-reads */
uint64
wl_unit_costs_generation(void)
{
	return unit_costs_generation;
}

/*
 * The figures walload.unit_costs names replace the calibration's (or the
 * learned) in cost; the others stay.  A walk's, many-file walk's or storage
 * figure makes that part priced.  Nothing where the setting is empty.
 */
void
wl_unit_costs_apply(WlScanCost *cost)
{
	if (unit_costs == NULL)
		return;
	for (int i = 0; i < WL_UC_OTHERS; i++)
	{
		if (!unit_costs->set[i])
			continue;
		*(double *) ((char *) cost + unit_cost_names[i].offset) = unit_costs->value[i];
		if (unit_cost_names[i].offset >= offsetof(WlScanCost, io))
		{
			cost->io.valid = true;
			if (cost->io.page_bytes <= 0)
				cost->io.page_bytes = (double) sysconf(_SC_PAGESIZE);
		}
		else if (unit_cost_names[i].offset >= offsetof(WlScanCost, flush_ns) &&
				 unit_cost_names[i].offset < offsetof(WlScanCost, multi_valid))
			cost->multi_valid = true;
	}
}

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
							 &wl_track, WL_TRACK_TOP, track_options, PGC_SUSET, 0, NULL, NULL, NULL);
	DefineCustomBoolVariable("walload.track_utility",
							 "Records utility commands (CREATE, COPY, VACUUM, DROP, ...).",
							 NULL, &wl_track_utility, true, PGC_SUSET, 0, NULL, NULL, NULL);
	DefineCustomBoolVariable("walload.track_dml",
							 "Records INSERT, UPDATE, DELETE, MERGE and data-modifying SELECT.",
							 NULL, &wl_track_dml, true, PGC_SUSET, 0, NULL, NULL, NULL);
	DefineCustomIntVariable("walload.max_stats",
							"Number of (user, database, query, command) aggregates kept.",
							"When full, the least recently used 10% are evicted.",
							&wl_max_stats, 5000, 100, 1000000, PGC_POSTMASTER, 0, NULL, NULL, NULL);
	DefineCustomIntVariable("walload.max_xacts",
							"Number of recent transactions kept in walload_xacts.",
							"A ring: the oldest transaction is overwritten first.",
							&wl_max_xacts, 1000, 10, 1000000, PGC_POSTMASTER, 0, NULL, NULL, NULL);
	DefineCustomIntVariable("walload.max_minutes",
							"Number of per-session, per-minute sums of transactions kept in walload_minutes.",
							"A ring: the sum begun longest ago is overwritten first.",
							&wl_max_minutes, 5000, 100, 1000000, PGC_POSTMASTER, 0, NULL, NULL, NULL);
	DefineCustomIntVariable("walload.max_statements",
							"Number of recent statements kept in walload_statements.",
							"A ring: the oldest statement is overwritten first.",
							&wl_max_statements, 5000, 100, 10000000, PGC_POSTMASTER, 0, NULL, NULL, NULL);
	DefineCustomBoolVariable("walload.save",
							 "Saves walload_stats across server shutdowns.",
							 NULL, &wl_save, true, PGC_SIGHUP, 0, NULL, NULL, NULL);
	DefineCustomRealVariable("walload.warn_scan_ms",
							 "Warns at commit when the transaction's full shared-buffer "
							 "scans are estimated to have cost more than this many milliseconds.",
							 "-1 disables the warning.",
							 &wl_warn_scan_ms, -1, -1, 1e9, PGC_USERSET, GUC_UNIT_MS, NULL, NULL, NULL);
	DefineCustomBoolVariable("walload.compute_query_id",
							 "Computes core's query id for the statements walload records, when core does not.",
							 "Core computes them for every statement when compute_query_id = on, or "
							 "auto with pg_stat_statements loaded; with compute_query_id = off there are none.",
							 &wl_compute_query_id, true, PGC_SUSET, 0, NULL, NULL, NULL);
	/* like wal_skip_threshold: how files reach the disk, never whether */
	DefineCustomEnumVariable("walload.commit_strategy",
							 "Chooses per commit which new files are fsynced and which are WAL-logged (wal_level=minimal).",
							 "off: core decides by wal_skip_threshold; auto: the cheaper by walload's "
							 "predicted cost; wal: WAL-log them; sync: fsync them.",
							 &wl_commit_strategy, WL_STRATEGY_OFF, commit_strategy_options,
							 PGC_USERSET, 0, NULL, NULL, NULL);
	/* the calibration walks shared buffers and writes some MB per start */
	DefineCustomBoolVariable("walload.calibration",
							 "Times the buffer pool's walks and the storage in a background worker after every start.",
							 "off: no worker, no estimates, and walload.commit_strategy = auto stands aside.",
							 &wl_calibration_on, true, PGC_POSTMASTER, 0, NULL, NULL, NULL);
	/* superuser only: the estimates and what commits teach follow it */
	DefineCustomStringVariable("walload.unit_costs",
							   "Per-unit costs that replace the calibration's figures in walload's estimates, for tests and what-if checks.",
							   "A comma-separated list of name=value (ns; fsync_time_ratio a ratio); "
							   "others=value sets every unit cost not named. Empty: the calibration's figures.",
							   &wl_unit_costs_string, "", PGC_SUSET, GUC_NOT_IN_SAMPLE,
							   check_unit_costs, assign_unit_costs, NULL);
	MarkGUCPrefixReserved("walload");
}
