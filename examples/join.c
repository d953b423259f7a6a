/* join.c — joining two keyed streams with a co-process operator: orders and
 * payments.
 *
 * Concept: weir_stream_coprocess() is Flink's CoProcessFunction. Two streams
 * keyed the same way (here both by order id) meet in one operator: records of
 * the first reach on_record1, of the second on_record2, and both see the same
 * keyed state and timers for the current key. Its watermark is the minimum of
 * its two inputs' watermarks (SEMANTICS.md 4), so an event-time timer fires
 * only once both streams have passed it. The join keeps the order and the
 * payment in keyed value state until its partner comes; a payment matches an
 * order if their timestamps are at most 5 s apart (either may come first).
 * An event-time timer 5 s after each record ends its wait: an order still
 * alone then is UNPAID, a payment still alone is a payment for an order it
 * cannot find. Since the watermark promises that nothing stamped at or below
 * it is still to come, a partner within 5 s has always arrived before the
 * timer fires: matching depends on timestamps only, not on which record the
 * threads delivered first, and the result is the same every run.
 *
 * What to look for: orders 1, 2 and 5 are PAID (order 5's payment is stamped
 * before the order itself, and still matches: the state waits for either
 * side); order 3's payment comes 6 s after the order, too late, so order 3 is
 * UNPAID at 2000 + 5000 and that payment is unmatched; order 4 is never paid;
 * the payment for order 9 has no order. Every result carries the event time it
 * was decided at.
 *
 * Run: ./build/release/examples/join
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <weir.h>

#define TIMEOUT_MS 5000

typedef struct order {
    int64_t id;
    char customer[8];
    int64_t amount;
} order;

typedef struct payment {
    int64_t order_id;
    int64_t amount;
} payment;

typedef enum outcome { PAID, UNPAID, PAYMENT_WITHOUT_ORDER } outcome;

typedef struct result {
    int64_t order_id;
    char customer[8];
    int64_t amount;
    int64_t paid;
    int64_t outcome;
} result;

/* What the state holds per order id: the record and its timestamp. */
typedef struct held_order {
    order o;
    int64_t ts;
} held_order;

typedef struct held_payment {
    payment p;
    int64_t ts;
} held_payment;

typedef struct join_state {
    int orders, payments; /* state ids */
} join_state;

static int join_open(weir_ctx *ctx)
{
    join_state *s = calloc(1, sizeof *s);
    if (!s)
        return WEIR_ENOMEM;
    weir_ctx_set_state(ctx, s);
    int r = weir_state_declare(ctx, WEIR_STATE_VALUE, sizeof(held_order), &s->orders);
    if (r == 0)
        r = weir_state_declare(ctx, WEIR_STATE_VALUE, sizeof(held_payment), &s->payments);
    return r;
}

static void join_close(weir_ctx *ctx)
{
    free(weir_ctx_state(ctx));
}

/* If the current key holds both an order and a payment stamped at most the
 * timeout apart, emits PAID and forgets both (with their timers). */
static int try_match(weir_ctx *ctx)
{
    join_state *s = weir_ctx_state(ctx);
    held_order *ho = weir_state_value(ctx, s->orders, 0, false);
    if (!ho)
        return 0;
    held_order o = *ho; /* state pointers live only until the next state call */
    held_payment *hp = weir_state_value(ctx, s->payments, 0, false);
    if (!hp)
        return 0;
    held_payment p = *hp;
    if (p.ts - o.ts > TIMEOUT_MS || o.ts - p.ts > TIMEOUT_MS)
        return 0; /* too far apart: the timers will report both */
    result r = {.order_id = o.o.id, .amount = o.o.amount, .paid = p.p.amount, .outcome = PAID};
    memcpy(r.customer, o.o.customer, sizeof r.customer);
    weir_state_clear(ctx, s->orders, 0);
    weir_state_clear(ctx, s->payments, 0);
    weir_timer_delete(ctx, WEIR_EVENT_TIME, 0, o.ts + TIMEOUT_MS);
    weir_timer_delete(ctx, WEIR_EVENT_TIME, 1, p.ts + TIMEOUT_MS);
    return weir_emit(ctx, &r, o.ts > p.ts ? o.ts : p.ts);
}

static int on_order(weir_ctx *ctx, const void *elem, int64_t ts)
{
    join_state *s = weir_ctx_state(ctx);
    held_order *h = weir_state_value(ctx, s->orders, 0, true);
    if (!h)
        return weir_ctx_state_error(ctx);
    *h = (held_order){*(const order *)elem, ts};
    /* namespace 0: the order's timeout; 1: the payment's */
    int r = weir_timer_register(ctx, WEIR_EVENT_TIME, 0, ts + TIMEOUT_MS);
    return r ? r : try_match(ctx);
}

static int on_payment(weir_ctx *ctx, const void *elem, int64_t ts)
{
    join_state *s = weir_ctx_state(ctx);
    held_payment *h = weir_state_value(ctx, s->payments, 0, true);
    if (!h)
        return weir_ctx_state_error(ctx);
    *h = (held_payment){*(const payment *)elem, ts};
    int r = weir_timer_register(ctx, WEIR_EVENT_TIME, 1, ts + TIMEOUT_MS);
    return r ? r : try_match(ctx);
}

/* The wait is over for whichever side the timer belongs to. */
static int on_timeout(weir_ctx *ctx, const weir_timer *t)
{
    join_state *s = weir_ctx_state(ctx);
    result r = {0};
    if (t->ns == 0) {
        held_order *h = weir_state_value(ctx, s->orders, 0, false);
        if (!h || h->ts + TIMEOUT_MS != t->timestamp)
            return 0;
        r = (result){.order_id = h->o.id, .amount = h->o.amount, .outcome = UNPAID};
        memcpy(r.customer, h->o.customer, sizeof r.customer);
        weir_state_clear(ctx, s->orders, 0);
    } else {
        held_payment *h = weir_state_value(ctx, s->payments, 0, false);
        if (!h || h->ts + TIMEOUT_MS != t->timestamp)
            return 0;
        r = (result){.order_id = h->p.order_id, .paid = h->p.amount,
                     .outcome = PAYMENT_WITHOUT_ORDER};
        weir_state_clear(ctx, s->payments, 0);
    }
    return weir_emit(ctx, &r, t->timestamp);
}

static const weir_coprocess_vtable join_vtable = {
    .version = WEIR_OPERATOR_VTABLE_V1,
    .open = join_open,
    .on_record1 = on_order,
    .on_record2 = on_payment,
    .on_timer = on_timeout,
    .close = join_close,
};

/* Both key extractors write the order id: the same 8 key bytes. */
static void order_key(const void *elem, void *key, void *arg)
{
    (void)arg;
    memcpy(key, &((const order *)elem)->id, sizeof(int64_t));
}

static void payment_key(const void *elem, void *key, void *arg)
{
    (void)arg;
    memcpy(key, &((const payment *)elem)->order_id, sizeof(int64_t));
}

typedef struct row {
    result r;
    int64_t ts;
} row;

static int by_time_then_order(const void *a, const void *b)
{
    const row *x = a, *y = b;
    if (x->ts != y->ts)
        return x->ts < y->ts ? -1 : 1;
    return (x->r.order_id > y->r.order_id) - (x->r.order_id < y->r.order_id);
}

int main(void)
{
    static const order orders[] = {
        {1, "alice", 30}, {2, "bob", 12}, {3, "carol", 45}, {4, "dave", 8}, {5, "erin", 99},
    };
    static const int64_t order_ts[] = {1000, 1500, 2000, 4000, 6000};
    static const payment payments[] = {{2, 12}, {1, 30}, {9, 20}, {5, 99}, {3, 45}};
    static const int64_t payment_ts[] = {1700, 2500, 3000, 5500, 8000};

    weir_job *job;
    if (weir_job_create(&(weir_job_config){.workers = 2}, &job) != 0)
        return 1;
    const weir_timestamps_spec keep = {.strategy = weir_watermarks_bounded(1000)};
    weir_stream *o = weir_source_array(job, orders, 5, sizeof(order), order_ts);
    o = weir_stream_set_name(o, "orders");
    o = weir_stream_assign_timestamps(o, &keep);
    o = weir_stream_key_by(o, &(weir_key_spec){.key_size = 8, .extract = order_key});
    weir_stream *p = weir_source_array(job, payments, 5, sizeof(payment), payment_ts);
    p = weir_stream_set_name(p, "payments");
    p = weir_stream_assign_timestamps(p, &keep);
    p = weir_stream_key_by(p, &(weir_key_spec){.key_size = 8, .extract = payment_key});
    weir_stream *joined = weir_stream_coprocess(
        o, p, &(weir_coprocess_spec){.name = "join", .vtable = &join_vtable,
                                     .out_size = sizeof(result), .parallelism = 2});
    weir_collect *out;
    weir_sink_collect(joined, &out);
    int r = weir_job_run(job);
    if (r != 0) {
        fprintf(stderr, "join failed: %s\n", weir_job_error(job));
        weir_job_destroy(job);
        return 1;
    }

    /* Two join subtasks produced these concurrently: sort them by event time
     * for a stable printout. */
    size_t n = weir_collect_count(out);
    row *rows = calloc(n ? n : 1, sizeof *rows);
    if (!rows) {
        weir_job_destroy(job);
        return 1;
    }
    for (size_t i = 0; i < n; i++)
        rows[i] = (row){*(const result *)weir_collect_elem(out, i), weir_collect_timestamp(out, i)};
    qsort(rows, n, sizeof *rows, by_time_then_order);

    printf("orders and payments keyed by order id, joined in a keyed co-process\n"
           "(a payment matches an order stamped at most %d ms before or after it)\n\n",
           TIMEOUT_MS);
    printf("%8s  %5s  %-8s  %6s  %4s  %s\n", "event ms", "order", "customer", "amount", "paid",
           "outcome");
    for (size_t i = 0; i < n; i++) {
        const result *x = &rows[i].r;
        static const char *const names[] = {"PAID", "UNPAID (no payment within 5 s)",
                                            "payment for no order in reach"};
        printf("%8" PRId64 "  %5" PRId64 "  %-8.8s  %6" PRId64 "  %4" PRId64 "  %s\n", rows[i].ts,
               x->order_id, x->outcome == PAYMENT_WITHOUT_ORDER ? "-" : x->customer, x->amount,
               x->paid, names[x->outcome]);
    }
    free(rows);
    weir_job_destroy(job);
    return 0;
}
