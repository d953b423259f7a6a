/* test_window_config.c — the window operator's configuration: every invalid
 * setting is refused with a message that names it (and nothing allocated),
 * a stream that is not keyed is a build error, the settings the capture
 * records, and in a real job the window accounting that the capture's
 * summary checks: in = absorbed + late_dropped + late_side.
 */
#include <criterion/criterion.h>
#include <jansson.h>

#include "test_window_util.h"

static void refused(const weir_window_spec *s, int code, const char *needle)
{
    weir_process_spec ps;
    memset(&ps, 0x5a, sizeof ps);
    char why[256] = "";
    int r = weir_window_operator(s, sizeof(ev), 8, &ps, why, sizeof why);
    cr_assert_eq(r, code, "expected %d for '%s', got %d (%s)", code, needle, r, why);
    tu_assert_contains(why, needle);
}

static weir_window_spec base(void)
{
    return wt_tumbling_sum(10, 0);
}

Test(config, assigners)
{
    weir_window_spec s = base();
    s.assigner = weir_window_tumbling(0, 0);
    refused(&s, WEIR_EINVAL, "size 0 must be > 0");
    s.assigner = weir_window_tumbling(-5, 0);
    refused(&s, WEIR_EINVAL, "size -5 must be > 0");
    s.assigner = weir_window_tumbling(10, 10);
    refused(&s, WEIR_EINVAL, "|offset| < size");
    s.assigner = weir_window_tumbling(10, -10);
    refused(&s, WEIR_EINVAL, "|offset| < size");
    s.assigner = weir_window_tumbling(10, INT64_MIN);
    refused(&s, WEIR_EINVAL, "|offset| < size");
    s.assigner = weir_window_sliding(10, 0, 0);
    refused(&s, WEIR_EINVAL, "slide 0 must be > 0");
    s.assigner = weir_window_sliding(0, 5, 0);
    refused(&s, WEIR_EINVAL, "size 0 must be > 0");
    s.assigner = weir_window_sliding(10, 5, 5);
    refused(&s, WEIR_EINVAL, "|offset| < slide");
    s.assigner = weir_window_sliding(10, 5, -5);
    refused(&s, WEIR_EINVAL, "|offset| < slide");
    s.assigner = weir_window_session(0);
    refused(&s, WEIR_EINVAL, "gap 0 must be > 0");
    s.assigner = (weir_window_assigner){.kind = WEIR_WINDOW_SESSION, .gap_ms = 5, .size_ms = 3};
    refused(&s, WEIR_EINVAL, "session windows take a gap only");
    s.assigner = (weir_window_assigner){.kind = WEIR_WINDOW_GLOBAL, .size_ms = 3};
    refused(&s, WEIR_EINVAL, "global window takes no size");
    s.assigner = (weir_window_assigner){.kind = (weir_window_kind)99};
    refused(&s, WEIR_EINVAL, "unknown window assigner 99");
    s.assigner = weir_window_processing_tumbling(0, 0);
    refused(&s, WEIR_EINVAL, "processing_tumbling windows: size 0");
}

/* Windows per element, ceil(size / slide), are bounded: 1e11 results per
 * element used to be accepted. The bound itself, and a ratio that rounds
 * up past it, are told apart. */
Test(config, windows_per_element_are_bounded)
{
    weir_window_spec s = base();
    s.assigner = weir_window_sliding(100000000000, 1, 0);
    refused(&s, WEIR_EINVAL, "put each element in 100000000000 windows, more than the 100000");
    s.assigner = weir_window_processing_sliding(INT64_MAX, 1, 0);
    refused(&s, WEIR_EINVAL, "WEIR_WINDOW_MAX_PER_ELEMENT");
    s.assigner = weir_window_sliding(2 * WEIR_WINDOW_MAX_PER_ELEMENT + 1, 2, 0);
    refused(&s, WEIR_EINVAL, "in 100001 windows");
    weir_process_spec ps;
    char why[256] = "";
    s.assigner = weir_window_sliding(2 * WEIR_WINDOW_MAX_PER_ELEMENT, 2, 1);
    cr_assert_eq(weir_window_operator(&s, sizeof(ev), 8, &ps, why, sizeof why), 0, "%s", why);
    ps.impl_free(ps.impl);
}

Test(config, lateness_and_late_output)
{
    weir_window_spec s = base();
    s.allowed_lateness_ms = -1;
    refused(&s, WEIR_EINVAL, "allowed lateness -1 must be >= 0");
    s = base();
    s.assigner = weir_window_processing_tumbling(10, 0);
    s.allowed_lateness_ms = 5;
    refused(&s, WEIR_EINVAL, "event-time windows only");
    s = base();
    s.late_tag = -1;
    refused(&s, WEIR_EINVAL, "late_tag -1");
}

Test(config, triggers)
{
    weir_window_spec s = base();
    s.trigger = (weir_window_trigger){.kind = WEIR_TRIGGER_COUNT};
    refused(&s, WEIR_EINVAL, "count trigger needs a count > 0");
    s.trigger = (weir_window_trigger){.kind = WEIR_TRIGGER_EVENT_TIME, .count = 3};
    refused(&s, WEIR_EINVAL, "only for the count trigger");
    s.trigger = (weir_window_trigger){.kind = WEIR_TRIGGER_PROCESSING_TIME};
    refused(&s, WEIR_EINVAL, "processing-time trigger needs processing-time windows");
    s.assigner = weir_window_processing_sliding(10, 5, 0);
    s.trigger = (weir_window_trigger){.kind = WEIR_TRIGGER_EVENT_TIME};
    refused(&s, WEIR_EINVAL, "event-time trigger needs event-time windows");
    s.trigger = (weir_window_trigger){.kind = (weir_trigger_kind)42};
    refused(&s, WEIR_EINVAL, "unknown trigger 42");
}

Test(config, functions)
{
    weir_window_spec s = base();
    s.aggregate = (weir_aggregate_fns){0};
    refused(&s, WEIR_EINVAL, "exactly one function");
    s = base();
    s.reduce = sum_reduce;
    refused(&s, WEIR_EINVAL, "or process (2 given)");
    s = base();
    s.aggregate.result = NULL;
    refused(&s, WEIR_EINVAL, "aggregate needs add and result");
    s = base();
    s.aggregate.acc_size = 0;
    refused(&s, WEIR_EINVAL, "acc_size 0");
    s = base();
    s.out_size = 0;
    refused(&s, WEIR_EINVAL, "aggregate: out_size 0");
    s = base();
    s.assigner = weir_window_sliding(10, 5, 0);
    s.aggregate.merge = NULL;
    refused(&s, WEIR_EINVAL, "needs merge (panes are combined)");
    s.assigner = weir_window_session(5);
    refused(&s, WEIR_EINVAL, "needs merge (sessions merge)");
    /* without merge a count-triggered sliding window is fine (no panes) */
    s.assigner = weir_window_sliding(10, 5, 0);
    s.trigger = (weir_window_trigger){.kind = WEIR_TRIGGER_COUNT, .count = 2};
    weir_process_spec ps;
    char why[256];
    cr_assert_eq(weir_window_operator(&s, sizeof(ev), 8, &ps, why, sizeof why), 0, "%s", why);
    ps.impl_free(ps.impl);

    s = (weir_window_spec){.assigner = weir_window_tumbling(10, 0), .reduce = sum_reduce,
                           .out_size = 3};
    refused(&s, WEIR_EINVAL, "out_size must be 0 or the input's size 16");
    s.reduce_finish = sum_finish;
    s.out_size = 0;
    refused(&s, WEIR_EINVAL, "reduce with a finish hook: out_size 0");
    s = (weir_window_spec){.assigner = weir_window_tumbling(10, 0), .reduce_finish = sum_finish,
                           .aggregate = sum_aggregate, .out_size = sizeof(res)};
    refused(&s, WEIR_EINVAL, "reduce_finish without reduce");
    s = (weir_window_spec){.assigner = weir_window_tumbling(10, 0), .process = sum_process};
    refused(&s, WEIR_EINVAL, "process: out_size 0");
}

Test(config, keys)
{
    weir_window_spec s = base();
    weir_process_spec ps;
    char why[256];
    cr_assert_eq(weir_window_operator(&s, sizeof(ev), 0, &ps, why, sizeof why), WEIR_ENOKEY);
    tu_assert_contains(why, "keyed input");
    cr_assert_eq(weir_window_operator(&s, 0, 8, &ps, why, sizeof why), WEIR_EINVAL);
    tu_assert_contains(why, "element size 0");
    cr_assert_eq(weir_window_operator(NULL, sizeof(ev), 8, &ps, why, sizeof why), WEIR_EINVAL);
}

Test(config, settings_for_the_capture)
{
    weir_window_spec s = base();
    s.allowed_lateness_ms = 250;
    s.late_tag = 3;
    weir_process_spec ps;
    char why[256];
    cr_assert_eq(weir_window_operator(&s, sizeof(ev), 8, &ps, why, sizeof why), 0, "%s", why);
    cr_assert_str_eq(ps.kind, "window");
    cr_assert_eq(ps.accounting, WEIR_ACCOUNTING_WINDOW);
    cr_assert_str_eq(ps.settings_json,
                     "\"assigner\":\"tumbling\",\"size_ms\":10,\"slide_ms\":0,\"offset_ms\":0,"
                     "\"gap_ms\":0,\"lateness_ms\":250,\"trigger\":\"event\",\"count\":0,"
                     "\"purging\":false,\"function\":\"aggregate\",\"late\":\"side\","
                     "\"engine\":\"panes\"");
    ps.impl_free(ps.impl);
    s.assigner = weir_window_session(40);
    s.trigger.purging = true;
    cr_assert_eq(weir_window_operator(&s, sizeof(ev), 8, &ps, why, sizeof why), 0, "%s", why);
    tu_assert_contains(ps.settings_json, "\"assigner\":\"session\"", "\"gap_ms\":40",
                       "\"purging\":true", "\"engine\":\"sessions\"");
    ps.impl_free(ps.impl);
    s.assigner = weir_window_sliding(60000, 1000, 0);
    s.trigger.purging = false;
    cr_assert_eq(weir_window_operator(&s, sizeof(ev), 8, &ps, why, sizeof why), 0, "%s", why);
    tu_assert_contains(ps.settings_json, "\"size_ms\":60000,\"slide_ms\":1000",
                       "\"engine\":\"panes\"");
    ps.impl_free(ps.impl);
    s.assigner = weir_window_global();
    cr_assert_eq(weir_window_operator(&s, sizeof(ev), 8, &ps, why, sizeof why), 0, "%s", why);
    tu_assert_contains(ps.settings_json, "\"assigner\":\"global\",\"size_ms\":0,\"slide_ms\":0",
                       "\"engine\":\"windows\"");
    ps.impl_free(ps.impl);
}

/* ---- in a job --------------------------------------------------------------- */

static void ev_key(const void *elem, void *key, void *arg)
{
    (void)arg;
    memcpy(key, ((const ev *)elem)->key, 8);
}

static const weir_key_spec ev_key_spec = {.key_size = 8, .extract = ev_key};

Test(config, a_stream_that_is_not_keyed_is_a_build_error, .timeout = 120)
{
    static ev in[3];
    weir_job *job = tu_job(&(weir_job_config){.workers = 1});
    weir_window_spec s = base();
    cr_assert_null(weir_stream_window(weir_source_array(job, in, 3, sizeof(ev), NULL), &s));
    cr_assert_eq(weir_job_error_code(job), WEIR_ENOKEY);
    tu_assert_contains(weir_job_error(job), "weir_stream_window", "not keyed", "key_by");
    cr_assert_neq(weir_job_run(job), 0);
    weir_job_destroy(job);

    job = tu_job(&(weir_job_config){.workers = 1});
    s.assigner.size_ms = 0;
    weir_stream *k = weir_stream_key_by(weir_source_array(job, in, 3, sizeof(ev), NULL),
                                        &ev_key_spec);
    cr_assert_null(weir_stream_window(k, &s));
    tu_assert_contains(weir_job_error(job), "weir_stream_window: tumbling windows: size 0");
    weir_job_destroy(job);
}

/* A source of records and watermarks of its own (one subtask). */
typedef struct scripted {
    const ev *e;
    const int64_t *ts; /* WEIR_TS_MIN + 1 in ts marks "a watermark of e[i].value" */
    size_t n;
} scripted;

#define WM_MARK (WEIR_TS_MIN + 1)

static int scripted_next(weir_ctx *ctx)
{
    const scripted *s = weir_ctx_arg(ctx);
    size_t *pos = weir_ctx_state(ctx);
    for (; *pos < s->n; (*pos)++) {
        int r = s->ts[*pos] == WM_MARK ? weir_emit_watermark(ctx, s->e[*pos].value)
                                       : weir_emit(ctx, &s->e[*pos], s->ts[*pos]);
        if (r < 0)
            return r;
    }
    return WEIR_SOURCE_END;
}

static int scripted_open(weir_ctx *ctx)
{
    size_t *pos = calloc(1, sizeof *pos);
    weir_ctx_set_state(ctx, pos);
    return pos ? 0 : WEIR_ENOMEM;
}

static void scripted_close(weir_ctx *ctx)
{
    free(weir_ctx_state(ctx));
}

static const weir_source_vtable scripted_vt = {.version = WEIR_SOURCE_VTABLE_V1,
                                               .open = scripted_open,
                                               .next = scripted_next,
                                               .close = scripted_close};

Test(config, window_accounting_in_the_capture_summary, .timeout = 120)
{
    static const ev e[] = {{"a", 1}, {"b", 2}, {"", 20}, {"a", 3}, {"b", 4}, {"a", 5}};
    static const int64_t ts[] = {5, 6, WM_MARK, 3, 25, 9};
    static scripted src = {e, ts, 6};
    weir_diag_memory *mem;
    cr_assert_eq(weir_diag_memory_create(&mem), 0);
    weir_job *job = tu_job(&(weir_job_config){.workers = 2, .diag = {.memory = mem}});
    weir_stream *in = weir_job_add_source(job, &(weir_source_spec){.vtable = &scripted_vt,
                                                                   .arg = &src,
                                                                   .elem_size = sizeof(ev),
                                                                   .parallelism = 1});
    weir_window_spec s = base();
    s.late_tag = WEIR_WINDOW_LATE_TAG;
    s.name = "counts";
    s.parallelism = 2;
    weir_stream *w = weir_stream_window(weir_stream_key_by(in, &ev_key_spec), &s);
    weir_collect *results, *late;
    weir_sink_collect(w, &results);
    weir_sink_collect(weir_stream_side_output(w, WEIR_WINDOW_LATE_TAG), &late);
    tu_run_ok(job);
    cr_assert_eq(weir_collect_count(results), 3u); /* a [0,10) 1, b [0,10) 2, b [20,30) 4 */
    cr_assert_eq(weir_collect_count(late), 2u);    /* a@3 and a@9 */
    int64_t in_total = 0, absorbed = 0, late_side = 0, late_dropped = 0;
    bool summary = false;
    for (size_t i = 0; i < weir_diag_memory_count(mem); i++) {
        const weir_diag_event *de = weir_diag_memory_event(mem, i);
        if (de->kind != WEIR_DIAG_KIND_SUMMARY)
            continue;
        summary = true;
        json_error_t jerr;
        json_t *root = json_loads(de->json, 0, &jerr);
        cr_assert_not_null(root, "summary json: %s", jerr.text);
        size_t k;
        json_t *op;
        json_array_foreach(json_object_get(root, "operators"), k, op)
        {
            if (strcmp(json_string_value(json_object_get(op, "op")), "counts") != 0)
                continue;
            cr_assert_str_eq(json_string_value(json_object_get(op, "accounting")), "window");
            in_total += json_integer_value(json_object_get(op, "in"));
            absorbed += json_integer_value(json_object_get(op, "absorbed"));
            late_side += json_integer_value(json_object_get(op, "late_side"));
            late_dropped += json_integer_value(json_object_get(op, "late_dropped"));
        }
        json_decref(root);
    }
    cr_assert(summary, "no summary event");
    cr_assert_eq(in_total, 5);
    cr_assert_eq(absorbed, 3);
    cr_assert_eq(late_side, 2);
    cr_assert_eq(late_dropped, 0);
    cr_assert_eq(in_total, absorbed + late_side + late_dropped);
    weir_job_destroy(job);
    weir_diag_memory_destroy(mem);
}
