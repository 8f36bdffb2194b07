#include "replay_cmd.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <sqlite3.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "exit_codes.h"
#include "prealloc_vfs.h"
#include "replayer.h"
#include "trace_parser.h"

static const char usage_text[] =
    "Usage: " PROGRAM_NAME " replay --trace FILE --root DIR [--pace] [--seed S]\n"
    "                      [--sqlite-prealloc BYTES]\n"
    "\n"
    "Replays a workload trace (.iotrace, see traces/FORMAT.md) on the file system\n"
    "holding DIR: one thread per THREAD value, operations of a thread in file\n"
    "order, all threads released together. The whole trace is checked first;\n"
    "a malformed line is reported as FILE:LINE: message and nothing runs.\n"
    "Failed operations (ENOSPC included) are counted and the replay goes on.\n"
    "\n"
    "  --trace FILE   the trace to replay\n"
    "  --root DIR     existing directory all trace paths are relative to\n"
    "  --pace         wait until each operation's TIME_US (per thread) instead\n"
    "                 of running as fast as possible\n"
    "  --seed S       seed of the written content (default 0)\n"
    "  --sqlite-prealloc BYTES\n"
    "                 preallocate SQLite files (database, journal, WAL) in\n"
    "                 units of BYTES with fallocate(KEEP_SIZE) before a write\n"
    "                 grows them past their reserved space (TMC 6.1.1);\n"
    "                 default 0 = off\n"
    "\n"
    "Prints one JSON object on stdout. Exit status: 0 replayed (failed operations\n"
    "are in the summary), 1 root or trace unusable, 64 bad arguments,\n"
    "65 malformed trace.\n";

enum option_code {
    OPT_TRACE = 256,
    OPT_ROOT,
    OPT_PACE,
    OPT_SEED,
    OPT_SQLITE_PREALLOC,
    OPT_HELP
};

static const struct option long_options[] = {
    {"trace", required_argument, NULL, OPT_TRACE},
    {"root", required_argument, NULL, OPT_ROOT},
    {"pace", no_argument, NULL, OPT_PACE},
    {"seed", required_argument, NULL, OPT_SEED},
    {"sqlite-prealloc", required_argument, NULL, OPT_SQLITE_PREALLOC},
    {"help", no_argument, NULL, OPT_HELP},
    {NULL, 0, NULL, 0},
};

struct parsed_options {
    struct replay_config config;
    bool help;
};

static int apply_option(int code, const char *value, struct parsed_options *parsed)
{
    struct replay_config *config = &parsed->config;
    switch (code) {
    case OPT_TRACE: config->trace_file = value; return EXIT_OK;
    case OPT_ROOT: config->root = value; return EXIT_OK;
    case OPT_PACE: config->pace = true; return EXIT_OK;
    case OPT_SEED:
        return parse_u64(value, &config->seed)
                   ? EXIT_OK
                   : usage_error("replay", "invalid value for --seed: '%s' "
                                           "(expected an unsigned 64-bit integer)", value);
    case OPT_SQLITE_PREALLOC:
        return parse_size(value, &config->sqlite_prealloc)
                   ? EXIT_OK
                   : usage_error("replay", "invalid value for --sqlite-prealloc: '%s' "
                                           "(expected a byte count, e.g. 128K)", value);
    case OPT_HELP: parsed->help = true; return EXIT_OK;
    }
    return EXIT_USAGE;
}

static int check_required(const struct parsed_options *parsed)
{
    if (!parsed->config.trace_file)
        return usage_error("replay", "missing required option --trace");
    if (!parsed->config.root)
        return usage_error("replay", "missing required option --root");
    return EXIT_OK;
}

static int parse_options(int argc, char **argv, struct parsed_options *parsed)
{
    *parsed = (struct parsed_options){.config = {.root_fd = -1}};
    optind = 0;
    opterr = 0;
    int code;
    while ((code = getopt_long(argc, argv, ":h", long_options, NULL)) != -1) {
        if (code == '?' || code == ':')
            return report_bad_option("replay", optopt, argv[optind - 1], code == ':');
        int status = apply_option(code == 'h' ? OPT_HELP : code, optarg, parsed);
        if (status != EXIT_OK)
            return status;
    }
    if (parsed->help)
        return EXIT_OK;
    if (optind < argc)
        return usage_error("replay", "unexpected argument '%s'", argv[optind]);
    return check_required(parsed);
}

static int load_trace(const char *file, struct trace *trace)
{
    long outcome = trace_load(file, trace, stderr);
    if (outcome > 0)
        return EXIT_DATA_ERROR;
    if (outcome < 0) {
        fprintf(stderr, "%s replay: cannot read trace %s: %s\n", PROGRAM_NAME, file,
                strerror((int)-outcome));
        return EXIT_FAILURE_GENERIC;
    }
    return EXIT_OK;
}

static int open_root(struct replay_config *config)
{
    config->root_fd = open(config->root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (config->root_fd >= 0)
        return EXIT_OK;
    fprintf(stderr, "%s replay: cannot use root %s: %s\n", PROGRAM_NAME, config->root,
            strerror(errno));
    return EXIT_FAILURE_GENERIC;
}

static void print_json(const struct replay_config *config, const struct trace *trace,
                       const struct replay_result *result)
{
    uint64_t ops = replay_stats_total_ops(&result->stats);
    double rate = result->seconds > 0 ? (double)ops / result->seconds : 0.0;
    const struct replay_stats *stats = &result->stats;
    printf("{\"command\":\"replay\",\"threads\":%zu,", trace->thread_count);
    replay_stats_write_json(stdout, stats);
    printf(",\"bytes_written\":%llu,\"bytes_read\":%llu,\"reclaimed_files\":%llu,"
           "\"reclaimed_bytes\":%llu,\"seconds\":%.6f,\"ops_per_second\":%.3f,"
           "\"seed\":%llu,\"pace\":%s,\"sqlite_prealloc\":%llu}\n",
           (unsigned long long)stats->bytes_written, (unsigned long long)stats->bytes_read,
           (unsigned long long)stats->reclaimed_files,
           (unsigned long long)stats->reclaimed_bytes, result->seconds, rate,
           (unsigned long long)config->seed, config->pace ? "true" : "false",
           (unsigned long long)config->sqlite_prealloc);
    fflush(stdout);
}

static int replay_loaded(struct replay_config *config, const struct trace *trace)
{
    int status = open_root(config);
    if (status != EXIT_OK)
        return status;
    if (prealloc_vfs_register(config->sqlite_prealloc) != SQLITE_OK) {
        fprintf(stderr, "%s replay: cannot install the SQLite preallocation VFS\n",
                PROGRAM_NAME);
        close(config->root_fd);
        return EXIT_FAILURE_GENERIC;
    }
    struct replay_result result;
    run_replay(config, trace, &result);
    close(config->root_fd);
    if (result.setup_failed)
        return EXIT_FAILURE_GENERIC;
    print_json(config, trace, &result);
    return EXIT_OK;
}

int replay_command(int argc, char **argv)
{
    struct parsed_options parsed;
    int status = parse_options(argc, argv, &parsed);
    if (status != EXIT_OK || parsed.help) {
        if (parsed.help && status == EXIT_OK)
            fputs(usage_text, stdout);
        return status;
    }
    struct trace trace;
    status = load_trace(parsed.config.trace_file, &trace);
    if (status == EXIT_OK)
        status = replay_loaded(&parsed.config, &trace);
    trace_free(&trace);
    return status;
}
