/* test_join.c — the join engine (table/table_join.c): Flink's regular join
 * (StreamingJoinOperator) and event-time interval join (RowTimeIntervalJoin)
 * in the table API.
 *
 * The exact changelogs are checked through a harness (weir/harness.h) that
 * drives the join's own operator with the two inputs in an order the test
 * chooses: a job of two sources interleaves them as it likes. Jobs run the
 * API end to end. The differential tests feed random changelogs (regular
 * joins) and random timed rows (interval joins) of both sides in a random
 * interleaving, and check that the output, materialized, is the final table
 * a nested loop over the same rows computes, for every join kind. The
 * event-time temporal join (table_temporal_join.c) is checked the same
 * ways: exact changelogs in the harness, and random inputs against a
 * brute force; so are the semi and anti joins (table_semi_join.c), NOT
 * IN's keyless condition among them.
 */
#include "table/table_testutil.h"
#include "table_internal.h"
#include "weir/harness.h"

#define ROWLEN 600

/* ---- a join's operator in a harness -------------------------------------------------- */

typedef struct jh {
    weir_job *job;
    weir_table_env *env;
    weir_schema *ls, *rs;
    weir_table *t;
    weir_harness *h;
    char out[16384];
    size_t len;
    /* the materialized table: rows as their text with counts */
    char rows[512][ROWLEN];
    int counts[512];
    int nrows;
    bool materialize;
} jh;

static void jh_append(jh *j, const char *line)
{
    size_t n = strlen(line);
    cr_assert(j->len + n + 2 < sizeof j->out, "output too long");
    memcpy(j->out + j->len, line, n);
    j->len += n;
    j->out[j->len++] = '\n';
    j->out[j->len] = 0;
}

static void jh_materialize(jh *j, const char *line)
{
    const char *row = line + 2;
    int sign = line[0] == '+' ? 1 : -1;
    for (int i = 0; i < j->nrows; i++)
        if (strcmp(j->rows[i], row) == 0) {
            j->counts[i] += sign;
            cr_assert(j->counts[i] >= 0, "retracted a row not in the table: %s", line);
            return;
        }
    cr_assert(sign > 0, "retracted a row never emitted: %s", line);
    cr_assert(j->nrows < 512);
    snprintf(j->rows[j->nrows], sizeof j->rows[0], "%s", row);
    j->counts[j->nrows++] = 1;
}

static void on_record(int tag, const void *elem, int64_t ts, void *arg)
{
    (void)tag;
    (void)ts;
    jh *j = arg;
    char line[ROWLEN - 8];
    weir_row_format(weir_table_schema(j->t), elem, line, sizeof line);
    if (j->materialize)
        jh_materialize(j, line);
    else
        jh_append(j, line);
}

static void on_watermark(int64_t wm, void *arg)
{
    jh *j = arg;
    if (j->materialize || wm == INT64_MAX)
        return;
    char line[64];
    snprintf(line, sizeof line, "WM %lld", (long long)wm);
    jh_append(j, line);
}

static void jh_attach(jh *j);

/* Tables of the two schemas (rowtime "ts" when given), joined. */
static jh *jh_new(const char *lcols, const char *lpk, const char *rcols, const char *rpk,
                  const char *rowtime, unsigned mode, weir_join_kind kind, const char *cond)
{
    jh *j = calloc(1, sizeof *j);
    j->job = tu_job(&(weir_job_config){.workers = 1, .clock = WEIR_CLOCK_VIRTUAL,
                                        .parallelism = 1});
    cr_assert_eq(weir_table_env_create(j->job, NULL, &j->env), 0);
    j->ls = tt_schema_wm("l", lcols, lpk, rowtime, rowtime ? "SOURCE_WATERMARK()" : NULL);
    j->rs = tt_schema_wm("r", rcols, rpk, rowtime, rowtime ? "SOURCE_WATERMARK()" : NULL);
    weir_table *in[2];
    weir_schema *ss[2] = {j->ls, j->rs};
    for (int s = 0; s < 2; s++) {
        weir_stream *st = weir_source_array(j->job, NULL, 0, weir_schema_row_size(ss[s]), NULL);
        in[s] = mode ? weir_table_from_changelog_stream(j->env, st, ss[s], mode)
                     : weir_table_from_stream(j->env, st, ss[s]);
        cr_assert(in[s], "%s", weir_job_error(j->job));
    }
    j->t = weir_table_join(in[0], in[1], kind, cond);
    cr_assert(j->t, "%s", weir_job_error(j->job));
    jh_attach(j);
    return j;
}

/* The harness around j->t's operator. */
static void jh_attach(jh *j)
{
    weir_process_spec spec;
    weir_key_spec keys[2];
    cr_assert_eq(weir__table_join_operator(j->t, &spec, keys), 0);
    weir_harness_config hc = {
        .op = &spec,
        .inputs = 2,
        .in_size = {weir_schema_row_size(j->ls), weir_schema_row_size(j->rs)},
        .key = {&keys[0], &keys[1]},
        .watermark_interval_ms = WEIR_DISABLED,
        .output = {.on_record = on_record, .on_watermark = on_watermark, .arg = j},
    };
    char err[256];
    cr_assert_eq(weir_harness_create(&hc, &j->h, err, sizeof err), 0, "%s", err);
}

/* An event-time temporal join of an insert-only left and a changelog right
 * (a versioned table: rpk its primary key), both with rowtime "ts", FOR
 * SYSTEM_TIME AS OF l.ts. */
static jh *jh_new_temporal(const char *lcols, const char *rcols, const char *rpk,
                           weir_join_kind kind, const char *cond)
{
    jh *j = calloc(1, sizeof *j);
    j->job = tu_job(&(weir_job_config){.workers = 1, .clock = WEIR_CLOCK_VIRTUAL,
                                        .parallelism = 1});
    cr_assert_eq(weir_table_env_create(j->job, NULL, &j->env), 0);
    j->ls = tt_schema_wm("l", lcols, NULL, "ts", "SOURCE_WATERMARK()");
    j->rs = tt_schema_wm("r", rcols, rpk, "ts", "SOURCE_WATERMARK()");
    weir_stream *st[2];
    weir_schema *ss[2] = {j->ls, j->rs};
    for (int s = 0; s < 2; s++)
        st[s] = weir_source_array(j->job, NULL, 0, weir_schema_row_size(ss[s]), NULL);
    weir_table *l = weir_table_from_stream(j->env, st[0], j->ls);
    weir_table *r = weir_table_from_changelog_stream(j->env, st[1], j->rs, WEIR_CHANGELOG_ALL);
    cr_assert(l && r, "%s", weir_job_error(j->job));
    j->t = weir_table_temporal_join_as(l, "l", r, "r", kind, "l.ts", cond);
    cr_assert(j->t, "%s", weir_job_error(j->job));
    jh_attach(j);
    return j;
}

static void jh_free(jh *j)
{
    weir_harness_destroy(j->h);
    weir_job_destroy(j->job);
    weir_table_env_destroy(j->env);
    weir_schema_destroy(j->ls);
    weir_schema_destroy(j->rs);
    free(j);
}

/* A row into input s ("+I 1|a"), its timestamp ts. */
static void jh_row(jh *j, int s, const char *text, int64_t ts)
{
    tt_harness_row(j->h, s, s ? j->rs : j->ls, text, ts);
}

static void jh_wm(jh *j, int s, int64_t wm)
{
    tt_harness_wm(j->h, s, wm);
}

static void jh_expect(jh *j, const char *want)
{
    cr_assert_str_eq(j->out, want, "got:\n%s\nwant:\n%s", j->out, want);
    j->len = 0;
    j->out[0] = 0;
}

/* ---- regular joins --------------------------------------------------------------------- */

Test(join, inner_insert_only_pairs_and_null_keys, .timeout = 30)
{
    jh *j = jh_new("id BIGINT, a STRING", NULL, "id BIGINT, b STRING", NULL, NULL, 0,
                   WEIR_JOIN_INNER, "l.id = r.id");
    char mode[32];
    weir_changelog_mode_format(weir_table_changelog_mode(j->t), mode, sizeof mode);
    cr_assert_str_eq(mode, "[I]");
    cr_assert_str_eq(weir_table_node_name(j->t), "Join(joinType=[InnerJoin], where=[l.id = r.id])");
    jh_row(j, 0, "+I 1|x", 1);
    jh_row(j, 0, "+I 1|x", 2); /* the same row twice: joined twice */
    jh_row(j, 0, "+I null|n", 3);
    jh_row(j, 1, "+I 1|y", 4);
    jh_row(j, 1, "+I null|m", 5); /* NULL = NULL is not true */
    jh_row(j, 1, "+I 2|z", 6);
    jh_row(j, 0, "+I 2|w", 7);
    jh_expect(j, "+I[1, x, 1, y]\n+I[1, x, 1, y]\n+I[2, w, 2, z]\n");
    jh_free(j);
}

Test(join, left_outer_changelog, .timeout = 30)
{
    jh *j = jh_new("id BIGINT, a STRING", NULL, "id BIGINT, b STRING", NULL, NULL,
                   WEIR_CHANGELOG_ALL, WEIR_JOIN_LEFT, "l.id = r.id");
    jh_row(j, 0, "+I 1|x", 1);   /* no partner: padded */
    jh_row(j, 1, "+I 1|y", 2);   /* first partner: -D padded, +I pair */
    jh_row(j, 1, "+I 1|z", 3);   /* second partner: the pair */
    jh_row(j, 1, "-D 1|y", 4);   /* a partner of two goes: its pair goes */
    jh_row(j, 1, "-U 1|z", 5);   /* the last partner goes: -D pair, +I padded */
    jh_row(j, 0, "-D 1|x", 6);   /* the padded row goes */
    jh_row(j, 1, "+I 2|q", 7);   /* an inner side's row without partner: nothing */
    jh_expect(j, "+I[1, x, null, null]\n"
                 "-D[1, x, null, null]\n+I[1, x, 1, y]\n"
                 "+I[1, x, 1, z]\n"
                 "-D[1, x, 1, y]\n"
                 "-D[1, x, 1, z]\n+I[1, x, null, null]\n"
                 "-D[1, x, null, null]\n");
    jh_free(j);
}

Test(join, full_outer_changelog_with_duplicates, .timeout = 30)
{
    jh *j = jh_new("id BIGINT, a STRING", NULL, "id BIGINT, b STRING", NULL, NULL,
                   WEIR_CHANGELOG_ALL, WEIR_JOIN_FULL, "l.id = r.id");
    jh_row(j, 1, "+I 1|y", 1);
    jh_row(j, 1, "+I 1|y", 2);   /* two copies: two padded rows */
    jh_row(j, 0, "+I 1|x", 3);   /* each copy: -D padded, +I pair */
    jh_row(j, 0, "-D 1|x", 4);   /* each copy: -D pair, +I padded */
    jh_expect(j, "+I[null, null, 1, y]\n+I[null, null, 1, y]\n"
                 "-D[null, null, 1, y]\n+I[1, x, 1, y]\n-D[null, null, 1, y]\n+I[1, x, 1, y]\n"
                 "-D[1, x, 1, y]\n+I[null, null, 1, y]\n-D[1, x, 1, y]\n+I[null, null, 1, y]\n");
    jh_free(j);
}

Test(join, inner_forwards_update_kinds, .timeout = 30)
{
    jh *j = jh_new("id BIGINT, a STRING", NULL, "id BIGINT, b STRING", NULL, NULL,
                   WEIR_CHANGELOG_ALL, WEIR_JOIN_INNER, "l.id = r.id");
    char mode[32];
    weir_changelog_mode_format(weir_table_changelog_mode(j->t), mode, sizeof mode);
    cr_assert_str_eq(mode, "[I,UB,UA,D]");
    jh_row(j, 1, "+I 1|y", 1);
    jh_row(j, 0, "+I 1|x", 2);
    jh_row(j, 0, "-U 1|x", 3);
    jh_row(j, 0, "+U 1|x2", 4);
    jh_row(j, 1, "-D 1|y", 5);
    jh_expect(j, "+I[1, x, 1, y]\n-U[1, x, 1, y]\n+U[1, x2, 1, y]\n-D[1, x2, 1, y]\n");
    jh_free(j);
}

Test(join, residual_condition_and_unique_key_state, .timeout = 30)
{
    /* the left has a primary key: one row a key (HasUniqueKey), a +U of
     * the key replaces its row */
    jh *j = jh_new("k BIGINT NOT NULL, g BIGINT, a BIGINT", "k", "g BIGINT, b BIGINT", NULL, NULL,
                   WEIR_CHANGELOG_ALL, WEIR_JOIN_LEFT, "l.g = r.g AND a < b");
    jh_row(j, 0, "+I 1|7|5", 1);
    jh_row(j, 1, "+I 7|3", 2);   /* 5 < 3 is false: no partner */
    jh_row(j, 1, "+I 7|9", 3);
    jh_row(j, 0, "-U 1|7|5", 4);
    jh_row(j, 0, "+U 1|7|10", 5); /* 10 < 9 false: padded */
    jh_expect(j, "+I[1, 7, 5, null, null]\n"
                 "-D[1, 7, 5, null, null]\n+I[1, 7, 5, 7, 9]\n"
                 "-D[1, 7, 5, 7, 9]\n"
                 "+I[1, 7, 10, null, null]\n");
    jh_free(j);
}

/* Joins l and r (columns given) on cond in a job of their own: the table,
 * or NULL with the job's message in err. */
static weir_table *try_join(const char *lcols, const char *rcols, weir_join_kind kind,
                            const char *lname, const char *rname, const char *cond, char *err,
                            size_t size)
{
    static weir_job *job;
    static weir_table_env *env;
    static weir_schema *ls, *rs;
    if (job) {
        weir_job_destroy(job);
        weir_table_env_destroy(env);
        weir_schema_destroy(ls);
        weir_schema_destroy(rs);
        job = NULL;
    }
    if (!lcols)
        return NULL;
    job = tu_job(&(weir_job_config){.workers = 1, .parallelism = 1});
    cr_assert_eq(weir_table_env_create(job, NULL, &env), 0);
    ls = tt_schema("l", lcols, NULL);
    rs = tt_schema("r", rcols, NULL);
    weir_table *l = weir_table_from_stream(env, weir_source_array(job, NULL, 0,
                                           weir_schema_row_size(ls), NULL), ls);
    weir_table *r = weir_table_from_stream(env, weir_source_array(job, NULL, 0,
                                           weir_schema_row_size(rs), NULL), rs);
    weir_table *t = lname ? weir_table_join_as(l, lname, r, rname, kind, cond)
                          : weir_table_join(l, r, kind, cond);
    snprintf(err, size, "%s", weir_job_error(job));
    return t;
}

Test(join, refusals, .timeout = 30)
{
    char err[512];
    const char *L = "id BIGINT, s STRING", *R = "id INT, d DOUBLE";
    cr_assert_null(try_join(L, R, WEIR_JOIN_INNER, NULL, NULL, "l.id < r.id", err, sizeof err));
    cr_assert_str_eq(err, "Invalid join condition: l.id < r.id. At least one equi-join "
                          "predicate is required.");
    cr_assert_null(try_join(L, R, WEIR_JOIN_INNER, NULL, NULL, "l.s = r.d", err, sizeof err));
    cr_assert(strstr(err, "compares VARCHAR"), "%s", err);
    cr_assert_null(try_join(L, R, WEIR_JOIN_INNER, NULL, NULL, "l.id = r.id AND id > 1", err,
                            sizeof err));
    cr_assert(strstr(err, "ambiguous"), "%s", err);
    cr_assert_null(try_join(L, R, WEIR_JOIN_INNER, NULL, NULL, "l.id = r.id AND x.d > 1", err,
                            sizeof err));
    cr_assert(strstr(err, "unknown table 'x'"), "%s", err);
    /* INT = BIGINT is a key (compared as BIGINT); aliases name the sides */
    weir_table *t = try_join(L, R, WEIR_JOIN_FULL, "a", "b", "a.id = b.id", err, sizeof err);
    cr_assert(t, "%s", err);
    cr_assert_eq(weir_schema_ncolumns(weir_table_schema(t)), 4);
    cr_assert_str_eq(weir_schema_column_name(weir_table_schema(t), 2), "id0");
    cr_assert_eq(weir_table_rowtime(t), -1);
    try_join(NULL, NULL, 0, NULL, NULL, NULL, err, sizeof err);
}

/* ---- interval joins ---------------------------------------------------------------------- */

Test(join, interval_inner_holds_the_watermark_back_and_cleans, .timeout = 30)
{
    /* l.ts - r.ts in [-10, 5]: left relative size 10, right 5; hold-back 10 */
    jh *j = jh_new("k BIGINT, ts TIMESTAMP(3) NOT NULL, a STRING", NULL,
                   "k BIGINT, ts TIMESTAMP(3) NOT NULL, b STRING", NULL, "ts", 0,
                   WEIR_JOIN_INNER, "l.k = r.k AND l.ts BETWEEN r.ts - INTERVAL '0.010' SECOND "
                   "AND r.ts + INTERVAL '0.005' SECOND");
    cr_assert(strncmp(weir_table_node_name(j->t), "IntervalJoin(joinType=[InnerJoin], "
                      "windowBounds=[isRowTime=true, leftLowerBound=-10, leftUpperBound=5",
                      60) == 0, "%s", weir_table_node_name(j->t));
    cr_assert_eq(weir_table_rowtime(j->t), 1);
    cr_assert_eq(weir_table_second_rowtime(j->t), 4);
    jh_row(j, 0, "+I 1|100|a", 100);
    jh_row(j, 1, "+I 1|95|b", 95);  /* 100 - 95 = 5: in */
    jh_row(j, 1, "+I 1|111|c", 111); /* 100 - 111 = -11: out */
    jh_row(j, 1, "+I 1|110|d", 110); /* -10: in */
    jh_wm(j, 0, 200);
    jh_wm(j, 1, 120);
    jh_expect(j, "+I[1, 1970-01-01 00:00:00.100, a, 1, 1970-01-01 00:00:00.095, b]\n"
                 "+I[1, 1970-01-01 00:00:00.100, a, 1, 1970-01-01 00:00:00.110, d]\n"
                 "WM 110\n");
    /* the watermark 120 cleaned the left row of 100 (120 > 100 + 10): a
     * right row of 104 finds nothing */
    jh_row(j, 1, "+I 1|125|e", 125);
    jh_row(j, 0, "+I 1|121|f", 121); /* meets e (121 - 125 = -4) and c? 121-111 = 10: out */
    jh_expect(j, "+I[1, 1970-01-01 00:00:00.121, f, 1, 1970-01-01 00:00:00.125, e]\n");
    jh_free(j);
}

Test(join, interval_outer_pads_once_when_rows_expire, .timeout = 30)
{
    jh *j = jh_new("k BIGINT, ts TIMESTAMP(3) NOT NULL", NULL, "k BIGINT, ts TIMESTAMP(3) NOT NULL",
                   NULL, "ts", 0, WEIR_JOIN_FULL,
                   "l.k = r.k AND l.ts >= r.ts AND l.ts <= r.ts + INTERVAL '0.010' SECOND");
    jh_row(j, 0, "+I 1|100", 100);
    jh_row(j, 1, "+I 1|95", 95);   /* 100 - 95 = 5: in */
    jh_row(j, 1, "+I 1|200", 200); /* no partner yet */
    jh_row(j, 0, "+I 2|300", 300); /* no partner ever */
    jh_wm(j, 0, 150);
    jh_wm(j, 1, 150); /* the left row of 100 expires (150 > 100): it met one, no pad */
    jh_expect(j, "+I[1, 1970-01-01 00:00:00.100, 1, 1970-01-01 00:00:00.095]\n"
                 "WM 140\n");
    jh_wm(j, 0, 400);
    jh_wm(j, 1, 400); /* 200 and 300 expire unmatched: padded, once */
    jh_expect(j, "+I[null, null, 1, 1970-01-01 00:00:00.200]\n"
                 "+I[2, 1970-01-01 00:00:00.300, null, null]\n"
                 "WM 390\n");
    cr_assert_eq(weir_harness_end(j->h), 0);
    jh_expect(j, "");
    jh_free(j);
}

/* ---- differential: random inputs against a nested loop ---------------------------------- */

typedef struct drow {
    int side;
    int64_t k, v, ts;
    bool retract;
} drow;

static uint64_t rng_state;

/* The expected final table of rows drows (only the live ones: inserted
 * and not retracted), as sorted "+I[...]" lines with counts. */
static char *final_text(char lines[][ROWLEN], const int *counts, int n)
{
    char **v = calloc(4096, sizeof *v);
    int m = 0;
    for (int i = 0; i < n; i++)
        for (int c = 0; c < counts[i]; c++) {
            cr_assert(m < 4096);
            v[m++] = lines[i];
        }
    qsort(v, (size_t)m, sizeof *v, tt_cmp_str);
    size_t cap = (size_t)m * (ROWLEN + 2) + 1, len = 0;
    char *out = malloc(cap);
    out[0] = 0;
    for (int i = 0; i < m; i++)
        len += (size_t)snprintf(out + len, cap - len, "%s\n", v[i]);
    free(v);
    return out;
}

static void add_line(char lines[][ROWLEN], int *counts, int *n, const char *l)
{
    for (int i = 0; i < *n; i++)
        if (strcmp(lines[i], l) == 0) {
            counts[i]++;
            return;
        }
    snprintf(lines[*n], ROWLEN, "%s", l);
    counts[(*n)++] = 1;
}

static void fmt_side(char *buf, size_t size, bool present, int64_t k, int64_t v, bool timed,
                     int64_t ts)
{
    if (!present)
        snprintf(buf, size, timed ? "null, null, null" : "null, null");
    else if (timed)
        snprintf(buf, size, "%lld, 1970-01-01 00:00:%02lld.%03lld, %lld", (long long)k,
                 (long long)(ts / 1000), (long long)(ts % 1000), (long long)v);
    else
        snprintf(buf, size, "%lld, %lld", (long long)k, (long long)v);
}

static void differential(weir_join_kind kind, bool interval, uint64_t seed)
{
    rng_state = seed;
    const int lo = -30, hi = 20; /* interval: l.ts - r.ts in [lo, hi] */
    jh *j = interval
                ? jh_new("k BIGINT, ts TIMESTAMP(3) NOT NULL, v BIGINT", NULL,
                         "k BIGINT, ts TIMESTAMP(3) NOT NULL, v BIGINT", NULL, "ts", 0, kind,
                         "l.k = r.k AND l.ts >= r.ts - INTERVAL '0.030' SECOND AND "
                         "l.ts <= r.ts + INTERVAL '0.020' SECOND AND l.v <> r.v")
                : jh_new("k BIGINT, v BIGINT", NULL, "k BIGINT, v BIGINT", NULL, NULL,
                         WEIR_CHANGELOG_ALL, kind, "l.k = r.k AND l.v <> r.v");
    j->materialize = true;
    drow rows[300];
    int n = 0;
    int64_t t[2] = {0, 0};
    /* each step: a new row on a random side, or a retraction of a live one
     * (regular joins); interval rows in time order per side */
    for (int step = 0; step < 200; step++) {
        int s = (int)(tt_rnd(&rng_state) % 2);
        drow d = {.side = s, .k = (int64_t)(tt_rnd(&rng_state) % 4),
                  .v = (int64_t)(tt_rnd(&rng_state) % 3)};
        if (!interval && n > 0 && tt_rnd(&rng_state) % 4 == 0) {
            int i = (int)(tt_rnd(&rng_state) % (uint64_t)n);
            if (!rows[i].retract) {
                d = rows[i];
                rows[i].retract = true;
                d.retract = true;
            }
        }
        if (interval) {
            t[s] += (int64_t)(tt_rnd(&rng_state) % 15);
            d.ts = 1000 + t[s];
        }
        char text[128];
        if (interval)
            snprintf(text, sizeof text, "+I %lld|%lld|%lld", (long long)d.k, (long long)d.ts,
                     (long long)d.v);
        else
            snprintf(text, sizeof text, "%s %lld|%lld", d.retract ? "-D" : "+I", (long long)d.k,
                     (long long)d.v);
        jh_row(j, d.side, text, interval ? d.ts : 0);
        if (interval && tt_rnd(&rng_state) % 3 == 0)
            jh_wm(j, s, d.ts);
        if (!d.retract)
            rows[n++] = d;
    }
    cr_assert_eq(weir_harness_end(j->h), 0, "%s", weir_harness_last_error(j->h));
    /* the nested loop over the live rows */
    static char want[4096][ROWLEN];
    static int wc[4096];
    int nw = 0;
    bool louter = kind == WEIR_JOIN_LEFT || kind == WEIR_JOIN_FULL;
    bool router = kind == WEIR_JOIN_RIGHT || kind == WEIR_JOIN_FULL;
    for (int pass = 0; pass < 2; pass++) {
        for (int a = 0; a < n; a++) {
            if (rows[a].retract || rows[a].side != pass)
                continue;
            int partners = 0;
            for (int b = 0; b < n; b++) {
                if (rows[b].retract || rows[b].side == pass)
                    continue;
                const drow *l = pass == 0 ? &rows[a] : &rows[b];
                const drow *r = pass == 0 ? &rows[b] : &rows[a];
                bool ok = l->k == r->k && l->v != r->v &&
                          (!interval || (l->ts - r->ts >= lo && l->ts - r->ts <= hi));
                if (!ok)
                    continue;
                partners++;
                if (pass == 0) {
                    char lb[120], rb[120], line[ROWLEN];
                    fmt_side(lb, sizeof lb, true, l->k, l->v, interval, l->ts);
                    fmt_side(rb, sizeof rb, true, r->k, r->v, interval, r->ts);
                    snprintf(line, sizeof line, "[%s, %s]", lb, rb);
                    add_line(want, wc, &nw, line);
                }
            }
            if (partners == 0 && (pass == 0 ? louter : router)) {
                char lb[120], rb[120], line[ROWLEN];
                fmt_side(lb, sizeof lb, pass == 0, rows[a].k, rows[a].v, interval, rows[a].ts);
                fmt_side(rb, sizeof rb, pass == 1, rows[a].k, rows[a].v, interval, rows[a].ts);
                snprintf(line, sizeof line, "[%s, %s]", lb, rb);
                add_line(want, wc, &nw, line);
            }
        }
    }
    char *expected = final_text(want, wc, nw);
    char *got = final_text(j->rows, j->counts, j->nrows);
    cr_assert_str_eq(got, expected, "kind %d interval %d seed %llu:\ngot:\n%s\nwant:\n%s",
                     (int)kind, interval, (unsigned long long)seed, got, expected);
    free(expected);
    free(got);
    jh_free(j);
}

Test(join, differential_regular, .timeout = 120)
{
    for (uint64_t seed = 1; seed <= 40; seed++)
        for (int kind = WEIR_JOIN_INNER; kind <= WEIR_JOIN_FULL; kind++)
            differential((weir_join_kind)kind, false, seed * 7919);
}

Test(join, differential_interval, .timeout = 120)
{
    for (uint64_t seed = 1; seed <= 40; seed++)
        for (int kind = WEIR_JOIN_INNER; kind <= WEIR_JOIN_FULL; kind++)
            differential((weir_join_kind)kind, true, seed * 104729);
}

/* ---- semi and anti joins ----------------------------------------------------------------- */

Test(join, semi_anti_changelog, .timeout = 30)
{
    jh *j = jh_new("k BIGINT, a STRING", NULL, "k BIGINT, b STRING", NULL, NULL,
                   WEIR_CHANGELOG_ALL, WEIR_JOIN_SEMI, "l.k = r.k");
    cr_assert_str_eq(weir_table_node_name(j->t), "Join(joinType=[LeftSemiJoin], where=[l.k = r.k])");
    jh_row(j, 0, "+I 1|x", 1); /* no partner yet */
    jh_row(j, 1, "+I 1|p", 2); /* its first: out with the partner's kind */
    jh_row(j, 1, "+U 1|q", 3); /* a second: nothing */
    jh_row(j, 0, "+I 1|y", 4); /* has partners: out at once */
    jh_row(j, 1, "-D 1|p", 5);
    jh_row(j, 1, "-U 1|q", 6); /* the last goes: out with its kind (the state's rows
                                * newest first) */
    jh_expect(j, "+I[1, x]\n+I[1, y]\n-U[1, y]\n-U[1, x]\n");
    jh_free(j);
    j = jh_new("k BIGINT, a STRING", NULL, "k BIGINT, b STRING", NULL, NULL, WEIR_CHANGELOG_ALL,
               WEIR_JOIN_ANTI, "l.k = r.k");
    jh_row(j, 0, "+I 1|x", 1); /* no partner: out */
    jh_row(j, 0, "+I null|n", 2); /* a NULL key meets nothing: out */
    jh_row(j, 1, "+I 1|p", 3); /* its first partner: -D */
    jh_row(j, 1, "+I null|m", 4);
    jh_row(j, 1, "-D 1|p", 5); /* its last goes: +I */
    jh_row(j, 0, "-D 1|x", 6); /* a left retraction with no partner goes out */
    jh_expect(j, "+I[1, x]\n+I[null, n]\n-D[1, x]\n+I[1, x]\n-D[1, x]\n");
    jh_free(j);
}

/* Random changelogs of both sides (NULL keys among them) through a semi or
 * anti join, against a nested loop: the final table is each live left row
 * with at least one (SEMI) / no (ANTI) live right row meeting the
 * condition, as often as it lives. not_in: the condition NOT IN's, l.k =
 * r.k OR (l.k = r.k) IS NULL, which holds no equality (one key for all). */
static void semi_differential(weir_join_kind kind, bool not_in, uint64_t seed)
{
    rng_state = seed;
    jh *j = jh_new("k BIGINT, v BIGINT", NULL, "k BIGINT, v BIGINT", NULL, NULL,
                   WEIR_CHANGELOG_ALL, kind,
                   not_in ? "l.k = r.k OR (l.k = r.k) IS NULL" : "l.k = r.k AND l.v <> r.v");
    j->materialize = true;
    typedef struct srow {
        int side;
        int64_t k, v;
        bool null, dead;
    } srow;
    static srow rows[300];
    int n = 0;
    for (int step = 0; step < 200; step++) {
        srow d = {.side = (int)(tt_rnd(&rng_state) % 2), .k = (int64_t)(tt_rnd(&rng_state) % 4),
                  .v = (int64_t)(tt_rnd(&rng_state) % 3)};
        d.null = tt_rnd(&rng_state) % 9 == 0;
        bool retract = false;
        if (n > 0 && tt_rnd(&rng_state) % 4 == 0) {
            int i = (int)(tt_rnd(&rng_state) % (uint64_t)n);
            if (!rows[i].dead) {
                d = rows[i];
                rows[i].dead = true;
                retract = true;
            }
        }
        char text[128], key[24];
        snprintf(key, sizeof key, "%lld", (long long)d.k);
        snprintf(text, sizeof text, "%s %s|%lld",
                 retract ? (tt_rnd(&rng_state) % 2 ? "-D" : "-U") : "+I", d.null ? "null" : key,
                 (long long)d.v);
        jh_row(j, d.side, text, 0);
        if (!retract)
            rows[n++] = d;
    }
    cr_assert_eq(weir_harness_end(j->h), 0, "%s", weir_harness_last_error(j->h));
    static char want[4096][ROWLEN];
    static int wc[4096];
    int nw = 0;
    for (int a = 0; a < n; a++) {
        if (rows[a].dead || rows[a].side != 0)
            continue;
        int partners = 0;
        for (int b = 0; b < n; b++) {
            if (rows[b].dead || rows[b].side != 1)
                continue;
            const srow *l = &rows[a], *r = &rows[b];
            partners += not_in ? (l->null || r->null || l->k == r->k)
                               : (!l->null && !r->null && l->k == r->k && l->v != r->v);
        }
        if ((partners > 0) != (kind == WEIR_JOIN_SEMI))
            continue;
        char line[ROWLEN], key[24];
        snprintf(key, sizeof key, "%lld", (long long)rows[a].k);
        snprintf(line, sizeof line, "[%s, %lld]", rows[a].null ? "null" : key,
                 (long long)rows[a].v);
        add_line(want, wc, &nw, line);
    }
    char *expected = final_text(want, wc, nw);
    char *got = final_text(j->rows, j->counts, j->nrows);
    cr_assert_str_eq(got, expected, "kind %d not_in %d seed %llu:\ngot:\n%s\nwant:\n%s",
                     (int)kind, not_in, (unsigned long long)seed, got, expected);
    free(expected);
    free(got);
    jh_free(j);
}

Test(join, differential_semi_anti, .timeout = 120)
{
    for (uint64_t seed = 1; seed <= 40; seed++) {
        semi_differential(WEIR_JOIN_SEMI, false, seed * 7919);
        semi_differential(WEIR_JOIN_ANTI, false, seed * 104729);
        semi_differential(WEIR_JOIN_ANTI, true, seed * 1299709);
        semi_differential(WEIR_JOIN_SEMI, true, seed * 15485863);
    }
}

/* ---- event-time temporal join ------------------------------------------------------------ */

#define TJ_COLS "k BIGINT, ts TIMESTAMP(3) NOT NULL, v BIGINT"
#define TJ_RCOLS "k BIGINT NOT NULL, ts TIMESTAMP(3) NOT NULL, v BIGINT"

Test(join, temporal_waits_for_both_watermarks, .timeout = 30)
{
    jh *j = jh_new_temporal(TJ_COLS, TJ_RCOLS, "k", WEIR_JOIN_LEFT, "l.k = r.k");
    char mode[32];
    weir_changelog_mode_format(weir_table_changelog_mode(j->t), mode, sizeof mode);
    cr_assert_str_eq(mode, "[I]");
    cr_assert_str_eq(weir_table_node_name(j->t), "TemporalJoin(joinType=[LeftOuterJoin], "
                     "where=[l.k = r.k], leftTimeIndex=1, rightTimeIndex=1)");
    cr_assert_eq(weir_table_rowtime(j->t), 1);
    jh_row(j, 1, "+I 1|100|10", 100);
    jh_row(j, 0, "+I 1|150|1", 150);
    jh_row(j, 0, "+I 2|150|2", 150);
    jh_wm(j, 0, 200);
    jh_expect(j, ""); /* the versions' watermark holds them */
    jh_row(j, 1, "-U 1|100|10", 100); /* no version */
    jh_row(j, 1, "+U 1|140|14", 140);
    jh_wm(j, 1, 160);
    /* in arrival order, each with the version valid at its time; the
     * watermark passes as it comes */
    jh_expect(j, "+I[1, 1970-01-01 00:00:00.150, 1, 1, 1970-01-01 00:00:00.140, 14]\n"
                 "+I[2, 1970-01-01 00:00:00.150, 2, null, null, null]\n"
                 "WM 160\n");
    jh_row(j, 1, "-D 1|170|14", 170);
    jh_row(j, 0, "+I 1|170|3", 170);
    jh_row(j, 0, "+I 1|169|4", 169);
    jh_row(j, 1, "+I 1|300|30", 300);
    jh_wm(j, 1, 400);
    jh_expect(j, "+I[1, 1970-01-01 00:00:00.170, 3, null, null, null]\n"
                 "+I[1, 1970-01-01 00:00:00.169, 4, 1, 1970-01-01 00:00:00.140, 14]\n"
                 "WM 200\n");
    cr_assert_eq(weir_harness_end(j->h), 0);
    jh_free(j);
}

Test(join, temporal_inner_drops_rows_without_version, .timeout = 30)
{
    jh *j = jh_new_temporal(TJ_COLS, TJ_RCOLS, "k", WEIR_JOIN_INNER, "l.k = r.k AND l.v < r.v");
    jh_row(j, 0, "+I 1|50|1", 50);    /* before any version */
    jh_row(j, 1, "+I 1|100|10", 100);
    jh_row(j, 0, "+I 1|150|11", 150); /* its version fails l.v < r.v */
    jh_row(j, 0, "+I 1|150|9", 150);
    jh_row(j, 0, "+I null|150|9", 150); /* a NULL key meets nothing */
    jh_wm(j, 0, 1000);
    jh_wm(j, 1, 1000);
    jh_expect(j, "+I[1, 1970-01-01 00:00:00.150, 9, 1, 1970-01-01 00:00:00.100, 10]\n"
                 "WM 1000\n");
    jh_free(j);
}

/* One refused temporal join: the message it records. */
static void temporal_refused(const char *rpk, const char *rowtime, weir_join_kind kind,
                             const char *as_of, const char *cond, const char *msg)
{
    weir_job *job = tu_job(&(weir_job_config){.workers = 1, .parallelism = 1});
    weir_table_env *env;
    cr_assert_eq(weir_table_env_create(job, NULL, &env), 0);
    weir_schema *ls = tt_schema_wm("l", TJ_COLS, NULL, "ts", "SOURCE_WATERMARK()");
    weir_schema *rs = tt_schema_wm("r", TJ_RCOLS, rpk, rowtime,
                                   rowtime ? "SOURCE_WATERMARK()" : NULL);
    weir_stream *a = weir_source_array(job, NULL, 0, weir_schema_row_size(ls), NULL);
    weir_stream *b = weir_source_array(job, NULL, 0, weir_schema_row_size(rs), NULL);
    weir_table *l = weir_table_from_stream(env, a, ls);
    weir_table *r = weir_table_from_changelog_stream(env, b, rs, WEIR_CHANGELOG_ALL);
    cr_assert(l && r, "%s", weir_job_error(job));
    cr_assert_null(weir_table_temporal_join_as(l, "l", r, "r", kind, as_of, cond));
    cr_assert(strstr(weir_job_error(job), msg), "%s", weir_job_error(job));
    weir_job_destroy(job);
    weir_table_env_destroy(env);
    weir_schema_destroy(ls);
    weir_schema_destroy(rs);
}

Test(join, temporal_refusals, .timeout = 30)
{
    temporal_refused(NULL, "ts", WEIR_JOIN_INNER, "l.ts", "l.k = r.k", "Temporal Table Join "
                     "requires primary key in versioned table, but no primary key can be found.");
    temporal_refused("k", NULL, WEIR_JOIN_INNER, "l.ts", "l.k = r.k", "Event-Time Temporal "
                     "Table Join requires both primary key and row time attribute in versioned "
                     "table, but no row time attribute can be found.");
    temporal_refused("k", "ts", WEIR_JOIN_INNER, "l.ts", "l.v = r.v", "Temporal table's primary "
                     "key [k0] must be included in the equivalence condition of temporal join, "
                     "but current temporal join condition is [v=v].");
    temporal_refused("k", "ts", WEIR_JOIN_INNER, "l.v", "l.k = r.k", "Temporal table join "
                     "currently only supports 'FOR SYSTEM_TIME AS OF' left table's time "
                     "attribute field");
    temporal_refused("k", "ts", WEIR_JOIN_FULL, "l.ts", "l.k = r.k", "weir_table_temporal_join: "
                     "a temporal join is INNER or LEFT");
}

/* The differential test: random left rows (never behind the join's
 * watermark when they come) and random versions (+I/+U/-D, -U noise, some
 * late) with random watermarks on each side, against a brute force: a left
 * row goes out at the first watermark of both that reaches its time, with
 * the version of its key of largest time at or below its own among those
 * come by then (the later of two of the same time), INNER or LEFT. */
typedef struct tj_ev {
    int side; /* 0 left, 1 right, 2 a watermark */
    int64_t k, v, ts;
    int kind; /* right: 0 +I, 1 +U, 2 -D, 3 -U */
    int wm_side;
} tj_ev;

static void temporal_differential(weir_join_kind kind, uint64_t seed)
{
    rng_state = seed;
    jh *j = jh_new_temporal(TJ_COLS, TJ_RCOLS, "k", kind, "l.k = r.k AND l.v <> r.v");
    j->materialize = true;
    enum { N = 240 };
    static tj_ev ev[N];
    int64_t wm[2] = {0, 0}, t[2] = {1000, 1000};
    for (int i = 0; i < N; i++) {
        int64_t jwm = wm[0] < wm[1] ? wm[0] : wm[1];
        int what = (int)(tt_rnd(&rng_state) % 6); /* a left row, a version, a watermark: 1/3 each */
        tj_ev e = {.side = what / 2};
        if (e.side == 2) { /* a watermark on one side, at most its rows' time */
            e.wm_side = (int)(tt_rnd(&rng_state) % 2);
            int64_t w = t[e.wm_side] - (int64_t)(tt_rnd(&rng_state) % 20);
            if (w > wm[e.wm_side])
                wm[e.wm_side] = w;
            e.ts = wm[e.wm_side];
        } else {
            int s = e.side;
            t[s] += (int64_t)(tt_rnd(&rng_state) % 12);
            e.k = (int64_t)(tt_rnd(&rng_state) % 3);
            e.v = (int64_t)(tt_rnd(&rng_state) % 3);
            e.ts = t[s];
            if (s == 0 && e.ts <= jwm)
                e.ts = jwm + 1 + (int64_t)(tt_rnd(&rng_state) % 5); /* never late */
            if (s == 1) {
                int k = (int)(tt_rnd(&rng_state) % 8);
                e.kind = k < 3 ? 0 : k < 5 ? 1 : k < 7 ? 2 : 3;
                if (tt_rnd(&rng_state) % 5 == 0)
                    e.ts -= (int64_t)(tt_rnd(&rng_state) % 60); /* late, perhaps */
            }
        }
        ev[i] = e;
        static const char *const kinds[] = {"+I", "+U", "-D", "-U"};
        if (e.side == 2) {
            jh_wm(j, e.wm_side, e.ts);
        } else {
            char text[128];
            snprintf(text, sizeof text, "%s %lld|%lld|%lld", e.side ? kinds[e.kind] : "+I",
                     (long long)e.k, (long long)e.ts, (long long)e.v);
            jh_row(j, e.side, text, e.ts);
        }
    }
    cr_assert_eq(weir_harness_end(j->h), 0, "%s", weir_harness_last_error(j->h));
    /* the brute force */
    static char want[4096][ROWLEN];
    static int wc[4096];
    int nw = 0;
    for (int a = 0; a < N; a++) {
        if (ev[a].side != 0)
            continue;
        /* the first watermark after it at which the watermark of both reaches it */
        int64_t w[2] = {0, 0};
        int out_at = N;
        for (int i = 0; i < N; i++) {
            if (ev[i].side == 2)
                w[ev[i].wm_side] = ev[i].ts;
            if (i > a && ev[i].side == 2 && (w[0] < w[1] ? w[0] : w[1]) >= ev[a].ts) {
                out_at = i;
                break;
            }
        }
        int best = -1;
        for (int b = 0; b < out_at; b++) {
            if (ev[b].side != 1 || ev[b].kind == 3 || ev[b].k != ev[a].k || ev[b].ts > ev[a].ts)
                continue;
            if (best < 0 || ev[b].ts >= ev[best].ts)
                best = b;
        }
        bool joined = best >= 0 && ev[best].kind != 2 && ev[best].v != ev[a].v;
        if (!joined && kind != WEIR_JOIN_LEFT)
            continue;
        char lb[120], rb[120], line[ROWLEN];
        fmt_side(lb, sizeof lb, true, ev[a].k, ev[a].v, true, ev[a].ts);
        if (joined)
            fmt_side(rb, sizeof rb, true, ev[best].k, ev[best].v, true, ev[best].ts);
        else
            fmt_side(rb, sizeof rb, false, 0, 0, true, 0);
        snprintf(line, sizeof line, "[%s, %s]", lb, rb);
        add_line(want, wc, &nw, line);
    }
    char *expected = final_text(want, wc, nw);
    char *got = final_text(j->rows, j->counts, j->nrows);
    cr_assert_str_eq(got, expected, "kind %d seed %llu:\ngot:\n%s\nwant:\n%s", (int)kind,
                     (unsigned long long)seed, got, expected);
    free(expected);
    free(got);
    jh_free(j);
}

Test(join, differential_temporal, .timeout = 120)
{
    for (uint64_t seed = 1; seed <= 60; seed++) {
        temporal_differential(WEIR_JOIN_INNER, seed * 15485863);
        temporal_differential(WEIR_JOIN_LEFT, seed * 32452843);
    }
}

/* ---- the DataStream interval join ---------------------------------------------------------- */

typedef struct ev {
    int64_t key, ts, id;
} ev;

typedef struct pair_out {
    int64_t lid, rid, ts;
} pair_out;

static void ev_key(const void *elem, void *key, void *arg)
{
    (void)arg;
    memcpy(key, &((const ev *)elem)->key, 8);
}

static int pair_fn(weir_ctx *ctx, const void *l, const void *r, int64_t ts, void *arg)
{
    (void)arg;
    pair_out o = {((const ev *)l)->id, ((const ev *)r)->id, ts};
    return weir_emit(ctx, &o, ts);
}

static int cmp_pair(const void *a, const void *b)
{
    const pair_out *x = a, *y = b;
    if (x->lid != y->lid)
        return x->lid < y->lid ? -1 : 1;
    return x->rid < y->rid ? -1 : x->rid > y->rid;
}

Test(join, datastream_interval_join_between, .timeout = 60)
{
    rng_state = 99;
    enum { N = 400 };
    static ev side[2][N];
    static int64_t tss[2][N];
    for (int s = 0; s < 2; s++) {
        int64_t t = 1000;
        for (int i = 0; i < N; i++) {
            t += (int64_t)(tt_rnd(&rng_state) % 7);
            side[s][i] = (ev){.key = (int64_t)(tt_rnd(&rng_state) % 5), .ts = t,
                              .id = s * 10000 + i};
            tss[s][i] = t;
        }
    }
    weir_job *job = tu_job(&(weir_job_config){.workers = 2, .parallelism = 1});
    weir_key_spec ks = {.key_size = 8, .extract = ev_key};
    weir_stream *in[2];
    for (int s = 0; s < 2; s++) {
        weir_stream *src = weir_source_array(job, side[s], N, sizeof(ev), tss[s]);
        weir_timestamps_spec ts = {.strategy = weir_watermarks_bounded(0)};
        in[s] = weir_stream_key_by(weir_stream_assign_timestamps(src, &ts), &ks);
    }
    /* right.ts in (left.ts - 5, left.ts + 3]: lower exclusive */
    weir_interval_join_spec spec = {.lower_ms = -5, .upper_ms = 3, .lower_exclusive = true,
                                    .fn = pair_fn, .out_size = sizeof(pair_out)};
    weir_stream *j = weir_stream_interval_join(in[0], in[1], &spec);
    cr_assert(j, "%s", weir_job_error(job));
    weir_collect *c;
    cr_assert(weir_sink_collect(j, &c));
    tu_run_ok(job);
    size_t n = weir_collect_count(c);
    pair_out *got = malloc((n + 1) * sizeof *got);
    for (size_t i = 0; i < n; i++)
        memcpy(&got[i], weir_collect_elem(c, i), sizeof *got);
    qsort(got, n, sizeof *got, cmp_pair);
    pair_out *want = malloc((size_t)N * N * sizeof *want);
    size_t m = 0;
    for (int a = 0; a < N; a++)
        for (int b = 0; b < N; b++) {
            const ev *l = &side[0][a], *r = &side[1][b];
            if (l->key == r->key && r->ts > l->ts - 5 && r->ts <= l->ts + 3)
                want[m++] = (pair_out){l->id, r->id, l->ts > r->ts ? l->ts : r->ts};
        }
    qsort(want, m, sizeof *want, cmp_pair);
    cr_assert_eq(n, m, "got %zu pairs, want %zu", n, m);
    for (size_t i = 0; i < m; i++)
        cr_assert(got[i].lid == want[i].lid && got[i].rid == want[i].rid &&
                  got[i].ts == want[i].ts, "pair %zu differs", i);
    cr_assert(m > 100);
    free(got);
    free(want);
    weir_job_destroy(job);
}
