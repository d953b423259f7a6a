/* sql_filesystem.c — the 'filesystem' connector of SQL tables (Flink's
 * FileSystemTableFactory), registered through weir/connector.h by
 * weir_file_register_connectors: a table over JSON lines or CSV files read
 * by weir_source_file (a folder is one partition a file).
 *
 *   'path'                      a file or a folder (relative: to the SQL's
 *                               folder)
 *   'format'                    'json' or 'csv'
 *   'json.ignore-parse-errors', 'csv.ignore-parse-errors', 'csv.field-delimiter'
 *   'changelog-mode'            'insert-only' (default), 'upsert' or 'all'
 *   'changelog.kind-field'      the field (JSON) or first column (CSV) with
 *                               each row's kind
 *   'scan.speed'                rows paced by their rowtime, N times real time
 *
 * As a sink (INSERT INTO; insert-only) it is the exactly-once file sink
 * (weir_sink_file, weir/file_sink.h): part files in the 'path' folder,
 * JSON lines or CSV, committed at the checkpoints (or at the end of input),
 * rolled at each checkpoint and at 'sink.rolling-policy.file-size'.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "weir/connector.h"
#include "weir/error.h"
#include "weir/file_sink.h"
#include "weir/file_source.h"
#include "weir/table.h"

typedef struct fs_table {
    char path[4096];
    bool csv;
    bool ignore_parse_errors;
    char delimiter;
    char kind_field[128];
    double speed;
    int64_t roll_bytes; /* 'sink.rolling-policy.file-size' (0: the sink's 128 MiB) */
} fs_table;

/* A size as Flink's MemorySize reads it: a number, then an optional unit
 * (b, k/kb, m/mb, g/gb, t/tb, any case; powers of 1024). */
static int memory_size(const char *text, int64_t *bytes)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(text, &end, 10);
    if (end == text || errno || text[0] == '-')
        return -1;
    while (isspace((unsigned char)*end))
        end++;
    static const struct {
        const char *unit;
        int shift;
    } units[] = {{"", 0},   {"b", 0},   {"bytes", 0}, {"k", 10},  {"kb", 10}, {"kibibytes", 10},
                 {"m", 20}, {"mb", 20}, {"mebibytes", 20}, {"g", 30}, {"gb", 30},
                 {"gibibytes", 30}, {"t", 40}, {"tb", 40}, {"tebibytes", 40}};
    for (size_t k = 0; k < sizeof units / sizeof units[0]; k++)
        if (strcasecmp(end, units[k].unit) == 0) {
            if (v > ((unsigned long long)INT64_MAX >> units[k].shift))
                return -1;
            *bytes = (int64_t)(v << units[k].shift);
            return 0;
        }
    return -1;
}

static int fs_validate(weir_connector_context *c, void **state)
{
    fs_table *t = calloc(1, sizeof *t);
    if (!t)
        return WEIR_ENOMEM;
    *state = t;
    const char *path = weir_connector_option(c, "path");
    const char *format = weir_connector_option(c, "format");
    if (!path || !format)
        return weir_connector_fail(c, NULL, "a filesystem table needs 'path' and 'format' "
                                   "('json' or 'csv')");
    int n = weir_connector_path(c, path, t->path, sizeof t->path);
    if (n < 0 || (size_t)n >= sizeof t->path)
        return weir_connector_fail(c, "path", "the path is too long");
    if (strcmp(format, "csv") == 0)
        t->csv = true;
    else if (strcmp(format, "json") != 0)
        return weir_connector_fail(c, "format", "expected 'json' or 'csv'");
    int err = weir_connector_option_bool(c, t->csv ? "csv.ignore-parse-errors"
                                                   : "json.ignore-parse-errors",
                                         &t->ignore_parse_errors);
    if (err)
        return err;
    const char *d = weir_connector_option(c, "csv.field-delimiter");
    if (d) {
        if (!t->csv)
            return weir_connector_fail(c, "csv.field-delimiter", "a CSV option on a JSON table");
        if (strcmp(d, "\\t") == 0)
            t->delimiter = '\t';
        else if (strlen(d) == 1 && d[0] != '"' && d[0] != '\n' && d[0] != '\r')
            t->delimiter = d[0];
        else
            return weir_connector_fail(c, "csv.field-delimiter", "expected one character (or "
                                       "'\\t')");
    }
    static const char *const modes[] = {"insert-only", "upsert", "all", NULL};
    static const unsigned mode_of[] = {WEIR_CHANGELOG_INSERT_ONLY, WEIR_CHANGELOG_UPSERT,
                                       WEIR_CHANGELOG_ALL};
    int m = 0;
    if ((err = weir_connector_option_choice(c, "changelog-mode", modes, &m)))
        return err;
    unsigned mode = mode_of[m];
    weir_connector_set_source_mode(c, mode);
    const char *o;
    if ((o = weir_connector_option(c, "changelog.kind-field"))) {
        if (snprintf(t->kind_field, sizeof t->kind_field, "%s", o) >= (int)sizeof t->kind_field ||
            !o[0])
            return weir_connector_fail(c, "changelog.kind-field", "expected a field name");
    }
    if (mode != WEIR_CHANGELOG_INSERT_ONLY && !t->kind_field[0])
        return weir_connector_fail(c, NULL, "a changelog file needs 'changelog.kind-field': the "
                                   "field (JSON) or first column (CSV) holding +I, -U, +U or -D");
    if ((o = weir_connector_option(c, "sink.rolling-policy.file-size")) &&
        (memory_size(o, &t->roll_bytes) || t->roll_bytes < 1))
        return weir_connector_fail(c, "sink.rolling-policy.file-size", "not a size ('128MB', "
                                   "'64 kb', '1048576')");
    if (weir_connector_option(c, "sink.rolling-policy.rollover-interval"))
        return weir_connector_fail(c, "sink.rolling-policy.rollover-interval", "not supported: "
                                   "rolling by time (part files roll at every checkpoint and at "
                                   "'sink.rolling-policy.file-size')");
    if (weir_connector_partition_key_count(c) > 0)
        return weir_connector_fail(c, NULL, "not supported: PARTITIONED BY on a filesystem "
                                   "table (its part files go into the one 'path' folder)");
    return weir_connector_option_double(c, "scan.speed", 1e-6, 1e9, &t->speed);
}

static weir_stream *fs_sink(void *state, const weir_schema *schema, weir_stream *rows,
                            const char *name, int parallelism)
{
    (void)name;
    (void)parallelism;
    const fs_table *t = state;
    weir_file_sink_config fc = {
        .dir = t->path,
        .prefix = "part",
        .schema = schema,
        .csv = t->csv,
        .roll_bytes = t->roll_bytes,
    };
    return weir_sink_file(rows, &fc);
}

static weir_stream *fs_source(void *state, const weir_schema *schema, weir_job *job,
                              const char *name)
{
    const fs_table *t = state;
    weir_file_source_config fc = {
        .name = name,
        .path = t->path,
        .format = t->csv ? WEIR_FILE_CSV : WEIR_FILE_JSON,
        .ignore_parse_errors = t->ignore_parse_errors,
        .csv_field_delimiter = t->delimiter,
        .kind_field = t->kind_field[0] ? t->kind_field : NULL,
        .speed = t->speed,
    };
    return weir_source_file(job, schema, &fc);
}

static const weir_connector_factory filesystem_factory = {
    .version = WEIR_CONNECTOR_V1,
    .name = "filesystem",
    .options = "'path', 'format', 'json.ignore-parse-errors', 'csv.ignore-parse-errors', "
               "'csv.field-delimiter', 'changelog-mode', 'changelog.kind-field', 'scan.speed', "
               "'sink.rolling-policy.file-size'",
    .validate = fs_validate,
    .free_state = free,
    .source = fs_source,
    .sink = fs_sink,
};

int weir_file_register_connectors(void)
{
    return weir_connector_register(&filesystem_factory);
}
