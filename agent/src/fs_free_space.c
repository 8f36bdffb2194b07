#include "fs_free_space.h"

#include <errno.h>
#include <limits.h>
#include <linux/fsmap.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>

#define RECORDS_PER_CALL 128u

static bool cannot_ask(int error)
{
    return error == ENOTTY || error == EOPNOTSUPP || error == EPERM || error == EACCES;
}

static int add_free_records(struct free_runs *runs, const struct fsmap_head *head)
{
    for (unsigned i = 0; i < head->fmh_entries; i++) {
        const struct fsmap *record = &head->fmh_recs[i];
        if (record->fmr_owner != FMR_OWN_FREE || record->fmr_length == 0)
            continue;
        struct span free = {.start = record->fmr_physical, .length = record->fmr_length};
        if (!free_runs_free(runs, &free, 1))
            return -ENOMEM;
    }
    return 0;
}

static bool ends_the_map(const struct fsmap_head *head)
{
    return head->fmh_entries == 0 ||
           (head->fmh_recs[head->fmh_entries - 1].fmr_flags & FMR_OF_LAST);
}

int free_runs_add_fs_free_space(struct free_runs *runs, int fd)
{
    struct fsmap_head *head = calloc(1, fsmap_sizeof(RECORDS_PER_CALL));
    if (!head)
        return -ENOMEM;
    head->fmh_count = RECORDS_PER_CALL;
    struct fsmap *high = &head->fmh_keys[1];
    high->fmr_device = UINT_MAX;
    high->fmr_flags = UINT_MAX;
    high->fmr_physical = high->fmr_owner = high->fmr_offset = ULLONG_MAX;
    int status = 0;
    for (bool first = true;; first = false) {
        if (ioctl(fd, FS_IOC_GETFSMAP, head) != 0) {
            status = first && cannot_ask(errno) ? 1 : -errno;
            break;
        }
        if ((status = add_free_records(runs, head)) != 0 || ends_the_map(head))
            break;
        fsmap_advance(head);
    }
    free(head);
    return status;
}
