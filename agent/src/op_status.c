#include "op_status.h"

#include <sqlite3.h>
#include <stdio.h>
#include <string.h>

#include "errno_name.h"

#define NAMED(code) {code, #code}

static const struct {
    int code;
    const char *name;
} sqlite_names[] = {
    NAMED(SQLITE_ERROR),    NAMED(SQLITE_INTERNAL), NAMED(SQLITE_PERM),
    NAMED(SQLITE_ABORT),    NAMED(SQLITE_BUSY),     NAMED(SQLITE_LOCKED),
    NAMED(SQLITE_NOMEM),    NAMED(SQLITE_READONLY), NAMED(SQLITE_INTERRUPT),
    NAMED(SQLITE_IOERR),    NAMED(SQLITE_CORRUPT),  NAMED(SQLITE_NOTFOUND),
    NAMED(SQLITE_FULL),     NAMED(SQLITE_CANTOPEN), NAMED(SQLITE_PROTOCOL),
    NAMED(SQLITE_SCHEMA),   NAMED(SQLITE_TOOBIG),   NAMED(SQLITE_CONSTRAINT),
    NAMED(SQLITE_MISMATCH), NAMED(SQLITE_MISUSE),   NAMED(SQLITE_NOLFS),
    NAMED(SQLITE_AUTH),     NAMED(SQLITE_RANGE),    NAMED(SQLITE_NOTADB),
};

op_status op_status_from_sqlite(int result_code)
{
    return -(result_code & 0xff);
}

static const char *sqlite_code_name(int code, char *out, size_t size)
{
    for (size_t i = 0; i < sizeof sqlite_names / sizeof sqlite_names[0]; i++)
        if (sqlite_names[i].code == code) {
            snprintf(out, size, "%s", sqlite_names[i].name);
            return out;
        }
    snprintf(out, size, "SQLITE_%d", code);
    return out;
}

const char *op_status_name(op_status status, char *out, size_t size)
{
    if (status == OP_STATUS_JOURNAL_REFUSED) {
        snprintf(out, size, "journal_mode_refused");
        return out;
    }
    if (status == OP_STATUS_ESCAPES_ROOT) {
        snprintf(out, size, "escapes_root");
        return out;
    }
    if (status < 0)
        return sqlite_code_name(-status, out, size);
    return errno_name(status, out, size);
}

const char *op_status_text(op_status status)
{
    if (status == OP_STATUS_JOURNAL_REFUSED)
        return "SQLite would not switch to the requested journal mode";
    if (status == OP_STATUS_ESCAPES_ROOT)
        return "refused: the path resolves outside --root (through a symlink)";
    if (status < 0)
        return sqlite3_errstr(-status);
    return strerror(status);
}
