/* csv.c: the CSV reader of csv.h. The tokenizer (tok_next) and the split
 * DFA (trans/line_inc) encode the same rules of pandas' C tokenizer: a field
 * is quoted only when its first byte is '"'; inside it '""' is a quote and
 * a lone '"' closes it; after the closing quote, and in an unquoted field,
 * '"' is an ordinary byte; "\n", "\r\n" and a lone "\r" end a record; a line
 * of nothing but spaces and tabs is skipped (and counted as a line). With
 * skipinitialspace the spaces that start a field are no part of it, and a
 * quote after them opens the field (pandas' IS_SKIPPABLE_SPACE). */
#include "../errmsg.h"
#include "csv.h"

#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../dtype.h" /* engine/: the Makefile compiles engine sources without -I */

/* Grows *p (elements of size elem, capacity *cap) to hold at least need
 * elements, doubling; every size is checked before realloc. */
static int grow(void **p, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap) return 0;
    size_t nc = *cap ? *cap : 16;
    while (nc < need) {
        if (nc > SIZE_MAX / 2) return -1;
        nc *= 2;
    }
    size_t bytes;
    if (__builtin_mul_overflow(nc, elem, &bytes)) return -1;
    void *q = realloc(*p, bytes);
    if (!q) return -1;
    *p = q;
    *cap = nc;
    return 0;
}

/* ---------------------------------------------------------------------------
 * Types. */

uint32_t csv_kinds_merge(uint32_t a, uint32_t b)
{
    uint32_t ifail = (a & CSV_K_IFAIL_MASK) ? a & CSV_K_IFAIL_MASK : b & CSV_K_IFAIL_MASK;
    uint32_t ufail = (a & CSV_K_UFAIL_MASK) ? a & CSV_K_UFAIL_MASK : b & CSV_K_UFAIL_MASK;
    return ((a | b) & CSV_K_FLAGS_MASK) | ifail | ufail;
}

bool csv_kinds_na_text(uint32_t k)
{
    /* pandas' uint64_conflict: a value past INT64_MAX beside a negative
     * one or an NA one, every value read by the uint64 path */
    return (k & CSV_K_IFAIL_MASK) == CSV_K_IFAIL_OVERFLOW && (k & CSV_K_UFAIL_MASK) == 0 &&
           (k & CSV_K_UINT) && (k & (CSV_K_SINT | CSV_K_NA));
}

/* pandas' _convert_tokens: int64, then (on an int64 overflow) uint64, then
 * float64, then bool, else object; int64 with NA upcast to float64. */
csv_type_t csv_kinds_type(uint32_t k, int64_t total_rows)
{
    if (total_rows == 0) return CSV_STRING;
    uint32_t ifail = k & CSV_K_IFAIL_MASK, ufail = k & CSV_K_UFAIL_MASK;
    if (ifail == 0) return (k & CSV_K_NA) ? CSV_FLOAT64 : CSV_INT64;
    if (ifail == CSV_K_IFAIL_OVERFLOW) {
        if (ufail == CSV_K_UFAIL_OVERFLOW) return CSV_STRING;
        if (ufail == 0) {
            /* every value parsed as uint64: pandas gives uint64 unless a
             * value was negative (or NA beside a value past INT64_MAX), then
             * object (where a value passed INT64_MAX, its NA strings kept:
             * csv_kinds_na_text). The engine has no uint64: float64. */
            bool conflict = (k & CSV_K_SINT) || ((k & CSV_K_UINT) && (k & CSV_K_NA));
            return conflict ? CSV_STRING : CSV_FLOAT64;
        }
        /* else: a value that is no integer; pandas goes on to float64 */
    }
    if (!(k & CSV_K_NOTFLOAT)) return CSV_FLOAT64;
    if (!(k & CSV_K_NOTBOOL)) return CSV_BOOL;
    return CSV_STRING;
}

const char *csv_type_name(csv_type_t t, bool has_na)
{
    switch (t) {
    case CSV_INT64:
        return "int64";
    case CSV_FLOAT64:
        return "float64";
    case CSV_BOOL:
        return has_na ? "object" : "bool";
    case CSV_STRING:
        return "object";
    }
    return "?";
}

/* pandas 1.5's default na_values (pandas._libs.parsers.STR_NA_VALUES). */
static const char *const na_strings[] = {
    "",        "#N/A", "#N/A N/A", "#NA", "-1.#IND", "-1.#QNAN", "-NaN", "-nan", "1.#IND",
    "1.#QNAN", "<NA>", "N/A",      "NA",  "NULL",    "NaN",      "n/a",  "nan",  "null",
};

static bool is_na(const char *s, size_t n)
{
    if (n > 8) return false; /* the longest NA string, "#N/A N/A", has 8 bytes */
    if (n == 0) return true;
    /* every NA string starts with one of these: most values leave here */
    if (!strchr("#-1<Nn", s[0])) return false;
    for (size_t i = 0; i < sizeof na_strings / sizeof na_strings[0]; i++)
        if (strlen(na_strings[i]) == n && memcmp(na_strings[i], s, n) == 0) return true;
    return false;
}

/* 1 true, 0 false, -1 neither: pandas' default true_values/false_values,
 * then the header's (h->bools; h may be NULL). */
static int bool_value(const csv_header_t *h, const char *s, size_t n)
{
    if (n == 4 && (!memcmp(s, "True", 4) || !memcmp(s, "true", 4) || !memcmp(s, "TRUE", 4)))
        return 1;
    if (n == 5 && (!memcmp(s, "False", 5) || !memcmp(s, "false", 5) || !memcmp(s, "FALSE", 5)))
        return 0;
    for (int i = 0; h && i < h->nbools; i++)
        if (h->bool_len[i] == n && !memcmp(h->bools[i], s, n)) return h->bool_val[i];
    return -1;
}

static bool sp(char c) /* pandas' isspace_ascii */
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r';
}
static bool dig(char c)
{
    return c >= '0' && c <= '9';
}

/* pandas' str_to_int64 (sign 1 or -1 allowed) and str_to_uint64: spaces
 * around, an optional sign, digits only; with a thousands separator tsep
 * (0: none) any number of them anywhere after the first digit ("1,,2" is
 * 12, as pandas). Overflow is found while reading the digits, before
 * anything after them is looked at, as pandas does: "1e99999" style tails
 * do not matter once the digits overflow. */
enum { PI_OK = 0, PI_OVERFLOW, PI_INVALID };

static int parse_i64(const char *s, size_t n, char tsep, int64_t *out)
{
    size_t i = 0;
    while (i < n && sp(s[i]))
        i++;
    bool neg = false;
    if (i < n && (s[i] == '-' || s[i] == '+')) neg = s[i++] == '-';
    if (i >= n || !dig(s[i])) return PI_INVALID;
    /* the magnitude limit: INT64_MAX, or its negation's 2^63 */
    uint64_t lim = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX, v = 0;
    for (; i < n && (dig(s[i]) || (tsep && s[i] == tsep)); i++) {
        if (s[i] == tsep) continue;
        unsigned d = (unsigned)(s[i] - '0');
        if (v > (lim - d) / 10) return PI_OVERFLOW;
        v = v * 10 + d;
    }
    while (i < n && sp(s[i]))
        i++;
    if (i != n) return PI_INVALID;
    *out = neg ? (v == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)v) : (int64_t)v;
    return PI_OK;
}

/* str_to_uint64 on a value that does not start with '-' (pandas notes those
 * as "seen_sint" without parsing them). */
static int parse_u64(const char *s, size_t n, char tsep, uint64_t *out)
{
    size_t i = 0;
    while (i < n && sp(s[i]))
        i++;
    if (i < n && s[i] == '+') i++;
    if (i >= n || !dig(s[i])) return PI_INVALID;
    uint64_t v = 0;
    for (; i < n && (dig(s[i]) || (tsep && s[i] == tsep)); i++) {
        if (s[i] == tsep) continue;
        unsigned d = (unsigned)(s[i] - '0');
        if (v > (UINT64_MAX - d) / 10) return PI_OVERFLOW;
        v = v * 10 + d;
    }
    while (i < n && sp(s[i]))
        i++;
    if (i != n) return PI_INVALID;
    *out = v;
    return PI_OK;
}

static bool ieq(const char *s, size_t n, const char *lit)
{
    if (strlen(lit) != n) return false;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (c >= 'A' && c <= 'Z') c = (char)(c - 'A' + 'a');
        if (c != lit[i]) return false;
    }
    return true;
}

/* A float as pandas' _try_double: the syntax xstrtod accepts (leading and
 * trailing whitespace, sign, digits with an optional decimal point `dec`,
 * an exponent that counts only when digits follow it), else inf/infinity
 * with an optional sign in any case. s is NUL-terminated at s[n]. 0 ok, -1
 * not a float or out of range (pandas leaves those as strings). With out
 * NULL only the answer is wanted, and strtod runs only where the value could
 * overflow. A point other than '.' is put back to '.' for strtod and
 * restored after (pandas' round_trip copies the text the same way), so s is
 * written to but left as it was. A thousands separator tsep (0: none) may
 * follow each digit before the point, once (xstrtod's rule: "1,.5" is
 * 1.5, "1,,2.5" no float); strtod then reads a copy without them. */
static int parse_float(char *s, size_t n, char dec, char tsep, double *out)
{
    double dummy;
    bool check_only = out == NULL;
    if (check_only) out = &dummy;
    if (n <= 9) { /* "+infinity" is the longest spelling: 9 bytes */
        size_t o = (n && (s[0] == '+' || s[0] == '-')) ? 1 : 0;
        if (ieq(s + o, n - o, "inf") || ieq(s + o, n - o, "infinity")) {
            *out = s[0] == '-' ? -INFINITY : INFINITY;
            return 0;
        }
    }
    size_t i = 0;
    while (i < n && sp(s[i]))
        i++;
    size_t num0 = i;
    if (i < n && (s[i] == '-' || s[i] == '+')) i++;
    size_t ndig = 0, nint = 0, nsep = 0; /* digits; integer digits after leading zeros */
    while (i < n && dig(s[i])) {
        if (nint || s[i] != '0') nint++;
        i++, ndig++;
        if (tsep && i < n && s[i] == tsep) i++, nsep++;
    }
    size_t point = n; /* where the decimal point is, if any */
    if (i < n && s[i] == dec) {
        point = i++;
        while (i < n && dig(s[i]))
            i++, ndig++;
    }
    if (ndig == 0) return -1;
    int64_t ex = 0; /* the exponent, clamped: past 10^6 it only matters that it is big */
    if (i < n && (s[i] == 'e' || s[i] == 'E')) {
        size_t j = i + 1;
        bool eneg = false;
        if (j < n && (s[j] == '-' || s[j] == '+')) eneg = s[j++] == '-';
        size_t e0 = j;
        for (; j < n && dig(s[j]); j++)
            if (ex < 1000000) ex = ex * 10 + (s[j] - '0');
        if (j > e0) i = j;
        if (eneg) ex = -ex;
    }
    while (i < n && sp(s[i]))
        i++;
    if (i != n) return -1;
    /* below 10^300 nothing overflows (DBL_MAX is about 1.8e308) */
    if (check_only && (int64_t)nint + ex < 300) return 0;
    /* strtod reads exactly the checked text: it stops where the syntax
     * above stopped, at whitespace or at the NUL. */
    errno = 0;
    char *end, small[128], *cp = NULL;
    if (point < n) s[point] = '.';
    const char *num = s + num0;
    if (nsep) { /* the text without its separators (the point is '.' already) */
        size_t len = n - num0, w = 0;
        cp = len < sizeof small ? small : malloc(len + 1);
        if (!cp) {
            if (point < n) s[point] = dec;
            return -1;
        }
        for (size_t q = num0; q < n; q++)
            if (s[q] != tsep || q >= point) cp[w++] = s[q];
        cp[w] = 0;
        num = cp;
    }
    double v = strtod(num, &end);
    if (cp && cp != small) free(cp);
    if (point < n) s[point] = dec;
    if (errno == ERANGE && isinf(v)) return -1; /* 1e400: pandas keeps the string */
    *out = v;
    return 0;
}

/* cp1252's 0x80..0x9f (0: a byte Python's codec refuses); the rest of
 * the byte range is latin-1's, each byte its own code point. */
static const uint16_t cp1252_hi[32] = {
    0x20ac, 0,      0x201a, 0x0192, 0x201e, 0x2026, 0x2020, 0x2021, 0x02c6, 0x2030, 0x0160,
    0x2039, 0x0152, 0,      0x017d, 0,      0,      0x2018, 0x2019, 0x201c, 0x201d, 0x2022,
    0x2013, 0x2014, 0x02dc, 0x2122, 0x0161, 0x203a, 0x0153, 0,      0x017e, 0x0178};

/* a buffer to_utf8 writes into, grown as needed and kept for the next
 * value (a column's values reuse one; the caller frees p) */
typedef struct {
    char *p;
    size_t cap;
} ubuf_t;

/* s[0..n) of encoding enc (CSV_ENC_*) as UTF-8 into ub, *out = ub->p
 * (NUL-terminated, *outn bytes), or *out NULL when it needs no change
 * (UTF-8, or no byte past ASCII; ub untouched). -1 with a message naming
 * the byte cp1252 has no character for, or out of memory. */
static int to_utf8(const char *s, size_t n, int enc, ubuf_t *ub, char **out, size_t *outn,
                   char *err, size_t errlen)
{
    *out = NULL;
    size_t hi = 0;
    for (size_t i = 0; enc != CSV_ENC_UTF8 && i < n; i++)
        hi += (unsigned char)s[i] >= 0x80;
    if (hi == 0) return 0;
    size_t need = n + 2 * hi + 1; /* a byte is at most 3 of UTF-8 */
    if (need > ub->cap) {
        size_t nc = ub->cap && need < 2 * ub->cap ? 2 * ub->cap : need;
        char *p = realloc(ub->p, nc);
        if (!p) return errmsg(err, errlen, "out of memory decoding %zu bytes", n);
        ub->p = p;
        ub->cap = nc;
    }
    char *o = ub->p;
    size_t w = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned c = (unsigned char)s[i];
        if (c >= 0x80 && c < 0xa0 && enc == CSV_ENC_CP1252) {
            c = cp1252_hi[c - 0x80];
            if (!c)
                return errmsg(err, errlen,
                              "'charmap' codec can't decode byte 0x%02x: cp1252 has no character "
                              "for it",
                              (unsigned char)s[i]);
        }
        if (c < 0x80) {
            o[w++] = (char)c;
        } else if (c < 0x800) {
            o[w++] = (char)(0xc0 | (c >> 6));
            o[w++] = (char)(0x80 | (c & 0x3f));
        } else {
            o[w++] = (char)(0xe0 | (c >> 12));
            o[w++] = (char)(0x80 | ((c >> 6) & 0x3f));
            o[w++] = (char)(0x80 | (c & 0x3f));
        }
    }
    o[w] = 0;
    *out = o;
    *outn = w;
    return 0;
}

/* UTF-8 text s in encoding enc (the file's bytes an NA string must equal),
 * into out (at most strlen(s) + 1 bytes). false when a character has no
 * byte there (the value can then match nothing). */
static bool from_utf8(const char *s, int enc, char *out)
{
    size_t w = 0;
    for (const unsigned char *p = (const unsigned char *)s; *p;) {
        unsigned c = *p++, more = c >= 0xf0 ? 3 : c >= 0xe0 ? 2 : c >= 0xc0 ? 1 : 0;
        if (c >= 0x80) c &= 0x3f >> more;
        for (; more && (*p & 0xc0) == 0x80; more--)
            c = (c << 6) | (*p++ & 0x3f);
        if (more) return false;
        int b = c < 0x80 || (c >= 0xa0 && c <= 0xff) ? (int)c : -1;
        if (c >= 0x80 && c < 0xa0 && enc == CSV_ENC_CP1252) b = -1;
        if (c >= 0x80 && c < 0xa0 && enc == CSV_ENC_LATIN1) b = (int)c;
        for (int q = 0; b < 0 && enc == CSV_ENC_CP1252 && q < 32; q++)
            if (cp1252_hi[q] && cp1252_hi[q] == c) b = 0x80 + q;
        if (b < 0) return false;
        out[w++] = (char)b;
    }
    out[w] = 0;
    return true;
}

int csv_encoding_parse(const char *s, int *enc, char *err, size_t errlen)
{
    char b[32];
    size_t n = 0;
    for (; s[n] && n < sizeof b - 1; n++) /* Python's codec names: any case, '_' as '-' */
        b[n] = s[n] == '_' ? '-' : (s[n] >= 'A' && s[n] <= 'Z') ? (char)(s[n] - 'A' + 'a') : s[n];
    b[n] = 0;
    static const char *const names[] = {"utf-8",      "utf8",      "u8", "latin-1", "latin1",
                                        "iso-8859-1", "iso8859-1", "l1", "cp1252",  "windows-1252"};
    static const int encs[] = {CSV_ENC_UTF8,   CSV_ENC_UTF8,   CSV_ENC_UTF8,   CSV_ENC_LATIN1,
                               CSV_ENC_LATIN1, CSV_ENC_LATIN1, CSV_ENC_LATIN1, CSV_ENC_LATIN1,
                               CSV_ENC_CP1252, CSV_ENC_CP1252};
    for (size_t i = 0; !s[n] && i < sizeof names / sizeof names[0]; i++)
        if (!strcmp(b, names[i])) {
            *enc = encs[i];
            return 0;
        }
    return errmsg(err, errlen,
                  "encoding '%.40s': read_csv reads utf-8, latin-1 (iso-8859-1) or cp1252", s);
}

/* Whether NA value v reads as a float by Python's float() (spaces around,
 * decimal or exponent forms, inf; not NaN, as pandas' _floatify_na_values
 * drops it): *x. */
static bool na_float(const char *v, double *x)
{
    char *end;
    if (strpbrk(v, "xXpP_")) return false; /* strtod's hex forms, which float() refuses */
    errno = 0;
    *x = strtod(v, &end);
    while (*end && sp(*end))
        end++;
    return end != v && !*end && !isnan(*x) && !(errno == ERANGE && !isinf(*x));
}

/* The spellings pandas' _stringify_na_values adds to an NA value v: where
 * Python's float(v) is whole, "k.0" and "k" (" 2", "2.0" and "2" each give
 * "2.0" and "2"). Their count, 0 or 2, written to out. */
static int na_spellings(const char *v, char out[2][340])
{
    double x;
    if (!na_float(v, &x) || !isfinite(x) || x != floor(x)) return 0;
    snprintf(out[0], sizeof out[0], "%.0f.0", x == 0 ? 0.0 : x);
    snprintf(out[1], sizeof out[1], "%.0f", x == 0 ? 0.0 : x);
    return 2;
}

/* Whether value s of file column col is missing: a default NA string
 * (unless keep_default_na is off), or one of na_values for every column or
 * for that one. */
static bool na_at(const csv_header_t *h, int col, const char *s, size_t n)
{
    if (!h->no_default_na && is_na(s, n)) return true;
    for (int i = 0; i < h->nna; i++)
        if ((h->na_col[i] < 0 || h->na_col[i] == col) && h->na_len[i] == n &&
            !memcmp(h->na[i], s, n))
            return true;
    return false;
}

/* The kinds of one value of file column col (merged in file order by
 * csv_kinds_merge). */
static uint32_t classify(const csv_header_t *h, int col, char *s, size_t n)
{
    char dec = h->decimal, tsep = h->thousands;
    if (na_at(h, col, s, n)) return CSV_K_NA;
    uint32_t k = 0;
    int64_t iv;
    int ir = parse_i64(s, n, tsep, &iv);
    size_t i = 0;
    while (i < n && sp(s[i]))
        i++;
    bool minus = i < n && s[i] == '-';
    /* the common case: an int64 is a float, a uint64 (when not negative),
     * and not a bool; but an int64 whose thousands separators come in runs
     * ("1,,2") is no float to xstrtod, so a column of it beside a float is
     * object in pandas (beside an NA only, the float64 of its int) */
    if (ir == PI_OK)
        return (h->nbools && bool_value(h, s, n) >= 0 ? 0 : CSV_K_NOTBOOL) |
               (minus ? CSV_K_SINT : 0) |
               (tsep && memchr(s, tsep, n) && parse_float(s, n, dec, tsep, NULL) < 0
                    ? CSV_K_NOTFLOAT
                    : 0);
    k |= ir == PI_OVERFLOW ? CSV_K_IFAIL_OVERFLOW : CSV_K_IFAIL_OTHER;
    if (minus) {
        k |= CSV_K_SINT;
    } else {
        uint64_t uv;
        int ur = parse_u64(s, n, tsep, &uv);
        if (ur != PI_OK)
            k |= ur == PI_OVERFLOW ? CSV_K_UFAIL_OVERFLOW : CSV_K_UFAIL_OTHER;
        else if (uv > (uint64_t)INT64_MAX)
            k |= CSV_K_UINT;
    }
    if (parse_float(s, n, dec, tsep, NULL) < 0) k |= CSV_K_NOTFLOAT;
    if (bool_value(h, s, n) < 0) k |= CSV_K_NOTBOOL;
    return k;
}

/* ---------------------------------------------------------------------------
 * Tokenizer: one record at a time from buf[pos, end). The fields of the
 * current record are copied, unquoted, into fb, each NUL-terminated; field i
 * starts at fb[fo[i]] and has fl[i] bytes. Fields past `maxstore` are counted
 * but not kept. */
typedef struct {
    const char *p;
    int64_t pos, end;
    int64_t line;     /* pandas' 0-based line number of the next record */
    int64_t rec_line; /* ... of the current record */
    char *fb;
    size_t fbcap, fblen;
    size_t *fo, *fl;
    size_t focap, flcap;
    int nf; /* fields of the current record */
    int maxstore;
    char sep;    /* the field separator (csv_sep_parse) */
    int cmt;     /* the comment character as an unsigned char, 256: none */
    int quote;   /* the quote character as an unsigned char, 256: none */
    bool skipsp; /* skipinitialspace: a field's leading spaces are dropped */
    /* on_bad_lines "skip" (tok_data): records of more fields are passed
     * over; 0: none is */
    int bad_most;
    bool keep_blank; /* skip_blank_lines=False: blank lines are records */
    /* skiprows as a list (csv_header_t): records starting on skip[] lines
     * are passed over; skip_at: the first entry not before t->line */
    const int64_t *skip;
    int64_t nskip, skip_at;
    /* the bytes that end an unquoted field: the separator (a space and a
     * tab for "\s+"), the line ends, the comment character */
    uint8_t stop[256];
} tok_t;

/* Fields separated by h->sep, h->comment and h->quote (0: none). */
static void tok_init(tok_t *t, const char *buf, int64_t start, int64_t end, int64_t line,
                     int maxstore, const csv_header_t *h)
{
    char sep = h->sep, cmt = h->comment;
    memset(t, 0, sizeof *t);
    t->sep = sep;
    t->cmt = cmt ? (unsigned char)cmt : 256;
    t->quote = h->quote ? (unsigned char)h->quote : 256;
    t->skipsp = h->skipsp;
    t->keep_blank = h->keep_blank;
    t->skip = h->skip;
    t->nskip = h->nskip;
    int64_t lo = 0, hi = h->nskip; /* the first skipped line at or after `line` */
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        if (h->skip[mid] < line)
            lo = mid + 1;
        else
            hi = mid;
    }
    t->skip_at = lo;
    if (sep == CSV_SEP_WS)
        t->stop[' '] = t->stop['\t'] = 1;
    else
        t->stop[(unsigned char)sep] = 1;
    t->stop['\n'] = t->stop['\r'] = 1;
    if (cmt) t->stop[(unsigned char)cmt] = 1;
    t->p = buf;
    t->pos = start;
    t->end = end;
    t->line = line;
    t->maxstore = maxstore;
}

static void tok_close(tok_t *t)
{
    free(t->fb);
    free(t->fo);
    free(t->fl);
}

static int tok_bytes(tok_t *t, const char *src, size_t n, char *err, size_t errlen)
{
    size_t need;
    if (__builtin_add_overflow(t->fblen, n + 1, &need) ||
        grow((void **)&t->fb, &t->fbcap, need, 1) < 0)
        return errmsg(err, errlen, "out of memory buffering a field of %zu bytes", n);
    memcpy(t->fb + t->fblen, src, n);
    t->fblen += n;
    return 0;
}

/* The offset after the line end at or after i (\n, \r\n or \r), or end. */
static int64_t past_line(const char *p, int64_t i, int64_t end)
{
    while (i < end && p[i] != '\n' && p[i] != '\r')
        i++;
    if (i < end && p[i++] == '\r' && i < end && p[i] == '\n') i++;
    return i;
}

/* A record of no fields that ends at pos. */
static int tok_no_fields(tok_t *t, int64_t pos)
{
    t->rec_line = t->line++;
    t->nf = 0;
    t->fblen = 0;
    t->pos = pos;
    return 1;
}

/* 1: a record; 0: no more records; -1: error. */
static int tok_record(tok_t *t, char *err, size_t errlen)
{
    const char *p = t->p;
    int64_t i = t->pos, end = t->end;
    const char sep = t->sep;
    const bool ws = sep == CSV_SEP_WS;
    const int cm = t->cmt, qc = t->quote;
    /* Blank lines and lines of spaces/tabs are skipped (skip_blank_lines),
     * and so is such a tail at the end of the input; a space or a tab that
     * is the separator makes no blank line (pandas' WHITESPACE_LINE state
     * takes only whitespace other than the delimiter). Separated by
     * whitespace, a record's leading spaces and tabs are no field. With
     * skip_blank_lines=False an empty line, or one of whitespace that
     * separates, is a record of no fields; another line of whitespace is
     * read below, its field that whitespace. */
    const bool kb = t->keep_blank;
    for (;;) {
        int64_t j = i;
        while (j < end && (p[j] == ' ' || p[j] == '\t') && p[j] != sep)
            j++;
        if (j >= end) {
            if (kb && j > i) {
                if (ws) return tok_no_fields(t, end);
                break;
            }
            t->pos = end;
            return 0;
        }
        if (kb && (p[j] == '\n' || p[j] == '\r')) {
            if (ws || j == i) return tok_no_fields(t, past_line(p, j, end));
            break;
        }
        if ((unsigned char)p[j] == cm && (j == i || ws)) {
            /* pandas' comment: a line that starts with it is no record;
             * after whitespace that separates, a record of no fields (its
             * values missing); after other whitespace, a record whose
             * field is that whitespace (below) */
            if (j == i) {
                t->line++;
                i = past_line(p, j, end);
                continue;
            }
            t->rec_line = t->line++;
            t->nf = 0;
            t->fblen = 0;
            t->pos = past_line(p, j, end);
            return 1;
        }
        if (ws) i = j;
        if (p[j] == '\n') {
            t->line++;
            i = j + 1;
            continue;
        }
        if (p[j] == '\r') {
            t->line++;
            i = j + 1;
            if (i < end && p[i] == '\n') i++;
            continue;
        }
        break;
    }
    t->rec_line = t->line;
    t->nf = 0;
    t->fblen = 0;
    for (;;) {
        size_t fstart = t->fblen;
        if (t->skipsp)
            while (i < end && p[i] == ' ')
                i++;
        bool quoted = i < end && (unsigned char)p[i] == qc;
        if (quoted) {
            i++;
            for (;;) {
                /* copy the run up to the next quote in one piece */
                const char *qp = memchr(p + i, qc, (size_t)(end - i));
                int64_t qi = qp ? (int64_t)(qp - p) : end;
                if (tok_bytes(t, p + i, (size_t)(qi - i), err, errlen) < 0) return -1;
                i = qi;
                if (i >= end)
                    return errmsg(err, errlen, "EOF inside string starting at row %lld",
                                  (long long)t->rec_line);
                if (i + 1 < end && (unsigned char)p[i + 1] == qc) {
                    if (tok_bytes(t, p + i, 1, err, errlen) < 0) return -1;
                    i += 2;
                    continue;
                }
                i++;
                break;
            }
        }
        int64_t u = i;
        /* a comment character right after a closing quote is the field's
         * (pandas' QUOTE_IN_QUOTED_FIELD appends it) */
        if (quoted && u < end && (unsigned char)p[u] == cm) u++;
        const uint8_t *stop = t->stop;
        while (u < end && !stop[(unsigned char)p[u]])
            u++;
        if (tok_bytes(t, p + i, (size_t)(u - i), err, errlen) < 0) return -1;
        i = u;
        t->fb[t->fblen++] = '\0'; /* tok_bytes reserved the byte */
        if (t->nf < t->maxstore) {
            size_t k = (size_t)t->nf;
            if (grow((void **)&t->fo, &t->focap, k + 1, sizeof(size_t)) < 0 ||
                grow((void **)&t->fl, &t->flcap, k + 1, sizeof(size_t)) < 0)
                return errmsg(err, errlen, "out of memory for %d fields", t->nf + 1);
            t->fo[k] = fstart;
            t->fl[k] = t->fblen - 1 - fstart;
        } else {
            t->fblen = fstart; /* not kept: only counted */
        }
        if (t->nf == INT_MAX)
            return errmsg(err, errlen, "line %lld: more than %d fields", (long long)t->rec_line + 1,
                          INT_MAX);
        t->nf++;
        if (i >= end) break;
        char c = p[i++];
        if (c == sep && !ws) continue;
        if (ws && (c == ' ' || c == '\t')) {
            /* a run of whitespace: one separator, or none before the line
             * end or a comment (pandas' EAT_WHITESPACE state) */
            while (i < end && (p[i] == ' ' || p[i] == '\t'))
                i++;
            if (i >= end) break;
            if (p[i] != '\n' && p[i] != '\r' && (unsigned char)p[i] != cm) continue;
            c = p[i++];
        }
        if ((unsigned char)c == cm) { /* the rest of the line is a comment */
            i = past_line(p, i, end);
            break;
        }
        if (c == '\r' && i < end && p[i] == '\n') i++;
        break;
    }
    t->line++;
    t->pos = i;
    return 1;
}

/* The next record not on a skipped line nor bad (1), none (0), or -1. */
static int tok_next(tok_t *t, char *err, size_t errlen)
{
    for (;;) {
        int rc = tok_record(t, err, errlen);
        if (rc == 1 && t->bad_most && t->nf > t->bad_most) continue;
        if (rc != 1 || t->skip_at >= t->nskip) return rc;
        while (t->skip_at < t->nskip && t->skip[t->skip_at] < t->rec_line)
            t->skip_at++;
        if (t->skip_at >= t->nskip || t->skip[t->skip_at] != t->rec_line) return 1;
    }
}

/* The most fields a data record may have. */
static int most_fields(const csv_header_t *h)
{
    return h->max_fields ? h->max_fields : h->ncols;
}

/* A tokenizer of data records: with on_bad_lines "skip" (and no usecols,
 * which takes longer records) it passes over those ragged() refuses. */
static void tok_data(tok_t *t, const csv_header_t *h)
{
    t->bad_most = h->skip_bad && !h->usecols ? most_fields(h) : 0;
}

/* ---------------------------------------------------------------------------
 * Files. */

int csv_file_open(csv_file_t *f, const char *path, char *err, size_t errlen)
{
    f->buf = NULL;
    f->len = 0;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return errmsg(err, errlen, "%s: %s", path, strerror(errno));
    struct stat st;
    int rc = -1;
    if (fstat(fd, &st) < 0) {
        errmsg(err, errlen, "%s: %s", path, strerror(errno));
        goto close_fd;
    }
    if (!S_ISREG(st.st_mode)) {
        errmsg(err, errlen, "%s: not a regular file", path);
        goto close_fd;
    }
    if (st.st_size > 0) {
        void *m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
        if (m == MAP_FAILED) {
            errmsg(err, errlen, "%s: mmap of %lld bytes: %s", path, (long long)st.st_size,
                   strerror(errno));
            goto close_fd;
        }
        f->buf = m;
        f->len = (size_t)st.st_size;
    }
    rc = 0;
close_fd:
    close(fd);
    return rc;
}

void csv_file_close(csv_file_t *f)
{
    if (f->buf) munmap((void *)f->buf, f->len);
    f->buf = NULL;
    f->len = 0;
}

/* ---------------------------------------------------------------------------
 * Header. Duplicate names are mangled as pandas 1.5's _get_header does:
 * named columns first, then the unnamed ones, each duplicate becoming
 * "name.k" with the first k that is neither in the header nor taken. A
 * hash table keyed by name holds pandas' `counts`, how often the name
 * appears in the header being rewritten, and whether it is an unnamed one. */
typedef struct {
    char *key;
    int count;
    int inhdr;
    bool unnamed;
} hent_t;

typedef struct {
    hent_t *e;
    size_t cap; /* a power of two, at least twice the entries ever added */
} htab_t;

static uint64_t hash_str(const char *s)
{
    uint64_t h = 1469598103934665603ull;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

/* The entry of key, created (a copy of key, zeroed) when absent; NULL when
 * out of memory. */
static hent_t *hget(htab_t *t, const char *key)
{
    size_t m = t->cap - 1;
    for (size_t i = (size_t)hash_str(key) & m;; i = (i + 1) & m) {
        if (!t->e[i].key) {
            t->e[i].key = strdup(key);
            return t->e[i].key ? &t->e[i] : NULL;
        }
        if (strcmp(t->e[i].key, key) == 0) return &t->e[i];
    }
}

static hent_t *hfind(htab_t *t, const char *key)
{
    size_t m = t->cap - 1;
    for (size_t i = (size_t)hash_str(key) & m;; i = (i + 1) & m) {
        if (!t->e[i].key) return NULL;
        if (strcmp(t->e[i].key, key) == 0) return &t->e[i];
    }
}

static int mangle(char **names, int n, const bool *was_empty, char *err, size_t errlen)
{
    int rc = -1;
    htab_t t = {0};
    int *order = NULL;
    /* Entries: the n names, plus at most one new name per rename (the
     * probes of the rename loop insert nothing); 4n slots keep the table at
     * most half full, so it never grows and entries never move. */
    size_t cap = 16;
    while (cap < (size_t)n * 4 + 16)
        cap *= 2;
    t.cap = cap;
    t.e = calloc(cap, sizeof *t.e);
    order = malloc((size_t)n * sizeof *order + 1);
    if (!t.e || !order) {
        errmsg(err, errlen, "out of memory for a header of %d columns", n);
        goto free_all;
    }
    for (int i = 0; i < n; i++) {
        hent_t *e = hget(&t, names[i]);
        if (!e) goto oom;
        e->inhdr++;
        if (was_empty[i]) e->unnamed = true;
    }
    int no = 0;
    for (int pass = 0; pass < 2; pass++)
        for (int i = 0; i < n; i++)
            if (hfind(&t, names[i])->unnamed == (pass == 1)) order[no++] = i;
    for (int oi = 0; oi < n; oi++) {
        int i = order[oi];
        char *col = names[i];
        hent_t *oe = hfind(&t, col);
        int cur = oe->count;
        if (cur > 0) {
            char *nc = NULL;
            while (cur > 0) {
                oe->count = cur + 1;
                free(nc);
                size_t need = strlen(col) + 24; /* ".%d" of an int: at most 12 bytes */
                nc = malloc(need);
                if (!nc) goto oom;
                snprintf(nc, need, "%s.%d", col, cur);
                hent_t *ne = hfind(&t, nc);
                if (ne && ne->inhdr > 0)
                    cur++;
                else
                    cur = ne ? ne->count : 0;
            }
            hent_t *ne = hget(&t, nc);
            if (!ne) {
                free(nc);
                goto oom;
            }
            oe->inhdr--; /* entries never move: oe is still col's */
            ne->inhdr++;
            free(names[i]);
            names[i] = nc;
            oe = ne;
        }
        oe->count = cur + 1;
    }
    rc = 0;
    goto free_all;
oom:
    errmsg(err, errlen, "out of memory mangling a header of %d columns", n);
free_all:
    if (t.e)
        for (size_t i = 0; i < t.cap; i++)
            free(t.e[i].key);
    free(t.e);
    free(order);
    return rc;
}

void csv_header_close(csv_header_t *h)
{
    if (h->names)
        for (int i = 0; i < h->ncols; i++)
            free(h->names[i]);
    free(h->names);
    free(h->sel);
    for (int i = 0; i < h->nna; i++)
        free(h->na[i]);
    free(h->na);
    free(h->na_col);
    free(h->na_len);
    free(h->naf);
    free(h->naf_col);
    free(h->fpath);
    free(h->na_text);
    free(h->skip);
    for (int i = 0; i < h->nbools; i++)
        free(h->bools[i]);
    free(h->bools);
    free(h->bool_len);
    free(h->bool_val);
    memset(h, 0, sizeof *h);
}

/* Python's repr of a str, near enough for messages: 'x'. */
static void append_fmt(char *buf, size_t len, size_t *off, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void append_fmt(char *buf, size_t len, size_t *off, const char *fmt, ...)
{
    if (*off >= len) return;
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(buf + *off, len - *off, fmt, ap);
    va_end(ap);
    if (k > 0) *off += (size_t)k;
}

int csv_sep_parse(const char *s, char *sep, char *err, size_t errlen)
{
    unsigned char c = (unsigned char)s[0];
    if (!strcmp(s, "\\s+")) {
        *sep = CSV_SEP_WS; /* pandas' C parser reads "\s+" as delim_whitespace */
        return 0;
    }
    if (!c) return errmsg(err, errlen, "sep is empty: the separator is one character");
    if (c >= 0x80)
        return errmsg(err, errlen,
                      "sep '%.40s': the separator is a tab or a printable ASCII character", s);
    if (s[1])
        return errmsg(err, errlen,
                      "sep '%.40s' has several characters: the separator is one character "
                      "(pandas' C parser; regular expressions are not supported)",
                      s);
    if (c == '"') return errmsg(err, errlen, "sep '\"' is the quote character");
    if (c != '\t' && (c < 0x20 || c > 0x7e))
        return errmsg(err, errlen,
                      "sep 0x%02x: the separator is a tab or a printable ASCII character", c);
    *sep = (char)c;
    return 0;
}

int csv_decimal_parse(const char *s, char *dec, char *err, size_t errlen)
{
    unsigned char c = (unsigned char)s[0];
    if (!c || s[1]) return errmsg(err, errlen, "Only length-1 decimal markers supported");
    if (c <= 0x20 || c > 0x7e || c == '"' || dig((char)c) || strchr("+-eE", c))
        return errmsg(err, errlen,
                      "decimal '%c' cannot be a decimal point: a digit, a sign, 'e', the quote, "
                      "a space or a control character",
                      c > 0x20 && c <= 0x7e ? c : '?');
    *dec = (char)c;
    return 0;
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Whether usecols (n entries; positions in decimal with pos) names every
 * one of names[0..nnames): 1, 0, or -1 out of memory. */
static int usecols_cover(const char *const *usecols, int n, bool pos, const char *const *names,
                         int nnames)
{
    if (pos) {
        uint8_t *seen = calloc((size_t)nnames + 1, 1);
        if (!seen) return -1;
        int got = 0;
        for (int i = 0; i < n; i++) {
            char *end;
            long v = strtol(usecols[i], &end, 10);
            if (!*end && v >= 0 && v < nnames && !seen[v]) seen[v] = 1, got++;
        }
        free(seen);
        return got == nnames;
    }
    const char **s = malloc(sizeof(char *) * ((size_t)n + 1));
    if (!s) return -1;
    memcpy(s, usecols, sizeof(char *) * (size_t)n);
    qsort(s, (size_t)n, sizeof(char *), cmp_str);
    int all = 1;
    for (int k = 0; k < nnames && all; k++)
        all = bsearch(&names[k], s, (size_t)n, sizeof(char *), cmp_str) != NULL;
    free(s);
    return all;
}

/* The column a usecols entry u names by its position written in decimal
 * (as "%d" writes it), or -1 */
static int use_pos(const char *u, int ncols)
{
    char *end, nb[32];
    long v = strtol(u, &end, 10);
    if (end == u || *end || v < 0 || v >= ncols) return -1;
    snprintf(nb, sizeof nb, "%ld", v);
    return strcmp(nb, u) == 0 ? (int)v : -1;
}

/* a header name and its column, sorted by name to find usecols' names */
typedef struct {
    const char *s;
    int i;
} name_at_t;

static int cmp_name_at(const void *a, const void *b)
{
    const name_at_t *x = a, *y = b;
    int c = strcmp(x->s, y->s);
    return c ? c : (x->i > y->i) - (x->i < y->i);
}

/* Marks in want[] the columns usecols entry u names (by name: every
 * column of that name, found in the sorted names srt; with pos by
 * position); whether it names any. */
static bool use_mark(const name_at_t *srt, int ncols, const char *u, bool pos, uint8_t *want)
{
    if (pos) {
        int i = use_pos(u, ncols);
        if (i >= 0) want[i] = 1;
        return i >= 0;
    }
    size_t lo = 0, hi = (size_t)ncols;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (strcmp(srt[mid].s, u) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    bool found = false;
    for (size_t q = lo; q < (size_t)ncols && strcmp(srt[q].s, u) == 0; q++)
        want[srt[q].i] = 1, found = true;
    return found;
}

int csv_comment_parse(const char *s, char sep, char *cmt, char *err, size_t errlen)
{
    unsigned char c = (unsigned char)s[0];
    if (!c || s[1]) return errmsg(err, errlen, "Only length-1 comment characters supported");
    if (c == '"' || c < 0x20 || c > 0x7e)
        return errmsg(err, errlen,
                      "comment 0x%02x cannot start a comment: the quote, a line end, a control or "
                      "a non-ASCII character",
                      c);
    if (c == (unsigned char)sep || (sep == CSV_SEP_WS && c == ' '))
        return errmsg(err, errlen, "comment '%c' is the separator too", c);
    *cmt = (char)c;
    return 0;
}

int csv_quotechar_parse(const char *s, char *q, char *err, size_t errlen)
{
    unsigned char c = (unsigned char)s[0];
    if (!c || s[1]) return errmsg(err, errlen, "\"quotechar\" must be a 1-character string");
    if (c != '\t' && (c < 0x20 || c > 0x7e))
        return errmsg(err, errlen,
                      "quotechar 0x%02x: the quote is a tab or a printable ASCII character", c);
    *q = (char)c;
    return 0;
}

int csv_thousands_parse(const char *s, char *tsep, char *err, size_t errlen)
{
    unsigned char c = (unsigned char)s[0];
    if (!c || s[1]) return errmsg(err, errlen, "Only length-1 thousands markers supported");
    if (dig((char)c) || c == '"' || c == '\n' || c == '\r' || (c < 0x20 && c != '\t') || c > 0x7e)
        return errmsg(err, errlen,
                      "thousands 0x%02x cannot separate thousands: a digit, the quote, a line end "
                      "or a control character",
                      c);
    *tsep = (char)c;
    return 0;
}

int csv_header_parse(const char *buf, size_t len, const csv_opts_t *o, const char *const *usecols,
                     int n_usecols, csv_header_t *h, char *err, size_t errlen)
{
    bool pos = o && o->usecols_pos;
    memset(h, 0, sizeof *h);
    bool ws = o && o->sep == CSV_SEP_WS;
    char chk[4] = {o && !ws ? o->sep : ',', 0}, dchk[2] = {o ? o->decimal : '.', 0};
    if (ws) memcpy(chk, "\\s+", 4);
    if (csv_sep_parse(chk, &h->sep, err, errlen) < 0 ||
        csv_decimal_parse(dchk, &h->decimal, err, errlen) < 0)
        return -1;
    if (o && o->thousands) {
        char tchk[2] = {o->thousands, 0};
        if (csv_thousands_parse(tchk, &h->thousands, err, errlen) < 0) return -1;
    }
    if (o && o->comment) {
        char cchk[2] = {o->comment, 0};
        if (csv_comment_parse(cchk, o->sep, &h->comment, err, errlen) < 0) return -1;
        if (o->comment == h->decimal || o->comment == h->thousands)
            return errmsg(err, errlen, "comment '%c' is the %s too", o->comment,
                          o->comment == h->decimal ? "decimal point" : "thousands separator");
    }
    /* quotechar: '"' unless another is given or quoting is none */
    h->quote = o && o->quote_none ? 0 : '"';
    if (o && o->quotechar && !o->quote_none) {
        char qchk[2] = {o->quotechar, 0};
        if (csv_quotechar_parse(qchk, &h->quote, err, errlen) < 0) return -1;
    }
    if (h->quote) {
        char q = h->quote;
        const char *what = q == h->sep || (ws && (q == ' ' || q == '\t')) ? "separator"
                           : q == h->decimal                              ? "decimal point"
                           : q == h->thousands                            ? "thousands separator"
                           : q == h->comment                              ? "comment"
                                                                          : NULL;
        if (what) return errmsg(err, errlen, "quotechar '%c' is the %s too", q, what);
    }
    /* skipinitialspace: pandas' tokenizer ignores it beside "\s+"; a space
     * that quotes or comments would be both skipped and read */
    h->skipsp = o && o->skipinitialspace && !ws;
    h->skip_bad = o && o->skip_bad_lines;
    h->keep_blank = o && o->keep_blank_lines;
    if (h->skipsp && (h->quote == ' ' || h->comment == ' '))
        return errmsg(err, errlen,
                      "skipinitialspace with the %s ' ': spaces that start a field "
                      "are skipped",
                      h->quote == ' ' ? "quotechar" : "comment");
    /* sep may equal decimal, as pandas allows: a quoted "1,5" is 1.5 */
    h->encoding = o ? o->encoding : CSV_ENC_UTF8;
    if (len > (size_t)INT64_MAX) return errmsg(err, errlen, "input of %zu bytes is too long", len);
    if (n_usecols < 0) return errmsg(err, errlen, "usecols: negative count %d", n_usecols);
    tok_t t;
    /* Keep one field more than the limit so that a longer header is seen. */
    /* a UTF-8 byte-order mark is no part of the first name (pandas drops it) */
    int64_t bom =
        h->encoding == CSV_ENC_UTF8 && len >= 3 && !memcmp(buf, "\xef\xbb\xbf", 3) ? 3 : 0;
    /* skiprows: that many lines of the file (line ends \n, \r\n or \r)
     * are passed over before anything is read, as pandas' skiprows=k */
    int64_t skip = o && o->skiprows > 0 ? o->skiprows : 0, line0 = 0;
    /* skiprows as a list: sorted, repeats and negative lines dropped */
    if (o && o->nskip > 0) {
        if (o->nskip > CSV_MAX_SKIP_LINES)
            return errmsg(err, errlen, "skiprows: %lld line numbers, more than the %d allowed",
                          (long long)o->nskip, CSV_MAX_SKIP_LINES);
        h->skip = malloc(sizeof(int64_t) * (size_t)o->nskip);
        if (!h->skip) return errmsg(err, errlen, "out of memory for skiprows");
        for (int64_t i = 0; i < o->nskip; i++)
            if (o->skip_lines[i] >= 0) h->skip[h->nskip++] = o->skip_lines[i];
        qsort(h->skip, (size_t)h->nskip, sizeof(int64_t), cmp_i64);
        int64_t u = 0;
        for (int64_t i = 0; i < h->nskip; i++)
            if (u == 0 || h->skip[u - 1] != h->skip[i]) h->skip[u++] = h->skip[i];
        h->nskip = u;
    }
    for (; line0 < skip && bom < (int64_t)len; line0++) {
        const char *nl = memchr(buf + bom, '\n', len - (size_t)bom);
        const char *cr = memchr(buf + bom, '\r', (nl ? (size_t)(nl - buf) : len) - (size_t)bom);
        if (cr)
            bom = cr - buf + 1 + (cr + 1 < buf + len && cr[1] == '\n');
        else
            bom = nl ? nl - buf + 1 : (int64_t)len;
    }
    tok_init(&t, buf, bom, (int64_t)len, line0, CSV_MAX_COLS + 1, h);
    bool *was_empty = NULL;
    /* header None: no record names the columns (all are data); names:
     * the columns' names, in place of the header record's when there is
     * one. Without either the first record is read for its field count. */
    bool has_header = !o || o->header >= 0;
    int nnames = o && o->names ? o->nnames : 0;
    if (nnames < 0 || nnames > CSV_MAX_COLS) {
        errmsg(err, errlen, "names has %d names, more than the %d allowed", nnames, CSV_MAX_COLS);
        goto fail_tok;
    }
    if (nnames > 1) { /* duplicates: sorted, so neighbours (n log n for a million names) */
        const char **sorted = malloc(sizeof(char *) * (size_t)nnames);
        if (!sorted) goto oom;
        memcpy(sorted, o->names, sizeof(char *) * (size_t)nnames);
        qsort(sorted, (size_t)nnames, sizeof(char *), cmp_str);
        bool dup = false;
        for (int i = 1; i < nnames && !dup; i++)
            dup = !strcmp(sorted[i - 1], sorted[i]);
        free(sorted);
        if (dup) {
            errmsg(err, errlen, "Duplicate names are not allowed.");
            goto fail_tok;
        }
    }
    /* pandas' header=k: the k records before the header are passed over
     * (blank and comment lines are no records) */
    int hrow = o && o->header > 0 ? o->header : 0;
    for (int k = 0; k < hrow; k++) {
        int rc = tok_next(&t, err, errlen);
        if (rc < 0) goto fail_tok;
        if (rc == 0) {
            errmsg(err, errlen, "Passed header=%d but only %d lines in file", hrow, k);
            goto fail_tok;
        }
    }
    if (has_header || nnames == 0) {
        int rc = tok_next(&t, err, errlen);
        if (rc < 0) goto fail_tok;
        if (rc == 0 && hrow > 0) {
            errmsg(err, errlen, "Passed header=%d but only %d lines in file", hrow, hrow);
            goto fail_tok;
        }
        if ((rc == 0 || (h->keep_blank && t.nf == 0)) && nnames == 0) {
            errmsg(err, errlen,
                   rc ? "No columns to parse from file: line %lld, where the header is, is blank "
                        "(skip_blank_lines=False)"
                      : "No columns to parse from file",
                   (long long)t.rec_line + 1);
            goto fail_tok;
        }
        if (t.nf > CSV_MAX_COLS) {
            errmsg(err, errlen, "header has %d fields, more than the %d allowed", t.nf,
                   CSV_MAX_COLS);
            goto fail_tok;
        }
    }
    h->ncols = nnames ? nnames : t.nf;
    h->int_names = !has_header && nnames == 0;
    /* pandas' implicit index: where the columns are named (a header or
     * names) and the first data record has one field more, that first
     * field of every record is the index (column 0 here, named ""), the
     * names the columns after it. With names over a header line, pandas
     * counts that line's fields too: the more of the two decides. */
    int first_nf = -1; /* the first data record's fields and line (-1: none read) */
    int64_t first_line = 0;
    if (!h->int_names && h->ncols < CSV_MAX_COLS && !(o && o->nrows_set && o->nrows == 0)) {
        tok_t p1; /* (nrows 0: pandas reads no data line, so finds no index) */
        tok_init(&p1, buf, has_header ? t.pos : bom, (int64_t)len, has_header ? t.line : line0, 0,
                 h);
        char perr[8];
        if (tok_next(&p1, perr, sizeof perr) == 1) {
            first_nf = p1.nf;
            first_line = p1.rec_line;
            int nf = nnames && has_header && t.nf > p1.nf ? t.nf : p1.nf;
            bool noix = o && o->no_index_col;
            h->implicit_index = !noix && nf == h->ncols + 1;
            if (nnames && has_header && nf < nnames) h->max_fields = nf;
            if (noix) {
                /* index_col=False: no index of the extra fields; records
                 * may have as many as the first data record, the fields
                 * past the names dropped */
                if (nf > h->ncols) h->max_fields = nf;
            } else if (nnames && n_usecols > 0 && nf > nnames) {
                /* names and usecols: pandas makes no index of the extra
                 * fields; it reads the names' fields by position when
                 * usecols names them all, else it fails */
                h->implicit_index = false;
                int cover = usecols_cover(usecols, n_usecols, pos, o->names, nnames);
                if (cover <= 0) {
                    errmsg(err, errlen,
                           cover < 0 ? "out of memory checking usecols"
                                     : "Number of passed names did not match number of header "
                                       "fields in the file");
                    tok_close(&p1);
                    goto fail_tok;
                }
            } else if (nf > h->ncols + 1 && nf == t.nf) {
                errmsg(err, errlen,
                       "the header line has %d fields, %d names: pandas makes the first %d "
                       "columns a MultiIndex, which read_csv does not (give a name to each field)",
                       t.nf, nnames, t.nf - nnames);
                tok_close(&p1);
                goto fail_tok;
            }
        }
        tok_close(&p1);
    }
    int ix = h->implicit_index;
    h->ncols += ix;
    /* on_bad_lines "skip": pandas never takes the first data line for a
     * bad one (two or more fields past the names make a MultiIndex) */
    if (h->skip_bad && n_usecols <= 0 && first_nf > most_fields(h)) {
        errmsg(err, errlen,
               "Expected %d fields in line %lld, saw %d: the first data line is no bad line to "
               "skip (pandas makes a MultiIndex of its extra fields, which read_csv does not)",
               most_fields(h), (long long)first_line + 1, first_nf);
        goto fail_tok;
    }
    h->names = calloc((size_t)h->ncols + 1, sizeof *h->names);
    was_empty = calloc((size_t)h->ncols + 1, sizeof *was_empty);
    if (!h->names || !was_empty) goto oom;
    for (int i = 0; i < h->ncols; i++) {
        int s = i - ix; /* the name's place among the header's (or names') */
        if (s < 0) {
            h->names[i] = strdup("");
        } else if (nnames || h->int_names) {
            char nb[32];
            snprintf(nb, sizeof nb, "%d", s);
            h->names[i] = strdup(nnames ? o->names[s] : nb);
        } else if (t.fl[s] == 0) {
            char nb[32];
            snprintf(nb, sizeof nb, "Unnamed: %d", s);
            h->names[i] = strdup(nb);
            was_empty[i] = true;
        } else {
            ubuf_t ub = {0}; /* exactly the name's bytes: kept as the name */
            char *u;
            size_t un;
            if (to_utf8(t.fb + t.fo[s], t.fl[s], h->encoding, &ub, &u, &un, err, errlen) < 0) {
                free(ub.p);
                goto fail_tok;
            }
            h->names[i] = u ? u : strdup(t.fb + t.fo[s]);
        }
        if (!h->names[i]) goto oom;
    }
    if (!nnames && !h->int_names && mangle(h->names, h->ncols, was_empty, err, errlen) < 0)
        goto fail_tok;

    h->sel = malloc((size_t)h->ncols * sizeof *h->sel + 1);
    if (!h->sel) goto oom;
    if (n_usecols == 0) {
        for (int i = 0; i < h->ncols; i++)
            h->sel[i] = i;
        h->nsel = h->ncols;
    } else {
        h->usecols = true;
        size_t off = 0;
        int missing = 0;
        /* each entry found by a binary search of the sorted names (or its
         * position), so a wide file and a long usecols cost n log n */
        uint8_t *want = calloc((size_t)h->ncols + 1, 1);
        name_at_t *srt = malloc(sizeof *srt * ((size_t)h->ncols + 1));
        if (!want || !srt) {
            free(want);
            free(srt);
            goto oom;
        }
        if (pos && ix) {
            free(want);
            free(srt);
            errmsg(err, errlen,
                   "usecols by position with an implicit index (a first data line of one field "
                   "more than the header) is not supported: name the columns");
            goto fail_tok;
        }
        /* an implicit index is read whatever usecols names (not by name) */
        for (int i = ix; i < h->ncols; i++)
            srt[i - ix] = (name_at_t){h->names[i], i};
        want[0] |= (uint8_t)ix;
        if (!pos) qsort(srt, (size_t)(h->ncols - ix), sizeof *srt, cmp_name_at);
        for (int u = 0; u < n_usecols; u++) {
            if (!use_mark(srt, h->ncols - ix, usecols[u], pos, want)) {
                if (missing++ == 0)
                    append_fmt(err, errlen, &off,
                               "Usecols do not match columns, columns expected but not found: [");
                else
                    append_fmt(err, errlen, &off, ", ");
                append_fmt(err, errlen, &off, pos ? "%s" : "'%s'", usecols[u]);
            }
        }
        if (missing && pos) { /* pandas lists every position then */
            off = 0;
            append_fmt(err, errlen, &off,
                       "Usecols do not match columns, columns expected but not found: [");
            for (int u = 0; u < n_usecols; u++)
                append_fmt(err, errlen, &off, "%s%s", u ? ", " : "", usecols[u]);
        }
        free(srt);
        if (missing) {
            free(want);
            append_fmt(err, errlen, &off, "]");
            goto fail_tok;
        }
        /* file order, as pandas: the order of usecols does not matter */
        for (int i = 0; i < h->ncols; i++)
            if (want[i]) h->sel[h->nsel++] = i;
        free(want);
    }
    h->data_start = has_header ? t.pos : bom;
    h->data_line = has_header ? t.line : line0;
    /* na_values: each for every column (with the spellings pandas adds),
     * or for the column it names (a name of no column is ignored, as
     * pandas ignores it), and the numbers among them */
    h->no_default_na = o && o->no_default_na;
    int nna = o && o->na_values ? o->nna : 0;
    if (nna > CSV_MAX_NA_VALUES) {
        errmsg(err, errlen, "na_values: %d values, more than the %d allowed", nna,
               CSV_MAX_NA_VALUES);
        goto fail_tok;
    }
    if (nna > 0) {
        h->na = calloc((size_t)nna * 3, sizeof *h->na);
        h->na_col = calloc((size_t)nna * 3, sizeof *h->na_col);
        h->na_len = calloc((size_t)nna * 3, sizeof *h->na_len);
        h->naf = calloc((size_t)nna, sizeof *h->naf);
        h->naf_col = calloc((size_t)nna, sizeof *h->naf_col);
        if (!h->na || !h->na_col || !h->na_len || !h->naf || !h->naf_col) goto oom;
        for (int i = 0; i < nna; i++) {
            int col = -1;
            const char *cn = o->na_cols ? o->na_cols[i] : NULL;
            if (cn) {
                col = h->ncols;
                for (int c = 0; c < h->ncols && col == h->ncols; c++)
                    if (!strcmp(h->names[c], cn)) col = c;
                if (col == h->ncols) continue;
            }
            char sp[2][340];
            /* pandas adds spellings to a list's values, not to a dict's */
            int nsp = cn ? 0 : na_spellings(o->na_values[i], sp);
            /* compared with the file's bytes: in its encoding */
            if (!(h->na[h->nna] = strdup(o->na_values[i]))) goto oom;
            if (h->encoding != CSV_ENC_UTF8 &&
                !from_utf8(o->na_values[i], h->encoding, h->na[h->nna])) {
                free(h->na[h->nna]);
                continue;
            }
            h->na_col[h->nna++] = col;
            for (int q = 0; q < nsp; q++) {
                if (!(h->na[h->nna] = strdup(sp[q]))) goto oom;
                h->na_col[h->nna++] = col;
            }
            if (na_float(o->na_values[i], &h->naf[h->nnaf])) h->naf_col[h->nnaf++] = col;
        }
        for (int i = 0; i < h->nna; i++)
            h->na_len[i] = strlen(h->na[i]);
    }
    /* true_values then false_values: a value in both is true, as pandas */
    int nt = o ? o->ntrue : 0, nfv = o ? o->nfalse : 0;
    if (nt < 0 || nfv < 0 || nt > CSV_MAX_BOOL_VALUES - nfv) {
        errmsg(err, errlen, "true_values and false_values: %d values, more than the %d allowed",
               nt + nfv, CSV_MAX_BOOL_VALUES);
        goto fail_tok;
    }
    if (nt + nfv > 0) {
        h->bools = calloc((size_t)(nt + nfv), sizeof *h->bools);
        h->bool_len = calloc((size_t)(nt + nfv), sizeof *h->bool_len);
        h->bool_val = calloc((size_t)(nt + nfv), 1);
        if (!h->bools || !h->bool_len || !h->bool_val) goto oom;
        for (int i = 0; i < nt + nfv; i++) {
            const char *v = i < nt ? o->true_values[i] : o->false_values[i - nt];
            /* compared with the file's bytes: in its encoding */
            if (!(h->bools[h->nbools] = strdup(v))) goto oom;
            if (h->encoding != CSV_ENC_UTF8 && !from_utf8(v, h->encoding, h->bools[h->nbools])) {
                free(h->bools[h->nbools]);
                h->bools[h->nbools] = NULL;
                continue;
            }
            h->bool_len[h->nbools] = strlen(h->bools[h->nbools]);
            h->bool_val[h->nbools++] = i < nt;
        }
    }
    free(was_empty);
    tok_close(&t);
    return 0;
oom:
    errmsg(err, errlen, "out of memory reading a header of %d fields", h->ncols);
fail_tok:
    free(was_empty);
    tok_close(&t);
    csv_header_close(h);
    return -1;
}

/* ---------------------------------------------------------------------------
 * Split. */

enum { C_OTHER, C_QUOTE, C_COMMA, C_LF, C_CR, C_CMT, C_SPACE, C_N };

/* C_CMT, pandas' comment character: outside quotes the rest of the line
 * is a comment (CMT), whose quotes are plain bytes; right after a closing
 * quote it is a plain byte of the field, as in pandas' parser */
/* C_SPACE, a space with skipinitialspace: at a field's start it keeps the
 * field at its start (FLD), elsewhere an ordinary byte */
static const uint8_t trans[CSV_NSTATES][C_N] = {
    [CSV_S_REC] = {CSV_S_UNQ, CSV_S_QUO, CSV_S_FLD, CSV_S_REC, CSV_S_CR, CSV_S_CMT, CSV_S_FLD},
    [CSV_S_FLD] = {CSV_S_UNQ, CSV_S_QUO, CSV_S_FLD, CSV_S_REC, CSV_S_CR, CSV_S_CMT, CSV_S_FLD},
    [CSV_S_UNQ] = {CSV_S_UNQ, CSV_S_UNQ, CSV_S_FLD, CSV_S_REC, CSV_S_CR, CSV_S_CMT, CSV_S_UNQ},
    [CSV_S_QUO] = {CSV_S_QUO, CSV_S_QQ, CSV_S_QUO, CSV_S_QUO, CSV_S_QUO, CSV_S_QUO, CSV_S_QUO},
    [CSV_S_QQ] = {CSV_S_UNQ, CSV_S_QUO, CSV_S_FLD, CSV_S_REC, CSV_S_CR, CSV_S_UNQ, CSV_S_UNQ},
    [CSV_S_CR] = {CSV_S_UNQ, CSV_S_QUO, CSV_S_FLD, CSV_S_REC, CSV_S_CR, CSV_S_CMT, CSV_S_FLD},
    [CSV_S_CMT] = {CSV_S_CMT, CSV_S_CMT, CSV_S_CMT, CSV_S_REC, CSV_S_CR, CSV_S_CMT, CSV_S_CMT},
};
/* A line end outside quotes counts one line, except the '\n' of "\r\n". */
static const uint8_t line_inc[CSV_NSTATES][C_N] = {
    [CSV_S_REC] = {0, 0, 0, 1, 1, 0, 0}, [CSV_S_FLD] = {0, 0, 0, 1, 1, 0, 0},
    [CSV_S_UNQ] = {0, 0, 0, 1, 1, 0, 0}, [CSV_S_QUO] = {0, 0, 0, 0, 0, 0, 0},
    [CSV_S_QQ] = {0, 0, 0, 1, 1, 0, 0},  [CSV_S_CR] = {0, 0, 0, 0, 1, 0, 0},
    [CSV_S_CMT] = {0, 0, 0, 1, 1, 0, 0},
};

/* The bytes' classes with sep as the separator (C_COMMA), cmt the
 * comment character (C_CMT; 0: none), quote the quote (C_QUOTE; 0:
 * none, quotes are plain bytes) and, with skipsp, ' ' a space a field's
 * start skips (C_SPACE, unless it is one of those). */
static void byte_classes(uint8_t cls[256], char sep, char cmt, char quote, bool skipsp)
{
    memset(cls, C_OTHER, 256);
    if (skipsp && sep != CSV_SEP_WS) cls[' '] = C_SPACE;
    if (cmt) cls[(unsigned char)cmt] = C_CMT;
    if (sep == CSV_SEP_WS) /* quotes open after them; the sentinel byte is no separator */
        cls[' '] = cls['\t'] = C_COMMA;
    else
        cls[(unsigned char)sep] = C_COMMA;
    if (quote) cls[(unsigned char)quote] = C_QUOTE;
    cls['\n'] = C_LF;
    cls['\r'] = C_CR;
}

/* Seven runs of the DFA, one per start state. Two runs that reach the same
 * state go on together, so they merge (the line counts they gathered apart
 * stay as offsets) and the loop steps once per distinct run: after the
 * first line end outside quotes that is at most two, inside a quote or not.
 * After an ordinary byte every run is in UNQ, QUO or CMT, which ordinary
 * bytes do not change, so runs of them are skipped. */
void csv_scan_block(const char *p, size_t n, char sep, char cmt, char quote, bool skipsp,
                    csv_block_t *out)
{
    uint8_t byte_cls[256];
    byte_classes(byte_cls, sep, cmt, quote, skipsp);
    uint8_t cur[CSV_NSTATES];
    int64_t ln[CSV_NSTATES], off[CSV_NSTATES];
    int run_of[CSV_NSTATES];
    int m = CSV_NSTATES;
    for (int s = 0; s < CSV_NSTATES; s++) {
        cur[s] = (uint8_t)s;
        ln[s] = off[s] = 0;
        run_of[s] = s;
    }
    size_t i = 0;
    while (i < n) {
        int c = byte_cls[(unsigned char)p[i++]];
        for (int j = 0; j < m; j++) {
            ln[j] += line_inc[cur[j]][c];
            cur[j] = trans[cur[j]][c];
        }
        if (c == C_OTHER)
            while (i < n && byte_cls[(unsigned char)p[i]] == C_OTHER)
                i++;
        for (int j = m - 1; j > 0; j--) {
            int t = 0;
            while (t < j && cur[t] != cur[j])
                t++;
            if (t == j) continue;
            /* run j joins run t; the last run moves into slot j */
            for (int s = 0; s < CSV_NSTATES; s++) {
                if (run_of[s] == j) {
                    run_of[s] = t;
                    off[s] += ln[j] - ln[t];
                } else if (run_of[s] == m - 1) {
                    run_of[s] = j;
                }
            }
            cur[j] = cur[m - 1];
            ln[j] = ln[m - 1];
            m--;
        }
    }
    for (int s = 0; s < CSV_NSTATES; s++) {
        out->exit[s] = cur[run_of[s]];
        out->lines[s] = ln[run_of[s]] + off[s];
    }
}

/* Whether a record starts at q, the DFA being in state st before buf[q]. */
static bool at_boundary(const char *buf, int64_t len, int64_t q, int st)
{
    return st == CSV_S_REC || (st == CSV_S_CR && (q >= len || buf[q] != '\n'));
}

int64_t csv_find_boundary(const char *buf, size_t len, char sep, char cmt, char quote, bool skipsp,
                          int64_t pos, int state, int64_t *line)
{
    uint8_t byte_cls[256];
    byte_classes(byte_cls, sep, cmt, quote, skipsp);
    int64_t q = pos, L = (int64_t)len, ln = *line;
    int s = state;
    while (q < L && !at_boundary(buf, L, q, s)) {
        int c = byte_cls[(unsigned char)buf[q]];
        ln += line_inc[s][c];
        s = trans[s][c];
        q++;
    }
    *line = ln;
    return q;
}

int64_t csv_rows_end(const char *buf, size_t len, const csv_header_t *h, int64_t nrows, char *err,
                     size_t errlen)
{
    tok_t t;
    tok_init(&t, buf, h->data_start, (int64_t)len, h->data_line, 0, h);
    tok_data(&t, h);
    int rc = 1;
    for (int64_t r = 0; r < nrows && (rc = tok_next(&t, err, errlen)) == 1; r++) {
    }
    int64_t end = rc < 0 ? -1 : t.pos;
    tok_close(&t);
    return end;
}

int64_t csv_footer_end(const char *buf, size_t len, const csv_header_t *h, int64_t nfoot)
{
    int64_t L = (int64_t)len, s0 = h->data_start;
    if (nfoot <= 0 || s0 >= L) return L;
    uint8_t byte_cls[256];
    byte_classes(byte_cls, h->sep, h->comment, h->quote, h->skipsp);
    csv_block_t blk;
    csv_scan_block(buf + s0, (size_t)(L - s0), h->sep, h->comment, h->quote, h->skipsp, &blk);
    int64_t lines = blk.lines[CSV_S_REC] + (buf[L - 1] != '\n' && buf[L - 1] != '\r');
    int64_t keep = lines - nfoot;
    if (keep <= 0) return s0;
    int64_t q = s0, ln = 0;
    int s = CSV_S_REC;
    while (q < L && ln < keep) {
        int c = byte_cls[(unsigned char)buf[q++]];
        ln += line_inc[s][c];
        s = trans[s][c];
    }
    if (q < L && buf[q - 1] == '\r' && buf[q] == '\n') q++; /* the rest of "\r\n" */
    return q;
}

int csv_split(const char *buf, size_t len, const csv_header_t *h, int64_t target, csv_range_t **out,
              int64_t *nout, char *err, size_t errlen)
{
    *out = NULL;
    *nout = 0;
    if (target < 1)
        return errmsg(err, errlen, "chunk_bytes must be >= 1, got %lld", (long long)target);
    if (len > (size_t)INT64_MAX) return errmsg(err, errlen, "input of %zu bytes is too long", len);
    int64_t L = (int64_t)len, d0 = h->data_start;
    if (d0 < 0 || d0 > L)
        return errmsg(err, errlen, "data start %lld outside the input", (long long)d0);
    int64_t body = L - d0;
    int64_t nb = body / target + (body % target != 0);
    if (nb == 0) nb = 1;
    csv_block_t *blk = NULL;
    csv_range_t *r = NULL;
    uint8_t *bst = NULL;
    int64_t *bln = NULL;
    int64_t bytes;
    /* nb blocks of csv_block_t, and a range, a state and a line per block:
     * csv_block_t is the largest of the four, so its check covers them all */
    if (mul_ovf_i64(nb, (int64_t)sizeof *blk, &bytes) || (uint64_t)bytes > SIZE_MAX)
        return errmsg(err, errlen, "%lld chunks: too many", (long long)nb);
    blk = malloc((size_t)bytes);
    r = malloc((size_t)nb * sizeof *r);
    bst = malloc((size_t)nb);
    bln = malloc((size_t)nb * sizeof *bln);
    if (!blk || !r || !bst || !bln) {
        errmsg(err, errlen, "out of memory splitting into %lld chunks", (long long)nb);
        goto free_all;
    }
    /* Phase 1: every block's transfer function; independent per block. */
    for (int64_t b = 0; b < nb; b++) {
        int64_t s = d0 + b * target; /* b * target < body: no overflow */
        int64_t e = body - b * target > target ? s + target : L;
        csv_scan_block(buf + s, (size_t)(e - s), h->sep, h->comment, h->quote, h->skipsp, &blk[b]);
    }
    /* Phase 2: compose from the known state at the data start. */
    int st = CSV_S_REC;
    int64_t line = h->data_line;
    for (int64_t b = 0; b < nb; b++) {
        bst[b] = (uint8_t)st;
        bln[b] = line;
        line += blk[b].lines[st];
        st = blk[b].exit[st];
    }
    /* Phase 3: the first record start at or after each block start. A
     * block whose start lies before the previous chunk's start shares it
     * (no record starts between), which keeps the whole scan linear when a
     * quoted field spans many blocks. */
    int64_t n = 0, prev = -1;
    for (int64_t b = 0; b < nb; b++) {
        int64_t q = d0 + b * target;
        if (b > 0 && q <= prev) continue;
        int64_t ln = bln[b];
        q = csv_find_boundary(buf, len, h->sep, h->comment, h->quote, h->skipsp, q, bst[b], &ln);
        if (b > 0 && (q >= L || q == prev)) continue;
        if (n > 0) r[n - 1].end = q;
        r[n].start = q;
        r[n].end = L;
        r[n].line = ln;
        n++;
        prev = q;
    }
    *out = r;
    *nout = n;
    r = NULL;
free_all:
    free(blk);
    free(r);
    free(bst);
    free(bln);
    return *out ? 0 : -1;
}

/* ---------------------------------------------------------------------------
 * Chunks. */

static int check_range(const csv_header_t *h, const csv_range_t *r, char *err, size_t errlen)
{
    if (r->start < 0 || r->end < r->start)
        return errmsg(err, errlen, "bad range [%lld, %lld)", (long long)r->start,
                      (long long)r->end);
    if (h->nsel < 0 || h->nsel > h->ncols) return errmsg(err, errlen, "bad header");
    return 0;
}

static int ragged(const csv_header_t *h, const tok_t *t, char *err, size_t errlen)
{
    int most = most_fields(h);
    if (!h->usecols && t->nf > most)
        return errmsg(err, errlen, "Expected %d fields in line %lld, saw %d", most,
                      (long long)t->rec_line + 1, t->nf);
    return 0;
}

/* Fields kept per record: up to the last selected column. */
static int keep_fields(const csv_header_t *h)
{
    return h->nsel ? h->sel[h->nsel - 1] + 1 : 0;
}

int csv_infer_range(const char *buf, const csv_header_t *h, const csv_range_t *r, uint32_t *kinds,
                    int64_t *nrows, char *err, size_t errlen)
{
    if (check_range(h, r, err, errlen) < 0) return -1;
    tok_t t;
    tok_init(&t, buf, r->start, r->end, r->line, keep_fields(h), h);
    tok_data(&t, h);
    int rc, ret = -1;
    int64_t rows = 0;
    char none[1] = "";
    const int nsel = h->nsel, *sel = h->sel;
    /* the summaries gather in a buffer of this call's own and reach kinds
     * once at the end: callers give the threads that infer the ranges
     * neighbouring slices of one array, and a write per field there made
     * the threads take one cache line from each other */
    uint32_t local[64], *acc = nsel <= 64 ? local : malloc(sizeof(uint32_t) * (size_t)nsel);
    if (!acc) {
        tok_close(&t);
        return errmsg(err, errlen, "out of memory for %d columns' types", nsel);
    }
    memcpy(acc, kinds, sizeof(uint32_t) * (size_t)nsel);
    while ((rc = tok_next(&t, err, errlen)) == 1) {
        if (ragged(h, &t, err, errlen) < 0) goto close_tok;
        char *fb = t.fb;
        const size_t *fo = t.fo, *fl = t.fl;
        int nf = t.nf;
        for (int k = 0; k < nsel; k++) {
            int f = sel[k];
            /* a missing field is an empty one, as pandas fills it */
            uint32_t v = f < nf ? classify(h, f, fb + fo[f], fl[f]) : classify(h, f, none, 0);
            acc[k] = csv_kinds_merge(acc[k], v);
        }
        rows++;
    }
    if (rc < 0) goto close_tok;
    memcpy(kinds, acc, sizeof(uint32_t) * (size_t)nsel);
    *nrows += rows;
    ret = 0;
close_tok:
    if (acc != local) free(acc);
    tok_close(&t);
    return ret;
}

/* A column being built: capacities beside the csv_column_t arrays. */
typedef struct {
    csv_column_t c;
    size_t cap, vcap, ocap, bcap;
    int64_t blen;
    bool any_na;
    const csv_header_t *h; /* its true_values and false_values */
} colb_t;

static int colb_push_utf8(colb_t *b, char *s, size_t n, char dec, char tsep, bool na,
                          const char *name, int64_t line, char *err, size_t errlen)
{
    csv_column_t *c = &b->c;
    size_t i = (size_t)c->n;
    size_t esz = c->type == CSV_INT64 ? 8 : c->type == CSV_FLOAT64 ? 8 : 1;
    if (c->type != CSV_STRING && grow(&c->data, &b->cap, i + 1, esz) < 0) goto oom;
    if ((c->type == CSV_BOOL || c->type == CSV_STRING) &&
        grow((void **)&c->valid, &b->vcap, i + 1, 1) < 0)
        goto oom;
    switch (c->type) {
    /* Past the first parse, the conversions of a type read_csv's `dtype`
     * asked for (pandas 1.5's): a type inferred from the file never needs
     * them. int64: a bool as 1 or 0, a whole float; float64: a bool;
     * bool: a number equal to 0 or 1. */
    case CSV_INT64: {
        int64_t v = 0;
        double f;
        int bv;
        if (na) goto bad;
        if (parse_i64(s, n, tsep, &v) == PI_OK) {
        } else if ((bv = bool_value(b->h, s, n)) >= 0) {
            v = bv;
        } else if (parse_float(s, n, dec, tsep, &f) == 0 && f == floor(f) && f >= -0x1p63 &&
                   f < 0x1p63) {
            v = (int64_t)f;
        } else {
            goto bad;
        }
        ((int64_t *)c->data)[i] = v;
        break;
    }
    case CSV_FLOAT64: {
        double v = NAN;
        int bv;
        int64_t iv;
        uint64_t uv;
        /* an integer that is no float to xstrtod ("1,,2", runs of thousands
         * separators) in an int column made float64 by its NA values: the
         * float of the integer, as pandas */
        if (!na && parse_float(s, n, dec, tsep, &v) < 0) {
            if (parse_i64(s, n, tsep, &iv) == PI_OK)
                v = (double)iv;
            else if (parse_u64(s, n, tsep, &uv) == PI_OK)
                v = (double)uv;
            else if ((bv = bool_value(b->h, s, n)) < 0)
                goto bad;
            else
                v = bv;
        }
        ((double *)c->data)[i] = v;
        break;
    }
    case CSV_BOOL: {
        int v = na ? 0 : bool_value(b->h, s, n);
        double f;
        if (v < 0 && parse_float(s, n, dec, tsep, &f) == 0 && (f == 0 || f == 1)) v = f == 1;
        if (v < 0) goto bad;
        ((uint8_t *)c->data)[i] = (uint8_t)v;
        c->valid[i] = !na;
        break;
    }
    case CSV_STRING: {
        size_t need_off = i + 2, need_b;
        if (na) n = 0;
        if (grow((void **)&c->offsets, &b->ocap, need_off, sizeof(int64_t)) < 0) goto oom;
        if (__builtin_add_overflow((size_t)b->blen, n + 1, &need_b) ||
            grow((void **)&c->bytes, &b->bcap, need_b, 1) < 0)
            goto oom;
        if (i == 0) c->offsets[0] = 0;
        memcpy(c->bytes + b->blen, s, n);
        b->blen += (int64_t)n;
        c->bytes[b->blen] = '\0';
        c->offsets[i + 1] = b->blen;
        c->valid[i] = !na;
        break;
    }
    }
    if (na) b->any_na = true;
    c->n++;
    return 0;
bad:
    return errmsg(err, errlen, "line %lld, column '%s': '%.*s' does not parse as %s",
                  (long long)line + 1, name, (int)(n > 64 ? 64 : n), s,
                  csv_type_name(c->type, false));
oom:
    return errmsg(err, errlen, "out of memory at row %zu of column '%s'", i, name);
}

/* colb_push of a value of encoding enc: text decoded to UTF-8 first, in
 * the read's buffer ub */
static int colb_push(colb_t *b, char *s, size_t n, char dec, char tsep, int enc, ubuf_t *ub,
                     bool na, const char *name, int64_t line, char *err, size_t errlen)
{
    char *u = NULL, msg[160];
    size_t un = 0;
    if (b->c.type == CSV_STRING && !na && to_utf8(s, n, enc, ub, &u, &un, msg, sizeof msg) < 0)
        return errmsg(err, errlen, "line %lld, column '%s': %s", (long long)line + 1, name, msg);
    return colb_push_utf8(b, u ? u : s, u ? un : n, dec, tsep, na, name, line, err, errlen);
}

static void column_free(csv_column_t *c)
{
    free(c->data);
    free(c->offsets);
    free(c->bytes);
    free(c->valid);
    memset(c, 0, sizeof *c);
}

void csv_frame_close(csv_frame_t *f)
{
    for (int k = 0; k < f->ncols; k++) {
        if (f->cols) column_free(&f->cols[k]);
        if (f->names) free(f->names[k]);
    }
    free(f->cols);
    free(f->names);
    memset(f, 0, sizeof *f);
}

/* Turns builders into columns in a frame with empty-but-valid arrays. */
static int colb_finish(colb_t *b, char *err, size_t errlen)
{
    csv_column_t *c = &b->c;
    if (c->type == CSV_STRING && !c->offsets) {
        c->offsets = calloc(1, sizeof(int64_t));
        c->bytes = calloc(1, 1);
        if (!c->offsets || !c->bytes) return errmsg(err, errlen, "out of memory");
    }
    if (c->type != CSV_STRING && !c->data) {
        c->data = malloc(8);
        if (!c->data) return errmsg(err, errlen, "out of memory");
    }
    if (!b->any_na) {
        free(c->valid);
        c->valid = NULL;
    }
    return 0;
}

static int frame_alloc(const csv_header_t *h, csv_frame_t *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    out->cols = calloc((size_t)h->nsel + 1, sizeof *out->cols);
    out->names = calloc((size_t)h->nsel + 1, sizeof *out->names);
    if (!out->cols || !out->names) goto oom;
    out->ncols = h->nsel;
    for (int k = 0; k < h->nsel; k++)
        if (!(out->names[k] = strdup(h->names[h->sel[k]]))) goto oom;
    return 0;
oom:
    csv_frame_close(out);
    return errmsg(err, errlen, "out of memory for a frame of %d columns", h->nsel);
}

int csv_header_set_kinds(csv_header_t *h, const uint32_t *kinds)
{
    free(h->fpath);
    free(h->na_text);
    h->fpath = h->na_text = NULL;
    for (int k = 0; k < h->nsel; k++) {
        if (!csv_kinds_na_text(kinds[k])) continue;
        if (!h->na_text && !(h->na_text = calloc((size_t)h->nsel + 1, 1))) return -1;
        h->na_text[k] = 1;
    }
    if (h->nnaf == 0) return 0;
    if (!(h->fpath = calloc((size_t)h->nsel + 1, 1))) return -1;
    for (int k = 0; k < h->nsel; k++)
        h->fpath[k] = (kinds[k] & CSV_K_IFAIL_MASK) != 0;
    return 0;
}

/* Whether float v of selected column k (file column col) is one of the
 * numbers of na_values, where pandas matches them by value. */
static bool na_value(const csv_header_t *h, int k, int col, double v)
{
    if (!h->fpath || !h->fpath[k]) return false;
    for (int i = 0; i < h->nnaf; i++)
        if ((h->naf_col[i] < 0 || h->naf_col[i] == col) && h->naf[i] == v) return true;
    return false;
}

int csv_read_range(const char *buf, const csv_header_t *h, const csv_range_t *r,
                   const csv_type_t *types, csv_frame_t *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    if (check_range(h, r, err, errlen) < 0) return -1;
    tok_t t;
    tok_init(&t, buf, r->start, r->end, r->line, keep_fields(h), h);
    tok_data(&t, h);
    colb_t *b = calloc((size_t)h->nsel + 1, sizeof *b);
    ubuf_t ub = {0}; /* every decoded value of the read, one after another */
    int rc, ret = -1;
    if (!b) {
        errmsg(err, errlen, "out of memory for %d columns", h->nsel);
        goto close_tok;
    }
    for (int k = 0; k < h->nsel; k++) {
        b[k].c.type = types[k];
        b[k].h = h;
    }
    int64_t rows = 0;
    while ((rc = tok_next(&t, err, errlen)) == 1) {
        if (ragged(h, &t, err, errlen) < 0) goto free_cols;
        for (int k = 0; k < h->nsel; k++) {
            int f = h->sel[k];
            bool have = f < t.nf;
            char none[1] = "";
            char *s = have ? t.fb + t.fo[f] : none;
            size_t n = have ? t.fl[f] : 0;
            bool na = na_at(h, f, s, n); /* a missing field is an empty one, as pandas fills it */
            if (na && have && h->na_text && h->na_text[k]) na = false; /* its text, as pandas */
            double v;
            if (!na && h->fpath && h->fpath[k] && types[k] == CSV_FLOAT64 &&
                parse_float(s, n, h->decimal, h->thousands, &v) == 0)
                na = na_value(h, k, f, v);
            if (colb_push(&b[k], s, n, h->decimal, h->thousands, h->encoding, &ub, na, h->names[f],
                          t.rec_line, err, errlen) < 0)
                goto free_cols;
        }
        rows++;
    }
    if (rc < 0) goto free_cols;
    for (int k = 0; k < h->nsel; k++) {
        if (colb_finish(&b[k], err, errlen) < 0) goto free_cols;
    }
    if (frame_alloc(h, out, err, errlen) < 0) goto free_cols;
    out->nrows = rows;
    for (int k = 0; k < h->nsel; k++)
        out->cols[k] = b[k].c;
    ret = 0;
    goto free_builders;
free_cols:
    for (int k = 0; k < h->nsel; k++)
        column_free(&b[k].c);
free_builders:
    free(b);
    free(ub.p);
close_tok:
    tok_close(&t);
    return ret;
}

/* Appends n1 rows of s to d, which has n0 (same type). */
static int column_append(csv_column_t *d, const csv_column_t *s, int64_t n0, int64_t n1,
                         const char *name, char *err, size_t errlen)
{
    int64_t nt = n0 + n1; /* checked by the caller */
    if (d->type == CSV_STRING) {
        int64_t b0 = d->offsets[n0], b1 = s->offsets[n1], bt, bb, ob;
        /* offsets: nt + 1 of 8 bytes; bytes: b0 + b1 and the NUL */
        if (add_ovf_i64(b0, b1, &bt) || add_ovf_i64(bt, 1, &bb) || mul_ovf_i64(nt + 1, 8, &ob) ||
            (uint64_t)bb > SIZE_MAX || (uint64_t)ob > SIZE_MAX)
            return errmsg(err, errlen, "column '%s': size overflows", name);
        int64_t *o = realloc(d->offsets, (size_t)ob);
        if (!o) goto oom;
        d->offsets = o;
        char *by = realloc(d->bytes, (size_t)bb);
        if (!by) goto oom;
        d->bytes = by;
        memcpy(by + b0, s->bytes, (size_t)b1 + 1);
        for (int64_t i = 1; i <= n1; i++)
            o[n0 + i] = b0 + s->offsets[i];
    } else {
        int64_t esz = d->type == CSV_BOOL ? 1 : 8, nb;
        /* at least one element: realloc to 0 bytes may free */
        if (mul_ovf_i64(nt ? nt : 1, esz, &nb) || (uint64_t)nb > SIZE_MAX)
            return errmsg(err, errlen, "column '%s': size overflows", name);
        void *p = realloc(d->data, (size_t)nb);
        if (!p) goto oom;
        d->data = p;
        memcpy((char *)p + n0 * esz, s->data, (size_t)(n1 * esz));
    }
    if ((d->valid || s->valid) && nt > 0) {
        uint8_t *v = realloc(d->valid, (size_t)nt);
        if (!v) goto oom;
        if (!d->valid) memset(v, 1, (size_t)n0);
        d->valid = v;
        if (s->valid)
            memcpy(v + n0, s->valid, (size_t)n1);
        else
            memset(v + n0, 1, (size_t)n1);
    }
    d->n = nt;
    return 0;
oom:
    return errmsg(err, errlen, "out of memory appending to column '%s'", name);
}

/* Appends src's rows to dst (same columns and types). */
static int frame_append(csv_frame_t *dst, const csv_frame_t *src, char *err, size_t errlen)
{
    int64_t nt;
    if (add_ovf_i64(dst->nrows, src->nrows, &nt)) return errmsg(err, errlen, "row count overflows");
    for (int k = 0; k < dst->ncols; k++)
        if (column_append(&dst->cols[k], &src->cols[k], dst->nrows, src->nrows, dst->names[k], err,
                          errlen) < 0)
            return -1;
    dst->nrows = nt;
    return 0;
}

int csv_read_buffer(const char *buf, size_t len, const csv_opts_t *o, const char *const *usecols,
                    int n_usecols, int64_t target, csv_frame_t *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    csv_header_t h;
    csv_range_t *r = NULL;
    int64_t nr = 0, rows = 0;
    uint32_t *kinds = NULL;
    csv_type_t *types = NULL;
    int ret = -1;
    if (csv_header_parse(buf, len, o, usecols, n_usecols, &h, err, errlen) < 0) return -1;
    if (o && o->nrows_set) {
        int64_t end = csv_rows_end(buf, len, &h, o->nrows, err, errlen);
        if (end < 0) goto close_header;
        len = (size_t)end;
    }
    if (o && o->skipfooter > 0) {
        /* the header again on what is left: its first data line is the
         * cut text's (an implicit index, a field count) */
        int64_t end = csv_footer_end(buf, len, &h, o->skipfooter);
        if (end < (int64_t)len) {
            csv_header_close(&h);
            len = (size_t)end;
            if (csv_header_parse(buf, len, o, usecols, n_usecols, &h, err, errlen) < 0) return -1;
        }
    }
    if (csv_split(buf, len, &h, target, &r, &nr, err, errlen) < 0) goto close_header;
    kinds = calloc((size_t)h.nsel + 1, sizeof *kinds);
    types = calloc((size_t)h.nsel + 1, sizeof *types);
    if (!kinds || !types) {
        errmsg(err, errlen, "out of memory for %d columns", h.nsel);
        goto free_ranges;
    }
    for (int64_t i = 0; i < nr; i++)
        if (csv_infer_range(buf, &h, &r[i], kinds, &rows, err, errlen) < 0) goto free_ranges;
    for (int k = 0; k < h.nsel; k++)
        types[k] = csv_kinds_type(kinds[k], rows);
    if (csv_header_set_kinds(&h, kinds) < 0) {
        errmsg(err, errlen, "out of memory for %d columns", h.nsel);
        goto free_ranges;
    }
    for (int64_t i = 0; i < nr; i++) {
        csv_frame_t f;
        if (csv_read_range(buf, &h, &r[i], types, i == 0 ? out : &f, err, errlen) < 0)
            goto free_out;
        if (i == 0) continue;
        int rc = frame_append(out, &f, err, errlen);
        csv_frame_close(&f);
        if (rc < 0) goto free_out;
    }
    ret = 0;
    goto free_ranges;
free_out:
    csv_frame_close(out);
free_ranges:
    free(kinds);
    free(types);
    free(r);
close_header:
    csv_header_close(&h);
    return ret;
}

/* ---------------------------------------------------------------------------
 * Paths. */

bool csv_is_glob(const char *path)
{
    return strpbrk(path, "*?[") != NULL;
}

int csv_glob(const char *data_dir, const char *pattern, char ***names, int *n, char *err,
             size_t errlen)
{
    *names = NULL;
    *n = 0;
    char rd[PATH_MAX], pat[PATH_MAX + 8];
    if (!realpath(data_dir, rd))
        return errmsg(err, errlen, "data dir '%s': %s", data_dir, strerror(errno));
    size_t dl = strlen(rd);
    int k = snprintf(pat, sizeof pat, "%s/%s", rd, pattern);
    if (k < 0 || (size_t)k >= sizeof pat)
        return errmsg(err, errlen, "path '%s': longer than %d bytes", pattern, PATH_MAX);
    glob_t g;
    int rc = glob(pat, GLOB_ERR, NULL, &g);
    if (rc == GLOB_NOMATCH) return 0;
    if (rc) return errmsg(err, errlen, "path '%s': cannot list its directory", pattern);
    int m = 0;
    char **out = calloc(g.gl_pathc + 1, sizeof(char *));
    if (!out) {
        globfree(&g);
        return errmsg(err, errlen, "out of memory");
    }
    for (size_t i = 0; i < g.gl_pathc; i++) {
        const char *p = g.gl_pathv[i];
        /* glob's paths start with the data directory as given to it */
        if (strncmp(p, rd, dl) != 0 || p[dl] != '/') continue;
        if (!(out[m] = strdup(p + dl + 1))) {
            for (int q = 0; q < m; q++)
                free(out[q]);
            free(out);
            globfree(&g);
            return errmsg(err, errlen, "out of memory");
        }
        m++;
    }
    globfree(&g); /* glob sorts its paths (no GLOB_NOSORT) */
    *names = out;
    *n = m;
    return 0;
}

int csv_resolve_path(const char *data_dir, const char *rel, char *out, size_t outlen, char *err,
                     size_t errlen)
{
    if (!rel || !*rel) return errmsg(err, errlen, "path is empty");
    if (rel[0] == '/') return errmsg(err, errlen, "path '%s': absolute paths are refused", rel);
    for (const char *c = rel; *c;) {
        const char *e = strchr(c, '/');
        size_t n = e ? (size_t)(e - c) : strlen(c);
        if (n == 2 && c[0] == '.' && c[1] == '.')
            return errmsg(err, errlen, "path '%s': '..' components are refused", rel);
        c += n;
        while (*c == '/')
            c++;
    }
    char rd[PATH_MAX], joined[PATH_MAX], rp[PATH_MAX];
    if (!realpath(data_dir, rd))
        return errmsg(err, errlen, "data dir '%s': %s", data_dir, strerror(errno));
    int k = snprintf(joined, sizeof joined, "%s/%s", rd, rel);
    if (k < 0 || (size_t)k >= sizeof joined)
        return errmsg(err, errlen, "path '%s': longer than %d bytes", rel, PATH_MAX);
    if (!realpath(joined, rp)) return errmsg(err, errlen, "path '%s': %s", rel, strerror(errno));
    size_t dl = strlen(rd);
    /* inside: rd itself is "/" (every path is in it), or rp is rd + "/..." */
    bool inside = (dl == 1 && rd[0] == '/') || (strncmp(rp, rd, dl) == 0 && rp[dl] == '/');
    if (!inside) return errmsg(err, errlen, "path '%s': resolves outside the data directory", rel);
    if (strlen(rp) >= outlen)
        return errmsg(err, errlen, "path '%s': resolved path does not fit %zu bytes", rel, outlen);
    memcpy(out, rp, strlen(rp) + 1);
    return 0;
}
