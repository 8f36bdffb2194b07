#ifndef MOBIFRAG_FILE_SNAPSHOT_H
#define MOBIFRAG_FILE_SNAPSHOT_H

#include <stdint.h>
#include <stdio.h>

struct snapshot_output {
    FILE *files;   /* FILES.tsv stream */
    FILE *extents; /* EXTENTS.tsv stream */
    unsigned fiemap_batch;
    uint64_t files_written;
    uint64_t extents_written;
    uint64_t skipped;
};

int snapshot_write_headers(struct snapshot_output *out);

/* Maps one regular file (path relative to the directory root_fd) and adds
 * its rows. Returns an exit status: EXIT_OK (also when the file vanished
 * and was skipped with a warning), EXIT_FIEMAP_UNSUPPORTED, or
 * EXIT_FAILURE_GENERIC; errors are reported on stderr. */
int snapshot_file(struct snapshot_output *out, int root_fd, const char *path);

#endif
