/* soak.c — `weir-bench --soak MINUTES`: one keyed event-time pipeline with
 * windows, diagnostics and repartitioning, run for minutes at a steady pace,
 * checked at the end against what went in, with the process's RSS sampled
 * all along to show that memory stays flat.
 *
 *   generator (p partitions, paced on the system clock, Zipf keys, disorder,
 *   a share of late events, partition p-1 idle for a quarter of every minute)
 *     -> tee (flat_map, chained: counts every event and folds it into a
 *        checksum, per partition)
 *     -> assign_timestamps (bounded out-of-orderness, idleness timeout)
 *     -> rebalance -> map (the 40-byte event to {key, value})
 *     -> key_by -> tumbling 1 s window (sum, purging event-time trigger,
 *        allowed lateness; late elements to a side output)
 *     -> sink of the window results; the late side output -> a second sink
 *   with the diagnostic channel at its default level (standard) written to
 *   a msgpack capture in $TMPDIR (removed at the end), and a diagnostic
 *   callback counting window_fire and late events.
 *
 * The check at the end is independent of the engine's windowing: the tee
 * sees every event before any channel and adds value * H(key, second of its
 * timestamp) for it; a window result adds sum * H(key, its start) and a late
 * record value * H(key, its second). With a purging trigger every element is
 * in exactly one firing or in the late output, so the two checksums agree
 * only if no record was lost, duplicated, put in the wrong window or under
 * the wrong key, and no window fired twice with the same contents. The
 * counts must agree too (the tee's, the results' counts plus the late
 * records, and the generator's documented schedule computed here from
 * weir_generator_nominal), and the diagnostic callback must have seen one
 * window_fire per result and one side-output late event per late record.
 *
 * RSS (/proc/self/statm) is sampled every few seconds by a second thread
 * while weir_job_run() runs. The bound: after the warm-up (the first 10% of
 * the run, at most a minute), RSS may not exceed its value at the end of the
 * warm-up by more than 10% + 4 MB. Builds with a sanitizer print the figures
 * but do not enforce the bound (ASan's quarantine keeps freed memory).
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define SOAK_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define SOAK_SANITIZED 1
#endif
#endif
#ifndef SOAK_SANITIZED
#define SOAK_SANITIZED 0
#endif

#define SOAK_KEYS 1000
#define SOAK_WINDOW_MS 1000
#define SOAK_LATENESS_MS 200
#define SOAK_DISORDER_MS 100
#define SOAK_LATE_FRACTION 0.001
#define SOAK_LATE_MS 300
#define SOAK_IDLENESS_MS 500
/* Event time starts here so that no timestamp is negative (the largest
 * delay is disorder + 2 * late + 1 ms): a window's start is ts - ts % size. */
#define SOAK_START_MS 10000
#define SOAK_SEED 16
#define SOAK_LATE_TAG WEIR_WINDOW_LATE_TAG
/* The RSS bound after the warm-up: 10% + 4 MB over the value at its end. */
#define SOAK_RSS_GROWTH 0.10
#define SOAK_RSS_SLACK (4.0 * 1024 * 1024)
#define SOAK_MAX_SAMPLES 4096

/* A window result. */
typedef struct soak_result {
    int64_t key, start, sum, count;
    int64_t firing; /* 0 on time, n the n-th late firing */
} soak_result;

/* The tee's totals for one partition; `count` is read by the sampler while
 * the job runs (relaxed: a progress figure), the rest after the run. */
typedef struct soak_tee {
    _Alignas(64) _Atomic uint64_t count;
    uint64_t sum;
    uint64_t flagged; /* events the generator made late on purpose */
} soak_tee;

/* One sink subtask's totals (results and late records alike). */
typedef struct soak_sink {
    _Alignas(64) uint64_t results, late_firings, records, sum;
} soak_sink;

/* What the diagnostic callback counted (the collector thread writes, the
 * harness reads after weir_job_destroy). */
typedef struct soak_diag {
    uint64_t events, fires, late_side, late_dropped;
} soak_diag;

/* The checksum weight of (key, window start): the window scenarios' mix of
 * both (with a count of 0). */
static uint64_t weight(int64_t key, int64_t start)
{
    return bench_result_mix(key, start, 0);
}

static int64_t window_of(int64_t ts)
{
    return ts - ts % SOAK_WINDOW_MS; /* ts >= 0: see SOAK_START_MS */
}

static int tee(weir_ctx *ctx, const void *in, int64_t timestamp, void *arg)
{
    const weir_gen_event *e = in;
    soak_tee *t = &((soak_tee *)arg)[weir_ctx_subtask(ctx)];
    atomic_store_explicit(&t->count, atomic_load_explicit(&t->count, memory_order_relaxed) + 1,
                          memory_order_relaxed);
    t->sum += (uint64_t)e->value * weight(e->key, window_of(e->timestamp));
    t->flagged += (uint64_t)e->late;
    return weir_emit(ctx, in, timestamp);
}

static int project(const void *in, void *out, void *arg)
{
    (void)arg;
    const weir_gen_event *e = in;
    *(bench_elem *)out = (bench_elem){.key = e->key, .value = e->value};
    return 0;
}

static void sum_add(void *acc, const void *elem, void *arg)
{
    (void)arg;
    *(int64_t *)acc += ((const bench_elem *)elem)->value;
}

static void sum_result(const void *acc, const weir_window_info *w, void *out, void *arg)
{
    (void)arg;
    soak_result *r = out;
    memcpy(&r->key, w->key, sizeof r->key);
    r->start = w->start;
    r->sum = *(const int64_t *)acc;
    r->count = w->count;
    r->firing = w->firing;
}

static int sink_result(const void *elem, int64_t timestamp, int subtask, void *arg)
{
    (void)timestamp;
    const soak_result *r = elem;
    soak_sink *s = &((soak_sink *)arg)[subtask];
    s->results++;
    s->late_firings += r->firing > 0;
    s->records += (uint64_t)r->count;
    s->sum += (uint64_t)r->sum * weight(r->key, r->start);
    return 0;
}

static int sink_late(const void *elem, int64_t timestamp, int subtask, void *arg)
{
    const bench_elem *e = elem;
    soak_sink *s = &((soak_sink *)arg)[subtask];
    s->records++;
    s->sum += (uint64_t)e->value * weight(e->key, window_of(timestamp));
    return 0;
}

static void diag_count(const weir_diag_event *ev, void *arg)
{
    soak_diag *d = arg;
    d->events++;
    if (ev->kind == WEIR_DIAG_KIND_WINDOW_FIRE)
        d->fires++;
    else if (ev->kind == WEIR_DIAG_KIND_LATE)
        *(ev->dropped ? &d->late_dropped : &d->late_side) += 1;
}

/* ---- the schedule ------------------------------------------------------------ */

/* How many slots of the generator have a nominal time before t: the first
 * slot at or after t, by bisection (nominal times do not decrease). */
static int64_t slots_before(const weir_generator_config *c, int64_t t)
{
    if (t <= c->start_ms)
        return 0;
    int64_t lo = 0, hi = 2 + (int64_t)((double)(t - c->start_ms) * c->rate / 1000.0);
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        if (weir_generator_nominal(c, mid) < t)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Events the generator emits in all: every partition's slots before the end
 * of the duration, less the slots of its idle intervals (they do not
 * overlap here). */
static uint64_t expected_events(const weir_generator_config *c, int partitions)
{
    int64_t end = c->start_ms + c->duration_ms;
    uint64_t n = (uint64_t)partitions * (uint64_t)slots_before(c, end);
    for (int i = 0; i < c->nidle; i++) {
        int64_t from = c->idle[i].from_ms, to = c->idle[i].to_ms < end ? c->idle[i].to_ms : end;
        if (to > from)
            n -= (uint64_t)(slots_before(c, to) - slots_before(c, from));
    }
    return n;
}

/* ---- RSS ----------------------------------------------------------------------- */

static double rss_bytes(void)
{
    unsigned long size = 0, resident = 0;
    FILE *f = fopen("/proc/self/statm", "r");
    if (!f)
        return 0;
    int n = fscanf(f, "%lu %lu", &size, &resident);
    fclose(f);
    return n == 2 ? (double)resident * (double)sysconf(_SC_PAGESIZE) : 0;
}

typedef struct soak_sample {
    double t, rss;
    uint64_t records;
} soak_sample;

typedef struct sampler {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    bool stop;
    double t0, interval;
    const soak_tee *tee;
    int partitions;
    bool quiet;
    soak_sample samples[SOAK_MAX_SAMPLES];
    int nsamples;
} sampler;

static uint64_t tee_count(const soak_tee *t, int n)
{
    uint64_t c = 0;
    for (int i = 0; i < n; i++)
        c += atomic_load_explicit(&t[i].count, memory_order_relaxed);
    return c;
}

static void take_sample(sampler *s)
{
    soak_sample x = {bench_now() - s->t0, rss_bytes(), tee_count(s->tee, s->partitions)};
    if (s->nsamples < SOAK_MAX_SAMPLES)
        s->samples[s->nsamples++] = x;
    if (!s->quiet)
        fprintf(stderr, "soak: %7.1f s %12" PRIu64 " records %8.0f k/s  rss %6.1f MB\n", x.t,
                x.records, x.t > 0 ? (double)x.records / x.t / 1e3 : 0.0, x.rss / 1048576);
}

static void *sampler_main(void *arg)
{
    sampler *s = arg;
    pthread_mutex_lock(&s->lock);
    for (int k = 1; !s->stop; k++) {
        double due = s->t0 + k * s->interval - bench_now();
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        if (due > 0) {
            int64_t ns = ts.tv_nsec + (int64_t)(due * 1e9);
            ts.tv_sec += (time_t)(ns / 1000000000);
            ts.tv_nsec = (long)(ns % 1000000000);
            while (!s->stop && pthread_cond_timedwait(&s->cond, &s->lock, &ts) != ETIMEDOUT)
                ;
        }
        if (!s->stop)
            take_sample(s);
    }
    pthread_mutex_unlock(&s->lock);
    return NULL;
}

/* ---- the run ------------------------------------------------------------------------ */

static weir_generator_config generator_config(const bench_soak_params *sp)
{
    weir_generator_config g = {
        .name = "generator",
        .partitions = sp->parallelism,
        .keys = SOAK_KEYS,
        .skew = WEIR_GEN_ZIPF,
        .zipf_s = 1.0,
        .rate = sp->rate / sp->parallelism,
        .start_ms = SOAK_START_MS,
        .pace = WEIR_GEN_PACED,
        .speed = 1.0,
        .disorder_ms = SOAK_DISORDER_MS,
        .late_fraction = SOAK_LATE_FRACTION,
        .late_ms = SOAK_LATE_MS,
        .duration_ms = sp->seconds * 1000,
        .seed = SOAK_SEED,
    };
    /* The last partition goes quiet for the second quarter of every minute
     * (of every fifth of a run shorter than 5 minutes), at most 16 times. */
    int64_t segments = sp->seconds >= 300 ? sp->seconds / 60 : 5;
    if (segments > WEIR_GEN_MAX_IDLE)
        segments = WEIR_GEN_MAX_IDLE;
    int64_t seg = g.duration_ms / segments;
    for (int64_t i = 0; i < segments && seg >= 4; i++) {
        g.idle[g.nidle++] = (weir_gen_idle){
            .partition = sp->parallelism - 1,
            .from_ms = SOAK_START_MS + i * seg + seg / 4,
            .to_ms = SOAK_START_MS + i * seg + seg / 2,
        };
    }
    return g;
}

typedef struct totals {
    uint64_t tee, tee_sum, flagged, results, late_firings, window_records, late_records, sum;
} totals;

static void add_up(const soak_tee *tee, const soak_sink *res, const soak_sink *late, int n,
                   totals *t)
{
    *t = (totals){0};
    for (int i = 0; i < n; i++) {
        t->tee += atomic_load_explicit(&tee[i].count, memory_order_relaxed);
        t->tee_sum += tee[i].sum;
        t->flagged += tee[i].flagged;
        t->results += res[i].results;
        t->late_firings += res[i].late_firings;
        t->window_records += res[i].records;
        t->late_records += late[i].records;
        t->sum += res[i].sum + late[i].sum;
    }
}

/* The checks of the header comment; prints what failed, returns the number
 * of failures. */
static int check(const totals *t, uint64_t expected, const soak_diag *d)
{
    int bad = 0;
    if (t->tee != expected) {
        fprintf(stderr, "weir-bench: soak: the tee saw %" PRIu64 " events, the schedule has %" PRIu64 "\n",
                t->tee, expected);
        bad++;
    }
    if (t->window_records + t->late_records != t->tee) {
        fprintf(stderr,
                "weir-bench: soak: the windows counted %" PRIu64 " records and %" PRIu64
                " were late: %" PRIu64 ", the tee saw %" PRIu64 "\n",
                t->window_records, t->late_records, t->window_records + t->late_records, t->tee);
        bad++;
    }
    if (t->sum != t->tee_sum) {
        fprintf(stderr,
                "weir-bench: soak: the window results' checksum %016" PRIx64
                " is not the tee's %016" PRIx64 "\n",
                t->sum, t->tee_sum);
        bad++;
    }
    if (d->fires != t->results) {
        fprintf(stderr,
                "weir-bench: soak: %" PRIu64 " window_fire events but %" PRIu64 " results\n",
                d->fires, t->results);
        bad++;
    }
    if (d->late_side != t->late_records || d->late_dropped != 0) {
        fprintf(stderr,
                "weir-bench: soak: %" PRIu64 " late events to the side output and %" PRIu64
                " dropped, but %" PRIu64 " late records\n",
                d->late_side, d->late_dropped, t->late_records);
        bad++;
    }
    return bad;
}

/* Judges RSS after the warm-up; prints the figures. Returns 0, or 1 if the
 * bound was passed. */
static int judge_rss(const sampler *s, double seconds, double rss_start, double rss_end)
{
    double warmup = seconds * 0.10;
    if (warmup > 60)
        warmup = 60;
    double base = 0, base_t = 0, max = 0, max_t = 0;
    for (int i = 0; i < s->nsamples; i++) {
        const soak_sample *x = &s->samples[i];
        if (base == 0 && x->t >= warmup) {
            base = x->rss;
            base_t = x->t;
        } else if (base > 0 && x->rss > max) {
            max = x->rss;
            max_t = x->t;
        }
    }
    if (rss_end > max) {
        max = rss_end;
        max_t = seconds;
    }
    if (base == 0) {
        printf("rss       start %.1f MB, end %.1f MB: too short a run for the bound\n",
               rss_start / 1048576, rss_end / 1048576);
        return 0;
    }
    double bound = base * (1 + SOAK_RSS_GROWTH) + SOAK_RSS_SLACK;
    bool ok = max <= bound;
    printf("rss       start %.1f MB, after warm-up (%.0f s) %.1f MB, max after %.1f MB (%.0f s), "
           "end %.1f MB; bound %.1f MB (+10%% + 4 MB): %s\n",
           rss_start / 1048576, base_t, base / 1048576, max / 1048576, max_t,
           rss_end / 1048576, bound / 1048576,
           ok ? "ok" : SOAK_SANITIZED ? "EXCEEDED (not enforced: sanitizer build)" : "EXCEEDED");
    return ok || SOAK_SANITIZED ? 0 : 1;
}

int bench_soak(const bench_soak_params *sp)
{
    const int p = sp->parallelism;
    weir_generator_config g = generator_config(sp);
    char why[256];
    if (weir_generator_check(&g, p, why, sizeof why) < 0) {
        fprintf(stderr, "weir-bench: soak: %s\n", why);
        return 2;
    }
    const uint64_t expected = expected_events(&g, p);

    /* Diagnostics as a user turns them on: the default level into a msgpack
     * capture file, and a callback that counts. */
    const char *dir = getenv("TMPDIR");
    if (!dir || !*dir)
        dir = "/tmp";
    char path[512];
    if (snprintf(path, sizeof path, "%s/weir-bench-soak-%ld.msgpack", dir, (long)getpid()) >=
        (int)sizeof path) {
        fprintf(stderr, "weir-bench: soak: TMPDIR is too long for a capture path\n");
        return 1;
    }
    unlink(path);
    soak_diag dc = {0};
    weir_diag_config diag = {
        .level = WEIR_DIAG_STANDARD,
        .msgpack_path = path,
        .callback = diag_count,
        .callback_arg = &dc,
    };
    bench_params bp = {.parallelism = p, .workers = sp->workers, .batch = sp->batch};
    char err[1024];
    soak_tee *teeacc = aligned_alloc(_Alignof(soak_tee), (size_t)p * sizeof *teeacc);
    soak_sink *res = aligned_alloc(_Alignof(soak_sink), (size_t)p * sizeof *res);
    soak_sink *late = aligned_alloc(_Alignof(soak_sink), (size_t)p * sizeof *late);
    sampler *smp = calloc(1, sizeof *smp);
    weir_job *job = NULL;
    bool smp_init = false;
    int status = 1;
    if (!teeacc || !res || !late || !smp) {
        fprintf(stderr, "weir-bench: soak: out of memory\n");
        goto out;
    }
    for (int i = 0; i < p; i++) {
        atomic_init(&teeacc[i].count, 0);
        teeacc[i].sum = teeacc[i].flagged = 0;
        res[i] = late[i] = (soak_sink){0};
    }
    job = bench_job_create(&bp, 0, &diag, err, sizeof err);
    if (!job) {
        fprintf(stderr, "weir-bench: soak: %s\n", err);
        goto out;
    }

    weir_timestamps_spec ts = {
        .strategy = weir_watermarks_with_idleness(weir_watermarks_bounded(SOAK_DISORDER_MS),
                                                  SOAK_IDLENESS_MS)};
    weir_window_spec ws = {
        .name = "window",
        .assigner = weir_window_tumbling(SOAK_WINDOW_MS, 0),
        .trigger = {.kind = WEIR_TRIGGER_EVENT_TIME, .purging = true},
        .allowed_lateness_ms = SOAK_LATENESS_MS,
        .late_tag = SOAK_LATE_TAG,
        .aggregate = {.acc_size = sizeof(int64_t), .add = sum_add, .result = sum_result},
        .out_size = sizeof(soak_result),
    };
    /* Builder calls pass NULL along after an error; weir_job_run reports it. */
    weir_stream *s = weir_source_generator(job, &g);
    s = weir_stream_flat_map(s, sizeof(weir_gen_event), tee, teeacc);
    s = weir_stream_assign_timestamps(s, &ts);
    s = weir_stream_map(weir_stream_rebalance(s), sizeof(bench_elem), project, NULL);
    weir_stream *w = weir_stream_window(weir_stream_key_by(s, bench_key_spec()), &ws);
    weir_sink_callback(w, sink_result, res);
    weir_sink_callback(weir_stream_side_output(w, SOAK_LATE_TAG), sink_late, late);

    smp->interval = sp->seconds >= 60 ? 5 : 1;
    smp->tee = teeacc;
    smp->partitions = p;
    smp->quiet = sp->quiet;
    pthread_mutex_init(&smp->lock, NULL);
    pthread_cond_init(&smp->cond, NULL);
    smp_init = true;
    if (!sp->quiet)
        fprintf(stderr,
                "weir-bench: soak for %" PRId64 " s: %d partitions, %.0f records/s, %d keys, "
                "RSS every %.0f s\n",
                sp->seconds, p, sp->rate, SOAK_KEYS, smp->interval);
    double rss_start = rss_bytes();
    smp->t0 = bench_now();
    pthread_t th;
    bool sampling = pthread_create(&th, NULL, sampler_main, smp) == 0;
    int r = weir_job_run(job);
    double elapsed = bench_now() - smp->t0;
    double rss_end = rss_bytes();
    if (sampling) {
        pthread_mutex_lock(&smp->lock);
        smp->stop = true;
        pthread_cond_signal(&smp->cond);
        pthread_mutex_unlock(&smp->lock);
        pthread_join(th, NULL);
    }
    if (r < 0) {
        fprintf(stderr, "weir-bench: soak: weir_job_run: %s: %s\n", weir_strerror(r),
                weir_job_error(job));
        goto out;
    }
    int workers = weir_job_get_config(job)->workers;
    weir_job_destroy(job); /* joins the collector: the callback's counts are final */
    job = NULL;
    struct stat st;
    double capture_mb = stat(path, &st) == 0 ? (double)st.st_size / 1048576 : -1;

    totals t;
    add_up(teeacc, res, late, p, &t);
    int bad = check(&t, expected, &dc);
    printf("soak      %" PRId64 " s of schedule in %.1f s, p=%d, %d workers, %d keys (zipf), "
           "%.0f records/s asked\n",
           sp->seconds, elapsed, p, workers, SOAK_KEYS, sp->rate);
    printf("records   %" PRIu64 " (schedule %" PRIu64 "), %.0f records/s; %" PRIu64
           " made late by the generator\n",
           t.tee, expected, (double)t.tee / elapsed, t.flagged);
    printf("windows   %" PRIu64 " results (%" PRIu64 " late firings) counting %" PRIu64
           " records; %" PRIu64 " late records to the side output\n",
           t.results, t.late_firings, t.window_records, t.late_records);
    printf("checksum  %016" PRIx64 " (tee) %s %016" PRIx64 " (sinks): %s\n", t.tee_sum,
           t.sum == t.tee_sum ? "=" : "!=", t.sum, bad ? "FAILED" : "ok");
    printf("diag      %" PRIu64 " events, %.1f MB msgpack; %" PRIu64 " window_fire, %" PRIu64
           " late (side output)\n",
           dc.events, capture_mb, dc.fires, dc.late_side);
    int rss_bad = judge_rss(smp, elapsed, rss_start, rss_end);
    status = bad || rss_bad ? 1 : 0;
out:
    if (job)
        weir_job_destroy(job);
    unlink(path);
    if (smp_init) {
        pthread_mutex_destroy(&smp->lock);
        pthread_cond_destroy(&smp->cond);
    }
    free(teeacc);
    free(res);
    free(late);
    free(smp);
    return status;
}
