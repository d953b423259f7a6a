/* test_diag_counters.c — what the capture's numbers promise, on random
 * pipelines: the summary's counters add up by accounting class, the sink
 * took in exactly what flowed, the throughput events of every subtask add
 * up to its counters, and the whole capture passes `weir capture validate`
 * (which also checks that every operator fed by main outputs took in what
 * they emitted, broadcasts and unions included); the pipeline's output is
 * the same with diagnostics off and on; and with two workers, watermarks
 * never go back, per operator subtask output and per valve channel.
 *
 * A random pipeline is a chain of steps over uint64 values with random
 * parallelism 1..4, random worker counts and either clock: map, filter,
 * flat_map, key_by, rebalance; a broadcast into a map; a union of a map and
 * a filter of the same stream; a two-input co-process of the stream and a
 * filter of it; and a branch off the chain into a keyed tumbling window with
 * allowed lateness whose late side output goes to a sink of its own. The
 * source's timestamps put every 37th element 200 ms back, and a punctuated
 * watermark follows the others, so windows see late elements (dropped past
 * the lateness into the side output, or taken within it). The chain's
 * expected output is computed sequentially on the same values (the multiset
 * does not depend on partitioning, and the window branch leaves the chain
 * as it was), so a lost, duplicated or miscounted record shows.
 */
#include <criterion/criterion.h>

#include "diag/test_diag_support.h"

enum { N = 2000, MAX_STEPS = 7, WIN_SIZE = 50, WIN_LATENESS = 20 };

typedef enum step_kind {
    ST_MAP,
    ST_FILTER,
    ST_FLAT,
    ST_KEYBY,
    ST_REBALANCE,
    ST_BROADCAST, /* broadcast -> map: every record once per map subtask */
    ST_UNION,     /* union(map(s), filter(s)) -> pass */
    ST_COPROCESS, /* coprocess(s, filter(s)): v from input 1, v + 1 from input 2 */
    ST_WINDOW,    /* a branch: key_by(s) -> window -> sink, late side output -> sink */
    ST_KINDS
} step_kind;

static bool is_view(step_kind k)
{
    return k == ST_KEYBY || k == ST_REBALANCE;
}

typedef struct pipeline {
    int nsteps;
    step_kind kind[MAX_STEPS];
    int parallelism[MAX_STEPS];
    int src_parallelism, sink_parallelism, workers;
    weir_clock_kind clock;
} pipeline;

static uint64_t rng_next(uint64_t *s)
{
    *s += 0x9E3779B97F4A7C15ull;
    return tu_mix(*s);
}

static void random_pipeline(uint64_t seed, pipeline *p)
{
    uint64_t s = seed;
    memset(p, 0, sizeof *p);
    p->nsteps = 1 + (int)(rng_next(&s) % MAX_STEPS);
    step_kind prev = ST_MAP;
    for (int i = 0; i < p->nsteps; i++) {
        step_kind k = (step_kind)(rng_next(&s) % ST_KINDS);
        /* a partitioning is a view: a one-input operator comes after it */
        if (is_view(prev) && k != ST_MAP && k != ST_FILTER && k != ST_FLAT)
            k = ST_MAP;
        p->kind[i] = k;
        p->parallelism[i] = 1 + (int)(rng_next(&s) % 4);
        prev = k;
    }
    p->src_parallelism = 1 + (int)(rng_next(&s) % 4);
    p->sink_parallelism = 1 + (int)(rng_next(&s) % 4);
    p->workers = 1 + (int)(rng_next(&s) % 4);
    p->clock = rng_next(&s) % 2 ? WEIR_CLOCK_VIRTUAL : WEIR_CLOCK_SYSTEM;
}

static uint64_t f_map(uint64_t v)
{
    return v * 3 + 1;
}

static bool f_keep(uint64_t v)
{
    return v % 3 != 0;
}

static int f_copies(uint64_t v)
{
    return (int)(v % 3);
}

static int map_fn(const void *in, void *out, void *arg)
{
    (void)arg;
    uint64_t v;
    memcpy(&v, in, sizeof v);
    v = f_map(v);
    memcpy(out, &v, sizeof v);
    return 0;
}

static int filter_fn(const void *in, void *arg)
{
    (void)arg;
    uint64_t v;
    memcpy(&v, in, sizeof v);
    return f_keep(v);
}

static int flat_fn(weir_ctx *ctx, const void *in, int64_t ts, void *arg)
{
    (void)arg;
    uint64_t v;
    memcpy(&v, in, sizeof v);
    for (int i = 0; i < f_copies(v); i++) {
        uint64_t o = v + (uint64_t)i;
        int r = weir_emit(ctx, &o, ts);
        if (r < 0)
            return r;
    }
    return 0;
}

static void key_fn(const void *elem, void *key, void *arg)
{
    (void)arg;
    uint64_t v;
    memcpy(&v, elem, sizeof v);
    v %= 17;
    memcpy(key, &v, sizeof v);
}

static const weir_key_spec key_spec = {.key_size = sizeof(uint64_t), .extract = key_fn};

static int pass_fn(const void *in, void *out, void *arg)
{
    (void)arg;
    memcpy(out, in, sizeof(uint64_t));
    return 0;
}

static int co_first(weir_ctx *ctx, const void *elem, int64_t ts)
{
    return weir_emit(ctx, elem, ts);
}

static int co_second(weir_ctx *ctx, const void *elem, int64_t ts)
{
    uint64_t v;
    memcpy(&v, elem, sizeof v);
    v++;
    return weir_emit(ctx, &v, ts);
}

static const weir_coprocess_vtable co_vtable = {
    .version = WEIR_OPERATOR_VTABLE_V1, .on_record1 = co_first, .on_record2 = co_second};

static void win_add(void *acc, const void *elem, void *arg)
{
    (void)elem;
    (void)arg;
    ++*(uint64_t *)acc;
}

static void win_merge(void *acc, const void *other, void *arg)
{
    (void)arg;
    *(uint64_t *)acc += *(const uint64_t *)other;
}

static void win_result(const void *acc, const weir_window_info *w, void *out, void *arg)
{
    (void)w;
    (void)arg;
    memcpy(out, acc, sizeof(uint64_t));
}

/* Every 8th element proposes a watermark 20 ms behind it. */
static int64_t punctuate(const void *elem, int64_t ts, void *arg)
{
    (void)elem;
    (void)arg;
    return ts % 8 == 0 ? ts - 20 : WEIR_TS_MIN;
}

static uint64_t values[N];
static int64_t stamps[N];

static void init_values(void)
{
    for (int i = 0; i < N; i++) {
        values[i] = (uint64_t)i * 7919u;
        /* every 37th element 200 ms back: late for the windows downstream */
        stamps[i] = i % 37 == 36 && i >= 200 ? i - 200 : i;
    }
}

/* The expected output, as (value, timestamp) records mixed into one u64
 * each, sorted. */
static uint64_t *expected(const pipeline *p, size_t *n)
{
    size_t cap = N;
    uint64_t *v = malloc(cap * sizeof *v), *ts = malloc(cap * sizeof *ts);
    cr_assert(v && ts);
    size_t k = N;
    for (size_t i = 0; i < k; i++) {
        v[i] = values[i];
        ts[i] = (uint64_t)stamps[i];
    }
    for (int s = 0; s < p->nsteps; s++) {
        size_t cap2 = k * (size_t)(p->kind[s] == ST_BROADCAST ? p->parallelism[s] : 2) + 1, m = 0;
        uint64_t *w = malloc(cap2 * sizeof *w), *wt = malloc(cap2 * sizeof *wt);
        cr_assert(w && wt);
        for (size_t i = 0; i < k; i++) {
            switch (p->kind[s]) {
            case ST_MAP:
                w[m] = f_map(v[i]);
                wt[m++] = ts[i];
                break;
            case ST_BROADCAST:
                for (int c = 0; c < p->parallelism[s]; c++) {
                    w[m] = f_map(v[i]);
                    wt[m++] = ts[i];
                }
                break;
            case ST_UNION:
                w[m] = f_map(v[i]);
                wt[m++] = ts[i];
                if (f_keep(v[i])) {
                    w[m] = v[i];
                    wt[m++] = ts[i];
                }
                break;
            case ST_COPROCESS:
                w[m] = v[i];
                wt[m++] = ts[i];
                if (f_keep(v[i])) {
                    w[m] = v[i] + 1;
                    wt[m++] = ts[i];
                }
                break;
            case ST_FILTER:
                if (f_keep(v[i])) {
                    w[m] = v[i];
                    wt[m++] = ts[i];
                }
                break;
            case ST_FLAT:
                for (int c = 0; c < f_copies(v[i]); c++) {
                    w[m] = v[i] + (uint64_t)c;
                    wt[m++] = ts[i];
                }
                break;
            default:
                w[m] = v[i];
                wt[m++] = ts[i];
            }
        }
        free(v);
        free(ts);
        v = w;
        ts = wt;
        k = m;
    }
    for (size_t i = 0; i < k; i++)
        v[i] = tu_mix(v[i]) ^ ts[i];
    free(ts);
    tu_sort_u64(v, k);
    *n = k;
    return v;
}

static uint64_t *collected(const weir_collect *c, size_t *n)
{
    *n = weir_collect_count(c);
    uint64_t *v = malloc((*n ? *n : 1) * sizeof *v);
    cr_assert_not_null(v);
    for (size_t i = 0; i < *n; i++) {
        uint64_t x;
        memcpy(&x, weir_collect_elem(c, i), sizeof x);
        v[i] = tu_mix(x) ^ (uint64_t)weir_collect_timestamp(c, i);
    }
    return v;
}

typedef struct built {
    weir_job *job;
    weir_collect *out;
    weir_collect *win_out[MAX_STEPS], *win_late[MAX_STEPS]; /* window branches */
    char names[MAX_STEPS][16]; /* the operators, in order ("" for views) */
} built;

/* The step's name with a suffix, in a static rotating buffer. */
static const char *step_name(int i, const char *suffix)
{
    static char bufs[4][24];
    static int next;
    char *b = bufs[next++ % 4];
    snprintf(b, sizeof bufs[0], "s%d%s", i, suffix);
    return b;
}

static weir_stream *named(weir_stream *s, const char *name, int parallelism)
{
    return weir_stream_set_parallelism(weir_stream_set_name(s, name), parallelism);
}

static void build(const pipeline *p, const weir_diag_config *diag, built *b)
{
    weir_job_config cfg = {.workers = p->workers, .clock = p->clock};
    if (diag)
        cfg.diag = *diag;
    memset(b, 0, sizeof *b);
    b->job = tu_job(&cfg);
    weir_stream *s = weir_source_array(b->job, values, N, sizeof values[0], stamps);
    s = weir_stream_set_parallelism(weir_stream_set_name(s, "source"), p->src_parallelism);
    weir_timestamps_spec tss = {.strategy = weir_watermarks_punctuated(punctuate, NULL)};
    s = weir_stream_assign_timestamps(s, &tss);
    for (int i = 0; i < p->nsteps; i++) {
        weir_stream *t = NULL;
        int par = p->parallelism[i];
        switch (p->kind[i]) {
        case ST_BROADCAST:
            t = weir_stream_map(weir_stream_broadcast(s), sizeof(uint64_t), map_fn, NULL);
            break;
        case ST_UNION: {
            weir_stream *two[2] = {
                named(weir_stream_map(s, sizeof(uint64_t), map_fn, NULL), step_name(i, "a"), par),
                named(weir_stream_filter(s, filter_fn, NULL), step_name(i, "b"), par)};
            t = weir_stream_map(weir_stream_union(two, 2), sizeof(uint64_t), pass_fn, NULL);
            break;
        }
        case ST_COPROCESS: {
            weir_stream *f = named(weir_stream_filter(s, filter_fn, NULL), step_name(i, "f"), par);
            weir_coprocess_spec co = {.vtable = &co_vtable, .out_size = sizeof(uint64_t),
                                      .parallelism = par};
            t = weir_stream_coprocess(s, f, &co);
            break;
        }
        case ST_WINDOW: {
            weir_window_spec w = {
                .name = step_name(i, "w"),
                .assigner = weir_window_tumbling(WIN_SIZE, 0),
                .allowed_lateness_ms = WIN_LATENESS,
                .late_tag = WEIR_WINDOW_LATE_TAG,
                .aggregate = {.acc_size = sizeof(uint64_t), .add = win_add, .merge = win_merge,
                              .result = win_result},
                .out_size = sizeof(uint64_t),
                .parallelism = par,
            };
            weir_stream *win = weir_stream_window(weir_stream_key_by(s, &key_spec), &w);
            weir_stream *o = weir_sink_collect(win, &b->win_out[i]);
            weir_stream *l = weir_sink_collect(weir_stream_side_output(win, WEIR_WINDOW_LATE_TAG),
                                               &b->win_late[i]);
            cr_assert(o && l && weir_stream_set_name(o, step_name(i, "o")) &&
                          weir_stream_set_name(l, step_name(i, "l")),
                      "%s", weir_job_error(b->job));
            continue; /* a branch: the chain goes on from s */
        }
        case ST_MAP:
            t = weir_stream_map(s, sizeof(uint64_t), map_fn, NULL);
            break;
        case ST_FILTER:
            t = weir_stream_filter(s, filter_fn, NULL);
            break;
        case ST_FLAT:
            t = weir_stream_flat_map(s, sizeof(uint64_t), flat_fn, NULL);
            break;
        case ST_KEYBY:
            s = weir_stream_key_by(s, &key_spec);
            continue;
        default:
            s = weir_stream_rebalance(s);
            continue;
        }
        snprintf(b->names[i], sizeof b->names[i], "s%d", i);
        s = weir_stream_set_parallelism(weir_stream_set_name(t, b->names[i]), p->parallelism[i]);
    }
    weir_stream *sink = weir_sink_collect(s, &b->out);
    cr_assert_not_null(weir_stream_set_parallelism(weir_stream_set_name(sink, "sink"),
                                                   p->sink_parallelism),
                       "%s", weir_job_error(b->job));
}

/* Σ throughput in/out per (op, subtask) from the events, against the
 * summary's counters. */
static void assert_throughput_adds_up(const weir_diag_memory *mem, const json_t *summary)
{
    json_t *ops = json_object_get(summary, "operators"), *o;
    size_t i;
    json_array_foreach(ops, i, o)
    {
        const char *op = td_str(o, "op");
        int sub = (int)td_int(o, "subtask");
        int64_t in = 0, out = 0;
        for (size_t k = 0; k < weir_diag_memory_count(mem); k++) {
            const weir_diag_event *ev = weir_diag_memory_event(mem, k);
            if (ev->kind == WEIR_DIAG_KIND_THROUGHPUT && ev->subtask == sub &&
                strcmp(ev->op, op) == 0) {
                in += ev->records_in;
                out += ev->records_out;
            }
        }
        cr_assert_eq(in, td_int(o, "in"), "%s/%d: throughput in %lld, summary %lld", op, sub,
                     (long long)in, (long long)td_int(o, "in"));
        cr_assert_eq(out, td_int(o, "out"), "%s/%d: throughput out %lld, summary %lld", op, sub,
                     (long long)out, (long long)td_int(o, "out"));
    }
}

/* The window branches of a run took in, fired and set aside what their
 * sinks got; returns the late elements they saw. */
static int64_t check_windows(const pipeline *p, const built *b, const json_t *sum, int seed)
{
    int64_t late = 0;
    for (int i = 0; i < p->nsteps; i++) {
        if (p->kind[i] != ST_WINDOW)
            continue;
        const char *w = step_name(i, "w");
        cr_assert_eq(td_total(sum, w, "out"), (int64_t)weir_collect_count(b->win_out[i]),
                     "seed %d: %s", seed, w);
        cr_assert_eq(td_total(sum, w, "late_side"), (int64_t)weir_collect_count(b->win_late[i]),
                     "seed %d: %s", seed, w);
        cr_assert_eq(td_total(sum, w, "side_out"), td_total(sum, w, "late_side"));
        late += td_total(sum, w, "late_side") + td_total(sum, w, "late_dropped");
    }
    return late;
}

Test(diag_counters, random_pipelines_add_up, .timeout = 600)
{
    init_values();
    char *dir = td_tmpdir();
    char jsonl[512];
    snprintf(jsonl, sizeof jsonl, "%s", td_path(dir, "c.jsonl"));
    int runs = WEIR_TEST_SANITIZED ? 16 : 48;
    int64_t late = 0;
    int kinds[ST_KINDS] = {0};
    for (int seed = 1; seed <= runs; seed++) {
        pipeline p;
        random_pipeline((uint64_t)seed, &p);
        for (int i = 0; i < p.nsteps; i++)
            kinds[p.kind[i]]++;
        weir_diag_memory *mem;
        cr_assert_eq(weir_diag_memory_create(&mem), 0);
        weir_diag_config diag = {.memory = mem, .jsonl_path = jsonl, .throughput_interval_ms = 1};
        built b;
        build(&p, &diag, &b);
        tu_run_ok(b.job);

        size_t ne, ng;
        uint64_t *want = expected(&p, &ne), *got = collected(b.out, &ng);
        tu_sort_u64(got, ng);
        cr_assert_eq(ng, ne, "seed %d: the sink collected %zu records, expected %zu", seed, ng, ne);
        for (size_t i = 0; i < ne; i++)
            cr_assert_eq(got[i], want[i], "seed %d: output differs", seed);

        json_t *sum = td_summary(mem);
        td_assert_identities(sum);
        /* the sink took in what flowed, the source sent everything */
        cr_assert_eq(td_total(sum, "sink", "in"), (int64_t)ne, "seed %d", seed);
        cr_assert_eq(td_total(sum, "source", "out"), N);
        cr_assert_eq(td_int(sum, "events"), (int64_t)weir_diag_memory_count(mem) - 1);
        cr_assert_eq(td_int(sum, "dropped_events"), 0);
        assert_throughput_adds_up(mem, sum);
        late += check_windows(&p, &b, sum, seed);
        /* and the capture as a whole: every operator's inflow, watermarks,
         * the schema */
        td_assert_valid(dir, jsonl);
        json_decref(sum);
        free(want);
        free(got);
        weir_job_destroy(b.job);
        weir_diag_memory_destroy(mem);
    }
    /* the seeds cover every kind of step, and windows saw late data */
    for (int k = 0; k < ST_KINDS; k++)
        cr_assert_gt(kinds[k], 0, "no step of kind %d in %d pipelines", k, runs);
    cr_assert_gt(late, 0, "no window saw a late element");
    td_rmdir(dir);
}

/* ---- diagnostics do not change the output --------------------------------- */

static void assert_same_output(const pipeline *p, bool exact_order)
{
    char *dir = td_tmpdir();
    built off, on;
    build(p, NULL, &off);
    tu_run_ok(off.job);
    weir_diag_memory *mem;
    cr_assert_eq(weir_diag_memory_create(&mem), 0);
    weir_diag_config diag = {.memory = mem, .level = WEIR_DIAG_VERBOSE,
                             .jsonl_path = td_path(dir, "c.jsonl"),
                             .msgpack_path = td_path(dir, "c.msgpack")};
    build(p, &diag, &on);
    tu_run_ok(on.job);
    size_t n = weir_collect_count(off.out);
    cr_assert_eq(weir_collect_count(on.out), n);
    cr_assert_eq(weir_collect_elem_size(on.out), weir_collect_elem_size(off.out));
    if (exact_order) {
        for (size_t i = 0; i < n; i++) {
            cr_assert_eq(memcmp(weir_collect_elem(on.out, i), weir_collect_elem(off.out, i),
                                weir_collect_elem_size(on.out)),
                         0, "record %zu differs", i);
            cr_assert_eq(weir_collect_timestamp(on.out, i), weir_collect_timestamp(off.out, i));
        }
    } else {
        size_t a, b;
        uint64_t *x = collected(off.out, &a), *y = collected(on.out, &b);
        tu_sort_u64(x, a);
        tu_sort_u64(y, b);
        cr_assert_eq(memcmp(x, y, a * sizeof *x), 0, "the outputs differ as multisets");
        free(x);
        free(y);
    }
    cr_assert_gt(weir_diag_memory_count(mem), 2);
    weir_job_destroy(off.job);
    weir_job_destroy(on.job);
    weir_diag_memory_destroy(mem);
    td_rmdir(dir);
}

Test(diag_counters, output_is_the_same_with_diagnostics_off_and_on, .timeout = 300)
{
    init_values();
    /* sequential: one worker, parallelism 1, virtual clock: the same order */
    pipeline seq = {.nsteps = 5,
                    .kind = {ST_MAP, ST_KEYBY, ST_FLAT, ST_REBALANCE, ST_FILTER},
                    .parallelism = {1, 1, 1, 1, 1},
                    .src_parallelism = 1,
                    .sink_parallelism = 1,
                    .workers = 1,
                    .clock = WEIR_CLOCK_VIRTUAL};
    assert_same_output(&seq, true);
    /* parallel: the same records, in whatever order */
    for (int seed = 100; seed < (WEIR_TEST_SANITIZED ? 104 : 112); seed++) {
        pipeline p;
        random_pipeline((uint64_t)seed, &p);
        assert_same_output(&p, false);
    }
}

/* ---- watermarks never go back --------------------------------------------- */

typedef struct wm_key {
    const char *op;
    int subtask, input, channel;
    int64_t wm;
} wm_key;

static void assert_watermarks_monotonic(const weir_diag_memory *mem, int *valve_events)
{
    wm_key *seen = NULL;
    size_t nseen = 0;
    for (size_t i = 0; i < weir_diag_memory_count(mem); i++) {
        const weir_diag_event *ev = weir_diag_memory_event(mem, i);
        if (ev->kind != WEIR_DIAG_KIND_WATERMARK)
            continue;
        if (ev->input >= 0)
            (*valve_events)++;
        size_t k = 0;
        while (k < nseen && !(seen[k].subtask == ev->subtask && seen[k].input == ev->input &&
                              seen[k].channel == ev->channel && strcmp(seen[k].op, ev->op) == 0))
            k++;
        if (k == nseen) {
            seen = realloc(seen, (nseen + 1) * sizeof *seen);
            cr_assert_not_null(seen);
            seen[nseen++] = (wm_key){ev->op, ev->subtask, ev->input, ev->channel, INT64_MIN};
        }
        if (ev->input < 0)
            cr_assert_gt(ev->watermark, seen[k].wm, "%s/%d: output watermark %lld after %lld",
                         ev->op, ev->subtask, (long long)ev->watermark, (long long)seen[k].wm);
        else
            cr_assert_geq(ev->watermark, seen[k].wm,
                          "%s/%d input %d channel %d: watermark %lld after %lld", ev->op,
                          ev->subtask, ev->input, ev->channel, (long long)ev->watermark,
                          (long long)seen[k].wm);
        seen[k].wm = ev->watermark;
    }
    free(seen);
}

Test(diag_counters, two_workers_watermarks_never_go_back, .timeout = 300)
{
    for (int run = 0; run < (WEIR_TEST_SANITIZED ? 2 : 5); run++) {
        weir_diag_memory *mem;
        cr_assert_eq(weir_diag_memory_create(&mem), 0);
        weir_job_config cfg = {.workers = 2, .watermark_interval_ms = 1,
                               .diag = {.memory = mem, .throughput_interval_ms = 1}};
        weir_job *job = tu_job(&cfg);
        weir_generator_config g = {.partitions = 3, .keys = 50, .rate = 1000, .disorder_ms = 30,
                                   .count = WEIR_TEST_SANITIZED ? 5000 : 20000,
                                   .seed = (uint64_t)run + 1};
        weir_stream *s = weir_source_generator(job, &g);
        weir_timestamps_spec ts = {.strategy = weir_watermarks_bounded(30)};
        s = weir_stream_set_parallelism(weir_stream_assign_timestamps(s, &ts), 3);
        s = weir_stream_set_parallelism(
            weir_stream_map(weir_stream_rebalance(s), sizeof(weir_gen_event), map_fn, NULL), 2);
        s = weir_stream_set_parallelism(
            weir_stream_filter(weir_stream_key_by(s, td_gen_keys()), filter_fn, NULL), 3);
        weir_stream *sink = weir_sink_discard(s);
        cr_assert_not_null(weir_stream_set_parallelism(sink, 2), "%s", weir_job_error(job));
        tu_run_ok(job);
        int valve_events = 0;
        assert_watermarks_monotonic(mem, &valve_events);
        cr_assert_gt(valve_events, 0);
        json_t *sum = td_summary(mem);
        td_assert_identities(sum);
        json_decref(sum);
        weir_job_destroy(job);
        weir_diag_memory_destroy(mem);
    }
}
