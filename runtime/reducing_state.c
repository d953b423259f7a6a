/* reducing_state.c — reducing and aggregating state (weir/state.h, Flink's
 * ReducingState and AggregatingState): a value state whose value is the
 * accumulator, and the functions that fold into it, kept with the state
 * (weir__state.reduce, .agg). Everything else — time to live, snapshots,
 * restores, rescaling, sizes — is the value state's. */
#include <string.h>

#include "task.h"
#include "weir/error.h"
#include "weir/state.h"

int weir_state_declare_reducing(weir_ctx *ctx, size_t size, weir_state_reduce_fn reduce,
                                void *arg, int *id)
{
    if (!reduce)
        return weir_ctx_fail(ctx, WEIR_EINVAL, "weir_state_declare_reducing: reduce is required");
    int r = weir_state_declare(ctx, WEIR_STATE_VALUE, size, id);
    if (r)
        return r;
    weir__state *st = &ctx->keyed.states[*id];
    st->reduce = reduce;
    st->agg.arg = arg;
    return 0;
}

int weir_state_declare_aggregating(weir_ctx *ctx, const weir_state_aggregate *agg, int *id)
{
    if (!agg || !agg->add)
        return weir_ctx_fail(ctx, WEIR_EINVAL, "weir_state_declare_aggregating: add is required");
    int r = weir_state_declare(ctx, WEIR_STATE_VALUE, agg->acc_size, id);
    if (r)
        return r;
    weir__state *st = &ctx->keyed.states[*id];
    st->has_agg = true;
    st->agg = *agg;
    return 0;
}

/* The state `id` if it folds (reducing or aggregating); NULL with the ctx
 * failed. */
static weir__state *folding(weir_ctx *ctx, int id, const char *what)
{
    weir__state *st = weir__state_get(ctx, id, WEIR_STATE_VALUE, what);
    if (st && !st->reduce && !st->has_agg) {
        weir_ctx_fail(ctx, WEIR_EINVAL, "%s: state %d is not a reducing or aggregating state",
                      what, id);
        ctx->keyed.state_error = WEIR_EINVAL;
        return NULL;
    }
    return st;
}

int weir_state_add(weir_ctx *ctx, int id, int64_t ns, const void *value)
{
    weir__state *st = folding(ctx, id, "weir_state_add");
    if (!st)
        return ctx->keyed.state_error;
    /* absent first: a new accumulator is made, not folded into; an add is
     * a write (a time to live's stamp) either way */
    bool fresh = weir_state_value(ctx, id, ns, false) == NULL;
    void *acc = weir_state_value(ctx, id, ns, true);
    if (!acc)
        return weir_ctx_state_error(ctx);
    if (st->reduce) {
        if (fresh)
            memcpy(acc, value, st->size);
        else
            st->reduce(acc, value, st->agg.arg);
        return 0;
    }
    if (fresh && st->agg.create)
        st->agg.create(acc, st->agg.arg); /* on the zero-filled value */
    st->agg.add(acc, value, st->agg.arg);
    return 0;
}

int weir_state_get(weir_ctx *ctx, int id, int64_t ns, void *out)
{
    weir__state *st = folding(ctx, id, "weir_state_get");
    if (!st)
        return ctx->keyed.state_error;
    const void *acc = weir_state_value(ctx, id, ns, false);
    if (!acc)
        return 0;
    if (st->has_agg && st->agg.result)
        st->agg.result(acc, out, st->agg.arg);
    else
        memcpy(out, acc, st->size);
    return 1;
}
