#include "ext4_reserve.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

/* /sys/fs/ext4/<name>/reserved_clusters of the block device dev. */
static bool knob_path(dev_t dev, char *path, size_t size)
{
    char link[64];
    snprintf(link, sizeof link, "/sys/dev/block/%u:%u", major(dev), minor(dev));
    char *device = realpath(link, NULL);
    if (!device)
        return false;
    const char *name = strrchr(device, '/');
    int n = snprintf(path, size, "/sys/fs/ext4/%s/reserved_clusters", name ? name + 1 : device);
    free(device);
    return n > 0 && (size_t)n < size;
}

static bool read_value(const char *path, uint64_t *value)
{
    FILE *knob = fopen(path, "r");
    if (!knob)
        return false;
    bool ok = fscanf(knob, "%" SCNu64, value) == 1;
    fclose(knob);
    return ok;
}

static bool write_value(const char *path, uint64_t value)
{
    FILE *knob = fopen(path, "w");
    if (!knob)
        return false;
    bool ok = fprintf(knob, "%" PRIu64 "\n", value) > 0;
    return fclose(knob) == 0 && ok;
}

bool ext4_reserve_lower(int fd, struct ext4_reserve *reserve)
{
    struct stat st;
    *reserve = (struct ext4_reserve){0};
    if (fstat(fd, &st) != 0 || !knob_path(st.st_dev, reserve->path, sizeof reserve->path))
        return false;
    if (!read_value(reserve->path, &reserve->saved) || !write_value(reserve->path, 0))
        return false;
    reserve->lowered = true;
    return true;
}

bool ext4_reserve_restore(struct ext4_reserve *reserve)
{
    if (!reserve->lowered)
        return true;
    reserve->lowered = false;
    return write_value(reserve->path, reserve->saved);
}
