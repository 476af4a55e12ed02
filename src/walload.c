/*-------------------------------------------------------------------------
 *
 * walload.c
 *		Module start-up: the settings, shared memory, the calibration
 *		worker, and walload's hooks into core.
 *
 * walload must be loaded with shared_preload_libraries: its shared memory
 * is sized at server start.  Loaded any other way, it installs nothing and
 * its SQL functions report an error with a hint.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "fmgr.h"
#include "miscadmin.h"
#include "storage/ipc.h"

#include "hooks.h"
#include "persist.h"
#include "calibrate.h"
#include "model.h"
#include "settings.h"
#include "store.h"

PG_MODULE_MAGIC;

static shmem_request_hook_type prev_shmem_request_hook = NULL;
static shmem_startup_hook_type prev_shmem_startup_hook = NULL;

void		_PG_init(void);

static void
walload_shmem_request(void)
{
	if (prev_shmem_request_hook)
		prev_shmem_request_hook();
	wl_store_shmem_request();
}

static void
walload_shmem_startup(void)
{
	if (prev_shmem_startup_hook)
		prev_shmem_startup_hook();
	wl_persist_startup(wl_store_shmem_startup());
}

void
_PG_init(void)
{
	/*
	 * Shared memory and hooks only make sense when loaded at server start.
	 * Otherwise stay inert; the SQL functions will say what to do.
	 */
	if (!process_shared_preload_libraries_in_progress)
		return;

	wl_settings_define();

	/*
	 * Times the scans and the storage in a process of its own, after every
	 * start and crash-restart: nothing in the postmaster.
	 */
	if (wl_calibration_on)
		wl_calibration_register_worker();

	/*
	 * No EnableQueryId(): that would make core compute a query id for every
	 * statement.  walload computes them only for the statements it may
	 * record (hooks.c, post_parse_analyze).
	 */

	prev_shmem_request_hook = shmem_request_hook;
	shmem_request_hook = walload_shmem_request;
	prev_shmem_startup_hook = shmem_startup_hook;
	shmem_startup_hook = walload_shmem_startup;

	wl_install_hooks();
	wl_model_register();
}
