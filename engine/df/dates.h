/* dates.h: datetime64[ns] and timedelta64[ns] columns (frame.h's FU_NS,
 * FU_DATE and FU_TD units).
 *
 * A datetime is an INT64 column of nanoseconds since 1970-01-01T00:00:00,
 * naive (no time zone), as numpy's datetime64[ns]; INT64_MIN is NaT.
 * Calendar arithmetic is the proleptic Gregorian calendar on days since
 * the epoch (floor division, so 1969 and earlier work), which covers
 * pandas' whole range 1677-09-21 .. 2262-04-11.
 *
 * Text forms read (read_csv's parse_dates) are ISO 8601 without a zone:
 * YYYY-MM-DD, then optionally a 'T' or a space and HH:MM, :SS and a
 * fraction of 1 to 9 digits; '/' may stand for '-' in the date. A value
 * with a zone (Z, +01:00) is refused: pandas would make the column
 * tz-aware, which the engine does not have. Written forms: JSON
 * "2024-03-01T12:00:00" (a fraction only when the value has one), CSV as
 * pandas' to_csv: "2024-03-01 12:00:00" with the fraction digits the
 * column needs, or "2024-03-01" when every value of the column is at
 * midnight; dates "2024-03-01". */
#ifndef MARS_DF_DATES_H
#define MARS_DF_DATES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dfgraph.h"

#define DATE_NAT INT64_MIN
#define DATE_NS_PER_DAY 86400000000000LL

/* Days since 1970-01-01 of a proleptic Gregorian date, and back. */
int64_t date_days_from_civil(int64_t y, int m, int d);
void date_civil_from_days(int64_t days, int64_t *y, int *m, int *d);

/* Parses s[0..n) (one of the forms above) into *ns. Returns 0, or -1 with
 * why in why (a static string). */
int date_parse(const char *s, size_t n, int64_t *ns, const char **why);
/* The same with pandas' dayfirst: a delimited date (01/02/2024) is read
 * DD/MM/YYYY where its second number can be a month, as pandas 1.5's
 * parse_delimited_date and dateutil read it (13/01 is the 13th either
 * way, and so is 12/31 the 31st); a valid ISO date is not affected, and
 * one that is no date as YYYY-MM-DD (2024-13-01) is read YYYY-DD-MM where
 * its last number can be a month, as dateutil does. */
int date_parse_dayfirst(const char *s, size_t n, bool dayfirst, int64_t *ns, const char **why);

/* Writes ns as text: unit FU_DATE, or digits -1, gives the date; else the
 * date and time with sep between them ('T' for JSON, ' ' for CSV) and
 * `digits` digits of fraction (0, 3, 6 or 9; -2: as many as this value
 * needs, date_frac_digits). Returns the length written (buf of at least 40
 * bytes). */
int date_format(int64_t ns, int unit, char sep, int digits, char *buf, size_t len);
/* pandas' str of a timedelta of ns nanoseconds ("1 days 02:00:00",
 * "-1 days +23:59:59.500000"), or with even_days "1 days" (to_csv's form
 * of a column whose values are all whole days). Returns the length
 * written (buf of at least 40 bytes). date_format with unit FU_TD calls
 * it (digits -1: even_days). */
int td_format(int64_t ns, bool even_days, char *buf, size_t len);
/* A timedelta literal in pandas' forms ("1 days 02:00:00", "-1 days
 * +23:00:00", "1 day", "02:30:00.5", "1D", "2h30min", "-1.5h") into *ns.
 * Returns 0, or -1 with why set (a static string). */
int td_parse(const char *s, size_t n, int64_t *ns, const char **why);
/* The fraction digits ns needs: 0, or 3, 6, 9 (ms, us, ns, as pandas). */
int date_frac_digits(int64_t ns);

/* Converts the string column c (read as text by read_csv) into a
 * datetime64[ns] column in place; empty and NA values become NaT. A value
 * that is not a date fails naming the column, its row in the chunk plus
 * first_row, and the value. */
int date_column_from_strings(fcol_t *c, const char *name, int64_t first_row, bool dayfirst,
                             char *err, size_t errlen);

/* Python's strptime of s[0..n) with fmt (pandas' to_datetime format: %Y
 * %m %d %H %I %p %M %S %f %y %j %b %B %a %A %%, whitespace matching any
 * run of it, case ignored): 0, or -1 with why set (a static string). */
int date_strptime(const char *s, size_t n, const char *fmt, int64_t *ns, const char **why);
/* NULL when fmt has only the directives above, else the bad one ("%x"). */
const char *date_format_bad(const char *fmt, char *buf, size_t len);
/* pd.to_datetime of a Series chunk (dataframe.to_datetime): strings by
 * d->pat (a format; NULL: the forms date_parse reads), numbers of d->n
 * nanoseconds each (the unit), datetimes as they are; d->drop: errors
 * "coerce" (NaT where a value fails) */
int df_to_datetime(const df_node_t *d, const frame_t *in, frame_t *out, char *err, size_t errlen);

/* The dt accessor (dataframe.dt.year ... dataframe.dt.date) on a Series
 * chunk. Fields are int64, or float64 with NaN where the chunk holds NaT
 * (as pandas); date is a FU_DATE column; floor, ceil, round (to d->n
 * nanoseconds) and normalize datetimes (NaT kept; a result past
 * datetime64[ns]'s range fails the job); day_name and month_name strings
 * (missing for NaT); the is_* fields bools (false for NaT). */
int df_dt_map(const df_node_t *d, op_t op, const frame_t *in, frame_t *out, char *err,
              size_t errlen);
/* Whether dt accessor op is a timedelta's (days, seconds, microseconds,
 * nanoseconds, total_seconds: ints, float64 with NaN in a chunk holding
 * NaT, total_seconds always float64); the others are a datetime's. */
bool date_dt_of_td(op_t op);
/* The type and unit of dt accessor op's column, as validated (the fields
 * int64 here, float64 in a chunk holding NaT). */
void date_dt_type(op_t op, ftype_t *type, int *unit);
/* A fixed frequency as pandas' to_offset reads it ("D", "h", "15min",
 * "1.5h", "2h30min"; units D, H/h, T/min, S/s, L/ms, U/us, N/ns): *ns > 0.
 * Returns 0, or -1 with why (pandas' words for a calendar frequency: "W is
 * a non-fixed frequency"). */
int date_parse_freq(const char *s, int64_t *ns, char *why, size_t len);

/* Sets the units of f's INT64 columns and index levels from the schema d
 * of the node that made f, where f's columns are the schema's (same count,
 * same labels); a job's intermediate frames keep theirs. The one place
 * where a job's result learns what its integers mean (dfexec.c). */
void date_stamp_units(const df_node_t *d, frame_t *f);

/* pandas' dtype name of an INT64 column of unit u ("datetime64[ns]",
 * "object" for dates), or NULL for plain integers. */
const char *date_type_name(int unit);

#endif
