/* nexmark_model.c — the Nexmark auction's events (weir/nexmark.h): event n
 * of a config computed from n alone, with Nexmark's ids, hot persons and
 * auctions, prices, expiries and strings (Flink's Nexmark generator,
 * com.github.nexmark.flink.generator.model, read for the facts). The random
 * numbers of event n come from a SplitMix64 stream seeded by the config's
 * seed and n, so no event depends on another. */
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nexmark_urls.h"
#include "weir/error.h"
#include "weir/nexmark.h"

#define FIRST_PERSON_ID 1000
#define FIRST_AUCTION_ID 1000
#define FIRST_CATEGORY_ID 10
#define NUM_CATEGORIES 5
#define PERSON_ID_LEAD 10
#define AUCTION_ID_LEAD 10
#define HOT_SELLER_RATIO 100 /* a hot seller: the first of each 100 persons */
#define HOT_AUCTION_RATIO 100
#define HOT_BIDDER_RATIO 100
#define CHANNELS 10000
#define MIN_STRING_LENGTH 3
#define EXTRA_TEXT_SIZE (1 << 20)

/* ---- random numbers ------------------------------------------------------------------ */

typedef struct rng {
    uint64_t s;
} rng;

static uint64_t next64(rng *r)
{
    uint64_t z = (r->s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* Uniform in [0, n) (n > 0): the high word of a 64 x 64-bit product
 * (Lemire's), whose bias (n / 2^64) no test of ours can see; no division,
 * no loop, as every character of a string draws twice. */
static int64_t below(rng *r, int64_t n)
{
    __extension__ typedef unsigned __int128 u128;
    return (int64_t)(((u128)next64(r) * (uint64_t)n) >> 64);
}

static double unit(rng *r)
{
    return (double)(next64(r) >> 11) * (1.0 / 9007199254740992.0);
}

static rng seeded(uint64_t seed, uint64_t stream)
{
    rng r = {seed ^ (stream * 0xD1B54A32D192ED03ull)};
    next64(&r);
    return r;
}

/* ---- the config ---------------------------------------------------------------------- */

typedef struct model {
    int person, auction, bid, total;
    int avg_person, avg_auction, avg_bid;
    int hot_auctions, hot_bidders, hot_sellers;
    int in_flight, active_people;
} model;

static model model_of(const weir_nexmark_config *c)
{
#define OR(x, d) ((x) ? (x) : (d))
    model m = {
        .person = OR(c->person_proportion, 1),
        .auction = OR(c->auction_proportion, 3),
        .bid = OR(c->bid_proportion, 46),
        .avg_person = OR(c->avg_person_size, 200),
        .avg_auction = OR(c->avg_auction_size, 500),
        .avg_bid = OR(c->avg_bid_size, 100),
        .hot_auctions = OR(c->hot_auction_ratio, 2),
        .hot_bidders = OR(c->hot_bidder_ratio, 4),
        .hot_sellers = OR(c->hot_seller_ratio, 4),
        .in_flight = OR(c->num_in_flight_auctions, 100),
        .active_people = OR(c->num_active_people, 1000),
    };
#undef OR
    m.total = m.person + m.auction + m.bid;
    return m;
}

int weir_nexmark_check(const weir_nexmark_config *cfg, char *why, size_t whysize)
{
#define REFUSE(...)                                   \
    do {                                              \
        if (why && whysize)                           \
            snprintf(why, whysize, __VA_ARGS__);      \
        return WEIR_EINVAL;                           \
    } while (0)
    if (!cfg)
        REFUSE("no config");
    if (!(cfg->rate >= 0) || cfg->rate > 1e12)
        REFUSE("rate %g: events a second must be above 0 (and at most 10^12)", cfg->rate);
    if (cfg->events < 0)
        REFUSE("events %" PRId64 ": a count of events is 0 (unbounded) or more", cfg->events);
    if (cfg->parallelism < 0)
        REFUSE("parallelism %d is negative", cfg->parallelism);
    if (cfg->person_proportion < 0 || cfg->auction_proportion < 0 || cfg->bid_proportion < 0 ||
        (int64_t)cfg->person_proportion + cfg->auction_proportion + cfg->bid_proportion >
            1000000)
        REFUSE("the proportions of persons, auctions and bids are 1 or more each (0: the "
               "default), at most 1000000 together");
    const struct {
        int v;
        const char *name;
    } ratios[] = {{cfg->hot_auction_ratio, "hot auction ratio"},
                  {cfg->hot_bidder_ratio, "hot bidder ratio"},
                  {cfg->hot_seller_ratio, "hot seller ratio"},
                  {cfg->num_in_flight_auctions, "auctions in flight"},
                  {cfg->num_active_people, "active people"}};
    for (size_t i = 0; i < sizeof ratios / sizeof ratios[0]; i++)
        if (ratios[i].v < 0)
            REFUSE("the %s is %d: 1 or more (0: the default)", ratios[i].name, ratios[i].v);
    const struct {
        int v;
        const char *name;
    } sizes[] = {{cfg->avg_person_size, "person"},
                 {cfg->avg_auction_size, "auction"},
                 {cfg->avg_bid_size, "bid"}};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
        if (sizes[i].v < 0 || (int64_t)sizes[i].v * 6 / 5 + 1 > WEIR_NEXMARK_EXTRA_MAX)
            REFUSE("the average %s size %d bytes: 0 (the default) to %d", sizes[i].name,
                   sizes[i].v, (WEIR_NEXMARK_EXTRA_MAX - 1) * 5 / 6);
    return 0;
#undef REFUSE
}

int64_t weir_nexmark_time_of(const weir_nexmark_config *cfg, int64_t n)
{
    double rate = cfg->rate > 0 ? cfg->rate : 10000.0;
    /* Flink's timestampForEvent: the inter-event delay in microseconds */
    double delay_us = 1000000.0 / rate;
    return cfg->base_time_ms + (int64_t)((double)n * delay_us) / 1000;
}

/* ---- ids ------------------------------------------------------------------------------- */

/* The person last made at or before event n (0-based). */
static int64_t last_person(const model *m, int64_t n)
{
    int64_t epoch = n / m->total, offset = n % m->total;
    if (offset >= m->person)
        offset = m->person - 1;
    return epoch * m->person + offset;
}

/* The auction last made at or before event n (0-based; -1 before any). */
static int64_t last_auction(const model *m, int64_t n)
{
    int64_t epoch = n / m->total, offset = n % m->total;
    if (offset < m->person) {
        epoch--;
        offset = m->auction - 1;
    } else if (offset >= m->person + m->auction) {
        offset = m->auction - 1;
    } else {
        offset -= m->person;
    }
    return epoch * m->auction + offset;
}

/* One of the active persons, or a few ahead of the last (0-based). */
static int64_t some_person(const model *m, int64_t n, rng *r)
{
    int64_t people = last_person(m, n) + 1;
    int64_t active = people < m->active_people ? people : m->active_people;
    return people - active + below(r, active + PERSON_ID_LEAD);
}

/* One of the auctions likely still in flight, or a few ahead (0-based). */
static int64_t some_auction(const model *m, int64_t n, rng *r)
{
    int64_t last = last_auction(m, n);
    int64_t first = last - m->in_flight > 0 ? last - m->in_flight : 0;
    return first + below(r, last - first + 1 + AUCTION_ID_LEAD);
}

/* ---- strings --------------------------------------------------------------------------- */

static const char *const first_names[] = {"Peter", "Paul",  "Luke",  "John",   "Saul",  "Vicky",
                                          "Kate",  "Julie", "Sarah", "Deiter", "Walter"};
static const char *const last_names[] = {"Shultz", "Abrams", "Spencer", "White", "Bartels",
                                         "Walton", "Smith",  "Jones",   "Noris"};
static const char *const cities[] = {"Phoenix", "Los Angeles", "San Francisco", "Boise",
                                     "Portland", "Bend",       "Redmond",       "Seattle",
                                     "Kent",     "Cheyenne"};
static const char *const states[] = {"AZ", "CA", "ID", "OR", "WA", "WY"};
static const char *const hot_channels[] = {"Google", "Facebook", "Baidu", "Apple"};
#define COUNT(a) ((int64_t)(sizeof(a) / sizeof((a)[0])))

/* Nexmark's nextString: 3 to max-1 letters, each a `special` one time in
 * 13, with the spaces at its ends trimmed. Into buf (max bytes or more). */
static size_t random_string(rng *r, int max, char special, char *buf)
{
    int64_t len = MIN_STRING_LENGTH + below(r, max - MIN_STRING_LENGTH);
    for (int64_t i = 0; i < len; i++)
        buf[i] = below(r, 13) == 0 ? special : (char)('a' + below(r, 26));
    size_t a = 0, b = (size_t)len;
    while (a < b && buf[a] == ' ')
        a++;
    while (b > a && buf[b - 1] == ' ')
        b--;
    memmove(buf, buf + a, b - a);
    buf[b - a] = '\0';
    return b - a;
}

static char extra_text[EXTRA_TEXT_SIZE];
static pthread_once_t extra_once = PTHREAD_ONCE_INIT;

static void make_extra_text(void)
{
    rng r = seeded(0x6e65786d61726bull /* "nexmark" */, 0);
    for (size_t i = 0; i < sizeof extra_text; i++)
        extra_text[i] = (char)('a' + below(&r, 26));
}

const char *weir_nexmark_extra(const weir_nexmark_event *e)
{
    pthread_once(&extra_once, make_extra_text);
    return extra_text + e->extra_offset;
}

/* Nexmark's nextExtra: the padding that brings an event of `size` bytes to
 * about `avg` (within 20%), as a piece of the shared text. */
static void extra(rng *r, int64_t size, int avg, weir_nexmark_event *e)
{
    e->extra_offset = 0;
    e->extra_len = 0;
    if (size > avg)
        return;
    int64_t want = avg - size;
    int64_t delta = llround((double)want * 0.2);
    int64_t len = want - delta + (delta ? below(r, 2 * delta) : 0);
    e->extra_offset = below(r, EXTRA_TEXT_SIZE - len);
    e->extra_len = (int32_t)len;
}

/* Appends the text of s at buf + n; the new length. */
static size_t put(char *buf, size_t n, const char *s)
{
    size_t l = strlen(s);
    memcpy(buf + n, s, l + 1);
    return n + l;
}

/* Appends v (>= 0) in decimal, at least `width` digits; the new length. */
static size_t put_digits(char *buf, size_t n, uint64_t v, int width)
{
    char t[24];
    int k = 0;
    do {
        t[k++] = (char)('0' + v % 10);
        v /= 10;
    } while (v || k < width);
    while (k)
        buf[n++] = t[--k];
    buf[n] = '\0';
    return n;
}

/* Nexmark's bid URL: https://www.nexmark.com/xxx/xxx/xxx/item.htm?query=1 */
static size_t base_url(rng *r, char *buf)
{
    size_t n = put(buf, 0, "https://www.nexmark.com/");
    for (int i = 0; i < 3; i++) {
        n += random_string(r, 5, '_', buf + n);
        buf[n++] = '/';
    }
    return put(buf, n, "item.htm?query=1");
}

/* Channel c's URL: a base URL, and nine times in ten its channel id (Java's
 * Math.abs(Integer.reverse(c)), which leaves reverse(1), Integer.MIN_VALUE,
 * negative). */
static void channel_url(uint64_t seed, int64_t c, char *buf)
{
    rng r = seeded(seed ^ 0x75726c73ull, (uint64_t)c + 1);
    size_t n = base_url(&r, buf);
    if (below(&r, 10) > 0) {
        uint32_t x = (uint32_t)c, rev = 0;
        for (int i = 0; i < 32; i++, x >>= 1)
            rev = (rev << 1) | (x & 1);
        int64_t id = (int32_t)rev;
        n = put(buf, n, "&channel_id=");
        if (id == INT32_MIN)
            n = put(buf, n, "-");
        put_digits(buf, n, (uint64_t)(id < 0 ? -id : id), 1);
    }
}

/* Nexmark's nextPrice: 10^(6u) dollars in cents, 100 to 100000000. */
static int64_t price(rng *r)
{
    return llround(pow(10.0, unit(r) * 6.0) * 100.0);
}

/* ---- events ---------------------------------------------------------------------------- */

static void person(const weir_nexmark_config *cfg, const model *m, int64_t n, rng *r,
                   weir_nexmark_event *e)
{
    (void)cfg;
    e->person.id = last_person(m, n) + FIRST_PERSON_ID;
    /* one draw after the other: the order of a call's arguments is the
     * compiler's, and each compiler must give the same events */
    const char *last = last_names[below(r, COUNT(last_names))];
    const char *first = first_names[below(r, COUNT(first_names))];
    int len = snprintf(e->person.name, sizeof e->person.name, "%s %s", first, last);
    char a[8], b[8];
    random_string(r, 7, ' ', a);
    random_string(r, 5, ' ', b);
    int elen = snprintf(e->person.email_address, sizeof e->person.email_address, "%s@%s.com", a,
                        b);
    size_t k = 0;
    for (int i = 0; i < 4; i++) {
        if (i)
            e->person.credit_card[k++] = ' ';
        k = put_digits(e->person.credit_card, k, (uint64_t)below(r, 10000), 4);
    }
    const char *city = cities[below(r, COUNT(cities))];
    const char *state = states[below(r, COUNT(states))];
    snprintf(e->person.city, sizeof e->person.city, "%s", city);
    snprintf(e->person.state, sizeof e->person.state, "%s", state);
    int64_t size = 8 + len + elen + 19 + (int64_t)strlen(city) + 2;
    extra(r, size, m->avg_person, e);
}

static void auction(const weir_nexmark_config *cfg, const model *m, int64_t n, rng *r,
                    weir_nexmark_event *e)
{
    e->auction.id = last_auction(m, n) + FIRST_AUCTION_ID;
    int64_t seller;
    if (below(r, m->hot_sellers) > 0)
        seller = last_person(m, n) / HOT_SELLER_RATIO * HOT_SELLER_RATIO;
    else
        seller = some_person(m, n, r);
    e->auction.seller = seller + FIRST_PERSON_ID;
    e->auction.category = FIRST_CATEGORY_ID + below(r, NUM_CATEGORIES);
    e->auction.initial_bid = price(r);
    /* expires within about twice the time num_in_flight auctions take */
    int64_t ahead = (int64_t)m->in_flight * m->total / m->auction;
    int64_t horizon = weir_nexmark_time_of(cfg, n + ahead) - e->date_time;
    e->auction.expires = e->date_time + 1 + below(r, horizon * 2 > 1 ? horizon * 2 : 1);
    size_t nlen = random_string(r, 20, ' ', e->auction.item_name);
    size_t dlen = random_string(r, 100, ' ', e->auction.description);
    e->auction.reserve = e->auction.initial_bid + price(r);
    extra(r, 8 + (int64_t)nlen + (int64_t)dlen + 40, m->avg_auction, e);
}

/* ---- the bids' URLs, kept ------------------------------------------------------------- */

#define URL_SIZE sizeof(((weir_nexmark_bid *)0)->url)

struct weir__nexmark_urls {
    uint64_t seed;
    char hot[COUNT(hot_channels)][URL_SIZE];
    char (*channel)[URL_SIZE]; /* CHANNELS of them, zero until made (a URL is never empty) */
};

/* Hot channel i's URL (the four hot URLs). */
static void hot_url(uint64_t seed, int64_t i, char *buf)
{
    rng h = seeded(seed ^ 0x686f74ull, (uint64_t)i + 1);
    base_url(&h, buf);
}

weir__nexmark_urls *weir__nexmark_urls_create(uint64_t seed)
{
    weir__nexmark_urls *u = calloc(1, sizeof *u);
    if (!u)
        return NULL;
    u->channel = calloc(CHANNELS, URL_SIZE); /* zero pages until drawn */
    if (!u->channel) {
        free(u);
        return NULL;
    }
    u->seed = seed;
    for (int64_t i = 0; i < COUNT(hot_channels); i++)
        hot_url(seed, i, u->hot[i]);
    return u;
}

void weir__nexmark_urls_free(weir__nexmark_urls *u)
{
    if (!u)
        return;
    free(u->channel);
    free(u);
}

static void bid(const weir_nexmark_config *cfg, const model *m, int64_t n, rng *r,
                weir_nexmark_event *e, weir__nexmark_urls *urls)
{
    int64_t a;
    if (below(r, m->hot_auctions) > 0)
        a = last_auction(m, n) / HOT_AUCTION_RATIO * HOT_AUCTION_RATIO;
    else
        a = some_auction(m, n, r);
    e->bid.auction = a + FIRST_AUCTION_ID;
    int64_t bidder;
    if (below(r, m->hot_bidders) > 0) /* the second of each 100: not a hot seller */
        bidder = last_person(m, n) / HOT_BIDDER_RATIO * HOT_BIDDER_RATIO + 1;
    else
        bidder = some_person(m, n, r);
    e->bid.bidder = bidder + FIRST_PERSON_ID;
    e->bid.price = price(r);
    if (below(r, 2) > 0) {
        int64_t i = below(r, COUNT(hot_channels));
        put(e->bid.channel, 0, hot_channels[i]);
        /* (the buffers are zero past a URL's end, as the event is) */
        if (urls)
            memcpy(e->bid.url, urls->hot[i], URL_SIZE);
        else
            hot_url(cfg->seed, i, e->bid.url);
    } else {
        int64_t c = below(r, CHANNELS);
        put_digits(e->bid.channel, put(e->bid.channel, 0, "channel-"), (uint64_t)c, 1);
        if (urls) {
            if (!urls->channel[c][0])
                channel_url(cfg->seed, c, urls->channel[c]);
            memcpy(e->bid.url, urls->channel[c], URL_SIZE);
        } else {
            channel_url(cfg->seed, c, e->bid.url);
        }
    }
    extra(r, 32, m->avg_bid, e);
}

void weir_nexmark_event_at(const weir_nexmark_config *cfg, int64_t n, weir_nexmark_event *e)
{
    weir__nexmark_event_with(cfg, n, e, NULL);
}

void weir__nexmark_event_with(const weir_nexmark_config *cfg, int64_t n, weir_nexmark_event *e,
                              weir__nexmark_urls *urls)
{
    if (urls && urls->seed != cfg->seed)
        urls = NULL;
    model m = model_of(cfg);
    memset(e, 0, sizeof *e);
    e->number = n;
    e->date_time = weir_nexmark_time_of(cfg, n);
    rng r = seeded(cfg->seed, (uint64_t)n);
    int64_t rem = n % m.total;
    if (rem < m.person) {
        e->kind = WEIR_NEXMARK_PERSON;
        person(cfg, &m, n, &r, e);
    } else if (rem < m.person + m.auction) {
        e->kind = WEIR_NEXMARK_AUCTION;
        auction(cfg, &m, n, &r, e);
    } else {
        e->kind = WEIR_NEXMARK_BID;
        bid(cfg, &m, n, &r, e, urls);
    }
}
