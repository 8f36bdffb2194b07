#include "trace_line.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace_fields.h"

#define MAX_FIELDS 9
#define MAX_FILE_OFFSET ((uint64_t)INT64_MAX)
#define MAX_SQL_BLOB 1000000000u /* SQLite's default SQLITE_MAX_LENGTH */

struct line_parser {
    char *fields[MAX_FIELDS + 1];
    unsigned count;
    struct trace_op *op;
    char *message;
    size_t size;
};

static void split_fields(char *line, struct line_parser *parser)
{
    parser->count = 0;
    for (char *field = line; field && parser->count <= MAX_FIELDS;) {
        parser->fields[parser->count++] = field;
        field = strchr(field, '\t');
        if (field)
            *field++ = '\0';
    }
}

static bool fail(struct line_parser *parser, const char *format, const char *a,
                 const char *b)
{
    snprintf(parser->message, parser->size, format, a, b);
    return false;
}

static bool field_u64(struct line_parser *parser, unsigned index, const char *name,
                      uint64_t limit, uint64_t *out)
{
    const char *error = parse_trace_u64(parser->fields[index], out);
    if (!error && *out > limit)
        error = "too large";
    if (!error)
        return true;
    char what[96];
    snprintf(what, sizeof what, "bad %s '%.40s'", name, parser->fields[index]);
    return fail(parser, "%s: %s", what, error);
}

static bool field_percent(struct line_parser *parser, unsigned index, double *out)
{
    const char *error = parse_trace_percent(parser->fields[index], out);
    return !error || fail(parser, "bad PERCENT '%s': %s", parser->fields[index], error);
}

static bool field_path(struct line_parser *parser, unsigned index, const char *name,
                       char **out)
{
    const char *error = decode_trace_path(parser->fields[index], out);
    return !error || fail(parser, "bad %s: %s", name, error);
}

static bool span_within_files(struct line_parser *parser, uint64_t offset, uint64_t length)
{
    return length <= MAX_FILE_OFFSET - offset ||
           fail(parser, "%s%s", "OFFSET + LENGTH beyond the largest file offset", "");
}

static bool parse_span(struct line_parser *parser, struct span_args *span)
{
    return field_u64(parser, 4, "OFFSET", MAX_FILE_OFFSET, &span->offset) &&
           field_u64(parser, 5, "LENGTH", MAX_FILE_OFFSET, &span->length) &&
           span_within_files(parser, span->offset, span->length);
}

static bool parse_fallocate_mode(struct line_parser *parser, bool *keep_size)
{
    const char *mode = parser->fields[6];
    *keep_size = strcmp(mode, "keep") == 0;
    return *keep_size || strcmp(mode, "extend") == 0 ||
           fail(parser, "bad MODE '%s' (expected keep or extend)%s", mode, "");
}

static bool parse_fallocate(struct line_parser *parser, struct fallocate_args *args)
{
    struct span_args span;
    if (!parse_span(parser, &span))
        return false;
    args->offset = span.offset;
    args->length = span.length;
    return parse_fallocate_mode(parser, &args->keep_size);
}

static bool parse_sql(struct line_parser *parser, struct sql_args *args)
{
    if (!sql_journal_from_name(parser->fields[4], &args->journal))
        return fail(parser, "bad JOURNAL '%s' (expected delete, truncate, persist or wal)%s",
                    parser->fields[4], "");
    if (!sql_kind_from_name(parser->fields[5], &args->kind))
        return fail(parser, "bad KIND '%s' (expected insert, update, delete or select)%s",
                    parser->fields[5], "");
    return field_u64(parser, 6, "ROWS", MAX_FILE_OFFSET, &args->rows) &&
           field_u64(parser, 7, "BYTES", MAX_SQL_BLOB, &args->bytes);
}

static bool parse_reclaim(struct line_parser *parser, struct reclaim_args *args)
{
    if (!field_percent(parser, 4, &args->percent) ||
        !field_u64(parser, 5, "BYTES", UINT64_MAX, &args->bytes) ||
        !field_u64(parser, 6, "SEED", UINT64_MAX, &args->seed))
        return false;
    const char *error = decode_trace_glob(parser->fields[7], &args->glob);
    return !error || fail(parser, "bad GLOB: %s%s", error, "");
}

static bool parse_thin(struct line_parser *parser, struct thin_args *args)
{
    if (!field_percent(parser, 4, &args->percent) ||
        !field_u64(parser, 5, "SEED", UINT64_MAX, &args->seed))
        return false;
    const char *error = decode_trace_glob(parser->fields[6], &args->glob);
    if (error)
        return fail(parser, "bad GLOB: %s%s", error, "");
    if (field_u64(parser, 7, "LIMIT", MAX_FILE_OFFSET, &args->limit))
        return true;
    free(args->glob);
    args->glob = NULL;
    return false;
}

static bool parse_arguments(struct line_parser *parser)
{
    struct trace_op *op = parser->op;
    switch (op->kind) {
    case OP_WRITE:
    case OP_READ:
        return parse_span(parser, &op->span);
    case OP_APPEND:
    case OP_TRUNCATE:
        return field_u64(parser, 4, "LENGTH", MAX_FILE_OFFSET, &op->size.length);
    case OP_FALLOCATE:
        return parse_fallocate(parser, &op->fallocate);
    case OP_RENAME:
        return field_path(parser, 4, "NEWPATH", &op->rename.new_path);
    case OP_SQL:
        return parse_sql(parser, &op->sql);
    case OP_FILL:
        return field_percent(parser, 4, &op->fill.percent);
    case OP_RECLAIM:
        return parse_reclaim(parser, &op->reclaim);
    case OP_THIN:
        return parse_thin(parser, &op->thin);
    default:
        return true; /* no arguments */
    }
}

static bool check_field_count(struct line_parser *parser)
{
    enum trace_op_kind kind = parser->op->kind;
    unsigned expected = trace_op_field_count(kind);
    if (parser->count == expected)
        return true;
    char counts[96];
    snprintf(counts, sizeof counts, "takes %u tab-separated fields, found %s%u", expected,
             parser->count > MAX_FIELDS ? "more than " : "",
             parser->count > MAX_FIELDS ? MAX_FIELDS : parser->count);
    char layout[96];
    snprintf(layout, sizeof layout, "(TIME_US THREAD OP PATH%s%s)",
             *trace_op_arguments(kind) ? " " : "", trace_op_arguments(kind));
    snprintf(parser->message, parser->size, "'%s' %s %s", trace_op_name(kind), counts,
             layout);
    return false;
}

static bool parse_leading_fields(struct line_parser *parser)
{
    struct trace_op *op = parser->op;
    if (parser->count < 4)
        return fail(parser, "%s%s",
                    "expected tab-separated fields TIME_US THREAD OP PATH [ARG...]", "");
    if (!trace_op_from_name(parser->fields[2], &op->kind))
        return fail(parser, "unknown operation '%s'%s", parser->fields[2], "");
    return check_field_count(parser) &&
           field_u64(parser, 0, "TIME_US", UINT64_MAX, &op->time_us) &&
           field_u64(parser, 1, "THREAD", UINT64_MAX, &op->thread) &&
           field_path(parser, 3, "PATH", &op->path);
}

bool parse_trace_line(char *line, struct trace_op *op, char *message, size_t size)
{
    struct line_parser parser = {.op = op, .message = message, .size = size};
    *op = (struct trace_op){.kind = OP_MKDIR};
    split_fields(line, &parser);
    if (!parse_leading_fields(&parser))
        return false;
    if (parse_arguments(&parser))
        return true;
    trace_op_free(op);
    return false;
}
