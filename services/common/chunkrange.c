/* chunkrange.c: the query string of a chunk read (chunkrange.h). */
#include "chunkrange.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

/* One decimal number without sign in [p, end): at most UINT64_MAX. */
static int parse_u64(const char *p, const char *end, uint64_t *out)
{
    if (p == end) return -1;
    uint64_t v = 0;
    for (; p < end; p++) {
        if (*p < '0' || *p > '9') return -1;
        unsigned d = (unsigned)(*p - '0');
        if (v > (UINT64_MAX - d) / 10) return -1;
        v = v * 10 + d;
    }
    *out = v;
    return 0;
}

/* A comma-separated list of numbers (pairs A:B when lo is not NULL). */
static int parse_list(const char *p, const char *end, uint64_t *a, uint64_t *b, int *n,
                      const char *name, char *err, size_t errlen)
{
    int k = 0;
    for (;;) {
        const char *comma = memchr(p, ',', (size_t)(end - p));
        const char *item_end = comma ? comma : end;
        if (k == CHUNKRANGE_MAX_DIMS) {
            snprintf(err, errlen, "%s: more than %d dimensions", name, CHUNKRANGE_MAX_DIMS);
            return -1;
        }
        int rc;
        if (b) {
            const char *colon = memchr(p, ':', (size_t)(item_end - p));
            rc = !colon || parse_u64(p, colon, &a[k]) || parse_u64(colon + 1, item_end, &b[k]);
        } else {
            rc = parse_u64(p, item_end, &a[k]);
        }
        if (rc) {
            snprintf(err, errlen, "%s: item %d is not %s", name, k + 1,
                     b ? "START:STOP with decimal numbers" : "a decimal number");
            return -1;
        }
        k++;
        if (!comma) break;
        p = comma + 1;
    }
    *n = k;
    return 0;
}

enum { P_OFFSET, P_LENGTH, P_SHAPE, P_ITEMSIZE, P_BOX, P_N };
static const char *const NAMES[P_N] = {"offset", "length", "shape", "itemsize", "box"};

static int parse_param(chunkrange_t *r, int which, const char *v, const char *end, char *err,
                       size_t errlen)
{
    int n = 0;
    switch (which) {
    case P_OFFSET:
    case P_LENGTH:
    case P_ITEMSIZE: {
        uint64_t x;
        if (parse_u64(v, end, &x)) {
            snprintf(err, errlen, "%s: not a decimal number of at most 20 digits", NAMES[which]);
            return -1;
        }
        if (which == P_OFFSET)
            r->offset = x;
        else if (which == P_LENGTH)
            r->length = x;
        else
            r->itemsize = x;
        return 0;
    }
    case P_SHAPE:
        if (parse_list(v, end, r->shape, NULL, &n, "shape", err, errlen)) return -1;
        r->ndim = n;
        return 0;
    default: /* P_BOX */
        if (parse_list(v, end, r->lo, r->hi, &n, "box", err, errlen)) return -1;
        return n;
    }
}

static int check_box(chunkrange_t *r, int box_n, char *err, size_t errlen)
{
    if (box_n != r->ndim) {
        snprintf(err, errlen, "box has %d dimensions, shape %d", box_n, r->ndim);
        return -1;
    }
    if (r->itemsize == 0) {
        snprintf(err, errlen, "itemsize: must be at least 1");
        return -1;
    }
    for (int d = 0; d < r->ndim; d++) {
        if (r->lo[d] > r->hi[d] || r->hi[d] > r->shape[d]) {
            snprintf(err, errlen,
                     "box: dimension %d is %llu:%llu, outside 0 <= start <= stop <= %llu", d,
                     (unsigned long long)r->lo[d], (unsigned long long)r->hi[d],
                     (unsigned long long)r->shape[d]);
            return -1;
        }
    }
    return 0;
}

int chunkrange_parse(const char *query, size_t qlen, chunkrange_t *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    out->kind = CHUNKRANGE_ALL;
    out->length = UINT64_MAX;
    bool seen[P_N] = {false};
    int box_n = 0;
    const char *p = query, *end = query + qlen;
    while (p < end) {
        const char *amp = memchr(p, '&', (size_t)(end - p));
        const char *pend = amp ? amp : end;
        if (pend == p) { /* an empty parameter ("a=1&&b=2") */
            p = pend + 1;
            continue;
        }
        const char *eq = memchr(p, '=', (size_t)(pend - p));
        const char *kend = eq ? eq : pend;
        int which = -1;
        for (int i = 0; i < P_N; i++)
            if (strlen(NAMES[i]) == (size_t)(kend - p) &&
                memcmp(NAMES[i], p, (size_t)(kend - p)) == 0)
                which = i;
        if (which < 0) {
            snprintf(err, errlen, "unknown parameter %.*s (offset, length, shape, itemsize, box)",
                     (int)(kend - p > 40 ? 40 : kend - p), p);
            return -1;
        }
        if (seen[which]) {
            snprintf(err, errlen, "%s: given twice", NAMES[which]);
            return -1;
        }
        seen[which] = true;
        int rc = parse_param(out, which, eq ? eq + 1 : pend, pend, err, errlen);
        if (rc < 0) return -1;
        if (which == P_BOX) box_n = rc;
        p = amp ? amp + 1 : end;
    }
    bool bytes = seen[P_OFFSET] || seen[P_LENGTH];
    bool box = seen[P_SHAPE] || seen[P_ITEMSIZE] || seen[P_BOX];
    if (bytes && box) {
        snprintf(err, errlen, "offset/length and shape/itemsize/box cannot be combined");
        return -1;
    }
    if (bytes) out->kind = CHUNKRANGE_BYTES;
    if (box) {
        if (!seen[P_SHAPE] || !seen[P_ITEMSIZE] || !seen[P_BOX]) {
            snprintf(err, errlen, "a box needs shape, itemsize and box together");
            return -1;
        }
        if (check_box(out, box_n, err, errlen)) return -1;
        out->kind = CHUNKRANGE_BOX;
    }
    return 0;
}

int chunkrange_resolve(const chunkrange_t *r, uint64_t size, uint64_t *out_len, char *err,
                       size_t errlen)
{
    if (r->kind == CHUNKRANGE_ALL) {
        *out_len = size;
        return 0;
    }
    if (r->kind == CHUNKRANGE_BYTES) {
        uint64_t len = r->length == UINT64_MAX && r->offset <= size ? size - r->offset : r->length;
        if (r->offset > size || len > size - r->offset) {
            snprintf(err, errlen, "bytes %llu+%llu are outside the chunk's %llu bytes",
                     (unsigned long long)r->offset, (unsigned long long)len,
                     (unsigned long long)size);
            return -1;
        }
        *out_len = len;
        return 0;
    }
    uint64_t total = r->itemsize, box = r->itemsize;
    for (int d = 0; d < r->ndim; d++) {
        if (r->shape[d] != 0 && total > UINT64_MAX / r->shape[d]) {
            snprintf(err, errlen, "shape x itemsize overflows");
            return -1;
        }
        total *= r->shape[d];
        box *= r->hi[d] - r->lo[d]; /* at most total */
    }
    if (total != size) {
        snprintf(err, errlen, "shape x itemsize is %llu bytes, the chunk holds %llu",
                 (unsigned long long)total, (unsigned long long)size);
        return -1;
    }
    *out_len = box;
    return 0;
}

static int append(char *out, size_t cap, size_t *at, const char *fmt, unsigned long long a,
                  unsigned long long b)
{
    int n = snprintf(out + *at, cap - *at, fmt, a, b);
    if (n < 0 || (size_t)n >= cap - *at) return -1;
    *at += (size_t)n;
    return 0;
}

int chunkrange_format(const chunkrange_t *r, char *out, size_t cap)
{
    size_t at = 0;
    if (cap == 0) return -1;
    out[0] = '\0';
    if (r->kind == CHUNKRANGE_BYTES) {
        if (append(out, cap, &at, "offset=%llu", r->offset, 0)) return -1;
        if (r->length != UINT64_MAX && append(out, cap, &at, "&length=%llu", r->length, 0))
            return -1;
    } else if (r->kind == CHUNKRANGE_BOX) {
        for (int d = 0; d < r->ndim; d++)
            if (append(out, cap, &at, d ? ",%llu" : "shape=%llu", r->shape[d], 0)) return -1;
        if (append(out, cap, &at, "&itemsize=%llu", r->itemsize, 0)) return -1;
        for (int d = 0; d < r->ndim; d++)
            if (append(out, cap, &at, d ? ",%llu:%llu" : "&box=%llu:%llu", r->lo[d], r->hi[d]))
                return -1;
    }
    return (int)at;
}

void chunkrange_iter_init(chunkrange_iter_t *it, const chunkrange_t *r)
{
    memset(it, 0, sizeof *it);
    it->r = r;
    int nd = r->ndim;
    uint64_t s = r->itemsize;
    for (int d = nd - 1; d >= 0; d--) {
        it->stride[d] = s;
        s *= r->shape[d];
    }
    for (int d = 0; d < nd; d++)
        if (r->hi[d] == r->lo[d]) it->done = 1; /* an empty box */
    /* The innermost dims the box spans whole join the run. */
    int inner = nd - 1;
    while (inner > 0 && r->lo[inner] == 0 && r->hi[inner] == r->shape[inner])
        inner--;
    it->outer = inner;
    it->run = (r->hi[inner] - r->lo[inner]) * it->stride[inner];
    for (int d = 0; d < nd; d++)
        it->idx[d] = r->lo[d];
}

int chunkrange_iter_next(chunkrange_iter_t *it, uint64_t *off, uint64_t *len)
{
    if (it->done) return 0;
    const chunkrange_t *r = it->r;
    uint64_t o = 0;
    for (int d = 0; d <= it->outer; d++)
        o += it->idx[d] * it->stride[d];
    *off = o;
    *len = it->run;
    /* Advance the outer dims (0 .. outer-1), last fastest. */
    int d = it->outer - 1;
    for (; d >= 0; d--) {
        if (++it->idx[d] < r->hi[d]) break;
        it->idx[d] = r->lo[d];
    }
    if (d < 0) it->done = 1;
    return 1;
}
