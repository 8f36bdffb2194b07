/* `replay --mark-list`: listed files carry the xattr after being deleted and
 * recreated by the trace or by SQLite; unlisted files never do. Real files
 * under $TMPDIR (default /tmp), which must take user.* xattrs. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>

#include "check.h"
#include "helpers.h"
#include "mark_list.h"

static const char *write_text(const char *name, const char *text)
{
    const char *path = scratch_path(name);
    CHECK(write_file(path, text, strlen(text)));
    return path;
}

/* Whether scratch/root/relative carries xattr (value "1"). */
static bool carries(const char *relative, const char *xattr)
{
    char path[4096], value[8] = {0};
    snprintf(path, sizeof path, "root/%s", relative);
    ssize_t length = getxattr(scratch_path(path), xattr, value, sizeof value - 1);
    return length == 1 && value[0] == '1';
}

static bool scratch_takes_user_xattrs(void)
{
    const char *probe = write_text("probe", "");
    if (setxattr(probe, "user.mobifrag-probe", "1", 1, 0) == 0)
        return true;
    test_skip("$TMPDIR does not take user.* xattrs; point TMPDIR at ext4 or f2fs");
    return false;
}

static uint64_t json_field(const char *json, const char *key)
{
    uint64_t value = UINT64_MAX;
    CHECK(json_u64(json, key, &value));
    return value;
}

static bool replay_marked(struct agent_run *run, const char *trace_body, const char *list,
                          const char *xattr)
{
    mkdir(scratch_path("root"), 0755);
    char *trace_text;
    CHECK(asprintf(&trace_text, "#iotrace v1\n%s", trace_body) > 0);
    const char *trace = write_text("t.iotrace", trace_text);
    free(trace_text);
    const char *list_file = write_text("reserved.txt", list);
    if (!xattr)
        return run_agent(run, "replay", "--trace", trace, "--root", scratch_path("root"),
                         "--mark-list", list_file, NULL);
    return run_agent(run, "replay", "--trace", trace, "--root", scratch_path("root"),
                     "--mark-list", list_file, "--mark-xattr", xattr, NULL);
}

/* The listed file is written, deleted and recreated twice (by write, then
 * by create); the SQLite databases are created by sqlite3_open, their
 * journals by each transaction. */
static const char recreate_trace[] =
    "0\t0\tcreate\tapp/keep.dat\n"
    "1\t0\twrite\tapp/keep.dat\t0\t4096\n"
    "2\t0\tunlink\tapp/keep.dat\n"
    "3\t0\twrite\tapp/keep.dat\t0\t8192\n"
    "4\t0\tunlink\tapp/keep.dat\n"
    "5\t0\tcreate\tapp/keep.dat\n"
    "6\t0\tappend\tapp/other.dat\t4096\n"
    "0\t1\tsql\tdb/d.db\tdelete\tinsert\t4\t300\n"
    "1\t1\tsql\tdb/d.db\tdelete\tinsert\t4\t300\n"
    "0\t2\tsql\tdb/t.db\ttruncate\tinsert\t4\t300\n"
    "0\t3\tsql\tdb/u.db\ttruncate\tinsert\t4\t300\n";

static const char recreate_list[] = "app/keep.dat\n"
                                    "./db//d.db\n"
                                    "db/d.db-journal\n"
                                    "\n"
                                    "db/t.db-journal\n";

static void recreated_listed_files_keep_the_mark(void)
{
    if (!scratch_takes_user_xattrs())
        return;
    struct agent_run run;
    CHECK(replay_marked(&run, recreate_trace, recreate_list, NULL));
    CHECK_EQ(run.status, 0);
    CHECK(carries("app/keep.dat", "user.ars"));
    CHECK(carries("db/d.db", "user.ars"));
    CHECK(carries("db/t.db-journal", "user.ars")); /* created by SQLite, kept */
    CHECK(!carries("app/other.dat", "user.ars"));
    CHECK(!carries("db/t.db", "user.ars"));
    CHECK(!carries("db/u.db", "user.ars"));
    CHECK(!carries("db/u.db-journal", "user.ars"));
    CHECK_EQ(file_size(scratch_path("root/db/d.db-journal")), -1); /* DELETE mode */
    CHECK_EQ(json_field(run.stdout_text, "marks_listed"), 4);
    /* keep.dat 3 times, d.db once, t.db-journal once (then truncated and
     * reused), d.db-journal once per write transaction (CREATE TABLE and
     * two sql lines). */
    CHECK_EQ(json_field(run.stdout_text, "marks_set"), 3 + 1 + 1 + 3);
    CHECK_EQ(json_field(run.stdout_text, "mark_errors"), 0);
    agent_run_free(&run);
}

static void without_a_list_nothing_is_marked(void)
{
    if (!scratch_takes_user_xattrs())
        return;
    mkdir(scratch_path("root"), 0755);
    char *trace_text;
    CHECK(asprintf(&trace_text, "#iotrace v1\n%s", recreate_trace) > 0);
    const char *trace = write_text("t.iotrace", trace_text);
    free(trace_text);
    struct agent_run run;
    CHECK(run_agent(&run, "replay", "--trace", trace, "--root", scratch_path("root"), NULL));
    CHECK_EQ(run.status, 0);
    CHECK(!carries("app/keep.dat", "user.ars"));
    CHECK(!carries("db/d.db", "user.ars"));
    CHECK_EQ(json_field(run.stdout_text, "marks_set"), 0);
    agent_run_free(&run);
}

static void another_xattr_name_is_used(void)
{
    if (!scratch_takes_user_xattrs())
        return;
    struct agent_run run;
    CHECK(replay_marked(&run, "0\t0\tcreate\tf\n", "f\n", "user.reserve"));
    CHECK_EQ(run.status, 0);
    CHECK(carries("f", "user.reserve"));
    CHECK(!carries("f", "user.ars"));
    CHECK_EQ(json_field(run.stdout_text, "marks_set"), 1);
    agent_run_free(&run);
}

static void failed_marks_are_counted_and_replay_goes_on(void)
{
    struct agent_run run; /* no file system has the namespace "nonesuch." */
    CHECK(replay_marked(&run, "0\t0\tcreate\tf\n1\t0\twrite\tf\t0\t100\n"
                              "2\t0\tunlink\tf\n3\t0\tcreate\tf\n",
                        "f\n", "nonesuch.ars"));
    CHECK_EQ(run.status, 0);
    CHECK_EQ(json_field(run.stdout_text, "marks_set"), 0);
    CHECK_EQ(json_field(run.stdout_text, "mark_errors"), 2);
    CHECK_CONTAINS(run.stderr_text, "cannot set nonesuch.ars on f");
    CHECK_EQ(file_size(scratch_path("root/f")), 0);
    agent_run_free(&run);
}

static void bad_lists_fail_naming_file_and_line(void)
{
    struct agent_run run;
    CHECK(replay_marked(&run, "0\t0\tcreate\tf\n", "f\nok/g\n/etc/passwd\na\\qb\n", NULL));
    CHECK_EQ(run.status, 64);
    char where[4200];
    snprintf(where, sizeof where, "%s:3: absolute path", scratch_path("reserved.txt"));
    CHECK_CONTAINS(run.stderr_text, where);
    snprintf(where, sizeof where, "%s:4: bad escape", scratch_path("reserved.txt"));
    CHECK_CONTAINS(run.stderr_text, where);
    CHECK_STR(run.stdout_text, "");
    CHECK_EQ(count_dir_entries(scratch_path("root")), 0); /* nothing ran */
    agent_run_free(&run);

    CHECK(run_agent(&run, "replay", "--trace", scratch_path("t.iotrace"), "--root",
                    scratch_path("root"), "--mark-list", scratch_path("none.txt"), NULL));
    CHECK_EQ(run.status, 64);
    CHECK_CONTAINS(run.stderr_text, "none.txt");
    agent_run_free(&run);

    CHECK(run_agent(&run, "replay", "--trace", scratch_path("t.iotrace"), "--root",
                    scratch_path("root"), "--mark-xattr", "user.ars", NULL));
    CHECK_EQ(run.status, 64);
    CHECK_CONTAINS(run.stderr_text, "--mark-xattr needs --mark-list");
    agent_run_free(&run);
}

static void list_paths_are_unescaped_and_normalised(void)
{
    const char *file = write_text("l.txt", "a\\tb\n./x//y/\n\nsp ace\n");
    struct mark_list list;
    CHECK_EQ(mark_list_load(file, &list, stderr), 0);
    CHECK_EQ(list.count, 3);
    CHECK(mark_list_contains(&list, "a\tb"));
    CHECK(mark_list_contains(&list, "x/y"));
    CHECK(mark_list_contains(&list, "./x/./y"));
    CHECK(mark_list_contains(&list, "sp ace"));
    CHECK(!mark_list_contains(&list, "x"));
    CHECK(!mark_list_contains(&list, "a\\tb"));
    mark_list_free(&list);
    FILE *quiet = fopen("/dev/null", "w");
    CHECK_EQ(mark_list_load(write_text("root.txt", "./.\n"), &list, quiet), 1);
    fclose(quiet);
    CHECK_EQ(mark_list_load(scratch_path("missing.txt"), &list, stderr), -ENOENT);
}

void register_replay_mark_tests(void)
{
    test_register("replay marks: recreated listed files keep the mark",
                  recreated_listed_files_keep_the_mark);
    test_register("replay marks: without a list nothing is marked",
                  without_a_list_nothing_is_marked);
    test_register("replay marks: another xattr name is used", another_xattr_name_is_used);
    test_register("replay marks: failed marks are counted and replay goes on",
                  failed_marks_are_counted_and_replay_goes_on);
    test_register("replay marks: bad lists fail naming file and line",
                  bad_lists_fail_naming_file_and_line);
    test_register("replay marks: list paths are unescaped and normalised",
                  list_paths_are_unescaped_and_normalised);
}
