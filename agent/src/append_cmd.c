#include "append_cmd.h"

#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "appender.h"
#include "cli.h"
#include "exit_codes.h"

#define MAX_THREADS 4096u

static const char usage_text[] =
    "Usage: " PROGRAM_NAME " append --dir DIR --threads N --record-size BYTES\n"
    "           --file-size BYTES [--prefix NAME] [--suffix SUFFIX]\n"
    "           [--sync fsync|fdatasync|none] [--seed S] [--prealloc BYTES]\n"
    "           [--continue-on-enospc]\n"
    "\n"
    "Concurrent appender (TMC sec. 4.2 / 6.1.1): N threads, one file each\n"
    "(DIR/<prefix><i><suffix>, i = 0..N-1), released together, each appending\n"
    "records with write(2) followed by the sync call until the file holds\n"
    "--file-size bytes (the last record is cut to fit).\n"
    "\n"
    "  --dir DIR             directory for the files (created if missing)\n"
    "  --threads N           number of writer threads and files (1..4096)\n"
    "  --record-size BYTES   bytes per write, > 0\n"
    "  --file-size BYTES     final size of every file\n"
    "  --prefix NAME         file name prefix (default \"file\")\n"
    "  --suffix SUFFIX       file name suffix, e.g. .db (default none)\n"
    "  --sync MODE           fsync (default), fdatasync or none, after each record\n"
    "  --seed S              seed of the record content (default 0)\n"
    "  --prealloc BYTES      reserve space in units of BYTES with\n"
    "                        fallocate(KEEP_SIZE) before the file outgrows it\n"
    "                        (TMC sec. 6.1.1; default 0 = never)\n"
    "  --continue-on-enospc  a writer hitting ENOSPC stops, the others go on,\n"
    "                        and the exit status stays 0\n"
    "\n"
    "BYTES take an optional K, M or G suffix (KiB, MiB, GiB).\n"
    "Prints one JSON object on stdout. Exit status: 0 done, 1 setup failure,\n"
    "2 I/O error on a workload file, 64 bad arguments.\n";

enum option_code {
    OPT_DIR = 256, OPT_THREADS, OPT_RECORD_SIZE, OPT_FILE_SIZE, OPT_PREFIX,
    OPT_SUFFIX, OPT_SYNC, OPT_SEED, OPT_PREALLOC, OPT_CONTINUE, OPT_HELP
};

static const struct option long_options[] = {
    {"dir", required_argument, NULL, OPT_DIR},
    {"threads", required_argument, NULL, OPT_THREADS},
    {"record-size", required_argument, NULL, OPT_RECORD_SIZE},
    {"file-size", required_argument, NULL, OPT_FILE_SIZE},
    {"prefix", required_argument, NULL, OPT_PREFIX},
    {"suffix", required_argument, NULL, OPT_SUFFIX},
    {"sync", required_argument, NULL, OPT_SYNC},
    {"seed", required_argument, NULL, OPT_SEED},
    {"prealloc", required_argument, NULL, OPT_PREALLOC},
    {"continue-on-enospc", no_argument, NULL, OPT_CONTINUE},
    {"help", no_argument, NULL, OPT_HELP},
    {NULL, 0, NULL, 0},
};

struct parsed_options {
    struct append_config config;
    bool have_threads, have_record_size, have_file_size;
    bool help;
};

static int bad_value(const char *option, const char *value, const char *expected)
{
    return usage_error("append", "invalid value for --%s: '%s' (expected %s)",
                       option, value, expected);
}

static bool parse_sync_mode(const char *text, enum sync_mode *mode)
{
    for (enum sync_mode m = SYNC_FSYNC; m <= SYNC_NONE; m++)
        if (strcmp(text, sync_mode_name(m)) == 0) {
            *mode = m;
            return true;
        }
    return false;
}

static int parse_threads(const char *value, unsigned *threads)
{
    uint64_t n;
    if (!parse_u64(value, &n) || n < 1 || n > MAX_THREADS)
        return bad_value("threads", value, "an integer from 1 to 4096");
    *threads = (unsigned)n;
    return EXIT_OK;
}

static int parse_bytes(const char *option, const char *value, uint64_t *out)
{
    if (!parse_size(value, out) || *out > (uint64_t)INT64_MAX)
        return bad_value(option, value, "a byte count like 4096, 4K, 1M");
    return EXIT_OK;
}

static int parse_file_name_part(const char *option, const char *value, const char **out)
{
    if (strchr(value, '/'))
        return bad_value(option, value, "a name without '/'");
    *out = value;
    return EXIT_OK;
}

static int apply_option(int code, const char *value, void *target)
{
    struct parsed_options *parsed = target;
    struct append_config *config = &parsed->config;
    switch (code) {
    case OPT_DIR:
        config->dir = value;
        return EXIT_OK;
    case OPT_THREADS:
        parsed->have_threads = true;
        return parse_threads(value, &config->threads);
    case OPT_RECORD_SIZE:
        parsed->have_record_size = true;
        if (parse_bytes("record-size", value, &config->record_size) != EXIT_OK)
            return EXIT_USAGE;
        return config->record_size ? EXIT_OK
                                   : bad_value("record-size", value, "more than 0 bytes");
    case OPT_FILE_SIZE:
        parsed->have_file_size = true;
        return parse_bytes("file-size", value, &config->file_size);
    case OPT_PREFIX:
        return parse_file_name_part("prefix", value, &config->prefix);
    case OPT_SUFFIX:
        return parse_file_name_part("suffix", value, &config->suffix);
    case OPT_SYNC:
        return parse_sync_mode(value, &config->sync)
                   ? EXIT_OK
                   : bad_value("sync", value, "fsync, fdatasync or none");
    case OPT_SEED:
        return parse_u64(value, &config->seed)
                   ? EXIT_OK
                   : bad_value("seed", value, "an unsigned 64-bit integer");
    case OPT_PREALLOC:
        return parse_bytes("prealloc", value, &config->prealloc);
    case OPT_CONTINUE:
        config->continue_on_enospc = true;
        return EXIT_OK;
    case OPT_HELP:
    case 'h':
        parsed->help = true;
        return EXIT_OK;
    }
    return EXIT_USAGE;
}

static int check_required(const struct parsed_options *parsed)
{
    if (!parsed->config.dir)
        return usage_error("append", "missing required option --dir");
    if (!parsed->have_threads)
        return usage_error("append", "missing required option --threads");
    if (!parsed->have_record_size)
        return usage_error("append", "missing required option --record-size");
    if (!parsed->have_file_size)
        return usage_error("append", "missing required option --file-size");
    return EXIT_OK;
}

static int parse_options(int argc, char **argv, struct parsed_options *parsed)
{
    *parsed = (struct parsed_options){
        .config = {.prefix = "file", .suffix = "", .sync = SYNC_FSYNC},
    };
    const struct command_options spec = {"append", long_options, apply_option, parsed,
                                         &parsed->help};
    int status = read_command_options(&spec, argc, argv);
    return status != EXIT_OK || parsed->help ? status : check_required(parsed);
}

static void print_json(const struct append_config *config,
                       const struct append_result *result)
{
    double rate = result->seconds > 0 ? (double)result->records / result->seconds : 0.0;
    printf("{\"command\":\"append\",\"threads\":%u,\"record_size\":%llu,"
           "\"file_size\":%llu,\"bytes_written\":%llu,\"records\":%llu,"
           "\"seconds\":%.6f,\"records_per_second\":%.3f,\"errors\":%u,"
           "\"sync\":\"%s\",\"prealloc\":%llu,\"seed\":%llu}\n",
           config->threads, (unsigned long long)config->record_size,
           (unsigned long long)config->file_size,
           (unsigned long long)result->bytes_written,
           (unsigned long long)result->records, result->seconds, rate,
           result->errors, sync_mode_name(config->sync),
           (unsigned long long)config->prealloc, (unsigned long long)config->seed);
    fflush(stdout);
}

int append_command(int argc, char **argv)
{
    struct parsed_options parsed;
    int status = parse_options(argc, argv, &parsed);
    if (status != EXIT_OK)
        return status;
    if (parsed.help) {
        fputs(usage_text, stdout);
        return EXIT_OK;
    }
    struct append_result result;
    run_append(&parsed.config, &result);
    if (result.setup_failed)
        return EXIT_FAILURE_GENERIC;
    print_json(&parsed.config, &result);
    return result.fatal ? EXIT_WORKLOAD_IO : EXIT_OK;
}
