/* Element-wise programs: numpy 1.24 semantics (values checked with Debian's
 * numpy 1.24), broadcasting, promotion casts, fusion with register reuse. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kern/kern.h"

/* ---- a small program builder ---------------------------------------------- */

static void prog_init(ew_prog_t *p, int n_inputs, const dtype_t *dts)
{
    memset(p, 0, sizeof *p);
    p->n_inputs = n_inputs;
    p->n_regs = n_inputs;
    for (int i = 0; i < n_inputs; i++)
        p->reg_dt[i] = (uint8_t)dts[i];
    p->out = -1;
}

static int prog_const(ew_prog_t *p, dtype_t dt, scalar_t v)
{
    int r = p->n_regs++;
    p->reg_dt[r] = (uint8_t)dt;
    p->is_const[r] = true;
    p->konst[r] = v;
    return r;
}

/* Appends dst = op(a, b, c) computed in `dt`, result of dtype `odt`. */
static int prog_op(ew_prog_t *p, op_t op, dtype_t dt, dtype_t odt, int a, int b, int c)
{
    int r = p->n_regs++;
    p->reg_dt[r] = (uint8_t)odt;
    p->ins[p->n_ins++] = (ew_ins_t){.op = (int16_t)op,
                                    .dt = (uint8_t)dt,
                                    .dst = (int8_t)r,
                                    .a = (int8_t)a,
                                    .b = (int8_t)b,
                                    .c = (int8_t)c};
    p->out = r;
    return r;
}

static shape_t shp(int nd, ...)
{
    shape_t s = {.ndim = nd};
    va_list ap;
    va_start(ap, nd);
    for (int i = 0; i < nd; i++)
        s.d[i] = va_arg(ap, int64_t);
    va_end(ap);
    return s;
}

static arr_t arr(void *data, dtype_t dt, shape_t s)
{
    return (arr_t){data, dt, s};
}

/* Runs a binary op over two 1-D arrays of n elements. */
static int run_bin(op_t op, dtype_t dt, dtype_t odt, const void *a, const void *b, int64_t n,
                   void *out, char *err)
{
    ew_prog_t p;
    dtype_t dts[2] = {dt, dt};
    prog_init(&p, 2, dts);
    prog_op(&p, op, dt, odt, 0, 1, -1);
    arr_t in[2] = {arr((void *)a, dt, shp(1, n)), arr((void *)b, dt, shp(1, n))};
    arr_t o = arr(out, odt, shp(1, n));
    return kern_ew_eval(&p, in, &o, err, 256);
}

static void run_un(op_t op, dtype_t dt, dtype_t odt, const void *a, int64_t n, void *out)
{
    ew_prog_t p;
    char err[256];
    prog_init(&p, 1, &dt);
    prog_op(&p, op, op == OP_ASTYPE ? odt : dt, odt, 0, -1, -1);
    arr_t in = arr((void *)a, dt, shp(1, n));
    arr_t o = arr(out, odt, shp(1, n));
    assert_int_equal(kern_ew_eval(&p, &in, &o, err, sizeof err), 0);
}

/* ---- tests ----------------------------------------------------------------- */

static void test_int_floor_divide_mod(void **state)
{
    (void)state;
    char err[256];
    int64_t a[] = {INT64_MIN, 7, -7, 7, -7, 0, 5};
    int64_t b[] = {-1, 2, 2, -2, -2, 0, 0};
    int64_t q[7], r[7];
    int64_t eq[] = {INT64_MIN, 3, -4, -4, 3, 0, 0};
    int64_t er[] = {0, 1, 1, -1, -1, 0, 0};
    assert_int_equal(run_bin(OP_FLOOR_DIVIDE, DT_INT64, DT_INT64, a, b, 7, q, err), 0);
    assert_int_equal(run_bin(OP_MOD, DT_INT64, DT_INT64, a, b, 7, r, err), 0);
    assert_memory_equal(q, eq, sizeof eq);
    assert_memory_equal(r, er, sizeof er);

    int32_t a32[] = {INT32_MIN, 7, -9, 9, -9};
    int32_t b32[] = {-1, 0, 4, -4, -4};
    int32_t q32[5], r32[5];
    int32_t eq32[] = {INT32_MIN, 0, -3, -3, 2};
    int32_t er32[] = {0, 0, 3, -3, -1};
    assert_int_equal(run_bin(OP_FLOOR_DIVIDE, DT_INT32, DT_INT32, a32, b32, 5, q32, err), 0);
    assert_int_equal(run_bin(OP_MOD, DT_INT32, DT_INT32, a32, b32, 5, r32, err), 0);
    assert_memory_equal(q32, eq32, sizeof eq32);
    assert_memory_equal(r32, er32, sizeof er32);
}

static void check_dbl(double got, double want)
{
    if (isnan(want)) {
        assert_true(isnan(got));
    } else {
        assert_true(got == want);
        assert_int_equal(signbit(got) != 0, signbit(want) != 0);
    }
}

static void test_float_floor_divide_mod(void **state)
{
    (void)state;
    char err[256];
    /* numpy 1.24: f // g and f % g */
    double f[] = {5., -5., 5., -5., 0., INFINITY, NAN, 5, -0.0, 1e300, 7.5, -7.5};
    double g[] = {INFINITY, INFINITY, 0., 0., 0., 3., 1., -INFINITY, 2., 1e-300, -2., 2.};
    double eq[] = {0., -1., INFINITY, -INFINITY, NAN, NAN, NAN, -1., -0., INFINITY, -4., -4.};
    double er[] = {5., INFINITY,        NAN,  NAN, NAN, NAN, NAN, -INFINITY,
                   0., 4.89155485e-301, -0.5, 0.5};
    double q[12], r[12];
    assert_int_equal(run_bin(OP_FLOOR_DIVIDE, DT_FLOAT64, DT_FLOAT64, f, g, 12, q, err), 0);
    assert_int_equal(run_bin(OP_MOD, DT_FLOAT64, DT_FLOAT64, f, g, 12, r, err), 0);
    for (int i = 0; i < 12; i++) {
        check_dbl(q[i], eq[i]);
        if (i == 9)
            assert_true(fabs(r[i] - er[i]) < 1e-308);
        else
            check_dbl(r[i], er[i]);
    }
    float f32[] = {7.5f, -7.5f, 1.0f}, g32[] = {-2.f, 2.f, 0.f}, q32[3], r32[3];
    assert_int_equal(run_bin(OP_FLOOR_DIVIDE, DT_FLOAT32, DT_FLOAT32, f32, g32, 3, q32, err), 0);
    assert_int_equal(run_bin(OP_MOD, DT_FLOAT32, DT_FLOAT32, f32, g32, 3, r32, err), 0);
    assert_true(q32[0] == -4.f && q32[1] == -4.f && isinf(q32[2]));
    assert_true(r32[0] == -0.5f && r32[1] == 0.5f && isnan(r32[2]));
}

static void test_power(void **state)
{
    (void)state;
    char err[256] = "";
    int32_t a32[] = {3, 7, -7, INT32_MAX, 1, 0}, b32[] = {21, 3, 3, 2, 100, 0}, o32[6];
    int32_t e32[] = {1870418611, 343, -343, 1, 1, 1};
    assert_int_equal(run_bin(OP_POWER, DT_INT32, DT_INT32, a32, b32, 6, o32, err), 0);
    assert_memory_equal(o32, e32, sizeof e32);
    int64_t a64[] = {3, -2}, b64[] = {41, 63}, o64[2];
    int64_t e64[] = {-420491770248316829LL, INT64_MIN};
    assert_int_equal(run_bin(OP_POWER, DT_INT64, DT_INT64, a64, b64, 2, o64, err), 0);
    assert_memory_equal(o64, e64, sizeof e64);
    /* a negative exponent is an error, as numpy's ValueError */
    int64_t bn[] = {2, -1};
    assert_int_equal(run_bin(OP_POWER, DT_INT64, DT_INT64, a64, bn, 2, o64, err), -1);
    assert_non_null(strstr(err, "negative integer powers"));
    float fa[] = {2.5f}, fb[] = {1.5f}, fo[1];
    assert_int_equal(run_bin(OP_POWER, DT_FLOAT32, DT_FLOAT32, fa, fb, 1, fo, err), 0);
    assert_true(fo[0] == powf(2.5f, 1.5f));
    assert_true(fabsf(fo[0] - 3.952847f) < 1e-6f);
}

static void test_wrap_and_sign(void **state)
{
    (void)state;
    char err[256];
    int32_t a[] = {INT32_MIN, INT32_MAX, -5, 0, 7}, o[5];
    run_un(OP_ABS, DT_INT32, DT_INT32, a, 5, o);
    assert_int_equal(o[0], INT32_MIN);
    assert_int_equal(o[2], 5);
    run_un(OP_NEGATIVE, DT_INT32, DT_INT32, a, 5, o);
    assert_int_equal(o[0], INT32_MIN);
    assert_int_equal(o[1], -INT32_MAX);
    run_un(OP_SIGN, DT_INT32, DT_INT32, a, 5, o);
    int32_t es[] = {-1, 1, -1, 0, 1};
    assert_memory_equal(o, es, sizeof es);
    int32_t one[] = {1, 1, 1, 1, 1};
    assert_int_equal(run_bin(OP_ADD, DT_INT32, DT_INT32, a + 1, one, 1, o, err), 0);
    assert_int_equal(o[0], INT32_MIN);
    run_un(OP_SQUARE, DT_INT32, DT_INT32, a + 1, 1, o);
    assert_int_equal(o[0], 1); /* (2^31-1)^2 mod 2^32 */
    int64_t l[] = {INT64_MIN}, lo[1];
    run_un(OP_ABS, DT_INT64, DT_INT64, l, 1, lo);
    assert_true(lo[0] == INT64_MIN);

    double d[] = {-0.0, NAN, -3., 0.0, 2.}, dout[5];
    run_un(OP_SIGN, DT_FLOAT64, DT_FLOAT64, d, 5, dout);
    assert_true(dout[0] == 0.0 && !signbit(dout[0]));
    assert_true(isnan(dout[1]));
    assert_true(dout[2] == -1.0 && dout[3] == 0.0 && dout[4] == 1.0);
}

static void test_nan_rules(void **state)
{
    (void)state;
    char err[256];
    double a[] = {NAN, 1.0, 2.0, NAN}, b[] = {1.0, NAN, 1.0, NAN}, o[4];
    assert_int_equal(run_bin(OP_MAXIMUM, DT_FLOAT64, DT_FLOAT64, a, b, 4, o, err), 0);
    assert_true(isnan(o[0]) && isnan(o[1]) && o[2] == 2.0 && isnan(o[3]));
    assert_int_equal(run_bin(OP_MINIMUM, DT_FLOAT64, DT_FLOAT64, a, b, 4, o, err), 0);
    assert_true(isnan(o[0]) && isnan(o[1]) && o[2] == 1.0 && isnan(o[3]));
    uint8_t c[4];
    uint8_t eq_e[] = {0, 0, 0, 0}, ne_e[] = {1, 1, 1, 1}, gt_e[] = {0, 0, 1, 0};
    assert_int_equal(run_bin(OP_EQUAL, DT_FLOAT64, DT_BOOL, a, b, 4, c, err), 0);
    assert_memory_equal(c, eq_e, 4);
    assert_int_equal(run_bin(OP_NOT_EQUAL, DT_FLOAT64, DT_BOOL, a, b, 4, c, err), 0);
    assert_memory_equal(c, ne_e, 4);
    assert_int_equal(run_bin(OP_GREATER, DT_FLOAT64, DT_BOOL, a, b, 4, c, err), 0);
    assert_memory_equal(c, gt_e, 4);
    assert_int_equal(run_bin(OP_LESS_EQUAL, DT_FLOAT64, DT_BOOL, a, b, 4, c, err), 0);
    assert_memory_equal(c, eq_e, 4);

    double v[] = {NAN, INFINITY, -INFINITY, 0.0, -1.0};
    uint8_t isn[5], isf[5];
    uint8_t isn_e[] = {1, 0, 0, 0, 0}, isf_e[] = {0, 0, 0, 1, 1};
    run_un(OP_ISNAN, DT_FLOAT64, DT_BOOL, v, 5, isn);
    run_un(OP_ISFINITE, DT_FLOAT64, DT_BOOL, v, 5, isf);
    assert_memory_equal(isn, isn_e, 5);
    assert_memory_equal(isf, isf_e, 5);
    int64_t iv[] = {INT64_MIN, 0};
    run_un(OP_ISNAN, DT_INT64, DT_BOOL, iv, 2, isn);
    run_un(OP_ISFINITE, DT_INT64, DT_BOOL, iv, 2, isf);
    assert_true(isn[0] == 0 && isn[1] == 0 && isf[0] == 1 && isf[1] == 1);
}

static void test_astype(void **state)
{
    (void)state;
    double d[] = {1.5, -1.5, 1099511627776.0, -0.0, INFINITY, NAN};
    int32_t i32[6];
    int32_t e32[] = {1, -1, INT32_MIN, 0, INT32_MIN, INT32_MIN};
    run_un(OP_ASTYPE, DT_FLOAT64, DT_INT32, d, 6, i32);
    assert_memory_equal(i32, e32, sizeof e32);
    int64_t i64[6];
    run_un(OP_ASTYPE, DT_FLOAT64, DT_INT64, d, 6, i64);
    assert_true(i64[0] == 1 && i64[2] == 1099511627776LL && i64[4] == INT64_MIN &&
                i64[5] == INT64_MIN);
    uint8_t b[6], eb[] = {1, 1, 1, 0, 1, 1};
    run_un(OP_ASTYPE, DT_FLOAT64, DT_BOOL, d, 6, b);
    assert_memory_equal(b, eb, 6);
    int64_t big[] = {1099511627781LL, -34359738371LL};
    run_un(OP_ASTYPE, DT_INT64, DT_INT32, big, 2, i32);
    assert_int_equal(i32[0], 5);
    assert_int_equal(i32[1], -3);
    float f[] = {3.7f, -3.7f};
    run_un(OP_ASTYPE, DT_FLOAT32, DT_INT64, f, 2, i64);
    assert_true(i64[0] == 3 && i64[1] == -3);
    double huge[] = {1e40};
    float fo[1];
    run_un(OP_ASTYPE, DT_FLOAT64, DT_FLOAT32, huge, 1, fo);
    assert_true(isinf(fo[0]));
    uint8_t bb[] = {1, 0};
    double bd[2];
    run_un(OP_ASTYPE, DT_BOOL, DT_FLOAT64, bb, 2, bd);
    assert_true(bd[0] == 1.0 && bd[1] == 0.0);
}

/* (3, 1) int32 + (4,) float64 scalar-promoted: out (3, 4) float64, with the
 * int32 operand cast in the program. */
static void test_broadcast_and_promotion(void **state)
{
    (void)state;
    char err[256];
    int32_t a[3] = {1, 2, 3};
    double b[4] = {0.5, 1.5, 2.5, 3.5};
    ew_prog_t p;
    dtype_t dts[2] = {DT_INT32, DT_FLOAT64};
    prog_init(&p, 2, dts);
    int ca = prog_op(&p, OP_ASTYPE, DT_FLOAT64, DT_FLOAT64, 0, -1, -1);
    int k = prog_const(&p, DT_FLOAT64, sc_int(10));
    int m = prog_op(&p, OP_MULTIPLY, DT_FLOAT64, DT_FLOAT64, ca, k, -1);
    prog_op(&p, OP_ADD, DT_FLOAT64, DT_FLOAT64, m, 1, -1);
    arr_t in[2] = {arr(a, DT_INT32, shp(2, (int64_t)3, (int64_t)1)),
                   arr(b, DT_FLOAT64, shp(1, (int64_t)4))};
    double out[12];
    arr_t o = arr(out, DT_FLOAT64, shp(2, (int64_t)3, (int64_t)4));
    assert_int_equal(kern_ew_eval(&p, in, &o, err, sizeof err), 0);
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 4; j++)
            assert_true(out[i * 4 + j] == a[i] * 10.0 + b[j]);
}

/* Broadcasting over several blocks and odd dimensions: (5, 1, 7) against
 * (1, 1, 6, 1) gives (1, 5, 6, 7)... and a (3001, 1) * (1, 701) outer. */
static void test_broadcast_blocks(void **state)
{
    (void)state;
    char err[256];
    enum { R = 3001, C = 701 };
    int64_t *a = malloc(R * sizeof *a), *b = malloc(C * sizeof *b);
    int64_t *out = malloc((size_t)R * C * sizeof *out);
    for (int i = 0; i < R; i++)
        a[i] = i - 1500;
    for (int j = 0; j < C; j++)
        b[j] = 3 * j + 1;
    ew_prog_t p;
    dtype_t dts[2] = {DT_INT64, DT_INT64};
    prog_init(&p, 2, dts);
    int s = prog_op(&p, OP_MULTIPLY, DT_INT64, DT_INT64, 0, 1, -1);
    prog_op(&p, OP_SUBTRACT, DT_INT64, DT_INT64, s, 1, -1);
    arr_t in[2] = {arr(a, DT_INT64, shp(2, (int64_t)R, (int64_t)1)),
                   arr(b, DT_INT64, shp(2, (int64_t)1, (int64_t)C))};
    arr_t o = arr(out, DT_INT64, shp(2, (int64_t)R, (int64_t)C));
    assert_int_equal(kern_ew_eval(&p, in, &o, err, sizeof err), 0);
    for (int i = 0; i < R; i++)
        for (int j = 0; j < C; j++)
            assert_true(out[(size_t)i * C + j] == a[i] * b[j] - b[j]);
    free(a);
    free(b);
    free(out);

    float x[5 * 7], y[6];
    for (int i = 0; i < 35; i++)
        x[i] = (float)i;
    for (int i = 0; i < 6; i++)
        y[i] = (float)(100 * i);
    float o4[5 * 6 * 7];
    dtype_t fd[2] = {DT_FLOAT32, DT_FLOAT32};
    prog_init(&p, 2, fd);
    prog_op(&p, OP_ADD, DT_FLOAT32, DT_FLOAT32, 0, 1, -1);
    arr_t in2[2] = {arr(x, DT_FLOAT32, shp(3, (int64_t)5, (int64_t)1, (int64_t)7)),
                    arr(y, DT_FLOAT32, shp(4, (int64_t)1, (int64_t)1, (int64_t)6, (int64_t)1))};
    arr_t o2 = arr(o4, DT_FLOAT32, shp(4, (int64_t)1, (int64_t)5, (int64_t)6, (int64_t)7));
    assert_int_equal(kern_ew_eval(&p, in2, &o2, err, sizeof err), 0);
    for (int i = 0; i < 5; i++)
        for (int j = 0; j < 6; j++)
            for (int k = 0; k < 7; k++)
                assert_true(o4[(i * 6 + j) * 7 + k] == x[i * 7 + k] + y[j]);
}

/* A fused program whose temporaries outnumber what is live at once, over
 * several blocks: ((a*2+1) * (a-3)) / (a+0.5) with a float64 and a dead op. */
static void test_fused_long_program(void **state)
{
    (void)state;
    char err[256];
    enum { N = 5003 };
    double *a = malloc(N * sizeof *a), *out = malloc(N * sizeof *out);
    for (int i = 0; i < N; i++)
        a[i] = (i - 2500) * 0.25 + 0.125; /* never -0.5 */
    ew_prog_t p;
    dtype_t dt = DT_FLOAT64;
    prog_init(&p, 1, &dt);
    int two = prog_const(&p, DT_FLOAT64, sc_float(2.0));
    int one = prog_const(&p, DT_FLOAT64, sc_int(1));
    int three = prog_const(&p, DT_FLOAT64, sc_int(3));
    int half = prog_const(&p, DT_FLOAT64, sc_float(0.5));
    int t1 = prog_op(&p, OP_MULTIPLY, dt, dt, 0, two, -1);
    int t2 = prog_op(&p, OP_ADD, dt, dt, t1, one, -1);
    prog_op(&p, OP_SQRT, dt, dt, t2, -1, -1); /* dead */
    int t3 = prog_op(&p, OP_SUBTRACT, dt, dt, 0, three, -1);
    int t4 = prog_op(&p, OP_MULTIPLY, dt, dt, t2, t3, -1);
    int t5 = prog_op(&p, OP_ADD, dt, dt, 0, half, -1);
    prog_op(&p, OP_DIVIDE, dt, dt, t4, t5, -1);
    arr_t in = arr(a, dt, shp(1, (int64_t)N));
    arr_t o = arr(out, dt, shp(1, (int64_t)N));
    assert_int_equal(kern_ew_eval(&p, &in, &o, err, sizeof err), 0);
    for (int i = 0; i < N; i++)
        assert_true(out[i] == ((a[i] * 2.0 + 1.0) * (a[i] - 3.0)) / (a[i] + 0.5));
    free(a);
    free(out);
}

static void test_where_clip_logical(void **state)
{
    (void)state;
    char err[256];
    uint8_t cond[] = {1, 0, 1, 0, 1};
    double x[] = {1, 2, 3, 4, 5}, y[] = {-1, -2, -3, -4, -5}, o[5];
    ew_prog_t p;
    dtype_t dts[3] = {DT_BOOL, DT_FLOAT64, DT_FLOAT64};
    prog_init(&p, 3, dts);
    prog_op(&p, OP_WHERE, DT_FLOAT64, DT_FLOAT64, 0, 1, 2);
    arr_t in[3] = {arr(cond, DT_BOOL, shp(1, (int64_t)5)), arr(x, DT_FLOAT64, shp(1, (int64_t)5)),
                   arr(y, DT_FLOAT64, shp(1, (int64_t)5))};
    arr_t out = arr(o, DT_FLOAT64, shp(1, (int64_t)5));
    assert_int_equal(kern_ew_eval(&p, in, &out, err, sizeof err), 0);
    double ew[] = {1, -2, 3, -4, 5};
    assert_memory_equal(o, ew, sizeof ew);

    /* where over bytes with a scalar-shaped y */
    uint8_t bx[] = {1, 1, 0, 0, 1}, by[] = {0}, bo[5], be[] = {1, 0, 0, 0, 1};
    dtype_t bd[3] = {DT_BOOL, DT_BOOL, DT_BOOL};
    prog_init(&p, 3, bd);
    prog_op(&p, OP_WHERE, DT_BOOL, DT_BOOL, 0, 1, 2);
    arr_t bin[3] = {arr(cond, DT_BOOL, shp(1, (int64_t)5)), arr(bx, DT_BOOL, shp(1, (int64_t)5)),
                    arr(by, DT_BOOL, shp(0))};
    arr_t bout = arr(bo, DT_BOOL, shp(1, (int64_t)5));
    assert_int_equal(kern_ew_eval(&p, bin, &bout, err, sizeof err), 0);
    assert_memory_equal(bo, be, 5);

    /* clip(a, nan, 4) -> all nan; clip(a, lo=2) only; clip(a, 2, 4) */
    double a[] = {1, NAN, 5, 3};
    dtype_t d1 = DT_FLOAT64;
    prog_init(&p, 1, &d1);
    int lo = prog_const(&p, DT_FLOAT64, sc_float(2));
    int hi = prog_const(&p, DT_FLOAT64, sc_int(4));
    prog_op(&p, OP_CLIP, DT_FLOAT64, DT_FLOAT64, 0, lo, hi);
    arr_t ca = arr(a, DT_FLOAT64, shp(1, (int64_t)4));
    double co[4];
    arr_t cout = arr(co, DT_FLOAT64, shp(1, (int64_t)4));
    assert_int_equal(kern_ew_eval(&p, &ca, &cout, err, sizeof err), 0);
    assert_true(co[0] == 2 && isnan(co[1]) && co[2] == 4 && co[3] == 3);
    prog_init(&p, 1, &d1);
    lo = prog_const(&p, DT_FLOAT64, sc_float(2));
    prog_op(&p, OP_CLIP, DT_FLOAT64, DT_FLOAT64, 0, lo, -1);
    assert_int_equal(kern_ew_eval(&p, &ca, &cout, err, sizeof err), 0);
    assert_true(co[0] == 2 && isnan(co[1]) && co[2] == 5 && co[3] == 3);
    prog_init(&p, 1, &d1);
    int nan = prog_const(&p, DT_FLOAT64, sc_float(NAN));
    hi = prog_const(&p, DT_FLOAT64, sc_int(4));
    prog_op(&p, OP_CLIP, DT_FLOAT64, DT_FLOAT64, 0, nan, hi);
    assert_int_equal(kern_ew_eval(&p, &ca, &cout, err, sizeof err), 0);
    for (int i = 0; i < 4; i++)
        assert_true(isnan(co[i]));

    /* logical ops on truthiness: float -> bool cast, then and / or / not */
    double l1[] = {0.0, NAN, 2.0, 0.0}, l2[] = {0.0, 0.0, -1.0, 3.0};
    dtype_t ld[2] = {DT_FLOAT64, DT_FLOAT64};
    prog_init(&p, 2, ld);
    int b1 = prog_op(&p, OP_ASTYPE, DT_BOOL, DT_BOOL, 0, -1, -1);
    int b2 = prog_op(&p, OP_ASTYPE, DT_BOOL, DT_BOOL, 1, -1, -1);
    int land = prog_op(&p, OP_LOGICAL_AND, DT_BOOL, DT_BOOL, b1, b2, -1);
    int lor = prog_op(&p, OP_LOGICAL_OR, DT_BOOL, DT_BOOL, b1, b2, -1);
    int nand = prog_op(&p, OP_LOGICAL_NOT, DT_BOOL, DT_BOOL, land, -1, -1);
    prog_op(&p, OP_ADD, DT_BOOL, DT_BOOL, nand, lor, -1); /* bool add is or */
    arr_t lin[2] = {arr(l1, DT_FLOAT64, shp(1, (int64_t)4)),
                    arr(l2, DT_FLOAT64, shp(1, (int64_t)4))};
    uint8_t lo_[4], le[] = {1, 1, 1, 1};
    arr_t lout = arr(lo_, DT_BOOL, shp(1, (int64_t)4));
    assert_int_equal(kern_ew_eval(&p, lin, &lout, err, sizeof err), 0);
    assert_memory_equal(lo_, le, 4);
    /* and only: */
    p.out = land;
    p.n_ins = 3;
    assert_int_equal(kern_ew_eval(&p, lin, &lout, err, sizeof err), 0);
    uint8_t le2[] = {0, 0, 1, 0};
    assert_memory_equal(lo_, le2, 4);
}

static void test_float_unary(void **state)
{
    (void)state;
    enum { N = 37 }; /* not a multiple of the vector width */
    float a[N], o[N];
    double d[N], od[N];
    for (int i = 0; i < N; i++) {
        a[i] = (float)(i - 18) * 0.75f;
        d[i] = (i - 18) * 0.75;
    }
    run_un(OP_SQRT, DT_FLOAT32, DT_FLOAT32, a, N, o);
    for (int i = 0; i < N; i++) {
        if (a[i] < 0)
            assert_true(isnan(o[i]));
        else
            assert_true(o[i] == sqrtf(a[i]));
    }
    run_un(OP_FLOOR, DT_FLOAT64, DT_FLOAT64, d, N, od);
    for (int i = 0; i < N; i++)
        assert_true(od[i] == floor(d[i]));
    run_un(OP_CEIL, DT_FLOAT32, DT_FLOAT32, a, N, o);
    for (int i = 0; i < N; i++)
        assert_true(o[i] == ceilf(a[i]));
    run_un(OP_EXP, DT_FLOAT32, DT_FLOAT32, a, N, o);
    assert_true(fabsf(o[22] - 20.085537f) < 1e-4f); /* exp(3) */
    run_un(OP_LOG1P, DT_FLOAT64, DT_FLOAT64, d, N, od);
    assert_true(isnan(od[0]) && od[18] == 0.0 && fabs(od[22] - log1p(3.0)) < 1e-15);
    run_un(OP_TANH, DT_FLOAT64, DT_FLOAT64, d, N, od);
    assert_true(fabs(od[36] - tanh(13.5)) < 1e-15);
}

/* The output register is an input (an identity program), and a program over
 * a 0-d output. */
static void test_trivial_programs(void **state)
{
    (void)state;
    char err[256];
    int32_t a[] = {4, 5, 6}, o[3];
    ew_prog_t p;
    dtype_t dt = DT_INT32;
    prog_init(&p, 1, &dt);
    p.out = 0;
    arr_t in = arr(a, DT_INT32, shp(1, (int64_t)3));
    arr_t out = arr(o, DT_INT32, shp(1, (int64_t)3));
    assert_int_equal(kern_ew_eval(&p, &in, &out, err, sizeof err), 0);
    assert_memory_equal(o, a, sizeof a);

    int64_t s = 9, so = 0;
    dt = DT_INT64;
    prog_init(&p, 1, &dt);
    int k = prog_const(&p, DT_INT64, sc_int(-4));
    prog_op(&p, OP_FLOOR_DIVIDE, DT_INT64, DT_INT64, 0, k, -1);
    arr_t s_in = arr(&s, DT_INT64, shp(0));
    arr_t s_out = arr(&so, DT_INT64, shp(0));
    assert_int_equal(kern_ew_eval(&p, &s_in, &s_out, err, sizeof err), 0);
    assert_true(so == -3);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_int_floor_divide_mod),
        cmocka_unit_test(test_float_floor_divide_mod),
        cmocka_unit_test(test_power),
        cmocka_unit_test(test_wrap_and_sign),
        cmocka_unit_test(test_nan_rules),
        cmocka_unit_test(test_astype),
        cmocka_unit_test(test_broadcast_and_promotion),
        cmocka_unit_test(test_broadcast_blocks),
        cmocka_unit_test(test_fused_long_program),
        cmocka_unit_test(test_where_clip_logical),
        cmocka_unit_test(test_float_unary),
        cmocka_unit_test(test_trivial_programs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
