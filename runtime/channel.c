/* channel.c — batches, the two rings and the credit count of one channel
 * (design in channel.h).
 *
 * The rings are Concurrency Kit's ck_ring SPSC rings of batch pointers. Under
 * ThreadSanitizer the ring's own accesses are made invisible (they are plain
 * volatile loads and stores that TSan would misreport) and the hand-off is
 * annotated instead: the producer releases after writing the slot and before
 * publishing it, the consumer acquires after it saw the slot published and
 * before reading it. That tells TSan exactly the happens-before edge the ring
 * provides, so a real race on batch contents is still reported.
 */
#include "channel.h"

#include <stdlib.h>
#include <string.h>

#include "weir/error.h"

#if defined(__SANITIZE_THREAD__)
#include <sanitizer/tsan_interface.h>
#define RING_FN __attribute__((no_sanitize_thread))
#define TSAN_RELEASE(p) __tsan_release(p)
#define TSAN_ACQUIRE(p) __tsan_acquire(p)
#else
#define RING_FN
#define TSAN_RELEASE(p) ((void)0)
#define TSAN_ACQUIRE(p) ((void)0)
#endif

RING_FN static bool ring_push(ck_ring_t *ring, ck_ring_buffer_t *buf, void *p)
{
    void **slot = ck_ring_enqueue_reserve_spsc(ring, buf);
    if (!slot)
        return false;
    *slot = p;
    TSAN_RELEASE(ring);
    ck_ring_enqueue_commit_spsc(ring);
    return true;
}

RING_FN static void *ring_pop(ck_ring_t *ring, ck_ring_buffer_t *buf)
{
    void *p = NULL;
    if (ck_ring_size(ring) == 0)
        return NULL;
    TSAN_ACQUIRE(ring);
    if (!ck_ring_dequeue_spsc(ring, buf, &p))
        return NULL;
    return p;
}

RING_FN static bool ring_empty(const ck_ring_t *ring)
{
    return ck_ring_size(ring) == 0;
}

RING_FN static unsigned int ring_size(const ck_ring_t *ring)
{
    return ck_ring_size(ring);
}

weir__channel *weir__channel_create(uint32_t elem_size, uint32_t capacity, uint32_t pool)
{
    weir__channel *ch = aligned_alloc(WEIR__CACHELINE, weir__round_up(sizeof *ch, WEIR__CACHELINE));
    if (!ch)
        return NULL;
    memset(ch, 0, sizeof *ch);
    /* A ck_ring of size n holds n - 1 entries; every batch in flight must fit. */
    uint32_t ring_size_pow2 = weir__next_pow2(pool + 1);
    ch->data_buf = calloc(ring_size_pow2, sizeof *ch->data_buf);
    ch->free_buf = calloc(ring_size_pow2, sizeof *ch->free_buf);
    if (!ch->data_buf || !ch->free_buf) {
        free(ch->data_buf);
        free(ch->free_buf);
        free(ch);
        return NULL;
    }
    ck_ring_init(&ch->data, ring_size_pow2);
    ck_ring_init(&ch->free, ring_size_pow2);
    ch->stride = (uint32_t)weir__slot_stride(elem_size);
    ch->capacity = capacity;
    ch->pool = pool;
    ch->credits = pool;
    ch->wake_credits = pool / 2 > 0 ? pool / 2 : 1;
    return ch;
}

static void free_list(weir__batch *b)
{
    while (b) {
        weir__batch *next = b->next;
        free(b);
        b = next;
    }
}

void weir__channel_destroy(weir__channel *ch)
{
    if (!ch)
        return;
    void *p;
    while ((p = ring_pop(&ch->data, ch->data_buf)) != NULL)
        free(p);
    while ((p = ring_pop(&ch->free, ch->free_buf)) != NULL)
        free(p);
    if (ch->reading)
        free(ch->reading);
    free(ch->current);
    free_list(ch->spare);
    free_list(ch->pending_head);
    free(ch->data_buf);
    free(ch->free_buf);
    free(ch);
}

/* Takes back the batches the consumer returned: each is a credit again. */
static void reclaim(weir__channel *ch)
{
    weir__batch *b;
    while ((b = ring_pop(&ch->free, ch->free_buf)) != NULL) {
        b->next = ch->spare;
        ch->spare = b;
        ch->credits++;
    }
}

weir__batch *weir__channel_acquire(weir__channel *ch)
{
    weir__batch *b = ch->spare;
    if (!b) {
        reclaim(ch);
        b = ch->spare;
    }
    if (b) {
        ch->spare = b->next;
    } else {
        b = aligned_alloc(WEIR__CACHELINE, weir__round_up(sizeof *b + (size_t)ch->capacity *
                                                                  ch->stride, WEIR__CACHELINE));
        if (!b)
            return NULL;
        ch->allocated++;
    }
    b->next = NULL;
    b->count = 0;
    b->ctrl = WEIR__CTRL_NONE;
    b->ctrl_value = 0;
    ch->current = b;
    return b;
}

static void send(weir__channel *ch, weir__batch *b)
{
    ch->credits--;
    bool ok = ring_push(&ch->data, ch->data_buf, b);
    WEIR__ASSERT(ok);
    if (ch->events)
        ch->events->published(ch->consumer);
}

bool weir__channel_drain(weir__channel *ch)
{
    while (ch->pending_head) {
        if (ch->credits == 0) {
            reclaim(ch);
            if (ch->credits == 0)
                return false;
        }
        weir__batch *b = ch->pending_head;
        ch->pending_head = b->next;
        if (!ch->pending_head)
            ch->pending_tail = NULL;
        b->next = NULL;
        send(ch, b);
    }
    return true;
}

int weir__channel_flush(weir__channel *ch, weir__ctrl ctrl, int64_t value)
{
    weir__batch *b = ch->current;
    if (!b) {
        if (ctrl == WEIR__CTRL_NONE)
            return 0;
        b = weir__channel_acquire(ch);
        if (!b)
            return WEIR_ENOMEM;
    }
    b->ctrl = (uint8_t)ctrl;
    b->ctrl_value = value;
    ch->current = NULL;
    if (!ch->pending_head && ch->credits == 0)
        reclaim(ch);
    if (!ch->pending_head && ch->credits > 0) {
        send(ch, b);
    } else {
        b->next = NULL;
        if (ch->events)
            ch->events->went_pending(ch->producer);
        if (ch->pending_tail)
            ch->pending_tail->next = b;
        else
            ch->pending_head = b;
        ch->pending_tail = b;
    }
    return 0;
}

void weir__channel_commit_full(weir__channel *ch)
{
    /* Out of memory cannot happen here: the batch exists already. */
    (void)weir__channel_flush(ch, WEIR__CTRL_NONE, 0);
}

double weir__channel_fill(const weir__channel *ch)
{
    uint32_t in_flight = ch->pool - ch->credits;
    return (double)in_flight / (double)ch->pool;
}

weir__batch *weir__channel_peek(weir__channel *ch)
{
    if (ch->reading)
        return ch->reading;
    weir__batch *b = ring_pop(&ch->data, ch->data_buf);
    if (b) {
        ch->reading = b;
        ch->read_pos = 0;
    }
    return b;
}

bool weir__channel_has_credit(weir__channel *ch)
{
    return ch->credits > 0 || !ring_empty(&ch->free);
}

bool weir__channel_has_data(weir__channel *ch)
{
    return ch->reading != NULL || !ring_empty(&ch->data);
}

void weir__channel_release(weir__channel *ch)
{
    weir__batch *b = ch->reading;
    ch->reading = NULL;
    ch->read_pos = 0;
    bool ok = ring_push(&ch->free, ch->free_buf, b);
    WEIR__ASSERT(ok);
    /* Half the pool back, or nothing more to read here (the consumer may
     * not come back to this channel until the producer sends again): a
     * producer waiting for credit never waits for a batch that will not
     * come. While it waits it takes nothing from the free ring, so the
     * count only grows until it is told. */
    if (ch->events &&
        (ring_size(&ch->free) >= ch->wake_credits || ring_empty(&ch->data)))
        ch->events->returned(ch->producer);
}
