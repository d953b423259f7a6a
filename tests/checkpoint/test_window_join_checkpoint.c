/* test_window_join_checkpoint.c — the window join's state
 * (table/table_window_join.c) in checkpoints: a job of two generated tables,
 * each through a window TVF, window-joined (a FULL join over TUMBLE with a
 * filter, a LEFT join over HOP, a SEMI join over TUMBLE and an ANTI join
 * over HOP, Flink's window semi and anti joins), written exactly once into part files, is
 * stopped with a savepoint while it runs and resumed from it, at the
 * parallelism it had and at another (each window's rows and its timer
 * spread over new key groups); the committed output of both runs is the
 * table of a run that was never stopped.
 */
#include "checkpoint/join_checkpoint_harness.h"

typedef struct case_spec {
    weir_join_kind kind;
    const char *cond;
    weir_table_window window;
} case_spec;

typedef struct built {
    const case_spec *c;
    weir_job *job;
    weir_table_env *env;
    weir_schema *s[2];
} built;

static weir_job *build(void *arg, const char *out, const char *chk, const char *restore, int p,
                       double speed)
{
    built *b = arg;
    const case_spec *c = b->c;
    b->job = jch_job(chk, restore, p, &b->env);
    weir_table *t[2];
    for (int s = 0; s < 2; s++) {
        b->s[s] = tu_gen_row_schema(s ? "r" : "l", false);
        t[s] = weir_table_window_tvf(tu_gen_table(b->job, b->env, s ? "right" : "left",
                                                         b->s[s], 300, 5 + (uint64_t)s, speed),
                                     &c->window);
        cr_assert(t[s], "%s", weir_job_error(b->job));
    }
    weir_table *j = weir_table_join(t[0], t[1], c->kind, c->cond);
    cr_assert(j, "%s", weir_job_error(b->job));
    cr_assert(strncmp(weir_table_node_name(j), "WindowJoin(", 11) == 0, "%s",
              weir_table_node_name(j));
    jch_sink(b->job, j, out);
    return b->job;
}

static void unbuild(void *arg)
{
    built *b = arg;
    weir_job_destroy(b->job);
    weir_table_env_destroy(b->env);
    weir_schema_destroy(b->s[0]);
    weir_schema_destroy(b->s[1]);
}

/* about 600 ms of generated time at speed 1: stopped on the way */
static void stop_and_resume(const case_spec *c, int p1, int p2)
{
    built b = {.c = c};
    jch_stop_and_resume(&(jch_case){.build = build, .unbuild = unbuild, .arg = &b,
                                    .min_rows = 100, .stop_after_ms = 250},
                        p1, p2);
}

#define WINDOWS "l.k = r.k AND l.window_start = r.window_start AND l.window_end = r.window_end"

static const case_spec TUMBLE_FULL = {WEIR_JOIN_FULL, WINDOWS " AND l.v + r.v > 80",
                                      {.kind = WEIR_TABLE_TUMBLE, .size_ms = 20}};
static const case_spec HOP_LEFT = {WEIR_JOIN_LEFT, WINDOWS " AND l.v > r.v",
                                   {.kind = WEIR_TABLE_HOP, .slide_ms = 10, .size_ms = 30}};

static const case_spec TUMBLE_SEMI = {WEIR_JOIN_SEMI, WINDOWS " AND l.v > r.v",
                                      {.kind = WEIR_TABLE_TUMBLE, .size_ms = 20}};
static const case_spec HOP_ANTI = {WEIR_JOIN_ANTI, WINDOWS " AND l.v + r.v > 100",
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

Test(window_join_checkpoint, tumble_semi_rescaled, .timeout = 60)
{
    stop_and_resume(&TUMBLE_SEMI, 2, 3);
}

Test(window_join_checkpoint, hop_anti_rescaled, .timeout = 60)
{
    stop_and_resume(&HOP_ANTI, 3, 1);
}
