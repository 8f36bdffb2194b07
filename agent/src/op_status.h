#ifndef MOBIFRAG_OP_STATUS_H
#define MOBIFRAG_OP_STATUS_H

#include <stddef.h>

/* Outcome of one replayed operation: 0 (success), an errno value (> 0), or
 * a SQLite failure without an OS error behind it (< 0: minus the SQLite
 * result code, or OP_STATUS_JOURNAL_REFUSED). */
typedef int op_status;

#define OP_OK 0
/* SQLite answered PRAGMA journal_mode with another mode than asked for. */
#define OP_STATUS_JOURNAL_REFUSED (-1000)
/* A trace path would resolve outside the replay root (a symlink; without
 * openat2 any symlink below the root): refused, nothing was touched. */
#define OP_STATUS_ESCAPES_ROOT (-1001)

op_status op_status_from_sqlite(int result_code);

/* "ENOSPC", "SQLITE_BUSY", "journal_mode_refused", "escapes_root": the key of the summary's
 * errno object. Returns out. */
const char *op_status_name(op_status status, char *out, size_t size);

/* Human-readable text for stderr. */
const char *op_status_text(op_status status);

#define OP_STATUS_NAME_MAX 32

#endif
