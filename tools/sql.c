/* sql.c — `weir sql [--check] [--capture FILE] [--workers N] FILE|-|-e STATEMENTS`:
 * the statements read whole (a SQL file is small; at most 16 MB; a UTF-8
 * byte order mark at its start is skipped), given to a weir_sql_session
 * whose relative 'path' options are read from the file's folder, and each
 * query's rows printed on standard output as they come.
 * SIGINT/SIGTERM stop it in every phase (signals.h): the file's read, the
 * statement being planned (weir_sql_cancel) and the running query. */
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <weir.h>

#include "message.h"
#include "signals.h"
#include "sql.h"

#define SQL_FILE_MAX (16u << 20)

static int usage(FILE *out)
{
    fprintf(out,
            "usage: weir sql [--check] [--capture FILE] [--workers N] FILE|-\n"
            "       weir sql [--check] [--capture FILE] [--workers N] -e 'STATEMENTS'\n"
            "Runs SQL statements (CREATE TABLE, CREATE VIEW, SET, SELECT, EXPLAIN) in\n"
            "order and prints each query's result as a changelog (+I[...], -U[...],\n"
            "+U[...], -D[...]). docs/SQL.md lists what weir's SQL supports.\n"
            "  --capture FILE   the diagnostic capture of each query (.msgpack or JSONL;\n"
            "                   the n-th query writes FILE-n.EXT; a link is written\n"
            "                   through, a pipe or a device gets each query's in place)\n"
            "  --workers N      worker threads of each query's job (default: the CPUs)\n"
            "  --check          plan every query, run none (exit 0 if all would run)\n"
            "Exit status: 0 ran, 1 a query failed while it ran or a file could not be\n"
            "read, 2 bad usage or a statement that cannot be run (FILE: line L,\n"
            "column C: what, on standard error).\n");
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

static void on_job(weir_job *job, void *arg)
{
    (void)arg;
    weir_cli_signals_job(job);
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

int weir_sql_main(int argc, char **argv)
{
    enum { O_CAPTURE = 256, O_WORKERS, O_CHECK, O_HELP };
    static const struct option longopts[] = {
        {"capture", required_argument, NULL, O_CAPTURE},
        {"check", no_argument, NULL, O_CHECK},
        {"workers", required_argument, NULL, O_WORKERS},
        {"help", no_argument, NULL, O_HELP},
        {NULL, 0, NULL, 0},
    };
    const char *capture = NULL, *inline_text = NULL;
    int workers = 0, c;
    bool check = false;
    optind = 1;
    while ((c = getopt_long(argc, argv, "+e:h", longopts, NULL)) != -1) {
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
        case 'e': inline_text = optarg; break;
        case O_CHECK: check = true; break;
        case 'h':
        case O_HELP: return usage(stdout);
        default: return usage(stderr);
        }
    }
    if (inline_text ? optind != argc : optind != argc - 1)
        return usage(stderr);
    const char *name = inline_text ? "-e" : strcmp(argv[optind], "-") == 0 ? "<stdin>"
                                                                          : argv[optind];
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
        FILE *in = strcmp(argv[optind], "-") == 0 ? stdin : fopen(argv[optind], "r");
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
            folder_of(argv[optind], dir, sizeof dir);
    }
    /* A UTF-8 byte order mark (editors on Windows write one) is not SQL:
     * the statements begin after it. */
    if (len >= 3 && memcmp(text, "\xEF\xBB\xBF", 3) == 0) {
        memmove(text, text + 3, len - 3 + 1);
        len -= 3;
    }
    int status = check_nul(text, len, name);
    weir_sql_session *s = NULL;
    weir_sql_config cfg = {.base_dir = dir, .capture_path = capture, .workers = workers,
                           .on_job = on_job, .plan_only = check};
    if (status == 0 && weir_sql_session_create(&cfg, &s)) {
        weir_tool_error("weir sql: out of memory");
        status = 1;
    }
    if (status == 0) {
        weir_cli_signals_sql(s);
        int r = weir_sql_execute(s, text, len);
        weir_cli_signals_sql(NULL);
        if (r == WEIR_ECANCELED && weir_cli_stopped())
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
