/* unitab.h: what Python's str methods know of each Unicode code point,
 * tables generated from Python's unicodedata (scripts/gen-unicode-tables.py
 * writes unitab.c), for the dataframe.str.* ops (dfstr.c). */
#ifndef MARS_DF_UNITAB_H
#define MARS_DF_UNITAB_H

#include <stdint.h>

/* uc_props' bits: str.isalpha, isdecimal, isdigit, isnumeric, isspace,
 * isupper and islower of the code point alone; TITLE: a titlecase letter
 * (Lt); CASED: upper, lower or title; IGNORABLE: case-ignorable (str.lower
 * looks past these for its final-sigma rule) */
enum {
    UC_ALPHA = 1 << 0,
    UC_DECIMAL = 1 << 1,
    UC_DIGIT = 1 << 2,
    UC_NUMERIC = 1 << 3,
    UC_SPACE = 1 << 4,
    UC_UPPER = 1 << 5,
    UC_LOWER = 1 << 6,
    UC_TITLE = 1 << 7,
    UC_CASED = 1 << 8,
    UC_IGNORABLE = 1 << 9
};

enum { UC_MAP_UPPER, UC_MAP_LOWER, UC_MAP_TITLE };

typedef struct {
    uint32_t cp;
    uint8_t len;    /* bytes of to */
    const char *to; /* UTF-8, one to three code points */
} uc_map_t;

unsigned uc_props(uint32_t cp);
/* The full case mapping of cp (str.upper, lower, title of it alone), or
 * NULL where it maps to itself. */
const uc_map_t *uc_map(uint32_t cp, int which);

#endif
