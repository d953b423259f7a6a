/* test_window_join_checkpoint.c — the window join's state
 * (table/table_window_join.c) in checkpoints: a job of two generated tables,
 * each through a window TVF, window-joined (a FULL join over TUMBLE with a
 * filter, a LEFT join over HOP), written exactly once into part files, is
 * stopped with a savepoint while it runs and resumed from it, at the
 * parallelism it had and at another (each window's rows and its timer
 * spread over new key groups); the committed output of both runs is the
 * table of a run that was never stopped.
 */
#include <dirent.h>
#include <errno.h>
#include <sys/stat.h>
#include <time.h>

#include "diag/test_diag_support.h"
#include "support/weir_testutil.h"
#include "weir.h"
#include "weir/file_sink.h"


static weir_schema *row_schema(const char *name)
{
    weir_schema_builder *b = weir_schema_builder_create(name);
    weir_schema_column_sql(b, "k", "BIGINT NOT NULL");
    weir_schema_column_sql(b, "v", "BIGINT NOT NULL");
    weir_schema_column_sql(b, "ts", "TIMESTAMP(3) NOT NULL");
    weir_schema_column_sql(b, "seq", "BIGINT NOT NULL");
    weir_schema_watermark(b, "ts", "SOURCE_WATERMARK()");
    weir_schema *s;
    char err[256];
    cr_assert_eq(weir_schema_build(b, &s, err, sizeof err), 0, "%s", err);
    return s;
}

static int to_row(const void *in, void *out, void *arg)
{
    const weir_schema *s = arg;
    const weir_gen_event *e = in;
    weir_row_init(s, out, WEIR_ROW_INSERT);
    weir_row_set_int(s, out, 0, e->key);
    weir_row_set_int(s, out, 1, e->value);
    weir_row_set_int(s, out, 2, e->timestamp);
    weir_row_set_int(s, out, 3, e->seq);
    return 0;
}

static int format_row(const void *elem, int64_t ts, char *buf, size_t size, void *arg)
{
    (void)ts;
    return weir_row_format(arg, elem, buf, size);
}

typedef struct case_spec {
    weir_join_kind kind;
    const char *cond;
    weir_table_window window;
} case_spec;

typedef struct built {
    weir_job *job;
    weir_table_env *env;
    weir_schema *s[2];
} built;

static void build(built *b, const case_spec *c, const char *out, const char *chk,
                  const char *restore, int p, double speed)
{
    weir_job_config cfg = {.workers = 2, .parallelism = p, .diag = {.level = WEIR_DIAG_OFF}};
    cfg.checkpoint.dir = chk;
    cfg.checkpoint.restore_from = restore;
    b->job = tu_job(&cfg);
    cr_assert_eq(weir_table_env_create(b->job, &(weir_table_config){.parallelism = p}, &b->env),
                 0);
    weir_table *t[2];
    for (int s = 0; s < 2; s++) {
        weir_generator_config g = {.name = s ? "right" : "left", .partitions = 1, .keys = 8,
                                   .rate = 1000, .pace = WEIR_GEN_PACED, .speed = speed,
                                   .count = 300, .seed = 5 + (uint64_t)s};
        weir_stream *st = weir_source_generator(b->job, &g);
        weir_timestamps_spec ts = {.strategy = weir_watermarks_bounded(0)};
        st = weir_stream_assign_timestamps(st, &ts);
        b->s[s] = row_schema(s ? "r" : "l");
        st = weir_stream_map(st, weir_schema_row_size(b->s[s]), to_row, b->s[s]);
        t[s] = weir_table_window_tvf(weir_table_from_stream(b->env, st, b->s[s]), &c->window);
        cr_assert(t[s], "%s", weir_job_error(b->job));
    }
    weir_table *j = weir_table_join(t[0], t[1], c->kind, c->cond);
    cr_assert(j, "%s", weir_job_error(b->job));
    cr_assert(strncmp(weir_table_node_name(j), "WindowJoin(", 11) == 0, "%s",
              weir_table_node_name(j));
    weir_file_sink_config fc = {.dir = out, .roll_bytes = 1 << 16, .format = format_row,
                                .format_arg = (void *)weir_table_schema(j)};
    cr_assert(weir_sink_file(weir_table_to_changelog_stream(j, WEIR_CHANGELOG_ALL), &fc), "%s",
              weir_job_error(b->job));
}

static void unbuild(built *b)
{
    weir_job_destroy(b->job);
    weir_table_env_destroy(b->env);
    weir_schema_destroy(b->s[0]);
    weir_schema_destroy(b->s[1]);
}

/* ---- the committed lines, applied as a changelog ----------------------------------------- */

typedef struct table_rows {
    char **rows;
    size_t n, cap;
} table_rows;

static void apply_line(table_rows *t, const char *line)
{
    if (strlen(line) < 3)
        return;
    if (line[0] == '+') {
        if (t->n == t->cap) {
            t->cap = t->cap ? 2 * t->cap : 1024;
            t->rows = realloc(t->rows, t->cap * sizeof *t->rows);
        }
        t->rows[t->n++] = strdup(line + 2);
        return;
    }
    for (size_t i = 0; i < t->n; i++)
        if (strcmp(t->rows[i], line + 2) == 0) {
            free(t->rows[i]);
            t->rows[i] = t->rows[--t->n];
            return;
        }
    cr_assert_fail("%s retracts a row not in the table", line);
}

static void apply_dir(table_rows *t, const char *dir)
{
    DIR *d = opendir(dir);
    cr_assert(d, "no folder %s", dir);
    struct dirent *e;
    /* every +I first, then the retractions: the parts of several subtasks
     * and runs are read in no particular order */
    for (int pass = 0; pass < 2; pass++) {
        rewinddir(d);
        while ((e = readdir(d)) != NULL) {
            if (e->d_name[0] == '.')
                continue;
            char path[4096];
            snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
            FILE *f = fopen(path, "r");
            cr_assert(f, "%s", path);
            char line[1024];
            while (fgets(line, sizeof line, f)) {
                line[strcspn(line, "\n")] = 0;
                if ((line[0] == '+') == (pass == 0))
                    apply_line(t, line);
            }
            fclose(f);
        }
    }
    closedir(d);
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static char *table_text(table_rows *t)
{
    qsort(t->rows, t->n, sizeof *t->rows, cmp_str);
    size_t len = 1;
    for (size_t i = 0; i < t->n; i++)
        len += strlen(t->rows[i]) + 1;
    char *s = malloc(len), *p = s;
    for (size_t i = 0; i < t->n; i++) {
        p += sprintf(p, "%s\n", t->rows[i]);
        free(t->rows[i]);
    }
    *p = 0;
    free(t->rows);
    return s;
}

static void sleep_ms(int ms)
{
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

static void stop_and_resume(const case_spec *c, int p1, int p2)
{
    char *tmp = td_tmpdir();
    char ref[4096], out[4096], chk[4096], sp[4096];
    snprintf(ref, sizeof ref, "%s/reference", tmp);
    snprintf(out, sizeof out, "%s/out", tmp);
    snprintf(chk, sizeof chk, "%s/chk", tmp);
    snprintf(sp, sizeof sp, "%s/savepoint", tmp);
    built b;
    build(&b, c, ref, NULL, NULL, p1, 50);
    tu_run_ok(b.job);
    unbuild(&b);
    table_rows want = {0};
    apply_dir(&want, ref);
    cr_assert_gt(want.n, 100);
    char *want_text = table_text(&want);

    /* about 600 ms of generated time at speed 1: stopped on the way */
    build(&b, c, out, chk, NULL, p1, 1.0);
    tu_runner r;
    tu_runner_start(&r, b.job);
    sleep_ms(250);
    int64_t id = 0;
    char why[512];
    int e = weir_job_savepoint(r.job, sp, true, &id, why, sizeof why);
    pthread_join(r.thread, NULL);
    cr_assert_eq(e, 0, "savepoint: %s", why);
    cr_assert_eq(r.result, WEIR_ECANCELED, "%s", weir_job_error(r.job));
    unbuild(&b);
    build(&b, c, out, NULL, sp, p2, 50);
    tu_run_ok(b.job);
    unbuild(&b);
    table_rows got = {0};
    apply_dir(&got, out);
    char *got_text = table_text(&got);
    cr_assert(strcmp(got_text, want_text) == 0,
              "parallelism %d then %d: the final table differs from the run never stopped", p1,
              p2);
    free(got_text);
    free(want_text);
    td_rmdir(tmp);
}

#define WINDOWS "l.k = r.k AND l.window_start = r.window_start AND l.window_end = r.window_end"

static const case_spec TUMBLE_FULL = {WEIR_JOIN_FULL, WINDOWS " AND l.v + r.v > 80",
                                      {.kind = WEIR_TABLE_TUMBLE, .size_ms = 20}};
static const case_spec HOP_LEFT = {WEIR_JOIN_LEFT, WINDOWS " AND l.v > r.v",
                                   {.kind = WEIR_TABLE_HOP, .slide_ms = 10, .size_ms = 30}};

Test(window_join_checkpoint, tumble_full_same_parallelism, .timeout = 60)
{
    stop_and_resume(&TUMBLE_FULL, 2, 2);
}

Test(window_join_checkpoint, tumble_full_rescaled, .timeout = 60)
{
    stop_and_resume(&TUMBLE_FULL, 2, 3);
}

Test(window_join_checkpoint, hop_left_rescaled, .timeout = 60)
{
    stop_and_resume(&HOP_LEFT, 3, 1);
}
