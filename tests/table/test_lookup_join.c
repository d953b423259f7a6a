/* test_lookup_join.c — the lookup join (table/table_lookup_join.c, Flink's
 * LookupJoin with the FULL cache) in the table API, against tables loaded
 * from memory by a load function of the test's.
 *
 * The operator is driven through a harness (weir/harness.h) on its virtual
 * clock: the rows a key finds in the table's order, a row's kind passed on,
 * LEFT's padding, the reload on the job clock, a load that fails. A job at
 * parallelism 2 (each subtask loads its own copy) runs a random
 * differential: random probe rows (NULL keys too) and a random table
 * (duplicate keys too), the output against a nested loop over the same
 * rows, INNER and LEFT, with a filter in the rest of ON.
 */
#include <stdatomic.h>

#include "table/table_testutil.h"
#include "table_lookup_join.h"
#include "weir/harness.h"

/* ---- a table in memory ------------------------------------------------------------------ */

typedef struct mem_table {
    const weir_schema *s;
    /* versions[v]: the rows ("+I 1|one") a load gives the v-th time (the
     * last version again after them) */
    const char *const *versions[4];
    int nversions;
    int64_t (*rows)[3]; /* or: k, w and whether k is NULL, n of them */
    int nrows;
    atomic_int loads;
    const char *fail; /* a load fails with this message */
} mem_table;

static int mem_load(void *arg, weir_lookup_row_fn fn, void *fn_arg, char *err, size_t errsize)
{
    mem_table *m = arg;
    int v = atomic_fetch_add(&m->loads, 1);
    if (m->fail) {
        snprintf(err, errsize, "%s", m->fail);
        return WEIR_EFORMAT;
    }
    unsigned char row[1024];
    if (m->rows) {
        for (int i = 0; i < m->nrows; i++) {
            weir_row_init(m->s, row, WEIR_ROW_INSERT);
            if (m->rows[i][2])
                weir_row_set_null(m->s, row, 0);
            else
                weir_row_set_int(m->s, row, 0, m->rows[i][0]);
            weir_row_set_int(m->s, row, 1, m->rows[i][1]);
            int r = fn(row, fn_arg);
            if (r)
                return r;
        }
        return 0;
    }
    const char *const *rows = m->versions[v < m->nversions ? v : m->nversions - 1];
    for (int i = 0; rows[i]; i++) {
        tt_row(m->s, row, rows[i]);
        int r = fn(row, fn_arg);
        if (r)
            return r;
    }
    return 0;
}

/* ---- the operator in a harness ------------------------------------------------------------ */

typedef struct lh {
    weir_job *job;
    weir_table_env *env;
    weir_schema *ls, *ts;
    weir_table *t;
    weir_harness *h;
    char out[8192];
    size_t len;
    char err[512];
} lh;

static void on_record(int tag, const void *elem, int64_t ts, void *arg)
{
    (void)tag;
    lh *j = arg;
    char line[512];
    weir_row_format(weir_table_schema(j->t), elem, line, sizeof line);
    size_t n = (size_t)snprintf(j->out + j->len, sizeof j->out - j->len, "%s @%lld\n", line,
                                (long long)ts);
    cr_assert(j->len + n < sizeof j->out, "output too long");
    j->len += n;
}

/* The join of a left table (lcols) with mem (tcols), through a harness;
 * NULL when the harness's open failed (j->err says why). */
static lh *lh_new(const char *lcols, const char *tcols, mem_table *mem, int64_t reload_ms,
                  weir_join_kind kind, const char *cond)
{
    lh *j = calloc(1, sizeof *j);
    j->job = tu_job(&(weir_job_config){.workers = 1, .clock = WEIR_CLOCK_VIRTUAL,
                                        .parallelism = 1});
    cr_assert_eq(weir_table_env_create(j->job, NULL, &j->env), 0);
    j->ls = tt_schema("l", lcols, NULL);
    j->ts = tt_schema("side", tcols, NULL);
    mem->s = j->ts;
    weir_stream *st = weir_source_array(j->job, NULL, 0, weir_schema_row_size(j->ls), NULL);
    weir_table *in = weir_table_from_changelog_stream(j->env, st, j->ls, WEIR_CHANGELOG_ALL);
    cr_assert(in, "%s", weir_job_error(j->job));
    weir_lookup_source src = {.name = "side", .schema = j->ts, .load = mem_load, .arg = mem,
                              .reload_ms = reload_ms};
    j->t = weir_table_lookup_join(in, &src, kind, cond);
    cr_assert(j->t, "%s", weir_job_error(j->job));
    weir_process_spec spec;
    cr_assert_eq(weir__table_lookup_join_operator(j->t, &spec), 0);
    weir_harness_config hc = {
        .op = &spec,
        .inputs = 1,
        .in_size = {weir_schema_row_size(j->ls)},
        .watermark_interval_ms = WEIR_DISABLED,
        .output = {.on_record = on_record, .arg = j},
    };
    if (weir_harness_create(&hc, &j->h, j->err, sizeof j->err) != 0)
        j->h = NULL;
    return j;
}

static void lh_free(lh *j)
{
    weir_harness_destroy(j->h);
    weir_job_destroy(j->job);
    weir_table_env_destroy(j->env);
    weir_schema_destroy(j->ls);
    weir_schema_destroy(j->ts);
    free(j);
}

static void lh_row(lh *j, const char *text, int64_t ts)
{
    tt_harness_row(j->h, 0, j->ls, text, ts);
}

static const char *const SIDE[] = {"+I 1|one", "+I 2|two", "+I null|none", "+I 2|two again",
                                   "+I 5|five", NULL};

Test(lookup_join, inner_expression_key_duplicates_and_kinds)
{
    mem_table mem = {.versions = {SIDE}, .nversions = 1};
    lh *j = lh_new("a BIGINT, b STRING", "k INT, v STRING", &mem, 0, WEIR_JOIN_INNER,
                   "MOD(l.a, 10) = side.k");
    cr_assert(j->h, "%s", j->err);
    lh_row(j, "+I 11|x", 100);
    lh_row(j, "+I 12|y", 101);  /* two rows of key 2: both, in the table's order */
    lh_row(j, "+I null|z", 102); /* a NULL key meets nothing (nor the NULL row) */
    lh_row(j, "+I 3|w", 103);   /* no row: nothing */
    lh_row(j, "-D 11|x", 104);  /* the kind passes on */
    cr_assert_eq(weir_harness_end(j->h), 0, "%s", weir_harness_last_error(j->h));
    cr_assert_str_eq(j->out, "+I[11, x, 1, one] @100\n"
                             "+I[12, y, 2, two] @101\n"
                             "+I[12, y, 2, two again] @101\n"
                             "-D[11, x, 1, one] @104\n");
    cr_assert_eq(atomic_load(&mem.loads), 1);
    lh_free(j);
}

Test(lookup_join, left_pads_and_filters)
{
    mem_table mem = {.versions = {SIDE}, .nversions = 1};
    lh *j = lh_new("a BIGINT, b STRING", "k INT, v STRING", &mem, 0, WEIR_JOIN_LEFT,
                   "a = k AND v <> 'two'");
    cr_assert(j->h, "%s", j->err);
    lh_row(j, "+I 2|x", 1); /* 'two' filtered out, 'two again' kept */
    lh_row(j, "+I 3|y", 2); /* none: padded */
    lh_row(j, "+I null|z", 3);
    cr_assert_eq(weir_harness_end(j->h), 0, "%s", weir_harness_last_error(j->h));
    cr_assert_str_eq(j->out, "+I[2, x, 2, two again] @1\n"
                             "+I[3, y, null, null] @2\n"
                             "+I[null, z, null, null] @3\n");
    lh_free(j);
}

Test(lookup_join, reloads_on_the_job_clock)
{
    static const char *const v1[] = {"+I 1|old", NULL};
    static const char *const v2[] = {"+I 1|new", "+I 2|added", NULL};
    mem_table mem = {.versions = {v1, v2}, .nversions = 2};
    lh *j = lh_new("a BIGINT", "k BIGINT, v STRING", &mem, 1000, WEIR_JOIN_LEFT, "a = k");
    cr_assert(j->h, "%s", j->err);
    lh_row(j, "+I 1", 1);
    lh_row(j, "+I 2", 2);
    cr_assert_eq(weir_harness_advance(j->h, 999), 0);
    lh_row(j, "+I 1", 3); /* not yet reloaded */
    cr_assert_eq(weir_harness_advance(j->h, 1000), 0);
    lh_row(j, "+I 1", 4); /* the table as loaded at 1000 */
    lh_row(j, "+I 2", 5);
    cr_assert_eq(weir_harness_end(j->h), 0, "%s", weir_harness_last_error(j->h));
    cr_assert_str_eq(j->out, "+I[1, 1, old] @1\n"
                             "+I[2, null, null] @2\n"
                             "+I[1, 1, old] @3\n"
                             "+I[1, 1, new] @4\n"
                             "+I[2, 2, added] @5\n");
    cr_assert_eq(atomic_load(&mem.loads), 2);
    lh_free(j);
}

Test(lookup_join, a_failed_load_fails_the_open_with_its_message)
{
    mem_table mem = {.versions = {SIDE}, .nversions = 1,
                     .fail = "data/side.csv:3: 'x' is not an INT (column 'k')"};
    lh *j = lh_new("a BIGINT", "k INT, v STRING", &mem, 0, WEIR_JOIN_INNER, "a = k");
    cr_assert_null(j->h);
    cr_assert(strstr(j->err, "loading table side: data/side.csv:3: 'x' is not an INT"), "%s",
              j->err);
    lh_free(j);
}

/* ---- refusals ------------------------------------------------------------------------------ */

static void refused(weir_join_kind kind, const char *cond, const char *want)
{
    weir_job *job = tu_job(&(weir_job_config){.workers = 1, .parallelism = 1});
    weir_table_env *env;
    cr_assert_eq(weir_table_env_create(job, NULL, &env), 0);
    weir_schema *ls = tt_schema("l", "a BIGINT, s STRING", NULL);
    weir_schema *ts = tt_schema("side", "k BIGINT, v STRING", NULL);
    mem_table mem = {.versions = {SIDE}, .nversions = 1, .s = ts};
    weir_table *in = weir_table_from_stream(
        env, weir_source_array(job, NULL, 0, weir_schema_row_size(ls), NULL), ls);
    weir_lookup_source src = {.name = "side", .schema = ts, .load = mem_load, .arg = &mem};
    cr_assert_null(weir_table_lookup_join(in, &src, kind, cond));
    cr_assert(strstr(weir_job_error(job), want), "got: %s", weir_job_error(job));
    weir_job_destroy(job);
    weir_table_env_destroy(env);
    weir_schema_destroy(ls);
    weir_schema_destroy(ts);
}

Test(lookup_join, refusals)
{
    refused(WEIR_JOIN_RIGHT, "a = k", "Correlate has invalid join type RIGHT");
    refused(WEIR_JOIN_FULL, "a = k", "Correlate has invalid join type FULL");
    refused(WEIR_JOIN_INNER, "a + 1 = k + 1",
            "Temporal table join requires an equality condition on fields of table [side].");
    refused(WEIR_JOIN_INNER, "a > k", "Temporal table join requires an equality condition");
    refused(WEIR_JOIN_INNER, "s = k", "the lookup key s = k compares VARCHAR(64) with BIGINT");
    refused(WEIR_JOIN_INNER, "a = k AND nope = 1", "nope");
}

/* ---- differential: a job at parallelism 2 against a nested loop ---------------------------- */

static uint64_t rng_state;

/* lines (n of them, each malloc'ed) sorted and joined; frees them */
static char *joined(char **lines, size_t n)
{
    qsort(lines, n, sizeof *lines, tt_cmp_str);
    size_t len = 1;
    for (size_t i = 0; i < n; i++)
        len += strlen(lines[i]) + 1;
    char *s = malloc(len), *p = s;
    *p = 0;
    for (size_t i = 0; i < n; i++) {
        p += sprintf(p, "%s\n", lines[i]);
        free(lines[i]);
    }
    return s;
}

static void differential(weir_join_kind kind, uint64_t seed)
{
    rng_state = seed;
    enum { NL = 200, NT = 30 };
    weir_job *job = tu_job(&(weir_job_config){.workers = 2, .parallelism = 2});
    weir_table_env *env;
    cr_assert_eq(weir_table_env_create(job, &(weir_table_config){.parallelism = 2}, &env), 0);
    weir_schema *ls = tt_schema("l", "k INT, v BIGINT", NULL);
    weir_schema *ts = tt_schema("side", "k BIGINT, w BIGINT", NULL);
    /* the probe rows: k in 0..7 or NULL (1 in 8), v in 0..2 */
    int64_t lk[NL], lv[NL];
    bool lnull[NL];
    size_t rs = weir_schema_row_size(ls);
    unsigned char *rows = calloc(NL, rs);
    for (int i = 0; i < NL; i++) {
        lnull[i] = tt_rnd(&rng_state) % 8 == 0;
        lk[i] = (int64_t)(tt_rnd(&rng_state) % 8);
        lv[i] = (int64_t)(tt_rnd(&rng_state) % 3);
        unsigned char *r = rows + (size_t)i * rs;
        weir_row_init(ls, r, WEIR_ROW_INSERT);
        if (lnull[i])
            weir_row_set_null(ls, r, 0);
        else
            weir_row_set_int(ls, r, 0, lk[i]);
        weir_row_set_int(ls, r, 1, lv[i]);
    }
    /* the table: keys 0..5 (so 6 and 7 find nothing), repeated, and NULL */
    int64_t trows[NT][3];
    for (int i = 0; i < NT; i++) {
        trows[i][0] = (int64_t)(tt_rnd(&rng_state) % 6);
        trows[i][1] = (int64_t)(tt_rnd(&rng_state) % 3);
        trows[i][2] = tt_rnd(&rng_state) % 10 == 0;
    }
    mem_table mem = {.s = ts, .rows = trows, .nrows = NT};
    weir_table *in = weir_table_from_stream(env, weir_source_array(job, rows, NL, rs, NULL), ls);
    weir_lookup_source src = {.name = "side", .schema = ts, .load = mem_load, .arg = &mem};
    weir_table *t = weir_table_lookup_join(in, &src, kind, "l.k = side.k AND l.v <> side.w");
    cr_assert(t, "%s", weir_job_error(job));
    weir_collect *c;
    cr_assert(weir_sink_collect(weir_table_to_stream(t), &c), "%s", weir_job_error(job));
    tu_run_ok(job);
    cr_assert_eq(atomic_load(&mem.loads), 2, "each of the 2 subtasks loads its own copy");
    const weir_schema *os = weir_table_schema(t);
    size_t n = weir_collect_count(c);
    char **got = calloc(n + 1, sizeof *got);
    for (size_t i = 0; i < n; i++) {
        char line[256];
        weir_row_format(os, weir_collect_elem(c, i), line, sizeof line);
        got[i] = strdup(line);
    }
    char *got_text = joined(got, n);
    char **want = calloc((size_t)NL * NT + NL, sizeof *want);
    size_t m = 0;
    for (int i = 0; i < NL; i++) {
        int found = 0;
        for (int r = 0; r < NT && !lnull[i]; r++) {
            if (trows[r][2] || trows[r][0] != lk[i] || trows[r][1] == lv[i])
                continue;
            char line[256];
            snprintf(line, sizeof line, "+I[%lld, %lld, %lld, %lld]", (long long)lk[i],
                     (long long)lv[i], (long long)trows[r][0], (long long)trows[r][1]);
            want[m++] = strdup(line);
            found++;
        }
        if (!found && kind == WEIR_JOIN_LEFT) {
            char line[256], k[24];
            snprintf(k, sizeof k, "%lld", (long long)lk[i]);
            snprintf(line, sizeof line, "+I[%s, %lld, null, null]", lnull[i] ? "null" : k,
                     (long long)lv[i]);
            want[m++] = strdup(line);
        }
    }
    char *want_text = joined(want, m);
    cr_assert_str_eq(got_text, want_text, "kind %d seed %llu", (int)kind,
                     (unsigned long long)seed);
    free(got_text);
    free(want_text);
    free(got);
    free(want);
    free(rows);
    weir_job_destroy(job);
    weir_table_env_destroy(env);
    weir_schema_destroy(ls);
    weir_schema_destroy(ts);
}

Test(lookup_join, differential, .timeout = 120)
{
    for (uint64_t seed = 1; seed <= 10; seed++) {
        differential(WEIR_JOIN_INNER, seed * 7919);
        differential(WEIR_JOIN_LEFT, seed * 104729);
    }
}
