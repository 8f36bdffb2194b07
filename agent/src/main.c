#include <stdio.h>
#include <string.h>

#include "append_cmd.h"
#include "cli.h"
#include "exit_codes.h"
#include "fragbench_cmd.h"
#include "fragcheck_cmd.h"
#include "replay_cmd.h"
#include "trace_wait_cmd.h"

#define AGENT_VERSION "0.1.0"

static const char usage_text[] =
    "Usage: " PROGRAM_NAME " <command> [options]\n"
    "\n"
    "Commands:\n"
    "  append     concurrent appender workload: N threads, one file each,\n"
    "             small synchronous appends (TMC sec. 4.2 / 6.1.1)\n"
    "  fragbench  ARS's fragmentation benchmark: fill, delete every other\n"
    "             file, halve the size, repeat (ARS sec. V.A)\n"
    "  fragcheck  snapshot of every regular file's extents (FIEMAP) as TSV tables\n"
    "  replay     replay a workload trace (.iotrace) with real system calls\n"
    "             and libsqlite3\n"
    "  trace-wait wait until blktrace's trace of a device records events\n"
    "\n"
    "Run '" PROGRAM_NAME " <command> --help' for the options of a command.\n";

static const struct {
    const char *name;
    int (*run)(int argc, char **argv);
} commands[] = {
    {"append", append_command},
    {"fragbench", fragbench_command},
    {"fragcheck", fragcheck_command},
    {"replay", replay_command},
    {"trace-wait", trace_wait_command},
};

static int is_help(const char *word)
{
    return strcmp(word, "--help") == 0 || strcmp(word, "-h") == 0 ||
           strcmp(word, "help") == 0;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fputs(usage_text, stderr);
        return EXIT_USAGE;
    }
    if (is_help(argv[1])) {
        fputs(usage_text, stdout);
        return EXIT_OK;
    }
    if (strcmp(argv[1], "--version") == 0) {
        puts(PROGRAM_NAME " " AGENT_VERSION);
        return EXIT_OK;
    }
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (strcmp(argv[1], commands[i].name) == 0)
            return commands[i].run(argc - 1, argv + 1);
    fprintf(stderr, "%s: unknown command '%s'\n%s", PROGRAM_NAME, argv[1], usage_text);
    return EXIT_USAGE;
}
