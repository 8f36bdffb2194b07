#ifndef MOBIFRAG_FUZZ_MUTATOR_H
#define MOBIFRAG_FUZZ_MUTATOR_H

/* A small deterministic byte mutator for trace text (header-only): the
 * in-repo fuzz driver and the bounded fuzz test of `make test` share it, so
 * no libFuzzer is needed. splitmix64 drives every choice, so a seed gives the
 * same inputs on every machine. */

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define MUTATOR_MAX_SIZE 8192

static inline uint64_t mutator_next(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static inline size_t mutator_below(uint64_t *state, size_t n)
{
    return n ? (size_t)(mutator_next(state) % n) : 0;
}

static const char *const mutator_tokens[] = {
    "\t", "\n", "#iotrace v1\n", "#", "\\", "\\\\", "\\t", "\\n", "\\x", "\\x00", "\\x2e",
    "\\x2f", "\\xff", "..", "../", "/", "./", "-", ".", "0", "1", "100", "100.5", "72.5",
    "250", "9223372036854775807", "9223372036854775808", "18446744073709551615",
    "18446744073709551616", "1000000000", "1000000001", "4k", "0x10", "-1", "+1",
    "mkdir", "create", "write", "append", "read", "fsync", "fdatasync", "syncfs",
    "fallocate", "truncate", "unlink", "rename", "sql", "fill", "reclaim", "thin", "keep",
    "extend", "delete", "persist", "wal", "insert", "update", "select", "*", "img-*",
    "\xff", "\xc3\xa9", "\r",
};

/* Inserts len bytes at `at` if they fit. */
static inline size_t mutator_insert(uint8_t *data, size_t size, size_t at, const void *bytes,
                                    size_t len)
{
    if (size + len > MUTATOR_MAX_SIZE)
        return size;
    memmove(data + at + len, data + at, size - at);
    memcpy(data + at, bytes, len);
    return size + len;
}

/* Mutates data (size bytes, capacity MUTATOR_MAX_SIZE) in place with 1-6
 * edits; other (may be NULL) is spliced from. Returns the new size. */
static inline size_t mutator_mutate(uint64_t *state, uint8_t *data, size_t size,
                                    const uint8_t *other, size_t other_size)
{
    static const uint8_t bytes[] = "\t\n\\/.-#0123456789\x00\x01\x7f\x80\xff x";
    size_t edits = 1 + mutator_below(state, 6);
    for (size_t e = 0; e < edits; e++) {
        size_t at = mutator_below(state, size + 1);
        switch (mutator_below(state, 8)) {
        case 0:
            if (at < size)
                data[at] ^= (uint8_t)(1u << mutator_below(state, 8));
            break;
        case 1:
            if (at < size)
                data[at] = bytes[mutator_below(state, sizeof bytes - 1)];
            break;
        case 2: {
            const char *token =
                mutator_tokens[mutator_below(state, sizeof mutator_tokens / sizeof *mutator_tokens)];
            size = mutator_insert(data, size, at, token, strlen(token));
            break;
        }
        case 3:
            if (at < size) {
                size_t n = 1 + mutator_below(state, size - at < 32 ? size - at : 32);
                memmove(data + at, data + at + n, size - at - n);
                size -= n;
            }
            break;
        case 4:
            if (at < size) { /* duplicate a range (a line, often) */
                size_t n = 1 + mutator_below(state, size - at < 128 ? size - at : 128);
                uint8_t copy[128];
                memcpy(copy, data + at, n);
                size = mutator_insert(data, size, mutator_below(state, size + 1), copy, n);
            }
            break;
        case 5:
            if (other && other_size) {
                size_t from = mutator_below(state, other_size);
                size_t n = 1 + mutator_below(state, other_size - from < 256 ? other_size - from
                                                                           : 256);
                size = mutator_insert(data, size, at, other + from, n);
            }
            break;
        case 6:
            if (size)
                size = mutator_below(state, size);
            break;
        default: { /* a line with a new THREAD value */
            char line[64];
            int n = snprintf(line, sizeof line, "0\t%u\tcreate\tf\n",
                             (unsigned)mutator_below(state, 400));
            size = mutator_insert(data, size, at, line, (size_t)n);
            break;
        }
        }
    }
    return size;
}

#endif
