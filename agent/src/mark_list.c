#include "mark_list.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "path_hash.h"
#include "trace_fields.h"

#define INITIAL_SLOTS 64

/* Drops "." components and empty ones (repeated or trailing '/'), in place. */
static void normalise(char *path)
{
    char *out = path;
    for (const char *part = path; *part;) {
        size_t length = strcspn(part, "/");
        bool skip = length == 0 || (length == 1 && part[0] == '.');
        if (!skip) {
            if (out != path)
                *out++ = '/';
            memmove(out, part, length);
            out += length;
        }
        part += length + (part[length] == '/');
    }
    *out = '\0';
}

static char **find_slot(char **slots, size_t slot_count, const char *path)
{
    size_t mask = slot_count - 1;
    for (size_t i = path_hash(path) & mask;; i = (i + 1) & mask)
        if (!slots[i] || strcmp(slots[i], path) == 0)
            return &slots[i];
}

static bool grow(struct mark_list *list)
{
    size_t count = list->slot_count ? list->slot_count * 2 : INITIAL_SLOTS;
    char **slots = calloc(count, sizeof *slots);
    if (!slots)
        return false;
    for (size_t i = 0; i < list->slot_count; i++)
        if (list->slots[i])
            *find_slot(slots, count, list->slots[i]) = list->slots[i];
    free(list->slots);
    list->slots = slots;
    list->slot_count = count;
    return true;
}

/* Takes ownership of path (normalised); a duplicate is freed. */
static bool add_path(struct mark_list *list, char *path)
{
    if ((list->count + 1) * 4 > list->slot_count * 3 && !grow(list)) {
        free(path);
        return false;
    }
    char **slot = find_slot(list->slots, list->slot_count, path);
    if (*slot) {
        free(path);
        return true;
    }
    *slot = path;
    list->count++;
    return true;
}

struct list_reader {
    const char *file;
    FILE *errors;
    struct mark_list *list;
    long malformed;
};

static void report(struct list_reader *reader, unsigned long line, const char *message)
{
    if (++reader->malformed <= MARK_LIST_MAX_REPORTED_ERRORS)
        fprintf(reader->errors, "%s:%lu: %s\n", reader->file, line, message);
}

/* A path that is nothing but "." components names the root, not a file. */
static const char *decode_line(const char *line, char **out)
{
    const char *error = decode_trace_path(line, out);
    if (error)
        return error;
    normalise(*out);
    if (**out != '\0')
        return NULL;
    free(*out);
    return "path names the root itself, not a file";
}

/* Returns false only when out of memory. */
static bool read_line(struct list_reader *reader, const char *line, size_t length,
                      unsigned long number)
{
    if (length == 0)
        return true;
    char *path;
    const char *error = length != strlen(line) ? "NUL byte in line"
                        : strchr(line, '\t') ? "raw tab in path (write it as \\t)"
                                             : decode_line(line, &path);
    if (error) {
        report(reader, number, error);
        return true;
    }
    return add_path(reader->list, path);
}

static int read_lines(struct list_reader *reader, FILE *in)
{
    char *line = NULL;
    size_t capacity = 0;
    ssize_t length;
    unsigned long number = 0;
    int error = 0;
    while (!error && (length = getline(&line, &capacity, in)) >= 0) {
        if (length > 0 && line[length - 1] == '\n')
            line[--length] = '\0';
        if (!read_line(reader, line, (size_t)length, ++number))
            error = ENOMEM;
    }
    if (!error && ferror(in))
        error = errno ? errno : EIO;
    free(line);
    return error;
}

long mark_list_load(const char *file, struct mark_list *list, FILE *errors)
{
    *list = (struct mark_list){0};
    struct list_reader reader = {.file = file, .errors = errors, .list = list};
    FILE *in = fopen(file, "re");
    if (!in)
        return -errno;
    int error = read_lines(&reader, in);
    fclose(in);
    if (reader.malformed > MARK_LIST_MAX_REPORTED_ERRORS)
        fprintf(errors, "%s: %ld malformed lines in all\n", file, reader.malformed);
    if (error || reader.malformed)
        mark_list_free(list);
    return error ? -error : reader.malformed;
}

bool mark_list_contains(const struct mark_list *list, const char *path)
{
    char key[PATH_MAX];
    if (list->count == 0 || strlen(path) >= sizeof key)
        return false;
    strcpy(key, path);
    normalise(key);
    return *find_slot(list->slots, list->slot_count, key) != NULL;
}

void mark_list_free(struct mark_list *list)
{
    for (size_t i = 0; i < list->slot_count; i++)
        free(list->slots[i]);
    free(list->slots);
    *list = (struct mark_list){0};
}
