/* scenario_nexmark.c — the Nexmark event generator (weir/nexmark.h) by
 * itself: how fast it makes events, so that a Nexmark query's rate is the
 * query's and not its source's.
 *
 *   nexmark-generate  no runtime: weir_nexmark_event_at for events 0..N-1 in
 *                     a loop, each folded into a checksum
 *   nexmark-source    weir_source_nexmark (N events, round-robin over the
 *                     subtasks) -> a sink folding each event into its
 *                     subtask's checksum (a blackhole that checks)
 *
 * The checksum of an event is number ^ date_time ^ kind, summed; both rows
 * must see the same count and sum.
 */
#include <stdio.h>
#include <stdlib.h>

#include <weir/nexmark.h>

#include "bench.h"

static const weir_nexmark_config nexmark_cfg = {.seed = 42};

static uint64_t check_of(const weir_nexmark_event *e)
{
    return (uint64_t)e->number ^ (uint64_t)e->date_time ^ (uint64_t)e->kind;
}

/* The count and checksum of events 0..n-1, computed once per count (outside
 * the timed interval of nexmark-source). */
static void expected(int64_t n, uint64_t *sum)
{
    static int64_t last_n = -1;
    static uint64_t last_sum;
    if (n != last_n) {
        weir_nexmark_config c = nexmark_cfg;
        uint64_t s = 0;
        for (int64_t i = 0; i < n; i++)
            s += (uint64_t)i ^ (uint64_t)weir_nexmark_time_of(&c, i) ^
                 (uint64_t)(i % 50 == 0 ? WEIR_NEXMARK_PERSON
                            : i % 50 < 4 ? WEIR_NEXMARK_AUCTION : WEIR_NEXMARK_BID);
        last_n = n;
        last_sum = s;
    }
    *sum = last_sum;
}

static int verify(const bench_acc *acc, int nacc, int64_t n, char *err, size_t errsize)
{
    uint64_t count, sum, want;
    bench_acc_total(acc, nacc, &count, &sum);
    expected(n, &want);
    if (count != (uint64_t)n || sum != want) {
        snprintf(err, errsize, "the sink saw %llu events (sum %llx), not %lld (sum %llx)",
                 (unsigned long long)count, (unsigned long long)sum, (long long)n,
                 (unsigned long long)want);
        return -1;
    }
    return 0;
}

static int run_generate(const bench_scenario *sc, const bench_params *p, bench_result *out,
                        char *err, size_t errsize)
{
    (void)sc;
    bench_acc *acc = bench_acc_create(1);
    if (!acc) {
        snprintf(err, errsize, "out of memory");
        return -1;
    }
    weir_nexmark_config c = nexmark_cfg;
    c.events = p->records;
    weir_nexmark_event e;
    bench_timer t;
    bench_timer_start(&t);
    for (int64_t n = 0; n < p->records; n++) {
        weir_nexmark_event_at(&c, n, &e);
        acc->count++;
        acc->sum += check_of(&e);
    }
    bench_timer_stop(&t, out);
    out->workers = 0;
    int r = verify(acc, 1, p->records, err, errsize);
    free(acc);
    return r;
}

static int fold(const void *elem, int64_t timestamp, int subtask, void *arg)
{
    (void)timestamp;
    bench_acc *acc = (bench_acc *)arg + subtask;
    acc->count++;
    acc->sum += check_of(elem);
    return 0;
}

static int run_source(const bench_scenario *sc, const bench_params *p, bench_result *out,
                      char *err, size_t errsize)
{
    (void)sc;
    uint64_t want;
    expected(p->records, &want); /* before the timed run */
    weir_job *job = bench_job_create(p, 0, NULL, err, errsize);
    if (!job)
        return -1;
    bench_acc *acc = bench_acc_create(p->parallelism);
    weir_nexmark_config c = nexmark_cfg;
    c.events = p->records;
    c.parallelism = p->parallelism;
    if (!acc || !weir_sink_callback(weir_source_nexmark(job, &c), fold, acc)) {
        snprintf(err, errsize, "building the job: %s", acc ? weir_job_error(job) : "no memory");
        free(acc);
        weir_job_destroy(job);
        return -1;
    }
    bench_timer t;
    bench_timer_start(&t);
    int r = weir_job_run(job);
    bench_timer_stop(&t, out);
    out->workers = weir_job_get_config(job)->workers;
    if (r) {
        snprintf(err, errsize, "the job failed: %s", weir_job_error(job));
        free(acc);
        weir_job_destroy(job);
        return -1;
    }
    weir_job_destroy(job);
    r = verify(acc, p->parallelism, p->records, err, errsize);
    free(acc);
    return r;
}

const bench_scenario bench_scenarios_nexmark[] = {
    {
        .name = "nexmark-generate",
        .what = "baseline: Nexmark events made in a plain loop (weir_nexmark_event_at), no "
                "runtime",
        .flags = BENCH_PLAIN,
        .parallelism = 1,
        .records = 5000000,
        .quick_records = 1000000,
        .run = run_generate,
    },
    {
        .name = "nexmark-source",
        .what = "the Nexmark source (round-robin event numbers) -> a sink that checks each "
                "event (Nexmark's blackhole)",
        .baseline = "nexmark-generate",
        .records = 5000000,
        .quick_records = 1000000,
        .run = run_source,
    },
};

const size_t bench_nscenarios_nexmark =
    sizeof bench_scenarios_nexmark / sizeof bench_scenarios_nexmark[0];
