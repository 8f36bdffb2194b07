#include "record_content.h"

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

void record_content_fill(uint8_t *buf, size_t length, uint64_t seed,
                         uint64_t stream, uint64_t offset)
{
    uint64_t key = stream_key(seed, stream);
    size_t done = 0;
    while (done < length) {
        uint64_t position = offset + done;
        uint64_t word = content_word(key, position / 8);
        for (unsigned lane = position % 8; lane < 8 && done < length; lane++)
            buf[done++] = nonzero((uint8_t)(word >> (8 * lane)));
    }
}
