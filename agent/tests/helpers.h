#ifndef MOBIFRAG_TEST_HELPERS_H
#define MOBIFRAG_TEST_HELPERS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Outcome of running the agent binary as a child process. */
struct agent_run {
    int status;   /* exit status, or 128 + signal number */
    char *stdout_text;
    char *stderr_text;
};

/* Runs agent_binary() with the NULL-terminated arguments. */
bool run_agent(struct agent_run *run, const char *first, ...);
void agent_run_free(struct agent_run *run);

/* Whole file as a NUL-terminated string (NULL if unreadable); *size gets
 * the byte count when size is not NULL. */
char *read_file(const char *path, size_t *size);
bool write_file(const char *path, const void *data, size_t size);
bool write_at(int fd, uint64_t offset, size_t size, unsigned char byte);
bool make_dir(const char *path);
off_t file_size(const char *path); /* -1 when missing */
int count_dir_entries(const char *path); /* without . and .. ; -1 on error */
bool dir_has_entry_starting(const char *dir, const char *prefix);

/* Integer field of a flat JSON object ("key":123); false if absent. */
bool json_u64(const char *json, const char *key, uint64_t *value);

/* The index-th line (0-based) of text, copied into buffer; false if none. */
bool nth_line(const char *text, int index, char *buffer, size_t size);
int count_lines(const char *text);
/* Number of lines that start with prefix. */
int count_lines_starting(const char *text, const char *prefix);

#endif
