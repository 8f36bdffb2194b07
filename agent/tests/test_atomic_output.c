/* The temp-then-rename contract of atomic_output. */
#include <stdlib.h>
#include <string.h>

#include "atomic_output.h"
#include "check.h"
#include "helpers.h"

static void table_appears_only_when_published(void)
{
    const char *final = scratch_path("out/table.tsv");
    CHECK(make_dir(scratch_path("out")));
    struct atomic_output out;
    if (!CHECK_EQ(atomic_output_open(&out, final), 0))
        return;
    CHECK(dir_has_entry_starting(scratch_path("out"), ".table.tsv.tmp."));
    CHECK(fputs("header\nrow\n", out.stream) != EOF);
    CHECK_EQ(atomic_output_finish(&out), 0);
    CHECK_EQ(file_size(final), (uint64_t)-1); /* finished is not yet published */
    CHECK_EQ(atomic_output_publish(&out), 0);
    atomic_output_free(&out);
    char *text = read_file(final, NULL);
    CHECK_STR(text, "header\nrow\n");
    free(text);
    CHECK_EQ(count_dir_entries(scratch_path("out")), 1);
}

static void discarded_table_leaves_the_old_one_alone(void)
{
    const char *final = scratch_path("table.tsv");
    CHECK(write_file(final, "old\n", 4));
    struct atomic_output out;
    if (!CHECK_EQ(atomic_output_open(&out, final), 0))
        return;
    fputs("half a tab", out.stream);
    atomic_output_discard(&out);
    atomic_output_free(&out);
    char *text = read_file(final, NULL);
    CHECK_STR(text, "old\n");
    free(text);
    CHECK(!dir_has_entry_starting(scratch_dir(), ".table.tsv.tmp."));
}

static void table_in_missing_directory_fails_cleanly(void)
{
    struct atomic_output out;
    CHECK(atomic_output_open(&out, scratch_path("missing/table.tsv")) < 0);
}

void register_atomic_output_tests(void)
{
    test_register("atomic output: table appears only when published",
                  table_appears_only_when_published);
    test_register("atomic output: discarded table leaves the old one alone",
                  discarded_table_leaves_the_old_one_alone);
    test_register("atomic output: table in a missing directory fails cleanly",
                  table_in_missing_directory_fails_cleanly);
}
