/* futex.h — sleeping on a 32-bit word until another thread changes it and
 * wakes the sleeper: how idle workers (scheduler.c) and the diagnostic
 * collector (diag.c) park without spinning. Linux futexes, process-private.
 *
 * The protocol around them is the caller's: read the word, publish "I am
 * parked", check for work once more, then wait on the value read first; a
 * waker changes the word before it wakes, so a wake-up between the check
 * and the wait is never lost (the wait returns at once). Spurious wake-ups
 * happen; callers loop. MT safe. */
#ifndef WEIR_BASE_FUTEX_H
#define WEIR_BASE_FUTEX_H

#include <stdatomic.h>
#include <stdint.h>

/* Sleeps while *addr == expected, at most timeout_ms (< 0: no limit). */
void weir__futex_wait(_Atomic uint32_t *addr, uint32_t expected, int64_t timeout_ms);
/* Wakes one thread sleeping on addr. */
void weir__futex_wake(_Atomic uint32_t *addr);

#endif
