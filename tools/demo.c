/* demo.c — `weir demo [--out DIR]`: the flagship experiments.
 *
 * Three runs of the same kind of pipeline — generator partitions, a bounded
 * out-of-orderness watermark, key_by, 5 s tumbling event-time windows — on
 * the virtual clock with one worker, so every run is reproducible to the
 * byte:
 *   idle-without-idleness   partition 2 goes quiet for 20 s of event time;
 *                           the merged watermark after key_by stalls on it
 *   idle-with-idleness      the same with with_idleness(2 s): the quiet
 *                           partition is declared idle and stops holding
 *                           the watermark back
 *   lateness                3% of the events are made late (timestamps
 *                           1.8 to 3.3 s behind their nominal time); one
 *                           window allows 1 s of lateness and sends later
 *                           elements to a side output, its twin drops them
 * Each run writes its capture (DIR/NAME.jsonl). The demo then reads the
 * events it kept in memory and prints what they show: the longest stall of
 * the merged watermark with and without idleness (and which channel held it
 * back), firings on time vs late, elements dropped vs side-output. DIR also
 * gets report.html, the viewer with the three captures embedded.
 */
#include "demo.h"
#include "message.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <weir.h>
#include <weir/window.h>

#include "report.h"
#include "signals.h"

#define WINDOW_MS 5000
#define DISORDER_MS 300
#define IDLE_FROM_MS 15000
#define IDLE_TO_MS 35000
#define IDLENESS_MS 2000
#define INTERVAL_MS 200

typedef struct window_result {
    int64_t key;
    int64_t start, end;
    int64_t count;
    int64_t sum;
} window_result;

typedef struct counts {
    int64_t count, sum;
} counts;



static void count_add(void *acc, const void *elem, void *arg)
{
    (void)arg;
    counts *c = acc;
    c->count++;
    c->sum += ((const weir_gen_event *)elem)->value;
}

static void count_merge(void *acc, const void *other, void *arg)
{
    (void)arg;
    counts *c = acc;
    const counts *o = other;
    c->count += o->count;
    c->sum += o->sum;
}

static void count_result(const void *acc, const weir_window_info *w, void *out, void *arg)
{
    (void)arg;
    const counts *c = acc;
    window_result *r = out;
    memcpy(&r->key, w->key, 8);
    r->start = w->start;
    r->end = w->end;
    r->count = c->count;
    r->sum = c->sum;
}

/* ---- one experiment ------------------------------------------------------- */

typedef struct experiment {
    const char *name;        /* the capture's file name without .jsonl */
    int partitions;
    bool idle;               /* partition 2 quiet in [IDLE_FROM, IDLE_TO) */
    int64_t idleness_ms;
    double late_fraction;
    bool lateness;           /* the two lateness windows instead of one */
} experiment;

static weir_stream *window(weir_stream *keyed, const char *name, int64_t lateness, int late_tag)
{
    weir_window_spec spec = {
        .name = name,
        .assigner = weir_window_tumbling(WINDOW_MS, 0),
        .allowed_lateness_ms = lateness,
        .late_tag = late_tag,
        .aggregate = {.acc_size = sizeof(counts),
                      .add = count_add,
                      .merge = count_merge,
                      .result = count_result},
        .out_size = sizeof(window_result),
        .parallelism = 2,
    };
    return weir_stream_window(keyed, &spec);
}

/* --serve: the job being served, and where (the job event comes once the
 * server listens: the callback names its port). */
static weir_job *served_job;
static const char *served_addr;

static void announce(const weir_diag_event *ev, void *arg)
{
    (void)arg;
    if (ev->kind != WEIR_DIAG_KIND_JOB || !served_job)
        return;
    char host[256];
    snprintf(host, sizeof host, "%s", served_addr);
    char *colon = strrchr(host, ':');
    if (colon)
        *colon = '\0';
    fprintf(stderr, "weir demo: serving the live view on http://%s:%d/ (/metrics, /events, /jobs)\n",
            host, weir_job_http_port(served_job));
}

static int run(const experiment *x, const char *dir, weir_diag_memory *mem, char *path,
               size_t pathsize, const char *serve)
{
    snprintf(path, pathsize, "%s/%s.jsonl", dir, x->name);
    /* Served, the experiment runs in real time on the system clock (a
     * minute of event time each), so that there is a run to watch; its
     * capture's times are the machine's, and what depends on processing
     * time (idleness) may differ by the machine's timing from the virtual
     * clock's reproducible numbers. */
    weir_job_config cfg = {
        .workers = 1,
        .clock = serve ? WEIR_CLOCK_SYSTEM : WEIR_CLOCK_VIRTUAL,
        .watermark_interval_ms = INTERVAL_MS,
        .diag = {.jsonl_path = path, .memory = mem, .callback = serve ? announce : NULL},
        .http_addr = serve,
    };
    weir_job *job;
    int r = weir_job_create(&cfg, &job);
    if (r)
        return r;
    weir_generator_config gen = {
        .name = "generator",
        .partitions = x->partitions,
        .keys = 20,
        .rate = 100,
        .pace = WEIR_GEN_PACED,
        .disorder_ms = DISORDER_MS,
        .late_fraction = x->late_fraction,
        .late_ms = 1500,
        .duration_ms = 60000,
        .seed = 7,
    };
    if (x->idle) {
        gen.idle[0] = (weir_gen_idle){.partition = 2, .from_ms = IDLE_FROM_MS, .to_ms = IDLE_TO_MS};
        gen.nidle = 1;
    }
    weir_watermark_strategy wm = weir_watermarks_bounded(DISORDER_MS);
    wm.idleness_ms = x->idleness_ms;
    weir_stream *s = weir_source_generator(job, &gen);
    /* One timestamps subtask per partition, chained to it: each partition
     * makes its own watermark, and key_by merges them. */
    s = weir_stream_set_parallelism(
        weir_stream_assign_timestamps(s, &(weir_timestamps_spec){.strategy = wm}), x->partitions);
    weir_stream *keyed = weir_stream_key_by(s, weir_generator_key());
    if (x->lateness) {
        weir_stream *w1 = window(keyed, "window-side-output", 1000, WEIR_WINDOW_LATE_TAG);
        weir_stream_set_parallelism(weir_sink_discard(w1), 2);
        weir_stream_set_parallelism(
            weir_stream_set_name(
                weir_sink_discard(weir_stream_side_output(w1, WEIR_WINDOW_LATE_TAG)), "late-sink"),
            2);
        weir_stream_set_parallelism(
            weir_stream_set_name(weir_sink_discard(window(keyed, "window-drop", 1000, 0)),
                                 "sink-drop"),
            2);
    } else {
        weir_stream_set_parallelism(weir_sink_discard(window(keyed, "window", 0, 0)), 2);
    }
    served_job = job;
    served_addr = serve;
    weir_cli_signals_job(job);
    r = weir_job_run(job);
    weir_cli_signals_job(NULL);
    served_job = NULL;
    if (r == WEIR_ECANCELED && weir_cli_stopped())
        weir_tool_error("weir demo: %s cancelled; its capture %s is complete, its summary marked "
                        "cancelled", x->name, path);
    else if (r)
        weir_tool_error("weir demo: %s failed: %s", x->name, weir_job_error(job));
    weir_job_destroy(job);
    return r;
}

/* ---- reading the events --------------------------------------------------- */

typedef struct stall {
    int64_t length_ms;   /* longest time between two advances */
    int64_t from_ms;     /* processing time it began */
    int64_t at_wm;       /* the watermark it sat on */
    int subtask;
    int held_by;         /* the valve channel that held the minimum during it */
} stall;

/* The longest stall of `op`'s output watermark over its subtasks: the
 * longest processing time between two advances before it reached MAX. */
static stall longest_stall(const weir_diag_memory *mem, const char *op)
{
    stall best = {.length_ms = -1, .held_by = -1, .subtask = -1};
    int64_t last_t[64];
    int64_t last_wm[64];
    for (int i = 0; i < 64; i++)
        last_t[i] = -1;
    for (size_t i = 0; i < weir_diag_memory_count(mem); i++) {
        const weir_diag_event *e = weir_diag_memory_event(mem, i);
        if (e->kind != WEIR_DIAG_KIND_WATERMARK || e->input >= 0 || !e->op ||
            strcmp(e->op, op) != 0 || e->subtask < 0 || e->subtask >= 64)
            continue;
        if (e->watermark == WEIR_TS_MAX)
            continue;
        int s = e->subtask;
        if (last_t[s] >= 0 && e->t - last_t[s] > best.length_ms) {
            best.length_ms = e->t - last_t[s];
            best.from_ms = last_t[s];
            best.at_wm = last_wm[s];
            best.subtask = s;
        }
        last_t[s] = e->t;
        last_wm[s] = e->watermark;
    }
    if (best.subtask < 0)
        return best;
    /* Who held it: the held_by of the last valve event at that subtask before
     * the stall ended. */
    for (size_t i = 0; i < weir_diag_memory_count(mem); i++) {
        const weir_diag_event *e = weir_diag_memory_event(mem, i);
        if (e->kind == WEIR_DIAG_KIND_WATERMARK && e->input >= 0 && e->op &&
            strcmp(e->op, op) == 0 && e->subtask == best.subtask &&
            e->t <= best.from_ms + best.length_ms / 2)
            best.held_by = e->held_by;
    }
    return best;
}

typedef struct lateness_counts {
    int64_t on_time, late_firings, side, dropped;
} lateness_counts;

static lateness_counts count_lateness(const weir_diag_memory *mem, const char *op)
{
    lateness_counts c = {0};
    for (size_t i = 0; i < weir_diag_memory_count(mem); i++) {
        const weir_diag_event *e = weir_diag_memory_event(mem, i);
        if (!e->op || strcmp(e->op, op) != 0)
            continue;
        if (e->kind == WEIR_DIAG_KIND_WINDOW_FIRE) {
            if (e->firing == 0)
                c.on_time++;
            else
                c.late_firings++;
        } else if (e->kind == WEIR_DIAG_KIND_LATE) {
            if (e->dropped)
                c.dropped++;
            else
                c.side++;
        }
    }
    return c;
}

/* ---- the command ---------------------------------------------------------- */

static int usage(FILE *out)
{
    fprintf(out, "usage: weir demo [--out DIR] [--serve ADDR]\n"
                 "Runs the idle-partition and lateness experiments on the virtual clock,\n"
                 "writes their captures to DIR (default ./weir-demo) with report.html,\n"
                 "and prints what they show.\n"
                 "  --serve ADDR   serve each experiment while it runs (docs/LIVE.md) on\n"
                 "                 ADDR (127.0.0.1:8081; port 0: any free one): the live\n"
                 "                 view at /, /metrics, /events, /jobs; the experiments\n"
                 "                 then run in real time (a minute each) on the system clock,\n"
                 "                 so their numbers may differ a little from a run without it\n");
    return out == stdout ? 0 : 2;
}

/* The stall in exact milliseconds (printed as seconds with three decimals,
 * so nothing is rounded), and who held it. The windows' only input is the
 * hash edge from the timestamps operator, so its channel c comes from
 * timestamps[c]; timestamps has the generator's parallelism and is chained
 * to it (forward), so timestamps[c] is fed by generator partition c. */
static void print_stall(const char *label, const stall *s)
{
    if (s->length_ms < 0) {
        printf("   %-22s (no watermark advanced)\n", label);
        return;
    }
    printf("   %-22s %7.3f s", label, (double)s->length_ms / 1000.0);
    if (s->held_by >= 0)
        printf("   window[%d] stuck at watermark %" PRId64 ", held by its input channel %d\n"
               "   %-22s %9s   (from timestamps[%d], fed by generator partition %d)",
               s->subtask, s->at_wm, s->held_by, "", "", s->held_by, s->held_by);
    printf("\n");
}

int weir_demo_main(int argc, char **argv)
{
    const char *dir = "weir-demo";
    const char *serve = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0)
            return usage(stdout);
        if (strcmp(argv[i], "--out") == 0) {
            if (i + 1 >= argc || argv[i + 1][0] == '\0') {
                weir_tool_error("weir demo: '--out' needs a directory after it");
                return usage(stderr);
            }
            dir = argv[++i];
        } else if (strcmp(argv[i], "--serve") == 0) {
            if (i + 1 >= argc || argv[i + 1][0] == '\0') {
                weir_tool_error("weir demo: '--serve' needs an address after it (127.0.0.1:8081)");
                return usage(stderr);
            }
            serve = argv[++i];
            weir_job_config probe = {.http_addr = serve};
            char why[256];
            if (weir_job_config_check(&probe, why, sizeof why) != 0) {
                weir_tool_error("weir demo: --serve: %s", why);
                return 2;
            }
        } else {
            weir_tool_error("weir demo: unknown argument '%s'", argv[i]);
            return usage(stderr);
        }
    }
    char why[1024];
    if (weir_outfile_make_folders(dir, why, sizeof why) < 0) {
        weir_tool_error("weir demo: %s", why);
        return 1;
    }

    static const experiment experiments[] = {
        {.name = "idle-without-idleness", .partitions = 3, .idle = true},
        {.name = "idle-with-idleness", .partitions = 3, .idle = true, .idleness_ms = IDLENESS_MS},
        {.name = "lateness", .partitions = 2, .late_fraction = 0.03, .lateness = true},
    };
    enum { N = sizeof experiments / sizeof experiments[0] };
    weir_diag_memory *mem[N] = {0};
    char paths[N][4096];
    int status = 0;
    for (int i = 0; i < N && status == 0 && !weir_cli_stopped(); i++) {
        fprintf(stderr, "weir demo: running %s ...\n", experiments[i].name);
        if (weir_diag_memory_create(&mem[i]) != 0) {
            status = 1;
            break;
        }
        if (run(&experiments[i], dir, mem[i], paths[i], sizeof paths[i], serve) != 0)
            status = 1;
    }
    if (weir_cli_stopped())
        status = 1;
    if (status == 0) {
        stall without = longest_stall(mem[0], "window");
        stall with = longest_stall(mem[1], "window");
        lateness_counts side = count_lateness(mem[2], "window-side-output");
        lateness_counts drop = count_lateness(mem[2], "window-drop");

        printf("weir demo: three experiments, reproducible on the virtual clock (1 worker)\n\n");
        printf("1. An idle partition. 3 generator partitions at 100 events/s of event time,\n"
               "   bounded out-of-orderness %d ms, key_by, %d s tumbling windows;\n"
               "   partition 2 sends nothing from %d s to %d s of event time.\n"
               "   The longest stall of the windows' merged watermark:\n",
               DISORDER_MS, WINDOW_MS / 1000, IDLE_FROM_MS / 1000, IDLE_TO_MS / 1000);
        print_stall("without idleness", &without);
        print_stall("with idleness (2 s)", &with);
        printf("   Without idleness the quiet partition holds every window back; with it,\n"
               "   the partition is declared idle after 2 s and the others carry on.\n\n");
        printf("2. Late data. 3%% of the events are made late: their timestamps lie 1.8 to\n"
               "   3.3 s behind their nominal time (the others: at most 0.3 s). Two windows on\n"
               "   the same keyed stream allow 1 s of lateness.\n");
        printf("   %-22s %5" PRId64 " on-time firings, %4" PRId64 " late firings, %4" PRId64
               " elements to the side output, %4" PRId64 " dropped\n",
               "window-side-output", side.on_time, side.late_firings, side.side, side.dropped);
        printf("   %-22s %5" PRId64 " on-time firings, %4" PRId64 " late firings, %4" PRId64
               " elements to the side output, %4" PRId64 " dropped\n",
               "window-drop", drop.on_time, drop.late_firings, drop.side, drop.dropped);
        printf("   Elements within the allowed lateness update their window (a late firing);\n"
               "   later ones go to the side output, or are dropped and counted.\n\n");

        char report[4096];
        snprintf(report, sizeof report, "%s/report.html", dir);
        const char *names[N];
        const char *files[N];
        for (int i = 0; i < N; i++) {
            names[i] = experiments[i].name;
            files[i] = paths[i];
        }
        if (weir_report_write(report, names, files, N) != 0) {
            status = 1;
        } else {
            printf("Captures: %s/idle-without-idleness.jsonl, %s/idle-with-idleness.jsonl,\n"
                   "          %s/lateness.jsonl\n",
                   dir, dir, dir);
            printf("Look at them: open %s in a browser (the viewer with the captures\n"
                   "built in), or open viewer/index.html and drop the .jsonl files on it.\n"
                   "'weir capture summary %s/lateness.jsonl' reports in text.\n",
                   report, dir);
        }
    }
    for (int i = 0; i < N; i++)
        weir_diag_memory_destroy(mem[i]);
    return status;
}
