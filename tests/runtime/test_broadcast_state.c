/* test_broadcast_state.c — the broadcast state pattern (weir/broadcast.h,
 * Flink's KeyedBroadcastProcessFunction / BroadcastProcessFunction):
 * through the harness, rules changed while keyed data flows, the state
 * read-only outside on_broadcast, puts / removes / iteration against a
 * model; in jobs, every subtask holding the same state, the combined
 * watermark deciding which rules an element sees (rules valid from their
 * timestamp, applied at the element's event-time timer), and a restore at
 * another parallelism that gives every subtask the broadcast state and
 * each key its keyed state back. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "support/weir_testutil.h"

typedef struct ev {
    int64_t key, value;
} ev;

typedef struct rule {
    int64_t key, threshold; /* threshold < 0: remove the rule */
} rule;

typedef struct rkey {
    int64_t key, from; /* a rule of `key`, valid from `from` */
} rkey;

typedef struct out {
    int64_t key, value, ts, threshold, seen;
} out;

/* ---- the harness: rules change while keyed data flows --------------------- */

typedef struct hstate {
    int seen;
} hstate;

static int h_open(weir_ctx *ctx)
{
    hstate *s = calloc(1, sizeof *s);
    if (!s)
        return WEIR_ENOMEM;
    weir_ctx_set_state(ctx, s);
    return weir_state_declare(ctx, WEIR_STATE_VALUE, sizeof(int64_t), &s->seen);
}

static void h_close(weir_ctx *ctx)
{
    free(weir_ctx_state(ctx));
}

/* Emits the element with the rule of its key (-1: none) and how many
 * elements of the key came so far (keyed state). */
static int h_record(weir_ctx *ctx, const void *elem, int64_t ts)
{
    const ev *e = elem;
    hstate *s = weir_ctx_state(ctx);
    int64_t *seen = weir_state_value(ctx, s->seen, 0, true);
    if (!seen)
        return weir_ctx_state_error(ctx);
    ++*seen;
    const int64_t *t = weir_broadcast_get(ctx, 0, &e->key);
    out o = {e->key, e->value, ts, t ? *t : -1, *seen};
    if (e->value == 666) /* a write on the read-only side */
        return weir_broadcast_put(ctx, 0, &e->key, &e->value);
    return weir_emit(ctx, &o, ts);
}

static int h_broadcast(weir_ctx *ctx, const void *elem, int64_t ts)
{
    (void)ts;
    const rule *r = elem;
    if (weir_ctx_key(ctx) != NULL)
        return weir_ctx_fail(ctx, WEIR_EINVAL, "a current key on the broadcast side");
    if (r->threshold < 0)
        return weir_broadcast_remove(ctx, 0, &r->key) < 0 ? weir_ctx_error(ctx) : 0;
    return weir_broadcast_put(ctx, 0, &r->key, &r->threshold);
}

static const weir_broadcast_vtable h_vt = {
    .version = WEIR_OPERATOR_VTABLE_V1,
    .open = h_open,
    .on_record = h_record,
    .on_broadcast = h_broadcast,
    .close = h_close,
};

static void key_of_ev(const void *elem, void *key, void *arg)
{
    (void)arg;
    memcpy(key, &((const ev *)elem)->key, 8);
}

#define MAXOUT 4096
static out got[MAXOUT];
static size_t ngot;

static void collect(int tag, const void *elem, int64_t ts, void *arg)
{
    (void)tag;
    (void)ts;
    (void)arg;
    if (ngot < MAXOUT)
        memcpy(&got[ngot++], elem, sizeof(out));
}

static weir_harness *harness(const weir_broadcast_vtable *vt, bool keyed)
{
    static const weir_broadcast_state_desc states[] = {{sizeof(int64_t), sizeof(int64_t)}};
    weir_process_spec ps;
    char err[256];
    cr_assert_eq(weir_broadcast_process_operator(
                     &(weir_broadcast_spec){.vtable = vt, .out_size = sizeof(out),
                                            .states = states, .nstates = 1},
                     &ps, err, sizeof err),
                 0, "%s", err);
    static const weir_key_spec key = {.key_size = 8, .extract = key_of_ev};
    weir_harness_config cfg = {.op = &ps,
                               .inputs = 2,
                               .in_size = {sizeof(ev), sizeof(rule)},
                               .key = {keyed ? &key : NULL, NULL},
                               .output = {.on_record = collect}};
    weir_harness *h = NULL;
    cr_assert_eq(weir_harness_create(&cfg, &h, err, sizeof err), 0, "%s", err);
    ngot = 0;
    return h;
}

static void push_ev(weir_harness *h, int64_t key, int64_t value, int64_t ts)
{
    ev e = {key, value};
    cr_assert_eq(weir_harness_record(h, 0, 0, &e, ts), 0, "%s", weir_harness_last_error(h));
}

static void push_rule(weir_harness *h, int64_t key, int64_t threshold)
{
    rule r = {key, threshold};
    cr_assert_eq(weir_harness_record(h, 1, 0, &r, 0), 0, "%s", weir_harness_last_error(h));
}

static void expect(size_t i, int64_t key, int64_t threshold, int64_t seen)
{
    cr_assert_lt(i, ngot);
    cr_expect_eq(got[i].key, key, "output %zu", i);
    cr_expect_eq(got[i].threshold, threshold, "output %zu: threshold", i);
    cr_expect_eq(got[i].seen, seen, "output %zu: seen", i);
}

Test(broadcast_state, rules_change_while_keyed_data_flows)
{
    weir_harness *h = harness(&h_vt, true);
    push_ev(h, 1, 10, 100);
    push_rule(h, 1, 50);
    push_ev(h, 1, 11, 101);
    push_ev(h, 2, 12, 102);
    push_rule(h, 2, 70);
    push_rule(h, 1, 55); /* replaces key 1's */
    push_ev(h, 1, 13, 103);
    push_ev(h, 2, 14, 104);
    push_rule(h, 1, -1); /* removes it */
    push_ev(h, 1, 15, 105);
    cr_assert_eq(weir_harness_end(h), 0, "%s", weir_harness_last_error(h));
    cr_assert_eq(ngot, 6u);
    expect(0, 1, -1, 1);
    expect(1, 1, 50, 2);
    expect(2, 2, -1, 1);
    expect(3, 1, 55, 3);
    expect(4, 2, 70, 2);
    expect(5, 1, -1, 4);
    weir_harness_destroy(h);
}

Test(broadcast_state, read_only_outside_on_broadcast)
{
    weir_harness *h = harness(&h_vt, true);
    push_ev(h, 1, 1, 1);
    ev e = {1, 666};
    cr_assert_eq(weir_harness_record(h, 0, 0, &e, 2), WEIR_ESTATE);
    cr_assert(strstr(weir_harness_last_error(h), "weir_broadcast_put: the broadcast state is "
                                                 "read-only outside on_broadcast"),
              "%s", weir_harness_last_error(h));
    weir_harness_destroy(h);
}

/* Not keyed (Flink's BroadcastProcessFunction): the same, without keyed
 * state. */
static int nk_record(weir_ctx *ctx, const void *elem, int64_t ts)
{
    const ev *e = elem;
    if (weir_ctx_key(ctx) != NULL)
        return weir_ctx_fail(ctx, WEIR_EINVAL, "a current key on an unkeyed operator");
    const int64_t *t = weir_broadcast_get(ctx, 0, &e->key);
    out o = {e->key, e->value, ts, t ? *t : -1, (int64_t)weir_broadcast_count(ctx, 0)};
    return weir_emit(ctx, &o, ts);
}

static const weir_broadcast_vtable nk_vt = {
    .version = WEIR_OPERATOR_VTABLE_V1,
    .on_record = nk_record,
    .on_broadcast = h_broadcast,
};

Test(broadcast_state, not_keyed)
{
    weir_harness *h = harness(&nk_vt, false);
    push_ev(h, 3, 1, 1);
    push_rule(h, 3, 9);
    push_rule(h, 4, 8);
    push_ev(h, 3, 2, 2);
    push_ev(h, 5, 3, 3);
    cr_assert_eq(weir_harness_end(h), 0, "%s", weir_harness_last_error(h));
    cr_assert_eq(ngot, 3u);
    expect(0, 3, -1, 0);
    expect(1, 3, 9, 2);
    expect(2, 5, -1, 2);
    weir_harness_destroy(h);
}

/* Many puts, removes and iterations (removing every other entry while
 * iterating) against a model: the index's probing and backward shifts. */
typedef struct mcmd {
    int64_t op, key, value; /* op 0 put, 1 remove, 2 iterate and drop odd values */
} mcmd;

static int m_broadcast(weir_ctx *ctx, const void *elem, int64_t ts)
{
    (void)ts;
    const mcmd *c = elem;
    if (c->op == 0)
        return weir_broadcast_put(ctx, 0, &c->key, &c->value);
    if (c->op == 1)
        return weir_broadcast_remove(ctx, 0, &c->key) < 0 ? weir_ctx_error(ctx) : 0;
    weir_broadcast_iter it;
    weir_broadcast_begin(ctx, 0, &it);
    const void *k, *v;
    int64_t n = 0;
    while (weir_broadcast_next(&it, &k, &v)) {
        int64_t key, value;
        memcpy(&key, k, 8);
        memcpy(&value, v, 8);
        n++;
        if (value % 2 && weir_broadcast_remove(ctx, 0, &key) != 1)
            return weir_ctx_fail(ctx, WEIR_EINVAL, "the entry just returned was not there");
    }
    out o = {-1, n, 0, 0, 0};
    return weir_emit(ctx, &o, 0);
}

static int m_record(weir_ctx *ctx, const void *elem, int64_t ts)
{
    const ev *e = elem;
    const int64_t *t = weir_broadcast_get(ctx, 0, &e->key);
    out o = {e->key, t ? *t : -1, ts, weir_broadcast_contains(ctx, 0, &e->key),
             (int64_t)weir_broadcast_count(ctx, 0)};
    return weir_emit(ctx, &o, ts);
}

static const weir_broadcast_vtable m_vt = {
    .version = WEIR_OPERATOR_VTABLE_V1,
    .on_record = m_record,
    .on_broadcast = m_broadcast,
};

Test(broadcast_state, operations_match_a_model)
{
    enum { K = 300 };
    static int64_t model[K];
    for (int i = 0; i < K; i++)
        model[i] = -1;
    weir_harness *h = harness(&m_vt, false);
    uint64_t x = 7;
    for (int step = 0; step < 20000; step++) {
        x = tu_mix(x);
        int64_t key = (int64_t)(x % K);
        int what = (int)((x >> 20) % 100);
        size_t before = ngot;
        if (what < 55) {
            mcmd c = {0, key, (int64_t)((x >> 32) % 1000)};
            cr_assert_eq(weir_harness_record(h, 1, 0, &c, 0), 0);
            model[key] = c.value;
        } else if (what < 90) {
            mcmd c = {1, key, 0};
            cr_assert_eq(weir_harness_record(h, 1, 0, &c, 0), 0);
            model[key] = -1;
        } else if (what < 91) {
            mcmd c = {2, 0, 0};
            cr_assert_eq(weir_harness_record(h, 1, 0, &c, 0), 0);
            int64_t n = 0;
            for (int i = 0; i < K; i++) {
                n += model[i] >= 0;
                if (model[i] >= 0 && model[i] % 2)
                    model[i] = -1;
            }
            cr_assert_eq(ngot, before + 1);
            cr_assert_eq(got[before].value, n, "step %d: iterated %lld of %lld", step,
                         (long long)got[before].value, (long long)n);
        } else {
            push_ev(h, key, 0, step);
            int64_t n = 0;
            for (int i = 0; i < K; i++)
                n += model[i] >= 0;
            cr_assert_eq(ngot, before + 1);
            cr_assert_eq(got[before].value, model[key], "step %d key %lld", step,
                         (long long)key);
            cr_assert_eq(got[before].threshold, model[key] >= 0);
            cr_assert_eq(got[before].seen, n, "step %d: count", step);
        }
        ngot = 0;
    }
    weir_harness_destroy(h);
}

/* ---- jobs ----------------------------------------------------------------- */

#define NEV 600
#define NRULES 40
#define NKEYS 7
#define MAXSUB 8

typedef struct job_arg {
    bool direct;                 /* apply rules at once (no timers) */
    int64_t fingerprint[MAXSUB]; /* of each subtask's broadcast state at its end */
    int64_t count[MAXSUB];
    int ended[MAXSUB];
} job_arg;

typedef struct jstate {
    int buf, seen;
} jstate;

static int j_open(weir_ctx *ctx)
{
    jstate *s = calloc(1, sizeof *s);
    if (!s)
        return WEIR_ENOMEM;
    weir_ctx_set_state(ctx, s);
    int r = weir_state_declare(ctx, WEIR_STATE_LIST, sizeof(ev), &s->buf);
    return r ? r : weir_state_declare(ctx, WEIR_STATE_VALUE, sizeof(int64_t), &s->seen);
}

static void j_close(weir_ctx *ctx)
{
    free(weir_ctx_state(ctx));
}

/* The rule of `key` valid at `ts`: the newest one from at or before ts. */
static int64_t rule_at(weir_ctx *ctx, int64_t key, int64_t ts)
{
    weir_broadcast_iter it;
    weir_broadcast_begin(ctx, 0, &it);
    const void *k, *v;
    int64_t best_from = INT64_MIN, t = -1;
    while (weir_broadcast_next(&it, &k, &v)) {
        rkey rk;
        memcpy(&rk, k, sizeof rk);
        if (rk.key == key && rk.from <= ts && rk.from > best_from) {
            best_from = rk.from;
            memcpy(&t, v, 8);
        }
    }
    return t;
}

static int apply(weir_ctx *ctx, const ev *e, int64_t ts)
{
    jstate *s = weir_ctx_state(ctx);
    int64_t *seen = weir_state_value(ctx, s->seen, 0, true);
    if (!seen)
        return weir_ctx_state_error(ctx);
    ++*seen;
    out o = {e->key, e->value, ts, rule_at(ctx, e->key, ts), *seen};
    return weir_emit(ctx, &o, ts);
}

static int j_record(weir_ctx *ctx, const void *elem, int64_t ts)
{
    const job_arg *a = weir_ctx_arg(ctx);
    if (a->direct)
        return apply(ctx, elem, INT64_MAX - 1);
    jstate *s = weir_ctx_state(ctx);
    int r = weir_state_list_add(ctx, s->buf, ts, elem);
    return r ? r : weir_timer_register(ctx, WEIR_EVENT_TIME, ts, ts);
}

/* At the element's time every rule from at or before it has arrived: the
 * operator's watermark is the least of both inputs'. */
static int j_timer(weir_ctx *ctx, const weir_timer *t)
{
    jstate *s = weir_ctx_state(ctx);
    size_t n = 0;
    const ev *list = weir_state_list_get(ctx, s->buf, t->ns, &n);
    ev copy[64];
    if (n > 64)
        return weir_ctx_fail(ctx, WEIR_EINVAL, "too many at one time");
    memcpy(copy, list, n * sizeof *copy);
    weir_state_clear(ctx, s->buf, t->ns);
    for (size_t i = 0; i < n; i++) {
        int r = apply(ctx, &copy[i], t->timestamp);
        if (r)
            return r;
    }
    return 0;
}

static int j_broadcast(weir_ctx *ctx, const void *elem, int64_t ts)
{
    const rule *r = elem;
    rkey k = {r->key, ts};
    return weir_broadcast_put(ctx, 0, &k, &r->threshold);
}

static int j_end(weir_ctx *ctx)
{
    job_arg *a = weir_ctx_arg(ctx);
    int i = weir_ctx_subtask(ctx);
    weir_broadcast_iter it;
    weir_broadcast_begin(ctx, 0, &it);
    const void *k, *v;
    uint64_t f = 0;
    while (weir_broadcast_next(&it, &k, &v)) {
        rkey rk;
        int64_t t;
        memcpy(&rk, k, sizeof rk);
        memcpy(&t, v, 8);
        f += tu_mix(tu_mix((uint64_t)rk.key) ^ (uint64_t)rk.from) ^ (uint64_t)t;
    }
    a->fingerprint[i] = (int64_t)f;
    a->count[i] = (int64_t)weir_broadcast_count(ctx, 0);
    a->ended[i] = 1;
    return 0;
}

static const weir_broadcast_vtable j_vt = {
    .version = WEIR_OPERATOR_VTABLE_V1,
    .open = j_open,
    .on_record = j_record,
    .on_broadcast = j_broadcast,
    .on_timer = j_timer,
    .on_end = j_end,
    .close = j_close,
};

static ev evs[NEV];
static int64_t ev_ts[NEV];
static rule rules[NRULES];
static int64_t rule_ts[NRULES];

static void make_input(void)
{
    uint64_t x = 11;
    for (int i = 0; i < NEV; i++) {
        x = tu_mix(x);
        evs[i] = (ev){(int64_t)(x % NKEYS), i};
        ev_ts[i] = i * 10;
    }
    for (int i = 0; i < NRULES; i++) {
        x = tu_mix(x);
        rules[i] = (rule){(int64_t)(x % NKEYS), (int64_t)(x >> 40)};
        rule_ts[i] = i * 150 + 5; /* spread over the events' time */
    }
}

static int64_t expected_rule(int64_t key, int64_t ts, int nrules)
{
    int64_t t = -1;
    for (int i = 0; i < nrules; i++)
        if (rules[i].key == key && rule_ts[i] <= ts)
            t = rules[i].threshold;
    return t;
}

static weir_stream *timestamps(weir_stream *s)
{
    return weir_stream_assign_timestamps(
        s, &(weir_timestamps_spec){.strategy = weir_watermarks_bounded(0)});
}

static void key_of_ev2(const void *elem, void *key, void *arg)
{
    (void)arg;
    memcpy(key, &((const ev *)elem)->key, 8);
}

static weir_collect *build(weir_job *job, job_arg *a, int p, const char *suffix, int nev,
                           int nrules)
{
    char uid[64];
    static const weir_broadcast_state_desc states[] = {{sizeof(rkey), sizeof(int64_t)}};
    weir_stream *e = weir_source_array(job, evs, (size_t)nev, sizeof(ev), ev_ts);
    snprintf(uid, sizeof uid, "events%s", suffix);
    weir_stream_set_uid(e, uid);
    weir_stream *r = weir_source_array(job, rules, (size_t)nrules, sizeof(rule), rule_ts);
    snprintf(uid, sizeof uid, "rules%s", suffix);
    weir_stream_set_uid(r, uid);
    weir_stream *keyed = weir_stream_key_by(
        timestamps(e), &(weir_key_spec){.key_size = 8, .extract = key_of_ev2});
    weir_stream *o = weir_stream_broadcast_process(
        keyed, timestamps(r),
        &(weir_broadcast_spec){.name = "apply", .vtable = &j_vt, .arg = a,
                               .out_size = sizeof(out), .parallelism = p, .states = states,
                               .nstates = 1});
    weir_stream_set_uid(o, "apply");
    weir_collect *c = NULL;
    cr_assert_not_null(weir_sink_collect(o, &c), "%s", weir_job_error(job));
    return c;
}

static void assert_same_state(const job_arg *a, int p, int64_t n)
{
    for (int i = 0; i < p; i++) {
        cr_assert(a->ended[i], "subtask %d did not end", i);
        cr_assert_eq(a->count[i], n, "subtask %d holds %lld rules", i, (long long)a->count[i]);
        cr_assert_eq(a->fingerprint[i], a->fingerprint[0], "subtask %d differs from 0", i);
    }
}

Test(broadcast_state, every_subtask_applies_the_rules_of_each_elements_time, .timeout = 60)
{
    make_input();
    for (int p = 1; p <= 3; p++) {
        job_arg a = {0};
        weir_job *job = tu_job(&(weir_job_config){.workers = 2, .parallelism = 1});
        weir_collect *c = build(job, &a, p, "", NEV, NRULES);
        tu_run_ok(job);
        cr_assert_eq(weir_collect_count(c), (size_t)NEV);
        int64_t seen[NKEYS] = {0};
        static char done[NEV];
        memset(done, 0, sizeof done);
        for (size_t i = 0; i < weir_collect_count(c); i++) {
            const out *o = weir_collect_elem(c, i);
            cr_assert(!done[o->value]);
            done[o->value] = 1;
            cr_assert_eq(o->ts, ev_ts[o->value]);
            cr_assert_eq(o->threshold, expected_rule(o->key, o->ts, NRULES),
                         "p %d: element %lld (key %lld at %lld) saw %lld", p, (long long)o->value,
                         (long long)o->key, (long long)o->ts, (long long)o->threshold);
            seen[o->key]++;
        }
        assert_same_state(&a, p, NRULES);
        weir_job_destroy(job);
    }
}

/* A final checkpoint at parallelism 2, restored at 3 and at 1 by a job with
 * new sources: every subtask has every rule, every key its count. */
Test(broadcast_state, restored_at_another_parallelism, .timeout = 60)
{
    make_input();
    char tmp[] = "/tmp/weir-broadcast-XXXXXX";
    cr_assert_not_null(mkdtemp(tmp));
    char chk[256];
    snprintf(chk, sizeof chk, "%s/chk", tmp);
    const int half = NEV / 2;
    job_arg a = {0};
    weir_job *job = tu_job(&(weir_job_config){.workers = 2, .parallelism = 1,
                                              .checkpoint = {.dir = chk}});
    build(job, &a, 2, "", half, NRULES);
    tu_run_ok(job);
    weir_job_destroy(job);
    assert_same_state(&a, 2, NRULES);
    int64_t before[NKEYS] = {0};
    for (int i = 0; i < half; i++)
        before[evs[i].key]++;

    for (int p = 1; p <= 3; p += 2) {
        job_arg b = {.direct = true};
        job = tu_job(&(weir_job_config){
            .workers = 2, .parallelism = 1,
            .checkpoint = {.restore_from = chk, .allow_non_restored_state = true}});
        /* new sources (their own uids), no new rules */
        weir_stream *e = weir_source_array(job, evs + half, NEV - half, sizeof(ev), ev_ts + half);
        weir_stream_set_uid(e, "events-2");
        weir_stream *r = weir_source_array(job, rules, 0, sizeof(rule), NULL);
        weir_stream_set_uid(r, "rules-2");
        weir_stream *keyed = weir_stream_key_by(
            e, &(weir_key_spec){.key_size = 8, .extract = key_of_ev2});
        static const weir_broadcast_state_desc states[] = {{sizeof(rkey), sizeof(int64_t)}};
        weir_stream *o = weir_stream_broadcast_process(
            keyed, r,
            &(weir_broadcast_spec){.name = "apply", .vtable = &j_vt, .arg = &b,
                                   .out_size = sizeof(out), .parallelism = p,
                                   .states = states, .nstates = 1});
        weir_stream_set_uid(o, "apply");
        weir_collect *c = NULL;
        cr_assert_not_null(weir_sink_collect(o, &c), "%s", weir_job_error(job));
        tu_run_ok(job);
        assert_same_state(&b, p, NRULES);
        cr_assert_eq(b.fingerprint[0], a.fingerprint[0]);
        cr_assert_eq(weir_collect_count(c), (size_t)(NEV - half));
        int64_t seen[NKEYS];
        memcpy(seen, before, sizeof seen);
        /* per key in arrival order (one source subtask: the array's order) */
        for (int i = half; i < NEV; i++) {
            int64_t k = evs[i].key;
            seen[k]++;
            bool found = false;
            for (size_t j = 0; j < weir_collect_count(c) && !found; j++) {
                const out *o2 = weir_collect_elem(c, j);
                if (o2->value != i)
                    continue;
                found = true;
                cr_assert_eq(o2->seen, seen[k], "p %d: element %d of key %lld", p, i,
                             (long long)k);
                cr_assert_eq(o2->threshold, expected_rule(k, INT64_MAX - 1, NRULES));
            }
            cr_assert(found, "element %d is missing", i);
        }
        weir_job_destroy(job);
    }
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp);
    cr_assert_eq(system(cmd), 0);
}

Test(broadcast_state, refused_specs)
{
    weir_job *job = tu_job(NULL);
    weir_stream *e = weir_source_array(job, evs, 1, sizeof(ev), NULL);
    weir_stream *r = weir_source_array(job, rules, 1, sizeof(rule), NULL);
    cr_assert_null(weir_stream_broadcast_process(
        e, r, &(weir_broadcast_spec){.vtable = &j_vt, .out_size = 8}));
    cr_assert(strstr(weir_job_error(job), "weir_stream_broadcast_process: nstates 0 is not in "
                                          "1..16"),
              "%s", weir_job_error(job));
    weir_job_destroy(job);
    job = tu_job(NULL);
    e = weir_source_array(job, evs, 1, sizeof(ev), NULL);
    r = weir_source_array(job, rules, 1, sizeof(rule), NULL);
    weir_broadcast_vtable no_bc = j_vt;
    no_bc.on_broadcast = NULL;
    cr_assert_null(weir_stream_broadcast_process(
        e, r, &(weir_broadcast_spec){.vtable = &no_bc, .out_size = 8}));
    cr_assert(strstr(weir_job_error(job), "on_record and on_broadcast is required"), "%s",
              weir_job_error(job));
    weir_job_destroy(job);
}
