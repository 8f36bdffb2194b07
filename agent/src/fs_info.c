#include "fs_info.h"

#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>

/* Magic numbers from linux/magic.h, spelled out because not every
 * toolchain's kernel headers know F2FS or 9p. */
static const struct {
    unsigned long magic;
    const char *name;
} known_types[] = {
    {0xef53UL, "ext4"}, /* ext2/3/4 share the magic; today's kernels drive all with ext4 */
    {0xf2f52010UL, "f2fs"},
    {0x01021994UL, "tmpfs"},
    {0x01021997UL, "9p"},
    {0x9123683eUL, "btrfs"},
    {0x58465342UL, "xfs"},
    {0x794c7630UL, "overlayfs"},
    {0x4d44UL, "vfat"},
    {0x2011bab0UL, "exfat"},
    {0x858458f6UL, "ramfs"},
    {0x65735546UL, "fuse"},
    {0x6969UL, "nfs"},
};

static void name_type(unsigned long magic, char *out, size_t size)
{
    for (size_t i = 0; i < sizeof known_types / sizeof known_types[0]; i++)
        if (known_types[i].magic == magic) {
            snprintf(out, size, "%s", known_types[i].name);
            return;
        }
    snprintf(out, size, "0x%lx", magic);
}

static void fill(struct fs_info *info, const struct statfs *fs, const struct stat *st)
{
    /* f_type is signed on some ABIs; the magic is a 32-bit pattern. */
    name_type((unsigned long)(uint32_t)fs->f_type, info->type, sizeof info->type);
    info->block_size = (uint64_t)fs->f_bsize;
    info->total_blocks = (uint64_t)fs->f_blocks;
    info->free_blocks = (uint64_t)fs->f_bfree;
    info->device_major = major(st->st_dev);
    info->device_minor = minor(st->st_dev);
}

int fs_info_of_path(const char *path, struct fs_info *info)
{
    struct statfs fs;
    struct stat st;
    if (statfs(path, &fs) != 0 || stat(path, &st) != 0)
        return -errno;
    fill(info, &fs, &st);
    return 0;
}

int fs_info_of_fd(int fd, struct fs_info *info)
{
    struct statfs fs;
    struct stat st;
    if (fstatfs(fd, &fs) != 0 || fstat(fd, &st) != 0)
        return -errno;
    fill(info, &fs, &st);
    return 0;
}

int fs_info_write_table(FILE *out, const struct fs_info *info)
{
    int n = fprintf(out, "fs_type\tblock_size\ttotal_blocks\tfree_blocks\tdevice\n"
                         "%s\t%llu\t%llu\t%llu\t%u:%u\n",
                    info->type, (unsigned long long)info->block_size,
                    (unsigned long long)info->total_blocks,
                    (unsigned long long)info->free_blocks, info->device_major,
                    info->device_minor);
    return n < 0 ? EOF : 0;
}
