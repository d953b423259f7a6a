/* channel.h — one SPSC channel between a producer subtask and a consumer
 * subtask: batches of fixed-stride record slots, with the in-band control
 * message (watermark, status, END) that ends a batch.
 *
 * Design. A batch holds `count` records followed by at most one control
 * message; the producer flushes a batch when it is full, when it emits a
 * control message, and when the buffer timeout expires. Because a control
 * message always ends its batch, FIFO order of records and control messages
 * on a channel is the order of batches in the ring: every record emitted
 * before a watermark arrives before it.
 *
 * Two Concurrency Kit SPSC rings link the ends: `data` carries filled batches
 * to the consumer, `free` carries them back. The producer holds `credits`, the
 * number of batches it may still send before one comes back; the channel's
 * memory bound is `pool` batches in flight. With no credit left, flushed
 * batches wait in the producer's `pending` list and the producer is blocked:
 * it keeps that pending output and yields rather than block its worker. The
 * pending list is the only place that may outgrow the pool, and only by what
 * one callback emitted (a flat_map fanning out, one timer's output), never by
 * a steady stream: a blocked subtask is not fed more input, and an
 * event-time firing that finds the output blocked suspends before its next
 * timer (context.c), so even MAX firing every window stays within the pool
 * plus one callback's output. (A source's finish sends MAX and END behind
 * its last next()'s output in the same step: two control batches more.)
 *
 * Threads: the producer side (reserve, flush, drain) runs only on the
 * producer's worker, the consumer side (peek, release) only on the consumer's.
 * Producer and consumer fields sit on separate cache lines.
 */
#ifndef WEIR_RUNTIME_CHANNEL_H
#define WEIR_RUNTIME_CHANNEL_H

#include <ck_ring.h>
#include <stdalign.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "util.h"

struct weir__subtask;

/* What a channel tells the subtasks it links. The scheduler implements it
 * (weir__sched_channel_events); the channel knows nothing of workers, and a
 * test can count the calls. Each is called on the side that acts. */
typedef struct weir__channel_events {
    /* Producer side: a batch went into the data ring; the consumer may run. */
    void (*published)(struct weir__subtask *consumer);
    /* Consumer side: batches went back into the free ring, half the pool
     * of them or the last one the consumer could read (wake_credits); a
     * producer that waits for credit may run. */
    void (*returned)(struct weir__subtask *producer);
    /* Producer side: a flushed batch found no credit and went pending. */
    void (*went_pending)(struct weir__subtask *producer);
} weir__channel_events;

typedef enum weir__ctrl {
    WEIR__CTRL_NONE = 0,
    WEIR__CTRL_WATERMARK = 1,
    WEIR__CTRL_STATUS = 2, /* value: 1 idle, 0 active */
    WEIR__CTRL_END = 3,
    WEIR__CTRL_BARRIER = 4 /* value: the checkpoint's id (barrier.h) */
} weir__ctrl;

/* A batch is allocated on cache lines of its own (weir__channel_acquire):
 * the producer writing one batch's header never touches a line of the batch
 * the consumer reads. */
typedef struct weir__batch {
    struct weir__batch *next; /* producer-local lists (spare, pending) */
    uint32_t count;           /* records in data[] */
    uint8_t ctrl;             /* weir__ctrl after the records */
    int64_t ctrl_value;
    alignas(16) unsigned char data[]; /* count slots of `stride` bytes */
} weir__batch;

/* A slot: the record's timestamp, then its element (8-byte aligned). */
#define WEIR__SLOT_TS(slot) (*(int64_t *)(void *)(slot))
#define WEIR__SLOT_ELEM(slot) ((unsigned char *)(slot) + 8)

static inline size_t weir__slot_stride(size_t elem_size)
{
    return 8 + weir__round_up(elem_size, 8);
}

typedef struct weir__channel {
    /* shared: each ring on lines of its own (ck_ring_t keeps its consumer
     * head, its producer tail and its size/mask on three lines; the size
     * line, read by both ends on every operation, would otherwise share its
     * line with the next ring's consumer head, which the other end writes) */
    ck_ring_t data;
    alignas(WEIR__CACHELINE) ck_ring_t free;
    /* immutable after creation, read by both ends */
    alignas(WEIR__CACHELINE) ck_ring_buffer_t *data_buf;
    ck_ring_buffer_t *free_buf;
    struct weir__subtask *producer;
    struct weir__subtask *consumer;
    uint32_t stride;
    uint32_t capacity; /* records per batch */
    uint32_t pool;     /* batches in flight at most */
    /* The consumer tells the producer of returned batches (events->returned)
     * once this many wait in the free ring, or when it has read every batch
     * sent: half the pool. A producer that waits for credit is then woken
     * once for several batches, not for each one — one wake-up (a futex
     * system call when it parked) per pool/2 batches on the consumer, the
     * slower side — and it sends them in one run. */
    uint32_t wake_credits;
    const weir__channel_events *events; /* NULL: nobody is told */
    int input;         /* consumer's logical input */
    int index;         /* channel index within that input */
    int edge;          /* the graph edge it implements */
    /* producer side */
    alignas(WEIR__CACHELINE) weir__batch *current;
    weir__batch *spare;
    weir__batch *pending_head;
    weir__batch *pending_tail;
    uint32_t credits;
    uint32_t allocated; /* batches allocated in all (pool and beyond); none is
                         * freed before destroy: the channel's peak (tests) */
    /* consumer side */
    alignas(WEIR__CACHELINE) weir__batch *reading;
    uint32_t read_pos;
    bool ended; /* END consumed */
    bool barrier_held; /* delivered the barrier its consumer aligns: input waits */
} weir__channel;

/* Allocates a channel (batches lazily). NULL on out-of-memory. */
weir__channel *weir__channel_create(uint32_t elem_size, uint32_t capacity, uint32_t pool);
/* Frees every batch wherever it is. Only when neither side runs. */
void weir__channel_destroy(weir__channel *ch);

/* ---- producer side ---- */

/* The slot for the next record; fills current, acquiring a batch when none is
 * open. NULL only on out-of-memory. The caller writes the slot, then calls
 * weir__channel_commit(). */
static inline unsigned char *weir__channel_reserve(weir__channel *ch);
void weir__channel_commit_full(weir__channel *ch);

/* Ends the current batch with control message `ctrl` (or none) and sends it,
 * or queues it as pending when no credit is left. With ctrl NONE and no open
 * batch, nothing happens. Returns 0 or WEIR_ENOMEM. */
int weir__channel_flush(weir__channel *ch, weir__ctrl ctrl, int64_t value);
/* Sends pending batches while credits allow. Returns true if none is left. */
bool weir__channel_drain(weir__channel *ch);
static inline bool weir__channel_blocked(const weir__channel *ch)
{
    return ch->pending_head != NULL;
}
/* Whether an open batch holds records (for the buffer timeout). */
static inline bool weir__channel_dirty(const weir__channel *ch)
{
    return ch->current != NULL && ch->current->count > 0;
}
/* Whether a send could happen now (a credit, or a batch came back). */
bool weir__channel_has_credit(weir__channel *ch);
/* Batches in flight / pool: how full the channel is, 0..1 (approximate). */
double weir__channel_fill(const weir__channel *ch);

/* ---- consumer side ---- */

/* The batch being read, dequeuing the next one if needed; NULL if empty. */
weir__batch *weir__channel_peek(weir__channel *ch);
/* Whether a batch is waiting (cheap; for readiness checks). */
bool weir__channel_has_data(weir__channel *ch);
/* Hands the batch being read back to the producer. */
void weir__channel_release(weir__channel *ch);

/* ---- inline ---- */

weir__batch *weir__channel_acquire(weir__channel *ch);

static inline unsigned char *weir__channel_reserve(weir__channel *ch)
{
    weir__batch *b = ch->current;
    if (WEIR__UNLIKELY(b == NULL)) {
        b = weir__channel_acquire(ch);
        if (!b)
            return NULL;
    }
    return b->data + (size_t)b->count * ch->stride;
}

/* Counts the record just written into the slot from reserve(); sends the
 * batch when it is full. */
static inline void weir__channel_commit(weir__channel *ch)
{
    if (WEIR__UNLIKELY(++ch->current->count == ch->capacity))
        weir__channel_commit_full(ch);
}

#endif
