/* `mobifrag-agent replay` end to end, on real files under $TMPDIR. */
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "check.h"
#include "helpers.h"
#include "path_hash.h"
#include "record_content.h"

/* Writes scratch/name: the header line, then the given lines. */
static const char *write_trace(const char *name, const char *body)
{
    const char *path = scratch_path(name);
    char *text;
    CHECK(asprintf(&text, "#iotrace v1\n%s", body) > 0);
    CHECK(write_file(path, text, strlen(text)));
    free(text);
    return path;
}

/* Replays `body` on scratch/root (created here), with --seed seed. */
static bool replay(struct agent_run *run, const char *body, const char *seed)
{
    mkdir(scratch_path("root"), 0755);
    const char *trace = write_trace("t.iotrace", body);
    return run_agent(run, "replay", "--trace", trace, "--root", scratch_path("root"),
                     "--seed", seed, NULL);
}

/* "key":N inside the JSON object "object":{...}. */
static uint64_t json_member(const char *json, const char *object, const char *key)
{
    char start[64];
    snprintf(start, sizeof start, "\"%s\":{", object);
    const char *at = json ? strstr(json, start) : NULL;
    uint64_t value = UINT64_MAX;
    if (!CHECK(at != NULL))
        return value;
    char *inner = strndup(at + strlen(start) - 1, strcspn(at, "}") - strlen(start) + 2);
    if (!json_u64(inner, key, &value))
        value = 0; /* absent from the object */
    free(inner);
    return value;
}

static uint64_t json_field(const char *json, const char *key)
{
    uint64_t value = UINT64_MAX;
    CHECK(json_u64(json, key, &value));
    return value;
}

/* The file holds `zeros` zero bytes, then from there on the replay content
 * of the file written under the name `written_as`. */
static bool content_written_as(const char *relative, const char *written_as,
                               uint64_t seed, size_t zeros, size_t expected_size)
{
    char path[4096];
    snprintf(path, sizeof path, "root/%s", relative);
    size_t size;
    char *data = read_file(scratch_path(path), &size);
    bool ok = data && size == expected_size;
    uint64_t stream = path_hash(written_as);
    for (size_t i = 0; ok && i < size; i++)
        ok = (uint8_t)data[i] == (i < zeros ? 0 : record_content_byte(seed, stream, i));
    free(data);
    return ok;
}

static bool content_matches(const char *relative, uint64_t seed, size_t zeros,
                            size_t expected_size)
{
    return content_written_as(relative, relative, seed, zeros, expected_size);
}

static off_t root_file_size(const char *relative)
{
    char path[4096];
    snprintf(path, sizeof path, "root/%s", relative);
    return file_size(scratch_path(path));
}

static void two_threads_build_files_with_exact_content(void)
{
    struct agent_run run;
    CHECK(replay(&run,
                 "# thread 1 and thread 7 run concurrently\n"
                 "0\t1\tcreate\tdata/app/log.txt\n"
                 "10\t1\tappend\tdata/app/log.txt\t3000\n"
                 "20\t1\tfsync\tdata/app/log.txt\n"
                 "30\t1\tappend\tdata/app/log.txt\t1096\n"
                 "31\t1\tfdatasync\tdata/app/log.txt\n"
                 "32\t1\tsyncfs\tdata/app\n"
                 "\n"
                 "0\t7\tcreate\tcache/blob\\x01 b\n"
                 "5\t7\twrite\tcache/blob\\x01 b\t0\t1500000\n"
                 "6\t7\tfsync\tcache/blob\\x01 b\n"
                 "7\t7\twrite\tgap.bin\t8192\t100\n",
                 "5"));
    CHECK_EQ(run.status, 0);
    CHECK(content_matches("data/app/log.txt", 5, 0, 4096));
    CHECK(content_matches("cache/blob\x01 b", 5, 0, 1500000));
    CHECK(content_matches("gap.bin", 5, 8192, 8292));
    CHECK_EQ(json_field(run.stdout_text, "threads"), 2);
    CHECK_EQ(json_field(run.stdout_text, "bytes_written"), 4096 + 1500000 + 100);
    CHECK_EQ(json_member(run.stdout_text, "ops", "append"), 2);
    CHECK_EQ(json_member(run.stdout_text, "ops", "fsync"), 2);
    CHECK_EQ(json_member(run.stdout_text, "ops", "syncfs"), 1);
    CHECK_EQ(json_member(run.stdout_text, "errors", "syncfs"), 0);
    CHECK_EQ(json_member(run.stdout_text, "errors", "append"), 0);
    CHECK_CONTAINS(run.stdout_text, "\"command\":\"replay\"");
    CHECK_CONTAINS(run.stdout_text, "\"errno\":{}");
    CHECK_CONTAINS(run.stdout_text, "\"ops_per_second\":");
    CHECK_CONTAINS(run.stdout_text, "\"seconds\":");
    CHECK_EQ(count_lines(run.stdout_text), 1);
    agent_run_free(&run);
}

static void rename_unlink_truncate_and_fallocate_take_effect(void)
{
    struct agent_run run;
    CHECK(replay(&run,
                 "0\t0\twrite\told\t0\t5000\n"
                 "1\t0\trename\told\tnew\n"
                 "2\t0\twrite\tgone\t0\t10\n"
                 "3\t0\tunlink\tgone\n"
                 "4\t0\twrite\tshort\t0\t9000\n"
                 "5\t0\ttruncate\tshort\t1234\n"
                 "6\t0\tcreate\tkept\n"
                 "7\t0\tfallocate\tkept\t0\t1048576\tkeep\n"
                 "8\t0\tfallocate\tgrown\t0\t65536\textend\n"
                 "9\t0\tread\tnew\t4096\t100000\n"
                 "10\t0\tmkdir\ta/b/c\n"
                 "11\t0\tmkdir\ta/b\n",
                 "0"));
    CHECK_EQ(run.status, 0);
    CHECK_EQ(root_file_size("old"), -1);
    CHECK(content_written_as("new", "old", 0, 0, 5000));
    CHECK_EQ(root_file_size("gone"), -1);
    CHECK(content_matches("short", 0, 0, 1234));
    struct stat st;
    CHECK(stat(scratch_path("root/kept"), &st) == 0);
    CHECK_EQ(st.st_size, 0);
    CHECK((uint64_t)st.st_blocks * 512 >= 1048576); /* allocated > size */
    CHECK_EQ(root_file_size("grown"), 65536);
    CHECK(stat(scratch_path("root/a/b/c"), &st) == 0 && S_ISDIR(st.st_mode));
    CHECK_EQ(json_field(run.stdout_text, "bytes_read"), 5000 - 4096);
    CHECK_EQ(json_member(run.stdout_text, "errors", "mkdir"), 0);
    CHECK_EQ(json_member(run.stdout_text, "errors", "fallocate"), 0);
    agent_run_free(&run);
}

static int64_t sqlite_count(const char *relative)
{
    char path[4096];
    snprintf(path, sizeof path, "root/%s", relative);
    sqlite3 *db;
    sqlite3_stmt *statement = NULL;
    int64_t count = -1;
    if (sqlite3_open_v2(scratch_path(path), &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK &&
        sqlite3_prepare_v2(db, "SELECT count(*) FROM t", -1, &statement, NULL) == SQLITE_OK &&
        sqlite3_step(statement) == SQLITE_ROW)
        count = sqlite3_column_int64(statement, 0);
    sqlite3_finalize(statement);
    sqlite3_close(db);
    return count;
}

static void sql_lines_commit_in_every_journal_mode(void)
{
    struct agent_run run;
    CHECK(replay(&run,
                 "0\t0\tsql\tdb/delete.db\tdelete\tinsert\t5\t300\n"
                 "1\t0\tsql\tdb/delete.db\tdelete\tinsert\t7\t300\n"
                 "0\t1\tsql\tdb/truncate.db\ttruncate\tinsert\t12\t300\n"
                 "0\t2\tsql\tdb/persist.db\tpersist\tinsert\t12\t300\n"
                 "0\t3\tsql\tdb/wal.db\twal\tinsert\t6\t300\n"
                 "1\t3\tsql\tdb/wal.db\twal\tinsert\t6\t300\n"
                 "2\t3\tsql\tdb/wal.db\twal\tupdate\t2\t500\n"
                 "3\t3\tsql\tdb/wal.db\twal\tselect\t3\t0\n",
                 "0"));
    CHECK_EQ(run.status, 0);
    CHECK_EQ(sqlite_count("db/delete.db"), 12);
    CHECK_EQ(sqlite_count("db/truncate.db"), 12);
    CHECK_EQ(sqlite_count("db/persist.db"), 12);
    CHECK_EQ(sqlite_count("db/wal.db"), 12);
    CHECK_EQ(root_file_size("db/delete.db-journal"), -1); /* deleted at commit */
    CHECK_EQ(root_file_size("db/truncate.db-journal"), 0); /* kept, empty */
    CHECK(root_file_size("db/persist.db-journal") > 0);    /* kept, header zeroed */
    CHECK(root_file_size("db/wal.db-wal") > 0);             /* persistent WAL */
    CHECK_EQ(json_member(run.stdout_text, "ops", "sql"), 8);
    CHECK_EQ(json_member(run.stdout_text, "errors", "sql"), 0);
    CHECK_EQ(json_field(run.stdout_text, "bytes_written"), 48 * 300 + 2 * 500);
    CHECK_EQ(json_field(run.stdout_text, "bytes_read"), 2 * 500 + 300);
    agent_run_free(&run);
}

static off_t root_file_allocated(const char *relative)
{
    char path[4096];
    struct stat st;
    snprintf(path, sizeof path, "root/%s", relative);
    return stat(scratch_path(path), &st) == 0 ? (off_t)st.st_blocks * 512 : -1;
}

static void sqlite_prealloc_reserves_units_past_eof(void)
{
    const char *body = "0\t0\tsql\tdb/p.db\tpersist\tinsert\t4\t300\n"
                       "1\t0\tsql\tdb/p.db\tpersist\tinsert\t4\t300\n";
    struct agent_run run;
    mkdir(scratch_path("root"), 0755);
    const char *trace = write_trace("p.iotrace", body);
    CHECK(run_agent(&run, "replay", "--trace", trace, "--root", scratch_path("root"),
                    "--sqlite-prealloc", "64K", NULL));
    CHECK_EQ(run.status, 0);
    CHECK_EQ(json_field(run.stdout_text, "sqlite_prealloc"), 65536);
    CHECK_EQ(json_member(run.stdout_text, "errors", "sql"), 0);
    CHECK_EQ(sqlite_count("db/p.db"), 8);
    off_t size = root_file_size("db/p.db");
    CHECK(size > 0 && size < 65536);                          /* size: what SQLite wrote */
    CHECK(root_file_allocated("db/p.db") >= 65536);           /* one 64 KiB unit */
    CHECK(root_file_allocated("db/p.db-journal") >= 65536);   /* journals too */
    agent_run_free(&run);

    CHECK(run_agent(&run, "replay", "--trace", trace, "--root", scratch_path("root"),
                    "--sqlite-prealloc", "lots", NULL));
    CHECK_EQ(run.status, 64);
    CHECK_CONTAINS(run.stderr_text, "--sqlite-prealloc");
    agent_run_free(&run);
}

static void sql_delete_removes_the_oldest_rows(void)
{
    struct agent_run run;
    CHECK(replay(&run,
                 "0\t0\tsql\tx.db\ttruncate\tinsert\t10\t64\n"
                 "1\t0\tsql\tx.db\ttruncate\tdelete\t4\t0\n",
                 "0"));
    CHECK_EQ(run.status, 0);
    CHECK_EQ(sqlite_count("x.db"), 6);
    agent_run_free(&run);
}

static void expect_malformed(const char *bad_line, const char *reason)
{
    char body[512];
    snprintf(body, sizeof body, "0\t0\tcreate\tfirst\n# comment\n%s\n0\t1\tcreate\tlast\n",
             bad_line);
    struct agent_run run;
    CHECK(replay(&run, body, "0"));
    CHECK_EQ(run.status, 65);
    char where[4200];
    snprintf(where, sizeof where, "%s:4: ", scratch_path("t.iotrace"));
    CHECK_CONTAINS(run.stderr_text, where);
    CHECK_CONTAINS(run.stderr_text, reason);
    CHECK_EQ(count_dir_entries(scratch_path("root")), 0);
    CHECK_STR(run.stdout_text, "");
    agent_run_free(&run);
}

static void malformed_lines_exit_65_before_anything_runs(void)
{
    expect_malformed("1\t0\tfrobnicate\tf", "unknown operation 'frobnicate'");
    expect_malformed("1\t0\twrite\tf\t0", "'write' takes 6 tab-separated fields, found 5");
    expect_malformed("1\t0\tcreate\t/tmp/escape", "absolute path");
    expect_malformed("1\t0\tcreate\tsub/../../escape", "'..'");
    expect_malformed("1\t0\tappend\tf\t4k", "bad LENGTH '4k'");
    expect_malformed("0\t0\tfsync\tfirst\t", "'fsync' takes 4");
}

static void header_and_thread_times_are_checked(void)
{
    mkdir(scratch_path("root"), 0755);
    const char *trace = scratch_path("bad.iotrace");
    CHECK(write_file(trace, "#iotrace v2\n", 12));
    struct agent_run run;
    CHECK(run_agent(&run, "replay", "--trace", trace, "--root", scratch_path("root"), NULL));
    CHECK_EQ(run.status, 65);
    CHECK_CONTAINS(run.stderr_text, "bad.iotrace:1: first line must be '#iotrace v1'");
    agent_run_free(&run);

    CHECK(replay(&run, "5\t0\tcreate\ta\n0\t1\tcreate\tb\n4\t0\tcreate\tc\n", "0"));
    CHECK_EQ(run.status, 65);
    CHECK_CONTAINS(run.stderr_text, "t.iotrace:4: TIME_US 4 is before");
    CHECK_EQ(count_dir_entries(scratch_path("root")), 0);
    agent_run_free(&run);
}

static void failed_operations_are_counted_and_replay_goes_on(void)
{
    struct agent_run run;
    CHECK(replay(&run,
                 "0\t0\tunlink\tmissing\n"
                 "1\t0\tfsync\talso-missing\n"
                 "2\t0\tcreate\tafter\n"
                 "3\t0\tunlink\tmissing\n",
                 "0"));
    CHECK_EQ(run.status, 0);
    CHECK_EQ(root_file_size("after"), 0);
    CHECK_EQ(json_member(run.stdout_text, "ops", "unlink"), 2);
    CHECK_EQ(json_member(run.stdout_text, "errors", "unlink"), 2);
    CHECK_EQ(json_member(run.stdout_text, "errors", "fsync"), 1);
    CHECK_EQ(json_member(run.stdout_text, "errors", "create"), 0);
    CHECK_EQ(json_member(run.stdout_text, "errno", "ENOENT"), 3);
    CHECK_CONTAINS(run.stderr_text, "t.iotrace:2: unlink missing: ");
    agent_run_free(&run);
}

/* Ten images and a text file in root/DCIM; reclaim some with one seed. */
static char *reclaim_survivors(const char *bytes, const char *seed)
{
    CHECK(make_dir(scratch_path("root")) && make_dir(scratch_path("root/DCIM")));
    char block[4096];
    memset(block, 'x', sizeof block);
    for (int i = 0; i < 10; i++) {
        char path[64];
        snprintf(path, sizeof path, "root/DCIM/img%d.jpg", i);
        CHECK(write_file(scratch_path(path), block, sizeof block));
    }
    CHECK(write_file(scratch_path("root/DCIM/notes.txt"), block, sizeof block));
    char line[128];
    snprintf(line, sizeof line, "0\t0\treclaim\tDCIM\t0\t%s\t%s\t*.jpg\n", bytes, seed);
    struct agent_run run;
    CHECK(replay(&run, line, "0"));
    CHECK_EQ(run.status, 0);
    CHECK_EQ(json_member(run.stdout_text, "errors", "reclaim"), 0);
    uint64_t reclaimed = json_field(run.stdout_text, "reclaimed_files");
    agent_run_free(&run);
    CHECK(file_size(scratch_path("root/DCIM/notes.txt")) == 4096);
    char *survivors = calloc(1, 16);
    for (int i = 0; i < 10; i++) {
        char path[64];
        snprintf(path, sizeof path, "root/DCIM/img%d.jpg", i);
        survivors[i] = file_size(scratch_path(path)) < 0 ? '-' : (char)('0' + i);
    }
    CHECK_EQ(10 - count_dir_entries(scratch_path("root/DCIM")) + 1, reclaimed);
    return survivors;
}

static void remove_root(void)
{
    char command[4200];
    snprintf(command, sizeof command, "rm -rf '%s'", scratch_path("root"));
    CHECK(system(command) == 0);
}

static void reclaim_deletes_the_same_random_images_for_a_seed(void)
{
    char *first = reclaim_survivors("10000", "7");
    remove_root();
    char *again = reclaim_survivors("10000", "7");
    remove_root();
    char *everything = reclaim_survivors("100000000", "7");
    CHECK_STR(again, first);
    CHECK_EQ(strspn(everything, "-"), 10);
    size_t deleted = 0;
    for (int i = 0; i < 10; i++)
        deleted += first[i] == '-';
    CHECK(deleted >= 1 && deleted <= 3); /* >= 10000 bytes of 4 KiB files */
    free(first);
    free(again);
    free(everything);
}

static void reclaim_below_the_threshold_deletes_nothing(void)
{
    CHECK(make_dir(scratch_path("root")) && make_dir(scratch_path("root/d")));
    CHECK(write_file(scratch_path("root/d/a.jpg"), "x", 1));
    struct agent_run run;
    CHECK(replay(&run, "0\t0\treclaim\td\t100\t1\t1\t*\n", "0"));
    CHECK_EQ(run.status, 0);
    CHECK_EQ(file_size(scratch_path("root/d/a.jpg")), 1);
    CHECK_EQ(json_field(run.stdout_text, "reclaimed_files"), 0);
    agent_run_free(&run);
}

/* Six 4 KiB images in root/m, thinned down to 0 % with LIMIT: how many remain. */
static uint64_t thin_leaves(const char *limit, uint64_t *spared)
{
    remove_root();
    CHECK(make_dir(scratch_path("root")) && make_dir(scratch_path("root/m")));
    char block[4096];
    memset(block, 'x', sizeof block);
    for (int i = 0; i < 6; i++) {
        char path[64];
        snprintf(path, sizeof path, "root/m/img%d.jpg", i);
        CHECK(write_file(scratch_path(path), block, sizeof block));
    }
    char line[128];
    snprintf(line, sizeof line, "0\t0\tthin\tm\t0\t7\t*.jpg\t%s\n", limit);
    struct agent_run run;
    CHECK(replay(&run, line, "0"));
    CHECK_EQ(run.status, 0);
    CHECK_EQ(json_member(run.stdout_text, "errors", "thin"), 0);
    *spared = json_field(run.stdout_text, "spared_files");
    CHECK_EQ(json_field(run.stdout_text, "reclaimed_files") + *spared, 6);
    agent_run_free(&run);
    return (uint64_t)count_dir_entries(scratch_path("root/m"));
}

static void thin_spares_files_that_would_make_a_long_free_run(void)
{
    uint64_t spared;
    /* No limit, or one no run of six 4 KiB files reaches: every file goes. */
    CHECK_EQ(thin_leaves("0", &spared), 0);
    CHECK_EQ(spared, 0);
    CHECK_EQ(thin_leaves("1073741824", &spared), 0);
    CHECK_EQ(spared, 0);
    /* A file's own 4 KiB already make a run of 4096 bytes: every file stays. */
    CHECK_EQ(thin_leaves("4096", &spared), 6);
    CHECK_EQ(spared, 6);
    remove_root();
}

static void fill_to_a_reached_percent_writes_nothing(void)
{
    struct agent_run run;
    CHECK(replay(&run, "0\t0\tfill\tbig/fill.bin\t0\n", "0"));
    CHECK_EQ(run.status, 0);
    CHECK_EQ(root_file_size("big/fill.bin"), 0);
    CHECK_EQ(json_member(run.stdout_text, "errors", "fill"), 0);
    agent_run_free(&run);
}

static void pace_waits_for_the_trace_times(void)
{
    mkdir(scratch_path("root"), 0755);
    const char *trace = write_trace("t.iotrace", "0\t0\tcreate\ta\n300000\t0\tcreate\tb\n");
    struct agent_run run;
    CHECK(run_agent(&run, "replay", "--trace", trace, "--root", scratch_path("root"),
                    "--pace", NULL));
    CHECK_EQ(run.status, 0);
    const char *seconds = strstr(run.stdout_text, "\"seconds\":");
    CHECK(seconds && strtod(seconds + 10, NULL) >= 0.3);
    CHECK_CONTAINS(run.stdout_text, "\"pace\":true");
    agent_run_free(&run);
}

static void unusable_arguments_root_or_trace_fail(void)
{
    struct agent_run run;
    CHECK(run_agent(&run, "replay", "--root", scratch_dir(), NULL));
    CHECK_EQ(run.status, 64);
    CHECK_CONTAINS(run.stderr_text, "--trace");
    agent_run_free(&run);

    const char *trace = write_trace("t.iotrace", "0\t0\tcreate\ta\n");
    CHECK(run_agent(&run, "replay", "--trace", trace, "--root", scratch_path("nope"), NULL));
    CHECK_EQ(run.status, 1);
    CHECK_CONTAINS(run.stderr_text, "nope");
    CHECK_EQ(file_size(scratch_path("nope")), -1);
    agent_run_free(&run);

    CHECK(run_agent(&run, "replay", "--trace", scratch_path("none.iotrace"), "--root",
                    scratch_dir(), NULL));
    CHECK_EQ(run.status, 1);
    CHECK_CONTAINS(run.stderr_text, "none.iotrace");
    agent_run_free(&run);

    CHECK(run_agent(&run, "replay", "--trace", trace, "--root", scratch_dir(), "--seed",
                    "x", NULL));
    CHECK_EQ(run.status, 64);
    CHECK_CONTAINS(run.stderr_text, "--seed");
    agent_run_free(&run);
}

/* Android's 100-page checkpoint holds the WAL near 100 pages: 150 commits of two
 * 4000-byte rows write about 1.2 MB of frames, which SQLite's own 1000-page default
 * would leave in the WAL file. */
static void wal_is_checkpointed_as_android_does(void)
{
    char trace[150 * 48];
    size_t used = 0;
    for (int line = 0; line < 150; line++)
        used += (size_t)snprintf(trace + used, sizeof trace - used,
                                 "%d\t0\tsql\tdb/big.db\twal\tinsert\t2\t4000\n", line);
    struct agent_run run;
    CHECK(replay(&run, trace, "0"));
    CHECK_EQ(run.status, 0);
    CHECK_EQ(sqlite_count("db/big.db"), 300);
    CHECK(root_file_size("db/big.db-wal") > 0);
    CHECK(root_file_size("db/big.db-wal") <= 600 * 1024);
    agent_run_free(&run);
}

void register_replay_tests(void)
{
    test_register("replay: a WAL is checkpointed as Android does",
                  wal_is_checkpointed_as_android_does);
    test_register("replay: two threads build files with exact content",
                  two_threads_build_files_with_exact_content);
    test_register("replay: rename, unlink, truncate and fallocate take effect",
                  rename_unlink_truncate_and_fallocate_take_effect);
    test_register("replay: sql lines commit in every journal mode",
                  sql_lines_commit_in_every_journal_mode);
    test_register("replay: --sqlite-prealloc reserves units past EOF",
                  sqlite_prealloc_reserves_units_past_eof);
    test_register("replay: sql delete removes the oldest rows",
                  sql_delete_removes_the_oldest_rows);
    test_register("replay: malformed lines exit 65 before anything runs",
                  malformed_lines_exit_65_before_anything_runs);
    test_register("replay: header and thread times are checked",
                  header_and_thread_times_are_checked);
    test_register("replay: failed operations are counted and replay goes on",
                  failed_operations_are_counted_and_replay_goes_on);
    test_register("replay: reclaim deletes the same random images for a seed",
                  reclaim_deletes_the_same_random_images_for_a_seed);
    test_register("replay: reclaim below the threshold deletes nothing",
                  reclaim_below_the_threshold_deletes_nothing);
    test_register("replay: thin spares files that would make a long free run",
                  thin_spares_files_that_would_make_a_long_free_run);
    test_register("replay: fill to a reached percent writes nothing",
                  fill_to_a_reached_percent_writes_nothing);
    test_register("replay: pace waits for the trace times", pace_waits_for_the_trace_times);
    test_register("replay: unusable arguments, root or trace fail",
                  unusable_arguments_root_or_trace_fail);
}
