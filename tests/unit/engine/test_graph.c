/* Unit tests of engine/graph.c and engine/graph_infer.c: parsing, checks,
 * topological order, and shape and dtype inference. Expected shapes and
 * dtypes of the tables were computed with numpy 1.24 (the expression is in
 * the comment of each row); expected messages follow numpy's wording where
 * numpy names the rule. Documents are written with single quotes, turned
 * into double quotes before parsing. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graph.h"

/* ---------------------------------------------------------------------------
 * Helpers */

static char *dq(const char *s)
{
    char *d = strdup(s);
    assert_non_null(d);
    for (char *p = d; *p; p++)
        if (*p == '\'') *p = '"';
    return d;
}

/* A whole document around a node list (single quotes), fetch empty. */
static char *doc_of(const char *nodes)
{
    size_t n = strlen(nodes) + 64;
    char *d = malloc(n);
    assert_non_null(d);
    snprintf(d, n, "{'version':1,'nodes':[%s],'fetch':[]}", nodes);
    char *r = dq(d);
    free(d);
    return r;
}

static int parse_lim(const char *json, const graph_limits_t *lim, const graph_session_t *sess,
                     graph_t **g, char *err, size_t errlen)
{
    return graph_parse(json, strlen(json), lim, sess, g, err, errlen);
}

/* Parses a whole document (double quotes) that must be accepted. */
static graph_t *ok_doc(const char *json)
{
    graph_limits_t lim;
    graph_limits_default(&lim);
    graph_t *g = NULL;
    char err[1024];
    if (parse_lim(json, &lim, NULL, &g, err, sizeof err) != 0)
        fail_msg("rejected: %s\n  document: %s", err, json);
    assert_non_null(g);
    return g;
}

static graph_t *ok_nodes(const char *nodes)
{
    char *d = doc_of(nodes);
    graph_t *g = ok_doc(d);
    free(d);
    return g;
}

/* The document (double quotes) must be rejected with exactly `msg`. */
static void err_doc_lim(const char *json, const graph_limits_t *lim, const char *msg)
{
    graph_t *g = (graph_t *)0x1;
    char err[1024];
    memset(err, 'X', sizeof err);
    int rc = parse_lim(json, lim, NULL, &g, err, sizeof err);
    if (rc == 0) fail_msg("accepted, expected: %s\n  document: %s", msg, json);
    assert_int_equal(rc, -1);
    assert_null(g);
    if (strcmp(err, msg) != 0)
        fail_msg("message\n  got:  %s\n  want: %s\n  document: %s", err, msg, json);
}

static void err_doc(const char *json, const char *msg)
{
    graph_limits_t lim;
    graph_limits_default(&lim);
    err_doc_lim(json, &lim, msg);
}

static void err_sq(const char *json_sq, const char *msg)
{
    char *d = dq(json_sq);
    err_doc(d, msg);
    free(d);
}

static void err_nodes(const char *nodes, const char *msg)
{
    char *d = doc_of(nodes);
    err_doc(d, msg);
    free(d);
}

static const graph_node_t *node(const graph_t *g, const char *key)
{
    int i = graph_find(g, key);
    if (i < 0) fail_msg("no node %s", key);
    return &g->nodes[i];
}

static void shape_is(const graph_node_t *n, const char *want)
{
    char buf[1024];
    shape_format(&n->oshape, buf, sizeof buf);
    assert_string_equal(buf, want);
}

/* ---------------------------------------------------------------------------
 * Shapes and dtypes against numpy */

typedef struct {
    const char *name;
    const char *nodes; /* the last node, key "c", is the one checked */
    const char *shape;
    dtype_t dtype;
} infer_case_t;

static const infer_case_t infer_cases[] = {
    {"add",
     "{'key':'a','op':'ones','shape':[2, "
     "3],'dtype':'float64'},{'key':'b','op':'ones','shape':[3],'dtype':'float64'},{'key':'c','op':'"
     "add','inputs':['a','b']}",
     "(2, 3)", DT_FLOAT64}, /* np.add(a,b) */
    {"mul",
     "{'key':'a','op':'ones','shape':[4, 1, 3],'dtype':'int32'},{'key':'b','op':'ones','shape':[2, "
     "1],'dtype':'int64'},{'key':'c','op':'multiply','inputs':['a','b']}",
     "(4, 2, 3)", DT_INT64}, /* a*b */
    {"sub0",
     "{'key':'a','op':'ones','shape':[0, 3],'dtype':'float32'},{'key':'b','op':'ones','shape':[1, "
     "3],'dtype':'int32'},{'key':'c','op':'subtract','inputs':['a','b']}",
     "(0, 3)", DT_FLOAT64}, /* a-b */
    {"div",
     "{'key':'a','op':'ones','shape':[5],'dtype':'int32'},{'key':'c','op':'divide','inputs':['a',2]"
     "}",
     "(5,)", DT_FLOAT64}, /* np.divide(a,2) */
    {"floordiv",
     "{'key':'a','op':'ones','shape':[5],'dtype':'int32'},{'key':'c','op':'floor_divide','inputs':["
     "'a',2]}",
     "(5,)", DT_INT32}, /* np.floor_divide(a,2) */
    {"sqrtf",
     "{'key':'a','op':'ones','shape':[5],'dtype':'float32'},{'key':'c','op':'sqrt','inputs':['a']}",
     "(5,)", DT_FLOAT32}, /* np.sqrt(a) */
    {"sqrti",
     "{'key':'a','op':'ones','shape':[5],'dtype':'int32'},{'key':'c','op':'sqrt','inputs':['a']}",
     "(5,)", DT_FLOAT64}, /* np.sqrt(a) */
    {"less",
     "{'key':'a','op':'ones','shape':[2, "
     "2],'dtype':'int64'},{'key':'c','op':'less','inputs':['a',2.5]}",
     "(2, 2)", DT_BOOL}, /* np.less(a,2.5) */
    {"isnan",
     "{'key':'a','op':'ones','shape':[2, "
     "2],'dtype':'float32'},{'key':'c','op':'isnan','inputs':['a']}",
     "(2, 2)", DT_BOOL}, /* np.isnan(a) */
    {"lnot",
     "{'key':'a','op':'ones','shape':[2, "
     "2],'dtype':'int32'},{'key':'c','op':'logical_not','inputs':['a']}",
     "(2, 2)", DT_BOOL}, /* np.logical_not(a) */
    {"land",
     "{'key':'a','op':'ones','shape':[2, "
     "2],'dtype':'int32'},{'key':'b','op':'ones','shape':[2],'dtype':'float64'},{'key':'c','op':'"
     "logical_and','inputs':['a','b']}",
     "(2, 2)", DT_BOOL}, /* np.logical_and(a,b) */
    {"absb",
     "{'key':'a','op':'ones','shape':[3],'dtype':'bool'},{'key':'c','op':'abs','inputs':['a']}",
     "(3,)", DT_BOOL}, /* np.abs(a) */
    {"sign",
     "{'key':'a','op':'ones','shape':[3],'dtype':'int32'},{'key':'c','op':'sign','inputs':['a']}",
     "(3,)", DT_INT32}, /* np.sign(a) */
    {"pow",
     "{'key':'a','op':'ones','shape':[3],'dtype':'float32'},{'key':'b','op':'ones','shape':[3],'"
     "dtype':'int32'},{'key':'c','op':'power','inputs':['a','b']}",
     "(3,)", DT_FLOAT64}, /* np.power(a,b) */
    {"maxs",
     "{'key':'a','op':'ones','shape':[3],'dtype':'int32'},{'key':'c','op':'maximum','inputs':["
     "70000,'a']}",
     "(3,)", DT_INT32}, /* np.maximum(70000,a) */
    {"where",
     "{'key':'a','op':'ones','shape':[2, "
     "1],'dtype':'bool'},{'key':'x','op':'ones','shape':[3],'dtype':'int32'},{'key':'y','op':'ones'"
     ",'shape':[2, 3],'dtype':'float32'},{'key':'c','op':'where','inputs':['a','x','y']}",
     "(2, 3)", DT_FLOAT64}, /* np.where(a,x,y) */
    {"wheres",
     "{'key':'a','op':'ones','shape':[2, "
     "1],'dtype':'bool'},{'key':'x','op':'ones','shape':[3],'dtype':'int32'},{'key':'c','op':'"
     "where','inputs':['a','x',0]}",
     "(2, 3)", DT_INT32}, /* np.where(a,x,0) */
    {"wherec",
     "{'key':'a','op':'ones','shape':[4],'dtype':'int32'},{'key':'c','op':'where','inputs':[true,'"
     "a',2.5]}",
     "(4,)", DT_FLOAT64}, /* np.where(True,a,2.5) */
    {"clip",
     "{'key':'a','op':'ones','shape':[4],'dtype':'int32'},{'key':'c','op':'clip','inputs':['a'],'a_"
     "min':1,'a_max':2.5}",
     "(4,)", DT_FLOAT64}, /* np.clip(a,1,2.5) */
    {"clipn",
     "{'key':'a','op':'ones','shape':[4],'dtype':'int32'},{'key':'c','op':'clip','inputs':['a'],'a_"
     "min':null,'a_max':3}",
     "(4,)", DT_INT32}, /* np.clip(a,None,3) */
    {"clipf",
     "{'key':'a','op':'ones','shape':[4],'dtype':'float32'},{'key':'c','op':'clip','inputs':['a'],'"
     "a_min':0}",
     "(4,)", DT_FLOAT32}, /* np.clip(a,0,None) */
    {"astype",
     "{'key':'a','op':'ones','shape':[4, "
     "2],'dtype':'float64'},{'key':'c','op':'astype','inputs':['a'],'dtype':'int32'}",
     "(4, 2)", DT_INT32}, /* a.astype('int32') */
    {"vb1",
     "{'key':'a','op':'ones','shape':[3],'dtype':'int32'},{'key':'c','op':'add','inputs':['a',4]}",
     "(3,)", DT_INT32}, /* a+4 */
    {"vb2",
     "{'key':'a','op':'ones','shape':[3],'dtype':'int32'},{'key':'c','op':'add','inputs':['a',"
     "2147483648]}",
     "(3,)", DT_INT64}, /* a+2147483648 */
    {"vb3",
     "{'key':'a','op':'ones','shape':[3],'dtype':'int32'},{'key':'c','op':'add','inputs':['a',-"
     "2147483648]}",
     "(3,)", DT_INT32}, /* a+(-2147483648) */
    {"vb4",
     "{'key':'a','op':'ones','shape':[3],'dtype':'int32'},{'key':'c','op':'add','inputs':['a',"
     "1099511627776]}",
     "(3,)", DT_INT64}, /* a+2**40 */
    {"vb5",
     "{'key':'a','op':'ones','shape':[3],'dtype':'float32'},{'key':'c','op':'multiply','inputs':['"
     "a',4.5]}",
     "(3,)", DT_FLOAT32}, /* a*4.5 */
    {"vb6",
     "{'key':'a','op':'ones','shape':[3],'dtype':'float32'},{'key':'c','op':'multiply','inputs':['"
     "a',1e39]}",
     "(3,)", DT_FLOAT64}, /* a*1e39 */
    {"vb7",
     "{'key':'a','op':'ones','shape':[3],'dtype':'float32'},{'key':'c','op':'multiply','inputs':['"
     "a',65535]}",
     "(3,)", DT_FLOAT32}, /* a*65535 */
    {"vb8",
     "{'key':'a','op':'ones','shape':[3],'dtype':'float32'},{'key':'c','op':'multiply','inputs':['"
     "a',65536]}",
     "(3,)", DT_FLOAT64}, /* a*65536 */
    {"vb9",
     "{'key':'a','op':'ones','shape':[3],'dtype':'int32'},{'key':'c','op':'multiply','inputs':['a',"
     "4.5]}",
     "(3,)", DT_FLOAT64}, /* a*4.5 */
    {"vb10",
     "{'key':'a','op':'ones','shape':[3],'dtype':'bool'},{'key':'c','op':'multiply','inputs':['a',"
     "4]}",
     "(3,)", DT_INT64}, /* a*4 */
    {"vb11",
     "{'key':'a','op':'ones','shape':[3],'dtype':'bool'},{'key':'c','op':'add','inputs':['a',true]"
     "}",
     "(3,)", DT_BOOL}, /* a+True */
    {"vb12",
     "{'key':'a','op':'ones','shape':[3],'dtype':'int64'},{'key':'c','op':'add','inputs':['a',2.0]"
     "}",
     "(3,)", DT_FLOAT64}, /* a+2.0 */
    {"vb13",
     "{'key':'a','op':'ones','shape':[],'dtype':'int32'},{'key':'c','op':'add','inputs':['a',27]}",
     "()", DT_INT64}, /* a+27 */
    {"vb14",
     "{'key':'a','op':'ones','shape':[],'dtype':'float32'},{'key':'c','op':'multiply','inputs':['a'"
     ",2.5]}",
     "()", DT_FLOAT64},                                                   /* a*2.5 */
    {"vb15", "{'key':'c','op':'add','inputs':[2,3]}", "()", DT_INT64},    /* np.add(2,3) */
    {"vb16", "{'key':'c','op':'add','inputs':[2,true]}", "()", DT_INT64}, /* np.add(2,True) */
    {"vb17", "{'key':'c','op':'multiply','inputs':[2,1.5]}", "()",
     DT_FLOAT64}, /* np.multiply(2,1.5) */
    {"vb18",
     "{'key':'a','op':'ones','shape':[3],'dtype':'bool'},{'key':'b','op':'ones','shape':[],'dtype':"
     "'int32'},{'key':'c','op':'add','inputs':['a','b']}",
     "(3,)", DT_INT32}, /* a+b */
    {"vb19",
     "{'key':'a','op':'ones','shape':[3],'dtype':'int32'},{'key':'b','op':'ones','shape':[],'dtype'"
     ":'float32'},{'key':'c','op':'add','inputs':['a','b']}",
     "(3,)", DT_FLOAT64}, /* a+b */
    {"vb20",
     "{'key':'a','op':'ones','shape':[3],'dtype':'bool'},{'key':'b','op':'ones','shape':[],'dtype':"
     "'int32'},{'key':'c','op':'clip','inputs':['a'],'a_min':1,'a_max':true}",
     "(3,)", DT_INT64}, /* np.clip(a,1,True) */
    {"sum",
     "{'key':'a','op':'ones','shape':[2, 3, "
     "4],'dtype':'int32'},{'key':'c','op':'sum','inputs':['a'],'axis':1}",
     "(2, 4)", DT_INT64}, /* np.sum(a,axis=1) */
    {"sumk",
     "{'key':'a','op':'ones','shape':[2, 3, "
     "4],'dtype':'bool'},{'key':'c','op':'sum','inputs':['a'],'axis':[0,-1],'keepdims':true}",
     "(1, 3, 1)", DT_INT64}, /* np.sum(a,axis=(0,-1),keepdims=True) */
    {"prod",
     "{'key':'a','op':'ones','shape':[2, 3, "
     "4],'dtype':'float32'},{'key':'c','op':'prod','inputs':['a']}",
     "()", DT_FLOAT32}, /* np.prod(a) */
    {"mean",
     "{'key':'a','op':'ones','shape':[2, "
     "3],'dtype':'int32'},{'key':'c','op':'mean','inputs':['a'],'axis':0}",
     "(3,)", DT_FLOAT64}, /* np.mean(a,axis=0) */
    {"meanf",
     "{'key':'a','op':'ones','shape':[2, "
     "3],'dtype':'float32'},{'key':'c','op':'mean','inputs':['a'],'axis':null}",
     "()", DT_FLOAT32}, /* np.mean(a,axis=None) */
    {"min",
     "{'key':'a','op':'ones','shape':[2, "
     "3],'dtype':'int32'},{'key':'c','op':'min','inputs':['a'],'axis':[]}",
     "(2, 3)", DT_INT32}, /* np.min(a,axis=()) */
    {"min0",
     "{'key':'a','op':'ones','shape':[3, "
     "0],'dtype':'int32'},{'key':'c','op':'min','inputs':['a'],'axis':0}",
     "(0,)", DT_INT32}, /* np.min(a,axis=0) */
    {"max",
     "{'key':'a','op':'ones','shape':[2, "
     "3],'dtype':'bool'},{'key':'c','op':'max','inputs':['a'],'axis':-1,'keepdims':true}",
     "(2, 1)", DT_BOOL}, /* np.max(a,axis=-1,keepdims=True) */
    {"std",
     "{'key':'a','op':'ones','shape':[2, "
     "3],'dtype':'int64'},{'key':'c','op':'std','inputs':['a'],'ddof':1}",
     "()", DT_FLOAT64}, /* np.std(a,ddof=1) */
    {"var",
     "{'key':'a','op':'ones','shape':[2, "
     "3],'dtype':'float32'},{'key':'c','op':'var','inputs':['a'],'axis':1}",
     "(2,)", DT_FLOAT32}, /* np.var(a,axis=1) */
    {"all",
     "{'key':'a','op':'ones','shape':[2, "
     "3],'dtype':'float64'},{'key':'c','op':'all','inputs':['a'],'axis':1}",
     "(2,)", DT_BOOL}, /* np.all(a,axis=1) */
    {"any",
     "{'key':'a','op':'ones','shape':[0, 3],'dtype':'int32'},{'key':'c','op':'any','inputs':['a']}",
     "()", DT_BOOL}, /* np.any(a) */
    {"sum0d",
     "{'key':'a','op':'ones','shape':[],'dtype':'int32'},{'key':'c','op':'sum','inputs':['a'],'"
     "axis':0}",
     "()", DT_INT64}, /* np.sum(a,axis=0) */
    {"argmin",
     "{'key':'a','op':'ones','shape':[2, "
     "3],'dtype':'float32'},{'key':'c','op':'argmin','inputs':['a']}",
     "()", DT_INT64}, /* np.argmin(a) */
    {"argmaxk",
     "{'key':'a','op':'ones','shape':[2, "
     "3],'dtype':'float32'},{'key':'c','op':'argmax','inputs':['a'],'axis':-2,'keepdims':true}",
     "(1, 3)", DT_INT64}, /* np.argmax(a,axis=-2,keepdims=True) */
    {"argmaxn",
     "{'key':'a','op':'ones','shape':[2, "
     "3],'dtype':'bool'},{'key':'c','op':'argmax','inputs':['a'],'keepdims':true}",
     "(1, 1)", DT_INT64}, /* np.argmax(a,keepdims=True) */
    {"argmin0",
     "{'key':'a','op':'ones','shape':[],'dtype':'int32'},{'key':'c','op':'argmin','inputs':['a'],'"
     "axis':0}",
     "()", DT_INT64}, /* np.argmin(a,axis=0) */
    {"cumsum",
     "{'key':'a','op':'ones','shape':[2, "
     "3],'dtype':'int32'},{'key':'c','op':'cumsum','inputs':['a']}",
     "(6,)", DT_INT64}, /* np.cumsum(a) */
    {"cumprod",
     "{'key':'a','op':'ones','shape':[2, "
     "3],'dtype':'float32'},{'key':'c','op':'cumprod','inputs':['a'],'axis':1}",
     "(2, 3)", DT_FLOAT32}, /* np.cumprod(a,axis=1) */
    {"cumsum0",
     "{'key':'a','op':'ones','shape':[],'dtype':'bool'},{'key':'c','op':'cumsum','inputs':['a'],'"
     "axis':-1}",
     "(1,)", DT_INT64}, /* np.cumsum(a,axis=-1) */
    {"inner",
     "{'key':'a','op':'ones','shape':[3, 4],'dtype':'float64'},{'key':'b','op':'ones','shape':[5, "
     "4],'dtype':'int32'},{'key':'c','op':'inner','inputs':['a','b']}",
     "(3, 5)", DT_FLOAT64}, /* np.inner(a,b) */
    {"dotnd",
     "{'key':'a','op':'ones','shape':[2, 3, "
     "4],'dtype':'float32'},{'key':'b','op':'ones','shape':[5, 4, "
     "6],'dtype':'float32'},{'key':'c','op':'dot','inputs':['a','b']}",
     "(2, 3, 5, 6)", DT_FLOAT32}, /* np.dot(a,b) */
    {"dotv",
     "{'key':'a','op':'ones','shape':[2, 3, "
     "4],'dtype':'int32'},{'key':'b','op':'ones','shape':[4],'dtype':'int32'},{'key':'c','op':'dot'"
     ",'inputs':['a','b']}",
     "(2, 3)", DT_INT32}, /* np.dot(a,b) */
    {"dotb",
     "{'key':'a','op':'ones','shape':[4],'dtype':'bool'},{'key':'b','op':'ones','shape':[4],'dtype'"
     ":'bool'},{'key':'c','op':'dot','inputs':['a','b']}",
     "()", DT_BOOL}, /* np.dot(a,b) */
    {"dot0",
     "{'key':'a','op':'ones','shape':[],'dtype':'int32'},{'key':'b','op':'ones','shape':[2, "
     "3],'dtype':'float32'},{'key':'c','op':'dot','inputs':['a','b']}",
     "(2, 3)", DT_FLOAT64}, /* np.dot(a,b) */
    {"dotvm",
     "{'key':'a','op':'ones','shape':[4],'dtype':'float64'},{'key':'b','op':'ones','shape':[4, "
     "6],'dtype':'float64'},{'key':'c','op':'dot','inputs':['a','b']}",
     "(6,)", DT_FLOAT64}, /* np.dot(a,b) */
    {"matmul",
     "{'key':'a','op':'ones','shape':[2, 1, 3, "
     "4],'dtype':'float64'},{'key':'b','op':'ones','shape':[3, 4, "
     "5],'dtype':'float64'},{'key':'c','op':'matmul','inputs':['a','b']}",
     "(2, 3, 3, 5)", DT_FLOAT64}, /* np.matmul(a,b) */
    {"matmulv",
     "{'key':'a','op':'ones','shape':[4],'dtype':'float64'},{'key':'b','op':'ones','shape':[2, 4, "
     "5],'dtype':'float64'},{'key':'c','op':'matmul','inputs':['a','b']}",
     "(2, 5)", DT_FLOAT64}, /* np.matmul(a,b) */
    {"matmulw",
     "{'key':'a','op':'ones','shape':[2, 3, "
     "4],'dtype':'float64'},{'key':'b','op':'ones','shape':[4],'dtype':'float64'},{'key':'c','op':'"
     "matmul','inputs':['a','b']}",
     "(2, 3)", DT_FLOAT64}, /* np.matmul(a,b) */
    {"matmul11",
     "{'key':'a','op':'ones','shape':[4],'dtype':'int32'},{'key':'b','op':'ones','shape':[4],'"
     "dtype':'int64'},{'key':'c','op':'matmul','inputs':['a','b']}",
     "()", DT_INT64}, /* np.matmul(a,b) */
    {"outer",
     "{'key':'a','op':'ones','shape':[2, "
     "3],'dtype':'float64'},{'key':'b','op':'ones','shape':[4],'dtype':'int32'},{'key':'c','op':'"
     "outer','inputs':['a','b']}",
     "(6, 4)", DT_FLOAT64}, /* np.outer(a,b) */
    {"td",
     "{'key':'a','op':'ones','shape':[2, 3, "
     "4],'dtype':'float64'},{'key':'b','op':'ones','shape':[4, 3, "
     "5],'dtype':'float64'},{'key':'c','op':'tensordot','inputs':['a','b'],'axes':[[1,2],[1,0]]}",
     "(2, 5)", DT_FLOAT64}, /* np.tensordot(a,b,axes=([1,2],[1,0])) */
    {"td2",
     "{'key':'a','op':'ones','shape':[2, 3, "
     "4],'dtype':'float64'},{'key':'b','op':'ones','shape':[3, 4, "
     "5],'dtype':'float64'},{'key':'c','op':'tensordot','inputs':['a','b']}",
     "(2, 5)", DT_FLOAT64}, /* np.tensordot(a,b) */
    {"td0",
     "{'key':'a','op':'ones','shape':[2, 3],'dtype':'float64'},{'key':'b','op':'ones','shape':[3, "
     "4],'dtype':'float64'},{'key':'c','op':'tensordot','inputs':['a','b'],'axes':0}",
     "(2, 3, 3, 4)", DT_FLOAT64}, /* np.tensordot(a,b,axes=0) */
    {"tdneg",
     "{'key':'a','op':'ones','shape':[2, 3],'dtype':'float64'},{'key':'b','op':'ones','shape':[3, "
     "4],'dtype':'float64'},{'key':'c','op':'tensordot','inputs':['a','b'],'axes':-1}",
     "(2, 3, 3, 4)", DT_FLOAT64}, /* np.tensordot(a,b,axes=-1) */
    {"tdints",
     "{'key':'a','op':'ones','shape':[2, 3],'dtype':'float64'},{'key':'b','op':'ones','shape':[3, "
     "4],'dtype':'float64'},{'key':'c','op':'tensordot','inputs':['a','b'],'axes':[-1,0]}",
     "(2, 4)", DT_FLOAT64}, /* np.tensordot(a,b,axes=(-1,0)) */
    {"tr",
     "{'key':'a','op':'ones','shape':[2, 3, "
     "4],'dtype':'float64'},{'key':'c','op':'transpose','inputs':['a']}",
     "(4, 3, 2)", DT_FLOAT64}, /* np.transpose(a) */
    {"trp",
     "{'key':'a','op':'ones','shape':[2, 3, "
     "4],'dtype':'float64'},{'key':'c','op':'transpose','inputs':['a'],'axes':[1,-1,0]}",
     "(3, 4, 2)", DT_FLOAT64}, /* np.transpose(a,(1,-1,0)) */
    {"rs",
     "{'key':'a','op':'ones','shape':[2, 3, "
     "4],'dtype':'float64'},{'key':'c','op':'reshape','inputs':['a'],'newshape':[4,-1]}",
     "(4, 6)", DT_FLOAT64}, /* np.reshape(a,(4,-1)) */
    {"rsi",
     "{'key':'a','op':'ones','shape':[2, 3, "
     "4],'dtype':'float64'},{'key':'c','op':'reshape','inputs':['a'],'newshape':24}",
     "(24,)", DT_FLOAT64}, /* np.reshape(a,24) */
    {"rs0",
     "{'key':'a','op':'ones','shape':[0, "
     "3],'dtype':'float64'},{'key':'c','op':'reshape','inputs':['a'],'newshape':[3,-1]}",
     "(3, 0)", DT_FLOAT64}, /* np.reshape(a,(3,-1)) */
    {"rsneg2",
     "{'key':'a','op':'ones','shape':[6],'dtype':'float64'},{'key':'c','op':'reshape','inputs':['a'"
     "],'newshape':[-2,3]}",
     "(2, 3)", DT_FLOAT64}, /* np.reshape(a,(-2,3)) */
    {"rs00",
     "{'key':'a','op':'ones','shape':[1],'dtype':'float64'},{'key':'c','op':'reshape','inputs':['a'"
     "],'newshape':[]}",
     "()", DT_FLOAT64}, /* np.reshape(a,()) */
    {"ravel",
     "{'key':'a','op':'ones','shape':[2, 3, "
     "4],'dtype':'int32'},{'key':'c','op':'ravel','inputs':['a']}",
     "(24,)", DT_INT32}, /* np.ravel(a) */
    {"sq",
     "{'key':'a','op':'ones','shape':[1, 3, "
     "1],'dtype':'float64'},{'key':'c','op':'squeeze','inputs':['a']}",
     "(3,)", DT_FLOAT64}, /* np.squeeze(a) */
    {"sq1",
     "{'key':'a','op':'ones','shape':[1, 3, "
     "1],'dtype':'float64'},{'key':'c','op':'squeeze','inputs':['a'],'axis':-1}",
     "(1, 3)", DT_FLOAT64}, /* np.squeeze(a,axis=-1) */
    {"ed",
     "{'key':'a','op':'ones','shape':[2, "
     "3],'dtype':'float64'},{'key':'c','op':'expand_dims','inputs':['a'],'axis':[-1,0]}",
     "(1, 2, 3, 1)", DT_FLOAT64}, /* np.expand_dims(a,axis=(-1,0)) */
    {"ed1",
     "{'key':'a','op':'ones','shape':[2, "
     "3],'dtype':'float64'},{'key':'c','op':'expand_dims','inputs':['a'],'axis':1}",
     "(2, 1, 3)", DT_FLOAT64}, /* np.expand_dims(a,axis=1) */
    {"cat",
     "{'key':'a','op':'ones','shape':[2, 3],'dtype':'int32'},{'key':'b','op':'ones','shape':[4, "
     "3],'dtype':'bool'},{'key':'c','op':'concatenate','inputs':['a','b']}",
     "(6, 3)", DT_INT32}, /* np.concatenate([a,b]) */
    {"cat1",
     "{'key':'a','op':'ones','shape':[2, 3],'dtype':'int32'},{'key':'b','op':'ones','shape':[2, "
     "1],'dtype':'float32'},{'key':'c','op':'concatenate','inputs':['a','b'],'axis':-1}",
     "(2, 4)", DT_FLOAT64}, /* np.concatenate([a,b],axis=-1) */
    {"catn",
     "{'key':'a','op':'ones','shape':[2, "
     "3],'dtype':'float64'},{'key':'b','op':'ones','shape':[4],'dtype':'float64'},{'key':'c','op':'"
     "concatenate','inputs':['a','b'],'axis':null}",
     "(10,)", DT_FLOAT64}, /* np.concatenate([a,b],axis=None) */
    {"stack",
     "{'key':'a','op':'ones','shape':[2, 3],'dtype':'int32'},{'key':'b','op':'ones','shape':[2, "
     "3],'dtype':'int64'},{'key':'c','op':'stack','inputs':['a','b','a'],'axis':-1}",
     "(2, 3, 3)", DT_INT64}, /* np.stack([a,b,a],axis=-1) */
    {"stack0",
     "{'key':'a','op':'ones','shape':[],'dtype':'int32'},{'key':'c','op':'stack','inputs':['a','a']"
     "}",
     "(2,)", DT_INT32}, /* np.stack([a,a]) */
    {"gi",
     "{'key':'a','op':'ones','shape':[5, 6, "
     "7],'dtype':'float64'},{'key':'c','op':'getitem','inputs':['a'],'index':[1,'::-2']}",
     "(3, 7)", DT_FLOAT64}, /* a[1,::-2] */
    {"gi2",
     "{'key':'a','op':'ones','shape':[5, 6, "
     "7],'dtype':'float64'},{'key':'c','op':'getitem','inputs':['a'],'index':['-3:','1:100:4',-1]}",
     "(3, 2)", DT_FLOAT64}, /* a[-3:,1:100:4,-1] */
    {"gi3",
     "{'key':'a','op':'ones','shape':[5, 6, "
     "7],'dtype':'float64'},{'key':'c','op':'getitem','inputs':['a'],'index':[]}",
     "(5, 6, 7)", DT_FLOAT64}, /* a[()] */
    {"gi4",
     "{'key':'a','op':'ones','shape':[5, 6, "
     "7],'dtype':'float64'},{'key':'c','op':'getitem','inputs':['a'],'index':['4:1', ':']}",
     "(0, 6, 7)", DT_FLOAT64},                                         /* a[4:1,:] */
    {"ones", "{'key':'c','op':'ones','shape':5}", "(5,)", DT_FLOAT64}, /* np.ones(5) */
    {"zeros", "{'key':'c','op':'zeros','shape':[2,0],'dtype':'int32'}", "(2, 0)",
     DT_INT32}, /* np.zeros((2,0),'int32') */
    {"fulli", "{'key':'c','op':'full','shape':[2],'fill_value':3}", "(2,)",
     DT_INT64}, /* np.full((2,),3) */
    {"fullb", "{'key':'c','op':'full','shape':[2],'fill_value':false}", "(2,)",
     DT_BOOL}, /* np.full((2,),False) */
    {"fullf", "{'key':'c','op':'full','shape':[],'fill_value':1.5}", "()",
     DT_FLOAT64}, /* np.full((),1.5) */
    {"fulld", "{'key':'c','op':'full','shape':[3],'fill_value':1.5,'dtype':'int32'}", "(3,)",
     DT_INT32}, /* np.full((3,),1.5,dtype='int32') */
    {"ar", "{'key':'c','op':'arange','stop':10}", "(10,)", DT_INT64}, /* np.arange(10) */
    {"ar2", "{'key':'c','op':'arange','start':10,'stop':0,'step':-3}", "(4,)",
     DT_INT64}, /* np.arange(10,0,-3) */
    {"ar3", "{'key':'c','op':'arange','start':0,'stop':5,'step':0.5}", "(10,)",
     DT_FLOAT64}, /* np.arange(0,5,0.5) */
    {"ar4", "{'key':'c','op':'arange','start':0.1,'stop':0.4,'step':0.1}", "(4,)",
     DT_FLOAT64}, /* np.arange(0.1,0.4,0.1) */
    {"ar5", "{'key':'c','op':'arange','start':5,'stop':1}", "(0,)", DT_INT64}, /* np.arange(5,1) */
    {"ar6", "{'key':'c','op':'arange','stop':2,'dtype':'bool'}", "(2,)",
     DT_BOOL}, /* np.arange(2,dtype=bool) */
    {"ar7", "{'key':'c','op':'arange','start':true,'stop':5}", "(4,)",
     DT_INT64}, /* np.arange(True,5) */
    {"ar8",
     "{'key':'c','op':'arange','start':-9223372036854775807,'stop':-9223372036854775800,'step':2}",
     "(4,)", DT_INT64}, /* np.arange(-9223372036854775807,-9223372036854775800,2) */
    {"ls", "{'key':'c','op':'linspace','start':0,'stop':1}", "(50,)",
     DT_FLOAT64}, /* np.linspace(0,1) */
    {"ls0", "{'key':'c','op':'linspace','start':0,'stop':1,'num':0,'endpoint':false}", "(0,)",
     DT_FLOAT64}, /* np.linspace(0,1,0,endpoint=False) */
    {"eye", "{'key':'c','op':'eye','N':3}", "(3, 3)", DT_FLOAT64}, /* np.eye(3) */
    {"eye2", "{'key':'c','op':'eye','N':3,'M':5,'k':7,'dtype':'bool'}", "(3, 5)",
     DT_BOOL}, /* np.eye(3,5,7,dtype=bool) */
    {"arr", "{'key':'c','op':'array','data':[[1,2],[3,4],[5,6]]}", "(3, 2)",
     DT_INT64}, /* np.array([[1,2],[3,4],[5,6]]) */
    {"arrb", "{'key':'c','op':'array','data':[true,false]}", "(2,)",
     DT_BOOL}, /* np.array([True,False]) */
    {"arrbi", "{'key':'c','op':'array','data':[true,2]}", "(2,)",
     DT_INT64}, /* np.array([True,2]) */
    {"arrf", "{'key':'c','op':'array','data':[[1,2.5]]}", "(1, 2)",
     DT_FLOAT64}, /* np.array([[1,2.5]]) */
    {"arre", "{'key':'c','op':'array','data':[[],[]]}", "(2, 0)",
     DT_FLOAT64},                                                  /* np.array([[],[]]) */
    {"arr0", "{'key':'c','op':'array','data':7}", "()", DT_INT64}, /* np.array(7) */
    {"arrd", "{'key':'c','op':'array','data':[1,2],'dtype':'float32'}", "(2,)",
     DT_FLOAT32}, /* np.array([1,2],dtype='float32') */
    {"rand", "{'key':'c','op':'random.rand','shape':[2,3]}", "(2, 3)",
     DT_FLOAT64}, /* np.random.rand(2,3) */
    {"randn", "{'key':'c','op':'random.randn','shape':4,'seed':1}", "(4,)",
     DT_FLOAT64}, /* np.random.randn(4) */
    {"randint", "{'key':'c','op':'random.randint','low':3,'shape':[2]}", "(2,)",
     DT_INT64}, /* np.random.randint(3,size=(2,)) */
    {"randint32", "{'key':'c','op':'random.randint','low':-3,'high':3,'shape':[2],'dtype':'int32'}",
     "(2,)", DT_INT32}, /* np.random.randint(-3,3,size=(2,),dtype='int32') */
    {"unif", "{'key':'c','op':'random.uniform','low':2,'high':1,'shape':[2]}", "(2,)",
     DT_FLOAT64}, /* np.random.uniform(2,1,size=(2,)) */
    {"norm", "{'key':'c','op':'random.normal','shape':[]}", "()",
     DT_FLOAT64}, /* np.asarray(np.random.normal()) */
};

static void test_infer_table(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof infer_cases / sizeof infer_cases[0]; i++) {
        const infer_case_t *t = &infer_cases[i];
        graph_t *g = ok_nodes(t->nodes);
        const graph_node_t *n = node(g, "c");
        char buf[1024];
        shape_format(&n->oshape, buf, sizeof buf);
        if (strcmp(buf, t->shape) != 0 || n->odtype != t->dtype)
            fail_msg("%s: got %s %s, want %s %s", t->name, buf, dt_name(n->odtype), t->shape,
                     dt_name(t->dtype));
        graph_free(g);
    }
}

/* ---------------------------------------------------------------------------
 * The contract's example, order, consumers */

static void test_seed_example(void **state)
{
    (void)state;
    graph_t *g = ok_doc(
        "{\"version\": 1,\n \"nodes\": [\n"
        "  {\"key\": \"a\", \"op\": \"ones\", \"shape\": [2000, 2000], \"chunk_size\": 200},\n"
        "  {\"key\": \"b\", \"op\": \"inner\", \"inputs\": [\"a\", \"a\"]}\n ],\n"
        " \"fetch\": [\"b\"]}");
    assert_int_equal(g->n_nodes, 2);
    const graph_node_t *a = &g->nodes[0], *b = &g->nodes[1];
    assert_string_equal(a->key, "a");
    assert_int_equal(a->op, OP_ONES);
    shape_is(a, "(2000, 2000)");
    assert_int_equal(a->odtype, DT_FLOAT64);
    assert_int_equal(a->n_chunk, 2);
    assert_int_equal(a->chunk[0], 200);
    assert_int_equal(a->chunk[1], 200);
    assert_int_equal(a->n_consumers, 1); /* inner(a, a): one user */
    assert_false(a->fetch);
    assert_int_equal(b->op, OP_INNER);
    assert_int_equal(b->n_in, 2);
    assert_int_equal(b->in[0].node, 0);
    assert_int_equal(b->in[1].node, 0);
    shape_is(b, "(2000, 2000)");
    assert_int_equal(b->odtype, DT_FLOAT64);
    assert_int_equal(b->td_n, 1);
    assert_int_equal(b->td_a[0], 1);
    assert_int_equal(b->td_b[0], 1);
    assert_int_equal(b->n_chunk, 0);
    assert_int_equal(b->n_consumers, 0);
    assert_true(b->fetch);
    assert_int_equal(g->n_fetch, 1);
    assert_int_equal(g->fetch[0], 1);
    assert_int_equal(graph_find(g, "b"), 1);
    assert_int_equal(graph_find(g, "zz"), -1);
    graph_free(g);
}

static void test_topo_reorders(void **state)
{
    (void)state;
    char *d = dq("{'version':1,'nodes':["
                 "{'key':'c','op':'add','inputs':['b','a']},"
                 "{'key':'b','op':'negative','inputs':['a']},"
                 "{'key':'a','op':'ones','shape':[3]}],"
                 "'fetch':['c','a']}");
    graph_t *g = ok_doc(d);
    free(d);
    assert_string_equal(g->nodes[0].key, "a");
    assert_string_equal(g->nodes[1].key, "b");
    assert_string_equal(g->nodes[2].key, "c");
    assert_int_equal(g->nodes[1].in[0].node, 0);
    assert_int_equal(g->nodes[2].in[0].node, 1);
    assert_int_equal(g->nodes[2].in[1].node, 0);
    assert_int_equal(g->n_fetch, 2);
    assert_int_equal(g->fetch[0], 2); /* fetch keeps the document's order */
    assert_int_equal(g->fetch[1], 0);
    assert_true(g->nodes[0].fetch && g->nodes[2].fetch && !g->nodes[1].fetch);
    assert_int_equal(g->nodes[0].n_consumers, 2);
    assert_int_equal(g->nodes[1].n_consumers, 1);
    graph_free(g);
}

static void test_topo_stable(void **state)
{
    (void)state;
    /* Ready nodes come out in document order: x, y (which c waits for), c, d. */
    graph_t *g = ok_nodes("{'key':'x','op':'ones','shape':[2]},"
                          "{'key':'c','op':'add','inputs':['x','y']},"
                          "{'key':'y','op':'ones','shape':[2]},"
                          "{'key':'d','op':'zeros','shape':[2]}");
    const char *want[] = {"x", "y", "c", "d"};
    for (int i = 0; i < 4; i++)
        assert_string_equal(g->nodes[i].key, want[i]);
    graph_free(g);
    /* A document already in order keeps it. */
    g = ok_nodes("{'key':'p','op':'ones','shape':[2]},{'key':'q','op':'ones','shape':[2]},"
                 "{'key':'r','op':'add','inputs':['q','p']},{'key':'s','op':'abs','inputs':['p']}");
    const char *want2[] = {"p", "q", "r", "s"};
    for (int i = 0; i < 4; i++)
        assert_string_equal(g->nodes[i].key, want2[i]);
    graph_free(g);
}

static void test_cycles(void **state)
{
    (void)state;
    err_nodes("{'key':'a','op':'add','inputs':['b',1]},{'key':'b','op':'add','inputs':['a',1]}",
              "node \"a\" (add): inputs form a cycle: a -> b -> a");
    err_nodes("{'key':'a','op':'add','inputs':['a',1]}",
              "node \"a\" (add): inputs form a cycle: a -> a");
    /* r hangs below the cycle q <-> p; the cycle is named from q, its first
     * node in document order */
    err_nodes("{'key':'x','op':'ones','shape':[2]},"
              "{'key':'r','op':'abs','inputs':['p']},"
              "{'key':'q','op':'add','inputs':['x','p']},"
              "{'key':'p','op':'negative','inputs':['q']}",
              "node \"q\" (add): inputs form a cycle: q -> p -> q");
}

static void test_consumers_distinct(void **state)
{
    (void)state;
    graph_t *g = ok_nodes("{'key':'a','op':'ones','shape':[2]},"
                          "{'key':'b','op':'concatenate','inputs':['a','a','a']},"
                          "{'key':'c','op':'add','inputs':['b',1]},"
                          "{'key':'d','op':'add','inputs':['a',2]},"
                          "{'key':'e','op':'add','inputs':['a','a']}");
    assert_int_equal(node(g, "a")->n_consumers, 3);
    assert_int_equal(node(g, "b")->n_consumers, 1);
    assert_int_equal(node(g, "c")->n_consumers, 0);
    shape_is(node(g, "b"), "(6,)");
    assert_int_equal(node(g, "d")->in[1].node, -1);
    assert_int_equal(node(g, "d")->in[1].sc.kind, SC_INT);
    assert_int_equal(node(g, "d")->in[1].sc.i, 2);
    graph_free(g);
}

/* ---------------------------------------------------------------------------
 * Promotion: value-based casting of scalars and 0-d tensors */

static void test_promotion_zero_d(void **state)
{
    (void)state;
    /* numpy counts 0-d arrays as scalars. With only scalars, plain
     * promotion: 0-d int32 + Python 27 -> int64 (np.ones((), 'int32') + 27). */
    graph_t *g = ok_nodes("{'key':'a','op':'ones','shape':[],'dtype':'int32'},"
                          "{'key':'c','op':'add','inputs':['a',27]}");
    assert_int_equal(node(g, "c")->odtype, DT_INT64);
    graph_free(g);
    /* (3,) bool + 0-d int32: the 0-d operand is of a higher kind, so plain
     * promotion: int32 (numpy agrees). */
    g = ok_nodes("{'key':'a','op':'ones','shape':[3],'dtype':'bool'},"
                 "{'key':'b','op':'ones','shape':[],'dtype':'int32'},"
                 "{'key':'c','op':'add','inputs':['a','b']}");
    assert_int_equal(node(g, "c")->odtype, DT_INT32);
    graph_free(g);
    /* Deviation, documented in graph_infer.c: a 0-d tensor whose values
     * would count is taken at its dtype (numpy: int32 for small values). */
    g = ok_nodes("{'key':'a','op':'ones','shape':[3],'dtype':'int32'},"
                 "{'key':'b','op':'sum','inputs':['a']},"
                 "{'key':'c','op':'subtract','inputs':['a','b']}");
    assert_int_equal(node(g, "b")->odtype, DT_INT64);
    assert_int_equal(node(g, "c")->odtype, DT_INT64);
    graph_free(g);
    /* float32 - mean(float32): float32 either way */
    g = ok_nodes("{'key':'a','op':'ones','shape':[3],'dtype':'float32'},"
                 "{'key':'b','op':'mean','inputs':['a']},"
                 "{'key':'c','op':'subtract','inputs':['a','b']}");
    assert_int_equal(node(g, "c")->odtype, DT_FLOAT32);
    graph_free(g);
}

static void test_ew_dtype_errors(void **state)
{
    (void)state;
    err_nodes("{'key':'a','op':'ones','shape':[2],'dtype':'bool'},{'key':'c','op':'subtract','"
              "inputs':['a','a']}",
              "node \"c\" (subtract): numpy boolean subtract is not supported; use logical_xor or "
              "not_equal");
    err_nodes("{'key':'c','op':'negative','inputs':[true]}",
              "node \"c\" (negative): numpy boolean negative is not supported; use logical_not");
    err_nodes(
        "{'key':'a','op':'ones','shape':[2],'dtype':'bool'},{'key':'c','op':'sqrt','inputs':['a']}",
        "node \"c\" (sqrt): sqrt: the float16 result numpy gives is not supported for bool input");
    err_nodes("{'key':'a','op':'ones','shape':[2,3]},{'key':'b','op':'ones','shape':[4]},"
              "{'key':'c','op':'add','inputs':['a','b']}",
              "node \"c\" (add): operands could not be broadcast together with shapes (2, 3) (4,)");
    err_nodes(
        "{'key':'a','op':'ones','shape':[3],'dtype':'bool'},{'key':'b','op':'ones','shape':[2]},"
        "{'key':'c','op':'where','inputs':['a','b',0]}",
        "node \"c\" (where): operands could not be broadcast together with shapes (3,) (2,) ()");
}

/* ---------------------------------------------------------------------------
 * Parameters normalised for the tiler and kernels */

static void test_axes_normalised(void **state)
{
    (void)state;
    graph_t *g = ok_nodes("{'key':'a','op':'ones','shape':[2,3,4,5]},"
                          "{'key':'s','op':'sum','inputs':['a'],'axis':[-1,1]},"
                          "{'key':'n','op':'max','inputs':['a']},"
                          "{'key':'t','op':'transpose','inputs':['a']},"
                          "{'key':'t2','op':'transpose','inputs':['a'],'axes':[0,-1,1,2]},"
                          "{'key':'e','op':'expand_dims','inputs':['a'],'axis':[-1,0]},"
                          "{'key':'k','op':'concatenate','inputs':['a','a'],'axis':-2},"
                          "{'key':'st','op':'stack','inputs':['a','a'],'axis':-1},"
                          "{'key':'am','op':'argmax','inputs':['a'],'axis':-3},"
                          "{'key':'cs','op':'cumsum','inputs':['a']},"
                          "{'key':'sq','op':'squeeze','inputs':['e']}");
    const graph_node_t *n = node(g, "s");
    assert_false(n->axis_all);
    assert_int_equal(n->n_axis, 2);
    assert_int_equal(n->axis[0], 1);
    assert_int_equal(n->axis[1], 3);
    shape_is(n, "(2, 4)");
    n = node(g, "n");
    assert_true(n->axis_all);
    assert_int_equal(n->n_axis, 4);
    assert_int_equal(n->axis[3], 3);
    shape_is(n, "()");
    n = node(g, "t");
    for (int d = 0; d < 4; d++)
        assert_int_equal(n->perm[d], 3 - d);
    shape_is(n, "(5, 4, 3, 2)");
    n = node(g, "t2");
    assert_int_equal(n->perm[1], 3);
    shape_is(n, "(2, 5, 3, 4)");
    n = node(g, "e");
    assert_int_equal(n->n_axis, 2);
    assert_int_equal(n->axis[0], 0);
    assert_int_equal(n->axis[1], 5);
    shape_is(n, "(1, 2, 3, 4, 5, 1)");
    n = node(g, "k");
    assert_int_equal(n->n_axis, 1);
    assert_int_equal(n->axis[0], 2);
    shape_is(n, "(2, 3, 8, 5)");
    n = node(g, "st");
    assert_int_equal(n->axis[0], 4);
    shape_is(n, "(2, 3, 4, 5, 2)");
    n = node(g, "am");
    assert_int_equal(n->n_axis, 1);
    assert_int_equal(n->axis[0], 1);
    shape_is(n, "(2, 4, 5)");
    n = node(g, "cs");
    assert_true(n->axis_all);
    shape_is(n, "(120,)");
    n = node(g, "sq");
    assert_true(n->axis_all);
    assert_int_equal(n->n_axis, 2);
    assert_int_equal(n->axis[0], 0);
    assert_int_equal(n->axis[1], 5);
    shape_is(n, "(2, 3, 4, 5)");
    graph_free(g);
}

static void test_linalg_contraction(void **state)
{
    (void)state;
    graph_t *g = ok_nodes("{'key':'a','op':'ones','shape':[2,3,4]},"
                          "{'key':'b','op':'ones','shape':[5,4,6]},"
                          "{'key':'v','op':'ones','shape':[4]},"
                          "{'key':'z','op':'ones','shape':[]},"
                          "{'key':'w','op':'ones','shape':[4,3,5]},"
                          "{'key':'b1','op':'ones','shape':[1,4,6]},"
                          "{'key':'d','op':'dot','inputs':['a','b']},"
                          "{'key':'dv','op':'dot','inputs':['a','v']},"
                          "{'key':'dz','op':'dot','inputs':['z','a']},"
                          "{'key':'i','op':'inner','inputs':['a','v']},"
                          "{'key':'t','op':'tensordot','inputs':['a','w'],'axes':[[-2,2],[1,-3]]},"
                          "{'key':'t2','op':'tensordot','inputs':['a','w'],'axes':1},"
                          "{'key':'m','op':'matmul','inputs':['a','b1']}");
    const graph_node_t *n = node(g, "d");
    assert_int_equal(n->td_n, 1);
    assert_int_equal(n->td_a[0], 2);
    assert_int_equal(n->td_b[0], 1);
    shape_is(n, "(2, 3, 5, 6)");
    n = node(g, "dv");
    assert_int_equal(n->td_n, 1);
    assert_int_equal(n->td_a[0], 2);
    assert_int_equal(n->td_b[0], 0);
    shape_is(n, "(2, 3)");
    n = node(g, "dz");
    assert_int_equal(n->td_n, 0);
    shape_is(n, "(2, 3, 4)");
    n = node(g, "i");
    assert_int_equal(n->td_a[0], 2);
    assert_int_equal(n->td_b[0], 0);
    shape_is(n, "(2, 3)");
    n = node(g, "t"); /* np.tensordot(a, w, axes=([-2, 2], [1, -3])) */
    assert_int_equal(n->td_n, 2);
    assert_int_equal(n->td_a[0], 1);
    assert_int_equal(n->td_a[1], 2);
    assert_int_equal(n->td_b[0], 1);
    assert_int_equal(n->td_b[1], 0);
    shape_is(n, "(2, 5)");
    n = node(g, "t2");
    assert_int_equal(n->td_n, 1);
    assert_int_equal(n->td_a[0], 2);
    assert_int_equal(n->td_b[0], 0);
    shape_is(n, "(2, 3, 3, 5)");
    n = node(g, "m");
    assert_int_equal(n->td_n, 1);
    assert_int_equal(n->td_a[0], 2);
    assert_int_equal(n->td_b[0], 1);
    shape_is(n, "(2, 3, 6)"); /* np.matmul(a, b1): batch (2,) with (1,) */
    graph_free(g);
}

static void test_getitem_index(void **state)
{
    (void)state;
    graph_t *g = ok_nodes("{'key':'a','op':'ones','shape':[5,6,7]},"
                          "{'key':'c','op':'getitem','inputs':['a'],'index':[-1,'::-2']}");
    const graph_node_t *n = node(g, "c");
    assert_int_equal(n->n_index, 3); /* every input axis gets an entry */
    assert_true(n->index[0].is_int);
    assert_int_equal(n->index[0].i, 4);
    assert_false(n->index[1].is_int); /* slice(None, None, -2).indices(6) = (5, -1, -2) */
    assert_int_equal(n->index[1].start, 5);
    assert_int_equal(n->index[1].stop, -1);
    assert_int_equal(n->index[1].step, -2);
    assert_int_equal(n->index[1].len, 3);
    assert_false(n->index[2].is_int);
    assert_int_equal(n->index[2].start, 0);
    assert_int_equal(n->index[2].stop, 7);
    assert_int_equal(n->index[2].step, 1);
    assert_int_equal(n->index[2].len, 7);
    shape_is(n, "(3, 7)");
    graph_free(g);
    /* huge bounds clamp as slice.indices does: slice(-10**30, 10**30, 3).indices(6) */
    g = ok_nodes("{'key':'a','op':'ones','shape':[6]},"
                 "{'key':'c','op':'getitem','inputs':['a'],'index':[' "
                 "-1000000000000000000000000000000 : 1000000000000000000000000000000 : 3']}");
    n = node(g, "c");
    assert_int_equal(n->index[0].start, 0);
    assert_int_equal(n->index[0].stop, 6);
    assert_int_equal(n->index[0].len, 2);
    graph_free(g);
}

/* ---------------------------------------------------------------------------
 * Creation and random ops */

static void test_array_data(void **state)
{
    (void)state;
    graph_t *g =
        ok_nodes("{'key':'i','op':'array','data':[[1,2],[3,-4]]},"
                 "{'key':'f','op':'array','data':[[1,2.5]],'dtype':'float32'},"
                 "{'key':'t','op':'array','data':[1.9,-1.9,10000000000.0],'dtype':'int32'},"
                 "{'key':'b','op':'array','data':[0,2,0.5],'dtype':'bool'},"
                 "{'key':'e','op':'array','data':[]},"
                 "{'key':'s','op':'array','data':true}");
    const graph_node_t *n = node(g, "i");
    assert_int_equal(n->odtype, DT_INT64);
    shape_is(n, "(2, 2)");
    const int64_t *iv = n->data;
    assert_int_equal(iv[0], 1);
    assert_int_equal(iv[3], -4);
    n = node(g, "f");
    assert_int_equal(n->odtype, DT_FLOAT32);
    assert_true(((const float *)n->data)[1] == 2.5f);
    /* np.array([1.9, -1.9, 1e10], dtype='int32') = [1, -1, 1410065408] */
    n = node(g, "t");
    const int32_t *tv = n->data;
    assert_int_equal(tv[0], 1);
    assert_int_equal(tv[1], -1);
    assert_int_equal(tv[2], 1410065408);
    n = node(g, "b");
    const bool *bv = n->data;
    assert_false(bv[0]);
    assert_true(bv[1]);
    assert_true(bv[2]);
    n = node(g, "e");
    assert_int_equal(n->odtype, DT_FLOAT64);
    shape_is(n, "(0,)");
    assert_non_null(n->data);
    n = node(g, "s");
    assert_int_equal(n->odtype, DT_BOOL);
    shape_is(n, "()");
    assert_true(*(const bool *)n->data);
    graph_free(g);
}

static void test_creation_params(void **state)
{
    (void)state;
    graph_t *g = ok_nodes(
        "{'key':'ar','op':'arange','start':1,'stop':2.0,'step':0.25},"
        "{'key':'ls','op':'linspace','start':0,'stop':1,'num':7,'endpoint':false},"
        "{'key':'ey','op':'eye','N':3,'M':null,'k':-1,'chunk_size':[2,3]},"
        "{'key':'fu','op':'full','shape':4,'fill_value':2.5,'dtype':'int32'},"
        "{'key':'big','op':'arange','start':-1,'stop':9007199254740993,'step':9007199254740993},"
        "{'key':'big2','op':'arange','stop':9007199254740995,'step':9007199254740993},"
        "{'key':'neg','op':'arange','start':10,'stop':-3,'step':-4}");
    const graph_node_t *n = node(g, "ar");
    assert_int_equal(n->start.kind, SC_INT);
    assert_int_equal(n->stop.kind, SC_FLOAT);
    assert_true(n->step.f == 0.25);
    shape_is(n, "(4,)");
    assert_int_equal(n->odtype, DT_FLOAT64);
    n = node(g, "ls");
    assert_int_equal(n->num, 7);
    assert_false(n->endpoint);
    shape_is(n, "(7,)");
    n = node(g, "ey");
    assert_int_equal(n->N, 3);
    assert_int_equal(n->M, 3);
    assert_int_equal(n->k, -1);
    shape_is(n, "(3, 3)");
    assert_int_equal(n->n_chunk, 2);
    assert_int_equal(n->chunk[1], 3);
    /* numpy rounds (stop - start) / step to a double before the ceiling:
     * np.arange(-1, 2**53 + 1, 2**53 + 1) has 1 element, not 2 */
    shape_is(node(g, "big"), "(1,)");
    shape_is(node(g, "big2"), "(2,)"); /* np.arange(0, 2**53 + 3, 2**53 + 1) */
    shape_is(node(g, "neg"), "(4,)");  /* np.arange(10, -3, -4) */
    n = node(g, "fu");
    assert_true(n->has_dtype);
    assert_int_equal(n->odtype, DT_INT32);
    assert_true(n->fill_value.f == 2.5);
    graph_free(g);
}

static void test_random_params(void **state)
{
    (void)state;
    graph_t *g = ok_nodes(
        "{'key':'r','op':'random.rand','shape':[3],'seed':42},"
        "{'key':'d1','op':'random.randn','shape':[3]},"
        "{'key':'d2','op':'random.randn','shape':[3]},"
        "{'key':'ri','op':'random.randint','low':7},"
        "{'key':'r2','op':'random.randint','low':-2147483648,'high':2147483648,'dtype':'int32'},"
        "{'key':'u','op':'random.uniform','shape':[2]},"
        "{'key':'no','op':'random.normal','loc':1,'scale':0.5,'shape':[2,2],'chunk_size':1}");
    const graph_node_t *n = node(g, "r");
    assert_true(n->has_seed);
    assert_int_equal(n->seed, 42);
    assert_int_equal(n->odtype, DT_FLOAT64);
    const graph_node_t *d1 = node(g, "d1"), *d2 = node(g, "d2");
    assert_false(d1->has_seed);
    assert_true(d1->seed < (1ULL << 63) && d2->seed < (1ULL << 63));
    assert_true(d1->seed != d2->seed); /* two 63-bit draws: equal with p = 2^-63 */
    n = node(g, "ri");                 /* randint(7): [0, 7) */
    assert_int_equal(n->low.i, 0);
    assert_int_equal(n->high.i, 7);
    assert_int_equal(n->odtype, DT_INT64);
    shape_is(n, "()");
    n = node(g, "r2");
    assert_int_equal(n->odtype, DT_INT32);
    n = node(g, "u");
    assert_true(sc_as_double(n->low) == 0.0 && sc_as_double(n->high) == 1.0);
    n = node(g, "no");
    assert_true(sc_as_double(n->loc) == 1.0 && sc_as_double(n->scale) == 0.5);
    assert_int_equal(n->n_chunk, 2);
    assert_int_equal(n->chunk[0], 1);
    graph_free(g);
}

static void test_chunk_size(void **state)
{
    (void)state;
    graph_t *g = ok_nodes("{'key':'a','op':'zeros','shape':[10,20],'chunk_size':[3,20]},"
                          "{'key':'r','op':'rechunk','inputs':['a'],'chunk_size':4},"
                          "{'key':'s','op':'ones','shape':[],'chunk_size':5},"
                          "{'key':'n','op':'ones','shape':[4]}");
    const graph_node_t *n = node(g, "a");
    assert_int_equal(n->n_chunk, 2);
    assert_int_equal(n->chunk[0], 3);
    assert_int_equal(n->chunk[1], 20);
    n = node(g, "r");
    shape_is(n, "(10, 20)");
    assert_int_equal(n->n_chunk, 2);
    assert_int_equal(n->chunk[0], 4);
    assert_int_equal(n->chunk[1], 4);
    assert_int_equal(node(g, "s")->n_chunk, 0);
    assert_int_equal(node(g, "n")->n_chunk, 0);
    graph_free(g);
    err_nodes("{'key':'a','op':'ones','shape':[2,2],'chunk_size':[2]}",
              "node \"a\" (ones): \"chunk_size\" has 1 entries for a 2-dimensional result");
    err_nodes("{'key':'a','op':'ones','shape':[2,2],'chunk_size':0}",
              "node \"a\" (ones): \"chunk_size\" must be a positive integer or a list of positive "
              "integers");
    err_nodes("{'key':'a','op':'ones','shape':[2,2],'chunk_size':[2,-1]}",
              "node \"a\" (ones): \"chunk_size\" must be a positive integer or a list of positive "
              "integers");
    err_nodes(
        "{'key':'a','op':'ones','shape':[2]},{'key':'c','op':'abs','inputs':['a'],'chunk_size':1}",
        "node \"c\" (abs): unknown field \"chunk_size\"");
    err_nodes("{'key':'a','op':'ones','shape':[2]},{'key':'c','op':'rechunk','inputs':['a']}",
              "node \"c\" (rechunk): \"chunk_size\" is missing");
}

/* ---------------------------------------------------------------------------
 * Errors */

typedef struct {
    const char *doc; /* single quotes */
    const char *msg;
} err_case_t;

#define ONES23 "{'key':'a','op':'ones','shape':[2,3]}"
#define D(nodes) "{'version':1,'nodes':[" nodes "]}"

static const err_case_t document_errors[] = {
    {"{'version':2,'nodes':[" ONES23 "]}", "document: \"version\" must be the integer 1"},
    {"{'version':1.0,'nodes':[" ONES23 "]}", "document: \"version\" must be the integer 1"},
    {"{'version':'1','nodes':[" ONES23 "]}", "document: \"version\" must be the integer 1"},
    {"{'version':true,'nodes':[" ONES23 "]}", "document: \"version\" must be the integer 1"},
    {"{'nodes':[" ONES23 "]}", "document: \"version\" is missing"},
    {"{'version':1}", "document: \"nodes\" is missing"},
    {"{'version':1,'nodes':[]}", "document: \"nodes\" must be a non-empty list"},
    {"{'version':1,'nodes':{}}", "document: \"nodes\" must be a non-empty list"},
    {"{'version':1,'nodes':[" ONES23 "],'fetch':'a'}",
     "document: \"fetch\" must be a list of node keys"},
    {"{'version':1,'nodes':[" ONES23 "],'fetch':['zz']}",
     "document: fetch names \"zz\", which is not a node of this document"},
    {"{'version':1,'nodes':[" ONES23 "],'fetch':['a','a']}", "document: fetch names \"a\" twice"},
    {"{'version':1,'nodes':[" ONES23 "],'fetch':[1]}", "document: fetch[0] must be a node key"},
    {"{'version':1,'nodes':[" ONES23 "],'fetchh':[]}", "document: unknown field \"fetchh\""},
    {"[1]", "document: must be a JSON object"},
};

static const err_case_t node_errors[] = {
    {D("5"), "nodes[0]: must be an object"},
    {D(ONES23 ",{'op':'ones'}"), "nodes[1]: \"key\" is missing"},
    {D("{'key':5,'op':'ones'}"), "nodes[0]: \"key\" must be a string"},
    {D("{'key':'','op':'ones'}"), "nodes[0]: key \"\" must be 1-128 characters of [A-Za-z0-9_.-]"},
    {D("{'key':'a b','op':'ones'}"),
     "nodes[0]: key \"a b\" must be 1-128 characters of [A-Za-z0-9_.-]"},
    {D("{'key':'a/b','op':'ones'}"),
     "nodes[0]: key \"a/b\" must be 1-128 characters of [A-Za-z0-9_.-]"},
    {D("{'key':'a'}"), "node \"a\": \"op\" is missing"},
    {D("{'key':'a','op':1}"), "node \"a\": \"op\" must be a string"},
    {D("{'key':'a','op':'onez'}"), "node \"a\": unknown op \"onez\""},
    {D("{'key':'a','op':'<session tensor>'}"), "node \"a\": unknown op \"<session tensor>\""},
    {D(ONES23 ",{'key':'b','op':'ones','shape':1},{'key':'a','op':'zeros','shape':1}"),
     "node \"a\" (zeros): duplicate key (nodes[0] has it too)"},
    {D("{'key':'a','op':'ones','shap':[2]}"), "node \"a\" (ones): unknown field \"shap\""},
    {D("{'key':'a','op':'linspace','start':0,'stop':1,'dtype':'float32'}"),
     "node \"a\" (linspace): unknown field \"dtype\""},
    {D(ONES23 ",{'key':'c','op':'cumsum','inputs':['a'],'keepdims':true}"),
     "node \"c\" (cumsum): unknown field \"keepdims\""},
    {D(ONES23 ",{'key':'c','op':'sum','inputs':['a'],'ddof':1}"),
     "node \"c\" (sum): unknown field \"ddof\""},
    /* inputs and arity */
    {D(ONES23 ",{'key':'c','op':'add','inputs':'a'}"),
     "node \"c\" (add): \"inputs\" must be a list"},
    {D(ONES23 ",{'key':'c','op':'add','inputs':['a']}"), "node \"c\" (add): takes 2 inputs, got 1"},
    {D(ONES23 ",{'key':'c','op':'add'}"), "node \"c\" (add): takes 2 inputs, got 0"},
    {D(ONES23 ",{'key':'c','op':'where','inputs':['a','a']}"),
     "node \"c\" (where): takes 3 inputs, got 2"},
    {D(ONES23 ",{'key':'c','op':'sum','inputs':['a','a']}"),
     "node \"c\" (sum): takes 1 input, got 2"},
    {D(ONES23 ",{'key':'c','op':'inner','inputs':['a']}"),
     "node \"c\" (inner): takes 2 inputs, got 1"},
    {D(ONES23 ",{'key':'c','op':'ones','shape':1,'inputs':['a']}"),
     "node \"c\" (ones): takes no inputs, got 1"},
    {D("{'key':'c','op':'concatenate','inputs':[]}"),
     "node \"c\" (concatenate): need at least one array to concatenate"},
    {D("{'key':'c','op':'stack'}"), "node \"c\" (stack): need at least one array to stack"},
    {D(ONES23 ",{'key':'c','op':'sum','inputs':[3]}"),
     "node \"c\" (sum): inputs[0] is a scalar; sum takes only tensor inputs"},
    {D(ONES23 ",{'key':'c','op':'inner','inputs':['a',2]}"),
     "node \"c\" (inner): inputs[1] is a scalar; inner takes only tensor inputs"},
    {D(ONES23 ",{'key':'c','op':'add','inputs':['a',null]}"),
     "node \"c\" (add): inputs[1] must be a node key, a number or a boolean"},
    {D(ONES23 ",{'key':'c','op':'add','inputs':['a','zz']}"),
     "node \"c\" (add): input \"zz\" is not a node of this document"},
    {D(ONES23 ",{'key':'c','op':'add','inputs':['a','z z']}"),
     "node \"c\" (add): input \"z z\" is not a node of this document"},
    /* shape and dtype */
    {D("{'key':'a','op':'ones'}"), "node \"a\" (ones): \"shape\" is missing"},
    {D("{'key':'a','op':'ones','shape':[2,-1]}"),
     "node \"a\" (ones): negative dimensions are not allowed"},
    {D("{'key':'a','op':'ones','shape':-3}"),
     "node \"a\" (ones): negative dimensions are not allowed"},
    {D("{'key':'a','op':'ones','shape':'3'}"),
     "node \"a\" (ones): \"shape\" must be an integer or a list of integers"},
    {D("{'key':'a','op':'ones','shape':[2.0]}"),
     "node \"a\" (ones): \"shape\" must be an integer or a list of integers"},
    {D("{'key':'a','op':'ones','shape':[1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,"
       "1,1,1,1]}"),
     "node \"a\" (ones): maximum supported dimension for an ndarray is 32, found 33"},
    {D("{'key':'a','op':'ones','shape':1,'dtype':'float16'}"),
     "node \"a\" (ones): \"dtype\" must be one of float64, float32, int64, int32, int16, int8, "
     "uint64, "
     "uint32, uint16, uint8, bool, not "
     "\"float16\""},
    {D("{'key':'a','op':'ones','shape':1,'dtype':8}"),
     "node \"a\" (ones): \"dtype\" must be one of float64, float32, int64, int32, int16, int8, "
     "uint64, uint32, uint16, uint8, bool"},
    /* creation */
    {D("{'key':'a','op':'full','shape':1}"), "node \"a\" (full): \"fill_value\" is missing"},
    {D("{'key':'a','op':'full','shape':1,'fill_value':'x'}"),
     "node \"a\" (full): \"fill_value\" must be a number or a boolean"},
    {D("{'key':'a','op':'arange','start':1}"),
     "node \"a\" (arange): \"stop\" is missing (arange() requires stop to be specified)"},
    {D("{'key':'a','op':'arange','stop':5,'step':0}"),
     "node \"a\" (arange): \"step\" must not be zero (numpy: division by zero)"},
    {D("{'key':'a','op':'arange','stop':5,'step':0.0}"),
     "node \"a\" (arange): \"step\" must not be zero (numpy: division by zero)"},
    {D("{'key':'a','op':'arange','stop':3,'dtype':'bool'}"),
     "node \"a\" (arange): arange() is only supported for booleans when the result has at most "
     "length 2."},
    {D("{'key':'a','op':'arange','start':-1e308,'stop':1e308}"),
     "node \"a\" (arange): Maximum allowed size exceeded"},
    {D("{'key':'a','op':'arange','start':0,'stop':1e20}"),
     "node \"a\" (arange): Maximum allowed size exceeded"},
    {D("{'key':'a','op':'arange','start':-9223372036854775807,'stop':9223372036854775807}"),
     "node \"a\" (arange): Maximum allowed size exceeded"},
    {D("{'key':'a','op':'arange','start':0,'stop':-1e20}"),
     "node \"a\" (arange): Maximum allowed size exceeded"},
    {D("{'key':'a','op':'arange','start':9223372036854775807,'stop':-9223372036854775807}"),
     "node \"a\" (arange): Maximum allowed size exceeded"},
    {D("{'key':'a','op':'arange','stop':'5'}"),
     "node \"a\" (arange): \"stop\" must be a number or a boolean"},
    {D("{'key':'a','op':'linspace','start':0,'stop':1,'num':-1}"),
     "node \"a\" (linspace): Number of samples, -1, must be non-negative."},
    {D("{'key':'a','op':'linspace','stop':1}"), "node \"a\" (linspace): \"start\" is missing"},
    {D("{'key':'a','op':'linspace','start':0,'stop':1,'num':2.5}"),
     "node \"a\" (linspace): \"num\" must be an integer"},
    {D("{'key':'a','op':'linspace','start':0,'stop':1,'endpoint':1}"),
     "node \"a\" (linspace): \"endpoint\" must be true or false"},
    {D("{'key':'a','op':'eye'}"), "node \"a\" (eye): \"N\" is missing"},
    {D("{'key':'a','op':'eye','N':-1}"), "node \"a\" (eye): negative dimensions are not allowed"},
    {D("{'key':'a','op':'eye','N':2,'M':-1}"),
     "node \"a\" (eye): negative dimensions are not allowed"},
    {D("{'key':'a','op':'eye','N':2,'k':null}"), "node \"a\" (eye): \"k\" must be an integer"},
    {D("{'key':'a','op':'array'}"), "node \"a\" (array): \"data\" is missing"},
    {D("{'key':'a','op':'array','data':[[1,2],[3]]}"),
     "node \"a\" (array): setting an array element with a sequence. The requested array has an "
     "inhomogeneous shape after 1 dimensions. The detected shape was (2,) + inhomogeneous part."},
    {D("{'key':'a','op':'array','data':[[[1],[2]],[[1],2]]}"),
     "node \"a\" (array): setting an array element with a sequence. The requested array has an "
     "inhomogeneous shape after 2 dimensions. The detected shape was (2, 2) + inhomogeneous part."},
    {D("{'key':'a','op':'array','data':[[],[1]]}"),
     "node \"a\" (array): setting an array element with a sequence. The requested array has an "
     "inhomogeneous shape after 1 dimensions. The detected shape was (2,) + inhomogeneous part."},
    {D("{'key':'a','op':'array','data':[1,'x']}"),
     "node \"a\" (array): \"data\" must hold only numbers and booleans, not strings"},
    {D("{'key':'a','op':'array','data':[null]}"),
     "node \"a\" (array): \"data\" must hold only numbers and booleans, not null"},
    {D("{'key':'a','op':'array','data':{}}"),
     "node \"a\" (array): \"data\" must hold only numbers and booleans, not objects"},
    {D("{'key':'a','op':'array','data':[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]]]]]"
       "]]]]]]]}"),
     "node \"a\" (array): setting an array element with a sequence. The requested array would "
     "exceed the maximum number of dimension of 32."},
    {D("{'key':'a','op':'array','data':[1e300],'dtype':'int64'}"),
     "node \"a\" (array): \"data\" holds 1e+300, too large to convert to int64"},
    /* random */
    {D("{'key':'a','op':'random.rand','seed':-1}"),
     "node \"a\" (random.rand): \"seed\" must be a non-negative integer"},
    {D("{'key':'a','op':'random.rand','seed':1.5}"),
     "node \"a\" (random.rand): \"seed\" must be an integer"},
    {D("{'key':'a','op':'random.randint','high':3}"),
     "node \"a\" (random.randint): \"low\" is missing"},
    {D("{'key':'a','op':'random.randint','low':5,'high':3}"),
     "node \"a\" (random.randint): low >= high"},
    {D("{'key':'a','op':'random.randint','low':3,'high':3}"),
     "node \"a\" (random.randint): low >= high"},
    {D("{'key':'a','op':'random.randint','low':0}"), "node \"a\" (random.randint): high <= 0"},
    {D("{'key':'a','op':'random.randint','low':1.5}"),
     "node \"a\" (random.randint): \"low\" must be an integer"},
    {D("{'key':'a','op':'random.randint','low':2,'dtype':'float64'}"),
     "node \"a\" (random.randint): Unsupported dtype dtype('float64') for randint"},
    {D("{'key':'a','op':'random.randint','low':0,'high':2147483649,'dtype':'int32'}"),
     "node \"a\" (random.randint): high is out of bounds for int32"},
    {D("{'key':'a','op':'random.randint','low':-2147483649,'high':0,'dtype':'int32'}"),
     "node \"a\" (random.randint): low is out of bounds for int32"},
    {D("{'key':'a','op':'random.normal','scale':-1}"), "node \"a\" (random.normal): scale < 0"},
    {D("{'key':'a','op':'random.uniform','low':-1e308,'high':1e308}"),
     "node \"a\" (random.uniform): Range exceeds valid bounds"},
    {D("{'key':'a','op':'random.rand','dtype':'float32'}"),
     "node \"a\" (random.rand): unknown field \"dtype\""},
    /* element-wise parameters */
    {D(ONES23 ",{'key':'c','op':'clip','inputs':['a']}"),
     "node \"c\" (clip): One of max or min must be given"},
    {D(ONES23 ",{'key':'c','op':'clip','inputs':['a'],'a_min':null,'a_max':null}"),
     "node \"c\" (clip): One of max or min must be given"},
    {D(ONES23 ",{'key':'c','op':'clip','inputs':['a'],'a_min':'0'}"),
     "node \"c\" (clip): \"a_min\" must be a number or a boolean or null"},
    {D(ONES23 ",{'key':'c','op':'astype','inputs':['a']}"),
     "node \"c\" (astype): \"dtype\" is missing"},
    /* shape-dependent parameters: JSON types */
    {D(ONES23 ",{'key':'c','op':'sum','inputs':['a'],'axis':1.0}"),
     "node \"c\" (sum): \"axis\" must be null, an integer or a list of integers"},
    {D(ONES23 ",{'key':'c','op':'sum','inputs':['a'],'axis':[0,true]}"),
     "node \"c\" (sum): \"axis\" must be null, an integer or a list of integers"},
    {D(ONES23 ",{'key':'c','op':'argmin','inputs':['a'],'axis':[0]}"),
     "node \"c\" (argmin): \"axis\" must be null or an integer"},
    {D(ONES23 ",{'key':'c','op':'stack','inputs':['a'],'axis':null}"),
     "node \"c\" (stack): \"axis\" must be an integer"},
    {D(ONES23 ",{'key':'c','op':'expand_dims','inputs':['a']}"),
     "node \"c\" (expand_dims): \"axis\" is missing"},
    {D(ONES23 ",{'key':'c','op':'expand_dims','inputs':['a'],'axis':null}"),
     "node \"c\" (expand_dims): \"axis\" must be an integer or a list of integers"},
    {D(ONES23 ",{'key':'c','op':'sum','inputs':['a'],'keepdims':1}"),
     "node \"c\" (sum): \"keepdims\" must be true or false"},
    {D(ONES23 ",{'key':'c','op':'std','inputs':['a'],'ddof':0.5}"),
     "node \"c\" (std): \"ddof\" must be an integer"},
    {D(ONES23 ",{'key':'c','op':'tensordot','inputs':['a','a'],'axes':[[0]]}"),
     "node \"c\" (tensordot): \"axes\" must be an integer or a pair of lists of integers"},
    {D(ONES23 ",{'key':'c','op':'tensordot','inputs':['a','a'],'axes':'2'}"),
     "node \"c\" (tensordot): \"axes\" must be an integer or a pair of lists of integers"},
    {D(ONES23 ",{'key':'c','op':'transpose','inputs':['a'],'axes':1}"),
     "node \"c\" (transpose): \"axes\" must be null or a list of integers"},
    {D(ONES23 ",{'key':'c','op':'reshape','inputs':['a']}"),
     "node \"c\" (reshape): \"newshape\" is missing"},
    {D(ONES23 ",{'key':'c','op':'reshape','inputs':['a'],'newshape':[6.0]}"),
     "node \"c\" (reshape): \"newshape\" must be an integer or a list of integers"},
    {D(ONES23 ",{'key':'c','op':'getitem','inputs':['a']}"),
     "node \"c\" (getitem): \"index\" is missing"},
    {D(ONES23 ",{'key':'c','op':'getitem','inputs':['a'],'index':1}"),
     "node \"c\" (getitem): \"index\" must be a list of integers and slice strings"},
    {D(ONES23 ",{'key':'c','op':'getitem','inputs':['a'],'index':['1:2:3:4']}"),
     "node \"c\" (getitem): index[0]: \"1:2:3:4\" is not a slice \"start:stop:step\""},
    {D(ONES23 ",{'key':'c','op':'getitem','inputs':['a'],'index':[0,'3']}"),
     "node \"c\" (getitem): index[1]: \"3\" is not a slice \"start:stop:step\""},
    {D(ONES23 ",{'key':'c','op':'getitem','inputs':['a'],'index':['a:b']}"),
     "node \"c\" (getitem): index[0]: \"a:b\" is not a slice \"start:stop:step\""},
    {D(ONES23 ",{'key':'c','op':'getitem','inputs':['a'],'index':['::0']}"),
     "node \"c\" (getitem): slice step cannot be zero"},
    {D(ONES23 ",{'key':'c','op':'getitem','inputs':['a'],'index':[true]}"),
     "node \"c\" (getitem): index[0] must be an integer, a slice string \"start:stop:step\", "
     "\"...\" or null (newaxis)"},
};

#define A(shape, dt) "{'key':'a','op':'ones','shape':" shape ",'dtype':'" dt "'}"
#define BB(shape, dt) "{'key':'b','op':'ones','shape':" shape ",'dtype':'" dt "'}"

static const err_case_t infer_errors[] = {
    /* the contract's example */
    {D(A("[3,4]", "float64") "," BB("[5,3]",
                                    "float64") ",{'key':'c','op':'inner','inputs':['a','b']}"),
     "node \"c\" (inner): shapes (3, 4) and (5, 3) are not aligned on their last axes"},
    {D(A("[3,4]", "float64") "," BB("[5,3]",
                                    "float64") ",{'key':'c','op':'dot','inputs':['a','b']}"),
     "node \"c\" (dot): shapes (3, 4) and (5, 3) not aligned: 4 (dim 1) != 5 (dim 0)"},
    {D(A("[3]", "float64") "," BB("[4]", "float64") ",{'key':'c','op':'dot','inputs':['a','b']}"),
     "node \"c\" (dot): shapes (3,) and (4,) not aligned: 3 (dim 0) != 4 (dim 0)"},
    {D(A("[]", "float64") "," BB("[3]", "float64") ",{'key':'c','op':'matmul','inputs':['a','b']}"),
     "node \"c\" (matmul): matmul: Input operand 0 does not have enough dimensions (has 0, gufunc "
     "core "
     "with signature (n?,k),(k,m?)->(n?,m?) requires 1)"},
    {D(A("[3,4]", "float64") "," BB("[5,3]",
                                    "float64") ",{'key':'c','op':'matmul','inputs':['a','b']}"),
     "node \"c\" (matmul): matmul: Input operand 1 has a mismatch in its core dimension 0, with "
     "gufunc "
     "signature (n?,k),(k,m?)->(n?,m?) (size 5 is different from 4)"},
    {D(A("[2,3,4]", "float64") "," BB("[3,4,5]",
                                      "float64") ",{'key':'c','op':'matmul','inputs':['a','b']}"),
     "node \"c\" (matmul): matmul: the batch dimensions of shapes (2, 3, 4) and (3, 4, 5) could "
     "not be "
     "broadcast together"},
    {D(A("[2,3]", "float64") "," BB("[3,4]",
                                    "float64") ",{'key':'c','op':'tensordot','inputs':['a','b']}"),
     "node \"c\" (tensordot): shape-mismatch for sum"},
    {D(A("[2,3]", "float64") "," BB(
         "[3,4]", "float64") ",{'key':'c','op':'tensordot','inputs':['a','b'],'axes':3}"),
     "node \"c\" (tensordot): axes 3: the operands have only 2 and 2 dimensions"},
    {D(A("[2,3]", "float64") "," BB(
         "[3,4]", "float64") ",{'key':'c','op':'tensordot','inputs':['a','b'],'axes':[[1],[0,1]]}"),
     "node \"c\" (tensordot): shape-mismatch for sum"},
    {D(A("[2,3]", "float64") "," BB(
         "[3,4]", "float64") ",{'key':'c','op':'tensordot','inputs':['a','b'],'axes':[[5],[0]]}"),
     "node \"c\" (tensordot): axis 5 is out of bounds for array of dimension 2"},
    {D(A("[3,3]", "float64") "," BB(
         "[3,3]",
         "float64") ",{'key':'c','op':'tensordot','inputs':['a','b'],'axes':[[0,0],[0,1]]}"),
     "node \"c\" (tensordot): repeated axis in \"axes\""},
    {D(A("[1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1]",
         "float64") "," BB("[1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1]",
                           "float64") ",{'key':'c','op':'dot','inputs':['a','b']}"),
     "node \"c\" (dot): maximum supported dimension for an ndarray is 32, found 33"},
    /* reductions */
    {D(ONES23 ",{'key':'c','op':'sum','inputs':['a'],'axis':2}"),
     "node \"c\" (sum): axis 2 is out of bounds for array of dimension 2"},
    {D(ONES23 ",{'key':'c','op':'sum','inputs':['a'],'axis':-3}"),
     "node \"c\" (sum): axis -3 is out of bounds for array of dimension 2"},
    {D(ONES23 ",{'key':'c','op':'prod','inputs':['a'],'axis':[0,-2]}"),
     "node \"c\" (prod): duplicate value in 'axis'"},
    {D(ONES23 ",{'key':'c','op':'sum','inputs':['a'],'axis':[0,0,5]}"),
     "node \"c\" (sum): axis 5 is out of bounds for array of dimension 2"},
    {D(A("[]", "float64") ",{'key':'c','op':'mean','inputs':['a'],'axis':0}"),
     "node \"c\" (mean): axis 0 is out of bounds for array of dimension 0"},
    {D(A("[]", "float64") ",{'key':'c','op':'sum','inputs':['a'],'axis':1}"),
     "node \"c\" (sum): axis 1 is out of bounds for array of dimension 0"},
    {D(A("[0,3]", "float64") ",{'key':'c','op':'min','inputs':['a'],'axis':0}"),
     "node \"c\" (min): zero-size array to reduction operation minimum which has no identity"},
    {D(A("[0,0]", "int32") ",{'key':'c','op':'max','inputs':['a'],'axis':0,'keepdims':true}"),
     "node \"c\" (max): zero-size array to reduction operation maximum which has no identity"},
    {D(A("[3,0]", "float64") ",{'key':'c','op':'argmin','inputs':['a'],'axis':1}"),
     "node \"c\" (argmin): attempt to get argmin of an empty sequence"},
    {D(A("[0]", "float64") ",{'key':'c','op':'argmax','inputs':['a']}"),
     "node \"c\" (argmax): attempt to get argmax of an empty sequence"},
    {D(A("[]", "float64") ",{'key':'c','op':'argmax','inputs':['a'],'axis':1}"),
     "node \"c\" (argmax): axis 1 is out of bounds for array of dimension 1"},
    {D(ONES23 ",{'key':'c','op':'cumsum','inputs':['a'],'axis':2}"),
     "node \"c\" (cumsum): axis 2 is out of bounds for array of dimension 2"},
    /* shape ops */
    {D(ONES23 ",{'key':'c','op':'transpose','inputs':['a'],'axes':[0]}"),
     "node \"c\" (transpose): axes don't match array"},
    {D(ONES23 ",{'key':'c','op':'transpose','inputs':['a'],'axes':[0,-2]}"),
     "node \"c\" (transpose): repeated axis in transpose"},
    {D(ONES23 ",{'key':'c','op':'transpose','inputs':['a'],'axes':[0,2]}"),
     "node \"c\" (transpose): axis 2 is out of bounds for array of dimension 2"},
    {D(ONES23 ",{'key':'c','op':'reshape','inputs':['a'],'newshape':4}"),
     "node \"c\" (reshape): cannot reshape array of size 6 into shape (4,)"},
    {D(ONES23 ",{'key':'c','op':'reshape','inputs':['a'],'newshape':[-1,4]}"),
     "node \"c\" (reshape): cannot reshape array of size 6 into shape (-1, 4)"},
    {D(ONES23 ",{'key':'c','op':'reshape','inputs':['a'],'newshape':[-1,-1]}"),
     "node \"c\" (reshape): can only specify one unknown dimension"},
    {D(A("[0]", "float64") ",{'key':'c','op':'reshape','inputs':['a'],'newshape':[-1,0]}"),
     "node \"c\" (reshape): cannot reshape array of size 0 into shape (-1, 0)"},
    {D(ONES23 ",{'key':'c','op':'reshape','inputs':['a'],'newshape':[4611686018427387904,4]}"),
     "node \"c\" (reshape): cannot reshape array of size 6 into shape (4611686018427387904, 4)"},
    {D(ONES23 ",{'key':'c','op':'squeeze','inputs':['a'],'axis':1}"),
     "node \"c\" (squeeze): cannot select an axis to squeeze out which has size not equal to one"},
    {D(A("[1,1]", "float64") ",{'key':'c','op':'squeeze','inputs':['a'],'axis':[0,-2]}"),
     "node \"c\" (squeeze): duplicate value in 'axis'"},
    {D(ONES23 ",{'key':'c','op':'expand_dims','inputs':['a'],'axis':[0,0]}"),
     "node \"c\" (expand_dims): repeated axis"},
    {D(ONES23 ",{'key':'c','op':'expand_dims','inputs':['a'],'axis':3}"),
     "node \"c\" (expand_dims): axis 3 is out of bounds for array of dimension 3"},
    {D(ONES23 ",{'key':'c','op':'expand_dims','inputs':['a'],'axis':[0,0,5]}"),
     "node \"c\" (expand_dims): axis 5 is out of bounds for array of dimension 5"},
    {D(A("[2,3]", "float64") "," BB(
         "[2,4]", "float64") ",{'key':'c','op':'concatenate','inputs':['a','b']}"),
     "node \"c\" (concatenate): all the input array dimensions except for the concatenation axis "
     "must "
     "match exactly, but along dimension 1, the array at index 0 has size 3 and the array at index "
     "1 has size 4"},
    {D(A("[2,3]",
         "float64") "," BB("[3]", "float64") ",{'key':'c','op':'concatenate','inputs':['a','b']}"),
     "node \"c\" (concatenate): all the input arrays must have same number of dimensions, but the "
     "array "
     "at index 0 has 2 dimension(s) and the array at index 1 has 1 dimension(s)"},
    {D(A("[]", "float64") ",{'key':'c','op':'concatenate','inputs':['a','a']}"),
     "node \"c\" (concatenate): zero-dimensional arrays cannot be concatenated"},
    {D(ONES23 ",{'key':'c','op':'concatenate','inputs':['a'],'axis':2}"),
     "node \"c\" (concatenate): axis 2 is out of bounds for array of dimension 2"},
    {D(A("[2,3]", "float64") "," BB("[2,4]",
                                    "float64") ",{'key':'c','op':'stack','inputs':['a','b']}"),
     "node \"c\" (stack): all input arrays must have the same shape"},
    {D(ONES23 ",{'key':'c','op':'stack','inputs':['a'],'axis':3}"),
     "node \"c\" (stack): axis 3 is out of bounds for array of dimension 3"},
    {D(ONES23 ",{'key':'c','op':'getitem','inputs':['a'],'index':[0,0,0]}"),
     "node \"c\" (getitem): too many indices for array: array is 2-dimensional, but 3 were "
     "indexed"},
    {D(A("[5]", "float64") ",{'key':'c','op':'getitem','inputs':['a'],'index':[5]}"),
     "node \"c\" (getitem): index 5 is out of bounds for axis 0 with size 5"},
    {D(A("[5]", "float64") ",{'key':'c','op':'getitem','inputs':['a'],'index':[-6]}"),
     "node \"c\" (getitem): index -6 is out of bounds for axis 0 with size 5"},
    {D(A("[5,0]", "float64") ",{'key':'c','op':'getitem','inputs':['a'],'index':[':',0]}"),
     "node \"c\" (getitem): index 0 is out of bounds for axis 1 with size 0"},
    /* sizes */
    {D("{'key':'a','op':'ones','shape':[1099511627776,1099511627776]}"),
     "node \"a\" (ones): shape (1099511627776, 1099511627776) has more elements than an int64 can "
     "count"},
    {D("{'key':'a','op':'zeros','shape':[2147483648,2147483648]}"),
     "node \"a\" (zeros): shape (2147483648, 2147483648) has 4611686018427387904 elements, more "
     "than the "
     "limit of 4398046511104"},
    {D("{'key':'a','op':'eye','N':3000000,'M':3000000}"),
     "node \"a\" (eye): shape (3000000, 3000000) has 9000000000000 elements, more than the limit "
     "of "
     "4398046511104"},
    {D(A("[2097152]", "float64") "," BB("[4194304]",
                                        "float64") ",{'key':'c','op':'outer','inputs':['a','b']}"),
     "node \"c\" (outer): shape (2097152, 4194304) has 8796093022208 elements, more than the limit "
     "of "
     "4398046511104"},
    {D("{'key':'a','op':'arange','stop':8796093022208}"),
     "node \"a\" (arange): shape (8796093022208,) has 8796093022208 elements, more than the limit "
     "of "
     "4398046511104"},
};

static void run_err_table(const err_case_t *t, size_t n)
{
    for (size_t i = 0; i < n; i++)
        err_sq(t[i].doc, t[i].msg);
}

static void test_document_errors(void **state)
{
    (void)state;
    run_err_table(document_errors, sizeof document_errors / sizeof document_errors[0]);
}

static void test_node_errors(void **state)
{
    (void)state;
    run_err_table(node_errors, sizeof node_errors / sizeof node_errors[0]);
}

static void test_infer_errors(void **state)
{
    (void)state;
    run_err_table(infer_errors, sizeof infer_errors / sizeof infer_errors[0]);
}

static void test_invalid_json(void **state)
{
    (void)state;
    const char *bad[] = {
        "{",
        "{\"version\":1,\"version\":1,\"nodes\":[]}", /* duplicate field */
        "{\"version\":1,\"nodes\":[{\"key\":\"a\",\"key\":\"b\",\"op\":\"ones\"}]}",
        "{\"version\":1,\"nodes\":[{\"key\":\"a\",\"op\":\"ones\",\"shape\":[99999999999999999999]}"
        "]}",
        "5",
        "",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        graph_t *g = NULL;
        char err[512];
        assert_int_equal(graph_parse(bad[i], strlen(bad[i]), NULL, NULL, &g, err, sizeof err), -1);
        assert_null(g);
        if (strncmp(err, "document: invalid JSON at line ", 31) != 0)
            fail_msg("%s -> %s", bad[i], err);
        assert_null(strchr(err, '\n'));
    }
    graph_t *g = NULL;
    char err[512];
    assert_int_equal(graph_parse(bad[1], strlen(bad[1]), NULL, NULL, &g, err, sizeof err), -1);
    assert_non_null(strstr(err, "duplicate object key"));
    /* bytes after the document, and a NUL inside it */
    const char nul[] = "{\"version\":1,\"nodes\":[{\"key\":\"a\",\"op\":\"ones\",\"shape\":1}]}\0x";
    assert_int_equal(graph_parse(nul, sizeof nul - 1, NULL, NULL, &g, err, sizeof err), -1);
    assert_int_equal(graph_parse(nul, sizeof nul - 3, NULL, NULL, &g, err, sizeof err), 0);
    graph_free(g);
}

static void test_message_escaping(void **state)
{
    (void)state;
    /* Strings from the document are escaped and cut; the message stays one line. */
    err_doc("{\"version\":1,\"nodes\":[{\"key\":\"a\\\"b\\n\\u00e9\",\"op\":\"ones\"}]}",
            "nodes[0]: key \"a\\\"b\\x0a\\xc3\\xa9\" must be 1-128 characters of [A-Za-z0-9_.-]");
    char key[200], json[400], want[300];
    memset(key, 'k', 129);
    key[129] = '\0';
    snprintf(json, sizeof json, "{\"version\":1,\"nodes\":[{\"key\":\"%s\",\"op\":\"ones\"}]}",
             key);
    snprintf(want, sizeof want,
             "nodes[0]: key \"%.48s...\" must be 1-128 characters of [A-Za-z0-9_.-]", key);
    err_doc(json, want);
    /* 128 characters are a valid key */
    key[128] = '\0';
    snprintf(json, sizeof json,
             "{\"version\":1,\"nodes\":[{\"key\":\"%s\",\"op\":\"ones\",\"shape\":1}]}", key);
    graph_t *g = ok_doc(json);
    assert_int_equal(graph_find(g, key), 0);
    graph_free(g);
    err_doc("{\"version\":1,\"nodes\":[{\"key\":\"a\",\"op\":\"ones\",\"x\\ty\":1}]}",
            "node \"a\" (ones): unknown field \"x\\x09y\"");
    err_doc("{\"version\":1,\"nodes\":[{\"key\":\"a\",\"op\":\"ones\\n\"}]}",
            "node \"a\": unknown op \"ones\\x0a\"");
}

static void test_err_buffer(void **state)
{
    (void)state;
    const char *d = "{\"version\":2}";
    graph_t *g = NULL;
    char small[8];
    assert_int_equal(graph_parse(d, strlen(d), NULL, NULL, &g, small, sizeof small), -1);
    assert_string_equal(small, "documen");
    assert_int_equal(graph_parse(d, strlen(d), NULL, NULL, &g, NULL, 0), -1);
    char one[1] = {'x'};
    assert_int_equal(graph_parse(d, strlen(d), NULL, NULL, &g, one, 1), -1);
    assert_int_equal(one[0], '\0');
}

/* ---------------------------------------------------------------------------
 * Limits */

static void test_limits_default(void **state)
{
    (void)state;
    graph_limits_t lim;
    graph_limits_default(&lim);
    assert_int_equal(lim.max_document_bytes, 64LL << 20);
    assert_int_equal(lim.max_nodes, 100000);
    assert_int_equal(lim.max_elements, 1LL << 42);
    assert_int_equal(lim.max_bytes, 1LL << 45);
    assert_int_equal(lim.max_chunks, 4000000);
    assert_int_equal(lim.max_total_chunks, 8000000);
    assert_int_equal(lim.max_array_elements, 10000000);
}

static void test_limits_configured(void **state)
{
    (void)state;
    graph_limits_t lim;
    graph_limits_default(&lim);
    char *d = doc_of("{'key':'a','op':'ones','shape':[200]},{'key':'b','op':'ones','shape':[10],'"
                     "dtype':'int32'}");
    size_t len = strlen(d);

    lim.max_document_bytes = (int64_t)len - 1;
    char want[256];
    snprintf(want, sizeof want, "document: %zu bytes, more than the limit of %zu", len, len - 1);
    err_doc_lim(d, &lim, want);
    lim.max_document_bytes = (int64_t)len; /* exactly at the limit: accepted */
    graph_t *g = NULL;
    char err[512];
    assert_int_equal(parse_lim(d, &lim, NULL, &g, err, sizeof err), 0);
    graph_free(g);

    graph_limits_default(&lim);
    lim.max_nodes = 1;
    err_doc_lim(d, &lim, "document: 2 nodes, more than the limit of 1");

    graph_limits_default(&lim);
    lim.max_elements = 100;
    err_doc_lim(d, &lim,
                "node \"a\" (ones): shape (200,) has 200 elements, more than the limit of 100");
    lim.max_elements = 200;
    lim.max_bytes = 1000;
    err_doc_lim(
        d, &lim,
        "node \"a\" (ones): shape (200,) of float64 needs 1600 bytes, more than the limit of 1000");
    lim.max_bytes = 1600;
    assert_int_equal(parse_lim(d, &lim, NULL, &g, err, sizeof err), 0);
    graph_free(g);
    free(d);

    graph_limits_default(&lim);
    lim.max_array_elements = 5;
    d = doc_of("{'key':'a','op':'array','data':[[1,2,3],[4,5,6]]}");
    err_doc_lim(d, &lim, "node \"a\" (array): \"data\" has 6 values, more than the limit of 5");
    lim.max_array_elements = 6;
    assert_int_equal(parse_lim(d, &lim, NULL, &g, err, sizeof err), 0);
    graph_free(g);
    free(d);

    /* limits checked on every node, computed ones included */
    graph_limits_default(&lim);
    lim.max_elements = 1000;
    d = doc_of("{'key':'a','op':'ones','shape':[40]},{'key':'c','op':'outer','inputs':['a','a']}");
    err_doc_lim(
        d, &lim,
        "node \"c\" (outer): shape (40, 40) has 1600 elements, more than the limit of 1000");
    free(d);
    /* bytes overflow int64 with limits switched off */
    lim.max_elements = INT64_MAX;
    lim.max_bytes = INT64_MAX;
    d = doc_of("{'key':'a','op':'ones','shape':[4611686018427387904]}");
    err_doc_lim(d, &lim,
                "node \"a\" (ones): shape (4611686018427387904,) of float64 needs more bytes than "
                "an int64 can count");
    free(d);
}

/* ---------------------------------------------------------------------------
 * Session tensors */

typedef struct {
    int calls;
} sess_ctx_t;

static int lookup(void *ctx, const char *key, shape_t *shape, dtype_t *dtype,
                  int64_t chunk[MR_MAXDIM])
{
    sess_ctx_t *s = ctx;
    s->calls++;
    if (strcmp(key, "s") == 0) {
        shape->ndim = 2;
        shape->d[0] = 10;
        shape->d[1] = 20;
        *dtype = DT_FLOAT32;
        chunk[0] = 5;
        chunk[1] = 20;
        return 0;
    }
    if (strcmp(key, "bad") == 0) {
        shape->ndim = 1;
        shape->d[0] = 3;
        *dtype = DT_INT64;
        chunk[0] = 0;
        return 0;
    }
    return -1;
}

static void test_session(void **state)
{
    (void)state;
    sess_ctx_t ctx = {0};
    graph_session_t sess = {.ctx = &ctx, .lookup = lookup};
    graph_limits_t lim;
    graph_limits_default(&lim);
    graph_t *g = NULL;
    char err[512];
    char *d = dq("{'version':1,'nodes':[{'key':'c','op':'add','inputs':['s','s']},"
                 "{'key':'e','op':'sum','inputs':['s'],'axis':0}],'fetch':['e','s']}");
    assert_int_equal(parse_lim(d, &lim, &sess, &g, err, sizeof err), 0);
    free(d);
    assert_int_equal(ctx.calls, 1); /* one lookup, then the node is reused */
    assert_int_equal(g->n_nodes, 3);
    const graph_node_t *s = &g->nodes[0]; /* session tensors come first */
    assert_string_equal(s->key, "s");
    assert_int_equal(s->op, OP_SESSION_TENSOR);
    assert_int_equal(s->odtype, DT_FLOAT32);
    shape_is(s, "(10, 20)");
    assert_int_equal(s->n_chunk, 2);
    assert_int_equal(s->chunk[0], 5);
    assert_int_equal(s->n_consumers, 2);
    assert_true(s->fetch);
    shape_is(node(g, "e"), "(20,)");
    assert_int_equal(node(g, "e")->odtype, DT_FLOAT32);
    assert_int_equal(g->n_fetch, 2);
    assert_int_equal(g->fetch[1], 0);
    graph_free(g);

    /* a key of the document shadows the session's tensor */
    ctx.calls = 0;
    d = dq("{'version':1,'nodes':[{'key':'c','op':'abs','inputs':['s']},{'key':'s','op':'ones','"
           "shape':[3]}]}");
    assert_int_equal(parse_lim(d, &lim, &sess, &g, err, sizeof err), 0);
    free(d);
    assert_int_equal(ctx.calls, 0);
    assert_int_equal(g->n_nodes, 2);
    shape_is(node(g, "c"), "(3,)");
    graph_free(g);

    d = dq("{'version':1,'nodes':[{'key':'c','op':'abs','inputs':['zz']}]}");
    assert_int_equal(parse_lim(d, &lim, &sess, &g, err, sizeof err), -1);
    assert_string_equal(err, "node \"c\" (abs): input \"zz\" is not a node of this document nor a "
                             "tensor of the session");
    free(d);
    d = dq("{'version':1,'nodes':[{'key':'c','op':'abs','inputs':['bad']}]}");
    assert_int_equal(parse_lim(d, &lim, &sess, &g, err, sizeof err), -1);
    assert_string_equal(
        err, "document: the session's tensor \"bad\" has an invalid shape, dtype or chunking");
    free(d);
    /* max_nodes counts the session's tensors too */
    lim.max_nodes = 1;
    d = dq("{'version':1,'nodes':[{'key':'c','op':'abs','inputs':['s']}]}");
    assert_int_equal(parse_lim(d, &lim, &sess, &g, err, sizeof err), -1);
    assert_string_equal(err, "document: more than 1 nodes with the session's tensors");
    free(d);
}

/* Many session tensors: the node array grows while inputs are resolved. */
static int lookup_any(void *ctx, const char *key, shape_t *shape, dtype_t *dtype,
                      int64_t chunk[MR_MAXDIM])
{
    (void)ctx;
    if (key[0] != 'x') return -1;
    shape->ndim = 1;
    shape->d[0] = 4;
    *dtype = DT_INT32;
    chunk[0] = 2;
    return 0;
}

static void test_session_many(void **state)
{
    (void)state;
    graph_session_t sess = {.ctx = NULL, .lookup = lookup_any};
    char buf[8192];
    size_t o = (size_t)snprintf(buf, sizeof buf, "{\"version\":1,\"nodes\":[");
    for (int i = 0; i < 50; i++)
        o += (size_t)snprintf(buf + o, sizeof buf - o,
                              "%s{\"key\":\"n%d\",\"op\":\"add\",\"inputs\":[\"x%d\",\"x%d\"]}",
                              i ? "," : "", i, i, i + 1);
    snprintf(buf + o, sizeof buf - o, "],\"fetch\":[\"n49\"]}");
    graph_t *g = NULL;
    char err[512];
    if (graph_parse(buf, strlen(buf), NULL, &sess, &g, err, sizeof err) != 0) fail_msg("%s", err);
    assert_int_equal(g->n_nodes, 101);
    for (int i = 0; i < 51; i++)
        assert_int_equal(g->nodes[i].op, OP_SESSION_TENSOR);
    for (int i = 51; i < 101; i++) {
        assert_int_equal(g->nodes[i].op, OP_ADD);
        assert_true(g->nodes[i].in[0].node < i && g->nodes[i].in[1].node < i);
        assert_int_equal(g->nodes[i].odtype, DT_INT32);
    }
    assert_int_equal(g->fetch[0], 100);
    graph_free(g);
}

/* ---------------------------------------------------------------------------
 * Scale: a long chain in reverse order sorts in linear-ish time */

static void test_long_chain_reversed(void **state)
{
    (void)state;
    enum { N = 20000 };
    size_t cap = (size_t)N * 64 + 128, o = 0;
    char *buf = malloc(cap);
    assert_non_null(buf);
    o += (size_t)snprintf(buf + o, cap - o, "{\"version\":1,\"nodes\":[");
    for (int i = N - 1; i >= 1; i--)
        o += (size_t)snprintf(buf + o, cap - o,
                              "{\"key\":\"n%d\",\"op\":\"abs\",\"inputs\":[\"n%d\"]},", i, i - 1);
    o += (size_t)snprintf(buf + o, cap - o,
                          "{\"key\":\"n0\",\"op\":\"ones\",\"shape\":[2]}],\"fetch\":[\"n%d\"]}",
                          N - 1);
    graph_t *g = NULL;
    char err[512];
    if (graph_parse(buf, o, NULL, NULL, &g, err, sizeof err) != 0) fail_msg("%s", err);
    for (int i = 0; i < N; i++) {
        char k[16];
        snprintf(k, sizeof k, "n%d", i);
        assert_string_equal(g->nodes[i].key, k);
    }
    assert_int_equal(g->fetch[0], N - 1);
    graph_free(g);
    free(buf);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_limits_default),     cmocka_unit_test(test_seed_example),
        cmocka_unit_test(test_infer_table),        cmocka_unit_test(test_topo_reorders),
        cmocka_unit_test(test_topo_stable),        cmocka_unit_test(test_cycles),
        cmocka_unit_test(test_consumers_distinct), cmocka_unit_test(test_promotion_zero_d),
        cmocka_unit_test(test_ew_dtype_errors),    cmocka_unit_test(test_axes_normalised),
        cmocka_unit_test(test_linalg_contraction), cmocka_unit_test(test_getitem_index),
        cmocka_unit_test(test_array_data),         cmocka_unit_test(test_creation_params),
        cmocka_unit_test(test_random_params),      cmocka_unit_test(test_chunk_size),
        cmocka_unit_test(test_document_errors),    cmocka_unit_test(test_node_errors),
        cmocka_unit_test(test_infer_errors),       cmocka_unit_test(test_invalid_json),
        cmocka_unit_test(test_message_escaping),   cmocka_unit_test(test_err_buffer),
        cmocka_unit_test(test_limits_configured),  cmocka_unit_test(test_session),
        cmocka_unit_test(test_session_many),       cmocka_unit_test(test_long_chain_reversed),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
