/* Unit tests of engine/graph_list.c: the op list of `mars-run --list-ops`
 * and GET /api/v1/ops names every op of the table once, in order, and its
 * parameter names are exactly the fields graph_parse accepts for that op
 * (checked against every name any op lists), so the list cannot drift from
 * the parser. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graph.h"

static json_t *ops_list(void)
{
    char *text = graph_ops_json();
    assert_non_null(text);
    json_error_t e;
    json_t *doc = json_loads(text, 0, &e);
    free(text);
    assert_non_null(doc);
    assert_int_equal(json_integer_value(json_object_get(doc, "version")), 1);
    json_t *ops = json_object_get(doc, "ops");
    assert_true(json_is_array(ops));
    json_incref(ops);
    json_decref(doc);
    return ops;
}

static void test_every_op_once_in_order(void **state)
{
    (void)state;
    json_t *ops = ops_list();
    size_t j = 0;
    for (int i = 0; i < OP_COUNT; i++) {
        if (op_kind((op_t)i) == OPK_SOURCE) continue;
        json_t *o = json_array_get(ops, j++);
        assert_non_null(o);
        assert_string_equal(json_string_value(json_object_get(o, "name")), op_name((op_t)i));
        const char *in = json_string_value(json_object_get(o, "inputs"));
        assert_non_null(in);
        assert_true(strcmp(in, "0") == 0 || strcmp(in, "1") == 0 || strcmp(in, "2") == 0 ||
                    strcmp(in, "3") == 0 || (strlen(in) == 2 && in[1] == '+'));
        assert_non_null(json_string_value(json_object_get(o, "kind")));
        assert_true(json_is_array(json_object_get(o, "params")));
    }
    assert_int_equal(j, json_array_size(ops));
    json_decref(ops);
}

/* Whether the list says op has several results ("outputs"). */
static json_t *listed_ops; /* kept for the run; freed by the group's teardown */
static bool has_outputs(const char *op)
{
    if (!listed_ops) listed_ops = ops_list();
    json_t *ops = listed_ops;
    size_t i;
    json_t *o;
    json_array_foreach(ops, i, o)
    {
        if (strcmp(json_string_value(json_object_get(o, "name")), op) == 0)
            return json_object_get(o, "outputs") != NULL;
    }
    return false;
}

/* Parses one node of `op` with field `f` (value null; none when NULL) and
 * `n_in` inputs (ones of shape [2, 2]); the message in err ("" when parsed).
 * An op with several results names one output ("outputs": ["o0"]). */
static void parse_one(const char *op, const char *f, int n_in, char *err, size_t errlen)
{
    json_t *nodes = json_array();
    json_t *x = json_pack("{s:s, s:s, s:[i,i]}", "key", "x", "op", "ones", "shape", 2, 2);
    json_array_append_new(nodes, x);
    json_t *n = json_pack("{s:s, s:s}", "key", "n", "op", op);
    if (f) json_object_set_new(n, f, json_null());
    if (has_outputs(op)) json_object_set_new(n, "outputs", json_pack("[s]", "o0"));
    if (n_in > 0) {
        json_t *in = json_array();
        for (int i = 0; i < n_in; i++)
            json_array_append_new(in, json_string("x"));
        json_object_set_new(n, "inputs", in);
    }
    json_array_append_new(nodes, n);
    json_t *doc = json_pack("{s:i, s:o, s:[]}", "version", 1, "nodes", nodes, "fetch");
    char *text = json_dumps(doc, JSON_COMPACT);
    json_decref(doc);
    assert_non_null(text);
    graph_limits_t lim;
    graph_limits_default(&lim);
    graph_t *g = NULL;
    err[0] = 0;
    if (graph_parse(text, strlen(text), &lim, NULL, &g, err, errlen) == 0) err[0] = 0;
    free(text);
    graph_free(g);
}

/* True when the parser calls field f of op unknown. */
static bool unknown_field(const char *op, const char *f, int n_in)
{
    char err[1024];
    parse_one(op, f, n_in, err, sizeof err);
    char want[256];
    snprintf(want, sizeof want, "unknown field \"%s\"", f);
    return strstr(err, want) != NULL;
}

static void test_params_match_the_parser(void **state)
{
    (void)state;
    json_t *ops = ops_list();
    json_t *all = json_object(); /* every parameter name any op lists */
    size_t i;
    json_t *o;
    json_array_foreach(ops, i, o)
    {
        size_t k;
        json_t *p;
        json_array_foreach(json_object_get(o, "params"), k, p)
            json_object_set_new(all, json_string_value(p), json_true());
    }
    json_object_set_new(all, "no_such_field", json_true());
    json_array_foreach(ops, i, o)
    {
        const char *name = json_string_value(json_object_get(o, "name"));
        int n_in = atoi(json_string_value(json_object_get(o, "inputs")));
        json_t *mine = json_object();
        size_t k;
        json_t *p;
        json_array_foreach(json_object_get(o, "params"), k, p)
            json_object_set_new(mine, json_string_value(p), json_true());
        const char *f;
        json_t *v;
        json_object_foreach(all, f, v)
        {
            bool listed = json_object_get(mine, f) != NULL;
            bool refused = unknown_field(name, f, n_in);
            if (listed == refused)
                fail_msg("op %s, field %s: listed %d but the parser %s it", name, f, listed,
                         refused ? "refuses" : "accepts");
        }
        json_decref(mine);
    }
    json_decref(all);
    json_decref(ops);
}

/* A message about the number of inputs (graph.c's parse_inputs). */
static bool count_error(const char *err)
{
    return strstr(err, " input, got ") || strstr(err, " inputs, got ") ||
           strstr(err, "need at least one");
}

/* The listed input count is one the parser takes ("N+": N and N + 1), and
 * one input fewer is refused for its count. */
static void test_inputs_match_the_parser(void **state)
{
    (void)state;
    json_t *ops = ops_list();
    size_t i;
    json_t *o;
    json_array_foreach(ops, i, o)
    {
        const char *name = json_string_value(json_object_get(o, "name"));
        const char *in = json_string_value(json_object_get(o, "inputs"));
        int n = atoi(in);
        char err[1024];
        for (int k = n; k <= n + (in[1] == '+'); k++) {
            parse_one(name, NULL, k, err, sizeof err);
            if (count_error(err))
                fail_msg("op %s with %d inputs (listed %s): %s", name, k, in, err);
        }
        if (n > 0) {
            parse_one(name, NULL, n - 1, err, sizeof err);
            if (!count_error(err))
                fail_msg("op %s with %d inputs (listed %s) is not refused for its count: %s", name,
                         n - 1, in, err);
        }
    }
    json_decref(ops);
}

static int teardown(void **state)
{
    (void)state;
    json_decref(listed_ops);
    return 0;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_op_once_in_order),
        cmocka_unit_test(test_params_match_the_parser),
        cmocka_unit_test(test_inputs_match_the_parser),
    };
    return cmocka_run_group_tests(tests, NULL, teardown);
}
