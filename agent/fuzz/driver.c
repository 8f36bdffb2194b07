/* In-repo mutation driver for the trace parser's fuzz target, for machines
 * without clang's libFuzzer:
 *   trace-mutate [-runs=N] [-seed=S] SEED_FILE...
 * mutates the seed files with a fixed-seed generator (fuzz/mutator.h) and
 * runs each input through trace_fuzz_one. A crash (signal) writes the input
 * to crash-<seed>-<iteration>.iotrace in the working directory first. */
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "mutator.h"

int trace_fuzz_one(const uint8_t *data, size_t size);

#define MAX_SEEDS 256

static uint8_t current[MUTATOR_MAX_SIZE];
static size_t current_size;
static char crash_name[96];

static void save_crash(int signal_number)
{
    FILE *out = fopen(crash_name, "w");
    if (out) {
        fwrite(current, 1, current_size, out);
        fclose(out);
    }
    fprintf(stderr, "crash (signal %d): input saved as %s\n", signal_number, crash_name);
    signal(signal_number, SIG_DFL);
    raise(signal_number);
}

int main(int argc, char **argv)
{
    unsigned long long runs = 100000, seed = 1;
    static uint8_t seeds[MAX_SEEDS][MUTATOR_MAX_SIZE];
    size_t sizes[MAX_SEEDS], count = 0;
    for (int i = 1; i < argc; i++) {
        if (strncmp(argv[i], "-runs=", 6) == 0)
            runs = strtoull(argv[i] + 6, NULL, 10);
        else if (strncmp(argv[i], "-seed=", 6) == 0)
            seed = strtoull(argv[i] + 6, NULL, 10);
        else if (count < MAX_SEEDS) {
            FILE *in = fopen(argv[i], "rb");
            if (!in) {
                perror(argv[i]);
                return 2;
            }
            sizes[count] = fread(seeds[count], 1, MUTATOR_MAX_SIZE, in);
            fclose(in);
            count++;
        }
    }
    if (count == 0) {
        fprintf(stderr, "usage: %s [-runs=N] [-seed=S] SEED_FILE...\n", argv[0]);
        return 2;
    }
    int signals[] = {SIGABRT, SIGSEGV, SIGBUS, SIGFPE, SIGILL};
    for (size_t i = 0; i < sizeof signals / sizeof *signals; i++)
        signal(signals[i], save_crash);
    uint64_t state = seed;
    time_t start = time(NULL);
    for (unsigned long long run = 0; run < runs; run++) {
        size_t pick = mutator_below(&state, count), other = mutator_below(&state, count);
        memcpy(current, seeds[pick], sizes[pick]);
        current_size = run < count ? sizes[run] : sizes[pick];
        if (run < count)
            memcpy(current, seeds[run], sizes[run]);
        else
            current_size = mutator_mutate(&state, current, current_size, seeds[other],
                                          sizes[other]);
        snprintf(crash_name, sizeof crash_name, "crash-%llu-%llu.iotrace", seed, run);
        trace_fuzz_one(current, current_size);
    }
    printf("trace-mutate: %llu inputs from %zu seeds, seed %llu, %lld s, no crash\n", runs,
           count, seed, (long long)(time(NULL) - start));
    return 0;
}
