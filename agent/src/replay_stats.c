#include "replay_stats.h"

#include <string.h>

static void add_error_name(struct replay_stats *stats, const char *name, uint64_t count)
{
    for (unsigned i = 0; i < stats->error_name_count; i++)
        if (strcmp(stats->error_names[i].name, name) == 0) {
            stats->error_names[i].count += count;
            return;
        }
    if (stats->error_name_count == REPLAY_MAX_ERROR_NAMES) {
        stats->other_error_names += count;
        return;
    }
    struct error_name_count *slot = &stats->error_names[stats->error_name_count++];
    snprintf(slot->name, sizeof slot->name, "%s", name);
    slot->count = count;
}

void replay_stats_count(struct replay_stats *stats, enum trace_op_kind kind,
                        op_status status)
{
    stats->ops[kind]++;
    if (status == OP_OK)
        return;
    stats->errors[kind]++;
    char name[OP_STATUS_NAME_MAX];
    add_error_name(stats, op_status_name(status, name, sizeof name), 1);
}

void replay_stats_merge(struct replay_stats *into, const struct replay_stats *from)
{
    for (int k = 0; k < OP_KIND_COUNT; k++) {
        into->ops[k] += from->ops[k];
        into->errors[k] += from->errors[k];
    }
    for (unsigned i = 0; i < from->error_name_count; i++)
        add_error_name(into, from->error_names[i].name, from->error_names[i].count);
    into->other_error_names += from->other_error_names;
    into->bytes_written += from->bytes_written;
    into->bytes_read += from->bytes_read;
    into->reclaimed_files += from->reclaimed_files;
    into->reclaimed_bytes += from->reclaimed_bytes;
    into->spared_files += from->spared_files;
    into->tree_blocks_freed += from->tree_blocks_freed;
}

uint64_t replay_stats_total_ops(const struct replay_stats *stats)
{
    uint64_t total = 0;
    for (int k = 0; k < OP_KIND_COUNT; k++)
        total += stats->ops[k];
    return total;
}

static void write_op_object(FILE *out, const char *key, const uint64_t *counts)
{
    fprintf(out, "\"%s\":{", key);
    for (int k = 0; k < OP_KIND_COUNT; k++)
        fprintf(out, "%s\"%s\":%llu", k ? "," : "", trace_op_name((enum trace_op_kind)k),
                (unsigned long long)counts[k]);
    fputc('}', out);
}

static void write_errno_object(FILE *out, const struct replay_stats *stats)
{
    fputs("\"errno\":{", out);
    for (unsigned i = 0; i < stats->error_name_count; i++)
        fprintf(out, "%s\"%s\":%llu", i ? "," : "", stats->error_names[i].name,
                (unsigned long long)stats->error_names[i].count);
    if (stats->other_error_names)
        fprintf(out, "%s\"other\":%llu", stats->error_name_count ? "," : "",
                (unsigned long long)stats->other_error_names);
    fputc('}', out);
}

void replay_stats_write_json(FILE *out, const struct replay_stats *stats)
{
    write_op_object(out, "ops", stats->ops);
    fputc(',', out);
    write_op_object(out, "errors", stats->errors);
    fputc(',', out);
    write_errno_object(out, stats);
}
