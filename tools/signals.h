/* signals.h — SIGINT and SIGTERM in the `weir` command: the job running is
 * cancelled (weir_job_cancel), the command stops at its next check, and the
 * exit status is 128 + the signal (130, 143).
 *
 * The handler only records the signal and calls weir_job_cancel, which is
 * async-signal-safe (or, for a savepoint, sem_post: weir_cli_signals_savepoint);
 * it is installed without SA_RESTART, so a read or write
 * the signal interrupts returns (EINTR) and the command sees the flag, and
 * with SA_RESETHAND, so a second signal ends the process at once (the
 * default action) should the first not get through. */
#ifndef WEIR_TOOLS_SIGNALS_H
#define WEIR_TOOLS_SIGNALS_H

#include <semaphore.h>

#include <weir.h>
#include <weir/sql.h>

/* Installs the handlers. Once, from main, before any thread starts. */
void weir_cli_signals_install(void);

/* The signal that asked the command to stop, or 0. */
int weir_cli_stopped(void);

/* The job a signal cancels: set it before weir_job_run and back to NULL
 * when the run has returned, before weir_job_destroy (the run joined every
 * thread a handler could be running on then). A signal that came before is
 * passed on: the job is cancelled at once. */
void weir_cli_signals_job(weir_job *job);

/* The SQL session a signal cancels (weir_sql_cancel: the statement being
 * planned stops, no other runs): set it before weir_sql_execute and back
 * to NULL before weir_sql_session_destroy. A signal that came before is
 * passed on. */
void weir_cli_signals_sql(weir_sql_session *s);

/* While `sem` is set (NULL: no more), a signal that comes while a job runs
 * (weir_cli_signals_job) does not cancel it: it posts `sem` (sem_post is
 * async-signal-safe), and the command's own thread stops the job with a
 * savepoint (weir_job_savepoint, which waits), or cancels it if it cannot. */
void weir_cli_signals_savepoint(sem_t *sem);

/* The command stopped as the signal asked and says so itself (a query
 * stopped where it can resume): main exits with the command's status, not
 * 128 + the signal. */
void weir_cli_signals_handled(void);

#endif
