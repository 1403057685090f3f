/* multi.c: held outputs of ops with several results (multi.h). */
#include "multi.h"

#include <stdlib.h>
#include <string.h>

#include "../errmsg.h"

static bool truthy(const void *p, dtype_t dt, int64_t i)
{
    switch (dt) {
    case DT_BOOL:
        return ((const uint8_t *)p)[i] != 0;
    case DT_INT32:
        return ((const int32_t *)p)[i] != 0;
    case DT_INT64:
        return ((const int64_t *)p)[i] != 0;
    case DT_FLOAT32:
        return ((const float *)p)[i] != 0; /* NaN is nonzero, -0.0 is zero */
    default:
        return ((const double *)p)[i] != 0;
    }
}

int df_multi_run(const tile_t *t, int32_t ji, const dfx_in_t *ins, void **blob, size_t *blob_len,
                 char *err, size_t errlen)
{
    const job_t *j = &t->jobs[ji];
    const jin_t *in = &j->in[0];
    int nd = in->ndim, axis = (int)j->off[1];
    int64_t r0 = j->off[0], n = 1, st[MR_MAXDIM];
    for (int d = nd - 1; d >= 0; d--) {
        st[d] = n;
        n *= in->shape[d];
    }
    if ((size_t)n * dt_size(in->dt) > ins[0].len) {
        errmsg(err, errlen, "internal: nonzero block of %lld elements, %zu bytes", (long long)n,
               ins[0].len);
        return -1;
    }
    int64_t cnt = 0;
    for (int64_t i = 0; i < n; i++)
        cnt += truthy(ins[0].data, in->dt, i);
    frame_t f = {0};
    if (frame_alloc(&f, true, cnt, 1, 1) || fcol_alloc(&f.cols[0], FT_INT64, cnt, 0, false) ||
        fcol_alloc(&f.idx[0], FT_INT64, cnt, 0, false)) {
        frame_free(&f);
        errmsg(err, errlen, "out of memory");
        return -1;
    }
    f.range_index = true;
    int64_t *v = f.cols[0].data, *ix = f.idx[0].data, k = 0;
    for (int64_t i = 0; i < n; i++) {
        if (!truthy(ins[0].data, in->dt, i)) continue;
        int64_t c = (i / st[axis]) % in->shape[axis];
        v[k] = axis == 0 ? c + r0 : c;
        ix[k] = k;
        k++;
    }
    size_t len = frame_blob_size(&f);
    void *b = malloc(len ? len : 1);
    if (!b) {
        frame_free(&f);
        errmsg(err, errlen, "out of memory");
        return -1;
    }
    frame_serialize(&f, b);
    frame_free(&f);
    *blob = b;
    *blob_len = len;
    return 0;
}
