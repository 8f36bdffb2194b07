#include "fiemap_reader.h"

#include <errno.h>
#include <linux/fiemap.h>
#include <linux/fs.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>

static struct fiemap *new_request(unsigned batch)
{
    size_t size = sizeof(struct fiemap) + (size_t)batch * sizeof(struct fiemap_extent);
    struct fiemap *request = malloc(size);
    if (request)
        memset(request, 0, size);
    return request;
}

static int query(int fd, struct fiemap *request, unsigned batch, uint64_t start)
{
    request->fm_start = start;
    request->fm_length = FIEMAP_MAX_OFFSET - start;
    request->fm_flags = FIEMAP_FLAG_SYNC;
    request->fm_extent_count = batch;
    request->fm_mapped_extents = 0;
    return ioctl(fd, FS_IOC_FIEMAP, request) == 0 ? 0 : -errno;
}

static struct file_extent to_file_extent(const struct fiemap_extent *raw)
{
    return (struct file_extent){
        .logical = raw->fe_logical,
        .physical = raw->fe_physical,
        .length = raw->fe_length,
        .flags = raw->fe_flags,
    };
}

/* Visits one batch; sets *last when the kernel marked the final extent and
 * *next to the logical offset the following query must start from. */
static int visit_batch(const struct fiemap *request, extent_visitor visit,
                       void *context, uint64_t *next, bool *last)
{
    for (unsigned i = 0; i < request->fm_mapped_extents; i++) {
        const struct fiemap_extent *raw = &request->fm_extents[i];
        struct file_extent extent = to_file_extent(raw);
        int status = visit(&extent, context);
        if (status != 0)
            return status;
        *next = raw->fe_logical + raw->fe_length;
        if (raw->fe_flags & FIEMAP_EXTENT_LAST)
            *last = true;
    }
    return 0;
}

int fiemap_for_each(int fd, unsigned batch, extent_visitor visit, void *context)
{
    if (batch == 0)
        return -EINVAL;
    struct fiemap *request = new_request(batch);
    if (!request)
        return -ENOMEM;
    uint64_t start = 0;
    bool last = false;
    int status = 0;
    while (!last && status == 0 && start < FIEMAP_MAX_OFFSET) {
        status = query(fd, request, batch, start);
        if (status != 0 || request->fm_mapped_extents == 0)
            break; /* error, or no extent after start: the file is done */
        uint64_t next = start;
        status = visit_batch(request, visit, context, &next, &last);
        if (status == 0 && !last && next <= start)
            status = -EIO; /* a kernel that does not advance would loop forever */
        start = next;
    }
    free(request);
    return status;
}

static const struct {
    uint32_t bit;
    const char *name;
} flag_names[] = {
    {FIEMAP_EXTENT_LAST, "last"},
    {FIEMAP_EXTENT_UNKNOWN, "unknown"},
    {FIEMAP_EXTENT_DELALLOC, "delalloc"},
    {FIEMAP_EXTENT_ENCODED, "encoded"},
    {FIEMAP_EXTENT_DATA_ENCRYPTED, "encrypted"},
    {FIEMAP_EXTENT_NOT_ALIGNED, "not_aligned"},
    {FIEMAP_EXTENT_DATA_INLINE, "inline"},
    {FIEMAP_EXTENT_DATA_TAIL, "tail"},
    {FIEMAP_EXTENT_UNWRITTEN, "unwritten"},
    {FIEMAP_EXTENT_MERGED, "merged"},
    {FIEMAP_EXTENT_SHARED, "shared"},
};

static void append_name(char *out, size_t size, size_t *used, const char *name)
{
    int n = snprintf(out + *used, size - *used, "%s%s", *used ? "," : "", name);
    if (n > 0)
        *used = *used + (size_t)n < size ? *used + (size_t)n : size - 1;
}

const char *fiemap_flag_names(uint32_t flags, char *out, size_t size)
{
    size_t used = 0;
    out[0] = '\0';
    for (size_t i = 0; i < sizeof flag_names / sizeof flag_names[0]; i++)
        if (flags & flag_names[i].bit) {
            append_name(out, size, &used, flag_names[i].name);
            flags &= ~flag_names[i].bit;
        }
    if (flags) {
        char unnamed[16];
        snprintf(unnamed, sizeof unnamed, "0x%x", (unsigned)flags);
        append_name(out, size, &used, unnamed);
    }
    if (used == 0)
        snprintf(out, size, "-");
    return out;
}
