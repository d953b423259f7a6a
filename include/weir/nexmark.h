/* weir/nexmark.h — the Nexmark event generator: the online auction of the
 * Nexmark streaming benchmark (persons, auctions, bids), as Flink's Nexmark
 * project and Beam's Nexmark define it, as a parallel, checkpointed,
 * reproducible source (libweir-nexmark).
 *
 * Events are numbered 0, 1, 2, ... over the whole source. Event n is a pure
 * function of the config and n (its random numbers come from a generator
 * seeded by the config's seed and n), so the events are the same whatever
 * the parallelism and however often the job restarts:
 *   - its kind: n % (person + auction + bid proportions) below the person
 *     proportion is a person, then auctions, then bids (1 : 3 : 46 by
 *     default, Flink's);
 *   - its event time: base_time_ms + floor(n * 1000000 / rate) / 1000 ms
 *     (rate: events a second over the whole source, Flink's
 *     'first-event.rate'), increasing with n;
 *   - a person's id is the count of persons before it + 1000, an auction's
 *     the count of auctions before it + 1000; an auction's seller and a
 *     bid's bidder are one of the hot persons (all but 1 in
 *     hot_seller_ratio / hot_bidder_ratio of them) or a recent active
 *     person; a bid's auction a hot auction (all but 1 in hot_auction_ratio)
 *     or one of the auctions still in flight; prices log-uniform from 1.00
 *     to 1,000,000.00 (in cents); an auction expires within about twice the
 *     time it takes num_in_flight_auctions auctions to come;
 *   - strings as Nexmark's: person names, cities and states from its lists,
 *     random lower-case item names, descriptions and e-mail addresses, bid
 *     channels (four hot ones, "Google", "Facebook", "Baidu", "Apple", half
 *     the time; else "channel-N" of 10000) with their URLs, and an `extra`
 *     padding each event to its kind's average size.
 * Subtask i of p emits the events n with n % p == i, in order, so every
 * subtask's event time increases and the subtasks' times stay together.
 * The record timestamp of an event is its event time; the source emits no
 * watermarks of its own (assign them downstream: Flink's Nexmark DDL takes
 * `dateTime - INTERVAL '4' SECOND`).
 *
 * Where weir differs from Flink's Nexmark generator (com.github.nexmark.
 * flink.generator): Flink draws from an unseeded random source (its runs
 * differ) and gives each generator a contiguous slice of event ids with a
 * timeline of its own; weir draws from the seed and deals event numbers out
 * round-robin, so its events do not depend on the parallelism. Flink's bid
 * adds the first person id to the bidder twice; weir once (as Beam).
 */
#ifndef WEIR_NEXMARK_H
#define WEIR_NEXMARK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "weir/export.h"
#include "weir/stream.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The kinds, as Flink's Nexmark DDL numbers event_type. */
typedef enum weir_nexmark_kind {
    WEIR_NEXMARK_PERSON = 0,
    WEIR_NEXMARK_AUCTION = 1,
    WEIR_NEXMARK_BID = 2
} weir_nexmark_kind;

/* The three kinds' fields (strings NUL-terminated). */
typedef struct weir_nexmark_person {
    int64_t id;
    char name[24];
    char email_address[24];
    char credit_card[20];
    char city[16];
    char state[4];
} weir_nexmark_person;

typedef struct weir_nexmark_auction {
    int64_t id;
    int64_t initial_bid;
    int64_t reserve;
    int64_t expires; /* ms since the epoch */
    int64_t seller;
    int64_t category;
    char item_name[24];
    char description[104];
} weir_nexmark_auction;

typedef struct weir_nexmark_bid {
    int64_t auction;
    int64_t bidder;
    int64_t price;
    char channel[16];
    char url[96];
} weir_nexmark_bid;

/* One event (a fixed-size stream element). Its `extra` is a piece of one
 * shared text, weir_nexmark_extra(): extra_len bytes at extra_offset (the
 * events stay small; the text is the same in every process). */
typedef struct weir_nexmark_event {
    int32_t kind;         /* weir_nexmark_kind */
    int32_t extra_len;
    int64_t number;       /* the event's number n */
    int64_t date_time;    /* event time, ms since the epoch (UTC) */
    int64_t extra_offset;
    union {               /* by kind */
        weir_nexmark_person person;
        weir_nexmark_auction auction;
        weir_nexmark_bid bid;
    };
} weir_nexmark_event;

/* The generator's settings (Flink's Nexmark table options in brackets).
 * Zero fields take the default. */
typedef struct weir_nexmark_config {
    const char *name;          /* the source operator's name; NULL: "nexmark" */
    int parallelism;           /* 0: the job's default */
    double rate;               /* events a second, all subtasks ('first-event.rate'; 10000) */
    int64_t events;            /* events in all, then the end ('events.num'; 0: unbounded) */
    int64_t base_time_ms;      /* event time of event 0 */
    uint64_t seed;
    bool paced;                /* emit event n at base + its time on the job clock
                                  (Flink's 'rate.limited'); else as fast as taken */
    int person_proportion;     /* 'person.proportion' (1) */
    int auction_proportion;    /* 'auction.proportion' (3) */
    int bid_proportion;        /* 'bid.proportion' (46) */
    int avg_person_size;       /* bytes, 'person.avg-size' (200) */
    int avg_auction_size;      /* 'auction.avg-size' (500) */
    int avg_bid_size;          /* 'bid.avg-size' (100) */
    int hot_auction_ratio;     /* 'bid.hot-ratio.auctions' (2) */
    int hot_bidder_ratio;      /* 'bid.hot-ratio.bidders' (4) */
    int hot_seller_ratio;      /* 'auction.hot-ratio.sellers' (4) */
    int num_in_flight_auctions;/* (100) */
    int num_active_people;     /* (1000) */
} weir_nexmark_config;

/* The longest `extra` an event can have: an average size so large that its
 * extra would pass it is refused. */
#define WEIR_NEXMARK_EXTRA_MAX 16384

/* Checks a config (with its defaults): 0, or WEIR_EINVAL with why (a
 * negative or zero rate, a proportion below 0 or all zero, a ratio below 1,
 * an average size below 0 or whose extra would pass
 * WEIR_NEXMARK_EXTRA_MAX, an event count below 0). MT safe. */
WEIR_EXPORT int weir_nexmark_check(const weir_nexmark_config *cfg, char *why, size_t whysize);

/* Event n of the config (checked: weir_nexmark_check) into *out. MT safe. */
WEIR_EXPORT void weir_nexmark_event_at(const weir_nexmark_config *cfg, int64_t n,
                                       weir_nexmark_event *out);

/* The event time of event n. */
WEIR_EXPORT int64_t weir_nexmark_time_of(const weir_nexmark_config *cfg, int64_t n);

/* The shared text events' extras are pieces of (1 MiB of lower-case letters,
 * the same in every process): a pointer to extra_offset, extra_len bytes. */
WEIR_EXPORT const char *weir_nexmark_extra(const weir_nexmark_event *e);

/* The event as one JSON object (no line end), the fields of the 'nexmark'
 * table below nested as in its ROWs, with the event's number first:
 *   {"number":5,"event_type":2,"person":null,"auction":null,
 *    "bid":{"auction":1000,"bidder":1001,"price":1278,"channel":"Google",
 *           "url":"https://...","dateTime":"2024-01-01 00:00:00.050",
 *           "extra":"..."}}
 * (times as TIMESTAMP(3) text, UTC; every field of the filled ROW, the other
 * two null) — what `weir nexmark` writes, one line per event. Into buf as
 * snprintf does: the length the whole text needs (buf NUL-terminated when
 * size > 0). MT safe. */
WEIR_EXPORT int weir_nexmark_write_json(const weir_nexmark_event *e, char *buf, size_t size);

/* The 'nexmark' table's options (as weir_nexmark_register_connectors reads
 * them), for messages. */
#define WEIR_NEXMARK_OPTIONS                                                                \
    "'events.num', 'first-event.rate', 'next-event.rate', 'rate.limited', "                \
    "'person.proportion', 'auction.proportion', 'bid.proportion', 'person.avg-size', "     \
    "'auction.avg-size', 'bid.avg-size', 'bid.hot-ratio.auctions', "                       \
    "'bid.hot-ratio.bidders', 'auction.hot-ratio.sellers', 'seed', 'base-time'"

/* Sets one of the config's settings by its option name in the 'nexmark'
 * table ('events.num' = '1000', 'seed' = '7', 'base-time' = '2024-01-01
 * 00:00:00', ...; 'next-event.rate' only equal to the first, given before
 * it), so that a config written as a table's options gives the same events.
 * 0, or WEIR_EINVAL with why ("option 'seed'='x': not an integer 0 or
 * more", an unknown option with the list). The whole config is checked by
 * weir_nexmark_check. */
WEIR_EXPORT int weir_nexmark_config_set(weir_nexmark_config *cfg, const char *key,
                                        const char *value, char *why, size_t whysize);

/* A source of weir_nexmark_event (a copy of the config is kept). Restored
 * from a checkpoint at the parallelism it was taken at (each subtask's next
 * event number; the job refuses another, as for every source). NULL with the job's
 * error for a config weir_nexmark_check refuses. */
WEIR_EXPORT weir_stream *weir_source_nexmark(weir_job *job, const weir_nexmark_config *cfg);

/* Registers the SQL connector 'nexmark' (weir/connector.h): the events as a
 * table with the nested schema of Flink's Nexmark DDL — event_type INT,
 * person ROW<id, name, emailAddress, creditCard, city, state, dateTime,
 * extra>, auction ROW<id, itemName, description, initialBid, reserve,
 * dateTime, expires, seller, category, extra>, bid ROW<auction, bidder,
 * price, channel, url, dateTime, extra> (BIGINT ids and prices, strings,
 * TIMESTAMP(3) times), each column and field optional, by name — an
 * event's own ROW filled, the others NULL; options Flink's ('events.num',
 * 'first-event.rate', 'rate.limited', the proportions, average sizes and
 * hot ratios; 'next-event.rate' only equal to the first) and weir's 'seed'
 * and 'base-time'. 0, or the registry's error. */
WEIR_EXPORT int weir_nexmark_register_connectors(void);

#ifdef __cplusplus
}
#endif
#endif
