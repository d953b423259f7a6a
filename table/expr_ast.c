/* expr_ast.c — the one parser of the expression language (weir/expr_ast.h):
 * a lexer and a recursive descent that make a syntax tree, resolving and
 * typing nothing (expr_bind.c does that against a schema).
 *
 * Hand-written: the grammar is small, and the SQL front-end calls it in the
 * middle of a statement, where it must stop at the first token that cannot
 * go on with the expression (a clause word, a ',', a ')' it did not open)
 * and say where; a generated parser over the whole grammar would need the
 * statements' grammar too.
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "interval.h"
#include "table_internal.h"
#include "weir/error.h"
#include "weir/expr_ast.h"

/* ---- the arena --------------------------------------------------------------- */

typedef struct block {
    struct block *next;
    size_t used, cap;
    _Alignas(16) unsigned char data[];
} block;

struct weir_ast_arena {
    block *head;
};

static void *arena_alloc(weir_ast_arena **ap, size_t n)
{
    if (!*ap && !(*ap = calloc(1, sizeof **ap)))
        return NULL;
    weir_ast_arena *a = *ap;
    n = (n + 15u) & ~(size_t)15u;
    block *b = a->head;
    if (!b || b->cap - b->used < n) {
        size_t cap = n > 4096 ? n : 4096;
        b = malloc(sizeof *b + cap);
        if (!b)
            return NULL;
        b->used = 0;
        b->cap = cap;
        b->next = a->head;
        a->head = b;
    }
    void *p = b->data + b->used;
    b->used += n;
    memset(p, 0, n);
    return p;
}

void weir_ast_arena_free(weir_ast_arena **ap)
{
    if (!ap || !*ap)
        return;
    block *b = (*ap)->head;
    while (b) {
        block *nx = b->next;
        free(b);
        b = nx;
    }
    free(*ap);
    *ap = NULL;
}

static char *arena_strndup(weir_ast_arena **a, const char *s, size_t n)
{
    char *d = arena_alloc(a, n + 1);
    if (d) {
        memcpy(d, s, n);
        d[n] = 0;
    }
    return d;
}

weir_ast *weir_ast_new(weir_ast_arena **arena, weir_ast_kind kind, const char *text,
                       uint32_t start, uint32_t end)
{
    weir_ast *n = arena_alloc(arena, sizeof *n);
    if (!n)
        return NULL;
    n->kind = kind;
    n->start = start;
    n->end = end;
    if (text && !(n->text = arena_strndup(arena, text, strlen(text))))
        return NULL;
    if (text)
        n->len = (uint32_t)strlen(text);
    return n;
}

/* ---- errors ------------------------------------------------------------------------ */

void weir__expr_fail(weir__expr_error *e, size_t at, const char *fmt, ...)
{
    if (e->failed)
        return;
    e->failed = WEIR_EINVAL;
    if (e->err_at)
        *e->err_at = at;
    if (!e->err || !e->errsize)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(e->err, e->errsize, fmt, ap);
    va_end(ap);
}

void weir__expr_nomem(weir__expr_error *e)
{
    if (e->failed)
        return;
    e->failed = WEIR_ENOMEM;
    if (e->err && e->errsize)
        snprintf(e->err, e->errsize, "out of memory");
}

/* ---- the lexer ----------------------------------------------------------------- */

typedef enum tok_kind { T_END, T_IDENT, T_QIDENT, T_INT, T_DEC, T_STR, T_SYM } tok_kind;

typedef struct tok {
    tok_kind kind;
    size_t at, len; /* the token's bytes in the text (a `name` with its quotes) */
} tok;

typedef struct parser {
    weir_ast_arena **arena;
    const char *text;
    size_t cur; /* where the next token's search starts */
    tok t;
    size_t prev_end; /* the end of the last token taken */
    int nesting;     /* parse_or / parse_not / parse_unary calls open */
    weir__expr_error error;
} parser;

#define perr(p, at, ...) weir__expr_fail(&(p)->error, (at), __VA_ARGS__)
#define nomem(p) weir__expr_nomem(&(p)->error)

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

/* Skips space and comments from `s`; NULL for a comment that does not
 * end (which fails). */
static const char *skip_space(parser *p, const char *s)
{
    for (;;) {
        while (*s && isspace((unsigned char)*s))
            s++;
        if (s[0] == '-' && s[1] == '-') {
            while (*s && *s != '\n')
                s++;
        } else if (s[0] == '/' && s[1] == '*') {
            const char *e = strstr(s + 2, "*/");
            if (!e) {
                perr(p, (size_t)(s - p->text), "unterminated comment");
                return s + strlen(s);
            }
            s = e + 2;
        } else {
            return s;
        }
    }
}

/* The end of the quoted token at `s` (quote q; a doubled one is one inside
 * it), or of the text when it is unterminated (which fails). */
static const char *quoted_end(parser *p, const char *s, char q, const char *what)
{
    const char *e = s + 1;
    for (;;) {
        if (!*e) {
            perr(p, (size_t)(s - p->text), "unterminated %s", what);
            return e;
        }
        if (*e == q) {
            if (e[1] != q)
                return e + 1;
            e++;
        }
        e++;
    }
}

/* The bytes a symbol of the grammar starts with; any other is an
 * unexpected character where an expression is being read (SQL reads on
 * after the expression: ';' ends a statement). */
#define SYMBOL_CHARS "(),+-*/%=<>.|!"

/* The next token into p->t. */
static void next(parser *p)
{
    p->prev_end = p->t.at + p->t.len;
    const char *s = skip_space(p, p->text + p->cur);
    tok t = {.at = (size_t)(s - p->text)};
    if (!*s) {
        t.kind = T_END;
    } else if (ident_char(*s) && !isdigit((unsigned char)*s)) {
        const char *e = s;
        while (ident_char(*e))
            e++;
        t.kind = T_IDENT;
        t.len = (size_t)(e - s);
    } else if (*s == '`') {
        t.kind = T_QIDENT;
        t.len = (size_t)(quoted_end(p, s, '`', "`name`") - s);
    } else if (isdigit((unsigned char)*s) || (*s == '.' && isdigit((unsigned char)s[1]))) {
        bool dec;
        t.len = (size_t)(number_end(s, &dec) - s);
        t.kind = dec ? T_DEC : T_INT;
    } else if (*s == '\'') {
        t.kind = T_STR;
        t.len = (size_t)(quoted_end(p, s, '\'', "string") - s);
    } else {
        static const char *two[] = {"||", "<>", "!=", "<=", ">="};
        t.kind = T_SYM;
        t.len = 1;
        for (size_t i = 0; i < sizeof two / sizeof two[0]; i++)
            if (s[0] == two[i][0] && s[1] == two[i][1])
                t.len = 2;
    }
    p->cur = t.at + t.len;
    p->t = t;
}

static bool is_kw(const parser *p, const tok *t, const char *kw)
{
    return t->kind == T_IDENT && strlen(kw) == t->len &&
           strncasecmp(p->text + t->at, kw, t->len) == 0;
}

static bool is_sym(const parser *p, const tok *t, const char *s)
{
    return t->kind == T_SYM && strlen(s) == t->len && strncmp(p->text + t->at, s, t->len) == 0;
}

static bool accept_kw(parser *p, const char *kw)
{
    if (is_kw(p, &p->t, kw)) {
        next(p);
        return true;
    }
    return false;
}

static bool accept_sym(parser *p, const char *s)
{
    if (is_sym(p, &p->t, s)) {
        next(p);
        return true;
    }
    return false;
}

static void expect_sym(parser *p, const char *s)
{
    if (!accept_sym(p, s))
        perr(p, p->t.at, "expected '%s'", s);
}

/* ---- nodes ----------------------------------------------------------------------- */

static weir_ast *node(parser *p, weir_ast_kind kind, size_t start)
{
    if (p->error.failed)
        return NULL;
    weir_ast *n = weir_ast_new(p->arena, kind, NULL, (uint32_t)start, 0);
    if (!n)
        nomem(p);
    return n;
}

/* Closes n at the end of the last token taken. */
static weir_ast *done(parser *p, weir_ast *n)
{
    if (!n || p->error.failed)
        return NULL;
    n->end = (uint32_t)p->prev_end;
    /* Its depth: what binding, comparing and evaluating it will recurse. */
    uint32_t d = 0;
    if (n->a && n->a->depth > d)
        d = n->a->depth;
    if (n->b && n->b->depth > d)
        d = n->b->depth;
    for (int i = 0; i < n->nargs; i++)
        if (n->args[i]->depth > d)
            d = n->args[i]->depth;
    n->depth = d + 1;
    if (n->depth > WEIR_AST_MAX_DEPTH) {
        perr(p, n->start, "an expression nested deeper than %d levels", WEIR_AST_MAX_DEPTH);
        return NULL;
    }
    return n;
}

/* The parser's own recursion, bounded like the trees it makes (a level of
 * parentheses opens three of these calls): true to go on, false (failed)
 * when too deep; leave() after. */
static bool enter(parser *p)
{
    if (++p->nesting <= 3 * WEIR_AST_MAX_DEPTH)
        return true;
    perr(p, p->t.at, "an expression nested deeper than %d levels", WEIR_AST_MAX_DEPTH);
    return false;
}

static weir_ast *leave(parser *p, weir_ast *n)
{
    p->nesting--;
    return n;
}

/* The token's value: a name unquoted (a doubled back quote is one), a
 * string's value, else its text. */
static char *token_value(parser *p, const tok *t, uint32_t *len)
{
    const char *s = p->text + t->at;
    size_t n = t->len;
    char q = 0;
    if (t->kind == T_QIDENT || t->kind == T_STR) {
        q = *s;
        s++;
        n = n >= 2 ? n - 2 : 0;
    }
    char *d = arena_alloc(p->arena, n + 1);
    if (!d) {
        nomem(p);
        return NULL;
    }
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        d[k++] = s[i];
        if (q && s[i] == q && i + 1 < n && s[i + 1] == q)
            i++;
    }
    d[k] = 0;
    if (len)
        *len = (uint32_t)k;
    return d;
}

/* A growing list of nodes, copied into the arena when complete. */
typedef struct nodes {
    weir_ast **v;
    int n, cap;
} nodes;

static bool push(parser *p, nodes *l, weir_ast *x)
{
    if (!x)
        return false;
    if (l->n == l->cap) {
        int c = l->cap ? 2 * l->cap : 4;
        weir_ast **v = realloc(l->v, (size_t)c * sizeof *v);
        if (!v) {
            nomem(p);
            return false;
        }
        l->v = v;
        l->cap = c;
    }
    l->v[l->n++] = x;
    return true;
}

static bool take_args(parser *p, weir_ast *n, nodes *l)
{
    bool ok = !p->error.failed;
    if (ok && l->n) {
        n->args = arena_alloc(p->arena, (size_t)l->n * sizeof *n->args);
        if (n->args) {
            memcpy(n->args, l->v, (size_t)l->n * sizeof *n->args);
            n->nargs = l->n;
        } else {
            nomem(p);
            ok = false;
        }
    }
    free(l->v);
    *l = (nodes){0};
    return ok;
}

/* ---- the grammar (weir/expr.h) ----------------------------------------------------- */

static weir_ast *parse_or(parser *p);
static weir_ast *parse_unary(parser *p);
static weir_ast *parse_not(parser *p);

/* The unit the current token names, or -1. */
static int unit_here(const parser *p)
{
    return p->t.kind == T_IDENT ? weir__interval_unit(p->text + p->t.at, p->t.len) : -1;
}

/* INTERVAL [-]'v' UNIT [TO UNIT], after INTERVAL (at `start`): Flink's
 * day-time intervals, the value read by base/interval.c (whole numbers, a
 * fraction of a second, 'm:ss' for MINUTE TO SECOND ...). An unquoted
 * whole number is taken for the quoted one. */
static weir_ast *parse_interval(parser *p, size_t start)
{
    bool neg = accept_sym(p, "-");
    if (p->t.kind != T_STR && p->t.kind != T_INT) {
        perr(p, p->t.at, "expected the interval's value ('5')");
        return NULL;
    }
    tok value = p->t;
    next(p);
    int from = unit_here(p), to = from;
    if (from < 0) {
        perr(p, p->t.at, "expected an interval unit (MILLISECOND, SECOND, MINUTE, HOUR, DAY)");
        return NULL;
    }
    next(p);
    if (is_kw(p, &p->t, "TO")) {
        next(p);
        to = unit_here(p);
        if (to <= from || to == WEIR__UNIT_MILLISECOND) {
            perr(p, p->t.at, "expected a smaller unit after TO (MINUTE TO SECOND, HOUR TO "
                             "MINUTE, DAY TO HOUR, ...)");
            return NULL;
        }
        next(p);
    }
    const char *v = p->text + value.at + (value.kind == T_STR);
    size_t vlen = value.kind == T_STR ? value.len - 2 : value.len;
    weir_ast *l = node(p, WEIR_AST_INTERVAL, start);
    char why[160];
    if (l && weir__interval_value(v, vlen, from, to, &l->value, why, sizeof why)) {
        perr(p, value.at, "%s", why);
        return NULL;
    }
    if (l && neg)
        l->value = -l->value;
    return done(p, l);
}

/* CAST(x AS type), after CAST: the type's text runs to the matching ')'
 * (weir_type_parse reads it when the tree is bound). */
static weir_ast *parse_cast(parser *p, size_t start)
{
    weir_ast *n = node(p, WEIR_AST_CAST, start);
    expect_sym(p, "(");
    if (n)
        n->a = parse_or(p);
    if (!p->error.failed && !accept_kw(p, "AS"))
        perr(p, p->t.at, "expected AS in CAST");
    if (p->error.failed)
        return NULL;
    size_t s = p->t.at, e = s;
    int depth = 0;
    while (p->text[e] && !(depth == 0 && p->text[e] == ')')) {
        if (p->text[e] == '(')
            depth++;
        else if (p->text[e] == ')')
            depth--;
        e++;
    }
    if (!p->text[e]) {
        perr(p, s, "expected ')' after the CAST's type");
        return NULL;
    }
    size_t k = e;
    while (k > s && isspace((unsigned char)p->text[k - 1]))
        k--;
    if (!(n->text = arena_strndup(p->arena, p->text + s, k - s))) {
        nomem(p);
        return NULL;
    }
    n->len = (uint32_t)(k - s);
    n->type_start = (uint32_t)s;
    p->cur = e + 1;
    p->t = (tok){.kind = T_SYM, .at = e, .len = 1};
    next(p);
    return done(p, n);
}

/* "(args...)" of a function call or IN into n->args. */
static bool parse_args(parser *p, weir_ast *n)
{
    expect_sym(p, "(");
    nodes l = {0};
    if (!p->error.failed && !is_sym(p, &p->t, ")")) {
        do
            push(p, &l, parse_or(p));
        while (!p->error.failed && accept_sym(p, ","));
    }
    expect_sym(p, ")");
    return take_args(p, n, &l);
}

/* NAME(...), with the name taken: COUNT(*), NAME(DISTINCT x), NAME(args). */
static weir_ast *parse_call(parser *p, const tok *name)
{
    weir_ast *n = node(p, WEIR_AST_CALL, name->at);
    if (!n || !(n->text = token_value(p, name, &n->len)))
        return NULL;
    if (is_kw(p, name, "COUNT")) {
        tok save = p->t;
        size_t cur = p->cur;
        next(p);
        if (accept_sym(p, "*")) {
            expect_sym(p, ")");
            n->star = true;
            return done(p, n);
        }
        p->t = save;
        p->cur = cur;
    }
    tok open = p->t;
    size_t cur = p->cur;
    next(p);
    if (is_kw(p, &p->t, "DISTINCT")) {
        next(p);
        n->distinct = true;
        nodes l = {0};
        push(p, &l, parse_or(p));
        expect_sym(p, ")");
        take_args(p, n, &l);
        return done(p, n);
    }
    p->t = open;
    p->cur = cur;
    parse_args(p, n);
    return done(p, n);
}

/* CASE WHEN c THEN v ... [ELSE v] END, after CASE. */
static weir_ast *parse_case(parser *p, size_t start)
{
    weir_ast *n = node(p, WEIR_AST_CASE, start);
    nodes l = {0};
    while (!p->error.failed && accept_kw(p, "WHEN")) {
        push(p, &l, parse_or(p));
        if (!p->error.failed && !accept_kw(p, "THEN"))
            perr(p, p->t.at, "expected THEN");
        push(p, &l, parse_or(p));
    }
    if (!p->error.failed && l.n == 0)
        perr(p, p->t.at, "expected WHEN");
    if (!p->error.failed && accept_kw(p, "ELSE")) {
        push(p, &l, parse_or(p));
        if (n)
            n->has_else = true;
    }
    if (!p->error.failed && !accept_kw(p, "END"))
        perr(p, p->t.at, "expected END");
    if (!n || !take_args(p, n, &l))
        return NULL;
    return done(p, n);
}

/* Whether a bare word is reserved, as in Flink's SQL: the grammar's own
 * words and the clause words around an expression; a column of that name
 * is written `quoted`. */
static bool reserved(const parser *p, const tok *t)
{
    static const char *const words[] = {
        "AND", "OR", "NOT", "IS", "IN", "CASE", "WHEN", "THEN", "ELSE", "END", "AS",
        "DISTINCT", "SELECT", "FROM", "WHERE", "GROUP", "BY", "HAVING", "UNION", "ORDER",
        "LIMIT", "WINDOW", "WITH", "ON", "JOIN", NULL};
    for (int i = 0; words[i]; i++)
        if (is_kw(p, t, words[i]))
            return true;
    return false;
}

/* A name, with its token taken: `col`, or `t.col`. */
static weir_ast *parse_name(parser *p, const tok *t)
{
    weir_ast *n = node(p, WEIR_AST_NAME, t->at);
    if (!n || !(n->text = token_value(p, t, &n->len)))
        return NULL;
    if (is_sym(p, &p->t, ".")) {
        next(p);
        if (p->t.kind != T_IDENT && p->t.kind != T_QIDENT) {
            perr(p, p->t.at, "expected a column name after '%s.'", n->text);
            return NULL;
        }
        n->qualifier = n->text;
        tok c = p->t;
        next(p);
        if (!(n->text = token_value(p, &c, &n->len)))
            return NULL;
    }
    return done(p, n);
}

static weir_ast *literal(parser *p, weir_ast_kind kind, const tok *t)
{
    weir_ast *n = node(p, kind, t->at);
    if (n && (kind == WEIR_AST_INT || kind == WEIR_AST_DECIMAL || kind == WEIR_AST_STRING) &&
        !(n->text = token_value(p, t, &n->len)))
        return NULL;
    next(p);
    return done(p, n);
}

static weir_ast *parse_primary(parser *p)
{
    tok t = p->t;
    if (p->error.failed)
        return NULL;
    switch (t.kind) {
    case T_INT:
        return literal(p, WEIR_AST_INT, &t);
    case T_DEC:
        return literal(p, WEIR_AST_DECIMAL, &t);
    case T_STR:
        return literal(p, WEIR_AST_STRING, &t);
    case T_QIDENT:
        next(p);
        return parse_name(p, &t);
    case T_IDENT:
        if (is_kw(p, &t, "TRUE") || is_kw(p, &t, "FALSE")) {
            weir_ast *n = literal(p, WEIR_AST_BOOLEAN, &t);
            if (n)
                n->value = is_kw(p, &t, "TRUE");
            return n;
        }
        if (is_kw(p, &t, "NULL"))
            return literal(p, WEIR_AST_NULL, &t);
        next(p);
        if (is_kw(p, &t, "INTERVAL"))
            return parse_interval(p, t.at);
        if (is_kw(p, &t, "CASE"))
            return parse_case(p, t.at);
        if (is_kw(p, &t, "CAST"))
            return parse_cast(p, t.at);
        if (is_sym(p, &p->t, "("))
            return parse_call(p, &t);
        if (reserved(p, &t)) {
            /* a clause word where an operand should be: "amount + FROM" */
            perr(p, t.at, "expected an expression, found '%.*s'", (int)t.len, p->text + t.at);
            return NULL;
        }
        return parse_name(p, &t);
    case T_SYM:
        if (is_sym(p, &t, "(")) {
            next(p);
            weir_ast *n = parse_or(p);
            expect_sym(p, ")");
            return p->error.failed ? NULL : n;
        }
        if (!strchr(SYMBOL_CHARS, p->text[t.at])) {
            perr(p, t.at, "unexpected character '%c'", p->text[t.at]);
            return NULL;
        }
        break;
    case T_END:
        perr(p, t.at, "unexpected end of the expression");
        return NULL;
    }
    perr(p, t.at, "unexpected '%.*s'", (int)t.len, p->text + t.at);
    return NULL;
}

static weir_ast *parse_unary_body(parser *p)
{
    size_t start = p->t.at;
    if (accept_sym(p, "-")) {
        weir_ast *n = node(p, WEIR_AST_NEG, start);
        weir_ast *x = parse_unary(p);
        if (!n || !x)
            return NULL;
        n->a = x;
        return done(p, n);
    }
    if (accept_sym(p, "+"))
        return parse_unary(p);
    return parse_primary(p);
}

static weir_ast *parse_unary(parser *p)
{
    return enter(p) ? leave(p, parse_unary_body(p)) : leave(p, NULL);
}

static weir_ast *binary(parser *p, weir_ast_op op, weir_ast *a, weir_ast *b)
{
    if (!a || !b || p->error.failed)
        return NULL;
    weir_ast *n = node(p, WEIR_AST_BINARY, a->start);
    if (!n)
        return NULL;
    n->op = op;
    n->a = a;
    n->b = b;
    return done(p, n);
}

/* The operator's place (messages name the operator, as the binder's do). */
static weir_ast *binary_at(parser *p, weir_ast_op op, weir_ast *a, weir_ast *b, size_t at)
{
    weir_ast *n = binary(p, op, a, b);
    if (n)
        n->op_at = (uint32_t)at;
    return n;
}

static weir_ast *parse_mul(parser *p)
{
    weir_ast *a = parse_unary(p);
    for (;;) {
        size_t at = p->t.at;
        weir_ast_op op;
        if (accept_sym(p, "*"))
            op = WEIR_AST_MUL;
        else if (accept_sym(p, "/"))
            op = WEIR_AST_DIV;
        else if (accept_sym(p, "%"))
            op = WEIR_AST_MOD;
        else
            return a;
        a = binary_at(p, op, a, parse_unary(p), at);
    }
}

static weir_ast *parse_add(parser *p)
{
    weir_ast *a = parse_mul(p);
    for (;;) {
        size_t at = p->t.at;
        weir_ast_op op;
        if (accept_sym(p, "+"))
            op = WEIR_AST_ADD;
        else if (accept_sym(p, "-"))
            op = WEIR_AST_SUB;
        else
            return a;
        a = binary_at(p, op, a, parse_mul(p), at);
    }
}

static weir_ast *parse_concat(parser *p)
{
    weir_ast *a = parse_add(p);
    for (;;) {
        size_t at = p->t.at;
        if (!accept_sym(p, "||"))
            return a;
        a = binary_at(p, WEIR_AST_CONCAT, a, parse_add(p), at);
    }
}

static weir_ast *parse_pred(parser *p)
{
    weir_ast *a = parse_concat(p);
    if (!a || p->error.failed)
        return NULL;
    size_t at = p->t.at;
    static const struct { const char *s; weir_ast_op op; } cmps[] = {
        {"=", WEIR_AST_EQ}, {"<>", WEIR_AST_NE}, {"!=", WEIR_AST_NE}, {"<", WEIR_AST_LT},
        {"<=", WEIR_AST_LE}, {">", WEIR_AST_GT}, {">=", WEIR_AST_GE},
    };
    for (size_t i = 0; i < sizeof cmps / sizeof cmps[0]; i++)
        if (accept_sym(p, cmps[i].s))
            return binary_at(p, cmps[i].op, a, parse_concat(p), at);
    if (accept_kw(p, "IS")) {
        weir_ast *n = node(p, WEIR_AST_IS_NULL, a->start);
        bool neg = accept_kw(p, "NOT");
        if (!p->error.failed && !accept_kw(p, "NULL"))
            perr(p, p->t.at, "expected NULL after IS%s", neg ? " NOT" : "");
        if (!n || p->error.failed)
            return NULL;
        n->a = a;
        n->negate = neg;
        n->op_at = (uint32_t)at;
        return done(p, n);
    }
    bool neg = false;
    if (is_kw(p, &p->t, "NOT")) {
        /* NOT IN: look ahead one word. */
        tok save = p->t;
        size_t cur = p->cur, prev = p->prev_end;
        next(p);
        if (!is_kw(p, &p->t, "IN")) {
            p->t = save;
            p->cur = cur;
            p->prev_end = prev;
            return a;
        }
        neg = true;
    }
    if (accept_kw(p, "IN")) {
        weir_ast *n = node(p, WEIR_AST_IN, a->start);
        if (!n || !parse_args(p, n))
            return NULL;
        n->a = a;
        n->negate = neg;
        n->op_at = (uint32_t)at;
        return done(p, n);
    }
    return a;
}

static weir_ast *parse_not_body(parser *p)
{
    size_t start = p->t.at;
    if (accept_kw(p, "NOT")) {
        weir_ast *n = node(p, WEIR_AST_NOT, start);
        weir_ast *x = parse_not(p);
        if (!n || !x)
            return NULL;
        n->a = x;
        return done(p, n);
    }
    return parse_pred(p);
}

static weir_ast *parse_not(parser *p)
{
    return enter(p) ? leave(p, parse_not_body(p)) : leave(p, NULL);
}

static weir_ast *parse_and(parser *p)
{
    weir_ast *a = parse_not(p);
    for (;;) {
        size_t at = p->t.at;
        if (!accept_kw(p, "AND"))
            return a;
        a = binary_at(p, WEIR_AST_AND, a, parse_not(p), at);
    }
}

static weir_ast *parse_or_body(parser *p)
{
    weir_ast *a = parse_and(p);
    for (;;) {
        size_t at = p->t.at;
        if (!accept_kw(p, "OR"))
            return a;
        a = binary_at(p, WEIR_AST_OR, a, parse_and(p), at);
    }
}

static weir_ast *parse_or(parser *p)
{
    return enter(p) ? leave(p, parse_or_body(p)) : leave(p, NULL);
}

int weir_ast_parse(weir_ast_arena **arena, const char *text, size_t start, weir_ast **out,
                   size_t *end, size_t *err_at, char *err, size_t errsize)
{
    if (err && errsize)
        err[0] = 0;
    if (err_at)
        *err_at = start;
    if (!arena || !text || !out) {
        if (err && errsize)
            snprintf(err, errsize, "an arena, a text and an output are required");
        return WEIR_EINVAL;
    }
    *out = NULL;
    parser p = {.arena = arena, .text = text, .cur = start, .t = {.at = start},
                .error = {.err_at = err_at, .err = err, .errsize = errsize}};
    next(&p);
    weir_ast *root = parse_or(&p);
    if (end)
        *end = p.t.at;
    if (p.error.failed)
        return p.error.failed;
    *out = root;
    return 0;
}

int weir__ast_parse_item(weir_ast_arena **arena, const char *text, bool allow_alias,
                         weir_ast **out, char **alias, size_t *err_at, char *err,
                         size_t errsize)
{
    *out = NULL;
    if (alias)
        *alias = NULL;
    parser p = {.arena = arena, .text = text, .error = {.err_at = err_at, .err = err, .errsize = errsize}};
    next(&p);
    weir_ast *root = parse_or(&p);
    if (!p.error.failed && allow_alias && accept_kw(&p, "AS")) {
        if (p.t.kind != T_IDENT && p.t.kind != T_QIDENT) {
            perr(&p, p.t.at, "expected a name after AS");
        } else {
            char *as = token_value(&p, &p.t, NULL);
            if (as && alias && !(*alias = strdup(as)))
                nomem(&p);
            next(&p);
        }
    }
    if (!p.error.failed && p.t.kind == T_SYM && !strchr(SYMBOL_CHARS, text[p.t.at]))
        perr(&p, p.t.at, "unexpected character '%c'", text[p.t.at]);
    if (!p.error.failed && p.t.kind != T_END)
        perr(&p, p.t.at, "unexpected '%.*s'", (int)p.t.len, text + p.t.at);
    if (p.error.failed) {
        if (alias) {
            free(*alias);
            *alias = NULL;
        }
        return p.error.failed;
    }
    *out = root;
    return 0;
}

/* ---- comparing and formatting ------------------------------------------------------ */

bool weir_ast_equal(const weir_ast *a, const weir_ast *b)
{
    if (!a || !b)
        return a == b;
    if (a->kind != b->kind || a->op != b->op || a->value != b->value ||
        a->negate != b->negate || a->distinct != b->distinct || a->star != b->star ||
        a->has_else != b->has_else || a->nargs != b->nargs)
        return false;
    switch (a->kind) {
    case WEIR_AST_NAME:
        if ((a->qualifier == NULL) != (b->qualifier == NULL) ||
            (a->qualifier && strcmp(a->qualifier, b->qualifier) != 0) ||
            strcmp(a->text, b->text) != 0)
            return false;
        break;
    case WEIR_AST_STRING:
        if (a->len != b->len || memcmp(a->text, b->text, a->len) != 0)
            return false;
        break;
    case WEIR_AST_INT:
    case WEIR_AST_DECIMAL:
        if (strcmp(a->text, b->text) != 0)
            return false;
        break;
    case WEIR_AST_CALL:
    case WEIR_AST_CAST:
        if (strcasecmp(a->text, b->text) != 0)
            return false;
        break;
    default:
        break;
    }
    if (!weir_ast_equal(a->a, b->a) || !weir_ast_equal(a->b, b->b))
        return false;
    for (int i = 0; i < a->nargs; i++)
        if (!weir_ast_equal(a->args[i], b->args[i]))
            return false;
    return true;
}

/* How tightly an operator binds (the grammar's levels, weir/expr.h). */
static int level(const weir_ast *a)
{
    switch (a->kind) {
    case WEIR_AST_BINARY:
        switch (a->op) {
        case WEIR_AST_OR: return 1;
        case WEIR_AST_AND: return 2;
        case WEIR_AST_EQ: case WEIR_AST_NE: case WEIR_AST_LT:
        case WEIR_AST_LE: case WEIR_AST_GT: case WEIR_AST_GE: return 4;
        case WEIR_AST_CONCAT: return 5;
        case WEIR_AST_ADD: case WEIR_AST_SUB: return 6;
        default: return 7;
        }
    case WEIR_AST_NOT: return 3;
    case WEIR_AST_IS_NULL:
    case WEIR_AST_IN: return 4;
    case WEIR_AST_NEG: return 8;
    default: return 9;
    }
}

static void fmt(const weir_ast *a, char *buf, size_t size, size_t *n);

/* x, in parentheses when it binds less tightly than `min`. */
static void operand(const weir_ast *x, int min, char *buf, size_t size, size_t *n)
{
    bool paren = level(x) < min;
    if (paren)
        weir__append(buf, size, n, "(");
    fmt(x, buf, size, n);
    if (paren)
        weir__append(buf, size, n, ")");
}

static void list(weir_ast *const *v, int k, char *buf, size_t size, size_t *n)
{
    for (int i = 0; i < k; i++) {
        if (i)
            weir__append(buf, size, n, ", ");
        fmt(v[i], buf, size, n);
    }
}

/* A name, in back quotes when it is not a bare name or is a word of the
 * grammar. */
static void name(const char *s, char *buf, size_t size, size_t *n)
{
    static const char *const words[] = {"AND", "OR", "NOT", "IS", "IN", "NULL", "TRUE", "FALSE",
                                        "CASE", "WHEN", "THEN", "ELSE", "END", "CAST", "AS",
                                        "INTERVAL", "DISTINCT", NULL};
    bool bare = *s && !isdigit((unsigned char)*s);
    for (const char *c = s; bare && *c; c++)
        bare = ident_char(*c);
    for (int i = 0; bare && words[i]; i++)
        bare = strcasecmp(s, words[i]) != 0;
    if (bare)
        weir__append(buf, size, n, "%s", s);
    else
        weir__append_name(buf, size, n, "", s);
}

static void fmt(const weir_ast *a, char *buf, size_t size, size_t *n)
{
    static const char *const ops[] = {
        [WEIR_AST_ADD] = "+", [WEIR_AST_SUB] = "-", [WEIR_AST_MUL] = "*", [WEIR_AST_DIV] = "/",
        [WEIR_AST_MOD] = "%", [WEIR_AST_CONCAT] = "||", [WEIR_AST_EQ] = "=", [WEIR_AST_NE] = "<>",
        [WEIR_AST_LT] = "<", [WEIR_AST_LE] = "<=", [WEIR_AST_GT] = ">", [WEIR_AST_GE] = ">=",
        [WEIR_AST_AND] = "AND", [WEIR_AST_OR] = "OR"};
    switch (a->kind) {
    case WEIR_AST_INT:
    case WEIR_AST_DECIMAL:
        weir__append(buf, size, n, "%s", a->text);
        break;
    case WEIR_AST_STRING:
        weir__append(buf, size, n, "'");
        for (uint32_t i = 0; i < a->len; i++)
            weir__append(buf, size, n, a->text[i] == '\'' ? "''" : "%c", a->text[i]);
        weir__append(buf, size, n, "'");
        break;
    case WEIR_AST_BOOLEAN:
        weir__append(buf, size, n, a->value ? "TRUE" : "FALSE");
        break;
    case WEIR_AST_NULL:
        weir__append(buf, size, n, "NULL");
        break;
    case WEIR_AST_INTERVAL: {
        /* the largest unit that holds it whole, else seconds with a fraction */
        int64_t v = a->value, mag = v < 0 ? -v : v;
        static const int64_t ms[] = {86400000, 3600000, 60000, 1000};
        int u = 0;
        while (u < 4 && mag % ms[u] != 0)
            u++;
        if (u < 4)
            weir__append(buf, size, n, "INTERVAL '%lld' %s", (long long)(v / ms[u]),
                         weir__interval_unit_name(u));
        else
            weir__append(buf, size, n, "INTERVAL '%s%lld.%03lld' SECOND", v < 0 ? "-" : "",
                         (long long)(mag / 1000), (long long)(mag % 1000));
        break;
    }
    case WEIR_AST_NAME:
        if (a->qualifier) {
            name(a->qualifier, buf, size, n);
            weir__append(buf, size, n, ".");
        }
        name(a->text, buf, size, n);
        break;
    case WEIR_AST_NEG:
        weir__append(buf, size, n, "-");
        operand(a->a, 8, buf, size, n);
        break;
    case WEIR_AST_BINARY: {
        int l = level(a);
        operand(a->a, l, buf, size, n);
        weir__append(buf, size, n, " %s ", ops[a->op]);
        operand(a->b, l + 1, buf, size, n);
        break;
    }
    case WEIR_AST_NOT:
        weir__append(buf, size, n, "NOT ");
        operand(a->a, 3, buf, size, n);
        break;
    case WEIR_AST_IS_NULL:
        operand(a->a, 5, buf, size, n);
        weir__append(buf, size, n, a->negate ? " IS NOT NULL" : " IS NULL");
        break;
    case WEIR_AST_IN:
        operand(a->a, 5, buf, size, n);
        weir__append(buf, size, n, a->negate ? " NOT IN (" : " IN (");
        list(a->args, a->nargs, buf, size, n);
        weir__append(buf, size, n, ")");
        break;
    case WEIR_AST_CASE: {
        weir__append(buf, size, n, "CASE");
        int pairs = (a->nargs - (a->has_else ? 1 : 0)) / 2;
        for (int i = 0; i < pairs; i++) {
            weir__append(buf, size, n, " WHEN ");
            fmt(a->args[2 * i], buf, size, n);
            weir__append(buf, size, n, " THEN ");
            fmt(a->args[2 * i + 1], buf, size, n);
        }
        if (a->has_else) {
            weir__append(buf, size, n, " ELSE ");
            fmt(a->args[a->nargs - 1], buf, size, n);
        }
        weir__append(buf, size, n, " END");
        break;
    }
    case WEIR_AST_CAST:
        weir__append(buf, size, n, "CAST(");
        fmt(a->a, buf, size, n);
        weir__append(buf, size, n, " AS %s)", a->text);
        break;
    case WEIR_AST_CALL:
        weir__append(buf, size, n, "%s(", a->text);
        if (a->star)
            weir__append(buf, size, n, "*");
        else if (a->distinct)
            weir__append(buf, size, n, "DISTINCT ");
        list(a->args, a->nargs, buf, size, n);
        weir__append(buf, size, n, ")");
        break;
    }
}

int weir_ast_format(const weir_ast *a, char *buf, size_t size)
{
    size_t n = 0;
    if (size)
        buf[0] = 0;
    if (a)
        fmt(a, buf, size, &n);
    return (int)n;
}

/* ---- lists -------------------------------------------------------------------------- */

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
