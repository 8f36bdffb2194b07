#ifndef MOBIFRAG_ROOT_FILES_H
#define MOBIFRAG_ROOT_FILES_H

/* File system calls on paths relative to the replay root's descriptor. */

enum open_intent {
    OPEN_EXISTING, /* the file must exist */
    OPEN_CREATE,   /* created (with missing parents) if missing */
    OPEN_TRUNCATE, /* created (with missing parents) or truncated to 0 */
};

/* Opens path read-write (a directory read-only, so it can be fsynced).
 * Returns the descriptor or -errno. */
int open_under_root(int root_fd, const char *path, enum open_intent intent);

/* mkdir -p of the directories above path (not path itself). Returns 0 or
 * errno of the first directory that could not be created. */
int make_parent_dirs(int root_fd, const char *path);

/* mkdir -p of path itself; an existing directory is fine. 0 or errno. */
int make_dirs(int root_fd, const char *path);

#endif
