#include "free_runs.h"

#include <stdlib.h>

bool free_runs_add(struct free_runs *runs, size_t owner, uint64_t start, uint64_t length)
{
    if (runs->count == runs->capacity) {
        size_t capacity = runs->capacity ? runs->capacity * 2 : 256;
        struct free_piece *grown = realloc(runs->pieces, capacity * sizeof *grown);
        if (!grown)
            return false;
        runs->pieces = grown;
        runs->capacity = capacity;
    }
    runs->pieces[runs->count++] =
        (struct free_piece){.start = start, .length = length, .owner = owner};
    return true;
}

static int by_start(const void *a, const void *b)
{
    uint64_t x = ((const struct free_piece *)a)->start;
    uint64_t y = ((const struct free_piece *)b)->start;
    return (x > y) - (x < y);
}

bool free_runs_index(struct free_runs *runs, size_t owners)
{
    for (size_t i = 0; i < runs->count; i++)
        if (runs->pieces[i].owner >= owners)
            return false;
    qsort(runs->pieces, runs->count, sizeof *runs->pieces, by_start);
    runs->owners = owners;
    runs->owner_first = calloc(owners + 1, sizeof *runs->owner_first);
    runs->by_owner = malloc((runs->count ? runs->count : 1) * sizeof *runs->by_owner);
    if (!runs->owner_first || !runs->by_owner)
        return false;
    /* Counting sort of the piece indices by owner. */
    for (size_t i = 0; i < runs->count; i++)
        runs->owner_first[runs->pieces[i].owner + 1]++;
    for (size_t o = 0; o < owners; o++)
        runs->owner_first[o + 1] += runs->owner_first[o];
    size_t *next = malloc((owners ? owners : 1) * sizeof *next);
    if (!next)
        return false;
    for (size_t o = 0; o < owners; o++)
        next[o] = runs->owner_first[o];
    for (size_t i = 0; i < runs->count; i++)
        runs->by_owner[next[runs->pieces[i].owner]++] = i;
    free(next);
    return true;
}

static bool touching(const struct free_piece *left, const struct free_piece *right)
{
    return left->start + left->length == right->start;
}

/* Bytes of the run of freed, touching pieces through piece i (freed itself). */
static uint64_t run_through(const struct free_runs *runs, size_t i)
{
    uint64_t bytes = runs->pieces[i].length;
    for (size_t j = i; j > 0 && runs->pieces[j - 1].freed &&
                       touching(&runs->pieces[j - 1], &runs->pieces[j]);
         j--)
        bytes += runs->pieces[j - 1].length;
    for (size_t j = i; j + 1 < runs->count && runs->pieces[j + 1].freed &&
                       touching(&runs->pieces[j], &runs->pieces[j + 1]);
         j++)
        bytes += runs->pieces[j + 1].length;
    return bytes;
}

static void mark_owner(struct free_runs *runs, size_t owner, bool freed)
{
    for (size_t k = runs->owner_first[owner]; k < runs->owner_first[owner + 1]; k++)
        runs->pieces[runs->by_owner[k]].freed = freed;
}

uint64_t free_runs_longest_if_freed(struct free_runs *runs, size_t owner)
{
    if (owner >= runs->owners)
        return 0;
    bool was_freed = runs->owner_first[owner] < runs->owner_first[owner + 1] &&
                     runs->pieces[runs->by_owner[runs->owner_first[owner]]].freed;
    mark_owner(runs, owner, true);
    uint64_t longest = 0;
    for (size_t k = runs->owner_first[owner]; k < runs->owner_first[owner + 1]; k++) {
        uint64_t bytes = run_through(runs, runs->by_owner[k]);
        if (bytes > longest)
            longest = bytes;
    }
    mark_owner(runs, owner, was_freed);
    return longest;
}

void free_runs_free_owner(struct free_runs *runs, size_t owner)
{
    if (owner < runs->owners)
        mark_owner(runs, owner, true);
}

void free_runs_release(struct free_runs *runs)
{
    free(runs->pieces);
    free(runs->owner_first);
    free(runs->by_owner);
    *runs = (struct free_runs){0};
}
