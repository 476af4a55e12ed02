/*-------------------------------------------------------------------------
 *
 * views.h
 *		What views.c lends diagnose.c: value names, the column-count check,
 *		who may see what.
 *
 *-------------------------------------------------------------------------
 */
#ifndef WALLOAD_VIEWS_H
#define WALLOAD_VIEWS_H

#include "types.h"

#include "nodes/execnodes.h"

extern const char *wl_sync_commit_name(int value);
extern int	wl_check_columns(ReturnSetInfo *rsinfo, const int *counts, int ncounts,
							 const char *fn);
extern bool wl_can_see_text(Oid userid);
extern bool wl_can_see_backend(Oid userid);
extern const char *wl_backend_kind_name(int kind);

#endif							/* WALLOAD_VIEWS_H */
