#include "file_marker.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "cli.h"
#include "errno_name.h"

static char *absolute_path(const char *path)
{
    if (path[0] == '/')
        return strdup(path);
    char cwd[PATH_MAX];
    char *joined;
    if (!getcwd(cwd, sizeof cwd) || asprintf(&joined, "%s/%s", cwd, path) < 0)
        return NULL;
    return joined;
}

int file_marker_init(struct file_marker *marker, struct mark_list *list, const char *xattr,
                     const char *root)
{
    *marker = (struct file_marker){.list = *list, .xattr = xattr};
    *list = (struct mark_list){0};
    atomic_init(&marker->set, 0);
    atomic_init(&marker->errors, 0);
    atomic_init(&marker->error_printed, false);
    marker->real_root = realpath(root, NULL);
    if (!marker->real_root)
        return errno;
    marker->absolute_root = absolute_path(root);
    return marker->absolute_root ? 0 : ENOMEM;
}

static void count_failure(struct file_marker *marker, const char *path, int error)
{
    atomic_fetch_add(&marker->errors, 1);
    if (atomic_exchange(&marker->error_printed, true))
        return;
    char name[64];
    fprintf(stderr, "%s replay: cannot set %s on %s: %s (%s); further failures are "
            "only counted\n", PROGRAM_NAME, marker->xattr, path, strerror(error),
            errno_name(error, name, sizeof name));
}

static void count_result(struct file_marker *marker, const char *path, int result)
{
    if (result == 0)
        atomic_fetch_add(&marker->set, 1);
    else
        count_failure(marker, path, errno);
}

void file_marker_mark_fd(struct file_marker *marker, int fd, const char *relative)
{
    if (!marker || !mark_list_contains(&marker->list, relative))
        return;
    if (fgetxattr(fd, marker->xattr, NULL, 0) >= 0)
        return; /* already marked: O_CREAT of an existing file, or O_TRUNC */
    count_result(marker, relative, fsetxattr(fd, marker->xattr, "1", 1, 0));
}

/* The part of absolute below root ("" for root itself), or NULL. */
static const char *below(const char *absolute, const char *root)
{
    size_t length = strlen(root);
    while (length > 1 && root[length - 1] == '/')
        length--;
    if (strncmp(absolute, root, length) != 0)
        return NULL;
    if (absolute[length] == '/')
        return absolute + length + 1;
    return absolute[length] == '\0' ? absolute + length : NULL;
}

void file_marker_mark_name(struct file_marker *marker, const char *absolute)
{
    if (!marker)
        return;
    const char *relative = below(absolute, marker->real_root);
    if (!relative || !mark_list_contains(&marker->list, relative))
        relative = below(absolute, marker->absolute_root);
    if (!relative || !mark_list_contains(&marker->list, relative))
        return;
    if (getxattr(absolute, marker->xattr, NULL, 0) >= 0)
        return;
    count_result(marker, relative, setxattr(absolute, marker->xattr, "1", 1, 0));
}

uint64_t file_marker_set_count(const struct file_marker *marker)
{
    return marker ? atomic_load(&marker->set) : 0;
}

uint64_t file_marker_error_count(const struct file_marker *marker)
{
    return marker ? atomic_load(&marker->errors) : 0;
}

void file_marker_free(struct file_marker *marker)
{
    mark_list_free(&marker->list);
    free(marker->real_root);
    free(marker->absolute_root);
    marker->real_root = marker->absolute_root = NULL;
}
