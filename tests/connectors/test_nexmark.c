/* test_nexmark.c — the Nexmark events (weir/nexmark.h): each event a pure
 * function of the config and its number; the proportions, ids, times,
 * prices, strings and sizes Nexmark defines, by default and configured (the
 * proportions, the hot ratios, the auctions in flight and active persons a
 * bid or auction draws from, the rate); the source's events the same at
 * every parallelism, subtask i of p emitting the events n % p == i in order;
 * its position restored from a savepoint, and refused at another
 * parallelism. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "nexmark_urls.h"
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

/* The URLs a source subtask keeps (nexmark_urls.h): every event the same
 * bytes as made alone, hot channels and others, the kept ones drawn again;
 * URLs kept for another seed are not used. */
Test(nexmark, kept_urls_make_the_same_events)
{
    weir_nexmark_config c = {.seed = 11};
    weir__nexmark_urls *urls = weir__nexmark_urls_create(11), *other = weir__nexmark_urls_create(12);
    cr_assert_not_null(urls);
    cr_assert_not_null(other);
    weir_nexmark_event a, b, d;
    int hot = 0, channels = 0;
    for (int64_t n = 0; n < 3 * N; n++) {
        weir_nexmark_event_at(&c, n, &a);
        weir__nexmark_event_with(&c, n, &b, urls);
        weir__nexmark_event_with(&c, n, &d, other);
        cr_assert_eq(memcmp(&a, &b, sizeof a), 0, "event %lld", (long long)n);
        cr_assert_eq(memcmp(&a, &d, sizeof a), 0, "event %lld, another seed's URLs",
                     (long long)n);
        if (a.kind == WEIR_NEXMARK_BID) {
            cr_assert(strncmp(a.bid.url, "https://www.nexmark.com/", 24) == 0, "%s", a.bid.url);
            if (strncmp(a.bid.channel, "channel-", 8) == 0)
                channels++;
            else
                hot++;
        }
    }
    /* half the bids on a hot channel; the others' 10 000 channels each drawn
     * about six times, so most were kept before they were drawn again */
    cr_assert_gt(hot, N);
    cr_assert_gt(channels, N);
    weir__nexmark_urls_free(urls);
    weir__nexmark_urls_free(other);
    weir__nexmark_urls_free(NULL);
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

/* Event n's kind as the proportions say: n % (p + a + b) below p a person,
 * then a auctions, then bids; persons and auctions numbered in order from
 * 1000. Every bid names an auction and a bidder made before it (or at most
 * 10 ahead): the hot one (all but 1 in hot_auction_ratio / hot_bidder_ratio
 * of them: the first auction of each 100, the second person), or one of the
 * num_in_flight_auctions last auctions / num_active_people last persons; an
 * auction's seller likewise (the hot seller: the first person of each 100,
 * all but 1 in hot_seller_ratio). */
static void check_ids(const weir_nexmark_config *c, int64_t events, int p, int a, int b,
                      int hot_auctions, int hot_bidders, int hot_sellers, int in_flight,
                      int active)
{
    int64_t persons = 0, auctions = 0, nbids = 0, nauctions = 0;
    int64_t hot_auction = 0, hot_bidder = 0, hot_seller = 0;
    for (int64_t n = 0; n < events; n++) {
        weir_nexmark_event e;
        weir_nexmark_event_at(c, n, &e);
        int64_t r = n % (p + a + b);
        int want = r < p ? WEIR_NEXMARK_PERSON : r < p + a ? WEIR_NEXMARK_AUCTION
                                                            : WEIR_NEXMARK_BID;
        cr_assert_eq(e.kind, want, "event %lld", (long long)n);
        if (e.kind == WEIR_NEXMARK_PERSON) {
            cr_assert_eq(e.person.id, 1000 + persons);
            persons++;
        } else if (e.kind == WEIR_NEXMARK_AUCTION) {
            cr_assert_eq(e.auction.id, 1000 + auctions);
            auctions++;
            nauctions++;
            int64_t hot = 1000 + (persons - 1) / 100 * 100;
            hot_seller += e.auction.seller == hot;
            if (e.auction.seller != hot) {
                int64_t first = persons > active ? persons - active : 0;
                cr_assert(e.auction.seller >= 1000 + first &&
                              e.auction.seller < 1000 + persons + 10,
                          "auction %lld: seller %lld, %lld persons", (long long)e.auction.id,
                          (long long)e.auction.seller, (long long)persons);
            }
        } else {
            nbids++;
            int64_t last = auctions - 1;
            int64_t hot = 1000 + last / 100 * 100;
            hot_auction += e.bid.auction == hot;
            if (e.bid.auction != hot) {
                int64_t first = last > in_flight ? last - in_flight : 0;
                cr_assert(e.bid.auction >= 1000 + first && e.bid.auction <= 1000 + last + 10,
                          "bid %lld: auction %lld, last %lld", (long long)n,
                          (long long)e.bid.auction, (long long)(1000 + last));
            }
            int64_t hotp = 1000 + (persons - 1) / 100 * 100 + 1;
            hot_bidder += e.bid.bidder == hotp;
            if (e.bid.bidder != hotp) {
                int64_t first = persons > active ? persons - active : 0;
                cr_assert(e.bid.bidder >= 1000 + first && e.bid.bidder < 1000 + persons + 10,
                          "bid %lld: bidder %lld, %lld persons", (long long)n,
                          (long long)e.bid.bidder, (long long)persons);
            }
        }
    }
    int64_t period = p + a + b;
    cr_assert_eq(persons, events / period * p);
    cr_assert_eq(auctions, events / period * a);
    /* the hot share: all but 1 in the ratio, and a few more by chance */
    double share[3] = {(double)hot_auction / (double)nbids, (double)hot_bidder / (double)nbids,
                       (double)hot_seller / (double)nauctions};
    int ratio[3] = {hot_auctions, hot_bidders, hot_sellers};
    for (int i = 0; i < 3; i++) {
        double want = 1.0 - 1.0 / ratio[i];
        cr_assert(share[i] > want - 0.03 && share[i] < want + 0.06,
                  "hot share %d: %.3f, ratio %d", i, share[i], ratio[i]);
    }
}

Test(nexmark, proportions_ids_and_hot_ratios_by_default_and_configured)
{
    weir_nexmark_config d = {.seed = 4};
    check_ids(&d, N, 1, 3, 46, 2, 4, 4, 100, 1000);
    weir_nexmark_config c = {.seed = 5,
                             .person_proportion = 2,
                             .auction_proportion = 5,
                             .bid_proportion = 13,
                             .hot_auction_ratio = 5,
                             .hot_bidder_ratio = 3,
                             .hot_seller_ratio = 10,
                             .num_in_flight_auctions = 12,
                             .num_active_people = 30};
    check_ids(&c, 40000, 2, 5, 13, 5, 3, 10, 12, 30);
}

/* Event time: base + floor(n * 10^6 / rate) / 1000 ms, never decreasing
 * with n, whatever the rate (a delay of a fraction of a millisecond or of
 * several seconds); an event's date_time is its time_of. */
Test(nexmark, event_time_follows_the_rate)
{
    const double rates[] = {0.5, 3, 100, 7777, 10000, 1e6};
    for (size_t i = 0; i < sizeof rates / sizeof rates[0]; i++) {
        weir_nexmark_config c = {.rate = rates[i], .base_time_ms = 5000, .seed = 2};
        int64_t prev = 5000;
        for (int64_t n = 0; n < 3000; n += 1 + n / 500) {
            int64_t t = weir_nexmark_time_of(&c, n);
            int64_t want = 5000 + (int64_t)((double)n * (1000000.0 / rates[i])) / 1000;
            cr_assert_eq(t, want, "rate %g, event %lld", rates[i], (long long)n);
            cr_assert_geq(t, prev);
            prev = t;
            if (n % 97 == 0) {
                weir_nexmark_event e;
                weir_nexmark_event_at(&c, n, &e);
                cr_assert_eq(e.date_time, t);
            }
        }
    }
    weir_nexmark_config c = {.rate = 3};
    cr_assert_eq(weir_nexmark_time_of(&c, 1), 333);
    cr_assert_eq(weir_nexmark_time_of(&c, 3), 1000);
}

/* Subtask i of p emits the events n with n % p == i, in order; the slices
 * are disjoint and together every event; each subtask's event time never
 * goes back, so the source as a whole is out of order only by how far its
 * subtasks run apart. */
#define SPLIT_EVENTS 9001
static int64_t split_seen[4][SPLIT_EVENTS];
static _Atomic int64_t split_count[4];

static int split_record(const void *elem, int64_t ts, int subtask, void *arg)
{
    (void)arg;
    const weir_nexmark_event *e = elem;
    if (subtask < 0 || subtask >= 4 || e->date_time != ts)
        return WEIR_EINVAL;
    int64_t k = split_count[subtask]++;
    if (k >= SPLIT_EVENTS)
        return WEIR_ERANGE;
    split_seen[subtask][k] = e->number;
    return 0;
}

Test(nexmark, subtask_i_of_p_emits_the_events_n_mod_p_equal_to_i)
{
    for (int p = 1; p <= 4; p++) {
        for (int i = 0; i < 4; i++)
            split_count[i] = 0;
        weir_job *job = tu_job(&(weir_job_config){.workers = 2, .parallelism = p});
        weir_nexmark_config c = {.events = SPLIT_EVENTS, .seed = 6, .rate = 3000};
        weir_stream *src = weir_source_nexmark(job, &c);
        cr_assert_not_null(weir_sink_callback(src, split_record, NULL));
        tu_run_ok(job);
        weir_job_destroy(job);
        int64_t total = 0;
        for (int s = 0; s < p; s++) {
            int64_t k = split_count[s];
            /* the slice: s, s + p, s + 2p, ... below SPLIT_EVENTS, in order */
            cr_assert_eq(k, (SPLIT_EVENTS - s + p - 1) / p, "p %d subtask %d", p, s);
            for (int64_t j = 0; j < k; j++)
                cr_assert_eq(split_seen[s][j], s + j * p, "p %d subtask %d", p, s);
            total += k;
        }
        cr_assert_eq(total, SPLIT_EVENTS);
    }
}
