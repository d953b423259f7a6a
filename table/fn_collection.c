/* fn_collection.c — the collection functions (fn.h) on ARRAY and MAP
 * values, as Flink's BuiltInFunctionDefinitions define them and its
 * runtime functions compute them (ArrayContainsFunction,
 * ArrayPositionFunction, ArrayRemoveFunction, ArrayDistinctFunction,
 * ArrayReverseFunction, ArrayConcatFunction, ArrayMaxFunction,
 * ArrayMinFunction, ArrayJoinFunction, MapKeysFunction,
 * MapValuesFunction, MapEntriesFunction; ELEMENT as the planner's
 * generateArrayElement): a NULL collection gives NULL.
 *
 * Elements compare as the element type's values (weir__val_compare, a
 * NULL equal to a NULL as Java's Objects.equals); a needle is cast to the
 * element type where it casts implicitly (Flink's
 * ArrayElementArgumentTypeStrategy), refused otherwise. A result that is a
 * collection is built in the call's room (the result type's size), with
 * the argument's capacity: nothing allocated per row.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fn.h"
#include "weir/error.h"

enum {
    C_CONTAINS, C_POSITION, C_REMOVE, C_DISTINCT, C_REVERSE, C_CONCAT, C_MAX, C_MIN, C_JOIN,
    C_ELEMENT, C_KEYS, C_VALUES, C_ENTRIES
};

static const weir__nested *nested_arg(const weir__fnbind *b, int i, weir_type_id id)
{
    const weir__nested *d = weir__nested_of(b->n->args[i]->type);
    return d && d->id == id ? d : NULL;
}

/* Flink's refusal of the arguments (its input type strategies' words). */
static bool refuse(weir__fnbind *b, const char *sig)
{
    weir__bind_fail(b->p, b->a->start,
                    "Invalid input arguments. Expected signatures are: %s(%s)", b->f->name, sig);
    return false;
}

/* The argument k as the element type of the array argument 0: itself (a
 * string into a string's, NULL typed), an implicit cast, or false. */
static bool needle_to_element(weir__fnbind *b, int k, const weir__nested *d)
{
    weir_type et = d->types[0];
    et.not_null = false;
    weir__enode *x = b->n->args[k];
    weir__bind_retype_null(x, et);
    if ((weir__type_is_string(x->type.id) && weir__type_is_string(et.id)) ||
        (weir__type_is_binary(x->type.id) && weir__type_is_binary(et.id)))
        return true;
    if (x->type.id == et.id && !weir__type_is_nested(et.id) && et.id != WEIR_TYPE_DECIMAL)
        return true;
    if (weir__type_is_nested(et.id) ? weir__type_same(x->type, et)
                                    : weir_type_casts_implicitly(x->type, et)) {
        b->n->args[k] = weir__bind_cast(b->p, x, et);
        return b->n->args[k] != NULL;
    }
    return false;
}

/* A result of nested type t: the call's room is its slot. */
static void nested_result(weir__fnbind *b, weir_type t, bool not_null)
{
    t.not_null = not_null;
    b->n->type = t;
    b->n->room = weir__type_size(t);
}

static bool t_array_needle(weir__fnbind *b)
{
    const weir__nested *d = nested_arg(b, 0, WEIR_TYPE_ARRAY);
    if (!d || !needle_to_element(b, 1, d))
        return refuse(b, "haystack <ARRAY>, needle <ARRAY ELEMENT>");
    int w = b->f->which;
    if (w == C_CONTAINS)
        b->n->type = (weir_type){.id = WEIR_TYPE_BOOLEAN, .not_null = weir__fn_args_not_null(b)};
    else if (w == C_POSITION)
        b->n->type = (weir_type){.id = WEIR_TYPE_INT, .not_null = weir__fn_args_not_null(b)};
    else
        nested_result(b, b->n->args[0]->type, b->n->args[0]->type.not_null);
    return true;
}

static bool t_array(weir__fnbind *b)
{
    const weir__nested *d = nested_arg(b, 0, WEIR_TYPE_ARRAY);
    int w = b->f->which;
    if (!d)
        return refuse(b, w == C_ELEMENT ? "<ARRAY>" : "array <ARRAY>");
    weir_type et = d->types[0];
    switch (w) {
    case C_MAX:
    case C_MIN:
        if (weir__type_is_nested(et.id) || et.id == WEIR_TYPE_BOOLEAN)
            return refuse(b, "array <ARRAY of a comparable type>");
        et.not_null = false;
        b->n->type = et;
        break;
    case C_ELEMENT:
        et.not_null = false;
        b->n->type = et;
        break;
    default: /* DISTINCT, REVERSE */
        nested_result(b, b->n->args[0]->type, b->n->args[0]->type.not_null);
        break;
    }
    if (weir__type_is_var(b->n->type.id))
        b->n->room = b->n->type.capacity + 1;
    return true;
}

static bool t_concat(weir__fnbind *b)
{
    const weir__nested *d = nested_arg(b, 0, WEIR_TYPE_ARRAY);
    for (int i = 0; d && i < b->n->nargs; i++) {
        const weir__nested *e = nested_arg(b, i, WEIR_TYPE_ARRAY);
        if (!e || !weir__type_same(e->types[0], d->types[0]))
            d = NULL;
    }
    if (!d)
        return refuse(b, "<COMMON>, <COMMON>...");
    /* the room of every argument's elements */
    uint32_t cap = 0;
    for (int i = 0; i < b->n->nargs; i++)
        cap += weir__nested_of(b->n->args[i]->type)->n;
    weir_type et = d->types[0];
    const char *why = NULL;
    weir_type t = weir__nested_make(WEIR_TYPE_ARRAY, cap, NULL, &et, true, &why);
    if (t.id == WEIR_TYPE_NULL) {
        weir__bind_fail(b->p, b->a->start, "%s: %s", b->f->name, why ? why : "too large");
        return false;
    }
    nested_result(b, t, weir__fn_args_not_null(b));
    return true;
}

static bool t_join(weir__fnbind *b)
{
    const weir__nested *d = nested_arg(b, 0, WEIR_TYPE_ARRAY);
    bool ok = d && weir__type_is_string(d->types[0].id);
    for (int i = 1; ok && i < b->n->nargs; i++) {
        weir__bind_retype_null(b->n->args[i], weir__fn_varchar(1, false));
        ok = weir__type_is_string(b->n->args[i]->type.id);
    }
    if (!ok)
        return refuse(b, "<ARRAY<STRING>>, <STRING>[, <STRING>]");
    uint64_t cap = (uint64_t)d->n * d->types[0].capacity;
    uint64_t seps = d->n ? (uint64_t)(d->n - 1) * b->n->args[1]->type.capacity : 0;
    uint64_t repl = b->n->nargs > 2 ? (uint64_t)d->n * b->n->args[2]->type.capacity : 0;
    b->n->type = weir__fn_varchar(cap + seps + repl, false);
    return true;
}

static bool t_map(weir__fnbind *b)
{
    const weir__nested *d = nested_arg(b, 0, WEIR_TYPE_MAP);
    if (!d)
        return refuse(b, "<MAP>");
    int w = b->f->which;
    weir_type parts[2] = {d->types[0], d->types[1]};
    weir_type et;
    const char *why = NULL;
    if (w == C_ENTRIES) {
        static const char *const names[] = {"key", "value"};
        parts[0].not_null = false;
        parts[1].not_null = false;
        et = weir__nested_make(WEIR_TYPE_ROW, 2, names, parts, true, &why);
    } else {
        et = parts[w == C_KEYS ? 0 : 1];
    }
    weir_type t = et.id == WEIR_TYPE_NULL
                      ? et
                      : weir__nested_make(WEIR_TYPE_ARRAY, d->n, NULL, &et, true, &why);
    if (t.id == WEIR_TYPE_NULL) {
        weir__bind_fail(b->p, b->a->start, "%s: %s", b->f->name, why ? why : "too large");
        return false;
    }
    nested_result(b, t, b->n->args[0]->type.not_null);
    return true;
}

/* ---- evaluation ------------------------------------------------------------------------- */

/* Whether two element values are equal (a NULL equals a NULL). */
static bool same_value(weir_type t, const weir__val *a, const weir__val *b)
{
    if (a->null || b->null)
        return a->null && b->null;
    return weir__val_compare(t, a, b) == 0;
}

/* An array under construction in the call's room. */
typedef struct builder {
    const weir__nested *d;
    unsigned char *dst;
    uint32_t count;
} builder;

static void build_start(builder *w, const weir__fncall *c)
{
    w->d = weir__nested_of(c->n->type);
    w->dst = (unsigned char *)c->buf;
    memset(w->dst, 0, w->d->size);
    w->count = 0;
}

static int build_add(builder *w, const weir__val *v, const char **why)
{
    const weir__nested *d = w->d;
    if (w->count >= d->n) {
        *why = "a collection function's result has more elements than its capacity";
        return WEIR_ERANGE;
    }
    uint32_t at = w->count++;
    if (v->null) {
        w->dst[d->knulls + at / 8] |= (unsigned char)(1u << (at % 8));
        return 0;
    }
    return weir__slot_store(w->dst + d->koff + at * d->kstride, d->types[0], v, why);
}

static void build_end(builder *w, weir__val *o)
{
    memcpy(w->dst, &w->count, 4);
    *o = (weir__val){.s = (const char *)w->dst, .len = w->d->size};
}

static int e_array_needle(const weir__fncall *c, weir__val *o, const char **why)
{
    const weir__val *a = &c->args[0], *x = &c->args[1];
    int w = (int)c->n->aux[0];
    if (a->null || (w == C_POSITION && x->null)) {
        o->null = true;
        return 0;
    }
    const weir__nested *d = weir__nested_of(c->n->args[0]->type);
    const unsigned char *slot = (const unsigned char *)a->s;
    uint32_t n = weir__nested_count_of(d, slot);
    weir_type et = d->types[0];
    if (w == C_REMOVE) {
        builder b;
        build_start(&b, c);
        for (uint32_t i = 0; i < n; i++) {
            weir__val e;
            weir__nested_element(d, slot, 0, i, &e);
            int r;
            if (!same_value(et, &e, x) && (r = build_add(&b, &e, why)) != 0)
                return r;
        }
        build_end(&b, o);
        return 0;
    }
    for (uint32_t i = 0; i < n; i++) {
        weir__val e;
        weir__nested_element(d, slot, 0, i, &e);
        if (same_value(et, &e, x)) {
            o->i = w == C_CONTAINS ? 1 : (int64_t)i + 1;
            return 0;
        }
    }
    o->i = 0;
    return 0;
}

static int e_array(const weir__fncall *c, weir__val *o, const char **why)
{
    const weir__nested *d = weir__nested_of(c->n->args[0]->type);
    const unsigned char *slot = (const unsigned char *)c->args[0].s;
    uint32_t n = weir__nested_count_of(d, slot);
    weir_type et = d->types[0];
    int w = (int)c->n->aux[0];
    weir__val e;
    switch (w) {
    case C_ELEMENT:
        if (n > 1) {
            *why = "Array has more than one element.";
            return WEIR_EINVAL;
        }
        if (n == 0) {
            o->null = true;
            return 0;
        }
        weir__nested_element(d, slot, 0, 0, o);
        break;
    case C_MAX:
    case C_MIN: {
        bool found = false;
        for (uint32_t i = 0; i < n; i++) {
            weir__nested_element(d, slot, 0, i, &e);
            if (e.null)
                continue;
            int cmp = found ? weir__val_compare(et, &e, o) : 0;
            if (!found || (w == C_MAX ? cmp > 0 : cmp < 0))
                *o = e;
            found = true;
        }
        if (!found)
            *o = (weir__val){.null = true};
        break;
    }
    default: { /* DISTINCT, REVERSE */
        builder b;
        build_start(&b, c);
        for (uint32_t i = 0; i < n; i++) {
            weir__nested_element(d, slot, 0, w == C_REVERSE ? n - 1 - i : i, &e);
            if (w == C_DISTINCT) {
                bool seen = false;
                for (uint32_t k = 0; k < i && !seen; k++) {
                    weir__val f;
                    weir__nested_element(d, slot, 0, k, &f);
                    seen = same_value(et, &f, &e);
                }
                if (seen)
                    continue;
            }
            int r = build_add(&b, &e, why);
            if (r)
                return r;
        }
        build_end(&b, o);
        return 0;
    }
    }
    /* a string element copied out of the argument into the room */
    if (!o->null && weir__type_is_var(c->n->type.id)) {
        memcpy(c->buf, o->s, o->len);
        o->s = c->buf;
    }
    return 0;
}

static int e_concat(const weir__fncall *c, weir__val *o, const char **why)
{
    builder b;
    build_start(&b, c);
    for (int a = 0; a < c->n->nargs; a++) {
        const weir__nested *d = weir__nested_of(c->n->args[a]->type);
        const unsigned char *slot = (const unsigned char *)c->args[a].s;
        uint32_t n = weir__nested_count_of(d, slot);
        for (uint32_t i = 0; i < n; i++) {
            weir__val e;
            weir__nested_element(d, slot, 0, i, &e);
            int r = build_add(&b, &e, why);
            if (r)
                return r;
        }
    }
    build_end(&b, o);
    return 0;
}

/* ARRAY_JOIN(arr, sep[, nullReplacement]): the elements joined by sep, a
 * NULL element skipped or replaced. */
static int e_join(const weir__fncall *c, weir__val *o, const char **why)
{
    const weir__nested *d = weir__nested_of(c->n->args[0]->type);
    const unsigned char *slot = (const unsigned char *)c->args[0].s;
    uint32_t n = weir__nested_count_of(d, slot), len = 0, cap = c->n->type.capacity;
    const weir__val *sep = &c->args[1];
    const weir__val *repl = c->n->nargs > 2 ? &c->args[2] : NULL;
    bool first = true;
    for (uint32_t i = 0; i < n; i++) {
        weir__val e;
        weir__nested_element(d, slot, 0, i, &e);
        if (e.null) {
            if (!repl)
                continue;
            e = *repl;
        }
        uint32_t need = (first ? 0 : sep->len) + e.len;
        if (len + need > cap)
            return weir__fn_too_long(c, why);
        if (!first) {
            memcpy(c->buf + len, sep->s, sep->len);
            len += sep->len;
        }
        memcpy(c->buf + len, e.s, e.len);
        len += e.len;
        first = false;
    }
    o->s = c->buf;
    o->len = len;
    return 0;
}

static int e_map(const weir__fncall *c, weir__val *o, const char **why)
{
    const weir__nested *d = weir__nested_of(c->n->args[0]->type);
    const unsigned char *slot = (const unsigned char *)c->args[0].s;
    uint32_t n = weir__nested_count_of(d, slot);
    int w = (int)c->n->aux[0];
    builder b;
    build_start(&b, c);
    const weir__nested *rd = w == C_ENTRIES ? weir__nested_of(b.d->types[0]) : NULL;
    for (uint32_t i = 0; i < n; i++) {
        weir__val e;
        int r;
        if (rd) {
            /* ROW(key, value) written in place */
            uint32_t at = b.count;
            if (at >= b.d->n) {
                *why = "a collection function's result has more elements than its capacity";
                return WEIR_ERANGE;
            }
            unsigned char *row = b.dst + b.d->koff + at * b.d->kstride;
            memset(row, 0, rd->size);
            for (int part = 0; part < 2; part++) {
                weir__nested_element(d, slot, part, i, &e);
                if (e.null)
                    row[part / 8] |= (unsigned char)(1u << (part % 8)); /* a ROW's null bits */
                else if ((r = weir__slot_store(row + rd->offs[part], rd->types[part], &e, why)))
                    return r;
            }
            b.count++;
            continue;
        }
        weir__nested_element(d, slot, w == C_KEYS ? 0 : 1, i, &e);
        if ((r = build_add(&b, &e, why)) != 0)
            return r;
    }
    build_end(&b, o);
    return 0;
}

#define CALL WEIR_AST_FORM_CALL

const weir__builtin weir__fn_collection[] = {
    {"ARRAY_CONTAINS", 2, 2, CALL, FN_NULLS, NULL, t_array_needle, e_array_needle, C_CONTAINS},
    {"ARRAY_POSITION", 2, 2, CALL, FN_NULLS, NULL, t_array_needle, e_array_needle, C_POSITION},
    {"ARRAY_REMOVE", 2, 2, CALL, FN_NULLS, NULL, t_array_needle, e_array_needle, C_REMOVE},
    {"ARRAY_DISTINCT", 1, 1, CALL, 0, NULL, t_array, e_array, C_DISTINCT},
    {"ARRAY_REVERSE", 1, 1, CALL, 0, NULL, t_array, e_array, C_REVERSE},
    {"ARRAY_MAX", 1, 1, CALL, 0, NULL, t_array, e_array, C_MAX},
    {"ARRAY_MIN", 1, 1, CALL, 0, NULL, t_array, e_array, C_MIN},
    {"ELEMENT", 1, 1, CALL, 0, NULL, t_array, e_array, C_ELEMENT},
    {"ARRAY_CONCAT", 1, -1, CALL, 0, NULL, t_concat, e_concat, C_CONCAT},
    {"ARRAY_JOIN", 2, 3, CALL, 0, NULL, t_join, e_join, C_JOIN},
    {"MAP_KEYS", 1, 1, CALL, 0, NULL, t_map, e_map, C_KEYS},
    {"MAP_VALUES", 1, 1, CALL, 0, NULL, t_map, e_map, C_VALUES},
    {"MAP_ENTRIES", 1, 1, CALL, 0, NULL, t_map, e_map, C_ENTRIES},
    {NULL, 0, 0, CALL, 0, NULL, NULL, NULL, 0},
};
