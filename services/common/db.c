/* db.c: libpq connection with reconnect and backoff. */
#include "db.h"
#include "svc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct db {
    PGconn *conn;
    char *dsn, *app;
    long long next_try_ms; /* no new attempt before this (monotonic) */
    int backoff_ms;
    bool unavailable;
    char sqlstate[6];
};

/* Between failed connection attempts: from 100 ms (a restart in progress)
 * doubling to 5 s (a long outage, polled gently). */
#define BACKOFF_MIN_MS 100
#define BACKOFF_MAX_MS 5000

db_t *db_create(const char *dsn, const char *app)
{
    db_t *db = calloc(1, sizeof *db);
    if (!db) return NULL;
    db->dsn = strdup(dsn ? dsn : "");
    db->app = strdup(app ? app : "mars");
    if (!db->dsn || !db->app) {
        db_free(db);
        return NULL;
    }
    return db;
}

void db_free(db_t *db)
{
    if (!db) return;
    if (db->conn) PQfinish(db->conn);
    free(db->dsn);
    free(db->app);
    free(db);
}

/* One line of a libpq message (they end in newlines and may have several). */
static void copy_msg(char *err, size_t errlen, const char *prefix, const char *msg)
{
    snprintf(err, errlen, "%s%s", prefix, msg ? msg : "");
    for (char *p = err; *p; p++) {
        if (*p == '\n') {
            if (p[1] == '\0')
                *p = '\0';
            else
                *p = ' ';
        }
    }
}

int db_connect(db_t *db, char *err, size_t errlen)
{
    if (db->conn && PQstatus(db->conn) == CONNECTION_OK) return 0;
    long long now = svc_now_ms();
    if (now < db->next_try_ms) {
        snprintf(err, errlen, "database unavailable (next attempt in %lld ms)",
                 db->next_try_ms - now);
        db->unavailable = true;
        return -1;
    }
    if (db->conn) PQfinish(db->conn);
    /* Our settings first, the DSN after them, so that a DSN that names
     * connect_timeout or application_name wins. connect_timeout 3 s: a
     * health check answers within a client's patience; keepalives notice a
     * peer that vanished without closing. */
    const char *keys[] = {"connect_timeout", "application_name", "keepalives_idle", "dbname", NULL};
    const char *vals[] = {"3", db->app, "30", db->dsn, NULL};
    db->conn = PQconnectdbParams(keys, vals, 1);
    if (!db->conn || PQstatus(db->conn) != CONNECTION_OK) {
        copy_msg(err, errlen, "connect: ", db->conn ? PQerrorMessage(db->conn) : "out of memory");
        if (db->conn) PQfinish(db->conn);
        db->conn = NULL;
        db->backoff_ms = db->backoff_ms ? db->backoff_ms * 2 : BACKOFF_MIN_MS;
        if (db->backoff_ms > BACKOFF_MAX_MS) db->backoff_ms = BACKOFF_MAX_MS;
        db->next_try_ms = svc_now_ms() + db->backoff_ms;
        db->unavailable = true;
        return -1;
    }
    db->backoff_ms = 0;
    db->next_try_ms = 0;
    return 0;
}

static int connect_cb(void *ctx, char *err, size_t errlen)
{
    return db_connect(ctx, err, errlen);
}

int db_connect_wait(db_t *db, int timeout_ms, bool (*stop)(int wait_ms), char *err, size_t errlen)
{
    return svc_connect_wait(connect_cb, db, &db->next_try_ms, timeout_ms, stop, err, errlen);
}

/* Drops a connection the server closed, so that db_connect reopens it. */
static int ensure(db_t *db, char *err, size_t errlen)
{
    db->sqlstate[0] = '\0';
    db->unavailable = false;
    if (db->conn && (PQconsumeInput(db->conn) == 0 || PQstatus(db->conn) != CONNECTION_OK)) {
        PQfinish(db->conn);
        db->conn = NULL;
    }
    return db_connect(db, err, errlen);
}

static int check(db_t *db, PGresult *r, char *err, size_t errlen)
{
    ExecStatusType st = r ? PQresultStatus(r) : PGRES_FATAL_ERROR;
    if (st == PGRES_TUPLES_OK || st == PGRES_COMMAND_OK) return 0;
    const char *state = r ? PQresultErrorField(r, PG_DIAG_SQLSTATE) : NULL;
    snprintf(db->sqlstate, sizeof db->sqlstate, "%s", state ? state : "");
    copy_msg(err, errlen, "", r ? PQresultErrorMessage(r) : PQerrorMessage(db->conn));
    if (!err[0]) copy_msg(err, errlen, "", PQerrorMessage(db->conn));
    if (PQstatus(db->conn) != CONNECTION_OK) {
        db->unavailable = true;
        PQfinish(db->conn);
        db->conn = NULL;
    }
    return -1;
}

PGresult *db_query(db_t *db, const char *sql, int n, const char *const *params, char *err,
                   size_t errlen)
{
    if (ensure(db, err, errlen)) return NULL;
    PGresult *r = PQexecParams(db->conn, sql, n, NULL, params, NULL, NULL, 0);
    if (check(db, r, err, errlen)) {
        PQclear(r);
        return NULL;
    }
    return r;
}

int db_exec(db_t *db, const char *sql, int n, const char *const *params, char *err, size_t errlen)
{
    PGresult *r = db_query(db, sql, n, params, err, errlen);
    if (!r) return -1;
    PQclear(r);
    return 0;
}

int db_copy_in(db_t *db, const char *sql, const char *data, size_t len, char *err, size_t errlen)
{
    if (ensure(db, err, errlen)) return -1;
    PGresult *r = PQexec(db->conn, sql);
    if (!r || PQresultStatus(r) != PGRES_COPY_IN) {
        int rc = check(db, r, err, errlen);
        PQclear(r);
        if (rc == 0) { /* a statement that was no COPY FROM STDIN */
            snprintf(err, errlen, "db_copy_in: not a COPY FROM STDIN statement");
            rc = -1;
        }
        return rc;
    }
    PQclear(r);
    /* Pieces of 1 MiB: libpq buffers what it is given before sending. */
    const char *why = NULL;
    for (size_t off = 0; off < len && !why;) {
        size_t n = len - off < (1u << 20) ? len - off : (1u << 20);
        if (PQputCopyData(db->conn, data + off, (int)n) != 1) why = PQerrorMessage(db->conn);
        off += n;
    }
    if (PQputCopyEnd(db->conn, why) != 1 && !why) why = PQerrorMessage(db->conn);
    int rc = 0;
    while ((r = PQgetResult(db->conn))) {
        if (rc == 0 && check(db, r, err, errlen)) rc = -1;
        PQclear(r);
        if (!db->conn) break; /* check() dropped a broken connection */
    }
    if (rc == 0 && why) {
        copy_msg(err, errlen, "", why);
        rc = -1;
    }
    return rc;
}

int db_exec_script(db_t *db, const char *sql, char *err, size_t errlen)
{
    if (ensure(db, err, errlen)) return -1;
    /* PQexec returns the last statement's result; an error stops the
     * script there and is what it returns. */
    PGresult *r = PQexec(db->conn, sql);
    int rc = check(db, r, err, errlen);
    PQclear(r);
    return rc;
}

const char *db_sqlstate(const db_t *db)
{
    return db->sqlstate;
}

bool db_unavailable(const db_t *db)
{
    return db->unavailable;
}

int db_ping(db_t *db, char *err, size_t errlen)
{
    return db_exec(db, "SELECT 1", 0, NULL, err, errlen);
}
