#ifndef MOBIFRAG_TREE_WALK_H
#define MOBIFRAG_TREE_WALK_H

#include <stddef.h>
#include <sys/types.h>

struct file_identity {
    dev_t device;
    ino_t inode;
};

struct path_list {
    char **paths; /* relative to the walk's root, sorted bytewise */
    size_t count;
    size_t capacity;
    size_t skipped; /* entries that vanished or could not be read */
};

/* Collects every regular file under root without following symlinks or
 * leaving root's file system, except files in `ignore` (our own temp
 * tables). Problems with single entries are warnings on stderr; returns 0,
 * or -errno when the walk itself fails. Not reentrant (nftw has no context). */
int walk_regular_files(const char *root, const struct file_identity *ignore,
                       size_t ignore_count, struct path_list *out);

void path_list_free(struct path_list *list);

#endif
