/* Pure functions: size parsing, option reading, TSV escaping, record content,
 * flag names, the start gate. */
#include <fcntl.h>
#include <linux/fiemap.h>
#include <stdio.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "cli.h"
#include "exit_codes.h"
#include "fiemap_reader.h"
#include "record_content.h"
#include "start_gate.h"
#include "tsv_escape.h"

static void expect_size(const char *text, uint64_t expected)
{
    uint64_t value = UINT64_MAX;
    if (!CHECK(parse_size(text, &value)) || !CHECK_EQ(value, expected))
        printf("    input was \"%s\"\n", text);
}

static void size_suffixes_are_binary_multiples(void)
{
    expect_size("4096", 4096);
    expect_size("4K", 4096);
    expect_size("4k", 4096);
    expect_size("4KiB", 4096);
    expect_size("64M", 64ULL << 20);
    expect_size("2G", 2ULL << 30);
    expect_size("0", 0);
}

static void malformed_sizes_are_rejected(void)
{
    uint64_t v;
    const char *bad[] = {"", "K", "-1", " 4", "4 K", "4Q", "4KQ", "1.5M", "0x10",
                         "99999999999999999999", "17179869184G"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        if (!CHECK(!parse_size(bad[i], &v)))
            printf("    rejected input was \"%s\"\n", bad[i]);
}

static void u64_accepts_decimal_and_hex_only(void)
{
    uint64_t max = 0, hex = 0, v;
    CHECK(parse_u64("18446744073709551615", &max));
    CHECK_EQ(max, UINT64_MAX);
    CHECK(parse_u64("0x2a", &hex));
    CHECK_EQ(hex, 42);
    CHECK(!parse_u64("18446744073709551616", &v));
    CHECK(!parse_u64("-3", &v));
    CHECK(!parse_u64("3K", &v));
}

enum { SAMPLE_NAME = 256, SAMPLE_REFUSE, SAMPLE_HELP };

struct sample_options {
    const char *name;
    bool help;
};

static int apply_sample(int code, const char *value, void *target)
{
    struct sample_options *options = target;
    switch (code) {
    case SAMPLE_NAME: options->name = value; return EXIT_OK;
    case SAMPLE_REFUSE: return EXIT_DATA_ERROR;
    case SAMPLE_HELP:
    case 'h': options->help = true; return EXIT_OK;
    }
    return EXIT_USAGE;
}

/* read_command_options on ARGS (a NULL-terminated list after the command's
 * name), its usage message sent to /dev/null. */
static int read_sample(struct sample_options *options, const char *const *args)
{
    static const struct option table[] = {
        {"name", required_argument, NULL, SAMPLE_NAME},
        {"refuse", no_argument, NULL, SAMPLE_REFUSE},
        {"help", no_argument, NULL, SAMPLE_HELP},
        {NULL, 0, NULL, 0},
    };
    char *argv[8] = {"sample"};
    int argc = 1;
    while (args[argc - 1] && argc < 7) {
        argv[argc] = (char *)args[argc - 1];
        argc++;
    }
    *options = (struct sample_options){0};
    const struct command_options spec = {"sample", table, apply_sample, options,
                                         &options->help};
    fflush(stderr);
    int saved = dup(STDERR_FILENO), quiet = open("/dev/null", O_WRONLY);
    dup2(quiet, STDERR_FILENO);
    int status = read_command_options(&spec, argc, argv);
    fflush(stderr);
    dup2(saved, STDERR_FILENO);
    close(quiet);
    close(saved);
    return status;
}

static void options_are_read_and_refused_by_name(void)
{
    struct sample_options options;
    CHECK_EQ(read_sample(&options, (const char *[]){"--name", "a", NULL}), EXIT_OK);
    CHECK_STR(options.name, "a");
    CHECK_EQ(read_sample(&options, (const char *[]){"--name", NULL}), EXIT_USAGE);
    CHECK_EQ(read_sample(&options, (const char *[]){"--nope", NULL}), EXIT_USAGE);
    CHECK_EQ(read_sample(&options, (const char *[]){"operand", NULL}), EXIT_USAGE);
    CHECK_EQ(read_sample(&options, (const char *[]){"--help", "operand", NULL}), EXIT_OK);
    CHECK(options.help);
    CHECK_EQ(read_sample(&options, (const char *[]){"-h", NULL}), EXIT_OK);
    CHECK(options.help);
    /* The first refusal stops the reading: --name after it is not applied. */
    CHECK_EQ(read_sample(&options, (const char *[]){"--refuse", "--name", "b", NULL}),
             EXIT_DATA_ERROR);
    CHECK(options.name == NULL);
}

static void escape_expect(const char *raw, const char *expected)
{
    char *escaped = tsv_escape(raw);
    CHECK_STR(escaped, expected);
    free(escaped);
}

static void tsv_escape_covers_separators_and_controls(void)
{
    escape_expect("plain/name.db", "plain/name.db");
    escape_expect("tab\there", "tab\\there");
    escape_expect("new\nline", "new\\nline");
    escape_expect("back\\slash", "back\\\\slash");
    escape_expect("cr\rbell\a\x1f\x7f", "cr\\x0dbell\\x07\\x1f\\x7f");
    escape_expect("caf\xc3\xa9", "caf\xc3\xa9"); /* UTF-8 passes through */
    escape_expect("", "");
}

static void escaped_text_never_holds_a_separator(void)
{
    char all_bytes[256];
    for (int i = 1; i < 256; i++)
        all_bytes[i - 1] = (char)i;
    all_bytes[255] = '\0';
    char *escaped = tsv_escape(all_bytes);
    CHECK(escaped && !strchr(escaped, '\t') && !strchr(escaped, '\n') && !strchr(escaped, '\r'));
    free(escaped);
}

static void record_content_is_nonzero_and_deterministic(void)
{
    enum { LENGTH = 10000 };
    static uint8_t a[LENGTH], b[LENGTH], other_stream[LENGTH];
    record_content_fill(a, LENGTH, 42, 1, 0);
    record_content_fill(b, LENGTH, 42, 1, 0);
    record_content_fill(other_stream, LENGTH, 42, 2, 0);
    CHECK(memcmp(a, b, LENGTH) == 0);
    CHECK(memcmp(a, other_stream, LENGTH) != 0);
    CHECK(memchr(a, 0, LENGTH) == NULL);
    int distinct[256] = {0}, kinds = 0;
    for (int i = 0; i < LENGTH; i++)
        kinds += distinct[a[i]]++ == 0;
    CHECK(kinds > 200); /* looks random: compresses poorly */
}

/* Long enough that some of its words hold a zero byte (about one in 32): the
 * whole-word path must give those the same replacement as the bytewise one. */
static void record_content_fill_matches_bytewise_at_any_offset(void)
{
    uint8_t buffer[4099];
    const uint64_t offsets[] = {0, 1, 7, 8, 4093, 1ULL << 33};
    for (size_t k = 0; k < sizeof offsets / sizeof offsets[0]; k++) {
        record_content_fill(buffer, sizeof buffer, 7, 3, offsets[k]);
        bool same = true;
        for (size_t i = 0; i < sizeof buffer; i++)
            same &= buffer[i] == record_content_byte(7, 3, offsets[k] + i);
        CHECK(same);
    }
}

static void flag_names_are_comma_separated(void)
{
    char out[FIEMAP_FLAG_NAMES_MAX];
    CHECK_STR(fiemap_flag_names(0, out, sizeof out), "-");
    CHECK_STR(fiemap_flag_names(FIEMAP_EXTENT_LAST, out, sizeof out), "last");
    CHECK_STR(fiemap_flag_names(FIEMAP_EXTENT_LAST | FIEMAP_EXTENT_UNWRITTEN, out, sizeof out),
              "last,unwritten");
    CHECK_STR(fiemap_flag_names(FIEMAP_EXTENT_DATA_INLINE | FIEMAP_EXTENT_NOT_ALIGNED |
                                    FIEMAP_EXTENT_SHARED | 0x40000000u,
                                out, sizeof out),
              "not_aligned,inline,shared,0x40000000");
    CHECK_STR(fiemap_flag_names(0xffffffffu, out, sizeof out),
              "last,unknown,delalloc,encoded,encrypted,not_aligned,inline,tail,"
              "unwritten,merged,shared,0xffffc070");
}

struct gate_worker {
    struct start_gate *gate;
    atomic_int *running;
    bool started;
};

static void *gate_worker_main(void *argument)
{
    struct gate_worker *worker = argument;
    worker->started = start_gate_arrive(worker->gate);
    if (worker->started)
        atomic_fetch_add(worker->running, 1);
    return NULL;
}

static void run_gate(bool open, int *started_count)
{
    enum { WORKERS = 4 };
    struct start_gate gate;
    atomic_int running;
    atomic_init(&running, 0);
    start_gate_init(&gate);
    pthread_t threads[WORKERS];
    struct gate_worker workers[WORKERS];
    for (int i = 0; i < WORKERS; i++) {
        workers[i] = (struct gate_worker){.gate = &gate, .running = &running};
        pthread_create(&threads[i], NULL, gate_worker_main, &workers[i]);
    }
    if (open)
        start_gate_open_when_arrived(&gate, WORKERS);
    else
        start_gate_abort(&gate);
    *started_count = 0;
    for (int i = 0; i < WORKERS; i++) {
        pthread_join(threads[i], NULL);
        *started_count += workers[i].started;
    }
    start_gate_destroy(&gate);
}

static void start_gate_releases_all_or_none(void)
{
    int started;
    run_gate(true, &started);
    CHECK_EQ(started, 4);
    run_gate(false, &started);
    CHECK_EQ(started, 0);
}

void register_unit_tests(void)
{
    test_register("size suffixes are binary multiples", size_suffixes_are_binary_multiples);
    test_register("malformed sizes are rejected", malformed_sizes_are_rejected);
    test_register("u64 accepts decimal and hex only", u64_accepts_decimal_and_hex_only);
    test_register("options are read and refused by name", options_are_read_and_refused_by_name);
    test_register("tsv escape covers separators and controls",
                  tsv_escape_covers_separators_and_controls);
    test_register("escaped text never holds a separator", escaped_text_never_holds_a_separator);
    test_register("record content is non-zero and deterministic",
                  record_content_is_nonzero_and_deterministic);
    test_register("record content fill matches bytewise at any offset",
                  record_content_fill_matches_bytewise_at_any_offset);
    test_register("fiemap flag names are comma separated", flag_names_are_comma_separated);
    test_register("start gate releases all or none", start_gate_releases_all_or_none);
}
