/* capture_json.h — the one way weir writes an event as JSON: from its
 * msgpack form. Every capture event is built once, as msgpack; the JSONL sink,
 * the in-memory and callback sinks, and `weir capture convert` all print it
 * with weir__msgpack_to_json, so the two encodings carry the same events and a
 * msgpack -> JSONL conversion is byte-identical to the JSONL the run wrote.
 *
 * Formatting: map keys in their order, no spaces; integers in decimal; floats
 * with %.17g (and ".0" appended when that looks like an integer, so a float
 * stays a float); strings with ", \ and control characters escaped (\n \t \r
 * \b \f, others \u00XX), well-formed UTF-8 as it is, and every byte that is
 * not part of a well-formed UTF-8 sequence as \ufffd.
 */
#ifndef WEIR_RUNTIME_CAPTURE_JSON_H
#define WEIR_RUNTIME_CAPTURE_JSON_H

#include <msgpack.h>
#include <stdbool.h>
#include <stddef.h>

typedef struct weir__buf {
    char *data;
    size_t len, cap;
    bool failed; /* out of memory: contents incomplete */
} weir__buf;

void weir__buf_reset(weir__buf *b);
void weir__buf_free(weir__buf *b);
void weir__buf_append(weir__buf *b, const char *s, size_t n);
/* NUL-terminates (not counted in len). */
const char *weir__buf_cstr(weir__buf *b);

/* Appends the JSON text of `o`. 0, or -1 for an object JSON cannot hold (bin,
 * ext, a map key that is not a string, a NaN or infinite float) or out of
 * memory (out->failed tells which). */
int weir__msgpack_to_json(const msgpack_object *o, weir__buf *out);

#endif
