#include "atomic_output.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char *temp_template(const char *final_path)
{
    const char *slash = strrchr(final_path, '/');
    int dir_length = slash ? (int)(slash - final_path + 1) : 0;
    const char *base = final_path + dir_length;
    char *template;
    if (asprintf(&template, "%.*s.%s.tmp.XXXXXX", dir_length, final_path, base) < 0)
        return NULL;
    return template;
}

static mode_t default_file_mode(void)
{
    mode_t mask = umask(0);
    umask(mask);
    return 0666 & ~mask;
}

static int remember_identity(struct atomic_output *out, int fd)
{
    struct stat st;
    if (fstat(fd, &st) != 0)
        return -errno;
    out->device = st.st_dev;
    out->inode = st.st_ino;
    return 0;
}

static int open_temp(struct atomic_output *out)
{
    int fd = mkstemp(out->temp_path);
    if (fd < 0)
        return -errno;
    /* mkstemp creates 0600; a table should look like any file we create. */
    int status = fchmod(fd, default_file_mode()) == 0 ? remember_identity(out, fd) : -errno;
    if (status == 0 && !(out->stream = fdopen(fd, "w")))
        status = -errno;
    if (status != 0) {
        close(fd);
        unlink(out->temp_path);
    }
    return status;
}

int atomic_output_open(struct atomic_output *out, const char *final_path)
{
    *out = (struct atomic_output){0};
    out->final_path = strdup(final_path);
    out->temp_path = temp_template(final_path);
    int status = out->final_path && out->temp_path ? open_temp(out) : -ENOMEM;
    if (status != 0)
        atomic_output_free(out);
    return status;
}

int atomic_output_finish(struct atomic_output *out)
{
    int status = 0;
    errno = 0;
    if (fflush(out->stream) != 0 || ferror(out->stream))
        status = errno ? -errno : -EIO;
    if (status == 0 && fsync(fileno(out->stream)) != 0)
        status = -errno;
    if (fclose(out->stream) != 0 && status == 0)
        status = -errno;
    out->stream = NULL;
    return status;
}

static void sync_parent_directory(const char *path)
{
    const char *slash = strrchr(path, '/');
    char *dir = slash ? strndup(path, (size_t)(slash - path + 1)) : strdup(".");
    int fd = dir ? open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC) : -1;
    if (fd >= 0) {
        fsync(fd); /* best effort: the rename is durable on most systems anyway */
        close(fd);
    }
    free(dir);
}

int atomic_output_publish(struct atomic_output *out)
{
    if (rename(out->temp_path, out->final_path) != 0)
        return -errno;
    sync_parent_directory(out->final_path);
    return 0;
}

void atomic_output_discard(struct atomic_output *out)
{
    if (out->stream)
        fclose(out->stream);
    out->stream = NULL;
    if (out->temp_path)
        unlink(out->temp_path);
}

void atomic_output_free(struct atomic_output *out)
{
    free(out->final_path);
    free(out->temp_path);
    out->final_path = out->temp_path = NULL;
}
