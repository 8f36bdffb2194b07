#include "root_files.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define DIR_MODE 0755
#define FILE_MODE 0644

static int make_one_dir(int root_fd, const char *path)
{
    if (mkdirat(root_fd, path, DIR_MODE) == 0)
        return 0;
    int error = errno;
    struct stat st;
    if (error == EEXIST && fstatat(root_fd, path, &st, 0) == 0)
        return S_ISDIR(st.st_mode) ? 0 : ENOTDIR;
    return error;
}

/* Creates every prefix of path that ends before a '/', then (if
 * include_last) path itself. */
static int make_prefixes(int root_fd, const char *path, int include_last)
{
    char *copy = strdup(path);
    if (!copy)
        return ENOMEM;
    int error = 0;
    for (char *slash = strchr(copy + 1, '/'); !error && slash; slash = strchr(slash + 1, '/')) {
        *slash = '\0';
        error = make_one_dir(root_fd, copy);
        *slash = '/';
    }
    if (!error && include_last)
        error = make_one_dir(root_fd, copy);
    free(copy);
    return error;
}

int make_parent_dirs(int root_fd, const char *path)
{
    return make_prefixes(root_fd, path, 0);
}

int make_dirs(int root_fd, const char *path)
{
    return make_prefixes(root_fd, path, 1);
}

static int flags_for(enum open_intent intent)
{
    int flags = O_RDWR | O_CLOEXEC;
    if (intent != OPEN_EXISTING)
        flags |= O_CREAT;
    if (intent == OPEN_TRUNCATE)
        flags |= O_TRUNC;
    return flags;
}

int open_under_root(int root_fd, const char *path, enum open_intent intent)
{
    int fd = openat(root_fd, path, flags_for(intent), FILE_MODE);
    if (fd < 0 && errno == ENOENT && intent != OPEN_EXISTING) {
        int error = make_parent_dirs(root_fd, path);
        if (error)
            return -error;
        fd = openat(root_fd, path, flags_for(intent), FILE_MODE);
    }
    if (fd < 0 && errno == EISDIR && intent == OPEN_EXISTING)
        fd = openat(root_fd, path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    return fd < 0 ? -errno : fd;
}
