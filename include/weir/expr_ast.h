/* weir/expr_ast.h — the expression language's syntax tree: the one parser of
 * weir/expr.h's grammar, for the table layer (which binds a tree to a schema:
 * weir_expr_bind) and the SQL front-end (which parses every expression of a
 * statement with it, rewrites trees and binds them). NOT a stable API: it
 * grows with the SQL front-end and carries no compatibility promise across
 * versions (WEIR_ABI_VERSION does not cover it); a program uses weir/expr.h
 * and weir/table.h.
 *
 * A tree is syntax only: names are not resolved and nothing is typed. Its
 * nodes live in an arena, freed all at once.
 */
#ifndef WEIR_EXPR_AST_H
#define WEIR_EXPR_AST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "weir/export.h"
#include "weir/expr.h"
#include "weir/row.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum weir_ast_kind {
    WEIR_AST_INT = 1, /* an integer literal: `text` its digits */
    WEIR_AST_DECIMAL, /* 1.5, 2e3: `text` */
    WEIR_AST_STRING,  /* 'it''s': `text` the value (unquoted), `len` its bytes */
    WEIR_AST_BOOLEAN, /* TRUE / FALSE: `value` 1 / 0 */
    WEIR_AST_NULL,
    WEIR_AST_INTERVAL, /* INTERVAL '5' SECOND: `value` in milliseconds */
    WEIR_AST_NAME,     /* a column: `text` its name (unquoted), `qualifier` t in t.col */
    WEIR_AST_NEG,      /* - a */
    WEIR_AST_BINARY,   /* a op b */
    WEIR_AST_NOT,      /* NOT a */
    WEIR_AST_IS_NULL,  /* a IS [NOT] NULL (`negate`) */
    WEIR_AST_IN,       /* a [NOT] IN (args) (`negate`) */
    WEIR_AST_CASE,     /* args: condition, value, ... [else value] (`has_else`) */
    WEIR_AST_CAST,     /* CAST(a AS type): `text` the type as written; TRY_CAST: `negate`;
                        * `value` non-zero: the nested type's number (weir_type's
                        * capacity) the text names, exactly (a sink column's) */
    WEIR_AST_CALL,     /* text(args): a function or an aggregate (`distinct`, `star`),
                        * written as `form` says */
    WEIR_AST_SYMBOL,   /* a keyword argument of a call's own syntax: `text` the word(s),
                        * upper case (TRIM's LEADING, EXTRACT's HOUR, JSON_VALUE's
                        * RETURNING type and ON EMPTY behaviour) */
    WEIR_AST_TYPED,    /* DATE '2024-01-05', TIME '...', TIMESTAMP '...', X'0a0b': `value`
                        * the weir_type_id (BINARY for X), `text` the string's value */
    WEIR_AST_INTERVAL_YM, /* INTERVAL '1-2' YEAR TO MONTH: `value` in months */
    WEIR_AST_FIELD,    /* a.name: a ROW's field, `a` the row, `text` the field's name */
    WEIR_AST_INDEX     /* a[b]: an ARRAY's element (1-based) or a MAP's value by key */
} weir_ast_kind;

/* How a call is written: a function call, or one of SQL's own forms whose
 * arguments the parser puts in a fixed order (and the formatter writes back
 * in the form). */
typedef enum weir_ast_form {
    WEIR_AST_FORM_CALL = 0,   /* NAME(a, b, ...) */
    WEIR_AST_FORM_NILADIC,    /* CURRENT_TIMESTAMP: no parentheses */
    WEIR_AST_FORM_INFIX,      /* a [NOT] LIKE b [ESCAPE c], a [NOT] SIMILAR TO b [ESCAPE c]:
                               * `text` LIKE / SIMILAR TO, args a, b[, c] */
    WEIR_AST_FORM_BETWEEN,    /* a [NOT] BETWEEN [SYMMETRIC] b AND c: `value` 1 symmetric */
    WEIR_AST_FORM_IS,         /* a IS [NOT] TRUE / FALSE / UNKNOWN / DISTINCT FROM b:
                               * `text` IS TRUE, IS FALSE, IS UNKNOWN, IS DISTINCT FROM */
    WEIR_AST_FORM_SUBSTRING,  /* SUBSTRING(s FROM a [FOR b]): args s, a[, b] */
    WEIR_AST_FORM_TRIM,       /* TRIM([BOTH|LEADING|TRAILING] [c] FROM s): args the side
                               * (SYMBOL), c, s */
    WEIR_AST_FORM_POSITION,   /* POSITION(a IN b [FROM c]): args a, b[, c] */
    WEIR_AST_FORM_EXTRACT,    /* EXTRACT(unit FROM x): args unit (SYMBOL), x */
    WEIR_AST_FORM_FLOOR_TO,   /* FLOOR(x TO unit), CEIL(x TO unit): args x, unit (SYMBOL) */
    WEIR_AST_FORM_BRACKET,    /* ARRAY[a, b, ...], MAP[k, v, ...]: `text` ARRAY or MAP */
    WEIR_AST_FORM_JSON,       /* JSON_VALUE(j, p RETURNING t {NULL|ERROR|DEFAULT d} ON
                               * EMPTY ... ON ERROR), JSON_QUERY, JSON_EXISTS: args j, p,
                               * then each clause's SYMBOL, a DEFAULT's value after it */
    WEIR_AST_FORM_JSON_CTOR   /* JSON_OBJECT([KEY] k VALUE v, ... {NULL|ABSENT} ON NULL),
                               * JSON_ARRAY(v, ... {NULL|ABSENT} ON NULL): args the ON NULL
                               * SYMBOL (NULL or ABSENT), then k, v, ... or v, ... */
} weir_ast_form;

typedef enum weir_ast_op {
    WEIR_AST_ADD = 1, WEIR_AST_SUB, WEIR_AST_MUL, WEIR_AST_DIV, WEIR_AST_MOD,
    WEIR_AST_CONCAT,
    WEIR_AST_EQ, WEIR_AST_NE, WEIR_AST_LT, WEIR_AST_LE, WEIR_AST_GT, WEIR_AST_GE,
    WEIR_AST_AND, WEIR_AST_OR
} weir_ast_op;

typedef struct weir_ast weir_ast;
struct weir_ast {
    weir_ast_kind kind;
    weir_ast_op op;     /* BINARY */
    /* Where the node's text starts (0-based byte of the parsed text) and
     * the byte after it ends: the source of messages and of EXPLAIN. */
    uint32_t start, end;
    uint32_t op_at;      /* BINARY, IS_NULL, IN: the operator's byte */
    uint32_t type_start; /* CAST: the type's byte */
    char *text;         /* see the kinds; NUL-terminated */
    uint32_t len;       /* STRING: bytes of text (it may hold a NUL) */
    char *qualifier;    /* NAME: NULL unless qualified */
    int64_t value;      /* BOOLEAN, INTERVAL; CALL of FORM_BETWEEN: 1 SYMMETRIC */
    bool negate;        /* IS NOT NULL, NOT IN; NOT LIKE, NOT BETWEEN, IS NOT TRUE ... */
    bool distinct;      /* CALL: name(DISTINCT a) */
    bool star;          /* CALL: COUNT(*) */
    bool has_else;      /* CASE */
    weir_ast_form form; /* CALL */
    weir_ast *a, *b;    /* NEG, NOT, IS_NULL, IN, CAST: a; BINARY: a, b; CALL: b an
                         * aggregate's FILTER (WHERE b), else NULL */
    weir_ast **args;    /* IN, CASE, CALL */
    int nargs;
    uint32_t depth;     /* 1 + its deepest child's (at most WEIR_AST_MAX_DEPTH) */
};

/* How deep a tree may nest (and the parser recurse): binding, comparing
 * and evaluating a tree recurse as deep, so a deeper one is refused where
 * it is parsed ("an expression nested deeper than 1000 levels"). */
#define WEIR_AST_MAX_DEPTH 1000

/* Where trees live: made by the first parse into *arena (NULL before),
 * freed at once by weir_ast_arena_free. */
typedef struct weir_ast_arena weir_ast_arena;
WEIR_EXPORT void weir_ast_arena_free(weir_ast_arena **arena);

/* Parses one expression of `text` from byte `start` on, and stops before
 * the first token that cannot go on with it (a clause word, a ',', a ')'
 * it did not open, AS, the end): *end is that token's byte (or the text's
 * length). Space and SQL comments (-- to the end of the line, and
 * comments between slash-star and star-slash) are skipped. 0 and *out, or
 * WEIR_EINVAL with *err_at (0-based byte) and what is wrong in err, or
 * WEIR_ENOMEM. */
WEIR_EXPORT int weir_ast_parse(weir_ast_arena **arena, const char *text, size_t start,
                               weir_ast **out, size_t *end, size_t *err_at, char *err,
                               size_t errsize);

/* Whether two trees are the same expression: the same kinds, operators,
 * values and names (functions and keywords without regard to case, column
 * names with). For GROUP BY, which matches a select item with a key. */
WEIR_EXPORT bool weir_ast_equal(const weir_ast *a, const weir_ast *b);

/* Whether `a` is a call of an aggregate function: a built-in one (COUNT,
 * SUM, MIN, MAX, AVG) or one registered from C (weir/function.h), its
 * name without regard to case. How SQL tells a grouped query. */
WEIR_EXPORT bool weir_ast_is_aggregate_call(const weir_ast *a);

/* A new node in the arena (zeroed but for kind, start and end, and `text`,
 * copied when given): how a rewriter replaces a subtree (an aggregate call
 * by the name of its column). NULL when out of memory. */
WEIR_EXPORT weir_ast *weir_ast_new(weir_ast_arena **arena, weir_ast_kind kind, const char *text,
                                   uint32_t start, uint32_t end);

/* The expression as text (expressions written as weir/expr.h reads them, a
 * name in back quotes only when it needs them), into buf as snprintf does:
 * the length it needs. */
WEIR_EXPORT int weir_ast_format(const weir_ast *a, char *buf, size_t size);

/* The names an expression is bound against: the schema of the row it
 * reads, and, when that row joins inputs, each input with its qualifier
 * (a table's name or alias, which a qualified name t.col must match) and
 * its own schema, whose column c is column first + c of the row (a join's
 * row holds both inputs' columns, renamed where they clash, as Flink's
 * id and id0). An unqualified name found in two inputs is ambiguous. With
 * no inputs listed, the row's schema is one input without a qualifier. */
typedef struct weir_expr_scope {
    const weir_schema *schema;
    int ninputs;
    struct {
        const char *qualifier;
        const weir_schema *columns;
        int first;
    } inputs[4];
    /* The session's 'table.local-time-zone', in which TIMESTAMP_LTZ values
     * meet local date-times (casts, comparisons); NULL: UTC. */
    const weir_time_zone *zone;
} weir_expr_scope;

/* Binds `a` in `scope` into a compiled expression: names resolved to
 * columns, every node typed, implicit casts made explicit (the rules of
 * weir/expr.h). `text` is the text the tree was parsed from (messages and
 * weir_expr_text show the node's part of it; NULL: the tree is formatted).
 * allow_agg: -1 no aggregate call, 0 likewise but a select item, 1 one at
 * the top. `alias` (NULL: none) is the item's AS name. 0 and *out, or
 * WEIR_EINVAL with *err_at and what is wrong in err, or WEIR_ENOMEM. */
WEIR_EXPORT int weir_expr_bind(const weir_ast *a, const char *text, const weir_expr_scope *scope,
                               int allow_agg, const char *alias, weir_expr **out,
                               size_t *err_at, char *err, size_t errsize);

#ifdef __cplusplus
}
#endif
#endif
