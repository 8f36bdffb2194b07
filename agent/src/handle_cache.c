#include "handle_cache.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "file_marker.h"
#include "path_hash.h"
#include "sql_connection.h"

#define INITIAL_SLOTS 64

void handle_cache_init(struct handle_cache *cache, int root_fd, const char *root_path,
                       size_t max_open_fds, struct file_marker *marker)
{
    *cache = (struct handle_cache){.root_fd = root_fd, .root_path = root_path,
                                   .max_open_fds = max_open_fds ? max_open_fds : 1,
                                   .marker = marker};
}

static struct handle **find_slot(struct handle **slots, size_t slot_count, const char *path)
{
    size_t mask = slot_count - 1;
    for (size_t i = path_hash(path) & mask;; i = (i + 1) & mask)
        if (!slots[i] || strcmp(slots[i]->path, path) == 0)
            return &slots[i];
}

static bool grow_slots(struct handle_cache *cache)
{
    size_t count = cache->slot_count ? cache->slot_count * 2 : INITIAL_SLOTS;
    struct handle **slots = calloc(count, sizeof *slots);
    if (!slots)
        return false;
    for (size_t i = 0; i < cache->slot_count; i++)
        if (cache->slots[i])
            *find_slot(slots, count, cache->slots[i]->path) = cache->slots[i];
    free(cache->slots);
    cache->slots = slots;
    cache->slot_count = count;
    return true;
}

static struct handle *new_handle(const char *path)
{
    struct handle *handle = calloc(1, sizeof *handle);
    if (handle && !(handle->path = strdup(path))) {
        free(handle);
        return NULL;
    }
    if (handle)
        handle->fd = -1;
    return handle;
}

struct handle *handle_cache_entry(struct handle_cache *cache, const char *path)
{
    if ((cache->entries + 1) * 4 > cache->slot_count * 3 && !grow_slots(cache))
        return NULL;
    struct handle **slot = find_slot(cache->slots, cache->slot_count, path);
    if (!*slot && (*slot = new_handle(path)) != NULL)
        cache->entries++;
    return *slot;
}

static void close_fd(struct handle_cache *cache, struct handle *handle)
{
    if (handle->fd < 0)
        return;
    close(handle->fd); /* the replay's own syscalls report errors; close is cleanup */
    handle->fd = -1;
    struct handle *last = cache->open[--cache->open_count];
    cache->open[handle->open_index] = last;
    last->open_index = handle->open_index;
}

static void evict_least_recently_used(struct handle_cache *cache)
{
    struct handle *oldest = cache->open[0];
    for (size_t i = 1; i < cache->open_count; i++)
        if (cache->open[i]->last_used < oldest->last_used)
            oldest = cache->open[i];
    close_fd(cache, oldest);
}

static bool remember_open(struct handle_cache *cache, struct handle *handle, int fd)
{
    if (!cache->open) {
        cache->open = calloc(cache->max_open_fds, sizeof *cache->open);
        if (!cache->open)
            return false;
    }
    if (cache->open_count == cache->max_open_fds)
        evict_least_recently_used(cache);
    handle->fd = fd;
    handle->open_index = cache->open_count;
    cache->open[cache->open_count++] = handle;
    return true;
}

static int open_handle(struct handle_cache *cache, struct handle *handle,
                       enum open_intent intent, op_status *status)
{
    int fd;
    *status = open_under_root(cache->root_fd, handle->path, intent, &fd);
    if (*status != OP_OK)
        return -1;
    if (intent != OPEN_EXISTING)
        file_marker_mark_fd(cache->marker, fd, handle->path);
    if (!remember_open(cache, handle, fd)) {
        close(fd);
        *status = ENOMEM;
        return -1;
    }
    return fd;
}

int handle_cache_fd(struct handle_cache *cache, const char *path,
                    enum open_intent intent, op_status *status)
{
    struct handle *handle = handle_cache_entry(cache, path);
    if (!handle) {
        *status = ENOMEM;
        return -1;
    }
    handle->last_used = ++cache->clock;
    if (intent == OPEN_TRUNCATE)
        close_fd(cache, handle);
    if (handle->fd >= 0)
        return handle->fd;
    return open_handle(cache, handle, intent, status);
}

void handle_cache_forget(struct handle_cache *cache, const char *path)
{
    if (!cache->slot_count)
        return;
    struct handle *handle = *find_slot(cache->slots, cache->slot_count, path);
    if (!handle)
        return;
    close_fd(cache, handle);
    sql_connection_close(handle->sql);
    handle->sql = NULL;
}

void handle_cache_close_fds(struct handle_cache *cache)
{
    while (cache->open_count > 0)
        close_fd(cache, cache->open[cache->open_count - 1]);
}

void handle_cache_close_all(struct handle_cache *cache)
{
    for (size_t i = 0; i < cache->slot_count; i++) {
        struct handle *handle = cache->slots[i];
        if (!handle)
            continue;
        close_fd(cache, handle);
        sql_connection_close(handle->sql);
        free(handle->path);
        free(handle);
    }
    free(cache->slots);
    free(cache->open);
    *cache = (struct handle_cache){0};
}
