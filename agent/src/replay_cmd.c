#include "replay_cmd.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "exit_codes.h"
#include "file_marker.h"
#include "mark_list.h"
#include "prealloc_vfs.h"
#include "replayer.h"
#include "root_files.h"
#include "trace_parser.h"

static const char usage_text[] =
    "Usage: " PROGRAM_NAME " replay --trace FILE --root DIR [--pace] [--seed S]\n"
    "                      [--sqlite-prealloc BYTES] [--mark-list FILE [--mark-xattr NAME]]\n"
    "       " PROGRAM_NAME " replay --trace FILE --check\n"
    "\n"
    "Replays a workload trace (.iotrace, see traces/FORMAT.md) on the file system\n"
    "holding DIR: one thread per THREAD value, operations of a thread in file\n"
    "order, all threads released together. The whole trace is checked first;\n"
    "a malformed line is reported as FILE:LINE: message and nothing runs.\n"
    "Failed operations (ENOSPC included) are counted and the replay goes on.\n"
    "\n"
    "  --trace FILE   the trace to replay\n"
    "  --check        only check the trace (no --root needed): exit 0 when it is\n"
    "                 well-formed, 65 with FILE:LINE: messages when not\n"
    "  --root DIR     existing directory all trace paths are relative to; no\n"
    "                 path may resolve outside it (symlinks included)\n"
    "  --pace         wait until each operation's TIME_US (per thread) instead\n"
    "                 of running as fast as possible\n"
    "  --seed S       seed of the written content (default 0)\n"
    "  --sqlite-prealloc BYTES\n"
    "                 preallocate SQLite files (database, journal, WAL) in\n"
    "                 units of BYTES with fallocate(KEEP_SIZE) before a write\n"
    "                 grows them past their reserved space (TMC 6.1.1);\n"
    "                 default 0 = off\n"
    "  --mark-list FILE\n"
    "                 paths (one per line, relative to DIR, escaped as trace\n"
    "                 PATHs) whose files get the xattr NAME=1 each time the\n"
    "                 replay or SQLite creates them, before the first write\n"
    "  --mark-xattr NAME\n"
    "                 the xattr --mark-list sets (default user.ars, the ARS\n"
    "                 patch's reservation switch)\n"
    "\n"
    "Prints one JSON object on stdout. Exit status: 0 replayed (failed operations\n"
    "and marks are in the summary), 1 root or trace unusable, 64 bad arguments\n"
    "(an unreadable or malformed --mark-list included), 65 malformed trace.\n";

enum option_code {
    OPT_TRACE = 256,
    OPT_ROOT,
    OPT_PACE,
    OPT_SEED,
    OPT_SQLITE_PREALLOC,
    OPT_MARK_LIST,
    OPT_MARK_XATTR,
    OPT_CHECK,
    OPT_HELP
};

static const struct option long_options[] = {
    {"trace", required_argument, NULL, OPT_TRACE},
    {"root", required_argument, NULL, OPT_ROOT},
    {"pace", no_argument, NULL, OPT_PACE},
    {"seed", required_argument, NULL, OPT_SEED},
    {"sqlite-prealloc", required_argument, NULL, OPT_SQLITE_PREALLOC},
    {"mark-list", required_argument, NULL, OPT_MARK_LIST},
    {"mark-xattr", required_argument, NULL, OPT_MARK_XATTR},
    {"check", no_argument, NULL, OPT_CHECK},
    {"help", no_argument, NULL, OPT_HELP},
    {NULL, 0, NULL, 0},
};

struct parsed_options {
    struct replay_config config;
    const char *mark_list_file;
    const char *mark_xattr;
    bool check_only;
    bool help;
};

/* A name setxattr(2) can take: "namespace.name", at most XATTR_NAME_MAX. */
static bool valid_xattr_name(const char *name)
{
    const char *dot = strchr(name, '.');
    return dot && dot != name && dot[1] != '\0' && strlen(name) <= 255;
}

static int apply_option(int code, const char *value, void *target)
{
    struct parsed_options *parsed = target;
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
    case OPT_MARK_LIST: parsed->mark_list_file = value; return EXIT_OK;
    case OPT_MARK_XATTR:
        parsed->mark_xattr = value;
        return valid_xattr_name(value)
                   ? EXIT_OK
                   : usage_error("replay", "invalid value for --mark-xattr: '%s' "
                                           "(expected namespace.name, e.g. user.ars)", value);
    case OPT_CHECK: parsed->check_only = true; return EXIT_OK;
    case OPT_HELP:
    case 'h': parsed->help = true; return EXIT_OK;
    }
    return EXIT_USAGE;
}

static int check_required(const struct parsed_options *parsed)
{
    if (!parsed->config.trace_file)
        return usage_error("replay", "missing required option --trace");
    if (parsed->check_only)
        return parsed->config.root || parsed->mark_list_file
                   ? usage_error("replay", "--check takes only --trace")
                   : EXIT_OK;
    if (!parsed->config.root)
        return usage_error("replay", "missing required option --root");
    if (parsed->mark_xattr && !parsed->mark_list_file)
        return usage_error("replay", "--mark-xattr needs --mark-list");
    return EXIT_OK;
}

static int parse_options(int argc, char **argv, struct parsed_options *parsed)
{
    *parsed = (struct parsed_options){.config = {.root_fd = -1}};
    const struct command_options spec = {"replay", long_options, apply_option, parsed,
                                         &parsed->help};
    int status = read_command_options(&spec, argc, argv);
    return status != EXIT_OK || parsed->help ? status : check_required(parsed);
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

static int load_mark_list(const char *file, struct mark_list *list)
{
    long outcome = mark_list_load(file, list, stderr);
    if (outcome > 0)
        return usage_error("replay", "malformed --mark-list %s (lines above)", file);
    if (outcome < 0)
        return usage_error("replay", "cannot read --mark-list %s: %s", file,
                           strerror((int)-outcome));
    return EXIT_OK;
}

static int open_root(struct replay_config *config)
{
    config->root_fd = open(config->root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (config->root_fd >= 0 && (config->real_root = realpath(config->root, NULL)) != NULL) {
        root_files_probe(config->root_fd);
        return EXIT_OK;
    }
    if (config->root_fd >= 0)
        close(config->root_fd);
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
           "\"reclaimed_bytes\":%llu,\"spared_files\":%llu,\"tree_blocks_freed\":%llu,"
           "\"seconds\":%.6f,\"ops_per_second\":%.3f,"
           "\"seed\":%llu,\"pace\":%s,\"sqlite_prealloc\":%llu,",
           (unsigned long long)stats->bytes_written, (unsigned long long)stats->bytes_read,
           (unsigned long long)stats->reclaimed_files,
           (unsigned long long)stats->reclaimed_bytes,
           (unsigned long long)stats->spared_files,
           (unsigned long long)stats->tree_blocks_freed, result->seconds, rate,
           (unsigned long long)config->seed, config->pace ? "true" : "false",
           (unsigned long long)config->sqlite_prealloc);
    const struct file_marker *marker = config->marker;
    printf("\"marks_listed\":%zu,\"marks_set\":%llu,\"mark_errors\":%llu}\n",
           marker ? marker->list.count : 0, (unsigned long long)file_marker_set_count(marker),
           (unsigned long long)file_marker_error_count(marker));
    fflush(stdout);
}

static int start_marker(struct replay_config *config, struct mark_list *list,
                        const char *xattr, struct file_marker *marker)
{
    if (!list)
        return EXIT_OK;
    int error = file_marker_init(marker, list, xattr, config->root);
    if (error) {
        fprintf(stderr, "%s replay: cannot resolve root %s: %s\n", PROGRAM_NAME,
                config->root, strerror(error));
        file_marker_free(marker);
        return EXIT_FAILURE_GENERIC;
    }
    config->marker = marker;
    return EXIT_OK;
}

static int replay_loaded(struct replay_config *config, const struct trace *trace)
{
    int status = open_root(config);
    if (status != EXIT_OK)
        return status;
    if (prealloc_vfs_register(config->sqlite_prealloc, config->marker) != SQLITE_OK) {
        fprintf(stderr, "%s replay: cannot install the SQLite preallocation VFS\n",
                PROGRAM_NAME);
        close(config->root_fd);
        free((char *)config->real_root);
        config->real_root = NULL;
        return EXIT_FAILURE_GENERIC;
    }
    struct replay_result result;
    run_replay(config, trace, &result);
    close(config->root_fd);
    free((char *)config->real_root);
    config->real_root = NULL;
    if (result.setup_failed)
        return EXIT_FAILURE_GENERIC;
    print_json(config, trace, &result);
    return EXIT_OK;
}

static int replay_with_marks(struct parsed_options *parsed, struct mark_list *list)
{
    struct file_marker marker;
    const char *xattr = parsed->mark_xattr ? parsed->mark_xattr : FILE_MARKER_DEFAULT_XATTR;
    int status = start_marker(&parsed->config, list, xattr, &marker);
    if (status != EXIT_OK)
        return status;
    struct trace trace;
    status = load_trace(parsed->config.trace_file, &trace);
    if (status == EXIT_OK)
        status = replay_loaded(&parsed->config, &trace);
    trace_free(&trace);
    if (parsed->config.marker)
        file_marker_free(&marker);
    return status;
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
    if (parsed.check_only) {
        struct trace trace;
        status = load_trace(parsed.config.trace_file, &trace);
        trace_free(&trace);
        return status;
    }
    struct mark_list list = {0};
    if (parsed.mark_list_file)
        status = load_mark_list(parsed.mark_list_file, &list);
    if (status == EXIT_OK)
        status = replay_with_marks(&parsed, parsed.mark_list_file ? &list : NULL);
    mark_list_free(&list);
    return status;
}
