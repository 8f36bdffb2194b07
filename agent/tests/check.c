#include "check.h"

#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_TESTS 256

static struct {
    const char *name;
    test_function function;
} tests[MAX_TESTS];
static int test_count;

static const char *agent;
static char current_dir[4096];
static int current_failures;
static const char *current_skip;

void test_register(const char *name, test_function function)
{
    if (test_count == MAX_TESTS) {
        fprintf(stderr, "too many tests; raise MAX_TESTS\n");
        exit(2);
    }
    tests[test_count].name = name;
    tests[test_count].function = function;
    test_count++;
}

const char *agent_binary(void) { return agent; }
const char *scratch_dir(void) { return current_dir; }

const char *scratch_path(const char *relative)
{
    static char buffers[8][4096];
    static int next;
    char *buffer = buffers[next++ % 8];
    if (snprintf(buffer, sizeof buffers[0], "%s/%s", current_dir, relative) >=
        (int)sizeof buffers[0]) {
        fprintf(stderr, "scratch path too long: %s\n", relative);
        exit(2);
    }
    return buffer;
}

void test_skip(const char *reason) { current_skip = reason; }

static void report(const char *file, int line, const char *format, const char *a,
                   const char *b, const char *c)
{
    fprintf(stdout, "    %s:%d: ", file, line);
    fprintf(stdout, format, a, b, c);
    fputc('\n', stdout);
    current_failures++;
}

bool check_true(bool ok, const char *expression, const char *file, int line)
{
    if (!ok)
        report(file, line, "expected %s%s%s", expression, "", "");
    return ok;
}

bool check_eq_u64(uint64_t actual, uint64_t expected, const char *actual_text,
                  const char *expected_text, const char *file, int line)
{
    if (actual == expected)
        return true;
    char values[96];
    snprintf(values, sizeof values, "%llu, expected %llu", (unsigned long long)actual,
             (unsigned long long)expected);
    report(file, line, "%s == %s (%s)", actual_text, expected_text, values);
    return false;
}

bool check_eq_str(const char *actual, const char *expected, const char *actual_text,
                  const char *file, int line)
{
    if (actual && strcmp(actual, expected) == 0)
        return true;
    report(file, line, "%s is \"%s\", expected \"%s\"", actual_text,
           actual ? actual : "(null)", expected);
    return false;
}

bool check_contains(const char *haystack, const char *needle, const char *haystack_text,
                    const char *file, int line)
{
    if (haystack && strstr(haystack, needle))
        return true;
    report(file, line, "%s contains \"%s\"; it is: %s", haystack_text, needle,
           haystack ? haystack : "(null)");
    return false;
}

static int remove_entry(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
    (void)st, (void)type, (void)ftw;
    remove(path); /* keep going on failure: leftovers are only litter */
    return 0;
}

static void remove_tree(const char *path)
{
    nftw(path, remove_entry, 32, FTW_DEPTH | FTW_PHYS);
}

static bool make_scratch_dir(void)
{
    const char *base = getenv("TMPDIR");
    snprintf(current_dir, sizeof current_dir, "%s/mobifrag-agent-test.XXXXXX",
             base && *base ? base : "/tmp");
    return mkdtemp(current_dir) != NULL;
}

static bool run_one(int index)
{
    current_failures = 0;
    current_skip = NULL;
    if (!make_scratch_dir()) {
        printf("FAIL %s: cannot create a scratch directory\n", tests[index].name);
        return false;
    }
    tests[index].function();
    remove_tree(current_dir);
    if (current_failures)
        printf("FAIL %s\n", tests[index].name);
    else if (current_skip)
        printf("skip %s: %s\n", tests[index].name, current_skip);
    else
        printf("ok   %s\n", tests[index].name);
    fflush(stdout);
    return current_failures == 0;
}

int test_run_all(const char *agent_path)
{
    agent = agent_path;
    int passed = 0, failed = 0;
    for (int i = 0; i < test_count; i++) {
        if (run_one(i))
            passed++;
        else
            failed++;
    }
    printf("%d passed, %d failed\n", passed, failed);
    return failed;
}
