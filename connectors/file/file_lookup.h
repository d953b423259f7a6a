/* file_lookup.h — a filesystem table read whole for a lookup join
 * (file_lookup.c), for sql_filesystem.c's lookup. */
#ifndef WEIR_CONNECTORS_FILE_FILE_LOOKUP_H
#define WEIR_CONNECTORS_FILE_FILE_LOOKUP_H

#include <stdbool.h>
#include <stddef.h>

#include "weir/table.h"

/* Fills out's load, arg (a copy of what it reads, freed by its arg_free)
 * and arg_free for the files at `path` (a file, or a folder's files), JSON
 * lines or CSV of `schema` (borrowed: it outlives the job). The path must
 * be there now: 0, or WEIR_ENOENT / WEIR_EIO / WEIR_ENOMEM with err
 * ("data/x.csv: No such file or directory"). */
int weir__fs_lookup_make(const char *path, bool csv, char delimiter, bool ignore_parse_errors,
                         const weir_schema *schema, weir_lookup_source *out, char *err,
                         size_t errsize);

#endif
