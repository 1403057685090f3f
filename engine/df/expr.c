/* expr.c: query/eval expressions (expr.h). */
#include "expr.h"

#include "dates.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define EXPR_MAX_NODES 4096
#define EXPR_MAX_DEPTH 64
#define EXPR_MAX_TEXT 65536

enum { N_COL, N_NUM, N_STR, N_UN, N_BIN, N_IN };
enum {
    O_ADD,
    O_SUB,
    O_MUL,
    O_DIV,
    O_FDIV,
    O_MOD,
    O_POW,
    O_EQ,
    O_NE,
    O_LT,
    O_LE,
    O_GT,
    O_GE,
    O_AND,
    O_OR,
    O_NOT,
    O_NEG
};

typedef struct {
    uint8_t kind, op, type; /* type: FT_* */
    bool neg_in;            /* not in */
    bool when;              /* N_COL: a datetime column (compared with date strings) */
    int col;
    int64_t i;
    double f;
    char *s;
    int a, b;  /* children */
    int *list; /* N_IN: literal nodes */
    int nlist;
} enode_t;

struct dfexpr {
    enode_t *nodes;
    int n, cap, root;
};

typedef struct {
    const char *t;
    size_t pos, len;
    const char *const *names;
    const uint8_t *types;
    int ncols;
    dfexpr_t *e;
    char *err;
    size_t errlen;
    int depth;
    bool failed;
} pctx_t;

static int fail(pctx_t *p, const char *what)
{
    if (!p->failed) snprintf(p->err, p->errlen, "expr: %s at position %zu", what, p->pos);
    p->failed = true;
    return -1;
}

static int new_node(pctx_t *p, int kind)
{
    dfexpr_t *e = p->e;
    if (e->n >= EXPR_MAX_NODES) return fail(p, "expression too long");
    if (e->n == e->cap) {
        int c = e->cap ? e->cap * 2 : 16;
        enode_t *nn = realloc(e->nodes, sizeof *nn * (size_t)c);
        if (!nn) return fail(p, "out of memory");
        e->nodes = nn;
        e->cap = c;
    }
    memset(&e->nodes[e->n], 0, sizeof(enode_t));
    e->nodes[e->n].kind = (uint8_t)kind;
    return e->n++;
}

static void skip_ws(pctx_t *p)
{
    while (p->pos < p->len && (p->t[p->pos] == ' ' || p->t[p->pos] == '\t' ||
                               p->t[p->pos] == '\n' || p->t[p->pos] == '\r'))
        p->pos++;
}

static bool is_id(char c, bool first)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' ||
           (unsigned char)c >= 0x80 || (!first && c >= '0' && c <= '9');
}

/* the keyword w at the cursor (a whole word) */
static bool word(pctx_t *p, const char *w)
{
    skip_ws(p);
    size_t l = strlen(w);
    if (p->pos + l > p->len || memcmp(p->t + p->pos, w, l)) return false;
    if (p->pos + l < p->len && is_id(p->t[p->pos + l], false)) return false;
    p->pos += l;
    return true;
}

static bool sym(pctx_t *p, const char *s)
{
    skip_ws(p);
    size_t l = strlen(s);
    if (p->pos + l > p->len || memcmp(p->t + p->pos, s, l)) return false;
    /* "*" must not eat "**", "/" not "//", "<" not "<=", "=" never alone */
    if (l == 1 && p->pos + 1 < p->len) {
        char c = s[0], d = p->t[p->pos + 1];
        if ((c == '*' && d == '*') || (c == '/' && d == '/') ||
            ((c == '<' || c == '>') && d == '='))
            return false;
    }
    p->pos += l;
    return true;
}

static bool num_type(int t)
{
    return t == FT_INT64 || t == FT_FLOAT64 || t == FT_BOOL;
}

static int parse_or(pctx_t *p);

static int literal_string(pctx_t *p)
{
    char q = p->t[p->pos++];
    size_t a = p->pos;
    while (p->pos < p->len && p->t[p->pos] != q) {
        if (p->t[p->pos] == '\\') return fail(p, "escapes in strings are not supported");
        p->pos++;
    }
    if (p->pos >= p->len) return fail(p, "unterminated string");
    int k = new_node(p, N_STR);
    if (k < 0) return -1;
    enode_t *nd = &p->e->nodes[k];
    nd->type = FT_STRING;
    nd->s = malloc(p->pos - a + 1);
    if (!nd->s) return fail(p, "out of memory");
    memcpy(nd->s, p->t + a, p->pos - a);
    nd->s[p->pos - a] = 0;
    p->pos++;
    return k;
}

static int atom(pctx_t *p)
{
    skip_ws(p);
    if (p->pos >= p->len) return fail(p, "an operand is missing");
    char c = p->t[p->pos];
    if (c == '(') {
        p->pos++;
        int k = parse_or(p);
        if (k < 0) return -1;
        if (!sym(p, ")")) return fail(p, "')' expected");
        return k;
    }
    if (c == '\'' || c == '"') return literal_string(p);
    if ((c >= '0' && c <= '9') || c == '.') {
        const char *s = p->t + p->pos;
        char *end;
        bool flt = false;
        size_t q = p->pos;
        while (q < p->len && ((p->t[q] >= '0' && p->t[q] <= '9') || p->t[q] == '.' ||
                              p->t[q] == 'e' || p->t[q] == 'E' ||
                              ((p->t[q] == '+' || p->t[q] == '-') && q > p->pos &&
                               (p->t[q - 1] == 'e' || p->t[q - 1] == 'E'))))
            flt |= p->t[q] == '.' || p->t[q] == 'e' || p->t[q] == 'E', q++;
        char buf[64];
        if (q - p->pos >= sizeof buf) return fail(p, "number too long");
        memcpy(buf, s, q - p->pos);
        buf[q - p->pos] = 0;
        int k = new_node(p, N_NUM);
        if (k < 0) return -1;
        enode_t *nd = &p->e->nodes[k];
        if (flt) {
            nd->f = strtod(buf, &end);
            nd->type = FT_FLOAT64;
        } else {
            nd->i = strtoll(buf, &end, 10);
            nd->f = (double)nd->i;
            nd->type = FT_INT64;
        }
        if (*end) return fail(p, "bad number");
        p->pos = q;
        return k;
    }
    if (word(p, "True") || word(p, "False")) {
        int k = new_node(p, N_NUM);
        if (k < 0) return -1;
        p->e->nodes[k].type = FT_BOOL;
        p->e->nodes[k].i = p->t[p->pos - 1] == 'e' && p->t[p->pos - 4] == 'T';
        p->e->nodes[k].f = (double)p->e->nodes[k].i;
        return k;
    }
    /* a column: a name, or any text in backticks */
    size_t a, b;
    if (c == '`') {
        a = ++p->pos;
        while (p->pos < p->len && p->t[p->pos] != '`')
            p->pos++;
        if (p->pos >= p->len) return fail(p, "unterminated `name`");
        b = p->pos++;
    } else if (is_id(c, true)) {
        a = p->pos;
        while (p->pos < p->len && is_id(p->t[p->pos], false))
            p->pos++;
        b = p->pos;
    } else {
        return fail(p, "unexpected character");
    }
    for (int k = 0; k < p->ncols; k++)
        if (p->names[k] && strlen(p->names[k]) == b - a && !memcmp(p->names[k], p->t + a, b - a)) {
            int n = new_node(p, N_COL);
            if (n < 0) return -1;
            p->e->nodes[n].col = k;
            /* the high nibble: a datetime column's unit (expr.h) */
            p->e->nodes[n].type = p->types[k] & 15;
            p->e->nodes[n].when = (p->types[k] >> 4) != 0;
            return n;
        }
    p->pos = a;
    return fail(p, "name is not a column");
}

static int unary_type(pctx_t *p, int a)
{
    return p->e->nodes[a].type;
}

/* A string literal compared with a datetime column: the date it names,
 * as that column's integers (a literal that is no date fails). */
static int as_date(pctx_t *p, int lit)
{
    enode_t *x = &p->e->nodes[lit];
    int64_t ns;
    const char *why;
    if (x->kind != N_STR) return 0;
    if (date_parse(x->s, strlen(x->s), &ns, &why)) {
        char m[200];
        snprintf(m, sizeof m, "'%.60s' compared with a datetime column %s", x->s, why);
        return fail(p, m);
    }
    free(x->s);
    x->s = NULL;
    x->kind = N_NUM;
    x->type = FT_INT64;
    x->i = ns;
    x->f = (double)ns;
    return 0;
}

static int mk_bin(pctx_t *p, int op, int a, int b)
{
    if (a < 0 || b < 0) return -1;
    if (op >= O_EQ && op <= O_GE) {
        if (p->e->nodes[a].kind == N_COL && p->e->nodes[a].when && as_date(p, b)) return -1;
        if (p->e->nodes[b].kind == N_COL && p->e->nodes[b].when && as_date(p, a)) return -1;
    }
    int ta = p->e->nodes[a].type, tb = p->e->nodes[b].type, t;
    if (op >= O_EQ && op <= O_GE) {
        if ((ta == FT_STRING) != (tb == FT_STRING))
            return fail(p, "a string compared with a number");
        t = FT_BOOL;
    } else if (op == O_AND || op == O_OR) {
        if (ta == FT_STRING || tb == FT_STRING) return fail(p, "and/or of a string");
        t = FT_BOOL;
    } else {
        if (!num_type(ta) || !num_type(tb)) return fail(p, "arithmetic on a string");
        bool f = ta == FT_FLOAT64 || tb == FT_FLOAT64 || op == O_DIV;
        t = f ? FT_FLOAT64 : FT_INT64;
    }
    int k = new_node(p, N_BIN);
    if (k < 0) return -1;
    enode_t *nd = &p->e->nodes[k];
    nd->op = (uint8_t)op;
    nd->a = a;
    nd->b = b;
    nd->type = (uint8_t)t;
    return k;
}

static int parse_unary(pctx_t *p);

static int parse_power(pctx_t *p)
{
    int a = atom(p);
    if (a < 0) return -1;
    if (sym(p, "**")) {
        if (++p->depth > EXPR_MAX_DEPTH) return fail(p, "expression nested too deeply");
        int b = parse_unary(p); /* right-associative, binds tighter than unary on the left */
        p->depth--;
        return mk_bin(p, O_POW, a, b);
    }
    return a;
}

static int parse_unary(pctx_t *p)
{
    if (++p->depth > EXPR_MAX_DEPTH) return fail(p, "expression nested too deeply");
    int r;
    if (sym(p, "-")) {
        int a = parse_unary(p);
        if (a < 0) return -1;
        if (!num_type(unary_type(p, a))) return fail(p, "negation of a string");
        r = new_node(p, N_UN);
        if (r >= 0) {
            p->e->nodes[r].op = O_NEG;
            p->e->nodes[r].a = a;
            p->e->nodes[r].type = p->e->nodes[a].type == FT_FLOAT64 ? FT_FLOAT64 : FT_INT64;
        }
    } else if (sym(p, "+")) {
        r = parse_unary(p);
    } else {
        r = parse_power(p);
    }
    p->depth--;
    return r;
}

static int parse_mul(pctx_t *p)
{
    int a = parse_unary(p);
    while (a >= 0) {
        int op = sym(p, "//")  ? O_FDIV
                 : sym(p, "*") ? O_MUL
                 : sym(p, "/") ? O_DIV
                 : sym(p, "%") ? O_MOD
                               : -1;
        if (op < 0) break;
        a = mk_bin(p, op, a, parse_unary(p));
    }
    return a;
}

static int parse_add(pctx_t *p)
{
    int a = parse_mul(p);
    while (a >= 0) {
        int op = sym(p, "+") ? O_ADD : sym(p, "-") ? O_SUB : -1;
        if (op < 0) break;
        a = mk_bin(p, op, a, parse_mul(p));
    }
    return a;
}

static int parse_cmp(pctx_t *p)
{
    int a = parse_add(p);
    if (a < 0) return -1;
    size_t save = p->pos;
    bool neg = false;
    if (word(p, "not")) {
        if (!word(p, "in")) {
            p->pos = save;
            return a;
        }
        neg = true;
    }
    if (neg || word(p, "in")) {
        if (!sym(p, "[") && !sym(p, "(")) return fail(p, "'in' takes a list [...]");
        int k = new_node(p, N_IN);
        if (k < 0) return -1;
        int cap = 0;
        bool str = p->e->nodes[a].type == FT_STRING;
        skip_ws(p);
        while (!sym(p, "]") && !sym(p, ")")) {
            if (p->e->nodes[k].nlist && !sym(p, ",")) return fail(p, "',' expected");
            if (sym(p, "]") || sym(p, ")")) break;
            skip_ws(p);
            int v;
            bool minus = sym(p, "-");
            v = atom(p);
            if (v < 0) return -1;
            enode_t *x = &p->e->nodes[v];
            if (x->kind != N_NUM && x->kind != N_STR) return fail(p, "'in' takes literals");
            if (minus && x->kind == N_NUM) x->i = -x->i, x->f = -x->f;
            if (p->e->nodes[a].kind == N_COL && p->e->nodes[a].when && as_date(p, v)) return -1;
            x = &p->e->nodes[v];
            if ((x->kind == N_STR) != str)
                return fail(p, "'in' mixes strings and numbers with the column");
            enode_t *nd = &p->e->nodes[k];
            if (nd->nlist == cap) {
                cap = cap ? cap * 2 : 8;
                int *nl = realloc(nd->list, sizeof(int) * (size_t)cap);
                if (!nl) return fail(p, "out of memory");
                nd->list = nl;
            }
            nd->list[nd->nlist++] = v;
        }
        enode_t *nd = &p->e->nodes[k];
        nd->a = a;
        nd->neg_in = neg;
        nd->type = FT_BOOL;
        return k;
    }
    static const char *const ops[] = {"==", "!=", "<=", ">=", "<", ">"};
    static const int codes[] = {O_EQ, O_NE, O_LE, O_GE, O_LT, O_GT};
    for (int q = 0; q < 6; q++)
        if (sym(p, ops[q])) return mk_bin(p, codes[q], a, parse_add(p));
    return a;
}

static int parse_not(pctx_t *p)
{
    if (++p->depth > EXPR_MAX_DEPTH) return fail(p, "expression nested too deeply");
    int r;
    if (word(p, "not") || sym(p, "~")) {
        int a = parse_not(p);
        if (a < 0) return -1;
        if (p->e->nodes[a].type == FT_STRING) return fail(p, "not of a string");
        r = new_node(p, N_UN);
        if (r >= 0) {
            p->e->nodes[r].op = O_NOT;
            p->e->nodes[r].a = a;
            p->e->nodes[r].type = FT_BOOL;
        }
    } else {
        r = parse_cmp(p);
    }
    p->depth--;
    return r;
}

static int parse_and(pctx_t *p)
{
    int a = parse_not(p);
    while (a >= 0 && (word(p, "and") || sym(p, "&")))
        a = mk_bin(p, O_AND, a, parse_not(p));
    return a;
}

static int parse_or(pctx_t *p)
{
    if (++p->depth > EXPR_MAX_DEPTH) return fail(p, "expression nested too deeply");
    int a = parse_and(p);
    while (a >= 0 && (word(p, "or") || sym(p, "|")))
        a = mk_bin(p, O_OR, a, parse_and(p));
    p->depth--;
    return a;
}

void dfexpr_free(dfexpr_t *e)
{
    if (!e) return;
    for (int k = 0; k < e->n; k++) {
        free(e->nodes[k].s);
        free(e->nodes[k].list);
    }
    free(e->nodes);
    free(e);
}

dfexpr_t *dfexpr_parse(const char *text, const char *const *names, const uint8_t *types, int n,
                       char *err, size_t errlen)
{
    size_t len = strlen(text);
    if (len > EXPR_MAX_TEXT) {
        snprintf(err, errlen, "expr: longer than %d bytes", EXPR_MAX_TEXT);
        return NULL;
    }
    dfexpr_t *e = calloc(1, sizeof *e);
    if (!e) {
        snprintf(err, errlen, "expr: out of memory");
        return NULL;
    }
    pctx_t p = {text, 0, len, names, types, n, e, err, errlen, 0, false};
    e->root = parse_or(&p);
    skip_ws(&p);
    if (e->root >= 0 && p.pos < p.len) fail(&p, "unexpected text");
    if (e->root >= 0 && !p.failed && e->nodes[e->root].type == FT_STRING)
        fail(&p, "the expression is a string");
    if (p.failed || e->root < 0) {
        if (!p.failed) snprintf(err, errlen, "expr: invalid expression");
        dfexpr_free(e);
        return NULL;
    }
    return e;
}

int dfexpr_type(const dfexpr_t *e)
{
    return e->nodes[e->root].type;
}

/* ------------------------------------------------------------------ evaluation */

/* A value vector: numbers as doubles and int64s (per type), bools as
 * bytes; a string node is a column or a literal, compared in place. */
typedef struct {
    uint8_t t;
    double *f;
    int64_t *i;
    uint8_t *b;
} vec_t;

static void vfree(vec_t *v)
{
    free(v->f);
    free(v->i);
    free(v->b);
}

static bool str_na(const fcol_t *c, int64_t r)
{
    return fcol_is_na(c, r);
}

static int eval(const dfexpr_t *e, int k, const frame_t *f, vec_t *out);

static double vf(const vec_t *v, int64_t r)
{
    return v->t == FT_FLOAT64 ? v->f[r] : v->t == FT_INT64 ? (double)v->i[r] : v->b[r];
}

static int64_t vi(const vec_t *v, int64_t r)
{
    return v->t == FT_INT64 ? v->i[r] : v->b[r];
}

static const char *sval(const dfexpr_t *e, int k, const frame_t *f, int64_t r, int64_t *l, bool *na)
{
    const enode_t *nd = &e->nodes[k];
    if (nd->kind == N_STR) {
        *l = (int64_t)strlen(nd->s);
        *na = false;
        return nd->s;
    }
    const fcol_t *c = &f->cols[nd->col];
    *na = str_na(c, r);
    return fcol_str(c, r, l);
}

static int scmp(const char *a, int64_t la, const char *b, int64_t lb)
{
    int64_t m = la < lb ? la : lb;
    int c = memcmp(a, b, (size_t)m);
    if (c) return c < 0 ? -1 : 1;
    return (la > lb) - (la < lb);
}

static bool cmp_res(int op, int c)
{
    switch (op) {
    case O_EQ:
        return c == 0;
    case O_NE:
        return c != 0;
    case O_LT:
        return c < 0;
    case O_LE:
        return c <= 0;
    case O_GT:
        return c > 0;
    default:
        return c >= 0;
    }
}

static int eval(const dfexpr_t *e, int k, const frame_t *f, vec_t *out)
{
    const enode_t *nd = &e->nodes[k];
    int64_t n = f->nrows;
    memset(out, 0, sizeof *out);
    out->t = nd->type;
    size_t cnt = (size_t)(n + 1);
    if (nd->type == FT_FLOAT64)
        out->f = malloc(sizeof(double) * cnt);
    else if (nd->type == FT_INT64)
        out->i = malloc(sizeof(int64_t) * cnt);
    else
        out->b = malloc(cnt);
    if (!out->f && !out->i && !out->b) return -1;
    switch (nd->kind) {
    case N_COL: {
        const fcol_t *c = &f->cols[nd->col];
        /* the column as it came: an int64 column typed float64 when the
         * document was validated (a merge's side that may get missing
         * values and got none) reads as float64 */
        bool widen = nd->type == FT_FLOAT64 && c->type == FT_INT64;
        for (int64_t r = 0; r < n; r++) {
            if (widen)
                out->f[r] = (double)((const int64_t *)c->data)[r];
            else if (nd->type == FT_FLOAT64)
                out->f[r] = ((const double *)c->data)[r];
            else if (nd->type == FT_INT64)
                out->i[r] = ((const int64_t *)c->data)[r];
            else
                out->b[r] = ((const uint8_t *)c->data)[r] && !fcol_is_na(c, r);
        }
        return 0;
    }
    case N_NUM:
        for (int64_t r = 0; r < n; r++) {
            if (nd->type == FT_FLOAT64)
                out->f[r] = nd->f;
            else if (nd->type == FT_INT64)
                out->i[r] = nd->i;
            else
                out->b[r] = (uint8_t)nd->i;
        }
        return 0;
    case N_UN: {
        vec_t a;
        if (eval(e, nd->a, f, &a)) return -1;
        for (int64_t r = 0; r < n; r++) {
            if (nd->op == O_NOT)
                out->b[r] = !(a.t == FT_BOOL ? a.b[r] : vf(&a, r) != 0);
            else if (nd->type == FT_FLOAT64)
                out->f[r] = -vf(&a, r);
            else
                out->i[r] = (int64_t)(0 - (uint64_t)vi(&a, r));
        }
        vfree(&a);
        return 0;
    }
    case N_IN: {
        const enode_t *x = &e->nodes[nd->a];
        if (x->type == FT_STRING) {
            for (int64_t r = 0; r < n; r++) {
                int64_t l;
                bool na;
                const char *s = sval(e, nd->a, f, r, &l, &na);
                bool hit = false;
                for (int q = 0; q < nd->nlist && !na && !hit; q++) {
                    const char *t = e->nodes[nd->list[q]].s;
                    hit = (int64_t)strlen(t) == l && !memcmp(s, t, (size_t)l);
                }
                out->b[r] = hit != nd->neg_in;
            }
            return 0;
        }
        vec_t a;
        if (eval(e, nd->a, f, &a)) return -1;
        for (int64_t r = 0; r < n; r++) {
            bool hit = false;
            for (int q = 0; q < nd->nlist && !hit; q++) {
                const enode_t *l = &e->nodes[nd->list[q]];
                hit = a.t == FT_INT64 && l->type != FT_FLOAT64 ? a.i[r] == l->i : vf(&a, r) == l->f;
            }
            out->b[r] = hit != nd->neg_in;
        }
        vfree(&a);
        return 0;
    }
    default:
        break;
    }
    /* binary */
    const enode_t *xa = &e->nodes[nd->a];
    if (xa->type == FT_STRING) {
        for (int64_t r = 0; r < n; r++) {
            int64_t la, lb;
            bool na, nb;
            const char *sa = sval(e, nd->a, f, r, &la, &na);
            const char *sb = sval(e, nd->b, f, r, &lb, &nb);
            out->b[r] = na || nb ? nd->op == O_NE : cmp_res(nd->op, scmp(sa, la, sb, lb));
        }
        return 0;
    }
    vec_t a, b;
    if (eval(e, nd->a, f, &a)) return -1;
    if (eval(e, nd->b, f, &b)) {
        vfree(&a);
        return -1;
    }
    bool ints = a.t != FT_FLOAT64 && b.t != FT_FLOAT64;
    /* a datetime column's NaT compares false (!= true), as pandas */
    const enode_t *xb = &e->nodes[nd->b];
    bool wa = xa->kind == N_COL && xa->when, wb = xb->kind == N_COL && xb->when;
    for (int64_t r = 0; r < n; r++) {
        if (nd->op >= O_EQ && nd->op <= O_GE) {
            if (ints) {
                int64_t x = vi(&a, r), y = vi(&b, r);
                if ((wa && x == DATE_NAT) || (wb && y == DATE_NAT))
                    out->b[r] = nd->op == O_NE;
                else
                    out->b[r] = cmp_res(nd->op, (x > y) - (x < y));
            } else {
                double x = vf(&a, r), y = vf(&b, r);
                out->b[r] = x != x || y != y ? nd->op == O_NE : cmp_res(nd->op, (x > y) - (x < y));
            }
            continue;
        }
        if (nd->op == O_AND || nd->op == O_OR) {
            bool x = a.t == FT_BOOL ? a.b[r] : vf(&a, r) != 0;
            bool y = b.t == FT_BOOL ? b.b[r] : vf(&b, r) != 0;
            out->b[r] = nd->op == O_AND ? x && y : x || y;
            continue;
        }
        if (nd->type == FT_INT64) {
            uint64_t x = (uint64_t)vi(&a, r), y = (uint64_t)vi(&b, r);
            int64_t sx = (int64_t)x, sy = (int64_t)y, v = 0;
            switch (nd->op) {
            case O_ADD:
                v = (int64_t)(x + y);
                break;
            case O_SUB:
                v = (int64_t)(x - y);
                break;
            case O_MUL:
                v = (int64_t)(x * y);
                break;
            case O_FDIV:
            case O_MOD:
                /* numpy: x // 0 and x % 0 are 0 for integers */
                if (sy == 0 || (sx == INT64_MIN && sy == -1)) {
                    v = 0;
                } else {
                    int64_t q = sx / sy, m = sx % sy;
                    if (m != 0 && ((m < 0) != (sy < 0))) q--, m += sy;
                    v = nd->op == O_FDIV ? q : m;
                }
                break;
            default: { /* power: a negative exponent is refused by numpy; 0 here */
                uint64_t res = 1, bb = x;
                if (sy < 0) {
                    v = 0;
                    break;
                }
                for (int64_t q = sy; q > 0; q >>= 1) {
                    if (q & 1) res *= bb;
                    bb *= bb;
                }
                v = (int64_t)res;
            }
            }
            out->i[r] = v;
            continue;
        }
        double x = vf(&a, r), y = vf(&b, r), v;
        switch (nd->op) {
        case O_ADD:
            v = x + y;
            break;
        case O_SUB:
            v = x - y;
            break;
        case O_MUL:
            v = x * y;
            break;
        case O_DIV:
            v = x / y;
            break;
        case O_FDIV:
        case O_MOD: {
            /* numpy's divmod */
            double m = fmod(x, y), div;
            if (y == 0) {
                v = nd->op == O_MOD ? NAN : x / y;
                break;
            }
            div = (x - m) / y;
            if (m != 0) {
                if ((y < 0) != (m < 0)) {
                    m += y;
                    div -= 1;
                }
            } else {
                m = copysign(0, y);
            }
            double fl;
            if (div != 0) {
                fl = floor(div);
                if (div - fl > 0.5) fl += 1;
            } else {
                fl = copysign(0, x / y);
            }
            v = nd->op == O_MOD ? m : fl;
            break;
        }
        default:
            v = pow(x, y);
        }
        out->f[r] = v;
    }
    vfree(&a);
    vfree(&b);
    return 0;
}

int dfexpr_eval(const dfexpr_t *e, const frame_t *f, fcol_t *out)
{
    vec_t v;
    if (eval(e, e->root, f, &v)) return -1;
    int t = v.t;
    if (fcol_alloc(out, (ftype_t)t, f->nrows, 0, false)) {
        vfree(&v);
        return -1;
    }
    size_t w = t == FT_BOOL ? 1 : 8;
    memcpy(out->data,
           t == FT_FLOAT64 ? (void *)v.f
           : t == FT_INT64 ? (void *)v.i
                           : (void *)v.b,
           w * (size_t)f->nrows);
    vfree(&v);
    return 0;
}
