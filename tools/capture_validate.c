/* capture_validate.c — the checker of `weir capture`: every event against
 * docs/CAPTURE.md and against what came before it.
 *
 * It runs in one pass and keeps only what the later checks need: the job's
 * topology (operators, edges, how many valve channels each input of a
 * subtask has), the last watermark of every operator subtask output and of
 * every valve channel, the sums of the throughput events, and, from the
 * summary, the counters. What it checks:
 *   - each event is an object with a string `kind` and an integer `t` >= 0;
 *     known kinds have their fields, with the documented types; watermarks
 *     and timestamps at INT64_MIN / INT64_MAX are the strings "MIN" / "MAX"
 *     (the integers are refused: a reader comparing strings would miss them);
 *   - the first event is `job` (version 1, 2 or 3; the fields version 2
 *     added are required from version 2 on, the window_fire's `cleanup` of
 *     version 3 refused before it), the last is `summary`, nothing
 *     follows the summary; the level allows the kind (`summary` writes only
 *     those two, `record` is verbose only);
 *   - `op` names an operator of the job and `subtask` is below its
 *     parallelism; a valve event's input and channel exist;
 *   - watermarks never go back, per (op, subtask) output and per
 *     (op, subtask, input, channel) at a valve;
 *   - the summary has counters for every operator subtask, exactly once, and
 *     they add up by accounting class; `events` counts the events before it;
 *     a lossless capture dropped nothing; and, unless the run failed (its
 *     summary then carries `error`) or events were dropped: each subtask's
 *     throughput events add up to its counters, and every operator whose
 *     inputs are all main outputs took in exactly what they emitted to it.
 * The first problem stops the check; its message names the event's kind and
 * operator, and the caller puts the place in front.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "capture_validate.h"
#include "weir/diag.h"

#define MAX_PARALLELISM 1024


static int bad(cap_check *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int bad(cap_check *c, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->msg, sizeof c->msg, fmt, ap);
    va_end(ap);
    return -1;
}

static const char *type_name(const json_t *v)
{
    switch (json_typeof(v)) {
    case JSON_OBJECT:
        return "an object";
    case JSON_ARRAY:
        return "an array";
    case JSON_STRING:
        return "a string";
    case JSON_INTEGER:
        return "an integer";
    case JSON_REAL:
        return "a number with a fraction";
    case JSON_TRUE:
    case JSON_FALSE:
        return "a boolean";
    default:
        return "null";
    }
}

bool cap_ts(const json_t *v, int64_t *out)
{
    if (json_is_integer(v)) {
        *out = (int64_t)json_integer_value(v);
        return *out != INT64_MIN && *out != INT64_MAX;
    }
    if (json_is_string(v)) {
        const char *s = json_string_value(v);
        if (strcmp(s, "MIN") == 0) {
            *out = INT64_MIN;
            return true;
        }
        if (strcmp(s, "MAX") == 0) {
            *out = INT64_MAX;
            return true;
        }
    }
    return false;
}

static const char *fmt_ts(char *buf, size_t size, int64_t v)
{
    if (v == INT64_MIN)
        return "MIN";
    if (v == INT64_MAX)
        return "MAX";
    snprintf(buf, size, "%" PRId64, v);
    return buf;
}

/* ---- fields ----------------------------------------------------------------
 * Each getter fails with "WHAT: "KEY" is missing" or "... must be TYPE, not
 * TYPE"; `what` names the event (and the element of a list) being read. */

static int field(cap_check *c, const json_t *o, const char *what, const char *key, json_t **out)
{
    *out = json_object_get(o, key);
    if (!*out)
        return bad(c, "%s: \"%s\" is missing", what, key);
    return 0;
}

static int get_int(cap_check *c, const json_t *o, const char *what, const char *key, int64_t min,
                   int64_t max, int64_t *out)
{
    json_t *v;
    if (field(c, o, what, key, &v))
        return -1;
    if (!json_is_integer(v))
        return bad(c, "%s: \"%s\" must be an integer, not %s", what, key, type_name(v));
    *out = (int64_t)json_integer_value(v);
    if (*out < min || *out > max) {
        if (max == INT64_MAX)
            return bad(c, "%s: \"%s\" is %" PRId64 ", below %" PRId64, what, key, *out, min);
        return bad(c, "%s: \"%s\" is %" PRId64 ", outside %" PRId64 "..%" PRId64, what, key, *out,
                   min, max);
    }
    return 0;
}

static int get_count(cap_check *c, const json_t *o, const char *what, const char *key,
                     int64_t *out)
{
    return get_int(c, o, what, key, 0, INT64_MAX, out);
}

/* Counts are in 0..INT64_MAX, and sums of them are checked: a sum that
 * wrapped could come back to the number it is compared with (in 5 = out MAX
 * + filtered MAX + 7). Adds v to *sum; false when the sum passes INT64_MAX. */
static bool count_add(int64_t *sum, int64_t v)
{
    return !__builtin_add_overflow(*sum, v, sum);
}

/* a + b + c + d of counts, or -1 when it passes INT64_MAX. */
static int64_t count_sum4(int64_t a, int64_t b, int64_t c, int64_t d)
{
    int64_t sum = a;
    return count_add(&sum, b) && count_add(&sum, c) && count_add(&sum, d) ? sum : -1;
}

static int get_str(cap_check *c, const json_t *o, const char *what, const char *key,
                   const char **out)
{
    json_t *v;
    if (field(c, o, what, key, &v))
        return -1;
    if (!json_is_string(v))
        return bad(c, "%s: \"%s\" must be a string, not %s", what, key, type_name(v));
    *out = json_string_value(v);
    return 0;
}

static int get_bool(cap_check *c, const json_t *o, const char *what, const char *key, bool *out)
{
    json_t *v;
    if (field(c, o, what, key, &v))
        return -1;
    if (!json_is_boolean(v))
        return bad(c, "%s: \"%s\" must be true or false, not %s", what, key, type_name(v));
    *out = json_is_true(v);
    return 0;
}

/* Why v is not a watermark or timestamp, for the message. */
static int bad_ts(cap_check *c, const json_t *v, const char *what, const char *key)
{
    if (json_is_integer(v)) {
        bool max = json_integer_value(v) == INT64_MAX;
        return bad(c, "%s: \"%s\" is %s written as the integer %" PRId64
                      " (the capture writes it as the string \"%s\")",
                   what, key, max ? "INT64_MAX" : "INT64_MIN", (int64_t)json_integer_value(v),
                   max ? "MAX" : "MIN");
    }
    return bad(c, "%s: \"%s\" must be an integer, \"MIN\" or \"MAX\", not %s", what, key,
               json_is_string(v) ? "another string" : type_name(v));
}

static int check_ts(cap_check *c, const json_t *v, const char *what, const char *key,
                    int64_t *out)
{
    if (!cap_ts(v, out))
        return bad_ts(c, v, what, key);
    return 0;
}

static int get_ts(cap_check *c, const json_t *o, const char *what, const char *key, int64_t *out)
{
    json_t *v;
    if (field(c, o, what, key, &v))
        return -1;
    return check_ts(c, v, what, key, out);
}

static int get_typed(cap_check *c, const json_t *o, const char *what, const char *key,
                     json_type type, json_t **out)
{
    if (field(c, o, what, key, out))
        return -1;
    if (json_typeof(*out) != type)
        return bad(c, "%s: \"%s\" must be %s, not %s", what, key,
                   type == JSON_ARRAY ? "an array" : "an object", type_name(*out));
    return 0;
}

/* A string field that must be one of the NULL-terminated names; *index is
 * its position. */
static int get_enum(cap_check *c, const json_t *o, const char *what, const char *key,
                    const char *const *names, int *index)
{
    const char *s;
    if (get_str(c, o, what, key, &s))
        return -1;
    for (int i = 0; names[i]; i++) {
        if (strcmp(s, names[i]) == 0) {
            *index = i;
            return 0;
        }
    }
    char list[256] = "";
    for (int i = 0; names[i]; i++) {
        size_t n = strlen(list);
        snprintf(list + n, sizeof list - n, "%s%s", i ? ", " : "", names[i]);
    }
    return bad(c, "%s: \"%s\" is \"%s\", not one of %s", what, key, s, list);
}

static const char *const accounting_names[] = {"source", "one_to_one", "window", "sink", "any",
                                               NULL};
static const char *const part_names[] = {"forward", "hash", "rebalance", "broadcast", NULL};

int cap_op_find(const cap_check *c, const char *name)
{
    for (int i = 0; i < c->nops; i++) {
        if (strcmp(c->ops[i].name, name) == 0)
            return i;
    }
    return -1;
}

/* ---- lifecycle ------------------------------------------------------------ */

void cap_check_init(cap_check *c)
{
    memset(c, 0, sizeof *c);
}

void cap_check_free(cap_check *c)
{
    for (int i = 0; i < c->nops; i++) {
        cap_op *op = &c->ops[i];
        free(op->name);
        free(op->kind);
        free(op->wm);
        free(op->vwm[0]);
        free(op->vwm[1]);
        free(op->pwm);
        free(op->tp_in);
        free(op->tp_out);
        free(op->cnt);
        free(op->in_summary);
    }
    free(c->ops);
    free(c->edges);
    memset(c, 0, sizeof *c);
}

/* ---- the job event -------------------------------------------------------- */

/* Names element i of an event's array (what[64]: "job event: edges[3]")
 * and checks that it is an object. */
static int array_object(cap_check *c, const json_t *o, const char *array, int i, char what[64])
{
    snprintf(what, 64, "%s[%d]", array, i);
    if (!json_is_object(o))
        return bad(c, "%s must be an object, not %s", what, type_name(o));
    return 0;
}

static int check_operator(cap_check *c, const json_t *o, int i)
{
    char what[64];
    if (array_object(c, o, "job event: operators", i, what))
        return -1;
    cap_op *op = &c->ops[i];
    const char *name, *kind;
    int64_t p, task;
    int acct;
    json_t *settings;
    if (get_str(c, o, what, "name", &name) || get_str(c, o, what, "kind", &kind) ||
        get_int(c, o, what, "parallelism", 1, MAX_PARALLELISM, &p) ||
        get_int(c, o, what, "task", 0, INT32_MAX, &task) ||
        get_enum(c, o, what, "accounting", accounting_names, &acct) ||
        get_typed(c, o, what, "settings", JSON_OBJECT, &settings))
        return -1;
    if (!*name)
        return bad(c, "%s: the name is empty", what);
    if (cap_op_find(c, name) >= 0)
        return bad(c, "%s: a second operator called \"%s\" (names are unique)", what, name);
    op->name = strdup(name);
    op->kind = strdup(kind);
    if (!op->name || !op->kind) {
        /* not counted in nops yet: cap_check_free would not see them */
        free(op->name);
        free(op->kind);
        op->name = op->kind = NULL;
        return bad(c, "out of memory");
    }
    op->parallelism = (int)p;
    op->task = (int)task;
    op->accounting = (cap_accounting)acct;
    op->head = i;
    op->origin = -1;
    c->nops = i + 1;
    return 0;
}

static int check_edge(cap_check *c, const json_t *o, int i)
{
    char what[64];
    if (array_object(c, o, "job event: edges", i, what))
        return -1;
    cap_edge *e = &c->edges[i];
    const char *from, *to;
    int64_t input, side = 0;
    int part;
    if (get_str(c, o, what, "from", &from) || get_str(c, o, what, "to", &to) ||
        get_int(c, o, what, "input", 0, 1, &input) ||
        get_enum(c, o, what, "partitioning", part_names, &part) ||
        get_bool(c, o, what, "chained", &e->chained))
        return -1;
    if (json_object_get(o, "side") && get_int(c, o, what, "side", 1, INT32_MAX, &side))
        return -1;
    e->from = cap_op_find(c, from);
    e->to = cap_op_find(c, to);
    if (e->from < 0)
        return bad(c, "%s: \"from\" names \"%s\", which is not an operator", what, from);
    if (e->to < 0)
        return bad(c, "%s: \"to\" names \"%s\", which is not an operator", what, to);
    e->input = (int)input;
    e->part = (cap_part)part;
    e->side = (int)side;
    const cap_op *a = &c->ops[e->from], *b = &c->ops[e->to];
    if ((e->chained || e->part == CAP_FORWARD) && a->parallelism != b->parallelism)
        return bad(c, "%s: a %s edge from \"%s\" (parallelism %d) to \"%s\" (parallelism %d)", what,
                   e->chained ? "chained" : "forward", a->name, a->parallelism, b->name,
                   b->parallelism);
    if (e->chained && e->part != CAP_FORWARD)
        return bad(c, "%s: a chained edge must be forward, not %s", what, part_names[e->part]);
    c->nedges = i + 1;
    return 0;
}

static int64_t *new_ts_array(size_t n)
{
    int64_t *a = malloc((n ? n : 1) * sizeof *a);
    for (size_t i = 0; a && i < n; i++)
        a[i] = INT64_MIN;
    return a;
}

/* What the events after the job event are checked against: valve channels,
 * task heads, watermark origins, per-subtask state. */
static int derive_topology(cap_check *c)
{
    for (int i = 0; i < c->nedges; i++) {
        const cap_edge *e = &c->edges[i];
        if (!e->chained)
            c->ops[e->to].nch[e->input] += e->part == CAP_FORWARD ? 1 : c->ops[e->from].parallelism;
    }
    /* A chained operator has exactly one input edge, the chained one; follow
     * those up to the head (bounded: a chain is at most every operator). */
    for (int i = 0; i < c->nops; i++) {
        cap_op *op = &c->ops[i];
        int at = i;
        for (int steps = 0; steps <= c->nops; steps++) {
            const cap_op *o = &c->ops[at];
            if (op->origin < 0 && (o->accounting == CAP_ACCT_SOURCE ||
                                   strcmp(o->kind, "timestamps") == 0))
                op->origin = at;
            int up = -1;
            for (int k = 0; k < c->nedges; k++) {
                if (c->edges[k].to == at && c->edges[k].chained)
                    up = c->edges[k].from;
            }
            if (up < 0)
                break;
            if (steps == c->nops)
                return bad(c, "job event: the chained edges form a cycle through \"%s\"", op->name);
            at = up;
        }
        op->head = at;
    }
    for (int i = 0; i < c->nops; i++) {
        cap_op *op = &c->ops[i];
        size_t p = (size_t)op->parallelism;
        op->wm = new_ts_array(p);
        op->vwm[0] = new_ts_array(p * (size_t)op->nch[0]);
        op->vwm[1] = new_ts_array(p * (size_t)op->nch[1]);
        op->tp_in = calloc(p, sizeof *op->tp_in);
        op->tp_out = calloc(p, sizeof *op->tp_out);
        op->cnt = calloc(p, sizeof *op->cnt);
        op->in_summary = calloc(p, sizeof *op->in_summary);
        if (!op->wm || !op->vwm[0] || !op->vwm[1] || !op->tp_in || !op->tp_out || !op->cnt ||
            !op->in_summary)
            return bad(c, "out of memory");
    }
    return 0;
}

static int check_job(cap_check *c, const json_t *ev)
{
    const char *what = "job event";
    int64_t version;
    json_t *ops, *edges, *settings;
    if (get_int(c, ev, what, "version", INT64_MIN, INT64_MAX, &version))
        return -1;
    if (version < 1 || version > WEIR_CAPTURE_VERSION)
        return bad(c, "job event: capture version %" PRId64 "; this weir reads versions 1 to %d",
                   version, WEIR_CAPTURE_VERSION);
    c->version = (int)version;
    /* which weir wrote it: optional (captures written before weir 0.1.0
     * lack it), a string when present */
    const char *writer;
    if (json_object_get(ev, "weir_version") && get_str(c, ev, what, "weir_version", &writer))
        return -1;
    if (get_typed(c, ev, what, "operators", JSON_ARRAY, &ops) ||
        get_typed(c, ev, what, "edges", JSON_ARRAY, &edges) ||
        get_typed(c, ev, what, "settings", JSON_OBJECT, &settings))
        return -1;
    size_t nops = json_array_size(ops), nedges = json_array_size(edges);
    if (nops == 0)
        return bad(c, "job event: \"operators\" is empty");
    c->ops = calloc(nops, sizeof *c->ops);
    c->edges = calloc(nedges ? nedges : 1, sizeof *c->edges);
    if (!c->ops || !c->edges)
        return bad(c, "out of memory");
    for (size_t i = 0; i < nops; i++) {
        if (check_operator(c, json_array_get(ops, i), (int)i))
            return -1;
    }
    for (size_t i = 0; i < nedges; i++) {
        if (check_edge(c, json_array_get(edges, i), (int)i))
            return -1;
    }
    const char *level;
    if (get_str(c, settings, "job event: settings", "level", &level) ||
        get_bool(c, settings, "job event: settings", "lossy", &c->lossy))
        return -1;
    snprintf(c->level, sizeof c->level, "%s", level);
    c->have_job = true;
    return derive_topology(c);
}

/* ---- per-subtask events --------------------------------------------------- */

static int get_op(cap_check *c, const json_t *ev, const char *what, cap_op **op, int *subtask)
{
    const char *name;
    int64_t s;
    if (get_str(c, ev, what, "op", &name))
        return -1;
    int i = cap_op_find(c, name);
    if (i < 0)
        return bad(c, "%s: operator \"%s\" is not in the job", what, name);
    *op = &c->ops[i];
    if (get_int(c, ev, what, "subtask", INT64_MIN, INT64_MAX, &s))
        return -1;
    if (s < 0 || s >= (*op)->parallelism)
        return bad(c, "%s: subtask %" PRId64 " of \"%s\", which has parallelism %d", what, s, name,
                   (*op)->parallelism);
    *subtask = (int)s;
    return 0;
}

/* Where a valve event happened: the operator and subtask, and the input and
 * channel (-1 for an output event). */
typedef struct valve_at {
    cap_op *op;
    int subtask, input, channel;
    bool partition; /* a source's partition (channel of its input 0) */
} valve_at;

/* The last watermark of partition `ch` of subtask s, the array grown to
 * hold it; NULL when out of memory. */
static int64_t *partition_wm(cap_op *op, int s, int ch)
{
    if (ch >= op->npart) {
        int n = op->npart ? op->npart : 4;
        while (n <= ch)
            n *= 2;
        size_t p = (size_t)op->parallelism;
        int64_t *a = malloc(p * (size_t)n * sizeof *a);
        if (!a)
            return NULL;
        for (size_t i = 0; i < p; i++) {
            for (int k = 0; k < n; k++)
                a[i * (size_t)n + (size_t)k] =
                    k < op->npart ? op->pwm[i * (size_t)op->npart + (size_t)k] : INT64_MIN;
        }
        free(op->pwm);
        op->pwm = a;
        op->npart = n;
    }
    return &op->pwm[(size_t)s * (size_t)op->npart + (size_t)ch];
}

/* Partitions of one source subtask are at most this many channels. */
#define CAP_MAX_PARTITIONS (1 << 20)

static int get_valve(cap_check *c, const json_t *ev, const char *what, valve_at *at)
{
    at->input = at->channel = -1;
    at->partition = false;
    if (get_op(c, ev, what, &at->op, &at->subtask))
        return -1;
    const cap_op *op = at->op;
    if (!json_object_get(ev, "input") && !json_object_get(ev, "channel"))
        return 0;
    int64_t in = 0, ch = 0;
    if (get_int(c, ev, what, "input", 0, 1, &in) ||
        get_int(c, ev, what, "channel", 0, INT64_MAX, &ch))
        return -1;
    json_t *part = json_object_get(ev, "partition");
    if (part) {
        if (!json_is_string(part))
            return bad(c, "%s: \"partition\" must be a string, not %s", what, type_name(part));
        if (op->accounting != CAP_ACCT_SOURCE || in != 0)
            return bad(c, "%s: a partition is a channel of a source's input 0, and \"%s\" "
                          "input %" PRId64 " is not",
                       what, op->name, in);
        if (ch >= CAP_MAX_PARTITIONS)
            return bad(c, "%s: partition channel %" PRId64 " of \"%s\" (at most %d)", what, ch,
                       op->name, CAP_MAX_PARTITIONS);
        at->input = 0;
        at->channel = (int)ch;
        at->partition = true;
        return 0;
    }
    int nch = op->nch[in];
    if (nch == 0)
        return bad(c, "%s: \"%s\" has no valve on input %" PRId64
                      " (only an operator heading its task reads channels)",
                   what, op->name, in);
    if (ch >= nch)
        return bad(c, "%s: channel %" PRId64 " of input %" PRId64 " of \"%s\", which has %d", what,
                   ch, in, op->name, nch);
    at->input = (int)in;
    at->channel = (int)ch;
    return 0;
}

/* A valve event's held_by: a channel of the input, or null. */
static int check_held_by(cap_check *c, const json_t *ev, const char *what, const cap_op *op,
                         int input, bool partition)
{
    json_t *held;
    if (field(c, ev, what, "held_by", &held))
        return -1;
    if (json_is_null(held))
        return 0;
    if (!json_is_integer(held))
        return bad(c, "%s: \"held_by\" must be a channel or null, not %s", what, type_name(held));
    json_int_t h = json_integer_value(held);
    if (partition && (h < 0 || h >= CAP_MAX_PARTITIONS))
        return bad(c, "%s: \"held_by\" is partition channel %lld of \"%s\"", what,
                   (long long)h, op->name);
    if (partition)
        return 0;
    if (h < 0 || h >= op->nch[input])
        return bad(c, "%s: \"held_by\" is channel %lld of input %d of \"%s\", which has %d", what,
                   (long long)h, input, op->name, op->nch[input]);
    return 0;
}

static int check_watermark(cap_check *c, const json_t *ev, const char *what)
{
    valve_at at;
    int64_t wm;
    if (get_valve(c, ev, what, &at) || get_ts(c, ev, what, "watermark", &wm))
        return -1;
    cap_op *op = at.op;
    int s = at.subtask, input = at.input, ch = at.channel;
    int64_t *last;
    char where[96];
    if (at.partition) {
        if (check_held_by(c, ev, what, op, 0, true))
            return -1;
        last = partition_wm(op, s, ch);
        if (!last)
            return bad(c, "%s: out of memory", what);
        snprintf(where, sizeof where, "subtask %d partition channel %d", s, ch);
    } else if (input >= 0) {
        if (check_held_by(c, ev, what, op, input, false))
            return -1;
        last = &op->vwm[input][(size_t)s * (size_t)op->nch[input] + (size_t)ch];
        snprintf(where, sizeof where, "subtask %d input %d channel %d", s, input, ch);
    } else {
        last = &op->wm[s];
        snprintf(where, sizeof where, "subtask %d", s);
    }
    if (wm < *last) {
        char a[24], b[24];
        return bad(c, "%s: the watermark of \"%s\" %s went back from %s to %s", what, op->name,
                   where, fmt_ts(a, sizeof a, *last), fmt_ts(b, sizeof b, wm));
    }
    *last = wm;
    return 0;
}

static int check_status(cap_check *c, const json_t *ev, const char *what)
{
    valve_at at;
    bool idle;
    if (get_valve(c, ev, what, &at) || get_bool(c, ev, what, "idle", &idle))
        return -1;
    /* version 2: the channel holding the valve's minimum after the change */
    if (at.input >= 0 && c->version >= 2)
        return check_held_by(c, ev, what, at.op, at.input, at.partition);
    return 0;
}

static int check_throughput(cap_check *c, const json_t *ev, const char *what)
{
    cap_op *op;
    int s;
    int64_t interval, in, out;
    if (get_op(c, ev, what, &op, &s) || get_count(c, ev, what, "interval_ms", &interval) ||
        get_count(c, ev, what, "in", &in) || get_count(c, ev, what, "out", &out))
        return -1;
    int64_t max_ts;
    if (c->version >= 2 && get_ts(c, ev, what, "max_ts", &max_ts))
        return -1;
    if (!count_add(&op->tp_in[s], in) || !count_add(&op->tp_out[s], out))
        return bad(c, "%s: the throughput events of \"%s\" subtask %d add up to more than %" PRId64
                      " records", what, op->name, s, INT64_MAX);
    return 0;
}

static int check_window(cap_check *c, const json_t *ev, const char *what, int64_t *start,
                        int64_t *end)
{
    const char *key;
    if (get_str(c, ev, what, "key", &key) || get_ts(c, ev, what, "start", start) ||
        get_ts(c, ev, what, "end", end))
        return -1;
    if (*start >= *end) {
        char a[24], b[24];
        return bad(c, "%s: the window [%s, %s) is empty", what, fmt_ts(a, sizeof a, *start),
                   fmt_ts(b, sizeof b, *end));
    }
    return 0;
}

static int check_window_fire(cap_check *c, const json_t *ev, const char *what)
{
    cap_op *op;
    int s;
    int64_t start, end, firing, count, wm;
    bool on_time;
    if (get_op(c, ev, what, &op, &s) || check_window(c, ev, what, &start, &end) ||
        get_bool(c, ev, what, "on_time", &on_time) ||
        get_int(c, ev, what, "firing", 0, INT32_MAX, &firing) ||
        get_count(c, ev, what, "count", &count) || get_ts(c, ev, what, "watermark", &wm))
        return -1;
    if (on_time != (firing == 0))
        return bad(c, "%s: \"on_time\" is %s but \"firing\" is %" PRId64
                      " (0 is the on-time firing)",
                   what, on_time ? "true" : "false", firing);
    /* version 3: the window's cleanup folded into its on-time firing */
    if (json_object_get(ev, "cleanup")) {
        bool cleanup;
        if (c->version < 3)
            return bad(c, "%s: \"cleanup\" is a field of version 3; the capture is version %d",
                       what, c->version);
        if (get_bool(c, ev, what, "cleanup", &cleanup))
            return -1;
        if (!cleanup)
            return bad(c, "%s: \"cleanup\" is written only as true (absent: no cleanup here)",
                       what);
        if (!on_time)
            return bad(c, "%s: \"cleanup\" on a late firing (only the on-time firing carries "
                          "its window's cleanup)",
                       what);
    }
    return 0;
}

static int check_late(cap_check *c, const json_t *ev, const char *what)
{
    static const char *const actions[] = {"dropped", "side_output", NULL};
    cap_op *op;
    int s, action;
    const char *key;
    int64_t ts, wm, lateness;
    json_t *windows;
    if (get_op(c, ev, what, &op, &s) || get_str(c, ev, what, "key", &key) ||
        get_ts(c, ev, what, "timestamp", &ts) ||
        get_typed(c, ev, what, "windows", JSON_ARRAY, &windows) ||
        get_ts(c, ev, what, "watermark", &wm) ||
        get_int(c, ev, what, "lateness", INT64_MIN, INT64_MAX, &lateness) ||
        get_enum(c, ev, what, "action", actions, &action))
        return -1;
    size_t nw = json_array_size(windows);
    int64_t prev = INT64_MIN;
    for (size_t i = 0; i < nw; i++) {
        json_t *w = json_array_get(windows, i);
        if (!json_is_array(w) || json_array_size(w) != 2)
            return bad(c, "%s: windows[%zu] must be a [start, end] pair of timestamps", what, i);
        int64_t a = 0, b = 0; /* check_ts sets them unless it fails */
        char name[48];
        snprintf(name, sizeof name, "windows[%zu][0]", i);
        if (check_ts(c, json_array_get(w, 0), what, name, &a))
            return -1;
        snprintf(name, sizeof name, "windows[%zu][1]", i);
        if (check_ts(c, json_array_get(w, 1), what, name, &b))
            return -1;
        if (a >= b)
            return bad(c, "%s: windows[%zu] is empty", what, i);
        if (i > 0 && a <= prev)
            return bad(c, "%s: windows[%zu] does not start after windows[%zu]", what, i, i - 1);
        prev = a;
    }
    /* version 2: how many it missed; more than the limit lists the first
     * and the last only */
    int64_t missed;
    if (c->version >= 2) {
        if (get_count(c, ev, what, "missed", &missed))
            return -1;
        if (missed != (int64_t)nw && !(missed > WEIR_CAPTURE_LATE_WINDOWS && nw == 2))
            return bad(c, "%s: \"missed\" is %" PRId64 " but \"windows\" lists %zu", what,
                       missed, nw);
    }
    int64_t want;
    if (ts != INT64_MIN && ts != INT64_MAX && wm != INT64_MIN && wm != INT64_MAX &&
        !__builtin_sub_overflow(wm, ts, &want) && want != lateness)
        return bad(c, "%s: \"lateness\" is %" PRId64 ", but watermark - timestamp is %" PRId64,
                   what, lateness, want);
    return 0;
}

static int check_merge(cap_check *c, const json_t *ev, const char *what)
{
    cap_op *op;
    int s;
    int64_t start, end, merged;
    return get_op(c, ev, what, &op, &s) || check_window(c, ev, what, &start, &end) ||
                   get_int(c, ev, what, "merged", 1, INT64_MAX, &merged)
               ? -1
               : 0;
}

static int check_cleanup(cap_check *c, const json_t *ev, const char *what)
{
    cap_op *op;
    int s;
    int64_t start, end;
    return get_op(c, ev, what, &op, &s) || check_window(c, ev, what, &start, &end) ? -1 : 0;
}

static int check_join_state(cap_check *c, const json_t *ev, const char *what)
{
    cap_op *op;
    int s;
    int64_t left, right, hold;
    return get_op(c, ev, what, &op, &s) || get_count(c, ev, what, "left_rows", &left) ||
                   get_count(c, ev, what, "right_rows", &right) ||
                   get_count(c, ev, what, "hold_back_ms", &hold)
               ? -1
               : 0;
}

static int check_backpressure(cap_check *c, const json_t *ev, const char *what)
{
    cap_op *op;
    int s;
    int64_t interval, blocked;
    json_t *fill;
    if (get_op(c, ev, what, &op, &s) || get_count(c, ev, what, "interval_ms", &interval) ||
        get_count(c, ev, what, "blocked_ms", &blocked) || field(c, ev, what, "fill", &fill))
        return -1;
    if (!json_is_number(fill))
        return bad(c, "%s: \"fill\" must be a number, not %s", what, type_name(fill));
    double f = json_number_value(fill);
    if (!(f >= 0 && f <= 1))
        return bad(c, "%s: \"fill\" is %g, outside 0..1", what, f);
    return 0;
}

static int check_record(cap_check *c, const json_t *ev, const char *what)
{
    cap_op *op;
    int s;
    int64_t ts;
    return get_op(c, ev, what, &op, &s) || get_ts(c, ev, what, "timestamp", &ts) ? -1 : 0;
}

/* A number >= 0 (a duration in ms, with a fraction). */
static int get_ms(cap_check *c, const json_t *ev, const char *what, const char *key)
{
    json_t *v;
    if (field(c, ev, what, key, &v))
        return -1;
    if (!json_is_number(v))
        return bad(c, "%s: \"%s\" must be a number, not %s", what, key, type_name(v));
    if (!(json_number_value(v) >= 0))
        return bad(c, "%s: \"%s\" is %g, negative", what, key, json_number_value(v));
    return 0;
}

static int check_checkpoint(cap_check *c, const json_t *ev, const char *what)
{
    cap_op *op;
    int s;
    int64_t id = 0, held, bytes;
    if (get_op(c, ev, what, &op, &s) || get_count(c, ev, what, "id", &id) ||
        get_ms(c, ev, what, "alignment_ms") || get_count(c, ev, what, "held_bytes", &held) ||
        get_count(c, ev, what, "bytes", &bytes) || get_ms(c, ev, what, "snapshot_ms"))
        return -1;
    return id < 1 ? bad(c, "%s: \"id\" is %lld, not a checkpoint id (>= 1)", what,
                        (long long)id)
                  : 0;
}

static int check_checkpoint_trigger(cap_check *c, const json_t *ev, const char *what)
{
    int64_t id = 0;
    bool sp;
    if (get_count(c, ev, what, "id", &id) || get_bool(c, ev, what, "savepoint", &sp))
        return -1;
    return id < 1 ? bad(c, "%s: \"id\" is %lld, not a checkpoint id (>= 1)", what,
                        (long long)id)
                  : 0;
}

static int check_checkpoint_end(cap_check *c, const json_t *ev, const char *what)
{
    int64_t id = 0, bytes, dur;
    json_t *st;
    if (get_count(c, ev, what, "id", &id) || get_count(c, ev, what, "bytes", &bytes) ||
        get_count(c, ev, what, "duration_ms", &dur) || field(c, ev, what, "status", &st))
        return -1;
    const char *status = json_string_value(st);
    if (!status || (strcmp(status, "completed") != 0 && strcmp(status, "aborted") != 0))
        return bad(c, "%s: \"status\" must be \"completed\" or \"aborted\"", what);
    json_t *reason;
    if (strcmp(status, "aborted") == 0) {
        if (field(c, ev, what, "reason", &reason))
            return -1;
        if (!json_is_string(reason))
            return bad(c, "%s: \"reason\" must be a string, not %s", what, type_name(reason));
    }
    return id < 1 ? bad(c, "%s: \"id\" is %lld, not a checkpoint id (>= 1)", what,
                        (long long)id)
                  : 0;
}

/* ---- the summary ---------------------------------------------------------- */

static int check_summary_entry(cap_check *c, const json_t *o, int i)
{
    char what[64];
    if (array_object(c, o, "summary event: operators", i, what))
        return -1;
    cap_op *op;
    int s, acct;
    if (get_op(c, o, what, &op, &s) ||
        get_enum(c, o, what, "accounting", accounting_names, &acct))
        return -1;
    if ((cap_accounting)acct != op->accounting)
        return bad(c, "%s: accounting \"%s\", but the job event says \"%s\" for \"%s\"", what,
                   accounting_names[acct], accounting_names[op->accounting], op->name);
    if (op->in_summary[s])
        return bad(c, "%s: a second entry for \"%s\" subtask %d", what, op->name, s);
    op->in_summary[s] = true;
    cap_counters *k = &op->cnt[s];
    return get_count(c, o, what, "in", &k->in) || get_count(c, o, what, "out", &k->out) ||
                   get_count(c, o, what, "filtered", &k->filtered) ||
                   get_count(c, o, what, "late_dropped", &k->late_dropped) ||
                   get_count(c, o, what, "late_side", &k->late_side) ||
                   get_count(c, o, what, "absorbed", &k->absorbed) ||
                   get_count(c, o, what, "side_out", &k->side_out)
               ? -1
               : 0;
}

/* A count_sum4 result as text: the number, or "more than INT64_MAX". */
static const char *sum_text(int64_t sum, char buf[32])
{
    if (sum < 0)
        snprintf(buf, 32, "more than %" PRId64, INT64_MAX);
    else
        snprintf(buf, 32, "%" PRId64, sum);
    return buf;
}

/* in = kept + filtered + late_dropped + late_side, the identity of the
 * one_to_one and window classes: `kept` is their out or absorbed. */
static int check_in_sum(cap_check *c, const cap_op *op, int s, const char *cls,
                        const char *kept_name, int64_t kept)
{
    const cap_counters *k = &op->cnt[s];
    int64_t sum = count_sum4(kept, k->filtered, k->late_dropped, k->late_side);
    if (k->in == sum)
        return 0;
    return bad(c, "summary event: the counters of \"%s\" subtask %d do not add up (%s: in %" PRId64
                  " != %s %" PRId64 " + filtered %" PRId64 " + late_dropped %" PRId64
                  " + late_side %" PRId64 " = %s)",
               op->name, s, cls, k->in, kept_name, kept, k->filtered, k->late_dropped,
               k->late_side, sum_text(sum, (char[32]){0}));
}

/* The identity of the operator's accounting class (docs/CAPTURE.md). */
static int check_identity(cap_check *c, const cap_op *op, int s)
{
    const cap_counters *k = &op->cnt[s];
    const char *what = "summary event";
    switch (op->accounting) {
    case CAP_ACCT_SOURCE:
        if (k->in != 0)
            return bad(c, "%s: source \"%s\" subtask %d took in %" PRId64 " records (source: in = 0)",
                       what, op->name, s, k->in);
        break;
    case CAP_ACCT_ONE_TO_ONE:
        return check_in_sum(c, op, s, "one_to_one", "out", k->out);
    case CAP_ACCT_WINDOW:
        if (check_in_sum(c, op, s, "window", "absorbed", k->absorbed))
            return -1;
        if (k->late_side != k->side_out)
            return bad(c, "%s: the counters of \"%s\" subtask %d do not add up (window: late_side %" PRId64
                          " != side_out %" PRId64 ")",
                       what, op->name, s, k->late_side, k->side_out);
        break;
    case CAP_ACCT_SINK:
        if (k->out != 0)
            return bad(c, "%s: sink \"%s\" subtask %d emitted %" PRId64 " records (sink: out = 0)",
                       what, op->name, s, k->out);
        break;
    default:
        break;
    }
    return 0;
}

/* Every operator whose input edges all leave main outputs took in exactly
 * what those emitted to it (a broadcast gives each subtask everything). Side
 * edges are left out: side_out counts every side output of the producer,
 * also the ones nobody reads. */
static int check_flow(cap_check *c, int to)
{
    const cap_op *op = &c->ops[to];
    int64_t sent = 0;
    int nedges = 0;
    for (int k = 0; k < c->nedges; k++) {
        const cap_edge *e = &c->edges[k];
        if (e->to != to)
            continue;
        if (e->side)
            return 0;
        nedges++;
        const cap_op *from = &c->ops[e->from];
        int64_t times = e->part == CAP_BROADCAST ? op->parallelism : 1;
        for (int s = 0; s < from->parallelism; s++) {
            int64_t n;
            if (__builtin_mul_overflow(from->cnt[s].out, times, &n) || !count_add(&sent, n))
                return bad(c, "summary event: the inputs of \"%s\" sent it more than %" PRId64
                              " records", op->name, INT64_MAX);
        }
    }
    if (nedges == 0)
        return 0;
    int64_t in = 0;
    for (int s = 0; s < op->parallelism; s++) {
        if (!count_add(&in, op->cnt[s].in))
            return bad(c, "summary event: \"%s\" took in more than %" PRId64 " records", op->name,
                       INT64_MAX);
    }
    if (in != sent)
        return bad(c, "summary event: \"%s\" took in %" PRId64 " records, but its inputs sent it %" PRId64,
                   op->name, in, sent);
    return 0;
}

static int check_summary(cap_check *c, const json_t *ev)
{
    const char *what = "summary event";
    json_t *ops;
    bool lossy;
    if (get_typed(c, ev, what, "operators", JSON_ARRAY, &ops))
        return -1;
    for (size_t i = 0; i < json_array_size(ops); i++) {
        if (check_summary_entry(c, json_array_get(ops, i), (int)i))
            return -1;
    }
    if (get_count(c, ev, what, "events", &c->summary_events) ||
        get_count(c, ev, what, "dropped_events", &c->dropped_events) ||
        get_bool(c, ev, what, "lossy", &lossy))
        return -1;

    json_t *err = json_object_get(ev, "error");
    if (err) {
        if (!json_is_string(err))
            return bad(c, "%s: \"error\" must be a string, not %s", what, type_name(err));
        c->run_failed = true;
        snprintf(c->run_error, sizeof c->run_error, "%s", json_string_value(err));
    }
    /* weir_job_cancel (a signal to the weir command): a stopped run, so it
     * has its error too */
    if (json_object_get(ev, "cancelled")) {
        if (get_bool(c, ev, what, "cancelled", &c->run_cancelled))
            return -1;
        if (c->run_cancelled && !c->run_failed)
            return bad(c, "%s: \"cancelled\" is true, but there is no \"error\"", what);
    }
    for (int i = 0; i < c->nops; i++) {
        for (int s = 0; s < c->ops[i].parallelism; s++) {
            if (!c->ops[i].in_summary[s])
                return bad(c, "%s: no counters for \"%s\" subtask %d", what, c->ops[i].name, s);
        }
    }
    if (c->summary_events != c->events)
        return bad(c, "%s: \"events\" is %" PRId64 ", but %" PRId64 " events come before it", what,
                   c->summary_events, c->events);
    if (lossy != c->lossy)
        return bad(c, "%s: \"lossy\" is %s, but the job event's settings say %s", what,
                   lossy ? "true" : "false", c->lossy ? "true" : "false");
    if (!lossy && c->dropped_events != 0)
        return bad(c, "%s: a lossless capture dropped %" PRId64 " events", what, c->dropped_events);
    /* A failed or cancelled run stopped wherever it was: nothing below need
     * hold. */
    if (c->run_failed)
        return 0;
    bool sampled = strcmp(c->level, "standard") == 0 || strcmp(c->level, "verbose") == 0;
    for (int i = 0; i < c->nops; i++) {
        const cap_op *op = &c->ops[i];
        for (int s = 0; s < op->parallelism; s++) {
            if (check_identity(c, op, s))
                return -1;
            if (!sampled || c->dropped_events)
                continue;
            if (op->tp_in[s] != op->cnt[s].in || op->tp_out[s] != op->cnt[s].out)
                return bad(c, "%s: \"%s\" subtask %d has in %" PRId64 " and out %" PRId64
                              ", but its throughput events add up to in %" PRId64
                              " and out %" PRId64,
                           what, op->name, s, op->cnt[s].in, op->cnt[s].out, op->tp_in[s],
                           op->tp_out[s]);
        }
    }
    for (int i = 0; i < c->nops; i++) {
        if (check_flow(c, i))
            return -1;
    }
    return 0;
}

/* A restore's report: "skipped" with the reason, or "restored" with the
 * checkpoint's id and folder. */
static int check_checkpoint_restore(cap_check *c, const json_t *ev, const char *what)
{
    json_t *st, *text;
    if (field(c, ev, what, "status", &st))
        return -1;
    const char *status = json_string_value(st);
    if (!status || (strcmp(status, "skipped") != 0 && strcmp(status, "restored") != 0))
        return bad(c, "%s: \"status\" must be \"skipped\" or \"restored\"", what);
    bool restored = strcmp(status, "restored") == 0;
    const char *name = restored ? "path" : "reason";
    if (field(c, ev, what, name, &text))
        return -1;
    if (!json_is_string(text))
        return bad(c, "%s: \"%s\" must be a string, not %s", what, name, type_name(text));
    int64_t id = 0;
    if (restored && get_count(c, ev, what, "id", &id))
        return -1;
    return restored && id < 1 ? bad(c, "%s: \"id\" is %lld, not a checkpoint id (>= 1)", what,
                                    (long long)id)
                              : 0;
}

/* ---- one event ------------------------------------------------------------ */

typedef int (*check_fn)(cap_check *c, const json_t *ev, const char *what);

static const struct {
    const char *kind;
    check_fn fn;
} kinds[] = {
    {"watermark", check_watermark},     {"status", check_status},
    {"throughput", check_throughput},   {"window_fire", check_window_fire},
    {"late", check_late},               {"merge", check_merge},
    {"cleanup", check_cleanup},         {"backpressure", check_backpressure},
    {"record", check_record},           {"checkpoint", check_checkpoint},
    {"checkpoint_trigger", check_checkpoint_trigger},
    {"checkpoint_end", check_checkpoint_end},
    {"checkpoint_restore", check_checkpoint_restore},
    {"join_state", check_join_state},
};

int cap_check_event(cap_check *c, json_t *ev)
{
    if (!json_is_object(ev))
        return bad(c, "the event is %s, not a JSON object", type_name(ev));
    json_t *k = json_object_get(ev, "kind");
    if (!k)
        return bad(c, "the event has no \"kind\"");
    if (!json_is_string(k))
        return bad(c, "the event's \"kind\" must be a string, not %s", type_name(k));
    const char *kind = json_string_value(k);
    snprintf(c->last_kind, sizeof c->last_kind, "%.40s", kind);
    char what[64];
    snprintf(what, sizeof what, "%.40s event", kind);
    int64_t t;
    if (get_count(c, ev, what, "t", &t))
        return -1;
    if (c->have_summary)
        return bad(c, "%s after the summary (the summary is the last event)", what);
    int r;
    if (!c->have_job) {
        if (strcmp(kind, "job") != 0)
            return bad(c, "the first event is %s, not the job event", what);
        r = check_job(c, ev);
    } else if (strcmp(kind, "job") == 0) {
        r = bad(c, "a second job event (the job event is the first and only one)");
    } else if (strcmp(kind, "summary") == 0) {
        r = check_summary(c, ev);
        c->have_summary = true;
    } else {
        size_t i = 0;
        while (i < sizeof kinds / sizeof kinds[0] && strcmp(kinds[i].kind, kind) != 0)
            i++;
        if (i == sizeof kinds / sizeof kinds[0]) {
            /* A kind from a later weir: readers skip what they do not know. */
            c->unknown++;
            r = 0;
        } else if (strcmp(c->level, "summary") == 0) {
            r = bad(c, "%s in a capture at level summary (only job and summary events)", what);
        } else if (strcmp(kind, "record") == 0 && strcmp(c->level, "verbose") != 0) {
            r = bad(c, "%s in a capture at level %s (records are written at verbose only)", what,
                    c->level);
        } else {
            r = kinds[i].fn(c, ev, what);
        }
    }
    c->events++;
    return r;
}

int cap_check_end(cap_check *c)
{
    if (!c->have_job)
        return bad(c, "no events (a capture starts with a job event)");
    if (!c->have_summary)
        return bad(c, "the capture is cut short: its last event is a %s event, not the summary",
                   c->last_kind);
    return 0;
}
