/* join_checkpoint_harness.h — what the joins' checkpoint tests
 * (test_join_checkpoint.c, test_window_join_checkpoint.c,
 * test_lookup_join_checkpoint.c) share (beside support/gen_table.h's
 * generated tables): a changelog sink into part files, the committed lines
 * applied as a changelog, and the run stopped with a savepoint, resumed from
 * it and compared with a run that was never stopped. Each test keeps its job
 * (jch_case.build) and what it checks beyond the output (the hooks).
 */
#ifndef WEIR_TESTS_JOIN_CHECKPOINT_HARNESS_H
#define WEIR_TESTS_JOIN_CHECKPOINT_HARNESS_H

#include <dirent.h>
#include <time.h>

#include "diag/test_diag_support.h"
#include "support/gen_table.h"
#include "support/weir_testutil.h"
#include "weir.h"
#include "weir/file_sink.h"

static inline int jch_format_row(const void *elem, int64_t ts, char *buf, size_t size, void *arg)
{
    (void)ts;
    return weir_row_format(arg, elem, buf, size);
}

/* A job of two workers at parallelism p, checkpointing into chk (NULL: none)
 * and restored from restore (NULL: fresh), and its table env. */
static inline weir_job *jch_job(const char *chk, const char *restore, int p,
                                weir_table_env **env)
{
    weir_job_config cfg = {.workers = 2, .parallelism = p, .diag = {.level = WEIR_DIAG_OFF}};
    cfg.checkpoint.dir = chk;
    cfg.checkpoint.restore_from = restore;
    weir_job *job = tu_job(&cfg);
    cr_assert_eq(weir_table_env_create(job, &(weir_table_config){.parallelism = p}, env), 0);
    return job;
}

/* j's changelog, written exactly once into part files under out */
static inline void jch_sink(weir_job *job, weir_table *j, const char *out)
{
    cr_assert(j, "%s", weir_job_error(job));
    weir_file_sink_config fc = {.dir = out, .roll_bytes = 1 << 16, .format = jch_format_row,
                                .format_arg = (void *)weir_table_schema(j)};
    cr_assert(weir_sink_file(weir_table_to_changelog_stream(j, WEIR_CHANGELOG_ALL), &fc), "%s",
              weir_job_error(job));
}

/* ---- the committed lines, applied as a changelog ----------------------------------------- */

typedef struct jch_rows {
    char **rows;
    size_t n, cap;
} jch_rows;

static inline void jch_apply_line(jch_rows *t, const char *line)
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

static inline void jch_apply_dir(jch_rows *t, const char *dir)
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
                    jch_apply_line(t, line);
            }
            fclose(f);
        }
    }
    closedir(d);
}

static inline int jch_cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* the rows sorted, a line each; frees them. Caller frees. */
static inline char *jch_rows_text(jch_rows *t)
{
    qsort(t->rows, t->n, sizeof *t->rows, jch_cmp_str);
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

static inline void jch_sleep_ms(int ms)
{
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

/* ---- stopped with a savepoint, resumed, compared --------------------------------------------- */

typedef struct jch_case {
    /* builds the job writing into out (jch_job, jch_sink) with its
     * generators at `speed`; unbuild destroys it and what it holds */
    weir_job *(*build)(void *arg, const char *out, const char *chk, const char *restore, int p,
                       double speed);
    void (*unbuild)(void *arg);
    void *arg;
    size_t min_rows;  /* the run never stopped's table has more rows */
    int stop_after_ms; /* the savepoint taken this long after the start */
    /* optional: before the run that is stopped, after it, after the resumed run */
    void (*before_stopped)(void *arg);
    void (*after_stopped)(void *arg, int p1);
    void (*after_resumed)(void *arg, int p1, int p2);
} jch_case;

/* A run never stopped (at parallelism p1, fast); a run at p1 at the pace of
 * the generated time stopped with a savepoint after c->stop_after_ms and
 * resumed from it at p2 into the same folder: the committed output of both,
 * applied as a changelog, is the first's final table. */
static inline void jch_stop_and_resume(const jch_case *c, int p1, int p2)
{
    char *tmp = td_tmpdir();
    char ref[4096], out[4096], chk[4096], sp[4096];
    snprintf(ref, sizeof ref, "%s/reference", tmp);
    snprintf(out, sizeof out, "%s/out", tmp);
    snprintf(chk, sizeof chk, "%s/chk", tmp);
    snprintf(sp, sizeof sp, "%s/savepoint", tmp);
    tu_run_ok(c->build(c->arg, ref, NULL, NULL, p1, 50));
    c->unbuild(c->arg);
    jch_rows want = {0};
    jch_apply_dir(&want, ref);
    cr_assert_gt(want.n, c->min_rows);
    char *want_text = jch_rows_text(&want);

    if (c->before_stopped)
        c->before_stopped(c->arg);
    weir_job *job = c->build(c->arg, out, chk, NULL, p1, 1.0);
    tu_runner r;
    tu_runner_start(&r, job);
    jch_sleep_ms(c->stop_after_ms);
    tu_runner_stop_with_savepoint(&r, sp);
    c->unbuild(c->arg);
    if (c->after_stopped)
        c->after_stopped(c->arg, p1);
    tu_run_ok(c->build(c->arg, out, NULL, sp, p2, 50));
    c->unbuild(c->arg);
    if (c->after_resumed)
        c->after_resumed(c->arg, p1, p2);
    jch_rows got = {0};
    jch_apply_dir(&got, out);
    char *got_text = jch_rows_text(&got);
    cr_assert(strcmp(got_text, want_text) == 0,
              "parallelism %d then %d: the committed output differs from the run never stopped",
              p1, p2);
    free(got_text);
    free(want_text);
    td_rmdir(tmp);
}

#endif
