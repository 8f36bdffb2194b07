#include "space_ops.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <fcntl.h>
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
static op_status allocate_with_reserve_lowered(int fd)
{
    struct ext4_reserve reserve;
    ext4_reserve_lower(fd, &reserve);
    op_status status = allocate_the_rest(fd);
    if (!ext4_reserve_restore(&reserve) && status == OP_OK)
        status = EIO;
    return status;
}

/* Passes of take_the_rest: a writeback stops at its first failure, so each
 * failed one may leave pages for the next. */
#define REST_PASSES 64

/* Writing the last chunks back can fail for want of blocks (delayed allocation
 * found none when it came to place them): ext4 drops those pages and only then
 * frees the clusters it had reserved for them, which the free count hid until
 * then. So every pass writes back first and allocates what is free after it,
 * until a writeback succeeds: a fill that allocated before a later writeback
 * failed left ext4's 2 % reserve free, in runs of up to 124 KiB (a test-scale
 * fill, one run of seven, 2026-12-04). */
static op_status take_the_rest(int fd)
{
    op_status status = ENOSPC; /* the writeback never succeeded: blocks may be left free */
    int pass = 1;
    for (; pass <= REST_PASSES; pass++) {
        bool written_back = fsync(fd) == 0;
        if (!written_back && errno != ENOSPC)
            return errno;
        op_status allocated = allocate_with_reserve_lowered(fd);
        if (allocated != OP_OK || written_back) {
            status = allocated;
            break;
        }
    }
    if (pass > 1)
        fprintf(stderr, "%s fill: writing the last chunks back found no space %d times; "
                        "what each failure freed was allocated after it\n",
                PROGRAM_NAME, pass > REST_PASSES ? REST_PASSES : pass - 1);
    return status;
}

op_status replay_fill(struct replay_context *context, const struct trace_op *op)
{
    op_status status = OP_OK;
    int fd = handle_cache_fd(&context->handles, op->path, OPEN_CREATE, &status);
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
