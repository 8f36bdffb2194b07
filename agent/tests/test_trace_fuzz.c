/* Bounded, deterministic fuzzing of the trace parser in `make test`: the
 * seed traces of fuzz/seeds/ (and a few built in) mutated with a fixed seed
 * (fuzz/mutator.h) and fed to the fuzz target, which aborts on a crash or a
 * broken promise of an accepted trace. It runs in a child process, so a crash
 * fails this test (saving the input in the scratch directory) and not the run.
 * Longer sessions: `make -C agent fuzz-run` (docs/fuzzing.md). */
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../fuzz/mutator.h"
#include "check.h"
#include "helpers.h"

#define FUZZ_TEST_RUNS 20000
#define FUZZ_TEST_SEED 20261125u

int trace_fuzz_one(const uint8_t *data, size_t size);

static const char *const builtin_seeds[] = {
    "#iotrace v1\n0\t0\tmkdir\ta/b\n1\t0\twrite\ta/b/f\t0\t4096\n2\t1\tsql\td.db\twal\tinsert\t1\t10\n"
    "3\t2\treclaim\tm\t90\t0\t7\timg-*\n4\t2\tfill\tm/f\t72.5\n5\t0\trename\ta/b/f\ta/g\\x41\n",
    "#iotrace v1\n0\t0\tfallocate\tf\t0\t10\tkeep\n0\t0\ttruncate\tf\t9223372036854775807\n",
    "#iotrace v1\n# comment\n\n18446744073709551615\t3\tunlink\t./-\n",
    "",
};

/* Seeds: the files given by fuzz/seeds/ (when the test runs from agent/) and
 * the built-in ones. */
static size_t load_seeds(uint8_t seeds[][MUTATOR_MAX_SIZE], size_t *sizes, size_t max)
{
    size_t count = 0;
    const char *files[] = {"fuzz/seeds/every-op.iotrace", "fuzz/seeds/edges.iotrace",
                           "fuzz/seeds/bad.iotrace"};
    for (size_t i = 0; i < sizeof files / sizeof *files && count < max; i++) {
        size_t size;
        char *text = read_file(files[i], &size);
        if (!text)
            continue;
        sizes[count] = size < MUTATOR_MAX_SIZE ? size : MUTATOR_MAX_SIZE;
        memcpy(seeds[count], text, sizes[count]);
        count++;
        free(text);
    }
    for (size_t i = 0; i < sizeof builtin_seeds / sizeof *builtin_seeds && count < max; i++) {
        sizes[count] = strlen(builtin_seeds[i]);
        memcpy(seeds[count], builtin_seeds[i], sizes[count]);
        count++;
    }
    return count;
}

static uint8_t input[MUTATOR_MAX_SIZE];
static size_t input_size;
static const char *crash_file;

/* In the child, on a crash: keep the input, then die of the same signal. */
static void keep_input(int signal_number)
{
    int fd = open(crash_file, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd >= 0) {
        ssize_t written = write(fd, input, input_size);
        (void)written;
        close(fd);
    }
    signal(signal_number, SIG_DFL);
    raise(signal_number);
}

static void fuzz_in_child(const char *crash_path)
{
    static uint8_t seeds[8][MUTATOR_MAX_SIZE];
    size_t sizes[8];
    crash_file = crash_path;
    int signals[] = {SIGABRT, SIGSEGV, SIGBUS, SIGFPE, SIGILL};
    for (size_t i = 0; i < sizeof signals / sizeof *signals; i++)
        signal(signals[i], keep_input);
    size_t count = load_seeds(seeds, sizes, 8);
    uint64_t state = FUZZ_TEST_SEED;
    for (unsigned run = 0; run < FUZZ_TEST_RUNS; run++) {
        size_t pick = mutator_below(&state, count), other = mutator_below(&state, count);
        memcpy(input, seeds[pick], sizes[pick]);
        input_size = mutator_mutate(&state, input, sizes[pick], seeds[other], sizes[other]);
        trace_fuzz_one(input, input_size);
    }
    _exit(0);
}

static void mutated_traces_never_crash_the_parser(void)
{
    const char *crash_path = scratch_path("crash.iotrace");
    fflush(NULL);
    pid_t child = fork();
    if (!CHECK(child >= 0))
        return;
    if (child == 0)
        fuzz_in_child(crash_path);
    int status = 0;
    CHECK(waitpid(child, &status, 0) == child);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    if (!(WIFEXITED(status) && WEXITSTATUS(status) == 0))
        fprintf(stderr, "    crashing input kept in %s\n", crash_path);
}

void register_trace_fuzz_tests(void)
{
    test_register("trace fuzz: mutated traces never crash the parser",
                  mutated_traces_never_crash_the_parser);
}
