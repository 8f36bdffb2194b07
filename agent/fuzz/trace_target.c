/* Fuzz target of the trace parser (src/trace_parser.c, trace_line.c,
 * trace_fields.c): any bytes as a whole .iotrace file. Malformed input must
 * be reported, never crash; an accepted trace must keep the replayer's
 * promises (checked here with abort(), which the fuzzers report as a crash):
 * paths relative with no ".." component, at most TRACE_MAX_THREADS threads,
 * threads ascending and holding every operation once, times non-decreasing
 * within a thread, lengths and offsets within the file-size limit. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace.h"
#include "trace_parser.h"

int trace_fuzz_one(const uint8_t *data, size_t size);

static void require(int ok)
{
    if (!ok)
        abort();
}

static void check_path(const char *path)
{
    require(path != NULL && path[0] != '\0' && path[0] != '/');
    for (const char *part = path; part; part = strchr(part, '/')) {
        if (*part == '/')
            part++;
        require(!(part[0] == '.' && part[1] == '.' && (part[2] == '/' || part[2] == '\0')));
    }
}

static void check_op(const struct trace_op *op)
{
    require(op->kind < OP_KIND_COUNT);
    check_path(op->path);
    const uint64_t max_offset = (uint64_t)INT64_MAX;
    switch (op->kind) {
    case OP_WRITE:
    case OP_READ: require(op->span.length <= max_offset - op->span.offset); break;
    case OP_FALLOCATE:
        require(op->fallocate.length <= max_offset - op->fallocate.offset);
        break;
    case OP_APPEND:
    case OP_TRUNCATE: require(op->size.length <= max_offset); break;
    case OP_RENAME: check_path(op->rename.new_path); break;
    case OP_SQL:
        require(op->sql.journal < JOURNAL_COUNT && op->sql.kind < SQL_KIND_COUNT);
        require(op->sql.bytes <= 1000000000u);
        break;
    case OP_FILL: require(op->fill.percent >= 0.0 && op->fill.percent <= 100.0); break;
    case OP_RECLAIM:
        require(op->reclaim.percent >= 0.0 && op->reclaim.percent <= 100.0);
        require(op->reclaim.glob && op->reclaim.glob[0] && !strchr(op->reclaim.glob, '/'));
        break;
    case OP_THIN:
        require(op->thin.percent >= 0.0 && op->thin.percent <= 100.0);
        require(op->thin.glob && op->thin.glob[0] && !strchr(op->thin.glob, '/'));
        require(op->thin.limit <= max_offset);
        break;
    default: break;
    }
}

static void check_trace(const struct trace *trace)
{
    require(trace->thread_count <= TRACE_MAX_THREADS);
    size_t total = 0;
    for (size_t t = 0; t < trace->thread_count; t++) {
        const struct trace_thread *thread = &trace->threads[t];
        require(thread->count > 0);
        require(t == 0 || trace->threads[t - 1].id < thread->id);
        for (size_t i = 0; i < thread->count; i++) {
            const struct trace_op *op = thread->ops[i];
            require(op->thread == thread->id);
            require(i == 0 || (thread->ops[i - 1]->line < op->line &&
                               thread->ops[i - 1]->time_us <= op->time_us));
            check_op(op);
        }
        total += thread->count;
    }
    require(total == trace->count);
}

int trace_fuzz_one(const uint8_t *data, size_t size)
{
    static FILE *sink;
    if (!sink)
        sink = fopen("/dev/null", "w");
    char *copy = malloc(size + 1);
    if (!copy)
        return 0;
    if (size)
        memcpy(copy, data, size);
    copy[size] = '\0';
    FILE *in = fmemopen(copy, size ? size : 1, "r");
    if (!in) {
        free(copy);
        return 0;
    }
    if (size == 0)
        fgetc(in); /* fmemopen needs a non-empty buffer: read its one byte */
    struct trace trace;
    long outcome = trace_load_stream(in, "fuzz.iotrace", &trace, sink ? sink : stderr);
    fclose(in);
    free(copy);
    require(outcome >= 0);
    if (outcome == 0) {
        check_trace(&trace);
        trace_free(&trace);
    } else {
        require(trace.count == 0 && trace.ops == NULL && trace.threads == NULL);
    }
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return trace_fuzz_one(data, size);
}
