/*-------------------------------------------------------------------------
 *
 * sizing.h
 *		Relation files' sizes and the buffers shared buffers hold of them
 *		(sizing.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef WALLOAD_SIZING_H
#define WALLOAD_SIZING_H

#include "types.h"

#include "catalog/pg_class.h"
#include "storage/block.h"

/* a file's sizes over its forks (doubles: summed and scaled over files) */
typedef struct WlFileSizes
{
	WlRelFile	file;			/* hash key where kept in a map */
	double		blocks;
	double		forks;
	double		stored_forks;	/* forks with blocks the file system stored */
	double		stored_blocks;
	double		buffers;		/* of its blocks, in shared buffers */
} WlFileSizes;

/* the headers a count of buffers (a database's, deleted files') samples first */
#define WL_BUFFER_COUNT_SAMPLE_HEADERS	(1024 * 16)

/* which blocks of a main fork were cached before a VACUUM (WL_TAIL_SAMPLE <= 64 looked up) */
#define WL_TAIL_SAMPLE	48
typedef struct WlTailSample
{
	BlockNumber nblocks;		/* the fork's size when sampled */
	uint64		cached;			/* bit i: sampled block i was in shared buffers */
} WlTailSample;

extern int	wl_relfile_cmp(const void *a, const void *b);
extern bool wl_sizing_class_file(Oid relid, Form_pg_class cls, WlRelFile *file);
extern bool wl_sizing_rel_file(Oid relid, WlRelFile *file, char *relkind,
							   char *relpersistence, BlockNumber *relpages);
#define wl_model_relation_file(relid, file, relkind, relpersistence) \
	wl_sizing_rel_file(relid, file, relkind, relpersistence, NULL)
extern uint64 wl_sizing_total_blocks(WlRelFile file);
extern BlockNumber wl_model_main_fork_blocks(WlRelFile file);
extern bool wl_sizing_file(WlRelFile file, WlFileSizes *one);
extern void wl_sizing_add_fork(WlFileSizes *one, ForkNumber fork, BlockNumber nblocks,
							   int64 stored);
extern void wl_model_sample_tail(WlRelFile file, BlockNumber nblocks, WlTailSample *sample);
extern int64 wl_model_tail_buffers(const WlTailSample *sample, BlockNumber from);
extern int64 wl_sizing_owned_buffers(Oid dboid, WlRelFile *files, int n, int64 *pages_mapped);

#endif							/* WALLOAD_SIZING_H */
