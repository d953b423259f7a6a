/* consumer_nexmark.c — a program of libweir-nexmark built outside weir's
 * tree (tests/consumer/check.sh: pkg-config weir-nexmark and
 * weir-nexmark-static): 1000 Nexmark events through a job into a sink that
 * counts them by kind. Prints "persons 20, auctions 60, bids 920" (the
 * default proportions 1 : 3 : 46). Built with -Wall -Wextra -Wpedantic
 * -Werror. */
#include <stdio.h>
#include <weir.h>
#include <weir/nexmark.h>

static int count(const void *elem, int64_t timestamp, int subtask, void *arg)
{
    const weir_nexmark_event *e = elem;
    long *by_kind = arg;
    (void)timestamp;
    (void)subtask;
    by_kind[e->kind]++;
    return 0;
}

int main(void)
{
    weir_job_config cfg = {.workers = 1, .parallelism = 1};
    weir_job *job = NULL;
    if (weir_job_create(&cfg, &job) != 0)
        return 1;
    long by_kind[3] = {0, 0, 0};
    weir_nexmark_config nx = {.events = 1000, .seed = 7};
    if (!weir_sink_callback(weir_source_nexmark(job, &nx), count, by_kind) ||
        weir_job_run(job) != 0) {
        fprintf(stderr, "consumer_nexmark: %s\n", weir_job_error(job));
        weir_job_destroy(job);
        return 1;
    }
    weir_job_destroy(job);
    printf("persons %ld, auctions %ld, bids %ld\n", by_kind[WEIR_NEXMARK_PERSON],
           by_kind[WEIR_NEXMARK_AUCTION], by_kind[WEIR_NEXMARK_BID]);
    return 0;
}
