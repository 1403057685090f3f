/* core.c: the tiler's driver (tile_build), jobs and their inputs. See
 * tile.h for the model and tile_priv.h for how the files divide the work. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../arena.h"
#include "../la2.h"
#include "../sortstat.h"
#include "tile_priv.h"

int tile__fail(tctx_t *c, const char *fmt, ...)
{
    const graph_node_t *n = &c->g->nodes[c->node];
    int o = snprintf(c->err, c->errlen, "node \"%s\" (%s): ", n->key, op_name(n->op));
    if (o < 0 || (size_t)o >= c->errlen) return -1;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->err + o, c->errlen - (size_t)o, fmt, ap);
    va_end(ap);
    return -1;
}

int64_t *tile__arena_i64(tctx_t *c, int n)
{
    return arena_alloc(c->t->arena, sizeof(int64_t) * (size_t)(n > 0 ? n : 1));
}

int64_t *arena_i64_copy(tctx_t *c, const int64_t *src, int n)
{
    int64_t *p = tile__arena_i64(c, n);
    if (n > 0) memcpy(p, src, sizeof(int64_t) * (size_t)n);
    return p;
}

/* ------------------------------------------------------------------ jobs */

int32_t tile__job_new(tctx_t *c, job_kind_t kind, dtype_t dt, int ndim, const int64_t *shape,
                      int n_in)
{
    tile_t *t = c->t;
    if (t->n_jobs >= c->lim->max_total_chunks) {
        tile__fail(c, "the graph needs more than %lld chunk jobs (limit max_total_chunks)",
                   (long long)c->lim->max_total_chunks);
        return -1;
    }
    if (t->n_jobs == t->cap_jobs) {
        int32_t cap = t->cap_jobs ? t->cap_jobs * 2 : 1024;
        job_t *nj = realloc(t->jobs, sizeof(job_t) * (size_t)cap);
        if (!nj) {
            tile__fail(c, "out of memory while tiling");
            return -1;
        }
        t->jobs = nj;
        t->cap_jobs = cap;
    }
    int32_t id = t->n_jobs++;
    job_t *j = &t->jobs[id];
    memset(j, 0, sizeof(*j));
    j->kind = (uint8_t)kind;
    j->dt = (uint8_t)dt;
    j->ndim = (int8_t)ndim;
    j->node = c->node;
    j->shape = arena_i64_copy(c, shape, ndim);
    j->n_in = n_in;
    j->source_index = -1;
    if (n_in > 0) {
        j->in = arena_alloc(t->arena, sizeof(jin_t) * (size_t)n_in);
        memset(j->in, 0, sizeof(jin_t) * (size_t)n_in);
        for (int k = 0; k < n_in; k++)
            j->in[k].gen_node = -1;
    }
    c->n_refs += n_in;
    return id;
}

size_t job_nbytes(const job_t *j)
{
    if (j->blob) return 0;
    return (size_t)prod(j->ndim, j->shape) * dt_size((dtype_t)j->dt);
}

/* Input k of job ji is job src's whole output. */
void tile__jin_direct(tctx_t *c, int32_t ji, int k, int32_t src)
{
    job_t *sj = &c->t->jobs[src];
    jin_t *in = &c->t->jobs[ji].in[k];
    in->job = src;
    in->n_pieces = 0;
    in->pieces = NULL;
    in->gen_node = -1;
    in->ndim = sj->ndim;
    in->shape = sj->shape;
    in->dt = (dtype_t)sj->dt;
}

/* ------------------------------------------------------------------ op tilers */

jparam_t *tile__param_new(tctx_t *c, op_t op)
{
    jparam_t *p = arena_alloc(c->t->arena, sizeof(jparam_t));
    memset(p, 0, sizeof(*p));
    p->op = op;
    return p;
}

tgrid_t *tile_create(tctx_t *c, const graph_node_t *n, job_kind_t kind)
{
    int64_t chunk[MR_MAXDIM], nch[MR_MAXDIM];
    const int64_t *sb[MR_MAXDIM];
    tgrid_t *G;
    const tgrid_t *like =
        op_is_like(n->op) && !n->has_shape && n->n_chunk == 0 && n->n_in == 1 && n->in[0].node >= 0
            ? c->t->grid[n->in[0].node]
            : NULL;
    if (kind == JK_SOURCE && c->opts->source_bounds &&
        c->opts->source_bounds(c->opts->source_ctx, n, nch, sb) == 0) {
        G = grid_with_bounds(c, &n->oshape, n->odtype, sb, nch);
    } else if (like && like->shape.ndim == n->oshape.ndim) {
        /* *_like: the input's chunks */
        G = grid_with_bounds(c, &n->oshape, n->odtype, (const int64_t *const *)like->bounds,
                             like->nchunks);
    } else {
        if (n->n_chunk > 0)
            memcpy(chunk, n->chunk, sizeof(int64_t) * (size_t)n->oshape.ndim);
        else
            default_chunks(&n->oshape, n->odtype, c->opts->target_chunk_bytes, chunk);
        G = grid_regular(c, &n->oshape, n->odtype, chunk);
    }
    if (!G) return NULL;
    for (gwalk_t w = gwalk_start(G); gwalk_next(&w);) {
        int64_t li = w.li, *off = w.off, *len = w.len;
        int32_t ji = tile__job_new(c, kind, n->odtype, n->oshape.ndim, len, 0);
        if (ji < 0) return NULL;
        c->t->jobs[ji].off = arena_i64_copy(c, off, n->oshape.ndim);
        if (kind == JK_SOURCE) c->t->jobs[ji].source_index = li;
        G->job[li] = ji;
    }
    return G;
}

/* ------------------------------------------------------------------ driver */

void tile_opts_default(tile_opts_t *o)
{
    /* 16 MiB: large enough that per-chunk overhead is negligible, small
     * enough that a 2-core machine gets work for both cores on modest arrays */
    o->target_chunk_bytes = 16 << 20;
    o->keep_all = false;
    o->sort_block_bytes = SS_MAX_BLOCK_BYTES;
    o->source_bounds = NULL;
    o->source_ctx = NULL;
}

static void plan_fusion(tctx_t *c)
{
    const graph_t *g = c->g;
    for (int i = 0; i < g->n_nodes; i++) {
        const graph_node_t *n = &g->nodes[i];
        bool ew = op_is_elementwise(n->op);
        op_kind_t k = op_kind(n->op);
        if (!ew && k != OPK_REDUCE && k != OPK_ARGREDUCE) continue;
        int cost = 4;
        bool any = false;
        for (int j = 0; j < n->n_in; j++) {
            int m = n->in[j].node;
            if (m >= 0 && fusable_into(c, m, i)) {
                cost += c->cost[m];
                any = true;
            } else {
                cost += 2;
            }
        }
        if (any && cost <= FUSE_MAX_COST) {
            for (int j = 0; j < n->n_in; j++) {
                int m = n->in[j].node;
                if (m >= 0 && fusable_into(c, m, i)) c->fused[m] = true;
            }
            c->cost[i] = cost;
        } else {
            c->cost[i] = 4 + 2 * n->n_in;
        }
    }
}

/* Marks the creation and random nodes whose values element-wise programs
 * and reduction maps generate by region, inside their own jobs: a creation
 * node for every such consumer, a random node when it is the only one.
 * Other readers generate creation chunks too (tile__plan_virtual). */
static void plan_generated(tctx_t *c)
{
    const graph_t *g = c->g;
    if (c->opts->keep_all) return;
    for (int i = 0; i < g->n_nodes; i++) {
        const graph_node_t *n = &g->nodes[i];
        for (int j = 0; j < n->n_in; j++) {
            int m = n->in[j].node;
            if (m < 0) continue;
            const graph_node_t *M = &g->nodes[m];
            op_kind_t mk = op_kind(M->op), nk = op_kind(n->op);
            bool one = mk == OPK_CREATE || M->n_consumers == 1;
            if ((mk == OPK_CREATE || mk == OPK_RANDOM) && !M->fetch && one &&
                (((op_is_elementwise(n->op) || nk == OPK_REDUCE || nk == OPK_ARGREDUCE) &&
                  !n->df) ||
                 n->op == OP_DF_FROM_TENSOR))
                c->gen[m] = true;
        }
    }
}

/* Marks the transposes that only feed x . x^T products: never tiled. */
static void plan_skips(tctx_t *c)
{
    const graph_t *g = c->g;
    for (int i = 0; i < g->n_nodes; i++) {
        const graph_node_t *n = &g->nodes[i];
        if ((n->op == OP_DOT || n->op == OP_MATMUL) && n->in[0].node >= 0 &&
            g->nodes[n->in[0].node].oshape.ndim == 2 &&
            is_plain_transpose_of(c, n->in[1].node, n->in[0].node)) {
            int t = n->in[1].node;
            if (!g->nodes[t].fetch && g->nodes[t].n_consumers == 1 && !c->opts->keep_all)
                c->skip[t] = true;
        }
    }
}

static void mark_live(tile_t *t)
{
    for (int32_t j = 0; j < t->n_jobs; j++)
        t->live[j] = t->jobs[j].keep;
    for (int32_t j = t->n_jobs - 1; j >= 0; j--) {
        if (!t->live[j]) continue;
        const job_t *jb = &t->jobs[j];
        for (int k = 0; k < jb->n_in; k++) {
            const jin_t *in = &jb->in[k];
            if (in->job >= 0) t->live[in->job] = 1;
            for (int p = 0; p < in->n_pieces; p++)
                t->live[in->pieces[p].src] = 1;
        }
    }
}

int tile_build(const graph_t *g, const graph_limits_t *lim, const tile_opts_t *opts, tile_t **out,
               char *err, size_t errlen)
{
    tile_opts_t defo;
    if (!opts) {
        tile_opts_default(&defo);
        opts = &defo;
    }
    tctx_t c = {.g = g, .lim = lim, .opts = opts, .err = err, .errlen = errlen};
    tile_t *t = calloc(1, sizeof(tile_t));
    c.fused = calloc((size_t)g->n_nodes + 1, sizeof(bool));
    c.skip = calloc((size_t)g->n_nodes + 1, sizeof(bool));
    c.cost = calloc((size_t)g->n_nodes + 1, sizeof(int));
    c.gen = calloc((size_t)g->n_nodes + 1, sizeof(bool));
    if (!t || !c.fused || !c.skip || !c.cost || !c.gen) goto oom;
    t->g = g;
    t->arena = arena_create();
    t->grid = calloc((size_t)g->n_nodes + 1, sizeof(tgrid_t *));
    if (!t->arena || !t->grid) goto oom;
    c.t = t;
    plan_fusion(&c);
    plan_skips(&c);
    plan_generated(&c);
    for (int i = 0; i < g->n_nodes; i++) {
        const graph_node_t *n = &g->nodes[i];
        c.node = i;
        if (c.fused[i] || c.skip[i]) continue;
        tgrid_t *G = NULL;
        if (n->fancy) { /* advanced indexing (tile/fancy.c); held results are framed */
            if (!(G = tile_fancy(&c, i))) goto fail;
            t->grid[i] = G;
            if (n->fetch || opts->keep_all)
                for (int64_t k = 0; k < G->total; k++)
                    t->jobs[G->job[k]].keep = true;
            continue;
        }
        if (n->df || op_kind(n->op) == OPK_DF) {
            if (!(G = tile_df(&c, i))) goto fail;
            t->grid[i] = G;
            if (n->fetch || opts->keep_all)
                for (int64_t k = 0; k < G->total; k++)
                    t->jobs[G->job[k]].keep = true;
            continue;
        }
        switch (op_kind(n->op)) {
        case OPK_DF:
            break;
        case OPK_CREATE:
            G = tile_create(&c, n, JK_CREATE);
            break;
        case OPK_RANDOM:
            G = tile_create(&c, n, JK_RANDOM);
            break;
        case OPK_SOURCE:
            G = tile_create(&c, n, JK_SOURCE);
            break;
        case OPK_UNARY:
        case OPK_BINARY:
        case OPK_WHERE:
        case OPK_CLIP:
        case OPK_ASTYPE:
            G = tile_ew(&c, i);
            break;
        case OPK_REDUCE:
        case OPK_ARGREDUCE:
            G = tile_reduce(&c, i);
            break;
        case OPK_SCAN:
            G = tile_scan(&c, i);
            break;
        case OPK_LINALG:
            G = graph_la2_op(n->op)   ? tile_la2(&c, i) /* la2.h */
                : tile_la_owns(n->op) ? tile_la(&c, i)
                                      : tile_linalg(&c, i);
            break;
        case OPK_SHAPE:
            G = tile_shape_op(&c, i);
            break;
        case OPK_SORTSTAT:
            G = tile_sortstat(&c, i);
            break;
        }
        if (!G) goto fail;
        if (!shape_eq(&G->shape, &n->oshape) || G->dt != n->odtype) {
            tile__fail(&c, "internal: tiled shape or dtype differs from the inferred one");
            goto fail;
        }
        t->grid[i] = G;
        if (n->fetch || opts->keep_all)
            for (int64_t k = 0; k < G->total; k++)
                t->jobs[G->job[k]].keep = true;
    }
    t->live = calloc((size_t)t->n_jobs + 1, 1);
    if (!t->live) goto oom;
    c.node = 0;
    if (g->n_nodes > 0 && (tile__fuse_gathers(&c) || tile__plan_virtual(&c))) goto fail;
    mark_live(t);
    free(c.fused);
    free(c.skip);
    free(c.cost);
    free(c.gen);
    free(c.pv);
    *out = t;
    return 0;
oom:
    snprintf(err, errlen, "document: out of memory while tiling");
fail:
    free(c.fused);
    free(c.skip);
    free(c.cost);
    free(c.gen);
    free(c.pv);
    tile_free(t);
    return -1;
}

void tile_free(tile_t *t)
{
    if (!t) return;
    arena_destroy(t->arena);
    free(t->jobs);
    free(t->grid);
    free(t->live);
    free(t);
}

void tile_gen_params(const graph_node_t *n, kern_gen_t *o)
{
    memset(o, 0, sizeof(*o));
    o->op = n->op;
    /* empty gives zeros (numpy leaves the memory as it was) */
    switch (n->op) {
    case OP_EMPTY:
    case OP_EMPTY_LIKE:
    case OP_ZEROS_LIKE:
        o->op = OP_ZEROS;
        break;
    case OP_ONES_LIKE:
        o->op = OP_ONES;
        break;
    case OP_FULL_LIKE:
        o->op = OP_FULL;
        break;
    case OP_IDENTITY:
        o->op = OP_EYE;
        break;
    default:
        break;
    }
    o->shape = n->oshape;
    o->dt = n->odtype;
    o->fill_value = n->fill_value;
    o->start = n->start;
    o->stop = n->stop;
    o->step = n->step;
    o->num = n->num;
    o->endpoint = n->endpoint;
    o->k = n->k;
    o->data = n->data;
    o->seed = n->seed;
    o->low = n->low;
    o->high = n->high;
    o->loc = n->loc;
    o->scale = n->scale;
}
