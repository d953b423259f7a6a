/* sql_shell.c — the interactive SQL shell of `weir sql` (sql_shell.h).
 *
 * Line editing and history are libedit's (Debian's libedit-dev, through its
 * readline-compatible interface, editline/readline.h): BSD-licensed, so the
 * command stays under weir's licence, where GNU readline is GPL. libedit
 * catches no signal here (rl_catch_signals 0) and reads each character
 * through shell_getc, which waits on the terminal and on a pipe that the
 * shell's own SIGINT handler writes: at a Ctrl-C readline returns NULL, and
 * the flag says it was Ctrl-C and not the end of the input. A read that
 * only a signal interrupts (no SA_RESTART) would miss a Ctrl-C that came
 * after the prompt was drawn but before libedit began to read: the shell
 * waited for a key with the Ctrl-C spent. */
#include "sql_shell.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <langinfo.h>
#include <locale.h>
#include <poll.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
#include <wchar.h>

#include <editline/readline.h>

#include "message.h"
#include "signals.h"
#include "sql_shell_result.h"

#define PROMPT "weir SQL> "
#define PROMPT_MORE "> "
#define HISTORY_FILE ".weir_sql_history"
#define HISTORY_MAX 1000

static volatile sig_atomic_t interrupted;
/* written by the SIGINT handler, read by shell_getc; -1: none (a shell
 * without a terminal reads with getline) */
static int interrupt_pipe[2] = {-1, -1};
static _Atomic(weir_sql_session *) running;

_Static_assert(ATOMIC_POINTER_LOCK_FREE == 2, "the handler loads an atomic pointer");

/* SIGINT in the shell: the query running is cancelled (weir_sql_cancel is
 * async-signal-safe); at the prompt the read returns and the line is
 * dropped. */
static void on_interrupt(int sig)
{
    (void)sig;
    int saved = errno; /* the interrupted code's */
    interrupted = 1;
    shell_result_interrupt();
    weir_sql_session *s = atomic_load(&running);
    if (s)
        weir_sql_cancel(s);
    if (interrupt_pipe[1] >= 0) {
        char b = 1;
        ssize_t w = write(interrupt_pipe[1], &b, 1);
        (void)w; /* a full pipe (non-blocking) is readable already */
    }
    errno = saved;
}

/* Forgets the Ctrl-Cs seen so far: the flag, then the pipe's bytes. One
 * that comes between the two is dropped, as if it came a moment before. */
static void interrupt_forget(void)
{
    interrupted = 0;
    if (interrupt_pipe[0] >= 0) {
        char b[64];
        while (read(interrupt_pipe[0], b, sizeof b) > 0)
            ;
    }
}

/* libedit's character reader (rl_getc_function): one character from the
 * terminal, decoded in the locale as libedit's own reader does, or -1 (the
 * end of the input for libedit) at the terminal's end or at a Ctrl-C. */
static int shell_getc(FILE *in)
{
    int fd = in ? fileno(in) : STDIN_FILENO;
    mbstate_t state;
    memset(&state, 0, sizeof state);
    for (;;) {
        struct pollfd p[2] = {{.fd = fd, .events = POLLIN},
                              {.fd = interrupt_pipe[0], .events = POLLIN}};
        if (poll(p, 2, -1) < 0) {
            if (errno == EINTR)
                continue; /* the pipe says whether it was SIGINT */
            return -1;
        }
        if (p[1].revents & POLLIN)
            return -1; /* `interrupted` is set; the pipe is emptied later */
        if (!p[0].revents)
            continue;
        char b;
        ssize_t n = read(fd, &b, 1);
        if (n < 0 && (errno == EINTR || errno == EAGAIN))
            continue;
        if (n <= 0)
            return -1;
        wchar_t wc;
        size_t k = mbrtowc(&wc, &b, 1, &state);
        if (k == (size_t)-2)
            continue; /* a multibyte character goes on */
        if (k == (size_t)-1)
            return (unsigned char)b; /* a stray byte is itself */
        return (int)wc;
    }
}

/* ---- where a statement ends ------------------------------------------------------------------ */

/* The word at t[i..] (letters, digits, '_') uppercased into w (cut to
 * size - 1); its length. */
static size_t word_at(const char *t, size_t len, size_t i, char *w, size_t size)
{
    size_t n = 0;
    while (i + n < len && (isalnum((unsigned char)t[i + n]) || t[i + n] == '_')) {
        if (n + 1 < size)
            w[n] = (char)toupper((unsigned char)t[i + n]);
        n++;
    }
    w[n < size ? n : size - 1] = '\0';
    return n;
}

/* Past the quote or comment that starts at t[i]: its end, or len + 1 when
 * it does not end in the text; i itself when none starts there. */
static size_t skip_quoted(const char *t, size_t len, size_t i)
{
    char c = t[i];
    if (c == '\'' || c == '"' || c == '`') {
        for (size_t j = i + 1; j < len; j++)
            if (t[j] == c) {
                if (j + 1 < len && t[j + 1] == c) { /* '' inside '...' */
                    j++;
                    continue;
                }
                return j + 1;
            }
        return len + 1;
    }
    if (c == '-' && i + 1 < len && t[i + 1] == '-') {
        const char *nl = memchr(t + i, '\n', len - i);
        return nl ? (size_t)(nl - t) + 1 : len;
    }
    if (c == '/' && i + 1 < len && t[i + 1] == '*') {
        for (size_t j = i + 2; j + 1 < len; j++)
            if (t[j] == '*' && t[j + 1] == '/')
                return j + 2;
        return len + 1;
    }
    return i;
}

size_t weir_sql_statement_end(const char *t, size_t len)
{
    char first[3][12] = {"", "", ""};
    char last[12] = "";
    int nwords = 0;
    bool set = false; /* a statement set: it ends at END; */
    size_t i = 0;
    while (i < len) {
        size_t past = skip_quoted(t, len, i);
        if (past > len)
            return 0; /* a quote or a comment still open */
        if (past != i) {
            if (t[i] != '-' && t[i] != '/')
                last[0] = '\0'; /* a quoted name or string is no END */
            i = past;
            continue;
        }
        char c = t[i];
        if (c == ';') {
            if (!set || strcmp(last, "END") == 0)
                return i + 1;
            last[0] = '\0';
            i++;
        } else if (isalpha((unsigned char)c) || c == '_') {
            char w[12];
            i += word_at(t, len, i, w, sizeof w);
            if (nwords < 3) {
                memcpy(first[nwords++], w, sizeof w);
                if (nwords == 3)
                    set = (strcmp(first[0], "BEGIN") == 0 || strcmp(first[0], "EXECUTE") == 0) &&
                          strcmp(first[1], "STATEMENT") == 0 && strcmp(first[2], "SET") == 0;
            }
            memcpy(last, w, sizeof w);
        } else {
            if (!isspace((unsigned char)c))
                last[0] = '\0';
            i++;
        }
    }
    return 0;
}

/* Whether t holds nothing but blanks and whole comments. */
static bool blank(const char *t, size_t len)
{
    size_t i = 0;
    while (i < len) {
        if (isspace((unsigned char)t[i])) {
            i++;
            continue;
        }
        size_t past = skip_quoted(t, len, i);
        if (past == i || past > len || t[i] == '\'' || t[i] == '"' || t[i] == '`')
            return false;
        i = past;
    }
    return true;
}

/* The statement's first word, uppercased, and the second. */
static void first_words(const char *t, size_t len, char *w1, char *w2, size_t size)
{
    char *w[2] = {w1, w2};
    w1[0] = w2[0] = '\0';
    size_t i = 0;
    for (int k = 0; k < 2 && i < len;) {
        size_t past = skip_quoted(t, len, i);
        if (past != i) {
            if (t[i] != '-' && t[i] != '/') /* a quoted word: 'key' of SET */
                snprintf(w[k++], size, "%c", t[i]);
            i = past;
        } else if (isalpha((unsigned char)t[i]) || t[i] == '_') {
            i += word_at(t, len, i, w[k++], size);
        } else if (isspace((unsigned char)t[i])) {
            i++;
        } else {
            return;
        }
    }
}

/* ---- the statements --------------------------------------------------------------------------- */

static void help(void)
{
    fputs("Statements end with ';' and may take several lines. weir runs:\n"
          "  CREATE TABLE name (...) WITH (...);   a table over a connector\n"
          "  CREATE VIEW name AS query;            a named query\n"
          "  SELECT ... ; VALUES ... ;             a query: its changelog as it comes\n"
          "                                        (+I[...], -U[...], +U[...], -D[...]);\n"
          "                                        Ctrl-C cancels it\n"
          "  INSERT INTO name query;               a query written into a table\n"
          "  BEGIN STATEMENT SET; INSERT ...; END; several INSERTs in one job\n"
          "  EXPLAIN [CHANGELOG_MODE] query;       the plan\n"
          "  SHOW TABLES; SHOW VIEWS; SHOW FUNCTIONS; SHOW USER FUNCTIONS;\n"
          "  DESCRIBE name;                        a table's or a view's columns\n"
          "  SET 'key' = 'value';  SET;            a setting; the settings in force\n"
          "  SET 'sql-client.execution.result-mode' = 'changelog' | 'tableau' | 'table';\n"
          "                                        how a query's rows are shown (a table\n"
          "                                        in place: q leaves it)\n"
          "  RESET 'key';  RESET;                  a setting (or all) back to its default\n"
          "  HELP;                                 this list\n"
          "  QUIT; EXIT;                           leaves the shell (so does Ctrl-D)\n"
          "docs/SQL.md lists the SQL weir supports; docs/SHELL.md the shell.\n",
          stdout);
}

/* Runs one statement (text, len); false when it was QUIT or EXIT. `tty`:
 * the shell is on a terminal. */
static bool run_statement(weir_sql_session *s, const char *text, size_t len, bool tty)
{
    char w1[16], w2[16];
    first_words(text, len, w1, w2, sizeof w1);
    if ((strcmp(w1, "QUIT") == 0 || strcmp(w1, "EXIT") == 0) && !w2[0])
        return false;
    if (strcmp(w1, "HELP") == 0 && !w2[0]) {
        help();
        return true;
    }
    weir_sql_clear_cancel(s);
    interrupt_forget();
    bool query = strcmp(w1, "SELECT") == 0 || strcmp(w1, "VALUES") == 0 ||
                 strcmp(w1, "WITH") == 0;
    shell_result_begin(s, query, tty);
    atomic_store(&running, s);
    int r = weir_sql_execute(s, text, len);
    atomic_store(&running, NULL);
    bool by_ctrl_c = r == WEIR_ECANCELED && interrupted && !weir_cli_stopped();
    bool said = shell_result_end(r, by_ctrl_c);
    fflush(stdout);
    if (r == WEIR_ECANCELED && said) {
        /* the result said it: "Query terminated, ..." or the view left with q */
    } else if (by_ctrl_c) {
        printf("[INFO] Query cancelled.\n");
    } else if (r) {
        fprintf(stderr, "[ERROR] %s\n", weir_sql_error(s));
    } else {
        /* a statement that printed nothing says it ran, as Flink's client */
        static const char *const quiet[] = {"CREATE", "INSERT", "BEGIN", "EXECUTE", "RESET"};
        bool says = strcmp(w1, "SET") == 0 && w2[0];
        for (size_t i = 0; i < sizeof quiet / sizeof *quiet; i++)
            says = says || strcmp(w1, quiet[i]) == 0;
        if (says)
            printf("[INFO] Execute statement succeed.\n");
    }
    weir_sql_clear_cancel(s);
    interrupt_forget();
    fflush(stdout);
    return true;
}

/* ---- reading lines ---------------------------------------------------------------------------- */

typedef struct shell {
    bool tty;          /* libedit reads; else getline */
    char history[4096]; /* "": none kept */
    char *line;        /* getline's */
    size_t line_cap;
} shell;

/* The next line (without its end), or NULL at the end of the input; a
 * Ctrl-C also returns NULL, with `interrupted` set. */
static char *next_line(shell *sh, const char *prompt)
{
    if (sh->tty)
        return readline(prompt);
    fputs(prompt, stdout);
    fflush(stdout);
    errno = 0;
    ssize_t n = getline(&sh->line, &sh->line_cap, stdin);
    if (n < 0) {
        if (errno == EINTR)
            clearerr(stdin);
        return NULL;
    }
    if (n > 0 && sh->line[n - 1] == '\n')
        sh->line[--n] = '\0';
    return strdup(sh->line);
}

/* A UTF-8 locale for libedit's decoding of what is typed (SQL text is
 * UTF-8): the environment's if it is one, else C.UTF-8. */
static void utf8_locale(void)
{
    if (setlocale(LC_CTYPE, "") && strcmp(nl_langinfo(CODESET), "UTF-8") == 0)
        return;
    if (!setlocale(LC_CTYPE, "C.UTF-8"))
        setlocale(LC_CTYPE, "C");
}

static void history_open(shell *sh)
{
    const char *home = getenv("HOME");
    if (!sh->tty || !home || !home[0] ||
        (size_t)snprintf(sh->history, sizeof sh->history, "%s/%s", home, HISTORY_FILE) >=
            sizeof sh->history) {
        sh->history[0] = '\0';
        return;
    }
    using_history();
    stifle_history(HISTORY_MAX);
    read_history(sh->history); /* none yet: nothing to read */
}

/* A statement into the history (its lines as typed), written at once: a
 * shell that is killed keeps what it ran. */
static void history_add(shell *sh, const char *text, size_t len)
{
    if (!sh->history[0])
        return;
    while (len && isspace((unsigned char)*text))
        text++, len--;
    while (len && isspace((unsigned char)text[len - 1]))
        len--;
    char *entry = strndup(text, len);
    if (!entry)
        return;
    add_history(entry);
    free(entry);
    if (write_history(sh->history) != 0)
        sh->history[0] = '\0'; /* said nothing: a shell without history still works */
}

int weir_sql_shell(weir_sql_session *s)
{
    shell sh = {.tty = isatty(STDIN_FILENO) && isatty(STDOUT_FILENO)};
    if (sh.tty) {
        utf8_locale();
        rl_readline_name = "weir"; /* ~/.editrc: "weir:bind ..." */
        rl_catch_signals = 0;
        /* before libedit starts (history_open's first call starts it) */
        if (pipe2(interrupt_pipe, O_CLOEXEC | O_NONBLOCK) == 0)
            rl_getc_function = shell_getc;
    }
    history_open(&sh);
    struct sigaction sa = {0}, old;
    sa.sa_handler = on_interrupt;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = 0; /* no SA_RESTART: a read at the prompt returns */
    sigaction(SIGINT, &sa, &old);

    printf("weir SQL shell (weir %s). Statements end with ';'; HELP; lists them, QUIT; "
           "leaves.\n", weir_version());
    char *buf = NULL;
    size_t len = 0, cap = 0;
    bool go = true;
    while (go && !weir_cli_stopped()) {
        char *line = next_line(&sh, len ? PROMPT_MORE : PROMPT);
        if (!line) {
            if (interrupted && !weir_cli_stopped()) { /* Ctrl-C: the typing dropped */
                interrupt_forget();
                len = 0;
                fputc('\n', stdout);
                continue;
            }
            if (sh.tty)
                fputc('\n', stdout);
            break;
        }
        size_t n = strlen(line);
        if (len + n + 2 > cap) {
            size_t c = (len + n + 2) * 2;
            char *b = realloc(buf, c);
            if (!b) {
                free(line);
                weir_tool_error("weir sql: out of memory");
                break;
            }
            buf = b;
            cap = c;
        }
        memcpy(buf + len, line, n);
        len += n;
        buf[len++] = '\n';
        buf[len] = '\0';
        free(line);
        /* QUIT or EXIT alone on a line, without its ';', leaves too */
        char w1[16], w2[16];
        first_words(buf, len, w1, w2, sizeof w1);
        if ((strcmp(w1, "QUIT") == 0 || strcmp(w1, "EXIT") == 0) && !w2[0] &&
            !memchr(buf, ';', len)) {
            size_t k = 0;
            while (k < len && isspace((unsigned char)buf[k]))
                k++;
            if (k + 4 <= len && blank(buf + k + 4, len - k - 4))
                break;
        }
        size_t end;
        while (go && (end = weir_sql_statement_end(buf, len)) > 0) {
            history_add(&sh, buf, end);
            go = run_statement(s, buf, end, sh.tty);
            memmove(buf, buf + end, len - end + 1);
            len -= end;
        }
        if (blank(buf, len))
            len = 0;
    }
    sigaction(SIGINT, &old, NULL);
    for (int i = 0; i < 2; i++)
        if (interrupt_pipe[i] >= 0) {
            close(interrupt_pipe[i]);
            interrupt_pipe[i] = -1;
        }
    free(buf);
    free(sh.line);
    fflush(stdout);
    int sig = weir_cli_stopped();
    return sig ? 128 + sig : 0;
}
