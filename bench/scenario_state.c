/* scenario_state.c — the DataStream API's keyed map state and async I/O
 * (docs/STATE.md).
 *
 *   plain-map-state     one thread, no runtime: for each record (work.c's
 *                       gen: 1024 keys, value = sequence number) the map
 *                       key value % 64 of its key, its count in an
 *                       open-addressing table of (key, map key) -> count
 *                       (linear probing), incremented, and the record
 *                       {key, count << 6 | map key} to the counting sink.
 *   keyed-map-state     source -> key_by -> a process operator with a map
 *                       state (8-byte map key, 8-byte count):
 *                       weir_state_map_get(create) and the increment, the
 *                       same record out -> sink, chained. Baseline
 *                       plain-map-state. Both are checked against the
 *                       counts a plain array computes: every (key, map key)
 *                       counted 1, 2, ... in whatever order its records
 *                       come, so the records' count and checksum are the
 *                       same at every parallelism.
 *   async-capacity-N    source (p=1) -> weir_stream_async (ordered, capacity
 *                       N = 1, 16, 256) -> sink, the function handing each
 *                       element to a simulated service: one thread that
 *                       answers every request 1 ms after it came (a FIFO of
 *                       due times; it sleeps until the oldest is due), with
 *                       the element as the result. Throughput against
 *                       capacity: at most N / 1 ms, until the operator or
 *                       the service thread is the limit. Baseline
 *                       async-capacity-1. Count and checksum checked.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench.h"

#define MAP_KEYS 64 /* map keys per key */
#define KEYS 1024   /* gen's keys */

/* ---- the reference: counts in a plain array ------------------------------------ */

static int64_t ref_records = -1;
static uint64_t ref_count, ref_sum;

static int map_state_expected(int64_t records, uint64_t *count, uint64_t *sum)
{
    if (records != ref_records) {
        int64_t *n = calloc((size_t)KEYS * MAP_KEYS, sizeof *n);
        if (!n)
            return -1;
        const bench_work *w = bench_work_get();
        uint64_t s = 0;
        for (int64_t q = 0; q < records; q++) {
            bench_elem e;
            w->gen(q, &e);
            int64_t mk = (int64_t)((uint64_t)e.value % MAP_KEYS);
            int64_t c = ++n[e.key * MAP_KEYS + mk];
            s += (uint64_t)e.key ^ (uint64_t)(c << 6 | mk);
        }
        free(n);
        ref_records = records;
        ref_count = (uint64_t)records;
        ref_sum = s;
    }
    *count = ref_count;
    *sum = ref_sum;
    return 0;
}

static int check_map_state(const bench_acc *acc, int n, int64_t records, char *err,
                           size_t errsize)
{
    uint64_t want_n, want_sum, got_n, got_sum;
    if (map_state_expected(records, &want_n, &want_sum)) {
        snprintf(err, errsize, "out of memory");
        return -1;
    }
    bench_acc_total(acc, n, &got_n, &got_sum);
    if (got_n != want_n || got_sum != want_sum) {
        snprintf(err, errsize, "the sinks got %llu records (checksum %llx), %llu (%llx) "
                 "expected", (unsigned long long)got_n, (unsigned long long)got_sum,
                 (unsigned long long)want_n, (unsigned long long)want_sum);
        return -1;
    }
    return 0;
}

/* ---- plain-map-state ------------------------------------------------------------ */

typedef struct slot {
    int64_t key, mkey, count; /* count 0: empty */
} slot;

#define TABLE_BITS 17 /* 2^17 slots for the 65 536 (key, map key) pairs */

static int run_plain(const bench_scenario *sc, const bench_params *p, bench_result *out,
                     char *err, size_t errsize)
{
    (void)sc;
    const bench_work *w = bench_work_get();
    bench_acc *acc = bench_acc_create(1);
    slot *t = calloc((size_t)1 << TABLE_BITS, sizeof *t);
    if (!acc || !t) {
        free(acc);
        free(t);
        snprintf(err, errsize, "out of memory");
        return -1;
    }
    const uint64_t mask = ((uint64_t)1 << TABLE_BITS) - 1;
    bench_elem e, o;
    int r = 0;
    bench_timer tm;
    bench_timer_start(&tm);
    for (int64_t q = 0; q < p->records && r >= 0; q++) {
        w->gen(q, &e);
        int64_t mk = (int64_t)((uint64_t)e.value % MAP_KEYS);
        uint64_t h = ((uint64_t)e.key * UINT64_C(0x9E3779B97F4A7C15) ^ (uint64_t)mk) *
                     UINT64_C(0xBF58476D1CE4E5B9);
        uint64_t i = h >> (64 - TABLE_BITS);
        while (t[i].count && (t[i].key != e.key || t[i].mkey != mk))
            i = (i + 1) & mask;
        if (!t[i].count) {
            t[i].key = e.key;
            t[i].mkey = mk;
        }
        o.key = e.key;
        o.value = ++t[i].count << 6 | mk;
        r = w->sink(&o, q, 0, acc);
    }
    bench_timer_stop(&tm, out);
    out->workers = 0;
    free(t);
    if (r < 0) {
        snprintf(err, errsize, "a work function failed: %s", weir_strerror(r));
        free(acc);
        return -1;
    }
    r = check_map_state(acc, 1, p->records, err, errsize);
    free(acc);
    return r;
}

/* ---- keyed-map-state ------------------------------------------------------------ */

static int ms_open(weir_ctx *ctx)
{
    int *id = malloc(sizeof *id);
    if (!id)
        return WEIR_ENOMEM;
    weir_ctx_set_state(ctx, id);
    return weir_state_declare_map(ctx, sizeof(int64_t), sizeof(int64_t), id);
}

static void ms_close(weir_ctx *ctx)
{
    free(weir_ctx_state(ctx));
}

static int ms_record(weir_ctx *ctx, int input, const void *elem, int64_t ts)
{
    (void)input;
    const int *id = weir_ctx_state(ctx);
    const bench_elem *e = elem;
    int64_t mk = (int64_t)((uint64_t)e->value % MAP_KEYS);
    int64_t *n = weir_state_map_get(ctx, *id, 0, &mk, true);
    if (!n)
        return weir_ctx_state_error(ctx);
    bench_elem o = {e->key, ++*n << 6 | mk};
    return weir_emit(ctx, &o, ts);
}

static const weir_operator_vtable ms_vtable = {
    .version = WEIR_OPERATOR_VTABLE_V1,
    .open = ms_open,
    .on_record = ms_record,
    .close = ms_close,
};

static int run_map_state(const bench_scenario *sc, const bench_params *p, bench_result *out,
                         char *err, size_t errsize)
{
    (void)sc;
    const bench_work *w = bench_work_get();
    weir_job *job = bench_job_create(p, 0, NULL, err, errsize);
    if (!job)
        return -1;
    bench_acc *acc = bench_acc_create(p->parallelism);
    if (!acc) {
        weir_job_destroy(job);
        snprintf(err, errsize, "out of memory");
        return -1;
    }
    weir_stream *s = bench_source_counting(job, p->records);
    s = weir_stream_key_by(s, bench_key_spec());
    s = weir_stream_process(s, &(weir_process_spec){.name = "map-state", .vtable = &ms_vtable,
                                                     .out_size = sizeof(bench_elem),
                                                     .accounting = WEIR_ACCOUNTING_ONE_TO_ONE});
    weir_sink_callback(s, w->sink, acc);
    int r = bench_job_time(job, out, err, errsize);
    if (r == 0)
        r = check_map_state(acc, p->parallelism, p->records, err, errsize);
    weir_job_destroy(job);
    free(acc);
    return r;
}

/* ---- async-capacity-N: a simulated service ----------------------------------------- */

#define SERVICE_LATENCY_NS 1000000 /* 1 ms */
#define SERVICE_QUEUE 1024         /* > the largest capacity */

typedef struct svc_req {
    weir_async_handle h;
    bench_elem e;
    int64_t due_ns;
} svc_req;

typedef struct service {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    svc_req q[SERVICE_QUEUE];
    int head, len;
    bool stop;
    bool overflow;
    pthread_t th;
} service;

static void *serve(void *arg)
{
    service *s = arg;
    pthread_mutex_lock(&s->mu);
    for (;;) {
        while (!s->stop && s->len == 0)
            pthread_cond_wait(&s->cv, &s->mu);
        if (s->len == 0)
            break;
        svc_req r = s->q[s->head];
        s->head = (s->head + 1) % SERVICE_QUEUE;
        s->len--;
        pthread_mutex_unlock(&s->mu);
        int64_t wait = r.due_ns - bench_now_ns();
        if (wait > 0) {
            struct timespec ts = {wait / 1000000000, wait % 1000000000};
            nanosleep(&ts, NULL);
        }
        weir_async_complete(r.h, &r.e, 1);
        pthread_mutex_lock(&s->mu);
    }
    pthread_mutex_unlock(&s->mu);
    return NULL;
}

static int svc_invoke(const void *elem, int64_t ts, weir_async_handle h, void *arg)
{
    (void)ts;
    service *s = arg;
    pthread_mutex_lock(&s->mu);
    if (s->len == SERVICE_QUEUE) {
        s->overflow = true;
        pthread_mutex_unlock(&s->mu);
        return WEIR_ENOMEM;
    }
    svc_req *r = &s->q[(s->head + s->len) % SERVICE_QUEUE];
    r->h = h;
    memcpy(&r->e, elem, sizeof r->e);
    r->due_ns = bench_now_ns() + SERVICE_LATENCY_NS;
    s->len++;
    pthread_cond_signal(&s->cv);
    pthread_mutex_unlock(&s->mu);
    return 0;
}

static int run_async(const bench_scenario *sc, const bench_params *p, bench_result *out,
                     char *err, size_t errsize)
{
    const bench_work *w = bench_work_get();
    service *svc = calloc(1, sizeof *svc);
    bench_acc *acc = bench_acc_create(1);
    if (!svc || !acc) {
        free(svc);
        free(acc);
        snprintf(err, errsize, "out of memory");
        return -1;
    }
    pthread_mutex_init(&svc->mu, NULL);
    pthread_cond_init(&svc->cv, NULL);
    if (pthread_create(&svc->th, NULL, serve, svc) != 0) {
        free(svc);
        free(acc);
        snprintf(err, errsize, "cannot start the service thread");
        return -1;
    }
    weir_job *job = bench_job_create(p, 0, NULL, err, errsize);
    int r = -1;
    if (job) {
        weir_stream *s = bench_source_counting(job, p->records);
        s = weir_stream_async(s, &(weir_async_spec){.name = "service", .invoke = svc_invoke,
                                                    .arg = svc, .out_size = sizeof(bench_elem),
                                                    .capacity = (int)sc->arg,
                                                    .timeout_ms = 60000});
        weir_sink_callback(s, w->sink, acc);
        r = bench_job_time(job, out, err, errsize);
        if (r == 0)
            r = bench_verify(acc, 1, p->records, BENCH_SHAPE_NONE, true, err, errsize);
    }
    pthread_mutex_lock(&svc->mu);
    svc->stop = true;
    pthread_cond_broadcast(&svc->cv);
    pthread_mutex_unlock(&svc->mu);
    pthread_join(svc->th, NULL); /* answers what is left (ignored once the job is gone) */
    weir_job_destroy(job);
    pthread_mutex_destroy(&svc->mu);
    pthread_cond_destroy(&svc->cv);
    free(svc);
    free(acc);
    return r;
}

const bench_scenario bench_scenarios_state[] = {
    {
        .name = "plain-map-state",
        .what = "baseline: a count per (key, value % 64) in an open-addressing table, no runtime",
        .flags = BENCH_PLAIN,
        .parallelism = 1,
        .records = 20000000,
        .quick_records = 5000000,
        .run = run_plain,
    },
    {
        .name = "keyed-map-state",
        .what = "source -> key_by -> map state count per (key, value % 64) -> sink",
        .baseline = "plain-map-state",
        .records = 10000000,
        .quick_records = 2000000,
        .run = run_map_state,
    },
    {
        .name = "async-capacity-1",
        .what = "source -> async I/O (ordered, capacity 1) against a 1 ms service thread -> sink",
        .parallelism = 1,
        .records = 1000,
        .quick_records = 300,
        .arg = 1,
        .run = run_async,
    },
    {
        .name = "async-capacity-16",
        .what = "the same at capacity 16",
        .baseline = "async-capacity-1",
        .parallelism = 1,
        .records = 16000,
        .quick_records = 4000,
        .arg = 16,
        .run = run_async,
    },
    {
        .name = "async-capacity-256",
        .what = "the same at capacity 256",
        .baseline = "async-capacity-1",
        .parallelism = 1,
        .records = 200000,
        .quick_records = 50000,
        .arg = 256,
        .run = run_async,
    },
};

const size_t bench_nscenarios_state = sizeof bench_scenarios_state / sizeof bench_scenarios_state[0];
