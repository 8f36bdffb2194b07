#include "fragbench.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "space_usage.h"

#define CONTENT_BYTE 0xa5

/* A file is named by its round and its index among all files created. */
struct live_files {
    uint64_t *ids; /* round << 32 | index */
    size_t count, capacity;
};

static char failed[4096];

static op_status fail(op_status status, const char *dir, uint64_t id)
{
    if (id == UINT64_MAX)
        snprintf(failed, sizeof failed, "%s", dir);
    else
        snprintf(failed, sizeof failed, "%s/r%02u-%08u", dir, (unsigned)(id >> 32),
                 (unsigned)(id & 0xffffffffu));
    return status;
}

static void file_name(uint64_t id, char *name, size_t size)
{
    snprintf(name, size, "r%02u-%08u", (unsigned)(id >> 32), (unsigned)(id & 0xffffffffu));
}

static bool remember(struct live_files *live, uint64_t id)
{
    if (live->count == live->capacity) {
        size_t capacity = live->capacity ? 2 * live->capacity : 4096;
        uint64_t *ids = realloc(live->ids, capacity * sizeof *ids);
        if (!ids)
            return false;
        live->ids = ids;
        live->capacity = capacity;
    }
    live->ids[live->count++] = id;
    return true;
}

/* Writes the whole file; ENOSPC leaves what was written and says so. */
static op_status write_whole(int dir_fd, const char *name, const unsigned char *data,
                             uint64_t size)
{
    int fd = openat(dir_fd, name, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0)
        return errno;
    op_status status = OP_OK;
    for (uint64_t done = 0; done < size && status == OP_OK;) {
        ssize_t n = write(fd, data + done, size - done);
        if (n < 0 && errno != EINTR)
            status = errno;
        else if (n > 0)
            done += (uint64_t)n;
    }
    if (close(fd) != 0 && status == OP_OK)
        status = errno;
    return status;
}

static bool round_full(op_status status)
{
    return status == ENOSPC || status == EDQUOT;
}

/* One round: files of `size` bytes until the fill is reached or the space runs out. */
static op_status fill_round(const struct fragbench_config *config, int dir_fd,
                            usage_probe probe, void *context, unsigned round, uint64_t size,
                            struct live_files *live, uint64_t *created)
{
    unsigned char *data = malloc(size ? size : 1);
    if (!data)
        return fail(ENOMEM, config->dir, UINT64_MAX);
    memset(data, CONTENT_BYTE, size);
    op_status status = OP_OK;
    for (;;) {
        double used;
        status = probe(dir_fd, context, &used);
        if (status != OP_OK) {
            fail(status, config->dir, UINT64_MAX);
            break;
        }
        if (used >= config->fill)
            break;
        uint64_t id = (uint64_t)round << 32 | *created;
        char name[32];
        file_name(id, name, sizeof name);
        status = write_whole(dir_fd, name, data, size);
        if (round_full(status)) {
            status = OP_OK;
            break;
        }
        if (status != OP_OK) {
            fail(status, config->dir, id);
            break;
        }
        if (!remember(live, id)) {
            status = fail(ENOMEM, config->dir, UINT64_MAX);
            break;
        }
        (*created)++;
    }
    free(data);
    return status;
}

/* Deletes the files of the round just filled (live positions from `first` on) at even
 * positions of the round and keeps the others, in order; earlier rounds' files stay. */
static op_status delete_every_other(const char *dir, int dir_fd, struct live_files *live,
                                    size_t first)
{
    size_t kept = first;
    for (size_t i = first; i < live->count; i++) {
        if ((i - first) % 2) {
            live->ids[kept++] = live->ids[i];
            continue;
        }
        char name[32];
        file_name(live->ids[i], name, sizeof name);
        if (unlinkat(dir_fd, name, 0) != 0)
            return fail(errno, dir, live->ids[i]);
    }
    live->count = kept;
    return OP_OK;
}

static op_status statvfs_probe(int dir_fd, void *context, double *percent)
{
    (void)context;
    return used_percent_of_fd(dir_fd, percent);
}

static op_status open_dir(const char *dir, int *dir_fd)
{
    if (mkdir(dir, 0755) != 0 && errno != EEXIST)
        return fail(errno, dir, UINT64_MAX);
    *dir_fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    return *dir_fd < 0 ? fail(errno, dir, UINT64_MAX) : OP_OK;
}

/* Each round, the last (`minimum`-byte files) included, fills, syncs, deletes every
 * other file it wrote and syncs (ARS sec. V.A steps (2)-(4), "until file size is 4 KB"):
 * the last round's deletions leave the holes of its size. */
static op_status age(const struct fragbench_config *config, int dir_fd, usage_probe probe,
                     void *context, struct fragbench_result *result, struct live_files *live)
{
    uint64_t size = config->start;
    for (;;) {
        size_t first = live->count;
        op_status status = fill_round(config, dir_fd, probe, context, result->rounds, size,
                                      live, &result->created);
        if (status != OP_OK)
            return status;
        sync();
        result->rounds++;
        status = delete_every_other(config->dir, dir_fd, live, first);
        if (status != OP_OK)
            return status;
        sync();
        if (size <= config->minimum)
            return OP_OK;
        size = size / 2 > config->minimum ? size / 2 : config->minimum;
    }
}

op_status fragbench_run_with(const struct fragbench_config *config, usage_probe probe,
                             void *context, struct fragbench_result *result,
                             const char **failed_path)
{
    *result = (struct fragbench_result){0};
    *failed_path = failed;
    int dir_fd = -1;
    op_status status = open_dir(config->dir, &dir_fd);
    if (status != OP_OK)
        return status;
    struct live_files live = {0};
    status = age(config, dir_fd, probe, context, result, &live);
    result->live = live.count;
    if (status == OP_OK) {
        status = probe(dir_fd, context, &result->used_percent);
        if (status != OP_OK)
            fail(status, config->dir, UINT64_MAX);
    }
    free(live.ids);
    close(dir_fd);
    return status;
}

op_status fragbench_run(const struct fragbench_config *config,
                        struct fragbench_result *result, const char **failed_path)
{
    return fragbench_run_with(config, statvfs_probe, NULL, result, failed_path);
}
