#ifndef MOBIFRAG_FILE_OPS_H
#define MOBIFRAG_FILE_OPS_H

#include "op_status.h"
#include "replay_context.h"
#include "trace.h"

/* The plain file system operations of a trace (everything but sql, fill
 * and reclaim), each on the thread's cached descriptor of the path. */
op_status replay_file_op(struct replay_context *context, const struct trace_op *op);

#endif
