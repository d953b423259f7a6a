/* weir/async.h — asynchronous I/O (Flink's AsyncDataStream and
 * AsyncWaitOperator): an operator that hands each element to the user's
 * asynchronous function and emits the results when the function completes
 * them, from any thread, with up to `capacity` elements in flight.
 *
 *     static int lookup(const void *elem, int64_t ts, weir_async_handle h, void *arg)
 *     {
 *         my_client_send(arg, elem, h);   // the reply thread calls
 *         return 0;                       // weir_async_complete(h, &out, 1)
 *     }
 *     weir_stream *enriched = weir_stream_async(s, &(weir_async_spec){
 *         .invoke = lookup, .arg = client, .out_size = sizeof(out),
 *         .capacity = 100, .timeout_ms = 1000});
 *
 * Ordered (the default, Flink's orderedWait): results leave in the order of
 * their elements. Unordered (unorderedWait): a result leaves as soon as it
 * is complete, but never past a watermark: the results of the elements
 * between two watermarks leave in any order, after the first watermark and
 * before the second (Flink's rule). Either way a watermark leaves only once
 * every element before it has its results out, so no result is late
 * downstream for having been slow.
 *
 * Capacity: when `capacity` elements (and watermarks) are waiting, the
 * operator waits for the oldest to complete or time out before it takes
 * the next element: its worker waits (Flink's task thread does the same),
 * and the input backs up upstream.
 *
 * Timeouts: `timeout_ms` of processing time after an element was handed to
 * the function, its `timeout` callback runs on the operator's thread with a
 * fresh handle, which it must complete (or fail); the function's own late
 * completion is then ignored. Without a timeout callback the job fails
 * (Flink's default, a TimeoutException).
 *
 * Completions are lock-free: a completion writes the results into the
 * element's slot and publishes it with one atomic compare-and-swap and one
 * release store, then wakes the operator's worker (weir_ctx_wakeup), which
 * emits what may leave; the operator also looks at its slots when it takes
 * an element, on a processing-time timer at the oldest element's timeout,
 * and at the end of input (where it waits for every element).
 *
 * Checkpoints: the elements in flight (and the watermarks waiting behind
 * them) are written in the operator's snapshot (with their keys, on a
 * keyed input) and handed to the function again at a restore, in their
 * order (Flink's replay).
 *
 * Threads: invoke and timeout run on the operator's worker thread;
 * weir_async_complete and weir_async_fail may be called from any thread,
 * once per handle, until weir_job_destroy (also after weir_job_run
 * returned, when the job failed with elements in flight: such completions
 * are ignored); stop the threads that complete before destroying the job.
 */
#ifndef WEIR_ASYNC_H
#define WEIR_ASYNC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "weir/export.h"
#include "weir/stream.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One element's result future (Flink's ResultFuture). A value: copy it. */
typedef struct weir_async_handle {
    void *op_;
    uint32_t slot_;
    uint64_t token_;
} weir_async_handle;

/* Hands `elem` (valid during the call; copy what the request needs) to the
 * user's service: 0, or a negative WEIR_E* code to fail the job. */
typedef int (*weir_async_fn)(const void *elem, int64_t timestamp, weir_async_handle h,
                             void *arg);
/* The element timed out: complete (or fail) h, on the operator's thread. */
typedef void (*weir_async_timeout_fn)(const void *elem, int64_t timestamp, weir_async_handle h,
                                      void *arg);

typedef struct weir_async_spec {
    const char *name;               /* NULL: "async"; copied */
    weir_async_fn invoke;           /* required (asyncInvoke) */
    weir_async_timeout_fn timeout;  /* optional (timeout); NULL: a timeout fails the job */
    void *arg;                      /* borrowed */
    size_t out_size;                /* each result's size, 1..WEIR_MAX_ELEM_SIZE */
    int max_results;                /* results one completion may carry; 0: 1 */
    int capacity;                   /* elements in flight; 0: 100 (Flink's default) */
    int64_t timeout_ms;             /* > 0 */
    bool unordered;                 /* unorderedWait; else orderedWait */
    int parallelism;                /* 0: the job's default */
    /* Unordered on a keyed input: the results of one key leave in the order
     * of its elements (those of different keys in any order, between the
     * same watermarks). Flink's unorderedWait keeps no order per key; this
     * is the order its keyed async processing (async state) keeps. */
    bool key_ordered;
} weir_async_spec;

/* The async operator on `in`. On a keyed input (weir_stream_key_by, as
 * Flink's AsyncDataStream on a KeyedStream) it runs partitioned by key:
 * every element of a key goes to one subtask, in order, and `key_ordered`
 * keeps that order in unordered results; the function sees the element
 * only (no keyed state: Flink's rich async function has none either).
 * Build errors as any builder. */
WEIR_EXPORT weir_stream *weir_stream_async(weir_stream *in, const weir_async_spec *spec);

/* Completes the element of h with `n` results (n * out_size bytes at
 * `results`, copied; n may be 0), each emitted with the element's
 * timestamp. From any thread. 0; WEIR_ESTATE if h was completed already or
 * timed out (the completion is ignored); WEIR_EINVAL if n > max_results. */
WEIR_EXPORT int weir_async_complete(weir_async_handle h, const void *results, size_t n);

/* Completes the element of h with an error (a negative WEIR_E* code): the
 * job fails when the operator reaches it (Flink's completeExceptionally).
 * 0 or WEIR_ESTATE as weir_async_complete. */
WEIR_EXPORT int weir_async_fail(weir_async_handle h, int err);

#ifdef __cplusplus
}
#endif
#endif
