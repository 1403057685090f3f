/* tile_df.c: DataFrame nodes into chunk jobs (tile.h's JK_DF).
 *
 * A DataFrame or Series is a list of row chunks, each the output of one job:
 * a frame blob (df/frame.h). Its grid (tgrid_t) is 1-D over the chunks:
 * shape (nchunks,), bounds[0] the row offsets of the chunks when they are
 * known before running (from_tensor, read_csv and what keeps their rows),
 * else -1 everywhere (after filter, groupby, sort, merge). Jobs of ops that
 * keep rows line up with their input's chunks one for one; element-wise ops
 * between Series need the same chunks, which graph validation checked.
 *
 * Steps with several outputs (hash and range partitions) write a pack of
 * frames (df/dfexec.h); each part job reads its part out of every pack. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "df/df3.h"
#include "df/dfexec.h"
#include "df/dfgraph.h"
#include "df/dfstr.h"
#include "df/running.h"
#include "setops.h"
#include "tile_internal.h"

/* Fan-in of combine trees, as the tensor reductions'. */
#define DF_FANIN 8
/* merge_asof matched in place up to this many left chunks times right
 * chunks (each right chunk's pack has a piece for every left chunk) */
#define ASOF_MAX_PIECES 65536.0
/* Parts of a shuffle (groupby's many-groups path, merge, sort): one per
 * input chunk, at most this many, so that a part job's fan-in (it reads
 * one piece of every chunk's pack) and the number of packs read stay
 * bounded. */
#define DF_MAX_PARTS 32
/* groupby_agg takes the hash shuffle instead of the combine tree when its
 * input has more chunks than this and more rows than DF_GB_TREE_ROWS (or
 * an unknown count): the tree's last combine holds every group at once. */
#define DF_GB_TREE_CHUNKS 8
#define DF_GB_TREE_ROWS 1000000
/* the bounds of a merge side read whole by each chunk of the other
 * (small_beside, tile_merge_bcast): rows, bytes at 8 a value, chunks */
#define DF_BCAST_ROWS 262144
#define DF_BCAST_BYTES (64 << 20)
#define DF_BCAST_CHUNKS 64
/* the planned inner merge (tile_merge_keyed): each output chunk reads a
 * piece of every chunk of left, so left has at most this many */
#define DF_KEYED_CHUNKS 128

static jparam_t *dparam(tctx_t *c, int node, dfjob_t k)
{
    jparam_t *p = tile__param_new(c, c->g->nodes[node].op);
    p->dfk = (uint8_t)k;
    return p;
}

/* A blob job of step pa with n_in inputs; off[] of 4 zeros. */
static int32_t bjob(tctx_t *c, const jparam_t *pa, int n_in)
{
    return tile__mo_job(c, pa, n_in, 0, 0, 0, 0);
}

/* A job with fixed output bytes (partials) or a fixed tensor shape. */
static int32_t fjob(tctx_t *c, const jparam_t *pa, dtype_t dt, int nd, const int64_t *shape,
                    int n_in)
{
    int32_t ji = tile__job_new(c, JK_DF, dt, nd, shape, n_in);
    if (ji < 0) return -1;
    job_t *j = &c->t->jobs[ji];
    j->param = pa;
    j->off = tile__arena_i64(c, 4);
    memset(j->off, 0, 4 * sizeof(int64_t));
    return ji;
}

/* A frame grid of nch chunks; rows known when rowoff is given (nch+1). */
static tgrid_t *fgrid(tctx_t *c, int64_t nch, const int64_t *rowoff)
{
    shape_t s = {.ndim = 1};
    s.d[0] = nch;
    tgrid_t *G = tile__grid_alloc(c, &s, DT_BOOL, &nch);
    if (!G) return NULL;
    for (int64_t k = 0; k <= nch; k++)
        G->bounds[0][k] = rowoff ? rowoff[k] : -1;
    return G;
}

static bool rows_known(const tgrid_t *G)
{
    return G->bounds[0][0] >= 0;
}

static const tgrid_t *in_grid(tctx_t *c, int node, int j)
{
    return c->t->grid[c->g->nodes[node].in[j].node];
}

/* One job per chunk of input 0 with every frame input's chunk k. */
static tgrid_t *tile_rowwise(tctx_t *c, int node, dfjob_t kind, bool keep_rows)
{
    const graph_node_t *n = &c->g->nodes[node];
    int j0 = 0; /* the first frame input (a literal may come first) */
    while (j0 < n->n_in - 1 && n->in[j0].node < 0)
        j0++;
    const tgrid_t *A = in_grid(c, node, j0);
    int64_t nch = A->nchunks[0];
    tgrid_t *G = fgrid(c, nch, keep_rows && rows_known(A) ? A->bounds[0] : NULL);
    if (!G) return NULL;
    jparam_t *pa = dparam(c, node, kind);
    int nin = 0;
    for (int j = 0; j < n->n_in; j++)
        nin += n->in[j].node >= 0;
    for (int64_t k = 0; k < nch; k++) {
        int32_t ji = bjob(c, pa, nin);
        if (ji < 0) return NULL;
        int q = 0;
        for (int j = 0; j < n->n_in; j++) {
            if (n->in[j].node < 0) continue;
            const tgrid_t *B = in_grid(c, node, j);
            if (B->nchunks[0] != nch) {
                tile__fail(c, "internal: inputs with %lld and %lld chunks", (long long)nch,
                           (long long)B->nchunks[0]);
                return NULL;
            }
            tile__jin_direct(c, ji, q++, B->job[k]);
        }
        G->job[k] = ji;
    }
    return G;
}

/* Input k of job ji: rows [r0, r1) of from_tensor node ft's tensor. */
static int ft_input(tctx_t *c, int32_t ji, int k, int ft, int64_t r0, int64_t r1)
{
    const graph_node_t *F = &c->g->nodes[ft];
    int m = F->in[0].node;
    const graph_node_t *T = &c->g->nodes[m];
    int nd = T->oshape.ndim;
    int64_t off[2] = {r0, 0}, len[2] = {r1 - r0, nd == 2 ? T->oshape.d[1] : 0};
    if (c->gen[m]) {
        tile__input_generated(c, ji, k, m, nd, off, len, T->odtype);
        return 0;
    }
    return tile__input_box(c, ji, k, c->t->grid[m], off, len);
}

/* Row offsets of from_tensor node ft's chunks (nch+1, in the arena). */
static int64_t *ft_bounds(tctx_t *c, int ft, int64_t *nch)
{
    const graph_node_t *F = &c->g->nodes[ft];
    int m = F->in[0].node;
    const graph_node_t *T = &c->g->nodes[m];
    int64_t rows = T->oshape.d[0];
    const tgrid_t *TG = c->t->grid[m];
    int64_t step = F->df->chunk_rows;
    if (!step && TG) {
        *nch = TG->nchunks[0];
        return TG->bounds[0];
    }
    if (!step && T->n_chunk > 0) step = T->chunk[0];
    if (!step) {
        int64_t w = (T->oshape.ndim == 2 && T->oshape.d[1] > 0 ? T->oshape.d[1] : 1) * 8;
        step = c->opts->target_chunk_bytes / w;
        if (step < 1) step = 1;
    }
    *nch = rows == 0 ? 1 : (rows + step - 1) / step;
    if (*nch > c->lim->max_chunks) {
        tile__fail(c, "the DataFrame would have more than %lld chunks (limit max_chunks)",
                   (long long)c->lim->max_chunks);
        return NULL;
    }
    int64_t *b = arena_alloc(c->t->arena, sizeof(int64_t) * (size_t)(*nch + 1));
    for (int64_t k = 0; k <= *nch; k++)
        b[k] = k * step < rows ? k * step : rows;
    return b;
}

static tgrid_t *tile_from_tensor(tctx_t *c, int node)
{
    int64_t nch;
    int64_t *b = ft_bounds(c, node, &nch);
    if (!b) return NULL;
    tgrid_t *G = fgrid(c, nch, b);
    if (!G) return NULL;
    jparam_t *pa = dparam(c, node, DFJ_FROM_TENSOR);
    for (int64_t k = 0; k < nch; k++) {
        int32_t ji = bjob(c, pa, 1);
        if (ji < 0 || ft_input(c, ji, 0, node, b[k], b[k + 1])) return NULL;
        c->t->jobs[ji].off[0] = b[k];
        G->job[k] = ji;
    }
    return G;
}

static tgrid_t *tile_read_csv(tctx_t *c, int node)
{
    const df_node_t *d = c->g->nodes[node].df;
    int64_t *b = arena_alloc(c->t->arena, sizeof(int64_t) * (size_t)(d->nranges + 1));
    b[0] = 0;
    for (int64_t r = 0; r < d->nranges; r++)
        b[r + 1] = b[r] + d->range_rows[r];
    tgrid_t *G = fgrid(c, d->nranges, b);
    if (!G) return NULL;
    jparam_t *pa = dparam(c, node, DFJ_READ_CSV);
    for (int64_t r = 0; r < d->nranges; r++) {
        int32_t ji = bjob(c, pa, 0);
        if (ji < 0) return NULL;
        c->t->jobs[ji].off[0] = r;
        c->t->jobs[ji].off[1] = b[r];
        G->job[r] = ji;
    }
    return G;
}

/* A job reading every chunk of A in order, as its inputs lead.. (the
 * caller sets the lead inputs before them and the extra ones after). */
static int32_t all_job(tctx_t *c, const jparam_t *pa, const tgrid_t *A, int lead, int extra)
{
    int64_t nch = A->nchunks[0];
    if (nch > INT32_MAX / 2) {
        tile__fail(c, "too many chunks");
        return -1;
    }
    int32_t ji = bjob(c, pa, lead + (int)nch + extra);
    if (ji < 0) return -1;
    for (int64_t k = 0; k < nch; k++)
        tile__jin_direct(c, ji, lead + (int)k, A->job[k]);
    return ji;
}

/* One job of step pa per chunk of A, reading it as input 0 (extra more
 * inputs for the caller to set), into out[k]; 0, or -1 when tiling failed. */
static int chunk_jobs(tctx_t *c, const jparam_t *pa, const tgrid_t *A, int extra, int32_t *out)
{
    for (int64_t k = 0; k < A->nchunks[0]; k++) {
        int32_t ji = bjob(c, pa, 1 + extra);
        if (ji < 0) return -1;
        tile__jin_direct(c, ji, 0, A->job[k]);
        out[k] = ji;
    }
    return 0;
}

static tgrid_t *tile_head(tctx_t *c, int node)
{
    const df_node_t *d = c->g->nodes[node].df;
    const tgrid_t *A = in_grid(c, node, 0);
    jparam_t *pa = dparam(c, node, DFJ_HEAD);
    if (!rows_known(A)) {
        tgrid_t *G = fgrid(c, 1, NULL);
        int32_t ji = G ? all_job(c, pa, A, 0, 0) : -1;
        if (ji < 0) return NULL;
        c->t->jobs[ji].off[0] = d->n;
        G->job[0] = ji;
        return G;
    }
    /* the chunks up to row n: whole ones as they are, the last one cut */
    int64_t nch = A->nchunks[0], m = 1;
    while (m < nch && A->bounds[0][m] < d->n)
        m++;
    int64_t *b = arena_alloc(c->t->arena, sizeof(int64_t) * (size_t)(m + 1));
    for (int64_t q = 0; q <= m; q++)
        b[q] = A->bounds[0][q] < d->n ? A->bounds[0][q] : d->n;
    tgrid_t *G = fgrid(c, m, b);
    if (!G) return NULL;
    for (int64_t q = 0; q < m; q++) {
        if (A->bounds[0][q + 1] <= d->n) {
            G->job[q] = A->job[q];
            continue;
        }
        int32_t ji = bjob(c, pa, 1);
        if (ji < 0) return NULL;
        tile__jin_direct(c, ji, 0, A->job[q]);
        c->t->jobs[ji].off[0] = b[q + 1] - b[q];
        G->job[q] = ji;
    }
    return G;
}

/* A frame node holding one chunk made by job ji. */
static tgrid_t *one_chunk(tctx_t *c, int32_t ji, int64_t rows)
{
    int64_t b[2] = {0, rows};
    tgrid_t *G = fgrid(c, 1, rows >= 0 ? b : NULL);
    if (G) G->job[0] = ji;
    return G;
}

/* from_tensor node m feeding only this reduction: the map reads the
 * tensor itself. */
static bool ft_direct(tctx_t *c, int m)
{
    const graph_node_t *M = &c->g->nodes[m];
    return M->op == OP_DF_FROM_TENSOR && !M->fetch && M->n_consumers == 1 && !c->opts->keep_all;
}

static int32_t tree(tctx_t *c, int node, dfjob_t comb, int32_t *parts, int64_t np,
                    int64_t fixed_bytes)
{
    jparam_t *pa = dparam(c, node, comb);
    while (np > 1) {
        int64_t m = 0;
        for (int64_t i = 0; i < np; i += DF_FANIN) {
            int k = (int)(np - i < DF_FANIN ? np - i : DF_FANIN);
            if (k == 1) {
                parts[m++] = parts[i];
                continue;
            }
            int32_t ji =
                fixed_bytes >= 0 ? fjob(c, pa, DT_BOOL, 1, &fixed_bytes, k) : bjob(c, pa, k);
            if (ji < 0) return -1;
            for (int q = 0; q < k; q++)
                tile__jin_direct(c, ji, q, parts[i + q]);
            parts[m++] = ji;
        }
        np = m;
    }
    return parts[0];
}

static tgrid_t *tile_reduce_df(tctx_t *c, int node)
{
    const graph_node_t *n = &c->g->nodes[node];
    const df_node_t *d = n->df;
    int m = n->in[0].node;
    const tgrid_t *A = c->t->grid[m];
    bool nu = n->op == OP_DF_NUNIQUE;
    int64_t nch = A->nchunks[0];
    const int64_t *ftb = NULL;
    if (!nu && ft_direct(c, m)) {
        ftb = ft_bounds(c, m, &nch);
        if (!ftb) return NULL;
    }
    int32_t *parts = malloc(sizeof(int32_t) * (size_t)(nch + 1));
    if (!parts) {
        tile__fail(c, "out of memory while tiling");
        return NULL;
    }
    int64_t pb = (int64_t)dfx_partial_bytes(d->nsel);
    jparam_t *pm = dparam(c, node, nu ? DFJ_NU_MAP : DFJ_RED_MAP);
    tgrid_t *G = NULL;
    for (int64_t k = 0; k < nch; k++) {
        int32_t ji = nu ? bjob(c, pm, 1) : fjob(c, pm, DT_BOOL, 1, &pb, 1);
        if (ji < 0) goto done;
        if (ftb) {
            if (ft_input(c, ji, 0, m, ftb[k], ftb[k + 1])) goto done;
            c->t->jobs[ji].off[1] = 1; /* the input is a tensor */
        } else {
            tile__jin_direct(c, ji, 0, A->job[k]);
        }
        parts[k] = ji;
    }
    int32_t top = tree(c, node, nu ? DFJ_NU_COMBINE : DFJ_RED_COMBINE, parts, nch, nu ? -1 : pb);
    if (top < 0) goto done;
    jparam_t *pf = dparam(c, node, nu ? DFJ_NU_FINAL : DFJ_RED_FINAL);
    int32_t fj;
    if (n->vkind == VK_TENSOR) {
        fj = fjob(c, pf, n->odtype, 0, NULL, 1);
        if (fj < 0) goto done;
        tile__jin_direct(c, fj, 0, top);
        int64_t one = 1;
        G = tile__grid_alloc(c, &n->oshape, n->odtype, &one);
        if (G) G->job[0] = fj;
    } else {
        fj = bjob(c, pf, 1);
        if (fj < 0) goto done;
        tile__jin_direct(c, fj, 0, top);
        G = one_chunk(c, fj, d->nrows);
    }
done:
    free(parts);
    return G;
}

static tgrid_t *tile_gather_all(tctx_t *c, int node, dfjob_t kind, int64_t rows)
{
    const tgrid_t *A = in_grid(c, node, 0);
    int32_t ji = all_job(c, dparam(c, node, kind), A, 0, 0);
    return ji < 0 ? NULL : one_chunk(c, ji, rows);
}

/* to_tensor with a known row count: a tensor grid of fixed-size jobs, one
 * per non-empty frame chunk where the chunks' rows are known, else one job
 * reading every chunk. */
static tgrid_t *tile_to_tensor(tctx_t *c, int node)
{
    const graph_node_t *n = &c->g->nodes[node];
    const df_node_t *d = n->df;
    const tgrid_t *A = in_grid(c, node, 0);
    jparam_t *pa = dparam(c, node, DFJ_TO_TENSOR);
    int nd = n->oshape.ndim;
    int64_t nch = A->nchunks[0], m = 0;
    bool known = rows_known(A);
    for (int64_t k = 0; known && k < nch; k++)
        m += A->bounds[0][k + 1] > A->bounds[0][k];
    if (!known || m == 0) m = 1;
    int64_t nchunks[2] = {m, 1};
    tgrid_t *G = tile__grid_alloc(c, &n->oshape, n->odtype, nchunks);
    if (!G) return NULL;
    if (nd == 2) {
        G->bounds[1][0] = 0;
        G->bounds[1][1] = d->nsel;
    }
    G->bounds[0][0] = 0;
    if (!known || m == 1) {
        int64_t shape[2] = {n->oshape.d[0], d->nsel};
        int32_t ji = fjob(c, pa, n->odtype, nd, shape, (int)nch);
        if (ji < 0) return NULL;
        for (int64_t k = 0; k < nch; k++)
            tile__jin_direct(c, ji, (int)k, A->job[k]);
        G->bounds[0][1] = n->oshape.d[0];
        G->job[0] = ji;
        return G;
    }
    int64_t q = 0;
    for (int64_t k = 0; k < nch; k++) {
        int64_t r0 = A->bounds[0][k], r1 = A->bounds[0][k + 1];
        if (r1 == r0) continue;
        int64_t shape[2] = {r1 - r0, d->nsel};
        int32_t ji = fjob(c, pa, n->odtype, nd, shape, 1);
        if (ji < 0) return NULL;
        tile__jin_direct(c, ji, 0, A->job[k]);
        G->bounds[0][q + 1] = r1;
        G->job[q++] = ji;
    }
    return G;
}

/* A job of pa with n inputs, then stat's result when stat >= 0 (skew's
 * and kurt's moment pass, the last input of every other job of their
 * node: df/running.h's df_run_moments). */
static int32_t sjob(tctx_t *c, const jparam_t *pa, int n, int32_t stat)
{
    int32_t ji = bjob(c, pa, n + (stat >= 0));
    if (ji >= 0 && stat >= 0) tile__jin_direct(c, ji, n, stat);
    return ji;
}

/* skew's and kurt's moment pass over A's chunks in order (jobs marked
 * off[1] = 2): its last job, -1 when the node needs none, -2 when tiling
 * failed. */
static int32_t moment_pass(tctx_t *c, int node, const tgrid_t *A, jparam_t *pe, jparam_t *pc)
{
    const graph_node_t *n = &c->g->nodes[node];
    if (!df_run_moments(n->df, n->op)) return -1;
    int32_t g = -1;
    for (int64_t k = 0; k < A->nchunks[0]; k++) {
        int32_t ji = bjob(c, g < 0 ? pe : pc, g < 0 ? 1 : 2);
        if (ji < 0) return -2;
        if (g >= 0) tile__jin_direct(c, ji, 0, g);
        tile__jin_direct(c, ji, g >= 0, A->job[k]);
        c->t->jobs[ji].off[1] = 2;
        g = ji;
    }
    return g;
}

/* One step of a chain of edges: chunk job's edge, combined with the carry
 * so far when there is one (mark: the jobs' off[1], 1 for a centred
 * window's backward chain; stat: sjob's). The new carry's job, or -1 when
 * tiling failed. */
static int32_t edge_step(tctx_t *c, jparam_t *pe, jparam_t *pc, int32_t carry, int32_t job,
                         int mark, int32_t stat)
{
    int32_t ej = sjob(c, pe, 1, stat);
    if (ej < 0) return -1;
    tile__jin_direct(c, ej, 0, job);
    c->t->jobs[ej].off[1] = mark;
    if (carry < 0) return ej;
    int32_t cj = sjob(c, pc, 2, stat);
    if (cj < 0) return -1;
    tile__jin_direct(c, cj, 0, carry);
    tile__jin_direct(c, cj, 1, ej);
    c->t->jobs[cj].off[1] = mark;
    return cj;
}

/* A centred rolling window's second chain, backwards: after[k] the carry
 * of the rows after chunk k (edge_step's with off[1] = 1), -1 for the
 * last chunk. 0, or -1 when tiling failed. */
static int back_chain(tctx_t *c, const tgrid_t *A, jparam_t *pe, jparam_t *pc, int32_t stat,
                      int64_t *after)
{
    int32_t carry = -1;
    for (int64_t k = A->nchunks[0] - 1; k >= 0; k--) {
        after[k] = carry;
        if (k > 0 && (carry = edge_step(c, pe, pc, carry, A->job[k], 1, stat)) < 0) return -1;
    }
    return 0;
}

/* fillna with a method, the running ops (df/running.h), interpolate,
 * reset_index and a merge's index (tile_merge), over A's chunks: every
 * chunk's edge, the edges combined in order (forwards for ffill, backwards
 * for bfill, both ways for a centred window and interpolate: chains of
 * small jobs), and each chunk filled from the carry of its neighbours. */
static tgrid_t *carry_chain(tctx_t *c, int node, const tgrid_t *A, bool backwards)
{
    int64_t nch = A->nchunks[0];
    op_t op = c->g->nodes[node].op;
    bool filter = op == OP_DF_GROUPBY_HEAD || op == OP_DF_GROUPBY_TAIL; /* rows unknown */
    const int64_t *rows = rows_known(A) && !filter ? A->bounds[0] : NULL;
    if (rows && c->g->nodes[node].df->roll_pair) {
        /* pairwise cov and corr: a row per row and column */
        int64_t nc = c->g->nodes[node].df->ncols, *r2;
        if (nch + 1 > INT_MAX || !(r2 = tile__arena_i64(c, (int)(nch + 1)))) return NULL;
        for (int64_t k = 0; k <= nch; k++)
            r2[k] = rows[k] * nc;
        rows = r2;
    }
    tgrid_t *G = fgrid(c, nch, rows);
    if (!G) return NULL;
    jparam_t *pe = dparam(c, node, DFJ_CARRY_EDGE), *pc = dparam(c, node, DFJ_CARRY_COMBINE);
    jparam_t *pm = dparam(c, node, DFJ_MAP);
    int32_t stat = moment_pass(c, node, A, pe, pc);
    if (stat == -2) return NULL;
    int64_t *after = NULL; /* a centred window: the carry of the chunks after chunk k */
    bool both = df_run_after(c->g->nodes[node].df, op) || op == OP_DF_INTERPOLATE ||
                (op == OP_DF_MERGE_ASOF && c->g->nodes[node].df->adir == DF_AD_NEAREST);
    if (both && !backwards) {
        if (nch > INT_MAX || !(after = tile__arena_i64(c, (int)nch)) ||
            back_chain(c, A, pe, pc, stat, after))
            return NULL;
    }
    int32_t carry = -1; /* the carry of the chunks already passed */
    for (int64_t q = 0; q < nch; q++) {
        int64_t k = backwards ? nch - 1 - q : q;
        bool aft = after && after[k] >= 0;
        int32_t mj = sjob(c, pm, 1 + (carry >= 0) + aft, stat);
        if (mj < 0) return NULL;
        tile__jin_direct(c, mj, 0, A->job[k]);
        if (carry >= 0) {
            tile__jin_direct(c, mj, 1, carry);
            c->t->jobs[mj].off[0] = 1;
        }
        if (aft) {
            tile__jin_direct(c, mj, 1 + (carry >= 0), (int32_t)after[k]);
            c->t->jobs[mj].off[0] |= 2;
        }
        G->job[k] = mj;
        if (q == nch - 1) break;
        /* cumulative ops fold the chunk's own values into the carry (the
         * same sequential sums as pandas'); the others combine edges */
        const graph_node_t *n = &c->g->nodes[node];
        bool raw = n->op == OP_DF_CUMSUM || n->op == OP_DF_CUMPROD || n->op == OP_DF_CUMMAX ||
                   n->op == OP_DF_CUMMIN || n->op == OP_DF_EWM || n->op == OP_DF_EXPANDING ||
                   df_run_state(n->df, n->op) || n->op == OP_DF_GROUPBY_TRANSFORM || filter;
        if (carry < 0 || !raw) {
            if ((carry = edge_step(c, pe, pc, carry, A->job[k], 0, stat)) < 0) return NULL;
            continue;
        }
        int32_t cj = sjob(c, pc, 2, stat);
        if (cj < 0) return NULL;
        tile__jin_direct(c, cj, 0, carry);
        tile__jin_direct(c, cj, 1, A->job[k]);
        carry = cj;
    }
    return G;
}

static tgrid_t *sample_sort(tctx_t *c, int node, const tgrid_t *A, const int32_t *extra,
                            int64_t nx);

/* The chain of a side's last keys before each chunk: kc[k] the job of the
 * chunks before chunk k (-1: none), edge and combine jobs off[1] = 3. */
static int key_chain(tctx_t *c, int node, const tgrid_t *A, int side, int32_t *kc)
{
    jparam_t *pe = dparam(c, node, DFJ_CARRY_EDGE), *pc = dparam(c, node, DFJ_CARRY_COMBINE);
    int32_t carry = -1;
    for (int64_t k = 0; k < A->nchunks[0]; k++) {
        kc[k] = carry;
        if (k + 1 == A->nchunks[0]) break;
        int32_t ej = bjob(c, pe, 1);
        if (ej < 0) return -1;
        tile__jin_direct(c, ej, 0, A->job[k]);
        c->t->jobs[ej].off[0] = side;
        c->t->jobs[ej].off[1] = 3;
        if (carry >= 0) {
            int32_t cj = bjob(c, pc, 2);
            if (cj < 0) return -1;
            tile__jin_direct(c, cj, 0, carry);
            tile__jin_direct(c, cj, 1, ej);
            c->t->jobs[cj].off[0] = side;
            c->t->jobs[cj].off[1] = 3;
            ej = cj;
        }
        carry = ej;
    }
    return 0;
}

/* merge_asof nearest, and the others over more chunks than
 * tile_merge_asof_inplace's pieces suit (df/asof.h): every chunk of both
 * sides tagged into a union frame (checked against the last key of its
 * side's chunks before: key_chain), the union sample-sorted by key, then
 * the carry of right rows along the sorted parts (backwards for forward,
 * both ways for nearest), each part's left rows matched */
static tgrid_t *tile_merge_asof(tctx_t *c, int node)
{
    const tgrid_t *L = in_grid(c, node, 0), *R = in_grid(c, node, 1);
    int64_t nl = L->nchunks[0], nr = R->nchunks[0];
    tgrid_t *U = fgrid(c, nl + nr, NULL);
    if (!U) return NULL;
    jparam_t *pm = dparam(c, node, DFJ_MAP);
    int32_t *kc = malloc(sizeof(int32_t) * (size_t)(nl + nr + 1));
    if (!kc) {
        tile__fail(c, "out of memory while tiling");
        return NULL;
    }
    for (int side = 0; side < 2; side++) {
        const tgrid_t *A = side ? R : L;
        if (key_chain(c, node, A, side, kc)) {
            free(kc);
            return NULL;
        }
        for (int64_t k = 0; k < A->nchunks[0]; k++) {
            int32_t tj = bjob(c, pm, 1 + (kc[k] >= 0));
            if (tj < 0) {
                free(kc);
                return NULL;
            }
            tile__jin_direct(c, tj, 0, A->job[k]);
            if (kc[k] >= 0) tile__jin_direct(c, tj, 1, kc[k]);
            c->t->jobs[tj].off[0] = side;
            c->t->jobs[tj].off[1] = k;
            c->t->jobs[tj].off[2] = 1;
            U->job[side ? nl + k : k] = tj;
        }
    }
    free(kc);
    const tgrid_t *G = sample_sort(c, node, U, NULL, 0);
    return G ? carry_chain(c, node, G, c->g->nodes[node].df->adir == DF_AD_FORWARD) : NULL;
}

/* merge_asof backward or forward (df/asof.h): each left chunk matched
 * where it is. Its bounds (a job per chunk, checking its keys against the
 * chunks before), every right chunk's rows routed by those bounds to the
 * left chunks that can use them (a pack), a carry of right rows along the
 * left chunks (forward: from the last), each reading its chunk's parts;
 * each left chunk matched with its parts and the carry. */
static tgrid_t *tile_merge_asof_inplace(tctx_t *c, int node)
{
    const tgrid_t *L = in_grid(c, node, 0), *R = in_grid(c, node, 1);
    int64_t nl = L->nchunks[0], nr = R->nchunks[0];
    bool fwd = c->g->nodes[node].df->adir == DF_AD_FORWARD;
    if (nl + nr > INT_MAX / 4) {
        tile__fail(c, "too many chunks");
        return NULL;
    }
    int32_t *kl = malloc(sizeof(int32_t) * (size_t)(2 * (nl + nr) + 3 + nl));
    if (!kl) {
        tile__fail(c, "out of memory while tiling");
        return NULL;
    }
    int32_t *kr = kl + nl + 1, *packs = kr + nr + 1;
    tgrid_t *G = NULL;
    jparam_t *pm = dparam(c, node, DFJ_MAP), *pp = dparam(c, node, DFJ_SORT_PART);
    int32_t sp, *bj = packs; /* the bounds jobs, before the packs take their place */
    if (key_chain(c, node, L, 0, kl) || key_chain(c, node, R, 1, kr)) goto done;
    for (int64_t k = 0; k < nl; k++) {
        if ((bj[k] = bjob(c, pm, 1 + (kl[k] >= 0))) < 0) goto done;
        tile__jin_direct(c, bj[k], 0, L->job[k]);
        if (kl[k] >= 0) tile__jin_direct(c, bj[k], 1, kl[k]);
        c->t->jobs[bj[k]].off[2] = 2;
    }
    if ((sp = bjob(c, dparam(c, node, DFJ_SORT_SPLIT), (int)nl)) < 0) goto done;
    c->t->jobs[sp].off[3] = 1; /* off[3] 1: in place (dfexec's asof_inplace) */
    for (int64_t k = 0; k < nl; k++)
        tile__jin_direct(c, sp, (int)k, bj[k]);
    jparam_t *pr = dparam(c, node, DFJ_SORT_RANGE);
    for (int64_t j = 0; j < nr; j++) {
        int32_t rj = bjob(c, pr, 2 + (kr[j] >= 0));
        if (rj < 0) goto done;
        tile__jin_direct(c, rj, 0, R->job[j]);
        tile__jin_direct(c, rj, 1, sp);
        if (kr[j] >= 0) tile__jin_direct(c, rj, 2, kr[j]);
        c->t->jobs[rj].off[3] = 1;
        packs[j] = rj;
    }
    if (!(G = fgrid(c, nl, rows_known(L) ? L->bounds[0] : NULL))) goto done;
    /* off[0] the left chunk, off[1] 1 the carry step, 2 the match; off[2]
     * 1 when the carry is the last input (the map: the chunk before it) */
    int32_t carry = -1;
    for (int64_t q = 0; q < nl; q++) {
        int64_t k = fwd ? nl - 1 - q : q;
        int32_t mj = bjob(c, pp, (int)nr + 1 + (carry >= 0));
        if (mj < 0) {
            G = NULL;
            goto done;
        }
        for (int64_t j = 0; j < nr; j++)
            tile__jin_direct(c, mj, (int)j, packs[j]);
        tile__jin_direct(c, mj, (int)nr, L->job[k]);
        if (carry >= 0) tile__jin_direct(c, mj, (int)nr + 1, carry);
        c->t->jobs[mj].off[0] = k;
        c->t->jobs[mj].off[1] = 2;
        c->t->jobs[mj].off[2] = carry >= 0;
        c->t->jobs[mj].off[3] = 1;
        G->job[k] = mj;
        if (q + 1 == nl) break;
        int32_t cj = bjob(c, pp, (int)nr + (carry >= 0));
        if (cj < 0) {
            G = NULL;
            goto done;
        }
        for (int64_t j = 0; j < nr; j++)
            tile__jin_direct(c, cj, (int)j, packs[j]);
        if (carry >= 0) tile__jin_direct(c, cj, (int)nr, carry);
        c->t->jobs[cj].off[0] = k;
        c->t->jobs[cj].off[1] = 1;
        c->t->jobs[cj].off[2] = carry >= 0;
        c->t->jobs[cj].off[3] = 1;
        carry = cj;
    }
done:
    free(kl);
    return G;
}

/* cut (df/cut.h): with bins a count, every chunk's range (edge jobs, a
 * tree of combines) read by each chunk's map; qcut, the quantiles of
 * every value (one job) read by each map; else the maps alone */
static tgrid_t *tile_cut(tctx_t *c, int node)
{
    const df_node_t *d = c->g->nodes[node].df;
    if (d->cut_n == 0 && !d->cut_q) return tile_rowwise(c, node, DFJ_MAP, true);
    const tgrid_t *A = in_grid(c, node, 0);
    int64_t nch = A->nchunks[0];
    int32_t *parts = malloc(sizeof(int32_t) * (size_t)(nch + 1)), root;
    if (!parts) {
        tile__fail(c, "out of memory while tiling");
        return NULL;
    }
    tgrid_t *G = NULL;
    if (d->cut_q) { /* qcut: one job reads every value for the quantiles */
        if ((root = all_job(c, dparam(c, node, DFJ_CARRY_EDGE), A, 0, 0)) < 0 ||
            !(G = fgrid(c, nch, rows_known(A) ? A->bounds[0] : NULL)))
            goto done;
    } else if (chunk_jobs(c, dparam(c, node, DFJ_CARRY_EDGE), A, 0, parts) ||
               (root = tree(c, node, DFJ_CARRY_COMBINE, parts, nch, -1)) < 0 ||
               !(G = fgrid(c, nch, rows_known(A) ? A->bounds[0] : NULL)))
        goto done;
    jparam_t *pm = dparam(c, node, DFJ_MAP);
    for (int64_t k = 0; k < nch; k++) {
        int32_t mj = bjob(c, pm, 2);
        if (mj < 0) {
            G = NULL;
            goto done;
        }
        tile__jin_direct(c, mj, 0, A->job[k]);
        tile__jin_direct(c, mj, 1, root);
        G->job[k] = mj;
    }
done:
    free(parts);
    return G;
}

static tgrid_t *tile_carry(tctx_t *c, int node, bool backwards)
{
    return carry_chain(c, node, in_grid(c, node, 0), backwards);
}

/* One DFJ_MAP job per chunk of A (off[0] = 1), each reading its chunk and
 * the one job `shared` (a carry or an aggregate): the chunks of A's rows */
static tgrid_t *maps_of_shared(tctx_t *c, int node, const tgrid_t *A, int32_t shared)
{
    int64_t nch = A->nchunks[0];
    tgrid_t *G = fgrid(c, nch, rows_known(A) ? A->bounds[0] : NULL);
    if (!G) return NULL;
    jparam_t *pm = dparam(c, node, DFJ_MAP);
    for (int64_t k = 0; k < nch; k++) {
        int32_t mj = bjob(c, pm, 2);
        if (mj < 0) return NULL;
        tile__jin_direct(c, mj, 0, A->job[k]);
        tile__jin_direct(c, mj, 1, shared);
        c->t->jobs[mj].off[0] = 1;
        G->job[k] = mj;
    }
    return G;
}

/* groupby_transform's statistics and ngroup, groupby_size: every chunk
 * folded into the carry in order (the first chunk's edge, then a chain of
 * combines); for size and ngroup one job sorts that carry's groups; then
 * each chunk's rows read from the carry of them all (size: that job's
 * result is the op's) */
static tgrid_t *tile_gb_bcast(tctx_t *c, int node)
{
    const tgrid_t *A = in_grid(c, node, 0);
    int64_t nch = A->nchunks[0];
    bool size = c->g->nodes[node].op == OP_DF_GROUPBY_SIZE;
    if (nch == 0) {
        tile__fail(c, "internal: a frame with no chunks");
        return NULL;
    }
    jparam_t *pe = dparam(c, node, DFJ_CARRY_EDGE), *pc = dparam(c, node, DFJ_CARRY_COMBINE);
    jparam_t *pm = dparam(c, node, DFJ_MAP);
    int32_t carry = bjob(c, pe, 1);
    if (carry < 0) return NULL;
    tile__jin_direct(c, carry, 0, A->job[0]);
    for (int64_t k = 1; k < nch; k++) {
        int32_t cj = bjob(c, pc, 2);
        if (cj < 0) return NULL;
        tile__jin_direct(c, cj, 0, carry);
        tile__jin_direct(c, cj, 1, A->job[k]);
        carry = cj;
    }
    const df_node_t *d = c->g->nodes[node].df;
    if (size || d->pv_agg == DF3_TF_NGROUP) {
        /* the groups sorted by key once (off[0] = 2: the carry alone):
         * size's result, or ngroup's carry numbered */
        int32_t fj = bjob(c, pm, 1);
        if (fj < 0) return NULL;
        tile__jin_direct(c, fj, 0, carry);
        c->t->jobs[fj].off[0] = 2;
        if (size) return one_chunk(c, fj, d->nrows);
        carry = fj;
    }
    return maps_of_shared(c, node, A, carry);
}

static int64_t nparts_for(int64_t nch)
{
    return nch < 1 ? 1 : nch > DF_MAX_PARTS ? DF_MAX_PARTS : nch;
}

/* Every chunk of A into a pack of np parts by the node's keys (side 0:
 * by/left on, 1: right on). packs[k]: the jobs. pos: the rows carry their
 * position (a merge's side, DFJ_MERGE_ORDER), chunk << 32 | row; with
 * piece > 0 (rows known), output chunk << 32 | row instead, each chunk's
 * rows cut into pieces of that many rows numbered on from the chunks
 * before (off[2]: the chunk's first piece, off[3]: 1 + piece). Returns
 * the number of pieces (the chunks when piece is 0), -1 on failure. */
static int64_t hash_packs(tctx_t *c, int node, const tgrid_t *A, int64_t np, int side, bool pos,
                          int64_t piece, int32_t *packs)
{
    jparam_t *pa = dparam(c, node, DFJ_HASH_PART);
    int64_t at = 0;
    for (int64_t k = 0; k < A->nchunks[0]; k++) {
        int32_t ji = bjob(c, pa, 1);
        if (ji < 0) return -1;
        tile__jin_direct(c, ji, 0, A->job[k]);
        c->t->jobs[ji].off[0] = np;
        c->t->jobs[ji].off[1] = side;
        c->t->jobs[ji].off[2] = piece > 0 ? at : k;
        c->t->jobs[ji].off[3] = pos ? 1 + piece : 0;
        int64_t rows = piece > 0 ? A->bounds[0][k + 1] - A->bounds[0][k] : 0;
        at += piece > 0 && rows > piece ? (rows + piece - 1) / piece : 1;
        packs[k] = ji;
    }
    return at;
}

/* np jobs of step k, job p reading part p of each of the n packs (their
 * off[0] = p), and then job last's result whole when last >= 0: into
 * out[0..np). 0, or -1 when tiling failed. */
static int part_jobs(tctx_t *c, int node, dfjob_t k, const int32_t *packs, int64_t n, int64_t np,
                     int32_t last, int32_t *out)
{
    if (n > INT_MAX) {
        tile__fail(c, "too many chunks");
        return -1;
    }
    jparam_t *pp = dparam(c, node, k);
    for (int64_t p = 0; p < np; p++) {
        int32_t ji = bjob(c, pp, (int)n + (last >= 0));
        if (ji < 0) return -1;
        for (int64_t q = 0; q < n; q++)
            tile__jin_direct(c, ji, (int)q, packs[q]);
        if (last >= 0) tile__jin_direct(c, ji, (int)n, last);
        c->t->jobs[ji].off[0] = p;
        out[p] = ji;
    }
    return 0;
}

/* one DFJ_GB_PART job per part p of every chunk's pack (off[1] = mode: 0
 * rows, 1 partials, 2 rows aggregated whole), then one job merging their
 * results in key order */
static tgrid_t *parts_merged(tctx_t *c, int node, const int32_t *packs, int64_t nch, int64_t np,
                             int mode, int32_t *fin)
{
    if (part_jobs(c, node, DFJ_GB_PART, packs, nch, np, -1, fin)) return NULL;
    for (int64_t p = 0; p < np; p++)
        c->t->jobs[fin[p]].off[1] = mode;
    int32_t mj = bjob(c, dparam(c, node, DFJ_GB_MERGE), (int)np);
    if (mj < 0) return NULL;
    for (int64_t p = 0; p < np; p++)
        tile__jin_direct(c, mj, (int)p, fin[p]);
    return one_chunk(c, mj, -1);
}

static tgrid_t *tile_whole(tctx_t *c, int node);
static tgrid_t *tile_whole_of(tctx_t *c, int node, const tgrid_t *A);

/* groupby_agg's funcs that read all of a group's values at once (median,
 * prod, idxmin, idxmax) and groupby_quantile: the rows (A's chunks)
 * shuffled by key, each part aggregated whole over its groups' rows in
 * their order (GB_PART off[1] = 2), the parts' results merged in key order */
static tgrid_t *tile_gb_parts(tctx_t *c, int node, const tgrid_t *A)
{
    int64_t nch = A->nchunks[0], np = nparts_for(nch);
    int32_t *parts = malloc(sizeof(int32_t) * (size_t)(nch + np + 1));
    tgrid_t *G = NULL;
    if (!parts) {
        tile__fail(c, "out of memory while tiling");
        return NULL;
    }
    jparam_t *pa = dparam(c, node, DFJ_HASH_PART);
    for (int64_t k = 0; k < nch; k++) {
        int32_t hj = bjob(c, pa, 1);
        if (hj < 0) goto done;
        tile__jin_direct(c, hj, 0, A->job[k]);
        c->t->jobs[hj].off[0] = np;
        parts[k] = hj;
    }
    G = parts_merged(c, node, parts, nch, np, 2, parts + nch);
done:
    free(parts);
    return G;
}

/* groupby_agg's plans over A's chunks (the input's, or resample's bin
 * step's), nrows rows (-1: unknown) */
static tgrid_t *tile_groupby(tctx_t *c, int node, const tgrid_t *A, int64_t nrows)
{
    int64_t nch = A->nchunks[0];
    bool shuffle = nch > DF_GB_TREE_CHUNKS && (nrows < 0 || nrows > DF_GB_TREE_ROWS);
    int32_t *parts = malloc(sizeof(int32_t) * (size_t)(nch + DF_MAX_PARTS + 1));
    if (!parts) {
        tile__fail(c, "out of memory while tiling");
        return NULL;
    }
    tgrid_t *G = NULL;
    const df_node_t *d = c->g->nodes[node].df;
    if (d->gb_whole && !d->gb_flat && !d->gb_keepna && nch > 1) {
        free(parts);
        return tile_gb_parts(c, node, A);
    }
    if (d->gb_whole) {
        free(parts);
        return tile_whole_of(c, node, A);
    }
    if (!shuffle) {
        jparam_t *pm = dparam(c, node, DFJ_GB_MAP);
        for (int64_t k = 0; k < nch; k++) {
            int32_t ji = bjob(c, pm, 1);
            if (ji < 0) goto done;
            tile__jin_direct(c, ji, 0, A->job[k]);
            parts[k] = ji;
        }
        int32_t top = tree(c, node, DFJ_GB_COMBINE, parts, nch, -1);
        int32_t fj = top < 0 ? -1 : bjob(c, dparam(c, node, DFJ_GB_FINAL), 1);
        if (fj < 0) goto done;
        tile__jin_direct(c, fj, 0, top);
        G = one_chunk(c, fj, -1);
        goto done;
    }
    /* Each chunk's partial aggregates first, then those shuffled by key:
     * with few groups the shuffle moves a few rows per chunk instead of
     * every row, and with all keys distinct the partials are no larger
     * than the rows. (HASH_PART and GB_PART with off[1] = 1: keys in the
     * index, rows are partials.) */
    int64_t np = nparts_for(nch);
    jparam_t *pm = dparam(c, node, DFJ_GB_MAP), *pa = dparam(c, node, DFJ_HASH_PART);
    for (int64_t k = 0; k < nch; k++) {
        int32_t mj = bjob(c, pm, 1), hj = mj < 0 ? -1 : bjob(c, pa, 1);
        if (hj < 0) goto done;
        tile__jin_direct(c, mj, 0, A->job[k]);
        tile__jin_direct(c, hj, 0, mj);
        c->t->jobs[hj].off[0] = np;
        c->t->jobs[hj].off[1] = 1;
        parts[k] = hj;
    }
    G = parts_merged(c, node, parts, nch, np, 1, parts + nch);
done:
    free(parts);
    return G;
}

/* groupby_transform of groupby_agg's funcs (median, prod, first, last,
 * size, nunique: df3_gb_lookup): the node's groupby_agg over every chunk
 * into one chunk (median and prod: the rows shuffled by key, each part
 * aggregated whole; the others: the tree, or the shuffle of partials, as
 * groupby_agg's), then each chunk's map reads its rows' groups from it,
 * so the result keeps the input's chunks */
static tgrid_t *tile_gb_lookup(tctx_t *c, int node)
{
    const tgrid_t *A = in_grid(c, node, 0);
    const df_node_t *d = c->g->nodes[node].df;
    const tgrid_t *R =
        d->gb_whole ? tile_gb_parts(c, node, A)
                    : tile_groupby(c, node, A, c->g->nodes[c->g->nodes[node].in[0].node].df->nrows);
    return R ? maps_of_shared(c, node, A, R->job[0]) : NULL;
}

/* resample (df/resample.h): the span when the bins need it (a map per
 * chunk, a combine tree), a bin job per chunk, groupby_agg's plans over
 * the bin jobs, and one job filling the empty bins */
static tgrid_t *tile_resample(tctx_t *c, int node)
{
    const df_node_t *d = c->g->nodes[node].df;
    const tgrid_t *A = in_grid(c, node, 0);
    int64_t nch = A->nchunks[0];
    int32_t *jobs = malloc(sizeof(int32_t) * (size_t)(nch + 1));
    tgrid_t *G = NULL, *B;
    int32_t sp = -1;
    if (!jobs) {
        tile__fail(c, "out of memory while tiling");
        return NULL;
    }
    if (d->rs.up) { /* upsampling: one job reindexing every row */
        free(jobs);
        return tile_whole_of(c, node, A);
    }
    if (rs_needs_span(&d->rs)) {
        /* SPAN with one input reads a chunk, with several combines spans */
        if (chunk_jobs(c, dparam(c, node, DFJ_RS_SPAN), A, 0, jobs) ||
            (sp = tree(c, node, DFJ_RS_SPAN, jobs, nch, -1)) < 0)
            goto done;
    }
    if (chunk_jobs(c, dparam(c, node, DFJ_RS_BIN), A, sp >= 0, jobs) ||
        !(B = fgrid(c, nch, rows_known(A) ? A->bounds[0] : NULL)))
        goto done;
    for (int64_t k = 0; k < nch; k++) {
        if (sp >= 0) tile__jin_direct(c, jobs[k], 1, sp);
        B->job[k] = jobs[k];
    }
    /* first and last: the bin frames sorted by time (d->sort) */
    int64_t rows = c->g->nodes[c->g->nodes[node].in[0].node].df->nrows;
    if (d->sort.nby > 0 && !(B = sample_sort(c, node, B, NULL, 0))) goto done;
    const tgrid_t *R = tile_groupby(c, node, B, rows);
    int32_t fj = R ? bjob(c, dparam(c, node, DFJ_RS_FILL), 1) : -1;
    if (fj < 0) goto done;
    tile__jin_direct(c, fj, 0, R->job[0]);
    G = one_chunk(c, fj, -1);
done:
    free(jobs);
    return G;
}

/* sort_values' sample sort of A's chunks by the node's sort spec: a sample
 * of each chunk, the splitters from every sample (then the nx jobs extra
 * after them: an index join's checks, tile_index_order), each chunk cut by
 * them (off[0] the chunk of off[1]) and one job per part sorting its
 * pieces (reading the splitters last too when nx > 0: an index join's
 * parts may keep the chunks whole instead). */
static tgrid_t *sample_sort(tctx_t *c, int node, const tgrid_t *A, const int32_t *extra, int64_t nx)
{
    int64_t nch = A->nchunks[0], np = nparts_for(nch);
    if (nch + nx > INT_MAX / 2) {
        tile__fail(c, "too many chunks");
        return NULL;
    }
    int32_t *samp = malloc(sizeof(int32_t) * (size_t)(2 * nch + 1));
    if (!samp) {
        tile__fail(c, "out of memory while tiling");
        return NULL;
    }
    tgrid_t *G = NULL;
    int32_t *packs = samp + nch, sp;
    if (chunk_jobs(c, dparam(c, node, DFJ_SORT_SAMPLE), A, 0, samp) ||
        (sp = bjob(c, dparam(c, node, DFJ_SORT_SPLIT), (int)(nch + nx))) < 0)
        goto done;
    c->t->jobs[sp].off[0] = np;
    c->t->jobs[sp].off[1] = nch;
    for (int64_t k = 0; k < nch; k++)
        tile__jin_direct(c, sp, (int)k, samp[k]);
    for (int64_t q = 0; q < nx; q++)
        tile__jin_direct(c, sp, (int)(nch + q), extra[q]);
    if (chunk_jobs(c, dparam(c, node, DFJ_SORT_RANGE), A, 1, packs)) goto done;
    for (int64_t k = 0; k < nch; k++) {
        tile__jin_direct(c, packs[k], 1, sp);
        c->t->jobs[packs[k]].off[0] = k;
        c->t->jobs[packs[k]].off[1] = nch;
    }
    if (!(G = fgrid(c, np, NULL))) goto done;
    jparam_t *pp = dparam(c, node, DFJ_SORT_PART);
    for (int64_t p = 0; p < np; p++) {
        int32_t ji = bjob(c, pp, (int)nch + (nx > 0));
        if (ji < 0) {
            G = NULL;
            goto done;
        }
        for (int64_t k = 0; k < nch; k++)
            tile__jin_direct(c, ji, (int)k, packs[k]);
        if (nx > 0) tile__jin_direct(c, ji, (int)nch, sp);
        c->t->jobs[ji].off[0] = p;
        G->job[p] = ji;
    }
done:
    free(samp);
    return G;
}

static tgrid_t *tile_sort(tctx_t *c, int node)
{
    return sample_sort(c, node, in_grid(c, node, 0), NULL, 0);
}

/* sum, mean, ...: tile_reduce_df's ops (a value per column) */
static bool df_reduction(op_t op)
{
    switch (op) {
    case OP_DF_SUM:
    case OP_DF_MEAN:
    case OP_DF_MIN:
    case OP_DF_MAX:
    case OP_DF_COUNT:
    case OP_DF_PROD:
    case OP_DF_STD:
    case OP_DF_VAR:
    case OP_DF_ANY:
    case OP_DF_ALL:
    case OP_DF_NUNIQUE:
        return true;
    default:
        return false;
    }
}

/* Whether node's row order (order) or its index (!order) can be seen by
 * what follows it. Neither by reductions, describe, nunique and groupby
 * aggregations (but first and last, which take rows in order, and idxmin
 * and idxmax, which give index labels); the index
 * not by to_tensor and merges on columns either. A fetch sees the order
 * but not the index: a merge's default index is renumbered when the
 * result is assembled. */
static bool seen(tctx_t *c, int node, bool order)
{
    if (order && c->g->nodes[node].fetch) return true;
    for (int i = 0; i < c->g->n_nodes; i++) {
        const graph_node_t *m = &c->g->nodes[i];
        bool uses = false;
        for (int q = 0; q < m->n_in; q++)
            uses |= m->in[q].node == node;
        if (!uses || df_reduction(m->op)) continue;
        switch (m->op) {
        case OP_DF_DESCRIBE:
            continue;
        case OP_DF_GROUPBY_AGG:
            for (int q = 0; q < m->df->gb.nagg; q++) {
                agg_func_t f = m->df->gb.agg[q].func;
                /* idxmin and idxmax give labels: the index, in its order */
                if (f == AGG_IDXMIN || f == AGG_IDXMAX ||
                    (order && (f == AGG_FIRST || f == AGG_LAST)))
                    return true;
            }
            continue;
        case OP_DF_TO_TENSOR:
            if (order) return true;
            continue;
        case OP_DF_MERGE: /* a merge on columns renumbers, join's on= keeps left's */
            if (order || m->df->merge.index || (m->df->merge.rindex && m->in[0].node == node) ||
                (m->df->merge.lindex && m->in[1].node == node))
                return true;
            continue;
        default:
            return true;
        }
    }
    return false;
}

/* Whether S (ncols columns and index levels) is small enough to be read
 * whole by every chunk of B: at most DF_BCAST_CHUNKS chunks (each job
 * reads them all); its rows known, at most DF_BCAST_ROWS, at
 * most DF_BCAST_BYTES at 8 bytes a value, and, where B's are known, at
 * most half of B's and twice B's rows a chunk; or, its rows unknown (after a filter), one chunk
 * beside B's several (a job then holds a chunk of each side, as a hash part's job holds parts of
 * both). */
static bool small_beside(const tgrid_t *S, int ncols, const tgrid_t *B)
{
    if (S->nchunks[0] > DF_BCAST_CHUNKS) return false;
    if (!rows_known(S)) return S->nchunks[0] == 1 && B->nchunks[0] > 1;
    int64_t s = S->bounds[0][S->nchunks[0]];
    if (s > DF_BCAST_ROWS || s * 8 * (int64_t)ncols > DF_BCAST_BYTES) return false;
    if (!rows_known(B)) return true;
    /* each of B's jobs builds a table of S's rows: at most twice a chunk's */
    int64_t b = B->bounds[0][B->nchunks[0]];
    return 2 * s <= b && s * B->nchunks[0] <= 2 * b;
}

/* A merge with a small side runs as one job per chunk of the large side,
 * each reading the whole small side (DFJ_MERGE_BCAST): no hash packs and
 * no parts, and each chunk's rows come out in the large side's order,
 * pandas' order for how left (left large) and how right (right large, the
 * job puts its rows in right's order). Returns the large side (0 left, 1
 * right), or -1 to merge by hash parts: outer's unmatched right keys come
 * after all of left's, and an inner merge seen in order groups its rows by
 * key over the whole of left (pandas 1.5: tile_merge_keyed). */
static int bcast_side(tctx_t *c, int node, bool order)
{
    const graph_node_t *n = &c->g->nodes[node];
    const tgrid_t *L = in_grid(c, node, 0), *R = in_grid(c, node, 1);
    const df_node_t *l = c->g->nodes[n->in[0].node].df, *r = c->g->nodes[n->in[1].node].df;
    bool rsmall = small_beside(R, r->ncols + r->nidx, L);
    bool lsmall = small_beside(L, l->ncols + l->nidx, R);
    switch (n->df->merge.how) {
    case MERGE_LEFT:
        return rsmall ? 0 : -1;
    case MERGE_RIGHT:
        return lsmall ? 1 : -1;
    case MERGE_INNER:
        return order ? -1 : rsmall ? 0 : lsmall ? 1 : -1;
    default:
        return -1;
    }
}

static tgrid_t *tile_merge_bcast(tctx_t *c, int node, int big, bool order)
{
    const tgrid_t *B = in_grid(c, node, big), *S = in_grid(c, node, 1 - big);
    const graph_node_t *n = &c->g->nodes[node];
    int64_t nb = B->nchunks[0];
    tgrid_t *G = fgrid(c, nb, NULL);
    if (!G) return NULL;
    jparam_t *pb = dparam(c, node, DFJ_MERGE_BCAST);
    for (int64_t k = 0; k < nb; k++) {
        int32_t ji = all_job(c, pb, S, 1, 0);
        if (ji < 0) return NULL;
        tile__jin_direct(c, ji, 0, B->job[k]);
        c->t->jobs[ji].off[0] = big;
        c->t->jobs[ji].off[1] = order && n->df->merge.how == MERGE_RIGHT;
        c->t->jobs[ji].off[3] = !order && !n->fetch;
        G->job[k] = ji;
    }
    /* as tile_merge's: each chunk's default index made concrete */
    if (!merge_keeps_index(&n->df->merge) && seen(c, node, false))
        G = carry_chain(c, node, G, false);
    return G;
}

/* Whether an inner merge seen in order has a right side small enough for
 * tile_merge_keyed: left at most DF_KEYED_CHUNKS chunks, right
 * small_beside it, and the key lists (a pair per key for
 * each chunk of left, all held by the plan's job) bounded: left's chunks
 * times right's rows at most 2^22, or, right's rows unknown (one chunk),
 * at most 16 chunks of left. */
static bool keyed_ok(tctx_t *c, int node)
{
    const graph_node_t *n = &c->g->nodes[node];
    const tgrid_t *L = in_grid(c, node, 0), *R = in_grid(c, node, 1);
    const df_node_t *r = c->g->nodes[n->in[1].node].df;
    int64_t nl = L->nchunks[0];
    if (nl > DF_KEYED_CHUNKS || !small_beside(R, r->ncols + r->nidx, L)) return false;
    if (!rows_known(R)) return nl <= 16;
    return nl * R->bounds[0][R->nchunks[0]] <= ((int64_t)1 << 22);
}

/* An inner merge seen in order, with a small right side (keyed_ok).
 * pandas 1.5 groups the rows by key, the keys in the order they first
 * appear in left, each key's left rows in order with their matches in
 * right's order: the rows of one key in one chunk of left are consecutive
 * there, and come after that key's rows of the chunks before. So each
 * chunk's keys and row counts (DFJ_MERGE_BKEYS) give every row its place
 * in the whole merge (DFJ_MERGE_BPLAN), each chunk is merged with right
 * whole and its rows cut by output chunk (DFJ_MERGE_BPART), and each
 * output chunk puts its rows in place (DFJ_MERGE_ORDER, off[1] = 1: no
 * sort). The place is also the row's label, pandas' default index, so
 * nothing is relabelled after (no carry_chain). Output chunks are
 * even, however few the keys (the partitioned merge puts every row of a
 * key in the chunk where the key first appears). */
static tgrid_t *tile_merge_keyed(tctx_t *c, int node)
{
    const tgrid_t *L = in_grid(c, node, 0), *R = in_grid(c, node, 1);
    int64_t nl = L->nchunks[0];
    int32_t *kj = malloc(sizeof(int32_t) * (size_t)(2 * nl + 1));
    if (!kj) {
        tile__fail(c, "out of memory while tiling");
        return NULL;
    }
    int32_t *pj = kj + nl;
    tgrid_t *G = NULL;
    jparam_t *pk = dparam(c, node, DFJ_MERGE_BKEYS), *pp = dparam(c, node, DFJ_MERGE_BPART);
    for (int64_t k = 0; k < nl; k++) {
        int32_t ji = all_job(c, pk, R, 1, 0);
        if (ji < 0) goto done;
        tile__jin_direct(c, ji, 0, L->job[k]);
        kj[k] = ji;
    }
    int32_t plan = bjob(c, dparam(c, node, DFJ_MERGE_BPLAN), (int)nl);
    if (plan < 0) goto done;
    c->t->jobs[plan].off[0] = nl;
    for (int64_t k = 0; k < nl; k++)
        tile__jin_direct(c, plan, (int)k, kj[k]);
    for (int64_t k = 0; k < nl; k++) {
        int32_t ji = all_job(c, pp, R, 2, 0);
        if (ji < 0) goto done;
        tile__jin_direct(c, ji, 0, L->job[k]);
        tile__jin_direct(c, ji, 1, plan);
        c->t->jobs[ji].off[0] = k;
        c->t->jobs[ji].off[2] = nl;
        pj[k] = ji;
    }
    if (!(G = fgrid(c, nl, NULL)) || part_jobs(c, node, DFJ_MERGE_ORDER, pj, nl, nl, -1, G->job)) {
        G = NULL;
        goto done;
    }
    for (int64_t j = 0; j < nl; j++) /* the positions are the rows' places */
        c->t->jobs[G->job[j]].off[1] = 1;
done:
    free(kj);
    return G;
}

/* A join on the index seen in order: G (pandas' order when each side's
 * labels are unique, as tile_merge made it) sorted by the key where pandas
 * sorts it. pandas 1.5's Index.join sorts the result by key (stably:
 * each key's rows as they come) when a side's labels repeat, and an
 * "outer" join (the union of the labels) unless both sides hold the very
 * same labels in the same order; not when a side has no rows. Only the
 * data says which: each side's index (only it) is hashed into np parts
 * with each row's position (DFJ_JOIN_KEYS), each part counts rows,
 * repeated labels and labels not in the same place on both sides
 * (DFJ_JOIN_CHECK), and the sort's splitter job (DFJ_SORT_SPLIT, after
 * every chunk's sample) reads those counts: sorted as sort_values sorts,
 * or, nothing to sort, splitters that keep each chunk whole and in order
 * (dfexec.c). Positions are chunk << 32 | row, made the row's place in
 * its whole side by the check from every chunk's row count, which each
 * KEYS pack carries as its last part (read alone, with the others, by one
 * DFJ_JOIN_COUNT job). */
static tgrid_t *tile_index_order(tctx_t *c, int node, const tgrid_t *G)
{
    const tgrid_t *S[2] = {in_grid(c, node, 0), in_grid(c, node, 1)};
    int64_t nsd[2] = {S[0]->nchunks[0], S[1]->nchunks[0]};
    int64_t np = nparts_for(nsd[0] > nsd[1] ? nsd[0] : nsd[1]), nk = nsd[0] + nsd[1];
    if (nk > INT_MAX / 2) {
        tile__fail(c, "too many chunks");
        return NULL;
    }
    int32_t *jb = malloc(sizeof(int32_t) * (size_t)(nk + np + 1));
    if (!jb) {
        tile__fail(c, "out of memory while tiling");
        return NULL;
    }
    int32_t *keys = jb, *checks = jb + nk, cnt;
    tgrid_t *O = NULL;
    jparam_t *pk = dparam(c, node, DFJ_JOIN_KEYS);
    for (int side = 0, at = 0; side < 2; at += (int)nsd[side], side++) {
        if (chunk_jobs(c, pk, S[side], 0, keys + at)) goto done;
        for (int64_t k = 0; k < nsd[side]; k++) {
            c->t->jobs[keys[at + k]].off[0] = np;
            c->t->jobs[keys[at + k]].off[1] = k;
        }
    }
    /* every chunk's row count (the packs' last part), in one column */
    if ((cnt = bjob(c, dparam(c, node, DFJ_JOIN_COUNT), (int)nk)) < 0) goto done;
    c->t->jobs[cnt].off[0] = np;
    for (int64_t q = 0; q < nk; q++)
        tile__jin_direct(c, cnt, (int)q, keys[q]);
    /* each check reads its part of every side's pack, then the counts */
    jparam_t *pj = dparam(c, node, DFJ_JOIN_CHECK);
    for (int64_t p = 0; p < np; p++) {
        int32_t ji = bjob(c, pj, (int)nk + 1);
        if (ji < 0) goto done;
        for (int64_t q = 0; q < nk; q++)
            tile__jin_direct(c, ji, (int)q, keys[q]);
        tile__jin_direct(c, ji, (int)nk, cnt);
        c->t->jobs[ji].off[0] = p;
        c->t->jobs[ji].off[1] = nsd[0];
        checks[p] = ji;
    }
    O = sample_sort(c, node, G, checks, np);
done:
    free(jb);
    return O;
}

static tgrid_t *tile_merge(tctx_t *c, int node)
{
    const tgrid_t *L = in_grid(c, node, 0), *R = in_grid(c, node, 1);
    const merge_spec_t *ms = &c->g->nodes[node].df->merge;
    bool order = seen(c, node, true);
    int big = bcast_side(c, node, order);
    if (big >= 0) {
        tgrid_t *B = tile_merge_bcast(c, node, big, order);
        return B && order && ms->index ? tile_index_order(c, node, B) : B;
    }
    if (order && !merge_keeps_index(ms) && ms->how == MERGE_INNER && keyed_ok(c, node))
        return tile_merge_keyed(c, node);
    int64_t nl = L->nchunks[0], nr = R->nchunks[0];
    int64_t np = nparts_for(nl > nr ? nl : nr);
    int32_t *packs = malloc(sizeof(int32_t) * (size_t)(nl + nr + 1));
    if (!packs) {
        tile__fail(c, "out of memory while tiling");
        return NULL;
    }
    tgrid_t *G = NULL;
    /* merges on columns come in pandas' row order where it can be seen
     * (seen(): not before a sum, say): DFJ_MERGE_ORDER's jobs
     * sort the rows by the positions they carry, one job per chunk of left
     * (inner, left), of right (right), or of left and then of right (outer:
     * right's unmatched keys come last). Joins on the index take the same
     * order, pandas' Index.join when each side's labels are unique, and
     * then the sort by key where pandas sorts (tile_index_order). Their
     * index is the key: no relabelling chain. */
    bool rpos = order && (ms->how == MERGE_RIGHT || ms->how == MERGE_OUTER);
    /* right's rows in order (right, and outer's unmatched keys): with its
     * row counts known, cut into at least as many pieces as either side
     * has chunks, so that a small right side's matches spread over jobs */
    int64_t piece = 0;
    if (rpos && rows_known(R)) {
        int64_t want = nl > nr ? nl : nr, total = R->bounds[0][nr];
        piece = total > want ? (total + want - 1) / want : 1;
    }
    int32_t *parts = NULL;
    int64_t nrp;
    if (hash_packs(c, node, L, np, 0, order && ms->how != MERGE_RIGHT, 0, packs) < 0 ||
        (nrp = hash_packs(c, node, R, np, 1, rpos, piece, packs + nl)) < 0)
        goto done;
    int64_t nouts = ms->how == MERGE_RIGHT ? nrp : ms->how == MERGE_OUTER ? nl + nrp : nl;
    if (order && !(parts = malloc(sizeof(int32_t) * (size_t)np))) {
        tile__fail(c, "out of memory while tiling");
        goto done;
    }
    /* an outer merge in order: where a side has no rows at all, pandas
     * keeps the other's rows in their order, not grouped by key. Every
     * pack ends with its chunk's row count, one job gathers them
     * (DFJ_JOIN_COUNT) and every part reads that. */
    int32_t cnt = -1;
    if (order && ms->how == MERGE_OUTER && !ms->index) {
        if (nl + nr > INT_MAX ||
            (cnt = bjob(c, dparam(c, node, DFJ_JOIN_COUNT), (int)(nl + nr))) < 0)
            goto done;
        c->t->jobs[cnt].off[0] = np;
        for (int64_t q = 0; q < nl + nr; q++)
            tile__jin_direct(c, cnt, (int)q, packs[q]);
    }
    if (!(G = fgrid(c, order ? nouts : np, NULL)) ||
        part_jobs(c, node, DFJ_MERGE_PART, packs, nl + nr, np, cnt, order ? parts : G->job) ||
        (order && part_jobs(c, node, DFJ_MERGE_ORDER, parts, np, nouts, -1, G->job))) {
        G = NULL;
        goto done;
    }
    for (int64_t p = 0; p < np; p++) {
        job_t *jb = &c->t->jobs[order ? parts[p] : G->job[p]];
        jb->off[1] = nl;
        jb->off[2] = order ? nouts : 0; /* a pack split by output chunk */
        /* the parts are the result, read only by the ops after it: every
         * chunk in the validated types (dfexec.c, merge_conform) */
        jb->off[3] = !order && !c->g->nodes[node].fetch;
    }
    /* a merge's default index made concrete (each chunk numbers its rows
     * from 0, renumbered when the result is assembled): ops after it that
     * drop or move rows keep pandas' labels, the rows' positions in the
     * whole merge. reset_index's chain: each chunk's count, the counts
     * summed along the chunks, each chunk relabelled. */
    if (G && order && !merge_keeps_index(ms) && seen(c, node, false))
        G = carry_chain(c, node, G, false);
    if (G && order && ms->index) G = tile_index_order(c, node, G);
done:
    free(parts);
    free(packs);
    return G;
}

/* A DataFrame or Series of an earlier task: its chunks are sources
 * (JK_SOURCE blob jobs; the caller supplies their bytes). */
static tgrid_t *tile_session_frame(tctx_t *c, int node)
{
    const graph_node_t *n = &c->g->nodes[node];
    int64_t nch[MR_MAXDIM] = {0};
    const int64_t *b[MR_MAXDIM] = {0};
    if (!c->opts->source_bounds || c->opts->source_bounds(c->opts->source_ctx, n, nch, b) ||
        nch[0] < 1) {
        tile__fail(c, "internal: no chunks for the session's DataFrame \"%s\"", n->key);
        return NULL;
    }
    tgrid_t *G = fgrid(c, nch[0], NULL);
    if (!G) return NULL;
    for (int64_t k = 0; k < nch[0]; k++) {
        int64_t one = 1;
        int32_t ji = tile__job_new(c, JK_SOURCE, DT_BOOL, 1, &one, 0);
        if (ji < 0) return NULL;
        c->t->jobs[ji].blob = true;
        c->t->jobs[ji].source_index = k;
        c->t->jobs[ji].off = tile__arena_i64(c, 4);
        memset(c->t->jobs[ji].off, 0, 4 * sizeof(int64_t));
        G->job[k] = ji;
    }
    return G;
}

/* select.c's ops over every row: one job reading the chunks in order
 * (only the last ones tail needs when the chunks' rows are known);
 * nlargest and nsmallest read each chunk's own candidates. */
static tgrid_t *tile_whole(tctx_t *c, int node)
{
    return tile_whole_of(c, node, in_grid(c, node, 0));
}

/* One DFJ_WHOLE job over A's chunks (the input's, or resample's bin step's) */
static tgrid_t *tile_whole_of(tctx_t *c, int node, const tgrid_t *A)
{
    const graph_node_t *n = &c->g->nodes[node];
    const df_node_t *d = n->df;
    int64_t nch = A->nchunks[0], first = 0;
    if (n->op == OP_DF_TAIL && rows_known(A)) {
        int64_t total = A->bounds[0][nch];
        first = nch - 1;
        while (first > 0 && total - A->bounds[0][first] < d->n)
            first--;
    }
    int32_t *src = malloc(sizeof(int32_t) * (size_t)(nch + 1));
    if (!src) {
        tile__fail(c, "out of memory while tiling");
        return NULL;
    }
    for (int64_t k = first; k < nch; k++)
        src[k - first] = A->job[k];
    if (n->op == OP_DF_NLARGEST || n->op == OP_DF_NSMALLEST) {
        jparam_t *pm = dparam(c, node, DFJ_MAP);
        for (int64_t k = 0; k < nch; k++) {
            int32_t ji = bjob(c, pm, 1);
            if (ji < 0) {
                free(src);
                return NULL;
            }
            tile__jin_direct(c, ji, 0, A->job[k]);
            src[k] = ji;
        }
    }
    bool tensor = n->vkind == VK_TENSOR; /* a Series statistic: a 0-d tensor */
    jparam_t *pw = dparam(c, node, DFJ_WHOLE);
    int32_t wj = tensor ? fjob(c, pw, n->odtype, 0, NULL, (int)(nch - first))
                        : bjob(c, pw, (int)(nch - first));
    if (wj >= 0)
        for (int64_t k = 0; k < nch - first; k++)
            tile__jin_direct(c, wj, (int)k, src[k]);
    free(src);
    if (wj < 0) return NULL;
    if (!tensor) return one_chunk(c, wj, d->nrows);
    int64_t one = 1;
    tgrid_t *G = tile__grid_alloc(c, &n->oshape, n->odtype, &one);
    if (G) G->job[0] = wj;
    return G;
}

/* One DFJ_WHOLE job over every chunk of the input, for an op that makes a
 * row for each input row in their order (rank, duplicated, a groupby's
 * rank): its result cut back into the input's chunks (DFJ_WHOLE_PART), so
 * that it lines up with the frame's other Series chunk for chunk */
static tgrid_t *tile_whole_lined(tctx_t *c, int node)
{
    const tgrid_t *A = in_grid(c, node, 0);
    int64_t nch = A->nchunks[0];
    if (nch == 1) return tile_whole(c, node);
    if (nch > INT_MAX / 2) {
        tile__fail(c, "too many chunks");
        return NULL;
    }
    int32_t wj = bjob(c, dparam(c, node, DFJ_WHOLE), (int)nch);
    if (wj < 0) return NULL;
    for (int64_t k = 0; k < nch; k++)
        tile__jin_direct(c, wj, (int)k, A->job[k]);
    c->t->jobs[wj].off[3] = 1;
    tgrid_t *G = fgrid(c, nch, rows_known(A) ? A->bounds[0] : NULL);
    if (!G) return NULL;
    jparam_t *pp = dparam(c, node, DFJ_WHOLE_PART);
    for (int64_t k = 0; k < nch; k++) {
        int32_t pj = bjob(c, pp, 1);
        if (pj < 0) return NULL;
        tile__jin_direct(c, pj, 0, wj);
        c->t->jobs[pj].off[0] = k;
        G->job[k] = pj;
    }
    return G;
}

/* concat along the rows: the inputs' chunks one after the other (no job) */
static tgrid_t *tile_concat(tctx_t *c, int node)
{
    const graph_node_t *n = &c->g->nodes[node];
    int64_t nch = 0;
    bool known = true;
    for (int j = 0; j < n->n_in; j++) {
        const tgrid_t *A = in_grid(c, node, j);
        nch += A->nchunks[0];
        known &= rows_known(A);
    }
    int64_t *b = arena_alloc(c->t->arena, sizeof(int64_t) * (size_t)(nch + 1));
    int64_t q = 0;
    b[0] = 0;
    for (int j = 0; j < n->n_in; j++) {
        const tgrid_t *A = in_grid(c, node, j);
        for (int64_t k = 0; k < A->nchunks[0]; k++, q++)
            b[q + 1] = known ? b[q] + A->bounds[0][k + 1] - A->bounds[0][k] : -1;
    }
    tgrid_t *G = fgrid(c, nch, known ? b : NULL);
    if (!G) return NULL;
    q = 0;
    for (int j = 0; j < n->n_in; j++) {
        const tgrid_t *A = in_grid(c, node, j);
        for (int64_t k = 0; k < A->nchunks[0]; k++)
            G->job[q++] = A->job[k];
    }
    /* ignore_index: each chunk renumbered from the rows before it */
    if (n->df->drop) return carry_chain(c, node, G, false);
    return G;
}

/* df3: DFJ_MULTI jobs: chunk k of every frame input (rowwise: the inputs'
 * rows line up), else one job reading every chunk of every input */
static tgrid_t *tile_multi(tctx_t *c, int node, bool rowwise)
{
    const graph_node_t *n = &c->g->nodes[node];
    int nin = 0;
    int64_t total = 0;
    for (int j = 0; j < n->n_in; j++)
        if (n->in[j].node >= 0) {
            nin++;
            total += in_grid(c, node, j)->nchunks[0];
        }
    const tgrid_t *A = in_grid(c, node, 0);
    int64_t nch = rowwise ? A->nchunks[0] : 1;
    if (total > INT32_MAX / 2) {
        tile__fail(c, "too many chunks");
        return NULL;
    }
    tgrid_t *G = fgrid(c, nch, rowwise && rows_known(A) ? A->bounds[0] : NULL);
    if (!G) return NULL;
    jparam_t *pa = dparam(c, node, DFJ_MULTI);
    for (int64_t k = 0; k < nch; k++) {
        int32_t ji = bjob(c, pa, rowwise ? nin : (int)total);
        if (ji < 0) return NULL;
        job_t *jb = &c->t->jobs[ji];
        jb->off = tile__arena_i64(c, nin + 4);
        memset(jb->off, 0, sizeof(int64_t) * (size_t)(nin + 4));
        int q = 0, slot = 0;
        for (int j = 0; j < n->n_in; j++) {
            if (n->in[j].node < 0) continue;
            const tgrid_t *B = in_grid(c, node, j);
            jb->off[q++] = slot;
            if (rowwise) {
                if (B->nchunks[0] != nch) {
                    tile__fail(c, "internal: inputs with %lld and %lld chunks", (long long)nch,
                               (long long)B->nchunks[0]);
                    return NULL;
                }
                tile__jin_direct(c, ji, slot++, B->job[k]);
            } else {
                for (int64_t b = 0; b < B->nchunks[0]; b++)
                    tile__jin_direct(c, ji, slot++, B->job[b]);
            }
        }
        jb->off[nin] = slot;
        G->job[k] = ji;
    }
    return G;
}

tgrid_t *tile_df(tctx_t *c, int node)
{
    const graph_node_t *n = &c->g->nodes[node];
    if (n->op == OP_SESSION_TENSOR) return tile_session_frame(c, node);
    if (graph_setops_owns(n->op)) return tile_setops(c, node); /* setops: tile/setops.c */
    if (n->n_outputs) return tile_multi_held(c, node);         /* multiout: tile/multi.c */
    if (op_is_elementwise(n->op)) return tile_rowwise(c, node, DFJ_EW, true);
    if ((n->op >= OP_DF_DT_YEAR && n->op <= OP_DF_DT_DATE) || n->op == OP_DF_TO_DATETIME ||
        n->op == OP_DF_TO_TIMEDELTA ||
        df_op_is_str(n->op)) /* the dt and str accessors, to_datetime: row-wise */
        return tile_rowwise(c, node, DFJ_MAP, true);
    switch (n->op) {
    case OP_DF_FROM_TENSOR:
        return tile_from_tensor(c, node);
    case OP_DF_READ_CSV:
        return tile_read_csv(c, node);
    case OP_DF_READ_JSON: {
        int32_t ji = bjob(c, dparam(c, node, DFJ_MULTI), 0);
        if (ji < 0) return NULL;
        return one_chunk(c, ji, n->df->nrows);
    }
    case OP_DF_GETITEM:
        return tile_rowwise(c, node, DFJ_GETITEM, true);
    case OP_DF_FILTER:
        return tile_rowwise(c, node, DFJ_FILTER, false);
    case OP_DF_ASSIGN:
        return tile_rowwise(c, node, DFJ_ASSIGN, true);
    case OP_DF_HEAD:
        return tile_head(c, node);
    case OP_DF_INTERPOLATE: /* both ways: the values before and after each chunk */
        return tile_carry(c, node, false);
    case OP_DF_MERGE_ASOF: {
        /* in place: a piece of every right chunk for every left chunk */
        double pieces = (double)in_grid(c, node, 0)->nchunks[0] * in_grid(c, node, 1)->nchunks[0];
        if (n->df->adir == DF_AD_NEAREST || pieces > ASOF_MAX_PIECES)
            return tile_merge_asof(c, node);
        return tile_merge_asof_inplace(c, node);
    }
    case OP_DF_CUT:
    case OP_DF_QCUT:
        return tile_cut(c, node);
    case OP_DF_FILLNA:
        if (n->df->method != DFM_NONE) return tile_carry(c, node, n->df->method == DFM_BFILL);
        return tile_rowwise(c, node, DFJ_MAP, true);
    case OP_DF_DROPNA:
    case OP_DF_BETWEEN_TIME:
    case OP_DF_AT_TIME:
    case OP_DF_QUERY:
        return tile_rowwise(c, node, DFJ_MAP, false);
    case OP_DF_EVAL:
        return tile_rowwise(c, node, DFJ_MAP, true);
    case OP_DF_SET_INDEX:
        return tile_rowwise(c, node, DFJ_MAP, true);
    case OP_DF_CUMSUM:
    case OP_DF_CUMPROD:
    case OP_DF_CUMMAX:
    case OP_DF_CUMMIN:
    case OP_DF_DIFF:
    case OP_DF_SHIFT:
    case OP_DF_PCT_CHANGE:
    case OP_DF_ROLLING:
    case OP_DF_EWM:
    case OP_DF_EXPANDING: {
        if (n->df->nkey > 0) {
            /* groupby(by).rolling(): the rows sorted by key (stably: each
             * group's rows in their order), then windows over them cut at
             * the groups' ends */
            const tgrid_t *B = sample_sort(c, node, in_grid(c, node, 0), NULL, 0);
            return B ? carry_chain(c, node, B, false) : NULL;
        }
        return tile_carry(c, node, !df_run_forward(n->df, n->op));
    }
    case OP_DF_RESET_INDEX: {
        /* the new index numbers rows from each chunk's first row: known
         * now, or counted along the chunks by the carry chain */
        const tgrid_t *A = in_grid(c, node, 0);
        if (!rows_known(A)) return tile_carry(c, node, false);
        tgrid_t *G = tile_rowwise(c, node, DFJ_MAP, true);
        for (int64_t k = 0; G && k < G->nchunks[0]; k++)
            c->t->jobs[G->job[k]].off[1] = rows_known(A) ? A->bounds[0][k] : -1;
        return G;
    }
    case OP_DF_LOC:
        if (n->n_in == 2) return tile_rowwise(c, node, DFJ_FILTER, false);
        return tile_whole(c, node);
    case OP_DF_DUPLICATED: /* the whole flags, cut back into the input's chunks */
    case OP_DF_RANK:
        return tile_whole_lined(c, node);
    case OP_DF_CONCAT:
        if (n->df->axis1) return tile_multi(c, node, n->df->aligned);
        return tile_concat(c, node);
    case OP_DF_GROUPBY_TRANSFORM: {
        /* the kernels read rows before (after) a row in its group: each
         * group's running state, or the rows a chunk may read, carried from
         * chunk to chunk (df3_gb_chunked) */
        bool back;
        if (df3_gb_lookup(n->df)) return tile_gb_lookup(c, node);
        if (n->df->pv_agg < DF3_TF_CUMSUM || n->df->pv_agg == DF3_TF_NGROUP)
            return tile_gb_bcast(c, node);
        if (df3_gb_chunked(n->df, &back)) return tile_carry(c, node, back);
        return tile_whole_lined(c, node);
    }
    case OP_DF_GROUPBY_SIZE:
        return tile_gb_bcast(c, node);
    case OP_DF_GROUPBY_HEAD:
    case OP_DF_GROUPBY_TAIL:
        /* each group's rows so far carried forwards (tail: backwards) */
        return tile_carry(c, node, n->op == OP_DF_GROUPBY_TAIL);
    case OP_DF_GROUPBY_QUANTILE:
        if (in_grid(c, node, 0)->nchunks[0] > 1) return tile_gb_parts(c, node, in_grid(c, node, 0));
        return tile_whole(c, node);
    case OP_DF_MELT:
    case OP_DF_PIVOT_TABLE:
    case OP_DF_PIVOT:
    case OP_DF_UNSTACK:
    case OP_DF_MEDIAN:
    case OP_DF_QUANTILE:
    case OP_DF_SKEW:
    case OP_DF_KURT:
    case OP_DF_CORR:
    case OP_DF_COV:
    case OP_DF_VALUE_COUNTS:
    case OP_DF_MODE:
    case OP_DF_IDXMAX:
    case OP_DF_IDXMIN:
    case OP_DF_ILOC:
    case OP_DF_TAIL:
    case OP_DF_NLARGEST:
    case OP_DF_NSMALLEST:
    case OP_DF_SORT_INDEX:
    case OP_DF_SAMPLE:
    case OP_DF_DROP_DUPLICATES:
        return tile_whole(c, node);
    case OP_DF_ISNA:
    case OP_DF_NOTNA:
    case OP_DF_ISIN:
    case OP_DF_ASTYPE:
    case OP_DF_RENAME:
    case OP_DF_DROP:
    case OP_DF_REPLACE:
    case OP_DF_MAP:
    case OP_DF_GET_DUMMIES:
    case OP_DF_CLIP:
    case OP_DF_ABS:
    case OP_DF_ROUND:
        return tile_rowwise(c, node, DFJ_MAP, true);
    case OP_DF_TO_TENSOR:
        if (n->df->held) return tile_gather_all(c, node, DFJ_TO_TENSOR, n->df->nrows);
        return tile_to_tensor(c, node);
    case OP_DF_DESCRIBE:
        return tile_gather_all(c, node, DFJ_DESCRIBE, 8);
    case OP_DF_GROUPBY_AGG:
        return tile_groupby(c, node, in_grid(c, node, 0),
                            c->g->nodes[c->g->nodes[node].in[0].node].df->nrows);
    case OP_DF_RESAMPLE:
        return tile_resample(c, node);
    case OP_DF_SORT_VALUES:
        return tile_sort(c, node);
    case OP_DF_MERGE:
    case OP_DF_JOIN:
        return tile_merge(c, node);
    default:
        if (df_reduction(n->op)) return tile_reduce_df(c, node);
        tile__fail(c, "internal: no tiling for this op");
        return NULL;
    }
}
