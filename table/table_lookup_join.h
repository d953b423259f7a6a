/* table_lookup_join.h — the lookup join's operator (table_lookup_join.c),
 * for a harness that drives it by hand (tests/table/test_lookup_join.c). */
#ifndef WEIR_TABLE_TABLE_LOOKUP_JOIN_H
#define WEIR_TABLE_TABLE_LOOKUP_JOIN_H

#include "weir/stream.h"
#include "weir/table.h"

/* The process spec of lookup join t's operator (its impl is t's: valid
 * while t's env lives), parallelism 1. 0, or WEIR_EINVAL for a table that
 * is not a lookup join. */
int weir__table_lookup_join_operator(const weir_table *t, weir_process_spec *spec);

#endif
