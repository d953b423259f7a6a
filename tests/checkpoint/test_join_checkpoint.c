/* test_join_checkpoint.c — the joins' state (table/table_join.c) in
 * checkpoints: a job of two generated tables joined (a regular LEFT join
 * with a filter, a regular FULL join, an event-time interval FULL join, an
 * event-time temporal LEFT join against a versioned table),
 * written exactly once into part files, is stopped with a savepoint while
 * it runs and resumed from it, at the parallelism it had and at another
 * (the keyed state and timers spread over new key groups); the committed
 * output of both runs, applied as a changelog, is the final table of a run
 * that was never stopped.
 */
#include "checkpoint/join_checkpoint_harness.h"

typedef struct case_spec {
    weir_join_kind kind;
    const char *cond;
    bool temporal; /* FOR SYSTEM_TIME AS OF l.ts: the right side versioned */
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
        b->s[s] = tu_gen_row_schema(s ? "r" : "l", s == 1 && c->temporal);
        t[s] = tu_gen_table(b->job, b->env, s ? "right" : "left", b->s[s], 300,
                                   5 + (uint64_t)s, speed);
    }
    weir_table *j = c->temporal ? weir_table_temporal_join_as(t[0], "l", t[1], "r", c->kind,
                                                              "l.ts", c->cond)
                                : weir_table_join(t[0], t[1], c->kind, c->cond);
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

static const case_spec REGULAR_LEFT = {.kind = WEIR_JOIN_LEFT,
                                       .cond = "l.k = r.k AND l.v > r.v + 60"};
static const case_spec REGULAR_FULL = {.kind = WEIR_JOIN_FULL,
                                       .cond = "l.k = r.k AND l.v + r.v = 101"};
static const case_spec INTERVAL_FULL = {.kind = WEIR_JOIN_FULL,
                                        .cond = "l.k = r.k AND l.ts BETWEEN r.ts - INTERVAL "
                                                "'0.020' SECOND AND r.ts + INTERVAL '0.010' "
                                                "SECOND"};

static const case_spec TEMPORAL_LEFT = {.kind = WEIR_JOIN_LEFT, .cond = "l.k = r.k AND l.v > r.v",
                                        .temporal = true};

Test(join_checkpoint, regular_left_same_parallelism, .timeout = 60)
{
    stop_and_resume(&REGULAR_LEFT, 2, 2);
}

Test(join_checkpoint, regular_full_rescaled, .timeout = 60)
{
    stop_and_resume(&REGULAR_FULL, 2, 3);
}

Test(join_checkpoint, interval_full_same_parallelism, .timeout = 60)
{
    stop_and_resume(&INTERVAL_FULL, 2, 2);
}

Test(join_checkpoint, interval_full_rescaled, .timeout = 60)
{
    stop_and_resume(&INTERVAL_FULL, 3, 1);
}

Test(join_checkpoint, temporal_left_same_parallelism, .timeout = 60)
{
    stop_and_resume(&TEMPORAL_LEFT, 2, 2);
}

Test(join_checkpoint, temporal_left_rescaled, .timeout = 60)
{
    stop_and_resume(&TEMPORAL_LEFT, 2, 3);
}
