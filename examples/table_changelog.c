/* table_changelog.c — a running count per user as a changelog, and the
 * materialized view that changelog maintains.
 *
 * Concept: a table (weir/table.h) is a stream of rows with a schema; a
 * group aggregate over it does not emit one final answer but a changelog —
 * rows with a kind: +I inserts a user's first result, -U retracts the old
 * one and +U brings the new one (Flink's RowKind). Whoever reads the
 * changelog and applies it — +I/+U put the row, -U/-D take it away — holds
 * the current result at every moment: a materialized view. The clicks here
 * are a C struct of the user's own; the schema binds its fields (offsetof),
 * so the stream becomes a table without copying by hand.
 *
 * The program prints the plan with each node's changelog mode (Flink's
 * EXPLAIN CHANGELOG_MODE), the changelog as it comes, the view after each
 * row, and, last, what the planner says to an insert-only conversion of
 * the updating table (Flink refuses it the same way). It also feeds the
 * same changelog in upsert form (no -U rows, keyed by the group key) to
 * show what an upsert sink would receive.
 *
 * The first run writes its capture to table-changelog.jsonl: open it in
 * viewer/index.html to see the table nodes with their changelog modes.
 *
 * What to look for: "+U[alice, 2, 17]" follows "-U[alice, 1, 5]", and
 * between the two the view has no row for alice; bob's click of amount 0
 * changes his count but not his total (still one -U/+U pair: the row
 * changed); after each +U the view has one row per user. In upsert mode
 * the -U rows are gone: a +U replaces its key's row.
 *
 * Run: ./build/release/examples/table_changelog
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <weir.h>

typedef struct click {
    char user[16];
    int64_t amount;
    int64_t ts; /* milliseconds */
} click;

static const click clicks[] = {
    {"alice", 5, 1000}, {"bob", 3, 1200}, {"alice", 12, 1500},
    {"carol", 7, 2000}, {"bob", 0, 2100}, {"alice", 1, 2600},
};
enum { NCLICKS = sizeof clicks / sizeof clicks[0] };

/* The view: the current row per user, as the changelog says. */
enum { VIEW_MAX = 16, ROW_MAX = 256 };
typedef struct view {
    const weir_schema *schema;
    unsigned char rows[VIEW_MAX][ROW_MAX];
    int n;
} view;

/* The view's slot of the row's user (column 0), or -1. */
static int find(const view *v, const void *row)
{
    uint32_t len, l2;
    const char *user = weir_row_get_string(v->schema, row, 0, &len);
    for (int i = 0; i < v->n; i++) {
        const char *u = weir_row_get_string(v->schema, v->rows[i], 0, &l2);
        if (l2 == len && memcmp(u, user, len) == 0)
            return i;
    }
    return -1;
}

/* Applies one changelog row and prints it with the view after it. The sink
 * runs at parallelism 1: one thread, rows in order. */
static int apply(const void *row, int64_t ts, int subtask, void *arg)
{
    (void)ts;
    (void)subtask;
    view *v = arg;
    size_t size = weir_schema_row_size(v->schema);
    if (size > ROW_MAX)
        return WEIR_ERANGE;
    int at = find(v, row);
    switch (weir_row_get_kind(row)) {
    case WEIR_ROW_INSERT:
    case WEIR_ROW_UPDATE_AFTER:
        if (at < 0) {
            if (v->n == VIEW_MAX)
                return WEIR_ERANGE;
            at = v->n++;
        }
        memcpy(v->rows[at], row, size);
        weir_row_set_kind(v->rows[at], WEIR_ROW_INSERT);
        break;
    default: /* -U, -D: the row goes away (a +U may bring it back) */
        if (at >= 0)
            memmove(v->rows[at], v->rows[at + 1], (size_t)(v->n - at - 1) * ROW_MAX);
        if (at >= 0)
            v->n--;
        break;
    }
    char line[256];
    weir_row_format(v->schema, row, line, sizeof line);
    printf("  %-18s view:", line);
    for (int i = 0; i < v->n; i++) {
        uint32_t len;
        const char *u = weir_row_get_string(v->schema, v->rows[i], 0, &len);
        printf(" %.*s=%lld/%lld", (int)len, u, (long long)weir_row_get_int(v->schema, v->rows[i], 1),
               (long long)weir_row_get_int(v->schema, v->rows[i], 2));
    }
    printf("\n");
    return 0;
}

static int print_upsert(const void *row, int64_t ts, int subtask, void *arg)
{
    (void)ts;
    (void)subtask;
    const view *v = arg;
    char line[256];
    weir_row_format(v->schema, row, line, sizeof line);
    printf("  %s\n", line);
    return 0;
}

static weir_schema *click_schema(void)
{
    weir_schema_builder *b = weir_schema_builder_create("clicks");
    weir_schema_bind_struct(b, sizeof(click));
    weir_schema_column_at(b, "user", (weir_type){.id = WEIR_TYPE_VARCHAR, .capacity = 16},
                          offsetof(click, user), sizeof ((click *)0)->user);
    weir_schema_column_at(b, "amount", (weir_type){.id = WEIR_TYPE_BIGINT},
                          offsetof(click, amount), 8);
    weir_schema_column_at(b, "ts", (weir_type){.id = WEIR_TYPE_TIMESTAMP}, offsetof(click, ts), 8);
    weir_schema_watermark(b, "ts", "ts - INTERVAL '1' SECOND");
    weir_schema *s = NULL;
    char err[256];
    if (weir_schema_build(b, &s, err, sizeof err) != 0)
        fprintf(stderr, "table_changelog: %s\n", err);
    return s;
}

/* Runs the per-user count once, its changelog in `mode` into `sink`. */
/* With `explain`, the plan before and the final view after. */
static int run(const weir_schema *schema, unsigned mode, weir_sink_fn sink, view *v,
               bool explain)
{
    weir_job *job;
    weir_table_env *env;
    /* The first run writes its capture: the viewer shows each table node
     * with its changelog mode. */
    if (weir_job_create(&(weir_job_config){.workers = 2, .parallelism = 1,
                                           .diag.jsonl_path = explain ? "table-changelog.jsonl"
                                                                      : NULL},
                        &job) != 0)
        return 1;
    if (weir_table_env_create(job, NULL, &env) != 0)
        return 1;
    weir_table *t = weir_table_from_stream(
        env, weir_source_array(job, clicks, NCLICKS, sizeof(click), NULL), schema);
    weir_table *counts =
        weir_table_group_by(t, "user", "user, COUNT(*) AS clicks, SUM(amount) AS total");
    if (explain && counts) {
        char plan[1024];
        weir_table_explain(counts, plan, sizeof plan);
        printf("plan (EXPLAIN CHANGELOG_MODE):\n%s\n", plan);
        printf("the changelog, and the view it maintains (user=clicks/total):\n");
    }
    v->schema = weir_table_schema(counts);
    weir_sink_callback(weir_table_to_changelog_stream(counts, mode), sink, v);
    int r = *weir_job_error(job) ? 1 : weir_job_run(job);
    if (r != 0)
        fprintf(stderr, "table_changelog: %s\n", weir_job_error(job));
    if (r == 0 && explain) {
        /* (before the env goes: it owns the schema the rows are read with) */
        printf("\nthe final view:\n");
        for (int i = 0; i < v->n; i++) {
            char line[256];
            weir_row_format(v->schema, v->rows[i], line, sizeof line);
            printf("  %s\n", line);
        }
    }
    weir_job_destroy(job);
    weir_table_env_destroy(env);
    return r != 0;
}

int main(void)
{
    weir_schema *schema = click_schema();
    if (!schema)
        return 1;
    static view v;
    if (run(schema, WEIR_CHANGELOG_ALL, apply, &v, true))
        return 1;
    /* Upsert: no -U rows; each +U replaces the row of its key (user, the
     * group key, is the unique key). */
    static view u;
    printf("\nthe same changelog in upsert mode:\n");
    if (run(schema, WEIR_CHANGELOG_UPSERT, print_upsert, &u, false))
        return 1;

    /* An insert-only stream of an updating table: refused when it is made,
     * naming the node that makes the updates. */
    weir_job *job;
    weir_table_env *env;
    if (weir_job_create(&(weir_job_config){.workers = 1}, &job) != 0 ||
        weir_table_env_create(job, NULL, &env) != 0)
        return 1;
    weir_table *t = weir_table_from_stream(
        env, weir_source_array(job, clicks, NCLICKS, sizeof(click), NULL), schema);
    weir_table *counts = weir_table_group_by(t, "user", "user, COUNT(*) AS clicks");
    if (weir_table_to_stream(counts) != NULL)
        return 1;
    printf("\nweir_table_to_stream(counts) is refused:\n  %s\n", weir_job_error(job));
    weir_job_destroy(job);
    weir_table_env_destroy(env);
    weir_schema_destroy(schema);
    return 0;
}
