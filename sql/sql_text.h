/* sql_text.h — the small texts the SQL planner reads and writes: interval
 * literals and durations, expression texts rewritten for the table layer
 * with a map back to where each piece stood in the statements (so that an
 * error in a rewritten expression is still reported at its line and column),
 * and the planner's error messages. */
#ifndef WEIR_SQL_SQL_TEXT_H
#define WEIR_SQL_SQL_TEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* INTERVAL 'n' UNIT, INTERVAL 'm:ss' MINUTE TO SECOND, ... (units
 * MILLISECOND, SECOND, MINUTE, HOUR, DAY, plural too; SECOND takes a
 * fraction) in milliseconds. 0, or -1 with what is wrong in why. */
int sql_interval_ms(const char *text, size_t len, int64_t *ms, char *why, size_t whysize);

/* A duration as Flink's options write it: "2 s", "500 ms", "1 min", "2h",
 * "1 d", a bare number being milliseconds. 0, or -1. */
int sql_duration_ms(const char *text, int64_t *ms);

/* A piece of a rewritten text: from byte `out` on, it is the statements'
 * text from byte `orig` on (replaced: the whole piece stands for the
 * original text at orig, e.g. an aggregate call named by its alias). */
typedef struct sql_piece {
    uint32_t out, orig;
    bool replaced;
} sql_piece;

typedef struct sql_arena sql_arena;

/* A text made of pieces of the statements and of new words, of any length:
 * its bytes and pieces grow in an arena (the planner's, freed when the
 * query is planned). */
typedef struct sql_text {
    sql_arena **arena;
    char *buf; /* NUL-terminated ("" before the first byte) */
    size_t len, cap;
    sql_piece *pieces;
    int npieces, pcap;
    bool nomem; /* an append ran out of memory (the text is incomplete) */
} sql_text;

void sql_text_init(sql_text *t, sql_arena **arena);
/* Appends `len` bytes of the statements' text that start at byte `orig`. */
void sql_text_copy(sql_text *t, const char *script, uint32_t orig, uint32_t len);
/* Appends new text that stands for the statements' text at `orig`. */
void sql_text_put(sql_text *t, uint32_t orig, const char *s);
/* Appends new text not from the statements (", ", " AS "): it stands for
 * the last piece's place. */
void sql_text_glue(sql_text *t, const char *s);
/* As sql_text_glue, for `n` bytes of s. */
void sql_text_glue_n(sql_text *t, const char *s, size_t n);
/* Appends another text, each of its pieces keeping its place. */
void sql_text_append(sql_text *t, const sql_text *from);
/* The statements' byte that the rewritten byte `pos` (0-based) came from. */
uint32_t sql_text_origin(const sql_text *t, size_t pos);

/* An expression compiler's message "TEXT at N: what" for `text` (TEXT its
 * echo, cut when long: weir__expr_echo): N (1-based, 0 when the message
 * has no place) and where `what` starts. */
const char *sql_expr_message(const char *text, const char *msg, size_t *pos);

/* A name's distance to another (for "did you mean"). */
int sql_edit_distance(const char *a, const char *b);

#endif
