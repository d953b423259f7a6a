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

/* ---- valve ---------------------------------------------------------------- */

void weir__valve_init(weir__valve *v, weir__valve_channel *storage, int n)
{
    v->n = n;
    v->ch = storage;
    for (int i = 0; i < n; i++) {
        storage[i].wm = WEIR_TS_MIN;
        storage[i].idle = false;
        storage[i].aligned = true;
    }
    v->last_wm = WEIR_TS_MIN;
    v->last_idle = false;
}

/* Emits the minimum over aligned channels if one is aligned and it is above
 * the output's last watermark. Idle channels are never aligned. */
static void emit_aligned_min(weir__valve *v, weir__wm_actions *a)
{
    bool any = false;
    int64_t min = WEIR_TS_MAX;
    for (int i = 0; i < v->n; i++) {
        if (v->ch[i].aligned) {
            any = true;
            if (v->ch[i].wm < min)
                min = v->ch[i].wm;
        }
    }
    if (any && min > v->last_wm) {
        v->last_wm = min;
        push_wm(a, min);
    }
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
    if (!ch->aligned && watermark >= v->last_wm)
        ch->aligned = true;
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

    bool any_active = false;
    int64_t max = WEIR_TS_MIN;
    for (int i = 0; i < v->n; i++) {
        if (!v->ch[i].idle)
            any_active = true;
        if (v->ch[i].wm > max)
            max = v->ch[i].wm;
    }
    if (!any_active) {
        if (max > v->last_wm) {
            v->last_wm = max;
            push_wm(&a, max);
        }
        if (!v->last_idle) {
            v->last_idle = true;
            push_status(&a, true);
        }
    } else {
        emit_aligned_min(v, &a);
    }
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
    if (v->last_idle) {
        v->last_idle = false;
        push_status(&a, false);
    }
    emit_aligned_min(v, &a);
    return a;
}

int weir__valve_held_by(const weir__valve *v)
{
    int best = -1;
    for (int i = 0; i < v->n; i++) {
        if (v->ch[i].aligned && (best < 0 || v->ch[i].wm < v->ch[best].wm))
            best = i;
    }
    return best;
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

static void emit_active_min(weir__combiner *c, weir__wm_actions *a)
{
    bool any = false;
    int64_t min = WEIR_TS_MAX;
    for (int i = 0; i < c->n; i++) {
        if (!c->idle[i]) {
            any = true;
            if (c->wm[i] < min)
                min = c->wm[i];
        }
    }
    if (any && min > c->last_wm) {
        c->last_wm = min;
        push_wm(a, min);
    }
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
            if (!c->idle[i])
                all_idle = false;
            if (c->wm[i] > max)
                max = c->wm[i];
        }
        if (all_idle) {
            if (max > c->last_wm) {
                c->last_wm = max;
                push_wm(&a, max);
            }
            c->last_idle = true;
            push_status(&a, true);
        } else {
            emit_active_min(c, &a);
        }
    } else {
        if (c->last_idle) {
            c->last_idle = false;
            push_status(&a, false);
        }
        emit_active_min(c, &a);
    }
    return a;
}
