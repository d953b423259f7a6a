/* expr_tree.h — a compiled expression's nodes: what the binder
 * (expr_bind.c) makes of a syntax tree and the evaluator (expr_eval.c)
 * walks. Private to the table layer. */
#ifndef WEIR_TABLE_EXPR_TREE_H
#define WEIR_TABLE_EXPR_TREE_H

#include "table_internal.h"

typedef enum weir__eop {
    OP_LIT, OP_COL, OP_NEG, OP_ADD, OP_SUB, OP_MUL, OP_DIV, OP_MOD,
    OP_EQ, OP_NE, OP_LT, OP_LE, OP_GT, OP_GE, /* in this order: ev() tests the range */
    OP_AND, OP_OR, OP_NOT, OP_ISNULL, OP_ISNOTNULL, OP_IN,
    OP_CASE, OP_CAST, OP_COALESCE, OP_CONCAT,
    OP_BUILTIN, /* a built-in scalar function (fn.h) */
    OP_FUNC, /* a scalar function from C */
    OP_FIELD, /* a ROW's field: a the row, col the field, off its offset in the row's value */
    OP_INDEX, /* a[b]: an ARRAY's element (1-based), a MAP's value by key */
    OP_CARD,  /* CARDINALITY(a) */
    OP_CTOR,  /* ROW(...), ARRAY[...], MAP[...]: args, into the scratch at `scratch` */
    OP_AGG
} weir__eop;

struct weir__enode {
    weir__eop op;
    weir_type type;
    weir__enode *a, *b;
    weir__enode **args;  /* IN: the list; CASE: cond, value, ..., [else]; COALESCE */
    int nargs;
    bool has_else;       /* CASE */
    bool implicit;       /* OP_CAST: made by the binder, not written (cast_to) */
    bool try_cast;       /* OP_CAST: TRY_CAST, a value that does not convert is NULL */
    bool negate;         /* NOT IN */
    weir__val lit;       /* OP_LIT */
    char *sbuf;          /* bytes it owns: a string literal's, OP_AGG's argument's text,
                          * OP_CAST's column name (its operand's, for messages) */
    char *ftext;         /* OP_AGG: its FILTER's text (b the condition), or NULL;
                          * lit: LISTAGG's separator */
    int col;             /* OP_COL */
    uint32_t off;        /* OP_COL: offset in the row */
    uint32_t scratch;    /* string results: offset in the scratch */
    uint32_t chars;      /* OP_CAST to a string: the characters it keeps (0: any) */
    weir_agg_kind agg;   /* OP_AGG */
    bool distinct;
    /* OP_FUNC, and OP_AGG of WEIR_AGG_FUNCTION: the function (its
     * arguments in args); OP_FUNC's scratch holds its argument values and
     * its result's bytes. OP_AGG: each argument's text. */
    const weir__function *fn;
    const weir_time_zone *zone; /* OP_CAST between TIMESTAMP_LTZ and a local date-time;
                                 * OP_BUILTIN: the session's (temporal functions) */
    char **arg_texts;
    /* OP_BUILTIN: the function; its scratch region holds its arguments'
     * values, then `room` bytes for its result, then its work bytes (at
     * `work` in the region); what its type rule decided (aux) and made
     * (data, freed with data_free). */
    const struct weir__builtin *bi;
    uint32_t room, work;
    int64_t aux[3];
    void *data;
    void (*data_free)(void *data);
    size_t pos;          /* where a message about it points (0-based byte) */
    weir__enode *next_alloc;
};

/* ---- integer arithmetic (expr_eval.c) --------------------------------------- */

/* a op b (OP_ADD, OP_SUB, OP_MUL, OP_DIV, OP_MOD) of two integers as Java
 * computes them: wrapped to the width of `wrap` (an integer type), MIN / -1
 * wrapping to MIN, MOD's sign the dividend's. 0 with *out, or WEIR_ERANGE
 * with *why "division by zero". The interpreter, the in-place expressions
 * (weir__int_calc) and MOD() share it. */
int weir__int_arith(weir__eop op, weir_type_id wrap, int64_t a, int64_t b, int64_t *out,
                    const char **why);

/* ---- nested values (nested.c) ---------------------------------------------- */

/* Whether a value of nested type `from` converts into nested type `to`
 * (the same shape: a ROW's fields by position, elements whose types are
 * the same but for capacities, or convert without failing); `implicit`: as
 * a sink takes it. */
bool weir__nested_castable(weir_type from, weir_type to);
/* The value at src (of type from) into dst (of type to, zeroed here):
 * 0, or WEIR_ERANGE with *why (more elements than to's capacity, a
 * string longer than its). */
int weir__nested_convert(weir_type from, weir_type to, const unsigned char *src,
                         unsigned char *dst, const char **why);
/* A non-NULL value of type t into its place p, strings too (a CHAR padded,
 * the bytes after a VARCHAR's zeroed: a string's place is written whole);
 * WEIR_ERANGE with *why for one longer than its capacity. */
int weir__slot_store(unsigned char *p, weir_type t, const weir__val *v, const char **why);

/* ---- CAST (expr_cast.c) ---------------------------------------------------- */

/* Whether CAST(x AS to) of an x of type `from` is allowed (Flink's
 * explicit casts); false with Flink's refusal (or "cannot cast A to B")
 * in why. */
bool weir__cast_allowed(weir_type from, weir_type to, char *why, size_t size);
/* Whether the n bytes at s are well-formed UTF-8. */
bool weir__utf8_valid(const char *s, uint32_t n);
/* Evaluates the OP_CAST node n on its operand's value x, into *o (a string
 * into n's region of the scratch sc). 0, or a failure with *why (the
 * value, the column and Flink's reason, in a buffer of the calling
 * thread). */
int weir__cast_eval(const weir__enode *n, const weir__val *x, unsigned char *sc, weir__val *o,
                    const char **why);
/* A value of type `from` as type `to` where neither is a string and the
 * cast cannot fail (numbers, BOOLEAN, datetimes; the implicit casts into
 * a sink), TIMESTAMP_LTZ meeting local date-times in `zone` (NULL: UTC). */
void weir__convert(weir_type from, weir_type to, const weir__val *x, weir__val *o,
                   const weir_time_zone *zone);

#endif
