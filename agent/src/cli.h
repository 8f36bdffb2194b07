#ifndef MOBIFRAG_CLI_H
#define MOBIFRAG_CLI_H

#include <stdbool.h>
#include <stdint.h>

#define PROGRAM_NAME "mobifrag-agent"

/* Parses a byte count: decimal digits, optionally followed by K, M or G
 * (binary multiples, case-insensitive, "KiB"/"KB" spellings accepted). */
bool parse_size(const char *text, uint64_t *out);

/* Parses a decimal (or 0x-prefixed hex) unsigned integer with no suffix. */
bool parse_u64(const char *text, uint64_t *out);

/* Prints "mobifrag-agent COMMAND: MESSAGE" and a pointer to --help on
 * stderr; returns EXIT_USAGE so callers can `return usage_error(...)`. */
int usage_error(const char *command, const char *format, ...)
    __attribute__((format(printf, 2, 3)));

/* Reports an option getopt_long rejected, naming it as the user typed it. */
int report_bad_option(const char *command, int optopt_value,
                      const char *typed, bool missing_argument);

#endif
