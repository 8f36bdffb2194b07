#ifndef MOBIFRAG_SQL_OP_H
#define MOBIFRAG_SQL_OP_H

#include "op_status.h"
#include "replay_context.h"
#include "trace.h"

/* One `sql` line: a transaction of ROWS statements on the thread's
 * connection to the database (opened on first use). insert/update count
 * ROWS x BYTES as written, select counts the blob bytes it read. */
op_status replay_sql(struct replay_context *context, const struct trace_op *op);

#endif
