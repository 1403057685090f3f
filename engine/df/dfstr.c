/* dfstr.c: the str accessor methods (dfstr.h). */
#include "dfstr.h"

#include "clean.h"

#include <ctype.h>
#include <locale.h>
#include <math.h>
#include <pthread.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../errmsg.h"
#include "unitab.h"

/* most bytes of strings one chunk's str op may write (pad, zfill, repeat) */
#define STR_CHUNK_MAX ((int64_t)1 << 30)

static int oom(char *err, size_t errlen)
{
    return errmsg(err, errlen, "out of memory");
}

/* Patterns are compiled and run in the C.UTF-8 locale's LC_CTYPE (this
 * thread's, for the call: uselocale), so that they see code points as
 * Python's re does ('.' one character, [é], REG_ICASE of non-ASCII
 * letters), not bytes; where that locale is missing, the process's. */
static locale_t utf8_loc;
static pthread_once_t utf8_once = PTHREAD_ONCE_INIT;

static void utf8_init(void)
{
    utf8_loc = newlocale(LC_CTYPE_MASK, "C.UTF-8", (locale_t)0);
}

static locale_t re_enter(void)
{
    pthread_once(&utf8_once, utf8_init);
    return utf8_loc ? uselocale(utf8_loc) : (locale_t)0;
}

static void re_leave(locale_t old)
{
    if (old) uselocale(old);
}

/* The end of the bracket expression opening at p[i] ('[': a ']' first,
 * after an optional '^', is a member): its ']', or the pattern's last
 * byte when it has none. */
static size_t bracket_end(const char *p, size_t n, size_t i)
{
    size_t j = i + 1;
    if (j < n && p[j] == '^') j++;
    if (j < n && p[j] == ']') j++;
    while (j < n && p[j] != ']')
        j++;
    return j < n ? j : n - 1;
}

/* An escape of a letter (or digit) that the C library reads otherwise
 * than Python's re: outside brackets glibc takes \\w \\W \\s \\S \\b \\B and
 * back-references \\1 to \\9 as re does, and any other (\\d, \\n, \\A ...)
 * as the character itself; inside brackets a backslash is itself, where re
 * reads \\d \\s \\w as classes. 0, or -1 with a message naming it. */
static int re_escape_check(const char *p, size_t i, bool inside, char *err, size_t errlen)
{
    char e = p[i + 1];
    if (!isalnum((unsigned char)e)) return 0;
    if (inside ? !strchr("dDsSwW", e) : strchr("wWsSbB123456789", e) != NULL) return 0;
    return errmsg(err, errlen,
                  "'\\%c' at position %zu of '%.80s' has no POSIX extended form here (it would "
                  "match '%c'%s): write [0-9], [[:space:]] or [[:alnum:]_]",
                  e, i, p, inside ? '\\' : e, inside ? " or the letter" : "");
}

/* Refuses what would make regcomp's memory explode or mean something
 * else than in Python's re: a quantifier right after another ("a+++",
 * Python's lazy "a*?" and possessive "a++", which POSIX reads as nested
 * repeats), an escape re reads otherwise (re_escape_check), counted
 * repeats whose bounds multiply past 100000, patterns longer than 10000
 * bytes. 0, or -1 with a message. */
static int re_check(const char *p, char *err, size_t errlen)
{
    size_t n = strlen(p);
    if (n > 10000) return errmsg(err, errlen, "a pattern of more than 10000 bytes");
    bool prev_q = false;
    double product = 1;
    for (size_t i = 0; i < n; i++) {
        char c = p[i];
        if (c == '\\') {
            if (i + 1 < n && re_escape_check(p, i, false, err, errlen)) return -1;
            i++;
            prev_q = false;
            continue;
        }
        if (c == '[') {
            size_t end = bracket_end(p, n, i);
            for (size_t j = i + 1; j + 1 < end; j++)
                if (p[j] == '\\' && re_escape_check(p, j, true, err, errlen)) return -1;
            i = end;
            prev_q = false;
            continue;
        }
        bool q = c == '*' || c == '+' || c == '?' || c == '{';
        if (q && prev_q)
            return errmsg(err, errlen,
                          "multiple repeat at position %zu of '%.80s' (POSIX patterns have no "
                          "lazy or possessive quantifiers)",
                          i, p);
        if (c == '{') {
            long lo = 0, hi = -1;
            char *e;
            lo = strtol(p + i + 1, &e, 10);
            if (*e == ',') hi = e[1] == '}' ? lo : strtol(e + 1, &e, 10);
            long b = hi > lo ? hi : lo;
            product *= b > 1 ? (double)b : 1;
            if (b > 1000 || product > 100000)
                return errmsg(err, errlen,
                              "counted repeats of '%.80s' are too large (each at most 1000, "
                              "together at most 100000)",
                              p);
            const char *close = strchr(p + i, '}');
            if (close) i = (size_t)(close - p);
        }
        prev_q = q;
    }
    return 0;
}

int df_str_compile(df_node_t *d, char *err, size_t errlen)
{
    if (re_check(d->pat, err, errlen)) return -1;
    regex_t *re = calloc(1, sizeof *re);
    if (!re) return oom(err, errlen);
    locale_t old = re_enter();
    int rc = regcomp(re, d->pat, REG_EXTENDED | (d->icase ? REG_ICASE : 0));
    re_leave(old);
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

/* The code point at s[*i], *i moved past it; a malformed byte is U+FFFD
 * (no class, no mapping: written back as it was). */
static uint32_t cp_next(const char *s, int64_t n, int64_t *i)
{
    unsigned char c = (unsigned char)s[*i];
    int l = c < 0x80 ? 1 : c >= 0xf8 ? 0 : c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : c >= 0xc0 ? 2 : 0;
    if (l == 1) {
        (*i)++;
        return c;
    }
    if (l == 0 || *i + l > n) {
        (*i)++;
        return 0xfffd;
    }
    uint32_t cp = c & (0x7fu >> l);
    for (int k = 1; k < l; k++) {
        unsigned char b = (unsigned char)s[*i + k];
        if ((b & 0xc0) != 0x80) {
            (*i)++;
            return 0xfffd;
        }
        cp = cp << 6 | (b & 0x3fu);
    }
    *i += l;
    return cp;
}

/* the start of the code point before byte i (i > 0) */
static int64_t cp_back(const char *s, int64_t i)
{
    int64_t j = i - 1;
    while (j > 0 && i - j < 4 && ((unsigned char)s[j] & 0xc0) == 0x80)
        j--;
    return j;
}

int64_t df_str_cps(const char *s)
{
    return cp_count(s, (int64_t)strlen(s));
}

/* str.lower of the code point at s[a, e): its full mapping, Σ by Python's
 * final-sigma rule (ς after a cased letter and before none, looking past
 * case-ignorable ones) */
static int lower_at(buf_t *w, const char *s, int64_t l, int64_t a, int64_t e, uint32_t cp)
{
    if (cp == 0x3a3) {
        bool fin = false;
        for (int64_t j = a; j > 0;) {
            j = cp_back(s, j);
            int64_t k = j;
            unsigned p = uc_props(cp_next(s, l, &k));
            if (p & UC_IGNORABLE) continue;
            fin = (p & UC_CASED) != 0;
            break;
        }
        for (int64_t k = e; fin && k < l;) {
            unsigned p = uc_props(cp_next(s, l, &k));
            if (p & UC_IGNORABLE) continue;
            fin = !(p & UC_CASED);
            break;
        }
        return put(w, fin ? "\xcf\x82" : "\xcf\x83", 2);
    }
    const uc_map_t *m = uc_map(cp, UC_MAP_LOWER);
    return m ? put(w, m->to, m->len) : put(w, s + a, (size_t)(e - a));
}

/* lower, upper, title, capitalize, swapcase, casefold: Python's str
 * methods (full case mappings, full case folding) */
static int case_map(buf_t *w, const char *s, int64_t l, op_t op)
{
    bool prev_cased = false;
    for (int64_t i = 0; i < l;) {
        int64_t a = i;
        uint32_t cp = cp_next(s, l, &i);
        unsigned p = uc_props(cp);
        int how; /* -1 as it is, else UC_MAP_* */
        switch (op) {
        case OP_DF_STR_UPPER:
            how = UC_MAP_UPPER;
            break;
        case OP_DF_STR_TITLE:
            how = prev_cased ? UC_MAP_LOWER : UC_MAP_TITLE;
            prev_cased = (p & UC_CASED) != 0;
            break;
        case OP_DF_STR_CAPITALIZE:
            how = a == 0 ? UC_MAP_TITLE : UC_MAP_LOWER;
            break;
        case OP_DF_STR_SWAPCASE:
            how = (p & UC_UPPER) ? UC_MAP_LOWER : (p & UC_LOWER) ? UC_MAP_UPPER : -1;
            break;
        case OP_DF_STR_CASEFOLD: /* code point by code point: no final sigma */
            how = UC_MAP_FOLD;
            break;
        default:
            how = UC_MAP_LOWER;
        }
        int rc;
        if (how == UC_MAP_LOWER) {
            rc = lower_at(w, s, l, a, i, cp);
        } else {
            const uc_map_t *m = how < 0 ? NULL : uc_map(cp, how);
            rc = m ? put(w, m->to, m->len) : put(w, s + a, (size_t)(i - a));
        }
        if (rc) return -1;
    }
    return 0;
}

/* bytes of the whitespace code point at s[i] (Python's str.isspace), or 0 */
static int64_t space_at(const char *s, int64_t l, int64_t i)
{
    int64_t k = i;
    return uc_props(cp_next(s, l, &k)) & UC_SPACE ? k - i : 0;
}

/* whether cp is one of the code points of set (NUL-terminated) */
static bool cp_in(const char *set, uint32_t cp)
{
    int64_t n = (int64_t)strlen(set);
    for (int64_t i = 0; i < n;)
        if (cp_next(set, n, &i) == cp) return true;
    return false;
}

/* isalpha ... istitle of one string, as Python's */
static bool str_is(op_t op, const char *s, int64_t l)
{
    bool cased = false, prev = false;
    unsigned need = op == OP_DF_STR_ISALPHA     ? UC_ALPHA
                    : op == OP_DF_STR_ISDECIMAL ? UC_DECIMAL
                    : op == OP_DF_STR_ISDIGIT   ? UC_DIGIT
                    : op == OP_DF_STR_ISNUMERIC ? UC_NUMERIC
                    : op == OP_DF_STR_ISSPACE   ? UC_SPACE
                                                : UC_ALPHA | UC_DECIMAL | UC_DIGIT | UC_NUMERIC;
    for (int64_t i = 0; i < l;) {
        unsigned p = uc_props(cp_next(s, l, &i));
        switch (op) {
        case OP_DF_STR_ISUPPER:
            if (p & (UC_LOWER | UC_TITLE)) return false;
            cased |= (p & UC_UPPER) != 0;
            break;
        case OP_DF_STR_ISLOWER:
            if (p & (UC_UPPER | UC_TITLE)) return false;
            cased |= (p & UC_LOWER) != 0;
            break;
        case OP_DF_STR_ISTITLE:
            if (p & (UC_UPPER | UC_TITLE)) {
                if (prev) return false;
                prev = cased = true;
            } else if (p & UC_LOWER) {
                if (!prev) return false;
                prev = cased = true;
            } else {
                prev = false;
            }
            break;
        default:
            if (!(p & need)) return false;
        }
    }
    if (op == OP_DF_STR_ISUPPER || op == OP_DF_STR_ISLOWER || op == OP_DF_STR_ISTITLE) return cased;
    return l > 0;
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
        for (int64_t sp; a < l && (sp = space_at(s, l, a)) > 0;)
            a += sp;
        if (a >= l) return k;
        int64_t e = a;
        if (d->n >= 0 && splits >= d->n) {
            e = l; /* the rest, its trailing whitespace kept (Python's str.split) */
        } else {
            while (e < l && space_at(s, l, e) == 0)
                cp_next(s, l, &e);
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

/* Python's slice bounds of [start, end) over m code points (str.find) */
static void find_bounds(const df_node_t *d, int64_t m, int64_t *a, int64_t *b)
{
    *a = d->sl_has[0] ? d->sl[0] : 0;
    *b = d->sl_has[1] ? d->sl[1] : m;
    if (*b > m) *b = m;
    if (*b < 0) *b = *b + m < 0 ? 0 : *b + m;
    if (*a < 0) *a = *a + m < 0 ? 0 : *a + m;
}

/* find, rfind (code points, -1 when absent) and count (regex matches, as
 * re.findall counts them: an empty match is one, next to others too) */
static int64_t str_number(const df_node_t *d, op_t op, const char *s, int64_t l, char *tmp)
{
    size_t pl = strlen(d->pat);
    if (op == OP_DF_STR_COUNT) {
        memcpy(tmp, s, (size_t)l);
        tmp[l] = 0;
        int64_t cnt = 0, pos = 0;
        regmatch_t mt;
        while (pos <= l && regexec(d->re, tmp + pos, 1, &mt, pos ? REG_NOTBOL : 0) == 0) {
            cnt++;
            int64_t ms = pos + mt.rm_so, me = pos + mt.rm_eo;
            if (me > ms) {
                pos = me;
            } else if (ms < l) {
                pos = ms;
                cp_next(s, l, &pos); /* past one code point */
            } else {
                break;
            }
        }
        return cnt;
    }
    int64_t m = cp_count(s, l), a, b;
    find_bounds(d, m, &a, &b);
    if (a > m || b - a < cp_count(d->pat, (int64_t)pl)) return -1;
    int64_t ba = cp_at(s, l, a), bb = cp_at(s, l, b), hit = -1;
    if (pl == 0) return op == OP_DF_STR_FIND ? a : b;
    for (int64_t i = ba; i + (int64_t)pl <= bb; i++)
        if (!memcmp(s + i, d->pat, pl)) {
            hit = i;
            if (op == OP_DF_STR_FIND) break;
        }
    return hit < 0 ? -1 : cp_count(s, hit);
}

/* the padded string (zfill, pad, center, ljust, rjust): 0, -1 out of
 * memory, 1 past STR_CHUNK_MAX */
static int str_pad(buf_t *w, const df_node_t *d, op_t op, const char *s, int64_t l)
{
    int64_t m = cp_count(s, l), fill = d->n - m;
    if (fill <= 0) return put(w, s, (size_t)l);
    const char *fc = op == OP_DF_STR_ZFILL ? "0" : d->repl ? d->repl : " ";
    int64_t fl = (int64_t)strlen(fc), need;
    if (__builtin_mul_overflow(fill, fl, &need) || need > STR_CHUNK_MAX - l ||
        (int64_t)w->n > STR_CHUNK_MAX - l - need)
        return 1;
    /* sides as Python's: rjust, ljust, center (the odd one left when the
     * margin and the width are both odd); zfill keeps a sign in front */
    int64_t left = d->how == 0 ? fill : d->how == 1 ? 0 : fill / 2 + (fill & d->n & 1);
    int64_t lead = op == OP_DF_STR_ZFILL && l > 0 && (s[0] == '+' || s[0] == '-');
    if (lead && put(w, s, 1)) return -1;
    for (int64_t k = 0; k < left; k++)
        if (put(w, fc, (size_t)fl)) return -1;
    if (put(w, s + lead, (size_t)(l - lead))) return -1;
    for (int64_t k = left; k < fill; k++)
        if (put(w, fc, (size_t)fl)) return -1;
    return 0;
}

/* a copy of s (NUL-terminated) in *tmp, grown as needed */
static int hold(char **tmp, size_t *cap, int64_t l)
{
    if ((size_t)l + 1 <= *cap) return 0;
    char *nt = realloc(*tmp, (size_t)l + 1);
    if (!nt) return -1;
    *tmp = nt;
    *cap = (size_t)l + 1;
    return 0;
}

int df_str_extract_pattern(const char *pat, df_node_t *d, char **names, int *nout, char *err,
                           size_t errlen)
{
    size_t n = strlen(pat);
    char *o = malloc(n + 1);
    int *map = malloc(sizeof(int) * (n + 2));
    int ng = 0;
    *nout = 0;
    if (!o || !map) {
        free(o);
        free(map);
        return oom(err, errlen);
    }
    size_t w = 0;
    for (size_t i = 0; i < n; i++) {
        char ch = pat[i];
        if (ch == '\\' && i + 1 < n) { /* an escape: two characters as they are */
            o[w++] = ch;
            o[w++] = pat[++i];
            continue;
        }
        if (ch == '[') {
            size_t end = bracket_end(pat, n, i);
            memcpy(o + w, pat + i, end - i + 1);
            w += end - i + 1;
            i = end;
            continue;
        }
        if (ch != '(') {
            o[w++] = ch;
            continue;
        }
        o[w++] = '(';
        ng++;
        if (i + 2 < n && pat[i + 1] == '?' && pat[i + 2] == ':') {
            map[ng] = -1; /* (?:...): grouped, not captured */
            i += 2;
            continue;
        }
        if (i + 1 < n && pat[i + 1] == '?' && !(i + 2 < n && pat[i + 2] == 'P')) {
            free(o);
            free(map);
            return errmsg(err, errlen,
                          "'(?%c' is not supported in a POSIX pattern (only (?P<name>...) and "
                          "(?:...) groups)",
                          i + 2 < n ? pat[i + 2] : ' ');
        }
        if (*nout >= 64) {
            free(o);
            free(map);
            return errmsg(err, errlen, "more than 64 capture groups");
        }
        if (i + 3 < n && pat[i + 1] == '?' && pat[i + 2] == 'P' && pat[i + 3] == '<') {
            const char *e = strchr(pat + i + 4, '>');
            if (!e || e == pat + i + 4) {
                free(o);
                free(map);
                return errmsg(err, errlen, "bad group name in '%.80s'", pat);
            }
            names[*nout] = strndup(pat + i + 4, (size_t)(e - (pat + i + 4)));
            if (!names[*nout]) {
                free(o);
                free(map);
                return oom(err, errlen);
            }
            i = (size_t)(e - pat);
        }
        map[ng] = (*nout)++;
    }
    o[w] = 0;
    free(d->pat);
    d->pat = o;
    free(d->ex_map);
    d->ex_map = map;
    d->ex_ng = ng;
    return 0;
}

/* str.extract of column c: a string column per captured group, missing
 * where the value is, where the pattern finds no match, and where the
 * group took no part in it. */
static int extract_cols(const df_node_t *d, const fcol_t *c, frame_t *out)
{
    int64_t n = c->n;
    int ng = d->ex_ng, nc = out->ncols, rc = -1;
    regmatch_t *m = malloc(sizeof *m * (size_t)(ng + 1));
    int64_t *at = calloc((size_t)nc * (size_t)(n + 1) * 2 + 1, sizeof(int64_t));
    char *tmp = NULL;
    size_t tcap = 0;
    if (!m || !at) goto done;
    /* first the spans (start, length; length -1: missing) of every row */
    int64_t *bytes = calloc((size_t)nc + 1, sizeof(int64_t));
    if (!bytes) goto done;
    for (int64_t i = 0; i < n; i++) {
        for (int k = 0; k < nc; k++)
            at[(k * (n + 1) + i) * 2 + 1] = -1;
        if (fcol_is_na(c, i)) continue;
        int64_t l;
        const char *s = fcol_str(c, i, &l);
        if (hold(&tmp, &tcap, l)) {
            free(bytes);
            goto done;
        }
        memcpy(tmp, s, (size_t)l);
        tmp[l] = 0;
        if (regexec(d->re, tmp, (size_t)ng + 1, m, 0) != 0) continue;
        for (int gq = 1; gq <= ng; gq++) {
            int k = d->ex_map[gq];
            if (k < 0 || m[gq].rm_so < 0) continue;
            at[(k * (n + 1) + i) * 2] = m[gq].rm_so;
            at[(k * (n + 1) + i) * 2 + 1] = m[gq].rm_eo - m[gq].rm_so;
            bytes[k] += m[gq].rm_eo - m[gq].rm_so;
        }
    }
    for (int k = 0; k < nc; k++) {
        fcol_t *o = &out->cols[k];
        if (fcol_alloc(o, FT_STRING, n, bytes[k] + 1, true)) {
            free(bytes);
            goto done;
        }
        int64_t w = 0;
        for (int64_t i = 0; i < n; i++) {
            int64_t st = at[(k * (n + 1) + i) * 2], len = at[(k * (n + 1) + i) * 2 + 1];
            o->valid[i] = len >= 0;
            if (len > 0) {
                int64_t l;
                memcpy(o->bytes + w, fcol_str(c, i, &l) + st, (size_t)len);
                w += len;
            }
            o->offsets[i + 1] = w;
        }
        o->bytes[w] = 0;
    }
    free(bytes);
    rc = 0;
done:
    free(m);
    free(at);
    free(tmp);
    return rc;
}

static int str_map(const df_node_t *d, op_t op, const frame_t *in, frame_t *out, char *err,
                   size_t errlen);

int df_str_map(const df_node_t *d, op_t op, const frame_t *in, frame_t *out, char *err,
               size_t errlen)
{
    /* a pattern runs in the locale it was compiled in: entered once for
     * the chunk, not around each row's regexec */
    locale_t old = d->re ? re_enter() : (locale_t)0;
    int rc = str_map(d, op, in, out, err, errlen);
    re_leave(old);
    return rc;
}

static int str_map(const df_node_t *d, op_t op, const frame_t *in, frame_t *out, char *err,
                   size_t errlen)
{
    if (op == OP_DF_STR_EXTRACT) {
        frame_t like = *in; /* a DataFrame of the groups, or a Series of one */
        like.series = d->how == 1;
        if (df_out_like(d, &like, out)) return oom(err, errlen);
        if (extract_cols(d, &in->cols[0], out)) {
            frame_free(out);
            return oom(err, errlen);
        }
        return 0;
    }
    const fcol_t *c = &in->cols[0];
    int64_t n = c->n;
    bool any_na = false;
    char *tmp = NULL;
    size_t tcap = 0;
    for (int64_t i = 0; i < n; i++)
        any_na |= fcol_is_na(c, i);
    if (df_out_like(d, in, out)) goto fail;
    fcol_t *o = &out->cols[0];
    size_t pl = d->pat ? strlen(d->pat) : 0;
    if (op == OP_DF_STR_LEN || op == OP_DF_STR_FIND || op == OP_DF_STR_RFIND ||
        op == OP_DF_STR_COUNT) {
        /* int64, float64 with NaN where a value is missing */
        if (fcol_alloc(o, any_na ? FT_FLOAT64 : FT_INT64, n, 0, false)) goto fail;
        for (int64_t i = 0; i < n; i++) {
            int64_t l;
            const char *s = fcol_str(c, i, &l);
            int64_t v = 0;
            if (!fcol_is_na(c, i)) {
                if (op != OP_DF_STR_LEN && hold(&tmp, &tcap, l)) goto fail;
                v = op == OP_DF_STR_LEN ? cp_count(s, l) : str_number(d, op, s, l, tmp);
            }
            if (any_na)
                ((double *)o->data)[i] = fcol_is_na(c, i) ? NAN : (double)v;
            else
                ((int64_t *)o->data)[i] = v;
        }
        free(tmp);
        return 0;
    }
    if (d->cols[0].type == FT_BOOL) {
        /* contains, startswith, endswith, match, fullmatch, is*: bools,
         * missing where the string is */
        if (fcol_alloc(o, FT_BOOL, n, 0, any_na)) goto fail;
        for (int64_t i = 0; i < n; i++) {
            int64_t l;
            const char *s = fcol_str(c, i, &l);
            bool v = false;
            regmatch_t mt;
            if (fcol_is_na(c, i)) {
                o->valid[i] = 0;
            } else if (op == OP_DF_STR_STARTSWITH) {
                v = (size_t)l >= pl && !memcmp(s, d->pat, pl);
            } else if (op == OP_DF_STR_ENDSWITH) {
                v = (size_t)l >= pl && !memcmp(s + l - (int64_t)pl, d->pat, pl);
            } else if (d->re) {
                if (hold(&tmp, &tcap, l)) goto fail;
                memcpy(tmp, s, (size_t)l);
                tmp[l] = 0;
                bool anchored = op == OP_DF_STR_MATCH || op == OP_DF_STR_FULLMATCH;
                v = regexec(d->re, tmp, anchored, anchored ? &mt : NULL, 0) == 0;
                /* the leftmost match is the longest there (POSIX): re.match
                 * when it starts at 0, re.fullmatch when it also ends at l */
                if (v && anchored) v = mt.rm_so == 0 && (op == OP_DF_STR_MATCH || mt.rm_eo == l);
            } else if (op == OP_DF_STR_CONTAINS) {
                v = find(s, l, d->pat, pl) != NULL;
            } else {
                v = str_is(op, s, l);
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
        case OP_DF_STR_TITLE:
        case OP_DF_STR_CAPITALIZE:
        case OP_DF_STR_SWAPCASE:
        case OP_DF_STR_CASEFOLD:
            rc = case_map(&w, s, l, op);
            break;
        case OP_DF_STR_STRIP:
        case OP_DF_STR_LSTRIP:
        case OP_DF_STR_RSTRIP: {
            /* whitespace (str.isspace), or the code points of to_strip */
            int64_t a = 0, b = l;
            while (op != OP_DF_STR_RSTRIP && a < b) {
                int64_t k = a;
                uint32_t cp = cp_next(s, l, &k);
                if (d->pat ? !cp_in(d->pat, cp) : !(uc_props(cp) & UC_SPACE)) break;
                a = k;
            }
            while (op != OP_DF_STR_LSTRIP && b > a) {
                int64_t j = cp_back(s, b), k = j;
                uint32_t cp = cp_next(s, l, &k);
                if (k != b || (d->pat ? !cp_in(d->pat, cp) : !(uc_props(cp) & UC_SPACE))) break;
                b = j;
            }
            rc = put(&w, s + a, (size_t)(b - a));
            break;
        }
        case OP_DF_STR_ZFILL:
        case OP_DF_STR_PAD:
        case OP_DF_STR_CENTER:
        case OP_DF_STR_LJUST:
        case OP_DF_STR_RJUST:
        case OP_DF_STR_REPEAT: {
            int64_t need = 0;
            if (op == OP_DF_STR_REPEAT) {
                int64_t r = d->n > 0 ? d->n : 0;
                if (__builtin_mul_overflow(r, l, &need) || need > STR_CHUNK_MAX - (int64_t)w.n)
                    rc = 1;
                for (int64_t k = 0; rc == 0 && k < r; k++)
                    rc = put(&w, s, (size_t)l);
            } else {
                rc = str_pad(&w, d, op, s, l);
            }
            if (rc == 1) {
                free(w.b);
                free(off);
                free(valid);
                frame_free(out);
                return errmsg(err, errlen,
                              "%s: the strings of one chunk would pass %lld bytes (%s %lld); "
                              "a chunk's strings are limited to 1 GiB",
                              op_name(op), (long long)STR_CHUNK_MAX,
                              op == OP_DF_STR_REPEAT ? "repeats" : "width", (long long)d->n);
            }
            break;
        }
        case OP_DF_STR_GET: {
            /* s[i] (negative from the end), missing past either end */
            int64_t m = cp_count(s, l), k = d->sget < 0 ? d->sget + m : d->sget;
            if (k >= 0 && k < m) {
                int64_t p = cp_at(s, l, k), q = cp_at(s, l, k + 1);
                rc = put(&w, s + p, (size_t)(q - p));
            } else {
                valid[i] = 0;
                na_out = true;
            }
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
                if (hold(&tmp, &tcap, l)) goto sfail;
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
                        /* an empty match: keep one code point and go on */
                        if (ms >= l) {
                            a = l + 1;
                            break;
                        }
                        int64_t k = ms;
                        cp_next(s, l, &k);
                        rc = rc || put(&w, s + ms, (size_t)(k - ms));
                        a = k;
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
fail:
    free(tmp);
    frame_free(out);
    return oom(err, errlen);
}
