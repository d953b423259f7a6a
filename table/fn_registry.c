/* fn_registry.c — the registry of the built-in scalar functions (fn.h):
 * the families' tables searched by name and syntax, a call bound (its
 * arguments against the entry's signatures, then the entry's type rule,
 * then its scratch region laid out), an OP_BUILTIN node evaluated, and the
 * helpers the families share (Flink's messages, UTF-8, Java's Random).
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/random.h>
#include <time.h>

#include "fn.h"
#include "weir/error.h"

/* ---- the table ------------------------------------------------------------------------ */

static const weir__builtin *const families[] = {weir__fn_string,  weir__fn_regex,
                                                weir__fn_numeric, weir__fn_cond,
                                                weir__fn_temporal, weir__fn_json,
                                                weir__fn_collection};

const weir__builtin *weir__builtin_find(const char *name, weir_ast_form form)
{
    for (size_t k = 0; k < sizeof families / sizeof families[0]; k++)
        for (const weir__builtin *f = families[k]; f->name; f++)
            if (strcasecmp(f->name, name) == 0 &&
                (f->form == form || (form == WEIR_AST_FORM_CALL && (f->flags & FN_CALL_TOO))))
                return f;
    return NULL;
}

bool weir__builtin_named(const char *name)
{
    for (size_t k = 0; k < sizeof families / sizeof families[0]; k++)
        for (const weir__builtin *f = families[k]; f->name; f++)
            if (strcasecmp(f->name, name) == 0)
                return true;
    return false;
}

void weir__builtin_each(void (*each)(const char *name, void *arg), void *arg)
{
    for (size_t k = 0; k < sizeof families / sizeof families[0]; k++)
        for (const weir__builtin *f = families[k]; f->name; f++) {
            if (f->form == WEIR_AST_FORM_INFIX || f->form == WEIR_AST_FORM_BETWEEN ||
                f->form == WEIR_AST_FORM_IS)
                continue;
            bool seen = false; /* an earlier entry of the name (FLOOR(x), FLOOR(x TO u)) */
            for (size_t j = 0; j <= k && !seen; j++)
                for (const weir__builtin *g = families[j]; g->name && g != f && !seen; g++)
                    seen = strcasecmp(g->name, f->name) == 0 && g->form != WEIR_AST_FORM_INFIX &&
                           g->form != WEIR_AST_FORM_BETWEEN && g->form != WEIR_AST_FORM_IS;
            if (!seen)
                each(f->name, arg);
        }
}

/* ---- Flink's messages ------------------------------------------------------------------- */

const char *weir__fn_type_name(weir_type t, char *buf, size_t size)
{
    switch (t.id) {
    case WEIR_TYPE_NULL: snprintf(buf, size, "NULL"); break;
    case WEIR_TYPE_INT: snprintf(buf, size, "INTEGER"); break;
    case WEIR_TYPE_TIMESTAMP_LTZ:
        snprintf(buf, size, "TIMESTAMP_WITH_LOCAL_TIME_ZONE(%d)", weir_type_precision(t));
        break;
    case WEIR_TYPE_INTERVAL: snprintf(buf, size, "INTERVAL DAY TO SECOND(3)"); break;
    default:
        t.not_null = false;
        weir_type_format(t, buf, size);
        break;
    }
    return buf;
}

static const char *family_name(char f)
{
    switch (f) {
    case 'S': return "STRING";
    case 'C': return "CHARACTER";
    case 'I': return "INTEGER";
    case 'E': return "EXACT_NUMERIC";
    case 'N': return "NUMERIC";
    case 'T': return "TIMESTAMP";
    case 'D': return "DATETIME";
    case 'B': return "BOOLEAN";
    case 'V': return "INTERVAL_DAY_TIME";
    default: return "ANY";
    }
}

/* A signature as Calcite writes one: 'F(<A>, <B>)', or '<A> LIKE <B>' for
 * an infix operator; each operand's text from `operand`. */
static void signature(const weir__builtin *f, int n, const char *(*operand)(int i, void *arg,
                                                                          char *buf, size_t size),
                      void *arg, char *out, size_t size, size_t *len)
{
    char t[64], t2[64];
    if (f->form == WEIR_AST_FORM_IS) {
        /* postfix: '<BOOLEAN> IS TRUE', '<A> IS DISTINCT FROM <B>' */
        weir__append(out, size, len, "'<%s> %s", operand(0, arg, t, sizeof t), f->name);
        if (n > 1)
            weir__append(out, size, len, " <%s>", operand(1, arg, t2, sizeof t2));
        weir__append(out, size, len, "'");
        return;
    }
    if (f->form == WEIR_AST_FORM_INFIX) {
        weir__append(out, size, len, "'<%s> %s <%s>", operand(0, arg, t, sizeof t), f->name,
                     n > 1 ? operand(1, arg, t2, sizeof t2) : "");
        if (n > 2)
            weir__append(out, size, len, " ESCAPE <%s>", operand(2, arg, t, sizeof t));
        weir__append(out, size, len, "'");
        return;
    }
    weir__append(out, size, len, "'%s(", f->name);
    for (int i = 0; i < n; i++)
        weir__append(out, size, len, "%s<%s>", i ? ", " : "", operand(i, arg, t, sizeof t));
    weir__append(out, size, len, ")'");
}

static const char *actual_operand(int i, void *arg, char *buf, size_t size)
{
    const weir__fnbind *b = arg;
    return weir__fn_type_name(b->n->args[i]->type, buf, size);
}

typedef struct sig_arg {
    const char *fams; /* one signature's families */
    int n;
} sig_arg;

static const char *family_operand(int i, void *arg, char *buf, size_t size)
{
    const sig_arg *s = arg;
    snprintf(buf, size, "%s", family_name(s->fams[2 * i]));
    return buf;
}

bool weir__fn_refuse(weir__fnbind *b)
{
    char msg[900];
    size_t len = 0;
    msg[0] = 0;
    /* JSON_VALUE's DEFAULT values are not its operands in Calcite's words */
    int shown = b->f->form == WEIR_AST_FORM_JSON ? 2 : b->n->nargs;
    weir__append(msg, sizeof msg, &len, "Cannot apply '%s' to arguments of type ", b->f->name);
    signature(b->f, shown, actual_operand, b, msg, sizeof msg, &len);
    weir__append(msg, sizeof msg, &len, ". Supported form(s): ");
    const char *s = b->f->sigs;
    bool first = true;
    while (s && *s) {
        /* one signature: families at even offsets ("S,I,S") */
        sig_arg sa = {.fams = s, .n = 0};
        const char *e = s;
        while (*e && *e != ';') {
            if (*e != ',' && *e != '*')
                sa.n++;
            e++;
        }
        if (sa.n > shown && b->f->form == WEIR_AST_FORM_JSON)
            sa.n = shown;
        if (!first) /* Calcite puts each on a line of its own */
            weir__append(msg, sizeof msg, &len, " ");
        first = false;
        signature(b->f, sa.n, family_operand, &sa, msg, sizeof msg, &len);
        s = *e ? e + 1 : e;
    }
    weir__bind_fail(b->p, b->a->start, "%s", msg);
    return false;
}

/* Calcite's family of a type, for "No match found for function signature". */
static const char *type_family(weir_type t)
{
    if (t.id == WEIR_TYPE_NULL)
        return "NULL";
    if (weir__type_is_string(t.id))
        return "CHARACTER";
    if (weir__type_is_numeric(t.id))
        return "NUMERIC";
    if (t.id == WEIR_TYPE_BOOLEAN)
        return "BOOLEAN";
    if (weir__type_is_time(t.id))
        return "TIMESTAMP";
    if (t.id == WEIR_TYPE_INTERVAL)
        return "INTERVAL_DAY_TIME";
    return "ANY";
}

/* ---- the arguments against the signatures ---------------------------------------------- */

static bool in_family(char f, weir_type t)
{
    if (t.id == WEIR_TYPE_NULL)
        return true;
    switch (f) {
    case 'S':
    case 'C': return weir__type_is_string(t.id);
    case 'I': return weir__type_is_integer(t.id);
    case 'E': return weir__type_is_integer(t.id) || t.id == WEIR_TYPE_DECIMAL;
    case 'N': return weir__type_is_numeric(t.id);
    case 'T': return weir__type_is_time(t.id);
    case 'D': return weir__type_is_datetime(t.id);
    case 'B': return t.id == WEIR_TYPE_BOOLEAN;
    case 'V': return t.id == WEIR_TYPE_INTERVAL;
    default: return true;
    }
}

/* A NULL literal typed as the family takes it. */
static weir_type family_type(char f)
{
    weir_type t = {.id = WEIR_TYPE_VARCHAR, .capacity = 1};
    switch (f) {
    case 'I':
    case 'E': t.id = WEIR_TYPE_INT; t.capacity = 0; break;
    case 'N': t.id = WEIR_TYPE_INT; t.capacity = 0; break; /* the narrowest: others widen it */
    case 'T':
    case 'D': t.id = WEIR_TYPE_TIMESTAMP; t.capacity = 0; break;
    case 'B': t.id = WEIR_TYPE_BOOLEAN; t.capacity = 0; break;
    case 'A': t.id = WEIR_TYPE_NULL; t.capacity = 0; break; /* the rule types it */
    default: break;
    }
    return t;
}

/* The first signature the arguments match: b->sig, NULL literals typed
 * by it; false after Flink's message. */
static bool match_signatures(weir__fnbind *b)
{
    const char *s = b->f->sigs;
    for (int k = 0; *s; k++) {
        const char *e = s;
        while (*e && *e != ';')
            e++;
        /* families s..e: "S,I,S" or "S*" */
        bool ok = true;
        const char *c = s;
        char last = 'A';
        bool repeat = false;
        int i = 0;
        for (; i < b->n->nargs; i++) {
            while (c < e && *c == ',')
                c++;
            if (c < e && *c != '*') {
                last = *c++;
                if (c < e && *c == '*') {
                    repeat = true;
                    c++;
                }
            } else if (!repeat) {
                ok = false; /* more arguments than families */
                break;
            }
            if (!in_family(last, b->n->args[i]->type)) {
                ok = false;
                break;
            }
        }
        while (c < e && (*c == ',' || *c == '*'))
            c++;
        if (ok && c == e) {
            b->sig = k;
            /* type the NULL literals */
            c = s;
            for (i = 0; i < b->n->nargs; i++) {
                while (c < e && *c == ',')
                    c++;
                if (c < e && *c != '*') {
                    last = *c++;
                    if (c < e && *c == '*')
                        c++;
                }
                weir__bind_retype_null(b->n->args[i], family_type(last));
            }
            return true;
        }
        s = *e ? e + 1 : e;
    }
    return weir__fn_refuse(b);
}

/* ---- binding ------------------------------------------------------------------------------ */

bool weir__fn_literal(const weir__fnbind *b, int i, const weir__val **v)
{
    const weir__enode *x = b->n->args[i];
    while (x->op == OP_CAST && x->implicit)
        x = x->a;
    if (x->op != OP_LIT || x->lit.null)
        return false;
    if (v)
        *v = &x->lit;
    return true;
}

weir_type weir__fn_varchar(uint64_t bytes, bool not_null)
{
    weir_type t = {.id = WEIR_TYPE_VARCHAR, .not_null = not_null};
    if (bytes == 0)
        bytes = 1;
    t.capacity = bytes > WEIR_STRING_MAX_CAPACITY ? WEIR_STRING_MAX_CAPACITY : (uint32_t)bytes;
    return t;
}

bool weir__fn_args_not_null(const weir__fnbind *b)
{
    for (int i = 0; i < b->n->nargs; i++)
        if (!b->n->args[i]->type.not_null)
            return false;
    return true;
}

static bool wrong_count(weir__fnbind *b, const weir_ast *a, int count)
{
    const weir__builtin *f = b->f;
    if (f->min == f->max) {
        weir__bind_fail(b->p, a->start,
                        "Invalid number of arguments to function '%s'. Was expecting %d "
                        "arguments",
                        f->name, f->min);
        return false;
    }
    /* Calcite's lookup by name and count: the arguments' families */
    char msg[600];
    size_t len = 0;
    weir__append(msg, sizeof msg, &len, "No match found for function signature %s(", f->name);
    int k = 0;
    for (int i = 0; i < a->nargs; i++) {
        if (a->args[i]->kind == WEIR_AST_SYMBOL)
            continue;
        weir__enode *x = weir__bind_tree(b->p, a->args[i]);
        if (!x)
            return false;
        weir__append(msg, sizeof msg, &len, "%s<%s>", k++ ? ", " : "", type_family(x->type));
    }
    weir__append(msg, sizeof msg, &len, ")");
    (void)count;
    weir__bind_fail(b->p, a->start, "%s", msg);
    return false;
}

weir__enode *weir__bind_builtin(weir__binder *p, const weir_ast *a, const weir__builtin *f)
{
    if (a->star || a->distinct) {
        weir__bind_fail(p, a->start, "%s in a call of %s: only aggregates take it",
                        a->star ? "*" : "DISTINCT", f->name);
        return NULL;
    }
    weir__fnbind b = {.p = p, .f = f, .a = a};
    int count = 0;
    for (int i = 0; i < a->nargs; i++) {
        if (a->args[i]->kind != WEIR_AST_SYMBOL)
            count++;
        else if (b.nsym < 4)
            b.sym[b.nsym++] = a->args[i]->text;
    }
    if (count < f->min || (f->max >= 0 && count > f->max)) {
        wrong_count(&b, a, count);
        return NULL;
    }
    weir__enode *n = weir__bind_new(p, OP_BUILTIN, a->start);
    if (!n)
        return NULL;
    n->bi = f;
    n->aux[0] = f->which;
    b.n = n;
    if (count && !(n->args = calloc((size_t)count, sizeof *n->args))) {
        weir__bind_nomem(p);
        return NULL;
    }
    for (int i = 0; i < a->nargs; i++)
        if (a->args[i]->kind != WEIR_AST_SYMBOL &&
            !(n->args[n->nargs++] = weir__bind_tree(p, a->args[i])))
            return NULL;
    if (f->sigs && !match_signatures(&b))
        return NULL;
    if (!f->check(&b))
        return NULL;
    if (weir__bind_failed(p))
        return NULL;
    if (f->flags & FN_FORCE_NULL)
        n->type.not_null = false;
    if (weir__type_is_string(n->type.id) && n->room < n->type.capacity + 1)
        n->room = n->type.capacity + 1;
    n->room = (n->room + 7u) & ~7u;
    uint64_t args_bytes = (uint64_t)n->nargs * sizeof(weir__val);
    uint64_t bytes = 8 + args_bytes + n->room + ((b.work + 7u) & ~7u);
    if (bytes > WEIR_ROW_MAX_SIZE * 4ull) {
        weir__bind_fail(p, a->start, "%s: its result and work need %" PRIu64
                        " bytes, more than an expression may take",
                        f->name, bytes);
        return NULL;
    }
    n->work = (uint32_t)(args_bytes + n->room);
    if (weir__type_is_string(n->type.id)) {
        /* what a result over the capacity says (the row fails with it) */
        char m[160];
        int k = snprintf(m, sizeof m, "%s's result is longer than its capacity %u", f->name,
                         n->type.capacity);
        if (!(n->sbuf = malloc((size_t)k + 1))) {
            weir__bind_nomem(p);
            return NULL;
        }
        memcpy(n->sbuf, m, (size_t)k + 1);
    }
    n->scratch = weir__bind_scratch(p, (uint32_t)bytes);
    return n;
}

/* ---- evaluation ----------------------------------------------------------------------------- */

int weir__builtin_eval(const weir__enode *n, const unsigned char *row, unsigned char *sc,
                       weir__val *o, const char **why)
{
    const weir__builtin *f = n->bi;
    uintptr_t at = (uintptr_t)(sc + n->scratch);
    weir__val *args = (weir__val *)(void *)((at + 7u) & ~(uintptr_t)7u);
    bool null = false;
    for (int i = 0; i < n->nargs; i++) {
        int r = weir__expr_eval_node(n->args[i], row, sc, &args[i], why);
        if (r)
            return r;
        null = null || args[i].null;
    }
    *o = (weir__val){0};
    if (null && !(f->flags & FN_NULLS)) {
        o->null = true;
        return 0;
    }
    unsigned char *base = (unsigned char *)args;
    weir__fncall c = {.n = n, .args = args, .buf = (char *)(base + n->nargs * sizeof *args),
                      .work = base + n->work, .sc = sc};
    return f->eval(&c, o, why);
}

int weir__fn_too_long(const weir__fncall *c, const char **why)
{
    *why = c->n->sbuf ? c->n->sbuf : "a result longer than its capacity";
    return WEIR_ERANGE;
}

/* ---- UTF-8 ------------------------------------------------------------------------------------ */

uint32_t weir__utf8_count(const char *s, uint32_t len)
{
    uint32_t c = 0;
    for (uint32_t i = 0; i < len; i++)
        c += ((unsigned char)s[i] & 0xC0) != 0x80;
    return c;
}

uint32_t weir__utf8_offset(const char *s, uint32_t len, int64_t k)
{
    uint32_t i = 0;
    while (k > 0 && i < len) {
        i++;
        while (i < len && ((unsigned char)s[i] & 0xC0) == 0x80)
            i++;
        k--;
    }
    return i;
}

uint32_t weir__utf8_decode(const char *s, uint32_t n, uint32_t *used)
{
    const unsigned char *u = (const unsigned char *)s;
    uint32_t l = weir__utf8_len(u[0]);
    if (u[0] < 0x80) {
        *used = 1;
        return u[0];
    }
    if (u[0] < 0xC2 || u[0] > 0xF4 || l > n)
        goto bad;
    uint32_t cp = u[0] & (0xFF >> (l + 1));
    for (uint32_t i = 1; i < l; i++) {
        if ((u[i] & 0xC0) != 0x80)
            goto bad;
        cp = (cp << 6) | (u[i] & 0x3F);
    }
    if ((l == 3 && cp < 0x800) || (l == 4 && (cp < 0x10000 || cp > 0x10FFFF)) ||
        (cp >= 0xD800 && cp <= 0xDFFF))
        goto bad;
    *used = l;
    return cp;
bad:
    *used = 1;
    return 0xFFFD;
}

uint32_t weir__utf8_encode(uint32_t cp, char *d)
{
    unsigned char *u = (unsigned char *)d;
    if (cp < 0x80) {
        u[0] = (unsigned char)cp;
        return 1;
    }
    if (cp < 0x800) {
        u[0] = (unsigned char)(0xC0 | (cp >> 6));
        u[1] = (unsigned char)(0x80 | (cp & 0x3F));
        return 2;
    }
    if (cp < 0x10000) {
        u[0] = (unsigned char)(0xE0 | (cp >> 12));
        u[1] = (unsigned char)(0x80 | ((cp >> 6) & 0x3F));
        u[2] = (unsigned char)(0x80 | (cp & 0x3F));
        return 3;
    }
    u[0] = (unsigned char)(0xF0 | (cp >> 18));
    u[1] = (unsigned char)(0x80 | ((cp >> 12) & 0x3F));
    u[2] = (unsigned char)(0x80 | ((cp >> 6) & 0x3F));
    u[3] = (unsigned char)(0x80 | (cp & 0x3F));
    return 4;
}

/* ---- Java's Random ------------------------------------------------------------------------------ */

#define JR_MULT 0x5DEECE66DULL
#define JR_MASK ((1ULL << 48) - 1)

void weir__jrandom_seed(weir__jrandom *r, int64_t seed)
{
    r->seed = ((uint64_t)seed ^ JR_MULT) & JR_MASK;
}

int32_t weir__jrandom_next(weir__jrandom *r, int bits)
{
    r->seed = (r->seed * JR_MULT + 0xBULL) & JR_MASK;
    return (int32_t)(uint32_t)(r->seed >> (48 - bits));
}

double weir__jrandom_double(weir__jrandom *r)
{
    int64_t hi = (int64_t)(uint32_t)weir__jrandom_next(r, 26);
    int64_t lo = (int64_t)(uint32_t)weir__jrandom_next(r, 27);
    return (double)((hi << 27) + lo) * 0x1.0p-53;
}

int32_t weir__jrandom_int(weir__jrandom *r, int32_t bound)
{
    /* Java 8's nextInt(bound); bound > 0 */
    int32_t rr = weir__jrandom_next(r, 31);
    int32_t m = bound - 1;
    if ((bound & m) == 0)
        return (int32_t)(((int64_t)bound * (int64_t)rr) >> 31);
    for (int32_t u = rr;; u = weir__jrandom_next(r, 31)) {
        rr = u % bound;
        if ((int32_t)((uint32_t)u - (uint32_t)rr + (uint32_t)m) >= 0)
            break;
    }
    return rr;
}

void weir__fn_random_bytes(unsigned char *out, size_t n)
{
    /* xoshiro-style per-thread generator, seeded once from the system */
    static _Thread_local uint64_t s[2];
    static _Thread_local bool seeded;
    if (!seeded) {
        if (getrandom(s, sizeof s, 0) != (ssize_t)sizeof s) {
            struct timespec t;
            clock_gettime(CLOCK_REALTIME, &t);
            s[0] = (uint64_t)t.tv_nsec * 0x9E3779B97F4A7C15ULL ^ (uint64_t)(uintptr_t)&s;
            s[1] = (uint64_t)t.tv_sec ^ 0xD1B54A32D192ED03ULL;
        }
        if (!s[0] && !s[1])
            s[0] = 1;
        seeded = true;
    }
    while (n) {
        /* xorshift128+ */
        uint64_t x = s[0], y = s[1];
        s[0] = y;
        x ^= x << 23;
        s[1] = x ^ y ^ (x >> 17) ^ (y >> 26);
        uint64_t v = s[1] + y;
        size_t k = n < 8 ? n : 8;
        memcpy(out, &v, k);
        out += k;
        n -= k;
    }
}
