/* table_function.c — functions written in C (weir/function.h): the
 * process's registry of them, and what every call of one shares — the
 * message of a failed call and the check of a result.
 *
 * The registry is an array of pointers to entries that are never moved or
 * freed, behind a mutex: registering and looking up happen at plan time
 * (a lookup per call in an expression being bound), never per row, and a
 * compiled expression keeps a pointer to its function's entry for as long
 * as it lives. The evaluator (expr_eval.c) and the aggregates
 * (table_agg.c) call the entry's callbacks with no lock: an entry is
 * immutable once it is in the array.
 */
#include <ctype.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "decimal.h"
#include "table_internal.h"
#include "weir/error.h"

static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;
static weir__function **registry;
static size_t nregistered, registry_cap;

/* Names SQL reads itself before any binding (the group-window functions
 * and their auxiliaries, a watermark's SOURCE_WATERMARK(), a window TVF's
 * words), and the words of the expression grammar: a function of one of
 * these names could be registered but never called. */
static const char *const reserved_names[] = {
    "TUMBLE", "HOP", "SESSION", "CUMULATE",
    "TUMBLE_START", "TUMBLE_END", "TUMBLE_ROWTIME", "TUMBLE_PROCTIME",
    "HOP_START", "HOP_END", "HOP_ROWTIME", "HOP_PROCTIME",
    "SESSION_START", "SESSION_END", "SESSION_ROWTIME", "SESSION_PROCTIME",
    "CUMULATE_START", "CUMULATE_END", "CUMULATE_ROWTIME", "CUMULATE_PROCTIME",
    "SOURCE_WATERMARK", "PROCTIME", "DESCRIPTOR", "TABLE",
    "CAST", "TRY_CAST", "CASE", "WHEN", "THEN", "ELSE", "END", "INTERVAL", "NULL", "TRUE", "FALSE",
    "AND", "OR", "NOT", "IS", "IN", "AS", "DISTINCT", "SELECT", "FROM", "WHERE", "GROUP",
    "BY", "HAVING", "UNION", "ORDER", "LIMIT", "WINDOW", "WITH", "ON", "JOIN", "VALUES",
    NULL};

static int fail(char *err, size_t errsize, int code, const char *fmt, ...) WEIR_PRINTF(4, 5);
static int fail(char *err, size_t errsize, int code, const char *fmt, ...)
{
    if (err && errsize) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, errsize, fmt, ap);
        va_end(ap);
    }
    return code;
}

static bool usable_type(weir_type t)
{
    switch (t.id) {
    case WEIR_TYPE_BOOLEAN:
    case WEIR_TYPE_TINYINT:
    case WEIR_TYPE_SMALLINT:
    case WEIR_TYPE_INT:
    case WEIR_TYPE_BIGINT:
    case WEIR_TYPE_FLOAT:
    case WEIR_TYPE_DOUBLE:
    case WEIR_TYPE_TIMESTAMP:
    case WEIR_TYPE_TIMESTAMP_LTZ:
    case WEIR_TYPE_DATE:
    case WEIR_TYPE_TIME: return t.capacity == 0 && weir_type_precision(t) <= 9;
    case WEIR_TYPE_DECIMAL:
        return t.capacity == 0 && weir_type_precision(t) >= 1 && weir_type_precision(t) <= 38 &&
               t.scale <= weir_type_precision(t);
    case WEIR_TYPE_VARCHAR:
    case WEIR_TYPE_VARBINARY: return t.capacity <= WEIR_STRING_MAX_CAPACITY;
    case WEIR_TYPE_CHAR:
    case WEIR_TYPE_BINARY: return t.capacity >= 1 && t.capacity <= WEIR_STRING_MAX_CAPACITY;
    default: return false;
    }
}

/* What a definition says, checked and copied into `f` (the callbacks by
 * the caller). 0, or WEIR_EINVAL with why in err. */
static int check_common(weir__function *f, const char *kind, const char *name, int nargs,
                        const weir_type *arg_types, weir_type result, char *err, size_t errsize)
{
    if (!name || !name[0])
        return fail(err, errsize, WEIR_EINVAL, "%s function: a name is required", kind);
    size_t len = strlen(name);
    bool ident = len < sizeof f->name && (isalpha((unsigned char)name[0]) || name[0] == '_');
    for (size_t i = 1; ident && i < len; i++)
        ident = isalnum((unsigned char)name[i]) || name[i] == '_';
    if (!ident)
        return fail(err, errsize, WEIR_EINVAL, "%s function '%.80s': a name is a letter or '_', "
                    "then letters, digits and '_', at most %zu bytes", kind, name,
                    sizeof f->name - 1);
    if (weir__builtin_function(name))
        return fail(err, errsize, WEIR_EINVAL, "%s function '%s': %s is a built-in function",
                    kind, name, name);
    for (int i = 0; reserved_names[i]; i++)
        if (strcasecmp(name, reserved_names[i]) == 0)
            return fail(err, errsize, WEIR_EINVAL, "%s function '%s': %s is a word of SQL or "
                        "of the expression language", kind, name, reserved_names[i]);
    if (nargs < 0 || nargs > WEIR_FUNCTION_MAX_ARGS || (nargs > 0 && !arg_types))
        return fail(err, errsize, WEIR_EINVAL, "%s function '%s': %d arguments (0 to %d, with "
                    "their types in arg_types)", kind, name, nargs, WEIR_FUNCTION_MAX_ARGS);
    char t[64];
    for (int i = 0; i < nargs; i++)
        if (!usable_type(arg_types[i])) {
            weir_type_format(arg_types[i], t, sizeof t);
            return fail(err, errsize, WEIR_EINVAL, "%s function '%s': argument %d: %s is not a "
                        "type a function takes (BOOLEAN, the numbers, strings, binary "
                        "strings, DATE, TIME, timestamps)", kind, name, i + 1,
                        arg_types[i].id == WEIR_TYPE_NULL ? "NULL" : t);
        }
    if (!usable_type(result)) {
        weir_type_format(result, t, sizeof t);
        return fail(err, errsize, WEIR_EINVAL, "%s function '%s': the result type %s is not one a "
                    "function returns", kind, name, result.id == WEIR_TYPE_NULL ? "NULL" : t);
    }
    memcpy(f->name, name, len + 1);
    f->nargs = nargs;
    for (int i = 0; i < nargs; i++)
        f->arg_types[i] = arg_types[i];
    f->result_type = result;
    return 0;
}

static bool same_type(weir_type a, weir_type b)
{
    return a.id == b.id && a.capacity == b.capacity && a.not_null == b.not_null;
}

/* Whether two entries define the same function (the name's case aside). */
static bool same_definition(const weir__function *a, const weir__function *b)
{
    if (strcasecmp(a->name, b->name) != 0 || a->aggregate != b->aggregate ||
        a->nargs != b->nargs || a->eval != b->eval || a->arg != b->arg ||
        !same_type(a->result_type, b->result_type))
        return false;
    for (int i = 0; i < a->nargs; i++)
        if (!same_type(a->arg_types[i], b->arg_types[i]))
            return false;
    const weir_aggregate_function *x = &a->agg, *y = &b->agg;
    return x->acc_size == y->acc_size && x->init == y->init && x->accumulate == y->accumulate &&
           x->retract == y->retract && x->merge == y->merge && x->get_value == y->get_value;
}

static const weir__function *find_locked(const char *name)
{
    for (size_t i = 0; i < nregistered; i++)
        if (strcasecmp(registry[i]->name, name) == 0)
            return registry[i];
    return NULL;
}

/* Adds f (taken over) unless its name is taken by another definition. */
static int add(weir__function *f, char *err, size_t errsize)
{
    pthread_mutex_lock(&registry_lock);
    const weir__function *old = find_locked(f->name);
    int r = 0;
    if (old) {
        if (!same_definition(old, f))
            r = fail(err, errsize, WEIR_EINVAL, "%s function '%s': a function named %s is "
                     "registered already", f->aggregate ? "aggregate" : "scalar", f->name,
                     old->name);
        free(f);
    } else {
        if (nregistered == registry_cap) {
            size_t cap = registry_cap ? 2 * registry_cap : 16;
            weir__function **grown = realloc(registry, cap * sizeof *grown);
            if (!grown) {
                pthread_mutex_unlock(&registry_lock);
                free(f);
                return fail(err, errsize, WEIR_ENOMEM, "out of memory");
            }
            registry = grown;
            registry_cap = cap;
        }
        registry[nregistered++] = f;
    }
    pthread_mutex_unlock(&registry_lock);
    return r;
}

int weir_function_register_scalar(const weir_scalar_function *def, char *err, size_t errsize)
{
    if (err && errsize)
        err[0] = 0;
    if (!def)
        return fail(err, errsize, WEIR_EINVAL, "scalar function: a definition is required");
    weir__function *f = calloc(1, sizeof *f);
    if (!f)
        return fail(err, errsize, WEIR_ENOMEM, "out of memory");
    int r = check_common(f, "scalar", def->name, def->nargs, def->arg_types, def->result_type,
                         err, errsize);
    if (r == 0 && !def->eval)
        r = fail(err, errsize, WEIR_EINVAL, "scalar function '%s': eval is required", def->name);
    if (r) {
        free(f);
        return r;
    }
    f->eval = def->eval;
    f->arg = def->arg;
    return add(f, err, errsize);
}

int weir_function_register_aggregate(const weir_aggregate_function *def, char *err,
                                     size_t errsize)
{
    if (err && errsize)
        err[0] = 0;
    if (!def)
        return fail(err, errsize, WEIR_EINVAL, "aggregate function: a definition is required");
    weir__function *f = calloc(1, sizeof *f);
    if (!f)
        return fail(err, errsize, WEIR_ENOMEM, "out of memory");
    int r = check_common(f, "aggregate", def->name, def->nargs, def->arg_types,
                         def->result_type, err, errsize);
    if (r == 0 && (!def->accumulate || !def->get_value))
        r = fail(err, errsize, WEIR_EINVAL, "aggregate function '%s': accumulate and get_value "
                 "are required", def->name);
    if (r == 0 && (def->acc_size == 0 || def->acc_size > WEIR_FUNCTION_MAX_ACC_SIZE))
        r = fail(err, errsize, WEIR_EINVAL, "aggregate function '%s': acc_size %zu is not in "
                 "1..%d", def->name, def->acc_size, WEIR_FUNCTION_MAX_ACC_SIZE);
    if (r) {
        free(f);
        return r;
    }
    f->aggregate = true;
    f->agg = *def;
    f->agg.name = f->name;
    f->agg.arg_types = f->arg_types;
    f->arg = def->arg;
    return add(f, err, errsize);
}

const weir__function *weir__function_find(const char *name)
{
    pthread_mutex_lock(&registry_lock);
    const weir__function *f = find_locked(name);
    pthread_mutex_unlock(&registry_lock);
    return f;
}

typedef struct each_fn {
    void (*each)(const char *name, bool user, bool aggregate, void *arg);
    void *arg;
} each_fn;

static void builtin_named(const char *name, bool aggregate, void *arg)
{
    const each_fn *e = arg;
    e->each(name, false, aggregate, e->arg);
}

void weir_function_list(void (*each)(const char *name, bool user, bool aggregate, void *arg),
                        void *arg)
{
    if (!each)
        return;
    weir__builtin_function_each(builtin_named, &(each_fn){each, arg});
    pthread_mutex_lock(&registry_lock);
    for (size_t i = 0; i < nregistered; i++)
        each(registry[i]->name, true, registry[i]->aggregate, arg);
    pthread_mutex_unlock(&registry_lock);
}

/* Whether r is one of weir/error.h's codes. */
static bool known_code(int r)
{
    return r < 0 && strcmp(weir_err_name(r), "UNKNOWN") != 0;
}

int weir_function_fail(weir_function_call *call, int err, const char *fmt, ...)
{
    if (call && call->err && call->errsize && fmt) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(call->err, call->errsize, fmt, ap);
        va_end(ap);
    }
    return known_code(err) ? err : WEIR_ECALLBACK;
}

/* The message of the calling thread's last failed call: it is read by the
 * caller at once (formatted into the job's error), before this thread
 * calls anything else. */
static _Thread_local char failure[640];

int weir__function_failed(const weir__function *f, int r, const char *msg, const char **why)
{
    int code = known_code(r) ? r : WEIR_ECALLBACK;
    if (msg && msg[0])
        snprintf(failure, sizeof failure, "%s: %s", f->name, msg);
    else
        snprintf(failure, sizeof failure, "%s failed (%s)", f->name, weir_strerror(code));
    *why = failure;
    return code;
}

static int bad_result(const weir__function *f, const char **why, const char *fmt, ...)
    WEIR_PRINTF(3, 4);
static int bad_result(const weir__function *f, const char **why, const char *fmt, ...)
{
    char msg[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    weir__function_failed(f, WEIR_ECALLBACK, msg, why);
    return WEIR_ECALLBACK;
}

int weir__function_result(const weir__function *f, weir_type t, weir__val *v, char *buf,
                          const char **why)
{
    char tn[64];
    if (v->null) {
        if (t.not_null) {
            weir_type_format(f->result_type, tn, sizeof tn);
            return bad_result(f, why, "returned NULL, but its result type is %s", tn);
        }
        return 0;
    }
    switch (t.id) {
    case WEIR_TYPE_BOOLEAN: v->i = v->i != 0; break;
    case WEIR_TYPE_TINYINT:
    case WEIR_TYPE_SMALLINT:
    case WEIR_TYPE_INT: v->i = weir__int_wrap(t.id, v->i); break;
    case WEIR_TYPE_FLOAT: v->d = (float)v->d; break;
    case WEIR_TYPE_DATE: v->i = weir__int_wrap(WEIR_TYPE_INT, v->i); break;
    case WEIR_TYPE_DECIMAL:
        if (weir_type_precision(t) <= 18)
            v->hi = v->i < 0 ? -1 : 0; /* i is all of it */
        if (!weir__dec_fits(weir__dec_get(v), weir_type_precision(t))) {
            /* more digits than the type holds: NULL, as Flink's
             * DecimalData.fromBigDecimal makes a UDF's BigDecimal */
            if (t.not_null) {
                t.not_null = false;
                weir_type_format(t, tn, sizeof tn);
                return bad_result(f, why, "returned a value of more digits than %s holds", tn);
            }
            v->null = true;
        }
        break;
    case WEIR_TYPE_TIME:
        if (v->i < 0 || v->i >= 86400000)
            return bad_result(f, why, "returned a TIME of %lld ms, not in 0..86399999",
                              (long long)v->i);
        break;
    case WEIR_TYPE_TIMESTAMP:
    case WEIR_TYPE_TIMESTAMP_LTZ:
        if (v->nanos < 0 || v->nanos > 999999)
            return bad_result(f, why, "returned %d nanoseconds within a millisecond, not in "
                              "0..999999", (int)v->nanos);
        weir__timestamp_truncate(&v->i, &v->nanos, weir_type_precision(t));
        break;
    case WEIR_TYPE_VARCHAR:
    case WEIR_TYPE_CHAR:
    case WEIR_TYPE_VARBINARY:
    case WEIR_TYPE_BINARY:
        if (v->len > 0 && !v->s)
            return bad_result(f, why, "returned a string of %u bytes without its bytes (s is "
                              "NULL)", v->len);
        if (v->len > t.capacity) {
            t.not_null = false;
            weir_type_format(t, tn, sizeof tn);
            return bad_result(f, why, "returned %u bytes, more than its result type %s holds",
                              v->len, tn);
        }
        if ((t.id == WEIR_TYPE_CHAR || t.id == WEIR_TYPE_BINARY) && v->len < t.capacity) {
            /* CHAR(n) is padded to n with spaces, BINARY(n) with zero
             * bytes, as any CHAR or BINARY value */
            if (v->s != buf)
                memmove(buf, v->s, v->len);
            memset(buf + v->len, t.id == WEIR_TYPE_CHAR ? ' ' : 0, t.capacity - v->len);
            v->s = buf;
            v->len = t.capacity;
        }
        break;
    default: break;
    }
    return 0;
}
