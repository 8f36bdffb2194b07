/* ARS's fragmentation benchmark: the rounds on a modeled file system, and the CLI. */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "fragbench.h"
#include "helpers.h"

#define MODEL_CAPACITY (1u << 20)

/* Used share of a modeled 1 MiB file system holding the directory's files. */
static op_status model_usage(int dir_fd, void *context, double *percent)
{
    (void)context;
    DIR *dir = fdopendir(dup(dir_fd));
    if (!dir)
        return 1;
    rewinddir(dir);
    uint64_t bytes = 0;
    struct dirent *entry;
    struct stat st;
    while ((entry = readdir(dir)))
        if (fstatat(dir_fd, entry->d_name, &st, 0) == 0 && S_ISREG(st.st_mode))
            bytes += (uint64_t)st.st_size;
    closedir(dir);
    *percent = 100.0 * (double)bytes / MODEL_CAPACITY;
    return OP_OK;
}

/* Number of files in dir of the given size; -1 if it cannot be read. */
static int files_of_size(const char *path, off_t size)
{
    DIR *dir = opendir(path);
    if (!dir)
        return -1;
    int count = 0;
    struct dirent *entry;
    char name[4096];
    while ((entry = readdir(dir))) {
        snprintf(name, sizeof name, "%s/%s", path, entry->d_name);
        count += entry->d_name[0] != '.' && file_size(name) == size;
    }
    closedir(dir);
    return count;
}

/* Expected numbers from the benchmark's definition worked through on the model
 * (fill to 90 % of 1 MiB with 64 KiB files, delete every other file of the round,
 * halve to 4 KiB): the rounds create 15, 15, 16, 16 and 15 files and keep 7, 7, 8,
 * 8 and 7 of them; 913,408 bytes stay. */
static void rounds_fill_delete_and_halve(void)
{
    struct fragbench_config config = {
        .dir = scratch_path("bench"), .fill = 90, .start = 65536, .minimum = 4096};
    struct fragbench_result result;
    const char *failed;
    CHECK_EQ(fragbench_run_with(&config, model_usage, NULL, &result, &failed), OP_OK);
    CHECK_EQ(result.rounds, 5);
    CHECK_EQ(result.created, 77);
    CHECK_EQ(result.live, 37);
    CHECK(result.used_percent > 87.10 && result.used_percent < 87.11);
    CHECK_EQ(count_dir_entries(config.dir), 37);
    /* a round deletes only its own files: the first round's survivors stay */
    CHECK_EQ(files_of_size(config.dir, 65536), 7);
    CHECK(file_size(scratch_path("bench/r00-00000001")) == 65536);
    CHECK(file_size(scratch_path("bench/r00-00000000")) == -1);
    CHECK(file_size(scratch_path("bench/r01-00000016")) == 32768);
    CHECK(file_size(scratch_path("bench/r01-00000015")) == -1);
}

/* The 4 KiB round deletes every other file it wrote as the earlier rounds do
 * (ARS sec. V.A repeats steps (2)-(4) down to 4 KB): the holes it leaves are 4 KiB,
 * and the benchmark ends below the fill. */
static void the_last_round_deletes_every_other_file(void)
{
    struct fragbench_config config = {
        .dir = scratch_path("bench"), .fill = 90, .start = 65536, .minimum = 4096};
    struct fragbench_result result;
    const char *failed;
    CHECK_EQ(fragbench_run_with(&config, model_usage, NULL, &result, &failed), OP_OK);
    CHECK_EQ(files_of_size(config.dir, 4096), 7);
    /* the last round's files are r04-00000062 ... r04-00000076: even ones deleted */
    CHECK(file_size(scratch_path("bench/r04-00000062")) == -1);
    CHECK(file_size(scratch_path("bench/r04-00000063")) == 4096);
    CHECK(file_size(scratch_path("bench/r04-00000076")) == -1);
    CHECK(result.used_percent < config.fill);
}

static void a_full_model_creates_nothing(void)
{
    struct fragbench_config config = {
        .dir = scratch_path("bench"), .fill = 0.0001, .start = 8192, .minimum = 4096};
    CHECK(make_dir(config.dir));
    CHECK(write_file(scratch_path("bench/already"), "0123456789", 10));
    struct fragbench_result result;
    const char *failed;
    CHECK_EQ(fragbench_run_with(&config, model_usage, NULL, &result, &failed), OP_OK);
    CHECK_EQ(result.rounds, 2);
    CHECK_EQ(result.created, 0);
    CHECK_EQ(count_dir_entries(config.dir), 1);
}

static void cli_refuses_min_above_start(void)
{
    struct agent_run run;
    CHECK(run_agent(&run, "fragbench", "--dir", scratch_path("d"), "--fill", "50", "--start",
                    "4K", "--min", "8K", NULL));
    CHECK_EQ(run.status, 64);
    CHECK_CONTAINS(run.stderr_text, "--min (8192) is larger than --start (4096)");
    CHECK_EQ(count_dir_entries(scratch_path("d")), -1);
    agent_run_free(&run);
}

static void cli_names_a_bad_fill(void)
{
    struct agent_run run;
    CHECK(run_agent(&run, "fragbench", "--dir", scratch_path("d"), "--fill", "90%", "--start",
                    "8K", "--min", "4K", NULL));
    CHECK_EQ(run.status, 64);
    CHECK_CONTAINS(run.stderr_text, "invalid value for --fill: '90%'");
    agent_run_free(&run);
}

static void cli_prints_the_summary(void)
{
    struct agent_run run;
    /* a fill below the scratch file system's use: every round ends at once */
    CHECK(run_agent(&run, "fragbench", "--dir", scratch_path("d"), "--fill", "0.000001",
                    "--start", "16K", "--min", "4K", NULL));
    CHECK_EQ(run.status, 0);
    CHECK_CONTAINS(run.stdout_text, "{\"rounds\":3,\"created\":0,\"live\":0,\"used_percent\":");
    agent_run_free(&run);
}

void register_fragbench_tests(void)
{
    test_register("fragbench: rounds fill, delete every other, halve", rounds_fill_delete_and_halve);
    test_register("fragbench: the last round deletes every other file",
                  the_last_round_deletes_every_other_file);
    test_register("fragbench: a full model creates nothing", a_full_model_creates_nothing);
    test_register("fragbench: --min above --start refused", cli_refuses_min_above_start);
    test_register("fragbench: a bad --fill is named", cli_names_a_bad_fill);
    test_register("fragbench: the summary is printed", cli_prints_the_summary);
}
