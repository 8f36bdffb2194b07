#include "helpers.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"

#define MAX_ARGS 64

static int capture_file(const char *name)
{
    return open(scratch_path(name), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
}

static void exec_child(char **argv, int out_fd, int err_fd)
{
    dup2(out_fd, STDOUT_FILENO);
    dup2(err_fd, STDERR_FILENO);
    execv(argv[0], argv);
    _exit(127);
}

static int decode_status(int raw)
{
    if (WIFEXITED(raw))
        return WEXITSTATUS(raw);
    return 128 + (WIFSIGNALED(raw) ? WTERMSIG(raw) : 0);
}

/* Captures go to hidden files at the top of the scratch directory; tests
 * that walk a tree use a subdirectory as root, so these never show up. */
bool run_agent(struct agent_run *run, const char *first, ...)
{
    char *argv[MAX_ARGS + 2] = {(char *)agent_binary()};
    int argc = 1;
    va_list args;
    va_start(args, first);
    for (const char *arg = first; arg && argc <= MAX_ARGS; arg = va_arg(args, const char *))
        argv[argc++] = (char *)arg;
    va_end(args);
    argv[argc] = NULL;

    *run = (struct agent_run){.status = -1};
    int out_fd = capture_file(".stdout"), err_fd = capture_file(".stderr");
    fflush(stdout);
    pid_t pid = out_fd >= 0 && err_fd >= 0 ? fork() : -1;
    if (pid == 0)
        exec_child(argv, out_fd, err_fd);
    close(out_fd);
    close(err_fd);
    int raw;
    if (pid < 0 || waitpid(pid, &raw, 0) != pid)
        return false;
    run->status = decode_status(raw);
    run->stdout_text = read_file(scratch_path(".stdout"), NULL);
    run->stderr_text = read_file(scratch_path(".stderr"), NULL);
    return run->stdout_text && run->stderr_text;
}

void agent_run_free(struct agent_run *run)
{
    free(run->stdout_text);
    free(run->stderr_text);
    *run = (struct agent_run){0};
}

char *read_file(const char *path, size_t *size)
{
    FILE *in = fopen(path, "rb");
    if (!in)
        return NULL;
    size_t capacity = 4096, used = 0;
    char *data = malloc(capacity + 1);
    size_t n;
    while (data && (n = fread(data + used, 1, capacity - used, in)) > 0) {
        used += n;
        if (used == capacity) {
            char *grown = realloc(data, capacity * 2 + 1);
            if (!grown)
                free(data);
            data = grown;
            capacity *= 2;
        }
    }
    fclose(in);
    if (data)
        data[used] = '\0';
    if (size)
        *size = used;
    return data;
}

bool write_file(const char *path, const void *data, size_t size)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0)
        return false;
    bool ok = write(fd, data, size) == (ssize_t)size && fsync(fd) == 0;
    return close(fd) == 0 && ok;
}

bool write_at(int fd, uint64_t offset, size_t size, unsigned char byte)
{
    char *data = malloc(size);
    if (!data)
        return false;
    memset(data, byte, size);
    bool ok = pwrite(fd, data, size, (off_t)offset) == (ssize_t)size;
    free(data);
    return ok;
}

bool make_dir(const char *path)
{
    return mkdir(path, 0755) == 0;
}

off_t file_size(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 ? st.st_size : -1;
}

int count_dir_entries(const char *path)
{
    DIR *dir = opendir(path);
    if (!dir)
        return -1;
    int count = 0;
    struct dirent *entry;
    while ((entry = readdir(dir)))
        if (strcmp(entry->d_name, ".") != 0 && strcmp(entry->d_name, "..") != 0)
            count++;
    closedir(dir);
    return count;
}

bool dir_has_entry_starting(const char *path, const char *prefix)
{
    DIR *dir = opendir(path);
    if (!dir)
        return false;
    bool found = false;
    struct dirent *entry;
    while (!found && (entry = readdir(dir)))
        found = strncmp(entry->d_name, prefix, strlen(prefix)) == 0;
    closedir(dir);
    return found;
}

bool json_u64(const char *json, const char *key, uint64_t *value)
{
    char pattern[128];
    snprintf(pattern, sizeof pattern, "\"%s\":", key);
    const char *at = json ? strstr(json, pattern) : NULL;
    if (!at)
        return false;
    char *end;
    *value = strtoull(at + strlen(pattern), &end, 10);
    return end != at + strlen(pattern);
}

static const char *line_start(const char *text, int index)
{
    for (; text && index > 0; index--) {
        text = strchr(text, '\n');
        text = text ? text + 1 : NULL;
    }
    return text && *text ? text : NULL;
}

bool nth_line(const char *text, int index, char *buffer, size_t size)
{
    const char *start = line_start(text, index);
    if (!start)
        return false;
    size_t length = strcspn(start, "\n");
    snprintf(buffer, size, "%.*s", (int)length, start);
    return true;
}

int count_lines(const char *text)
{
    int count = 0;
    while (line_start(text, count))
        count++;
    return count;
}

int count_lines_starting(const char *text, const char *prefix)
{
    int count = 0;
    for (int i = 0; line_start(text, i); i++)
        count += strncmp(line_start(text, i), prefix, strlen(prefix)) == 0;
    return count;
}
