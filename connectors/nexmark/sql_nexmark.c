/* sql_nexmark.c — the 'nexmark' SQL connector (weir/nexmark.h,
 * weir_nexmark_register_connectors): the Nexmark events as a table with the
 * nested schema of Flink's Nexmark DDL,
 *
 *     event_type INT,
 *     person  ROW<id BIGINT, name STRING, emailAddress STRING, creditCard STRING,
 *                 city STRING, state STRING, dateTime TIMESTAMP(3), extra STRING>,
 *     auction ROW<id BIGINT, itemName STRING, description STRING, initialBid BIGINT,
 *                 reserve BIGINT, dateTime TIMESTAMP(3), expires TIMESTAMP(3),
 *                 seller BIGINT, category BIGINT, extra STRING>,
 *     bid     ROW<auction BIGINT, bidder BIGINT, price BIGINT, channel STRING,
 *                 url STRING, dateTime TIMESTAMP(3), extra STRING>
 *
 * each column and each field optional and taken by name (a ROW's fields in
 * any order), an event's own ROW filled and the other two NULL. Its options
 * are Flink's Nexmark table options ('events.num', 'first-event.rate', the
 * proportions, sizes and hot ratios) and weir's 'seed'. Written against the
 * public headers: the rows are made by a flat map after weir_source_nexmark
 * (weir_row_set_field_*), a string longer than its field's capacity failing
 * the query with the table, the column and the field, never cut. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "weir/connector.h"
#include "weir/error.h"
#include "weir/nexmark.h"
#include "weir/operator.h"

/* Where a field's value comes from in an event. */
enum src {
    S_ID, S_NAME, S_EMAIL, S_CARD, S_CITY, S_STATE, S_TIME, S_EXTRA, /* person */
    S_A_ID, S_ITEM, S_DESC, S_INITIAL, S_RESERVE, S_EXPIRES, S_SELLER, S_CATEGORY, /* auction */
    S_B_AUCTION, S_BIDDER, S_PRICE, S_CHANNEL, S_URL                   /* bid */
};

typedef struct known_field {
    const char *name;
    int src;
    int kind; /* 0 BIGINT, 1 a string, 2 TIMESTAMP(3) */
} known_field;

static const known_field person_fields[] = {
    {"id", S_ID, 0}, {"name", S_NAME, 1}, {"emailAddress", S_EMAIL, 1},
    {"creditCard", S_CARD, 1}, {"city", S_CITY, 1}, {"state", S_STATE, 1},
    {"dateTime", S_TIME, 2}, {"extra", S_EXTRA, 1}, {NULL, 0, 0}};
static const known_field auction_fields[] = {
    {"id", S_A_ID, 0}, {"itemName", S_ITEM, 1}, {"description", S_DESC, 1},
    {"initialBid", S_INITIAL, 0}, {"reserve", S_RESERVE, 0}, {"dateTime", S_TIME, 2},
    {"expires", S_EXPIRES, 2}, {"seller", S_SELLER, 0}, {"category", S_CATEGORY, 0},
    {"extra", S_EXTRA, 1}, {NULL, 0, 0}};
static const known_field bid_fields[] = {
    {"auction", S_B_AUCTION, 0}, {"bidder", S_BIDDER, 0}, {"price", S_PRICE, 0},
    {"channel", S_CHANNEL, 1}, {"url", S_URL, 1}, {"dateTime", S_TIME, 2},
    {"extra", S_EXTRA, 1}, {NULL, 0, 0}};
static const char *const kind_names[] = {"person", "auction", "bid"};
static const known_field *const kind_fields[] = {person_fields, auction_fields, bid_fields};

#define MAX_FIELDS 16

typedef struct nexmark_table {
    weir_nexmark_config cfg;
    char table[128];
    const weir_schema *schema;
    int event_type;          /* its column, -1: not declared */
    int col[3];              /* each kind's ROW column, -1: not declared */
    int nfields[3];
    int src[3][MAX_FIELDS];  /* each field's source */
} nexmark_table;

static bool is_string(weir_type_id id)
{
    return id == WEIR_TYPE_VARCHAR || id == WEIR_TYPE_CHAR;
}

static int check_row(weir_connector_context *c, nexmark_table *t, int k, int col)
{
    weir_type ty = weir_schema_column_type(weir_connector_schema(c), col);
    const char *cname = kind_names[k];
    if (ty.id != WEIR_TYPE_ROW)
        return weir_connector_fail(c, NULL, "nexmark column '%s' is a ROW<...> of its fields, as "
                                   "in Flink's Nexmark DDL", cname);
    int n = weir_type_nested_count(ty);
    if (n > MAX_FIELDS)
        return weir_connector_fail(c, NULL, "nexmark column '%s' has more fields than it makes",
                                   cname);
    t->col[k] = col;
    t->nfields[k] = n;
    for (int f = 0; f < n; f++) {
        const char *fname = weir_type_nested_name(ty, f);
        weir_type ft = weir_type_nested_type(ty, f);
        const known_field *kf = kind_fields[k];
        while (kf->name && strcmp(kf->name, fname) != 0)
            kf++;
        if (!kf->name) {
            char all[256] = "";
            size_t len = 0;
            for (const known_field *x = kind_fields[k]; x->name; x++)
                len += (size_t)snprintf(all + len, len < sizeof all ? sizeof all - len : 0,
                                        "%s%s", x == kind_fields[k] ? "" : ", ", x->name);
            return weir_connector_fail(c, NULL, "nexmark column '%s' has no field '%s' (its "
                                       "fields: %s)", cname, fname, all);
        }
        bool ok = kf->kind == 0   ? ft.id == WEIR_TYPE_BIGINT
                  : kf->kind == 1 ? is_string(ft.id)
                                  : (ft.id == WEIR_TYPE_TIMESTAMP ||
                                     ft.id == WEIR_TYPE_TIMESTAMP_LTZ) &&
                                        (ft.precision == 0 || ft.precision == 3);
        if (!ok)
            return weir_connector_fail(c, NULL, "nexmark field '%s.%s' is %s", cname, fname,
                                       kf->kind == 0   ? "BIGINT"
                                       : kf->kind == 1 ? "a string (STRING, VARCHAR(n))"
                                                       : "TIMESTAMP(3) or TIMESTAMP_LTZ(3)");
        t->src[k][f] = kf->src;
    }
    return 0;
}

static int nexmark_validate(weir_connector_context *c, void **state)
{
    nexmark_table *t = calloc(1, sizeof *t);
    if (!t)
        return WEIR_ENOMEM;
    *state = t;
    snprintf(t->table, sizeof t->table, "%s", weir_connector_table(c));
    const weir_schema *s = weir_connector_schema(c);
    t->event_type = t->col[0] = t->col[1] = t->col[2] = -1;
    for (int col = 0; col < weir_schema_ncolumns(s); col++) {
        const char *name = weir_schema_column_name(s, col);
        weir_type ty = weir_schema_column_type(s, col);
        int k = 0;
        while (k < 3 && strcmp(kind_names[k], name) != 0)
            k++;
        if (k < 3) {
            int err;
            if ((err = check_row(c, t, k, col)))
                return err;
        } else if (strcmp(name, "event_type") == 0) {
            if (ty.id != WEIR_TYPE_INT && ty.id != WEIR_TYPE_BIGINT)
                return weir_connector_fail(c, NULL, "nexmark column 'event_type' is INT");
            t->event_type = col;
        } else {
            return weir_connector_fail(c, NULL, "nexmark makes the columns event_type INT, person "
                                       "ROW<...>, auction ROW<...> and bid ROW<...> (Flink's "
                                       "Nexmark DDL); not '%s'", name);
        }
    }
    weir_nexmark_config *g = &t->cfg;
    int64_t v;
    int err;
    double next = 0;
    if ((err = weir_connector_option_int(c, "events.num", 0, INT64_MAX, &g->events)) ||
        (err = weir_connector_option_double(c, "first-event.rate", 1e-6, 1e12, &g->rate)) ||
        (err = weir_connector_option_double(c, "next-event.rate", 1e-6, 1e12, &next)))
        return err;
    if (next > 0 && next != (g->rate > 0 ? g->rate : 10000))
        return weir_connector_fail(c, "next-event.rate", "not supported: a rate that changes "
                                   "(weir's generator has one rate, 'first-event.rate')");
    static const struct { const char *key; size_t off; int64_t lo; } ints[] = {
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
    for (size_t i = 0; i < sizeof ints / sizeof ints[0]; i++) {
        v = -1;
        if ((err = weir_connector_option_int(c, ints[i].key, ints[i].lo, 1000000000, &v)))
            return err;
        if (v >= 0)
            *(int *)(void *)((char *)g + ints[i].off) = (int)v;
    }
    v = 0;
    if ((err = weir_connector_option_int(c, "seed", 0, INT64_MAX, &v)))
        return err;
    g->seed = (uint64_t)v;
    if ((err = weir_connector_option_bool(c, "rate.limited", &g->paced)))
        return err;
    const char *start = weir_connector_option(c, "base-time");
    if (start && weir_timestamp_parse(start, strlen(start), &g->base_time_ms))
        return weir_connector_fail(c, "base-time", "expected a timestamp 'YYYY-MM-DD "
                                   "HH:MM:SS[.fff]' (UTC)");
    char why[256];
    if (weir_nexmark_check(g, why, sizeof why))
        return weir_connector_fail(c, NULL, "nexmark table %s: %s", t->table, why);
    return 0;
}

/* A string field, or the query's failure naming the table, column and field. */
static int put_string(weir_ctx *ctx, const nexmark_table *t, void *row, int k, int f,
                      const char *s, size_t len)
{
    int r = weir_row_set_field_string(t->schema, row, t->col[k], f, s, len);
    if (r == WEIR_ERANGE) {
        weir_type ft = weir_type_nested_type(weir_schema_column_type(t->schema, t->col[k]), f);
        return weir_ctx_fail(ctx, r, "table %s: column %s: field %s: a string of %zu bytes is "
                             "longer than its capacity %u", t->table, kind_names[k],
                             weir_type_nested_name(weir_schema_column_type(t->schema, t->col[k]),
                                                   f),
                             len, ft.capacity);
    }
    return r;
}

static int to_row(weir_ctx *ctx, const void *in, int64_t ts, void *arg)
{
    const nexmark_table *t = arg;
    const weir_nexmark_event *e = in;
    /* the row is built where it leaves: in the output's next slot */
    unsigned char *row = weir_emit_reserve(ctx);
    if (!row)
        return weir_ctx_error(ctx);
    weir_row_init(t->schema, row, WEIR_ROW_INSERT);
    if (t->event_type >= 0)
        weir_row_set_int(t->schema, row, t->event_type, e->kind);
    for (int k = 0; k < 3; k++)
        if (t->col[k] >= 0 && k != e->kind)
            weir_row_set_null(t->schema, row, t->col[k]);
    int k = e->kind;
    for (int f = 0; t->col[k] >= 0 && f < t->nfields[k]; f++) {
        int r = 0;
        int64_t x = 0;
        const char *s = NULL;
        switch (t->src[k][f]) {
        case S_ID: x = e->person.id; break;
        case S_NAME: s = e->person.name; break;
        case S_EMAIL: s = e->person.email_address; break;
        case S_CARD: s = e->person.credit_card; break;
        case S_CITY: s = e->person.city; break;
        case S_STATE: s = e->person.state; break;
        case S_TIME: x = e->date_time; break;
        case S_A_ID: x = e->auction.id; break;
        case S_ITEM: s = e->auction.item_name; break;
        case S_DESC: s = e->auction.description; break;
        case S_INITIAL: x = e->auction.initial_bid; break;
        case S_RESERVE: x = e->auction.reserve; break;
        case S_EXPIRES: x = e->auction.expires; break;
        case S_SELLER: x = e->auction.seller; break;
        case S_CATEGORY: x = e->auction.category; break;
        case S_B_AUCTION: x = e->bid.auction; break;
        case S_BIDDER: x = e->bid.bidder; break;
        case S_PRICE: x = e->bid.price; break;
        case S_CHANNEL: s = e->bid.channel; break;
        case S_URL: s = e->bid.url; break;
        case S_EXTRA:
            r = put_string(ctx, t, row, k, f, weir_nexmark_extra(e), (size_t)e->extra_len);
            if (r)
                return r;
            continue;
        }
        r = s ? put_string(ctx, t, row, k, f, s, strlen(s))
              : weir_row_set_field_int(t->schema, row, t->col[k], f, x);
        if (r)
            return r;
    }
    return weir_emit_commit(ctx, ts);
}

static weir_stream *nexmark_source(void *state, const weir_schema *schema, weir_job *job,
                                   const char *name)
{
    nexmark_table *t = state;
    t->schema = schema; /* the table's, as validate saw it (it outlives the job) */
    weir_nexmark_config g = t->cfg;
    g.name = name;
    weir_stream *events = weir_source_nexmark(job, &g);
    if (!events)
        return NULL;
    weir_stream *rows = weir_stream_flat_map(events, weir_schema_row_size(schema), to_row, t);
    char node[160];
    snprintf(node, sizeof node, "%s rows", name);
    return rows ? weir_stream_set_name(rows, node) : NULL;
}

static const weir_connector_factory nexmark_factory = {
    .version = WEIR_CONNECTOR_V1,
    .name = "nexmark",
    .options = WEIR_NEXMARK_OPTIONS,
    .validate = nexmark_validate,
    .free_state = free,
    .source = nexmark_source,
};

int weir_nexmark_register_connectors(void)
{
    return weir_connector_register(&nexmark_factory);
}
