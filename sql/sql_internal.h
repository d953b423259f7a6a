/* sql_internal.h — what the SQL session (sql_session.c), its settings
 * (sql_settings.c), its catalog (sql_catalog.c) and its planner
 * (sql_plan.c) share: the session's state and the planner's errors. */
#ifndef WEIR_SQL_SQL_INTERNAL_H
#define WEIR_SQL_SQL_INTERNAL_H

#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include <weir.h>
#include <weir/sql.h>
#include <weir/connector.h>

#include "sql_ast.h"
#include "sql_parser.h"

#define SQL_NAME_MAX 128
#define SQL_ERR_MAX 1024

/* The most WITH options of a table (a longer list is refused). */
#define SQL_MAX_OPTIONS 256

/* A name of the catalog: a table (with its schema and its connector's
 * factory) or a view (its query, planned anew in every job that reads it). */
typedef struct sql_relation {
    char name[SQL_NAME_MAX];
    bool view;
    sql_script *script;   /* the statements it was made by (the session keeps them) */
    const sql_stmt *stmt; /* CREATE TABLE / CREATE VIEW */
    /* tables */
    weir_schema *schema;
    const weir_connector_factory *factory;
    void *state;                     /* the factory's, from its validate */
    unsigned changelog_mode;         /* WEIR_CHANGELOG_*: how the source's rows come */
    unsigned sink_kinds;             /* the kinds its sink takes */
    int sink_parallelism;            /* 'sink.parallelism' (0: the job's) */
    int *partition_keys;             /* PARTITIONED BY: column indexes */
    int npartition_keys;
    struct sql_meta_col *meta;       /* its metadata columns, in column order */
    int nmeta;
    /* Computed columns (`name AS expr`): `declared` is the table as read,
     * every column in its declared order with its WATERMARK and
     * processing-time attribute (NULL: none computed; `schema` is then the
     * table). `schema` is what the connector reads and writes: the
     * physical and metadata columns. Per declared column, its column in
     * `schema` (from) or, for a computed one (-1), its expression's tree
     * (computed, in the script's arena). */
    weir_schema *declared;
    int *declared_from;
    const struct weir_ast **computed;
    /* 'scan.watermark.emit.strategy' and 'scan.watermark.idle-timeout' as
     * read (wm_options: either given) */
    bool wm_options, wm_on_event;
    int64_t wm_idle_ms;
    /* 'scan.watermark.alignment.*': the source's watermark alignment
     * (weir_source_align_watermarks) when align_set; group "" for none */
    bool align_set;
    char align_group[SQL_NAME_MAX];
    int64_t align_drift_ms, align_update_ms;
    /* The job its source was last opened in (sql_session's job_seq) and the
     * table it made there: every read of the table in one job shares the one
     * source (Flink's source reuse: a statement set reads each source once). */
    int open_job;
    weir_table *opened;
    /* How many sinks the current job writes into it (a second is named
     * NAME#2: a job's operator names are unique). */
    int sink_job, sinks;
} sql_relation;

/* A metadata column: `col TYPE METADATA [FROM 'key'] [VIRTUAL]`. */
typedef struct sql_meta_col {
    int col;
    const char *key; /* the script's arena keeps it */
    bool virtual_col;
    uint32_t at;     /* its key's place (FROM 'key', else METADATA) */
} sql_meta_col;

/* What a connector's factory sees of the table it makes (weir/connector.h):
 * the statement, its options (which were read), the relation. */
struct weir_connector_context {
    weir_sql_session *s;
    sql_script *sc;
    const sql_stmt *st;
    sql_relation *r;
    const sql_column_def *column; /* the column being made (the column hook) */
    bool partitions_read;         /* the factory asked for PARTITIONED BY's columns */
    bool used[SQL_MAX_OPTIONS];
};

/* The built-in connectors (sql_datagen.c, sql_sinks.c), registered by
 * sql_connectors_builtin, which every session calls when it is made. */
extern const weir_connector_factory sql_datagen_factory;
extern const weir_connector_factory sql_print_factory;
extern const weir_connector_factory sql_blackhole_factory;
void sql_connectors_builtin(void);

/* A factory's lists of metadata, NULL for a factory of V1. */
static inline const weir_connector_metadata *sql_read_metadata(const weir_connector_factory *f)
{
    return f->version >= WEIR_CONNECTOR_V2 ? f->read_metadata : NULL;
}

static inline const weir_connector_metadata *sql_write_metadata(const weir_connector_factory *f)
{
    return f->version >= WEIR_CONNECTOR_V2 ? f->write_metadata : NULL;
}

/* An INSERT into r: every metadata column it writes (not VIRTUAL) has a
 * key r's sink writes, of a type that goes into it. 0, or WEIR_EINVAL with
 * s->err (Flink's message, at `at`: the INSERT's table). */
int sql_catalog_check_write_metadata(weir_sql_session *s, const sql_script *sc, uint32_t at,
                                     const sql_relation *r);

/* A factory's source_watermarked, NULL for a factory of V1 (whose struct
 * ends before it: its members of V2 are never read). */
static inline weir_stream *(*sql_source_watermarked(const weir_connector_factory *f))(
    void *, const weir_schema *, weir_job *, const char *, const weir_watermark_strategy *)
{
    return f->version >= WEIR_CONNECTOR_V2 ? f->source_watermarked : NULL;
}

/* A factory's lookup, NULL for a factory before V3. */
static inline int (*sql_lookup(const weir_connector_factory *f))(
    void *, const weir_schema *, struct weir_lookup_source *, char *, size_t)
{
    return f->version >= WEIR_CONNECTOR_V3 ? f->lookup : NULL;
}

/* A place in a script: a statement's, for an error found later. */
typedef struct sql_place {
    const sql_script *sc; /* NULL: none */
    const sql_stmt *st;
} sql_place;

struct weir_sql_session {
    weir_sql_config cfg;
    char base_dir[4096];
    char capture_path[4096];
    char err[SQL_ERR_MAX];
    sql_relation **rels;
    int nrels;
    sql_script **scripts;
    int nscripts;
    /* SET */
    int parallelism;
    uint32_t string_capacity;
    uint32_t collection_capacity; /* ARRAY and MAP columns (0: the default) */
    const weir_time_zone *zone; /* 'table.local-time-zone' (NULL: UTC) */
    weir_diag_level capture_level;
    weir_clock_kind clock;
    int64_t watermark_interval_ms;
    int64_t source_idle_ms; /* 'table.exec.source.idle-timeout' (0: none) */
    int64_t state_ttl_ms;   /* 'table.exec.state.ttl' (0: none) */
    /* checkpoints (sql_settings.c): each query's job checkpoints into
     * checkpoint_dir every checkpoint_interval_ms (0: never by time) and
     * restores from savepoint_path ("": starts empty) */
    int64_t checkpoint_interval_ms;
    weir_checkpoint_mode checkpoint_mode;
    char checkpoint_dir[4096];
    char savepoint_path[4096];
    bool clock_set;                  /* 'weir.clock' was SET */
    /* What the settings start from (the config's capture and restore
     * folder): RESET goes back to them. */
    char default_capture[4096];
    char default_savepoint[4096];
    /* The SETs in force, each key's last (SET alone lists them; RESET
     * drops some and replays the others onto the defaults). */
    sql_place *sets;
    int nsets, sets_cap;
    /* those SETs, where a query refuses them */
    sql_place interval_at, clock_at, savepoint_at;
    int jobs; /* queries run (for the capture's name) */
    bool run_failed; /* the last error came from weir_job_run */
    int job_seq;     /* jobs made, for sql_relation.open_job */
    int values_job, values_n; /* VALUES sources of job values_job (their names) */
    /* The env a session made by weir_table_env_execute_sql plans into (its
     * job is the program's, never run here); NULL for weir_sql_session's
     * own sessions, which make a job and an env for each statement. */
    weir_table_env *env;
    /* weir_sql_cancel: set from any thread or a signal handler; the job
     * running (NULL when none) is cancelled with it. */
    atomic_bool cancelled;
    _Atomic(weir_job *) running;
};

/* Whether weir_sql_cancel was called: the planner checks it at each table
 * or view it reads, the session before each statement. */
static inline bool sql_cancelled(weir_sql_session *s)
{
    return atomic_load_explicit(&s->cancelled, memory_order_relaxed);
}

/* "line L, column C: what" for byte `offset` of the script into s->err
 * (sc NULL: "what" alone, an error of no statement); returns NULL (for
 * planner functions) after setting it. */
void *sql_fail(weir_sql_session *s, const sql_script *sc, uint32_t offset, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
void *sql_vfail(weir_sql_session *s, const sql_script *sc, uint32_t offset, const char *fmt,
                va_list ap) __attribute__((format(printf, 4, 0)));

/* The job's error without the name of the library function that recorded
 * it ("weir_table_group_by: ", "weir_source_file: "): a SQL user did not
 * call it. */
const char *sql_job_message(const weir_job *job);

/* The catalog's entry for `name` (case-sensitive), or NULL. */
sql_relation *sql_catalog_find(weir_sql_session *s, const char *name);
/* CREATE TABLE / CREATE VIEW into the catalog: 0, or WEIR_EINVAL /
 * WEIR_ENOMEM with s->err. */
int sql_catalog_create(weir_sql_session *s, sql_script *sc, const sql_stmt *st);
/* A catalog table as a table of `env`'s job (its source made anew). NULL
 * with s->err. */
weir_table *sql_catalog_open(weir_sql_session *s, weir_job *job, weir_table_env *env,
                             sql_relation *r,
                             const sql_script *sc, uint32_t at);
/* Frees a relation (its schema, its factory's state). */
void sql_catalog_free(sql_relation *r);
/* Whether the relation can be read (a table whose connector is a source,
 * or a view) or written (a table whose connector is a sink). */
bool sql_catalog_is_source(const sql_relation *r);
bool sql_catalog_is_sink(const sql_relation *r);
/* The connector's name ("print"). */
const char *sql_catalog_connector_name(const sql_relation *r);
/* The closest name to `name` within two edits among the catalog's and the
 * views of env (NULL allowed), or NULL. */
const char *sql_catalog_hint(weir_sql_session *s, const weir_table_env *env, const char *name);

/* Parses `text` into a script the session keeps (views made by it refer
 * to it): 0 and *out, or WEIR_E* with s->err. */
int sql_session_parse(weir_sql_session *s, const char *text, size_t len, sql_script **out);

/* A sink handing each row to fn (on its subtask's worker) that flushes
 * `out` (NULL: nothing to flush) at every checkpoint, so that the rows
 * before it are out when it completes (sql_sinks.c); a failed flush's
 * errno into *write_errno (may be NULL). NULL with the job's error. */
weir_stream *sql_print_sink(weir_stream *in, weir_sink_fn fn, void *arg, FILE *out,
                            int *write_errno);
/* Writes one printed row: `prefix`, the row in `style`, a line end, in one
 * fwrite (a subtask's line never mixes with another's). A row longer than
 * the line buffer (16 KiB) is written whole from a buffer of its size. 0,
 * WEIR_EINVAL, WEIR_ENOMEM, or WEIR_EIO with the errno in *write_errno (may
 * be NULL). */
int sql_print_line(FILE *out, const char *prefix, const weir_schema *schema, const void *row,
                   weir_row_style style, const weir_time_zone *zone, int *write_errno);

/* INSERT INTO (sql_insert.c): the query planned into env's job and written
 * into its table's sink. 0, or WEIR_E* with s->err. */
int sql_plan_insert(weir_sql_session *s, weir_job *job, weir_table_env *env, sql_script *sc,
                    const sql_stmt *st);
/* The table `name` an INSERT writes (a catalog table whose connector
 * writes), or NULL with s->err at byte `at` of sc (sc NULL: no place). */
sql_relation *sql_insert_sink(weir_sql_session *s, const sql_script *sc, uint32_t at,
                              const weir_table_env *env, const char *name);
/* A table of env's job written into r's sink (Flink's StatementSet.addInsert
 * of a Table): its columns by position, cast as an INSERT casts them. 0, or
 * WEIR_EINVAL with s->err (no place). */
int sql_insert_table(weir_sql_session *s, weir_job *job, weir_table_env *env, sql_relation *r,
                     weir_table *t);

/* The settings a session starts with that its config gives (the folder
 * to restore from): 0, or WEIR_EINVAL (a path too long). */
int sql_settings_init(weir_sql_session *s);
/* SET 'key' = 'value' into the session's settings (sql_settings.c): 0, or
 * WEIR_EINVAL with s->err (an unknown key, a bad value). SET alone lists
 * the settings in force (key and value, as SHOW's tables: sql_show.c). */
int sql_settings_set(weir_sql_session *s, const sql_script *sc, const sql_stmt *st);
/* RESET 'key' (st->set_key; NULL: every key): back to the session's
 * defaults. 0, or WEIR_EINVAL with s->err (a key never SET is not an
 * error: Flink's RESET of it does nothing either). */
int sql_settings_reset(weir_sql_session *s, const sql_script *sc, const sql_stmt *st);
/* The SETs in force, sorted by key (the session keeps the strings). */
void sql_settings_free(weir_sql_session *s);

/* SHOW and DESCRIBE (sql_show.c): the table printed to the session's out
 * as Flink's TableResult.print() does. 0, or WEIR_E* with s->err. */
int sql_show(weir_sql_session *s, sql_script *sc, const sql_stmt *st);
int sql_describe(weir_sql_session *s, sql_script *sc, const sql_stmt *st);
/* `nrows` rows of `ncols` cells (row-major) under `headers` as Flink's
 * tableau (right-aligned, "N rows in set"; "Empty set" without rows). 0,
 * or WEIR_EIO with s->err. */
int sql_print_tableau(weir_sql_session *s, int ncols, const char *const *headers,
                      const char *const *cells, int nrows);
/* The configuration of a query's job as the session's settings say (its
 * capture aside, which the session names): 0, or WEIR_EINVAL with s->err
 * for settings that do not go together (checkpoints without a folder, or
 * on the virtual clock), said at the SET that asked for them. The strings
 * it points to are the session's. */
int sql_settings_job_config(weir_sql_session *s, weir_job_config *jc);

/* The planner: a query as a table of env's job. NULL with s->err. */
weir_table *sql_plan_query(weir_sql_session *s, weir_job *job, weir_table_env *env,
                           sql_script *sc,
                           const sql_query *q);

#endif
