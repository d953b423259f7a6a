/* test_nexmark.c — the Nexmark events (weir/nexmark.h): each event a pure
 * function of the config and its number; the proportions, ids, times,
 * prices, strings and sizes Nexmark defines; the source's events the same
 * at every parallelism, each subtask's in order; its position restored
 * from a savepoint, and refused at another parallelism. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "weir.h"
#include "weir/nexmark.h"
#include "support/weir_testutil.h"

#define N 50000 /* one thousand epochs of 1 + 3 + 46 */

Test(nexmark, an_event_is_a_function_of_the_config_and_its_number)
{
    weir_nexmark_config c = {.seed = 7};
    weir_nexmark_event a, b;
    for (int64_t n = 0; n < 2000; n += 37) {
        weir_nexmark_event_at(&c, n, &a);
        weir_nexmark_event_at(&c, n, &b);
        cr_assert_eq(memcmp(&a, &b, sizeof a), 0, "event %lld", (long long)n);
    }
    weir_nexmark_config d = {.seed = 8};
    int differ = 0;
    for (int64_t n = 0; n < 200; n++) {
        weir_nexmark_event_at(&c, n, &a);
        weir_nexmark_event_at(&d, n, &b);
        differ += memcmp(&a, &b, sizeof a) != 0;
    }
    cr_assert_gt(differ, 150, "another seed, other events");
}

Test(nexmark, kinds_ids_and_times_as_nexmark_defines_them)
{
    weir_nexmark_config c = {.seed = 1, .base_time_ms = 1000};
    static weir_nexmark_event ev[N];
    int64_t persons = 0, auctions = 0, bids = 0, hot_auction = 0, hot_channel = 0;
    int64_t extra_bid = 0, extra_person = 0, extra_auction = 0;
    for (int64_t n = 0; n < N; n++) {
        weir_nexmark_event *e = &ev[n];
        weir_nexmark_event_at(&c, n, e);
        cr_assert_eq(e->number, n);
        /* rate 10000 a second: 0.1 ms apart */
        cr_assert_eq(e->date_time, 1000 + n / 10, "event %lld at %lld", (long long)n,
                     (long long)e->date_time);
        cr_assert_geq(e->extra_len, 0);
        cr_assert_leq(e->extra_offset + e->extra_len, 1 << 20);
        const char *x = weir_nexmark_extra(e);
        for (int i = 0; i < e->extra_len; i++)
            cr_assert(x[i] >= 'a' && x[i] <= 'z');
        switch (e->kind) {
        case WEIR_NEXMARK_PERSON:
            cr_assert_eq(n % 50, 0);
            /* persons are numbered in order from 1000 */
            cr_assert_eq(e->person.id, 1000 + persons, "person %lld", (long long)persons);
            persons++;
            cr_assert(strchr(e->person.name, ' '), "%s", e->person.name);
            cr_assert(strchr(e->person.email_address, '@'), "%s", e->person.email_address);
            cr_assert(strstr(e->person.email_address, ".com"), "%s", e->person.email_address);
            cr_assert_eq(strlen(e->person.credit_card), 19u, "%s", e->person.credit_card);
            cr_assert_eq(strlen(e->person.state), 2u);
            extra_person += e->extra_len;
            break;
        case WEIR_NEXMARK_AUCTION:
            cr_assert(n % 50 >= 1 && n % 50 <= 3);
            cr_assert_eq(e->auction.id, 1000 + auctions);
            auctions++;
            cr_assert_geq(e->auction.category, 10);
            cr_assert_leq(e->auction.category, 14);
            cr_assert_geq(e->auction.initial_bid, 100);
            cr_assert_leq(e->auction.initial_bid, 100000000);
            cr_assert_geq(e->auction.reserve, e->auction.initial_bid + 100);
            cr_assert_gt(e->auction.expires, e->date_time);
            /* a seller made before it, or a few ahead */
            cr_assert_geq(e->auction.seller, 1000);
            cr_assert_leq(e->auction.seller, 1000 + persons + 10);
            cr_assert_geq(strlen(e->auction.item_name), 1u);
            cr_assert_lt(strlen(e->auction.item_name), 20u);
            cr_assert_lt(strlen(e->auction.description), 100u);
            extra_auction += e->extra_len;
            break;
        case WEIR_NEXMARK_BID:
            cr_assert_geq(n % 50, 4);
            bids++;
            cr_assert_geq(e->bid.auction, 1000);
            cr_assert_leq(e->bid.auction, 1000 + auctions + 10);
            hot_auction += (e->bid.auction - 1000) % 100 == 0;
            cr_assert_geq(e->bid.bidder, 1000);
            cr_assert_leq(e->bid.bidder, 1000 + persons + 10);
            cr_assert_geq(e->bid.price, 100);
            cr_assert_leq(e->bid.price, 100000000);
            cr_assert(strncmp(e->bid.url, "https://www.nexmark.com/", 24) == 0, "%s",
                      e->bid.url);
            cr_assert(strstr(e->bid.url, "item.htm?query=1"), "%s", e->bid.url);
            if (strncmp(e->bid.channel, "channel-", 8) != 0) {
                hot_channel++;
                cr_assert(strstr("Google Facebook Baidu Apple", e->bid.channel), "%s",
                          e->bid.channel);
            }
            extra_bid += e->extra_len;
            break;
        default: cr_assert_fail("kind %d", e->kind);
        }
    }
    cr_assert_eq(persons, N / 50);
    cr_assert_eq(auctions, 3 * N / 50);
    cr_assert_eq(bids, 46 * N / 50);
    /* hot auctions half the time (and a few more by chance), hot channels
     * half the time */
    cr_assert_gt(hot_auction, bids * 45 / 100);
    cr_assert_gt(hot_channel, bids * 45 / 100);
    cr_assert_lt(hot_channel, bids * 55 / 100);
    /* every event about its kind's average size: a bid's extra about
     * 100 - 32 bytes (within 20%) */
    cr_assert_gt(extra_bid / bids, 60);
    cr_assert_lt(extra_bid / bids, 76);
    cr_assert_gt(extra_auction / auctions, 250);
    cr_assert_gt(extra_person / persons, 100);
}

Test(nexmark, bad_configs_are_refused)
{
    char why[256];
    weir_nexmark_config c = {.rate = -1};
    cr_assert_eq(weir_nexmark_check(&c, why, sizeof why), WEIR_EINVAL);
    cr_assert(strstr(why, "rate -1"), "%s", why);
    c = (weir_nexmark_config){.bid_proportion = -2};
    cr_assert_eq(weir_nexmark_check(&c, why, sizeof why), WEIR_EINVAL);
    cr_assert(strstr(why, "proportions"), "%s", why);
    c = (weir_nexmark_config){.avg_bid_size = 1 << 20};
    cr_assert_eq(weir_nexmark_check(&c, why, sizeof why), WEIR_EINVAL);
    cr_assert(strstr(why, "average bid size"), "%s", why);
    c = (weir_nexmark_config){.events = -5};
    cr_assert_eq(weir_nexmark_check(&c, why, sizeof why), WEIR_EINVAL);
    weir_job *job = tu_job(&(weir_job_config){.workers = 1});
    cr_assert_null(weir_source_nexmark(job, &c));
    cr_assert(strstr(weir_job_error(job), "weir_source_nexmark: events -5"), "%s",
              weir_job_error(job));
    weir_job_destroy(job);
}

/* The numbers a run of `events` events at parallelism p emits, checking
 * that each subtask's (n % p) come in order. */
static int64_t *run_numbers(int p, int64_t events, size_t *count)
{
    weir_job *job = tu_job(&(weir_job_config){.workers = 2, .parallelism = p});
    weir_nexmark_config c = {.events = events, .seed = 3};
    weir_collect *col = NULL;
    cr_assert_not_null(weir_sink_collect(weir_source_nexmark(job, &c), &col));
    tu_run_ok(job);
    *count = weir_collect_count(col);
    int64_t *v = malloc(*count * sizeof *v);
    int64_t last[8];
    for (int i = 0; i < 8; i++)
        last[i] = -1;
    for (size_t i = 0; i < *count; i++) {
        const weir_nexmark_event *e = weir_collect_elem(col, i);
        weir_nexmark_event want;
        weir_nexmark_event_at(&c, e->number, &want);
        cr_assert_eq(memcmp(e, &want, sizeof want), 0);
        cr_assert_eq(weir_collect_timestamp(col, i), e->date_time);
        int s = (int)(e->number % p);
        cr_assert_gt(e->number, last[s], "subtask %d out of order", s);
        last[s] = e->number;
        v[i] = e->number;
    }
    weir_job_destroy(job);
    return v;
}

static int cmp64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

Test(nexmark, the_same_events_at_every_parallelism)
{
    for (int p = 1; p <= 3; p++) {
        size_t n = 0;
        int64_t *v = run_numbers(p, 10001, &n);
        cr_assert_eq(n, 10001u, "parallelism %d", p);
        qsort(v, n, sizeof *v, cmp64);
        for (size_t i = 0; i < n; i++)
            cr_assert_eq(v[i], (int64_t)i);
        free(v);
    }
}

/* A paced run stopped with a savepoint, then restored: the restored run
 * starts where each subtask stopped (it emits fewer than all), and the two
 * together have every event. At another parallelism the restore fails. */
Test(nexmark, restored_from_a_savepoint, .timeout = 60)
{
    char tmp[] = "/tmp/weir-nexmark-XXXXXX";
    cr_assert_not_null(mkdtemp(tmp));
    char sp[256];
    snprintf(sp, sizeof sp, "%s/savepoints", tmp);
    const int64_t total = 6000; /* 3 s at 2000 a second */
    weir_nexmark_config c = {.events = total, .rate = 2000, .paced = true, .seed = 5};
    weir_job *job = tu_job(&(weir_job_config){.workers = 2, .parallelism = 2,
                                              .clock = WEIR_CLOCK_SYSTEM,
                                              .checkpoint = {.dir = sp}});
    weir_collect *first = NULL;
    cr_assert_not_null(weir_sink_collect(weir_source_nexmark(job, &c), &first));
    tu_runner r;
    tu_runner_start(&r, job);
    nanosleep(&(struct timespec){.tv_nsec = 400 * 1000000L}, NULL);
    int64_t id = 0;
    char why[512];
    int e = weir_job_savepoint(job, sp, true, &id, why, sizeof why);
    pthread_join(r.thread, NULL);
    cr_assert_eq(e, 0, "savepoint: %s", why);
    size_t n1 = weir_collect_count(first);
    cr_assert_gt(n1, 0u);
    cr_assert_lt(n1, (size_t)total);
    char *seen = calloc((size_t)total, 1);
    for (size_t i = 0; i < n1; i++)
        seen[((const weir_nexmark_event *)weir_collect_elem(first, i))->number] = 1;
    weir_job_destroy(job);

    char restore[512];
    snprintf(restore, sizeof restore, "%s/chk-%lld", sp, (long long)id);
    c.paced = false;
    job = tu_job(&(weir_job_config){.workers = 2, .parallelism = 2,
                                    .checkpoint = {.restore_from = restore}});
    weir_collect *second = NULL;
    cr_assert_not_null(weir_sink_collect(weir_source_nexmark(job, &c), &second));
    tu_run_ok(job);
    size_t n2 = weir_collect_count(second);
    cr_assert_lt(n2, (size_t)total, "the restored run starts where the first stopped");
    for (size_t i = 0; i < n2; i++)
        seen[((const weir_nexmark_event *)weir_collect_elem(second, i))->number] = 1;
    for (int64_t i = 0; i < total; i++)
        cr_assert(seen[i], "event %lld lost", (long long)i);
    weir_job_destroy(job);

    job = tu_job(&(weir_job_config){.workers = 2, .parallelism = 3,
                                    .checkpoint = {.restore_from = restore}});
    weir_sink_discard(weir_source_nexmark(job, &c));
    cr_assert_neq(weir_job_run(job), 0);
    cr_assert(strstr(weir_job_error(job), "'nexmark' ran at parallelism 2 and is at 3"),
              "%s", weir_job_error(job));
    weir_job_destroy(job);
    free(seen);
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp);
    cr_assert_eq(system(cmd), 0);
}
