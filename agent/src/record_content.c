#include "record_content.h"

#include <stdbool.h>
#include <string.h>

#define GOLDEN_GAMMA 0x9e3779b97f4a7c15ULL

/* splitmix64's output function: a cheap, well-mixed 64-bit bijection. */
static uint64_t mix64(uint64_t x)
{
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

static uint64_t stream_key(uint64_t seed, uint64_t stream)
{
    return mix64(mix64(seed) + (stream + 1) * GOLDEN_GAMMA);
}

static uint64_t content_word(uint64_t key, uint64_t word_index)
{
    return mix64(key + word_index * GOLDEN_GAMMA);
}

static uint8_t nonzero(uint8_t byte)
{
    return byte ? byte : 0xa5;
}

uint8_t record_content_byte(uint64_t seed, uint64_t stream, uint64_t offset)
{
    uint64_t word = content_word(stream_key(seed, stream), offset / 8);
    return nonzero((uint8_t)(word >> (8 * (offset % 8))));
}

/* A word with no zero byte is stored whole: the byte at lane i is word >> 8i,
 * which is memory order on a little-endian machine. Under the emulator the
 * byte loop below was the agent's main cost for large writes. */
static size_t fill_whole_words(uint8_t *buf, size_t length, uint64_t key, uint64_t first_word)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    size_t done = 0;
    for (uint64_t index = first_word; length - done >= 8; index++, done += 8) {
        uint64_t word = content_word(key, index);
        bool has_zero = ((word - 0x0101010101010101ULL) & ~word & 0x8080808080808080ULL) != 0;
        if (has_zero)
            for (unsigned lane = 0; lane < 8; lane++)
                buf[done + lane] = nonzero((uint8_t)(word >> (8 * lane)));
        else
            memcpy(buf + done, &word, 8);
    }
    return done;
#else
    (void)buf, (void)length, (void)key, (void)first_word;
    return 0;
#endif
}

void record_content_fill(uint8_t *buf, size_t length, uint64_t seed,
                         uint64_t stream, uint64_t offset)
{
    uint64_t key = stream_key(seed, stream);
    size_t done = 0;
    while (done < length) {
        uint64_t position = offset + done;
        if (position % 8 == 0) {
            size_t whole = fill_whole_words(buf + done, length - done, key, position / 8);
            done += whole;
            if (done == length)
                break;
            position = offset + done;
        }
        uint64_t word = content_word(key, position / 8);
        for (unsigned lane = position % 8; lane < 8 && done < length; lane++)
            buf[done++] = nonzero((uint8_t)(word >> (8 * lane)));
    }
}
