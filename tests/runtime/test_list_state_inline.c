/* test_list_state_inline.c — a list state keeps a short list in its keymap
 * entry (runtime/task.h, weir__list_value): the entry is whole cache lines
 * and the elements that fit in the rest of its line live there, so the
 * probe for (key, ns) lands on them. Through the harness: a list grows out
 * of its entry into a buffer and back when it is set shorter; elements
 * passed to add or set may be another list's (or its own) kept in an entry,
 * also when the insert grows the table and moves every entry; clearing
 * frees what a list held; a snapshot and its restore by key group (a
 * rescale into two ranges) give back every list whole, in or out of its
 * entry; weir_state_memory counts a buffer only for lists that have one. */
#include <criterion/criterion.h>
#include <msgpack.h>
#include <stdint.h>

#include "key_group.h"
#include "keyed_snapshot.h"
#include "runtime/state_ttl_harness.h"
#include "support/weir_testutil.h"
#include "task.h"
#include "util.h"

/* An element of the size of a pane of a count (start, count, accumulator):
 * one fits in the entry of an 8-byte key. */
typedef struct elem {
    int64_t a, b, c;
} elem;

enum op { ADD = 1, GET, SET, CLEAR, COPY, ADD_OWN };

typedef struct said {
    int64_t key, count, sum;
} said;

static int t_open(weir_ctx *ctx)
{
    int *list = calloc(1, sizeof *list);
    if (!list)
        return WEIR_ENOMEM;
    weir_ctx_set_state(ctx, list);
    int r = weir_state_declare(ctx, WEIR_STATE_LIST, sizeof(elem), list);
    int big, huge; /* a session-sized element: two lines; a larger one: a buffer */
    if (!r)
        r = weir_state_declare(ctx, WEIR_STATE_LIST, 64, &big);
    if (!r)
        r = weir_state_declare(ctx, WEIR_STATE_LIST, 200, &huge);
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

static elem elem_of(int64_t v)
{
    return (elem){v, v * 3, -v};
}

/* GET: how many, and their values in order (checked whole: a, b, c). */
static said summary(weir_ctx *ctx, int list, int64_t key, int64_t ns)
{
    said out = {.key = key};
    size_t n;
    const elem *v = weir_state_list_get(ctx, list, ns, &n);
    out.count = (int64_t)n;
    for (size_t i = 0; i < n; i++) {
        if (v[i].b != v[i].a * 3 || v[i].c != -v[i].a)
            out.count = -1; /* a torn element */
        out.sum = out.sum * 10 + v[i].a;
    }
    return out;
}

/* The commands: a is the namespace; b the value (ADD), the count (SET:
 * elements 1..b), the source namespace (COPY: its list set as ns a's). */
static int t_record(weir_ctx *ctx, int input, const void *in, int64_t ts)
{
    (void)input;
    const ttl_cmd *c = in;
    int list = *(int *)weir_ctx_state(ctx);
    switch (c->op) {
    case ADD: {
        elem e = elem_of(c->b);
        return weir_state_list_add(ctx, list, c->a, &e);
    }
    case SET: {
        elem e[8];
        for (int64_t i = 0; i < c->b; i++)
            e[i] = elem_of(i + 1);
        return weir_state_list_set(ctx, list, c->a, e, (size_t)c->b);
    }
    case CLEAR:
        weir_state_clear(ctx, list, c->a);
        return 0;
    case COPY: {
        size_t n;
        const elem *from = weir_state_list_get(ctx, list, c->b, &n);
        return weir_state_list_set(ctx, list, c->a, from, n);
    }
    case ADD_OWN: { /* the list's own first element, added again */
        size_t n;
        const elem *own = weir_state_list_get(ctx, list, c->a, &n);
        cr_assert_gt(n, 0u);
        return weir_state_list_add(ctx, list, c->a, own);
    }
    case GET: {
        said out = summary(ctx, list, c->key, c->a);
        return weir_emit(ctx, &out, ts);
    }
    default:
        return 0;
    }
}

static const weir_operator_vtable t_vtable = {
    .version = WEIR_OPERATOR_VTABLE_V1,
    .open = t_open,
    .close = t_close,
    .on_record = t_record,
};

static said last;

static void on_record(int tag, const void *e, int64_t ts, void *arg)
{
    (void)tag;
    (void)ts;
    (void)arg;
    memcpy(&last, e, sizeof last);
}

static weir_harness *open_ok(void)
{
    return ttl_harness_open_ok(&t_vtable, sizeof(said), on_record);
}

static void expect_list(weir_harness *h, int64_t key, int64_t ns, int64_t count, int64_t digits)
{
    ttl_cmd_send(h, key, GET, ns, 0);
    cr_assert_eq(last.count, count, "key %lld ns %lld: %lld elements", (long long)key,
                 (long long)ns, (long long)last.count);
    cr_assert_eq(last.sum, digits, "key %lld ns %lld: %lld", (long long)key, (long long)ns,
                 (long long)last.sum);
}

/* The list of (key, ns 0..) as the state holds it. */
static weir__list_value *list_of(weir_harness *h, int64_t key, int64_t ns)
{
    weir_ctx *ctx = weir__harness_ctx(h);
    weir__state *st = &ctx->keyed.states[0];
    unsigned char k[16];
    memcpy(k, &ns, 8);
    memcpy(k + 8, &key, 8);
    uint32_t idx = weir__keymap_find(&st->map, weir__hash_mix(weir__hash_key(&key, 8), ns, 0), k);
    cr_assert_neq(idx, WEIR__KEYMAP_NONE, "no list of key %lld ns %lld", (long long)key,
                  (long long)ns);
    return weir__keymap_value(&st->map, idx);
}

static bool in_entry(weir_harness *h, int64_t key, int64_t ns)
{
    weir__state *st = &weir__harness_ctx(h)->keyed.states[0];
    return weir__list_inline(st, list_of(h, key, ns));
}

Test(list_state_inline, a_short_list_lives_in_its_entry_on_one_cache_line)
{
    weir_harness *h = open_ok();
    weir__state *st = &weir__harness_ctx(h)->keyed.states[0];
    ttl_cmd_send(h, 1, ADD, 0, 5);
    /* [hash 8][aux 4][live 4][ns 8][key 8] then [len 4][cap 4] and one
     * 24-byte element: one line */
    cr_assert_eq(st->map.entry_size, 64u);
    cr_assert_eq((uintptr_t)st->map.entries % 64, 0u, "entries start on a line");
    cr_assert_eq(st->inl_cap, 1u);
    cr_assert(in_entry(h, 1, 0));
    /* a 64-byte element (a session window's session): room for one in a
     * two-line entry; a 200-byte one has a buffer from the first */
    const weir__state *big = &weir__harness_ctx(h)->keyed.states[1];
    cr_assert_eq(big->map.entry_size, 128u);
    cr_assert_eq(big->inl_cap, 1u);
    const weir__state *huge = &weir__harness_ctx(h)->keyed.states[2];
    cr_assert_eq(huge->map.entry_size, 64u);
    cr_assert_eq(huge->inl_cap, 0u);
    weir__list_value *l = list_of(h, 1, 0);
    const unsigned char *e = (const unsigned char *)l;
    const unsigned char *line = st->map.entries + ((size_t)(e - st->map.entries) / 64) * 64;
    cr_assert_leq(weir__list_elems(st, l) + sizeof(elem), line + 64, "the element is in the line");
    expect_list(h, 1, 0, 1, 5);
    size_t with_one = weir_state_memory(weir__harness_ctx(h));
    weir_harness_destroy(h);
    cr_assert_gt(with_one, 0u);
}

Test(list_state_inline, a_list_grows_out_of_its_entry_and_back_when_set_shorter)
{
    weir_harness *h = open_ok();
    weir_ctx *ctx = weir__harness_ctx(h);
    ttl_cmd_send(h, 7, ADD, 0, 1);
    size_t inline_memory = weir_state_memory(ctx);
    ttl_cmd_send(h, 7, ADD, 0, 2); /* out of the entry */
    cr_assert(!in_entry(h, 7, 0));
    cr_assert_gt(weir_state_memory(ctx), inline_memory, "its buffer is counted");
    for (int64_t v = 3; v <= 6; v++)
        ttl_cmd_send(h, 7, ADD, 0, v);
    expect_list(h, 7, 0, 6, 123456);
    cr_assert_eq(weir_state_elements(ctx, 0), 6u);
    ttl_cmd_send(h, 7, SET, 0, 1); /* back into the entry, its buffer freed */
    cr_assert(in_entry(h, 7, 0));
    cr_assert_eq(weir_state_memory(ctx), inline_memory);
    expect_list(h, 7, 0, 1, 1);
    ttl_cmd_send(h, 7, SET, 0, 3); /* out again, by set */
    cr_assert(!in_entry(h, 7, 0));
    expect_list(h, 7, 0, 3, 123);
    ttl_cmd_send(h, 7, ADD_OWN, 0, 0);
    expect_list(h, 7, 0, 4, 1231);
    ttl_cmd_send(h, 7, CLEAR, 0, 0); /* deletion frees the buffer */
    expect_list(h, 7, 0, 0, 0);
    cr_assert_eq(weir_state_size(ctx, 0), 0u);
    cr_assert_eq(weir_state_elements(ctx, 0), 0u);
    /* a full entry whose own element is added again: it moves out with it */
    ttl_cmd_send(h, 8, ADD, 0, 4);
    ttl_cmd_send(h, 8, ADD_OWN, 0, 0);
    cr_assert(!in_entry(h, 8, 0));
    expect_list(h, 8, 0, 2, 44);
    weir_harness_destroy(h);
}

Test(list_state_inline, elements_from_another_entry_follow_it_when_the_table_grows)
{
    weir_harness *h = open_ok();
    weir__state *st = &weir__harness_ctx(h)->keyed.states[0];
    /* every key's ns 0 list in its entry, copied to a new ns 1 entry of the
     * same key: the insert grows the table now and then (32, 64, ... entries),
     * which moves the list being copied from */
    uint32_t grown = 0, cap = 0;
    ttl_cmd_send(h, -1, ADD, 0, 1); /* so that the copies are the inserts that grow it */
    for (int64_t k = 0; k < 300; k++) {
        ttl_cmd_send(h, k, ADD, 0, k % 9 + 1);
        cap = st->map.cap;
        ttl_cmd_send(h, k, COPY, 1, 0);
        grown += st->map.cap != cap;
    }
    cr_assert_geq(grown, 2u, "the copies grew the table");
    for (int64_t k = 0; k < 300; k++) {
        expect_list(h, k, 1, 1, k % 9 + 1);
        cr_assert(in_entry(h, k, 1));
    }
    /* the same with a list that does not fit in the entry being made */
    for (int64_t k = 300; k < 400; k++) {
        ttl_cmd_send(h, k, SET, 0, 3);
        ttl_cmd_send(h, k, COPY, 2, 0);
    }
    for (int64_t k = 300; k < 400; k++)
        expect_list(h, k, 2, 3, 123);
    weir_harness_destroy(h);
}

Test(list_state_inline, snapshot_and_restore_by_key_group_keep_every_list_in_or_out_of_its_entry)
{
    weir_harness *h = open_ok();
    /* keys 0..199: even ones one element (in the entry), odd ones 1..4 */
    for (int64_t k = 0; k < 200; k++) {
        if (k % 2 == 0)
            ttl_cmd_send(h, k, ADD, 3, k % 7 + 1);
        else
            ttl_cmd_send(h, k, SET, 3, 4);
    }
    msgpack_sbuffer sb;
    msgpack_sbuffer_init(&sb);
    msgpack_packer pk;
    msgpack_packer_init(&pk, &sb, msgpack_sbuffer_write);
    cr_assert_eq(weir__keyed_snapshot(weir__harness_ctx(h), 128, &pk), 0);
    weir_harness_destroy(h);
    msgpack_unpacked up;
    msgpack_unpacked_init(&up);
    cr_assert_eq(msgpack_unpack_next(&up, sb.data, sb.size, NULL), MSGPACK_UNPACK_SUCCESS);
    static const uint32_t ranges[][2] = {{0, 127}, {0, 63}, {64, 127}};
    weir_harness *r[3];
    for (int i = 0; i < 3; i++) {
        r[i] = open_ok();
        char err[256];
        cr_assert_eq(weir__keyed_restore(weir__harness_ctx(r[i]), &up.data, 128, ranges[i][0],
                                         ranges[i][1], err, sizeof err),
                     0, "%s", err);
    }
    cr_assert_eq(weir_state_size(weir__harness_ctx(r[0]), 0), 200u);
    size_t split = weir_state_size(weir__harness_ctx(r[1]), 0);
    cr_assert_eq(split + weir_state_size(weir__harness_ctx(r[2]), 0), 200u);
    cr_assert(split > 0 && split < 200, "both ranges hold keys (%zu)", split);
    cr_assert_eq(weir_state_elements(weir__harness_ctx(r[0]), 0), 100u + 400u);
    for (int64_t k = 0; k < 200; k++) {
        uint32_t group = weir__key_group(weir__hash_key(&k, 8), 128);
        weir_harness *mine = group <= 63 ? r[1] : r[2];
        weir_harness *other = group <= 63 ? r[2] : r[1];
        for (int i = 0; i < 2; i++) {
            weir_harness *x = i ? mine : r[0];
            if (k % 2 == 0) {
                expect_list(x, k, 3, 1, k % 7 + 1);
                cr_assert(in_entry(x, k, 3), "restored into its entry");
            } else {
                expect_list(x, k, 3, 4, 1234);
                cr_assert(!in_entry(x, k, 3));
            }
        }
        expect_list(other, k, 3, 0, 0);
    }
    /* restored lists keep working: one out of its entry and back */
    ttl_cmd_send(r[0], 0, ADD, 3, 9);
    expect_list(r[0], 0, 3, 2, 19);
    ttl_cmd_send(r[0], 0, SET, 3, 1);
    expect_list(r[0], 0, 3, 1, 1);
    for (int i = 0; i < 3; i++)
        weir_harness_destroy(r[i]);
    msgpack_unpacked_destroy(&up);
    msgpack_sbuffer_destroy(&sb);
}
