#ifndef MOBIFRAG_FREE_RUNS_H
#define MOBIFRAG_FREE_RUNS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The physical extents of a set of files ("owners", numbered 0..n-1) and
 * which of them have been freed, so that deleting one more file can be
 * judged by the free run it would make: freed extents that touch (one ends
 * where the next begins) form one contiguous run of free space. Only the
 * listed extents are known; space freed otherwise is not seen. */
struct free_piece {
    uint64_t start, length; /* bytes on the device */
    size_t owner;
    bool freed;
};

struct free_runs {
    struct free_piece *pieces; /* by start once indexed */
    size_t count, capacity;
    size_t owners;
    size_t *owner_first; /* owners + 1 offsets into by_owner */
    size_t *by_owner;    /* piece indices grouped by owner */
};

/* Records one extent of owner (owner < owners given to free_runs_index);
 * false when out of memory. */
bool free_runs_add(struct free_runs *runs, size_t owner, uint64_t start, uint64_t length);

/* Sorts the pieces by start and groups them by owner; call once, after the
 * last add. False when out of memory or when a piece names an owner past
 * owners. */
bool free_runs_index(struct free_runs *runs, size_t owners);

/* The longest free run (bytes) any extent of owner would belong to if owner
 * were freed now; 0 when owner has no extent. */
uint64_t free_runs_longest_if_freed(struct free_runs *runs, size_t owner);

/* Marks every extent of owner freed. */
void free_runs_free_owner(struct free_runs *runs, size_t owner);

void free_runs_release(struct free_runs *runs);

#endif
