/* capture_json.h — the one way weir writes an event as JSON text: a writer
 * that is told the event's values in msgpack's order (a map or array with its
 * size first, then its members) and prints them. The collector drives it and
 * msgpack's packer with one call sequence per event (diag_events.c), and
 * `weir capture convert` drives it from a msgpack object it read
 * (weir__msgpack_to_json), so the two encodings carry the same events and a
 * msgpack -> JSONL conversion is byte-identical to the JSONL the run wrote.
 *
 * Formatting: map keys in their order, no spaces; integers in decimal; floats
 * with %.17g (and ".0" appended when that looks like an integer, so a float
 * stays a float); strings with ", \ and control characters escaped (\n \t \r
 * \b \f, others \u00XX), well-formed UTF-8 as it is, and every byte that is
 * not part of a well-formed UTF-8 sequence as \ufffd.
 */
#ifndef WEIR_BASE_CAPTURE_JSON_H
#define WEIR_BASE_CAPTURE_JSON_H

#include <msgpack.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

typedef struct weir__buf {
    char *data;
    size_t len, cap;
    bool failed; /* out of memory: contents incomplete */
} weir__buf;

void weir__buf_reset(weir__buf *b);
void weir__buf_free(weir__buf *b);
/* Grows b to hold n more bytes and a NUL; false (and b->failed) if it cannot. */
bool weir__buf_grow(weir__buf *b, size_t n);

/* Inline: the collector appends a few bytes at a time, a dozen times an
 * event. */
static inline void weir__buf_append(weir__buf *b, const char *s, size_t n)
{
    if (b->len + n + 1 > b->cap && !weir__buf_grow(b, n))
        return;
    /* n == 0 comes with s NULL (an empty msgpack string has no bytes), and
     * memcpy from NULL is undefined even for no bytes */
    if (n)
        memcpy(b->data + b->len, s, n);
    b->len += n;
}
/* NUL-terminates (not counted in len). */
const char *weir__buf_cstr(weir__buf *b);

/* Containers open at once: an event is a map of scalars, arrays of pairs and
 * the job event's maps inside an array (4 levels); msgpack-c's unpacker stops
 * at 32. */
#define WEIR__JSON_DEPTH 32

/* The writer: where it writes, and for each open container how many values it
 * holds (a map's keys and values both count) and how many were written, which
 * decides the punctuation before the next value and when the container
 * closes (after its last value, so there is no explicit end call). */
typedef struct weir__json_writer {
    weir__buf *out;
    int depth;
    bool invalid; /* nested too deep: the text is cut */
    struct {
        uint64_t values, written;
        bool map;
    } open[WEIR__JSON_DEPTH];
} weir__json_writer;

void weir__json_begin(weir__json_writer *w, weir__buf *out);
void weir__json_map(weir__json_writer *w, uint32_t pairs);
void weir__json_array(weir__json_writer *w, uint32_t n);
void weir__json_str(weir__json_writer *w, const char *s, size_t n);
/* A string the caller knows needs no escaping (printable ASCII without " or
 * \: the events' keys and kind names), written without looking at it. */
void weir__json_plain(weir__json_writer *w, const char *s, size_t n);
void weir__json_int(weir__json_writer *w, int64_t v);
void weir__json_uint(weir__json_writer *w, uint64_t v);
void weir__json_bool(weir__json_writer *w, bool v);
void weir__json_nil(weir__json_writer *w);
/* A float that is not finite has no JSON form: the caller writes something
 * else (weir__json_double refuses it: false, nothing written). */
bool weir__json_double(weir__json_writer *w, double v);

/* Appends the JSON text of `o`. 0, or -1 for an object JSON cannot hold (bin,
 * ext, a map key that is not a string, a NaN or infinite float) or out of
 * memory (out->failed tells which). */
int weir__msgpack_to_json(const msgpack_object *o, weir__buf *out);

#endif
