/* sql_shell_result.h — how the SQL shell shows a query's rows: the result
 * modes of Flink's SQL client, chosen with SET
 * 'sql-client.execution.result-mode' (docs/SHELL.md).
 *
 *   changelog  (weir's default) each row as it comes, as Flink's
 *              Row.toString() writes it: +I[Alice, 12], -U[...], +U[...]
 *   tableau    each row as it comes, a line of a boxed table with the
 *              change's op column (+I, -U, +U, -D); column widths from the
 *              types (Flink's, at most 30 characters, longer values cut
 *              with "..."), NULL as <NULL>; at the end a border and
 *              "Received a total of N rows" ("Query terminated, received
 *              ..." after Ctrl-C)
 *   table      the result materialized (an insertion adds a row, a
 *              retraction removes the newest equal row) and shown in
 *              place: on a terminal a full-screen view redrawn as rows
 *              come, in the terminal's size, its last rows; q leaves it
 *              (cancelling the query if it still runs), Ctrl-C too. Not on
 *              a terminal (`weir sql -i < file`), the materialized table
 *              printed once at the query's end, as a tableau without op.
 *
 * The rows come on the job's result sink thread (weir_sql_config.on_row:
 * weir_sql_shell_row); the full-screen view runs on a thread of its own
 * while the query runs, and the shell's thread waits for both. */
#ifndef WEIR_TOOLS_SQL_SHELL_RESULT_H
#define WEIR_TOOLS_SQL_SHELL_RESULT_H

#include <stdbool.h>

#include <weir/sql.h>

/* The shell's row callback (weir_sql_config.on_row; its arg unused). */
int weir_sql_shell_row(const weir_schema *schema, const void *row, void *arg);

/* Before statement `query` runs in s (query: a SELECT, VALUES or WITH, the
 * statements whose rows come to the callback): the mode and the time zone
 * in force; `tty`: the shell is on a terminal (table mode's view). */
void shell_result_begin(weir_sql_session *s, bool query, bool tty);

/* After it ran and returned r (`interrupted`: Ctrl-C cancelled it): the
 * result's end (a tableau's total, a table's rows or the view left).
 * Returns true when the cancel has been said (tableau's "Query
 * terminated", or the view left with q), so the shell says no more. */
bool shell_result_end(int r, bool interrupted);

/* Ctrl-C (from the shell's SIGINT handler: async-signal-safe): the table
 * view leaves. */
void shell_result_interrupt(void);

#endif
