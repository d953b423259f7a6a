/* weir/sql.h — weir's SQL: Flink SQL statements run on weir's table layer.
 *
 * A session holds a catalog (CREATE TABLE, CREATE VIEW) and settings (SET)
 * and runs statements in order: each SELECT is planned onto the table layer
 * (weir/table.h) as one job, run to its end (an unbounded one until it is
 * cancelled; with SET 'execution.checkpointing.interval' it checkpoints and
 * restores as docs/SQL.md says), and its result printed as a
 * changelog in the form Flink's Row.toString() writes ("+I[Alice, 12]",
 * "-U[Alice, 12]", "+U[Alice, 13]"), or handed to a callback; EXPLAIN
 * prints the plan with each node's changelog mode. docs/SQL.md lists what
 * is supported, beside Flink SQL's names, and what differs.
 *
 * Errors: a statement that cannot be run (syntax, an unknown table or
 * column, a type mismatch, what Flink's planner refuses) is WEIR_EINVAL with
 * "line L, column C: what is wrong" in weir_sql_error; the statements are
 * parsed before any runs, so a syntax error anywhere runs nothing. A job
 * that fails while it runs is its weir_job_run code, with its message.
 *
 * Threads: a session is used from one thread; a row callback runs on a
 * worker thread of the job, one at a time (the result sink has parallelism
 * 1), while weir_sql_execute waits.
 */
#ifndef WEIR_SQL_H
#define WEIR_SQL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "weir/export.h"
#include "weir/job.h"
#include "weir/row.h"
#include "weir/table.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct weir_sql_session weir_sql_session;

/* A result row of a SELECT: its schema (the SELECT list's columns) and the
 * row (its kind: weir_row_get_kind). Returns 0, or a negative WEIR_E* code
 * to fail the job. */
typedef int (*weir_sql_row_fn)(const weir_schema *schema, const void *row, void *arg);

typedef struct weir_sql_config {
    /* Where results and EXPLAIN plans are written; NULL: stdout. */
    FILE *out;
    /* Result rows to this callback instead of `out` (NULL: printed). */
    weir_sql_row_fn on_row;
    void *on_row_arg;
    /* The folder relative 'path' options are read from; NULL: ".". Copied. */
    const char *base_dir;
    /* The diagnostic capture of each query's job (.msgpack: msgpack, else
     * JSONL): the first SELECT writes it, the n-th writes NAME-n.EXT; a
     * FIFO or a device (written in place, weir/outfile.h) gets every
     * query's in turn; NULL: none unless SET 'weir.capture.file'. Copied. */
    const char *capture_path;
    /* Plan every query but run none (a check of the statements: SELECT
     * prints nothing; EXPLAIN, CREATE and SET work as always). */
    bool plan_only;
    /* Worker threads of each job; 0: the job's default. */
    int workers;
    /* Called with each job before it runs and with NULL after its run has
     * returned (e.g. to let a signal handler cancel it). */
    void (*on_job)(weir_job *job, void *arg);
    void *on_job_arg;
    /* Where each query's job restores from (a chk-N folder of a checkpoint
     * or savepoint, or a parent of them: its newest complete one), as if the
     * statements began with SET 'execution.savepoint.path'; NULL: none.
     * Copied. */
    const char *restore_from;
    /* Every query runs with checkpoints (into 'state.checkpoints.dir', which
     * a query is refused without), so that the job on_job hands over can be
     * stopped with weir_job_savepoint (`weir sql --savepoint-on-stop`). */
    bool require_checkpoints;
    /* Each query's job serves itself over HTTP while it runs
     * (weir_job_config.http_addr, docs/LIVE.md; `weir sql --serve`): its
     * diagnostic channel is on even without a capture. NULL: no server.
     * Borrowed: it must outlive the session. Last: appended. */
    const char *http_addr;
} weir_sql_config;

/* 0 and *out, or WEIR_ENOMEM. `config` may be NULL; it is copied. */
WEIR_EXPORT int weir_sql_session_create(const weir_sql_config *config, weir_sql_session **out);
WEIR_EXPORT void weir_sql_session_destroy(weir_sql_session *s);

/* Parses and runs the statements of `text` (len bytes; statements end with
 * ';', the last one may not). 0, WEIR_EINVAL (a statement is bad: nothing
 * after it runs), WEIR_ENOMEM, or a job's failure code. Tables and views
 * made stay in the session for the next call. */
WEIR_EXPORT int weir_sql_execute(weir_sql_session *s, const char *text, size_t len);

/* Asks the session to stop: the statement being parsed or planned stops at
 * its next check, a running query is cancelled (weir_job_cancel), and
 * weir_sql_execute returns WEIR_ECANCELED without running another
 * statement; so does every later call (the session stays cancelled).
 * Threads: may be called from any thread while another runs
 * weir_sql_execute, and from a signal handler (it sets an atomic flag and
 * calls weir_job_cancel, both async-signal-safe); `s` must outlive the
 * call. */
WEIR_EXPORT void weir_sql_cancel(weir_sql_session *s);

/* Lets a cancelled session run statements again (an interactive shell:
 * Ctrl-C cancels the running query, and the next statement runs). From
 * the thread that calls weir_sql_execute, between its calls; a cancel that
 * comes after it cancels the next call. */
WEIR_EXPORT void weir_sql_clear_cancel(weir_sql_session *s);

/* The last call's error ("line 3, column 14: unknown column 'amout' (did
 * you mean 'amount'?)"); "" after a success. */
WEIR_EXPORT const char *weir_sql_error(const weir_sql_session *s);

/* The value of the SET of `key` in force in the session ('tableau' after
 * SET 'sql-client.execution.result-mode' = 'tableau'), as written; NULL
 * when none is (the setting's default). Valid until the next call that
 * runs statements. From the session's thread. */
WEIR_EXPORT const char *weir_sql_setting(const weir_sql_session *s, const char *key);

/* Whether the last call's error came from a job while it ran (a callback's
 * failure, a division by zero, a malformed input line, a cancel) rather than
 * from a statement that could not be run. */
WEIR_EXPORT bool weir_sql_error_at_run(const weir_sql_session *s);

/* ---- SQL in a table environment (Flink's StreamTableEnvironment) ---------------
 * SQL run in a program's own table environment (weir/table.h), in the
 * program's job, beside its C operators: a C table or stream registered as
 * a view (weir_table_env_create_temporary_view) is read by name, and a
 * query's result is a weir_table that goes on through the table API or
 * back into a C stream (weir_table_to_stream ...). The env keeps the
 * catalog (CREATE TABLE, CREATE VIEW) and settings (SET) of its statements
 * from one call to the next. Nothing runs here: the program runs the job
 * (weir_job_run) once everything is planned.
 *
 * Errors are the job's (weir_job_error: "line L, column C: what is wrong";
 * weir_job_run then fails with it): after one, the job must not be run
 * for its results (a statement may have planned part of its operators).
 * The env must outlive the job's run. */

/* Runs statements in env (Flink's executeSql; several, ';'-separated):
 * CREATE TABLE / VIEW and SET are kept; each INSERT INTO and statement set
 * adds its pipeline (sources, operators, the table's sink) to the job; a
 * SELECT adds a sink that prints its rows to stdout as Flink's
 * TableResult.print() shows them. EXPLAIN is refused (explain a table:
 * weir_table_explain). 0, or WEIR_EINVAL / WEIR_ENOMEM. */
WEIR_EXPORT int weir_table_env_execute_sql(weir_table_env *env, const char *text);

/* One query (SELECT or VALUES) as a table of env (Flink's sqlQuery). NULL
 * with the job's error. */
WEIR_EXPORT weir_table *weir_table_env_sql_query(weir_table_env *env, const char *text);

/* ---- statement sets (Flink's StatementSet) ---------------------------------------------------
 * INSERTs gathered, then planned together into env's job by
 * weir_statement_set_execute: each checked when it is added (one INSERT
 * INTO a table whose connector writes), none planned until then, so a set
 * whose last INSERT is wrong adds nothing to the job. Every INSERT of the
 * set reads each of its sources once (as everything in one env's job
 * does). SQL's EXECUTE STATEMENT SET BEGIN ... END is the same in SQL. */
typedef struct weir_statement_set weir_statement_set;

/* A new empty set of env (the env must outlive it). NULL: out of memory. */
WEIR_EXPORT weir_statement_set *weir_table_env_create_statement_set(weir_table_env *env);
WEIR_EXPORT void weir_statement_set_destroy(weir_statement_set *set);

/* Adds one INSERT INTO statement (Flink's addInsertSql): parsed, its table
 * checked. 0, or WEIR_EINVAL / WEIR_ENOMEM with the job's error. */
WEIR_EXPORT int weir_statement_set_add_insert_sql(weir_statement_set *set, const char *insert);
/* Adds a table of env written into the catalog table `table` (Flink's
 * addInsert(String, Table)): columns by position, cast as INSERT casts
 * them (types checked at execute). 0, or WEIR_EINVAL / WEIR_ENOMEM with the
 * job's error. */
WEIR_EXPORT int weir_statement_set_add_insert(weir_statement_set *set, const char *table,
                                              weir_table *t);
/* How many INSERTs wait in the set. */
WEIR_EXPORT int weir_statement_set_count(const weir_statement_set *set);
/* Plans every INSERT of the set into env's job, in the order added; the set
 * is then empty (and may gather more). An empty set is refused. 0, or
 * WEIR_EINVAL / WEIR_ENOMEM with the job's error (the job must then not be
 * run: a set may have planned part of its INSERTs). */
WEIR_EXPORT int weir_statement_set_execute(weir_statement_set *set);

#ifdef __cplusplus
}
#endif
#endif
