/* work_shim.c — bench/work.c's per-record work for the WindFlow programs
 * (bench/windflow/README.md).
 *
 * work.c is C11 and its header (bench.h) uses C11 atomics and _Alignas,
 * which a C++17 compiler does not take; this file is compiled as C beside
 * work.c and hands the C++ programs the same functions through plain C
 * calls. Every call still goes through work.c's table of pointers
 * (bench_work_get), so the WindFlow operators make the same indirect calls
 * a record as weir's operators and the plain-C baselines do. It also
 * computes what the sinks must receive: chain and rebalance through
 * bench_expected, the windows through a reference of their own (per key
 * and second of event time, a count; a window sums its panes), the same
 * totals bench_verify_windows compares (results, the sum of their counts,
 * the order-free mix of key, window max timestamp and count).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "wf_shim.h"

static const bench_work *w(void)
{
    static const bench_work *work;
    if (!work)
        work = bench_work_get();
    return work;
}

void wfb_gen(int64_t seq, void *out)
{
    w()->gen(seq, out);
}

void wfb_map(const void *in, void *out)
{
    (void)w()->map(in, out, NULL);
}

int wfb_filter(const void *elem)
{
    return w()->filter(elem, NULL);
}

int64_t wfb_gen_event(int64_t seq, void *out)
{
    return w()->gen_event(seq, out);
}

void wfb_count_add(int64_t *acc, const void *elem)
{
    w()->count_add(acc, elem, NULL);
}

void wfb_count_merge(int64_t *acc, const int64_t *other)
{
    w()->count_merge(acc, other, NULL);
}

void *wfb_acc_create(int n)
{
    bench_acc *a = aligned_alloc(_Alignof(bench_acc), (size_t)n * sizeof *a);
    if (a)
        memset(a, 0, (size_t)n * sizeof *a);
    return a;
}

void wfb_sink(const void *elem, int64_t ts, int subtask, void *acc)
{
    (void)w()->sink(elem, ts, subtask, acc);
}

void wfb_acc_total(const void *acc, int n, uint64_t *count, uint64_t *sum)
{
    const bench_acc *a = acc;
    *count = *sum = 0;
    for (int i = 0; i < n; i++) {
        *count += a[i].count;
        *sum += a[i].sum;
    }
}

void wfb_expected(int64_t records, uint64_t *count, uint64_t *sum)
{
    bench_expected(records, BENCH_SHAPE_MAP_FILTER, count, sum);
}

void *wfb_wacc_create(int n)
{
    bench_wacc *a = aligned_alloc(_Alignof(bench_wacc), (size_t)n * sizeof *a);
    if (a)
        memset(a, 0, (size_t)n * sizeof *a);
    return a;
}

void wfb_sink_window(int64_t key, int64_t count, int64_t max_ts_ms, int subtask, void *wacc)
{
    bench_elem r = {.key = key, .value = count};
    (void)w()->sink_window(&r, max_ts_ms, subtask, wacc);
}

void wfb_wacc_total(const void *wacc, int n, wfb_wtotals *t)
{
    const bench_wacc *a = wacc;
    memset(t, 0, sizeof *t);
    for (int i = 0; i < n; i++) {
        t->results += a[i].results;
        t->counts += a[i].counts;
        t->mix += a[i].mix;
    }
}

static int64_t floor_div(int64_t a, int64_t b)
{
    int64_t q = a / b;
    return q - ((a % b != 0) && ((a < 0) != (b < 0)));
}

int wfb_window_reference(int64_t records, int64_t size_ms, int64_t slide_ms, wfb_wtotals *t)
{
    memset(t, 0, sizeof *t);
    bench_elem e;
    /* panes of slide_ms: the first is the one of the smallest timestamp */
    int64_t lo = floor_div(-BENCH_EVENT_DISORDER_MS, slide_ms);
    int64_t hi = floor_div(records > 0 ? (records - 1) / BENCH_EVENTS_PER_MS : 0, slide_ms);
    int64_t npanes = hi - lo + 1;
    int64_t *panes = calloc((size_t)(npanes * BENCH_EVENT_KEYS), sizeof *panes);
    if (!panes)
        return -1;
    for (int64_t s = 0; s < records; s++) {
        int64_t ts = w()->gen_event(s, &e);
        panes[e.key * npanes + (floor_div(ts, slide_ms) - lo)]++;
    }
    int64_t per = size_ms / slide_ms; /* panes a window */
    for (int64_t k = 0; k < BENCH_EVENT_KEYS; k++) {
        const int64_t *p = panes + k * npanes;
        /* window starts (in panes) from lo - per + 1 to hi */
        for (int64_t start = lo - per + 1; start <= hi; start++) {
            int64_t c = 0;
            for (int64_t i = start; i < start + per; i++)
                c += i >= lo && i <= hi ? p[i - lo] : 0;
            if (c == 0)
                continue;
            t->results++;
            t->counts += (uint64_t)c;
            t->mix += bench_result_mix(k, start * slide_ms + size_ms - 1, c);
        }
    }
    free(panes);
    return 0;
}
