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
