/* test_diag_support.h — what the diagnostic-channel and capture suites
 * share: temporary directories and files, parsing events with jansson, the
 * summary's identities, and a small keyed window operator that reports every
 * window event kind.
 *
 * The stand-in window operator. Written against the public operator API
 * exactly as a built-in is, it makes window_fire, late, merge and cleanup
 * events appear in one operator of one run, each under the test's control
 * (the real window operator reports merges only for sessions; it is tested
 * in the capture by test_diag_window.c): tumbling windows of TD_WIN ms with
 * TD_LATENESS ms of allowed lateness, an on-time firing when the watermark
 * passes a window's end, a late firing for each element that arrives within
 * the lateness, a cleanup when the lateness has passed, and elements later
 * than that reported late: dropped when their seq is even, sent to side
 * output TD_TAG_LATE when odd. The second element of a window is reported as
 * a merge of two windows (there are no sessions here; the event only has to
 * be a valid one). Accounting is `window`: in = absorbed + late (it filters
 * nothing), late_side = side_out.
 *
 * Everything is static so that each Criterion binary has its own copy.
 */
#ifndef WEIR_TESTS_DIAG_SUPPORT_H
#define WEIR_TESTS_DIAG_SUPPORT_H

#include <criterion/criterion.h>
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "diag.h"
#include "weir/operator_builtin.h"
#include "support/weir_testutil.h"

/* ---- the collector's own account ------------------------------------------ */

/* What the diagnostic channel of the job td_destroy_job destroyed last did
 * (diag/diag.h: events, drops, waits, polls, parks, ring size). */
static weir__diag_stats td_stats;

static inline void td_destroy_job(weir_job *job)
{
    td_stats = weir__diag_job_stats(job);
    weir_job_destroy(job);
}

/* ---- files ---------------------------------------------------------------- */

/* A fresh directory under /tmp; remove it with td_rmdir. Caller frees. */
static inline char *td_tmpdir(void)
{
    char *d = strdup("/tmp/weir-diag-XXXXXX");
    cr_assert_not_null(d);
    cr_assert_not_null(mkdtemp(d), "mkdtemp: %s", strerror(errno));
    return d;
}

/* DIR/NAME in a static rotating buffer (enough for a few at once). */
static inline const char *td_path(const char *dir, const char *name)
{
    static char bufs[8][512];
    static int next;
    char *b = bufs[next++ % 8];
    snprintf(b, sizeof bufs[0], "%s/%s", dir, name);
    return b;
}

static inline void td_rmdir(char *dir)
{
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    cr_assert_eq(system(cmd), 0);
    free(dir);
}

static inline bool td_exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

/* The whole file (NUL-terminated, *len without it). Caller frees. */
static inline char *td_read(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    cr_assert_not_null(f, "cannot open %s: %s", path, strerror(errno));
    size_t cap = 4096, n = 0;
    char *b = malloc(cap);
    cr_assert_not_null(b);
    size_t k;
    while ((k = fread(b + n, 1, cap - n - 1, f)) > 0) {
        n += k;
        if (cap - n - 1 == 0) {
            cap *= 2;
            b = realloc(b, cap);
            cr_assert_not_null(b);
        }
    }
    fclose(f);
    b[n] = '\0';
    if (len)
        *len = n;
    return b;
}

static inline void td_write(const char *path, const void *data, size_t len)
{
    FILE *f = fopen(path, "wb");
    cr_assert_not_null(f, "cannot create %s: %s", path, strerror(errno));
    cr_assert_eq(fwrite(data, 1, len, f), len);
    cr_assert_eq(fclose(f), 0);
}

/* Runs `weir capture validate` (the real binary) on path and asserts it
 * says the capture is valid. dir holds its output. */
static inline void td_assert_valid(const char *dir, const char *path)
{
    const char *weir = WEIR_BINARY_DIR "/tools/weir";
    cr_assert(td_exists(weir), "%s is missing: build the weir-cli target", weir);
    char cmd[1200];
    snprintf(cmd, sizeof cmd, "'%s' capture validate '%s' >'%s/validate.out' 2>&1", weir, path,
             dir);
    int st = system(cmd);
    char *out = td_read(td_path(dir, "validate.out"), NULL);
    cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "weir capture validate %s: %s", path, out);
    cr_assert_eq(strncmp(out, "valid: ", 7), 0, "%s", out);
    free(out);
}

/* ---- events --------------------------------------------------------------- */

static inline json_t *td_json(const char *line)
{
    json_error_t e;
    json_t *j = json_loads(line, JSON_REJECT_DUPLICATES, &e);
    cr_assert_not_null(j, "not JSON (%s at column %d): %s", e.text, e.column, line);
    cr_assert(json_is_object(j), "not an object: %s", line);
    return j;
}

static inline const char *td_str(const json_t *o, const char *key)
{
    json_t *v = json_object_get(o, key);
    return json_is_string(v) ? json_string_value(v) : NULL;
}

static inline int64_t td_int(const json_t *o, const char *key)
{
    json_t *v = json_object_get(o, key);
    cr_assert(json_is_integer(v), "\"%s\" is not an integer", key);
    return (int64_t)json_integer_value(v);
}

/* A watermark or timestamp value ("MIN", "MAX" or an integer). */
static inline int64_t td_ts_value(const json_t *v)
{
    if (json_is_string(v)) {
        const char *s = json_string_value(v);
        cr_assert(strcmp(s, "MIN") == 0 || strcmp(s, "MAX") == 0, "a timestamp \"%s\"", s);
        return s[1] == 'I' ? INT64_MIN : INT64_MAX;
    }
    cr_assert(json_is_integer(v), "not a timestamp");
    return (int64_t)json_integer_value(v);
}

static inline int64_t td_ts(const json_t *o, const char *key)
{
    json_t *v = json_object_get(o, key);
    cr_assert_not_null(v, "no \"%s\"", key);
    return td_ts_value(v);
}

/* The summary event of a memory sink, parsed (the last event). */
static inline json_t *td_summary(const weir_diag_memory *mem)
{
    size_t n = weir_diag_memory_count(mem);
    cr_assert_gt(n, 0);
    const weir_diag_event *ev = weir_diag_memory_event(mem, n - 1);
    cr_assert_eq(ev->kind, WEIR_DIAG_KIND_SUMMARY);
    return td_json(ev->json);
}

/* The summary entry of (op, subtask), or NULL. Borrowed from `summary`. */
static inline json_t *td_counters(const json_t *summary, const char *op, int subtask)
{
    json_t *ops = json_object_get(summary, "operators"), *o;
    size_t i;
    json_array_foreach(ops, i, o)
    {
        if (strcmp(td_str(o, "op"), op) == 0 && td_int(o, "subtask") == subtask)
            return o;
    }
    return NULL;
}

/* A counter of op summed over its subtasks. */
static inline int64_t td_total(const json_t *summary, const char *op, const char *counter)
{
    json_t *ops = json_object_get(summary, "operators"), *o;
    size_t i;
    int64_t sum = 0;
    json_array_foreach(ops, i, o)
    {
        if (strcmp(td_str(o, "op"), op) == 0)
            sum += td_int(o, counter);
    }
    return sum;
}

/* Asserts every subtask's identity by accounting class (docs/CAPTURE.md). */
static inline void td_assert_identities(const json_t *summary)
{
    json_t *ops = json_object_get(summary, "operators"), *o;
    size_t i;
    cr_assert_gt(json_array_size(ops), 0);
    json_array_foreach(ops, i, o)
    {
        const char *acct = td_str(o, "accounting"), *op = td_str(o, "op");
        int64_t in = td_int(o, "in"), out = td_int(o, "out"), filtered = td_int(o, "filtered"),
                ld = td_int(o, "late_dropped"), ls = td_int(o, "late_side"),
                absorbed = td_int(o, "absorbed"), side = td_int(o, "side_out");
        int sub = (int)td_int(o, "subtask");
        if (strcmp(acct, "source") == 0)
            cr_assert_eq(in, 0, "source %s/%d: in %lld", op, sub, (long long)in);
        else if (strcmp(acct, "one_to_one") == 0)
            cr_assert_eq(in, out + filtered + ld + ls, "%s/%d: in %lld != %lld+%lld+%lld+%lld", op,
                         sub, (long long)in, (long long)out, (long long)filtered, (long long)ld,
                         (long long)ls);
        else if (strcmp(acct, "window") == 0) {
            cr_assert_eq(in, absorbed + filtered + ld + ls, "%s/%d: window in", op, sub);
            cr_assert_eq(ls, side, "%s/%d: late_side %lld != side_out %lld", op, sub,
                         (long long)ls, (long long)side);
        } else if (strcmp(acct, "sink") == 0)
            cr_assert_eq(out, 0, "sink %s/%d: out %lld", op, sub, (long long)out);
        else
            cr_assert_str_eq(acct, "any");
    }
}

/* ---- keys of generator events --------------------------------------------- */

static inline void td_gen_key(const void *elem, void *key, void *arg)
{
    (void)arg;
    memcpy(key, &((const weir_gen_event *)elem)->key, sizeof(int64_t));
}

/* Key 0 prints with a quote and a backslash, so captures must escape it. */
static inline int td_gen_key_format(const void *key, char *buf, size_t size, void *arg)
{
    (void)arg;
    int64_t k;
    memcpy(&k, key, sizeof k);
    if (k == 0)
        return snprintf(buf, size, "zero \"q\\");
    return snprintf(buf, size, "k%lld", (long long)k);
}

static inline const weir_key_spec *td_gen_keys(void)
{
    static const weir_key_spec spec = {
        .key_size = sizeof(int64_t), .extract = td_gen_key, .format = td_gen_key_format};
    return &spec;
}

/* ---- the stand-in window operator ----------------------------------------- */

enum { TD_WIN = 100, TD_LATENESS = 30, TD_TAG_LATE = 1 };

typedef struct td_win_state {
    int64_t count;
    int64_t firings;
} td_win_state;

static inline int64_t td_floor(int64_t ts, int64_t size)
{
    int64_t q = ts / size;
    if (ts % size != 0 && ts < 0)
        q--;
    return q * size;
}

static inline int td_win_open(weir_ctx *ctx)
{
    int *id = malloc(sizeof *id);
    if (!id)
        return WEIR_ENOMEM;
    int r = weir_state_declare(ctx, WEIR_STATE_VALUE, sizeof(td_win_state), id);
    if (r < 0) {
        free(id);
        return r;
    }
    weir_ctx_set_state(ctx, id);
    return 0;
}

static inline void td_win_close(weir_ctx *ctx)
{
    free(weir_ctx_state(ctx));
}

static inline int td_win_emit(weir_ctx *ctx, int64_t start, int64_t count)
{
    weir_gen_event out = {.key = 0, .value = count, .timestamp = start + TD_WIN - 1};
    memcpy(&out.key, weir_ctx_key(ctx), sizeof out.key);
    return weir_emit(ctx, &out, start + TD_WIN - 1);
}

static inline int td_win_record(weir_ctx *ctx, int input, const void *elem, int64_t ts)
{
    (void)input;
    int sid = *(int *)weir_ctx_state(ctx);
    int64_t wm = weir_ctx_watermark(ctx);
    int64_t start = td_floor(ts, TD_WIN), end = start + TD_WIN;
    if (wm != WEIR_TS_MIN && end - 1 + TD_LATENESS <= wm) {
        const weir_gen_event *e = elem;
        bool dropped = e->seq % 2 == 0;
        weir_ctx_report_late(ctx, elem, ts, start, end, 0, dropped);
        return dropped ? 0 : weir_emit_side(ctx, TD_TAG_LATE, elem, ts);
    }
    weir_ctx_count(ctx, WEIR_COUNTER_ABSORBED, 1);
    td_win_state *st = weir_state_value(ctx, sid, start, true);
    if (!st)
        return weir_ctx_state_error(ctx);
    st->count++;
    bool on_time = wm == WEIR_TS_MIN || end - 1 > wm;
    if (st->count == 1) {
        int r = weir_timer_register(ctx, WEIR_EVENT_TIME, start, end - 1 + TD_LATENESS);
        if (r == 0 && on_time)
            r = weir_timer_register(ctx, WEIR_EVENT_TIME, start, end - 1);
        if (r < 0)
            return r;
    }
    if (st->count == 2)
        weir_ctx_report_merge(ctx, start, end, 2);
    if (!on_time) {
        st->firings++;
        weir_ctx_report_window_fire(ctx, start, end, (int)st->firings, st->count);
        return td_win_emit(ctx, start, st->count);
    }
    return 0;
}

static inline int td_win_timer(weir_ctx *ctx, const weir_timer *t)
{
    int sid = *(int *)weir_ctx_state(ctx);
    int64_t start = t->ns, end = start + TD_WIN;
    td_win_state *st = weir_state_value(ctx, sid, start, false);
    int64_t count = st ? st->count : 0;
    if (t->timestamp == end - 1) {
        weir_ctx_report_window_fire(ctx, start, end, 0, count);
        return td_win_emit(ctx, start, count);
    }
    weir_ctx_report_cleanup(ctx, start, end);
    weir_state_clear(ctx, sid, start);
    return 0;
}

static const weir_operator_vtable td_win_vtable = {
    .version = WEIR_OPERATOR_VTABLE_V1,
    .open = td_win_open,
    .on_record = td_win_record,
    .on_timer = td_win_timer,
    .close = td_win_close,
};

/* The stand-in window on a keyed stream of weir_gen_event. */
static inline weir_stream *td_window(weir_stream *keyed, const char *name, int parallelism)
{
    static const weir_side_output_spec side[] = {{TD_TAG_LATE, sizeof(weir_gen_event)}};
    weir_process_spec spec = {
        .name = name,
        .kind = "window",
        .vtable = &td_win_vtable,
        .out_size = sizeof(weir_gen_event),
        .side_outputs = side,
        .nside = 1,
        .parallelism = parallelism,
        .accounting = WEIR_ACCOUNTING_WINDOW,
        .settings_json = "\"assigner\":\"tumbling\",\"size_ms\":100,\"lateness_ms\":30",
    };
    return weir_stream_process(keyed, &spec);
}

/* ---- the job every kind shows up in ---------------------------------------
 * generator (3 partitions, late elements, partition 2 quiet for a while) ->
 * timestamps (bounded, with idleness, chained) -> key_by -> window (p 2) ->
 * collect; the window's late side output -> collect. Virtual clock, one
 * worker: the same capture every run. */
typedef struct td_window_job {
    weir_job *job;
    weir_collect *out, *late;
} td_window_job;

static inline void td_window_job_make(td_window_job *w, weir_job_config *cfg)
{
    cfg->clock = WEIR_CLOCK_VIRTUAL;
    if (!cfg->workers)
        cfg->workers = 1;
    cfg->watermark_interval_ms = 10;
    if (!cfg->diag.throughput_interval_ms)
        cfg->diag.throughput_interval_ms = 50;
    w->job = tu_job(cfg);
    weir_generator_config g = {
        .partitions = 3,
        .keys = 5,
        .rate = 1000,
        .pace = WEIR_GEN_PACED,
        .count = 600,
        .disorder_ms = 10,
        .late_fraction = 0.1,
        .late_ms = 40,
        .seed = 7,
        .idle = {{.partition = 2, .from_ms = 150, .to_ms = 400}},
        .nidle = 1,
    };
    weir_stream *s = weir_source_generator(w->job, &g);
    weir_timestamps_spec ts = {
        .strategy = weir_watermarks_with_idleness(weir_watermarks_bounded(10), 50)};
    /* chained to its partition: partition 2's subtask sees the quiet span */
    s = weir_stream_set_parallelism(weir_stream_assign_timestamps(s, &ts), 3);
    weir_stream *win = td_window(weir_stream_key_by(s, td_gen_keys()), "window", 2);
    cr_assert_not_null(weir_sink_collect(win, &w->out), "%s", weir_job_error(w->job));
    cr_assert_not_null(weir_sink_collect(weir_stream_side_output(win, TD_TAG_LATE), &w->late),
                       "%s", weir_job_error(w->job));
}

#endif
