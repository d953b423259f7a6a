/* weir/harness.h — drive one operator by hand, single-threaded, on a virtual
 * clock: push records, watermarks and idle/active changes into its input
 * channels, move processing time, and get back everything it emits.
 *
 * It is the model of GStreamer's GstHarness and the engine underneath
 * `weir script`: the harness runs the real operator with the real valves,
 * multi-input combination, output gate, timers and keyed state of a job's
 * subtask; only the channels are replaced by direct calls. Operators are
 * tested through it.
 *
 * Not MT safe: one thread creates, feeds and destroys a harness. Output
 * callbacks run inside the feeding call that caused them.
 */
#ifndef WEIR_HARNESS_H
#define WEIR_HARNESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "weir/export.h"
#include "weir/stream.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct weir_harness weir_harness;

typedef struct weir_harness_output {
    /* A record on the main output (tag 0) or side output `tag`. */
    void (*on_record)(int tag, const void *elem, int64_t timestamp, void *arg);
    void (*on_watermark)(int64_t watermark, void *arg);
    void (*on_status)(bool idle, void *arg);
    /* An element the operator dropped as late (weir_ctx_report_late). */
    void (*on_dropped)(const void *elem, int64_t timestamp, void *arg);
    void *arg;
} weir_harness_output;

typedef struct weir_harness_config {
    const weir_process_spec *op;   /* required; copied (arg_free honoured) */
    int inputs;                    /* 1 or 2; 0: 1 */
    int channels[2];               /* channels per input; 0: 1 */
    size_t in_size[2];             /* element size per input; required */
    const weir_key_spec *key[2];   /* keyed inputs (both, none, or only input 0: a keyed
                                    * operator's broadcast input); copied */
    int64_t watermark_interval_ms; /* 0: 200; WEIR_DISABLED: off */
    weir_harness_output output;
} weir_harness_config;

/* Creates the harness and opens the operator (time 0). On failure nothing is
 * left allocated and weir_harness_last_error() is not available: the message
 * is written to errbuf (if not NULL). */
WEIR_EXPORT int weir_harness_create(const weir_harness_config *config, weir_harness **out,
                                    char *errbuf, size_t errsize);

/* Closes the operator (if still open) and frees everything. NULL allowed. */
WEIR_EXPORT void weir_harness_destroy(weir_harness *h);

/* Inputs, on channel `channel` of input `input`. Return 0 or the operator's
 * error (then the harness is failed: every later call returns WEIR_ESTATE). */
WEIR_EXPORT int weir_harness_record(weir_harness *h, int input, int channel, const void *elem,
                                    int64_t timestamp);
WEIR_EXPORT int weir_harness_watermark(weir_harness *h, int input, int channel, int64_t watermark);
WEIR_EXPORT int weir_harness_idle(weir_harness *h, int input, int channel);
WEIR_EXPORT int weir_harness_active(weir_harness *h, int input, int channel);

/* Moves processing time forward to `t` (absolute ms), firing every periodic
 * probe and processing-time timer due up to t in time order, each at its own
 * time. WEIR_EINVAL if t is before the current time. */
WEIR_EXPORT int weir_harness_advance(weir_harness *h, int64_t t);

/* End of input on every channel: MAX, then END. The operator's on_end runs
 * and it is closed. */
WEIR_EXPORT int weir_harness_end(weir_harness *h);

WEIR_EXPORT int64_t weir_harness_now(const weir_harness *h);
/* The message of the last failure ("" if none). */
WEIR_EXPORT const char *weir_harness_last_error(const weir_harness *h);

#ifdef __cplusplus
}
#endif
#endif
