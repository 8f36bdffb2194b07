#include "appender.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "record_content.h"
#include "start_gate.h"

struct shared_state {
    const struct append_config *config;
    struct start_gate gate;
    atomic_bool stop; /* set on an untolerated error so the others quit early */
};

struct appender {
    struct shared_state *shared;
    unsigned index;
    char *path;
    int fd;
    uint8_t *record;
    uint64_t written;
    uint64_t records;
    uint64_t reserved_end;
    const char *failed_operation; /* NULL while all is well */
    int failed_errno;
    bool thread_started;
    pthread_t thread;
};

const char *sync_mode_name(enum sync_mode mode)
{
    switch (mode) {
    case SYNC_FSYNC: return "fsync";
    case SYNC_FDATASYNC: return "fdatasync";
    case SYNC_NONE: return "none";
    }
    return "?";
}

static bool is_tolerated(const struct append_config *config, int error)
{
    return config->continue_on_enospc && error == ENOSPC;
}

static void record_failure(struct appender *worker, const char *operation, int error)
{
    const struct append_config *config = worker->shared->config;
    worker->failed_operation = operation;
    worker->failed_errno = error;
    bool tolerated = is_tolerated(config, error);
    if (!tolerated)
        atomic_store(&worker->shared->stop, true);
    char where[48] = "";
    if (worker->fd >= 0)
        snprintf(where, sizeof where, " at offset %llu", (unsigned long long)worker->written);
    fprintf(stderr, "%s append: %s %s%s: %s%s\n", PROGRAM_NAME, operation, worker->path,
            where, strerror(error),
            tolerated ? " (this writer stops, --continue-on-enospc)" : "");
}

static bool write_fully(struct appender *worker, size_t length)
{
    size_t done = 0;
    while (done < length) {
        ssize_t n = write(worker->fd, worker->record + done, length - done);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            record_failure(worker, "write", errno);
            return false;
        }
        done += (size_t)n;
        worker->written += (uint64_t)n;
    }
    return true;
}

static bool sync_file(struct appender *worker)
{
    enum sync_mode mode = worker->shared->config->sync;
    int status = 0;
    if (mode == SYNC_FSYNC)
        status = fsync(worker->fd);
    else if (mode == SYNC_FDATASYNC)
        status = fdatasync(worker->fd);
    if (status != 0)
        record_failure(worker, sync_mode_name(mode), errno);
    return status == 0;
}

/* Mirrors the TMC §6.1.1 benchmark: reserve another unit whenever the next
 * record would grow the file past the reserved space. KEEP_SIZE leaves the
 * file size equal to the bytes written, as with SQLite's chunked growth. */
static bool ensure_reserved(struct appender *worker, size_t length)
{
    uint64_t unit = worker->shared->config->prealloc;
    while (unit && worker->written + length > worker->reserved_end) {
        if (fallocate(worker->fd, FALLOC_FL_KEEP_SIZE, (off_t)worker->reserved_end,
                      (off_t)unit) != 0) {
            record_failure(worker, "fallocate", errno);
            return false;
        }
        worker->reserved_end += unit;
    }
    return true;
}

static bool append_record(struct appender *worker, size_t length)
{
    const struct append_config *config = worker->shared->config;
    if (!ensure_reserved(worker, length))
        return false;
    record_content_fill(worker->record, length, config->seed, worker->index,
                        worker->written);
    if (!write_fully(worker, length))
        return false;
    worker->records++;
    return sync_file(worker);
}

static void *appender_main(void *argument)
{
    struct appender *worker = argument;
    struct shared_state *shared = worker->shared;
    if (!start_gate_arrive(&shared->gate))
        return NULL;
    uint64_t file_size = shared->config->file_size;
    while (worker->written < file_size && !atomic_load(&shared->stop)) {
        uint64_t left = file_size - worker->written;
        size_t length = left < shared->config->record_size
                            ? (size_t)left
                            : (size_t)shared->config->record_size;
        if (!append_record(worker, length))
            break;
    }
    return NULL;
}

static bool ensure_directory(const char *dir)
{
    if (mkdir(dir, 0755) == 0 || errno == EEXIST)
        return true;
    fprintf(stderr, "%s append: cannot create directory %s: %s\n", PROGRAM_NAME,
            dir, strerror(errno));
    return false;
}

static bool is_fatal(const struct appender *worker)
{
    return worker->failed_operation &&
           !is_tolerated(worker->shared->config, worker->failed_errno);
}

/* Returns false only when out of memory; an open error is recorded in the
 * worker (and printed) like any other I/O error. */
static bool open_file(struct appender *worker)
{
    const struct append_config *config = worker->shared->config;
    if (asprintf(&worker->path, "%s/%s%u%s", config->dir, config->prefix,
                 worker->index, config->suffix) < 0) {
        worker->path = NULL;
        return false;
    }
    worker->record = malloc((size_t)config->record_size);
    if (!worker->record)
        return false;
    worker->fd = open(worker->path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (worker->fd < 0)
        record_failure(worker, "open", errno);
    return true;
}

/* Files are created by the coordinator, in index order, before any thread
 * runs: inode numbers and directory order then do not depend on scheduling. */
static bool open_all(struct appender *workers, unsigned count)
{
    for (unsigned i = 0; i < count; i++) {
        if (!open_file(&workers[i])) {
            fprintf(stderr, "%s append: out of memory\n", PROGRAM_NAME);
            return false;
        }
        if (is_fatal(&workers[i]))
            break; /* the run fails anyway; create no more files */
    }
    return true;
}

static bool any_fatal(const struct appender *workers, unsigned count)
{
    for (unsigned i = 0; i < count; i++)
        if (is_fatal(&workers[i]))
            return true;
    return false;
}

static bool start_worker(struct appender *worker)
{
    if (worker->fd < 0)
        return true; /* its open failed and was tolerated: nothing to run */
    int error = pthread_create(&worker->thread, NULL, appender_main, worker);
    if (error != 0) {
        fprintf(stderr, "%s append: cannot start thread %u: %s\n", PROGRAM_NAME,
                worker->index, strerror(error));
        return false;
    }
    worker->thread_started = true;
    return true;
}

static unsigned start_all(struct appender *workers, unsigned count, bool *ok)
{
    unsigned started = 0;
    *ok = true;
    for (unsigned i = 0; i < count && *ok; i++) {
        *ok = start_worker(&workers[i]);
        started += workers[i].thread_started;
    }
    return started;
}

static void finish_worker(struct appender *worker)
{
    if (worker->thread_started)
        pthread_join(worker->thread, NULL);
    if (worker->fd >= 0 && close(worker->fd) != 0 && !worker->failed_operation)
        record_failure(worker, "close", errno);
    worker->fd = -1;
}

static double seconds_since(const struct timespec *start)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)(now.tv_sec - start->tv_sec) +
           (double)(now.tv_nsec - start->tv_nsec) / 1e9;
}

/* Times from the release of the gate until the last file is closed. */
static double release_and_join(struct appender *workers, struct shared_state *shared,
                               unsigned started, bool release)
{
    struct timespec start;
    clock_gettime(CLOCK_MONOTONIC, &start);
    if (release)
        start_gate_open_when_arrived(&shared->gate, started);
    else
        start_gate_abort(&shared->gate);
    for (unsigned i = 0; i < shared->config->threads; i++)
        finish_worker(&workers[i]);
    return seconds_since(&start);
}

static void add_totals(const struct appender *worker, struct append_result *result)
{
    result->bytes_written += worker->written;
    result->records += worker->records;
    if (worker->failed_operation)
        result->errors++;
    if (is_fatal(worker))
        result->fatal = true;
}

static struct appender *new_workers(struct shared_state *shared)
{
    unsigned count = shared->config->threads;
    struct appender *workers = calloc(count, sizeof *workers);
    for (unsigned i = 0; workers && i < count; i++)
        workers[i] = (struct appender){.shared = shared, .index = i, .fd = -1};
    return workers;
}

static void free_workers(struct appender *workers, unsigned count)
{
    for (unsigned i = 0; i < count; i++) {
        free(workers[i].path);
        free(workers[i].record);
    }
    free(workers);
}

static void run_workers(struct appender *workers, struct shared_state *shared,
                        struct append_result *result)
{
    unsigned count = shared->config->threads;
    bool opened = open_all(workers, count);
    bool launched = true;
    unsigned started = 0;
    if (opened && !any_fatal(workers, count))
        started = start_all(workers, count, &launched);
    result->seconds = release_and_join(workers, shared, started, launched);
    for (unsigned i = 0; i < count; i++)
        add_totals(&workers[i], result);
    result->setup_failed = !opened || !launched;
}

void run_append(const struct append_config *config, struct append_result *result)
{
    *result = (struct append_result){0};
    if (!ensure_directory(config->dir)) {
        result->setup_failed = true;
        return;
    }
    struct shared_state shared = {.config = config};
    atomic_init(&shared.stop, false);
    start_gate_init(&shared.gate);
    struct appender *workers = new_workers(&shared);
    if (workers) {
        run_workers(workers, &shared, result);
        free_workers(workers, config->threads);
    } else {
        fprintf(stderr, "%s append: out of memory\n", PROGRAM_NAME);
        result->setup_failed = true;
    }
    start_gate_destroy(&shared.gate);
}
