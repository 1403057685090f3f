/* Streaming a chunked tensor as JSON and .npy (assemble.h): C order across
 * uneven chunks, numpy's tolist() nesting (empty axes included), NaN and
 * infinities as strings, shortest round-trip floats. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "assemble.h"
#include "npy.h"

typedef struct {
    char *buf;
    size_t n;
} sink_t;

static int to_buf(void *ctx, const void *d, size_t n)
{
    sink_t *s = ctx;
    s->buf = realloc(s->buf, s->n + n + 1);
    memcpy(s->buf + s->n, d, n);
    s->n += n;
    s->buf[s->n] = 0;
    return 0;
}

/* A grid over `whole` (C order, shape s) cut at the given bounds; chunks are
 * materialised here and served by index. */
typedef struct {
    tgrid_t G;
    void **chunks;
} fake_t;

static const void *get_chunk(void *ctx, int64_t li)
{
    return ((fake_t *)ctx)->chunks[li];
}

static void fake_make(fake_t *f, dtype_t dt, const shape_t *s, int64_t *const *bounds,
                      const int64_t *nch, const void *whole)
{
    memset(f, 0, sizeof(*f));
    f->G.shape = *s;
    f->G.dt = dt;
    f->G.total = 1;
    for (int d = 0; d < s->ndim; d++) {
        f->G.nchunks[d] = nch[d];
        f->G.bounds[d] = bounds[d];
        f->G.total *= nch[d];
    }
    size_t es = dt_size(dt);
    f->chunks = calloc((size_t)f->G.total, sizeof(void *));
    for (int64_t li = 0; li < f->G.total; li++) {
        int64_t co[MR_MAXDIM], rem = li, lo[MR_MAXDIM], len[MR_MAXDIM], n = 1;
        for (int d = s->ndim - 1; d >= 0; d--) {
            co[d] = rem % nch[d];
            rem /= nch[d];
        }
        for (int d = 0; d < s->ndim; d++) {
            lo[d] = bounds[d][co[d]];
            len[d] = bounds[d][co[d] + 1] - lo[d];
            n *= len[d];
        }
        char *c = malloc((size_t)n * es + 1);
        for (int64_t e = 0; e < n; e++) {
            int64_t r = e, flat = 0, mul = 1;
            for (int d = s->ndim - 1; d >= 0; d--) {
                flat += (lo[d] + r % len[d]) * mul;
                r /= len[d];
                mul *= s->d[d];
            }
            memcpy(c + e * (int64_t)es, (const char *)whole + flat * (int64_t)es, es);
        }
        f->chunks[li] = c;
    }
}

static void fake_free(fake_t *f)
{
    for (int64_t li = 0; li < f->G.total; li++)
        free(f->chunks[li]);
    free(f->chunks);
}

static void test_json_uneven_2d(void **state)
{
    (void)state;
    double v[6] = {0.1, NAN, -INFINITY, 1e300, -0.0, 2.5};
    shape_t s = {.ndim = 2, .d = {2, 3}};
    int64_t b0[] = {0, 1, 2}, b1[] = {0, 2, 3};
    int64_t *b[] = {b0, b1}, nch[] = {2, 2};
    fake_t f;
    fake_make(&f, DT_FLOAT64, &s, b, nch, v);
    sink_t o = {0};
    char err[256];
    assert_int_equal(asm_stream_json(&f.G, get_chunk, &f, to_buf, &o, err, sizeof err), 0);
    assert_string_equal(o.buf, "{\"shape\": [2, 3], \"dtype\": \"float64\", \"data\": "
                               "[[0.1,\"nan\",\"-inf\"],[1e+300,-0,2.5]]}");
    free(o.buf);
    fake_free(&f);
}

static void test_json_float32_shortest_and_ints(void **state)
{
    (void)state;
    float v[3] = {0.1f, 1.0f / 3.0f, 16777216.0f};
    shape_t s = {.ndim = 1, .d = {3}};
    int64_t b0[] = {0, 2, 3};
    int64_t *b[] = {b0}, nch[] = {2};
    fake_t f;
    fake_make(&f, DT_FLOAT32, &s, b, nch, v);
    sink_t o = {0};
    char err[256];
    assert_int_equal(asm_stream_json(&f.G, get_chunk, &f, to_buf, &o, err, sizeof err), 0);
    assert_non_null(strstr(o.buf, "[0.1,0.33333334,16777216]"));
    free(o.buf);
    fake_free(&f);

    int64_t iv[1] = {INT64_MIN};
    shape_t s0 = {.ndim = 0};
    fake_make(&f, DT_INT64, &s0, NULL, NULL, iv);
    o = (sink_t){0};
    assert_int_equal(asm_stream_json(&f.G, get_chunk, &f, to_buf, &o, err, sizeof err), 0);
    assert_string_equal(o.buf,
                        "{\"shape\": [], \"dtype\": \"int64\", \"data\": -9223372036854775808}");
    free(o.buf);
    fake_free(&f);
}

static void test_json_empty_axes(void **state)
{
    (void)state;
    /* numpy: np.zeros((2, 3, 0)).tolist() == [[[], [], []], [[], [], []]] */
    shape_t s = {.ndim = 3, .d = {2, 3, 0}};
    int64_t b0[] = {0, 2}, b1[] = {0, 3}, b2[] = {0, 0};
    int64_t *b[] = {b0, b1, b2}, nch[] = {1, 1, 1};
    fake_t f;
    char dummy[1] = {0};
    fake_make(&f, DT_BOOL, &s, b, nch, dummy);
    sink_t o = {0};
    char err[256];
    assert_int_equal(asm_stream_json(&f.G, get_chunk, &f, to_buf, &o, err, sizeof err), 0);
    assert_non_null(strstr(o.buf, "\"data\": [[[],[],[]],[[],[],[]]]}"));
    free(o.buf);
    fake_free(&f);
}

static void test_npy_stream_matches_whole(void **state)
{
    (void)state;
    int32_t v[4 * 5];
    for (int i = 0; i < 20; i++)
        v[i] = i * 7 - 30;
    shape_t s = {.ndim = 2, .d = {4, 5}};
    int64_t b0[] = {0, 3, 4}, b1[] = {0, 1, 4, 5};
    int64_t *b[] = {b0, b1}, nch[] = {2, 3};
    fake_t f;
    fake_make(&f, DT_INT32, &s, b, nch, v);
    sink_t o = {0};
    char err[256];
    assert_int_equal(asm_stream_npy(&f.G, get_chunk, &f, to_buf, &o, err, sizeof err), 0);
    assert_int_equal((int64_t)o.n, asm_npy_size(&f.G));
    dtype_t dt;
    shape_t got;
    const void *data;
    size_t nb;
    assert_int_equal(npy_parse(o.buf, o.n, &dt, &got, &data, &nb, err, sizeof err), 0);
    assert_int_equal(dt, DT_INT32);
    assert_true(shape_eq(&got, &s));
    assert_memory_equal(data, v, sizeof v);
    free(o.buf);
    fake_free(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_json_uneven_2d),
        cmocka_unit_test(test_json_float32_shortest_and_ints),
        cmocka_unit_test(test_json_empty_axes),
        cmocka_unit_test(test_npy_stream_matches_whole),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
