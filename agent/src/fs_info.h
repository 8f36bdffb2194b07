#ifndef MOBIFRAG_FS_INFO_H
#define MOBIFRAG_FS_INFO_H

#include <stdint.h>
#include <stdio.h>

struct fs_info {
    char type[24];         /* "ext4", "f2fs", "tmpfs", "9p", ... or "0x<magic>" */
    uint64_t block_size;   /* bytes (statfs f_bsize) */
    uint64_t total_blocks; /* f_blocks */
    uint64_t free_blocks;  /* f_bfree: free, including blocks reserved for root */
    unsigned device_major;
    unsigned device_minor;
};

/* Returns 0 or -errno. */
int fs_info_of_path(const char *path, struct fs_info *info);

/* Same, for an open file: used to name the file system in error messages. */
int fs_info_of_fd(int fd, struct fs_info *info);

/* Writes the FS.tsv header and its one row. Returns EOF on a write error. */
int fs_info_write_table(FILE *out, const struct fs_info *info);

#endif
