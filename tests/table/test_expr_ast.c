/* test_expr_ast.c — the expression language's one parser and its binder
 * (weir/expr_ast.h): a tree parsed from the middle of a statement stops
 * where the expression ends; trees compare and format as the expressions
 * they are; a tree binds in a scope of two inputs, names qualified or not,
 * with the ambiguity and the unknown qualifier refused at their place.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "table/table_testutil.h"
#include "table_internal.h"
#include "weir/expr_ast.h"

static weir_ast *parse_at(weir_ast_arena **arena, const char *text, size_t start, size_t *end)
{
    weir_ast *a = NULL;
    size_t at = 0;
    char err[256];
    int r = weir_ast_parse(arena, text, start, &a, end, &at, err, sizeof err);
    cr_assert_eq(r, 0, "%s: %s at %zu", text + start, err, at);
    return a;
}

Test(expr_ast, parses_from_the_middle_and_stops_where_the_expression_ends)
{
    static const struct { const char *text; size_t start; const char *rest; } cases[] = {
        {"SELECT a + 1 FROM t", 7, "FROM t"},
        {"SELECT COUNT(*) AS c, b FROM t", 7, "AS c, b FROM t"},
        {"WHERE x > 2 -- more\n GROUP BY x", 6, "GROUP BY x"},
        {"WHERE x /* why */ IN (1, 2) HAVING y", 6, "HAVING y"},
        {"f(a NOT IN (1), b)", 2, ", b)"},
        {"SELECT a b FROM t", 7, "b FROM t"},
        {"x = 1;", 0, ";"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        weir_ast_arena *arena = NULL;
        size_t end = 0;
        parse_at(&arena, cases[i].text, cases[i].start, &end);
        cr_expect_str_eq(cases[i].text + end, cases[i].rest, "%s", cases[i].text);
        weir_ast_arena_free(&arena);
    }
}

Test(expr_ast, errors_say_where)
{
    static const struct { const char *text; size_t at; const char *msg; } cases[] = {
        {"a + ", 4, "unexpected end of the expression"},
        {"CAST(a AS INT", 10, "expected ')' after the CAST's type"},
        {"a /* open", 2, "unterminated comment"},
        {"t.", 2, "expected a column name after 't.'"},
        /* a clause word is not a column: "SELECT amount + FROM t" */
        {"amount + FROM", 9, "expected an expression, found 'FROM'"},
        {"`from` + end", 9, "expected an expression, found 'end'"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        weir_ast_arena *arena = NULL;
        weir_ast *a = NULL;
        size_t at = 99;
        char err[256] = "";
        cr_expect_eq(weir_ast_parse(&arena, cases[i].text, 0, &a, NULL, &at, err, sizeof err),
                     WEIR_EINVAL, "%s", cases[i].text);
        cr_expect_eq(at, cases[i].at, "%s: at %zu", cases[i].text, at);
        cr_expect_str_eq(err, cases[i].msg, "%s", cases[i].text);
        weir_ast_arena_free(&arena);
    }
}

Test(expr_ast, trees_compare_and_format_as_their_expressions)
{
    weir_ast_arena *arena = NULL;
    size_t end;
    weir_ast *a = parse_at(&arena, "count(  amount  ) ", 0, &end);
    weir_ast *b = parse_at(&arena, "COUNT(amount)", 0, &end);
    weir_ast *c = parse_at(&arena, "COUNT(Amount)", 0, &end);
    weir_ast *d = parse_at(&arena, "COUNT(DISTINCT amount)", 0, &end);
    cr_expect(weir_ast_equal(a, b), "function names compare without case");
    cr_expect_not(weir_ast_equal(b, c), "column names compare with case");
    cr_expect_not(weir_ast_equal(b, d));
    cr_expect_not(weir_ast_equal(b, parse_at(&arena, "COUNT(amount) FILTER (WHERE x)", 0, &end)),
                  "a FILTER makes another aggregate");
    cr_expect(weir_ast_equal(parse_at(&arena, "INTERVAL '60' SECOND", 0, &end),
                             parse_at(&arena, "INTERVAL '1' MINUTE", 0, &end)));
    static const struct { const char *text, *formatted; } cases[] = {
        {"(a + b) * c", "(a + b) * c"},
        {"a + (b * c)", "a + b * c"},
        {"a - (b - c)", "a - (b - c)"},
        {"NOT (a AND b) OR c", "NOT (a AND b) OR c"},
        {"`my col` || 'it''s'", "`my col` || 'it''s'"},
        {"t.`end` IS NOT NULL", "t.`end` IS NOT NULL"},
        {"CASE WHEN x IN (1,2) THEN -y ELSE NULL END", "CASE WHEN x IN (1, 2) THEN -y ELSE NULL END"},
        {"CAST(x AS VARCHAR(3))", "CAST(x AS VARCHAR(3))"},
        {"COUNT(*)", "COUNT(*)"},
        /* an aggregate's FILTER (WHERE c); FILTER alone is a name */
        {"count(*) filter (where a > 1)", "count(*) FILTER (WHERE a > 1)"},
        {"SUM(DISTINCT x) FILTER(WHERE b OR c) + 1", "SUM(DISTINCT x) FILTER (WHERE b OR c) + 1"},
        {"LISTAGG(s, '; ')", "LISTAGG(s, '; ')"},
        {"filter + 1", "filter + 1"},
        {"INTERVAL '90' SECOND", "INTERVAL '90' SECOND"},
        {"$f1 > 3", "$f1 > 3"},
        /* SQL's own forms of calls: written back in them */
        {"substring(s from 2 for 3)", "substring(s FROM 2 FOR 3)"},
        {"SUBSTRING(s, 2)", "SUBSTRING(s, 2)"},
        {"TRIM(s)", "TRIM(BOTH ' ' FROM s)"},
        {"trim(leading 'x' from s)", "trim(LEADING 'x' FROM s)"},
        {"TRIM(TRAILING FROM s)", "TRIM(TRAILING ' ' FROM s)"},
        {"POSITION('a' IN s FROM 2)", "POSITION('a' IN s FROM 2)"},
        {"EXTRACT(hour FROM ts)", "EXTRACT(HOUR FROM ts)"},
        {"FLOOR(ts TO DAY)", "FLOOR(ts TO DAY)"},
        {"CEIL(x)", "CEIL(x)"},
        {"TIMESTAMPADD(HOUR, 2, ts)", "TIMESTAMPADD(HOUR, 2, ts)"},
        {"s NOT LIKE 'a%' ESCAPE '!'", "s NOT LIKE 'a%' ESCAPE '!'"},
        {"s SIMILAR TO 'a|b'", "s SIMILAR TO 'a|b'"},
        {"a NOT BETWEEN SYMMETRIC 1 AND b + 1", "a NOT BETWEEN SYMMETRIC 1 AND b + 1"},
        {"a BETWEEN ASYMMETRIC 1 AND 2 AND c", "a BETWEEN 1 AND 2 AND c"},
        {"f IS NOT TRUE", "f IS NOT TRUE"},
        {"a IS DISTINCT FROM b", "a IS DISTINCT FROM b"},
        {"a IS NOT DISTINCT FROM b", "a IS NOT DISTINCT FROM b"},
        {"CURRENT_TIMESTAMP", "CURRENT_TIMESTAMP"},
        {"JSON_VALUE(j, '$.a')",
         "JSON_VALUE(j, '$.a' RETURNING STRING NULL ON EMPTY NULL ON ERROR)"},
        {"JSON_VALUE(j, '$.a' RETURNING INT DEFAULT -1 ON EMPTY ERROR ON ERROR)",
         "JSON_VALUE(j, '$.a' RETURNING INT DEFAULT -1 ON EMPTY ERROR ON ERROR)"},
        {"JSON_VALUE(j, '$.a' DEFAULT 'x' ON ERROR)",
         "JSON_VALUE(j, '$.a' RETURNING STRING NULL ON EMPTY DEFAULT 'x' ON ERROR)"},
        {"JSON_QUERY(j, '$.a' WITH ARRAY WRAPPER EMPTY ARRAY ON EMPTY)",
         "JSON_QUERY(j, '$.a' WITH UNCONDITIONAL ARRAY WRAPPER EMPTY ARRAY ON EMPTY NULL ON "
         "ERROR)"},
        {"JSON_EXISTS(j, '$.a' TRUE ON ERROR)", "JSON_EXISTS(j, '$.a' TRUE ON ERROR)"},
        {"JSON_OBJECT('a' VALUE 1, KEY k VALUE JSON_ARRAY(x, NULL NULL ON NULL))",
         "JSON_OBJECT(KEY 'a' VALUE 1, KEY k VALUE JSON_ARRAY(x, NULL NULL ON NULL) NULL ON "
         "NULL)"},
        {"JSON_OBJECT(ABSENT ON NULL)", "JSON_OBJECT(ABSENT ON NULL)"},
        {"JSON_ARRAY()", "JSON_ARRAY(ABSENT ON NULL)"},
        {"s IS JSON", "s IS JSON VALUE"},
        {"s IS NOT JSON ARRAY", "s IS NOT JSON ARRAY"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        weir_ast *x = parse_at(&arena, cases[i].text, 0, &end);
        cr_assert(x, "%s", cases[i].text);
        char buf[256];
        int n = weir_ast_format(x, buf, sizeof buf);
        cr_expect_eq((size_t)n, strlen(buf));
        cr_expect_str_eq(buf, cases[i].formatted);
        /* what it prints parses back into the same tree */
        cr_expect(weir_ast_equal(x, parse_at(&arena, buf, 0, &end)), "%s", buf);
    }
    weir_ast_arena_free(&arena);
}

/* A join's row: o (id, amount) and c (id, name), c's id renamed id0 in the
 * row as Flink renames a clash. */
static weir_expr *bind_two(const char *text, size_t *at, char *err, size_t size, int *r)
{
    static weir_schema *row, *o, *c;
    if (!row) {
        row = tt_schema("j", "id BIGINT, amount INT, id0 BIGINT, name STRING", NULL);
        o = tt_schema("o", "id BIGINT, amount INT", NULL);
        c = tt_schema("c", "id BIGINT, name STRING", NULL);
    }
    weir_expr_scope scope = {.schema = row, .ninputs = 2};
    scope.inputs[0].qualifier = "o";
    scope.inputs[0].columns = o;
    scope.inputs[0].first = 0;
    scope.inputs[1].qualifier = "c";
    scope.inputs[1].columns = c;
    scope.inputs[1].first = 2;
    weir_ast_arena *arena = NULL;
    weir_ast *a = NULL;
    weir_expr *e = NULL;
    *r = weir_ast_parse(&arena, text, 0, &a, NULL, at, err, size);
    if (*r == 0)
        *r = weir_expr_bind(a, text, &scope, -1, NULL, &e, at, err, size);
    weir_ast_arena_free(&arena);
    return e;
}

Test(expr_ast, binds_in_a_scope_of_two_inputs)
{
    size_t at;
    char err[256];
    int r;
    unsigned char row[256];
    weir_schema *rs = tt_schema("j", "id BIGINT, amount INT, id0 BIGINT, name STRING", NULL);
    tt_row(rs, row, "+I 1|20|2|bob");
    weir_expr *e = bind_two("o.amount * 2 + c.id", &at, err, sizeof err, &r);
    cr_assert_eq(r, 0, "%s", err);
    char type[48];
    weir_type_format(weir_expr_type(e), type, sizeof type);
    cr_expect_str_eq(type, "BIGINT");
    cr_expect_str_eq(weir_expr_text(e), "o.amount * 2 + c.id");
    unsigned char scratch[64] = {0};
    weir__val v;
    const char *why;
    cr_assert_eq(weir__expr_eval(e, row, scratch, &v, &why), 0);
    cr_expect_eq(v.i, 42, "c.id reads the row's id0: %lld", (long long)v.i);
    weir_expr_destroy(e);

    e = bind_two("name", &at, err, sizeof err, &r);
    cr_expect_eq(r, 0, "an unqualified name of one input: %s", err);
    weir_expr_destroy(e);

    cr_expect_null(bind_two("x + id", &at, err, sizeof err, &r));
    cr_expect_eq(r, WEIR_EINVAL);
    cr_expect_eq(at, 0u);

    cr_expect_null(bind_two("amount + id", &at, err, sizeof err, &r));
    cr_expect_eq(at, 9u);
    cr_expect_str_eq(err, "column 'id' is ambiguous: it is a column of o and of c (name one "
                          "with its table: o.id)");

    cr_expect_null(bind_two("c.amount", &at, err, sizeof err, &r));
    cr_expect(strstr(err, "unknown column 'amount'"), "%s", err);

    cr_expect_null(bind_two("x.id", &at, err, sizeof err, &r));
    cr_expect_eq(at, 0u);
    cr_expect_str_eq(err, "unknown table 'x' in 'x.id'");
    weir_schema_destroy(rs);
}

Test(expr_ast, compile_is_parse_and_bind)
{
    weir_schema *s = tt_schema("t", "a INT, b BIGINT", NULL);
    weir_expr *e = NULL;
    char err[256];
    cr_assert_eq(weir_expr_compile_item("a /* the a */ + b AS total", s, 0, &e, err, sizeof err), 0,
                 "%s", err);
    cr_expect_str_eq(weir_expr_alias(e), "total");
    weir_expr_destroy(e);
    cr_expect_eq(weir_expr_compile("a + b AS total", s, &e, err, sizeof err), WEIR_EINVAL);
    cr_expect(strstr(err, "at 7: unexpected 'AS'"), "%s", err);
    /* one table, no inputs named: its columns are named alone */
    cr_expect_eq(weir_expr_compile("t.a + 1", s, &e, err, sizeof err), WEIR_EINVAL);
    cr_expect(strstr(err, "at 1: 't.a': a column of one table is named alone here ('a')"), "%s",
              err);
    cr_expect_eq(weir_expr_compile("SUM(a) + 1", s, &e, err, sizeof err), WEIR_EINVAL);
    cr_expect(strstr(err, "at 1: aggregate function SUM is not allowed here"), "%s", err);
    weir_schema_destroy(s);
}

/* A tree as deep as binding, comparing and evaluating may recurse is the
 * most the parser makes: deeper nesting, of parentheses or of a long chain
 * of operators, is refused where it is parsed, not by a crash. */
Test(expr_ast, nesting_is_bounded)
{
    size_t n = 3 * WEIR_AST_MAX_DEPTH;
    char *deep = malloc(2 * n + 2), *chain = malloc(4 * n + 2);
    cr_assert(deep && chain);
    for (size_t i = 0; i < n; i++) {
        deep[i] = '(';
        deep[2 * n - i] = ')';
    }
    deep[n] = '1';
    deep[2 * n + 1] = '\0';
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        k += (size_t)sprintf(chain + k, "1 + ");
    chain[k - 3] = '\0'; /* "1 + 1 + ... + 1" */
    const char *texts[] = {deep, chain};
    for (int t = 0; t < 2; t++) {
        weir_ast_arena *arena = NULL;
        weir_ast *a = NULL;
        size_t at = 0;
        char err[256] = "";
        cr_expect_eq(weir_ast_parse(&arena, texts[t], 0, &a, NULL, &at, err, sizeof err),
                     WEIR_EINVAL);
        cr_expect(strstr(err, "nested deeper than 1000 levels"), "%s", err);
        weir_ast_arena_free(&arena);
    }
    /* at the bound it parses */
    k = 0;
    for (size_t i = 0; i < WEIR_AST_MAX_DEPTH / 2; i++)
        k += (size_t)sprintf(chain + k, "1 + ");
    chain[k - 3] = '\0';
    weir_ast_arena *arena = NULL;
    size_t end;
    parse_at(&arena, chain, 0, &end);
    weir_ast_arena_free(&arena);
    free(deep);
    free(chain);
}
