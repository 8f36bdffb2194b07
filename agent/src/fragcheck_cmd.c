#include "fragcheck_cmd.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "exit_codes.h"
#include "file_snapshot.h"
#include "fiemap_reader.h"
#include "fs_info.h"
#include "snapshot_tables.h"
#include "tree_walk.h"

static const char usage_text[] =
    "Usage: " PROGRAM_NAME " fragcheck --root DIR --files FILES.tsv\n"
    "           --extents EXTENTS.tsv [--fs FS.tsv]\n"
    "\n"
    "Snapshot of the extents of every regular file under DIR (like FragCheck,\n"
    "TMC sec. 3.2): walks DIR without following symlinks or leaving its file\n"
    "system and maps each file with FIEMAP (FIEMAP_FLAG_SYNC).\n"
    "\n"
    "  --root DIR             directory to walk\n"
    "  --files FILES.tsv      path size_bytes allocated_bytes n_extents inode\n"
    "  --extents EXTENTS.tsv  path extent logical_bytes physical_bytes length_bytes flags\n"
    "  --fs FS.tsv            fs_type block_size total_blocks free_blocks device\n"
    "\n"
    "Tables are tab-separated with a header line; paths are relative to DIR\n"
    "with \\\\, \\t, \\n and \\xHH escapes. Each table is written to a hidden\n"
    "temporary file beside it and renamed into place when all are complete.\n"
    "Exit status: 0 done, 1 failure, 3 FIEMAP not supported, 64 bad arguments.\n";

enum option_code { OPT_ROOT = 256, OPT_FILES, OPT_EXTENTS, OPT_FS, OPT_HELP };

static const struct option long_options[] = {
    {"root", required_argument, NULL, OPT_ROOT},
    {"files", required_argument, NULL, OPT_FILES},
    {"extents", required_argument, NULL, OPT_EXTENTS},
    {"fs", required_argument, NULL, OPT_FS},
    {"help", no_argument, NULL, OPT_HELP},
    {NULL, 0, NULL, 0},
};

struct fragcheck_options {
    const char *root;
    const char *table_paths[TABLE_COUNT];
    bool help;
};

static int apply_option(int code, const char *value, void *target)
{
    struct fragcheck_options *options = target;
    switch (code) {
    case OPT_ROOT: options->root = value; break;
    case OPT_FILES: options->table_paths[TABLE_FILES] = value; break;
    case OPT_EXTENTS: options->table_paths[TABLE_EXTENTS] = value; break;
    case OPT_FS: options->table_paths[TABLE_FS] = value; break;
    default: options->help = true; break;
    }
    return EXIT_OK;
}

static int check_required(const struct fragcheck_options *options)
{
    if (!options->root)
        return usage_error("fragcheck", "missing required option --root");
    if (!options->table_paths[TABLE_FILES])
        return usage_error("fragcheck", "missing required option --files");
    if (!options->table_paths[TABLE_EXTENTS])
        return usage_error("fragcheck", "missing required option --extents");
    return EXIT_OK;
}

static int parse_options(int argc, char **argv, struct fragcheck_options *options)
{
    *options = (struct fragcheck_options){0};
    const struct command_options spec = {"fragcheck", long_options, apply_option, options,
                                         &options->help};
    int status = read_command_options(&spec, argc, argv);
    return status != EXIT_OK || options->help ? status : check_required(options);
}

static int open_root(const char *root, int *fd)
{
    *fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (*fd >= 0)
        return EXIT_OK;
    fprintf(stderr, "%s fragcheck: cannot open directory %s: %s\n", PROGRAM_NAME, root,
            strerror(errno));
    return EXIT_FAILURE_GENERIC;
}

static int write_fs_table(const struct snapshot_tables *tables, const char *root)
{
    if (!tables->wanted[TABLE_FS])
        return EXIT_OK;
    struct fs_info info;
    int status = fs_info_of_path(root, &info);
    if (status != 0) {
        fprintf(stderr, "%s fragcheck: cannot statfs %s: %s\n", PROGRAM_NAME, root,
                strerror(-status));
        return EXIT_FAILURE_GENERIC;
    }
    if (fs_info_write_table(tables->table[TABLE_FS].stream, &info) != 0) {
        fprintf(stderr, "%s fragcheck: cannot write the file system table\n", PROGRAM_NAME);
        return EXIT_FAILURE_GENERIC;
    }
    return EXIT_OK;
}

static int collect_files(const char *root, const struct snapshot_tables *tables,
                         struct path_list *files)
{
    struct file_identity own_tables[TABLE_COUNT];
    size_t own = snapshot_tables_identities(tables, own_tables);
    int status = walk_regular_files(root, own_tables, own, files);
    if (status == 0)
        return EXIT_OK;
    fprintf(stderr, "%s fragcheck: cannot walk %s: %s\n", PROGRAM_NAME, root,
            strerror(-status));
    return EXIT_FAILURE_GENERIC;
}

static int snapshot_all(struct snapshot_output *out, int root_fd,
                        const struct path_list *files)
{
    if (snapshot_write_headers(out) == EOF) {
        fprintf(stderr, "%s fragcheck: cannot write a table header\n", PROGRAM_NAME);
        return EXIT_FAILURE_GENERIC;
    }
    for (size_t i = 0; i < files->count; i++) {
        int status = snapshot_file(out, root_fd, files->paths[i]);
        if (status != EXIT_OK)
            return status;
    }
    return EXIT_OK;
}

static void print_summary(const struct snapshot_output *out, size_t walk_skipped)
{
    fprintf(stderr, "%s fragcheck: %llu files, %llu extents, %llu skipped\n",
            PROGRAM_NAME, (unsigned long long)out->files_written,
            (unsigned long long)out->extents_written,
            (unsigned long long)(out->skipped + walk_skipped));
}

static int take_snapshot(const char *root, int root_fd, struct snapshot_tables *tables)
{
    int status = write_fs_table(tables, root);
    struct path_list files = {0};
    if (status == EXIT_OK)
        status = collect_files(root, tables, &files);
    struct snapshot_output out = {
        .files = tables->table[TABLE_FILES].stream,
        .extents = tables->table[TABLE_EXTENTS].stream,
        .fiemap_batch = FIEMAP_DEFAULT_BATCH,
    };
    if (status == EXIT_OK)
        status = snapshot_all(&out, root_fd, &files);
    if (status == EXIT_OK)
        print_summary(&out, files.skipped);
    path_list_free(&files);
    return status;
}

static int run_fragcheck(const struct fragcheck_options *options)
{
    int root_fd;
    int status = open_root(options->root, &root_fd);
    if (status != EXIT_OK)
        return status;
    struct snapshot_tables tables;
    if (!snapshot_tables_open(&tables, options->table_paths)) {
        close(root_fd);
        return EXIT_FAILURE_GENERIC;
    }
    status = take_snapshot(options->root, root_fd, &tables);
    if (status == EXIT_OK && !snapshot_tables_commit(&tables))
        status = EXIT_FAILURE_GENERIC;
    if (status != EXIT_OK)
        snapshot_tables_discard(&tables);
    close(root_fd);
    return status;
}

int fragcheck_command(int argc, char **argv)
{
    struct fragcheck_options options;
    int status = parse_options(argc, argv, &options);
    if (status != EXIT_OK)
        return status;
    if (options.help) {
        fputs(usage_text, stdout);
        return EXIT_OK;
    }
    return run_fragcheck(&options);
}
