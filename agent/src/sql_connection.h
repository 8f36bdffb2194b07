#ifndef MOBIFRAG_SQL_CONNECTION_H
#define MOBIFRAG_SQL_CONNECTION_H

#include <sqlite3.h>
#include <stdint.h>

#include "op_status.h"
#include "trace.h"

enum sql_statement { STMT_INSERT, STMT_UPDATE, STMT_DELETE, STMT_SELECT, STMT_COUNT };

/* One replay thread's connection to one database file. */
struct sql_connection {
    sqlite3 *db;
    int journal; /* enum sql_journal last set, -1 before the first */
    sqlite3_stmt *statements[STMT_COUNT];
    uint64_t rows_written; /* by this connection: numbers the blob contents */
};

#define SQL_BUSY_TIMEOUT_MS 60000

/* Opens root_path/path (missing parent directories created under root_fd)
 * with PRAGMA synchronous=FULL, a busy timeout, persistent WAL files (as on
 * a phone, whose apps keep their databases open) and table
 * t(id INTEGER PRIMARY KEY, v BLOB). */
op_status sql_connection_open(int root_fd, const char *root_path, const char *path,
                              struct sql_connection **out);

/* PRAGMA journal_mode, unless already set to this mode. */
op_status sql_connection_set_journal(struct sql_connection *connection,
                                     enum sql_journal journal);

/* The prepared statement (prepared on first use) or NULL with *status. */
sqlite3_stmt *sql_connection_statement(struct sql_connection *connection,
                                       enum sql_statement which, op_status *status);

/* The replay status of a failed SQLite call: the OS errno behind an I/O,
 * full-disk or open error, else the SQLite result code. */
op_status sql_status(sqlite3 *db, int result_code);

op_status sql_exec(struct sql_connection *connection, const char *sql);

void sql_connection_close(struct sql_connection *connection); /* NULL is fine */

#endif
