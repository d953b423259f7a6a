/* clock.h — the job's processing-time clock: the monotonic system clock, or
 * a virtual clock that only the scheduler (or the harness) moves.
 *
 * Times are ms since the run started. The virtual clock is one atomic value
 * that only moves forward: workers read it concurrently; the worker that
 * finds the job quiescent moves it to the earliest deadline, a worker whose
 * source has been busy moves it by the work done (scheduler.c), and the
 * harness sets it.
 */
#ifndef WEIR_BASE_CLOCK_H
#define WEIR_BASE_CLOCK_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

typedef struct weir__clock {
    bool is_virtual;
    /* Release by its one writer (the advancing worker, the harness),
     * acquire by readers: what the advance did before it (the deadlines it
     * read) comes before any step at the new time. */
    _Atomic int64_t virtual_now;
    int64_t start_ns; /* system clock: CLOCK_MONOTONIC at start */
} weir__clock;

void weir__clock_init(weir__clock *c, bool is_virtual);
int64_t weir__clock_now(const weir__clock *c);
/* Nanoseconds since start on the system clock (0 on the virtual clock). */
int64_t weir__clock_now_ns(const weir__clock *c);
void weir__clock_set(weir__clock *c, int64_t t);
/* Virtual clock, any worker: moves it to `t` unless it reads more already
 * (never back); returns what it reads after. */
int64_t weir__clock_advance_to(weir__clock *c, int64_t t);
/* Virtual clock, any worker: moves it `ms` forward; returns the new time. */
int64_t weir__clock_add(weir__clock *c, int64_t ms);
/* Reads the virtual clock by a read-modify-write: the look of a hand-off
 * whose other side moves the clock and then looks at a flag (scheduler.c,
 * park). */
int64_t weir__clock_now_rmw(weir__clock *c);
/* Right after init: the clock reads `t` now (a restored job's time goes on). */
void weir__clock_start_at(weir__clock *c, int64_t t);
/* CLOCK_MONOTONIC in ns (for waits and benchmarks of the runtime itself). */
int64_t weir__monotonic_ns(void);

#endif
