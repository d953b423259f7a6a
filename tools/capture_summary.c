/* capture_summary.c — `weir capture summary`: a readable report of a
 * capture, per operator and per subtask.
 *
 * One pass over the events, after the checker passed each one, folds them
 * into per-subtask statistics; the report is built in memory and printed only
 * when the whole capture was read and found valid, so a bad capture never
 * leaves half a report behind.
 *
 * The measures, and why they are defined as they are:
 *   - watermark lag: the largest element timestamp a subtask has taken in so
 *     far minus its output watermark, taken at each of its throughput events
 *     (their `max_ts`, version 2): the largest such lag over the run, and the
 *     last one while the watermark was finite. A throughput event and the
 *     output watermarks before it come from one worker in order, so both
 *     sides are exact at that moment; between samples the largest timestamp
 *     is not known, so no lag is taken there (a watermark event would compare
 *     a new watermark with an old maximum). When the watermark has passed
 *     every element the subtask has seen (a subtask that got few keys, say)
 *     the lag is 0: nothing it has is held back. Without throughput events
 *     (level summary, a version 1 capture, a subtask that took nothing with
 *     a timestamp in) it is "n/a". Late and record events are not used: a
 *     late element is behind the watermark by definition.
 *   - longest stall: the longest processing time between two advances of a
 *     subtask's output watermark, up to its advance to MAX, counting only the
 *     time its output was active (idle time is an output saying "nothing is
 *     coming", not a stall). The cause is read where the watermark is made:
 *     the valve of the task's head, whose `held_by` names the channel holding
 *     the minimum back — just before the valve event that ended the stall,
 *     which is the holder during it; or, when a source or a timestamps
 *     operator makes the watermark in the chain, that operator.
 *   - held at the end: a stall no advance ended (a cancelled unbounded read,
 *     a failed run), from the last advance to the run's end, with the holder
 *     the valve names at the end; only over two watermark intervals, shorter
 *     being a run stopped between two ordinary advances.
 *   - throughput: the summary's counters per second of the run's processing
 *     time, and the busiest single throughput interval of any subtask.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "capture_summary.h"

#include "capture_read.h"
#include "capture_validate.h"
#include "message.h"

/* A time an output watermark did not move, and what held it. */
typedef struct held_back {
    bool has;
    int64_t ms, from, to;
    bool to_max;
    char cause[192];
    int cause_op, cause_sub; /* the producer feeding the holding channel, or -1 */
    char cause_channel[48];  /* "input I channel C" */
} held_back;

typedef struct sub_stats {
    /* the output watermark */
    int64_t advances, wm, last_adv_t;
    bool idle;
    int64_t idle_since, idle_ms, idle_changes;
    int64_t active_ms, seg_start; /* active time since the last advance */
    held_back stall;  /* the longest between two advances */
    held_back at_end; /* since the last advance, when the run ended below MAX */
    bool valve_wm;    /* its valve saw a watermark (it has event time) */
    /* lag */
    bool has_max_ts, has_lag, has_final_lag;
    int64_t max_ts, max_lag, final_lag;
    /* backpressure */
    int64_t blocked_ms, bp_samples;
    double max_fill;
    /* checkpoints: this subtask's snapshots */
    int64_t snapshots, max_held_bytes, max_bytes;
    double max_alignment_ms, sum_alignment_ms;
    /* the valve, for a task's head: held_by now and before the last event */
    int held[2], held_prev[2];
    int last_input;
    bool last_was_wm;
    /* a source's partitions (valve events with "partition"): names by channel */
    char (*pnames)[64];
    int npnames;
} sub_stats;

typedef struct op_stats {
    sub_stats *subs;
    int nsubs;
    int64_t fired_on_time, fired_late, fired_elements, merges, cleanups;
    int64_t late_events;
    /* join_state: the most rows a subtask held on each side, the hold-back */
    bool join;
    int64_t join_left, join_right, join_hold_ms;
    double peak_in;
    int peak_sub;
    int64_t peak_t;
} op_stats;

typedef struct summary {
    op_stats *ops;
    int nops;
    int64_t end_t; /* the summary's t: the run's processing time */
    bool any_window;
    bool any_join; /* a join_state event was seen */
    /* checkpoints */
    int64_t chk_triggered, chk_savepoints, chk_completed, chk_aborted;
    int64_t chk_last_id, chk_last_bytes, chk_max_duration_ms;
    char chk_last_abort[160];
    char clock[16];
    int64_t workers;
    int64_t wm_interval_ms; /* the job's watermark interval */
    /* each operator's name as the report writes it: cut to NAME_COLS
     * characters when longer (the operators section gives it whole) */
    char **names;
} summary;

/* The report's lines stay within REPORT_WIDTH columns (a terminal's, a
 * review's): tables name an operator in at most NAME_COLS characters, and
 * free text (a stall's cause, a run's error) is wrapped. SQL names its
 * operators by their plan ("WatermarkAssigner(rowtime=[ts], watermark=[ts -
 * INTERVAL '1' SECOND])"), which made rows of 300 characters. */
#define REPORT_WIDTH 100
#define NAME_COLS 24

/* Columns of UTF-8 text: one per character (every byte that does not
 * continue a character). */
static size_t text_cols(const char *s)
{
    size_t n = 0;
    for (; *s; s++)
        n += ((unsigned char)*s & 0xc0) != 0x80;
    return n;
}

/* Bytes of the first `n` characters of s (all of it when shorter). */
static size_t cols_bytes(const char *s, size_t n)
{
    size_t i = 0;
    for (size_t k = 0; s[i]; i++) {
        if (((unsigned char)s[i] & 0xc0) != 0x80 && k++ == n)
            break;
    }
    return i;
}

/* The names the report writes: whole up to NAME_COLS characters, else cut
 * with "…"; two that would read the same get the operator's number in the
 * job event too ("…#4"). 0, or -1 out of memory. */
static int make_names(summary *s, const cap_check *c)
{
    s->names = calloc((size_t)c->nops, sizeof *s->names);
    if (!s->names)
        return -1;
    for (int i = 0; i < c->nops; i++) {
        const char *name = c->ops[i].name;
        if (text_cols(name) <= NAME_COLS) {
            s->names[i] = strdup(name);
        } else {
            size_t n = cols_bytes(name, NAME_COLS - 1);
            if ((s->names[i] = malloc(n + sizeof "…")))
                snprintf(s->names[i], n + sizeof "…", "%.*s…", (int)n, name);
        }
        if (!s->names[i])
            return -1;
    }
    bool *twin = calloc((size_t)c->nops, sizeof *twin);
    if (!twin)
        return -1;
    for (int i = 0; i < c->nops; i++)
        for (int k = 0; k < c->nops; k++)
            twin[i] |= k != i && strcmp(s->names[i], s->names[k]) == 0 &&
                       strcmp(c->ops[i].name, c->ops[k].name) != 0;
    for (int i = 0; i < c->nops; i++) {
        if (!twin[i])
            continue;
        char num[16];
        int digits = snprintf(num, sizeof num, "#%d", i + 1);
        size_t n = cols_bytes(c->ops[i].name, NAME_COLS - 1 - (size_t)digits);
        char *d = malloc(n + sizeof "…" + (size_t)digits);
        if (!d) {
            free(twin);
            return -1;
        }
        sprintf(d, "%.*s…%s", (int)n, c->ops[i].name, num);
        free(s->names[i]);
        s->names[i] = d;
    }
    free(twin);
    return 0;
}

/* Writes `text` after `indent` spaces, broken at spaces into lines of at
 * most REPORT_WIDTH columns, the lines after the first indented by `cont`;
 * a word longer than a line is broken where the line ends. */
static void wrap(FILE *out, int indent, int cont, const char *text)
{
    const char *p = text;
    for (bool first = true; first || *p; first = false) {
        size_t room = (size_t)(REPORT_WIDTH - (first ? indent : cont));
        fprintf(out, "%*s", first ? indent : cont, "");
        size_t n = strlen(p);
        if (text_cols(p) > room) {
            n = cols_bytes(p, room);
            /* the last space that keeps the line within the width */
            size_t k = n;
            while (k > 0 && p[k] != ' ')
                k--;
            if (k > 0)
                n = k;
        }
        fwrite(p, 1, n, out);
        fputc('\n', out);
        for (p += n; *p == ' ';)
            p++;
    }
}

static int prepare(summary *s, const cap_check *c, json_t *job)
{
    s->nops = c->nops;
    s->ops = calloc((size_t)c->nops, sizeof *s->ops);
    if (!s->ops)
        return -1;
    for (int i = 0; i < c->nops; i++) {
        op_stats *o = &s->ops[i];
        o->subs = calloc((size_t)c->ops[i].parallelism, sizeof *o->subs);
        if (!o->subs)
            return -1;
        o->nsubs = c->ops[i].parallelism;
        o->peak_sub = -1;
        for (int k = 0; k < c->ops[i].parallelism; k++) {
            sub_stats *st = &o->subs[k];
            st->wm = INT64_MIN;
            st->last_adv_t = -1;
            st->held[0] = st->held[1] = st->held_prev[0] = st->held_prev[1] = -1;
            st->last_input = -1;
        }
    }
    json_t *settings = json_object_get(job, "settings");
    json_t *clock = json_object_get(settings, "clock");
    json_t *workers = json_object_get(settings, "workers");
    snprintf(s->clock, sizeof s->clock, "%s", json_is_string(clock) ? json_string_value(clock) : "?");
    s->workers = json_is_integer(workers) ? (int64_t)json_integer_value(workers) : 0;
    json_t *interval = json_object_get(settings, "watermark_interval_ms");
    s->wm_interval_ms = json_is_integer(interval) ? (int64_t)json_integer_value(interval) : 200;
    return make_names(s, c);
}

static void free_summary(summary *s)
{
    for (int i = 0; i < s->nops; i++) {
        for (int k = 0; s->ops[i].subs && k < s->ops[i].nsubs; k++)
            free(s->ops[i].subs[k].pnames);
        free(s->ops[i].subs);
    }
    free(s->ops);
    for (int i = 0; s->names && i < s->nops; i++)
        free(s->names[i]);
    free(s->names);
}

static int64_t int_of(json_t *ev, const char *key)
{
    return (int64_t)json_integer_value(json_object_get(ev, key));
}

static int64_t ts_of(json_t *ev, const char *key)
{
    int64_t v = INT64_MIN;
    cap_ts(json_object_get(ev, key), &v);
    return v;
}

static bool finite(int64_t v)
{
    return v != INT64_MIN && v != INT64_MAX;
}

/* A throughput event of the subtask said the largest timestamp it took in
 * during the interval was ts: the lag at this moment. */
static void lag_sample(sub_stats *st, int64_t ts)
{
    if (finite(ts) && (!st->has_max_ts || ts > st->max_ts)) {
        st->max_ts = ts;
        st->has_max_ts = true;
    }
    if (!st->has_max_ts || !finite(st->wm))
        return;
    int64_t lag;
    if (__builtin_sub_overflow(st->max_ts, st->wm, &lag))
        return;
    if (lag < 0)
        lag = 0;
    if (!st->has_lag || lag > st->max_lag)
        st->max_lag = lag;
    st->has_lag = true;
    st->final_lag = lag;
    st->has_final_lag = true;
}

/* Which producer subtask feeds channel `ch` of `input` of subtask `sub` of
 * operator `head` (docs/CAPTURE.md: input edges in order, then producer
 * subtask; a forward edge gives one channel, from the same subtask). */
static bool channel_producer(const cap_check *c, int head, int input, int ch, int sub, int *op,
                             int *psub)
{
    for (int k = 0; k < c->nedges; k++) {
        const cap_edge *e = &c->edges[k];
        if (e->to != head || e->input != input || e->chained)
            continue;
        int n = e->part == CAP_FORWARD ? 1 : c->ops[e->from].parallelism;
        if (ch < n) {
            *op = e->from;
            *psub = e->part == CAP_FORWARD ? sub : ch;
            return true;
        }
        ch -= n;
    }
    return false;
}

/* Keeps a source partition's name for its channel. 0, or -1 out of memory. */
static int note_partition(sub_stats *st, int ch, const char *name)
{
    if (ch < 0)
        return 0;
    if (ch >= st->npnames) {
        int n = st->npnames ? st->npnames : 4;
        while (n <= ch)
            n *= 2;
        char(*a)[64] = realloc(st->pnames, (size_t)n * sizeof *a);
        if (!a)
            return -1;
        memset(a + st->npnames, 0, (size_t)(n - st->npnames) * sizeof *a);
        st->pnames = a;
        st->npnames = n;
    }
    snprintf(st->pnames[ch], sizeof st->pnames[ch], "%s", name);
    return 0;
}

static const char *partition_name(const sub_stats *st, int ch)
{
    return ch >= 0 && ch < st->npnames && st->pnames[ch][0] ? st->pnames[ch] : "?";
}

/* Why the output watermark of (op, sub) had not moved, as the valve saw it
 * just before the event that moved it, or (now) as it sees it at the end. */
static void stall_cause(const summary *s, const cap_check *c, int op, int sub, held_back *hb,
                        bool now)
{
    const cap_op *o = &c->ops[op];
    char *buf = hb->cause;
    size_t size = sizeof hb->cause;
    hb->cause_op = hb->cause_sub = -1;
    /* a source that merges its partitions: which partition held it */
    int src = o->origin >= 0 ? o->origin : -1;
    if (src >= 0 && s->ops[src].subs[sub].npnames > 0) {
        const sub_stats *h = &s->ops[src].subs[sub];
        int held = h->last_was_wm && !now ? h->held_prev[0] : h->held[0];
        const char *of = src == op ? "" : " of ";
        const char *name = src == op ? "" : s->names[src];
        if (held < 0)
            snprintf(buf, size, "no active partition%s%s (all idle)", of, name);
        else
            snprintf(buf, size, "held by partition %s (channel %d)%s%s", partition_name(h, held),
                     held, of, name);
        snprintf(hb->cause_channel, sizeof hb->cause_channel, "input 0 channel %d", held);
        return;
    }
    if (o->origin >= 0) {
        if (o->origin == op)
            snprintf(buf, size, "its own watermark generation");
        else
            snprintf(buf, size, "made upstream in the chain by \"%s\"", s->names[o->origin]);
        return;
    }
    const sub_stats *h = &s->ops[o->head].subs[sub];
    int in = h->last_input;
    if (in < 0) {
        snprintf(buf, size, "no valve event before it");
        return;
    }
    int held = h->last_was_wm && !now ? h->held_prev[in] : h->held[in];
    const char *at = o->head == op ? "" : " of ";
    const char *head = o->head == op ? "" : s->names[o->head];
    if (held < 0) {
        snprintf(buf, size, "no aligned channel at the valve%s%s (all idle)", at, head);
        return;
    }
    int pop, psub;
    snprintf(hb->cause_channel, sizeof hb->cause_channel, "input %d channel %d", in, held);
    if (channel_producer(c, o->head, in, held, sub, &pop, &psub)) {
        /* a source producer that merges partitions: the one holding it now */
        const sub_stats *p = &s->ops[pop].subs[psub];
        char there[100] = "";
        if (p->npnames > 0 && p->held[0] >= 0)
            snprintf(there, sizeof there, ", held there by partition %s",
                     partition_name(p, p->held[0]));
        snprintf(buf, size, "held by input %d channel %d%s%s (\"%s\" subtask %d%s)", in, held, at,
                 head, s->names[pop], psub, there);
        hb->cause_op = pop;
        hb->cause_sub = psub;
    } else
        snprintf(buf, size, "held by input %d channel %d%s%s", in, held, at, head);
}

static void output_watermark(summary *s, const cap_check *c, int op, int sub, int64_t t,
                             int64_t wm)
{
    sub_stats *st = &s->ops[op].subs[sub];
    if (st->last_adv_t >= 0 && st->wm != INT64_MAX) {
        int64_t gap = st->active_ms + (st->idle ? 0 : t - st->seg_start);
        if (!st->stall.has || gap > st->stall.ms) {
            st->stall = (held_back){.has = true, .ms = gap, .from = st->last_adv_t, .to = t,
                                    .to_max = wm == INT64_MAX};
            stall_cause(s, c, op, sub, &st->stall, false);
        }
    }
    st->advances++;
    st->wm = wm;
    st->last_adv_t = t;
    st->active_ms = 0;
    st->seg_start = t;
}

static void output_status(sub_stats *st, int64_t t, bool idle)
{
    if (idle == st->idle)
        return;
    st->idle_changes++;
    if (idle) {
        st->active_ms += t - st->seg_start;
        st->idle_since = t;
    } else {
        st->idle_ms += t - st->idle_since;
        st->seg_start = t;
    }
    st->idle = idle;
}

/* Whether (op, sub) works in event time: it, the head of its task or the
 * operator making the watermark in its chain had a watermark come in. */
static bool has_event_time(const summary *s, const cap_check *c, int op, int sub)
{
    const cap_op *o = &c->ops[op];
    return s->ops[op].subs[sub].advances > 0 || s->ops[op].subs[sub].valve_wm ||
           s->ops[o->head].subs[sub].valve_wm ||
           (o->origin >= 0 && s->ops[o->origin].subs[sub].valve_wm);
}

/* At the run's end (time t): an output watermark below MAX and not idle
 * has been held since its last advance (since the start when it never
 * advanced), by what its valve holds back now. A bounded run that finished
 * ends every watermark at MAX; a cancelled or failed one may not. Only a
 * hold longer than two of the job's watermark intervals counts: while
 * elements come, periodic watermarks move once an interval, so a shorter
 * one is the run being stopped between two advances. */
static void end_of_run(summary *s, const cap_check *c, int64_t t)
{
    for (int op = 0; op < c->nops; op++) {
        for (int sub = 0; sub < c->ops[op].parallelism; sub++) {
            sub_stats *st = &s->ops[op].subs[sub];
            if (st->wm == INT64_MAX || st->idle || !has_event_time(s, c, op, sub))
                continue;
            int64_t from = st->last_adv_t >= 0 ? st->last_adv_t : 0;
            int64_t ms = st->active_ms + t - st->seg_start;
            if (ms <= 2 * s->wm_interval_ms)
                continue;
            st->at_end = (held_back){.has = true, .ms = ms, .from = from, .to = t};
            stall_cause(s, c, op, sub, &st->at_end, true);
        }
    }
}

static int visit(void *arg, const cap_check *c, json_t *ev, char *msg)
{
    summary *s = arg;
    const char *kind = json_string_value(json_object_get(ev, "kind"));
    int64_t t = int_of(ev, "t");
    if (strcmp(kind, "job") == 0) {
        if (prepare(s, c, ev)) {
            snprintf(msg, 1024, "out of memory");
            return -1;
        }
        return 0;
    }
    if (strcmp(kind, "summary") == 0) {
        s->end_t = t;
        end_of_run(s, c, t);
        return 0;
    }
    if (strcmp(kind, "checkpoint_trigger") == 0) { /* the job's: no op */
        s->chk_triggered++;
        if (json_is_true(json_object_get(ev, "savepoint")))
            s->chk_savepoints++;
        return 0;
    }
    if (strcmp(kind, "checkpoint_end") == 0) {
        const char *status = json_string_value(json_object_get(ev, "status"));
        if (status && strcmp(status, "aborted") == 0) {
            s->chk_aborted++;
            const char *why = json_string_value(json_object_get(ev, "reason"));
            snprintf(s->chk_last_abort, sizeof s->chk_last_abort, "checkpoint %" PRId64 ": %s",
                     int_of(ev, "id"), why ? why : "?");
        } else {
            s->chk_completed++;
            s->chk_last_id = int_of(ev, "id");
            s->chk_last_bytes = int_of(ev, "bytes");
            if (int_of(ev, "duration_ms") > s->chk_max_duration_ms)
                s->chk_max_duration_ms = int_of(ev, "duration_ms");
        }
        return 0;
    }
    static const char *const known[] = {"watermark", "status",     "throughput", "window_fire",
                                        "late",      "merge",      "cleanup",    "backpressure",
                                        "record",    "checkpoint", "join_state", NULL};
    int k = 0;
    while (known[k] && strcmp(known[k], kind) != 0)
        k++;
    if (!known[k])
        return 0; /* a kind this weir does not know: the checker did not look inside */
    /* the checker made sure of op and subtask */
    int op = cap_op_find(c, json_string_value(json_object_get(ev, "op")));
    int sub = (int)int_of(ev, "subtask");
    op_stats *o = &s->ops[op];
    sub_stats *st = &o->subs[sub];
    bool valve = json_object_get(ev, "input") != NULL;
    json_t *pname = json_object_get(ev, "partition");
    if (valve && json_is_string(pname) &&
        note_partition(st, (int)int_of(ev, "channel"), json_string_value(pname)) != 0) {
        snprintf(msg, 1024, "out of memory");
        return -1;
    }
    if (strcmp(kind, "watermark") == 0) {
        if (valve) {
            int in = (int)int_of(ev, "input");
            json_t *held = json_object_get(ev, "held_by");
            st->held_prev[in] = st->held[in];
            st->held[in] = json_is_integer(held) ? (int)json_integer_value(held) : -1;
            st->last_input = in;
            st->last_was_wm = true;
            st->valve_wm = true;
        } else {
            output_watermark(s, c, op, sub, t, ts_of(ev, "watermark"));
        }
    } else if (strcmp(kind, "status") == 0) {
        if (valve) {
            st->last_input = (int)int_of(ev, "input");
            st->last_was_wm = false;
        } else {
            output_status(st, t, json_is_true(json_object_get(ev, "idle")));
        }
    } else if (strcmp(kind, "throughput") == 0) {
        json_t *max_ts = json_object_get(ev, "max_ts");
        if (max_ts)
            lag_sample(st, ts_of(ev, "max_ts"));
        int64_t interval = int_of(ev, "interval_ms");
        if (interval > 0) {
            double rate = (double)int_of(ev, "in") * 1000.0 / (double)interval;
            if (o->peak_sub < 0 || rate > o->peak_in) {
                o->peak_in = rate;
                o->peak_sub = sub;
                o->peak_t = t;
            }
        }
    } else if (strcmp(kind, "window_fire") == 0) {
        s->any_window = true;
        if (int_of(ev, "firing") == 0)
            o->fired_on_time++;
        else
            o->fired_late++;
        o->fired_elements += int_of(ev, "count");
        /* version 3: the window's cleanup folded into its on-time firing */
        o->cleanups += json_is_true(json_object_get(ev, "cleanup"));
    } else if (strcmp(kind, "late") == 0) {
        s->any_window = true;
        o->late_events++;
    } else if (strcmp(kind, "merge") == 0) {
        s->any_window = true;
        o->merges++;
    } else if (strcmp(kind, "cleanup") == 0) {
        s->any_window = true;
        o->cleanups++;
    } else if (strcmp(kind, "checkpoint") == 0) {
        st->snapshots++;
        double a = json_number_value(json_object_get(ev, "alignment_ms"));
        st->sum_alignment_ms += a;
        if (a > st->max_alignment_ms)
            st->max_alignment_ms = a;
        if (int_of(ev, "held_bytes") > st->max_held_bytes)
            st->max_held_bytes = int_of(ev, "held_bytes");
        if (int_of(ev, "bytes") > st->max_bytes)
            st->max_bytes = int_of(ev, "bytes");
    } else if (strcmp(kind, "join_state") == 0) {
        s->any_join = true;
        o->join = true;
        if (int_of(ev, "left_rows") > o->join_left)
            o->join_left = int_of(ev, "left_rows");
        if (int_of(ev, "right_rows") > o->join_right)
            o->join_right = int_of(ev, "right_rows");
        o->join_hold_ms = int_of(ev, "hold_back_ms");
    } else if (strcmp(kind, "backpressure") == 0) {
        st->blocked_ms += int_of(ev, "blocked_ms");
        st->bp_samples++;
        double f = json_number_value(json_object_get(ev, "fill"));
        if (f > st->max_fill)
            st->max_fill = f;
    }
    return 0;
}

/* ---- tables --------------------------------------------------------------- */

#define MAX_COLS 12

typedef struct table {
    int ncols;
    char **cells; /* rows * ncols */
    char **notes; /* per row: a line of text under it, or NULL */
    int nrows, cap;
    bool failed;
} table;

static void row(table *t, ...)
{
    if (t->failed)
        return;
    if (t->nrows == t->cap) {
        int cap = t->cap ? t->cap * 2 : 16;
        char **c = realloc(t->cells, (size_t)cap * (size_t)t->ncols * sizeof *c);
        if (c)
            t->cells = c;
        char **n = c ? realloc(t->notes, (size_t)cap * sizeof *n) : NULL;
        if (!n) {
            t->failed = true;
            return;
        }
        t->notes = n;
        t->cap = cap;
    }
    va_list ap;
    va_start(ap, t);
    for (int i = 0; i < t->ncols; i++) {
        const char *s = va_arg(ap, const char *);
        char *d = strdup(s ? s : "");
        if (!d)
            t->failed = true;
        t->cells[t->nrows * t->ncols + i] = d;
    }
    va_end(ap);
    t->notes[t->nrows] = NULL;
    t->nrows++;
}

/* A line of text under the last row (wrapped, indented under its row). */
static void row_note(table *t, const char *note)
{
    if (t->failed || !t->nrows)
        return;
    if (!(t->notes[t->nrows - 1] = strdup(note)))
        t->failed = true;
}

/* Prints the table, the first row as its header; align[i] is 'l' or 'r' for
 * column i. Columns are as wide as their widest cell in characters (UTF-8
 * names line up too); a row's note follows it, four spaces in. */
static void print_table(FILE *out, table *t, const char *align)
{
    size_t w[MAX_COLS] = {0};
    for (int r = 0; r < t->nrows; r++) {
        for (int i = 0; i < t->ncols; i++) {
            size_t n = text_cols(t->cells[r * t->ncols + i] ? t->cells[r * t->ncols + i] : "");
            if (n > w[i])
                w[i] = n;
        }
    }
    for (int r = 0; r < t->nrows; r++) {
        fputs("  ", out);
        for (int i = 0; i < t->ncols; i++) {
            const char *s = t->cells[r * t->ncols + i] ? t->cells[r * t->ncols + i] : "";
            bool last = i == t->ncols - 1;
            if (last && !*s)
                break; /* no trailing blanks */
            if (i > 0)
                fputs("  ", out);
            int pad = (int)(w[i] - text_cols(s));
            if (align[i] == 'l')
                fprintf(out, "%s%*s", s, last ? 0 : pad, "");
            else
                fprintf(out, "%*s%s", pad, "", s);
        }
        fputc('\n', out);
        if (t->notes[r])
            wrap(out, 4, 6, t->notes[r]);
    }
}

static void free_table(table *t)
{
    for (int k = 0; k < t->nrows * t->ncols; k++)
        free(t->cells[k]);
    for (int k = 0; k < t->nrows; k++)
        free(t->notes[k]);
    free(t->cells);
    free(t->notes);
    t->cells = t->notes = NULL;
    t->nrows = t->cap = 0;
}

/* Prints a table that has `n` rows below its header, or "none". */
static void finish_table(FILE *out, table *t, const char *align, int n)
{
    if (n)
        print_table(out, t, align);
    else
        fprintf(out, "  none\n");
    free_table(t);
}

static const char *fmt_num(char *buf, size_t size, int64_t v)
{
    snprintf(buf, size, "%" PRId64, v);
    return buf;
}

static const char *fmt_ts(char *buf, size_t size, int64_t v)
{
    if (v == INT64_MIN)
        return "MIN";
    if (v == INT64_MAX)
        return "MAX";
    return fmt_num(buf, size, v);
}

static const char *fmt_rate(char *buf, size_t size, int64_t n, int64_t ms)
{
    if (ms <= 0)
        return "-";
    snprintf(buf, size, "%.0f", (double)n * 1000.0 / (double)ms);
    return buf;
}

/* ---- the report ----------------------------------------------------------- */

/* The stall's cause, followed upstream: while the producer that fed the
 * holding channel was itself stalled over the same time for a channel of
 * its own, that channel is the cause behind the cause ("<- ..."), up to a
 * few hops. What the report calls the root is then the partition that was
 * quiet, not just the exchange in front of it. */
static void full_cause(const summary *s, const cap_check *c, const held_back *hb, bool at_end,
                       char *buf, size_t size)
{
    snprintf(buf, size, "%s", hb->cause);
    int op = hb->cause_op, sub = hb->cause_sub;
    for (int hops = 0; op >= 0 && hops < 8; hops++) {
        const sub_stats *ups = &s->ops[op].subs[sub];
        const held_back *up = at_end ? &ups->at_end : &ups->stall;
        if (!up->has || up->from >= hb->to || up->to <= hb->from)
            break;
        size_t n = strlen(buf);
        if (up->cause_op >= 0)
            snprintf(buf + n, size - n, " <- %s (\"%s\" subtask %d)", up->cause_channel,
                     s->names[up->cause_op], up->cause_sub);
        op = up->cause_op;
        sub = up->cause_sub;
    }
}

/* The watermarks still held when the run ended (a cancelled unbounded
 * read, a failed run): the stall the table cannot show, as no advance ended
 * it. */
static void held_at_end(FILE *out, const summary *s, const cap_check *c)
{
    bool any = false;
    for (int op = 0; op < c->nops; op++) {
        for (int sub = 0; sub < c->ops[op].parallelism; sub++) {
            const sub_stats *st = &s->ops[op].subs[sub];
            if (!st->at_end.has)
                continue;
            if (!any)
                fprintf(out, "  held at the end of the run (not idle, below MAX):\n");
            any = true;
            char w[64], cause[512], line[768];
            full_cause(s, c, &st->at_end, true, cause, sizeof cause);
            snprintf(line, sizeof line,
                     "%s subtask %d: watermark %s for %" PRId64 " ms (t %" PRId64 "..%" PRId64
                     "): %s",
                     s->names[op], sub, st->advances ? fmt_ts(w, sizeof w, st->wm) : "MIN",
                     st->at_end.ms, st->at_end.from, st->at_end.to, cause);
            wrap(out, 4, 8, line);
        }
    }
}

/* The operators whose names the tables cut, each name whole (wrapped). */
static void names_in_full(FILE *out, const summary *s, const cap_check *c)
{
    bool any = false;
    for (int i = 0; i < c->nops; i++) {
        if (strcmp(s->names[i], c->ops[i].name) == 0)
            continue;
        if (!any)
            fprintf(out, "  names cut above and below, in full:\n");
        any = true;
        size_t n = strlen(s->names[i]) + strlen(c->ops[i].name) + 4;
        char *line = malloc(n);
        if (!line) {
            wrap(out, 4, 6, c->ops[i].name);
            continue;
        }
        snprintf(line, n, "%s = %s", s->names[i], c->ops[i].name);
        wrap(out, 4, 6, line);
        free(line);
    }
}

static void report(FILE *out, const char *path, const summary *s, const cap_check *c)
{
    char a[64], b[64], d[64], e[64], f[64], g[64], h[96];
    /* wrapped: a long path makes it long (a path is at most PATH_MAX) */
    char head[4096 + 256];
    snprintf(head, sizeof head, "capture %s: %s, %" PRId64 " events, level %s, clock %s, %" PRId64
                                " worker%s, %s",
             path, c->msgpack ? "msgpack" : "JSONL", c->events, c->level, s->clock, s->workers,
             s->workers == 1 ? "" : "s", c->lossy ? "lossy" : "lossless");
    wrap(out, 0, 4, head);
    fprintf(out, "processing time: %" PRId64 " ms\n", s->end_t);
    if (c->lossy)
        fprintf(out, "dropped events: %" PRId64 " (the lossy channel's ring was full)\n",
                c->dropped_events);
    if (c->run_cancelled)
        fprintf(out, "the run was cancelled: its counters stop where it stopped\n");
    else if (c->run_failed) {
        char why[sizeof c->run_error + 32];
        snprintf(why, sizeof why, "the run failed: %s", c->run_error);
        wrap(out, 0, 4, why);
    }

    fprintf(out, "\noperators\n");
    table t = {.ncols = 5};
    row(&t, "operator", "kind", "p", "task", "accounting");
    for (int i = 0; i < c->nops; i++) {
        const cap_op *op = &c->ops[i];
        static const char *const acct[] = {"source", "one_to_one", "window", "sink", "any"};
        char p[16], task[16];
        snprintf(p, sizeof p, "%d", op->parallelism);
        snprintf(task, sizeof task, "%d", op->task);
        row(&t, s->names[i], op->kind, p, task, acct[op->accounting]);
    }
    print_table(out, &t, "lllrl");
    free_table(&t);
    names_in_full(out, s, c);

    fprintf(out, "\nrecords (per second of processing time)\n");
    t = (table){.ncols = 6};
    row(&t, "operator", "in", "out", "in/s", "out/s", "peak in/s (subtask, t)");
    for (int i = 0; i < c->nops; i++) {
        const cap_op *op = &c->ops[i];
        const op_stats *o = &s->ops[i];
        int64_t in = 0, outn = 0;
        for (int k = 0; k < op->parallelism; k++) {
            in += op->cnt[k].in;
            outn += op->cnt[k].out;
        }
        char peak[96];
        if (o->peak_sub >= 0 && o->peak_in > 0)
            snprintf(peak, sizeof peak, "%.0f (%d, %" PRId64 " ms)", o->peak_in, o->peak_sub,
                     o->peak_t);
        else
            snprintf(peak, sizeof peak, "-");
        row(&t, s->names[i], fmt_num(a, sizeof a, in), fmt_num(b, sizeof b, outn),
            fmt_rate(d, sizeof d, in, s->end_t), fmt_rate(e, sizeof e, outn, s->end_t), peak);
    }
    print_table(out, &t, "lrrrrr");
    free_table(&t);

    fprintf(out, "\nwatermarks (each operator subtask's output; under a stall, when and why)\n");
    t = (table){.ncols = 7};
    row(&t, "operator", "subtask", "advances", "final", "max lag", "final lag", "longest stall");
    bool lag_na = false;
    for (int i = 0; i < c->nops; i++) {
        const cap_op *op = &c->ops[i];
        for (int k = 0; k < op->parallelism; k++) {
            const sub_stats *st = &s->ops[i].subs[k];
            char sub[16], stall[64];
            snprintf(sub, sizeof sub, "%d", k);
            if (st->stall.has)
                snprintf(stall, sizeof stall, "%" PRId64 " ms", st->stall.ms);
            else
                snprintf(stall, sizeof stall, "-");
            /* A source takes no elements in: it has no lag to speak of. */
            bool source = op->accounting == CAP_ACCT_SOURCE;
            if (!st->has_lag && st->advances && !source)
                lag_na = true;
            row(&t, s->names[i], sub, fmt_num(a, sizeof a, st->advances),
                st->advances ? fmt_ts(b, sizeof b, st->wm) : "-",
                source ? "-" : st->has_lag ? fmt_num(d, sizeof d, st->max_lag) : "n/a",
                source ? "-" : st->has_final_lag ? fmt_num(e, sizeof e, st->final_lag) : "n/a",
                stall);
            if (st->stall.has) {
                char cause[512], note[640];
                full_cause(s, c, &st->stall, false, cause, sizeof cause);
                snprintf(note, sizeof note, "t %" PRId64 "..%" PRId64 "%s: %s", st->stall.from,
                         st->stall.to, st->stall.to_max ? ", to MAX" : "", cause);
                row_note(&t, note);
            }
        }
    }
    print_table(out, &t, "lrrrrrr");
    free_table(&t);
    if (lag_na)
        wrap(out, 2, 3, "(lag n/a: no throughput event of that subtask says what it took in: "
                        "level summary, a version 1 capture, or no element with a timestamp)");
    held_at_end(out, s, c);

    fprintf(out, "\nwindows and late elements (firings on time and late; late elements dropped or "
                 "to the side output)\n");
    t = (table){.ncols = 8};
    row(&t, "operator", "on time", "late", "elements fired", "dropped", "side output", "merges",
        "cleanups");
    int nwin = 0;
    for (int i = 0; i < c->nops; i++) {
        const cap_op *op = &c->ops[i];
        const op_stats *o = &s->ops[i];
        int64_t dropped = 0, side = 0;
        for (int k = 0; k < op->parallelism; k++) {
            dropped += op->cnt[k].late_dropped;
            side += op->cnt[k].late_side;
        }
        if (!o->fired_on_time && !o->fired_late && !o->merges && !o->cleanups && !dropped &&
            !side && !o->late_events && op->accounting != CAP_ACCT_WINDOW)
            continue;
        nwin++;
        row(&t, s->names[i], fmt_num(a, sizeof a, o->fired_on_time),
            fmt_num(b, sizeof b, o->fired_late), fmt_num(d, sizeof d, o->fired_elements),
            fmt_num(e, sizeof e, dropped), fmt_num(f, sizeof f, side),
            fmt_num(g, sizeof g, o->merges), fmt_num(h, sizeof h, o->cleanups));
    }
    finish_table(out, &t, "lrrrrrrr", nwin);

    if (s->any_join) {
        fprintf(out, "\njoins (the most rows a subtask held on each side; how far the join holds "
                     "its output watermark back)\n");
        t = (table){.ncols = 4};
        row(&t, "operator", "left rows", "right rows", "watermark held back");
        int njoin = 0;
        for (int i = 0; i < c->nops; i++) {
            const op_stats *o = &s->ops[i];
            if (!o->join)
                continue;
            njoin++;
            if (o->join_hold_ms)
                snprintf(d, sizeof d, "%" PRId64 " ms (the join's bound)", o->join_hold_ms);
            else
                snprintf(d, sizeof d, "not held back");
            row(&t, s->names[i], fmt_num(a, sizeof a, o->join_left),
                fmt_num(b, sizeof b, o->join_right), d);
        }
        finish_table(out, &t, "lrrl", njoin);
    }

    fprintf(out, "\nbackpressure (time blocked on a full output)\n");
    t = (table){.ncols = 5};
    row(&t, "operator", "subtask", "blocked ms", "max fill", "samples");
    int nbp = 0;
    for (int i = 0; i < c->nops; i++) {
        for (int k = 0; k < c->ops[i].parallelism; k++) {
            const sub_stats *st = &s->ops[i].subs[k];
            if (!st->bp_samples)
                continue;
            nbp++;
            char sub[16];
            snprintf(sub, sizeof sub, "%d", k);
            snprintf(d, sizeof d, "%.2f", st->max_fill);
            row(&t, s->names[i], sub, fmt_num(a, sizeof a, st->blocked_ms), d,
                fmt_num(b, sizeof b, st->bp_samples));
        }
    }
    finish_table(out, &t, "lrrrr", nbp);

    fprintf(out, "\nidleness (time each output spent idle)\n");
    t = (table){.ncols = 4};
    row(&t, "operator", "subtask", "idle ms", "changes");
    int nidle = 0;
    for (int i = 0; i < c->nops; i++) {
        for (int k = 0; k < c->ops[i].parallelism; k++) {
            const sub_stats *st = &s->ops[i].subs[k];
            if (!st->idle_changes)
                continue;
            nidle++;
            char sub[16];
            snprintf(sub, sizeof sub, "%d", k);
            int64_t ms = st->idle_ms + (st->idle ? s->end_t - st->idle_since : 0);
            row(&t, s->names[i], sub, fmt_num(a, sizeof a, ms),
                fmt_num(b, sizeof b, st->idle_changes));
        }
    }
    finish_table(out, &t, "lrrr", nidle);

    if (!s->chk_triggered && !s->chk_completed && !s->chk_aborted)
        return;
    fprintf(out,
            "\ncheckpoints: %" PRId64 " triggered (%" PRId64 " savepoints), %" PRId64
            " completed, %" PRId64 " aborted; longest %" PRId64 " ms\n",
            s->chk_triggered, s->chk_savepoints, s->chk_completed, s->chk_aborted,
            s->chk_max_duration_ms);
    if (s->chk_completed)
        fprintf(out, "  the last complete: %" PRId64 ", %" PRId64 " bytes\n", s->chk_last_id,
                s->chk_last_bytes);
    if (s->chk_aborted) {
        char why[sizeof s->chk_last_abort + 16];
        snprintf(why, sizeof why, "last abort: %s", s->chk_last_abort);
        wrap(out, 2, 4, why);
    }
    wrap(out, 2, 3, "(per subtask: its snapshots, its barrier alignment in ms, the longest and "
                    "the mean, the most bytes it held back while aligning, its largest snapshot)");
    t = (table){.ncols = 7};
    row(&t, "operator", "subtask", "snapshots", "max alignment ms", "mean", "max held",
        "max bytes");
    int nchk = 0;
    for (int i = 0; i < c->nops; i++) {
        for (int k = 0; k < c->ops[i].parallelism; k++) {
            const sub_stats *st = &s->ops[i].subs[k];
            if (!st->snapshots)
                continue;
            nchk++;
            char sub[16], mx[32], mean[32];
            snprintf(sub, sizeof sub, "%d", k);
            snprintf(mx, sizeof mx, "%.3f", st->max_alignment_ms);
            snprintf(mean, sizeof mean, "%.3f", st->sum_alignment_ms / (double)st->snapshots);
            row(&t, s->names[i], sub, fmt_num(a, sizeof a, st->snapshots), mx, mean,
                fmt_num(b, sizeof b, st->max_held_bytes), fmt_num(d, sizeof d, st->max_bytes));
        }
    }
    finish_table(out, &t, "lrrrrrr", nchk);
}

int cap_summary_main(const char *path, FILE *out, char *err, size_t errsize)
{
    cap_check c;
    cap_check_init(&c);
    summary s;
    memset(&s, 0, sizeof s);
    int r = cap_read(path, &c, visit, &s, err, errsize);
    if (r == 0) {
        char *text = NULL;
        size_t len = 0;
        FILE *mem = open_memstream(&text, &len);
        if (!mem) {
            snprintf(err, errsize, "weir capture summary: out of memory");
            r = -1;
        } else {
            report(mem, path, &s, &c);
            bool made = fclose(mem) == 0;
            errno = 0;
            if (!made) {
                snprintf(err, errsize, "weir capture summary: out of memory");
                r = -1;
            } else if (fwrite(text, 1, len, out) != len) {
                snprintf(err, errsize, "weir capture summary: cannot write the report: %s",
                         weir_tool_strerror(errno ? errno : weir_tool_lost_write_errno(out)));
                r = -1;
            }
            free(text);
        }
    }
    free_summary(&s);
    cap_check_free(&c);
    return r;
}
