/* sched_rows.c: the scheduler's PostgreSQL writes: chunk rows (COPY for a
 * fresh task, batched upserts on a takeover, chunks_update() for changes),
 * tensors rows of a finished task, failed jobs and tasks. */
#include "sched_internal.h"

/* ---- PostgreSQL batches --------------------------------------------------- */

int flush_rows(sched_t *s, stask_t *t)
{
    char err[512];
    int rc = 0;
    if (t->revive) { /* the ended task's rows stay as they were */
        for (int32_t i = 0; i < t->n_upd; i++)
            t->in_upd[t->upd[i]] = 0;
        t->n_upd = 0;
        t->progress_dirty = false;
        return 0;
    }
    if (t->n_upd > 0) {
        sbuf_t k, st, at, nb, wk, sl, t0, t1;
        sbuf_init(&k);
        sbuf_init(&st);
        sbuf_init(&at);
        sbuf_init(&nb);
        sbuf_init(&wk);
        sbuf_init(&sl);
        sbuf_init(&t0);
        sbuf_init(&t1);
        for (int32_t base = 0; base < t->n_upd && rc == 0; base += ROW_BATCH) {
            arr_open(&k);
            arr_open(&st);
            arr_open(&at);
            arr_open(&nb);
            arr_open(&wk);
            arr_open(&sl);
            arr_open(&t0);
            arr_open(&t1);
            int32_t end = base + ROW_BATCH < t->n_upd ? base + ROW_BATCH : t->n_upd;
            for (int32_t i = base; i < end; i++) {
                int32_t j = t->upd[i];
                char key[KEY_MAX], num[32];
                plan_chunk_key(&t->plan, t->id, j, key, sizeof key);
                arr_elem(&k, key);
                arr_elem(&st, STATUS[t->st[j]]);
                snprintf(num, sizeof num, "%d", (int)t->attempt[j]);
                arr_elem(&at, num);
                snprintf(num, sizeof num, "%lld", (long long)t->nbytes[j]);
                arr_elem(&nb, num);
                arr_elem(&wk, t->worker[j] ? t->worker[j] : "");
                snprintf(num, sizeof num, "%d", (int)t->run[j].slot);
                arr_elem(&sl, num);
                snprintf(num, sizeof num, "%lld", (long long)t->run[j].t0);
                arr_elem(&t0, num);
                snprintf(num, sizeof num, "%lld", (long long)t->run[j].t1);
                arr_elem(&t1, num);
            }
            sbuf_putc(&k, '}');
            sbuf_putc(&st, '}');
            sbuf_putc(&at, '}');
            sbuf_putc(&nb, '}');
            sbuf_putc(&wk, '}');
            sbuf_putc(&sl, '}');
            sbuf_putc(&t0, '}');
            sbuf_putc(&t1, '}');
            const char *p[] = {t->id,         sbuf_str(&k),  sbuf_str(&st),
                               sbuf_str(&at), sbuf_str(&nb), sbuf_str(&wk),
                               sbuf_str(&sl), sbuf_str(&t0), sbuf_str(&t1)};
            /* db/migrations/0005: a nested loop of primary-key lookups
             * whatever the planner believes of the task's size. Only the
             * owner writes its task's rows. */
            rc = db_exec(s->db,
                         "SELECT chunks_update($1, $2::text[], $3::text[], $4::int[],"
                         " $5::bigint[], $6::text[], $7::int[], $8::bigint[], $9::bigint[])",
                         9, p, err, sizeof err);
        }
        sbuf_close(&k);
        sbuf_close(&st);
        sbuf_close(&at);
        sbuf_close(&nb);
        sbuf_close(&wk);
        sbuf_close(&sl);
        sbuf_close(&t0);
        sbuf_close(&t1);
        if (rc) {
            log_warning("task %s: updating chunk rows: %s", t->id, err);
            return -1;
        }
        for (int32_t i = 0; i < t->n_upd; i++)
            t->in_upd[t->upd[i]] = 0;
        t->n_upd = 0;
    }
    if (t->progress_dirty) {
        char done[24];
        snprintf(done, sizeof done, "%lld", (long long)t->n_done);
        const char *p[] = {t->id, done};
        if (db_exec(s->db, "UPDATE tasks SET chunks_done = $2 WHERE id = $1", 2, p, err,
                    sizeof err)) {
            log_warning("task %s: progress: %s", t->id, err);
            return -1;
        }
        t->progress_dirty = false;
    }
    return 0;
}

/* Appends s to a COPY text-format field. */
void copy_field(sbuf_t *b, const char *s, char end)
{
    for (; *s; s++) {
        switch (*s) {
        case '\\':
            sbuf_puts(b, "\\\\");
            break;
        case '\t':
            sbuf_puts(b, "\\t");
            break;
        case '\n':
            sbuf_puts(b, "\\n");
            break;
        case '\r':
            sbuf_puts(b, "\\r");
            break;
        default:
            sbuf_putc(b, *s);
        }
    }
    sbuf_putc(b, end);
}

/* The text of job j's chunk_index ({} outside any grid) into buf. */
void chunk_index_text(const stask_t *t, const int64_t *gpos, int32_t j, char *buf, size_t cap)
{
    const tile_t *tl = t->plan.t;
    if (gpos[j] < 0) {
        snprintf(buf, cap, "{}");
        return;
    }
    int32_t node = tile_job_node(tl, j);
    int64_t co[MR_MAXDIM];
    tile_grid_coords(tl, node, gpos[j], co);
    shape_text(buf, cap, tile_grid_shape(tl, node)->ndim, co);
}

/* A fresh task's rows in one COPY: W7's 142,860 rows in 1.1 s (the
 * foreign key's check and two long text keys per row make it slower than
 * STACK-NOTES' ~600k rows/s).
 * -1 with err; db_sqlstate tells a conflict. */
int copy_rows(sched_t *s, stask_t *t, const int64_t *gpos, char *err, size_t errlen)
{
    const tile_t *tl = t->plan.t;
    const graph_t *g = t->plan.g;
    char now[40];
    int64_t ms = svc_wall_ms();
    time_t secs = (time_t)(ms / 1000);
    struct tm tmv;
    gmtime_r(&secs, &tmv);
    size_t nl = strftime(now, sizeof now, "%Y-%m-%d %H:%M:%S", &tmv);
    snprintf(now + nl, sizeof now - nl, ".%03d+00", (int)(ms % 1000));
    sbuf_t b;
    sbuf_init(&b);
    for (int32_t j = 0; j < t->n; j++) {
        if (!tile_job_is_live(tl, j)) continue;
        const graph_node_t *nd = &g->nodes[tile_job_node(tl, j)];
        const int64_t *shape;
        int ndim = tile_job_shape(tl, j, &shape);
        char key[KEY_MAX], buf[MR_MAXDIM * 21 + 4];
        plan_chunk_key(&t->plan, t->id, j, key, sizeof key);
        copy_field(&b, t->id, '\t');
        copy_field(&b, key, '\t');
        copy_field(&b, nd->key, '\t');
        copy_field(&b, op_name(nd->op), '\t');
        chunk_index_text(t, gpos, j, buf, sizeof buf);
        copy_field(&b, buf, '\t');
        shape_text(buf, sizeof buf, ndim, shape);
        copy_field(&b, buf, '\t');
        copy_field(&b, dt_name(tile_job_dtype(tl, j)), '\t');
        copy_field(&b, STATUS[t->st[j]], '\t');
        if (t->st[j] == S_DONE)
            copy_field(&b, now, '\n');
        else
            sbuf_puts(&b, "\\N\n"); /* NULL */
    }
    int rc = db_copy_in(s->db,
                        "COPY chunks (task_id, key, node_key, op, chunk_index, shape, dtype,"
                        " status, finished_at) FROM STDIN",
                        sbuf_str(&b), b.len, err, errlen);
    sbuf_close(&b);
    return rc;
}

/* Inserts a row per live job: by COPY for a fresh task (nobody wrote its
 * rows), else ON CONFLICT DO NOTHING (a takeover finds most of them there). */
int insert_rows(sched_t *s, stask_t *t, bool fresh, char *err, size_t errlen)
{
    const tile_t *tl = t->plan.t;
    const graph_t *g = t->plan.g;
    /* grid position of each job, where it has one */
    int64_t *gpos = malloc(sizeof(int64_t) * (size_t)(t->n ? t->n : 1));
    if (!gpos) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    for (int32_t j = 0; j < t->n; j++)
        gpos[j] = -1;
    for (int i = 0; i < g->n_nodes; i++) {
        int64_t total = tile_grid_total(tl, i);
        for (int64_t li = 0; li < total; li++) {
            int32_t gj = tile_grid_job(tl, i, li);
            if (gj >= 0 && gj < t->n && tile_job_node(tl, gj) == i) gpos[gj] = li;
        }
    }
    if (fresh) {
        if (copy_rows(s, t, gpos, err, errlen) == 0) {
            free(gpos);
            return 0;
        }
        if (strcmp(db_sqlstate(s->db), "23505") != 0) {
            free(gpos);
            return -1;
        }
        log_warning("task %s: its chunk rows exist already; inserting the missing ones", t->id);
    }
    sbuf_t k, nk, op, ci, sh, dt, st;
    sbuf_init(&k);
    sbuf_init(&nk);
    sbuf_init(&op);
    sbuf_init(&ci);
    sbuf_init(&sh);
    sbuf_init(&dt);
    sbuf_init(&st);
    int rc = 0, cnt = 0;
    arr_open(&k), arr_open(&nk), arr_open(&op), arr_open(&ci), arr_open(&sh), arr_open(&dt),
        arr_open(&st);
    for (int32_t j = 0; j <= t->n && rc == 0; j++) {
        if (j < t->n && tile_job_is_live(tl, j)) {
            const graph_node_t *nd = &g->nodes[tile_job_node(tl, j)];
            const int64_t *shape;
            int ndim = tile_job_shape(tl, j, &shape);
            char key[KEY_MAX], buf[MR_MAXDIM * 21 + 4];
            plan_chunk_key(&t->plan, t->id, j, key, sizeof key);
            arr_elem(&k, key);
            arr_elem(&nk, nd->key);
            arr_elem(&op, op_name(nd->op));
            chunk_index_text(t, gpos, j, buf, sizeof buf);
            arr_elem(&ci, buf);
            shape_text(buf, sizeof buf, ndim, shape);
            arr_elem(&sh, buf);
            arr_elem(&dt, dt_name(tile_job_dtype(tl, j)));
            arr_elem(&st, STATUS[t->st[j]]);
            cnt++;
        }
        if (cnt == ROW_BATCH || (j == t->n && cnt > 0)) {
            sbuf_putc(&k, '}'), sbuf_putc(&nk, '}'), sbuf_putc(&op, '}'), sbuf_putc(&ci, '}'),
                sbuf_putc(&sh, '}'), sbuf_putc(&dt, '}'), sbuf_putc(&st, '}');
            const char *p[] = {t->id,         sbuf_str(&k),  sbuf_str(&nk), sbuf_str(&op),
                               sbuf_str(&ci), sbuf_str(&sh), sbuf_str(&dt), sbuf_str(&st)};
            rc =
                db_exec(s->db,
                        "INSERT INTO chunks (task_id, key, node_key, op, chunk_index, shape, dtype,"
                        " status, finished_at)"
                        " SELECT $1, u.k, u.n, u.o, u.ci::bigint[], u.sh::bigint[], u.d, u.st,"
                        " CASE WHEN u.st = 'done' THEN now() END"
                        " FROM unnest($2::text[], $3::text[], $4::text[], $5::text[], $6::text[],"
                        " $7::text[], $8::text[]) AS u(k, n, o, ci, sh, d, st)"
                        " ON CONFLICT (task_id, key) DO NOTHING",
                        8, p, err, errlen);
            cnt = 0;
            arr_open(&k), arr_open(&nk), arr_open(&op), arr_open(&ci), arr_open(&sh), arr_open(&dt),
                arr_open(&st);
        }
    }
    sbuf_close(&k);
    sbuf_close(&nk);
    sbuf_close(&op);
    sbuf_close(&ci);
    sbuf_close(&sh);
    sbuf_close(&dt);
    sbuf_close(&st);
    free(gpos);
    return rc;
}

/* The tensors row of fetched node f of a finishing task (upserted over a
 * row of the same key); the replaced row's chunk keys go to orphans. 0, or
 * -1 with err. */
int tensor_row(sched_t *s, stask_t *t, int f, sbuf_t *keys, sbuf_t *bounds, sbuf_t *orphans,
               char *err, size_t errlen)
{
    const tile_t *tl = t->plan.t;
    const graph_t *g = t->plan.g;
    int node = g->fetch[f];
    bool dup = false;
    for (int e = 0; e < f; e++)
        dup = dup || g->fetch[e] == node;
    int64_t total = tile_grid_total(tl, node);
    if (dup || total < 0) return 0;
    const shape_t *gshape = tile_grid_shape(tl, node);
    arr_open(keys);
    sbuf_reset(bounds);
    sbuf_putc(bounds, '[');
    int64_t nbytes = 0;
    for (int64_t li = 0; li < total; li++) {
        char key[KEY_MAX];
        int32_t gj = tile_grid_job(tl, node, li);
        plan_chunk_key(&t->plan, t->id, gj, key, sizeof key);
        arr_elem(keys, key);
        /* a frame blob's size is the one its worker reported */
        nbytes += tile_job_is_blob(tl, gj) ? (t->nbytes[gj] > 0 ? t->nbytes[gj] : 0)
                                           : (int64_t)tile_job_nbytes(tl, gj);
    }
    sbuf_putc(keys, '}');
    /* a frame's grid is its list of chunks: bounds 0..nchunks */
    bool framed =
        g->nodes[node].df && (g->nodes[node].vkind != VK_TENSOR || g->nodes[node].df->held);
    for (int d = 0; d < gshape->ndim; d++) {
        sbuf_puts(bounds, d ? ",[" : "[");
        const int64_t *gb = tile_grid_bounds(tl, node, d);
        for (int64_t i = 0; i <= tile_grid_nchunks(tl, node, d); i++)
            sbuf_printf(bounds, "%s%lld", i ? "," : "", (long long)(framed ? i : gb[i]));
        sbuf_putc(bounds, ']');
    }
    sbuf_putc(bounds, ']');
    char shape[MR_MAXDIM * 21 + 4], nb[24];
    shape_text(shape, sizeof shape, gshape->ndim, gshape->d);
    snprintf(nb, sizeof nb, "%lld", (long long)nbytes);
    /* DataFrames, Series and to_tensor results are stored as frame blobs:
     * their dtype text says so (docs/graph-format.md, DataFrames) */
    const graph_node_t *gn = &g->nodes[node];
    const char *dtxt = !framed                     ? dt_name(tile_grid_dtype(tl, node))
                       : gn->vkind == VK_DATAFRAME ? "dataframe"
                       : gn->vkind == VK_SERIES    ? "series"
                       : gn->df && gn->df->held    ? "frame-tensor"
                                                   : dt_name(tile_grid_dtype(tl, node));
    const char *p[] = {t->session, g->nodes[node].key, t->id,          shape,
                       dtxt,       sbuf_str(bounds),   sbuf_str(keys), nb};
    PGresult *r = db_query(
        s->db,
        "WITH old AS (SELECT unnest(chunk_keys) AS k FROM tensors"
        " WHERE session_id = $1 AND key = $2),"
        " up AS (INSERT INTO tensors (session_id, key, task_id, shape, dtype, bounds,"
        " chunk_keys, nbytes) VALUES ($1, $2, $3, $4::bigint[], $5, $6::jsonb, $7::text[],"
        " $8::bigint) ON CONFLICT (session_id, key) DO UPDATE SET task_id = EXCLUDED.task_id,"
        " shape = EXCLUDED.shape, dtype = EXCLUDED.dtype, bounds = EXCLUDED.bounds,"
        " chunk_keys = EXCLUDED.chunk_keys, nbytes = EXCLUDED.nbytes, created_at = now()"
        " RETURNING 1)"
        " SELECT k FROM old WHERE NOT (k = ANY ($7::text[]))",
        8, p, err, errlen);
    if (!r) return -1;
    for (int i = 0; i < PQntuples(r); i++)
        arr_elem(orphans, PQgetvalue(r, i, 0));
    PQclear(r);
    return 0;
}

/* The failed job's row: status failed, its worker and the message (the
 * task ends with it; the dashboard shows it on the node). */
void job_failed(sched_t *s, stask_t *t, int32_t j, const char *worker, const char *msg)
{
    char key[KEY_MAX], err[512];
    flush_rows(s, t); /* first: it would write the job back as queued */
    plan_chunk_key(&t->plan, t->id, j, key, sizeof key);
    const char *p[] = {t->id, key, worker, msg};
    if (db_exec(s->db,
                "UPDATE chunks SET status = 'failed', worker_id = $3, error = $4,"
                " finished_at = now() WHERE task_id = $1 AND key = $2",
                4, p, err, sizeof err))
        log_warning("task %s: recording the failed job %d: %s", t->id, (int)j, err);
}

int load_source(void *ctx, const char *key, plan_src_t *out)
{
    loadctx_t *lc = ctx;
    char err[512];
    const char *p[] = {lc->session, key};
    PGresult *r = db_query(lc->db,
                           "SELECT json_build_object('shape', shape, 'dtype', dtype, 'bounds',"
                           " bounds, 'chunk_keys', chunk_keys)::text FROM tensors"
                           " WHERE session_id = $1 AND key = $2",
                           2, p, err, sizeof err);
    if (!r) {
        log_warning("looking up session tensor %s: %s", key, err);
        return -1;
    }
    int rc = -1;
    if (PQntuples(r) == 1) {
        json_error_t je;
        json_t *o = json_loads(PQgetvalue(r, 0, 0), 0, &je);
        if (o) rc = plan_src_parse(o, out, err, sizeof err);
        if (rc) log_warning("session tensor %s: %s", key, o ? err : je.text);
        json_decref(o);
    }
    PQclear(r);
    return rc;
}

/* Fails a task we could not even set up (a rejected document, say). */
void fail_unstarted(sched_t *s, const char *tid, const char *msg)
{
    char err[512];
    const char *p[] = {tid, s->id, msg};
    if (db_exec(s->db,
                "UPDATE tasks SET status = 'failed', error = $3, finished_at = now()"
                " WHERE id = $1 AND owner_id = $2",
                3, p, err, sizeof err))
        log_warning("task %s: %s", tid, err);
    notify_done(s, tid);
    drop_plan(s, tid);
    log_info("task %s failed: %s", tid, msg);
    metrics_counter_inc(s->m_tasks_failed);
}

/* A task's chunk rows and its chunks_total (fresh: by COPY). */
int write_rows(sched_t *s, stask_t *t, bool fresh)
{
    char err[1024];
    if (insert_rows(s, t, fresh, err, sizeof err)) {
        log_warning("task %s: writing chunk rows: %s (retried)", t->id, err);
        return -1;
    }
    char total[24], done[24];
    snprintf(total, sizeof total, "%lld", (long long)t->n_live);
    snprintf(done, sizeof done, "%lld", (long long)t->n_done);
    const char *p[] = {t->id, total, done};
    if (db_exec(s->db, "UPDATE tasks SET chunks_total = $2, chunks_done = $3 WHERE id = $1", 3, p,
                err, sizeof err))
        log_warning("task %s: %s", t->id, err);
    return 0;
}
