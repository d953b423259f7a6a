/* sql_text.h — the small texts of SQL's options and messages: durations as
 * Flink's options write them, and the distance between two names behind
 * "did you mean". (Expressions and their intervals are the expression
 * language's: weir/expr_ast.h.) */
#ifndef WEIR_SQL_SQL_TEXT_H
#define WEIR_SQL_SQL_TEXT_H

#include <stdint.h>

/* A duration as Flink's options write it: "2 s", "500 ms", "1 min", "2h",
 * "1 d", a bare number being milliseconds. 0, or WEIR_EINVAL. */
int sql_duration_ms(const char *text, int64_t *ms);

/* A name's distance to another (for "did you mean"). */
int sql_edit_distance(const char *a, const char *b);

#endif
