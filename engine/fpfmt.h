/* fpfmt.h: doubles written as text, fast. fp_digits finds the shortest
 * decimal digits that read back to the same double (of those, the closest
 * to it; of two as close, the even one), as Python's repr and David Gay's
 * dtoa mode 0 do, with one 128-bit multiplication by a power of ten from a
 * table (fpfmt_tab.c) instead of printf's multi-precision arithmetic. */
#ifndef MARS_FPFMT_H
#define MARS_FPFMT_H

#include <stddef.h>
#include <stdint.h>

extern const uint64_t fp_pow10_tab[617][2];

/* v finite and non-zero (the sign is ignored): writes its shortest digits
 * to dig (at most 17, NUL-terminated, no trailing zero), the decimal
 * exponent of the first digit to *x10 (v = 0.d1d2... * 10^(x10 + 1)), and
 * returns the number of digits. */
int fp_digits(double v, char dig[18], int *x10);

/* The JSON form of v that printf's "%.*g" gives at the least precision of
 * 15, 16 and 17 that reads back to v: "0.1", "1e+16", "1.2345678901234567e-05".
 * Non-finite values print as printf prints them ("nan", "inf"). Returns the
 * length written (at most 25 characters plus the NUL), or -1 if len is too
 * small. */
int fp_json(char *b, size_t len, double v);

/* Python's repr(v) (str(float)): "0.1", "100.0", "1e+16", "5e-324",
 * "nan", "inf", "-0.0". Same return as fp_json. */
int fp_repr(char *b, size_t len, double v);

#endif
