/* `replay` stays beneath --root: symlinks that leave it are refused (with
 * openat2, and with the component walk used without it), nested paths work,
 * the number of trace threads is capped, and --check only parses. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "helpers.h"
#include "root_files.h"
#include "trace.h"

static const char *write_trace(const char *name, const char *body)
{
    const char *path = scratch_path(name);
    char *text;
    CHECK(asprintf(&text, "#iotrace v1\n%s", body) > 0);
    CHECK(write_file(path, text, strlen(text)));
    free(text);
    return path;
}

/* scratch/root with esc -> ../outside, abs -> /scratch/outside,
 * victim.db -> ../outside/victim.db, and inside -> sub (stays beneath). */
static bool make_escape_tree(void)
{
    char absolute[4200];
    snprintf(absolute, sizeof absolute, "%s", scratch_path("outside"));
    return make_dir(scratch_path("root")) && make_dir(scratch_path("root/sub")) &&
           make_dir(scratch_path("outside")) &&
           write_file(scratch_path("outside/photo.jpg"), "keep", 4) &&
           symlink("../outside", scratch_path("root/esc")) == 0 &&
           symlink(absolute, scratch_path("root/abs")) == 0 &&
           symlink("../outside/victim.db", scratch_path("root/victim.db")) == 0 &&
           symlink("sub", scratch_path("root/inside")) == 0;
}

static uint64_t escapes_counted(const char *json)
{
    const char *at = json ? strstr(json, "\"escapes_root\":") : NULL;
    return at ? strtoull(at + strlen("\"escapes_root\":"), NULL, 10) : 0;
}

static void symlinks_out_of_the_root_are_refused_naming_the_line(void)
{
    CHECK(make_escape_tree());
    const char *trace = write_trace("t.iotrace",
                                    "0\t0\twrite\tesc/new\t0\t100\n"
                                    "1\t0\tcreate\tabs/new\n"
                                    "2\t0\tmkdir\tesc/dir/deeper\n"
                                    "3\t0\ttruncate\tesc/photo.jpg\t0\n"
                                    "4\t0\twrite\tinside/nested/ok\t0\t10\n"
                                    "5\t0\trename\tinside/nested/ok\tesc/moved\n"
                                    "6\t0\tsql\tesc/app.db\twal\tinsert\t2\t10\n"
                                    "7\t0\tsql\tvictim.db\tdelete\tinsert\t2\t10\n"
                                    "8\t0\treclaim\tesc\t0\t0\t1\t*\n"
                                    "9\t0\tunlink\tabs/photo.jpg\n"
                                    "10\t0\tfill\tesc/fill\t0\n");
    struct agent_run run;
    CHECK(run_agent(&run, "replay", "--trace", trace, "--root", scratch_path("root"), NULL));
    CHECK_EQ(run.status, 0);
    CHECK_EQ(escapes_counted(run.stdout_text), 10);
    const char *lines[] = {":2: write esc/new: ", ":3: create abs/new: ",
                           ":4: mkdir esc/dir/deeper: ", ":5: truncate esc/photo.jpg: ",
                           ":7: rename inside/nested/ok: ", ":8: sql esc/app.db: ",
                           ":9: sql victim.db: ", ":10: reclaim esc: ",
                           ":11: unlink abs/photo.jpg: ", ":12: fill esc/fill: "};
    for (size_t i = 0; i < sizeof lines / sizeof lines[0]; i++) {
        char expected[4300];
        snprintf(expected, sizeof expected, "%s%s", trace, lines[i]);
        CHECK_CONTAINS(run.stderr_text, expected);
    }
    CHECK_CONTAINS(run.stderr_text, "(escapes_root)");
    /* Nothing outside changed: the one file is there with its bytes. */
    CHECK_EQ(count_dir_entries(scratch_path("outside")), 1);
    CHECK_EQ(file_size(scratch_path("outside/photo.jpg")), 4);
    /* The legal nested path through a symlink that stays inside worked. */
    CHECK_EQ(file_size(scratch_path("root/sub/nested/ok")), 10);
    agent_run_free(&run);
}

static void legal_nested_paths_work(void)
{
    CHECK(make_dir(scratch_path("root")));
    const char *trace = write_trace("t.iotrace",
                                    "0\t0\tmkdir\ta/b/c\n"
                                    "1\t0\twrite\ta/b/c/d/e.bin\t0\t4096\n"
                                    "2\t0\trename\ta/b/c/d/e.bin\ta/./f.bin\n"
                                    "3\t0\tsql\tdata/db/app.db\twal\tinsert\t3\t100\n"
                                    "4\t0\tappend\t./-\t7\n"
                                    "5\t0\tunlink\ta/b/c/d\n");
    struct agent_run run;
    CHECK(run_agent(&run, "replay", "--trace", trace, "--root", scratch_path("root"), NULL));
    CHECK_EQ(run.status, 0);
    CHECK_CONTAINS(run.stdout_text, "\"errno\":{}");
    CHECK_EQ(file_size(scratch_path("root/a/f.bin")), 4096);
    CHECK(file_size(scratch_path("root/data/db/app.db")) > 0);
    CHECK_EQ(file_size(scratch_path("root/-")), 7);
    CHECK_EQ(file_size(scratch_path("root/a/b/c/d")), -1);
    agent_run_free(&run);
}

static void dot_dot_and_absolute_paths_are_refused_before_anything_runs(void)
{
    CHECK(make_dir(scratch_path("root")));
    const char *cases[][2] = {
        {"0\t0\tcreate\tfirst\n0\t0\tcreate\t../escape\n", ":3: bad PATH: '..' in path"},
        {"0\t0\tcreate\tfirst\n0\t0\tcreate\ta/\\x2e\\x2e/b\n", ":3: bad PATH: '..' in path"},
        {"0\t0\tcreate\tfirst\n0\t0\tcreate\t/etc/x\n", ":3: bad PATH: absolute path"},
        {"0\t0\trename\tfirst\t../../x\n", ":2: bad NEWPATH: '..' in path"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *trace = write_trace("t.iotrace", cases[i][0]);
        struct agent_run run;
        CHECK(run_agent(&run, "replay", "--trace", trace, "--root", scratch_path("root"),
                        NULL));
        CHECK_EQ(run.status, 65);
        CHECK_CONTAINS(run.stderr_text, cases[i][1]);
        CHECK_EQ(count_dir_entries(scratch_path("root")), 0);
        agent_run_free(&run);
    }
}

/* Lines "0 T create fT" for T = 0 .. threads-1. */
static char *thread_lines(unsigned threads)
{
    size_t size = (size_t)threads * 32 + 1;
    char *body = malloc(size);
    size_t used = 0;
    for (unsigned t = 0; body && t < threads; t++)
        used += (size_t)snprintf(body + used, size - used, "0\t%u\tcreate\tf%u\n", t * 7, t);
    return body;
}

static void too_many_threads_are_refused_naming_the_line(void)
{
    CHECK(make_dir(scratch_path("root")));
    char *body = thread_lines(TRACE_MAX_THREADS + 1);
    const char *trace = write_trace("t.iotrace", body);
    free(body);
    struct agent_run run;
    CHECK(run_agent(&run, "replay", "--trace", trace, "--root", scratch_path("root"), NULL));
    CHECK_EQ(run.status, 65);
    char expected[4300];
    snprintf(expected, sizeof expected, "%s:%u: THREAD %u is distinct THREAD value number %u",
             trace, TRACE_MAX_THREADS + 2, TRACE_MAX_THREADS * 7, TRACE_MAX_THREADS + 1);
    CHECK_CONTAINS(run.stderr_text, expected);
    CHECK_CONTAINS(run.stderr_text, "at most 256");
    CHECK_EQ(count_dir_entries(scratch_path("root")), 0);
    agent_run_free(&run);

    body = thread_lines(TRACE_MAX_THREADS);
    trace = write_trace("t.iotrace", body);
    free(body);
    CHECK(run_agent(&run, "replay", "--trace", trace, "--root", scratch_path("root"), NULL));
    CHECK_EQ(run.status, 0);
    CHECK_CONTAINS(run.stdout_text, "\"threads\":256,");
    CHECK_EQ(count_dir_entries(scratch_path("root")), TRACE_MAX_THREADS);
    agent_run_free(&run);
}

static void check_only_parses(void)
{
    const char *good = write_trace("good.iotrace", "0\t0\tcreate\ta\n1\t0\tfill\ta\t72.5\n");
    struct agent_run run;
    CHECK(run_agent(&run, "replay", "--trace", good, "--check", NULL));
    CHECK_EQ(run.status, 0);
    CHECK_STR(run.stdout_text, "");
    agent_run_free(&run);
    CHECK_EQ(file_size(scratch_path("a")), -1);

    const char *bad = write_trace("bad.iotrace", "0\t0\tcreate\ta\n1\t0\tfill\ta\t250\n");
    CHECK(run_agent(&run, "replay", "--trace", bad, "--check", NULL));
    CHECK_EQ(run.status, 65);
    CHECK_CONTAINS(run.stderr_text, "bad.iotrace:3: bad PERCENT '250'");
    agent_run_free(&run);

    CHECK(run_agent(&run, "replay", "--trace", good, "--check", "--root", scratch_dir(), NULL));
    CHECK_EQ(run.status, 64);
    agent_run_free(&run);
}

/* In-process: the component walk (no openat2) refuses every symlink, even
 * one that stays beneath, and still opens and creates ordinary paths. */
static void component_walk_refuses_every_symlink(void)
{
    CHECK(make_escape_tree());
    int root = open(scratch_path("root"), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    CHECK(root >= 0);
    for (int walk = 0; walk < 2; walk++) {
        root_files_force_component_walk(walk == 1);
        int fd = -1;
        CHECK_EQ(open_under_root(root, "esc/x", OPEN_CREATE, &fd), OP_STATUS_ESCAPES_ROOT);
        CHECK_EQ(open_under_root(root, "abs", OPEN_EXISTING, &fd), OP_STATUS_ESCAPES_ROOT);
        CHECK_EQ(make_dirs(root, "esc/d"), OP_STATUS_ESCAPES_ROOT);
        CHECK_EQ(root_unlink(root, "esc/photo.jpg", 0), OP_STATUS_ESCAPES_ROOT);
        CHECK_EQ(open_under_root(root, "victim.db", OPEN_CREATE, &fd), OP_STATUS_ESCAPES_ROOT);
        op_status inside = open_under_root(root, "inside/x", OPEN_CREATE, &fd);
        if (walk == 1) {
            CHECK_EQ(inside, OP_STATUS_ESCAPES_ROOT);
        } else if (CHECK_EQ(inside, OP_OK)) {
            close(fd);
        }
        char path[64];
        snprintf(path, sizeof path, "n%d/./deep//file", walk);
        if (CHECK_EQ(open_under_root(root, path, OPEN_CREATE, &fd), OP_OK))
            close(fd);
        CHECK_EQ(open_under_root(root, "missing/file", OPEN_EXISTING, &fd), ENOENT);
        CHECK_EQ(make_dirs(root, "sub/"), OP_OK);
    }
    root_files_force_component_walk(false);
    close(root);
    CHECK_EQ(count_dir_entries(scratch_path("outside")), 1);
    CHECK_EQ(file_size(scratch_path("outside/victim.db")), -1);
    CHECK_EQ(file_size(scratch_path("root/n1/deep/file")), 0);
}

void register_replay_fence_tests(void)
{
    test_register("replay fence: symlinks out of the root are refused naming the line",
                  symlinks_out_of_the_root_are_refused_naming_the_line);
    test_register("replay fence: legal nested paths work", legal_nested_paths_work);
    test_register("replay fence: '..' and absolute paths are refused before anything runs",
                  dot_dot_and_absolute_paths_are_refused_before_anything_runs);
    test_register("replay fence: too many threads are refused naming the line",
                  too_many_threads_are_refused_naming_the_line);
    test_register("replay fence: --check only parses", check_only_parses);
    test_register("replay fence: the component walk refuses every symlink",
                  component_walk_refuses_every_symlink);
}
