/* test_lookup_join_checkpoint.c — a lookup join (table/table_lookup_join.c)
 * in checkpoints: it has no state of its own (each subtask loads the table
 * at its open, a restore too), so a job of a generated table looked up in a
 * table loaded from memory, LEFT with a filter, written exactly once into
 * part files, is stopped with a savepoint while it runs and resumed from it,
 * at the parallelism it had and at another; the committed output of both
 * runs is the output of a run that was never stopped (also with a reload
 * timer pending in the savepoint).
 */
#include <dirent.h>
#include <errno.h>
#include <stdatomic.h>
#include <sys/stat.h>
#include <time.h>

#include "diag/test_diag_support.h"
#include "support/weir_testutil.h"
#include "weir.h"
#include "weir/file_sink.h"

static weir_schema *left_schema(void)
{
    weir_schema_builder *b = weir_schema_builder_create("l");
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

static weir_schema *side_schema(void)
{
    weir_schema_builder *b = weir_schema_builder_create("side");
    weir_schema_column_sql(b, "key", "BIGINT");
    weir_schema_column_sql(b, "w", "BIGINT");
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

/* the table: keys 0..5 (the generator's 6 and 7 find nothing), key 2
 * twice, each with w = key * 10 + copy */
static atomic_int loads;
static int side_load(void *arg, weir_lookup_row_fn fn, void *fn_arg, char *err, size_t errsize)
{
    (void)err;
    (void)errsize;
    const weir_schema *s = arg;
    atomic_fetch_add(&loads, 1);
    unsigned char row[256];
    for (int k = 0; k < 6; k++)
        for (int copy = 0; copy < (k == 2 ? 2 : 1); copy++) {
            weir_row_init(s, row, WEIR_ROW_INSERT);
            weir_row_set_int(s, row, 0, k);
            weir_row_set_int(s, row, 1, k * 10 + copy);
            int r = fn(row, fn_arg);
            if (r)
                return r;
        }
    return 0;
}

typedef struct built {
    weir_job *job;
    weir_table_env *env;
    weir_schema *ls, *ss;
} built;

static void build(built *b, const char *out, const char *chk, const char *restore, int p,
                  double speed, int64_t reload_ms)
{
    weir_job_config cfg = {.workers = 2, .parallelism = p, .diag = {.level = WEIR_DIAG_OFF}};
    cfg.checkpoint.dir = chk;
    cfg.checkpoint.restore_from = restore;
    b->job = tu_job(&cfg);
    cr_assert_eq(weir_table_env_create(b->job, &(weir_table_config){.parallelism = p}, &b->env),
                 0);
    weir_generator_config g = {.name = "left", .partitions = 1, .keys = 8, .rate = 1000,
                               .pace = WEIR_GEN_PACED, .speed = speed, .count = 400, .seed = 11};
    weir_stream *st = weir_source_generator(b->job, &g);
    weir_timestamps_spec ts = {.strategy = weir_watermarks_bounded(0)};
    st = weir_stream_assign_timestamps(st, &ts);
    b->ls = left_schema();
    b->ss = side_schema();
    st = weir_stream_map(st, weir_schema_row_size(b->ls), to_row, b->ls);
    weir_table *t = weir_table_from_stream(b->env, st, b->ls);
    weir_lookup_source src = {.name = "side", .schema = b->ss, .load = side_load, .arg = b->ss,
                              .reload_ms = reload_ms};
    weir_table *j = weir_table_lookup_join(t, &src, WEIR_JOIN_LEFT, "l.k = side.key AND "
                                           "MOD(l.v, 3) <> MOD(side.w, 3)");
    cr_assert(j, "%s", weir_job_error(b->job));
    weir_file_sink_config fc = {.dir = out, .roll_bytes = 1 << 16, .format = format_row,
                                .format_arg = (void *)weir_table_schema(j)};
    cr_assert(weir_sink_file(weir_table_to_changelog_stream(j, WEIR_CHANGELOG_ALL), &fc), "%s",
              weir_job_error(b->job));
}

static void unbuild(built *b)
{
    weir_job_destroy(b->job);
    weir_table_env_destroy(b->env);
    weir_schema_destroy(b->ls);
    weir_schema_destroy(b->ss);
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

static void stop_and_resume(int p1, int p2, int64_t reload_ms)
{
    char *tmp = td_tmpdir();
    char ref[4096], out[4096], chk[4096], sp[4096];
    snprintf(ref, sizeof ref, "%s/reference", tmp);
    snprintf(out, sizeof out, "%s/out", tmp);
    snprintf(chk, sizeof chk, "%s/chk", tmp);
    snprintf(sp, sizeof sp, "%s/savepoint", tmp);
    built b;
    build(&b, ref, NULL, NULL, p1, 50, reload_ms);
    tu_run_ok(b.job);
    unbuild(&b);
    table_rows want = {0};
    apply_dir(&want, ref);
    cr_assert_gt(want.n, 300);
    char *want_text = table_text(&want);

    /* about 400 ms of generated time at speed 1: stopped on the way */
    atomic_store(&loads, 0);
    build(&b, out, chk, NULL, p1, 1.0, reload_ms);
    tu_runner r;
    tu_runner_start(&r, b.job);
    sleep_ms(150);
    int64_t id = 0;
    char why[512];
    int e = weir_job_savepoint(r.job, sp, true, &id, why, sizeof why);
    pthread_join(r.thread, NULL);
    cr_assert_eq(e, 0, "savepoint: %s", why);
    cr_assert_eq(r.result, WEIR_ECANCELED, "%s", weir_job_error(r.job));
    unbuild(&b);
    cr_assert_eq(atomic_load(&loads), p1);
    build(&b, out, NULL, sp, p2, 50, reload_ms);
    tu_run_ok(b.job);
    unbuild(&b);
    cr_assert_eq(atomic_load(&loads), p1 + p2, "the restored subtasks load the table again");
    table_rows got = {0};
    apply_dir(&got, out);
    char *got_text = table_text(&got);
    cr_assert(strcmp(got_text, want_text) == 0,
              "parallelism %d then %d: the output differs from the run never stopped", p1, p2);
    free(got_text);
    free(want_text);
    td_rmdir(tmp);
}

Test(lookup_join_checkpoint, same_parallelism, .timeout = 60)
{
    stop_and_resume(2, 2, 0);
}

Test(lookup_join_checkpoint, rescaled, .timeout = 60)
{
    stop_and_resume(2, 3, 0);
}

/* a reload timer pending (an hour away, as the filesystem's default) when
 * the savepoint is taken: restored with the job's timers, or not, it does
 * not fire before the end */
Test(lookup_join_checkpoint, rescaled_with_a_reload_pending, .timeout = 60)
{
    stop_and_resume(3, 2, 3600 * 1000);
}
