/* row_read.h — reading a row's columns from text (row_read.c), shared by
 * the file source's JSON and CSV readers. */
#ifndef WEIR_CONNECTORS_FILE_ROW_READ_H
#define WEIR_CONNECTORS_FILE_ROW_READ_H

#include <stdbool.h>
#include <stddef.h>

#include "weir/file_source.h"
#include "weir/row.h"

/* Where a column is read into, and where what is wrong is said. */
typedef struct weir__row_out {
    void *row;
    char *why;
    size_t whysize;
} weir__row_out;

/* +I, -U, +U, -D (or INSERT, UPDATE_BEFORE, UPDATE_AFTER, DELETE, any
 * case): 0 and *k, or WEIR_EFORMAT. */
int weir__row_kind_parse(const char *t, size_t n, weir_row_kind *k);
/* Column `col` from its text (NULL: NULL): 0, or WEIR_EFORMAT with why
 * ("'x' is not a BIGINT (column 'amount')"). */
int weir__row_set_text(const weir__row_out *s, const weir_schema *sc, int col, const char *t,
                       size_t n);

/* weir_row_parse_json, with the columns c where skip[c] (NULL: none) left
 * NULL whatever the object holds: a partitioned file's partition columns,
 * which come from its path. */
int weir__row_parse_json_skip(const weir_schema *schema, const char *text, size_t len,
                              const char *kind_field, const bool *skip, void *row, char *why,
                              size_t whysize);

/* libcsv set up as weir reads CSV (the file source, a Kafka record): RFC
 * 4180 strictly, an empty unquoted field NULL, spaces part of a field,
 * fields split by `delimiter` (0: ','). 0 or WEIR_ENOMEM. */
struct csv_parser;
int weir__csv_init(struct csv_parser *p, char delimiter);

#endif
