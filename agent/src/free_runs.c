#include "free_runs.h"

#include <stdlib.h>

static size_t slot_of(uint64_t key, size_t capacity)
{
    key *= 0x9e3779b97f4a7c15ULL; /* Fibonacci hashing; capacity is a power of two */
    return (size_t)(key >> 32) & (capacity - 1);
}

static bool map_get(const struct span_map *map, uint64_t key, uint64_t *length)
{
    if (map->capacity == 0)
        return false;
    for (size_t i = slot_of(key, map->capacity);; i = (i + 1) & (map->capacity - 1)) {
        if (map->keys[i] == 0)
            return false;
        if (map->keys[i] == key + 1) {
            *length = map->lengths[i];
            return true;
        }
    }
}

static void map_put_unchecked(struct span_map *map, uint64_t key, uint64_t length)
{
    size_t i = slot_of(key, map->capacity);
    while (map->keys[i] != 0 && map->keys[i] != key + 1)
        i = (i + 1) & (map->capacity - 1);
    if (map->keys[i] == 0)
        map->count++;
    map->keys[i] = key + 1;
    map->lengths[i] = length;
}

static bool map_grow(struct span_map *map)
{
    size_t capacity = map->capacity ? map->capacity * 2 : 1024;
    struct span_map grown = {
        .keys = calloc(capacity, sizeof(uint64_t)),
        .lengths = calloc(capacity, sizeof(uint64_t)),
        .capacity = capacity,
    };
    if (!grown.keys || !grown.lengths) {
        free(grown.keys);
        free(grown.lengths);
        return false;
    }
    for (size_t i = 0; i < map->capacity; i++)
        if (map->keys[i])
            map_put_unchecked(&grown, map->keys[i] - 1, map->lengths[i]);
    free(map->keys);
    free(map->lengths);
    *map = grown;
    return true;
}

static bool map_put(struct span_map *map, uint64_t key, uint64_t length)
{
    if ((map->count + 1) * 2 > map->capacity && !map_grow(map))
        return false; /* kept at most half full */
    map_put_unchecked(map, key, length);
    return true;
}

/* The length of a freed or candidate extent ending at (by_end) or starting
 * at (!by_end) offset. */
static bool touching(const struct free_runs *runs, const struct span *extents, size_t count,
                     uint64_t offset, bool by_end, uint64_t *length)
{
    if (map_get(by_end ? &runs->by_end : &runs->by_start, offset, length))
        return true;
    for (size_t i = 0; i < count; i++) {
        const struct span *e = &extents[i];
        if ((by_end ? e->start + e->length : e->start) == offset) {
            *length = e->length;
            return true;
        }
    }
    return false;
}

/* A freed or candidate extent ending at (by_end) or starting at (!by_end)
 * offset, or up to runs->bridge_blocks blocks short of it; *gap is the bytes
 * between. */
static bool near(const struct free_runs *runs, const struct span *extents, size_t count,
                 uint64_t offset, bool by_end, uint64_t *length, uint64_t *gap)
{
    for (uint64_t blocks = 0; blocks <= runs->bridge_blocks; blocks++) {
        *gap = blocks * runs->block_bytes;
        if (by_end && *gap > offset)
            return false;
        uint64_t at = by_end ? offset - *gap : offset + *gap;
        if (touching(runs, extents, count, at, by_end, length))
            return true;
    }
    return false;
}

static uint64_t run_through(const struct free_runs *runs, const struct span *extents,
                            size_t count, const struct span *extent)
{
    uint64_t bytes = extent->length, length, gap;
    for (uint64_t at = extent->start;
         at > 0 && near(runs, extents, count, at, true, &length, &gap) && length + gap <= at;
         at -= length + gap)
        bytes += length + gap;
    for (uint64_t at = extent->start + extent->length;
         near(runs, extents, count, at, false, &length, &gap); at += length + gap)
        bytes += length + gap;
    return bytes;
}

uint64_t free_runs_bridge_for(uint64_t limit, uint64_t block_bytes, uint64_t max_blocks)
{
    uint64_t eighth = block_bytes ? limit / block_bytes / 8 : 0;
    return eighth < max_blocks ? eighth : max_blocks;
}

uint64_t free_runs_longest_with(const struct free_runs *runs, const struct span *extents,
                                size_t count)
{
    uint64_t longest = 0;
    for (size_t i = 0; i < count; i++) {
        uint64_t bytes = run_through(runs, extents, count, &extents[i]);
        if (bytes > longest)
            longest = bytes;
    }
    return longest;
}

bool free_runs_free(struct free_runs *runs, const struct span *extents, size_t count)
{
    for (size_t i = 0; i < count; i++) {
        const struct span *e = &extents[i];
        if (!map_put(&runs->by_start, e->start, e->length) ||
            !map_put(&runs->by_end, e->start + e->length, e->length))
            return false;
    }
    return true;
}

static void map_release(struct span_map *map)
{
    free(map->keys);
    free(map->lengths);
    *map = (struct span_map){0};
}

void free_runs_release(struct free_runs *runs)
{
    map_release(&runs->by_start);
    map_release(&runs->by_end);
}
