/* sql_lexer.h — the tokens of weir's SQL: words, `quoted` names, 'strings',
 * numbers and symbols, each with where it starts (byte offset, line and
 * column) in the text of the statements, so that every error can say
 * "line 3, column 14". Keywords are words: the parser compares them without
 * regard to case. Comments (-- to the end of the line, and C-style blocks)
 * are skipped, but for a hint: a block opened by slash, star, plus is the
 * symbol "/" "*+", the tokens inside it, and the symbol "*" "/" that closes it. The tokens point into the text; nothing is copied. */
#ifndef WEIR_SQL_SQL_LEXER_H
#define WEIR_SQL_SQL_LEXER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum sql_tok_kind {
    SQL_TOK_END = 0, /* the end of the text */
    SQL_TOK_WORD,    /* a name or a keyword: letters, digits, _ and $ */
    SQL_TOK_QUOTED,  /* `name` (the token spans the back quotes) */
    SQL_TOK_STRING,  /* 'text' ('' inside is one quote; the token spans the quotes) */
    SQL_TOK_NUMBER,  /* 12, 1.5 */
    SQL_TOK_SYMBOL   /* ( ) , ; . * = <> != < <= > >= + - / % || */
} sql_tok_kind;

typedef struct sql_tok {
    sql_tok_kind kind;
    uint32_t start, len; /* bytes of the text */
    uint32_t line, col;  /* 1-based; a column counts bytes */
} sql_tok;

typedef struct sql_tokens {
    sql_tok *v; /* n tokens, then one SQL_TOK_END */
    size_t n;
} sql_tokens;

/* Splits `text` (len bytes) into tokens. 0 and *out (free with
 * sql_tokens_free), or WEIR_EINVAL with "line L, column C: what" in err
 * (an unterminated string or name, a byte that starts no token), or
 * WEIR_ENOMEM. */
int sql_lex(const char *text, size_t len, sql_tokens *out, char *err, size_t errsize);
void sql_tokens_free(sql_tokens *t);

/* Whether the token is the word `kw` (ASCII, any case). */
bool sql_tok_is(const char *text, const sql_tok *t, const char *kw);
/* Whether the token is the symbol `sym`. */
bool sql_tok_sym(const char *text, const sql_tok *t, const char *sym);

/* The line and column of byte `offset` of `text`. */
void sql_position(const char *text, size_t offset, uint32_t *line, uint32_t *col);

#endif
