#include "thin_op.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/fiemap.h>
#include <stdlib.h>
#include <unistd.h>

#include "fiemap_reader.h"
#include "free_runs.h"
#include "root_files.h"
#include "space_usage.h"
#include "victim_list.h"

struct mapping {
    struct free_runs *runs;
    size_t owner;
};

static int add_extent(const struct file_extent *extent, void *context)
{
    struct mapping *mapping = context;
    /* Inline data and extents with no known place take no blocks of their own. */
    if (extent->flags & (FIEMAP_EXTENT_DATA_INLINE | FIEMAP_EXTENT_UNKNOWN))
        return 0;
    return free_runs_add(mapping->runs, mapping->owner, extent->physical, extent->length)
               ? 0
               : -ENOMEM;
}

static op_status map_file(int root_fd, const char *path, struct mapping *mapping)
{
    int fd;
    op_status status = root_open(root_fd, path, O_RDONLY | O_NOFOLLOW, 0, &fd);
    if (status != OP_OK)
        return status;
    int mapped = fiemap_for_each(fd, FIEMAP_DEFAULT_BATCH, add_extent, mapping);
    close(fd);
    return mapped < 0 ? -mapped : OP_OK;
}

/* The extents of every candidate, owner = its place in the deletion order;
 * *unmapped[i] is set for a file whose extents could not be read. */
static op_status map_victims(int root_fd, const struct victim_list *victims,
                             struct free_runs *runs, bool *unmapped)
{
    op_status first_error = OP_OK;
    for (size_t i = 0; i < victims->count; i++) {
        struct mapping mapping = {.runs = runs, .owner = i};
        op_status status = map_file(root_fd, victims->items[i].path, &mapping);
        if (status == ENOMEM)
            return ENOMEM;
        if (status != OP_OK) {
            unmapped[i] = true;
            if (first_error == OP_OK)
                first_error = status;
        }
    }
    return free_runs_index(runs, victims->count) ? first_error : ENOMEM;
}

struct thinning {
    struct replay_context *context;
    const struct victim_list *victims;
    struct free_runs runs;
    bool *unmapped;
    uint64_t limit;
    size_t next; /* the next candidate in deletion order */
    op_status status;
};

static bool spared(struct thinning *thinning, size_t i)
{
    if (thinning->limit == 0)
        return false;
    return thinning->unmapped[i] ||
           free_runs_longest_if_freed(&thinning->runs, i) >= thinning->limit;
}

/* Deletes candidates from thinning->next on until bytes are freed. */
static void delete_some(struct thinning *thinning, uint64_t bytes)
{
    struct replay_context *context = thinning->context;
    uint64_t freed = 0;
    for (; thinning->next < thinning->victims->count && freed < bytes; thinning->next++) {
        size_t i = thinning->next;
        const struct victim *victim = &thinning->victims->items[i];
        if (spared(thinning, i)) {
            context->stats.spared_files++;
            continue;
        }
        handle_cache_forget(&context->handles, victim->path);
        op_status unlinked = root_unlink(context->root_fd, victim->path, 0);
        if (unlinked != OP_OK) {
            if (thinning->status == OP_OK)
                thinning->status = unlinked;
            continue;
        }
        if (thinning->limit)
            free_runs_free_owner(&thinning->runs, i);
        freed += victim->bytes;
        context->stats.reclaimed_files++;
        context->stats.reclaimed_bytes += victim->bytes;
    }
}

/* Bytes still to free for DIR's file system to be down to percent. */
static op_status bytes_above(int dir_fd, double percent, uint64_t *bytes)
{
    double used;
    op_status status = used_percent_of_fd(dir_fd, &used);
    *bytes = 0;
    if (status == OP_OK && used > percent)
        status = bytes_above_percent_of_fd(dir_fd, percent, bytes);
    return status;
}

static op_status thin_down(struct thinning *thinning, int dir_fd, double percent)
{
    for (;;) {
        uint64_t bytes;
        op_status status = bytes_above(dir_fd, percent, &bytes);
        if (status != OP_OK)
            return status;
        if (bytes == 0 || thinning->next == thinning->victims->count)
            return OP_OK;
        delete_some(thinning, bytes);
        if (thinning->next == thinning->victims->count)
            return OP_OK; /* nothing left to delete, so no need to measure again */
        if (syncfs(dir_fd) != 0)
            return errno;
    }
}

static op_status thin_victims(struct replay_context *context, const struct trace_op *op,
                              int dir_fd, const struct victim_list *victims)
{
    struct thinning thinning = {
        .context = context,
        .victims = victims,
        .limit = op->thin.limit,
        .unmapped = calloc(victims->count ? victims->count : 1, sizeof(bool)),
    };
    if (!thinning.unmapped)
        return ENOMEM;
    op_status status = OP_OK;
    if (thinning.limit)
        status = map_victims(context->root_fd, victims, &thinning.runs, thinning.unmapped);
    if (status != ENOMEM) {
        op_status thinned = thin_down(&thinning, dir_fd, op->thin.percent);
        status = status != OP_OK ? status : thinning.status != OP_OK ? thinning.status : thinned;
    }
    free_runs_release(&thinning.runs);
    free(thinning.unmapped);
    return status;
}

op_status replay_thin(struct replay_context *context, const struct trace_op *op)
{
    int dir_fd;
    op_status status =
        root_open(context->root_fd, op->path, O_RDONLY | O_DIRECTORY, 0, &dir_fd);
    if (status != OP_OK)
        return status;
    uint64_t bytes;
    status = bytes_above(dir_fd, op->thin.percent, &bytes);
    if (status == OP_OK && bytes > 0) {
        struct victim_list victims = {0};
        status = collect_victims(context->root_fd, op->path, op->thin.glob, &victims);
        if (status == OP_OK) {
            order_victims(&victims, op->thin.seed);
            status = thin_victims(context, op, dir_fd, &victims);
        }
        victim_list_free(&victims);
    }
    close(dir_fd);
    return status;
}
