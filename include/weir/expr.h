/* weir/expr.h — the expression language of tables (and of SQL, which reads
 * its expressions with the same parser, weir/expr_ast.h): text compiled
 * once against a schema into a typed tree that evaluates a row with no
 * parsing and no allocation. A name may be qualified (t.col) where the
 * scope has inputs (weir_expr_bind).
 *
 * Grammar (keywords case-insensitive, column names case-sensitive, `quoted`
 * names allowed), lowest precedence first:
 *
 *     expr    := or [AS name]            (AS only where a select list allows)
 *     or      := and {OR and}            SQL three-valued logic
 *     and     := not {AND not}
 *     not     := NOT not | pred
 *     pred    := concat [cmp concat | IS [NOT] {NULL | TRUE | FALSE | UNKNOWN}
 *                | IS [NOT] DISTINCT FROM concat | [NOT] IN (expr, ...)
 *                | [NOT] LIKE concat [ESCAPE concat] | [NOT] SIMILAR TO concat [ESCAPE concat]
 *                | [NOT] BETWEEN [ASYMMETRIC | SYMMETRIC] concat AND concat]
 *     cmp     := = | <> | != | < | <= | > | >=
 *     concat  := add {|| add}
 *     add     := mul {(+|-) mul}
 *     mul     := unary {(*|/|%) unary}
 *     unary   := - unary | + unary | postfix
 *     postfix := primary {.name | [expr]}  a ROW's field, an ARRAY's element
 *                                          (1-based; NULL out of range), a MAP's
 *                                          value at a key (NULL: none)
 *     primary := integer | decimal | 'string' | TRUE | FALSE | NULL
 *              | INTERVAL 'n' unit                (MILLISECOND .. DAY, plural too)
 *              | CASE WHEN expr THEN expr ... [ELSE expr] END
 *              | CAST(expr AS type)               (types as weir_type_parse)
 *              | COALESCE(expr, ...)
 *              | COUNT(*) | COUNT([DISTINCT] e) | SUM(e) | MIN(e) | MAX(e) | AVG(e)
 *              | name(expr, ...)   (a built-in function, docs/SQL.md's table of
 *                                   them, or a function from C: weir/function.h)
 *              | SUBSTRING(e FROM e [FOR e]) | TRIM([BOTH|LEADING|TRAILING] [e] FROM e)
 *              | POSITION(e IN e [FROM e]) | EXTRACT(unit FROM e) | FLOOR(e TO unit)
 *              | CEIL(e TO unit) | TIMESTAMPADD(unit, e, e) | TIMESTAMPDIFF(unit, e, e)
 *              | JSON_VALUE(e, e [RETURNING type] [{NULL|ERROR|DEFAULT e} ON EMPTY]
 *                           [{NULL|ERROR|DEFAULT e} ON ERROR])
 *              | JSON_QUERY(e, e [{WITHOUT|WITH [CONDITIONAL|UNCONDITIONAL]} [ARRAY] WRAPPER]
 *                           [{NULL|ERROR|EMPTY ARRAY|EMPTY OBJECT} ON EMPTY|ERROR])
 *              | JSON_EXISTS(e, e [{TRUE|FALSE|UNKNOWN|ERROR} ON ERROR])
 *              | CURRENT_TIMESTAMP | LOCALTIMESTAMP   (no parentheses, as SQL writes them)
 *              | ROW(expr, ...) | ARRAY[expr, ...] | MAP[key, value, ...] | CARDINALITY(e)
 *              | column | (expr)
 *
 * Types (Flink's rules, SEMANTICS.md 9): INT op INT is INT, with BIGINT it is
 * BIGINT, with DOUBLE it is DOUBLE; a decimal literal (1.5) is DOUBLE (Flink
 * would say DECIMAL: weir has no DECIMAL). TIMESTAMP ± INTERVAL is
 * TIMESTAMP. a || b is VARCHAR(capacity a + capacity b). Any operand NULL
 * makes the result NULL, except AND/OR (FALSE AND NULL is FALSE, TRUE OR NULL
 * is TRUE), IS [NOT] NULL, COALESCE and CASE.
 *
 * Arithmetic, as Flink's generated Java code does it: INT and BIGINT wrap
 * around on overflow (two's complement, no error); integer division
 * truncates toward zero, and an integer division or MOD by zero fails the
 * job ("division by zero"); DOUBLE follows IEEE 754 (1.0 / 0 is Infinity).
 * CAST of a string that is not a number fails the job; CAST to VARCHAR(n)
 * keeps the first n characters (UTF-8, as Flink counts them: never a part
 * of one), its capacity the bytes they may take (n for text of at most n
 * bytes, else up to 4n); CAST to CHAR(n) keeps the characters that fit n
 * bytes and pads to n (an explicit cast, unlike storing a value). UPPER and
 * LOWER map all of Unicode (Java's root-locale toUpperCase/toLowerCase:
 * 'ß' is 'SS'); a result longer than the argument's capacity fails the job.
 * CAST(DOUBLE AS INT/BIGINT) truncates toward zero, saturating as Java does.
 * AND, OR and CASE evaluate only what decides them.
 *
 * Aggregate calls may appear only at the top of a group aggregate's select
 * list (weir/table.h); elsewhere they are a plan-time error.
 *
 * Threads: a compiled expression is immutable and shared read-only by every
 * subtask that evaluates it.
 */
#ifndef WEIR_EXPR_H
#define WEIR_EXPR_H

#include <stddef.h>

#include "weir/export.h"
#include "weir/row.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct weir_expr weir_expr;

/* The aggregate functions of group and window aggregates. */
typedef enum weir_agg_kind {
    WEIR_AGG_NONE = 0,
    WEIR_AGG_COUNT_STAR,
    WEIR_AGG_COUNT,
    WEIR_AGG_SUM,
    WEIR_AGG_MIN,
    WEIR_AGG_MAX,
    WEIR_AGG_AVG,
    WEIR_AGG_FUNCTION, /* an aggregate function from C (weir/function.h) */
    /* Since ABI 2 (weir/version.h), after the first ones: */
    WEIR_AGG_STDDEV_POP,
    WEIR_AGG_STDDEV_SAMP,
    WEIR_AGG_VAR_POP,
    WEIR_AGG_VAR_SAMP,
    WEIR_AGG_FIRST_VALUE,
    WEIR_AGG_LAST_VALUE,
    WEIR_AGG_LISTAGG
} weir_agg_kind;

/* Compiles `text` against `schema` (borrowed for the call only). 0 and *out
 * (free with weir_expr_destroy), or WEIR_EINVAL with the message in err:
 * the expression (its first 60 bytes and "..." when it is longer), the
 * position (1-based byte) and what is wrong,
 *     "amount > 'x' at 8: cannot compare BIGINT with VARCHAR(1)". */
WEIR_EXPORT int weir_expr_compile(const char *text, const weir_schema *schema, weir_expr **out,
                                  char *err, size_t errsize);

/* As weir_expr_compile, for one item of a select list: "expr [AS name]",
 * aggregate calls allowed at the top when allow_agg is set. */
WEIR_EXPORT int weir_expr_compile_item(const char *text, const weir_schema *schema,
                                       int allow_agg, weir_expr **out, char *err,
                                       size_t errsize);

WEIR_EXPORT void weir_expr_destroy(weir_expr *e);

/* The result type (with not_null when it can never be NULL). */
WEIR_EXPORT weir_type weir_expr_type(const weir_expr *e);
/* The AS name, else the column's name for a bare column, else NULL. */
WEIR_EXPORT const char *weir_expr_alias(const weir_expr *e);
/* The text as given. */
WEIR_EXPORT const char *weir_expr_text(const weir_expr *e);
/* The top aggregate call (WEIR_AGG_NONE if none). */
WEIR_EXPORT weir_agg_kind weir_expr_agg(const weir_expr *e);

/* Splits a comma-separated list at its top-level commas (not inside
 * parentheses or quotes): calls fn for each item (start and length, trimmed).
 * Returns 0, or fn's first non-zero result, or WEIR_EINVAL for an empty item
 * or an unbalanced parenthesis or quote. */
WEIR_EXPORT int weir_expr_split(const char *list,
                                int (*fn)(const char *item, size_t len, void *arg), void *arg);

#ifdef __cplusplus
}
#endif
#endif
