#ifndef MOBIFRAG_FRAGBENCH_H
#define MOBIFRAG_FRAGBENCH_H

#include <stdint.h>

#include "op_status.h"

/* ARS's fragmentation benchmark (ARS sec. V.A): files of `start` bytes fill the
 * file system to `fill` percent, every other file of the round is deleted, the
 * size halves, and the fill repeats until a round of `minimum`-byte files has
 * been filled and thinned too. A round deletes only its own files: thinning
 * every live file each round would leave the file system about half empty
 * after the last round, not at the paper's High (84 % used). Files are
 * <dir>/r<round>-<index> (two and eight digits), written whole with one byte
 * value; ENOSPC ends a round early. */
struct fragbench_config {
    const char *dir;   /* created if missing; its file system is the one aged */
    double fill;       /* percent used, as df(1) counts it */
    uint64_t start;    /* bytes of the first round's files */
    uint64_t minimum;  /* bytes of the last round's files */
};

struct fragbench_result {
    unsigned rounds;
    uint64_t created;
    uint64_t live;
    double used_percent; /* after the last round's deletions */
};

/* Used space in percent of the file system holding fd; the benchmark asks
 * before every file. Replaceable so tests can model a file system. */
typedef op_status (*usage_probe)(int dir_fd, void *context, double *percent);

/* Runs the benchmark with the file system's own usage (fstatvfs). On failure
 * *failed_path names the file or directory (static storage). */
op_status fragbench_run(const struct fragbench_config *config,
                        struct fragbench_result *result, const char **failed_path);

/* The same with another usage probe. */
op_status fragbench_run_with(const struct fragbench_config *config, usage_probe probe,
                             void *context, struct fragbench_result *result,
                             const char **failed_path);

#endif
