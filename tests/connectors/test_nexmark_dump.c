/* test_nexmark_dump.c — the Nexmark events outside weir's SQL: an event as
 * JSON (weir_nexmark_write_json), a config from the 'nexmark' table's
 * option names (weir_nexmark_config_set), and `weir nexmark ... -o FILE`,
 * whose lines are exactly the rows a query over a table of the same options
 * reads (bench/nexmark/nexmark.sql's table, read through weir's SQL). */
#include <criterion/criterion.h>
#include <jansson.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "weir.h"
#include "weir/nexmark.h"
#include "weir/sql.h"

#define WEIR WEIR_BINARY_DIR "/tools/weir"

static json_t *parse(const char *text)
{
    json_error_t err;
    json_t *j = json_loads(text, 0, &err);
    cr_assert_not_null(j, "%s: %.200s", err.text, text);
    return j;
}

static const char *str(json_t *o, const char *key)
{
    const char *s = json_string_value(json_object_get(o, key));
    cr_assert_not_null(s, "no string '%s'", key);
    return s;
}

static int64_t num(json_t *o, const char *key)
{
    json_t *v = json_object_get(o, key);
    cr_assert(json_is_integer(v), "no integer '%s'", key);
    return json_integer_value(v);
}

static void assert_time(json_t *o, const char *key, int64_t ms)
{
    char t[64];
    weir_timestamp_format(ms, t, sizeof t);
    cr_assert_str_eq(str(o, key), t);
}

Test(nexmark_dump, an_event_as_json_has_every_field)
{
    weir_nexmark_config c = {.seed = 3, .base_time_ms = 1704067200000LL};
    int kinds[3] = {0};
    char buf[65536];
    for (int64_t n = 0; n < 300; n++) {
        weir_nexmark_event e;
        weir_nexmark_event_at(&c, n, &e);
        int len = weir_nexmark_write_json(&e, buf, sizeof buf);
        cr_assert_eq((size_t)len, strlen(buf));
        json_t *j = parse(buf);
        cr_assert_eq(json_object_size(j), 5u);
        cr_assert_eq(num(j, "number"), n);
        cr_assert_eq(num(j, "event_type"), e.kind);
        static const char *const rows[] = {"person", "auction", "bid"};
        for (int k = 0; k < 3; k++)
            cr_assert_eq(json_is_null(json_object_get(j, rows[k])), k != e.kind);
        json_t *r = json_object_get(j, rows[e.kind]);
        kinds[e.kind]++;
        const char *extra = str(r, "extra");
        cr_assert_eq(strlen(extra), (size_t)e.extra_len);
        cr_assert_eq(memcmp(extra, weir_nexmark_extra(&e), (size_t)e.extra_len), 0);
        assert_time(r, "dateTime", e.date_time);
        switch (e.kind) {
        case WEIR_NEXMARK_PERSON:
            cr_assert_eq(json_object_size(r), 8u);
            cr_assert_eq(num(r, "id"), e.person.id);
            cr_assert_str_eq(str(r, "name"), e.person.name);
            cr_assert_str_eq(str(r, "emailAddress"), e.person.email_address);
            cr_assert_str_eq(str(r, "creditCard"), e.person.credit_card);
            cr_assert_str_eq(str(r, "city"), e.person.city);
            cr_assert_str_eq(str(r, "state"), e.person.state);
            break;
        case WEIR_NEXMARK_AUCTION:
            cr_assert_eq(json_object_size(r), 10u);
            cr_assert_eq(num(r, "id"), e.auction.id);
            cr_assert_str_eq(str(r, "itemName"), e.auction.item_name);
            cr_assert_str_eq(str(r, "description"), e.auction.description);
            cr_assert_eq(num(r, "initialBid"), e.auction.initial_bid);
            cr_assert_eq(num(r, "reserve"), e.auction.reserve);
            assert_time(r, "expires", e.auction.expires);
            cr_assert_eq(num(r, "seller"), e.auction.seller);
            cr_assert_eq(num(r, "category"), e.auction.category);
            break;
        default:
            cr_assert_eq(json_object_size(r), 7u);
            cr_assert_eq(num(r, "auction"), e.bid.auction);
            cr_assert_eq(num(r, "bidder"), e.bid.bidder);
            cr_assert_eq(num(r, "price"), e.bid.price);
            cr_assert_str_eq(str(r, "channel"), e.bid.channel);
            cr_assert_str_eq(str(r, "url"), e.bid.url);
        }
        json_decref(j);
        /* too small a buffer: cut and ended, the length it needs */
        char small[40];
        cr_assert_eq(weir_nexmark_write_json(&e, small, sizeof small), len);
        cr_assert_eq(strlen(small), sizeof small - 1);
        cr_assert_eq(strncmp(small, buf, sizeof small - 1), 0);
    }
    cr_assert(kinds[0] && kinds[1] && kinds[2]);
}

static void assert_same_config(const weir_nexmark_config *c, const weir_nexmark_config *w)
{
    cr_assert_eq(c->events, w->events);
    cr_assert_eq(c->rate, w->rate);
    cr_assert_eq(c->seed, w->seed);
    cr_assert_eq(c->base_time_ms, w->base_time_ms);
    cr_assert_eq(c->paced, w->paced);
    cr_assert_eq(c->person_proportion, w->person_proportion);
    cr_assert_eq(c->auction_proportion, w->auction_proportion);
    cr_assert_eq(c->bid_proportion, w->bid_proportion);
    cr_assert_eq(c->avg_person_size, w->avg_person_size);
    cr_assert_eq(c->avg_auction_size, w->avg_auction_size);
    cr_assert_eq(c->avg_bid_size, w->avg_bid_size);
    cr_assert_eq(c->hot_auction_ratio, w->hot_auction_ratio);
    cr_assert_eq(c->hot_bidder_ratio, w->hot_bidder_ratio);
    cr_assert_eq(c->hot_seller_ratio, w->hot_seller_ratio);
}

Test(nexmark_dump, a_config_from_the_tables_options)
{
    weir_nexmark_config c = {0};
    char why[512];
    static const char *const kv[][2] = {
        {"events.num", "1234"},          {"first-event.rate", "250.5"},
        {"next-event.rate", "250.5"},    {"seed", "99"},
        {"base-time", "2024-01-01 00:00:10"},
        {"person.proportion", "2"},      {"auction.proportion", "4"},
        {"bid.proportion", "30"},        {"person.avg-size", "150"},
        {"auction.avg-size", "400"},     {"bid.avg-size", "90"},
        {"bid.hot-ratio.auctions", "3"}, {"bid.hot-ratio.bidders", "5"},
        {"auction.hot-ratio.sellers", "6"}, {"rate.limited", "true"}};
    for (size_t i = 0; i < sizeof kv / sizeof kv[0]; i++)
        cr_assert_eq(weir_nexmark_config_set(&c, kv[i][0], kv[i][1], why, sizeof why), 0,
                     "%s: %s", kv[i][0], why);
    weir_nexmark_config want = {.events = 1234, .rate = 250.5, .seed = 99,
                                .base_time_ms = 1704067210000LL, .person_proportion = 2,
                                .auction_proportion = 4, .bid_proportion = 30,
                                .avg_person_size = 150, .avg_auction_size = 400,
                                .avg_bid_size = 90, .hot_auction_ratio = 3,
                                .hot_bidder_ratio = 5, .hot_seller_ratio = 6, .paced = true};
    assert_same_config(&c, &want);
    cr_assert_eq(weir_nexmark_config_set(&c, "seed", "-1", why, sizeof why), WEIR_EINVAL);
    cr_assert_str_eq(why, "option 'seed'='-1': not an integer 0 or more");
    cr_assert_eq(weir_nexmark_config_set(&c, "next-event.rate", "7", why, sizeof why),
                 WEIR_EINVAL);
    cr_assert(strstr(why, "a rate that changes"), "%s", why);
    cr_assert_eq(weir_nexmark_config_set(&c, "bid.hot-ratio.bidders", "0", why, sizeof why),
                 WEIR_EINVAL);
    cr_assert_eq(weir_nexmark_config_set(&c, "base-time", "soon", why, sizeof why),
                 WEIR_EINVAL);
    cr_assert_eq(weir_nexmark_config_set(&c, "event.num", "5", why, sizeof why), WEIR_EINVAL);
    cr_assert(strstr(why, "unknown option 'event.num' (the options: 'events.num'"), "%s", why);
    assert_same_config(&c, &want); /* a refused option changes nothing */
}

/* ---- the dump against what a query reads --------------------------------------------------- */

static struct {
    pthread_mutex_t mu;
    char **lines;
    size_t n, cap;
} seen = {.mu = PTHREAD_MUTEX_INITIALIZER};

static void keep(char *s)
{
    pthread_mutex_lock(&seen.mu);
    if (seen.n == seen.cap) {
        seen.cap = seen.cap ? 2 * seen.cap : 1024;
        seen.lines = realloc(seen.lines, seen.cap * sizeof *seen.lines);
    }
    seen.lines[seen.n++] = s;
    pthread_mutex_unlock(&seen.mu);
}

/* A row of the query (event_type, person, auction, bid) as its JSON,
 * normalized (keys sorted, compact). */
static int on_row(const weir_schema *schema, const void *row, void *arg)
{
    (void)arg;
    static _Thread_local char buf[65536];
    int n = weir_row_write_json(schema, row, buf, sizeof buf);
    if (n < 0 || (size_t)n >= sizeof buf)
        return WEIR_ERANGE;
    json_t *j = json_loads(buf, 0, NULL);
    if (!j)
        return WEIR_EINVAL;
    keep(json_dumps(j, JSON_SORT_KEYS | JSON_COMPACT));
    json_decref(j);
    return 0;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* s with every `from` replaced by `to` (s freed). */
static char *replace(char *s, const char *from, const char *to)
{
    size_t fl = strlen(from), tl = strlen(to), count = 0;
    for (const char *p = strstr(s, from); p; p = strstr(p + fl, from))
        count++;
    cr_assert_gt(count, 0u, "%s", from);
    char *out = malloc(strlen(s) + count * tl + 1);
    char *o = out;
    const char *p = s;
    for (const char *q = strstr(p, from); q; p = q + fl, q = strstr(p, from)) {
        memcpy(o, p, (size_t)(q - p));
        o += q - p;
        memcpy(o, to, tl);
        o += tl;
    }
    strcpy(o, p);
    free(s);
    return out;
}

Test(nexmark_dump, the_weir_command_writes_the_events_a_query_reads, .timeout = 60)
{
    char dir[] = "/tmp/weir-nexmark-dump-XXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    char file[128], cmd[512];
    snprintf(file, sizeof file, "%s/events.jsonl", dir);
    snprintf(cmd, sizeof cmd,
             "%s nexmark events.num=2000 first-event.rate=500 next-event.rate=500 seed=21 "
             "'base-time=2024-01-01 00:00:00' -o %s",
             WEIR, file);
    int st = system(cmd);
    cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "%s", cmd);

    /* the suite's table with the same options, read at parallelism 2 */
    char path[512];
    snprintf(path, sizeof path, "%s/bench/nexmark/nexmark.sql", WEIR_SOURCE_DIR);
    FILE *f = fopen(path, "r");
    cr_assert_not_null(f);
    char *sql = calloc(1, 1 << 16);
    cr_assert_gt(fread(sql, 1, (1 << 16) - 1, f), 0u);
    fclose(f);
    sql = replace(sql, "${EVENTS}", "2000");
    sql = replace(sql, "${RATE}", "500");
    sql = replace(sql, "${SEED}", "21");
    cr_assert_eq(weir_nexmark_register_connectors(), 0);
    weir_sql_session *s = NULL;
    cr_assert_eq(weir_sql_session_create(&(weir_sql_config){.workers = 2, .on_row = on_row},
                                         &s),
                 0);
    const char *query = "SET 'parallelism.default' = '2';"
                        "SELECT event_type, person, auction, bid FROM nexmark;";
    cr_assert_eq(weir_sql_execute(s, sql, strlen(sql)), 0, "%s", weir_sql_error(s));
    cr_assert_eq(weir_sql_execute(s, query, strlen(query)), 0, "%s", weir_sql_error(s));
    weir_sql_session_destroy(s);
    free(sql);

    /* the file's lines, less their number: the same multiset */
    char *text = NULL;
    size_t cap = 0;
    f = fopen(file, "r");
    cr_assert_not_null(f);
    char **lines = calloc(4000, sizeof *lines);
    size_t n = 0;
    int64_t next = 0;
    while (getline(&text, &cap, f) > 0) {
        cr_assert_lt(n, 4000u);
        json_t *j = parse(text);
        cr_assert_eq(num(j, "number"), next++, "the events in their order");
        json_object_del(j, "number");
        lines[n++] = json_dumps(j, JSON_SORT_KEYS | JSON_COMPACT);
        json_decref(j);
    }
    free(text);
    fclose(f);
    cr_assert_eq(n, 2000u);
    cr_assert_eq(seen.n, n);
    qsort(lines, n, sizeof *lines, cmp_str);
    qsort(seen.lines, n, sizeof *seen.lines, cmp_str);
    for (size_t i = 0; i < n; i++)
        cr_assert_str_eq(lines[i], seen.lines[i]);
    for (size_t i = 0; i < n; i++) {
        free(lines[i]);
        free(seen.lines[i]);
    }
    free(lines);
    free(seen.lines);

    /* refused options leave no file */
    snprintf(cmd, sizeof cmd, "%s nexmark events.num=10 seed=x -o %s/bad.jsonl 2>/dev/null",
             WEIR, dir);
    st = system(cmd);
    cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 2);
    snprintf(file, sizeof file, "%s/bad.jsonl", dir);
    cr_assert_neq(access(file, F_OK), 0);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    cr_assert_eq(system(cmd), 0);
}
