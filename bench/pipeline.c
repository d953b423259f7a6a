/* pipeline.c — the pieces scenario files build their jobs from: the job
 * configuration every run uses, the counting and paced sources, the sink
 * accumulators, the timed run and the check that nothing was lost.
 *
 * Both sources are user-callback sources (weir_job_add_source), written
 * exactly as a user of weir would write one: one state per subtask made in
 * open(), weir_ctx_batch_hint() records per next(), never blocking.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"

int64_t bench_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

double bench_now(void)
{
    return (double)bench_now_ns() / 1e9;
}

static double self_cpu(void)
{
    struct rusage ru;
    if (getrusage(RUSAGE_SELF, &ru) != 0)
        return 0;
    return (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
           (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

/* Busy CPU seconds of the whole machine since boot (every field of the
 * aggregate "cpu" line but idle and iowait), or 0 if /proc/stat is missing. */
static double machine_busy(void)
{
    unsigned long long v[10] = {0};
    FILE *f = fopen("/proc/stat", "r");
    if (!f)
        return 0;
    int n = fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1],
                   &v[2], &v[3], &v[4], &v[5], &v[6], &v[7], &v[8], &v[9]);
    fclose(f);
    if (n < 8)
        return 0;
    /* user nice system idle iowait irq softirq steal [guest guest_nice]:
     * guest time is already counted in user. */
    unsigned long long busy = v[0] + v[1] + v[2] + v[5] + v[6] + v[7];
    return (double)busy / (double)sysconf(_SC_CLK_TCK);
}

void bench_timer_start(bench_timer *t)
{
    t->busy = machine_busy();
    t->self = self_cpu();
    t->wall = bench_now();
}

void bench_timer_stop(const bench_timer *t, bench_result *out)
{
    double wall = bench_now();
    double self = self_cpu();
    double busy = machine_busy();
    out->seconds = wall - t->wall;
    out->cpu_self = self - t->self;
    out->cpu_other = busy - t->busy - out->cpu_self;
    if (out->cpu_other < 0)
        out->cpu_other = 0; /* the two clocks' resolutions differ */
}

const char *bench_http_addr;

weir_job *bench_job_create(const bench_params *p, int64_t buffer_timeout_ms,
                           const weir_diag_config *diag, char *err, size_t errsize)
{
    weir_job_config cfg = {
        .workers = p->workers,
        .parallelism = p->parallelism,
        .batch_capacity = p->batch,
        .buffer_timeout_ms = buffer_timeout_ms,
        .diag = {.level = WEIR_DIAG_OFF},
    };
    if (diag)
        cfg.diag = *diag;
    cfg.http_addr = bench_http_addr;
    weir_job *job = NULL;
    int r = weir_job_create(&cfg, &job);
    if (r < 0) {
        snprintf(err, errsize, "weir_job_create: %s", weir_strerror(r));
        return NULL;
    }
    return job;
}

/* ---- sources -------------------------------------------------------------- */

typedef struct source_arg {
    int64_t records;
    double rate; /* 0: as fast as possible */
    int64_t sample_every;       /* paced: one record in this many stamped */
    _Atomic int64_t *start_ns;  /* paced events: the start all subtasks share */
} source_arg;

typedef struct source_state {
    void (*gen)(int64_t seq, bench_elem *out);
    int64_t (*gen_event)(int64_t seq, bench_elem *out); /* the event-time source */
    int64_t begin, next, end; /* this subtask's sequence numbers [begin, end) */
    int64_t step;             /* the event-time source: next += step */
    double rate;              /* this subtask's records/s (paced) */
    int64_t start_ns;         /* when the first next() ran (paced) */
    int64_t sample_mask;      /* paced: stamped when (q & mask) == 0 */
    _Atomic int64_t *shared_start; /* paced events */
} source_state;

static int source_open(weir_ctx *ctx)
{
    const source_arg *a = weir_ctx_arg(ctx);
    source_state *s = calloc(1, sizeof *s);
    if (!s)
        return WEIR_ENOMEM;
    int64_t i = weir_ctx_subtask(ctx), p = weir_ctx_parallelism(ctx);
    s->gen = bench_work_get()->gen;
    s->begin = a->records / p * i + (i < a->records % p ? i : a->records % p);
    s->end = s->begin + a->records / p + (i < a->records % p ? 1 : 0);
    s->next = s->begin;
    s->rate = a->rate / (double)p;
    s->sample_mask = a->sample_every > 1 ? a->sample_every - 1 : 0;
    weir_ctx_set_state(ctx, s);
    return 0;
}

static void source_close(weir_ctx *ctx)
{
    free(weir_ctx_state(ctx));
}

static int counting_next(weir_ctx *ctx)
{
    source_state *s = weir_ctx_state(ctx);
    int64_t stop = s->next + weir_ctx_batch_hint(ctx);
    if (stop > s->end)
        stop = s->end;
    bench_elem e;
    for (int64_t q = s->next; q < stop; q++) {
        s->gen(q, &e);
        int r = weir_emit(ctx, &e, q);
        if (r < 0)
            return r;
    }
    s->next = stop;
    return stop == s->end ? WEIR_SOURCE_END : WEIR_SOURCE_MORE;
}

/* How far a paced subtask is: the records due by `now` (the first is due at
 * once), capped at its end and at one batch past what it emitted. */
static int64_t paced_stop(weir_ctx *ctx, const source_state *s, int64_t now, int64_t emitted,
                          int64_t *due)
{
    *due = 1 + (int64_t)((double)(now - s->start_ns) * s->rate / 1e9);
    int64_t stop = emitted + weir_ctx_batch_hint(ctx);
    return stop < *due ? stop : *due;
}

/* After a paced next(): MORE if records are due, else a wait until the next
 * one is (the job clock has millisecond resolution, so at 100k records/s
 * records leave in bursts of about 100 a millisecond; each record's latency
 * is still measured from its own emit time). */
static int paced_wait(weir_ctx *ctx, const source_state *s, int64_t now, int64_t emitted,
                      int64_t due)
{
    if (emitted < due)
        return WEIR_SOURCE_MORE;
    double wait_ns = (double)emitted * 1e9 / s->rate - (double)(now - s->start_ns);
    int64_t wait_ms = (int64_t)ceil(wait_ns / 1e6);
    weir_source_wait_until(ctx, weir_ctx_now(ctx) + (wait_ms < 1 ? 1 : wait_ms));
    return WEIR_SOURCE_WAIT;
}

/* Emits what is due by now at the subtask's rate (record k of the subtask is
 * due k/rate seconds after the first call), the sampled ones stamped with
 * their CLOCK_MONOTONIC emit time (bench.h: bench_stamped). */
static int paced_next(weir_ctx *ctx)
{
    source_state *s = weir_ctx_state(ctx);
    int64_t now = bench_now_ns();
    if (s->start_ns == 0)
        s->start_ns = now;
    int64_t due;
    int64_t stop = s->begin + paced_stop(ctx, s, now, s->next - s->begin, &due);
    if (stop > s->end)
        stop = s->end;
    bench_elem e;
    for (int64_t q = s->next; q < stop; q++) {
        s->gen(q, &e);
        e.value = (q & s->sample_mask) == 0 ? bench_now_ns() | 1 : 0;
        int r = weir_emit(ctx, &e, q);
        if (r < 0)
            return r;
    }
    s->next = stop > s->next ? stop : s->next;
    if (s->next == s->end)
        return WEIR_SOURCE_END;
    return paced_wait(ctx, s, now, s->next - s->begin, due);
}

/* The event-time source: subtask i of p generates the sequence numbers
 * i, i + p, i + 2p, ... < records through work->gen_event, with its
 * timestamp. Strided rather than sliced, so that every subtask walks through
 * the same event time at the same pace, as the partitions of one log would:
 * with slices, subtask 1 would start seconds of event time ahead and the
 * windows would wait for subtask 0's watermark to get there. */
static int events_open(weir_ctx *ctx)
{
    const source_arg *a = weir_ctx_arg(ctx);
    source_state *s = calloc(1, sizeof *s);
    if (!s)
        return WEIR_ENOMEM;
    s->gen_event = bench_work_get()->gen_event;
    s->next = weir_ctx_subtask(ctx);
    s->step = weir_ctx_parallelism(ctx);
    s->end = a->records;
    weir_ctx_set_state(ctx, s);
    return 0;
}

static int events_next(weir_ctx *ctx)
{
    source_state *s = weir_ctx_state(ctx);
    bench_elem e;
    int64_t q = s->next;
    for (int n = weir_ctx_batch_hint(ctx); n > 0 && q < s->end; n--, q += s->step) {
        int64_t ts = s->gen_event(q, &e);
        int r = weir_emit(ctx, &e, ts);
        if (r < 0)
            return r;
    }
    s->next = q;
    return q >= s->end ? WEIR_SOURCE_END : WEIR_SOURCE_MORE;
}

static int paced_events_open(weir_ctx *ctx)
{
    int r = events_open(ctx);
    if (r == 0) {
        const source_arg *a = weir_ctx_arg(ctx);
        source_state *s = weir_ctx_state(ctx);
        s->rate = a->rate / (double)s->step;
        s->shared_start = a->start_ns;
    }
    return r;
}

/* The paced event-time source (bench.h): record k of the subtask (sequence
 * number i + k p) is due k / rate seconds after the shared start, and its
 * timestamp is that in milliseconds less gen_event's disorder. */
static int paced_events_next(weir_ctx *ctx)
{
    source_state *s = weir_ctx_state(ctx);
    int64_t now = bench_now_ns();
    if (s->start_ns == 0) {
        int64_t none = 0;
        atomic_compare_exchange_strong(s->shared_start, &none, now);
        s->start_ns = atomic_load(s->shared_start);
    }
    int64_t done = (s->next - weir_ctx_subtask(ctx)) / s->step, due;
    int64_t stop = paced_stop(ctx, s, now, done, &due);
    bench_elem e;
    int64_t q = s->next;
    for (int64_t k = done; k < stop && q < s->end; k++, q += s->step) {
        int64_t disorder = q / BENCH_EVENTS_PER_MS - s->gen_event(q, &e);
        int64_t due_ms = (int64_t)((double)k * 1e3 / s->rate);
        int r = weir_emit(ctx, &e, due_ms - disorder);
        if (r < 0)
            return r;
    }
    s->next = q;
    if (q >= s->end)
        return WEIR_SOURCE_END;
    return paced_wait(ctx, s, now, (q - weir_ctx_subtask(ctx)) / s->step, due);
}

static const weir_source_vtable paced_events_vtable = {
    .version = WEIR_SOURCE_VTABLE_V1,
    .open = paced_events_open,
    .next = paced_events_next,
    .close = source_close,
};

/* The event-time source's position, for the checkpoint scenario: the next
 * sequence number. */
static int events_snapshot(weir_ctx *ctx, weir_snapshot_writer *w)
{
    const source_state *s = weir_ctx_state(ctx);
    return weir_snapshot_write(w, &s->next, sizeof s->next);
}

static int events_restore(weir_ctx *ctx, weir_snapshot_reader *r)
{
    source_state *s = weir_ctx_state(ctx);
    const void *data;
    size_t len;
    while (weir_snapshot_next(r, &data, &len) == 1) {
        if (len != sizeof s->next)
            return WEIR_EFORMAT;
        memcpy(&s->next, data, sizeof s->next);
    }
    return 0;
}

static const weir_source_vtable events_vtable = {
    .version = WEIR_SOURCE_VTABLE_V2,
    .open = events_open,
    .next = events_next,
    .close = source_close,
    .snapshot = events_snapshot,
    .restore = events_restore,
};

static const weir_source_vtable counting_vtable = {
    .version = WEIR_SOURCE_VTABLE_V1,
    .open = source_open,
    .next = counting_next,
    .close = source_close,
};

static const weir_source_vtable paced_vtable = {
    .version = WEIR_SOURCE_VTABLE_V1,
    .open = source_open,
    .next = paced_next,
    .close = source_close,
};

static weir_stream *add_source(weir_job *job, const weir_source_vtable *vt, const char *name,
                               const source_arg *arg)
{
    source_arg *a = malloc(sizeof *a);
    if (!a) {
        weir_job_record_error(job, WEIR_ENOMEM, "bench source: out of memory");
        return NULL;
    }
    *a = *arg;
    weir_source_spec spec = {
        .name = name,
        .vtable = vt,
        .arg = a,
        .arg_free = free,
        .elem_size = sizeof(bench_elem),
    };
    return weir_job_add_source(job, &spec);
}

weir_stream *bench_source_counting(weir_job *job, int64_t records)
{
    return add_source(job, &counting_vtable, "source", &(source_arg){.records = records});
}

weir_stream *bench_source_events(weir_job *job, int64_t records)
{
    return add_source(job, &events_vtable, "events", &(source_arg){.records = records});
}

weir_stream *bench_source_paced(weir_job *job, int64_t records, double rate,
                                int64_t sample_every)
{
    source_arg a = {.records = records, .rate = rate, .sample_every = sample_every};
    return add_source(job, &paced_vtable, "paced-source", &a);
}

weir_stream *bench_source_paced_events(weir_job *job, int64_t records, double rate,
                                       _Atomic int64_t *start_ns)
{
    source_arg a = {.records = records, .rate = rate, .start_ns = start_ns};
    return add_source(job, &paced_events_vtable, "paced-events", &a);
}

/* ---- sinks, timing, checking ---------------------------------------------- */

bench_acc *bench_acc_create(int n)
{
    bench_acc *acc = aligned_alloc(_Alignof(bench_acc), (size_t)n * sizeof *acc);
    if (acc)
        memset(acc, 0, (size_t)n * sizeof *acc);
    return acc;
}

void bench_acc_total(const bench_acc *acc, int n, uint64_t *count, uint64_t *sum)
{
    *count = 0;
    *sum = 0;
    for (int i = 0; i < n; i++) {
        *count += acc[i].count;
        *sum += acc[i].sum;
    }
}

int bench_job_time(weir_job *job, bench_result *out, char *err, size_t errsize)
{
    out->workers = weir_job_get_config(job)->workers;
    bench_timer t;
    bench_timer_start(&t);
    int r = weir_job_run(job);
    bench_timer_stop(&t, out);
    if (r < 0) {
        snprintf(err, errsize, "weir_job_run: %s: %s", weir_strerror(r), weir_job_error(job));
        return -1;
    }
    return 0;
}

int bench_verify(const bench_acc *acc, int n, int64_t records, bench_shape shape, bool check_sum,
                 char *err, size_t errsize)
{
    uint64_t want_count, want_sum, count, sum;
    bench_expected(records, shape, &want_count, &want_sum);
    bench_acc_total(acc, n, &count, &sum);
    if (count != want_count) {
        snprintf(err, errsize, "the sinks received %" PRIu64 " records, expected %" PRIu64, count,
                 want_count);
        return -1;
    }
    if (check_sum && sum != want_sum) {
        snprintf(err, errsize, "checksum %016" PRIx64 ", expected %016" PRIx64, sum, want_sum);
        return -1;
    }
    return 0;
}

/* ---- diagnostics ------------------------------------------------------------ */

int bench_diag_init(bench_diag *d, weir_diag_level level, char *err, size_t errsize)
{
    const char *dir = getenv("TMPDIR");
    if (!dir || !*dir)
        dir = "/tmp";
    int n = snprintf(d->path, sizeof d->path, "%s/weir-bench-%ld.jsonl", dir, (long)getpid());
    if (n < 0 || (size_t)n >= sizeof d->path) {
        snprintf(err, errsize, "TMPDIR is too long for a capture path");
        return -1;
    }
    unlink(d->path);
    d->cfg = (weir_diag_config){.level = level, .jsonl_path = d->path};
    return 0;
}

int bench_diag_finish(bench_diag *d, bench_result *out, char *err, size_t errsize)
{
    out->diag_events = 0;
    FILE *f = fopen(d->path, "r");
    if (!f) {
        if (d->cfg.level == WEIR_DIAG_OFF)
            return 0; /* off writes nothing */
        snprintf(err, errsize, "diagnostics were on but %s was not written", d->path);
        return -1;
    }
    char buf[1 << 16];
    size_t got;
    int64_t lines = 0;
    while ((got = fread(buf, 1, sizeof buf, f)) > 0) {
        for (size_t i = 0; i < got; i++)
            lines += buf[i] == '\n';
    }
    fclose(f);
    unlink(d->path);
    out->diag_events = lines;
    if (d->cfg.level == WEIR_DIAG_OFF) {
        snprintf(err, errsize, "diagnostics were off but %s was written", d->path);
        return -1;
    }
    if (lines < 2) { /* at least the job and the summary event */
        snprintf(err, errsize, "the capture %s has %lld events", d->path, (long long)lines);
        return -1;
    }
    return 0;
}

/* ---- chain-like pipelines ------------------------------------------------- */

int bench_run_pipeline(const bench_pipeline *pl, const bench_params *p, bench_result *out,
                       char *err, size_t errsize)
{
    const bench_work *w = bench_work_get();
    bench_diag diag;
    if (pl->diag && bench_diag_init(&diag, pl->diag, err, errsize) < 0)
        return -1;
    weir_job *job = bench_job_create(p, 0, pl->diag ? &diag.cfg : NULL, err, errsize);
    if (!job)
        return -1;
    bench_acc *acc = bench_acc_create(p->parallelism);
    if (!acc) {
        weir_job_destroy(job);
        snprintf(err, errsize, "out of memory");
        return -1;
    }
    /* Builder calls pass NULL along after an error; weir_job_run reports it. */
    weir_stream *s = bench_source_counting(job, p->records);
    if (pl->timestamps) {
        weir_timestamps_spec ts = {.strategy = pl->strategy};
        s = weir_stream_assign_timestamps(s, &ts);
    }
    if (pl->shuffle)
        s = weir_stream_key_by(s, bench_key_spec());
    s = weir_stream_map(s, sizeof(bench_elem), w->map, NULL);
    if (pl->shuffle)
        s = weir_stream_key_by(s, bench_key_spec());
    else if (pl->rebalance)
        s = weir_stream_rebalance(s);
    s = weir_stream_filter(s, w->filter, NULL);
    if (pl->shuffle)
        s = weir_stream_key_by(s, bench_key_spec());
    weir_sink_callback(s, w->sink, acc);
    int r = bench_job_time(job, out, err, errsize);
    if (r == 0)
        r = bench_verify(acc, p->parallelism, p->records, BENCH_SHAPE_MAP_FILTER, true, err,
                         errsize);
    weir_job_destroy(job);
    if (pl->diag) {
        char derr[256];
        if (bench_diag_finish(&diag, out, derr, sizeof derr) < 0 && r == 0) {
            snprintf(err, errsize, "%s", derr);
            r = -1;
        }
    }
    free(acc);
    return r;
}
