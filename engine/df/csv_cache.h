/* csv_cache.h: what validating a read_csv learned of a file (csv.h's
 * phases 2 and 3: its ranges, their row counts and the merged summary of
 * its values), kept per process so that the next document reading the
 * same unchanged file skips both passes over it. In the cluster every
 * process that validates a document (the supervisor, each worker) scans
 * each file it reads; with this a file is scanned once per process, not
 * once per task. An entry is keyed by the file's identity (device, inode,
 * size, modification time in nanoseconds), its resolved path, the chunk
 * size, the separator, the decimal point, the thousands separator, the
 * comment and quote characters and the header's selected columns (a read
 * with na_values, keep_default_na false, true_values or false_values is
 * not kept); a changed file misses.
 * Small files are not kept (their scan is cheap). Thread-safe. */
#ifndef MARS_DF_CSV_CACHE_H
#define MARS_DF_CSV_CACHE_H

#include <stdint.h>
#include <sys/stat.h>

#include "csv.h"

/* Files smaller than this are scanned every time. */
#define CSV_CACHE_MIN_BYTES ((int64_t)1 << 20)
#define CSV_CACHE_ENTRIES 16

typedef struct {
    int64_t nr;
    csv_range_t *rg; /* nr ranges (file 0) */
    int64_t *rows;   /* nr row counts */
    uint32_t *kinds; /* h->nsel merged summaries */
} csv_scan_t;

/* A hit: 1 with *out holding malloc'ed copies (csv_scan_free); 0 on a
 * miss (or no memory). */
int csv_cache_get(const char *path, const struct stat *st, int64_t chunk, const csv_header_t *h,
                  csv_scan_t *out);
/* Keeps a copy of s (a no-op for small files or without memory). */
void csv_cache_put(const char *path, const struct stat *st, int64_t chunk, const csv_header_t *h,
                   const csv_scan_t *s);
void csv_scan_free(csv_scan_t *s);

#endif
