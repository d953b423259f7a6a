/* wf_shim.h — bench/work.c's work as plain C calls, for the WindFlow
 * programs (work_shim.c; bench/windflow/README.md). Elements are
 * bench_elem: {int64 key; int64 value}, 16 bytes. */
#ifndef WEIR_BENCH_WF_SHIM_H
#define WEIR_BENCH_WF_SHIM_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* chain and rebalance: gen, map (value * 3 + key), filter (7 keys in 8),
 * the counting sink into acc[subtask] */
void wfb_gen(int64_t seq, void *out);
void wfb_map(const void *in, void *out);
int wfb_filter(const void *elem);
void *wfb_acc_create(int n);
void wfb_sink(const void *elem, int64_t ts, int subtask, void *acc);
void wfb_acc_total(const void *acc, int n, uint64_t *count, uint64_t *sum);
/* what the sinks must count for records 0..records-1 */
void wfb_expected(int64_t records, uint64_t *count, uint64_t *sum);

/* the windows: the event-time element (returns its timestamp in ms: 1 M
 * records a second of event time, up to 100 ms out of order, the first
 * ones negative), the counting aggregate, the window-result sink */
int64_t wfb_gen_event(int64_t seq, void *out);
void wfb_count_add(int64_t *acc, const void *elem);
void wfb_count_merge(int64_t *acc, const int64_t *other);
void *wfb_wacc_create(int n);
void wfb_sink_window(int64_t key, int64_t count, int64_t max_ts_ms, int subtask, void *wacc);

typedef struct wfb_wtotals {
    uint64_t results, counts, mix;
} wfb_wtotals;

void wfb_wacc_total(const void *wacc, int n, wfb_wtotals *t);
/* What windows of size_ms every slide_ms must give for records
 * 0..records-1 (weir's windows: aligned to 0, every window with a record).
 * 0, or -1 out of memory. */
int wfb_window_reference(int64_t records, int64_t size_ms, int64_t slide_ms, wfb_wtotals *t);

#ifdef __cplusplus
}
#endif

#endif
