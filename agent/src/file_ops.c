#include "file_ops.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "content_io.h"
#include "root_files.h"

typedef op_status (*fd_action)(struct replay_context *context, int fd,
                               const struct trace_op *op);

static op_status with_fd(struct replay_context *context, const struct trace_op *op,
                         enum open_intent intent, fd_action action)
{
    op_status status = OP_OK;
    int fd = handle_cache_fd(&context->handles, op->path, intent, &status);
    return fd < 0 ? status : action(context, fd, op);
}

static op_status no_action(struct replay_context *context, int fd, const struct trace_op *op)
{
    (void)context, (void)fd, (void)op;
    return OP_OK;
}

static op_status do_write(struct replay_context *context, int fd, const struct trace_op *op)
{
    return write_content(context, fd, op->path, op->span.offset, op->span.length);
}

static op_status do_append(struct replay_context *context, int fd, const struct trace_op *op)
{
    struct stat st;
    if (fstat(fd, &st) != 0)
        return errno;
    return write_content(context, fd, op->path, (uint64_t)st.st_size, op->size.length);
}

static op_status do_read(struct replay_context *context, int fd, const struct trace_op *op)
{
    return read_span(context, fd, op->span.offset, op->span.length);
}

static op_status do_fsync(struct replay_context *context, int fd, const struct trace_op *op)
{
    (void)context, (void)op;
    return fsync(fd) == 0 ? OP_OK : errno;
}

static op_status do_fdatasync(struct replay_context *context, int fd,
                              const struct trace_op *op)
{
    (void)context, (void)op;
    return fdatasync(fd) == 0 ? OP_OK : errno;
}

static op_status do_syncfs(struct replay_context *context, int fd, const struct trace_op *op)
{
    (void)context, (void)op;
    return syncfs(fd) == 0 ? OP_OK : errno;
}

static op_status do_fallocate(struct replay_context *context, int fd,
                              const struct trace_op *op)
{
    (void)context;
    int mode = op->fallocate.keep_size ? FALLOC_FL_KEEP_SIZE : 0;
    return fallocate(fd, mode, (off_t)op->fallocate.offset, (off_t)op->fallocate.length) == 0
               ? OP_OK
               : errno;
}

static op_status do_truncate(struct replay_context *context, int fd,
                             const struct trace_op *op)
{
    (void)context;
    return ftruncate(fd, (off_t)op->size.length) == 0 ? OP_OK : errno;
}

/* Like remove(3): a file, or else an empty directory. */
static op_status remove_path(struct replay_context *context, const struct trace_op *op)
{
    handle_cache_forget(&context->handles, op->path);
    op_status status = root_unlink(context->root_fd, op->path, 0);
    if (status != EISDIR)
        return status;
    return root_unlink(context->root_fd, op->path, AT_REMOVEDIR);
}

static op_status rename_path(struct replay_context *context, const struct trace_op *op)
{
    handle_cache_forget(&context->handles, op->path);
    handle_cache_forget(&context->handles, op->rename.new_path);
    return root_rename(context->root_fd, op->path, op->rename.new_path);
}

op_status replay_file_op(struct replay_context *context, const struct trace_op *op)
{
    switch (op->kind) {
    case OP_MKDIR: return make_dirs(context->root_fd, op->path);
    case OP_CREATE: return with_fd(context, op, OPEN_TRUNCATE, no_action);
    case OP_WRITE: return with_fd(context, op, OPEN_CREATE, do_write);
    case OP_APPEND: return with_fd(context, op, OPEN_CREATE, do_append);
    case OP_READ: return with_fd(context, op, OPEN_EXISTING, do_read);
    case OP_FSYNC: return with_fd(context, op, OPEN_EXISTING, do_fsync);
    case OP_FDATASYNC: return with_fd(context, op, OPEN_EXISTING, do_fdatasync);
    case OP_SYNCFS: return with_fd(context, op, OPEN_EXISTING, do_syncfs);
    case OP_FALLOCATE: return with_fd(context, op, OPEN_CREATE, do_fallocate);
    case OP_TRUNCATE: return with_fd(context, op, OPEN_EXISTING, do_truncate);
    case OP_UNLINK: return remove_path(context, op);
    case OP_RENAME: return rename_path(context, op);
    default: return EINVAL;
    }
}
