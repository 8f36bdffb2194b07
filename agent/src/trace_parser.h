#ifndef MOBIFRAG_TRACE_PARSER_H
#define MOBIFRAG_TRACE_PARSER_H

#include <stdio.h>

#include "trace.h"

#define TRACE_MAX_REPORTED_ERRORS 20

/* Reads and checks the whole trace. Returns 0 when it is well-formed (the
 * trace is then grouped by thread), the number of malformed lines otherwise
 * (the first TRACE_MAX_REPORTED_ERRORS reported on `errors` as
 * "FILE:LINE: message"), or -errno when the file cannot be read. */
long trace_load(const char *file, struct trace *trace, FILE *errors);

/* The same on an open stream; `file` names it in messages (the fuzz targets
 * read from memory). */
long trace_load_stream(FILE *in, const char *file, struct trace *trace, FILE *errors);

#endif
