/* libFuzzer target: the dataframe.str.* kernels (dfstr.c) on arbitrary
 * bytes, malformed UTF-8 included. The first bytes choose the op and its
 * parameters (a pattern or set, a width, a position); the rest, split at
 * '\n', are the strings (a lone "\x01" line is a missing value). Every
 * result string must lie inside its column's bytes. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "df/dfstr.h"
#include "df/frame.h"

static const op_t OPS[] = {
    OP_DF_STR_LOWER,     OP_DF_STR_UPPER,     OP_DF_STR_TITLE,      OP_DF_STR_CAPITALIZE,
    OP_DF_STR_SWAPCASE,  OP_DF_STR_LEN,       OP_DF_STR_STRIP,      OP_DF_STR_LSTRIP,
    OP_DF_STR_RSTRIP,    OP_DF_STR_ISALPHA,   OP_DF_STR_ISALNUM,    OP_DF_STR_ISDIGIT,
    OP_DF_STR_ISDECIMAL, OP_DF_STR_ISNUMERIC, OP_DF_STR_ISSPACE,    OP_DF_STR_ISLOWER,
    OP_DF_STR_ISUPPER,   OP_DF_STR_ISTITLE,   OP_DF_STR_ZFILL,      OP_DF_STR_PAD,
    OP_DF_STR_CENTER,    OP_DF_STR_LJUST,     OP_DF_STR_RJUST,      OP_DF_STR_FIND,
    OP_DF_STR_RFIND,     OP_DF_STR_COUNT,     OP_DF_STR_MATCH,      OP_DF_STR_FULLMATCH,
    OP_DF_STR_REPEAT,    OP_DF_STR_GET,       OP_DF_STR_SLICE,      OP_DF_STR_SPLIT,
    OP_DF_STR_REPLACE,   OP_DF_STR_CONTAINS,  OP_DF_STR_STARTSWITH, OP_DF_STR_CASEFOLD};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 6) return 0;
    op_t op = OPS[data[0] % (sizeof OPS / sizeof *OPS)];
    int8_t a = (int8_t)data[1], b = (int8_t)data[2];
    size_t pl = data[3] % 8;
    if (size < 6 + pl) return 0;
    char pat[9] = {0};
    memcpy(pat, data + 4, pl);
    if (strlen(pat) != pl) return 0; /* a NUL in the pattern: a JSON string has none */
    const char *rest = (const char *)data + 4 + pl;
    size_t rn = size - 4 - pl;

    df_node_t d = {0};
    df_col_t col = {.type = FT_STRING};
    d.ncols = 1;
    d.cols = &col;
    bool boolean = op >= OP_DF_STR_ISALPHA && op <= OP_DF_STR_ISTITLE;
    boolean |= op == OP_DF_STR_MATCH || op == OP_DF_STR_FULLMATCH || op == OP_DF_STR_CONTAINS ||
               op == OP_DF_STR_STARTSWITH;
    if (boolean) col.type = FT_BOOL;
    d.pat = pl || op == OP_DF_STR_FIND || op == OP_DF_STR_RFIND || op == OP_DF_STR_COUNT ||
                    op == OP_DF_STR_MATCH || op == OP_DF_STR_FULLMATCH || op == OP_DF_STR_REPLACE ||
                    op == OP_DF_STR_CONTAINS || op == OP_DF_STR_STARTSWITH
                ? pat
                : NULL;
    d.repl = op == OP_DF_STR_REPLACE ? "<>" : (data[3] & 0x80) ? "\xc3\xa9" : NULL;
    d.n = op == OP_DF_STR_REPEAT                             ? a % 5
          : op == OP_DF_STR_SPLIT || op == OP_DF_STR_REPLACE ? b % 3
                                                             : a;
    d.how = (uint8_t)b % 3;
    d.sl[0] = a;
    d.sl[1] = b;
    d.sl[2] = (b % 3) ? b % 3 : 1;
    d.sl_has[0] = data[3] & 0x10;
    d.sl_has[1] = data[3] & 0x20;
    d.sl_has[2] = data[3] & 0x40;
    d.sget = a;
    d.regex = op == OP_DF_STR_COUNT || op == OP_DF_STR_MATCH || op == OP_DF_STR_FULLMATCH ||
              ((op == OP_DF_STR_REPLACE || op == OP_DF_STR_CONTAINS) && (data[3] & 0x08));
    char err[256];
    if (d.regex && df_str_compile(&d, err, sizeof err)) return 0;

    /* the strings: lines of rest */
    int64_t n = 1;
    for (size_t i = 0; i < rn; i++)
        n += rest[i] == '\n';
    frame_t in = {0};
    if (frame_alloc(&in, true, n, 1, 1) ||
        fcol_alloc(&in.cols[0], FT_STRING, n, (int64_t)rn + 1, true) ||
        fcol_alloc(&in.idx[0], FT_INT64, n, 0, false)) {
        frame_free(&in);
        df_str_free(&d);
        return 0;
    }
    fcol_t *c = &in.cols[0];
    int64_t row = 0, at = 0;
    size_t start = 0;
    for (size_t i = 0; i <= rn; i++) {
        if (i < rn && rest[i] != '\n') continue;
        size_t len = i - start;
        bool na = len == 1 && rest[start] == 1;
        c->valid[row] = !na;
        if (!na) {
            memcpy(c->bytes + at, rest + start, len);
            at += (int64_t)len;
        }
        c->offsets[row + 1] = at;
        ((int64_t *)in.idx[0].data)[row] = row;
        row++;
        start = i + 1;
    }
    c->bytes[at] = 0;
    frame_t out;
    if (df_str_map(&d, op, &in, &out, err, sizeof err) == 0) {
        const fcol_t *o = &out.cols[0];
        if (o->n != n) abort();
        if (o->type == FT_STRING)
            for (int64_t i = 0; i < n; i++)
                if (o->offsets[i] > o->offsets[i + 1]) abort();
        frame_free(&out);
    }
    frame_free(&in);
    df_str_free(&d);
    return 0;
}
