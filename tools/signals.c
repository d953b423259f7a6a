/* signals.c — SIGINT and SIGTERM stop the `weir` command (signals.h). */
#include "signals.h"

#include <semaphore.h>
#include <signal.h>
#include <stdatomic.h>
#include <stddef.h>

static volatile sig_atomic_t stop_signal;
/* lock-free (checked below), so the handler may load it */
static _Atomic(weir_job *) current_job;
static _Atomic(weir_sql_session *) current_session;

_Static_assert(ATOMIC_POINTER_LOCK_FREE == 2, "the handler loads an atomic pointer");

static _Atomic(sem_t *) savepoint_sem;

static void on_signal(int sig)
{
    if (!stop_signal)
        stop_signal = sig;
    weir_job *job = atomic_load(&current_job);
    sem_t *sem = atomic_load(&savepoint_sem);
    if (job && sem) {
        sem_post(sem); /* the command's thread stops it with a savepoint */
        return;
    }
    if (job)
        weir_job_cancel(job);
    weir_sql_session *s = atomic_load(&current_session);
    if (s)
        weir_sql_cancel(s);
}

void weir_cli_signals_install(void)
{
    struct sigaction sa = {0};
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESETHAND; /* no SA_RESTART: a blocked read returns */
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
}

int weir_cli_stopped(void)
{
    return stop_signal;
}

void weir_cli_signals_job(weir_job *job)
{
    atomic_store(&current_job, job);
    if (job && stop_signal)
        weir_job_cancel(job);
}

void weir_cli_signals_sql(weir_sql_session *s)
{
    atomic_store(&current_session, s);
    if (s && stop_signal)
        weir_sql_cancel(s);
}

void weir_cli_signals_savepoint(sem_t *sem)
{
    atomic_store(&savepoint_sem, sem);
}

void weir_cli_signals_handled(void)
{
    stop_signal = 0;
}
