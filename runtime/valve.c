/* valve.c — the output gate, the valve and the multi-input combination.
 *
 * These are Apache Flink's rules (WatermarkToDataOutput, StatusWatermarkValve,
 * the two-input operator's combined watermark) with Flink's two later fixes:
 * ACTIVE recomputes the minimum (a channel that was the only aligned one going
 * idle and coming back must not stall the output), and when every channel goes
 * idle the valve flushes the maximum channel watermark unconditionally, so the
 * result does not depend on the order in which channels went idle.
 *
 * Invariants, all three machines:
 *   - an emitted watermark is strictly above every watermark emitted before
 *     (the output never goes backwards and MIN is never emitted);
 *   - nothing but a change of status is emitted as a status;
 *   - the valve's output is idle iff every channel is idle; the combiner's iff
 *     every input is idle.
 * The valve keeps per channel an `aligned` flag: a channel that comes back
 * from idle below the valve's output stays out of the minimum until it catches
 * up, so an idle partition's return cannot pull the output backwards.
 */
#include "valve.h"

#include "util.h"
#include "weir/time.h"

static void push_wm(weir__wm_actions *a, int64_t w)
{
    a->act[a->n].kind = WEIR__ACT_WATERMARK;
    a->act[a->n].watermark = w;
    a->n++;
}

static void push_status(weir__wm_actions *a, bool idle)
{
    a->act[a->n].kind = idle ? WEIR__ACT_IDLE : WEIR__ACT_ACTIVE;
    a->act[a->n].watermark = 0;
    a->n++;
}

/* ---- gate ----------------------------------------------------------------- */

void weir__gate_init(weir__gate *g)
{
    g->last = WEIR_TS_MIN;
    g->idle = false;
}

weir__wm_actions weir__gate_watermark(weir__gate *g, int64_t watermark)
{
    weir__wm_actions a = {0};
    if (watermark <= g->last)
        return a;
    g->last = watermark;
    if (g->idle) {
        g->idle = false;
        push_status(&a, false);
    }
    push_wm(&a, watermark);
    return a;
}

weir__wm_actions weir__gate_status(weir__gate *g, bool idle)
{
    weir__wm_actions a = {0};
    if (g->idle != idle) {
        g->idle = idle;
        push_status(&a, idle);
    }
    return a;
}

/* ---- shared by the valve and the combiner --------------------------------- */

/* The output moves up to `w`, if that is above its last watermark. */
static void raise_to(int64_t *last_wm, int64_t w, weir__wm_actions *a)
{
    if (w > *last_wm) {
        *last_wm = w;
        push_wm(a, w);
    }
}

/* Every channel (every input) is idle now: the largest watermark among them
 * if it is above the last one, then IDLE (SEMANTICS.md 3 and 4). */
static void flush_all_idle(int64_t *last_wm, bool *last_idle, int64_t max, weir__wm_actions *a)
{
    raise_to(last_wm, max, a);
    if (!*last_idle) {
        *last_idle = true;
        push_status(a, true);
    }
}

/* ---- valve ---------------------------------------------------------------- */

/* The winner at tournament node k (valve.h): a leaf is its channel if that
 * is aligned. */
static int32_t node_winner(const weir__valve *v, int k)
{
    if (k >= v->n) {
        int c = k - v->n;
        return v->ch[c].aligned ? c : -1;
    }
    return v->ch[k].winner;
}

static int32_t better(const weir__valve *v, int32_t a, int32_t b)
{
    if (a < 0)
        return b;
    if (b < 0)
        return a;
    int64_t wa = v->ch[a].wm, wb = v->ch[b].wm;
    return wb < wa || (wb == wa && b < a) ? b : a;
}

/* Channel c's watermark or alignment changed: replay its path to the root. */
static void replay(weir__valve *v, int c)
{
    for (int k = (v->n + c) / 2; k >= 1; k /= 2)
        v->ch[k].winner = better(v, node_winner(v, 2 * k), node_winner(v, 2 * k + 1));
}

/* The aligned channel with the lowest watermark (lowest index among equals),
 * or -1. Idle channels are never aligned. */
static int32_t aligned_min(const weir__valve *v)
{
    return v->n > 0 ? node_winner(v, 1) : -1;
}

void weir__valve_init(weir__valve *v, weir__valve_channel *storage, int n)
{
    v->n = n;
    v->ch = storage;
    for (int i = 0; i < n; i++) {
        storage[i].wm = WEIR_TS_MIN;
        storage[i].idle = false;
        storage[i].aligned = true;
        storage[i].winner = -1;
    }
    for (int k = n - 1; k >= 1; k--)
        storage[k].winner = better(v, node_winner(v, 2 * k), node_winner(v, 2 * k + 1));
    v->last_wm = WEIR_TS_MIN;
    v->last_idle = false;
    v->active = n;
    v->max_wm = WEIR_TS_MIN;
}

weir__wm_actions weir__valve_grow(weir__valve *v, weir__valve_channel *storage, int n)
{
    weir__wm_actions a = {0};
    int old = v->n;
    for (int i = 0; i < n; i++) {
        if (i < old) {
            storage[i] = v->ch[i];
        } else {
            storage[i] = (weir__valve_channel){.wm = WEIR_TS_MIN, .aligned = true, .winner = -1};
        }
    }
    v->ch = storage;
    v->n = n;
    for (int k = n - 1; k >= 1; k--)
        storage[k].winner = better(v, node_winner(v, 2 * k), node_winner(v, 2 * k + 1));
    v->active += n - old;
    if (n > old && v->last_idle) {
        v->last_idle = false;
        push_status(&a, false);
    }
    return a;
}

/* Emits the minimum over aligned channels if one is aligned and it is above
 * the output's last watermark. */
static void emit_aligned_min(weir__valve *v, weir__wm_actions *a)
{
    int32_t c = aligned_min(v);
    if (c >= 0)
        raise_to(&v->last_wm, v->ch[c].wm, a);
}

weir__wm_actions weir__valve_watermark(weir__valve *v, int c, int64_t watermark)
{
    weir__wm_actions a = {0};
    weir__valve_channel *ch = &v->ch[c];
    if (v->last_idle || ch->idle)
        return a;
    if (watermark <= ch->wm)
        return a;
    ch->wm = watermark;
    if (watermark > v->max_wm)
        v->max_wm = watermark;
    if (!ch->aligned && watermark >= v->last_wm)
        ch->aligned = true;
    replay(v, c);
    emit_aligned_min(v, &a);
    return a;
}

weir__wm_actions weir__valve_idle(weir__valve *v, int c)
{
    weir__wm_actions a = {0};
    weir__valve_channel *ch = &v->ch[c];
    if (ch->idle)
        return a;
    ch->idle = true;
    ch->aligned = false;
    v->active--;
    replay(v, c);
    if (v->active == 0)
        flush_all_idle(&v->last_wm, &v->last_idle, v->max_wm, &a);
    else
        emit_aligned_min(v, &a);
    return a;
}

weir__wm_actions weir__valve_active(weir__valve *v, int c)
{
    weir__wm_actions a = {0};
    weir__valve_channel *ch = &v->ch[c];
    if (!ch->idle)
        return a;
    ch->idle = false;
    ch->aligned = ch->wm >= v->last_wm;
    v->active++;
    replay(v, c);
    if (v->last_idle) {
        v->last_idle = false;
        push_status(&a, false);
    }
    emit_aligned_min(v, &a);
    return a;
}

int weir__valve_held_by(const weir__valve *v)
{
    return aligned_min(v);
}

/* ---- combiner ------------------------------------------------------------- */

void weir__combiner_init(weir__combiner *c, int inputs)
{
    WEIR__ASSERT(inputs >= 1 && inputs <= WEIR__MAX_INPUTS);
    c->n = inputs;
    for (int i = 0; i < WEIR__MAX_INPUTS; i++) {
        c->wm[i] = WEIR_TS_MIN;
        c->idle[i] = false;
    }
    c->last_wm = WEIR_TS_MIN;
    c->last_idle = false;
}

/* Emits the minimum over the inputs that are not idle, if one is not and it
 * is above the last combined watermark. */
static void emit_active_min(weir__combiner *c, weir__wm_actions *a)
{
    bool any = false;
    int64_t min = WEIR_TS_MAX;
    for (int i = 0; i < c->n; i++) {
        if (!c->idle[i]) {
            any = true;
            min = WEIR__MIN(min, c->wm[i]);
        }
    }
    if (any)
        raise_to(&c->last_wm, min, a);
}

weir__wm_actions weir__combiner_watermark(weir__combiner *c, int input, int64_t watermark)
{
    weir__wm_actions a = {0};
    if (watermark > c->wm[input])
        c->wm[input] = watermark;
    emit_active_min(c, &a);
    return a;
}

weir__wm_actions weir__combiner_status(weir__combiner *c, int input, bool idle)
{
    weir__wm_actions a = {0};
    if (c->idle[input] == idle)
        return a;
    c->idle[input] = idle;
    if (idle) {
        bool all_idle = true;
        int64_t max = WEIR_TS_MIN;
        for (int i = 0; i < c->n; i++) {
            all_idle = all_idle && c->idle[i];
            max = WEIR__MAX(max, c->wm[i]);
        }
        /* The combined output is idle iff every input is, so it was not idle
         * before this one went idle. */
        if (all_idle)
            flush_all_idle(&c->last_wm, &c->last_idle, max, &a);
        else
            emit_active_min(c, &a);
    } else {
        if (c->last_idle) {
            c->last_idle = false;
            push_status(&a, false);
        }
        emit_active_min(c, &a);
    }
    return a;
}
