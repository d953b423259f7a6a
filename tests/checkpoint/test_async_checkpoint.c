/* test_async_checkpoint.c — keyed async I/O (weir/async.h on a keyed input,
 * Flink's AsyncDataStream on a KeyedStream) stopped with a savepoint while
 * elements are in flight, and restored at the same parallelism and at
 * others: every element's result comes out exactly once across the two runs
 * (the first run's up to its savepoint's barrier, the second's all), and
 * each key's results in its elements' order (key_ordered).
 *
 * The first run's service answers the elements of keys 3..6 (value % 7) on
 * its own threads after up to half a millisecond and never answers those of
 * keys 0..2, which stay in flight; the source stops reading halfway and
 * waits, and the savepoint comes once every element read went to the
 * function. The second run's service answers everything. What the first
 * run's sink took before the barrier is what its snapshot hook saw then.
 * Threaded: also under TSan. Bounds: 400 elements, three restores.
 */
#include <criterion/criterion.h>
#include <pthread.h>
#include <stdatomic.h>
#include <time.h>
#include <unistd.h>

#include "support/pausing_source.h"
#include "support/weir_testutil.h"

enum { NEL = 400, HALF = 200, NKEYS = 7 };

/* ---- the service ---------------------------------------------------------------- */

typedef struct req {
    weir_async_handle h;
    int64_t value;
} req;

typedef struct service {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    req q[NEL];
    int head, len;
    bool stop, hold; /* hold: keys 0..2 never answered */
    pthread_t th[2];
} service;

static void *serve(void *arg)
{
    service *s = arg;
    pthread_mutex_lock(&s->mu);
    for (;;) {
        while (!s->stop && s->len == 0)
            pthread_cond_wait(&s->cv, &s->mu);
        if (s->stop && s->len == 0)
            break;
        req r = s->q[s->head];
        s->head = (s->head + 1) % NEL;
        s->len--;
        pthread_mutex_unlock(&s->mu);
        struct timespec t = {0, (long)(r.value * 7919 % 500) * 1000};
        nanosleep(&t, NULL);
        int64_t out[2] = {r.value, r.value % NKEYS};
        tu_check(weir_async_complete(r.h, out, 1) == 0, "completion refused");
        pthread_mutex_lock(&s->mu);
    }
    pthread_mutex_unlock(&s->mu);
    return NULL;
}

static _Atomic int invoked;

static int invoke(const void *elem, int64_t ts, weir_async_handle h, void *arg)
{
    (void)ts;
    service *s = arg;
    int64_t v = *(const int64_t *)elem;
    atomic_fetch_add(&invoked, 1);
    if (s->hold && v % NKEYS < 3)
        return 0; /* in flight until the savepoint */
    pthread_mutex_lock(&s->mu);
    tu_check(s->len < NEL, "service queue full");
    s->q[(s->head + s->len) % NEL] = (req){h, v};
    s->len++;
    pthread_cond_signal(&s->cv);
    pthread_mutex_unlock(&s->mu);
    return 0;
}

static void service_start(service *s, bool hold)
{
    memset(s, 0, sizeof *s);
    pthread_mutex_init(&s->mu, NULL);
    pthread_cond_init(&s->cv, NULL);
    s->hold = hold;
    for (int i = 0; i < 2; i++)
        pthread_create(&s->th[i], NULL, serve, s);
}

static void service_stop(service *s)
{
    pthread_mutex_lock(&s->mu);
    s->stop = true;
    pthread_cond_broadcast(&s->cv);
    pthread_mutex_unlock(&s->mu);
    for (int i = 0; i < 2; i++)
        pthread_join(s->th[i], NULL);
    pthread_mutex_destroy(&s->mu);
    pthread_cond_destroy(&s->cv);
}

/* ---- the source: 0..NEL-1, the first run stopping halfway ----------------------- */

static _Atomic int first_run;

static tu_pausing_arg src_arg = {.count = NEL, .pause_at = HALF, .pause = &first_run};

/* ---- the sink: every result, and how many came before the barrier --------------- */

typedef struct seen {
    int64_t value[2 * NEL];
    int n;
    int at_barrier; /* -1: no snapshot yet */
} seen;

static _Atomic int results; /* what the test thread watches while the job runs */

static int rec_record(weir_ctx *ctx, int input, const void *elem, int64_t ts)
{
    (void)input, (void)ts;
    seen *s = weir_ctx_arg(ctx);
    atomic_fetch_add(&results, 1);
    tu_check(s->n < 2 * NEL, "too many results");
    if (s->n < 2 * NEL)
        s->value[s->n++] = ((const int64_t *)elem)[0];
    return 0;
}

static int rec_snapshot(weir_ctx *ctx, weir_snapshot_writer *w)
{
    (void)w;
    seen *s = weir_ctx_arg(ctx);
    if (s->at_barrier < 0)
        s->at_barrier = s->n;
    return 0;
}

static int rec_restore(weir_ctx *ctx, weir_snapshot_reader *r)
{
    (void)ctx, (void)r;
    return 0; /* the sink keeps nothing */
}

static const weir_operator_vtable rec_vt = {.version = WEIR_OPERATOR_VTABLE_V2,
                                            .on_record = rec_record,
                                            .snapshot = rec_snapshot,
                                            .restore = rec_restore};

static void key_mod7(const void *elem, void *key, void *arg)
{
    (void)arg;
    int64_t k = *(const int64_t *)elem % NKEYS;
    memcpy(key, &k, sizeof k);
}

static weir_job *make_job(const char *chk, const char *restore, int parallelism, service *svc,
                          seen *out)
{
    out->n = 0;
    out->at_barrier = -1;
    weir_job *job = tu_job(&(weir_job_config){
        .workers = 2, .parallelism = 1, .clock = WEIR_CLOCK_SYSTEM,
        .diag = {.level = WEIR_DIAG_OFF},
        .checkpoint = {.dir = chk, .restore_from = restore}});
    weir_stream *s = weir_job_add_source(
        job, &(weir_source_spec){.vtable = &tu_pausing_source_vt,
                                 .arg = &src_arg,
                                 .elem_size = sizeof(int64_t)});
    weir_stream_set_uid(s, "src");
    s = weir_stream_key_by(s, &(weir_key_spec){.key_size = 8, .extract = key_mod7});
    s = weir_stream_async(s, &(weir_async_spec){.invoke = invoke, .arg = svc,
                                                .out_size = 2 * sizeof(int64_t),
                                                .capacity = 256, .timeout_ms = 60000,
                                                .unordered = true, .key_ordered = true,
                                                .parallelism = parallelism});
    cr_assert_not_null(s, "%s", weir_job_error(job));
    weir_stream_set_uid(s, "async");
    weir_process_spec rec = {.vtable = &rec_vt, .arg = out, .parallelism = 1,
                             .accounting = WEIR_ACCOUNTING_SINK};
    cr_assert_not_null(weir_stream_process(s, &rec), "%s", weir_job_error(job));
    return job;
}

static int run_result;

static void *run_thread(void *arg)
{
    run_result = weir_job_run(arg);
    return NULL;
}

/* The first run's results up to its barrier, then the second's: each value
 * once, each key's in ascending order. */
static void check_once(const seen *a, const seen *b, int p)
{
    static char got[NEL];
    memset(got, 0, sizeof got);
    int64_t last[NKEYS];
    for (int k = 0; k < NKEYS; k++)
        last[k] = -1;
    for (int i = 0; i < a->at_barrier + b->n; i++) {
        int64_t v = i < a->at_barrier ? a->value[i] : b->value[i - a->at_barrier];
        cr_assert(v >= 0 && v < NEL, "restored at %d: an unknown result %lld", p, (long long)v);
        cr_assert(!got[v], "restored at %d: the result of %lld twice", p, (long long)v);
        got[v] = 1;
        cr_assert_gt(v, last[v % NKEYS], "restored at %d: key %lld's %lld after %lld", p,
                     (long long)(v % NKEYS), (long long)v, (long long)last[v % NKEYS]);
        last[v % NKEYS] = v;
    }
    for (int v = 0; v < NEL; v++)
        cr_assert(got[v], "restored at %d: the result of %d lost", p, v);
}

Test(async_checkpoint, keyed_elements_in_flight_restore_once_at_any_parallelism, .timeout = 120)
{
    char tmp[] = "/tmp/weir-async-chk-XXXXXX";
    cr_assert_not_null(mkdtemp(tmp));
    char sp[300];
    snprintf(sp, sizeof sp, "%s/sp", tmp);
    static seen a, b;
    static service svc;
    service_start(&svc, true);
    atomic_store(&first_run, 1);
    atomic_store(&invoked, 0);
    atomic_store(&results, 0);
    weir_job *job = make_job(sp, NULL, 2, &svc, &a);
    pthread_t th;
    pthread_create(&th, NULL, run_thread, job);
    /* every element read handed to the function, the answered ones out */
    for (int i = 0;
         i < 20000 && (atomic_load(&invoked) < HALF || atomic_load(&results) < HALF * 4 / NKEYS - 1);
         i++)
        usleep(1000);
    int64_t id = 0;
    char why[512];
    int e = weir_job_savepoint(job, sp, true, &id, why, sizeof why);
    pthread_join(th, NULL);
    cr_assert_eq(e, 0, "savepoint: %s", why);
    cr_assert_eq(run_result, WEIR_ECANCELED, "%s", weir_job_error(job));
    service_stop(&svc); /* the elements it held are never answered */
    cr_assert_geq(a.at_barrier, 0, "no snapshot at the sink");
    cr_assert_lt(a.at_barrier, HALF, "nothing was in flight at the savepoint");
    weir_job_destroy(job);
    char restore[400];
    snprintf(restore, sizeof restore, "%s/chk-%lld", sp, (long long)id);
    atomic_store(&first_run, 0);
    for (int p = 1; p <= 3; p++) {
        service_start(&svc, false);
        job = make_job(NULL, restore, p, &svc, &b);
        tu_run_ok(job);
        service_stop(&svc);
        check_once(&a, &b, p);
        weir_job_destroy(job);
    }
    char cmd[400];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp);
    cr_assert_eq(system(cmd), 0);
}
