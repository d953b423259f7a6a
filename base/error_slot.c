/* error_slot.c — the first-error slot of a job or harness (error_slot.h);
 * not to be confused with error.c, the messages and names of the codes. */
#include "error_slot.h"

#include <stdio.h>
#include <string.h>

void weir__errors_init(weir__errors *e)
{
    pthread_mutex_init(&e->lock, NULL);
    atomic_store(&e->failed, 0);
    e->code = 0;
    e->msg[0] = '\0';
}

void weir__errors_destroy(weir__errors *e)
{
    pthread_mutex_destroy(&e->lock);
}

int weir__errors_setv(weir__errors *e, int err, const char *fmt, va_list ap)
{
    pthread_mutex_lock(&e->lock);
    if (e->code == 0) {
        e->code = err;
        vsnprintf(e->msg, sizeof e->msg, fmt, ap);
        atomic_store(&e->failed, 1);
    }
    pthread_mutex_unlock(&e->lock);
    return err;
}

int weir__errors_set(weir__errors *e, int err, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    weir__errors_setv(e, err, fmt, ap);
    va_end(ap);
    return err;
}
