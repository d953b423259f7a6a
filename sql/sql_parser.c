/* sql_parser.c — recursive descent over the tokens (sql_parser.h).
 *
 * The grammar, keywords in capitals (any case in the text):
 *
 *   script    := [stmt] {';' [stmt]}
 *   stmt      := CREATE TABLE name '(' element {',' element} ')'
 *                [PARTITIONED BY '(' name {',' name} ')'] [WITH options]
 *              | CREATE [TEMPORARY] VIEW name AS query
 *              | SET key '=' value                     (key, value: 'quoted' or words)
 *              | SET                                   (lists the settings)
 *              | RESET [key]
 *              | SHOW TABLES | SHOW VIEWS | SHOW [USER] FUNCTIONS
 *              | (DESCRIBE | DESC) name
 *              | EXPLAIN [CHANGELOG_MODE] query
 *              | insert
 *              | EXECUTE STATEMENT SET BEGIN insert ';' {insert ';'} END
 *              | BEGIN STATEMENT SET ';' insert ';' {insert ';'} END   (the SQL client's form)
 *              | query
 *   insert    := INSERT INTO name ['(' name {',' name} ')'] query
 *   element   := name type [NOT NULL] [METADATA [FROM 'key'] [VIRTUAL]]
 *              | name AS expr                          (a computed column)
 *              | WATERMARK FOR name AS expr
 *              | PRIMARY KEY '(' name {',' name} ')' NOT ENFORCED
 *   options   := '(' 'key' '=' 'value' {',' 'key' '=' 'value'} ')'
 *   query     := body {UNION ALL body}
 *   body      := SELECT [hints] [DISTINCT | ALL] ('*' | item {',' item})
 *                [FROM source [WHERE expr] [GROUP BY group {',' group}] [HAVING expr]]
 *              | VALUES row {',' row}
 *              | '(' query ')'
 *   row       := '(' expr {',' expr} ')'
 *   hints     := '/' '*+' STATE_TTL '(' 'name' '=' 'duration' {',' ...} ')' '*' '/'
 *   item      := expr [AS name]
 *   source    := name [[AS] alias] | '(' query ')' [[AS] alias]
 *              | TABLE '(' window_fn '(' TABLE name ',' DESCRIPTOR '(' name ')' {',' expr} ')' ')'
 *   group     := TUMBLE|HOP|SESSION '(' name {',' expr} ')' | expr
 *
 * An expr is read by the expression language's own parser (weir/expr_ast.h),
 * from its first token to the first one that cannot go on with it: a
 * syntax tree, with its span, goes to the planner, which binds it.
 *
 * What Flink SQL has and weir does not (a join, OVER, ORDER BY, DROP ...)
 * is refused where it stands with "not supported: X", not as a syntax
 * error: the statement is Flink's, only weir cannot run it.
 */
#include "sql_parser.h"
#include "sql_text.h"

#include "weir/error.h"
#include "weir/expr_ast.h"
#include "weir/table.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ctype.h>
#include <strings.h>

/* ---- the arena: every node of a script, freed at once ---------------------- */

struct sql_arena {
    struct sql_arena *next;
    size_t used, size;
    _Alignas(16) unsigned char data[];
};

void *sql_arena_alloc(sql_arena **a, size_t n)
{
    n = (n + 15) & ~(size_t)15;
    if (!*a || (*a)->used + n > (*a)->size) {
        size_t size = n > 16384 ? n : 16384;
        sql_arena *b = malloc(sizeof *b + size);
        if (!b)
            return NULL;
        b->next = *a;
        b->used = 0;
        b->size = size;
        *a = b;
    }
    void *p = (*a)->data + (*a)->used;
    (*a)->used += n;
    memset(p, 0, n);
    return p;
}

/* ---- the parser's state and its errors -------------------------------------- */

typedef struct parser {
    const char *text;
    sql_tokens toks;
    size_t i; /* the current token */
    sql_script *s; /* what is being made: its arena holds every node */
    char *err;
    size_t errsize;
    int failed; /* 0, WEIR_EINVAL (what, in err) or WEIR_ENOMEM */
    int nesting; /* queries open around the current token */
    bool over_ok; /* a select item's expression: OVER after it is the caller's */
} parser;

/* Subqueries nested deeper than this are refused (the parser and the
 * planner recurse per level). */
#define SQL_MAX_NESTING 64

static const sql_tok *cur(const parser *p)
{
    return &p->toks.v[p->i];
}

static const sql_tok *peek(const parser *p, size_t k)
{
    size_t j = p->i + k;
    return &p->toks.v[j < p->toks.n ? j : p->toks.n];
}

static void fail_at(parser *p, const sql_tok *t, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void fail_at(parser *p, const sql_tok *t, const char *fmt, ...)
{
    if (p->failed)
        return;
    p->failed = WEIR_EINVAL;
    int n = snprintf(p->err, p->errsize, "line %u, column %u: ", t->line, t->col);
    if (n < 0 || (size_t)n >= p->errsize)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(p->err + n, p->errsize - (size_t)n, fmt, ap);
    va_end(ap);
}

/* "found 'FORM'" / "found the end of the statements". */
static void found(const parser *p, const sql_tok *t, char *buf, size_t size)
{
    if (t->kind == SQL_TOK_END)
        snprintf(buf, size, "the end of the statements");
    else
        snprintf(buf, size, "'%.*s'", t->len > 40 ? 40 : (int)t->len, p->text + t->start);
}

static void expected(parser *p, const char *what)
{
    char f[64];
    found(p, cur(p), f, sizeof f);
    fail_at(p, cur(p), "expected %s, found %s", what, f);
}

/* "not supported: what" at token t. */
static void unsupported(parser *p, const sql_tok *t, const char *what)
{
    fail_at(p, t, "not supported: %s", what);
}

static void *alloc(parser *p, size_t n)
{
    void *v = sql_arena_alloc(&p->s->arena, n);
    if (!v && !p->failed) {
        p->failed = WEIR_ENOMEM;
        snprintf(p->err, p->errsize, "out of memory");
    }
    return v;
}

/* Makes room for element n of an array of the arena that holds n. Its
 * capacity is implicit: 4, then the power of two at or above n; a full
 * array moves to a block twice its size (the old block stays in the arena,
 * so an array of n elements has taken under 2n in all, and a script's
 * memory is linear in its length: growing by one element at a time took
 * the square of it). */
static void *grow(parser *p, void *v, int n, size_t elem)
{
    if (n > 0 && (n < 4 || (n & (n - 1)) != 0))
        return v; /* room below the capacity */
    size_t cap = n == 0 ? 4 : 2 * (size_t)n;
    void *nv = alloc(p, cap * elem);
    if (nv && n > 0)
        memcpy(nv, v, (size_t)n * elem);
    return nv;
}

static sql_span span_of(const sql_tok *t)
{
    return (sql_span){.start = t->start, .len = t->len, .line = t->line, .col = t->col};
}

static bool is_word(const parser *p, const char *kw)
{
    return sql_tok_is(p->text, cur(p), kw);
}

static bool is_sym(const parser *p, const char *s)
{
    return sql_tok_sym(p->text, cur(p), s);
}

static bool accept_word(parser *p, const char *kw)
{
    if (!is_word(p, kw))
        return false;
    p->i++;
    return true;
}

static bool accept_sym(parser *p, const char *s)
{
    if (!is_sym(p, s))
        return false;
    p->i++;
    return true;
}

static bool expect_word(parser *p, const char *kw)
{
    if (accept_word(p, kw))
        return true;
    expected(p, kw);
    return false;
}

static bool expect_sym(parser *p, const char *s)
{
    if (accept_sym(p, s))
        return true;
    char what[16];
    snprintf(what, sizeof what, "'%s'", s);
    expected(p, what);
    return false;
}

/* Words that end an expression or a name where they stand: clause words. */
static const char *const clause_words[] = {"FROM",  "WHERE", "GROUP",  "HAVING", "UNION",
                                           "AS",    "ORDER", "LIMIT",  "SELECT", "WINDOW",
                                           "WITH",  "ON",    "JOIN",   NULL};

static bool is_clause_word(const parser *p, const sql_tok *t)
{
    for (int k = 0; clause_words[k]; k++)
        if (sql_tok_is(p->text, t, clause_words[k]))
            return true;
    return false;
}

/* A name: a word that is not a clause word, or a `quoted` name. */
static bool name(parser *p, sql_span *out, const char *what)
{
    const sql_tok *t = cur(p);
    if (t->kind == SQL_TOK_QUOTED || (t->kind == SQL_TOK_WORD && !is_clause_word(p, t))) {
        *out = span_of(t);
        p->i++;
        return true;
    }
    expected(p, what);
    return false;
}

/* An expression, read by the expression language's parser from the current
 * token on: its tree into *ast (in the script's tree arena) and its span.
 * `what` names it for the error when there is none. */
static bool expr(parser *p, sql_span *out, weir_ast **ast, const char *what)
{
    const sql_tok *first = cur(p);
    if (first->kind == SQL_TOK_END || sql_tok_sym(p->text, first, ",") ||
        sql_tok_sym(p->text, first, ")") || sql_tok_sym(p->text, first, ";") ||
        is_clause_word(p, first)) {
        expected(p, what);
        return false;
    }
    size_t end = 0, at = 0;
    char msg[256];
    int r = weir_ast_parse(&p->s->asts, p->text, first->start, ast, &end, &at, msg, sizeof msg);
    if (r) {
        if (!p->failed && r == WEIR_ENOMEM) {
            p->failed = WEIR_ENOMEM;
            snprintf(p->err, p->errsize, "out of memory");
        } else {
            sql_tok t = {.start = (uint32_t)at};
            sql_position(p->text, at, &t.line, &t.col);
            if (strncasecmp(p->text + at, "SELECT", 6) == 0 &&
                !((unsigned char)p->text[at + 6] == '_' || isalnum((unsigned char)p->text[at + 6])))
                unsupported(p, &t, "a subquery in an expression");
            else
                fail_at(p, &t, "%s", msg);
        }
        return false;
    }
    /* on to the first token the expression did not take */
    size_t last = p->i;
    while (cur(p)->kind != SQL_TOK_END && cur(p)->start < end)
        last = p->i++;
    const sql_tok *l = &p->toks.v[last];
    *out = span_of(first);
    out->len = l->start + l->len - first->start;
    if (is_word(p, "OVER") && !p->over_ok) {
        unsupported(p, cur(p), "OVER here (an OVER window follows a select item's aggregate "
                    "call or ROW_NUMBER())");
        return false;
    }
    return true;
}

/* ---- queries ------------------------------------------------------------------ */

static sql_query *query(parser *p);
static sql_query *union_all(parser *p);

static sql_window_kind window_kind(const parser *p, const sql_tok *t, bool tvf)
{
    if (sql_tok_is(p->text, t, "TUMBLE"))
        return SQL_WINDOW_TUMBLE;
    if (sql_tok_is(p->text, t, "HOP"))
        return SQL_WINDOW_HOP;
    if (sql_tok_is(p->text, t, "SESSION"))
        return SQL_WINDOW_SESSION;
    if (tvf && sql_tok_is(p->text, t, "CUMULATE"))
        return SQL_WINDOW_CUMULATE;
    return SQL_WINDOW_NONE;
}

/* The interval arguments of a window, after its time column: up to two. */
static bool window_args(parser *p, sql_window *w)
{
    while (accept_sym(p, ",")) {
        if (w->nargs == 2) {
            fail_at(p, cur(p), "%.*s takes at most %d intervals", (int)w->at.len,
                    p->text + w->at.start, 2);
            return false;
        }
        if (!expr(p, &w->args[w->nargs], &w->arg_asts[w->nargs], "an interval"))
            return false;
        w->nargs++;
    }
    return expect_sym(p, ")");
}

/* A window's time column: ts, or B.ts (B the source's alias). */
static bool time_column(parser *p, sql_window *w)
{
    if (!name(p, &w->time_col, "the time attribute's column"))
        return false;
    if (!accept_sym(p, "."))
        return true;
    w->time_qual = w->time_col;
    return name(p, &w->time_col, "the time attribute's column");
}

/* TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '1' MINUTE)), TABLE( taken. */
static bool window_tvf(parser *p, sql_query *q)
{
    sql_window *w = &q->from_window;
    w->kind = window_kind(p, cur(p), true);
    if (!w->kind) {
        expected(p, "a window function (TUMBLE, HOP, CUMULATE or SESSION)");
        return false;
    }
    w->at = span_of(cur(p));
    p->i++;
    if (!expect_sym(p, "(") || !expect_word(p, "TABLE") || !name(p, &q->from_name, "a table name") ||
        !expect_sym(p, ",") || !expect_word(p, "DESCRIPTOR") || !expect_sym(p, "(") ||
        !name(p, &w->time_col, "the time attribute's column") || !expect_sym(p, ")"))
        return false;
    if (!window_args(p, w))
        return false;
    q->from_kind = SQL_FROM_WINDOW;
    return expect_sym(p, ")");
}

/* A join's first word: JOIN, or one that comes before it. */
static bool joins_here(const parser *p)
{
    static const char *const words[] = {"JOIN", "LEFT", "RIGHT", "FULL", "INNER", "CROSS",
                                        "NATURAL", NULL};
    for (int k = 0; words[k]; k++)
        if (is_word(p, words[k]))
            return true;
    return false;
}

/* An alias after a source: AS name, or a bare name that is no clause or
 * join word. */
static bool source_alias(parser *p, sql_span *alias)
{
    if (accept_word(p, "AS"))
        return name(p, alias, "an alias");
    const sql_tok *t = cur(p);
    if (t->kind == SQL_TOK_QUOTED ||
        (t->kind == SQL_TOK_WORD && !is_clause_word(p, t) && !joins_here(p) &&
         !sql_tok_is(p->text, t, "FOR") && !sql_tok_is(p->text, t, "MATCH_RECOGNIZE") &&
         !sql_tok_is(p->text, t, "USING") &&
         !sql_tok_is(p->text, t, "LATERAL"))) {
        *alias = span_of(t);
        p->i++;
    }
    return true;
}

/* A window join reads its window TVFs through subqueries, as Flink's
 * documentation writes it. */
#define TVF_JOINED "a window TVF joined without a subquery around it (a window join reads " \
                   "(SELECT * FROM TABLE(...)))"


/* A column list after a source's alias, `(VALUES ...) AS t(a, b)`,
 * `(SELECT ...) AS t(a, b)`, `orders AS o(a, b)`: its columns renamed, as
 * Calcite's AliasNamespace does. */
static bool alias_columns(parser *p, sql_span alias, sql_span **cols, int *n)
{
    if (!alias.len || !accept_sym(p, "("))
        return true;
    do {
        if (!(*cols = grow(p, *cols, *n, sizeof **cols)) ||
            !name(p, &(*cols)[(*n)++], "a column name"))
            return false;
    } while (accept_sym(p, ","));
    return expect_sym(p, ")");
}

/* UNNEST(expr) [WITH ORDINALITY] [AS] alias [(col, ...)]: a join's source. */
static bool unnest_source(parser *p, sql_join *j)
{
    j->from_kind = SQL_FROM_UNNEST;
    if (!expect_sym(p, "(") || !expr(p, &j->unnest, &j->unnest_ast, "an ARRAY or a MAP") ||
        !expect_sym(p, ")"))
        return false;
    if (accept_word(p, "WITH")) {
        if (!expect_word(p, "ORDINALITY"))
            return false;
        j->ordinality = true;
    }
    if (!source_alias(p, &j->alias))
        return false;
    if (j->alias.len && accept_sym(p, "(")) {
        do {
            if (j->ncols == (int)(sizeof j->cols / sizeof j->cols[0])) {
                fail_at(p, cur(p), "more than 8 column names for an UNNEST");
                return false;
            }
            if (!name(p, &j->cols[j->ncols++], "a column name"))
                return false;
        } while (accept_sym(p, ","));
        if (!expect_sym(p, ")"))
            return false;
    }
    return true;
}

/* The source of a join: a table or view, (query), or UNNEST(...). */
static bool join_source(parser *p, sql_join *j)
{
    if (is_word(p, "LATERAL") ||
        (is_word(p, "TABLE") && sql_tok_sym(p->text, peek(p, 1), "("))) {
        unsupported(p, cur(p), is_word(p, "TABLE") ? TVF_JOINED : "LATERAL");
        return false;
    }
    if (accept_word(p, "UNNEST"))
        return unnest_source(p, j);
    if (accept_sym(p, "(")) {
        j->from_kind = SQL_FROM_QUERY;
        if (!(j->from_query = query(p)) || !expect_sym(p, ")"))
            return false;
    } else {
        j->from_kind = SQL_FROM_NAME;
        if (!name(p, &j->from_name, "a table name"))
            return false;
    }
    if (is_word(p, "FOR")) {
        /* FOR SYSTEM_TIME AS OF l.t: a lookup join (l.t a processing-time
         * attribute) or a temporal join (a rowtime); the planner tells */
        if (j->from_kind != SQL_FROM_NAME) {
            unsupported(p, cur(p), "FOR SYSTEM_TIME AS OF a subquery (name a table)");
            return false;
        }
        j->for_time_at = span_of(cur(p));
        p->i++;
        if (!expect_word(p, "SYSTEM_TIME") || !expect_word(p, "AS") || !expect_word(p, "OF") ||
            !expr(p, &j->for_time, &j->for_time_ast, "a time attribute"))
            return false;
    }
    if (!source_alias(p, &j->alias))
        return false;
    if (j->for_time_ast && j->alias.len && is_sym(p, "(")) {
        unsupported(p, cur(p), "a column list after FOR SYSTEM_TIME AS OF's alias");
        return false;
    }
    return alias_columns(p, j->alias, &j->alias_cols, &j->nalias_cols);
}

/* One join after the sources so far: its kind, source and condition. */
static bool join(parser *p, sql_query *q)
{
    sql_join j = {.at = span_of(cur(p))};
    if (accept_sym(p, ",")) {
        j.kind = 0;
        if (is_word(p, "UNNEST")) { /* FROM t, UNNEST(t.arr): a cross join */
            j.kind = WEIR_JOIN_INNER;
            j.cross = true;
        }
    } else if (is_word(p, "CROSS") && sql_tok_is(p->text, peek(p, 1), "JOIN") &&
               sql_tok_is(p->text, peek(p, 2), "UNNEST")) {
        p->i += 2; /* CROSS JOIN UNNEST(...): no ON */
        j.at = span_of(cur(p));
        j.kind = WEIR_JOIN_INNER;
        j.cross = true;
    } else {
        if (is_word(p, "NATURAL") || is_word(p, "CROSS")) {
            unsupported(p, cur(p), is_word(p, "NATURAL") ? "NATURAL JOIN" : "CROSS JOIN");
            return false;
        }
        if (accept_word(p, "LEFT"))
            j.kind = WEIR_JOIN_LEFT;
        else if (accept_word(p, "RIGHT"))
            j.kind = WEIR_JOIN_RIGHT;
        else if (accept_word(p, "FULL"))
            j.kind = WEIR_JOIN_FULL;
        else {
            accept_word(p, "INNER");
            j.kind = WEIR_JOIN_INNER;
        }
        if (j.kind != WEIR_JOIN_INNER)
            accept_word(p, "OUTER");
        j.at = span_of(cur(p));
        if (!expect_word(p, "JOIN"))
            return false;
    }
    if (!join_source(p, &j))
        return false;
    if (j.from_kind == SQL_FROM_UNNEST && !j.cross && j.kind != WEIR_JOIN_INNER &&
        j.kind != WEIR_JOIN_LEFT) {
        unsupported(p, &p->toks.v[p->i - 1], "a RIGHT or FULL JOIN of UNNEST");
        return false;
    }
    if (j.kind && !j.cross) {
        if (is_word(p, "USING")) {
            unsupported(p, cur(p), "JOIN ... USING (write ON a.x = b.x)");
            return false;
        }
        if (!expect_word(p, "ON") || !expr(p, &j.on, &j.on_ast, "a join condition"))
            return false;
    }
    if (!(q->joins = grow(p, q->joins, q->njoins, sizeof *q->joins)))
        return false;
    q->joins[q->njoins++] = j;
    return true;
}

static bool source(parser *p, sql_query *q)
{
    if (is_word(p, "TABLE") && sql_tok_sym(p->text, peek(p, 1), "(")) {
        p->i += 2;
        if (!window_tvf(p, q))
            return false;
    } else if (accept_sym(p, "(")) {
        q->from_kind = SQL_FROM_QUERY;
        if (!(q->from_query = query(p)) || !expect_sym(p, ")"))
            return false;
    } else if (accept_word(p, "UNNEST")) {
        /* FROM UNNEST(expr) AS u(x): the UNNEST joined to one row */
        sql_join *j = alloc(p, sizeof *j);
        if (!j)
            return false;
        *j = (sql_join){.at = span_of(&p->toks.v[p->i - 1]), .kind = WEIR_JOIN_INNER,
                        .cross = true};
        if (!unnest_source(p, j))
            return false;
        q->from_kind = SQL_FROM_UNNEST;
        q->from_unnest = j;
        q->from_alias = j->alias;
    } else {
        if (is_word(p, "LATERAL")) {
            unsupported(p, cur(p), "LATERAL");
            return false;
        }
        q->from_kind = SQL_FROM_NAME;
        if (!name(p, &q->from_name, "a table name"))
            return false;
    }
    if (q->from_kind != SQL_FROM_UNNEST && !source_alias(p, &q->from_alias))
        return false;
    if ((q->from_kind == SQL_FROM_QUERY || q->from_kind == SQL_FROM_NAME) &&
        !alias_columns(p, q->from_alias, &q->from_cols, &q->nfrom_cols))
        return false;
    while (joins_here(p) || is_sym(p, ",")) {
        if (q->from_kind == SQL_FROM_WINDOW) {
            unsupported(p, cur(p), TVF_JOINED);
            return false;
        }
        if (!join(p, q))
            return false;
    }
    static const char *const after[] = {"MATCH_RECOGNIZE", "FOR", "LATERAL", NULL};
    for (int k = 0; after[k]; k++)
        if (is_word(p, after[k])) {
            unsupported(p, cur(p), after[k][0] == 'F' ? "FOR SYSTEM_TIME AS OF (a temporal "
                        "join)" : after[k]);
            return false;
        }
    return true;
}

/* ---- WHERE and its subqueries ---------------------------------------------------- */

/* The token after the ')' matching the '(' at token i (depth counted). */
static size_t after_parens(const parser *p, size_t i)
{
    int depth = 0;
    for (size_t k = i; k < p->toks.n; k++) {
        if (sql_tok_sym(p->text, &p->toks.v[k], "("))
            depth++;
        else if (sql_tok_sym(p->text, &p->toks.v[k], ")") && --depth == 0)
            return k + 1;
    }
    return p->toks.n;
}

static bool tok_is(const parser *p, size_t i, const char *w)
{
    return i < p->toks.n && sql_tok_is(p->text, &p->toks.v[i], w);
}

static bool tok_sym(const parser *p, size_t i, const char *s)
{
    return i < p->toks.n && sql_tok_sym(p->text, &p->toks.v[i], s);
}

/* The conjunct [a, b) of WHERE as a subquery conjunct into *out: false if
 * it is not one. */
static bool subquery_conjunct_bare(const parser *p, size_t a, size_t b, sql_subquery *out,
                                   size_t *open);

static bool subquery_conjunct(const parser *p, size_t a, size_t b, sql_subquery *out,
                              size_t *open)
{
    *out = (sql_subquery){.at = span_of(&p->toks.v[a])};
    /* NOT (x IN (...)), NOT EXISTS ..., (x IN (...)): each NOT around the
     * conjunct negates it, parentheses around it go (Flink's subquery
     * removal takes NOT over a subquery as NOT IN / NOT EXISTS) */
    bool negated = false;
    for (;;) {
        if (tok_is(p, a, "NOT") && !tok_is(p, a + 1, "EXISTS")) {
            negated = !negated;
            a++;
        } else if (tok_sym(p, a, "(") && b > a + 1 && after_parens(p, a) == b) {
            a++;
            b--;
        } else {
            break;
        }
    }
    if (!subquery_conjunct_bare(p, a, b, out, open))
        return false;
    if (negated)
        out->kind = out->kind == SQL_SUB_IN       ? SQL_SUB_NOT_IN
                    : out->kind == SQL_SUB_NOT_IN ? SQL_SUB_IN
                    : out->kind == SQL_SUB_EXISTS ? SQL_SUB_NOT_EXISTS
                                                  : SQL_SUB_EXISTS;
    return true;
}

/* A conjunct of WHERE [a, b) that is x [NOT] IN (SELECT ...) or [NOT]
 * EXISTS (SELECT ...) as it stands. */
static bool subquery_conjunct_bare(const parser *p, size_t a, size_t b, sql_subquery *out,
                                   size_t *open)
{
    size_t e = a;
    if (tok_is(p, a, "NOT") && tok_is(p, a + 1, "EXISTS"))
        e = a + 1;
    if (tok_is(p, e, "EXISTS") && tok_sym(p, e + 1, "(") && tok_is(p, e + 2, "SELECT") &&
        after_parens(p, e + 1) == b) {
        out->kind = e == a ? SQL_SUB_EXISTS : SQL_SUB_NOT_EXISTS;
        *open = e + 1;
        return true;
    }
    int depth = 0;
    if (tok_is(p, a, "NOT"))
        return false; /* NOT x IN (...): a subquery inside an expression */
    for (size_t k = a; k < b; k++) {
        if (tok_sym(p, k, "("))
            depth++;
        else if (tok_sym(p, k, ")"))
            depth--;
        else if (depth == 0 && tok_is(p, k, "OR"))
            return false; /* ... OR x IN (...): likewise */
        else if (depth == 0 && k > a && tok_is(p, k, "IN") && tok_sym(p, k + 1, "(") &&
                 tok_is(p, k + 2, "SELECT") && after_parens(p, k + 1) == b) {
            bool neg = k - 1 > a && tok_is(p, k - 1, "NOT");
            out->kind = neg ? SQL_SUB_NOT_IN : SQL_SUB_IN;
            out->left = span_of(&p->toks.v[a]);
            out->left.len = p->toks.v[neg ? k - 1 : k].start - out->left.start;
            *open = k + 1;
            return true;
        }
    }
    return false;
}

/* An expression read from a copy of the text in which [cut, end of text)
 * is gone (the expression's own end) and each of the n spans of `blank` is
 * TRUE and spaces (a subquery conjunct): the places stay the script's. */
static bool expr_masked(parser *p, size_t cut, const sql_span *blank, int n, sql_span *out,
                        weir_ast **ast, const char *what)
{
    size_t len = strlen(p->text);
    char *copy = malloc(len + 1);
    if (!copy) {
        p->failed = WEIR_ENOMEM;
        snprintf(p->err, p->errsize, "out of memory");
        return false;
    }
    memcpy(copy, p->text, len + 1);
    for (int i = 0; i < n; i++) {
        memset(copy + blank[i].start, ' ', blank[i].len);
        memcpy(copy + blank[i].start, "TRUE", 4);
    }
    if (cut < len)
        copy[cut] = 0;
    const char *saved = p->text;
    p->text = copy;
    bool ok = expr(p, out, ast, what);
    p->text = saved;
    free(copy);
    return ok;
}

/* The tree without the TRUE placeholders of subquery conjuncts (at the
 * spans' starts), or NULL when nothing else is left. */
static weir_ast *drop_placeholders(weir_ast *a, const sql_subquery *subs, int n)
{
    if (!a)
        return NULL;
    if (a->kind == WEIR_AST_BINARY && a->op == WEIR_AST_AND) {
        weir_ast *l = drop_placeholders(a->a, subs, n);
        weir_ast *r = drop_placeholders(a->b, subs, n);
        if (!l || !r)
            return l ? l : r;
        a->a = l;
        a->b = r;
        return a;
    }
    if (a->kind == WEIR_AST_BOOLEAN)
        for (int i = 0; i < n; i++)
            if (a->start == subs[i].at.start)
                return NULL;
    return a;
}

/* WHERE's condition, WHERE taken: an expression, whose conjuncts over a
 * subquery ([NOT] IN (SELECT ...), [NOT] EXISTS (SELECT ...)) go into
 * q->subs. */
static bool where_clause(parser *p, sql_query *q)
{
    static const char *const ends[] = {"GROUP", "HAVING", "ORDER", "LIMIT", "UNION", "WINDOW",
                                       "FETCH", "OFFSET", NULL};
    size_t first = p->i, k = first, a = first;
    int depth = 0, between = 0, nsub = 0;
    sql_subquery subs[16];
    size_t opens[16];
    sql_span blank[16];
    for (;; k++) {
        const sql_tok *t = &p->toks.v[k];
        bool end = t->kind == SQL_TOK_END || (depth == 0 && (tok_sym(p, k, ";") ||
                                                             tok_sym(p, k, ")")));
        for (int w = 0; !end && depth == 0 && ends[w]; w++)
            end = sql_tok_is(p->text, t, ends[w]);
        bool split = !end && depth == 0 && sql_tok_is(p->text, t, "AND") && between-- <= 0;
        if (between < 0)
            between = 0;
        if (end || split) {
            if (k > a && nsub < 16 && subquery_conjunct(p, a, k, &subs[nsub], &opens[nsub])) {
                const sql_tok *l = &p->toks.v[k - 1];
                blank[nsub] = (sql_span){.start = p->toks.v[a].start,
                                         .len = l->start + l->len - p->toks.v[a].start};
                nsub++;
            }
            a = k + 1;
            if (end)
                break;
            continue;
        }
        if (tok_sym(p, k, "("))
            depth++;
        else if (tok_sym(p, k, ")"))
            depth--;
        else if (depth == 0 && sql_tok_is(p->text, t, "BETWEEN"))
            between++;
    }
    if (nsub == 0)
        return expr(p, &q->where, &q->where_ast, "a WHERE condition");
    size_t stop = k; /* WHERE's end */
    for (int i = 0; i < nsub; i++) {
        sql_subquery *s = &subs[i];
        if (s->kind == SQL_SUB_IN || s->kind == SQL_SUB_NOT_IN) {
            /* the token of x's start */
            size_t at = first;
            while (p->toks.v[at].start < s->left.start)
                at++;
            p->i = at;
            if (!expr_masked(p, s->left.start + s->left.len, NULL, 0, &s->left, &s->left_ast,
                             "an expression before IN"))
                return false;
        }
        p->i = opens[i] + 1;
        if (!(s->query = query(p)) || !expect_sym(p, ")"))
            return false;
    }
    p->i = first;
    if (!expr_masked(p, (size_t)-1, blank, nsub, &q->where, &q->where_ast, "a WHERE condition"))
        return false;
    if (p->i != stop) {
        expected(p, "the end of WHERE");
        return false;
    }
    q->where_ast = drop_placeholders(q->where_ast, subs, nsub);
    if (!(q->subs = alloc(p, sizeof *q->subs * (size_t)nsub)))
        return false;
    memcpy(q->subs, subs, sizeof *subs * (size_t)nsub);
    q->nsubs = nsub;
    return true;
}

static bool group_item(parser *p, sql_query *q)
{
    sql_window_kind k = window_kind(p, cur(p), false);
    if (k && sql_tok_sym(p->text, peek(p, 1), "(")) {
        if (q->group_window.kind) {
            fail_at(p, cur(p), "only one group window in a GROUP BY");
            return false;
        }
        sql_window *w = &q->group_window;
        w->kind = k;
        w->at = span_of(cur(p));
        p->i += 2;
        return time_column(p, w) && window_args(p, w);
    }
    sql_span e;
    weir_ast *ast;
    if (!expr(p, &e, &ast, "a GROUP BY expression"))
        return false;
    if (!(q->group = grow(p, q->group, q->ngroup, sizeof *q->group)) ||
        !(q->group_asts = grow(p, q->group_asts, q->ngroup, sizeof *q->group_asts)))
        return false;
    q->group_asts[q->ngroup] = ast;
    q->group[q->ngroup++] = e;
    return true;
}

/* A select list that runs on to where FROM should be may have swallowed a
 * misspelled FROM as a word of its last expression ("SELECT a FORM t"):
 * the error is better said there. True after saying it. */
static bool misspelled_from(parser *p, size_t items_from)
{
    int depth = 0;
    for (size_t i = items_from; i <= p->i && i < p->toks.n; i++) {
        const sql_tok *t = &p->toks.v[i];
        depth += sql_tok_sym(p->text, t, "(") - sql_tok_sym(p->text, t, ")");
        if (depth || t->kind != SQL_TOK_WORD || t->len < 3 || t->len > 5)
            continue;
        char w[8];
        snprintf(w, sizeof w, "%.*s", (int)t->len, p->text + t->start);
        if (sql_edit_distance(w, "FROM") == 1 || (t->len == 4 && strcasecmp(w, "FORM") == 0)) {
            fail_at(p, t, "expected FROM, found '%s'", w);
            return true;
        }
    }
    return false;
}

/* VALUES's rows, VALUES taken: each row has as many values as the first. */
static bool values(parser *p, sql_query *q)
{
    do {
        sql_values_row row = {.at = span_of(cur(p))};
        if (!expect_sym(p, "("))
            return false;
        do {
            sql_item it = {0};
            if (!expr(p, &it.expr, &it.ast, "a value"))
                return false;
            if (!(row.items = grow(p, row.items, row.n, sizeof *row.items)))
                return false;
            row.items[row.n++] = it;
        } while (accept_sym(p, ","));
        if (!expect_sym(p, ")"))
            return false;
        if (q->nvalues && row.n != q->values[0].n) {
            sql_tok t = {.start = row.at.start, .line = row.at.line, .col = row.at.col};
            fail_at(p, &t, "a row of VALUES with %d values where the first has %d", row.n,
                    q->values[0].n);
            return false;
        }
        if (!(q->values = grow(p, q->values, q->nvalues, sizeof *q->values)))
            return false;
        q->values[q->nvalues++] = row;
    } while (accept_sym(p, ","));
    return true;
}

/* ORDER BY's keys, ORDER BY taken: expr [ASC | DESC] [NULLS FIRST | LAST], ... */
static bool order_keys(parser *p, sql_order_key **keys, int *n)
{
    do {
        sql_order_key k = {0};
        if (!expr(p, &k.expr, &k.ast, "an ORDER BY expression"))
            return false;
        if (accept_word(p, "DESC"))
            k.desc = true;
        else
            accept_word(p, "ASC");
        if (accept_word(p, "NULLS")) {
            if (accept_word(p, "FIRST"))
                k.nulls = 1;
            else if (accept_word(p, "LAST"))
                k.nulls = 2;
            else {
                expected(p, "FIRST or LAST");
                return false;
            }
        }
        if (!(*keys = grow(p, *keys, *n, sizeof **keys)))
            return false;
        (*keys)[(*n)++] = k;
    } while (accept_sym(p, ","));
    return true;
}

/* A frame bound: UNBOUNDED PRECEDING | CURRENT ROW | x PRECEDING | x
 * FOLLOWING | UNBOUNDED FOLLOWING. */
static bool frame_bound(parser *p, sql_bound *b)
{
    b->at = span_of(cur(p));
    if (accept_word(p, "UNBOUNDED")) {
        if (accept_word(p, "PRECEDING"))
            b->kind = SQL_BOUND_UNBOUNDED_PRECEDING;
        else if (accept_word(p, "FOLLOWING"))
            b->kind = SQL_BOUND_UNBOUNDED_FOLLOWING;
        else {
            expected(p, "PRECEDING or FOLLOWING");
            return false;
        }
        return true;
    }
    if (accept_word(p, "CURRENT")) {
        b->kind = SQL_BOUND_CURRENT_ROW;
        return expect_word(p, "ROW");
    }
    sql_span e;
    if (!expr(p, &e, &b->ast, "a frame bound"))
        return false;
    if (accept_word(p, "PRECEDING"))
        b->kind = SQL_BOUND_PRECEDING;
    else if (accept_word(p, "FOLLOWING"))
        b->kind = SQL_BOUND_FOLLOWING;
    else {
        expected(p, "PRECEDING or FOLLOWING");
        return false;
    }
    return true;
}

static sql_over *over_spec(parser *p, sql_over *o);

/* OVER ( [PARTITION BY e, ...] [ORDER BY keys] [ROWS | RANGE frame] ), or
 * OVER w (a window of the WINDOW clause), OVER the current token. */
static sql_over *over_window(parser *p)
{
    sql_over *o = alloc(p, sizeof *o);
    if (!o)
        return NULL;
    o->at = span_of(cur(p));
    p->i++;
    if (!is_sym(p, "("))
        return name(p, &o->ref, "'(' or a window's name") ? o : NULL;
    p->i++;
    return over_spec(p, o);
}

/* The window's parts after its '(' (OVER (...) and WINDOW w AS (...)). */
static sql_over *over_spec(parser *p, sql_over *o)
{
    if (accept_word(p, "PARTITION")) {
        if (!expect_word(p, "BY"))
            return NULL;
        do {
            sql_span e;
            weir_ast *ast;
            if (!expr(p, &e, &ast, "a PARTITION BY expression"))
                return NULL;
            if (!(o->partition = grow(p, o->partition, o->npartition, sizeof *o->partition)) ||
                !(o->partition_asts = grow(p, o->partition_asts, o->npartition,
                                           sizeof *o->partition_asts)))
                return NULL;
            o->partition_asts[o->npartition] = ast;
            o->partition[o->npartition++] = e;
        } while (accept_sym(p, ","));
    }
    if (accept_word(p, "ORDER")) {
        if (!expect_word(p, "BY") || !order_keys(p, &o->order, &o->norder))
            return NULL;
    }
    if (is_word(p, "ROWS") || is_word(p, "RANGE")) {
        o->frame = is_word(p, "ROWS") ? 'R' : 'G';
        o->frame_at = span_of(cur(p));
        p->i++;
        if (accept_word(p, "BETWEEN")) {
            if (!frame_bound(p, &o->lo) || !expect_word(p, "AND") || !frame_bound(p, &o->hi))
                return NULL;
        } else {
            if (!frame_bound(p, &o->lo))
                return NULL;
            o->hi.kind = SQL_BOUND_CURRENT_ROW;
            o->hi.at = o->lo.at;
        }
    }
    return expect_sym(p, ")") ? o : NULL;
}

/* LIMIT n [OFFSET m], OFFSET m [ROWS], FETCH FIRST n ROWS ONLY: a count. */
static bool count_word(parser *p, int64_t *out, const char *what)
{
    const sql_tok *t = cur(p);
    if (t->kind != SQL_TOK_NUMBER) {
        expected(p, what);
        return false;
    }
    char num[32];
    snprintf(num, sizeof num, "%.*s", t->len < 31 ? (int)t->len : 31, p->text + t->start);
    char *end;
    long long v = strtoll(num, &end, 10);
    if (*end || v < 0) {
        fail_at(p, t, "expected %s, found '%s'", what, num);
        return false;
    }
    *out = v;
    p->i++;
    return true;
}

/* ORDER BY ... [LIMIT n] [OFFSET m] after a query's last body. */
static bool order_limit(parser *p, sql_query *q)
{
    if (is_word(p, "ORDER")) {
        q->order_at = span_of(cur(p));
        p->i++;
        if (!expect_word(p, "BY") || !order_keys(p, &q->order, &q->norder))
            return false;
    }
    if (is_word(p, "LIMIT")) {
        q->limit_at = span_of(cur(p));
        p->i++;
        if (!count_word(p, &q->limit, "a row count after LIMIT"))
            return false;
    }
    if (is_word(p, "OFFSET")) {
        if (!q->limit_at.len)
            q->limit_at = span_of(cur(p));
        p->i++;
        if (!count_word(p, &q->offset, "a row count after OFFSET"))
            return false;
        if (!accept_word(p, "ROWS"))
            accept_word(p, "ROW");
    }
    if (is_word(p, "FETCH")) {
        if (!q->limit_at.len)
            q->limit_at = span_of(cur(p));
        p->i++;
        if (!accept_word(p, "FIRST") && !expect_word(p, "NEXT"))
            return false;
        if (!count_word(p, &q->limit, "a row count after FETCH FIRST"))
            return false;
        if (!accept_word(p, "ROWS") && !expect_word(p, "ROW"))
            return false;
        if (!expect_word(p, "ONLY"))
            return false;
    }
    return true;
}

/* WINDOW w AS (...), ... after HAVING, WINDOW taken; then every OVER w of
 * the select list resolved to its window (Calcite's "Window 'w' not
 * found" otherwise). */
static bool window_clause(parser *p, sql_query *q)
{
    sql_named_window *wins = NULL;
    int n = 0;
    do {
        sql_named_window w = {0};
        if (!name(p, &w.name, "a window's name") || !expect_word(p, "AS"))
            return false;
        if (!(w.over = alloc(p, sizeof *w.over)))
            return false;
        w.over->at = w.name;
        if (!expect_sym(p, "(") || !over_spec(p, w.over))
            return false;
        for (int i = 0; i < n; i++)
            if (wins[i].name.len == w.name.len &&
                memcmp(p->text + wins[i].name.start, p->text + w.name.start, w.name.len) == 0) {
                sql_tok t = {.start = w.name.start, .line = w.name.line, .col = w.name.col};
                fail_at(p, &t, "Duplicate window names not allowed");
                return false;
            }
        if (!(wins = grow(p, wins, n, sizeof *wins)))
            return false;
        wins[n++] = w;
    } while (accept_sym(p, ","));
    for (int i = 0; i < q->nitems; i++) {
        for (int j = -1; j < q->items[i].nover; j++) {
            sql_over *o = j < 0 ? q->items[i].over : q->items[i].overs[j];
            if (!o || !o->ref.len)
                continue;
            int k = 0;
            while (k < n && !(wins[k].name.len == o->ref.len &&
                              memcmp(p->text + wins[k].name.start, p->text + o->ref.start,
                                     o->ref.len) == 0))
                k++;
            if (k == n) {
                sql_tok t = {.start = o->ref.start, .line = o->ref.line, .col = o->ref.col};
                fail_at(p, &t, "Window '%.*s' not found", (int)o->ref.len,
                        p->text + o->ref.start);
                return false;
            }
            sql_span at = o->at;
            *o = *wins[k].over;
            o->at = at;
        }
    }
    return true;
}

static void shift_tree(weir_ast *a, uint32_t by)
{
    if (!a)
        return;
    a->start += by;
    a->end += by;
    if (a->op_at)
        a->op_at += by;
    if (a->type_start)
        a->type_start += by;
    shift_tree(a->a, by);
    shift_tree(a->b, by);
    for (int i = 0; i < a->nargs; i++)
        shift_tree(a->args[i], by);
}

/* The call node of `a` that ends at byte `end` (the outermost), or NULL. */
static weir_ast *call_ending_at(weir_ast *a, uint32_t end)
{
    if (!a)
        return NULL;
    if (a->kind == WEIR_AST_CALL && a->end == end)
        return a;
    weir_ast *x = call_ending_at(a->a, end);
    if (!x)
        x = call_ending_at(a->b, end);
    for (int i = 0; !x && i < a->nargs; i++)
        x = call_ending_at(a->args[i], end);
    return x;
}

/* A select item with OVER inside its expression (SUM(x) OVER w + 1, CASE
 * WHEN COUNT(*) OVER w > 3 ...): each OVER clause read as a window, and the
 * expression read with the clauses blanked out of its text, each window
 * then the one of the call just before it. An item that is one call and
 * its OVER keeps the form of it.over. 1 when the item was read so, 0 when
 * it has no OVER (read as any expression), -1 after an error. */
static int item_overs(parser *p, sql_item *it)
{
    size_t from = p->i, to = from;
    int depth = 0, nover = 0;
    for (;; to++) {
        const sql_tok *t = &p->toks.v[to < p->toks.n ? to : p->toks.n];
        if (t->kind == SQL_TOK_END || (depth == 0 && (sql_tok_sym(p->text, t, ",") ||
                                                      sql_tok_sym(p->text, t, ";") ||
                                                      is_clause_word(p, t))))
            break;
        if (sql_tok_sym(p->text, t, "(")) {
            depth++;
        } else if (sql_tok_sym(p->text, t, ")")) {
            if (--depth < 0)
                break;
        } else if (sql_tok_is(p->text, t, "OVER") && to > from) {
            nover++;
        }
    }
    if (nover == 0)
        return 0;
    /* each OVER's window, and its span of text */
    size_t save = p->i;
    sql_over **overs = alloc(p, (size_t)nover * sizeof *overs);
    uint32_t *at = alloc(p, (size_t)nover * sizeof *at);
    uint32_t *till = alloc(p, (size_t)nover * sizeof *till);
    uint32_t *call_end = alloc(p, (size_t)nover * sizeof *call_end);
    if (!overs || !at || !till || !call_end)
        return -1;
    int k = 0;
    for (size_t j = from; j < to; j++) {
        if (!sql_tok_is(p->text, &p->toks.v[j], "OVER") || j == from)
            continue;
        const sql_tok *prev = &p->toks.v[j - 1];
        p->i = j;
        if (!(overs[k] = over_window(p)))
            return -1;
        at[k] = p->toks.v[j].start;
        const sql_tok *last = &p->toks.v[p->i - 1];
        till[k] = last->start + last->len;
        call_end[k] = prev->start + prev->len;
        k++;
        j = p->i - 1;
    }
    nover = k; /* an OVER word inside a window's parentheses is none */
    p->i = save;
    /* the item's text with its OVER clauses as spaces, read from 0 and
     * moved to its place */
    const sql_tok *first = cur(p), *lastt = &p->toks.v[to - 1];
    uint32_t base = first->start, len = lastt->start + lastt->len - base;
    char *buf = alloc(p, (size_t)len + 1);
    if (!buf)
        return -1;
    memcpy(buf, p->text + base, len);
    buf[len] = 0;
    for (int i = 0; i < nover; i++)
        memset(buf + (at[i] - base), ' ', till[i] - at[i]);
    size_t end = 0, err_at = 0;
    char msg[256];
    int r = weir_ast_parse(&p->s->asts, buf, 0, &it->ast, &end, &err_at, msg, sizeof msg);
    if (r) {
        if (r == WEIR_ENOMEM) {
            p->failed = WEIR_ENOMEM;
            snprintf(p->err, p->errsize, "out of memory");
        } else {
            sql_tok t = {.start = (uint32_t)(base + err_at)};
            sql_position(p->text, t.start, &t.line, &t.col);
            fail_at(p, &t, "%s", msg);
        }
        return -1;
    }
    if (end < len) {
        sql_tok t = {.start = (uint32_t)(base + end)};
        sql_position(p->text, t.start, &t.line, &t.col);
        fail_at(p, &t, "expected the end of a select item, found '%.*s'",
                (int)(len - end > 20 ? 20 : len - end), p->text + base + end);
        return -1;
    }
    shift_tree(it->ast, base);
    it->expr = span_of(first);
    it->expr.len = len;
    p->i = to;
    it->over_calls = alloc(p, (size_t)nover * sizeof *it->over_calls);
    if (!it->over_calls)
        return -1;
    for (int i = 0; i < nover; i++) {
        weir_ast *c = call_ending_at(it->ast, call_end[i]);
        if (!c) {
            sql_tok t = {.start = at[i]};
            sql_position(p->text, t.start, &t.line, &t.col);
            unsupported(p, &t, "OVER here (an OVER window follows an aggregate call or "
                        "ROW_NUMBER())");
            return -1;
        }
        it->over_calls[i] = c;
    }
    it->overs = overs;
    it->nover = nover;
    if (nover == 1 && it->ast == it->over_calls[0]) {
        /* agg(x) OVER w: the item is the call */
        it->over = overs[0];
        it->nover = 0;
    }
    return 1;
}

/* SELECT's hints, after their opening: Flink's STATE_TTL('name' =
 * 'duration', ...) (a join's inputs' state times to live). */
static bool hints(parser *p, sql_query *q)
{
    do {
        const sql_tok *h = cur(p);
        if (h->kind != SQL_TOK_WORD) {
            expected(p, "a hint");
            return false;
        }
        if (!sql_tok_is(p->text, h, "STATE_TTL")) {
            fail_at(p, h, "not supported: the hint '%.*s' (weir knows STATE_TTL)", (int)h->len,
                    p->text + h->start);
            return false;
        }
        p->i++;
        if (!expect_sym(p, "("))
            return false;
        do {
            const sql_tok *k = cur(p), *v;
            if (k->kind != SQL_TOK_STRING) {
                expected(p, "'name' = 'duration' (an input's name and its state's time to live)");
                return false;
            }
            p->i++;
            if (!expect_sym(p, "="))
                return false;
            v = cur(p);
            if (v->kind != SQL_TOK_STRING) {
                expected(p, "a duration ('1d', '12 h')");
                return false;
            }
            p->i++;
            char text[64];
            int64_t ms;
            snprintf(text, sizeof text, "%.*s", (int)(v->len - 2), p->text + v->start + 1);
            if (v->len - 2 >= sizeof text || sql_duration_ms(text, &ms) || ms <= 0) {
                fail_at(p, v, "STATE_TTL: '%.*s' is not a duration ('1d', '12 h', '30 min')",
                        (int)(v->len - 2), p->text + v->start + 1);
                return false;
            }
            if (!(q->ttl = grow(p, q->ttl, q->nttl, sizeof *q->ttl)))
                return false;
            sql_span n = span_of(k);
            n.start++;
            n.len -= 2;
            q->ttl[q->nttl++] = (sql_ttl_hint){.name = n, .ms = ms};
        } while (accept_sym(p, ","));
        if (!expect_sym(p, ")"))
            return false;
    } while (accept_sym(p, ","));
    return expect_sym(p, "*/");
}

static sql_query *body(parser *p)
{
    if (accept_sym(p, "(")) {
        sql_query *q = query(p);
        return q && expect_sym(p, ")") ? q : NULL;
    }
    sql_query *q = alloc(p, sizeof *q);
    if (!q)
        return NULL;
    q->limit = -1;
    q->at = span_of(cur(p));
    if (accept_word(p, "VALUES"))
        return values(p, q) ? q : NULL;
    if (!expect_word(p, "SELECT"))
        return NULL;
    if (accept_sym(p, "/*+") && !hints(p, q))
        return NULL;
    if (accept_word(p, "DISTINCT"))
        q->distinct = true;
    else
        accept_word(p, "ALL");
    size_t items_from = p->i;
    /* SELECT *, or SELECT *, items (ROW_NUMBER() OVER ... beside every column) */
    bool items = true;
    if (accept_sym(p, "*")) {
        q->star = true;
        items = accept_sym(p, ",");
    }
    while (items) {
        sql_item it = {0};
        const sql_tok *t = cur(p);
        if ((t->kind == SQL_TOK_WORD || t->kind == SQL_TOK_QUOTED) &&
            sql_tok_sym(p->text, peek(p, 1), ".") && sql_tok_sym(p->text, peek(p, 2), "*")) {
            /* t.*: the columns of source t */
            it.star_of = span_of(t);
            it.expr = span_of(t);
            it.expr.len = peek(p, 2)->start + 1 - t->start;
            p->i += 3;
            if (!(q->items = grow(p, q->items, q->nitems, sizeof *q->items)))
                return NULL;
            q->items[q->nitems++] = it;
            items = accept_sym(p, ",");
            continue;
        }
        int embedded = item_overs(p, &it);
        if (embedded < 0)
            return NULL;
        if (!embedded) {
            p->over_ok = true;
            bool ok = expr(p, &it.expr, &it.ast, "a select item");
            p->over_ok = false;
            if (!ok)
                return NULL;
            if (is_word(p, "OVER") && !(it.over = over_window(p)))
                return NULL;
        }
        if (accept_word(p, "AS") && !name(p, &it.alias, "a name after AS"))
            return NULL;
        if (!(q->items = grow(p, q->items, q->nitems, sizeof *q->items)))
            return NULL;
        q->items[q->nitems++] = it;
        items = accept_sym(p, ",");
    }
    if (!is_word(p, "FROM") && misspelled_from(p, items_from))
        return NULL;
    if (!accept_word(p, "FROM")) {
        /* SELECT 1: a query of one row, without FROM (and so without WHERE
         * or GROUP BY: what follows must end it) */
        const sql_tok *t = cur(p);
        if (t->kind == SQL_TOK_END || is_sym(p, ";") || is_sym(p, ")") || is_word(p, "UNION") ||
            is_word(p, "END"))
            return q;
        expected(p, "FROM");
        return NULL;
    }
    if (!source(p, q))
        return NULL;
    if (accept_word(p, "WHERE") && !where_clause(p, q))
        return NULL;
    if (accept_word(p, "GROUP")) {
        if (!expect_word(p, "BY"))
            return NULL;
        do {
            if (!group_item(p, q))
                return NULL;
        } while (accept_sym(p, ","));
    }
    if (accept_word(p, "HAVING") && !expr(p, &q->having, &q->having_ast, "a HAVING condition"))
        return NULL;
    if (!is_word(p, "WINDOW"))
        for (int i = 0; i < q->nitems; i++)
            for (int j = -1; j < q->items[i].nover; j++) {
                const sql_over *o = j < 0 ? q->items[i].over : q->items[i].overs[j];
                if (!o || !o->ref.len)
                    continue;
                const sql_span *r = &o->ref;
                sql_tok t = {.start = r->start, .line = r->line, .col = r->col};
                fail_at(p, &t, "Window '%.*s' not found", (int)r->len, p->text + r->start);
                return NULL;
            }
    if (accept_word(p, "WINDOW") && !window_clause(p, q))
        return NULL;
    return q;
}

static sql_query *query(parser *p)
{
    if (p->nesting == SQL_MAX_NESTING) {
        fail_at(p, cur(p), "queries nested deeper than %d", SQL_MAX_NESTING);
        return NULL;
    }
    p->nesting++;
    sql_query *q = union_all(p);
    p->nesting--;
    return q;
}

static sql_query *union_all(parser *p)
{
    sql_query *first = body(p);
    sql_query *last = first;
    while (last && is_word(p, "UNION")) {
        p->i++;
        if (!is_word(p, "ALL")) {
            unsupported(p, &p->toks.v[p->i - 1], "UNION without ALL (write UNION ALL, or "
                        "SELECT DISTINCT over it)");
            return NULL;
        }
        p->i++;
        sql_query *next = body(p);
        if (!next)
            return NULL;
        while (last->union_all)
            last = last->union_all;
        last->union_all = next;
        last = next;
    }
    if (first && last && !order_limit(p, first))
        return NULL;
    if (last && (is_word(p, "INTERSECT") || is_word(p, "EXCEPT") || is_word(p, "MINUS"))) {
        char w[16];
        snprintf(w, sizeof w, "%.*s", (int)cur(p)->len, p->text + cur(p)->start);
        for (char *c = w; *c; c++)
            *c = (char)toupper((unsigned char)*c);
        unsupported(p, cur(p), w);
        return NULL;
    }
    return first;
}

/* ---- statements ----------------------------------------------------------------- */

/* A 'quoted' string's value, or a word's text (SET's key and value). */
static bool string_or_word(parser *p, char **out, const char *what)
{
    sql_script *s = p->s;
    const sql_tok *t = cur(p);
    if (t->kind != SQL_TOK_STRING && t->kind != SQL_TOK_WORD && t->kind != SQL_TOK_NUMBER) {
        expected(p, what);
        return false;
    }
    *out = t->kind == SQL_TOK_STRING ? sql_unquote(s, span_of(t)) : sql_span_text(s, span_of(t));
    if (!*out) {
        p->failed = WEIR_ENOMEM;
        snprintf(p->err, p->errsize, "out of memory");
        return false;
    }
    p->i++;
    return true;
}

/* A column's type: every token up to a top-level ',' or ')', or METADATA. */
static bool column_type(parser *p, sql_span *out)
{
    const sql_tok *first = cur(p);
    int depth = 0;
    size_t last = p->i;
    while (cur(p)->kind != SQL_TOK_END) {
        if (depth == 0 && (is_sym(p, ",") || is_sym(p, ")") || is_word(p, "METADATA")))
            break;
        /* ROW<a INT, b STRING>, MAP<K, V>: commas inside a type */
        if (is_sym(p, "(") || is_sym(p, "<"))
            depth++;
        else if (is_sym(p, ")") || is_sym(p, ">"))
            depth--;
        last = p->i++;
    }
    if (cur(p) == first) {
        expected(p, "a column type");
        return false;
    }
    *out = span_of(first);
    out->len = p->toks.v[last].start + p->toks.v[last].len - first->start;
    return true;
}

static bool table_element(parser *p, sql_stmt *st)
{
    if (is_word(p, "WATERMARK")) {
        if (st->wm_col.len) {
            fail_at(p, cur(p), "a table has one WATERMARK");
            return false;
        }
        p->i++;
        return expect_word(p, "FOR") && name(p, &st->wm_col, "the rowtime column") &&
               expect_word(p, "AS") && expr(p, &st->wm_expr, &st->wm_ast, "the watermark expression");
    }
    if (is_word(p, "PRIMARY")) {
        if (st->npk) {
            fail_at(p, cur(p), "a table has one PRIMARY KEY");
            return false;
        }
        p->i++;
        if (!expect_word(p, "KEY") || !expect_sym(p, "("))
            return false;
        do {
            if (!(st->pk = grow(p, st->pk, st->npk, sizeof *st->pk)) ||
                !name(p, &st->pk[st->npk], "a key column"))
                return false;
            st->npk++;
        } while (accept_sym(p, ","));
        if (!expect_sym(p, ")"))
            return false;
        if (!is_word(p, "NOT")) {
            fail_at(p, cur(p), "a PRIMARY KEY must be NOT ENFORCED (as in Flink)");
            return false;
        }
        p->i++;
        return expect_word(p, "ENFORCED");
    }
    sql_column_def c = {0};
    if (!name(p, &c.name, "a column name"))
        return false;
    if (is_word(p, "AS")) {
        /* a computed column: its expression instead of a type */
        c.computed = true;
        c.as_at = span_of(cur(p));
        p->i++;
        if (!expr(p, &c.expr, &c.expr_ast, "the computed column's expression"))
            return false;
        if (is_word(p, "COMMENT")) {
            unsupported(p, cur(p), "a column's COMMENT");
            return false;
        }
        if (!(st->cols = grow(p, st->cols, st->ncols, sizeof *st->cols)))
            return false;
        st->cols[st->ncols++] = c;
        return true;
    }
    if (!column_type(p, &c.type))
        return false;
    if (is_word(p, "METADATA")) {
        c.metadata = true;
        c.meta_at = span_of(cur(p));
        p->i++;
        if (accept_word(p, "FROM")) {
            if (cur(p)->kind != SQL_TOK_STRING) {
                expected(p, "the metadata key ('timestamp')");
                return false;
            }
            c.meta_key = span_of(cur(p));
            p->i++;
        }
        c.virtual_col = accept_word(p, "VIRTUAL");
    }
    if (!(st->cols = grow(p, st->cols, st->ncols, sizeof *st->cols)))
        return false;
    st->cols[st->ncols++] = c;
    return true;
}

static bool with_options(parser *p, sql_stmt *st)
{
    if (!expect_sym(p, "("))
        return false;
    do {
        sql_option o = {.at = span_of(cur(p))};
        if (cur(p)->kind != SQL_TOK_STRING) {
            expected(p, "an option's 'key'");
            return false;
        }
        if (!string_or_word(p, &o.key, "an option's 'key'") || !expect_sym(p, "="))
            return false;
        if (cur(p)->kind != SQL_TOK_STRING) {
            expected(p, "an option's 'value'");
            return false;
        }
        if (!string_or_word(p, &o.value, "an option's 'value'"))
            return false;
        for (int k = 0; k < st->nopts; k++)
            if (strcmp(st->opts[k].key, o.key) == 0) {
                fail_at(p, &p->toks.v[p->i - 3], "option '%s' given twice", o.key);
                return false;
            }
        if (!(st->opts = grow(p, st->opts, st->nopts, sizeof *st->opts)))
            return false;
        st->opts[st->nopts++] = o;
    } while (accept_sym(p, ","));
    return expect_sym(p, ")");
}

/* INSERT INTO name [(columns)] query, at INSERT. */
static bool insert(parser *p, sql_stmt *st)
{
    st->at = span_of(cur(p));
    st->kind = SQL_STMT_INSERT;
    p->i++;
    if (is_word(p, "OVERWRITE")) {
        unsupported(p, cur(p), "INSERT OVERWRITE (a streaming sink is appended to)");
        return false;
    }
    if (!expect_word(p, "INTO") || !name(p, &st->name, "a table name"))
        return false;
    if (is_word(p, "PARTITION")) {
        unsupported(p, cur(p), "a static PARTITION in INSERT");
        return false;
    }
    if (accept_sym(p, "(")) {
        do {
            if (!(st->insert_cols = grow(p, st->insert_cols, st->ninsert_cols,
                                         sizeof *st->insert_cols)) ||
                !name(p, &st->insert_cols[st->ninsert_cols], "a column name"))
                return false;
            st->ninsert_cols++;
        } while (accept_sym(p, ","));
        if (!expect_sym(p, ")"))
            return false;
    }
    if (!is_word(p, "SELECT") && !is_word(p, "VALUES") && !is_sym(p, "(")) {
        expected(p, "a query (SELECT or VALUES) after the table");
        return false;
    }
    return (st->query = query(p)) != NULL;
}

/* EXECUTE STATEMENT SET BEGIN insert; ... END, or the SQL client's BEGIN
 * STATEMENT SET; insert; ... END: INSERTs only, at least one. */
static bool statement_set(parser *p, sql_stmt *st)
{
    st->kind = SQL_STMT_STATEMENT_SET;
    bool execute = accept_word(p, "EXECUTE");
    if (execute && !is_word(p, "STATEMENT")) {
        unsupported(p, cur(p), "EXECUTE of anything but a STATEMENT SET");
        return false;
    }
    if (execute) {
        if (!expect_word(p, "STATEMENT") || !expect_word(p, "SET") || !expect_word(p, "BEGIN"))
            return false;
    } else if (!expect_word(p, "BEGIN") || !expect_word(p, "STATEMENT") ||
               !expect_word(p, "SET") || !expect_sym(p, ";")) {
        return false;
    }
    while (!is_word(p, "END")) {
        if (accept_sym(p, ";"))
            continue;
        if (!is_word(p, "INSERT")) {
            expected(p, st->nset ? "INSERT or END in a statement set"
                                 : "INSERT in a statement set (it holds INSERTs only)");
            return false;
        }
        if (!(st->set = grow(p, st->set, st->nset, sizeof *st->set)))
            return false;
        sql_stmt *in = &st->set[st->nset];
        memset(in, 0, sizeof *in);
        if (!insert(p, in))
            return false;
        st->nset++;
        if (!is_sym(p, ";")) {
            expected(p, "';' after the INSERT");
            return false;
        }
    }
    if (!st->nset) {
        fail_at(p, cur(p), "a statement set without an INSERT");
        return false;
    }
    p->i++; /* END */
    return true;
}

static bool statement(parser *p, sql_stmt *st)
{
    st->at = span_of(cur(p));
    if (accept_word(p, "CREATE")) {
        if (accept_word(p, "TEMPORARY"))
            st->temporary = true;
        if (accept_word(p, "TABLE")) {
            if (st->temporary) {
                fail_at(p, &p->toks.v[p->i - 1], "CREATE TEMPORARY TABLE: every table is "
                        "temporary here; write CREATE TABLE");
                return false;
            }
            st->kind = SQL_STMT_CREATE_TABLE;
            if (!name(p, &st->name, "a table name") || !expect_sym(p, "("))
                return false;
            do {
                if (!table_element(p, st))
                    return false;
            } while (accept_sym(p, ","));
            if (!expect_sym(p, ")"))
                return false;
            if (accept_word(p, "PARTITIONED")) {
                if (!expect_word(p, "BY") || !expect_sym(p, "("))
                    return false;
                do {
                    if (!(st->partition_by = grow(p, st->partition_by, st->npartition_by,
                                                  sizeof *st->partition_by)) ||
                        !name(p, &st->partition_by[st->npartition_by], "a partition column"))
                        return false;
                    st->npartition_by++;
                } while (accept_sym(p, ","));
                if (!expect_sym(p, ")"))
                    return false;
            }
            if (is_word(p, "LIKE") || is_word(p, "AS")) {
                unsupported(p, cur(p), is_word(p, "LIKE") ? "CREATE TABLE ... LIKE"
                                                          : "CREATE TABLE ... AS SELECT");
                return false;
            }
            return !accept_word(p, "WITH") || with_options(p, st);
        }
        if (accept_word(p, "VIEW")) {
            st->kind = SQL_STMT_CREATE_VIEW;
            return name(p, &st->name, "a view name") && expect_word(p, "AS") &&
                   (st->query = query(p)) != NULL;
        }
        static const char *const kinds[] = {"FUNCTION", "CATALOG", "DATABASE", NULL};
        for (int k = 0; kinds[k]; k++)
            if (is_word(p, kinds[k])) {
                char w[40];
                snprintf(w, sizeof w, "CREATE %s", kinds[k]);
                unsupported(p, cur(p), w);
                return false;
            }
        expected(p, "TABLE or VIEW after CREATE");
        return false;
    }
    if (accept_word(p, "SET")) {
        st->kind = SQL_STMT_SET;
        if (is_sym(p, ";") || cur(p)->kind == SQL_TOK_END)
            return true; /* SET alone: the settings listed */
        return string_or_word(p, &st->set_key, "a 'key' after SET") && expect_sym(p, "=") &&
               string_or_word(p, &st->set_value, "a 'value'");
    }
    if (accept_word(p, "RESET")) {
        st->kind = SQL_STMT_RESET;
        return is_sym(p, ";") || cur(p)->kind == SQL_TOK_END ||
               string_or_word(p, &st->set_key, "a 'key' after RESET, or ';'");
    }
    if (accept_word(p, "SHOW")) {
        st->kind = SQL_STMT_SHOW;
        if (accept_word(p, "TABLES"))
            st->show = SQL_SHOW_TABLES;
        else if (accept_word(p, "VIEWS"))
            st->show = SQL_SHOW_VIEWS;
        else if (accept_word(p, "FUNCTIONS"))
            st->show = SQL_SHOW_FUNCTIONS;
        else if (accept_word(p, "USER")) {
            if (!expect_word(p, "FUNCTIONS"))
                return false;
            st->show = SQL_SHOW_USER_FUNCTIONS;
        } else {
            static const char *const other[] = {"CATALOGS", "DATABASES", "CURRENT", "COLUMNS",
                                                "CREATE", "MODULES", "FULL", "JARS", "JOBS",
                                                "PARTITIONS", "PROCEDURES", NULL};
            for (int k = 0; other[k]; k++)
                if (is_word(p, other[k])) {
                    char w[40];
                    snprintf(w, sizeof w, "SHOW %s", other[k]);
                    unsupported(p, cur(p), w);
                    return false;
                }
            expected(p, "TABLES, VIEWS, FUNCTIONS or USER FUNCTIONS after SHOW");
            return false;
        }
        if (is_word(p, "FROM") || is_word(p, "IN") || is_word(p, "LIKE") || is_word(p, "NOT") ||
            is_word(p, "ILIKE")) {
            char w[40];
            snprintf(w, sizeof w, "SHOW ... %s", is_word(p, "FROM") ? "FROM"
                                                 : is_word(p, "IN") ? "IN"
                                                 : is_word(p, "NOT") ? "NOT LIKE"
                                                                     : "LIKE");
            unsupported(p, cur(p), w);
            return false;
        }
        return true;
    }
    if (accept_word(p, "DESCRIBE") || accept_word(p, "DESC")) {
        st->kind = SQL_STMT_DESCRIBE;
        if (is_word(p, "EXTENDED")) {
            unsupported(p, cur(p), "DESCRIBE EXTENDED");
            return false;
        }
        return name(p, &st->name, "a table or view name after DESCRIBE");
    }
    if (accept_word(p, "EXPLAIN")) {
        st->kind = SQL_STMT_EXPLAIN;
        if (accept_word(p, "CHANGELOG_MODE"))
            st->changelog_mode = true;
        if (accept_word(p, "PLAN") && !expect_word(p, "FOR"))
            return false;
        return (st->query = query(p)) != NULL;
    }
    if (is_word(p, "INSERT"))
        return insert(p, st);
    if (is_word(p, "EXECUTE") || is_word(p, "BEGIN"))
        return statement_set(p, st);
    if (is_word(p, "SELECT") || is_word(p, "VALUES") || is_sym(p, "(")) {
        st->kind = SQL_STMT_SELECT;
        return (st->query = query(p)) != NULL;
    }
    static const char *const flink_only[] = {"DROP", "ALTER", "USE", "WITH", "ANALYZE", "LOAD",
                                             "UNLOAD", "ADD", "REMOVE", "TRUNCATE", "DELETE",
                                             "UPDATE", "CALL", "STOP", NULL};
    for (int k = 0; flink_only[k]; k++)
        if (is_word(p, flink_only[k])) {
            char w[64];
            snprintf(w, sizeof w, "%s%s", flink_only[k],
                     strcmp(flink_only[k], "WITH") == 0 ? " (a common table expression)" : "");
            unsupported(p, cur(p), w);
            return false;
        }
    expected(p, "a statement (CREATE, SELECT, INSERT, EXPLAIN, SET, RESET, SHOW or DESCRIBE)");
    return false;
}

int sql_parse(const char *text, size_t len, sql_script *out, char *err, size_t errsize)
{
    memset(out, 0, sizeof *out);
    parser p = {.text = text, .err = err, .errsize = errsize};
    int r = sql_lex(text, len, &p.toks, err, errsize);
    if (r)
        return r;
    sql_script s = {.text = text};
    p.s = &s;
    while (cur(&p)->kind != SQL_TOK_END && !p.failed) {
        if (accept_sym(&p, ";"))
            continue;
        sql_stmt st = {0};
        if (!statement(&p, &st))
            break;
        if (cur(&p)->kind != SQL_TOK_END && !is_sym(&p, ";")) {
            expected(&p, "';' or the end of the statement");
            break;
        }
        sql_stmt *v = grow(&p, s.stmts, s.n, sizeof *s.stmts);
        if (!v)
            break;
        s.stmts = v;
        s.stmts[s.n++] = st;
    }
    sql_tokens_free(&p.toks);
    if (p.failed) {
        sql_script_free(&s);
        return p.failed;
    }
    *out = s;
    return 0;
}

void sql_arena_free(sql_arena **a)
{
    while (*a) {
        sql_arena *n = (*a)->next;
        free(*a);
        *a = n;
    }
}

void sql_script_free(sql_script *s)
{
    sql_arena_free(&s->arena);
    weir_ast_arena_free(&s->asts);
    memset(s, 0, sizeof *s);
}

char *sql_span_text(sql_script *s, sql_span sp)
{
    char *t = sql_arena_alloc(&s->arena, (size_t)sp.len + 1);
    if (t)
        memcpy(t, s->text + sp.start, sp.len);
    return t;
}

char *sql_unquote(sql_script *s, sql_span sp)
{
    const char *v = s->text + sp.start;
    if (sp.len < 2 || (v[0] != '\'' && v[0] != '`'))
        return sql_span_text(s, sp);
    char q = v[0];
    char *t = sql_arena_alloc(&s->arena, sp.len);
    if (!t)
        return NULL;
    size_t n = 0;
    for (uint32_t i = 1; i + 1 < sp.len; i++) {
        t[n++] = v[i];
        if (v[i] == q)
            i++; /* a doubled quote */
    }
    t[n] = '\0';
    return t;
}
