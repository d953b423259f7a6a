/* diag_internal.h — inside the diagnostic channel: the fixed-size record a
 * worker writes into its ring, the rings, the sinks and the collector state.
 * Shared by diag.c (sites, rings, collector), diag_events.c (records, the job
 * and summary events, as msgpack and JSON) and diag_sinks.c (JSONL, msgpack,
 * memory, callback). */
#ifndef WEIR_DIAG_DIAG_INTERNAL_H
#define WEIR_DIAG_DIAG_INTERNAL_H

#include <msgpack.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>

#include "capture_json.h"
#include "diag.h"
#include "weir/outfile.h"

/* A key's printable form is kept to its first WEIR__DIAG_KEY - 1 bytes (63):
 * the record has a fixed size (docs/CAPTURE.md says so). */
#define WEIR__DIAG_KEY 64

/* One event as a worker records it; the collector writes it as msgpack and
 * JSON. */
typedef struct weir__diag_rec {
    uint8_t kind;    /* weir_diag_kind */
    uint8_t flag;    /* status: idle; late: dropped; window_fire: cleanup */
    int16_t input;   /* valve events: the input, else -1 */
    int32_t channel;
    int32_t op;      /* node id */
    int32_t subtask;
    int32_t held_by;
    int32_t firing;
    int64_t t;
    int64_t wm;
    /* Four kind-specific slots, each named for what it holds in each kind
     * (see diag.c's recorders and diag_events.c's readers). */
    union {
        int64_t start;      /* window fire, late, merge, cleanup: the window's start */
        int64_t chk_id;     /* checkpoint kinds: the checkpoint's id */
        int64_t in;         /* throughput: records in since the last sample */
        int64_t blocked_ms; /* backpressure: time blocked since the last sample */
    };
    union {
        int64_t end; /* window fire, late, merge, cleanup: the window's end */
        int64_t out; /* throughput: records out since the last sample */
        int64_t align_us;    /* checkpoint: input held for the barrier */
        int64_t duration_ms; /* checkpoint_end */
    };
    union {
        int64_t count;       /* window fire: elements in the pane */
        int64_t ts;          /* late, record: the element's timestamp */
        int64_t merged;      /* merge: windows merged */
        int64_t interval_ms; /* throughput, backpressure: the sample's interval */
        int64_t bytes;       /* checkpoint, checkpoint_end: state bytes */
    };
    union {
        int64_t slide;  /* late: for a sliding window, its slide */
        int64_t max_ts; /* throughput: the largest timestamp seen */
        int64_t held_bytes; /* checkpoint: batches waiting in held channels */
    };
    union {
        double fill;        /* backpressure */
        double snapshot_ms; /* checkpoint */
    };
    char key[WEIR__DIAG_KEY]; /* checkpoint_end: an abort's reason */
} weir__diag_rec;

/* One worker's ring: single producer (the worker), single consumer (the
 * collector). `tail` and `head` count events written and read since the
 * start; they never wrap in practice (2^64 events), so full is
 * tail - head == size and every one of the size slots is usable. The
 * producer's fields and the consumer's are a cache line apart (padding
 * rather than alignment: the rings are calloc'ed). */
typedef struct weir__diag_ring {
    weir__diag_rec *buf;    /* set before the worker starts, then read-only */
    uint64_t mask;          /* size - 1, size a power of two */
    char pad0[WEIR__CACHELINE];
    /* the producer's */
    /* Published by the producer: a seq_cst store (release for the event's
     * contents, seq_cst for the collector's park/wake hand-off, diag.c);
     * the collector reads it acquire to drain, seq_cst before it parks. */
    _Atomic uint64_t tail;
    uint64_t head_seen;     /* the producer's last reading of head */
    int64_t dropped;        /* lossy: events dropped; read after the join */
    int64_t waited;         /* lossless: events that waited for room */
    char pad1[WEIR__CACHELINE];
    /* the consumer's */
    /* Released by the collector after it wrote an event out; the producer
     * reads it acquire (the slot is free to overwrite). */
    _Atomic uint64_t head;
    char pad2[WEIR__CACHELINE];
} weir__diag_ring;

typedef struct weir__diag_sinks {
    /* the capture files (weir/outfile.h): NAME.partial renamed to NAME at
     * the end, or a FIFO or device written in place */
    weir_outfile *jsonl_out, *msgpack_out;
    FILE *jsonl, *msgpack; /* their streams */
    weir_diag_memory *memory;
    weir_diag_callback callback;
    void *callback_arg;
    struct weir__live *live; /* the HTTP server's sink (live.h), if http_addr */
    bool failed;
    int failure_code;      /* WEIR_EIO, or WEIR_ENOMEM when memory ran out */
    char failure[1024];
} weir__diag_sinks;

struct weir__diag {
    weir_job *job;
    int level;
    bool lossy;
    weir__diag_ring *rings;   /* one per worker, then the checkpoint coordinator's */
    int nrings;
    weir__diag_ring *coord_ring;
    uint32_t ring_size;    /* events each ring holds (a power of two) */
    weir__diag_sinks sinks;
    pthread_t collector;
    bool collector_started;
    bool job_written;      /* the job event is out (attach_workers, or stop) */
    /* Set once by the job's thread to end the collector (seq_cst, with a
     * wake_seq bump and futex wake after it; the collector drains once more
     * after it saw it). */
    _Atomic int stop;
    /* The collector parks on wake_seq (a futex) when the rings stayed empty;
     * `parked` tells producers to wake it (diag.c: "the collector"). parked:
     * a seq_cst store by the collector and a seq_cst load by producers, the
     * Dekker pair with the tails; the exchange that wins the wake-up is
     * seq_cst too. wake_seq: bumped before each futex wake (futex.h). */
    char pad0[WEIR__CACHELINE];
    _Atomic int parked;
    _Atomic uint32_t wake_seq;
    char pad1[WEIR__CACHELINE];
    int64_t events;        /* written so far (collector, then the job thread) */
    int64_t empty_polls, parks; /* the collector's (read after the join) */
    /* encoding scratch, used by one thread at a time: the event being
     * written, as msgpack (if a msgpack file is written) and as JSON text
     * (if a JSONL, memory or callback sink wants it), set by the sinks */
    bool want_msgpack, want_json;
    msgpack_sbuffer sbuf;
    msgpack_packer pk;     /* writes into sbuf through weir__diag_pack_write (floats;
                            * the rest is written into sbuf directly,
                            * base/msgpack_write.h) */
    bool pack_failed;      /* sbuf could not grow: the event in it is cut */
    weir__buf json;
    weir__json_writer jw;  /* writes into json */
    /* the operators' names as JSON strings, made at the first event that
     * names one (diag_events.c) */
    weir__buf *op_json;
    int nop_json;
    bool op_json_failed;
    /* a sink wants each event's structured view (memory, callback, live) */
    bool want_event;
    /* the worker's record being written (write_rec), NULL for the events the
     * job's thread makes; the live sink reads what the JSON does not carry */
    const weir__diag_rec *cur_rec;
    /* the collector holds the live sink's lock over the batch it drains
     * (weir__live_hold), so an event does not lock it again */
    bool live_held;
    /* The event being encoded, counted whatever the encodings: the open
     * containers' members still to come, and values at the top. */
    struct {
        int depth, tops;
        bool bad;
        uint64_t left[WEIR__JSON_DEPTH];
    } shape;
};

struct weir_diag_memory {
    weir_diag_event *events;
    size_t n, cap;
};

/* Events a lossy channel dropped / a lossless one made wait, over all rings
 * (after the workers joined). */
int64_t weir__diag_dropped(const struct weir__diag *d);
int64_t weir__diag_waited(const struct weir__diag *d);

/* diag_events.c: each event into d->sbuf and d->json (each as wanted) */
void weir__diag_encode_rec(struct weir__diag *d, const weir__diag_rec *r);
void weir__diag_encode_job(struct weir__diag *d);
void weir__diag_encode_summary(struct weir__diag *d, int64_t t);
/* A restore's report: a checkpoint skipped (why, naming the file) or, with
 * why NULL, the one restored (job->restore). */
void weir__diag_encode_restore(struct weir__diag *d, const char *why);
/* Whether the event just encoded is one whole value whose every map and
 * array holds the members it declared (the encoders count them: a miscount
 * would corrupt the capture for every reader). */
bool weir__diag_encoded_whole(const struct weir__diag *d);
/* The structured view of a record for the memory and callback sinks. */
void weir__diag_rec_event(const struct weir__diag *d, const weir__diag_rec *r,
                          weir_diag_event *ev);
/* An event of `kind` with every field "does not apply" (-1, MIN, NULL). */
void weir__diag_event_init(weir_diag_event *ev, weir_diag_kind kind);

/* diag_sinks.c */
/* The packer's write callback (data: the weir__diag): appends to sbuf and
 * remembers a failure to grow it, which the packing code does not check. */
int weir__diag_pack_write(void *data, const char *buf, size_t len);
int weir__diag_sinks_open(struct weir__diag *d);
/* Writes the event now in d->sbuf / d->json to every sink (ev: its structured view,
 * kind and t at least). */
void weir__diag_sinks_write(struct weir__diag *d, const weir_diag_event *ev);
/* Closes the files: renames them into place, or removes them if `keep` is
 * false or writing failed. */
void weir__diag_sinks_close(struct weir__diag *d, bool keep);

#endif
