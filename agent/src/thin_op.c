#include "thin_op.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/fiemap.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include "cli.h"
#include "ext4_tree.h"
#include "fiemap_reader.h"
#include "free_runs.h"
#include "fs_free_space.h"
#include "handle_cache.h"
#include "root_files.h"
#include "space_usage.h"
#include "victim_list.h"

/* The extents of the candidate being judged (a buffer reused for each). */
struct extents {
    struct span *items;
    size_t count, capacity;
    size_t tree_blocks; /* of count, the extent tree's blocks */
};

static int add_extent(const struct file_extent *extent, void *context)
{
    struct extents *extents = context;
    /* Inline data and extents with no known place take no blocks of their own. */
    if (extent->length == 0 ||
        (extent->flags & (FIEMAP_EXTENT_DATA_INLINE | FIEMAP_EXTENT_UNKNOWN)))
        return 0;
    if (extents->count == extents->capacity) {
        size_t capacity = extents->capacity ? extents->capacity * 2 : 16;
        struct span *grown = realloc(extents->items, capacity * sizeof *grown);
        if (!grown)
            return -ENOMEM;
        extents->items = grown;
        extents->capacity = capacity;
    }
    extents->items[extents->count++] =
        (struct span){.start = extent->physical, .length = extent->length};
    return 0;
}

static int add_tree_block(uint64_t start, uint64_t length, void *context)
{
    struct file_extent block = {.physical = start, .length = length};
    ((struct extents *)context)->tree_blocks++;
    return add_extent(&block, context);
}

/* Reads the file's extents, and its extent tree's blocks where tree is open. */
static op_status map_file(int root_fd, const char *path, const struct ext4_tree_reader *tree,
                          struct extents *extents)
{
    int fd;
    extents->count = extents->tree_blocks = 0;
    op_status status = root_open(root_fd, path, O_RDONLY | O_NOFOLLOW, 0, &fd);
    if (status != OP_OK)
        return status;
    int mapped = fiemap_for_each(fd, FIEMAP_DEFAULT_BATCH, add_extent, extents);
    struct stat file;
    if (mapped == 0 && tree->device_fd >= 0)
        mapped = fstat(fd, &file) != 0 ? -errno
                                       : ext4_tree_for_each(tree, file.st_ino, add_tree_block,
                                                            extents);
    close(fd);
    return mapped < 0 ? -mapped : OP_OK;
}

struct thinning {
    struct replay_context *context;
    const struct victim_list *victims;
    uint64_t limit;
    struct free_runs runs;
    struct ext4_tree_reader tree; /* device_fd -1: tree blocks not readable */
    struct extents extents;
    size_t next; /* the next candidate in deletion order */
    op_status status;
};

static void note(struct thinning *thinning, op_status status)
{
    if (status != OP_OK && thinning->status == OP_OK)
        thinning->status = status;
}

/* ext4 keeps four extents in the inode; a file with more has tree blocks
 * that FIEMAP does not list, anywhere on the disk. Read from the device, they
 * are judged and freed with the file's data, so a free run that a deleted
 * file's leaf block joins is known; where the device cannot be read, one
 * block counts as part of the candidate's run, which covers only a leaf beside
 * its own data (docs/measurements.md, "The aged images' extent-tree blocks"). */
#define EXTENTS_IN_INODE 4u

static uint64_t tree_bytes(const struct thinning *thinning)
{
    bool unread = thinning->tree.device_fd < 0;
    return unread && thinning->extents.count > EXTENTS_IN_INODE ? thinning->runs.block_bytes
                                                                : 0;
}

/* Whether the candidate must stay: its extents (read into thinning->extents)
 * would make a free run of LIMIT bytes or more, or cannot be read. */
static bool spared(struct thinning *thinning, const char *path)
{
    if (thinning->limit == 0)
        return false;
    op_status mapped =
        map_file(thinning->context->root_fd, path, &thinning->tree, &thinning->extents);
    note(thinning, mapped);
    if (mapped != OP_OK)
        return true;
    uint64_t run = free_runs_longest_with(&thinning->runs, thinning->extents.items,
                                          thinning->extents.count);
    return run + tree_bytes(thinning) >= thinning->limit;
}

/* Deletes candidates from thinning->next on until bytes are freed. */
static op_status delete_some(struct thinning *thinning, uint64_t bytes)
{
    struct replay_context *context = thinning->context;
    uint64_t freed = 0;
    for (; thinning->next < thinning->victims->count && freed < bytes; thinning->next++) {
        const struct victim *victim = &thinning->victims->items[thinning->next];
        if (spared(thinning, victim->path)) {
            context->stats.spared_files++;
            continue;
        }
        handle_cache_forget(&context->handles, victim->path);
        op_status unlinked = root_unlink(context->root_fd, victim->path, 0);
        if (unlinked != OP_OK) {
            note(thinning, unlinked);
            continue;
        }
        if (thinning->limit &&
            !free_runs_free(&thinning->runs, thinning->extents.items, thinning->extents.count))
            return ENOMEM;
        freed += victim->bytes;
        context->stats.reclaimed_files++;
        context->stats.reclaimed_bytes += victim->bytes;
        context->stats.tree_blocks_freed += thinning->extents.tree_blocks;
    }
    return OP_OK;
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

/* Used blocks between two free extents that still count as joining them: a
 * small file's extent tree is one leaf block, allocated beside its data. In
 * the janusd aging at 70 %, three deleted files and the one used block between
 * them (no file's data) became a free run of 748 KiB against a limit of 512.
 * Fewer for a limit of a few blocks (free_runs_bridge_for). */
#define BRIDGE_BLOCKS 2u

/* Opens the extent-tree reader on a file system whose free space GETFSMAP
 * gave (ext4): without it, a candidate's tree block counts as part of its run. */
static op_status open_tree(struct thinning *thinning, int dir_fd)
{
    int opened = ext4_tree_open(&thinning->tree, dir_fd);
    if (opened == 1)
        fprintf(stderr, "%s thin: warning: the file system's block device cannot be read "
                        "as ext4: a file's extent-tree blocks are not placed, only counted\n",
                PROGRAM_NAME);
    return opened < 0 ? -opened : OP_OK;
}

/* Seeds thinning->runs with the free space already there. The thread's files
 * are closed first: ext4 hands an inode's unused preallocation back only when
 * its file is closed (or evicted), and a file written just before, the fill
 * that takes the last free blocks above all, would otherwise return blocks
 * beside the holes after the spared files were chosen. */
static op_status seed_free_space(struct thinning *thinning, int dir_fd)
{
    if (thinning->limit == 0)
        return OP_OK;
    struct statfs fs;
    if (fstatfs(dir_fd, &fs) != 0)
        return errno;
    thinning->runs.block_bytes = (uint64_t)fs.f_bsize;
    thinning->runs.bridge_blocks =
        free_runs_bridge_for(thinning->limit, thinning->runs.block_bytes, BRIDGE_BLOCKS);
    handle_cache_close_fds(&thinning->context->handles);
    if (syncfs(dir_fd) != 0)
        return errno;
    int seeded = free_runs_add_fs_free_space(&thinning->runs, dir_fd);
    if (seeded == 1)
        fprintf(stderr, "%s thin: warning: the file system's free space cannot be read "
                        "(no GETFSMAP, or not root): only the extents this op frees are joined\n",
                PROGRAM_NAME);
    return seeded < 0 ? -seeded : seeded == 0 ? open_tree(thinning, dir_fd) : OP_OK;
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
        status = delete_some(thinning, bytes);
        if (status != OP_OK)
            return status;
        if (thinning->next == thinning->victims->count)
            return OP_OK; /* nothing left to delete, so no need to measure again */
        if (syncfs(dir_fd) != 0)
            return errno;
    }
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
            struct thinning thinning = {.context = context,
                                        .victims = &victims,
                                        .limit = op->thin.limit,
                                        .tree = {.device_fd = -1}};
            status = seed_free_space(&thinning, dir_fd);
            if (status == OP_OK)
                status = thin_down(&thinning, dir_fd, op->thin.percent);
            if (status == OP_OK)
                status = thinning.status;
            free_runs_release(&thinning.runs);
            ext4_tree_close(&thinning.tree);
            free(thinning.extents.items);
        }
        victim_list_free(&victims);
    }
    close(dir_fd);
    return status;
}
