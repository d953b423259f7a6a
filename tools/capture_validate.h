/* capture_validate.h — the checker of a capture (capture_validate.c): each
 * event checked against docs/CAPTURE.md and what came before. It keeps the
 * job's topology, which the visitors of capture_read.h read too. */
#ifndef WEIR_TOOLS_CAPTURE_VALIDATE_H
#define WEIR_TOOLS_CAPTURE_VALIDATE_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

typedef enum cap_accounting {
    CAP_ACCT_SOURCE,
    CAP_ACCT_ONE_TO_ONE,
    CAP_ACCT_WINDOW,
    CAP_ACCT_SINK,
    CAP_ACCT_ANY
} cap_accounting;

typedef enum cap_part { CAP_FORWARD, CAP_HASH, CAP_REBALANCE, CAP_BROADCAST } cap_part;

typedef struct cap_edge {
    int from, to, input;
    cap_part part;
    bool chained;
    int side; /* 0: the main output */
} cap_edge;

/* The summary's counters of one operator subtask. */
typedef struct cap_counters {
    int64_t in, out, filtered, late_dropped, late_side, absorbed, side_out;
} cap_counters;

typedef struct cap_op {
    char *name, *kind;
    int parallelism, task;
    cap_accounting accounting;
    int nch[2];     /* valve channels of a subtask per input (0: no valve there) */
    int head;       /* the operator heading its task (itself if not chained) */
    int origin;     /* where its watermarks come from: a source or timestamps
                     * operator in its chain, or -1 for its head's valve */
    /* per subtask */
    int64_t *wm;    /* last output watermark */
    int64_t *vwm[2];/* last valve watermark, [subtask * nch + channel] */
    /* a source's partitions (valve events with "partition"): their count is
     * not in the job event, so the last watermark per (subtask, channel)
     * grows as channels appear: [subtask * npart + channel] */
    int64_t *pwm;
    int npart;
    int64_t *tp_in, *tp_out; /* sums of throughput events */
    cap_counters *cnt;
    bool *in_summary;
} cap_op;

typedef struct cap_check {
    int64_t events;         /* events checked so far */
    bool msgpack;           /* the capture's format (cap_read sets it) */
    bool have_job, have_summary;
    int version;            /* the job event's */
    char last_kind[48];     /* of the last event checked */
    cap_op *ops;
    int nops;
    cap_edge *edges;
    int nedges;
    char level[16];         /* the job's level ("standard", ...) */
    bool lossy;
    int64_t unknown;        /* events of kinds this version does not know */
    /* from the summary */
    int64_t summary_events, dropped_events;
    bool run_failed;
    bool run_cancelled;     /* its summary says "cancelled": true (then run_failed too) */
    char run_error[512];
    char msg[1024];         /* the problem, without its place */
} cap_check;

void cap_check_init(cap_check *c);
void cap_check_free(cap_check *c);
/* Checks the next event. 0, or -1 with the problem in c->msg. */
int cap_check_event(cap_check *c, json_t *ev);
/* At the end of the capture. 0, or -1 with the problem in c->msg. */
int cap_check_end(cap_check *c);
/* The index of the operator called name, or -1. */
int cap_op_find(const cap_check *c, const char *name);

/* A watermark or timestamp field: an integer, or "MIN" / "MAX" (INT64_MIN
 * and INT64_MAX as integers are not one: the schema writes them as those
 * strings). */
bool cap_ts(const json_t *v, int64_t *out);

#endif
