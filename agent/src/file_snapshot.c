#include "file_snapshot.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "exit_codes.h"
#include "fiemap_reader.h"
#include "fs_info.h"
#include "tsv_escape.h"

struct extent_rows {
    FILE *out;
    const char *escaped_path;
    uint64_t count;
};

int snapshot_write_headers(struct snapshot_output *out)
{
    if (fputs("path\tsize_bytes\tallocated_bytes\tn_extents\tinode\n", out->files) == EOF)
        return EOF;
    return fputs("path\textent\tlogical_bytes\tphysical_bytes\tlength_bytes\tflags\n",
                 out->extents);
}

static int write_extent_row(const struct file_extent *extent, void *context)
{
    struct extent_rows *rows = context;
    char flags[FIEMAP_FLAG_NAMES_MAX];
    int n = fprintf(rows->out, "%s\t%llu\t%llu\t%llu\t%llu\t%s\n", rows->escaped_path,
                    (unsigned long long)rows->count, (unsigned long long)extent->logical,
                    (unsigned long long)extent->physical,
                    (unsigned long long)extent->length,
                    fiemap_flag_names(extent->flags, flags, sizeof flags));
    rows->count++;
    return n < 0 ? 1 : 0; /* positive: our own failure, not an ioctl errno */
}

static int write_file_row(FILE *out, const char *escaped_path, const struct stat *st,
                          uint64_t extents)
{
    int n = fprintf(out, "%s\t%llu\t%llu\t%llu\t%llu\n", escaped_path,
                    (unsigned long long)st->st_size,
                    (unsigned long long)st->st_blocks * 512ULL,
                    (unsigned long long)extents, (unsigned long long)st->st_ino);
    return n < 0 ? EOF : 0;
}

static void warn_skip(struct snapshot_output *out, const char *path, const char *why)
{
    fprintf(stderr, "%s fragcheck: warning: %s %s, skipped\n", PROGRAM_NAME, path, why);
    out->skipped++;
}

static bool fiemap_unsupported(int negative_errno)
{
    int error = -negative_errno;
    return error == EOPNOTSUPP || error == ENOTTY || error == ENOTSUP || error == EBADR;
}

static int report_fiemap_error(int fd, const char *path, int negative_errno)
{
    struct fs_info fs;
    const char *fs_name = fs_info_of_fd(fd, &fs) == 0 ? fs.type : "unknown";
    if (fiemap_unsupported(negative_errno)) {
        fprintf(stderr, "%s fragcheck: FIEMAP is not supported for %s on file system %s (%s)\n",
                PROGRAM_NAME, path, fs_name, strerror(-negative_errno));
        return EXIT_FIEMAP_UNSUPPORTED;
    }
    fprintf(stderr, "%s fragcheck: FIEMAP failed for %s on file system %s: %s\n",
            PROGRAM_NAME, path, fs_name, strerror(-negative_errno));
    return EXIT_FAILURE_GENERIC;
}

static int report_write_error(void)
{
    fprintf(stderr, "%s fragcheck: cannot write a table: %s\n", PROGRAM_NAME,
            strerror(errno ? errno : EIO));
    return EXIT_FAILURE_GENERIC;
}

/* The file is already open, so the mapping cannot vanish under us now. */
static int map_open_file(struct snapshot_output *out, int fd, const char *path,
                         const char *escaped_path)
{
    struct extent_rows rows = {.out = out->extents, .escaped_path = escaped_path};
    errno = 0;
    int status = fiemap_for_each(fd, out->fiemap_batch, write_extent_row, &rows);
    if (status > 0)
        return report_write_error();
    if (status < 0)
        return report_fiemap_error(fd, path, status);
    /* Stat after FIEMAP: its sync turns delayed allocations into blocks. */
    struct stat st;
    if (fstat(fd, &st) != 0) {
        fprintf(stderr, "%s fragcheck: cannot stat %s: %s\n", PROGRAM_NAME, path,
                strerror(errno));
        return EXIT_FAILURE_GENERIC;
    }
    if (write_file_row(out->files, escaped_path, &st, rows.count) != 0)
        return report_write_error();
    out->files_written++;
    out->extents_written += rows.count;
    return EXIT_OK;
}

static int open_or_skip(struct snapshot_output *out, int root_fd, const char *path, int *fd)
{
    /* NONBLOCK: if the name now names a FIFO, opening must not hang. */
    *fd = openat(root_fd, path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (*fd >= 0)
        return EXIT_OK;
    if (errno == ENOENT || errno == ELOOP) {
        warn_skip(out, path, errno == ENOENT ? "vanished" : "became a symlink");
        return EXIT_OK;
    }
    fprintf(stderr, "%s fragcheck: cannot open %s: %s\n", PROGRAM_NAME, path, strerror(errno));
    return EXIT_FAILURE_GENERIC;
}

static bool still_regular(int fd)
{
    struct stat st;
    return fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
}

int snapshot_file(struct snapshot_output *out, int root_fd, const char *path)
{
    int fd;
    int status = open_or_skip(out, root_fd, path, &fd);
    if (status != EXIT_OK || fd < 0)
        return status;
    char *escaped_path = tsv_escape(path);
    if (!escaped_path) {
        fprintf(stderr, "%s fragcheck: out of memory\n", PROGRAM_NAME);
        status = EXIT_FAILURE_GENERIC;
    }
    else if (!still_regular(fd))
        warn_skip(out, path, "is no longer a regular file");
    else
        status = map_open_file(out, fd, path, escaped_path);
    free(escaped_path);
    close(fd);
    return status;
}
