/* capture_chrome_trace.c — `weir capture convert --to chrome-trace`: a
 * capture written as the Trace Event Format (the JSON that chrome://tracing
 * and Perfetto's UI open), so that a run can be looked at next to other
 * traces with the tools people already have.
 *
 * The mapping (docs/CAPTURE.md, "Chrome trace / Perfetto"):
 *   - processing time t (ms) is the time axis: ts = t * 1000 (microseconds);
 *   - one process per operator (pid = its index + 1, named "NAME (kind, p=N,
 *     task T)"), one thread per operator subtask (tid = subtask + 1, named
 *     "NAME[s]"): every per-subtask event lands on its subtask's track;
 *   - the output watermark is a counter track "NAME[s] watermark" (event-time
 *     ms; MIN is no value yet, MAX is the instant "watermark MAX (end of
 *     input)" because a counter cannot hold end of time);
 *   - window firings, late elements, session merges, window cleanups and
 *     changes of who holds a valve back (held_by) are instant events on the
 *     subtask's thread, with the event's fields as args;
 *   - idle spans of the subtask's output are "idle" slices (B/E, an idle
 *     span still open at the end closes at the summary's t); a valve
 *     channel's idle/active change is an instant;
 *   - throughput is two counter tracks, "NAME[s] records in/s" and "... out/s":
 *     a sample at t covers (t - interval_ms, t], so its rate is set at the
 *     start of that interval, and falls to 0 where the subtask wrote no sample
 *     (a quiet operator writes none) and after its last one;
 *   - backpressure samples are complete slices "backpressure" over their
 *     interval on a second thread of the subtask ("NAME[s] backpressure",
 *     tid = 1000000 + subtask + 1), so that they never overlap the idle
 *     slices of the first (slices on one thread must nest);
 *   - record events (verbose level) are left out: a million of them would
 *     bury the rest, and the throughput counters already say how many.
 * The job's settings and the summary's totals go into otherData.
 *
 * The capture is read with the checker of `weir capture validate`
 * (cap_read), so only a valid, whole capture is converted: the trace is
 * written event by event while it is read, and the caller throws the output
 * away when a later event turns out bad.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "capture_chrome_trace.h"

#include "capture_read.h"
#include "capture_validate.h"

#define BP_TID 1000000

typedef struct trace_sub {
    bool idle;            /* an "idle" slice is open */
    int64_t tp_end;       /* end of the last throughput interval, -1: none yet */
    bool bp_named;        /* the backpressure thread has its name */
    int held[2];          /* last held_by per valve input, -2: none seen */
} trace_sub;

typedef struct trace {
    FILE *out;
    bool first;           /* no trace event written yet */
    trace_sub **subs;     /* [op][subtask] */
    int nops;
    int64_t written;
    json_t *settings;     /* the job's, for otherData (owned) */
    int version;
} trace;

/* One trace event: the required fields, then args (stolen, may be NULL) and,
 * for a complete slice, its duration (dur_us >= 0). */
static void emit(trace *tr, const char *ph, const char *name, int64_t ts_us, int pid, int tid,
                 json_t *args, int64_t dur_us)
{
    json_t *e = json_object();
    json_object_set_new(e, "name", json_string(name));
    json_object_set_new(e, "ph", json_string(ph));
    json_object_set_new(e, "ts", json_integer(ts_us));
    json_object_set_new(e, "pid", json_integer(pid));
    json_object_set_new(e, "tid", json_integer(tid));
    if (dur_us >= 0)
        json_object_set_new(e, "dur", json_integer(dur_us));
    if (ph[0] == 'i')
        json_object_set_new(e, "s", json_string("t")); /* an instant of its thread */
    json_object_set_new(e, "args", args ? args : json_object());
    fputs(tr->first ? "\n" : ",\n", tr->out);
    tr->first = false;
    json_dumpf(e, tr->out, JSON_COMPACT);
    json_decref(e);
    tr->written++;
}

static void meta(trace *tr, const char *what, int pid, int tid, const char *name)
{
    emit(tr, "M", what, 0, pid, tid, json_pack("{ss}", "name", name), -1);
}

static void sort_index(trace *tr, const char *what, int pid, int tid, int index)
{
    emit(tr, "M", what, 0, pid, tid, json_pack("{si}", "sort_index", index), -1);
}

static int64_t int_of(json_t *ev, const char *key)
{
    return (int64_t)json_integer_value(json_object_get(ev, key));
}

/* A copy of some of the event's fields, for args (those it lacks are skipped). */
static json_t *fields(json_t *ev, const char *const *keys)
{
    json_t *a = json_object();
    for (int k = 0; keys[k]; k++) {
        json_t *v = json_object_get(ev, keys[k]);
        if (v)
            json_object_set(a, keys[k], v);
    }
    return a;
}

static int job(trace *tr, const cap_check *c, json_t *ev)
{
    tr->nops = c->nops;
    tr->subs = calloc((size_t)c->nops, sizeof *tr->subs);
    if (!tr->subs)
        return -1;
    tr->settings = json_incref(json_object_get(ev, "settings"));
    tr->version = (int)int_of(ev, "version");
    for (int i = 0; i < c->nops; i++) {
        const cap_op *op = &c->ops[i];
        tr->subs[i] = calloc((size_t)op->parallelism, sizeof **tr->subs);
        if (!tr->subs[i])
            return -1;
        char name[512];
        snprintf(name, sizeof name, "%s (%s, p=%d, task %d)", op->name, op->kind,
                 op->parallelism, op->task);
        meta(tr, "process_name", i + 1, 0, name);
        sort_index(tr, "process_sort_index", i + 1, 0, i);
        for (int s = 0; s < op->parallelism; s++) {
            trace_sub *ts = &tr->subs[i][s];
            ts->tp_end = -1;
            ts->held[0] = ts->held[1] = -2;
            snprintf(name, sizeof name, "%s[%d]", op->name, s);
            meta(tr, "thread_name", i + 1, s + 1, name);
            sort_index(tr, "thread_sort_index", i + 1, s + 1, 2 * s);
        }
    }
    return 0;
}

/* Sets both throughput counters of a subtask at ts_us. */
static void rates(trace *tr, const char *sub_name, int pid, int tid, int64_t ts_us, double in,
                  double out)
{
    char name[320];
    snprintf(name, sizeof name, "%s records in/s", sub_name);
    emit(tr, "C", name, ts_us, pid, tid, json_pack("{sf}", "value", in), -1);
    snprintf(name, sizeof name, "%s records out/s", sub_name);
    emit(tr, "C", name, ts_us, pid, tid, json_pack("{sf}", "value", out), -1);
}

/* At the summary: open idle slices end, throughput falls to 0. */
static void finish(trace *tr, const cap_check *c, int64_t t)
{
    for (int i = 0; i < tr->nops; i++) {
        for (int s = 0; s < c->ops[i].parallelism; s++) {
            trace_sub *ts = &tr->subs[i][s];
            char sub_name[300];
            snprintf(sub_name, sizeof sub_name, "%s[%d]", c->ops[i].name, s);
            if (ts->idle)
                emit(tr, "E", "idle", t * 1000, i + 1, s + 1,
                     json_pack("{sb}", "until_the_end", 1), -1);
            ts->idle = false;
            if (ts->tp_end >= 0)
                rates(tr, sub_name, i + 1, s + 1, ts->tp_end * 1000, 0, 0);
        }
    }
}

static int visit(void *arg, const cap_check *c, json_t *ev, char *msg)
{
    trace *tr = arg;
    const char *kind = json_string_value(json_object_get(ev, "kind"));
    int64_t t = int_of(ev, "t");
    int64_t us = t * 1000;
    if (strcmp(kind, "job") == 0) {
        if (job(tr, c, ev)) {
            snprintf(msg, 1024, "out of memory");
            return -1;
        }
        return 0;
    }
    if (strcmp(kind, "summary") == 0) {
        finish(tr, c, t);
        return 0;
    }
    json_t *opv = json_object_get(ev, "op");
    if (!json_is_string(opv))
        return 0; /* a kind this weir does not know, without an operator */
    int op = cap_op_find(c, json_string_value(opv));
    json_t *subv = json_object_get(ev, "subtask");
    if (op < 0 || !json_is_integer(subv))
        return 0;
    int s = (int)json_integer_value(subv);
    if (s < 0 || s >= c->ops[op].parallelism)
        return 0;
    trace_sub *ts = &tr->subs[op][s];
    int pid = op + 1, tid = s + 1;
    char sub_name[300], name[400];
    snprintf(sub_name, sizeof sub_name, "%s[%d]", c->ops[op].name, s);
    bool valve = json_object_get(ev, "input") != NULL;

    if (strcmp(kind, "watermark") == 0) {
        json_t *w = json_object_get(ev, "watermark");
        if (valve) {
            /* Only a change of who holds the valve back is worth a mark. */
            int in = (int)int_of(ev, "input");
            json_t *hb = json_object_get(ev, "held_by");
            int held = json_is_integer(hb) ? (int)json_integer_value(hb) : -1;
            if (in >= 0 && in < 2 && held != ts->held[in]) {
                ts->held[in] = held;
                if (held >= 0)
                    snprintf(name, sizeof name, "held back by input %d channel %d", in, held);
                else
                    snprintf(name, sizeof name, "input %d: no aligned channel", in);
                static const char *const keys[] = {"input", "channel", "watermark", "held_by",
                                                   NULL};
                emit(tr, "i", name, us, pid, tid, fields(ev, keys), -1);
            }
            return 0;
        }
        if (json_is_integer(w)) {
            snprintf(name, sizeof name, "%s watermark", sub_name);
            emit(tr, "C", name, us, pid, tid,
                 json_pack("{sI}", "value", (json_int_t)json_integer_value(w)), -1);
        } else if (json_is_string(w) && strcmp(json_string_value(w), "MAX") == 0) {
            emit(tr, "i", "watermark MAX (end of input)", us, pid, tid, NULL, -1);
        }
        return 0;
    }
    if (strcmp(kind, "status") == 0) {
        bool idle = json_is_true(json_object_get(ev, "idle"));
        if (valve) {
            snprintf(name, sizeof name, "input %" PRId64 " channel %" PRId64 " %s",
                     int_of(ev, "input"), int_of(ev, "channel"), idle ? "idle" : "active");
            static const char *const keys[] = {"input", "channel", "idle", "held_by", NULL};
            emit(tr, "i", name, us, pid, tid, fields(ev, keys), -1);
            return 0;
        }
        if (idle && !ts->idle)
            emit(tr, "B", "idle", us, pid, tid, NULL, -1);
        else if (!idle && ts->idle)
            emit(tr, "E", "idle", us, pid, tid, NULL, -1);
        ts->idle = idle;
        return 0;
    }
    if (strcmp(kind, "throughput") == 0) {
        int64_t iv = int_of(ev, "interval_ms");
        if (iv <= 0)
            return 0; /* a last sample of 0 ms: counts without a rate */
        int64_t from = t - iv;
        if (ts->tp_end >= 0 && from > ts->tp_end)
            rates(tr, sub_name, pid, tid, ts->tp_end * 1000, 0, 0); /* it wrote nothing between */
        if (from < ts->tp_end)
            from = ts->tp_end; /* never set a counter before its last value */
        rates(tr, sub_name, pid, tid, from * 1000, (double)int_of(ev, "in") * 1000.0 / (double)iv,
              (double)int_of(ev, "out") * 1000.0 / (double)iv);
        ts->tp_end = t;
        return 0;
    }
    if (strcmp(kind, "backpressure") == 0) {
        int64_t iv = int_of(ev, "interval_ms");
        if (!ts->bp_named) {
            snprintf(name, sizeof name, "%s backpressure", sub_name);
            meta(tr, "thread_name", pid, BP_TID + tid, name);
            sort_index(tr, "thread_sort_index", pid, BP_TID + tid, 2 * s + 1);
            ts->bp_named = true;
        }
        static const char *const keys[] = {"blocked_ms", "interval_ms", "fill", NULL};
        emit(tr, "X", "backpressure", (t - iv) * 1000, pid, BP_TID + tid, fields(ev, keys),
             iv * 1000);
        return 0;
    }
    if (strcmp(kind, "window_fire") == 0) {
        int64_t firing = int_of(ev, "firing");
        bool late = json_is_false(json_object_get(ev, "on_time")) || firing > 0;
        if (late)
            snprintf(name, sizeof name, "late firing %" PRId64, firing);
        else
            snprintf(name, sizeof name, "window fired on time");
        static const char *const keys[] = {"key", "start", "end", "count", "watermark",
                                           "firing", NULL};
        emit(tr, "i", name, us, pid, tid, fields(ev, keys), -1);
        /* version 3: the window's cleanup, folded into its on-time firing,
         * is the same instant a cleanup event makes */
        if (json_is_true(json_object_get(ev, "cleanup"))) {
            static const char *const ckeys[] = {"key", "start", "end", NULL};
            emit(tr, "i", "window cleanup", us, pid, tid, fields(ev, ckeys), -1);
        }
        return 0;
    }
    if (strcmp(kind, "late") == 0) {
        json_t *action = json_object_get(ev, "action");
        bool dropped = json_is_string(action) && strcmp(json_string_value(action), "dropped") == 0;
        static const char *const keys[] = {"key", "timestamp", "watermark", "lateness", "missed",
                                           "windows", NULL};
        emit(tr, "i", dropped ? "late element dropped" : "late element to the side output", us,
             pid, tid, fields(ev, keys), -1);
        return 0;
    }
    if (strcmp(kind, "merge") == 0 || strcmp(kind, "cleanup") == 0) {
        static const char *const keys[] = {"key", "start", "end", "merged", NULL};
        emit(tr, "i", kind[0] == 'm' ? "session merge" : "window cleanup", us, pid, tid,
             fields(ev, keys), -1);
        return 0;
    }
    return 0; /* record events, and kinds this weir does not know */
}

static void free_trace(trace *tr)
{
    for (int i = 0; i < tr->nops; i++)
        free(tr->subs ? tr->subs[i] : NULL);
    free(tr->subs);
    json_decref(tr->settings);
}

int cap_chrome_trace(const char *in, FILE *out, char *err, size_t errsize)
{
    trace tr = {.out = out, .first = true};
    cap_check c;
    cap_check_init(&c);
    fputs("{\"displayTimeUnit\":\"ms\",\"traceEvents\":[", out);
    int r = cap_read(in, &c, visit, &tr, err, errsize);
    if (r == 0) {
        fputs("\n],\"otherData\":", out);
        json_t *other = json_pack("{sssisIsIsOsb}", "source", "weir capture", "version", tr.version,
                                  "events", (json_int_t)c.events, "trace_events",
                                  (json_int_t)tr.written, "settings",
                                  tr.settings ? tr.settings : json_null(), "run_failed",
                                  c.run_failed);
        json_dumpf(other, out, JSON_COMPACT);
        json_decref(other);
        fputs("}\n", out);
        /* an event jansson could not build is missing from the trace */
        if (cap_json_failed()) {
            snprintf(err, errsize, "%s: out of memory", in);
            r = -1;
        }
    }
    free_trace(&tr);
    cap_check_free(&c);
    return r;
}
