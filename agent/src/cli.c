#include "cli.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "exit_codes.h"

static bool parse_digits(const char *text, int base, uint64_t *out, const char **end)
{
    if (!isdigit((unsigned char)text[0]))
        return false; /* strtoull would accept "-1" and " 1" */
    char *stop;
    errno = 0;
    unsigned long long value = strtoull(text, &stop, base);
    if (errno == ERANGE)
        return false;
    *out = value;
    *end = stop;
    return true;
}

bool parse_u64(const char *text, uint64_t *out)
{
    const char *end;
    return parse_digits(text, 0, out, &end) && *end == '\0';
}

static int suffix_shift(const char *suffix)
{
    static const struct {
        const char *name;
        int shift;
    } suffixes[] = {
        {"", 0},    {"B", 0},    {"K", 10},  {"KB", 10}, {"KiB", 10},
        {"M", 20},  {"MB", 20},  {"MiB", 20}, {"G", 30}, {"GB", 30},
        {"GiB", 30},
    };
    for (size_t i = 0; i < sizeof suffixes / sizeof suffixes[0]; i++)
        if (strcasecmp(suffix, suffixes[i].name) == 0)
            return suffixes[i].shift;
    return -1;
}

bool parse_size(const char *text, uint64_t *out)
{
    uint64_t number;
    const char *suffix;
    if (!parse_digits(text, 10, &number, &suffix))
        return false;
    int shift = suffix_shift(suffix);
    if (shift < 0 || number > (UINT64_MAX >> shift))
        return false;
    *out = number << shift;
    return true;
}

int usage_error(const char *command, const char *format, ...)
{
    va_list args;
    va_start(args, format);
    fprintf(stderr, "%s %s: ", PROGRAM_NAME, command);
    vfprintf(stderr, format, args);
    fprintf(stderr, "\nTry '%s %s --help'.\n", PROGRAM_NAME, command);
    va_end(args);
    return EXIT_USAGE;
}

int report_bad_option(const char *command, int optopt_value,
                      const char *typed, bool missing_argument)
{
    /* getopt_long leaves the offending word in argv; for long options its
     * optopt is either 0 or our internal code, so the typed word is the only
     * faithful name. */
    char name[64];
    if (strncmp(typed, "--", 2) == 0)
        snprintf(name, sizeof name, "%.*s", (int)strcspn(typed, "="), typed);
    else
        snprintf(name, sizeof name, "-%c", optopt_value ? optopt_value : '?');
    if (missing_argument)
        return usage_error(command, "option '%s' needs a value", name);
    return usage_error(command, "unknown option '%s'", name);
}

int read_command_options(const struct command_options *spec, int argc, char **argv)
{
    optind = 0; /* glibc: full reset, in case getopt ran before */
    opterr = 0;
    int code;
    while ((code = getopt_long(argc, argv, ":h", spec->table, NULL)) != -1) {
        if (code == '?' || code == ':')
            return report_bad_option(spec->command, optopt, argv[optind - 1], code == ':');
        int status = spec->apply(code, optarg, spec->target);
        if (status != EXIT_OK)
            return status;
    }
    if (*spec->help || optind >= argc)
        return EXIT_OK;
    return usage_error(spec->command, "unexpected argument '%s'", argv[optind]);
}
