#ifndef MOBIFRAG_FILE_MARKER_H
#define MOBIFRAG_FILE_MARKER_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "mark_list.h"

#define FILE_MARKER_DEFAULT_XATTR "user.ars"

/* `replay --mark-list`: gives every file the replay creates whose path
 * (relative to the root) is listed an xattr (value "1"), right after
 * creating it and before anything is written, so a file the workload
 * deletes and recreates keeps the mark ARS reserves space by. Shared by all
 * replay threads and the SQLite VFS shim; the counters are atomic. */
struct file_marker {
    struct mark_list list;
    const char *xattr;
    char *real_root;     /* realpath of the root */
    char *absolute_root; /* the root as given, made absolute (not resolved) */
    atomic_uint_fast64_t set;    /* files given the xattr */
    atomic_uint_fast64_t errors; /* files the xattr could not be set on */
    atomic_bool error_printed;
};

/* Takes ownership of list. Returns 0 or errno (the root cannot be resolved). */
int file_marker_init(struct file_marker *marker, struct mark_list *list, const char *xattr,
                     const char *root);

/* The descriptor fd was just opened with O_CREAT under relative: if the path
 * is listed and the file does not carry the xattr yet, set it. A failure is
 * counted (and the first one printed on stderr), never returned. */
void file_marker_mark_fd(struct file_marker *marker, int fd, const char *relative);

/* As file_marker_mark_fd for a file named by an absolute path (SQLite's
 * names); a path outside the root is never listed. */
void file_marker_mark_name(struct file_marker *marker, const char *absolute);

uint64_t file_marker_set_count(const struct file_marker *marker);
uint64_t file_marker_error_count(const struct file_marker *marker);

void file_marker_free(struct file_marker *marker);

#endif
