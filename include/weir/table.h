/* weir/table.h — tables and changelogs: Flink's Table bridge in C.
 *
 * A table is a stream of rows (weir/row.h) with a schema, an optional
 * rowtime column (the rows' record timestamp) and a changelog mode: the set
 * of row kinds it may carry (+I, -U, +U, -D). Tables are built in a table
 * environment over a job (Flink's StreamTableEnvironment): a stream becomes
 * a table (weir_table_from_stream, weir_table_from_changelog_stream),
 * relational operators make new tables (select, where, group_by,
 * window_aggregate), and a table becomes a stream again (weir_table_to_stream,
 * weir_table_to_changelog_stream, and into the user's own structs:
 * weir_table_to_stream_as). Every table node is planned at once into
 * ordinary operators of the job (weir_stream_process): the same channels,
 * valves, chaining and diagnostics as every other operator, named as Flink
 * names them ("Calc(select=...)", "GroupAggregate(user_id)",
 * "ChangelogNormalize(id)", "WindowAggregate(TUMBLE(size=1000), user_id)"),
 * with their changelog mode in the capture's job event
 * (settings.changelog_mode).
 *
 * The planner knows each node's changelog mode (Flink's EXPLAIN
 * CHANGELOG_MODE; weir_table_explain prints it) and refuses at plan time —
 * when the node is made — what Flink refuses: an updating table into an
 * insert-only stream (naming the node that produces the updates), a window
 * aggregate over an updating table, an upsert conversion without a unique
 * key. SEMANTICS.md 9 holds the rules; docs/TABLES.md explains the model.
 *
 * Errors follow weir/stream.h: a builder returns NULL after recording why in
 * the job (weir_job_error), and given a NULL table returns NULL at once.
 *
 * Threads and lifetimes: build on the job's thread, before weir_job_run.
 * The environment owns every table node, schema and compiled expression its
 * operators read; it must outlive the job's run: destroy it after
 * weir_job_run returned (before or after weir_job_destroy).
 */
#ifndef WEIR_TABLE_H
#define WEIR_TABLE_H

#include <stddef.h>
#include <stdint.h>

#include "weir/export.h"
#include "weir/expr.h"
#include "weir/job.h"
#include "weir/row.h"
#include "weir/time_zone.h"
#include "weir/stream.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Changelog modes: sets of row kinds (bit 1 << weir_row_kind). */
#define WEIR_CHANGELOG_KIND(k) (1u << (k))
#define WEIR_CHANGELOG_INSERT_ONLY WEIR_CHANGELOG_KIND(WEIR_ROW_INSERT)
#define WEIR_CHANGELOG_RETRACT                                                         \
    (WEIR_CHANGELOG_KIND(WEIR_ROW_INSERT) | WEIR_CHANGELOG_KIND(WEIR_ROW_UPDATE_BEFORE) | \
     WEIR_CHANGELOG_KIND(WEIR_ROW_UPDATE_AFTER) | WEIR_CHANGELOG_KIND(WEIR_ROW_DELETE))
#define WEIR_CHANGELOG_ALL WEIR_CHANGELOG_RETRACT
#define WEIR_CHANGELOG_UPSERT                                                          \
    (WEIR_CHANGELOG_KIND(WEIR_ROW_INSERT) | WEIR_CHANGELOG_KIND(WEIR_ROW_UPDATE_AFTER) | \
     WEIR_CHANGELOG_KIND(WEIR_ROW_DELETE))

/* "[I]", "[I,UB,UA]", "[I,UA,D]", "[I,UB,UA,D]" (Flink's EXPLAIN names). */
WEIR_EXPORT int weir_changelog_mode_format(unsigned mode, char *buf, size_t size);

typedef struct weir_table_env weir_table_env;
typedef struct weir_table weir_table;

typedef struct weir_table_config {
    /* The capacity of STRING in derived tables (CAST(x AS STRING)); 0:
     * WEIR_STRING_DEFAULT_CAPACITY. */
    uint32_t string_capacity;
    /* Parallelism of the table operators; 0: the job's default. Global
     * aggregates (no GROUP BY keys) always run at parallelism 1. */
    int parallelism;
    /* Flink's 'table.exec.source.idle-timeout': the idle timeout (ms of
     * processing time) of a table source whose schema's watermark
     * expression has none of its own (weir_schema_watermark_emit, Flink's
     * 'scan.watermark.idle-timeout'); 0: none. */
    int64_t source_idle_timeout_ms;
    /* Flink's 'table.local-time-zone': the zone in which TIMESTAMP_LTZ
     * values meet local date-times (casts between TIMESTAMP_LTZ and
     * TIMESTAMP, DATE, TIME or a string; comparisons); NULL: UTC
     * (weir/time_zone.h; a zone lives as long as the process). */
    const weir_time_zone *time_zone;
    /* Flink's 'table.exec.state.ttl': the state of a regular join's rows and
     * of a group aggregate's groups not written for this long (ms of the job
     * clock, processing time) is dropped (StateTtlConfig OnCreateAndWrite,
     * NeverReturnExpired): a join row no longer meets partners, a group
     * starts again from its next row (+I); 0: kept forever. */
    int64_t state_ttl_ms;
} weir_table_config;

/* A table environment over `job` (borrowed: it must outlive the env's use).
 * `config` may be NULL. 0 and *out, or WEIR_EINVAL (a value out of range) /
 * WEIR_ENOMEM. */
WEIR_EXPORT int weir_table_env_create(weir_job *job, const weir_table_config *config,
                                      weir_table_env **out);
/* Frees every node of the env. After weir_job_run returned. NULL allowed. */
WEIR_EXPORT void weir_table_env_destroy(weir_table_env *env);
/* How many table nodes (each an operator of the job) env has made so far:
 * the size of its plans, which a planner may bound. */
WEIR_EXPORT size_t weir_table_env_node_count(const weir_table_env *env);

/* The job and the configuration the env was made with. */
WEIR_EXPORT weir_job *weir_table_env_job(const weir_table_env *env);
WEIR_EXPORT const weir_table_config *weir_table_env_config(const weir_table_env *env);

/* ---- temporary views (Flink's createTemporaryView / from) -----------------------
 * A table of the env registered under a name, which SQL run in the env reads
 * (weir/sql.h: weir_table_env_sql_query) and weir_table_env_from gives back.
 * Every read shares the one table (its operators run once, their rows go to
 * every reader). Names are case-sensitive, 1 to 127 bytes, and unique in the
 * env among views and SQL's tables. */

/* 0, or WEIR_EINVAL (no name, a name taken, a table of another env or NULL:
 * weir_job_error says which) or WEIR_ENOMEM. */
WEIR_EXPORT int weir_table_env_create_temporary_view(weir_table_env *env, const char *name,
                                                     weir_table *t);
/* A stream with a schema as a view: weir_table_from_stream, then the view
 * (Flink's createTemporaryView(path, dataStream, schema)). */
WEIR_EXPORT int weir_table_env_create_temporary_view_from_stream(weir_table_env *env,
                                                                 const char *name,
                                                                 weir_stream *s,
                                                                 const weir_schema *schema);
/* The view named `name`, or NULL with weir_job_error "no view named ...". */
WEIR_EXPORT weir_table *weir_table_env_from(weir_table_env *env, const char *name);
/* The same without recording an error (NULL: none), and the views in the
 * order registered. */
WEIR_EXPORT weir_table *weir_table_env_view(const weir_table_env *env, const char *name);
WEIR_EXPORT int weir_table_env_view_count(const weir_table_env *env);
WEIR_EXPORT const char *weir_table_env_view_name(const weir_table_env *env, int i);

/* For the SQL layer (weir/sql.h) only: the state it keeps for the env (its
 * catalog and settings), freed with the env by free_fn. Not a stable API. */
WEIR_EXPORT void *weir_table_env_sql_state(const weir_table_env *env);
WEIR_EXPORT void weir_table_env_set_sql_state(weir_table_env *env, void *state,
                                              void (*free_fn)(void *));

/* ---- streams into tables -------------------------------------------------------
 * `schema` is copied. The stream's elements are rows of the schema, or, for
 * a schema bound to a struct, those structs (converted into rows; a string
 * longer than its column fails the job naming the table, column and
 * length): Flink's fromDataStream of a POJO, whose schema comes from the
 * class, is weir_table_from_stream with weir_schema_from_struct's schema,
 * taken from the struct's description (weir/row.h). A schema with a rowtime makes the rowtime column the record
 * timestamp; with a watermark expression the table makes its own watermarks
 * from it (periodic, the job's interval; upstream ones other than MAX are
 * swallowed, as Flink's), with SOURCE_WATERMARK() the stream's own pass, and
 * with weir_schema_watermark_in_source the stream's (its source ran the
 * expression) pass too. */

/* The strategy of a schema built with weir_schema_watermark_in_source
 * (weir/row.h), for the source to run per partition: each instance keeps
 * the largest value of the WATERMARK expression over the rows it sees (the
 * source's elements, rows of s), emitted periodically or after each row
 * that raises it, and idle after the timeout, as weir_schema_watermark_emit
 * says. Its arg is s, so it is valid while s is. 0 and *out, or WEIR_EINVAL
 * for a schema without such a watermark. */
WEIR_EXPORT int weir_schema_watermark_strategy(const weir_schema *s,
                                               weir_watermark_strategy *out);

/* An insert-only table: every element must be an INSERT (+I). */
WEIR_EXPORT weir_table *weir_table_from_stream(weir_table_env *env, weir_stream *s,
                                               const weir_schema *schema);

/* A changelog stream: each element carries its row kind (the row header, or
 * the bound struct's kind field). mode: WEIR_CHANGELOG_INSERT_ONLY,
 * WEIR_CHANGELOG_UPSERT (needs the schema's primary key; no -U; a -D may
 * carry the key only) or WEIR_CHANGELOG_ALL. A row of a kind outside the
 * mode fails the job with a message naming it. */
WEIR_EXPORT weir_table *weir_table_from_changelog_stream(weir_table_env *env, weir_stream *s,
                                                         const weir_schema *schema,
                                                         unsigned mode);

/* ---- tables into streams ------------------------------------------------------
 * The stream's elements are rows of weir_table_schema(t); the record
 * timestamp is the rowtime (or what the rows carried), and watermarks pass
 * unchanged. */

/* Insert-only: a table that may carry updates is refused (plan time):
 * "... doesn't support consuming update changes which is produced by node
 * GroupAggregate(user_id)". */
WEIR_EXPORT weir_stream *weir_table_to_stream(weir_table *t);

/* mode:
 * - WEIR_CHANGELOG_ALL: a retracting changelog, Flink's toChangelogStream(t)
 *   and toChangelogStream(t, schema, ChangelogMode.all()): an upsert table
 *   goes through weir_table_normalize first (its -U rows made, a -D carrying
 *   the whole last row);
 * - WEIR_CHANGELOG_UPSERT: drops -U; needs a unique key (a primary key, or
 *   the keys of a group aggregate), refused without one;
 * - WEIR_CHANGELOG_INSERT_ONLY: as weir_table_to_stream;
 * - WEIR_CHANGELOG_AS_PRODUCED (0): weir_table_stream(t) itself, no node
 *   added: exactly the kinds weir_table_changelog_mode(t) says, as t's node
 *   emits them. For a retracting table that is what WEIR_CHANGELOG_ALL
 *   gives; for an upsert table (weir_table_from_changelog_stream(...,
 *   WEIR_CHANGELOG_UPSERT), or a Calc over one) it is +I / +U / -D without
 *   -U, applied by its unique key, and a -D may carry only the key. Flink
 *   has no such mode (its toChangelogStream without a mode asks for -U and
 *   normalizes); weir's SQL results and tests read it to see what a node
 *   itself emits.
 * Any other mode is refused. */
#define WEIR_CHANGELOG_AS_PRODUCED 0u
WEIR_EXPORT weir_stream *weir_table_to_changelog_stream(weir_table *t, unsigned mode);

/* ---- tables into the user's structs (or rows of a schema of one's own) ----------
 * Flink's toDataStream(table, Class) and toChangelogStream(table, Schema,
 * ChangelogMode). `target` (borrowed for the call; its plan is copied) is
 * the schema of the elements wanted: bound to a struct (weir_schema_from_struct,
 * weir_schema_bind_struct), the stream's elements are those structs, zeroed,
 * then each field written; not bound, they are rows of target's layout.
 *
 * Columns match by name, in any order (Flink reorders a POJO's fields by
 * name): every column of t must have a column of target and the other way
 * round, else refused naming the column. Types are checked at plan time and
 * converted as Flink's implicit casts into a sink: the same type; INT into
 * BIGINT or DOUBLE, BIGINT into DOUBLE; any string into any string (CHAR
 * pads with spaces); TIMESTAMP(3) and TIMESTAMP_LTZ(3) into each other. Any
 * other pair is refused: "weir_table_to_stream_as: column types of table
 * Calc(...) and clicks do not match: column 'n' is VARCHAR(5) in the table,
 * INT in clicks". Nullability is not checked at plan time but for each row,
 * as Flink's sink NOT NULL enforcer: a NULL into a struct field (which
 * cannot be NULL) or into a NOT NULL column of target fails the job:
 * "... table T: column 'n' is NOT NULL in clicks, however, a null value is
 * being written into it". A string longer than its destination (the column's
 * capacity, and a struct's char array) fails the job naming the column and
 * the length. A target's rowtime metadata column (weir_schema_rowtime_metadata)
 * is Flink's "rowtime" sink metadata: t's column of that name (a TIMESTAMP(3)
 * or TIMESTAMP_LTZ(3)) becomes each record's timestamp, and has no struct
 * field; otherwise the record timestamp is t's, as weir_table_to_stream's.
 * The conversion is one operator, "TableToDataStream(target)", chained to
 * t's; per row it writes the element in place, nothing allocated. */

/* Insert-only (toDataStream): an updating t is refused as weir_table_to_stream
 * refuses it. */
WEIR_EXPORT weir_stream *weir_table_to_stream_as(weir_table *t, const weir_schema *target);

/* A changelog (toChangelogStream(table, Schema, ChangelogMode)), mode as
 * weir_table_to_changelog_stream's (WEIR_CHANGELOG_AS_PRODUCED included).
 * A bound target whose elements may carry kinds other than +I needs a row
 * kind field (WEIR_STRUCT_KIND, weir_schema_kind_at), else refused.
 * target's primary key is the upsert key (Flink's Schema.primaryKey): when t
 * may carry updates it must be t's unique key, the same columns in any
 * order — a superset would leave a changed key's old row behind, which
 * Flink's planner repairs with a SinkUpsertMaterializer that weir does not
 * have — and otherwise is refused naming both; without a primary key the
 * upsert key is t's unique key, as weir_table_to_changelog_stream's. */
WEIR_EXPORT weir_stream *weir_table_to_changelog_stream_as(weir_table *t,
                                                           const weir_schema *target,
                                                           unsigned mode);

/* Flink's ChangelogNormalize, on demand: an upsert table (updates without
 * -U) becomes a retracting one on its unique key — the first row of a key
 * +I, a changed row -U old / +U new, a row equal to the last one dropped, a
 * -D with the whole last row, a -D of a key never seen dropped. Any other
 * table is returned as it is. */
WEIR_EXPORT weir_table *weir_table_normalize(weir_table *t);

/* ---- relational operators -------------------------------------------------------
 * Lists are comma-separated expressions of weir/expr.h; select items take
 * "AS name" (unnamed items are EXPR$0, EXPR$1, ... as in Flink). */

/* Projection (Flink's Calc): each row's kind is kept. */
WEIR_EXPORT weir_table *weir_table_select(weir_table *t, const char *items);
/* Filter (Calc): keeps a row iff the predicate is TRUE (not FALSE, not
 * NULL), whatever its kind: over a changelog it may pass a +U whose -U it
 * dropped, as Flink's does. */
WEIR_EXPORT weir_table *weir_table_where(weir_table *t, const char *predicate);

/* As weir_table_select and weir_table_where, with the expressions compiled
 * already against t's schema (weir_expr_compile_item, or weir_expr_bind
 * of weir/expr_ast.h) and taken over: destroyed with the plan, or at once
 * when the call fails. An item is named by its alias, else EXPR$i. */
WEIR_EXPORT weir_table *weir_table_select_exprs(weir_table *t, weir_expr **items, int n);
WEIR_EXPORT weir_table *weir_table_where_expr(weir_table *t, weir_expr *predicate);
/* Flink's Calc of both: the rows `predicate` keeps (as weir_table_where),
 * projected by the items (as weir_table_select_exprs), in one operator
 * (the kept row is not copied between them), shown as
 * Calc(select=[...], where=[...]). All compiled against t's schema and
 * taken over; a NULL predicate: weir_table_select_exprs. */
WEIR_EXPORT weir_table *weir_table_calc_exprs(weir_table *t, weir_expr *predicate,
                                              weir_expr **items, int n);

/* UNNEST (Flink's Correlate over $UNNEST_ROWS$1): each row of t joined
 * with the rows of the ARRAY or MAP `collection` (compiled against t's
 * schema, taken over as weir_table_where_expr takes its predicate) gives
 * it. The output is t's columns, then the collection's: an ARRAY's element
 * (EXPR$0; a ROW element's fields, each a column), a MAP's KEY and VALUE,
 * then with_ordinality the element's 1-based ORDINALITY (INT); `names`
 * (nnames of them, or 0 to keep these) renames the collection's columns.
 * An empty or NULL collection gives no row, or with left_outer the row
 * once with those columns NULL (LEFT JOIN UNNEST(...) ON TRUE). Each row
 * out keeps its input's kind and timestamp: the changelog mode and the
 * rowtime pass through. */
WEIR_EXPORT weir_table *weir_table_unnest_expr(weir_table *t, weir_expr *collection,
                                               const char *const *names, int nnames,
                                               bool with_ordinality, bool left_outer);
/* The schema of an UNNEST node's own columns (the collection's, after t's
 * input columns), for a scope that names them by the UNNEST's alias; NULL
 * for another node. Lives as long as the plan. */
WEIR_EXPORT const weir_schema *weir_table_unnest_columns(const weir_table *t);

/* Group aggregate: `keys` is a list of columns ("" or NULL: one global
 * group); `items` lists key columns and aggregate calls (COUNT(*), COUNT(x),
 * COUNT(DISTINCT x), SUM, MIN, MAX, AVG), in the output's order. Changelog
 * semantics of Flink's GroupAggFunction (SEMANTICS.md 9): +I for a group's
 * first row, then -U old / +U new, nothing when the result is unchanged;
 * over an updating input -U/-D rows retract (MIN/MAX and DISTINCT keep a
 * count per value, so retraction is exact) and a group whose row count
 * reaches 0 emits -D and is forgotten. An upsert input first goes through a
 * ChangelogNormalize node on its unique key. */
WEIR_EXPORT weir_table *weir_table_group_by(weir_table *t, const char *keys, const char *items);
/* As weir_table_group_by, with the items compiled already against t's
 * schema (aggregate calls allowed at the top) and taken over, as
 * weir_table_select_exprs takes them. */
WEIR_EXPORT weir_table *weir_table_group_by_exprs(weir_table *t, const char *keys,
                                                  weir_expr **items, int n);

/* UNION ALL (Flink's Union(all=[true])): the rows of `n` >= 2 tables of one
 * environment, as they come (each input's rows keep their order), with
 * their kinds. The columns line up by position and must have the same
 * types (capacities too: CAST one side otherwise); the names are the first
 * table's, and a column is NOT NULL only if it is in every input. The
 * changelog mode is the union of the inputs'; the rowtime is kept if every
 * input has it at the same column. No operator of its own: the consumer
 * reads every input's channels through one valve (weir_stream_union), so
 * their watermarks merge as at any shuffle. `tables` is read during the
 * call only. */
WEIR_EXPORT weir_table *weir_table_union_all(weir_table *const *tables, int n);

/* ---- joins -----------------------------------------------------------------------
 * Flink's joins of two tables of one environment (SEMANTICS.md 10), planned
 * onto one keyed two-input operator. `condition` is an expression over both
 * tables' columns, a column named alone where only one side has it, or
 * qualified by its table's name (weir_table_join: each schema's table name;
 * weir_table_join_as: the names given, as SQL's aliases). Its equalities
 * between a column of each side are the join key (at least one, else
 * refused: "Invalid join condition: ... At least one equi-join predicate is
 * required."); the rest is checked on each pair of rows with equal keys.
 * The output holds the left's columns then the right's (a name the left
 * has already made unique as Flink does: id, id0), an outer side's other
 * side nullable.
 *
 * A regular join (node "Join(joinType=[InnerJoin], where=[...])") keeps
 * every row of both sides (one row a unique key on a side that has one)
 * and emits Flink's StreamingJoinOperator changelog: insert-only for an
 * INNER join of insert-only tables, else retracting ([I,UB,UA,D]); its
 * output has no rowtime (the inputs' become plain timestamps). An upsert
 * input is normalized first (weir_table_normalize).
 *
 * When both tables are insert-only with rowtimes and the condition bounds
 * the left rowtime by the right one on both sides (l.ts BETWEEN r.ts -
 * INTERVAL '1' MINUTE AND r.ts + INTERVAL '1' MINUTE, or a pair of <, <=,
 * >=, >, or l.ts = r.ts), it is an interval join (node "IntervalJoin(...)",
 * Flink's RowTimeIntervalJoin): each pair within the bounds once, a row
 * kept until the watermark shows no partner can still come, an outer
 * side's row that met none padded once when it goes; insert-only; both
 * rowtimes stay time attributes (the left's is the records' timestamp);
 * the watermark is held back by the larger of the two sides' relative
 * window sizes. */
typedef enum weir_join_kind {
    WEIR_JOIN_INNER = 1,
    WEIR_JOIN_LEFT,  /* LEFT OUTER */
    WEIR_JOIN_RIGHT, /* RIGHT OUTER */
    WEIR_JOIN_FULL,  /* FULL OUTER */
    /* Flink's LeftSemiJoin / LeftAntiJoin (StreamingSemiAntiJoinOperator),
     * as SQL's [NOT] IN and [NOT] EXISTS subqueries plan them: each left row
     * while it has at least one partner (SEMI) / none (ANTI), the left's
     * columns only; the output changes as partners come and go (a SEMI join
     * of insert-only tables is insert-only, else [I,UB,UA,D]). The
     * condition may hold no equality (then every row meets in one key, as
     * Flink's NOT IN). */
    WEIR_JOIN_SEMI,
    WEIR_JOIN_ANTI
} weir_join_kind;

WEIR_EXPORT weir_table *weir_table_join(weir_table *left, weir_table *right,
                                        weir_join_kind kind, const char *condition);
WEIR_EXPORT weir_table *weir_table_join_as(weir_table *left, const char *left_name,
                                           weir_table *right, const char *right_name,
                                           weir_join_kind kind, const char *condition);

/* A time to live for each side's state of the regular join `join` (Flink's
 * STATE_TTL query hint, SQL's STATE_TTL('o' = '1d', 'c' = '12 h') in a hint
 * comment after SELECT):
 * left_ms for the left's rows, right_ms for the right's, in place of the
 * env's state_ttl_ms (weir_table_config, 'table.exec.state.ttl') for that
 * side; 0 leaves a side as it was. The same expiry as the env's: a row's
 * entry not written for the time (processing time) is dropped. Before the
 * job runs. 0, or WEIR_EINVAL with the env's error for a table that is not
 * a regular join (an interval, temporal, window or lookup join cleans its
 * state by time, as Flink's ignore the hint) or a negative time. */
WEIR_EXPORT int weir_table_join_state_ttl(weir_table *join, int64_t left_ms, int64_t right_ms);

/* The same with the condition a syntax tree (weir/expr_ast.h, parsed from
 * `text`, which messages quote; NULL: the tree formatted), as SQL plans
 * it. left_scope and right_scope name each side's columns: the tables a
 * side joins already, each with its qualifier and first column (NULL or no
 * inputs: the table's own columns, unqualified); at most 4 in all. Trees
 * made while planning go into *arena. *err_at (may be NULL) gets the byte
 * of text where a binding error is; *out_scope (may be NULL) the output's
 * scope, in which what reads the join binds its names. */
struct weir_ast;
struct weir_ast_arena;
struct weir_expr_scope;
WEIR_EXPORT weir_table *weir_table_join_tree(weir_table *left,
                                             const struct weir_expr_scope *left_scope,
                                             weir_table *right,
                                             const struct weir_expr_scope *right_scope,
                                             weir_join_kind kind, const struct weir_ast *condition,
                                             const char *text, struct weir_ast_arena **arena,
                                             size_t *err_at, struct weir_expr_scope *out_scope);

/* ---- lookup joins -----------------------------------------------------------
 * A lookup join (Flink's LookupJoin with the FULL cache, LookupFullCache,
 * and the filesystem's FileSystemLookupFunction): every row of `left`
 * looks up the rows of a table loaded whole into memory, SQL's `JOIN t FOR
 * SYSTEM_TIME AS OF l.proc AS s ON ...` (l.proc a processing-time
 * attribute). Each subtask of the join loads the table once, in its
 * open() (off the data path), into a hash index of its own by the lookup
 * key, and again every reload_ms of the job clock (a processing-time
 * timer; the reload happens between two rows, never per row). The
 * condition's equalities between a column of the table and an expression
 * of the left's columns only (l.a = s.k, MOD(l.auction, 10000) = s.key, a
 * constant) are the lookup key (at least one: "Temporal table join
 * requires an equality condition on fields of table [t]."); the rest
 * filters each row found. A row of the left meets every row of the table
 * with its key, in the table's order (two rows of one key: two joined
 * rows, as Flink's ALL cache keeps them); with WEIR_JOIN_LEFT a row that
 * meets none goes out padded with NULLs; RIGHT and FULL are refused
 * ("Correlate has invalid join type RIGHT"). The output holds the left's
 * columns then the table's (made unique as a join's), passes on each left
 * row's kind and timestamp, keeps the left's changelog mode and time
 * attributes, and its watermark passes through. Node: "LookupJoin(table=[t],
 * joinType=[InnerJoin], lookup=[k=expr], where=[...])". No keyed state:
 * a checkpoint holds nothing of it, a restore loads the table again. */

/* A row of the table being loaded (valid during the call): 0 goes on, a
 * negative WEIR_E* code stops the load with it. */
typedef int (*weir_lookup_row_fn)(const void *row, void *arg);

typedef struct weir_lookup_source {
    /* The table's name (EXPLAIN, messages, a qualifier in the condition). */
    const char *name;
    /* Its rows' schema (borrowed: it must outlive the job). */
    const weir_schema *schema;
    /* Required. Reads every row of the table, calling row(r, row_arg) for
     * each: 0, or a negative WEIR_E* code with what went wrong in err
     * ("data/x.csv:3: ..."). Runs on the join's subtasks' threads, several
     * at once (one per subtask), so it keeps no state outside its call but
     * what it only reads. */
    int (*load)(void *arg, weir_lookup_row_fn row, void *row_arg, char *err, size_t errsize);
    void *arg;
    /* Optional: frees arg, when the join's plan is freed (NULL: arg is
     * borrowed and outlives the job). */
    void (*arg_free)(void *arg);
    /* Reload every reload_ms of the job clock (0: never). */
    int64_t reload_ms;
} weir_lookup_source;

/* The lookup join of left with the table `source` describes (copied; its
 * arg is owned by the join from this call on when arg_free is set, freed
 * even if the call fails). `condition` names the table's columns as
 * `source->name` (or bare where the left has no such name). kind: INNER or
 * LEFT. NULL with the env's error. */
WEIR_EXPORT weir_table *weir_table_lookup_join(weir_table *left,
                                               const weir_lookup_source *source,
                                               weir_join_kind kind, const char *condition);
/* The same with the condition a syntax tree, as SQL plans it (see
 * weir_table_join_tree): left_scope names the left's columns, `qualifier`
 * the table's (NULL: source->name). */
WEIR_EXPORT weir_table *weir_table_lookup_join_tree(weir_table *left,
                                                    const struct weir_expr_scope *left_scope,
                                                    const weir_lookup_source *source,
                                                    const char *qualifier, weir_join_kind kind,
                                                    const struct weir_ast *condition,
                                                    const char *text,
                                                    struct weir_ast_arena **arena,
                                                    size_t *err_at,
                                                    struct weir_expr_scope *out_scope);

/* An event-time temporal join (Flink's TemporalRowTimeJoinOperator, node
 * "TemporalJoin(...)"): `right` is a versioned table (a PRIMARY KEY and a
 * rowtime: an upsert or changelog table, or a deduplication keeping the
 * last row), joined FOR SYSTEM_TIME AS OF `as_of`, the left's rowtime
 * (SQL's `JOIN rates FOR SYSTEM_TIME AS OF o.ts AS r ON o.cur = r.cur`).
 * The condition's equalities must hold the right's whole primary key. A
 * left row waits until the watermark (the smaller of both inputs') reaches
 * its time, then meets the right's version of its key valid then: the one
 * of the largest time at or below the left row's (a -D version: none; a -U
 * is dropped). INNER drops a left row without one, LEFT pads it with NULLs.
 * Each output row carries its left row's kind (insert-only for an
 * insert-only left); the left's rowtime stays the time attribute, the
 * right's becomes a plain timestamp; the watermark passes as it comes.
 * Versions no left row can need any more are dropped (a key keeps the last
 * one at or below the watermark). Refused with Flink's messages: AS OF
 * something else, a right side without a rowtime or without a primary key,
 * a primary key the equalities do not hold, a kind other than INNER and
 * LEFT. weir_table_temporal_join_as names the two sides as SQL's aliases;
 * as_of is a left column ("o.ts"). */
WEIR_EXPORT weir_table *weir_table_temporal_join_as(weir_table *left, const char *left_name,
                                                    weir_table *right, const char *right_name,
                                                    weir_join_kind kind, const char *as_of,
                                                    const char *condition);
WEIR_EXPORT weir_table *weir_table_temporal_join_tree(
    weir_table *left, const struct weir_expr_scope *left_scope, weir_table *right,
    const struct weir_expr_scope *right_scope, weir_join_kind kind, const struct weir_ast *as_of,
    const struct weir_ast *condition, const char *text, struct weir_ast_arena **arena,
    size_t *err_at, struct weir_expr_scope *out_scope);

/* A table whose rowtime is `column`: t itself when it is t's rowtime; when
 * it is t's second time attribute (an interval join's right rowtime: see
 * weir_table_second_rowtime), a projection of every column whose records
 * carry that column's time (the other becomes the second). Refused for any
 * other column: "The window function requires the timecol is a time
 * attribute type, but is TIMESTAMP(3)." */
WEIR_EXPORT weir_table *weir_table_with_rowtime(weir_table *t, const char *column);
/* The column of t's second time attribute, -1 if it has none. */
WEIR_EXPORT int weir_table_second_rowtime(const weir_table *t);

/* ---- window aggregates ----------------------------------------------------------
 * Flink's window table-valued functions (TUMBLE, HOP, CUMULATE, SESSION
 * over a DESCRIPTOR of the rowtime) followed by GROUP BY window_start, window_end,
 * keys — in one call, planned onto the window operator of weir/window.h
 * (its panes and sessions, its timers and lateness; no second window
 * engine). Sizes in milliseconds; a field a kind does not use must be 0. */
typedef enum weir_table_window_kind {
    WEIR_TABLE_TUMBLE = 1, /* size_ms (offset_ms: |offset| < size) */
    WEIR_TABLE_HOP,        /* slide_ms, size_ms (offset_ms: |offset| < slide) */
    WEIR_TABLE_SESSION,    /* gap_ms */
    WEIR_TABLE_CUMULATE    /* step_ms, size_ms, a multiple of it (offset_ms: |offset| < size) */
} weir_table_window_kind;

typedef struct weir_table_window {
    weir_table_window_kind kind;
    int64_t size_ms;
    int64_t slide_ms;
    int64_t gap_ms;
    int64_t offset_ms; /* Flink's optional window offset; 0 */
    int64_t step_ms;
    /* Windows over the table's processing-time attribute
     * (weir_table_proctime) instead of its rowtime: on the job clock, as
     * Flink's processing-time windows (a row goes into the windows of the
     * time the window operator reads it; a window fires when the clock
     * passes its end - 1; no row is late; one still open when the input
     * ends does not fire). Not with offset_ms. */
    bool proctime;
} weir_table_window;

/* A window aggregate over t's rowtime (SEMANTICS.md 9), or over its
 * processing-time attribute with w->proctime (SEMANTICS.md 7: on the job
 * clock; then nothing below about watermarks and lateness applies). `keys` lists group
 * columns ("" or NULL: none, one global group at parallelism 1; the names
 * window_start, window_end and window_time may be listed too, as SQL's
 * GROUP BY does, and are implied anyway). `items` lists, in the output's
 * order, key columns, window_start and window_end (TIMESTAMP(3) NOT NULL;
 * the end is exclusive), window_time (end - 1 ms, of the rowtime's type:
 * the output's rowtime when selected) and aggregate calls COUNT(*),
 * COUNT(x), SUM, MIN, MAX, AVG of any expression over t's columns (not
 * DISTINCT; an argument that is not a bare column is computed by a Calc
 * node planned before the window). Allowed lateness is 0: a window fires
 * once, when the watermark reaches its end - 1, and emits one +I row per
 * (key, window) that holds rows; a row all of whose windows have fired is
 * dropped and counted as late (diagnostics "late_dropped"); a HOP or
 * CUMULATE row whose first windows fired still counts in its later ones.
 * CUMULATE(step, size) has, for each period [s, s + size), the windows
 * [s, s + step), [s, s + 2 step), ..., each fired while it holds rows.
 * Output mode
 * [I]; with every key and window_start and window_end selected, those are
 * its unique key. Refused at plan time: t without a rowtime, t that may
 * carry updates (naming the node that makes them), a bad window, a column
 * of t named window_start, window_end or window_time. */
WEIR_EXPORT weir_table *weir_table_window_aggregate(weir_table *t, const weir_table_window *w,
                                                    const char *keys, const char *items);
/* The columns a window aggregate's items over t read: t's, then
 * window_start, window_end and window_time (a schema to compile items
 * against; the caller destroys it), for windows over t's rowtime, or, when
 * t has none, over its processing-time attribute. NULL, recording why, for
 * a t that cannot feed a window aggregate. */
WEIR_EXPORT weir_schema *weir_table_window_columns(const weir_table *t);
/* The same for the window w (over the rowtime, or over the processing-time
 * attribute: its window_time is TIMESTAMP_LTZ(3), a processing-time
 * attribute of the output). */
WEIR_EXPORT weir_schema *weir_table_window_columns_for(const weir_table *t,
                                                       const weir_table_window *w);
/* As weir_table_window_aggregate, with the items compiled already against
 * weir_table_window_columns(t) and taken over, as weir_table_select_exprs
 * takes them. */
WEIR_EXPORT weir_table *weir_table_window_aggregate_exprs(weir_table *t,
                                                          const weir_table_window *w,
                                                          const char *keys, weir_expr **items,
                                                          int n);

/* Flink's computed columns (`c AS expr` in CREATE TABLE, Schema's
 * columnByExpression): a Calc right behind a table source t that makes the
 * table as `declared` declares it — n items compiled against t's schema,
 * one per declared column in its order (t's columns by name, the computed
 * ones by their expressions), of the declared names and types. The
 * declared rowtime (WATERMARK FOR, possibly on a computed column) becomes
 * each row's timestamp, its watermark assigned behind the Calc (a
 * WatermarkAssigner), unless the source ran it (declared with
 * weir_schema_watermark_in_source: t's source was made with its strategy,
 * the computed columns' expressions in place of their names) or it is
 * SOURCE_WATERMARK(); the declared processing-time attribute
 * (weir_schema_proctime_attribute: PROCTIME(), the job clock when the Calc
 * reads the row) is the table's. Items are taken over. */
WEIR_EXPORT weir_table *weir_table_computed_columns(weir_table *t, weir_expr **items, int n,
                                                    const weir_schema *declared);

/* ---- OVER aggregates, ranking, sorting --------------------------------------------
 * Flink's streaming OVER aggregation, deduplication, Top-N, window Top-N,
 * ORDER BY on the rowtime and LIMIT (SEMANTICS.md 10), each a keyed operator
 * whose state lives in keyed state and timers (checkpointed and rescaled with
 * them). Every one needs an insert-only input. */

/* The frame of an OVER window, ordered by t's rowtime ascending (the only
 * order a stream has): the rows of the partition up to the current one. */
typedef enum weir_table_over_frame {
    WEIR_OVER_RANGE_UNBOUNDED = 0, /* RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW (the
                                      default frame): equal times are peers */
    WEIR_OVER_ROWS_UNBOUNDED,      /* ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW */
    WEIR_OVER_ROWS,                /* ROWS BETWEEN `preceding` PRECEDING AND CURRENT ROW */
    WEIR_OVER_RANGE                /* RANGE BETWEEN INTERVAL `preceding` ms PRECEDING AND
                                      CURRENT ROW: the times [t - preceding, t] */
} weir_table_over_frame;

typedef struct weir_table_over_window {
    const char *partition_by; /* columns; "" or NULL: one partition, at parallelism 1 */
    weir_table_over_frame frame;
    int64_t preceding;        /* ROWS: rows (>= 0); RANGE: milliseconds (>= 0) */
} weir_table_over_window;

/* An OVER aggregation (Flink's OverAggregate, RowTime{Rows,Range}
 * {Bounded,Unbounded}PrecedingFunction): each row of t, once the watermark
 * reaches its time, in time order (rows of equal time in arrival order), with
 * `aggs` appended: aggregate calls as weir_table_group_by takes them (COUNT,
 * SUM, MIN, MAX, AVG, DISTINCT, functions from C; named by their alias, else
 * EXPR$i), computed over the row's frame. RANGE frames give peers (rows of
 * equal time) one value that counts all of them. A late row is dropped and
 * counted (diagnostics "late_dropped"): an unbounded frame's when its time is
 * at or below the watermark as it arrives, a bounded frame's when its time is
 * at or below the last time its partition processed. Output [I], t's rowtime
 * kept. Refused: t without a rowtime, an updating t. */
WEIR_EXPORT weir_table *weir_table_over(weir_table *t, const weir_table_over_window *w,
                                        const char *aggs);
/* As weir_table_over, with the aggregate calls compiled already against t's
 * schema (allow_agg) and taken over. */
WEIR_EXPORT weir_table *weir_table_over_exprs(weir_table *t, const weir_table_over_window *w,
                                              weir_expr **aggs, int n);

/* An OVER aggregation ordered by the column `order_by`: t's rowtime (as
 * weir_table_over_exprs); t's processing-time attribute (Flink's
 * ProcTime{Rows,Range}{Bounded,Unbounded}PrecedingFunction: a row's time is
 * the job clock when it comes, ROWS frames and the unbounded RANGE emit it
 * at once, a bounded RANGE frame at the end of its millisecond with its
 * peers, no row is late; output [I], the attribute kept); or, t updating,
 * a column's value (weir_table_over_changes_exprs). Refused: an insert-only
 * t ordered by another column. */
WEIR_EXPORT weir_table *weir_table_over_by_exprs(weir_table *t, const weir_table_over_window *w,
                                                 const char *order_by, weir_expr **aggs, int n);

/* An OVER aggregation over an updating t (weir's extension: Flink's
 * OverAggregate refuses one, FLINK-19059), as a materialized view: for
 * every row currently in t, `aggs` over its ROWS frame (WEIR_OVER_ROWS or
 * WEIR_OVER_ROWS_UNBOUNDED; a RANGE frame is refused) in the order of the
 * column `order_by` (a timestamp, date, time or integer; ascending, NULL
 * first, rows of equal value in arrival order) within its partition. Each
 * change of t goes out at once with its kind (+I/+U for the row that came,
 * -U/-D for the row that went, as last emitted), then -U/+U for each other
 * row whose frame's result changed. Output [I,UB,UA,D], no rowtime; EXPLAIN
 * shows ChangelogOverAggregate. Refused: an upsert t (+U without -U). */
WEIR_EXPORT weir_table *weir_table_over_changes(weir_table *t, const weir_table_over_window *w,
                                                const char *order_by, const char *aggs);
WEIR_EXPORT weir_table *weir_table_over_changes_exprs(weir_table *t,
                                                      const weir_table_over_window *w,
                                                      const char *order_by, weir_expr **aggs,
                                                      int n);

/* A ranking: Flink's ROW_NUMBER() OVER (PARTITION BY p ORDER BY o) filtered
 * to the ranks [rank_start, rank_end] (1-based, inclusive). */
typedef struct weir_table_rank_spec {
    const char *partition_by; /* columns; "" or NULL: one partition (parallelism 1) */
    const char *order_by;     /* "col [ASC|DESC] [NULLS FIRST|LAST], ..." (ASC: nulls
                                 first, DESC: nulls last, as Flink) */
    int64_t rank_start, rank_end; /* 1 <= start <= end */
    /* The name of a BIGINT NOT NULL column of the row number appended to the
     * output; NULL: none. */
    const char *rank_column;
} weir_table_rank_spec;

/* The ranking as Flink's planner makes it:
 * - ordered by t's rowtime alone, ranks [1, 1], no rank column: a
 *   Deduplicate (Flink's RankUtil.canConvertToDeduplicate). DESC keeps the
 *   last row of each partition (RowTimeDeduplicateFunction: +I for the
 *   first, then -U old / +U new for each row at or after the kept one's
 *   time; [I,UB,UA]); ASC keeps the first (RowTimeDeduplicateKeepFirstRow
 *   Function: the earliest row, emitted +I when the watermark reaches it; a
 *   row below the watermark is late, dropped and counted; [I]);
 * - partitioned by window_start and window_end of a window aggregate or a
 *   window TVF (weir_table_window_tvf; with them among the partition
 *   columns): a WindowRank, the final top ranks of each window once, when
 *   the watermark reaches window_end - 1 ([I]; rows of a window that fired
 *   are late, dropped and counted); ordered by one TIMESTAMP column alone
 *   with rank 1 and no rank column a WindowDeduplicate (Flink's
 *   RowTimeWindowDeduplicateProcessor: DESC the last row of each window,
 *   the latest arrival among equal times; ASC the first);
 * - otherwise a Rank (AppendOnlyTopNFunction) over an insert-only t: with a
 *   rank column, each row that enters the top sends -U/+U for every rank
 *   whose row changed and +I for a rank filled for the first time; without
 *   one, +I for the row and -D for the row it pushed out ([I,UB,UA,D]);
 * - over an updating t, Flink's UpdatableTopNFunction (UpdateFastStrategy:
 *   only the top rows kept, t's -U not read) when t deletes nothing, t's
 *   unique key holds the partition columns and each order key only moves
 *   up the order across a row's updates (a group aggregate's COUNT or MAX
 *   descending, MIN ascending, a group key), else its
 *   RetractableTopNFunction (RetractStrategy: every row kept, after an
 *   upsert t's ChangelogNormalize); [I,UB,UA,D] either way.
 * Refused: a window rank over an updating t, order columns that are not t's. */
WEIR_EXPORT weir_table *weir_table_rank(weir_table *t, const weir_table_rank_spec *spec);

/* A window table-valued function read as a table (Flink's WindowTableFunction:
 * TUMBLE, HOP, CUMULATE over t's rowtime; not SESSION, which only a window
 * aggregate reads): each row of t once for every window it falls in, with
 * window_start, window_end (TIMESTAMP(3) NOT NULL, the end exclusive) and
 * window_time (end - 1 ms, of the rowtime's type) appended. window_time is
 * the output's rowtime (each row's record timestamp); t's rowtime column
 * stays as a plain column. [I]; what a WindowRank (weir_table_rank
 * partitioned by window_start and window_end) reads. Refused: t without a
 * rowtime, an updating t, a bad window, a column of t named like a window
 * column. */
WEIR_EXPORT weir_table *weir_table_window_tvf(weir_table *t, const weir_table_window *w);

/* ORDER BY on a stream (Flink's TemporalSort): t's rowtime ascending first,
 * then `order_by`'s further columns ("col [ASC|DESC], ...", may be "" or
 * NULL): every row is held until the watermark reaches its time, then the
 * rows of that time go out in that order. A row at or below the watermark as
 * it arrives is late, dropped and counted. [I], parallelism 1. */
WEIR_EXPORT weir_table *weir_table_sort(weir_table *t, const char *order_by);

/* ORDER BY ... LIMIT n OFFSET m (Flink's SortLimit): a Top-N of the whole
 * table ordered by `order_by` (any columns, as weir_table_rank_spec's),
 * without a rank column: +I for a row that enters the ranks [offset + 1,
 * offset + fetch], -D for the row it pushes out; [I,UB,UA,D], parallelism
 * 1. */
WEIR_EXPORT weir_table *weir_table_sort_limit(weir_table *t, const char *order_by,
                                              int64_t offset, int64_t fetch);

/* LIMIT n OFFSET m without ORDER BY (Flink's Limit): the first rows of t as
 * they come, from the (offset+1)-th to the (offset+fetch)-th; [I],
 * parallelism 1. */
WEIR_EXPORT weir_table *weir_table_limit(weir_table *t, int64_t offset, int64_t fetch);

/* ---- reading the plan ------------------------------------------------------------ */

WEIR_EXPORT const weir_schema *weir_table_schema(const weir_table *t);
/* The env the table belongs to. */
WEIR_EXPORT weir_table_env *weir_table_get_env(const weir_table *t);
WEIR_EXPORT unsigned weir_table_changelog_mode(const weir_table *t);
/* The rowtime column of the table's schema (its rows' record timestamp, a
 * time attribute windows can use), -1 if it has none: a projection keeps
 * it only as a bare column; a window aggregate's is its window_time. */
WEIR_EXPORT int weir_table_rowtime(const weir_table *t);
/* The processing-time attribute of the table's schema (a PROCTIME()
 * column, weir_schema_proctime_attribute), -1 if it has none: a projection
 * keeps it as a bare column; a processing-time window aggregate's is its
 * window_time. Processing-time windows use it (weir_table_window.proctime). */
WEIR_EXPORT int weir_table_proctime(const weir_table *t);
/* The table's unique key (Flink's upsert key: columns no two live rows
 * share the values of), its columns into *cols (owned by t): how many, 0
 * when it has none. */
WEIR_EXPORT int weir_table_unique_key(const weir_table *t, const int **cols);
/* Whether the table's rows carry their windows (a window table function's
 * or a window aggregate's rows, and projections that keep both bounds as
 * bare columns: what a window join or a window Top-N reads), with the
 * columns of the bounds (-1 and -1 when not). */
WEIR_EXPORT bool weir_table_windowed(const weir_table *t, int *window_start, int *window_end);
/* The node's name as diagnostics show it ("GroupAggregate(user_id)"). */
WEIR_EXPORT const char *weir_table_node_name(const weir_table *t);
/* The stream of the node's rows (for building on with the stream API). */
WEIR_EXPORT weir_stream *weir_table_stream(const weir_table *t);
/* The plan from the sources to t, one node a line, with each node's
 * changelog mode (Flink's EXPLAIN CHANGELOG_MODE):
 *     GroupAggregate(user_id) [I,UB,UA]
 *       TableSource(clicks) [I]
 * Returns the length (like snprintf). */
WEIR_EXPORT int weir_table_explain(const weir_table *t, char *buf, size_t size);

#ifdef __cplusplus
}
#endif
#endif
