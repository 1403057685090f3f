/* sched_util.c: small helpers of the scheduler: string lists sent to Redis in
 * batches, PostgreSQL array literals, the task list, job labels. */
#include "sched_internal.h"

void strlist_add(strlist_t *l, const char *str)
{
    if (l->n == l->cap) {
        int cap = l->cap ? l->cap * 2 : 256;
        char **n = realloc(l->v, sizeof(char *) * (size_t)cap);
        if (!n) abort(); /* as sbuf: a scheduler that cannot grow a list cannot go on */
        l->v = n;
        l->cap = cap;
    }
    if (!(l->v[l->n] = strdup(str))) abort();
    l->n++;
}

void strlist_clear(strlist_t *l)
{
    for (int i = 0; i < l->n; i++)
        free(l->v[i]);
    l->n = 0;
}
int strlist_append_cmds(rq_t *r, const char *cmd, const char *key, const strlist_t *l, char *err,
                        size_t errlen)
{
    const char *argv[ARGV_BATCH + 2];
    for (int base = 0; base < l->n; base += ARGV_BATCH) {
        int n = l->n - base < ARGV_BATCH ? l->n - base : ARGV_BATCH, argc = 0;
        argv[argc++] = cmd;
        if (key) argv[argc++] = key;
        for (int i = 0; i < n; i++)
            argv[argc++] = l->v[base + i];
        if (rq_append_argv(r, argc, argv, NULL, err, errlen)) return -1;
    }
    return 0;
}

/* ---- small helpers -------------------------------------------------------- */

/* Appends s as an element of a PostgreSQL array literal. */
void arr_elem(sbuf_t *b, const char *s)
{
    if (b->len > 1) sbuf_putc(b, ',');
    sbuf_putc(b, '"');
    for (; *s; s++) {
        if (*s == '"' || *s == '\\') sbuf_putc(b, '\\');
        sbuf_putc(b, *s);
    }
    sbuf_putc(b, '"');
}

void arr_open(sbuf_t *b)
{
    sbuf_reset(b);
    sbuf_putc(b, '{');
}

void shape_text(char *out, size_t cap, int ndim, const int64_t *d)
{
    size_t n = (size_t)snprintf(out, cap, "{");
    for (int i = 0; i < ndim && n < cap; i++)
        n += (size_t)snprintf(out + n, cap - n, "%s%lld", i ? "," : "", (long long)d[i]);
    if (n < cap) snprintf(out + n, cap - n, "}");
}

stask_t *task_find(sched_t *s, const char *id)
{
    for (stask_t *t = s->tasks; t; t = t->next)
        if (strcmp(t->id, id) == 0) return t;
    return NULL;
}

void task_free(stask_t *t)
{
    if (!t) return;
    plan_close(&t->plan);
    free(t->plan_text);
    free(t->dep_off);
    free(t->deps);
    free(t->con_off);
    free(t->cons);
    free(t->waiting);
    free(t->uses);
    free(t->st);
    free(t->attempt);
    free(t->lost);
    free(t->nbytes);
    for (int32_t j = 0; t->worker && j < t->n; j++)
        free(t->worker[j]);
    free(t->worker);
    free(t->inl);
    free(t->placed);
    free(t->retries);
    strlist_clear(&t->hdel);
    free(t->hdel.v);
    free(t->run);
    free(t->upd);
    free(t->in_upd);
    free(t);
}

void task_unlink(sched_t *s, stask_t *t)
{
    for (stask_t **p = &s->tasks; *p; p = &(*p)->next)
        if (*p == t) {
            *p = t->next;
            return;
        }
}

void mark(stask_t *t, int32_t j)
{
    if (!t->in_upd[j]) {
        t->in_upd[j] = 1;
        t->upd[t->n_upd++] = j;
    }
}

/* ---- task state ---------------------------------------------------------------- */

/* Distinct live inputs and consumers of every live job (tile_edges). */
int build_edges(stask_t *t)
{
    tile_edges_t e;
    if (tile_edges(t->plan.t, &e)) return -1;
    t->dep_off = e.dep_off;
    t->deps = e.deps;
    t->con_off = e.con_off;
    t->cons = e.cons;
    return 0;
}

bool kept(const stask_t *t, int32_t j)
{
    return tile_job_keep(t->plan.t, j) || tile_job_is_source(t->plan.t, j);
}

void remember_ended(sched_t *s, const char *tid)
{
    snprintf(s->ended[s->ended_next], sizeof s->ended[0], "%s", tid);
    s->ended_next = (s->ended_next + 1) % ENDED_RING;
}

bool recently_ended(const sched_t *s, const char *tid)
{
    for (int i = 0; i < ENDED_RING; i++)
        if (strcmp(s->ended[i], tid) == 0) return true;
    return false;
}

void notify_done(sched_t *s, const char *tid)
{
    char err[256];
    const char *p[] = {tid};
    if (db_exec(s->db, "SELECT pg_notify('mars_task_done', $1)", 1, p, err, sizeof err))
        log_warning("notify of %s: %s", tid, err);
}

/* Writes the plan key of a tiled task (mars:plan:<tid>, msg.h). */
int publish_plan(sched_t *s, stask_t *t, char *err, size_t errlen)
{
    redisReply *r = rq_command(s->rq, err, errlen, "SET " MSG_PLAN "%s %s", t->id, t->plan_text);
    if (!r) return -1;
    freeReplyObject(r);
    return 0;
}

void drop_plan(sched_t *s, const char *tid)
{
    char err[256];
    redisReply *r =
        rq_command(s->rq, err, sizeof err, "DEL " MSG_PLAN "%s " MSG_JOBDESC "%s", tid, tid);
    if (r) freeReplyObject(r);
}

/* `node "b" (matmul) chunk [0, 1] (job 5 of task T)` for messages. */
void job_label(const stask_t *t, int32_t j, char *out, size_t cap)
{
    const tile_t *tl = t->plan.t;
    int32_t node = tile_job_node(tl, j);
    const graph_node_t *nd = &t->plan.g->nodes[node];
    char idx[MR_MAXDIM * 21 + 8] = "";
    int64_t li = tile_job_grid_pos(tl, j);
    if (li >= 0) {
        int64_t co[MR_MAXDIM];
        int nd_g = tile_grid_shape(tl, node)->ndim;
        tile_grid_coords(tl, node, li, co);
        size_t n = (size_t)snprintf(idx, sizeof idx, " chunk [");
        for (int d = 0; d < nd_g && n < sizeof idx; d++)
            n += (size_t)snprintf(idx + n, sizeof idx - n, "%s%lld", d ? ", " : "",
                                  (long long)co[d]);
        if (n < sizeof idx) snprintf(idx + n, sizeof idx - n, "]");
    }
    /* Bounded pieces: the whole fits the callers' 512 bytes. */
    snprintf(out, cap, "node \"%.128s\" (%.32s)%.200s (job %d of task %.72s)", nd->key,
             op_name(nd->op), idx, (int)j, t->id);
}
