#ifndef MOBIFRAG_ROOT_FILES_H
#define MOBIFRAG_ROOT_FILES_H

#include <stdbool.h>
#include <sys/types.h>

#include "op_status.h"

/* File system calls on trace paths, fenced beneath the replay root.
 *
 * Every path is resolved with openat2(RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS)
 * relative to the root's descriptor, so no symlink (absolute or relative),
 * bind of "..", or magic link can take a path outside the root; a path that
 * would leave it fails with OP_STATUS_ESCAPES_ROOT. Operations on a last
 * component that do not follow it (mkdir, unlink, rename) run relative to the
 * parent directory, itself opened beneath the root.
 *
 * On a kernel without openat2 (ENOSYS, or EPERM from a seccomp filter that
 * does not know it) the paths are walked one component at a time with
 * O_NOFOLLOW instead, and every symlink below the root is refused with
 * OP_STATUS_ESCAPES_ROOT; a one-line notice says so on stderr. */

enum open_intent {
    OPEN_EXISTING, /* the file must exist */
    OPEN_CREATE,   /* created (with missing parents) if missing */
    OPEN_TRUNCATE, /* created (with missing parents) or truncated to 0 */
};

/* Decides once whether openat2 works (opening the root itself with it) and
 * prints the notice if not. Optional: the first fenced call decides too. */
void root_files_probe(int root_fd);
/* True when paths are resolved with openat2 (after a probe or a call). */
bool root_files_have_openat2(void);
/* Tests: resolve every path with the component walk, as without openat2. */
void root_files_force_component_walk(bool on);

/* openat(root_fd, path, flags, mode) beneath the root. *fd gets the
 * descriptor on success. Returns OP_OK, an errno, or OP_STATUS_ESCAPES_ROOT. */
op_status root_open(int root_fd, const char *path, int flags, mode_t mode, int *fd);

/* Opens the directory holding path's last component beneath the root
 * (O_PATH) and points *name at that component within path. */
op_status root_open_parent(int root_fd, const char *path, int *dir_fd, const char **name);

/* unlinkat / renameat of paths beneath the root (flags as unlinkat's). */
op_status root_unlink(int root_fd, const char *path, int flags);
op_status root_rename(int root_fd, const char *from, const char *to);

/* Opens path read-write (a directory read-only, so it can be fsynced). */
op_status open_under_root(int root_fd, const char *path, enum open_intent intent, int *fd);

/* mkdir -p of the directories above path (not path itself). OP_OK or the
 * status of the first directory that could not be created. */
op_status make_parent_dirs(int root_fd, const char *path);

/* mkdir -p of path itself; an existing directory is fine. */
op_status make_dirs(int root_fd, const char *path);

#endif
