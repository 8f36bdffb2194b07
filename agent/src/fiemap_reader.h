#ifndef MOBIFRAG_FIEMAP_READER_H
#define MOBIFRAG_FIEMAP_READER_H

#include <stddef.h>
#include <stdint.h>

struct file_extent {
    uint64_t logical;  /* byte offset in the file */
    uint64_t physical; /* byte offset on the device */
    uint64_t length;   /* bytes */
    uint32_t flags;    /* FIEMAP_EXTENT_* */
};

/* Called once per extent, in FIEMAP order; a non-zero return stops the walk
 * and is handed back by fiemap_for_each. */
typedef int (*extent_visitor)(const struct file_extent *extent, void *context);

#define FIEMAP_DEFAULT_BATCH 512u

/* Maps the whole file (FIEMAP_FLAG_SYNC first, so delayed allocation is
 * resolved), asking the kernel for `batch` extents per ioctl until the last
 * one. Returns 0, the visitor's non-zero value, or -errno of the ioctl
 * (-EOPNOTSUPP or -ENOTTY: the file system has no FIEMAP). */
int fiemap_for_each(int fd, unsigned batch, extent_visitor visit, void *context);

/* Writes the comma-separated flag names ("last,unwritten"; "-" when none;
 * unnamed bits as 0x...) into out; returns out. */
const char *fiemap_flag_names(uint32_t flags, char *out, size_t size);

#define FIEMAP_FLAG_NAMES_MAX 160

#endif
