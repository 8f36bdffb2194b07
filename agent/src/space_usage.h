#ifndef MOBIFRAG_SPACE_USAGE_H
#define MOBIFRAG_SPACE_USAGE_H

#include <stdint.h>

#include "op_status.h"

/* Used space in percent as df(1) shows it: used / (used + available to
 * unprivileged users), with used = blocks - free. Blocks reserved for root
 * count as neither, so 100 % is reached when ordinary writes stop. A file
 * system reporting no blocks is 0 % used. */
double used_percent(uint64_t blocks, uint64_t free_blocks, uint64_t available_blocks);

/* used_percent of the file system holding fd (fstatvfs). */
op_status used_percent_of_fd(int fd, double *percent);

/* Bytes to free for the used share (as used_percent computes it) to drop to
 * percent; 0 when it is already there. */
uint64_t bytes_above_percent(uint64_t blocks, uint64_t free_blocks, uint64_t available_blocks,
                             uint64_t block_size, double percent);

/* bytes_above_percent of the file system holding fd (fstatvfs). */
op_status bytes_above_percent_of_fd(int fd, double percent, uint64_t *bytes);

#endif
