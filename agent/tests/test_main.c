#include <stdio.h>

#include "check.h"

void register_unit_tests(void);
void register_fiemap_tests(void);
void register_ext4_tree_tests(void);
void register_atomic_output_tests(void);
void register_append_tests(void);
void register_fragbench_tests(void);
void register_fragcheck_tests(void);
void register_replay_unit_tests(void);
void register_replay_tests(void);
void register_replay_mark_tests(void);
void register_replay_fence_tests(void);
void register_trace_fuzz_tests(void);
void register_trace_wait_tests(void);

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s PATH-TO-mobifrag-agent\n", argv[0]);
        return 2;
    }
    register_unit_tests();
    register_fiemap_tests();
    register_ext4_tree_tests();
    register_atomic_output_tests();
    register_append_tests();
    register_fragbench_tests();
    register_fragcheck_tests();
    register_replay_unit_tests();
    register_replay_tests();
    register_replay_mark_tests();
    register_replay_fence_tests();
    register_trace_fuzz_tests();
    register_trace_wait_tests();
    return test_run_all(argv[1]) == 0 ? 0 : 1;
}
