/* sql.c — `weir sql [--check] [--capture FILE] [--workers N] [--serve ADDR]
 * [--from-checkpoint DIR] [--savepoint-on-stop DIR] FILE|-|-e STATEMENTS`,
 * or `weir sql [-i] [OPTIONS]` without a file: the interactive shell
 * (sql_shell.h) on a terminal or with -i, else the statements of standard
 * input. With a file:
 * the statements read whole (a SQL file is small; at most 16 MB; a UTF-8
 * byte order mark at its start is skipped), given to a weir_sql_session
 * whose relative 'path' options are read from the file's folder, and each
 * query's rows printed on standard output as they come.
 * SIGINT/SIGTERM stop it in every phase (signals.h): the file's read, the
 * statement being planned (weir_sql_cancel) and the running query. A query
 * that runs with checkpoints is stopped where it can resume: with
 * --savepoint-on-stop by a savepoint (weir_job_savepoint, from a thread of
 * this command's, since a handler cannot wait), else cancelled after its
 * last checkpoint; standard error says which checkpoint, and the exit
 * status is 0. */
#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <weir.h>

#include "message.h"
#include "signals.h"
#include "sql.h"
#include "sql_shell.h"
#include "sql_shell_result.h"

#define SQL_FILE_MAX (16u << 20)

static int usage(FILE *out)
{
    fprintf(out,
            "usage: weir sql [OPTIONS] FILE|-\n"
            "       weir sql [OPTIONS] -e 'STATEMENTS'\n"
            "       weir sql [-i] [OPTIONS]\n"
            "Runs SQL statements (CREATE TABLE, CREATE VIEW, SET, RESET, SELECT,\n"
            "EXPLAIN, INSERT INTO, EXECUTE STATEMENT SET, SHOW, DESCRIBE) in order;\n"
            "prints each query's result as a changelog (+I[...], -U[...], +U[...],\n"
            "-D[...]); an INSERT writes into its table's connector. docs/SQL.md lists\n"
            "what weir's SQL supports.\n"
            "Without FILE on a terminal, or with -i, an interactive shell (docs/SHELL.md):\n"
            "statements over several lines up to ';', line editing and a history\n"
            "(~/.weir_sql_history), Ctrl-C cancels the running query, QUIT; leaves.\n"
            "Without FILE and not on a terminal, the statements of standard input.\n"
            "  -i, --interactive\n"
            "                   the shell, on a terminal or not\n"
            "  --capture FILE   the diagnostic capture of each query (.msgpack or JSONL;\n"
            "                   the n-th query writes FILE-n.EXT; a link is written\n"
            "                   through, a pipe or a device gets each query's in place)\n"
            "  --workers N      worker threads of each query's job (default: the CPUs)\n"
            "  --check          plan every query, run none (exit 0 if all would run)\n"
            "  --serve ADDR     serve each query's job over HTTP while it runs\n"
            "                   (docs/LIVE.md): the live view, /metrics, /events, /jobs\n"
            "  --from-checkpoint DIR\n"
            "                   each query restores from DIR: a checkpoint or savepoint\n"
            "                   (chk-N) or a folder of them (its newest complete one), as\n"
            "                   SET 'execution.savepoint.path' = 'DIR' does\n"
            "  --savepoint-on-stop DIR\n"
            "                   SIGINT or SIGTERM stops a running query with a savepoint\n"
            "                   into DIR (Flink's stop-with-savepoint); every query runs\n"
            "                   with checkpoints (SET 'state.checkpoints.dir' is required)\n"
            "A query runs until its input ends; one over an unbounded table (datagen\n"
            "without 'number-of-rows') until SIGINT or SIGTERM. With checkpoints (SET\n"
            "'execution.checkpointing.interval' and 'state.checkpoints.dir') a signal\n"
            "while it runs stops it where it can resume, says which checkpoint or\n"
            "savepoint on standard error, and exits 0.\n"
            "Exit status: 0 ran (or stopped at a checkpoint), 1 a query failed while it\n"
            "ran or a file could not be read, 2 bad usage or a statement that cannot\n"
            "be run (FILE: line L, column C: what, on standard error), 128 + the\n"
            "signal when one stopped anything else.\n");
    return out == stdout ? 0 : 2;
}

/* The whole of `in`, NUL-terminated, in *text (len bytes). 0, or 1 with
 * the error said. */
static int read_all(FILE *in, const char *name, char **text, size_t *len)
{
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap);
    while (buf) {
        if (n + 1 >= cap) {
            if (cap >= SQL_FILE_MAX) {
                weir_tool_error("weir sql: %s: longer than %u MB", name, SQL_FILE_MAX >> 20);
                free(buf);
                return 1;
            }
            char *b = realloc(buf, cap * 2);
            if (!b)
                break;
            buf = b;
            cap *= 2;
        }
        size_t got = fread(buf + n, 1, cap - n - 1, in);
        n += got;
        if (got == 0) {
            if (ferror(in)) {
                if (errno == EINTR && weir_cli_stopped()) {
                    free(buf); /* a signal stopped the read: main says which */
                    return 1;
                }
                weir_tool_error("weir sql: %s: cannot read: %s", name, weir_tool_strerror(errno));
                free(buf);
                return 1;
            }
            buf[n] = '\0';
            *text = buf;
            *len = n;
            return 0;
        }
    }
    free(buf);
    weir_tool_error("weir sql: %s: out of memory", name);
    return 1;
}

/* A NUL byte is not SQL: said at its line, as the script harness does. */
static int check_nul(const char *text, size_t len, const char *name)
{
    const char *z = memchr(text, '\0', len);
    if (!z)
        return 0;
    unsigned line = 1;
    for (const char *p = text; p < z; p++)
        line += *p == '\n';
    weir_tool_error("weir sql: %s: line %u: a NUL byte", name, line);
    return 2;
}

/* What a signal stops and where it stopped: the job running (under lock,
 * so that a savepoint is never taken of a job being destroyed: on_job's
 * NULL waits for one in progress, which ends with the job's run), and what
 * the last job's checkpoints did. */
typedef struct stopper {
    pthread_mutex_t lock;
    weir_sql_session *s;
    const char *savepoint_dir; /* --savepoint-on-stop; NULL: a signal cancels */
    sem_t wake;                /* posted by the signal handler */
    pthread_t thread;
    bool thread_started;
    atomic_bool quit;
    weir_job *job;
    /* the last job */
    bool checkpointed;         /* it ran with checkpoints */
    char chk_dir[4096];        /* where they went */
    bool signalled;            /* a signal came while it ran */
    int64_t last_id;           /* its last completed checkpoint; 0: none */
    int64_t restored_id;       /* the checkpoint it restored; 0: none */
    char restored_from[4096];  /* and where from */
    int64_t savepoint_id;      /* the savepoint it stopped with; 0: none */
    char savepoint_why[512];   /* why a savepoint was not taken */
} stopper;

static void on_job(weir_job *job, void *arg)
{
    stopper *st = arg;
    if (job) {
        const char *addr = weir_job_get_config(job)->http_addr;
        if (addr)
            fprintf(stderr, "weir sql: serving the query's live view on http://%s/ while it runs\n",
                    addr);
        const weir_checkpoint_config *cc = &weir_job_get_config(job)->checkpoint;
        pthread_mutex_lock(&st->lock);
        st->job = job;
        st->checkpointed = cc->interval_ms > 0 || cc->dir;
        snprintf(st->chk_dir, sizeof st->chk_dir, "%s", cc->dir ? cc->dir : "");
        st->signalled = false;
        st->last_id = st->savepoint_id = st->restored_id = 0;
        snprintf(st->restored_from, sizeof st->restored_from, "%s",
                 cc->restore_from ? cc->restore_from : "");
        st->savepoint_why[0] = '\0';
        pthread_mutex_unlock(&st->lock);
    }
    weir_cli_signals_job(job);
    if (!job) {
        pthread_mutex_lock(&st->lock);
        weir_checkpoint_stats cs;
        if (st->job && weir_job_checkpoint_stats(st->job, &cs) == 0) {
            st->last_id = cs.last_completed_id;
            st->restored_id = cs.restored_id;
        }
        st->signalled = weir_cli_stopped() != 0;
        st->job = NULL;
        pthread_mutex_unlock(&st->lock);
    }
}

/* The thread that takes the savepoint a signal asks for. */
static void *stopper_main(void *arg)
{
    stopper *st = arg;
    for (;;) {
        while (sem_wait(&st->wake) != 0 && errno == EINTR)
            ;
        if (atomic_load(&st->quit))
            return NULL;
        pthread_mutex_lock(&st->lock);
        int r = WEIR_ESTATE;
        if (st->job) {
            int64_t id = 0;
            r = weir_job_savepoint(st->job, st->savepoint_dir, true, &id, st->savepoint_why,
                                   sizeof st->savepoint_why);
            if (r == 0)
                st->savepoint_id = id;
        }
        pthread_mutex_unlock(&st->lock);
        /* no job (it ended meanwhile), or no savepoint: the session stops
         * as without one */
        if (r)
            weir_sql_cancel(st->s);
    }
}

static int stopper_start(stopper *st)
{
    if (!st->savepoint_dir)
        return 0;
    if (sem_init(&st->wake, 0, 0) != 0)
        return -1;
    if (pthread_create(&st->thread, NULL, stopper_main, st) != 0) {
        sem_destroy(&st->wake);
        return -1;
    }
    st->thread_started = true;
    weir_cli_signals_savepoint(&st->wake);
    return 0;
}

static void stopper_end(stopper *st)
{
    if (st->thread_started) {
        weir_cli_signals_savepoint(NULL);
        atomic_store(&st->quit, true);
        sem_post(&st->wake);
        pthread_join(st->thread, NULL);
        sem_destroy(&st->wake);
        st->thread_started = false;
    }
}

/* A query that ran with checkpoints and that a signal stopped: where it
 * stopped, on standard error. */
static void say_where(const stopper *st, int sig)
{
    const char *by = sig == SIGINT ? "SIGINT" : "SIGTERM";
    if (st->savepoint_id > 0) {
        fprintf(stderr, "weir sql: stopped by %s with savepoint %lld: %s/chk-%lld\n", by,
                (long long)st->savepoint_id, st->savepoint_dir, (long long)st->savepoint_id);
        return;
    }
    char no_savepoint[640] = "";
    if (st->savepoint_dir)
        snprintf(no_savepoint, sizeof no_savepoint, " (no savepoint: %s)",
                 st->savepoint_why[0] ? st->savepoint_why : "the query was ending");
    if (st->last_id > 0)
        fprintf(stderr, "weir sql: stopped by %s%s; its last checkpoint is %lld: %s/chk-%lld\n",
                by, no_savepoint, (long long)st->last_id, st->chk_dir, (long long)st->last_id);
    else if (st->restored_id > 0)
        fprintf(stderr, "weir sql: stopped by %s%s before its first checkpoint completed; it "
                "had restored checkpoint %lld from %s\n", by, no_savepoint,
                (long long)st->restored_id, st->restored_from);
    else
        fprintf(stderr, "weir sql: stopped by %s%s before its first checkpoint completed\n", by,
                no_savepoint);
}

/* The folder of `path` ("." for a bare name), for relative 'path' options. */
static void folder_of(const char *path, char *out, size_t size)
{
    const char *slash = strrchr(path, '/');
    if (!slash)
        snprintf(out, size, ".");
    else if (slash == path)
        snprintf(out, size, "/");
    else
        snprintf(out, size, "%.*s", (int)(slash - path), path);
}

/* The interactive shell in a session of the command's options. */
static int shell(const char *capture, int workers, const char *from, const char *serve, bool check,
                 const char *savepoint)
{
    if (check || savepoint) {
        weir_tool_error("weir sql: --%s runs a file's statements, not the shell",
                        check ? "check" : "savepoint-on-stop");
        return 2;
    }
    weir_sql_session *s = NULL;
    stopper st = {.lock = PTHREAD_MUTEX_INITIALIZER};
    weir_sql_config cfg = {.capture_path = capture, .workers = workers, .on_job = on_job,
                           .on_job_arg = &st, .restore_from = from, .http_addr = serve,
                           .on_row = weir_sql_shell_row};
    int made = weir_sql_session_create(&cfg, &s);
    if (made) {
        weir_tool_error("weir sql: %s", made == WEIR_ENOMEM ? "out of memory"
                                                            : "a path is too long");
        return made == WEIR_ENOMEM ? 1 : 2;
    }
    st.s = s;
    int status = weir_sql_shell(s);
    weir_sql_session_destroy(s);
    return status;
}

int weir_sql_main(int argc, char **argv)
{
    enum { O_CAPTURE = 256, O_WORKERS, O_CHECK, O_FROM, O_SAVEPOINT, O_SERVE, O_HELP };
    static const struct option longopts[] = {
        {"interactive", no_argument, NULL, 'i'},
        {"capture", required_argument, NULL, O_CAPTURE},
        {"check", no_argument, NULL, O_CHECK},
        {"workers", required_argument, NULL, O_WORKERS},
        {"from-checkpoint", required_argument, NULL, O_FROM},
        {"savepoint-on-stop", required_argument, NULL, O_SAVEPOINT},
        {"serve", required_argument, NULL, O_SERVE},
        {"help", no_argument, NULL, O_HELP},
        {NULL, 0, NULL, 0},
    };
    const char *capture = NULL, *inline_text = NULL, *from = NULL, *savepoint = NULL;
    const char *serve = NULL;
    int workers = 0, c;
    bool check = false, interactive = false;
    optind = 1;
    while ((c = getopt_long(argc, argv, "+e:hi", longopts, NULL)) != -1) {
        switch (c) {
        case O_CAPTURE: capture = optarg; break;
        case O_WORKERS: {
            char *end;
            long w = strtol(optarg, &end, 10);
            if (end == optarg || *end || w < 1 || w > 256) {
                weir_tool_error("weir sql: --workers: expected 1 to 256, not '%s'", optarg);
                return 2;
            }
            workers = (int)w;
            break;
        }
        case O_FROM:
        case O_SAVEPOINT:
            if (!optarg[0] || strlen(optarg) >= 4096) {
                weir_tool_error("weir sql: --%s: %s",
                                c == O_FROM ? "from-checkpoint" : "savepoint-on-stop",
                                optarg[0] ? "the path is too long" : "expected a folder");
                return 2;
            }
            *(c == O_FROM ? &from : &savepoint) = optarg;
            break;
        case O_SERVE: {
            weir_job_config probe = {.http_addr = optarg};
            char why[256];
            if (weir_job_config_check(&probe, why, sizeof why) != 0) {
                weir_tool_error("weir sql: --serve: %s", why);
                return 2;
            }
            serve = optarg;
            break;
        }
        case 'e': inline_text = optarg; break;
        case 'i': interactive = true; break;
        case O_CHECK: check = true; break;
        case 'h':
        case O_HELP: return usage(stdout);
        default: return usage(stderr);
        }
    }
    if (!inline_text && optind == argc && (interactive || isatty(STDIN_FILENO)))
        return shell(capture, workers, from, serve, check, savepoint);
    if (interactive)
        return usage(stderr); /* -i with a file or -e */
    bool from_stdin = !inline_text && optind == argc; /* not a terminal: its statements */
    if (inline_text ? optind != argc : (optind != argc - 1 && !from_stdin))
        return usage(stderr);
    const char *file = from_stdin ? "-" : argv[optind];
    const char *name = inline_text ? "-e" : strcmp(file, "-") == 0 ? "<stdin>" : file;
    char *text = NULL;
    size_t len = 0;
    char dir[4096] = ".";
    if (inline_text) {
        len = strlen(inline_text);
        if (!(text = strdup(inline_text))) {
            weir_tool_error("weir sql: out of memory");
            return 1;
        }
    } else {
        FILE *in = strcmp(file, "-") == 0 ? stdin : fopen(file, "r");
        if (!in) {
            weir_tool_error("weir sql: %s: cannot open: %s", name, weir_tool_strerror(errno));
            return 1;
        }
        int r = read_all(in, name, &text, &len);
        if (in != stdin)
            fclose(in);
        if (r)
            return r;
        if (in != stdin)
            folder_of(file, dir, sizeof dir);
    }
    /* A UTF-8 byte order mark (editors on Windows write one) is not SQL:
     * the statements begin after it. */
    if (len >= 3 && memcmp(text, "\xEF\xBB\xBF", 3) == 0) {
        memmove(text, text + 3, len - 3 + 1);
        len -= 3;
    }
    int status = check_nul(text, len, name);
    weir_sql_session *s = NULL;
    stopper st = {.lock = PTHREAD_MUTEX_INITIALIZER, .savepoint_dir = savepoint};
    weir_sql_config cfg = {.base_dir = dir, .capture_path = capture, .workers = workers,
                           .on_job = on_job, .on_job_arg = &st, .plan_only = check,
                           .restore_from = from, .require_checkpoints = savepoint != NULL,
                           .http_addr = serve};
    int made = status == 0 ? weir_sql_session_create(&cfg, &s) : 0;
    if (made) {
        weir_tool_error("weir sql: %s", made == WEIR_ENOMEM ? "out of memory"
                                                            : "a path is too long");
        status = made == WEIR_ENOMEM ? 1 : 2;
    }
    st.s = s;
    if (status == 0 && stopper_start(&st)) {
        weir_tool_error("weir sql: cannot start the thread that takes savepoints");
        status = 1;
    }
    if (status == 0) {
        weir_cli_signals_sql(s);
        int r = weir_sql_execute(s, text, len);
        weir_cli_signals_sql(NULL);
        stopper_end(&st);
        int sig = weir_cli_stopped();
        if (r == WEIR_ECANCELED && sig && weir_sql_error_at_run(s) && st.signalled &&
            st.checkpointed) {
            say_where(&st, sig); /* stopped where it can resume */
            weir_cli_signals_handled();
        } else if (r == WEIR_ECANCELED && sig)
            status = 1; /* main says which signal, and exits 128 + it */
        else if (r) {
            weir_tool_error("weir sql: %s: %s", name, weir_sql_error(s));
            status = r == WEIR_EINVAL && !weir_sql_error_at_run(s) ? 2 : 1;
            /* A write to standard output failed while it ran: the
             * statement's message is that failure, with its reason ("cannot
             * write the results: Broken pipe"). */
            if (ferror(stdout))
                weir_tool_stdout_said();
        }
    }
    weir_sql_session_destroy(s);
    free(text);
    return status;
}
