#ifndef MOBIFRAG_PREALLOC_VFS_H
#define MOBIFRAG_PREALLOC_VFS_H

#include <stdint.h>

/* The space-preallocation treatment of TMC §6.1.1 for SQLite files: a VFS
 * shim over SQLite's default VFS that, before a write would grow a database,
 * journal or WAL file past the space reserved for it, reserves another `unit`
 * bytes (as many units as the write needs) with
 * fallocate(FALLOC_FL_KEEP_SIZE), exactly as `append --prealloc` does. The
 * file size stays what SQLite wrote; unused reserved blocks stay allocated
 * past EOF (the "wasted" space of TMC Fig. 16). A truncation releases what
 * lies past the new size, so reservation starts again from there.
 *
 * Registers the shim as SQLite's default VFS; unit 0 registers nothing.
 * Call once, before any connection opens. Returns an SQLite result code. */
int prealloc_vfs_register(uint64_t unit);

#endif
