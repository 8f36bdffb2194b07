#include "ext4_tree.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

/* On-disk offsets and values of fs/ext4/ext4.h and ext4_extents.h. */
#define SUPERBLOCK_OFFSET 1024
#define SUPERBLOCK_BYTES 1024
#define SB_FIRST_DATA_BLOCK 20
#define SB_LOG_BLOCK_SIZE 24
#define SB_INODES_PER_GROUP 40
#define SB_MAGIC 56
#define SB_REV_LEVEL 76
#define SB_INODE_SIZE 88
#define SB_FEATURE_INCOMPAT 96
#define SB_FEATURE_RO_COMPAT 100
#define SB_DESC_SIZE 254
#define EXT4_MAGIC 0xEF53u
#define INCOMPAT_META_BG 0x10u
#define INCOMPAT_64BIT 0x80u
#define RO_COMPAT_BIGALLOC 0x200u
#define GOOD_OLD_INODE_BYTES 128u
#define DESC_INODE_TABLE_LO 8
#define DESC_INODE_TABLE_HI 40
#define INODE_FLAGS 32
#define INODE_BLOCK 40
#define INODE_BLOCK_BYTES 60u
#define EXTENTS_FLAG 0x80000u
#define EXTENT_MAGIC 0xF30Au
#define EXTENT_HEADER_BYTES 12u
#define EXTENT_ENTRY_BYTES 12u
#define MAX_DEPTH 5u /* the kernel's own bound (EXT4_MAX_EXTENT_DEPTH) */

static uint16_t le16(const unsigned char *bytes)
{
    return (uint16_t)(bytes[0] | bytes[1] << 8);
}

static uint32_t le32(const unsigned char *bytes)
{
    return (uint32_t)le16(bytes) | (uint32_t)le16(bytes + 2) << 16;
}

static int read_at(int fd, void *buffer, size_t size, uint64_t offset)
{
    ssize_t got = pread(fd, buffer, size, (off_t)offset);
    if (got < 0)
        return -errno;
    return (size_t)got == size ? 0 : -EIO;
}

/* Geometry from the superblock; 1 for a layout this reader does not know. */
static int read_geometry(struct ext4_tree_reader *reader)
{
    unsigned char sb[SUPERBLOCK_BYTES];
    int status = read_at(reader->device_fd, sb, sizeof sb, SUPERBLOCK_OFFSET);
    if (status != 0)
        return status == -EIO ? 1 : status;
    uint32_t log_block = le32(sb + SB_LOG_BLOCK_SIZE);
    uint32_t incompat = le32(sb + SB_FEATURE_INCOMPAT);
    if (le16(sb + SB_MAGIC) != EXT4_MAGIC || log_block > 6 ||
        (incompat & INCOMPAT_META_BG) || (le32(sb + SB_FEATURE_RO_COMPAT) & RO_COMPAT_BIGALLOC))
        return 1;
    reader->block_bytes = 1024u << log_block;
    reader->inodes_per_group = le32(sb + SB_INODES_PER_GROUP);
    reader->inode_bytes =
        le32(sb + SB_REV_LEVEL) == 0 ? GOOD_OLD_INODE_BYTES : le16(sb + SB_INODE_SIZE);
    reader->desc_bytes = (incompat & INCOMPAT_64BIT) ? le16(sb + SB_DESC_SIZE) : 32;
    reader->desc_table = (le32(sb + SB_FIRST_DATA_BLOCK) + 1) * reader->block_bytes;
    if (reader->inodes_per_group == 0 || reader->inode_bytes < GOOD_OLD_INODE_BYTES ||
        reader->desc_bytes < 32)
        return 1;
    return 0;
}

int ext4_tree_open_device(struct ext4_tree_reader *reader, int device_fd)
{
    reader->device_fd = device_fd;
    int status = read_geometry(reader);
    if (status != 0) {
        close(device_fd);
        reader->device_fd = -1;
    }
    return status;
}

/* The device node of dev: udev and devtmpfs name it /dev/NAME, Android
 * /dev/block/NAME, with NAME from sysfs. */
static int open_device_of(dev_t dev)
{
    char path[96], line[128], name[64] = "";
    snprintf(path, sizeof path, "/sys/dev/block/%u:%u/uevent", major(dev), minor(dev));
    FILE *uevent = fopen(path, "re");
    if (!uevent)
        return -1;
    while (fgets(line, sizeof line, uevent))
        if (sscanf(line, "DEVNAME=%63s", name) == 1)
            break;
    fclose(uevent);
    static const char *const folders[] = {"/dev/", "/dev/block/"};
    for (size_t i = 0; name[0] && i < sizeof folders / sizeof *folders; i++) {
        snprintf(path, sizeof path, "%s%s", folders[i], name);
        struct stat node;
        if (stat(path, &node) == 0 && S_ISBLK(node.st_mode) && node.st_rdev == dev)
            return open(path, O_RDONLY | O_CLOEXEC);
    }
    return -1;
}

int ext4_tree_open(struct ext4_tree_reader *reader, int fs_fd)
{
    struct stat fs;
    reader->device_fd = -1;
    if (fstat(fs_fd, &fs) != 0)
        return -errno;
    int device_fd = open_device_of(fs.st_dev);
    return device_fd < 0 ? 1 : ext4_tree_open_device(reader, device_fd);
}

void ext4_tree_close(struct ext4_tree_reader *reader)
{
    if (reader->device_fd >= 0)
        close(reader->device_fd);
    reader->device_fd = -1;
}

/* The inode's i_block; 1 when it holds no extent tree. */
static int read_inode_root(const struct ext4_tree_reader *reader, uint64_t ino,
                           unsigned char root[INODE_BLOCK_BYTES])
{
    if (ino == 0)
        return -EIO;
    uint64_t group = (ino - 1) / reader->inodes_per_group;
    uint64_t index = (ino - 1) % reader->inodes_per_group;
    unsigned char desc[64];
    size_t desc_read = reader->desc_bytes < sizeof desc ? reader->desc_bytes : sizeof desc;
    int status = read_at(reader->device_fd, desc, desc_read,
                         reader->desc_table + group * reader->desc_bytes);
    if (status != 0)
        return status;
    uint64_t table = le32(desc + DESC_INODE_TABLE_LO);
    if (reader->desc_bytes >= 64)
        table |= (uint64_t)le32(desc + DESC_INODE_TABLE_HI) << 32;
    unsigned char head[INODE_BLOCK + INODE_BLOCK_BYTES];
    status = read_at(reader->device_fd, head, sizeof head,
                     table * reader->block_bytes + index * reader->inode_bytes);
    if (status != 0)
        return status;
    if (!(le32(head + INODE_FLAGS) & EXTENTS_FLAG))
        return 1;
    memcpy(root, head + INODE_BLOCK, INODE_BLOCK_BYTES);
    return 0;
}

/* Visits the blocks below a node (header + entries in node, `bytes` long)
 * whose depth the header gives; `depth_above` guards against a loop. */
static int walk(const struct ext4_tree_reader *reader, const unsigned char *node, size_t bytes,
                unsigned depth_above, tree_block_visitor visit, void *context)
{
    uint16_t entries = le16(node + 2), depth = le16(node + 6);
    if (le16(node) != EXTENT_MAGIC || depth + depth_above > MAX_DEPTH ||
        EXTENT_HEADER_BYTES + (size_t)entries * EXTENT_ENTRY_BYTES > bytes)
        return -EIO;
    if (depth == 0)
        return 0;
    unsigned char *child = malloc(reader->block_bytes);
    if (!child)
        return -ENOMEM;
    int status = 0;
    for (uint16_t i = 0; status == 0 && i < entries; i++) {
        const unsigned char *entry = node + EXTENT_HEADER_BYTES + i * EXTENT_ENTRY_BYTES;
        uint64_t block = le32(entry + 4) | (uint64_t)le16(entry + 8) << 32;
        uint64_t start = block * reader->block_bytes;
        status = visit(start, reader->block_bytes, context);
        if (status == 0)
            status = read_at(reader->device_fd, child, reader->block_bytes, start);
        if (status == 0)
            status = walk(reader, child, reader->block_bytes, depth_above + 1, visit, context);
    }
    free(child);
    return status;
}

int ext4_tree_for_each(const struct ext4_tree_reader *reader, uint64_t ino,
                       tree_block_visitor visit, void *context)
{
    unsigned char root[INODE_BLOCK_BYTES];
    int status = read_inode_root(reader, ino, root);
    if (status == 1)
        return 0; /* inline data or a block map: no extent tree */
    return status != 0 ? status : walk(reader, root, sizeof root, 0, visit, context);
}
