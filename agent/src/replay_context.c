#include "replay_context.h"

#include <stdlib.h>

uint8_t *replay_buffer(struct replay_context *context, size_t size)
{
    if (size <= context->buffer_size)
        return context->buffer;
    uint8_t *grown = realloc(context->buffer, size);
    if (!grown)
        return NULL;
    context->buffer = grown;
    context->buffer_size = size;
    return grown;
}

void replay_context_init(struct replay_context *context, int root_fd,
                         const char *root_path, uint64_t seed, size_t max_open_fds,
                         struct file_marker *marker)
{
    *context = (struct replay_context){.root_fd = root_fd, .root_path = root_path,
                                       .seed = seed};
    handle_cache_init(&context->handles, root_fd, root_path, max_open_fds, marker);
}

void replay_context_finish(struct replay_context *context)
{
    handle_cache_close_all(&context->handles);
    free(context->buffer);
    context->buffer = NULL;
    context->buffer_size = 0;
}
