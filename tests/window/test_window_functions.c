/* test_window_functions.c — what a firing turns into, per window function,
 * through the harness: reduce (the accumulator is the result, or a finish
 * hook that sees the window makes one), aggregate (an accumulator type of
 * its own, merged across panes and sessions), and process (every element of
 * the window, the window's bounds, the watermark, the key, the firing index
 * and on-time versus late; any number of results). Also: empty windows emit
 * nothing, results carry window.max, and pane-combined sliding results equal
 * the same windows computed one by one.
 */
#include <criterion/criterion.h>

#include "test_window_util.h"

typedef struct got {
    ev e[8];
    int64_t ts[8];
    int n;
} got;

static got got_evs;

static void on_ev(int tag, const void *elem, int64_t ts, void *arg)
{
    got *g = arg;
    cr_assert_eq(tag, 0);
    cr_assert_lt(g->n, 8);
    memcpy(&g->e[g->n], elem, sizeof(ev));
    g->ts[g->n++] = ts;
}

Test(reduce, the_accumulator_is_the_result)
{
    weir_window_spec s = {.assigner = weir_window_tumbling(10, 0), .reduce = sum_reduce};
    weir_process_spec ps;
    char why[256];
    cr_assert_eq(weir_window_operator(&s, sizeof(ev), 8, &ps, why, sizeof why), 0, "%s", why);
    cr_assert_eq(ps.out_size, sizeof(ev), "a reduce without finish emits the input type");
    weir_harness_config cfg = {
        .op = &ps,
        .in_size = {sizeof(ev)},
        .key = {&wt_key_spec},
        .watermark_interval_ms = WEIR_DISABLED,
        .output = {.on_record = on_ev, .arg = &got_evs},
    };
    weir_harness *h;
    cr_assert_eq(weir_harness_create(&cfg, &h, why, sizeof why), 0, "%s", why);
    ev a = {.key = "x", .value = 5}, b = {.key = "x", .value = 7}, c = {.key = "y", .value = 1};
    cr_assert_eq(weir_harness_record(h, 0, 0, &a, 1), 0);
    cr_assert_eq(weir_harness_record(h, 0, 0, &b, 2), 0);
    cr_assert_eq(weir_harness_record(h, 0, 0, &c, 3), 0);
    cr_assert_eq(weir_harness_end(h), 0);
    weir_harness_destroy(h);
    got *g = &got_evs;
    cr_assert_eq(g->n, 2);
    int x = strcmp(g->e[0].key, "x") == 0 ? 0 : 1;
    cr_assert_str_eq(g->e[x].key, "x");
    cr_assert_eq(g->e[x].value, 12);
    cr_assert_eq(g->e[1 - x].value, 1);
    cr_assert_eq(g->ts[0], 9);
    cr_assert_eq(g->ts[1], 9);
}

Test(reduce, finish_hook_carries_the_window)
{
    weir_window_spec s = {.assigner = weir_window_tumbling(10, 0), .reduce = sum_reduce,
                          .reduce_finish = sum_finish, .out_size = sizeof(res)};
    wt *t = wt_open(&s);
    size_t at = 0;
    wt_rec(t, "a", 1, 11);
    wt_rec(t, "a", 2, 12);
    wt_rec(t, "a", 4, 25);
    wt_wm(t, 19);
    wt_expect(t, &at, "R 19 a 3 [10,20) n=2 f=0\nW 19\n");
    cr_assert_eq(t->items[0].r.watermark, 19, "the finish hook sees the watermark");
    wt_close(t);
}

Test(reduce, sliding_reduce_over_panes)
{
    weir_window_spec s = {.assigner = weir_window_sliding(30, 10, 0), .reduce = sum_reduce,
                          .reduce_finish = sum_finish, .out_size = sizeof(res)};
    wt *t = wt_open(&s);
    size_t at = 0;
    wt_rec(t, "a", 1, 5);
    wt_rec(t, "a", 2, 15);
    wt_rec(t, "a", 4, 25);
    wt_rec(t, "a", 8, 35);
    wt_end(t);
    wt_expect(t, &at,
              "R 9 a 1 [-20,10) n=1 f=0\nR 19 a 3 [-10,20) n=2 f=0\nR 29 a 7 [0,30) n=3 f=0\n"
              "R 39 a 14 [10,40) n=3 f=0\nR 49 a 12 [20,50) n=2 f=0\nR 59 a 8 [30,60) n=1 f=0\n"
              "W 9223372036854775807\n");
    wt_close(t);
}

/* max over a separate accumulator type, into a narrower output */
typedef struct minmax {
    int64_t lo, hi;
    bool any;
} minmax;

typedef struct spread {
    int64_t spread;
    int64_t start;
} spread;

static void mm_create(void *acc, void *arg)
{
    (void)arg;
    minmax *m = acc;
    m->lo = INT64_MAX;
    m->hi = INT64_MIN;
}

static void mm_add(void *acc, const void *elem, void *arg)
{
    (void)arg;
    minmax *m = acc;
    int64_t v = ((const ev *)elem)->value;
    if (v < m->lo)
        m->lo = v;
    if (v > m->hi)
        m->hi = v;
    m->any = true;
}

static void mm_merge(void *acc, const void *other, void *arg)
{
    (void)arg;
    minmax *m = acc;
    const minmax *o = other;
    if (o->lo < m->lo)
        m->lo = o->lo;
    if (o->hi > m->hi)
        m->hi = o->hi;
    m->any |= o->any;
}

static void mm_result(const void *acc, const weir_window_info *w, void *out, void *arg)
{
    (void)arg;
    const minmax *m = acc;
    cr_assert(m->any, "results only for windows with elements");
    spread s = {.spread = m->hi - m->lo, .start = w->start};
    memcpy(out, &s, sizeof s);
}

static spread spreads[16];
static int64_t spread_ts[16];
static int nspreads;

static void on_spread(int tag, const void *elem, int64_t ts, void *arg)
{
    (void)tag;
    (void)arg;
    cr_assert_lt(nspreads, 16);
    memcpy(&spreads[nspreads], elem, sizeof(spread));
    spread_ts[nspreads++] = ts;
}

Test(aggregate, own_accumulator_and_output_types)
{
    weir_window_spec s = {.assigner = weir_window_sliding(20, 10, 0),
                          .aggregate = {.acc_size = sizeof(minmax), .create = mm_create,
                                        .add = mm_add, .merge = mm_merge, .result = mm_result},
                          .out_size = sizeof(spread)};
    weir_process_spec ps;
    char why[256];
    cr_assert_eq(weir_window_operator(&s, sizeof(ev), 8, &ps, why, sizeof why), 0, "%s", why);
    weir_harness_config cfg = {.op = &ps, .in_size = {sizeof(ev)}, .key = {&wt_key_spec},
                               .watermark_interval_ms = WEIR_DISABLED,
                               .output = {.on_record = on_spread}};
    weir_harness *h;
    cr_assert_eq(weir_harness_create(&cfg, &h, why, sizeof why), 0, "%s", why);
    nspreads = 0;
    int64_t vals[] = {5, -3, 10, 7};
    int64_t tss[] = {1, 8, 12, 15};
    for (int i = 0; i < 4; i++) {
        ev e = {.key = "k", .value = vals[i]};
        cr_assert_eq(weir_harness_record(h, 0, 0, &e, tss[i]), 0);
    }
    cr_assert_eq(weir_harness_end(h), 0);
    weir_harness_destroy(h);
    /* [-10,10): 5,-3 -> 8; [0,20): all -> 13; [10,30): 10,7 -> 3 */
    cr_assert_eq(nspreads, 3);
    cr_assert_eq(spreads[0].start, -10);
    cr_assert_eq(spreads[0].spread, 8);
    cr_assert_eq(spread_ts[0], 9);
    cr_assert_eq(spreads[1].start, 0);
    cr_assert_eq(spreads[1].spread, 13);
    cr_assert_eq(spreads[2].start, 10);
    cr_assert_eq(spreads[2].spread, 3);
    cr_assert_eq(spread_ts[2], 29);
}

/* A process function that checks its context and emits one result per
 * element plus a summary. */
typedef struct seen {
    int64_t start, end, max, wm, count;
    int firing;
    bool late;
    char key[8];
} seen;

static seen seen_log[16];
static int nseen;

static int checking_process(weir_ctx *ctx, const weir_window_info *w, const void *elems, size_t n,
                            void *arg)
{
    cr_assert_eq(arg, (void *)&nseen, "the spec's arg");
    cr_assert_eq(weir_ctx_arg(ctx), (void *)&nseen, "weir_ctx_arg is the spec's arg too");
    cr_assert_eq((int64_t)n, w->count);
    cr_assert_eq(w->key_size, 8u);
    cr_assert_eq(memcmp(w->key, weir_ctx_key(ctx), 8), 0);
    seen *s = &seen_log[nseen++];
    *s = (seen){.start = w->start, .end = w->end, .max = w->max_timestamp, .wm = w->watermark,
                .count = w->count, .firing = w->firing, .late = w->late};
    memcpy(s->key, w->key, 8);
    for (size_t i = 0; i < n; i++) {
        res r = {.value = ((const ev *)elems)[i].value, .start = w->start, .end = w->end,
                 .count = 1, .firing = w->firing, .late = w->late};
        memcpy(r.key, w->key, 8);
        int e = weir_window_emit(ctx, w, &r);
        if (e)
            return e;
    }
    return 0;
}

Test(process, sees_all_elements_and_the_context)
{
    nseen = 0;
    weir_window_spec s = {.assigner = weir_window_tumbling(10, 0), .process = checking_process,
                          .out_size = sizeof(res), .arg = &nseen, .allowed_lateness_ms = 5};
    wt *t = wt_open(&s);
    size_t at = 0;
    wt_rec(t, "a", 1, 1);
    wt_rec(t, "a", 2, 2);
    wt_rec(t, "b", 3, 3);
    wt_wm(t, 12);
    wt_expect(t, &at, "R 9 a 1 [0,10) n=1 f=0\nR 9 a 2 [0,10) n=1 f=0\nR 9 b 3 [0,10) n=1 f=0\n"
                      "W 12\n");
    cr_assert_eq(nseen, 2);
    cr_assert_eq(seen_log[0].wm, 12, "the watermark being advanced to");
    cr_assert_eq(seen_log[0].max, 9);
    cr_assert_not(seen_log[0].late);
    wt_rec(t, "a", 4, 4); /* within lateness: a late firing with all three */
    wt_expect(t, &at, "R 9 a 1 [0,10) n=1 f=1 late\nR 9 a 2 [0,10) n=1 f=1 late\n"
                      "R 9 a 4 [0,10) n=1 f=1 late\n");
    cr_assert_eq(nseen, 3);
    cr_assert_eq(seen_log[2].count, 3);
    cr_assert_eq(seen_log[2].firing, 1);
    cr_assert(seen_log[2].late);
    cr_assert_str_eq(seen_log[2].key, "a");
    wt_close(t);
}

Test(process, sliding_keeps_elements_once_per_pane)
{
    weir_window_spec s = {.assigner = weir_window_sliding(100, 10, 0), .process = sum_process,
                          .out_size = sizeof(res)};
    wt *t = wt_open(&s);
    for (int i = 0; i < 100; i++)
        wt_rec(t, "a", 1, i);
    wt_probe(t);
    /* state 0: the key's pane list, 1: the element lists, one per pane */
    cr_assert_eq(t->state_size[0], 1u);
    cr_assert_eq(t->state_size[1], 10u, "elements kept once per pane, not per window");
    wt_end(t);
    size_t results = 0;
    for (size_t i = 0; i < t->n; i++) {
        if (t->items[i].what)
            continue;
        const res *r = &t->items[i].r;
        int64_t lo = r->start < 0 ? 0 : r->start, hi = r->end > 100 ? 100 : r->end;
        cr_assert_eq(r->value, hi - lo);
        cr_assert_eq(r->count, hi - lo);
        results++;
    }
    cr_assert_eq(results, 19u); /* starts -90 .. 90 */
    wt_close(t);
}

/* Windows of 100 every 10 under a count trigger: each element is in 10
 * windows, each with a header of its own (its count), but a process
 * function's elements are kept once, per pane, not once per window. */
static void count_trigger_pane_elements(bool purging)
{
    weir_window_spec s = {.assigner = weir_window_sliding(100, 10, 0), .process = sum_process,
                          .trigger = {.kind = WEIR_TRIGGER_COUNT, .count = 50, .purging = purging},
                          .out_size = sizeof(res)};
    wt *t = wt_open(&s);
    wt_probe(t);
    size_t base = t->memory;
    for (int i = 0; i < 1000; i++)
        wt_rec(t, "a", 1, i / 10);
    wt_probe(t);
    /* states: 0 window headers, 1 element lists, 2 windows before MIN, 3 pane lists */
    cr_assert_eq(t->state_size[0], 19u, "a header per window: starts -90 .. 90");
    cr_assert_eq(t->state_size[1], 10u, "an element list per pane, not per window");
    cr_assert_eq(t->state_size[3], 1u, "the key's pane list");
    /* 1000 elements of 16 bytes, kept once (lists grow by doubling: at most
     * twice that), not ten times */
    double per_elem = (double)(t->memory - base) / 1000;
    fprintf(stderr, "count trigger, sliding 100/10, process: %.1f bytes of state per element\n",
            per_elem);
    cr_assert_lt(per_elem, 3 * sizeof(ev), "%.1f bytes per element", per_elem);
    /* every firing has what the window got since its last purge (or all) */
    size_t results = 0;
    for (size_t i = 0; i < t->n; i++) {
        const res *r = &t->items[i].r;
        cr_assert_eq(t->items[i].what, 0);
        cr_assert_eq(r->value, r->count);
        cr_assert_eq(r->count, purging ? 50 : 50 * (r->firing + 1));
        results++;
    }
    /* window [s, s + 100) holds 10 * (100 - |s|) elements: one firing per 50 */
    size_t want = 0;
    for (int st = -90; st <= 90; st += 10)
        want += (size_t)(10 * (100 - abs(st)) / 50);
    cr_assert_eq(results, want);
    wt_wm(t, 1000); /* past every window's cleanup */
    wt_probe(t);
    cr_assert_eq(t->state_size[1], 0u, "every pane freed with its last window");
    cr_assert_eq(t->state_size[3], 0u);
    wt_close(t);
}

Test(process, count_trigger_on_sliding_windows_keeps_elements_once_per_pane)
{
    count_trigger_pane_elements(false);
    count_trigger_pane_elements(true);
}

Test(empty, windows_with_no_element_emit_nothing)
{
    /* A purged window that fires on time again with no new element, and a
     * count-trigger window cleaned up with its count short, emit nothing. */
    weir_window_spec s = wt_tumbling_sum(10, 0);
    s.trigger = (weir_window_trigger){.kind = WEIR_TRIGGER_COUNT, .count = 5, .purging = true};
    wt *t = wt_open(&s);
    size_t at = 0;
    wt_rec(t, "a", 1, 1);
    wt_rec(t, "a", 1, 2);
    wt_end(t);
    wt_expect(t, &at, "W 9223372036854775807\n");
    wt_close(t);
}
