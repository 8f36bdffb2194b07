#include "path_hash.h"

uint64_t path_hash(const char *path)
{
    uint64_t hash = 0xcbf29ce484222325ULL;
    for (; *path; path++)
        hash = (hash ^ (unsigned char)*path) * 0x100000001b3ULL;
    return hash;
}
