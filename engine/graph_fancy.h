/* graph_fancy.h: validation of advanced indexing (fancy.h) for graph.c and
 * graph_infer.c. Not part of the engine's public face. */
#ifndef MARS_GRAPH_FANCY_H
#define MARS_GRAPH_FANCY_H

#include "fancy.h"
#include "graph_internal.h"

/* An index entry {"input": N}: true with *n set (N unchecked). */
bool fancy_json_input(json_t *e, int64_t *n);
/* Inference of getitem with {"input": N} entries, setitem, take, compress,
 * argwhere, flatnonzero and extract: fills n->oshape, odtype and n->fancy
 * (and n->df for held results). Returns 1 for a node that is none of those
 * (a plain getitem), 0 when done, -1 with a message. */
int graph_fancy_infer(graph_t *g, graph_node_t *n, const graph_raw_t *r, char *err, size_t errlen);
#endif
