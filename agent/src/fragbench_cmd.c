#include "fragbench_cmd.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "cli.h"
#include "exit_codes.h"
#include "fragbench.h"

static const char usage_text[] =
    "Usage: " PROGRAM_NAME " fragbench --dir DIR --fill PERCENT --start BYTES --min BYTES\n"
    "\n"
    "ARS's fragmentation benchmark (ARS sec. V.A): files of --start bytes fill\n"
    "DIR's file system to PERCENT used (as df counts it), every other file of\n"
    "the round is deleted, the size halves, and the fill repeats until a round\n"
    "of --min byte files has been filled and thinned too. Files are\n"
    "DIR/r<round>-<index>; a full file system (ENOSPC) ends a round early.\n"
    "\n"
    "  --dir DIR         directory of the files (created if missing)\n"
    "  --fill PERCENT    used share to fill to, 0 < PERCENT <= 100\n"
    "  --start BYTES     size of the first round's files, > 0\n"
    "  --min BYTES       size of the last round's files, 0 < --min <= --start\n"
    "\n"
    "BYTES take an optional K, M or G suffix (KiB, MiB, GiB).\n"
    "Prints one JSON object on stdout. Exit status: 0 done, 2 I/O error,\n"
    "64 bad arguments.\n";

enum option_code { OPT_DIR = 256, OPT_FILL, OPT_START, OPT_MIN, OPT_HELP };

static const struct option long_options[] = {
    {"dir", required_argument, NULL, OPT_DIR},
    {"fill", required_argument, NULL, OPT_FILL},
    {"start", required_argument, NULL, OPT_START},
    {"min", required_argument, NULL, OPT_MIN},
    {"help", no_argument, NULL, OPT_HELP},
    {NULL, 0, NULL, 0},
};

static int bad_value(const char *option, const char *value, const char *expected)
{
    return usage_error("fragbench", "invalid value for --%s: '%s' (expected %s)", option,
                       value, expected);
}

static int parse_percent(const char *value, double *out)
{
    char *end;
    errno = 0;
    double percent = strtod(value, &end);
    if (errno || end == value || *end || !isfinite(percent) || percent <= 0 || percent > 100)
        return bad_value("fill", value, "a percentage above 0, at most 100");
    *out = percent;
    return EXIT_OK;
}

static int parse_bytes(const char *option, const char *value, uint64_t *out)
{
    if (!parse_size(value, out) || *out == 0 || *out > (uint64_t)INT64_MAX)
        return bad_value(option, value, "a byte count above 0 like 4096, 4K, 1M");
    return EXIT_OK;
}

/* What the command line gave: the benchmark's settings and --help. */
struct fragbench_options {
    struct fragbench_config config;
    bool help;
};

static int apply_option(int code, const char *value, void *target)
{
    struct fragbench_options *options = target;
    struct fragbench_config *config = &options->config;
    switch (code) {
    case OPT_DIR:
        config->dir = value;
        return EXIT_OK;
    case OPT_FILL:
        return parse_percent(value, &config->fill);
    case OPT_START:
        return parse_bytes("start", value, &config->start);
    case OPT_MIN:
        return parse_bytes("min", value, &config->minimum);
    case OPT_HELP:
    case 'h':
        options->help = true;
        return EXIT_OK;
    }
    return EXIT_USAGE;
}

static int check_required(const struct fragbench_config *config)
{
    static const char *names[] = {"dir", "fill", "start", "min"};
    bool given[] = {config->dir != NULL, config->fill > 0, config->start > 0,
                    config->minimum > 0};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (!given[i])
            return usage_error("fragbench", "missing required option --%s", names[i]);
    if (config->minimum > config->start)
        return usage_error("fragbench", "--min (%llu) is larger than --start (%llu)",
                           (unsigned long long)config->minimum,
                           (unsigned long long)config->start);
    return EXIT_OK;
}

static int parse_options(int argc, char **argv, struct fragbench_options *options)
{
    *options = (struct fragbench_options){0};
    const struct command_options spec = {"fragbench", long_options, apply_option, options,
                                         &options->help};
    int status = read_command_options(&spec, argc, argv);
    return status != EXIT_OK || options->help ? status : check_required(&options->config);
}

int fragbench_command(int argc, char **argv)
{
    struct fragbench_options options;
    int status = parse_options(argc, argv, &options);
    if (status != EXIT_OK)
        return status;
    if (options.help) {
        fputs(usage_text, stdout);
        return EXIT_OK;
    }
    struct fragbench_result result;
    const char *failed_path;
    op_status failure = fragbench_run(&options.config, &result, &failed_path);
    if (failure != OP_OK) {
        fprintf(stderr, "%s fragbench: %s: %s\n", PROGRAM_NAME, failed_path,
                op_status_text(failure));
        return EXIT_WORKLOAD_IO;
    }
    printf("{\"rounds\":%u,\"created\":%llu,\"live\":%llu,\"used_percent\":%.2f}\n",
           result.rounds, (unsigned long long)result.created,
           (unsigned long long)result.live, result.used_percent);
    return fflush(stdout) == 0 ? EXIT_OK : EXIT_FAILURE_GENERIC;
}
