#ifndef MOBIFRAG_TRACE_H
#define MOBIFRAG_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One parsed `.iotrace` (traces/FORMAT.md): every line checked before any
 * operation runs, then grouped by trace thread. */

enum trace_op_kind {
    OP_MKDIR, OP_CREATE, OP_WRITE, OP_APPEND, OP_READ, OP_FSYNC, OP_FDATASYNC,
    OP_SYNCFS, OP_FALLOCATE, OP_TRUNCATE, OP_UNLINK, OP_RENAME, OP_SQL, OP_FILL, OP_RECLAIM,
    OP_THIN, OP_KIND_COUNT
};

enum sql_journal { JOURNAL_DELETE, JOURNAL_TRUNCATE, JOURNAL_PERSIST, JOURNAL_WAL,
                   JOURNAL_COUNT };
enum sql_kind { SQL_INSERT, SQL_UPDATE, SQL_DELETE, SQL_SELECT, SQL_KIND_COUNT };

struct span_args { uint64_t offset, length; };            /* write, read */
struct length_args { uint64_t length; };                   /* append, truncate */
struct fallocate_args { uint64_t offset, length; bool keep_size; };
struct rename_args { char *new_path; };
struct sql_args { enum sql_journal journal; enum sql_kind kind; uint64_t rows, bytes; };
struct fill_args { double percent; };
struct reclaim_args { double percent; uint64_t bytes, seed; char *glob; };
struct thin_args { double percent; uint64_t seed; char *glob; uint64_t limit; };

struct trace_op {
    uint64_t time_us;
    uint64_t thread;
    unsigned long line;
    enum trace_op_kind kind;
    char *path; /* unescaped, relative to the replay root */
    union {
        struct span_args span;
        struct length_args size;
        struct fallocate_args fallocate;
        struct rename_args rename;
        struct sql_args sql;
        struct fill_args fill;
        struct reclaim_args reclaim;
        struct thin_args thin;
    };
};

struct trace_thread {
    uint64_t id;
    struct trace_op **ops; /* in file order */
    size_t count;
};

struct trace {
    struct trace_op *ops; /* in file order */
    size_t count, capacity;
    struct trace_thread *threads; /* ascending id */
    size_t thread_count;
};

/* Distinct THREAD values a trace may use: each becomes a pthread with its own
 * descriptors and SQLite connections. The generated traces use at most a few
 * dozen; the first line naming one more is refused. */
#define TRACE_MAX_THREADS 256u
#define TRACE_HEADER "#iotrace v1"

const char *trace_op_name(enum trace_op_kind kind);
bool trace_op_from_name(const char *name, enum trace_op_kind *kind);
/* Fields of a line of this kind, TIME_US THREAD OP PATH included. */
unsigned trace_op_field_count(enum trace_op_kind kind);
/* The argument names after PATH, e.g. "OFFSET LENGTH" ("" when none). */
const char *trace_op_arguments(enum trace_op_kind kind);

const char *sql_journal_name(enum sql_journal journal);
bool sql_journal_from_name(const char *name, enum sql_journal *journal);
const char *sql_kind_name(enum sql_kind kind);
bool sql_kind_from_name(const char *name, enum sql_kind *kind);

void trace_op_free(struct trace_op *op);
void trace_free(struct trace *trace);

#endif
