/* Pure parts of replay: trace fields and lines, used %, victim order. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "errno_name.h"
#include "free_runs.h"
#include "space_usage.h"
#include "trace.h"
#include "trace_fields.h"
#include "trace_line.h"
#include "victim_list.h"

static bool close_to(double a, double b)
{
    return a - b < 1e-9 && b - a < 1e-9;
}

static bool parse(const char *text, struct trace_op *op, char *message)
{
    char line[512];
    snprintf(line, sizeof line, "%s", text);
    return parse_trace_line(line, op, message, 256);
}

static void expect_rejected(const char *text, const char *reason)
{
    struct trace_op op;
    char message[256] = "";
    if (!CHECK(!parse(text, &op, message))) {
        printf("    accepted line was \"%s\"\n", text);
        trace_op_free(&op);
        return;
    }
    CHECK_CONTAINS(message, reason);
}

static void trace_lines_of_every_kind_parse(void)
{
    struct trace_op op;
    char message[256] = "";
    CHECK(parse("12\t3\twrite\tdir/a\\tb\t4096\t100", &op, message));
    CHECK_EQ(op.time_us, 12);
    CHECK_EQ(op.thread, 3);
    CHECK_EQ(op.kind, OP_WRITE);
    CHECK_STR(op.path, "dir/a\tb");
    CHECK_EQ(op.span.offset, 4096);
    CHECK_EQ(op.span.length, 100);
    trace_op_free(&op);

    CHECK(parse("0\t0\tfallocate\tf\t0\t65536\tkeep", &op, message));
    CHECK(op.fallocate.keep_size);
    trace_op_free(&op);

    CHECK(parse("0\t0\tsql\tdb/x.db\twal\tupdate\t7\t128", &op, message));
    CHECK_EQ(op.sql.journal, JOURNAL_WAL);
    CHECK_EQ(op.sql.kind, SQL_UPDATE);
    CHECK_EQ(op.sql.rows, 7);
    CHECK_EQ(op.sql.bytes, 128);
    trace_op_free(&op);

    CHECK(parse("0\t0\treclaim\tDCIM\t72.5\t1048576\t9\t*.jpg", &op, message));
    CHECK(close_to(op.reclaim.percent, 72.5));
    CHECK_EQ(op.reclaim.bytes, 1048576);
    CHECK_EQ(op.reclaim.seed, 9);
    CHECK_STR(op.reclaim.glob, "*.jpg");
    trace_op_free(&op);

    CHECK(parse("0\t0\tthin\taging/small\t90\t7\tsmall-*\t524288", &op, message));
    CHECK(close_to(op.thin.percent, 90.0));
    CHECK_EQ(op.thin.seed, 7);
    CHECK_STR(op.thin.glob, "small-*");
    CHECK_EQ(op.thin.limit, 524288);
    trace_op_free(&op);

    CHECK(parse("0\t0\trename\ta\\x01\tb\\\\c", &op, message));
    CHECK_STR(op.path, "a\x01");
    CHECK_STR(op.rename.new_path, "b\\c");
    trace_op_free(&op);
}

static void malformed_trace_lines_are_rejected(void)
{
    expect_rejected("0\t0\twrte\tf\t0\t1", "unknown operation 'wrte'");
    expect_rejected("0\t0\twrite\tf\t0", "'write' takes 6 tab-separated fields, found 5");
    expect_rejected("0\t0\tfsync\tf\textra", "'fsync' takes 4");
    expect_rejected("0\t0\tcreate\t/etc/passwd", "absolute path");
    expect_rejected("0\t0\tcreate\ta/../../b", "'..'");
    expect_rejected("0\t0\tcreate\t..", "'..'");
    expect_rejected("0\t0\tcreate\t\\x2e\\x2e/b", "'..'");
    expect_rejected("0\t0\tcreate\t-", "needs a path");
    expect_rejected("0\t0\tcreate\ta\\qb", "bad escape");
    expect_rejected("0\t0\tcreate\ta\\x0", "bad escape");
    expect_rejected("0\t0\tcreate\ta\\x00", "NUL");
    expect_rejected("0\t0\tappend\tf\t12x", "bad LENGTH '12x'");
    expect_rejected("0\t0\tappend\tf\t-1", "bad LENGTH");
    expect_rejected("0\t0\tappend\tf\t0x10", "bad LENGTH");
    expect_rejected("-1\t0\tcreate\tf", "bad TIME_US");
    expect_rejected("0\tT1\tcreate\tf", "bad THREAD");
    expect_rejected("0\t0\twrite\tf\t9223372036854775807\t1", "beyond the largest");
    expect_rejected("0\t0\tfallocate\tf\t0\t1\tpunch", "bad MODE");
    expect_rejected("0\t0\tsql\td\tmemory\tinsert\t1\t1", "bad JOURNAL");
    expect_rejected("0\t0\tsql\td\twal\tupsert\t1\t1", "bad KIND");
    expect_rejected("0\t0\tfill\tf\t101", "above 100");
    expect_rejected("0\t0\tfill\tf\t7e1", "bad PERCENT");
    expect_rejected("0\t0\treclaim\td\t90\t1\t1\ta/*.jpg", "GLOB");
    expect_rejected("0\t0\tthin\td\t90\t1\t*\t-4", "bad LIMIT");
    expect_rejected("0\t0\tthin\td\t90\t1\t*", "'thin' takes 8");
    expect_rejected("0\t0\tthin\td\t90\t1\t\t4096", "GLOB");
    expect_rejected("0\t0", "TIME_US THREAD OP PATH");
    expect_rejected("0\t0\tcreate\t", "empty path");
}

static void used_percent_is_used_over_usable(void)
{
    /* 600 used, 350 available to users, 50 reserved for root */
    CHECK(close_to(used_percent(1000, 400, 350), 600.0 * 100 / 950));
    CHECK(close_to(used_percent(1000, 1000, 1000), 0.0));
    CHECK(close_to(used_percent(1000, 50, 0), 100.0));
    CHECK(close_to(used_percent(0, 0, 0), 0.0));
}

static void bytes_above_percent_reaches_the_target(void)
{
    /* 600 used of 950 usable blocks of 4 KiB: down to 50 % frees 125 blocks */
    CHECK(bytes_above_percent(1000, 400, 350, 4096, 50.0) == 125 * 4096);
    CHECK(bytes_above_percent(1000, 400, 350, 4096, 70.0) == 0);
    CHECK(bytes_above_percent(0, 0, 0, 4096, 10.0) == 0);
}

static void fill_list(struct victim_list *list, bool reversed)
{
    for (int i = 0; i < 20; i++) {
        char path[32];
        snprintf(path, sizeof path, "DCIM/img%02d.jpg", reversed ? 19 - i : i);
        CHECK(victim_list_add(list, path, 4096));
    }
}

static bool same_order(const struct victim_list *a, const struct victim_list *b)
{
    for (size_t i = 0; i < a->count; i++)
        if (strcmp(a->items[i].path, b->items[i].path) != 0)
            return false;
    return a->count == b->count;
}

static void victim_order_depends_only_on_the_seed(void)
{
    struct victim_list first = {0}, second = {0}, other_seed = {0};
    fill_list(&first, false);
    fill_list(&second, true); /* other directory order */
    fill_list(&other_seed, false);
    order_victims(&first, 42);
    order_victims(&second, 42);
    order_victims(&other_seed, 43);
    CHECK(same_order(&first, &second));
    CHECK(!same_order(&first, &other_seed));
    struct victim_list sorted = {0};
    fill_list(&sorted, false);
    CHECK(!same_order(&first, &sorted)); /* it is shuffled */
    victim_list_free(&first);
    victim_list_free(&second);
    victim_list_free(&other_seed);
    victim_list_free(&sorted);
}

#define ONE(start) ((struct span){(start), 4096})

static void free_runs_join_touching_freed_extents(void)
{
    struct free_runs runs = {0};
    struct span a = ONE(0), b[] = {ONE(4096), ONE(16384)}, c = ONE(8192), d = ONE(24576);
    CHECK_EQ(free_runs_longest_with(&runs, &a, 1), 4096);
    CHECK_EQ(free_runs_longest_with(&runs, &a, 1), 4096); /* asking frees nothing */
    CHECK(free_runs_free(&runs, &a, 1));
    CHECK_EQ(free_runs_longest_with(&runs, &c, 1), 4096); /* b still lies between */
    CHECK_EQ(free_runs_longest_with(&runs, b, 2), 8192);  /* [0, 8K) with a */
    CHECK(free_runs_free(&runs, &c, 1));
    CHECK_EQ(free_runs_longest_with(&runs, b, 2), 12288); /* [0, 12K); [16K, 20K) apart */
    CHECK(free_runs_free(&runs, b, 2));
    CHECK_EQ(free_runs_longest_with(&runs, &d, 1), 4096); /* 20K-24K is not known free */
    CHECK_EQ(free_runs_longest_with(&runs, NULL, 0), 0);
    free_runs_release(&runs);
}

static void free_runs_bridge_a_used_block_or_two(void)
{
    /* [4K, 8K) used between left and a candidate: a block of a deleted file's
     * extent tree may lie there and be freed with the file. */
    struct free_runs runs = {.bridge_blocks = 1, .block_bytes = 4096};
    struct span left = ONE(0), near_one = ONE(8192), near_two = ONE(12288), far = ONE(28672);
    CHECK(free_runs_free(&runs, &left, 1));
    CHECK_EQ(free_runs_longest_with(&runs, &near_one, 1), 12288);
    CHECK_EQ(free_runs_longest_with(&runs, &near_two, 1), 4096); /* two blocks between */
    runs.bridge_blocks = 2;
    CHECK_EQ(free_runs_longest_with(&runs, &near_two, 1), 16384);
    CHECK_EQ(free_runs_longest_with(&runs, &far, 1), 4096);
    free_runs_release(&runs);
}

static void free_runs_bridge_at_most_an_eighth_of_the_limit(void)
{
    CHECK_EQ(free_runs_bridge_for(512 * 1024, 4096, 2), 2); /* 128 blocks: two */
    CHECK_EQ(free_runs_bridge_for(16 * 1024, 4096, 2), 0);  /* 4 blocks: none */
    CHECK_EQ(free_runs_bridge_for(8 * 4096, 4096, 2), 1);
    CHECK_EQ(free_runs_bridge_for(0, 4096, 2), 0);
    CHECK_EQ(free_runs_bridge_for(512 * 1024, 0, 2), 0);
}

static void free_runs_join_a_files_own_touching_extents(void)
{
    struct free_runs runs = {0};
    struct span left = {0, 8192}, file[] = {ONE(12288), ONE(8192)}; /* out of order */
    CHECK(free_runs_free(&runs, &left, 1));
    CHECK_EQ(free_runs_longest_with(&runs, file, 2), 16384);
    /* Many freed pieces in a row (the map grows past its first size). */
    for (uint64_t start = 1 << 20; start < (1 << 20) + 3000 * 4096; start += 4096) {
        struct span piece = ONE(start);
        CHECK(free_runs_free(&runs, &piece, 1));
    }
    struct span next = ONE((1 << 20) + 3000 * 4096);
    CHECK_EQ(free_runs_longest_with(&runs, &next, 1), 3001 * 4096);
    free_runs_release(&runs);
}

static void errno_values_have_names(void)
{
    char name[32];
    CHECK_STR(errno_name(ENOSPC, name, sizeof name), "ENOSPC");
    CHECK_STR(errno_name(ENOENT, name, sizeof name), "ENOENT");
    CHECK_STR(errno_name(4000, name, sizeof name), "errno_4000");
}

void register_replay_unit_tests(void)
{
    test_register("replay units: trace lines of every kind parse",
                  trace_lines_of_every_kind_parse);
    test_register("replay units: malformed trace lines are rejected",
                  malformed_trace_lines_are_rejected);
    test_register("replay units: used percent is used over usable",
                  used_percent_is_used_over_usable);
    test_register("replay units: bytes above a percent reach the target",
                  bytes_above_percent_reaches_the_target);
    test_register("replay units: victim order depends only on the seed",
                  victim_order_depends_only_on_the_seed);
    test_register("replay units: free runs join touching freed extents",
                  free_runs_join_touching_freed_extents);
    test_register("replay units: free runs join a file's own touching extents",
                  free_runs_join_a_files_own_touching_extents);
    test_register("replay units: free runs bridge a used block or two",
                  free_runs_bridge_a_used_block_or_two);
    test_register("replay units: a bridge is at most an eighth of the run limit",
                  free_runs_bridge_at_most_an_eighth_of_the_limit);
    test_register("replay units: errno values have names", errno_values_have_names);
}
