/* interval.h — the value of an interval literal, INTERVAL 'v' UNIT [TO UNIT]
 * (Flink's SQL day-time intervals): one reader for the expression parser
 * (table/expr_ast.c) and everything that reads an interval's text. */
#ifndef WEIR_BASE_INTERVAL_H
#define WEIR_BASE_INTERVAL_H

#include <stddef.h>
#include <stdint.h>

/* The units, largest first: a TO range runs down the list. */
enum { WEIR__UNIT_DAY, WEIR__UNIT_HOUR, WEIR__UNIT_MINUTE, WEIR__UNIT_SECOND,
       WEIR__UNIT_MILLISECOND, WEIR__NUNITS };

/* The unit a word names (singular or plural, any case), or -1. */
int weir__interval_unit(const char *word, size_t len);
/* The unit's name ("MINUTE"). */
const char *weir__interval_unit_name(int unit);

/* The value `v` (vlen bytes, the text inside the quotes) of an interval of
 * units from..to (equal for one unit) in milliseconds: whole numbers, a
 * leading '-', a fraction of a second, the fields of a range separated by
 * ':' (by ' ' after DAY), as 'm:ss' for MINUTE TO SECOND. 0, or -1 with
 * what is wrong in why. */
int weir__interval_value(const char *v, size_t vlen, int from, int to, int64_t *ms, char *why,
                         size_t whysize);

#endif
