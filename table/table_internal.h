/* table_internal.h — what the files of the table layer share (table/
 * table_*.c): the schema's resolved layout, the compiled expression tree and
 * its evaluator, and the plan nodes of a table environment. Private to
 * operators/; written against the public headers only (DESIGN.md's walls).
 *
 *   table_schema.c    types, schemas, rows, Row.toString formatting
 *   datetime.c        dates, times and timestamps as text, months added
 *   expr_ast.c        the expression language's parser: text into syntax trees
 *   expr_bind.c       syntax trees bound to a schema: names, types, casts
 *   expr_cast.c       CAST: the casts Flink allows, values converted
 *   expr_eval.c       the evaluator of bound expressions
 *   table_env.c       the planner: table nodes, changelog modes, EXPLAIN
 *   table_views.c     the env's temporary views: tables by name
 *   table_calc.c      conversions from/to streams, select, where
 *   table_convert.c   tables into the user's structs or rows of a target schema
 *   table_agg.c       aggregate functions (accumulate, retract, merge, result)
 *   table_function.c  functions from C: the registry, calls and their failures
 *   table_group.c     the group aggregate and the changelog normalize
 *   table_window.c    window aggregates on the window engine (weir/window.h)
 */
#ifndef WEIR_TABLE_TABLE_INTERNAL_H
#define WEIR_TABLE_TABLE_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "message_text.h"
#include "weir/expr.h"
#include "weir/expr_ast.h"
#include "weir/function.h"
#include "weir/operator.h"
#include "weir/row.h"
#include "weir/table.h"
#include "weir/time_zone.h"

/* One column of a schema. */
typedef struct weir__col {
    char *name;
    weir_type type;      /* capacity resolved (never 0 for strings) */
    uint32_t offset;     /* in the row */
    uint32_t size;       /* bytes in the row (strings: 4 + capacity) */
    int64_t bound_off;   /* in the bound struct, -1 if not bound */
    uint32_t bound_size; /* the struct field's size (strings: the char array) */
    bool metadata;       /* the record timestamp (METADATA FROM 'rowtime') */
} weir__col;

struct weir_schema {
    char *table;
    int ncols;
    weir__col *cols;
    uint32_t header_size;
    uint32_t row_size;
    int npk;
    int *pk;
    int rowtime;          /* -1: none */
    int proctime;         /* the processing-time attribute (PROCTIME()), -1: none */
    char *watermark;      /* the watermark expression's text; NULL: none */
    bool source_watermark;
    bool wm_on_event;     /* emitted after every row that raises it, not periodically */
    int64_t wm_idle_ms;   /* the source's idle timeout; 0: none */
    /* weir_schema_watermark_in_source: the expression runs in the source,
     * per partition (weir_schema_watermark_strategy), compiled once here */
    bool wm_in_source;
    weir_expr *wm_compiled;
    bool bound;
    size_t struct_size;
    int64_t kind_off;     /* the bound struct's row kind field; -1: none */
    uint32_t string_capacity;
    uint32_t collection_capacity; /* ARRAY's and MAP's (CAST to one resolves by it) */
};

/* The schema's bytes per type, and whether a type is a string / integer /
 * numeric / time. */
uint32_t weir__type_size(weir_type t);
uint32_t weir__type_align(weir_type t);
/* Inline: the row and value paths ask these for every value they move. */
static inline bool weir__type_is_string(weir_type_id id) /* VARCHAR, CHAR */
{
    return id == WEIR_TYPE_VARCHAR || id == WEIR_TYPE_CHAR;
}
static inline bool weir__type_is_binary(weir_type_id id) /* VARBINARY, BINARY */
{
    return id == WEIR_TYPE_VARBINARY || id == WEIR_TYPE_BINARY;
}
/* A string or a binary string: a length and its capacity's bytes in a row. */
static inline bool weir__type_is_var(weir_type_id id)
{
    return weir__type_is_string(id) || weir__type_is_binary(id);
}
static inline bool weir__type_is_integer(weir_type_id id) /* TINYINT, SMALLINT, INT, BIGINT */
{
    return id == WEIR_TYPE_TINYINT || id == WEIR_TYPE_SMALLINT || id == WEIR_TYPE_INT ||
           id == WEIR_TYPE_BIGINT;
}
static inline bool weir__type_is_approx(weir_type_id id) /* FLOAT, DOUBLE */
{
    return id == WEIR_TYPE_FLOAT || id == WEIR_TYPE_DOUBLE;
}
static inline bool weir__type_is_numeric(weir_type_id id)
{
    return weir__type_is_integer(id) || weir__type_is_approx(id) || id == WEIR_TYPE_DECIMAL;
}
static inline bool weir__type_is_time(weir_type_id id)
{
    return id == WEIR_TYPE_TIMESTAMP || id == WEIR_TYPE_TIMESTAMP_LTZ;
}
/* DECIMAL(p, s) (precision 1..38); the DECIMAL an exact number is (an
 * integer's digits: TINYINT is DECIMAL(3, 0) ... BIGINT DECIMAL(19, 0)). */
weir_type weir__type_decimal(int p, int s, bool not_null);
weir_type weir__type_as_decimal(weir_type t);
/* The type of DECIMAL a op b (op '+', '-', '*', '/' or '%'), as Flink's
 * LogicalTypeMerging finds it (nullable: a result that does not fit it is
 * NULL). */
weir_type weir__decimal_result(char op, weir_type a, weir_type b);
/* DATE, TIME, TIMESTAMP, TIMESTAMP_LTZ; INTERVAL (day-time), INTERVAL_YM. */
static inline bool weir__type_is_datetime(weir_type_id id)
{
    return id == WEIR_TYPE_DATE || id == WEIR_TYPE_TIME || weir__type_is_time(id);
}
static inline bool weir__type_is_interval(weir_type_id id)
{
    return id == WEIR_TYPE_INTERVAL || id == WEIR_TYPE_INTERVAL_YM;
}
/* A type a column may have (not NULL's, not an interval's). */
bool weir__type_is_column(weir_type_id id);
/* A TIMESTAMP(p) or TIMESTAMP_LTZ(p) with p > 3 (its nanoseconds kept). */
bool weir__type_wide_time(weir_type t);
/* TIME / TIMESTAMP / TIMESTAMP_LTZ of `precision`, written as weir
 * writes it (WEIR_PRECISION_ZERO for a timestamp's 0). */
weir_type weir__type_time(weir_type_id id, int precision, bool not_null);
/* The same type (capacity, precision, scale), nullability aside. */
bool weir__type_same(weir_type a, weir_type b);
/* An integer type's width in bits (8, 16, 32, 64); v wrapped to it as
 * Java's narrowing casts wrap ((byte) v); whether v fits it unchanged. */
int weir__int_bits(weir_type_id id);
static inline int64_t weir__int_wrap(weir_type_id id, int64_t v) /* inline: every operation */
{
    switch (id) {
    case WEIR_TYPE_TINYINT: return (int8_t)(uint8_t)(uint64_t)v;
    case WEIR_TYPE_SMALLINT: return (int16_t)(uint16_t)(uint64_t)v;
    case WEIR_TYPE_INT: return (int32_t)(uint32_t)(uint64_t)v;
    default: return v;
    }
}
bool weir__int_fits(weir_type_id id, int64_t v);
/* The first byte of p that is not space; the byte after the word kw at p
 * (any case, a whole word), or NULL. */
const char *weir__skip_ws(const char *p);
const char *weir__match_word(const char *p, const char *kw);

static inline bool weir__row_null(const weir_schema *s, const unsigned char *row, int c)
{
    (void)s;
    return (row[1 + c / 8] >> (c % 8)) & 1u;
}

static inline void weir__row_set_null_bit(unsigned char *row, int c, bool null)
{
    if (null)
        row[1 + c / 8] |= (unsigned char)(1u << (c % 8));
    else
        row[1 + c / 8] &= (unsigned char)~(1u << (c % 8));
}

/* A schema built directly (for the planner's derived schemas): columns of
 * the given names and types, no keys or rowtime. Returns NULL on out of
 * memory or a row too large (then *why says so). */
weir_schema *weir__schema_make(const char *table, int ncols, const char *const *names,
                               const weir_type *types, const char **why);
/* The same, a schema made from the input schema `in`: its table's name, and
 * its capacities of STRING / BYTES and collections (a session's
 * 'weir.string-capacity' reaches every schema of a plan: a binder reads the
 * capacity of a new string, CAST(x AS STRING), LISTAGG, off the schema it
 * binds against). */
weir_schema *weir__schema_derive(const weir_schema *in, int ncols, const char *const *names,
                                 const weir_type *types, const char **why);
weir_schema *weir__schema_copy(const weir_schema *s, const char *table);

/* A DOUBLE as Java's Double.toString writes it (1.5, 10.0, 1.0E7, NaN),
 * into buf as snprintf does. */
int weir__format_double(double x, char *buf, size_t size);
/* A FLOAT's value as Java's Float.toString writes it (0.1, 1.0E10). */
int weir__format_float(double x, char *buf, size_t size);

/* Writes one column's value as Row.toString does. */
int weir__format_value(const weir_schema *s, const unsigned char *row, int c, char *buf,
                       size_t size);
/* The same in a style (weir/row.h). */
int weir__format_value_style(const weir_schema *s, const unsigned char *row, int c,
                             weir_row_style style, char *buf, size_t size);

/* Base64 (RFC 4648, with padding), as Flink's formats write binary
 * strings: the text's length (bytes past size counted, not written); the
 * bytes decoded, -1 for text that is not base64, -2 for more than size. */
int weir__base64_encode(const unsigned char *in, size_t n, char *out, size_t size);
int weir__base64_decode(const char *in, size_t n, unsigned char *out, size_t size);

/* ---- dates and times (datetime.c) ------------------------------------------ */

/* As Flink's SQL client and CAST write them: a DATE (days since the
 * epoch), a TIME(precision) (ms of the day), a TIMESTAMP(precision) (ms
 * since the epoch and the nanoseconds within the ms). Like snprintf. */
int weir__format_date(int64_t days, char *buf, size_t size);
int weir__format_time(int64_t ms, int precision, char *buf, size_t size);
int weir__format_timestamp(int64_t ms, int32_t nanos, int precision, char *buf, size_t size);
/* As Java's toString of LocalTime, and of LocalDateTime or (instant) an
 * Instant, which the print connector writes. */
int weir__format_java_time(int64_t ms, char *buf, size_t size);
int weir__format_java_timestamp(int64_t ms, int32_t nanos, bool instant, char *buf, size_t size);
/* Strict text (literals, the file formats): yyyy-MM-dd; HH:mm:ss[.f];
 * yyyy-MM-dd[( |T)HH:mm:ss[.f]] with up to nine digits of fraction (their
 * count in *fdigits). 0 or WEIR_EFORMAT. */
int weir__parse_date(const char *text, size_t len, int64_t *days);
int weir__parse_time(const char *text, size_t len, int64_t *ms, int *fdigits);
int weir__parse_timestamp(const char *text, size_t len, int64_t *ms, int32_t *nanos,
                          int *fdigits);
/* Lenient text, as Flink's CAST of a string reads it (DateTimeUtils'
 * parseDate, parseTime, parseTimestampData(s, precision)). */
int weir__cast_to_date(const char *s, size_t n, int64_t *days);
int weir__cast_to_time(const char *s, size_t n, int64_t *ms);
int weir__cast_to_timestamp(const char *s, size_t n, int precision, int64_t *ms,
                            int32_t *nanos);
/* Months added to a date (days) or a timestamp (ms), the day of the month
 * kept or cut to the month's last (Flink's DateTimeUtils.addMonths). */
int64_t weir__add_months(int64_t days, int64_t months);
int64_t weir__timestamp_add_months(int64_t ms, int64_t months);
/* A timestamp cut to `precision` digits (Flink's DateTimeUtils.truncate). */
void weir__timestamp_truncate(int64_t *ms, int32_t *nanos, int precision);

/* ---- expressions ---------------------------------------------------------- */

/* A value during evaluation: weir/function.h's weir_value, so that the
 * arguments of a function from C are the evaluator's own values. Strings
 * point into the row or the frame's scratch; integers, timestamps and
 * intervals are in i, booleans in i (0/1), DOUBLE in d. */
typedef weir_value weir__val;

/* A value of type t (NULL too) as Row.toString writes it, in a style, a
 * TIMESTAMP_LTZ in `zone` (NULL: UTC). */
int weir__format_val(weir_type t, const weir__val *v, weir_row_style style,
                     const weir_time_zone *zone, char *buf, size_t size);
/* The style of a nested value's CAST to a string: the SQL client's, its
 * elements each cast to a string (a BOOLEAN TRUE, FALSE). */
#define WEIR__ROW_STYLE_CAST ((weir_row_style)2)

/* A BOOLEAN (true/false, any case), DOUBLE (strtod) or integer (decimal)
 * literal of type `to` from NUL-terminated text with no leading space, as
 * CAST of a string and weir_row_set_text read it: 0 and *out (i or d),
 * WEIR_EFORMAT (not one, or another type), WEIR_ERANGE (out of the type's
 * range). */
int weir__parse_literal(weir_type_id to, const char *text, weir__val *out);

/* ---- nested types (nested.c) ----------------------------------------------- */

/* A nested type's description (weir_type's capacity numbers it): a ROW's
 * fields (names, types, offsets in the value), an ARRAY's element type
 * (types[0]) or a MAP's key and value types (types[0], types[1]), with
 * their capacity n (0 until a schema resolves it); the value's size and
 * alignment; an ARRAY's or MAP's null bits (knulls: elements or keys,
 * vnulls: values) and elements (koff + i * kstride; values voff + i *
 * vstride), after the uint32 count at 0. */
typedef struct weir__nested {
    weir_type_id id;
    uint32_t n;
    char **names;
    weir_type *types;
    uint32_t *offs;
    uint32_t size, align;
    uint32_t knulls, vnulls, koff, kstride, voff, vstride;
} weir__nested;

static inline bool weir__type_is_nested(weir_type_id id)
{
    return id == WEIR_TYPE_ROW || id == WEIR_TYPE_ARRAY || id == WEIR_TYPE_MAP;
}
/* The description of a nested type (NULL for another). Lock-free. */
const weir__nested *weir__nested_of(weir_type t);
/* The nested type of these parts, described once (equal parts: the same
 * type); {WEIR_TYPE_NULL} with *why when it cannot be. */
weir_type weir__nested_make(weir_type_id id, uint32_t n, const char *const *names,
                            const weir_type *types, bool not_null, const char **why);
/* t with its defaults filled in, nested ones too: STRING's and BYTES'
 * capacity 0 by string_cap, ARRAY's and MAP's by coll_cap. 0, or a code
 * with *why. */
int weir__type_resolve(weir_type *t, uint32_t string_cap, uint32_t coll_cap, const char **why);
uint32_t weir__nested_size(weir_type t);
uint32_t weir__nested_align(weir_type t);
int weir__nested_format_type(weir_type t, char *buf, size_t size);
/* Whether bit i of the bits at p is set. */
static inline bool weir__bit(const unsigned char *p, uint32_t i)
{
    return (p[i / 8] >> (i % 8)) & 1u;
}
/* Elements of a nested value at slot: a ROW's field i, an ARRAY's element
 * i, a MAP's key (part 0) or value (part 1) i; how many there are. */
void weir__nested_element(const weir__nested *d, const unsigned char *slot, int part, uint32_t i,
                          weir__val *v);
uint32_t weir__nested_count_of(const weir__nested *d, const unsigned char *slot);
/* A value of a type at p (NULL if null) into v. */
void weir__nested_load(const unsigned char *p, weir_type t, bool null, weir__val *v);
/* As Row.toString and the SQL client write a nested value. */
int weir__nested_format_val(weir_type t, const weir__val *v, weir_row_style style,
                            const weir_time_zone *zone, char *buf, size_t size);
/* A value of type t from its JSON text into slot (its size, zeroed first):
 * 0 and *null, or a code with what is wrong (and where) in why. */
int weir__json_to_slot(weir_type t, const char *text, size_t len, unsigned char *slot,
                       bool *null, char *why, size_t whysize);

typedef struct weir__enode weir__enode;

struct weir_expr {
    weir__enode *root;
    weir_type type;
    char *text;          /* the expression as given */
    char *alias;         /* AS name, or the column's name, or NULL */
    uint32_t scratch;    /* bytes of scratch one evaluation needs */
    int column;          /* a bare column reference: its index, else -1 */
    bool alias_shown;    /* a node name shows " AS `alias`" (an alias bound, not in text) */
    /* An aggregate call at the top (group_by's select lists). */
    weir_agg_kind agg;
    bool distinct;
    struct weir_expr *agg_arg; /* a built-in's argument (NULL for COUNT(*)) */
    struct weir_expr *agg_filter; /* its FILTER (WHERE c): c, or NULL */
    weir__val agg_sep;         /* LISTAGG's separator (bytes of the nodes) */
    /* WEIR_AGG_FUNCTION: the function and its arguments, each an
     * expression of its own (sharing this one's nodes and scratch). */
    const struct weir__function *fn;
    struct weir_expr **agg_args;
    int nagg_args;
    /* An argument of a function whose type is not its text's: a
     * conversion the binder made (the text compiled alone would have
     * another type), or a NULL literal typed as its parameter. */
    bool typed_apart;
    /* Where the row's processing time goes in the scratch while the
     * expression is evaluated (CURRENT_TIMESTAMP reads it); -1: it reads
     * no clock. */
    int64_t clock_slot;
    weir__enode *nodes;  /* every node (one allocation per node, freed as a list) */
};

/* Where the parser and the binder keep their first error: the code
 * (WEIR_EINVAL or WEIR_ENOMEM), its place and its message (the caller's
 * buffer). */
typedef struct weir__expr_error {
    int failed;
    size_t *err_at;
    char *err;
    size_t errsize;
} weir__expr_error;
/* Records the first error: WEIR_EINVAL at `at` with the message. */
void weir__expr_fail(weir__expr_error *e, size_t at, const char *fmt, ...) WEIR_PRINTF(3, 4);
/* Records the first error: out of memory. */
void weir__expr_nomem(weir__expr_error *e);

/* Parses the whole of `text` as one expression, or, with allow_alias, a
 * select item "expr [AS name]" (*alias then a malloc'ed name, or NULL):
 * what weir_expr_compile_item reads (expr_ast.c). 0, or WEIR_EINVAL with
 * *err_at and what is wrong, or WEIR_ENOMEM. */
int weir__ast_parse_item(weir_ast_arena **arena, const char *text, bool allow_alias,
                         weir_ast **out, char **alias, size_t *err_at, char *err,
                         size_t errsize);

/* weir_expr_compile_item with TIMESTAMP_LTZ's local zone (NULL: UTC):
 * how the table API compiles its expressions in its env's zone. */
int weir__expr_compile_in(const char *text, const weir_schema *schema, int allow_agg,
                          const weir_time_zone *zone, weir_expr **out, char *err,
                          size_t errsize);

/* The shown text of select items (a node's name): each item's text with
 * " AS `alias`" when an alias was bound to it (not in its text). malloc'ed; NULL when out of
 * memory. */
char *weir__items_text(weir_expr *const *items, int n);

/* Evaluates `e` on `row` (a row of the schema it was compiled against) into
 * *out, using `scratch` (e->scratch bytes, the caller's, per thread) for
 * strings it builds. The scratch is e's alone and zeroed before its first
 * row: a function may keep there what it made for one row for the next
 * (DATE_FORMAT's text of a day). 0, or a negative code with a static
 * message in *why (division by zero, a cast that fails). No allocation. */
int weir__expr_eval(const weir_expr *e, const unsigned char *row, unsigned char *scratch,
                    weir__val *out, const char **why);
/* The same, at processing time `now` (ms since the epoch, UTC: what
 * CURRENT_TIMESTAMP reads; weir__expr_eval reads the system's clock when the
 * expression needs one). */
int weir__expr_eval_now(const weir_expr *e, const unsigned char *row, unsigned char *scratch,
                        int64_t now, weir__val *out, const char **why);
/* Whether e is a call of PROCTIME() alone: a Calc's item that makes its
 * output's processing-time attribute, as Flink's PROCTIME() does. */
bool weir__expr_is_proctime(const weir_expr *e);

/* An integer expression of columns and literals — + - * / % and MOD() of
 * integers, unary minus, widening casts (`MOD(auction, 1000)`, `price * 100
 * + 1`) — planned as postfix steps that an operator evaluates on the row
 * without the interpreter's values: the same result, the same NULLs (any
 * operand NULL: NULL) and the same errors (a zero divisor), in the same
 * order. */
#define WEIR__INT_CALC 12
typedef struct weir__int_calc {
    struct weir__int_step {
        int op;             /* OP_COL, OP_LIT, OP_NEG, OP_ADD .. OP_MOD (MOD() too) */
        weir_type type;     /* the column's; an operation's result type (its wrap) */
        int col;
        uint32_t off;
        int64_t value;
    } s[WEIR__INT_CALC];
    int n;                  /* 0: not such an expression (the interpreter evaluates it) */
} weir__int_calc;
/* Plans e into *p; false (p->n 0) when e is not such an expression (or
 * reads the clock, or has more than WEIR__INT_CALC steps). */
bool weir__int_calc_plan(const weir_expr *e, weir__int_calc *p);
/* Evaluates a planned expression on row into *v (v->i, v->null). 0, or
 * WEIR_ERANGE with *why "division by zero". */
int weir__int_calc_eval(const weir__int_calc *p, const unsigned char *row, weir__val *v,
                        const char **why);
/* A predicate made only of comparisons of an integer column with a
 * non-NULL integer literal, ANDed (`event_type = 2 AND price < 10000`):
 * each compared where the row holds it, without the interpreter (a Calc's
 * WHERE, an aggregate's FILTER). One comparison may have, for its column,
 * an integer expression (weir__int_calc) whose divisors are non-zero
 * literals (`MOD(auction, 123) = 0`). */
#define WEIR__INT_TESTS 8
typedef struct weir__int_tests {
    struct weir__int_test {
        uint32_t off;   /* the column's place in the row */
        int col;
        weir_type type;
        int op;         /* OP_EQ .. OP_GE, the column on the left */
        int64_t value;
        bool calc;      /* the left is `calc`, not the column */
    } t[WEIR__INT_TESTS];
    int n;              /* 0: not such a predicate (the interpreter decides) */
    /* One integer expression that may stand for a column (`MOD(auction,
     * 123) = 0`), whose divisors are non-zero literals: it cannot fail. */
    weir__int_calc calc;
} weir__int_tests;
/* Plans e into *t; false (t->n 0) when e is not such a predicate (or
 * reads the clock, or has more than WEIR__INT_TESTS comparisons). */
bool weir__int_tests_plan(const weir_expr *e, weir__int_tests *t);
/* Whether every test holds on row (planned: t->n > 0): a NULL column never
 * does (a comparison with NULL is not TRUE). */
bool weir__int_tests_hold(const weir__int_tests *t, const unsigned char *row);
/* The processing time an operator evaluates its rows at: the job clock
 * (virtual: ms since the run started, so 1970-01-01 at the start and
 * reproducible), or the system's wall clock. */
int64_t weir__table_now(const weir_ctx *ctx, bool virtual_clock);
/* One node of a compiled expression evaluated (the built-ins' arguments). */
int weir__expr_eval_node(const weir__enode *n, const unsigned char *row, unsigned char *scratch,
                         weir__val *out, const char **why);

/* Compares two non-NULL values of type t (Flink's order: numbers by value,
 * strings by their UTF-8 bytes, times by instant): -1, 0 or 1. NaN is
 * neither less nor greater than anything (0): a comparison operator says
 * false for it on its own. */
int weir__val_compare(weir_type t, const weir__val *a, const weir__val *b);

/* Writes a value into column c of `row` (of schema s); the value's type is
 * the column's. WEIR_ERANGE if a string is longer than the column. */
int weir__store_value(const weir_schema *s, unsigned char *row, int c, const weir__val *v);
/* Reads column c of a row into a value. */
void weir__load_value(const weir_schema *s, const unsigned char *row, int c, weir__val *v);
/* Reads the non-NULL value of type `id` stored at p (a column's place in a
 * row) into v; v->null is the caller's. Inline: the evaluator reads every
 * column this way. */
static inline void weir__read_value(const unsigned char *p, weir_type t, weir__val *v)
{
    switch (t.id) {
    case WEIR_TYPE_BOOLEAN: v->i = p[0] != 0; break;
    case WEIR_TYPE_TINYINT: v->i = (int8_t)p[0]; break;
    case WEIR_TYPE_SMALLINT: {
        int16_t x;
        memcpy(&x, p, 2);
        v->i = x;
        break;
    }
    case WEIR_TYPE_INT:
    case WEIR_TYPE_DATE:
    case WEIR_TYPE_TIME:
    case WEIR_TYPE_INTERVAL_YM: {
        int32_t x;
        memcpy(&x, p, 4);
        v->i = x;
        break;
    }
    case WEIR_TYPE_FLOAT: {
        float f;
        memcpy(&f, p, 4);
        v->d = f;
        break;
    }
    case WEIR_TYPE_DOUBLE: memcpy(&v->d, p, 8); break;
    case WEIR_TYPE_VARCHAR:
    case WEIR_TYPE_CHAR:
    case WEIR_TYPE_VARBINARY:
    case WEIR_TYPE_BINARY:
        memcpy(&v->len, p, 4);
        v->s = (const char *)p + 4;
        break;
    case WEIR_TYPE_TIMESTAMP:
    case WEIR_TYPE_TIMESTAMP_LTZ:
        memcpy(&v->i, p, 8);
        if (t.precision > 3 && t.precision != WEIR_PRECISION_ZERO)
            memcpy(&v->nanos, p + 8, 4);
        else
            v->nanos = 0;
        break;
    case WEIR_TYPE_ROW:
    case WEIR_TYPE_ARRAY:
    case WEIR_TYPE_MAP:
        /* a nested value: where its bytes are, and how many */
        v->s = (const char *)p;
        v->len = weir__nested_size(t);
        break;
    case WEIR_TYPE_DECIMAL:
        /* the unscaled value: 8 bytes, or 16 (low, high) for p > 18 */
        memcpy(&v->i, p, 8);
        if (t.precision > 18)
            memcpy(&v->hi, p + 8, 8);
        else
            v->hi = v->i < 0 ? -1 : 0;
        break;
    default: memcpy(&v->i, p, 8); break;
    }
}

/* Writes the non-NULL value v of type `t` (not a string) at p, in the
 * row's layout (a column's place, or a bound struct's field: the same
 * bytes). */
static inline void weir__write_value(unsigned char *p, weir_type t, const weir__val *v)
{
    switch (t.id) {
    case WEIR_TYPE_BOOLEAN: p[0] = v->i != 0; break;
    case WEIR_TYPE_TINYINT: p[0] = (unsigned char)(uint64_t)v->i; break;
    case WEIR_TYPE_SMALLINT: {
        int16_t x = (int16_t)(uint16_t)(uint64_t)v->i;
        memcpy(p, &x, 2);
        break;
    }
    case WEIR_TYPE_INT:
    case WEIR_TYPE_DATE:
    case WEIR_TYPE_TIME:
    case WEIR_TYPE_INTERVAL_YM: {
        int32_t x = (int32_t)(uint32_t)(uint64_t)v->i;
        memcpy(p, &x, 4);
        break;
    }
    case WEIR_TYPE_FLOAT: {
        float f = (float)v->d;
        memcpy(p, &f, 4);
        break;
    }
    case WEIR_TYPE_DOUBLE: memcpy(p, &v->d, 8); break;
    case WEIR_TYPE_TIMESTAMP:
    case WEIR_TYPE_TIMESTAMP_LTZ:
        memcpy(p, &v->i, 8);
        if (t.precision > 3 && t.precision != WEIR_PRECISION_ZERO)
            memcpy(p + 8, &v->nanos, 4);
        break;
    case WEIR_TYPE_DECIMAL:
        memcpy(p, &v->i, 8);
        if (t.precision > 18)
            memcpy(p + 8, &v->hi, 8);
        break;
    case WEIR_TYPE_ROW:
    case WEIR_TYPE_ARRAY:
    case WEIR_TYPE_MAP:
        if ((const unsigned char *)v->s != p)
            memmove(p, v->s, weir__nested_size(t));
        break;
    default: memcpy(p, &v->i, 8); break;
    }
}

/* ---- plan nodes ------------------------------------------------------------ */

/* A node name the environment has given, for unique names in O(1): `next`
 * is the suffix to try next when a node of this name is made again. */
typedef struct weir__name_slot {
    const char *name; /* a node's name (the node owns it); NULL: empty */
    int next;
} weir__name_slot;

/* A temporary view: a table registered under a name (table_views.c). */
typedef struct weir__view {
    char *name;
    weir_table *table;
} weir__view;

struct weir_table_env {
    weir_job *job;
    weir_table_config config;
    weir_table *nodes; /* every node, newest first */
    weir__name_slot *names; /* open addressing, a power of two slots */
    size_t nnames, names_cap;
    weir__view *views; /* in the order registered */
    int nviews;
    /* the SQL layer's state for this env (weir/sql.h), freed with it */
    void *sql;
    void (*sql_free)(void *sql);
};

struct weir_table {
    weir_table_env *env;
    weir_table *input;
    weir_table **more;   /* a union's further inputs (input is its first) */
    int nmore;
    weir_table *next_alloc;
    char *name;          /* Flink's node name, the operator's name */
    weir_schema *schema; /* the rows' schema (never bound) */
    unsigned mode;       /* the changelog mode it emits */
    int rowtime;         /* the rowtime column, -1: none */
    int proctime;        /* the processing-time attribute, -1: none */
    int rowtime2;        /* a second time attribute (an interval join's right
                          * rowtime), -1: none; the records carry rowtime's */
    int nukey;           /* a unique key: its columns (0: none) */
    int *ukey;
    unsigned char *mono; /* an updating table's columns' weir__mono (NULL:
                          * each NOT; an insert-only table's are CONSTANT) */
    weir_stream *stream; /* the rows */
    char *settings;      /* settings_json of its operator */
    void *impl;          /* the operator's configuration, owned */
    void (*impl_free)(void *impl);
    /* Window properties (Flink's RelWindowProperties): the event-time
     * window of a window TVF's or a window aggregate's rows, kept by what
     * keeps window_start and window_end as bare columns (a projection, a
     * filter); what a window join recognizes (table_window_join.c). */
    bool windowed;
    weir_table_window window;
    int wstart, wend; /* their columns */
};

/* A new node (name formatted), linked into env; NULL after recording an
 * out-of-memory error. */
weir_table *weir__table_node(weir_table_env *env, weir_table *input, const char *fmt, ...)
    WEIR_PRINTF(3, 4);
/* Records a plan-time error in the job; returns NULL for the caller. */
void *weir__table_fail(weir_table_env *env, int err, const char *fmt, ...) WEIR_PRINTF(3, 4);
/* The node's settings_json ("changelog_mode":"[I]",...), made once. */
const char *weir__table_settings(weir_table *t, const char *extra);
/* A comma-separated list split at its top-level commas (weir_expr_split). */
#define WEIR__LIST_MAX 256
typedef struct weir__list {
    const char *items[WEIR__LIST_MAX];
    size_t lens[WEIR__LIST_MAX];
    int n;
} weir__list;
int weir__list_split(const char *list, weir__list *out);
/* Copies item i into buf (NUL-terminated); WEIR_ERANGE if it does not fit. */
int weir__list_item(const weir__list *l, int i, char *buf, size_t size);
/* Item i as a new string (the caller frees it), or NULL when out of memory. */
char *weir__list_dup(const weir__list *l, int i);
/* Compiles each item of `list` against `schema` (select items; aggregate
 * calls at the top when allow_agg) into out (room for WEIR__LIST_MAX):
 * how many, or -1 with env failed (naming `what`) and nothing left. */
int weir__compile_list(weir_table_env *env, const char *what, const char *list,
                       const weir_schema *schema, int allow_agg, weir_expr **out);
/* Records why weir__list_split refused `list` (its result r): more items
 * than WEIR__LIST_MAX, or a malformed list. Returns NULL. */
void *weir__list_fail(weir_table_env *env, const char *what, int r, const char *list);
/* A name of a key list: `quoted` (a doubled back quote inside is one) or
 * bare, into buf. false if it does not fit. */
bool weir__list_name(const char *item, size_t len, char *buf, size_t size);


/* The output column names of a list of items, as Flink names them: an
 * item's alias (a bare column's is its name), else EXPR$i. */
typedef struct weir__item_names {
    const char *names[WEIR__LIST_MAX];
    char auto_names[WEIR__LIST_MAX][16];
    int n;
} weir__item_names;
/* Names the next item, e; false (env failed, naming `what`) if another
 * item has that name already. */
bool weir__item_name(weir_table_env *env, const char *what, weir__item_names *nm,
                     const weir_expr *e);

/* Gives t its unique key: a copy of the n columns `cols` (none when n is
 * 0). 0 or WEIR_ENOMEM. */
int weir__table_set_unique_key(weir_table *t, const int *cols, int n);

/* How a column's value moves across the updates of one row (one value
 * of the unique key), Flink's RelModifiedMonotonicity
 * (FlinkRelMdModifiedMonotonicity): what the Rank's update strategy asks
 * of its order keys. Known where weir knows it: a group aggregate of an
 * insert-only input (its keys CONSTANT, COUNT and MAX INCREASING, MIN
 * DECREASING, the rest NOT) and a select's bare columns of it. */
typedef enum weir__mono {
    WEIR__MONO_NOT = 0,
    WEIR__MONO_CONSTANT,
    WEIR__MONO_INCREASING,
    WEIR__MONO_DECREASING
} weir__mono;
/* Column col's monotonicity in t: CONSTANT in an insert-only t. */
weir__mono weir__table_monotonicity(const weir_table *t, int col);
/* Gives t (its schema made) a copy of mono, one per column. 0 or
 * WEIR_ENOMEM. */
int weir__table_set_monotonicity(weir_table *t, const unsigned char *mono);

/* Refuses an updating t where an insert-only stream is wanted, as Flink
 * does: "WHAT: the table T emits [I,UB,UA]: an insert-only stream doesn't
 * support consuming update changes which is produced by node N". NULL. */
void *weir__table_refuse_updates(weir_table *t, const char *what);

/* The node that makes t's updates: going up through nodes that only pass
 * their input's kinds on (Calc, Union), the first whose inputs are all
 * insert-only. */
const weir_table *weir__table_update_producer(const weir_table *t);


/* The window join (table_window_join.c). Whether a join of left and right
 * whose ON equates the column pairs keys[i] (left column, right column) is
 * one, as Flink's WindowJoinUtil decides: 1 (both inputs windowed alike,
 * their window starts and window ends equated), 0 (not one), -1 (refused:
 * env failed). */
int weir__window_join_match(weir_table_env *env, const weir_table *left, const weir_table *right,
                            int nkeys, const int (*keys)[2], const char *cond_text);
/* The window join node (after weir__window_join_match said 1): filter (the
 * rest of ON over schema, may be NULL) and schema, the output's, taken over. */
weir_table *weir__window_join(weir_table *left, weir_table *right, weir_join_kind kind,
                              int nkeys, const int (*keys)[2], weir_expr *filter,
                              weir_schema *schema, const char *cond_text);
/* A window join node's operator and key specs (for a harness), or
 * WEIR_EINVAL when t is not one. */
int weir__window_join_operator(const weir_table *t, weir_process_spec *spec,
                               weir_key_spec keys[2]);

/* Refuses what an OVER aggregate, a rank or a sort cannot read
 * (table_over.c): an updating t, naming `node` and the node of the updates,
 * and, with need_rowtime, t without a rowtime. True when refused. */
bool weir__table_over_input_refused(weir_table *in, const char *what, const char *node,
                                    bool need_rowtime);

/* The largest expression scratch any thread may need; table_window.c
 * evaluates aggregate arguments in a thread-local buffer of this size. */
#define WEIR__TABLE_TLS_SCRATCH 65536u

/* A group key (table_group.c): for each key column its null flag (only if
 * the column may be NULL) and its value bytes (a row's bytes are canonical,
 * so equal values are equal bytes). No keys: one constant byte (a global
 * group). A single NOT NULL BIGINT key is 8 bytes, which the keyed state
 * compares as one word. */
typedef struct weir__key {
    const weir_schema *in;
    int nkeys;
    int keys[WEIR__LIST_MAX];
    bool flag[WEIR__LIST_MAX]; /* the key column carries a null flag */
    size_t size;
} weir__key;

/* Where key column i's flag (if any) and bytes start in the key. */
size_t weir__key_offset(const weir__key *k, int i);

/* Resolves a key list against a schema (NULL after recording an error). */
weir__key *weir__key_plan(weir_table_env *env, const weir_schema *in, const char *keys,
                          const char *what);
void weir__key_extract(const void *elem, void *key, void *arg);
int weir__key_format(const void *key, char *buf, size_t size, void *arg);

/* ---- joins (table_join.c) --------------------------------------------------- */

/* The operator of a join node t, as a spec for a harness (parallelism 1;
 * the impl stays t's), and each input's key. WEIR_EINVAL if t is not a
 * join. */
int weir__table_join_operator(const weir_table *t, weir_process_spec *spec,
                              weir_key_spec keys[2]);

/* ---- aggregate functions (table_agg.c) ------------------------------------ */

typedef struct weir__agg {
    weir_agg_kind kind;
    bool distinct;
    bool list;             /* keeps a count per value (exact retraction, DISTINCT), or
                            * (FIRST_VALUE, LAST_VALUE, LISTAGG) the values in arrival order */
    const weir_expr *arg;  /* NULL for COUNT(*) and functions */
    const weir_expr *filter; /* FILTER (WHERE c): c, or NULL */
    weir__val sep;         /* LISTAGG's separator */
    uint32_t rsize;        /* LISTAGG: bytes of its result (a length and the capacity) */
    uint32_t set_max;      /* COUNT(DISTINCT) in a window: the values its accumulator holds
                            * (sorted, after the count), WEIR__DISTINCT_BYTES / vsize */
    /* WEIR_AGG_FUNCTION: the function, its arguments, and (window
     * aggregates) the input column of each argument */
    const struct weir__function *fn;
    weir_expr *const *args;
    int nargs;
    const int *cols;
    weir_type arg_type;
    weir_type out_type;
    uint32_t slot;         /* offset of its accumulator */
    uint32_t vsize;        /* bytes of one encoded value */
    uint32_t esize;        /* list entries: value + int64 count, 8-aligned */
} weir__agg;

/* The bytes of distinct values a window's COUNT(DISTINCT x) keeps in its
 * accumulator (a window aggregate has no list state): 2048 BIGINTs, 227
 * STRINGs of 64 bytes; one value more fails the job. */
#define WEIR__DISTINCT_BYTES 16384u

/* Lays out n aggregates from their compiled items; `retract` says whether
 * the input may retract (then MIN/MAX keep per-value counts); `window`
 * that they are a window's (no list state: COUNT(DISTINCT) keeps its
 * values in the accumulator). Returns the accumulators' total size. */
uint32_t weir__agg_layout(weir__agg *aggs, int n, const weir_expr *const *items, bool retract,
                          bool window);
/* Folds a value in (sign +1) or out (-1); NULL values are ignored. For a
 * list aggregate, `list` / `count` are its sorted entries (the caller's
 * copy, room for count + 1) and the new count is returned in *count. */
int weir__agg_update(const weir__agg *a, unsigned char *acc, const weir__val *v, int sign,
                     unsigned char *list, size_t *count, const char **why);
/* (Both: 0, or WEIR_ERANGE with a static message in *why: a LISTAGG whose
 * result passed its capacity.) */
int weir__agg_merge(const weir__agg *a, unsigned char *acc, const unsigned char *other,
                    const char **why);
void weir__agg_result(const weir__agg *a, const unsigned char *acc, weir__val *out);
void weir__agg_encode(const weir__agg *a, const weir__val *v, unsigned char *dst);

/* Aggregate functions from C (kind WEIR_AGG_FUNCTION); the others are
 * what the calls above do. Each returns 0, or the failure's code with
 * "NAME: what went wrong" in *why (weir__function_failed). */
/* A new accumulator's slot, zero-filled by the caller: the function's
 * init, if it has one. */
void weir__agg_init(const weir__agg *a, unsigned char *acc);
/* One row's arguments (a->nargs values) in (sign +1: accumulate) or out
 * (-1: retract); a NULL in a NOT NULL parameter skips the row. */
int weir__agg_call(const weir__agg *a, unsigned char *acc, const weir__val *args, int sign,
                   const char **why);
int weir__agg_call_merge(const weir__agg *a, unsigned char *acc, const unsigned char *other,
                         const char **why);
/* The result into *out, a string written into buf (the result type's
 * capacity + 1 bytes) or pointing into the accumulator. */
int weir__agg_call_result(const weir__agg *a, const unsigned char *acc, weir__val *out,
                          char *buf, const char **why);

/* ---- functions from C (table_function.c) ----------------------------------- */

/* A registered function: weir/function.h's definition, copied. Immutable
 * once registered and never freed (compiled expressions point at it). */
typedef struct weir__function {
    char name[64];
    bool aggregate;
    int nargs;
    weir_type arg_types[WEIR_FUNCTION_MAX_ARGS];
    weir_type result_type;
    weir_scalar_fn eval;           /* scalar */
    weir_aggregate_function agg;   /* aggregate: name and arg_types point at the above */
    void *arg;
} weir__function;

/* The function registered under `name` (any case), or NULL. MT safe. */
const weir__function *weir__function_find(const char *name);
/* Whether `name` is a built-in function of the binder (expr_bind.c). */
bool weir__builtin_function(const char *name);
/* Calls each with every built-in function's name (expr_bind.c), whether
 * it is an aggregate: weir_function_list's built-in part. */
void weir__builtin_function_each(void (*each)(const char *name, bool aggregate, void *arg),
                                 void *arg);

/* A callback of f returned r (not 0), with `msg` (maybe empty) written by
 * weir_function_fail: the code to fail with (r if a WEIR_E* code, else
 * WEIR_ECALLBACK), and *why "NAME: msg" in a buffer of the calling thread,
 * valid until its next failure. */
int weir__function_failed(const weir__function *f, int r, const char *msg, const char **why);
/* Checks and normalizes a result of f of type t (the call's type): NULL
 * only where t allows it, a string within its capacity (a CHAR padded in
 * buf, which holds capacity + 1 bytes), a BOOLEAN 0/1, an INT wrapped to
 * 32 bits. 0, or a failure as weir__function_failed. */
int weir__function_result(const weir__function *f, weir_type t, weir__val *v, char *buf,
                          const char **why);

#endif
