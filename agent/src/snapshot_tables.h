#ifndef MOBIFRAG_SNAPSHOT_TABLES_H
#define MOBIFRAG_SNAPSHOT_TABLES_H

#include <stdbool.h>
#include <stddef.h>

#include "atomic_output.h"
#include "tree_walk.h"

enum snapshot_table { TABLE_FILES, TABLE_EXTENTS, TABLE_FS, TABLE_COUNT };

/* The two or three output tables of one fragcheck run; they are published
 * together, only after every one of them was written completely. */
struct snapshot_tables {
    struct atomic_output table[TABLE_COUNT];
    bool wanted[TABLE_COUNT];
};

/* paths[TABLE_FS] may be NULL (no FS table). Errors are reported on stderr;
 * returns false when a table cannot be created. */
bool snapshot_tables_open(struct snapshot_tables *tables,
                          const char *const paths[TABLE_COUNT]);

/* Identities of the temp files, for the walk to skip them. */
size_t snapshot_tables_identities(const struct snapshot_tables *tables,
                                  struct file_identity out[TABLE_COUNT]);

/* Finishes all tables and, if all succeeded, renames them into place;
 * otherwise removes every temp file. Reports errors; returns success. */
bool snapshot_tables_commit(struct snapshot_tables *tables);

void snapshot_tables_discard(struct snapshot_tables *tables);

#endif
