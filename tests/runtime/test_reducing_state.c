/* test_reducing_state.c — reducing and aggregating state (weir/state.h,
 * Flink's ReducingState and AggregatingState) as a keyed operator sees it,
 * through the harness: adds folded per (key, namespace) against a model,
 * gets, clears; the accumulators snapshotted and restored into one, two and
 * three operators by key group; a time to live on the state's time (add is
 * a write, get a read); refusals. */
#include <criterion/criterion.h>
#include <msgpack.h>

#include "key_group.h"
#include "keyed_snapshot.h"
#include "task.h"
#include "util.h"
#include "support/weir_testutil.h"

#define MAXP 128u
#define KEYS 8
#define NSS 3

enum { ADD = 1, CLEAR, GET };

typedef struct cmd {
    char key[8];
    int32_t op, ns;
    int64_t value;
} cmd;

/* What the operator says after each command: both states' results. */
typedef struct said {
    int64_t max, has_max;
    int64_t avg_num, avg_den, has_avg;
} said;

typedef struct avg_acc {
    int64_t sum, n, created;
} avg_acc;

typedef struct avg_out {
    int64_t sum, n;
} avg_out;

static void max_reduce(void *acc, const void *value, void *arg)
{
    (void)arg;
    int64_t *a = acc, v;
    memcpy(&v, value, 8);
    if (v > *a)
        *a = v;
}

static void avg_create(void *acc, void *arg)
{
    (void)arg;
    ((avg_acc *)acc)->created++;
}

static void avg_add(void *acc, const void *value, void *arg)
{
    (void)arg;
    avg_acc *a = acc;
    int64_t v;
    memcpy(&v, value, 8);
    a->sum += v;
    a->n++;
}

static void avg_result(const void *acc, void *out, void *arg)
{
    (void)arg;
    const avg_acc *a = acc;
    avg_out o = {a->sum, a->n * a->created}; /* created once: n */
    memcpy(out, &o, sizeof o);
}

typedef struct ids {
    int max, avg;
} ids;

static int rs_open(weir_ctx *ctx)
{
    ids *s = calloc(1, sizeof *s);
    if (!s)
        return WEIR_ENOMEM;
    weir_ctx_set_state(ctx, s);
    int r = weir_state_declare_reducing(ctx, sizeof(int64_t), max_reduce, NULL, &s->max);
    weir_state_aggregate agg = {.acc_size = sizeof(avg_acc), .in_size = 8,
                                .out_size = sizeof(avg_out), .create = avg_create,
                                .add = avg_add, .result = avg_result};
    return r ? r : weir_state_declare_aggregating(ctx, &agg, &s->avg);
}

static void rs_close(weir_ctx *ctx)
{
    free(weir_ctx_state(ctx));
}

static int rs_record(weir_ctx *ctx, int input, const void *elem, int64_t ts)
{
    (void)input;
    cmd c;
    memcpy(&c, elem, sizeof c);
    const ids *s = weir_ctx_state(ctx);
    if (c.op == ADD) {
        int r = weir_state_add(ctx, s->max, c.ns, &c.value);
        if (r == 0)
            r = weir_state_add(ctx, s->avg, c.ns, &c.value);
        if (r)
            return r;
    } else if (c.op == CLEAR) {
        weir_state_clear(ctx, s->max, c.ns);
        weir_state_clear(ctx, s->avg, c.ns);
    }
    said out = {0};
    out.has_max = weir_state_get(ctx, s->max, c.ns, &out.max);
    avg_out a;
    out.has_avg = weir_state_get(ctx, s->avg, c.ns, &a);
    if (out.has_avg) {
        out.avg_num = a.sum;
        out.avg_den = a.n;
    }
    return weir_emit(ctx, &out, ts);
}

static const weir_operator_vtable rs_vtable = {
    .version = WEIR_OPERATOR_VTABLE_V1,
    .open = rs_open,
    .on_record = rs_record,
    .close = rs_close,
};

static void key_of(const void *elem, void *key, void *arg)
{
    (void)arg;
    memcpy(key, ((const cmd *)elem)->key, 8);
}

static const weir_key_spec key_spec = {.key_size = 8, .extract = key_of};

static said last;

static void on_record(int tag, const void *elem, int64_t ts, void *arg)
{
    (void)tag, (void)ts, (void)arg;
    memcpy(&last, elem, sizeof last);
}

static weir_harness *open_op(const weir_operator_vtable *vt)
{
    weir_process_spec op = {.vtable = vt, .out_size = sizeof(said)};
    weir_harness_config cfg = {.op = &op,
                               .in_size = {sizeof(cmd)},
                               .key = {&key_spec},
                               .output = {.on_record = on_record}};
    weir_harness *h = NULL;
    char err[256];
    cr_assert_eq(weir_harness_create(&cfg, &h, err, sizeof err), 0, "%s", err);
    return h;
}

static struct {
    bool present;
    int64_t max, sum, n;
} model[KEYS][NSS];

static cmd command(uint64_t *seed, int *k)
{
    *seed = tu_mix(*seed);
    cmd c = {0};
    *k = (int)(*seed % KEYS);
    snprintf(c.key, sizeof c.key, "k%d", *k);
    c.ns = (int32_t)((*seed >> 8) % NSS);
    uint64_t what = (*seed >> 16) % 10;
    c.op = what < 7 ? ADD : what < 8 ? CLEAR : GET;
    c.value = (int64_t)((*seed >> 24) % 2001) - 1000;
    return c;
}

static void feed(weir_harness **hs, uint32_t n, const cmd *c, int k)
{
    uint32_t sub = n > 1 ? weir__key_subtask(weir__hash_bytes(c->key, 8), MAXP, n) : 0;
    cr_assert_eq(weir_harness_record(hs[sub], 0, 0, c, 0), 0, "%s",
                 weir_harness_last_error(hs[sub]));
    if (c->op == ADD) {
        if (!model[k][c->ns].present || c->value > model[k][c->ns].max)
            model[k][c->ns].max = c->value;
        model[k][c->ns].present = true;
        model[k][c->ns].sum += c->value;
        model[k][c->ns].n++;
    } else if (c->op == CLEAR) {
        model[k][c->ns].present = false;
        model[k][c->ns].sum = model[k][c->ns].n = 0;
    }
    cr_assert_eq(last.has_max, model[k][c->ns].present);
    cr_assert_eq(last.has_avg, model[k][c->ns].present);
    if (model[k][c->ns].present) {
        cr_assert_eq(last.max, model[k][c->ns].max);
        cr_assert_eq(last.avg_num, model[k][c->ns].sum);
        cr_assert_eq(last.avg_den, model[k][c->ns].n);
    }
}

static void run(uint32_t n_sub)
{
    memset(model, 0, sizeof model);
    uint64_t seed = 99;
    weir_harness *first = open_op(&rs_vtable);
    for (int i = 0; i < 3000; i++) {
        int k;
        cmd c = command(&seed, &k);
        feed(&first, 1, &c, k);
    }
    msgpack_sbuffer sb;
    msgpack_sbuffer_init(&sb);
    msgpack_packer pk;
    msgpack_packer_init(&pk, &sb, msgpack_sbuffer_write);
    cr_assert_eq(weir__keyed_snapshot(weir__harness_ctx(first), MAXP, &pk), 0);
    weir_harness_destroy(first);
    msgpack_unpacked up;
    msgpack_unpacked_init(&up);
    cr_assert_eq(msgpack_unpack_next(&up, sb.data, sb.size, NULL), MSGPACK_UNPACK_SUCCESS);
    weir_harness *hs[3];
    for (uint32_t i = 0; i < n_sub; i++) {
        hs[i] = open_op(&rs_vtable);
        uint32_t lo, hi;
        weir__key_group_range(MAXP, n_sub, i, &lo, &hi);
        char err[256];
        cr_assert_eq(weir__keyed_restore(weir__harness_ctx(hs[i]), &up.data, MAXP, lo, hi, err,
                                         sizeof err),
                     0, "%s", err);
    }
    for (int i = 0; i < 3000; i++) {
        int k;
        cmd c = command(&seed, &k);
        feed(hs, n_sub, &c, k);
    }
    for (uint32_t i = 0; i < n_sub; i++)
        weir_harness_destroy(hs[i]);
    msgpack_unpacked_destroy(&up);
    msgpack_sbuffer_destroy(&sb);
}

Test(reducing_state, adds_match_a_model_across_a_restore)
{
    run(1);
}

Test(reducing_state, a_restore_rescaled_to_two_and_three)
{
    run(2);
    run(3);
}

/* A time to live of 100 ms of processing time on both states. */
static int ttl_open(weir_ctx *ctx)
{
    int r = rs_open(ctx);
    const ids *s = weir_ctx_state(ctx);
    weir_state_ttl ttl = {.ttl_ms = 100};
    if (r == 0)
        r = weir_state_set_ttl(ctx, s->max, &ttl);
    return r ? r : weir_state_set_ttl(ctx, s->avg, &ttl);
}

static const weir_operator_vtable ttl_vtable = {
    .version = WEIR_OPERATOR_VTABLE_V1,
    .open = ttl_open,
    .on_record = rs_record,
    .close = rs_close,
};

Test(reducing_state, expires_after_its_time_to_live_since_the_last_add)
{
    weir_harness *h = open_op(&ttl_vtable);
    cmd c = {.key = "a", .op = ADD, .value = 5};
    cr_assert_eq(weir_harness_record(h, 0, 0, &c, 0), 0);
    cr_assert_eq(weir_harness_advance(h, 60), 0);
    c.value = 3;
    cr_assert_eq(weir_harness_record(h, 0, 0, &c, 0), 0); /* a write: 100 ms from 60 */
    cr_assert_eq(last.max, 5);
    cr_assert_eq(weir_harness_advance(h, 150), 0);
    cmd g = {.key = "a", .op = GET};
    cr_assert_eq(weir_harness_record(h, 0, 0, &g, 0), 0);
    cr_assert(last.has_max && last.avg_den == 2);
    cr_assert_eq(weir_harness_advance(h, 161), 0); /* 101 ms after the last add */
    cr_assert_eq(weir_harness_record(h, 0, 0, &g, 0), 0);
    cr_assert(!last.has_max && !last.has_avg);
    c.value = -7; /* a new accumulator, not folded into the expired one */
    cr_assert_eq(weir_harness_record(h, 0, 0, &c, 0), 0);
    cr_assert_eq(last.max, -7);
    cr_assert_eq(last.avg_num, -7);
    cr_assert_eq(last.avg_den, 1);
    weir_harness_destroy(h);
}

static int plain_open(weir_ctx *ctx)
{
    int id;
    return weir_state_declare(ctx, WEIR_STATE_VALUE, 8, &id);
}

static int plain_record(weir_ctx *ctx, int input, const void *elem, int64_t ts)
{
    (void)input, (void)ts;
    return weir_state_add(ctx, 0, 0, elem);
}

Test(reducing_state, add_on_a_plain_value_state_is_refused)
{
    weir_operator_vtable vt = {.version = WEIR_OPERATOR_VTABLE_V1, .open = plain_open,
                               .on_record = plain_record};
    weir_harness *h = open_op(&vt);
    cmd c = {.key = "a", .op = ADD};
    cr_assert_eq(weir_harness_record(h, 0, 0, &c, 0), WEIR_EINVAL);
    cr_assert(strstr(weir_harness_last_error(h),
                     "weir_state_add: state 0 is not a reducing or aggregating state"),
              "%s", weir_harness_last_error(h));
    weir_harness_destroy(h);
}
