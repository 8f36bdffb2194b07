#ifndef MOBIFRAG_TRACE_FIELDS_H
#define MOBIFRAG_TRACE_FIELDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Field parsers of the trace format. Each returns NULL on success, else a
 * static description of what is wrong (for "FILE:LINE: message"). */

/* Plain decimal digits, no sign, no suffix, no hex; fits in 64 bits. */
const char *parse_trace_u64(const char *text, uint64_t *out);

/* Decimal digits with an optional fraction ("70", "72.5"), 0..100. */
const char *parse_trace_percent(const char *text, double *out);

/* Undoes the fragcheck path escaping: \\ \t \n \xHH (hex in either case).
 * Any other backslash sequence, or a decoded NUL byte, is an error.
 * *out is malloc'd on success. */
const char *unescape_trace_field(const char *text, char **out);

/* Unescapes PATH and checks it: not "-" (no path), not empty, not
 * absolute, no ".." component. */
const char *decode_trace_path(const char *text, char **out);

/* GLOB as written (an fnmatch pattern for a base name, so no '/'; not
 * unescaped, so fnmatch's own backslash quoting works). */
const char *decode_trace_glob(const char *text, char **out);

#endif
