#ifndef MOBIFRAG_PATH_HASH_H
#define MOBIFRAG_PATH_HASH_H

#include <stdint.h>

/* 64-bit FNV-1a of the path's bytes. Replay uses it as the content stream
 * of a file (record_content of (seed, path_hash(path), offset)) and as the
 * hash of its handle table. */
uint64_t path_hash(const char *path);

#endif
