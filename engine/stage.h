/* stage.h: one document whose ops take its own held results (mars-run).
 *
 * A held result (a boolean mask, compress, nonzero, unique, a filtered
 * DataFrame's to_tensor...) has a length known only when it runs, so
 * graph_parse refuses any op that takes it in the same document. Mars runs
 * the part before such "nan" shapes first; so does stage_run: each held
 * result an op takes runs first, as a document of its own (its ancestors,
 * fetching it), its frame laid out as a tensor of known shape; then the
 * document, rewritten without that node, names it as a session tensor
 * that this stage_t supplies (lookup for validation, chunks for exec).
 * In the cluster the gateway does the same across tasks
 * (services/gateway/heldmat.c) and the Python client stages for its users.
 *
 * Random nodes without a seed get one drawn and written first, so that an
 * ancestor computed by two stages gives the same values in both. */
#ifndef MARS_STAGE_H
#define MARS_STAGE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "graph.h"
#include "tile.h"

typedef struct stage stage_t;

/* Parses *doc (malloc'ed text of *len bytes; replaced when rewritten),
 * staging held results as above. Returns 0 with *g the parsed final
 * document (NULL when the rewritten document fetches nothing: every key it
 * fetched was staged) and *st the staged results (NULL when none); 2 when
 * the document is refused (err names the node); 1 when a stage failed to
 * run (err). seeds: where the drawn seeds are reported (stderr), or NULL. */
int stage_run(char **doc, size_t *len, const graph_limits_t *lim, const tile_opts_t *topts,
              int threads, FILE *seeds, graph_t **g, stage_t **st, char *err, size_t errlen);

/* The staged results as session tensors (graph_parse's sess), NULL-safe. */
const graph_session_t *stage_session(const stage_t *st);
/* exec_opts_t.source for the staged results (ctx: the stage_t). */
int stage_source(void *ctx, const tile_t *t, int32_t job, void *dst, char *err, size_t errlen);

/* Staged results the document fetched (mars-run writes them itself). */
int stage_n_fetched(const stage_t *st);
const char *stage_fetched(const stage_t *st, int i, dtype_t *dt, shape_t *sh, const void **data,
                          size_t *nbytes);

void stage_free(stage_t *st);

#endif
