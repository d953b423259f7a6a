/* test_function.c — functions from C (weir/function.h, table/
 * table_function.c): scalar functions in a Calc (implicit casts of their
 * arguments, NULL given to a nullable parameter, a NULL in a NOT NULL one
 * that makes the result NULL without a call, string results in the call's
 * buffer and a CHAR padded), aggregate functions in group aggregates over
 * insert-only and updating inputs (retract, and the plan-time refusal of a
 * function without it) and in window aggregates (TUMBLE with an argument
 * that is an expression, HOP merging panes, a SESSION refused without
 * merge), every plan-time type error with its message, failing callbacks
 * that fail the job with the function's message, and registration's
 * refusals.
 *
 * Each case runs a real job at parallelism 1 from an array of rows (every
 * case a dozen rows or fewer) and compares Row.toString lines. The
 * registry is the process's: each test registers what it uses (a second
 * registration of the same definition is harmless).
 */
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>

#include "table/table_testutil.h"

/* ---- the functions ----------------------------------------------------------------- */

static atomic_int greet_calls, to_f_null_calls;

/* to_f(DOUBLE) -> DOUBLE: Celsius to Fahrenheit; called with NULL too
 * (a nullable parameter), which it returns. */
static int to_f(const weir_value *args, int nargs, weir_value *result, weir_function_call *call)
{
    (void)nargs;
    (void)call;
    if (args[0].null) {
        atomic_fetch_add(&to_f_null_calls, 1);
        result->null = true;
        return 0;
    }
    result->d = args[0].d * 9.0 / 5.0 + 32.0;
    return 0;
}

/* greet(STRING NOT NULL, INT) -> VARCHAR(12), written into the call's
 * buffer: never called with a NULL name. */
static int greet(const weir_value *args, int nargs, weir_value *result, weir_function_call *call)
{
    (void)nargs;
    atomic_fetch_add(&greet_calls, 1);
    tu_check(!args[0].null, "greet was called with a NULL where it takes STRING NOT NULL");
    int n;
    if (args[1].null)
        n = snprintf(call->buf, call->capacity + 1, "hi %.*s#?", (int)args[0].len, args[0].s);
    else
        n = snprintf(call->buf, call->capacity + 1, "hi %.*s#%lld", (int)args[0].len, args[0].s,
                     (long long)args[1].i);
    result->s = call->buf;
    result->len = (uint32_t)n < call->capacity ? (uint32_t)n : call->capacity;
    return 0;
}

/* code(BIGINT) -> CHAR(4): "k" and the number, padded by weir. */
static int code(const weir_value *args, int nargs, weir_value *result, weir_function_call *call)
{
    (void)nargs;
    int n = snprintf(call->buf, call->capacity + 1, "k%lld", (long long)args[0].i);
    result->s = call->buf;
    result->len = (uint32_t)n;
    return 0;
}

/* twice(BIGINT) -> BIGINT, for arguments cast from INT */
static int twice(const weir_value *args, int nargs, weir_value *result, weir_function_call *call)
{
    (void)nargs;
    (void)call;
    result->null = args[0].null;
    result->i = 2 * args[0].i;
    return 0;
}

/* fails(BIGINT) -> BIGINT: fails on 3, with a message */
static int fails(const weir_value *args, int nargs, weir_value *result, weir_function_call *call)
{
    (void)nargs;
    if (args[0].i == 3)
        return weir_function_fail(call, WEIR_ERANGE, "no value for %lld", (long long)args[0].i);
    result->i = args[0].i;
    return 0;
}

/* echo3(STRING) -> VARCHAR(3): its argument's bytes as they are */
static int echo3(const weir_value *args, int nargs, weir_value *result, weir_function_call *call)
{
    (void)nargs;
    (void)call;
    *result = args[0];
    return 0;
}

/* never_null(BIGINT) -> BIGINT NOT NULL, which breaks its promise below 0 */
static int never_null(const weir_value *args, int nargs, weir_value *result,
                      weir_function_call *call)
{
    (void)nargs;
    (void)call;
    result->null = args[0].null || args[0].i < 0;
    result->i = args[0].i;
    return 0;
}

/* one() -> INT, which returns 1: not a code of weir's */
static int one(const weir_value *args, int nargs, weir_value *result, weir_function_call *call)
{
    (void)args;
    (void)nargs;
    (void)result;
    (void)call;
    return 1;
}

/* my_sum(BIGINT NOT NULL) -> BIGINT NOT NULL: a sum with retract and
 * merge; init marks the accumulator, and get_value checks the mark. */
typedef struct sum_acc {
    int64_t sum;
    int64_t made;
} sum_acc;

static void sum_init(void *acc, void *arg)
{
    (void)arg;
    ((sum_acc *)acc)->made = 42;
}

static int sum_acc_fn(void *acc, const weir_value *args, int nargs, weir_function_call *call)
{
    (void)nargs;
    (void)call;
    tu_check(!args[0].null, "my_sum was given a NULL where it takes BIGINT NOT NULL");
    ((sum_acc *)acc)->sum += args[0].i;
    return 0;
}

static int sum_retract(void *acc, const weir_value *args, int nargs, weir_function_call *call)
{
    (void)nargs;
    (void)call;
    ((sum_acc *)acc)->sum -= args[0].i;
    return 0;
}

static int sum_merge(void *acc, const void *other, weir_function_call *call)
{
    (void)call;
    ((sum_acc *)acc)->sum += ((const sum_acc *)other)->sum;
    return 0;
}

static int sum_value(const void *acc, weir_value *result, weir_function_call *call)
{
    const sum_acc *a = acc;
    if (a->made != 42)
        return weir_function_fail(call, WEIR_EINVAL, "an accumulator init did not make");
    result->i = a->sum;
    return 0;
}

/* my_max(BIGINT) -> BIGINT: no retract, no merge; called with NULLs,
 * which it ignores; NULL when it saw no value. */
typedef struct max_acc {
    int64_t has, max;
} max_acc;

static int max_acc_fn(void *acc, const weir_value *args, int nargs, weir_function_call *call)
{
    (void)nargs;
    (void)call;
    max_acc *a = acc;
    if (args[0].null)
        return 0;
    if (!a->has || args[0].i > a->max)
        a->max = args[0].i;
    a->has = 1;
    return 0;
}

static int max_value(const void *acc, weir_value *result, weir_function_call *call)
{
    (void)call;
    const max_acc *a = acc;
    result->null = !a->has;
    result->i = a->max;
    return 0;
}

/* wavg(DOUBLE, BIGINT NOT NULL) -> DOUBLE: Flink's WeightedAvg, with
 * retract and merge */
typedef struct wavg_acc {
    double sum;
    int64_t weight;
} wavg_acc;

static int wavg_acc_fn(void *acc, const weir_value *args, int nargs, weir_function_call *call)
{
    (void)call;
    tu_check(nargs == 2, "wavg was called with %d arguments", nargs);
    wavg_acc *a = acc;
    if (args[0].null)
        return 0;
    a->sum += args[0].d * (double)args[1].i;
    a->weight += args[1].i;
    return 0;
}

static int wavg_retract(void *acc, const weir_value *args, int nargs, weir_function_call *call)
{
    (void)nargs;
    (void)call;
    wavg_acc *a = acc;
    if (args[0].null)
        return 0;
    a->sum -= args[0].d * (double)args[1].i;
    a->weight -= args[1].i;
    return 0;
}

static int wavg_merge(void *acc, const void *other, weir_function_call *call)
{
    (void)call;
    wavg_acc *a = acc;
    const wavg_acc *o = other;
    a->sum += o->sum;
    a->weight += o->weight;
    return 0;
}

static int wavg_value(const void *acc, weir_value *result, weir_function_call *call)
{
    (void)call;
    const wavg_acc *a = acc;
    result->null = a->weight == 0;
    result->d = a->weight ? a->sum / (double)a->weight : 0;
    return 0;
}

/* longest(STRING) -> VARCHAR(8): the longest value's first 8 bytes, kept
 * in the accumulator; get_value points into it. With merge. */
typedef struct longest_acc {
    uint32_t len;
    char s[8];
} longest_acc;

static int longest_acc_fn(void *acc, const weir_value *args, int nargs, weir_function_call *call)
{
    (void)nargs;
    (void)call;
    longest_acc *a = acc;
    uint32_t n = args[0].len < 8 ? args[0].len : 8;
    if (!args[0].null && n > a->len) {
        memcpy(a->s, args[0].s, n);
        a->len = n;
    }
    return 0;
}

static int longest_merge(void *acc, const void *other, weir_function_call *call)
{
    (void)call;
    longest_acc *a = acc;
    const longest_acc *o = other;
    if (o->len > a->len)
        *a = *o;
    return 0;
}

static int longest_value(const void *acc, weir_value *result, weir_function_call *call)
{
    (void)call;
    const longest_acc *a = acc;
    result->s = a->s;
    result->len = a->len;
    return 0;
}

/* agg_fails(BIGINT) -> BIGINT: accumulate fails on 13 */
static int agg_fails_acc(void *acc, const weir_value *args, int nargs, weir_function_call *call)
{
    (void)nargs;
    if (args[0].i == 13)
        return weir_function_fail(call, WEIR_EINVAL, "unlucky %lld", (long long)args[0].i);
    *(int64_t *)acc += args[0].i;
    return 0;
}

static int agg_fails_value(const void *acc, weir_value *result, weir_function_call *call)
{
    (void)call;
    result->i = *(const int64_t *)acc;
    return 0;
}

/* dec2x(DECIMAL(20, 2)) -> DECIMAL(21, 2): twice the value, on the
 * unscaled 128-bit integer (i and hi); next_day(DATE) -> DATE;
 * micros(TIMESTAMP(6)) -> BIGINT: microseconds since the epoch (i and
 * nanos); small(TINYINT, FLOAT) -> FLOAT. */
__extension__ typedef __int128 i128;
__extension__ typedef unsigned __int128 u128;

static int dec2x(const weir_value *args, int nargs, weir_value *result, weir_function_call *call)
{
    (void)nargs;
    (void)call;
    i128 v = (i128)((u128)(uint64_t)args[0].hi << 64 | (uint64_t)args[0].i);
    v *= 2;
    result->i = (int64_t)(uint64_t)v;
    result->hi = (int64_t)(v >> 64);
    return 0;
}

static int next_day(const weir_value *args, int nargs, weir_value *result,
                    weir_function_call *call)
{
    (void)nargs;
    (void)call;
    result->i = args[0].i + 1;
    return 0;
}

static int micros(const weir_value *args, int nargs, weir_value *result, weir_function_call *call)
{
    (void)nargs;
    (void)call;
    result->i = args[0].i * 1000 + args[0].nanos / 1000;
    return 0;
}

static int small(const weir_value *args, int nargs, weir_value *result, weir_function_call *call)
{
    (void)nargs;
    (void)call;
    result->d = (double)args[0].i + args[1].d;
    return 0;
}

/* flip(VARBINARY(8)) -> BINARY(4): the first 4 bytes (at most) with every
 * bit flipped; weir pads a shorter result with zero bytes. */
static int flip(const weir_value *args, int nargs, weir_value *result, weir_function_call *call)
{
    (void)nargs;
    uint32_t n = args[0].len < 4 ? args[0].len : 4;
    for (uint32_t k = 0; k < n; k++)
        call->buf[k] = (char)~args[0].s[k];
    result->s = call->buf;
    result->len = n;
    return 0;
}

static weir_type ty(const char *sql)
{
    weir_type t;
    char err[128];
    cr_assert_eq(weir_type_parse(sql, &t, err, sizeof err), 0, "%s", err);
    return t;
}

static void scalar(const char *name, weir_scalar_fn fn, const char *result, int nargs, ...)
{
    weir_type types[4];
    va_list ap;
    va_start(ap, nargs);
    for (int i = 0; i < nargs; i++)
        types[i] = ty(va_arg(ap, const char *));
    va_end(ap);
    char err[256];
    int r = weir_function_register_scalar(
        &(weir_scalar_function){.name = name, .nargs = nargs, .arg_types = types,
                                .result_type = ty(result), .eval = fn},
        err, sizeof err);
    cr_assert_eq(r, 0, "%s: %s", name, err);
}

static void aggregate(weir_aggregate_function f, const char *result, const char *arg0,
                      const char *arg1)
{
    weir_type types[2] = {ty(arg0), arg1 ? ty(arg1) : ty("INT")};
    f.arg_types = types;
    f.nargs = arg1 ? 2 : 1;
    f.result_type = ty(result);
    char err[256];
    cr_assert_eq(weir_function_register_aggregate(&f, err, sizeof err), 0, "%s: %s", f.name, err);
}

static void register_all(void)
{
    scalar("to_f", to_f, "DOUBLE", 1, "DOUBLE");
    scalar("greet", greet, "VARCHAR(12)", 2, "STRING NOT NULL", "INT");
    scalar("code", code, "CHAR(4)", 1, "BIGINT");
    scalar("twice", twice, "BIGINT", 1, "BIGINT");
    scalar("fails", fails, "BIGINT", 1, "BIGINT");
    scalar("echo3", echo3, "VARCHAR(3)", 1, "STRING");
    scalar("never_null", never_null, "BIGINT NOT NULL", 1, "BIGINT");
    scalar("one", one, "INT", 0);
    scalar("dec2x", dec2x, "DECIMAL(21, 2)", 1, "DECIMAL(20, 2) NOT NULL");
    scalar("next_day", next_day, "DATE", 1, "DATE NOT NULL");
    scalar("micros", micros, "BIGINT", 1, "TIMESTAMP(6) NOT NULL");
    scalar("small", small, "FLOAT", 2, "TINYINT NOT NULL", "FLOAT NOT NULL");
    scalar("flip", flip, "BINARY(4)", 1, "VARBINARY(8) NOT NULL");
    aggregate((weir_aggregate_function){.name = "my_sum", .acc_size = sizeof(sum_acc),
                                        .init = sum_init, .accumulate = sum_acc_fn,
                                        .retract = sum_retract, .merge = sum_merge,
                                        .get_value = sum_value},
              "BIGINT NOT NULL", "BIGINT NOT NULL", NULL);
    aggregate((weir_aggregate_function){.name = "my_max", .acc_size = sizeof(max_acc),
                                        .accumulate = max_acc_fn, .get_value = max_value},
              "BIGINT", "BIGINT", NULL);
    aggregate((weir_aggregate_function){.name = "wavg", .acc_size = sizeof(wavg_acc),
                                        .accumulate = wavg_acc_fn, .retract = wavg_retract,
                                        .merge = wavg_merge, .get_value = wavg_value},
              "DOUBLE", "DOUBLE", "BIGINT NOT NULL");
    aggregate((weir_aggregate_function){.name = "longest", .acc_size = sizeof(longest_acc),
                                        .accumulate = longest_acc_fn, .merge = longest_merge,
                                        .get_value = longest_value},
              "VARCHAR(8)", "STRING", NULL);
    aggregate((weir_aggregate_function){.name = "agg_fails", .acc_size = 8,
                                        .accumulate = agg_fails_acc,
                                        .get_value = agg_fails_value},
              "BIGINT", "BIGINT", NULL);
}

/* ---- running tables ---------------------------------------------------------------- */

typedef struct run {
    weir_job *job;
    weir_table_env *env;
    weir_schema *schema;
    unsigned char *rows;
    int64_t *ts;
    size_t n, cap;
} run;

static run *run_new(const char *cols, const char *rowtime)
{
    register_all();
    run *r = calloc(1, sizeof *r);
    r->job = tu_job(&(weir_job_config){.workers = 2, .clock = WEIR_CLOCK_VIRTUAL,
                                        .parallelism = 1});
    cr_assert_eq(weir_table_env_create(r->job, &(weir_table_config){.parallelism = 1},
                                       &r->env), 0);
    r->schema = tt_schema_wm("t", cols, NULL, rowtime, rowtime ? "SOURCE_WATERMARK()" : NULL);
    return r;
}

static void run_add(run *r, const char *text)
{
    size_t rs = weir_schema_row_size(r->schema);
    if (r->n == r->cap) {
        r->cap = r->cap ? 2 * r->cap : 16;
        r->rows = realloc(r->rows, r->cap * rs);
        r->ts = realloc(r->ts, r->cap * sizeof *r->ts);
    }
    tt_row(r->schema, r->rows + r->n * rs, text);
    int rt = weir_schema_rowtime(r->schema);
    r->ts[r->n] = rt >= 0 ? weir_row_get_int(r->schema, r->rows + r->n * rs, rt) : 0;
    r->n++;
}

/* The watermark a row asks for (its last column, BIGINT `wm`), or none. */
static int64_t scripted_wm(const void *elem, int64_t ts, void *arg)
{
    (void)ts;
    const weir_schema *s = arg;
    int c = weir_schema_ncolumns(s) - 1;
    return weir_row_is_null(s, elem, c) ? WEIR_TS_MIN : weir_row_get_int(s, elem, c);
}

/* The rows as a table: a changelog (mode) or insert-only (0); with a
 * rowtime, their watermarks scripted. */
static weir_table *run_source(run *r, unsigned mode)
{
    size_t rs = weir_schema_row_size(r->schema);
    if (weir_schema_rowtime(r->schema) < 0) {
        weir_stream *s = weir_source_array(r->job, r->rows, r->n, rs, NULL);
        return mode ? weir_table_from_changelog_stream(r->env, s, r->schema, mode)
                    : weir_table_from_stream(r->env, s, r->schema);
    }
    weir_stream *s = weir_source_array(r->job, r->rows, r->n, rs, r->ts);
    s = weir_stream_assign_timestamps(
        s, &(weir_timestamps_spec){.strategy = weir_watermarks_punctuated(scripted_wm,
                                                                          r->schema)});
    return weir_table_from_stream(r->env, s, r->schema);
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* What came out of t, one Row.toString line each, sorted if asked. */
static char *run_collect(run *r, weir_table *t, bool sort)
{
    cr_assert(t, "%s", weir_job_error(r->job));
    weir_collect *c;
    cr_assert(weir_sink_collect(weir_table_to_changelog_stream(t, WEIR_CHANGELOG_ALL), &c), "%s",
              weir_job_error(r->job));
    tu_run_ok(r->job);
    char *all = tt_collected(weir_table_schema(t), c);
    if (!sort)
        return all;
    char *lines[64];
    size_t n = 0, len = 0;
    char *save = NULL;
    for (char *l = strtok_r(all, "\n", &save); l && n < 64; l = strtok_r(NULL, "\n", &save))
        lines[n++] = l;
    qsort(lines, n, sizeof *lines, cmp_str);
    for (size_t i = 0; i < n; i++)
        len += strlen(lines[i]) + 1;
    char *out = calloc(1, len + 1);
    for (size_t i = 0; i < n; i++) {
        strcat(out, lines[i]);
        strcat(out, "\n");
    }
    free(all);
    return out;
}

/* Runs the job, which must fail: its code, the message in msg. */
static int run_failing(run *r, weir_table *t, char *msg, size_t size)
{
    cr_assert(t, "%s", weir_job_error(r->job));
    weir_collect *c;
    cr_assert(weir_sink_collect(weir_table_to_changelog_stream(t, WEIR_CHANGELOG_ALL), &c));
    int code = weir_job_run(r->job);
    tu_assert_no_async_failure();
    cr_assert_neq(code, 0, "the job did not fail");
    snprintf(msg, size, "%s", weir_job_error(r->job));
    return code;
}

static void run_free(run *r)
{
    weir_job_destroy(r->job);
    weir_table_env_destroy(r->env);
    weir_schema_destroy(r->schema);
    free(r->rows);
    free(r->ts);
    free(r);
}

/* ---- scalar functions --------------------------------------------------------------- */

Test(function, scalar_calls_with_casts_nulls_and_string_results, .timeout = 60)
{
    run *r = run_new("id BIGINT NOT NULL, name STRING, c INT, n INT", NULL);
    run_add(r, "+I 1|ann|20|7");
    run_add(r, "+I 2|null|null|null");
    run_add(r, "+I 3|bob|-10|null");
    weir_table *t = weir_table_select(run_source(r, 0),
                                      "id, TO_F(c) AS f, greet(name, n) AS g, code(id) AS k, "
                                      "twice(c) AS w, Greet('x', 1) AS h");
    cr_assert(t, "%s", weir_job_error(r->job));
    char types[512];
    weir_schema_format(weir_table_schema(t), types, sizeof types);
    /* INT arguments cast to DOUBLE and BIGINT; greet's result nullable
     * (name may be NULL), but not with a literal name */
    cr_assert_str_eq(types, "(id BIGINT NOT NULL, f DOUBLE, g VARCHAR(12), k CHAR(4), w BIGINT, "
                            "h VARCHAR(12))");
    char *got = run_collect(r, t, false);
    cr_assert_str_eq(got, "+I[1, 68.0, hi ann#7, k1  , 40, hi x#1]\n"
                          "+I[2, null, null, k2  , null, hi x#1]\n"
                          "+I[3, 14.0, hi bob#?, k3  , -20, hi x#1]\n");
    free(got);
    /* to_f saw its NULL; greet never saw the NULL name (row 2) */
    cr_assert_eq(atomic_load(&to_f_null_calls), 1);
    cr_assert_eq(atomic_load(&greet_calls), 2 + 3);
    run_free(r);
}

/* The types of issue 39 through C functions: a DECIMAL of 20 digits in i
 * and hi (an INT argument cast to it implicitly, a result past 21 digits
 * NULL), a DATE's days, a TIMESTAMP(6)'s nanoseconds, a TINYINT and a
 * FLOAT (a DOUBLE argument is refused: no implicit narrowing). */
Test(function, decimal_date_timestamp_and_small_numbers, .timeout = 60)
{
    run *r = run_new("d DECIMAL(20, 2), day DATE, ts TIMESTAMP(6), t TINYINT, f FLOAT, n INT",
                     NULL);
    run_add(r, "+I 123456789012345678.25|2024-02-28|1970-01-01 00:00:01.000002|-3|0.5|7");
    run_add(r, "+I -999999999999999999.99|2024-12-31|1969-12-31 23:59:59.999999|127|1.25|-1");
    run_add(r, "+I null|null|null|null|null|null");
    weir_table *t = weir_table_select(run_source(r, 0),
                                      "dec2x(d) AS x, dec2x(n) AS y, next_day(day) AS nd, "
                                      "micros(ts) AS us, small(t, f) AS s");
    cr_assert(t, "%s", weir_job_error(r->job));
    char types[256];
    weir_schema_format(weir_table_schema(t), types, sizeof types);
    cr_assert_str_eq(types, "(x DECIMAL(21, 2), y DECIMAL(21, 2), nd DATE, us BIGINT, s FLOAT)");
    char *got = run_collect(r, t, false);
    cr_assert_str_eq(got, "+I[246913578024691356.50, 14.00, 2024-02-29, 1000002, -2.5]\n"
                          "+I[-1999999999999999999.98, -2.00, 2025-01-01, -1, 128.25]\n"
                          "+I[null, null, null, null, null]\n");
    free(got);
    run_free(r);
    r = run_new("d DOUBLE", NULL);
    cr_assert_null(weir_table_select(run_source(r, 0), "small(CAST(1 AS TINYINT), d)"));
    cr_assert(strstr(weir_job_error(r->job), "argument 2 of small ('d') is DOUBLE, where small "
                                              "takes FLOAT"),
              "%s", weir_job_error(r->job));
    run_free(r);
}

/* Bytes through a C function: s and len, as a string's; a BINARY(3)
 * argument cast to VARBINARY(8) implicitly, a BINARY(4) result padded. */
Test(function, bytes, .timeout = 60)
{
    run *r = run_new("b BYTES, c BINARY(3)", NULL);
    run_add(r, "+I AP8BAgM=|YWI=");
    run_add(r, "+I |null");
    run_add(r, "+I null|null");
    weir_table *t = weir_table_select(run_source(r, 0), "flip(b) AS x, flip(c) AS y");
    cr_assert(t, "%s", weir_job_error(r->job));
    char types[256];
    weir_schema_format(weir_table_schema(t), types, sizeof types);
    cr_assert_str_eq(types, "(x BINARY(4), y BINARY(4))");
    char *got = run_collect(r, t, false);
    cr_assert_str_eq(got, "+I[x'ff00fefd', x'9e9dff00']\n"
                          "+I[x'00000000', null]\n"
                          "+I[null, null]\n");
    free(got);
    run_free(r);
}

Test(function, a_declared_not_null_result_types_the_call_not_null)
{
    register_all();
    weir_schema *s = tt_schema("t", "a BIGINT NOT NULL, b BIGINT", NULL);
    weir_expr *e;
    char err[256];
    cr_assert_eq(weir_expr_compile("never_null(a)", s, &e, err, sizeof err), 0, "%s", err);
    cr_assert(weir_expr_type(e).not_null);
    weir_expr_destroy(e);
    /* a nullable parameter: the function answers for NULL itself */
    cr_assert_eq(weir_expr_compile("never_null(b)", s, &e, err, sizeof err), 0, "%s", err);
    cr_assert(weir_expr_type(e).not_null);
    weir_expr_destroy(e);
    cr_assert_eq(weir_expr_compile("my_sum(a)", s, &e, err, sizeof err), WEIR_EINVAL);
    cr_assert_str_eq(err, "my_sum(a) at 1: aggregate function my_sum is not allowed here");
    weir_schema_destroy(s);
}

Test(function, types_and_counts_are_checked_at_plan_time)
{
    register_all();
    weir_schema *s = tt_schema("t", "id BIGINT, name VARCHAR(20), d DOUBLE, ts TIMESTAMP(3)", NULL);
    static const struct {
        const char *text, *err;
    } cases[] = {
        {"to_f(name)", "to_f(name) at 6: argument 1 of to_f ('name') is VARCHAR(20), where "
                       "to_f takes DOUBLE"},
        {"1 + twice(d * 2)", "1 + twice(d * 2) at 11: argument 1 of twice ('d * 2') is DOUBLE, "
                             "where twice takes BIGINT"},
        {"greet('a', id)", "greet('a', id) at 12: argument 2 of greet ('id') is BIGINT, where "
                           "greet takes INT"},
        {"twice(ts)", "twice(ts) at 7: argument 1 of twice ('ts') is TIMESTAMP(3), where twice "
                      "takes BIGINT"},
        {"to_f(1, 2)", "to_f(1, 2) at 1: wrong number of arguments: to_f takes 1, not 2"},
        {"one(1)", "one(1) at 1: wrong number of arguments: one takes 0, not 1"},
        {"twice(DISTINCT id)", "twice(DISTINCT id) at 1: DISTINCT in a call of twice: DISTINCT "
                               "is supported in COUNT only"},
        {"no_such(id)", "no_such(id) at 1: unknown function 'no_such'"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        weir_expr *e = NULL;
        char err[256];
        cr_assert_eq(weir_expr_compile(cases[i].text, s, &e, err, sizeof err), WEIR_EINVAL,
                     "%s compiled", cases[i].text);
        cr_assert_str_eq(err, cases[i].err);
    }
    /* what converts implicitly: a NULL, INT to DOUBLE, any string */
    const char *ok[] = {"to_f(NULL)", "to_f(1)", "to_f(id)", "greet(name, 1)", "greet(NULL, NULL)",
                        "code(CAST(d AS BIGINT))"};
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        weir_expr *e = NULL;
        char err[256];
        cr_assert_eq(weir_expr_compile(ok[i], s, &e, err, sizeof err), 0, "%s: %s", ok[i], err);
        weir_expr_destroy(e);
    }
    weir_schema_destroy(s);
}

Test(function, a_failing_call_fails_the_job_with_the_functions_message, .timeout = 60)
{
    static const struct {
        const char *item;
        int code;
        const char *msg;
    } cases[] = {
        {"fails(id)", WEIR_ERANGE, "fails: no value for 3 in 'fails(id)'"},
        {"echo3(name)", WEIR_ECALLBACK,
         "echo3: returned 4 bytes, more than its result type VARCHAR(3) holds in 'echo3(name)'"},
        {"never_null(id - 4)", WEIR_ECALLBACK,
         "never_null: returned NULL, but its result type is BIGINT NOT NULL in "
         "'never_null(id - 4)'"},
        {"one()", WEIR_ECALLBACK, "one failed (a user callback failed) in 'one()'"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        run *r = run_new("id BIGINT NOT NULL, name STRING", NULL);
        run_add(r, "+I 1|abc");
        run_add(r, "+I 3|abcd");
        char msg[1024];
        int code = run_failing(r, weir_table_select(run_source(r, 0), cases[i].item), msg,
                               sizeof msg);
        cr_assert_eq(code, cases[i].code, "%s: %d", cases[i].item, code);
        cr_assert(strstr(msg, "Calc(select=["), "%s", msg);
        cr_assert(strstr(msg, cases[i].msg), "%s", msg);
        run_free(r);
    }
}

/* ---- registration ------------------------------------------------------------------- */

Test(function, registration_refusals)
{
    register_all();
    weir_type b = ty("BIGINT");
    weir_scalar_function f = {.name = "ok_name", .nargs = 1, .arg_types = &b, .result_type = b,
                              .eval = twice};
    char err[256];
    static const struct {
        const char *name, *err;
    } names[] = {
        {"", "scalar function: a name is required"},
        {"2fast", "scalar function '2fast': a name is a letter or '_', then letters, digits and "
                  "'_', at most 63 bytes"},
        {"has space", "scalar function 'has space': a name is a letter or '_', then letters, "
                      "digits and '_', at most 63 bytes"},
        {"Upper", "scalar function 'Upper': Upper is a built-in function"},
        {"count", "scalar function 'count': count is a built-in function"},
        {"tumble_start", "scalar function 'tumble_start': TUMBLE_START is a word of SQL or of the "
                         "expression language"},
        {"cast", "scalar function 'cast': CAST is a word of SQL or of the expression language"},
        {"TO_F", "scalar function 'TO_F': a function named to_f is registered already"},
        {"MY_SUM", "scalar function 'MY_SUM': a function named my_sum is registered already"},
    };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        f.name = names[i].name;
        cr_assert_eq(weir_function_register_scalar(&f, err, sizeof err), WEIR_EINVAL, "%s",
                     names[i].name);
        cr_assert_str_eq(err, names[i].err);
    }
    /* the same definition again is harmless; another under its name is not */
    f.name = "ok_name";
    cr_assert_eq(weir_function_register_scalar(&f, err, sizeof err), 0, "%s", err);
    f.name = "OK_NAME";
    cr_assert_eq(weir_function_register_scalar(&f, err, sizeof err), 0, "%s", err);
    f.eval = fails;
    cr_assert_eq(weir_function_register_scalar(&f, err, sizeof err), WEIR_EINVAL);
    f.eval = NULL;
    f.name = "no_eval";
    cr_assert_eq(weir_function_register_scalar(&f, err, sizeof err), WEIR_EINVAL);
    cr_assert_str_eq(err, "scalar function 'no_eval': eval is required");
    f.eval = twice;
    weir_type iv = {.id = WEIR_TYPE_INTERVAL};
    f.arg_types = &iv;
    cr_assert_eq(weir_function_register_scalar(&f, err, sizeof err), WEIR_EINVAL);
    cr_assert(strstr(err, "argument 1: INTERVAL"), "%s", err);
    f.arg_types = &b;
    f.nargs = WEIR_FUNCTION_MAX_ARGS + 1;
    cr_assert_eq(weir_function_register_scalar(&f, err, sizeof err), WEIR_EINVAL);
    cr_assert_str_eq(err, "scalar function 'no_eval': 33 arguments (0 to 32, with their types in "
                          "arg_types)");
    weir_aggregate_function a = {.name = "no_size", .nargs = 1, .arg_types = &b,
                                 .result_type = b, .accumulate = agg_fails_acc,
                                 .get_value = agg_fails_value};
    cr_assert_eq(weir_function_register_aggregate(&a, err, sizeof err), WEIR_EINVAL);
    cr_assert_str_eq(err, "aggregate function 'no_size': acc_size 0 is not in 1..65536");
    a.acc_size = 8;
    a.accumulate = NULL;
    cr_assert_eq(weir_function_register_aggregate(&a, err, sizeof err), WEIR_EINVAL);
    cr_assert_str_eq(err, "aggregate function 'no_size': accumulate and get_value are required");
    /* nothing refused was registered */
    weir_schema *s = tt_schema("t", "id BIGINT", NULL);
    weir_expr *e;
    cr_assert_eq(weir_expr_compile("no_size(id)", s, &e, err, sizeof err), WEIR_EINVAL);
    cr_assert_eq(weir_expr_compile("no_eval(id)", s, &e, err, sizeof err), WEIR_EINVAL);
    cr_assert_eq(weir_expr_compile("ok_name(id)", s, &e, err, sizeof err), 0, "%s", err);
    weir_expr_destroy(e);
    weir_schema_destroy(s);
}

/* Threads registering functions while others plan with them: each of 4
 * registers 64 names of its own and compiles a call of each as soon as it
 * is registered, and a call of another thread's when that one is there. */
enum { REG_THREADS = 4, REG_EACH = 64 };

typedef struct registrar {
    int t;
    const weir_schema *s;
} registrar;

static void *register_many(void *arg)
{
    const registrar *g = arg;
    weir_type b = {.id = WEIR_TYPE_BIGINT};
    for (int k = 0; k < REG_EACH; k++) {
        char name[32], text[64], err[256];
        snprintf(name, sizeof name, "f_%d_%d", g->t, k);
        weir_scalar_function f = {.name = name, .nargs = 1, .arg_types = &b, .result_type = b,
                                  .eval = twice};
        int r = weir_function_register_scalar(&f, err, sizeof err);
        tu_check(r == 0, "%s: %s", name, err);
        weir_expr *e;
        snprintf(text, sizeof text, "%s(x) + F_%d_%d(x)", name, (g->t + 1) % REG_THREADS, k);
        r = weir_expr_compile(text, g->s, &e, err, sizeof err);
        tu_check(r == 0 || strstr(err, "unknown function 'F_"), "%s", err);
        if (r == 0)
            weir_expr_destroy(e);
    }
    return NULL;
}

Test(function, registration_while_other_threads_plan, .timeout = 60)
{
    weir_schema *s = tt_schema("t", "x BIGINT", NULL);
    pthread_t th[REG_THREADS];
    registrar g[REG_THREADS];
    for (int t = 0; t < REG_THREADS; t++) {
        g[t] = (registrar){.t = t, .s = s};
        cr_assert_eq(pthread_create(&th[t], NULL, register_many, &g[t]), 0);
    }
    for (int t = 0; t < REG_THREADS; t++)
        pthread_join(th[t], NULL);
    tu_assert_no_async_failure();
    for (int t = 0; t < REG_THREADS; t++)
        for (int k = 0; k < REG_EACH; k++) {
            char text[64], err[256];
            snprintf(text, sizeof text, "f_%d_%d(x)", t, k);
            weir_expr *e;
            cr_assert_eq(weir_expr_compile(text, s, &e, err, sizeof err), 0, "%s", err);
            weir_expr_destroy(e);
        }
    weir_schema_destroy(s);
}

/* ---- aggregate functions in group aggregates --------------------------------------- */

Test(function, aggregates_in_a_group_aggregate_over_an_insert_only_input, .timeout = 60)
{
    run *r = run_new("k STRING, v BIGINT NOT NULL, x BIGINT", NULL);
    run_add(r, "+I a|1|null");
    run_add(r, "+I b|5|2");
    run_add(r, "+I a|3|7");
    run_add(r, "+I a|-2|null");
    weir_table *t = weir_table_group_by(run_source(r, 0), "k",
                                        "k, my_sum(v) AS s, my_max(x) AS m, wavg(x, v) AS w, "
                                        "longest(k || k || k) AS l");
    cr_assert(t, "%s", weir_job_error(r->job));
    char types[256];
    weir_schema_format(weir_table_schema(t), types, sizeof types);
    cr_assert_str_eq(types, "(k VARCHAR(64), s BIGINT NOT NULL, m BIGINT, w DOUBLE, "
                            "l VARCHAR(8))");
    char *got = run_collect(r, t, false);
    cr_assert_str_eq(got, "+I[a, 1, null, null, aaa]\n"
                          "+I[b, 5, 2, 2.0, bbb]\n"
                          "-U[a, 1, null, null, aaa]\n"
                          "+U[a, 4, 7, 7.0, aaa]\n"
                          "-U[a, 4, 7, 7.0, aaa]\n"
                          "+U[a, 2, 7, 7.0, aaa]\n");
    free(got);
    run_free(r);
}

Test(function, an_aggregate_with_retract_over_an_updating_input, .timeout = 60)
{
    run *r = run_new("k STRING, v BIGINT NOT NULL, x DOUBLE", NULL);
    run_add(r, "+I a|2|1.5");
    run_add(r, "+I a|3|4");
    run_add(r, "-U a|2|1.5");
    run_add(r, "+U a|6|0.5");
    run_add(r, "+I b|1|2.5");
    run_add(r, "-D b|1|2.5");
    run_add(r, "-D a|3|4");
    weir_table *t = weir_table_group_by(run_source(r, WEIR_CHANGELOG_ALL), "k",
                                        "k, my_sum(v) AS s, SUM(v) AS b, wavg(x, v) AS w");
    cr_assert(t, "%s", weir_job_error(r->job));
    char *got = run_collect(r, t, false);
    /* my_sum equals the built-in SUM at every step; a group whose rows are
     * all retracted is deleted */
    cr_assert_str_eq(got, "+I[a, 2, 2, 1.5]\n"
                          "-U[a, 2, 2, 1.5]\n"
                          "+U[a, 5, 5, 3.0]\n"
                          "-U[a, 5, 5, 3.0]\n"
                          "+U[a, 3, 3, 4.0]\n"
                          "-U[a, 3, 3, 4.0]\n"
                          "+U[a, 9, 9, 1.6666666666666667]\n"
                          "+I[b, 1, 1, 2.5]\n"
                          "-D[b, 1, 1, 2.5]\n"
                          "-U[a, 9, 9, 1.6666666666666667]\n"
                          "+U[a, 6, 6, 0.5]\n");
    free(got);
    run_free(r);
}

Test(function, an_aggregate_without_retract_is_refused_over_updates)
{
    run *r = run_new("k STRING, v BIGINT NOT NULL, x BIGINT", NULL);
    weir_table *in = run_source(r, WEIR_CHANGELOG_ALL);
    weir_table *t = weir_table_group_by(in, "k", "k, my_sum(v) AS s, my_max(x) AS m");
    cr_assert_null(t);
    cr_assert_str_eq(weir_job_error(r->job),
                     "weir_table_group_by: could not find an implementation method 'retract' "
                     "for function 'my_max': its input TableSource(t) emits [I,UB,UA,D] "
                     "(updates produced by node TableSource(t)), and an aggregate of them "
                     "must retract");
    run_free(r);
}

Test(function, a_failing_aggregate_fails_the_group_aggregate, .timeout = 60)
{
    run *r = run_new("k STRING, v BIGINT NOT NULL", NULL);
    run_add(r, "+I a|1");
    run_add(r, "+I a|13");
    char msg[1024];
    int code = run_failing(r, weir_table_group_by(run_source(r, 0), "k", "k, agg_fails(v) AS f"),
                           msg, sizeof msg);
    cr_assert_eq(code, WEIR_EINVAL);
    cr_assert(strstr(msg, "GroupAggregate(k): agg_fails: unlucky 13 in 'agg_fails(v) AS f'"), "%s",
              msg);
    run_free(r);
}

/* ---- aggregate functions in window aggregates -------------------------------------- */

#define WCOLS "k STRING, v BIGINT NOT NULL, ts TIMESTAMP(3), wm BIGINT"

Test(function, aggregates_in_tumble_and_hop_windows, .timeout = 60)
{
    run *r = run_new(WCOLS, "ts");
    run_add(r, "+I a|1|100|null");
    run_add(r, "+I bb|5|200|null");
    run_add(r, "+I a|2|700|null");
    run_add(r, "+I a|4|1200|null");
    weir_table *t = weir_table_window_aggregate(
        run_source(r, 0), &(weir_table_window){.kind = WEIR_TABLE_TUMBLE, .size_ms = 1000}, "k",
        "k, window_start, my_sum(v * 10) AS s, wavg(v, 2) AS w, longest(k || '!') AS l");
    cr_assert(t, "%s", weir_job_error(r->job));
    char plan[1024];
    weir_table_explain(t, plan, sizeof plan);
    /* the arguments that are expressions computed by a Calc in front, with
     * the conversions the binder made to the parameters' types */
    cr_assert(strstr(plan, "Calc(select=[`k`, `v`, `ts`, `wm`, v * 10 AS `$arg2_0`, "
                           "CAST(v AS DOUBLE) AS `$arg3_0`, CAST(2 AS BIGINT) AS `$arg3_1`, "
                           "k || '!' AS `$arg4_0`])"),
              "%s", plan);
    char *got = run_collect(r, t, true);
    cr_assert_str_eq(got, "+I[a, 1970-01-01 00:00:00.000, 30, 1.5, a!]\n"
                          "+I[a, 1970-01-01 00:00:01.000, 40, 4.0, a!]\n"
                          "+I[bb, 1970-01-01 00:00:00.000, 50, 5.0, bb!]\n");
    free(got);
    run_free(r);

    /* HOP: each window's panes merged (my_sum's merge) */
    r = run_new(WCOLS, "ts");
    run_add(r, "+I a|1|100|null");
    run_add(r, "+I a|2|700|null");
    run_add(r, "+I a|4|1200|null");
    t = weir_table_window_aggregate(
        run_source(r, 0),
        &(weir_table_window){.kind = WEIR_TABLE_HOP, .size_ms = 1000, .slide_ms = 500}, "k",
        "k, window_start, my_sum(v) AS s");
    got = run_collect(r, t, true);
    cr_assert_str_eq(got, "+I[a, 1969-12-31 23:59:59.500, 1]\n"
                          "+I[a, 1970-01-01 00:00:00.000, 3]\n"
                          "+I[a, 1970-01-01 00:00:00.500, 6]\n"
                          "+I[a, 1970-01-01 00:00:01.000, 4]\n");
    free(got);
    run_free(r);
}

Test(function, windows_that_merge_refuse_an_aggregate_without_merge)
{
    static const struct {
        weir_table_window w;
        const char *why;
    } cases[] = {
        {{.kind = WEIR_TABLE_SESSION, .gap_ms = 100}, "SESSION windows merge as rows join them"},
        {{.kind = WEIR_TABLE_HOP, .size_ms = 1000, .slide_ms = 500},
         "HOP windows combine the accumulators of their panes"},
        {{.kind = WEIR_TABLE_CUMULATE, .size_ms = 1000, .step_ms = 500},
         "CUMULATE windows combine the accumulators of their steps"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        run *r = run_new(WCOLS, "ts");
        weir_table *t = weir_table_window_aggregate(run_source(r, 0), &cases[i].w, "k",
                                                    "k, my_max(v) AS m");
        cr_assert_null(t);
        char want[256];
        snprintf(want, sizeof want, "weir_table_window_aggregate: could not find an "
                 "implementation method 'merge' for function 'my_max': %s", cases[i].why);
        cr_assert_str_eq(weir_job_error(r->job), want);
        run_free(r);
    }
    /* TUMBLE windows never merge: my_max is fine there */
    run *r = run_new(WCOLS, "ts");
    run_add(r, "+I a|3|100|null");
    run_add(r, "+I a|9|200|null");
    weir_table *t = weir_table_window_aggregate(
        run_source(r, 0), &(weir_table_window){.kind = WEIR_TABLE_TUMBLE, .size_ms = 1000}, "k",
        "k, my_max(v) AS m");
    char *got = run_collect(r, t, false);
    cr_assert_str_eq(got, "+I[a, 9]\n");
    free(got);
    run_free(r);
}

Test(function, a_failing_aggregate_fails_the_window_aggregate, .timeout = 60)
{
    run *r = run_new(WCOLS, "ts");
    run_add(r, "+I a|1|100|null");
    run_add(r, "+I a|13|200|null");
    run_add(r, "+I a|2|1300|null");
    char msg[1024];
    int code = run_failing(
        r,
        weir_table_window_aggregate(
            run_source(r, 0), &(weir_table_window){.kind = WEIR_TABLE_TUMBLE, .size_ms = 1000},
            "k", "k, agg_fails(v) AS f"),
        msg, sizeof msg);
    cr_assert_eq(code, WEIR_EINVAL);
    cr_assert(strstr(msg, "WindowAggregate(TUMBLE(size=1000), k): agg_fails: unlucky 13 in "
                          "'agg_fails(v) AS f'"),
              "%s", msg);
    run_free(r);
}
