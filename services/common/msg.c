/* msg.c: the services' Redis messages (see msg.h). */
#include "msg.h"

#include "rq.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool id_ok(const char *s, size_t n)
{
    if (n == 0 || n >= MSG_ID_MAX) return false;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '_' || c == '-'))
            return false;
    }
    return true;
}

/* Copies the id that ends at the next space (or the end) into out; returns
 * the position after it, or NULL. */
static const char *take_id(const char *m, char *out, size_t cap)
{
    const char *e = strchr(m, ' ');
    size_t n = e ? (size_t)(e - m) : strlen(m);
    if (!id_ok(m, n) || n >= cap) return NULL;
    memcpy(out, m, n);
    out[n] = '\0';
    return m + n;
}

/* A decimal integer in [lo, hi] ending at a space or the end. */
static const char *take_int(const char *m, long long lo, long long hi, long long *out)
{
    if (*m < '0' || *m > '9') {
        if (!(*m == '-' && lo < 0)) return NULL;
    }
    char *end;
    errno = 0;
    long long v = strtoll(m, &end, 10);
    if (errno || end == m || (*end && *end != ' ') || v < lo || v > hi) return NULL;
    *out = v;
    return end;
}

int msg_job_fmt(char *out, size_t cap, const char *tid, int32_t job, int attempt)
{
    int n = snprintf(out, cap, "%s %d %d", tid, (int)job, attempt);
    return n < 0 || (size_t)n >= cap ? -1 : n;
}

int msg_job_parse(const char *m, char *tid, size_t tid_cap, int32_t *job, int *attempt)
{
    long long j, a;
    const char *p = take_id(m, tid, tid_cap);
    if (!p || *p != ' ') return -1;
    if (!(p = take_int(p + 1, 0, INT32_MAX, &j)) || *p != ' ') return -1;
    if (!(p = take_int(p + 1, 0, INT32_MAX, &a)) || *p) return -1;
    *job = (int32_t)j;
    *attempt = (int)a;
    return 0;
}

static const char *const KIND[] = {"ok", "err", "retry"};

int msg_done_fmt(char *out, size_t cap, const msg_done_t *d)
{
    int n;
    if (d->kind == MSG_OK)
        n = snprintf(out, cap, "%s %d %d %s ok %lld %d %lld %lld %c", d->tid, (int)d->job,
                     d->attempt, d->worker, (long long)d->nbytes, d->slot, (long long)d->t0,
                     (long long)d->t1, d->inline_data ? 'i' : 'w');
    else
        n = snprintf(out, cap, "%s %d %d %s %s %s", d->tid, (int)d->job, d->attempt, d->worker,
                     KIND[d->kind], d->text[0] ? d->text : "no message");
    if (n < 0 || (size_t)n >= cap) return -1;
    for (char *c = out; *c; c++)
        if (*c == '\n' || *c == '\r') *c = ' ';
    return n;
}

static int parse_ok(const char *p, msg_done_t *d)
{
    long long v, slot, t0, t1;
    /* "<nbytes>", or with "<slot> <t0> <t1>", or with "<where>" too */
    if (!(p = take_int(p, 0, INT64_MAX, &v))) return -1;
    d->nbytes = v;
    d->slot = -1;
    d->inline_data = true; /* older workers stored every output in Redis */
    if (!*p) return 0;
    if (!(p = take_int(p + 1, -1, 1 << 20, &slot)) || *p != ' ') return -1;
    if (!(p = take_int(p + 1, 0, INT64_MAX, &t0)) || *p != ' ') return -1;
    if (!(p = take_int(p + 1, 0, INT64_MAX, &t1))) return -1;
    d->slot = (int)slot;
    d->t0 = t0;
    d->t1 = t1;
    if (!*p) return 0;
    if ((p[1] != 'w' && p[1] != 'i') || p[2]) return -1;
    d->inline_data = p[1] == 'i';
    return 0;
}

int msg_done_parse(const char *m, msg_done_t *d)
{
    memset(d, 0, sizeof *d);
    long long j, a;
    const char *p = take_id(m, d->tid, sizeof d->tid);
    if (!p || *p != ' ') return -1;
    if (!(p = take_int(p + 1, 0, INT32_MAX, &j)) || *p != ' ') return -1;
    if (!(p = take_int(p + 1, 0, INT32_MAX, &a)) || *p != ' ') return -1;
    if (!(p = take_id(p + 1, d->worker, sizeof d->worker)) || *p != ' ') return -1;
    d->job = (int32_t)j;
    d->attempt = (int)a;
    p++;
    const char *e = strchr(p, ' ');
    size_t kl = e ? (size_t)(e - p) : strlen(p);
    int kind = -1;
    for (int k = 0; k < 3; k++)
        if (strlen(KIND[k]) == kl && memcmp(p, KIND[k], kl) == 0) kind = k;
    if (kind < 0) return -1;
    d->kind = (msg_kind_t)kind;
    p += kl;
    if (d->kind == MSG_OK) return *p == ' ' ? parse_ok(p + 1, d) : -1;
    snprintf(d->text, sizeof d->text, "%s", *p == ' ' ? p + 1 : "");
    return 0;
}

int msg_chunk_key(char *out, size_t cap, const char *tid, int32_t job)
{
    int n = snprintf(out, cap, "chunk:%s:%d", tid, (int)job);
    return n < 0 || (size_t)n >= cap ? -1 : n;
}

int msg_chunk_key_parse(const char *key, char *tid, size_t tid_cap, int32_t *job)
{
    if (strncmp(key, "chunk:", 6) != 0) return -1;
    const char *p = key + 6, *c = strchr(p, ':');
    if (!c || !id_ok(p, (size_t)(c - p)) || (size_t)(c - p) >= tid_cap) return -1;
    long long j;
    const char *e = take_int(c + 1, 0, INT32_MAX, &j);
    if (!e || *e) return -1;
    memcpy(tid, p, (size_t)(c - p));
    tid[c - p] = '\0';
    *job = (int32_t)j;
    return 0;
}

bool msg_loc_inline(const char *loc)
{
    return strcmp(loc, MSG_INLINE_LOC) == 0;
}

int msg_append_wake(rq_t *rq, char *err, size_t errlen)
{
    if (rq_append(rq, err, errlen, "LPUSH " MSG_WAKE " 1") ||
        rq_append(rq, err, errlen, "LTRIM " MSG_WAKE " 0 %d", MSG_WAKE_KEEP - 1))
        return -1;
    return 0;
}

int msg_ask_revive(rq_t *rq, const char *tid, char *err, size_t errlen)
{
    if (rq_append(rq, err, errlen, "RPUSH " MSG_REVIVE " %s", tid) ||
        msg_append_wake(rq, err, errlen))
        return -1;
    return rq_flush(rq, err, errlen);
}
