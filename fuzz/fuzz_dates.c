/* libFuzzer target: date_parse (read_csv's parse_dates) on arbitrary
 * bytes. An accepted value is written back (date_format, the digits it
 * needs) and read again, which must give the same nanoseconds; its
 * calendar fields must be in range. The same bytes as a frequency
 * (date_parse_freq, dt.floor's freq): accepted, a positive number of
 * nanoseconds; refused, a message. Split at a newline, a to_datetime
 * format (date_strptime) and a value. The same bytes as a timedelta
 * literal (td_parse): accepted, not NaT, and its str (td_format) reads
 * back as the same nanoseconds; refused, a message. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "df/dates.h"

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
