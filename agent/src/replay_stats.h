#ifndef MOBIFRAG_REPLAY_STATS_H
#define MOBIFRAG_REPLAY_STATS_H

#include <stdint.h>
#include <stdio.h>

#include "op_status.h"
#include "trace.h"

#define REPLAY_MAX_ERROR_NAMES 64

struct error_name_count {
    char name[OP_STATUS_NAME_MAX];
    uint64_t count;
};

/* Counters of one replay thread (no locking), merged at the end. */
struct replay_stats {
    uint64_t ops[OP_KIND_COUNT];
    uint64_t errors[OP_KIND_COUNT];
    struct error_name_count error_names[REPLAY_MAX_ERROR_NAMES];
    unsigned error_name_count;
    uint64_t other_error_names; /* failures past REPLAY_MAX_ERROR_NAMES names */
    uint64_t bytes_written;
    uint64_t bytes_read;
    uint64_t reclaimed_files;
    uint64_t reclaimed_bytes;
    uint64_t spared_files; /* left by `thin` so free runs stay below its LIMIT */
    uint64_t tree_blocks_freed; /* ext4 extent-tree blocks of the files `thin` deleted */
};

void replay_stats_count(struct replay_stats *stats, enum trace_op_kind kind,
                        op_status status);
void replay_stats_merge(struct replay_stats *into, const struct replay_stats *from);
uint64_t replay_stats_total_ops(const struct replay_stats *stats);

/* Writes `"ops":{...},"errors":{...},"errno":{...}` (every op name in both
 * op objects, zeros included; errno names in order of first occurrence). */
void replay_stats_write_json(FILE *out, const struct replay_stats *stats);

#endif
