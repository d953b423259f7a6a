/* test_plan.c — runtime/plan.c, the logical graph made into tasks,
 * subtasks, contexts and channels. Each test builds a graph, plans it
 * (weir__plan_build, as weir_job_run does first, with no thread started)
 * and looks at the plan: which edges chain, how many tasks and subtasks,
 * a channel per producer and consumer subtask pair, the order of a
 * consumer's channels, inherited parallelism; and the graphs the planner
 * refuses, with their messages, leaving no plan behind.
 */
#include <criterion/criterion.h>
#include <string.h>

#include "job_state.h"
#include "support/weir_testutil.h"

static const int64_t values[4] = {1, 2, 3, 4};

static weir_stream *source(weir_job *job, const char *name, int parallelism)
{
    weir_stream *s = weir_source_array(job, values, 4, 8, NULL);
    cr_assert_not_null(s, "%s", weir_job_error(job));
    weir_stream_set_name(s, name);
    return weir_stream_set_parallelism(s, parallelism);
}

/* A one-input pass-through operator; parallelism 0: the job's default. */
static weir_stream *pass(weir_stream *in, const char *name, int parallelism)
{
    weir_process_spec spec = {
        .name = name, .vtable = &tu_pass_vtable, .out_size = 8, .parallelism = parallelism};
    weir_stream *s = weir_stream_process(in, &spec);
    cr_assert_not_null(s, "%s", weir_job_error(weir_stream_job(in)));
    return s;
}

static weir__plan *plan_of(weir_job *job)
{
    weir__plan *plan = NULL;
    int r = weir__plan_build(job, &plan);
    cr_assert_eq(r, 0, "planning: %s: %s", weir_err_name(r), weir_job_error(job));
    cr_assert_not_null(plan);
    return plan;
}

static int node_id(const weir_job *job, const char *name)
{
    for (int i = 0; i < job->graph.nnodes; i++) {
        if (strcmp(job->graph.nodes[i]->name, name) == 0)
            return i;
    }
    cr_assert_fail("no node '%s'", name);
    return -1;
}

/* The task whose chain holds the node called name. */
static const weir__task *task_of(const weir_job *job, const weir__plan *plan, const char *name)
{
    int id = node_id(job, name);
    for (int t = 0; t < plan->ntasks; t++) {
        for (int k = 0; k < plan->tasks[t].nnodes; k++) {
            if (plan->tasks[t].nodes[k] == id)
                return &plan->tasks[t];
        }
    }
    cr_assert_fail("node '%s' is in no task", name);
    return NULL;
}

/* Channels of the plan from node `from` to node `to`. */
static int channels_between(const weir_job *job, const weir__plan *plan, const char *from,
                            const char *to)
{
    int f = node_id(job, from), t = node_id(job, to), n = 0;
    for (int i = 0; i < plan->nchannels; i++) {
        const weir__edge *e = &job->graph.edges[plan->channels[i]->edge];
        n += e->from == f && e->to == t;
    }
    return n;
}

/* Every (producer subtask, consumer subtask) pair between the two nodes has
 * exactly one channel, and no other channel joins them. */
static void assert_one_channel_per_pair(const weir_job *job, const weir__plan *plan,
                                        const char *from, const char *to)
{
    int f = node_id(job, from), t = node_id(job, to);
    int pu = job->graph.nodes[f]->parallelism, pv = job->graph.nodes[t]->parallelism;
    int seen[8][8] = {{0}};
    for (int i = 0; i < plan->nchannels; i++) {
        const weir__channel *ch = plan->channels[i];
        const weir__edge *e = &job->graph.edges[ch->edge];
        if (e->from != f || e->to != t)
            continue;
        cr_assert_eq(ch->producer, plan->node_ctx[f][ch->producer->index]->sub);
        cr_assert_eq(ch->consumer->ctxs[0], plan->node_ctx[t][ch->consumer->index],
                     "a channel's consumer runs the node at the head of its task");
        seen[ch->producer->index][ch->consumer->index]++;
    }
    for (int i = 0; i < pu; i++) {
        for (int j = 0; j < pv; j++)
            cr_assert_eq(seen[i][j], 1, "%s[%d] -> %s[%d]: %d channels", from, i, to, j, seen[i][j]);
    }
}

/* ---- chaining ------------------------------------------------------------- */

/* Forward edges with equal parallelism into one-input operators chain: the
 * whole pipeline is one task whose subtasks run it as plain calls, in
 * chain order, with no channel. */
Test(plan, forward_edges_of_equal_parallelism_chain_into_one_task)
{
    weir_job *job = tu_job(&(weir_job_config){.parallelism = 2});
    weir_stream *s = pass(pass(source(job, "src", 2), "a", 0), "b", 0);
    weir_sink_discard(s);
    weir__plan *plan = plan_of(job);
    cr_assert_eq(plan->ntasks, 1);
    cr_assert_eq(plan->nchannels, 0);
    cr_assert_eq(plan->nsubs, 2);
    const weir__task *t = &plan->tasks[0];
    cr_assert_eq(t->parallelism, 2);
    cr_assert_eq(t->nnodes, 4, "source, a, b and the sink");
    cr_assert_eq(t->nodes[0], node_id(job, "src"));
    cr_assert_eq(t->nodes[1], node_id(job, "a"));
    cr_assert_eq(t->nodes[2], node_id(job, "b"));
    for (int i = 0; i < 2; i++) {
        const weir__subtask *sub = t->subs[i];
        cr_assert_eq(sub->index, i);
        cr_assert_eq(sub->nctx, 4);
        cr_assert(sub->ctxs[0]->is_source);
        cr_assert_eq(sub->nouts, 0);
        cr_assert_eq(sub->ninputs, 0);
        /* the source's main output goes to a, chained, in the same subtask */
        cr_assert_eq(sub->ctxs[0]->out.main.nchained, 1);
        cr_assert_eq(sub->ctxs[0]->out.main.chained[0], sub->ctxs[1]);
        cr_assert_eq(sub->ctxs[1]->sub, sub);
    }
    for (int e = 0; e < job->graph.nedges; e++)
        cr_assert(job->graph.edges[e].chained, "edge %d not chained", e);
    weir__plan_free(plan);
    weir_job_destroy(job);
}

/* Chaining off: the same graph is a task per node, forward edges one
 * channel per subtask pair i -> i. */
Test(plan, chaining_off_makes_a_task_per_node_and_forward_channels_i_to_i)
{
    weir_job *job = tu_job(&(weir_job_config){.parallelism = 2, .disable_chaining = true});
    weir_sink_discard(pass(source(job, "src", 2), "a", 0));
    weir__plan *plan = plan_of(job);
    cr_assert_eq(plan->ntasks, 3);
    cr_assert_eq(plan->nsubs, 6);
    cr_assert_eq(channels_between(job, plan, "src", "a"), 2);
    for (int i = 0; i < plan->nchannels; i++) {
        const weir__channel *ch = plan->channels[i];
        cr_assert_eq(ch->producer->index, ch->consumer->index, "a forward channel %d -> %d",
                     ch->producer->index, ch->consumer->index);
    }
    weir__plan_free(plan);
    weir_job_destroy(job);
}

/* What stops a chain: a change of parallelism, an explicit rebalance, a
 * second input edge (a union) and a two-input operator. */
Test(plan, chains_stop_at_repartitioning_unions_and_two_inputs)
{
    weir_job *job = tu_job(&(weir_job_config){.parallelism = 2});
    weir_stream *src = source(job, "src", 2);
    weir_stream *wide = pass(src, "wide", 3);                       /* 2 -> 3 */
    weir_stream *again = pass(weir_stream_rebalance(src), "again", 2); /* explicit */
    weir_stream *both[] = {pass(src, "left", 2), pass(src, "right", 2)};
    weir_stream *joined = pass(weir_stream_union(both, 2), "joined", 2);
    weir_process_spec two = {.name = "two", .vtable = &tu_pass_vtable, .out_size = 8};
    weir_stream *co = weir_stream_connect(again, joined, &two);
    cr_assert_not_null(co, "%s", weir_job_error(job));
    weir_sink_discard(wide);
    weir_sink_discard(co);
    weir__plan *plan = plan_of(job);
    /* left and right chain to the source; wide, again, joined, two are heads */
    cr_assert_eq(task_of(job, plan, "left"), task_of(job, plan, "src"));
    cr_assert_eq(task_of(job, plan, "right"), task_of(job, plan, "src"));
    const char *heads[] = {"wide", "again", "joined", "two"};
    for (int i = 0; i < 4; i++) {
        const weir__task *t = task_of(job, plan, heads[i]);
        cr_assert_eq(t->nodes[0], node_id(job, heads[i]), "%s does not head its task", heads[i]);
    }
    assert_one_channel_per_pair(job, plan, "src", "wide");
    assert_one_channel_per_pair(job, plan, "src", "again");
    cr_assert_eq(channels_between(job, plan, "left", "joined"), 2);
    cr_assert_eq(channels_between(job, plan, "right", "joined"), 2);
    cr_assert_eq(channels_between(job, plan, "again", "two"), 2);
    cr_assert_eq(channels_between(job, plan, "joined", "two"), 2);
    weir__plan_free(plan);
    weir_job_destroy(job);
}

/* ---- channels --------------------------------------------------------------- */

static void key_of(const void *elem, void *key, void *arg)
{
    (void)arg;
    memcpy(key, elem, 8);
}

/* Rebalance, key_by and broadcast: one SPSC channel for every producer and
 * consumer subtask pair, whatever the parallelism on either side. */
Test(plan, one_channel_per_producer_and_consumer_pair)
{
    weir_job *job = tu_job(&(weir_job_config){.parallelism = 2});
    weir_stream *src = source(job, "src", 2);
    weir_key_spec key = {.key_size = 8, .extract = key_of};
    weir_sink_discard(pass(weir_stream_rebalance(src), "rebalanced", 3));
    weir_sink_discard(pass(weir_stream_key_by(src, &key), "keyed", 4));
    weir_sink_discard(pass(weir_stream_broadcast(src), "broadcast", 1));
    weir__plan *plan = plan_of(job);
    assert_one_channel_per_pair(job, plan, "src", "rebalanced");
    assert_one_channel_per_pair(job, plan, "src", "keyed");
    assert_one_channel_per_pair(job, plan, "src", "broadcast");
    cr_assert_eq(channels_between(job, plan, "src", "rebalanced") +
                     channels_between(job, plan, "src", "keyed") +
                     channels_between(job, plan, "src", "broadcast"),
                 2 * 3 + 2 * 4 + 2 * 1);
    /* Each source subtask produces into every channel it owns, and its
     * outputs hold one group per edge. */
    for (int i = 0; i < 2; i++) {
        const weir_ctx *ctx = plan->node_ctx[node_id(job, "src")][i];
        cr_assert_eq(ctx->sub->nouts, 3 + 4 + 1);
        cr_assert_eq(ctx->out.main.ngroups, 3);
    }
    weir__plan_free(plan);
    weir_job_destroy(job);
}

/* A consumer's channels are numbered by its input edges in the order they
 * were added, then by producer subtask: the valve's and the capture's
 * channel numbers. */
Test(plan, a_consumers_channels_follow_its_edges_then_producer_subtasks)
{
    weir_job *job = tu_job(&(weir_job_config){.parallelism = 2});
    weir_stream *b = source(job, "b", 3);
    weir_stream *a = source(job, "a", 2);
    /* a's edge is added first although a was made second; a -> c is a
     * forward edge (equal parallelism) that cannot chain (c has two input
     * edges): one channel, from a's subtask of the same index */
    weir_stream *both[] = {a, b};
    weir_sink_discard(pass(weir_stream_union(both, 2), "c", 2));
    weir__plan *plan = plan_of(job);
    int c = node_id(job, "c");
    for (int j = 0; j < 2; j++) {
        const weir__subtask *sub = plan->node_ctx[c][j]->sub;
        cr_assert_eq(sub->ninputs, 1);
        const weir__input *in = &sub->in[0];
        cr_assert_eq(in->nch, 4);
        const char *from[] = {"a", "b", "b", "b"};
        const int producer[] = {j, 0, 1, 2};
        for (int k = 0; k < 4; k++) {
            const weir__channel *ch = in->ch[k];
            cr_assert_eq(ch->index, k);
            cr_assert_eq(ch->input, 0);
            cr_assert_eq(job->graph.edges[ch->edge].from, node_id(job, from[k]),
                         "c[%d] channel %d is not from %s", j, k, from[k]);
            cr_assert_eq(ch->producer->index, producer[k], "c[%d] channel %d: producer %d", j, k,
                         ch->producer->index);
        }
    }
    weir__plan_free(plan);
    weir_job_destroy(job);
}

/* An operator that inherits its parallelism takes its producer's, not the
 * job's default, and so chains to it. */
Test(plan, inherited_parallelism_is_the_producers)
{
    weir_job *job = tu_job(&(weir_job_config){.parallelism = 1});
    weir_sink_discard(pass(source(job, "src", 3), "heir", WEIR_PARALLELISM_INHERIT));
    weir__plan *plan = plan_of(job);
    cr_assert_eq(job->graph.nodes[node_id(job, "heir")]->parallelism, 3);
    cr_assert_eq(task_of(job, plan, "heir"), task_of(job, plan, "src"));
    cr_assert_eq(plan->nchannels, 1 * 3, "the sink, at the default 1, is fed by 3 channels");
    weir__plan_free(plan);
    weir_job_destroy(job);
}

/* ---- refusals ----------------------------------------------------------------- */

static void expect_refused(weir_job *job, int err, const char *const *words, int nwords)
{
    weir__plan *plan = (weir__plan *)&plan; /* anything but NULL */
    int r = weir__plan_build(job, &plan);
    cr_assert_eq(r, err, "planning returned %s: %s", weir_err_name(r), weir_job_error(job));
    cr_assert_null(plan, "a refused plan is not handed out");
    for (int i = 0; i < nwords; i++)
        cr_assert(strstr(weir_job_error(job), words[i]), "'%s' does not say '%s'",
                  weir_job_error(job), words[i]);
}

Test(plan, refuses_an_empty_job)
{
    weir_job *job = tu_job(NULL);
    const char *w[] = {"the job has no sources or operators"};
    expect_refused(job, WEIR_EINVAL, w, 1);
    weir_job_destroy(job);
}

Test(plan, refuses_a_forward_edge_between_different_parallelism)
{
    weir_job *job = tu_job(NULL);
    weir_sink_discard(pass(weir_stream_forward(source(job, "src", 2)), "narrow", 1));
    const char *w[] = {"planning: forward edge from 'src' (parallelism 2) to 'narrow' "
                       "(parallelism 1): a forward edge needs equal parallelism (use rebalance)"};
    expect_refused(job, WEIR_EINVAL, w, 1);
    weir_job_destroy(job);
}

/* A keyed operator cannot have more subtasks than there are key groups. */
Test(plan, refuses_a_keyed_operator_above_max_parallelism)
{
    weir_job *job = tu_job(&(weir_job_config){.parallelism = 2, .max_parallelism = 4});
    weir_key_spec key = {.key_size = 8, .extract = key_of};
    weir_sink_discard(pass(weir_stream_key_by(source(job, "src", 2), &key), "keyed", 8));
    const char *w[] = {"planning: the keyed operator 'keyed' has parallelism 8, above the job's "
                       "max_parallelism 4 (its key groups)"};
    expect_refused(job, WEIR_EINVAL, w, 1);
    weir_job_destroy(job);
}

/* 1024 x 1024 channels on one edge are more than the planner makes: refused
 * with the edge named, everything made so far freed. */
Test(plan, refuses_more_channels_than_it_makes, .timeout = 60)
{
    weir_job *job = tu_job(NULL);
    weir_stream *src = source(job, "wide_src", WEIR_MAX_PARALLELISM);
    weir_sink_discard(pass(weir_stream_rebalance(src), "wide_op", WEIR_MAX_PARALLELISM));
    const char *w[] = {"planning: more than 262144 channels (parallelism 1024 to 1024 on the edge "
                       "from 'wide_src' to 'wide_op')"};
    expect_refused(job, WEIR_EINVAL, w, 1);
    weir_job_destroy(job);
}
