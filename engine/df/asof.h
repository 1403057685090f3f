/* asof.h: dataframe.merge_asof as pandas 1.5's merge_asof, chunk by chunk.
 *
 * Both sides are sorted by their key (pandas requires it; the jobs check
 * it, across chunks too, through a chain of each chunk's last key). Each
 * chunk of either side becomes a union frame: the key (U_K), a tie order
 * (U_T: which side comes first among equal keys), the row's place (U_Q:
 * chunk << 32 | row), the by columns, then every left column and every
 * right column (the other side's rows hold zeros there, never read). The
 * union frames are sample-sorted together by (U_K, U_T, U_Q), so a left
 * row sees the right rows before it in key order, then the left rows come
 * out in their own order (their keys rise with their place).
 *
 * Along the sorted parts runs a carry: per by value, the last right row
 * (for direction forward, scanning backwards: the first one) and the last
 * one of a smaller key (for allow_exact_matches false), as rows of the
 * union frame. An edge is a part's such rows; combining two scans the
 * farther's rows then the nearer's. nearest runs both chains and takes the
 * closer match, the backward one on a tie, as pandas. */
#ifndef MARS_DF_ASOF_H
#define MARS_DF_ASOF_H

#include <stdbool.h>

#include "dfgraph.h"
#include "frame.h"

enum { U_K, U_T, U_Q, U_BY };

/* The union frame of chunk k of side (0 left, 1 right) of ls's or rs's
 * rows (their schemas ls, rs), checked: no missing key, keys rising, from
 * the last key of the chunks before (kc: df_asof_key_edge's; NULL: none). */
int df_asof_tag(const df_node_t *d, const df_node_t *ls, const df_node_t *rs, int side, int64_t k,
                const frame_t *in, const frame_t *kc, frame_t *out, char *err, size_t errlen);
/* The last key of chunk in of side (one row: the key, then 1 when there is
 * one), or of far's and near's (near a later chunk) when far is given. */
int df_asof_key_edge(const df_node_t *d, int side, const frame_t *far, const frame_t *near,
                     frame_t *out, char *err, size_t errlen);
/* The carry of union rows: far (NULL: none) then near; back: the chain
 * that runs from the last part (forward's own, nearest's second). */
int df_asof_state(const df_node_t *d, const frame_t *far, const frame_t *near, bool back,
                  frame_t *out, char *err, size_t errlen);
/* A sorted part's left rows with their matches: bef, the carry of the
 * parts before (NULL: none); aft, of the parts after. */
int df_asof_map(const df_node_t *d, const frame_t *part, const frame_t *bef, const frame_t *aft,
                frame_t *out, char *err, size_t errlen);

/* backward and forward match each left chunk where it is: right's rows
 * are routed to the left chunks that can use them, and a carry of right
 * rows runs along the left chunks (forward: from the last). */
/* A left chunk checked (kc: df_asof_key_edge's), and its bounds: one row
 * of its first key, its last, and 1 when it has rows. */
int df_asof_bounds(const df_node_t *d, const frame_t *in, const frame_t *kc, frame_t *out,
                   char *err, size_t errlen);
/* A right chunk checked, its rows into outs[0..nl) by the left chunks'
 * bounds (nl rows, in order): backward, to the first left chunk whose last
 * key is at or after the row's; forward, the last whose first key is at
 * or before it; rows no left row can match go nowhere. */
int df_asof_route(const df_node_t *d, const frame_t *in, const frame_t *kc, const frame_t *bounds,
                  frame_t *outs, char *err, size_t errlen);
/* The carry after right rows P (a left chunk's) and S (the carry of the
 * chunks before it; forward: after; NULL: none): right's rows. */
int df_asof_rstate(const df_node_t *d, const frame_t *S, const frame_t *P, frame_t *out, char *err,
                   size_t errlen);
/* Left chunk L matched with right rows P routed to it and the carry S. */
int df_asof_rmap(const df_node_t *d, const frame_t *L, const frame_t *S, const frame_t *P,
                 frame_t *out, char *err, size_t errlen);

#endif
