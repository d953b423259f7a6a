/* error_slot.h — where a run keeps its first error: the job's, or a harness's.
 * Setting it is MT safe (a mutex: errors are off the data path); the first
 * error wins and later ones are dropped. */
#ifndef WEIR_BASE_ERROR_SLOT_H
#define WEIR_BASE_ERROR_SLOT_H

#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>

#include "weir/export.h"

typedef struct weir__errors {
    pthread_mutex_t lock;
    /* Set (seq_cst, under the lock) once the first error is in; read
     * without the lock as a hint (relaxed would do: the code and message
     * are read under the lock or after the join). */
    _Atomic int failed;
    int code;
    char msg[1024];
} weir__errors;

void weir__errors_init(weir__errors *e);
void weir__errors_destroy(weir__errors *e);
/* Records err with the formatted message if it is the first; returns err. */
int weir__errors_set(weir__errors *e, int err, const char *fmt, ...) WEIR_PRINTF(3, 4);
/* The same with a va_list; the attribute moves the format check to the
 * callers of the variadic wrappers (weir__errors_set, weir_ctx_fail). */
int weir__errors_setv(weir__errors *e, int err, const char *fmt, va_list ap) WEIR_PRINTF(3, 0);

#endif
