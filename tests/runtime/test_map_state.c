/* test_map_state.c — map state (weir/state.h, Flink's MapState) as a keyed
 * operator sees it, through the harness: puts, gets, removes, clears and
 * iteration (removing entries while iterating) checked after every command
 * against a model kept by the test; the same after a snapshot restored into
 * one, two and three operators by key group (checkpoint/keyed_snapshot.h);
 * sizes back to nothing once every map is cleared; declaration errors. */
#include <criterion/criterion.h>
#include <msgpack.h>

#include "keyed_snapshot.h"
#include "task.h"
#include "support/weir_testutil.h"

#define MAXP 128u
#define KEYS 10
#define NSS 3
#define MKEYS 16

enum op { PUT = 1, REMOVE, INC, CLEAR, ITER_DROP_ODD, CHECK };

typedef struct cmd {
    char key[8];
    int32_t op;
    int32_t ns;
    int64_t mkey, value;
} cmd;

/* What the operator says after each command: its map of (key, ns). */
typedef struct said {
    char key[8];
    int64_t count, sum, iterated;
} said;

typedef struct ms_state {
    int id;
} ms_state;

static int ms_open(weir_ctx *ctx)
{
    ms_state *s = calloc(1, sizeof *s);
    if (!s)
        return WEIR_ENOMEM;
    weir_ctx_set_state(ctx, s);
    return weir_state_declare_map(ctx, sizeof(int64_t), sizeof(int64_t), &s->id);
}

static void ms_close(weir_ctx *ctx)
{
    free(weir_ctx_state(ctx));
}

static int ms_record(weir_ctx *ctx, int input, const void *elem, int64_t ts)
{
    (void)input;
    cmd c;
    memcpy(&c, elem, sizeof c);
    int id = ((ms_state *)weir_ctx_state(ctx))->id;
    switch (c.op) {
    case PUT: {
        int r = weir_state_map_put(ctx, id, c.ns, &c.mkey, &c.value);
        if (r)
            return r;
        break;
    }
    case REMOVE: weir_state_map_remove(ctx, id, c.ns, &c.mkey); break;
    case INC: {
        int64_t *v = weir_state_map_get(ctx, id, c.ns, &c.mkey, true);
        if (!v)
            return weir_ctx_state_error(ctx);
        *v += c.value;
        break;
    }
    case CLEAR: weir_state_clear(ctx, id, c.ns); break;
    case ITER_DROP_ODD: {
        weir_state_map_iter it;
        weir_state_map_begin(ctx, id, c.ns, &it);
        const void *k;
        void *v;
        while (weir_state_map_next(&it, &k, &v)) {
            int64_t mk, val;
            memcpy(&mk, k, 8);
            memcpy(&val, v, 8);
            if (val % 2 != 0)
                cr_assert_eq(weir_state_map_remove(ctx, id, c.ns, &mk), 1);
        }
        break;
    }
    default: break;
    }
    said out = {0};
    memcpy(out.key, c.key, 8);
    out.count = (int64_t)weir_state_map_count(ctx, id, c.ns);
    weir_state_map_iter it;
    weir_state_map_begin(ctx, id, c.ns, &it);
    const void *k;
    void *v;
    while (weir_state_map_next(&it, &k, &v)) {
        int64_t mk, val;
        memcpy(&mk, k, 8);
        memcpy(&val, v, 8);
        cr_assert(weir_state_map_contains(ctx, id, c.ns, &mk));
        cr_assert_eq(*(int64_t *)weir_state_map_get(ctx, id, c.ns, &mk, false), val);
        out.sum += mk * 1000003 + val;
        out.iterated++;
    }
    return weir_emit(ctx, &out, ts);
}

static const weir_operator_vtable ms_vtable = {
    .version = WEIR_OPERATOR_VTABLE_V1,
    .open = ms_open,
    .close = ms_close,
    .on_record = ms_record,
};

static void key_of(const void *elem, void *key, void *arg)
{
    (void)arg;
    memcpy(key, elem, 8);
}

static const weir_key_spec key_spec = {.key_size = 8, .extract = key_of};

static said last;
static int nsaid;

static void on_record(int tag, const void *elem, int64_t ts, void *arg)
{
    (void)tag, (void)ts, (void)arg;
    memcpy(&last, elem, sizeof last);
    nsaid++;
}

static weir_harness *open_op(void)
{
    weir_process_spec op = {.vtable = &ms_vtable, .out_size = sizeof(said)};
    weir_harness_config cfg = {.op = &op,
                               .in_size = {sizeof(cmd)},
                               .key = {&key_spec},
                               .output = {.on_record = on_record}};
    weir_harness *h = NULL;
    char err[256];
    cr_assert_eq(weir_harness_create(&cfg, &h, err, sizeof err), 0, "%s", err);
    return h;
}

/* The model: a value or absent per (key, ns, map key). */
static struct {
    bool present;
    int64_t value;
} model[KEYS][NSS][MKEYS];

static void model_apply(const cmd *c, int k)
{
    switch (c->op) {
    case PUT:
        model[k][c->ns][c->mkey].present = true;
        model[k][c->ns][c->mkey].value = c->value;
        break;
    case REMOVE: model[k][c->ns][c->mkey].present = false; break;
    case INC:
        if (!model[k][c->ns][c->mkey].present)
            model[k][c->ns][c->mkey].value = 0;
        model[k][c->ns][c->mkey].present = true;
        model[k][c->ns][c->mkey].value += c->value;
        break;
    case CLEAR:
        for (int m = 0; m < MKEYS; m++)
            model[k][c->ns][m].present = false;
        break;
    case ITER_DROP_ODD:
        for (int m = 0; m < MKEYS; m++)
            if (model[k][c->ns][m].present && model[k][c->ns][m].value % 2 != 0)
                model[k][c->ns][m].present = false;
        break;
    default: break;
    }
}

static cmd command(uint64_t *seed, int *k)
{
    uint64_t x = tu_mix((*seed)++);
    cmd c = {0};
    *k = (int)(x % KEYS);
    snprintf(c.key, sizeof c.key, "k%d", *k);
    int r = (int)((x >> 8) % 100);
    c.op = r < 45 ? PUT : r < 60 ? INC : r < 80 ? REMOVE : r < 84 ? CLEAR : r < 90 ? ITER_DROP_ODD
                                                                                  : CHECK;
    c.ns = (int32_t)((x >> 16) % NSS);
    c.mkey = (int64_t)((x >> 24) % MKEYS);
    c.value = (int64_t)((x >> 32) % 1000);
    return c;
}

static uint32_t group_of(const char key[8])
{
    return weir__key_group(weir__hash_bytes(key, 8), MAXP);
}

/* Feeds one command to the harness that owns its key, and checks what the
 * operator said against the model. */
static void feed(weir_harness **hs, uint32_t n_sub, const cmd *c, int k)
{
    uint32_t sub = n_sub > 1 ? weir__key_group_subtask(MAXP, n_sub, group_of(c->key)) : 0;
    int before = nsaid;
    cr_assert_eq(weir_harness_record(hs[sub], 0, 0, c, 0), 0, "%s",
                 weir_harness_last_error(hs[sub]));
    cr_assert_eq(nsaid, before + 1);
    model_apply(c, k);
    int64_t count = 0, sum = 0;
    for (int m = 0; m < MKEYS; m++) {
        if (model[k][c->ns][m].present) {
            count++;
            sum += m * 1000003 + model[k][c->ns][m].value;
        }
    }
    cr_assert_eq(last.count, count, "op %d on %s ns %d", c->op, c->key, c->ns);
    cr_assert_eq(last.iterated, count);
    cr_assert_eq(last.sum, sum, "op %d on %s ns %d", c->op, c->key, c->ns);
}

static void run(uint32_t n_sub)
{
    memset(model, 0, sizeof model);
    uint64_t seed = 12345;
    weir_harness *first = open_op();
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
        hs[i] = open_op();
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
    /* every map cleared: nothing left */
    for (int k = 0; k < KEYS; k++) {
        for (int ns = 0; ns < NSS; ns++) {
            cmd c = {.op = CLEAR, .ns = ns};
            snprintf(c.key, sizeof c.key, "k%d", k);
            feed(hs, n_sub, &c, k);
        }
    }
    for (uint32_t i = 0; i < n_sub; i++) {
        weir_ctx *ctx = weir__harness_ctx(hs[i]);
        cr_assert_eq(weir_state_size(ctx, 0), 0u);
        cr_assert_eq(ctx->keyed.states[0].heads.count, 0u);
        weir_harness_destroy(hs[i]);
    }
    msgpack_unpacked_destroy(&up);
    msgpack_sbuffer_destroy(&sb);
}

Test(map_state, commands_match_a_model_across_a_restore)
{
    run(1);
}

Test(map_state, a_restore_rescaled_to_two_and_three)
{
    run(2);
    run(3);
}

static int bad_open(weir_ctx *ctx)
{
    int id;
    return weir_state_declare_map(ctx, 0, 8, &id);
}

Test(map_state, a_map_key_of_no_bytes_is_refused)
{
    static const weir_operator_vtable vt = {.version = WEIR_OPERATOR_VTABLE_V1,
                                            .open = bad_open,
                                            .on_record = ms_record};
    weir_process_spec op = {.vtable = &vt, .out_size = sizeof(said)};
    weir_harness_config cfg = {.op = &op, .in_size = {sizeof(cmd)}, .key = {&key_spec}};
    weir_harness *h = NULL;
    char err[256] = "";
    cr_assert_neq(weir_harness_create(&cfg, &h, err, sizeof err), 0);
    cr_assert(strstr(err, "weir_state_declare_map: key size 0 is not in 1..1048576"), "%s", err);
}
