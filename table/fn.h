/* fn.h — the built-in scalar functions of the expression language, as one
 * table (fn_registry.c): each entry a name, its argument count, the SQL
 * syntax it is written in, its type rule (plan time: the arguments'
 * types checked, Flink's message for a wrong one, the result typed, what
 * can be prepared once prepared — a literal pattern compiled) and its
 * evaluation (per row: no allocation; a string result goes into the call's
 * region of the caller's scratch). The families:
 *
 *   fn_string.c    CONCAT, SUBSTRING, TRIM, REPLACE, LPAD, ..., MD5, SHA256, base64
 *   fn_regex.c     REGEXP_EXTRACT, REGEXP_REPLACE, REGEXP, LIKE, SIMILAR TO (PCRE2)
 *   fn_numeric.c   ABS, ROUND, POWER, LOG, trig, RAND, ...
 *   fn_cond.c      IF, NULLIF, IS [NOT] DISTINCT FROM, BETWEEN, GREATEST, LEAST, IS TRUE
 *   fn_temporal.c  DATE_FORMAT, TO_TIMESTAMP, EXTRACT, FLOOR(ts TO u), TIMESTAMPADD, ...
 *   fn_json.c      JSON_VALUE, JSON_QUERY, JSON_EXISTS, JSON_OBJECT, JSON_ARRAY, JSON_STRING,
 *                  IS JSON
 *   fn_collection.c ARRAY_CONTAINS, ELEMENT, MAP_KEYS, ARRAY_DISTINCT, ... on ARRAY and MAP
 *
 * The binder (expr_bind.c) finds a call's entry by name and hands it to
 * weir__bind_builtin; the evaluator (expr_eval.c) hands an OP_BUILTIN node
 * to weir__builtin_eval. Private to the table layer.
 */
#ifndef WEIR_TABLE_FN_H
#define WEIR_TABLE_FN_H

#include "expr_tree.h"

typedef struct weir__binder weir__binder;
typedef struct weir__builtin weir__builtin;

/* ---- what the binder lends a type rule (expr_bind.c) ------------------------ */

weir__enode *weir__bind_new(weir__binder *p, weir__eop op, size_t pos);
/* A syntax tree bound (an argument the rule binds itself). */
weir__enode *weir__bind_tree(weir__binder *p, const weir_ast *a);
/* n as type `to`: itself, or an implicit CAST node over it. */
weir__enode *weir__bind_cast(weir__binder *p, weir__enode *n, weir_type to);
/* `bytes` of the expression's scratch: their offset. */
uint32_t weir__bind_scratch(weir__binder *p, uint32_t bytes);
void weir__bind_fail(weir__binder *p, size_t at, const char *fmt, ...) WEIR_PRINTF(3, 4);
void weir__bind_nomem(weir__binder *p);
bool weir__bind_failed(const weir__binder *p);
/* The capacity of STRING where nothing bounds a string result (the
 * schema's: 'weir.string-capacity' in SQL). */
uint32_t weir__bind_string_capacity(const weir__binder *p);
/* Brings two values to one comparable type (numbers widen), or fails
 * "cannot `what` A with B" at pos. */
bool weir__bind_unify(weir__binder *p, weir__enode **a, weir__enode **b, size_t pos,
                      const char *what);
/* The common type of n values (numbers widen, strings make a VARCHAR of
 * the largest capacity, others must agree), each cast to it; fails as
 * "`what` of A and B". */
bool weir__bind_common(weir__binder *p, weir__enode **v, int n, bool not_null,
                       const char *what, weir_type *out);
/* A NULL literal takes type t. */
void weir__bind_retype_null(weir__enode *n, weir_type t);
/* The offset of the expression's clock slot (8 bytes of its scratch that
 * hold the row's processing time while it is evaluated: CURRENT_TIMESTAMP). */
uint32_t weir__bind_clock_slot(weir__binder *p);
/* The session's time zone ('table.local-time-zone': a TIMESTAMP_LTZ's
 * local date-time; UTC when none is set). Lives as long as the process. */
const weir_time_zone *weir__bind_zone(const weir__binder *p);

/* ---- a built-in's type rule ------------------------------------------------- */

typedef struct weir__fnbind {
    weir__binder *p;
    const weir__builtin *f;
    const weir_ast *a;   /* the call as written */
    weir__enode *n;      /* OP_BUILTIN: n->args the bound arguments, SYMBOLs left out */
    const char *sym[4];  /* the call's SYMBOL arguments' words, in order */
    int nsym;
    int sig;             /* the signature the arguments matched (entries with sigs) */
    uint32_t work;       /* scratch bytes the evaluation wants besides the result's */
} weir__fnbind;

/* The rule: checks what the entry's signatures do not, sets n->type (a
 * string's capacity: the most bytes its result may take) and whatever the
 * evaluation reads (n->aux, n->data). false after weir__bind_fail. */
typedef bool (*weir__fn_check)(weir__fnbind *b);

/* ---- a built-in's evaluation -------------------------------------------------- */

typedef struct weir__fncall {
    const weir__enode *n;
    const weir__val *args; /* n->nargs values, evaluated */
    char *buf;             /* the result's room: n->room bytes, 8-aligned */
    unsigned char *work;   /* the rule's work bytes, 8-aligned */
    unsigned char *sc;     /* the expression's whole scratch */
} weir__fncall;

/* Into *o (zeroed, not NULL): 0, or a WEIR_E* code with a static message
 * in *why that fails the row (a result longer than its capacity). */
typedef int (*weir__fn_eval)(const weir__fncall *c, weir__val *o, const char **why);

enum {
    FN_NULLS = 1,      /* the evaluation sees NULL arguments (else: any NULL, NULL out) */
    FN_CALL_TOO = 2,   /* written in its own form, or as a call NAME(args) too */
    FN_FORCE_NULL = 4, /* the result may be NULL whatever the arguments */
};

struct weir__builtin {
    const char *name;
    int min, max;       /* arguments, SYMBOLs not counted; max -1: any */
    weir_ast_form form; /* the syntax it is written in (FORM_CALL: NAME(args)) */
    unsigned flags;
    /* Calcite's operand families, for the arguments' check and Flink's
     * message: signatures separated by ';', each a family per argument
     * separated by ',' (S STRING, C CHARACTER, I INTEGER, E EXACT_NUMERIC,
     * N NUMERIC, T TIMESTAMP, D DATETIME (DATE, TIME, a timestamp), B BOOLEAN, V INTERVAL,
     * A ANY); a last family followed by
     * '*' repeats. NULL: the rule checks. */
    const char *sigs;
    weir__fn_check check;
    weir__fn_eval eval;
    int which;          /* one of a group sharing an eval (n->aux[0] unless the rule sets it) */
};

/* The families' tables (each family file's). */
extern const weir__builtin weir__fn_string[], weir__fn_regex[], weir__fn_numeric[],
    weir__fn_cond[], weir__fn_temporal[], weir__fn_json[], weir__fn_collection[];

/* The entry of name (any case) written in `form`, or NULL. */
const weir__builtin *weir__builtin_find(const char *name, weir_ast_form form);
/* Whether any entry has this name (a function from C may not take it). */
bool weir__builtin_named(const char *name);
/* Calls each with the name of every entry written as a call (or with a
 * call's parentheses: SUBSTRING, TRIM, EXTRACT ...), or niladic; one call
 * per name. */
void weir__builtin_each(void (*each)(const char *name, void *arg), void *arg);

/* A call of f bound: its arguments, their check, its type, its scratch. */
weir__enode *weir__bind_builtin(weir__binder *p, const weir_ast *a, const weir__builtin *f);
/* An OP_BUILTIN node evaluated. */
int weir__builtin_eval(const weir__enode *n, const unsigned char *row, unsigned char *sc,
                       weir__val *o, const char **why);

/* ---- shared by the families ---------------------------------------------------- */

/* Flink's (Calcite's) refusal of the arguments: "Cannot apply 'F' to
 * arguments of type 'F(<INTEGER>)'. Supported form(s): 'F(<STRING>)'". */
bool weir__fn_refuse(weir__fnbind *b);
/* A type's name as Calcite writes it in those messages (INTEGER,
 * VARCHAR(64), TIMESTAMP_WITH_LOCAL_TIME_ZONE(3)). */
const char *weir__fn_type_name(weir_type t, char *buf, size_t size);
/* Whether argument i is a literal (not NULL) and its value. */
bool weir__fn_literal(const weir__fnbind *b, int i, const weir__val **v);
/* A string result of `bytes` at most (capped at the largest capacity). */
weir_type weir__fn_varchar(uint64_t bytes, bool not_null);
/* Whether all arguments are NOT NULL. */
bool weir__fn_args_not_null(const weir__fnbind *b);

/* UTF-8: the bytes of the character starting with byte c (1 for a
 * continuation or an invalid byte), the characters in s, the byte offset
 * of character k (len if there are fewer). */
static inline uint32_t weir__utf8_len(unsigned char c)
{
    return c < 0xC0 ? 1 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;
}
uint32_t weir__utf8_count(const char *s, uint32_t len);
uint32_t weir__utf8_offset(const char *s, uint32_t len, int64_t k);
/* The code point at s (n bytes left), its bytes in *used (a bad byte is
 * U+FFFD, one byte). */
uint32_t weir__utf8_decode(const char *s, uint32_t n, uint32_t *used);
/* Writes code point cp at d; its bytes. */
uint32_t weir__utf8_encode(uint32_t cp, char *d);

/* A string result written into c->buf: fails the row when it needs more
 * than the room ("F's result is longer than its capacity N"). */
int weir__fn_too_long(const weir__fncall *c, const char **why);

/* Java's java.util.Random: the 48-bit LCG. */
typedef struct weir__jrandom {
    uint64_t seed;
} weir__jrandom;
void weir__jrandom_seed(weir__jrandom *r, int64_t seed);
int32_t weir__jrandom_next(weir__jrandom *r, int bits);
double weir__jrandom_double(weir__jrandom *r);
int32_t weir__jrandom_int(weir__jrandom *r, int32_t bound);
/* Random bytes for UUID() and an unseeded RAND(): a per-thread generator
 * seeded once from the system (getrandom). */
void weir__fn_random_bytes(unsigned char *out, size_t n);

/* Time, UTC (fn_temporal.c): days since 1970-01-01 of a civil date and back. */
int64_t weir__days_from_civil(int64_t y, unsigned m, unsigned d);
void weir__civil_from_days(int64_t days, int64_t *y, unsigned *m, unsigned *d);

#endif
