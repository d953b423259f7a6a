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
#define SYMBOL_CHARS "(),+-*/%=<>.|![]"

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
static weir_ast *parse_concat(parser *p);

/* The unit the current token names, or -1. */
static int unit_here(const parser *p)
{
    return p->t.kind == T_IDENT ? weir__interval_unit(p->text + p->t.at, p->t.len) : -1;
}

/* 1 YEAR or 2 MONTH (a plural too) at the current token: 'Y', 'M', or 0. */
static char ym_unit_here(const parser *p)
{
    static const char *const words[] = {"YEAR", "YEARS", "MONTH", "MONTHS"};
    for (int i = 0; i < 4; i++)
        if (is_kw(p, &p->t, words[i]))
            return i < 2 ? 'Y' : 'M';
    return 0;
}

/* The year-month interval after its value (the current token its unit):
 * INTERVAL 'y' YEAR, 'm' MONTH, 'y-m' YEAR TO MONTH, each with an
 * optional sign, as months. Calcite's message for a value that is not. */
static weir_ast *parse_interval_ym(parser *p, size_t start, bool neg, const tok *value)
{
    char from = ym_unit_here(p), to = from;
    next(p);
    if (from == 'Y' && is_kw(p, &p->t, "TO")) {
        next(p);
        if (ym_unit_here(p) != 'M') {
            perr(p, p->t.at, "expected MONTH after YEAR TO");
            return NULL;
        }
        to = 'M';
        next(p);
    }
    const char *v = p->text + value->at + (value->kind == T_STR);
    size_t n = value->kind == T_STR ? value->len - 2 : value->len, i = 0;
    int sign = 1;
    if (n && (v[0] == '-' || v[0] == '+'))
        sign = v[i++] == '-' ? -1 : 1;
    int64_t f[2] = {0, 0};
    int nf = 0, digits = 0;
    bool ok = true;
    for (; ok && i <= n; i++) {
        if (i < n && isdigit((unsigned char)v[i])) {
            f[nf] = f[nf] * 10 + (v[i] - '0');
            ok = ++digits <= 9;
        } else if (i == n || (v[i] == '-' && from != to && nf == 0)) {
            ok = digits > 0;
            nf++;
            digits = 0;
        } else {
            ok = false;
        }
    }
    ok = ok && nf == (from != to ? 2 : 1) && (from == to || f[1] <= 11);
    if (!ok) {
        perr(p, value->at, "Illegal interval literal format '%.*s' for INTERVAL %s", (int)n, v,
             from != to ? "YEAR TO MONTH" : from == 'Y' ? "YEAR" : "MONTH");
        return NULL;
    }
    weir_ast *l = node(p, WEIR_AST_INTERVAL_YM, start);
    if (l)
        l->value = (neg ? -1 : 1) * sign * (from == 'M' ? f[0] : f[0] * 12 + f[1]);
    return done(p, l);
}

/* INTERVAL [-]'v' UNIT [TO UNIT], after INTERVAL (at `start`): Flink's
 * day-time intervals, the value read by base/interval.c (whole numbers, a
 * fraction of a second, 'm:ss' for MINUTE TO SECOND ...), and its
 * year-month ones (parse_interval_ym). An unquoted whole number is taken
 * for the quoted one. */
static weir_ast *parse_interval(parser *p, size_t start)
{
    bool neg = accept_sym(p, "-");
    if (p->t.kind != T_STR && p->t.kind != T_INT) {
        perr(p, p->t.at, "expected the interval's value ('5')");
        return NULL;
    }
    tok value = p->t;
    next(p);
    if (ym_unit_here(p))
        return parse_interval_ym(p, start, neg, &value);
    int from = unit_here(p), to = from;
    if (from < 0) {
        perr(p, p->t.at, "expected an interval unit (MILLISECOND, SECOND, MINUTE, HOUR, DAY, "
                         "MONTH, YEAR)");
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


/* ---- calls in SQL's own syntax ------------------------------------------------------ */

/* A SYMBOL node of `text` (upper case), at `at`. */
static weir_ast *symbol(parser *p, const char *text, size_t at)
{
    weir_ast *n = node(p, WEIR_AST_SYMBOL, at);
    if (!n)
        return NULL;
    size_t len = strlen(text);
    if (!(n->text = arena_strndup(p->arena, text, len))) {
        nomem(p);
        return NULL;
    }
    for (size_t i = 0; i < len; i++)
        n->text[i] = (char)toupper((unsigned char)n->text[i]);
    n->len = (uint32_t)len;
    n->depth = 1;
    n->end = (uint32_t)p->prev_end;
    return n;
}

/* The current token as a SYMBOL when it is a bare word (taken), else an
 * error saying `what` was expected. */
static weir_ast *word_symbol(parser *p, const char *what)
{
    if (p->error.failed)
        return NULL;
    if (p->t.kind != T_IDENT) {
        perr(p, p->t.at, "expected %s", what);
        return NULL;
    }
    char w[64];
    size_t len = p->t.len < sizeof w - 1 ? p->t.len : sizeof w - 1;
    memcpy(w, p->text + p->t.at, len);
    w[len] = 0;
    size_t at = p->t.at;
    next(p);
    return symbol(p, w, at);
}

/* A string literal node of `text`, at `at` (TRIM's default ' '). */
static weir_ast *string_node(parser *p, const char *text, size_t at)
{
    weir_ast *n = node(p, WEIR_AST_STRING, at);
    if (!n)
        return NULL;
    if (!(n->text = arena_strndup(p->arena, text, strlen(text)))) {
        nomem(p);
        return NULL;
    }
    n->len = (uint32_t)strlen(text);
    n->depth = 1;
    n->end = (uint32_t)at;
    return n;
}

/* SUBSTRING(s FROM a [FOR b]), or SUBSTRING(s, a[, b]); after the name. */
static weir_ast *parse_substring(parser *p, weir_ast *n)
{
    nodes l = {0};
    expect_sym(p, "(");
    push(p, &l, parse_or(p));
    if (!p->error.failed && accept_kw(p, "FROM")) {
        n->form = WEIR_AST_FORM_SUBSTRING;
        push(p, &l, parse_or(p));
        if (!p->error.failed && accept_kw(p, "FOR"))
            push(p, &l, parse_or(p));
    } else {
        while (!p->error.failed && accept_sym(p, ","))
            push(p, &l, parse_or(p));
    }
    expect_sym(p, ")");
    take_args(p, n, &l);
    return done(p, n);
}

/* TRIM([BOTH|LEADING|TRAILING] [chars] FROM s), TRIM([chars FROM] s): the
 * side, the characters (' ' when not given) and the string. */
static weir_ast *parse_trim(parser *p, weir_ast *n)
{
    static const char *const sides[] = {"BOTH", "LEADING", "TRAILING"};
    expect_sym(p, "(");
    size_t at = p->t.at;
    const char *side = NULL;
    for (int i = 0; !p->error.failed && !side && i < 3; i++)
        if (is_kw(p, &p->t, sides[i])) {
            side = sides[i];
            next(p);
        }
    weir_ast *chars = NULL, *s = NULL;
    if (side && accept_kw(p, "FROM")) {
        s = parse_or(p);
    } else {
        weir_ast *x = parse_or(p);
        if (!p->error.failed && accept_kw(p, "FROM")) {
            chars = x;
            s = parse_or(p);
        } else if (side) {
            perr(p, p->t.at, "expected FROM in TRIM");
        } else {
            s = x;
        }
    }
    expect_sym(p, ")");
    if (p->error.failed)
        return NULL;
    nodes l = {0};
    push(p, &l, symbol(p, side ? side : "BOTH", at));
    push(p, &l, chars ? chars : string_node(p, " ", at));
    push(p, &l, s);
    n->form = WEIR_AST_FORM_TRIM;
    take_args(p, n, &l);
    return done(p, n);
}

/* POSITION(a IN b [FROM c]). */
static weir_ast *parse_position(parser *p, weir_ast *n)
{
    nodes l = {0};
    expect_sym(p, "(");
    push(p, &l, parse_concat(p));
    if (!p->error.failed && accept_sym(p, ",")) {
        push(p, &l, parse_or(p)); /* POSITION(a, b): as LOCATE */
    } else {
        if (!p->error.failed && !accept_kw(p, "IN"))
            perr(p, p->t.at, "expected IN in POSITION");
        push(p, &l, parse_concat(p));
        if (!p->error.failed && accept_kw(p, "FROM"))
            push(p, &l, parse_concat(p));
        n->form = WEIR_AST_FORM_POSITION;
    }
    expect_sym(p, ")");
    take_args(p, n, &l);
    return done(p, n);
}

/* EXTRACT(unit FROM x). */
static weir_ast *parse_extract(parser *p, weir_ast *n)
{
    nodes l = {0};
    expect_sym(p, "(");
    push(p, &l, word_symbol(p, "a time unit (YEAR, MONTH, DAY, HOUR, ...)"));
    if (!p->error.failed && !accept_kw(p, "FROM"))
        perr(p, p->t.at, "expected FROM in EXTRACT");
    push(p, &l, parse_or(p));
    expect_sym(p, ")");
    n->form = WEIR_AST_FORM_EXTRACT;
    take_args(p, n, &l);
    return done(p, n);
}

/* FLOOR(x TO unit), CEIL(x TO unit), or the plain call. */
static weir_ast *parse_floor(parser *p, weir_ast *n)
{
    nodes l = {0};
    expect_sym(p, "(");
    push(p, &l, parse_or(p));
    if (!p->error.failed && accept_kw(p, "TO")) {
        push(p, &l, word_symbol(p, "a time unit (YEAR, MONTH, DAY, HOUR, ...)"));
        n->form = WEIR_AST_FORM_FLOOR_TO;
    } else {
        while (!p->error.failed && accept_sym(p, ","))
            push(p, &l, parse_or(p));
    }
    expect_sym(p, ")");
    take_args(p, n, &l);
    return done(p, n);
}

/* TIMESTAMPADD(unit, n, x), TIMESTAMPDIFF(unit, a, b): the unit a SYMBOL. */
static weir_ast *parse_unit_call(parser *p, weir_ast *n)
{
    nodes l = {0};
    expect_sym(p, "(");
    push(p, &l, word_symbol(p, "a time unit (YEAR, MONTH, DAY, HOUR, ...)"));
    while (!p->error.failed && accept_sym(p, ","))
        push(p, &l, parse_or(p));
    expect_sym(p, ")");
    take_args(p, n, &l);
    return done(p, n);
}

/* The text of a type after RETURNING: a word, then "(...)" if given, then
 * NOT NULL if given (weir_type_parse reads it when the tree is bound). */
static weir_ast *returning_type(parser *p)
{
    size_t s = p->t.at;
    if (p->t.kind != T_IDENT) {
        perr(p, p->t.at, "expected a type after RETURNING");
        return NULL;
    }
    next(p);
    if (is_sym(p, &p->t, "(")) {
        while (!p->error.failed && p->t.kind != T_END && !is_sym(p, &p->t, ")"))
            next(p);
        expect_sym(p, ")");
    }
    if (is_kw(p, &p->t, "NOT")) {
        next(p);
        if (!accept_kw(p, "NULL"))
            perr(p, p->t.at, "expected NULL after NOT");
    }
    if (p->error.failed)
        return NULL;
    char buf[80];
    size_t len = p->prev_end - s < sizeof buf - 1 ? p->prev_end - s : sizeof buf - 1;
    memcpy(buf, p->text + s, len);
    buf[len] = 0;
    return symbol(p, buf, s);
}

/* A NULL literal node at `at` (a clause's value left out). */
static weir_ast *null_node(parser *p, size_t at)
{
    weir_ast *n = node(p, WEIR_AST_NULL, at);
    if (n) {
        n->depth = 1;
        n->end = (uint32_t)at;
    }
    return n;
}

/* One JSON_VALUE behaviour, {NULL | ERROR | DEFAULT expr} ON `when`, if
 * here: its SYMBOL and value into *sym and *val (a NULL literal but for
 * DEFAULT); false, nothing taken, when that clause is not here. */
static bool json_value_behaviour(parser *p, const char *when, weir_ast **sym, weir_ast **val)
{
    size_t at = p->t.at;
    tok save = p->t;
    size_t cur = p->cur, prev = p->prev_end;
    const char *b = NULL;
    weir_ast *v = NULL;
    if (accept_kw(p, "NULL"))
        b = "NULL";
    else if (accept_kw(p, "ERROR"))
        b = "ERROR";
    else if (accept_kw(p, "DEFAULT")) {
        b = "DEFAULT";
        v = parse_concat(p);
    } else
        return false;
    if (p->error.failed)
        return false;
    if (!accept_kw(p, "ON")) {
        perr(p, p->t.at, "expected ON EMPTY or ON ERROR");
        return false;
    }
    if (!accept_kw(p, when)) {
        if (!is_kw(p, &p->t, "EMPTY") && !is_kw(p, &p->t, "ERROR")) {
            perr(p, p->t.at, "expected EMPTY or ERROR after ON");
            return false;
        }
        /* the other clause: read again by its own call */
        p->t = save;
        p->cur = cur;
        p->prev_end = prev;
        return false;
    }
    *sym = symbol(p, b, at);
    *val = v ? v : null_node(p, at);
    return true;
}

/* The words of `w` as the next tokens (any case), taken; false (nothing
 * taken) if they are not there. */
static bool accept_words(parser *p, const char *const *w)
{
    tok save = p->t;
    size_t cur = p->cur, prev = p->prev_end;
    for (int i = 0; w[i]; i++) {
        if (!is_kw(p, &p->t, w[i])) {
            p->t = save;
            p->cur = cur;
            p->prev_end = prev;
            return false;
        }
        next(p);
    }
    return true;
}

/* JSON_VALUE, JSON_QUERY, JSON_EXISTS with their clauses, into the fixed
 * arguments of WEIR_AST_FORM_JSON (weir/expr_ast.h):
 *   JSON_VALUE   j, p, RETURNING type, empty, empty's DEFAULT, error, error's DEFAULT
 *   JSON_QUERY   j, p, wrapper, empty, error
 *   JSON_EXISTS  j, p, error
 * Clauses left out are Flink's defaults, written out. */
static weir_ast *parse_json(parser *p, weir_ast *n, int which)
{
    nodes l = {0};
    expect_sym(p, "(");
    push(p, &l, parse_or(p));
    expect_sym(p, ",");
    push(p, &l, parse_or(p));
    size_t at = p->t.at;
    if (which == 0) {
        weir_ast *type = NULL, *es = NULL, *ev = NULL, *xs = NULL, *xv = NULL;
        if (!p->error.failed && accept_kw(p, "RETURNING"))
            type = returning_type(p);
        if (!p->error.failed)
            json_value_behaviour(p, "EMPTY", &es, &ev);
        if (!p->error.failed)
            json_value_behaviour(p, "ERROR", &xs, &xv);
        if (!type)
            type = symbol(p, "STRING", at);
        if (!es) {
            es = symbol(p, "NULL", at);
            ev = null_node(p, at);
        }
        if (!xs) {
            xs = symbol(p, "NULL", at);
            xv = null_node(p, at);
        }
        push(p, &l, type);
        push(p, &l, es);
        push(p, &l, ev);
        push(p, &l, xs);
        push(p, &l, xv);
    } else if (which == 1) {
        static const char *const wrappers[][5] = {
            {"WITHOUT", "ARRAY", "WRAPPER", NULL},
            {"WITHOUT", "WRAPPER", NULL},
            {"WITH", "CONDITIONAL", "ARRAY", "WRAPPER", NULL},
            {"WITH", "CONDITIONAL", "WRAPPER", NULL},
            {"WITH", "UNCONDITIONAL", "ARRAY", "WRAPPER", NULL},
            {"WITH", "UNCONDITIONAL", "WRAPPER", NULL},
            {"WITH", "ARRAY", "WRAPPER", NULL},
            {"WITH", "WRAPPER", NULL}};
        static const char *const wrapper_sym[] = {
            "WITHOUT ARRAY", "WITHOUT ARRAY", "WITH CONDITIONAL ARRAY", "WITH CONDITIONAL ARRAY",
            "WITH UNCONDITIONAL ARRAY", "WITH UNCONDITIONAL ARRAY", "WITH UNCONDITIONAL ARRAY",
            "WITH UNCONDITIONAL ARRAY"};
        static const char *const behaviours[][3] = {
            {"NULL", NULL}, {"ERROR", NULL}, {"EMPTY", "ARRAY", NULL}, {"EMPTY", "OBJECT", NULL}};
        static const char *const behaviour_sym[] = {"NULL", "ERROR", "EMPTY ARRAY",
                                                    "EMPTY OBJECT"};
        const char *w = "WITHOUT ARRAY", *on[2] = {"NULL", "NULL"};
        for (size_t i = 0; i < sizeof wrappers / sizeof wrappers[0]; i++)
            if (accept_words(p, wrappers[i])) {
                w = wrapper_sym[i];
                break;
            }
        static const char *const whens[] = {"EMPTY", "ERROR"};
        for (int k = 0; k < 2 && !p->error.failed; k++) {
            tok save = p->t;
            size_t cur = p->cur, prev = p->prev_end;
            for (int b = 0; b < 4; b++) {
                if (!accept_words(p, behaviours[b]))
                    continue;
                const char *on_w[] = {"ON", whens[k], NULL};
                if (accept_words(p, on_w)) {
                    on[k] = behaviour_sym[b];
                } else {
                    p->t = save;
                    p->cur = cur;
                    p->prev_end = prev;
                }
                break;
            }
        }
        push(p, &l, symbol(p, w, at));
        push(p, &l, symbol(p, on[0], at));
        push(p, &l, symbol(p, on[1], at));
    } else {
        const char *b = "FALSE";
        static const char *const bs[] = {"TRUE", "FALSE", "UNKNOWN", "ERROR"};
        for (int i = 0; i < 4 && !p->error.failed; i++) {
            const char *w[] = {bs[i], "ON", "ERROR", NULL};
            if (accept_words(p, w)) {
                b = bs[i];
                break;
            }
        }
        push(p, &l, symbol(p, b, at));
    }
    expect_sym(p, ")");
    n->form = WEIR_AST_FORM_JSON;
    take_args(p, n, &l);
    return done(p, n);
}

/* JSON_OBJECT([KEY] k VALUE v, ... [{NULL | ABSENT} ON NULL]) and
 * JSON_ARRAY(v, ... [{NULL | ABSENT} ON NULL]) into the arguments of
 * WEIR_AST_FORM_JSON_CTOR (weir/expr_ast.h): the ON NULL SYMBOL first (left
 * out: NULL for JSON_OBJECT, ABSENT for JSON_ARRAY, Calcite's defaults),
 * then the keys and values in turn, or the values. */
static weir_ast *parse_json_ctor(parser *p, weir_ast *n, bool object)
{
    static const char *const null_on[] = {"NULL", "ON", "NULL", NULL};
    static const char *const absent_on[] = {"ABSENT", "ON", "NULL", NULL};
    nodes l = {0};
    size_t at = p->t.at;
    const char *on_null = object ? "NULL" : "ABSENT";
    push(p, &l, symbol(p, on_null, at)); /* the ON NULL symbol, replaced below if given */
    expect_sym(p, "(");
    bool first = true;
    while (!p->error.failed && !is_sym(p, &p->t, ")")) {
        size_t clause_at = p->t.at;
        if (accept_words(p, null_on) || accept_words(p, absent_on)) {
            on_null = p->text[clause_at] == 'N' || p->text[clause_at] == 'n' ? "NULL" : "ABSENT";
            break;
        }
        if (!first) {
            expect_sym(p, ",");
            if (p->error.failed)
                break;
        }
        first = false;
        if (object) {
            if (is_kw(p, &p->t, "KEY"))
                next(p);
            push(p, &l, parse_or(p));
            if (!p->error.failed && !accept_kw(p, "VALUE"))
                perr(p, p->t.at, "expected VALUE after JSON_OBJECT's key");
        }
        if (!p->error.failed)
            push(p, &l, parse_or(p));
    }
    expect_sym(p, ")");
    if (!p->error.failed && l.n && strcmp(l.v[0]->text, on_null) != 0)
        l.v[0] = symbol(p, on_null, at);
    n->form = WEIR_AST_FORM_JSON_CTOR;
    take_args(p, n, &l);
    return done(p, n);
}

/* A call whose name has a syntax of its own, after the name: NULL with
 * *handled false when it has none. */
static weir_ast *parse_special_call(parser *p, const tok *name, weir_ast *n, bool *handled)
{
    *handled = true;
    if (is_kw(p, name, "SUBSTRING"))
        return parse_substring(p, n);
    if (is_kw(p, name, "TRIM"))
        return parse_trim(p, n);
    if (is_kw(p, name, "POSITION"))
        return parse_position(p, n);
    if (is_kw(p, name, "EXTRACT"))
        return parse_extract(p, n);
    if (is_kw(p, name, "FLOOR") || is_kw(p, name, "CEIL") || is_kw(p, name, "CEILING"))
        return parse_floor(p, n);
    if (is_kw(p, name, "TIMESTAMPADD") || is_kw(p, name, "TIMESTAMPDIFF"))
        return parse_unit_call(p, n);
    if (is_kw(p, name, "JSON_VALUE"))
        return parse_json(p, n, 0);
    if (is_kw(p, name, "JSON_QUERY"))
        return parse_json(p, n, 1);
    if (is_kw(p, name, "JSON_EXISTS"))
        return parse_json(p, n, 2);
    if (is_kw(p, name, "JSON_OBJECT"))
        return parse_json_ctor(p, n, true);
    if (is_kw(p, name, "JSON_ARRAY"))
        return parse_json_ctor(p, n, false);
    *handled = false;
    return NULL;
}

/* NAME(...), with the name taken: COUNT(*), NAME(DISTINCT x), NAME(args). */
/* An aggregate call's FILTER (WHERE c), after its ')': c in n->b. A
 * FILTER not followed by '(' is left alone (a name). */
static void parse_filter(parser *p, weir_ast *n)
{
    if (p->error.failed || !is_kw(p, &p->t, "FILTER"))
        return;
    tok save = p->t;
    size_t cur = p->cur, prev_end = p->prev_end;
    next(p);
    if (!is_sym(p, &p->t, "(")) {
        p->t = save;
        p->cur = cur;
        p->prev_end = prev_end;
        return;
    }
    next(p);
    if (!accept_kw(p, "WHERE")) {
        perr(p, p->t.at, "expected WHERE after FILTER (");
        return;
    }
    n->b = parse_or(p);
    expect_sym(p, ")");
}

static weir_ast *parse_call(parser *p, const tok *name)
{
    weir_ast *n = node(p, WEIR_AST_CALL, name->at);
    if (!n || !(n->text = token_value(p, name, &n->len)))
        return NULL;
    bool special;
    weir_ast *sp = parse_special_call(p, name, n, &special);
    if (special)
        return sp;
    if (is_kw(p, name, "COUNT")) {
        tok save = p->t;
        size_t cur = p->cur;
        next(p);
        if (accept_sym(p, "*")) {
            expect_sym(p, ")");
            n->star = true;
            parse_filter(p, n);
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
        if (accept_sym(p, ","))
            push(p, &l, parse_or(p)); /* LISTAGG(DISTINCT x, sep) */
        expect_sym(p, ")");
        take_args(p, n, &l);
        parse_filter(p, n);
        return done(p, n);
    }
    p->t = open;
    p->cur = cur;
    parse_args(p, n);
    parse_filter(p, n);
    return done(p, n);
}

static weir_ast *binary(parser *p, weir_ast_op op, weir_ast *a, weir_ast *b);

/* CASE WHEN c THEN v ... [ELSE v] END, after CASE; and the simple form
 * CASE x WHEN a THEN v ... END, which is CASE WHEN x = a THEN v ... as in
 * Flink's SQL. x is parsed again for each WHEN, so that every comparison
 * has its own tree (a node has one parent: the binder writes into it). */
static weir_ast *parse_case(parser *p, size_t start)
{
    weir_ast *n = node(p, WEIR_AST_CASE, start);
    nodes l = {0};
    bool simple = !is_kw(p, &p->t, "WHEN");
    tok operand_tok = p->t;
    size_t operand_cur = p->cur, operand_prev = p->prev_end;
    if (simple)
        parse_or(p);
    while (!p->error.failed && accept_kw(p, "WHEN")) {
        weir_ast *c = parse_or(p);
        if (simple && !p->error.failed) {
            tok here = p->t;
            size_t cur = p->cur, prev = p->prev_end;
            p->t = operand_tok;
            p->cur = operand_cur;
            p->prev_end = operand_prev;
            weir_ast *x = parse_or(p);
            p->t = here;
            p->cur = cur;
            p->prev_end = prev;
            c = binary(p, WEIR_AST_EQ, x, c);
        }
        push(p, &l, c);
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
        "LIMIT", "WINDOW", "WITH", "ON", "JOIN", "LIKE", "BETWEEN", "SIMILAR", "ESCAPE", NULL};
    for (int i = 0; words[i]; i++)
        if (is_kw(p, t, words[i]))
            return true;
    return false;
}

/* Whether a bare word is one of SQL's functions called without
 * parentheses (CURRENT_TIMESTAMP). */
static bool niladic(const parser *p, const tok *t)
{
    static const char *const words[] = {"CURRENT_TIMESTAMP", "LOCALTIMESTAMP", "CURRENT_DATE",
                                        "CURRENT_TIME", "LOCALTIME", NULL};
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
        if (p->t.kind == T_STR && p->t.at == t.at + t.len && is_kw(p, &t, "X")) {
            /* X'0a0b': a binary string literal (the quote right after X) */
            weir_ast *n = node(p, WEIR_AST_TYPED, t.at);
            if (!n || !(n->text = token_value(p, &p->t, &n->len)))
                return NULL;
            n->value = WEIR_TYPE_BINARY;
            next(p);
            return done(p, n);
        }
        if (p->t.kind == T_STR &&
            (is_kw(p, &t, "DATE") || is_kw(p, &t, "TIME") || is_kw(p, &t, "TIMESTAMP"))) {
            /* DATE '2024-01-05': a typed literal (a name followed by a
             * string is nothing else) */
            weir_ast *n = node(p, WEIR_AST_TYPED, t.at);
            if (!n || !(n->text = token_value(p, &p->t, &n->len)))
                return NULL;
            n->value = is_kw(p, &t, "DATE")   ? WEIR_TYPE_DATE
                       : is_kw(p, &t, "TIME") ? WEIR_TYPE_TIME
                                              : WEIR_TYPE_TIMESTAMP;
            next(p);
            return done(p, n);
        }
        if (is_kw(p, &t, "CASE"))
            return parse_case(p, t.at);
        if (is_sym(p, &p->t, "[") && (is_kw(p, &t, "ARRAY") || is_kw(p, &t, "MAP"))) {
            /* ARRAY[a, b], MAP[k, v]: a constructor */
            weir_ast *n = node(p, WEIR_AST_CALL, t.at);
            if (!n || !(n->text = token_value(p, &t, &n->len)))
                return NULL;
            for (char *c = n->text; *c; c++)
                *c = (char)toupper((unsigned char)*c);
            n->form = WEIR_AST_FORM_BRACKET;
            next(p);
            nodes l = {0};
            if (!is_sym(p, &p->t, "]")) {
                do
                    push(p, &l, parse_or(p));
                while (!p->error.failed && accept_sym(p, ","));
            }
            expect_sym(p, "]");
            if (!take_args(p, n, &l))
                return NULL;
            return done(p, n);
        }
        if (is_kw(p, &t, "CAST") || is_kw(p, &t, "TRY_CAST")) {
            weir_ast *c = parse_cast(p, t.at);
            if (c)
                c->negate = is_kw(p, &t, "TRY_CAST");
            return c;
        }
        if (is_sym(p, &p->t, "("))
            return parse_call(p, &t);
        if (niladic(p, &t)) {
            /* CURRENT_TIMESTAMP: a call without parentheses */
            weir_ast *n = node(p, WEIR_AST_CALL, t.at);
            if (!n || !(n->text = token_value(p, &t, &n->len)))
                return NULL;
            for (char *c = n->text; *c; c++)
                *c = (char)toupper((unsigned char)*c);
            n->form = WEIR_AST_FORM_NILADIC;
            return done(p, n);
        }
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

/* A primary followed by field accesses (.name) and element accesses
 * ([index]), left to right: r.a.b, arr[1], m['k'].x. */
static weir_ast *parse_postfix(parser *p)
{
    weir_ast *x = parse_primary(p);
    while (x && !p->error.failed) {
        size_t at = p->t.at;
        if (accept_sym(p, "[")) {
            weir_ast *n = node(p, WEIR_AST_INDEX, x->start);
            weir_ast *i = parse_or(p);
            expect_sym(p, "]");
            if (!n || !i || p->error.failed)
                return NULL;
            n->a = x;
            n->b = i;
            n->op_at = (uint32_t)at;
            x = done(p, n);
        } else if (is_sym(p, &p->t, ".")) {
            next(p);
            if (p->t.kind != T_IDENT && p->t.kind != T_QIDENT) {
                perr(p, p->t.at, "expected a field name after '.'");
                return NULL;
            }
            weir_ast *n = node(p, WEIR_AST_FIELD, x->start);
            tok f = p->t;
            if (!n || !(n->text = token_value(p, &f, &n->len)))
                return NULL;
            next(p);
            n->a = x;
            n->op_at = (uint32_t)f.at;
            x = done(p, n);
        } else {
            break;
        }
    }
    return x;
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
    return parse_postfix(p);
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

/* A call node of SQL's own syntax around operand a: `name` (IS TRUE,
 * LIKE, ...) written in `form`, its operator at `at`. */
static weir_ast *form_call(parser *p, const char *name, weir_ast_form form, weir_ast *a,
                           size_t at)
{
    weir_ast *n = node(p, WEIR_AST_CALL, a->start);
    if (!n)
        return NULL;
    if (!(n->text = arena_strndup(p->arena, name, strlen(name)))) {
        nomem(p);
        return NULL;
    }
    n->len = (uint32_t)strlen(name);
    n->form = form;
    n->op_at = (uint32_t)at;
    return n;
}

/* The rest of a predicate after a [NOT] LIKE / SIMILAR TO / BETWEEN (the
 * words taken): its call node. */
static weir_ast *parse_pred_call(parser *p, weir_ast *a, const char *name, bool neg, size_t at)
{
    bool between = strcmp(name, "BETWEEN") == 0;
    weir_ast *n = form_call(p, name, between ? WEIR_AST_FORM_BETWEEN : WEIR_AST_FORM_INFIX, a,
                            at);
    if (!n)
        return NULL;
    n->negate = neg;
    nodes l = {0};
    push(p, &l, a);
    if (between) {
        if (accept_kw(p, "SYMMETRIC"))
            n->value = 1;
        else
            accept_kw(p, "ASYMMETRIC");
        push(p, &l, parse_concat(p));
        if (!p->error.failed && !accept_kw(p, "AND"))
            perr(p, p->t.at, "expected AND in BETWEEN");
        push(p, &l, parse_concat(p));
    } else {
        push(p, &l, parse_concat(p));
        if (!p->error.failed && accept_kw(p, "ESCAPE"))
            push(p, &l, parse_concat(p));
    }
    take_args(p, n, &l);
    return done(p, n);
}

/* `a IS [NOT] <what>` as the call `name`(a), negated when NOT came. */
static weir_ast *is_call(parser *p, const char *name, weir_ast *a, size_t at, bool neg)
{
    weir_ast *n = form_call(p, name, WEIR_AST_FORM_IS, a, at);
    nodes l = {0};
    push(p, &l, a);
    if (!n || !take_args(p, n, &l))
        return NULL;
    n->negate = neg;
    return done(p, n);
}

/* After IS [NOT] (taken): NULL, TRUE, FALSE, UNKNOWN, JSON [kind] or DISTINCT FROM b. */
static weir_ast *parse_is(parser *p, weir_ast *a, bool neg, size_t at)
{
    if (accept_kw(p, "NULL")) {
        weir_ast *n = node(p, WEIR_AST_IS_NULL, a->start);
        if (!n)
            return NULL;
        n->a = a;
        n->negate = neg;
        n->op_at = (uint32_t)at;
        return done(p, n);
    }
    static const char *const truth[] = {"TRUE", "FALSE", "UNKNOWN"};
    static const char *const names[] = {"IS TRUE", "IS FALSE", "IS UNKNOWN"};
    for (int i = 0; i < 3; i++)
        if (accept_kw(p, truth[i]))
            return is_call(p, names[i], a, at, neg);
    if (accept_kw(p, "JSON")) {
        /* IS [NOT] JSON [VALUE | SCALAR | ARRAY | OBJECT] (VALUE when none) */
        static const char *const kinds[] = {"VALUE", "SCALAR", "ARRAY", "OBJECT"};
        static const char *const jnames[] = {"IS JSON VALUE", "IS JSON SCALAR", "IS JSON ARRAY",
                                             "IS JSON OBJECT"};
        int k = 0;
        for (int i = 0; i < 4; i++)
            if (accept_kw(p, kinds[i])) {
                k = i;
                break;
            }
        return is_call(p, jnames[k], a, at, neg);
    }
    if (accept_kw(p, "DISTINCT")) {
        if (!accept_kw(p, "FROM")) {
            perr(p, p->t.at, "expected FROM after IS%s DISTINCT", neg ? " NOT" : "");
            return NULL;
        }
        weir_ast *n = form_call(p, "IS DISTINCT FROM", WEIR_AST_FORM_IS, a, at);
        nodes l = {0};
        push(p, &l, a);
        push(p, &l, parse_concat(p));
        if (!n || !take_args(p, n, &l))
            return NULL;
        n->negate = neg;
        return done(p, n);
    }
    perr(p, p->t.at, "expected NULL, TRUE, FALSE, UNKNOWN, JSON or DISTINCT FROM after IS%s",
         neg ? " NOT" : "");
    return NULL;
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
    if (accept_kw(p, "IS"))
        return parse_is(p, a, accept_kw(p, "NOT"), at);
    bool neg = false;
    if (is_kw(p, &p->t, "NOT")) {
        /* NOT IN, NOT LIKE, NOT SIMILAR TO, NOT BETWEEN: look ahead one word */
        tok save = p->t;
        size_t cur = p->cur, prev = p->prev_end;
        next(p);
        if (!is_kw(p, &p->t, "IN") && !is_kw(p, &p->t, "LIKE") && !is_kw(p, &p->t, "SIMILAR") &&
            !is_kw(p, &p->t, "BETWEEN")) {
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
    if (accept_kw(p, "LIKE"))
        return parse_pred_call(p, a, "LIKE", neg, at);
    if (accept_kw(p, "SIMILAR")) {
        if (!accept_kw(p, "TO")) {
            perr(p, p->t.at, "expected TO after SIMILAR");
            return NULL;
        }
        return parse_pred_call(p, a, "SIMILAR TO", neg, at);
    }
    if (accept_kw(p, "BETWEEN"))
        return parse_pred_call(p, a, "BETWEEN", neg, at);
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
        a->has_else != b->has_else || a->nargs != b->nargs || a->form != b->form)
        return false;
    switch (a->kind) {
    case WEIR_AST_NAME:
        if ((a->qualifier == NULL) != (b->qualifier == NULL) ||
            (a->qualifier && strcmp(a->qualifier, b->qualifier) != 0) ||
            strcmp(a->text, b->text) != 0)
            return false;
        break;
    case WEIR_AST_STRING:
    case WEIR_AST_TYPED:
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
    case WEIR_AST_SYMBOL:
        if (strcasecmp(a->text, b->text) != 0)
            return false;
        break;
    case WEIR_AST_FIELD:
        if (strcmp(a->text, b->text) != 0)
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
    case WEIR_AST_CALL:
        return a->form == WEIR_AST_FORM_INFIX || a->form == WEIR_AST_FORM_BETWEEN ||
                       a->form == WEIR_AST_FORM_IS
                   ? 4
                   : 9;
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
                                        "INTERVAL", "DISTINCT", "LIKE", "BETWEEN", "SIMILAR",
                                        "ESCAPE", "CURRENT_TIMESTAMP", "LOCALTIMESTAMP",
                                        "CURRENT_DATE", "CURRENT_TIME", "LOCALTIME", NULL};
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

/* A call in SQL's own syntax (weir_ast_form), with its arguments in the
 * order the parser put them. */
static void fmt_form(const weir_ast *a, char *buf, size_t size, size_t *n)
{
    weir_ast *const *x = a->args;
    switch (a->form) {
    case WEIR_AST_FORM_NILADIC:
        weir__append(buf, size, n, "%s", a->text);
        return;
    case WEIR_AST_FORM_INFIX:
        operand(x[0], 5, buf, size, n);
        weir__append(buf, size, n, a->negate ? " NOT %s " : " %s ", a->text);
        operand(x[1], 5, buf, size, n);
        if (a->nargs > 2) {
            weir__append(buf, size, n, " ESCAPE ");
            operand(x[2], 5, buf, size, n);
        }
        return;
    case WEIR_AST_FORM_BETWEEN:
        operand(x[0], 5, buf, size, n);
        weir__append(buf, size, n, "%s BETWEEN %s", a->negate ? " NOT" : "",
                     a->value ? "SYMMETRIC " : "");
        operand(x[1], 5, buf, size, n);
        weir__append(buf, size, n, " AND ");
        operand(x[2], 5, buf, size, n);
        return;
    case WEIR_AST_FORM_IS:
        operand(x[0], 5, buf, size, n);
        /* "IS TRUE" -> " IS NOT TRUE" */
        weir__append(buf, size, n, a->negate ? " IS NOT %s" : " %s", a->negate ? a->text + 3 : a->text);
        if (a->nargs > 1) {
            weir__append(buf, size, n, " ");
            operand(x[1], 5, buf, size, n);
        }
        return;
    case WEIR_AST_FORM_SUBSTRING:
        weir__append(buf, size, n, "%s(", a->text);
        fmt(x[0], buf, size, n);
        weir__append(buf, size, n, " FROM ");
        fmt(x[1], buf, size, n);
        if (a->nargs > 2) {
            weir__append(buf, size, n, " FOR ");
            fmt(x[2], buf, size, n);
        }
        weir__append(buf, size, n, ")");
        return;
    case WEIR_AST_FORM_TRIM:
        weir__append(buf, size, n, "%s(%s ", a->text, x[0]->text);
        fmt(x[1], buf, size, n);
        weir__append(buf, size, n, " FROM ");
        fmt(x[2], buf, size, n);
        weir__append(buf, size, n, ")");
        return;
    case WEIR_AST_FORM_POSITION:
        weir__append(buf, size, n, "%s(", a->text);
        operand(x[0], 5, buf, size, n);
        weir__append(buf, size, n, " IN ");
        operand(x[1], 5, buf, size, n);
        if (a->nargs > 2) {
            weir__append(buf, size, n, " FROM ");
            operand(x[2], 5, buf, size, n);
        }
        weir__append(buf, size, n, ")");
        return;
    case WEIR_AST_FORM_EXTRACT:
        weir__append(buf, size, n, "%s(%s FROM ", a->text, x[0]->text);
        fmt(x[1], buf, size, n);
        weir__append(buf, size, n, ")");
        return;
    case WEIR_AST_FORM_FLOOR_TO:
        weir__append(buf, size, n, "%s(", a->text);
        fmt(x[0], buf, size, n);
        weir__append(buf, size, n, " TO %s)", x[1]->text);
        return;
    case WEIR_AST_FORM_JSON:
        weir__append(buf, size, n, "%s(", a->text);
        fmt(x[0], buf, size, n);
        weir__append(buf, size, n, ", ");
        fmt(x[1], buf, size, n);
        if (a->nargs == 7) { /* JSON_VALUE */
            weir__append(buf, size, n, " RETURNING %s", x[2]->text);
            for (int k = 0; k < 2; k++) {
                weir__append(buf, size, n, " %s", x[3 + 2 * k]->text);
                if (strcmp(x[3 + 2 * k]->text, "DEFAULT") == 0) {
                    weir__append(buf, size, n, " ");
                    operand(x[4 + 2 * k], 5, buf, size, n);
                }
                weir__append(buf, size, n, k ? " ON ERROR" : " ON EMPTY");
            }
        } else if (a->nargs == 5) { /* JSON_QUERY */
            weir__append(buf, size, n, " %s WRAPPER %s ON EMPTY %s ON ERROR", x[2]->text,
                         x[3]->text, x[4]->text);
        } else if (a->nargs == 3) { /* JSON_EXISTS */
            weir__append(buf, size, n, " %s ON ERROR", x[2]->text);
        }
        weir__append(buf, size, n, ")");
        return;
    case WEIR_AST_FORM_JSON_CTOR: {
        bool object = strcmp(a->text, "JSON_OBJECT") == 0;
        weir__append(buf, size, n, "%s(", a->text);
        for (int i = 1; i < a->nargs; i++) {
            weir__append(buf, size, n, i == 1 ? "" : object && i % 2 == 0 ? " VALUE " : ", ");
            if (object && i % 2)
                weir__append(buf, size, n, "KEY ");
            operand(x[i], 5, buf, size, n);
        }
        weir__append(buf, size, n, "%s%s ON NULL)", a->nargs > 1 ? " " : "", x[0]->text);
        return;
    }
    case WEIR_AST_FORM_CALL:
    case WEIR_AST_FORM_BRACKET:
        break;
    }
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
    case WEIR_AST_TYPED:
        if (a->value == WEIR_TYPE_BINARY) {
            weir__append(buf, size, n, "X'%s'", a->text);
            break;
        }
        weir__append(buf, size, n, "%s '%s'",
                     a->value == WEIR_TYPE_DATE   ? "DATE"
                     : a->value == WEIR_TYPE_TIME ? "TIME"
                                                  : "TIMESTAMP",
                     a->text);
        break;
    case WEIR_AST_INTERVAL_YM: {
        int64_t v = a->value, mag = v < 0 ? -v : v;
        if (mag % 12 == 0)
            weir__append(buf, size, n, "INTERVAL '%lld' YEAR", (long long)(v / 12));
        else if (mag < 12)
            weir__append(buf, size, n, "INTERVAL '%lld' MONTH", (long long)v);
        else
            weir__append(buf, size, n, "INTERVAL '%s%lld-%lld' YEAR TO MONTH", v < 0 ? "-" : "",
                         (long long)(mag / 12), (long long)(mag % 12));
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
        weir__append(buf, size, n, a->negate ? "TRY_CAST(" : "CAST(");
        fmt(a->a, buf, size, n);
        weir__append(buf, size, n, " AS %s)", a->text);
        break;
    case WEIR_AST_SYMBOL:
        weir__append(buf, size, n, "%s", a->text);
        break;
    case WEIR_AST_FIELD:
        operand(a->a, 9, buf, size, n);
        weir__append(buf, size, n, ".");
        name(a->text, buf, size, n);
        break;
    case WEIR_AST_INDEX:
        operand(a->a, 9, buf, size, n);
        weir__append(buf, size, n, "[");
        fmt(a->b, buf, size, n);
        weir__append(buf, size, n, "]");
        break;
    case WEIR_AST_CALL:
        if (a->form == WEIR_AST_FORM_BRACKET) {
            weir__append(buf, size, n, "%s[", a->text);
            list(a->args, a->nargs, buf, size, n);
            weir__append(buf, size, n, "]");
            break;
        }
        if (a->form != WEIR_AST_FORM_CALL) {
            fmt_form(a, buf, size, n);
            break;
        }
        weir__append(buf, size, n, "%s(", a->text);
        if (a->star)
            weir__append(buf, size, n, "*");
        else if (a->distinct)
            weir__append(buf, size, n, "DISTINCT ");
        list(a->args, a->nargs, buf, size, n);
        weir__append(buf, size, n, ")");
        if (a->b) {
            weir__append(buf, size, n, " FILTER (WHERE ");
            fmt(a->b, buf, size, n);
            weir__append(buf, size, n, ")");
        }
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
