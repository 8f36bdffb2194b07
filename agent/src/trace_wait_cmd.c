#include "trace_wait_cmd.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <linux/fs.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "exit_codes.h"

/* Polling step: blktrace starts its trace within milliseconds of creating its
 * files, and a TCG guest pays about a millisecond per wake-up. */
#define POLL_STEP_NS 10000000L

static const char usage_text[] =
    "Usage: " PROGRAM_NAME " trace-wait --device DEV --pid PID [--timeout-ms N]\n"
    "\n"
    "Returns once the blktrace run PID started on DEV records events.\n"
    "blktrace creates its output files before it starts the kernel's trace\n"
    "(BLKTRACESTART), so a workload started when the files appear can lose its\n"
    "first requests. The kernel tells a running trace from one only set up by\n"
    "whether BLKTRACESTOP succeeds: this command tries it every 10 ms and, once\n"
    "it does, starts the trace again at once (no request of the workload, which\n"
    "has not begun, falls between the two).\n"
    "\n"
    "  --device DEV      the traced block device\n"
    "  --pid PID         the blktrace process: its exit ends the wait\n"
    "  --timeout-ms N    give up after N milliseconds (default 10000)\n"
    "\n"
    "Exit status: 0 tracing, 1 blktrace exited, timed out or the device has no\n"
    "block trace, 64 bad arguments.\n";

enum option_code { OPT_DEVICE = 256, OPT_PID, OPT_TIMEOUT, OPT_HELP };

static const struct option long_options[] = {
    {"device", required_argument, NULL, OPT_DEVICE},
    {"pid", required_argument, NULL, OPT_PID},
    {"timeout-ms", required_argument, NULL, OPT_TIMEOUT},
    {"help", no_argument, NULL, OPT_HELP},
    {NULL, 0, NULL, 0},
};

struct trace_wait_options {
    const char *device;
    uint64_t pid;
    uint64_t timeout_ms;
    bool has_pid;
    bool help;
};

static int apply_option(int code, const char *value, void *target)
{
    struct trace_wait_options *options = target;
    switch (code) {
    case OPT_DEVICE: options->device = value; return EXIT_OK;
    case OPT_PID:
        if (!parse_u64(value, &options->pid) || options->pid == 0 || options->pid > INT32_MAX)
            return usage_error("trace-wait", "--pid '%s' is not a process id", value);
        options->has_pid = true;
        return EXIT_OK;
    case OPT_TIMEOUT:
        if (!parse_u64(value, &options->timeout_ms) || options->timeout_ms > 3600000)
            return usage_error("trace-wait", "--timeout-ms '%s' is not 0 to 3600000", value);
        return EXIT_OK;
    default: options->help = true; return EXIT_OK;
    }
}

static int parse_options(int argc, char **argv, struct trace_wait_options *options)
{
    *options = (struct trace_wait_options){.timeout_ms = 10000};
    const struct command_options spec = {"trace-wait", long_options, apply_option, options,
                                         &options->help};
    int status = read_command_options(&spec, argc, argv);
    if (status != EXIT_OK || options->help)
        return status;
    if (!options->device)
        return usage_error("trace-wait", "missing required option --device");
    if (!options->has_pid)
        return usage_error("trace-wait", "missing required option --pid");
    return EXIT_OK;
}

static int fail(const char *device, const char *what)
{
    fprintf(stderr, "%s trace-wait: %s: %s\n", PROGRAM_NAME, device, what);
    return EXIT_FAILURE_GENERIC;
}

/* 1 once the trace on fd runs (and runs again), 0 while it does not, -1 on an
 * error other than "no running trace" (EINVAL), errno set. */
static int trace_running(int fd)
{
    if (ioctl(fd, BLKTRACESTOP) == 0)
        return ioctl(fd, BLKTRACESTART) == 0 ? 1 : -1;
    return errno == EINVAL ? 0 : -1;
}

/* Whether pid runs: neither gone nor a zombie its parent, the job's shell
 * waiting for this command, has not reaped yet. */
static bool process_alive(pid_t pid)
{
    if (kill(pid, 0) != 0 && errno == ESRCH)
        return false;
    char path[64], stat[512];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    FILE *file = fopen(path, "re");
    if (!file)
        return true; /* no /proc: kill's answer stands */
    size_t n = fread(stat, 1, sizeof stat - 1, file);
    fclose(file);
    stat[n] = '\0';
    const char *name_end = strrchr(stat, ')');
    return !(name_end && name_end[1] == ' ' && name_end[2] == 'Z');
}

static int wait_for_trace(const struct trace_wait_options *options, int fd)
{
    const struct timespec step = {0, POLL_STEP_NS};
    uint64_t polls = options->timeout_ms * 1000000 / POLL_STEP_NS + 1;
    for (uint64_t i = 0; i < polls; i++) {
        int running = trace_running(fd);
        if (running == 1)
            return EXIT_OK;
        if (running < 0) {
            char what[160];
            snprintf(what, sizeof what, "no block trace to wait for (%s)", strerror(errno));
            return fail(options->device, what);
        }
        if (!process_alive((pid_t)options->pid))
            return fail(options->device, "blktrace exited before its trace started");
        nanosleep(&step, NULL);
    }
    return fail(options->device, "blktrace did not start its trace in time");
}

int trace_wait_command(int argc, char **argv)
{
    struct trace_wait_options options;
    int status = parse_options(argc, argv, &options);
    if (status != EXIT_OK || options.help) {
        if (options.help)
            fputs(usage_text, stdout);
        return status;
    }
    int fd = open(options.device, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return fail(options.device, strerror(errno));
    status = wait_for_trace(&options, fd);
    close(fd);
    return status;
}
