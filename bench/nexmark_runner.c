/* nexmark_runner.c — `weir-bench --nexmark LIST`: the Nexmark suite's
 * queries (bench/nexmark/qN.sql over bench/nexmark/nexmark.sql) run one
 * after the other in this process through weir's SQL (weir/sql.h), each to
 * the end of its events, with its wall time and the process's CPU time
 * (getrusage, user + system: cores × seconds, as Flink's Nexmark runner
 * counts cores), and its events per second per core beside Flink 1.13's
 * published figure (bench/README.md, "Nexmark").
 *
 * Each query gets a session of its own: the source table and the views
 * (nexmark.sql with ${EVENTS}, ${RATE} and ${SEED} replaced), then the
 * query's file (${OUT}: a fresh folder under $TMPDIR for q10's files and
 * q13's side input, removed after). The stateful queries run with
 * checkpoints (exactly-once, every --checkpoint-interval ms, 10 s by
 * default as the issue's targets say) into that folder too. q14's
 * count_char is a C scalar function registered here (weir/function.h).
 *
 * Queries weir cannot run yet are listed in `queries[]` with why
 * ("pending"): they are still tried, and reported as pending (with the
 * error they fail with, or the numbers if they now run, so that the entry
 * can go); their failure does not make the exit status 1. Any other query
 * that fails prints its error, the run goes on, and the exit status is 1.
 *
 * Only public headers: this is a user's program.
 */
#define _XOPEN_SOURCE 700 /* nftw */
#include <errno.h>
#include <ftw.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <weir.h>
#include <weir/nexmark.h>

#include "bench.h"
#include "report.h"

#ifndef WEIR_BENCH_NEXMARK_DIR
#define WEIR_BENCH_NEXMARK_DIR "bench/nexmark"
#endif

/* Flink's Nexmark runs its suite at 10 M events a second of event time
 * ('first-event.rate' = nexmark.workload.suite.100m.tps): the rate only
 * shapes the event times (how many events a window holds); the source is
 * not throttled ('rate.limited' is false), so it runs as fast as the
 * query takes events. */
#define NEXMARK_RATE 10000000
#define NEXMARK_SEED 42
#define NEXMARK_DEFAULT_EVENTS 1000000
#define NEXMARK_SIDE_INPUT_ROWS 10000

typedef struct nexmark_query {
    const char *name;
    /* Flink 1.13's published throughput per core (events/s; the Nexmark
     * project's table: 8 workers, 100 M events); 0: none (q6 does not run
     * on Flink, FLINK-19059). */
    double flink_per_core;
    /* It keeps state: run with checkpoints. */
    bool stateful;
    /* NULL: weir runs it; else why not yet (the query is still tried). */
    const char *pending;
} nexmark_query;

/* The one list of the queries, and of those weir does not run yet. */
static const nexmark_query queries[] = {
    {"q0", 155e3, false, NULL},
    {"q1", 158e3, false, NULL},
    {"q2", 175e3, false, NULL},
    {"q3", 152e3, true, NULL},
    {"q4", 34.3e3, true, NULL},
    {"q5", 22.1e3, true, NULL},
    {"q6", 0, true, NULL},
    {"q7", 12.3e3, true, NULL},
    {"q8", 146e3, true, NULL},
    {"q9", 14.2e3, true, NULL},
    {"q10", 57.8e3, false, NULL},
    {"q11", 39.7e3, true, NULL},
    {"q12", 75.7e3, true, NULL},
    {"q13", 131e3, false, NULL},
    {"q14", 161e3, false, NULL},
    {"q15", 72.4e3, true, NULL},
    {"q16", 18.7e3, true, NULL},
    {"q17", 117e3, true, NULL},
    {"q18", 53.7e3, true, NULL},
    {"q19", 44.0e3, true, NULL},
    {"q20", 19.0e3, true, NULL},
    {"q21", 98.5e3, false, NULL},
    {"q22", 130e3, false, NULL},
};
#define NQUERIES ((int)(sizeof queries / sizeof queries[0]))

typedef struct nx_options {
    bool selected[NQUERIES];
    int64_t events;
    int workers;            /* 0: the engine's default */
    int64_t checkpoint_ms;  /* 0: none */
    bool json, quiet;
    const char *capture;    /* per query: NAME-qN.EXT */
    const char *dir;        /* the SQL files */
} nx_options;

/* What one query's run measured. */
typedef struct nx_row {
    const nexmark_query *q;
    bool ran, failed;
    double seconds, cpu, cpu_other;
    int workers;
    int64_t checkpoints;
    char err[1024];
} nx_row;

/* ---- count_char: q14's scalar function ------------------------------------- */

/* count_char(s, c): how many times the first character of c occurs in s
 * (Flink's suite's CountChar: 0 for a NULL s). */
static int count_char(const weir_value *args, int nargs, weir_value *result,
                      weir_function_call *call)
{
    (void)nargs;
    if (args[1].len == 0)
        return weir_function_fail(call, WEIR_EINVAL, "no character to count (an empty string)");
    if (args[0].null) {
        result->i = 0;
        return 0;
    }
    /* The first UTF-8 character of c, whole: a match of its bytes in
     * valid UTF-8 starts at a character. */
    unsigned char lead = (unsigned char)args[1].s[0];
    uint32_t clen = lead < 0x80 ? 1 : lead < 0xE0 ? 2 : lead < 0xF0 ? 3 : 4;
    if (clen > args[1].len)
        clen = args[1].len;
    const char *s = args[0].s, *c = args[1].s;
    int64_t n = 0;
    if (clen == 1) {
        for (uint32_t i = 0; i < args[0].len; i++)
            n += s[i] == c[0];
    } else {
        for (uint32_t i = 0; i + clen <= args[0].len; i++) {
            if (memcmp(s + i, c, clen) == 0) {
                n++;
                i += clen - 1;
            }
        }
    }
    result->i = n;
    return 0;
}

static int register_count_char(char *err, size_t errsize)
{
    static const weir_type args[] = {{.id = WEIR_TYPE_VARCHAR},
                                     {.id = WEIR_TYPE_VARCHAR, .not_null = true}};
    return weir_function_register_scalar(
        &(weir_scalar_function){.name = "count_char", .nargs = 2, .arg_types = args,
                                .result_type = {.id = WEIR_TYPE_BIGINT, .not_null = true},
                                .eval = count_char},
        err, errsize);
}

/* ---- files ------------------------------------------------------------------ */

/* The whole of `path`, NUL-terminated; NULL with why in err. */
static char *read_text(const char *path, char *err, size_t errsize)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(err, errsize, "%.900s: cannot open: %s", path, strerror(errno));
        return NULL;
    }
    size_t cap = 8192, n = 0;
    char *buf = malloc(cap);
    while (buf) {
        n += fread(buf + n, 1, cap - n - 1, f);
        if (ferror(f)) {
            snprintf(err, errsize, "%.900s: cannot read: %s", path, strerror(errno));
            free(buf);
            fclose(f);
            return NULL;
        }
        if (feof(f))
            break;
        char *b = realloc(buf, cap * 2);
        if (!b) {
            free(buf);
            buf = NULL;
            break;
        }
        buf = b;
        cap *= 2;
    }
    fclose(f);
    if (!buf) {
        snprintf(err, errsize, "%.900s: out of memory", path);
        return NULL;
    }
    buf[n] = '\0';
    return buf;
}

/* A growing string. */
typedef struct text {
    char *s;
    size_t len, cap;
    bool oom;
} text;

static void text_add(text *t, const char *s, size_t n)
{
    if (t->oom)
        return;
    if (t->len + n + 1 > t->cap) {
        size_t cap = t->cap ? t->cap : 4096;
        while (t->len + n + 1 > cap)
            cap *= 2;
        char *b = realloc(t->s, cap);
        if (!b) {
            t->oom = true;
            return;
        }
        t->s = b;
        t->cap = cap;
    }
    memcpy(t->s + t->len, s, n);
    t->len += n;
    t->s[t->len] = '\0';
}

typedef struct placeholder {
    const char *name;
    const char *value;
} placeholder;

/* Appends `in` (read from `file`) to t with every ${NAME} replaced by its
 * value; an unknown one is an error at its line. */
static int substitute(text *t, const char *in, const char *file, const placeholder *ph, int nph,
                      char *err, size_t errsize)
{
    const char *p = in;
    for (const char *d; (d = strstr(p, "${"));) {
        text_add(t, p, (size_t)(d - p));
        const char *end = strchr(d, '}');
        int i = 0;
        for (; end && i < nph; i++) {
            if (strlen(ph[i].name) == (size_t)(end - d - 2) &&
                memcmp(d + 2, ph[i].name, (size_t)(end - d - 2)) == 0)
                break;
        }
        if (!end || i == nph) {
            int line = 1;
            for (const char *q = in; q < d; q++)
                line += *q == '\n';
            snprintf(err, errsize, "%s: line %d: an unknown placeholder '%.*s'", file, line,
                     end ? (int)(end - d + 1) : 2, d);
            return -1;
        }
        text_add(t, ph[i].value, strlen(ph[i].value));
        p = end + 1;
    }
    text_add(t, p, strlen(p));
    return 0;
}

static int remove_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)sb;
    (void)flag;
    (void)ftw;
    remove(path);
    return 0;
}

static void remove_tree(const char *dir)
{
    nftw(dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* q13's side input: key 0..9999 and a value, as CSV. */
static int write_side_input(const char *out_dir, char *err, size_t errsize)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/side_input.csv", out_dir);
    FILE *f = fopen(path, "w");
    if (!f) {
        snprintf(err, errsize, "%.900s: cannot create: %s", path, strerror(errno));
        return -1;
    }
    for (int k = 0; k < NEXMARK_SIDE_INPUT_ROWS; k++)
        fprintf(f, "%d,side-%d\n", k, k);
    if (fclose(f) != 0) {
        snprintf(err, errsize, "%.900s: cannot write: %s", path, strerror(errno));
        return -1;
    }
    return 0;
}

/* The capture of query q: FILE-qN.EXT of --capture FILE (a FIFO or a
 * device takes each query's in place). */
static void capture_path(const char *capture, const char *q, char *out, size_t size)
{
    struct stat st;
    if (stat(capture, &st) == 0 && (S_ISFIFO(st.st_mode) || S_ISCHR(st.st_mode))) {
        snprintf(out, size, "%s", capture);
        return;
    }
    const char *slash = strrchr(capture, '/');
    const char *dot = strrchr(slash ? slash + 1 : capture, '.');
    if (!dot || dot == (slash ? slash + 1 : capture))
        snprintf(out, size, "%s-%s", capture, q);
    else
        snprintf(out, size, "%.*s-%s%s", (int)(dot - capture), capture, q, dot);
}

/* ---- one query ------------------------------------------------------------ */

/* Times the job's run alone: on_job is called with the job before it runs
 * and with NULL after. */
typedef struct run_timer {
    weir_job *job;
    bench_timer t;
    bench_result res;
    int workers;
    int64_t checkpoints;
    int jobs;
} run_timer;

static void on_job(weir_job *job, void *arg)
{
    run_timer *rt = arg;
    if (job) {
        rt->job = job;
        rt->jobs++;
        rt->workers = weir_job_get_config(job)->workers;
        bench_timer_start(&rt->t);
        return;
    }
    bench_timer_stop(&rt->t, &rt->res);
    weir_checkpoint_stats cs;
    if (rt->job && weir_job_checkpoint_stats(rt->job, &cs) == 0)
        rt->checkpoints = cs.completed;
    rt->job = NULL;
}

static void run_query(const nx_options *o, const char *source_sql, nx_row *row)
{
    const nexmark_query *q = row->q;
    row->ran = true;
    char path[4200], tmpl[4200];
    const char *tmp = getenv("TMPDIR");
    snprintf(tmpl, sizeof tmpl, "%s/weir-nexmark-%s-XXXXXX", tmp && *tmp ? tmp : "/tmp", q->name);
    if (!mkdtemp(tmpl)) {
        row->failed = true;
        snprintf(row->err, sizeof row->err, "cannot make a folder %.900s: %s", tmpl,
                 strerror(errno));
        return;
    }
    snprintf(path, sizeof path, "%s/%s.sql", o->dir, q->name);
    char *query_sql = read_text(path, row->err, sizeof row->err);
    text t = {0};
    char events[32], rate[32], seed[32], chk[64];
    snprintf(events, sizeof events, "%lld", (long long)o->events);
    snprintf(rate, sizeof rate, "%d", NEXMARK_RATE);
    snprintf(seed, sizeof seed, "%d", NEXMARK_SEED);
    const placeholder ph[] = {
        {"EVENTS", events}, {"RATE", rate}, {"SEED", seed}, {"OUT", tmpl}};
    int nph = (int)(sizeof ph / sizeof ph[0]);
    weir_sql_session *s = NULL;
    run_timer rt = {0};
    if (!query_sql)
        goto failed;
    if (q->stateful && o->checkpoint_ms > 0) {
        snprintf(chk, sizeof chk, "%lld ms", (long long)o->checkpoint_ms);
        text_add(&t, "SET 'execution.checkpointing.interval' = '", 42);
        text_add(&t, chk, strlen(chk));
        text_add(&t, "';\nSET 'execution.checkpointing.mode' = 'EXACTLY_ONCE';\n", 56);
        text_add(&t, "SET 'state.checkpoints.dir' = '", 31);
        text_add(&t, tmpl, strlen(tmpl));
        text_add(&t, "/checkpoints';\n", 15);
    }
    char source_name[4200];
    snprintf(source_name, sizeof source_name, "%s/nexmark.sql", o->dir);
    if (substitute(&t, source_sql, source_name, ph, nph, row->err, sizeof row->err) < 0)
        goto failed;
    text_add(&t, "\n", 1);
    int query_line = 1; /* the line of the text where qN.sql begins */
    for (size_t i = 0; i < t.len; i++)
        query_line += t.s[i] == '\n';
    int set_lines = q->stateful && o->checkpoint_ms > 0 ? 3 : 0;
    if (substitute(&t, query_sql, path, ph, nph, row->err, sizeof row->err) < 0)
        goto failed;
    if (t.oom) {
        snprintf(row->err, sizeof row->err, "out of memory");
        goto failed;
    }
    if (write_side_input(tmpl, row->err, sizeof row->err) < 0)
        goto failed;
    char cap[4200];
    if (o->capture)
        capture_path(o->capture, q->name, cap, sizeof cap);
    weir_sql_config cfg = {.base_dir = tmpl, .workers = o->workers, .on_job = on_job,
                           .on_job_arg = &rt, .capture_path = o->capture ? cap : NULL};
    int r = weir_sql_session_create(&cfg, &s);
    if (r) {
        snprintf(row->err, sizeof row->err, "weir_sql_session_create: %s", weir_strerror(r));
        goto failed;
    }
    r = weir_sql_execute(s, t.s, t.len);
    if (r) {
        /* "line L, column C: ..." of the text: said of the file it is in */
        const char *e = weir_sql_error(s);
        int line, column, at = 0;
        if (sscanf(e, "line %d, column %d:%n", &line, &column, &at) == 2 && at > 0) {
            if (line >= query_line)
                snprintf(row->err, sizeof row->err, "%s.sql: line %d, column %d:%s", q->name,
                         line - query_line + 1, column, e + at);
            else if (line > set_lines)
                snprintf(row->err, sizeof row->err, "nexmark.sql: line %d, column %d:%s",
                         line - set_lines, column, e + at);
            else
                snprintf(row->err, sizeof row->err, "the checkpoint settings: %s", e);
        } else {
            snprintf(row->err, sizeof row->err, "%s", e);
        }
        goto failed;
    }
    if (rt.jobs != 1) {
        snprintf(row->err, sizeof row->err, "%d jobs ran, not the one INSERT's", rt.jobs);
        goto failed;
    }
    row->seconds = rt.res.seconds;
    row->cpu = rt.res.cpu_self;
    row->cpu_other = rt.res.cpu_other;
    row->workers = rt.workers;
    row->checkpoints = rt.checkpoints;
    goto done;
failed:
    row->failed = true;
done:
    weir_sql_session_destroy(s);
    free(query_sql);
    free(t.s);
    remove_tree(tmpl);
}

/* ---- the report ------------------------------------------------------------ */

static double per_core(const nx_row *r, int64_t events)
{
    return r->cpu > 0 ? (double)events / r->cpu : NAN;
}

static void print_table(FILE *out, const nx_options *o, const nx_row *rows, int n,
                        double load_before, double load_after)
{
    fprintf(out, "Nexmark: %lld events a query (rate %d/s of event time, seed %d), ",
            (long long)o->events, NEXMARK_RATE, NEXMARK_SEED);
    if (o->workers > 0)
        fprintf(out, "%d workers, ", o->workers);
    else
        fprintf(out, "the default workers, ");
    if (o->checkpoint_ms > 0)
        fprintf(out, "checkpoints every %lld ms on the stateful queries (*)\n",
                (long long)o->checkpoint_ms);
    else
        fprintf(out, "no checkpoints\n");
    fprintf(out, "load average %.2f before, %.2f after; per core = events / CPU seconds "
            "(user + system of the process)\n\n", load_before, load_after);
    fprintf(out, "%-5s %10s %8s %8s %6s %12s %12s %12s %8s %5s\n", "query", "events", "seconds",
            "CPU s", "other", "events/s", "per core", "Flink/core", "x Flink", "chk");
    for (int i = 0; i < n; i++) {
        const nx_row *r = &rows[i];
        char name[16];
        snprintf(name, sizeof name, "%s%s", r->q->name,
                 r->q->stateful && o->checkpoint_ms > 0 ? "*" : "");
        if (r->failed) {
            if (r->q->pending)
                fprintf(out, "%-5s pending: %s (now: %s)\n", name, r->q->pending, r->err);
            else
                fprintf(out, "%-5s FAILED: %s\n", name, r->err);
            continue;
        }
        double pc = per_core(r, o->events);
        char flink[32] = "-", ratio[32] = "-";
        if (r->q->flink_per_core > 0) {
            snprintf(flink, sizeof flink, "%.1f K", r->q->flink_per_core / 1e3);
            snprintf(ratio, sizeof ratio, "%.1f", pc / r->q->flink_per_core);
        }
        fprintf(out, "%-5s %10lld %8.3f %8.3f %6.2f %10.0f K %10.0f K %12s %8s %5lld%s\n", name,
                (long long)o->events, r->seconds, r->cpu, r->cpu_other,
                (double)o->events / r->seconds / 1e3, pc / 1e3, flink, ratio,
                (long long)r->checkpoints,
                r->q->pending ? "  (pending, but it ran: take it off the list)" : "");
    }
}

static void json_string(FILE *out, const char *s)
{
    fputc('"', out);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            fprintf(out, "\\%c", c);
        else if (c < 0x20)
            fprintf(out, "\\u%04x", c);
        else
            fputc(c, out);
    }
    fputc('"', out);
}

static void print_json(FILE *out, const nx_options *o, const nx_row *rows, int n)
{
    for (int i = 0; i < n; i++) {
        const nx_row *r = &rows[i];
        char name[32];
        snprintf(name, sizeof name, "nexmark-%s", r->q->name);
        fprintf(out, "{\"scenario\":");
        json_string(out, name);
        fprintf(out, ",\"workers\":%d,\"records\":%lld", r->workers, (long long)o->events);
        if (r->q->pending) {
            fprintf(out, ",\"pending\":");
            json_string(out, r->q->pending);
        }
        if (r->failed) {
            fprintf(out, ",\"error\":");
            json_string(out, r->err);
            fprintf(out, "}\n");
            continue;
        }
        double pc = per_core(r, o->events);
        fprintf(out,
                ",\"seconds\":%.4f,\"cpu_seconds\":%.4f,\"cpu_self\":%.3f,\"cpu_other\":%.3f,"
                "\"records_per_s\":%.0f,\"records_per_s_per_core\":%.0f",
                r->seconds, r->cpu, r->cpu / r->seconds, r->cpu_other / r->seconds,
                (double)o->events / r->seconds, pc);
        if (r->q->flink_per_core > 0)
            fprintf(out, ",\"flink_per_core\":%.0f,\"ratio_to_flink\":%.4f",
                    r->q->flink_per_core, pc / r->q->flink_per_core);
        fprintf(out, ",\"stateful\":%s", r->q->stateful ? "true" : "false");
        if (r->q->stateful && o->checkpoint_ms > 0)
            fprintf(out, ",\"checkpoint_interval_ms\":%lld,\"checkpoints\":%lld",
                    (long long)o->checkpoint_ms, (long long)r->checkpoints);
        fprintf(out, "}\n");
    }
}

/* ---- options ---------------------------------------------------------------- */

static void usage(FILE *out)
{
    fprintf(out,
            "usage: weir-bench --nexmark [LIST|all] [options]\n"
            "\n"
            "Runs Nexmark queries (bench/nexmark/qN.sql) in weir's SQL, each to the end of its\n"
            "events, and prints per query its wall and CPU seconds, events/s, events/s per\n"
            "core (events / CPU seconds of the process) and Flink 1.13's published figure\n"
            "per core with the ratio. LIST: q0,q5,... (default all).\n"
            "\n"
            "options:\n"
            "  --events N               events of the source per query (default %d)\n"
            "  --workers N              worker threads of each query's job (default: the CPUs)\n"
            "  --checkpoint-interval MS checkpoints of the stateful queries, exactly-once\n"
            "                           (default 10000; 0: none)\n"
            "  --capture FILE           each query's diagnostic capture, FILE-qN.EXT\n"
            "  --nexmark-dir DIR        where nexmark.sql and qN.sql are (default the\n"
            "                           source tree's bench/nexmark)\n"
            "  --json                   one JSON object a query instead of the table\n"
            "  --quiet                  no progress on stderr\n"
            "  --help                   this text\n"
            "\n"
            "Queries weir does not run yet are tried and reported as pending, with why.\n"
            "Exit status: 0; 1 if a query (not a pending one) failed; 2 for bad usage.\n",
            NEXMARK_DEFAULT_EVENTS);
}

static int select_queries(nx_options *o, const char *list)
{
    if (strcmp(list, "all") == 0) {
        for (int i = 0; i < NQUERIES; i++)
            o->selected[i] = true;
        return 0;
    }
    char buf[512];
    snprintf(buf, sizeof buf, "%s", list);
    char *save = NULL;
    int n = 0;
    for (char *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        int i = 0;
        while (i < NQUERIES && strcmp(queries[i].name, tok) != 0)
            i++;
        if (i == NQUERIES) {
            fprintf(stderr, "weir-bench: --nexmark: no query '%s' (q0 to q22, or all)\n", tok);
            return -1;
        }
        o->selected[i] = true;
        n++;
    }
    if (n == 0) {
        fprintf(stderr, "weir-bench: --nexmark: no query named\n");
        return -1;
    }
    return 0;
}

static int parse_count(const char *s, int64_t min, int64_t max, int64_t *out)
{
    char *end;
    errno = 0;
    double d = strtod(s, &end); /* 1e6 too */
    if (errno || end == s || *end || d < (double)min || d > (double)max ||
        d != (double)(int64_t)d)
        return -1;
    *out = (int64_t)d;
    return 0;
}

static int parse(int argc, char **argv, nx_options *o)
{
    enum { O_NEXMARK = 256, O_EVENTS, O_WORKERS, O_CHK, O_CAPTURE, O_DIR, O_JSON, O_QUIET,
           O_HELP };
    static const struct option longopts[] = {
        {"nexmark", optional_argument, NULL, O_NEXMARK},
        {"events", required_argument, NULL, O_EVENTS},
        {"workers", required_argument, NULL, O_WORKERS},
        {"checkpoint-interval", required_argument, NULL, O_CHK},
        {"capture", required_argument, NULL, O_CAPTURE},
        {"nexmark-dir", required_argument, NULL, O_DIR},
        {"json", no_argument, NULL, O_JSON},
        {"quiet", no_argument, NULL, O_QUIET},
        {"help", no_argument, NULL, O_HELP},
        {NULL, 0, NULL, 0},
    };
    *o = (nx_options){.events = NEXMARK_DEFAULT_EVENTS, .checkpoint_ms = 10000,
                      .dir = WEIR_BENCH_NEXMARK_DIR};
    const char *list = NULL;
    int c;
    int64_t v;
    optind = 1;
    while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
        switch (c) {
        case O_NEXMARK:
            /* --nexmark LIST as well as --nexmark=LIST */
            if (optarg)
                list = optarg;
            else if (optind < argc && argv[optind][0] != '-')
                list = argv[optind++];
            break;
        case O_EVENTS:
            if (parse_count(optarg, 1, INT64_C(1) << 40, &o->events) < 0)
                goto bad;
            break;
        case O_WORKERS:
            if (parse_count(optarg, 1, 256, &v) < 0)
                goto bad;
            o->workers = (int)v;
            break;
        case O_CHK:
            if (parse_count(optarg, 0, INT64_C(1) << 40, &v) < 0 || (v > 0 && v < 10))
                goto bad;
            o->checkpoint_ms = v;
            break;
        case O_CAPTURE: o->capture = optarg; break;
        case O_DIR: o->dir = optarg; break;
        case O_JSON: o->json = true; break;
        case O_QUIET: o->quiet = true; break;
        case 'h':
        case O_HELP: usage(stdout); exit(0);
        default: usage(stderr); return -1;
        }
    }
    if (optind < argc) {
        fprintf(stderr, "weir-bench: --nexmark: unexpected argument '%s'\n", argv[optind]);
        usage(stderr);
        return -1;
    }
    return select_queries(o, list ? list : "all");
bad:
    fprintf(stderr, "weir-bench: bad value for --%s: '%s'%s\n", longopts[c - O_NEXMARK].name,
            optarg, c == O_CHK ? " (0, or at least 10 ms)" : "");
    usage(stderr);
    return -1;
}

int bench_nexmark_main(int argc, char **argv)
{
    nx_options o;
    if (parse(argc, argv, &o) < 0)
        return 2;
    char err[1024];
    if (register_count_char(err, sizeof err) != 0 || weir_file_register_connectors() != 0 ||
        weir_nexmark_register_connectors() != 0) {
        fprintf(stderr, "weir-bench: registering count_char and the connectors: %s\n",
                err[0] ? err : "failed");
        return 1;
    }
    char path[4200];
    snprintf(path, sizeof path, "%s/nexmark.sql", o.dir);
    char *source_sql = read_text(path, err, sizeof err);
    if (!source_sql) {
        fprintf(stderr, "weir-bench: %s (--nexmark-dir names the folder of nexmark.sql)\n", err);
        return 1;
    }
    nx_row rows[NQUERIES];
    int n = 0;
    double load_before = bench_loadavg();
    for (int i = 0; i < NQUERIES; i++) {
        if (!o.selected[i])
            continue;
        nx_row *r = &rows[n++];
        *r = (nx_row){.q = &queries[i]};
        if (!o.quiet)
            fprintf(stderr, "weir-bench: nexmark %s ...", queries[i].name);
        run_query(&o, source_sql, r);
        if (o.quiet)
            continue;
        if (r->failed)
            fprintf(stderr, " %s: %s\n", queries[i].pending ? "pending" : "FAILED", r->err);
        else
            fprintf(stderr, " %.2f s, %.2f CPU s, %.0f K events/s per core\n", r->seconds,
                    r->cpu, per_core(r, o.events) / 1e3);
    }
    double load_after = bench_loadavg();
    if (o.json)
        print_json(stdout, &o, rows, n);
    else
        print_table(stdout, &o, rows, n, load_before, load_after);
    free(source_sql);
    int status = 0;
    for (int i = 0; i < n; i++) {
        if (rows[i].failed && !rows[i].q->pending)
            status = 1;
    }
    return status;
}
