#include "sql_connection.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>
#include <fcntl.h>

#include "root_files.h"

static const char *const statement_text[STMT_COUNT] = {
    [STMT_INSERT] = "INSERT INTO t(v) VALUES(?1)",
    [STMT_UPDATE] = ("UPDATE t SET v = ?1 WHERE id = "
                     "(SELECT id FROM t ORDER BY id LIMIT 1 OFFSET ?2)"),
    [STMT_DELETE] = "DELETE FROM t WHERE id = (SELECT min(id) FROM t)",
    [STMT_SELECT] = "SELECT v FROM t ORDER BY id LIMIT 1 OFFSET ?1",
};

op_status sql_status(sqlite3 *db, int result_code)
{
    int primary = result_code & 0xff;
    bool os_level = primary == SQLITE_IOERR || primary == SQLITE_FULL ||
                    primary == SQLITE_CANTOPEN;
    int system_errno = db && os_level ? sqlite3_system_errno(db) : 0;
    return system_errno > 0 ? system_errno : op_status_from_sqlite(result_code);
}

op_status sql_exec(struct sql_connection *connection, const char *sql)
{
    int rc = sqlite3_exec(connection->db, sql, NULL, NULL, NULL);
    return rc == SQLITE_OK ? OP_OK : sql_status(connection->db, rc);
}

/* Android's SQLiteDatabase checkpoints a WAL every 100 pages (AOSP frameworks/base,
 * core/res/res/values/config.xml: config_sqlite_wal_autocheckpoint), so an app's WAL
 * stays the size it has on a phone, not SQLite's own 1000-page default. Android's
 * journal_size_limit (524288) is not set: with a persistent WAL, SQLite truncates the
 * WAL to 0 bytes when the last connection closes, as the replay's end does and a
 * running app's does not; the 100-page checkpoint keeps the WAL below it anyway. */
static const char *const android_pragmas[] = {
    "PRAGMA synchronous=FULL",
    "PRAGMA wal_autocheckpoint=100",
};

static op_status configure(struct sql_connection *connection)
{
    int persist_wal = 1;
    sqlite3_busy_timeout(connection->db, SQL_BUSY_TIMEOUT_MS);
    sqlite3_file_control(connection->db, "main", SQLITE_FCNTL_PERSIST_WAL, &persist_wal);
    op_status status = OP_OK;
    size_t count = sizeof android_pragmas / sizeof *android_pragmas;
    for (size_t i = 0; status == OP_OK && i < count; i++)
        status = sql_exec(connection, android_pragmas[i]);
    return status;
}

/* The database's directory resolves beneath the root and the database
 * itself is no symlink (SQLite opens it by name, not through root_fd). */
static op_status check_beneath(int root_fd, const char *path)
{
    int dir_fd;
    const char *name;
    op_status status = root_open_parent(root_fd, path, &dir_fd, &name);
    if (status != OP_OK)
        return status;
    struct stat st;
    if (fstatat(dir_fd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode))
        status = OP_STATUS_ESCAPES_ROOT;
    close(dir_fd);
    return status;
}

static op_status open_database(const char *root_path, const char *path,
                               struct sql_connection *connection)
{
    char *full_path;
    if (asprintf(&full_path, "%s/%s", root_path, path) < 0)
        return ENOMEM;
    /* NOFOLLOW: SQLite refuses a symlink anywhere in the (real) path, so the
     * database and its journals stay beneath the root. */
    int rc = sqlite3_open_v2(full_path, &connection->db,
                             SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE |
                                 SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_NOFOLLOW,
                             NULL);
    free(full_path);
    if (rc != SQLITE_OK && sqlite3_extended_errcode(connection->db) == SQLITE_CANTOPEN_SYMLINK)
        return OP_STATUS_ESCAPES_ROOT;
    return rc == SQLITE_OK ? OP_OK : sql_status(connection->db, rc);
}

op_status sql_connection_open(int root_fd, const char *root_path, const char *path,
                              struct sql_connection **out)
{
    struct sql_connection *connection = calloc(1, sizeof *connection);
    if (!connection)
        return ENOMEM;
    connection->journal = -1;
    op_status status = make_parent_dirs(root_fd, path);
    if (status == OP_OK)
        status = check_beneath(root_fd, path);
    if (status == OP_OK)
        status = open_database(root_path, path, connection);
    if (status == OP_OK)
        status = configure(connection);
    if (status != OP_OK) {
        sql_connection_close(connection);
        return status;
    }
    *out = connection;
    return OP_OK;
}

static op_status ensure_table(struct sql_connection *connection)
{
    return sql_exec(connection,
                    "CREATE TABLE IF NOT EXISTS t(id INTEGER PRIMARY KEY, v BLOB)");
}

static op_status run_journal_pragma(struct sql_connection *connection,
                                    enum sql_journal journal)
{
    char pragma[64];
    snprintf(pragma, sizeof pragma, "PRAGMA journal_mode=%s", sql_journal_name(journal));
    sqlite3_stmt *statement;
    int rc = sqlite3_prepare_v2(connection->db, pragma, -1, &statement, NULL);
    if (rc != SQLITE_OK)
        return sql_status(connection->db, rc);
    rc = sqlite3_step(statement);
    op_status status = rc == SQLITE_ROW ? OP_OK : sql_status(connection->db, rc);
    const char *mode = (const char *)sqlite3_column_text(statement, 0);
    if (status == OP_OK && (!mode || strcasecmp(mode, sql_journal_name(journal)) != 0))
        status = OP_STATUS_JOURNAL_REFUSED;
    sqlite3_finalize(statement);
    return status;
}

op_status sql_connection_set_journal(struct sql_connection *connection,
                                     enum sql_journal journal)
{
    if (connection->journal == (int)journal)
        return OP_OK;
    op_status status = run_journal_pragma(connection, journal);
    if (status == OP_OK)
        status = ensure_table(connection);
    if (status == OP_OK)
        connection->journal = (int)journal;
    return status;
}

sqlite3_stmt *sql_connection_statement(struct sql_connection *connection,
                                       enum sql_statement which, op_status *status)
{
    sqlite3_stmt **slot = &connection->statements[which];
    if (*slot)
        return *slot;
    int rc = sqlite3_prepare_v2(connection->db, statement_text[which], -1, slot, NULL);
    if (rc == SQLITE_OK)
        return *slot;
    *status = sql_status(connection->db, rc);
    *slot = NULL;
    return NULL;
}

void sql_connection_close(struct sql_connection *connection)
{
    if (!connection)
        return;
    for (int i = 0; i < STMT_COUNT; i++)
        sqlite3_finalize(connection->statements[i]);
    sqlite3_close(connection->db); /* statements are finalized: closes now */
    free(connection);
}
