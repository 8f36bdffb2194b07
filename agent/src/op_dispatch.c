#include "op_dispatch.h"

#include "file_ops.h"
#include "space_ops.h"
#include "sql_op.h"
#include "thin_op.h"

op_status replay_op(struct replay_context *context, const struct trace_op *op)
{
    switch (op->kind) {
    case OP_SQL: return replay_sql(context, op);
    case OP_FILL: return replay_fill(context, op);
    case OP_RECLAIM: return replay_reclaim(context, op);
    case OP_THIN: return replay_thin(context, op);
    default: return replay_file_op(context, op);
    }
}
