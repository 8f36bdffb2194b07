#include "victim_list.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "root_files.h"

bool victim_list_add(struct victim_list *list, const char *path, uint64_t bytes)
{
    if (list->count == list->capacity) {
        size_t capacity = list->capacity ? list->capacity * 2 : 64;
        struct victim *grown = realloc(list->items, capacity * sizeof *grown);
        if (!grown)
            return false;
        list->items = grown;
        list->capacity = capacity;
    }
    char *copy = strdup(path);
    if (!copy)
        return false;
    list->items[list->count++] = (struct victim){.path = copy, .bytes = bytes};
    return true;
}

struct collector {
    int root_fd;
    const char *glob;
    struct victim_list *out;
};

static void collect_dir(struct collector *collector, const char *dir);

static void visit_entry(struct collector *collector, const char *dir, int dir_fd,
                        const char *name)
{
    struct stat st;
    if (fstatat(dir_fd, name, &st, AT_SYMLINK_NOFOLLOW) != 0)
        return; /* vanished meanwhile */
    char *path;
    if (asprintf(&path, "%s/%s", dir, name) < 0)
        return;
    if (S_ISDIR(st.st_mode))
        collect_dir(collector, path);
    else if (S_ISREG(st.st_mode) && fnmatch(collector->glob, name, 0) == 0)
        victim_list_add(collector->out, path, (uint64_t)st.st_blocks * 512u);
    free(path);
}

static bool is_dot_or_dot_dot(const char *name)
{
    return strcmp(name, ".") == 0 || strcmp(name, "..") == 0;
}

static void collect_dir(struct collector *collector, const char *dir)
{
    int fd = -1;
    if (root_open(collector->root_fd, dir, O_RDONLY | O_DIRECTORY, 0, &fd) != OP_OK)
        return; /* vanished, unreadable, or outside the root */
    DIR *stream = fdopendir(fd);
    if (!stream) {
        if (fd >= 0)
            close(fd);
        return;
    }
    struct dirent *entry;
    while ((entry = readdir(stream)))
        if (!is_dot_or_dot_dot(entry->d_name))
            visit_entry(collector, dir, dirfd(stream), entry->d_name);
    closedir(stream);
}

op_status collect_victims(int root_fd, const char *dir, const char *glob,
                          struct victim_list *out)
{
    int fd;
    op_status status = root_open(root_fd, dir, O_PATH | O_DIRECTORY, 0, &fd);
    if (status != OP_OK)
        return status;
    close(fd);
    struct collector collector = {.root_fd = root_fd, .glob = glob, .out = out};
    collect_dir(&collector, dir);
    return OP_OK;
}

static int by_path(const void *a, const void *b)
{
    return strcmp(((const struct victim *)a)->path, ((const struct victim *)b)->path);
}

static uint64_t splitmix64_next(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

void order_victims(struct victim_list *list, uint64_t seed)
{
    if (list->count < 2)
        return;
    qsort(list->items, list->count, sizeof *list->items, by_path);
    uint64_t state = seed;
    for (size_t i = list->count - 1; i > 0; i--) {
        size_t j = (size_t)(splitmix64_next(&state) % (i + 1));
        struct victim swap = list->items[i];
        list->items[i] = list->items[j];
        list->items[j] = swap;
    }
}

void victim_list_free(struct victim_list *list)
{
    for (size_t i = 0; i < list->count; i++)
        free(list->items[i].path);
    free(list->items);
    *list = (struct victim_list){0};
}
