/* fifo_reader.h — a thread that reads a FIFO the test made to its end, for
 * tests of writers that write into a FIFO in place (weir/outfile.h).
 *
 *     fifo_reader r;
 *     fifo_reader_start(&r, path);   (mkfifo'd by the test, in its temp folder)
 *     ... the writer opens the FIFO, writes, closes ...
 *     char *got = fifo_reader_join(&r, &len);   (caller frees)
 *
 * The reader's open() meets the writer's; if the writer never opens the
 * FIFO, fifo_reader_join() opens it for writing itself (and closes it) so
 * that the reader ends with what it got, and the test never hangs.
 */
#ifndef WEIR_TESTS_FIFO_READER_H
#define WEIR_TESTS_FIFO_READER_H

#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

typedef struct fifo_reader {
    char path[512];
    pthread_t thread;
    char *data;
    size_t len;
    atomic_bool done;
} fifo_reader;

static void *fifo_reader_main(void *arg)
{
    fifo_reader *r = arg;
    int fd = open(r->path, O_RDONLY);
    size_t cap = 4096;
    r->data = malloc(cap);
    if (fd < 0 || !r->data) {
        if (fd >= 0)
            close(fd);
        atomic_store(&r->done, true);
        return NULL;
    }
    for (;;) {
        if (r->len + 1 >= cap) {
            cap *= 2;
            char *d = realloc(r->data, cap);
            if (!d)
                break;
            r->data = d;
        }
        ssize_t n = read(fd, r->data + r->len, cap - r->len - 1);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        r->len += (size_t)n;
    }
    r->data[r->len] = '\0';
    close(fd);
    atomic_store(&r->done, true);
    return NULL;
}

static inline void fifo_reader_start(fifo_reader *r, const char *path)
{
    memset(r, 0, sizeof *r);
    snprintf(r->path, sizeof r->path, "%s", path);
    atomic_init(&r->done, false);
    cr_assert_eq(pthread_create(&r->thread, NULL, fifo_reader_main, r), 0);
}

/* What the reader got (NUL-terminated; *len without it). Caller frees. */
static inline char *fifo_reader_join(fifo_reader *r, size_t *len)
{
    /* A writer that never came: be one, so the reader's open returns (and
     * again, until it has: the reader may not have reached its open yet). */
    while (!atomic_load(&r->done)) {
        int fd = open(r->path, O_WRONLY | O_NONBLOCK);
        if (fd >= 0)
            close(fd);
        struct timespec t = {0, 1000000L};
        nanosleep(&t, NULL);
    }
    pthread_join(r->thread, NULL);
    cr_assert_not_null(r->data, "the FIFO reader could not start");
    if (len)
        *len = r->len;
    return r->data;
}

#endif
