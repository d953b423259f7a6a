/* async_enrich.c — async I/O (weir/async.h, Flink's AsyncDataStream): each
 * order is enriched by a call to a simulated remote service that answers
 * after 1 to 3 ms on its own threads. With capacity 1 the operator waits
 * for every answer before it sends the next request; with a larger capacity
 * the requests overlap, and the throughput rises with it until the
 * service's 16 threads are busy. The output is one line per capacity:
 * the orders per second (they depend on the machine), and a checksum of
 * the enriched orders, the same for every capacity (ordered mode: every
 * result, in the orders' order).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <weir.h>

typedef struct order {
    int64_t id, customer;
} order;

typedef struct enriched {
    int64_t id, customer, tier;
} enriched;

/* ---- the service: 16 threads answer requests after 1-3 ms -------------- */

#define QCAP 1024

typedef struct request {
    weir_async_handle h;
    order o;
    int64_t due_ns;
} request;

typedef struct service {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    request q[QCAP];
    int head, len;
    int stop;
    unsigned seed;
    pthread_t th[16];
} service;

static int64_t now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

static void *serve(void *arg)
{
    service *s = arg;
    pthread_mutex_lock(&s->mu);
    for (;;) {
        while (!s->stop && s->len == 0)
            pthread_cond_wait(&s->cv, &s->mu);
        if (s->stop && s->len == 0)
            break;
        request r = s->q[s->head];
        s->head = (s->head + 1) % QCAP;
        s->len--;
        pthread_mutex_unlock(&s->mu);
        int64_t wait = r.due_ns - now_ns();
        if (wait > 0) {
            struct timespec t = {0, wait};
            nanosleep(&t, NULL);
        }
        enriched e = {r.o.id, r.o.customer, r.o.customer % 3}; /* the customer's tier */
        weir_async_complete(r.h, &e, 1);
        pthread_mutex_lock(&s->mu);
    }
    pthread_mutex_unlock(&s->mu);
    return NULL;
}

/* asyncInvoke: queue the request; a service thread completes it */
static int lookup(const void *elem, int64_t ts, weir_async_handle h, void *arg)
{
    (void)ts;
    service *s = arg;
    pthread_mutex_lock(&s->mu);
    s->seed = s->seed * 1103515245u + 12345u;
    request r = {h, *(const order *)elem, now_ns() + 1000000 + (int64_t)(s->seed >> 16) % 2000000};
    s->q[(s->head + s->len) % QCAP] = r;
    s->len++;
    pthread_cond_signal(&s->cv);
    pthread_mutex_unlock(&s->mu);
    return 0;
}

static uint64_t checksum;
static int64_t expected_id;
static int in_order;

static int sum(const void *elem, int64_t ts, int subtask, void *arg)
{
    (void)ts, (void)subtask, (void)arg;
    const enriched *e = elem;
    checksum = checksum * 31 + (uint64_t)(e->id * 7 + e->tier);
    in_order &= e->id == expected_id++;
    return 0;
}

int main(void)
{
    enum { N = 300 };
    static order orders[N];
    for (int i = 0; i < N; i++)
        orders[i] = (order){i, (i * 7919) % 101};
    static const int capacities[] = {1, 4, 16, 64};
    for (int c = 0; c < 4; c++) {
        service svc;
        memset(&svc, 0, sizeof svc);
        pthread_mutex_init(&svc.mu, NULL);
        pthread_cond_init(&svc.cv, NULL);
        svc.seed = 7;
        for (int i = 0; i < 16; i++)
            pthread_create(&svc.th[i], NULL, serve, &svc);
        weir_job *job;
        if (weir_job_create(&(weir_job_config){.workers = 2, .parallelism = 1}, &job) != 0)
            return 1;
        int n = N;
        weir_stream *s = weir_source_array(job, orders, (size_t)n, sizeof(order), NULL);
        s = weir_stream_async(s, &(weir_async_spec){.name = "customer-tier", .invoke = lookup,
                                                    .arg = &svc, .out_size = sizeof(enriched),
                                                    .capacity = capacities[c],
                                                    .timeout_ms = 5000});
        weir_sink_callback(s, sum, NULL);
        checksum = 0;
        expected_id = 0;
        in_order = 1;
        int64_t t0 = now_ns();
        int rc = weir_job_run(job);
        double secs = (double)(now_ns() - t0) / 1e9;
        if (rc)
            fprintf(stderr, "%s\n", weir_job_error(job));
        weir_job_destroy(job);
        pthread_mutex_lock(&svc.mu);
        svc.stop = 1;
        pthread_cond_broadcast(&svc.cv);
        pthread_mutex_unlock(&svc.mu);
        for (int i = 0; i < 16; i++)
            pthread_join(svc.th[i], NULL);
        if (rc)
            return 1;
        printf("capacity %2d: %6.0f orders/s, %d orders %s, checksum %016llx\n", capacities[c],
               n / secs, n, in_order ? "in order" : "OUT OF ORDER", (unsigned long long)checksum);
    }
    return 0;
}
