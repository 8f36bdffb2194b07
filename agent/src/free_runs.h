#ifndef MOBIFRAG_FREE_RUNS_H
#define MOBIFRAG_FREE_RUNS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Extents freed so far, so that freeing more can be judged by the free run
 * it would make: freed extents that touch (one ends where the next begins)
 * form one contiguous run of free space. Only extents given here are known;
 * space freed otherwise is not seen. */
struct span {
    uint64_t start, length; /* bytes on the device */
};

/* Open-addressed map of an extent's one end to its length (0 = empty slot;
 * keys are stored plus one so that offset 0 is a key too). */
struct span_map {
    uint64_t *keys, *lengths;
    size_t capacity, count;
};

/* bridge_blocks: used blocks of block_bytes each that may lie between two
 * free extents and still join them into one run (0: only extents that touch).
 * A deleted file frees blocks FIEMAP does not list, the blocks of its extent
 * tree above all, and those sit beside its data. */
struct free_runs {
    struct span_map by_start, by_end;
    uint64_t bridge_blocks, block_bytes;
};

/* The used blocks a bridge may span for runs limited to `limit` bytes: up to
 * max_blocks, and at most an eighth of the limit, so that a limit of a few
 * blocks (fill/delete's, scaled to a 1 GiB disk: 16 KiB) is not reached by
 * bridging alone: there, two bridged blocks spared nearly every candidate
 * (Moderate stopped at 82.7 % used against its 75 %). */
uint64_t free_runs_bridge_for(uint64_t limit, uint64_t block_bytes, uint64_t max_blocks);

/* The longest free run (bytes) any of the extents would belong to if they
 * were freed now, together with the freed ones; 0 when there are none. */
uint64_t free_runs_longest_with(const struct free_runs *runs, const struct span *extents,
                                size_t count);

/* Records the extents as freed; false when out of memory. */
bool free_runs_free(struct free_runs *runs, const struct span *extents, size_t count);

void free_runs_release(struct free_runs *runs);

#endif
