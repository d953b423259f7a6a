/* sql_lexer.c — splits SQL text into tokens with their line and column
 * (sql_lexer.h). One pass, no copies: a token is a span of the text. */
#include "sql_lexer.h"

#include "weir/error.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static bool word_char(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           c == '_' || c == '$' || c >= 0x80;
}

static bool digit(unsigned char c)
{
    return c >= '0' && c <= '9';
}

void sql_position(const char *text, size_t offset, uint32_t *line, uint32_t *col)
{
    uint32_t l = 1, c = 1;
    for (size_t i = 0; i < offset && text[i]; i++) {
        if (text[i] == '\n') {
            l++;
            c = 1;
        } else {
            c++;
        }
    }
    *line = l;
    *col = c;
}

static int push(sql_tokens *t, size_t *cap, sql_tok tok)
{
    if (t->n + 1 >= *cap) {
        size_t ncap = *cap ? *cap * 2 : 64;
        sql_tok *v = realloc(t->v, ncap * sizeof *v);
        if (!v)
            return WEIR_ENOMEM;
        t->v = v;
        *cap = ncap;
    }
    t->v[t->n++] = tok;
    return 0;
}

/* The two-byte symbols first, so that "<=" is not "<" then "=". */
static size_t symbol_len(const char *s, size_t left)
{
    static const char *two[] = {"<>", "!=", "<=", ">=", "||"};
    if (left >= 2)
        for (size_t i = 0; i < sizeof two / sizeof *two; i++)
            if (s[0] == two[i][0] && s[1] == two[i][1])
                return 2;
    return strchr("(),;.*=<>+-/%[]", s[0]) && s[0] ? 1 : 0;
}

int sql_lex(const char *text, size_t len, sql_tokens *out, char *err, size_t errsize)
{
    sql_tokens t = {0};
    size_t cap = 0;
    uint32_t line = 1, col = 1;
    size_t i = 0;
    bool hint = false; /* inside a hint */
    uint32_t hint_line = 0, hint_col = 0;
    /* Advances i over n bytes, keeping line and col. */
#define ADVANCE(n)                                                                             \
    do {                                                                                       \
        for (size_t k_ = 0; k_ < (n); k_++, i++) {                                             \
            if (text[i] == '\n') {                                                             \
                line++;                                                                        \
                col = 1;                                                                       \
            } else {                                                                           \
                col++;                                                                         \
            }                                                                                  \
        }                                                                                      \
    } while (0)
    /* The expression reader works on NUL-terminated text: a NUL byte, even
     * inside a string or a comment, would end the statement early for it. */
    const char *nul = memchr(text, '\0', len);
    if (nul) {
        ADVANCE((size_t)(nul - text));
        snprintf(err, errsize, "line %u, column %u: unexpected byte 0x00", line, col);
        return WEIR_EINVAL;
    }
    while (i < len) {
        unsigned char c = (unsigned char)text[i];
        if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v') {
            ADVANCE(1);
            continue;
        }
        if (c == '-' && i + 1 < len && text[i + 1] == '-') {
            while (i < len && text[i] != '\n')
                ADVANCE(1);
            continue;
        }
        if (c == '/' && i + 2 < len && text[i + 1] == '*' && text[i + 2] == '+' && !hint) {
            /* a hint (Flink's query hints, NAME(...) in a comment opened by
             * slash, star, plus): its opening and closing
             * are symbols, what is inside is tokens */
            sql_tok tok = {.kind = SQL_TOK_SYMBOL, .start = (uint32_t)i, .len = 3, .line = line,
                           .col = col};
            if (push(&t, &cap, tok)) {
                snprintf(err, errsize, "out of memory");
                sql_tokens_free(&t);
                return WEIR_ENOMEM;
            }
            hint_line = line;
            hint_col = col;
            hint = true;
            ADVANCE(3);
            continue;
        }
        if (hint && c == '*' && i + 1 < len && text[i + 1] == '/') {
            sql_tok tok = {.kind = SQL_TOK_SYMBOL, .start = (uint32_t)i, .len = 2, .line = line,
                           .col = col};
            if (push(&t, &cap, tok)) {
                snprintf(err, errsize, "out of memory");
                sql_tokens_free(&t);
                return WEIR_ENOMEM;
            }
            hint = false;
            ADVANCE(2);
            continue;
        }
        if (c == '/' && i + 1 < len && text[i + 1] == '*') {
            uint32_t l0 = line, c0 = col;
            ADVANCE(2);
            while (i + 1 < len && !(text[i] == '*' && text[i + 1] == '/'))
                ADVANCE(1);
            if (i + 1 >= len) {
                snprintf(err, errsize, "line %u, column %u: unterminated comment", l0, c0);
                sql_tokens_free(&t);
                return WEIR_EINVAL;
            }
            ADVANCE(2);
            continue;
        }
        sql_tok tok = {.start = (uint32_t)i, .line = line, .col = col};
        size_t n;
        if (c == '\'' || c == '`') {
            tok.kind = c == '\'' ? SQL_TOK_STRING : SQL_TOK_QUOTED;
            n = 1;
            for (;;) {
                if (i + n >= len) {
                    snprintf(err, errsize, "line %u, column %u: unterminated %s", line, col,
                             c == '\'' ? "string" : "`name`");
                    sql_tokens_free(&t);
                    return WEIR_EINVAL;
                }
                if ((unsigned char)text[i + n] == c) {
                    if (i + n + 1 < len && (unsigned char)text[i + n + 1] == c) {
                        n += 2; /* a doubled quote is one quote */
                        continue;
                    }
                    n++;
                    break;
                }
                n++;
            }
        } else if (digit(c) || (c == '.' && i + 1 < len && digit((unsigned char)text[i + 1]))) {
            tok.kind = SQL_TOK_NUMBER;
            n = 0;
            while (i + n < len && digit((unsigned char)text[i + n]))
                n++;
            if (i + n < len && text[i + n] == '.') {
                n++;
                while (i + n < len && digit((unsigned char)text[i + n]))
                    n++;
            }
        } else if (word_char(c)) {
            tok.kind = SQL_TOK_WORD;
            n = 0;
            while (i + n < len && word_char((unsigned char)text[i + n]))
                n++;
        } else if ((n = symbol_len(text + i, len - i)) > 0) {
            tok.kind = SQL_TOK_SYMBOL;
        } else {
            if (c >= 0x20 && c < 0x7f)
                snprintf(err, errsize, "line %u, column %u: unexpected character '%c'", line, col,
                         c);
            else
                snprintf(err, errsize, "line %u, column %u: unexpected byte 0x%02x", line, col,
                         c);
            sql_tokens_free(&t);
            return WEIR_EINVAL;
        }
        tok.len = (uint32_t)n;
        if (push(&t, &cap, tok)) {
            snprintf(err, errsize, "out of memory");
            sql_tokens_free(&t);
            return WEIR_ENOMEM;
        }
        ADVANCE(n);
    }
#undef ADVANCE
    if (hint) {
        snprintf(err, errsize, "line %u, column %u: unterminated hint", hint_line, hint_col);
        sql_tokens_free(&t);
        return WEIR_EINVAL;
    }
    sql_tok end = {.kind = SQL_TOK_END, .start = (uint32_t)len, .line = line, .col = col};
    if (push(&t, &cap, end)) {
        snprintf(err, errsize, "out of memory");
        sql_tokens_free(&t);
        return WEIR_ENOMEM;
    }
    t.n--; /* the END token is past the n tokens */
    *out = t;
    return 0;
}

void sql_tokens_free(sql_tokens *t)
{
    free(t->v);
    t->v = NULL;
    t->n = 0;
}

bool sql_tok_is(const char *text, const sql_tok *t, const char *kw)
{
    return t->kind == SQL_TOK_WORD && strlen(kw) == t->len &&
           strncasecmp(text + t->start, kw, t->len) == 0;
}

bool sql_tok_sym(const char *text, const sql_tok *t, const char *sym)
{
    return t->kind == SQL_TOK_SYMBOL && strlen(sym) == t->len &&
           memcmp(text + t->start, sym, t->len) == 0;
}
