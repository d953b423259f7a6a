/* table_expr.c — the expression language (weir/expr.h): a lexer and a
 * recursive-descent parser that types every node as it builds it, against
 * the schema the expression reads.
 *
 * "Compiled" here means: after weir_expr_compile the expression is a tree
 * of typed nodes whose columns are resolved to row offsets, whose implicit
 * conversions are explicit CAST nodes (so an ADD node of type BIGINT knows
 * both operands are BIGINT), and whose string results each own a region of
 * a scratch buffer sized at compile time (a || b writes at most cap a + cap
 * b bytes). Evaluating it is a walk with one switch per node: no lookups,
 * no parsing, no allocation. The caller owns the scratch (one per subtask),
 * so one compiled expression serves every thread at once.
 *
 * The parser is hand-written: the grammar is small, and the SQL front-end
 * (issue 15) parses the same expressions with its own statements around
 * them, which a generated parser would make harder to share.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <unicase.h>

#include "table_internal.h"
#include "weir/error.h"

typedef enum op {
    OP_LIT, OP_COL, OP_NEG, OP_ADD, OP_SUB, OP_MUL, OP_DIV, OP_MOD,
    OP_EQ, OP_NE, OP_LT, OP_LE, OP_GT, OP_GE, /* in this order: ev() tests the range */
    OP_AND, OP_OR, OP_NOT, OP_ISNULL, OP_ISNOTNULL, OP_IN,
    OP_CASE, OP_CAST, OP_COALESCE, OP_CONCAT, OP_UPPER, OP_LOWER, OP_CHARLEN,
    OP_AGG
} op;

struct weir__enode {
    op op;
    weir_type type;
    weir__enode *a, *b;
    weir__enode **args;  /* IN: the list; CASE: cond, value, ..., [else]; COALESCE */
    int nargs;
    bool has_else;       /* CASE */
    bool negate;         /* NOT IN */
    weir__val lit;       /* OP_LIT */
    char *sbuf;          /* a string literal's bytes */
    int col;             /* OP_COL */
    uint32_t off;        /* OP_COL: offset in the row */
    uint32_t scratch;    /* string results: offset in the scratch */
    uint32_t chars;      /* OP_CAST to a string: the characters it keeps (0: any) */
    weir_agg_kind agg;   /* OP_AGG */
    bool distinct;
    const char *arg_text; /* OP_AGG: its argument's text in the expression */
    size_t arg_len;
    int pos;
    weir__enode *next_alloc;
};

/* ---- lexer ----------------------------------------------------------------- */

typedef enum tok_kind { T_END, T_IDENT, T_QIDENT, T_INT, T_DEC, T_STR, T_SYM } tok_kind;

typedef struct tok {
    tok_kind kind;
    const char *p;
    size_t len;
    int pos; /* 1-based */
} tok;

typedef struct parser {
    const char *text;
    const char *cur;
    tok t;
    const weir_schema *schema;
    weir_expr *e;
    char *err;
    size_t errsize;
    int failed;
    int naggs;
    weir__enode *first_agg;
} parser;

static void perr(parser *p, int pos, const char *fmt, ...) WEIR_PRINTF(3, 4);
static void perr(parser *p, int pos, const char *fmt, ...)
{
    if (p->failed)
        return;
    p->failed = WEIR_EINVAL;
    if (!p->err || !p->errsize)
        return;
    char echo[WEIR__EXPR_ECHO + 4];
    int n = snprintf(p->err, p->errsize, "%s at %d: ", weir__expr_echo(p->text, echo), pos);
    if (n < 0 || (size_t)n >= p->errsize)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(p->err + n, p->errsize - (size_t)n, fmt, ap);
    va_end(ap);
}

/* A byte of a bare name, as SQL's lexer takes one (and Calcite's): letters,
 * digits (not first), '_', '$' and every byte of a non-ASCII character. */
static bool ident_char(char c)
{
    unsigned char u = (unsigned char)c;
    return isalnum(u) || u == '_' || u == '$' || u >= 0x80;
}

/* The end of the number at `s`; *dec says whether it has a fraction or an
 * exponent. */
static const char *number_end(const char *s, bool *dec)
{
    const char *e = s;
    *dec = false;
    while (isdigit((unsigned char)*e))
        e++;
    if (*e == '.') {
        *dec = true;
        e++;
        while (isdigit((unsigned char)*e))
            e++;
    }
    if (*e == 'e' || *e == 'E') {
        const char *f = e + 1;
        if (*f == '+' || *f == '-')
            f++;
        if (isdigit((unsigned char)*f)) {
            *dec = true;
            e = f;
            while (isdigit((unsigned char)*e))
                e++;
        }
    }
    return e;
}

/* The end of the quoted string at `s` ('' is a quote inside it), or of the
 * text if it is unterminated (which fails). */
static const char *string_end(parser *p, const char *s, int pos)
{
    const char *e = s + 1;
    for (;;) {
        if (!*e) {
            perr(p, pos, "unterminated string");
            return e;
        }
        if (*e == '\'') {
            if (e[1] != '\'')
                return e + 1;
            e++;
        }
        e++;
    }
}

/* The next token into p->t. */
static void next(parser *p)
{
    const char *s = p->cur;
    while (*s && isspace((unsigned char)*s))
        s++;
    tok t = {.p = s, .pos = (int)(s - p->text) + 1};
    if (!*s) {
        t.kind = T_END;
    } else if (ident_char(*s) && !isdigit((unsigned char)*s)) {
        const char *e = s;
        while (ident_char(*e))
            e++;
        t.kind = T_IDENT;
        t.len = (size_t)(e - s);
    } else if (*s == '`') {
        /* The token is the name inside the quotes (a doubled back quote in
         * it is one: token_text unescapes); the text resumes after the
         * closing one. */
        const char *e = s + 1;
        for (;;) {
            e = strchr(e, '`');
            if (!e || e[1] != '`')
                break;
            e += 2;
        }
        if (!e) {
            perr(p, t.pos, "unterminated `name`");
            e = s + strlen(s) - 1;
        }
        t.kind = T_QIDENT;
        t.p = s + 1;
        t.len = (size_t)(e - s - 1);
        p->cur = e + (*e ? 1 : 0);
        p->t = t;
        return;
    } else if (isdigit((unsigned char)*s) || (*s == '.' && isdigit((unsigned char)s[1]))) {
        bool dec;
        t.len = (size_t)(number_end(s, &dec) - s);
        t.kind = dec ? T_DEC : T_INT;
    } else if (*s == '\'') {
        t.kind = T_STR;
        t.len = (size_t)(string_end(p, s, t.pos) - s);
    } else {
        static const char *two[] = {"||", "<>", "!=", "<=", ">="};
        t.kind = T_SYM;
        t.len = 1;
        for (size_t i = 0; i < sizeof two / sizeof two[0]; i++)
            if (s[0] == two[i][0] && s[1] == two[i][1])
                t.len = 2;
        if (t.len == 1 && !strchr("(),+-*/%=<>.", *s))
            perr(p, t.pos, "unexpected character '%c'", *s);
    }
    p->cur = t.p + t.len;
    p->t = t;
}

static bool is_kw(const tok *t, const char *kw)
{
    return t->kind == T_IDENT && strlen(kw) == t->len && strncasecmp(t->p, kw, t->len) == 0;
}

static bool is_sym(const tok *t, const char *s)
{
    return t->kind == T_SYM && strlen(s) == t->len && strncmp(t->p, s, t->len) == 0;
}

static bool accept_kw(parser *p, const char *kw)
{
    if (is_kw(&p->t, kw)) {
        next(p);
        return true;
    }
    return false;
}

static bool accept_sym(parser *p, const char *s)
{
    if (is_sym(&p->t, s)) {
        next(p);
        return true;
    }
    return false;
}

static void expect_sym(parser *p, const char *s)
{
    if (!accept_sym(p, s))
        perr(p, p->t.pos, "expected '%s'", s);
}

/* ---- nodes ------------------------------------------------------------------- */

static weir__enode *node(parser *p, op o, int pos)
{
    weir__enode *n = calloc(1, sizeof *n);
    if (!n) {
        if (!p->failed) {
            p->failed = WEIR_ENOMEM;
            if (p->err && p->errsize)
                snprintf(p->err, p->errsize, "out of memory");
        }
        return NULL;
    }
    n->op = o;
    n->pos = pos;
    n->col = -1;
    n->next_alloc = p->e->nodes;
    p->e->nodes = n;
    return n;
}

static uint32_t scratch(parser *p, uint32_t bytes)
{
    uint32_t at = p->e->scratch;
    p->e->scratch += (bytes + 7u) & ~7u;
    return at;
}

static const char *tname(weir_type t, char *buf)
{
    t.not_null = false;
    weir_type_format(t, buf, 48);
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
    case WEIR_TYPE_INT: return 11;
    case WEIR_TYPE_BIGINT:
    case WEIR_TYPE_INTERVAL: return 20;
    case WEIR_TYPE_DOUBLE: return 32;
    case WEIR_TYPE_TIMESTAMP:
    case WEIR_TYPE_TIMESTAMP_LTZ: return 23;
    case WEIR_TYPE_VARCHAR:
    case WEIR_TYPE_CHAR: return t.capacity;
    default: return 4;
    }
}

/* A CAST node to `to`, or n itself if it already has that type. */
static weir__enode *cast_to(parser *p, weir__enode *n, weir_type to)
{
    if (!n)
        return NULL;
    if (n->type.id == to.id &&
        (!weir__type_is_string(to.id) || n->type.capacity == to.capacity))
        return n;
    weir__enode *c = node(p, OP_CAST, n->pos);
    if (!c)
        return NULL;
    c->a = n;
    c->type = to;
    c->type.not_null = n->type.not_null;
    if (weir__type_is_string(to.id))
        c->scratch = scratch(p, to.capacity);
    return c;
}

/* The common type of two numeric types (Flink: the wider one). */
static weir_type_id wider(weir_type_id a, weir_type_id b)
{
    if (a == WEIR_TYPE_DOUBLE || b == WEIR_TYPE_DOUBLE)
        return WEIR_TYPE_DOUBLE;
    if (a == WEIR_TYPE_BIGINT || b == WEIR_TYPE_BIGINT)
        return WEIR_TYPE_BIGINT;
    return WEIR_TYPE_INT;
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
static bool unify(parser *p, weir__enode **a, weir__enode **b, int pos, const char *what)
{
    if (!*a || !*b)
        return false;
    retype_null(*a, (*b)->type);
    retype_null(*b, (*a)->type);
    weir_type_id x = (*a)->type.id, y = (*b)->type.id;
    if (x == WEIR_TYPE_NULL && y == WEIR_TYPE_NULL)
        return true;
    if (weir__type_is_numeric(x) && weir__type_is_numeric(y)) {
        weir_type t = mk(wider(x, y), false);
        *a = cast_to(p, *a, t);
        *b = cast_to(p, *b, t);
        return *a && *b;
    }
    if (weir__type_is_string(x) && weir__type_is_string(y))
        return true;
    if (weir__type_is_time(x) && weir__type_is_time(y))
        return true;
    if (x == y)
        return true;
    char t1[48], t2[48];
    perr(p, pos, "cannot %s %s with %s", what, tname((*a)->type, t1), tname((*b)->type, t2));
    return false;
}

/* ---- parser -------------------------------------------------------------------- */

static weir__enode *parse_or(parser *p);

static int64_t unit_ms(const tok *t, bool *ok)
{
    static const struct { const char *s; int64_t ms; } units[] = {
        {"MILLISECOND", 1}, {"MILLISECONDS", 1}, {"SECOND", 1000}, {"SECONDS", 1000},
        {"MINUTE", 60000}, {"MINUTES", 60000}, {"HOUR", 3600000}, {"HOURS", 3600000},
        {"DAY", 86400000}, {"DAYS", 86400000},
    };
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
        if (is_kw(t, units[i].s)) {
            *ok = true;
            return units[i].ms;
        }
    *ok = false;
    return 0;
}

/* A string literal's value (quotes removed, '' unescaped), into a new buffer. */
static char *unquote(parser *p, const tok *t, uint32_t *len)
{
    char *s = malloc(t->len + 1);
    if (!s) {
        perr(p, t->pos, "out of memory");
        return NULL;
    }
    size_t n = 0;
    for (size_t i = 1; i + 1 < t->len; i++) {
        s[n++] = t->p[i];
        if (t->p[i] == '\'' && t->p[i + 1] == '\'')
            i++;
    }
    s[n] = 0;
    *len = (uint32_t)n;
    return s;
}

static weir__enode *parse_interval(parser *p, int pos)
{
    bool neg = accept_sym(p, "-");
    if (p->t.kind != T_STR && p->t.kind != T_INT) {
        perr(p, p->t.pos, "expected the interval's value ('5')");
        return NULL;
    }
    char buf[32];
    size_t n = p->t.kind == T_STR ? p->t.len - 2 : p->t.len;
    const char *v = p->t.kind == T_STR ? p->t.p + 1 : p->t.p;
    if (n == 0 || n >= sizeof buf) {
        perr(p, p->t.pos, "bad interval value");
        return NULL;
    }
    memcpy(buf, v, n);
    buf[n] = 0;
    char *end;
    errno = 0;
    long long x = strtoll(buf, &end, 10);
    if (*end || errno) {
        perr(p, p->t.pos, "bad interval value '%s' (whole numbers only)", buf);
        return NULL;
    }
    next(p);
    bool ok;
    int64_t ms = unit_ms(&p->t, &ok);
    if (!ok) {
        perr(p, p->t.pos, "expected an interval unit (MILLISECOND, SECOND, MINUTE, HOUR, DAY)");
        return NULL;
    }
    next(p);
    weir__enode *l = node(p, OP_LIT, pos);
    if (!l)
        return NULL;
    if (__builtin_mul_overflow((int64_t)x, ms, &l->lit.i)) {
        perr(p, pos, "interval out of range");
        return NULL;
    }
    if (neg)
        l->lit.i = -l->lit.i;
    l->type = mk(WEIR_TYPE_INTERVAL, true);
    return l;
}

static weir__enode *parse_type_cast(parser *p, int pos)
{
    expect_sym(p, "(");
    weir__enode *x = parse_or(p);
    if (!accept_kw(p, "AS")) {
        perr(p, p->t.pos, "expected AS in CAST");
        return NULL;
    }
    /* The type's text runs to the matching ')'. */
    const char *s = p->t.p;
    int depth = 0;
    const char *e = s;
    while (*e && !(depth == 0 && *e == ')')) {
        if (*e == '(')
            depth++;
        else if (*e == ')')
            depth--;
        e++;
    }
    if (!*e) {
        perr(p, p->t.pos, "expected ')' after the CAST's type");
        return NULL;
    }
    char tt[64];
    size_t n = (size_t)(e - s);
    if (n >= sizeof tt) {
        perr(p, p->t.pos, "bad type in CAST");
        return NULL;
    }
    memcpy(tt, s, n);
    tt[n] = 0;
    weir_type t;
    char why[128];
    if (weir_type_parse(tt, &t, why, sizeof why)) {
        perr(p, p->t.pos, "%s", why);
        return NULL;
    }
    if (t.id == WEIR_TYPE_VARCHAR && t.capacity == 0)
        t.capacity = p->schema->string_capacity;
    p->cur = e + 1;
    next(p);
    if (!x)
        return NULL;
    retype_null(x, t);
    weir_type_id from = x->type.id;
    bool ok = from == t.id || from == WEIR_TYPE_NULL || weir__type_is_string(t.id) ||
              weir__type_is_string(from) ||
              (weir__type_is_numeric(from) && weir__type_is_numeric(t.id)) ||
              (weir__type_is_time(from) && weir__type_is_time(t.id)) ||
              (weir__type_is_time(from) && t.id == WEIR_TYPE_BIGINT) ||
              (from == WEIR_TYPE_BIGINT && weir__type_is_time(t.id)) ||
              (from == WEIR_TYPE_BOOLEAN && weir__type_is_integer(t.id)) ||
              (weir__type_is_integer(from) && t.id == WEIR_TYPE_BOOLEAN);
    if (!ok) {
        char t1[48], t2[48];
        perr(p, pos, "cannot cast %s to %s", tname(x->type, t1), tname(t, t2));
        return NULL;
    }
    weir__enode *c = node(p, OP_CAST, pos);
    if (!c)
        return NULL;
    c->a = x;
    c->type = t;
    c->type.not_null = x->type.not_null && !(weir__type_is_string(from) && !weir__type_is_string(t.id));
    if (weir__type_is_string(t.id)) {
        /* VARCHAR(n) keeps n characters, as Flink counts them; a capacity
         * is bytes, so a string of more than n bytes may need up to 4n
         * (UTF-8). CHAR(n) stays n bytes, padded: it keeps the characters
         * that fit. */
        c->chars = t.capacity;
        if (t.id == WEIR_TYPE_VARCHAR && weir__type_is_string(from) &&
            x->type.capacity > t.capacity) {
            uint64_t most = 4 * (uint64_t)t.capacity;
            if (most > x->type.capacity)
                most = x->type.capacity;
            if (most > WEIR_STRING_MAX_CAPACITY)
                most = WEIR_STRING_MAX_CAPACITY;
            c->type.capacity = (uint32_t)most;
        }
        c->scratch = scratch(p, c->type.capacity > text_cap(x->type) ? c->type.capacity
                                                                   : text_cap(x->type));
    }
    return c;
}

/* Appends x to n->args (as many as the expression has: an IN list or a
 * CASE of any length), growing it by doubling. false after an error. */
static bool push_arg(parser *p, weir__enode *n, weir__enode *x, int *cap)
{
    if (n->nargs == *cap) {
        int c = *cap ? 2 * *cap : 4;
        weir__enode **v = realloc(n->args, (size_t)c * sizeof *v);
        if (!v) {
            perr(p, n->pos, "out of memory");
            return false;
        }
        n->args = v;
        *cap = c;
    }
    n->args[n->nargs++] = x;
    return true;
}

/* Parses "(args...)" of a function call into n->args. */
static bool parse_args(parser *p, weir__enode *n, int min, int max)
{
    expect_sym(p, "(");
    int cap = 0;
    if (!is_sym(&p->t, ")")) {
        do {
            weir__enode *x = parse_or(p);
            if (!p->failed && !push_arg(p, n, x, &cap))
                return false;
        } while (!p->failed && accept_sym(p, ","));
    }
    expect_sym(p, ")");
    if (p->failed)
        return false;
    if (n->nargs < min || (max >= 0 && n->nargs > max)) {
        perr(p, n->pos, "wrong number of arguments (%d)", n->nargs);
        return false;
    }
    return true;
}

static weir__enode *parse_agg(parser *p, weir_agg_kind kind, const char *name, int pos)
{
    weir__enode *n = node(p, OP_AGG, pos);
    if (!n)
        return NULL;
    n->agg = kind;
    p->naggs++;
    if (!p->first_agg)
        p->first_agg = n;
    expect_sym(p, "(");
    if (kind == WEIR_AGG_COUNT && accept_sym(p, "*")) {
        n->agg = WEIR_AGG_COUNT_STAR;
    } else {
        if (accept_kw(p, "DISTINCT"))
            n->distinct = true;
        n->arg_text = p->t.p;
        n->a = parse_or(p);
        n->arg_len = (size_t)(p->t.p - n->arg_text);
        while (n->arg_len && (n->arg_text[n->arg_len - 1] == ' ' ||
                              n->arg_text[n->arg_len - 1] == '\t' ||
                              n->arg_text[n->arg_len - 1] == '\n'))
            n->arg_len--;
    }
    expect_sym(p, ")");
    if (p->failed)
        return NULL;
    if (n->a && n->a->op == OP_AGG) {
        perr(p, n->a->pos, "an aggregate inside an aggregate");
        return NULL;
    }
    char t1[48];
    if (n->a && kind != WEIR_AGG_COUNT && !weir__type_is_numeric(n->a->type.id) &&
        (kind == WEIR_AGG_SUM || kind == WEIR_AGG_AVG)) {
        perr(p, pos, "%s of %s: a number is required", name, tname(n->a->type, t1));
        return NULL;
    }
    if (n->a && (kind == WEIR_AGG_MIN || kind == WEIR_AGG_MAX) &&
        (n->a->type.id == WEIR_TYPE_NULL || n->a->type.id == WEIR_TYPE_INTERVAL)) {
        perr(p, pos, "%s of %s", name, tname(n->a->type, t1));
        return NULL;
    }
    if (n->distinct && kind != WEIR_AGG_COUNT) {
        perr(p, pos, "DISTINCT is supported in COUNT only");
        return NULL;
    }
    switch (n->agg) {
    case WEIR_AGG_COUNT_STAR:
    case WEIR_AGG_COUNT: n->type = mk(WEIR_TYPE_BIGINT, true); break;
    default:
        n->type = n->a->type;
        n->type.not_null = false;
        break;
    }
    return n;
}

/* A literal's node, with its token `t` consumed. */
static weir__enode *literal(parser *p, tok t)
{
    next(p);
    return node(p, OP_LIT, t.pos);
}

/* The token's text into buf, NUL-terminated (a `quoted` name's doubled
 * back quotes one); false (p failed: "`what` too long") if it does not
 * fit. */
static bool token_text(parser *p, const tok *t, char *buf, size_t size, const char *what)
{
    if (t->len >= size) {
        perr(p, t->pos, "%s too long", what);
        return false;
    }
    size_t n = 0;
    for (size_t i = 0; i < t->len; i++) {
        buf[n++] = t->p[i];
        if (t->kind == T_QIDENT && t->p[i] == '`' && i + 1 < t->len && t->p[i + 1] == '`')
            i++;
    }
    buf[n] = 0;
    return true;
}

/* A number literal: an INT (or BIGINT when it does not fit) or a DOUBLE. */
static weir__enode *parse_number(parser *p, tok t)
{
    weir__enode *n = literal(p, t);
    char buf[64];
    if (!n || !token_text(p, &t, buf, sizeof buf, "number"))
        return NULL;
    errno = 0;
    if (t.kind == T_INT) {
        unsigned long long v = strtoull(buf, NULL, 10);
        if (errno || v > (unsigned long long)INT64_MAX) {
            perr(p, t.pos, "integer literal %s is out of range", buf);
            return NULL;
        }
        n->lit.i = (int64_t)v;
        n->type = mk(v <= INT32_MAX ? WEIR_TYPE_INT : WEIR_TYPE_BIGINT, true);
    } else {
        n->lit.d = strtod(buf, NULL);
        n->type = mk(WEIR_TYPE_DOUBLE, true);
    }
    return n;
}

/* A string literal: a VARCHAR of its own length. */
static weir__enode *parse_string(parser *p, tok t)
{
    weir__enode *n = literal(p, t);
    if (!n)
        return NULL;
    n->sbuf = unquote(p, &t, &n->lit.len);
    if (!n->sbuf)
        return NULL;
    n->lit.s = n->sbuf;
    n->type = mk(WEIR_TYPE_VARCHAR, true);
    n->type.capacity = n->lit.len ? n->lit.len : 1;
    return n;
}

/* The common type of the values in `slots` (a CASE's results, COALESCE's
 * arguments), each then cast to it. NULL-typed values aside, numbers widen
 * to the widest, strings make a VARCHAR of the largest capacity, and any
 * other types must be the same (or, with `times_agree`, both times); a
 * mismatch fails as "`what` of A and B". All NULL-typed: `if_null`.
 * `not_null` is the result's nullability. */
static bool common_type(parser *p, weir__enode **const *slots, int nv, bool times_agree,
                        weir_type if_null, bool not_null, const char *what, weir_type *out)
{
    weir_type rt = mk(WEIR_TYPE_NULL, false);
    for (int j = 0; j < nv; j++) {
        const weir__enode *v = *slots[j];
        if (v->type.id == WEIR_TYPE_NULL)
            continue;
        if (rt.id == WEIR_TYPE_NULL) {
            rt = v->type;
        } else if (weir__type_is_numeric(rt.id) && weir__type_is_numeric(v->type.id)) {
            rt.id = wider(rt.id, v->type.id);
        } else if (weir__type_is_string(rt.id) && weir__type_is_string(v->type.id)) {
            rt.id = WEIR_TYPE_VARCHAR;
            if (v->type.capacity > rt.capacity)
                rt.capacity = v->type.capacity;
        } else if (rt.id != v->type.id &&
                   !(times_agree && weir__type_is_time(rt.id) && weir__type_is_time(v->type.id))) {
            char t1[48], t2[48];
            perr(p, v->pos, "%s of %s and %s", what, tname(rt, t1), tname(v->type, t2));
            return false;
        }
    }
    if (rt.id == WEIR_TYPE_NULL)
        rt = if_null;
    rt.not_null = not_null;
    for (int j = 0; j < nv; j++) {
        retype_null(*slots[j], rt);
        *slots[j] = cast_to(p, *slots[j], rt);
    }
    *out = rt;
    return !p->failed;
}

/* CASE WHEN c THEN v ... [ELSE v] END, after CASE: its type is the values'
 * common type. */
static weir__enode *parse_case(parser *p, int pos)
{
    weir__enode *n = node(p, OP_CASE, pos);
    if (!n)
        return NULL;
    int cap = 0;
    while (accept_kw(p, "WHEN")) {
        weir__enode *c = parse_or(p);
        if (c)
            retype_null(c, mk(WEIR_TYPE_BOOLEAN, false));
        if (c && c->type.id != WEIR_TYPE_BOOLEAN) {
            char t1[48];
            perr(p, c->pos, "WHEN needs a BOOLEAN, not %s", tname(c->type, t1));
            return NULL;
        }
        if (!accept_kw(p, "THEN")) {
            perr(p, p->t.pos, "expected THEN");
            return NULL;
        }
        if (!push_arg(p, n, c, &cap))
            return NULL;
        weir__enode *v = parse_or(p);
        if (p->failed || !push_arg(p, n, v, &cap))
            return NULL;
    }
    if (n->nargs == 0) {
        perr(p, p->t.pos, "expected WHEN");
        return NULL;
    }
    if (accept_kw(p, "ELSE")) {
        weir__enode *v = parse_or(p);
        if (p->failed || !push_arg(p, n, v, &cap))
            return NULL;
        n->has_else = true;
    }
    if (!accept_kw(p, "END")) {
        perr(p, p->t.pos, "expected END");
        return NULL;
    }
    if (p->failed)
        return NULL;
    int k = n->nargs;
    /* The values: each THEN's, then the ELSE's. NULL without an ELSE. */
    int pairs = n->has_else ? (k - 1) / 2 : k / 2;
    weir__enode ***vals = malloc((size_t)(pairs + 1) * sizeof *vals);
    if (!vals) {
        perr(p, pos, "out of memory");
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
    bool ok = common_type(p, vals, nv, true, mk(WEIR_TYPE_INT, false), nn, "CASE values",
                          &n->type);
    free(vals);
    return ok ? n : NULL;
}

/* COALESCE(v, ...): the arguments' common type, NOT NULL if one is. */
static weir__enode *finish_coalesce(parser *p, weir__enode *n)
{
    if (!parse_args(p, n, 1, -1))
        return NULL;
    weir__enode ***vals = malloc((size_t)n->nargs * sizeof *vals);
    if (!vals) {
        perr(p, n->pos, "out of memory");
        return NULL;
    }
    bool nn = false;
    for (int i = 0; i < n->nargs; i++) {
        vals[i] = &n->args[i];
        nn = nn || n->args[i]->type.not_null;
    }
    bool ok = common_type(p, vals, n->nargs, false, mk(WEIR_TYPE_NULL, false), nn, "COALESCE",
                          &n->type);
    free(vals);
    return ok ? n : NULL;
}

/* MOD(a, b) of two integers. */
static weir__enode *finish_mod(parser *p, weir__enode *n, int pos)
{
    if (!parse_args(p, n, 2, 2))
        return NULL;
    n->a = n->args[0];
    n->b = n->args[1];
    if (!weir__type_is_integer(n->a->type.id) || !weir__type_is_integer(n->b->type.id)) {
        char t1[48], t2[48];
        perr(p, pos, "MOD of %s and %s: integers are required", tname(n->a->type, t1),
             tname(n->b->type, t2));
        return NULL;
    }
    unify(p, &n->a, &n->b, pos, "MOD");
    n->type = n->a->type;
    n->type.not_null = n->a->type.not_null && n->b->type.not_null;
    return p->failed ? NULL : n;
}

/* UPPER, LOWER, CHAR_LENGTH of one string. */
static weir__enode *finish_string_function(parser *p, weir__enode *n, tok t)
{
    if (!parse_args(p, n, 1, 1))
        return NULL;
    n->a = n->args[0];
    retype_null(n->a, mk(WEIR_TYPE_VARCHAR, false));
    if (n->a->type.id == WEIR_TYPE_VARCHAR && n->a->type.capacity == 0)
        n->a->type.capacity = 1;
    if (!weir__type_is_string(n->a->type.id)) {
        char t1[48];
        perr(p, n->a->pos, "%.*s of %s: a string is required", (int)t.len, t.p,
             tname(n->a->type, t1));
        return NULL;
    }
    if (n->op == OP_CHARLEN) {
        n->type = mk(WEIR_TYPE_INT, n->a->type.not_null);
    } else {
        /* The result keeps the argument's capacity; the scratch has room
         * for Unicode's largest case mapping, 3 bytes out for each byte in
         * (U+0390 to U+0399 U+0308 U+0301), and a result longer than the
         * capacity fails the row (ev_string_function). */
        n->type = n->a->type;
        n->type.id = WEIR_TYPE_VARCHAR;
        n->scratch = scratch(p, 3 * n->type.capacity);
    }
    return n;
}

/* A function call NAME( ..., with `t` the name and the current token the
 * parenthesis: an aggregate or a scalar function. */
static weir__enode *parse_call(parser *p, tok t)
{
    static const struct { const char *name; weir_agg_kind kind; } aggs[] = {
        {"COUNT", WEIR_AGG_COUNT}, {"SUM", WEIR_AGG_SUM}, {"MIN", WEIR_AGG_MIN},
        {"MAX", WEIR_AGG_MAX}, {"AVG", WEIR_AGG_AVG},
    };
    for (size_t i = 0; i < sizeof aggs / sizeof aggs[0]; i++)
        if (is_kw(&t, aggs[i].name))
            return parse_agg(p, aggs[i].kind, aggs[i].name, t.pos);
    op o;
    if (is_kw(&t, "COALESCE"))
        o = OP_COALESCE;
    else if (is_kw(&t, "UPPER"))
        o = OP_UPPER;
    else if (is_kw(&t, "LOWER"))
        o = OP_LOWER;
    else if (is_kw(&t, "CHAR_LENGTH") || is_kw(&t, "CHARACTER_LENGTH"))
        o = OP_CHARLEN;
    else if (is_kw(&t, "MOD"))
        o = OP_MOD;
    else {
        perr(p, t.pos, "unknown function '%.*s'", (int)t.len, t.p);
        return NULL;
    }
    weir__enode *n = node(p, o, t.pos);
    if (!n)
        return NULL;
    if (o == OP_COALESCE)
        return finish_coalesce(p, n);
    if (o == OP_MOD)
        return finish_mod(p, n, t.pos);
    return finish_string_function(p, n, t);
}

/* A column by its name (`t`, already consumed), with a hint for a name
 * that is close to one. */
static weir__enode *parse_column(parser *p, tok t)
{
    char name[256];
    if (!token_text(p, &t, name, sizeof name, "name"))
        return NULL;
    int c = weir_schema_column_index(p->schema, name);
    if (c < 0) {
        /* A hint: the closest name, within two edits (case aside). */
        const char *hint = NULL;
        int best = 3;
        for (int i = 0; i < p->schema->ncols; i++) {
            int d = weir__edit_distance(p->schema->cols[i].name, name);
            if (d < best) {
                best = d;
                hint = p->schema->cols[i].name;
            }
        }
        if (hint)
            perr(p, t.pos, "unknown column '%s' (did you mean '%s'?)", name, hint);
        else
            perr(p, t.pos, "unknown column '%s' in table %s", name, p->schema->table);
        return NULL;
    }
    weir__enode *n = node(p, OP_COL, t.pos);
    if (!n)
        return NULL;
    n->col = c;
    n->off = p->schema->cols[c].offset;
    n->type = p->schema->cols[c].type;
    return n;
}

/* A keyword that starts a primary (TRUE, FALSE, NULL, INTERVAL, CASE,
 * CAST), with `t` the keyword; *matched false, and nothing consumed, if `t`
 * is none of them. */
static weir__enode *parse_keyword_primary(parser *p, tok t, bool *matched)
{
    *matched = true;
    if (is_kw(&t, "TRUE") || is_kw(&t, "FALSE")) {
        weir__enode *n = literal(p, t);
        if (!n)
            return NULL;
        n->lit.i = is_kw(&t, "TRUE");
        n->type = mk(WEIR_TYPE_BOOLEAN, true);
        return n;
    }
    if (is_kw(&t, "NULL")) {
        weir__enode *n = literal(p, t);
        if (n) {
            n->lit.null = true;
            n->type = mk(WEIR_TYPE_NULL, false);
        }
        return n;
    }
    if (is_kw(&t, "INTERVAL")) {
        next(p);
        return parse_interval(p, t.pos);
    }
    if (is_kw(&t, "CASE")) {
        next(p);
        return parse_case(p, t.pos);
    }
    if (is_kw(&t, "CAST")) {
        next(p);
        return parse_type_cast(p, t.pos);
    }
    *matched = false;
    return NULL;
}

static weir__enode *parse_primary(parser *p)
{
    tok t = p->t;
    if (p->failed)
        return NULL;
    if (t.kind == T_INT || t.kind == T_DEC)
        return parse_number(p, t);
    if (t.kind == T_STR)
        return parse_string(p, t);
    if (t.kind == T_SYM && is_sym(&t, "(")) {
        next(p);
        weir__enode *n = parse_or(p);
        expect_sym(p, ")");
        return n;
    }
    if (t.kind == T_IDENT) {
        bool matched;
        weir__enode *n = parse_keyword_primary(p, t, &matched);
        if (matched)
            return n;
        next(p);
        return is_sym(&p->t, "(") ? parse_call(p, t) : parse_column(p, t);
    }
    if (t.kind == T_QIDENT) {
        next(p);
        return parse_column(p, t);
    }
    if (t.kind == T_END)
        perr(p, t.pos, "unexpected end of the expression");
    else
        perr(p, t.pos, "unexpected '%.*s'", (int)t.len, t.p);
    return NULL;
}

static weir__enode *parse_unary(parser *p)
{
    int pos = p->t.pos;
    if (accept_sym(p, "-")) {
        weir__enode *x = parse_unary(p);
        if (!x)
            return NULL;
        if (x->op == OP_LIT && !x->lit.null && x->type.id != WEIR_TYPE_NULL &&
            (weir__type_is_numeric(x->type.id) || x->type.id == WEIR_TYPE_INTERVAL)) {
            /* Fold: -2147483648 is an INT. */
            if (x->type.id == WEIR_TYPE_DOUBLE)
                x->lit.d = -x->lit.d;
            else {
                x->lit.i = (int64_t)(0 - (uint64_t)x->lit.i);
                if (x->type.id == WEIR_TYPE_BIGINT && x->lit.i >= INT32_MIN)
                    x->type.id = WEIR_TYPE_INT;
            }
            x->pos = pos;
            return x;
        }
        if (!weir__type_is_numeric(x->type.id) && x->type.id != WEIR_TYPE_INTERVAL &&
            x->type.id != WEIR_TYPE_NULL) {
            char t1[48];
            perr(p, pos, "cannot negate %s", tname(x->type, t1));
            return NULL;
        }
        weir__enode *n = node(p, OP_NEG, pos);
        if (n) {
            n->a = x;
            n->type = x->type;
        }
        return n;
    }
    if (accept_sym(p, "+"))
        return parse_unary(p);
    return parse_primary(p);
}

static weir__enode *arith(parser *p, op o, weir__enode *a, weir__enode *b, int pos)
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
        if (o == OP_MOD && (x == WEIR_TYPE_DOUBLE || y == WEIR_TYPE_DOUBLE)) {
            perr(p, pos, "%% needs integers");
            return NULL;
        }
        if (!unify(p, &a, &b, pos, names[o]))
            return NULL;
        n->type = mk(a->type.id, nn);
    } else if ((o == OP_ADD || o == OP_SUB) && weir__type_is_time(x) &&
               y == WEIR_TYPE_INTERVAL) {
        n->type = mk(x, nn);
    } else if (o == OP_ADD && x == WEIR_TYPE_INTERVAL && weir__type_is_time(y)) {
        n->type = mk(y, nn);
    } else if ((o == OP_ADD || o == OP_SUB) && x == WEIR_TYPE_INTERVAL &&
               y == WEIR_TYPE_INTERVAL) {
        n->type = mk(WEIR_TYPE_INTERVAL, nn);
    } else {
        char t1[48], t2[48];
        perr(p, pos, "cannot apply '%s' to %s and %s", names[o], tname(a->type, t1),
             tname(b->type, t2));
        return NULL;
    }
    n->a = a;
    n->b = b;
    return n;
}

static weir__enode *parse_mul(parser *p)
{
    weir__enode *a = parse_unary(p);
    for (;;) {
        int pos = p->t.pos;
        op o;
        if (accept_sym(p, "*"))
            o = OP_MUL;
        else if (accept_sym(p, "/"))
            o = OP_DIV;
        else if (accept_sym(p, "%"))
            o = OP_MOD;
        else
            return a;
        a = arith(p, o, a, parse_unary(p), pos);
    }
}

static weir__enode *parse_add(parser *p)
{
    weir__enode *a = parse_mul(p);
    for (;;) {
        int pos = p->t.pos;
        op o;
        if (accept_sym(p, "+"))
            o = OP_ADD;
        else if (accept_sym(p, "-"))
            o = OP_SUB;
        else
            return a;
        a = arith(p, o, a, parse_mul(p), pos);
    }
}

static weir__enode *parse_concat(parser *p)
{
    weir__enode *a = parse_add(p);
    for (;;) {
        int pos = p->t.pos;
        if (!accept_sym(p, "||"))
            return a;
        weir__enode *b = parse_add(p);
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
            perr(p, pos, "cannot apply '||' to %s and %s", tname(a->type, t1),
                 tname(b->type, t2));
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
            perr(p, pos, "'||' result longer than %u", WEIR_STRING_MAX_CAPACITY);
            return NULL;
        }
        n->type.capacity = (uint32_t)cap;
        n->scratch = scratch(p, n->type.capacity);
        a = n;
    }
}

static weir__enode *parse_pred(parser *p)
{
    weir__enode *a = parse_concat(p);
    if (!a || p->failed)
        return NULL;
    int pos = p->t.pos;
    static const struct { const char *s; op o; } cmps[] = {
        {"=", OP_EQ}, {"<>", OP_NE}, {"!=", OP_NE}, {"<", OP_LT},
        {"<=", OP_LE}, {">", OP_GT}, {">=", OP_GE},
    };
    for (size_t i = 0; i < sizeof cmps / sizeof cmps[0]; i++) {
        if (accept_sym(p, cmps[i].s)) {
            weir__enode *b = parse_concat(p);
            if (!unify(p, &a, &b, pos, "compare"))
                return NULL;
            weir__enode *n = node(p, cmps[i].o, pos);
            if (!n)
                return NULL;
            n->a = a;
            n->b = b;
            n->type = mk(WEIR_TYPE_BOOLEAN, a->type.not_null && b->type.not_null);
            return n;
        }
    }
    if (accept_kw(p, "IS")) {
        bool neg = accept_kw(p, "NOT");
        if (!accept_kw(p, "NULL")) {
            perr(p, p->t.pos, "expected NULL after IS%s", neg ? " NOT" : "");
            return NULL;
        }
        weir__enode *n = node(p, neg ? OP_ISNOTNULL : OP_ISNULL, pos);
        if (n) {
            n->a = a;
            n->type = mk(WEIR_TYPE_BOOLEAN, true);
        }
        return n;
    }
    bool neg = false;
    if (is_kw(&p->t, "NOT")) {
        /* NOT IN: look ahead one word. */
        const char *save = p->cur;
        tok st = p->t;
        next(p);
        if (is_kw(&p->t, "IN")) {
            neg = true;
        } else {
            p->cur = save;
            p->t = st;
            return a;
        }
    }
    if (accept_kw(p, "IN")) {
        weir__enode *n = node(p, OP_IN, pos);
        if (!n || !parse_args(p, n, 1, -1))
            return NULL;
        n->a = a;
        n->negate = neg;
        bool nn = a->type.not_null;
        /* Every item to the common type of a and all items. */
        for (int i = 0; i < n->nargs; i++) {
            weir__enode *x = n->a, *y = n->args[i];
            if (!unify(p, &x, &y, y ? y->pos : pos, "compare"))
                return NULL;
            nn = nn && y->type.not_null;
            n->a = x;
            n->args[i] = y;
        }
        for (int i = 0; i < n->nargs; i++) {
            weir__enode *x = n->a, *y = n->args[i];
            unify(p, &x, &y, pos, "compare");
            n->a = x;
            n->args[i] = y;
        }
        n->type = mk(WEIR_TYPE_BOOLEAN, nn);
        return p->failed ? NULL : n;
    }
    return a;
}

static weir__enode *want_bool(parser *p, weir__enode *x, const char *what)
{
    if (!x)
        return NULL;
    retype_null(x, mk(WEIR_TYPE_BOOLEAN, false));
    if (x->type.id != WEIR_TYPE_BOOLEAN) {
        char t1[48];
        perr(p, x->pos, "%s needs a BOOLEAN, not %s", what, tname(x->type, t1));
        return NULL;
    }
    return x;
}

static weir__enode *parse_not(parser *p)
{
    int pos = p->t.pos;
    if (accept_kw(p, "NOT")) {
        weir__enode *x = want_bool(p, parse_not(p), "NOT");
        if (!x)
            return NULL;
        weir__enode *n = node(p, OP_NOT, pos);
        if (n) {
            n->a = x;
            n->type = mk(WEIR_TYPE_BOOLEAN, x->type.not_null);
        }
        return n;
    }
    return parse_pred(p);
}

static weir__enode *logic(parser *p, op o, weir__enode *a, weir__enode *b, int pos)
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

static weir__enode *parse_and(parser *p)
{
    weir__enode *a = parse_not(p);
    for (;;) {
        int pos = p->t.pos;
        if (!accept_kw(p, "AND"))
            return a;
        a = logic(p, OP_AND, a, parse_not(p), pos);
    }
}

static weir__enode *parse_or(parser *p)
{
    weir__enode *a = parse_and(p);
    for (;;) {
        int pos = p->t.pos;
        if (!accept_kw(p, "OR"))
            return a;
        a = logic(p, OP_OR, a, parse_and(p), pos);
    }
}

/* ---- compile ---------------------------------------------------------------------- */

void weir_expr_destroy(weir_expr *e)
{
    if (!e)
        return;
    weir__enode *n = e->nodes;
    while (n) {
        weir__enode *nx = n->next_alloc;
        free(n->args);
        free(n->sbuf);
        free(n);
        n = nx;
    }
    if (e->agg_arg)
        free(e->agg_arg->text);
    free(e->agg_arg); /* shares this expression's nodes */
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

/* The item's expression tree: the expression, an optional AS alias (when
 * allow_agg >= 0, a select item), the end of the text, and where
 * aggregates may be (allow_agg > 0: one, the whole item). NULL when
 * p->failed says why. */
static weir__enode *parse_item(parser *p, weir_expr *e, int allow_agg)
{
    next(p);
    weir__enode *root = parse_or(p);
    if (!p->failed && allow_agg >= 0 && accept_kw(p, "AS")) {
        if (p->t.kind != T_IDENT && p->t.kind != T_QIDENT)
            perr(p, p->t.pos, "expected a name after AS");
        else {
            e->alias = malloc(p->t.len + 1);
            if (!e->alias)
                perr(p, p->t.pos, "out of memory");
            else
                token_text(p, &p->t, e->alias, p->t.len + 1, "name");
            next(p);
        }
    }
    if (!p->failed && p->t.kind != T_END)
        perr(p, p->t.pos, "unexpected '%.*s'", (int)p->t.len, p->t.p);
    if (!p->failed && root && p->naggs > 0) {
        if (allow_agg <= 0 || root != p->first_agg || p->naggs > 1) {
            weir__enode *bad = allow_agg > 0 && root == p->first_agg ? NULL : p->first_agg;
            int pos = bad ? bad->pos : root->pos;
            static const char *an[] = {"", "COUNT", "COUNT", "SUM", "MIN", "MAX", "AVG"};
            perr(p, pos, "aggregate function %s is not allowed here",
                 an[bad ? bad->agg : p->first_agg->agg]);
        }
    }
    if (!p->failed && !root)
        perr(p, 1, "empty expression");
    return p->failed ? NULL : root;
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
    if (root->op == OP_AGG) {
        e->agg = root->agg;
        e->distinct = root->distinct;
        if (root->a) {
            e->agg_arg = calloc(1, sizeof *e->agg_arg);
            if (!e->agg_arg)
                return WEIR_ENOMEM;
            e->agg_arg->root = root->a;
            e->agg_arg->type = root->a->type;
            e->agg_arg->scratch = e->scratch;
            e->agg_arg->column = root->a->op == OP_COL ? root->a->col : -1;
            e->agg_arg->text = dupn(root->arg_text, root->arg_len);
            if (!e->agg_arg->text)
                return WEIR_ENOMEM;
        }
    }
    return 0;
}

int weir_expr_compile_item(const char *text, const weir_schema *schema, int allow_agg,
                           weir_expr **out, char *err, size_t errsize)
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
    parser p = {.text = e->text, .cur = e->text, .schema = schema, .e = e, .err = err,
                .errsize = errsize};
    weir__enode *root = parse_item(&p, e, allow_agg);
    int r = root ? describe_item(e, root, schema) : p.failed;
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

int weir_expr_split(const char *list, int (*fn)(const char *item, size_t len, void *arg),
                    void *arg)
{
    if (!list || !fn)
        return WEIR_EINVAL;
    const char *s = list;
    for (;;) {
        int depth = 0;
        bool q = false, bq = false;
        const char *e = s;
        for (; *e; e++) {
            if (q) {
                if (*e == '\'')
                    q = false;
            } else if (bq) {
                if (*e == '`')
                    bq = false;
            } else if (*e == '\'') {
                q = true;
            } else if (*e == '`') {
                bq = true;
            } else if (*e == '(') {
                depth++;
            } else if (*e == ')') {
                if (--depth < 0)
                    return WEIR_EINVAL;
            } else if (*e == ',' && depth == 0) {
                break;
            }
        }
        if (q || bq || depth)
            return WEIR_EINVAL;
        const char *a = s, *b = e;
        while (a < b && isspace((unsigned char)*a))
            a++;
        while (b > a && isspace((unsigned char)b[-1]))
            b--;
        if (a == b)
            return WEIR_EINVAL;
        int r = fn(a, (size_t)(b - a), arg);
        if (r)
            return r;
        if (!*e)
            return 0;
        s = e + 1;
    }
}

/* ---- evaluation -------------------------------------------------------------------- */

/* Java's (long) cast of a double: NaN is 0, beyond the range saturates. */
static int64_t d2l(double d)
{
    if (d != d)
        return 0;
    if (d >= 9223372036854775807.0)
        return INT64_MAX;
    if (d <= -9223372036854775808.0)
        return INT64_MIN;
    return (int64_t)d;
}

static int32_t d2i(double d)
{
    if (d != d)
        return 0;
    if (d >= 2147483647.0)
        return INT32_MAX;
    if (d <= -2147483648.0)
        return INT32_MIN;
    return (int32_t)d;
}

static int cmp_vals(weir_type_id id, const weir__val *a, const weir__val *b)
{
    if (id == WEIR_TYPE_DOUBLE)
        return a->d < b->d ? -1 : a->d > b->d;
    if (weir__type_is_string(id)) {
        uint32_t n = a->len < b->len ? a->len : b->len;
        int c = n ? memcmp(a->s, b->s, n) : 0;
        if (c)
            return c < 0 ? -1 : 1;
        return a->len < b->len ? -1 : a->len > b->len;
    }
    return a->i < b->i ? -1 : a->i > b->i;
}

static int ev(const weir__enode *n, const unsigned char *row, unsigned char *sc, weir__val *o,
              const char **why);

static int cast_val(const weir__enode *n, const weir__val *x, unsigned char *sc, weir__val *o,
                    const char **why)
{
    weir_type_id from = n->a->type.id, to = n->type.id;
    *o = *x;
    if (x->null)
        return 0;
    if (weir__type_is_string(to)) {
        char *buf = (char *)sc + n->scratch;
        uint32_t cap = n->type.capacity;
        int len;
        if (weir__type_is_string(from)) {
            /* The first `chars` characters that fit the capacity, never a
             * part of one: a character is a byte and the continuation bytes
             * (10xxxxxx) after it. */
            uint32_t k = 0, nchars = 0, most = n->chars ? n->chars : UINT32_MAX;
            while (k < x->len && nchars < most) {
                uint32_t l = 1;
                while (k + l < x->len && ((unsigned char)x->s[k + l] & 0xC0) == 0x80)
                    l++;
                if (k + l > cap)
                    break;
                k += l;
                nchars++;
            }
            len = (int)k;
            memmove(buf, x->s, (size_t)len);
        } else {
            char tmp[48];
            switch (from) {
            case WEIR_TYPE_BOOLEAN: len = snprintf(tmp, sizeof tmp, "%s", x->i ? "TRUE" : "FALSE"); break;
            case WEIR_TYPE_DOUBLE: {
                /* Shortest round trip, as Java prints. */
                int k;
                for (k = 1; k <= 17; k++) {
                    snprintf(tmp, sizeof tmp, "%.*g", k, x->d);
                    if (strtod(tmp, NULL) == x->d)
                        break;
                }
                if (!strpbrk(tmp, ".eni"))
                    strcat(tmp, ".0");
                len = (int)strlen(tmp);
                break;
            }
            case WEIR_TYPE_TIMESTAMP:
            case WEIR_TYPE_TIMESTAMP_LTZ: len = weir_timestamp_format(x->i, tmp, sizeof tmp); break;
            default: len = snprintf(tmp, sizeof tmp, "%" PRId64, x->i); break;
            }
            if ((uint32_t)len > cap)
                len = (int)cap;
            memcpy(buf, tmp, (size_t)len);
        }
        if (to == WEIR_TYPE_CHAR && (uint32_t)len < cap) {
            memset(buf + len, ' ', cap - (uint32_t)len);
            len = (int)cap;
        }
        o->s = buf;
        o->len = (uint32_t)len;
        return 0;
    }
    if (weir__type_is_string(from)) {
        char tmp[64];
        uint32_t l = x->len;
        const char *s = x->s;
        while (l && isspace((unsigned char)*s))
            s++, l--;
        while (l && isspace((unsigned char)s[l - 1]))
            l--;
        if (l == 0 || l >= sizeof tmp)
            goto bad;
        memcpy(tmp, s, l);
        tmp[l] = 0;
        /* string to timestamp: not supported (weir__parse_literal refuses it) */
        if (weir__parse_literal(to, tmp, o))
            goto bad;
        return 0;
    bad:
        *why = "CAST of a string that is not a value of the type";
        return WEIR_EFORMAT;
    }
    if (to == WEIR_TYPE_DOUBLE) {
        if (from != WEIR_TYPE_DOUBLE)
            o->d = (double)x->i;
    } else if (to == WEIR_TYPE_INT) {
        o->i = from == WEIR_TYPE_DOUBLE ? d2i(x->d) : (int32_t)(uint32_t)(uint64_t)x->i;
    } else if (to == WEIR_TYPE_BIGINT || weir__type_is_time(to)) {
        if (from == WEIR_TYPE_DOUBLE)
            o->i = d2l(x->d);
    } else if (to == WEIR_TYPE_BOOLEAN) {
        o->i = from == WEIR_TYPE_DOUBLE ? x->d != 0 : x->i != 0;
    }
    return 0;
}

/* A column of the row, its NULL bit from the row's header. */
static void ev_column(const weir__enode *n, const unsigned char *row, weir__val *o)
{
    o->null = weir__row_null(NULL, row, n->col);
    weir__read_value(row + n->off, n->type.id, o);
}

/* + - * / MOD of two non-NULL values: a DOUBLE's IEEE result, an integer's
 * wrapped to its width (Java's), a zero divisor an error. */
static int ev_arith(const weir__enode *n, const weir__val *a, const weir__val *b, weir__val *o,
                    const char **why)
{
    if (n->type.id == WEIR_TYPE_DOUBLE) {
        switch (n->op) {
        case OP_ADD: o->d = a->d + b->d; break;
        case OP_SUB: o->d = a->d - b->d; break;
        case OP_MUL: o->d = a->d * b->d; break;
        default: o->d = a->d / b->d; break;
        }
        return 0;
    }
    if (n->op == OP_DIV || n->op == OP_MOD) {
        if (b->i == 0) {
            *why = "division by zero";
            return WEIR_ERANGE;
        }
        /* MIN / -1 wraps to MIN as in Java (C would trap). */
        if (b->i == -1) {
            o->i = n->op == OP_MOD ? 0 : (int64_t)(0 - (uint64_t)a->i);
        } else {
            o->i = n->op == OP_DIV ? a->i / b->i : a->i % b->i;
        }
    } else {
        uint64_t x = (uint64_t)a->i, y = (uint64_t)b->i;
        o->i = (int64_t)(n->op == OP_ADD ? x + y : n->op == OP_SUB ? x - y : x * y);
    }
    if (n->type.id == WEIR_TYPE_INT)
        o->i = (int32_t)(uint32_t)(uint64_t)o->i;
    return 0;
}

/* = <> < <= > >= of two non-NULL values of n->a's type. */
static void ev_compare(const weir__enode *n, const weir__val *a, const weir__val *b, weir__val *o)
{
    int c = cmp_vals(n->a->type.id, a, b);
    if (n->a->type.id == WEIR_TYPE_DOUBLE && (a->d != a->d || b->d != b->d)) {
        o->i = n->op == OP_NE; /* NaN compares unequal to everything */
        return;
    }
    switch (n->op) {
    case OP_EQ: o->i = c == 0; break;
    case OP_NE: o->i = c != 0; break;
    case OP_LT: o->i = c < 0; break;
    case OP_LE: o->i = c <= 0; break;
    case OP_GT: o->i = c > 0; break;
    default: o->i = c >= 0; break;
    }
}

/* AND, OR of a (n->a's value): three-valued, evaluating b only when a does
 * not decide. */
static int ev_logic(const weir__enode *n, const weir__val *a, const unsigned char *row,
                    unsigned char *sc, weir__val *o, const char **why)
{
    weir__val b;
    int r;
    bool decides = n->op == OP_AND ? 0 : 1;
    if (!a->null && (a->i != 0) == decides) {
        *o = *a;
        return 0;
    }
    if ((r = ev(n->b, row, sc, &b, why)))
        return r;
    *o = (weir__val){0};
    if (!b.null && (b.i != 0) == decides) {
        o->i = decides;
        return 0;
    }
    if (a->null || b.null) {
        o->null = true;
        return 0;
    }
    o->i = !decides;
    return 0;
}

/* a [NOT] IN (list), with a n->a's value: NULL when no element matches
 * and one is NULL. */
static int ev_in(const weir__enode *n, const weir__val *a, const unsigned char *row,
                 unsigned char *sc, weir__val *o, const char **why)
{
    weir__val b;
    int r;
    *o = (weir__val){0};
    if (a->null) {
        o->null = true;
        return 0;
    }
    bool saw_null = false;
    for (int i = 0; i < n->nargs; i++) {
        if ((r = ev(n->args[i], row, sc, &b, why)))
            return r;
        if (b.null) {
            saw_null = true;
            continue;
        }
        if (cmp_vals(n->a->type.id, a, &b) == 0) {
            o->i = !n->negate;
            return 0;
        }
    }
    if (saw_null)
        o->null = true;
    else
        o->i = n->negate;
    return 0;
}

/* CASE: the value of the first WHEN that is TRUE, else the ELSE's (or
 * NULL). */
static int ev_case(const weir__enode *n, const unsigned char *row, unsigned char *sc, weir__val *o,
                   const char **why)
{
    weir__val a;
    int r;
    int k = n->nargs, pairs = n->has_else ? (k - 1) / 2 : k / 2;
    for (int i = 0; i < pairs; i++) {
        if ((r = ev(n->args[2 * i], row, sc, &a, why)))
            return r;
        if (!a.null && a.i)
            return ev(n->args[2 * i + 1], row, sc, o, why);
    }
    if (n->has_else)
        return ev(n->args[k - 1], row, sc, o, why);
    *o = (weir__val){.null = true};
    return 0;
}

/* a || b of two non-NULL strings, into this node's scratch region. */
static void ev_concat(const weir__enode *n, const weir__val *a, const weir__val *b,
                      unsigned char *sc, weir__val *o)
{
    char *buf = (char *)sc + n->scratch;
    /* a may already be in this buffer's region only if it is this node's
     * own output, which it is not: regions are per node. */
    memmove(buf, a->s, a->len);
    memmove(buf + a->len, b->s, b->len);
    o->s = buf;
    o->len = a->len + b->len;
}

/* UPPER, LOWER (into this node's scratch region) and CHAR_LENGTH of one
 * string. UPPER and LOWER are Unicode's full case mappings in no
 * language's special rules, as Java's String.toUpperCase(Locale.ROOT)
 * that Flink calls ('üß' is 'ÜSS', a final sigma lowers to 'ς'), by
 * libunistring into the scratch (3 bytes per byte: it never allocates); a
 * byte that is not UTF-8 becomes U+FFFD, as Java's decoding makes it. */
static int ev_string_function(const weir__enode *n, const weir__val *a, unsigned char *sc,
                              weir__val *o, const char **why)
{
    if (n->op == OP_CHARLEN) {
        *o = (weir__val){.null = a->null};
        if (a->null)
            return 0;
        /* Characters, not bytes: count UTF-8 lead bytes. */
        int64_t c = 0;
        for (uint32_t i = 0; i < a->len; i++)
            c += ((unsigned char)a->s[i] & 0xC0) != 0x80;
        o->i = c;
        return 0;
    }
    *o = *a;
    if (a->null)
        return 0;
    uint8_t *buf = sc + n->scratch;
    size_t room = 3 * (size_t)n->type.capacity, len = room;
    uint8_t *r = n->op == OP_UPPER
                     ? u8_toupper((const uint8_t *)a->s, a->len, NULL, NULL, buf, &len)
                     : u8_tolower((const uint8_t *)a->s, a->len, NULL, NULL, buf, &len);
    if (r != buf) {
        free(r); /* it allocated: the scratch was too small, which 3x rules out */
        *why = "internal: a case mapping longer than its room";
        return WEIR_EINTERNAL;
    }
    if (len > n->type.capacity) {
        *why = n->op == OP_UPPER ? "UPPER's result is longer than its argument's capacity"
                                 : "LOWER's result is longer than its argument's capacity";
        return WEIR_ERANGE;
    }
    o->s = (const char *)buf;
    o->len = (uint32_t)len;
    return 0;
}

/* Evaluates n on `row` into *o, with `sc` the expression's scratch. 0, or a
 * WEIR_E* code with *why saying what went wrong. */
static int ev(const weir__enode *n, const unsigned char *row, unsigned char *sc, weir__val *o,
              const char **why)
{
    weir__val a, b;
    int r;
    switch (n->op) {
    case OP_LIT:
        *o = n->lit;
        return 0;
    case OP_COL:
        ev_column(n, row, o);
        return 0;
    case OP_NEG:
        if ((r = ev(n->a, row, sc, o, why)))
            return r;
        if (n->type.id == WEIR_TYPE_DOUBLE)
            o->d = -o->d;
        else if (n->type.id == WEIR_TYPE_INT)
            o->i = (int32_t)(0u - (uint32_t)o->i);
        else
            o->i = (int64_t)(0 - (uint64_t)o->i);
        return 0;
    case OP_ADD: case OP_SUB: case OP_MUL: case OP_DIV: case OP_MOD:
    case OP_EQ: case OP_NE: case OP_LT: case OP_LE: case OP_GT: case OP_GE:
    case OP_CONCAT:
        /* Strict in both operands: NULL if either is. */
        if ((r = ev(n->a, row, sc, &a, why)) || (r = ev(n->b, row, sc, &b, why)))
            return r;
        *o = (weir__val){0};
        if (a.null || b.null) {
            o->null = true;
            return 0;
        }
        if (n->op == OP_CONCAT)
            ev_concat(n, &a, &b, sc, o);
        else if (n->op >= OP_EQ && n->op <= OP_GE)
            ev_compare(n, &a, &b, o);
        else
            return ev_arith(n, &a, &b, o, why);
        return 0;
    case OP_AND: case OP_OR: case OP_IN:
        if ((r = ev(n->a, row, sc, &a, why)))
            return r;
        return n->op == OP_IN ? ev_in(n, &a, row, sc, o, why) : ev_logic(n, &a, row, sc, o, why);
    case OP_NOT:
        if ((r = ev(n->a, row, sc, o, why)))
            return r;
        o->i = !o->i;
        return 0;
    case OP_ISNULL: case OP_ISNOTNULL:
        if ((r = ev(n->a, row, sc, &a, why)))
            return r;
        *o = (weir__val){.i = n->op == OP_ISNULL ? a.null : !a.null};
        return 0;
    case OP_CASE:
        return ev_case(n, row, sc, o, why);
    case OP_CAST:
        if ((r = ev(n->a, row, sc, &a, why)))
            return r;
        return cast_val(n, &a, sc, o, why);
    case OP_COALESCE:
        for (int i = 0; i < n->nargs; i++) {
            if ((r = ev(n->args[i], row, sc, o, why)))
                return r;
            if (!o->null)
                return 0;
        }
        return 0;
    case OP_UPPER: case OP_LOWER: case OP_CHARLEN:
        if ((r = ev(n->a, row, sc, &a, why)))
            return r;
        return ev_string_function(n, &a, sc, o, why);
    case OP_AGG:
        break;
    }
    *why = "internal: an aggregate evaluated as a value";
    return WEIR_EINTERNAL;
}

int weir__expr_eval(const weir_expr *e, const unsigned char *row, unsigned char *scratch,
                    weir__val *out, const char **why)
{
    return ev(e->root, row, scratch, out, why);
}
