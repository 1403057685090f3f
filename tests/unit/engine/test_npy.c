/* test_npy.c: .npy headers byte for byte against numpy 1.24, files numpy
 * wrote (tests/unit/engine/fixtures, made by gen_npy_fixtures.py), the
 * streaming writer, and malformed headers. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "npy.h"

static char tmpdir[64];

/* The fixtures sit beside this file: its directory comes from __FILE__,
 * which is relative to the repository root when built by the Makefile (and
 * the suite runs from there), or absolute. */
static void fixture_path(const char *name, char *out, size_t len)
{
    const char *f = __FILE__, *slash = strrchr(f, '/');
    int dl = slash ? (int)(slash - f + 1) : 0;
    snprintf(out, len, "%.*sfixtures/%s", dl, f, name);
}

static void tmp_path(const char *name, char *out, size_t len)
{
    snprintf(out, len, "%s/%s", tmpdir, name);
}

static shape_t shp(int nd, ...)
{
    shape_t s = {.ndim = nd};
    va_list ap;
    va_start(ap, nd);
    for (int i = 0; i < nd; i++)
        s.d[i] = va_arg(ap, long long);
    va_end(ap);
    return s;
}

static void *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *b = malloc((size_t)n + 1);
    assert_non_null(b);
    assert_int_equal(fread(b, 1, (size_t)n, f), (size_t)n);
    fclose(f);
    *len = (size_t)n;
    return b;
}

static void spit(const char *path, const void *data, size_t len)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(data, 1, len, f), len);
    fclose(f);
}

/* ---------------------------------------------------------------------------
 * Header bytes: numpy 1.24's np.save output, quoted from
 *   f = io.BytesIO(); np.lib.format._write_array_header(f, {'descr': ...,
 *       'fortran_order': False, 'shape': ...}); f.getvalue() */

static void expect_header(dtype_t dt, shape_t s, const char *want, size_t wantlen)
{
    char buf[NPY_HEADER_MAX];
    size_t hl = 0;
    assert_int_equal(npy_header(dt, &s, buf, sizeof buf, &hl), 0);
    assert_int_equal(hl, wantlen);
    assert_memory_equal(buf, want, wantlen);
    assert_int_equal(hl % 64, 0);
}

#define EXPECT_HEADER(dt, s, lit) expect_header(dt, s, lit, sizeof lit - 1)

static void test_header_numpy_bytes(void **st)
{
    EXPECT_HEADER(DT_FLOAT64, shp(2, 2000LL, 2000LL),
                  "\x93NUMPY\x01\x00v\x00{'descr': '<f8', 'fortran_order': False, 'shape': "
                  "(2000, 2000), }                                                    \n");
    EXPECT_HEADER(DT_FLOAT64, shp(0),
                  "\x93NUMPY\x01\x00v\x00{'descr': '<f8', 'fortran_order': False, 'shape': (), "
                  "}                                                              \n");
    EXPECT_HEADER(DT_INT32, shp(1, 5LL),
                  "\x93NUMPY\x01\x00v\x00{'descr': '<i4', 'fortran_order': False, 'shape': (5,), "
                  "}                                                            \n");
    EXPECT_HEADER(DT_BOOL, shp(2, 0LL, 3LL),
                  "\x93NUMPY\x01\x00v\x00{'descr': '|b1', 'fortran_order': False, 'shape': (0, "
                  "3), }                                                          \n");
    EXPECT_HEADER(DT_INT64, shp(2, 9223372036854775807LL, 2LL),
                  "\x93NUMPY\x01\x00v\x00{'descr': '<i8', 'fortran_order': False, 'shape': "
                  "(9223372036854775807, 2), }                                        \n");
    shape_t s32 = {.ndim = 32};
    for (int i = 0; i < 32; i++)
        s32.d[i] = 1;
    EXPECT_HEADER(DT_FLOAT32, s32,
                  "\x93NUMPY\x01\x00\xb6\x00{'descr': '<f4', 'fortran_order': False, 'shape': (1, "
                  "1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, "
                  "1, 1, 1, 1, 1), }                                \n");
    /* the dict already ends on a 64-byte boundary: numpy pads a whole 64 */
    EXPECT_HEADER(DT_FLOAT64, shp(7, 1LL, 1000LL, 10000LL, 10000LL, 10000LL, 10000LL, 10000LL),
                  "\x93NUMPY\x01\x00\xb6\x00{'descr': '<f8', 'fortran_order': False, 'shape': (1, "
                  "1000, 10000, 10000, 10000, 10000, 10000), }                                     "
                  "                                               \n");
}

static void test_header_errors(void **st)
{
    char buf[NPY_HEADER_MAX];
    size_t hl;
    shape_t neg = shp(2, 3LL, -1LL);
    assert_int_equal(npy_header(DT_FLOAT64, &neg, buf, sizeof buf, &hl), -1);
    shape_t ok = shp(1, 3LL);
    assert_int_equal(npy_header(DT_FLOAT64, &ok, buf, 127, &hl), -1);
    assert_int_equal(npy_header(DT_FLOAT64, &ok, buf, 128, &hl), 0);
}

/* Every v1.0 fixture's header is what npy_header writes for its dtype and
 * shape. */
static void test_header_matches_fixtures(void **st)
{
    const char *names[] = {"f8_3x4.npy",   "f4_5.npy", "i8_scalar.npy",
                           "i4_2x3x2.npy", "b1_7.npy", "f8_0x3.npy"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        char path[512], err[256], hdr[NPY_HEADER_MAX];
        fixture_path(names[i], path, sizeof path);
        size_t len, off, hl;
        char *b = slurp(path, &len);
        dtype_t dt;
        shape_t s;
        if (npy_parse_header(b, len, &dt, &s, &off, err, sizeof err) < 0)
            fail_msg("%s: %s", names[i], err);
        assert_int_equal(npy_header(dt, &s, hdr, sizeof hdr, &hl), 0);
        assert_int_equal(hl, off);
        assert_memory_equal(hdr, b, hl);
        free(b);
    }
}

/* ---------------------------------------------------------------------------
 * Reading numpy's files */

static void *read_fixture(const char *name, dtype_t *dt, shape_t *s, size_t *n)
{
    char path[512], err[256];
    void *data = NULL;
    fixture_path(name, path, sizeof path);
    if (npy_read_file(path, dt, s, &data, n, err, sizeof err) < 0) fail_msg("%s", err);
    assert_non_null(data);
    return data;
}

static void test_read_fixtures(void **st)
{
    dtype_t dt;
    shape_t s;
    size_t n;
    const char *f8names[] = {"f8_3x4.npy", "f8_3x4_v2.npy"};
    for (int k = 0; k < 2; k++) {
        double *d = read_fixture(f8names[k], &dt, &s, &n);
        assert_int_equal(dt, DT_FLOAT64);
        assert_true(shape_eq(&s, &(shape_t){.ndim = 2, .d = {3, 4}}));
        assert_int_equal(n, 96);
        for (int i = 0; i < 12; i++)
            assert_float_equal(d[i], i * 0.5 - 3, 0);
        free(d);
    }

    float *f = read_fixture("f4_5.npy", &dt, &s, &n);
    assert_int_equal(dt, DT_FLOAT32);
    assert_true(shape_eq(&s, &(shape_t){.ndim = 1, .d = {5}}));
    for (int i = 0; i < 5; i++)
        assert_float_equal(f[i], i / 4.0, 0);
    free(f);

    int64_t *l = read_fixture("i8_scalar.npy", &dt, &s, &n);
    assert_int_equal(dt, DT_INT64);
    assert_int_equal(s.ndim, 0);
    assert_int_equal(n, 8);
    assert_int_equal(l[0], -7);
    free(l);

    int32_t *v = read_fixture("i4_2x3x2.npy", &dt, &s, &n);
    assert_int_equal(dt, DT_INT32);
    assert_true(shape_eq(&s, &(shape_t){.ndim = 3, .d = {2, 3, 2}}));
    for (int i = 0; i < 12; i++)
        assert_int_equal(v[i], i * 1000003 - 5);
    free(v);

    uint8_t *b = read_fixture("b1_7.npy", &dt, &s, &n);
    assert_int_equal(dt, DT_BOOL);
    assert_int_equal(n, 7);
    for (int i = 0; i < 7; i++)
        assert_int_equal(b[i], i % 3 == 0);
    free(b);

    void *e = read_fixture("f8_0x3.npy", &dt, &s, &n);
    assert_true(shape_eq(&s, &(shape_t){.ndim = 2, .d = {0, 3}}));
    assert_int_equal(n, 0);
    free(e);
}

static void expect_read_error(const char *path, const char *needle)
{
    dtype_t dt;
    shape_t s;
    void *data = NULL;
    size_t n;
    char err[256] = "";
    assert_int_equal(npy_read_file(path, &dt, &s, &data, &n, err, sizeof err), -1);
    assert_null(data);
    if (!strstr(err, needle)) fail_msg("error '%s' does not mention '%s'", err, needle);
}

static void test_read_refused_fixtures(void **st)
{
    char path[512];
    fixture_path("f8_fortran.npy", path, sizeof path);
    expect_read_error(path, "fortran_order True");
    fixture_path("f8_bigendian.npy", path, sizeof path);
    expect_read_error(path, "'>f8'");
    expect_read_error("/nonexistent/x.npy", "cannot open");
}

static void test_read_bad_sizes(void **st)
{
    char path[512], src[512];
    size_t len;
    fixture_path("f8_3x4.npy", src, sizeof src);
    char *b = slurp(src, &len);
    char *big = malloc(len + 8);
    memcpy(big, b, len);
    memset(big + len, 0, 8);

    tmp_path("short.npy", path, sizeof path);
    spit(path, b, len - 1);
    expect_read_error(path, "announces 96 data bytes but the file holds 95");
    spit(path, big, len + 3);
    expect_read_error(path, "file holds 99");
    /* cut inside the header, and inside the fixed prefix */
    spit(path, b, 50);
    expect_read_error(path, "truncated");
    spit(path, b, 9);
    expect_read_error(path, "too short");
    spit(path, b, 0);
    expect_read_error(path, "too short");
    /* a 0-byte-data file followed by 2 stray bytes (read with the prefix) */
    char scalar[256];
    size_t hl;
    shape_t zero = shp(1, 0LL);
    assert_int_equal(npy_header(DT_FLOAT64, &zero, scalar, sizeof scalar, &hl), 0);
    scalar[hl] = 'x';
    spit(path, scalar, hl + 1);
    expect_read_error(path, "holds 1");
    free(b);
    free(big);
    unlink(path);
}

/* ---------------------------------------------------------------------------
 * Round trips */

static void test_roundtrip_header(void **st)
{
    const shape_t shapes[] = {shp(0),
                              shp(1, 5LL),
                              shp(1, 0LL),
                              shp(2, 2000LL, 2000LL),
                              shp(3, 1LL, 0LL, 7LL),
                              shp(4, 123456789LL, 3LL, 2LL, 1LL),
                              shp(2, 1LL << 40, 1LL << 10)};
    for (int t = 0; t < DT_NTYPES; t++)
        for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
            char buf[NPY_HEADER_MAX], err[256];
            size_t hl, off;
            dtype_t dt;
            shape_t s;
            assert_int_equal(npy_header((dtype_t)t, &shapes[i], buf, sizeof buf, &hl), 0);
            if (npy_parse_header(buf, hl, &dt, &s, &off, err, sizeof err) < 0) fail_msg("%s", err);
            assert_int_equal(dt, t);
            assert_true(shape_eq(&s, &shapes[i]));
            assert_int_equal(off, hl);
        }
}

static void test_writer_pieces(void **st)
{
    /* 3 MiB of float64 in pieces of every size class: tiny ones gathered in
     * the buffer, one that fills it exactly, and some that bypass it */
    const int64_t n = 3 * 131072;
    shape_t s = shp(2, 3LL, n / 3);
    double *d = malloc((size_t)n * 8);
    for (int64_t i = 0; i < n; i++)
        d[i] = (double)i * 0.25 - 1000;
    char path[512], err[256];
    tmp_path("w.npy", path, sizeof path);
    npy_writer_t w;
    assert_int_equal(npy_writer_open(&w, path, DT_FLOAT64, &s, err, sizeof err), 0);
    const size_t pieces[] = {0, 1, 7, 8, 1000, 1 << 20, 3, (1 << 20) + 5, 4096};
    size_t done = 0, total = (size_t)n * 8;
    for (size_t k = 0; done < total; k++) {
        size_t p = pieces[k % (sizeof pieces / sizeof pieces[0])];
        if (p > total - done) p = total - done;
        if (npy_writer_write(&w, (char *)d + done, p, err, sizeof err) < 0) fail_msg("%s", err);
        done += p;
    }
    if (npy_writer_close(&w, err, sizeof err) < 0) fail_msg("%s", err);

    dtype_t dt;
    shape_t rs;
    void *back;
    size_t nb;
    if (npy_read_file(path, &dt, &rs, &back, &nb, err, sizeof err) < 0) fail_msg("%s", err);
    assert_int_equal(dt, DT_FLOAT64);
    assert_true(shape_eq(&rs, &s));
    assert_int_equal(nb, total);
    assert_memory_equal(back, d, total);
    free(back);

    /* and in one call, also through npy_parse on the file's bytes */
    int32_t small[6] = {1, -2, 3, -4, 5, INT32_MIN};
    shape_t s2 = shp(2, 2LL, 3LL);
    assert_int_equal(npy_write_file(path, DT_INT32, &s2, small, err, sizeof err), 0);
    size_t len;
    char *img = slurp(path, &len);
    const void *data;
    assert_int_equal(npy_parse(img, len, &dt, &rs, &data, &nb, err, sizeof err), 0);
    assert_int_equal(dt, DT_INT32);
    assert_true(shape_eq(&rs, &s2));
    assert_int_equal(nb, sizeof small);
    assert_memory_equal(data, small, sizeof small);
    assert_int_equal(len, 128 + sizeof small);
    free(img);
    free(d);
    unlink(path);
}

static void test_writer_count_checks(void **st)
{
    char path[512], err[256];
    struct stat sb;
    tmp_path("c.npy", path, sizeof path);
    shape_t s = shp(1, 4LL);
    int32_t v[5] = {1, 2, 3, 4, 5};
    npy_writer_t w;

    /* too few bytes: close fails and the file is gone */
    assert_int_equal(npy_writer_open(&w, path, DT_INT32, &s, err, sizeof err), 0);
    assert_int_equal(npy_writer_write(&w, v, 12, err, sizeof err), 0);
    assert_int_equal(npy_writer_close(&w, err, sizeof err), -1);
    assert_non_null(strstr(err, "12 of the 16 data bytes"));
    assert_int_equal(stat(path, &sb), -1);

    /* too many: the write is refused, and so is the file */
    assert_int_equal(npy_writer_open(&w, path, DT_INT32, &s, err, sizeof err), 0);
    assert_int_equal(npy_writer_write(&w, v, 8, err, sizeof err), 0);
    assert_int_equal(npy_writer_write(&w, v, 12, err, sizeof err), -1);
    assert_non_null(strstr(err, "12 more bytes would pass the 16"));
    assert_int_equal(npy_writer_write(&w, v, 8, err, sizeof err), -1);
    assert_int_equal(npy_writer_close(&w, err, sizeof err), -1);
    assert_int_equal(stat(path, &sb), -1);

    /* an invalid shape never creates the file */
    shape_t bad = shp(2, 2LL, -3LL);
    assert_int_equal(npy_writer_open(&w, path, DT_INT32, &bad, err, sizeof err), -1);
    assert_non_null(strstr(err, "invalid shape (2, -3)"));
    shape_t huge = shp(2, 1LL << 62, 4LL);
    assert_int_equal(npy_writer_open(&w, path, DT_INT32, &huge, err, sizeof err), -1);
    assert_int_equal(stat(path, &sb), -1);

    /* an empty array: the header alone */
    shape_t empty = shp(2, 0LL, 5LL);
    assert_int_equal(npy_writer_open(&w, path, DT_BOOL, &empty, err, sizeof err), 0);
    assert_int_equal(npy_writer_close(&w, err, sizeof err), 0);
    assert_int_equal(stat(path, &sb), 0);
    assert_int_equal(sb.st_size, 128);
    unlink(path);

    /* a directory cannot be created */
    assert_int_equal(npy_writer_open(&w, tmpdir, DT_BOOL, &empty, err, sizeof err), -1);
    assert_non_null(strstr(err, "cannot create"));
}

static void test_writer_disk_full(void **st)
{
    /* /dev/full fails every write with ENOSPC */
    int fd = open("/dev/full", O_WRONLY | O_CLOEXEC);
    if (fd < 0) skip();
    char err[256];
    shape_t s = shp(1, 300000LL); /* 2.4 MB: passes the buffer */
    double *d = calloc(300000, 8);
    npy_writer_t w;
    assert_int_equal(npy_writer_open_fd(&w, fd, DT_FLOAT64, &s, err, sizeof err), 0);
    assert_int_equal(npy_writer_write(&w, d, 300000 * 8, err, sizeof err), -1);
    assert_non_null(strstr(err, "No space left"));
    assert_int_equal(npy_writer_close(&w, err, sizeof err), -1);
    assert_non_null(strstr(err, "No space left"));

    /* small writes only fail at the flush in close */
    assert_int_equal(npy_writer_open_fd(&w, fd, DT_FLOAT64, &s, err, sizeof err), 0);
    assert_int_equal(npy_writer_write(&w, d, 100, err, sizeof err), 0);
    assert_int_equal(npy_writer_close(&w, err, sizeof err), -1);
    assert_non_null(strstr(err, "write error"));
    /* the fd stays the caller's */
    assert_int_equal(close(fd), 0);
    free(d);
}

/* ---------------------------------------------------------------------------
 * Malformed and unusual headers */

/* Builds a v1.0 header around dict (no padding needed by the parser). */
static size_t make_v1(const char *dict, char *out)
{
    size_t n = strlen(dict);
    memcpy(out, "\x93NUMPY\x01\x00", 8);
    out[8] = (char)(n & 0xff);
    out[9] = (char)(n >> 8);
    memcpy(out + 10, dict, n);
    return 10 + n;
}

static void expect_parse_error(const void *buf, size_t len, const char *needle)
{
    dtype_t dt;
    shape_t s;
    size_t off;
    char err[256] = "";
    assert_int_equal(npy_parse_header(buf, len, &dt, &s, &off, err, sizeof err), -1);
    if (!strstr(err, needle)) fail_msg("error '%s' does not mention '%s'", err, needle);
}

static void expect_dict_error(const char *dict, const char *needle)
{
    char buf[512];
    size_t n = make_v1(dict, buf);
    expect_parse_error(buf, n, needle);
}

static void test_parse_malformed(void **st)
{
    const char *good = "{'descr': '<f8', 'fortran_order': False, 'shape': (2, 3), }\n";
    char buf[512];
    size_t n = make_v1(good, buf);

    /* prefix */
    expect_parse_error(buf, 0, "too short");
    expect_parse_error(buf, 9, "too short");
    expect_parse_error("\x93NUMPX\x01\x00\x00\x00", 10, "magic");
    expect_parse_error("\x93NUMPY\x04\x00\x00\x00", 10, "version 4.0");
    expect_parse_error("\x93NUMPY\x01\x01\x00\x00", 10, "version 1.1");
    expect_parse_error("\x93NUMPY\x02\x00\x00\x00", 10, "too short for a version 2.0");
    expect_parse_error("\x93NUMPY\x02\x00\xff\xff\xff\xff", 12, "exceeds the limit");
    expect_parse_error(buf, n - 1, "truncated");
    expect_parse_error(buf, 11, "truncated");

    /* the dict */
    expect_dict_error("", "expected '{'");
    expect_dict_error("[", "expected '{'");
    expect_dict_error("{'descr': '<f8', 'fortran_order': False, 'shape': (2, 3), ",
                      "quoted string");
    expect_dict_error("{'descr': '<f8', 'fortran_order': False}", "missing key 'shape'");
    expect_dict_error("{'fortran_order': False, 'shape': ()}", "missing key 'descr'");
    expect_dict_error("{'descr': '<f8', 'shape': ()}", "missing key 'fortran_order'");
    expect_dict_error("{'descr': '<f8', 'fortran_order': False, 'shape': (), 'x': 1}",
                      "unknown key 'x'");
    expect_dict_error("{'descr': '<f8', 'descr': '<f8', 'fortran_order': False, 'shape': ()}",
                      "'descr' appears twice");
    expect_dict_error("{'descr': '<f8', 'fortran_order': False, 'fortran_order': False, "
                      "'shape': ()}",
                      "'fortran_order' appears twice");
    expect_dict_error("{'descr': '<f8', 'fortran_order': False, 'shape': (), 'shape': ()}",
                      "'shape' appears twice");
    expect_dict_error("{'descr': '<f8', 'fortran_order': True, 'shape': (2, 3), }",
                      "fortran_order True is not supported");
    expect_dict_error("{'descr': '<f8', 'fortran_order': Falsey, 'shape': ()}", "True or False");
    expect_dict_error("{'descr': '<f8', 'fortran_order': 0, 'shape': ()}", "True or False");
    expect_dict_error("{'descr': '<c16', 'fortran_order': False, 'shape': ()}",
                      "unsupported dtype descr '<c16'");
    expect_dict_error("{'descr': '<c16', 'fortran_order': False, 'shape': ()}", "'<c16'");
    expect_dict_error("{'descr': [('a', '<f8')], 'fortran_order': False, 'shape': ()}",
                      "structured");
    expect_dict_error("{'descr': '<f8aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa', "
                      "'fortran_order': False, 'shape': ()}",
                      "...'");
    expect_dict_error("{'descr': '<f8\\n', 'fortran_order': False, 'shape': ()}", "escapes");
    expect_dict_error("{'descr': '<f8, 'fortran_order': False, 'shape': ()}", "descr '<f8, '");
    expect_dict_error("{'descr': '<f8", "unterminated");
    expect_dict_error("{'descr' '<f8'}", "expected ':'");
    expect_dict_error("{'descr': '<f8', 'fortran_order': False, 'shape': (5)}", "not a tuple");
    expect_dict_error("{'descr': '<f8', 'fortran_order': False, 'shape': [5]}", "'('");
    expect_dict_error("{'descr': '<f8', 'fortran_order': False, 'shape': (2, -3)}", "negative");
    expect_dict_error("{'descr': '<f8', 'fortran_order': False, 'shape': (2,, 3)}", "a dimension");
    expect_dict_error("{'descr': '<f8', 'fortran_order': False, 'shape': (,)}", "a dimension");
    expect_dict_error("{'descr': '<f8', 'fortran_order': False, 'shape': (2 3)}", "',' or ')'");
    expect_dict_error("{'descr': '<f8', 'fortran_order': False, 'shape': (2.5,)}", "',' or ')'");
    expect_dict_error("{'descr': '<f8', 'fortran_order': False, 'shape': (2, 3)", "',' or '}'");
    expect_dict_error("{'descr': '<f8', 'fortran_order': False, 'shape': (2, 3)}}",
                      "nothing after the dict");
    expect_dict_error("{'descr': '<f8', 'fortran_order': False, 'shape': "
                      "(99999999999999999999,)}",
                      "does not fit 64 bits");
    expect_dict_error("{'descr': '<f8', 'fortran_order': False, 'shape': "
                      "(4611686018427387904, 4)}",
                      "shape (4611686018427387904, 4) of float64 overflows");
    expect_dict_error("{'descr': '<f8', 'fortran_order': False, 'shape': (1152921504606846976, "
                      "8)}",
                      "overflows");
    /* the element count fits but the bytes do not */
    expect_dict_error("{'descr': '<f8', 'fortran_order': False, 'shape': (2305843009213693952,)}",
                      "shape (2305843009213693952,) of float64 overflows");

    /* 33 dimensions */
    char many[512] = "{'descr': '<f8', 'fortran_order': False, 'shape': (";
    for (int i = 0; i < 33; i++)
        strcat(many, "1, ");
    strcat(many, ")}");
    expect_dict_error(many, "more than 32 dimensions");

    /* a NUL inside the descr string must not cut it short */
    char nul[] = "{'descr': '<f8\0x', 'fortran_order': False, 'shape': ()}";
    size_t m = make_v1("", buf);
    memcpy(buf + m, nul, sizeof nul - 1);
    buf[8] = (char)(sizeof nul - 1);
    expect_parse_error(buf, m + sizeof nul - 1, "control characters");
}

static void test_parse_lenient(void **st)
{
    /* what other writers produce: either quotes, any key order, no trailing
     * comma, tabs and newlines, trailing commas in tuples, <b1 and =b1 */
    struct {
        const char *dict;
        dtype_t dt;
        shape_t s;
    } cases[] = {
        {"{\"descr\": \"<i8\", \"fortran_order\": False, \"shape\": (3,)}", DT_INT64, shp(1, 3LL)},
        {"{'shape': (2, 3,), 'fortran_order': False, 'descr': '<f4'}", DT_FLOAT32,
         shp(2, 2LL, 3LL)},
        {"\t{ 'descr':'<b1','fortran_order':False,'shape':( ) , }\n\n  ", DT_BOOL, shp(0)},
        {"{'descr': '=b1', 'fortran_order': False, 'shape': (0, 0, 7)}", DT_BOOL,
         shp(3, 0LL, 0LL, 7LL)},
        {"{'descr': '|b1', 'fortran_order': False, 'shape': (9223372036854775807,)}", DT_BOOL,
         shp(1, 9223372036854775807LL)},
        {"{'descr':'<i4','fortran_order':False,'shape':(0,9223372036854775807,9223372036854775807)"
         "}",
         DT_INT32, shp(3, 0LL, 9223372036854775807LL, 9223372036854775807LL)},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char buf[512], err[256];
        size_t n = make_v1(cases[i].dict, buf), off;
        dtype_t dt;
        shape_t s;
        if (npy_parse_header(buf, n, &dt, &s, &off, err, sizeof err) < 0)
            fail_msg("case %zu: %s", i, err);
        assert_int_equal(dt, cases[i].dt);
        assert_true(shape_eq(&s, &cases[i].s));
        assert_int_equal(off, n);
    }

    /* versions 2.0 and 3.0: a 4-byte header length */
    const char *d = "{'descr': '<f8', 'fortran_order': False, 'shape': (4,), }\n";
    for (int v = 2; v <= 3; v++) {
        char buf[512], err[256];
        size_t dl = strlen(d), off;
        memcpy(buf, "\x93NUMPY", 6);
        buf[6] = (char)v;
        buf[7] = 0;
        buf[8] = (char)dl;
        buf[9] = buf[10] = buf[11] = 0;
        memcpy(buf + 12, d, dl);
        dtype_t dt;
        shape_t s;
        if (npy_parse_header(buf, 12 + dl, &dt, &s, &off, err, sizeof err) < 0)
            fail_msg("version %d: %s", v, err);
        assert_int_equal(off, 12 + dl);
        assert_true(shape_eq(&s, &(shape_t){.ndim = 1, .d = {4}}));
    }
}

static void test_parse_in_memory(void **st)
{
    char buf[256], err[256];
    size_t hl;
    shape_t s = shp(1, 3LL);
    assert_int_equal(npy_header(DT_INT64, &s, buf, sizeof buf, &hl), 0);
    int64_t v[3] = {7, 8, 9};
    memcpy(buf + hl, v, sizeof v);
    dtype_t dt;
    shape_t rs;
    const void *data;
    size_t nb;
    assert_int_equal(npy_parse(buf, hl + 24, &dt, &rs, &data, &nb, err, sizeof err), 0);
    assert_ptr_equal(data, buf + hl);
    assert_int_equal(nb, 24);
    assert_int_equal(npy_parse(buf, hl + 23, &dt, &rs, &data, &nb, err, sizeof err), -1);
    assert_non_null(strstr(err, "announces 24 data bytes and 23 follow"));
    assert_int_equal(npy_parse(buf, hl + 25, &dt, &rs, &data, &nb, err, sizeof err), -1);
    /* header parse alone needs only the header */
    size_t off;
    assert_int_equal(npy_parse_header(buf, hl, &dt, &rs, &off, err, sizeof err), 0);
    /* a NULL err is allowed */
    assert_int_equal(npy_parse_header(buf, 3, &dt, &rs, &off, NULL, 0), -1);
}

static int setup(void **st)
{
    snprintf(tmpdir, sizeof tmpdir, "/tmp/test_npy.XXXXXX");
    return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown(void **st)
{
    return rmdir(tmpdir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_header_numpy_bytes),      cmocka_unit_test(test_header_errors),
        cmocka_unit_test(test_header_matches_fixtures), cmocka_unit_test(test_read_fixtures),
        cmocka_unit_test(test_read_refused_fixtures),   cmocka_unit_test(test_read_bad_sizes),
        cmocka_unit_test(test_roundtrip_header),        cmocka_unit_test(test_writer_pieces),
        cmocka_unit_test(test_writer_count_checks),     cmocka_unit_test(test_writer_disk_full),
        cmocka_unit_test(test_parse_malformed),         cmocka_unit_test(test_parse_lenient),
        cmocka_unit_test(test_parse_in_memory),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
