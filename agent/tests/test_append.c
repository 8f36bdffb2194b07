/* `mobifrag-agent append` end to end. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "helpers.h"
#include "record_content.h"

/* Every byte of the file equals the content function at its offset. */
static bool content_matches(const char *path, uint64_t seed, uint64_t stream,
                            size_t expected_size)
{
    size_t size;
    char *data = read_file(path, &size);
    bool ok = data && size == expected_size;
    for (size_t i = 0; ok && i < size; i++)
        ok = (uint8_t)data[i] == record_content_byte(seed, stream, i);
    free(data);
    return ok;
}

static uint64_t json_field(const char *json, const char *key)
{
    uint64_t value = UINT64_MAX;
    CHECK(json_u64(json, key, &value));
    return value;
}

static void three_threads_write_three_full_files(void)
{
    struct agent_run run;
    CHECK(run_agent(&run, "append", "--dir", scratch_path("d"), "--threads", "3",
                    "--record-size", "4K", "--file-size", "64K", NULL));
    CHECK_EQ(run.status, 0);
    CHECK_EQ(count_dir_entries(scratch_path("d")), 3);
    CHECK(content_matches(scratch_path("d/file0"), 0, 0, 65536));
    CHECK(content_matches(scratch_path("d/file1"), 0, 1, 65536));
    CHECK(content_matches(scratch_path("d/file2"), 0, 2, 65536));
    CHECK_CONTAINS(run.stdout_text, "\"command\":\"append\"");
    CHECK_CONTAINS(run.stdout_text, "\"records_per_second\":");
    CHECK_CONTAINS(run.stdout_text, "\"seconds\":");
    CHECK_EQ(json_field(run.stdout_text, "threads"), 3);
    CHECK_EQ(json_field(run.stdout_text, "record_size"), 4096);
    CHECK_EQ(json_field(run.stdout_text, "file_size"), 65536);
    CHECK_EQ(json_field(run.stdout_text, "bytes_written"), 3 * 65536);
    CHECK_EQ(json_field(run.stdout_text, "records"), 3 * 16);
    CHECK_EQ(json_field(run.stdout_text, "errors"), 0);
    CHECK_EQ(count_lines(run.stdout_text), 1);
    agent_run_free(&run);
}

static void last_record_is_cut_to_the_file_size(void)
{
    struct agent_run run;
    CHECK(run_agent(&run, "append", "--dir", scratch_path("d"), "--threads", "2",
                    "--record-size", "3000", "--file-size", "10000", "--prefix", "app",
                    "--suffix", ".db", "--seed", "7", "--sync", "fdatasync", NULL));
    CHECK_EQ(run.status, 0);
    CHECK_EQ(count_dir_entries(scratch_path("d")), 2);
    CHECK(content_matches(scratch_path("d/app0.db"), 7, 0, 10000));
    CHECK(content_matches(scratch_path("d/app1.db"), 7, 1, 10000));
    CHECK_EQ(json_field(run.stdout_text, "records"), 2 * 4);
    CHECK_EQ(json_field(run.stdout_text, "bytes_written"), 20000);
    agent_run_free(&run);
}

static void existing_files_are_replaced(void)
{
    CHECK(make_dir(scratch_path("d")));
    char big[100000];
    memset(big, 0, sizeof big);
    CHECK(write_file(scratch_path("d/file0"), big, sizeof big));
    struct agent_run run;
    CHECK(run_agent(&run, "append", "--dir", scratch_path("d"), "--threads", "1",
                    "--record-size", "1K", "--file-size", "8K", "--sync", "none", NULL));
    CHECK_EQ(run.status, 0);
    CHECK(content_matches(scratch_path("d/file0"), 0, 0, 8192));
    agent_run_free(&run);
}

static void preallocation_keeps_size_and_content(void)
{
    struct agent_run run;
    CHECK(run_agent(&run, "append", "--dir", scratch_path("d"), "--threads", "2",
                    "--record-size", "4K", "--file-size", "40K", "--prealloc", "32K", NULL));
    CHECK_EQ(run.status, 0);
    CHECK(content_matches(scratch_path("d/file0"), 0, 0, 40960));
    struct stat st;
    /* Two 32 KiB units were reserved, the second only partly used. */
    CHECK(stat(scratch_path("d/file1"), &st) == 0 && st.st_blocks * 512 >= 65536);
    CHECK_EQ(json_field(run.stdout_text, "prealloc"), 32768);
    agent_run_free(&run);
}

/* /dev/full fails every write with ENOSPC; a symlink puts it where the
 * appender's first file goes, so the full-disk path runs without root. */
static bool point_file0_at_dev_full(void)
{
    return make_dir(scratch_path("d")) && symlink("/dev/full", scratch_path("d/file0")) == 0;
}

static void enospc_fails_with_status_2_naming_the_file(void)
{
    if (access("/dev/full", W_OK) != 0) {
        test_skip("no writable /dev/full");
        return;
    }
    CHECK(point_file0_at_dev_full());
    struct agent_run run;
    CHECK(run_agent(&run, "append", "--dir", scratch_path("d"), "--threads", "2",
                    "--record-size", "4K", "--file-size", "16K", NULL));
    CHECK_EQ(run.status, 2);
    CHECK_CONTAINS(run.stderr_text, scratch_path("d/file0"));
    CHECK_CONTAINS(run.stderr_text, "No space left on device");
    CHECK_EQ(json_field(run.stdout_text, "errors"), 1);
    agent_run_free(&run);
}

static void continue_on_enospc_lets_other_threads_finish(void)
{
    if (access("/dev/full", W_OK) != 0) {
        test_skip("no writable /dev/full");
        return;
    }
    CHECK(point_file0_at_dev_full());
    struct agent_run run;
    CHECK(run_agent(&run, "append", "--dir", scratch_path("d"), "--threads", "3",
                    "--record-size", "4K", "--file-size", "16K", "--continue-on-enospc",
                    NULL));
    CHECK_EQ(run.status, 0);
    CHECK_EQ(json_field(run.stdout_text, "errors"), 1);
    CHECK_EQ(json_field(run.stdout_text, "bytes_written"), 2 * 16384);
    CHECK(content_matches(scratch_path("d/file1"), 0, 1, 16384));
    CHECK(content_matches(scratch_path("d/file2"), 0, 2, 16384));
    CHECK_CONTAINS(run.stderr_text, "No space left on device");
    agent_run_free(&run);
}

static void expect_usage_error(const char *mentioned, const char *const args[])
{
    const char *a[10] = {0};
    for (int i = 0; i < 10 && args[i]; i++)
        a[i] = args[i];
    struct agent_run run;
    CHECK(run_agent(&run, "append", a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8],
                    a[9], NULL));
    if (!CHECK_EQ(run.status, 64))
        printf("    case mentioning %s\n", mentioned);
    CHECK_CONTAINS(run.stderr_text, mentioned);
    CHECK_STR(run.stdout_text, "");
    agent_run_free(&run);
}

#define VALID "--dir", scratch_path("d"), "--threads", "2", "--record-size", "4K"

static void append_argument_errors_exit_64(void)
{
    expect_usage_error("--dir", (const char *const[]){"--threads", "1", "--record-size", "1",
                                                      "--file-size", "1", NULL});
    expect_usage_error("--file-size", (const char *const[]){VALID, NULL});
    expect_usage_error("--threads", (const char *const[]){"--dir", "x", "--threads", "0", NULL});
    expect_usage_error("--threads", (const char *const[]){"--dir", "x", "--threads", "two", NULL});
    expect_usage_error("--record-size", (const char *const[]){"--record-size", "0", NULL});
    expect_usage_error("--record-size", (const char *const[]){"--record-size", "4Q", NULL});
    expect_usage_error("--file-size", (const char *const[]){VALID, "--file-size", "-1", NULL});
    expect_usage_error("--sync", (const char *const[]){VALID, "--sync", "sometimes", NULL});
    expect_usage_error("--seed", (const char *const[]){VALID, "--seed", "x", NULL});
    expect_usage_error("--prefix", (const char *const[]){VALID, "--prefix", "a/b", NULL});
    expect_usage_error("--bogus", (const char *const[]){VALID, "--bogus", NULL});
    expect_usage_error("--bogus", (const char *const[]){VALID, "--bogus=1", NULL});
    expect_usage_error("--file-size", (const char *const[]){VALID, "--file-size", NULL});
    expect_usage_error("extra", (const char *const[]){VALID, "--file-size", "1", "extra", NULL});
    CHECK_EQ(count_dir_entries(scratch_path("d")), -1); /* nothing was created */
}

static void help_and_command_dispatch(void)
{
    struct agent_run run;
    CHECK(run_agent(&run, "append", "--help", NULL));
    CHECK_EQ(run.status, 0);
    CHECK_CONTAINS(run.stdout_text, "--record-size");
    agent_run_free(&run);
    CHECK(run_agent(&run, "fragcheck", "--help", NULL));
    CHECK_EQ(run.status, 0);
    CHECK_CONTAINS(run.stdout_text, "--extents");
    agent_run_free(&run);
    CHECK(run_agent(&run, "--help", NULL));
    CHECK_EQ(run.status, 0);
    CHECK_CONTAINS(run.stdout_text, "fragcheck");
    agent_run_free(&run);
    CHECK(run_agent(&run, "defrag", NULL));
    CHECK_EQ(run.status, 64);
    CHECK_CONTAINS(run.stderr_text, "defrag");
    agent_run_free(&run);
    CHECK(run_agent(&run, NULL));
    CHECK_EQ(run.status, 64);
    agent_run_free(&run);
}

void register_append_tests(void)
{
    test_register("append: 3 threads write 3 full files", three_threads_write_three_full_files);
    test_register("append: last record is cut to the file size",
                  last_record_is_cut_to_the_file_size);
    test_register("append: existing files are replaced", existing_files_are_replaced);
    test_register("append: preallocation keeps size and content",
                  preallocation_keeps_size_and_content);
    test_register("append: ENOSPC fails with status 2 naming the file",
                  enospc_fails_with_status_2_naming_the_file);
    test_register("append: --continue-on-enospc lets other threads finish",
                  continue_on_enospc_lets_other_threads_finish);
    test_register("append: argument errors exit 64", append_argument_errors_exit_64);
    test_register("cli: help and command dispatch", help_and_command_dispatch);
}
