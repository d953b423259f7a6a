/* test_valve_property.c — property tests of the valve (SEMANTICS.md 3) and
 * the combiner (SEMANTICS.md 4) on random message sequences.
 *
 * The rule-by-rule tests (test_valve.c, test_combiner.c) pin the cases we
 * thought of; these catch the ones we did not. A deterministic PRNG
 * (splitmix64, written here so a seed means the same run everywhere) drives
 * the valve through 500 random steps for each of 200 seeds and each channel
 * count from 1 to 8: watermarks that rise, repeat, go down, MIN and MAX,
 * channels going idle and active (repeats included, which the valve must
 * ignore). The combiner gets what valves can send it, alone and behind two
 * real valves. After every step two kinds of check run:
 *
 *   - properties that hold whatever the exact rules are: the output never goes
 *     backwards, never exceeds what was received, and a status leaves only
 *     when the output's status really changes (IDLE when the last active
 *     channel goes idle, ACTIVE when the first comes back);
 *   - equality with a reference model written here straight from the text of
 *     SEMANTICS.md, one function per paragraph, recomputing minima and maxima
 *     from the per-channel state each time and keeping the list of everything
 *     it emitted, from which it reads back its last watermark and status; the
 *     machine's actions of the step must equal what the model appended, and
 *     the whole lists must be equal at the end of each run.
 *
 * A failure names the channel count, the seed and the step, and prints the
 * run so far in the `weir script` format (SCRIPT.md), so it can be replayed
 * through `weir script` as well as read. Counters of the interesting moments
 * (flushes, ACTIVE lifting the output, unaligned channels...) are checked at
 * the end, so that a generator that stopped reaching them fails too.
 */
#include <criterion/criterion.h>

#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "valve.h"
#include "weir/time.h"

#define MAX_CHANNELS 8
#define SEEDS 200
#define STEPS 500

/* ---- deterministic randomness ------------------------------------------------ */

typedef struct rng {
    uint64_t s;
} rng;

static uint64_t rng_next(rng *r)
{
    uint64_t z = (r->s += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

/* Uniform enough in [0, n) for test generation (n is small). */
static int rng_below(rng *r, int n)
{
    return (int)(rng_next(r) % (uint64_t)n);
}

/* ---- messages and actions ---------------------------------------------------- */

enum { MSG_WM, MSG_IDLE, MSG_ACTIVE };

typedef struct msg {
    int kind;
    int c; /* channel, or input for the combiner */
    int64_t w;
} msg;

/* The actions of one step in a form the model can build and compare. */
typedef struct step_out {
    int n;
    weir__wm_action_kind kind[2];
    int64_t w[2];
} step_out;

/* Everything a machine (or its model) has emitted so far, in order. */
#define MAX_EMITTED (2 * STEPS)

typedef struct emitted {
    int n;
    weir__wm_action_kind kind[MAX_EMITTED];
    int64_t w[MAX_EMITTED];
} emitted;

static void emit_wm(emitted *e, int64_t w)
{
    cr_assert_lt(e->n, MAX_EMITTED);
    e->kind[e->n] = WEIR__ACT_WATERMARK;
    e->w[e->n] = w;
    e->n++;
}

static void emit_status(emitted *e, weir__wm_action_kind k)
{
    cr_assert_lt(e->n, MAX_EMITTED);
    e->kind[e->n] = k;
    e->w[e->n] = 0;
    e->n++;
}

/* The last watermark in the list, MIN if none: what "last_wm" means. */
static int64_t emitted_last_wm(const emitted *e)
{
    for (int i = e->n - 1; i >= 0; i--)
        if (e->kind[i] == WEIR__ACT_WATERMARK)
            return e->w[i];
    return WEIR_TS_MIN;
}

/* Whether the last status in the list is IDLE (the output starts active). */
static bool emitted_idle(const emitted *e)
{
    for (int i = e->n - 1; i >= 0; i--)
        if (e->kind[i] != WEIR__ACT_WATERMARK)
            return e->kind[i] == WEIR__ACT_IDLE;
    return false;
}

/* What was emitted from index `from` on: one step's output. More than two
 * actions cannot be represented and show as n = 3, which never compares
 * equal. */
static step_out emitted_since(const emitted *e, int from)
{
    step_out o = {0};
    for (int i = from; i < e->n; i++) {
        if (o.n == 2) {
            o.n = 3;
            break;
        }
        o.kind[o.n] = e->kind[i];
        o.w[o.n] = e->w[i];
        o.n++;
    }
    return o;
}

static void emitted_add(emitted *e, weir__wm_actions a)
{
    for (int i = 0; i < a.n && i < 2; i++) {
        if (a.act[i].kind == WEIR__ACT_WATERMARK)
            emit_wm(e, a.act[i].watermark);
        else
            emit_status(e, a.act[i].kind);
    }
}

static int fmt_ts(char *buf, size_t len, int64_t t)
{
    if (t == WEIR_TS_MIN)
        return snprintf(buf, len, "MIN");
    if (t == WEIR_TS_MAX)
        return snprintf(buf, len, "MAX");
    return snprintf(buf, len, "%" PRId64, t);
}

static void fmt_actions(char *buf, size_t len, int n, const weir__wm_action_kind *kind,
                        const int64_t *w)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int i = 0; i < n && used < len; i++) {
        int k = 0;
        if (i) {
            buf[used++] = ' ';
            buf[used] = '\0';
        }
        if (used >= len)
            break;
        if (kind[i] == WEIR__ACT_WATERMARK) {
            k = snprintf(buf + used, len - used, "wm ");
            if (k > 0 && used + (size_t)k < len)
                k += fmt_ts(buf + used + (size_t)k, len - used - (size_t)k, w[i]);
        } else if (kind[i] == WEIR__ACT_IDLE) {
            k = snprintf(buf + used, len - used, "idle");
        } else if (kind[i] == WEIR__ACT_ACTIVE) {
            k = snprintf(buf + used, len - used, "active");
        } else {
            k = snprintf(buf + used, len - used, "BAD kind=%d", (int)kind[i]);
        }
        if (k < 0)
            return;
        used += (size_t)k;
    }
    if (n == 0)
        snprintf(buf, len, "(nothing)");
}

/* ---- the run being checked, for failure reports ------------------------------ */

typedef struct run {
    const char *what;   /* "valve", "combiner", "chain" */
    int channels;       /* valve channels, or inputs */
    uint64_t seed;
    int step;
    msg hist[STEPS];
    bool dotted;        /* channel numbers as INPUT.CHANNEL */
    int split;          /* chain: channels of input 0 */
} run;

static void fmt_msg(char *buf, size_t len, const run *r, const msg *m)
{
    char ch[24];
    char ts[24];
    if (r->dotted) {
        int in = m->c < r->split ? 0 : 1;
        snprintf(ch, sizeof ch, "%d.%d", in, in ? m->c - r->split : m->c);
    } else {
        snprintf(ch, sizeof ch, "%d", m->c);
    }
    fmt_ts(ts, sizeof ts, m->w);
    if (m->kind == MSG_WM)
        snprintf(buf, len, "wm %s %s", ch, ts);
    else
        snprintf(buf, len, "%s %s", m->kind == MSG_IDLE ? "idle" : "active", ch);
}

/* Fails the test with the reason, the run's identity and its last messages. */
static void fail_run(const run *r, int line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void fail_run(const run *r, int line, const char *fmt, ...)
{
    static char report[32768];
    char reason[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(reason, sizeof reason, fmt, ap);
    va_end(ap);

    size_t used = (size_t)snprintf(report, sizeof report,
                                   "%s property failed (check at line %d): %s\n"
                                   "  channels=%d seed=%" PRIu64 " step=%d\n"
                                   "  the run so far, as a weir script:\n",
                                   r->what, line, reason, r->channels, r->seed, r->step);
    if (r->dotted)
        used += (size_t)snprintf(report + used, sizeof report - used,
                                 "    op passthrough inputs=%d+%d\n", r->split,
                                 r->channels - r->split);
    else
        used += (size_t)snprintf(report + used, sizeof report - used,
                                 "    op passthrough inputs=%d\n", r->channels);
    for (int i = 0; i <= r->step && i < STEPS && used < sizeof report; i++) {
        char m[64];
        fmt_msg(m, sizeof m, r, &r->hist[i]);
        used += (size_t)snprintf(report + used, sizeof report - used, "    %-24s # step %d\n",
                                 m, i);
    }
    cr_assert_fail("%s", report);
}

#define CHECK_EQUAL(r, got, want) check_equal((r), (got), (want), __LINE__)

#define CHECK(r, cond, ...)                                                      \
    do {                                                                         \
        if (!(cond))                                                             \
            fail_run((r), __LINE__, __VA_ARGS__);                                \
    } while (0)

/* Compares one call's actions with the model's, exactly; `line` is the
 * caller's, for the report. */
static void check_equal(const run *r, weir__wm_actions got, const step_out *want, int line)
{
    bool same = got.n == want->n;
    for (int i = 0; same && i < got.n; i++) {
        same = got.act[i].kind == want->kind[i] &&
               (want->kind[i] != WEIR__ACT_WATERMARK ||
                got.act[i].watermark == want->w[i]);
    }
    if (!same) {
        char g[96];
        char w[96];
        weir__wm_action_kind kinds[2] = {WEIR__ACT_WATERMARK, WEIR__ACT_WATERMARK};
        int64_t wms[2] = {0, 0};
        int n = got.n < 0 ? 0 : got.n > 2 ? 2 : got.n;
        for (int i = 0; i < n; i++) {
            kinds[i] = got.act[i].kind;
            wms[i] = got.act[i].watermark;
        }
        fmt_actions(g, sizeof g, n, kinds, wms);
        fmt_actions(w, sizeof w, want->n, want->kind, want->w);
        fail_run(r, line, "the last message gave \"%s\" (n=%d), the model \"%s\"", g,
                 got.n, w);
    }
}

/* The whole output of a run against the model's, once more at the end: the
 * per-step comparison implies it, this says so plainly. */
static void check_same_lists(const run *r, const emitted *got, const emitted *want)
{
    CHECK(r, got->n == want->n, "%d actions emitted in all, the model %d", got->n, want->n);
    for (int i = 0; i < got->n; i++)
        CHECK(r, got->kind[i] == want->kind[i] && got->w[i] == want->w[i],
              "action %d of the run differs from the model's", i);
}

/* Properties of one call's actions that hold whatever the machine: at most two,
 * known kinds, at most one watermark, ACTIVE only first, IDLE only last, no
 * MIN, and watermarks strictly above everything emitted before. Updates the
 * emitted status and last watermark the caller tracks from the output alone. */
static void check_shape(const run *r, weir__wm_actions a, int64_t *emitted_last,
                        bool *emitted_any, bool *output_idle)
{
    CHECK(r, a.n >= 0 && a.n <= 2, "%d actions", a.n);
    int wms = 0;
    for (int i = 0; i < a.n; i++) {
        weir__wm_action_kind k = a.act[i].kind;
        CHECK(r, k == WEIR__ACT_WATERMARK || k == WEIR__ACT_IDLE || k == WEIR__ACT_ACTIVE,
              "action %d has kind %d", i, (int)k);
        if (k == WEIR__ACT_WATERMARK) {
            int64_t w = a.act[i].watermark;
            wms++;
            CHECK(r, w != WEIR_TS_MIN, "MIN was emitted");
            CHECK(r, !*emitted_any || w > *emitted_last,
                  "watermark %" PRId64 " is not above the last emitted %" PRId64, w,
                  *emitted_last);
            CHECK(r, !*output_idle, "watermark %" PRId64 " emitted while the output is idle",
                  w);
            *emitted_last = w;
            *emitted_any = true;
        } else if (k == WEIR__ACT_IDLE) {
            CHECK(r, i == a.n - 1, "IDLE is not the last action");
            CHECK(r, !*output_idle, "IDLE emitted while the output is idle already");
            *output_idle = true;
        } else {
            CHECK(r, i == 0, "ACTIVE is not the first action");
            CHECK(r, *output_idle, "ACTIVE emitted while the output is active already");
            *output_idle = false;
        }
    }
    CHECK(r, wms <= 1, "%d watermarks in one step", wms);
}

static bool has_kind(weir__wm_actions a, weir__wm_action_kind k)
{
    for (int i = 0; i < a.n && i < 2; i++)
        if (a.act[i].kind == k)
            return true;
    return false;
}

/* ---- the valve's reference model (SEMANTICS.md 3, paragraph by paragraph) ---- */

/* The per-channel state of the spec, and the list of everything emitted. The
 * output's "last_wm" and "last_status" are not kept: they are read back from
 * that list each time (the last watermark in it, the last status in it), so
 * the model cannot let them drift from what it really emitted. */
typedef struct valve_model {
    int n;
    int64_t wm[MAX_CHANNELS];
    bool idle[MAX_CHANNELS];
    bool aligned[MAX_CHANNELS];
    emitted out;
} valve_model;

/* What happened inside the model on the last message, for the coverage
 * counters: nothing here feeds back into the checks. */
typedef struct valve_model_note {
    bool accepted;        /* a watermark passed rules 1 and 2 */
    bool realigned;       /* rule 3 aligned a channel again */
    bool flushed;         /* all idle, and the maximum was emitted */
    bool all_unaligned;   /* a recompute found no aligned channel */
    bool active_lifted;   /* ACTIVE's recompute emitted a watermark */
} valve_model_note;

static void vm_init(valve_model *m, int n)
{
    memset(m, 0, sizeof *m);
    m->n = n;
    for (int i = 0; i < n; i++) {
        m->wm[i] = WEIR_TS_MIN;
        m->idle[i] = false;
        m->aligned[i] = true;
    }
}

/* "the minimum wm over aligned channels", if any channel is aligned. The
 * spec's aligned channels are active ones: an idle channel is never aligned,
 * but the model checks both rather than rely on that. */
static bool vm_aligned_min(const valve_model *m, int64_t *min)
{
    bool found = false;
    for (int i = 0; i < m->n; i++) {
        if (m->idle[i] || !m->aligned[i])
            continue;
        if (!found || m->wm[i] < *min)
            *min = m->wm[i];
        found = true;
    }
    return found;
}

/* Rule 4, and the "recompute" of IDLE and ACTIVE. */
static void vm_emit_min(valve_model *m, valve_model_note *note)
{
    int64_t min = 0;
    if (!vm_aligned_min(m, &min)) {
        note->all_unaligned = true;
        return;
    }
    if (min > emitted_last_wm(&m->out))
        emit_wm(&m->out, min);
}

static void vm_watermark(valve_model *m, int c, int64_t w, valve_model_note *note)
{
    if (emitted_idle(&m->out) || m->idle[c]) /* rule 1 */
        return;
    if (!(w > m->wm[c])) /* rule 2 */
        return;
    note->accepted = true;
    m->wm[c] = w; /* rule 3 */
    if (!m->aligned[c] && w >= emitted_last_wm(&m->out)) {
        m->aligned[c] = true;
        note->realigned = true;
    }
    vm_emit_min(m, note); /* rule 4 */
}

static void vm_idle(valve_model *m, int c, valve_model_note *note)
{
    if (m->idle[c]) /* only on a change */
        return;
    m->idle[c] = true;
    m->aligned[c] = false;
    int active = 0;
    for (int i = 0; i < m->n; i++)
        active += !m->idle[i];
    if (active > 0) {
        vm_emit_min(m, note);
        return;
    }
    int64_t max = m->wm[0];
    for (int i = 1; i < m->n; i++)
        if (m->wm[i] > max)
            max = m->wm[i];
    if (max > emitted_last_wm(&m->out)) {
        emit_wm(&m->out, max);
        note->flushed = true;
    }
    emit_status(&m->out, WEIR__ACT_IDLE);
}

static void vm_active(valve_model *m, int c, valve_model_note *note)
{
    if (!m->idle[c]) /* only on a change */
        return;
    m->idle[c] = false;
    m->aligned[c] = m->wm[c] >= emitted_last_wm(&m->out);
    if (emitted_idle(&m->out))
        emit_status(&m->out, WEIR__ACT_ACTIVE);
    int before = m->out.n;
    vm_emit_min(m, note);
    note->active_lifted = m->out.n > before;
}

/* The held_by contract of valve.h, from the model's state. */
static int vm_held_by(const valve_model *m)
{
    int64_t min = 0;
    if (!vm_aligned_min(m, &min))
        return -1;
    for (int i = 0; i < m->n; i++)
        if (!m->idle[i] && m->aligned[i] && m->wm[i] == min)
            return i;
    return -1;
}

/* ---- message generation -------------------------------------------------------- */

typedef struct gen {
    int64_t base;                /* drifts upward: the "time" of the run */
    int64_t sent[MAX_CHANNELS];  /* last watermark sent on each channel */
    int p_idle;                  /* percent of messages that are IDLE */
    int p_active;                /* percent of messages that are ACTIVE */
} gen;

static void gen_init(gen *g, rng *r)
{
    /* Start below zero so runs cross it; vary the status mix per seed so that
     * some runs are mostly idle and some mostly active. */
    g->base = -100 + rng_below(r, 50);
    for (int i = 0; i < MAX_CHANNELS; i++)
        g->sent[i] = WEIR_TS_MIN;
    g->p_idle = 3 + rng_below(r, 25);
    g->p_active = 3 + rng_below(r, 25);
}

static int64_t gen_watermark(gen *g, rng *r, int c)
{
    int64_t prev = g->sent[c];
    int k = rng_below(r, 1000);
    int64_t w;
    if (k < 25) {
        w = WEIR_TS_MIN;
    } else if (k < 27) {
        w = WEIR_TS_MAX;
    } else if (k < 140) {
        w = prev; /* a repeat */
    } else if (k < 260) {
        /* A decrease (never below MIN). */
        int64_t d = 1 + rng_below(r, 40);
        w = prev > WEIR_TS_MIN + d ? prev - d : WEIR_TS_MIN;
    } else {
        w = g->base - 20 + rng_below(r, 70);
    }
    g->sent[c] = w;
    return w;
}

static msg gen_msg(gen *g, rng *r, int n)
{
    msg m = {0};
    g->base += rng_below(r, 4);
    m.c = rng_below(r, n);
    int roll = rng_below(r, 100);
    if (roll < g->p_idle) {
        m.kind = MSG_IDLE;
    } else if (roll < g->p_idle + g->p_active) {
        m.kind = MSG_ACTIVE;
    } else {
        m.kind = MSG_WM;
        m.w = gen_watermark(g, r, m.c);
    }
    return m;
}

/* ---- the valve property -------------------------------------------------------- */

typedef struct valve_counts {
    long steps, emitted_wm, emitted_idle, emitted_active;
    long flushed, all_unaligned, active_lifted, realigned, unaligned_accepted, max_emitted;
} valve_counts;

static run the_run; /* big: kept off the stack */

static void valve_run(int n, uint64_t seed, valve_counts *cnt)
{
    run *r = &the_run;
    memset(r, 0, sizeof *r);
    r->what = "valve";
    r->channels = n;
    r->seed = seed;

    rng rnd = {seed * 0x100000001b3u + (uint64_t)n};
    gen g;
    gen_init(&g, &rnd);

    weir__valve_channel storage[MAX_CHANNELS];
    weir__valve v;
    weir__valve_init(&v, storage, n);
    valve_model m;
    vm_init(&m, n);
    emitted got_all = {0};

    /* What the test knows from its own inputs and the valve's outputs only. */
    bool chan_idle[MAX_CHANNELS] = {false};
    int64_t chan_accepted[MAX_CHANNELS];
    for (int i = 0; i < n; i++)
        chan_accepted[i] = WEIR_TS_MIN;
    int64_t max_accepted = WEIR_TS_MIN;
    int64_t emitted_last = WEIR_TS_MIN;
    bool emitted_any = false;
    bool output_idle = false;

    for (int s = 0; s < STEPS; s++) {
        msg mm = gen_msg(&g, &rnd, n);
        r->step = s;
        r->hist[s] = mm;

        int active_before = 0;
        for (int i = 0; i < n; i++)
            active_before += !chan_idle[i];
        bool was_idle = chan_idle[mm.c];
        bool accepted = false;

        valve_model_note note = {0};
        weir__wm_actions got;
        step_out want;
        int from = m.out.n;
        bool unaligned_before = !m.idle[mm.c] && !m.aligned[mm.c];
        if (mm.kind == MSG_WM) {
            accepted = !chan_idle[mm.c] && mm.w > chan_accepted[mm.c];
            if (accepted) {
                chan_accepted[mm.c] = mm.w;
                if (mm.w > max_accepted)
                    max_accepted = mm.w;
            }
            got = weir__valve_watermark(&v, mm.c, mm.w);
            vm_watermark(&m, mm.c, mm.w, &note);
        } else if (mm.kind == MSG_IDLE) {
            chan_idle[mm.c] = true;
            got = weir__valve_idle(&v, mm.c);
            vm_idle(&m, mm.c, &note);
        } else {
            chan_idle[mm.c] = false;
            got = weir__valve_active(&v, mm.c);
            vm_active(&m, mm.c, &note);
        }
        want = emitted_since(&m.out, from);
        emitted_add(&got_all, got);
        int active_after = 0;
        for (int i = 0; i < n; i++)
            active_after += !chan_idle[i];

        /* Model-free properties. */
        check_shape(r, got, &emitted_last, &emitted_any, &output_idle);
        for (int i = 0; i < got.n && i < 2; i++) {
            if (got.act[i].kind != WEIR__ACT_WATERMARK)
                continue;
            int64_t w = got.act[i].watermark;
            CHECK(r, w <= max_accepted,
                  "emitted %" PRId64 " is above every accepted watermark (max %" PRId64 ")",
                  w, max_accepted);
            bool some_channel = false;
            for (int c = 0; c < n; c++)
                some_channel = some_channel || chan_accepted[c] == w;
            CHECK(r, some_channel, "emitted %" PRId64 " is no channel's watermark", w);
        }
        if (mm.kind == MSG_WM && !accepted)
            CHECK(r, got.n == 0, "a watermark that was not taken produced output");
        if (mm.kind == MSG_IDLE && was_idle)
            CHECK(r, got.n == 0, "a repeated IDLE produced output");
        if (mm.kind == MSG_ACTIVE && !was_idle)
            CHECK(r, got.n == 0, "a repeated ACTIVE produced output");
        CHECK(r, has_kind(got, WEIR__ACT_IDLE) == (active_before > 0 && active_after == 0),
              "IDLE %s, but %d channels were active before and %d after",
              has_kind(got, WEIR__ACT_IDLE) ? "emitted" : "not emitted", active_before,
              active_after);
        CHECK(r, has_kind(got, WEIR__ACT_ACTIVE) == (active_before == 0 && active_after > 0),
              "ACTIVE %s, but %d channels were active before and %d after",
              has_kind(got, WEIR__ACT_ACTIVE) ? "emitted" : "not emitted", active_before,
              active_after);
        CHECK(r, output_idle == (active_after == 0),
              "the output is %s but %d channels are active", output_idle ? "idle" : "active",
              active_after);

        /* The reference model. */
        CHECK_EQUAL(r, got, &want);
        CHECK(r, v.last_wm == emitted_last_wm(&m.out), "last_wm %" PRId64 ", the model %" PRId64,
              v.last_wm, emitted_last_wm(&m.out));
        CHECK(r, weir__valve_held_by(&v) == vm_held_by(&m), "held_by %d, the model %d",
              weir__valve_held_by(&v), vm_held_by(&m));

        cnt->steps++;
        for (int i = 0; i < got.n && i < 2; i++) {
            cnt->emitted_wm += got.act[i].kind == WEIR__ACT_WATERMARK;
            cnt->emitted_idle += got.act[i].kind == WEIR__ACT_IDLE;
            cnt->emitted_active += got.act[i].kind == WEIR__ACT_ACTIVE;
            cnt->max_emitted += got.act[i].kind == WEIR__ACT_WATERMARK &&
                                got.act[i].watermark == WEIR_TS_MAX;
        }
        cnt->flushed += note.flushed;
        cnt->all_unaligned += note.all_unaligned && active_after > 0;
        cnt->active_lifted += note.active_lifted;
        cnt->realigned += note.realigned;
        cnt->unaligned_accepted += unaligned_before && note.accepted;
    }
    check_same_lists(r, &got_all, &m.out);
}

Test(valve_property, the_valve_matches_the_model_and_its_output_only_moves_forward)
{
    valve_counts cnt = {0};
    for (int n = 1; n <= MAX_CHANNELS; n++)
        for (uint64_t seed = 0; seed < SEEDS; seed++)
            valve_run(n, seed, &cnt);

    cr_log_info("valve: %ld steps, %ld watermarks, %ld IDLE, %ld ACTIVE, %ld flushes, "
                "%ld recomputes with no aligned channel, %ld ACTIVE lifting the output, "
                "%ld realignments, %ld watermarks on unaligned channels, %ld MAX",
                cnt.steps, cnt.emitted_wm, cnt.emitted_idle, cnt.emitted_active, cnt.flushed,
                cnt.all_unaligned, cnt.active_lifted, cnt.realigned, cnt.unaligned_accepted,
                cnt.max_emitted);
    /* The generator must reach every interesting moment, often. */
    cr_assert_eq(cnt.steps, (long)MAX_CHANNELS * SEEDS * STEPS);
    cr_assert_gt(cnt.emitted_wm, 10000);
    cr_assert_gt(cnt.emitted_idle, 1000);
    cr_assert_gt(cnt.emitted_active, 1000);
    cr_assert_gt(cnt.flushed, 100);
    cr_assert_gt(cnt.all_unaligned, 100);
    cr_assert_gt(cnt.active_lifted, 50);
    cr_assert_gt(cnt.realigned, 100);
    cr_assert_gt(cnt.unaligned_accepted, 100);
    cr_assert_gt(cnt.max_emitted, 100);
}

/* ---- the combiner's reference model (SEMANTICS.md 4) ------------------------- */

/* Per input its last watermark and status, and the list of everything
 * emitted; the operator's last watermark and status are read back from it. */
typedef struct combiner_model {
    int n;
    int64_t wm[WEIR__MAX_INPUTS];
    bool idle[WEIR__MAX_INPUTS];
    emitted out;
} combiner_model;

static void cm_init(combiner_model *m, int n)
{
    memset(m, 0, sizeof *m);
    m->n = n;
    for (int i = 0; i < n && i < WEIR__MAX_INPUTS; i++)
        m->wm[i] = WEIR_TS_MIN;
}

/* "the minimum over the inputs that are not idle, emitted only when it
 * increases" */
static void cm_emit_min(combiner_model *m)
{
    bool found = false;
    int64_t min = 0;
    for (int i = 0; i < m->n; i++) {
        if (m->idle[i])
            continue;
        if (!found || m->wm[i] < min)
            min = m->wm[i];
        found = true;
    }
    if (found && min > emitted_last_wm(&m->out))
        emit_wm(&m->out, min);
}

static void cm_watermark(combiner_model *m, int in, int64_t w)
{
    if (w > m->wm[in])
        m->wm[in] = w;
    cm_emit_min(m);
}

static void cm_status(combiner_model *m, int in, bool idle)
{
    if (m->idle[in] == idle)
        return;
    m->idle[in] = idle;
    bool all_idle = true;
    for (int i = 0; i < m->n; i++)
        all_idle = all_idle && m->idle[i];
    if (all_idle) {
        /* "the maximum of the inputs' last watermarks is emitted if larger,
         * then IDLE" */
        int64_t max = m->wm[0];
        for (int i = 1; i < m->n; i++)
            if (m->wm[i] > max)
                max = m->wm[i];
        if (max > emitted_last_wm(&m->out))
            emit_wm(&m->out, max);
        emit_status(&m->out, WEIR__ACT_IDLE);
        return;
    }
    if (emitted_idle(&m->out))
        emit_status(&m->out, WEIR__ACT_ACTIVE);
    cm_emit_min(m);
}

/* ---- the combiner property ------------------------------------------------------ */

typedef struct combiner_counts {
    long steps, emitted_wm, emitted_idle, emitted_active, held;
} combiner_counts;

/* The inputs get what a valve can send: per input strictly increasing
 * watermarks (across idle periods too), only while active, and statuses only
 * on a change. */
static void combiner_run(int inputs, uint64_t seed, combiner_counts *cnt)
{
    run *r = &the_run;
    memset(r, 0, sizeof *r);
    r->what = "combiner";
    r->channels = inputs;
    r->seed = seed;
    r->dotted = inputs == 2;
    r->split = 1; /* input 0 and input 1, one channel each: "0.0", "1.0" */

    rng rnd = {seed * 0x9e3779b97f4a7c15u + 7u * (uint64_t)inputs};
    int p_status = 5 + rng_below(&rnd, 30);
    int64_t sent[WEIR__MAX_INPUTS] = {WEIR_TS_MIN, WEIR_TS_MIN};
    bool in_idle[WEIR__MAX_INPUTS] = {false, false};

    weir__combiner c;
    weir__combiner_init(&c, inputs);
    combiner_model m;
    cm_init(&m, inputs);
    emitted got_all = {0};

    int64_t emitted_last = WEIR_TS_MIN;
    bool emitted_any = false;
    bool output_idle = false;

    for (int s = 0; s < STEPS; s++) {
        msg mm = {0};
        mm.c = rng_below(&rnd, inputs);
        if (rng_below(&rnd, 100) < p_status || sent[mm.c] == WEIR_TS_MAX) {
            mm.kind = in_idle[mm.c] ? MSG_ACTIVE : MSG_IDLE;
        } else if (in_idle[mm.c]) {
            mm.kind = MSG_ACTIVE; /* a valve sends no watermark while idle */
        } else {
            mm.kind = MSG_WM;
            int64_t prev = sent[mm.c] == WEIR_TS_MIN ? -50 : sent[mm.c];
            mm.w = rng_below(&rnd, 400) == 0 ? WEIR_TS_MAX : prev + 1 + rng_below(&rnd, 30);
            sent[mm.c] = mm.w;
        }
        r->step = s;
        r->hist[s] = mm;

        int active_before = 0;
        for (int i = 0; i < inputs; i++)
            active_before += !in_idle[i];
        weir__wm_actions got;
        step_out want;
        int64_t before_last = emitted_last_wm(&m.out);
        int from = m.out.n;
        if (mm.kind == MSG_WM) {
            got = weir__combiner_watermark(&c, mm.c, mm.w);
            cm_watermark(&m, mm.c, mm.w);
        } else {
            in_idle[mm.c] = mm.kind == MSG_IDLE;
            got = weir__combiner_status(&c, mm.c, mm.kind == MSG_IDLE);
            cm_status(&m, mm.c, mm.kind == MSG_IDLE);
        }
        want = emitted_since(&m.out, from);
        emitted_add(&got_all, got);
        int active_after = 0;
        int64_t max_in = WEIR_TS_MIN;
        for (int i = 0; i < inputs; i++) {
            active_after += !in_idle[i];
            if (sent[i] > max_in)
                max_in = sent[i];
        }

        check_shape(r, got, &emitted_last, &emitted_any, &output_idle);
        for (int i = 0; i < got.n && i < 2; i++)
            if (got.act[i].kind == WEIR__ACT_WATERMARK)
                CHECK(r, got.act[i].watermark <= max_in,
                      "emitted %" PRId64 " is above every input (max %" PRId64 ")",
                      got.act[i].watermark, max_in);
        CHECK(r, has_kind(got, WEIR__ACT_IDLE) == (active_before > 0 && active_after == 0),
              "IDLE %s, but %d inputs were active before and %d after",
              has_kind(got, WEIR__ACT_IDLE) ? "emitted" : "not emitted", active_before,
              active_after);
        CHECK(r, has_kind(got, WEIR__ACT_ACTIVE) == (active_before == 0 && active_after > 0),
              "ACTIVE %s, but %d inputs were active before and %d after",
              has_kind(got, WEIR__ACT_ACTIVE) ? "emitted" : "not emitted", active_before,
              active_after);
        CHECK(r, output_idle == (active_after == 0), "the operator is %s but %d inputs are active",
              output_idle ? "idle" : "active", active_after);
        CHECK(r, c.last_idle == output_idle, "last_idle disagrees with what was emitted");

        CHECK_EQUAL(r, got, &want);
        CHECK(r, c.last_wm == emitted_last_wm(&m.out), "last_wm %" PRId64 ", the model %" PRId64,
              c.last_wm, emitted_last_wm(&m.out));

        cnt->steps++;
        for (int i = 0; i < got.n && i < 2; i++) {
            cnt->emitted_wm += got.act[i].kind == WEIR__ACT_WATERMARK;
            cnt->emitted_idle += got.act[i].kind == WEIR__ACT_IDLE;
            cnt->emitted_active += got.act[i].kind == WEIR__ACT_ACTIVE;
        }
        /* An input active again below the combined value held it where it was. */
        cnt->held += mm.kind == MSG_ACTIVE && sent[mm.c] < before_last && active_after > 1;
    }
    check_same_lists(r, &got_all, &m.out);
}

Test(combiner_property, the_combiner_matches_the_model_and_only_moves_forward)
{
    combiner_counts cnt = {0};
    for (int inputs = 1; inputs <= WEIR__MAX_INPUTS; inputs++)
        for (uint64_t seed = 0; seed < SEEDS; seed++)
            combiner_run(inputs, seed, &cnt);
    cr_log_info("combiner: %ld steps, %ld watermarks, %ld IDLE, %ld ACTIVE, %ld held back",
                cnt.steps, cnt.emitted_wm, cnt.emitted_idle, cnt.emitted_active, cnt.held);
    cr_assert_gt(cnt.emitted_wm, 10000);
    cr_assert_gt(cnt.emitted_idle, 1000);
    cr_assert_gt(cnt.emitted_active, 1000);
    cr_assert_gt(cnt.held, 100);
}

/* ---- the chain: two valves feeding a combiner ----------------------------------- */

/* What a two-input operator runs: each input's valve, its output fed to the
 * combiner. Checked against the two models chained the same way, and for the
 * whole: the operator's output moves forward only, and the operator is idle
 * iff every channel of both inputs is idle. */
static void chain_run(int n0, int n1, uint64_t seed, long *steps)
{
    run *r = &the_run;
    memset(r, 0, sizeof *r);
    r->what = "chain";
    r->channels = n0 + n1;
    r->seed = seed;
    r->dotted = true;
    r->split = n0;

    rng rnd = {seed * 0xd1b54a32d192ed03u + (uint64_t)(n0 * 16 + n1)};
    gen g;
    gen_init(&g, &rnd);

    weir__valve_channel s0[MAX_CHANNELS];
    weir__valve_channel s1[MAX_CHANNELS];
    weir__valve valves[2];
    weir__valve_init(&valves[0], s0, n0);
    weir__valve_init(&valves[1], s1, n1);
    weir__combiner c;
    weir__combiner_init(&c, 2);
    valve_model vms[2];
    vm_init(&vms[0], n0);
    vm_init(&vms[1], n1);
    combiner_model cm;
    cm_init(&cm, 2);

    bool chan_idle[2 * MAX_CHANNELS] = {false};
    int64_t emitted_last = WEIR_TS_MIN;
    bool emitted_any = false;
    bool output_idle = false;

    for (int s = 0; s < STEPS; s++) {
        /* Channels numbered 0..n0+n1-1 across both inputs. */
        msg mm = gen_msg(&g, &rnd, n0 + n1);
        r->step = s;
        r->hist[s] = mm;
        int in = mm.c < n0 ? 0 : 1;
        int ch = in ? mm.c - n0 : mm.c;

        valve_model_note note = {0};
        weir__wm_actions va;
        int vfrom = vms[in].out.n;
        if (mm.kind == MSG_WM) {
            va = weir__valve_watermark(&valves[in], ch, mm.w);
            vm_watermark(&vms[in], ch, mm.w, &note);
        } else if (mm.kind == MSG_IDLE) {
            chan_idle[mm.c] = true;
            va = weir__valve_idle(&valves[in], ch);
            vm_idle(&vms[in], ch, &note);
        } else {
            chan_idle[mm.c] = false;
            va = weir__valve_active(&valves[in], ch);
            vm_active(&vms[in], ch, &note);
        }
        step_out vw = emitted_since(&vms[in].out, vfrom);
        CHECK_EQUAL(r, va, &vw);

        /* Feed the valve's actions, in order, to the combiner and its model. */
        for (int i = 0; i < va.n && i < 2; i++) {
            weir__wm_actions got;
            int from = cm.out.n;
            if (va.act[i].kind == WEIR__ACT_WATERMARK) {
                got = weir__combiner_watermark(&c, in, va.act[i].watermark);
                cm_watermark(&cm, in, va.act[i].watermark);
            } else {
                bool idle = va.act[i].kind == WEIR__ACT_IDLE;
                got = weir__combiner_status(&c, in, idle);
                cm_status(&cm, in, idle);
            }
            step_out want = emitted_since(&cm.out, from);
            check_shape(r, got, &emitted_last, &emitted_any, &output_idle);
            CHECK_EQUAL(r, got, &want);
        }
        bool all_idle = true;
        for (int i = 0; i < n0 + n1; i++)
            all_idle = all_idle && chan_idle[i];
        CHECK(r, output_idle == all_idle, "the operator is %s but its channels are %s",
              output_idle ? "idle" : "active", all_idle ? "all idle" : "not all idle");
        (*steps)++;
    }
}

Test(combiner_property, two_valves_feeding_a_combiner_move_forward_and_idle_together)
{
    long steps = 0;
    for (int n0 = 1; n0 <= 3; n0++)
        for (int n1 = 1; n1 <= 3; n1++)
            for (uint64_t seed = 0; seed < SEEDS / 4; seed++)
                chain_run(n0, n1, seed, &steps);
    cr_assert_eq(steps, 9L * (SEEDS / 4) * STEPS);
}
