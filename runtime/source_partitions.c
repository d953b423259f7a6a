/* source_partitions.c — per-partition event time inside a source subtask
 * (weir/operator.h, "per-partition event time in a source"): Flink's
 * per-split watermarks, built from the same pieces as every input.
 *
 * Each partition has an output gate (SEMANTICS.md 1: a watermark passes only
 * above the last; an idle partition becomes active with the first watermark
 * that passes) and is channel p of one valve (SEMANTICS.md 3); what the
 * valve lets through goes through the subtask's own output gate, as if the
 * source had emitted it. No allocation after a partition count is declared;
 * discovery grows the arrays once per change.
 */
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "task.h"
#include "util.h"
#include "valve.h"
#include "weir/diag.h"
#include "weir/error.h"
#include "weir/operator.h"

typedef struct weir__partitions {
    int n;
    char (*names)[64]; /* for the capture: cut to 63 bytes */
    weir__gate *gates;
    weir__valve valve;
    weir__valve_channel *vch;
} weir__partitions;

void weir__partitions_free(weir_ctx *ctx)
{
    weir__partitions *p = ctx->partitions;
    if (!p)
        return;
    free(p->names);
    free(p->gates);
    free(p->vch);
    free(p);
    ctx->partitions = NULL;
}

/* What the valve let through, onto the subtask's output. */
static int deliver(weir_ctx *ctx, const weir__wm_actions *a)
{
    for (int k = 0; k < a->n; k++) {
        int r;
        if (a->act[k].kind == WEIR__ACT_WATERMARK)
            r = weir_emit_watermark(ctx, a->act[k].watermark);
        else if (a->act[k].kind == WEIR__ACT_IDLE)
            r = weir_emit_idle(ctx);
        else
            r = weir_emit_active(ctx);
        if (r < 0)
            return r;
    }
    return 0;
}

int weir_source_partitions(weir_ctx *ctx, int n, const char *const *names)
{
    weir__partitions *p = ctx->partitions;
    if (!p) {
        p = calloc(1, sizeof *p);
        if (!p)
            return weir_ctx_fail(ctx, WEIR_ENOMEM, "out of memory for %d partitions", n);
        weir__valve_init(&p->valve, NULL, 0);
        ctx->partitions = p;
        if (n == 0) { /* no partition: idle at once (Flink's rule) */
            p->valve.last_idle = true;
            return weir_emit_idle(ctx);
        }
    }
    if (n < p->n)
        return weir_ctx_fail(ctx, WEIR_EINVAL,
                             "weir_source_partitions: %d partitions, fewer than the %d before", n,
                             p->n);
    if (n == p->n)
        return 0;
    weir__gate *gates = malloc((size_t)n * sizeof *gates);
    weir__valve_channel *vch = malloc((size_t)n * sizeof *vch);
    char(*nm)[64] = malloc((size_t)n * sizeof *nm);
    if (!gates || !vch || !nm) {
        free(gates);
        free(vch);
        free(nm);
        return weir_ctx_fail(ctx, WEIR_ENOMEM, "out of memory for %d partitions", n);
    }
    if (p->n) {
        memcpy(gates, p->gates, (size_t)p->n * sizeof *gates);
        memcpy(nm, p->names, (size_t)p->n * sizeof *nm);
    }
    for (int i = p->n; i < n; i++) {
        weir__gate_init(&gates[i]);
        if (names && names[i])
            snprintf(nm[i], sizeof nm[i], "%s", names[i]);
        else
            snprintf(nm[i], sizeof nm[i], "partition-%d", i);
    }
    free(p->names);
    p->names = nm;
    weir__wm_actions a = weir__valve_grow(&p->valve, vch, n);
    free(p->gates);
    free(p->vch);
    p->gates = gates;
    p->vch = vch;
    p->n = n;
    return deliver(ctx, &a);
}

static int check(weir_ctx *ctx, int p, const char *what)
{
    if (!ctx->partitions || p < 0 || p >= ctx->partitions->n)
        return weir_ctx_fail(ctx, WEIR_EINVAL, "%s: partition %d of %d declared", what, p,
                             ctx->partitions ? ctx->partitions->n : 0);
    return 0;
}

/* A partition gate's actions into the valve (each change reported as the
 * valve events of an input's channel are), the valve's onto the output. */
static int through(weir_ctx *ctx, int p, const weir__wm_actions *g)
{
    weir__partitions *ps = ctx->partitions;
    bool diag = WEIR__DIAG_ON(ctx, WEIR_DIAG_STANDARD);
    for (int k = 0; k < g->n; k++) {
        weir__wm_actions a;
        weir__valve_channel before = ps->vch[p];
        if (g->act[k].kind == WEIR__ACT_WATERMARK) {
            a = weir__valve_watermark(&ps->valve, p, g->act[k].watermark);
            if (diag && ps->vch[p].wm != before.wm)
                weir__diag_partition_watermark(ctx, p, ps->names[p], ps->vch[p].wm,
                                               weir__valve_held_by(&ps->valve));
        } else {
            bool idle = g->act[k].kind == WEIR__ACT_IDLE;
            a = idle ? weir__valve_idle(&ps->valve, p) : weir__valve_active(&ps->valve, p);
            if (diag && ps->vch[p].idle != before.idle)
                weir__diag_partition_status(ctx, p, ps->names[p], idle,
                                            weir__valve_held_by(&ps->valve));
        }
        int r = deliver(ctx, &a);
        if (r < 0)
            return r;
    }
    return 0;
}

int weir_source_partition_watermark(weir_ctx *ctx, int p, int64_t watermark)
{
    int r = check(ctx, p, "weir_source_partition_watermark");
    if (r < 0)
        return r;
    weir__wm_actions g = weir__gate_watermark(&ctx->partitions->gates[p], watermark);
    return through(ctx, p, &g);
}

int weir_source_partition_status(weir_ctx *ctx, int p, bool idle)
{
    int r = check(ctx, p, "weir_source_partition_status");
    if (r < 0)
        return r;
    weir__wm_actions g = weir__gate_status(&ctx->partitions->gates[p], idle);
    return through(ctx, p, &g);
}

int64_t weir_source_partitions_watermark(const weir_ctx *ctx)
{
    return ctx->partitions ? ctx->partitions->valve.last_wm : WEIR_TS_MIN;
}
