/* libFuzzer target: the query/eval expression parser (engine/df/expr.c) on
 * arbitrary text against a fixed schema (int64 k, float64 f, bool b,
 * string s). An accepted expression is evaluated over a small frame with
 * NaN, missing strings and extreme integers; nothing may read out of
 * bounds, leak or crash, and a query's result must be bool. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "df/expr.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    if (!text) return 0;
    memcpy(text, data, size);
    text[size] = 0;
    static const char *const names[] = {"k", "f", "b", "s"};
    static const uint8_t types[] = {FT_INT64, FT_FLOAT64, FT_BOOL, FT_STRING};
    char err[300];
    dfexpr_t *e = dfexpr_parse(text, names, types, 4, err, sizeof err);
    if (e) {
        int t = dfexpr_type(e);
        if (t != FT_INT64 && t != FT_FLOAT64 && t != FT_BOOL) abort();
        frame_t f;
        if (frame_alloc(&f, false, 4, 4, 1) == 0) {
            static const int64_t kv[] = {0, -1, INT64_MIN, INT64_MAX};
            static const double fv[] = {0.5, NAN, -0.0, INFINITY};
            int ok = fcol_alloc(&f.cols[0], FT_INT64, 4, 0, false) == 0 &&
                     fcol_alloc(&f.cols[1], FT_FLOAT64, 4, 0, false) == 0 &&
                     fcol_alloc(&f.cols[2], FT_BOOL, 4, 0, true) == 0 &&
                     fcol_alloc(&f.cols[3], FT_STRING, 4, 8, true) == 0 &&
                     fcol_alloc(&f.idx[0], FT_INT64, 4, 0, false) == 0;
            if (ok) {
                memcpy(f.cols[0].data, kv, sizeof kv);
                memcpy(f.cols[1].data, fv, sizeof fv);
                for (int i = 0; i < 4; i++) {
                    ((uint8_t *)f.cols[2].data)[i] = (uint8_t)(i & 1);
                    ((int64_t *)f.idx[0].data)[i] = i;
                }
                f.cols[2].valid[3] = 0;
                memcpy(f.cols[3].bytes, "abparis", 8);
                int64_t off[] = {0, 1, 2, 2, 7};
                memcpy(f.cols[3].offsets, off, sizeof off);
                f.cols[3].valid[2] = 0;
                fcol_t out;
                if (dfexpr_eval(e, &f, &out) == 0) {
                    if (out.n != 4 || out.type != t) abort();
                    fcol_free(&out);
                }
            }
            frame_free(&f);
        }
        dfexpr_free(e);
    }
    free(text);
    return 0;
}
