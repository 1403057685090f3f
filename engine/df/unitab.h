/* unitab.h: what Python's str methods know of each Unicode code point,
 * for the dataframe.str.* ops (dfstr.c). The tables (unitab.c) are
 * generated from Python's unicodedata by scripts/gen-unicode-tables.py;
 * the lookups are here. */
#ifndef MARS_DF_UNITAB_H
#define MARS_DF_UNITAB_H

#include <stddef.h>
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

enum { UC_MAP_UPPER, UC_MAP_LOWER, UC_MAP_TITLE, UC_MAP_FOLD };

typedef struct {
    uint32_t cp;
    uint8_t len;    /* bytes of to */
    const char *to; /* UTF-8, one to three code points */
} uc_map_t;

/* runs of code points with the same bits: run k covers [uc_run_start[k],
 * uc_run_start[k + 1]); the mappings sorted by code point (title: only
 * where it is not the upper mapping) */
extern const uint32_t uc_run_start[];
extern const uint16_t uc_run_flags[];
extern const size_t uc_nruns;
extern const uc_map_t uc_map_upper[], uc_map_lower[], uc_map_title[], uc_map_fold[];
extern const size_t uc_nmap_upper, uc_nmap_lower, uc_nmap_title, uc_nmap_fold;

static inline unsigned uc_props(uint32_t cp)
{
    size_t lo = 0, hi = uc_nruns;
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        if (uc_run_start[mid] <= cp)
            lo = mid;
        else
            hi = mid;
    }
    return uc_run_flags[lo];
}

static inline const uc_map_t *uc_find(const uc_map_t *t, size_t n, uint32_t cp)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (t[mid].cp == cp) return &t[mid];
        if (t[mid].cp < cp)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

/* The full case mapping of cp (str.upper, lower, title of it alone), or
 * NULL where it maps to itself. */
static inline const uc_map_t *uc_map(uint32_t cp, int which)
{
    if (which == UC_MAP_FOLD) { /* str.casefold: the folding, else the lower mapping */
        const uc_map_t *m = uc_find(uc_map_fold, uc_nmap_fold, cp);
        return m ? m : uc_find(uc_map_lower, uc_nmap_lower, cp);
    }
    if (which == UC_MAP_LOWER) return uc_find(uc_map_lower, uc_nmap_lower, cp);
    if (which == UC_MAP_TITLE) {
        const uc_map_t *m = uc_find(uc_map_title, uc_nmap_title, cp);
        if (m) return m; /* (ǅ: to itself, where its upper mapping is Ǆ) */
    }
    return uc_find(uc_map_upper, uc_nmap_upper, cp);
}

#endif
