/* fuzz_jobdesc.c: jobdesc_decode on arbitrary bytes, against a fixed graph,
 * must return 0 or -1 with a message, never crash or read outside the
 * input. When it accepts, every piece it decoded must stay inside its
 * arrays: each assembled input is gathered (tile_gather, tile_gen_pieces)
 * from zeroed sources of the sizes the descriptor gives, under ASan. The
 * corpus holds descriptors of every job of this graph's tile. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "graph.h"
#include "tile.h"

/* Keep what one input may allocate small. */
#define MAX_BYTES (1 << 20)

const char FUZZ_JOBDESC_DOC[] =
    "{\"version\":1,\"nodes\":["
    "{\"key\":\"a\",\"op\":\"arange\",\"stop\":63,\"dtype\":\"float64\",\"chunk_size\":10},"
    "{\"key\":\"m\",\"op\":\"reshape\",\"inputs\":[\"a\"],\"newshape\":[7,9]},"
    "{\"key\":\"r\",\"op\":\"rechunk\",\"inputs\":[\"m\"],\"chunk_size\":[3,4]},"
    "{\"key\":\"t\",\"op\":\"transpose\",\"inputs\":[\"r\"]},"
    "{\"key\":\"s\",\"op\":\"getitem\",\"inputs\":[\"a\"],\"index\":[\"60:2:-7\"]},"
    "{\"key\":\"x\",\"op\":\"random.rand\",\"shape\":[7,9],\"chunk_size\":[4,4],\"seed\":3},"
    "{\"key\":\"y\",\"op\":\"add\",\"inputs\":[\"x\",\"t2\"]},"
    "{\"key\":\"t2\",\"op\":\"transpose\",\"inputs\":[\"t\"]},"
    "{\"key\":\"z\",\"op\":\"sum\",\"inputs\":[\"y\"],\"axis\":0},"
    "{\"key\":\"p\",\"op\":\"matmul\",\"inputs\":[\"r\",\"t\"]},"
    "{\"key\":\"df\",\"op\":\"dataframe.from_tensor\",\"inputs\":[\"m\"],\"chunk_rows\":3},"
    "{\"key\":\"ds\",\"op\":\"dataframe.sum\",\"inputs\":[\"df\"]}],"
    "\"fetch\":[\"t\",\"s\",\"z\",\"p\",\"ds\"]}";

static graph_t *graph(void)
{
    static graph_t *g;
    if (!g) {
        graph_limits_t lim;
        graph_limits_default(&lim);
        char err[256];
        if (graph_parse(FUZZ_JOBDESC_DOC, strlen(FUZZ_JOBDESC_DOC), &lim, NULL, &g, err,
                        sizeof err))
            abort();
    }
    return g;
}

static void gather_all(const tile_t *t)
{
    const jin_t *ins = t->jobs[0].in;
    for (int k = 0; k < t->jobs[0].n_in; k++) {
        const jin_t *in = &ins[k];
        if (in->job >= 0) continue;
        int64_t n = 1;
        for (int d = 0; d < in->ndim; d++)
            n *= in->shape[d];
        if (n * (int64_t)dt_size(in->dt) > MAX_BYTES) continue;
        bool small = true;
        for (int q = 0; q < in->n_pieces && small; q++)
            small = tile_job_nbytes(t, in->pieces[q].src) <= MAX_BYTES;
        for (int q = 0; q < in->n_gpieces && small; q++) {
            int64_t e = 1;
            for (int d = 0; d < in->gpieces[q].ndim; d++)
                e *= in->gpieces[q].len[d];
            small = e * 8 <= MAX_BYTES;
        }
        if (!small) continue;
        void *dst = malloc((size_t)(n * (int64_t)dt_size(in->dt)) + 1);
        const void **srcs = calloc((size_t)in->n_pieces + 1, sizeof(void *));
        for (int q = 0; q < in->n_pieces; q++)
            srcs[q] = calloc(1, tile_job_nbytes(t, in->pieces[q].src) + 1);
        tile_gather(in, srcs, dst);
        if (tile_gen_pieces(t, in, dst)) abort();
        for (int q = 0; q < in->n_pieces; q++)
            free((void *)srcs[q]);
        free(srcs);
        free(dst);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    uint8_t *buf = malloc(size ? size : 1);
    if (!buf) return 0;
    memcpy(buf, data, size);
    tile_t *t = NULL;
    char err[256];
    err[0] = '\0';
    if (jobdesc_decode(buf, size, graph(), &t, err, sizeof err)) {
        if (err[0] == '\0' || t) abort(); /* every failure carries a message */
    } else {
        int32_t src[1024];
        if (tile_job_n_reads(t, 0) < 1024) {
            int n = tile_job_sources(t, 0, src);
            for (int i = 0; i < n; i++)
                if (src[i] < 1 || src[i] >= tile_n_jobs(t)) abort();
        }
        gather_all(t);
        tile_free(t);
    }
    free(buf);
    return 0;
}
