#ifndef MOBIFRAG_REPLAYER_H
#define MOBIFRAG_REPLAYER_H

#include <stdbool.h>
#include <stdint.h>

#include "file_marker.h"
#include "replay_stats.h"
#include "trace.h"

struct replay_config {
    const char *trace_file; /* for messages */
    const char *root;
    const char *real_root; /* realpath of root: SQLite opens databases by name */
    int root_fd;
    uint64_t seed;
    bool pace;
    uint64_t sqlite_prealloc; /* bytes per SQLite preallocation unit, 0 = off */
    struct file_marker *marker; /* --mark-list, NULL when off */
};

struct replay_result {
    struct replay_stats stats; /* all threads */
    double seconds;
    bool setup_failed; /* threads could not be started: nothing was replayed */
};

/* Runs every trace thread on its own pthread, all released together, and
 * waits for them. Failed operations are counted (and the first few printed
 * on stderr); they never stop the replay. */
void run_replay(const struct replay_config *config, const struct trace *trace,
                struct replay_result *result);

#endif
