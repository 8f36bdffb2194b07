#ifndef MOBIFRAG_THIN_OP_H
#define MOBIFRAG_THIN_OP_H

#include "op_status.h"
#include "replay_context.h"
#include "trace.h"

/* `thin DIR PERCENT SEED GLOB LIMIT`: while the file system is more than
 * PERCENT % used, deletes the GLOB-matching files under DIR in victim order
 * (victim_list.h), sparing every file whose extents would join the extents
 * of files this op already deleted, and the free space there before it
 * (fs_free_space.h, with the thread's files closed and synced first), into a
 * contiguous run of LIMIT bytes or more (LIMIT 0: no file is spared). The bytes to free are measured, the
 * files deleted, the file system synced (freed blocks return at the commit)
 * and measured again, until it is down to PERCENT or no candidate is left.
 * A candidate's extents are read (FIEMAP) when its turn comes, so files never
 * reached are never mapped. A failed unlink or extent map is the op's status;
 * the file is left and the next candidate tried. */
op_status replay_thin(struct replay_context *context, const struct trace_op *op);

#endif
