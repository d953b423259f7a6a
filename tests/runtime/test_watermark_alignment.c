/* test_watermark_alignment.c — the partitions of a source cannot drift apart
 * without bound (align.h, weir_source_align_watermarks), and a window over
 * an unbounded source keeps bounded state on either clock.
 *
 * The soak: a generator of two partitions read at full speed (FAST, an
 * unbounded schedule), a timestamps operator chained to each, a keyed 1 s
 * tumbling window whose process function counts what it fires and reads its
 * subtask's state memory (weir_state_memory). After 5 s of event time
 * partition 0's data jumps ten hours ahead (an idle span, skipped at once),
 * like a reader that went on to a file of a later day: the window's
 * watermark follows partition 1, and each record partition 0 reads then
 * waits in the window until partition 1 gets there, 3.6 million records
 * later. The test runs it for a few seconds on each clock, cancels it, and
 * checks all along that the records held in open windows (emitted minus
 * fired) and the window's state memory stay within a bound set by the
 * default max drift (a minute of event time) and the watermark interval, not
 * by how long the run lasts or how fast the machine is. Before alignment
 * partition 0 read on and the held records grew with every record it read
 * (as fast as partition 1 reads, so past the bound whatever the machine:
 * the RSS of the issue growing by 30 MB/s); before the virtual clock
 * advanced with the work no window fired at all on it.
 *
 * The rest: a partition ahead pauses and resumes (the run ends with every
 * record, none late), a named group aligns two sources, WEIR_DISABLED turns
 * it off, bad settings are refused.
 */
#include <criterion/criterion.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "support/weir_testutil.h"

#define JUMP_MS (10 * 3600000)
enum { RATE = 100 }; /* events per second of event time per partition */

typedef struct soak {
    _Atomic int64_t emitted;
    _Atomic int64_t fired;      /* elements in the window's results */
    _Atomic int64_t results;
    _Atomic int64_t max_state;  /* the window subtask's weir_state_memory, at its firings */
    _Atomic int64_t late;
} soak;

static int count_late(const void *elem, int64_t ts, int subtask, void *arg)
{
    (void)elem;
    (void)ts;
    (void)subtask;
    atomic_fetch_add(&((soak *)arg)->late, 1);
    return 0;
}

static int tee(const void *in, void *arg)
{
    (void)in;
    atomic_fetch_add_explicit(&((soak *)arg)->emitted, 1, memory_order_relaxed);
    return 1;
}

static int fire(weir_ctx *ctx, const weir_window_info *w, const void *elems, size_t count,
                void *arg)
{
    (void)w;
    (void)elems;
    soak *s = arg;
    atomic_fetch_add(&s->results, 1);
    atomic_fetch_add(&s->fired, (int64_t)count);
    int64_t mem = (int64_t)weir_state_memory(ctx);
    if (mem > atomic_load(&s->max_state))
        atomic_store(&s->max_state, mem);
    return 0;
}

static void sleep_ms(int ms)
{
    nanosleep(&(struct timespec){.tv_sec = ms / 1000, .tv_nsec = (long)(ms % 1000) * 1000000L},
              NULL);
}

/* Runs the soak for `seconds` on `clock` and checks the bounds. */
static void run_soak(weir_clock_kind clock, int seconds)
{
    soak s = {0};
    weir_job *job = tu_job(&(weir_job_config){.workers = 2,
                                              .clock = clock,
                                              .watermark_interval_ms = 5,
                                              .diag.level = WEIR_DIAG_OFF});
    weir_generator_config g = {
        .partitions = 2, .keys = 100, .rate = RATE, .disorder_ms = 50, .seed = 11,
        /* unbounded for the test's purpose: 2^40 ms of event time */
        .duration_ms = (int64_t)1 << 40,
        .idle = {{.partition = 0, .from_ms = 5000, .to_ms = 5000 + JUMP_MS}},
        .nidle = 1,
    };
    weir_stream *src = weir_source_generator(job, &g);
    /* The tee and the timestamps chained to each partition (parallelism 2,
     * forward): each partition makes its own watermark. */
    weir_stream *t = weir_stream_set_parallelism(
        weir_stream_assign_timestamps(
            weir_stream_set_parallelism(weir_stream_filter(src, tee, &s), 2),
            &(weir_timestamps_spec){.strategy = weir_watermarks_bounded(50)}),
        2);
    weir_window_spec w = {.assigner = weir_window_tumbling(1000, 0),
                          .process = fire,
                          .out_size = 8,
                          .arg = &s,
                          .late_tag = WEIR_WINDOW_LATE_TAG,
                          .parallelism = 1};
    weir_stream *win = weir_stream_window(weir_stream_key_by(t, weir_generator_key()), &w);
    cr_assert(weir_sink_discard(win), "%s", weir_job_error(job));
    weir_sink_callback(weir_stream_side_output(win, WEIR_WINDOW_LATE_TAG), count_late, &s);
    tu_runner rn;
    tu_runner_start(&rn, job);
    /* Held records: what the partitions emitted and no window fired yet.
     * The bound: a partition's minute of drift (RATE * 60 s = 6 000), plus
     * what both partitions emit between two watermarks (5 ms) and between a
     * watermark and the pause it brings (on the virtual clock 500 records a
     * partition; on the system clock 5 ms of a fast machine's reading), plus
     * the open windows and the channels' batches: a generous 100 000.
     * Without alignment partition 0 alone holds as many records as
     * partition 1 reads meanwhile, up to 3.6 million (and on the old virtual
     * clock no window fired: everything was held). */
    const int64_t bound = 100000;
    int64_t max_held = 0, samples = 0;
    for (int ms = 0; ms < seconds * 1000 && !atomic_load(&rn.done); ms += 10) {
        sleep_ms(10);
        int64_t fired = atomic_load(&s.fired) + atomic_load(&s.late);
        int64_t held = atomic_load(&s.emitted) - fired;
        if (ms >= 300) { /* after the first watermarks */
            samples++;
            max_held = held > max_held ? held : max_held;
        }
    }
    cr_assert_eq(weir_job_cancel(job), 0);
    pthread_join(rn.thread, NULL);
    cr_assert_eq(rn.result, WEIR_ECANCELED, "the run ended by itself: %d (%s)", rn.result,
                 weir_job_error(job));
    weir_job_destroy(job);
    int64_t emitted = atomic_load(&s.emitted), results = atomic_load(&s.results);
    cr_log_info("%s clock: %lld records, %lld results, %lld late, held at most %lld, state at "
                "most %lld bytes",
                clock == WEIR_CLOCK_VIRTUAL ? "virtual" : "system", (long long)emitted,
                (long long)results, (long long)atomic_load(&s.late), (long long)max_held,
                (long long)atomic_load(&s.max_state));
    cr_assert_gt(samples, 0);
    cr_assert_eq(atomic_load(&s.late), 0, "a paused partition's records are never late");
    cr_assert_gt(results, 0, "no window fired in %d s (%lld records emitted)", seconds,
                 (long long)emitted);
    cr_assert_leq(max_held, bound, "%lld records held in open windows (of %lld emitted)",
                  (long long)max_held, (long long)emitted);
    /* Its state: the held records (48 bytes each with the list's slack) and
     * the keys, windows and timers around them. */
    cr_assert_leq(atomic_load(&s.max_state), (int64_t)32 << 20,
                  "the window's state reached %lld bytes", (long long)atomic_load(&s.max_state));
}

Test(watermark_alignment, soak_window_state_stays_bounded_on_the_virtual_clock, .timeout = 120)
{
    run_soak(WEIR_CLOCK_VIRTUAL, 3);
}

Test(watermark_alignment, soak_window_state_stays_bounded_on_the_system_clock, .timeout = 120)
{
    run_soak(WEIR_CLOCK_SYSTEM, 3);
}

/* ---- a partition ahead pauses and resumes ---------------------------------- */

/* Per-partition reading, seen by a tee chained to each partition; with one
 * worker the two tees never run at once, and the counts are the run's. A
 * partition's largest timestamp runs ahead of its watermark by what it
 * reads between two probes (5 ms of virtual time, 500 records, 5 s of event
 * time at RATE) and in the step that brings its pause (batches of 512):
 * SLACK_MS beyond the drift is what alignment allows. */
#define SLACK_MS 15000
typedef struct drift_log {
    int64_t max_ts[2];
    int64_t count[2];
    int64_t far_ahead; /* records read more than drift + SLACK_MS ahead of the other */
    int64_t drift;
} drift_log;

static int drift_tee(const void *in, void *arg)
{
    const weir_gen_event *e = in;
    drift_log *d = arg;
    int p = e->partition, o = 1 - p;
    d->count[p]++;
    if (e->timestamp > d->max_ts[p])
        d->max_ts[p] = e->timestamp;
    if (d->count[o] > 0 && e->timestamp > d->max_ts[o] + d->drift + SLACK_MS)
        d->far_ahead++;
    return 1;
}

typedef struct fired_log {
    _Atomic int64_t fired, late, idle;
} fired_log;

static int count_fired(weir_ctx *ctx, const weir_window_info *w, const void *elems, size_t count,
                       void *arg)
{
    (void)ctx;
    (void)w;
    (void)elems;
    atomic_fetch_add(&((fired_log *)arg)->fired, (int64_t)count);
    return 0;
}

static int count_late_fired(const void *elem, int64_t ts, int subtask, void *arg)
{
    (void)elem;
    (void)ts;
    (void)subtask;
    atomic_fetch_add(&((fired_log *)arg)->late, 1);
    return 0;
}

static void count_idle(const weir_diag_event *ev, void *arg)
{
    if (ev->kind == WEIR_DIAG_KIND_STATUS && ev->idle && ev->op &&
        strcmp(ev->op, "timestamps") == 0)
        atomic_fetch_add(&((fired_log *)arg)->idle, 1);
}

/* generator (2 partitions; partition 0 jumps an hour ahead after 5 s) ->
 * tee -> timestamps (bounded 50, idleness `idleness_ms`), chained; -> key_by
 * -> 1 s window counting. `align` NULL: the default. Runs to the end on the
 * virtual clock with one worker. */
static void run_drift(const weir_watermark_alignment *align, int64_t idleness_ms, drift_log *d,
                      fired_log *f)
{
    memset(d, 0, sizeof *d);
    memset(f, 0, sizeof *f);
    d->drift = align && align->max_drift_ms > 0 ? align->max_drift_ms
                                                : WEIR_WATERMARK_DRIFT_DEFAULT_MS;
    weir_job *job = tu_job(&(weir_job_config){
        .workers = 1, .clock = WEIR_CLOCK_VIRTUAL, .watermark_interval_ms = 5,
        .diag = {.level = WEIR_DIAG_STANDARD, .callback = count_idle, .callback_arg = f}});
    weir_generator_config g = {
        .partitions = 2, .keys = 10, .rate = RATE, .disorder_ms = 50, .seed = 5,
        .duration_ms = 2 * 3600000,
        .idle = {{.partition = 0, .from_ms = 5000, .to_ms = 5000 + 3600000}},
        .nidle = 1,
    };
    weir_stream *src = weir_source_generator(job, &g);
    if (align)
        cr_assert(weir_source_align_watermarks(src, align), "%s", weir_job_error(job));
    weir_watermark_strategy st = weir_watermarks_bounded(50);
    st.idleness_ms = idleness_ms;
    weir_stream *tee_s = weir_stream_set_parallelism(weir_stream_filter(src, drift_tee, d), 2);
    weir_stream *t = weir_stream_set_parallelism(
        weir_stream_assign_timestamps(tee_s, &(weir_timestamps_spec){.strategy = st}), 2);
    weir_window_spec w = {.assigner = weir_window_tumbling(1000, 0),
                          .process = count_fired,
                          .out_size = 8,
                          .arg = f,
                          .late_tag = WEIR_WINDOW_LATE_TAG,
                          .parallelism = 1};
    weir_stream *win = weir_stream_window(weir_stream_key_by(t, weir_generator_key()), &w);
    cr_assert(weir_sink_discard(win), "%s", weir_job_error(job));
    cr_assert(weir_sink_callback(weir_stream_side_output(win, WEIR_WINDOW_LATE_TAG),
                                 count_late_fired, f));
    tu_run_ok(job);
    weir_job_destroy(job);
}

Test(watermark_alignment, a_partition_ahead_pauses_until_the_other_catches_up, .timeout = 120)
{
    drift_log d;
    fired_log f;
    run_drift(NULL, 0, &d, &f);
    /* Every slot outside the idle span, every record in a window, none
     * late: the pause changed when records were read, not what was read. */
    cr_assert_eq(d.count[0], 2 * 3600 * RATE - 3600 * RATE);
    cr_assert_eq(d.count[1], 2 * 3600 * RATE);
    cr_assert_eq(atomic_load(&f.fired), d.count[0] + d.count[1]);
    cr_assert_eq(atomic_load(&f.late), 0);
    /* Partition 0 read an hour ahead only until its first watermark there
     * paused it (a watermark interval, 5 ms = 500 records of work, and the
     * source step it came in: a few batches of 512): it
     * read the rest of its data once partition 1 had come within the
     * drift. */
    cr_assert_leq(d.far_ahead, 2048, "partition 0 read %lld records more than the drift ahead",
                  (long long)d.far_ahead);
}

Test(watermark_alignment, disabled_lets_the_partitions_drift, .timeout = 120)
{
    drift_log d;
    fired_log f;
    run_drift(&(weir_watermark_alignment){.max_drift_ms = WEIR_DISABLED}, 0, &d, &f);
    cr_assert_eq(atomic_load(&f.fired), d.count[0] + d.count[1]);
    /* Partition 0 read its hour ahead at the pace of partition 1. */
    cr_assert_gt(d.far_ahead, 100000, "%lld", (long long)d.far_ahead);
}

Test(watermark_alignment, a_smaller_drift_holds_closer, .timeout = 120)
{
    drift_log d;
    fired_log f;
    run_drift(&(weir_watermark_alignment){.max_drift_ms = 20000, .update_interval_ms = 50}, 0, &d,
              &f);
    cr_assert_eq(atomic_load(&f.fired), d.count[0] + d.count[1]);
    cr_assert_eq(atomic_load(&f.late), 0);
    cr_assert_leq(d.far_ahead, 2048, "%lld", (long long)d.far_ahead);
}

/* Flink's paused activity clock: the time a source spends paused by
 * alignment does not count towards its idleness. Partition 0 waits about
 * 36 s of (virtual) processing time for partition 1 with an idleness
 * timeout of 200 ms: it is never declared idle, so its watermark keeps
 * holding the window (were it idle, the window would follow partition 1
 * alone and partition 0's records, read later, could be late). */
Test(watermark_alignment, a_paused_partition_is_not_idle, .timeout = 120)
{
    drift_log d;
    fired_log f;
    run_drift(NULL, 200, &d, &f);
    cr_assert_eq(atomic_load(&f.fired), d.count[0] + d.count[1]);
    cr_assert_eq(atomic_load(&f.late), 0);
    cr_assert_leq(d.far_ahead, 2048, "%lld", (long long)d.far_ahead);
    cr_assert_eq(atomic_load(&f.idle), 0, "the timestamps were declared idle %lld times",
                 (long long)atomic_load(&f.idle));
}

/* An idle member reports MAX, so it holds nobody back (Flink's
 * SourceOperator), but whether it pauses is decided on its own watermark:
 * partition 1 goes quiet for two minutes (paced on the virtual clock, its
 * source waits for its next slot) and is declared idle after 200 ms, while
 * partition 0 reads on. Were partition 1 paused as "MAX, ahead of
 * everyone", it could not read its slots after the quiet span until
 * partition 0 finished, and they would all be late (and its wait, past due
 * while paused, ran its subtask over and over without letting the virtual
 * clock move). */
typedef struct paced_log {
    _Atomic int64_t emitted;
} paced_log;

static int paced_tee(const void *in, void *arg)
{
    (void)in;
    atomic_fetch_add(&((paced_log *)arg)->emitted, 1);
    return 1;
}

Test(watermark_alignment, an_idle_partition_reads_again_when_its_data_comes, .timeout = 60)
{
    paced_log pl = {0};
    fired_log f = {0};
    weir_job *job = tu_job(&(weir_job_config){.workers = 2, .clock = WEIR_CLOCK_VIRTUAL,
                                              .diag.level = WEIR_DIAG_OFF});
    weir_generator_config g = {
        .partitions = 2, .keys = 5, .rate = 10, .pace = WEIR_GEN_PACED, .speed = 1,
        .duration_ms = 200000, .seed = 4,
        .idle = {{.partition = 1, .from_ms = 1000, .to_ms = 121000}},
        .nidle = 1,
    };
    weir_watermark_strategy st = weir_watermarks_bounded(0);
    st.idleness_ms = 200;
    weir_stream *tee_s = weir_stream_set_parallelism(
        weir_stream_filter(weir_source_generator(job, &g), paced_tee, &pl), 2);
    weir_stream *t = weir_stream_set_parallelism(
        weir_stream_assign_timestamps(tee_s, &(weir_timestamps_spec){.strategy = st}), 2);
    weir_window_spec w = {.assigner = weir_window_tumbling(1000, 0),
                          .process = count_fired,
                          .out_size = 8,
                          .arg = &f,
                          .late_tag = WEIR_WINDOW_LATE_TAG,
                          .parallelism = 1};
    weir_stream *win = weir_stream_window(weir_stream_key_by(t, weir_generator_key()), &w);
    cr_assert(weir_sink_discard(win), "%s", weir_job_error(job));
    cr_assert(weir_sink_callback(weir_stream_side_output(win, WEIR_WINDOW_LATE_TAG),
                                 count_late_fired, &f));
    tu_run_ok(job);
    weir_job_destroy(job);
    cr_assert_eq(atomic_load(&pl.emitted), 2 * 2000 - 1200);
    cr_assert_eq(atomic_load(&f.late), 0, "%lld records of the quiet partition came late",
                 (long long)atomic_load(&f.late));
    cr_assert_eq(atomic_load(&f.fired), atomic_load(&pl.emitted));
}

/* A member that finishes reports MAX at once. Here partition 1's data starts
 * 5 s later and the max drift is 1 s; at the first watermark (200 ms of
 * virtual time, about 10 000 records a partition) partition 0 reports 10 s,
 * partition 1 15 s, and partition 1 pauses. Partition 0 reads its last
 * 15 000 records and ends before its next watermark (20 000 records on):
 * had its report stayed at 10 s, partition 1 would have stayed paused for
 * ever (its looks moving a virtual clock that nothing else moved, a second
 * at a time). */
Test(watermark_alignment, a_finished_partition_holds_nobody_back, .timeout = 60)
{
    paced_log pl = {0};
    fired_log f = {0};
    weir_job *job = tu_job(&(weir_job_config){.workers = 1, .clock = WEIR_CLOCK_VIRTUAL,
                                              .diag.level = WEIR_DIAG_OFF});
    weir_generator_config g = {
        .partitions = 2, .keys = 5, .rate = 1000, .count = 25000, .seed = 8,
        .idle = {{.partition = 1, .from_ms = 0, .to_ms = 5000}},
        .nidle = 1,
    };
    weir_stream *src = weir_source_generator(job, &g);
    cr_assert(weir_source_align_watermarks(src, &(weir_watermark_alignment){.max_drift_ms = 1000}));
    weir_stream *tee_s = weir_stream_set_parallelism(weir_stream_filter(src, paced_tee, &pl), 2);
    weir_stream *t = weir_stream_set_parallelism(
        weir_stream_assign_timestamps(
            tee_s, &(weir_timestamps_spec){.strategy = weir_watermarks_bounded(0)}),
        2);
    weir_window_spec w = {.assigner = weir_window_tumbling(1000, 0),
                          .process = count_fired,
                          .out_size = 8,
                          .arg = &f,
                          .parallelism = 1};
    weir_stream *win = weir_stream_window(weir_stream_key_by(t, weir_generator_key()), &w);
    cr_assert(weir_sink_discard(win), "%s", weir_job_error(job));
    tu_run_ok(job);
    weir_job_destroy(job);
    cr_assert_eq(atomic_load(&pl.emitted), 25000 + 20000);
    cr_assert_eq(atomic_load(&f.fired), atomic_load(&pl.emitted));
}

/* ---- a named group ------------------------------------------------------- */

typedef struct two_sources {
    int64_t max_ts[2], count[2], far_ahead;
} two_sources;

static int source_tee(weir_ctx *ctx, const void *in, int64_t ts, void *arg)
{
    const weir_gen_event *e = in;
    two_sources *t = arg;
    int s = e->key >= 1000 ? 1 : 0; /* source B's keys are moved up by 1000 */
    (void)ts;
    t->count[s]++;
    if (e->timestamp > t->max_ts[s])
        t->max_ts[s] = e->timestamp;
    if (t->count[1 - s] > 0 && e->timestamp > t->max_ts[1 - s] + 10000 + SLACK_MS)
        t->far_ahead++;
    return weir_emit(ctx, e, e->timestamp);
}

static int shift_key(const void *in, void *out, void *arg)
{
    (void)arg;
    weir_gen_event e;
    memcpy(&e, in, sizeof e);
    e.key += 1000;
    memcpy(out, &e, sizeof e);
    return 0;
}

/* Sources A (data from 0) and B (data from an hour later), one partition
 * each (so no default alignment), into one union; with `group`, both in it
 * with a 10 s drift. */
static void run_two(const char *group, two_sources *t)
{
    memset(t, 0, sizeof *t);
    weir_job *job = tu_job(&(weir_job_config){.workers = 1, .clock = WEIR_CLOCK_VIRTUAL,
                                              .watermark_interval_ms = 5,
                                              .diag.level = WEIR_DIAG_OFF});
    weir_generator_config a = {.name = "a", .partitions = 1, .keys = 10, .rate = RATE,
                               .count = 2 * 3600 * RATE, .seed = 1};
    weir_generator_config b = a;
    b.name = "b";
    b.start_ms = 3600000;
    b.count = 3600 * RATE;
    b.seed = 2;
    weir_stream *sa = weir_source_generator(job, &a), *sb = weir_source_generator(job, &b);
    if (group) {
        weir_watermark_alignment al = {.group = group, .max_drift_ms = 10000};
        cr_assert(weir_source_align_watermarks(sa, &al), "%s", weir_job_error(job));
        cr_assert(weir_source_align_watermarks(sb, &al), "%s", weir_job_error(job));
    }
    weir_timestamps_spec ts = {.strategy = weir_watermarks_bounded(0)};
    weir_stream *ta = weir_stream_assign_timestamps(sa, &ts);
    weir_stream *tb = weir_stream_assign_timestamps(
        weir_stream_map(sb, sizeof(weir_gen_event), shift_key, NULL), &ts);
    weir_stream *both[] = {ta, tb};
    weir_stream *u = weir_stream_flat_map(weir_stream_union(both, 2), sizeof(weir_gen_event),
                                          source_tee, t);
    cr_assert(weir_sink_discard(u), "%s", weir_job_error(job));
    tu_run_ok(job);
    weir_job_destroy(job);
}

Test(watermark_alignment, a_named_group_aligns_two_sources, .timeout = 120)
{
    two_sources t;
    run_two(NULL, &t);
    cr_assert_eq(t.count[0] + t.count[1], 3 * 3600 * RATE);
    cr_assert_gt(t.far_ahead, 100000, "without a group B reads its hour ahead: %lld",
                 (long long)t.far_ahead);
    run_two("g", &t);
    cr_assert_eq(t.count[0], 2 * 3600 * RATE);
    cr_assert_eq(t.count[1], 3600 * RATE);
    cr_assert_leq(t.far_ahead, 2048, "in group g B waits for A: %lld read ahead",
                  (long long)t.far_ahead);
}

/* ---- settings -------------------------------------------------------------- */

Test(watermark_alignment, bad_settings_are_refused)
{
    static const struct {
        weir_watermark_alignment a;
        const char *why;
    } bad[] = {
        {{.max_drift_ms = -5}, "max drift -5 ms is negative"},
        {{.update_interval_ms = -1}, "update interval -1 ms is negative"},
        {{.group = ""}, "a group name is 1 to 100 bytes, not 0"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        weir_job *job = tu_job(NULL);
        weir_generator_config g = {.partitions = 2, .rate = 10, .count = 10};
        weir_stream *s = weir_source_generator(job, &g);
        cr_assert_null(weir_source_align_watermarks(s, &bad[i].a));
        tu_assert_contains(weir_job_error(job), "weir_source_align_watermarks", bad[i].why);
        weir_job_destroy(job);
    }
    weir_job *job = tu_job(NULL);
    weir_generator_config g = {.partitions = 2, .rate = 10, .count = 10};
    weir_stream *m = weir_stream_filter(weir_source_generator(job, &g), tee, NULL);
    cr_assert_null(weir_source_align_watermarks(m, NULL));
    tu_assert_contains(weir_job_error(job), "is not a source");
    weir_job_destroy(job);
}
