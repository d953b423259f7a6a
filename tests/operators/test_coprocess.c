/* test_coprocess.c — the two-input co-process operator
 * (weir_stream_coprocess, operators/coprocess.c) in jobs on the virtual
 * clock.
 *
 * What it promises: records of the first stream reach on_record1 and of
 * the second on_record2, each with its own element size; the user keeps
 * weir_ctx_arg(); the watermark it sees is the two inputs' valves combined
 * by SEMANTICS.md 4 (the minimum over inputs that are not idle, never
 * decreasing, a returning input holding it where it is, all idle -> the
 * maximum then IDLE); with both inputs key_by'd by keys of one size, state
 * and timers are per key across both inputs (one key, one subtask, one
 * state); mismatched key sizes are refused with WEIR_ETYPE and a keyed
 * input next to an unkeyed one with WEIR_EINVAL, as is a table without
 * both record callbacks.
 */
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support/weir_testutil.h"

/* ---- routing -------------------------------------------------------------------- */

typedef struct wide {
    int64_t a;
    int64_t b;
} wide;

typedef struct route_arg {
    int64_t sum1, sum2;
    int n1, n2;
    bool wrong_sizes;
} route_arg;

static int route1(weir_ctx *ctx, const void *elem, int64_t ts)
{
    route_arg *r = weir_ctx_arg(ctx);
    int64_t v;
    memcpy(&v, elem, 8);
    if (weir_ctx_in_size(ctx, 0) != 8 || weir_ctx_in_size(ctx, 1) != sizeof(wide))
        r->wrong_sizes = true;
    tu_check(ts == v * 10, "input 1: timestamp %lld for %lld", (long long)ts, (long long)v);
    r->n1++;
    r->sum1 += v;
    return weir_emit(ctx, &v, ts);
}

static int route2(weir_ctx *ctx, const void *elem, int64_t ts)
{
    route_arg *r = weir_ctx_arg(ctx);
    wide w;
    memcpy(&w, elem, sizeof w);
    tu_check(w.b == -w.a, "input 2 got an element that is not a wide one");
    (void)ts;
    r->n2++;
    r->sum2 += w.a;
    int64_t out = -w.a;
    return weir_emit(ctx, &out, ts);
}

static const weir_coprocess_vtable route_vt = {
    .version = WEIR_OPERATOR_VTABLE_V1, .on_record1 = route1, .on_record2 = route2};

static void routing(int workers)
{
    enum { N1 = 300, N2 = 200 };
    static int64_t v1[N1], ts1[N1];
    static wide v2[N2];
    static route_arg ra;
    memset(&ra, 0, sizeof ra);
    int64_t want1 = 0, want2 = 0;
    for (int i = 0; i < N1; i++) {
        v1[i] = i + 1;
        ts1[i] = (i + 1) * 10;
        want1 += v1[i];
    }
    for (int i = 0; i < N2; i++) {
        v2[i] = (wide){.a = 1000 + i, .b = -(1000 + i)};
        want2 += v2[i].a;
    }
    weir_job *job = tu_job(&(weir_job_config){.workers = workers, .clock = WEIR_CLOCK_VIRTUAL});
    weir_stream *a = weir_source_array(job, v1, N1, 8, ts1);
    weir_stream *b = weir_source_array(job, v2, N2, sizeof(wide), NULL);
    weir_coprocess_spec spec = {.name = "route", .vtable = &route_vt, .arg = &ra, .out_size = 8};
    weir_collect *c;
    cr_assert_not_null(weir_sink_collect(weir_stream_coprocess(a, b, &spec), &c),
                       "building: %s", weir_job_error(job));
    tu_run_ok(job);
    cr_assert_eq(ra.n1, N1);
    cr_assert_eq(ra.n2, N2);
    cr_assert_eq(ra.sum1, want1, "input 1's records did not all reach on_record1");
    cr_assert_eq(ra.sum2, want2, "input 2's records did not all reach on_record2");
    cr_assert_not(ra.wrong_sizes, "weir_ctx_in_size does not give each input's size");
    /* Both kinds came out, positives from input 1, negatives from input 2. */
    size_t n;
    uint64_t *out = tu_collect_u64(c, &n);
    cr_assert_eq(n, (size_t)(N1 + N2));
    int64_t pos = 0, neg = 0;
    for (size_t i = 0; i < n; i++) {
        int64_t v = (int64_t)out[i];
        if (v > 0)
            pos += v;
        else
            neg -= v;
    }
    cr_assert_eq(pos, want1);
    cr_assert_eq(neg, want2);
    free(out);
    weir_job_destroy(job);
}

Test(coprocess, routes_each_input_to_its_callback, .timeout = 60)
{
    routing(1);
}

Test(coprocess, routes_each_input_to_its_callback_2_workers, .timeout = 60)
{
    routing(2);
}

/* ---- the combined watermark (SEMANTICS 4) ----------------------------------------- */

typedef enum act { A_REC, A_WM, A_IDLE, A_ACTIVE, A_END } act;

typedef struct step {
    int64_t at;
    act what;
    int64_t value;
} step;

typedef struct script {
    const step *steps;
    int n;
} script;

/* Input A (first) and input B (second), one channel each. What the
 * operator must see, step by step:
 *   10  A rec 5 -> on_record1; A wm 100: min(100, MIN) -> nothing
 *   20  B wm 50: min(100, 50) -> wm 50
 *   30  B idle: A alone -> wm 100 (the operator is not idle)
 *   40  A wm 300 -> wm 300
 *   50  B active at 50: min(300, 50) = 50 -> nothing, and no ACTIVE
 *   55  B wm 150: min(300, 150) = 150, below 300: held -> nothing
 *   57  B rec 7 -> on_record2, with the current watermark 300
 *   60  A idle: B alone, 150, not above 300 -> nothing
 *   70  B wm 400: B alone -> wm 400
 *   75  B idle: all idle, max(300, 400) = 400, not above 400 -> IDLE only
 *   80  A ends: its source's gate sends ACTIVE (the operator becomes
 *       active -> ACTIVE; A alone at 300 -> nothing), then MAX: A alone ->
 *       wm MAX (B is idle)
 *   90  B ends: ACTIVE and MAX change nothing */
static const step steps_a[] = {
    {10, A_REC, 5}, {10, A_WM, 100}, {40, A_WM, 300}, {60, A_IDLE, 0}, {80, A_END, 0},
};
static const step steps_b[] = {
    {20, A_WM, 50},  {30, A_IDLE, 0}, {50, A_ACTIVE, 0}, {55, A_WM, 150}, {57, A_REC, 7},
    {70, A_WM, 400}, {75, A_IDLE, 0}, {90, A_END, 0},
};
static const script script_a = {steps_a, (int)(sizeof steps_a / sizeof steps_a[0])};
static const script script_b = {steps_b, (int)(sizeof steps_b / sizeof steps_b[0])};
static const char expected_combined[] =
    "1:5@10/MIN w50@20 w100@30 w300@40 2:7@57/300 w400@70 i@75 a@80 wMAX@80";

static int script_open(weir_ctx *ctx)
{
    weir_ctx_set_state(ctx, calloc(1, sizeof(int)));
    return weir_ctx_state(ctx) ? 0 : WEIR_ENOMEM;
}

static int script_next(weir_ctx *ctx)
{
    const script *sc = weir_ctx_arg(ctx);
    int *pos = weir_ctx_state(ctx);
    int64_t now = weir_ctx_now(ctx);
    while (*pos < sc->n && sc->steps[*pos].at <= now) {
        const step *st = &sc->steps[(*pos)++];
        tu_check(st->at == now, "a step at %lld ran at %lld", (long long)st->at, (long long)now);
        int r = 0;
        switch (st->what) {
        case A_REC:
            r = weir_emit(ctx, &st->value, st->value);
            break;
        case A_WM:
            r = weir_emit_watermark(ctx, st->value);
            break;
        case A_IDLE:
            r = weir_emit_idle(ctx);
            break;
        case A_ACTIVE:
            r = weir_emit_active(ctx);
            break;
        case A_END:
            return WEIR_SOURCE_END;
        }
        if (r < 0)
            return r;
    }
    tu_check(*pos < sc->n, "a script ran out without its end step");
    weir_source_wait_until(ctx, sc->steps[*pos].at);
    return WEIR_SOURCE_WAIT;
}

static void script_close(weir_ctx *ctx)
{
    free(weir_ctx_state(ctx));
}

static const weir_source_vtable script_vt = {
    .version = WEIR_SOURCE_VTABLE_V1, .open = script_open, .next = script_next,
    .close = script_close};

typedef struct text_log {
    char text[1024];
    size_t len;
} text_log;

static void log_word(weir_ctx *ctx, const char *word)
{
    text_log *l = weir_ctx_arg(ctx);
    size_t n = strlen(word);
    if (l->len + n + 2 >= sizeof l->text)
        return;
    if (l->len)
        l->text[l->len++] = ' ';
    memcpy(l->text + l->len, word, n + 1);
    l->len += n;
}

static void log_rec(weir_ctx *ctx, int input, int64_t ts)
{
    char w[21], word[80];
    weir_ts_format(weir_ctx_watermark(ctx), w);
    snprintf(word, sizeof word, "%d:%lld@%lld/%s", input, (long long)ts,
             (long long)weir_ctx_now(ctx), w);
    log_word(ctx, word);
}

static int watch1(weir_ctx *ctx, const void *elem, int64_t ts)
{
    (void)elem;
    log_rec(ctx, 1, ts);
    return 0;
}

static int watch2(weir_ctx *ctx, const void *elem, int64_t ts)
{
    (void)elem;
    log_rec(ctx, 2, ts);
    return 0;
}

static int watch_wm(weir_ctx *ctx, int64_t wm)
{
    char w[21], word[64];
    snprintf(word, sizeof word, "w%s@%lld", weir_ts_format(wm, w), (long long)weir_ctx_now(ctx));
    log_word(ctx, word);
    return weir_emit_watermark(ctx, wm);
}

static int watch_status(weir_ctx *ctx, bool idle)
{
    char word[64];
    snprintf(word, sizeof word, "%c@%lld", idle ? 'i' : 'a', (long long)weir_ctx_now(ctx));
    log_word(ctx, word);
    return idle ? weir_emit_idle(ctx) : weir_emit_active(ctx);
}

static const weir_coprocess_vtable watch_vt = {
    .version = WEIR_OPERATOR_VTABLE_V1,
    .on_record1 = watch1,
    .on_record2 = watch2,
    .on_watermark = watch_wm,
    .on_status = watch_status,
};

static void combined(int workers)
{
    static text_log log;
    memset(&log, 0, sizeof log);
    /* Flush at once: a lone record would otherwise wait out the 5 ms buffer
     * timeout, and the log would show it arriving later than it was sent. */
    weir_job *job = tu_job(&(weir_job_config){.workers = workers,
                                              .clock = WEIR_CLOCK_VIRTUAL,
                                              .buffer_timeout_ms = WEIR_FLUSH_AT_ONCE});
    weir_source_spec sa = {.name = "A", .vtable = &script_vt, .arg = (void *)&script_a,
                           .elem_size = 8};
    weir_source_spec sb = {.name = "B", .vtable = &script_vt, .arg = (void *)&script_b,
                           .elem_size = 8};
    weir_coprocess_spec spec = {.name = "watch", .vtable = &watch_vt, .arg = &log};
    cr_assert_not_null(weir_stream_coprocess(weir_job_add_source(job, &sa),
                                             weir_job_add_source(job, &sb), &spec),
                       "building: %s", weir_job_error(job));
    tu_run_ok(job);
    weir_job_destroy(job);
    cr_assert_str_eq(log.text, expected_combined, "the co-process saw\n  %s\nexpected\n  %s",
                     log.text, expected_combined);
}

Test(coprocess, combined_watermark_of_two_inputs, .timeout = 60)
{
    combined(1);
}

Test(coprocess, combined_watermark_of_two_inputs_2_workers, .timeout = 60)
{
    combined(2);
}

/* Without on_watermark / on_status the co-process forwards the combined
 * watermark and statuses: a watching operator behind it sees the same. */
static const weir_coprocess_vtable forward_vt = {
    .version = WEIR_OPERATOR_VTABLE_V1, .on_record1 = watch1, .on_record2 = watch2};

static int behind_record(weir_ctx *ctx, int input, const void *elem, int64_t ts)
{
    (void)ctx;
    (void)input;
    (void)elem;
    (void)ts;
    return 0;
}

static const weir_operator_vtable behind_vt = {
    .version = WEIR_OPERATOR_VTABLE_V1,
    .on_record = behind_record,
    .on_watermark = watch_wm,
    .on_status = watch_status,
};

Test(coprocess, default_forwards_the_combined_watermark, .timeout = 60)
{
    static text_log first, behind;
    memset(&first, 0, sizeof first);
    memset(&behind, 0, sizeof behind);
    weir_job *job = tu_job(&(weir_job_config){.workers = 2, .clock = WEIR_CLOCK_VIRTUAL});
    weir_source_spec sa = {.vtable = &script_vt, .arg = (void *)&script_a, .elem_size = 8};
    weir_source_spec sb = {.vtable = &script_vt, .arg = (void *)&script_b, .elem_size = 8};
    weir_coprocess_spec spec = {.vtable = &forward_vt, .arg = &first, .out_size = 8};
    weir_process_spec after = {.vtable = &behind_vt, .arg = &behind};
    weir_stream *co = weir_stream_coprocess(weir_job_add_source(job, &sa),
                                            weir_job_add_source(job, &sb), &spec);
    cr_assert_not_null(weir_stream_process(co, &after), "building: %s", weir_job_error(job));
    tu_run_ok(job);
    weir_job_destroy(job);
    cr_assert_str_eq(behind.text, "w50@20 w100@30 w300@40 w400@70 i@75 a@80 wMAX@80");
}

/* ---- keyed two-input: state and timers per key across both inputs ---------------- */

typedef struct order {
    uint64_t key;
    int64_t amount;
} order;

typedef struct payment {
    uint64_t key;
    int64_t amount;
    int64_t pad;
} payment;

typedef struct joined {
    uint64_t key;
    int64_t orders, payments, ordered, paid;
} joined;

typedef struct totals {
    int64_t orders, payments, ordered, paid;
} totals;

#define JOIN_KEYS 37
#define JOIN_P 3
#define REPORT_AT 1000000 /* above every record's timestamp: fires at MAX */

typedef struct join_arg {
    int state_id[JOIN_P];
    /* which subtask saw each key, from either input (-1: none yet); each
     * subtask writes only the keys it owns, so there is no race unless a
     * key reached two subtasks, which is what is checked */
    int owner1[JOIN_KEYS], owner2[JOIN_KEYS];
} join_arg;

static int join_open(weir_ctx *ctx)
{
    join_arg *j = weir_ctx_arg(ctx);
    return weir_state_declare(ctx, WEIR_STATE_VALUE, sizeof(totals),
                              &j->state_id[weir_ctx_subtask(ctx)]);
}

static totals *join_state(weir_ctx *ctx)
{
    join_arg *j = weir_ctx_arg(ctx);
    return weir_state_value(ctx, j->state_id[weir_ctx_subtask(ctx)], 0, true);
}

static int join_orders(weir_ctx *ctx, const void *elem, int64_t ts)
{
    (void)ts;
    join_arg *j = weir_ctx_arg(ctx);
    const order *o = elem;
    tu_check(weir_ctx_key_size(ctx) == 8, "key size %zu", weir_ctx_key_size(ctx));
    tu_check(memcmp(weir_ctx_key(ctx), &o->key, 8) == 0, "input 1: the current key is not the "
             "record's");
    j->owner1[o->key] = weir_ctx_subtask(ctx);
    totals *t = join_state(ctx);
    if (!t)
        return weir_ctx_state_error(ctx);
    t->orders++;
    t->ordered += o->amount;
    return weir_timer_register(ctx, WEIR_EVENT_TIME, 0, REPORT_AT);
}

static int join_payments(weir_ctx *ctx, const void *elem, int64_t ts)
{
    (void)ts;
    join_arg *j = weir_ctx_arg(ctx);
    const payment *p = elem;
    tu_check(memcmp(weir_ctx_key(ctx), &p->key, 8) == 0, "input 2: the current key is not the "
             "record's");
    j->owner2[p->key] = weir_ctx_subtask(ctx);
    totals *t = join_state(ctx);
    if (!t)
        return weir_ctx_state_error(ctx);
    t->payments++;
    t->paid += p->amount;
    /* the same timer as input 1 registers: one timer per key, both inputs */
    return weir_timer_register(ctx, WEIR_EVENT_TIME, 0, REPORT_AT);
}

static int join_timer(weir_ctx *ctx, const weir_timer *timer)
{
    tu_check(timer->key != NULL, "a keyed timer without its key");
    totals *t = join_state(ctx);
    if (!t)
        return weir_ctx_state_error(ctx);
    joined out = {.orders = t->orders, .payments = t->payments, .ordered = t->ordered,
                  .paid = t->paid};
    memcpy(&out.key, timer->key, 8);
    return weir_emit(ctx, &out, timer->timestamp);
}

static const weir_coprocess_vtable join_vt = {
    .version = WEIR_OPERATOR_VTABLE_V1,
    .open = join_open,
    .on_record1 = join_orders,
    .on_record2 = join_payments,
    .on_timer = join_timer,
};

static void order_key(const void *elem, void *key, void *arg)
{
    (void)arg;
    memcpy(key, &((const order *)elem)->key, 8);
}

static void payment_key(const void *elem, void *key, void *arg)
{
    (void)arg;
    memcpy(key, &((const payment *)elem)->key, 8);
}

static void keyed_join(int workers)
{
    enum { NO = 2000, NP = 1500 };
    static order orders[NO];
    static payment payments[NP];
    static int64_t ots[NO], pts[NP];
    static join_arg ja;
    memset(&ja, 0, sizeof ja);
    for (int k = 0; k < JOIN_KEYS; k++)
        ja.owner1[k] = ja.owner2[k] = -1;
    totals want[JOIN_KEYS];
    memset(want, 0, sizeof want);
    for (int i = 0; i < NO; i++) {
        orders[i] = (order){.key = (uint64_t)(i * 7) % JOIN_KEYS, .amount = i % 13 + 1};
        ots[i] = i;
        want[orders[i].key].orders++;
        want[orders[i].key].ordered += orders[i].amount;
    }
    for (int i = 0; i < NP; i++) {
        payments[i] = (payment){.key = (uint64_t)(i * 11) % JOIN_KEYS, .amount = i % 5 + 1};
        pts[i] = i;
        want[payments[i].key].payments++;
        want[payments[i].key].paid += payments[i].amount;
    }
    weir_job *job = tu_job(&(weir_job_config){.workers = workers, .clock = WEIR_CLOCK_VIRTUAL});
    weir_stream *o = weir_stream_set_parallelism(
        weir_source_array(job, orders, NO, sizeof(order), ots), 2);
    weir_stream *p = weir_stream_set_parallelism(
        weir_source_array(job, payments, NP, sizeof(payment), pts), 2);
    weir_key_spec ko = {.key_size = 8, .extract = order_key};
    weir_key_spec kp = {.key_size = 8, .extract = payment_key};
    weir_coprocess_spec spec = {.name = "join", .vtable = &join_vt, .arg = &ja,
                                .out_size = sizeof(joined), .parallelism = JOIN_P};
    weir_collect *c;
    cr_assert_not_null(
        weir_sink_collect(weir_stream_coprocess(weir_stream_key_by(o, &ko),
                                                weir_stream_key_by(p, &kp), &spec),
                          &c),
        "building: %s", weir_job_error(job));
    tu_run_ok(job);

    /* One result per key (one timer per key across both inputs), with both
     * inputs' counts in one state. */
    size_t n = weir_collect_count(c);
    cr_assert_eq(n, (size_t)JOIN_KEYS, "%zu results for %d keys", n, JOIN_KEYS);
    bool seen[JOIN_KEYS] = {false};
    for (size_t i = 0; i < n; i++) {
        joined r;
        memcpy(&r, weir_collect_elem(c, i), sizeof r);
        cr_assert_lt(r.key, (uint64_t)JOIN_KEYS);
        cr_assert_not(seen[r.key], "key %llu reported twice", (unsigned long long)r.key);
        seen[r.key] = true;
        const totals *w = &want[r.key];
        cr_assert(r.orders == w->orders && r.payments == w->payments && r.ordered == w->ordered &&
                      r.paid == w->paid,
                  "key %llu: %lld orders (%lld) and %lld payments (%lld), expected %lld (%lld) "
                  "and %lld (%lld)",
                  (unsigned long long)r.key, (long long)r.orders, (long long)r.ordered,
                  (long long)r.payments, (long long)r.paid, (long long)w->orders,
                  (long long)w->ordered, (long long)w->payments, (long long)w->paid);
        cr_assert_eq(weir_collect_timestamp(c, i), REPORT_AT);
    }
    int used[JOIN_P] = {0};
    for (int k = 0; k < JOIN_KEYS; k++) {
        cr_assert_eq(ja.owner1[k], ja.owner2[k], "key %d went to subtask %d from input 1 and %d "
                     "from input 2", k, ja.owner1[k], ja.owner2[k]);
        if (ja.owner1[k] >= 0)
            used[ja.owner1[k]]++;
    }
    for (int i = 0; i < JOIN_P; i++)
        cr_assert_gt(used[i], 0, "subtask %d got no key: the test does not spread the keys", i);
    weir_job_destroy(job);
}

Test(coprocess, keyed_state_and_timers_across_both_inputs, .timeout = 60)
{
    keyed_join(1);
}

Test(coprocess, keyed_state_and_timers_across_both_inputs_2_workers, .timeout = 60)
{
    keyed_join(2);
}

/* ---- refused graphs ------------------------------------------------------------- */

static void small_key(const void *elem, void *key, void *arg)
{
    (void)arg;
    memcpy(key, elem, 4);
}

static const int64_t some[4] = {1, 2, 3, 4};

Test(coprocess, mismatched_key_sizes_refused)
{
    weir_job *job = tu_job(NULL);
    weir_key_spec k8 = {.key_size = 8, .extract = order_key};
    weir_key_spec k4 = {.key_size = 4, .extract = small_key};
    weir_stream *a = weir_stream_key_by(weir_source_array(job, some, 4, 8, some), &k8);
    weir_stream *b = weir_stream_key_by(weir_source_array(job, some, 4, 8, some), &k4);
    weir_coprocess_spec spec = {.vtable = &join_vt, .out_size = sizeof(joined)};
    cr_assert_null(weir_stream_coprocess(a, b, &spec));
    cr_assert_eq(weir_job_error_code(job), WEIR_ETYPE);
    tu_assert_contains(weir_job_error(job), "keys differ in size", "8", "4");
    cr_assert_eq(weir_job_run(job), WEIR_ETYPE, "the job must not run with the refused graph");
    weir_job_destroy(job);
}

Test(coprocess, keyed_and_unkeyed_refused)
{
    for (int keyed_first = 0; keyed_first < 2; keyed_first++) {
        weir_job *job = tu_job(NULL);
        weir_key_spec k8 = {.key_size = 8, .extract = order_key};
        weir_stream *plain = weir_source_array(job, some, 4, 8, some);
        weir_stream *keyed = weir_stream_key_by(weir_source_array(job, some, 4, 8, some), &k8);
        weir_coprocess_spec spec = {.vtable = &join_vt, .out_size = sizeof(joined)};
        cr_assert_null(keyed_first ? weir_stream_coprocess(keyed, plain, &spec)
                                   : weir_stream_coprocess(plain, keyed, &spec));
        cr_assert_eq(weir_job_error_code(job), WEIR_EINVAL);
        tu_assert_contains(weir_job_error(job), "keyed");
        cr_assert_eq(weir_job_run(job), WEIR_EINVAL);
        weir_job_destroy(job);
    }
}

Test(coprocess, incomplete_table_refused)
{
    static const weir_coprocess_vtable only1 = {.version = WEIR_OPERATOR_VTABLE_V1,
                                                .on_record1 = watch1};
    static const weir_coprocess_vtable v2 = {.version = 2, .on_record1 = watch1,
                                             .on_record2 = watch2};
    const weir_coprocess_vtable *bad[] = {&only1, &v2, NULL};
    const char *why[] = {"on_record1 and on_record2", "version 2", "on_record1 and on_record2"};
    for (int i = 0; i < 3; i++) {
        weir_job *job = tu_job(NULL);
        weir_stream *a = weir_source_array(job, some, 4, 8, some);
        weir_stream *b = weir_source_array(job, some, 4, 8, some);
        weir_coprocess_spec spec = {.vtable = bad[i], .out_size = 8};
        cr_assert_null(weir_stream_coprocess(a, b, &spec));
        cr_assert_eq(weir_job_error_code(job), WEIR_EINVAL);
        tu_assert_contains(weir_job_error(job), "weir_stream_coprocess", why[i]);
        weir_job_destroy(job);
    }
}
