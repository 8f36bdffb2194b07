/* `mobifrag-agent fragcheck` end to end, on a small tree in the scratch dir. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "check.h"
#include "helpers.h"

#define FILES_HEADER "path\tsize_bytes\tallocated_bytes\tn_extents\tinode"
#define EXTENTS_HEADER "path\textent\tlogical_bytes\tphysical_bytes\tlength_bytes\tflags"
#define FS_HEADER "fs_type\tblock_size\ttotal_blocks\tfree_blocks\tdevice"
#define ODD_NAME "odd\tname\nwith\\escapes"
#define ODD_NAME_ESCAPED "odd\\tname\\nwith\\\\escapes"

struct tables {
    char *files, *extents, *fs;
};

static void free_tables(struct tables *t)
{
    free(t->files);
    free(t->extents);
    free(t->fs);
}

static bool build_tree(void)
{
    bool ok = make_dir(scratch_path("root")) && make_dir(scratch_path("root/sub"));
    char block[65536];
    memset(block, 'd', sizeof block);
    ok = ok && write_file(scratch_path("root/dense"), block, sizeof block) &&
         write_file(scratch_path("root/empty"), "", 0) &&
         write_file(scratch_path("root/" ODD_NAME), "x", 1) &&
         symlink("dense", scratch_path("root/link")) == 0 &&
         mkfifo(scratch_path("root/fifo"), 0644) == 0;
    int fd = open(scratch_path("root/sub/sparse"), O_WRONLY | O_CREAT, 0644);
    ok = ok && fd >= 0 && write_at(fd, 0, 4096, 's') && write_at(fd, 1 << 20, 4096, 's') &&
         fsync(fd) == 0;
    if (fd >= 0)
        close(fd);
    return ok;
}

static int run_fragcheck_on(const char *root, struct agent_run *run)
{
    CHECK(run_agent(run, "fragcheck", "--root", root, "--files", scratch_path("files.tsv"),
                    "--extents", scratch_path("extents.tsv"), "--fs", scratch_path("fs.tsv"),
                    NULL));
    return run->status;
}

static struct tables read_tables(void)
{
    return (struct tables){
        .files = read_file(scratch_path("files.tsv"), NULL),
        .extents = read_file(scratch_path("extents.tsv"), NULL),
        .fs = read_file(scratch_path("fs.tsv"), NULL),
    };
}

/* Finds the FILES.tsv row of path and parses its numbers. */
static bool file_row(const char *files, const char *path, uint64_t *size, uint64_t *allocated,
                     uint64_t *extents, uint64_t *inode)
{
    char line[4096], prefix[1024];
    snprintf(prefix, sizeof prefix, "%s\t", path);
    for (int i = 1; nth_line(files, i, line, sizeof line); i++) {
        if (strncmp(line, prefix, strlen(prefix)) != 0)
            continue;
        unsigned long long s, a, e, n;
        if (sscanf(line + strlen(prefix), "%llu\t%llu\t%llu\t%llu", &s, &a, &e, &n) != 4)
            return false;
        *size = s, *allocated = a, *extents = e, *inode = n;
        return true;
    }
    return false;
}

static uint64_t inode_of(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 ? st.st_ino : 0;
}

static void check_file_row(const struct tables *t, const char *path, const char *real_path,
                           uint64_t expected_size, uint64_t expected_extents)
{
    uint64_t size, allocated, extents, inode;
    char prefix[1024];
    snprintf(prefix, sizeof prefix, "%s\t", path);
    if (!CHECK(file_row(t->files, path, &size, &allocated, &extents, &inode)))
        return;
    CHECK_EQ(size, expected_size);
    CHECK_EQ(inode, inode_of(real_path));
    CHECK_EQ(count_lines_starting(t->extents, prefix), extents);
    if (expected_extents != (uint64_t)-1)
        CHECK_EQ(extents, expected_extents);
}

static void snapshot_lists_every_regular_file(void)
{
    if (!CHECK(build_tree()))
        return;
    struct agent_run run;
    CHECK_EQ(run_fragcheck_on(scratch_path("root"), &run), 0);
    CHECK_CONTAINS(run.stderr_text, "4 files");
    struct tables t = read_tables();
    char line[4096];
    if (CHECK(nth_line(t.files, 0, line, sizeof line)))
        CHECK_STR(line, FILES_HEADER);
    if (CHECK(nth_line(t.extents, 0, line, sizeof line)))
        CHECK_STR(line, EXTENTS_HEADER);
    CHECK_EQ(count_lines(t.files), 5); /* header + dense, empty, odd name, sub/sparse */
    if (CHECK(nth_line(t.files, 1, line, sizeof line)))
        CHECK(strncmp(line, "dense\t", 6) == 0);
    check_file_row(&t, "dense", scratch_path("root/dense"), 65536, (uint64_t)-1);
    check_file_row(&t, "empty", scratch_path("root/empty"), 0, 0);
    check_file_row(&t, "sub/sparse", scratch_path("root/sub/sparse"), (1 << 20) + 4096,
                   (uint64_t)-1);
    check_file_row(&t, ODD_NAME_ESCAPED, scratch_path("root/" ODD_NAME), 1, (uint64_t)-1);
    CHECK_CONTAINS(t.extents, "sub/sparse\t0\t0\t");
    CHECK_CONTAINS(t.extents, "\t1048576\t");
    CHECK_EQ(count_lines_starting(t.files, "link\t"), 0);
    CHECK_EQ(count_lines_starting(t.files, "fifo\t"), 0);
    free_tables(&t);
    agent_run_free(&run);
}

static void extent_rows_add_up_per_file(void)
{
    if (!CHECK(build_tree()))
        return;
    struct agent_run run;
    CHECK_EQ(run_fragcheck_on(scratch_path("root"), &run), 0);
    struct tables t = read_tables();
    char line[4096];
    uint64_t dense_total = 0;
    int expected_index = 0;
    for (int i = 1; nth_line(t.extents, i, line, sizeof line); i++) {
        unsigned long long index, logical, physical, length;
        char flags[200];
        if (strncmp(line, "dense\t", 6) != 0)
            continue;
        CHECK(sscanf(line + 6, "%llu\t%llu\t%llu\t%llu\t%199s", &index, &logical, &physical,
                     &length, flags) == 5);
        CHECK_EQ(index, expected_index++);
        dense_total += length;
    }
    uint64_t size, allocated, extents, inode;
    CHECK(file_row(t.files, "dense", &size, &allocated, &extents, &inode));
    CHECK_EQ(dense_total, allocated);
    CHECK_EQ(extents, expected_index);
    free_tables(&t);
    agent_run_free(&run);
}

static void fs_table_names_the_file_system(void)
{
    CHECK(make_dir(scratch_path("root")));
    struct agent_run run;
    CHECK_EQ(run_fragcheck_on(scratch_path("root"), &run), 0);
    struct tables t = read_tables();
    char line[256];
    if (CHECK(nth_line(t.fs, 0, line, sizeof line)))
        CHECK_STR(line, FS_HEADER);
    CHECK_EQ(count_lines(t.fs), 2);
    struct statfs fs;
    char type[32];
    unsigned long long block_size, total, free_blocks;
    unsigned major, minor;
    CHECK(nth_line(t.fs, 1, line, sizeof line));
    CHECK(sscanf(line, "%31[^\t]\t%llu\t%llu\t%llu\t%u:%u", type, &block_size, &total,
                 &free_blocks, &major, &minor) == 6);
    if (statfs(scratch_dir(), &fs) == 0) {
        CHECK_EQ(block_size, fs.f_bsize);
        CHECK_EQ(total, fs.f_blocks);
        if (fs.f_type == 0xef53)
            CHECK_STR(type, "ext4");
    }
    free_tables(&t);
    agent_run_free(&run);
}

static void temp_tables_inside_the_root_are_not_listed(void)
{
    CHECK(make_dir(scratch_path("root")));
    CHECK(write_file(scratch_path("root/data"), "d", 1));
    struct agent_run run;
    CHECK(run_agent(&run, "fragcheck", "--root", scratch_path("root"), "--files",
                    scratch_path("root/files.tsv"), "--extents",
                    scratch_path("root/extents.tsv"), NULL));
    CHECK_EQ(run.status, 0);
    char *files = read_file(scratch_path("root/files.tsv"), NULL);
    CHECK_EQ(count_lines(files), 2);
    CHECK_EQ(count_lines_starting(files, "data\t"), 1);
    CHECK_EQ(count_dir_entries(scratch_path("root")), 3);
    free(files);
    agent_run_free(&run);
}

static void failed_run_keeps_old_tables_and_no_temp_files(void)
{
    CHECK(make_dir(scratch_path("root")) && make_dir(scratch_path("out")));
    CHECK(write_file(scratch_path("out/files.tsv"), "old\n", 4));
    struct agent_run run;
    /* FILES.tsv's temp file is created first; EXTENTS.tsv's directory is missing. */
    CHECK(run_agent(&run, "fragcheck", "--root", scratch_path("root"), "--files",
                    scratch_path("out/files.tsv"), "--extents",
                    scratch_path("missing/extents.tsv"), NULL));
    CHECK_EQ(run.status, 1);
    CHECK_CONTAINS(run.stderr_text, "missing/extents.tsv");
    char *files = read_file(scratch_path("out/files.tsv"), NULL);
    CHECK_STR(files, "old\n");
    free(files);
    CHECK_EQ(count_dir_entries(scratch_path("out")), 1);
    agent_run_free(&run);
}

static void unsupported_file_system_exits_3_and_keeps_old_tables(void)
{
    struct statfs fs;
    if (statfs("/dev/shm", &fs) != 0 || fs.f_type != 0x01021994) {
        test_skip("/dev/shm is not tmpfs");
        return;
    }
    char root[] = "/dev/shm/mobifrag-agent-test.XXXXXX";
    if (!CHECK(mkdtemp(root)))
        return;
    char file[64];
    snprintf(file, sizeof file, "%s/f", root);
    CHECK(write_file(file, "tmpfs", 5));
    CHECK(write_file(scratch_path("files.tsv"), "old\n", 4));
    struct agent_run run;
    CHECK(run_agent(&run, "fragcheck", "--root", root, "--files", scratch_path("files.tsv"),
                    "--extents", scratch_path("extents.tsv"), NULL));
    unlink(file);
    rmdir(root);
    if (run.status == 0) {
        test_skip("this kernel's tmpfs supports FIEMAP");
    } else {
        CHECK_EQ(run.status, 3);
        CHECK_CONTAINS(run.stderr_text, "tmpfs");
        CHECK_CONTAINS(run.stderr_text, "f on file system");
        char *files = read_file(scratch_path("files.tsv"), NULL);
        CHECK_STR(files, "old\n");
        free(files);
        CHECK(!dir_has_entry_starting(scratch_dir(), ".files.tsv.tmp."));
        CHECK(!dir_has_entry_starting(scratch_dir(), ".extents.tsv.tmp."));
    }
    agent_run_free(&run);
}

static void expect_usage_error(const char *mentioned, const char *a, const char *b,
                               const char *c, const char *d)
{
    struct agent_run run;
    CHECK(run_agent(&run, "fragcheck", a, b, c, d, NULL));
    CHECK_EQ(run.status, 64);
    CHECK_CONTAINS(run.stderr_text, mentioned);
    agent_run_free(&run);
}

static void fragcheck_argument_errors_exit_64(void)
{
    const char *f = scratch_path("f.tsv");
    expect_usage_error("--root", "--files", f, "--extents", f);
    expect_usage_error("--files", "--root", scratch_dir(), "--extents", f);
    expect_usage_error("--extents", "--root", scratch_dir(), "--files", f);
    expect_usage_error("--depth", "--root", scratch_dir(), "--depth", "3");
    expect_usage_error("--fs", "--root", scratch_dir(), "--fs", NULL);
    expect_usage_error("stray", "--root", scratch_dir(), "stray", NULL);
}

static void missing_root_fails_without_tables(void)
{
    struct agent_run run;
    CHECK(run_agent(&run, "fragcheck", "--root", scratch_path("nowhere"), "--files",
                    scratch_path("files.tsv"), "--extents", scratch_path("extents.tsv"), NULL));
    CHECK_EQ(run.status, 1);
    CHECK_CONTAINS(run.stderr_text, "nowhere");
    CHECK_EQ(file_size(scratch_path("files.tsv")), (uint64_t)-1);
    agent_run_free(&run);
}

void register_fragcheck_tests(void)
{
    test_register("fragcheck: snapshot lists every regular file",
                  snapshot_lists_every_regular_file);
    test_register("fragcheck: extent rows add up per file", extent_rows_add_up_per_file);
    test_register("fragcheck: fs table names the file system", fs_table_names_the_file_system);
    test_register("fragcheck: temp tables inside the root are not listed",
                  temp_tables_inside_the_root_are_not_listed);
    test_register("fragcheck: failed run keeps old tables and no temp files",
                  failed_run_keeps_old_tables_and_no_temp_files);
    test_register("fragcheck: unsupported file system exits 3 and keeps old tables",
                  unsupported_file_system_exits_3_and_keeps_old_tables);
    test_register("fragcheck: argument errors exit 64", fragcheck_argument_errors_exit_64);
    test_register("fragcheck: missing root fails without tables", missing_root_fails_without_tables);
}
