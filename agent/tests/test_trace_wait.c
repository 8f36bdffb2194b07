/* `mobifrag-agent trace-wait` outside a guest: its refusals. Waiting on a real
 * blktrace needs root and a block device; every traced phase of the emulator
 * tests runs it (jobs/lib.sh trace_start). */
#include <stdio.h>

#include "check.h"
#include "helpers.h"

static void expect_status(int status, const char *mentioned, const char *a, const char *b,
                          const char *c, const char *d)
{
    struct agent_run run;
    CHECK(run_agent(&run, "trace-wait", a, b, c, d, NULL));
    CHECK_EQ(run.status, status);
    CHECK_CONTAINS(run.stderr_text, mentioned);
    agent_run_free(&run);
}

static void argument_errors_exit_64(void)
{
    expect_status(64, "--device", "--pid", "1", NULL, NULL);
    expect_status(64, "--pid", "--device", "/dev/null", NULL, NULL);
    expect_status(64, "'0'", "--device", "/dev/null", "--pid", "0");
    expect_status(64, "'x'", "--device", "/dev/null", "--pid", "x");
    expect_status(64, "--timeout-ms", "--device", "/dev/null", "--timeout-ms", "-1");
    expect_status(64, "stray", "--device", "/dev/null", "stray", NULL);
}

static void a_device_without_a_trace_fails_at_once_naming_it(void)
{
    const char *file = scratch_path("plain-file");
    FILE *handle = fopen(file, "w");
    CHECK(handle != NULL);
    if (handle)
        fclose(handle);
    expect_status(1, "plain-file: no block trace to wait for", "--device", file, "--pid", "1");
    expect_status(1, "nowhere", "--device", scratch_path("nowhere"), "--pid", "1");
}

void register_trace_wait_tests(void)
{
    test_register("trace-wait: argument errors exit 64", argument_errors_exit_64);
    test_register("trace-wait: a device without a trace fails at once, naming it",
                  a_device_without_a_trace_fails_at_once_naming_it);
}
