#ifndef MOBIFRAG_EXT4_RESERVE_H
#define MOBIFRAG_EXT4_RESERVE_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>

/* ext4 holds back "reserved clusters" from ordinary allocations (2 % of the
 * file system, at most 4096 clusters; fs/ext4/super.c ext4_set_resv_clusters)
 * so delayed allocation can always find metadata blocks. A file system filled
 * until ENOSPC keeps them free, wherever they lie. The knob is
 * /sys/fs/ext4/<disk>/reserved_clusters (fs/ext4/sysfs.c); the mount sets it
 * again. */
struct ext4_reserve {
    char path[PATH_MAX];
    uint64_t saved;
    bool lowered;
};

/* Sets the reserve of the ext4 file system holding fd to 0, remembering the
 * value; false (nothing changed) when there is no such knob (another file
 * system, no sysfs) or it cannot be written. */
bool ext4_reserve_lower(int fd, struct ext4_reserve *reserve);

/* Puts back the value ext4_reserve_lower found; false if that failed. */
bool ext4_reserve_restore(struct ext4_reserve *reserve);

#endif
