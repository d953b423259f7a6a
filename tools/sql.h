/* sql.h — `weir sql`: runs a file of SQL statements (weir/sql.h) and
 * prints each query's changelog. */
#ifndef WEIR_TOOLS_SQL_H
#define WEIR_TOOLS_SQL_H

/* argv[0] is "sql". Returns the exit status: 0, 1 (a query failed while it
 * ran, a file could not be read, out of memory), 2 (bad usage, a statement
 * that cannot be run: FILE: line L, column C: what). */
int weir_sql_main(int argc, char **argv);

#endif
