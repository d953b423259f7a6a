/* sql_parser.h — weir's SQL statements parsed into sql_ast.h's spans by
 * recursive descent over sql_lexer.h's tokens.
 *
 * Recursive descent by hand rather than bison: the grammar is small, and
 * its expressions are read by the expression language's one parser
 * (weir/expr_ast.h), which a generated LALR parser over the whole grammar
 * would duplicate; hand-written, every error also says what was expected
 * where ("line 3, column 14: expected FROM, found 'FORM'"). */
#ifndef WEIR_SQL_SQL_PARSER_H
#define WEIR_SQL_SQL_PARSER_H

#include <stddef.h>

#include "sql_ast.h"
#include "sql_lexer.h"

/* An arena: blocks freed at once. */
typedef struct sql_arena sql_arena;
/* n zeroed bytes (16-aligned) in *a (NULL: a new arena), or NULL when out
 * of memory. */
void *sql_arena_alloc(sql_arena **a, size_t n);
/* Frees every block of *a and sets it to NULL. */
void sql_arena_free(sql_arena **a);

typedef struct sql_script {
    const char *text; /* borrowed: the caller keeps it for the script's life */
    sql_stmt *stmts;
    int n;
    sql_arena *arena;
    struct weir_ast_arena *asts; /* the expressions' trees */
} sql_script;

/* Parses every statement of `text` (len bytes; statements separated by ';',
 * a last ';' optional; the text NUL-terminated after them). 0 and *out
 * (free with sql_script_free), or WEIR_EINVAL with "line L, column C: what"
 * in err, or WEIR_ENOMEM. Nothing is returned for a text with an error
 * anywhere. */
int sql_parse(const char *text, size_t len, sql_script *out, char *err, size_t errsize);
void sql_script_free(sql_script *s);

/* A span's text, NUL-terminated, in the script's arena (NULL when out of
 * memory). For a 'string' or `name` token: its value, unquoted. */
char *sql_span_text(sql_script *s, sql_span sp);
char *sql_unquote(sql_script *s, sql_span sp);

#endif
