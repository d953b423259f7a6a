/* align.c — watermark alignment of sources (design in align.h). */
#include "align.h"

#include <stdlib.h>
#include <string.h>

#include "graph.h"
#include "job_state.h"
#include "scheduler.h"
#include "task.h"
#include "weir/error.h"
#include "weir/time.h"

/* ---- planning ------------------------------------------------------------- */

/* What a source node asks for, defaults resolved: false if it is not
 * aligned at all. */
static bool node_alignment(const weir__node *n, const char **group, int64_t *drift,
                           int64_t *interval)
{
    const weir_watermark_alignment *a = &n->align;
    if (n->align_set && a->max_drift_ms == WEIR_DISABLED)
        return false;
    *group = n->align_set ? a->group : NULL;
    *drift = n->align_set && a->max_drift_ms > 0 ? a->max_drift_ms
                                                 : WEIR_WATERMARK_DRIFT_DEFAULT_MS;
    *interval = n->align_set && a->update_interval_ms > 0 ? a->update_interval_ms
                                                          : WEIR_WATERMARK_ALIGN_INTERVAL_MS;
    /* One subtask alone has nobody to drift from. */
    return *group || n->parallelism > 1;
}

static weir__align_group *new_group(weir__plan *plan, const char *name, int n)
{
    weir__align_group **v = realloc(plan->aligns, (size_t)(plan->naligns + 1) * sizeof *v);
    if (!v)
        return NULL;
    plan->aligns = v;
    weir__align_group *g = calloc(1, sizeof *g);
    if (!g)
        return NULL;
    g->slots = aligned_alloc(WEIR__CACHELINE,
                             weir__round_up((size_t)n * sizeof *g->slots, WEIR__CACHELINE));
    g->name = name ? weir__strdup(name) : NULL;
    if (!g->slots || (name && !g->name)) {
        free(g->slots);
        free(g->name);
        free(g);
        return NULL;
    }
    memset(g->slots, 0, (size_t)n * sizeof *g->slots);
    for (int i = 0; i < n; i++)
        atomic_init(&g->slots[i].wm, WEIR_TS_MIN);
    plan->aligns[plan->naligns++] = g;
    return g;
}

static weir__align_group *find_group(weir__plan *plan, const char *name)
{
    for (int i = 0; i < plan->naligns; i++)
        if (plan->aligns[i]->name && strcmp(plan->aligns[i]->name, name) == 0)
            return plan->aligns[i];
    return NULL;
}

int weir__align_plan(weir_job *job, weir__plan *plan)
{
    const weir__graph *g = &job->graph;
    /* A named group's size first: every subtask of every source in it. */
    int *size = calloc((size_t)g->nnodes, sizeof *size);
    if (!size)
        return WEIR_ENOMEM;
    const char *name;
    int64_t drift, interval;
    for (int n = 0; n < g->nnodes; n++) {
        const weir__node *node = g->nodes[n];
        if (!node->is_source || !node_alignment(node, &name, &drift, &interval) || !name)
            continue;
        for (int m = 0; m < g->nnodes; m++) {
            const weir__node *first = g->nodes[m];
            const char *other;
            int64_t d, i;
            if (first->is_source && node_alignment(first, &other, &d, &i) && other &&
                strcmp(other, name) == 0) {
                size[m] += node->parallelism; /* counted at the first source of the name */
                break;
            }
        }
    }
    int r = 0;
    for (int n = 0; r == 0 && n < g->nnodes; n++) {
        const weir__node *node = g->nodes[n];
        if (!node->is_source || !node_alignment(node, &name, &drift, &interval))
            continue;
        weir__align_group *grp = name ? find_group(plan, name) : NULL;
        if (!grp)
            grp = new_group(plan, name, name ? size[n] : node->parallelism);
        if (!grp) {
            r = WEIR_ENOMEM;
            break;
        }
        for (int i = 0; i < node->parallelism; i++) {
            weir__subtask *sub = plan->node_ctx[n][i]->sub;
            weir__align_member *m = &sub->align;
            m->group = grp;
            m->slot = grp->n++;
            m->max_drift = drift;
            m->update_interval = interval;
            m->reported = WEIR_TS_MIN;
            grp->slots[m->slot].sub = sub;
        }
    }
    free(size);
    return r;
}

void weir__align_free(weir__plan *plan)
{
    for (int i = 0; i < plan->naligns; i++) {
        free(plan->aligns[i]->slots);
        free(plan->aligns[i]->name);
        free(plan->aligns[i]);
    }
    free(plan->aligns);
    plan->aligns = NULL;
    plan->naligns = 0;
}

/* ---- a member's steps ----------------------------------------------------- */

/* The subtask's event time: the watermark that left the first operator of
 * the chain that made one (the source itself, or the timestamps operator
 * chained to it), WEIR_TS_MIN before it made any; the chain's later
 * operators only pass it on (or hold it back). *reported is what the group
 * sees: MAX while that output is idle, as Flink's SourceOperator reports an
 * idle source, so that it holds nobody back; the member's own pause is
 * decided on the watermark itself (Flink's latestWatermark). */
static int64_t event_time(const weir__subtask *sub, int64_t *reported)
{
    for (int i = 0; i < sub->nctx; i++) {
        const weir__gate *gate = &sub->ctxs[i]->out.gate;
        if (gate->idle || gate->last != WEIR_TS_MIN) {
            *reported = gate->idle ? WEIR_TS_MAX : gate->last;
            return gate->last;
        }
    }
    *reported = WEIR_TS_MIN;
    return WEIR_TS_MIN;
}

/* Whether the member's watermark is above the group's lowest reported plus
 * its max drift (Flink's shouldWaitForAlignment). */
static bool ahead(const weir__align_member *m)
{
    if (m->own == WEIR_TS_MIN)
        return false;
    const weir__align_group *g = m->group;
    int64_t low = WEIR_TS_MAX;
    for (int i = 0; i < g->n; i++) {
        int64_t w = atomic_load(&g->slots[i].wm);
        if (w != WEIR_TS_MIN && w < low)
            low = w;
    }
    int64_t limit = low > WEIR_TS_MAX - m->max_drift ? WEIR_TS_MAX : low + m->max_drift;
    return m->own > limit;
}

static void pause_member(weir__align_member *m, int64_t now)
{
    m->paused = true;
    m->paused_since = now;
    m->look_at = now + m->update_interval;
    atomic_fetch_add(&m->group->npaused, 1);
    atomic_store(&m->group->slots[m->slot].paused, 1);
}

static void resume_member(weir__align_member *m, int64_t now)
{
    m->paused = false;
    m->paused_ms += now - m->paused_since;
    atomic_store(&m->group->slots[m->slot].paused, 0);
    atomic_fetch_sub(&m->group->npaused, 1);
}

/* Another member may be waiting for this one: wake those that pause (each
 * looks again in its next step). */
static void wake_paused(weir__align_member *m)
{
    weir__align_group *g = m->group;
    if (atomic_load(&g->npaused) == 0)
        return;
    for (int i = 0; i < g->n; i++)
        if (i != m->slot && atomic_load(&g->slots[i].paused))
            weir__sched_wake(g->slots[i].sub);
}

void weir__align_step(weir__subtask *sub, int64_t now)
{
    weir__align_member *m = &sub->align;
    int64_t wm;
    m->own = event_time(sub, &wm);
    if (wm != m->reported) {
        bool rose = wm > m->reported;
        m->reported = wm;
        atomic_store(&m->group->slots[m->slot].wm, wm);
        if (rose)
            wake_paused(m);
    }
    if (sub->source_done) {
        if (m->paused)
            resume_member(m, now);
        return;
    }
    if (!m->paused) {
        if (ahead(m))
            pause_member(m, now);
    } else if (!ahead(m)) {
        resume_member(m, now);
    } else if (now >= m->look_at) {
        m->look_at = now + m->update_interval;
    }
}

void weir__align_finished(weir__subtask *sub, int64_t now)
{
    weir__align_member *m = &sub->align;
    m->own = WEIR_TS_MAX;
    if (m->paused)
        resume_member(m, now);
    if (m->reported != WEIR_TS_MAX) {
        m->reported = WEIR_TS_MAX;
        atomic_store(&m->group->slots[m->slot].wm, WEIR_TS_MAX);
        wake_paused(m);
    }
}

bool weir__align_paused(weir__subtask *sub, int64_t now)
{
    weir__align_member *m = &sub->align;
    if (!m->paused)
        return false;
    if (ahead(m))
        return true;
    resume_member(m, now);
    return false;
}

bool weir__align_holds(weir__subtask *sub)
{
    return sub->align.paused && ahead(&sub->align);
}

int64_t weir__align_activity_now(const weir__subtask *sub, int64_t now)
{
    const weir__align_member *m = &sub->align;
    if (!m->group)
        return now;
    return now - m->paused_ms - (m->paused ? now - m->paused_since : 0);
}
