/* nexmark_json.c — an event as one JSON object (weir_nexmark_write_json),
 * with the nested fields of the 'nexmark' table (Flink's Nexmark DDL), and
 * a config set from the table's option names (weir_nexmark_config_set):
 * what `weir nexmark` writes the events a query sees with. */
#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "weir/error.h"
#include "weir/nexmark.h"
#include "weir/row.h"

typedef struct jout {
    char *buf;
    size_t size, len; /* len: what the whole text needs */
} jout;

static void put_raw(jout *o, const char *s, size_t n)
{
    if (o->len < o->size) {
        size_t room = o->size - o->len;
        memcpy(o->buf + o->len, s, n < room ? n : room);
    }
    o->len += n;
}

static void put_str(jout *o, const char *s)
{
    put_raw(o, s, strlen(s));
}

/* A JSON string of n bytes (the generator's text is ASCII; a control
 * character, a quote or a backslash escaped all the same). */
static void put_json_string(jout *o, const char *s, size_t n)
{
    put_raw(o, "\"", 1);
    size_t from = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c >= 0x20 && c != '"' && c != '\\')
            continue;
        put_raw(o, s + from, i - from);
        char esc[8];
        if (c == '"' || c == '\\')
            snprintf(esc, sizeof esc, "\\%c", c);
        else
            snprintf(esc, sizeof esc, "\\u%04x", c);
        put_str(o, esc);
        from = i + 1;
    }
    put_raw(o, s + from, n - from);
    put_raw(o, "\"", 1);
}

static void put_field_str(jout *o, const char *name, const char *s, size_t n)
{
    put_raw(o, "\"", 1);
    put_str(o, name);
    put_raw(o, "\":", 2);
    put_json_string(o, s, n);
}

static void put_field_int(jout *o, const char *name, int64_t v)
{
    char t[48];
    snprintf(t, sizeof t, "\"%s\":%" PRId64, name, v);
    put_str(o, t);
}

static void put_field_time(jout *o, const char *name, int64_t ms)
{
    char t[64];
    int n = weir_timestamp_format(ms, t, sizeof t);
    put_field_str(o, name, t, n > 0 ? (size_t)n : 0);
}

int weir_nexmark_write_json(const weir_nexmark_event *e, char *buf, size_t size)
{
    jout o = {buf, size, 0};
    put_raw(&o, "{", 1);
    put_field_int(&o, "number", e->number);
    put_raw(&o, ",", 1);
    put_field_int(&o, "event_type", e->kind);
    const char *extra = weir_nexmark_extra(e);
    size_t xl = (size_t)e->extra_len;
    put_str(&o, ",\"person\":");
    if (e->kind == WEIR_NEXMARK_PERSON) {
        const weir_nexmark_person *p = &e->person;
        put_raw(&o, "{", 1);
        put_field_int(&o, "id", p->id);
        put_raw(&o, ",", 1), put_field_str(&o, "name", p->name, strlen(p->name));
        put_raw(&o, ",", 1),
            put_field_str(&o, "emailAddress", p->email_address, strlen(p->email_address));
        put_raw(&o, ",", 1),
            put_field_str(&o, "creditCard", p->credit_card, strlen(p->credit_card));
        put_raw(&o, ",", 1), put_field_str(&o, "city", p->city, strlen(p->city));
        put_raw(&o, ",", 1), put_field_str(&o, "state", p->state, strlen(p->state));
        put_raw(&o, ",", 1), put_field_time(&o, "dateTime", e->date_time);
        put_raw(&o, ",", 1), put_field_str(&o, "extra", extra, xl);
        put_raw(&o, "}", 1);
    } else {
        put_str(&o, "null");
    }
    put_str(&o, ",\"auction\":");
    if (e->kind == WEIR_NEXMARK_AUCTION) {
        const weir_nexmark_auction *a = &e->auction;
        put_raw(&o, "{", 1);
        put_field_int(&o, "id", a->id);
        put_raw(&o, ",", 1), put_field_str(&o, "itemName", a->item_name, strlen(a->item_name));
        put_raw(&o, ",", 1),
            put_field_str(&o, "description", a->description, strlen(a->description));
        put_raw(&o, ",", 1), put_field_int(&o, "initialBid", a->initial_bid);
        put_raw(&o, ",", 1), put_field_int(&o, "reserve", a->reserve);
        put_raw(&o, ",", 1), put_field_time(&o, "dateTime", e->date_time);
        put_raw(&o, ",", 1), put_field_time(&o, "expires", a->expires);
        put_raw(&o, ",", 1), put_field_int(&o, "seller", a->seller);
        put_raw(&o, ",", 1), put_field_int(&o, "category", a->category);
        put_raw(&o, ",", 1), put_field_str(&o, "extra", extra, xl);
        put_raw(&o, "}", 1);
    } else {
        put_str(&o, "null");
    }
    put_str(&o, ",\"bid\":");
    if (e->kind == WEIR_NEXMARK_BID) {
        const weir_nexmark_bid *b = &e->bid;
        put_raw(&o, "{", 1);
        put_field_int(&o, "auction", b->auction);
        put_raw(&o, ",", 1), put_field_int(&o, "bidder", b->bidder);
        put_raw(&o, ",", 1), put_field_int(&o, "price", b->price);
        put_raw(&o, ",", 1), put_field_str(&o, "channel", b->channel, strlen(b->channel));
        put_raw(&o, ",", 1), put_field_str(&o, "url", b->url, strlen(b->url));
        put_raw(&o, ",", 1), put_field_time(&o, "dateTime", e->date_time);
        put_raw(&o, ",", 1), put_field_str(&o, "extra", extra, xl);
        put_raw(&o, "}", 1);
    } else {
        put_str(&o, "null");
    }
    put_raw(&o, "}", 1);
    if (size)
        buf[o.len < size ? o.len : size - 1] = '\0';
    return o.len > INT32_MAX ? -1 : (int)o.len;
}

/* ---- a config from option names ----------------------------------------------------------- */

static int bad(char *why, size_t whysize, const char *key, const char *value, const char *what)
{
    if (why && whysize)
        snprintf(why, whysize, "option '%s'='%s': %s", key, value, what);
    return WEIR_EINVAL;
}

static int parse_int(const char *v, int64_t lo, int64_t hi, int64_t *out)
{
    char *end;
    errno = 0;
    long long x = strtoll(v, &end, 10);
    if (errno || end == v || *end || x < lo || x > hi)
        return -1;
    *out = x;
    return 0;
}

int weir_nexmark_config_set(weir_nexmark_config *cfg, const char *key, const char *value,
                            char *why, size_t whysize)
{
    static const struct {
        const char *key;
        size_t off;
        int64_t lo;
    } ints[] = {
        {"person.proportion", offsetof(weir_nexmark_config, person_proportion), 0},
        {"auction.proportion", offsetof(weir_nexmark_config, auction_proportion), 0},
        {"bid.proportion", offsetof(weir_nexmark_config, bid_proportion), 0},
        {"person.avg-size", offsetof(weir_nexmark_config, avg_person_size), 0},
        {"auction.avg-size", offsetof(weir_nexmark_config, avg_auction_size), 0},
        {"bid.avg-size", offsetof(weir_nexmark_config, avg_bid_size), 0},
        {"bid.hot-ratio.auctions", offsetof(weir_nexmark_config, hot_auction_ratio), 1},
        {"bid.hot-ratio.bidders", offsetof(weir_nexmark_config, hot_bidder_ratio), 1},
        {"auction.hot-ratio.sellers", offsetof(weir_nexmark_config, hot_seller_ratio), 1},
    };
    int64_t v;
    for (size_t i = 0; i < sizeof ints / sizeof ints[0]; i++) {
        if (strcmp(key, ints[i].key) != 0)
            continue;
        if (parse_int(value, ints[i].lo, 1000000000, &v))
            return bad(why, whysize, key, value,
                       ints[i].lo ? "not an integer in 1..1000000000"
                                  : "not an integer in 0..1000000000");
        *(int *)(void *)((char *)cfg + ints[i].off) = (int)v;
        return 0;
    }
    if (strcmp(key, "events.num") == 0) {
        if (parse_int(value, 0, INT64_MAX, &v))
            return bad(why, whysize, key, value, "not an integer 0 or more");
        cfg->events = v;
    } else if (strcmp(key, "seed") == 0) {
        if (parse_int(value, 0, INT64_MAX, &v))
            return bad(why, whysize, key, value, "not an integer 0 or more");
        cfg->seed = (uint64_t)v;
    } else if (strcmp(key, "first-event.rate") == 0 || strcmp(key, "next-event.rate") == 0) {
        char *end;
        errno = 0;
        double r = strtod(value, &end);
        if (errno || end == value || *end || !(r >= 1e-6 && r <= 1e12))
            return bad(why, whysize, key, value, "not a number in 1e-06..1e12");
        if (key[0] == 'f')
            cfg->rate = r;
        else if (r != (cfg->rate > 0 ? cfg->rate : 10000))
            return bad(why, whysize, key, value,
                       "not supported: a rate that changes (weir's generator has one rate, "
                       "'first-event.rate', given before it)");
    } else if (strcmp(key, "rate.limited") == 0) {
        if (strcmp(value, "true") != 0 && strcmp(value, "false") != 0)
            return bad(why, whysize, key, value, "expected true or false");
        cfg->paced = value[0] == 't';
    } else if (strcmp(key, "base-time") == 0) {
        if (weir_timestamp_parse(value, strlen(value), &v))
            return bad(why, whysize, key, value,
                       "expected a timestamp 'YYYY-MM-DD HH:MM:SS[.fff]' (UTC)");
        cfg->base_time_ms = v;
    } else {
        if (why && whysize)
            snprintf(why, whysize, "unknown option '%s' (the options: %s)", key,
                     WEIR_NEXMARK_OPTIONS);
        return WEIR_EINVAL;
    }
    return 0;
}
