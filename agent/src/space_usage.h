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

#endif
