/* edges.c: the distinct inputs and consumers of every live job, the
 * adjacency both executors walk (engine/exec.c in one process, the
 * supervisor's scheduler in the cluster). */
#include <stdlib.h>
#include <string.h>

#include "../tile.h"

int tile_edges(const tile_t *t, tile_edges_t *e)
{
    int32_t n = t->n_jobs;
    int64_t ne = 0;
    memset(e, 0, sizeof *e);
    for (int32_t j = 0; j < n; j++) {
        if (!t->live[j]) continue;
        for (int k = 0; k < t->jobs[j].n_in; k++)
            ne += t->jobs[j].in[k].job >= 0 ? 1 : t->jobs[j].in[k].n_pieces;
    }
    if (ne > INT32_MAX) return -1;
    e->dep_off = calloc((size_t)n + 1, sizeof(int32_t));
    e->deps = malloc(sizeof(int32_t) * (size_t)(ne ? ne : 1));
    e->con_off = calloc((size_t)n + 2, sizeof(int32_t));
    int32_t *mark = malloc(sizeof(int32_t) * (size_t)(n ? n : 1));
    if (!e->dep_off || !e->deps || !e->con_off || !mark) goto fail;
    for (int32_t j = 0; j < n; j++)
        mark[j] = -1;
    int32_t m = 0;
    for (int32_t j = 0; j < n; j++) {
        e->dep_off[j] = m;
        if (!t->live[j]) continue;
        const job_t *jb = &t->jobs[j];
        for (int k = 0; k < jb->n_in; k++) {
            const jin_t *in = &jb->in[k];
            int32_t np = in->job >= 0 ? 1 : in->n_pieces;
            for (int32_t q = 0; q < np; q++) {
                int32_t s = in->job >= 0 ? in->job : in->pieces[q].src;
                if (mark[s] != j) {
                    mark[s] = j;
                    e->deps[m++] = s;
                    e->con_off[s + 1]++;
                }
            }
        }
    }
    e->dep_off[n] = m;
    for (int32_t j = 0; j < n; j++)
        e->con_off[j + 1] += e->con_off[j];
    e->cons = malloc(sizeof(int32_t) * (size_t)(m ? m : 1));
    if (!e->cons) goto fail;
    /* mark becomes each job's next free consumer slot */
    memcpy(mark, e->con_off, sizeof(int32_t) * (size_t)n);
    for (int32_t j = 0; j < n; j++)
        for (int32_t k = e->dep_off[j]; k < e->dep_off[j + 1]; k++)
            e->cons[mark[e->deps[k]]++] = j;
    free(mark);
    return 0;
fail:
    free(mark);
    tile_edges_free(e);
    return -1;
}

void tile_edges_free(tile_edges_t *e)
{
    free(e->dep_off);
    free(e->deps);
    free(e->con_off);
    free(e->cons);
    memset(e, 0, sizeof *e);
}
