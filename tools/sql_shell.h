/* sql_shell.h — `weir sql` without a file on a terminal (or `weir sql -i`):
 * the interactive SQL shell, as Flink's SQL client (docs/SHELL.md).
 *
 * Statements are read over as many lines as they take, up to a ';' outside
 * quotes and comments (a statement set up to its END;), each run in the
 * session as it completes: a query's changelog printed as it comes, SHOW,
 * DESCRIBE and SET's tables, "[INFO] ..." after a statement that prints
 * nothing, "[ERROR] ..." for one that failed, and the prompt again. QUIT;
 * or EXIT; (or the end of the input, Ctrl-D) leaves; HELP; lists the
 * statements. Ctrl-C cancels the running query (weir_sql_cancel, then
 * weir_sql_clear_cancel) and returns to the prompt; at the prompt it drops
 * the statement being typed. SIGTERM ends the shell as it ends any command.
 *
 * On a terminal the lines are read by libedit (line editing, and the
 * history of earlier statements in ~/.weir_sql_history, kept between
 * shells); from anything else (`weir sql -i < file`, a test) line by line,
 * the prompts written all the same. */
#ifndef WEIR_TOOLS_SQL_SHELL_H
#define WEIR_TOOLS_SQL_SHELL_H

#include <weir/sql.h>

/* Runs the shell on standard input until QUIT; or its end. The exit
 * status of `weir sql`: 0, or 128 + the signal that ended it. */
int weir_sql_shell(weir_sql_session *s);

/* Where the statement of `text` (len bytes) ends: the offset just past its
 * ';' (outside quotes and comments; for a statement set, the ';' after
 * END), or 0 when it has not ended yet. */
size_t weir_sql_statement_end(const char *text, size_t len);

#endif
