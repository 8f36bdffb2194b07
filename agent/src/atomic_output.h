#ifndef MOBIFRAG_ATOMIC_OUTPUT_H
#define MOBIFRAG_ATOMIC_OUTPUT_H

#include <stdio.h>
#include <sys/types.h>

/* An output table written to a hidden temp file next to its final path
 * (".NAME.tmp.XXXXXX") and renamed into place only when complete, so an
 * interrupted run never leaves a table that looks finished. */
struct atomic_output {
    char *final_path;
    char *temp_path;
    FILE *stream;
    dev_t device; /* identity of the temp file, so a walk can skip it */
    ino_t inode;
};

/* Each returns 0 or -errno. */
int atomic_output_open(struct atomic_output *out, const char *final_path);

/* Flushes, fsyncs and closes the temp file; nothing is renamed yet, so
 * several tables can be finished first and published together. */
int atomic_output_finish(struct atomic_output *out);

/* Renames the finished temp file onto the final path. */
int atomic_output_publish(struct atomic_output *out);

/* Closes (if open) and removes the temp file; the final path is untouched. */
void atomic_output_discard(struct atomic_output *out);

void atomic_output_free(struct atomic_output *out);

#endif
