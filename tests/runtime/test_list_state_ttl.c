/* test_list_state_ttl.c — a list state with a time to live (weir/state.h,
 * Flink's TtlListState: each element stamped on its own), through the
 * harness on its virtual clock: elements expire one by one ttl after they
 * were added and are never returned; with OnReadAndWrite a get renews
 * every element it returns; weir_state_list_set writes them all; in event
 * time the watermark is the clock; the incremental cleanup removes expired
 * elements (and emptied lists) a bounded number of entries per access and
 * keeps a key space that never ends bounded; a snapshot leaves expired
 * elements out and a restore (into another range of key groups too) keeps
 * each element's time left. */
#include <criterion/criterion.h>
#include <msgpack.h>

#include "keyed_snapshot.h"
#include "task.h"
#include "runtime/state_ttl_harness.h"
#include "support/weir_testutil.h"

enum op { ADD = 1, GET, SET2 };

typedef struct said {
    int64_t key, count, sum;
} said;

static weir_state_ttl list_ttl;

static int t_open(weir_ctx *ctx)
{
    int *list = calloc(1, sizeof *list);
    if (!list)
        return WEIR_ENOMEM;
    weir_ctx_set_state(ctx, list);
    int r = weir_state_declare(ctx, WEIR_STATE_LIST, sizeof(int64_t), list);
    if (!r)
        r = weir_state_set_ttl(ctx, *list, &list_ttl);
    if (r) {
        weir_ctx_set_state(ctx, NULL);
        free(list);
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
    int list = *(int *)weir_ctx_state(ctx);
    said out = {.key = c->key};
    switch (c->op) {
    case ADD: return weir_state_list_add(ctx, list, 0, &c->a);
    case SET2: {
        int64_t two[2] = {c->a, c->b};
        return weir_state_list_set(ctx, list, 0, two, 2);
    }
    case GET: {
        size_t n;
        const int64_t *v = weir_state_list_get(ctx, list, 0, &n);
        out.count = (int64_t)n;
        for (size_t i = 0; i < n; i++)
            out.sum = out.sum * 10 + v[i]; /* the order too: 1, 2 -> 12 */
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

static weir_harness *open_ok(void)
{
    return ttl_harness_open_ok(&t_vtable, sizeof(said), on_record);
}

static void expect_list(weir_harness *h, int64_t key, int64_t count, int64_t digits)
{
    ttl_cmd_send(h, key, GET, 0, 0);
    cr_assert_eq(last.count, count, "key %lld at %lld: %lld elements", (long long)key,
                 (long long)weir_harness_now(h), (long long)last.count);
    cr_assert_eq(last.sum, digits, "key %lld: %lld", (long long)key, (long long)last.sum);
}

Test(list_state_ttl, elements_expire_one_by_one_after_they_were_added)
{
    list_ttl = (weir_state_ttl){.ttl_ms = 100};
    weir_harness *h = open_ok();
    weir_ctx *ctx = weir__harness_ctx(h);
    ttl_cmd_send(h, 1, ADD, 1, 0);
    cr_assert_eq(weir_harness_advance(h, 50), 0);
    ttl_cmd_send(h, 1, ADD, 2, 0);
    ttl_cmd_send(h, 1, ADD, 3, 0);
    expect_list(h, 1, 3, 123);
    cr_assert_eq(weir_harness_advance(h, 99), 0);
    expect_list(h, 1, 3, 123);
    cr_assert_eq(weir_harness_advance(h, 100), 0);
    expect_list(h, 1, 2, 23); /* the first, added at 0, is gone; the order kept */
    /* reading does not renew them (OnCreateAndWrite) */
    cr_assert_eq(weir_harness_advance(h, 150), 0);
    expect_list(h, 1, 0, 0);
    cr_assert_eq(weir_state_size(ctx, 0), 0u, "the emptied list is removed");
    weir_harness_destroy(h);
}

Test(list_state_ttl, on_read_and_write_a_get_renews_every_element)
{
    list_ttl = (weir_state_ttl){.ttl_ms = 100, .update = WEIR_TTL_ON_READ_AND_WRITE};
    weir_harness *h = open_ok();
    ttl_cmd_send(h, 1, ADD, 1, 0);
    cr_assert_eq(weir_harness_advance(h, 60), 0);
    ttl_cmd_send(h, 1, ADD, 2, 0);
    cr_assert_eq(weir_harness_advance(h, 90), 0);
    expect_list(h, 1, 2, 12); /* both renewed at 90 */
    cr_assert_eq(weir_harness_advance(h, 189), 0);
    expect_list(h, 1, 2, 12);
    cr_assert_eq(weir_harness_advance(h, 289), 0);
    expect_list(h, 1, 0, 0);
    weir_harness_destroy(h);
}

Test(list_state_ttl, a_set_writes_every_element_and_event_time_follows_the_watermark)
{
    list_ttl = (weir_state_ttl){.ttl_ms = 50, .time = WEIR_TTL_EVENT_TIME};
    weir_harness *h = open_ok();
    cr_assert_eq(weir_harness_watermark(h, 0, 0, 0), 0);
    ttl_cmd_send(h, 1, ADD, 1, 0);
    cr_assert_eq(weir_harness_advance(h, 1000), 0); /* processing time does not count */
    expect_list(h, 1, 1, 1);
    cr_assert_eq(weir_harness_watermark(h, 0, 0, 40), 0);
    ttl_cmd_send(h, 1, SET2, 4, 5); /* both written at 40 */
    cr_assert_eq(weir_harness_watermark(h, 0, 0, 89), 0);
    expect_list(h, 1, 2, 45);
    cr_assert_eq(weir_harness_watermark(h, 0, 0, 90), 0);
    expect_list(h, 1, 0, 0);
    weir_harness_destroy(h);
}

Test(list_state_ttl, the_cleanup_is_bounded_per_access_and_keeps_endless_keys_bounded)
{
    list_ttl = (weir_state_ttl){.ttl_ms = 100, .cleanup_per_access = 5};
    weir_harness *h = open_ok();
    weir_ctx *ctx = weir__harness_ctx(h);
    for (int64_t k = 0; k < 1000; k++)
        ttl_cmd_send(h, k, ADD, k, 0);
    cr_assert_eq(weir_state_size(ctx, 0), 1000u);
    size_t before = weir_state_memory(ctx);
    cr_assert_eq(weir_harness_advance(h, 200), 0);
    /* 20 accesses look at 100 entries at most */
    for (int i = 0; i < 20; i++)
        expect_list(h, 5000, 0, 0);
    size_t left = weir_state_size(ctx, 0);
    cr_assert_geq(left, 900u, "%zu left", left);
    cr_assert_lt(left, 1000u, "%zu left", left);
    /* a key space that never ends: a new key every ms for 20 s, one element
     * each; the lists held stay within the 100 of the time to live and what
     * the sweep has not reached again yet */
    size_t most = 0;
    for (int64_t t = 300; t < 20300; t++) {
        cr_assert_eq(weir_harness_advance(h, t), 0);
        ttl_cmd_send(h, 100000 + t, ADD, t, 0);
        if (t > 2000 && weir_state_size(ctx, 0) > most)
            most = weir_state_size(ctx, 0);
    }
    cr_assert_leq(most, 250u, "at most %zu held", most);
    cr_assert_geq(most, 100u);
    cr_assert_lt(weir_state_memory(ctx), before, "memory follows the lists held");
    weir_harness_destroy(h);
}

Test(list_state_ttl, a_snapshot_leaves_expired_elements_out_and_keeps_the_time_left)
{
    list_ttl = (weir_state_ttl){.ttl_ms = 100};
    weir_harness *h = open_ok();
    ttl_cmd_send(h, 1, ADD, 1, 0);
    ttl_cmd_send(h, 2, ADD, 7, 0);
    cr_assert_eq(weir_harness_advance(h, 60), 0);
    ttl_cmd_send(h, 1, ADD, 2, 0);
    ttl_cmd_send(h, 3, ADD, 3, 0);
    cr_assert_eq(weir_harness_advance(h, 110), 0); /* 1 and 7 expired; 2 and 3 have 50 ms */
    msgpack_sbuffer sb;
    msgpack_sbuffer_init(&sb);
    msgpack_packer pk;
    msgpack_packer_init(&pk, &sb, msgpack_sbuffer_write);
    cr_assert_eq(weir__keyed_snapshot(weir__harness_ctx(h), 128, &pk), 0);
    weir_harness_destroy(h);
    msgpack_unpacked up;
    msgpack_unpacked_init(&up);
    cr_assert_eq(msgpack_unpack_next(&up, sb.data, sb.size, NULL), MSGPACK_UNPACK_SUCCESS);
    /* restored whole, and split in two ranges of key groups (a rescale) */
    int restored = 0;
    static const uint32_t ranges[][2] = {{0, 127}, {0, 63}, {64, 127}};
    weir_harness *r[3];
    for (int i = 0; i < 3; i++) {
        r[i] = open_ok();
        char err[256];
        cr_assert_eq(weir__keyed_restore(weir__harness_ctx(r[i]), &up.data, 128, ranges[i][0],
                                         ranges[i][1], err, sizeof err),
                     0, "%s", err);
    }
    cr_assert_eq(weir_state_size(weir__harness_ctx(r[0]), 0), 2u, "key 2's list was left out");
    cr_assert_eq(weir_state_size(weir__harness_ctx(r[1]), 0) +
                     weir_state_size(weir__harness_ctx(r[2]), 0),
                 2u);
    for (int i = 0; i < 3; i++) {
        weir_ctx *ctx = weir__harness_ctx(r[i]);
        if (i == 0 || weir_state_size(ctx, 0)) {
            cr_assert_eq(weir_harness_advance(r[i], 49), 0);
            for (int64_t k = 1; k <= 3; k += 2) {
                ttl_cmd_send(r[i], k, GET, 0, 0);
                restored += last.count == 1 && last.sum == (k == 1 ? 2 : 3);
            }
            cr_assert_eq(weir_harness_advance(r[i], 50), 0); /* the 50 ms they had left */
            expect_list(r[i], 1, 0, 0);
            expect_list(r[i], 3, 0, 0);
        }
        weir_harness_destroy(r[i]);
    }
    cr_assert_eq(restored, 4, "each list whole, once restored whole, once in its range");
    msgpack_unpacked_destroy(&up);
    msgpack_sbuffer_destroy(&sb);
}
