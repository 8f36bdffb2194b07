/* ext4_tree_for_each on ext4 images built with mkfs.ext4 and debugfs (from
 * e2fsprogs; skipped without them), checked against debugfs's own listing of
 * each file's interior and leaf nodes. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "ext4_tree.h"
#include "helpers.h"

#define MAX_BLOCKS 64

struct block_set {
    uint64_t start[MAX_BLOCKS];
    size_t count;
};

static int record_block(uint64_t start, uint64_t length, void *context)
{
    struct block_set *set = context;
    (void)length;
    if (set->count == MAX_BLOCKS)
        return 1;
    set->start[set->count++] = start;
    return 0;
}

static bool have_e2fsprogs(void)
{
    return system("command -v mkfs.ext4 >/dev/null && command -v debugfs >/dev/null") == 0;
}

/* An image of block_bytes blocks whose free space is one-block holes (files
 * of one block written, every other one deleted), then `big` written into
 * them: one extent per hole, so a tree of depth 1 or 2. */
static bool build_image(const char *image, unsigned block_bytes, unsigned holes,
                        unsigned big_blocks)
{
    /* scratch_path's buffers rotate: keep copies. */
    char script[512], one[512], big[512];
    snprintf(script, sizeof script, "%s", scratch_path("debugfs.cmds"));
    snprintf(one, sizeof one, "%s", scratch_path("one"));
    snprintf(big, sizeof big, "%s", scratch_path("big.src"));
    FILE *cmds = fopen(script, "w");
    if (!cmds)
        return false;
    fprintf(cmds, "write %s one\n", one);
    for (unsigned i = 0; i < 2 * holes; i++)
        fprintf(cmds, "write %s f%u\n", one, i);
    for (unsigned i = 0; i < 2 * holes; i += 2)
        fprintf(cmds, "rm f%u\n", i);
    fprintf(cmds, "write %s big\n", big);
    fclose(cmds);
    int fd = open(one, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    bool ok = fd >= 0 && write_at(fd, 0, block_bytes, 'o');
    if (fd >= 0)
        close(fd);
    fd = open(big, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    ok = ok && fd >= 0 && write_at(fd, 0, (uint64_t)big_blocks * block_bytes, 'b');
    if (fd >= 0)
        close(fd);
    char command[1024];
    snprintf(command, sizeof command,
             "truncate -s 16M %s && mkfs.ext4 -q -F -b %u -N 1024 %s >/dev/null 2>&1 && "
             "debugfs -w -f %s %s >/dev/null 2>&1",
             image, block_bytes, image, script, image);
    return ok && system(command) == 0;
}

/* Runs debugfs's request on the image and returns its standard output. */
static char *debugfs(const char *image, const char *request)
{
    char command[1024], out[512];
    snprintf(out, sizeof out, "%s", scratch_path("debugfs.out"));
    snprintf(command, sizeof command, "debugfs -R '%s' %s >%s 2>/dev/null", request, image, out);
    return system(command) == 0 ? read_file(out, NULL) : NULL;
}

static uint64_t inode_of(const char *image, const char *name)
{
    char request[64];
    snprintf(request, sizeof request, "stat %s", name);
    char *text = debugfs(image, request);
    unsigned long long ino = 0;
    if (text && sscanf(text, "Inode: %llu", &ino) != 1)
        ino = 0;
    free(text);
    return ino;
}

/* The blocks debugfs lists as the children of interior nodes ("ex -n"). */
static struct block_set debugfs_tree_blocks(const char *image, const char *name,
                                            unsigned block_bytes)
{
    char request[64];
    snprintf(request, sizeof request, "ex -n %s", name);
    char *text = debugfs(image, request);
    struct block_set set = {.count = 0};
    char line[256];
    for (int i = 1; text && nth_line(text, i, line, sizeof line); i++) {
        unsigned level, depth, entry, entries;
        unsigned long long first, last, physical;
        if (sscanf(line, " %u/ %u %u/ %u %llu - %llu %llu", &level, &depth, &entry, &entries,
                   &first, &last, &physical) == 7 &&
            set.count < MAX_BLOCKS)
            set.start[set.count++] = physical * block_bytes;
    }
    free(text);
    return set;
}

static int compare_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

static bool same_blocks(struct block_set a, struct block_set b)
{
    qsort(a.start, a.count, sizeof *a.start, compare_u64);
    qsort(b.start, b.count, sizeof *b.start, compare_u64);
    return a.count == b.count && memcmp(a.start, b.start, a.count * sizeof *a.start) == 0;
}

static void check_tree_of_big(unsigned block_bytes, unsigned holes, size_t expected_blocks)
{
    if (!have_e2fsprogs()) {
        test_skip("mkfs.ext4 or debugfs is missing");
        return;
    }
    const char *image = scratch_path("ext4.img");
    if (!CHECK(build_image(image, block_bytes, holes, holes)))
        return;
    struct ext4_tree_reader reader;
    if (!CHECK(ext4_tree_open_device(&reader, open(image, O_RDONLY)) == 0))
        return;
    struct block_set read = {.count = 0}, none = {.count = 0};
    CHECK(ext4_tree_for_each(&reader, inode_of(image, "big"), record_block, &read) == 0);
    CHECK(ext4_tree_for_each(&reader, inode_of(image, "one"), record_block, &none) == 0);
    ext4_tree_close(&reader);
    CHECK_EQ(read.count, expected_blocks);
    CHECK(same_blocks(read, debugfs_tree_blocks(image, "big", block_bytes)));
    CHECK_EQ(none.count, 0);
}

/* 40 one-block extents: one leaf block below the inode. */
static void leaf_block_of_a_fragmented_file_is_found(void)
{
    check_tree_of_big(4096, 40, 1);
}

/* 400 one-block extents, 84 per 1 KiB leaf: five leaves below an index block. */
static void index_and_leaf_blocks_of_a_deeper_tree_are_found(void)
{
    check_tree_of_big(1024, 400, 6);
}

static void an_image_that_is_not_ext4_is_refused(void)
{
    const char *path = scratch_path("zeros.img");
    int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
    CHECK(fd >= 0 && write_at(fd, 0, 1 << 16, 0));
    struct ext4_tree_reader reader;
    CHECK(ext4_tree_open_device(&reader, fd) == 1);
    CHECK(reader.device_fd == -1);
}

static void an_inode_without_extents_has_no_tree_blocks(void)
{
    if (!have_e2fsprogs()) {
        test_skip("mkfs.ext4 or debugfs is missing");
        return;
    }
    const char *image = scratch_path("ext4.img");
    if (!CHECK(build_image(image, 4096, 4, 4)))
        return;
    struct ext4_tree_reader reader;
    if (!CHECK(ext4_tree_open_device(&reader, open(image, O_RDONLY)) == 0))
        return;
    struct block_set set = {.count = 0};
    /* Inode 1 is the bad-blocks inode: no extent flag. */
    CHECK(ext4_tree_for_each(&reader, 1, record_block, &set) == 0);
    CHECK_EQ(set.count, 0);
    CHECK(ext4_tree_for_each(&reader, 0, record_block, &set) < 0);
    ext4_tree_close(&reader);
}

void register_ext4_tree_tests(void)
{
    test_register("ext4 tree: the leaf block of a fragmented file is found",
                  leaf_block_of_a_fragmented_file_is_found);
    test_register("ext4 tree: index and leaf blocks of a deeper tree are found",
                  index_and_leaf_blocks_of_a_deeper_tree_are_found);
    test_register("ext4 tree: an image that is not ext4 is refused",
                  an_image_that_is_not_ext4_is_refused);
    test_register("ext4 tree: an inode without extents has no tree blocks",
                  an_inode_without_extents_has_no_tree_blocks);
}
