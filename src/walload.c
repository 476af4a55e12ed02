/*-------------------------------------------------------------------------
 *
 * walload.c
 *		Module start-up.  Only from shared_preload_libraries (shared memory
 *		is sized at start); else it installs nothing and its SQL functions
 *		report an error with a hint.
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
	if (!process_shared_preload_libraries_in_progress)
		return;
	wl_settings_define();
	/* after every start and crash-restart, in a process of its own */
	if (wl_calibration_on)
		wl_calibration_register_worker();
	/* no EnableQueryId(): hooks.c computes ids only for what it may record */
	prev_shmem_request_hook = shmem_request_hook;
	shmem_request_hook = walload_shmem_request;
	prev_shmem_startup_hook = shmem_startup_hook;
	shmem_startup_hook = walload_shmem_startup;
	wl_install_hooks();
	wl_model_register();
}
