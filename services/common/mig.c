/* mig.c: migrations runner. */
#include "mig.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"

#define LOG_MODULE "mig"

/* Key of the advisory lock: "marsmig" in ASCII (0x6d6172736d6967; written in
 * decimal, PostgreSQL 15 has no hex literals), fixed forever so that every
 * version of the program excludes every other. */
#define MIG_LOCK_KEY "30787916652177767"

typedef struct mfile {
    int version;
    char *name; /* file name, owned */
} mfile_t;

static int cmp_version(const void *a, const void *b)
{
    const mfile_t *x = a, *y = b;
    return (x->version > y->version) - (x->version < y->version);
}

/* NNNN_*.sql with exactly 4 leading digits. */
static int version_of(const char *name)
{
    size_t n = strlen(name);
    if (n < 10 || strcmp(name + n - 4, ".sql") != 0 || name[4] != '_') return -1;
    for (int i = 0; i < 4; i++)
        if (!isdigit((unsigned char)name[i])) return -1;
    return atoi(name);
}

static int list_files(const char *dir, mfile_t **out, int *n_out, char *err, size_t errlen)
{
    DIR *d = opendir(dir);
    if (!d) {
        snprintf(err, errlen, "migrations directory %s: %s", dir, strerror(errno));
        return -1;
    }
    mfile_t *files = NULL;
    int n = 0, cap = 0, rc = -1;
    struct dirent *e;
    while ((e = readdir(d))) {
        int v = version_of(e->d_name);
        if (v < 0) continue;
        if (n == cap) {
            cap = cap ? cap * 2 : 16;
            mfile_t *p = realloc(files, sizeof *p * cap);
            if (!p) abort();
            files = p;
        }
        files[n].version = v;
        files[n].name = strdup(e->d_name);
        if (!files[n].name) abort();
        n++;
    }
    qsort(files, n, sizeof *files, cmp_version);
    for (int i = 0; i < n; i++) {
        if (files[i].version != i + 1) {
            snprintf(err, errlen,
                     "%s: migration %s should be number %04d (numbers start at 0001 "
                     "without gaps or duplicates)",
                     dir, files[i].name, i + 1);
            goto check;
        }
    }
    *out = files;
    *n_out = n;
    files = NULL;
    rc = 0;
check:
    for (int i = 0; files && i < n; i++)
        free(files[i].name);
    free(files);
    closedir(d);
    return rc;
}

static char *read_all(const char *path, size_t *len, char *err, size_t errlen)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        return NULL;
    }
    char *buf = malloc(MIG_MAX_FILE_BYTES + 1);
    if (!buf) abort();
    size_t n = fread(buf, 1, MIG_MAX_FILE_BYTES + 1, f);
    int bad = ferror(f);
    fclose(f);
    if (bad || n > MIG_MAX_FILE_BYTES) {
        snprintf(err, errlen, "%s: %s", path, bad ? "read error" : "larger than 16 MiB");
        free(buf);
        return NULL;
    }
    buf[n] = '\0';
    if (memchr(buf, '\0', n)) {
        snprintf(err, errlen, "%s: has a NUL byte", path);
        free(buf);
        return NULL;
    }
    *len = n;
    return buf;
}

/* FNV-1a 64: detects an edited migration; not a security measure. */
static void checksum(const char *s, size_t n, char out[17])
{
    uint64_t h = 0xcbf29ce484222325ULL;
    for (size_t i = 0; i < n; i++) {
        h ^= (unsigned char)s[i];
        h *= 0x100000001b3ULL;
    }
    snprintf(out, 17, "%016" PRIx64, h);
}

int mig_apply(db_t *db, const char *dir, mig_report_t *rep, char *err, size_t errlen)
{
    mfile_t *files = NULL;
    int n = 0, rc = -1;
    PGresult *applied = NULL;
    char msg[512];
    memset(rep, 0, sizeof *rep);
    if (list_files(dir, &files, &n, err, errlen)) return -1;
    rep->n_files = n;

    if (db_exec(db, "BEGIN", 0, NULL, err, errlen)) goto begin;
    if (db_exec(db, "SELECT pg_advisory_xact_lock(" MIG_LOCK_KEY ")", 0, NULL, msg, sizeof msg)) {
        snprintf(err, errlen, "migration lock: %s", msg);
        goto transaction;
    }
    if (db_exec(db,
                "CREATE TABLE IF NOT EXISTS schema_migrations ("
                " version integer PRIMARY KEY,"
                " name text NOT NULL,"
                " checksum text NOT NULL,"
                " applied_at timestamptz NOT NULL DEFAULT now())",
                0, NULL, msg, sizeof msg)) {
        snprintf(err, errlen, "schema_migrations: %s", msg);
        goto transaction;
    }
    applied = db_query(db, "SELECT version, name, checksum FROM schema_migrations ORDER BY version",
                       0, NULL, msg, sizeof msg);
    if (!applied) {
        snprintf(err, errlen, "schema_migrations: %s", msg);
        goto transaction;
    }
    int n_rows = PQntuples(applied);
    for (int i = 0; i < n_rows; i++) {
        if (atoi(PQgetvalue(applied, i, 0)) > n) rep->n_unknown++;
    }
    for (int i = 0; i < n; i++) {
        char path[4096], sum[17], version[16];
        size_t len;
        snprintf(path, sizeof path, "%s/%s", dir, files[i].name);
        char *sql = read_all(path, &len, err, errlen);
        if (!sql) goto transaction;
        checksum(sql, len, sum);
        const char *recorded = NULL;
        for (int r = 0; r < n_rows; r++) {
            if (atoi(PQgetvalue(applied, r, 0)) == files[i].version)
                recorded = PQgetvalue(applied, r, 2);
        }
        if (recorded) {
            free(sql);
            if (strcmp(recorded, sum) != 0) {
                snprintf(err, errlen,
                         "migration %s changed after it was applied (checksum %s, "
                         "recorded %s): migrations are append-only, add a new file instead",
                         files[i].name, sum, recorded);
                goto transaction;
            }
            continue;
        }
        if (db_exec_script(db, sql, msg, sizeof msg)) {
            snprintf(err, errlen, "migration %s: %s", files[i].name, msg);
            free(sql);
            goto transaction;
        }
        free(sql);
        snprintf(version, sizeof version, "%d", files[i].version);
        const char *params[] = {version, files[i].name, sum};
        if (db_exec(db,
                    "INSERT INTO schema_migrations (version, name, checksum) VALUES ($1, $2, $3)",
                    3, params, msg, sizeof msg)) {
            snprintf(err, errlen, "recording %s: %s", files[i].name, msg);
            goto transaction;
        }
        log_info("applied migration %s", files[i].name);
        rep->n_applied++;
    }
    if (db_exec(db, "COMMIT", 0, NULL, err, errlen)) goto transaction;
    rc = 0;
    goto begin;
transaction:
    /* A failed statement aborted the transaction; a lost connection ended
     * it: either way nothing of this call remains. */
    db_exec(db, "ROLLBACK", 0, NULL, msg, sizeof msg);
    rep->n_applied = 0;
begin:
    PQclear(applied);
    for (int i = 0; i < n; i++)
        free(files[i].name);
    free(files);
    return rc;
}
