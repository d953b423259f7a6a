/* sql_ast.h — what the SQL parser (sql_parser.c) makes of a statement: the
 * statement's parts as spans of its text.
 *
 * Expressions are syntax trees of weir's one expression language
 * (weir/expr_ast.h), read by its parser, which the table API's expression
 * strings go through too; the planner (sql_plan.c) binds them when it knows
 * the schema they read, so the C Table API and SQL share every rule of
 * typing and evaluation. Each keeps its span too, with its line and column,
 * so that an error is reported at its place in the file. Everything is
 * allocated in the script's arenas and freed with it. */
#ifndef WEIR_SQL_SQL_AST_H
#define WEIR_SQL_SQL_AST_H

#include <stdbool.h>
#include <stdint.h>

struct weir_ast;

/* A span of the statements' text. len 0: absent. */
typedef struct sql_span {
    uint32_t start, len;
    uint32_t line, col;
} sql_span;

typedef enum sql_window_kind {
    SQL_WINDOW_NONE = 0,
    SQL_WINDOW_TUMBLE,   /* size */
    SQL_WINDOW_HOP,      /* slide, size (TVF and group window alike) */
    SQL_WINDOW_CUMULATE, /* step, size (TVF only) */
    SQL_WINDOW_SESSION   /* gap */
} sql_window_kind;

/* A window: a group window in GROUP BY (TUMBLE(ts, INTERVAL '1' MINUTE)) or
 * a window table-valued function in FROM (TABLE(TUMBLE(TABLE t,
 * DESCRIPTOR(ts), INTERVAL '1' MINUTE))). */
typedef struct sql_window {
    sql_window_kind kind;
    sql_span at;       /* the function's name */
    sql_span time_col; /* the time attribute */
    sql_span time_qual; /* its qualifier: B of B.ts (len 0: none) */
    sql_span args[2];  /* the interval expressions, in the call's order */
    struct weir_ast *arg_asts[2];
    int nargs;
} sql_window;

/* An ORDER BY key (of a query or an OVER window). nulls: 0 the default,
 * 1 NULLS FIRST, 2 NULLS LAST. */
typedef struct sql_order_key {
    sql_span expr;
    struct weir_ast *ast;
    bool desc;
    int nulls;
} sql_order_key;

typedef enum sql_bound_kind {
    SQL_BOUND_UNBOUNDED_PRECEDING = 1,
    SQL_BOUND_PRECEDING,          /* ast PRECEDING */
    SQL_BOUND_CURRENT_ROW,
    SQL_BOUND_FOLLOWING,          /* ast FOLLOWING */
    SQL_BOUND_UNBOUNDED_FOLLOWING
} sql_bound_kind;

typedef struct sql_bound {
    sql_bound_kind kind;
    sql_span at;
    struct weir_ast *ast;
} sql_bound;

/* An OVER window: OVER ([PARTITION BY ...] [ORDER BY ...] [ROWS | RANGE
 * frame]). frame 0: none; 'R' ROWS; 'G' RANGE. */
typedef struct sql_over {
    sql_span at; /* the word OVER */
    sql_span *partition;
    struct weir_ast **partition_asts;
    int npartition;
    sql_order_key *order;
    int norder;
    char frame;
    sql_span frame_at;
    sql_bound lo, hi;
    sql_span ref; /* OVER w: the name of a window of the WINDOW clause (until resolved) */
} sql_over;

/* WINDOW w AS (...): a named OVER window. */
typedef struct sql_named_window {
    sql_span name;
    sql_over *over;
} sql_named_window;

/* A select item: an expression and its AS name (len 0: none); `over` when
 * the expression (an aggregate call or ROW_NUMBER()) has an OVER window. */
typedef struct sql_item {
    sql_span expr;
    struct weir_ast *ast;
    sql_span alias;
    sql_over *over;
    /* t.*: every column of the source t (ast NULL; the planner puts t's
     * columns in its place once FROM is planned) */
    sql_span star_of;
    /* OVER calls inside the expression (SUM(x) OVER w + 1, CASE WHEN
     * COUNT(*) OVER w > 3 ...): each call node of ast and its window (an
     * item that is one call with its OVER has `over` instead) */
    struct weir_ast **over_calls;
    sql_over **overs;
    int nover;
} sql_item;

/* A row of VALUES: its expressions. */
typedef struct sql_values_row {
    sql_span at; /* its '(' */
    sql_item *items;
    int n;
} sql_values_row;

typedef enum sql_from_kind {
    SQL_FROM_NONE = 0, /* SELECT 1: no FROM, one row */
    SQL_FROM_NAME,     /* a table or a view */
    SQL_FROM_QUERY,    /* (SELECT ...) */
    SQL_FROM_WINDOW,   /* TABLE(TUMBLE(TABLE name, ...)) */
    SQL_FROM_UNNEST    /* UNNEST(expr) [WITH ORDINALITY]: a join's source, or the first
                        * (over one row: Flink's Correlate over Values) */
} sql_from_kind;

typedef struct sql_query sql_query;

/* A join in FROM: [INNER | LEFT [OUTER] | RIGHT [OUTER] | FULL [OUTER]]
 * JOIN source [alias] ON condition, or `, source` (a comma join: kind 0,
 * its condition the query's WHERE). */
typedef struct sql_join {
    int kind;            /* weir_join_kind, 0 for a comma */
    sql_span at;         /* the JOIN word (or the comma) */
    sql_from_kind from_kind; /* NAME or QUERY */
    sql_span from_name;
    sql_query *from_query;
    sql_span alias;
    /* (query) AS alias (c, ...): the subquery's columns renamed */
    sql_span *alias_cols;
    int nalias_cols;
    sql_span on;
    struct weir_ast *on_ast;
    /* FOR SYSTEM_TIME AS OF expr after a table's name (for_time_ast NULL:
     * none): a lookup join or a temporal join; for_time_at is FOR */
    sql_span for_time_at;
    sql_span for_time;
    struct weir_ast *for_time_ast;
    /* UNNEST: the collection, its columns' names (AS u(x, y)), ORDINALITY;
     * cross: CROSS JOIN or a comma, no ON */
    sql_span unnest;
    struct weir_ast *unnest_ast;
    sql_span cols[8];
    int ncols;
    bool ordinality, cross;
} sql_join;

/* A conjunct of WHERE over a subquery (Flink's subquery removal makes it a
 * semi or anti join): x [NOT] IN (SELECT y ...), [NOT] EXISTS (SELECT ...). */
typedef enum sql_subquery_kind {
    SQL_SUB_IN = 1,
    SQL_SUB_NOT_IN,
    SQL_SUB_EXISTS,
    SQL_SUB_NOT_EXISTS
} sql_subquery_kind;

typedef struct sql_subquery {
    sql_subquery_kind kind;
    sql_span at;               /* the conjunct's first token */
    sql_query *query;          /* the subquery */
    sql_span left;             /* IN: x */
    struct weir_ast *left_ast;
} sql_subquery;

/* An option of SELECT's STATE_TTL hint (Flink's): an input's name (a
 * table's or an alias; the text inside the quotes) and its time to live. */
typedef struct sql_ttl_hint {
    sql_span name;
    int64_t ms;
} sql_ttl_hint;

struct sql_query {
    sql_span at; /* the SELECT word */
    sql_ttl_hint *ttl; /* a STATE_TTL hint's options */
    int nttl;
    bool distinct;
    bool star; /* SELECT * */
    sql_item *items;
    int nitems;
    sql_from_kind from_kind;
    sql_span from_name;   /* NAME, and the table of a window TVF */
    sql_query *from_query; /* QUERY */
    sql_window from_window;
    sql_span from_alias;  /* the first source's alias (len 0: none) */
    sql_span *from_cols;  /* (query) AS alias (c, ...): its columns renamed */
    int nfrom_cols;
    struct sql_join *from_unnest; /* FROM UNNEST(...) AS u(...): the UNNEST as a join's */
    sql_join *joins;      /* the joins after it, left to right */
    int njoins;
    sql_span where;
    struct weir_ast *where_ast; /* without its subquery conjuncts (NULL: none left) */
    bool where_formatted;       /* where_ast is a tree the planner made: shown as formatted */
    sql_subquery *subs;          /* WHERE's conjuncts over subqueries */
    int nsubs;
    sql_span *group; /* GROUP BY expressions other than a group window */
    struct weir_ast **group_asts;
    int ngroup;
    sql_window group_window;
    sql_span having;
    struct weir_ast *having_ast;
    sql_query *union_all; /* the next query of a UNION ALL, or NULL */
    /* ORDER BY and LIMIT / FETCH / OFFSET of the query (the first of a
     * UNION ALL holds them, for the whole) */
    sql_order_key *order;
    int norder;
    sql_span order_at, limit_at;
    int64_t limit, offset; /* limit -1: none */
    /* VALUES (...), (...): rows instead of SELECT ... FROM (nvalues > 0) */
    sql_values_row *values;
    int nvalues;
};

typedef struct sql_column_def {
    sql_span name;
    sql_span type; /* "VARCHAR(20) NOT NULL": weir_type_parse reads it */
    /* METADATA [FROM 'key'] [VIRTUAL]: meta_key.len 0 without FROM (the
     * column's name is the key); meta_at is the word METADATA */
    bool metadata, virtual_col;
    sql_span meta_key, meta_at;
    /* name AS expr: a computed column (type.len 0); as_at is the word AS */
    bool computed;
    sql_span expr, as_at;
    struct weir_ast *expr_ast;
} sql_column_def;

typedef struct sql_option {
    char *key, *value; /* unquoted */
    sql_span at;
} sql_option;

typedef enum sql_stmt_kind {
    SQL_STMT_CREATE_TABLE = 1,
    SQL_STMT_CREATE_VIEW,
    SQL_STMT_SELECT,
    SQL_STMT_EXPLAIN,
    SQL_STMT_SET,
    SQL_STMT_INSERT,       /* INSERT INTO name [(cols)] query */
    SQL_STMT_STATEMENT_SET, /* EXECUTE STATEMENT SET BEGIN insert; ... END */
    SQL_STMT_SHOW,          /* SHOW TABLES | VIEWS | [USER] FUNCTIONS (show) */
    SQL_STMT_DESCRIBE,      /* DESCRIBE name, DESC name */
    SQL_STMT_RESET          /* RESET ['key'] (set_key NULL: every key) */
} sql_stmt_kind;

/* What SHOW lists. */
typedef enum sql_show_kind {
    SQL_SHOW_TABLES = 1, /* tables and views, as Flink's SHOW TABLES */
    SQL_SHOW_VIEWS,
    SQL_SHOW_FUNCTIONS,     /* built-in and registered (weir/function.h) */
    SQL_SHOW_USER_FUNCTIONS /* registered only */
} sql_show_kind;

typedef struct sql_stmt sql_stmt;
struct sql_stmt {
    sql_stmt_kind kind;
    sql_span at; /* the statement's first word */
    sql_span name; /* CREATE TABLE / VIEW, INSERT INTO, DESCRIBE */
    /* CREATE TABLE */
    sql_column_def *cols;
    int ncols;
    sql_span wm_col, wm_expr; /* WATERMARK FOR col AS expr (wm_col.len 0: none) */
    struct weir_ast *wm_ast;
    sql_span *pk;             /* PRIMARY KEY (cols) NOT ENFORCED */
    int npk;
    sql_span *partition_by;   /* PARTITIONED BY (cols) */
    int npartition_by;
    sql_option *opts; /* WITH (...) */
    int nopts;
    /* CREATE VIEW, SELECT, EXPLAIN, INSERT */
    bool temporary;
    sql_query *query;
    bool changelog_mode; /* EXPLAIN CHANGELOG_MODE */
    /* SET (set_key NULL: SET alone, which lists the settings), RESET */
    char *set_key, *set_value;
    /* SHOW */
    sql_show_kind show;
    /* INSERT: its column list (ninsert_cols 0: none) */
    sql_span *insert_cols;
    int ninsert_cols;
    /* STATEMENT SET: its INSERTs */
    sql_stmt *set;
    int nset;
};

#endif
