/* table_lookup_join.c — the lookup join (Flink's LookupJoin with the FULL
 * cache, LookupFullCache, and the filesystem's FileSystemLookupFunction):
 * a one-input operator on the left's stream that looks each row up in a
 * table loaded whole into memory (weir/table.h, weir_table_lookup_join).
 *
 * Planning: the ON condition's conjuncts are sorted into lookup keys, each
 * an equality between a column of the table and an expression of the
 * left's columns only (bound once over the left's schema: a column, a
 * constant, MOD(l.auction, 10000)), and the rest, a filter bound over the
 * output row. A key pair of two integer types is compared as BIGINT, two
 * strings (or two binary strings) by their bytes, FLOAT and DOUBLE by
 * value; other pairs must have the same type (else refused, as a join's
 * key is).
 *
 * The table: one copy per subtask, loaded in open() (and again at each
 * reload, a processing-time timer on the job clock, between two rows) into
 * an array of rows in the table's order and a chained hash index over
 * their lookup keys (head[hash & mask] -> the first row, next[row] -> the
 * next one of that bucket, both in the table's order, so that the rows of
 * one key come out in the order the table has them, as Flink's ALL cache
 * keeps a key's rows in a list). A row with a NULL in its key is kept out
 * of the index (SQL's = is never true for NULL). Why a copy per subtask and
 * not one shared table: the copy needs no coordination at a reload (each
 * subtask swaps its own between two of its rows), nothing on the data path
 * but reads of memory the subtask owns, and the tables a lookup join loads
 * whole are small (Nexmark's side input: 10 000 rows); Flink's
 * LookupCacheManager shares one FULL cache among the subtasks of a
 * TaskManager to save that memory, at the price of a reload thread.
 *
 * Per row: the probe key's expressions are evaluated into values (their
 * strings into the scratch), hashed, and the bucket's chain is walked; no
 * allocation, no lock, no I/O. A failed reload fails the job with the
 * loader's message (the file and line).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "table_internal.h"
#include "table_join.h"
#include "table_lookup_join.h"
#include "weir/error.h"
#include "weir/expr_ast.h"
#include "weir/operator.h"

#define LOOKUP_MAX_KEYS 16
#define LOOKUP_NONE UINT32_MAX

typedef enum key_class {
    KEY_INT,   /* two integer types: as BIGINT */
    KEY_BYTES, /* two strings, two binary strings, a nested type: the bytes */
    KEY_APPROX, /* FLOAT, DOUBLE: by value */
    KEY_SAME   /* the same other type: i, hi and nanos */
} key_class;

typedef struct lookup_key {
    weir_expr *probe; /* over the left's row */
    int col;          /* the table's column */
    key_class cls;
} lookup_key;

typedef struct lookup_impl {
    weir_lookup_source src;
    const weir_schema *right;  /* src.schema */
    const weir_schema *left;
    const weir_schema *out;
    weir_join_kind kind;
    int nkeys;
    lookup_key keys[LOOKUP_MAX_KEYS];
    weir_expr *filter; /* over the output row; NULL: none */
    /* the scratch: each probe's region (its strings stay while the table's
     * rows are compared with them), then the filter's */
    uint32_t probe_off[LOOKUP_MAX_KEYS];
    uint32_t filter_off;
    uint32_t scratch;
    bool virtual_clock;
    bool clock;        /* an expression reads the clock */
    const char *name;
} lookup_impl;

static void lookup_impl_free(void *p)
{
    lookup_impl *j = p;
    if (!j)
        return;
    for (int i = 0; i < j->nkeys; i++)
        weir_expr_destroy(j->keys[i].probe);
    weir_expr_destroy(j->filter);
    if (j->src.arg_free)
        j->src.arg_free(j->src.arg);
    free(j);
}

/* ---- keys ------------------------------------------------------------------------------ */

static uint64_t mix64(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ull;
    x ^= x >> 33;
    return x;
}

static uint64_t hash_part(uint64_t h, key_class cls, const weir__val *v)
{
    switch (cls) {
    case KEY_INT: return mix64(h ^ (uint64_t)v->i);
    case KEY_APPROX: {
        double d = v->d == 0 ? 0 : v->d; /* -0.0 = 0.0 */
        uint64_t b;
        memcpy(&b, &d, 8);
        return mix64(h ^ b);
    }
    case KEY_BYTES: {
        uint64_t f = 1469598103934665603ull; /* FNV-1a */
        for (uint32_t k = 0; k < v->len; k++)
            f = (f ^ (unsigned char)v->s[k]) * 1099511628211ull;
        return mix64(h ^ f ^ v->len);
    }
    case KEY_SAME:
    default:
        return mix64(h ^ (uint64_t)v->i ^ mix64((uint64_t)v->hi ^ ((uint64_t)v->nanos << 17)));
    }
}

static bool part_equal(key_class cls, const weir__val *a, const weir__val *b)
{
    switch (cls) {
    case KEY_INT: return a->i == b->i;
    case KEY_APPROX: return a->d == b->d;
    case KEY_BYTES: return a->len == b->len && memcmp(a->s, b->s, a->len) == 0;
    case KEY_SAME:
    default: return a->i == b->i && a->hi == b->hi && a->nanos == b->nanos;
    }
}

/* A value as its class compares it (an integer of any width as BIGINT). */
static void right_value(const lookup_impl *j, const unsigned char *row, int k, weir__val *v)
{
    *v = (weir__val){0};
    weir__load_value(j->right, row, j->keys[k].col, v);
    if (j->keys[k].cls == KEY_BYTES && weir__type_is_nested(j->right->cols[j->keys[k].col].type.id))
        v->len = weir__nested_size(j->right->cols[j->keys[k].col].type);
}

/* ---- the table ------------------------------------------------------------------------- */

typedef struct lookup_table {
    unsigned char *rows; /* n rows of the table's row size */
    uint32_t n, cap;
    uint32_t *next;      /* per row: the next row of its bucket */
    uint32_t *head;      /* per bucket: its first row */
    uint32_t mask;
} lookup_table;

static void table_free(lookup_table *t)
{
    free(t->rows);
    free(t->next);
    free(t->head);
    memset(t, 0, sizeof *t);
}

typedef struct load_call {
    const lookup_impl *j;
    lookup_table *t;
} load_call;

static int load_row(const void *row, void *arg)
{
    load_call *c = arg;
    lookup_table *t = c->t;
    size_t rs = c->j->right->row_size;
    if (t->n == t->cap) {
        if (t->cap >= (UINT32_MAX - 1) / 2)
            return WEIR_ERANGE;
        uint32_t cap = t->cap ? t->cap * 2 : 64;
        unsigned char *r = realloc(t->rows, (size_t)cap * rs);
        if (!r)
            return WEIR_ENOMEM;
        t->rows = r;
        t->cap = cap;
    }
    unsigned char *dst = t->rows + (size_t)t->n * rs;
    memcpy(dst, row, rs);
    dst[0] = WEIR_ROW_INSERT;
    t->n++;
    return 0;
}

/* The hash of row r's key, false if a part is NULL. */
static bool row_hash(const lookup_impl *j, const unsigned char *row, uint64_t *h)
{
    *h = 0;
    for (int k = 0; k < j->nkeys; k++) {
        weir__val v;
        right_value(j, row, k, &v);
        if (v.null)
            return false;
        *h = hash_part(*h, j->keys[k].cls, &v);
    }
    return true;
}

static int index_rows(const lookup_impl *j, lookup_table *t)
{
    uint32_t buckets = 16;
    while (buckets < 2u * t->n && buckets < (1u << 31))
        buckets *= 2;
    t->head = malloc((size_t)buckets * sizeof *t->head);
    t->next = malloc((size_t)(t->n ? t->n : 1) * sizeof *t->next);
    if (!t->head || !t->next)
        return WEIR_ENOMEM;
    t->mask = buckets - 1;
    for (uint32_t b = 0; b < buckets; b++)
        t->head[b] = LOOKUP_NONE;
    /* from the last row to the first, each pushed in front: every chain
     * in the table's order */
    size_t rs = j->right->row_size;
    for (uint32_t r = t->n; r-- > 0;) {
        uint64_t h;
        t->next[r] = LOOKUP_NONE;
        if (!row_hash(j, t->rows + (size_t)r * rs, &h))
            continue;
        uint32_t b = (uint32_t)h & t->mask;
        t->next[r] = t->head[b];
        t->head[b] = r;
    }
    return 0;
}

/* Loads the table anew into *t: 0, or the job failed. */
static int load_table(weir_ctx *ctx, const lookup_impl *j, lookup_table *t)
{
    memset(t, 0, sizeof *t);
    load_call c = {j, t};
    char err[512] = "";
    int r = j->src.load(j->src.arg, load_row, &c, err, sizeof err);
    if (r == 0)
        r = index_rows(j, t);
    if (r) {
        table_free(t);
        if (!err[0])
            snprintf(err, sizeof err, "%s", r == WEIR_ENOMEM ? "out of memory"
                                            : r == WEIR_ERANGE ? "too many rows"
                                                               : weir_strerror(r));
        return weir_ctx_fail(ctx, r, "loading table %s: %s", j->src.name, err);
    }
    return 0;
}

/* ---- the operator ---------------------------------------------------------------------- */

typedef struct lookup_state {
    lookup_table table;
    unsigned char *out;
    unsigned char *scratch;
    int64_t next_reload; /* the job clock's time of the next reload (reload_ms > 0) */
} lookup_state;

static void lookup_close(weir_ctx *ctx)
{
    lookup_state *st = weir_ctx_state(ctx);
    if (!st)
        return;
    table_free(&st->table);
    free(st->out);
    free(st->scratch);
    free(st);
}

static int arm_reload(weir_ctx *ctx, const lookup_impl *j, lookup_state *st)
{
    st->next_reload = weir_ctx_now(ctx) + j->src.reload_ms;
    return weir_timer_register(ctx, WEIR_PROCESSING_TIME, 0, st->next_reload);
}

static int lookup_open(weir_ctx *ctx)
{
    const lookup_impl *j = weir_ctx_impl(ctx);
    lookup_state *st = calloc(1, sizeof *st);
    if (!st)
        return WEIR_ENOMEM;
    weir_ctx_set_state(ctx, st);
    st->out = calloc(1, j->out->row_size);
    st->scratch = calloc(1, (size_t)j->scratch + 8);
    int r = !st->out || !st->scratch ? weir_ctx_fail(ctx, WEIR_ENOMEM, "out of memory")
                                     : load_table(ctx, j, &st->table);
    if (r == 0 && j->src.reload_ms > 0)
        r = arm_reload(ctx, j, st);
    if (r) { /* close() is not called after a failed open() */
        lookup_close(ctx);
        weir_ctx_set_state(ctx, NULL);
    }
    return r;
}

static int lookup_timer(weir_ctx *ctx, const weir_timer *timer)
{
    const lookup_impl *j = weir_ctx_impl(ctx);
    lookup_state *st = weir_ctx_state(ctx);
    if (timer->domain != WEIR_PROCESSING_TIME || j->src.reload_ms <= 0 ||
        timer->timestamp < st->next_reload)
        return 0; /* one a restore brought back, before this run's own */
    lookup_table fresh;
    int r = load_table(ctx, j, &fresh);
    if (r)
        return r;
    table_free(&st->table);
    st->table = fresh;
    return arm_reload(ctx, j, st);
}

/* The left's columns (row) and the table's (trow; NULL: NULLs) into out. */
static void put_row(const lookup_impl *j, unsigned char *out, const unsigned char *row,
                    const unsigned char *trow)
{
    const weir_schema *l = j->left, *r = j->right;
    for (int c = 0; c < l->ncols; c++) {
        const weir__col *oc = &j->out->cols[c];
        memcpy(out + oc->offset, row + l->cols[c].offset, oc->size);
        weir__row_set_null_bit(out, c, weir__row_null(l, row, c));
    }
    for (int c = 0; c < r->ncols; c++) {
        int o = l->ncols + c;
        const weir__col *oc = &j->out->cols[o];
        if (!trow) {
            memset(out + oc->offset, 0, oc->size);
            weir__row_set_null_bit(out, o, true);
        } else {
            memcpy(out + oc->offset, trow + r->cols[c].offset, oc->size);
            weir__row_set_null_bit(out, o, weir__row_null(r, trow, c));
        }
    }
}

static int lookup_record(weir_ctx *ctx, int input, const void *elem, int64_t ts)
{
    (void)input;
    const lookup_impl *j = weir_ctx_impl(ctx);
    lookup_state *st = weir_ctx_state(ctx);
    const unsigned char *row = elem;
    weir_row_kind kind = weir_row_get_kind(row);
    int64_t now = j->clock ? weir__table_now(ctx, j->virtual_clock) : 0;
    weir__val probe[LOOKUP_MAX_KEYS];
    uint64_t h = 0;
    bool null = false;
    for (int k = 0; k < j->nkeys && !null; k++) {
        const char *why = NULL;
        /* each probe's strings in a region of the scratch of its own */
        int r = weir__expr_eval_now(j->keys[k].probe, row, st->scratch + j->probe_off[k], now,
                                    &probe[k], &why);
        if (r)
            return weir_ctx_fail(ctx, r, "%s: %s in '%s'", j->name, why,
                                 j->keys[k].probe->text);
        null = probe[k].null;
        if (!null) {
            if (j->keys[k].cls == KEY_BYTES &&
                weir__type_is_nested(weir_expr_type(j->keys[k].probe).id))
                probe[k].len = weir__nested_size(weir_expr_type(j->keys[k].probe));
            h = hash_part(h, j->keys[k].cls, &probe[k]);
        }
    }
    int matched = 0;
    const lookup_table *t = &st->table;
    size_t rs = j->right->row_size;
    for (uint32_t r = null ? LOOKUP_NONE : t->head[(uint32_t)h & t->mask]; r != LOOKUP_NONE;
         r = t->next[r]) {
        const unsigned char *trow = t->rows + (size_t)r * rs;
        bool eq = true;
        for (int k = 0; k < j->nkeys && eq; k++) {
            weir__val v;
            right_value(j, trow, k, &v);
            eq = part_equal(j->keys[k].cls, &probe[k], &v);
        }
        if (!eq)
            continue;
        put_row(j, st->out, row, trow);
        if (j->filter) {
            weir__val v;
            const char *why = NULL;
            int e = weir__expr_eval_now(j->filter, st->out, st->scratch + j->filter_off, now, &v,
                                        &why);
            if (e)
                return weir_ctx_fail(ctx, e, "%s: %s in '%s'", j->name, why, j->filter->text);
            if (v.null || !v.i)
                continue;
        }
        st->out[0] = (unsigned char)kind;
        int e = weir_emit(ctx, st->out, ts);
        if (e)
            return e;
        matched++;
    }
    if (matched == 0 && j->kind == WEIR_JOIN_LEFT) {
        put_row(j, st->out, row, NULL);
        st->out[0] = (unsigned char)kind;
        return weir_emit(ctx, st->out, ts);
    }
    return 0;
}

static const weir_operator_vtable lookup_vtable = {
    .version = WEIR_OPERATOR_VTABLE_V1,
    .open = lookup_open,
    .on_record = lookup_record,
    .on_timer = lookup_timer,
    .close = lookup_close,
};

/* ---- planning ---------------------------------------------------------------------------- */

typedef struct lookup_plan {
    weir_table_env *env;
    weir_expr_scope sc[2]; /* the left's inputs; the table's */
    const char *text;
    const char *what;
    lookup_impl *j;
    const weir_ast *rest[WEIR__LIST_MAX];
    int nrest;
    char lookup_text[512]; /* "k=expr, ..." for EXPLAIN */
    size_t lookup_len;
} lookup_plan;

/* Whether every name in `a` is a column of the left alone. */
static bool left_only(const lookup_plan *p, const weir_ast *a)
{
    if (!a)
        return true;
    if (a->kind == WEIR_AST_NAME) {
        int side = -1, col = -1;
        return weir__join_name_sides(p->sc, a, &side, &col) == 1 && side == 0;
    }
    if (!left_only(p, a->a) || !left_only(p, a->b))
        return false;
    for (int i = 0; i < a->nargs; i++)
        if (!left_only(p, a->args[i]))
            return false;
    return true;
}

static void add_rest(lookup_plan *p, const weir_ast *a)
{
    if (p->nrest < WEIR__LIST_MAX)
        p->rest[p->nrest++] = a;
}

/* The class two key types compare in, or false. */
static bool key_class_of(weir_type a, weir_type b, key_class *cls)
{
    if (weir__type_is_integer(a.id) && weir__type_is_integer(b.id))
        *cls = KEY_INT;
    else if (weir__type_is_string(a.id) && weir__type_is_string(b.id))
        *cls = KEY_BYTES;
    else if (weir__type_is_binary(a.id) && weir__type_is_binary(b.id))
        *cls = KEY_BYTES;
    else if (weir__type_is_approx(a.id) && weir__type_is_approx(b.id))
        *cls = KEY_APPROX;
    else if (weir__type_same(a, b))
        *cls = weir__type_is_nested(a.id) ? KEY_BYTES : KEY_SAME;
    else
        return false;
    return true;
}

/* x = y with y a column of the table and x an expression of the left's:
 * a lookup key (1), not one (0), or an error (-1, env failed). */
static int try_key(lookup_plan *p, const weir_ast *x, const weir_ast *y, size_t *err_at)
{
    int side = -1, col = -1;
    if (!y || y->kind != WEIR_AST_NAME || weir__join_name_sides(p->sc, y, &side, &col) != 1 ||
        side != 1 || !left_only(p, x))
        return 0;
    lookup_impl *j = p->j;
    if (j->nkeys >= LOOKUP_MAX_KEYS)
        return 0;
    weir_expr *e = NULL;
    size_t at = 0;
    char msg[512];
    int r = weir_expr_bind(x, p->text, &p->sc[0], -1, NULL, &e, &at, msg, sizeof msg);
    if (r) {
        if (err_at)
            *err_at = at;
        weir__table_fail(p->env, r, "%s", msg);
        return -1;
    }
    weir_type lt = weir_expr_type(e), rt = p->j->right->cols[col].type;
    key_class cls;
    if (!key_class_of(lt, rt, &cls)) {
        char ta[48], tb[48];
        weir_type_format(lt, ta, sizeof ta);
        weir_type_format(rt, tb, sizeof tb);
        weir__table_fail(p->env, WEIR_EINVAL, "%s: the lookup key %s = %s compares %s with %s: "
                         "CAST one side to the other's type", p->what, e->text,
                         j->right->cols[col].name, ta, tb);
        weir_expr_destroy(e);
        return -1;
    }
    if (e->clock_slot >= 0)
        j->clock = true;
    j->keys[j->nkeys++] = (lookup_key){.probe = e, .col = col, .cls = cls};
    int n = snprintf(p->lookup_text + p->lookup_len, sizeof p->lookup_text - p->lookup_len,
                     "%s%s=%s", p->lookup_len ? ", " : "", j->right->cols[col].name, e->text);
    if (n > 0 && p->lookup_len + (size_t)n < sizeof p->lookup_text)
        p->lookup_len += (size_t)n;
    return 1;
}

static int conjunct(lookup_plan *p, const weir_ast *a, size_t *err_at)
{
    if (a->kind == WEIR_AST_BINARY && a->op == WEIR_AST_AND) {
        int r = conjunct(p, a->a, err_at);
        return r ? r : conjunct(p, a->b, err_at);
    }
    if (a->kind == WEIR_AST_BINARY && a->op == WEIR_AST_EQ) {
        int r = try_key(p, a->a, a->b, err_at);
        if (r == 0)
            r = try_key(p, a->b, a->a, err_at);
        if (r)
            return r < 0 ? -1 : 0;
    }
    add_rest(p, a);
    return 0;
}

/* The rest of ON as one tree (AND of the conjuncts), or NULL. */
static weir_ast *rest_tree(lookup_plan *p, weir_ast_arena **arena, bool *oom)
{
    return weir__join_rest_tree(arena, p->rest, p->nrest, oom);
}

static const char *const kind_names[] = {[WEIR_JOIN_INNER] = "InnerJoin",
                                         [WEIR_JOIN_LEFT] = "LeftOuterJoin",
                                         [WEIR_JOIN_RIGHT] = "RightOuterJoin",
                                         [WEIR_JOIN_FULL] = "FullOuterJoin"};

/* Records msg (src's arg freed: the join owns it from the call on). */
static void *refuse(const weir_lookup_source *src, weir_table_env *env, int err, const char *msg)
{
    if (src && src->arg_free)
        src->arg_free(src->arg);
    return weir__table_fail(env, err, "%s", msg);
}

weir_table *weir_table_lookup_join_tree(weir_table *left, const weir_expr_scope *lsc,
                                        const weir_lookup_source *src, const char *qualifier,
                                        weir_join_kind kind, const weir_ast *cond,
                                        const char *text, weir_ast_arena **arena,
                                        size_t *err_at, weir_expr_scope *out_scope)
{
    static const char *what = "weir_table_lookup_join";
    if (!left) {
        if (src && src->arg_free)
            src->arg_free(src->arg);
        return NULL;
    }
    weir_table_env *env = left->env;
    if (!src || !src->schema || !src->load || !src->name || src->reload_ms < 0)
        return refuse(src, env, WEIR_EINVAL, "weir_table_lookup_join: a source with a name, a "
                      "schema and a load function is required (reload_ms 0 or more)");
    if (kind == WEIR_JOIN_RIGHT || kind == WEIR_JOIN_FULL)
        return refuse(src, env, WEIR_EINVAL, kind == WEIR_JOIN_RIGHT
                      ? "Correlate has invalid join type RIGHT"
                      : "Correlate has invalid join type FULL");
    if (kind != WEIR_JOIN_INNER && kind != WEIR_JOIN_LEFT)
        return refuse(src, env, WEIR_EINVAL, "weir_table_lookup_join: unknown join kind");
    if (!cond)
        return refuse(src, env, WEIR_EINVAL, "weir_table_lookup_join: a join condition is "
                      "required");
    if (weir_schema_elem_size(src->schema) != weir_schema_row_size(src->schema))
        return refuse(src, env, WEIR_EINVAL, "weir_table_lookup_join: the table's schema is "
                      "bound to a struct: a lookup table holds rows");
    if (!(left = weir_table_normalize(left))) {
        if (src->arg_free)
            src->arg_free(src->arg);
        return NULL;
    }
    lookup_impl *j = calloc(1, sizeof *j);
    if (!j)
        return refuse(src, env, WEIR_ENOMEM, "weir_table_lookup_join: out of memory");
    j->src = *src;
    j->right = src->schema;
    j->left = left->schema;
    j->kind = kind;
    j->virtual_clock = weir_job_get_config(env->job)->clock == WEIR_CLOCK_VIRTUAL;
    lookup_plan p = {.env = env, .text = text, .what = what, .j = j};
    if (lsc && lsc->ninputs > 0) {
        p.sc[0] = *lsc;
    } else {
        p.sc[0] = (weir_expr_scope){.schema = left->schema, .ninputs = 1};
        p.sc[0].inputs[0].qualifier = left->schema->table;
        p.sc[0].inputs[0].columns = left->schema;
    }
    p.sc[0].schema = left->schema;
    if (!p.sc[0].zone)
        p.sc[0].zone = env->config.time_zone;
    if (p.sc[0].ninputs >= 4) {
        lookup_impl_free(j);
        return weir__table_fail(env, WEIR_EINVAL, "%s: a join of more than 4 tables", what);
    }
    p.sc[1] = (weir_expr_scope){.schema = src->schema, .ninputs = 1,
                                .zone = env->config.time_zone};
    p.sc[1].inputs[0].qualifier = qualifier ? qualifier : src->name;
    p.sc[1].inputs[0].columns = src->schema;
    if (conjunct(&p, cond, err_at)) {
        lookup_impl_free(j);
        return NULL;
    }
    char cond_text[512];
    weir_ast_format(cond, cond_text, sizeof cond_text);
    const char *why;
    weir_schema *schema = weir__join_output_schema(left->schema, src->schema, false,
                                                   kind == WEIR_JOIN_LEFT, &why);
    if (!schema) {
        lookup_impl_free(j);
        return weir__table_fail(env, WEIR_EINVAL, "%s: %s", what, why);
    }
    /* the output's scope: the left's inputs, then the table */
    weir_expr_scope scope = p.sc[0];
    scope.schema = schema;
    scope.inputs[scope.ninputs] = p.sc[1].inputs[0];
    scope.inputs[scope.ninputs].first = left->schema->ncols;
    scope.ninputs++;
    bool oom;
    weir_ast *rest = rest_tree(&p, arena, &oom);
    if (oom) {
        weir_schema_destroy(schema);
        lookup_impl_free(j);
        return weir__table_fail(env, WEIR_ENOMEM, "%s: out of memory", what);
    }
    if (rest) {
        size_t at = 0;
        char msg[1024];
        int r = weir_expr_bind(rest, text, &scope, -1, NULL, &j->filter, &at, msg, sizeof msg);
        if (r == 0 && weir_expr_type(j->filter).id != WEIR_TYPE_BOOLEAN) {
            r = WEIR_EINVAL;
            snprintf(msg, sizeof msg, "%s: the join condition '%s' is not BOOLEAN", what,
                     cond_text);
        } else if (r && err_at) {
            *err_at = at;
        }
        if (r) {
            weir_schema_destroy(schema);
            lookup_impl_free(j);
            return weir__table_fail(env, r, "%s", msg);
        }
        if (j->filter->clock_slot >= 0)
            j->clock = true;
    }
    if (j->nkeys == 0) {
        weir_schema_destroy(schema);
        lookup_impl_free(j);
        return weir__table_fail(env, WEIR_EINVAL, "Temporal table join requires an equality "
                                "condition on fields of table [%s].", src->name);
    }
    uint64_t scratch = 0;
    for (int k = 0; k < j->nkeys; k++) {
        j->probe_off[k] = (uint32_t)scratch;
        scratch += ((uint64_t)j->keys[k].probe->scratch + 7) & ~(uint64_t)7;
        if (scratch > (1u << 30))
            break;
    }
    j->filter_off = (uint32_t)scratch;
    scratch += j->filter ? j->filter->scratch : 0;
    if (scratch > (1u << 30)) {
        weir_schema_destroy(schema);
        lookup_impl_free(j);
        return weir__table_fail(env, WEIR_EINVAL, "%s: the expressions need too much scratch "
                                "memory", what);
    }
    j->scratch = (uint32_t)scratch;
    weir_table *t = rest ? weir__table_node(env, left, "LookupJoin(table=[%s], joinType=[%s], "
                                            "lookup=[%s], where=[%s])", src->name,
                                            kind_names[kind], p.lookup_text, cond_text)
                         : weir__table_node(env, left, "LookupJoin(table=[%s], joinType=[%s], "
                                            "lookup=[%s])", src->name, kind_names[kind],
                                            p.lookup_text);
    if (!t) {
        weir_schema_destroy(schema);
        lookup_impl_free(j);
        return NULL;
    }
    t->schema = schema;
    t->impl = j;
    t->impl_free = lookup_impl_free;
    j->out = schema;
    j->name = t->name;
    t->mode = left->mode;
    t->rowtime = left->rowtime;
    t->proctime = left->proctime;
    t->rowtime2 = left->rowtime2;
    if (out_scope)
        *out_scope = scope;
    char extra[160];
    snprintf(extra, sizeof extra, "\"join_type\":\"%s\",\"lookup_keys\":%d,\"reload_ms\":%lld",
             kind_names[kind], j->nkeys, (long long)src->reload_ms);
    weir_process_spec spec = {
        .name = t->name,
        .kind = "table_lookup_join",
        .vtable = &lookup_vtable,
        .impl = j,
        .out_size = schema->row_size,
        .parallelism = env->config.parallelism ? env->config.parallelism
                                               : WEIR_PARALLELISM_INHERIT,
        .accounting = WEIR_ACCOUNTING_ANY,
        .settings_json = weir__table_settings(t, extra),
    };
    t->stream = weir_stream_process(left->stream, &spec);
    return t->stream ? t : NULL;
}

weir_table *weir_table_lookup_join(weir_table *left, const weir_lookup_source *src,
                                   weir_join_kind kind, const char *condition)
{
    if (!left) {
        if (src && src->arg_free)
            src->arg_free(src->arg);
        return NULL;
    }
    weir_table_env *env = left->env;
    if (!condition)
        return refuse(src, env, WEIR_EINVAL, "weir_table_lookup_join: a join condition is "
                      "required");
    weir_ast_arena *arena = NULL;
    weir_ast *ast;
    size_t end = 0, at = 0;
    char msg[256];
    int r = weir_ast_parse(&arena, condition, 0, &ast, &end, &at, msg, sizeof msg);
    if (r == 0 && condition[end] != 0) {
        r = WEIR_EINVAL;
        snprintf(msg, sizeof msg, "unexpected '%s' after the condition", condition + end);
    }
    weir_table *t = NULL;
    if (r) {
        char m[300];
        snprintf(m, sizeof m, "weir_table_lookup_join: %s", msg);
        refuse(src, env, r, m);
    } else
        t = weir_table_lookup_join_tree(left, NULL, src, NULL, kind, ast, condition, &arena,
                                        NULL, NULL);
    weir_ast_arena_free(&arena);
    return t;
}

int weir__table_lookup_join_operator(const weir_table *t, weir_process_spec *spec)
{
    if (!t || t->impl_free != lookup_impl_free)
        return WEIR_EINVAL;
    const lookup_impl *j = t->impl;
    *spec = (weir_process_spec){
        .name = t->name,
        .kind = "table_lookup_join",
        .vtable = &lookup_vtable,
        .impl = (void *)j,
        .out_size = t->schema->row_size,
        .parallelism = 1,
        .accounting = WEIR_ACCOUNTING_ANY,
    };
    return 0;
}
