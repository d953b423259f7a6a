/* harness.c — one operator driven by hand (weir/harness.h).
 *
 * The harness builds what the planner would build for a one-operator task of
 * parallelism 1 — a node, a subtask with its inputs' valves and the
 * multi-input combiner, and the operator's context — and feeds it through the
 * same functions the scheduler's step uses: records into weir__ctx_record,
 * watermarks and statuses into weir__subtask_valve_watermark/_status. Only the
 * channels are missing: outputs go to the harness's capture callbacks, and
 * processing time is a virtual clock the caller moves.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "error_slot.h"
#include "subtask.h"
#include "task.h"
#include "util.h"
#include "weir/error.h"
#include "weir/harness.h"

struct weir_harness {
    weir__node node;
    weir__key keys[2];
    weir_harness_output output;
    weir__subtask sub;
    weir_ctx ctx;
    weir_ctx *ctxs[1];
    weir__valve_channel *vch[2];
    weir__clock clock;
    weir__errors errors;
    bool failed;
    bool ended;
    bool ctx_ready;
};

static void no_record(int tag, const void *elem, int64_t ts, void *arg)
{
    (void)tag;
    (void)elem;
    (void)ts;
    (void)arg;
}

static void no_watermark(int64_t wm, void *arg)
{
    (void)wm;
    (void)arg;
}

static void no_status(bool idle, void *arg)
{
    (void)idle;
    (void)arg;
}

static void harness_free(weir_harness *h)
{
    if (h->ctx_ready)
        weir__ctx_free(&h->ctx);
    weir__node_clear(&h->node);
    free(h->vch[0]);
    free(h->vch[1]);
    weir__errors_destroy(&h->errors);
    free(h);
}

static int create_error(char *errbuf, size_t errsize, int err, const char *msg)
{
    if (errbuf && errsize)
        snprintf(errbuf, errsize, "%s", msg);
    return err;
}

/* Why the config cannot make a harness (into why; empty if it can). */
static void config_refused(const weir_harness_config *config, int inputs, char *why,
                           size_t whysize)
{
    if (inputs < 1 || inputs > 2)
        snprintf(why, whysize, "inputs %d is not 1 or 2", inputs);
    else if (!weir__process_spec_refused(config->op, why, whysize) && inputs == 2 &&
             config->key[0] == NULL && config->key[1] != NULL)
        snprintf(why, whysize, "either every input is keyed or none is (or only the first: a "
                 "keyed operator's broadcast input)");
    for (int i = 0; !why[0] && i < inputs; i++) {
        int ch = config->channels[i] ? config->channels[i] : 1;
        const weir_key_spec *key = config->key[i];
        if (ch < 1 || ch > 4096)
            snprintf(why, whysize, "input %d: %d channels is not in 1..4096", i, ch);
        else if (config->in_size[i] == 0 || config->in_size[i] > WEIR_MAX_ELEM_SIZE)
            snprintf(why, whysize, "input %d: element size %zu is not in 1..%d", i,
                     config->in_size[i], WEIR_MAX_ELEM_SIZE);
        else if (key && (!key->extract || key->key_size == 0 || key->key_size > WEIR_MAX_KEY_SIZE))
            snprintf(why, whysize, "input %d: the key needs extract and a key_size in 1..%d", i,
                     WEIR_MAX_KEY_SIZE);
    }
    if (!why[0] && inputs == 2 && config->key[0] && config->key[1] &&
        config->key[0]->key_size != config->key[1]->key_size)
        snprintf(why, whysize, "the inputs' keys differ in size");
}

/* The harness's one node, as stream.c would make it. 0 or WEIR_ENOMEM. */
static int harness_node(weir_harness *h, const weir_harness_config *config, int inputs)
{
    const weir_process_spec *spec = config->op;
    weir__node *n = &h->node;
    int copied = weir__node_from_spec(n, spec, inputs);
    n->arg_free = spec->arg_free;
    n->impl_free = spec->impl_free;
    if (copied == 0 && !n->name)
        n->name = weir__strdup(n->kind);
    n->parallelism = 1;
    for (int i = 0; i < inputs; i++) {
        n->in_size[i] = config->in_size[i];
        if (config->key[i]) {
            h->keys[i].spec = *config->key[i];
            n->in_key[i] = &h->keys[i];
        }
    }
    return copied || !n->name ? WEIR_ENOMEM : 0;
}

/* The subtask around the node: its inputs' valves over the configured
 * channels. 0 or WEIR_ENOMEM. */
static int harness_subtask(weir_harness *h, const weir_harness_config *config, int inputs)
{
    weir__subtask *sub = &h->sub;
    sub->ninputs = inputs;
    sub->flush_deadline = INT64_MAX;
    sub->deadline = INT64_MAX;
    sub->phase = WEIR__SUB_RUNNING;
    weir__combiner_init(&sub->comb, inputs);
    for (int i = 0; i < inputs; i++) {
        int ch = config->channels[i] ? config->channels[i] : 1;
        h->vch[i] = calloc((size_t)ch, sizeof *h->vch[i]);
        if (!h->vch[i])
            return WEIR_ENOMEM;
        sub->in[i].nch = ch;
        sub->in[i].vch = h->vch[i];
        weir__valve_init(&sub->in[i].valve, h->vch[i], ch);
    }
    return 0;
}

/* The node's context, every output captured by the harness, ready to
 * open. 0 or a negative WEIR_E* code. */
static int harness_context(weir_harness *h, const weir_harness_config *config)
{
    weir__subtask *sub = &h->sub;
    int r = weir__ctx_init(&h->ctx, NULL, sub, &h->node, 0);
    h->ctx_ready = true;
    if (r)
        return r;
    h->ctxs[0] = &h->ctx;
    sub->ctxs = h->ctxs;
    sub->nctx = 1;
    weir_ctx *ctx = &h->ctx;
    ctx->errors = &h->errors;
    ctx->clock = &h->clock;
    ctx->batch_hint = 1;
    ctx->interval_ms = config->watermark_interval_ms ? config->watermark_interval_ms : 200;
    ctx->capture = &h->output;
    ctx->out.main.capture = &h->output;
    for (int i = 0; i < ctx->out.nside; i++)
        ctx->out.side[i].capture = &h->output;
    r = weir__output_prepare(&ctx->out.main, 1);
    for (int i = 0; r == 0 && i < ctx->out.nside; i++)
        r = weir__output_prepare(&ctx->out.side[i], 1);
    if (r)
        return r;
    weir__ctx_ready(ctx);
    return 0;
}

int weir_harness_create(const weir_harness_config *config, weir_harness **out, char *errbuf,
                        size_t errsize)
{
    if (out)
        *out = NULL;
    if (!config || !out || !config->op)
        return create_error(errbuf, errsize, WEIR_EINVAL, "a config with op is required");
    const weir_process_spec *spec = config->op;
    int inputs = config->inputs ? config->inputs : 1;
    char why[256] = "";
    config_refused(config, inputs, why, sizeof why);
    if (why[0]) {
        weir__process_spec_free_owned(spec);
        return create_error(errbuf, errsize, WEIR_EINVAL, why);
    }
    weir_harness *h = calloc(1, sizeof *h);
    if (!h) {
        weir__process_spec_free_owned(spec);
        return create_error(errbuf, errsize, WEIR_ENOMEM, "out of memory");
    }
    weir__errors_init(&h->errors);
    weir__clock_init(&h->clock, true);
    /* From here h owns the spec's arg and impl (harness_free). */
    int r = harness_node(h, config, inputs);
    h->output = config->output;
    if (!h->output.on_record)
        h->output.on_record = no_record;
    if (!h->output.on_watermark)
        h->output.on_watermark = no_watermark;
    if (!h->output.on_status)
        h->output.on_status = no_status;
    if (r == 0)
        r = harness_subtask(h, config, inputs);
    if (r == 0)
        r = harness_context(h, config);
    if (r) {
        harness_free(h);
        return create_error(errbuf, errsize, r, "out of memory");
    }
    r = weir__ctx_open(&h->ctx);
    if (r < 0) {
        create_error(errbuf, errsize, r, h->errors.msg);
        harness_free(h);
        return r;
    }
    *out = h;
    return 0;
}

weir_ctx *weir__harness_ctx(weir_harness *h)
{
    return &h->ctx;
}

void weir_harness_destroy(weir_harness *h)
{
    if (!h)
        return;
    weir__ctx_close(&h->ctx);
    harness_free(h);
}

/* Every feeding call starts here: a failed or ended harness takes nothing. */
static int usable(weir_harness *h)
{
    if (!h)
        return WEIR_EINVAL;
    if (h->failed || h->ended)
        return WEIR_ESTATE;
    return 0;
}

static int result(weir_harness *h, int r)
{
    if (r < 0) {
        h->failed = true;
        if (!h->errors.code)
            weir__errors_set(&h->errors, r, "operator '%s': %s", h->node.name, weir_strerror(r));
    }
    return r < 0 ? r : 0;
}

static int check_channel(weir_harness *h, int input, int channel)
{
    if (input < 0 || input >= h->sub.ninputs || channel < 0 || channel >= h->sub.in[input].nch) {
        weir__errors_set(&h->errors, WEIR_ERANGE, "no channel %d on input %d", channel, input);
        return WEIR_ERANGE;
    }
    return 0;
}

int weir_harness_record(weir_harness *h, int input, int channel, const void *elem, int64_t ts)
{
    int r = usable(h);
    if (r == 0)
        r = check_channel(h, input, channel);
    if (r)
        return r;
    return result(h, weir__ctx_record(&h->ctx, input, elem, ts));
}

int weir_harness_watermark(weir_harness *h, int input, int channel, int64_t watermark)
{
    int r = usable(h);
    if (r == 0)
        r = check_channel(h, input, channel);
    if (r)
        return r;
    return result(h, weir__subtask_valve_watermark(&h->sub, input, channel, watermark));
}

int weir_harness_idle(weir_harness *h, int input, int channel)
{
    int r = usable(h);
    if (r == 0)
        r = check_channel(h, input, channel);
    if (r)
        return r;
    return result(h, weir__subtask_valve_status(&h->sub, input, channel, true));
}

int weir_harness_active(weir_harness *h, int input, int channel)
{
    int r = usable(h);
    if (r == 0)
        r = check_channel(h, input, channel);
    if (r)
        return r;
    return result(h, weir__subtask_valve_status(&h->sub, input, channel, false));
}

int weir_harness_advance(weir_harness *h, int64_t t)
{
    int r = usable(h);
    if (r)
        return r;
    int64_t now = weir__clock_now(&h->clock);
    if (t < now) {
        weir__errors_set(&h->errors, WEIR_EINVAL, "time %lld is before the current time %lld",
                         (long long)t, (long long)now);
        return WEIR_EINVAL;
    }
    /* Each due timer fires at its own time, in time order; timers registered
     * while firing are due in the same advance if they fall before t. */
    for (;;) {
        /* No timer left reads as MAX, which is not "a timer due at MAX". */
        if (weir__timers_empty(&h->ctx.timers.processing))
            break;
        int64_t next = weir__ctx_next_processing(&h->ctx);
        if (next > t)
            break;
        if (next > now) {
            weir__clock_set(&h->clock, next);
            now = next;
        }
        r = result(h, weir__ctx_fire_processing(&h->ctx, now));
        if (r)
            return r;
    }
    weir__clock_set(&h->clock, t);
    return 0;
}

int weir_harness_end(weir_harness *h)
{
    int r = usable(h);
    if (r)
        return r;
    for (int i = 0; i < h->sub.ninputs; i++) {
        for (int c = 0; c < h->sub.in[i].nch; c++) {
            r = result(h, weir__subtask_valve_watermark(&h->sub, i, c, WEIR_TS_MAX));
            if (r)
                return r;
        }
    }
    /* As in a subtask: END means no element will arrive again, so MAX holds
     * even if the valves ignored it (every channel idle). */
    if (h->ctx.input.wm < WEIR_TS_MAX) {
        r = result(h, weir__ctx_advance_watermark(&h->ctx, WEIR_TS_MAX));
        if (r)
            return r;
    }
    r = result(h, weir__ctx_end_chain(&h->ctx));
    h->ended = true;
    weir__ctx_close(&h->ctx);
    return r;
}

int64_t weir_harness_now(const weir_harness *h)
{
    return weir__clock_now(&h->clock);
}

const char *weir_harness_last_error(const weir_harness *h)
{
    return h ? h->errors.msg : "";
}
