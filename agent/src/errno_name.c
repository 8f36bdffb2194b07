#include "errno_name.h"

#include <errno.h>
#include <stdio.h>

#define NAMED(e) {e, #e}

/* The errors file and SQLite operations can meet; strerrorname_np would
 * do, but not every libc a static cross build may use has it. */
static const struct {
    int value;
    const char *name;
} names[] = {
    NAMED(EPERM),   NAMED(ENOENT),    NAMED(ESRCH),     NAMED(EINTR),
    NAMED(EIO),     NAMED(ENXIO),     NAMED(E2BIG),     NAMED(EBADF),
    NAMED(EAGAIN),  NAMED(ENOMEM),    NAMED(EACCES),    NAMED(EFAULT),
    NAMED(EBUSY),   NAMED(EEXIST),    NAMED(EXDEV),     NAMED(ENODEV),
    NAMED(ENOTDIR), NAMED(EISDIR),    NAMED(EINVAL),    NAMED(ENFILE),
    NAMED(EMFILE),  NAMED(ETXTBSY),   NAMED(EFBIG),     NAMED(ENOSPC),
    NAMED(ESPIPE),  NAMED(EROFS),     NAMED(EMLINK),    NAMED(ERANGE),
    NAMED(EDEADLK), NAMED(ENAMETOOLONG), NAMED(ENOLCK), NAMED(ENOSYS),
    NAMED(ENOTEMPTY), NAMED(ELOOP),   NAMED(EOVERFLOW), NAMED(EOPNOTSUPP),
    NAMED(ETIMEDOUT), NAMED(ESTALE),  NAMED(EDQUOT),    NAMED(ENODATA),
    NAMED(EUCLEAN), NAMED(ENOTSUP),
};

const char *errno_name(int error, char *out, size_t size)
{
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (names[i].value == error) {
            snprintf(out, size, "%s", names[i].name);
            return out;
        }
    snprintf(out, size, "errno_%d", error);
    return out;
}
