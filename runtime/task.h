/* task.h — what the planner makes of the graph and the scheduler runs: tasks
 * (a chain of operators with one parallelism), their subtasks (one instance
 * of the chain, owned by one worker), and the weir_ctx of each operator in a
 * subtask, with its output gate, outputs, keyed state and timers.
 *
 * Ownership: the job owns the plan; a plan owns its tasks, subtasks,
 * contexts and channels. Threads: after the run starts, a subtask and its
 * contexts are touched only by the worker that owns the subtask (the
 * scheduling words `scheduled` and `want_credit` are the exceptions, and are
 * atomic; the virtual clock reads each worker's published deadline, not the
 * subtasks); the job's thread touches them again only after joining workers.
 */
#ifndef WEIR_RUNTIME_TASK_H
#define WEIR_RUNTIME_TASK_H

#include <stdalign.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <urcu/wfcqueue.h>

#include "align.h"
#include "channel.h"
#include "graph.h"
#include "inbox.h"
#include "keymap.h"
#include "timers.h"
#include "valve.h"
#include "weir/diag.h"
#include "weir/harness.h"
#include "weir/operator.h"
#include "weir/state.h"

struct weir__worker;
struct weir__task;

/* The counters every context keeps (docs/CAPTURE.md, summary). */
enum {
    WEIR__CNT_IN = 0,
    WEIR__CNT_OUT,
    WEIR__CNT_SIDE_OUT,
    WEIR__CNT_FILTERED,
    WEIR__CNT_LATE_DROPPED,
    WEIR__CNT_LATE_SIDE,
    WEIR__CNT_ABSORBED,
    WEIR__CNT_COUNT_
};

/* Channels of one consumer task, reached through one edge (or several for a
 * union) from one producer subtask. */
typedef struct weir__outgroup {
    weir__partitioning part;
    int nch;
    weir__channel **ch;
    const weir__key *key;  /* HASH */
    uint32_t max_parallelism; /* HASH: key groups (the job's) */
    unsigned char *keybuf; /* HASH: scratch for the extracted key */
    /* HASH: the channel of each key group (weir__key_group_subtask of
     * key_group.h over nch), so that routing a record is a table load, not
     * a division */
    uint16_t *kg_channel;
    uint32_t rr;           /* REBALANCE: next channel */
} weir__outgroup;

/* Where one output (main or a side output) of a context goes.
 *
 * Records for chained operators collect in `buf` (the same slot layout as a
 * channel batch) and are delivered a batch at a time: when it is full, before
 * a watermark or status leaves the operator, at on_end and at the end of
 * every step. Records for channels go straight into the channel's open
 * batch: for the main output of a chained-only or a one-channel output, the
 * context's emit cursor points into that buffer or batch (context.c). */
typedef struct weir__output {
    int tag;
    size_t elem_size;
    uint32_t stride;
    int nchained;
    struct weir_ctx **chained; /* operators chained to it */
    int ngroups;
    weir__outgroup *groups;    /* channels */
    const weir_harness_output *capture; /* harness: everything goes here */
    unsigned char *buf;        /* chained: pending records */
    uint32_t count, cap;
    /* The fast paths (set by weir__output_prepare, cleared while the
     * operator may not emit): only chained operators; exactly one channel. */
    bool only_chained;
    bool one_channel;
    /* The main fast path of a partitioned output: one group, hash or
     * rebalance over two or more channels, nothing chained, no capture.
     * Each record goes straight into its channel's open batch (context.c,
     * spread_write), without the general path's loops. */
    bool spread;
    /* Records that took the general path (send_rest): none for a chained-
     * only, one-channel or spread output (the tests check the fast paths
     * are the ones taken). */
    uint64_t general_records;
    /* The channel whose open batch holds the slot weir_emit_reserve gave
     * out (a round-robin spread output), until the commit; NULL: none */
    struct weir__channel *reserved;
    unsigned char *reserved_slot;
    unsigned char *scratch;    /* reserve() when the slot is not known yet */
} weir__output;

/* A list state's value in its keymap entry. A list of at most the state's
 * inl_cap elements keeps them in the entry itself, from `data` on to the end
 * of the entry's last cache line (weir__list_elems): the probe for (key, ns)
 * lands on the elements, and a key's few panes or its one session cost one
 * miss, not two. A longer list has its own buffer (cap > inl_cap); a list
 * with a time to live always has (inl_cap 0). */
typedef struct weir__list_value {
    uint32_t len, cap;
    unsigned char *data;
    int64_t *stamps; /* with a time to live: each element's (cap of them); else NULL */
} weir__list_value;

typedef struct weir__state {
    weir_state_kind kind;
    size_t size;      /* a value's or an element's bytes; a map's values' */
    int64_t elems;    /* a list: the elements of all its lists (weir_state_elements) */
    weir__keymap map; /* key: [ns 8][key]; value: the value or a weir__list_value;
                         a map: key [ns 8][key][map key], value a weir__map_link
                         and the value */
    /* a map state (map_state.c): its map keys' bytes, the (key, ns) heads of
     * its entries' lists (key [ns 8][key], value a weir__map_head), and a
     * buffer for an entry's key */
    size_t mkey_size;
    weir__keymap heads;
    unsigned char *probe;
    /* a time to live (state_ttl.c): each value (a map entry's after its
     * link) then starts with an int64 stamp, its last write (or read) */
    bool has_ttl;
    weir_state_ttl ttl;
    uint32_t vofs;   /* where the user's value starts: 8 with a stamp, else 0 */
    uint32_t inl_cap; /* a list: elements kept in the entry (weir__list_value) */
    uint32_t cursor; /* the incremental cleanup's next entry */
    /* a reducing or aggregating state (reducing_state.c): a value state
     * whose value is the accumulator, with the functions that fold into it */
    weir_state_reduce_fn reduce;
    bool has_agg;
    weir_state_aggregate agg;
} weir__state;

/* A map state's entry links its (key, ns)'s others (index + 1; 0: none);
 * the head keeps the newest and the count. */
typedef struct weir__map_link {
    uint32_t prev, next;
} weir__map_link;
typedef struct weir__map_head {
    uint32_t first, count;
} weir__map_head;



/* A keyed context's current key with the namespace slot in front of it:
 * the bytes one keyed-state lookup hashes and compares as one key
 * (keyed_state.c writes `ns`, the key extractor writes `key`). */
typedef struct weir__key_buf {
    int64_t ns;          /* the namespace of the lookup in progress */
    unsigned char key[]; /* the current key, key_size bytes */
} weir__key_buf;
_Static_assert(offsetof(weir__key_buf, key) == sizeof(int64_t),
               "the key follows the namespace with no padding: keymaps compare both as bytes");

/* The state `id` of `kind` when the current key is set; else NULL with the
 * ctx failed ("what: ...") (keyed_state.c). */
weir__state *weir__state_get(weir_ctx *ctx, int id, weir_state_kind kind, const char *what);
/* Frees a state's memory (context.c at the end, keyed_state.c). */
void weir__state_free(weir__state *st);
/* Puts (current key in key_buf, ns = key_buf->ns already written, hash h of
 * [ns][key]) mkey's entry of map state st, made if absent: its index, or
 * WEIR__KEYMAP_NONE on out of memory; *created says (map_state.c, and the
 * restore of a snapshot). */
uint32_t weir__map_insert(weir__state *st, const weir__key_buf *kb, size_t key_size, uint64_t h,
                          const void *mkey, bool *created);
/* Removes the whole map of (current key, ns) (weir_state_clear). */
void weir__map_clear(weir_ctx *ctx, weir__state *st, int64_t ns);
/* Calls on_wakeup if weir_ctx_wakeup asked for it since the last call
 * (context.c): 0 or the callback's failure. Whether one is asked for. */
int weir__ctx_fire_wakeup(weir_ctx *ctx);
bool weir__ctx_wakeup_pending(weir_ctx *ctx);
/* Unlinks and removes map entry idx, whichever key it is of. */
void weir__map_remove_at(weir__state *st, size_t key_size, uint32_t idx);

/* Time to live (state_ttl.c). The stamp of entry idx (NULL without TTL);
 * the time now for st; whether a stamp has expired at `now`. */
int64_t *weir__ttl_stamp(const weir__state *st, uint32_t idx);
int64_t weir__ttl_now(weir_ctx *ctx, const weir__state *st);
bool weir__ttl_expired(const weir__state *st, int64_t stamp, int64_t now);
/* Looks at the state's next cleanup_per_access entries and removes the
 * expired ones (a list's expired elements, and the list when none is
 * left). */
void weir__ttl_cleanup(weir_ctx *ctx, weir__state *st, int64_t now);
/* A list's expired elements removed (its order kept): how many are left. */
uint32_t weir__ttl_list_compact(weir__state *st, weir__list_value *l, int64_t now);
/* The hash a state's table files (key, ns) under: the key's hash with the
 * namespace mixed in, so that each namespace's lookup need not rehash the
 * key bytes (keyed and map state, snapshots, fetching ahead). */
static inline uint64_t weir__state_hash(uint64_t key_hash, int64_t ns)
{
    return weir__hash_mix(key_hash, ns, 0);
}
/* Fetching a keyed record's state ahead of the record (weir_state_prefetch):
 * the three dependent loads of a lookup — the key's slot, its entry, a long
 * list's last element — each started a few records before it is needed, a
 * stage at a time, so that a batch's misses overlap instead of following
 * one another. Each stage only reads what the one before fetched; a guess
 * that turns out wrong (a collision, a table grown since) costs a wasted
 * prefetch, never a wrong answer: the lookup itself is unchanged.
 * Forced inline: GCC takes a function whose only effect is a prefetch for a
 * pure one, and drops the calls to it. */
#define WEIR__AHEAD_RING 16 /* records in flight: a power of two > the slot stage */
#define WEIR__AHEAD_INLINE static inline __attribute__((always_inline))
WEIR__AHEAD_INLINE void weir__state_ahead_slot(const weir__state *st, uint64_t h)
{
    const uint32_t *slot = weir__keymap_home_slot(&st->map, h);
    if (slot)
        __builtin_prefetch(slot);
}
WEIR__AHEAD_INLINE void weir__state_ahead_entry(const weir__state *st, uint64_t h)
{
    const unsigned char *e = weir__keymap_home_entry(&st->map, h);
    if (e) {
        __builtin_prefetch(e);
        if (st->map.entry_size > WEIR__KEYMAP_LINE)
            __builtin_prefetch(e + WEIR__KEYMAP_LINE);
    }
}
WEIR__AHEAD_INLINE void weir__state_ahead_elems(const weir__state *st, uint64_t h)
{
    const unsigned char *e = weir__keymap_home_entry(&st->map, h);
    if (st->kind != WEIR_STATE_LIST || !e || *(const uint64_t *)(const void *)e != h)
        return; /* not a list, or the key is further on: the lookup will tell */
    const weir__list_value *l = (const weir__list_value *)(const void *)(e + st->map.value_off);
    if (l->cap > st->inl_cap && l->len) /* in a buffer of its own: its last */
        __builtin_prefetch(l->data + (size_t)(l->len - 1) * st->size);
}

/* Frees a list's memory (its elements and stamps), which leaves it empty. */
void weir__list_free(const weir__state *st, weir__list_value *l);
/* Whether list l of st keeps its elements in its entry; where they are. */
static inline bool weir__list_inline(const weir__state *st, const weir__list_value *l)
{
    return l->cap <= st->inl_cap;
}
static inline unsigned char *weir__list_elems(const weir__state *st, weir__list_value *l)
{
    return weir__list_inline(st, l) ? (unsigned char *)&l->data : l->data;
}
/* An empty list l of st (a new entry's) made room for n elements, in its
 * entry if they fit: where they go, or NULL on out of memory (l unchanged).
 * The caller writes them and sets len (the restore of a snapshot). */
unsigned char *weir__list_reserve(const weir__state *st, weir__list_value *l, uint32_t n);

/* The parts of a weir_ctx, one job each. */

/* The input side: the operator's event time, and what waits while the
 * context is held. */
typedef struct weir__ctx_input {
    int64_t wm;          /* current input watermark */
    int64_t handling_ts; /* weir_ctx_timestamp(): the record's or timer's */
    bool idle;           /* the status last delivered to on_status */
    bool held;           /* a suspended firing, or the inbox is not empty */
    weir__inbox inbox;   /* what reached the context while it was held */
} weir__ctx_input;

/* The output side: the gate (what may leave) and where each output goes. */
typedef struct weir__ctx_outputs {
    weir__gate gate;
    weir__output main;
    weir__output *side;
    int nside;
} weir__ctx_outputs;

/* Keyed state: the current key and the states declared on it. */
typedef struct weir__ctx_keyed {
    const weir__key *in_key[WEIR__MAX_INPUTS]; /* NULL: that input is not keyed */
    size_t key_size;
    weir__key_buf *key_buf; /* the current key (and a lookup's namespace) */
    uint64_t key_hash;      /* valid when key_hashed */
    bool key_hashed;        /* hashed lazily: only state and timers need it */
    bool has_key;
    weir__state *states;
    int nstates;
    int state_error;        /* the first state call that failed */
    int ahead;              /* the state fetched ahead of the records + 1; 0: none
                               (weir__state_prefetch, context.c's take_ahead) */
    unsigned char *ahead_keys; /* WEIR__AHEAD_RING keys extracted ahead */
} weir__ctx_keyed;

/* Timers, and an event-time firing in progress. A firing that meets a full
 * output stops and resumes in a later step (context.c); meanwhile the
 * context is held (input.held) and what reaches it waits in its inbox. */
typedef struct weir__ctx_timers {
    weir__timers event;
    weir__timers processing;
    unsigned char *key;        /* scratch for a firing timer's key */
    bool firing_suspended;     /* timers <= wm are left to fire, then wm forwards */
    bool firing_at_max;        /* on_timer runs for the end of input (watermark MAX) */
    int64_t firing_ns;         /* the namespace and generation of the timer firing */
    uint32_t firing_generation;
    uint64_t processing_fired; /* processing-time timers fired (tests count polls) */
    /* weir_ctx_wakeup: set (an RMW) by any thread before it schedules the
     * subtask, taken (an exchange) by the step that calls on_wakeup, read by
     * the scheduler's look after it cleared `scheduled` (the hand-off of
     * scheduler.h) */
    _Atomic int wakeup;
    uint64_t wakeups;          /* on_wakeup calls */
} weir__ctx_timers;

/* Where the operator is in its life: each callback runs at most once. */
typedef struct weir__ctx_lifecycle {
    bool opened;
    bool in_open;
    bool ended;
    bool in_close;
    bool closed;
} weir__ctx_lifecycle;

/* What the diagnostic channel needs of the context. */
typedef struct weir__ctx_diag {
    int level;                   /* resolved weir_diag_level, or OFF */
    int op_index;                /* the node's index in the job event */
    int64_t counters[WEIR__CNT_COUNT_];
    int64_t last_counters[2];    /* in/out at the last throughput sample */
    int64_t max_ts;              /* largest timestamp taken in since that sample */
    /* a join's state (weir_ctx_report_join_state): rows left, rows right,
     * hold-back; written as a join_state event at a sample when it changed */
    bool join;
    bool join_sent;
    int64_t join_state[3];
    int64_t join_sent_state[3];
    /* The window [start, end) whose on-time window_fire event carried its
     * cleanup (weir__ctx_report_window_fire): the operator's cleanup report
     * for it that follows writes nothing. */
    bool folded;
    int64_t folded_start, folded_end;
} weir__ctx_diag;

struct weir_ctx {
    /* First: the inline weir_emit of weir/operator.h reads it. When `next`
     * is set, the main output is chained-only and the cursor, not
     * out.main.count, says how full its buffer is. */
    struct weir__emit_cursor cursor;

    /* What the context is and where it lives. */
    struct weir__subtask *sub;   /* NULL in a harness */
    const weir__node *node;
    weir_job *job;               /* NULL in a harness */
    struct weir__errors *errors; /* the job's or the harness's */
    const struct weir__clock *clock;
    const weir_harness_output *capture; /* harness: watermarks and statuses */
    weir_operator_vtable vt;
    weir_source_vtable svt;
    bool is_source;
    void *arg;
    void *state;
    int subtask;
    int parallelism;
    int batch_hint;
    int64_t interval_ms;
    int64_t wait_until; /* sources: WEIR_SOURCE_WAIT until this time */
    int error;          /* the first failure of this context */

    weir__ctx_input input;
    weir__ctx_outputs out;
    weir__ctx_keyed keyed;
    weir__ctx_timers timers;
    weir__ctx_lifecycle lifecycle;
    weir__ctx_diag diag;
    struct weir__partitions *partitions; /* sources: per-partition event time, or NULL */
};
/* Programs compiled against weir/operator.h cast a weir_ctx to its cursor in
 * their inline weir_emit: the cursor's place and layout are part of the ABI
 * (WEIR_ABI_VERSION, weir/version.h). */
/* Frees a source's per-partition event time (source_partitions.c). */
void weir__partitions_free(weir_ctx *ctx);

_Static_assert(offsetof(struct weir_ctx, cursor) == 0,
               "the inline emit path reads the emit cursor at the start of a weir_ctx");
_Static_assert(sizeof(struct weir__emit_cursor) == 2 * sizeof(void *) + 8,
               "the emit cursor's layout is part of the ABI: bump WEIR_ABI_VERSION");

typedef struct weir__input {
    int nch;
    weir__channel **ch;
    weir__valve valve;
    weir__valve_channel *vch;
    int ended;
} weir__input;

typedef enum weir__phase {
    WEIR__SUB_NEW = 0,
    WEIR__SUB_RUNNING,
    WEIR__SUB_DRAINING, /* END sent, waiting for pending batches to leave */
    WEIR__SUB_FINISHED
} weir__phase;

typedef struct weir__subtask {
    struct cds_wfcq_node inbox_node;
    /* 1 while queued or running. Set by an RMW (a CAS, or notify_data's
     * exchange) by whoever queues the subtask, cleared by run_one's exchange:
     * the clearing exchange and notify_data's pair as the batch hand-off of
     * scheduler.h (acq_rel needed, seq_cst used). A relaxed load is enough
     * where only a hint is wanted (schedule_due, before its CAS). */
    _Atomic int scheduled;
    /* Blocked on output: notify me on credit. run_one's exchange to 1 and
     * notify_credit's exchange to 0 pair as the credit hand-off (acq_rel
     * needed, seq_cst used). */
    _Atomic int want_credit;
    /* The lines above are what other workers write (queueing it, a batch
     * or a credit for it); what its own worker reads at every step starts
     * on a line of its own. */
    alignas(WEIR__CACHELINE) struct weir__subtask *run_next;
    struct weir__worker *worker;
    weir_job *job;
    struct weir__task *task;
    int index;

    weir_ctx **ctxs; /* in chain order: ctxs[0] is the head */
    int nctx;

    int ninputs;
    weir__input in[WEIR__MAX_INPUTS];
    weir__combiner comb;
    /* Round-robin cursors, only ever incremented: unsigned so that a long run
     * wraps them instead of overflowing (and indexing with a negative). */
    unsigned rr_input, rr_channel;

    weir__channel **outs; /* every channel this subtask produces into */
    int nouts;
    bool out_blocked;     /* some channel in outs has pending batches */
    int held;             /* contexts held (suspended firing, inbox): no input */
    bool ending;          /* on_end done or queued: END leaves once none is held */
    unsigned long futile_steps; /* steps that found the output still full */
    unsigned long steps;        /* steps run (tests count the work of a run) */
    weir__align_member align; /* sources: watermark alignment (align.h) */
    /* Virtual clock, sources (scheduler.c, weir__sched_virtual_work): the
     * records emitted counted so far, those not yet turned into time, and
     * the time they were counted since. */
    int64_t work_counted, work_credit, work_since;

    weir__phase phase;
    bool source_done;
    int64_t flush_deadline; /* INT64_MAX: none */
    int64_t deadline;       /* earliest processing-time need, INT64_MAX: none */
    int64_t blocked_since_ns;
    int64_t blocked_ns;     /* time blocked in the current diag interval */
    int64_t next_sample;    /* next throughput sample time */
    int64_t last_sample;    /* time of the previous sample */
    bool ran_since_sample;

    /* Checkpoints (barrier.c). */
    int plan_index;         /* in plan->subs */
    int64_t barrier_last;   /* the highest barrier seen or injected */
    int64_t aligning;       /* the barrier being aligned; 0: none */
    int barriers_in;        /* open channels that delivered it */
    int64_t barrier_due;    /* aligned: snapshot and forward when nothing is held */
    int64_t align_start_ns;
    int64_t align_ns;       /* how long the due barrier held input */
    int64_t held_bytes;     /* batches waiting in held channels when it was aligned */
    int64_t notified;       /* the highest completed checkpoint the operators were told */
    _Atomic int64_t notified_seen; /* the same, for the coordinator's stop-with-savepoint */
    bool final_acked;
} weir__subtask;

typedef struct weir__task {
    int id;
    int *nodes;  /* node ids, chain order (a tree in pre-order) */
    int nnodes;
    int parallelism;
    weir__subtask **subs;
} weir__task;

typedef struct weir__plan {
    weir__task *tasks;
    int ntasks;
    weir__channel **channels;
    int nchannels;
    weir__subtask **subs;
    int nsubs;
    weir_ctx ***node_ctx; /* [node id][subtask] */
    struct weir__align_group **aligns; /* watermark alignment groups (align.h) */
    int naligns;
} weir__plan;

/* ---- context.c: the operator API's runtime side ---- */

int weir__ctx_init(weir_ctx *ctx, weir_job *job, struct weir__subtask *sub, const weir__node *node,
                   int subtask);
void weir__ctx_free(weir_ctx *ctx);
/* Delivers a record to an operator (the head of a subtask, or a chained one). */
int weir__ctx_record(weir_ctx *ctx, int input, const void *elem, int64_t ts);
/* The operator's input watermark advanced: fire event timers, then
 * on_watermark (default: forward). */
int weir__ctx_advance_watermark(weir_ctx *ctx, int64_t wm);
int weir__ctx_status(weir_ctx *ctx, bool idle);
/* Fires the processing-time timers due at `now`. */
int weir__ctx_fire_processing(weir_ctx *ctx, int64_t now);
/* Earliest processing-time timer (INT64_MAX: none). */
int64_t weir__ctx_next_processing(const weir_ctx *ctx);
int weir__ctx_open(weir_ctx *ctx);
/* on_end of ctx, then of everything chained to it. */
int weir__ctx_end_chain(weir_ctx *ctx);
void weir__ctx_close(weir_ctx *ctx);
/* The unread records of a channel's batch into the head operator of a
 * subtask: all at once to its on_batch (weir__ctx_takes_batches), else one
 * by one until the subtask's output blocks (then 1, and the batch's control
 * message waits too). *taken says how many it took; < 0 is an error. */
int weir__ctx_take(weir_ctx *ctx, int input, const weir_batch *unread, uint32_t *taken);
/* Delivers the records ctx's outputs hold for chained operators, and
 * makes the count of the batch the emit cursor writes into true (below). */
int weir__ctx_flush_chained(weir_ctx *ctx);
/* The emit cursor may write straight into a one-channel main output's open
 * batch, whose count is then stale: this makes it true (and the cursor
 * off, until the next emit). Before anything outside the operator's calls
 * reads or sends the batch. */
void weir__ctx_sync_channel(weir_ctx *ctx);
/* A harness's one context: how tests reach the runtime behind an operator
 * (its keyed state for a snapshot). */
weir_ctx *weir__harness_ctx(weir_harness *h);

/* Sets up an output's chain buffer (planner, harness), then the context's
 * emit cursor once all of them are ready. */
int weir__output_prepare(weir__output *o, uint32_t batch_capacity);
void weir__ctx_ready(weir_ctx *ctx);
/* Sends a control message on every channel of every output of ctx. */
int weir__ctx_flush_control(weir_ctx *ctx, weir__ctrl ctrl, int64_t value);

/* The current key's hash, computed on first use after the key changed. */
static inline uint64_t weir__ctx_key_hash(weir_ctx *ctx)
{
    weir__ctx_keyed *k = &ctx->keyed;
    if (!k->key_hashed) {
        k->key_hash = weir__hash_key(k->key_buf->key, k->key_size);
        k->key_hashed = true;
    }
    return k->key_hash;
}

/* Continues a held context: its suspended firing, then its inbox, until it
 * is free or the subtask's output blocks again. */
int weir__ctx_resume(weir_ctx *ctx);

/* Whether a run of records on `input` goes to the operator's on_batch at once
 * (it has one and the input is not keyed: keyed records need their key set
 * one by one), else record by record. */
static inline bool weir__ctx_takes_batches(const weir_ctx *ctx, int input)
{
    return ctx->vt.on_batch && !ctx->keyed.in_key[input];
}

/* Applies a weir__wm_actions from a valve/combiner to the head of a subtask. */
int weir__deliver_actions(weir_ctx *head, const weir__wm_actions *a);

#endif
