#ifndef MOBIFRAG_SPACE_OPS_H
#define MOBIFRAG_SPACE_OPS_H

#include "op_status.h"
#include "replay_context.h"
#include "trace.h"

/* `fill`: appends REPLAY_CHUNK writes to one file until its file system is
 * PERCENT % used (space_usage.h) or a write fails (ENOSPC), then fsyncs.
 * The first failure is the op's status. PERCENT 100 means every free block:
 * the writes end in ENOSPC (not an error then), and the blocks they could not
 * take are allocated to the file with fallocate, ext4's reserved clusters
 * included (ext4_reserve.h); a file that cannot be created for want of space
 * is created from that reserve too. */
op_status replay_fill(struct replay_context *context, const struct trace_op *op);

/* `reclaim`: when the file system is more than PERCENT % used, deletes the
 * GLOB-matching files under DIR in victim order (victim_list.h) until
 * BYTES allocated bytes are freed or no candidate is left. A failed unlink
 * is the op's status; the next candidate is tried. */
op_status replay_reclaim(struct replay_context *context, const struct trace_op *op);

#endif
