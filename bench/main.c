/* main.c — weir-bench: runs the selected scenarios and reports records/s.
 *
 * For every selected scenario and every parallelism (a row) it runs one
 * warm-up run (checked, not measured) and then --reps measured runs, each a
 * fresh job timed around weir_job_run() alone, in rounds: every row once per
 * round. The row's number is the median of the repetitions' records/s
 * (records / seconds) and its spread is (max - min) / median. Baselines named by a selected scenario are run too,
 * in the same invocation, so every ratio compares numbers measured minutes
 * apart on the same machine. Nothing is special-cased per scenario here:
 * every row goes through the same loop.
 *
 * Progress goes to stderr; the table (or JSON lines) to stdout.
 */
#include <errno.h>
#include <fnmatch.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"
#include "report.h"

#define MAX_SCENARIOS 256
#define MAX_PARALLELISM_LIST 16
#define MAX_SELECT 64

typedef struct options {
    bool quick, json, quiet, check, list, plist_given, rate_given;
    int64_t soak_seconds; /* --soak / --soak-seconds; 0: the scenarios */
    int plist[MAX_PARALLELISM_LIST];
    int np;
    int workers;     /* -1: each scenario's default */
    int64_t records; /* 0: each scenario's default */
    int reps;        /* 0: 5, or 3 with --quick */
    double rate;
    int batch;
    const char *svg;
    const char *select[MAX_SELECT];
    int nselect;
} options;

static const bench_scenario *table[MAX_SCENARIOS];
static int ntable;

static void build_table(void)
{
#define BENCH_ADD_FILE(f)                                                                        \
    for (size_t i = 0; i < bench_nscenarios_##f && ntable < MAX_SCENARIOS; i++)                  \
        table[ntable++] = &bench_scenarios_##f[i];
    BENCH_SCENARIO_FILES(BENCH_ADD_FILE)
#undef BENCH_ADD_FILE
}

static void usage(FILE *out)
{
    fprintf(out,
            "usage: weir-bench [options]\n"
            "\n"
            "Runs weir's throughput benchmarks: each scenario, at each parallelism, one\n"
            "warm-up run and then N measured runs (a fresh job each, timed around\n"
            "weir_job_run only). Reports the median records/s, the spread\n"
            "(max - min) / median, and ratios against the plain-C baselines measured in\n"
            "the same invocation. Every run checks that the sinks received every record\n"
            "(count and checksum); a run that loses records fails the benchmark.\n"
            "\n"
            "options:\n"
            "  --quick              fewer records and 3 reps: the whole set in under a minute\n"
            "  --scenario NAME      run only NAME (repeatable, or a comma list). An exact name,\n"
            "                       else a prefix (\"latency\" selects latency-*), or a glob\n"
            "                       (\"*-10ms\"). Baselines of selected scenarios run too.\n"
            "  --parallelism LIST   parallelisms to run, e.g. 1,2,4 (default 1,2,4; paced\n"
            "                       latency scenarios default to 1; fixed ones ignore it)\n"
            "  --workers N          worker threads (default: the number of CPUs; channel: 2)\n"
            "  --records N          records per run for every scenario (default per scenario)\n"
            "  --reps N             measured repetitions (default 5, --quick 3)\n"
            "  --rate N             records/s of the paced latency source (default 100000;\n"
            "                       the *-load50 and *-load90 rows pace at a share of their peak)\n"
            "  --batch N            the job's batch_capacity (default: the engine's, 512)\n"
            "  --json               one JSON object a line instead of the table\n"
            "  --svg FILE           also write records/s against parallelism as an SVG plot\n"
            "  --check              exit 1 if a target is missed\n"
            "  --list               list the scenarios and exit\n"
            "  --quiet              no progress on stderr\n"
            "  --soak MINUTES       instead of the scenarios: one windowed, keyed pipeline\n"
            "                       with diagnostics for MINUTES, paced at --rate (default\n"
            "                       1000000 records/s) at the first --parallelism (default 2);\n"
            "                       checks count and checksum, and that RSS stays flat\n"
            "  --soak-seconds N     the same for N seconds\n"
            "  --nexmark [LIST|all] instead of the scenarios: the Nexmark queries in weir's\n"
            "                       SQL (--nexmark --help lists their options)\n"
            "  --help               this text\n"
            "\n"
            "Exit status: 0, or 1 if a run failed (an engine error, lost or corrupted\n"
            "records) or, with --check, a target was missed; 2 for bad usage.\n"
            "bench/README.md explains every scenario, number and target.\n");
}

static void list_scenarios(FILE *out)
{
    for (int i = 0; i < ntable; i++) {
        const bench_scenario *sc = table[i];
        fprintf(out, "%-24s %s", sc->name, sc->what);
        if (sc->baseline)
            fprintf(out, " [baseline: %s]", sc->baseline);
        fputc('\n', out);
    }
}

static int parse_int64(const char *s, int64_t min, int64_t max, int64_t *out)
{
    char *end;
    errno = 0;
    /* Accepts 1e6-style numbers too: records are often written that way. */
    double d = strtod(s, &end);
    if (errno || end == s || *end != '\0' || d < (double)min || d > (double)max ||
        d != (double)(int64_t)d)
        return -1;
    *out = (int64_t)d;
    return 0;
}

static int parse_plist(options *o, const char *arg)
{
    char buf[256];
    snprintf(buf, sizeof buf, "%s", arg);
    char *save = NULL;
    for (char *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        int64_t v;
        if (o->np == MAX_PARALLELISM_LIST || parse_int64(tok, 1, WEIR_MAX_PARALLELISM, &v) < 0)
            return -1;
        o->plist[o->np++] = (int)v;
    }
    o->plist_given = true;
    return o->np > 0 ? 0 : -1;
}

static int parse_select(options *o, char *arg)
{
    char *save = NULL;
    for (char *tok = strtok_r(arg, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        if (o->nselect == MAX_SELECT)
            return -1;
        o->select[o->nselect++] = tok;
    }
    return 0;
}

static int parse_options(int argc, char **argv, options *o)
{
    enum { O_QUICK = 256, O_SCENARIO, O_PAR, O_WORKERS, O_RECORDS, O_REPS, O_RATE, O_BATCH,
           O_JSON, O_SVG, O_CHECK, O_LIST, O_QUIET, O_SOAK, O_SOAK_SECONDS, O_HELP };
    static const struct option longopts[] = {
        {"quick", no_argument, NULL, O_QUICK},
        {"scenario", required_argument, NULL, O_SCENARIO},
        {"parallelism", required_argument, NULL, O_PAR},
        {"workers", required_argument, NULL, O_WORKERS},
        {"records", required_argument, NULL, O_RECORDS},
        {"reps", required_argument, NULL, O_REPS},
        {"rate", required_argument, NULL, O_RATE},
        {"batch", required_argument, NULL, O_BATCH},
        {"json", no_argument, NULL, O_JSON},
        {"svg", required_argument, NULL, O_SVG},
        {"check", no_argument, NULL, O_CHECK},
        {"list", no_argument, NULL, O_LIST},
        {"quiet", no_argument, NULL, O_QUIET},
        {"soak", required_argument, NULL, O_SOAK},
        {"soak-seconds", required_argument, NULL, O_SOAK_SECONDS},
        {"help", no_argument, NULL, O_HELP},
        {NULL, 0, NULL, 0},
    };
    *o = (options){.workers = -1, .rate = 100000};
    int c;
    int64_t v;
    while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
        switch (c) {
        case O_QUICK: o->quick = true; break;
        case O_SCENARIO:
            if (parse_select(o, optarg) < 0)
                goto bad;
            break;
        case O_PAR:
            if (parse_plist(o, optarg) < 0)
                goto bad;
            break;
        case O_WORKERS:
            if (parse_int64(optarg, 1, 256, &v) < 0)
                goto bad;
            o->workers = (int)v;
            break;
        case O_RECORDS:
            if (parse_int64(optarg, 1, INT64_C(1) << 40, &o->records) < 0)
                goto bad;
            break;
        case O_REPS:
            if (parse_int64(optarg, 1, BENCH_MAX_REPS, &v) < 0)
                goto bad;
            o->reps = (int)v;
            break;
        case O_RATE:
            if (parse_int64(optarg, 1, INT64_C(1) << 32, &v) < 0)
                goto bad;
            o->rate = (double)v;
            o->rate_given = true;
            break;
        case O_BATCH:
            if (parse_int64(optarg, 1, 65536, &v) < 0)
                goto bad;
            o->batch = (int)v;
            break;
        case O_JSON: o->json = true; break;
        case O_SVG: o->svg = optarg; break;
        case O_CHECK: o->check = true; break;
        case O_LIST: o->list = true; break;
        case O_QUIET: o->quiet = true; break;
        case O_SOAK:
        case O_SOAK_SECONDS:
            /* At most a day: the generator's idle spans cover 16 minutes. */
            if (parse_int64(optarg, 1, c == O_SOAK ? 24 * 60 : 24 * 3600, &v) < 0)
                goto bad;
            o->soak_seconds = c == O_SOAK ? v * 60 : v;
            break;
        case 'h':
        case O_HELP: usage(stdout); exit(0);
        default: goto usage;
        }
    }
    if (optind < argc) {
        fprintf(stderr, "weir-bench: unexpected argument '%s'\n", argv[optind]);
        goto usage;
    }
    if (o->np == 0) {
        o->plist[0] = 1, o->plist[1] = 2, o->plist[2] = 4;
        o->np = 3;
    }
    if (o->reps == 0)
        o->reps = o->quick ? 3 : 5;
    return 0;
bad:
    fprintf(stderr, "weir-bench: bad value for --%s: '%s'\n", longopts[c - O_QUICK].name, optarg);
usage:
    usage(stderr);
    return -1;
}

static int find(const char *name)
{
    for (int i = 0; i < ntable; i++) {
        if (strcmp(table[i]->name, name) == 0)
            return i;
    }
    return -1;
}

/* Marks what a token selects: an exact name, else a glob if it has glob
 * characters, else every name it is a prefix of. Returns how many. */
static int select_token(const char *tok, bool *sel)
{
    int i = find(tok);
    if (i >= 0) {
        sel[i] = true;
        return 1;
    }
    int n = 0;
    bool glob = strpbrk(tok, "*?[") != NULL;
    for (i = 0; i < ntable; i++) {
        if (glob ? fnmatch(tok, table[i]->name, 0) == 0
                 : strncmp(tok, table[i]->name, strlen(tok)) == 0) {
            sel[i] = true;
            n++;
        }
    }
    return n;
}

static int select_scenarios(const options *o, bool *sel)
{
    for (int i = 0; i < ntable; i++)
        sel[i] = o->nselect == 0;
    for (int k = 0; k < o->nselect; k++) {
        if (select_token(o->select[k], sel) == 0) {
            fprintf(stderr, "weir-bench: no scenario matches '%s'; the scenarios are:\n",
                    o->select[k]);
            list_scenarios(stderr);
            return -1;
        }
    }
    /* A ratio needs its baseline measured in the same invocation, and a
     * baseline may have one of its own (diag-chain-standard -> diag-chain-off -> chain -> plain-chain). */
    for (bool changed = true; changed;) {
        changed = false;
        for (int i = 0; i < ntable; i++) {
            if (!sel[i] || !table[i]->baseline)
                continue;
            int b = find(table[i]->baseline);
            if (b < 0) {
                fprintf(stderr, "weir-bench: scenario %s names an unknown baseline %s\n",
                        table[i]->name, table[i]->baseline);
                return -1;
            }
            if (sel[b])
                continue;
            if (!o->quiet)
                fprintf(stderr, "weir-bench: also running %s, the baseline of %s\n",
                        table[b]->name, table[i]->name);
            sel[b] = true;
            changed = true;
        }
    }
    return 0;
}

/* The parallelisms a scenario runs at. */
static int plist_for(const options *o, const bench_scenario *sc, int *out)
{
    if (sc->parallelism > 0 || (sc->flags & BENCH_PLAIN)) {
        out[0] = sc->parallelism > 0 ? sc->parallelism : 1;
        return 1;
    }
    if ((sc->flags & BENCH_LATENCY) && !o->plist_given) {
        out[0] = 1;
        return 1;
    }
    memcpy(out, o->plist, (size_t)o->np * sizeof *out);
    return o->np;
}

static bool progress_tty;

static void progress(const options *o, const char *fmt, ...) WEIR_PRINTF(2, 3);
static void progress(const options *o, const char *fmt, ...)
{
    if (o->quiet || !progress_tty)
        return;
    va_list ap;
    va_start(ap, fmt);
    fputs("\r\033[K", stderr);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fflush(stderr);
}

/* Per-row scratch while the rounds run. */
typedef struct row_run {
    bench_params params;
    double *p50, *p99, *pmax; /* per measured repetition */
    double wall, self, other;
} row_run;

static int row_start(const options *o, bench_row *row, row_run *rr)
{
    const bench_scenario *sc = row->sc;
    /* a load row's pace is set from its baseline (set_load_paces) */
    if (sc->load <= 0)
        row->rate = (sc->flags & BENCH_LATENCY) ? o->rate : 0;
    rr->params = (bench_params){
        .parallelism = row->parallelism,
        .workers = o->workers > 0 ? o->workers : sc->workers,
        .records = row->records,
        .rate = row->rate,
        .batch = o->batch,
    };
    row->rates = calloc((size_t)o->reps, sizeof *row->rates);
    row->cpu_runs = calloc((size_t)o->reps, sizeof *row->cpu_runs);
    row->cpu_recs = calloc((size_t)o->reps, sizeof *row->cpu_recs);
    rr->p50 = calloc((size_t)o->reps, sizeof *rr->p50);
    rr->p99 = calloc((size_t)o->reps, sizeof *rr->p99);
    rr->pmax = calloc((size_t)o->reps, sizeof *rr->pmax);
    if (!row->rates || !row->cpu_runs || !row->cpu_recs || !rr->p50 || !rr->p99 ||
        !rr->pmax) {
        row->failed = true;
        snprintf(row->err, sizeof row->err, "out of memory");
        return -1;
    }
    return 0;
}

/* One run of a row: rep -1 is the warm-up, checked but not measured. */
static void row_once(bench_row *row, row_run *rr, int rep)
{
    const bench_scenario *sc = row->sc;
    bench_result res = {0};
    if (sc->run(sc, &rr->params, &res, row->err, sizeof row->err) < 0) {
        row->failed = true;
        return;
    }
    row->workers = res.workers;
    row->diag_events = res.diag_events;
    if (rep < 0)
        return;
    row->checkpoints += res.checkpoints;
    if (res.chk_bytes > row->chk_max_bytes)
        row->chk_max_bytes = res.chk_bytes;
    if (res.chk_max_align_ms > row->chk_max_align_ms)
        row->chk_max_align_ms = res.chk_max_align_ms;
    row->rates[rep] = (double)row->records / res.seconds;
    row->cpu_runs[rep] = res.cpu_self;
    row->cpu_recs[rep] = (res.cpu_self - res.cpu_client) / (double)row->records;
    rr->wall += res.seconds;
    rr->self += res.cpu_self;
    rr->other += res.cpu_other;
    rr->p50[rep] = res.p50_us;
    rr->p99[rep] = res.p99_us;
    rr->pmax[rep] = res.max_us;
    row->reps = rep + 1;
}

static void row_finish(const options *o, bench_row *row, row_run *rr)
{
    const bench_scenario *sc = row->sc;
    if (!row->failed && row->reps > 0) {
        double tmp[BENCH_MAX_REPS];
        memcpy(tmp, row->cpu_recs, (size_t)row->reps * sizeof *tmp);
        row->cpu_per_rec = bench_median(tmp, row->reps);
        memcpy(tmp, row->rates, (size_t)row->reps * sizeof *tmp);
        row->cpu_self = rr->self / rr->wall;
        row->cpu_other = rr->other / rr->wall;
        row->median = bench_median(tmp, row->reps);
        row->spread = bench_spread(tmp, row->reps);
        row->min = tmp[0];
        row->max = tmp[row->reps - 1];
        memcpy(tmp, row->cpu_runs, (size_t)row->reps * sizeof *tmp);
        row->cpu_seconds = bench_median(tmp, row->reps);
        if (sc->flags & BENCH_LATENCY) {
            row->p50_us = bench_median(rr->p50, row->reps);
            row->p99_us = bench_median(rr->p99, row->reps);
            row->p99_spread = bench_spread(rr->p99, row->reps);
            row->max_us = bench_median(rr->pmax, row->reps);
        }
    }
    free(rr->p50);
    free(rr->p99);
    free(rr->pmax);
    if (o->quiet)
        return;
    if (row->failed)
        fprintf(stderr, "weir-bench: %s p=%d: FAILED: %s\n", sc->name, row->parallelism,
                row->err);
    else if (sc->flags & BENCH_LATENCY)
        fprintf(stderr, "weir-bench: %-24s p=%-2d p50 %.1f us, p99 %.1f us (median of %d)\n",
                sc->name, row->parallelism, row->p50_us, row->p99_us, row->reps);
    else
        fprintf(stderr, "weir-bench: %-24s p=%-2d %8.2f M records/s (median of %d, spread %.1f%%)\n",
                sc->name, row->parallelism, row->median / 1e6, row->reps, 100 * row->spread);
}

/* Runs every row in rounds: round 0 is each row's warm-up, then each round
 * runs every row once, in table order. Interleaving the repetitions means a
 * slow minute on a shared machine hits a scenario and its baseline alike
 * instead of all the repetitions of one of them, which is what the ratios
 * need. */
static void run_rows(const options *o, bench_row *rows, int nrows)
{
    row_run *rr = calloc((size_t)nrows, sizeof *rr);
    if (!rr) {
        for (int r = 0; r < nrows; r++) {
            rows[r].failed = true;
            snprintf(rows[r].err, sizeof rows[r].err, "out of memory");
        }
        return;
    }
    for (int r = 0; r < nrows; r++)
        row_start(o, &rows[r], &rr[r]);
    for (int rep = -1; rep < o->reps; rep++) {
        for (int r = 0; r < nrows; r++) {
            if (rows[r].failed)
                continue;
            if (rep < 0)
                progress(o, "warm-up: %s p=%d (%d/%d)", rows[r].sc->name, rows[r].parallelism,
                         r + 1, nrows);
            else
                progress(o, "round %d/%d: %s p=%d (%d/%d)", rep + 1, o->reps, rows[r].sc->name,
                         rows[r].parallelism, r + 1, nrows);
            row_once(&rows[r], &rr[r], rep);
        }
    }
    if (!o->quiet && progress_tty)
        fputs("\r\033[K", stderr);
    for (int r = 0; r < nrows; r++)
        row_finish(o, &rows[r], &rr[r]);
    free(rr);
}

/* The pace of each load row (rows[0..nrows) that have one): its fraction of
 * the median of its baseline's row at the same parallelism (or the
 * baseline's only row) among done[0..ndone), which have run; and its
 * records, BENCH_LOAD_SECONDS of that pace unless --records says. */
static void set_load_paces(const options *o, bench_row *rows, int nrows, const bench_row *done,
                           int ndone)
{
    for (int r = 0; r < nrows; r++) {
        const bench_scenario *sc = rows[r].sc;
        const bench_row *base = NULL;
        for (int k = 0; k < ndone; k++) {
            if (strcmp(done[k].sc->name, sc->baseline) != 0)
                continue;
            if (!base || done[k].parallelism == rows[r].parallelism)
                base = &done[k];
        }
        if (!base || base->failed || base->median <= 0) {
            rows[r].failed = true;
            snprintf(rows[r].err, sizeof rows[r].err, "no measured peak of %s to take %.0f%% of",
                     sc->baseline, 100 * sc->load);
            continue;
        }
        rows[r].rate = sc->load * base->median;
        double seconds = o->quick ? BENCH_LOAD_SECONDS / 2 : BENCH_LOAD_SECONDS;
        rows[r].records = o->records ? o->records : (int64_t)(rows[r].rate * seconds);
    }
}

int main(int argc, char **argv)
{
    /* --nexmark: the Nexmark suite's SQL queries instead (nexmark_runner.c) */
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--nexmark") == 0 || strncmp(argv[i], "--nexmark=", 10) == 0)
            return bench_nexmark_main(argc, argv);
    }
    build_table();
    options o;
    if (parse_options(argc, argv, &o) < 0)
        return 2;
    if (o.list) {
        list_scenarios(stdout);
        return 0;
    }
    if (o.soak_seconds > 0) {
        bench_soak_params sp = {
            .seconds = o.soak_seconds,
            .parallelism = o.plist_given ? o.plist[0] : 2,
            .workers = o.workers > 0 ? o.workers : 0,
            .batch = o.batch,
            .rate = o.rate_given ? o.rate : 1000000,
            .quiet = o.quiet,
        };
        return bench_soak(&sp);
    }
    bool sel[MAX_SCENARIOS];
    if (select_scenarios(&o, sel) < 0)
        return 2;
    progress_tty = isatty(STDERR_FILENO);

    int nrows = 0;
    bench_row *rows = calloc((size_t)ntable * MAX_PARALLELISM_LIST, sizeof *rows);
    if (!rows) {
        fprintf(stderr, "weir-bench: out of memory\n");
        return 1;
    }
    /* The rows at a load of another's peak go last: they run after the
     * others, whose medians set their pace. */
    int nfirst = 0;
    for (int pass = 0; pass < 2; pass++) {
        for (int i = 0; i < ntable; i++) {
            if (!sel[i] || (table[i]->load > 0) != (pass == 1))
                continue;
            int pl[MAX_PARALLELISM_LIST];
            int np = plist_for(&o, table[i], pl);
            for (int k = 0; k < np; k++) {
                bench_row *row = &rows[nrows++];
                row->sc = table[i];
                row->parallelism = pl[k];
                row->records = o.records ? o.records
                                         : (o.quick ? table[i]->quick_records : table[i]->records);
            }
        }
        if (pass == 0)
            nfirst = nrows;
    }
    double load_before = bench_loadavg();
    run_rows(&o, rows, nfirst);
    if (nrows > nfirst) {
        set_load_paces(&o, rows + nfirst, nrows - nfirst, rows, nfirst);
        run_rows(&o, rows + nfirst, nrows - nfirst);
    }

    bench_report_derive(rows, nrows);
    if (o.json)
        bench_report_json(stdout, rows, nrows);
    else
        bench_report_table(stdout, rows, nrows, o.reps, o.quick, load_before);
    int status = 0;
    char why[4200];
    if (o.svg && bench_report_svg(o.svg, rows, nrows, why, sizeof why) < 0) {
        fprintf(stderr, "weir-bench: %s\n", why);
        status = 1;
    }
    for (int r = 0; r < nrows; r++) {
        if (rows[r].failed)
            status = 1;
    }
    if (o.check && bench_report_missed(rows, nrows))
        status = 1;
    for (int r = 0; r < nrows; r++) {
        free(rows[r].rates);
        free(rows[r].cpu_runs);
        free(rows[r].cpu_recs);
    }
    free(rows);
    return status;
}
