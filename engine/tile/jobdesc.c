/* jobdesc.c: job descriptors (tile.h, "Job descriptors"): one job of a
 * tile with everything needed to run it, so that a worker runs a job
 * without tiling the task's document.
 *
 * Layout ("i32" and "i64" are signed LEB128 varints, zigzag-coded, of at
 * most 5 and 10 bytes; "u8" one byte; "i64[n]" n of them):
 *   "MJD1"
 *   i32 id                      the job's index in the task's tile
 *   i32 nsrc                    distinct jobs it reads, then per source:
 *     i32 id, u8 kind, u8 dt, u8 ndim, u8 flags (1 blob, 2 keep),
 *     i32 node, i64 shape[ndim], i64 source_index, u8 dfk (255: none)
 *   the job: u8 kind, u8 dt, u8 ndim, u8 flags, i32 node, i64 shape[ndim],
 *     i32 n_off, i64 off[n_off], i32 n_vshape, i64 vshape[n_vshape],
 *     i32 n_regions, i64 source_index
 *   u8 has_param; param: i32 op, u32 axes (4 bytes, little-endian), u8 in_dt, i64 n_reduced,
 *     i64 ddof, u8 gshape ndim (255: none), i64 gshape[ndim], i32 axis,
 *     i32 td_n, i32 td_a[td_n], i32 td_b[td_n], u8 dfk, i32 la_step, u8 has_fx
 *     (then the advanced index: u8 mode, u8 flags, i32 src_in, value_in, n_ent,
 *     per entry u8 kind, i32 in, axis, nax, u8 is_int, i64 i, start, stop,
 *     step, len, then i32 src_nch, i64 src_rows[src_nch + 1] when > 0), u8 has_prog;
 *     program: i32 n_inputs, n_regs, n_ins, out; per register u8 dt,
 *     u8 is_const (then u8 kind, the
 *     value's 8 bytes, little-endian); per instruction i32 op, u8 dt,
 *     i8 dst, a, b, c
 *   i32 n_in; per input: i32 src (index into the sources, or -1),
 *     u8 ndim, i64 shape[ndim], u8 dt, i32 n_pieces, pieces,
 *     i32 gen_node (then i64 gen_off[ndim] when >= 0), i32 n_gpieces,
 *     gpieces (i32 node, u8 ndim, i64 off[ndim], i64 len[ndim], a piece)
 *   piece: i32 src (index into the sources, or -1), u8 ndim,
 *     i64 count[ndim], src_stride[ndim], dst_stride[ndim], src_off, dst_off
 *
 * Decoding checks every count against the bytes left before allocating,
 * every index, dtype, kind and op against its range, that every copy a
 * piece describes stays inside its source and its destination, and what
 * the kernels assume of the shapes they get: element-wise inputs broadcast
 * to the output, reduction partials are as big as the reduction reads,
 * block products' operands agree, scans read chunks of the job's shape. */
#include "tile_priv.h"

#include <stdio.h>
#include <stdlib.h>

#include "../arena.h"
#include "../fancy.h"
#include "../kern/la.h"
#include "../la2.h"
#include "../setops.h"
#include "../sortstat.h"

#define MAGIC "MJD1"
/* A job's output, an input array or a generated box: at most 2^44 bytes
 * (far above any memory limit; keeps every product below overflow). */
#define JD_MAX_BYTES ((int64_t)1 << 44)

/* ---- encoding ---------------------------------------------------------------- */

typedef struct {
    unsigned char *b;
    size_t n, cap;
    bool oom;
} wbuf_t;

static void put(wbuf_t *w, const void *p, size_t n)
{
    if (w->oom) return;
    if (w->n + n > w->cap) {
        size_t cap = w->cap ? w->cap * 2 : 256;
        while (cap < w->n + n)
            cap *= 2;
        unsigned char *nb = realloc(w->b, cap);
        if (!nb) {
            w->oom = true;
            return;
        }
        w->b = nb;
        w->cap = cap;
    }
    memcpy(w->b + w->n, p, n);
    w->n += n;
}

static void put_u8(wbuf_t *w, unsigned v)
{
    unsigned char c = (unsigned char)v;
    put(w, &c, 1);
}

static void put_u64(wbuf_t *w, uint64_t v, int bytes)
{
    unsigned char c[8];
    for (int i = 0; i < bytes; i++)
        c[i] = (unsigned char)(v >> (8 * i));
    put(w, c, (size_t)bytes);
}

/* zigzag, then 7 bits a byte, low first, the top bit set on all but the
 * last */
static void put_i64(wbuf_t *w, int64_t v)
{
    uint64_t z = ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
    unsigned char c[10];
    int n = 0;
    do {
        c[n] = (unsigned char)(z & 0x7f);
        z >>= 7;
        if (z) c[n] |= 0x80;
        n++;
    } while (z);
    put(w, c, (size_t)n);
}

static void put_i32(wbuf_t *w, int64_t v)
{
    put_i64(w, v);
}

static void put_i64s(wbuf_t *w, const int64_t *v, int n)
{
    for (int i = 0; i < n; i++)
        put_i64(w, v ? v[i] : 0);
}

static int src_pos(const int32_t *srcs, int nsrc, int32_t job)
{
    for (int i = 0; i < nsrc; i++)
        if (srcs[i] == job) return i;
    return -1;
}

static void put_piece(wbuf_t *w, const piece_t *p, const int32_t *srcs, int nsrc)
{
    put_i32(w, p->src >= 0 ? src_pos(srcs, nsrc, p->src) : -1);
    put_u8(w, (unsigned)p->ndim);
    put_i64s(w, p->count, p->ndim);
    put_i64s(w, p->src_stride, p->ndim);
    put_i64s(w, p->dst_stride, p->ndim);
    put_i64(w, p->src_off);
    put_i64(w, p->dst_off);
}

static void put_prog(wbuf_t *w, const ew_prog_t *p)
{
    put_i32(w, p->n_inputs);
    put_i32(w, p->n_regs);
    put_i32(w, p->n_ins);
    put_i32(w, p->out);
    for (int r = 0; r < p->n_regs; r++) {
        put_u8(w, p->reg_dt[r]);
        put_u8(w, p->is_const[r]);
        if (!p->is_const[r]) continue;
        const scalar_t *k = &p->konst[r];
        put_u8(w, (unsigned)k->kind);
        uint64_t bits = 0;
        if (k->kind == SC_BOOL)
            bits = k->b;
        else if (k->kind == SC_INT)
            bits = (uint64_t)k->i;
        else
            memcpy(&bits, &k->f, 8);
        put_u64(w, bits, 8);
    }
    for (int i = 0; i < p->n_ins; i++) {
        const ew_ins_t *x = &p->ins[i];
        put_i32(w, x->op);
        put_u8(w, x->dt);
        put_u8(w, (unsigned char)x->dst);
        put_u8(w, (unsigned char)x->a);
        put_u8(w, (unsigned char)x->b);
        put_u8(w, (unsigned char)x->c);
    }
}

/* An advanced-indexing job's own index (jparam_t.fx, fancy.h). */
static void put_fancy(wbuf_t *w, const fancy_t *fx)
{
    put_u8(w, fx->mode);
    put_u8(w, (unsigned)fx->held | (unsigned)fx->flat_src << 1 | (unsigned)fx->set << 2);
    put_i32(w, fx->src_in);
    put_i32(w, fx->value_in);
    put_i32(w, fx->n_ent);
    for (int k = 0; k < fx->n_ent; k++) {
        const fx_ent_t *e = &fx->ent[k];
        put_u8(w, e->kind);
        put_i32(w, e->in);
        put_i32(w, e->axis);
        put_i32(w, e->nax);
        put_u8(w, e->ix.is_int);
        put_i64(w, e->ix.i);
        put_i64(w, e->ix.start);
        put_i64(w, e->ix.stop);
        put_i64(w, e->ix.step);
        put_i64(w, e->ix.len);
    }
    put_i32(w, fx->src_nch);
    for (int i = 0; fx->src_nch > 0 && i <= fx->src_nch; i++)
        put_i64(w, fx->src_rows[i]);
}

static void put_param(wbuf_t *w, const jparam_t *pa)
{
    put_u8(w, pa != NULL);
    if (!pa) return;
    put_i32(w, pa->op);
    put_u64(w, pa->axes, 4);
    put_u8(w, pa->in_dt);
    put_i64(w, pa->n_reduced);
    put_i64(w, pa->ddof);
    put_u8(w, pa->gshape ? (unsigned)pa->gshape->ndim : 255);
    if (pa->gshape) put_i64s(w, pa->gshape->d, pa->gshape->ndim);
    put_i32(w, pa->axis);
    put_i32(w, pa->td_n);
    for (int i = 0; i < pa->td_n; i++)
        put_i32(w, pa->td_a[i]);
    for (int i = 0; i < pa->td_n; i++)
        put_i32(w, pa->td_b[i]);
    put_u8(w, pa->dfk);
    put_i32(w, pa->la_step);
    put_u8(w, pa->fx != NULL);
    if (pa->fx) put_fancy(w, pa->fx);
    put_u8(w, pa->prog != NULL);
    if (pa->prog) put_prog(w, pa->prog);
}

/* The frame inputs of a DFJ_MULTI job's node (tile_df.c: tile_multi):
 * its offsets are one per input, their end, and 3 more. */
static int df_multi_inputs(const graph_t *g, int32_t node)
{
    int nin = 0;
    for (int k = 0; k < g->nodes[node].n_in; k++)
        nin += g->nodes[node].in[k].node >= 0;
    return nin;
}

/* How many offsets job j holds (tile.h: job_t.off). */
static int n_off_of(const tile_t *t, const job_t *j)
{
    if (!j->off) return 0;
    if (j->kind == JK_DF)
        return j->param && j->param->dfk == DFJ_MULTI ? df_multi_inputs(t->g, j->node) + 4 : 4;
    if (j->kind == JK_LA && j->param && j->param->la_step == LS_DIAG) return 3;
    if (j->kind == JK_SS && j->param && j->param->la_step == SS_NPICK) return 1;
    if (j->kind == JK_SS && j->param && j->param->la_step == SS_NQPICK) return j->n_in / 2 + 1;
    if (j->kind == JK_RED_MAP) {
        int nr = j->n_regions > 1 ? j->n_regions : 1;
        return j->param && j->param->gshape ? nr * j->param->gshape->ndim : 0;
    }
    return t->g->nodes[j->node].oshape.ndim;
}

static void put_head(wbuf_t *w, const job_t *j)
{
    put_u8(w, j->kind);
    put_u8(w, j->dt);
    put_u8(w, (unsigned)j->ndim);
    put_u8(w, (j->blob ? 1u : 0u) | (j->keep ? 2u : 0u));
    put_i32(w, j->node);
    put_i64s(w, j->shape, j->ndim);
}

int tile_job_encode(const tile_t *t, int32_t ji, void **out, size_t *len)
{
    const job_t *j = &t->jobs[ji];
    int32_t *srcs = malloc(sizeof(int32_t) * (size_t)(tile_job_n_reads(t, ji) + 1));
    if (!srcs) return -1;
    int nsrc = tile_job_sources(t, ji, srcs);
    wbuf_t w = {0};
    put(&w, MAGIC, 4);
    put_i32(&w, ji);
    put_i32(&w, nsrc);
    for (int i = 0; i < nsrc; i++) {
        const job_t *s = &t->jobs[srcs[i]];
        put_i32(&w, srcs[i]);
        put_head(&w, s);
        put_i64(&w, s->source_index);
        put_u8(&w, s->param ? s->param->dfk : 255);
    }
    put_head(&w, j);
    int n_off = n_off_of(t, j);
    put_i32(&w, n_off);
    put_i64s(&w, j->off, n_off);
    int n_vs = j->vshape ? n_off : 0;
    put_i32(&w, n_vs);
    put_i64s(&w, j->vshape, n_vs);
    put_i32(&w, j->n_regions);
    put_i64(&w, j->source_index);
    put_param(&w, j->param);
    put_i32(&w, j->n_in);
    for (int k = 0; k < j->n_in; k++) {
        const jin_t *in = &j->in[k];
        put_i32(&w, in->job >= 0 ? src_pos(srcs, nsrc, in->job) : -1);
        put_u8(&w, (unsigned)in->ndim);
        put_i64s(&w, in->shape, in->ndim);
        put_u8(&w, in->dt);
        put_i32(&w, in->n_pieces);
        for (int q = 0; q < in->n_pieces; q++)
            put_piece(&w, &in->pieces[q], srcs, nsrc);
        put_i32(&w, in->gen_node);
        if (in->gen_node >= 0) put_i64s(&w, in->gen_off, in->ndim);
        put_i32(&w, in->n_gpieces);
        for (int q = 0; q < in->n_gpieces; q++) {
            const gpiece_t *g = &in->gpieces[q];
            put_i32(&w, g->node);
            put_u8(&w, (unsigned)g->ndim);
            put_i64s(&w, g->off, g->ndim);
            put_i64s(&w, g->len, g->ndim);
            put_piece(&w, &g->p, srcs, nsrc);
        }
    }
    free(srcs);
    if (w.oom) {
        free(w.b);
        return -1;
    }
    *out = w.b;
    *len = w.n;
    return 0;
}

/* ---- decoding ---------------------------------------------------------------- */

typedef struct {
    const unsigned char *p;
    size_t left;
    bool bad;
    char *err;
    size_t errlen;
    const graph_t *g;
    tile_t *t;
} rbuf_t;

static int fail(rbuf_t *r, const char *what)
{
    if (!r->bad) snprintf(r->err, r->errlen, "job descriptor: %s", what);
    r->bad = true;
    return -1;
}

static uint64_t get_u(rbuf_t *r, int bytes)
{
    if (r->bad) return 0;
    if (r->left < (size_t)bytes) {
        fail(r, "truncated");
        return 0;
    }
    uint64_t v = 0;
    for (int i = 0; i < bytes; i++)
        v |= (uint64_t)r->p[i] << (8 * i);
    r->p += bytes;
    r->left -= (size_t)bytes;
    return v;
}

static unsigned get_u8(rbuf_t *r)
{
    return (unsigned)get_u(r, 1);
}

static int64_t get_varint(rbuf_t *r, int max_bytes)
{
    uint64_t z = 0;
    for (int i = 0; !r->bad; i++) {
        if (i == max_bytes) return fail(r, "bad number"), 0;
        if (r->left == 0) return fail(r, "truncated"), 0;
        unsigned c = *r->p++;
        r->left--;
        z |= (uint64_t)(c & 0x7f) << (7 * i);
        if (!(c & 0x80)) break;
    }
    return r->bad ? 0 : (int64_t)((z >> 1) ^ (~(z & 1) + 1));
}

static int32_t get_i32(rbuf_t *r)
{
    int64_t v = get_varint(r, 5);
    if (v < INT32_MIN || v > INT32_MAX) return fail(r, "bad number"), 0;
    return (int32_t)v;
}

static int64_t get_i64(rbuf_t *r)
{
    return get_varint(r, 10);
}

/* A count of records of at least `min` bytes each: in [0, max] and no more
 * than the bytes left could hold. */
static int get_count(rbuf_t *r, int64_t max, size_t min, const char *what)
{
    int32_t n = get_i32(r);
    if (r->bad) return 0;
    if (n < 0 || n > max || (size_t)n > r->left / (min ? min : 1)) {
        char m[96];
        snprintf(m, sizeof m, "bad %s count %d", what, (int)n);
        fail(r, m);
        return 0;
    }
    return n;
}

static int get_ndim(rbuf_t *r)
{
    unsigned nd = get_u8(r);
    if (nd > MR_MAXDIM) return fail(r, "too many dimensions"), 0;
    return (int)nd;
}

static int64_t *get_i64s(rbuf_t *r, int n)
{
    if (r->bad || (size_t)n > r->left) { /* a byte each at least */
        fail(r, "truncated");
        return NULL;
    }
    int64_t *v = arena_alloc(r->t->arena, sizeof(int64_t) * (size_t)(n + 1));
    for (int i = 0; i < n; i++)
        v[i] = get_i64(r);
    return v;
}

static int get_dt(rbuf_t *r)
{
    unsigned dt = get_u8(r);
    if (dt >= DT_NTYPES) return fail(r, "bad dtype"), 0;
    return (int)dt;
}

static int32_t get_node(rbuf_t *r)
{
    int32_t n = get_i32(r);
    if (!r->bad && (n < 0 || n >= r->g->n_nodes)) fail(r, "node index out of range");
    return r->bad ? 0 : n;
}

/* Elements of a shape, each extent >= 0, the whole at most
 * JD_MAX_BYTES / es. -1 when not. */
static int64_t elems_checked(int nd, const int64_t *shape, size_t es)
{
    int64_t n = 1, lim = JD_MAX_BYTES / (int64_t)(es ? es : 1);
    for (int d = 0; d < nd; d++) {
        if (shape[d] < 0 || (shape[d] > 0 && n > lim / shape[d])) return -1;
        n *= shape[d];
    }
    return n;
}

/* The job header: kind, dtype, shape, flags, node. */
static void get_head(rbuf_t *r, job_t *j)
{
    unsigned kind = get_u8(r);
    if (kind >= JK__COUNT) fail(r, "bad job kind");
    j->kind = (uint8_t)kind;
    j->dt = (uint8_t)get_dt(r);
    j->ndim = (int8_t)get_ndim(r);
    unsigned fl = get_u8(r);
    j->blob = fl & 1;
    j->keep = (fl & 2) != 0;
    j->node = get_node(r);
    j->shape = get_i64s(r, j->ndim);
    if (!r->bad && elems_checked(j->ndim, j->shape, dt_size((dtype_t)j->dt)) < 0)
        fail(r, "bad chunk shape");
}

/* Reads a piece; src_elems: elements of its source (per source index),
 * or gen_elems for a generated box (src -1 required); dst_elems of the
 * array it writes. Checks that every element read and written is
 * inside. */
static void get_piece(rbuf_t *r, piece_t *p, int nsrc, const int64_t *src_elems, int64_t gen_elems,
                      int64_t dst_elems)
{
    int32_t s = get_i32(r);
    if (gen_elems >= 0 ? s != -1 : (s < 0 || s >= nsrc)) fail(r, "piece source out of range");
    p->src = r->bad ? -1 : gen_elems >= 0 ? -1 : 1 + s;
    p->ndim = get_ndim(r);
    p->count = get_i64s(r, p->ndim);
    p->src_stride = get_i64s(r, p->ndim);
    p->dst_stride = get_i64s(r, p->ndim);
    p->src_off = get_i64(r);
    p->dst_off = get_i64(r);
    if (r->bad) return;
    int64_t smax = gen_elems >= 0 ? gen_elems : src_elems[s];
    /* [lo, hi] of the element offsets read and written */
    int64_t slo = p->src_off, shi = p->src_off, dlo = p->dst_off, dhi = p->dst_off;
    if (slo < -JD_MAX_BYTES || slo > JD_MAX_BYTES || dlo < -JD_MAX_BYTES || dlo > JD_MAX_BYTES)
        return (void)fail(r, "bad piece offset");
    bool empty = false;
    for (int d = 0; d < p->ndim; d++) {
        int64_t c = p->count[d];
        if (c < 0 || c > JD_MAX_BYTES) return (void)fail(r, "bad piece count");
        if (c == 0) empty = true;
        int64_t span;
        int64_t ss = p->src_stride[d], ds = p->dst_stride[d];
        if (ss < -JD_MAX_BYTES || ss > JD_MAX_BYTES || ds < -JD_MAX_BYTES || ds > JD_MAX_BYTES)
            return (void)fail(r, "bad piece stride");
        if (c > 1) {
            /* each bound stays within JD_MAX_BYTES, so a span that
             * overflows it by adding is a bad piece too */
            if (__builtin_mul_overflow(ss, c - 1, &span) ||
                __builtin_add_overflow(span < 0 ? slo : shi, span, span < 0 ? &slo : &shi))
                return (void)fail(r, "bad piece");
            if (__builtin_mul_overflow(ds, c - 1, &span) ||
                __builtin_add_overflow(span < 0 ? dlo : dhi, span, span < 0 ? &dlo : &dhi))
                return (void)fail(r, "bad piece");
            if (slo < -JD_MAX_BYTES || shi > JD_MAX_BYTES || dlo < -JD_MAX_BYTES ||
                dhi > JD_MAX_BYTES)
                return (void)fail(r, "bad piece");
        }
    }
    if (empty) return;
    if (slo < 0 || shi >= smax) fail(r, "a piece reads outside its source chunk");
    if (dlo < 0 || dhi >= dst_elems) fail(r, "a piece writes outside its input array");
}

static void get_prog(rbuf_t *r, ew_prog_t *p)
{
    memset(p, 0, sizeof *p);
    p->n_inputs = get_i32(r);
    p->n_regs = get_i32(r);
    p->n_ins = get_i32(r);
    p->out = get_i32(r);
    if (r->bad) return;
    if (p->n_regs < 0 || p->n_regs > EW_MAX_REGS || p->n_inputs < 0 || p->n_inputs > p->n_regs ||
        p->n_ins < 0 || p->n_ins > EW_MAX_INS || p->out < 0 || p->out >= p->n_regs)
        return (void)fail(r, "bad element-wise program");
    for (int i = 0; i < p->n_regs && !r->bad; i++) {
        p->reg_dt[i] = (uint8_t)get_dt(r);
        p->is_const[i] = get_u8(r) != 0;
        if (!p->is_const[i]) continue;
        unsigned kind = get_u8(r);
        uint64_t bits = get_u(r, 8);
        if (kind > SC_FLOAT) return (void)fail(r, "bad constant");
        p->konst[i].kind = (scalar_kind_t)kind;
        if (kind == SC_BOOL)
            p->konst[i].b = bits != 0;
        else if (kind == SC_INT)
            p->konst[i].i = (int64_t)bits;
        else
            memcpy(&p->konst[i].f, &bits, 8);
    }
    for (int i = 0; i < p->n_ins && !r->bad; i++) {
        ew_ins_t *x = &p->ins[i];
        int32_t op = get_i32(r);
        if (op < 0 || op >= OP_COUNT) return (void)fail(r, "bad op in a program");
        x->op = (int16_t)op;
        x->dt = (uint8_t)get_dt(r);
        x->dst = (int8_t)get_u8(r);
        x->a = (int8_t)get_u8(r);
        x->b = (int8_t)get_u8(r);
        x->c = (int8_t)get_u8(r);
        /* a register is written once, by an instruction, after the inputs */
        if (x->dst < p->n_inputs || x->dst >= p->n_regs || x->a < -1 || x->a >= p->n_regs ||
            x->b < -1 || x->b >= p->n_regs || x->c < -1 || x->c >= p->n_regs)
            return (void)fail(r, "program register out of range");
    }
}

/* put_fancy's index, its counts and ranges checked (check_job checks it
 * against the job's node and inputs). */
static const fancy_t *get_fancy(rbuf_t *r)
{
    fancy_t *fx = arena_alloc(r->t->arena, sizeof *fx);
    memset(fx, 0, sizeof *fx);
    unsigned mode = get_u8(r), flags = get_u8(r);
    if (mode > FXM_MASKFILL || flags > 7) fail(r, "bad advanced index");
    fx->mode = (uint8_t)mode;
    fx->held = flags & 1;
    fx->flat_src = flags >> 1 & 1;
    fx->set = flags >> 2 & 1;
    fx->src_in = get_i32(r);
    fx->value_in = get_i32(r);
    fx->n_ent = get_i32(r);
    if (fx->n_ent < 0 || fx->n_ent > 2 * MR_MAXDIM) return fail(r, "bad advanced index"), NULL;
    for (int k = 0; k < fx->n_ent && !r->bad; k++) {
        fx_ent_t *e = &fx->ent[k];
        unsigned kind = get_u8(r);
        if (kind > FX_COND) fail(r, "bad advanced index");
        e->kind = (uint8_t)kind;
        e->in = get_i32(r);
        e->axis = get_i32(r);
        e->nax = get_i32(r);
        if (e->axis < 0 || e->axis >= MR_MAXDIM || e->nax < 0 || e->nax > MR_MAXDIM)
            fail(r, "bad advanced index");
        e->ix.is_int = get_u8(r) != 0;
        e->ix.i = get_i64(r);
        e->ix.start = get_i64(r);
        e->ix.stop = get_i64(r);
        e->ix.step = get_i64(r);
        e->ix.len = get_i64(r);
    }
    fx->src_nch = get_i32(r);
    if (fx->src_nch < 0 || fx->src_nch > INT32_MAX / 2) return fail(r, "bad advanced index"), NULL;
    if (fx->src_nch > 0) {
        int64_t *rows = get_i64s(r, fx->src_nch + 1);
        fx->src_rows = rows;
        for (int i = 0; rows && i < fx->src_nch && !r->bad; i++)
            if (rows[0] != 0 || rows[i + 1] < rows[i]) fail(r, "bad advanced index");
    }
    return fx;
}

static const jparam_t *get_param(rbuf_t *r)
{
    if (!get_u8(r) || r->bad) return NULL;
    jparam_t *pa = arena_alloc(r->t->arena, sizeof *pa);
    memset(pa, 0, sizeof *pa);
    int32_t op = get_i32(r);
    if (op < 0 || op >= OP_COUNT) fail(r, "bad op");
    pa->op = (op_t)(r->bad ? 0 : op);
    pa->axes = (uint32_t)get_u(r, 4);
    pa->in_dt = (dtype_t)get_dt(r);
    pa->n_reduced = get_i64(r);
    pa->ddof = get_i64(r);
    unsigned gnd = get_u8(r);
    if (gnd != 255) {
        if (gnd > MR_MAXDIM) return fail(r, "too many dimensions"), NULL;
        shape_t *gs = arena_alloc(r->t->arena, sizeof *gs);
        memset(gs, 0, sizeof *gs);
        gs->ndim = (int)gnd;
        for (int d = 0; d < gs->ndim; d++)
            gs->d[d] = get_i64(r);
        if (!r->bad && elems_checked(gs->ndim, gs->d, 1) < 0) fail(r, "bad shape");
        pa->gshape = gs;
    }
    pa->axis = get_i32(r);
    if (pa->axis < -MR_MAXDIM || pa->axis > MR_MAXDIM) fail(r, "bad axis");
    pa->td_n = get_i32(r);
    if (pa->td_n < 0 || pa->td_n > MR_MAXDIM) return fail(r, "bad contraction"), NULL;
    for (int i = 0; i < 2 * pa->td_n; i++) {
        int32_t a = get_i32(r);
        if (a < 0 || a >= MR_MAXDIM) return fail(r, "bad contraction axis"), NULL;
        if (i < pa->td_n)
            pa->td_a[i] = a;
        else
            pa->td_b[i - pa->td_n] = a;
    }
    unsigned dfk = get_u8(r);
    if (dfk >= DFJ__COUNT) fail(r, "bad DataFrame step");
    pa->dfk = (uint8_t)dfk;
    pa->la_step = get_i32(r);
    if (pa->la_step < 0 || pa->la_step > LS_LA2_WHOLE) fail(r, "bad linear algebra step");
    if (get_u8(r) && !r->bad) pa->fx = get_fancy(r);
    if (get_u8(r) && !r->bad) {
        ew_prog_t *p = arena_alloc(r->t->arena, sizeof *p);
        get_prog(r, p);
        pa->prog = p;
    }
    return pa;
}

/* A generated box's node must be a creation or random op. */
static void check_gen_node(rbuf_t *r, int32_t node)
{
    if (r->bad) return;
    int k = op_kind(r->g->nodes[node].op);
    if (k != OPK_CREATE && k != OPK_RANDOM)
        fail(r, "generated input of a node that is no creation");
}

/* The box (ndim, off, len) lies inside generated node `node`, whose
 * elements are of the input's dtype dt (the kernels write them as such). */
static void check_gen_box(rbuf_t *r, int32_t node, dtype_t dt, int ndim, const int64_t *off,
                          const int64_t *len)
{
    if (r->bad) return;
    const graph_node_t *n = &r->g->nodes[node];
    if (n->odtype != dt) return (void)fail(r, "a generated input of another dtype");
    if (ndim != n->oshape.ndim) return (void)fail(r, "a generated box of another rank");
    for (int d = 0; d < ndim; d++)
        if (off[d] < 0 || len[d] < 0 || off[d] > n->oshape.d[d] || len[d] > n->oshape.d[d] - off[d])
            return (void)fail(r, "a generated box outside its tensor");
}

static void get_input(rbuf_t *r, jin_t *in, int nsrc, const int64_t *src_elems)
{
    memset(in, 0, sizeof *in);
    int32_t s = get_i32(r);
    if (s < -1 || s >= nsrc) fail(r, "input source out of range");
    in->job = r->bad || s < 0 ? -1 : 1 + s;
    in->ndim = get_ndim(r);
    in->shape = get_i64s(r, in->ndim);
    in->dt = (dtype_t)get_dt(r);
    if (r->bad) return;
    int64_t el = elems_checked(in->ndim, in->shape, dt_size(in->dt));
    if (el < 0) return (void)fail(r, "bad input shape");
    if (s >= 0 && src_elems[s] >= 0 &&
        (int64_t)dt_size(in->dt) * el > src_elems[s] * (int64_t)dt_size(r->t->jobs[1 + s].dt))
        return (void)fail(r, "an input is larger than the chunk it reads");
    in->n_pieces = get_count(r, INT32_MAX, 4, "piece");
    if (s >= 0 && in->n_pieces) return (void)fail(r, "a whole input with pieces");
    if (in->n_pieces) {
        in->pieces = arena_alloc(r->t->arena, sizeof(piece_t) * (size_t)in->n_pieces);
        /* pieces read the sources' elements of the input's dtype */
        for (int q = 0; q < in->n_pieces && !r->bad; q++) {
            get_piece(r, &in->pieces[q], nsrc, src_elems, -1, el);
            if (!r->bad && r->t->jobs[in->pieces[q].src].dt != in->dt)
                fail(r, "a piece of another dtype");
        }
    }
    in->gen_node = get_i32(r);
    if (r->bad) return;
    if (in->gen_node >= 0) {
        if (s >= 0 || in->n_pieces) return (void)fail(r, "a generated input with a source");
        if (in->gen_node >= r->g->n_nodes) return (void)fail(r, "node index out of range");
        check_gen_node(r, in->gen_node);
        in->gen_off = get_i64s(r, in->ndim);
        check_gen_box(r, in->gen_node, in->dt, in->ndim, in->gen_off, in->shape);
    } else {
        in->gen_node = -1;
    }
    in->n_gpieces = get_count(r, INT32_MAX, 6, "generated piece");
    if (in->n_gpieces && s >= 0) return (void)fail(r, "a whole input with generated pieces");
    if (in->n_gpieces)
        in->gpieces = arena_alloc(r->t->arena, sizeof(gpiece_t) * (size_t)in->n_gpieces);
    for (int q = 0; q < in->n_gpieces && !r->bad; q++) {
        gpiece_t *g = &in->gpieces[q];
        g->node = get_node(r);
        check_gen_node(r, g->node);
        g->ndim = get_ndim(r);
        g->off = get_i64s(r, g->ndim);
        g->len = get_i64s(r, g->ndim);
        check_gen_box(r, g->node, in->dt, g->ndim, g->off, g->len);
        if (r->bad) return;
        int64_t ge = elems_checked(g->ndim, g->len, dt_size(in->dt));
        if (ge < 0) return (void)fail(r, "bad generated box");
        get_piece(r, &g->p, nsrc, src_elems, ge, el);
    }
}

/* ---- what the kernels assume of the shapes they are given -------------- */

/* Input `in` broadcasts (numpy, aligned on the right) to nd/shape. */
static bool broadcasts(const jin_t *in, int nd, const int64_t *shape)
{
    if (in->ndim > nd) return false;
    for (int d = 0; d < in->ndim; d++) {
        int64_t a = in->shape[in->ndim - 1 - d], b = shape[nd - 1 - d];
        if (a != b && a != 1) return false;
    }
    return true;
}

static int64_t in_bytes(const jin_t *in)
{
    return prod(in->ndim, in->shape) * (int64_t)dt_size(in->dt);
}

/* The shapes of a block product's pairs agree with each other and with
 * the output (kern_tensordot, kern_matmul, kern_syrk). */
static bool products_agree(const job_t *j)
{
    const jparam_t *pa = j->param;
    for (int k = 0; k < j->n_in; k++)
        if (j->in[k].dt != j->dt) return false;
    if (j->kind == JK_SYRK) {
        for (int k = 0; k < j->n_in; k++) {
            const jin_t *a = &j->in[k];
            if (a->ndim != 2 || j->ndim != 2 || j->shape[0] != a->shape[0] ||
                j->shape[1] != a->shape[0])
                return false;
        }
        return true;
    }
    if (j->n_in % 2) return false;
    for (int k = 0; k < j->n_in; k += 2) {
        const jin_t *a = &j->in[k], *b = &j->in[k + 1];
        if (j->kind == JK_MATMUL) {
            if (a->ndim < 2 || b->ndim < 2 || j->ndim < 2 || a->ndim > j->ndim ||
                b->ndim > j->ndim || a->shape[a->ndim - 1] != b->shape[b->ndim - 2] ||
                j->shape[j->ndim - 2] != a->shape[a->ndim - 2] ||
                j->shape[j->ndim - 1] != b->shape[b->ndim - 1])
                return false;
            for (int d = 3; d <= j->ndim; d++) { /* batch axes broadcast */
                int64_t o = j->shape[j->ndim - d];
                int64_t x = d <= a->ndim ? a->shape[a->ndim - d] : 1;
                int64_t y = d <= b->ndim ? b->shape[b->ndim - d] : 1;
                if ((x != o && x != 1) || (y != o && y != 1)) return false;
            }
            continue;
        }
        /* tensordot: contracted axes in range and equal; out = free axes */
        bool ca[MR_MAXDIM] = {0}, cb[MR_MAXDIM] = {0};
        for (int i = 0; i < pa->td_n; i++) {
            int x = pa->td_a[i], y = pa->td_b[i];
            if (x >= a->ndim || y >= b->ndim || ca[x] || cb[y] || a->shape[x] != b->shape[y])
                return false;
            ca[x] = cb[y] = true;
        }
        int o = 0;
        for (int d = 0; d < a->ndim; d++)
            if (!ca[d] && (o >= j->ndim || j->shape[o++] != a->shape[d])) return false;
        for (int d = 0; d < b->ndim; d++)
            if (!cb[d] && (o >= j->ndim || j->shape[o++] != b->shape[d])) return false;
        if (o != j->ndim) return false;
    }
    return true;
}

/* A reduction map's regions: their inputs and partials fit (kern_red_map:
 * partial positions are the region's shape with the reduced axes of size
 * 1). */
static bool red_map_agrees(const job_t *j, int nr)
{
    const jparam_t *pa = j->param;
    int nd = pa->gshape->ndim, per = j->n_in / nr;
    if (pa->axes >> nd) return false;
    for (int r = 0; r < nr; r++) {
        int64_t shape[MR_MAXDIM];
        if (pa->prog) {
            for (int d = 0; d < nd; d++)
                shape[d] = j->vshape[r * nd + d];
            for (int k = 0; k < per; k++)
                if (!broadcasts(&j->in[r * per + k], nd, shape)) return false;
        } else {
            const jin_t *in = &j->in[r * per];
            if (per != 1 || in->ndim != nd) return false;
            memcpy(shape, in->shape, sizeof(int64_t) * (size_t)nd);
        }
        int64_t n_out = 1;
        for (int d = 0; d < nd; d++)
            if (!(pa->axes >> d & 1)) n_out *= shape[d];
        if (kern_red_partial_bytes(pa->op, pa->in_dt, n_out) != job_nbytes(j)) return false;
    }
    return true;
}

static int64_t vol(int nd, const int64_t *d)
{
    int64_t v = 1;
    for (int k = 0; k < nd; k++)
        v = d[k] > 0 && v > INT64_MAX / d[k] ? INT64_MAX : v * d[k];
    return v;
}

/* The shapes kern/la2.c assumes of a QR, SVD, eigh or slogdet step. */
static void check_la2(rbuf_t *r, const job_t *j, int step)
{
    const graph_node_t *n = &r->g->nodes[j->node];
    if (!graph_la2_op(n->op) || (j->dt != DT_FLOAT64 && j->dt != DT_FLOAT32))
        return (void)fail(r, "a QR, SVD, eigh or slogdet step of another node");
    int64_t out = vol(j->ndim, j->shape);
    const jin_t *a = j->n_in > 0 ? &j->in[0] : NULL, *b = j->n_in > 1 ? &j->in[1] : NULL;
    bool ok = false;
    switch (step) {
    case LS_QR_LOCAL:
        ok = j->n_in == 1 && a->ndim == 2 && a->shape[0] >= a->shape[1] && j->ndim == 1 &&
             out == a->shape[1] * a->shape[1] + a->shape[0] * a->shape[1];
        break;
    case LS_QR_MERGE: {
        int64_t p = j->n_in, c = 0;
        while ((c + 1) * (c + 1) * (p + 1) <= out)
            c++;
        ok = p >= 1 && j->ndim == 1 && c * c * (p + 1) == out;
        for (int k = 0; ok && k < j->n_in; k++)
            ok = j->in[k].ndim == 1 && j->in[k].shape[0] >= c * c;
        break;
    }
    case LS_QR_APPLY: {
        ok = j->n_in == 2 && j->ndim == 2 && a->ndim == 1 && b->ndim == 1 && j->off &&
             j->off[0] >= 0;
        int64_t m = ok ? j->shape[0] : 0, c = ok ? j->shape[1] : 0;
        ok = ok && a->shape[0] == c * c + m * c && j->off[0] < INT32_MAX &&
             b->shape[0] >= (j->off[0] + 2) * c * c;
        break;
    }
    case LS_SVD_R: {
        int64_t c = 0;
        while (c + 1 + 2 * (c + 1) * (c + 1) <= out)
            c++;
        ok = j->n_in == 1 && j->ndim == 1 && c + 2 * c * c == out && a->ndim == 1 &&
             a->shape[0] >= c * c;
        break;
    }
    case LS_SVD_U:
        ok = j->n_in == 2 && j->ndim == 2 && a->ndim == 2 && a->shape[0] == j->shape[0] &&
             a->shape[1] == j->shape[1] && b->ndim == 1 &&
             b->shape[0] >= j->shape[1] + 2 * j->shape[1] * j->shape[1];
        break;
    case LS_LA2_WHOLE:
        if (n->op == OP_LA_LSTSQ) {
            ok = j->n_in == 2 && a->ndim == 2 && b->ndim == (n->mo_sparse ? 1 : 2) &&
                 b->shape[0] == a->shape[0] && (b->ndim == 1 || b->shape[1] == n->mo_bins) &&
                 j->ndim == 1 && out == la2_packed_len(n, a->shape[0], a->shape[1]);
            break;
        }
        ok = j->n_in == 1 && a->ndim == 2 && j->ndim == 1 &&
             out == la2_packed_len(n, a->shape[0], a->shape[1]) &&
             ((n->op != OP_LA_EIGH && n->op != OP_LA_SLOGDET) || a->shape[0] == a->shape[1]);
        break;
    default:
        break;
    }
    if (!ok) fail(r, "a QR, SVD, eigh or slogdet step of other shapes");
}

/* A job's own advanced index against its node (the graph the worker
 * parsed) and its inputs: the node's inputs it names exist, and the slices
 * and positions it takes of the source lie inside the source the job reads
 * (the job's inputs are the node's tensor inputs, in order). */
static void check_fancy(rbuf_t *r, const job_t *j, const fancy_t *fx)
{
    const graph_node_t *n = &r->g->nodes[j->node];
    const fancy_t *nf = n->fancy;
    if (!nf || fx->n_ent != nf->n_ent || fx->src_in != nf->src_in || fx->value_in != nf->value_in)
        return (void)fail(r, "an advanced index of another node");
    int src_job_in = -1, q = 0;
    for (int k = 0; k < n->n_in; k++) {
        if (n->in[k].node < 0) continue;
        if (k == fx->src_in) src_job_in = q;
        q += k == fx->src_in && fx->src_nch > 0 ? fx->src_nch : 1;
    }
    if (q != j->n_in) return (void)fail(r, "an advanced-indexing job of other inputs");
    const jin_t *src = src_job_in >= 0 ? &j->in[src_job_in] : NULL;
    jin_t whole; /* a source read through its row chunks: their rows together */
    if (src && fx->src_nch > 0) {
        if (fx->mode != FXM_INDEX || fx->set || fx->held)
            return (void)fail(r, "a chunked source outside a plain index");
        for (int i = 0; i < fx->src_nch; i++) {
            const jin_t *c = &j->in[src_job_in + i];
            if (c->ndim != src->ndim || c->dt != src->dt || c->ndim < 1 ||
                c->shape[0] != fx->src_rows[i + 1] - fx->src_rows[i])
                return (void)fail(r, "a source chunk of another shape");
            for (int d = 1; d < c->ndim; d++)
                if (c->shape[d] != src->shape[d])
                    return (void)fail(r, "a source chunk of another shape");
        }
        whole = *src;
        whole.shape = NULL;
        int64_t *sh = arena_alloc(r->t->arena, sizeof(int64_t) * (size_t)(src->ndim + 1));
        memcpy(sh, src->shape, sizeof(int64_t) * (size_t)src->ndim);
        sh[0] = fx->src_rows[fx->src_nch];
        whole.shape = sh;
        src = &whole;
    }
    for (int k = 0; k < fx->n_ent; k++) {
        const fx_ent_t *e = &fx->ent[k], *ne = &nf->ent[k];
        if (e->kind != ne->kind || e->in != ne->in || e->axis != ne->axis || e->nax != ne->nax)
            return (void)fail(r, "an advanced index of another node");
        if (e->kind != FX_SLICE && e->kind != FX_INT) continue;
        if (!src || fx->flat_src || e->axis >= src->ndim) continue;
        int64_t dim = src->shape[e->axis];
        const index_t *ix = &e->ix;
        bool ok = e->kind == FX_INT
                      ? ix->i >= 0 && ix->i < dim
                      : ix->len == 0 ||
                            (ix->step != 0 && ix->start >= 0 && ix->start < dim && ix->len > 0 &&
                             ix->len <= dim && ix->start + ix->step * (ix->len - 1) >= 0 &&
                             ix->start + ix->step * (ix->len - 1) < dim);
        if (!ok) return (void)fail(r, "an advanced index outside its source");
    }
}

/* What exec reads of the job beyond its inputs (off, vshape, regions). */
static void check_job(rbuf_t *r, const job_t *j, int n_off, int n_vs)
{
    if (r->bad) return;
    const jparam_t *pa = j->param;
    switch ((job_kind_t)j->kind) {
    case JK_CREATE:
    case JK_RANDOM:
        if (n_off < r->g->nodes[j->node].oshape.ndim || n_off < j->ndim)
            fail(r, "a creation job without its offset");
        break;
    case JK_EW:
        if (!pa || !pa->prog || pa->prog->n_inputs != j->n_in)
            return (void)fail(r, "an element-wise job without its program");
        for (int k = 0; k < j->n_in; k++)
            if (!broadcasts(&j->in[k], j->ndim, j->shape))
                return (void)fail(r, "an element-wise input that does not broadcast");
        if (pa->prog->reg_dt[pa->prog->out] != j->dt) fail(r, "a program of another dtype");
        break;
    case JK_GATHER:
    case JK_ALIAS:
        if (j->n_in < 1)
            fail(r, "a copy without its input");
        else if (prod(j->in[0].ndim, j->in[0].shape) * (int64_t)dt_size(j->in[0].dt) !=
                 (int64_t)job_nbytes(j))
            fail(r, "a copy of another size");
        break;
    case JK_RED_MAP: {
        int nr = j->n_regions > 1 ? j->n_regions : 1;
        if (!pa || !pa->gshape || nr > 64 || j->n_in < nr || j->n_in % nr)
            return (void)fail(r, "a bad reduction map");
        int need = nr * pa->gshape->ndim;
        if ((n_off && n_off < need) || (pa->prog && n_vs < need) ||
            (pa->prog && pa->prog->n_inputs != j->n_in / nr))
            return (void)fail(r, "a reduction map without its regions");
        if (!red_map_agrees(j, nr)) fail(r, "a reduction map whose shapes disagree");
        break;
    }
    case JK_RED_COMBINE:
    case JK_RED_FINAL: {
        size_t per = pa ? kern_red_partial_bytes(pa->op, pa->in_dt, 1) : 0;
        if (per == 0) return (void)fail(r, "a reduction job without its parameters");
        int64_t n_out =
            j->kind == JK_RED_FINAL ? prod(j->ndim, j->shape) : (int64_t)(job_nbytes(j) / per);
        for (int k = 0; k < j->n_in; k++)
            if (in_bytes(&j->in[k]) < n_out * (int64_t)per)
                return (void)fail(r, "a partial smaller than its reduction");
        if (j->kind == JK_RED_FINAL && j->n_in < 1) fail(r, "a reduction without its partials");
        break;
    }
    case JK_SCAN_LOCAL:
    case JK_SCAN_CARRY:
    case JK_SCAN_APPLY: {
        int need = j->kind == JK_SCAN_APPLY ? 2 : 1;
        if (!pa || pa->axis < 0 || pa->axis >= j->ndim || j->n_in < need || j->n_in > 2)
            return (void)fail(r, "a scan job without its parameters");
        /* local: the chunk; carries: the chunk with the axis of size 1 */
        for (int k = 0; k < j->n_in; k++) {
            const jin_t *in = &j->in[k];
            if (in->ndim != j->ndim) return (void)fail(r, "a scan input of another shape");
            /* along the axis: a local chunk as the job's; a carry, or the
             * previous chunk a carry reads, any (a slice of it is read) */
            bool whole = j->kind == JK_SCAN_LOCAL || (j->kind == JK_SCAN_APPLY && k == 0);
            for (int d = 0; d < j->ndim; d++) {
                bool ok = d != pa->axis || whole ? in->shape[d] == j->shape[d]
                                                 : in->shape[d] >= 1 || j->shape[d] == 0;
                if (!ok) return (void)fail(r, "a scan input of another shape");
            }
        }
        break;
    }
    case JK_TENSORDOT:
    case JK_MATMUL:
    case JK_SYRK:
        if (!pa) return (void)fail(r, "a job without its parameters");
        if (!products_agree(j)) fail(r, "a block product whose shapes disagree");
        break;
    case JK_DF:
        if (!pa) return (void)fail(r, "a DataFrame job without its parameters");
        if (pa->dfk == DFJ_MULTI) {
            /* off[q]: input q's first slot, off[nin]: their end */
            int nin = df_multi_inputs(r->g, j->node);
            if (n_off != nin + 4) return (void)fail(r, "a DataFrame job without its parameters");
            for (int q = 0; q < nin; q++)
                if (j->off[q] < 0 || j->off[q] > j->off[q + 1])
                    return (void)fail(r, "a DataFrame job reading outside its inputs");
            if (j->off[nin] != j->n_in) fail(r, "a DataFrame job reading outside its inputs");
        } else if (n_off != 4) {
            fail(r, "a DataFrame job without its parameters");
        } else if (pa->dfk == DFJ_MULTIOUT && !df_multiout_step_ok(j)) { /* setops: setops.h */
            fail(r, "a DataFrame job of an unknown step");
        }
        break;
    case JK_LA:
        /* la_exec reads the node (the graph the worker parsed) and, for a
         * chunk of tril/triu or diag, its offset */
        if (!pa) return (void)fail(r, "a linear algebra job without its parameters");
        if ((pa->la_step == LS_TRI && n_off < j->ndim) || (pa->la_step == LS_DIAG && n_off != 3) ||
            (pa->la_step == LS_QR_APPLY && n_off < 1))
            fail(r, "a linear algebra job without its offset");
        if (pa->la_step >= LS_QR_LOCAL) check_la2(r, j, pa->la_step);
        break;
    case JK_FANCY:
        if (!pa) return (void)fail(r, "an advanced-indexing job without its parameters");
        if (pa->fx) check_fancy(r, j, pa->fx);
        break;
    case JK_SS: /* kern_ss reads the node (the graph the worker parsed) and param->axis */
        if (!pa) return (void)fail(r, "a sorting or statistics job without its parameters");
        if (pa->la_step == SS_SPLIT_LOW || pa->la_step == SS_SPLIT_HIGH) {
            /* the sort network's step (sortstat.h): two sorted blocks in */
            op_t op = r->g->nodes[j->node].op;
            const jin_t *a = j->n_in == 2 ? &j->in[0] : NULL, *b = a ? &j->in[1] : NULL;
            bool qnt = op == OP_PERCENTILE || op == OP_QUANTILE || op == OP_MEDIAN ||
                       op == OP_NANPERCENTILE || op == OP_NANQUANTILE || op == OP_NANMEDIAN;
            bool pr = op == OP_ARGSORT || op == OP_ARGPARTITION; /* packed pairs */
            bool ok = a && (op == OP_SORT || op == OP_PARTITION || op == OP_TOPK || pr || qnt) &&
                      j->ndim >= 1 && a->ndim == j->ndim && b->ndim == j->ndim && a->dt == j->dt &&
                      b->dt == j->dt;
            /* blocks of one line (1-D), or of lines along pa->axis (sort) */
            int ax = j->ndim == 1 ? 0 : pa->axis;
            ok = ok && (j->ndim == 1 || ((op == OP_SORT || op == OP_ARGSORT || op == OP_PARTITION ||
                                          op == OP_ARGPARTITION || op == OP_TOPK || qnt) &&
                                         ax >= 0 && ax < j->ndim));
            for (int d = 0; ok && d < j->ndim; d++)
                ok = d == ax
                         ? j->shape[d] == (pa->la_step == SS_SPLIT_HIGH ? b->shape[d] : a->shape[d])
                         : a->shape[d] == j->shape[d] && b->shape[d] == j->shape[d];
            if (ok && pr)
                ok = j->dt == DT_INT64 && a->shape[ax] % 2 == 0 && b->shape[ax] % 2 == 0 &&
                     pa->in_dt < DT_NTYPES;
            if (!ok) fail(r, "a sort network step of other shapes");
        } else if (pa->la_step == SS_SORT1) {
            op_t op = r->g->nodes[j->node].op;
            const jin_t *a = j->n_in == 1 ? &j->in[0] : NULL;
            bool ok = a &&
                      (op == OP_PERCENTILE || op == OP_QUANTILE || op == OP_MEDIAN ||
                       op == OP_NANPERCENTILE || op == OP_NANQUANTILE || op == OP_NANMEDIAN ||
                       op == OP_PARTITION || op == OP_TOPK) &&
                      j->ndim >= 1 && a->ndim == j->ndim && a->dt == j->dt &&
                      (j->ndim == 1 || (pa->axis >= 0 && pa->axis < j->ndim));
            for (int d = 0; ok && d < j->ndim; d++)
                ok = a->shape[d] == j->shape[d];
            if (!ok) fail(r, "a sorted block of other shapes");
        } else if (pa->la_step == SS_QPICK) {
            const graph_node_t *nd = &r->g->nodes[j->node];
            const jin_t *a = j->n_in == 1 ? &j->in[0] : NULL;
            int nq = nd->op == OP_MEDIAN ? 1 : nd->ss ? nd->ss->nq : -1;
            int ax = a && a->ndim > 1 ? pa->axis : 0;
            bool ok = a &&
                      (nd->op == OP_PERCENTILE || nd->op == OP_QUANTILE || nd->op == OP_MEDIAN) &&
                      nq >= 1 && a->ndim >= 1 && ax >= 0 && ax < a->ndim &&
                      a->shape[ax] == 2 * (int64_t)nq + 1 &&
                      vol(j->ndim, j->shape) == nq * (vol(a->ndim, a->shape) / a->shape[ax]);
            if (!ok) fail(r, "a quantile step of other shapes");
        } else if (pa->la_step == SS_NANCOUNT || pa->la_step == SS_NPICK ||
                   pa->la_step == SS_NQPICK) {
            /* nan-statistics of a long line (sortstat.h) */
            const graph_node_t *nd = &r->g->nodes[j->node];
            bool nanq =
                nd->op == OP_NANPERCENTILE || nd->op == OP_NANQUANTILE || nd->op == OP_NANMEDIAN;
            int nq = nd->op == OP_NANMEDIAN ? 1 : nd->ss ? nd->ss->nq : -1;
            bool ok = nanq && nq >= 1;
            /* blocks of lines along pa->axis (1-D: axis 0); counts: extent 1
             * there, picks: 2 per q there */
            const jin_t *a = j->n_in >= 1 ? &j->in[0] : NULL;
            int ax = a && a->ndim > 1 ? pa->axis : 0;
            ok = ok && a && ax >= 0 && ax < a->ndim;
            bool same_nd = ok && a->ndim == j->ndim;
            int64_t lines =
                same_nd ? vol(j->ndim, j->shape) / (j->shape[ax] ? j->shape[ax] : 1) : 0;
            if (ok && pa->la_step == SS_NANCOUNT) {
                ok = same_nd && j->n_in == 1 && j->dt == DT_INT64 && j->shape[ax] == 1;
                for (int d = 0; ok && d < j->ndim; d++)
                    ok = d == ax || j->shape[d] == a->shape[d];
            } else if (ok && pa->la_step == SS_NPICK) {
                ok = same_nd && j->n_in >= 2 && a->dt == j->dt && j->shape[ax] == 2 * (int64_t)nq &&
                     j->off && j->off[0] >= 0;
                for (int d = 0; ok && d < j->ndim; d++)
                    ok = d == ax || j->shape[d] == a->shape[d];
                for (int k = 1; ok && k < j->n_in; k++)
                    ok = j->in[k].dt == DT_INT64 && vol(j->in[k].ndim, j->in[k].shape) == lines;
            } else if (ok) {
                int p = j->n_in / 2;
                int64_t pl =
                    a->shape[ax] == 2 * (int64_t)nq ? vol(a->ndim, a->shape) / (2 * nq) : -1;
                ok = p >= 1 && j->n_in == 2 * p && j->off && j->off[0] == 0 && pl >= 0 &&
                     vol(j->ndim, j->shape) == nq * pl;
                for (int k = 0; ok && k < p; k++)
                    ok = j->in[k].ndim == a->ndim && j->in[k].shape[ax] == 2 * (int64_t)nq &&
                         vol(j->in[k].ndim, j->in[k].shape) == 2 * nq * pl &&
                         j->in[k].dt == a->dt && j->in[p + k].dt == DT_INT64 &&
                         vol(j->in[p + k].ndim, j->in[p + k].shape) == pl &&
                         j->off[k + 1] >= j->off[k];
            }
            if (!ok) fail(r, "a nan-statistics step of other shapes");
        } else if (pa->la_step == SS_AVGPART || pa->la_step == SS_AVGFIN) {
            /* average of long lines (sortstat.h): parts of extent 2 along the axis */
            const graph_node_t *nd = &r->g->nodes[j->node];
            const jin_t *a = j->n_in >= 1 ? &j->in[0] : NULL;
            int ax = pa->axis;
            bool ok = nd->op == OP_AVERAGE && nd->ss && a && ax >= 0 && ax < a->ndim;
            if (ok && pa->la_step == SS_AVGPART) {
                ok = j->n_in == (nd->n_in > 1 ? 2 : 1) && j->dt == DT_FLOAT64 &&
                     j->ndim == a->ndim && j->shape[ax] == 2;
                for (int d = 0; ok && d < j->ndim; d++)
                    ok = d == ax || j->shape[d] == a->shape[d];
                if (ok && j->n_in == 2) {
                    const jin_t *w = &j->in[1];
                    if (nd->ss->w_line) {
                        ok = w->ndim == 1 && w->shape[0] == a->shape[ax];
                    } else {
                        ok = w->ndim == a->ndim;
                        for (int d = 0; ok && d < a->ndim; d++)
                            ok = w->shape[d] == a->shape[d];
                    }
                }
            } else if (ok) {
                int64_t v = vol(a->ndim, a->shape);
                ok = (j->dt == DT_FLOAT32 || j->dt == DT_FLOAT64) && a->shape[ax] == 2 &&
                     vol(j->ndim, j->shape) == v / 2;
                for (int k = 0; ok && k < j->n_in; k++)
                    ok = j->in[k].dt == DT_FLOAT64 && j->in[k].ndim == a->ndim &&
                         j->in[k].shape[ax] == 2 && vol(j->in[k].ndim, j->in[k].shape) == v;
            }
            if (!ok) fail(r, "an average step of other shapes");
        } else if (pa->la_step == SS_PACK) {
            const jin_t *a = j->n_in == 1 ? &j->in[0] : NULL;
            op_t op = r->g->nodes[j->node].op;
            int ax = j->ndim == 1 ? 0 : pa->axis;
            bool ok = a && (op == OP_ARGSORT || op == OP_ARGPARTITION) && j->ndim >= 1 &&
                      a->ndim == j->ndim && ax >= 0 && ax < j->ndim && a->dt == pa->in_dt &&
                      j->dt == DT_INT64 && j->off && j->off[0] >= 0;
            for (int d = 0; ok && d < j->ndim; d++)
                ok = j->shape[d] == (d == ax ? 2 : 1) * a->shape[d];
            if (!ok) fail(r, "an argsort block of other shapes");
        } else if (pa->la_step != SS_STEP_LINE) {
            fail(r, "a sorting job of an unknown step");
        }
        break;
    case JK__COUNT:
        fail(r, "bad job kind");
        break;
    case JK_SOURCE:
        fail(r, "a source chunk is no job to run");
        break;
    }
}

int jobdesc_decode(const void *buf, size_t len, const graph_t *g, tile_t **out, char *err,
                   size_t errlen)
{
    rbuf_t r = {.p = buf, .left = len, .err = err, .errlen = errlen, .g = g};
    *out = NULL;
    if (len < 4 || memcmp(buf, MAGIC, 4) != 0) {
        snprintf(err, errlen, "job descriptor: not one (bad magic)");
        return -1;
    }
    r.p += 4;
    r.left -= 4;
    tile_t *t = calloc(1, sizeof *t);
    if (!t || !(t->arena = arena_create())) {
        free(t);
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    r.t = t;
    t->g = g;
    int32_t id = get_i32(&r);
    /* a source record holds at least 8 bytes */
    int nsrc = get_count(&r, INT32_MAX - 2, 8, "source");
    if (r.bad) goto bad;
    t->n_jobs = t->cap_jobs = nsrc + 1;
    t->jobs = calloc((size_t)t->n_jobs, sizeof(job_t));
    t->live = malloc((size_t)t->n_jobs);
    t->ids = arena_alloc(t->arena, sizeof(int32_t) * (size_t)t->n_jobs);
    int64_t *src_elems = arena_alloc(t->arena, sizeof(int64_t) * (size_t)(nsrc + 1));
    if (!t->jobs || !t->live) {
        snprintf(err, errlen, "out of memory");
        tile_free(t);
        return -1;
    }
    memset(t->live, 1, (size_t)t->n_jobs);
    t->ids[0] = id;
    if (id < 0) fail(&r, "bad job index");
    for (int i = 0; i < nsrc && !r.bad; i++) {
        job_t *s = &t->jobs[1 + i];
        t->ids[1 + i] = get_i32(&r);
        if (t->ids[1 + i] < 0 || t->ids[1 + i] >= id) fail(&r, "a source after its consumer");
        get_head(&r, s);
        s->source_index = get_i64(&r);
        unsigned dfk = get_u8(&r);
        if (r.bad) break;
        if (dfk != 255) {
            if (dfk >= DFJ__COUNT) fail(&r, "bad DataFrame step");
            jparam_t *pa = arena_alloc(t->arena, sizeof *pa);
            memset(pa, 0, sizeof *pa);
            pa->op = g->nodes[s->node].op;
            pa->dfk = (uint8_t)dfk;
            s->param = pa;
        }
        s->off = arena_alloc(t->arena, sizeof(int64_t) * 4);
        memset(s->off, 0, sizeof(int64_t) * 4);
        src_elems[i] = s->blob ? -1 : prod(s->ndim, s->shape);
    }
    job_t *j = &t->jobs[0];
    get_head(&r, j);
    int n_off = get_count(&r, 64 * MR_MAXDIM, 1, "offset");
    j->off = n_off ? get_i64s(&r, n_off) : NULL;
    int n_vs = get_count(&r, 64 * MR_MAXDIM, 1, "region shape");
    j->vshape = n_vs ? get_i64s(&r, n_vs) : NULL;
    j->n_regions = get_i32(&r);
    if (j->n_regions < 0 || j->n_regions > 64) fail(&r, "bad region count");
    j->source_index = get_i64(&r);
    j->param = get_param(&r);
    /* an input record holds at least 6 bytes */
    j->n_in = get_count(&r, INT32_MAX, 6, "input");
    if (r.bad) goto bad;
    j->in = arena_alloc(t->arena, sizeof(jin_t) * (size_t)(j->n_in ? j->n_in : 1));
    for (int k = 0; k < j->n_in && !r.bad; k++)
        get_input(&r, &j->in[k], nsrc, src_elems);
    check_job(&r, j, n_off, n_vs);
    if (!r.bad && r.left) fail(&r, "trailing bytes");
    if (r.bad) goto bad;
    *out = t;
    return 0;
bad:
    tile_free(t);
    return -1;
}

int32_t tile_job_id(const tile_t *t, int32_t j)
{
    return t->ids ? t->ids[j] : j;
}
