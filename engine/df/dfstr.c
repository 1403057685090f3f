/* dfstr.c: the str accessor methods (dfstr.h). */
#include "dfstr.h"

#include "clean.h"

#include <math.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../errmsg.h"

static int oom(char *err, size_t errlen)
{
    return errmsg(err, errlen, "out of memory");
}

int df_str_compile(df_node_t *d, char *err, size_t errlen)
{
    regex_t *re = calloc(1, sizeof *re);
    if (!re) return oom(err, errlen);
    int rc = regcomp(re, d->pat, REG_EXTENDED | (d->icase ? REG_ICASE : 0));
    if (rc) {
        char msg[200];
        regerror(rc, re, msg, sizeof msg);
        free(re);
        return errmsg(err, errlen, "bad regular expression '%.80s': %s", d->pat, msg);
    }
    d->re = re;
    return 0;
}

void df_str_free(df_node_t *d)
{
    if (d->re) {
        regfree(d->re);
        free(d->re);
        d->re = NULL;
    }
}

/* ------------------------------------------------------------------ text */

/* A growing byte buffer with the output column's offsets. */
typedef struct {
    char *b;
    size_t n, cap;
} buf_t;

static int put(buf_t *w, const char *s, size_t n)
{
    if (w->n + n + 1 > w->cap) {
        size_t c = (w->cap ? w->cap * 2 : 256);
        while (c < w->n + n + 1)
            c *= 2;
        char *nb = realloc(w->b, c);
        if (!nb) return -1;
        w->b = nb;
        w->cap = c;
    }
    memcpy(w->b + w->n, s, n);
    w->n += n;
    return 0;
}

static int utf8_len(unsigned char c)
{
    return c < 0x80 ? 1 : c < 0xe0 ? 2 : c < 0xf0 ? 3 : 4;
}

/* Code points of s[0..n). */
static int64_t cp_count(const char *s, int64_t n)
{
    int64_t k = 0;
    for (int64_t i = 0; i < n; i++)
        k += ((unsigned char)s[i] & 0xc0) != 0x80;
    return k;
}

/* lower/upper of ASCII and Latin-1 letters (U+00C0..U+00FE); ß upper is SS. */
static int case_map(buf_t *w, const char *s, int64_t n, bool upper)
{
    for (int64_t i = 0; i < n;) {
        unsigned char c = (unsigned char)s[i];
        if (c < 0x80) {
            char o = (char)c;
            if (upper && c >= 'a' && c <= 'z') o = (char)(c - 32);
            if (!upper && c >= 'A' && c <= 'Z') o = (char)(c + 32);
            if (put(w, &o, 1)) return -1;
            i++;
            continue;
        }
        int l = utf8_len(c);
        if (i + l > n) l = (int)(n - i);
        if (c == 0xc3 && l == 2) {
            unsigned cp = ((c & 0x1fu) << 6) | ((unsigned char)s[i + 1] & 0x3fu);
            if (upper && cp == 0xdf) {
                if (put(w, "SS", 2)) return -1;
                i += 2;
                continue;
            }
            if (upper && cp >= 0xe0 && cp <= 0xfe && cp != 0xf7) cp -= 0x20;
            if (!upper && cp >= 0xc0 && cp <= 0xde && cp != 0xd7) cp += 0x20;
            char o[2] = {(char)(0xc0 | (cp >> 6)), (char)(0x80 | (cp & 0x3f))};
            if (put(w, o, 2)) return -1;
            i += 2;
            continue;
        }
        if (put(w, s + i, (size_t)l)) return -1;
        i += l;
    }
    return 0;
}

static bool is_space(unsigned char c)
{
    return c == ' ' || (c >= 0x09 && c <= 0x0d) || (c >= 0x1c && c <= 0x1f);
}

/* Byte offset of code point k of s (k clamped to [0, count]). */
static int64_t cp_at(const char *s, int64_t n, int64_t k)
{
    int64_t i = 0;
    while (k > 0 && i < n) {
        i += utf8_len((unsigned char)s[i]);
        k--;
    }
    return i < n ? i : n;
}

static const char *find(const char *h, int64_t hn, const char *p, size_t pn)
{
    if (pn == 0) return h;
    for (int64_t i = 0; i + (int64_t)pn <= hn; i++)
        if (!memcmp(h + i, p, pn)) return h + i;
    return NULL;
}

/* ------------------------------------------------------------------ the map */

/* Part `want` of s.split(pat, n) (pat NULL: runs of whitespace, those at
 * the ends ignored): -1 with [*pa, *pe) set when it exists, else the number
 * of parts (want INT64_MAX counts them). */
static int64_t split_part(const char *s, int64_t l, const df_node_t *d, size_t pl, int64_t want,
                          int64_t *pa, int64_t *pe)
{
    int64_t k = 0, a = 0, splits = 0;
    if (d->pat) {
        for (;;) {
            const char *hit =
                (d->n < 0 || splits < d->n) && pl > 0 ? find(s + a, l - a, d->pat, pl) : NULL;
            int64_t e = hit ? (int64_t)(hit - s) : l;
            if (k == want) {
                *pa = a;
                *pe = e;
                return -1;
            }
            k++;
            if (!hit) return k;
            a = e + (int64_t)pl;
            splits++;
        }
    }
    for (;;) {
        while (a < l && is_space((unsigned char)s[a]))
            a++;
        if (a >= l) return k;
        int64_t e = a;
        if (d->n >= 0 && splits >= d->n) {
            e = l; /* the rest, its trailing whitespace kept (Python's str.split) */
        } else {
            while (e < l && !is_space((unsigned char)s[e]))
                e++;
        }
        if (k == want) {
            *pa = a;
            *pe = e;
            return -1;
        }
        k++;
        splits++;
        a = e;
    }
}

int df_str_map(const df_node_t *d, op_t op, const frame_t *in, frame_t *out, char *err,
               size_t errlen)
{
    const fcol_t *c = &in->cols[0];
    int64_t n = c->n;
    bool any_na = false;
    for (int64_t i = 0; i < n; i++)
        any_na |= fcol_is_na(c, i);
    if (df_out_like(d, in, out)) goto fail;
    fcol_t *o = &out->cols[0];
    size_t pl = d->pat ? strlen(d->pat) : 0;
    if (op == OP_DF_STR_LEN) {
        if (fcol_alloc(o, any_na ? FT_FLOAT64 : FT_INT64, n, 0, false)) goto fail;
        for (int64_t i = 0; i < n; i++) {
            int64_t l;
            const char *s = fcol_str(c, i, &l);
            if (any_na)
                ((double *)o->data)[i] = fcol_is_na(c, i) ? NAN : (double)cp_count(s, l);
            else
                ((int64_t *)o->data)[i] = cp_count(s, l);
        }
        return 0;
    }
    if (op == OP_DF_STR_CONTAINS || op == OP_DF_STR_STARTSWITH || op == OP_DF_STR_ENDSWITH) {
        if (fcol_alloc(o, FT_BOOL, n, 0, any_na)) goto fail;
        char *tmp = NULL;
        size_t tcap = 0;
        for (int64_t i = 0; i < n; i++) {
            int64_t l;
            const char *s = fcol_str(c, i, &l);
            bool v = false;
            if (fcol_is_na(c, i)) {
                o->valid[i] = 0;
            } else if (op == OP_DF_STR_STARTSWITH) {
                v = (size_t)l >= pl && !memcmp(s, d->pat, pl);
            } else if (op == OP_DF_STR_ENDSWITH) {
                v = (size_t)l >= pl && !memcmp(s + l - (int64_t)pl, d->pat, pl);
            } else if (d->re) {
                if ((size_t)l + 1 > tcap) {
                    char *nt = realloc(tmp, (size_t)l + 1);
                    if (!nt) {
                        free(tmp);
                        goto fail;
                    }
                    tmp = nt;
                    tcap = (size_t)l + 1;
                }
                memcpy(tmp, s, (size_t)l);
                tmp[l] = 0;
                v = regexec(d->re, tmp, 0, NULL, 0) == 0;
            } else {
                v = find(s, l, d->pat, pl) != NULL;
            }
            ((uint8_t *)o->data)[i] = v;
        }
        free(tmp);
        return 0;
    }
    /* string results */
    buf_t w = {0};
    int64_t *off = malloc(sizeof(int64_t) * (size_t)(n + 1));
    uint8_t *valid = malloc((size_t)n + 1);
    char *tmp = NULL;
    size_t tcap = 0;
    if (!off || !valid || put(&w, "", 0)) goto sfail;
    off[0] = 0;
    bool na_out = false;
    for (int64_t i = 0; i < n; i++) {
        int64_t l;
        const char *s = fcol_str(c, i, &l);
        valid[i] = !fcol_is_na(c, i);
        if (!valid[i]) {
            off[i + 1] = (int64_t)w.n;
            na_out = true;
            continue;
        }
        int rc = 0;
        switch (op) {
        case OP_DF_STR_LOWER:
        case OP_DF_STR_UPPER:
            rc = case_map(&w, s, l, op == OP_DF_STR_UPPER);
            break;
        case OP_DF_STR_STRIP: {
            int64_t a = 0, b = l;
            if (d->pat) {
                while (a < b && memchr(d->pat, s[a], pl))
                    a++;
                while (b > a && memchr(d->pat, s[b - 1], pl))
                    b--;
            } else {
                while (a < b && is_space((unsigned char)s[a]))
                    a++;
                while (b > a && is_space((unsigned char)s[b - 1]))
                    b--;
            }
            rc = put(&w, s + a, (size_t)(b - a));
            break;
        }
        case OP_DF_STR_SLICE: {
            /* Python's slice over the code points */
            int64_t m = cp_count(s, l), st = d->sl_has[2] ? d->sl[2] : 1, a, b;
            if (st > 0) {
                a = d->sl_has[0] ? d->sl[0] : 0;
                b = d->sl_has[1] ? d->sl[1] : m;
                if (a < 0) a = a + m < 0 ? 0 : a + m;
                if (b < 0) b = b + m < 0 ? 0 : b + m;
                if (a > m) a = m;
                if (b > m) b = m;
            } else {
                a = d->sl_has[0] ? d->sl[0] : m - 1;
                b = d->sl_has[1] ? d->sl[1] : -m - 1;
                if (a < 0) a = a + m < -1 ? -1 : a + m;
                if (b < 0) b = b + m < -1 ? -1 : b + m;
                if (a > m - 1) a = m - 1;
                if (b > m - 1) b = m - 1;
            }
            for (int64_t k = a; rc == 0 && (st > 0 ? k < b : k > b); k += st) {
                int64_t p = cp_at(s, l, k), q = cp_at(s, l, k + 1);
                rc = put(&w, s + p, (size_t)(q - p));
            }
            break;
        }
        case OP_DF_STR_SPLIT: {
            /* element sget of s.split(pat, n) (missing when out of range);
             * a negative sget counts from the end, as pandas' str[-1] */
            int64_t a = 0, e = 0, want = d->sget;
            if (want < 0) want += split_part(s, l, d, pl, INT64_MAX, &a, &e);
            if (want >= 0 && split_part(s, l, d, pl, want, &a, &e) < 0)
                rc = put(&w, s + a, (size_t)(e - a));
            else {
                valid[i] = 0;
                na_out = true;
            }
            break;
        }
        default: { /* replace */
            int64_t a = 0, cnt = 0;
            size_t rl = strlen(d->repl);
            if (d->re) {
                if ((size_t)l + 1 > tcap) {
                    char *nt = realloc(tmp, (size_t)l + 1);
                    if (!nt) goto sfail;
                    tmp = nt;
                    tcap = (size_t)l + 1;
                }
                memcpy(tmp, s, (size_t)l);
                tmp[l] = 0;
                regmatch_t mt;
                int flags = 0;
                while (rc == 0 && a <= l && (d->n < 0 || cnt < d->n) &&
                       regexec(d->re, tmp + a, 1, &mt, flags) == 0) {
                    int64_t ms = a + mt.rm_so, me = a + mt.rm_eo;
                    rc = put(&w, s + a, (size_t)(ms - a)) || put(&w, d->repl, rl);
                    cnt++;
                    if (me == ms) {
                        /* an empty match: keep one character and go on */
                        if (ms < l) rc = rc || put(&w, s + ms, 1);
                        a = ms + 1;
                    } else {
                        a = me;
                    }
                    flags = REG_NOTBOL;
                }
                if (rc == 0 && a < l) rc = put(&w, s + a, (size_t)(l - a));
            } else {
                while (rc == 0 && (d->n < 0 || cnt < d->n)) {
                    const char *hit = pl ? find(s + a, l - a, d->pat, pl) : NULL;
                    if (!hit) break;
                    int64_t e = (int64_t)(hit - s);
                    rc = put(&w, s + a, (size_t)(e - a)) || put(&w, d->repl, rl);
                    a = e + (int64_t)pl;
                    cnt++;
                }
                if (rc == 0) rc = put(&w, s + a, (size_t)(l - a));
            }
            break;
        }
        }
        if (rc) goto sfail;
        off[i + 1] = (int64_t)w.n;
    }
    if (fcol_alloc(o, FT_STRING, n, (int64_t)w.n + 1, na_out)) goto sfail;
    memcpy(o->bytes, w.b, w.n);
    o->bytes[w.n] = 0;
    memcpy(o->offsets, off, sizeof(int64_t) * (size_t)(n + 1));
    if (na_out) memcpy(o->valid, valid, (size_t)n);
    free(w.b);
    free(off);
    free(valid);
    free(tmp);
    return 0;
sfail:
    free(w.b);
    free(off);
    free(valid);
    free(tmp);
fail:
    frame_free(out);
    return oom(err, errlen);
}
