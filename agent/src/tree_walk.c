#include "tree_walk.h"

#include <errno.h>
#include <ftw.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"

#define WALK_OPEN_DIRECTORIES 64

struct walk_state {
    size_t root_prefix; /* bytes of fpath before the relative path */
    const struct file_identity *ignore;
    size_t ignore_count;
    struct path_list *out;
};

/* nftw passes no user pointer, so the callback reaches its state here. */
static struct walk_state *current_walk;

static bool is_ignored(const struct walk_state *walk, const struct stat *st)
{
    for (size_t i = 0; i < walk->ignore_count; i++)
        if (walk->ignore[i].device == st->st_dev && walk->ignore[i].inode == st->st_ino)
            return true;
    return false;
}

static int add_path(struct path_list *list, const char *path)
{
    if (list->count == list->capacity) {
        size_t capacity = list->capacity ? list->capacity * 2 : 256;
        char **grown = realloc(list->paths, capacity * sizeof *grown);
        if (!grown)
            return -ENOMEM;
        list->paths = grown;
        list->capacity = capacity;
    }
    if (!(list->paths[list->count] = strdup(path)))
        return -ENOMEM;
    list->count++;
    return 0;
}

static void warn_skipped(struct walk_state *walk, const char *what, const char *path)
{
    fprintf(stderr, "%s fragcheck: warning: %s %s, skipped\n", PROGRAM_NAME, what, path);
    walk->out->skipped++;
}

static int visit(const char *fpath, const struct stat *st, int type, struct FTW *ftw)
{
    struct walk_state *walk = current_walk;
    if (ftw->level == 0)
        return 0;
    if (type == FTW_NS) {
        warn_skipped(walk, "cannot stat (vanished?)", fpath);
        return 0;
    }
    if (type == FTW_DNR) {
        warn_skipped(walk, "cannot read directory", fpath);
        return 0;
    }
    if (type != FTW_F || !S_ISREG(st->st_mode) || is_ignored(walk, st))
        return 0;
    return add_path(walk->out, fpath + walk->root_prefix) == 0 ? 0 : -1;
}

static int compare_paths(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* fpath is root + "/" + relative path, except that "/" itself has no extra
 * separator; trailing slashes in root would add more, so they are dropped. */
static char *normalised_root(const char *root, size_t *prefix)
{
    size_t length = strlen(root);
    while (length > 1 && root[length - 1] == '/')
        length--;
    *prefix = (length == 1 && root[0] == '/') ? 1 : length + 1;
    return strndup(root, length);
}

int walk_regular_files(const char *root, const struct file_identity *ignore,
                       size_t ignore_count, struct path_list *out)
{
    *out = (struct path_list){0};
    struct walk_state walk = {.ignore = ignore, .ignore_count = ignore_count, .out = out};
    char *start = normalised_root(root, &walk.root_prefix);
    if (!start)
        return -ENOMEM;
    current_walk = &walk;
    errno = 0;
    int status = nftw(start, visit, WALK_OPEN_DIRECTORIES, FTW_PHYS | FTW_MOUNT);
    int walk_errno = errno;
    current_walk = NULL;
    free(start);
    if (status != 0) {
        path_list_free(out);
        return status == -1 && walk_errno ? -walk_errno : -ENOMEM;
    }
    qsort(out->paths, out->count, sizeof *out->paths, compare_paths);
    return 0;
}

void path_list_free(struct path_list *list)
{
    for (size_t i = 0; i < list->count; i++)
        free(list->paths[i]);
    free(list->paths);
    *list = (struct path_list){0};
}
