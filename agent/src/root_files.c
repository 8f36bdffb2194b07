#include "root_files.h"

#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "cli.h"

#define DIR_MODE 0755
#define FILE_MODE 0644

/* openat2(2) (Linux 5.6): its number is the same on every architecture;
 * the structure and flags are spelled out so that no kernel header newer
 * than the build host's is needed. */
#ifndef SYS_openat2
#define SYS_openat2 437
#endif
#define BENEATH_RESOLVE_NO_MAGICLINKS 0x02u
#define BENEATH_RESOLVE_BENEATH 0x08u
#define BENEATH_RETRIES 8 /* EAGAIN: a rename raced a ".." of a symlink's target */

struct beneath_how {
    uint64_t flags;
    uint64_t mode;
    uint64_t resolve;
};

enum resolver { RESOLVER_UNKNOWN, RESOLVER_OPENAT2, RESOLVER_WALK };

static atomic_int resolver = RESOLVER_UNKNOWN;

void root_files_force_component_walk(bool on)
{
    atomic_store(&resolver, on ? RESOLVER_WALK : RESOLVER_UNKNOWN);
}

bool root_files_have_openat2(void)
{
    return atomic_load(&resolver) == RESOLVER_OPENAT2;
}

static void fall_back_to_walk(int error)
{
    int expected = RESOLVER_UNKNOWN;
    if (atomic_compare_exchange_strong(&resolver, &expected, RESOLVER_WALK))
        fprintf(stderr,
                "%s replay: openat2 is not available (%s): paths are resolved one "
                "component at a time with O_NOFOLLOW, and every symlink below the root "
                "is refused (escapes_root)\n",
                PROGRAM_NAME, strerror(error));
}

static int openat2_beneath(int dir_fd, const char *path, int flags, mode_t mode)
{
    struct beneath_how how = {
        .flags = (uint64_t)(unsigned)(flags | O_CLOEXEC),
        .mode = (flags & O_CREAT) ? mode : 0,
        .resolve = BENEATH_RESOLVE_BENEATH | BENEATH_RESOLVE_NO_MAGICLINKS,
    };
    long fd = -1;
    for (int attempt = 0; attempt < BENEATH_RETRIES; attempt++) {
        fd = syscall(SYS_openat2, dir_fd, path, &how, sizeof how);
        if (fd >= 0 || errno != EAGAIN)
            break;
    }
    return (int)fd;
}

static bool is_symlink(int dir_fd, const char *name)
{
    struct stat st;
    return fstatat(dir_fd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode);
}

/* The component walk: every component opened with O_NOFOLLOW, so a symlink
 * anywhere is refused. Paths never hold ".." (the trace parser refuses it). */
static op_status walk_open(int root_fd, const char *path, int flags, mode_t mode, int *out)
{
    char *copy = strdup(path);
    if (!copy)
        return ENOMEM;
    int dir = openat(root_fd, ".", O_PATH | O_DIRECTORY | O_CLOEXEC);
    op_status status = dir < 0 ? errno : OP_OK;
    const char *last = ".";
    char *save = NULL;
    for (char *part = strtok_r(copy, "/", &save); status == OP_OK && part;
         part = strtok_r(NULL, "/", &save)) {
        if (strcmp(part, ".") == 0)
            continue;
        if (strcmp(last, ".") != 0) { /* descend into the previous component */
            int next = openat(dir, last, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
            int error = errno;
            if (next < 0)
                status = is_symlink(dir, last) ? OP_STATUS_ESCAPES_ROOT : error;
            close(dir);
            dir = next;
        }
        last = part;
    }
    if (status == OP_OK) {
        /* A trailing slash asks for a directory, as openat would. */
        int extra = path[strlen(path) - 1] == '/' ? O_DIRECTORY : 0;
        int fd = openat(dir, last, flags | extra | O_NOFOLLOW | O_CLOEXEC, mode);
        int error = errno;
        if (fd < 0)
            status = is_symlink(dir, last) ? OP_STATUS_ESCAPES_ROOT : error;
        else
            *out = fd;
    }
    if (dir >= 0)
        close(dir);
    free(copy);
    return status;
}

op_status root_open(int root_fd, const char *path, int flags, mode_t mode, int *fd)
{
    if (atomic_load(&resolver) != RESOLVER_WALK) {
        int opened = openat2_beneath(root_fd, path, flags, mode);
        if (opened >= 0) {
            atomic_store(&resolver, RESOLVER_OPENAT2);
            *fd = opened;
            return OP_OK;
        }
        int error = errno;
        if (error == EXDEV)
            return OP_STATUS_ESCAPES_ROOT;
        bool unknown = atomic_load(&resolver) == RESOLVER_UNKNOWN;
        if (!(error == ENOSYS || (unknown && error == EPERM)))
            return error;
        fall_back_to_walk(error);
    }
    return walk_open(root_fd, path, flags, mode, fd);
}

void root_files_probe(int root_fd)
{
    int fd;
    if (root_open(root_fd, ".", O_PATH | O_DIRECTORY, 0, &fd) == OP_OK)
        close(fd);
}

op_status root_open_parent(int root_fd, const char *path, int *dir_fd, const char **name)
{
    size_t end = strlen(path);
    while (end > 1 && path[end - 1] == '/')
        end--;
    size_t start = end;
    while (start > 0 && path[start - 1] != '/')
        start--;
    *name = path + start;
    if (start == 0)
        return root_open(root_fd, ".", O_PATH | O_DIRECTORY, 0, dir_fd);
    char *parent = strndup(path, start);
    if (!parent)
        return ENOMEM;
    op_status status = root_open(root_fd, parent, O_PATH | O_DIRECTORY, 0, dir_fd);
    free(parent);
    return status;
}

op_status root_unlink(int root_fd, const char *path, int flags)
{
    int dir;
    const char *name;
    op_status status = root_open_parent(root_fd, path, &dir, &name);
    if (status != OP_OK)
        return status;
    status = unlinkat(dir, name, flags) == 0 ? OP_OK : errno;
    close(dir);
    return status;
}

op_status root_rename(int root_fd, const char *from, const char *to)
{
    int from_dir, to_dir;
    const char *from_name, *to_name;
    op_status status = root_open_parent(root_fd, from, &from_dir, &from_name);
    if (status != OP_OK)
        return status;
    status = root_open_parent(root_fd, to, &to_dir, &to_name);
    if (status == OP_OK) {
        status = renameat(from_dir, from_name, to_dir, to_name) == 0 ? OP_OK : errno;
        close(to_dir);
    }
    close(from_dir);
    return status;
}

static op_status make_one_dir(int root_fd, const char *path)
{
    int dir;
    const char *name;
    op_status status = root_open_parent(root_fd, path, &dir, &name);
    if (status != OP_OK)
        return status;
    status = mkdirat(dir, name, DIR_MODE) == 0 ? OP_OK : errno;
    close(dir);
    if (status != EEXIST)
        return status;
    int fd; /* an existing directory (also through a symlink that stays beneath) */
    status = root_open(root_fd, path, O_PATH | O_DIRECTORY, 0, &fd);
    if (status == OP_OK)
        close(fd);
    return status;
}

/* Creates every prefix of path that ends before a '/', then (if
 * include_last) path itself. */
static op_status make_prefixes(int root_fd, const char *path, int include_last)
{
    char *copy = strdup(path);
    if (!copy)
        return ENOMEM;
    op_status status = OP_OK;
    for (char *slash = strchr(copy + 1, '/'); status == OP_OK && slash;
         slash = strchr(slash + 1, '/')) {
        *slash = '\0';
        status = make_one_dir(root_fd, copy);
        *slash = '/';
    }
    if (status == OP_OK && include_last)
        status = make_one_dir(root_fd, copy);
    free(copy);
    return status;
}

op_status make_parent_dirs(int root_fd, const char *path)
{
    return make_prefixes(root_fd, path, 0);
}

op_status make_dirs(int root_fd, const char *path)
{
    return make_prefixes(root_fd, path, 1);
}

static int flags_for(enum open_intent intent)
{
    int flags = O_RDWR;
    if (intent != OPEN_EXISTING)
        flags |= O_CREAT;
    if (intent == OPEN_TRUNCATE)
        flags |= O_TRUNC;
    return flags;
}

op_status open_under_root(int root_fd, const char *path, enum open_intent intent, int *fd)
{
    op_status status = root_open(root_fd, path, flags_for(intent), FILE_MODE, fd);
    if (status == ENOENT && intent != OPEN_EXISTING) {
        status = make_parent_dirs(root_fd, path);
        if (status != OP_OK)
            return status;
        status = root_open(root_fd, path, flags_for(intent), FILE_MODE, fd);
    }
    if (status == EISDIR && intent == OPEN_EXISTING)
        status = root_open(root_fd, path, O_RDONLY | O_DIRECTORY, 0, fd);
    return status;
}
