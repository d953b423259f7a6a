/* weir/operator_builtin.h — what weir's built-in operators use of the runtime
 * beyond weir/operator.h. NOT a stable API: it changes with the runtime and
 * carries no compatibility promise across versions (WEIR_ABI_VERSION does not
 * cover it). A user's operator is written against weir/operator.h alone.
 *
 * Why these are not in weir/operator.h: the window reports feed diagnostic
 * events whose meaning the capture format (docs/CAPTURE.md) fixes for
 * weir's window operators — a window fire, a late element and the windows it
 * missed, a session merge, a window's cleanup — and the summary's identities
 * check them against the counters; an operator that reported them by other
 * rules would make the capture lie. weir_batch_max_ts is a helper of the
 * timestamp and window operators' batch paths, kept inline here so that they
 * and the runtime share one copy.
 */
#ifndef WEIR_OPERATOR_BUILTIN_H
#define WEIR_OPERATOR_BUILTIN_H

#include <stdbool.h>
#include <stdint.h>

#include "weir/export.h"
#include "weir/operator.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The largest of `init` and the batch's timestamps. Four running maxima: one
 * would chain every compare to the one before it (a compare and a
 * conditional move of latency each record); four let the CPU overlap them. */
static inline int64_t weir_batch_max_ts(const weir_batch *b, int64_t init)
{
    int64_t m0 = init, m1 = init, m2 = init, m3 = init;
    const unsigned char *p = b->data;
    const size_t stride = b->stride;
    uint32_t i = 0;
    for (; i + 4 <= b->count; i += 4, p += 4 * stride) {
        int64_t t0, t1, t2, t3;
        WEIR__MEMCPY(&t0, p, sizeof t0);
        WEIR__MEMCPY(&t1, p + stride, sizeof t1);
        WEIR__MEMCPY(&t2, p + 2 * stride, sizeof t2);
        WEIR__MEMCPY(&t3, p + 3 * stride, sizeof t3);
        m0 = t0 > m0 ? t0 : m0;
        m1 = t1 > m1 ? t1 : m1;
        m2 = t2 > m2 ? t2 : m2;
        m3 = t3 > m3 ? t3 : m3;
    }
    for (; i < b->count; i++, p += stride) {
        int64_t t;
        WEIR__MEMCPY(&t, p, sizeof t);
        m0 = t > m0 ? t : m0;
    }
    m0 = m1 > m0 ? m1 : m0;
    m2 = m3 > m2 ? m3 : m2;
    return m2 > m0 ? m2 : m0;
}

/* The processing time that counts towards idleness in this operator's
 * subtask (Flink's paused activity clock): weir_ctx_now() less the time the
 * subtask's source spent paused by watermark alignment
 * (weir_source_align_watermarks), so that a source held back by alignment is
 * not declared idle; weir_ctx_now() in any other subtask. */
WEIR_EXPORT int64_t weir_ctx_activity_now(const weir_ctx *ctx);

/* Window events (window operators report them; the current key is used). */
WEIR_EXPORT void weir_ctx_report_window_fire(weir_ctx *ctx, int64_t start, int64_t end, int firing,
                                             int64_t count);
/* The on-time firing of a window whose state the operator removes right
 * after it, in the same call (its cleanup time is its max: allowed lateness
 * 0, or a processing-time window): one window_fire event that carries the
 * cleanup (docs/CAPTURE.md, version 3), and the weir_ctx_report_cleanup of
 * [start, end) that the operator makes next writes nothing. */
WEIR_EXPORT void weir_ctx_report_window_fire_cleanup(weir_ctx *ctx, int64_t start, int64_t end,
                                                     int64_t count);
/* An element that arrived too late (`elem` of the input's size, valid during
 * the call): counts it as late-dropped or late-side, reports it to the
 * diagnostic channel, and in a harness hands a dropped one to on_dropped.
 * The operator still emits a side-output one itself (weir_emit_side).
 * [missed_start, missed_end) is the latest window the element missed;
 * missed_every > 0 says it also missed each window missed_every earlier
 * that still contains its timestamp (a sliding window's slide), 0 that it
 * missed that one window only (MIN, MIN: none at all). */
WEIR_EXPORT void weir_ctx_report_late(weir_ctx *ctx, const void *elem, int64_t timestamp,
                                      int64_t missed_start, int64_t missed_end,
                                      int64_t missed_every, bool dropped);
/* A join's state (the join operators report it as it changes; cheap: the
 * diagnostic channel writes a join_state event at its next throughput
 * sample when the values moved): the rows each side holds in this subtask,
 * and how far the join holds its output watermark back behind its input's
 * (ms; 0 for a join that passes the watermark on). */
WEIR_EXPORT void weir_ctx_report_join_state(weir_ctx *ctx, int64_t left_rows, int64_t right_rows,
                                            int64_t hold_back_ms);
WEIR_EXPORT void weir_ctx_report_merge(weir_ctx *ctx, int64_t start, int64_t end, int64_t merged);
WEIR_EXPORT void weir_ctx_report_cleanup(weir_ctx *ctx, int64_t start, int64_t end);

#ifdef __cplusplus
}
#endif
#endif
