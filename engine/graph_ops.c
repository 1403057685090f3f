/* The op table: names and kinds of every op, from GRAPH_OPS in graph.h. */
#include <string.h>

#include "graph.h"

#define OP_ROW(id, name, kind) {name, kind},
static const struct {
    const char *name;
    op_kind_t kind;
} op_table[OP_COUNT] = {GRAPH_OPS(OP_ROW)};
#undef OP_ROW

const char *op_name(op_t op)
{
    return (unsigned)op < OP_COUNT ? op_table[op].name : "?";
}
op_kind_t op_kind(op_t op)
{
    return op_table[op].kind;
}

int op_parse(const char *name, op_t *out)
{
    /* The session-tensor op is internal: no document may name it. */
    for (int i = 0; i < OP_SESSION_TENSOR; i++) {
        if (strcmp(name, op_table[i].name) == 0) {
            *out = (op_t)i;
            return 0;
        }
    }
    return -1;
}

op_t op_nan_base(op_t op)
{
    switch (op) {
    case OP_NANSUM:
        return OP_SUM;
    case OP_NANPROD:
        return OP_PROD;
    case OP_NANMEAN:
        return OP_MEAN;
    case OP_NANMIN:
        return OP_MIN;
    case OP_NANMAX:
        return OP_MAX;
    case OP_NANSTD:
        return OP_STD;
    case OP_NANVAR:
        return OP_VAR;
    case OP_NANARGMIN:
        return OP_ARGMIN;
    case OP_NANARGMAX:
        return OP_ARGMAX;
    case OP_NANCUMSUM:
        return OP_CUMSUM;
    case OP_NANCUMPROD:
        return OP_CUMPROD;
    default:
        return op;
    }
}
