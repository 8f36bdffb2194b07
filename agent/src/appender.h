#ifndef MOBIFRAG_APPENDER_H
#define MOBIFRAG_APPENDER_H

#include <stdbool.h>
#include <stdint.h>

enum sync_mode { SYNC_FSYNC, SYNC_FDATASYNC, SYNC_NONE };

struct append_config {
    const char *dir;
    const char *prefix;
    const char *suffix;
    unsigned threads;
    uint64_t record_size;
    uint64_t file_size;
    uint64_t prealloc; /* 0: no preallocation */
    uint64_t seed;
    enum sync_mode sync;
    bool continue_on_enospc;
};

struct append_result {
    uint64_t bytes_written;
    uint64_t records;
    double seconds;
    unsigned errors;   /* files whose writer stopped on an error */
    bool fatal;        /* some error was not tolerated: exit status 2 */
    bool setup_failed; /* could not even start (memory, threads): status 1 */
};

/* Runs the concurrent-appender workload; progress problems are reported on
 * stderr as they happen, the totals land in *result. */
void run_append(const struct append_config *config, struct append_result *result);

const char *sync_mode_name(enum sync_mode mode);

#endif
