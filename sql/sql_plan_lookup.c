/* sql_plan_lookup.c — `JOIN t FOR SYSTEM_TIME AS OF l.time [AS s] ON ...`:
 * which join it is, as Flink's planner tells (LogicalCorrelateToJoinFrom
 * TemporalTableRule and the rules after it), and the lookup join planned
 * onto the table layer (weir_table_lookup_join_tree).
 *
 *   l.time the left's processing-time attribute, t a table whose connector
 *          can be looked up (weir/connector.h's lookup): a lookup join
 *          (Flink's LookupJoin), INNER or LEFT;
 *   l.time anything else: the event-time temporal join (sql_plan.c's
 *          plan_temporal_join, which plan_joins calls instead of this).
 *
 * The lookup table is not read as a source of the job: each subtask of the
 * join loads it whole (the connector's loader), in its open(). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sql_internal.h"
#include "sql_plan.h"
#include "weir/expr_ast.h"

/* The column of t the time expression names, in the left's scope: its
 * index, or -1 (not a bare column: an expression), or -2 after reporting
 * (the binder's message: an unknown column). */
static int time_column(planner *p, const sql_join *j, const weir_expr_scope *left)
{
    const weir_ast *a = j->for_time_ast;
    if (a->kind == WEIR_AST_NAME) {
        int found = 0, col = -1;
        for (int k = 0; k < left->ninputs; k++) {
            const char *q = left->inputs[k].qualifier;
            if (a->qualifier && (!q || strcmp(a->qualifier, q) != 0))
                continue;
            int c = weir_schema_column_index(left->inputs[k].columns, a->text);
            if (c >= 0) {
                col = left->inputs[k].first + c;
                found++;
            }
        }
        if (found == 1)
            return col;
    }
    /* not one column of the left's: the binder says what is wrong with it
     * (an unknown or ambiguous name), else it is an expression */
    weir_expr *e = NULL;
    size_t at = 0;
    char msg[512];
    int r = weir_expr_bind(a, p->sc->text, left, -1, NULL, &e, &at, msg, sizeof msg);
    weir_expr_destroy(e);
    if (r) {
        sql_fail(p->s, p->sc, (uint32_t)at, "%s", msg);
        return -2;
    }
    return -1;
}

weir_table *sql_plan_for_system_time(planner *p, const sql_join *j, weir_table *t,
                                     const weir_expr_scope *left, weir_expr_scope *out)
{
    if (j->kind == 0)
        return sql_fail(p->s, p->sc, j->for_time_at.start, "not supported: FOR SYSTEM_TIME AS "
                        "OF in a comma join (write JOIN ... ON)");
    int c = time_column(p, j, left);
    if (c == -2)
        return NULL;
    char *name = sql_unquote(p->sc, j->from_name);
    if (!name)
        return sql_fail(p->s, p->sc, j->from_name.start, "out of memory");
    sql_relation *r = sql_catalog_find(p->s, name);
    /* plan_joins sends FOR SYSTEM_TIME AS OF anything but the left's
     * processing-time attribute to the event-time temporal join */
    if (c < 0 || c != weir_table_proctime(t))
        return sql_fail(p->s, p->sc, j->for_time.start, "Temporal table join currently only "
                        "supports 'FOR SYSTEM_TIME AS OF' left table's time attribute field");
    if (!r) {
        const char *hint = sql_catalog_hint(p->s, p->env, name);
        /* unknown; a program's table (a view of the env) has no connector
         * to look up in: refused below */
        if (!weir_table_env_view(p->env, name)) {
            if (hint)
                return sql_fail(p->s, p->sc, j->from_name.start,
                                "unknown table '%s' (did you mean '%s'?)", name, hint);
            return sql_fail(p->s, p->sc, j->from_name.start, "unknown table '%s'", name);
        }
    }
    /* a processing-time attribute: a lookup join, if the table can be
     * looked up; Flink plans any other table into a processing-time
     * temporal join, which it refuses */
    int (*lookup)(void *, const weir_schema *, struct weir_lookup_source *, char *, size_t) =
        r && !r->view ? sql_lookup(r->factory) : NULL;
    if (!lookup)
        return sql_fail(p->s, p->sc, j->for_time_at.start, "Processing-time temporal join is "
                        "not supported yet.");
    if (r->declared)
        return sql_fail(p->s, p->sc, j->from_name.start, "not supported: a lookup join of a "
                        "table with computed columns ('%s')", r->name);
    if (j->kind == WEIR_JOIN_RIGHT || j->kind == WEIR_JOIN_FULL)
        return sql_fail(p->s, p->sc, j->at.start, "Correlate has invalid join type %s",
                        j->kind == WEIR_JOIN_RIGHT ? "RIGHT" : "FULL");
    weir_lookup_source src = {.name = r->name, .schema = r->schema};
    char err[512] = "";
    int e = lookup(r->state, r->schema, &src, err, sizeof err);
    if (e)
        return sql_fail(p->s, p->sc, j->from_name.start, "table '%s': %s", r->name,
                        err[0] ? err : weir_strerror(e));
    src.name = r->name;
    src.schema = r->schema;
    const char *q = j->alias.len ? sql_unquote(p->sc, j->alias) : name;
    if (!q) {
        if (src.arg_free)
            src.arg_free(src.arg);
        return sql_fail(p->s, p->sc, j->alias.start, "out of memory");
    }
    size_t err_at = (size_t)-1;
    weir_table *lt = weir_table_lookup_join_tree(t, left, &src, q, (weir_join_kind)j->kind,
                                                 j->on_ast, p->sc->text, p->trees, &err_at, out);
    if (!lt)
        return sql_plan_table_fail(p, err_at != (size_t)-1 ? (uint32_t)err_at : j->on.start);
    return lt;
}
