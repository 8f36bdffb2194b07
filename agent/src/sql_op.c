#include "sql_op.h"

#include <errno.h>

#include "path_hash.h"
#include "record_content.h"
#include "sql_connection.h"

static const enum sql_statement statement_of_kind[SQL_KIND_COUNT] = {
    [SQL_INSERT] = STMT_INSERT, [SQL_UPDATE] = STMT_UPDATE,
    [SQL_DELETE] = STMT_DELETE, [SQL_SELECT] = STMT_SELECT,
};

struct sql_run {
    struct replay_context *context;
    const struct trace_op *op;
    struct sql_connection *connection;
    sqlite3_stmt *statement;
};

static op_status connect(struct replay_context *context, const char *path,
                         struct sql_connection **out)
{
    struct handle *handle = handle_cache_entry(&context->handles, path);
    if (!handle)
        return ENOMEM;
    op_status status = OP_OK;
    if (!handle->sql)
        status = sql_connection_open(context->root_fd, context->root_path, path,
                                     &handle->sql);
    *out = handle->sql;
    return status;
}

/* The next blob: deterministic content per database and row written. */
static op_status bind_blob(struct sql_run *run)
{
    uint64_t bytes = run->op->sql.bytes;
    uint8_t *blob = replay_buffer(run->context, bytes ? (size_t)bytes : 1);
    if (!blob)
        return ENOMEM;
    record_content_fill(blob, (size_t)bytes, run->context->seed, path_hash(run->op->path),
                        run->connection->rows_written * bytes);
    int rc = sqlite3_bind_blob64(run->statement, 1, blob, bytes, SQLITE_STATIC);
    return rc == SQLITE_OK ? OP_OK : sql_status(run->connection->db, rc);
}

static op_status bind_arguments(struct sql_run *run, uint64_t row)
{
    switch (run->op->sql.kind) {
    case SQL_INSERT:
        return bind_blob(run);
    case SQL_UPDATE:
        sqlite3_bind_int64(run->statement, 2, (sqlite3_int64)row);
        return bind_blob(run);
    case SQL_SELECT:
        sqlite3_bind_int64(run->statement, 1, (sqlite3_int64)row);
        return OP_OK;
    default:
        return OP_OK;
    }
}

static void account_row(struct sql_run *run, int rc)
{
    struct replay_stats *stats = &run->context->stats;
    enum sql_kind kind = run->op->sql.kind;
    if (kind == SQL_SELECT && rc == SQLITE_ROW)
        stats->bytes_read += (uint64_t)sqlite3_column_bytes(run->statement, 0);
    if ((kind == SQL_INSERT || kind == SQL_UPDATE) &&
        sqlite3_changes(run->connection->db) > 0) {
        stats->bytes_written += run->op->sql.bytes;
        run->connection->rows_written++;
    }
}

static op_status run_row(struct sql_run *run, uint64_t row)
{
    op_status status = bind_arguments(run, row);
    if (status != OP_OK)
        return status;
    int rc = sqlite3_step(run->statement);
    if (rc == SQLITE_ROW || rc == SQLITE_DONE)
        account_row(run, rc);
    else
        status = sql_status(run->connection->db, rc);
    sqlite3_reset(run->statement);
    sqlite3_clear_bindings(run->statement);
    return status;
}

static op_status run_rows(struct sql_run *run)
{
    op_status status = OP_OK;
    for (uint64_t row = 0; status == OP_OK && row < run->op->sql.rows; row++)
        status = run_row(run, row);
    return status;
}

static op_status run_transaction(struct sql_run *run)
{
    bool writes = run->op->sql.kind != SQL_SELECT;
    op_status status = sql_exec(run->connection, writes ? "BEGIN IMMEDIATE" : "BEGIN");
    if (status != OP_OK)
        return status;
    status = run_rows(run);
    if (status == OP_OK)
        status = sql_exec(run->connection, "COMMIT");
    if (status != OP_OK && !sqlite3_get_autocommit(run->connection->db))
        sql_exec(run->connection, "ROLLBACK");
    return status;
}

op_status replay_sql(struct replay_context *context, const struct trace_op *op)
{
    struct sql_run run = {.context = context, .op = op};
    op_status status = connect(context, op->path, &run.connection);
    if (status == OP_OK)
        status = sql_connection_set_journal(run.connection, op->sql.journal);
    if (status == OP_OK)
        run.statement = sql_connection_statement(
            run.connection, statement_of_kind[op->sql.kind], &status);
    if (status == OP_OK)
        status = run_transaction(&run);
    return status;
}
