#include "trace_parser.h"

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "trace_line.h"

struct loader {
    const char *file;
    FILE *errors;
    struct trace *trace;
    long malformed;
    uint64_t thread_ids[TRACE_MAX_THREADS]; /* distinct THREAD values, ascending */
    size_t thread_count;
    bool too_many_threads; /* reported once */
};

static void report(struct loader *loader, unsigned long line, const char *format, ...)
    __attribute__((format(printf, 3, 4)));

static void report(struct loader *loader, unsigned long line, const char *format, ...)
{
    loader->malformed++;
    if (loader->malformed > TRACE_MAX_REPORTED_ERRORS)
        return;
    va_list args;
    va_start(args, format);
    fprintf(loader->errors, "%s:%lu: ", loader->file, line);
    vfprintf(loader->errors, format, args);
    fputc('\n', loader->errors);
    va_end(args);
}

static bool append_op(struct trace *trace, const struct trace_op *op)
{
    if (trace->count == trace->capacity) {
        size_t capacity = trace->capacity ? trace->capacity * 2 : 256;
        struct trace_op *grown = realloc(trace->ops, capacity * sizeof *grown);
        if (!grown)
            return false;
        trace->ops = grown;
        trace->capacity = capacity;
    }
    trace->ops[trace->count++] = *op;
    return true;
}

static bool is_ignored_line(const char *line)
{
    return line[0] == '\0' || line[0] == '#';
}

static void chomp(char *line, ssize_t *length)
{
    if (*length > 0 && line[*length - 1] == '\n')
        line[--*length] = '\0';
}

/* Registers op's THREAD; false (reported, naming the line) when it would be
 * one distinct value more than TRACE_MAX_THREADS. */
static bool count_thread(struct loader *loader, uint64_t thread, unsigned long number)
{
    size_t low = 0, high = loader->thread_count;
    while (low < high) {
        size_t middle = low + (high - low) / 2;
        if (loader->thread_ids[middle] < thread)
            low = middle + 1;
        else
            high = middle;
    }
    if (low < loader->thread_count && loader->thread_ids[low] == thread)
        return true;
    if (loader->thread_count == TRACE_MAX_THREADS) {
        if (!loader->too_many_threads)
            report(loader, number,
                   "THREAD %llu is distinct THREAD value number %u; a trace may use at "
                   "most %u",
                   (unsigned long long)thread, TRACE_MAX_THREADS + 1, TRACE_MAX_THREADS);
        loader->too_many_threads = true;
        return false;
    }
    memmove(&loader->thread_ids[low + 1], &loader->thread_ids[low],
            (loader->thread_count - low) * sizeof loader->thread_ids[0]);
    loader->thread_ids[low] = thread;
    loader->thread_count++;
    return true;
}

/* Returns false only when out of memory. */
static bool load_line(struct loader *loader, char *line, unsigned long number)
{
    if (number == 1) {
        if (strcmp(line, TRACE_HEADER) != 0)
            report(loader, 1, "first line must be '%s'", TRACE_HEADER);
        return true;
    }
    if (is_ignored_line(line))
        return true;
    struct trace_op op;
    char message[256];
    if (!parse_trace_line(line, &op, message, sizeof message)) {
        report(loader, number, "%s", message);
        return true;
    }
    op.line = number;
    if (!count_thread(loader, op.thread, number)) {
        trace_op_free(&op);
        return true;
    }
    if (loader->malformed == 0 && append_op(loader->trace, &op))
        return true;
    trace_op_free(&op);
    return loader->malformed > 0; /* after an error nothing is kept */
}

static int read_lines(struct loader *loader, FILE *in)
{
    char *line = NULL;
    size_t capacity = 0;
    ssize_t length;
    unsigned long number = 0;
    int error = 0;
    while (!error && (length = getline(&line, &capacity, in)) >= 0) {
        chomp(line, &length);
        if ((size_t)length != strlen(line))
            report(loader, number + 1, "NUL byte in line");
        else if (!load_line(loader, line, number + 1))
            error = ENOMEM;
        number++;
    }
    if (!error && ferror(in))
        error = errno ? errno : EIO;
    if (!error && number == 0)
        report(loader, 1, "empty file, expected '%s'", TRACE_HEADER);
    free(line);
    return error;
}

static int by_thread_then_line(const void *a, const void *b)
{
    const struct trace_op *x = *(struct trace_op *const *)a;
    const struct trace_op *y = *(struct trace_op *const *)b;
    if (x->thread != y->thread)
        return x->thread < y->thread ? -1 : 1;
    return x->line < y->line ? -1 : x->line > y->line;
}

static size_t count_threads(struct trace_op **sorted, size_t count)
{
    size_t threads = 0;
    for (size_t i = 0; i < count; i++)
        threads += i == 0 || sorted[i]->thread != sorted[i - 1]->thread;
    return threads;
}

static bool split_threads(struct trace *trace, struct trace_op **sorted)
{
    trace->thread_count = count_threads(sorted, trace->count);
    trace->threads = calloc(trace->thread_count ? trace->thread_count : 1,
                            sizeof *trace->threads);
    if (!trace->threads)
        return false;
    size_t t = 0, start = 0;
    for (size_t i = 1; i <= trace->count; i++) {
        if (i < trace->count && sorted[i]->thread == sorted[start]->thread)
            continue;
        struct trace_thread *thread = &trace->threads[t++];
        thread->id = sorted[start]->thread;
        thread->count = i - start;
        thread->ops = malloc(thread->count * sizeof *thread->ops);
        if (!thread->ops)
            return false;
        memcpy(thread->ops, sorted + start, thread->count * sizeof *thread->ops);
        start = i;
    }
    return true;
}

static void check_thread_times(struct loader *loader, const struct trace_thread *thread)
{
    for (size_t i = 1; i < thread->count; i++)
        if (thread->ops[i]->time_us < thread->ops[i - 1]->time_us)
            report(loader, thread->ops[i]->line,
                   "TIME_US %llu is before the previous operation of thread %llu (line %lu)",
                   (unsigned long long)thread->ops[i]->time_us,
                   (unsigned long long)thread->id, thread->ops[i - 1]->line);
}

static void check_threads(struct loader *loader)
{
    const struct trace *trace = loader->trace; /* at most TRACE_MAX_THREADS (count_thread) */
    for (size_t i = 0; i < trace->thread_count; i++)
        check_thread_times(loader, &trace->threads[i]);
}

static int group_by_thread(struct loader *loader)
{
    struct trace *trace = loader->trace;
    struct trace_op **sorted = malloc((trace->count ? trace->count : 1) * sizeof *sorted);
    if (!sorted)
        return ENOMEM;
    for (size_t i = 0; i < trace->count; i++)
        sorted[i] = &trace->ops[i];
    qsort(sorted, trace->count, sizeof *sorted, by_thread_then_line);
    bool ok = split_threads(trace, sorted);
    free(sorted);
    if (ok)
        check_threads(loader);
    return ok ? 0 : ENOMEM;
}

static long finish(struct loader *loader, int error)
{
    if (error == 0 && loader->malformed == 0)
        error = group_by_thread(loader);
    if (loader->malformed > TRACE_MAX_REPORTED_ERRORS)
        fprintf(loader->errors, "%s: %ld malformed lines in all\n", loader->file,
                loader->malformed);
    if (error || loader->malformed)
        trace_free(loader->trace);
    return error ? -error : loader->malformed;
}

long trace_load_stream(FILE *in, const char *file, struct trace *trace, FILE *errors)
{
    *trace = (struct trace){0};
    struct loader loader = {.file = file, .errors = errors, .trace = trace};
    int error = read_lines(&loader, in);
    return finish(&loader, error);
}

long trace_load(const char *file, struct trace *trace, FILE *errors)
{
    *trace = (struct trace){0};
    FILE *in = fopen(file, "re");
    if (!in)
        return -errno;
    long outcome = trace_load_stream(in, file, trace, errors);
    fclose(in);
    return outcome;
}
