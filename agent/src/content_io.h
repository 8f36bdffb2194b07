#ifndef MOBIFRAG_CONTENT_IO_H
#define MOBIFRAG_CONTENT_IO_H

#include <stdint.h>

#include "op_status.h"
#include "replay_context.h"

/* pwrite of [offset, offset + length) of the file's content, which is
 * record_content(seed, path_hash(path), file offset), in REPLAY_CHUNK
 * pieces. Bytes that reached the file are counted even when a later piece
 * fails. Returns OP_OK or an errno. */
op_status write_content(struct replay_context *context, int fd, const char *path,
                        uint64_t offset, uint64_t length);

/* pread of [offset, offset + length); stops quietly at end of file. */
op_status read_span(struct replay_context *context, int fd, uint64_t offset,
                    uint64_t length);

#endif
