#ifndef MOBIFRAG_HANDLE_CACHE_H
#define MOBIFRAG_HANDLE_CACHE_H

#include <stddef.h>
#include <stdint.h>

#include "op_status.h"
#include "root_files.h"

struct sql_connection;
struct file_marker;

/* What one replay thread has open under one path: a file descriptor and/or
 * a SQLite connection. */
struct handle {
    char *path;
    int fd; /* -1 when closed */
    size_t open_index; /* position in handle_cache.open while fd >= 0 */
    uint64_t last_used;
    struct sql_connection *sql;
};

/* A thread's open files, looked up by path (hash table). At most
 * max_open_fds descriptors stay open; beyond that the least recently used
 * one is closed. Entries are never removed, only closed. */
struct handle_cache {
    int root_fd;
    const char *root_path;
    struct handle **slots; /* open addressing */
    size_t slot_count, entries;
    struct handle **open; /* handles with fd >= 0 */
    size_t open_count, max_open_fds;
    uint64_t clock;
    struct file_marker *marker; /* --mark-list, NULL when off */
};

/* marker (may be NULL) marks listed files as they are opened for creation. */
void handle_cache_init(struct handle_cache *cache, int root_fd, const char *root_path,
                       size_t max_open_fds, struct file_marker *marker);

/* The entry of path, created closed if new; NULL when out of memory. */
struct handle *handle_cache_entry(struct handle_cache *cache, const char *path);

/* The cached descriptor of path, opening it as intent says when not open
 * (OPEN_TRUNCATE always reopens, so the file is truncated). Returns the
 * descriptor, or -1 with *status set. */
int handle_cache_fd(struct handle_cache *cache, const char *path,
                    enum open_intent intent, op_status *status);

/* Closes what this thread has open under path (before unlink/rename). */
void handle_cache_forget(struct handle_cache *cache, const char *path);

/* Closes every open descriptor; the entries stay (reopened on next use). */
void handle_cache_close_fds(struct handle_cache *cache);

/* Closes everything and frees the cache. */
void handle_cache_close_all(struct handle_cache *cache);

#endif
