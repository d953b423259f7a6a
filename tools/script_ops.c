/* script_ops.c — the operators of `weir script`: parsing their `op`
 * statement (SCRIPT.md), building the real operator for the harness, and
 * printing what it emits.
 *
 *   passthrough inputs=N | inputs=N+M   records pass; watermarks and statuses
 *                                       go through the valves (and the
 *                                       multi-input combination)
 *   timestamps strategy=S [interval=MS] [idleness=MS]
 *   window assign=A [lateness=MS] [trigger=event|purging]
 *          [fn=sum|count|min|max] [late=side|drop]
 */
#include "script_ops.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "script_parse.h"
#include "script_window.h"

/* ---- printing ------------------------------------------------------------- */

static void print_ts(int64_t t)
{
    char buf[21];
    fputs(weir_ts_format(t, buf), stdout);
}

static void print_rec(const char *what, const weir_script_rec *r, int64_t ts)
{
    fputs(what, stdout);
    fputc(' ', stdout);
    print_ts(ts);
    printf(" key=%s value=%" PRId64, r->key, r->value);
    if (r->kind == 1)
        printf(" window=%" PRId64 ",%" PRId64, r->window_start, r->window_end);
    else if (r->kind == 2)
        fputs(" window=global", stdout);
    fputc('\n', stdout);
}

static void out_record(int tag, const void *elem, int64_t ts, void *arg)
{
    (void)arg;
    print_rec(tag == 0 ? "rec" : "late", elem, ts);
}

static void out_dropped(const void *elem, int64_t ts, void *arg)
{
    (void)arg;
    print_rec("drop", elem, ts);
}

static void out_watermark(int64_t wm, void *arg)
{
    (void)arg;
    fputs("wm ", stdout);
    print_ts(wm);
    fputc('\n', stdout);
}

static void out_status(bool idle, void *arg)
{
    (void)arg;
    puts(idle ? "idle" : "active");
}

/* ---- the passthrough operator --------------------------------------------- */

static int pass_record(weir_ctx *ctx, int input, const void *elem, int64_t ts)
{
    (void)input;
    return weir_emit(ctx, elem, ts);
}

static const weir_operator_vtable pass_vtable = {
    .version = WEIR_OPERATOR_VTABLE_V1,
    .on_record = pass_record,
};

/* ---- timestamps helpers --------------------------------------------------- */

static int64_t record_ts(const void *elem, int64_t current, void *arg)
{
    (void)elem;
    (void)arg;
    return current;
}

static int64_t marked_ts(const void *elem, int64_t ts, void *arg)
{
    (void)arg;
    const weir_script_rec *r = elem;
    return r->mark ? ts : WEIR_TS_MIN;
}

/* ---- parsing -------------------------------------------------------------- */

/* The NAME=VALUE settings after `op OP`; every message names the operator,
 * like the operators' own setting errors do. */
static int parse_params(const char *op, char **tok, int n, weir_script_param *p, int *np,
                        char *why, size_t whysize)
{
    *np = 0;
    for (int i = 0; i < n; i++) {
        char *eq = strchr(tok[i], '=');
        if (!eq || eq == tok[i] || !eq[1]) {
            snprintf(why, whysize, "op %s: '%s' is not a setting NAME=VALUE", op, tok[i]);
            return -1;
        }
        *eq = '\0';
        for (int k = 0; k < *np; k++) {
            if (strcmp(p[k].name, tok[i]) == 0) {
                snprintf(why, whysize, "op %s: setting '%s' given twice", op, tok[i]);
                return -1;
            }
        }
        p[*np].name = tok[i];
        p[*np].value = eq + 1;
        p[*np].used = false;
        (*np)++;
    }
    return 0;
}

static int parse_passthrough(weir_script_op *op, weir_script_param *p, int np, char *why, size_t whysize)
{
    op->kind = WEIR_SCRIPT_PASSTHROUGH;
    op->inputs = 1;
    op->channels[0] = 1;
    const char *v = weir_script_param_get(p, np, "inputs");
    if (v) {
        char first[32], inner[WEIR_SCRIPT_WHY];
        const char *plus = strchr(v, '+');
        size_t len = plus ? (size_t)(plus - v) : strlen(v);
        if (len == 0 || len >= sizeof first) {
            snprintf(why, whysize, "op passthrough: inputs=%s is not N or N+M", v);
            return -1;
        }
        memcpy(first, v, len);
        first[len] = '\0';
        int a, b = 0;
        if (weir_script_parse_index(first, &a, inner, sizeof inner) ||
            (plus && weir_script_parse_index(plus + 1, &b, inner, sizeof inner))) {
            snprintf(why, whysize, "op passthrough: inputs=%s is not N or N+M: %s", v, inner);
            return -1;
        }
        if (a < 1 || a > 4096 || (plus && (b < 1 || b > 4096))) {
            snprintf(why, whysize, "op passthrough: inputs=%s: every input needs 1..4096 "
                     "channels", v);
            return -1;
        }
        op->channels[0] = a;
        if (plus) {
            op->inputs = 2;
            op->channels[1] = b;
        }
    }
    return weir_script_param_unused("passthrough", p, np, "inputs", why, whysize);
}

static int parse_timestamps(weir_script_op *op, weir_script_param *p, int np, char *why, size_t whysize)
{
    op->kind = WEIR_SCRIPT_TIMESTAMPS;
    op->inputs = 1;
    op->channels[0] = 1;
    const char *s = weir_script_param_get(p, np, "strategy");
    if (!s) {
        snprintf(why, whysize, "op timestamps: strategy=S is required (bounded:B, ascending, "
                 "punctuated or none)");
        return -1;
    }
    weir_watermark_strategy *st = &op->strategy;
    if (strncmp(s, "bounded:", 8) == 0) {
        char inner[WEIR_SCRIPT_WHY];
        st->kind = WEIR_WATERMARKS_BOUNDED;
        if (weir_script_parse_int(s + 8, false, &st->bound_ms, inner, sizeof inner)) {
            snprintf(why, whysize, "op timestamps: strategy=%s: the bound %s", s, inner);
            return -1;
        }
        if (st->bound_ms < 0) {
            snprintf(why, whysize, "op timestamps: strategy=%s: the out-of-orderness bound must "
                     "be >= 0", s);
            return -1;
        }
    } else if (strcmp(s, "ascending") == 0) {
        st->kind = WEIR_WATERMARKS_ASCENDING;
    } else if (strcmp(s, "punctuated") == 0) {
        st->kind = WEIR_WATERMARKS_PUNCTUATED;
        st->punctuated = marked_ts;
    } else if (strcmp(s, "none") == 0) {
        st->kind = WEIR_WATERMARKS_NONE;
    } else {
        snprintf(why, whysize, "op timestamps: unknown strategy '%s' (expected bounded:B, "
                 "ascending, punctuated or none)", s);
        return -1;
    }
    const char *v = weir_script_param_get(p, np, "interval");
    st->interval_ms = 200;
    if (v) {
        if (weir_script_param_ms("timestamps", "interval", v, false, &st->interval_ms, why, whysize))
            return -1;
        /* interval=0 disables periodic probes (SEMANTICS.md 1) */
        if (st->interval_ms == 0)
            st->interval_ms = WEIR_DISABLED;
    }
    v = weir_script_param_get(p, np, "idleness");
    if (v && weir_script_param_ms("timestamps", "idleness", v, true, &st->idleness_ms, why, whysize))
        return -1;
    return weir_script_param_unused("timestamps", p, np, "strategy, interval, idleness", why, whysize);
}

int weir_script_op_parse(weir_script_op *op, char **tok, int n, char *why, size_t whysize)
{
    memset(op, 0, sizeof *op);
    if (n < 1) {
        snprintf(why, whysize, "op needs an operator: passthrough, timestamps or window");
        return -1;
    }
    weir_script_param p[16];
    int np;
    if (n - 1 > (int)(sizeof p / sizeof p[0])) {
        snprintf(why, whysize, "op %s: too many settings", tok[0]);
        return -1;
    }
    if (parse_params(tok[0], tok + 1, n - 1, p, &np, why, whysize))
        return -1;
    if (strcmp(tok[0], "passthrough") == 0)
        return parse_passthrough(op, p, np, why, whysize);
    if (strcmp(tok[0], "timestamps") == 0)
        return parse_timestamps(op, p, np, why, whysize);
    if (strcmp(tok[0], "window") == 0)
        return weir_script_window_parse(op, p, np, why, whysize);
    snprintf(why, whysize, "unknown operator '%s' (expected passthrough, timestamps or window)",
             tok[0]);
    return -1;
}

/* ---- the harness ---------------------------------------------------------- */

static void script_key(const void *elem, void *key, void *arg)
{
    (void)arg;
    memcpy(key, ((const weir_script_rec *)elem)->key, sizeof ((weir_script_rec *)0)->key);
}

int weir_script_op_harness(const weir_script_op *op, weir_harness **out, char *why,
                           size_t whysize)
{
    weir_process_spec spec;
    weir_harness_config cfg;
    memset(&cfg, 0, sizeof cfg);
    static const weir_key_spec key = {.key_size = sizeof((weir_script_rec *)0)->key,
                                      .extract = script_key};
    switch (op->kind) {
    case WEIR_SCRIPT_PASSTHROUGH:
        memset(&spec, 0, sizeof spec);
        spec.kind = "passthrough";
        spec.vtable = &pass_vtable;
        spec.out_size = sizeof(weir_script_rec);
        spec.accounting = WEIR_ACCOUNTING_ONE_TO_ONE;
        break;
    case WEIR_SCRIPT_TIMESTAMPS: {
        weir_timestamps_spec ts = {.extract = record_ts, .strategy = op->strategy};
        int r = weir_timestamps_operator(&ts, sizeof(weir_script_rec), &spec, why, whysize);
        if (r)
            return r;
        break;
    }
    case WEIR_SCRIPT_WINDOW: {
        int r = weir_script_window_spec(op, &spec, why, whysize);
        if (r)
            return r;
        cfg.key[0] = &key;
        break;
    }
    }
    cfg.op = &spec;
    cfg.inputs = op->inputs;
    cfg.channels[0] = op->channels[0];
    cfg.channels[1] = op->channels[1];
    cfg.in_size[0] = cfg.in_size[1] = sizeof(weir_script_rec);
    cfg.watermark_interval_ms = 200;
    cfg.output = (weir_harness_output){
        .on_record = out_record,
        .on_watermark = out_watermark,
        .on_status = out_status,
        .on_dropped = out_dropped,
    };
    return weir_harness_create(&cfg, out, why, whysize);
}
