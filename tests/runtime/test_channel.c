/* test_channel.c — one SPSC channel (runtime/channel.h) driven by hand.
 *
 * Everything the engine's in-band guarantees rest on is here: records become
 * visible to the consumer only when their batch is flushed (full, or with a
 * control message, or explicitly); a control message ends its batch, so the
 * order of records and watermarks/statuses/END on a channel is the order of
 * batches; a producer without credit queues batches as pending (blocked) and
 * sends them once the consumer hands batches back. The single-threaded tests
 * check each rule with exact counts; the last test runs a producer and a
 * consumer thread against each other through a tiny pool (ThreadSanitizer
 * checks the hand-off) and verifies the FIFO order of every record and
 * control message.
 *
 * The channel tells its ends through its events (channel.h) on every send,
 * release and pending batch; here the ends are zeroed subtasks and the
 * events only count, so each test can check that every hand-off was told.
 */
#include <criterion/criterion.h>
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

#include "channel.h"
#include "support/weir_testutil.h"
#include "task.h"

/* 12-byte elements: the slot stride rounds them up to 8 + 16. */
typedef struct elem12 {
    uint32_t a, b, c;
} elem12;

/* Calls of each event since the last setup (atomic: the two-thread test
 * calls them from both threads). */
static _Atomic int published_calls, returned_calls, pending_calls;

static void count_published(weir__subtask *consumer)
{
    (void)consumer;
    atomic_fetch_add(&published_calls, 1);
}

static void count_returned(weir__subtask *producer)
{
    (void)producer;
    atomic_fetch_add(&returned_calls, 1);
}

static void count_pending(weir__subtask *producer)
{
    (void)producer;
    atomic_fetch_add(&pending_calls, 1);
}

static const weir__channel_events counting_events = {
    .published = count_published,
    .returned = count_returned,
    .went_pending = count_pending,
};

typedef struct fixture {
    weir__subtask producer, consumer;
    weir__channel *ch;
} fixture;

static void setup(fixture *f, uint32_t capacity, uint32_t pool)
{
    memset(f, 0, sizeof *f);
    f->ch = weir__channel_create(sizeof(elem12), capacity, pool);
    cr_assert_not_null(f->ch);
    f->ch->producer = &f->producer;
    f->ch->consumer = &f->consumer;
    f->ch->events = &counting_events;
    atomic_store(&published_calls, 0);
    atomic_store(&returned_calls, 0);
    atomic_store(&pending_calls, 0);
}

/* Writes one record; false on out-of-memory. Safe on any thread (it is
 * also the producer thread's write in the two-thread test). */
static bool try_put(weir__channel *ch, uint32_t v, int64_t ts)
{
    unsigned char *slot = weir__channel_reserve(ch);
    if (!slot)
        return false;
    WEIR__SLOT_TS(slot) = ts;
    elem12 e = {v, v + 1, v + 2};
    memcpy(WEIR__SLOT_ELEM(slot), &e, sizeof e);
    weir__channel_commit(ch);
    return true;
}

static void put(weir__channel *ch, uint32_t v, int64_t ts)
{
    cr_assert(try_put(ch, v, ts), "reserve failed");
}

static void expect_slot(const weir__channel *ch, const weir__batch *b, uint32_t i, uint32_t v,
                        int64_t ts)
{
    const unsigned char *slot = b->data + (size_t)i * ch->stride;
    elem12 e;
    memcpy(&e, WEIR__SLOT_ELEM(slot), sizeof e);
    cr_assert_eq(WEIR__SLOT_TS(slot), ts);
    cr_assert_eq(e.a, v, "slot %u holds %u, expected %u", i, e.a, v);
    cr_assert_eq(e.b, v + 1);
    cr_assert_eq(e.c, v + 2);
}

Test(channel, stride_rounds_elements_to_8_bytes)
{
    cr_assert_eq(weir__slot_stride(1), 16u);
    cr_assert_eq(weir__slot_stride(8), 16u);
    cr_assert_eq(weir__slot_stride(12), 24u);
    cr_assert_eq(weir__slot_stride(0), 8u);
}

Test(channel, records_are_invisible_until_flush)
{
    fixture f;
    setup(&f, 4, 2);
    weir__channel *ch = f.ch;
    cr_assert_not(weir__channel_dirty(ch));
    put(ch, 10, 100);
    put(ch, 20, 200);
    put(ch, 30, 300);
    cr_assert(weir__channel_dirty(ch));
    cr_assert_not(weir__channel_has_data(ch));
    cr_assert_null(weir__channel_peek(ch));

    cr_assert_eq(weir__channel_flush(ch, WEIR__CTRL_NONE, 0), 0);
    cr_assert_not(weir__channel_dirty(ch));
    cr_assert(weir__channel_has_data(ch));
    weir__batch *b = weir__channel_peek(ch);
    cr_assert_not_null(b);
    cr_assert_eq(b->count, 3u);
    cr_assert_eq(b->ctrl, WEIR__CTRL_NONE);
    expect_slot(ch, b, 0, 10, 100);
    expect_slot(ch, b, 1, 20, 200);
    expect_slot(ch, b, 2, 30, 300);
    /* Peeking again gives the batch being read, not the next one. */
    cr_assert_eq(weir__channel_peek(ch), b);
    cr_assert_eq(ch->credits, 1u);
    weir__channel_release(ch);
    cr_assert_null(weir__channel_peek(ch));
    cr_assert_not(weir__channel_has_data(ch));
    weir__channel_destroy(ch);
}

Test(channel, flush_none_without_records_sends_nothing)
{
    fixture f;
    setup(&f, 4, 2);
    cr_assert_eq(weir__channel_flush(f.ch, WEIR__CTRL_NONE, 0), 0);
    cr_assert_not(weir__channel_has_data(f.ch));
    cr_assert_eq(f.ch->credits, 2u);
    weir__channel_destroy(f.ch);
}

Test(channel, full_batch_is_sent_on_commit)
{
    fixture f;
    setup(&f, 4, 2);
    weir__channel *ch = f.ch;
    for (uint32_t i = 0; i < 4; i++)
        put(ch, i, i);
    /* The fourth commit filled the batch: it left without a flush. */
    cr_assert_not(weir__channel_dirty(ch));
    weir__batch *b = weir__channel_peek(ch);
    cr_assert_not_null(b);
    cr_assert_eq(b->count, 4u);
    for (uint32_t i = 0; i < 4; i++)
        expect_slot(ch, b, i, i, i);
    weir__channel_release(ch);
    weir__channel_destroy(ch);
}

Test(channel, control_message_ends_the_batch)
{
    fixture f;
    setup(&f, 8, 4);
    weir__channel *ch = f.ch;
    put(ch, 1, 11);
    put(ch, 2, 12);
    cr_assert_eq(weir__channel_flush(ch, WEIR__CTRL_WATERMARK, 42), 0);
    /* A control message with no open batch travels in an empty batch. */
    cr_assert_eq(weir__channel_flush(ch, WEIR__CTRL_STATUS, 1), 0);
    put(ch, 3, 13);
    cr_assert_eq(weir__channel_flush(ch, WEIR__CTRL_END, 0), 0);

    weir__batch *b = weir__channel_peek(ch);
    cr_assert_eq(b->count, 2u);
    cr_assert_eq(b->ctrl, WEIR__CTRL_WATERMARK);
    cr_assert_eq(b->ctrl_value, 42);
    expect_slot(ch, b, 0, 1, 11);
    expect_slot(ch, b, 1, 2, 12);
    weir__channel_release(ch);

    b = weir__channel_peek(ch);
    cr_assert_eq(b->count, 0u);
    cr_assert_eq(b->ctrl, WEIR__CTRL_STATUS);
    cr_assert_eq(b->ctrl_value, 1);
    weir__channel_release(ch);

    b = weir__channel_peek(ch);
    cr_assert_eq(b->count, 1u);
    expect_slot(ch, b, 0, 3, 13);
    cr_assert_eq(b->ctrl, WEIR__CTRL_END);
    weir__channel_release(ch);
    cr_assert_null(weir__channel_peek(ch));
    weir__channel_destroy(ch);
}

/* Credits: with a pool of 2, the third batch cannot be sent. It waits as
 * pending, the producer is marked blocked, and order is kept: a later flush
 * queues behind it instead of overtaking it. */
Test(channel, credits_exhaust_then_drain_after_release)
{
    fixture f;
    setup(&f, 2, 2);
    weir__channel *ch = f.ch;
    cr_assert_eq(weir__channel_fill(ch), 0.0);
    for (uint32_t i = 0; i < 4; i++)
        put(ch, i, 0); /* batches 0 and 1: sent, using both credits */
    cr_assert_eq(ch->credits, 0u);
    cr_assert_eq(weir__channel_fill(ch), 1.0);
    cr_assert_not(weir__channel_blocked(ch));
    cr_assert_eq(atomic_load(&pending_calls), 0);
    cr_assert_eq(atomic_load(&published_calls), 2, "each sent batch tells the consumer");
    cr_assert_not(weir__channel_has_credit(ch));

    put(ch, 4, 0);
    put(ch, 5, 0); /* batch 2: full, no credit -> pending */
    cr_assert(weir__channel_blocked(ch));
    cr_assert_eq(atomic_load(&pending_calls), 1, "the producer was not told it is blocked");
    cr_assert_eq(atomic_load(&published_calls), 2, "a pending batch was announced");
    put(ch, 6, 0);
    cr_assert_eq(weir__channel_flush(ch, WEIR__CTRL_WATERMARK, 7), 0); /* batch 3: pending */
    cr_assert_not(weir__channel_drain(ch), "drained without any credit");
    cr_assert(weir__channel_blocked(ch));

    /* The consumer sees exactly the two sent batches. */
    weir__batch *b = weir__channel_peek(ch);
    expect_slot(ch, b, 0, 0, 0);
    weir__channel_release(ch);
    cr_assert_eq(atomic_load(&returned_calls), 1, "a released batch did not tell the producer");
    cr_assert(weir__channel_has_credit(ch), "a released batch did not give credit");
    /* One credit: batch 2 leaves, batch 3 still waits. */
    cr_assert_not(weir__channel_drain(ch));
    cr_assert(weir__channel_blocked(ch));

    b = weir__channel_peek(ch);
    expect_slot(ch, b, 0, 2, 0);
    weir__channel_release(ch);
    b = weir__channel_peek(ch);
    expect_slot(ch, b, 0, 4, 0);
    expect_slot(ch, b, 1, 5, 0);
    weir__channel_release(ch);
    cr_assert(weir__channel_drain(ch));
    cr_assert_not(weir__channel_blocked(ch));

    b = weir__channel_peek(ch);
    cr_assert_eq(b->count, 1u);
    expect_slot(ch, b, 0, 6, 0);
    cr_assert_eq(b->ctrl, WEIR__CTRL_WATERMARK);
    cr_assert_eq(b->ctrl_value, 7);
    weir__channel_release(ch);
    cr_assert_null(weir__channel_peek(ch));
    /* Everything came back: full credit, nothing in flight; every batch was
     * announced once when it left and once when it came back. */
    cr_assert(weir__channel_has_credit(ch));
    cr_assert_eq(atomic_load(&published_calls), 4);
    cr_assert_eq(atomic_load(&returned_calls), 4);
    weir__channel_destroy(ch);
}

/* With the whole pool pending and no credit, a flush while pending is
 * non-empty must queue, even after credit came back, until drain runs: a
 * later batch may never overtake an earlier one. */
Test(channel, flush_never_overtakes_pending)
{
    fixture f;
    setup(&f, 1, 1);
    weir__channel *ch = f.ch;
    put(ch, 1, 0); /* sent */
    put(ch, 2, 0); /* pending */
    cr_assert(weir__channel_blocked(ch));
    weir__channel_peek(ch);
    weir__channel_release(ch); /* credit is back, but 2 is still pending */
    put(ch, 3, 0);             /* must queue behind 2 */
    cr_assert(weir__channel_blocked(ch));
    weir__batch *b = weir__channel_peek(ch);
    cr_assert_null(b, "batch 3 was sent while batch 2 was pending");
    cr_assert_not(weir__channel_drain(ch));
    b = weir__channel_peek(ch);
    expect_slot(ch, b, 0, 2, 0);
    weir__channel_release(ch);
    cr_assert(weir__channel_drain(ch));
    b = weir__channel_peek(ch);
    expect_slot(ch, b, 0, 3, 0);
    weir__channel_release(ch);
    weir__channel_destroy(ch);
}

/* Destroy frees batches wherever they are: in the data ring, being read,
 * pending, spare and the open one. AddressSanitizer reports a leak otherwise. */
Test(channel, destroy_frees_batches_everywhere)
{
    fixture f;
    setup(&f, 2, 2);
    weir__channel *ch = f.ch;
    for (uint32_t i = 0; i < 4; i++)
        put(ch, i, 0);
    weir__channel_peek(ch); /* one being read, one in the ring */
    for (uint32_t i = 0; i < 4; i++)
        put(ch, i, 0); /* two pending */
    put(ch, 9, 0);     /* one open */
    cr_assert(weir__channel_blocked(ch));
    cr_assert(weir__channel_dirty(ch));
    weir__channel_destroy(ch);
}

/* ---- two threads ---------------------------------------------------------- */

enum { SPSC_RECORDS = WEIR_TEST_SANITIZED ? 200000 : 2000000, SPSC_WM_EVERY = 997 };

typedef struct spsc {
    fixture f;
    _Atomic int consumer_done;
} spsc;

/* Produces 0..N-1 as records; after every SPSC_WM_EVERY-th record a
 * watermark carrying that record's number; then END. When blocked it spins
 * on drain, as a subtask would retry on its next step. */
static void *producer_main(void *arg)
{
    spsc *s = arg;
    weir__channel *ch = s->f.ch;
    for (uint32_t i = 0; i < SPSC_RECORDS; i++) {
        while (weir__channel_blocked(ch) && !weir__channel_drain(ch))
            sched_yield();
        tu_check(try_put(ch, i, (int64_t)i * 3), "reserve failed");
        if (i % SPSC_WM_EVERY == SPSC_WM_EVERY - 1)
            tu_check(weir__channel_flush(ch, WEIR__CTRL_WATERMARK, i) == 0, "flush failed");
    }
    while (weir__channel_blocked(ch) && !weir__channel_drain(ch))
        sched_yield();
    tu_check(weir__channel_flush(ch, WEIR__CTRL_END, 0) == 0, "flush END failed");
    while (weir__channel_blocked(ch) && !weir__channel_drain(ch))
        sched_yield();
    return NULL;
}

Test(channel, two_threads_keep_fifo_order, .timeout = 120)
{
    static spsc s;
    setup(&s.f, 7, 2);
    weir__channel *ch = s.f.ch;
    pthread_t prod;
    cr_assert_eq(pthread_create(&prod, NULL, producer_main, &s), 0);
    uint32_t next = 0, watermarks = 0;
    bool ended = false;
    while (!ended) {
        weir__batch *b = weir__channel_peek(ch);
        if (!b) {
            sched_yield();
            continue;
        }
        for (uint32_t i = 0; i < b->count; i++) {
            const unsigned char *slot = b->data + (size_t)i * ch->stride;
            elem12 e;
            memcpy(&e, WEIR__SLOT_ELEM(slot), sizeof e);
            cr_assert_eq(e.a, next, "record %u arrived where %u was due", e.a, next);
            cr_assert_eq(e.c, next + 2);
            cr_assert_eq(WEIR__SLOT_TS(slot), (int64_t)next * 3);
            next++;
        }
        if (b->ctrl == WEIR__CTRL_WATERMARK) {
            /* Every record up to the watermark's number arrived before it,
             * and none after it. */
            cr_assert_eq(b->ctrl_value, (int64_t)next - 1, "watermark %lld after record %u",
                         (long long)b->ctrl_value, next - 1);
            watermarks++;
        } else if (b->ctrl == WEIR__CTRL_END) {
            ended = true;
        }
        weir__channel_release(ch);
    }
    pthread_join(prod, NULL);
    tu_assert_no_async_failure();
    cr_assert_eq(next, (uint32_t)SPSC_RECORDS);
    cr_assert_eq(watermarks, (uint32_t)(SPSC_RECORDS / SPSC_WM_EVERY));
    cr_assert_null(weir__channel_peek(ch));
    weir__channel_destroy(ch);
}
