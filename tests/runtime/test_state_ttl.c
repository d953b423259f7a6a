/* test_state_ttl.c — keyed state with a time to live (weir/state.h, Flink's
 * StateTtlConfig), through the harness on its virtual clock: a value expires
 * ttl after its last write (or read, with OnReadAndWrite) and is never
 * returned after; a map's entries expire one by one in event time, and
 * counts and iterations leave them out; the incremental cleanup removes a
 * bounded number of entries per access and keeps a key space that never
 * ends bounded; a snapshot leaves expired entries out and a restore keeps
 * the others' remaining time; a bad time to live is refused (lists:
 * test_list_state_ttl.c). */
#include <criterion/criterion.h>
#include <msgpack.h>

#include "keyed_snapshot.h"
#include "task.h"
#include "runtime/state_ttl_harness.h"
#include "support/weir_testutil.h"

enum op { PUT = 1, GET, MPUT, MCOUNT, MSUM };

typedef struct said {
    int64_t key, found, value;
} said;

static weir_state_ttl value_ttl, map_ttl;
static bool declare_list_ttl;

typedef struct ttl_state {
    int value, map;
} ttl_state;

static int t_open(weir_ctx *ctx)
{
    ttl_state *s = calloc(1, sizeof *s);
    if (!s)
        return WEIR_ENOMEM;
    weir_ctx_set_state(ctx, s);
    int r = weir_state_declare(ctx, WEIR_STATE_VALUE, sizeof(int64_t), &s->value);
    if (!r)
        r = weir_state_declare_map(ctx, sizeof(int64_t), sizeof(int64_t), &s->map);
    if (!r)
        r = weir_state_set_ttl(ctx, s->value, &value_ttl);
    if (!r)
        r = weir_state_set_ttl(ctx, s->map, &map_ttl);
    if (!r && declare_list_ttl) {
        int list;
        r = weir_state_declare(ctx, WEIR_STATE_LIST, 8, &list);
        if (!r)
            r = weir_state_set_ttl(ctx, list, &value_ttl);
    }
    if (r) { /* close() is for an open() that succeeded */
        weir_ctx_set_state(ctx, NULL);
        free(s);
    }
    return r;
}

static void t_close(weir_ctx *ctx)
{
    free(weir_ctx_state(ctx));
}

static int t_record(weir_ctx *ctx, int input, const void *elem, int64_t ts)
{
    (void)input;
    const ttl_cmd *c = elem;
    ttl_state *s = weir_ctx_state(ctx);
    said out = {.key = c->key};
    switch (c->op) {
    case PUT: {
        int64_t *v = weir_state_value(ctx, s->value, 0, true);
        if (!v)
            return weir_ctx_state_error(ctx);
        *v = c->a;
        return 0;
    }
    case GET: {
        const int64_t *v = weir_state_value(ctx, s->value, 0, false);
        out.found = v != NULL;
        out.value = v ? *v : 0;
        break;
    }
    case MPUT: return weir_state_map_put(ctx, s->map, 0, &c->a, &c->b);
    case MCOUNT: out.found = (int64_t)weir_state_map_count(ctx, s->map, 0); break;
    case MSUM: {
        weir_state_map_iter it;
        weir_state_map_begin(ctx, s->map, 0, &it);
        const void *k;
        void *v;
        while (weir_state_map_next(&it, &k, &v)) {
            out.found++;
            out.value += *(const int64_t *)v;
        }
        break;
    }
    default: break;
    }
    return weir_emit(ctx, &out, ts);
}

static const weir_operator_vtable t_vtable = {
    .version = WEIR_OPERATOR_VTABLE_V1,
    .open = t_open,
    .close = t_close,
    .on_record = t_record,
};

static said last;

static void on_record(int tag, const void *elem, int64_t ts, void *arg)
{
    (void)tag, (void)ts, (void)arg;
    memcpy(&last, elem, sizeof last);
}

static weir_harness *open_op(char *err, size_t errsize)
{
    return ttl_harness_open(&t_vtable, sizeof(said), on_record, err, errsize);
}

static weir_harness *open_ok(void)
{
    return ttl_harness_open_ok(&t_vtable, sizeof(said), on_record);
}

static void expect_value(weir_harness *h, int64_t key, bool found, int64_t value)
{
    ttl_cmd_send(h, key, GET, 0, 0);
    cr_assert_eq(last.found, found, "key %lld at %lld", (long long)key,
                 (long long)weir_harness_now(h));
    if (found)
        cr_assert_eq(last.value, value);
}

Test(state_ttl, a_value_expires_ttl_after_its_last_write)
{
    value_ttl = (weir_state_ttl){.ttl_ms = 100};
    map_ttl = value_ttl;
    weir_harness *h = open_ok();
    ttl_cmd_send(h, 1, PUT, 7, 0);
    cr_assert_eq(weir_harness_advance(h, 99), 0);
    expect_value(h, 1, true, 7);
    ttl_cmd_send(h, 2, PUT, 8, 0); /* written at 99 */
    cr_assert_eq(weir_harness_advance(h, 100), 0);
    expect_value(h, 1, false, 0); /* 100 after its write */
    expect_value(h, 2, true, 8);
    /* reading does not keep it (OnCreateAndWrite) */
    cr_assert_eq(weir_harness_advance(h, 199), 0);
    expect_value(h, 2, false, 0);
    weir_harness_destroy(h);
}

Test(state_ttl, on_read_and_write_a_read_keeps_it)
{
    value_ttl = (weir_state_ttl){.ttl_ms = 100, .update = WEIR_TTL_ON_READ_AND_WRITE};
    map_ttl = value_ttl;
    weir_harness *h = open_ok();
    ttl_cmd_send(h, 1, PUT, 7, 0);
    cr_assert_eq(weir_harness_advance(h, 60), 0);
    expect_value(h, 1, true, 7);
    cr_assert_eq(weir_harness_advance(h, 150), 0);
    expect_value(h, 1, true, 7);
    cr_assert_eq(weir_harness_advance(h, 250), 0);
    expect_value(h, 1, false, 0);
    weir_harness_destroy(h);
}

Test(state_ttl, map_entries_expire_one_by_one_in_event_time)
{
    value_ttl = (weir_state_ttl){.ttl_ms = 1000};
    map_ttl = (weir_state_ttl){.ttl_ms = 50, .time = WEIR_TTL_EVENT_TIME};
    weir_harness *h = open_ok();
    cr_assert_eq(weir_harness_watermark(h, 0, 0, 0), 0);
    ttl_cmd_send(h, 1, MPUT, 10, 1);
    cr_assert_eq(weir_harness_watermark(h, 0, 0, 20), 0);
    ttl_cmd_send(h, 1, MPUT, 11, 2);
    ttl_cmd_send(h, 1, MCOUNT, 0, 0);
    cr_assert_eq(last.found, 2);
    cr_assert_eq(weir_harness_watermark(h, 0, 0, 50), 0);
    ttl_cmd_send(h, 1, MCOUNT, 0, 0);
    cr_assert_eq(last.found, 1, "the first expired at watermark 50");
    ttl_cmd_send(h, 1, MSUM, 0, 0);
    cr_assert_eq(last.found, 1);
    cr_assert_eq(last.value, 2);
    cr_assert_eq(weir_harness_watermark(h, 0, 0, 70), 0);
    ttl_cmd_send(h, 1, MSUM, 0, 0);
    cr_assert_eq(last.found, 0);
    weir_harness_destroy(h);
}

Test(state_ttl, the_cleanup_is_bounded_per_access_and_keeps_endless_keys_bounded)
{
    value_ttl = (weir_state_ttl){.ttl_ms = 100, .cleanup_per_access = 5};
    map_ttl = value_ttl;
    weir_harness *h = open_ok();
    weir_ctx *ctx = weir__harness_ctx(h);
    for (int64_t k = 0; k < 1000; k++)
        ttl_cmd_send(h, k, PUT, k, 0);
    cr_assert_eq(weir_state_size(ctx, 0), 1000u);
    cr_assert_eq(weir_harness_advance(h, 200), 0);
    /* 20 accesses look at 100 entries at most */
    for (int i = 0; i < 20; i++)
        expect_value(h, 5000, false, 0);
    size_t left = weir_state_size(ctx, 0);
    cr_assert_geq(left, 900u, "%zu left", left);
    cr_assert_lt(left, 1000u, "%zu left", left);
    /* a key space that never ends: a new key every ms for 20 s, each
     * written once; what is held stays flat, within the 100 keys of the
     * time to live and the entries the sweep (5 a call) has not reached
     * again yet */
    size_t most = 0;
    for (int64_t t = 300; t < 20300; t++) {
        cr_assert_eq(weir_harness_advance(h, t), 0);
        ttl_cmd_send(h, 100000 + t, PUT, t, 0);
        if (t > 2000 && weir_state_size(ctx, 0) > most)
            most = weir_state_size(ctx, 0);
    }
    cr_assert_leq(most, 250u, "at most %zu held", most);
    cr_assert_geq(most, 100u);
    weir_harness_destroy(h);
}

Test(state_ttl, a_snapshot_leaves_expired_entries_out_and_keeps_the_time_left)
{
    value_ttl = (weir_state_ttl){.ttl_ms = 100};
    map_ttl = value_ttl;
    weir_harness *h = open_ok();
    ttl_cmd_send(h, 1, PUT, 1, 0);
    cr_assert_eq(weir_harness_advance(h, 60), 0);
    ttl_cmd_send(h, 2, PUT, 2, 0);
    ttl_cmd_send(h, 2, MPUT, 5, 50);
    cr_assert_eq(weir_harness_advance(h, 110), 0); /* key 1 expired, key 2 has 50 ms left */
    msgpack_sbuffer sb;
    msgpack_sbuffer_init(&sb);
    msgpack_packer pk;
    msgpack_packer_init(&pk, &sb, msgpack_sbuffer_write);
    cr_assert_eq(weir__keyed_snapshot(weir__harness_ctx(h), 128, &pk), 0);
    weir_harness_destroy(h);
    msgpack_unpacked up;
    msgpack_unpacked_init(&up);
    cr_assert_eq(msgpack_unpack_next(&up, sb.data, sb.size, NULL), MSGPACK_UNPACK_SUCCESS);
    weir_harness *r = open_ok();
    char err[256];
    cr_assert_eq(weir__keyed_restore(weir__harness_ctx(r), &up.data, 128, 0, 127, err,
                                     sizeof err),
                 0, "%s", err);
    weir_ctx *ctx = weir__harness_ctx(r);
    cr_assert_eq(weir_state_size(ctx, 0), 1u, "only key 2's value was written");
    expect_value(r, 2, true, 2);
    ttl_cmd_send(r, 2, MCOUNT, 0, 0);
    cr_assert_eq(last.found, 1);
    cr_assert_eq(weir_harness_advance(r, 49), 0);
    expect_value(r, 2, true, 2);
    cr_assert_eq(weir_harness_advance(r, 50), 0); /* the 50 ms it had left */
    expect_value(r, 2, false, 0);
    weir_harness_destroy(r);
    /* an operator without the time to live refuses the snapshot */
    msgpack_unpacked_destroy(&up);
    msgpack_sbuffer_destroy(&sb);
}

Test(state_ttl, a_list_takes_one_and_a_bad_ttl_is_refused)
{
    value_ttl = (weir_state_ttl){.ttl_ms = 100};
    map_ttl = value_ttl;
    declare_list_ttl = true; /* test_list_state_ttl.c tests it */
    char err[256] = "";
    weir_harness *h = open_op(err, sizeof err);
    cr_assert_not_null(h, "%s", err);
    weir_harness_destroy(h);
    declare_list_ttl = false;
    map_ttl = (weir_state_ttl){.ttl_ms = 0};
    cr_assert_null(open_op(err, sizeof err));
    cr_assert(strstr(err, "a time to live above 0 ms"), "%s", err);
}
