#ifndef MOBIFRAG_PREALLOC_VFS_H
#define MOBIFRAG_PREALLOC_VFS_H

#include <stdint.h>

struct file_marker;

/* The space-preallocation treatment of TMC §6.1.1 for SQLite files: a VFS
 * shim over SQLite's default VFS that, before a write would grow a database,
 * journal or WAL file past the space reserved for it, reserves another `unit`
 * bytes (as many units as the write needs) with
 * fallocate(FALLOC_FL_KEEP_SIZE), exactly as `append --prealloc` does. The
 * file size stays what SQLite wrote; unused reserved blocks stay allocated
 * past EOF (the "wasted" space of TMC Fig. 16). A truncation releases what
 * lies past the new size, so reservation starts again from there.
 *
 * The same shim serves `replay --mark-list`: when file_marker is not NULL,
 * every named file SQLite opens with SQLITE_OPEN_CREATE (database, journal,
 * WAL) goes through file_marker_mark_name right after it is opened, before
 * SQLite writes to it.
 *
 * Registers the shim as SQLite's default VFS; unit 0 without a marker
 * registers nothing (unit 0 with a marker only marks). Call once, before any
 * connection opens. Returns an SQLite result code. */
int prealloc_vfs_register(uint64_t unit, struct file_marker *file_marker);

#endif
