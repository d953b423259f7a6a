/* sql_plan.h — what the planner's files share: the planner of one query
 * (sql_plan.c) and the planning of OVER windows, ranks (Top-N and
 * deduplication), ORDER BY and LIMIT (sql_plan_over.c). */
#ifndef WEIR_SQL_SQL_PLAN_H
#define WEIR_SQL_SQL_PLAN_H

#include <stdbool.h>
#include <stdint.h>

#include "sql_internal.h"
#include "weir/expr_ast.h"

typedef struct planner {
    weir_sql_session *s;
    weir_job *job;
    weir_table_env *env;
    sql_script *sc;
    sql_arena **tmp;         /* this query's planning: arrays */
    weir_ast_arena **trees;  /* this query's planning: rewritten trees */
    int depth; /* views and subqueries being planned around this one */
    /* The table or view the statement itself reads that is being planned
     * (set outside views): where a plan too large is reported. */
    sql_script *top_sc;
    sql_span top_name;
    /* The query body being planned reads a join: the join's output columns
     * by their tables' qualifiers (bind uses it for a schema of those
     * columns); scope.ninputs 0: none. */
    weir_expr_scope scope;
    bool scope_off; /* binding a schema's own column names (all_columns) */
} planner;

/* The most items of a select list or of an aggregate: the table layer's. */
#define PLAN_MAX_ITEMS 256

/* A list of compiled expressions being made: handed over to the table layer
 * whole, or destroyed. */
typedef struct sql_exprs {
    weir_expr *v[PLAN_MAX_ITEMS];
    int n;
} sql_exprs;

/* One step of a tree rewrite: `a` (or NULL) rewritten into *out. */
typedef int (*sql_rewrite_fn)(planner *p, const void *arg, const weir_ast *a,
                              const weir_ast **out);
/* `a`'s children (a, b, the arguments) rewritten by fn; *out is `a` when
 * none changed, else a copy of `a` with the new children (the rest shared).
 * 0, fn's error, or WEIR_ENOMEM (reported). */
int sql_plan_rewrite_children(planner *p, const weir_ast *a, sql_rewrite_fn fn, const void *arg,
                              const weir_ast **out);
/* sql_plan.c's own, for sql_plan_over.c. */
/* Binds `a` against `schema` and appends it to x (as_parsed: a tree as the
 * statements have it, shown as written). 0, or WEIR_E* after reporting. */
int sql_plan_bind(planner *p, sql_exprs *x, const weir_ast *a, bool as_parsed,
                  const weir_schema *schema, int allow_agg, const char *alias, uint32_t at);
void sql_plan_exprs_free(sql_exprs *x);
/* The job's last error at byte `at`; NULL. */
void *sql_plan_table_fail(planner *p, uint32_t at);
/* Select item i's output name: its alias, a bare column's name, EXPR$i. */
int sql_plan_item_name(planner *p, const sql_item *it, int i, char *out, size_t size);
/* A body's FROM as a table. */
weir_table *sql_plan_from(planner *p, const sql_query **q);
/* q with each t.* among its items replaced by t's columns, once its FROM
 * is planned (q itself when it has none); NULL after reporting. */
const sql_query *sql_plan_expand_stars(planner *p, const sql_query *q);
/* The column of `schema` a name names: a bare name itself, t.col the
 * column of source t (the scope of the body's FROM); NULL for anything
 * else. */
const char *sql_plan_column_name(planner *p, const weir_schema *schema, const weir_ast *a);
/* `a` with each t.col of the body's sources (columns of `schema`) as the
 * bare name of its column, into *out (a itself when it has none). 0, or
 * WEIR_ENOMEM after reporting. */
int sql_plan_unqualify(planner *p, const weir_schema *schema, const weir_ast *a,
                       const weir_ast **out);
/* The scope of a body whose one source (q's FROM, no join) is t: its
 * columns by its qualifier (its alias, a table's name) too. */
void sql_plan_source_scope(planner *p, const sql_query *q, const weir_table *t);
/* A body's WHERE, select list, grouping ... over t, its FROM's table. */
weir_table *sql_plan_body_over(planner *p, const sql_query *q, weir_table *t);
/* A group window's or window TVF's intervals and time column (t's rowtime)
 * as the table layer's window: 0, or WEIR_E* after reporting. */
int sql_plan_window_of(planner *p, const sql_window *w, const weir_table *t,
                       weir_table_window *out);
/* Every column of schema as an item. */
int sql_plan_all_columns(planner *p, sql_exprs *x, const weir_schema *schema, uint32_t at);
/* A query (a subquery) as a table. */
weir_table *sql_plan_subquery_table(planner *p, const sql_query *q);
/* A source's qualifier: its alias, else a table's name; NULL for a
 * subquery without an alias. */
const char *sql_plan_qualifier(planner *p, sql_from_kind kind, sql_span name, sql_span alias);
/* sql_plan_subquery.c's: q's WHERE conjuncts over subqueries onto t, its
 * FROM's table, as semi and anti joins. NULL after reporting. */
weir_table *sql_plan_subqueries(planner *p, const sql_query *q, weir_table *t);

/* sql_plan_over.c's. */
/* Whether a select item of q has an OVER window. */
bool sql_over_query(const sql_query *q);
/* q's select list with OVER aggregates over t (q's FROM and WHERE). */
weir_table *sql_plan_over(planner *p, const sql_query *q, weir_table *t);
/* Whether q reads a subquery that numbers its rows (ROW_NUMBER() OVER): a
 * Top-N, a deduplication or a window Top-N, as Flink's planner finds them. */
bool sql_rank_query(const sql_query *q);
weir_table *sql_plan_rank(planner *p, const sql_query *q);
/* q's ORDER BY and LIMIT over t, the rows of its bodies. */
weir_table *sql_plan_order_limit(planner *p, const sql_query *q, weir_table *t);

/* sql_plan_lookup.c's. */
/* JOIN t FOR SYSTEM_TIME AS OF (j) onto t, the join's left so far (its
 * names in `left`): a lookup join, or Flink's refusal. The output's scope
 * into *out. NULL after reporting. */
/* sql_plan_join_inputs.c: a regular join's inputs, filtered by the WHERE
 * conjuncts that read one of them alone and narrowed to the columns the
 * query reads. Sides: 0 the first source, j + 1 the right input of join j. */
#define SQL_JOIN_PUSH_SIDES 8
typedef struct sql_join_push {
    const weir_ast *where[SQL_JOIN_PUSH_SIDES]; /* each side's conjuncts (NULL: none) */
    bool formatted[SQL_JOIN_PUSH_SIDES];        /* a tree made here: shown as formatted */
    bool applied[SQL_JOIN_PUSH_SIDES];          /* the side's input took them */
    const weir_ast *conj[PLAN_MAX_ITEMS];       /* WHERE's conjuncts (0 of them: none go down) */
    int conj_side[PLAN_MAX_ITEMS];              /* the side each could filter, -1: none */
    int nconj;
} sql_join_push;
/* Which of q's WHERE conjuncts could filter an input of its joins: fills
 * push. 0, or WEIR_E* after reporting. */
int sql_plan_join_pushdown(planner *p, const sql_query *q, sql_join_push *push);
/* Input k of q's regular join (t) filtered and narrowed; NULL after
 * reporting. */
weir_table *sql_plan_join_input(planner *p, const sql_query *q, sql_join_push *push, int k,
                                weir_table *t);
/* Once the joins are planned: *q becomes a copy whose WHERE is what the
 * inputs did not take (it stays as it is when they took nothing). 0, or
 * WEIR_E* after reporting. */
int sql_plan_join_residual(planner *p, const sql_query **q, const sql_join_push *push);

weir_table *sql_plan_for_system_time(planner *p, const sql_join *j, weir_table *t,
                                     const weir_expr_scope *left, weir_expr_scope *out);

#endif
