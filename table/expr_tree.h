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
    bool negate;         /* NOT IN */
    weir__val lit;       /* OP_LIT */
    char *sbuf;          /* bytes it owns: a string literal's, or OP_AGG's argument's text */
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

#endif
