#ifndef MOBIFRAG_REPLAY_CONTEXT_H
#define MOBIFRAG_REPLAY_CONTEXT_H

#include <stddef.h>
#include <stdint.h>

#include "handle_cache.h"
#include "replay_stats.h"

/* Everything one replay thread's operations work with. */
struct replay_context {
    int root_fd;
    const char *root_path;
    uint64_t seed; /* of the written content */
    struct handle_cache handles;
    struct replay_stats stats;
    uint8_t *buffer;
    size_t buffer_size;
};

#define REPLAY_CHUNK (1u << 20) /* bytes per write/read call of big operations */

/* The thread's scratch buffer, grown to at least size; NULL when out of memory. */
uint8_t *replay_buffer(struct replay_context *context, size_t size);

void replay_context_init(struct replay_context *context, int root_fd,
                         const char *root_path, uint64_t seed, size_t max_open_fds,
                         struct file_marker *marker);

/* Closes every handle and frees the buffer; the stats stay. */
void replay_context_finish(struct replay_context *context);

#endif
