#include "space_ops.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "cli.h"
#include "content_io.h"
#include "ext4_reserve.h"
#include "root_files.h"
#include "space_usage.h"
#include "victim_list.h"

static op_status fill_until(struct replay_context *context, int fd,
                            const struct trace_op *op)
{
    struct stat st;
    if (fstat(fd, &st) != 0)
        return errno;
    uint64_t offset = (uint64_t)st.st_size;
    for (;;) {
        double used;
        op_status status = used_percent_of_fd(fd, &used);
        if (status != OP_OK || used >= op->fill.percent)
            return status;
        status = write_content(context, fd, op->path, offset, REPLAY_CHUNK);
        if (status != OP_OK)
            return status;
        offset += REPLAY_CHUNK;
    }
}

#define REST_STEP (64ull << 20) /* below ext4's longest unwritten extent (32767 blocks) */

/* fallocate from the end of fd while that still takes blocks. */
static op_status allocate_the_rest(int fd)
{
    for (;;) {
        struct statvfs fs;
        struct stat before, after;
        if (fstatvfs(fd, &fs) != 0 || fstat(fd, &before) != 0)
            return errno;
        uint64_t free_bytes = (uint64_t)fs.f_bfree * fs.f_frsize;
        if (free_bytes == 0)
            return OP_OK;
        uint64_t length = free_bytes < REST_STEP ? free_bytes : REST_STEP;
        if (fallocate(fd, 0, before.st_size, (off_t)length) != 0 && errno != ENOSPC)
            return errno;
        if (fstat(fd, &after) != 0)
            return errno;
        if (after.st_blocks <= before.st_blocks)
            return OP_OK; /* nothing more fits: the file system is full */
    }
}

/* A fill to 100 % leaves no free block: what the writes could not take
 * (ext4's reserved clusters, space preallocated to other files, the
 * last partial chunk) is allocated to the file with fallocate, which
 * allocates at once (no delayed allocation waits for metadata blocks), with
 * ext4's reserve lowered for the moment. */
static op_status take_the_rest(int fd)
{
    /* Writing the last chunks back can fail for want of blocks (delayed
     * allocation found none when it came to place them): the file system
     * holds what it could, a filler loses the rest, and fallocate still takes
     * every block left (a fill stopped here once left 2 % of a disk free). */
    if (fsync(fd) != 0 && errno != ENOSPC)
        return errno;
    struct ext4_reserve reserve;
    ext4_reserve_lower(fd, &reserve);
    op_status status = allocate_the_rest(fd);
    if (!ext4_reserve_restore(&reserve) && status == OP_OK)
        status = EIO;
    return status;
}

/* The fill's file when the writes before it left no block for a new
 * directory entry: ext4 keeps its reserved clusters from ordinary
 * allocations, so at 100 % the file is created with the reserve lowered for
 * the moment (creating it failed in 4 test-scale fill/delete fills of 42,
 * 2026-12-04, and the disk kept the whole 2 % reserve free). */
static int fill_file_fd(struct replay_context *context, const struct trace_op *op,
                        op_status *status)
{
    int fd = handle_cache_fd(&context->handles, op->path, OPEN_CREATE, status);
    if (fd >= 0 || *status != ENOSPC || op->fill.percent < 100.0)
        return fd;
    struct ext4_reserve reserve;
    ext4_reserve_lower(context->root_fd, &reserve);
    fd = handle_cache_fd(&context->handles, op->path, OPEN_CREATE, status);
    fprintf(stderr, "%s fill: creating %s found no space; %s with ext4's reserve lowered\n",
            PROGRAM_NAME, op->path, fd >= 0 ? "created it" : "it failed again");
    if (!ext4_reserve_restore(&reserve) && fd >= 0) {
        *status = EIO;
        return -1;
    }
    return fd;
}

op_status replay_fill(struct replay_context *context, const struct trace_op *op)
{
    op_status status = OP_OK;
    int fd = fill_file_fd(context, op, &status);
    if (fd < 0)
        return status;
    status = fill_until(context, fd, op);
    if (op->fill.percent >= 100.0 && (status == OP_OK || status == ENOSPC))
        status = take_the_rest(fd);
    op_status synced = fsync(fd) == 0 ? OP_OK : errno;
    return status != OP_OK ? status : synced;
}

static op_status delete_victims(struct replay_context *context,
                                const struct victim_list *victims, uint64_t bytes)
{
    op_status status = OP_OK;
    uint64_t freed = 0;
    for (size_t i = 0; i < victims->count && freed < bytes; i++) {
        const struct victim *victim = &victims->items[i];
        handle_cache_forget(&context->handles, victim->path);
        op_status unlinked = root_unlink(context->root_fd, victim->path, 0);
        if (unlinked != OP_OK) {
            status = unlinked;
            continue;
        }
        freed += victim->bytes;
        context->stats.reclaimed_files++;
        context->stats.reclaimed_bytes += victim->bytes;
    }
    return status;
}

/* How much reclaim frees: BYTES, or with BYTES 0 whatever brings the file
 * system down to PERCENT (0 when it is not above PERCENT). */
static op_status bytes_to_reclaim(int root_fd, const struct trace_op *op, uint64_t *bytes)
{
    int fd;
    op_status status = root_open(root_fd, op->path, O_RDONLY | O_DIRECTORY, 0, &fd);
    if (status != OP_OK)
        return status;
    double used;
    status = used_percent_of_fd(fd, &used);
    *bytes = 0;
    if (status == OP_OK && used > op->reclaim.percent) {
        if (op->reclaim.bytes > 0)
            *bytes = op->reclaim.bytes;
        else
            status = bytes_above_percent_of_fd(fd, op->reclaim.percent, bytes);
    }
    close(fd);
    return status;
}

op_status replay_reclaim(struct replay_context *context, const struct trace_op *op)
{
    const struct reclaim_args *args = &op->reclaim;
    uint64_t bytes;
    op_status status = bytes_to_reclaim(context->root_fd, op, &bytes);
    if (status != OP_OK || bytes == 0)
        return status;
    struct victim_list victims = {0};
    status = collect_victims(context->root_fd, op->path, args->glob, &victims);
    if (status == OP_OK) {
        order_victims(&victims, args->seed);
        status = delete_victims(context, &victims, bytes);
    }
    victim_list_free(&victims);
    return status;
}
