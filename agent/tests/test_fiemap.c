/* fiemap_for_each on real files in the scratch directory (ext4 on the
 * build host, whatever /tmp or $TMPDIR is elsewhere). */
#include <errno.h>
#include <fcntl.h>
#include <linux/fiemap.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "check.h"
#include "fiemap_reader.h"
#include "helpers.h"

#define MAX_RECORDED 4096
#define TMPFS_MAGIC_NUMBER 0x01021994

struct recorded_extents {
    struct file_extent extent[MAX_RECORDED];
    size_t count;
};

static int record_extent(const struct file_extent *extent, void *context)
{
    struct recorded_extents *recorded = context;
    if (recorded->count == MAX_RECORDED)
        return 1;
    recorded->extent[recorded->count++] = *extent;
    return 0;
}

static struct recorded_extents *map_path(const char *path, unsigned batch, int *status)
{
    struct recorded_extents *recorded = calloc(1, sizeof *recorded);
    int fd = open(path, O_RDONLY);
    *status = fd >= 0 && recorded ? fiemap_for_each(fd, batch, record_extent, recorded) : -EIO;
    if (fd >= 0)
        close(fd);
    return recorded;
}

static uint64_t total_length(const struct recorded_extents *recorded)
{
    uint64_t sum = 0;
    for (size_t i = 0; i < recorded->count; i++)
        sum += recorded->extent[i].length;
    return sum;
}

static uint64_t allocated_bytes(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 ? (uint64_t)st.st_blocks * 512 : 0;
}

static bool only_final_extent_is_last(const struct recorded_extents *recorded)
{
    for (size_t i = 0; i < recorded->count; i++) {
        bool last = recorded->extent[i].flags & FIEMAP_EXTENT_LAST;
        if (last != (i + 1 == recorded->count))
            return false;
    }
    return true;
}

static void written_file_extents_sum_to_allocated_size(void)
{
    const char *path = scratch_path("written");
    size_t size = 256 * 1024;
    char *data = malloc(size);
    memset(data, 'x', size);
    CHECK(write_file(path, data, size));
    free(data);
    int status;
    struct recorded_extents *recorded = map_path(path, FIEMAP_DEFAULT_BATCH, &status);
    CHECK_EQ(status, 0);
    CHECK(recorded->count >= 1);
    CHECK_EQ(recorded->extent[0].logical, 0);
    CHECK_EQ(total_length(recorded), allocated_bytes(path));
    CHECK_EQ(total_length(recorded), size);
    CHECK(only_final_extent_is_last(recorded));
    free(recorded);
}

static void delayed_allocation_is_synced_before_mapping(void)
{
    /* No fsync here: FIEMAP_FLAG_SYNC must flush, or ext4 reports delalloc. */
    const char *path = scratch_path("unsynced");
    int fd = open(path, O_WRONLY | O_CREAT, 0644);
    CHECK(fd >= 0 && write_at(fd, 0, 64 * 1024, 'u'));
    close(fd);
    int status;
    struct recorded_extents *recorded = map_path(path, FIEMAP_DEFAULT_BATCH, &status);
    CHECK_EQ(status, 0);
    CHECK_EQ(total_length(recorded), 64 * 1024);
    for (size_t i = 0; i < recorded->count; i++)
        CHECK(!(recorded->extent[i].flags & FIEMAP_EXTENT_DELALLOC));
    free(recorded);
}

static void sparse_file_has_extents_at_both_offsets(void)
{
    const char *path = scratch_path("sparse");
    int fd = open(path, O_WRONLY | O_CREAT, 0644);
    CHECK(fd >= 0 && write_at(fd, 0, 4096, 'a') && write_at(fd, 1 << 20, 4096, 'b'));
    CHECK(fsync(fd) == 0);
    close(fd);
    int status;
    struct recorded_extents *recorded = map_path(path, FIEMAP_DEFAULT_BATCH, &status);
    CHECK_EQ(status, 0);
    if (CHECK(recorded->count >= 2)) {
        CHECK_EQ(recorded->extent[0].logical, 0);
        CHECK_EQ(recorded->extent[recorded->count - 1].logical, 1 << 20);
        CHECK_EQ(recorded->extent[recorded->count - 1].length, 4096);
    }
    CHECK(only_final_extent_is_last(recorded));
    free(recorded);
}

static void empty_file_has_no_extents(void)
{
    const char *path = scratch_path("empty");
    CHECK(write_file(path, "", 0));
    int status;
    struct recorded_extents *recorded = map_path(path, FIEMAP_DEFAULT_BATCH, &status);
    CHECK_EQ(status, 0);
    CHECK_EQ(recorded->count, 0);
    free(recorded);
}

/* 300 separate blocks: with a batch of 7 the reader must issue ~43 ioctls
 * and resume each one after the last extent it saw. */
static void many_extents_are_read_across_batches(void)
{
    enum { BLOCKS = 300, STRIDE = 8192 };
    const char *path = scratch_path("holes");
    int fd = open(path, O_WRONLY | O_CREAT, 0644);
    bool written = fd >= 0;
    for (int i = 0; i < BLOCKS && written; i++)
        written = write_at(fd, (uint64_t)i * STRIDE, 4096, 'h');
    CHECK(written && fsync(fd) == 0);
    close(fd);
    int small_status, large_status;
    struct recorded_extents *small = map_path(path, 7, &small_status);
    struct recorded_extents *large = map_path(path, FIEMAP_DEFAULT_BATCH, &large_status);
    CHECK_EQ(small_status, 0);
    CHECK_EQ(large_status, 0);
    CHECK_EQ(small->count, BLOCKS);
    CHECK_EQ(large->count, BLOCKS);
    bool positions_ok = true;
    for (size_t i = 0; i < small->count && i < large->count; i++)
        positions_ok &= small->extent[i].logical == (uint64_t)i * STRIDE &&
                        small->extent[i].physical == large->extent[i].physical;
    CHECK(positions_ok);
    CHECK(only_final_extent_is_last(small));
    free(small);
    free(large);
}

static void tmpfs_reports_fiemap_unsupported(void)
{
    struct statfs fs;
    if (statfs("/dev/shm", &fs) != 0 || (unsigned long)fs.f_type != TMPFS_MAGIC_NUMBER) {
        test_skip("/dev/shm is not tmpfs");
        return;
    }
    char path[] = "/dev/shm/mobifrag-agent-test.XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0 && write_at(fd, 0, 100, 't'));
    struct recorded_extents recorded = {.count = 0};
    int status = fiemap_for_each(fd, 16, record_extent, &recorded);
    close(fd);
    unlink(path);
    if (status == 0) {
        test_skip("this kernel's tmpfs supports FIEMAP");
        return;
    }
    CHECK(status == -EOPNOTSUPP || status == -ENOTTY);
}

void register_fiemap_tests(void)
{
    test_register("fiemap: written file's extents sum to its allocated size",
                  written_file_extents_sum_to_allocated_size);
    test_register("fiemap: delayed allocation is synced before mapping",
                  delayed_allocation_is_synced_before_mapping);
    test_register("fiemap: sparse file has extents at both offsets",
                  sparse_file_has_extents_at_both_offsets);
    test_register("fiemap: empty file has no extents", empty_file_has_no_extents);
    test_register("fiemap: many extents are read across batches",
                  many_extents_are_read_across_batches);
    test_register("fiemap: tmpfs reports FIEMAP unsupported", tmpfs_reports_fiemap_unsupported);
}
