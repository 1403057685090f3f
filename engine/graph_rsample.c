/* graph_rsample.c: the parameters of random.choice, random.permutation,
 * random.multinomial and random.multivariate_normal (rsample.h), checked in
 * numpy's order with numpy's messages (RandomState, numpy 1.24). */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graph_internal.h"
#include "kern/la.h"
#include "rsample.h"

#define FAIL(...) graph_fail(err, errlen, n, __VA_ARGS__)

bool graph_rsample_owns(op_t op)
{
    return op == OP_CHOICE || op == OP_PERMUTATION || op == OP_MULTINOMIAL ||
           op == OP_MULTIVARIATE_NORMAL;
}

/* A number or a nested list of them, read as `array` reads its data
 * (graph_read_values), in 8-byte slots: float64 when as_f64, else int64
 * (integers and booleans 0/1) or float64 as numpy would type it; *dt the
 * dtype numpy would give (bool for booleans). Returns NULL with a message. */
static double *read_list(graph_node_t *n, json_t *v, const char *name, const graph_limits_t *lim,
                         bool as_f64, shape_t *shape, dtype_t *dt, char *err, size_t errlen)
{
    void *raw = NULL;
    *dt = DT_FLOAT64;
    if (graph_read_values(n, v, name, lim, as_f64, dt, shape, &raw, err, errlen) < 0) return NULL;
    int64_t cnt = shape_size(shape);
    double *buf = malloc((size_t)(cnt ? cnt : 1) * 8);
    if (!buf) {
        free(raw);
        FAIL("out of memory for \"%s\"", name);
        return NULL;
    }
    for (int64_t i = 0; i < cnt; i++) {
        if (*dt == DT_FLOAT64) {
            buf[i] = ((const double *)raw)[i];
        } else {
            int64_t x = dt_read_i64(*dt, raw, i);
            memcpy(&buf[i], &x, 8);
        }
    }
    free(raw);
    return buf;
}

/* numpy's size: absent or null (one value, shape ()), an integer or a list. */
static int get_size(graph_node_t *n, json_t *obj, shape_t *s, char *err, size_t errlen)
{
    json_t *v = json_object_get(obj, "size");
    memset(s, 0, sizeof *s);
    if (!v || json_is_null(v)) return 0;
    if (json_is_integer(v)) {
        s->ndim = 1;
        s->d[0] = (int64_t)json_integer_value(v);
    } else if (json_is_array(v)) {
        if (json_array_size(v) > MR_MAXDIM)
            return FAIL("\"size\" has %zu dimensions, more than %d", json_array_size(v), MR_MAXDIM);
        s->ndim = (int)json_array_size(v);
        for (int i = 0; i < s->ndim; i++) {
            json_t *e = json_array_get(v, (size_t)i);
            if (!json_is_integer(e))
                return FAIL("\"size\" must be null, an integer or a list of integers");
            s->d[i] = (int64_t)json_integer_value(e);
        }
    } else {
        return FAIL("\"size\" must be null, an integer or a list of integers");
    }
    for (int i = 0; i < s->ndim; i++)
        if (s->d[i] < 0) return FAIL("negative dimensions are not allowed");
    return 0;
}

/* The product of a shape's extents, saturated (the limits catch it later). */
static int64_t count_of(const shape_t *s)
{
    int64_t c = 1;
    for (int i = 0; i < s->ndim; i++) {
        if (s->d[i] == 0) return 0;
        c = c > INT64_MAX / s->d[i] ? INT64_MAX : c * s->d[i];
    }
    return c;
}

/* Python's sum of doubles as numpy's kahan_sum computes it. */
static double kahan(const double *x, int64_t n)
{
    if (n <= 0) return 0.0;
    double sum = x[0], c = 0.0;
    for (int64_t i = 1; i < n; i++) {
        double y = x[i] - c, t = sum + y;
        c = (t - sum) - y;
        sum = t;
    }
    return sum;
}

static int append_axis(graph_node_t *n, shape_t *s, int64_t k, char *err, size_t errlen)
{
    if (s->ndim >= MR_MAXDIM)
        return FAIL("\"size\" has %d dimensions; with the sample's own axis that is more than %d",
                    s->ndim, MR_MAXDIM);
    s->d[s->ndim++] = k;
    return 0;
}

static int parse_choice(graph_node_t *n, json_t *obj, const graph_limits_t *lim, char *err,
                        size_t errlen)
{
    json_t *a = json_object_get(obj, "a");
    if (!a) return FAIL("\"a\" is missing");
    shape_t size;
    if (get_size(n, obj, &size, err, errlen) < 0) return -1;
    int64_t want = count_of(&size);
    int64_t pop;
    double *vals = NULL;
    dtype_t vdt = DT_INT64;
    if (json_is_integer(a)) {
        pop = (int64_t)json_integer_value(a);
        if (pop <= 0 && want != 0)
            return FAIL("a must be greater than 0 unless no samples are taken");
        if (pop < 0) pop = 0;
    } else if (json_is_array(a)) {
        shape_t s;
        if (!(vals = read_list(n, a, "a", lim, false, &s, &vdt, err, errlen))) return -1;
        if (s.ndim != 1) {
            free(vals);
            return FAIL("a must be 1-dimensional");
        }
        pop = s.d[0];
        if (pop == 0 && want != 0) {
            free(vals);
            return FAIL("'a' cannot be empty unless no samples are taken");
        }
    } else {
        return FAIL("a must be 1-dimensional or an integer");
    }
    int rc = -1;
    double *p = NULL, *tab = NULL;
    json_t *pv = json_object_get(obj, "p"), *rv = json_object_get(obj, "replace");
    bool replace = true;
    if (rv && !json_is_boolean(rv)) {
        FAIL("\"replace\" must be true or false");
        goto out;
    }
    if (rv) replace = json_is_true(rv);
    bool has_p = pv && !json_is_null(pv);
    if (has_p) {
        shape_t s;
        dtype_t pdt;
        if (!(p = read_list(n, pv, "p", lim, true, &s, &pdt, err, errlen))) goto out;
        if (s.ndim != 1) {
            FAIL("'p' must be 1-dimensional");
            goto out;
        }
        if (s.d[0] != pop) {
            FAIL("'a' and 'p' must have same size");
            goto out;
        }
        double sum = kahan(p, pop);
        bool neg = false;
        for (int64_t i = 0; i < pop; i++)
            neg |= p[i] < 0;
        if (isnan(sum)) {
            FAIL("probabilities contain NaN");
            goto out;
        }
        if (neg) {
            FAIL("probabilities are not non-negative");
            goto out;
        }
        if (fabs(sum - 1.0) > sqrt(2.220446049250313e-16)) {
            FAIL("probabilities do not sum to 1");
            goto out;
        }
    }
    if (!replace) {
        if (want > pop) {
            FAIL("Cannot take a larger sample than population when 'replace=False'");
            goto out;
        }
        if (has_p) {
            int64_t nz = 0;
            for (int64_t i = 0; i < pop; i++)
                nz += p[i] > 0;
            if (nz < want) {
                FAIL("Fewer non-zero entries in p than size");
                goto out;
            }
            if (pop > RS_MAX_WEIGHTED_POP) {
                FAIL("choice without replacement and with p ranks the whole population in every "
                     "chunk: %lld values, more than the limit of %lld (RS_MAX_WEIGHTED_POP)",
                     (long long)pop, (long long)RS_MAX_WEIGHTED_POP);
                goto out;
            }
        }
    } else if (has_p) {
        /* numpy: cdf = p.cumsum(); cdf /= cdf[-1] */
        double acc = 0.0;
        for (int64_t i = 0; i < pop; i++)
            p[i] = acc += p[i];
        for (int64_t i = 0; i < pop; i++)
            p[i] /= acc;
    }
    int64_t slots = (has_p ? pop : 0) + (vals ? pop : 0);
    tab = malloc((size_t)(slots ? slots : 1) * 8);
    if (!tab) {
        FAIL("out of memory");
        goto out;
    }
    if (has_p) memcpy(tab, p, (size_t)pop * 8);
    if (vals) memcpy(tab + (has_p ? pop : 0), vals, (size_t)pop * 8);
    n->data = tab;
    tab = NULL;
    n->low = sc_int(pop);
    n->high = sc_int((replace ? RS_REPLACE : 0) | (has_p ? RS_P : 0) | (vals ? RS_VALUES : 0));
    n->shape = size;
    n->dtype = vals ? vdt : DT_INT64;
    rc = 0;
out:
    free(vals);
    free(p);
    free(tab);
    return rc;
}

static int parse_permutation(graph_node_t *n, json_t *obj, const graph_limits_t *lim, char *err,
                             size_t errlen)
{
    json_t *x = json_object_get(obj, "x");
    if (!x) return FAIL("\"x\" is missing");
    if (json_is_integer(x)) {
        /* numpy: arange(x) shuffled; a negative x gives an empty result */
        int64_t cnt = (int64_t)json_integer_value(x);
        n->low = sc_int(cnt < 0 ? 0 : cnt);
        n->high = sc_int(0);
        n->shape.ndim = 1;
        n->shape.d[0] = cnt < 0 ? 0 : cnt;
        n->dtype = DT_INT64;
        return 0;
    }
    if (!json_is_array(x)) return FAIL("x must be an integer or at least 1-dimensional");
    shape_t s;
    dtype_t dt;
    double *vals = read_list(n, x, "x", lim, false, &s, &dt, err, errlen);
    if (!vals) return -1;
    n->data = vals;
    n->low = sc_int(s.d[0]);
    n->high = sc_int(RS_VALUES);
    n->shape = s;
    n->dtype = dt;
    return 0;
}

static int parse_multinomial(graph_node_t *n, json_t *obj, const graph_limits_t *lim, char *err,
                             size_t errlen)
{
    json_t *nv = json_object_get(obj, "n"), *pv = json_object_get(obj, "pvals");
    if (!nv) return FAIL("\"n\" is missing");
    if (!pv) return FAIL("\"pvals\" is missing");
    if (!json_is_integer(nv)) return FAIL("\"n\" must be an integer");
    shape_t size;
    if (get_size(n, obj, &size, err, errlen) < 0) return -1;
    shape_t s;
    dtype_t dt;
    double *p = read_list(n, pv, "pvals", lim, true, &s, &dt, err, errlen);
    if (!p) return -1;
    int rc = -1;
    int64_t k = s.d[0];
    if (s.ndim != 1) {
        FAIL(s.ndim == 0 ? "object of too small depth for desired array"
                         : "object too deep for desired array");
        goto out;
    }
    if ((int64_t)json_integer_value(nv) < 0) {
        FAIL("n < 0");
        goto out;
    }
    for (int64_t i = 0; i < k; i++)
        if (!(p[i] >= 0 && p[i] <= 1)) {
            FAIL("pvals < 0, pvals > 1 or pvals contains NaNs");
            goto out;
        }
    if (kahan(p, k - 1) > 1.0 + 1e-12) {
        FAIL("sum(pvals[:-1]) > 1.0");
        goto out;
    }
    if (append_axis(n, &size, k, err, errlen) < 0) goto out;
    n->data = p;
    p = NULL;
    n->low = sc_int((int64_t)json_integer_value(nv));
    n->shape = size;
    n->dtype = DT_INT64;
    rc = 0;
out:
    free(p);
    return rc;
}

static int parse_mvn(graph_node_t *n, json_t *obj, const graph_limits_t *lim, char *err,
                     size_t errlen)
{
    json_t *mv = json_object_get(obj, "mean"), *cv = json_object_get(obj, "cov");
    if (!mv) return FAIL("\"mean\" is missing");
    if (!cv) return FAIL("\"cov\" is missing");
    shape_t size;
    if (get_size(n, obj, &size, err, errlen) < 0) return -1;
    json_t *chk = json_object_get(obj, "check_valid"), *tv = json_object_get(obj, "tol");
    const char *check = "warn";
    if (chk && !json_is_string(chk))
        return FAIL("check_valid must equal 'warn', 'raise', or 'ignore'");
    if (chk) check = json_string_value(chk);
    double tol = 1e-8;
    if (tv && !json_is_number(tv)) return FAIL("\"tol\" must be a number");
    if (tv) tol = json_number_value(tv);
    shape_t sm, sc;
    dtype_t dt;
    double *mean = read_list(n, mv, "mean", lim, true, &sm, &dt, err, errlen);
    if (!mean) return -1;
    double *cov = read_list(n, cv, "cov", lim, true, &sc, &dt, err, errlen);
    double *tab = NULL;
    int rc = -1;
    if (!cov) goto out;
    if (sm.ndim != 1) {
        FAIL("mean must be 1 dimensional");
        goto out;
    }
    if (sc.ndim != 2 || sc.d[0] != sc.d[1]) {
        FAIL("cov must be 2 dimensional and square");
        goto out;
    }
    int64_t k = sm.d[0];
    if (sc.d[0] != k) {
        FAIL("mean and cov must have same length");
        goto out;
    }
    if (k > RS_MAX_MVN_DIM) {
        FAIL("mean has %lld values, more than the limit of %d (RS_MAX_MVN_DIM: the covariance's "
             "SVD is made wherever the document is read)",
             (long long)k, RS_MAX_MVN_DIM);
        goto out;
    }
    if (strcmp(check, "ignore") && strcmp(check, "warn") && strcmp(check, "raise")) {
        FAIL("check_valid must equal 'warn', 'raise', or 'ignore'");
        goto out;
    }
    if (append_axis(n, &size, k, err, errlen) < 0) goto out;
    tab = malloc((size_t)(k + k * k > 0 ? k + k * k : 1) * sizeof(double));
    if (!tab) {
        FAIL("out of memory");
        goto out;
    }
    memcpy(tab, mean, (size_t)k * sizeof(double));
    bool psd = true;
    char why[160];
    if (k > 0 && kern_cov_factor(cov, k, tol, tab + k, &psd, why, sizeof why) < 0) {
        FAIL("%s", why);
        goto out;
    }
    /* "warn": numpy warns and samples; a document has no warnings */
    if (!psd && !strcmp(check, "raise")) {
        FAIL("covariance is not symmetric positive-semidefinite.");
        goto out;
    }
    n->data = tab;
    tab = NULL;
    n->shape = size;
    n->dtype = DT_FLOAT64;
    rc = 0;
out:
    free(mean);
    free(cov);
    free(tab);
    return rc;
}

int graph_rsample_parse(graph_node_t *n, void *json_obj, const graph_limits_t *lim, char *err,
                        size_t errlen)
{
    json_t *obj = json_obj;
    switch (n->op) {
    case OP_CHOICE:
        return parse_choice(n, obj, lim, err, errlen);
    case OP_PERMUTATION:
        return parse_permutation(n, obj, lim, err, errlen);
    case OP_MULTINOMIAL:
        return parse_multinomial(n, obj, lim, err, errlen);
    default:
        return parse_mvn(n, obj, lim, err, errlen);
    }
}
