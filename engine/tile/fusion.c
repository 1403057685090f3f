/* fusion.c: element-wise chains fused into one program per chunk, and
 * the element-wise tiler. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../arena.h"
#include "tile_priv.h"

/* ------------------------------------------------------------------ element-wise programs */

bool fusable_into(tctx_t *c, int m, int consumer)
{
    const graph_node_t *M = &c->g->nodes[m], *C = &c->g->nodes[consumer];
    if (!op_is_elementwise(M->op) || M->fetch || M->n_consumers != 1 || c->opts->keep_all ||
        M->df || C->df)
        return false;
    if (op_is_elementwise(C->op)) return shape_eq(&M->oshape, &C->oshape);
    op_kind_t k = op_kind(C->op);
    return k == OPK_REDUCE || k == OPK_ARGREDUCE;
}

static void collect_leaves(tctx_t *c, pbuild_t *b, int node)
{
    const graph_node_t *n = &c->g->nodes[node];
    for (int i = 0; i < n->n_in; i++) {
        int m = n->in[i].node;
        if (m < 0) continue;
        if (c->fused[m]) {
            collect_leaves(c, b, m);
            continue;
        }
        bool seen = false;
        for (int k = 0; k < b->n_leaves; k++)
            seen |= b->leaf_node[k] == m;
        if (!seen) b->leaf_node[b->n_leaves++] = m;
    }
}

static int new_reg(pbuild_t *b, dtype_t dt)
{
    int r = b->p->n_regs++;
    b->p->reg_dt[r] = (uint8_t)dt;
    b->p->is_const[r] = false;
    return r;
}

static int emit(pbuild_t *b, op_t op, dtype_t compute, dtype_t out, int a, int x, int y)
{
    int dst = new_reg(b, out);
    ew_ins_t *ins = &b->p->ins[b->p->n_ins++];
    ins->op = (int16_t)op;
    ins->dt = (uint8_t)compute;
    ins->dst = (int8_t)dst;
    ins->a = (int8_t)a;
    ins->b = (int8_t)x;
    ins->c = (int8_t)y;
    return dst;
}

static int cast_to(pbuild_t *b, int r, dtype_t dt)
{
    if (r < 0 || b->p->reg_dt[r] == dt) return r;
    return emit(b, OP_ASTYPE, dt, dt, r, -1, -1);
}

static int const_reg(pbuild_t *b, scalar_t s, dtype_t dt)
{
    int r = new_reg(b, dt);
    b->p->is_const[r] = true;
    b->p->konst[r] = s;
    return r;
}

/* Emits the program of node (fused inputs inlined); returns its register. */
static int emit_node(tctx_t *c, pbuild_t *b, int node)
{
    for (int k = 0; k < b->n_memo; k++)
        if (b->memo_node[k] == node) return b->memo_reg[k];
    const graph_node_t *n = &c->g->nodes[node];
    int reg[4] = {-1, -1, -1, -1};
    for (int i = 0; i < n->n_in && i < 3; i++) {
        int m = n->in[i].node;
        if (m < 0) continue;
        if (c->fused[m]) {
            reg[i] = emit_node(c, b, m);
        } else {
            for (int k = 0; k < b->n_leaves; k++)
                if (b->leaf_node[k] == m) reg[i] = k;
        }
        if (reg[i] < 0) return -1;
    }
    dtype_t in_dt[3] = {DT_BOOL, DT_BOOL, DT_BOOL};
    int in_nd[3] = {0, 0, 0};
    for (int i = 0; i < n->n_in && i < 3; i++) {
        if (n->in[i].node >= 0) {
            in_dt[i] = (dtype_t)b->p->reg_dt[reg[i]];
            in_nd[i] = c->g->nodes[n->in[i].node].oshape.ndim;
        }
    }
    ew_types_t ty;
    char e[256];
    if (ew_node_types(n, in_dt, in_nd, &ty, e, sizeof e)) return tile__fail(c, "%s", e);
    if (b->p->n_regs > EW_MAX_REGS - 8 || b->p->n_ins > EW_MAX_INS - 6)
        return tile__fail(c, "internal: fused program too large");
    int r;
    op_kind_t kind = op_kind(n->op);
    if (n->op == OP_ASTYPE) {
        int a = reg[0] >= 0 ? reg[0] : const_reg(b, n->in[0].sc, sc_default_dtype(n->in[0].sc));
        r = emit(b, OP_ASTYPE, ty.compute, ty.out, a, -1, -1);
    } else if (n->op == OP_WHERE) {
        int cond = reg[0] >= 0 ? cast_to(b, reg[0], DT_BOOL) : const_reg(b, n->in[0].sc, DT_BOOL);
        int x =
            reg[1] >= 0 ? cast_to(b, reg[1], ty.compute) : const_reg(b, n->in[1].sc, ty.compute);
        int y =
            reg[2] >= 0 ? cast_to(b, reg[2], ty.compute) : const_reg(b, n->in[2].sc, ty.compute);
        r = emit(b, OP_WHERE, ty.compute, ty.out, cond, x, y);
    } else if (n->op == OP_CLIP) {
        int a =
            reg[0] >= 0 ? cast_to(b, reg[0], ty.compute) : const_reg(b, n->in[0].sc, ty.compute);
        int lo = n->has_a_min ? const_reg(b, n->a_min, ty.compute) : -1;
        int hi = n->has_a_max ? const_reg(b, n->a_max, ty.compute) : -1;
        r = emit(b, OP_CLIP, ty.compute, ty.out, a, lo, hi);
    } else if (n->op == OP_ISCLOSE) {
        /* numpy's isclose: |x - y| <= atol + rtol * |y| where both are
         * finite (the tolerance in y's float dtype), x == y elsewhere, and
         * with equal_nan two NaN are close */
        dtype_t C = ty.compute, B = DT_BOOL;
        int xr = reg[0], yr = reg[1];
        dtype_t yf = yr >= 0 && dt_is_float((dtype_t)b->p->reg_dt[yr]) ? (dtype_t)b->p->reg_dt[yr]
                                                                       : DT_FLOAT64;
        if (yr >= 0 && !dt_is_float((dtype_t)b->p->reg_dt[yr])) yf = DT_FLOAT64;
        if (yr < 0) yf = C;
        int x = xr >= 0 ? cast_to(b, xr, C) : const_reg(b, n->in[0].sc, C);
        int y = yr >= 0 ? cast_to(b, yr, yf) : const_reg(b, n->in[1].sc, yf);
        int yc = cast_to(b, y, C);
        int ad = emit(b, OP_ABS, C, C, emit(b, OP_SUBTRACT, C, C, x, yc, -1), -1, -1);
        int tol = emit(b, OP_ADD, yf, yf, const_reg(b, sc_float(n->atol), yf),
                       emit(b, OP_MULTIPLY, yf, yf, const_reg(b, sc_float(n->rtol), yf),
                            emit(b, OP_ABS, yf, yf, y, -1, -1), -1),
                       -1);
        int le = emit(b, OP_LESS_EQUAL, C, B, ad, cast_to(b, tol, C), -1);
        int fin = emit(b, OP_LOGICAL_AND, B, B, emit(b, OP_ISFINITE, C, B, x, -1, -1),
                       emit(b, OP_ISFINITE, C, B, yc, -1, -1), -1);
        int eq = emit(b, OP_EQUAL, C, B, x, yc, -1);
        r = emit(b, OP_WHERE, B, B, fin, le, eq);
        if (n->equal_nan)
            r = emit(b, OP_LOGICAL_OR, B, B, r,
                     emit(b, OP_LOGICAL_AND, B, B, emit(b, OP_ISNAN, C, B, x, -1, -1),
                          emit(b, OP_ISNAN, C, B, yc, -1, -1), -1),
                     -1);
    } else if (n->op == OP_ROUND || n->op == OP_AROUND) {
        int a =
            reg[0] >= 0 ? cast_to(b, reg[0], ty.compute) : const_reg(b, n->in[0].sc, ty.compute);
        int dec = const_reg(b, sc_int(n->decimals), ty.compute);
        r = emit(b, n->op, ty.compute, ty.out, a, dec, -1);
    } else {
        int ops[2] = {-1, -1};
        int arity = kind == OPK_UNARY ? 1 : 2;
        for (int i = 0; i < arity; i++)
            ops[i] = reg[i] >= 0 ? cast_to(b, reg[i], ty.compute)
                                 : const_reg(b, n->in[i].sc, ty.compute);
        r = emit(b, n->op, ty.compute, ty.out, ops[0], ops[1], -1);
    }
    if (b->p->reg_dt[r] != n->odtype)
        return tile__fail(c, "internal: program dtype %s differs from the inferred %s",
                          dt_name((dtype_t)b->p->reg_dt[r]), dt_name(n->odtype));
    if (b->n_memo < EW_MAX_REGS) {
        b->memo_node[b->n_memo] = node;
        b->memo_reg[b->n_memo++] = r;
    }
    return r;
}

/* Builds the program of `root` with its fused inputs; leaves in b. */
ew_prog_t *build_prog(tctx_t *c, pbuild_t *b, int root)
{
    memset(b, 0, sizeof(*b));
    b->p = arena_alloc(c->t->arena, sizeof(ew_prog_t));
    memset(b->p, 0, sizeof(ew_prog_t));
    collect_leaves(c, b, root);
    b->p->n_inputs = b->n_leaves;
    b->p->n_regs = b->n_leaves;
    for (int k = 0; k < b->n_leaves; k++)
        b->p->reg_dt[k] = (uint8_t)c->t->grid[b->leaf_node[k]]->dt;
    int r = emit_node(c, b, root);
    if (r < 0) return NULL;
    b->p->out = r;
    return b->p;
}

/* The chunking of an element-wise result of `shape` over the leaves: on
 * each axis, the bounds of the first leaf that spans it (not broadcast). */
tgrid_t *ew_grid(tctx_t *c, const pbuild_t *b, const shape_t *shape, dtype_t dt)
{
    int nd = shape->ndim;
    int64_t *bounds[MR_MAXDIM], nch[MR_MAXDIM];
    static const int64_t one[2] = {0, 1};
    int64_t *zero = tile__arena_i64(c, 2);
    zero[0] = zero[1] = 0;
    for (int d = 0; d < nd; d++) {
        bounds[d] = NULL;
        for (int k = 0; k < b->n_leaves && !bounds[d]; k++) {
            const tgrid_t *L = c->t->grid[b->leaf_node[k]];
            int e = d - (nd - L->shape.ndim);
            if (e >= 0 && L->shape.d[e] == shape->d[d]) {
                bounds[d] = L->bounds[e];
                nch[d] = L->nchunks[e];
            }
        }
        if (!bounds[d]) {
            bounds[d] = shape->d[d] == 0 ? zero : (int64_t *)one;
            nch[d] = 1;
        }
    }
    return grid_with_bounds(c, shape, dt, (const int64_t *const *)bounds, nch);
}

/* Input k of job ji: the box [off, off+len) of creation or random node
 * `node`, generated by the job itself. */
void tile__input_generated(tctx_t *c, int32_t ji, int k, int node, int nd, const int64_t *off,
                           const int64_t *len, dtype_t dt)
{
    jin_t *in = &c->t->jobs[ji].in[k];
    in->job = -1;
    in->n_pieces = 0;
    in->pieces = NULL;
    in->ndim = nd;
    in->shape = arena_i64_copy(c, len, nd);
    in->dt = dt;
    in->gen_node = node;
    in->gen_off = arena_i64_copy(c, off, nd);
}

/* Inputs of job ji for the leaves of b, over the region [off, off+len) of
 * the element-wise result (of ndim nd): each leaf's own part, broadcast
 * axes reduced to one position. */
/* Inputs k0 .. k0 + n_leaves - 1 of job ji: the program's leaves over the
 * region (off, len). */
int ew_inputs(tctx_t *c, int32_t ji, int k0, const pbuild_t *b, int nd, const int64_t *off,
              const int64_t *len)
{
    for (int k = k0; k < k0 + b->n_leaves; k++) {
        const tgrid_t *L = c->t->grid[b->leaf_node[k - k0]];
        int ln = L->shape.ndim;
        int64_t lo[MR_MAXDIM], n[MR_MAXDIM], step[MR_MAXDIM], dst[MR_MAXDIM];
        for (int e = 0; e < ln; e++) {
            int d = e + (nd - ln);
            step[e] = 1;
            if (L->shape.d[e] == 1) { /* broadcast (or of size 1 anyway) */
                lo[e] = 0;
                n[e] = 1;
            } else {
                lo[e] = off[d];
                n[e] = len[d];
            }
        }
        if (c->gen[b->leaf_node[k - k0]]) {
            tile__input_generated(c, ji, k, b->leaf_node[k - k0], ln, lo, n, L->dt);
            continue;
        }
        c_strides(ln, n, dst);
        c->npv = 0;
        if (add_region(c, L, lo, step, n, dst, 0)) return -1;
        input_finish(c, ji, k, ln, n, L->dt);
    }
    return 0;
}

tgrid_t *grid_astype(tctx_t *c, const tgrid_t *G, dtype_t dt)
{
    if (G->dt == dt) return (tgrid_t *)G;
    ew_prog_t *p = arena_alloc(c->t->arena, sizeof(ew_prog_t));
    memset(p, 0, sizeof(*p));
    p->n_inputs = 1;
    p->n_regs = 2;
    p->n_ins = 1;
    p->out = 1;
    p->reg_dt[0] = (uint8_t)G->dt;
    p->reg_dt[1] = (uint8_t)dt;
    p->ins[0] = (ew_ins_t){.op = OP_ASTYPE, .dt = (uint8_t)dt, .dst = 1, .a = 0, .b = -1, .c = -1};
    jparam_t *pa = arena_alloc(c->t->arena, sizeof(jparam_t));
    memset(pa, 0, sizeof(*pa));
    pa->op = OP_ASTYPE;
    pa->prog = p;
    tgrid_t *R = grid_with_bounds(c, &G->shape, dt, (const int64_t *const *)G->bounds, G->nchunks);
    if (!R) return NULL;
    for (int64_t li = 0; li < R->total; li++) {
        int32_t src = G->job[li];
        const job_t *sj = &c->t->jobs[src];
        int32_t ji = tile__job_new(c, JK_EW, dt, sj->ndim, sj->shape, 1);
        if (ji < 0) return NULL;
        c->t->jobs[ji].param = pa;
        tile__jin_direct(c, ji, 0, src);
        R->job[li] = ji;
    }
    return R;
}

tgrid_t *tile_ew(tctx_t *c, int node)
{
    const graph_node_t *n = &c->g->nodes[node];
    pbuild_t b;
    ew_prog_t *p = build_prog(c, &b, node);
    if (!p) return NULL;
    jparam_t *pa = tile__param_new(c, n->op);
    pa->prog = p;
    tgrid_t *G = ew_grid(c, &b, &n->oshape, n->odtype);
    if (!G) return NULL;
    for (gwalk_t w = gwalk_start(G); gwalk_next(&w);) {
        int64_t li = w.li, *off = w.off, *len = w.len;
        int32_t ji = tile__job_new(c, JK_EW, n->odtype, n->oshape.ndim, len, b.n_leaves);
        if (ji < 0) return NULL;
        c->t->jobs[ji].param = pa;
        c->t->jobs[ji].off = arena_i64_copy(c, off, n->oshape.ndim);
        if (ew_inputs(c, ji, 0, &b, n->oshape.ndim, off, len)) return NULL;
        G->job[li] = ji;
    }
    return G;
}

/* Reduces partial jobs parts[0..np) into one: a tree of combines, then the
 * final job (shape fshape, dtype fdt) when final is set. */
