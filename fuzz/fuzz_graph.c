/* libFuzzer target: graph_parse on arbitrary bytes, with a small session so
 * that session tensors are exercised too. Every accepted graph is checked
 * for the invariants the tiler relies on, then freed (leaks show under ASan). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "graph.h"

static int lookup(void *ctx, const char *key, shape_t *shape, dtype_t *dtype,
                  int64_t chunk[MR_MAXDIM])
{
    (void)ctx;
    if (strncmp(key, "sess", 4) != 0) return -1;
    shape->ndim = 2;
    shape->d[0] = 6;
    shape->d[1] = (int64_t)strlen(key);
    *dtype = (dtype_t)(strlen(key) % DT_NTYPES);
    chunk[0] = 3;
    chunk[1] = 2;
    return 0;
}

static void check(const graph_t *g)
{
    for (int i = 0; i < g->n_nodes; i++) {
        const graph_node_t *n = &g->nodes[i];
        if (n->oshape.ndim < 0 || n->oshape.ndim > MR_MAXDIM || (unsigned)n->odtype >= DT_NTYPES)
            abort();
        for (int d = 0; d < n->oshape.ndim; d++)
            if (n->oshape.d[d] < 0) abort();
        for (int j = 0; j < n->n_in; j++)
            if (n->in[j].node >= i || n->in[j].node < -1) abort(); /* topological order */
        if (graph_find(g, n->key) != i) abort();
    }
    for (int i = 0; i < g->n_fetch; i++)
        if (g->fetch[i] < 0 || g->fetch[i] >= g->n_nodes || !g->nodes[g->fetch[i]].fetch) abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    graph_limits_t lim;
    graph_limits_default(&lim);
    /* Small limits keep each run fast (no huge array data). */
    lim.max_array_elements = 4096;
    lim.max_nodes = 4096;
    graph_session_t sess = {.ctx = NULL, .lookup = lookup};
    graph_t *g = NULL;
    char err[256];
    if (graph_parse((const char *)data, size, &lim, size % 2 ? &sess : NULL, &g, err, sizeof err) ==
        0) {
        check(g);
        graph_free(g);
    } else if (g != NULL || err[0] == '\0' || strchr(err, '\n')) {
        abort();
    }
    return 0;
}
