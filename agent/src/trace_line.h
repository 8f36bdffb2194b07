#ifndef MOBIFRAG_TRACE_LINE_H
#define MOBIFRAG_TRACE_LINE_H

#include <stdbool.h>
#include <stddef.h>

#include "trace.h"

/* Parses one operation line (not a comment, not empty; no newline) into
 * *op, splitting it in place. On error returns false with a description in
 * message and nothing allocated in *op. */
bool parse_trace_line(char *line, struct trace_op *op, char *message, size_t size);

#endif
