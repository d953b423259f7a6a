/* plan.c — turns the logical graph into what runs: tasks, subtasks,
 * operator contexts and channels.
 *
 * 1. Every node gets its parallelism (the job default where unset).
 * 2. Every edge gets its partitioning: forward when the parallelism matches
 *    and nothing else was asked for, rebalance otherwise; an explicit forward
 *    between different parallelism is refused here, before any thread starts.
 * 3. A forward edge into a one-input operator that has no other input edge is
 *    chained (unless chaining is off): the consumer runs inside the
 *    producer's task, as a plain call. Every other edge becomes channels: one
 *    SPSC channel per producer subtask and consumer subtask (forward: one per
 *    subtask pair i -> i).
 * 4. A task is a node with no chained input (its head) plus everything chained
 *    below it: a tree, since a chained node has exactly one input edge.
 * 5. The channels of a consumer's input are ordered by its input edges in the
 *    order they were added, and within an edge by producer subtask; this is
 *    the channel numbering of the valve and of the capture.
 *
 * Any failure frees everything made so far and leaves the job's message.
 */
#include <stdlib.h>
#include <string.h>

#include "job_state.h"
#include "key_group.h"
#include "scheduler.h"
#include "task.h"
#include "util.h"
#include "weir/error.h"

#define MAX_CHANNELS (1 << 18)
/* The largest channel batch (batch_capacity slots of one edge's element
 * stride). Batches are allocated while the job runs, so a size that cannot
 * be met would fail on a worker thread after the job started; refusing it
 * here reports it before any thread starts. */
#define MAX_BATCH_BYTES ((size_t)1 << 28)

static weir__output *ctx_output(weir_ctx *ctx, int tag)
{
    if (tag == 0)
        return &ctx->out.main;
    for (int i = 0; i < ctx->out.nside; i++) {
        if (ctx->out.side[i].tag == tag)
            return &ctx->out.side[i];
    }
    return NULL;
}

void weir__plan_free(weir__plan *plan)
{
    if (!plan)
        return;
    for (int s = 0; s < plan->nsubs; s++) {
        weir__subtask *sub = plan->subs[s];
        if (!sub)
            continue;
        for (int c = 0; c < sub->nctx; c++) {
            if (sub->ctxs[c]) {
                weir__ctx_free(sub->ctxs[c]);
                free(sub->ctxs[c]);
            }
        }
        free(sub->ctxs);
        for (int i = 0; i < WEIR__MAX_INPUTS; i++) {
            free(sub->in[i].ch);
            free(sub->in[i].vch);
        }
        free(sub->outs);
        free(sub);
    }
    free(plan->subs);
    for (int c = 0; c < plan->nchannels; c++)
        weir__channel_destroy(plan->channels[c]);
    free(plan->channels);
    for (int t = 0; t < plan->ntasks; t++) {
        /* Each node belongs to exactly one task: free its context array here. */
        for (int k = 0; plan->node_ctx && k < plan->tasks[t].nnodes; k++)
            free(plan->node_ctx[plan->tasks[t].nodes[k]]);
        free(plan->tasks[t].nodes);
        free(plan->tasks[t].subs);
    }
    free(plan->tasks);
    free(plan->node_ctx);
    weir__align_free(plan);
    free(plan);
}

/* Pre-order walk of the chain tree under `node`, appending to task->nodes. */
static void collect_chain(const weir__graph *g, int node, weir__task *task)
{
    task->nodes[task->nnodes++] = node;
    for (int e = 0; e < g->nedges; e++) {
        if (g->edges[e].from == node && g->edges[e].chained)
            collect_chain(g, g->edges[e].to, task);
    }
}

static int fail(weir_job *job, int err, const char *msg)
{
    return weir__job_fail(job, err, "planning: %s", msg);
}

/* Appends `ch` to a growable array of channel pointers. */
static int push_channel(weir__channel ***arr, int *n, weir__channel *ch)
{
    weir__channel **a = realloc(*arr, (size_t)(*n + 1) * sizeof *a);
    if (!a)
        return WEIR_ENOMEM;
    a[(*n)++] = ch;
    *arr = a;
    return 0;
}

static int resolve_edges(weir_job *job)
{
    weir__graph *g = &job->graph;
    /* Nodes only ever consume nodes added before them, so one pass in order
     * resolves inherited parallelism from already resolved producers. */
    for (int i = 0; i < g->nnodes; i++) {
        weir__node *n = g->nodes[i];
        if (n->parallelism == WEIR_PARALLELISM_INHERIT)
            n->parallelism = n->nin_edges > 0 ? g->nodes[g->edges[n->in_edges[0]].from]->parallelism
                                              : job->cfg.parallelism;
        if (n->parallelism == 0)
            n->parallelism = job->cfg.parallelism;
    }
    for (int i = 0; i < g->nedges; i++) {
        weir__edge *e = &g->edges[i];
        const weir__node *from = g->nodes[e->from], *to = g->nodes[e->to];
        weir__partitioning p = e->part;
        if (p == WEIR__PART_DEFAULT)
            p = from->parallelism == to->parallelism ? WEIR__PART_FORWARD : WEIR__PART_REBALANCE;
        else if (p == WEIR__PART_FORWARD && from->parallelism != to->parallelism)
            return weir__job_fail(job, WEIR_EINVAL,
                                         "planning: forward edge from '%s' (parallelism %d) to "
                                         "'%s' (parallelism %d): a forward edge needs equal "
                                         "parallelism (use rebalance)",
                                         from->name, from->parallelism, to->name, to->parallelism);
        e->resolved = p;
        e->chained = !job->cfg.disable_chaining && p == WEIR__PART_FORWARD && to->inputs == 1 &&
                     to->nin_edges == 1;
    }
    return 0;
}

static int make_tasks(weir_job *job, weir__plan *plan)
{
    const weir__graph *g = &job->graph;
    plan->tasks = calloc((size_t)g->nnodes, sizeof *plan->tasks);
    if (!plan->tasks)
        return fail(job, WEIR_ENOMEM, "out of memory");
    for (int i = 0; i < g->nnodes; i++) {
        bool chained_in = false;
        for (int k = 0; k < g->nodes[i]->nin_edges; k++)
            chained_in |= g->edges[g->nodes[i]->in_edges[k]].chained;
        if (chained_in)
            continue;
        weir__task *t = &plan->tasks[plan->ntasks];
        t->id = plan->ntasks++;
        t->parallelism = g->nodes[i]->parallelism;
        t->nodes = calloc((size_t)g->nnodes, sizeof *t->nodes);
        if (!t->nodes)
            return fail(job, WEIR_ENOMEM, "out of memory");
        collect_chain(g, i, t);
    }
    return 0;
}

static int make_subtasks(weir_job *job, weir__plan *plan)
{
    const weir__graph *g = &job->graph;
    plan->node_ctx = calloc((size_t)g->nnodes, sizeof *plan->node_ctx);
    int total = 0;
    for (int t = 0; t < plan->ntasks; t++)
        total += plan->tasks[t].parallelism;
    plan->subs = calloc((size_t)total, sizeof *plan->subs);
    if (!plan->node_ctx || !plan->subs)
        return fail(job, WEIR_ENOMEM, "out of memory");
    for (int t = 0; t < plan->ntasks; t++) {
        weir__task *task = &plan->tasks[t];
        task->subs = calloc((size_t)task->parallelism, sizeof *task->subs);
        if (!task->subs)
            return fail(job, WEIR_ENOMEM, "out of memory");
        for (int k = 0; k < task->nnodes; k++) {
            int node = task->nodes[k];
            /* node_ctx[node] is one allocation of pointers, reused by every
             * subtask of the task */
            plan->node_ctx[node] = calloc((size_t)task->parallelism, sizeof(weir_ctx *));
            if (!plan->node_ctx[node])
                return fail(job, WEIR_ENOMEM, "out of memory");
        }
        for (int i = 0; i < task->parallelism; i++) {
            weir__subtask *sub = aligned_alloc(WEIR__CACHELINE,
                                               weir__round_up(sizeof *sub, WEIR__CACHELINE));
            if (!sub)
                return fail(job, WEIR_ENOMEM, "out of memory");
            memset(sub, 0, sizeof *sub);
            sub->plan_index = plan->nsubs;
            plan->subs[plan->nsubs++] = sub;
            task->subs[i] = sub;
            sub->job = job;
            sub->task = task;
            sub->index = i;
            sub->flush_deadline = INT64_MAX;
            sub->deadline = INT64_MAX;
            cds_wfcq_node_init(&sub->inbox_node);
            const weir__node *head = g->nodes[task->nodes[0]];
            sub->ninputs = head->inputs;
            weir__combiner_init(&sub->comb, head->inputs > 0 ? head->inputs : 1);
            sub->ctxs = calloc((size_t)task->nnodes, sizeof *sub->ctxs);
            if (!sub->ctxs)
                return fail(job, WEIR_ENOMEM, "out of memory");
            for (int k = 0; k < task->nnodes; k++) {
                /* On cache lines of its own: the emit cursor at its start
                 * is written for every record, and a neighbour's line read
                 * by another worker would move with it. */
                weir_ctx *ctx = aligned_alloc(WEIR__CACHELINE,
                                              weir__round_up(sizeof *ctx, WEIR__CACHELINE));
                if (!ctx)
                    return fail(job, WEIR_ENOMEM, "out of memory");
                sub->ctxs[sub->nctx++] = ctx;
                int r = weir__ctx_init(ctx, job, sub, g->nodes[task->nodes[k]], i);
                if (r)
                    return fail(job, r, "out of memory");
                ctx->errors = &job->errors;
                ctx->clock = &job->clock;
                ctx->batch_hint = job->cfg.batch_capacity;
                ctx->interval_ms = job->cfg.watermark_interval_ms;
                ctx->diag.op_index = task->nodes[k];
                plan->node_ctx[task->nodes[k]][i] = ctx;
            }
        }
    }
    return 0;
}

static int add_chained(weir__output *o, weir_ctx *target)
{
    weir_ctx **c = realloc(o->chained, (size_t)(o->nchained + 1) * sizeof *c);
    if (!c)
        return WEIR_ENOMEM;
    c[o->nchained++] = target;
    o->chained = c;
    return 0;
}

static weir__outgroup *add_group(weir__output *o)
{
    weir__outgroup *g = realloc(o->groups, (size_t)(o->ngroups + 1) * sizeof *g);
    if (!g)
        return NULL;
    o->groups = g;
    weir__outgroup *grp = &g[o->ngroups++];
    memset(grp, 0, sizeof *grp);
    return grp;
}

static int wire_edge(weir_job *job, weir__plan *plan, int edge)
{
    const weir__edge *e = &job->graph.edges[edge];
    const weir__graph *g = &job->graph;
    const weir__node *from = g->nodes[e->from], *to = g->nodes[e->to];
    int pu = from->parallelism, pv = to->parallelism;

    if (e->chained) {
        for (int i = 0; i < pu; i++) {
            weir__output *o = ctx_output(plan->node_ctx[e->from][i], e->tag);
            if (add_chained(o, plan->node_ctx[e->to][i]))
                return fail(job, WEIR_ENOMEM, "out of memory");
        }
        return 0;
    }
    bool one_to_one = e->resolved == WEIR__PART_FORWARD;
    if (plan->nchannels + (one_to_one ? pu : pu * pv) > MAX_CHANNELS)
        return weir__job_fail(job, WEIR_EINVAL,
                                     "planning: more than %d channels (parallelism %d to %d on "
                                     "the edge from '%s' to '%s')",
                                     MAX_CHANNELS, pu, pv, from->name, to->name);
    size_t elem_size = e->tag == 0 ? from->out_size : 0;
    for (int k = 0; k < from->nside; k++) {
        if (from->side[k].tag == e->tag)
            elem_size = from->side[k].elem_size;
    }
    size_t batch_bytes = (size_t)job->cfg.batch_capacity * weir__slot_stride(elem_size);
    if (batch_bytes > MAX_BATCH_BYTES)
        return weir__job_fail(job, WEIR_EINVAL,
                                     "planning: a batch of %d elements of %zu bytes on the edge "
                                     "from '%s' to '%s' takes %zu MiB, more than %zu MiB; lower "
                                     "batch_capacity",
                                     job->cfg.batch_capacity, elem_size, from->name, to->name,
                                     batch_bytes >> 20, MAX_BATCH_BYTES >> 20);
    for (int i = 0; i < pu; i++) {
        weir_ctx *pctx = plan->node_ctx[e->from][i];
        weir__subtask *psub = pctx->sub;
        weir__outgroup *grp = add_group(ctx_output(pctx, e->tag));
        if (!grp)
            return fail(job, WEIR_ENOMEM, "out of memory");
        grp->part = e->resolved;
        grp->key = e->key;
        grp->max_parallelism = job->max_parallelism;
        if (e->key) {
            grp->keybuf = calloc(1, e->key->spec.key_size + 8);
            if (!grp->keybuf)
                return fail(job, WEIR_ENOMEM, "out of memory");
        }
        int first = one_to_one ? i : 0, last = one_to_one ? i : pv - 1;
        if (grp->part == WEIR__PART_HASH && e->key) {
            /* The channel each key group goes to: key_group.h's owner of the
             * group among the consumer's subtasks. */
            uint32_t nch = (uint32_t)(last - first + 1), maxp = grp->max_parallelism;
            grp->kg_channel = malloc((size_t)maxp * sizeof *grp->kg_channel);
            if (!grp->kg_channel)
                return fail(job, WEIR_ENOMEM, "out of memory");
            for (uint32_t kg = 0; kg < maxp; kg++)
                grp->kg_channel[kg] = (uint16_t)weir__key_group_subtask(maxp, nch, kg);
        }
        grp->ch = calloc((size_t)(last - first + 1), sizeof *grp->ch);
        if (!grp->ch)
            return fail(job, WEIR_ENOMEM, "out of memory");
        for (int j = first; j <= last; j++) {
            weir__subtask *csub = plan->node_ctx[e->to][j]->sub;
            weir__channel *ch = weir__channel_create(
                (uint32_t)elem_size, (uint32_t)job->cfg.batch_capacity,
                (uint32_t)job->cfg.channel_batches);
            if (!ch || push_channel(&plan->channels, &plan->nchannels, ch)) {
                weir__channel_destroy(ch);
                return fail(job, WEIR_ENOMEM, "out of memory");
            }
            ch->producer = psub;
            ch->consumer = csub;
            ch->events = &weir__sched_channel_events;
            ch->input = e->input;
            ch->edge = edge;
            ch->index = -1;
            grp->ch[grp->nch++] = ch;
            if (push_channel(&psub->outs, &psub->nouts, ch))
                return fail(job, WEIR_ENOMEM, "out of memory");
        }
    }
    return 0;
}

/* Gives every consumer input its channels in the documented order: input
 * edges as added, then producer subtask. */
static int order_inputs(weir_job *job, weir__plan *plan)
{
    const weir__graph *g = &job->graph;
    for (int n = 0; n < g->nnodes; n++) {
        const weir__node *node = g->nodes[n];
        for (int k = 0; k < node->nin_edges; k++) {
            const weir__edge *e = &g->edges[node->in_edges[k]];
            if (e->chained)
                continue;
            const weir__node *from = g->nodes[e->from];
            for (int i = 0; i < from->parallelism; i++) {
                weir_ctx *pctx = plan->node_ctx[e->from][i];
                weir__output *o = ctx_output(pctx, e->tag);
                for (int gi = 0; gi < o->ngroups; gi++) {
                    weir__outgroup *grp = &o->groups[gi];
                    for (int ci = 0; ci < grp->nch; ci++) {
                        weir__channel *ch = grp->ch[ci];
                        if (ch->edge != node->in_edges[k])
                            continue;
                        weir__input *in = &ch->consumer->in[e->input];
                        weir__channel **arr = realloc(in->ch, (size_t)(in->nch + 1) * sizeof *arr);
                        if (!arr)
                            return fail(job, WEIR_ENOMEM, "out of memory");
                        in->ch = arr;
                        ch->index = in->nch;
                        arr[in->nch++] = ch;
                    }
                }
            }
        }
    }
    for (int s = 0; s < plan->nsubs; s++) {
        weir__subtask *sub = plan->subs[s];
        for (int i = 0; i < sub->ninputs; i++) {
            weir__input *in = &sub->in[i];
            if (in->nch == 0)
                return weir__job_fail(job, WEIR_EINTERNAL,
                                             "planning: input %d of '%s' has no channel", i,
                                             sub->ctxs[0]->node->name);
            in->vch = calloc((size_t)in->nch, sizeof *in->vch);
            if (!in->vch)
                return fail(job, WEIR_ENOMEM, "out of memory");
            weir__valve_init(&in->valve, in->vch, in->nch);
        }
    }
    return 0;
}

int weir__plan_build(weir_job *job, weir__plan **out)
{
    *out = NULL;
    const weir__graph *g = &job->graph;
    if (g->nnodes == 0)
        return fail(job, WEIR_EINVAL, "the job has no sources or operators");
    int r = resolve_edges(job);
    if (r)
        return r;
    weir__plan *plan = calloc(1, sizeof *plan);
    if (!plan)
        return fail(job, WEIR_ENOMEM, "out of memory");
    r = make_tasks(job, plan);
    if (r == 0)
        r = make_subtasks(job, plan);
    for (int n = 0; r == 0 && n < g->nnodes; n++) {
        const weir__node *node = g->nodes[n];
        if (node->in_key[0] && (uint32_t)node->parallelism > job->max_parallelism)
            r = weir__job_fail(job, WEIR_EINVAL,
                     "planning: the keyed operator '%s' has parallelism %d, above the job's "
                     "max_parallelism %u (its key groups)%s",
                     node->name, node->parallelism, job->max_parallelism,
                     job->restored.id ? ", which the restored checkpoint fixed" : "");
    }
    if (r == 0)
        r = weir__align_plan(job, plan);
    for (int e = 0; r == 0 && e < g->nedges; e++)
        r = wire_edge(job, plan, e);
    if (r == 0)
        r = order_inputs(job, plan);
    for (int i = 0; r == 0 && i < plan->nsubs; i++) {
        weir__subtask *sub = plan->subs[i];
        for (int c = 0; r == 0 && c < sub->nctx; c++) {
            weir_ctx *ctx = sub->ctxs[c];
            r = weir__output_prepare(&ctx->out.main, (uint32_t)job->cfg.batch_capacity);
            for (int k = 0; r == 0 && k < ctx->out.nside; k++)
                r = weir__output_prepare(&ctx->out.side[k], (uint32_t)job->cfg.batch_capacity);
            if (r == 0)
                weir__ctx_ready(ctx);
        }
    }
    if (r == WEIR_ENOMEM)
        r = fail(job, r, "out of memory");
    if (r) {
        weir__plan_free(plan);
        return r;
    }
    *out = plan;
    return 0;
}
