/* test_transforms.c — the one-input transformations: map (including a change
 * of element size), filter, flat_map with 0..n outputs per input, and a
 * user's own operator through weir_stream_process with its full vtable and
 * a side output.
 *
 * Each runs in a real job (array or user source in, collect sink out), at
 * parallelism 1 so that the expected output is an exact sequence, computed
 * here by a plain loop. The process test checks the callback order the
 * operator API documents: open before any record, every record, the
 * watermarks the source emitted as they pass the output gate (strictly
 * increasing, ending with MAX), on_end after the last record and MAX, close
 * last; and that what on_end emits still reaches the sink.
 */
#include <criterion/criterion.h>
#include <stdatomic.h>
#include <string.h>

#include "support/weir_testutil.h"

/* ---- map ------------------------------------------------------------------ */

typedef struct wide {
    uint64_t v;
    uint64_t square;
    char text[24];
} wide;

static int widen(const void *in, void *out, void *arg)
{
    uint32_t x;
    memcpy(&x, in, 4);
    wide w = {.v = x, .square = (uint64_t)x * x};
    snprintf(w.text, sizeof w.text, "n%u+%d", x, *(const int *)arg);
    memcpy(out, &w, sizeof w);
    return 0;
}

static int narrow(const void *in, void *out, void *arg)
{
    (void)arg;
    wide w;
    memcpy(&w, in, sizeof w);
    uint8_t b = (uint8_t)(w.square & 0xff);
    memcpy(out, &b, 1);
    return 0;
}

Test(map, changes_element_size_and_keeps_timestamps, .timeout = 60)
{
    enum { N = 3000 };
    static uint32_t in[N];
    static int64_t ts[N];
    for (uint32_t i = 0; i < N; i++) {
        in[i] = i * 3;
        ts[i] = (int64_t)i - 500;
    }
    static int offset = 17;
    weir_job *job = tu_job(&(weir_job_config){.workers = 2});
    weir_stream *w = weir_stream_map(weir_source_array(job, in, N, 4, ts), sizeof(wide), widen,
                                     &offset);
    cr_assert_eq(weir_stream_elem_size(w), sizeof(wide));
    weir_collect *cw, *cb;
    weir_sink_collect(w, &cw);
    weir_stream *b = weir_stream_map(w, 1, narrow, NULL);
    cr_assert_eq(weir_stream_elem_size(b), 1u);
    weir_sink_collect(b, &cb);
    tu_run_ok(job);
    cr_assert_eq(weir_collect_count(cw), (size_t)N);
    cr_assert_eq(weir_collect_count(cb), (size_t)N);
    cr_assert_eq(weir_collect_elem_size(cw), sizeof(wide));
    cr_assert_eq(weir_collect_elem_size(cb), 1u);
    for (size_t i = 0; i < N; i++) {
        wide got;
        memcpy(&got, weir_collect_elem(cw, i), sizeof got);
        char text[24];
        snprintf(text, sizeof text, "n%u+17", in[i]);
        cr_assert_eq(got.v, in[i]);
        cr_assert_eq(got.square, (uint64_t)in[i] * in[i]);
        cr_assert_str_eq(got.text, text);
        cr_assert_eq(weir_collect_timestamp(cw, i), ts[i]);
        uint8_t byte;
        memcpy(&byte, weir_collect_elem(cb, i), 1);
        cr_assert_eq(byte, (uint8_t)(((uint64_t)in[i] * in[i]) & 0xff));
        cr_assert_eq(weir_collect_timestamp(cb, i), ts[i]);
    }
    weir_job_destroy(job);
}

/* ---- filter --------------------------------------------------------------- */

static int keep_multiples(const void *in, void *arg)
{
    uint64_t v;
    memcpy(&v, in, 8);
    return v % *(const uint64_t *)arg == 0;
}

Test(filter, keeps_exactly_what_the_predicate_accepts, .timeout = 60)
{
    enum { N = 10000 };
    static uint64_t in[N];
    static int64_t ts[N];
    for (uint64_t i = 0; i < N; i++) {
        in[i] = tu_mix(i) % 1000;
        ts[i] = (int64_t)i;
    }
    static const uint64_t three = 3;
    weir_job *job = tu_job(&(weir_job_config){.workers = 2});
    weir_collect *c;
    weir_stream *f = weir_stream_filter(weir_source_array(job, in, N, 8, ts), keep_multiples,
                                        (void *)&three);
    cr_assert_eq(weir_stream_elem_size(f), 8u);
    weir_sink_collect(f, &c);
    tu_run_ok(job);
    size_t k = 0;
    for (size_t i = 0; i < N; i++) {
        if (in[i] % 3 != 0)
            continue;
        cr_assert_lt(k, weir_collect_count(c));
        uint64_t v;
        memcpy(&v, weir_collect_elem(c, k), 8);
        cr_assert_eq(v, in[i], "kept element %zu is %llu, expected %llu", k,
                     (unsigned long long)v, (unsigned long long)in[i]);
        cr_assert_eq(weir_collect_timestamp(c, k), ts[i]);
        k++;
    }
    cr_assert_eq(weir_collect_count(c), k);
    cr_assert_gt(k, 0u);
    cr_assert_lt(k, (size_t)N);
    weir_job_destroy(job);
}

/* ---- flat_map ------------------------------------------------------------- */

typedef struct pair {
    uint32_t from, copy;
} pair;

/* Input v yields v % 4 outputs (0, 1, 2 or 3), each with its own timestamp. */
static int fan_out(weir_ctx *ctx, const void *in, int64_t ts, void *arg)
{
    (void)arg;
    uint32_t v;
    memcpy(&v, in, 4);
    for (uint32_t k = 0; k < v % 4; k++) {
        pair p = {v, k};
        int r = weir_emit(ctx, &p, ts * 10 + k);
        if (r < 0)
            return r;
    }
    return 0;
}

Test(flat_map, zero_to_n_outputs_in_order, .timeout = 60)
{
    enum { N = 2001 };
    static uint32_t in[N];
    static int64_t ts[N];
    for (uint32_t i = 0; i < N; i++) {
        in[i] = (uint32_t)(tu_mix(i) % 100);
        ts[i] = i;
    }
    weir_job *job = tu_job(&(weir_job_config){.workers = 2});
    weir_collect *c;
    weir_sink_collect(weir_stream_flat_map(weir_source_array(job, in, N, 4, ts), sizeof(pair),
                                           fan_out, NULL),
                      &c);
    tu_run_ok(job);
    size_t k = 0;
    for (size_t i = 0; i < N; i++) {
        for (uint32_t copy = 0; copy < in[i] % 4; copy++) {
            cr_assert_lt(k, weir_collect_count(c));
            pair p;
            memcpy(&p, weir_collect_elem(c, k), sizeof p);
            cr_assert_eq(p.from, in[i], "output %zu came from %u, expected %u", k, p.from, in[i]);
            cr_assert_eq(p.copy, copy);
            cr_assert_eq(weir_collect_timestamp(c, k), ts[i] * 10 + copy);
            k++;
        }
    }
    cr_assert_eq(weir_collect_count(c), k);
    weir_job_destroy(job);
}

/* ---- a user operator ------------------------------------------------------ */

/* A source that emits records and its own watermarks, including two the
 * output gate must drop (a repeat and a regression). */
typedef struct script_state {
    int step;
} script_state;

static int script_open(weir_ctx *ctx)
{
    weir_ctx_set_state(ctx, calloc(1, sizeof(script_state)));
    return weir_ctx_state(ctx) ? 0 : WEIR_ENOMEM;
}

/* All steps in one next() call: records and watermarks emitted together,
 * so a chained consumer only sees the right order if the chain buffer is
 * flushed before each watermark leaves. */
static int script_next(weir_ctx *ctx)
{
    script_state *s = weir_ctx_state(ctx);
    /* record(ts) ... as (kind, value): 0 record, 1 watermark */
    static const int64_t script[][2] = {
        {0, 10}, {0, 20}, {1, 15}, {0, 30}, {1, 15}, {1, 12}, {0, 5}, {1, 40}, {0, 50}, {0, 60},
    };
    enum { STEPS = sizeof script / sizeof script[0] };
    for (; s->step < STEPS; s->step++) {
        int64_t kind = script[s->step][0], value = script[s->step][1];
        int r;
        if (kind == 0) {
            uint64_t v = (uint64_t)value;
            r = weir_emit(ctx, &v, value);
        } else {
            r = weir_emit_watermark(ctx, value);
        }
        if (r < 0)
            return r;
    }
    return WEIR_SOURCE_END;
}

static void script_close(weir_ctx *ctx)
{
    free(weir_ctx_state(ctx));
}

static const weir_source_vtable script_vtable = {
    .version = WEIR_SOURCE_VTABLE_V1,
    .open = script_open,
    .next = script_next,
    .close = script_close,
};

/* What the operator saw, in order, as one event log. */
enum { EV_OPEN = 1, EV_RECORD, EV_WATERMARK, EV_END, EV_CLOSE };
typedef struct event {
    int kind;
    int64_t value;
} event;

typedef struct probe {
    event log[64];
    int n;
    _Atomic int closes;
} probe;

static void log_event(weir_ctx *ctx, int kind, int64_t value)
{
    probe *p = weir_ctx_arg(ctx);
    if (p->n < 64)
        p->log[p->n++] = (event){kind, value};
}

enum { SIDE_TAG = 3 };
typedef struct side_rec {
    uint64_t value;
    int64_t wm_at_arrival;
} side_rec;

static int probe_open(weir_ctx *ctx)
{
    tu_check(weir_ctx_in_size(ctx, 0) == 8, "in size %zu", weir_ctx_in_size(ctx, 0));
    tu_check(weir_ctx_out_size(ctx) == 8, "out size %zu", weir_ctx_out_size(ctx));
    tu_check(strcmp(weir_ctx_name(ctx), "probe") == 0, "name %s", weir_ctx_name(ctx));
    tu_check(weir_ctx_key(ctx) == NULL, "a key on an unkeyed input");
    tu_check(weir_ctx_watermark(ctx) == WEIR_TS_MIN, "watermark before any: %lld",
             (long long)weir_ctx_watermark(ctx));
    log_event(ctx, EV_OPEN, 0);
    return 0;
}

/* Records with an odd value go to the side output with the watermark
 * current at their arrival; even ones to the main output, doubled. */
static int probe_record(weir_ctx *ctx, int input, const void *elem, int64_t ts)
{
    tu_check(input == 0, "input %d", input);
    uint64_t v;
    memcpy(&v, elem, 8);
    log_event(ctx, EV_RECORD, (int64_t)v);
    if (v % 2) {
        side_rec s = {v, weir_ctx_watermark(ctx)};
        return weir_emit_side(ctx, SIDE_TAG, &s, ts);
    }
    uint64_t out = v * 2;
    return weir_emit(ctx, &out, ts);
}

static int probe_watermark(weir_ctx *ctx, int64_t wm)
{
    tu_check(weir_ctx_watermark(ctx) == wm, "on_watermark(%lld) but current is %lld",
             (long long)wm, (long long)weir_ctx_watermark(ctx));
    log_event(ctx, EV_WATERMARK, wm);
    return weir_emit_watermark(ctx, wm);
}

static int probe_end(weir_ctx *ctx)
{
    log_event(ctx, EV_END, 0);
    uint64_t last = 999;
    return weir_emit(ctx, &last, 1000);
}

static void probe_close(weir_ctx *ctx)
{
    probe *p = weir_ctx_arg(ctx);
    log_event(ctx, EV_CLOSE, 0);
    atomic_fetch_add(&p->closes, 1);
}

static const weir_operator_vtable probe_vtable = {
    .version = WEIR_OPERATOR_VTABLE_V1,
    .open = probe_open,
    .on_record = probe_record,
    .on_watermark = probe_watermark,
    .on_end = probe_end,
    .close = probe_close,
};

static void run_probe(bool disable_chaining)
{
    static probe p;
    memset(&p, 0, sizeof p);
    weir_job *job = tu_job(&(weir_job_config){.workers = 2, .disable_chaining = disable_chaining});
    weir_source_spec src = {.vtable = &script_vtable, .elem_size = 8};
    static const weir_side_output_spec sides[] = {{.tag = SIDE_TAG, .elem_size = sizeof(side_rec)}};
    weir_process_spec spec = {
        .name = "probe",
        .kind = "probe_kind",
        .vtable = &probe_vtable,
        .arg = &p,
        .out_size = 8,
        .side_outputs = sides,
        .nside = 1,
    };
    weir_stream *out = weir_stream_process(weir_job_add_source(job, &src), &spec);
    weir_stream *side = weir_stream_side_output(out, SIDE_TAG);
    cr_assert_not_null(side, "%s", weir_job_error(job));
    cr_assert_eq(weir_stream_elem_size(side), sizeof(side_rec));
    weir_collect *cm, *cs;
    weir_sink_collect(out, &cm);
    weir_sink_collect(side, &cs);
    tu_run_ok(job);

    const event expected[] = {
        {EV_OPEN, 0},       {EV_RECORD, 10}, {EV_RECORD, 20},          {EV_WATERMARK, 15},
        {EV_RECORD, 30},    {EV_RECORD, 5},  {EV_WATERMARK, 40},       {EV_RECORD, 50},
        {EV_RECORD, 60},    {EV_WATERMARK, WEIR_TS_MAX}, {EV_END, 0}, {EV_CLOSE, 0},
    };
    enum { NEXP = sizeof expected / sizeof expected[0] };
    cr_assert_eq(p.n, NEXP, "the operator saw %d events, expected %d", p.n, NEXP);
    for (int i = 0; i < NEXP; i++) {
        cr_assert_eq(p.log[i].kind, expected[i].kind, "event %d is kind %d, expected %d", i,
                     p.log[i].kind, expected[i].kind);
        cr_assert_eq(p.log[i].value, expected[i].value, "event %d has value %lld, expected %lld",
                     i, (long long)p.log[i].value, (long long)expected[i].value);
    }
    cr_assert_eq(atomic_load(&p.closes), 1);

    /* Main: the even values doubled, then on_end's record. */
    static const uint64_t main_exp[] = {20, 40, 60, 100, 120, 999};
    static const int64_t main_ts[] = {10, 20, 30, 50, 60, 1000};
    cr_assert_eq(weir_collect_count(cm), 6u);
    for (size_t i = 0; i < 6; i++) {
        uint64_t v;
        memcpy(&v, weir_collect_elem(cm, i), 8);
        cr_assert_eq(v, main_exp[i], "main output %zu: %llu", i, (unsigned long long)v);
        cr_assert_eq(weir_collect_timestamp(cm, i), main_ts[i]);
    }
    /* Side: the odd value 5, late behind watermark 15. */
    cr_assert_eq(weir_collect_count(cs), 1u);
    side_rec s;
    memcpy(&s, weir_collect_elem(cs, 0), sizeof s);
    cr_assert_eq(s.value, 5u);
    cr_assert_eq(s.wm_at_arrival, 15);
    cr_assert_eq(weir_collect_timestamp(cs, 0), 5);
    weir_job_destroy(job);
}

Test(process, callback_order_outputs_and_side_output, .timeout = 60)
{
    run_probe(false);
}

Test(process, same_behind_channels, .timeout = 60)
{
    run_probe(true);
}

/* An operator without the optional callbacks (tu_pass_vtable): records pass
 * through on_record, the default on_watermark forwards, and the job ends. */

/* A sink that records the watermarks reaching it: what the default
 * on_watermark of the operator before it forwarded. */
typedef struct wm_log {
    int64_t wm[16];
    int n;
} wm_log;

static int wmlog_record(weir_ctx *ctx, int input, const void *elem, int64_t ts)
{
    (void)ctx;
    (void)input;
    (void)elem;
    (void)ts;
    return 0;
}

static int wmlog_watermark(weir_ctx *ctx, int64_t wm)
{
    wm_log *l = weir_ctx_arg(ctx);
    if (l->n < 16)
        l->wm[l->n++] = wm;
    return 0;
}

static const weir_operator_vtable wmlog_vtable = {
    .version = WEIR_OPERATOR_VTABLE_V1,
    .on_record = wmlog_record,
    .on_watermark = wmlog_watermark,
};

Test(process, defaults_forward_watermarks, .timeout = 60)
{
    static wm_log log;
    weir_job *job = tu_job(&(weir_job_config){.workers = 2, .disable_chaining = true});
    weir_source_spec src = {.vtable = &script_vtable, .elem_size = 8};
    weir_process_spec pass = {.vtable = &tu_pass_vtable, .out_size = 8};
    weir_process_spec sink = {.vtable = &wmlog_vtable, .arg = &log};
    weir_stream *s = weir_stream_process(weir_job_add_source(job, &src), &pass);
    cr_assert_not_null(weir_stream_process(s, &sink));
    tu_run_ok(job);
    cr_assert_eq(log.n, 3, "%d watermarks reached the sink", log.n);
    cr_assert_eq(log.wm[0], 15);
    cr_assert_eq(log.wm[1], 40);
    cr_assert_eq(log.wm[2], WEIR_TS_MAX);
    weir_job_destroy(job);
}

/* ---- batch-at-a-time operators -------------------------------------------- */

/* The probe again, with an on_batch: runs of records must arrive with the
 * same values, in the same order and in the same place relative to the
 * watermarks as single records did (the chain buffer is flushed before a
 * watermark leaves), whether the run comes from a chain buffer or from a
 * channel batch. */
static int probe_batch(weir_ctx *ctx, int input, const weir_batch *b)
{
    for (uint32_t i = 0; i < b->count; i++) {
        int r = probe_record(ctx, input, weir_batch_elem(b, i), weir_batch_ts(b, i));
        if (r < 0)
            return r;
    }
    return 0;
}

static const weir_operator_vtable probe_batch_vtable = {
    .version = WEIR_OPERATOR_VTABLE_V1,
    .open = probe_open,
    .on_record = probe_record,
    .on_watermark = probe_watermark,
    .on_end = probe_end,
    .close = probe_close,
    .on_batch = probe_batch,
};

static void run_probe_batch(bool disable_chaining, int batch_capacity)
{
    static probe p;
    memset(&p, 0, sizeof p);
    weir_job *job = tu_job(&(weir_job_config){
        .workers = 2, .disable_chaining = disable_chaining, .batch_capacity = batch_capacity});
    weir_source_spec src = {.vtable = &script_vtable, .elem_size = 8};
    static const weir_side_output_spec sides[] = {{.tag = SIDE_TAG, .elem_size = sizeof(side_rec)}};
    weir_process_spec spec = {.name = "probe",
                              .vtable = &probe_batch_vtable,
                              .arg = &p,
                              .out_size = 8,
                              .side_outputs = sides,
                              .nside = 1};
    weir_stream *out = weir_stream_process(weir_job_add_source(job, &src), &spec);
    weir_collect *cm, *cs;
    weir_sink_collect(out, &cm);
    weir_sink_collect(weir_stream_side_output(out, SIDE_TAG), &cs);
    tu_run_ok(job);
    const event expected[] = {
        {EV_OPEN, 0},    {EV_RECORD, 10}, {EV_RECORD, 20},          {EV_WATERMARK, 15},
        {EV_RECORD, 30}, {EV_RECORD, 5},  {EV_WATERMARK, 40},       {EV_RECORD, 50},
        {EV_RECORD, 60}, {EV_WATERMARK, WEIR_TS_MAX}, {EV_END, 0}, {EV_CLOSE, 0},
    };
    enum { NEXP = sizeof expected / sizeof expected[0] };
    cr_assert_eq(p.n, NEXP, "the operator saw %d events, expected %d", p.n, NEXP);
    for (int i = 0; i < NEXP; i++) {
        cr_assert_eq(p.log[i].kind, expected[i].kind, "event %d is kind %d, expected %d", i,
                     p.log[i].kind, expected[i].kind);
        cr_assert_eq(p.log[i].value, expected[i].value, "event %d has value %lld, expected %lld",
                     i, (long long)p.log[i].value, (long long)expected[i].value);
    }
    cr_assert_eq(weir_collect_count(cm), 6u);
    cr_assert_eq(weir_collect_count(cs), 1u);
    weir_job_destroy(job);
}

Test(process, on_batch_chained, .timeout = 60)
{
    run_probe_batch(false, 0);
}

Test(process, on_batch_over_a_channel, .timeout = 60)
{
    run_probe_batch(true, 0);
}

Test(process, on_batch_one_record_batches, .timeout = 60)
{
    run_probe_batch(false, 1);
}

/* A keyed input never goes through on_batch: each record needs its key. */
typedef struct keyed_batch_probe {
    _Atomic int batches, records, keyless;
} keyed_batch_probe;

static int kb_record(weir_ctx *ctx, int input, const void *elem, int64_t ts)
{
    (void)input;
    (void)ts;
    keyed_batch_probe *p = weir_ctx_arg(ctx);
    if (!weir_ctx_key(ctx) || memcmp(weir_ctx_key(ctx), elem, 8) != 0)
        atomic_fetch_add(&p->keyless, 1);
    atomic_fetch_add(&p->records, 1);
    return 0;
}

static int kb_batch(weir_ctx *ctx, int input, const weir_batch *b)
{
    (void)input;
    keyed_batch_probe *p = weir_ctx_arg(ctx);
    atomic_fetch_add(&p->batches, 1);
    return 0;
}

static const weir_operator_vtable kb_vtable = {
    .version = WEIR_OPERATOR_VTABLE_V1,
    .on_record = kb_record,
    .on_batch = kb_batch,
};

static void key_u64(const void *elem, void *key, void *arg)
{
    (void)arg;
    memcpy(key, elem, 8);
}

Test(process, keyed_input_bypasses_on_batch, .timeout = 60)
{
    enum { N = 5000 };
    static uint64_t vals[N];
    for (uint64_t i = 0; i < N; i++)
        vals[i] = i % 97;
    static keyed_batch_probe p;
    weir_job *job = tu_job(&(weir_job_config){.workers = 2});
    weir_key_spec key = {.key_size = 8, .extract = key_u64};
    weir_process_spec spec = {.vtable = &kb_vtable, .arg = &p, .parallelism = 2};
    weir_stream_process(weir_stream_key_by(weir_source_array(job, vals, N, 8, NULL), &key), &spec);
    tu_run_ok(job);
    cr_assert_eq(atomic_load(&p.batches), 0, "on_batch called on a keyed input");
    cr_assert_eq(atomic_load(&p.records), N);
    cr_assert_eq(atomic_load(&p.keyless), 0, "a record arrived without its key");
    weir_job_destroy(job);
}

/* ---- emitting in place ---------------------------------------------------- */

/* weir_emit_reserve / weir_emit_commit must be equivalent to weir_emit on
 * every kind of output: chained only, one channel, a hash partitioner
 * (several channels), a broadcast, and chained plus channels at once. */
static int reserve_record(weir_ctx *ctx, int input, const void *elem, int64_t ts)
{
    (void)input;
    uint64_t v;
    memcpy(&v, elem, 8);
    uint64_t *out = weir_emit_reserve(ctx);
    if (!out)
        return weir_ctx_error(ctx);
    uint64_t w = v * 10 + 1;
    memcpy(out, &w, 8);
    return weir_emit_commit(ctx, ts + 1);
}

static const weir_operator_vtable reserve_vtable = {
    .version = WEIR_OPERATOR_VTABLE_V1,
    .on_record = reserve_record,
};

static void check_reserved(const weir_collect *c, size_t n, size_t copies, const char *what)
{
    cr_assert_eq(weir_collect_count(c), n * copies, "%s: %zu records", what,
                 weir_collect_count(c));
    uint64_t *hits = calloc(n, sizeof *hits);
    for (size_t i = 0; i < n * copies; i++) {
        uint64_t w;
        memcpy(&w, weir_collect_elem(c, i), 8);
        cr_assert_eq(w % 10, 1u, "%s: value %llu not written in place", what,
                     (unsigned long long)w);
        uint64_t v = w / 10;
        cr_assert_lt(v, (uint64_t)n);
        cr_assert_eq(weir_collect_timestamp(c, i), (int64_t)v + 1, "%s: timestamp", what);
        hits[v]++;
    }
    for (size_t v = 0; v < n; v++)
        cr_assert_eq(hits[v], (uint64_t)copies, "%s: value %zu arrived %llu times", what, v,
                     (unsigned long long)hits[v]);
    free(hits);
}

Test(process, emit_reserve_commit_every_output_kind, .timeout = 60)
{
    enum { N = 3001 };
    static uint64_t vals[N];
    static int64_t ts[N];
    for (uint64_t i = 0; i < N; i++) {
        vals[i] = i;
        ts[i] = (int64_t)i;
    }
    weir_key_spec key = {.key_size = 8, .extract = key_u64};
    for (int kind = 0; kind < 5; kind++) {
        weir_job *job = tu_job(&(weir_job_config){.workers = 2, .batch_capacity = 64});
        weir_process_spec spec = {.vtable = &reserve_vtable, .out_size = 8};
        weir_stream *r = weir_stream_process(weir_source_array(job, vals, N, 8, ts), &spec);
        weir_collect *c, *c2 = NULL;
        size_t copies = 1;
        const char *what;
        if (kind == 0) {
            what = "chained";
            weir_sink_collect(r, &c);
        } else if (kind == 1) {
            what = "one channel";
            weir_sink_collect(weir_stream_rebalance(r), &c);
        } else if (kind == 2) {
            what = "hash";
            weir_stream_set_parallelism(weir_sink_collect(weir_stream_key_by(r, &key), &c), 3);
        } else if (kind == 3) {
            what = "broadcast";
            weir_stream_set_parallelism(weir_sink_collect(weir_stream_broadcast(r), &c), 2);
            copies = 2;
        } else {
            what = "chained and a channel";
            weir_sink_collect(r, &c);
            weir_stream_set_parallelism(weir_sink_collect(weir_stream_rebalance(r), &c2), 2);
        }
        tu_run_ok(job);
        check_reserved(c, N, copies, what);
        if (c2)
            check_reserved(c2, N, 1, "the channel beside a chain");
        weir_job_destroy(job);
    }
}

/* ---- forwarding whole batches ---------------------------------------------- */

/* weir_emit_batch must be equivalent to weir_emit of each record, in order,
 * on every kind of output, whether the batch comes from a chain buffer or a
 * channel, and whatever room the chained buffer has left (batches of 64
 * into a buffer that fills part-way through a run). */
static int forward_batch(weir_ctx *ctx, int input, const weir_batch *b)
{
    return weir_emit_batch(ctx, input, b);
}

static int forward_record(weir_ctx *ctx, int input, const void *elem, int64_t ts)
{
    (void)input;
    return weir_emit(ctx, elem, ts);
}

static const weir_operator_vtable forward_vtable = {
    .version = WEIR_OPERATOR_VTABLE_V1,
    .on_record = forward_record,
    .on_batch = forward_batch,
};

/* Every value 0..n-1 arrives `copies` times with its timestamp (3 v + 7);
 * where one producer feeds one consumer, in order. */
static void check_forwarded(const weir_collect *c, size_t n, size_t copies, bool ordered,
                            const char *what)
{
    cr_assert_eq(weir_collect_count(c), n * copies, "%s: %zu records, expected %zu", what,
                 weir_collect_count(c), n * copies);
    uint64_t *hits = calloc(n, sizeof *hits);
    for (size_t i = 0; i < n * copies; i++) {
        uint64_t v;
        memcpy(&v, weir_collect_elem(c, i), 8);
        cr_assert_lt(v, (uint64_t)n, "%s: value %llu", what, (unsigned long long)v);
        cr_assert_eq(weir_collect_timestamp(c, i), (int64_t)(3 * v + 7), "%s: timestamp", what);
        if (ordered)
            cr_assert_eq(v, (uint64_t)i, "%s: record %zu is value %llu", what, i,
                         (unsigned long long)v);
        hits[v]++;
    }
    for (size_t v = 0; v < n; v++)
        cr_assert_eq(hits[v], (uint64_t)copies, "%s: value %zu arrived %llu times", what, v,
                     (unsigned long long)hits[v]);
    free(hits);
}

/* Every record twice: a batch, then the same batch again, so that the
 * second copy finds the chained buffer part-full and fills it mid-batch. */
static int twice_batch(weir_ctx *ctx, int input, const weir_batch *b)
{
    int r = weir_emit_batch(ctx, input, b);
    return r < 0 ? r : weir_emit_batch(ctx, input, b);
}

static int twice_record(weir_ctx *ctx, int input, const void *elem, int64_t ts)
{
    (void)input;
    int r = weir_emit(ctx, elem, ts);
    return r < 0 ? r : weir_emit(ctx, elem, ts);
}

static const weir_operator_vtable twice_vtable = {
    .version = WEIR_OPERATOR_VTABLE_V1,
    .on_record = twice_record,
    .on_batch = twice_batch,
};

/* The first third of a batch one record at a time, the rest as a batch: a
 * forwarded batch must leave after the records emitted before it. */
static int split_batch(weir_ctx *ctx, int input, const weir_batch *b)
{
    uint32_t k = b->count / 3;
    for (uint32_t i = 0; i < k; i++) {
        int r = weir_emit(ctx, weir_batch_elem(b, i), weir_batch_ts(b, i));
        if (r < 0)
            return r;
    }
    weir_batch rest = {.data = b->data + (size_t)k * b->stride, .count = b->count - k,
                       .stride = b->stride};
    return weir_emit_batch(ctx, input, &rest);
}

static const weir_operator_vtable split_vtable = {
    .version = WEIR_OPERATOR_VTABLE_V1,
    .on_record = forward_record,
    .on_batch = split_batch,
};

/* A source that emits values 0..FWD_N-1 (timestamp 3 v + 7) in calls of 37
 * records, so that chained buffers of 64 fill part-way through a batch. */
enum { FWD_N = 3001, FWD_CHUNK = 37 };

static int chunky_open(weir_ctx *ctx)
{
    uint64_t *next = calloc(1, sizeof *next);
    if (!next)
        return WEIR_ENOMEM;
    weir_ctx_set_state(ctx, next);
    return 0;
}

static int chunky_next(weir_ctx *ctx)
{
    uint64_t *next = weir_ctx_state(ctx);
    for (int k = 0; k < FWD_CHUNK && *next < FWD_N; k++, (*next)++) {
        int r = weir_emit(ctx, next, (int64_t)(3 * *next + 7));
        if (r < 0)
            return r;
    }
    return *next < FWD_N ? WEIR_SOURCE_MORE : WEIR_SOURCE_END;
}

static void chunky_close(weir_ctx *ctx)
{
    free(weir_ctx_state(ctx));
}

static const weir_source_vtable chunky_vtable = {
    .version = WEIR_SOURCE_VTABLE_V1,
    .open = chunky_open,
    .next = chunky_next,
    .close = chunky_close,
};

Test(process, emit_batch_every_output_kind, .timeout = 60)
{
    enum { N = FWD_N };
    weir_key_spec key = {.key_size = 8, .extract = key_u64};
    for (int run = 0; run < 6; run++) {
        bool unchained = run & 1, twice = (run & 6) == 2, split = run & 4;
        for (int kind = 0; kind < 5; kind++) {
            weir_job *job = tu_job(&(weir_job_config){
                .workers = 2, .batch_capacity = 64, .disable_chaining = unchained});
            weir_process_spec spec = {.vtable = &forward_vtable, .out_size = 8};
            weir_process_spec second = {.vtable = twice   ? &twice_vtable
                                                  : split ? &split_vtable
                                                          : &forward_vtable,
                                        .out_size = 8};
            /* Two forwarders: the second gets its input as batches from
             * the first's chain buffer (or from a channel, unchained); when it
             * sends each batch twice, the second copy fills its buffer
             * mid-batch; when it splits each batch, its first records go
             * one by one before the rest as a batch. */
            weir_source_spec src = {.vtable = &chunky_vtable, .elem_size = 8};
            weir_stream *s = weir_job_add_source(job, &src);
            s = weir_stream_process(weir_stream_process(s, &spec), &second);
            weir_collect *c, *c2 = NULL;
            size_t copies = twice ? 2 : 1;
            bool ordered = !twice;
            const char *what;
            if (kind == 0) {
                what = "chained";
                weir_sink_collect(s, &c);
            } else if (kind == 1) {
                what = "one channel";
                weir_sink_collect(weir_stream_rebalance(s), &c);
            } else if (kind == 2) {
                what = "hash";
                weir_stream_set_parallelism(weir_sink_collect(weir_stream_key_by(s, &key), &c), 3);
                ordered = false;
            } else if (kind == 3) {
                what = "broadcast";
                weir_stream_set_parallelism(weir_sink_collect(weir_stream_broadcast(s), &c), 2);
                copies *= 2;
                ordered = false;
            } else {
                what = "chained and a channel";
                weir_sink_collect(s, &c);
                weir_stream_set_parallelism(weir_sink_collect(weir_stream_rebalance(s), &c2), 2);
            }
            tu_run_ok(job);
            check_forwarded(c, N, copies, ordered, what);
            if (c2)
                check_forwarded(c2, N, twice ? 2 : 1, false, "the channel beside a chain");
            weir_job_destroy(job);
        }
    }
}

/* A batch forwarded to an output of another element size is refused. */
static int widen_batch(weir_ctx *ctx, int input, const weir_batch *b)
{
    return weir_emit_batch(ctx, input, b);
}

static const weir_operator_vtable widen_vtable = {
    .version = WEIR_OPERATOR_VTABLE_V1,
    .on_record = forward_record,
    .on_batch = widen_batch,
};

Test(process, emit_batch_refuses_another_element_size, .timeout = 60)
{
    static uint64_t vals[4] = {1, 2, 3, 4};
    weir_job *job = tu_job(&(weir_job_config){.workers = 1});
    weir_process_spec spec = {.name = "widen", .vtable = &widen_vtable, .out_size = 16};
    weir_process_spec pass = {.vtable = &forward_vtable, .out_size = 8};
    weir_stream *s = weir_stream_process(weir_source_array(job, vals, 4, 8, NULL), &pass);
    weir_sink_discard(weir_stream_process(s, &spec));
    cr_assert_eq(weir_job_run(job), WEIR_ETYPE, "%s", weir_job_error(job));
    tu_assert_contains(weir_job_error(job), "widen", "weir_emit_batch", "8 bytes", "16");
    weir_job_destroy(job);
}
