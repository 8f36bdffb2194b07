#include "trace.h"

#include <stdlib.h>
#include <string.h>

static const struct {
    const char *name;
    const char *arguments;
    unsigned argument_count;
} op_table[OP_KIND_COUNT] = {
    [OP_MKDIR] = {"mkdir", "", 0},
    [OP_CREATE] = {"create", "", 0},
    [OP_WRITE] = {"write", "OFFSET LENGTH", 2},
    [OP_APPEND] = {"append", "LENGTH", 1},
    [OP_READ] = {"read", "OFFSET LENGTH", 2},
    [OP_FSYNC] = {"fsync", "", 0},
    [OP_FDATASYNC] = {"fdatasync", "", 0},
    [OP_SYNCFS] = {"syncfs", "", 0},
    [OP_FALLOCATE] = {"fallocate", "OFFSET LENGTH MODE", 3},
    [OP_TRUNCATE] = {"truncate", "LENGTH", 1},
    [OP_UNLINK] = {"unlink", "", 0},
    [OP_RENAME] = {"rename", "NEWPATH", 1},
    [OP_SQL] = {"sql", "JOURNAL KIND ROWS BYTES", 4},
    [OP_FILL] = {"fill", "PERCENT", 1},
    [OP_RECLAIM] = {"reclaim", "PERCENT BYTES SEED GLOB", 4},
    [OP_THIN] = {"thin", "PERCENT SEED GLOB LIMIT", 4},
};

static const char *const journal_names[JOURNAL_COUNT] = {
    [JOURNAL_DELETE] = "delete", [JOURNAL_TRUNCATE] = "truncate",
    [JOURNAL_PERSIST] = "persist", [JOURNAL_WAL] = "wal",
};

static const char *const sql_kind_names[SQL_KIND_COUNT] = {
    [SQL_INSERT] = "insert", [SQL_UPDATE] = "update",
    [SQL_DELETE] = "delete", [SQL_SELECT] = "select",
};

#define FIXED_FIELDS 4u /* TIME_US THREAD OP PATH */

const char *trace_op_name(enum trace_op_kind kind)
{
    return kind < OP_KIND_COUNT ? op_table[kind].name : "?";
}

bool trace_op_from_name(const char *name, enum trace_op_kind *kind)
{
    for (int k = 0; k < OP_KIND_COUNT; k++)
        if (strcmp(name, op_table[k].name) == 0) {
            *kind = (enum trace_op_kind)k;
            return true;
        }
    return false;
}

unsigned trace_op_field_count(enum trace_op_kind kind)
{
    return FIXED_FIELDS + op_table[kind].argument_count;
}

const char *trace_op_arguments(enum trace_op_kind kind)
{
    return op_table[kind].arguments;
}

static bool index_of(const char *const *names, int count, const char *name, int *index)
{
    for (int i = 0; i < count; i++)
        if (strcmp(name, names[i]) == 0) {
            *index = i;
            return true;
        }
    return false;
}

const char *sql_journal_name(enum sql_journal journal)
{
    return journal < JOURNAL_COUNT ? journal_names[journal] : "?";
}

bool sql_journal_from_name(const char *name, enum sql_journal *journal)
{
    int index;
    if (!index_of(journal_names, JOURNAL_COUNT, name, &index))
        return false;
    *journal = (enum sql_journal)index;
    return true;
}

const char *sql_kind_name(enum sql_kind kind)
{
    return kind < SQL_KIND_COUNT ? sql_kind_names[kind] : "?";
}

bool sql_kind_from_name(const char *name, enum sql_kind *kind)
{
    int index;
    if (!index_of(sql_kind_names, SQL_KIND_COUNT, name, &index))
        return false;
    *kind = (enum sql_kind)index;
    return true;
}

void trace_op_free(struct trace_op *op)
{
    free(op->path);
    if (op->kind == OP_RENAME)
        free(op->rename.new_path);
    if (op->kind == OP_RECLAIM)
        free(op->reclaim.glob);
    if (op->kind == OP_THIN)
        free(op->thin.glob);
    op->path = NULL;
}

void trace_free(struct trace *trace)
{
    for (size_t i = 0; i < trace->count; i++)
        trace_op_free(&trace->ops[i]);
    for (size_t i = 0; i < trace->thread_count; i++)
        free(trace->threads[i].ops);
    free(trace->ops);
    free(trace->threads);
    *trace = (struct trace){0};
}
