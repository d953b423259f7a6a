/* clock.c — system and virtual processing-time clocks (clock.h). */
#include "clock.h"

#include <time.h>

int64_t weir__monotonic_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

void weir__clock_init(weir__clock *c, bool is_virtual)
{
    c->is_virtual = is_virtual;
    atomic_store(&c->virtual_now, 0);
    c->start_ns = weir__monotonic_ns();
}

int64_t weir__clock_now(const weir__clock *c)
{
    if (c->is_virtual)
        return atomic_load_explicit(&c->virtual_now, memory_order_acquire);
    return (weir__monotonic_ns() - c->start_ns) / 1000000;
}

int64_t weir__clock_now_ns(const weir__clock *c)
{
    if (c->is_virtual)
        return 0;
    return weir__monotonic_ns() - c->start_ns;
}

void weir__clock_set(weir__clock *c, int64_t t)
{
    atomic_store_explicit(&c->virtual_now, t, memory_order_release);
}

int64_t weir__clock_advance_to(weir__clock *c, int64_t t)
{
    int64_t cur = atomic_load(&c->virtual_now);
    while (cur < t && !atomic_compare_exchange_weak(&c->virtual_now, &cur, t))
        ;
    return cur < t ? t : cur;
}

int64_t weir__clock_add(weir__clock *c, int64_t ms)
{
    return atomic_fetch_add(&c->virtual_now, ms) + ms;
}

int64_t weir__clock_now_rmw(weir__clock *c)
{
    return atomic_fetch_add(&c->virtual_now, 0);
}

void weir__clock_start_at(weir__clock *c, int64_t t)
{
    if (c->is_virtual)
        weir__clock_set(c, t);
    else
        c->start_ns -= t * 1000000;
}
