#ifndef MOBIFRAG_RECORD_CONTENT_H
#define MOBIFRAG_RECORD_CONTENT_H

#include <stddef.h>
#include <stdint.h>

/* The bytes the appender writes are a pure function of (seed, stream,
 * file offset): a file can be verified byte by byte afterwards, no byte is
 * zero, and the data does not compress, so file systems or devices that
 * compress or deduplicate cannot shrink the workload. */
uint8_t record_content_byte(uint64_t seed, uint64_t stream, uint64_t offset);

/* Fills buf with the content of [offset, offset + length) of one stream. */
void record_content_fill(uint8_t *buf, size_t length, uint64_t seed,
                         uint64_t stream, uint64_t offset);

#endif
