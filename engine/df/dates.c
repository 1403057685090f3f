/* dates.c: datetime64[ns] columns: the calendar, parsing, writing and the
 * dt accessor (dates.h). */
#include "dates.h"

#include "../errmsg.h"
#include "clean.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

/* The civil-from-days and days-from-civil algorithms on 400-year eras of
 * 146097 days, in which the year starts in March so that the leap day is
 * the last of the year. */
int64_t date_days_from_civil(int64_t y, int m, int d)
{
    y -= m <= 2;
    int64_t era = (y >= 0 ? y : y - 399) / 400;
    int64_t yoe = y - era * 400;                                   /* [0, 399] */
    int64_t doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1; /* [0, 365] */
    int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;           /* [0, 146096] */
    return era * 146097 + doe - 719468;
}

void date_civil_from_days(int64_t z, int64_t *y, int *m, int *d)
{
    z += 719468;
    int64_t era = (z >= 0 ? z : z - 146096) / 146097;
    int64_t doe = z - era * 146097;
    int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    int64_t mp = (5 * doy + 2) / 153;
    *d = (int)(doy - (153 * mp + 2) / 5 + 1);
    *m = (int)(mp < 10 ? mp + 3 : mp - 9);
    *y = yoe + era * 400 + (*m <= 2);
}

static bool leap(int64_t y)
{
    return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

static int month_days(int64_t y, int m)
{
    static const int md[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    return m == 2 && leap(y) ? 29 : md[m - 1];
}

/* Reads exactly w digits at s[*i]. */
static bool digits(const char *s, size_t n, size_t *i, int w, int *out)
{
    int v = 0;
    for (int k = 0; k < w; k++) {
        if (*i >= n || s[*i] < '0' || s[*i] > '9') return false;
        v = v * 10 + (s[(*i)++] - '0');
    }
    *out = v;
    return true;
}

static int64_t floordiv(int64_t a, int64_t b)
{
    int64_t q = a / b;
    return q - ((a % b != 0) && ((a < 0) != (b < 0)));
}

/* The days of ns (floored) in *days, and what is left of its day, [0, 1
 * day): from the remainder, as days * DATE_NS_PER_DAY passes int64 in
 * datetime64[ns]'s first day (1677-09-21) */
static int64_t day_rest(int64_t ns, int64_t *days)
{
    int64_t r = ns % DATE_NS_PER_DAY;
    *days = floordiv(ns, DATE_NS_PER_DAY);
    return r < 0 ? r + DATE_NS_PER_DAY : r;
}

/* The nanoseconds of a valid date and time, or -1 with why. */
static int date_ns(int y, int mo, int d, int h, int mi, int se, int64_t frac, int64_t *ns,
                   const char **why)
{
    if (mo < 1 || mo > 12 || d < 1 || d > month_days(y, mo) || h > 23 || mi > 59 || se > 59) {
        *why = "is not a valid date or time";
        return -1;
    }
    int64_t days = date_days_from_civil(y, mo, d), v;
    int64_t secs = days * 86400 + h * 3600 + mi * 60 + se;
    if (__builtin_mul_overflow(secs, (int64_t)1000000000, &v) ||
        __builtin_add_overflow(v, frac, &v) || v == DATE_NAT) {
        *why = "is out of the range of datetime64[ns] (1677-09-21 to 2262-04-11)";
        return -1;
    }
    *ns = v;
    return 0;
}

static bool is_delim(char c)
{
    return c == ' ' || c == '/' || c == '-' || c == '.';
}

/* pandas 1.5's _parse_delimited_date: s[0..n) of 7 to 10 characters as
 * MM?DD?YYYY, M?DD?YYYY, MM?D?YYYY, M?D?YYYY (? one of space / - .), the
 * month and day swapped when the month passes 12 and the day does not, or
 * MM?YYYY (not .; the first day). 1: not this form; 0, or -1 with why. */
static int delimited_date(const char *s, size_t n, bool dayfirst, int *y, int *mo, int *d,
                          const char **why)
{
    size_t a, b; /* the month's and the day's lengths */
    if (n == 10 && is_delim(s[2]) && is_delim(s[5]))
        a = 2, b = 2;
    else if (n == 9 && is_delim(s[1]) && is_delim(s[4]))
        a = 1, b = 2;
    else if (n == 9 && is_delim(s[2]) && is_delim(s[4]))
        a = 2, b = 1;
    else if (n == 8 && is_delim(s[1]) && is_delim(s[3]))
        a = 1, b = 1;
    else if (n == 7 && is_delim(s[2]) && s[2] != '.')
        a = 2, b = 0;
    else
        return 1;
    size_t i = 0;
    *d = 1;
    if (!digits(s, n, &i, (int)a, mo)) return 1;
    i++; /* the delimiter */
    if (b) {
        if (!digits(s, n, &i, (int)b, d)) return 1;
        i++;
    }
    if (!digits(s, n, &i, 4, y) || i != n || *y < 1000) return 1;
    /* pandas: 1..31 each, one of them a month; swapped when the month
     * cannot be one, or with dayfirst when the day can be the month */
    if (*mo >= 1 && *mo <= 31 && *d >= 1 && *d <= 31 && (*mo <= 12 || *d <= 12)) {
        if ((*mo > 12 || (dayfirst && *d <= 12)) && b) {
            int t = *mo;
            *mo = *d;
            *d = t;
        }
        return 0;
    }
    *why = "is not a valid date (pandas: Invalid date specified)";
    return -1;
}

/* The fraction of a second after the '.' at s[*i]: its first keep digits
 * (6 cuts to microseconds, 9 keeps nanoseconds), the rest read and
 * dropped, as nanoseconds in *frac. false when no digit follows. */
static bool fraction(const char *s, size_t n, size_t *i, int keep, int64_t *frac)
{
    int nd = 0;
    int64_t f = 0;
    for ((*i)++; *i < n && s[*i] >= '0' && s[*i] <= '9'; (*i)++, nd++)
        if (nd < keep) f = f * 10 + (s[*i] - '0');
    for (int k = nd < keep ? nd : keep; k < 9; k++)
        f *= 10;
    *frac = f;
    return nd > 0;
}

/* dateutil's time after a delimited date (pandas' path for a date it
 * cannot read alone): H[H]:MM[:SS[.fraction]], then optionally AM or PM;
 * the fraction is cut to microseconds, as dateutil does. 0 or -1. */
static int du_time(const char *s, size_t n, int *h, int *mi, int *se, int64_t *frac)
{
    size_t i = 0;
    if (n >= 2 && s[1] == ':') {
        if (!digits(s, n, &i, 1, h)) return -1;
    } else if (!digits(s, n, &i, 2, h)) {
        return -1;
    }
    if (i >= n || s[i++] != ':' || !digits(s, n, &i, 2, mi)) return -1;
    *se = 0;
    *frac = 0;
    if (i < n && s[i] == ':') {
        i++;
        if (!digits(s, n, &i, 2, se)) return -1;
        if (i < n && s[i] == '.' && !fraction(s, n, &i, 6, frac)) return -1;
    }
    while (i < n && s[i] == ' ')
        i++;
    if (i == n) return 0;
    if (n - i != 2 || (s[i + 1] != 'M' && s[i + 1] != 'm')) return -1;
    char c = s[i];
    bool pm = c == 'P' || c == 'p';
    if (!pm && c != 'A' && c != 'a') return -1;
    if (*h > 12) return -1; /* dateutil: an hour past 12 with AM or PM */
    if (pm && *h < 12)
        *h += 12;
    else if (!pm && *h == 12)
        *h = 0;
    return 0;
}

/* What pandas 1.5 reads where ISO 8601 fails, in part: a delimited date
 * (delimited_date), alone or followed by a space and a time (du_time).
 * 1: not this form; 0, or -1 with why. */
static int guessed_date(const char *s, size_t n, bool dayfirst, int64_t *ns, const char **why)
{
    int y, mo, d, h = 0, mi = 0, se = 0;
    int64_t frac = 0;
    int rc = delimited_date(s, n, dayfirst, &y, &mo, &d, why);
    if (rc == 0) return date_ns(y, mo, d, h, mi, se, frac, ns, why);
    if (rc < 0) return -1;
    /* a date of 8 to 10 characters, spaces, a time */
    for (size_t k = 8; k <= 10 && k < n; k++) {
        if (s[k] != ' ') continue;
        rc = delimited_date(s, k, dayfirst, &y, &mo, &d, why);
        if (rc == 1) continue;
        if (rc < 0) return -1;
        size_t t = k;
        while (t < n && s[t] == ' ')
            t++;
        if (du_time(s + t, n - t, &h, &mi, &se, &frac)) return 1;
        return date_ns(y, mo, d, h, mi, se, frac, ns, why);
    }
    return 1;
}

int date_parse(const char *s, size_t n, int64_t *ns, const char **why)
{
    return date_parse_dayfirst(s, n, false, ns, why);
}

int date_parse_dayfirst(const char *s, size_t n, bool dayfirst, int64_t *ns, const char **why)
{
    size_t i = 0;
    int y, mo, d, h = 0, mi = 0, se = 0;
    int64_t frac = 0;
    *why = "not a date (YYYY-MM-DD, optionally with HH:MM[:SS[.fraction]]; or MM/DD/YYYY)";
    while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t'))
        n--;
    while (i < n && (s[i] == ' ' || s[i] == '\t'))
        i++;
    bool iso = n - i > 4 && (s[i + 4] == '-' || s[i + 4] == '/');
    for (size_t k = i; k < i + 4 && iso; k++)
        iso = s[k] >= '0' && s[k] <= '9';
    if (!iso) {
        /* not YYYY-: pandas' delimited dates (MM/DD/YYYY ...) */
        const char *w = *why;
        int rc = guessed_date(s + i, n - i, dayfirst, ns, why);
        if (rc != 1) return rc;
        *why = w;
        return -1;
    }
    if (!digits(s, n, &i, 4, &y) || i >= n || (s[i] != '-' && s[i] != '/')) return -1;
    char dsep = s[i++];
    if (!digits(s, n, &i, 2, &mo) || i >= n || s[i++] != dsep || !digits(s, n, &i, 2, &d))
        return -1;
    if (i < n) {
        if (s[i] != 'T' && s[i] != ' ') return -1;
        i++;
        if (!digits(s, n, &i, 2, &h) || i >= n || s[i++] != ':' || !digits(s, n, &i, 2, &mi))
            return -1;
        if (i < n && s[i] == ':') {
            i++;
            if (!digits(s, n, &i, 2, &se)) return -1;
            if (i < n && s[i] == '.' && !fraction(s, n, &i, 9, &frac)) return -1;
        }
        if (i < n && (s[i] == 'Z' || s[i] == '+' || s[i] == '-')) {
            *why = "has a time zone (time zones are not supported: the engine's datetimes "
                   "are naive)";
            return -1;
        }
        if (i != n) return -1;
    }
    int rc = date_ns(y, mo, d, h, mi, se, frac, ns, why);
    /* not a date as YYYY-MM-DD: pandas hands it to dateutil, which with
     * dayfirst reads YYYY-DD-MM where the last number can be a month */
    if (rc && dayfirst && d >= 1 && d <= 12) rc = date_ns(y, d, mo, h, mi, se, frac, ns, why);
    return rc;
}

/* pandas' str(Timedelta) ("long"): the days (floor) and what is left of
 * the day, a fraction of 6 digits when there are micro- or milliseconds,
 * 9 with nanoseconds; a negative value writes " +" before the time
 * ("-1 days +23:00:00"). even_days: "N days" (to_csv's form of a column
 * of whole days). */
int td_format(int64_t ns, bool even_days, char *buf, size_t len)
{
    int64_t days, rest = day_rest(ns, &days);
    if (even_days) return snprintf(buf, len, "%lld days", (long long)days);
    int64_t secs = rest / 1000000000, frac = rest % 1000000000;
    int w = snprintf(buf, len, "%lld days%s%02d:%02d:%02d", (long long)days, ns < 0 ? " +" : " ",
                     (int)(secs / 3600), (int)(secs / 60 % 60), (int)(secs % 60));
    if (frac && w > 0 && (size_t)w < len) {
        if (frac % 1000)
            w += snprintf(buf + w, len - (size_t)w, ".%09lld", (long long)frac);
        else
            w += snprintf(buf + w, len - (size_t)w, ".%06lld", (long long)(frac / 1000));
    }
    return w;
}

int date_format(int64_t ns, int unit, char sep, int digits, char *buf, size_t len)
{
    if (unit == FU_TD) return td_format(ns, digits == -1, buf, len);
    int64_t days, rest = day_rest(ns, &days), y;
    int m, d;
    date_civil_from_days(days, &y, &m, &d);
    if (unit == FU_DATE || digits == -1)
        return snprintf(buf, len, "%04lld-%02d-%02d", (long long)y, m, d);
    int64_t secs = rest / 1000000000, frac = rest % 1000000000;
    int w = snprintf(buf, len, "%04lld-%02d-%02d%c%02d:%02d:%02d", (long long)y, m, d, sep,
                     (int)(secs / 3600), (int)(secs / 60 % 60), (int)(secs % 60));
    int nd = digits >= 0 ? digits : date_frac_digits(ns);
    if (nd > 0 && w > 0 && (size_t)w < len) {
        int64_t f = frac;
        for (int k = nd; k < 9; k++)
            f /= 10;
        w += snprintf(buf + w, len - (size_t)w, ".%0*lld", nd, (long long)f);
    }
    return w;
}

int date_frac_digits(int64_t ns)
{
    int64_t frac = ns % 1000000000; /* (its sign does not matter below) */
    return frac == 0 ? 0 : frac % 1000000 == 0 ? 3 : frac % 1000 == 0 ? 6 : 9;
}

int date_column_from_strings(fcol_t *c, const char *name, int64_t first_row, bool dayfirst,
                             char *err, size_t errlen)
{
    if (c->type != FT_STRING) return errmsg(err, errlen, "internal: parse_dates of a non-string");
    int64_t *v = malloc((size_t)(c->n ? c->n : 1) * sizeof *v);
    if (!v) return errmsg(err, errlen, "out of memory");
    for (int64_t i = 0; i < c->n; i++) {
        int64_t l;
        const char *s = fcol_str(c, i, &l);
        const char *why;
        if ((c->valid && !c->valid[i]) || l == 0) {
            v[i] = DATE_NAT;
        } else if (date_parse_dayfirst(s, (size_t)l, dayfirst, &v[i], &why)) {
            free(v);
            return errmsg(err, errlen, "parse_dates: column '%s', row %lld: '%.*s' %s",
                          name ? name : "", (long long)(first_row + i), (int)(l > 64 ? 64 : l), s,
                          why);
        }
    }
    free(c->offsets);
    free(c->bytes);
    free(c->valid);
    c->offsets = NULL;
    c->bytes = NULL;
    c->valid = NULL;
    c->data = v;
    c->type = FT_INT64;
    c->unit = FU_NS;
    return 0;
}

const char *date_type_name(int unit)
{
    return unit == FU_NS     ? "datetime64[ns]"
           : unit == FU_DATE ? "object"
           : unit == FU_TD   ? "timedelta64[ns]"
                             : NULL;
}

/* The day of the week of a day since the epoch, Monday 0 to Sunday 6
 * (1970-01-01 was a Thursday). */
static int weekday(int64_t days)
{
    return (int)(((days % 7) + 7 + 3) % 7);
}

/* The ISO 8601 calendar of a day since the epoch: its year (that of the
 * Thursday of its week), its week (1..53, weeks starting on Monday, week 1
 * the one holding the year's first Thursday) and its day (Monday 1). */
static void iso_calendar(int64_t days, int64_t *year, int64_t *week, int64_t *day)
{
    int wd = weekday(days), m, d;
    int64_t thu = days - wd + 3, y;
    date_civil_from_days(thu, &y, &m, &d);
    *year = y;
    *week = (thu - date_days_from_civil(y, 1, 1)) / 7 + 1;
    *day = wd + 1;
}

/* One field of a datetime that is not NaT. */
static int64_t field(op_t op, int64_t ns)
{
    int64_t days, rest = day_rest(ns, &days), y;
    int m, d;
    switch (op) {
    case OP_DF_DT_WEEK: { /* pandas 1.5's dt.week (weekofyear): the ISO week */
        int64_t iy, iw, id;
        iso_calendar(days, &iy, &iw, &id);
        return iw;
    }
    case OP_DF_DT_HOUR:
        return rest / 3600000000000LL;
    case OP_DF_DT_MINUTE:
        return rest / 60000000000LL % 60;
    case OP_DF_DT_SECOND:
        return rest / 1000000000 % 60;
    case OP_DF_DT_DAYOFWEEK: /* 1970-01-01 was a Thursday (3; Monday is 0) */
        return weekday(days);
    case OP_DF_DT_DATE: /* (the midnight before 1677-09-21 00:12:43 is out of range) */
        return days >= INT64_MIN / DATE_NS_PER_DAY ? days * DATE_NS_PER_DAY : DATE_NAT;
    default:
        break;
    }
    date_civil_from_days(days, &y, &m, &d);
    switch (op) {
    case OP_DF_DT_YEAR:
        return y;
    case OP_DF_DT_MONTH:
        return m;
    case OP_DF_DT_DAY:
        return d;
    case OP_DF_DT_QUARTER:
        return (m - 1) / 3 + 1;
    case OP_DF_DT_DAYS_IN_MONTH:
        return month_days(y, m);
    default: /* OP_DF_DT_DAYOFYEAR */
        return days - date_days_from_civil(y, 1, 1) + 1;
    }
}

void date_dt_type(op_t op, ftype_t *type, int *unit)
{
    *unit = FU_NONE;
    *type = FT_INT64;
    switch (op) {
    case OP_DF_DT_TOTAL_SECONDS:
        *type = FT_FLOAT64;
        break;
    case OP_DF_DT_DATE:
        *unit = FU_DATE;
        break;
    case OP_DF_DT_FLOOR:
    case OP_DF_DT_CEIL:
    case OP_DF_DT_ROUND:
    case OP_DF_DT_NORMALIZE:
        *unit = FU_NS;
        break;
    case OP_DF_DT_DAY_NAME:
    case OP_DF_DT_MONTH_NAME:
    case OP_DF_DT_STRFTIME:
        *type = FT_STRING;
        break;
    case OP_DF_DT_IS_MONTH_START:
    case OP_DF_DT_IS_MONTH_END:
    case OP_DF_DT_IS_QUARTER_START:
    case OP_DF_DT_IS_QUARTER_END:
    case OP_DF_DT_IS_YEAR_START:
    case OP_DF_DT_IS_YEAR_END:
    case OP_DF_DT_IS_LEAP_YEAR:
        *type = FT_BOOL;
        break;
    default:
        break;
    }
}

/* The sum of s's [digits[.digits]]unit parts in nanoseconds (to_offset's
 * fixed units), at most INT64_MAX: 0, or -1 with why set. */
static int span_sum(const char *s, int64_t *ns, char *why, size_t len)
{
    static const struct {
        const char *name;
        int64_t ns;
    } units[] = {{"D", DATE_NS_PER_DAY},
                 {"d", DATE_NS_PER_DAY},
                 {"H", 3600000000000LL},
                 {"h", 3600000000000LL},
                 {"T", 60000000000LL},
                 {"min", 60000000000LL},
                 {"S", 1000000000},
                 {"s", 1000000000},
                 {"L", 1000000},
                 {"ms", 1000000},
                 {"U", 1000},
                 {"us", 1000},
                 {"N", 1},
                 {"ns", 1}};
    static const char *const calendar[] = {"W",  "M",   "MS", "SM",  "SMS", "Q",   "QS",   "A",
                                           "AS", "Y",   "YS", "B",   "BM",  "BMS", "BQ",   "BQS",
                                           "BA", "BAS", "BY", "BYS", "BH",  "C",   "CBMS", "CBH"};
    size_t n = strlen(s), i = 0;
    __int128 total = 0;
    if (n == 0 || n > 64) {
        snprintf(why, len, "Invalid frequency: '%.64s'", s);
        return -1;
    }
    while (i < n) {
        /* [digits[.digits]]unit */
        __int128 whole = 0, frac = 0, scale = 1;
        bool num = false;
        while (i < n && s[i] >= '0' && s[i] <= '9') {
            whole = whole * 10 + (s[i++] - '0');
            num = true;
            if (whole > INT64_MAX) goto invalid;
        }
        if (i < n && s[i] == '.' && num) {
            i++;
            while (i < n && s[i] >= '0' && s[i] <= '9' && scale < 1000000000000000000LL) {
                frac = frac * 10 + (s[i++] - '0');
                scale *= 10;
            }
        }
        size_t a = i;
        while (i < n && ((s[i] >= 'A' && s[i] <= 'Z') || (s[i] >= 'a' && s[i] <= 'z')))
            i++;
        if (i == a) { /* no unit: a sign, a bare number, anything else */
            if (s[a] == '-' || s[a] == '+')
                snprintf(why, len,
                         "'%.64s': a frequency must be positive here (pandas floors "
                         "and ceils a negative one the other way)",
                         s);
            else
                snprintf(why, len, "Invalid frequency: '%.64s'", s);
            return -1;
        }
        int64_t u = 0;
        for (size_t k = 0; k < sizeof units / sizeof units[0] && !u; k++)
            if (strlen(units[k].name) == i - a && !memcmp(units[k].name, s + a, i - a))
                u = units[k].ns;
        if (!u) {
            /* a calendar frequency (W-SUN, MS, ...): its name before any '-' */
            size_t b = i - a;
            for (size_t k = 0; k < sizeof calendar / sizeof calendar[0]; k++)
                if (strlen(calendar[k]) == b && !memcmp(calendar[k], s + a, b)) {
                    snprintf(why, len, "%.64s is a non-fixed frequency", s);
                    return -1;
                }
            goto invalid;
        }
        if (!num) whole = 1;
        __int128 part = whole * u;
        if (frac) {
            __int128 f = frac * u;
            if (f % scale) goto invalid; /* not a whole number of nanoseconds */
            part += f / scale;
        }
        total += part;
        if (total > INT64_MAX) {
            snprintf(why, len, "'%.64s' is longer than datetime64[ns]'s range", s);
            return -1;
        }
    }
    *ns = (int64_t)total;
    return 0;
invalid:
    snprintf(why, len, "Invalid frequency: '%.64s'", s);
    return -1;
}

int date_parse_freq(const char *s, int64_t *ns, char *why, size_t len)
{
    if (span_sum(s, ns, why, len)) return -1;
    if (*ns <= 0) {
        snprintf(why, len, "'%.64s' is a frequency of zero (pandas divides by it)", s);
        return -1;
    }
    return 0;
}

int td_parse(const char *s, size_t n, int64_t *ns, const char **why)
{
    char b[80], msg[160];
    *why = "is not a timedelta (pandas' forms: \"1 days 02:00:00\", \"-1 days +23:00:00\", "
           "\"02:30:00\", \"1D\", \"2h30min\")";
    while (n && s[0] == ' ')
        s++, n--;
    while (n && s[n - 1] == ' ')
        n--;
    if (n == 0 || n >= sizeof b) return -1;
    memcpy(b, s, n);
    b[n] = 0;
    size_t i = 0;
    int sign = 1;
    if (b[i] == '-' || b[i] == '+') sign = b[i++] == '-' ? -1 : 1;
    while (b[i] == ' ')
        i++;
    if (!strchr(b, ':') && !strstr(b, "day")) {
        /* units: "1D", "2h30min", "1.5h"; a bare integer is nanoseconds */
        int64_t v;
        size_t e = i;
        while (b[e] >= '0' && b[e] <= '9')
            e++;
        if (e > i && !b[e] && e - i < 19) {
            *ns = sign * strtoll(b + i, NULL, 10);
            return 0;
        }
        if (span_sum(b + i, &v, msg, sizeof msg)) return -1;
        *ns = sign * v;
        return 0;
    }
    /* as pandas: a leading sign takes the days, the time after them is
     * added ("-1 days +23:00:00", "-2 days 01:00:00"); without days it
     * takes the time */
    __int128 days = 0, t = 0;
    int tsign = sign;
    size_t a = i;
    while (b[i] >= '0' && b[i] <= '9' && i - a < 7)
        days = days * 10 + (b[i++] - '0');
    size_t sp = i;
    while (b[sp] == ' ')
        sp++;
    if (i > a && !strncmp(b + sp, "day", 3)) {
        i = sp + 3;
        if (b[i] == 's') i++;
        if (b[i] == ',') i++;
        while (b[i] == ' ')
            i++;
        if (b[i] == '+') i++;
        tsign = 1;
        a = i;
    } else if (b[i] == ':') {
        days = 0;
        i = a;
    } else {
        return -1;
    }
    if (b[i]) { /* [H]H:MM:SS[.fraction] */
        int h = 0, m = 0, sec = 0, nd = 0;
        int64_t frac = 0;
        size_t h0 = i;
        while (b[i] >= '0' && b[i] <= '9' && i - h0 < 2)
            h = h * 10 + (b[i++] - '0');
        if (i == h0 || b[i] != ':' || !(b[i + 1] >= '0' && b[i + 1] <= '9') ||
            !(b[i + 2] >= '0' && b[i + 2] <= '9') || b[i + 3] != ':' ||
            !(b[i + 4] >= '0' && b[i + 4] <= '9') || !(b[i + 5] >= '0' && b[i + 5] <= '9'))
            return -1;
        m = (b[i + 1] - '0') * 10 + (b[i + 2] - '0');
        sec = (b[i + 4] - '0') * 10 + (b[i + 5] - '0');
        i += 6;
        if (b[i] == '.') {
            i++;
            while (b[i] >= '0' && b[i] <= '9' && nd < 9) {
                frac = frac * 10 + (b[i++] - '0');
                nd++;
            }
            if (nd == 0) return -1;
            for (int k = nd; k < 9; k++)
                frac *= 10;
        }
        if (b[i] || m > 59 || sec > 59) return -1;
        t = ((__int128)h * 3600 + m * 60 + sec) * 1000000000 + frac;
    }
    __int128 v = sign * days * DATE_NS_PER_DAY + tsign * t;
    if (v <= INT64_MIN || v > INT64_MAX) {
        *why = "is out of the range of timedelta64[ns] (about 106751 days either way)";
        return -1;
    }
    *ns = (int64_t)v;
    return 0;
}

/* floor, ceil and round (pandas 1.5's round_nsint64: half to even, and for
 * an odd unit ceil(v - unit / 2)) of v to unit u; false when the result
 * is past datetime64[ns]'s range */
static bool round_to(op_t op, int64_t v, int64_t u, int64_t *out)
{
    __int128 x = v, q, r, res;
    if (op == OP_DF_DT_ROUND && u % 2) x -= u / 2;
    q = x / u;
    r = x % u;
    if (r < 0) {
        r += u;
        q--;
    }
    if (op == OP_DF_DT_FLOOR)
        res = q * u;
    else if (op == OP_DF_DT_CEIL || u % 2)
        res = r ? (q + 1) * u : x;
    else
        res = (q + (r > u / 2 || (r == u / 2 && (q & 1)))) * u;
    if (res <= INT64_MIN || res > INT64_MAX) return false;
    *out = (int64_t)res;
    return true;
}

static const char *const day_names[7] = {"Monday", "Tuesday",  "Wednesday", "Thursday",
                                         "Friday", "Saturday", "Sunday"};
static const char *const month_names[12] = {"January",   "February", "March",    "April",
                                            "May",       "June",     "July",     "August",
                                            "September", "October",  "November", "December"};

/* An is_* field of a datetime that is not NaT. */
static bool is_field(op_t op, int64_t ns)
{
    int64_t days = floordiv(ns, DATE_NS_PER_DAY), y;
    int m, d;
    date_civil_from_days(days, &y, &m, &d);
    bool last = d == month_days(y, m);
    switch (op) {
    case OP_DF_DT_IS_MONTH_START:
        return d == 1;
    case OP_DF_DT_IS_MONTH_END:
        return last;
    case OP_DF_DT_IS_QUARTER_START:
        return d == 1 && m % 3 == 1;
    case OP_DF_DT_IS_QUARTER_END:
        return last && m % 3 == 0;
    case OP_DF_DT_IS_YEAR_START:
        return d == 1 && m == 1;
    case OP_DF_DT_IS_YEAR_END:
        return d == 31 && m == 12;
    default: /* OP_DF_DT_IS_LEAP_YEAR */
        return leap(y);
    }
}

/* strftime of one datetime (not NaT) by fmt as Python's datetime.strftime
 * gives it: %f the microseconds, %z and %Z nothing (naive), %s the seconds
 * since the epoch, the rest the C library's strftime in the C locale
 * (which Python calls too). The length written into out (len bytes). */
static size_t dt_strftime(const char *fmt, int64_t ns, char *out, size_t len)
{
    int64_t days, rest = day_rest(ns, &days), y;
    int m, d;
    date_civil_from_days(days, &y, &m, &d);
    struct tm tm = {0};
    tm.tm_year = (int)(y - 1900);
    tm.tm_mon = m - 1;
    tm.tm_mday = d;
    tm.tm_hour = (int)(rest / 3600000000000LL);
    tm.tm_min = (int)(rest / 60000000000LL % 60);
    tm.tm_sec = (int)(rest / 1000000000 % 60);
    tm.tm_wday = (weekday(days) + 1) % 7; /* Sunday 0 */
    tm.tm_yday = (int)(days - date_days_from_civil(y, 1, 1));
    char f2[1024];
    size_t at = 0;
    for (size_t i = 0; fmt[i] && at + 32 < sizeof f2; i++) {
        if (fmt[i] != '%' || !fmt[i + 1]) {
            f2[at++] = fmt[i];
            continue;
        }
        char c = fmt[++i];
        if (c == 'f')
            at += (size_t)snprintf(f2 + at, sizeof f2 - at, "%06lld",
                                   (long long)(rest % 1000000000 / 1000));
        else if (c == 's')
            at += (size_t)snprintf(f2 + at, sizeof f2 - at, "%lld",
                                   (long long)floordiv(ns, 1000000000));
        else if (c != 'z' && c != 'Z') {
            f2[at++] = '%';
            f2[at++] = c;
        }
    }
    f2[at] = 0;
    if (!at) return 0;
    size_t w = strftime(out, len, f2, &tm);
    return w;
}

/* The text of datetime ns (not NaT) for a string-valued dt op: its
 * strftime by fmt, or its day's or month's name; the length written into
 * buf (len bytes). */
static size_t dt_text(op_t op, const char *fmt, int64_t ns, char *buf, size_t len)
{
    if (op == OP_DF_DT_STRFTIME) return dt_strftime(fmt, ns, buf, len);
    int64_t days = floordiv(ns, DATE_NS_PER_DAY), y;
    int m, d;
    date_civil_from_days(days, &y, &m, &d);
    const char *s = op == OP_DF_DT_DAY_NAME ? day_names[weekday(days)] : month_names[m - 1];
    return (size_t)snprintf(buf, len, "%s", s);
}

/* day_name, month_name and strftime of a chunk: strings, missing for NaT */
static int dt_strings(op_t op, const char *fmt, const int64_t *v, int64_t n, fcol_t *o)
{
    char buf[4096];
    int64_t nb = 1;
    bool nat = false;
    for (int64_t i = 0; i < n; i++) {
        nat |= v[i] == DATE_NAT;
        if (v[i] != DATE_NAT) nb += (int64_t)dt_text(op, fmt, v[i], buf, sizeof buf);
    }
    if (fcol_alloc(o, FT_STRING, n, nb, nat)) return -1;
    int64_t at = 0;
    for (int64_t i = 0; i < n; i++) {
        if (v[i] != DATE_NAT) {
            size_t l = dt_text(op, fmt, v[i], buf, sizeof buf);
            memcpy(o->bytes + at, buf, l);
            at += (int64_t)l;
        }
        o->offsets[i + 1] = at;
        if (o->valid) o->valid[i] = v[i] != DATE_NAT;
    }
    o->bytes[at] = 0;
    return 0;
}

/* ------------------------------------------------------------------ strptime */

static const char *const MONTHS[] = {"january",   "february", "march",    "april",
                                     "may",       "june",     "july",     "august",
                                     "september", "october",  "november", "december"};
static const char *const DAYS[] = {"monday", "tuesday",  "wednesday", "thursday",
                                   "friday", "saturday", "sunday"};

typedef struct {
    int y, m, d, H, I, M, S, j, ampm; /* -1: not given */
    int64_t f;
    bool y2;
    int64_t *budget; /* match steps left: a format such as "%f%f%f..." backtracks */
} tm_parts_t;

/* Python's TimeRE alternatives for a numeric directive, in its order */
static const char *const *num_alts(char c)
{
    static const char *const dA[] = {"3[0-1]", "[1-2]d", "0[1-9]", "[1-9]", " [1-9]", NULL};
    static const char *const HA[] = {"2[0-3]", "[0-1]d", "d", NULL};
    static const char *const IA[] = {"1[0-2]", "0[1-9]", "[1-9]", NULL};
    static const char *const mA[] = {"1[0-2]", "0[1-9]", "[1-9]", NULL};
    static const char *const MA[] = {"[0-5]d", "d", NULL};
    static const char *const SA[] = {"6[0-1]", "[0-5]d", "d", NULL};
    static const char *const yA[] = {"dd", NULL};
    static const char *const YA[] = {"dddd", NULL};
    static const char *const jA[] = {"36[0-6]", "3[0-5]d", "[1-2]dd", "0[1-9]d", "00[1-9]",
                                     "[1-9]d",  "0[1-9]",  "[1-9]",   NULL};
    switch (c) {
    case 'd':
        return dA;
    case 'H':
        return HA;
    case 'I':
        return IA;
    case 'm':
        return mA;
    case 'M':
        return MA;
    case 'S':
        return SA;
    case 'y':
        return yA;
    case 'Y':
        return YA;
    case 'j':
        return jA;
    default:
        return NULL;
    }
}

/* how many bytes of s[i..n) the alternative a (classes [x-y], d a digit,
 * other characters themselves) matches, or -1; *v its digits' value */
static int alt_match(const char *a, const char *s, size_t n, size_t i, int *v)
{
    int k = 0;
    *v = 0;
    for (; *a; k++, i++) {
        if (i >= n) return -1;
        char c = s[i];
        if (*a == '[') {
            if (c < a[1] || c > a[3]) return -1;
            a += 5;
        } else if (*a == 'd') {
            if (c < '0' || c > '9') return -1;
            a++;
        } else {
            if (c != *a) return -1;
            a++;
            if (c == ' ') continue; /* " [1-9]": a padded day */
        }
        *v = *v * 10 + (c - '0');
    }
    return k;
}

static bool is_ws(char c)
{
    return c == ' ' || (c >= '\t' && c <= '\r');
}

/* a name of names (case ignored), longest first as Python's: its index, *len */
static int name_match(const char *const *names, int cnt, bool abbr, const char *s, size_t n,
                      size_t i, size_t *len)
{
    for (int pass = 0; pass < 2; pass++)
        for (int k = 0; k < cnt; k++) {
            size_t l = abbr ? 3 : strlen(names[k]);
            if (pass == 0 && !abbr && l < 5) continue; /* the long names first */
            if (pass == 1 && !abbr && l >= 5) continue;
            if (i + l <= n && !strncasecmp(s + i, names[k], l)) {
                *len = l;
                return k;
            }
        }
    return -1;
}

/* the format from fp on against s from i: the end of the first match (as
 * Python's regex finds it, trying each directive's alternatives in order),
 * or -1 */
static int64_t fmt_match(const char *fp, const char *s, size_t n, size_t i, tm_parts_t *t)
{
    if (--*t->budget < 0) return -1;
    while (*fp) {
        if (is_ws(*fp)) { /* \s+ */
            while (is_ws(*fp))
                fp++;
            if (i >= n || !is_ws(s[i])) return -1;
            size_t e = i;
            while (e < n && is_ws(s[e]))
                e++;
            /* greedy, giving back what the rest needs */
            for (size_t k = e; k > i; k--) {
                int64_t r = fmt_match(fp, s, n, k, t);
                if (r >= 0) return r;
            }
            return -1;
        }
        if (*fp != '%') {
            if (i >= n || tolower((unsigned char)s[i]) != tolower((unsigned char)*fp)) return -1;
            fp++;
            i++;
            continue;
        }
        char c = fp[1];
        fp += 2;
        if (c == '%') {
            if (i >= n || s[i] != '%') return -1;
            i++;
            continue;
        }
        if (c == 'f') { /* [0-9]{1,9}, greedy */
            size_t e = i;
            while (e < n && e - i < 9 && s[e] >= '0' && s[e] <= '9')
                e++;
            for (size_t k = e; k > i; k--) {
                int64_t f = 0;
                for (size_t q = i; q < k; q++)
                    f = f * 10 + (s[q] - '0');
                for (size_t q = k - i; q < 9; q++)
                    f *= 10;
                tm_parts_t u = *t;
                u.f = f;
                int64_t r = fmt_match(fp, s, n, k, &u);
                if (r >= 0) {
                    *t = u;
                    return r;
                }
            }
            return -1;
        }
        if (c == 'b' || c == 'B' || c == 'a' || c == 'A' || c == 'p') {
            size_t l = 0;
            int k;
            if (c == 'p')
                k = i + 2 <= n && !strncasecmp(s + i, "am", 2)   ? (l = 2, 0)
                    : i + 2 <= n && !strncasecmp(s + i, "pm", 2) ? (l = 2, 1)
                                                                 : -1;
            else if (c == 'b' || c == 'B')
                k = name_match(MONTHS, 12, c == 'b', s, n, i, &l);
            else
                k = name_match(DAYS, 7, c == 'a', s, n, i, &l);
            if (k < 0) return -1;
            if (c == 'p') t->ampm = k;
            if (c == 'b' || c == 'B') t->m = k + 1;
            i += l;
            continue;
        }
        const char *const *alts = num_alts(c);
        if (!alts) return -1;
        for (int q = 0; alts[q]; q++) {
            int v, l = alt_match(alts[q], s, n, i, &v);
            if (l < 0) continue;
            tm_parts_t u = *t;
            switch (c) {
            case 'd':
                u.d = v;
                break;
            case 'H':
                u.H = v;
                break;
            case 'I':
                u.I = v;
                break;
            case 'm':
                u.m = v;
                break;
            case 'M':
                u.M = v;
                break;
            case 'S':
                u.S = v;
                break;
            case 'y':
                u.y = v;
                u.y2 = true;
                break;
            case 'Y':
                u.y = v;
                u.y2 = false;
                break;
            default:
                u.j = v;
            }
            int64_t r = fmt_match(fp, s, n, i + (size_t)l, &u);
            if (r >= 0) {
                *t = u;
                return r;
            }
        }
        return -1;
    }
    return (int64_t)i;
}

const char *date_format_bad(const char *fmt, char *buf, size_t len)
{
    for (const char *p = fmt; *p; p++) {
        if (*p != '%') continue;
        if (!p[1] || !strchr("YmdHIpMSfyjbBaA%", p[1])) {
            snprintf(buf, len, "%%%.1s", p[1] ? p + 1 : "");
            return buf;
        }
        p++;
    }
    return NULL;
}

int date_strptime(const char *s, size_t n, const char *fmt, int64_t *ns, const char **why)
{
    int64_t budget = 100000;
    tm_parts_t t = {.y = -1,
                    .m = -1,
                    .d = -1,
                    .H = -1,
                    .I = -1,
                    .M = -1,
                    .S = -1,
                    .j = -1,
                    .ampm = -1,
                    .budget = &budget};
    int64_t e = fmt_match(fmt, s, n, 0, &t);
    *why = budget < 0 ? "is too ambiguous for the format (100000 match steps)"
                      : "does not match format";
    if (e < 0) return -1;
    if ((size_t)e != n) {
        *why = "unconverted data remains";
        return -1;
    }
    int64_t y = t.y < 0 ? 1900 : t.y2 ? (t.y <= 68 ? 2000 + t.y : 1900 + t.y) : t.y;
    int m = t.m < 0 ? 1 : t.m, d = t.d < 0 ? 1 : t.d, H = t.H < 0 ? 0 : t.H;
    if (t.I >= 0) { /* Python: 12 AM is 0, PM adds 12 */
        H = t.I;
        if (t.ampm != 1 && H == 12) H = 0;
        if (t.ampm == 1 && H != 12) H += 12;
    }
    int M = t.M < 0 ? 0 : t.M, S = t.S < 0 ? 0 : t.S;
    int64_t days;
    if (t.j >= 0 && t.m < 0 && t.d < 0) {
        if (t.j < 1 || t.j > 365 + (month_days(y, 2) == 29)) {
            *why = "day of the year is out of range";
            return -1;
        }
        days = date_days_from_civil(y, 1, 1) + t.j - 1;
    } else {
        if (d > month_days(y, m) || S > 59) {
            *why = S > 59 ? "second must be in 0..59" : "day is out of range for month";
            return -1;
        }
        days = date_days_from_civil(y, m, d);
    }
    int64_t v, secs = days * 86400 + H * 3600 + M * 60 + S;
    if (__builtin_mul_overflow(secs, (int64_t)1000000000, &v) ||
        __builtin_add_overflow(v, t.f, &v) || v == DATE_NAT) {
        *why = "is out of the range of datetime64[ns] (1677-09-21 to 2262-04-11)";
        return -1;
    }
    *ns = v;
    return 0;
}

int df_to_datetime(const df_node_t *d, const frame_t *in, frame_t *out, char *err, size_t errlen)
{
    const fcol_t *c = &in->cols[0];
    int64_t n = c->n;
    bool td = d->cols[0].unit == FU_TD; /* to_timedelta */
    const char *fn = td ? "to_timedelta" : "to_datetime";
    if (df_out_like(d, in, out)) goto fail;
    fcol_t *o = &out->cols[0];
    if (fcol_alloc(o, FT_INT64, n, 0, false)) goto fail;
    o->unit = td ? FU_TD : FU_NS;
    int64_t *y = o->data;
    for (int64_t i = 0; i < n; i++) {
        y[i] = DATE_NAT;
        if (fcol_is_na(c, i)) continue;
        const char *why = NULL;
        if (c->type == FT_STRING) {
            int64_t l;
            const char *s = fcol_str(c, i, &l);
            if (l == 0) continue; /* pandas: "" is NaT */
            int rc = td       ? td_parse(s, (size_t)l, &y[i], &why)
                     : d->pat ? date_strptime(s, (size_t)l, d->pat, &y[i], &why)
                              : date_parse_dayfirst(s, (size_t)l, d->dayfirst, &y[i], &why);
            if (rc == 0 || d->drop) {
                if (rc) y[i] = DATE_NAT;
                continue;
            }
            frame_free(out);
            if (td)
                return errmsg(err, errlen, "to_timedelta: '%.*s' %s", (int)(l < 80 ? l : 80), s,
                              why);
            return errmsg(err, errlen, "to_datetime: time data '%.*s' %s%s%s%s",
                          (int)(l < 80 ? l : 80), s, why, d->pat ? " '" : "", d->pat ? d->pat : "",
                          d->pat ? "'" : "");
        }
        if (c->type == FT_INT64 && c->unit != FU_NONE) {
            y[i] = ((const int64_t *)c->data)[i]; /* a datetime already */
            continue;
        }
        bool bad;
        if (c->type == FT_FLOAT64 && td) {
            /* pandas 1.5's sequence_to_td64ns: the whole part times the
             * unit, plus the fraction rounded to the unit's digits (9 for
             * seconds and longer, 6 ms, 3 us) times the unit, truncated */
            double x = ((const double *)c->data)[i];
            if (x != x) continue;
            int64_t m = d->n;
            int p = m >= 1000000000 ? 9 : m == 1000000 ? 6 : m == 1000 ? 3 : 0;
            bad = !(x > -9223372036854775808.0 && x < 9223372036854775808.0);
            if (!bad) {
                int64_t base = (int64_t)x;
                double frac = x - (double)base, sc = 1;
                for (int q = 0; q < p; q++)
                    sc *= 10;
                if (p) frac = rint(frac * sc) / sc;
                double fm = frac * (double)m;
                bad = __builtin_mul_overflow(base, m, &y[i]) ||
                      __builtin_add_overflow(y[i], (int64_t)fm, &y[i]);
            }
        } else if (c->type == FT_FLOAT64) {
            /* pandas 1.5's array_with_unit_to_datetime: x times the unit in
             * float64, truncated to whole nanoseconds */
            double x = ((const double *)c->data)[i] * (double)d->n;
            bad = !(x > -9223372036854775808.0 && x < 9223372036854775808.0);
            if (!bad) y[i] = (int64_t)x;
        } else {
            bad = __builtin_mul_overflow(((const int64_t *)c->data)[i], d->n, &y[i]);
        }
        if (bad || y[i] == DATE_NAT) {
            if (d->drop) {
                y[i] = DATE_NAT;
                continue;
            }
            frame_free(out);
            if (td)
                return errmsg(err, errlen,
                              "to_timedelta: row %lld is out of the range of timedelta64[ns] "
                              "(about 106751 days either way): pandas' OutOfBoundsTimedelta",
                              (long long)i);
            return errmsg(err, errlen,
                          "to_datetime: row %lld is out of the range of datetime64[ns] "
                          "(1677-09-21 to 2262-04-11): pandas' OutOfBoundsDatetime",
                          (long long)i);
        }
    }
    return 0;
fail:
    frame_free(out);
    return errmsg(err, errlen, "%s: out of memory", fn);
}

bool date_dt_of_td(op_t op)
{
    return op >= OP_DF_DT_DAYS && op <= OP_DF_DT_TOTAL_SECONDS;
}

/* A timedelta's components as pandas' (the days floored, the rest in
 * [0, 1 day)), of a value that is not NaT. */
static int64_t td_field(op_t op, int64_t ns)
{
    int64_t days, rest = day_rest(ns, &days);
    switch (op) {
    case OP_DF_DT_DAYS:
        return days;
    case OP_DF_DT_SECONDS:
        return rest / 1000000000;
    case OP_DF_DT_MICROSECONDS:
        return rest % 1000000000 / 1000;
    default: /* OP_DF_DT_NANOSECONDS */
        return rest % 1000;
    }
}

/* dt.isocalendar(): a DataFrame of the ISO year, week and day of each
 * value, int64 (float64 NaN in a chunk holding NaT; pandas: UInt32 <NA>) */
static int dt_isocalendar(const df_node_t *d, const frame_t *in, frame_t *out, char *err,
                          size_t errlen)
{
    const fcol_t *c = &in->cols[0];
    const int64_t *v = c->data;
    int64_t n = c->n;
    bool nat = false;
    for (int64_t i = 0; i < n && !nat; i++)
        nat = v[i] == DATE_NAT;
    if (frame_alloc(out, false, n, 3, in->nidx) || frame_copy_index(in, out)) goto fail;
    for (int k = 0; k < 3; k++)
        if (flabel_set(&out->names[k], d->cols[k].name, false) ||
            fcol_alloc(&out->cols[k], nat ? FT_FLOAT64 : FT_INT64, n, 0, false))
            goto fail;
    for (int64_t i = 0; i < n; i++) {
        int64_t days, f[3];
        if (v[i] == DATE_NAT) {
            for (int k = 0; k < 3; k++)
                ((double *)out->cols[k].data)[i] = NAN;
            continue;
        }
        day_rest(v[i], &days);
        iso_calendar(days, &f[0], &f[1], &f[2]);
        for (int k = 0; k < 3; k++)
            if (nat)
                ((double *)out->cols[k].data)[i] = (double)f[k];
            else
                ((int64_t *)out->cols[k].data)[i] = f[k];
    }
    return 0;
fail:
    frame_free(out);
    return errmsg(err, errlen, "dt.isocalendar: out of memory over %lld values", (long long)n);
}

int df_dt_map(const df_node_t *d, op_t op, const frame_t *in, frame_t *out, char *err,
              size_t errlen)
{
    const fcol_t *c = &in->cols[0];
    if (c->type != FT_INT64 || c->unit == FU_NONE)
        return errmsg(err, errlen, "internal: dt accessor of a column that holds no datetimes");
    if (op == OP_DF_DT_ISOCALENDAR) return dt_isocalendar(d, in, out, err, errlen);
    const int64_t *v = c->data;
    int64_t n = c->n;
    ftype_t ty;
    int unit;
    date_dt_type(op, &ty, &unit);
    if (!date_dt_of_td(op) && (ty != FT_INT64 || unit == FU_NS)) {
        if (df_out_like(d, in, out)) goto fail;
        fcol_t *o = &out->cols[0];
        if (ty == FT_STRING) {
            if (dt_strings(op, d->pat, v, n, o)) goto fail;
            return 0;
        }
        if (fcol_alloc(o, ty, n, 0, false)) goto fail;
        o->unit = ty == FT_INT64 ? c->unit == FU_TD ? FU_TD : unit : FU_NONE;
        int64_t u = op == OP_DF_DT_NORMALIZE ? DATE_NS_PER_DAY : d->n;
        op_t r = op == OP_DF_DT_NORMALIZE ? OP_DF_DT_FLOOR : op;
        for (int64_t i = 0; i < n; i++) {
            if (ty == FT_BOOL) {
                ((uint8_t *)o->data)[i] = v[i] != DATE_NAT && is_field(op, v[i]);
                continue;
            }
            int64_t *w = (int64_t *)o->data + i;
            if (v[i] == DATE_NAT) {
                *w = DATE_NAT;
            } else if (!round_to(r, v[i], u, w)) {
                char b[48];
                date_format(v[i], FU_NS, 'T', -2, b, sizeof b);
                frame_free(out);
                return errmsg(err, errlen,
                              "%s: %s to a multiple of %lld ns is out of datetime64[ns]'s range "
                              "(pandas: OutOfBoundsDatetime)",
                              op_name(op), b, (long long)u);
            }
        }
        return 0;
    }
    bool any_nat = false;
    for (int64_t i = 0; i < n && !any_nat; i++)
        any_nat = v[i] == DATE_NAT;
    bool as_float = (any_nat && op != OP_DF_DT_DATE) || op == OP_DF_DT_TOTAL_SECONDS;
    if (df_out_like(d, in, out)) goto fail;
    fcol_t *o = &out->cols[0];
    if (fcol_alloc(o, as_float ? FT_FLOAT64 : FT_INT64, n, 0, false)) goto fail;
    if (op == OP_DF_DT_DATE) o->unit = FU_DATE;
    if (date_dt_of_td(op)) {
        for (int64_t i = 0; i < n; i++) {
            if (op == OP_DF_DT_TOTAL_SECONDS) /* pandas: the nanoseconds / 1e9 */
                ((double *)o->data)[i] = v[i] == DATE_NAT ? NAN : (double)v[i] / 1e9;
            else if (as_float)
                ((double *)o->data)[i] = v[i] == DATE_NAT ? NAN : (double)td_field(op, v[i]);
            else
                ((int64_t *)o->data)[i] = td_field(op, v[i]);
        }
        return 0;
    }
    for (int64_t i = 0; i < n; i++) {
        if (as_float)
            ((double *)o->data)[i] = v[i] == DATE_NAT ? NAN : (double)field(op, v[i]);
        else
            ((int64_t *)o->data)[i] = v[i] == DATE_NAT ? DATE_NAT : field(op, v[i]);
    }
    return 0;
fail:
    frame_free(out);
    return errmsg(err, errlen, "out of memory");
}

static bool same_label(const flabel_t *l, const df_col_t *c)
{
    if (!l->s || !c->name) return !l->s && !c->name;
    return l->is_int == c->is_int && !strcmp(l->s, c->name);
}

void date_stamp_units(const df_node_t *d, frame_t *f)
{
    if (f->ncols == d->ncols)
        for (int k = 0; k < f->ncols; k++)
            if (f->cols[k].type == FT_INT64 && same_label(&f->names[k], &d->cols[k]))
                f->cols[k].unit = d->cols[k].unit;
    if (f->nidx == d->nidx)
        for (int k = 0; k < f->nidx; k++)
            if (f->idx[k].type == FT_INT64 && same_label(&f->idx_names[k], &d->idx[k]))
                f->idx[k].unit = d->idx[k].unit;
}
