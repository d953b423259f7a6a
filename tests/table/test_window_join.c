/* test_window_join.c — the window join (table/table_window_join.c, Flink's
 * WindowJoinOperator) in the table API and the DataStream API.
 *
 * A harness (weir/harness.h) drives the window join's own operator with the
 * window TVFs' rows of both sides in an order the test chooses: the exact
 * output, when windows fire, which rows are late. The differential test
 * feeds random rows of both sides (their windows assigned by the test, as a
 * window TVF does) in a random interleaving with random watermarks, and
 * checks the output against a brute-force computation here: per window,
 * every pair of rows that arrived before the window fired, with equal
 * non-NULL keys and meeting the rest of ON, plus the padded rows of the
 * outer sides; for SEMI and ANTI each left row that met a right row of its
 * window / met none, once. The DataStream window join (weir_stream_window_join, join and
 * coGroup) runs as a job and is checked the same way.
 */
#include "table/table_testutil.h"
#include "table_internal.h"
#include "weir/harness.h"
#include "weir/window.h"

static const char *const COLS = "id BIGINT NOT NULL, k BIGINT, v BIGINT NOT NULL, "
                                "ts TIMESTAMP(3) NOT NULL";
enum { C_ID = 0, C_K, C_V, C_TS, C_WS, C_WE, C_WT, NCOLS_IN = 7 };

typedef struct wh {
    weir_job *job;
    weir_table_env *env;
    weir_schema *s[2];
    const weir_schema *in[2]; /* the TVFs' */
    weir_table *t;
    weir_harness *h;
    char out[16384];
    size_t len;
    int dropped;
    /* the differential test's output: "lid/rid@end" lines */
    char (*got)[80];
    size_t ngot, cap;
    bool canonical;
} wh;

static void wh_append(wh *j, const char *line)
{
    size_t n = strlen(line);
    cr_assert(j->len + n + 2 < sizeof j->out, "output too long");
    memcpy(j->out + j->len, line, n);
    j->len += n;
    j->out[j->len++] = '\n';
    j->out[j->len] = 0;
}

static void side_id(const weir_schema *s, const void *row, int first, char *buf, size_t size)
{
    if (weir_row_is_null(s, row, first + C_ID))
        snprintf(buf, size, "-");
    else
        snprintf(buf, size, "%lld", (long long)weir_row_get_int(s, row, first + C_ID));
}

static void on_record(int tag, const void *elem, int64_t ts, void *arg)
{
    (void)tag;
    wh *j = arg;
    const weir_schema *os = weir_table_schema(j->t);
    if (j->canonical) {
        char l[24], r[24] = "*"; /* a semi or anti join's rows: the left's columns alone */
        side_id(os, elem, 0, l, sizeof l);
        if (weir_schema_ncolumns(os) > NCOLS_IN)
            side_id(os, elem, NCOLS_IN, r, sizeof r);
        if (j->ngot == j->cap) {
            j->cap = j->cap ? 2 * j->cap : 1024;
            j->got = realloc(j->got, j->cap * sizeof *j->got);
        }
        snprintf(j->got[j->ngot++], sizeof *j->got, "%s/%s@%lld", l, r, (long long)(ts + 1));
        return;
    }
    char line[600];
    weir_row_format(os, elem, line, sizeof line);
    char stamped[700];
    snprintf(stamped, sizeof stamped, "%s @%lld", line, (long long)ts);
    wh_append(j, stamped);
}

static void on_watermark(int64_t wm, void *arg)
{
    wh *j = arg;
    if (j->canonical || wm == INT64_MAX)
        return;
    char line[64];
    snprintf(line, sizeof line, "WM %lld", (long long)wm);
    wh_append(j, line);
}

static void on_dropped(const void *elem, int64_t ts, void *arg)
{
    (void)elem;
    (void)ts;
    ((wh *)arg)->dropped++;
}

/* Two tables of COLS through the window TVF w, joined by `kind` ON the
 * windows, k and `extra` (may be NULL); the join's operator in a harness. */
static wh *wh_new(const weir_table_window *w, weir_join_kind kind, const char *extra)
{
    wh *j = calloc(1, sizeof *j);
    j->job = tu_job(&(weir_job_config){.workers = 1, .clock = WEIR_CLOCK_VIRTUAL,
                                        .parallelism = 1});
    cr_assert_eq(weir_table_env_create(j->job, NULL, &j->env), 0);
    weir_table *in[2];
    for (int s = 0; s < 2; s++) {
        j->s[s] = tt_schema_wm(s ? "r" : "l", COLS, NULL, "ts", "SOURCE_WATERMARK()");
        weir_stream *st = weir_source_array(j->job, NULL, 0, weir_schema_row_size(j->s[s]), NULL);
        in[s] = weir_table_window_tvf(weir_table_from_stream(j->env, st, j->s[s]), w);
        cr_assert(in[s], "%s", weir_job_error(j->job));
        j->in[s] = weir_table_schema(in[s]);
    }
    char cond[512];
    snprintf(cond, sizeof cond, "l.window_start = r.window_start AND l.k = r.k AND "
             "l.window_end = r.window_end%s%s", extra ? " AND " : "", extra ? extra : "");
    j->t = weir_table_join(in[0], in[1], kind, cond);
    cr_assert(j->t, "%s", weir_job_error(j->job));
    weir_process_spec spec;
    weir_key_spec keys[2];
    cr_assert_eq(weir__window_join_operator(j->t, &spec, keys), 0, "%s is not a window join",
                 weir_table_node_name(j->t));
    weir_harness_config hc = {
        .op = &spec,
        .inputs = 2,
        .in_size = {weir_schema_row_size(j->in[0]), weir_schema_row_size(j->in[1])},
        .key = {&keys[0], &keys[1]},
        .watermark_interval_ms = WEIR_DISABLED,
        .output = {.on_record = on_record, .on_watermark = on_watermark,
                   .on_dropped = on_dropped, .arg = j},
    };
    char err[256];
    cr_assert_eq(weir_harness_create(&hc, &j->h, err, sizeof err), 0, "%s", err);
    return j;
}

static void wh_free(wh *j)
{
    weir_harness_destroy(j->h);
    weir_job_destroy(j->job);
    weir_table_env_destroy(j->env);
    weir_schema_destroy(j->s[0]);
    weir_schema_destroy(j->s[1]);
    free(j->got);
    free(j);
}

/* A TVF row into input s: id, key (-1: NULL), v, ts and its window. */
static void wh_row(wh *j, int s, int64_t id, int64_t k, int64_t v, int64_t ts, int64_t ws,
                   int64_t we)
{
    char text[256];
    char key[24] = "null";
    if (k >= 0)
        snprintf(key, sizeof key, "%lld", (long long)k);
    snprintf(text, sizeof text, "+I %lld|%s|%lld|%lld|%lld|%lld|%lld", (long long)id, key,
             (long long)v, (long long)ts, (long long)ws, (long long)we, (long long)(we - 1));
    tt_harness_row(j->h, s, j->in[s], text, we - 1);
}

static void wh_wm(wh *j, int s, int64_t wm)
{
    tt_harness_wm(j->h, s, wm);
}

static void wh_expect(wh *j, const char *want)
{
    cr_assert_str_eq(j->out, want, "got:\n%s\nwant:\n%s", j->out, want);
    j->len = 0;
    j->out[0] = 0;
}

/* ---- exact output ----------------------------------------------------------------------- */

Test(window_join, left_join_fires_at_window_end_and_drops_late_rows, .timeout = 30)
{
    weir_table_window w = {.kind = WEIR_TABLE_TUMBLE, .size_ms = 10};
    wh *j = wh_new(&w, WEIR_JOIN_LEFT, NULL);
    cr_assert(strncmp(weir_table_node_name(j->t), "WindowJoin(leftWindow=[TUMBLE(win_start=["
                      "window_start], win_end=[window_end], size=[10 ms])], rightWindow=", 90) ==
                  0, "%s", weir_table_node_name(j->t));
    cr_assert_eq(weir_table_changelog_mode(j->t), WEIR_CHANGELOG_INSERT_ONLY);
    cr_assert_eq(weir_table_rowtime(j->t), C_WT);
    wh_row(j, 0, 1, 7, 0, 2, 0, 10);
    wh_row(j, 1, 2, 7, 0, 5, 0, 10);
    wh_row(j, 0, 3, 8, 0, 6, 0, 10);   /* no partner: padded */
    wh_row(j, 0, 4, -1, 0, 7, 0, 10);  /* a NULL key meets nothing */
    wh_row(j, 1, 5, -1, 0, 8, 0, 10);
    wh_row(j, 0, 6, 7, 0, 12, 10, 20); /* the next window */
    wh_wm(j, 0, 9);
    wh_expect(j, "");                  /* the right input holds it back */
    wh_wm(j, 1, 8);
    wh_expect(j, "WM 8\n");            /* 9 = end - 1 not reached */
    wh_wm(j, 1, 9);
    wh_expect(j, "+I[1, 7, 0, 1970-01-01 00:00:00.002, 1970-01-01 00:00:00.000, "
                 "1970-01-01 00:00:00.010, 1970-01-01 00:00:00.009, 2, 7, 0, "
                 "1970-01-01 00:00:00.005, 1970-01-01 00:00:00.000, 1970-01-01 00:00:00.010, "
                 "1970-01-01 00:00:00.009] @9\n"
                 "+I[3, 8, 0, 1970-01-01 00:00:00.006, 1970-01-01 00:00:00.000, "
                 "1970-01-01 00:00:00.010, 1970-01-01 00:00:00.009, null, null, null, null, "
                 "null, null, null] @9\n"
                 "+I[4, null, 0, 1970-01-01 00:00:00.007, 1970-01-01 00:00:00.000, "
                 "1970-01-01 00:00:00.010, 1970-01-01 00:00:00.009, null, null, null, null, "
                 "null, null, null] @9\n"
                 "WM 9\n");
    /* the window [0, 10) fired: its rows are late, dropped and counted */
    wh_row(j, 1, 7, 7, 0, 3, 0, 10);
    wh_row(j, 0, 8, 7, 0, 4, 0, 10);
    cr_assert_eq(j->dropped, 2);
    wh_expect(j, "");
    wh_row(j, 1, 9, 7, 0, 15, 10, 20);
    cr_assert_eq(weir_harness_end(j->h), 0);
    wh_expect(j, "+I[6, 7, 0, 1970-01-01 00:00:00.012, 1970-01-01 00:00:00.010, "
                 "1970-01-01 00:00:00.020, 1970-01-01 00:00:00.019, 9, 7, 0, "
                 "1970-01-01 00:00:00.015, 1970-01-01 00:00:00.010, 1970-01-01 00:00:00.020, "
                 "1970-01-01 00:00:00.019] @19\n");
    wh_free(j);
}

static weir_job *job;
static weir_table_env *env;

static void done(void)
{
    weir_job_destroy(job);
    weir_table_env_destroy(env);
}

static weir_table *try_join(const weir_table_window *lw, const weir_table_window *rw,
                            const char *cond)
{
    job = tu_job(&(weir_job_config){.workers = 1, .parallelism = 1});
    cr_assert_eq(weir_table_env_create(job, NULL, &env), 0);
    weir_table *in[2];
    for (int s = 0; s < 2; s++) {
        weir_schema *sc = tt_schema_wm(s ? "r" : "l", COLS, NULL, "ts", "SOURCE_WATERMARK()");
        weir_stream *st = weir_source_array(job, NULL, 0, weir_schema_row_size(sc), NULL);
        in[s] = weir_table_window_tvf(weir_table_from_stream(env, st, sc), s ? rw : lw);
        weir_schema_destroy(sc);
    }
    return weir_table_join(in[0], in[1], WEIR_JOIN_INNER, cond);
}

Test(window_join, planned_as_flink_plans_it, .timeout = 30)
{
    weir_table_window tum = {.kind = WEIR_TABLE_TUMBLE, .size_ms = 60000};
    weir_table_window hop = {.kind = WEIR_TABLE_HOP, .slide_ms = 30000, .size_ms = 60000};
    /* different windows: Flink's message */
    cr_assert_null(try_join(&tum, &hop, "l.k = r.k AND l.window_start = r.window_start AND "
                            "l.window_end = r.window_end"));
    cr_assert(strstr(weir_job_error(job), "Currently, window join doesn't support different "
                     "window table function of left and right inputs. The left window table "
                     "function is TUMBLE(size=[1 min]). The right window table function is "
                     "HOP(size=[1 min], slide=[30 s])."), "%s", weir_job_error(job));
    done();
    /* the window ends alone: refused */
    cr_assert_null(try_join(&tum, &tum, "l.k = r.k AND l.window_end = r.window_end"));
    cr_assert(strstr(weir_job_error(job), "window join requires JOIN ON condition must contain "
                     "both window starts equality"), "%s", weir_job_error(job));
    done();
    /* no window equality: a regular join of the TVFs' rows */
    weir_table *t = try_join(&tum, &tum, "l.k = r.k");
    cr_assert(t, "%s", weir_job_error(job));
    cr_assert(strncmp(weir_table_node_name(t), "Join(", 5) == 0, "%s", weir_table_node_name(t));
    done();
    /* the window and nothing else: one key, every pair of a window */
    t = try_join(&hop, &hop, "l.window_start = r.window_start AND l.window_end = r.window_end");
    cr_assert(t, "%s", weir_job_error(job));
    cr_assert(strncmp(weir_table_node_name(t), "WindowJoin(leftWindow=[HOP(win_start=["
                      "window_start], win_end=[window_end], size=[1 min], slide=[30 s])]", 80) ==
                  0, "%s", weir_table_node_name(t));
    done();
}

/* ---- the differential test ---------------------------------------------------------------- */

static uint64_t rng_state;

typedef struct wrow {
    int side;
    int64_t id, k, v, ts, ws, we;
    bool late;
} wrow;

static int64_t fmod64(int64_t a, int64_t b)
{
    int64_t m = a % b;
    return m < 0 ? m + b : m;
}

/* The windows of time t, as a window TVF assigns them: starts and ends. */
static int windows_of(const weir_table_window *w, int64_t t, int64_t *ws, int64_t *we)
{
    int n = 0;
    if (w->kind == WEIR_TABLE_TUMBLE) {
        ws[0] = t - fmod64(t, w->size_ms);
        we[0] = ws[0] + w->size_ms;
        return 1;
    }
    if (w->kind == WEIR_TABLE_HOP) {
        for (int64_t s = t - fmod64(t, w->slide_ms); s > t - w->size_ms; s -= w->slide_ms) {
            ws[n] = s;
            we[n++] = s + w->size_ms;
        }
        return n;
    }
    int64_t p = t - fmod64(t, w->size_ms);
    for (int64_t e = p + w->step_ms; e <= p + w->size_ms; e += w->step_ms)
        if (e > t) {
            ws[n] = p;
            we[n++] = e;
        }
    return n;
}

static int cmp_line(const void *a, const void *b)
{
    return strcmp(a, b);
}

static void differential(const weir_table_window *w, weir_join_kind kind, uint64_t seed)
{
    rng_state = seed;
    enum { N = 100, MAXW = 8 };
    wh *j = wh_new(w, kind, "l.v + r.v < 12");
    j->canonical = true;
    static wrow rows[2 * N * MAXW];
    int nrows = 0;
    int64_t wm[2] = {INT64_MIN, INT64_MIN};
    int64_t t[2] = {0, 0};
    int next_id[2] = {0, 0};
    while (next_id[0] < N || next_id[1] < N) {
        int s = (int)(tt_rnd(&rng_state) % 2);
        if (next_id[s] == N)
            s = 1 - s;
        if (tt_rnd(&rng_state) % 5 == 0) {
            /* a watermark somewhat behind the side's time: some rows come late */
            int64_t m = t[s] - (int64_t)(tt_rnd(&rng_state) % 5);
            if (m > wm[s]) {
                wm[s] = m;
                wh_wm(j, s, m);
            }
            continue;
        }
        t[s] += (int64_t)(tt_rnd(&rng_state) % 4);
        int64_t ts = t[s] - (int64_t)(tt_rnd(&rng_state) % 25); /* out of order */
        int64_t k = tt_rnd(&rng_state) % 8 == 0 ? -1 : (int64_t)(tt_rnd(&rng_state) % 4);
        int64_t v = (int64_t)(tt_rnd(&rng_state) % 10);
        int64_t id = s * 1000 + next_id[s]++;
        int64_t ws[MAXW], we[MAXW];
        int nw = windows_of(w, ts, ws, we);
        cr_assert(nw <= MAXW);
        int64_t now = wm[0] < wm[1] ? wm[0] : wm[1];
        for (int i = 0; i < nw; i++) {
            rows[nrows] = (wrow){s, id, k, v, ts, ws[i], we[i], we[i] - 1 <= now};
            wh_row(j, s, id, k, v, ts, ws[i], we[i]);
            nrows++;
        }
    }
    cr_assert_eq(weir_harness_end(j->h), 0);
    /* the brute force: per window, the rows not late */
    int late = 0;
    char (*want)[80] = malloc((size_t)(nrows * nrows + nrows + 1) * sizeof *want);
    size_t nwant = 0;
    bool louter = kind == WEIR_JOIN_LEFT || kind == WEIR_JOIN_FULL;
    bool router = kind == WEIR_JOIN_RIGHT || kind == WEIR_JOIN_FULL;
    bool semi = kind == WEIR_JOIN_SEMI || kind == WEIR_JOIN_ANTI;
    for (int a = 0; a < nrows; a++) {
        const wrow *x = &rows[a];
        if (x->late) {
            late++;
            continue;
        }
        bool met = false;
        for (int b = 0; b < nrows; b++) {
            const wrow *y = &rows[b];
            if (y->late || y->side == x->side || y->we != x->we || y->ws != x->ws)
                continue;
            if (x->k < 0 || y->k < 0 || x->k != y->k || x->v + y->v >= 12)
                continue;
            met = true;
            if (x->side == 0 && !semi)
                snprintf(want[nwant++], sizeof *want, "%lld/%lld@%lld", (long long)x->id,
                         (long long)y->id, (long long)x->we);
        }
        /* SEMI: a left row once if it met a right row of its window; ANTI:
         * if it met none */
        if (semi && x->side == 0 && met == (kind == WEIR_JOIN_SEMI))
            snprintf(want[nwant++], sizeof *want, "%lld/*@%lld", (long long)x->id,
                     (long long)x->we);
        if (!semi && !met && (x->side == 0 ? louter : router))
            snprintf(want[nwant++], sizeof *want, x->side == 0 ? "%lld/-@%lld" : "-/%lld@%lld",
                     (long long)x->id, (long long)x->we);
    }
    cr_assert_eq(j->dropped, late, "dropped %d rows, %d were late", j->dropped, late);
    qsort(j->got, j->ngot, sizeof *j->got, cmp_line);
    qsort(want, nwant, sizeof *want, cmp_line);
    cr_assert_eq(j->ngot, nwant, "seed %llu: %zu rows out, %zu expected",
                 (unsigned long long)seed, j->ngot, nwant);
    for (size_t i = 0; i < nwant; i++)
        cr_assert_str_eq(j->got[i], want[i], "seed %llu: row %zu", (unsigned long long)seed, i);
    cr_assert(nwant > 10, "too few rows to say anything (%zu)", nwant);
    cr_assert(late > 0 && late < nrows / 2, "seed %llu: %d of %d rows late",
              (unsigned long long)seed, late, nrows);
    free(want);
    wh_free(j);
}

Test(window_join, differential_tumble, .timeout = 120)
{
    weir_table_window w = {.kind = WEIR_TABLE_TUMBLE, .size_ms = 10};
    for (uint64_t seed = 1; seed <= 6; seed++)
        for (int k = WEIR_JOIN_INNER; k <= WEIR_JOIN_ANTI; k++)
            differential(&w, (weir_join_kind)k, seed * 7919 + (uint64_t)k);
}

Test(window_join, differential_hop, .timeout = 120)
{
    weir_table_window w = {.kind = WEIR_TABLE_HOP, .slide_ms = 4, .size_ms = 12};
    for (uint64_t seed = 1; seed <= 6; seed++)
        for (int k = WEIR_JOIN_INNER; k <= WEIR_JOIN_ANTI; k++)
            differential(&w, (weir_join_kind)k, seed * 104729 + (uint64_t)k);
}

Test(window_join, differential_cumulate, .timeout = 120)
{
    weir_table_window w = {.kind = WEIR_TABLE_CUMULATE, .step_ms = 5, .size_ms = 20};
    for (uint64_t seed = 1; seed <= 6; seed++)
        for (int k = WEIR_JOIN_INNER; k <= WEIR_JOIN_ANTI; k++)
            differential(&w, (weir_join_kind)k, seed * 15485863 + (uint64_t)k);
}

/* ---- the DataStream window join ------------------------------------------------------------ */

typedef struct ev {
    int64_t key, ts, id;
} ev;

typedef struct pair_out {
    int64_t a, b, c, d; /* join: left id, right id, window start, end; cogroup: key, counts */
} pair_out;

static void ev_key(const void *elem, void *key, void *arg)
{
    (void)arg;
    memcpy(key, &((const ev *)elem)->key, 8);
}

static int pair_fn(weir_ctx *ctx, const void *l, const void *r, int64_t start, int64_t end,
                   void *arg)
{
    (void)arg;
    pair_out o = {((const ev *)l)->id, ((const ev *)r)->id, start, end};
    return weir_emit(ctx, &o, end - 1);
}

static int cogroup_fn(weir_ctx *ctx, const void *l, size_t nl, const void *r, size_t nr,
                      int64_t start, int64_t end, void *arg)
{
    (void)arg;
    const ev *any = nl ? l : r;
    pair_out o = {any->key * 1000000 + start, (int64_t)nl, (int64_t)nr, end};
    return weir_emit(ctx, &o, end - 1);
}

static int cmp_pair(const void *x, const void *y)
{
    return memcmp(x, y, sizeof(pair_out)) ? (memcmp(x, y, sizeof(pair_out)) < 0 ? -1 : 1) : 0;
}

static void stream_join(const weir_window_assigner *w, bool cogroup)
{
    rng_state = 1234;
    enum { N = 300 };
    static ev side[2][N];
    static int64_t tss[2][N];
    for (int s = 0; s < 2; s++) {
        int64_t t = 1000;
        for (int i = 0; i < N; i++) {
            t += (int64_t)(tt_rnd(&rng_state) % 5);
            side[s][i] = (ev){.key = (int64_t)(tt_rnd(&rng_state) % 5), .ts = t,
                              .id = s * 10000 + i};
            tss[s][i] = t;
        }
    }
    weir_job *jb = tu_job(&(weir_job_config){.workers = 2, .parallelism = 2});
    weir_key_spec ks = {.key_size = 8, .extract = ev_key};
    weir_stream *in[2];
    for (int s = 0; s < 2; s++) {
        weir_stream *src = weir_source_array(jb, side[s], N, sizeof(ev), tss[s]);
        weir_timestamps_spec ts = {.strategy = weir_watermarks_bounded(0)};
        in[s] = weir_stream_key_by(weir_stream_assign_timestamps(src, &ts), &ks);
    }
    weir_window_join_spec spec = {.window = *w, .out_size = sizeof(pair_out)};
    if (cogroup)
        spec.cogroup = cogroup_fn;
    else
        spec.fn = pair_fn;
    weir_stream *j = weir_stream_window_join(in[0], in[1], &spec);
    cr_assert(j, "%s", weir_job_error(jb));
    weir_collect *c;
    cr_assert(weir_sink_collect(j, &c));
    tu_run_ok(jb);
    size_t n = weir_collect_count(c);
    pair_out *got = malloc((n + 1) * sizeof *got);
    for (size_t i = 0; i < n; i++) {
        memcpy(&got[i], weir_collect_elem(c, i), sizeof *got);
        cr_assert_eq(weir_collect_timestamp(c, i), got[i].d - 1);
    }
    qsort(got, n, sizeof *got, cmp_pair);
    /* the brute force: every window of every element, as the test assigns them */
    weir_table_window tw = {.kind = w->kind == WEIR_WINDOW_TUMBLING ? WEIR_TABLE_TUMBLE
                                    : WEIR_TABLE_HOP,
                            .size_ms = w->size_ms, .slide_ms = w->slide_ms};
    pair_out *want = malloc((size_t)N * N * 8 * sizeof *want);
    size_t m = 0;
    for (int64_t key = 0; key < 5; key++) {
        /* the windows a key's elements open, and what each side has in them */
        for (int a = 0; a < N; a++) {
            int64_t ws[8], we[8];
            int nw = windows_of(&tw, side[0][a].ts, ws, we);
            for (int i = 0; i < nw && side[0][a].key == key; i++)
                for (int b = 0; !cogroup && b < N; b++) {
                    const ev *r = &side[1][b];
                    if (r->key == key && r->ts >= ws[i] && r->ts < we[i])
                        want[m++] = (pair_out){side[0][a].id, r->id, ws[i], we[i]};
                }
        }
        if (!cogroup)
            continue;
        /* coGroup: each (key, window) holding elements of either side once */
        for (int64_t start = 900; start < 3000; start += tw.kind == WEIR_TABLE_TUMBLE
                                                            ? tw.size_ms : tw.slide_ms) {
            int64_t end = start + tw.size_ms;
            int64_t cnt[2] = {0, 0};
            for (int s = 0; s < 2; s++)
                for (int i = 0; i < N; i++)
                    cnt[s] += side[s][i].key == key && side[s][i].ts >= start &&
                              side[s][i].ts < end;
            if (cnt[0] + cnt[1])
                want[m++] = (pair_out){key * 1000000 + start, cnt[0], cnt[1], end};
        }
    }
    qsort(want, m, sizeof *want, cmp_pair);
    cr_assert_eq(n, m, "got %zu results, want %zu", n, m);
    for (size_t i = 0; i < m; i++)
        cr_assert(memcmp(&got[i], &want[i], sizeof *got) == 0,
                  "result %zu: got %lld %lld %lld %lld, want %lld %lld %lld %lld", i,
                  (long long)got[i].a, (long long)got[i].b, (long long)got[i].c,
                  (long long)got[i].d, (long long)want[i].a, (long long)want[i].b,
                  (long long)want[i].c, (long long)want[i].d);
    cr_assert(m > 50);
    free(got);
    free(want);
    weir_job_destroy(jb);
}

Test(window_join, datastream_join_tumbling, .timeout = 60)
{
    weir_window_assigner w = weir_window_tumbling(20, 0);
    stream_join(&w, false);
}

Test(window_join, datastream_join_sliding, .timeout = 60)
{
    weir_window_assigner w = weir_window_sliding(30, 10, 0);
    stream_join(&w, false);
}

Test(window_join, datastream_cogroup_sliding, .timeout = 60)
{
    weir_window_assigner w = weir_window_sliding(30, 10, 0);
    stream_join(&w, true);
}

Test(window_join, datastream_refusals, .timeout = 30)
{
    weir_job *jb = tu_job(&(weir_job_config){.workers = 1});
    weir_key_spec ks = {.key_size = 8, .extract = ev_key};
    static ev one[1];
    weir_stream *a = weir_stream_key_by(weir_source_array(jb, one, 1, sizeof(ev), NULL), &ks);
    weir_stream *b = weir_stream_key_by(weir_source_array(jb, one, 1, sizeof(ev), NULL), &ks);
    weir_window_join_spec spec = {.window = weir_window_session(10), .fn = pair_fn,
                                  .out_size = sizeof(pair_out)};
    cr_assert_null(weir_stream_window_join(a, b, &spec));
    cr_assert(strstr(weir_job_error(jb), "tumbling, sliding or cumulative"), "%s",
              weir_job_error(jb));
    weir_job_destroy(jb);
}
