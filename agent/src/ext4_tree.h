#ifndef MOBIFRAG_EXT4_TREE_H
#define MOBIFRAG_EXT4_TREE_H

#include <stdint.h>

/* The blocks of an ext4 file's extent tree (index and leaf blocks above the
 * four extents the inode holds), which FIEMAP does not list: read from the
 * file system's block device, where a deleted file's tree blocks become free
 * space beside whatever lies there. */
struct ext4_tree_reader {
    int device_fd;
    uint64_t block_bytes, inodes_per_group, inode_bytes, desc_bytes, desc_table;
};

/* Opens the block device under the file system holding fs_fd and reads its
 * geometry. Returns 0; 1 when there is none to read (not ext4, no device node
 * to open, a layout this reader does not know: meta_bg, bigalloc); -errno
 * otherwise. */
int ext4_tree_open(struct ext4_tree_reader *reader, int fs_fd);

/* The same on an open device or image (tests), which the reader then owns. */
int ext4_tree_open_device(struct ext4_tree_reader *reader, int device_fd);

void ext4_tree_close(struct ext4_tree_reader *reader);

/* Called with each tree block (bytes on the device); a non-zero return stops
 * the walk and is handed back by ext4_tree_for_each. */
typedef int (*tree_block_visitor)(uint64_t start, uint64_t length, void *context);

/* Visits the tree blocks of inode `ino`: none for a tree held in the inode,
 * nor for an inode without an extent tree (inline data; a block map, whose
 * indirect blocks this reader does not list). Returns 0, the visitor's value,
 * -EIO for inode 0 or a node that is not an extent-tree node, or -errno of a
 * read. */
int ext4_tree_for_each(const struct ext4_tree_reader *reader, uint64_t ino,
                       tree_block_visitor visit, void *context);

#endif
