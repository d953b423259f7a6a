/* message_text.h — what error messages are made of, for the table layer
 * and SQL alike: an expression's text echoed short, and the distance
 * between two names behind "did you mean". */
#ifndef WEIR_BASE_MESSAGE_TEXT_H
#define WEIR_BASE_MESSAGE_TEXT_H

#include <stddef.h>

#include "weir/export.h"

/* An expression's text as a message echoes it: whole when short, else its
 * first WEIR__EXPR_ECHO bytes (never cut inside a UTF-8 character) and
 * "...", so that a message about a long expression keeps its reason. buf
 * holds WEIR__EXPR_ECHO + 4 bytes; the echo is written there (the text may
 * be freed after). Returns buf. */
#define WEIR__EXPR_ECHO 60
const char *weir__expr_echo(const char *text, char *buf);

/* Levenshtein distance, letters compared without regard to case (names
 * longer than 63 bytes are 64 apart from anything): for "did you mean". */
int weir__edit_distance(const char *a, const char *b);

/* snprintf at *n into buf (of size bytes), advancing *n by what would be
 * written (buf may be NULL with size 0, to measure): how messages and
 * names of any length are built. */
void weir__append(char *buf, size_t size, size_t *n, const char *fmt, ...) WEIR_PRINTF(4, 5);
/* As weir__append, for `name` in back quotes (a back quote in it doubled),
 * after `before`. */
void weir__append_name(char *buf, size_t size, size_t *n, const char *before, const char *name);

#endif
