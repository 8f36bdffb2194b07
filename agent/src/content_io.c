#include "content_io.h"

#include <errno.h>
#include <unistd.h>

#include "path_hash.h"
#include "record_content.h"

static size_t chunk_length(uint64_t left)
{
    return left < REPLAY_CHUNK ? (size_t)left : REPLAY_CHUNK;
}

static op_status pwrite_fully(struct replay_context *context, int fd, const uint8_t *data,
                              size_t length, uint64_t offset)
{
    size_t done = 0;
    while (done < length) {
        ssize_t n = pwrite(fd, data + done, length - done, (off_t)(offset + done));
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return errno;
        if (n == 0)
            return EIO; /* no progress and no error: do not spin */
        done += (size_t)n;
        context->stats.bytes_written += (uint64_t)n;
    }
    return OP_OK;
}

op_status write_content(struct replay_context *context, int fd, const char *path,
                        uint64_t offset, uint64_t length)
{
    uint8_t *buffer = replay_buffer(context, REPLAY_CHUNK);
    if (!buffer)
        return ENOMEM;
    uint64_t stream = path_hash(path);
    op_status status = OP_OK;
    for (uint64_t done = 0; status == OP_OK && done < length;) {
        size_t piece = chunk_length(length - done);
        record_content_fill(buffer, piece, context->seed, stream, offset + done);
        status = pwrite_fully(context, fd, buffer, piece, offset + done);
        done += piece;
    }
    return status;
}

op_status read_span(struct replay_context *context, int fd, uint64_t offset,
                    uint64_t length)
{
    uint8_t *buffer = replay_buffer(context, REPLAY_CHUNK);
    if (!buffer)
        return ENOMEM;
    for (uint64_t done = 0; done < length;) {
        ssize_t n = pread(fd, buffer, chunk_length(length - done), (off_t)(offset + done));
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return errno;
        if (n == 0)
            break; /* end of file */
        done += (uint64_t)n;
        context->stats.bytes_read += (uint64_t)n;
    }
    return OP_OK;
}
