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
 *   'partition.default-name'    the folder value of a NULL or empty partition
 *                               value (default __DEFAULT_PARTITION__)
 *   'lookup.join.cache.ttl'     a lookup join's table (file_lookup.c: read
 *                               whole) reloaded so often (default 60 min, 0:
 *                               never; Flink's FileSystemLookupFunction)
 *
 * As a sink (INSERT INTO; insert-only) it is the exactly-once file sink
 * (weir_sink_file, weir/file_sink.h): part files in the 'path' folder,
 * JSON lines or CSV, committed at the checkpoints (or at the end of input),
 * rolled at each checkpoint and at 'sink.rolling-policy.file-size'.
 *
 * PARTITIONED BY (a, b), as Flink's FileSystemTableSink writes it and its
 * FileSystemTableSource reads it: a row goes into the Hive-style folder
 * path/a=V1/b=V2/ (the sink's buckets: each folder its own parts, rolled
 * and committed as above, and named in the checkpoint with its pending
 * parts), V the value's text as Flink's RowDataPartitionComputer makes it
 * (Java's toString of the value: 2024-01-01T10:00:01 for a TIMESTAMP, 1.5
 * or 1.0E10 for a DOUBLE), escaped as PartitionPathUtils.escapePathName
 * does ("%3A" for ':', "%2F" for '/'), and 'partition.default-name' for
 * NULL or ''. The files hold the other columns only. Reading, each file's
 * folders give the partition columns their values (weir_source_file's
 * partition columns): unescaped, typed by the column, the default name
 * NULL, so that a table written here reads back as it was ('' comes back
 * NULL, as in Flink). With 'sink.partition-commit.policy.kind' =
 * 'success-file' every commit into a partition's folder makes or replaces
 * its success file ('sink.partition-commit.success-file.name', _SUCCESS):
 * Flink's process-time trigger with no delay. The rows are then shuffled
 * by their partition (as 'sink.shuffle-by-partition.enable' does), so each
 * partition has one writer and its success file follows all of its parts.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "file_lookup.h"
#include "weir/connector.h"
#include "weir/error.h"
#include "weir/file_sink.h"
#include "weir/file_source.h"
#include "weir/table.h"

#define FS_MAX_PARTITION_KEYS 64 /* weir_source_file's limit */

/* A sink's partitions: how its bucket function and its shuffle read the
 * rows of one INSERT (their schema: the query's, the table's columns). */
typedef struct fs_partitions {
    const weir_schema *schema;
    const int *cols; /* the table's partition columns */
    int n;
    char names[FS_MAX_PARTITION_KEYS][200]; /* each "NAME=", escaped */
    char default_name[512];                 /* escaped */
    struct fs_partitions *next;             /* the table's list */
} fs_partitions;

typedef struct fs_table {
    char path[4096];
    bool csv;
    bool ignore_parse_errors;
    char delimiter;
    char kind_field[128];
    double speed;
    int64_t roll_bytes; /* 'sink.rolling-policy.file-size' (0: the sink's 128 MiB) */
    int64_t lookup_ttl_ms; /* 'lookup.join.cache.ttl': a lookup join reloads the table so often */
    unsigned mode;      /* 'changelog-mode' */
    int part_cols[FS_MAX_PARTITION_KEYS]; /* PARTITIONED BY's columns */
    int npart;
    int *data_cols; /* the others, which the files hold */
    int ndata;
    char default_name[256]; /* 'partition.default-name' */
    char success_file[256]; /* "": no success files */
    bool shuffle;           /* rows keyed by their partition before the sink */
    fs_partitions *sinks;   /* what each INSERT's sink reads with (freed with the table) */
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

/* ---- partition folders ------------------------------------------------------------ */

/* Flink's PartitionPathUtils.escapePathName: these bytes become "%XX"
 * (upper-case hex); the rest, UTF-8's bytes of other characters too, stay. */
static bool needs_escape(unsigned char c)
{
    return c < 0x20 || c == 0x7F || (c < 0x80 && strchr("\"#%'*/:=?\\{[]^", c));
}

/* Appends the n bytes of v, escaped, to buf at *at (counting past size as
 * snprintf does). */
static void put_escaped(char *buf, size_t size, size_t *at, const char *v, size_t n)
{
    static const char hex[] = "0123456789ABCDEF";
    for (size_t i = 0; i < n; i++) {
        unsigned char ch = (unsigned char)v[i];
        char e[3] = {(char)ch};
        size_t k = 1;
        if (needs_escape(ch)) {
            e[0] = '%';
            e[1] = hex[ch >> 4];
            e[2] = hex[ch & 15];
            k = 3;
        }
        for (size_t j = 0; j < k; j++, (*at)++)
            if (*at < size)
                buf[*at] = e[j];
    }
}

static void put_text(char *buf, size_t size, size_t *at, const char *v, size_t n)
{
    for (size_t i = 0; i < n; i++, (*at)++)
        if (*at < size)
            buf[*at] = v[i];
}

/* A DOUBLE as Java's Double.toString writes it (Flink's partition value is
 * the value's toString): the shortest digits that read back as the value,
 * "1.5", "100.0", "1.0E7", "1.0E-4", "NaN", "-Infinity". */
static int java_double(double d, char *out, size_t size)
{
    if (isnan(d))
        return snprintf(out, size, "NaN");
    if (isinf(d))
        return snprintf(out, size, d > 0 ? "Infinity" : "-Infinity");
    if (d == 0)
        return snprintf(out, size, signbit(d) ? "-0.0" : "0.0");
    char e[48];
    for (int p = 0; p <= 17; p++) {
        snprintf(e, sizeof e, "%.*e", p, d);
        if (strtod(e, NULL) == d)
            break;
    }
    /* e: [-]D[.DDD]e[+-]X */
    char digits[24];
    int nd = 0, x = 0;
    const char *p = e + (e[0] == '-');
    for (; *p && *p != 'e'; p++)
        if (isdigit((unsigned char)*p) && nd < (int)sizeof digits - 1)
            digits[nd++] = *p;
    digits[nd] = '\0';
    if (*p == 'e')
        x = atoi(p + 1);
    while (nd > 1 && digits[nd - 1] == '0')
        digits[--nd] = '\0';
    const char *sign = d < 0 ? "-" : "";
    double a = fabs(d);
    if (a >= 1e-3 && a < 1e7) {
        if (x < 0)
            return snprintf(out, size, "%s0.%.*s%s", sign, -x - 1, "000", digits);
        char ip[16], fp[24];
        int il = x + 1;
        snprintf(ip, sizeof ip, "%.*s%.*s", il < nd ? il : nd, digits,
                 il > nd ? il - nd : 0, "0000000");
        snprintf(fp, sizeof fp, "%s", il < nd ? digits + il : "0");
        return snprintf(out, size, "%s%s.%s", sign, ip, fp);
    }
    return snprintf(out, size, "%s%c.%sE%d", sign, digits[0], nd > 1 ? digits + 1 : "0", x);
}

/* A TIMESTAMP (ms) as Java's LocalDateTime.toString writes it:
 * 2024-01-01T10:00, 2024-01-01T10:00:01, 2024-01-01T10:00:01.500. */
static int java_timestamp(int64_t ms, char *out, size_t size)
{
    char t[64];
    int n = weir_timestamp_format(ms, t, sizeof t);
    if (n != 23 || t[10] != ' ') /* a year of more than four digits: as weir writes it */
        return snprintf(out, size, "%s", t);
    t[10] = 'T';
    bool millis = strcmp(t + 20, "000") != 0, secs = millis || strncmp(t + 17, "00", 2) != 0;
    return snprintf(out, size, "%.*s", millis ? 23 : secs ? 19 : 16, t);
}

/* A row's partition folder, "a=V1/b=V2" (fs_partitions above): its
 * length, as snprintf; the file sink's bucket function. */
static int fs_bucket(const void *row, int64_t ts, char *buf, size_t size, void *arg)
{
    (void)ts;
    const fs_partitions *p = arg;
    size_t at = 0;
    for (int k = 0; k < p->n; k++) {
        int c = p->cols[k];
        if (k)
            put_text(buf, size, &at, "/", 1);
        put_text(buf, size, &at, p->names[k], strlen(p->names[k]));
        char v[64];
        const char *text = v;
        uint32_t len = 0;
        if (!weir_row_is_null(p->schema, row, c)) {
            switch (weir_schema_column_type(p->schema, c).id) {
            case WEIR_TYPE_BOOLEAN:
                len = (uint32_t)snprintf(v, sizeof v, "%s",
                                         weir_row_get_bool(p->schema, row, c) ? "true" : "false");
                break;
            case WEIR_TYPE_DOUBLE:
                len = (uint32_t)java_double(weir_row_get_double(p->schema, row, c), v, sizeof v);
                break;
            case WEIR_TYPE_VARCHAR:
            case WEIR_TYPE_CHAR:
                text = weir_row_get_string(p->schema, row, c, &len);
                break;
            case WEIR_TYPE_TIMESTAMP:
            case WEIR_TYPE_TIMESTAMP_LTZ:
                len = (uint32_t)java_timestamp(weir_row_get_int(p->schema, row, c), v, sizeof v);
                break;
            default:
                len = (uint32_t)snprintf(v, sizeof v, "%" PRId64,
                                         weir_row_get_int(p->schema, row, c));
                break;
            }
        }
        if (len == 0) /* NULL or '': the default partition, as in Flink */
            put_text(buf, size, &at, p->default_name, strlen(p->default_name));
        else
            put_escaped(buf, size, &at, text, len);
    }
    if (size)
        buf[at < size ? at : size - 1] = '\0';
    return at > INT32_MAX ? -1 : (int)at;
}

/* The key a row is shuffled by: a hash of its partition values (rows of
 * one partition go to one sink subtask). */
static void fs_partition_key(const void *row, void *key, void *arg)
{
    const fs_partitions *p = arg;
    uint64_t h = 1469598103934665603u; /* FNV-1a */
    for (int k = 0; k < p->n; k++) {
        int c = p->cols[k];
        unsigned char b[8];
        const unsigned char *bytes = b;
        size_t n = 1;
        if (weir_row_is_null(p->schema, row, c)) {
            // cppcheck-suppress unreadVariable ; read below through `bytes`, which points at b
            b[0] = 0;
        } else {
            switch (weir_schema_column_type(p->schema, c).id) {
            case WEIR_TYPE_VARCHAR:
            case WEIR_TYPE_CHAR: {
                uint32_t len = 0;
                bytes = (const unsigned char *)weir_row_get_string(p->schema, row, c, &len);
                n = len;
                break;
            }
            case WEIR_TYPE_DOUBLE: {
                double d = weir_row_get_double(p->schema, row, c);
                memcpy(b, &d, sizeof d);
                n = sizeof d;
                break;
            }
            case WEIR_TYPE_BOOLEAN:
                // cppcheck-suppress unreadVariable ; read below through `bytes`, which points at b
                b[0] = weir_row_get_bool(p->schema, row, c) ? 2 : 1;
                break;
            default: {
                int64_t v = weir_row_get_int(p->schema, row, c);
                memcpy(b, &v, sizeof v);
                n = sizeof v;
                break;
            }
            }
        }
        for (size_t i = 0; i < n; i++) {
            h ^= bytes[i];
            h *= 1099511628211u;
        }
        h ^= 0xff; /* between values */
        h *= 1099511628211u;
    }
    memcpy(key, &h, sizeof h);
}

static void free_table(void *state)
{
    fs_table *t = state;
    if (!t)
        return;
    for (fs_partitions *p = t->sinks, *next; p; p = next) {
        next = p->next;
        free(p);
    }
    free(t->data_cols);
    free(t);
}

/* PARTITIONED BY and the options of partitions. */
static int fs_partition_options(weir_connector_context *c, fs_table *t)
{
    const weir_schema *schema = weir_connector_schema(c);
    int ncols = weir_schema_ncolumns(schema);
    t->npart = weir_connector_partition_key_count(c);
    if (t->npart > FS_MAX_PARTITION_KEYS)
        return weir_connector_fail(c, NULL, "%d partition columns: at most %d", t->npart,
                                   FS_MAX_PARTITION_KEYS);
    if (!(t->data_cols = calloc((size_t)ncols, sizeof *t->data_cols)))
        return WEIR_ENOMEM;
    for (int k = 0; k < t->npart; k++) {
        int col = weir_connector_partition_key(c, k);
        const char *name = weir_schema_column_name(schema, col);
        t->part_cols[k] = col;
        if (name[0] == '.' || name[0] == '_')
            return weir_connector_fail(c, NULL, "partition column '%s': its folders ('%s=...') "
                                       "would be hidden from every reader, which skips names "
                                       "starting with '_' or '.' (Flink's too): rename the "
                                       "column", name, name);
        if (strlen(name) > 60)
            return weir_connector_fail(c, NULL, "partition column '%s': a name of more than "
                                       "60 bytes, too long for its folders' names", name);
    }
    for (int col = 0; col < ncols; col++) {
        int k = 0;
        while (k < t->npart && t->part_cols[k] != col)
            k++;
        if (k == t->npart)
            t->data_cols[t->ndata++] = col;
    }
    if (t->npart && t->ndata == 0 && t->csv)
        return weir_connector_fail(c, NULL, "every column is a partition column: the CSV files' "
                                   "lines would be empty, and a reader skips empty lines (keep "
                                   "a column out of PARTITIONED BY, or write 'json')");
    const char *o = weir_connector_option(c, "partition.default-name");
    snprintf(t->default_name, sizeof t->default_name, "%s", o ? o : "__DEFAULT_PARTITION__");
    if (o && (!o[0] || strlen(o) > 100)) /* escaped, it fits fs_partitions' 512 bytes */
        return weir_connector_fail(c, "partition.default-name", "%s", !o[0]
                                   ? "Path should not be null or empty (the name of a partition "
                                     "folder's value)"
                                   : "longer than 100 bytes");
    bool success = false;
    if ((o = weir_connector_option(c, "sink.partition-commit.policy.kind"))) {
        /* a list: 'metastore,success-file' */
        for (const char *p = o; *p;) {
            while (*p == ' ' || *p == ',')
                p++;
            size_t n = strcspn(p, ",");
            while (n && p[n - 1] == ' ')
                n--;
            if (n == 12 && strncmp(p, "success-file", n) == 0)
                success = true;
            else if (n == 9 && strncmp(p, "metastore", n) == 0)
                return weir_connector_fail(c, "sink.partition-commit.policy.kind", "not "
                                           "supported: the 'metastore' policy (a Hive "
                                           "catalog's; a filesystem table's partitions are its "
                                           "folders)");
            else if (n == 6 && strncmp(p, "custom", n) == 0)
                return weir_connector_fail(c, "sink.partition-commit.policy.kind", "not "
                                           "supported: a 'custom' policy (a Java class)");
            else if (n)
                return weir_connector_fail(c, "sink.partition-commit.policy.kind",
                                           "Unsupported commit policy type: %.*s (weir's: "
                                           "'success-file')", (int)n, p);
            p += strcspn(p, ",");
        }
        if (!t->npart)
            return weir_connector_fail(c, "sink.partition-commit.policy.kind", "a partition "
                                       "commit policy needs PARTITIONED BY (Flink ignores it on "
                                       "a table without partitions)");
    }
    o = weir_connector_option(c, "sink.partition-commit.success-file.name");
    if (success) {
        snprintf(t->success_file, sizeof t->success_file, "%s", o ? o : "_SUCCESS");
        bool plain = o ? o[0] && o[0] != '.' && strlen(o) <= 200 : true;
        for (const char *p = o; plain && p && *p; p++)
            plain = isalnum((unsigned char)*p) || strchr("._-", *p);
        if (!plain)
            return weir_connector_fail(c, "sink.partition-commit.success-file.name", "expected "
                                       "a file's name: letters, digits, '.', '_' or '-', not "
                                       "starting with '.'");
    }
    static const char *const triggers[] = {"process-time", "partition-time", NULL};
    int trigger = 0;
    int err = weir_connector_option_choice(c, "sink.partition-commit.trigger", triggers,
                                           &trigger);
    if (err)
        return err;
    if (trigger == 1)
        return weir_connector_fail(c, "sink.partition-commit.trigger", "not supported: "
                                   "committing a partition when the watermark passes its time "
                                   "('process-time' commits it at every checkpoint that "
                                   "committed parts into it)");
    int64_t delay = 0;
    if ((err = weir_connector_option_duration(c, "sink.partition-commit.delay", &delay)))
        return err;
    if (delay > 0)
        return weir_connector_fail(c, "sink.partition-commit.delay", "not supported: a delay "
                                   "(a partition is committed at every checkpoint that "
                                   "committed parts into it)");
    bool shuffle = false;
    if ((err = weir_connector_option_bool(c, "sink.shuffle-by-partition.enable", &shuffle)))
        return err;
    t->shuffle = t->npart && (shuffle || success);
    return 0;
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
    if ((err = fs_partition_options(c, t)))
        return err;
    t->mode = mode;
    t->lookup_ttl_ms = 60 * 60 * 1000; /* Flink's default: 60 min */
    if ((err = weir_connector_option_duration(c, "lookup.join.cache.ttl", &t->lookup_ttl_ms)))
        return err;
    if (t->lookup_ttl_ms < 0)
        return weir_connector_fail(c, "lookup.join.cache.ttl", "must not be negative");
    return weir_connector_option_double(c, "scan.speed", 1e-6, 1e9, &t->speed);
}

/* A row whose every column is a partition column: "{}" (the JSON object of
 * no column), which the source reads back as a row of the folders' values. */
static int fs_empty_object(const void *row, int64_t ts, char *buf, size_t size, void *arg)
{
    (void)row;
    (void)ts;
    (void)arg;
    return snprintf(buf, size, "{}");
}

static weir_stream *fs_sink(void *state, const weir_schema *schema, weir_stream *rows,
                            const char *name, int parallelism)
{
    (void)name;
    (void)parallelism;
    fs_table *t = state;
    weir_file_sink_config fc = {
        .dir = t->path,
        .prefix = "part",
        .schema = schema,
        .csv = t->csv,
        .csv_delimiter = t->delimiter,
        .roll_bytes = t->roll_bytes,
    };
    if (t->npart) {
        /* this INSERT's rows: the table's columns, in its order */
        fs_partitions *p = calloc(1, sizeof *p);
        if (!p) {
            weir_job_record_error(weir_stream_job(rows), WEIR_ENOMEM, "out of memory");
            return NULL;
        }
        p->next = t->sinks;
        t->sinks = p;
        p->schema = schema;
        p->cols = t->part_cols;
        p->n = t->npart;
        for (int k = 0; k < p->n; k++) {
            const char *col = weir_schema_column_name(schema, p->cols[k]);
            size_t at = 0;
            put_escaped(p->names[k], sizeof p->names[k] - 2, &at, col, strlen(col));
            p->names[k][at] = '=';
            p->names[k][at + 1] = '\0';
        }
        size_t at = 0;
        put_escaped(p->default_name, sizeof p->default_name - 1, &at, t->default_name,
                    strlen(t->default_name));
        p->default_name[at] = '\0';
        fc.columns = t->ndata ? t->data_cols : NULL;
        fc.ncolumns = t->ndata;
        fc.bucket = fs_bucket;
        fc.bucket_arg = p;
        fc.success_file = t->success_file[0] ? t->success_file : NULL;
        if (t->shuffle) {
            weir_key_spec key = {.key_size = sizeof(uint64_t),
                                 .extract = fs_partition_key,
                                 .arg = p};
            rows = weir_stream_key_by(rows, &key);
        }
        if (!t->ndata) /* every column in the folders: "{}" a row (refused for CSV) */
            fc.columns = NULL, fc.format = fs_empty_object;
    }
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
        .partition_columns = t->part_cols,
        .npartition_columns = t->npart,
        .partition_default_name = t->default_name,
    };
    return weir_source_file(job, schema, &fc);
}

/* The table read whole by a lookup join (file_lookup.c), reloaded every
 * 'lookup.join.cache.ttl' (Flink's FileSystemLookupFunction; 0: never).
 * An insert-only table that is not partitioned. */
static int fs_lookup(void *state, const weir_schema *schema, weir_lookup_source *out, char *err,
                     size_t errsize)
{
    const fs_table *t = state;
    if (t->mode != WEIR_CHANGELOG_INSERT_ONLY || t->npart) {
        snprintf(err, errsize, "a lookup join reads an insert-only filesystem table that is "
                 "not partitioned ('changelog-mode' = 'insert-only', no PARTITIONED BY)");
        return WEIR_EINVAL;
    }
    int r = weir__fs_lookup_make(t->path, t->csv, t->delimiter, t->ignore_parse_errors, schema,
                                 out, err, errsize);
    if (r == 0)
        out->reload_ms = t->lookup_ttl_ms;
    return r;
}

static const weir_connector_factory filesystem_factory = {
    .version = WEIR_CONNECTOR_V3,
    .name = "filesystem",
    .options = "'path', 'format', 'json.ignore-parse-errors', 'csv.ignore-parse-errors', "
               "'csv.field-delimiter', 'changelog-mode', 'changelog.kind-field', 'scan.speed', "
               "'partition.default-name', 'sink.rolling-policy.file-size', "
               "'sink.shuffle-by-partition.enable', 'sink.partition-commit.policy.kind', "
               "'sink.partition-commit.success-file.name', 'sink.partition-commit.trigger', "
               "'sink.partition-commit.delay', 'lookup.join.cache.ttl'",
    .validate = fs_validate,
    .free_state = free_table,
    .source = fs_source,
    .sink = fs_sink,
    .lookup = fs_lookup,
};

int weir_file_register_connectors(void)
{
    return weir_connector_register(&filesystem_factory);
}
