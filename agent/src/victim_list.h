#ifndef MOBIFRAG_VICTIM_LIST_H
#define MOBIFRAG_VICTIM_LIST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "op_status.h"

/* Candidate files of a `reclaim`. */
struct victim {
    char *path;     /* relative to the replay root */
    uint64_t bytes; /* allocated (st_blocks * 512): what deleting it frees */
};

struct victim_list {
    struct victim *items;
    size_t count, capacity;
};

/* Adds a copy of path; false when out of memory. */
bool victim_list_add(struct victim_list *list, const char *path, uint64_t bytes);

/* Every regular file below dir (relative to root_fd; recursive, symlinks
 * not followed, unreadable subdirectories skipped) whose base name matches
 * the fnmatch pattern glob. Returns OP_OK or the errno of opening dir. */
op_status collect_victims(int root_fd, const char *dir, const char *glob,
                          struct victim_list *out);

/* Deletion order: sorted bytewise by path (so directory order does not
 * matter), then a Fisher-Yates shuffle driven by splitmix64(seed). */
void order_victims(struct victim_list *list, uint64_t seed);

void victim_list_free(struct victim_list *list);

#endif
