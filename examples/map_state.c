/* map_state.c — keyed map state (Flink's MapState): a shopping cart per
 * user.
 *
 * Concept: weir_state_declare_map() gives a keyed operator a map per key
 * (and namespace) from fixed-size map keys to fixed-size values: here, per
 * user, item name -> quantity. weir_state_map_get(create) finds or makes an
 * entry (a pointer valid until the next state call), weir_state_map_remove
 * takes one out, weir_state_map_begin/next iterate the key's entries (newest
 * first) and weir_state_clear drops the key's whole map. Map keys and values
 * are compared as bytes: zero a struct's padding, and pad names with zeros
 * (the `item` field of a record is 8 bytes, NUL-padded). Checkpoints,
 * restores and rescaling carry map state as the value and list kinds
 * (docs/STATE.md).
 *
 * The operator reads cart events: ADD n of an item, REMOVE an item, and
 * CHECKOUT, which walks the user's cart, emits one line for it (items in
 * name order, total quantity) and empties it. One user's events go to one
 * subtask in order; results are printed sorted by time, so the output is the
 * same every run.
 *
 * What to look for: alice's second ADD of apples adds to the first (3 + 2);
 * her REMOVE of pears takes the entry out, so her first checkout has two
 * items; after it her cart starts empty again (the second checkout has one
 * item). bob's REMOVE of an item he never added changes nothing. carol never
 * checks out: her cart is still held when the input ends (2 entries).
 *
 * Run: ./build/release/examples/map_state
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <weir.h>

typedef enum cart_op { ADD, REMOVE, CHECKOUT } cart_op;

typedef struct cart_event {
    int64_t user;
    int64_t op;   /* cart_op */
    char item[8]; /* NUL-padded: the map key */
    int64_t qty;
} cart_event;

typedef struct checkout {
    int64_t user;
    int64_t items;    /* distinct items */
    int64_t quantity; /* their quantities added up */
    char list[64];    /* "apple x5, milk x1" */
} checkout;

typedef struct cart_state {
    int cart; /* the map state's id */
} cart_state;

static int cart_open(weir_ctx *ctx)
{
    cart_state *s = calloc(1, sizeof *s);
    if (!s)
        return WEIR_ENOMEM;
    weir_ctx_set_state(ctx, s);
    /* map key: the 8-byte item name; value: its quantity */
    return weir_state_declare_map(ctx, 8, sizeof(int64_t), &s->cart);
}

static void cart_close(weir_ctx *ctx)
{
    free(weir_ctx_state(ctx));
}

typedef struct line_item {
    char item[8];
    int64_t qty;
} line_item;

static int by_item(const void *a, const void *b)
{
    return memcmp(((const line_item *)a)->item, ((const line_item *)b)->item, 8);
}

static int cart_record(weir_ctx *ctx, int input, const void *elem, int64_t ts)
{
    (void)input;
    cart_state *s = weir_ctx_state(ctx);
    const cart_event *e = elem;
    switch ((cart_op)e->op) {
    case ADD: {
        int64_t *qty = weir_state_map_get(ctx, s->cart, 0, e->item, true);
        if (!qty)
            return weir_ctx_state_error(ctx);
        *qty += e->qty; /* a new entry starts at 0 */
        return 0;
    }
    case REMOVE:
        weir_state_map_remove(ctx, s->cart, 0, e->item); /* 0 if it was not there */
        return 0;
    case CHECKOUT: {
        checkout c = {.user = e->user};
        line_item items[16];
        size_t n = 0;
        weir_state_map_iter it;
        weir_state_map_begin(ctx, s->cart, 0, &it);
        const void *k;
        void *v;
        while (weir_state_map_next(&it, &k, &v) && n < 16) {
            memcpy(items[n].item, k, 8);
            memcpy(&items[n].qty, v, sizeof(int64_t));
            n++;
        }
        /* the iteration gives the newest entry first: sort for the receipt */
        qsort(items, n, sizeof *items, by_item);
        size_t len = 0;
        for (size_t i = 0; i < n; i++) {
            c.items++;
            c.quantity += items[i].qty;
            len += (size_t)snprintf(c.list + len, len < sizeof c.list ? sizeof c.list - len : 0,
                                    "%s%.8s x%" PRId64, i ? ", " : "", items[i].item,
                                    items[i].qty);
        }
        weir_state_clear(ctx, s->cart, 0); /* the whole map of this user */
        return weir_emit(ctx, &c, ts);
    }
    }
    return 0;
}

/* At the end of input: what the state still holds (carts not checked out). */
static int cart_end(weir_ctx *ctx)
{
    cart_state *s = weir_ctx_state(ctx);
    printf("held at the end of input: %zu cart entries\n", weir_state_size(ctx, s->cart));
    return 0;
}

static const weir_operator_vtable cart_vtable = {
    .version = WEIR_OPERATOR_VTABLE_V1,
    .open = cart_open,
    .on_record = cart_record,
    .on_end = cart_end,
    .close = cart_close,
};

static void user_key(const void *elem, void *key, void *arg)
{
    (void)arg;
    memcpy(key, &((const cart_event *)elem)->user, sizeof(int64_t));
}

static const char *const users[] = {"?", "alice", "bob", "carol"};

int main(void)
{
    static const cart_event events[] = {
        {1, ADD, "apple", 3}, {2, ADD, "bread", 1},  {1, ADD, "pear", 4},
        {3, ADD, "milk", 2},  {1, ADD, "apple", 2},  {2, REMOVE, "cheese", 0},
        {1, ADD, "milk", 1},  {1, REMOVE, "pear", 0}, {2, CHECKOUT, "", 0},
        {3, ADD, "eggs", 12}, {1, CHECKOUT, "", 0},  {1, ADD, "bread", 2},
        {1, CHECKOUT, "", 0},
    };
    enum { N = sizeof events / sizeof events[0] };
    int64_t ts[N];
    for (int i = 0; i < N; i++)
        ts[i] = 1000 * (i + 1);

    weir_job *job;
    if (weir_job_create(&(weir_job_config){.workers = 2}, &job) != 0)
        return 1;
    weir_stream *s = weir_source_array(job, events, N, sizeof(cart_event), ts);
    s = weir_stream_key_by(s, &(weir_key_spec){.key_size = 8, .extract = user_key});
    s = weir_stream_process(s, &(weir_process_spec){.name = "carts", .vtable = &cart_vtable,
                                                     .out_size = sizeof(checkout),
                                                     .parallelism = 1});
    weir_collect *out;
    weir_sink_collect(s, &out);
    if (weir_job_run(job) != 0) {
        fprintf(stderr, "map_state failed: %s\n", weir_job_error(job));
        weir_job_destroy(job);
        return 1;
    }
    printf("\ncheckouts (a map state per user: item -> quantity)\n\n");
    printf("%5s  %-6s  %5s  %8s  %s\n", "at s", "user", "items", "quantity", "cart");
    for (size_t i = 0; i < weir_collect_count(out); i++) {
        const checkout *c = weir_collect_elem(out, i);
        printf("%5" PRId64 "  %-6s  %5" PRId64 "  %8" PRId64 "  %s\n",
               weir_collect_timestamp(out, i) / 1000, users[c->user], c->items, c->quantity,
               c->list);
    }
    /* the test suite runs this: alice's first checkout as the text says */
    int bad = weir_collect_count(out) != 3 ||
              ((const checkout *)weir_collect_elem(out, 1))->quantity != 6;
    weir_job_destroy(job);
    return bad;
}
