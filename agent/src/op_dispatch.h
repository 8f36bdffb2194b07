#ifndef MOBIFRAG_OP_DISPATCH_H
#define MOBIFRAG_OP_DISPATCH_H

#include "op_status.h"
#include "replay_context.h"
#include "trace.h"

/* Executes one trace operation with real system calls (or libsqlite3). */
op_status replay_op(struct replay_context *context, const struct trace_op *op);

#endif
