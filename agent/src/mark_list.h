#ifndef MOBIFRAG_MARK_LIST_H
#define MOBIFRAG_MARK_LIST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* The set of paths of a `replay --mark-list` file: one path per line,
 * relative to the replay root and escaped as PATH in a trace line
 * (traces/FORMAT.md); empty lines are skipped. Paths are compared after
 * normalising away "." components and repeated or trailing slashes, so
 * "./db//x.db" and "db/x.db" are the same file. */
struct mark_list {
    char **slots; /* open addressing on path_hash, NULL = free */
    size_t slot_count, count;
};

#define MARK_LIST_MAX_REPORTED_ERRORS 20

/* Reads file into *list. Returns 0 when every line is a valid path, the
 * number of malformed lines otherwise (the first
 * MARK_LIST_MAX_REPORTED_ERRORS reported on `errors` as "FILE:LINE: message";
 * the list is then empty), or -errno when the file cannot be read. */
long mark_list_load(const char *file, struct mark_list *list, FILE *errors);

/* Whether path (relative to the root, unescaped) is in the list. */
bool mark_list_contains(const struct mark_list *list, const char *path);

void mark_list_free(struct mark_list *list);

#endif
