/* fancy.h: advanced indexing (branch fancy): getitem with integer-tensor and
 * boolean-mask entries, setitem, take, compress, argwhere, flatnonzero and
 * extract (docs/graph-format.md, "Advanced indexing").
 *
 * Every one of them is one job (JK_FANCY) that reads its inputs whole, so
 * the bytes of its inputs and output together are bounded by
 * FANCY_MAX_BYTES, checked when the graph is tiled. Results whose length
 * depends on the data (a boolean mask in getitem, compress, argwhere,
 * flatnonzero, extract) are "held" as a frame blob like a held
 * dataframe.to_tensor result: they can be fetched (1-D or 2-D, int64,
 * float64 or bool) but no tensor op can take them, since their shape is not
 * known when the document is validated. */
#ifndef MARS_FANCY_H
#define MARS_FANCY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "graph.h"

/* The bytes one advanced-indexing job may hold: inputs plus output. */
#define FANCY_MAX_BYTES (INT64_C(512) << 20)

typedef enum {
    FX_SLICE, /* ix: a slice of source axis `axis` */
    FX_INT,   /* ix.i: one position of source axis `axis` */
    FX_NEW,   /* numpy.newaxis */
    FX_ARR,   /* inputs[in]: an integer tensor indexing source axis `axis` */
    FX_MASK,  /* inputs[in]: a boolean tensor over source axes axis .. axis+nax-1 */
    FX_COND,  /* inputs[in]: compress's condition (any dtype, truthy) over axis `axis`;
               * may be shorter than the axis */
} fx_kind_t;

typedef struct {
    uint8_t kind; /* fx_kind_t */
    int in;       /* FX_ARR, FX_MASK, FX_COND: the node input */
    int axis, nax;
    index_t ix;
} fx_ent_t;

/* FXM_MASKFILL: a job of setitem(a, scalar, mask) with a mask of a's shape,
 * one per chunk of a: inputs [a's chunk, the mask's same box] */
typedef enum { FXM_INDEX = 0, FXM_ARGWHERE, FXM_FLATNONZERO, FXM_MASKFILL } fx_mode_t;

typedef struct fancy {
    uint8_t mode;  /* fx_mode_t */
    bool held;     /* the result's length is known only when it runs */
    bool flat_src; /* the source is read as its ravel (take with axis null, extract) */
    bool set;      /* setitem: value_in is assigned at the positions */
    int src_in;    /* the node input that is indexed */
    int value_in;  /* setitem: the value's input (a tensor or a scalar operand) */
    int n_ent;
    fx_ent_t ent[2 * MR_MAXDIM];
    /* A job's source read through its chunks (tile_fancy, FXM_INDEX only):
     * src_nch > 0 job inputs at the source's place, one per chunk along
     * axis 0, each whole along the other axes; src_rows[0..src_nch] their
     * row offsets (src_rows[src_nch]: the source's rows). 0: the source is
     * one job input (a box assembled from its chunks). */
    int src_nch;
    const int64_t *src_rows;
} fancy_t;

/* Whether op is one of the ops this branch adds (not getitem itself). */
bool fancy_is_op(op_t op);
/* Their input counts. */
void fancy_arity(op_t op, int *lo, int *hi);

/* The view's shape numpy's index gives before broadcast dims are placed:
 * shared by inference and the kernel. b (nb dims) is the broadcast shape of
 * the advanced entries; V receives the view shape (MR_MAXDIM at most), bpos
 * where b's dims start in it. Returns -1 when it has too many dims. */
int fancy_view_shape(const fancy_t *fx, const int64_t *S, int nb, const int64_t *b, int64_t *V,
                     int *nv, int *bpos);
/* Runs JK_FANCY job ji: job_in holds its inputs (the node's tensor inputs,
 * whole, in order). A held result is a frame blob (*blob malloc'ed, the
 * caller frees it; *blob_len); any other writes job_nbytes bytes at out.
 * 0, or -1 with a message naming the node (an index out of bounds, ...). */
struct tile;
int fancy_run(const struct tile *t, int32_t ji, const void *const *job_in, void *out, void **blob,
              size_t *blob_len, char *err, size_t errlen);
/* Whether entry k takes part in advanced indexing. */
bool fancy_is_adv(const fancy_t *fx, int k);

#endif
