#ifndef MOBIFRAG_CLI_H
#define MOBIFRAG_CLI_H

#include <getopt.h>
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

/* One command's options: getopt_long's table, what to do with each option
 * (code is the table's value, or 'h' for -h; value its argument or NULL;
 * EXIT_OK to go on), and the flag --help sets, read after every option. */
struct command_options {
    const char *command;
    const struct option *table;
    int (*apply)(int code, const char *value, void *target);
    void *target;
    const bool *help;
};

/* Applies every option of argv in order. An unknown option, a missing value
 * or an operand (no command takes one) is a usage error naming it; after
 * --help nothing else is checked. Returns EXIT_OK or apply's first refusal. */
int read_command_options(const struct command_options *spec, int argc, char **argv);

#endif
