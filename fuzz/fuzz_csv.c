/* fuzz_csv.c: csv_read_buffer on arbitrary bytes must return 0 or -1 with a
 * message, never crash or read outside the input. The input is read at two
 * chunk sizes, a small one taken from the first byte (1..16, so chunk
 * boundaries land everywhere, inside quoted fields included) and one that
 * holds the whole input: both must succeed with equal frames (names, types,
 * values bit for bit, NA masks) or both fail with the same message. With
 * the first byte's top bit set, the input's first header name is also read
 * as the only usecols entry; its bits 4..6 pick the separator and the
 * decimal point (a comma, or a semicolon, runs of whitespace ("\s+"), a
 * space, a bar, a tab: the blank-line rules differ when a space or a tab
 * separates, and an implicit index comes of a first data line of one
 * field more than the header; '#' comments beside them and beside ';';
 * ',' for the
 * decimal point beside a semicolon or a tab; no header record, the
 * columns named 0..n-1; na_values, for every column and for column "b",
 * and the default NA strings off; nrows 3 beside a space, skiprows 1
 * beside a tab and a decimal comma (and on_bad_lines "skip"); thousands '.' beside ';' and ',';
 * cp1252 text beside '|'; quotechar '\'' and true_values/false_values
 * beside ';'; quoting none beside a space; header row 1 beside a tab;
 * skiprows as lines 1, 2 and 4 beside ',' and '.'; skipinitialspace
 * beside the space and beside ';', where a quote after spaces opens a
 * field that may hold a line end; skip_blank_lines false beside "\s+"
 * and beside '|'; skipfooter 2 beside ',' and the skipped lines). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "df/csv.h"

static void check_equal(const csv_frame_t *a, const csv_frame_t *b)
{
    if (a->ncols != b->ncols || a->nrows != b->nrows) abort();
    for (int k = 0; k < a->ncols; k++) {
        const csv_column_t *x = &a->cols[k], *y = &b->cols[k];
        if (strcmp(a->names[k], b->names[k]) || x->type != y->type || x->n != a->nrows ||
            y->n != b->nrows)
            abort();
        if ((x->valid == NULL) != (y->valid == NULL)) abort();
        if (x->valid && memcmp(x->valid, y->valid, (size_t)x->n)) abort();
        switch (x->type) {
        case CSV_INT64:
        case CSV_FLOAT64:
            if (memcmp(x->data, y->data, (size_t)x->n * 8)) abort();
            break;
        case CSV_BOOL:
            if (memcmp(x->data, y->data, (size_t)x->n)) abort();
            break;
        case CSV_STRING:
            if (memcmp(x->offsets, y->offsets, (size_t)(x->n + 1) * 8) ||
                memcmp(x->bytes, y->bytes, (size_t)x->offsets[x->n] + 1))
                abort();
            break;
        }
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0) return 0;
    int64_t small = 1 + (data[0] & 15);
    bool use_usecols = data[0] & 0x80;
    static const char *const na[] = {"1", "x", " 2.0"}, *na_cols[] = {NULL, NULL, "b"};
    static const char *const tv[] = {"yes", "1"}, *fv[] = {"no"};
    static const int64_t skl[] = {4, 1, 2};
    static const csv_opts_t opts[8] = {
        {.sep = ',', .decimal = '.', .skip_lines = skl, .nskip = 3, .skipfooter = 2},
        {.sep = ';',
         .decimal = '.',
         .quotechar = '\'',
         .true_values = tv,
         .ntrue = 2,
         .false_values = fv,
         .nfalse = 1},
        {.sep = CSV_SEP_WS, .decimal = '.', .comment = '#', .keep_blank_lines = true},
        {.sep = ' ',
         .decimal = '.',
         .nrows = 3,
         .nrows_set = true,
         .quote_none = true,
         .skipinitialspace = true},
        {.sep = '|',
         .keep_blank_lines = true,
         .decimal = '.',
         .na_values = na,
         .na_cols = na_cols,
         .nna = 3,
         .encoding = CSV_ENC_CP1252},
        {.sep = ';', .decimal = ',', .thousands = '.', .comment = '#', .skipinitialspace = true},
        {.sep = '\t', .decimal = ',', .skiprows = 1, .header = 1, .skip_bad_lines = true},
        {.sep = ',',
         .decimal = '.',
         .header = -1,
         .no_default_na = true,
         .na_values = na,
         .nna = 2}};
    const csv_opts_t *o = &opts[(data[0] >> 4) & 7];
    data++;
    size--;
    /* A heap copy of exactly size bytes, so that ASan sees any over-read. */
    char *buf = malloc(size ? size : 1);
    if (!buf) return 0;
    memcpy(buf, data, size);

    char err1[256], err2[256], name[64] = "";
    const char *uc[1] = {name};
    int nuc = 0;
    if (use_usecols) {
        csv_header_t h;
        if (csv_header_parse(buf, size, o, NULL, 0, &h, err1, sizeof err1) == 0) {
            if (h.ncols > 0 && strlen(h.names[0]) < sizeof name) {
                memcpy(name, h.names[0], strlen(h.names[0]) + 1);
                nuc = 1;
            }
            csv_header_close(&h);
        }
    }
    csv_frame_t a, b;
    err1[0] = err2[0] = '\0';
    int ra = csv_read_buffer(buf, size, o, uc, nuc, small, &a, err1, sizeof err1);
    int rb = csv_read_buffer(buf, size, o, uc, nuc, (int64_t)size + 1, &b, err2, sizeof err2);
    if (ra != rb) abort();
    if (ra < 0) {
        /* every failure carries a message, the same whatever the split */
        if (err1[0] == '\0' || strcmp(err1, err2) != 0) abort();
    } else {
        check_equal(&a, &b);
        csv_frame_close(&a);
        csv_frame_close(&b);
    }
    free(buf);
    return 0;
}
