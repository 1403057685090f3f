/* shapes2.h: numpy's logspace, geomspace, indices (creation), roll,
 * broadcast_to, tile, repeat and pad (docs/graph-format.md, "Creation,
 * tiling and padding (shapes)").
 *
 *   graph_shapes2.c  parameters (numpy 1.24 keywords and messages) and
 *                    inference of shapes and dtypes
 *   tile/shapes2.c   tiling, all of it lowered to existing chunk jobs:
 *                    roll is two slices concatenated per axis; tile is the
 *                    input's chunks concatenated (blocks of copies gathered
 *                    once when a chunk would be tiny); broadcast_to and
 *                    repeat are gathers whose pieces read with stride 0;
 *                    pad is a concatenation with blocks: constant ones are
 *                    element-wise jobs of a constant, edge ones gathers of
 *                    the edge slice with stride 0; reflect, symmetric and
 *                    wrap ones slices of what is already there (reversed:
 *                    gathers with step -1), in rounds as numpy 1.24 fills
 *                    them
 *   kern/create2.c   the creation kernels of logspace, geomspace, indices
 *
 * No new job kind and no new job field: the job descriptors (tile/jobdesc.c)
 * carry these ops as they carry gathers, concatenations and element-wise
 * programs. */
#ifndef MARS_SHAPES2_H
#define MARS_SHAPES2_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "graph.h"

/* pad's modes (numpy's names) */
typedef enum { PAD_CONSTANT, PAD_EDGE, PAD_REFLECT, PAD_SYMMETRIC, PAD_WRAP } pad_mode_t;

/* The parameters of roll, tile, repeat and pad once the input's shape is
 * known (graph_node_t.sh2, owned). */
typedef struct sh2_node {
    bool flat;                /* roll, repeat: axis null (the flattened input) */
    int64_t shift[MR_MAXDIM]; /* roll: net shift per axis (of the flattened input when
                               * flat: [0]), in [0, n) */
    int nd;                   /* tile: output ndim; reps per output axis */
    int64_t reps[MR_MAXDIM];
    int axis;       /* repeat: the axis (0 when flat) */
    int64_t rep;    /* repeat: one count for every element (n_list 0) */
    int64_t n_list; /* repeat: counts per element along the axis */
    int64_t *list;  /* (owned) */
    int pad_mode;   /* pad: one of pad_mode_t */
    int64_t before[MR_MAXDIM], after[MR_MAXDIM];    /* pad widths per axis */
    scalar_t cbefore[MR_MAXDIM], cafter[MR_MAXDIM]; /* pad: constant values per axis */
} sh2_node_t;

bool graph_shapes2_owns(op_t op);
/* Fields and their JSON types; the creation ops' shapes and dtypes. r is
 * the node's graph_raw_t (chunk_size is kept there). */
int graph_shapes2_parse(graph_node_t *n, void *raw, void *json_obj, char *err, size_t errlen);
/* Shapes and dtypes; the parameters normalised into n->sh2. */
int graph_shapes2_infer(graph_t *g, int i, const void *raw, char *err, size_t errlen);
void graph_shapes2_free(sh2_node_t *s);

#endif
