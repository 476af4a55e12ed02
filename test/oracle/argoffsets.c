/*
 * argoffsets.c: where the uprobe oracle finds, in a scanning function's
 * argument, whether core takes its local-buffer path.
 *
 * Built by test/oracle/run.sh against the server headers of the version
 * under test (pg_config --includedir-server) and run once; it prints
 * KEY=VALUE lines.  The offsets differ between versions (relpersistence
 * moved with pg_class's columns in 18), so they are never written down.
 *
 * FlushRelationBuffers(rel) takes its local path when
 * RelationUsesLocalBuffers(rel), that is rel->rd_rel->relpersistence ==
 * RELPERSISTENCE_TEMP; DropRel{FileNode,ation}Buffers and
 * DropRel{FileNode,ation}sAllBuffers leave a relation to localbuf.c when its
 * SMgrRelation's backend is not InvalidBackendId / INVALID_PROC_NUMBER (-1).
 */
#include "postgres.h"

#include <stddef.h>
#include <stdio.h>

#include "catalog/pg_class.h"
#include "storage/smgr.h"
#include "utils/rel.h"

/* port.h maps printf to pg_printf, which a program without libpgport lacks */
#undef printf

int
main(void)
{
#if PG_VERSION_NUM >= 160000
	size_t		smgr_backend = offsetof(SMgrRelationData, smgr_rlocator.backend);
#else
	size_t		smgr_backend = offsetof(SMgrRelationData, smgr_rnode.backend);
#endif

	printf("off_smgr_backend=%zu\n", smgr_backend);
	printf("off_rd_rel=%zu\n", offsetof(RelationData, rd_rel));
	printf("off_relpersistence=%zu\n", offsetof(FormData_pg_class, relpersistence));
	printf("relpersistence_temp=%d\n", (int) RELPERSISTENCE_TEMP);
	return 0;
}
