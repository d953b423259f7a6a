/* diag_internal.h — inside the diagnostic channel: the fixed-size record a
 * worker writes into its ring, the rings, the sinks and the collector state.
 * Shared by diag.c (sites, rings, collector), diag_events.c (records, the job
 * and summary events as msgpack) and diag_sinks.c (JSONL, msgpack, memory,
 * callback). */
#ifndef WEIR_RUNTIME_DIAG_INTERNAL_H
#define WEIR_RUNTIME_DIAG_INTERNAL_H

#include <ck_ring.h>
#include <msgpack.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>

#include "capture_json.h"
#include "diag.h"

#define WEIR__DIAG_KEY 64

/* One event as a worker records it; the collector turns it into msgpack. */
typedef struct weir__diag_rec {
    uint8_t kind;    /* weir_diag_kind */
    uint8_t flag;    /* status: idle; late: dropped */
    int16_t input;   /* valve events: the input, else -1 */
    int32_t channel;
    int32_t op;      /* node id */
    int32_t subtask;
    int32_t held_by;
    int32_t firing;
    int64_t t;
    int64_t wm;
    int64_t a, b, c; /* kind-specific, see diag_events.c */
    double fill;
    char key[WEIR__DIAG_KEY];
} weir__diag_rec;

CK_RING_PROTOTYPE(weir__diag, weir__diag_rec)

/* One worker's ring: the worker produces, the collector consumes. */
typedef struct weir__diag_ring {
    ck_ring_t ring;
    weir__diag_rec *buf;
    int64_t dropped; /* lossy mode; written by the worker, read after join */
} weir__diag_ring;

typedef struct weir__diag_sinks {
    FILE *jsonl;
    FILE *msgpack;
    char *jsonl_tmp, *msgpack_tmp; /* written here, renamed at the end */
    weir_diag_memory *memory;
    weir_diag_callback callback;
    void *callback_arg;
    bool failed;
    char failure[256];
} weir__diag_sinks;

struct weir__diag {
    weir_job *job;
    int level;
    bool lossy;
    weir__diag_ring *rings;
    int nrings;
    weir__diag_sinks sinks;
    pthread_t collector;
    bool collector_started;
    _Atomic int stop;
    int64_t events;        /* written so far (collector, then the job thread) */
    /* encoding scratch, used by one thread at a time */
    msgpack_sbuffer sbuf;
    msgpack_packer pk;
    weir__buf json;
    msgpack_unpacked unpacked;
};

struct weir_diag_memory {
    weir_diag_event *events;
    size_t n, cap;
};

/* Events a lossy channel dropped, over all rings (after the workers joined). */
int64_t weir__diag_dropped(const struct weir__diag *d);

/* diag_events.c: the msgpack form of each event */
void weir__diag_pack_rec(struct weir__diag *d, const weir__diag_rec *r);
void weir__diag_pack_job(struct weir__diag *d);
void weir__diag_pack_summary(struct weir__diag *d, int64_t t);
/* The structured view of a record for the memory and callback sinks. */
void weir__diag_rec_event(const struct weir__diag *d, const weir__diag_rec *r,
                          weir_diag_event *ev);

/* diag_sinks.c */
int weir__diag_sinks_open(struct weir__diag *d);
/* Writes the event now in d->sbuf to every sink (ev: its structured view,
 * kind and t at least). */
void weir__diag_sinks_write(struct weir__diag *d, const weir_diag_event *ev);
/* Closes the files: renames them into place, or removes them if `keep` is
 * false or writing failed. */
void weir__diag_sinks_close(struct weir__diag *d, bool keep);

#endif
