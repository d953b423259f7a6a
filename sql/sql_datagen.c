/* sql_datagen.c — the 'datagen' connector: weir's generator
 * (weir/generator.h) as a SQL table. Its rows are the generator's events,
 * so its columns are their fields, named as they are (key, value, ts,
 * partition_id, late, seq), bound to the event struct by offset; its
 * options are the generator's settings, named as Flink's datagen names
 * what it has too ('rows-per-second', 'number-of-rows'). */
#include <ctype.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sql_internal.h"
#include "sql_text.h"

typedef struct gen_field {
    const char *name;
    size_t offset, size;
    weir_type_id id, alt; /* the types the column may be declared as */
} gen_field;

static const gen_field gen_fields[] = {
    {"key", offsetof(weir_gen_event, key), 8, WEIR_TYPE_BIGINT, WEIR_TYPE_BIGINT},
    {"value", offsetof(weir_gen_event, value), 8, WEIR_TYPE_BIGINT, WEIR_TYPE_BIGINT},
    {"ts", offsetof(weir_gen_event, timestamp), 8, WEIR_TYPE_TIMESTAMP, WEIR_TYPE_TIMESTAMP_LTZ},
    {"partition_id", offsetof(weir_gen_event, partition), 4, WEIR_TYPE_INT, WEIR_TYPE_INT},
    {"late", offsetof(weir_gen_event, late), 4, WEIR_TYPE_INT, WEIR_TYPE_INT},
    {"seq", offsetof(weir_gen_event, seq), 8, WEIR_TYPE_BIGINT, WEIR_TYPE_BIGINT},
};
enum { NGEN_FIELDS = sizeof gen_fields / sizeof *gen_fields };

static int datagen_begin(weir_connector_context *c, weir_schema_builder *b)
{
    (void)c;
    return weir_schema_bind_struct(b, sizeof(weir_gen_event));
}

static int datagen_column(weir_connector_context *c, weir_schema_builder *b, const char *name,
                          weir_type type)
{
    for (int f = 0; f < NGEN_FIELDS; f++) {
        const gen_field *g = &gen_fields[f];
        if (strcmp(name, g->name) != 0)
            continue;
        if (type.id != g->id && type.id != g->alt) {
            char want[32];
            weir_type_format((weir_type){.id = g->id}, want, sizeof want);
            sql_fail(c->s, c->sc, c->column->type.start, "datagen column '%s' is %s%s%s", name,
                     want, g->alt != g->id ? " or " : "",
                     g->alt != g->id ? "TIMESTAMP_LTZ(3)" : "");
            return WEIR_EINVAL;
        }
        return weir_schema_column_at(b, name, type, g->offset, g->size) ? WEIR_EINVAL : 0;
    }
    sql_fail(c->s, c->sc, c->column->name.start, "datagen makes the columns key BIGINT, value "
             "BIGINT, ts TIMESTAMP(3), partition_id INT, late INT and seq BIGINT; not '%s'",
             name);
    return WEIR_EINVAL;
}

/* 'idle-partitions'='P@FROM-TO, ...': partition P emits nothing for the
 * slots due FROM..TO after 'start' (durations; no TO: for ever). */
static int datagen_idle(weir_connector_context *c, const char *value, weir_generator_config *g)
{
    static const char key[] = "idle-partitions";
    char buf[512];
    snprintf(buf, sizeof buf, "%s", value);
    for (char *save = NULL, *item = strtok_r(buf, ",", &save); item;
         item = strtok_r(NULL, ",", &save)) {
        char *at = strchr(item, '@'), *dash = at ? strchr(at, '-') : NULL;
        char *end;
        long p = strtol(item, &end, 10);
        int64_t from, to = WEIR_TS_MAX;
        if (!at || !dash || end == item || (end != at && !isspace((unsigned char)*end)) || p < 0)
            return weir_connector_fail(c, key, "expected 'PARTITION@FROM-TO, ...' (durations "
                                       "after 'start'; TO may be left out: for ever)");
        *dash = '\0';
        if (sql_duration_ms(at + 1, &from))
            return weir_connector_fail(c, key, "an idle span's FROM is not a duration");
        char *t = dash + 1;
        while (isspace((unsigned char)*t))
            t++;
        if (*t && sql_duration_ms(t, &to))
            return weir_connector_fail(c, key, "an idle span's TO is not a duration");
        if (g->nidle == WEIR_GEN_MAX_IDLE)
            return weir_connector_fail(c, key, "more idle spans than the generator takes (16)");
        g->idle[g->nidle++] = (weir_gen_idle){.partition = (int)p, .from_ms = g->start_ms + from,
                                              .to_ms = to == WEIR_TS_MAX ? to : g->start_ms + to};
    }
    return 0;
}

/* A table without 'number-of-rows' or 'duration' is unbounded, as Flink's
 * datagen: it runs until the query is cancelled. The generator computes
 * its schedule in doubles and takes one no longer than 2^53 slots or ms
 * (weir/generator.h), so it is given the longest schedule within half of
 * that: at a million rows a second a partition's would last 142 years. */
static void datagen_unbounded(weir_generator_config *g)
{
    const double limit = 4503599627370496.0; /* 2^52 */
    double gap = 1000.0 / g->rate, speed = g->speed > 0 ? g->speed : 1.0;
    double slots = limit;
    if (slots * gap > limit)
        slots = limit / gap;
    if (g->pace == WEIR_GEN_PACED && slots * gap / speed > limit)
        slots = limit * speed / gap;
    g->count = slots < 1 ? 1 : (int64_t)slots;
}

static int datagen_validate(weir_connector_context *c, void **state)
{
    weir_generator_config *g = calloc(1, sizeof *g);
    if (!g)
        return WEIR_ENOMEM;
    *state = g;
    g->rate = 10;
    int64_t v = 0;
    int err = 0;
    if ((err = weir_connector_option_double(c, "rows-per-second", 1e-9, 1e9, &g->rate)) ||
        (err = weir_connector_option_int(c, "number-of-rows", 1, INT64_MAX, &g->count)) ||
        (err = weir_connector_option_duration(c, "duration", &g->duration_ms)))
        return err;
    if ((err = weir_connector_option_int(c, "partitions", 1, 256, &v)))
        return err;
    g->partitions = (int)v;
    if ((err = weir_connector_option_int(c, "keys", 1, INT64_MAX, &g->keys)) ||
        (err = weir_connector_option_double(c, "zipf-s", 0.01, 100, &g->zipf_s)) ||
        (err = weir_connector_option_duration(c, "disorder", &g->disorder_ms)) ||
        (err = weir_connector_option_double(c, "late-fraction", 0, 1, &g->late_fraction)) ||
        (err = weir_connector_option_duration(c, "late-by", &g->late_ms)) ||
        (err = weir_connector_option_double(c, "speed", 1e-6, 1e9, &g->speed)))
        return err;
    v = 0;
    if ((err = weir_connector_option_int(c, "seed", 0, INT64_MAX, &v)))
        return err;
    g->seed = (uint64_t)v;
    static const char *const skews[] = {"uniform", "zipf", NULL};
    static const char *const paces[] = {"fast", "paced", NULL};
    int skew = 0, pace = 0;
    if ((err = weir_connector_option_choice(c, "key-skew", skews, &skew)))
        return err;
    if (skew)
        g->skew = WEIR_GEN_ZIPF;
    const char *o;
    if ((o = weir_connector_option(c, "start"))) {
        char *end;
        long long ms = strtoll(o, &end, 10);
        if (end != o && !*end)
            g->start_ms = ms;
        else if (weir_timestamp_parse(o, strlen(o), &g->start_ms))
            return weir_connector_fail(c, "start", "expected a timestamp 'YYYY-MM-DD "
                                       "HH:MM:SS[.fff]' (UTC) or milliseconds");
    }
    if ((err = weir_connector_option_choice(c, "pace", paces, &pace)))
        return err;
    if (pace)
        g->pace = WEIR_GEN_PACED;
    if ((o = weir_connector_option(c, "idle-partitions")) && (err = datagen_idle(c, o, g)))
        return err;
    if (!g->count && !g->duration_ms)
        datagen_unbounded(g);
    char why[256];
    int parts = g->partitions ? g->partitions : weir_connector_parallelism(c);
    if (weir_generator_check(g, parts, why, sizeof why))
        return weir_connector_fail(c, NULL, "datagen table %s: %s", weir_connector_table(c),
                                   why);
    return 0;
}

static weir_stream *datagen_source(void *state, const weir_schema *schema, weir_job *job,
                                   const char *name)
{
    (void)schema;
    weir_generator_config g = *(const weir_generator_config *)state;
    g.name = name;
    return weir_source_generator(job, &g);
}

const weir_connector_factory sql_datagen_factory = {
    .version = WEIR_CONNECTOR_V1,
    .name = "datagen",
    .options = "'rows-per-second', 'number-of-rows', 'duration', 'partitions', 'keys', "
               "'key-skew', 'zipf-s', 'disorder', 'late-fraction', 'late-by', 'start', 'pace', "
               "'speed', 'seed', 'idle-partitions'",
    .validate = datagen_validate,
    .free_state = free,
    .schema_begin = datagen_begin,
    .column = datagen_column,
    .source = datagen_source,
};
