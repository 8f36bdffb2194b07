#ifndef MOBIFRAG_FS_FREE_SPACE_H
#define MOBIFRAG_FS_FREE_SPACE_H

#include "free_runs.h"

/* Adds every free extent of the file system holding fd, as the kernel's
 * GETFSMAP reports it (ext4; root only), to runs, so that a run judged later
 * counts the free space that was there before, not only the extents freed
 * since. Returns 0; 1 when the file system or the caller cannot ask
 * (no GETFSMAP: F2FS, tmpfs; not root), runs unchanged; -errno otherwise. */
int free_runs_add_fs_free_space(struct free_runs *runs, int fd);

#endif
