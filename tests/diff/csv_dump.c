/* csv_dump.c: the driver of test_csv.py (built by it, not by the Makefile).
 *   csv_dump [--sep C] [--decimal D] [--header none] [--name N]... [--pos]
 *            [--na V]... [--na-in COL V]... [--no-default-na] [--skiprows K]
 *            [--nrows N] [--thousands T] [--encoding E] [--comment C]
 *            FILE CHUNK_BYTES[,CHUNK_BYTES...] [USECOL...]
 * reads FILE with csv_read_buffer (fields separated by C, default ',';
 * decimal point D, default '.'; no header record; the columns named N...;
 * USECOLs that are positions; V read as missing, in every column or in
 * COL; the default NA strings not; the first K lines skipped; the first N
 * rows only; T separating thousands; the text in encoding E; C starting
 * comments), once for each CHUNK_BYTES (one process serves every chunk
 * size a case tries), and prints one JSON object per read, one per line:
 *   {"columns": [...], "dtypes": [...], "data": [[column 0 values], ...]}
 * (NaN, Infinity and -Infinity as Python's json reads them; NA as null), or
 *   {"error": "message"}
 * Exit status 0 either way; 2 on bad arguments. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "df/csv.h"

static void put_str(const char *s, int64_t n)
{
    putchar('"');
    for (int64_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '"' || c == '\\')
            printf("\\%c", c);
        else if (c < 0x20 || c == 0x7f)
            printf("\\u%04x", c);
        else
            putchar(c);
    }
    putchar('"');
}

static void put_cstr(const char *s)
{
    int64_t n = 0;
    while (s[n])
        n++;
    put_str(s, n);
}

/* One read of the file in chunks of chunk bytes, printed on one line. */
static void dump(const csv_file_t *f, const csv_opts_t *o, const char *const *usecols, int nusecols,
                 long long chunk)
{
    char err[512];
    csv_frame_t fr;
    if (csv_read_buffer(f->buf, f->len, o, usecols, nusecols, chunk, &fr, err, sizeof err) < 0) {
        printf("{\"error\": ");
        put_cstr(err);
        printf("}\n");
        return;
    }
    printf("{\"nrows\": %lld, \"columns\": [", (long long)fr.nrows);
    for (int k = 0; k < fr.ncols; k++) {
        if (k) printf(", ");
        put_cstr(fr.names[k]);
    }
    printf("], \"dtypes\": [");
    for (int k = 0; k < fr.ncols; k++)
        printf("%s\"%s\"", k ? ", " : "", csv_type_name(fr.cols[k].type, fr.cols[k].valid != NULL));
    printf("], \"data\": [");
    for (int k = 0; k < fr.ncols; k++) {
        const csv_column_t *c = &fr.cols[k];
        printf("%s[", k ? ", " : "");
        for (int64_t i = 0; i < c->n; i++) {
            if (i) printf(", ");
            if (c->valid && !c->valid[i]) {
                printf("null");
                continue;
            }
            switch (c->type) {
            case CSV_INT64:
                printf("%lld", (long long)((int64_t *)c->data)[i]);
                break;
            case CSV_FLOAT64: {
                double v = ((double *)c->data)[i];
                if (isnan(v))
                    printf("NaN");
                else if (isinf(v))
                    printf(v > 0 ? "Infinity" : "-Infinity");
                else
                    printf("%.17g", v);
                break;
            }
            case CSV_BOOL:
                printf(((uint8_t *)c->data)[i] ? "true" : "false");
                break;
            case CSV_STRING:
                put_str(c->bytes + c->offsets[i], c->offsets[i + 1] - c->offsets[i]);
                break;
            }
        }
        printf("]");
    }
    printf("]}\n");
    csv_frame_close(&fr);
}

int main(int argc, char **argv)
{
    csv_opts_t o = {.sep = ',', .decimal = '.'};
    const char *names[64], *na[64], *na_cols[64], *tv[64], *fv[64];
    int64_t skip[64];
    long long nrows = -1;
    o.names = names;
    o.true_values = tv;
    o.skip_lines = skip;
    o.false_values = fv;
    o.na_values = na;
    o.na_cols = na_cols;
    for (;;) {
        if (argc > 1 && (!strcmp(argv[1], "--pos") || !strcmp(argv[1], "--no-default-na") ||
                         !strcmp(argv[1], "--quote-none"))) {
            *(argv[1][2] == 'p'   ? &o.usecols_pos
              : argv[1][2] == 'q' ? &o.quote_none
                                  : &o.no_default_na) = true;
            argv++;
            argc--;
            continue;
        }
        if (argc > 1 &&
            (!strcmp(argv[1], "--skipinitialspace") || !strcmp(argv[1], "--skip-bad-lines") ||
             !strcmp(argv[1], "--keep-blank") || !strcmp(argv[1], "--no-index-col"))) {
            *(argv[1][2] == 'k'   ? &o.keep_blank_lines
              : argv[1][2] == 'n' ? &o.no_index_col
              : argv[1][6] == '-' ? &o.skip_bad_lines
                                  : &o.skipinitialspace) = true;
            argv++;
            argc--;
            continue;
        }
        if (argc > 3 && !strcmp(argv[1], "--na-in") && o.nna < 64) {
            na_cols[o.nna] = argv[2];
            na[o.nna++] = argv[3];
            argv += 3;
            argc -= 3;
            continue;
        }
        if (argc <= 2 || strncmp(argv[1], "--", 2)) break;
        if (!strcmp(argv[1], "--sep")) {
            char m[200];
            if (csv_sep_parse(argv[2], &o.sep, m, sizeof m)) {
                fprintf(stderr, "csv_dump: %s\n", m);
                return 2;
            }
        } else if (!strcmp(argv[1], "--decimal"))
            o.decimal = argv[2][0];
        else if (!strcmp(argv[1], "--header"))
            o.header = -1;
        else if (!strcmp(argv[1], "--header-row"))
            o.header = atoi(argv[2]);
        else if (!strcmp(argv[1], "--quotechar"))
            o.quotechar = argv[2][0];
        else if (!strcmp(argv[1], "--skip-line") && o.nskip < 64)
            skip[o.nskip++] = strtoll(argv[2], NULL, 10);
        else if (!strcmp(argv[1], "--true") && o.ntrue < 64)
            tv[o.ntrue++] = argv[2];
        else if (!strcmp(argv[1], "--false") && o.nfalse < 64)
            fv[o.nfalse++] = argv[2];
        else if (!strcmp(argv[1], "--name") && o.nnames < 64)
            names[o.nnames++] = argv[2];
        else if (!strcmp(argv[1], "--encoding")) {
            char e[128];
            if (csv_encoding_parse(argv[2], &o.encoding, e, sizeof e) < 0) return 2;
        } else if (!strcmp(argv[1], "--thousands"))
            o.thousands = argv[2][0];
        else if (!strcmp(argv[1], "--comment"))
            o.comment = argv[2][0];
        else if (!strcmp(argv[1], "--skiprows"))
            o.skiprows = strtoll(argv[2], NULL, 10);
        else if (!strcmp(argv[1], "--skipfooter"))
            o.skipfooter = strtoll(argv[2], NULL, 10);
        else if (!strcmp(argv[1], "--nrows"))
            nrows = strtoll(argv[2], NULL, 10);
        else if (!strcmp(argv[1], "--na") && o.nna < 64) {
            na_cols[o.nna] = NULL;
            na[o.nna++] = argv[2];
        } else
            break;
        argv += 2;
        argc -= 2;
    }
    if (argc < 3) {
        fprintf(stderr,
                "usage: csv_dump [--sep C] [--decimal D] [--header none] [--name N]... "
                "[--pos] [--na V]... [--na-in COL V]... [--no-default-na] "
                "[--skipinitialspace] [--skip-bad-lines] [--keep-blank] [--no-index-col] FILE "
                "CHUNK_BYTES [USECOL...]\n");
        return 2;
    }
    csv_file_t f;
    char err[512];
    if (csv_file_open(&f, argv[1], err, sizeof err) < 0) {
        printf("{\"error\": ");
        put_cstr(err);
        printf("}\n");
        return 0;
    }
    o.nrows_set = nrows >= 0;
    o.nrows = nrows;
    for (const char *c = argv[2]; *c;) {
        char *end;
        long long chunk = strtoll(c, &end, 10);
        dump(&f, &o, (const char *const *)argv + 3, argc - 3, chunk);
        c = *end == ',' ? end + 1 : end + strlen(end);
    }
    csv_file_close(&f);
    return 0;
}
