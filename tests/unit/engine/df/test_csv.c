/* test_csv.c: the CSV reader of engine/df/csv.h with inline texts: RFC 4180
 * quoting, line ends, blank lines, chunk boundaries at every byte offset
 * (the parse of any split equals the parse of the whole), pandas' type
 * inference and values, header mangling, usecols, errors in pandas' words,
 * and the path checks of csv_resolve_path. Expected results come from
 * pandas 1.5.3's read_csv on the same texts. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "df/csv.h"

static char err[512];

static int read_text(const char *text, int64_t chunk, csv_frame_t *f)
{
    err[0] = '\0';
    return csv_read_buffer(text, strlen(text), NULL, NULL, 0, chunk, f, err, sizeof err);
}

static void read_ok(const char *text, int64_t chunk, csv_frame_t *f)
{
    if (read_text(text, chunk, f) < 0) fail_msg("read of %s failed: %s", text, err);
}

static void read_fails(const char *text, int64_t chunk, const char *msg)
{
    csv_frame_t f;
    assert_int_equal(read_text(text, chunk, &f), -1);
    if (!strstr(err, msg)) fail_msg("message '%s' lacks '%s'", err, msg);
}

static bool is_valid(const csv_column_t *c, int64_t i)
{
    return !c->valid || c->valid[i];
}

static const char *str_at(const csv_column_t *c, int64_t i)
{
    return c->bytes + c->offsets[i];
}
static int64_t str_len(const csv_column_t *c, int64_t i)
{
    return c->offsets[i + 1] - c->offsets[i];
}

static int64_t int_at(const csv_column_t *c, int64_t i)
{
    return ((const int64_t *)c->data)[i];
}
static double dbl_at(const csv_column_t *c, int64_t i)
{
    return ((const double *)c->data)[i];
}
static int bool_at(const csv_column_t *c, int64_t i)
{
    return ((const uint8_t *)c->data)[i];
}

/* Everything equal: names, types, rows, values (floats bit for bit), NA. */
static void assert_frames_equal(const csv_frame_t *a, const csv_frame_t *b, const char *what)
{
    if (a->ncols != b->ncols || a->nrows != b->nrows)
        fail_msg("%s: %d cols x %lld rows vs %d x %lld", what, a->ncols, (long long)a->nrows,
                 b->ncols, (long long)b->nrows);
    for (int k = 0; k < a->ncols; k++) {
        const csv_column_t *x = &a->cols[k], *y = &b->cols[k];
        if (strcmp(a->names[k], b->names[k]) || x->type != y->type || x->n != y->n ||
            x->n != a->nrows)
            fail_msg("%s: column %d differs in name, type or length", what, k);
        if ((x->valid == NULL) != (y->valid == NULL))
            fail_msg("%s: column %d: NA mask on one side only", what, k);
        for (int64_t i = 0; i < x->n; i++) {
            bool ok = is_valid(x, i) == is_valid(y, i);
            switch (x->type) {
            case CSV_INT64:
                ok = ok && int_at(x, i) == int_at(y, i);
                break;
            case CSV_FLOAT64:
                ok = ok && memcmp(&((double *)x->data)[i], &((double *)y->data)[i], 8) == 0;
                break;
            case CSV_BOOL:
                ok = ok && bool_at(x, i) == bool_at(y, i);
                break;
            case CSV_STRING:
                ok = ok && str_len(x, i) == str_len(y, i) &&
                     memcmp(str_at(x, i), str_at(y, i), (size_t)str_len(x, i)) == 0;
                break;
            }
            if (!ok) fail_msg("%s: column %d row %lld differs", what, k, (long long)i);
        }
    }
}

static void assert_str(const csv_column_t *c, int64_t i, const char *want)
{
    assert_int_equal(c->type, CSV_STRING);
    assert_true(is_valid(c, i));
    assert_int_equal(str_len(c, i), strlen(want));
    assert_memory_equal(str_at(c, i), want, strlen(want));
}

/* ---- quoting and line ends ------------------------------------------------ */

static void test_quoted_fields(void **st)
{
    csv_frame_t f;
    read_ok("a,b,c\r\n"
            "\"x,y\",\"two\nlines\",\"say \"\"hi\"\"\"\r\n"
            "plain,\"\",\"cr\r\nlf\"\r\n"
            "\"ab\"cd,x\"y\"z,\"\"\"\"\n"
            " sp ,\"a\"b\"c\",last",
            1 << 20, &f);
    assert_int_equal(f.nrows, 4);
    assert_int_equal(f.ncols, 3);
    assert_string_equal(f.names[0], "a");
    assert_str(&f.cols[0], 0, "x,y");
    assert_str(&f.cols[1], 0, "two\nlines");
    assert_str(&f.cols[2], 0, "say \"hi\"");
    assert_str(&f.cols[0], 1, "plain");
    assert_false(is_valid(&f.cols[1], 1)); /* "" is NA, as pandas */
    assert_int_equal(str_len(&f.cols[1], 1), 0);
    assert_str(&f.cols[2], 1, "cr\r\nlf");
    assert_str(&f.cols[0], 2, "abcd");    /* text after the closing quote is kept */
    assert_str(&f.cols[1], 2, "x\"y\"z"); /* a quote inside an unquoted field is a byte */
    assert_str(&f.cols[2], 2, "\"");
    assert_str(&f.cols[0], 3, " sp "); /* no whitespace stripping */
    assert_str(&f.cols[1], 3, "ab\"c\"");
    assert_str(&f.cols[2], 3, "last"); /* no final line end */
    assert_int_equal(f.cols[0].bytes[f.cols[0].offsets[4]], '\0');
    csv_frame_close(&f);
}

static void test_line_ends_and_blank_lines(void **st)
{
    csv_frame_t f;
    /* \n, \r\n and a lone \r end records; blank lines and lines of spaces
     * or tabs are skipped, also before the header and at the end */
    read_ok("\n  \na,b\r\n\r\n1,2\r\n  \r\n\t\n3,4\r5,6\r\r\n7,8\n   ", 1 << 20, &f);
    assert_int_equal(f.nrows, 4);
    assert_int_equal(f.cols[0].type, CSV_INT64);
    int64_t want_a[] = {1, 3, 5, 7}, want_b[] = {2, 4, 6, 8};
    for (int i = 0; i < 4; i++) {
        assert_int_equal(int_at(&f.cols[0], i), want_a[i]);
        assert_int_equal(int_at(&f.cols[1], i), want_b[i]);
    }
    csv_frame_close(&f);
    /* a line of spaces that has a delimiter is a record */
    read_ok("a,b\n , \n", 1 << 20, &f);
    assert_int_equal(f.nrows, 1);
    assert_str(&f.cols[0], 0, " ");
    csv_frame_close(&f);
    /* a quoted field of spaces is a value, not a blank line */
    read_ok("a\n\"  \"\n", 1 << 20, &f);
    assert_int_equal(f.nrows, 1);
    assert_str(&f.cols[0], 0, "  ");
    csv_frame_close(&f);
}

/* ---- splitting ------------------------------------------------------------ */

static const char *const split_texts[] = {
    "a,b,c\n1,\"x,\ny\",2.5\n\"q\"\"\n\r\n\",\"\",\n3,z,\r\n\r\n4,\"\"\"\",-inf\r\n5,\"\n\n\",1e3",
    "h\r\n\"a\rb\"\r\n\r\n\"\"\r\nx\"y\r\n\"\"\"\"\r\n  \r\n\"\n\"",
    "a,b\n\"\",\"\"\n,\n\"1\",\"2\"\n\"3\"x,\"4\"\"5\"\n6,7",
    "\"n,1\",\"n\n2\"\nTrue,1\nfalse,\nTRUE,3\n",
    "a\n\"\n\"\n\"\r\"\n\"\r\n\"\n\",\"\n",
};

/* csv_split's ranges tile the body in order, and every start, with its
 * line number, is one of those of target 1 (every record start and blank
 * line; test_split_lines checks those against counted values). */
static void check_ranges(const char *text, int64_t target)
{
    size_t len = strlen(text);
    csv_header_t h;
    csv_range_t *r, *all;
    int64_t n, nall;
    assert_int_equal(csv_header_parse(text, len, NULL, NULL, 0, &h, err, sizeof err), 0);
    assert_int_equal(csv_split(text, len, &h, target, &r, &n, err, sizeof err), 0);
    assert_int_equal(csv_split(text, len, &h, 1, &all, &nall, err, sizeof err), 0);
    assert_true(n >= 1 && n <= nall);
    assert_int_equal(r[0].start, h.data_start);
    assert_int_equal(r[0].line, h.data_line);
    assert_int_equal(r[n - 1].end, (int64_t)len);
    int64_t j = 0;
    for (int64_t i = 0; i < n; i++) {
        assert_true(r[i].start <= r[i].end);
        if (i > 0) assert_int_equal(r[i].start, r[i - 1].end);
        while (j < nall && all[j].start < r[i].start)
            j++;
        if (j == nall || all[j].start != r[i].start || all[j].line != r[i].line)
            fail_msg("chunk %lld at %lld (line %lld) is no record start", (long long)i,
                     (long long)r[i].start, (long long)r[i].line);
    }
    free(r);
    free(all);
    csv_header_close(&h);
}

static void test_split_every_offset(void **st)
{
    for (size_t t = 0; t < sizeof split_texts / sizeof split_texts[0]; t++) {
        const char *text = split_texts[t];
        size_t len = strlen(text);
        csv_frame_t whole;
        read_ok(text, 1 << 20, &whole);
        /* target 1 makes every byte offset a nominal chunk start; every
         * other target moves the starts around */
        for (int64_t target = 1; target <= (int64_t)len + 1; target++) {
            csv_frame_t f;
            char what[64];
            snprintf(what, sizeof what, "text %zu chunk %lld", t, (long long)target);
            read_ok(text, target, &f);
            assert_frames_equal(&whole, &f, what);
            csv_frame_close(&f);
            check_ranges(text, target);
        }
        csv_frame_close(&whole);
    }
}

/* The phases of csv_split run by hand, as a tiler spreads them: each block
 * scanned alone, the transfer functions composed, each boundary found from
 * its block's state; the same chunks as csv_split. */
static void test_split_by_hand(void **st)
{
    for (size_t t = 0; t < sizeof split_texts / sizeof split_texts[0]; t++) {
        const char *text = split_texts[t];
        size_t len = strlen(text);
        csv_header_t h;
        assert_int_equal(csv_header_parse(text, len, NULL, NULL, 0, &h, err, sizeof err), 0);
        for (int64_t target = 1; target <= (int64_t)len; target++) {
            csv_range_t *r;
            int64_t n;
            assert_int_equal(csv_split(text, len, &h, target, &r, &n, err, sizeof err), 0);
            int state = CSV_S_REC;
            int64_t line = h.data_line, k = 0, prev = -1;
            for (int64_t b = h.data_start; b < (int64_t)len; b += target) {
                int64_t e = b + target < (int64_t)len ? b + target : (int64_t)len;
                csv_block_t blk;
                csv_scan_block(text + b, (size_t)(e - b), ',', 0, '"', false, &blk);
                int64_t ln = line;
                int64_t q = csv_find_boundary(text, len, ',', 0, '"', false, b, state, &ln);
                if (q < (int64_t)len && q != prev) {
                    assert_true(k < n);
                    assert_int_equal(r[k].start, q);
                    assert_int_equal(r[k].line, ln);
                    k++;
                    prev = q;
                }
                line += blk.lines[state];
                state = blk.exit[state];
            }
            assert_int_equal(k, h.data_start < (int64_t)len ? n : 0);
            free(r);
        }
        csv_header_close(&h);
    }
}

static void test_split_lines(void **st)
{
    /* line numbers of chunks: records plus blank lines, a quoted newline
     * not counted, "\r\n" counted once */
    const char *text = "a\n1\n\"x\ny\"\n\n2\r\n3\r\r\n4\n";
    size_t len = strlen(text);
    csv_header_t h;
    csv_range_t *r;
    int64_t n;
    assert_int_equal(csv_header_parse(text, len, NULL, NULL, 0, &h, err, sizeof err), 0);
    assert_int_equal(h.data_start, 2);
    assert_int_equal(h.data_line, 1);
    assert_int_equal(csv_split(text, len, &h, 1, &r, &n, err, sizeof err), 0);
    /* starts: "1", "\"x", the blank line, "2", "3", the blank "\r\n" line, "4" */
    int64_t want_start[] = {2, 4, 10, 11, 14, 16, 18};
    int64_t want_line[] = {1, 2, 3, 4, 5, 6, 7};
    assert_int_equal(n, 7);
    for (int i = 0; i < 7; i++) {
        assert_int_equal(r[i].start, want_start[i]);
        assert_int_equal(r[i].line, want_line[i]);
    }
    free(r);
    /* one chunk when the target passes the body; one empty range for none */
    assert_int_equal(csv_split(text, len, &h, 1000, &r, &n, err, sizeof err), 0);
    assert_int_equal(n, 1);
    assert_int_equal(r[0].end, (int64_t)len);
    free(r);
    assert_int_equal(csv_split(text, len, &h, 0, &r, &n, err, sizeof err), -1);
    assert_non_null(strstr(err, "chunk_bytes"));
    csv_header_close(&h);

    assert_int_equal(csv_header_parse("a,b", 3, NULL, NULL, 0, &h, err, sizeof err), 0);
    assert_int_equal(csv_split("a,b", 3, &h, 4, &r, &n, err, sizeof err), 0);
    assert_int_equal(n, 1);
    assert_int_equal(r[0].start, 3);
    assert_int_equal(r[0].end, 3);
    free(r);
    csv_header_close(&h);
}

static void test_scan_block(void **st)
{
    /* the transfer function of a block from each start state */
    csv_block_t b;
    const char *blk = "x\"\n,\"";
    csv_scan_block(blk, strlen(blk), ',', 0, '"', false, &b);
    /* from a record start: x is unquoted, so the quote is a byte; \n ends
     * the record; ',' starts a field; '"' opens a quote */
    assert_int_equal(b.exit[CSV_S_REC], CSV_S_QUO);
    assert_int_equal(b.lines[CSV_S_REC], 1);
    /* from inside a quote: x, then '"' may close it, \n ends the record */
    assert_int_equal(b.exit[CSV_S_QUO], CSV_S_QUO);
    assert_int_equal(b.lines[CSV_S_QUO], 1);
    csv_scan_block("\n", 1, ',', 0, '"', false, &b);
    assert_int_equal(b.exit[CSV_S_CR], CSV_S_REC);
    assert_int_equal(b.lines[CSV_S_CR], 0); /* the \n of \r\n */
    assert_int_equal(b.lines[CSV_S_UNQ], 1);
    assert_int_equal(b.exit[CSV_S_QUO], CSV_S_QUO);
    assert_int_equal(b.lines[CSV_S_QUO], 0);
}

/* The DFA of csv.h written out again, one state at a time. */
/* one step of the split DFA, written out by case: '#' the comment, q the
 * quote (0: none), skipsp skipinitialspace (a space at a field's start
 * keeps it there) */
static int naive_step(int st, char c, char q, bool skipsp, int64_t *lines)
{
    bool end = c == '\n' || c == '\r';
    if (skipsp && c == ' ' && (st == CSV_S_REC || st == CSV_S_FLD || st == CSV_S_CR))
        return CSV_S_FLD;
    switch (st) {
    case CSV_S_QUO:
        return c == q ? CSV_S_QQ : CSV_S_QUO;
    case CSV_S_CMT: /* to the line end, quotes and separators included */
        if (!end) return CSV_S_CMT;
        break;
    case CSV_S_UNQ:
        if (c == q) return CSV_S_UNQ;
        if (c == '#') return CSV_S_CMT;
        break;
    case CSV_S_CR:
        if (c == '\n') return CSV_S_REC; /* the rest of "\r\n": no new line */
        if (c == q) return CSV_S_QUO;
        if (c == '#') return CSV_S_CMT;
        break;
    case CSV_S_QQ: /* a comment character right after a closing quote is a byte */
        if (c == q) return CSV_S_QUO;
        if (c == '#') return CSV_S_UNQ;
        break;
    default: /* REC, FLD */
        if (c == q) return CSV_S_QUO;
        if (c == '#') return CSV_S_CMT;
        break;
    }
    if (end) {
        ++*lines;
        return c == '\r' ? CSV_S_CR : CSV_S_REC;
    }
    return c == ',' ? CSV_S_FLD : CSV_S_UNQ;
}

static void test_scan_block_random(void **st)
{
    static const char alphabet[] = "a\",\n\r #'";
    unsigned seed = 12345;
    char buf[300];
    for (int iter = 0; iter < 3000; iter++) {
        seed = seed * 1103515245u + 12345u;
        size_t n = (seed >> 8) % sizeof buf;
        for (size_t i = 0; i < n; i++) {
            seed = seed * 1103515245u + 12345u;
            /* skewed toward ordinary bytes some of the time */
            unsigned r = (seed >> 16) % (iter % 2 ? 8 : 16);
            buf[i] = r < 8 ? alphabet[r] : 'a';
        }
        csv_block_t b;
        /* the quote '"', another one ('\'', pandas' quotechar), or none
         * (quoting=csv.QUOTE_NONE) */
        char q = "\"'"[iter % 3];
        bool skipsp = iter / 3 % 2;
        csv_scan_block(buf, n, ',', '#', q, skipsp, &b);
        for (int s = 0; s < CSV_NSTATES; s++) {
            int x = s;
            int64_t lines = 0;
            for (size_t i = 0; i < n; i++)
                x = naive_step(x, buf[i], q, skipsp, &lines);
            if (b.exit[s] != x || b.lines[s] != lines)
                fail_msg("iter %d from state %d: exit %d lines %lld, want %d %lld", iter, s,
                         b.exit[s], (long long)b.lines[s], x, (long long)lines);
        }
    }
}

/* ---- types and values ------------------------------------------------------ */

static void test_inference(void **st)
{
    csv_frame_t f;
    read_ok("i,f,in,b,bn,s,na,mix,ws,sp\n"
            "1,1.5,1,True,true,x,,True, 7 ,\" a\"\n"
            "-20,2,,FALSE,,NA,NA,1,\t8,b \n"
            "+3,inf,3,false,False,,nan,x,9  ,c\n"
            "004,-Infinity,4,TRUE,NaN,y,#N/A,2.5,10,d\n",
            1 << 20, &f);
    const csv_type_t want[] = {CSV_INT64,  CSV_FLOAT64, CSV_FLOAT64, CSV_BOOL,  CSV_BOOL,
                               CSV_STRING, CSV_FLOAT64, CSV_STRING,  CSV_INT64, CSV_STRING};
    for (int k = 0; k < 10; k++)
        if (f.cols[k].type != want[k]) fail_msg("column %s: type %d", f.names[k], f.cols[k].type);
    assert_int_equal(int_at(&f.cols[0], 1), -20);
    assert_int_equal(int_at(&f.cols[0], 2), 3);
    assert_int_equal(int_at(&f.cols[0], 3), 4);
    assert_true(dbl_at(&f.cols[1], 0) == 1.5);
    assert_true(isinf(dbl_at(&f.cols[1], 2)) && dbl_at(&f.cols[1], 2) > 0);
    assert_true(isinf(dbl_at(&f.cols[1], 3)) && dbl_at(&f.cols[1], 3) < 0);
    assert_true(isnan(dbl_at(&f.cols[2], 1)));
    assert_true(dbl_at(&f.cols[2], 2) == 3.0);
    assert_null(f.cols[3].valid);
    assert_int_equal(bool_at(&f.cols[3], 0), 1);
    assert_int_equal(bool_at(&f.cols[3], 1), 0);
    /* bool with NA: pandas' object column of True/False/NaN */
    assert_non_null(f.cols[4].valid);
    assert_string_equal(csv_type_name(f.cols[4].type, true), "object");
    assert_false(is_valid(&f.cols[4], 1));
    assert_false(is_valid(&f.cols[4], 3));
    assert_int_equal(bool_at(&f.cols[4], 2), 0);
    assert_false(is_valid(&f.cols[5], 1));
    assert_str(&f.cols[5], 3, "y");
    for (int i = 0; i < 4; i++)
        assert_true(isnan(dbl_at(&f.cols[6], i)));
    assert_str(&f.cols[7], 0, "True"); /* a bool beside numbers stays text */
    assert_str(&f.cols[7], 1, "1");
    assert_int_equal(int_at(&f.cols[8], 0), 7); /* spaces and tabs around numbers */
    assert_int_equal(int_at(&f.cols[8], 1), 8);
    assert_str(&f.cols[9], 0, " a");
    assert_str(&f.cols[9], 1, "b ");
    csv_frame_close(&f);
}

static void test_inference_numbers(void **st)
{
    struct {
        const char *text;
        csv_type_t type;
    } cases[] = {
        {"a\n1e5\n", CSV_FLOAT64},
        {"a\n.5\n1.\n", CSV_FLOAT64},
        {"a\n1e\n", CSV_STRING},
        {"a\n0x10\n", CSV_STRING},
        {"a\nnan(1)\n", CSV_STRING},
        {"a\nNAN\n", CSV_STRING}, /* not an NA string, not a float */
        {"a\n1_0\n", CSV_STRING},
        {"a\n-\n", CSV_STRING},
        {"a\n1 2\n", CSV_STRING},
        {"a\n \t\n", CSV_STRING}, /* a line of blanks is skipped: no rows, object */
        {"a\n1e400\n", CSV_STRING},
        {"a\n1e-400\n", CSV_FLOAT64},
        {"a\n1.7976931348623159e308\n", CSV_STRING},
        {"a\n True\n", CSV_STRING},
        {"a\n9223372036854775807\n-9223372036854775808\n", CSV_INT64},
        /* past int64: uint64 in pandas, float64 here */
        {"a\n9223372036854775808\n\n1\n", CSV_FLOAT64},
        {"a\n-1\n9223372036854775808\n", CSV_STRING},
        {"a\n9223372036854775808\nNA\n1\n", CSV_STRING},
        {"a\n-99999999999999999999\nNA\n", CSV_STRING},
        {"a\n-0\n9223372036854775808\n", CSV_STRING},
        {"a\n1\n-9223372036854775809\n", CSV_STRING},
        {"a\n99999999999999999999999\n", CSV_STRING},
        /* the first value that is not an int64 decides: overflow → object */
        {"a\n99999999999999999999.0\n1.5\n", CSV_STRING},
        {"a\n1.5\n99999999999999999999.0\n", CSV_FLOAT64},
        {"a\n1.5\n9223372036854775808\n", CSV_FLOAT64},
        {"a\nNA\n\"\"\n", CSV_FLOAT64},
        {"a\n", CSV_STRING},
        {"a\n1\nNA\n", CSV_FLOAT64},
        {"a\nTrue\n1\n", CSV_STRING},
        {"a\ninf\n+INF\n-infinity\nInfinity\n", CSV_FLOAT64},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        csv_frame_t f;
        read_ok(cases[i].text, 1 << 20, &f);
        if (cases[i].type != f.cols[0].type)
            fail_msg("%s: type %d, want %d", cases[i].text, f.cols[0].type, cases[i].type);
        csv_frame_close(&f);
        /* the same at chunk size 1: the summary merges in file order */
        read_ok(cases[i].text, 1, &f);
        assert_int_equal(f.cols[0].type, cases[i].type);
        csv_frame_close(&f);
    }
    csv_frame_t f;
    read_ok("a\n1e-400\n-0.0\n2.5e-3\n1E+05\n5e-324\n", 1 << 20, &f);
    assert_true(dbl_at(&f.cols[0], 0) == 0.0);
    assert_true(signbit(dbl_at(&f.cols[0], 1)));
    assert_true(dbl_at(&f.cols[0], 2) == 2.5e-3);
    assert_true(dbl_at(&f.cols[0], 3) == 1e5);
    assert_true(dbl_at(&f.cols[0], 4) == 5e-324);
    csv_frame_close(&f);
    read_ok("a\n9223372036854775807\n-9223372036854775808\n", 1 << 20, &f);
    assert_true(int_at(&f.cols[0], 0) == INT64_MAX);
    assert_true(int_at(&f.cols[0], 1) == INT64_MIN);
    csv_frame_close(&f);
}

static void test_kinds_merge(void **st)
{
    /* the earlier chunk's first failure wins: not commutative */
    uint32_t ovf = CSV_K_IFAIL_OVERFLOW | CSV_K_UFAIL_OVERFLOW | CSV_K_NOTBOOL;
    uint32_t flt = CSV_K_IFAIL_OTHER | CSV_K_UFAIL_OTHER | CSV_K_NOTBOOL;
    assert_int_equal(csv_kinds_type(csv_kinds_merge(ovf, flt), 2), CSV_STRING);
    assert_int_equal(csv_kinds_type(csv_kinds_merge(flt, ovf), 2), CSV_FLOAT64);
    assert_int_equal(csv_kinds_merge(0, flt), flt);
    assert_int_equal(csv_kinds_merge(flt, 0), flt);
    uint32_t a = CSV_K_NA, b = CSV_K_SINT | CSV_K_NOTBOOL, c = ovf;
    assert_int_equal(csv_kinds_merge(csv_kinds_merge(a, b), c),
                     csv_kinds_merge(a, csv_kinds_merge(b, c)));
    assert_int_equal(csv_kinds_type(0, 0), CSV_STRING);
    assert_int_equal(csv_kinds_type(CSV_K_NA, 3), CSV_FLOAT64);
    assert_int_equal(csv_kinds_type(CSV_K_NOTBOOL, 3), CSV_INT64);
    assert_string_equal(csv_type_name(CSV_INT64, false), "int64");
    assert_string_equal(csv_type_name(CSV_FLOAT64, false), "float64");
    assert_string_equal(csv_type_name(CSV_BOOL, false), "bool");
    assert_string_equal(csv_type_name(CSV_STRING, false), "object");
}

static void test_short_rows(void **st)
{
    csv_frame_t f;
    read_ok("a,b,c\n1,2\n3\n4,5,6\n", 1 << 20, &f);
    assert_int_equal(f.nrows, 3);
    assert_int_equal(f.cols[0].type, CSV_INT64);
    assert_int_equal(f.cols[1].type, CSV_FLOAT64);
    assert_int_equal(f.cols[2].type, CSV_FLOAT64);
    assert_true(isnan(dbl_at(&f.cols[1], 1)));
    assert_true(isnan(dbl_at(&f.cols[2], 0)));
    assert_true(dbl_at(&f.cols[2], 2) == 6.0);
    csv_frame_close(&f);
}

/* ---- header and usecols ----------------------------------------------------- */

static void test_header_names(void **st)
{
    csv_header_t h;
    const char *t1 = "a,a,a.1,,b,a\n";
    assert_int_equal(csv_header_parse(t1, strlen(t1), NULL, NULL, 0, &h, err, sizeof err), 0);
    const char *want1[] = {"a", "a.2", "a.1", "Unnamed: 3", "b", "a.3"};
    assert_int_equal(h.ncols, 6);
    for (int i = 0; i < 6; i++)
        assert_string_equal(h.names[i], want1[i]);
    assert_int_equal(h.data_start, (int64_t)strlen(t1));
    csv_header_close(&h);

    const char *t2 = "Unnamed: 1,\n1,2\n";
    assert_int_equal(csv_header_parse(t2, strlen(t2), NULL, NULL, 0, &h, err, sizeof err), 0);
    assert_string_equal(h.names[0], "Unnamed: 1");
    assert_string_equal(h.names[1], "Unnamed: 1.1");
    csv_header_close(&h);

    const char *t3 = "\n\n\"x\ny\",\" b \",\"c\"\"\"\r\n1,2,3";
    assert_int_equal(csv_header_parse(t3, strlen(t3), NULL, NULL, 0, &h, err, sizeof err), 0);
    assert_string_equal(h.names[0], "x\ny");
    assert_string_equal(h.names[1], " b ");
    assert_string_equal(h.names[2], "c\"");
    assert_int_equal(h.data_line, 3);
    csv_header_close(&h);

    /* a header of nothing but a quoted empty name */
    assert_int_equal(csv_header_parse("\"\"", 2, NULL, NULL, 0, &h, err, sizeof err), 0);
    assert_int_equal(h.ncols, 1);
    assert_string_equal(h.names[0], "Unnamed: 0");
    csv_header_close(&h);
}

/* Another separator: a quote after ';' opens a quoted field (its line end
 * is no record boundary at any chunk size), commas are plain bytes, and
 * with a tab separating, a line of one tab is a record, not a blank line. */
static void test_sep(void **state)
{
    (void)state;
    const char *text = "a;b\n1;\"x\ny;z\"\n2,5;w,v\n";
    size_t len = strlen(text);
    const csv_opts_t semi = {.sep = ';', .decimal = '.'}, tab = {.sep = '\t', .decimal = '.'},
                     cr = {.sep = '\r', .decimal = '.'};
    for (int64_t chunk = 1; chunk <= (int64_t)len; chunk++) {
        csv_frame_t f;
        if (csv_read_buffer(text, len, &semi, NULL, 0, chunk, &f, err, sizeof err) < 0)
            fail_msg("chunk %lld: %s", (long long)chunk, err);
        assert_int_equal(f.ncols, 2);
        assert_int_equal(f.nrows, 2);
        assert_int_equal(f.cols[0].type, CSV_STRING);
        assert_int_equal(str_len(&f.cols[0], 1), 3);
        assert_memory_equal(str_at(&f.cols[0], 1), "2,5", 3);
        assert_int_equal(str_len(&f.cols[1], 0), 5);
        assert_memory_equal(str_at(&f.cols[1], 0), "x\ny;z", 5);
        assert_int_equal(str_len(&f.cols[1], 1), 3);
        assert_memory_equal(str_at(&f.cols[1], 1), "w,v", 3);
        csv_frame_close(&f);
    }
    const char *tabs = "a\tb\n1\t2\n\t\n  \n3\t4\n";
    csv_frame_t f;
    assert_int_equal(csv_read_buffer(tabs, strlen(tabs), &tab, NULL, 0, 5, &f, err, sizeof err), 0);
    assert_int_equal(f.nrows, 3); /* the tab line is a row of NaNs; the spaces line is blank */
    assert_int_equal(f.cols[0].type, CSV_FLOAT64);
    assert_true(isnan(((const double *)f.cols[0].data)[1]));
    csv_frame_close(&f);
    char sep;
    assert_int_equal(csv_sep_parse("\\s+", &sep, err, sizeof err), 0);
    assert_int_equal(sep, CSV_SEP_WS);
    assert_int_equal(csv_sep_parse("\x01", &sep, err, sizeof err), -1); /* no way to the sentinel */
    assert_int_equal(csv_sep_parse("\"", &sep, err, sizeof err), -1);
    assert_int_equal(csv_sep_parse("\n", &sep, err, sizeof err), -1);
    assert_int_equal(csv_sep_parse("|", &sep, err, sizeof err), 0);
    assert_int_equal(sep, '|');
    csv_header_t h;
    assert_int_equal(csv_header_parse("a,b", 3, &cr, NULL, 0, &h, err, sizeof err), -1);
}

/* sep "\s+": runs of spaces and tabs separate, a line's leading and
 * trailing ones are no field, a quote opens after them (at every chunk
 * size), whitespace lines are blank; a first data line of one field more
 * than the header gives pandas' implicit index (column 0, named "") */
static void test_sep_whitespace(void **state)
{
    (void)state;
    const char *text = "  a \t b\tc \n1  \"x\n y\"\t2.5\t\n \t \n\t3 \"\" -1\r\n4 z 0";
    size_t len = strlen(text);
    const csv_opts_t ws = {.sep = CSV_SEP_WS, .decimal = '.'};
    for (int64_t chunk = 1; chunk <= (int64_t)len; chunk++) {
        csv_frame_t f;
        if (csv_read_buffer(text, len, &ws, NULL, 0, chunk, &f, err, sizeof err) < 0)
            fail_msg("chunk %lld: %s", (long long)chunk, err);
        assert_int_equal(f.ncols, 3);
        assert_int_equal(f.nrows, 3);
        assert_string_equal(f.names[0], "a");
        assert_string_equal(f.names[2], "c");
        assert_int_equal(int_at(&f.cols[0], 2), 4);
        assert_int_equal(str_len(&f.cols[1], 0), 4);
        assert_memory_equal(str_at(&f.cols[1], 0), "x\n y", 4);
        assert_non_null(f.cols[1].valid);
        assert_false(f.cols[1].valid[1]); /* "" is NA */
        assert_true(dbl_at(&f.cols[2], 1) == -1.0);
        csv_frame_close(&f);
    }
    const char *rn = "x y\nr1 1 2\nr2 3\n";
    csv_header_t h;
    assert_int_equal(csv_header_parse(rn, strlen(rn), &ws, NULL, 0, &h, err, sizeof err), 0);
    assert_true(h.implicit_index);
    assert_int_equal(h.ncols, 3);
    assert_string_equal(h.names[0], "");
    assert_string_equal(h.names[2], "y");
    csv_header_close(&h);
    const char *uc[] = {"y"};
    csv_frame_t f;
    assert_int_equal(csv_read_buffer(rn, strlen(rn), &ws, uc, 1, 4, &f, err, sizeof err), 0);
    assert_int_equal(f.ncols, 2); /* the index, and y */
    assert_memory_equal(str_at(&f.cols[0], 1), "r2", 2);
    assert_true(isnan(dbl_at(&f.cols[1], 1))); /* a short line: y missing */
    csv_frame_close(&f);
}

/* quotechar '\'' at every chunk size (a quoted line end and separator,
 * '' for one, '"' a plain byte), quoting none (quotes are bytes: a quoted
 * separator splits), header row 2 over a title and a blank line, and
 * true_values/false_values beside the defaults (numbers stay numbers) */
static void test_quote_header_bools(void **state)
{
    (void)state;
    const char *text = "title\n\nsub,x\na,b,c\n'x\n,y',yes,1\n'p''q',no,0\n\"z,True,1\n";
    size_t len = strlen(text);
    static const char *const tv[] = {"yes", "1"}, *fv[] = {"no"};
    const csv_opts_t o = {.sep = ',',
                          .decimal = '.',
                          .header = 2,
                          .quotechar = '\'',
                          .true_values = tv,
                          .ntrue = 2,
                          .false_values = fv,
                          .nfalse = 1};
    for (int64_t chunk = 1; chunk <= (int64_t)len; chunk++) {
        csv_frame_t f;
        if (csv_read_buffer(text, len, &o, NULL, 0, chunk, &f, err, sizeof err) < 0)
            fail_msg("chunk %lld: %s", (long long)chunk, err);
        assert_int_equal(f.ncols, 3);
        assert_int_equal(f.nrows, 3);
        assert_string_equal(f.names[1], "b");
        assert_int_equal(f.cols[0].type, CSV_STRING);
        assert_int_equal(str_len(&f.cols[0], 0), 4);
        assert_memory_equal(str_at(&f.cols[0], 0), "x\n,y", 4);
        assert_int_equal(str_len(&f.cols[0], 1), 3);
        assert_memory_equal(str_at(&f.cols[0], 1), "p'q", 3);
        assert_int_equal(str_len(&f.cols[0], 2), 2);
        assert_memory_equal(str_at(&f.cols[0], 2), "\"z", 2);
        assert_int_equal(f.cols[1].type, CSV_BOOL);
        assert_memory_equal(f.cols[1].data, "\1\0\1", 3);
        assert_int_equal(f.cols[2].type, CSV_INT64);
        csv_frame_close(&f);
    }
    const csv_opts_t none = {.sep = ',', .decimal = '.', .quote_none = true};
    const char *raw = "a,b\n\"1,2\"\n";
    csv_frame_t f;
    assert_int_equal(csv_read_buffer(raw, strlen(raw), &none, NULL, 0, 3, &f, err, sizeof err), 0);
    assert_int_equal(str_len(&f.cols[0], 0), 2);
    assert_memory_equal(str_at(&f.cols[0], 0), "\"1", 2);
    assert_int_equal(str_len(&f.cols[1], 0), 2);
    assert_memory_equal(str_at(&f.cols[1], 0), "2\"", 2);
    csv_frame_close(&f);
    /* skiprows as lines at every chunk size: the header's, a units line,
     * one past a quoted line end, one past the end, repeats */
    static const int64_t sk[] = {9, 0, 2, 5, 2, -3};
    const csv_opts_t sko = {.sep = ',', .decimal = '.', .skip_lines = sk, .nskip = 6};
    const char *sktext = "t\na,b\nunits,kg\n1,\"x\ny\"\n3,z\n4,w\n";
    for (int64_t chunk = 1; chunk <= (int64_t)strlen(sktext); chunk++) {
        if (csv_read_buffer(sktext, strlen(sktext), &sko, NULL, 0, chunk, &f, err, sizeof err) < 0)
            fail_msg("chunk %lld: %s", (long long)chunk, err);
        assert_string_equal(f.names[0], "a");
        assert_int_equal(f.nrows, 2); /* "1,x\ny" (line 3) and "3,z" (line 4) */
        assert_int_equal(f.cols[0].type, CSV_INT64);
        assert_int_equal(int_at(&f.cols[0], 1), 3);
        csv_frame_close(&f);
    }
    const csv_opts_t far = {.sep = ',', .decimal = '.', .header = 5};
    assert_int_equal(csv_read_buffer(raw, strlen(raw), &far, NULL, 0, 3, &f, err, sizeof err), -1);
    assert_string_equal(err, "Passed header=5 but only 2 lines in file");
    const csv_opts_t bad = {.sep = ',', .decimal = '.', .quotechar = ','};
    assert_int_equal(csv_read_buffer(raw, strlen(raw), &bad, NULL, 0, 3, &f, err, sizeof err), -1);
    assert_string_equal(err, "quotechar ',' is the separator too");
}

/* decimal ',': "1,5" is 1.5 (correctly rounded, the text left as it
 * was), a column holding "2.5" is text, and ints stay int64; a decimal
 * equal to the separator reads quoted numbers (as pandas); one that could
 * be part of a number fails. */
static void test_decimal(void **state)
{
    (void)state;
    const csv_opts_t eu = {.sep = ';', .decimal = ','};
    const char *text = "i;f;s;e\n1;1,5;2,5;-1,25e2\n-2;,1;2.5;0,1\n3;0,30000000000000004;x;inf\n";
    size_t len = strlen(text);
    for (int64_t chunk = 1; chunk <= (int64_t)len; chunk += 3) {
        csv_frame_t f;
        if (csv_read_buffer(text, len, &eu, NULL, 0, chunk, &f, err, sizeof err) < 0)
            fail_msg("chunk %lld: %s", (long long)chunk, err);
        assert_int_equal(f.cols[0].type, CSV_INT64);
        assert_int_equal(f.cols[1].type, CSV_FLOAT64);
        assert_int_equal(f.cols[2].type, CSV_STRING);
        assert_int_equal(f.cols[3].type, CSV_FLOAT64);
        const double *x = f.cols[1].data, *e = f.cols[3].data;
        assert_true(x[0] == 1.5 && x[1] == 0.1 && x[2] == 0.30000000000000004);
        assert_true(e[0] == -125.0 && e[1] == 0.1 && isinf(e[2]));
        assert_int_equal(str_len(&f.cols[2], 0), 3);
        assert_memory_equal(str_at(&f.cols[2], 0), "2,5", 3);
        csv_frame_close(&f);
    }
    const csv_opts_t same = {.sep = ',', .decimal = ','}, digit = {.sep = ',', .decimal = '5'};
    csv_frame_t f;
    const char *q = "a,b\n\"1,5\",2\n";
    assert_int_equal(csv_read_buffer(q, strlen(q), &same, NULL, 0, 4, &f, err, sizeof err), 0);
    assert_int_equal(f.cols[0].type, CSV_FLOAT64);
    assert_true(((const double *)f.cols[0].data)[0] == 1.5);
    csv_frame_close(&f);
    assert_int_equal(csv_read_buffer("a\n1\n", 4, &digit, NULL, 0, 4, &f, err, sizeof err), -1);
    char dec;
    assert_int_equal(csv_decimal_parse(",,", &dec, err, sizeof err), -1);
    assert_string_equal(err, "Only length-1 decimal markers supported");
}

/* header None: every record is data, columns 0..n-1 (integer labels);
 * names in place of the header record or of none; usecols positions. */
static void test_header_none_names(void **state)
{
    (void)state;
    const char *text = "1,x\n2,y\n";
    csv_header_t h;
    const csv_opts_t none = {.sep = ',', .decimal = '.', .header = -1};
    assert_int_equal(csv_header_parse(text, strlen(text), &none, NULL, 0, &h, err, sizeof err), 0);
    assert_int_equal(h.ncols, 2);
    assert_true(h.int_names);
    assert_string_equal(h.names[1], "1");
    assert_int_equal(h.data_start, 0);
    csv_header_close(&h);
    const char *nm[] = {"a", "b", "c"};
    const csv_opts_t named = {.sep = ',', .decimal = '.', .header = -1, .names = nm, .nnames = 3};
    csv_frame_t f;
    assert_int_equal(csv_read_buffer(text, strlen(text), &named, NULL, 0, 3, &f, err, sizeof err),
                     0);
    assert_int_equal(f.nrows, 2);
    assert_int_equal(f.ncols, 3);
    assert_string_equal(f.names[2], "c");
    assert_int_equal(f.cols[2].type, CSV_FLOAT64); /* the missing column */
    csv_frame_close(&f);
    const csv_opts_t over = {.sep = ',', .decimal = '.', .header = 0, .names = nm, .nnames = 2};
    assert_int_equal(csv_read_buffer(text, strlen(text), &over, NULL, 0, 3, &f, err, sizeof err),
                     0);
    assert_int_equal(f.nrows, 1); /* the first line was the header */
    assert_string_equal(f.names[0], "a");
    csv_frame_close(&f);
    const char *dup[] = {"a", "a"};
    const csv_opts_t dups = {.sep = ',', .decimal = '.', .names = dup, .nnames = 2};
    assert_int_equal(csv_header_parse(text, strlen(text), &dups, NULL, 0, &h, err, sizeof err), -1);
    assert_string_equal(err, "Duplicate names are not allowed.");
    const char *pos[] = {"1", "7"};
    const csv_opts_t bypos = {.sep = ',', .decimal = '.', .usecols_pos = true};
    assert_int_equal(csv_header_parse(text, strlen(text), &bypos, pos, 1, &h, err, sizeof err), 0);
    assert_int_equal(h.nsel, 1);
    assert_int_equal(h.sel[0], 1);
    csv_header_close(&h);
    assert_int_equal(csv_header_parse(text, strlen(text), &bypos, pos, 2, &h, err, sizeof err), -1);
    assert_string_equal(err,
                        "Usecols do not match columns, columns expected but not found: [1, 7]");
}

/* na_values: for every column with pandas' spellings of a whole number,
 * per column without them, by value in a float column read by the float
 * path; keep_default_na off: "" and a missing field are empty strings. */
static void test_na_values(void **state)
{
    (void)state;
    const char *text = "a,b,c\n-999,-999.00,x\n2,1.5,NA\n-999.0,,\n";
    const char *nv[] = {"-999"}, *cols[] = {"b"};
    const csv_opts_t every = {.sep = ',', .decimal = '.', .na_values = nv, .nna = 1};
    csv_frame_t f;
    assert_int_equal(csv_read_buffer(text, strlen(text), &every, NULL, 0, 7, &f, err, sizeof err),
                     0);
    const double *a = f.cols[0].data, *b = f.cols[1].data;
    assert_int_equal(f.cols[0].type, CSV_FLOAT64); /* "-999" and "-999.0" are missing */
    assert_true(isnan(a[0]) && a[1] == 2 && isnan(a[2]));
    assert_true(isnan(b[0]) && b[1] == 1.5 && isnan(b[2])); /* -999.00 by value */
    assert_false(is_valid(&f.cols[2], 1));                  /* "NA", a default */
    csv_frame_close(&f);
    const csv_opts_t one = {.sep = ',', .decimal = '.', .na_values = nv, .na_cols = cols, .nna = 1};
    assert_int_equal(csv_read_buffer(text, strlen(text), &one, NULL, 0, 7, &f, err, sizeof err), 0);
    assert_int_equal(f.cols[0].type, CSV_FLOAT64); /* a: -999 and -999.0 kept */
    assert_true(((const double *)f.cols[0].data)[0] == -999);
    assert_true(isnan(((const double *)f.cols[1].data)[0]));
    csv_frame_close(&f);
    const csv_opts_t bare = {.sep = ',', .decimal = '.', .no_default_na = true};
    const char *short_rows = "a,b\nNA\n,x\n";
    assert_int_equal(
        csv_read_buffer(short_rows, strlen(short_rows), &bare, NULL, 0, 4, &f, err, sizeof err), 0);
    assert_int_equal(f.cols[0].type, CSV_STRING);
    assert_true(is_valid(&f.cols[0], 0) && is_valid(&f.cols[1], 0) && is_valid(&f.cols[0], 1));
    assert_int_equal(str_len(&f.cols[0], 0), 2); /* "NA" itself */
    assert_int_equal(str_len(&f.cols[1], 0), 0); /* the missing field: "" */
    csv_frame_close(&f);
}

/* skiprows: lines passed over before the header, whatever their ends;
 * nrows: the buffer cut after that many rows, types from them only. */
static void test_skiprows_nrows(void **state)
{
    (void)state;
    const char *text = "junk\r\n\rmore,x\na,b\n1,x\n\n2,y\n2.5,z\n";
    const csv_opts_t skip = {.sep = ',', .decimal = '.', .skiprows = 3};
    csv_header_t h;
    assert_int_equal(csv_header_parse(text, strlen(text), &skip, NULL, 0, &h, err, sizeof err), 0);
    assert_string_equal(h.names[0], "a");
    assert_int_equal(h.data_line, 4);
    int64_t end = csv_rows_end(text, strlen(text), &h, 2, err, sizeof err);
    assert_int_equal(end, (int64_t)(strstr(text, "2.5") - text));
    assert_int_equal(csv_rows_end(text, strlen(text), &h, 99, err, sizeof err),
                     (int64_t)strlen(text));
    csv_header_close(&h);
    const csv_opts_t two = {
        .sep = ',', .decimal = '.', .skiprows = 3, .nrows = 2, .nrows_set = true};
    csv_frame_t f;
    assert_int_equal(csv_read_buffer(text, strlen(text), &two, NULL, 0, 3, &f, err, sizeof err), 0);
    assert_int_equal(f.nrows, 2);
    assert_int_equal(f.cols[0].type, CSV_INT64); /* 2.5 is past the rows read */
    csv_frame_close(&f);
}

/* thousands: ints take any number after the first digit, floats one
 * after each integer digit; with a decimal comma and '.' separating. */
static void test_thousands(void **state)
{
    (void)state;
    const char *text = "a;b;c\n1,234;1,234.5;1,,2.5\n-1,,2;.5;x\n";
    const csv_opts_t th = {.sep = ';', .decimal = '.', .thousands = ','};
    csv_frame_t f;
    assert_int_equal(csv_read_buffer(text, strlen(text), &th, NULL, 0, 5, &f, err, sizeof err), 0);
    assert_int_equal(f.cols[0].type, CSV_INT64);
    assert_int_equal(int_at(&f.cols[0], 0), 1234);
    assert_int_equal(int_at(&f.cols[0], 1), -12);
    assert_int_equal(f.cols[1].type, CSV_FLOAT64);
    assert_true(((const double *)f.cols[1].data)[0] == 1234.5);
    assert_true(((const double *)f.cols[1].data)[1] == 0.5);
    assert_int_equal(f.cols[2].type, CSV_STRING); /* 1,,2.5 is no float */
    csv_frame_close(&f);
    const char *eu = "a\n1.234.567,25\n";
    const csv_opts_t de = {.sep = ';', .decimal = ',', .thousands = '.'};
    assert_int_equal(csv_read_buffer(eu, strlen(eu), &de, NULL, 0, 4, &f, err, sizeof err), 0);
    assert_true(((const double *)f.cols[0].data)[0] == 1234567.25);
    csv_frame_close(&f);
    char t;
    assert_int_equal(csv_thousands_parse("7", &t, err, sizeof err), -1);
    assert_int_equal(csv_thousands_parse(",,", &t, err, sizeof err), -1);
    assert_string_equal(err, "Only length-1 thousands markers supported");
}

/* encoding: latin-1 and cp1252 names and text decoded to UTF-8, na_values
 * compared in the file's encoding; a byte cp1252 lacks fails its line. */
static void test_encoding(void **state)
{
    (void)state;
    const char *text = "St\xe4"
                       "dte,n\nK\xf6ln,1\n\x80 \x93q\x94,2\nZ\xfcrich,3\n";
    const char *nv[] = {"Z\xc3\xbcrich"};
    const csv_opts_t l1 = {
        .sep = ',', .decimal = '.', .encoding = CSV_ENC_CP1252, .na_values = nv, .nna = 1};
    csv_frame_t f;
    assert_int_equal(csv_read_buffer(text, strlen(text), &l1, NULL, 0, 6, &f, err, sizeof err), 0);
    assert_string_equal(f.names[0], "St\xc3\xa4"
                                    "dte");
    assert_int_equal(str_len(&f.cols[0], 0), 5);
    assert_memory_equal(str_at(&f.cols[0], 0), "K\xc3\xb6ln", 5);
    assert_int_equal(str_len(&f.cols[0], 1), 11); /* the euro sign and the quotes: 3 bytes each */
    assert_memory_equal(str_at(&f.cols[0], 1), "\xe2\x82\xac \xe2\x80\x9cq\xe2\x80\x9d", 11);
    assert_false(is_valid(&f.cols[0], 2)); /* na_values in UTF-8 match the cp1252 bytes */
    csv_frame_close(&f);
    const char *bad = "a\nx\x81\n";
    const csv_opts_t cp = {.sep = ',', .decimal = '.', .encoding = CSV_ENC_CP1252};
    assert_int_equal(csv_read_buffer(bad, strlen(bad), &cp, NULL, 0, 6, &f, err, sizeof err), -1);
    assert_non_null(strstr(err, "line 2, column 'a': 'charmap' codec can't decode byte 0x81"));
    int enc;
    assert_int_equal(csv_encoding_parse("ISO_8859_1", &enc, err, sizeof err), 0);
    assert_int_equal(enc, CSV_ENC_LATIN1);
    assert_int_equal(csv_encoding_parse("utf-16", &enc, err, sizeof err), -1);
}

static void test_usecols(void **st)
{
    const char *text = "a,b,c,a\n1,x,2.5,4\n5,y,,6,extra\n";
    const char *uc[] = {"c", "a.1", "a"};
    csv_frame_t f;
    assert_int_equal(csv_read_buffer(text, strlen(text), NULL, uc, 3, 4, &f, err, sizeof err), 0);
    /* file order, whatever the order of usecols; extra fields allowed */
    assert_int_equal(f.ncols, 3);
    assert_string_equal(f.names[0], "a");
    assert_string_equal(f.names[1], "c");
    assert_string_equal(f.names[2], "a.1");
    assert_int_equal(f.cols[0].type, CSV_INT64);
    assert_int_equal(f.cols[1].type, CSV_FLOAT64);
    assert_int_equal(int_at(&f.cols[2], 1), 6);
    csv_frame_close(&f);

    const char *bad[] = {"b", "x", "y"};
    assert_int_equal(csv_read_buffer(text, strlen(text), NULL, bad, 3, 4, &f, err, sizeof err), -1);
    assert_string_equal(err, "Usecols do not match columns, columns expected but not found: "
                             "['x', 'y']");
}

/* A wide header and a long usecols (each entry found by a search of the
 * sorted names, not a scan of every column: 10^5 x 10^5 comparisons
 * before): every column named in reverse order, twice, selects each once
 * in file order; by position, "07" names no column (positions are
 * written as "%d" writes them) */
static void test_usecols_wide(void **st)
{
    (void)st;
    enum { W = 100000 };
    size_t cap = (size_t)W * 12 + 16, off = 0;
    char *text = malloc(cap);
    char **uc = calloc(2 * W, sizeof *uc);
    assert_non_null(text);
    assert_non_null(uc);
    for (int i = 0; i < W; i++)
        off += (size_t)snprintf(text + off, cap - off, "%sc%d", i ? "," : "", i);
    off += (size_t)snprintf(text + off, cap - off, "\n");
    for (int i = 0; i < W; i++) {
        char b[16];
        snprintf(b, sizeof b, "c%d", W - 1 - i);
        uc[i] = strdup(b);
        uc[W + i] = strdup(b);
        assert_non_null(uc[i]);
        assert_non_null(uc[W + i]);
    }
    csv_header_t h;
    assert_int_equal(
        csv_header_parse(text, off, NULL, (const char *const *)uc, 2 * W, &h, err, sizeof err), 0);
    assert_int_equal(h.nsel, W);
    for (int i = 0; i < W; i++)
        assert_int_equal(h.sel[i], i);
    csv_header_close(&h);
    const csv_opts_t bypos = {.sep = ',', .decimal = '.', .usecols_pos = true};
    const char *pos[] = {"99999", "0", "7", "0"};
    assert_int_equal(csv_header_parse(text, off, &bypos, pos, 4, &h, err, sizeof err), 0);
    assert_int_equal(h.nsel, 3);
    assert_int_equal(h.sel[0], 0);
    assert_int_equal(h.sel[1], 7);
    assert_int_equal(h.sel[2], 99999);
    csv_header_close(&h);
    const char *lead[] = {"07"};
    assert_int_equal(csv_header_parse(text, off, &bypos, lead, 1, &h, err, sizeof err), -1);
    assert_non_null(strstr(err, "columns expected but not found: [07]"));
    for (int i = 0; i < 2 * W; i++)
        free(uc[i]);
    free(uc);
    free(text);
}

/* ---- errors ----------------------------------------------------------------- */

static void test_errors(void **st)
{
    for (int64_t chunk = 1; chunk <= 64; chunk *= 4) {
        read_fails("a,b\n1,2\n3,4,5\n", chunk, "Expected 2 fields in line 3, saw 3");
        /* a quoted newline does not count; a blank line does */
        read_fails("a,b\n\"x\ny\",2\n\n3,4,5\n", chunk, "Expected 2 fields in line 4, saw 3");
        read_fails("\n\na,b\n1,2\n3,4,5\n", chunk, "Expected 2 fields in line 5, saw 3");
        read_fails("a,b\n1,2\n3,\"4\n", chunk, "EOF inside string starting at row 2");
        read_fails("a,b\n1,2\n\n\n5,\"4\n", chunk, "EOF inside string starting at row 4");
        read_fails("a\n\"x\"\"\n", chunk, "EOF inside string starting at row 1");
        read_fails("\"a\n", chunk, "EOF inside string starting at row 0");
        read_fails("", chunk, "No columns to parse from file");
        read_fails("\n \n\r\n", chunk, "No columns to parse from file");
    }
    /* the first data row with one field too many is pandas' implicit
     * index (test_sep_whitespace); two too many would be its MultiIndex,
     * refused here with pandas' words for a later row */
    read_fails("a,b\n1,2,3,4\n", 1 << 20, "Expected 2 fields in line 2, saw 4");
    read_fails("a,b\n1,2,3\n4,5,6,7\n", 1 << 20, "Expected 3 fields in line 3, saw 4");

    /* types that do not fit the chunk */
    const char *text = "a\n1\nx\n";
    csv_header_t h;
    csv_range_t *r;
    int64_t n;
    csv_frame_t f;
    assert_int_equal(csv_header_parse(text, strlen(text), NULL, NULL, 0, &h, err, sizeof err), 0);
    assert_int_equal(csv_split(text, strlen(text), &h, 1 << 20, &r, &n, err, sizeof err), 0);
    csv_type_t t = CSV_INT64;
    assert_int_equal(csv_read_range(text, &h, &r[0], &t, &f, err, sizeof err), -1);
    assert_string_equal(err, "line 3, column 'a': 'x' does not parse as int64");
    t = CSV_BOOL;
    assert_int_equal(csv_read_range(text, &h, &r[0], &t, &f, err, sizeof err), -1);
    t = CSV_STRING;
    assert_int_equal(csv_read_range(text, &h, &r[0], &t, &f, err, sizeof err), 0);
    csv_frame_close(&f);
    csv_range_t bad = {5, 2, 0, 0};
    assert_int_equal(csv_read_range(text, &h, &bad, &t, &f, err, sizeof err), -1);
    /* a NULL err is allowed */
    assert_int_equal(csv_read_range(text, &h, &bad, &t, &f, NULL, 0), -1);
    free(r);
    csv_header_close(&h);
}

/* ---- files and paths --------------------------------------------------------- */

static char tmpdir[64];

static void write_file(const char *path, const char *text)
{
    FILE *fp = fopen(path, "wb");
    assert_non_null(fp);
    assert_int_equal(fwrite(text, 1, strlen(text), fp), strlen(text));
    assert_int_equal(fclose(fp), 0);
}

static void test_file_open(void **st)
{
    char p[128];
    snprintf(p, sizeof p, "%s/t.csv", tmpdir);
    write_file(p, "a,b\n1,\"x\"\n");
    csv_file_t f;
    assert_int_equal(csv_file_open(&f, p, err, sizeof err), 0);
    assert_int_equal(f.len, 10);
    csv_frame_t fr;
    assert_int_equal(csv_read_buffer(f.buf, f.len, NULL, NULL, 0, 3, &fr, err, sizeof err), 0);
    assert_str(&fr.cols[1], 0, "x");
    csv_frame_close(&fr);
    csv_file_close(&f);
    unlink(p);

    snprintf(p, sizeof p, "%s/empty.csv", tmpdir);
    write_file(p, "");
    assert_int_equal(csv_file_open(&f, p, err, sizeof err), 0);
    assert_null(f.buf);
    assert_int_equal(csv_read_buffer(f.buf, f.len, NULL, NULL, 0, 3, &fr, err, sizeof err), -1);
    assert_string_equal(err, "No columns to parse from file");
    csv_file_close(&f);
    unlink(p);

    assert_int_equal(csv_file_open(&f, tmpdir, err, sizeof err), -1);
    assert_non_null(strstr(err, "not a regular file"));
    snprintf(p, sizeof p, "%s/missing.csv", tmpdir);
    assert_int_equal(csv_file_open(&f, p, err, sizeof err), -1);
    assert_non_null(strstr(err, "No such file"));
}

static void test_resolve_path(void **st)
{
    char data[128], sub[160], p[PATH_MAX + 16], out[PATH_MAX], outside[128], link[200];
    char real_data[PATH_MAX];
    snprintf(data, sizeof data, "%s/data", tmpdir);
    snprintf(sub, sizeof sub, "%s/sub", data);
    snprintf(outside, sizeof outside, "%s/secret.csv", tmpdir);
    assert_int_equal(mkdir(data, 0755), 0);
    assert_int_equal(mkdir(sub, 0755), 0);
    snprintf(p, sizeof p, "%s/x.csv", sub);
    write_file(p, "a\n1\n");
    write_file(outside, "a\n1\n");
    snprintf(p, sizeof p, "%s/..name.csv", data);
    write_file(p, "a\n1\n");
    snprintf(link, sizeof link, "%s/escape.csv", data);
    assert_int_equal(symlink(outside, link), 0);
    snprintf(link, sizeof link, "%s/inner.csv", data);
    assert_int_equal(symlink("sub/x.csv", link), 0);
    assert_non_null(realpath(data, real_data));

    assert_int_equal(csv_resolve_path(data, "sub/x.csv", out, sizeof out, err, sizeof err), 0);
    snprintf(p, sizeof p, "%s/sub/x.csv", real_data);
    assert_string_equal(out, p);
    assert_int_equal(csv_resolve_path(data, "./sub//x.csv", out, sizeof out, err, sizeof err), 0);
    assert_int_equal(csv_resolve_path(data, "inner.csv", out, sizeof out, err, sizeof err), 0);
    assert_string_equal(out, p);
    assert_int_equal(csv_resolve_path(data, "..name.csv", out, sizeof out, err, sizeof err), 0);

    assert_int_equal(csv_resolve_path(data, outside, out, sizeof out, err, sizeof err), -1);
    assert_non_null(strstr(err, "absolute"));
    assert_int_equal(csv_resolve_path(data, "../secret.csv", out, sizeof out, err, sizeof err), -1);
    assert_non_null(strstr(err, "'..'"));
    assert_int_equal(
        csv_resolve_path(data, "sub/../../secret.csv", out, sizeof out, err, sizeof err), -1);
    assert_int_equal(csv_resolve_path(data, "sub/..", out, sizeof out, err, sizeof err), -1);
    assert_int_equal(csv_resolve_path(data, "", out, sizeof out, err, sizeof err), -1);
    assert_non_null(strstr(err, "empty"));
    assert_int_equal(csv_resolve_path(data, "escape.csv", out, sizeof out, err, sizeof err), -1);
    assert_non_null(strstr(err, "outside the data directory"));
    assert_int_equal(csv_resolve_path(data, "nope.csv", out, sizeof out, err, sizeof err), -1);
    assert_non_null(strstr(err, "No such file"));
    assert_int_equal(csv_resolve_path(data, "sub/x.csv", out, 8, err, sizeof err), -1);
    assert_non_null(strstr(err, "does not fit"));

    snprintf(p, sizeof p, "%s/sub/x.csv", data);
    unlink(p);
    snprintf(p, sizeof p, "%s/..name.csv", data);
    unlink(p);
    snprintf(link, sizeof link, "%s/escape.csv", data);
    unlink(link);
    snprintf(link, sizeof link, "%s/inner.csv", data);
    unlink(link);
    unlink(outside);
    rmdir(sub);
    rmdir(data);
}

static int setup(void **st)
{
    snprintf(tmpdir, sizeof tmpdir, "/tmp/test_csv.XXXXXX");
    return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown(void **st)
{
    return rmdir(tmpdir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_quoted_fields),
        cmocka_unit_test(test_line_ends_and_blank_lines),
        cmocka_unit_test(test_split_every_offset),
        cmocka_unit_test(test_split_lines),
        cmocka_unit_test(test_split_by_hand),
        cmocka_unit_test(test_scan_block),
        cmocka_unit_test(test_scan_block_random),
        cmocka_unit_test(test_inference),
        cmocka_unit_test(test_inference_numbers),
        cmocka_unit_test(test_kinds_merge),
        cmocka_unit_test(test_short_rows),
        cmocka_unit_test(test_header_names),
        cmocka_unit_test(test_usecols),
        cmocka_unit_test(test_usecols_wide),
        cmocka_unit_test(test_sep),
        cmocka_unit_test(test_sep_whitespace),
        cmocka_unit_test(test_quote_header_bools),
        cmocka_unit_test(test_decimal),
        cmocka_unit_test(test_header_none_names),
        cmocka_unit_test(test_na_values),
        cmocka_unit_test(test_skiprows_nrows),
        cmocka_unit_test(test_thousands),
        cmocka_unit_test(test_encoding),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_file_open),
        cmocka_unit_test(test_resolve_path),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
