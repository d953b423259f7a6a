/* test_window_util.h — what the window suites (tests/operators/test_window*.c)
 * share: an element type with an 8-byte key, a result type that carries the
 * window and the firing, the usual functions over them, and a harness that
 * records everything the operator emits (main output, late side output,
 * dropped elements, watermarks) in order.
 *
 * A "probe" element (key "?probe") never reaches the window operator: the
 * harness's wrapper vtable answers it by reading the subtask's keyed state
 * (weir_state_size per state, weir_state_memory), which is only allowed
 * inside the operator's own callbacks.
 *
 * Everything is static so that each Criterion binary gets its own copy.
 * Not a test file itself (the suite glob takes test_*.c only).
 */
#ifndef WEIR_TESTS_WINDOW_UTIL_H
#define WEIR_TESTS_WINDOW_UTIL_H

#include <criterion/criterion.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support/weir_testutil.h"

#define WT_UNUSED __attribute__((unused))

typedef struct ev {
    char key[8];
    int64_t value;
} ev;

typedef struct res {
    char key[8];
    int64_t value;
    int64_t start, end;
    int64_t count;
    int32_t firing;
    int32_t late;
    int64_t watermark;
} res;

/* ---- functions ------------------------------------------------------------ */

static WT_UNUSED void sum_reduce(void *acc, const void *elem, void *arg)
{
    (void)arg;
    ((ev *)acc)->value += ((const ev *)elem)->value;
}

static WT_UNUSED void sum_finish(const void *acc, const weir_window_info *w, void *out, void *arg)
{
    (void)arg;
    const ev *a = acc;
    res r = {.value = a->value, .start = w->start, .end = w->end, .count = w->count,
             .firing = w->firing, .late = w->late, .watermark = w->watermark};
    memcpy(r.key, w->key, 8);
    memcpy(out, &r, sizeof r);
}

typedef struct sum_acc {
    int64_t sum;
    int64_t n;
} sum_acc;

static WT_UNUSED void agg_add(void *acc, const void *elem, void *arg)
{
    (void)arg;
    sum_acc *a = acc;
    a->sum += ((const ev *)elem)->value;
    a->n++;
}

static WT_UNUSED void agg_merge(void *acc, const void *other, void *arg)
{
    (void)arg;
    sum_acc *a = acc;
    const sum_acc *o = other;
    a->sum += o->sum;
    a->n += o->n;
}

static WT_UNUSED void agg_result(const void *acc, const weir_window_info *w, void *out, void *arg)
{
    (void)arg;
    const sum_acc *a = acc;
    res r = {.value = a->sum, .start = w->start, .end = w->end, .count = a->n,
             .firing = w->firing, .late = w->late, .watermark = w->watermark};
    memcpy(r.key, w->key, 8);
    memcpy(out, &r, sizeof r);
}

static const weir_aggregate_fns sum_aggregate = {
    .acc_size = sizeof(sum_acc), .add = agg_add, .merge = agg_merge, .result = agg_result};

/* One result per firing: the sum and the count of the elements it got. */
static WT_UNUSED int sum_process(weir_ctx *ctx, const weir_window_info *w, const void *elems, size_t n,
                       void *arg)
{
    (void)arg;
    res r = {.start = w->start, .end = w->end, .count = (int64_t)n, .firing = w->firing,
             .late = w->late, .watermark = w->watermark};
    memcpy(r.key, w->key, 8);
    for (size_t i = 0; i < n; i++)
        r.value += ((const ev *)elems)[i].value;
    return weir_window_emit(ctx, w, &r);
}

/* ---- the recording harness ------------------------------------------------ */

enum { WT_MAX = 1 << 16 };

typedef struct wt_item {
    int what;         /* 0 result, 1 late side output, 2 dropped, 3 watermark */
    int64_t ts;
    res r;            /* what == 0 */
    ev e;             /* what == 1, 2 */
} wt_item;

typedef struct wt {
    weir_harness *h;
    wt_item *items;
    size_t n;
    /* the last probe */
    size_t state_size[4];
    size_t memory;
    /* the wrapped operator */
    weir_operator_vtable inner;
    weir_operator_vtable outer;
    bool count_only; /* count outputs in n without keeping them */
} wt;

static wt *wt_current; /* the harness being fed (single-threaded) */

static WT_UNUSED void wt_push(wt *t, const wt_item *it)
{
    if (t->count_only) {
        t->n++;
        return;
    }
    cr_assert_lt(t->n, (size_t)WT_MAX, "too many outputs");
    t->items[t->n++] = *it;
}

static WT_UNUSED void wt_on_record(int tag, const void *elem, int64_t ts, void *arg)
{
    wt *t = arg;
    wt_item it = {.what = tag == 0 ? 0 : 1, .ts = ts};
    if (tag == 0)
        memcpy(&it.r, elem, sizeof it.r);
    else
        memcpy(&it.e, elem, sizeof it.e);
    wt_push(t, &it);
}

static WT_UNUSED void wt_on_dropped(const void *elem, int64_t ts, void *arg)
{
    wt *t = arg;
    wt_item it = {.what = 2, .ts = ts};
    memcpy(&it.e, elem, sizeof it.e);
    wt_push(t, &it);
}

static WT_UNUSED void wt_on_watermark(int64_t wm, void *arg)
{
    wt *t = arg;
    wt_item it = {.what = 3, .ts = wm};
    wt_push(t, &it);
}

static WT_UNUSED void wt_key(const void *elem, void *key, void *arg)
{
    (void)arg;
    memcpy(key, ((const ev *)elem)->key, 8);
}

static WT_UNUSED int wt_probe_record(weir_ctx *ctx, int input, const void *elem, int64_t ts)
{
    wt *t = wt_current;
    if (memcmp(((const ev *)elem)->key, "?probe", 7) == 0) {
        for (int i = 0; i < 4; i++)
            t->state_size[i] = weir_state_size(ctx, i);
        t->memory = weir_state_memory(ctx);
        return 0;
    }
    return t->inner.on_record(ctx, input, elem, ts);
}

static const weir_key_spec wt_key_spec = {.key_size = 8, .extract = wt_key};

/* A harness around the window operator of `spec` on ev elements. */
static WT_UNUSED wt *wt_open(const weir_window_spec *spec)
{
    wt *t = calloc(1, sizeof *t);
    cr_assert_not_null(t);
    t->items = calloc(WT_MAX, sizeof *t->items);
    cr_assert_not_null(t->items);
    weir_process_spec ps;
    char why[256];
    int r = weir_window_operator(spec, sizeof(ev), 8, &ps, why, sizeof why);
    cr_assert_eq(r, 0, "weir_window_operator: %s", why);
    t->inner = *ps.vtable;
    t->outer = t->inner;
    t->outer.on_record = wt_probe_record;
    ps.vtable = &t->outer;
    weir_harness_config cfg = {
        .op = &ps,
        .in_size = {sizeof(ev)},
        .key = {&wt_key_spec},
        .watermark_interval_ms = WEIR_DISABLED,
        .output = {.on_record = wt_on_record, .on_watermark = wt_on_watermark,
                   .on_dropped = wt_on_dropped, .arg = t},
    };
    wt_current = t;
    r = weir_harness_create(&cfg, &t->h, why, sizeof why);
    cr_assert_eq(r, 0, "weir_harness_create: %s", why);
    return t;
}

static WT_UNUSED void wt_close(wt *t)
{
    weir_harness_destroy(t->h);
    free(t->items);
    free(t);
    wt_current = NULL;
}

static WT_UNUSED void wt_rec(wt *t, const char *key, int64_t value, int64_t ts)
{
    ev e = {.value = value};
    snprintf(e.key, sizeof e.key, "%s", key);
    wt_current = t;
    int r = weir_harness_record(t->h, 0, 0, &e, ts);
    cr_assert_eq(r, 0, "record: %s", weir_harness_last_error(t->h));
}

static WT_UNUSED void wt_wm(wt *t, int64_t wm)
{
    wt_current = t;
    int r = weir_harness_watermark(t->h, 0, 0, wm);
    cr_assert_eq(r, 0, "watermark: %s", weir_harness_last_error(t->h));
}

static WT_UNUSED void wt_advance(wt *t, int64_t now)
{
    wt_current = t;
    int r = weir_harness_advance(t->h, now);
    cr_assert_eq(r, 0, "advance: %s", weir_harness_last_error(t->h));
}

static WT_UNUSED void wt_end(wt *t)
{
    wt_current = t;
    int r = weir_harness_end(t->h);
    cr_assert_eq(r, 0, "end: %s", weir_harness_last_error(t->h));
}

/* Reads the operator's state sizes and memory (into t->state_size, memory). */
static WT_UNUSED void wt_probe(wt *t)
{
    ev e;
    memset(&e, 0, sizeof e);
    memcpy(e.key, "?probe", 7);
    wt_current = t;
    int r = weir_harness_record(t->h, 0, 0, &e, 0);
    cr_assert_eq(r, 0, "probe: %s", weir_harness_last_error(t->h));
}

/* Takes every output since the last call into a text, one line each, in
 * order (results as "R ts key value [start,end) count firing late", late side
 * output "L ts key value", dropped "D ts key value", watermarks "W wm"), so
 * that tests compare with one string. */
static WT_UNUSED char *wt_take(wt *t, size_t *from)
{
    size_t cap = 64 + (t->n - *from) * 96;
    char *s = malloc(cap);
    cr_assert_not_null(s);
    size_t w = 0;
    s[0] = '\0';
    for (size_t i = *from; i < t->n; i++) {
        const wt_item *it = &t->items[i];
        char k[9];
        switch (it->what) {
        case 0:
            memcpy(k, it->r.key, 8);
            k[8] = 0;
            w += (size_t)snprintf(s + w, cap - w, "R %lld %s %lld [%lld,%lld) n=%lld f=%d%s\n",
                                  (long long)it->ts, k, (long long)it->r.value,
                                  (long long)it->r.start, (long long)it->r.end,
                                  (long long)it->r.count, it->r.firing, it->r.late ? " late" : "");
            break;
        case 1:
        case 2:
            memcpy(k, it->e.key, 8);
            k[8] = 0;
            w += (size_t)snprintf(s + w, cap - w, "%c %lld %s %lld\n", it->what == 1 ? 'L' : 'D',
                                  (long long)it->ts, k, (long long)it->e.value);
            break;
        default:
            w += (size_t)snprintf(s + w, cap - w, "W %lld\n", (long long)it->ts);
        }
    }
    *from = t->n;
    return s;
}

/* Sorts the lines of each run of result/late/drop lines (order within one
 * watermark is free). */
static WT_UNUSED int wt_cmp_lines(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static WT_UNUSED char *wt_canonical(const char *text)
{
    size_t len = strlen(text);
    char *copy = strdup(text);
    char **lines = calloc(len + 1, sizeof *lines);
    cr_assert(copy && lines);
    size_t n = 0;
    for (char *save = NULL, *l = strtok_r(copy, "\n", &save); l; l = strtok_r(NULL, "\n", &save))
        lines[n++] = l;
    for (size_t i = 0; i < n;) {
        size_t j = i;
        while (j < n && lines[j][0] != 'W')
            j++;
        qsort(lines + i, j - i, sizeof *lines, wt_cmp_lines);
        i = j + 1;
    }
    char *out = malloc(len + 2);
    cr_assert_not_null(out);
    size_t w = 0;
    for (size_t i = 0; i < n; i++)
        w += (size_t)sprintf(out + w, "%s\n", lines[i]);
    out[w] = '\0';
    free(copy);
    free(lines);
    return out;
}

/* Asserts the outputs since `*from` are `expected` (order within a run of
 * non-watermark lines free). */
#define wt_expect(t, from, expected)                                                              \
    do {                                                                                          \
        char *wt_got_ = wt_take((t), (from));                                                     \
        char *wt_a_ = wt_canonical(wt_got_);                                                      \
        char *wt_b_ = wt_canonical(expected);                                                     \
        cr_assert_str_eq(wt_a_, wt_b_, "outputs differ:\n--- got ---\n%s--- expected ---\n%s",     \
                         wt_got_, (expected));                                                    \
        free(wt_got_);                                                                            \
        free(wt_a_);                                                                              \
        free(wt_b_);                                                                              \
    } while (0)

static WT_UNUSED weir_window_spec wt_tumbling_sum(int64_t size, int64_t offset)
{
    weir_window_spec s = {.assigner = weir_window_tumbling(size, offset),
                          .aggregate = sum_aggregate,
                          .out_size = sizeof(res)};
    return s;
}

#endif
