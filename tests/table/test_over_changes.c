/* test_over_changes.c — an OVER aggregate over an updating input
 * (weir_table_over_changes, weir's extension), checked against a
 * brute-force recomputation over random changelogs.
 *
 * Each partition key gets a random changelog (inserts, updates as -U/+U
 * pairs and deletes of rows the key holds; order values from a small range,
 * so that ties and rows of equal bytes are common, and NULLs), all keys
 * interleaved in one job. The model keeps each key's rows in (order value,
 * arrival) order, a retraction taking out the first row of equal bytes,
 * and after every input row recomputes every row's frame from scratch; the
 * changelog it expects is the changed row with its own kind (+I/+U as
 * computed, -U/-D as last emitted), then -U (as last emitted) and +U for
 * each other row whose output changed, in order. The operator's changelog
 * per key must be exactly that sequence: nothing missing, nothing extra
 * (a row whose frame's value did not change goes out again never). Run for
 * ROWS 2 PRECEDING and ROWS UNBOUNDED PRECEDING, at parallelism 1 and 4.
 * Bound: 2000 keys x at most 30 rows each per run (well under a second in
 * a release build).
 */
#include "table/table_testutil.h"

enum { KEYS = 2000, MAX_OPS = 30, MAX_ROWS = 10, MAX_EMITS = 4 * MAX_OPS * (MAX_ROWS + 2) };

typedef struct xrow {
    bool onull, vnull;
    int64_t o, v;
    int64_t seq;      /* arrival */
    char out[256];    /* the output as last emitted (values only) */
} xrow;

static uint64_t rng = 0x9e3779b97f4a7c15ull;
static uint64_t rnd(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

typedef struct keycase {
    xrow rows[MAX_ROWS + 1]; /* in (o, seq) order */
    int n;
    int64_t next_seq;
    char (*want)[272]; /* the expected changelog, "+I[...]" each */
    int nwant;
    int seen;
    char fail[768];
} keycase;

static keycase *cases;
static weir_schema *in_schema;
static const weir_schema *out_schema;
static int64_t preceding; /* -1: unbounded */

static bool before(const xrow *a, const xrow *b)
{
    int64_t ao = a->onull ? INT64_MIN : a->o, bo = b->onull ? INT64_MIN : b->o;
    return ao < bo || (ao == bo && a->seq < b->seq);
}

static void fmt_int(char *buf, size_t size, bool null, int64_t v)
{
    if (null)
        snprintf(buf, size, "null");
    else
        snprintf(buf, size, "%lld", (long long)v);
}

/* Row j's output values over its frame, from scratch. */
static void output_of(const keycase *k, int64_t key, int j, char *out, size_t size)
{
    int from = preceding >= 0 && j > preceding ? j - (int)preceding : 0;
    int64_t cnt = 0, cv = 0, sum = 0, mn = 0, mx = 0;
    for (int i = from; i <= j; i++) {
        const xrow *r = &k->rows[i];
        cnt++;
        if (r->vnull)
            continue;
        if (cv == 0 || r->v < mn)
            mn = r->v;
        if (cv == 0 || r->v > mx)
            mx = r->v;
        cv++;
        sum += r->v;
    }
    const xrow *r = &k->rows[j];
    char o[24], v[24], s[24], lo[24], hi[24];
    fmt_int(o, sizeof o, r->onull, r->o);
    fmt_int(v, sizeof v, r->vnull, r->v);
    fmt_int(s, sizeof s, cv == 0, sum);
    fmt_int(lo, sizeof lo, cv == 0, mn);
    fmt_int(hi, sizeof hi, cv == 0, mx);
    snprintf(out, size, "%lld, %s, %s, %s, %lld, %lld, %s, %s", (long long)key, o, v, s,
             (long long)cnt, (long long)cv, lo, hi);
}

static void want(keycase *k, const char *kind, const char *values)
{
    cr_assert_lt(k->nwant, MAX_EMITS);
    snprintf(k->want[k->nwant++], sizeof k->want[0], "%s[%s]", kind, values);
}

/* Every row from `from` on computed again: -U/+U for each that changed. */
static void model_refresh(keycase *k, int64_t key, int from)
{
    for (int j = from; j < k->n; j++) {
        char now[256];
        output_of(k, key, j, now, sizeof now);
        if (strcmp(now, k->rows[j].out) == 0)
            continue;
        want(k, "-U", k->rows[j].out);
        want(k, "+U", now);
        strcpy(k->rows[j].out, now);
    }
}

static void model_add(keycase *k, int64_t key, const xrow *x, const char *kind)
{
    xrow r = *x;
    r.seq = k->next_seq++;
    int at = k->n;
    while (at > 0 && before(&r, &k->rows[at - 1]))
        at--;
    memmove(&k->rows[at + 1], &k->rows[at], (size_t)(k->n - at) * sizeof r);
    k->rows[at] = r;
    k->n++;
    output_of(k, key, at, k->rows[at].out, sizeof k->rows[at].out);
    want(k, kind, k->rows[at].out);
    model_refresh(k, key, at + 1);
}

/* Takes out the first row (in order) equal to x's values. */
static void model_remove(keycase *k, int64_t key, const xrow *x, const char *kind)
{
    int at = 0;
    while (at < k->n && !(k->rows[at].onull == x->onull && k->rows[at].vnull == x->vnull &&
                          (x->onull || k->rows[at].o == x->o) &&
                          (x->vnull || k->rows[at].v == x->v)))
        at++;
    cr_assert_lt(at, k->n);
    want(k, kind, k->rows[at].out);
    memmove(&k->rows[at], &k->rows[at + 1], (size_t)(k->n - at - 1) * sizeof k->rows[0]);
    k->n--;
    model_refresh(k, key, at);
}

static void random_row(xrow *r)
{
    memset(r, 0, sizeof *r);
    r->onull = rnd() % 12 == 0;
    r->o = (int64_t)(rnd() % 6);
    r->vnull = rnd() % 6 == 0;
    r->v = (int64_t)(rnd() % 7) - 3;
}

static void set_row(unsigned char *row, weir_row_kind kind, int64_t key, const xrow *x)
{
    weir_row_init(in_schema, row, kind);
    weir_row_set_int(in_schema, row, 0, key);
    if (x->onull)
        weir_row_set_null(in_schema, row, 1);
    else
        weir_row_set_int(in_schema, row, 1, x->o);
    if (x->vnull)
        weir_row_set_null(in_schema, row, 2);
    else
        weir_row_set_int(in_schema, row, 2, x->v);
}

static int sink(const void *elem, int64_t ts, int subtask, void *arg)
{
    (void)ts;
    (void)subtask;
    (void)arg;
    int64_t key = weir_row_get_int(out_schema, elem, 0);
    keycase *k = &cases[key];
    if (k->fail[0])
        return 0;
    char got[320];
    weir_row_format(out_schema, elem, got, sizeof got);
    if (k->seen >= k->nwant || strcmp(k->want[k->seen], got) != 0)
        snprintf(k->fail, sizeof k->fail, "output %d is %s, the model's %s", k->seen, got,
                 k->seen < k->nwant ? k->want[k->seen] : "(nothing more)");
    k->seen++;
    return 0;
}

static void run_differential(int parallelism, int64_t frame_preceding)
{
    preceding = frame_preceding;
    rng = 0x9e3779b97f4a7c15ull + (uint64_t)parallelism * 31u + (uint64_t)(frame_preceding + 2);
    cases = calloc(KEYS, sizeof *cases);
    in_schema = tt_schema("changes", "p BIGINT, o BIGINT, v BIGINT", NULL);
    size_t rs = weir_schema_row_size(in_schema);
    size_t cap = (size_t)KEYS * MAX_OPS * 2, n = 0;
    unsigned char *rows = malloc(cap * rs);
    int *left = malloc(KEYS * sizeof *left);
    for (int k = 0; k < KEYS; k++) {
        left[k] = 1 + (int)(rnd() % MAX_OPS);
        cases[k].want = calloc(MAX_EMITS, sizeof *cases[k].want);
    }
    int active = KEYS;
    while (active > 0) {
        int k = (int)(rnd() % KEYS);
        if (left[k] == 0)
            continue;
        keycase *c = &cases[k];
        int op = (int)(rnd() % 4);
        if (c->n == 0)
            op = 0;
        if (c->n == MAX_ROWS && (op == 0 || op == 3))
            op = 2;
        xrow x;
        if (op == 0 || op == 3) { /* insert (twice as likely) */
            random_row(&x);
            set_row(rows + n++ * rs, WEIR_ROW_INSERT, k, &x);
            model_add(c, k, &x, "+I");
        } else if (op == 1) { /* update: -U a row it holds, +U a new one */
            x = c->rows[rnd() % (uint64_t)c->n];
            set_row(rows + n++ * rs, WEIR_ROW_UPDATE_BEFORE, k, &x);
            model_remove(c, k, &x, "-U");
            random_row(&x);
            set_row(rows + n++ * rs, WEIR_ROW_UPDATE_AFTER, k, &x);
            model_add(c, k, &x, "+U");
        } else { /* delete a row it holds */
            x = c->rows[rnd() % (uint64_t)c->n];
            set_row(rows + n++ * rs, WEIR_ROW_DELETE, k, &x);
            model_remove(c, k, &x, "-D");
        }
        if (--left[k] == 0)
            active--;
    }
    weir_job *job = tu_job(&(weir_job_config){.workers = 2, .parallelism = 1,
                                              .clock = WEIR_CLOCK_VIRTUAL});
    weir_table_env *env;
    cr_assert_eq(weir_table_env_create(job, &(weir_table_config){.parallelism = parallelism},
                                       &env), 0);
    weir_table *src = weir_table_from_changelog_stream(
        env, weir_source_array(job, rows, n, rs, NULL), in_schema, WEIR_CHANGELOG_ALL);
    weir_table_over_window w = {.partition_by = "p",
                                .frame = preceding >= 0 ? WEIR_OVER_ROWS
                                                        : WEIR_OVER_ROWS_UNBOUNDED,
                                .preceding = preceding >= 0 ? preceding : 0};
    weir_table *t = weir_table_over_changes(src, &w, "o",
                                            "SUM(v) AS s, COUNT(*) AS c, COUNT(v) AS cv, "
                                            "MIN(v) AS lo, MAX(v) AS hi");
    cr_assert(t, "%s", weir_job_error(job));
    cr_assert_eq(weir_table_changelog_mode(t), WEIR_CHANGELOG_ALL);
    out_schema = weir_table_schema(t);
    weir_stream *out = weir_table_to_changelog_stream(t, 0);
    weir_stream_set_parallelism(weir_sink_callback(out, sink, NULL), parallelism);
    tu_run_ok(job);
    int checked = 0;
    for (int k = 0; k < KEYS; k++) {
        keycase *c = &cases[k];
        cr_assert(!c->fail[0], "p=%d preceding %lld key %d: %s", parallelism,
                  (long long)preceding, k, c->fail);
        cr_assert_eq(c->seen, c->nwant, "p=%d preceding %lld key %d: %d of %d outputs seen",
                     parallelism, (long long)preceding, k, c->seen, c->nwant);
        checked += c->nwant;
        free(c->want);
    }
    cr_assert_gt(checked, 4 * KEYS, "the cases emit more than a row per change on average");
    weir_job_destroy(job);
    weir_table_env_destroy(env);
    weir_schema_destroy(in_schema);
    free(rows);
    free(left);
    free(cases);
}

Test(over_changes, rows_bounded_parallelism_1, .timeout = 120)
{
    run_differential(1, 2);
}

Test(over_changes, rows_bounded_parallelism_4, .timeout = 120)
{
    run_differential(4, 2);
}

Test(over_changes, rows_unbounded_parallelism_1, .timeout = 120)
{
    run_differential(1, -1);
}

Test(over_changes, rows_unbounded_parallelism_4, .timeout = 120)
{
    run_differential(4, -1);
}

/* ROWS 0 PRECEDING: each row's frame is itself, so a change re-emits
 * nothing but the row that changed. */
Test(over_changes, rows_zero_preceding, .timeout = 120)
{
    run_differential(2, 0);
}

/* The error of weir_table_over_changes over a one-row changelog of `mode`
 * (a job of its own: a job keeps its first error). */
static void refused(unsigned mode, weir_table_over_frame frame, const char *order_by,
                    const char *want)
{
    weir_job *job = tu_job(&(weir_job_config){.workers = 1, .clock = WEIR_CLOCK_VIRTUAL});
    weir_table_env *env;
    cr_assert_eq(weir_table_env_create(job, &(weir_table_config){0}, &env), 0);
    weir_schema *s = tt_schema("c", "p BIGINT NOT NULL, o BIGINT, v STRING", "p");
    size_t rs = weir_schema_row_size(s);
    unsigned char *row = calloc(1, rs);
    weir_row_init(s, row, WEIR_ROW_INSERT);
    weir_table *src = weir_table_from_changelog_stream(
        env, weir_source_array(job, row, 1, rs, NULL), s, mode);
    cr_assert(src, "%s", weir_job_error(job));
    weir_table_over_window w = {.partition_by = "p", .frame = frame, .preceding = 1};
    cr_assert_null(weir_table_over_changes(src, &w, order_by, "COUNT(*)"));
    cr_assert(strstr(weir_job_error(job), want), "%s", weir_job_error(job));
    weir_job_destroy(job);
    weir_table_env_destroy(env);
    weir_schema_destroy(s);
    free(row);
}

/* What it refuses: a RANGE frame, an ORDER BY column that is no order, an
 * upsert input. */
Test(over_changes, refusals)
{
    refused(WEIR_CHANGELOG_ALL, WEIR_OVER_RANGE, "o", "takes a ROWS frame");
    refused(WEIR_CHANGELOG_ALL, WEIR_OVER_RANGE_UNBOUNDED, "o", "takes a ROWS frame");
    refused(WEIR_CHANGELOG_ALL, WEIR_OVER_ROWS, "v",
            "is not a timestamp, a date, a time or an integer");
    refused(WEIR_CHANGELOG_ALL, WEIR_OVER_ROWS, "nope", "is not a column of the input");
    refused(WEIR_CHANGELOG_UPSERT, WEIR_OVER_ROWS, "o", "upsert");
}
