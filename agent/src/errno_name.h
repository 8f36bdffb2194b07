#ifndef MOBIFRAG_ERRNO_NAME_H
#define MOBIFRAG_ERRNO_NAME_H

#include <stddef.h>

/* The symbolic name of an errno value ("ENOSPC"), written into out;
 * "errno_N" for values without a name here. Returns out. */
const char *errno_name(int error, char *out, size_t size);

#endif
