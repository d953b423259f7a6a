/* weir/function.h — functions written in C, called from the expression
 * language (weir/expr.h, the table API's strings) and from SQL by name:
 * Flink's user-defined functions. A scalar function maps the values of one
 * call to a value (Flink's ScalarFunction and its eval); an aggregate
 * function folds the values of many rows into an accumulator and reads a
 * value out of it (Flink's AggregateFunction: createAccumulator,
 * accumulate, retract, merge, getValue). A program registers them before it
 * plans what calls them, as Flink's createTemporarySystemFunction does:
 *
 *     static const weir_type in[] = {{WEIR_TYPE_DOUBLE}};
 *     weir_function_register_scalar(&(weir_scalar_function){
 *         .name = "to_fahrenheit", .nargs = 1, .arg_types = in,
 *         .result_type = {WEIR_TYPE_DOUBLE}, .eval = to_fahrenheit}, err, sizeof err);
 *     ... "SELECT sensor, to_fahrenheit(celsius) FROM readings" ...
 *
 * Where the functions live. The registry is the process's, not a table
 * environment's: a C function is the program's code (its `arg` is the
 * program's too), and the expression language compiles against a schema
 * alone (weir_expr_compile, a watermark's expression, weir_table_select's
 * strings), with no environment to look a name up in. Registration is MT
 * safe (a lock, at plan time only) and may run while other threads plan
 * jobs; a function is visible to every plan made after its registration
 * returns. A registered function stays registered until the process ends:
 * compiled expressions point at it, so there is no unregistering.
 *
 * Names. An identifier (a letter or '_', then letters, digits and '_'; at
 * most 63 bytes), without regard to case, as built-in functions are called.
 * A name that is a built-in function's (COUNT, SUM, MIN, MAX, AVG, COALESCE,
 * UPPER, LOWER, CHAR_LENGTH, CHARACTER_LENGTH, MOD), one that SQL reads
 * itself (TUMBLE, HOP, SESSION, CUMULATE and their _START, _END, _ROWTIME,
 * _PROCTIME, SOURCE_WATERMARK, PROCTIME, DESCRIPTOR), or a word of the
 * grammar (CAST, CASE, AND ...) is refused: Flink lets a temporary system
 * function shadow a built-in, weir does not. A name registered already is
 * refused too, unless the definition is the same one (the same types,
 * callbacks and arg): registering twice is then harmless.
 *
 * Types, checked at plan time. A call must have the declared number of
 * arguments; each argument must have its parameter's type or one that
 * converts to it implicitly by the rules of the built-in functions: an
 * integer to a wider one (TINYINT to SMALLINT to INT to BIGINT), any
 * number to a DOUBLE, an integer to a FLOAT, TIMESTAMP and TIMESTAMP_LTZ to each
 * other (the same milliseconds), a NULL literal to anything, and any string
 * (VARCHAR(n), CHAR(n), STRING) to a string parameter of any capacity, any
 * binary string to a VARBINARY(n) parameter of any capacity. A
 * mismatch is an error at the argument's position naming the function, the
 * argument and both types ("argument 1 of to_fahrenheit ('name') is
 * VARCHAR(20), where to_fahrenheit takes DOUBLE"). Parameter and result
 * types are BOOLEAN, TINYINT, SMALLINT, INT, BIGINT, DECIMAL(p, s), FLOAT,
 * DOUBLE, VARCHAR(n), CHAR(n), STRING, VARBINARY(n), BINARY(n), BYTES,
 * DATE, TIME(p), TIMESTAMP(p) and
 * TIMESTAMP_LTZ(p) (weir/row.h); a STRING result has the
 * capacity of the schema's STRING (WEIR_STRING_DEFAULT_CAPACITY unless the
 * schema says otherwise).
 *
 * NULL. Flink calls a function with NULLs as given (a boxed parameter is
 * null), and so does weir for a parameter declared nullable (not_null
 * false): the value's `null` is set. A parameter declared NOT NULL is a
 * promise the function never sees NULL there: when the argument is NULL,
 * a scalar function is not called and the result is NULL (SQL's RETURNS
 * NULL ON NULL INPUT, for that parameter), and an aggregate function skips
 * the row (accumulate and retract are not called), as the built-in
 * aggregates skip NULLs. A result type declared NOT NULL is a promise the
 * function never returns NULL (a NULL then fails the job); the call's type
 * is NOT NULL when, besides, no NOT NULL parameter gets a nullable argument.
 *
 * Calls. Every callback runs on a subtask's worker thread; different
 * subtasks call the same function at once, so `arg` is shared: read-only,
 * or synchronised by the program. A callback must not keep the pointers it
 * is given past the call, must not block or call back into weir (but
 * weir_function_fail), and should allocate nothing (it runs once per row).
 * It returns 0, or fails the job: a negative WEIR_E* code (any other
 * non-zero value is WEIR_ECALLBACK), with a message written by
 * weir_function_fail; the job's error names the operator, the function and
 * the message ("Calc(select=[...]): to_fahrenheit: not a temperature: -500
 * in 'to_fahrenheit(celsius)'").
 */
#ifndef WEIR_FUNCTION_H
#define WEIR_FUNCTION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "weir/export.h"
#include "weir/row.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The most parameters a function may declare. */
#define WEIR_FUNCTION_MAX_ARGS 32
/* The largest accumulator of an aggregate function, in bytes. */
#define WEIR_FUNCTION_MAX_ACC_SIZE 65536

/* One value of a call: an argument (read-only) or the result. Which member
 * holds it is the type's: BOOLEAN (0 or 1), TINYINT, SMALLINT, INT, BIGINT
 * in i (an integer result wraps to its type, as Java's cast); DECIMAL(p, s)
 * in i and hi (below); DATE (days
 * since 1970-01-01), TIME (milliseconds of the day) in i; TIMESTAMP(p) and
 * TIMESTAMP_LTZ(p) in i (milliseconds since 1970-01-01 00:00, UTC for
 * TIMESTAMP_LTZ) and nanos (the nanoseconds within that millisecond, for
 * p > 3; a result is cut to p digits); DOUBLE and FLOAT in d (a FLOAT
 * result is rounded to the nearest float);
 * a string in s and len (its bytes, UTF-8, not NUL-terminated; a CHAR(n)
 * padded with spaces to n), a binary string too (any bytes; a BINARY(n)
 * padded with zero bytes to n). null: the SQL NULL (the other members are then
 * meaningless). */
typedef struct weir_value {
    int64_t i;
    double d;
    const char *s;
    uint32_t len;
    bool null;
    /* Since ABI 2 (weir/version.h): the nanoseconds within the millisecond
     * i of a TIMESTAMP(p) or TIMESTAMP_LTZ(p), 0..999999 (0 for p <= 3). */
    int32_t nanos;
    /* The high 64 bits of a DECIMAL's unscaled value (the value times
     * 10^s, a 128-bit two's complement integer whose low 64 bits are i):
     * for DECIMAL(p <= 18, s) i is the unscaled value and hi its sign
     * (0 or -1). A result of more than p digits is NULL. */
    int64_t hi;
} weir_value;

/* What a callback is given besides its values. Plain data, valid during
 * the call only. */
typedef struct weir_function_call {
    const char *name;  /* the function's name, as registered */
    void *arg;         /* the registration's arg */
    /* A function whose result is a string (a scalar function's eval, an
     * aggregate's get_value) may write it here: `capacity` bytes (the
     * result type's capacity) and room for a NUL after them, so that
     * snprintf(buf, capacity + 1, ...) fits. result->s may instead point
     * into an argument's bytes or (get_value) into the accumulator. A
     * result longer than the capacity fails the job. NULL and 0 for other
     * result types. */
    char *buf;
    uint32_t capacity;
    /* Where weir_function_fail writes the message (errsize bytes). */
    char *err;
    size_t errsize;
} weir_function_call;

/* Writes a message for the failure of the call being made (formatted as
 * printf, cut to fit) and returns the code to return with, `err` if it is
 * a negative WEIR_E* code, else WEIR_ECALLBACK:
 *     return weir_function_fail(call, WEIR_ERANGE, "no such sensor %lld", (long long)x);
 * For callbacks only, during their call. */
WEIR_EXPORT int weir_function_fail(weir_function_call *call, int err, const char *fmt, ...)
    WEIR_PRINTF(3, 4);

/* ---- scalar functions (Flink's ScalarFunction) ---------------------------- */

/* Evaluates one call: `nargs` arguments of the declared types, the result
 * into *result (zero-filled before the call: a non-NULL 0; set null for
 * NULL). 0, or a failure (above). */
typedef int (*weir_scalar_fn)(const weir_value *args, int nargs, weir_value *result,
                              weir_function_call *call);

typedef struct weir_scalar_function {
    const char *name;           /* copied */
    int nargs;                  /* 0..WEIR_FUNCTION_MAX_ARGS */
    const weir_type *arg_types; /* nargs parameter types (copied) */
    weir_type result_type;
    weir_scalar_fn eval;        /* required */
    void *arg;                  /* given to every call (call->arg); the program's */
} weir_scalar_function;

/* Registers a scalar function (the struct and what it points to are
 * copied). 0, or WEIR_EINVAL with why in err (a bad name or type, a name
 * taken), or WEIR_ENOMEM. MT safe. */
WEIR_EXPORT int weir_function_register_scalar(const weir_scalar_function *f, char *err,
                                              size_t errsize);

/* ---- aggregate functions (Flink's AggregateFunction) ---------------------- */

/* An aggregate's accumulator is `acc_size` bytes of plain data that weir
 * keeps for it: in a group's keyed state (group aggregates) or a window's
 * (window aggregates), copied, written into checkpoints and restored,
 * maybe in another process or at another parallelism. It must hold no
 * pointers (to memory the function allocated, or to arguments): what it
 * needs to remember it keeps in its own bytes (Flink serializes an
 * accumulator the same way). */
typedef struct weir_aggregate_function {
    const char *name;           /* copied */
    int nargs;                  /* 0..WEIR_FUNCTION_MAX_ARGS */
    const weir_type *arg_types; /* nargs parameter types (copied) */
    weir_type result_type;
    size_t acc_size;            /* 1..WEIR_FUNCTION_MAX_ACC_SIZE */
    /* Optional: makes a new accumulator (Flink's createAccumulator), which
     * starts zero-filled; without it zero-filled is new. Cannot fail. */
    void (*init)(void *acc, void *arg);
    /* Required: folds one row's arguments in. */
    int (*accumulate)(void *acc, const weir_value *args, int nargs, weir_function_call *call);
    /* Optional: takes one row's arguments out again (a -U or -D row of an
     * updating input). A group aggregate whose input may retract refuses a
     * function without it at plan time, as Flink's planner does ("could not
     * find an implementation method 'retract'"). A group's accumulator is
     * dropped when its last row is retracted, so retract need not return
     * it to the state init made. */
    int (*retract)(void *acc, const weir_value *args, int nargs, weir_function_call *call);
    /* Optional: folds accumulator `other` into `acc`. Window aggregates
     * whose windows share partial accumulators need it: HOP and CUMULATE
     * (panes combined when a window fires) and SESSION (sessions merging);
     * they refuse a function without it at plan time. TUMBLE windows and
     * group aggregates never merge. */
    int (*merge)(void *acc, const void *other, weir_function_call *call);
    /* Required: the result of the accumulator (Flink's getValue), into
     * *result (zero-filled first). Called for every result a group or a
     * window emits; it must not change the accumulator. */
    int (*get_value)(const void *acc, weir_value *result, weir_function_call *call);
    void *arg; /* given to init and to every call (call->arg); the program's */
} weir_aggregate_function;

/* Registers an aggregate function (the struct and what it points to are
 * copied): called as NAME(args) where an aggregate may stand, in a group
 * aggregate's or a window aggregate's select list (SQL: a grouped query;
 * the table API: weir_table_group_by, weir_table_window_aggregate). Not
 * with DISTINCT. 0, or WEIR_EINVAL with why in err, or WEIR_ENOMEM. MT
 * safe. */
WEIR_EXPORT int weir_function_register_aggregate(const weir_aggregate_function *f, char *err,
                                                 size_t errsize);

/* ---- the functions there are (SQL's SHOW FUNCTIONS) ----------------------- */

/* Calls `each` once per function a call can name: every built-in one
 * (user false: scalar functions, aggregates, the constructors ARRAY, MAP
 * and ROW; operators written between their operands, as IS TRUE, are not
 * listed) in capitals, then every registered one (user true) as it was
 * registered. In no particular order; `each` must not register a function.
 * MT safe. */
WEIR_EXPORT void weir_function_list(void (*each)(const char *name, bool user, bool aggregate,
                                                 void *arg),
                                    void *arg);

#ifdef __cplusplus
}
#endif
#endif
