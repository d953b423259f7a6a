/* test_group_differential.c — random changelogs through a group aggregate,
 * checked against the aggregate recomputed from scratch.
 *
 * 10 000 cases, each one key's random changelog (inserts, updates as
 * -U/+U pairs and deletes of rows the key holds, with NULLs), all keys
 * interleaved in one job; run at parallelism 1 and 4. For each key, the
 * sequence of results the aggregate recomputed from scratch over the
 * materialized input takes after every input row (consecutive equal
 * results counted once: the aggregate emits nothing then) must be exactly
 * the sequence of states its materialized output goes through (+I, a -U/+U
 * pair, -D), and every -U / -D must retract exactly the row materialized
 * at that moment. Bound: 10 000 keys x at most 24 rows each, two runs
 * (well under a second in a release build, a few seconds under ASan).
 */
#include "table/table_testutil.h"

enum { KEYS = 10000, MAX_OPS = 24, MAX_ROWS = 8 };

typedef struct xrow {
    bool vnull;
    int64_t v;
    char s[4]; /* "" is NULL */
} xrow;

static uint64_t rng = 0x1234567887654321ull;
static uint64_t rnd(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

typedef struct keycase {
    xrow rows[MAX_ROWS];
    int n;
    /* expected states, formatted without the kind ("" for no row) */
    char (*states)[160];
    int nstates;
    /* the output side */
    char current[160];
    bool has;
    int seen;      /* states matched so far */
    bool pending_ub;
    char fail[512];
} keycase;

static keycase *cases;
static weir_schema *in_schema;
static const weir_schema *out_schema;

/* The aggregate, from scratch, formatted as the output row's values. */
static void recompute(const keycase *k, int64_t key, char *out, size_t size)
{
    if (k->n == 0) {
        out[0] = 0;
        return;
    }
    int64_t cnt = k->n, cv = 0, sum = 0, mn = 0, mx = 0;
    const char *ms = NULL;
    char distinct[MAX_ROWS][4];
    int nd = 0;
    for (int i = 0; i < k->n; i++) {
        const xrow *r = &k->rows[i];
        if (!r->vnull) {
            if (cv == 0 || r->v < mn)
                mn = r->v;
            if (cv == 0 || r->v > mx)
                mx = r->v;
            cv++;
            sum += r->v;
        }
        if (r->s[0]) {
            if (!ms || strcmp(r->s, ms) < 0)
                ms = r->s;
            bool dup = false;
            for (int j = 0; j < nd; j++)
                dup = dup || strcmp(distinct[j], r->s) == 0;
            if (!dup)
                strcpy(distinct[nd++], r->s);
        }
    }
    char sv[32] = "null", av[32] = "null", mnv[32] = "null", mxv[32] = "null";
    if (cv) {
        snprintf(sv, sizeof sv, "%lld", (long long)sum);
        snprintf(av, sizeof av, "%lld", (long long)(sum / cv));
        snprintf(mnv, sizeof mnv, "%lld", (long long)mn);
        snprintf(mxv, sizeof mxv, "%lld", (long long)mx);
    }
    snprintf(out, size, "%lld, %lld, %lld, %s, %s, %s, %s, %s, %d", (long long)key,
             (long long)cnt, (long long)cv, sv, mnv, mxv, av, ms ? ms : "null", nd);
}

static void push_state(keycase *k, int64_t key)
{
    char s[160];
    recompute(k, key, s, sizeof s);
    if (k->nstates > 0 && strcmp(k->states[k->nstates - 1], s) == 0)
        return;
    if (k->nstates == 0 && s[0] == 0)
        return;
    strcpy(k->states[k->nstates++], s);
}

static void random_row(xrow *r)
{
    memset(r, 0, sizeof *r);
    r->vnull = rnd() % 5 == 0;
    r->v = (int64_t)(rnd() % 21) - 10;
    if (rnd() % 4)
        r->s[0] = (char)('a' + rnd() % 4);
}

static void set_row(unsigned char *row, weir_row_kind kind, int64_t key, const xrow *x)
{
    weir_row_init(in_schema, row, kind);
    weir_row_set_int(in_schema, row, 0, key);
    if (x->vnull)
        weir_row_set_null(in_schema, row, 1);
    else
        weir_row_set_int(in_schema, row, 1, x->v);
    if (x->s[0])
        weir_row_set_string(in_schema, row, 2, x->s, strlen(x->s));
    else
        weir_row_set_null(in_schema, row, 2);
}

/* Strips "+I[" ... "]". */
static void values_of(const void *row, char *out, size_t size)
{
    char buf[256];
    weir_row_format(out_schema, row, buf, sizeof buf);
    size_t n = strlen(buf);
    buf[n - 1] = 0;
    snprintf(out, size, "%.150s", buf + 3);
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
    char v[160];
    values_of(elem, v, sizeof v);
    weir_row_kind kind = weir_row_get_kind(elem);
    switch (kind) {
    case WEIR_ROW_INSERT:
        if (k->has || k->pending_ub)
            snprintf(k->fail, sizeof k->fail, "+I[%s] over a materialized row", v);
        break;
    case WEIR_ROW_UPDATE_BEFORE:
    case WEIR_ROW_DELETE:
        if (!k->has || strcmp(k->current, v) != 0 || k->pending_ub)
            snprintf(k->fail, sizeof k->fail, "%s[%s] retracts what is not materialized (%s)",
                     weir_row_kind_name(kind), v, k->has ? k->current : "nothing");
        break;
    case WEIR_ROW_UPDATE_AFTER:
        if (!k->pending_ub)
            snprintf(k->fail, sizeof k->fail, "+U[%s] without its -U", v);
        break;
    }
    if (k->fail[0])
        return 0;
    if (kind == WEIR_ROW_UPDATE_BEFORE) {
        k->pending_ub = true;
        return 0;
    }
    k->pending_ub = false;
    if (kind == WEIR_ROW_DELETE) {
        k->has = false;
        k->current[0] = 0;
    } else {
        k->has = true;
        strcpy(k->current, v);
    }
    if (k->seen >= k->nstates || strcmp(k->states[k->seen], k->current) != 0)
        snprintf(k->fail, sizeof k->fail, "state %d is [%s], from scratch [%s]", k->seen,
                 k->current, k->seen < k->nstates ? k->states[k->seen] : "(no more)");
    k->seen++;
    return 0;
}

static void run_differential(int parallelism)
{
    rng = 0x1234567887654321ull + (uint64_t)parallelism;
    cases = calloc(KEYS, sizeof *cases);
    in_schema = tt_schema("changes", "k BIGINT, v BIGINT, s VARCHAR(3)", NULL);
    size_t rs = weir_schema_row_size(in_schema);
    /* The changelog rows, keys interleaved at random. */
    size_t cap = (size_t)KEYS * MAX_OPS * 2, n = 0;
    unsigned char *rows = malloc(cap * rs);
    int *left = malloc(KEYS * sizeof *left);
    for (int k = 0; k < KEYS; k++) {
        left[k] = 1 + (int)(rnd() % MAX_OPS);
        cases[k].states = calloc(2 * MAX_OPS + 2, sizeof *cases[k].states);
    }
    int active = KEYS;
    while (active > 0) {
        int k = (int)(rnd() % KEYS);
        if (left[k] == 0)
            continue;
        keycase *c = &cases[k];
        int op = (int)(rnd() % 3);
        if (c->n == 0)
            op = 0;
        if (c->n == MAX_ROWS && op == 0)
            op = 2;
        if (op == 0) { /* insert */
            random_row(&c->rows[c->n]);
            set_row(rows + n++ * rs, WEIR_ROW_INSERT, k, &c->rows[c->n]);
            c->n++;
            push_state(c, k);
        } else if (op == 1) { /* update: -U old, +U new */
            int i = (int)(rnd() % (uint64_t)c->n);
            set_row(rows + n++ * rs, WEIR_ROW_UPDATE_BEFORE, k, &c->rows[i]);
            xrow old = c->rows[i];
            c->rows[i] = c->rows[--c->n];
            push_state(c, k);
            random_row(&c->rows[c->n]);
            (void)old;
            set_row(rows + n++ * rs, WEIR_ROW_UPDATE_AFTER, k, &c->rows[c->n]);
            c->n++;
            push_state(c, k);
        } else { /* delete */
            int i = (int)(rnd() % (uint64_t)c->n);
            set_row(rows + n++ * rs, WEIR_ROW_DELETE, k, &c->rows[i]);
            c->rows[i] = c->rows[--c->n];
            push_state(c, k);
        }
        if (--left[k] == 0)
            active--;
    }
    weir_job *job = tu_job(&(weir_job_config){.workers = 2, .parallelism = 1, .clock = WEIR_CLOCK_VIRTUAL});
    weir_table_env *env;
    cr_assert_eq(weir_table_env_create(job, &(weir_table_config){.parallelism = parallelism},
                                       &env), 0);
    weir_table *src = weir_table_from_changelog_stream(env, weir_source_array(job, rows, n, rs, NULL),
                                                       in_schema, WEIR_CHANGELOG_ALL);
    weir_table *t = weir_table_group_by(src, "k",
        "k, COUNT(*), COUNT(v), SUM(v), MIN(v), MAX(v), AVG(v), MIN(s), COUNT(DISTINCT s)");
    cr_assert(t, "%s", weir_job_error(job));
    out_schema = weir_table_schema(t);
    weir_stream *out = weir_table_to_changelog_stream(t, 0);
    weir_stream_set_parallelism(weir_sink_callback(out, sink, NULL), parallelism);
    tu_run_ok(job);
    int checked = 0;
    for (int k = 0; k < KEYS; k++) {
        keycase *c = &cases[k];
        cr_assert(!c->fail[0], "p=%d key %d: %s", parallelism, k, c->fail);
        cr_assert(!c->pending_ub, "p=%d key %d: a -U without its +U at the end", parallelism, k);
        cr_assert_eq(c->seen, c->nstates, "p=%d key %d: %d of %d states seen", parallelism, k,
                     c->seen, c->nstates);
        checked += c->nstates;
        free(c->states);
    }
    cr_assert_gt(checked, KEYS, "the cases go through more than one state each on average");
    weir_job_destroy(job);
    weir_table_env_destroy(env);
    weir_schema_destroy(in_schema);
    free(rows);
    free(left);
    free(cases);
}

Test(group_differential, parallelism_1, .timeout = 120)
{
    run_differential(1);
}

Test(group_differential, parallelism_4, .timeout = 120)
{
    run_differential(4);
}
