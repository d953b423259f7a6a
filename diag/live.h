/* live.h — a running job served over HTTP (docs/LIVE.md): the diagnostic
 * channel's live sink and the server that reads it.
 *
 * The collector hands every event it writes to the live sink as well
 * (weir__live_event): the sink keeps the latest values per operator subtask
 * (watermarks, counters, rates, held_by, checkpoints) and the events' JSON
 * lines in a bounded history. The server, on a thread of its own
 * (libmicrohttpd driven by that thread), answers from there: nothing is
 * added to the data path, the collector takes one mutex per event (never
 * held while the server formats an answer: it copies what it needs).
 */
#ifndef WEIR_DIAG_LIVE_H
#define WEIR_DIAG_LIVE_H

#include <stdbool.h>
#include <stddef.h>

#include "weir/diag.h"

struct weir__diag;
struct weir__diag_rec;
typedef struct weir__live weir__live;

/* Events the server keeps for /events (the newest; a client that connects
 * later or falls behind gets a `gap` event where the history was cut). */
#define WEIR__LIVE_HISTORY 65536
/* ... and at most this many bytes of their JSON lines (one byte ring). */
#define WEIR__LIVE_HISTORY_BYTES ((size_t)16 << 20)
/* Bytes of events an SSE client is handed at once (libmicrohttpd's block
 * of a streamed answer, which the events are copied into). */
#define WEIR__LIVE_SSE_BLOCK 16384
/* Connections the server holds at once; more are refused. */
#define WEIR__LIVE_CONNECTIONS 64

/* Binds http_addr and starts the server's thread (the job's thread, when
 * the diagnostic channel starts). 0, or an error code with why. */
int weir__live_start(struct weir__diag *d, weir__live **out, char *why, size_t whysize);
/* One event the collector (or the job's thread) writes: `json` its line,
 * `rec` the worker's record it came from (NULL for the job, summary and
 * restore events); `held`: the caller holds the sink's lock
 * (weir__live_hold). */
void weir__live_event(weir__live *l, const weir_diag_event *ev, const char *json, size_t len,
                      const struct weir__diag_rec *rec, bool held);
/* The sink's lock, held by the collector over a batch of events (one lock
 * a batch, not one an event); the server waits that long at most. */
void weir__live_hold(weir__live *l);
void weir__live_release(weir__live *l);
/* The run ended with `code` (0, WEIR_ECANCELED, an error): lets SSE clients
 * take the last events (a second at most), stops the server, joins its
 * thread and frees everything. NULL is allowed. */
void weir__live_stop(weir__live *l, int code);

#endif
