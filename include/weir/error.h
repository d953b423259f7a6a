/* weir/error.h — the one list of error codes, and the flow results.
 *
 * Every weir function that can fail returns an int: 0 is success, a negative
 * value is one of the WEIR_E* codes below. The list is an X-macro so that the
 * enum, weir_strerror() and weir_err_name() can never disagree. A call that
 * fails has no side effects and calls no callback.
 *
 * Flow results (a source has more / must wait / has ended) are not errors and
 * live in their own enum (weir_source_result in weir/operator.h).
 */
#ifndef WEIR_ERROR_H
#define WEIR_ERROR_H

#include "weir/export.h"

#ifdef __cplusplus
extern "C" {
#endif

/* X(name, value, message) */
#define WEIR_ERRNO_MAP(X)                                                        \
    X(EINVAL,    -1, "invalid argument or configuration")                        \
    X(ENOMEM,    -2, "out of memory")                                            \
    X(ESTATE,    -3, "call not allowed in the object's current state")           \
    X(ECALLBACK, -4, "a user callback failed")                                   \
    X(ECANCELED, -5, "the job was canceled")                                     \
    X(EIO,       -6, "input/output error")                                       \
    X(EFORMAT,   -7, "malformed input")                                          \
    X(ETYPE,     -8, "element type mismatch")                                    \
    X(ENOKEY,    -9, "keyed state or timers used on a stream that is not keyed") \
    X(ERANGE,   -10, "value out of range")                                       \
    X(ENOENT,   -11, "no such file, object or name")                             \
    X(EINTERNAL,-12, "internal error (a broken invariant in weir)")

typedef enum weir_errno {
    WEIR_OK = 0,
#define WEIR__ERRNO_ENUM(name, value, msg) WEIR_##name = (value),
    WEIR_ERRNO_MAP(WEIR__ERRNO_ENUM)
#undef WEIR__ERRNO_ENUM
} weir_errno;

/* A static, human-readable message for an error code ("success" for 0,
 * "unknown error" for a value not in the list). Never NULL. MT safe. */
WEIR_EXPORT const char *weir_strerror(int err);

/* The code's name without the prefix ("EINVAL"); "OK" for 0, "UNKNOWN"
 * otherwise. Never NULL. MT safe. */
WEIR_EXPORT const char *weir_err_name(int err);

#ifdef __cplusplus
}
#endif
#endif
