#ifndef MOBIFRAG_TEST_CHECK_H
#define MOBIFRAG_TEST_CHECK_H

#include <stdbool.h>
#include <stdint.h>

/* A minimal test runner: tests register themselves, each runs with a fresh
 * scratch directory, checks report file:line and the failing expression. */

typedef void (*test_function)(void);

void test_register(const char *name, test_function function);
int test_run_all(const char *agent_path); /* returns the number of failures */

/* Paths for the running test. */
const char *agent_binary(void);
const char *scratch_dir(void);
/* Returns a static buffer holding scratch_dir()/relative (rotating, 8 deep). */
const char *scratch_path(const char *relative);

/* Marks the running test as skipped (with a reason) instead of passed. */
void test_skip(const char *reason);

bool check_true(bool ok, const char *expression, const char *file, int line);
bool check_eq_u64(uint64_t actual, uint64_t expected, const char *actual_text,
                  const char *expected_text, const char *file, int line);
bool check_eq_str(const char *actual, const char *expected, const char *actual_text,
                  const char *file, int line);
bool check_contains(const char *haystack, const char *needle, const char *haystack_text,
                    const char *file, int line);

#define CHECK(expression) check_true((expression), #expression, __FILE__, __LINE__)
#define CHECK_EQ(actual, expected) \
    check_eq_u64((uint64_t)(actual), (uint64_t)(expected), #actual, #expected, __FILE__, __LINE__)
#define CHECK_STR(actual, expected) check_eq_str((actual), (expected), #actual, __FILE__, __LINE__)
#define CHECK_CONTAINS(haystack, needle) \
    check_contains((haystack), (needle), #haystack, __FILE__, __LINE__)

#endif
