/* table_join.h — the join engine's configuration, shared by the regular
 * and interval joins (table_join.c, which plans them all), the event-time
 * temporal join's operator (table_temporal_join.c) and the semi and anti
 * joins' (table_semi_join.c) and the window join's (table_window_join.c);
 * the lookup join's planning (table_lookup_join.c) resolves its names here.
 * Internal to table/.
 */
#ifndef WEIR_TABLE_JOIN_H
#define WEIR_TABLE_JOIN_H

#include "table_internal.h"
#include "weir/expr_ast.h"
#include "weir/operator.h"

#define JOIN_MAX_KEYS 64

typedef struct join_side {
    const weir_schema *s;
    int first;          /* its first column in the output row */
    bool outer;         /* padded with NULLs when it has no partner */
    int nkeys;
    int keys[JOIN_MAX_KEYS];
    /* the state's map key: a unique key's bytes (ukey.nkeys > 0), or the row */
    weir__key ukey;
    bool has_ukey;
    bool key_holds_ukey; /* JoinKeyContainsUniqueKey */
    uint32_t mkey_size;
    uint32_t val_size;
    int rowtime;        /* interval and temporal joins: its time column */
    /* its columns' values in the output row lie as in its own row, shifted:
     * copied as one block (weir__join_layout); len 0: column by column */
    uint32_t copy_src, copy_dst, copy_len;
} join_side;

typedef struct join_keyer {
    const struct join_impl *j;
    int side;
} join_keyer;

typedef struct join_key_part {
    weir_type type;  /* the column's type on each side may differ ... */
    bool flag;       /* a null flag byte */
    bool as_bigint;  /* ... as two integer types: compared as BIGINT */
    uint32_t width;  /* value bytes in the key */
} join_key_part;

typedef struct join_impl {
    join_side side[2];
    weir_join_kind kind;
    int nkeys;
    join_key_part part[JOIN_MAX_KEYS];
    size_t key_size;
    join_keyer keyer[2];
    weir_expr *filter; /* over the output row; NULL: none */
    const weir_schema *out;
    bool virtual_clock;
    /* interval join: left.ts - right.ts in [lower, upper] */
    bool interval;
    bool proctime; /* on the job clock (ProcTimeIntervalJoin) */
    int64_t ttl_ms; /* regular join: 'table.exec.state.ttl' of its rows' state (0: none) */
    int64_t side_ttl_ms[2]; /* a side's own (weir_table_join_state_ttl; 0: ttl_ms) */
    int64_t lower, upper;
    int64_t rel_size[2]; /* left: -lower, right: upper */
    int64_t min_cleanup;
    int64_t delay;
    const char *name;
    /* weir_stream_interval_join: elements of the user's streams (not rows),
     * times their record timestamps, pairs handed to fn, no hold-back */
    bool raw;
    size_t elem_size[2];
    weir_interval_join_fn fn;
    void *arg;
    char *own_name;
    /* temporal join (table_temporal_join.c): the right side a versioned
     * table, each left row joined with the version valid at its time */
    bool temporal;
    /* semi and anti joins (table_semi_join.c): the left's columns go out;
     * `out` is the pair's schema, for the condition, owned here */
    weir_schema *pair;
} join_impl;

/* A row's join key into `key` (a weir_key_spec's extract; arg a join_keyer). */
void weir__join_key_extract(const void *elem, void *key, void *arg);
/* Whether a row of side sd has a NULL in its join key (it meets no partner). */
bool weir__join_key_has_null(const join_side *sd, const unsigned char *row);
/* Each side's block copy into j->out (join_side.copy_*): once j->out and
 * the sides' schemas and first columns are set. */
void weir__join_layout(join_impl *j);
/* Side s's columns of the output row `out`: row's, or NULLs (row NULL). */
void weir__join_put_side(const join_impl *j, unsigned char *out, int s, const unsigned char *row);
/* The rest of ON on the pair in the output row `out`: 1 pass, 0 not, < 0
 * failed (ctx failed); scratch is the filter's scratch. */
int weir__join_pair_passes(weir_ctx *ctx, const join_impl *j, unsigned char *out,
                           unsigned char *scratch);

/* Appends the pair (left column lc of ls, right column rc of rs) to j's
 * join key: two integer types compared as BIGINT, two strings at the larger
 * capacity, else the same type. 0, or -1 with env failed ("what: ..."). */
int weir__join_key_add(weir_table_env *env, const char *what, join_impl *j,
                       const weir_schema *ls, int lc, const weir_schema *rs, int rc);
/* 0 if j's join key fits a state key, or -1 with env failed. */
int weir__join_key_fits(weir_table_env *env, const char *what, const join_impl *j);

/* How many inputs of the two scopes (a join's left and right) the column
 * name `a` (a WEIR_AST_NAME) names, with the last one's side and column
 * in the output row. */
int weir__join_name_sides(const weir_expr_scope sc[2], const weir_ast *a, int *side, int *col);

/* The rest of ON, conjuncts rest[0..nrest), as one tree (their AND, made
 * in arena), or NULL (none; or out of memory, *oom then true). */
weir_ast *weir__join_rest_tree(weir_ast_arena **arena, const weir_ast *const *rest, int nrest,
                               bool *oom);

/* t's operator (spec) on left and right keyed by j's join key, its uid in
 * checkpoints "uid_kind-" and a hash of t's name; NULL on failure. */
weir_stream *weir__join_connect(weir_table *t, weir_table *left, weir_table *right,
                               const join_impl *j, const weir_process_spec *spec,
                               const char *uid_kind);

/* A join's output schema: l's columns then r's, names made unique (a, a0,
 * ...), a side padded by an outer join nullable; why on failure. */
weir_schema *weir__join_output_schema(const weir_schema *l, const weir_schema *r,
                                      bool l_nullable, bool r_nullable, const char **why);

/* The temporal join's operator (table_temporal_join.c). */
extern const weir_operator_vtable weir__temporal_join_vtable;
/* The semi and anti joins' operator (table_semi_join.c). */
extern const weir_operator_vtable weir__semi_join_vtable;

#endif
