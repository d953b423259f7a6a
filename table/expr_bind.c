/* expr_bind.c — the binder of the expression language (weir/expr_ast.h):
 * a syntax tree and the names it is read in (a schema, its inputs) made
 * into a compiled expression (weir/expr.h) — names resolved to row
 * offsets, every node typed by Flink's rules, implicit conversions made
 * explicit CAST nodes (so an ADD node of type BIGINT knows both operands are
 * BIGINT), and each string result given its own region of a scratch buffer
 * sized here (a || b writes at most cap a + cap b bytes). The evaluator
 * (expr_eval.c) then walks it with no lookups, no parsing and no
 * allocation; the caller owns the scratch (one per subtask), so one
 * compiled expression serves every thread at once.
 *
 * weir_expr_compile is the parser (expr_ast.c) and this binder in one call:
 * the table API's expression strings and SQL's statements are read by the
 * same parser and bound by the same rules.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "decimal.h"
#include "fn.h"
#include "weir/error.h"
#include "weir/expr_ast.h"

typedef struct weir__binder {
    const char *text; /* the text the tree was parsed from, or NULL */
    const weir_expr_scope *scope;
    const weir_schema *schema;
    const weir_time_zone *zone; /* TIMESTAMP_LTZ's local zone (NULL: UTC) */
    weir_expr *e;
    weir__expr_error error;
    int naggs;
    weir__enode *first_agg;
    const weir_ast *in_agg; /* the aggregate call whose argument is being bound */
} binder;

#define berr(p, at, ...) weir__expr_fail(&(p)->error, (at), __VA_ARGS__)
#define nomem(p) weir__expr_nomem(&(p)->error)

/* ---- nodes ---------------------------------------------------------------------- */

static weir__enode *node(binder *p, weir__eop o, size_t pos)
{
    if (p->error.failed)
        return NULL;
    weir__enode *n = calloc(1, sizeof *n);
    if (!n) {
        nomem(p);
        return NULL;
    }
    n->op = o;
    n->pos = pos;
    n->col = -1;
    n->next_alloc = p->e->nodes;
    p->e->nodes = n;
    return n;
}

static uint32_t scratch(binder *p, uint32_t bytes)
{
    uint32_t at = p->e->scratch;
    p->e->scratch += (bytes + 7u) & ~7u;
    return at;
}

static const char *tname(weir_type t, char *buf)
{
    t.not_null = false;
    if (weir_type_format(t, buf, 48) >= 48)
        memcpy(buf + 44, "...", 4); /* a long nested type, cut in a message only */
    return buf;
}

static weir_type mk(weir_type_id id, bool not_null)
{
    weir_type t = {.id = id, .not_null = not_null};
    return t;
}

/* Capacity a value of type t needs as text (CAST to string). */
static uint32_t text_cap(weir_type t)
{
    switch (t.id) {
    case WEIR_TYPE_BOOLEAN: return 5;
    case WEIR_TYPE_TINYINT: return 4;
    case WEIR_TYPE_SMALLINT: return 6;
    case WEIR_TYPE_INT: return 11;
    case WEIR_TYPE_FLOAT: return 16;
    case WEIR_TYPE_BIGINT:
    case WEIR_TYPE_INTERVAL: return 20;
    case WEIR_TYPE_DOUBLE: return 32;
    case WEIR_TYPE_TIMESTAMP:
    case WEIR_TYPE_TIMESTAMP_LTZ: return 29; /* 2024-01-05 10:00:00.123456789 */
    case WEIR_TYPE_DATE: return 11;          /* and a 5-digit year's sign */
    case WEIR_TYPE_DECIMAL: return (uint32_t)weir_type_precision(t) + 3; /* -0.ddd */
    case WEIR_TYPE_TIME: return 12;
    case WEIR_TYPE_VARCHAR:
    case WEIR_TYPE_CHAR:
    case WEIR_TYPE_VARBINARY:
    case WEIR_TYPE_BINARY: return t.capacity; /* bytes as UTF-8 text: as many */
    default: return 4;
    }
}

/* A CAST node to `to`, or n itself if it already has that type. */
/* A number's CAST of a non-NULL number literal (c, bound) becomes the
 * literal of its value, worked out once here instead of for every row; a
 * cast that fails (out of range) stays, to fail the row as it does. The
 * node keeps `implicit`: an implicit conversion's literal is still typed
 * apart from its text (weir_expr.typed_apart). */
static weir__enode *fold_cast(weir__enode *c)
{
    const weir__enode *x = c->a;
    weir_type_id from = x->type.id, to = c->type.id;
    bool num_from = weir__type_is_numeric(from) || from == WEIR_TYPE_BOOLEAN;
    if (x->op != OP_LIT || x->lit.null || c->try_cast || !num_from || !weir__type_is_numeric(to))
        return c;
    weir__val v;
    const char *why = NULL;
    if (weir__cast_eval(c, &x->lit, NULL, &v, &why) != 0 || v.null)
        return c;
    c->op = OP_LIT;
    c->lit = v;
    c->a = NULL; /* still freed with the expression's nodes */
    return c;
}

static weir__enode *cast_to(binder *p, weir__enode *n, weir_type to)
{
    if (!n)
        return NULL;
    if (weir__type_same(n->type, to))
        return n;
    weir__enode *c = node(p, OP_CAST, n->pos);
    if (!c)
        return NULL;
    c->a = n;
    c->type = to;
    c->type.not_null = n->type.not_null;
    c->implicit = true;
    c->zone = p->zone;
    if (weir__type_is_var(to.id))
        c->scratch = scratch(p, to.capacity > text_cap(n->type) ? to.capacity : text_cap(n->type));
    return fold_cast(c);
}

/* A NULL literal takes the type of what it meets. */
static void retype_null(weir__enode *n, weir_type t)
{
    if (n && n->op == OP_LIT && n->type.id == WEIR_TYPE_NULL) {
        n->type = t;
        n->type.not_null = false;
    }
}

/* Brings a and b to one comparable type; false (with an error) if none. */
static bool unify(binder *p, weir__enode **a, weir__enode **b, size_t pos, const char *what)
{
    if (!*a || !*b)
        return false;
    retype_null(*a, (*b)->type);
    retype_null(*b, (*a)->type);
    weir_type_id x = (*a)->type.id, y = (*b)->type.id;
    if (x == WEIR_TYPE_NULL && y == WEIR_TYPE_NULL)
        return true;
    if (x == WEIR_TYPE_DECIMAL && y == WEIR_TYPE_DECIMAL)
        return true; /* two scales compare exactly as they are */
    weir_type_id other = x == WEIR_TYPE_DECIMAL ? y : x;
    if ((x == WEIR_TYPE_DECIMAL || y == WEIR_TYPE_DECIMAL) && weir__type_is_integer(other)) {
        /* an integer meets a DECIMAL as the DECIMAL of its digits (exact) */
        if (x != WEIR_TYPE_DECIMAL)
            *a = cast_to(p, *a, weir__type_as_decimal((*a)->type));
        else
            *b = cast_to(p, *b, weir__type_as_decimal((*b)->type));
        return *a && *b;
    }
    if (weir__type_is_numeric(x) && weir__type_is_numeric(y)) {
        weir_type t;
        weir_type_common((*a)->type, (*b)->type, &t); /* a DECIMAL with FLOAT: DOUBLE */
        t.not_null = false;
        *a = cast_to(p, *a, t);
        *b = cast_to(p, *b, t);
        return *a && *b;
    }
    if ((weir__type_is_string(x) && weir__type_is_string(y)) ||
        (weir__type_is_binary(x) && weir__type_is_binary(y)))
        return true;
    if ((weir__type_is_nested(x) || weir__type_is_nested(y)) &&
        weir__type_same((*a)->type, (*b)->type))
        return true; /* nested values compare by their bytes (canonical) */
    if (x == y && !weir__type_is_nested(x))
        return true; /* two TIMESTAMPs of any precisions compare as they are */
    if (weir__type_is_time(x) && weir__type_is_time(y)) {
        /* a TIMESTAMP meets a TIMESTAMP_LTZ in the local zone (Flink's
         * common type, the zoned one) */
        if (x == WEIR_TYPE_TIMESTAMP)
            *a = cast_to(p, *a, weir__type_time(WEIR_TYPE_TIMESTAMP_LTZ,
                                                weir_type_precision((*a)->type), false));
        else
            *b = cast_to(p, *b, weir__type_time(WEIR_TYPE_TIMESTAMP_LTZ,
                                                weir_type_precision((*b)->type), false));
        return *a && *b;
    }
    if ((x == WEIR_TYPE_DATE && weir__type_is_time(y)) ||
        (y == WEIR_TYPE_DATE && weir__type_is_time(x))) {
        /* a DATE is its midnight (Calcite's comparison coercion) */
        if (x == WEIR_TYPE_DATE)
            *a = cast_to(p, *a, weir__type_time(y, 0, false));
        else
            *b = cast_to(p, *b, weir__type_time(x, 0, false));
        return *a && *b;
    }
    char t1[48], t2[48];
    berr(p, pos, "cannot %s %s with %s", what, tname((*a)->type, t1), tname((*b)->type, t2));
    return false;
}

/* The common type of the values in `slots` (a CASE's results, COALESCE's
 * arguments), each then cast to it: weir_type_common's (Flink's
 * LogicalTypeMerging: numbers widen, strings make a VARCHAR of the largest
 * capacity, a TIMESTAMP and a TIMESTAMP_LTZ a TIMESTAMP_LTZ, other types
 * must be the same); a mismatch fails as "`what` of A and B". All
 * NULL-typed: `if_null`. `not_null` is the result's nullability. */
static bool common_type(binder *p, weir__enode **const *slots, int nv, weir_type if_null,
                        bool not_null, const char *what, weir_type *out)
{
    weir_type rt = mk(WEIR_TYPE_NULL, false);
    for (int j = 0; j < nv; j++) {
        const weir__enode *v = *slots[j];
        weir_type c;
        if (!weir_type_common(rt, v->type, &c)) {
            char t1[48], t2[48];
            berr(p, v->pos, "%s of %s and %s", what, tname(rt, t1), tname(v->type, t2));
            return false;
        }
        rt = c;
    }
    if (rt.id == WEIR_TYPE_NULL)
        rt = if_null;
    if (rt.id == WEIR_TYPE_VARCHAR && rt.capacity == 0)
        rt.capacity = 1;
    rt.not_null = not_null;
    for (int j = 0; j < nv; j++) {
        retype_null(*slots[j], rt);
        *slots[j] = cast_to(p, *slots[j], rt);
    }
    *out = rt;
    return !p->error.failed;
}

/* ---- binding ----------------------------------------------------------------------- */

static weir__enode *bind(binder *p, const weir_ast *a);
static weir__enode *field_of(binder *p, weir__enode *x, const char *name, size_t at);
static bool input_named(const weir_expr_scope *sc, const char *q);
static bool column_named(const binder *p, const char *c);
static char *node_text(const char *text, const weir_ast *a);
static char *dupn(const char *s, size_t n);

/* An integer literal: an INT, or a BIGINT when it does not fit. */
static weir__enode *bind_int(binder *p, const weir_ast *a)
{
    weir__enode *n = node(p, OP_LIT, a->start);
    if (!n)
        return NULL;
    errno = 0;
    char *end;
    unsigned long long v = strtoull(a->text, &end, 10);
    if (errno || *end || v > (unsigned long long)INT64_MAX) {
        /* past BIGINT: a DECIMAL of its digits (Calcite), up to 38 */
        const char *d = a->text;
        while (*d == '0' && d[1])
            d++;
        weir__i128 x;
        size_t len = strlen(d);
        if (len > 38 || weir__dec_parse(d, len, 38, 0, &x)) {
            berr(p, a->start, "Numeric literal '%s' out of range", a->text);
            return NULL;
        }
        weir__dec_set(&n->lit, x);
        n->type = weir__type_decimal((int)len, 0, true);
        return n;
    }
    n->lit.i = (int64_t)v;
    n->type = mk(v <= INT32_MAX ? WEIR_TYPE_INT : WEIR_TYPE_BIGINT, true);
    return n;
}

static weir__enode *bind_literal(binder *p, const weir_ast *a)
{
    weir__enode *n = node(p, OP_LIT, a->start);
    if (!n)
        return NULL;
    switch (a->kind) {
    case WEIR_AST_DECIMAL:
        if (strpbrk(a->text, "eE")) {
            /* 1.5E3: an approximate literal, a DOUBLE */
            n->lit.d = strtod(a->text, NULL);
            n->type = mk(WEIR_TYPE_DOUBLE, true);
            break;
        } else {
            /* 1.50: an exact one, DECIMAL(3, 2) (BigDecimal's precision, at
             * least its scale: 0.001 is DECIMAL(3, 3)) */
            const char *dot = strchr(a->text, '.');
            int scale = dot ? (int)strlen(dot + 1) : 0, digits = 0;
            bool lead = true;
            for (const char *c = a->text; *c; c++) {
                if (*c == '.' || (lead && *c == '0'))
                    continue;
                lead = false;
                digits++;
            }
            int prec = digits > scale ? digits : scale;
            if (prec == 0)
                prec = 1;
            weir__i128 x;
            if (prec > 38 || weir__dec_parse(a->text, strlen(a->text), prec, scale, &x)) {
                berr(p, a->start, "Numeric literal '%s' out of range", a->text);
                return NULL;
            }
            weir__dec_set(&n->lit, x);
            n->type = weir__type_decimal(prec, scale, true);
        }
        break;
    case WEIR_AST_STRING:
        /* a VARCHAR of its own length */
        if (!(n->sbuf = malloc((size_t)a->len + 1))) {
            nomem(p);
            return NULL;
        }
        memcpy(n->sbuf, a->text, (size_t)a->len + 1);
        n->lit.s = n->sbuf;
        n->lit.len = a->len;
        n->type = mk(WEIR_TYPE_VARCHAR, true);
        n->type.capacity = a->len ? a->len : 1;
        break;
    case WEIR_AST_BOOLEAN:
        n->lit.i = a->value != 0;
        n->type = mk(WEIR_TYPE_BOOLEAN, true);
        break;
    case WEIR_AST_INTERVAL:
        n->lit.i = a->value;
        n->type = mk(WEIR_TYPE_INTERVAL, true);
        break;
    case WEIR_AST_INTERVAL_YM:
        n->lit.i = a->value;
        n->type = mk(WEIR_TYPE_INTERVAL_YM, true);
        break;
    case WEIR_AST_TYPED: {
        /* Calcite's literals: their precision the fraction's digits, and
         * its message for text that is not one */
        int digits = 0, r = 0;
        weir_type_id id = (weir_type_id)a->value;
        if (id == WEIR_TYPE_BINARY) {
            /* below */
        } else if (id == WEIR_TYPE_DATE) {
            r = weir__parse_date(a->text, a->len, &n->lit.i);
        } else if (id == WEIR_TYPE_TIME) {
            r = weir__parse_time(a->text, a->len, &n->lit.i, &digits);
        } else {
            r = weir__parse_timestamp(a->text, a->len, &n->lit.i, &n->lit.nanos, &digits);
            if (r == 0 && !memchr(a->text, ' ', a->len))
                r = WEIR_EFORMAT; /* a date alone, or a 'T' */
        }
        if (id == WEIR_TYPE_BINARY) {
            /* X'0a0B': a BINARY of its bytes (an empty one a VARBINARY) */
            if (a->len % 2) {
                berr(p, a->start, "Binary literal string must contain an even number of "
                                  "hexits");
                return NULL;
            }
            if (!(n->sbuf = malloc((size_t)a->len / 2 + 1))) {
                nomem(p);
                return NULL;
            }
            for (uint32_t k = 0; k < a->len; k += 2) {
                char h[3] = {a->text[k], a->text[k + 1], 0};
                char *e;
                long v = strtol(h, &e, 16);
                if (*e || !isxdigit((unsigned char)h[0])) {
                    berr(p, a->start, "Illegal binary string literal X'%s'", a->text);
                    return NULL;
                }
                n->sbuf[k / 2] = (char)v;
            }
            n->lit.s = n->sbuf;
            n->lit.len = a->len / 2;
            n->type = mk(a->len ? WEIR_TYPE_BINARY : WEIR_TYPE_VARBINARY, true);
            n->type.capacity = a->len ? a->len / 2 : 1;
            break;
        }
        if (r) {
            berr(p, a->start, "Illegal %s literal '%s': not in format '%s'",
                 id == WEIR_TYPE_DATE ? "DATE" : id == WEIR_TYPE_TIME ? "TIME" : "TIMESTAMP",
                 a->text,
                 id == WEIR_TYPE_DATE   ? "yyyy-MM-dd"
                 : id == WEIR_TYPE_TIME ? "HH:mm:ss"
                                        : "yyyy-MM-dd HH:mm:ss");
            return NULL;
        }
        n->type = id == WEIR_TYPE_DATE ? mk(id, true) : weir__type_time(id, digits, true);
        break;
    }
    default: /* NULL */
        n->lit.null = true;
        n->type = mk(WEIR_TYPE_NULL, false);
        break;
    }
    return n;
}

/* A column by its name in the scope, with a hint for a name that is close
 * to one. */
static weir__enode *bind_name(binder *p, const weir_ast *a)
{
    const weir_schema *s = p->schema;
    const weir_expr_scope *sc = p->scope;
    int ninputs = sc->ninputs ? sc->ninputs : 1;
    int found = -1, found_in = -1, qualified = 0;
    if (a->qualifier && !input_named(sc, a->qualifier) && column_named(p, a->qualifier)) {
        /* r.a: field a of the ROW column r (no table is called r) */
        weir_ast base = *a;
        base.qualifier = NULL;
        base.text = a->qualifier;
        weir__enode *x = bind_name(p, &base);
        return x ? field_of(p, x, a->text, a->start + strlen(a->qualifier) + 1) : NULL;
    }
    for (int k = 0; k < ninputs; k++) {
        const weir_schema *in = sc->ninputs ? sc->inputs[k].columns : s;
        int first = sc->ninputs ? sc->inputs[k].first : 0;
        const char *q = sc->ninputs ? sc->inputs[k].qualifier : NULL;
        if (a->qualifier && (!q || strcmp(q, a->qualifier) != 0))
            continue;
        qualified++;
        /* by hand, not weir_schema_column_index: schema building binds a
         * watermark, and the binder calls nothing of table_schema.c back */
        int c = 0;
        while (c < in->ncols && strcmp(in->cols[c].name, a->text) != 0)
            c++;
        if (c == in->ncols)
            continue;
        if (found >= 0) {
            const char *q0 = sc->inputs[found_in].qualifier;
            berr(p, a->start, "column '%s' is ambiguous: it is a column of %s and of %s (name "
                              "one with its table: %s.%s)",
                 a->text, q0 ? q0 : "one input", q ? q : "another", q0 ? q0 : "t", a->text);
            return NULL;
        }
        found = first + c;
        found_in = k;
    }
    if (a->qualifier && !qualified) {
        if (sc->ninputs)
            berr(p, a->start, "unknown table '%s' in '%s.%s'", a->qualifier, a->qualifier,
                 a->text);
        else
            berr(p, a->start, "'%s.%s': a column of one table is named alone here ('%s')",
                 a->qualifier, a->text, a->text);
        return NULL;
    }
    if (found < 0 || found >= s->ncols) {
        /* A hint: the closest name, within two edits (case aside). */
        const char *hint = NULL;
        int best = 3;
        for (int k = 0; k < ninputs; k++) {
            const weir_schema *in = sc->ninputs ? sc->inputs[k].columns : s;
            const char *q = sc->ninputs ? sc->inputs[k].qualifier : NULL;
            if (a->qualifier && (!q || strcmp(q, a->qualifier) != 0))
                continue;
            for (int i = 0; i < in->ncols; i++) {
                int d = weir__edit_distance(in->cols[i].name, a->text);
                if (d < best) {
                    best = d;
                    hint = in->cols[i].name;
                }
            }
        }
        if (hint)
            berr(p, a->start, "unknown column '%s' (did you mean '%s'?)", a->text, hint);
        else
            berr(p, a->start, "unknown column '%s' in table %s", a->text,
                 a->qualifier ? a->qualifier : s->table);
        return NULL;
    }
    weir__enode *n = node(p, OP_COL, a->start);
    if (!n)
        return NULL;
    n->col = found;
    n->off = s->cols[found].offset;
    n->type = s->cols[found].type;
    return n;
}

static weir__enode *bind_neg(binder *p, const weir_ast *a)
{
    weir__enode *x = bind(p, a->a);
    if (!x)
        return NULL;
    if (x->op == OP_LIT && !x->lit.null && x->type.id != WEIR_TYPE_NULL &&
        (weir__type_is_numeric(x->type.id) || weir__type_is_interval(x->type.id))) {
        /* Fold: -2147483648 is an INT. */
        if (weir__type_is_approx(x->type.id)) {
            x->lit.d = -x->lit.d;
        } else if (x->type.id == WEIR_TYPE_DECIMAL) {
            weir__dec_set(&x->lit, -weir__dec_get(&x->lit));
        } else {
            x->lit.i = (int64_t)(0 - (uint64_t)x->lit.i);
            if (x->type.id == WEIR_TYPE_BIGINT && x->lit.i >= INT32_MIN)
                x->type.id = WEIR_TYPE_INT;
        }
        x->pos = a->start;
        return x;
    }
    if (!weir__type_is_numeric(x->type.id) && !weir__type_is_interval(x->type.id) &&
        x->type.id != WEIR_TYPE_NULL) {
        char t1[48];
        berr(p, a->start, "cannot negate %s", tname(x->type, t1));
        return NULL;
    }
    weir__enode *n = node(p, OP_NEG, a->start);
    if (n) {
        n->a = x;
        n->type = x->type;
    }
    return n;
}

static weir__enode *arith(binder *p, weir__eop o, weir__enode *a, weir__enode *b, size_t pos)
{
    if (!a || !b)
        return NULL;
    static const char *names[] = {[OP_ADD] = "+", [OP_SUB] = "-", [OP_MUL] = "*",
                                  [OP_DIV] = "/", [OP_MOD] = "%"};
    retype_null(a, b->type);
    retype_null(b, a->type);
    weir_type_id x = a->type.id, y = b->type.id;
    weir__enode *n = node(p, o, pos);
    if (!n)
        return NULL;
    bool nn = a->type.not_null && b->type.not_null;
    if (weir__type_is_numeric(x) && weir__type_is_numeric(y)) {
        if (o == OP_MOD && (weir__type_is_approx(x) || weir__type_is_approx(y))) {
            berr(p, pos, "%% needs integers");
            return NULL;
        }
        if ((x == WEIR_TYPE_DECIMAL || y == WEIR_TYPE_DECIMAL) && !weir__type_is_approx(x) &&
            !weir__type_is_approx(y)) {
            /* DECIMAL arithmetic: integers as the DECIMAL of their digits,
             * the result's type as Flink's LogicalTypeMerging; nullable, a
             * result that does not fit it being NULL */
            a = cast_to(p, a, weir__type_as_decimal(a->type));
            b = cast_to(p, b, weir__type_as_decimal(b->type));
            if (!a || !b)
                return NULL;
            n->type = weir__decimal_result(o == OP_ADD   ? '+'
                                           : o == OP_SUB ? '-'
                                           : o == OP_MUL ? '*'
                                           : o == OP_DIV ? '/'
                                                         : '%',
                                           a->type, b->type);
        } else {
            if (!unify(p, &a, &b, pos, names[o]))
                return NULL;
            n->type = mk(a->type.id, nn);
        }
    } else if ((o == OP_ADD || o == OP_SUB) && weir__type_is_datetime(x) &&
               weir__type_is_interval(y) && !(x == WEIR_TYPE_TIME && y == WEIR_TYPE_INTERVAL_YM)) {
        /* datetime +- interval keeps the datetime's type (Calcite's
         * SqlTimestampAddFunction.deduceType) */
        n->type = a->type;
        n->type.not_null = nn;
    } else if (o == OP_ADD && weir__type_is_interval(x) && weir__type_is_datetime(y) &&
               !(y == WEIR_TYPE_TIME && x == WEIR_TYPE_INTERVAL_YM)) {
        /* interval + datetime: the datetime first */
        weir__enode *t = a;
        a = b;
        b = t;
        n->type = a->type;
        n->type.not_null = nn;
    } else if ((o == OP_ADD || o == OP_SUB) && x == y && weir__type_is_interval(x)) {
        n->type = mk(x, nn);
    } else {
        char t1[48], t2[48];
        berr(p, pos, "cannot apply '%s' to %s and %s", names[o], tname(a->type, t1),
             tname(b->type, t2));
        return NULL;
    }
    n->a = a;
    n->b = b;
    return n;
}

static weir__enode *concat(binder *p, weir__enode *a, weir__enode *b, size_t pos)
{
    if (!a || !b)
        return NULL;
    retype_null(a, mk(WEIR_TYPE_VARCHAR, false));
    retype_null(b, mk(WEIR_TYPE_VARCHAR, false));
    if (a->type.id == WEIR_TYPE_VARCHAR && a->type.capacity == 0)
        a->type.capacity = 1;
    if (b->type.id == WEIR_TYPE_VARCHAR && b->type.capacity == 0)
        b->type.capacity = 1;
    if (!weir__type_is_string(a->type.id) || !weir__type_is_string(b->type.id)) {
        char t1[48], t2[48];
        berr(p, pos, "cannot apply '||' to %s and %s", tname(a->type, t1), tname(b->type, t2));
        return NULL;
    }
    weir__enode *n = node(p, OP_CONCAT, pos);
    if (!n)
        return NULL;
    n->a = a;
    n->b = b;
    n->type = mk(WEIR_TYPE_VARCHAR, a->type.not_null && b->type.not_null);
    uint64_t cap = (uint64_t)a->type.capacity + b->type.capacity;
    if (cap > WEIR_STRING_MAX_CAPACITY) {
        berr(p, pos, "'||' result longer than %u", WEIR_STRING_MAX_CAPACITY);
        return NULL;
    }
    n->type.capacity = (uint32_t)cap;
    n->scratch = scratch(p, n->type.capacity);
    return n;
}

static weir__enode *compare(binder *p, weir__eop o, weir__enode *a, weir__enode *b, size_t pos)
{
    if (!unify(p, &a, &b, pos, "compare"))
        return NULL;
    if (weir__type_is_nested(a->type.id) && o != OP_EQ && o != OP_NE) {
        char t1[48];
        berr(p, pos, "cannot order values of %s: only = and <> compare them", tname(a->type, t1));
        return NULL;
    }
    weir__enode *n = node(p, o, pos);
    if (!n)
        return NULL;
    n->a = a;
    n->b = b;
    n->type = mk(WEIR_TYPE_BOOLEAN, a->type.not_null && b->type.not_null);
    return n;
}

static weir__enode *want_bool(binder *p, weir__enode *x, const char *what)
{
    if (!x)
        return NULL;
    retype_null(x, mk(WEIR_TYPE_BOOLEAN, false));
    if (x->type.id != WEIR_TYPE_BOOLEAN) {
        char t1[48];
        berr(p, x->pos, "%s needs a BOOLEAN, not %s", what, tname(x->type, t1));
        return NULL;
    }
    return x;
}

static weir__enode *logic(binder *p, weir__eop o, weir__enode *a, weir__enode *b, size_t pos)
{
    const char *w = o == OP_AND ? "AND" : "OR";
    a = want_bool(p, a, w);
    b = want_bool(p, b, w);
    if (!a || !b)
        return NULL;
    weir__enode *n = node(p, o, pos);
    if (n) {
        n->a = a;
        n->b = b;
        n->type = mk(WEIR_TYPE_BOOLEAN, a->type.not_null && b->type.not_null);
    }
    return n;
}

static weir__enode *bind_binary(binder *p, const weir_ast *a)
{
    static const weir__eop ops[] = {
        [WEIR_AST_ADD] = OP_ADD, [WEIR_AST_SUB] = OP_SUB, [WEIR_AST_MUL] = OP_MUL,
        [WEIR_AST_DIV] = OP_DIV, [WEIR_AST_MOD] = OP_MOD, [WEIR_AST_CONCAT] = OP_CONCAT,
        [WEIR_AST_EQ] = OP_EQ,   [WEIR_AST_NE] = OP_NE,   [WEIR_AST_LT] = OP_LT,
        [WEIR_AST_LE] = OP_LE,   [WEIR_AST_GT] = OP_GT,   [WEIR_AST_GE] = OP_GE,
        [WEIR_AST_AND] = OP_AND, [WEIR_AST_OR] = OP_OR};
    weir__enode *x = bind(p, a->a);
    weir__enode *y = x ? bind(p, a->b) : NULL;
    if (!x || !y)
        return NULL;
    weir__eop o = ops[a->op];
    switch (a->op) {
    case WEIR_AST_CONCAT: return concat(p, x, y, a->op_at);
    case WEIR_AST_AND:
    case WEIR_AST_OR: return logic(p, o, x, y, a->op_at);
    case WEIR_AST_EQ:
    case WEIR_AST_NE:
    case WEIR_AST_LT:
    case WEIR_AST_LE:
    case WEIR_AST_GT:
    case WEIR_AST_GE: return compare(p, o, x, y, a->op_at);
    default: return arith(p, o, x, y, a->op_at);
    }
}

static weir__enode *bind_not(binder *p, const weir_ast *a)
{
    weir__enode *x = want_bool(p, bind(p, a->a), "NOT");
    if (!x)
        return NULL;
    weir__enode *n = node(p, OP_NOT, a->start);
    if (n) {
        n->a = x;
        n->type = mk(WEIR_TYPE_BOOLEAN, x->type.not_null);
    }
    return n;
}

static weir__enode *bind_is_null(binder *p, const weir_ast *a)
{
    weir__enode *x = bind(p, a->a);
    weir__enode *n = x ? node(p, a->negate ? OP_ISNOTNULL : OP_ISNULL, a->op_at) : NULL;
    if (n) {
        n->a = x;
        n->type = mk(WEIR_TYPE_BOOLEAN, true);
    }
    return n;
}

/* The arguments of a call or IN into n->args. */
static bool bind_args(binder *p, weir__enode *n, const weir_ast *a)
{
    if (a->nargs == 0)
        return !p->error.failed;
    n->args = calloc((size_t)a->nargs, sizeof *n->args);
    if (!n->args) {
        nomem(p);
        return false;
    }
    for (int i = 0; i < a->nargs; i++)
        if (!(n->args[n->nargs++] = bind(p, a->args[i])))
            return false;
    return true;
}

static weir__enode *bind_in(binder *p, const weir_ast *a)
{
    weir__enode *x = bind(p, a->a);
    weir__enode *n = x ? node(p, OP_IN, a->op_at) : NULL;
    if (!n || !bind_args(p, n, a))
        return NULL;
    n->a = x;
    n->negate = a->negate;
    bool nn = x->type.not_null;
    /* Every item to the common type of a and all items. */
    for (int i = 0; i < n->nargs; i++) {
        weir__enode *l = n->a, *r = n->args[i];
        if (!unify(p, &l, &r, r->pos, "compare"))
            return NULL;
        nn = nn && r->type.not_null;
        n->a = l;
        n->args[i] = r;
    }
    for (int i = 0; i < n->nargs; i++) {
        weir__enode *l = n->a, *r = n->args[i];
        unify(p, &l, &r, a->op_at, "compare");
        n->a = l;
        n->args[i] = r;
    }
    n->type = mk(WEIR_TYPE_BOOLEAN, nn);
    return p->error.failed ? NULL : n;
}

/* CASE WHEN c THEN v ... [ELSE v] END: its type is the values' common type. */
static weir__enode *bind_case(binder *p, const weir_ast *a)
{
    weir__enode *n = node(p, OP_CASE, a->start);
    if (!n || !bind_args(p, n, a))
        return NULL;
    n->has_else = a->has_else;
    int k = n->nargs;
    int pairs = n->has_else ? (k - 1) / 2 : k / 2;
    for (int i = 0; i < pairs; i++) {
        weir__enode *c = n->args[2 * i];
        retype_null(c, mk(WEIR_TYPE_BOOLEAN, false));
        if (c->type.id != WEIR_TYPE_BOOLEAN) {
            char t1[48];
            berr(p, c->pos, "WHEN needs a BOOLEAN, not %s", tname(c->type, t1));
            return NULL;
        }
    }
    /* The values: each THEN's, then the ELSE's. NULL without an ELSE. */
    weir__enode ***vals = malloc((size_t)(pairs + 1) * sizeof *vals);
    if (!vals) {
        nomem(p);
        return NULL;
    }
    int nv = 0;
    bool nn = n->has_else;
    for (int i = 0; i < pairs; i++)
        vals[nv++] = &n->args[2 * i + 1];
    if (n->has_else)
        vals[nv++] = &n->args[k - 1];
    for (int j = 0; j < nv; j++)
        nn = nn && (*vals[j])->type.not_null;
    bool ok = common_type(p, vals, nv, mk(WEIR_TYPE_INT, false), nn, "CASE values", &n->type);
    free(vals);
    return ok ? n : NULL;
}

/* ---- nested values ---------------------------------------------------------------- */

/* Field `name` of the ROW x. */
static weir__enode *field_of(binder *p, weir__enode *x, const char *name, size_t at)
{
    const weir__nested *d = weir__nested_of(x->type);
    if (!d || d->id != WEIR_TYPE_ROW) {
        char t1[48];
        berr(p, at, "'.%s': a field of a value of type %s, which is not a ROW", name,
             tname(x->type, t1));
        return NULL;
    }
    uint32_t f = 0;
    while (f < d->n && strcmp(d->names[f], name) != 0)
        f++;
    if (f == d->n) {
        char all[512];
        size_t k = 0;
        all[0] = 0;
        for (uint32_t i = 0; i < d->n; i++)
            weir__append(all, sizeof all, &k, "%s%s", i ? ", " : "", d->names[i]);
        berr(p, at, "unknown field '%s' of a ROW (its fields: %s)", name, all);
        return NULL;
    }
    weir__enode *n = node(p, OP_FIELD, at);
    if (!n)
        return NULL;
    n->a = x;
    n->col = (int)f;
    n->off = d->offs[f];
    n->type = d->types[f];
    n->type.not_null = d->types[f].not_null && x->type.not_null;
    return n;
}

/* Whether some input of the scope is called q. */
static bool input_named(const weir_expr_scope *sc, const char *q)
{
    for (int k = 0; k < sc->ninputs; k++)
        if (sc->inputs[k].qualifier && strcmp(sc->inputs[k].qualifier, q) == 0)
            return true;
    return false;
}

/* Whether some column of the scope is called c. */
static bool column_named(const binder *p, const char *c)
{
    const weir_expr_scope *sc = p->scope;
    int ninputs = sc->ninputs ? sc->ninputs : 1;
    for (int k = 0; k < ninputs; k++) {
        const weir_schema *in = sc->ninputs ? sc->inputs[k].columns : p->schema;
        for (int i = 0; i < in->ncols; i++)
            if (strcmp(in->cols[i].name, c) == 0)
                return true;
    }
    return false;
}

static weir__enode *bind_field(binder *p, const weir_ast *a)
{
    weir__enode *x = bind(p, a->a);
    return x ? field_of(p, x, a->text, a->op_at) : NULL;
}

/* a[i]: an ARRAY's element i (1-based; NULL out of range, as Flink's
 * default), a MAP's value at key i (NULL when it has none). */
static weir__enode *bind_index(binder *p, const weir_ast *a)
{
    weir__enode *x = bind(p, a->a), *i = bind(p, a->b);
    if (!x || !i)
        return NULL;
    const weir__nested *d = weir__nested_of(x->type);
    char t1[48];
    if (!d || d->id == WEIR_TYPE_ROW) {
        berr(p, a->op_at, "'[...]' on a value of type %s: an ARRAY's element or a MAP's value",
             tname(x->type, t1));
        return NULL;
    }
    weir_type want = d->id == WEIR_TYPE_ARRAY ? mk(WEIR_TYPE_INT, false) : d->types[0];
    want.not_null = false;
    retype_null(i, want);
    if (d->id == WEIR_TYPE_ARRAY ? !weir__type_is_integer(i->type.id)
                                 : !(weir__type_is_string(want.id) && weir__type_is_string(i->type.id)) &&
                                       !weir_type_casts_implicitly(i->type, want)) {
        char t2[48], t3[48];
        berr(p, a->b->start, "%s of %s takes %s, not %s",
             d->id == WEIR_TYPE_ARRAY ? "an index" : "a key", tname(x->type, t1),
             d->id == WEIR_TYPE_ARRAY ? "an integer" : tname(want, t2), tname(i->type, t3));
        return NULL;
    }
    if (d->id == WEIR_TYPE_MAP && !weir__type_is_string(i->type.id))
        i = cast_to(p, i, want);
    weir__enode *n = i ? node(p, OP_INDEX, a->op_at) : NULL;
    if (!n)
        return NULL;
    n->a = x;
    n->b = i;
    n->type = d->types[d->id == WEIR_TYPE_MAP];
    n->type.not_null = false;
    return n;
}

/* CARDINALITY(a): an ARRAY's elements, a MAP's entries. */
static weir__enode *bind_cardinality(binder *p, const weir_ast *a)
{
    if (a->nargs != 1 || a->distinct || a->star) {
        berr(p, a->start, "CARDINALITY takes one ARRAY or MAP");
        return NULL;
    }
    weir__enode *x = bind(p, a->args[0]);
    if (!x)
        return NULL;
    const weir__nested *d = weir__nested_of(x->type);
    if (!d || d->id == WEIR_TYPE_ROW) {
        char t1[48];
        berr(p, a->args[0]->start, "CARDINALITY takes an ARRAY or a MAP, not %s",
             tname(x->type, t1));
        return NULL;
    }
    weir__enode *n = node(p, OP_CARD, a->start);
    if (n) {
        n->a = x;
        n->type = mk(WEIR_TYPE_INT, x->type.not_null);
    }
    return n;
}

/* ROW(a, b, ...) (fields EXPR$0, EXPR$1, ... as Calcite names them),
 * ARRAY[a, b, ...] and MAP[k, v, ...] (the elements' common types; the
 * capacity the schema's collection capacity, or the elements' count if
 * more), built in the node's scratch. */
static weir__enode *bind_ctor(binder *p, const weir_ast *a, weir_type_id id)
{
    const char *what = id == WEIR_TYPE_ROW ? "ROW" : id == WEIR_TYPE_ARRAY ? "ARRAY" : "MAP";
    if (a->nargs == 0 || (id == WEIR_TYPE_MAP && a->nargs % 2) || a->distinct || a->star) {
        berr(p, a->start, id == WEIR_TYPE_MAP ? "MAP[...] takes keys and values, in pairs"
                                              : "%s takes at least one value", what);
        return NULL;
    }
    weir__enode *n = node(p, OP_CTOR, a->start);
    if (!n || !bind_args(p, n, a))
        return NULL;
    weir_type types[1024];
    char names[1024][16];
    const char *np[1024];
    uint32_t cap = (uint32_t)(id == WEIR_TYPE_MAP ? a->nargs / 2 : a->nargs);
    if (a->nargs > 1024) {
        berr(p, a->start, "%s of more than 1024 values", what);
        return NULL;
    }
    if (id == WEIR_TYPE_ROW) {
        for (int i = 0; i < n->nargs; i++) {
            if (n->args[i]->type.id == WEIR_TYPE_NULL) {
                berr(p, n->args[i]->pos, "a NULL field of ROW(...) needs its type: CAST(NULL AS "
                                         "type)");
                return NULL;
            }
            types[i] = n->args[i]->type;
            snprintf(names[i], sizeof names[i], "EXPR$%d", i);
            np[i] = names[i];
        }
    } else {
        int parts = id == WEIR_TYPE_MAP ? 2 : 1;
        for (int part = 0; part < parts; part++) {
            weir__enode **v = calloc((size_t)n->nargs, sizeof *v);
            if (!v) {
                nomem(p);
                return NULL;
            }
            int k = 0;
            for (int i = part; i < n->nargs; i += parts)
                v[k++] = n->args[i];
            weir_type t;
            bool ok = weir__bind_common(p, v, k, false,
                                        id == WEIR_TYPE_ARRAY ? "ARRAY[...] of values"
                                        : part ? "MAP[...] of values"
                                               : "MAP[...] of keys",
                                        &t);
            k = 0;
            for (int i = part; i < n->nargs; i += parts)
                n->args[i] = v[k++];
            free(v);
            if (!ok)
                return NULL;
            if (t.id == WEIR_TYPE_NULL) {
                berr(p, a->start, "%s of NULLs only: CAST one to its type", what);
                return NULL;
            }
            types[part] = t;
        }
        if (cap < p->schema->collection_capacity)
            cap = p->schema->collection_capacity;
    }
    const char *why = NULL;
    n->type = weir__nested_make(id, cap, np, types, true, &why);
    if (n->type.id == WEIR_TYPE_NULL) {
        berr(p, a->start, "%s: %s", what, why);
        return NULL;
    }
    n->scratch = scratch(p, weir__type_size(n->type));
    return n;
}

/* CAST(x AS nested type): to the type the text names, its capacities the
 * schema's (or exactly the one a sink's column has: `value`). */
static weir__enode *cast_nested(binder *p, const weir_ast *a, weir__enode *x, weir_type t)
{
    const char *why = NULL;
    if (a->value) {
        t.capacity = (uint32_t)a->value;
        if (!weir__nested_of(t)) {
            berr(p, a->type_start, "bad nested type in CAST");
            return NULL;
        }
    } else if (weir__type_resolve(&t, p->schema->string_capacity,
                                  p->schema->collection_capacity ? p->schema->collection_capacity
                                                                 : WEIR_COLLECTION_DEFAULT_CAPACITY,
                                  &why)) {
        berr(p, a->type_start, "%s", why);
        return NULL;
    }
    retype_null(x, t);
    if (!weir__nested_castable(x->type, t)) {
        char t1[48], t2[48];
        berr(p, a->start, "cannot cast %s to %s", tname(x->type, t1), tname(t, t2));
        return NULL;
    }
    if (weir__type_same(x->type, t))
        return x;
    weir__enode *c = node(p, OP_CAST, a->start);
    if (!c)
        return NULL;
    c->a = x;
    c->type = t;
    c->try_cast = a->negate;
    c->type.not_null = x->type.not_null && !a->negate;
    c->scratch = scratch(p, weir__type_size(t));
    return c;
}

static weir__enode *bind_cast(binder *p, const weir_ast *a)
{
    weir__enode *x = bind(p, a->a);
    if (!x)
        return NULL;
    if (a->len >= 1024) {
        berr(p, a->type_start, "bad type in CAST");
        return NULL;
    }
    weir_type t;
    char why[256];
    if (weir_type_parse(a->text, &t, why, sizeof why)) {
        berr(p, a->type_start, "%s", why);
        return NULL;
    }
    if (weir__type_is_nested(t.id))
        return cast_nested(p, a, x, t);
    /* STRING is Flink's VARCHAR(2147483647): a cast to it keeps the whole
     * value (the text's own room, at least the schema's string capacity),
     * never the first characters */
    bool whole = (t.id == WEIR_TYPE_VARCHAR || t.id == WEIR_TYPE_VARBINARY) && t.capacity == 0;
    if (whole) /* BYTES likewise: Flink's VARBINARY(2147483647) */
        t.capacity = text_cap(x->type) > p->schema->string_capacity
                         ? text_cap(x->type)
                         : p->schema->string_capacity;
    retype_null(x, t);
    weir_type_id from = x->type.id;
    char why2[400];
    if (!weir__cast_allowed(x->type, t, why2, sizeof why2)) {
        berr(p, a->start, "%s", why2);
        return NULL;
    }
    weir__enode *c = node(p, OP_CAST, a->start);
    if (!c)
        return NULL;
    c->a = x;
    c->type = t;
    c->try_cast = a->negate;
    c->zone = p->zone;
    /* Flink's CAST keeps its operand's nullability (a value that does not
     * convert fails the row); TRY_CAST is NULL then, so always nullable. */
    c->type.not_null = x->type.not_null && !a->negate;
    /* the column the value comes from, through casts, for messages */
    const weir__enode *src = x;
    while (src->op == OP_CAST)
        src = src->a;
    if (src->op == OP_COL && src->col < p->schema->ncols &&
        !(c->sbuf = dupn(p->schema->cols[src->col].name,
                         strlen(p->schema->cols[src->col].name)))) {
        nomem(p);
        return NULL;
    }
    if (weir__type_is_binary(t.id)) {
        /* Flink's binary casts keep n bytes (a longer value cut, as its
         * BinaryToBinaryCastRule does), BINARY(n) padded with zero bytes */
        c->scratch = scratch(p, c->type.capacity > text_cap(x->type) ? c->type.capacity
                                                                   : text_cap(x->type));
    } else if (weir__type_is_string(t.id)) {
        /* VARCHAR(n) keeps n characters, as Flink counts them; a capacity
         * is bytes, so a string of more than n bytes may need up to 4n
         * (UTF-8). CHAR(n) stays n bytes, padded: it keeps the characters
         * that fit. */
        c->chars = whole ? 0 : t.capacity;
        if (t.id == WEIR_TYPE_VARCHAR && weir__type_is_string(from) &&
            x->type.capacity > t.capacity) {
            uint64_t most = 4 * (uint64_t)t.capacity;
            if (most > x->type.capacity)
                most = x->type.capacity;
            if (most > WEIR_STRING_MAX_CAPACITY)
                most = WEIR_STRING_MAX_CAPACITY;
            c->type.capacity = (uint32_t)most;
        }
        c->scratch = scratch(p, weir__type_is_nested(from) ? c->type.capacity + 1 /* its end */
                                : c->type.capacity > text_cap(x->type) ? c->type.capacity
                                                                       : text_cap(x->type));
    }
    return fold_cast(c);
}

/* The aggregate functions and their kinds. */
static const struct { const char *name; weir_agg_kind kind; } aggregates[] = {
    {"COUNT", WEIR_AGG_COUNT},           {"SUM", WEIR_AGG_SUM},
    {"MIN", WEIR_AGG_MIN},               {"MAX", WEIR_AGG_MAX},
    {"AVG", WEIR_AGG_AVG},               {"STDDEV_POP", WEIR_AGG_STDDEV_POP},
    {"STDDEV_SAMP", WEIR_AGG_STDDEV_SAMP}, {"VAR_POP", WEIR_AGG_VAR_POP},
    {"VAR_SAMP", WEIR_AGG_VAR_SAMP},     {"FIRST_VALUE", WEIR_AGG_FIRST_VALUE},
    {"LAST_VALUE", WEIR_AGG_LAST_VALUE}, {"LISTAGG", WEIR_AGG_LISTAGG},
};

/* An aggregate's SQL name. */
static const char *agg_name(const weir__enode *n)
{
    if (n->agg == WEIR_AGG_FUNCTION)
        return n->fn->name;
    if (n->agg == WEIR_AGG_COUNT_STAR)
        return "COUNT";
    for (size_t i = 0; i < sizeof aggregates / sizeof aggregates[0]; i++)
        if (aggregates[i].kind == n->agg)
            return aggregates[i].name;
    return "?";
}

/* An aggregate call's FILTER (WHERE c): c bound into n->b (BOOLEAN, no
 * aggregate in it) and its text kept (for a Calc that computes it before
 * a window). false after an error. */
static bool bind_filter(binder *p, weir__enode *n, const weir_ast *a)
{
    if (!a->b)
        return true;
    p->in_agg = a;
    n->b = bind(p, a->b);
    p->in_agg = NULL;
    if (!n->b)
        return false;
    retype_null(n->b, mk(WEIR_TYPE_BOOLEAN, false));
    if (n->b->type.id != WEIR_TYPE_BOOLEAN) {
        char t1[48];
        berr(p, a->b->start, "FILTER expression must be of type BOOLEAN, not %s",
             tname(n->b->type, t1));
        return false;
    }
    if (!(n->ftext = node_text(p->text, a->b))) {
        nomem(p);
        return false;
    }
    return true;
}

/* LISTAGG(x, sep) with a separator per row (a column, an expression):
 * the aggregate's argument becomes ROW(x, sep), computed per row where x
 * is (a window's Calc too: its text), and the accumulator joins each value
 * with its own row's separator (table_agg.c). */
static bool listagg_pair(binder *p, const weir_ast *a, weir__enode *n, weir__enode *sep)
{
    weir__enode *c = node(p, OP_CTOR, a->start);
    if (!c || !(c->args = calloc(2, sizeof *c->args))) {
        nomem(p);
        return false;
    }
    c->args[0] = n->a;
    c->args[1] = sep;
    c->nargs = 2;
    static const char *const names[] = {"EXPR$0", "EXPR$1"};
    weir_type types[2] = {n->a->type, sep->type};
    types[0].not_null = types[1].not_null = false;
    const char *why = NULL;
    c->type = weir__nested_make(WEIR_TYPE_ROW, 2, names, types, true, &why);
    if (c->type.id == WEIR_TYPE_NULL) {
        berr(p, a->start, "LISTAGG: %s", why);
        return false;
    }
    c->scratch = scratch(p, weir__type_size(c->type));
    char *t2 = node_text(p->text, a->args[1]);
    if (!t2) {
        nomem(p);
        return false;
    }
    size_t len = strlen(n->sbuf) + strlen(t2) + 16;
    char *text = malloc(len);
    if (!text) {
        free(t2);
        nomem(p);
        return false;
    }
    snprintf(text, len, "ROW(%s, %s)", n->sbuf, t2);
    free(t2);
    free(n->sbuf);
    n->sbuf = text;
    n->a = c;
    n->lit = (weir__val){.s = NULL, .len = 0};
    return true;
}

static weir__enode *bind_agg(binder *p, const weir_ast *a, weir_agg_kind kind, const char *name)
{
    if (p->in_agg) {
        berr(p, a->start, "an aggregate inside an aggregate");
        return NULL;
    }
    int most = kind == WEIR_AGG_LISTAGG ? 2 : 1;
    if (a->star ? a->nargs != 0 : a->nargs < 1 || a->nargs > most) {
        berr(p, a->start, "wrong number of arguments (%d)", a->nargs);
        return NULL;
    }
    if (a->star && kind != WEIR_AGG_COUNT) {
        berr(p, a->start, "* in a call of %s: only COUNT takes it", name);
        return NULL;
    }
    weir__enode *n = node(p, OP_AGG, a->start);
    if (!n)
        return NULL;
    n->agg = a->star ? WEIR_AGG_COUNT_STAR : kind;
    n->distinct = a->distinct;
    p->naggs++;
    if (!p->first_agg)
        p->first_agg = n;
    if (!a->star) {
        const weir_ast *arg = a->args[0];
        p->in_agg = a;
        n->a = bind(p, arg);
        p->in_agg = NULL;
        if (!n->a)
            return NULL;
        /* its text, for a Calc that computes it before a window */
        if (!(n->sbuf = node_text(p->text, arg))) {
            nomem(p);
            return NULL;
        }
    }
    char t1[48];
    bool stats = kind == WEIR_AGG_STDDEV_POP || kind == WEIR_AGG_STDDEV_SAMP ||
                 kind == WEIR_AGG_VAR_POP || kind == WEIR_AGG_VAR_SAMP;
    if (n->a && kind != WEIR_AGG_COUNT && !weir__type_is_numeric(n->a->type.id) &&
        (kind == WEIR_AGG_SUM || kind == WEIR_AGG_AVG || stats)) {
        berr(p, a->start, "%s of %s: a number is required", name, tname(n->a->type, t1));
        return NULL;
    }
    if (n->a && (kind == WEIR_AGG_MIN || kind == WEIR_AGG_MAX || kind == WEIR_AGG_FIRST_VALUE ||
                 kind == WEIR_AGG_LAST_VALUE) &&
        (n->a->type.id == WEIR_TYPE_NULL || weir__type_is_interval(n->a->type.id) ||
         weir__type_is_nested(n->a->type.id))) {
        /* a ROW, an ARRAY or a MAP has no order (Flink's MIN/MAX refuse them), and
         * these accumulators keep scalars only */
        berr(p, a->start, "%s of %s", name, tname(n->a->type, t1));
        return NULL;
    }
    if (kind == WEIR_AGG_LISTAGG) {
        /* Calcite's LISTAGG(STRING[, STRING]): the separator a literal */
        retype_null(n->a, mk(WEIR_TYPE_VARCHAR, false));
        if (!weir__type_is_string(n->a->type.id)) {
            berr(p, a->start, "Cannot apply 'LISTAGG' to arguments of type 'LISTAGG(<%s>)'. "
                 "Supported form(s): 'LISTAGG(<STRING>)' 'LISTAGG(<STRING>, <STRING>)'",
                 tname(n->a->type, t1));
            return NULL;
        }
        n->lit = (weir__val){.s = ",", .len = 1};
        if (a->nargs == 2) {
            p->in_agg = a;
            weir__enode *sep = bind(p, a->args[1]);
            p->in_agg = NULL;
            if (!sep)
                return NULL;
            retype_null(sep, mk(WEIR_TYPE_VARCHAR, false));
            if (!weir__type_is_string(sep->type.id)) {
                char t2[48];
                berr(p, a->start, "Cannot apply 'LISTAGG' to arguments of type 'LISTAGG(<%s>, "
                     "<%s>)'. Supported form(s): 'LISTAGG(<STRING>)' 'LISTAGG(<STRING>, "
                     "<STRING>)'", tname(n->a->type, t1), tname(sep->type, t2));
                return NULL;
            }
            if (sep->op == OP_LIT && !sep->lit.null) {
                n->lit = sep->lit;
            } else if (!listagg_pair(p, a, n, sep)) {
                return NULL;
            }
        }
    }
    if (n->distinct && kind != WEIR_AGG_COUNT) {
        berr(p, a->start, "DISTINCT is supported in COUNT only");
        return NULL;
    }
    if (!bind_filter(p, n, a))
        return NULL;
    switch (n->agg) {
    case WEIR_AGG_COUNT_STAR:
    case WEIR_AGG_COUNT: n->type = mk(WEIR_TYPE_BIGINT, true); break;
    case WEIR_AGG_LISTAGG:
        n->type = mk(WEIR_TYPE_VARCHAR, false);
        n->type.capacity = p->schema->string_capacity;
        break;
    default:
        n->type = n->a->type;
        n->type.not_null = false;
        /* Flink's findSumAggType and findAvgAggType: SUM(DECIMAL(p, s)) is
         * DECIMAL(38, s), AVG DECIMAL(38, max(6, s)) */
        if (n->a->type.id == WEIR_TYPE_DECIMAL && n->agg == WEIR_AGG_SUM)
            n->type = weir__type_decimal(38, n->a->type.scale, false);
        if (n->a->type.id == WEIR_TYPE_DECIMAL && (n->agg == WEIR_AGG_AVG || stats))
            /* STDDEV_* and VAR_* too: Calcite's AVG_AGG_FUNCTION return type,
             * Flink's deriveAvgAggType */
            n->type = weir__type_decimal(38, n->a->type.scale > 6 ? n->a->type.scale : 6, false);
        break;
    }
    return n;
}

/* COALESCE(v, ...): the arguments' common type, NOT NULL if one is. */
static weir__enode *finish_coalesce(binder *p, weir__enode *n)
{
    weir__enode ***vals = malloc((size_t)n->nargs * sizeof *vals);
    if (!vals) {
        nomem(p);
        return NULL;
    }
    bool nn = false;
    for (int i = 0; i < n->nargs; i++) {
        vals[i] = &n->args[i];
        nn = nn || n->args[i]->type.not_null;
    }
    bool ok = common_type(p, vals, n->nargs, mk(WEIR_TYPE_NULL, false), nn, "COALESCE",
                          &n->type);
    free(vals);
    return ok ? n : NULL;
}

/* The scalar functions built in here (the others: fn.h's registry). */
static const struct { const char *name; weir__eop op; int min, max; } functions[] = {
    {"COALESCE", OP_COALESCE, 1, -1},
};

bool weir__builtin_function(const char *name)
{
    for (size_t i = 0; i < sizeof aggregates / sizeof aggregates[0]; i++)
        if (strcasecmp(name, aggregates[i].name) == 0)
            return true;
    for (size_t i = 0; i < sizeof functions / sizeof functions[0]; i++)
        if (strcasecmp(name, functions[i].name) == 0)
            return true;
    return weir__builtin_named(name);
}

typedef struct each_scalar {
    void (*each)(const char *name, bool aggregate, void *arg);
    void *arg;
} each_scalar;

static void scalar_named(const char *name, void *arg)
{
    const each_scalar *e = arg;
    e->each(name, false, e->arg);
}

void weir__builtin_function_each(void (*each)(const char *name, bool aggregate, void *arg),
                                 void *arg)
{
    for (size_t i = 0; i < sizeof aggregates / sizeof aggregates[0]; i++)
        each(aggregates[i].name, true, arg);
    for (size_t i = 0; i < sizeof functions / sizeof functions[0]; i++)
        each(functions[i].name, false, arg);
    /* the constructors the binder reads itself (bind_ctor) */
    static const char *const ctors[] = {"ARRAY", "MAP", "ROW", "CARDINALITY"};
    for (size_t i = 0; i < sizeof ctors / sizeof ctors[0]; i++)
        each(ctors[i], false, arg);
    weir__builtin_each(scalar_named, &(each_scalar){each, arg});
}

bool weir_ast_is_aggregate_call(const weir_ast *a)
{
    if (!a || a->kind != WEIR_AST_CALL)
        return false;
    for (size_t i = 0; i < sizeof aggregates / sizeof aggregates[0]; i++)
        if (strcasecmp(a->text, aggregates[i].name) == 0)
            return true;
    const weir__function *f = weir__function_find(a->text);
    return f && f->aggregate;
}

/* Argument i of a call of f (bound: x, of the tree arg) as the parameter
 * takes it: its own type, or implicitly cast by the built-ins' rules
 * (numbers widen, the two timestamps meet, any string is a string, NULL
 * is anything). NULL after an error naming the function, the argument and
 * both types. */
static weir__enode *pass_arg(binder *p, const weir__function *f, int i, weir__enode *x,
                             const weir_ast *arg)
{
    weir_type want = f->arg_types[i];
    want.not_null = false;
    if (weir__type_is_var(want.id) && want.capacity == 0)
        want.capacity = p->schema->string_capacity;
    retype_null(x, want);
    weir_type_id from = x->type.id, to = want.id;
    if ((weir__type_is_string(from) && weir__type_is_string(to)) ||
        (weir__type_is_binary(from) && weir__type_is_binary(to)))
        return x;
    if (weir_type_casts_implicitly(x->type, want))
        return cast_to(p, x, want);
    char t1[48], t2[48], echo[WEIR__EXPR_ECHO + 4];
    char *text = node_text(p->text, arg);
    if (!text) {
        nomem(p);
        return NULL;
    }
    berr(p, arg->start, "argument %d of %s ('%s') is %s, where %s takes %s", i + 1, f->name,
         weir__expr_echo(text, echo), tname(x->type, t1), f->name, tname(want, t2));
    free(text);
    return NULL;
}

/* The type of a call of f: its result type (a STRING of the schema's
 * capacity), NOT NULL when declared so and no NOT NULL parameter gets an
 * argument that may be NULL (which makes the result NULL). */
static weir_type call_type(const binder *p, const weir__function *f, weir__enode *const *args)
{
    weir_type t = f->result_type;
    if (weir__type_is_var(t.id) && t.capacity == 0)
        t.capacity = p->schema->string_capacity;
    for (int i = 0; i < f->nargs; i++)
        if (f->arg_types[i].not_null && !args[i]->type.not_null)
            t.not_null = false;
    return t;
}

/* The arguments of a call of f: the count checked, each bound and passed
 * as its parameter takes it. */
static bool bind_function_args(binder *p, weir__enode *n, const weir_ast *a,
                               const weir__function *f)
{
    if (a->star || a->distinct) {
        berr(p, a->start, "%s in a call of %s: %s", a->star ? "*" : "DISTINCT", f->name,
             a->star ? "only COUNT takes it" : "DISTINCT is supported in COUNT only");
        return false;
    }
    if (a->nargs != f->nargs) {
        berr(p, a->start, "wrong number of arguments: %s takes %d, not %d", f->name, f->nargs,
             a->nargs);
        return false;
    }
    if (!bind_args(p, n, a))
        return false;
    for (int i = 0; i < n->nargs; i++)
        if (!(n->args[i] = pass_arg(p, f, i, n->args[i], a->args[i])))
            return false;
    return true;
}

/* A call of a scalar function from C: its arguments' values and the
 * result's bytes (capacity + 1, a NUL's room) live in its scratch region,
 * 8 bytes more so that the values can be aligned wherever the caller's
 * scratch starts. */
static weir__enode *bind_scalar_function(binder *p, const weir_ast *a, const weir__function *f)
{
    weir__enode *n = node(p, OP_FUNC, a->start);
    if (!n)
        return NULL;
    n->fn = f;
    if (!bind_function_args(p, n, a, f))
        return NULL;
    n->type = call_type(p, f, n->args);
    uint64_t bytes = 8 + (uint64_t)n->nargs * sizeof(weir__val) +
                     (weir__type_is_var(n->type.id) ? (uint64_t)n->type.capacity + 1 : 0);
    n->scratch = scratch(p, (uint32_t)bytes);
    return n;
}

/* A call of an aggregate function from C, where an aggregate may stand. */
static weir__enode *bind_aggregate_function(binder *p, const weir_ast *a, const weir__function *f)
{
    if (p->in_agg) {
        berr(p, a->start, "an aggregate inside an aggregate");
        return NULL;
    }
    weir__enode *n = node(p, OP_AGG, a->start);
    if (!n)
        return NULL;
    n->agg = WEIR_AGG_FUNCTION;
    n->fn = f;
    p->naggs++;
    if (!p->first_agg)
        p->first_agg = n;
    p->in_agg = a;
    bool ok = bind_function_args(p, n, a, f);
    p->in_agg = NULL;
    if (!ok || !bind_filter(p, n, a))
        return NULL;
    /* each argument's text, for a Calc that computes it before a window */
    if (n->nargs && !(n->arg_texts = calloc((size_t)n->nargs, sizeof *n->arg_texts))) {
        nomem(p);
        return NULL;
    }
    for (int i = 0; i < n->nargs; i++)
        if (!(n->arg_texts[i] = node_text(p->text, a->args[i]))) {
            nomem(p);
            return NULL;
        }
    n->type = call_type(p, f, n->args);
    return n;
}

/* A function call: an aggregate or a scalar function, built in or from C. */
static weir__enode *bind_call(binder *p, const weir_ast *a)
{
    if (a->b && !weir_ast_is_aggregate_call(a)) {
        berr(p, a->start, "FILTER in a call of %s: only aggregates take it", a->text);
        return NULL;
    }
    if (a->form == WEIR_AST_FORM_BRACKET)
        return bind_ctor(p, a, strcasecmp(a->text, "MAP") == 0 ? WEIR_TYPE_MAP : WEIR_TYPE_ARRAY);
    if (a->form == WEIR_AST_FORM_CALL && strcasecmp(a->text, "ROW") == 0)
        return bind_ctor(p, a, WEIR_TYPE_ROW);
    if (a->form == WEIR_AST_FORM_CALL && strcasecmp(a->text, "CARDINALITY") == 0)
        return bind_cardinality(p, a);
    const weir__builtin *bi = weir__builtin_find(a->text, a->form);
    if (bi)
        return weir__bind_builtin(p, a, bi);
    if (a->form != WEIR_AST_FORM_CALL) {
        berr(p, a->start, "%s is not supported", a->text);
        return NULL;
    }
    for (size_t i = 0; i < sizeof aggregates / sizeof aggregates[0]; i++)
        if (strcasecmp(a->text, aggregates[i].name) == 0)
            return bind_agg(p, a, aggregates[i].kind, aggregates[i].name);
    size_t f = 0;
    while (f < sizeof functions / sizeof functions[0] && strcasecmp(a->text, functions[f].name))
        f++;
    if (f == sizeof functions / sizeof functions[0]) {
        const weir__function *fn = weir__function_find(a->text);
        if (fn)
            return fn->aggregate ? bind_aggregate_function(p, a, fn)
                                 : bind_scalar_function(p, a, fn);
        berr(p, a->start, "unknown function '%s'", a->text);
        return NULL;
    }
    if (a->star || a->distinct) {
        berr(p, a->start, "%s in a call of %s: only aggregates take it", a->star ? "*" : "DISTINCT",
             a->text);
        return NULL;
    }
    if (a->nargs < functions[f].min || (functions[f].max >= 0 && a->nargs > functions[f].max)) {
        berr(p, a->start, "wrong number of arguments (%d)", a->nargs);
        return NULL;
    }
    weir__enode *n = node(p, functions[f].op, a->start);
    if (!n || !bind_args(p, n, a))
        return NULL;
    return finish_coalesce(p, n);
}

static weir__enode *bind(binder *p, const weir_ast *a)
{
    if (p->error.failed)
        return NULL;
    switch (a->kind) {
    case WEIR_AST_INT: return bind_int(p, a);
    case WEIR_AST_DECIMAL:
    case WEIR_AST_STRING:
    case WEIR_AST_BOOLEAN:
    case WEIR_AST_NULL:
    case WEIR_AST_INTERVAL:
    case WEIR_AST_INTERVAL_YM:
    case WEIR_AST_TYPED: return bind_literal(p, a);
    case WEIR_AST_NAME: return bind_name(p, a);
    case WEIR_AST_NEG: return bind_neg(p, a);
    case WEIR_AST_BINARY: return bind_binary(p, a);
    case WEIR_AST_NOT: return bind_not(p, a);
    case WEIR_AST_IS_NULL: return bind_is_null(p, a);
    case WEIR_AST_IN: return bind_in(p, a);
    case WEIR_AST_CASE: return bind_case(p, a);
    case WEIR_AST_CAST: return bind_cast(p, a);
    case WEIR_AST_CALL: return bind_call(p, a);
    case WEIR_AST_FIELD: return bind_field(p, a);
    case WEIR_AST_INDEX: return bind_index(p, a);
    case WEIR_AST_SYMBOL: break;
    }
    berr(p, a->start, "unknown expression");
    return NULL;
}

/* ---- what the built-ins' type rules borrow (fn.h) ------------------------------------ */

weir__enode *weir__bind_new(weir__binder *p, weir__eop op, size_t pos) { return node(p, op, pos); }
weir__enode *weir__bind_tree(weir__binder *p, const weir_ast *a) { return bind(p, a); }
weir__enode *weir__bind_cast(weir__binder *p, weir__enode *n, weir_type to)
{
    return cast_to(p, n, to);
}
uint32_t weir__bind_scratch(weir__binder *p, uint32_t bytes) { return scratch(p, bytes); }
void weir__bind_nomem(weir__binder *p) { nomem(p); }
bool weir__bind_failed(const weir__binder *p) { return p->error.failed != 0; }
bool weir__expr_is_proctime(const weir_expr *e)
{
    return e && e->root && e->root->op == OP_BUILTIN && e->root->bi &&
           strcmp(e->root->bi->name, "PROCTIME") == 0;
}

uint32_t weir__bind_string_capacity(const weir__binder *p) { return p->schema->string_capacity; }
void weir__bind_retype_null(weir__enode *n, weir_type t) { retype_null(n, t); }

void weir__bind_fail(weir__binder *p, size_t at, const char *fmt, ...)
{
    if (p->error.failed)
        return;
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    berr(p, at, "%s", msg);
}

bool weir__bind_unify(weir__binder *p, weir__enode **a, weir__enode **b, size_t pos,
                      const char *what)
{
    return unify(p, a, b, pos, what);
}

bool weir__bind_common(weir__binder *p, weir__enode **v, int n, bool not_null,
                       const char *what, weir_type *out)
{
    weir__enode ***slots = malloc((size_t)(n ? n : 1) * sizeof *slots);
    if (!slots) {
        nomem(p);
        return false;
    }
    for (int i = 0; i < n; i++)
        slots[i] = &v[i];
    bool ok = common_type(p, slots, n, mk(WEIR_TYPE_NULL, false), not_null, what, out);
    free(slots);
    return ok;
}

uint32_t weir__bind_clock_slot(weir__binder *p)
{
    if (p->e->clock_slot < 0)
        p->e->clock_slot = scratch(p, 8);
    return (uint32_t)p->e->clock_slot;
}

const weir_time_zone *weir__bind_zone(const weir__binder *p)
{
    return p->zone ? p->zone : weir_time_zone_utc();
}

/* ---- compiling ---------------------------------------------------------------------- */

void weir_expr_destroy(weir_expr *e)
{
    if (!e)
        return;
    weir__enode *n = e->nodes;
    while (n) {
        weir__enode *nx = n->next_alloc;
        for (int i = 0; n->arg_texts && i < n->nargs; i++)
            free(n->arg_texts[i]);
        free(n->arg_texts);
        if (n->data_free)
            n->data_free(n->data);
        free(n->args);
        free(n->sbuf);
        free(n->ftext);
        free(n);
        n = nx;
    }
    if (e->agg_arg)
        free(e->agg_arg->text);
    free(e->agg_arg); /* shares this expression's nodes */
    if (e->agg_filter)
        free(e->agg_filter->text);
    free(e->agg_filter); /* as agg_arg */
    for (int i = 0; i < e->nagg_args; i++) {
        free(e->agg_args[i]->text);
        free(e->agg_args[i]); /* as agg_arg */
    }
    free(e->agg_args);
    free(e->text);
    free(e->alias);
    free(e);
}

static char *dupn(const char *s, size_t n)
{
    char *d = malloc(n + 1);
    if (d) {
        memcpy(d, s, n);
        d[n] = 0;
    }
    return d;
}

static char *node_text(const char *text, const weir_ast *a)
{
    if (text)
        return dupn(text + a->start, a->end > a->start ? a->end - a->start : 0);
    int n = weir_ast_format(a, NULL, 0);
    char *s = malloc((size_t)n + 1);
    if (s)
        weir_ast_format(a, s, (size_t)n + 1);
    return s;
}

/* What a compiled item says of itself: its type, the column it is (and
 * its name as the alias), the aggregate it is and that aggregate's
 * argument as an expression of its own. 0 or WEIR_ENOMEM. */
static int describe_item(weir_expr *e, weir__enode *root, const weir_schema *schema)
{
    if (root->type.id == WEIR_TYPE_NULL) {
        /* A bare NULL: Flink types it NULL; as a column weir makes it a nullable INT. */
        root->type = mk(WEIR_TYPE_INT, false);
    }
    e->root = root;
    e->type = root->type;
    if (root->op == OP_COL) {
        e->column = root->col;
        if (!e->alias && !(e->alias = dupn(schema->cols[root->col].name,
                                           strlen(schema->cols[root->col].name))))
            return WEIR_ENOMEM;
    }
    const weir__enode *base = root;
    while (base->op == OP_FIELD)
        base = base->a;
    if (root->op == OP_FIELD && base->op == OP_COL && !e->alias) {
        /* r.a is named a, as Calcite names a compound identifier by its last part
         * (ROW(1).EXPR$0 is no identifier: EXPR$i) */
        const char *f = weir__nested_of(root->a->type)->names[root->col];
        if (!(e->alias = dupn(f, strlen(f))))
            return WEIR_ENOMEM;
    }
    if (root->op == OP_AGG && root->agg == WEIR_AGG_FUNCTION) {
        e->agg = root->agg;
        e->fn = root->fn;
        if (root->nargs && !(e->agg_args = calloc((size_t)root->nargs, sizeof *e->agg_args)))
            return WEIR_ENOMEM;
        for (int i = 0; i < root->nargs; i++) {
            weir_expr *x = calloc(1, sizeof *x);
            if (!x)
                return WEIR_ENOMEM;
            e->agg_args[e->nagg_args++] = x;
            x->root = root->args[i];
            x->type = x->root->type;
            x->scratch = e->scratch;
            x->clock_slot = e->clock_slot;
            x->column = x->root->op == OP_COL ? x->root->col : -1;
            x->typed_apart = ((x->root->op == OP_CAST || x->root->op == OP_LIT) &&
                              x->root->implicit) ||
                             (x->root->op == OP_LIT && x->root->lit.null);
            if (!(x->text = dupn(root->arg_texts[i], strlen(root->arg_texts[i]))))
                return WEIR_ENOMEM;
        }
    } else if (root->op == OP_AGG) {
        e->agg = root->agg;
        e->distinct = root->distinct;
        e->agg_sep = root->lit; /* LISTAGG's separator (the node's bytes) */
        if (root->a) {
            e->agg_arg = calloc(1, sizeof *e->agg_arg);
            if (!e->agg_arg)
                return WEIR_ENOMEM;
            e->agg_arg->root = root->a;
            e->agg_arg->type = root->a->type;
            e->agg_arg->scratch = e->scratch;
            e->agg_arg->clock_slot = e->clock_slot;
            e->agg_arg->column = root->a->op == OP_COL ? root->a->col : -1;
            e->agg_arg->text = dupn(root->sbuf, strlen(root->sbuf));
            if (!e->agg_arg->text)
                return WEIR_ENOMEM;
        }
    }
    if (root->op == OP_AGG && root->b) {
        /* FILTER (WHERE c): c as an expression of its own */
        weir_expr *x = e->agg_filter = calloc(1, sizeof *x);
        if (!x)
            return WEIR_ENOMEM;
        x->root = root->b;
        x->type = root->b->type;
        x->scratch = e->scratch;
        x->clock_slot = e->clock_slot;
        x->column = root->b->op == OP_COL ? root->b->col : -1;
        if (!(x->text = dupn(root->ftext, strlen(root->ftext))))
            return WEIR_ENOMEM;
    }
    return 0;
}

/* Binds `a` into e (its text and alias set by the caller). */
static int bind_item(weir_expr *e, const weir_ast *a, const char *text,
                     const weir_expr_scope *scope, int allow_agg, size_t *err_at, char *err,
                     size_t errsize)
{
    binder p = {.text = text, .scope = scope, .schema = scope->schema, .e = e,
                .zone = scope->zone,
                .error = {.err_at = err_at, .err = err, .errsize = errsize}};
    weir__enode *root = bind(&p, a);
    if (!p.error.failed && root && p.naggs > 0 &&
        (allow_agg <= 0 || root != p.first_agg || p.naggs > 1)) {
        weir__enode *bad = allow_agg > 0 && root == p.first_agg ? NULL : p.first_agg;
        const weir__enode *which = bad ? bad : p.first_agg;
        berr(&p, bad ? bad->pos : root->pos, "aggregate function %s is not allowed here",
             agg_name(which));
    }
    if (p.error.failed)
        return p.error.failed;
    return describe_item(e, root, scope->schema);
}

int weir_expr_bind(const weir_ast *a, const char *text, const weir_expr_scope *scope,
                   int allow_agg, const char *alias, weir_expr **out, size_t *err_at, char *err,
                   size_t errsize)
{
    if (err && errsize)
        err[0] = 0;
    if (err_at)
        *err_at = 0;
    if (!a || !scope || !scope->schema || !out || scope->ninputs < 0 || scope->ninputs > 4) {
        if (err && errsize)
            snprintf(err, errsize, "a tree, a scope of at most 4 inputs and an output are required");
        return WEIR_EINVAL;
    }
    *out = NULL;
    weir_expr *e = calloc(1, sizeof *e);
    if (e) {
        e->column = -1;
        e->clock_slot = -1;
        e->text = node_text(text, a);
        e->alias = alias ? dupn(alias, strlen(alias)) : NULL;
        e->alias_shown = alias != NULL;
    }
    int r = !e || !e->text || (alias && !e->alias) ? WEIR_ENOMEM : 0;
    if (r == 0)
        r = bind_item(e, a, text, scope, allow_agg, err_at, err, errsize);
    if (r) {
        if (r == WEIR_ENOMEM && err && errsize)
            snprintf(err, errsize, "out of memory");
        weir_expr_destroy(e);
        return r;
    }
    *out = e;
    return 0;
}

int weir_expr_compile_item(const char *text, const weir_schema *schema, int allow_agg,
                           weir_expr **out, char *err, size_t errsize)
{
    return weir__expr_compile_in(text, schema, allow_agg, NULL, out, err, errsize);
}

int weir__expr_compile_in(const char *text, const weir_schema *schema, int allow_agg,
                          const weir_time_zone *zone, weir_expr **out, char *err,
                          size_t errsize)
{
    if (err && errsize)
        err[0] = 0;
    if (!text || !schema || !out) {
        if (err && errsize)
            snprintf(err, errsize, "an expression, a schema and an output are required");
        return WEIR_EINVAL;
    }
    *out = NULL;
    weir_expr *e = calloc(1, sizeof *e);
    if (!e || !(e->text = dupn(text, strlen(text)))) {
        free(e);
        if (err && errsize)
            snprintf(err, errsize, "out of memory");
        return WEIR_ENOMEM;
    }
    e->column = -1;
    e->clock_slot = -1;
    weir_ast_arena *arena = NULL;
    weir_ast *root = NULL;
    size_t at = 0;
    char msg[512];
    int r = weir__ast_parse_item(&arena, e->text, allow_agg >= 0, &root, &e->alias, &at, msg,
                                 sizeof msg);
    if (r == 0) {
        weir_expr_scope scope = {.schema = schema, .zone = zone};
        r = bind_item(e, root, e->text, &scope, allow_agg, &at, msg, sizeof msg);
    }
    if (r && err && errsize) {
        if (r == WEIR_ENOMEM) {
            snprintf(err, errsize, "out of memory");
        } else {
            char echo[WEIR__EXPR_ECHO + 4];
            snprintf(err, errsize, "%s at %zu: %s", weir__expr_echo(text, echo), at + 1, msg);
        }
    }
    weir_ast_arena_free(&arena);
    if (r) {
        weir_expr_destroy(e);
        return r;
    }
    *out = e;
    return 0;
}

int weir_expr_compile(const char *text, const weir_schema *schema, weir_expr **out, char *err,
                      size_t errsize)
{
    /* -1: no AS, no aggregates. */
    return weir_expr_compile_item(text, schema, -1, out, err, errsize);
}

weir_type weir_expr_type(const weir_expr *e) { return e->type; }
const char *weir_expr_alias(const weir_expr *e) { return e->alias; }
const char *weir_expr_text(const weir_expr *e) { return e->text ? e->text : ""; }
weir_agg_kind weir_expr_agg(const weir_expr *e) { return e->agg; }
