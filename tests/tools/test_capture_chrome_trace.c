/* test_capture_chrome_trace.c — `weir capture convert --to chrome-trace` as
 * a user runs it (the real binary), on captures real runs wrote: `weir
 * demo`'s idle-with-idleness (idle spans, a valve held back) and lateness
 * (on-time and late firings, late elements dropped and sent to the side
 * output) and examples/backpressure (a slow sink: backpressure samples).
 *
 * The output is checked against the Trace Event Format itself, not against
 * a copy of the writer: a JSON object with a traceEvents array; every event
 * has a string name, a known phase, an integer ts >= 0, integer pid and tid
 * and an args object; instants have a scope, complete slices a duration,
 * counters only numbers; every B has its E on the same thread, in time order
 * and nested; the slices of one thread never overlap partly; every counter
 * track runs forward in time, and a watermark counter never goes down. Then
 * the trace is read back and its counts compared with the capture's: one
 * thread per operator subtask, one instant per firing and late element (by
 * kind and action), one idle slice per idle span, one backpressure slice per
 * sample, one watermark counter value or MAX instant per output watermark.
 * Bad input and bad usage are refused and write nothing. Bounded: the three
 * programs run for about 3 s together.
 */
#include <criterion/criterion.h>
#include <jansson.h>
#include <sys/wait.h>

#include "diag/test_diag_support.h"

#define WEIR WEIR_BINARY_DIR "/tools/weir"
#define BACKPRESSURE WEIR_BINARY_DIR "/examples/backpressure"

static int sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int sh(const char *fmt, ...)
{
    char cmd[4096];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(cmd, sizeof cmd, fmt, ap);
    va_end(ap);
    int st = system(cmd);
    cr_assert(st != -1 && WIFEXITED(st), "%s did not exit normally", cmd);
    return WEXITSTATUS(st);
}

/* What the capture says, counted the way the trace should show it. */
typedef struct counts {
    int64_t subtasks, on_time, late_fire, dropped, side, idle_spans, bp, wm_finite, wm_max;
} counts;

static counts capture_counts(const char *path)
{
    counts n = {0};
    size_t len;
    char *text = td_read(path, &len);
    /* per subtask "is idle now", for spans: op name + subtask as the key */
    json_t *idle = json_object();
    for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
        json_t *ev = td_json(line);
        const char *kind = td_str(ev, "kind");
        bool valve = json_object_get(ev, "input") != NULL;
        if (strcmp(kind, "job") == 0) {
            json_t *op;
            size_t i;
            json_array_foreach(json_object_get(ev, "operators"), i, op) n.subtasks +=
                td_int(op, "parallelism");
        } else if (strcmp(kind, "window_fire") == 0) {
            if (td_int(ev, "firing") == 0)
                n.on_time++;
            else
                n.late_fire++;
        } else if (strcmp(kind, "late") == 0) {
            if (strcmp(td_str(ev, "action"), "dropped") == 0)
                n.dropped++;
            else
                n.side++;
        } else if (strcmp(kind, "backpressure") == 0) {
            n.bp++;
        } else if (strcmp(kind, "watermark") == 0 && !valve) {
            json_t *w = json_object_get(ev, "watermark");
            if (json_is_integer(w))
                n.wm_finite++;
            else if (strcmp(json_string_value(w), "MAX") == 0)
                n.wm_max++;
        } else if (strcmp(kind, "status") == 0 && !valve) {
            char key[256];
            snprintf(key, sizeof key, "%s/%lld", td_str(ev, "op"), (long long)td_int(ev, "subtask"));
            bool now = json_is_true(json_object_get(ev, "idle"));
            bool was = json_is_true(json_object_get(idle, key));
            if (now && !was)
                n.idle_spans++;
            json_object_set_new(idle, key, json_boolean(now));
        }
        json_decref(ev);
    }
    json_decref(idle);
    free(text);
    return n;
}

static bool name_is(json_t *e, const char *name)
{
    return strcmp(json_string_value(json_object_get(e, "name")), name) == 0;
}

static bool ends_with(const char *s, const char *tail)
{
    size_t a = strlen(s), b = strlen(tail);
    return a >= b && strcmp(s + a - b, tail) == 0;
}

/* Checks the trace at path against the format and returns what it holds,
 * counted as capture_counts() counts the capture. */
static counts trace_counts(const char *path)
{
    json_error_t je;
    json_t *doc = json_load_file(path, 0, &je);
    cr_assert_not_null(doc, "%s: not JSON: line %d: %s", path, je.line, je.text);
    cr_assert(json_is_object(doc), "the trace is a JSON object");
    const char *unit = json_string_value(json_object_get(doc, "displayTimeUnit"));
    cr_assert(unit && (strcmp(unit, "ms") == 0 || strcmp(unit, "ns") == 0), "displayTimeUnit ms or ns");
    json_t *events = json_object_get(doc, "traceEvents");
    cr_assert(json_is_array(events) && json_array_size(events) > 0, "a non-empty traceEvents array");

    counts n = {0};
    json_t *counter_ts = json_object(), *counter_val = json_object();
    json_t *open = json_object();   /* "pid/tid" -> array of open B names */
    json_t *slice_end = json_object(); /* "pid/tid" -> end of the last X */
    json_t *threads = json_object();
    size_t i;
    json_t *e;
    json_array_foreach(events, i, e) {
        cr_assert(json_is_object(e), "event %zu is an object", i);
        json_t *name = json_object_get(e, "name"), *ph = json_object_get(e, "ph");
        json_t *ts = json_object_get(e, "ts"), *pid = json_object_get(e, "pid");
        json_t *tid = json_object_get(e, "tid"), *args = json_object_get(e, "args");
        cr_assert(json_is_string(name) && json_is_string(ph), "event %zu has a name and ph", i);
        cr_assert(json_is_integer(ts) && json_integer_value(ts) >= 0, "event %zu: integer ts >= 0", i);
        cr_assert(json_is_integer(pid) && json_is_integer(tid), "event %zu: integer pid and tid", i);
        cr_assert(json_is_object(args), "event %zu has an args object", i);
        const char *p = json_string_value(ph), *nm = json_string_value(name);
        cr_assert(strlen(p) == 1 && strchr("BEXiCM", p[0]), "event %zu: phase '%s' is one of B E X i C M", i, p);
        char thread[64], track[600];
        snprintf(thread, sizeof thread, "%lld/%lld", (long long)json_integer_value(pid),
                 (long long)json_integer_value(tid));
        int64_t t = json_integer_value(ts);
        switch (p[0]) {
        case 'M':
            cr_assert(name_is(e, "process_name") || name_is(e, "thread_name") ||
                          name_is(e, "process_sort_index") || name_is(e, "thread_sort_index"),
                      "metadata event %zu: %s", i, nm);
            if (name_is(e, "thread_name")) {
                const char *tn = json_string_value(json_object_get(args, "name"));
                cr_assert(tn, "thread_name %zu has args.name", i);
                if (!ends_with(tn, " backpressure")) {
                    cr_assert_null(json_object_get(threads, thread), "thread %s named twice", thread);
                    json_object_set_new(threads, thread, json_string(tn));
                    n.subtasks++;
                }
            }
            break;
        case 'C': {
            const char *k;
            json_t *v;
            cr_assert(json_object_size(args) > 0, "counter %zu has values", i);
            json_object_foreach(args, k, v) cr_assert(json_is_number(v), "counter %zu: %s is a number", i, k);
            snprintf(track, sizeof track, "%lld/%s", (long long)json_integer_value(pid), nm);
            json_t *last = json_object_get(counter_ts, track);
            cr_assert(!last || json_integer_value(last) <= t, "counter track %s goes back in time at event %zu", track, i);
            json_object_set_new(counter_ts, track, json_integer(t));
            if (ends_with(nm, " watermark")) {
                double val = json_number_value(json_object_get(args, "value"));
                json_t *lv = json_object_get(counter_val, track);
                cr_assert(!lv || json_real_value(lv) <= val, "watermark counter %s goes down at event %zu", track, i);
                json_object_set_new(counter_val, track, json_real(val));
                n.wm_finite++;
            }
            break;
        }
        case 'i': {
            const char *s = json_string_value(json_object_get(e, "s"));
            cr_assert(s && (strcmp(s, "t") == 0 || strcmp(s, "p") == 0 || strcmp(s, "g") == 0), "instant %zu has a scope", i);
            cr_assert_not_null(json_object_get(threads, thread), "instant %zu on a named thread", i);
            if (name_is(e, "window fired on time"))
                n.on_time++;
            else if (strncmp(nm, "late firing ", 12) == 0)
                n.late_fire++;
            else if (name_is(e, "late element dropped"))
                n.dropped++;
            else if (name_is(e, "late element to the side output"))
                n.side++;
            else if (name_is(e, "watermark MAX (end of input)"))
                n.wm_max++;
            break;
        }
        case 'B': case 'E': {
            json_t *stack = json_object_get(open, thread);
            if (!stack) {
                stack = json_array();
                json_object_set_new(open, thread, stack);
            }
            json_t *end = json_object_get(slice_end, thread);
            cr_assert(!end || json_integer_value(end) <= t, "slice at event %zu begins or ends before the last one on %s", i, thread);
            json_object_set_new(slice_end, thread, json_integer(t));
            if (p[0] == 'B') {
                json_array_append_new(stack, json_string(nm));
                n.idle_spans += name_is(e, "idle");
            } else {
                size_t d = json_array_size(stack);
                cr_assert(d > 0, "E at event %zu on %s has no B", i, thread);
                cr_assert_str_eq(json_string_value(json_array_get(stack, d - 1)), nm, "E matches its B");
                json_array_remove(stack, d - 1);
            }
            break;
        }
        case 'X': {
            json_t *dur = json_object_get(e, "dur");
            cr_assert(json_is_integer(dur) && json_integer_value(dur) >= 0, "slice %zu has dur >= 0", i);
            json_t *end = json_object_get(slice_end, thread);
            cr_assert(!end || json_integer_value(end) <= t, "slice %zu overlaps the one before on %s", i, thread);
            json_object_set_new(slice_end, thread, json_integer(t + json_integer_value(dur)));
            n.bp += name_is(e, "backpressure");
            break;
        }
        }
    }
    const char *k;
    json_t *stack;
    json_object_foreach(open, k, stack) cr_assert_eq(json_array_size(stack), 0, "a slice left open on %s", k);
    cr_assert(json_is_object(json_object_get(doc, "otherData")), "otherData says where it came from");
    json_decref(counter_ts);
    json_decref(counter_val);
    json_decref(open);
    json_decref(slice_end);
    json_decref(threads);
    json_decref(doc);
    return n;
}

static void assert_round_trip(const char *dir, const char *capture)
{
    const char *trace = td_path(dir, "trace.json");
    cr_assert_eq(sh("'%s' capture convert --to chrome-trace '%s' '%s' >/dev/null", WEIR, capture, trace), 0,
                 "convert --to chrome-trace %s", capture);
    counts want = capture_counts(capture), got = trace_counts(trace);
    cr_expect_eq(got.subtasks, want.subtasks, "%s: one thread per subtask", capture);
    cr_expect_eq(got.on_time, want.on_time, "%s: on-time firings", capture);
    cr_expect_eq(got.late_fire, want.late_fire, "%s: late firings", capture);
    cr_expect_eq(got.dropped, want.dropped, "%s: dropped late elements", capture);
    cr_expect_eq(got.side, want.side, "%s: late elements to the side output", capture);
    cr_expect_eq(got.idle_spans, want.idle_spans, "%s: idle spans", capture);
    cr_expect_eq(got.bp, want.bp, "%s: backpressure samples", capture);
    cr_expect_eq(got.wm_finite, want.wm_finite, "%s: watermark counter values", capture);
    cr_expect_eq(got.wm_max, want.wm_max, "%s: watermarks at MAX", capture);
    unlink(trace);
}

Test(chrome_trace, demo_captures_validate_and_keep_their_counts, .timeout = 120)
{
    char *dir = td_tmpdir();
    cr_assert_eq(sh("'%s' demo --out '%s' >/dev/null 2>&1", WEIR, dir), 0, "weir demo");
    assert_round_trip(dir, td_path(dir, "idle-with-idleness.jsonl"));
    assert_round_trip(dir, td_path(dir, "lateness.jsonl"));
    counts idle = capture_counts(td_path(dir, "idle-with-idleness.jsonl"));
    counts late = capture_counts(td_path(dir, "lateness.jsonl"));
    cr_assert(idle.idle_spans > 0 && late.dropped > 0 && late.side > 0 && late.late_fire > 0,
              "the captures hold what is tested");
    td_rmdir(dir);
}

Test(chrome_trace, backpressure_is_a_slice_per_sample, .timeout = 120)
{
    char *dir = td_tmpdir();
    cr_assert_eq(sh("cd '%s' && '%s' >/dev/null 2>&1", dir, BACKPRESSURE), 0, "examples/backpressure");
    const char *cap = td_path(dir, "backpressure.jsonl");
    cr_assert(capture_counts(cap).bp > 0, "the capture has backpressure samples");
    assert_round_trip(dir, cap);
    td_rmdir(dir);
}

Test(chrome_trace, msgpack_gives_the_same_trace_as_jsonl, .timeout = 120)
{
    char *dir = td_tmpdir();
    cr_assert_eq(sh("cd '%s' && '%s/examples/capture' >/dev/null 2>&1", dir, WEIR_BINARY_DIR), 0, "examples/capture");
    cr_assert_eq(sh("cd '%s' && '%s' capture convert --to chrome-trace capture.jsonl a.json >/dev/null && "
                    "'%s' capture convert --to chrome-trace capture.msgpack b.json >/dev/null && cmp -s a.json b.json",
                    dir, WEIR, WEIR), 0, "the same trace from both encodings");
    td_rmdir(dir);
}

Test(chrome_trace, a_bad_capture_or_usage_writes_nothing, .timeout = 60)
{
    char *dir = td_tmpdir();
    cr_assert_eq(sh("'%s' demo --out '%s' >/dev/null 2>&1", WEIR, dir), 0, "weir demo");
    /* the lateness capture without its summary: cut short */
    cr_assert_eq(sh("cd '%s' && head -n 100 lateness.jsonl > cut.jsonl", dir), 0);
    cr_assert_eq(sh("cd '%s' && '%s' capture convert --to chrome-trace cut.jsonl out.json >/dev/null 2>err.txt", dir, WEIR), 1);
    char *err = td_read(td_path(dir, "err.txt"), NULL);
    cr_assert(strstr(err, "cut.jsonl") != NULL, "the message names the file: %s", err);
    free(err);
    cr_assert(!td_exists(td_path(dir, "out.json")) && !td_exists(td_path(dir, "out.json.partial")),
              "nothing written for a bad capture");
    cr_assert_eq(sh("cd '%s' && '%s' capture convert --to bogus lateness.jsonl out.json 2>/dev/null", dir, WEIR), 2);
    cr_assert_eq(sh("cd '%s' && '%s' capture convert --to chrome-trace --partial lateness.jsonl out.json 2>/dev/null", dir, WEIR), 2);
    cr_assert_eq(sh("cd '%s' && '%s' capture convert --to 2>/dev/null", dir, WEIR), 2);
    cr_assert(!td_exists(td_path(dir, "out.json")), "nothing written for bad usage");
    /* --to=FORMAT works as well as --to FORMAT */
    cr_assert_eq(sh("cd '%s' && '%s' capture convert --to=chrome-trace lateness.jsonl out.json >/dev/null", dir, WEIR), 0);
    cr_assert(td_exists(td_path(dir, "out.json")));
    td_rmdir(dir);
}
