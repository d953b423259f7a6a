/* test_keyed_process.c — keyed state and timers as a user's keyed process
 * operator sees them (weir/keyed.h, weir/state.h, SEMANTICS.md 6), through
 * the harness and in a threaded job.
 *
 * The operator under test obeys commands carried by its records (register
 * or delete a timer, add to or clear its state, read its state's size), logs
 * every timer it gets with the watermark and clock it saw, and emits one
 * output per timer with weir_keyed_emit, so the tests can check: the same
 * timer twice fires once; a deleted timer never fires; a timer at or below
 * the watermark fires at the next one; timers fire in (timestamp,
 * registration) order, the watermark is set before they fire and goes on
 * after them, and timers registered while firing that are due fire in the
 * same advance; processing-time timers fire at their own time on the
 * virtual clock; state is per exact key and gone when cleared; output
 * timestamps follow Flink's convention. And: a stream that is not keyed is
 * refused.
 */
#include <criterion/criterion.h>

#include "support/weir_testutil.h"

enum op {
    REG_EVENT = 1, /* timer (ns a, ts b) */
    DEL_EVENT,
    REG_PROC,
    DEL_PROC,
    ADD,           /* value state += a; list state gets a */
    CLEAR,
    PROBE,
    EMIT           /* weir_keyed_emit(the command) */
};

typedef struct cmd {
    char key[8];
    int32_t op;
    int32_t pad;
    int64_t a, b;
} cmd;

typedef struct fired {
    char key[8];
    int domain;
    int64_t ns, ts, wm, now;
} fired;

typedef struct kp_state {
    int value_id, list_id;
} kp_state;

static fired fired_log[256];
static int nfired;
static size_t probe_values, probe_lists;
static int64_t probe_value, probe_list_len;

static int kp_open(weir_ctx *ctx)
{
    kp_state *s = calloc(1, sizeof *s);
    if (!s)
        return WEIR_ENOMEM;
    weir_ctx_set_state(ctx, s);
    int r = weir_state_declare(ctx, WEIR_STATE_VALUE, sizeof(int64_t), &s->value_id);
    if (r == 0)
        r = weir_state_declare(ctx, WEIR_STATE_LIST, sizeof(int64_t), &s->list_id);
    return r;
}

static void kp_close(weir_ctx *ctx)
{
    free(weir_ctx_state(ctx));
}

static int kp_record(weir_ctx *ctx, const void *elem, int64_t ts)
{
    cmd c;
    memcpy(&c, elem, sizeof c);
    kp_state *s = weir_ctx_state(ctx);
    cr_assert_eq(weir_keyed_timestamp(ctx), ts);
    cr_assert_eq(memcmp(weir_ctx_key(ctx), c.key, 8), 0, "the current key is the record's");
    switch (c.op) {
    case REG_EVENT:
        return weir_timer_register(ctx, WEIR_EVENT_TIME, c.a, c.b);
    case DEL_EVENT:
        return weir_timer_delete(ctx, WEIR_EVENT_TIME, c.a, c.b);
    case REG_PROC:
        return weir_timer_register(ctx, WEIR_PROCESSING_TIME, c.a, c.b);
    case DEL_PROC:
        return weir_timer_delete(ctx, WEIR_PROCESSING_TIME, c.a, c.b);
    case ADD: {
        int64_t *v = weir_state_value(ctx, s->value_id, c.b, true);
        if (!v)
            return weir_ctx_state_error(ctx);
        *v += c.a;
        return weir_state_list_add(ctx, s->list_id, c.b, &c.a);
    }
    case CLEAR:
        weir_state_clear(ctx, s->value_id, c.b);
        weir_state_clear(ctx, s->list_id, c.b);
        return 0;
    case PROBE: {
        probe_values = weir_state_size(ctx, s->value_id);
        probe_lists = weir_state_size(ctx, s->list_id);
        const int64_t *v = weir_state_value(ctx, s->value_id, c.b, false);
        probe_value = v ? *v : -1;
        size_t n;
        weir_state_list_get(ctx, s->list_id, c.b, &n);
        probe_list_len = (int64_t)n;
        return 0;
    }
    case EMIT:
        return weir_keyed_emit(ctx, &c);
    default:
        return weir_ctx_fail(ctx, WEIR_EINVAL, "unknown op %d", c.op);
    }
}

static int kp_timer(weir_ctx *ctx, const weir_timer *t)
{
    cr_assert_lt(nfired, 256);
    fired *f = &fired_log[nfired++];
    memcpy(f->key, t->key, 8);
    cr_assert_eq(memcmp(weir_ctx_key(ctx), t->key, 8), 0, "the current key is the timer's");
    f->domain = t->domain;
    f->ns = t->ns;
    f->ts = t->timestamp;
    f->wm = weir_ctx_watermark(ctx);
    f->now = weir_ctx_now(ctx);
    /* ns 7: a chain — each firing registers the next millisecond, three times */
    if (t->ns == 7 && t->timestamp % 10 < 2) {
        int r = weir_timer_register(ctx, WEIR_EVENT_TIME, 7, t->timestamp + 1);
        if (r)
            return r;
    }
    cmd out = {.op = (int32_t)t->domain, .a = t->ns, .b = t->timestamp};
    memcpy(out.key, t->key, 8);
    return weir_keyed_emit(ctx, &out);
}

static const weir_keyed_process_vtable kp_vt = {
    .version = WEIR_OPERATOR_VTABLE_V1,
    .open = kp_open,
    .on_record = kp_record,
    .on_timer = kp_timer,
    .close = kp_close,
};

/* ---- the harness ------------------------------------------------------------ */

typedef struct out_item {
    bool wm;
    int64_t ts;
    cmd c;
} out_item;

static out_item outs[256];
static int nouts;

static void on_record(int tag, const void *elem, int64_t ts, void *arg)
{
    (void)tag;
    (void)arg;
    cr_assert_lt(nouts, 256);
    outs[nouts].wm = false;
    outs[nouts].ts = ts;
    memcpy(&outs[nouts].c, elem, sizeof(cmd));
    nouts++;
}

static void on_watermark(int64_t wm, void *arg)
{
    (void)arg;
    cr_assert_lt(nouts, 256);
    outs[nouts].wm = true;
    outs[nouts++].ts = wm;
}

static void cmd_key(const void *elem, void *key, void *arg)
{
    (void)arg;
    memcpy(key, ((const cmd *)elem)->key, 8);
}

static const weir_key_spec cmd_key_spec = {.key_size = 8, .extract = cmd_key};

static weir_harness *open_kp(void)
{
    nfired = nouts = 0;
    weir_process_spec ps;
    char why[256];
    weir_keyed_process_spec kps = {.vtable = &kp_vt, .out_size = sizeof(cmd)};
    cr_assert_eq(weir_keyed_process_operator(&kps, &ps, why, sizeof why), 0, "%s", why);
    weir_harness_config cfg = {.op = &ps,
                               .in_size = {sizeof(cmd)},
                               .key = {&cmd_key_spec},
                               .watermark_interval_ms = WEIR_DISABLED,
                               .output = {.on_record = on_record, .on_watermark = on_watermark}};
    weir_harness *h;
    cr_assert_eq(weir_harness_create(&cfg, &h, why, sizeof why), 0, "%s", why);
    return h;
}

static void send(weir_harness *h, const char *key, int op, int64_t a, int64_t b, int64_t ts)
{
    cmd c = {.op = op, .a = a, .b = b};
    snprintf(c.key, sizeof c.key, "%s", key);
    int r = weir_harness_record(h, 0, 0, &c, ts);
    cr_assert_eq(r, 0, "%s", weir_harness_last_error(h));
}

static void wm(weir_harness *h, int64_t w)
{
    cr_assert_eq(weir_harness_watermark(h, 0, 0, w), 0, "%s", weir_harness_last_error(h));
}

Test(timers, the_same_timer_twice_is_one)
{
    weir_harness *h = open_kp();
    send(h, "a", REG_EVENT, 1, 100, 0);
    send(h, "a", REG_EVENT, 1, 100, 0);
    send(h, "a", REG_EVENT, 2, 100, 0); /* another namespace: another timer */
    send(h, "b", REG_EVENT, 1, 100, 0); /* another key: another timer */
    wm(h, 1000);
    cr_assert_eq(nfired, 3);
    wm(h, 2000);
    cr_assert_eq(nfired, 3);
    weir_harness_destroy(h);
}

Test(timers, deleted_timers_never_fire)
{
    weir_harness *h = open_kp();
    send(h, "a", REG_EVENT, 1, 100, 0);
    send(h, "a", REG_EVENT, 1, 200, 0);
    send(h, "a", REG_PROC, 1, 50, 0);
    send(h, "a", DEL_EVENT, 1, 100, 0);
    send(h, "a", DEL_PROC, 1, 50, 0);
    send(h, "a", DEL_EVENT, 9, 9, 0); /* not there: harmless */
    cr_assert_eq(weir_harness_advance(h, 1000), 0);
    wm(h, 1000);
    cr_assert_eq(nfired, 1);
    cr_assert_eq(fired_log[0].ts, 200);
    weir_harness_destroy(h);
}

Test(timers, at_or_below_the_watermark_fires_at_the_next_one)
{
    weir_harness *h = open_kp();
    wm(h, 100);
    send(h, "a", REG_EVENT, 1, 100, 0);
    send(h, "a", REG_EVENT, 1, 50, 0);
    cr_assert_eq(nfired, 0, "not at once");
    wm(h, 101);
    cr_assert_eq(nfired, 2);
    cr_assert_eq(fired_log[0].ts, 50);
    cr_assert_eq(fired_log[1].ts, 100);
    cr_assert_eq(fired_log[0].wm, 101);
    weir_harness_destroy(h);
}

Test(timers, order_then_forward_and_same_advance_chains)
{
    weir_harness *h = open_kp();
    send(h, "b", REG_EVENT, 1, 30, 0);
    send(h, "a", REG_EVENT, 1, 30, 0); /* same time: registration order */
    send(h, "a", REG_EVENT, 1, 10, 0);
    send(h, "c", REG_EVENT, 7, 20, 0); /* chains 21, 22 (ts % 10 < 2) */
    send(h, "c", REG_EVENT, 1, 41, 0);
    wm(h, 40);
    cr_assert_eq(nfired, 6);
    const int64_t want_ts[] = {10, 20, 21, 22, 30, 30};
    const char *want_key[] = {"a", "c", "c", "c", "b", "a"};
    for (int i = 0; i < 6; i++) {
        cr_assert_eq(fired_log[i].ts, want_ts[i], "firing %d", i);
        cr_assert_str_eq(fired_log[i].key, want_key[i], "firing %d", i);
        cr_assert_eq(fired_log[i].wm, 40, "the watermark is set before the timers fire");
    }
    /* every output of the timers, with the timer's timestamp, then W */
    cr_assert_eq(nouts, 7);
    for (int i = 0; i < 6; i++) {
        cr_assert_not(outs[i].wm);
        cr_assert_eq(outs[i].ts, want_ts[i]);
    }
    cr_assert(outs[6].wm);
    cr_assert_eq(outs[6].ts, 40);
    weir_harness_destroy(h);
}

Test(timers, processing_time_on_the_virtual_clock)
{
    weir_harness *h = open_kp();
    send(h, "a", REG_PROC, 1, 300, 0);
    send(h, "b", REG_PROC, 1, 100, 0);
    send(h, "a", REG_PROC, 2, 100, 0);
    wm(h, 1000000); /* event time does not fire them */
    cr_assert_eq(nfired, 0);
    cr_assert_eq(weir_harness_advance(h, 99), 0);
    cr_assert_eq(nfired, 0);
    cr_assert_eq(weir_harness_advance(h, 250), 0);
    cr_assert_eq(nfired, 2);
    cr_assert_eq(fired_log[0].now, 100, "fires at its own time");
    cr_assert_str_eq(fired_log[0].key, "b");
    cr_assert_eq(fired_log[1].ns, 2);
    cr_assert_eq(fired_log[1].domain, WEIR_PROCESSING_TIME);
    cr_assert_eq(weir_harness_now(h), 250);
    cr_assert_eq(weir_harness_advance(h, 1000), 0);
    cr_assert_eq(nfired, 3);
    cr_assert_eq(fired_log[2].now, 300);
    /* processing-time output carries no timestamp */
    cr_assert_eq(outs[1].ts, WEIR_NO_TIMESTAMP);
    weir_harness_destroy(h);
}

Test(keyed_emit, timestamps_follow_what_is_handled)
{
    weir_harness *h = open_kp();
    send(h, "a", EMIT, 0, 0, 1234);
    send(h, "a", REG_EVENT, 1, 50, 0);
    send(h, "a", REG_PROC, 1, 10, 0);
    wm(h, 60);
    cr_assert_eq(weir_harness_advance(h, 20), 0);
    cr_assert_eq(nouts, 4);
    cr_assert_eq(outs[0].ts, 1234, "a record's output: the record's timestamp");
    cr_assert_eq(outs[1].ts, 50, "an event-time timer's: the timer's");
    cr_assert(outs[2].wm);
    cr_assert_eq(outs[3].ts, WEIR_NO_TIMESTAMP, "a processing-time timer's: none");
    weir_harness_destroy(h);
}

Test(state, per_key_and_namespace_and_gone_when_cleared)
{
    weir_harness *h = open_kp();
    send(h, "a", ADD, 5, 0, 0);
    send(h, "a", ADD, 6, 0, 0);
    send(h, "a", ADD, 1, 1, 0);
    send(h, "b", ADD, 100, 0, 0);
    send(h, "a", PROBE, 0, 0, 0);
    cr_assert_eq(probe_values, 3u);
    cr_assert_eq(probe_lists, 3u);
    cr_assert_eq(probe_value, 11);
    cr_assert_eq(probe_list_len, 2);
    send(h, "b", PROBE, 0, 0, 0);
    cr_assert_eq(probe_value, 100);
    cr_assert_eq(probe_list_len, 1);
    send(h, "c", PROBE, 0, 0, 0);
    cr_assert_eq(probe_value, -1, "absent without create");
    cr_assert_eq(probe_values, 3u, "reading does not create");
    send(h, "a", CLEAR, 0, 0, 0);
    send(h, "a", PROBE, 0, 0, 0);
    cr_assert_eq(probe_values, 2u);
    cr_assert_eq(probe_lists, 2u);
    cr_assert_eq(probe_value, -1);
    send(h, "a", CLEAR, 0, 1, 0);
    send(h, "b", CLEAR, 0, 0, 0);
    send(h, "b", CLEAR, 0, 0, 0); /* absent: nothing */
    send(h, "a", PROBE, 0, 0, 0);
    cr_assert_eq(probe_values, 0u);
    cr_assert_eq(probe_lists, 0u);
    weir_harness_destroy(h);
}

/* weir_state_list_set through a tiny operator of its own */
static int ls_open(weir_ctx *ctx)
{
    int *id = malloc(sizeof *id);
    weir_ctx_set_state(ctx, id);
    return id ? weir_state_declare(ctx, WEIR_STATE_LIST, sizeof(int64_t), id) : WEIR_ENOMEM;
}

static void ls_close(weir_ctx *ctx)
{
    free(weir_ctx_state(ctx));
}

static int ls_record(weir_ctx *ctx, const void *elem, int64_t ts)
{
    (void)elem;
    (void)ts;
    int id = *(int *)weir_ctx_state(ctx);
    int64_t v[40];
    for (int i = 0; i < 40; i++)
        v[i] = i;
    cr_assert_eq(weir_state_list_set(ctx, id, 0, v, 3), 0);
    size_t n;
    const int64_t *l = weir_state_list_get(ctx, id, 0, &n);
    cr_assert_eq(n, 3u);
    cr_assert_eq(l[2], 2);
    /* from the list itself (dropping its head), then growing past its capacity */
    cr_assert_eq(weir_state_list_set(ctx, id, 0, l + 1, 2), 0);
    l = weir_state_list_get(ctx, id, 0, &n);
    cr_assert_eq(n, 2u);
    cr_assert_eq(l[0], 1);
    cr_assert_eq(l[1], 2);
    cr_assert_eq(weir_state_list_set(ctx, id, 0, v, 40), 0);
    l = weir_state_list_get(ctx, id, 0, &n);
    cr_assert_eq(n, 40u);
    cr_assert_eq(l[39], 39);
    cr_assert_eq(weir_state_size(ctx, id), 1u);
    cr_assert_eq(weir_state_list_set(ctx, id, 0, NULL, 0), 0);
    cr_assert_eq(weir_state_size(ctx, id), 0u, "an empty list is removed");
    return 0;
}

Test(state, list_set_replaces_in_place)
{
    static const weir_keyed_process_vtable vt = {.version = WEIR_OPERATOR_VTABLE_V1,
                                                 .open = ls_open,
                                                 .on_record = ls_record,
                                                 .close = ls_close};
    weir_process_spec ps;
    char why[256];
    weir_keyed_process_spec kps = {.vtable = &vt};
    cr_assert_eq(weir_keyed_process_operator(&kps, &ps, why, sizeof why), 0, "%s", why);
    weir_harness_config cfg = {.op = &ps, .in_size = {sizeof(cmd)}, .key = {&cmd_key_spec}};
    weir_harness *h;
    cr_assert_eq(weir_harness_create(&cfg, &h, why, sizeof why), 0, "%s", why);
    send(h, "a", 0, 0, 0, 0);
    weir_harness_destroy(h);
}

Test(keyed_process, refuses_an_input_that_is_not_keyed, .timeout = 120)
{
    weir_process_spec ps;
    char why[256];
    weir_keyed_process_spec kps = {.vtable = &kp_vt, .out_size = sizeof(cmd)};
    cr_assert_eq(weir_keyed_process_operator(&kps, &ps, why, sizeof why), 0, "%s", why);
    weir_harness_config cfg = {.op = &ps, .in_size = {sizeof(cmd)}};
    weir_harness *h = NULL;
    cr_assert_eq(weir_harness_create(&cfg, &h, why, sizeof why), WEIR_ENOKEY);
    cr_assert_null(h);
    tu_assert_contains(why, "keyed input", "key_by");

    static cmd in[4];
    weir_job *job = tu_job(&(weir_job_config){.workers = 1});
    cr_assert_null(weir_stream_keyed_process(weir_source_array(job, in, 4, sizeof(cmd), NULL),
                                             &kps));
    cr_assert_eq(weir_job_error_code(job), WEIR_ENOKEY);
    tu_assert_contains(weir_job_error(job), "weir_stream_keyed_process", "not keyed");
    weir_job_destroy(job);

    kps.vtable = NULL;
    cr_assert_eq(weir_keyed_process_operator(&kps, &ps, why, sizeof why), WEIR_EINVAL);
    tu_assert_contains(why, "on_record");
}

/* ---- in a job: per-key counts kept in state, emitted by timers at the end -- */

typedef struct count_out {
    uint64_t key;
    int64_t count;
    int64_t sum;
} count_out;

static int cnt_open(weir_ctx *ctx)
{
    int *id = malloc(sizeof *id);
    weir_ctx_set_state(ctx, id);
    return id ? weir_state_declare(ctx, WEIR_STATE_VALUE, sizeof(count_out), id) : WEIR_ENOMEM;
}

static int cnt_record(weir_ctx *ctx, const void *elem, int64_t ts)
{
    (void)ts;
    int id = *(int *)weir_ctx_state(ctx);
    count_out *c = weir_state_value(ctx, id, 0, true);
    if (!c)
        return weir_ctx_state_error(ctx);
    memcpy(&c->key, elem, 8);
    c->count++;
    c->sum += (int64_t)((const uint64_t *)elem)[1];
    /* idempotent: one timer per key whatever the number of records */
    return weir_timer_register(ctx, WEIR_EVENT_TIME, 0, WEIR_TS_MAX);
}

static int cnt_timer(weir_ctx *ctx, const weir_timer *t)
{
    int id = *(int *)weir_ctx_state(ctx);
    count_out *c = weir_state_value(ctx, id, t->ns, false);
    tu_check(c != NULL, "the key's state is there");
    if (!c)
        return WEIR_EINVAL;
    count_out out = *c;
    weir_state_clear(ctx, id, t->ns);
    return weir_keyed_emit(ctx, &out);
}

static void u64_key(const void *elem, void *key, void *arg)
{
    (void)arg;
    memcpy(key, elem, 8);
}

Test(keyed_process, counts_per_key_in_a_threaded_job, .timeout = 120)
{
    enum { N = 200000, KEYS = 1000 };
    uint64_t(*in)[2] = malloc(sizeof(uint64_t[2]) * N);
    int64_t *ts = malloc(sizeof *ts * N);
    cr_assert(in && ts);
    for (uint64_t i = 0; i < N; i++) {
        in[i][0] = tu_mix(i) % KEYS;
        in[i][1] = i;
        ts[i] = (int64_t)i;
    }
    static const weir_keyed_process_vtable vt = {.version = WEIR_OPERATOR_VTABLE_V1,
                                                 .open = cnt_open,
                                                 .on_record = cnt_record,
                                                 .on_timer = cnt_timer,
                                                 .close = kp_close};
    weir_job *job = tu_job(&(weir_job_config){.workers = 4});
    weir_stream *src = weir_stream_set_parallelism(
        weir_source_array(job, in, N, sizeof in[0], ts), 2);
    weir_stream *counts = weir_stream_keyed_process(
        weir_stream_key_by(src, &(weir_key_spec){.key_size = 8, .extract = u64_key}),
        &(weir_keyed_process_spec){.vtable = &vt, .out_size = sizeof(count_out),
                                   .parallelism = 4});
    weir_collect *out;
    weir_sink_collect(counts, &out);
    tu_run_ok(job);
    int64_t want_count[KEYS] = {0}, want_sum[KEYS] = {0};
    for (uint64_t i = 0; i < N; i++) {
        want_count[in[i][0]]++;
        want_sum[in[i][0]] += (int64_t)i;
    }
    size_t nkeys = 0;
    for (uint64_t k = 0; k < KEYS; k++)
        nkeys += want_count[k] > 0;
    cr_assert_eq(weir_collect_count(out), nkeys, "one output per key (one timer per key)");
    for (size_t i = 0; i < weir_collect_count(out); i++) {
        const count_out *c = weir_collect_elem(out, i);
        cr_assert_lt(c->key, (uint64_t)KEYS);
        cr_assert_eq(c->count, want_count[c->key]);
        cr_assert_eq(c->sum, want_sum[c->key]);
        cr_assert_eq(weir_collect_timestamp(out, i), WEIR_TS_MAX, "the timer's timestamp");
    }
    weir_job_destroy(job);
    free(in);
    free(ts);
}

/* ---- the key's printable form ------------------------------------------------
 *
 * Without a format callback, weir_ctx_key_format writes a key of printable
 * bytes followed only by NULs (a char[] key) as text, anything else as
 * lowercase hex, two digits a byte; it always terminates, cuts at the buffer,
 * and returns what snprintf would for the text (its whole length) and the
 * digits written for hex. */

typedef struct formatted {
    char full[4][40];
    char cut[4][8];
    int full_len[4], cut_len[4];
    int n;
} formatted;

static int format_record(weir_ctx *ctx, int input, const void *elem, int64_t ts)
{
    (void)input;
    (void)elem;
    (void)ts;
    formatted *f = weir_ctx_arg(ctx);
    if (f->n < 4) {
        f->full_len[f->n] = weir_ctx_key_format(ctx, f->full[f->n], sizeof f->full[0]);
        f->cut_len[f->n] = weir_ctx_key_format(ctx, f->cut[f->n], 5);
        f->n++;
    }
    return 0;
}

static const weir_operator_vtable format_vtable = {
    .version = WEIR_OPERATOR_VTABLE_V1,
    .on_record = format_record,
};

static void key_bytes8(const void *elem, void *key, void *arg)
{
    (void)arg;
    memcpy(key, elem, 8);
}

Test(keyed_process, default_key_format, .timeout = 60)
{
    static unsigned char keys[3][8] = {
        {'n', 'o', 'r', 't', 'h', 0, 0, 0},   /* text */
        {0x02, 0x01, 0, 0, 0, 0, 0, 0xff},    /* hex */
        {'a', 0, 'b', 0, 0, 0, 0, 0},         /* a NUL inside: hex */
    };
    static formatted f;
    weir_job *job = tu_job(&(weir_job_config){.workers = 1});
    weir_key_spec key = {.key_size = 8, .extract = key_bytes8};
    weir_process_spec spec = {.vtable = &format_vtable, .arg = &f};
    weir_stream_process(weir_stream_key_by(weir_source_array(job, keys, 3, 8, NULL), &key), &spec);
    tu_run_ok(job);
    cr_assert_eq(f.n, 3);
    cr_assert_str_eq(f.full[0], "north");
    cr_assert_eq(f.full_len[0], 5);
    cr_assert_str_eq(f.cut[0], "nort");
    cr_assert_eq(f.cut_len[0], 5);
    cr_assert_str_eq(f.full[1], "02010000000000ff");
    cr_assert_eq(f.full_len[1], 16);
    cr_assert_str_eq(f.cut[1], "0201");
    cr_assert_eq(f.cut_len[1], 4);
    cr_assert_str_eq(f.full[2], "6100620000000000");
    weir_job_destroy(job);
}
