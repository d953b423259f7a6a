/* test_diag.c — the diagnostic channel end to end: every event kind appears
 * in a real run, the structured events the memory sink keeps say what their
 * JSON says, the JSONL file, the memory sink and the msgpack file (read back
 * and printed by the capture reader) carry byte-identical events, levels
 * write what docs/CAPTURE.md says they write (at verbose, a subtask's record
 * events are exactly its `in`), throughput events carry the largest
 * timestamp taken in, the job event names the workers started and the ring
 * the channel got, and a failed run's summary carries its error.
 */
#include <criterion/criterion.h>
#include <time.h>

#include "diag.h"
#include "diag/test_diag_support.h"
#include "weir.h"

/* ---- every kind ----------------------------------------------------------- */

/* Checks one memory-sink event's structured fields against its JSON. */
static void assert_event_matches_json(const weir_diag_event *ev)
{
    json_t *j = td_json(ev->json);
    cr_assert_str_eq(td_str(j, "kind"), weir_diag_kind_name(ev->kind), "%s", ev->json);
    cr_assert_eq(td_int(j, "t"), ev->t, "%s", ev->json);
    if (ev->kind == WEIR_DIAG_KIND_JOB || ev->kind == WEIR_DIAG_KIND_SUMMARY) {
        cr_assert_null(ev->op);
        json_decref(j);
        return;
    }
    /* the checkpoint coordinator's events are the job's too */
    if (ev->kind == WEIR_DIAG_KIND_CHECKPOINT_TRIGGER) {
        cr_assert_null(ev->op);
        cr_assert_null(json_object_get(j, "op"), "%s", ev->json);
        cr_assert_eq(td_int(j, "id"), ev->checkpoint_id);
        cr_assert_eq(json_is_true(json_object_get(j, "savepoint")), ev->savepoint);
        json_decref(j);
        return;
    }
    if (ev->kind == WEIR_DIAG_KIND_CHECKPOINT_END) {
        cr_assert_null(ev->op);
        cr_assert_eq(td_int(j, "id"), ev->checkpoint_id);
        cr_assert_eq(td_int(j, "bytes"), ev->bytes);
        cr_assert_eq(td_int(j, "duration_ms"), ev->duration_ms);
        cr_assert_str_eq(td_str(j, "status"), ev->aborted ? "aborted" : "completed");
        if (ev->aborted)
            cr_assert_str_eq(td_str(j, "reason"), ev->reason);
        json_decref(j);
        return;
    }
    if (ev->kind == WEIR_DIAG_KIND_CHECKPOINT_RESTORE) {
        cr_assert_null(ev->op);
        if (ev->reason) {
            cr_assert_str_eq(td_str(j, "status"), "skipped");
            cr_assert_str_eq(td_str(j, "reason"), ev->reason);
            cr_assert_eq(ev->checkpoint_id, -1);
        } else {
            cr_assert_str_eq(td_str(j, "status"), "restored");
            cr_assert_eq(td_int(j, "id"), ev->checkpoint_id);
            cr_assert_gt(ev->checkpoint_id, 0);
        }
        json_decref(j);
        return;
    }
    cr_assert_str_eq(td_str(j, "op"), ev->op, "%s", ev->json);
    cr_assert_eq(td_int(j, "subtask"), ev->subtask, "%s", ev->json);
    bool valve = json_object_get(j, "input") != NULL;
    cr_assert_eq(valve, ev->input >= 0, "%s", ev->json);
    if (valve) {
        cr_assert_eq(td_int(j, "input"), ev->input);
        cr_assert_eq(td_int(j, "channel"), ev->channel);
    }
    switch (ev->kind) {
    case WEIR_DIAG_KIND_WATERMARK:
        cr_assert_eq(td_ts(j, "watermark"), ev->watermark, "%s", ev->json);
        if (valve) {
            json_t *h = json_object_get(j, "held_by");
            cr_assert_eq(json_is_null(h) ? -1 : (int)json_integer_value(h), ev->held_by, "%s",
                         ev->json);
        }
        break;
    case WEIR_DIAG_KIND_STATUS:
        cr_assert_eq(json_is_true(json_object_get(j, "idle")), ev->idle, "%s", ev->json);
        if (valve) {
            json_t *h = json_object_get(j, "held_by");
            cr_assert_not_null(h, "a valve status without held_by: %s", ev->json);
            cr_assert_eq(json_is_null(h) ? -1 : (int)json_integer_value(h), ev->held_by, "%s",
                         ev->json);
        }
        break;
    case WEIR_DIAG_KIND_THROUGHPUT:
        cr_assert_eq(td_int(j, "in"), ev->records_in);
        cr_assert_eq(td_int(j, "out"), ev->records_out);
        cr_assert_eq(td_ts(j, "max_ts"), ev->timestamp, "%s", ev->json);
        break;
    case WEIR_DIAG_KIND_WINDOW_FIRE:
        cr_assert_str_eq(td_str(j, "key"), ev->key);
        cr_assert_eq(td_ts(j, "start"), ev->window_start);
        cr_assert_eq(td_ts(j, "end"), ev->window_end);
        cr_assert_eq(td_int(j, "firing"), ev->firing);
        cr_assert_eq(json_is_true(json_object_get(j, "on_time")), ev->firing == 0);
        cr_assert_eq(td_int(j, "count"), ev->count);
        cr_assert_eq(td_ts(j, "watermark"), ev->watermark);
        break;
    case WEIR_DIAG_KIND_LATE: {
        cr_assert_str_eq(td_str(j, "key"), ev->key);
        cr_assert_eq(td_ts(j, "timestamp"), ev->timestamp);
        cr_assert_eq(td_ts(j, "watermark"), ev->watermark);
        cr_assert_eq(td_int(j, "lateness"), ev->watermark - ev->timestamp);
        cr_assert_str_eq(td_str(j, "action"), ev->dropped ? "dropped" : "side_output");
        /* the stand-in window is tumbling: the one window it reported */
        json_t *ws = json_object_get(j, "windows");
        cr_assert_eq(json_array_size(ws), 1, "%s", ev->json);
        cr_assert_eq(td_int(j, "missed"), 1);
        cr_assert_eq(ev->count, 1);
        json_t *w = json_array_get(ws, 0);
        cr_assert_eq(td_ts_value(json_array_get(w, 0)), ev->window_start);
        cr_assert_eq(td_ts_value(json_array_get(w, 1)), ev->window_end);
        break;
    }
    case WEIR_DIAG_KIND_MERGE:
        cr_assert_eq(td_int(j, "merged"), ev->count);
        cr_assert_eq(td_ts(j, "start"), ev->window_start);
        break;
    case WEIR_DIAG_KIND_CLEANUP:
        cr_assert_eq(td_ts(j, "end"), ev->window_end);
        break;
    case WEIR_DIAG_KIND_BACKPRESSURE: {
        cr_assert_eq(td_int(j, "blocked_ms"), ev->blocked_ms);
        json_t *f = json_object_get(j, "fill");
        cr_assert(json_is_real(f), "fill is not a float: %s", ev->json);
        cr_assert_float_eq(json_real_value(f), ev->fill, 1e-12);
        break;
    }
    case WEIR_DIAG_KIND_RECORD:
        cr_assert_eq(td_ts(j, "timestamp"), ev->timestamp);
        break;
    case WEIR_DIAG_KIND_CHECKPOINT:
        cr_assert_eq(td_int(j, "id"), ev->checkpoint_id);
        cr_assert_eq(td_int(j, "bytes"), ev->bytes);
        cr_assert_gt(ev->bytes, 0);
        cr_assert_eq(td_int(j, "held_bytes"), ev->held_bytes);
        cr_assert_float_eq(json_number_value(json_object_get(j, "alignment_ms")), ev->alignment_ms,
                           1e-9);
        cr_assert_float_eq(json_number_value(json_object_get(j, "snapshot_ms")), ev->snapshot_ms,
                           1e-9);
        break;
    case WEIR_DIAG_KIND_JOIN_STATE:
        cr_assert_eq(td_int(j, "left_rows"), ev->left_rows, "%s", ev->json);
        cr_assert_eq(td_int(j, "right_rows"), ev->right_rows, "%s", ev->json);
        cr_assert_eq(td_int(j, "hold_back_ms"), ev->hold_back_ms, "%s", ev->json);
        break;
    default:
        cr_assert_fail("unexpected kind %d", ev->kind);
    }
    json_decref(j);
}

static void count_kinds(const weir_diag_memory *mem, size_t counts[WEIR_DIAG_KIND_COUNT_])
{
    for (size_t i = 0; i < weir_diag_memory_count(mem); i++) {
        const weir_diag_event *ev = weir_diag_memory_event(mem, i);
        cr_assert_lt((unsigned)ev->kind, WEIR_DIAG_KIND_COUNT_);
        counts[ev->kind]++;
        assert_event_matches_json(ev);
    }
}

/* A slow callback sink: the source fills the channel and waits for credit. */
static int slow_sink(const void *elem, int64_t ts, int subtask, void *arg)
{
    (void)elem;
    (void)ts;
    (void)subtask;
    (void)arg;
    struct timespec d = {0, 50000};
    nanosleep(&d, NULL);
    return 0;
}

/* A run on the system clock with a slow consumer behind a small channel, so
 * that backpressure shows, with checkpoints every 5 ms (the other kinds
 * come from the window job). */
static void run_backpressured(weir_diag_memory *mem)
{
    char *tmp = td_tmpdir();
    /* the second run restores the first's newest checkpoint
     * (checkpoint_restore); both write into mem */
    for (int run = 0; run < 2; run++) {
        weir_job_config cfg = {.workers = 2,
                               .batch_capacity = 16,
                               .channel_batches = 1,
                               .diag.memory = mem,
                               .diag.throughput_interval_ms = 5,
                               .checkpoint = {.interval_ms = 5,
                                              .dir = tmp,
                                              .restore_from = run ? tmp : NULL}};
        weir_job *job = tu_job(&cfg);
        weir_generator_config g = {.partitions = 1,
                                   .rate = 1000,
                                   .count = WEIR_TEST_SANITIZED ? 1500 : 3000,
                                   .seed = 3};
        weir_stream *s = weir_stream_rebalance(weir_source_generator(job, &g));
        cr_assert_not_null(weir_sink_callback(s, slow_sink, NULL), "%s", weir_job_error(job));
        tu_run_ok(job);
        weir_job_destroy(job);
    }
    td_rmdir(tmp);
}

static void gen_key(const void *elem, void *key, void *arg)
{
    (void)arg;
    memcpy(key, &((const weir_gen_event *)elem)->key, 8);
}

static int pair_none(weir_ctx *ctx, const void *l, const void *r, int64_t ts, void *arg)
{
    (void)ctx;
    (void)l;
    (void)r;
    (void)ts;
    (void)arg;
    return 0;
}

/* Two generated streams joined by weir_stream_interval_join: its
 * join_state events. */
static void run_join(weir_diag_memory *mem)
{
    weir_job *job = tu_job(&(weir_job_config){.workers = 2, .diag.memory = mem});
    weir_key_spec ks = {.key_size = 8, .extract = gen_key};
    weir_stream *in[2];
    for (int i = 0; i < 2; i++) {
        weir_generator_config g = {.partitions = 1, .rate = 1000, .count = 500, .keys = 4,
                                   .seed = 7 + (uint64_t)i};
        weir_timestamps_spec ts = {.strategy = weir_watermarks_bounded(0)};
        in[i] = weir_stream_key_by(
            weir_stream_assign_timestamps(weir_source_generator(job, &g), &ts), &ks);
    }
    weir_interval_join_spec spec = {.lower_ms = -5, .upper_ms = 5, .fn = pair_none,
                                    .out_size = 8};
    cr_assert_not_null(weir_sink_discard(weir_stream_interval_join(in[0], in[1], &spec)), "%s",
                       weir_job_error(job));
    tu_run_ok(job);
    weir_job_destroy(job);
}

Test(diag, every_kind_appears_and_events_say_what_their_json_says, .timeout = 120)
{
    size_t counts[WEIR_DIAG_KIND_COUNT_] = {0};
    weir_diag_memory *mem;
    cr_assert_eq(weir_diag_memory_create(&mem), 0);
    weir_job_config cfg = {.diag.memory = mem, .diag.level = WEIR_DIAG_VERBOSE};
    td_window_job w;
    td_window_job_make(&w, &cfg);
    tu_run_ok(w.job);
    count_kinds(mem, counts);
    json_t *sum = td_summary(mem);
    td_assert_identities(sum);
    /* The window reported late elements both ways, and what it sent to the
     * side output is what the late collect got. */
    cr_assert_gt(td_total(sum, "window", "late_dropped"), 0);
    cr_assert_gt(td_total(sum, "window", "late_side"), 0);
    cr_assert_eq(td_total(sum, "window", "side_out"), (int64_t)weir_collect_count(w.late));
    cr_assert_eq(td_total(sum, "window", "out"), (int64_t)weir_collect_count(w.out));
    json_decref(sum);
    weir_job_destroy(w.job);
    weir_diag_memory_destroy(mem);
    cr_assert_eq(weir_diag_memory_create(&mem), 0);
    run_join(mem);
    count_kinds(mem, counts);
    weir_diag_memory_destroy(mem);

    /* Backpressure depends on real time: a few tries make it certain. */
    for (int attempt = 0; attempt < 5 && (counts[WEIR_DIAG_KIND_BACKPRESSURE] == 0 ||
                                          counts[WEIR_DIAG_KIND_CHECKPOINT] == 0);
         attempt++) {
        cr_assert_eq(weir_diag_memory_create(&mem), 0);
        run_backpressured(mem);
        count_kinds(mem, counts);
        weir_diag_memory_destroy(mem);
    }
    for (int k = 0; k < WEIR_DIAG_KIND_COUNT_; k++)
        cr_expect_gt(counts[k], 0, "no %s event", weir_diag_kind_name((weir_diag_kind)k));
    cr_assert_eq(counts[WEIR_DIAG_KIND_JOB], counts[WEIR_DIAG_KIND_SUMMARY]);
}

Test(diag, window_events_are_late_and_on_time_as_reported)
{
    weir_diag_memory *mem;
    cr_assert_eq(weir_diag_memory_create(&mem), 0);
    weir_job_config cfg = {.diag.memory = mem};
    td_window_job w;
    td_window_job_make(&w, &cfg);
    tu_run_ok(w.job);
    int64_t on_time = 0, late_fire = 0, late = 0, merges = 0, cleanups = 0;
    for (size_t i = 0; i < weir_diag_memory_count(mem); i++) {
        const weir_diag_event *ev = weir_diag_memory_event(mem, i);
        if (ev->kind == WEIR_DIAG_KIND_WINDOW_FIRE) {
            /* an on-time firing comes when the watermark reached the end */
            if (ev->firing == 0)
                cr_assert_geq(ev->watermark, ev->window_end - 1);
            on_time += ev->firing == 0;
            late_fire += ev->firing > 0;
            cr_assert_eq(ev->window_end - ev->window_start, TD_WIN);
        } else if (ev->kind == WEIR_DIAG_KIND_LATE) {
            late++;
            cr_assert_geq(ev->watermark, ev->window_end - 1 + TD_LATENESS);
        } else if (ev->kind == WEIR_DIAG_KIND_MERGE) {
            merges++;
        } else if (ev->kind == WEIR_DIAG_KIND_CLEANUP) {
            cleanups++;
        }
    }
    json_t *sum = td_summary(mem);
    cr_assert_eq(late, td_total(sum, "window", "late_dropped") + td_total(sum, "window", "late_side"));
    /* every window fires once on time (or had only late elements) and is
     * cleaned up once; every firing emitted one record */
    cr_assert_gt(on_time, 0);
    cr_assert_gt(late_fire, 0);
    cr_assert_gt(merges, 0);
    cr_assert_geq(cleanups, on_time);
    cr_assert_eq(on_time + late_fire, (int64_t)weir_collect_count(w.out));
    json_decref(sum);
    weir_job_destroy(w.job);
    weir_diag_memory_destroy(mem);
}

/* ---- files, memory and the reader agree ----------------------------------- */

typedef struct lines {
    char **v;
    size_t n, cap;
} lines;

static void lines_add(lines *l, const char *s, size_t len)
{
    if (l->n == l->cap) {
        l->cap = l->cap ? l->cap * 2 : 1024;
        l->v = realloc(l->v, l->cap * sizeof *l->v);
        cr_assert_not_null(l->v);
    }
    l->v[l->n] = strndup(s, len);
    cr_assert_not_null(l->v[l->n]);
    l->n++;
}

static void lines_free(lines *l)
{
    for (size_t i = 0; i < l->n; i++)
        free(l->v[i]);
    free(l->v);
}

static void read_all(const char *path, lines *out, weir_capture_format want)
{
    weir_capture_reader *r;
    char err[512];
    cr_assert_eq(weir_capture_reader_open(path, &r, err, sizeof err), 0, "%s", err);
    cr_assert_eq(weir_capture_reader_format(r), want);
    const char *json;
    size_t len;
    int e;
    while ((e = weir_capture_reader_next(r, &json, &len)) == WEIR_CAPTURE_EVENT) {
        cr_assert_eq(strlen(json), len);
        lines_add(out, json, len);
    }
    cr_assert_eq(e, WEIR_CAPTURE_END, "%s", weir_capture_reader_error(r));
    weir_capture_reader_close(r);
}

Test(diag, jsonl_memory_and_msgpack_carry_the_same_events, .timeout = 120)
{
    char *dir = td_tmpdir();
    weir_diag_memory *mem;
    cr_assert_eq(weir_diag_memory_create(&mem), 0);
    const char *jl = td_path(dir, "run.jsonl"), *mp = td_path(dir, "run.msgpack");
    /* two workers: the interleaving differs run to run, the three sinks of
     * one run must still agree */
    weir_job_config cfg = {.workers = 2, .diag = {.memory = mem, .jsonl_path = jl,
                                                  .msgpack_path = mp,
                                                  .level = WEIR_DIAG_VERBOSE}};
    td_window_job w;
    td_window_job_make(&w, &cfg);
    tu_run_ok(w.job);
    weir_job_destroy(w.job);
    cr_assert(!td_exists(td_path(dir, "run.jsonl.partial")));
    cr_assert(!td_exists(td_path(dir, "run.msgpack.partial")));

    size_t len;
    char *text = td_read(jl, &len);
    lines file = {0}, conv = {0};
    for (char *p = text; *p;) {
        char *nl = strchr(p, '\n');
        cr_assert_not_null(nl, "the JSONL file does not end with a newline");
        lines_add(&file, p, (size_t)(nl - p));
        p = nl + 1;
    }
    read_all(mp, &conv, WEIR_CAPTURE_MSGPACK);
    cr_assert_eq(file.n, weir_diag_memory_count(mem));
    cr_assert_eq(conv.n, file.n);
    for (size_t i = 0; i < file.n; i++) {
        cr_assert_str_eq(file.v[i], weir_diag_memory_event(mem, i)->json, "event %zu", i);
        cr_assert_str_eq(conv.v[i], file.v[i], "event %zu", i);
    }
    /* and the reader gives a JSONL file back line for line */
    lines again = {0};
    read_all(jl, &again, WEIR_CAPTURE_JSONL);
    cr_assert_eq(again.n, file.n);
    for (size_t i = 0; i < file.n; i++)
        cr_assert_str_eq(again.v[i], file.v[i]);
    json_t *sum = td_json(file.v[file.n - 1]);
    cr_assert_eq(td_int(sum, "events"), (int64_t)file.n - 1);
    json_decref(sum);
    lines_free(&file);
    lines_free(&conv);
    lines_free(&again);
    free(text);
    weir_diag_memory_destroy(mem);
    td_rmdir(dir);
}

/* ---- levels --------------------------------------------------------------- */

/* Every operator subtask's record events are exactly its `in` counter. */
static void assert_records_are_the_in_counters(const weir_diag_memory *mem)
{
    json_t *sum = td_summary(mem);
    json_t *ops = json_object_get(sum, "operators"), *o;
    size_t i;
    int64_t total = 0;
    json_array_foreach(ops, i, o)
    {
        const char *op = td_str(o, "op");
        int sub = (int)td_int(o, "subtask");
        int64_t records = 0;
        for (size_t k = 0; k < weir_diag_memory_count(mem); k++) {
            const weir_diag_event *ev = weir_diag_memory_event(mem, k);
            records += ev->kind == WEIR_DIAG_KIND_RECORD && ev->subtask == sub &&
                       strcmp(ev->op, op) == 0;
        }
        cr_assert_eq(records, td_int(o, "in"), "%s/%d: %lld record events, in %lld", op, sub,
                     (long long)records, (long long)td_int(o, "in"));
        total += records;
    }
    cr_assert_gt(total, 0);
    json_decref(sum);
}

static void run_level(weir_diag_level level, weir_diag_memory *mem, const char *jsonl)
{
    weir_job_config cfg = {.diag = {.memory = mem, .jsonl_path = jsonl, .level = level}};
    td_window_job w;
    td_window_job_make(&w, &cfg);
    tu_run_ok(w.job);
    weir_job_destroy(w.job);
}

Test(diag, levels_write_what_they_promise, .timeout = 60)
{
    char *dir = td_tmpdir();
    size_t counts[4][WEIR_DIAG_KIND_COUNT_] = {{0}};
    const weir_diag_level levels[4] = {WEIR_DIAG_SUMMARY, WEIR_DIAG_STANDARD, WEIR_DIAG_DEFAULT,
                                       WEIR_DIAG_VERBOSE};
    const char *names[4] = {"summary", "standard", "standard", "verbose"};
    for (int l = 0; l < 4; l++) {
        weir_diag_memory *mem;
        cr_assert_eq(weir_diag_memory_create(&mem), 0);
        run_level(levels[l], mem, NULL);
        for (size_t i = 0; i < weir_diag_memory_count(mem); i++)
            counts[l][weir_diag_memory_event(mem, i)->kind]++;
        if (levels[l] == WEIR_DIAG_VERBOSE)
            assert_records_are_the_in_counters(mem);
        json_t *job = td_json(weir_diag_memory_event(mem, 0)->json);
        cr_assert_str_eq(td_str(json_object_get(job, "settings"), "level"), names[l]);
        json_decref(job);
        weir_diag_memory_destroy(mem);
    }
    /* summary: the job and the summary only */
    size_t total = 0;
    for (int k = 0; k < WEIR_DIAG_KIND_COUNT_; k++)
        total += counts[0][k];
    cr_assert_eq(total, 2);
    cr_assert_eq(counts[0][WEIR_DIAG_KIND_JOB], 1);
    /* standard (and the default) has no records; verbose has one per record
     * each operator subtask took in (its `in`; sources none), and otherwise
     * the same events (the run is deterministic) */
    cr_assert_eq(counts[1][WEIR_DIAG_KIND_RECORD], 0);
    cr_assert_gt(counts[3][WEIR_DIAG_KIND_RECORD], 0);
    for (int k = 0; k < WEIR_DIAG_KIND_COUNT_; k++) {
        cr_assert_eq(counts[1][k], counts[2][k], "%s", weir_diag_kind_name((weir_diag_kind)k));
        if (k != WEIR_DIAG_KIND_RECORD)
            cr_assert_eq(counts[1][k], counts[3][k], "%s", weir_diag_kind_name((weir_diag_kind)k));
    }
    /* off: no file at all */
    const char *path = td_path(dir, "off.jsonl");
    run_level(WEIR_DIAG_OFF, NULL, path);
    cr_assert(!td_exists(path));
    cr_assert(!td_exists(td_path(dir, "off.jsonl.partial")));
    td_rmdir(dir);
}

/* ---- throughput: the largest timestamp taken in -------------------------- */

Test(diag, throughput_says_the_largest_timestamp_taken_in, .timeout = 60)
{
    /* verbose, one worker: a subtask's record and throughput events are in
     * its order, so the records between two throughput events are the
     * interval's */
    weir_diag_memory *mem;
    cr_assert_eq(weir_diag_memory_create(&mem), 0);
    run_level(WEIR_DIAG_VERBOSE, mem, NULL);
    typedef struct acc {
        const char *op;
        int subtask;
        int64_t max;
    } acc;
    acc seen[16];
    int nseen = 0, checked = 0, with_ts = 0;
    for (size_t i = 0; i < weir_diag_memory_count(mem); i++) {
        const weir_diag_event *ev = weir_diag_memory_event(mem, i);
        if (ev->kind != WEIR_DIAG_KIND_RECORD && ev->kind != WEIR_DIAG_KIND_THROUGHPUT)
            continue;
        int k = 0;
        while (k < nseen && !(seen[k].subtask == ev->subtask && strcmp(seen[k].op, ev->op) == 0))
            k++;
        if (k == nseen) {
            cr_assert_lt(nseen, 16);
            seen[nseen++] = (acc){ev->op, ev->subtask, INT64_MIN};
        }
        if (ev->kind == WEIR_DIAG_KIND_RECORD) {
            if (ev->timestamp > seen[k].max)
                seen[k].max = ev->timestamp;
            continue;
        }
        cr_assert_eq(ev->timestamp, seen[k].max, "%s/%d at t %lld: max_ts %lld, records %lld",
                     ev->op, ev->subtask, (long long)ev->t, (long long)ev->timestamp,
                     (long long)seen[k].max);
        checked++;
        with_ts += ev->timestamp != INT64_MIN;
        seen[k].max = INT64_MIN;
    }
    cr_assert_gt(with_ts, 5, "%d throughput events with a timestamp of %d", with_ts, checked);
    weir_diag_memory_destroy(mem);
}

/* ---- the job event's settings --------------------------------------------- */

static json_t *job_settings(int workers, int ring_capacity, int parallelism)
{
    weir_diag_memory *mem;
    cr_assert_eq(weir_diag_memory_create(&mem), 0);
    weir_job_config cfg = {.workers = workers, .diag = {.memory = mem,
                                                        .level = WEIR_DIAG_SUMMARY,
                                                        .ring_capacity = ring_capacity}};
    weir_job *job = tu_job(&cfg);
    static uint64_t vals[8];
    weir_stream *s = weir_source_array(job, vals, 8, sizeof vals[0], NULL);
    s = weir_stream_set_parallelism(s, parallelism);
    cr_assert_not_null(weir_stream_set_parallelism(weir_sink_discard(s), parallelism));
    tu_run_ok(job);
    td_destroy_job(job);
    json_t *ev = td_json(weir_diag_memory_event(mem, 0)->json);
    json_t *settings = json_incref(json_object_get(ev, "settings"));
    json_decref(ev);
    weir_diag_memory_destroy(mem);
    return settings;
}

Test(diag, the_job_event_says_the_workers_started_and_the_ring_it_got)
{
    /* two chained subtasks (source and sink in one task) run on at most two
     * workers, whatever was configured */
    json_t *s = job_settings(4, 0, 2);
    cr_assert_eq(td_int(s, "workers"), 2);
    cr_assert_eq(td_int(s, "workers_configured"), 4);
    cr_assert_eq(td_int(s, "ring_capacity"), 8192, "the default ring is 8192 events");
    json_decref(s);
    s = job_settings(1, 5000, 1);
    cr_assert_eq(td_int(s, "workers"), 1);
    cr_assert_eq(td_int(s, "ring_capacity"), 8192, "5000 rounds up to 8192");
    json_decref(s);
    s = job_settings(1, 1, 1);
    cr_assert_eq(td_int(s, "ring_capacity"), 1);
    json_decref(s);
    /* what the run measured agrees: the ring held what the event says */
    weir__diag_stats st = td_stats;
    cr_assert_eq(st.ring_size, 1);
    /* a sane maximum: 2^18 events (36 MB per worker), not 2^24 (4.5 GB) */
    weir_job_config cfg = {.diag.ring_capacity = WEIR__DIAG_RING_MAX};
    char why[256];
    cr_assert_eq(weir_job_config_check(&cfg, why, sizeof why), 0, "%s", why);
    cr_assert_eq(WEIR__DIAG_RING_MAX, 1 << 18);
    cfg.diag.ring_capacity = WEIR__DIAG_RING_MAX + 1;
    cr_assert_eq(weir_job_config_check(&cfg, why, sizeof why), WEIR_EINVAL);
    cr_assert_str_eq(why, "diag.ring_capacity 262145 is not in 0..262144");
    cfg.diag.ring_capacity = 1 << 24;
    cr_assert_eq(weir_job_config_check(&cfg, why, sizeof why), WEIR_EINVAL);
}

Test(diag, the_job_event_names_the_weir_that_wrote_it)
{
    weir_diag_memory *mem;
    cr_assert_eq(weir_diag_memory_create(&mem), 0);
    weir_job_config cfg = {.workers = 1, .diag = {.memory = mem, .level = WEIR_DIAG_SUMMARY}};
    weir_job *job = tu_job(&cfg);
    static uint64_t vals[2];
    cr_assert_not_null(weir_sink_discard(weir_source_array(job, vals, 2, sizeof vals[0], NULL)));
    tu_run_ok(job);
    weir_job_destroy(job);
    json_t *ev = td_json(weir_diag_memory_event(mem, 0)->json);
    cr_assert_str_eq(td_str(ev, "kind"), "job");
    cr_assert_str_eq(td_str(ev, "weir_version"), weir_version());
    /* the library and the headers this test was built with are one build */
    cr_assert_str_eq(weir_version(), WEIR_VERSION_STRING);
    char want[32];
    snprintf(want, sizeof want, "%d.%d.%d", WEIR_VERSION_MAJOR, WEIR_VERSION_MINOR,
             WEIR_VERSION_PATCH);
    cr_assert_str_eq(weir_version(), want);
    json_decref(ev);
    weir_diag_memory_destroy(mem);
}

/* An operator's settings as the job event shows them: a float as a float,
 * and a number JSON cannot hold as null (the line stays JSON). */
Test(diag, the_job_event_shows_settings_that_json_cannot_hold_as_null)
{
    weir_diag_memory *mem;
    cr_assert_eq(weir_diag_memory_create(&mem), 0);
    weir_job_config cfg = {.workers = 1, .diag = {.memory = mem, .level = WEIR_DIAG_SUMMARY}};
    weir_job *job = tu_job(&cfg);
    static uint64_t vals[2];
    weir_process_spec spec = {
        .name = "pass",
        .vtable = &tu_pass_vtable,
        .out_size = sizeof vals[0],
        .settings_json = "\"ratio\":0.25,\"huge\":1e999,\"label\":\"x\"",
    };
    weir_stream *s = weir_source_array(job, vals, 2, sizeof vals[0], NULL);
    cr_assert_not_null(weir_sink_discard(weir_stream_process(s, &spec)));
    tu_run_ok(job);
    weir_job_destroy(job);
    const char *line = weir_diag_memory_event(mem, 0)->json;
    cr_assert(strstr(line, "\"settings\":{\"ratio\":0.25,\"huge\":null,\"label\":\"x\"}"),
              "%s", line);
    json_decref(td_json(line));
    weir_diag_memory_destroy(mem);
}

/* ---- keys ----------------------------------------------------------------- */

/* Forty e-acutes: 80 bytes, cut by the capture's key field in the middle of
 * a character; or, for odd keys, Latin-1 bytes that are no UTF-8 at all. */
static int wide_key_format(const void *key, char *buf, size_t size, void *arg)
{
    (void)arg;
    int64_t k;
    memcpy(&k, key, sizeof k);
    char text[128] = "";
    for (int i = 0; i < 40; i++)
        strcat(text, k % 2 ? "\xe9" : "\xc3\xa9");
    return snprintf(buf, size, "%s", text);
}

Test(diag, keys_that_are_cut_or_not_utf8_still_make_json_lines)
{
    weir_diag_memory *mem;
    cr_assert_eq(weir_diag_memory_create(&mem), 0);
    weir_job_config cfg = {.workers = 1, .clock = WEIR_CLOCK_VIRTUAL, .watermark_interval_ms = 10,
                           .diag.memory = mem};
    weir_job *job = tu_job(&cfg);
    weir_generator_config g = {.partitions = 1, .keys = 4, .rate = 1000, .pace = WEIR_GEN_PACED,
                               .count = 300, .seed = 2};
    weir_stream *s = weir_source_generator(job, &g);
    weir_timestamps_spec ts = {.strategy = weir_watermarks_bounded(5)};
    s = weir_stream_assign_timestamps(s, &ts);
    weir_key_spec keys = {.key_size = sizeof(int64_t), .extract = td_gen_key,
                          .format = wide_key_format};
    cr_assert_not_null(weir_sink_discard(td_window(weir_stream_key_by(s, &keys), "window", 1)));
    tu_run_ok(job);
    int fires = 0;
    for (size_t i = 0; i < weir_diag_memory_count(mem); i++) {
        const weir_diag_event *ev = weir_diag_memory_event(mem, i);
        json_t *j = td_json(ev->json); /* jansson refuses JSON that is not UTF-8 */
        if (ev->kind == WEIR_DIAG_KIND_WINDOW_FIRE) {
            fires++;
            const char *key = td_str(j, "key");
            /* cut at a character boundary the key would be 31 of them; the
             * cut one is U+FFFD, and Latin-1 bytes are each one */
            cr_assert(strncmp(key, "\xc3\xa9\xc3\xa9", 4) == 0 || strncmp(key, "\xef\xbf\xbd", 3) == 0,
                      "key %s", key);
            cr_assert_not_null(strstr(key, "\xef\xbf\xbd"), "key %s", key);
        }
        json_decref(j);
    }
    cr_assert_gt(fires, 0);
    weir_job_destroy(job);
    weir_diag_memory_destroy(mem);
}

/* ---- a failed run --------------------------------------------------------- */

static int fail_at_500(const void *in, void *out, void *arg)
{
    (void)arg;
    uint64_t v;
    memcpy(&v, in, sizeof v);
    if (v == 500)
        return WEIR_ERANGE;
    memcpy(out, &v, sizeof v);
    return 0;
}

Test(diag, a_failed_run_says_so_in_its_summary)
{
    enum { N = 1000 };
    static uint64_t vals[N];
    static int64_t ts[N];
    for (int i = 0; i < N; i++) {
        vals[i] = (uint64_t)i;
        ts[i] = i;
    }
    for (int failing = 0; failing < 2; failing++) {
        weir_diag_memory *mem;
        cr_assert_eq(weir_diag_memory_create(&mem), 0);
        weir_job_config cfg = {.workers = 1, .diag.memory = mem};
        weir_job *job = tu_job(&cfg);
        weir_stream *s = weir_source_array(job, vals, failing ? N : 400, sizeof vals[0], ts);
        s = weir_stream_map(s, sizeof(uint64_t), fail_at_500, NULL);
        cr_assert_not_null(weir_sink_discard(weir_stream_rebalance(s)));
        int r = weir_job_run(job);
        json_t *sum = td_summary(mem);
        if (failing) {
            cr_assert_lt(r, 0);
            const char *err = td_str(sum, "error");
            cr_assert_not_null(err, "the summary of a failed run has no error");
            cr_assert_str_eq(err, weir_job_error(job));
        } else {
            cr_assert_eq(r, 0, "%s", weir_job_error(job));
            cr_assert_null(json_object_get(sum, "error"));
            cr_assert_eq(json_object_size(sum), 6);
        }
        json_decref(sum);
        weir_job_destroy(job);
        weir_diag_memory_destroy(mem);
    }
}
