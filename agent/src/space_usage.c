#include "space_usage.h"

#include <errno.h>
#include <sys/statvfs.h>

double used_percent(uint64_t blocks, uint64_t free_blocks, uint64_t available_blocks)
{
    uint64_t used = blocks > free_blocks ? blocks - free_blocks : 0;
    uint64_t usable = used + available_blocks;
    return usable ? 100.0 * (double)used / (double)usable : 0.0;
}

op_status used_percent_of_fd(int fd, double *percent)
{
    struct statvfs fs;
    if (fstatvfs(fd, &fs) != 0)
        return errno;
    *percent = used_percent(fs.f_blocks, fs.f_bfree, fs.f_bavail);
    return OP_OK;
}

uint64_t bytes_above_percent(uint64_t blocks, uint64_t free_blocks, uint64_t available_blocks,
                             uint64_t block_size, double percent)
{
    uint64_t used = blocks > free_blocks ? blocks - free_blocks : 0;
    double allowed = percent / 100.0 * (double)(used + available_blocks);
    return (double)used > allowed ? (uint64_t)(((double)used - allowed) * (double)block_size) : 0;
}

op_status bytes_above_percent_of_fd(int fd, double percent, uint64_t *bytes)
{
    struct statvfs fs;
    if (fstatvfs(fd, &fs) != 0)
        return errno;
    *bytes = bytes_above_percent(fs.f_blocks, fs.f_bfree, fs.f_bavail, fs.f_frsize, percent);
    return OP_OK;
}
