#include "snapshot_tables.h"

#include <stdio.h>
#include <string.h>

#include "cli.h"

static void report(const char *action, const char *path, int negative_errno)
{
    fprintf(stderr, "%s fragcheck: cannot %s %s: %s\n", PROGRAM_NAME, action, path,
            strerror(-negative_errno));
}

bool snapshot_tables_open(struct snapshot_tables *tables,
                          const char *const paths[TABLE_COUNT])
{
    *tables = (struct snapshot_tables){0};
    for (int t = 0; t < TABLE_COUNT; t++) {
        if (!paths[t])
            continue;
        int status = atomic_output_open(&tables->table[t], paths[t]);
        if (status != 0) {
            report("create a temporary file for", paths[t], status);
            snapshot_tables_discard(tables);
            return false;
        }
        tables->wanted[t] = true;
    }
    return true;
}

size_t snapshot_tables_identities(const struct snapshot_tables *tables,
                                  struct file_identity out[TABLE_COUNT])
{
    size_t count = 0;
    for (int t = 0; t < TABLE_COUNT; t++)
        if (tables->wanted[t])
            out[count++] = (struct file_identity){tables->table[t].device,
                                                  tables->table[t].inode};
    return count;
}

static bool finish_all(struct snapshot_tables *tables)
{
    bool ok = true;
    for (int t = 0; t < TABLE_COUNT; t++) {
        if (!tables->wanted[t])
            continue;
        int status = atomic_output_finish(&tables->table[t]);
        if (status != 0) {
            report("write", tables->table[t].final_path, status);
            ok = false;
        }
    }
    return ok;
}

static bool publish_all(struct snapshot_tables *tables)
{
    bool ok = true;
    for (int t = 0; t < TABLE_COUNT; t++) {
        if (!tables->wanted[t])
            continue;
        int status = ok ? atomic_output_publish(&tables->table[t]) : 0;
        if (status != 0) {
            report("rename into place", tables->table[t].final_path, status);
            ok = false;
        }
        if (!ok)
            atomic_output_discard(&tables->table[t]);
        atomic_output_free(&tables->table[t]);
        tables->wanted[t] = false;
    }
    return ok;
}

bool snapshot_tables_commit(struct snapshot_tables *tables)
{
    if (!finish_all(tables)) {
        snapshot_tables_discard(tables);
        return false;
    }
    return publish_all(tables);
}

void snapshot_tables_discard(struct snapshot_tables *tables)
{
    for (int t = 0; t < TABLE_COUNT; t++) {
        if (!tables->wanted[t])
            continue;
        atomic_output_discard(&tables->table[t]);
        atomic_output_free(&tables->table[t]);
        tables->wanted[t] = false;
    }
}
