/* db.h: PostgreSQL client over libpq.
 *
 * One db_t is one connection, used by one thread at a time. Statements are
 * parametrised (PQexecParams, text parameters): no value is ever spliced
 * into SQL text. The one exception, db_exec_script, runs migration files.
 *
 * Reconnection: before each statement the connection is checked (a
 * non-blocking read notices a server that went away); a broken one is
 * dropped and reopened, with exponential backoff between failed attempts
 * (100 ms doubling to 5 s) so that a database outage costs one quick error
 * per call, not a connection storm. Statements are never retried here:
 * only the caller knows whether repeating one is safe. */
#ifndef MARS_SVC_DB_H
#define MARS_SVC_DB_H

#include <stdbool.h>
#include <stddef.h>

#include <libpq-fe.h>

typedef struct db db_t;

/* Creates the handle without connecting. app is the application_name the
 * server shows (pg_stat_activity). NULL only on OOM. */
db_t *db_create(const char *dsn, const char *app);
void db_free(db_t *db);
/* Connects now if not connected (subject to the backoff). */
int db_connect(db_t *db, char *err, size_t errlen);
/* Connects, retrying until timeout_ms passes; stop (may be NULL) is polled
 * between attempts and ends the wait early. */
int db_connect_wait(db_t *db, int timeout_ms, bool (*stop)(int wait_ms), char *err, size_t errlen);

/* Runs one statement. Returns the result (caller: PQclear) when it is
 * PGRES_TUPLES_OK or PGRES_COMMAND_OK; NULL with err otherwise. */
PGresult *db_query(db_t *db, const char *sql, int n, const char *const *params, char *err,
                   size_t errlen);
/* The same, discarding the result. */
int db_exec(db_t *db, const char *sql, int n, const char *const *params, char *err, size_t errlen);
/* Runs sql, a `COPY ... FROM STDIN` (text format), with data (len bytes:
 * rows of tab-separated fields, each line ended by a newline, values
 * escaped as COPY's text format wants) as its input. 0, or -1 with err (the
 * whole COPY is one statement: nothing of it stays on failure). */
int db_copy_in(db_t *db, const char *sql, const char *data, size_t len, char *err, size_t errlen);
/* Runs a script of several statements (simple query protocol). For
 * migrations only: the text must come from the program's own files. */
int db_exec_script(db_t *db, const char *sql, char *err, size_t errlen);
/* SQLSTATE of the last failed statement ("" when none); e.g. "23505". */
const char *db_sqlstate(const db_t *db);
/* Whether the last failure was the connection rather than the statement. */
bool db_unavailable(const db_t *db);
/* SELECT 1 within the connection's timeouts. */
int db_ping(db_t *db, char *err, size_t errlen);

#endif
