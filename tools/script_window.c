/* script_window.c — `op window ...` for weir script (SCRIPT.md): parsing the
 * settings into the script's operator description, and the real window
 * operator (weir/window.h) keyed by the record's key, with sum, count, min or
 * max over the records' values as an aggregate whose result is a script
 * record carrying the window (printed `window=START,END` or `window=global`).
 *
 * Every setting is checked while the script is parsed — including what only
 * the operator itself knows, by building it once — so that a bad setting
 * stops the script with `FILE:LINE: reason` at the op line before anything
 * runs.
 */
#include "script_window.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "script_parse.h"

#define ALLOWED "assign, lateness, trigger, fn, late"

/* ---- the functions -------------------------------------------------------- */

typedef struct acc {
    int64_t v;
    int64_t n;
} acc;

static const weir_script_fn fn_codes[] = {WEIR_SCRIPT_SUM, WEIR_SCRIPT_COUNT, WEIR_SCRIPT_MIN,
                                          WEIR_SCRIPT_MAX};

static void fold(acc *a, int64_t v, int64_t n, weir_script_fn fn)
{
    switch (fn) {
    case WEIR_SCRIPT_SUM:
        a->v = (int64_t)((uint64_t)a->v + (uint64_t)v); /* wraps like Java's long */
        break;
    case WEIR_SCRIPT_COUNT:
        a->v += n;
        break;
    case WEIR_SCRIPT_MIN:
        if (a->n == 0 || v < a->v)
            a->v = v;
        break;
    case WEIR_SCRIPT_MAX:
        if (a->n == 0 || v > a->v)
            a->v = v;
        break;
    }
    a->n += n;
}

static void agg_add(void *accp, const void *elem, void *arg)
{
    const weir_script_rec *r = elem;
    fold(accp, r->value, 1, *(const weir_script_fn *)arg);
}

static void agg_merge(void *accp, const void *other, void *arg)
{
    const acc *o = other;
    if (o->n == 0)
        return;
    weir_script_fn fn = *(const weir_script_fn *)arg;
    /* count folds the other's count; the others fold its value */
    fold(accp, fn == WEIR_SCRIPT_COUNT ? 0 : o->v, o->n, fn);
}

static void agg_result(const void *accp, const weir_window_info *w, void *out, void *arg)
{
    (void)arg;
    weir_script_rec *r = out;
    memset(r, 0, sizeof *r);
    memcpy(r->key, w->key, sizeof r->key);
    r->key[sizeof r->key - 1] = '\0';
    r->value = ((const acc *)accp)->v;
    r->window_start = w->start;
    r->window_end = w->end;
    r->kind = w->global ? 2 : 1;
}

/* ---- parsing -------------------------------------------------------------- */

/* Splits `v` at ':' into at most `max` parts (copied into buf): -1 for
 * too many parts, -2 for a value longer than buf holds (refused, never
 * cut). */
static int split_colons(const char *v, char *buf, size_t bufsize, char **parts, int max)
{
    if ((size_t)snprintf(buf, bufsize, "%s", v) >= bufsize)
        return -2;
    int n = 0;
    char *p = buf;
    for (;;) {
        if (n == max)
            return -1;
        parts[n++] = p;
        char *colon = strchr(p, ':');
        if (!colon)
            return n;
        *colon = '\0';
        p = colon + 1;
    }
}

static int parse_number(const char *assign, const char *what, const char *tok, int64_t *out,
                        char *why, size_t whysize)
{
    char inner[WEIR_SCRIPT_WHY];
    if (weir_script_parse_int(tok, false, out, inner, sizeof inner)) {
        snprintf(why, whysize, "op window: assign=%s: the %s %s", assign, what, inner);
        return -1;
    }
    return 0;
}

static int parse_assign(weir_script_op *op, const char *v, char *why, size_t whysize)
{
    /* As long as a script line: a value is never cut, the check below is
     * for a caller that passes a longer one. */
    char buf[WEIR_SCRIPT_WHY / 2], *part[4];
    int n = split_colons(v, buf, sizeof buf, part, 4);
    if (n == -2) {
        snprintf(why, whysize, "op window: assign=... is %zu characters long, more than the "
                 "%zu allowed", strlen(v), sizeof buf - 1);
        return -1;
    }
    if (n < 0) {
        snprintf(why, whysize, "op window: assign=%s has too many ':' parts", v);
        return -1;
    }
    const char *kind = part[0];
    /* proc-KIND: the same windows on the job clock (the script's virtual
     * processing time, moved by `time T`) */
    bool proc = strncmp(kind, "proc-", 5) == 0;
    if (proc)
        kind += 5;
    if (proc && strcmp(kind, "cumulate") == 0) {
        if (n != 3) {
            snprintf(why, whysize, "op window: assign=%s: expected proc-cumulate:SIZE:STEP", v);
            return -1;
        }
        op->assigner = WEIR_WINDOW_PROCESSING_CUMULATIVE;
        return parse_number(v, "size", part[1], &op->size, why, whysize) ||
                       parse_number(v, "step", part[2], &op->slide, why, whysize)
                   ? -1
                   : 0;
    }
    if (proc && strcmp(kind, "tumbling") != 0 && strcmp(kind, "sliding") != 0 &&
        strcmp(kind, "session") != 0) {
        snprintf(why, whysize, "op window: unknown assigner '%s' (expected proc-tumbling:SIZE, "
                 "proc-sliding:SIZE:SLIDE, proc-session:GAP or proc-cumulate:SIZE:STEP)", v);
        return -1;
    }
    if (strcmp(kind, "tumbling") == 0) {
        if (n < 2 || n > 3) {
            snprintf(why, whysize, "op window: assign=%s: expected tumbling:SIZE[:OFFSET]", v);
            return -1;
        }
        op->assigner = proc ? WEIR_WINDOW_PROCESSING_TUMBLING : WEIR_WINDOW_TUMBLING;
        if (parse_number(v, "size", part[1], &op->size, why, whysize) ||
            (n == 3 && parse_number(v, "offset", part[2], &op->offset, why, whysize)))
            return -1;
    } else if (strcmp(kind, "sliding") == 0) {
        if (n < 3 || n > 4) {
            snprintf(why, whysize, "op window: assign=%s: expected sliding:SIZE:SLIDE[:OFFSET]", v);
            return -1;
        }
        op->assigner = proc ? WEIR_WINDOW_PROCESSING_SLIDING : WEIR_WINDOW_SLIDING;
        if (parse_number(v, "size", part[1], &op->size, why, whysize) ||
            parse_number(v, "slide", part[2], &op->slide, why, whysize) ||
            (n == 4 && parse_number(v, "offset", part[3], &op->offset, why, whysize)))
            return -1;
    } else if (strcmp(kind, "session") == 0) {
        if (n != 2) {
            snprintf(why, whysize, "op window: assign=%s: expected session:GAP", v);
            return -1;
        }
        op->assigner = proc ? WEIR_WINDOW_PROCESSING_SESSION : WEIR_WINDOW_SESSION;
        if (parse_number(v, "gap", part[1], &op->gap, why, whysize))
            return -1;
    } else if (strcmp(kind, "global") == 0) {
        if (n != 1) {
            snprintf(why, whysize, "op window: assign=%s: global takes no numbers", v);
            return -1;
        }
        op->assigner = WEIR_WINDOW_GLOBAL;
    } else {
        snprintf(why, whysize, "op window: unknown assigner '%s' (expected tumbling:SIZE[:OFFSET], "
                 "sliding:SIZE:SLIDE[:OFFSET], session:GAP or global)", v);
        return -1;
    }
    return 0;
}

int weir_script_window_parse(weir_script_op *op, weir_script_param *p, int np, char *why,
                             size_t whysize)
{
    op->kind = WEIR_SCRIPT_WINDOW;
    op->inputs = 1;
    op->channels[0] = 1;
    op->fn = WEIR_SCRIPT_SUM;
    const char *v = weir_script_param_get(p, np, "assign");
    if (!v) {
        snprintf(why, whysize, "op window: assign=A is required (tumbling:SIZE[:OFFSET], "
                 "sliding:SIZE:SLIDE[:OFFSET], session:GAP or global)");
        return -1;
    }
    if (parse_assign(op, v, why, whysize))
        return -1;
    if ((v = weir_script_param_get(p, np, "lateness")) &&
        weir_script_param_ms("window", "lateness", v, false, &op->lateness, why, whysize))
        return -1;
    if ((v = weir_script_param_get(p, np, "trigger"))) {
        if (strcmp(v, "purging") == 0) {
            op->purging = true;
        } else if (strcmp(v, "event") != 0) {
            snprintf(why, whysize, "op window: unknown trigger '%s' (expected event or purging)", v);
            return -1;
        }
    }
    if ((v = weir_script_param_get(p, np, "fn"))) {
        static const char *const names[] = {"sum", "count", "min", "max"};
        int k = 0;
        while (k < 4 && strcmp(v, names[k]) != 0)
            k++;
        if (k == 4) {
            snprintf(why, whysize, "op window: unknown fn '%s' (expected sum, count, min or max)", v);
            return -1;
        }
        op->fn = fn_codes[k];
    }
    if ((v = weir_script_param_get(p, np, "late"))) {
        if (strcmp(v, "side") == 0) {
            op->late_side = true;
        } else if (strcmp(v, "drop") != 0) {
            snprintf(why, whysize, "op window: unknown late '%s' (expected side or drop)", v);
            return -1;
        }
    }
    if (weir_script_param_unused("window", p, np, ALLOWED, why, whysize))
        return -1;
    /* What the operator itself refuses (size 0, an offset too large, ...)
     * is refused now, at the op line. */
    weir_process_spec spec;
    int r = weir_script_window_spec(op, &spec, why, whysize);
    if (r)
        return r;
    spec.impl_free(spec.impl);
    return 0;
}

int weir_script_window_spec(const weir_script_op *op, weir_process_spec *spec, char *why,
                            size_t whysize)
{
    weir_window_spec w = {
        .assigner = {.kind = (weir_window_kind)op->assigner,
                     .size_ms = op->size,
                     .slide_ms = op->slide,
                     .offset_ms = op->offset,
                     .gap_ms = op->gap},
        .trigger = {.purging = op->purging},
        .allowed_lateness_ms = op->lateness,
        .late_tag = op->late_side ? WEIR_WINDOW_LATE_TAG : 0,
        .aggregate = {.acc_size = sizeof(acc),
                      .add = agg_add,
                      .merge = agg_merge,
                      .result = agg_result},
        .out_size = sizeof(weir_script_rec),
        .arg = (void *)&fn_codes[op->fn],
    };
    char inner[256];
    int r = weir_window_operator(&w, sizeof(weir_script_rec), sizeof((weir_script_rec *)0)->key,
                                 spec, inner, sizeof inner);
    if (r)
        snprintf(why, whysize, "op window: %s", inner);
    return r;
}
