#include "replayer.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "cli.h"
#include "op_dispatch.h"
#include "replay_context.h"
#include "start_gate.h"

#define MAX_PRINTED_FAILURES 20
#define RESERVED_FDS 64

struct replay_shared {
    const struct replay_config *config;
    struct start_gate gate;
    struct timespec start;
    atomic_uint failures_printed;
};

struct replay_worker {
    struct replay_shared *shared;
    const struct trace_thread *thread;
    struct replay_context context;
    pthread_t pthread;
    bool started;
};

static void print_failure(struct replay_shared *shared, const struct trace_op *op,
                          op_status status)
{
    unsigned printed = atomic_fetch_add(&shared->failures_printed, 1);
    if (printed > MAX_PRINTED_FAILURES)
        return;
    if (printed == MAX_PRINTED_FAILURES) {
        fprintf(stderr, "%s replay: further failed operations are only counted\n",
                PROGRAM_NAME);
        return;
    }
    char name[OP_STATUS_NAME_MAX];
    fprintf(stderr, "%s replay: %s:%lu: %s %s: %s (%s)\n", PROGRAM_NAME,
            shared->config->trace_file, op->line, trace_op_name(op->kind), op->path,
            op_status_text(status), op_status_name(status, name, sizeof name));
}

static struct timespec after(const struct timespec *start, uint64_t microseconds)
{
    struct timespec at = *start;
    at.tv_sec += (time_t)(microseconds / 1000000u);
    at.tv_nsec += (long)(microseconds % 1000000u) * 1000L;
    if (at.tv_nsec >= 1000000000L) {
        at.tv_sec++;
        at.tv_nsec -= 1000000000L;
    }
    return at;
}

static void sleep_until_op_time(const struct replay_shared *shared, const struct trace_op *op)
{
    struct timespec at = after(&shared->start, op->time_us);
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &at, NULL) == EINTR)
        ;
}

static void *worker_main(void *argument)
{
    struct replay_worker *worker = argument;
    struct replay_shared *shared = worker->shared;
    if (!start_gate_arrive(&shared->gate))
        return NULL;
    for (size_t i = 0; i < worker->thread->count; i++) {
        const struct trace_op *op = worker->thread->ops[i];
        if (shared->config->pace)
            sleep_until_op_time(shared, op);
        op_status status = replay_op(&worker->context, op);
        replay_stats_count(&worker->context.stats, op->kind, status);
        if (status != OP_OK)
            print_failure(shared, op, status);
    }
    replay_context_finish(&worker->context);
    return NULL;
}

/* Descriptors each thread may keep open: the soft limit, raised to the hard
 * one, shared out with room left for SQLite's journal files. */
static size_t open_files_per_thread(size_t threads)
{
    struct rlimit limit;
    if (getrlimit(RLIMIT_NOFILE, &limit) != 0)
        return 16;
    if (limit.rlim_cur < limit.rlim_max) {
        limit.rlim_cur = limit.rlim_max;
        if (setrlimit(RLIMIT_NOFILE, &limit) != 0)
            getrlimit(RLIMIT_NOFILE, &limit);
    }
    rlim_t usable = limit.rlim_cur > 2 * RESERVED_FDS ? limit.rlim_cur - RESERVED_FDS
                                                      : RESERVED_FDS;
    size_t share = (size_t)(usable / 2 / (rlim_t)(threads ? threads : 1));
    return share < 4 ? 4 : share;
}

static struct replay_worker *new_workers(struct replay_shared *shared,
                                         const struct trace *trace)
{
    const struct replay_config *config = shared->config;
    struct replay_worker *workers = calloc(trace->thread_count ? trace->thread_count : 1,
                                           sizeof *workers);
    size_t max_open = open_files_per_thread(trace->thread_count);
    for (size_t i = 0; workers && i < trace->thread_count; i++) {
        workers[i] = (struct replay_worker){.shared = shared, .thread = &trace->threads[i]};
        replay_context_init(&workers[i].context, config->root_fd,
                            config->real_root ? config->real_root : config->root,
                            config->seed, max_open, config->marker);
    }
    return workers;
}

static size_t start_workers(struct replay_worker *workers, size_t count, bool *ok)
{
    size_t started = 0;
    *ok = true;
    for (size_t i = 0; i < count && *ok; i++) {
        int error = pthread_create(&workers[i].pthread, NULL, worker_main, &workers[i]);
        if (error != 0) {
            fprintf(stderr, "%s replay: cannot start thread for THREAD %llu: %s\n",
                    PROGRAM_NAME, (unsigned long long)workers[i].thread->id,
                    strerror(error));
            *ok = false;
        }
        workers[i].started = error == 0;
        started += workers[i].started;
    }
    return started;
}

static double seconds_since(const struct timespec *start)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)(now.tv_sec - start->tv_sec) +
           (double)(now.tv_nsec - start->tv_nsec) / 1e9;
}

static void release_and_join(struct replay_shared *shared, struct replay_worker *workers,
                             size_t count, size_t started, bool release)
{
    clock_gettime(CLOCK_MONOTONIC, &shared->start);
    if (release)
        start_gate_open_when_arrived(&shared->gate, (unsigned)started);
    else
        start_gate_abort(&shared->gate);
    for (size_t i = 0; i < count; i++)
        if (workers[i].started)
            pthread_join(workers[i].pthread, NULL);
}

static void collect(struct replay_worker *workers, size_t count, struct replay_result *result)
{
    for (size_t i = 0; i < count; i++) {
        replay_context_finish(&workers[i].context); /* no-op unless never run */
        replay_stats_merge(&result->stats, &workers[i].context.stats);
    }
}

void run_replay(const struct replay_config *config, const struct trace *trace,
                struct replay_result *result)
{
    *result = (struct replay_result){0};
    struct replay_shared shared = {.config = config};
    atomic_init(&shared.failures_printed, 0);
    start_gate_init(&shared.gate);
    struct replay_worker *workers = new_workers(&shared, trace);
    if (!workers) {
        fprintf(stderr, "%s replay: out of memory\n", PROGRAM_NAME);
        result->setup_failed = true;
    } else {
        bool ok;
        size_t started = start_workers(workers, trace->thread_count, &ok);
        release_and_join(&shared, workers, trace->thread_count, started, ok);
        result->seconds = seconds_since(&shared.start);
        collect(workers, trace->thread_count, result);
        result->setup_failed = !ok;
    }
    free(workers);
    start_gate_destroy(&shared.gate);
}
