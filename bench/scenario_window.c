/* scenario_window.c — event-time windows: a count per key and window over
 * the event-time input (work.c's gen_event: 10 000 keys, 1 M records per
 * second of event time, up to 100 ms out of order), and the plain-C loop
 * that does the same work without the engine.
 *
 *   plain-window      one thread, no runtime: for each record gen_event, the
 *                     key extractor, its 1 s window start (floor-mod, right
 *                     for the negative timestamps of the first records), a
 *                     lookup of (key, start) in an open-addressing table and
 *                     the aggregate's add; the bounded-out-of-orderness
 *                     watermark (max timestamp - 100 - 1) after every
 *                     record, and when it reaches a window's max (end - 1)
 *                     the aggregate's result and the sink for every window
 *                     that ended. Its output equals the engine's.
 *   window-tumbling   events -> assign_timestamps (bounded 100 ms, probes
 *                     every 200 ms) -> key_by -> window (tumbling 1 s,
 *                     aggregate count) -> sink, parallelism p.
 *   window-sliding    the same with sliding windows of 60 s every 1 s.
 *   window-session    the same with session windows, gap 1 s: a key sees a
 *                     record about every 10 ms, so a session keeps going and
 *                     every element extends (or merges into) its key's one
 *                     open session; sessions fire at the end of input.
 *
 * Every run is checked against a reference computed once per record count
 * without any hash table (reference() below): how many results, the sum of
 * their counts, and an order-free checksum of (key, timestamp, count) of
 * every result, so a window that fired twice, never, early with part of its
 * contents, or for the wrong key fails the run.
 */
#include <ftw.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench.h"

#define TUMBLE_MS 1000
#define SLIDE_SIZE_MS 60000
#define SLIDE_MS 1000
#define SESSION_GAP_MS 1000
#define BOUND_MS BENCH_EVENT_DISORDER_MS
#define PROBE_MS 200

/* The sliding reference adds up 1 s panes. */
_Static_assert(SLIDE_MS == TUMBLE_MS && SLIDE_SIZE_MS % SLIDE_MS == 0, "panes are tumbling windows");

static int64_t floor_div(int64_t a, int64_t b)
{
    int64_t q = a / b;
    return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q;
}

/* What the sinks received, or must receive. */
typedef struct wtotals {
    uint64_t results, counts, mix;
} wtotals;

static void wacc_total(const bench_wacc *acc, int n, wtotals *t)
{
    *t = (wtotals){0};
    for (int i = 0; i < n; i++) {
        t->results += acc[i].results;
        t->counts += acc[i].counts;
        t->mix += acc[i].mix;
    }
}

/* ---- the reference ----------------------------------------------------------
 *
 * Independent of both the engine and plain-window: one pass over the input
 * counts records per (key, second) in a dense array (the tumbling windows,
 * and the 1 s panes that sliding windows are unions of); sessions take a
 * bitmap of the milliseconds at which each key has records (a session splits
 * where two consecutive ones are more than the gap apart: windows that touch
 * merge) and a second pass that counts each record into its key's session.
 * Cached per (records, kind): only the harness thread calls it. */

#define REF_SLOTS 8

typedef struct ref_entry {
    int64_t records;
    int kind;
    bool valid;
    wtotals t;
} ref_entry;

static ref_entry ref_cache[REF_SLOTS];
static unsigned ref_next;

static int ref_panes(int64_t records, int kind, wtotals *t)
{
    const bench_work *w = bench_work_get();
    const int64_t lo = floor_div(-BOUND_MS, TUMBLE_MS);
    const int64_t hi = floor_div((records - 1) / BENCH_EVENTS_PER_MS, TUMBLE_MS);
    const int64_t nsec = hi - lo + 1;
    uint32_t *cell = calloc((size_t)(BENCH_EVENT_KEYS * nsec), sizeof *cell);
    if (!cell)
        return -1;
    bench_elem e;
    for (int64_t s = 0; s < records; s++) {
        int64_t ts = w->gen_event(s, &e);
        cell[e.key * nsec + floor_div(ts, TUMBLE_MS) - lo]++;
    }
    *t = (wtotals){0};
    const int64_t npanes = SLIDE_SIZE_MS / SLIDE_MS;
    for (int64_t k = 0; k < BENCH_EVENT_KEYS; k++) {
        const uint32_t *c = cell + k * nsec;
        if (kind == BENCH_WINDOW_TUMBLING) {
            for (int64_t i = 0; i < nsec; i++) {
                if (c[i] == 0)
                    continue;
                t->results++;
                t->counts += c[i];
                t->mix += bench_result_mix(k, (lo + i) * TUMBLE_MS + TUMBLE_MS - 1, c[i]);
            }
            continue;
        }
        /* Sliding: the window starting at pane i covers panes i .. i+npanes-1. */
        uint64_t sum = 0;
        for (int64_t i = -(npanes - 1); i < nsec; i++) {
            if (i + npanes - 1 < nsec)
                sum += c[i + npanes - 1];
            if (i - 1 >= 0)
                sum -= c[i - 1];
            if (sum == 0)
                continue;
            t->results++;
            t->counts += sum;
            t->mix += bench_result_mix(k, (lo + i) * SLIDE_MS + SLIDE_SIZE_MS - 1, (int64_t)sum);
        }
    }
    free(cell);
    return 0;
}

typedef struct session {
    int64_t start, last; /* first and last timestamp of the session */
    int64_t count;
} session;

static int ref_sessions(int64_t records, wtotals *t)
{
    const bench_work *w = bench_work_get();
    const int64_t t0 = -BOUND_MS;
    const int64_t span = (records - 1) / BENCH_EVENTS_PER_MS - t0 + 1; /* ms */
    const int64_t words = (span + 63) / 64;
    uint64_t *bits = calloc((size_t)(BENCH_EVENT_KEYS * words), sizeof *bits);
    int64_t *first = calloc(BENCH_EVENT_KEYS + 1, sizeof *first); /* sessions of key k */
    session *ss = NULL;
    int r = -1;
    if (!bits || !first)
        goto out;
    bench_elem e;
    for (int64_t s = 0; s < records; s++) {
        int64_t off = w->gen_event(s, &e) - t0;
        bits[e.key * words + off / 64] |= UINT64_C(1) << (off % 64);
    }
    /* Two scans of the bitmap: how many sessions, then where they are. */
    int64_t nss = 0, cap = 0;
    for (int pass = 0; pass < 2; pass++) {
        nss = 0;
        for (int64_t k = 0; k < BENCH_EVENT_KEYS; k++) {
            first[k] = nss;
            int64_t last = INT64_MIN;
            for (int64_t wi = 0; wi < words; wi++) {
                for (uint64_t b = bits[k * words + wi]; b; b &= b - 1) {
                    int64_t ms = wi * 64 + __builtin_ctzll(b) + t0;
                    if (last == INT64_MIN || ms - last > SESSION_GAP_MS) {
                        if (pass == 1)
                            ss[nss] = (session){.start = ms};
                        nss++;
                    }
                    if (pass == 1)
                        ss[nss - 1].last = ms;
                    last = ms;
                }
            }
        }
        first[BENCH_EVENT_KEYS] = nss;
        if (pass == 0) {
            cap = nss;
            ss = calloc((size_t)(cap > 0 ? cap : 1), sizeof *ss);
            if (!ss)
                goto out;
        }
    }
    for (int64_t s = 0; s < records; s++) {
        int64_t ts = w->gen_event(s, &e);
        int64_t a = first[e.key], b = first[e.key + 1] - 1; /* the last with start <= ts */
        while (a < b) {
            int64_t m = a + (b - a + 1) / 2;
            if (ss[m].start <= ts)
                a = m;
            else
                b = m - 1;
        }
        ss[a].count++;
    }
    *t = (wtotals){0};
    for (int64_t k = 0; k < BENCH_EVENT_KEYS; k++) {
        for (int64_t i = first[k]; i < first[k + 1]; i++) {
            t->results++;
            t->counts += (uint64_t)ss[i].count;
            t->mix += bench_result_mix(k, ss[i].last + SESSION_GAP_MS - 1, ss[i].count);
        }
    }
    r = 0;
out:
    free(bits);
    free(first);
    free(ss);
    return r;
}

static int reference(int64_t records, int kind, wtotals *t)
{
    for (unsigned i = 0; i < REF_SLOTS; i++) {
        if (ref_cache[i].valid && ref_cache[i].records == records && ref_cache[i].kind == kind) {
            *t = ref_cache[i].t;
            return 0;
        }
    }
    int r = kind == BENCH_WINDOW_SESSION ? ref_sessions(records, t) : ref_panes(records, kind, t);
    if (r < 0)
        return r;
    ref_cache[ref_next++ % REF_SLOTS] = (ref_entry){records, kind, true, *t};
    return 0;
}

int bench_verify_windows(const bench_wacc *acc, int n, int64_t records, int kind, char *err,
                         size_t errsize)
{
    wtotals want, got;
    if (reference(records, kind, &want) < 0) {
        snprintf(err, errsize, "out of memory for the reference results");
        return -1;
    }
    wacc_total(acc, n, &got);
    if (got.results != want.results || got.counts != want.counts) {
        snprintf(err, errsize,
                 "the sinks received %" PRIu64 " window results counting %" PRIu64
                 " records, expected %" PRIu64 " counting %" PRIu64,
                 got.results, got.counts, want.results, want.counts);
        return -1;
    }
    if (got.mix != want.mix) {
        snprintf(err, errsize, "window results checksum %016" PRIx64 ", expected %016" PRIx64,
                 got.mix, want.mix);
        return -1;
    }
    return 0;
}

bench_wacc *bench_wacc_create(int n)
{
    bench_wacc *acc = aligned_alloc(_Alignof(bench_wacc), (size_t)n * sizeof *acc);
    if (acc)
        memset(acc, 0, (size_t)n * sizeof *acc);
    return acc;
}

/* ---- plain-window ------------------------------------------------------------
 *
 * The table: open addressing with linear probing on (key, window start),
 * load at most 1/2, a slot {key, start, count, acc} (count 0: empty; the
 * engine's pane keeps a count beside the accumulator too). When the
 * watermark reaches the oldest open window's max, one sweep emits every
 * window that ended and moves the others into a fresh array: a sweep per
 * second of event time, a few hundredths of a slot per record. */

typedef struct pw_slot {
    int64_t key, start, count, acc;
} pw_slot;

typedef struct pw_table {
    pw_slot *slots, *spare;
    size_t cap, live;
    int shift;  /* 64 - log2(cap) */
    int64_t lo; /* the oldest open window's start; INT64_MAX: none */
} pw_table;

static size_t pw_index(int64_t key, int64_t start, int shift)
{
    uint64_t h = (uint64_t)key * UINT64_C(0x9E3779B97F4A7C15) ^
                 (uint64_t)start * UINT64_C(0xC2B2AE3D27D4EB4F);
    h ^= h >> 29;
    return (size_t)((h * UINT64_C(0xBF58476D1CE4E5B9)) >> shift);
}

static int pw_init(pw_table *t, size_t cap)
{
    *t = (pw_table){.cap = cap, .shift = 64 - __builtin_ctzll(cap), .lo = INT64_MAX};
    t->slots = calloc(cap, sizeof *t->slots);
    t->spare = calloc(cap, sizeof *t->spare);
    return t->slots && t->spare ? 0 : -1;
}

static void pw_free(pw_table *t)
{
    free(t->slots);
    free(t->spare);
}

/* Puts a slot that is not in `slots` yet into it. */
static void pw_put(pw_slot *slots, size_t mask, int shift, const pw_slot *s)
{
    size_t i = pw_index(s->key, s->start, shift);
    while (slots[i].count != 0)
        i = (i + 1) & mask;
    slots[i] = *s;
}

static int pw_grow(pw_table *t)
{
    size_t cap = t->cap * 2;
    pw_slot *slots = calloc(cap, sizeof *slots), *spare = calloc(cap, sizeof *spare);
    if (!slots || !spare) {
        free(slots);
        free(spare);
        return -1;
    }
    int shift = t->shift - 1;
    for (size_t i = 0; i < t->cap; i++) {
        if (t->slots[i].count != 0)
            pw_put(slots, cap - 1, shift, &t->slots[i]);
    }
    free(t->slots);
    free(t->spare);
    t->slots = slots;
    t->spare = spare;
    t->cap = cap;
    t->shift = shift;
    return 0;
}

/* The slot of (key, start), made empty-handed (count 0, acc zero-filled as
 * the engine's new accumulator) if absent; NULL on out-of-memory. */
static pw_slot *pw_find(pw_table *t, int64_t key, int64_t start)
{
    size_t mask = t->cap - 1;
    size_t i = pw_index(key, start, t->shift);
    for (;; i = (i + 1) & mask) {
        pw_slot *s = &t->slots[i];
        if (s->count == 0)
            break;
        if (s->key == key && s->start == start)
            return s;
    }
    if ((t->live + 1) * 2 > t->cap) {
        if (pw_grow(t) < 0)
            return NULL;
        return pw_find(t, key, start);
    }
    t->live++;
    if (start < t->lo)
        t->lo = start;
    pw_slot *s = &t->slots[i];
    *s = (pw_slot){.key = key, .start = start};
    return s;
}

/* Emits every window whose max is <= wm, through the aggregate's result
 * and the sink, and keeps the rest. */
static int pw_fire(pw_table *t, int64_t wm, const bench_work *w, bench_wacc *acc)
{
    size_t mask = t->cap - 1;
    int64_t lo = INT64_MAX;
    memset(t->spare, 0, t->cap * sizeof *t->spare);
    for (size_t i = 0; i < t->cap; i++) {
        const pw_slot *s = &t->slots[i];
        if (s->count == 0)
            continue;
        if (s->start + (TUMBLE_MS - 1) > wm) {
            pw_put(t->spare, mask, t->shift, s);
            if (s->start < lo)
                lo = s->start;
            continue;
        }
        weir_window_info info = {
            .start = s->start,
            .end = s->start + TUMBLE_MS,
            .max_timestamp = s->start + TUMBLE_MS - 1,
            .watermark = wm,
            .key = &s->key,
            .key_size = sizeof s->key,
            .count = s->count,
        };
        bench_elem out;
        w->count_result(&s->acc, &info, &out, NULL);
        int r = w->sink_window(&out, info.max_timestamp, 0, acc);
        if (r < 0)
            return r;
        t->live--;
    }
    pw_slot *x = t->slots;
    t->slots = t->spare;
    t->spare = x;
    t->lo = lo;
    return 0;
}

static int run_plain(const bench_scenario *sc, const bench_params *p, bench_result *out,
                     char *err, size_t errsize)
{
    (void)sc;
    const bench_work *w = bench_work_get();
    bench_wacc *acc = bench_wacc_create(1);
    pw_table t = {0};
    if (!acc || pw_init(&t, 1u << 16) < 0) {
        snprintf(err, errsize, "out of memory");
        free(acc);
        pw_free(&t);
        return -1;
    }
    int64_t maxts = INT64_MIN + BOUND_MS + 1; /* the watermark starts at MIN */
    int64_t wm = INT64_MIN, late = 0;
    int r = 0;
    bench_elem e;
    bench_timer tm;
    bench_timer_start(&tm);
    for (int64_t s = 0; s < p->records; s++) {
        int64_t ts = w->gen_event(s, &e);
        int64_t key;
        w->key(&e, &key, NULL);
        int64_t m = ts % TUMBLE_MS;
        int64_t start = ts - (m < 0 ? m + TUMBLE_MS : m);
        if (start + (TUMBLE_MS - 1) <= wm) {
            late++; /* dropped, as the engine drops late elements */
            continue;
        }
        pw_slot *slot = pw_find(&t, key, start);
        if (!slot) {
            r = WEIR_ENOMEM;
            break;
        }
        slot->count++;
        w->count_add(&slot->acc, &e, NULL);
        if (ts > maxts)
            maxts = ts;
        wm = maxts - BOUND_MS - 1;
        if (wm - (TUMBLE_MS - 1) >= t.lo && (r = pw_fire(&t, wm, w, acc)) < 0)
            break;
    }
    if (r == 0)
        r = pw_fire(&t, INT64_MAX, w, acc); /* end of input: the watermark is MAX */
    bench_timer_stop(&tm, out);
    out->workers = 0;
    pw_free(&t);
    if (r < 0) {
        snprintf(err, errsize, "plain-window failed: %s", weir_strerror(r));
        free(acc);
        return -1;
    }
    if (late > 0) {
        snprintf(err, errsize, "%" PRId64 " records were late: the input's disorder is not bounded",
                 late);
        free(acc);
        return -1;
    }
    r = bench_verify_windows(acc, 1, p->records, BENCH_WINDOW_TUMBLING, err, errsize);
    free(acc);
    return r;
}

/* ---- the engine ----------------------------------------------------------- */

weir_stream *bench_window_stages(weir_stream *events, int kind)
{
    const bench_work *w = bench_work_get();
    weir_window_spec spec = {
        .aggregate = {.acc_size = sizeof(int64_t),
                      .add = w->count_add,
                      .merge = w->count_merge,
                      .result = w->count_result},
        .out_size = sizeof(bench_elem),
    };
    if (kind == BENCH_WINDOW_TUMBLING)
        spec.assigner = weir_window_tumbling(TUMBLE_MS, 0);
    else if (kind == BENCH_WINDOW_SLIDING)
        spec.assigner = weir_window_sliding(SLIDE_SIZE_MS, SLIDE_MS, 0);
    else
        spec.assigner = weir_window_session(SESSION_GAP_MS);
    weir_timestamps_spec ts = {.strategy = weir_watermarks_bounded(BOUND_MS)};
    ts.strategy.interval_ms = PROBE_MS;
    /* Builder calls pass NULL along after an error; weir_job_run reports it. */
    weir_stream *s = weir_stream_assign_timestamps(events, &ts);
    return weir_stream_window(weir_stream_key_by(s, bench_key_spec()), &spec);
}

/* Builds the window pipeline into `job`, times the run, checks the results
 * and reads the job's checkpoint statistics (none without checkpoints);
 * destroys the job. */
static int time_window_job(weir_job *job, int kind, const bench_params *p, bench_result *out,
                           char *err, size_t errsize)
{
    const bench_work *w = bench_work_get();
    bench_wacc *acc = bench_wacc_create(p->parallelism);
    if (!acc) {
        weir_job_destroy(job);
        snprintf(err, errsize, "out of memory");
        return -1;
    }
    weir_stream *s = bench_window_stages(bench_source_events(job, p->records), kind);
    weir_sink_callback(s, w->sink_window, acc);
    int r = bench_job_time(job, out, err, errsize);
    if (r == 0)
        r = bench_verify_windows(acc, p->parallelism, p->records, kind, err, errsize);
    weir_checkpoint_stats st;
    if (r == 0 && weir_job_checkpoint_stats(job, &st) == 0 && st.completed > 0) {
        /* the job's final checkpoint is not one of the periodic ones */
        out->checkpoints = st.completed - 1;
        out->chk_max_align_ms = st.max_alignment_ms;
        out->chk_bytes = st.max_bytes; /* the last (final) one holds little */
    }
    weir_job_destroy(job);
    free(acc);
    return r;
}

int bench_run_window(int kind, weir_diag_level diag_level, const bench_params *p,
                     bench_result *out, char *err, size_t errsize)
{
    bench_diag diag;
    if (diag_level && bench_diag_init(&diag, diag_level, err, errsize) < 0)
        return -1;
    weir_job *job = bench_job_create(p, 0, diag_level ? &diag.cfg : NULL, err, errsize);
    if (!job)
        return -1;
    int r = time_window_job(job, kind, p, out, err, errsize);
    if (diag_level) {
        char derr[256];
        if (bench_diag_finish(&diag, out, derr, sizeof derr) < 0 && r == 0) {
            snprintf(err, errsize, "%s", derr);
            r = -1;
        }
    }
    return r;
}

static int run_window(const bench_scenario *sc, const bench_params *p, bench_result *out,
                      char *err, size_t errsize)
{
    return bench_run_window((int)sc->arg, 0, p, out, err, errsize);
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    return remove(path);
}

int bench_run_window_checkpointed(int kind, int64_t interval_ms, const bench_params *p,
                                  bench_result *out, char *err, size_t errsize)
{
    const char *tmp = getenv("TMPDIR");
    char dir[512];
    snprintf(dir, sizeof dir, "%s/weir-bench-chk-%ld", tmp && *tmp ? tmp : "/tmp",
             (long)getpid());
    weir_job_config cfg = {.workers = p->workers,
                           .parallelism = p->parallelism,
                           .batch_capacity = p->batch,
                           .diag = {.level = WEIR_DIAG_OFF},
                           .checkpoint = {.interval_ms = interval_ms, .dir = dir}};
    weir_job *job = NULL;
    int r = weir_job_create(&cfg, &job);
    if (r < 0) {
        snprintf(err, errsize, "weir_job_create: %s", weir_strerror(r));
        return -1;
    }
    r = time_window_job(job, kind, p, out, err, errsize);
    nftw(dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
    return r;
}

static int run_checkpointed(const bench_scenario *sc, const bench_params *p, bench_result *out,
                            char *err, size_t errsize)
{
    return bench_run_window_checkpointed(BENCH_WINDOW_TUMBLING, sc->arg, p, out, err, errsize);
}

const bench_scenario bench_scenarios_window[] = {
    {
        .name = "plain-window",
        .what = "baseline: count per key and 1 s tumbling window as a plain C loop, no runtime",
        .flags = BENCH_PLAIN,
        .parallelism = 1,
        .records = 50000000,
        .quick_records = 10000000,
        .arg = BENCH_WINDOW_TUMBLING,
        .run = run_plain,
    },
    {
        .name = "window-tumbling",
        .what = "events -> timestamps (bounded 100 ms) -> key_by -> tumbling 1 s count -> sink",
        .baseline = "plain-window",
        .records = 20000000,
        .quick_records = 4000000,
        .arg = BENCH_WINDOW_TUMBLING,
        .run = run_window,
        .targets = {{BENCH_TARGET_RATIO, 0.35, 1, "window-tumbling >= 35% of plain-window at p=1"},
                    {BENCH_TARGET_SCALE, 1.6, 2, "window-tumbling p=2 >= 1.6 x p=1"}},
    },
    {
        .name = "checkpoint",
        .what = "window-tumbling with a checkpoint every second (exactly-once, into $TMPDIR)",
        .baseline = "window-tumbling",
        .records = 60000000,
        .quick_records = 12000000,
        .arg = 1000,
        .run = run_checkpointed,
        .targets = {{BENCH_TARGET_RATIO, 0.9, 0, "checkpoint >= 90% of window-tumbling"}},
    },
    {
        .name = "window-sliding",
        .what = "the same with sliding windows, 60 s every 1 s",
        .baseline = "window-tumbling",
        .records = 20000000,
        .quick_records = 4000000,
        .arg = BENCH_WINDOW_SLIDING,
        .run = run_window,
        .targets = {{BENCH_TARGET_RATIO, 0.5, 0, "window-sliding >= 50% of window-tumbling"}},
    },
    {
        .name = "window-session",
        .what = "the same with session windows, gap 1 s",
        .baseline = "window-tumbling",
        .records = 20000000,
        .quick_records = 4000000,
        .arg = BENCH_WINDOW_SESSION,
        .run = run_window,
    },
};

const size_t bench_nscenarios_window =
    sizeof bench_scenarios_window / sizeof bench_scenarios_window[0];
