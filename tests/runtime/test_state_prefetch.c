/* test_state_prefetch.c — weir_state_prefetch changes when a keyed record's
 * state is loaded, never what the operator sees.
 *
 * With it, the runtime extracts and hashes a record's key a dozen records
 * before delivering it (runtime/context.c, take_ahead) and hands the
 * operator that key and hash. The tests run one keyed operator — a value
 * (count, sum) and a list (the key's last amounts) per key, one output a
 * record — with the prefetch on its value state, on its list state, and off,
 * and require the same output sequence at parallelism 1 (the same multiset
 * at 2): with 8-byte keys and 12-byte ones (the general path), with tables
 * that grow while a batch is in flight (20 000 keys), with lists long enough
 * for a buffer of their own, with batches of 3 and an output that blocks
 * after every few records (the channel path that stops part-way through a
 * batch and resumes), and with the records that reach a keyed operator's
 * broadcast input (no key). Misuse is refused with the call's name.
 */
#include <criterion/criterion.h>
#include <string.h>

#include "support/weir_testutil.h"
#include "weir/broadcast.h"
#include "weir/state.h"

enum { NKEYS = 20000, KEEP = 6 };

/* What prefetch the operator asks for. */
enum ahead { AHEAD_OFF, AHEAD_VALUE, AHEAD_LIST };

typedef struct event {
    uint64_t key;
    uint32_t salt; /* the 12-byte key's last bytes */
    uint32_t amount;
} event;

typedef struct out {
    uint64_t key;
    uint64_t count, sum;
    uint64_t len, recent; /* the list: its length, its elements folded */
} out;

typedef struct ledger {
    enum ahead ahead;
    int value, list;
} ledger;

static void key8(const void *elem, void *key, void *arg)
{
    (void)arg;
    memcpy(key, elem, 8);
}

static void key12(const void *elem, void *key, void *arg)
{
    (void)arg;
    memcpy(key, elem, 12);
}

static int ledger_open(weir_ctx *ctx)
{
    const enum ahead *how = weir_ctx_arg(ctx);
    ledger *l = calloc(1, sizeof *l);
    if (!l)
        return WEIR_ENOMEM;
    weir_ctx_set_state(ctx, l);
    l->ahead = *how;
    int r = weir_state_declare(ctx, WEIR_STATE_VALUE, 2 * sizeof(uint64_t), &l->value);
    if (!r)
        r = weir_state_declare(ctx, WEIR_STATE_LIST, sizeof(uint64_t), &l->list);
    if (!r && l->ahead != AHEAD_OFF)
        r = weir_state_prefetch(ctx, l->ahead == AHEAD_VALUE ? l->value : l->list);
    return r;
}

static int ledger_record(weir_ctx *ctx, int input, const void *elem, int64_t ts)
{
    ledger *l = weir_ctx_state(ctx);
    event e;
    memcpy(&e, elem, sizeof e);
    (void)input;
    const uint64_t *key = weir_ctx_key(ctx);
    if (!key || *key != e.key)
        return weir_ctx_fail(ctx, WEIR_EINTERNAL, "the current key is not the record's");
    uint64_t *acc = weir_state_value(ctx, l->value, 0, true);
    if (!acc)
        return weir_ctx_state_error(ctx);
    acc[0]++;
    acc[1] += e.amount;
    out o = {.key = e.key, .count = acc[0], .sum = acc[1]};
    uint64_t amount = e.amount;
    int r = weir_state_list_add(ctx, l->list, 0, &amount);
    if (r < 0)
        return r;
    size_t n;
    const uint64_t *recent = weir_state_list_get(ctx, l->list, 0, &n);
    if (n > KEEP) { /* the last KEEP: the list shrinks back */
        r = weir_state_list_set(ctx, l->list, 0, recent + (n - KEEP), KEEP);
        if (r < 0)
            return r;
        recent = weir_state_list_get(ctx, l->list, 0, &n);
    }
    o.len = n;
    for (size_t i = 0; i < n; i++)
        o.recent = tu_mix(o.recent ^ recent[i]);
    return weir_emit(ctx, &o, ts);
}

static void ledger_close(weir_ctx *ctx)
{
    free(weir_ctx_state(ctx));
}

static const weir_operator_vtable ledger_vtable = {
    .version = WEIR_OPERATOR_VTABLE_V1,
    .open = ledger_open,
    .on_record = ledger_record,
    .close = ledger_close,
};

/* The same as a broadcast process: the broadcast records, with no current
 * key, each give an output of their own. */
static int ledger_keyed(weir_ctx *ctx, const void *elem, int64_t ts)
{
    return ledger_record(ctx, 0, elem, ts);
}

static int ledger_broadcast(weir_ctx *ctx, const void *elem, int64_t ts)
{
    if (weir_ctx_key(ctx))
        return weir_ctx_fail(ctx, WEIR_EINTERNAL, "a broadcast record with a current key");
    event e;
    memcpy(&e, elem, sizeof e);
    out o = {.key = UINT64_MAX, .count = e.amount};
    return weir_emit(ctx, &o, ts);
}

static const weir_broadcast_vtable ledger_broadcast_vtable = {
    .version = WEIR_OPERATOR_VTABLE_V1,
    .open = ledger_open,
    .on_record = ledger_keyed,
    .on_broadcast = ledger_broadcast,
    .close = ledger_close,
};

static event *events(size_t n, int nkeys)
{
    event *in = malloc(n * sizeof *in);
    cr_assert_not_null(in);
    for (size_t i = 0; i < n; i++) {
        /* runs of one key now and then, most records a key of their own */
        uint64_t k = tu_mix(i % 5 == 4 ? i - 1 : i) % (uint64_t)nkeys;
        in[i] = (event){.key = k, .salt = (uint32_t)(k * 7), .amount = (uint32_t)(tu_mix(i) % 1000)};
    }
    return in;
}

typedef struct run_config {
    enum ahead ahead;
    int key_size;
    int parallelism;
    uint32_t batch; /* 0: the engine's */
    bool broadcast; /* a second, broadcast input into the operator */
    bool unchained; /* a channel between the operator and its sink */
} run_config;

/* The operator's outputs, in collect order (sorted with p > 1). */
static uint64_t *run(const event *in, size_t n, const run_config *rc, size_t *nout)
{
    weir_job *job = tu_job(&(weir_job_config){.workers = 2,
                                              .parallelism = rc->parallelism,
                                              .batch_capacity = rc->batch,
                                              .disable_chaining = rc->unchained});
    /* one source subtask: each key's records in one order, whatever p */
    weir_stream *s = weir_source_array(job, in, n, sizeof(event), NULL);
    weir_stream_set_parallelism(s, 1);
    weir_key_spec key = {.key_size = (size_t)rc->key_size,
                         .extract = rc->key_size == 8 ? key8 : key12};
    enum ahead how = rc->ahead;
    weir_process_spec spec = {.name = "ledger", .vtable = &ledger_vtable,
                              .out_size = sizeof(out), .arg = &how};
    weir_stream *keyed = weir_stream_key_by(s, &key), *outs;
    if (rc->broadcast) {
        weir_stream *side = weir_source_array(job, in, n / 10, sizeof(event), NULL);
        weir_stream_set_parallelism(side, 1);
        weir_broadcast_state_desc desc = {.key_size = 8, .value_size = 8};
        weir_broadcast_spec bspec = {.name = "ledger", .vtable = &ledger_broadcast_vtable,
                                     .arg = &how, .out_size = sizeof(out), .states = &desc,
                                     .nstates = 1};
        outs = weir_stream_broadcast_process(keyed, weir_stream_broadcast(side), &bspec);
    } else {
        outs = weir_stream_process(keyed, &spec);
    }
    weir_collect *c;
    weir_sink_collect(outs, &c);
    tu_run_ok(job);
    *nout = weir_collect_count(c);
    uint64_t *fp = malloc((*nout ? *nout : 1) * sizeof *fp);
    for (size_t i = 0; i < *nout; i++) {
        out o;
        memcpy(&o, weir_collect_elem(c, i), sizeof o);
        fp[i] = tu_mix(o.key ^ tu_mix(o.count ^ tu_mix(o.sum ^ tu_mix(o.len ^ tu_mix(o.recent)))));
    }
    weir_job_destroy(job);
    if (rc->parallelism > 1 || rc->broadcast)
        tu_sort_u64(fp, *nout);
    return fp;
}

/* The same outputs with the prefetch on the value, on the list, and off. */
static void same_either_way(run_config rc, size_t n, int nkeys)
{
    event *in = events(n, nkeys);
    rc.ahead = AHEAD_OFF;
    size_t n_off;
    uint64_t *off = run(in, n, &rc, &n_off);
    size_t expected = rc.broadcast ? n + n / 10 * (size_t)rc.parallelism : n;
    cr_assert_eq(n_off, expected, "%zu outputs without the prefetch, expected %zu", n_off,
                 expected);
    for (enum ahead a = AHEAD_VALUE; a <= AHEAD_LIST; a++) {
        rc.ahead = a;
        size_t n_on;
        uint64_t *on = run(in, n, &rc, &n_on);
        cr_assert_eq(n_on, n_off, "%zu outputs with the prefetch on the %s, %zu without", n_on,
                     a == AHEAD_VALUE ? "value" : "list", n_off);
        for (size_t i = 0; i < n_off; i++)
            cr_assert_eq(on[i], off[i], "output %zu differs with the prefetch on the %s", i,
                         a == AHEAD_VALUE ? "value" : "list");
        free(on);
    }
    free(off);
    free(in);
}

enum { N = WEIR_TEST_SANITIZED ? 40000 : 200000 };

Test(state_prefetch, eight_byte_keys_tables_growing_mid_batch, .timeout = 120)
{
    same_either_way((run_config){.key_size = 8, .parallelism = 1}, N, NKEYS);
}

Test(state_prefetch, twelve_byte_keys_the_general_path, .timeout = 120)
{
    same_either_way((run_config){.key_size = 12, .parallelism = 1}, N, NKEYS);
}

Test(state_prefetch, few_keys_long_lists_in_buffers, .timeout = 120)
{
    same_either_way((run_config){.key_size = 8, .parallelism = 1}, N / 4, 7);
}

Test(state_prefetch, batches_of_three_and_a_blocking_output, .timeout = 120)
{
    same_either_way(
        (run_config){.key_size = 8, .parallelism = 1, .batch = 3, .unchained = true}, N / 4, 500);
}

Test(state_prefetch, parallelism_two, .timeout = 120)
{
    same_either_way((run_config){.key_size = 8, .parallelism = 2}, N, NKEYS);
}

Test(state_prefetch, a_broadcast_input_has_no_key, .timeout = 120)
{
    same_either_way((run_config){.key_size = 8, .parallelism = 2, .broadcast = true}, N / 4, 500);
}

/* ---- misuse ---------------------------------------------------------------- */

enum misuse { MAP_STATE, UNKNOWN_ID, NOT_IN_OPEN, NOT_KEYED };

static int misuse_open(weir_ctx *ctx)
{
    const enum misuse *m = weir_ctx_arg(ctx);
    int id = 0;
    if (*m == NOT_KEYED)
        return weir_state_prefetch(ctx, 0);
    int r = *m == MAP_STATE ? weir_state_declare_map(ctx, 8, 8, &id)
                            : weir_state_declare(ctx, WEIR_STATE_VALUE, 8, &id);
    if (r < 0)
        return r;
    return *m == NOT_IN_OPEN ? 0 : weir_state_prefetch(ctx, *m == UNKNOWN_ID ? id + 1 : id);
}

static int misuse_record(weir_ctx *ctx, int input, const void *elem, int64_t ts)
{
    (void)input;
    (void)elem;
    (void)ts;
    return weir_state_prefetch(ctx, 0);
}

static const weir_operator_vtable misuse_vtable = {
    .version = WEIR_OPERATOR_VTABLE_V1,
    .open = misuse_open,
    .on_record = misuse_record,
};

static void refused(enum misuse m, int code, const char *says)
{
    static const uint64_t in[] = {1, 2, 3};
    weir_job *job = tu_job(&(weir_job_config){.workers = 1, .parallelism = 1});
    weir_stream *s = weir_source_array(job, in, 3, 8, NULL);
    weir_key_spec key = {.key_size = 8, .extract = key8};
    if (m != NOT_KEYED)
        s = weir_stream_key_by(s, &key);
    weir_process_spec spec = {.name = "misuse", .vtable = &misuse_vtable, .out_size = 8, .arg = &m};
    weir_sink_discard(weir_stream_process(s, &spec));
    cr_assert_eq(weir_job_run(job), code, "weir_job_run: %s", weir_job_error(job));
    cr_assert(strstr(weir_job_error(job), says), "the error says: %s", weir_job_error(job));
    weir_job_destroy(job);
}

Test(state_prefetch, misuse_is_refused_with_the_calls_name)
{
    refused(MAP_STATE, WEIR_EINVAL, "weir_state_prefetch: no value or list state with id 0");
    refused(UNKNOWN_ID, WEIR_EINVAL, "weir_state_prefetch: no value or list state with id 1");
    refused(NOT_IN_OPEN, WEIR_ESTATE, "weir_state_prefetch: only in open()");
    refused(NOT_KEYED, WEIR_ENOKEY, "weir_state_prefetch: the operator's input is not keyed");
}
