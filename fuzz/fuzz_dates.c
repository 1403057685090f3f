/* libFuzzer target: date_parse (read_csv's parse_dates) on arbitrary
 * bytes. An accepted value is written back (date_format, the digits it
 * needs) and read again, which must give the same nanoseconds; its
 * calendar fields must be in range. The same bytes as a frequency
 * (date_parse_freq, dt.floor's freq): accepted, a positive number of
 * nanoseconds; refused, a message. Split at a newline, a to_datetime
 * format (date_strptime) and a value. The same bytes as a timedelta
 * literal (td_parse): accepted, not NaT, and its str (td_format) reads
 * back as the same nanoseconds; refused, a message. The same bytes as a
 * resample rule (rs_parse_rule): accepted, sane fields, and the bin of a
 * time made of the first bytes holds that time (resample_check). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "df/dates.h"
#include "df/resample.h"

static int64_t month_index(int64_t ns)
{
    int64_t y;
    int m, d;
    date_civil_from_days(ns / DATE_NS_PER_DAY - (ns % DATE_NS_PER_DAY < 0), &y, &m, &d);
    return y * 12 + m - 1;
}

/* rule s on time t (by the index, origin epoch, one period per calendar
 * bin): the key's bin holds t; a key outside the range is refused with a
 * message */
static void resample_check(const char *s, int64_t t)
{
    rs_spec_t r = {0};
    char why[200] = "";
    if (rs_parse_rule(s, &r, why, sizeof why)) {
        if (!why[0]) abort();
        return;
    }
    if (r.mult < 1 || (r.kind == RS_TICK && r.step <= 0) ||
        (r.kind == RS_MONTH && r.months != 1 && r.months != 3 && r.months != 12) ||
        (r.kind == RS_WEEK && (r.anchor < 0 || r.anchor > 6)))
        abort();
    if (t == DATE_NAT || r.mult > 1) return;
    r.on = -1;
    r.origin = RS_O_EPOCH;
    frame_t f, out;
    if (frame_alloc(&f, false, 1, 0, 1) || fcol_alloc(&f.idx[0], FT_INT64, 1, 0, false)) abort();
    ((int64_t *)f.idx[0].data)[0] = t;
    char err[200] = "";
    if (rs_bin(&r, &f, NULL, NULL, 0, false, &out, err, sizeof err)) {
        if (!err[0]) abort();
        frame_free(&f);
        return;
    }
    int64_t k = ((const int64_t *)out.cols[0].data)[0];
    __int128 d = (__int128)t - k;
    if (r.kind == RS_TICK) {
        if (r.closed_right ? (d <= 0 || d > r.step) : (d < 0 || d >= r.step)) abort();
    } else if (r.kind == RS_WEEK) {
        int64_t day = k / DATE_NS_PER_DAY - (k % DATE_NS_PER_DAY < 0);
        if (k % DATE_NS_PER_DAY != 0 || ((day + 3) % 7 + 7) % 7 != r.anchor ||
            d <= -7 * DATE_NS_PER_DAY || d >= DATE_NS_PER_DAY)
            abort();
    } else {
        int64_t mk = month_index(k), mt = month_index(t);
        int64_t first = r.end_label ? mk - r.months + 1 : mk;
        if (k % DATE_NS_PER_DAY != 0 || mt < first || mt >= first + r.months ||
            ((first % r.months) + r.months) % r.months != 0)
            abort();
    }
    frame_free(&out);
    frame_free(&f);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    int64_t ns, back, y;
    const char *why;
    char buf[64], fwhy[200];
    if (size < 128) {
        char f[128];
        memcpy(f, data, size);
        f[size] = 0;
        int64_t fns = 0;
        fwhy[0] = 0;
        if (date_parse_freq(f, &fns, fwhy, sizeof fwhy) == 0 ? fns <= 0 : !fwhy[0]) abort();
        int64_t t = 0;
        memcpy(&t, data, size < 8 ? size : 8);
        resample_check(f, t);
        resample_check(f, t / 1024);
    }
    /* to_datetime's format: the bytes up to the first newline are the
     * format, the rest the value; accepted, a datetime (not NaT) */
    const uint8_t *nl = memchr(data, '\n', size);
    if (nl && nl - data < 100) {
        char fmt[100], bad[8];
        memcpy(fmt, data, (size_t)(nl - data));
        fmt[nl - data] = 0;
        if (strlen(fmt) == (size_t)(nl - data) && !date_format_bad(fmt, bad, sizeof bad)) {
            int64_t v = 0;
            const char *w = NULL;
            if (date_strptime((const char *)nl + 1, size - (size_t)(nl - data) - 1, fmt, &v, &w) ==
                        0
                    ? v == DATE_NAT
                    : !w || !*w)
                abort();
        }
    }
    if (td_parse((const char *)data, size, &ns, &why) == 0) {
        if (ns == DATE_NAT) abort();
        int n = td_format(ns, false, buf, sizeof buf);
        if (n <= 0 || (size_t)n >= sizeof buf) abort();
        if (td_parse(buf, (size_t)n, &back, &why) != 0 || back != ns) abort();
        if (ns % DATE_NS_PER_DAY == 0) {
            n = td_format(ns, true, buf, sizeof buf);
            if (td_parse(buf, (size_t)n, &back, &why) != 0 || back != ns) abort();
        }
    } else if (!why || !*why) {
        abort();
    }
    if (date_parse((const char *)data, size, &ns, &why) != 0) {
        if (!why || !*why) abort();
        return 0;
    }
    if (ns == DATE_NAT) abort();
    int n = date_format(ns, FU_NS, 'T', -2, buf, sizeof buf);
    if (n <= 0 || (size_t)n >= sizeof buf) abort();
    if (date_parse(buf, (size_t)n, &back, &why) != 0 || back != ns) abort();
    int m, d;
    int64_t days = ns / DATE_NS_PER_DAY - (ns % DATE_NS_PER_DAY < 0);
    date_civil_from_days(days, &y, &m, &d);
    if (m < 1 || m > 12 || d < 1 || d > 31 || date_days_from_civil(y, m, d) != days) abort();
    return 0;
}
