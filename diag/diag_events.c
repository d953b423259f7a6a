/* diag_events.c — each capture event in its one form (docs/CAPTURE.md),
 * written as msgpack and as JSON by one sequence of values: the records
 * workers write, the job event (topology and settings) and the summary
 * (counters per operator subtask). Keys are written in the documented order;
 * watermarks and timestamps as integers except INT64_MIN / INT64_MAX, which
 * are the strings "MIN" / "MAX".
 *
 * Record fields by kind (a, b, c, d of weir__diag_rec):
 *   throughput   a in, b out, c interval, d the largest timestamp taken in
 *   window_fire  a start, b end, c count, firing, wm, flag the cleanup
 *                folded in
 *   late         a start, b end (of the latest missed window), c timestamp,
 *                flag dropped; the other windows it missed are derived here
 *                (late_windows)
 *   merge        a start, b end, c merged
 *   cleanup      a start, b end
 *   backpressure a blocked_ms, c interval, fill
 *   record       c timestamp
 *   join_state   a left rows, b right rows, c hold-back
 */
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "diag_internal.h"
#include "msgpack_write.h"
#include "job_state.h"
#include "task.h"
#include "weir/error.h"
#include "weir/time.h"
#include "weir/version.h"

/* ---- one value, in each encoding the sinks want ---------------------------
 * The collector writes an event once, value by value (a map member, key and
 * value, at a time where it can); each value goes into the msgpack buffer
 * when a msgpack file is written and to the JSON writer when a JSONL,
 * memory, callback or live sink wants the text (encode_begin says which), so
 * neither form is derived from the other at run time. */

/* ---- the event's shape -----------------------------------------------------
 * Every value is counted against the container it is in: a map of n pairs
 * holds 2n values, an array of n holds n. A value that does not fit, or a
 * container left short, makes the event not whole (weir__diag_encoded_whole),
 * which the sinks treat as a broken invariant: msgpack has no end marker
 * that would show a miscount, and the JSON is checked only when written. */

WEIR__JSON_INLINE void shape_close_full(struct weir__diag *d)
{
    while (d->shape.depth > 0 && d->shape.left[d->shape.depth - 1] == 0)
        d->shape.depth--;
}

WEIR__JSON_INLINE void shape_count(struct weir__diag *d)
{
    if (d->shape.depth == 0)
        d->shape.bad |= d->shape.tops++ > 0;
    else if (d->shape.left[d->shape.depth - 1] == 0)
        d->shape.bad = true;
    else
        d->shape.left[d->shape.depth - 1]--;
}

WEIR__JSON_INLINE void shape_scalar(struct weir__diag *d)
{
    shape_count(d);
    shape_close_full(d);
}

static inline void shape_open(struct weir__diag *d, uint64_t values)
{
    shape_count(d);
    if (values == 0) {
        shape_close_full(d);
    } else if (d->shape.depth == WEIR__JSON_DEPTH) {
        d->shape.bad = true;
    } else {
        d->shape.left[d->shape.depth++] = values;
    }
}

bool weir__diag_encoded_whole(const struct weir__diag *d)
{
    return !d->shape.bad && d->shape.depth == 0 && d->shape.tops == 1;
}

/* ---- msgpack, written into d->sbuf directly ---------------------------------
 * A value's bytes in one reservation (base/msgpack_write.h: what msgpack-c's
 * packer writes for the same call), rather than a packer call and a buffer
 * write per piece. Floats still go through the packer, into the same
 * buffer. */

/* Room for n more bytes in sbuf, or NULL (out of memory: pack_failed, and
 * the event is cut, which the sinks refuse). Grows as msgpack_sbuffer_write
 * does, so the buffer stays msgpack-c's to free. */
static unsigned char *mp_grow(struct weir__diag *d, size_t n)
{
    msgpack_sbuffer *b = &d->sbuf;
    size_t cap = b->alloc ? b->alloc : MSGPACK_SBUFFER_INIT_SIZE;
    while (cap - b->size < n)
        cap *= 2;
    char *data = realloc(b->data, cap);
    if (!data) {
        d->pack_failed = true;
        return NULL;
    }
    b->data = data;
    b->alloc = cap;
    return (unsigned char *)b->data + b->size;
}

WEIR__JSON_INLINE unsigned char *mp_room(struct weir__diag *d, size_t n)
{
    msgpack_sbuffer *b = &d->sbuf;
    if (WEIR__UNLIKELY(d->pack_failed))
        return NULL;
    if (WEIR__UNLIKELY(b->alloc - b->size < n))
        return mp_grow(d, n);
    return (unsigned char *)b->data + b->size;
}

WEIR__JSON_INLINE void mp_done(struct weir__diag *d, unsigned char *p)
{
    d->sbuf.size = (size_t)((char *)p - d->sbuf.data);
}

/* A string: header and bytes. */
WEIR__JSON_INLINE unsigned char *mp_strn(unsigned char *p, const char *s, size_t n)
{
    p = weir__mp_str(p, n);
    if (n)
        memcpy(p, s, n);
    return p + n;
}

static inline void e_map(struct weir__diag *d, size_t pairs)
{
    shape_open(d, 2 * (uint64_t)pairs);
    unsigned char *p;
    if (d->want_msgpack && (p = mp_room(d, WEIR__MP_MAX)))
        mp_done(d, weir__mp_map(p, pairs));
    if (d->want_json)
        weir__json_map(&d->jw, (uint32_t)pairs);
}

static inline void e_array(struct weir__diag *d, size_t n)
{
    shape_open(d, n);
    unsigned char *p;
    if (d->want_msgpack && (p = mp_room(d, WEIR__MP_MAX)))
        mp_done(d, weir__mp_array(p, n));
    if (d->want_json)
        weir__json_array(&d->jw, (uint32_t)n);
}

static inline void e_strn(struct weir__diag *d, const char *s, size_t n)
{
    shape_scalar(d);
    unsigned char *p;
    if (d->want_msgpack && (p = mp_room(d, WEIR__MP_MAX + n)))
        mp_done(d, mp_strn(p, s, n));
    if (d->want_json)
        weir__json_str(&d->jw, s, n);
}

/* A name weir defines (an event's keys, kind names, "MIN"): printable ASCII
 * with no " or \, so its JSON form needs no escaping and is not scanned for
 * it. Text from elsewhere (operator names, keys, messages) goes through
 * e_strn. */
static inline void e_name(struct weir__diag *d, const char *s)
{
    size_t n = strlen(s);
    shape_scalar(d);
    unsigned char *p;
    if (d->want_msgpack && (p = mp_room(d, WEIR__MP_MAX + n)))
        mp_done(d, mp_strn(p, s, n));
    if (d->want_json)
        weir__json_plain(&d->jw, s, n);
}

static inline void e_int(struct weir__diag *d, int64_t v)
{
    shape_scalar(d);
    unsigned char *p;
    if (d->want_msgpack && (p = mp_room(d, WEIR__MP_MAX)))
        mp_done(d, weir__mp_int(p, v));
    if (d->want_json)
        weir__json_int(&d->jw, v);
}

static inline void e_bool(struct weir__diag *d, bool v)
{
    shape_scalar(d);
    unsigned char *p;
    if (d->want_msgpack && (p = mp_room(d, 1)))
        mp_done(d, weir__mp_bool(p, v));
    if (d->want_json)
        weir__json_bool(&d->jw, v);
}

static inline void e_nil(struct weir__diag *d)
{
    shape_scalar(d);
    unsigned char *p;
    if (d->want_msgpack && (p = mp_room(d, 1)))
        mp_done(d, weir__mp_nil(p));
    if (d->want_json)
        weir__json_nil(&d->jw);
}

/* A float JSON cannot hold (a setting of 1e999) is written as nil in both. */
static void e_double(struct weir__diag *d, double v)
{
    if (!isfinite(v)) {
        e_nil(d);
        return;
    }
    shape_scalar(d);
    if (d->want_msgpack && !d->pack_failed)
        msgpack_pack_double(&d->pk, v);
    if (d->want_json)
        weir__json_double(&d->jw, v);
}

static inline void e_ts(struct weir__diag *d, int64_t v)
{
    if (v == WEIR_TS_MIN)
        e_name(d, "MIN");
    else if (v == WEIR_TS_MAX)
        e_name(d, "MAX");
    else
        e_int(d, v);
}

/* ---- map members: the key (a name weir defines, a literal) and its value
 * in one piece for each encoding, the per-value cost of every event. */

/* msgpack: room for the key, its header and `vmax` bytes of value; the key
 * written. NULL: msgpack not wanted, or out of memory. */
WEIR__JSON_INLINE unsigned char *mp_key(struct weir__diag *d, const char *k, size_t kn, size_t vmax)
{
    unsigned char *p;
    if (!d->want_msgpack || !(p = mp_room(d, WEIR__MP_MAX + kn + vmax)))
        return NULL;
    return mp_strn(p, k, kn);
}

/* The member counts as two values. */
WEIR__JSON_INLINE void shape_member(struct weir__diag *d)
{
    shape_count(d);
    shape_scalar(d);
}

WEIR__JSON_INLINE void kv_int_n(struct weir__diag *d, const char *k, size_t kn, int64_t v)
{
    shape_member(d);
    unsigned char *p = mp_key(d, k, kn, WEIR__MP_MAX);
    if (p)
        mp_done(d, weir__mp_int(p, v));
    if (d->want_json)
        weir__json_kv_int(&d->jw, k, kn, v);
}

WEIR__JSON_INLINE void kv_strn_n(struct weir__diag *d, const char *k, size_t kn, const char *v,
                             size_t n)
{
    shape_member(d);
    unsigned char *p = mp_key(d, k, kn, WEIR__MP_MAX + n);
    if (p)
        mp_done(d, mp_strn(p, v, n));
    if (d->want_json)
        weir__json_kv_str(&d->jw, k, kn, v, n);
}

/* v: a name weir defines, as e_name */
WEIR__JSON_INLINE void kv_name_n(struct weir__diag *d, const char *k, size_t kn, const char *v)
{
    size_t n = strlen(v);
    shape_member(d);
    unsigned char *p = mp_key(d, k, kn, WEIR__MP_MAX + n);
    if (p)
        mp_done(d, mp_strn(p, v, n));
    if (d->want_json)
        weir__json_kv_plain(&d->jw, k, kn, v, n);
}

WEIR__JSON_INLINE void kv_bool_n(struct weir__diag *d, const char *k, size_t kn, bool v)
{
    shape_member(d);
    unsigned char *p = mp_key(d, k, kn, 1);
    if (p)
        mp_done(d, weir__mp_bool(p, v));
    if (d->want_json)
        weir__json_kv_bool(&d->jw, k, kn, v);
}

WEIR__JSON_INLINE void kv_ts_n(struct weir__diag *d, const char *k, size_t kn, int64_t v)
{
    if (v == WEIR_TS_MIN)
        kv_name_n(d, k, kn, "MIN");
    else if (v == WEIR_TS_MAX)
        kv_name_n(d, k, kn, "MAX");
    else
        kv_int_n(d, k, kn, v);
}

/* The keys are literals: their lengths are known here. */
#define kv_int(d, k, v) kv_int_n(d, "" k, sizeof(k) - 1, v)
#define kv_str(d, k, v) kv_strn_n(d, "" k, sizeof(k) - 1, v, strlen(v))
#define kv_strn(d, k, v, n) kv_strn_n(d, "" k, sizeof(k) - 1, v, n)
#define kv_name(d, k, v) kv_name_n(d, "" k, sizeof(k) - 1, v)
#define kv_bool(d, k, v) kv_bool_n(d, "" k, sizeof(k) - 1, v)
#define kv_ts(d, k, v) kv_ts_n(d, "" k, sizeof(k) - 1, v)

static void encode_begin(struct weir__diag *d)
{
    d->shape.depth = d->shape.tops = 0;
    d->shape.bad = false;
    msgpack_sbuffer_clear(&d->sbuf);
    d->pack_failed = false;
    weir__buf_reset(&d->json);
    weir__json_begin(&d->jw, &d->json);
}

static const char *op_name(const struct weir__diag *d, int op)
{
    return d->job->graph.nodes[op]->name;
}

/* The operators' names as JSON strings (quoted, escaped), made once: every
 * per-subtask event names its operator. False if they could not be made
 * (out of memory: the events name them the general way). */
static bool op_json_ready(struct weir__diag *d)
{
    if (d->op_json)
        return true;
    if (d->op_json_failed)
        return false;
    int n = d->job->graph.nnodes;
    weir__buf *b = calloc((size_t)n, sizeof *b);
    bool ok = b != NULL;
    for (int i = 0; ok && i < n; i++) {
        weir__json_writer w;
        weir__json_begin(&w, &b[i]);
        weir__json_str(&w, op_name(d, i), strlen(op_name(d, i)));
        ok = !b[i].failed && b[i].data;
    }
    if (!ok) {
        for (int i = 0; b && i < n; i++)
            weir__buf_free(&b[i]);
        free(b);
        d->op_json_failed = true;
        return false;
    }
    d->op_json = b;
    d->nop_json = n;
    return true;
}

static void kv_op(struct weir__diag *d, int op)
{
    const char *name = op_name(d, op);
    if (!d->want_json || !op_json_ready(d)) {
        kv_str(d, "op", name);
        return;
    }
    shape_member(d);
    if (d->want_msgpack) {
        size_t n = strlen(name);
        unsigned char *p = mp_key(d, "op", 2, WEIR__MP_MAX + n);
        if (p)
            mp_done(d, mp_strn(p, name, n));
    }
    weir__json_kv_raw(&d->jw, "op", 2, d->op_json[op].data, d->op_json[op].len);
}

/* kind, t, op, subtask: the head every per-subtask event starts with. */
static void head(struct weir__diag *d, const weir__diag_rec *r, size_t fields)
{
    e_map(d, fields);
    kv_name(d, "kind", weir_diag_kind_name(r->kind));
    kv_int(d, "t", r->t);
    kv_op(d, r->op);
    kv_int(d, "subtask", r->subtask);
}

static int64_t saturating_sub(int64_t a, int64_t b)
{
    int64_t r;
    if (__builtin_sub_overflow(a, b, &r))
        return a > 0 ? INT64_MAX : INT64_MIN;
    return r;
}

static void kv_held_by(struct weir__diag *d, int held_by)
{
    e_name(d, "held_by");
    if (held_by >= 0)
        e_int(d, held_by);
    else
        e_nil(d);
}

/* The windows a late element missed: n windows, the latest [a, b) of the
 * record and each earlier one `slide` before the next. The operator reports
 * the element's latest window and, for a sliding window, its slide (r->slide):
 * the element was in every window of that slide that still contains its
 * timestamp, and since the latest of them is past its cleanup, so are all
 * (the same allowed lateness, earlier ends). Listed windows stop at MIN. An
 * element in no window (the gap between sliding windows whose slide is
 * larger than their size: the reported window ends at or before it), or a
 * record with no window (MIN, MIN), missed none. */
typedef struct late_windows {
    uint64_t n;
    int64_t slide;
} late_windows;

static late_windows late_windows_of(const weir__diag_rec *r)
{
    late_windows lw = {.n = 0, .slide = r->slide};
    int64_t a = r->start, b = r->end, ts = r->ts;
    if (a == WEIR_TS_MIN && b == WEIR_TS_MIN)
        return lw;
    if (lw.slide <= 0 || a > ts || b <= a) {
        lw.n = 1; /* one window, as reported */
        return lw;
    }
    if (b <= ts)
        return lw;
    /* k = 0, 1, ... while b - k * slide > ts: b - ts <= b - a fits */
    uint64_t n = (uint64_t)(b - ts - 1) / (uint64_t)lw.slide + 1;
    /* and while a - k * slide >= MIN */
    uint64_t room = ((uint64_t)a - (uint64_t)WEIR_TS_MIN) / (uint64_t)lw.slide + 1;
    lw.n = n < room ? n : room;
    return lw;
}

/* ---- window_fire as JSON text in one pass ----------------------------------
 * The one event a window operator writes for every key and window (tens of
 * thousands a second), so its cost is the standard level's on a window job.
 * When only the JSON text is wanted and the key needs no escaping, the line
 * is written straight into d->json: literal pieces and numbers, no member or
 * shape bookkeeping. The text is byte for byte the general path's
 * (test_diag_fire_json compares them); anything else takes that path. */

#define PUT_LITERAL(p, lit) (memcpy((p), "" lit, sizeof(lit) - 1), (p) + sizeof(lit) - 1)

static char *put_ts(char *p, int64_t v)
{
    if (v == WEIR_TS_MIN)
        return PUT_LITERAL(p, "\"MIN\"");
    if (v == WEIR_TS_MAX)
        return PUT_LITERAL(p, "\"MAX\"");
    return weir__json_decimal(p, v);
}

static bool fire_json_direct(struct weir__diag *d, const weir__diag_rec *r)
{
    if (d->want_msgpack || !d->want_json || !op_json_ready(d))
        return false;
    size_t kn = strlen(r->key);
    if (weir__json_plain_prefix(r->key, kn) < kn)
        return false; /* escaped (or repaired) the general way */
    const weir__buf *op = &d->op_json[r->op];
    /* the literals (133 bytes at most), seven numbers (t, start, end,
     * watermark and count of at most 21 bytes, subtask and firing of at
     * most 11: 127), the key and the operator's JSON */
    size_t most = 133 + 127 + kn + op->len;
    weir__buf *b = &d->json;
    if (b->len + most + 1 > b->cap && !weir__buf_grow(b, most))
        return false;
    char *p = b->data + b->len;
    p = PUT_LITERAL(p, "{\"kind\":\"window_fire\",\"t\":");
    p = weir__json_decimal(p, r->t);
    p = PUT_LITERAL(p, ",\"op\":");
    memcpy(p, op->data, op->len);
    p += op->len;
    p = PUT_LITERAL(p, ",\"subtask\":");
    p = weir__json_decimal(p, r->subtask);
    p = PUT_LITERAL(p, ",\"key\":\"");
    memcpy(p, r->key, kn);
    p += kn;
    p = PUT_LITERAL(p, "\",\"start\":");
    p = put_ts(p, r->start);
    p = PUT_LITERAL(p, ",\"end\":");
    p = put_ts(p, r->end);
    if (r->firing == 0)
        p = PUT_LITERAL(p, ",\"on_time\":true,\"firing\":");
    else
        p = PUT_LITERAL(p, ",\"on_time\":false,\"firing\":");
    p = weir__json_decimal(p, r->firing);
    p = PUT_LITERAL(p, ",\"count\":");
    p = weir__json_decimal(p, r->count);
    p = PUT_LITERAL(p, ",\"watermark\":");
    p = put_ts(p, r->wm);
    if (r->flag)
        p = PUT_LITERAL(p, ",\"cleanup\":true");
    *p++ = '}';
    /* the bound above held (else the buffer was overrun) */
    WEIR__ASSERT((size_t)(p - (b->data + b->len)) <= most);
    b->len = (size_t)(p - b->data);
    /* one whole value at the top, as the general path leaves it */
    d->shape.tops = 1;
    return true;
}

/* One ring record as its capture event (docs/CAPTURE.md), into d->sbuf
 * and d->json (as encode_begin set them up).
 * Longer than 80 lines on purpose: one short case per event kind, in the
 * order docs/CAPTURE.md lists them, so that the format reads in one place
 * against the document. */
void weir__diag_encode_rec(struct weir__diag *d, const weir__diag_rec *r)
{
    encode_begin(d);
    bool valve = r->input >= 0;
    switch (r->kind) {
    case WEIR_DIAG_KIND_WATERMARK:
        head(d, r, valve ? 8 + (r->key[0] != '\0') : 5);
        if (valve) {
            kv_int(d, "input", r->input);
            kv_int(d, "channel", r->channel);
            if (r->key[0]) /* a source's partition */
                kv_str(d, "partition", r->key);
        }
        kv_ts(d, "watermark", r->wm);
        if (valve)
            kv_held_by(d, r->held_by);
        break;
    case WEIR_DIAG_KIND_STATUS:
        head(d, r, valve ? 8 + (r->key[0] != '\0') : 5);
        if (valve) {
            kv_int(d, "input", r->input);
            kv_int(d, "channel", r->channel);
            if (r->key[0])
                kv_str(d, "partition", r->key);
        }
        kv_bool(d, "idle", r->flag);
        if (valve)
            kv_held_by(d, r->held_by);
        break;
    case WEIR_DIAG_KIND_THROUGHPUT:
        head(d, r, 8);
        kv_int(d, "interval_ms", r->interval_ms);
        kv_int(d, "in", r->in);
        kv_int(d, "out", r->out);
        kv_ts(d, "max_ts", r->max_ts);
        break;
    case WEIR_DIAG_KIND_WINDOW_FIRE:
        if (fire_json_direct(d, r))
            break;
        head(d, r, 11 + (r->flag != 0));
        kv_str(d, "key", r->key);
        kv_ts(d, "start", r->start);
        kv_ts(d, "end", r->end);
        kv_bool(d, "on_time", r->firing == 0);
        kv_int(d, "firing", r->firing);
        kv_int(d, "count", r->count);
        kv_ts(d, "watermark", r->wm);
        if (r->flag) /* the window's cleanup, folded in (version 3) */
            kv_bool(d, "cleanup", true);
        break;
    case WEIR_DIAG_KIND_LATE: {
        late_windows lw = late_windows_of(r);
        head(d, r, 11);
        kv_str(d, "key", r->key);
        kv_ts(d, "timestamp", r->ts);
        e_name(d, "windows");
        uint64_t listed = lw.n <= WEIR_CAPTURE_LATE_WINDOWS ? lw.n : 2;
        e_array(d, (size_t)listed);
        for (uint64_t k = 0; k < listed; k++) {
            /* earliest first; past the limit, the earliest and the latest */
            uint64_t back = lw.n - 1 - (listed == lw.n ? k : k * (lw.n - 1));
            e_array(d, 2);
            e_ts(d, r->start - (int64_t)back * lw.slide);
            e_ts(d, r->end - (int64_t)back * lw.slide);
        }
        kv_int(d, "missed", (int64_t)lw.n);
        kv_ts(d, "watermark", r->wm);
        kv_int(d, "lateness", saturating_sub(r->wm, r->ts));
        kv_name(d, "action", r->flag ? "dropped" : "side_output");
        break;
    }
    case WEIR_DIAG_KIND_MERGE:
        head(d, r, 8);
        kv_str(d, "key", r->key);
        kv_ts(d, "start", r->start);
        kv_ts(d, "end", r->end);
        kv_int(d, "merged", r->merged);
        break;
    case WEIR_DIAG_KIND_CLEANUP:
        head(d, r, 7);
        kv_str(d, "key", r->key);
        kv_ts(d, "start", r->start);
        kv_ts(d, "end", r->end);
        break;
    case WEIR_DIAG_KIND_BACKPRESSURE:
        head(d, r, 7);
        kv_int(d, "interval_ms", r->interval_ms);
        kv_int(d, "blocked_ms", r->blocked_ms);
        e_name(d, "fill");
        e_double(d, r->fill);
        break;
    case WEIR_DIAG_KIND_RECORD:
        head(d, r, 5);
        kv_ts(d, "timestamp", r->ts);
        break;
    case WEIR_DIAG_KIND_CHECKPOINT:
        head(d, r, 9);
        kv_int(d, "id", r->chk_id);
        e_name(d, "alignment_ms");
        e_double(d, (double)r->align_us / 1000.0);
        kv_int(d, "held_bytes", r->held_bytes);
        kv_int(d, "bytes", r->bytes);
        e_name(d, "snapshot_ms");
        e_double(d, r->snapshot_ms);
        break;
    case WEIR_DIAG_KIND_JOIN_STATE:
        head(d, r, 7);
        kv_int(d, "left_rows", r->start);
        kv_int(d, "right_rows", r->end);
        kv_int(d, "hold_back_ms", r->count);
        break;
    case WEIR_DIAG_KIND_CHECKPOINT_TRIGGER: /* the job's: no op, no subtask */
        e_map(d, 4);
        kv_name(d, "kind", weir_diag_kind_name(r->kind));
        kv_int(d, "t", r->t);
        kv_int(d, "id", r->chk_id);
        kv_bool(d, "savepoint", r->flag);
        break;
    case WEIR_DIAG_KIND_CHECKPOINT_END:
        e_map(d, r->flag ? 7 : 6);
        kv_name(d, "kind", weir_diag_kind_name(r->kind));
        kv_int(d, "t", r->t);
        kv_int(d, "id", r->chk_id);
        kv_name(d, "status", r->flag ? "aborted" : "completed");
        kv_int(d, "bytes", r->bytes);
        kv_int(d, "duration_ms", r->duration_ms);
        if (r->flag)
            kv_str(d, "reason", r->key);
        break;
    default:
        head(d, r, 4);
        break;
    }
}

void weir__diag_event_init(weir_diag_event *ev, weir_diag_kind kind)
{
    memset(ev, 0, sizeof *ev);
    ev->kind = kind;
    ev->subtask = ev->input = ev->channel = -1;
    ev->held_by = -1;
    ev->watermark = WEIR_TS_MIN;
    ev->window_start = ev->window_end = ev->timestamp = WEIR_TS_MIN;
    ev->firing = -1;
    ev->count = -1;
    ev->records_in = ev->records_out = -1;
    ev->blocked_ms = -1;
    ev->left_rows = ev->right_rows = ev->hold_back_ms = -1;
    ev->checkpoint_id = ev->bytes = ev->held_bytes = ev->duration_ms = -1;
}

void weir__diag_rec_event(const struct weir__diag *d, const weir__diag_rec *r, weir_diag_event *ev)
{
    weir__diag_event_init(ev, (weir_diag_kind)r->kind);
    ev->t = r->t;
    ev->op = r->op >= 0 ? op_name(d, r->op) : NULL;
    ev->subtask = r->subtask;
    ev->input = r->input;
    ev->channel = r->channel;
    switch (r->kind) {
    case WEIR_DIAG_KIND_WATERMARK:
        ev->watermark = r->wm;
        ev->held_by = r->held_by;
        ev->partition = r->input >= 0 && r->key[0] ? r->key : NULL;
        break;
    case WEIR_DIAG_KIND_STATUS:
        ev->idle = r->flag;
        ev->held_by = r->held_by;
        ev->partition = r->input >= 0 && r->key[0] ? r->key : NULL;
        break;
    case WEIR_DIAG_KIND_THROUGHPUT:
        ev->records_in = r->in;
        ev->records_out = r->out;
        ev->timestamp = r->max_ts;
        break;
    case WEIR_DIAG_KIND_WINDOW_FIRE:
        ev->key = r->key;
        ev->window_start = r->start;
        ev->window_end = r->end;
        ev->firing = r->firing;
        ev->count = r->count;
        ev->watermark = r->wm;
        ev->cleanup = r->flag;
        break;
    case WEIR_DIAG_KIND_LATE:
        ev->key = r->key;
        ev->window_start = r->start;
        ev->window_end = r->end;
        ev->timestamp = r->ts;
        ev->watermark = r->wm;
        ev->dropped = r->flag;
        ev->count = (int64_t)late_windows_of(r).n;
        break;
    case WEIR_DIAG_KIND_MERGE:
        ev->key = r->key;
        ev->window_start = r->start;
        ev->window_end = r->end;
        ev->count = r->merged;
        break;
    case WEIR_DIAG_KIND_CLEANUP:
        ev->key = r->key;
        ev->window_start = r->start;
        ev->window_end = r->end;
        break;
    case WEIR_DIAG_KIND_BACKPRESSURE:
        ev->blocked_ms = r->blocked_ms;
        ev->fill = r->fill;
        break;
    case WEIR_DIAG_KIND_RECORD:
        ev->timestamp = r->ts;
        break;
    case WEIR_DIAG_KIND_CHECKPOINT:
        ev->checkpoint_id = r->chk_id;
        ev->alignment_ms = (double)r->align_us / 1000.0;
        ev->held_bytes = r->held_bytes;
        ev->bytes = r->bytes;
        ev->snapshot_ms = r->snapshot_ms;
        break;
    case WEIR_DIAG_KIND_CHECKPOINT_TRIGGER:
        ev->checkpoint_id = r->chk_id;
        ev->savepoint = r->flag;
        break;
    case WEIR_DIAG_KIND_JOIN_STATE:
        ev->left_rows = r->start;
        ev->right_rows = r->end;
        ev->hold_back_ms = r->count;
        break;
    case WEIR_DIAG_KIND_CHECKPOINT_END:
        ev->checkpoint_id = r->chk_id;
        ev->aborted = r->flag;
        ev->bytes = r->bytes;
        ev->duration_ms = r->duration_ms;
        ev->reason = r->flag ? r->key : NULL;
        break;
    default:
        break;
    }
}

/* ---- a restore's report --------------------------------------------------- */

void weir__diag_encode_restore(struct weir__diag *d, const char *why)
{
    const weir__restore_report *r = &d->job->restored;
    encode_begin(d);
    e_map(d, why ? 4 : 5);
    kv_name(d, "kind", weir_diag_kind_name(WEIR_DIAG_KIND_CHECKPOINT_RESTORE));
    kv_int(d, "t", 0);
    if (why) {
        kv_name(d, "status", "skipped");
        kv_str(d, "reason", why);
    } else {
        kv_name(d, "status", "restored");
        kv_int(d, "id", r->id);
        kv_str(d, "path", r->path);
    }
}

/* ---- the job event -------------------------------------------------------- */

static const char *accounting_name(weir_accounting a, bool source)
{
    if (source)
        return "source";
    switch (a) {
    case WEIR_ACCOUNTING_ONE_TO_ONE:
        return "one_to_one";
    case WEIR_ACCOUNTING_WINDOW:
        return "window";
    case WEIR_ACCOUNTING_SINK:
        return "sink";
    default:
        return "any";
    }
}

/* Writes an operator's settings_json — the members of a flat JSON object with
 * string, integer, number, boolean or null values, as the built-ins write
 * them — as a map. Anything it does not understand ends the map
 * there (the job event stays valid). */
#define MAX_SETTINGS 32
typedef struct setting {
    const char *key;
    size_t klen;
    const char *val;
    size_t vlen;
    char type; /* s string, i integer, d number, t true, f false, n null */
} setting;

static const char *skip_ws(const char *p)
{
    while (*p && isspace((unsigned char)*p))
        p++;
    return p;
}

static const char *scan_string(const char *p, const char **s, size_t *n)
{
    if (*p != '"')
        return NULL;
    const char *start = ++p;
    while (*p && *p != '"') {
        if (*p == '\\')
            return NULL; /* escapes are not used by the built-ins */
        p++;
    }
    if (*p != '"')
        return NULL;
    *s = start;
    *n = (size_t)(p - start);
    return p + 1;
}

static int parse_settings(const char *json, setting *out)
{
    int n = 0;
    const char *p = json ? skip_ws(json) : "";
    while (*p && n < MAX_SETTINGS) {
        setting *s = &out[n];
        p = scan_string(p, &s->key, &s->klen);
        if (!p)
            break;
        p = skip_ws(p);
        if (*p != ':')
            break;
        p = skip_ws(p + 1);
        if (*p == '"') {
            p = scan_string(p, &s->val, &s->vlen);
            if (!p)
                break;
            s->type = 's';
        } else if (strncmp(p, "true", 4) == 0 || strncmp(p, "false", 5) == 0 ||
                   strncmp(p, "null", 4) == 0) {
            s->type = p[0];
            s->val = p;
            p += p[0] == 'f' ? 5 : 4;
        } else {
            s->val = p;
            s->type = 'i';
            if (*p == '-')
                p++;
            if (!isdigit((unsigned char)*p))
                break;
            while (isdigit((unsigned char)*p) || *p == '.' || *p == 'e' || *p == 'E' ||
                   *p == '+' || *p == '-') {
                if (!isdigit((unsigned char)*p))
                    s->type = 'd';
                p++;
            }
            s->vlen = (size_t)(p - s->val);
        }
        n++;
        p = skip_ws(p);
        if (*p == ',')
            p = skip_ws(p + 1);
        else
            break;
    }
    return n;
}

static void encode_settings(struct weir__diag *d, const char *json)
{
    setting s[MAX_SETTINGS];
    int n = parse_settings(json, s);
    e_map(d, (size_t)n);
    for (int i = 0; i < n; i++) {
        e_strn(d, s[i].key, s[i].klen);
        switch (s[i].type) {
        case 's':
            e_strn(d, s[i].val, s[i].vlen);
            break;
        case 'i':
            e_int(d, strtoll(s[i].val, NULL, 10));
            break;
        case 'd':
            e_double(d, strtod(s[i].val, NULL));
            break;
        case 't':
            e_bool(d, true);
            break;
        case 'f':
            e_bool(d, false);
            break;
        default:
            e_nil(d);
            break;
        }
    }
}

static const char *level_name(int level)
{
    switch (level) {
    case WEIR_DIAG_OFF:
        return "off";
    case WEIR_DIAG_SUMMARY:
        return "summary";
    case WEIR_DIAG_VERBOSE:
        return "verbose";
    default:
        return "standard";
    }
}

static int task_of(const weir__plan *plan, int node)
{
    for (int t = 0; t < plan->ntasks; t++) {
        for (int k = 0; k < plan->tasks[t].nnodes; k++) {
            if (plan->tasks[t].nodes[k] == node)
                return t;
        }
    }
    return -1;
}

void weir__diag_encode_job(struct weir__diag *d)
{
    weir_job *job = d->job;
    const weir__graph *g = &job->graph;
    const weir_job_config *c = &job->cfg;
    encode_begin(d);
    e_map(d, 7);
    kv_name(d, "kind", "job");
    kv_int(d, "version", WEIR_CAPTURE_VERSION);
    /* which weir wrote it: the library's own version (weir/version.h) */
    kv_str(d, "weir_version", weir_version());
    kv_int(d, "t", 0);
    e_name(d, "operators");
    e_array(d, (size_t)g->nnodes);
    for (int i = 0; i < g->nnodes; i++) {
        const weir__node *n = g->nodes[i];
        e_map(d, 6);
        kv_str(d, "name", n->name);
        kv_str(d, "kind", n->kind);
        kv_int(d, "parallelism", n->parallelism);
        kv_int(d, "task", task_of(job->plan, i));
        kv_name(d, "accounting", accounting_name(n->accounting, n->is_source));
        e_name(d, "settings");
        encode_settings(d, n->settings_json);
    }
    e_name(d, "edges");
    e_array(d, (size_t)g->nedges);
    for (int i = 0; i < g->nedges; i++) {
        const weir__edge *e = &g->edges[i];
        e_map(d, e->tag ? 6 : 5);
        kv_str(d, "from", g->nodes[e->from]->name);
        kv_str(d, "to", g->nodes[e->to]->name);
        kv_int(d, "input", e->input);
        kv_name(d, "partitioning", weir__partitioning_name(e->resolved));
        kv_bool(d, "chained", e->chained);
        if (e->tag)
            kv_int(d, "side", e->tag);
    }
    e_name(d, "settings");
    e_map(d, 13);
    /* the worker threads the run starts (the scheduler starts no more than
     * there are subtasks), and the count the configuration asked for */
    kv_int(d, "workers", job->nworkers);
    kv_int(d, "workers_configured", c->workers);
    kv_name(d, "clock", c->clock == WEIR_CLOCK_VIRTUAL ? "virtual" : "system");
    kv_int(d, "parallelism", c->parallelism);
    kv_int(d, "batch_capacity", c->batch_capacity);
    kv_int(d, "channel_batches", c->channel_batches);
    kv_int(d, "buffer_timeout_ms", c->buffer_timeout_ms);
    kv_int(d, "watermark_interval_ms", c->watermark_interval_ms);
    kv_int(d, "throughput_interval_ms", c->diag.throughput_interval_ms);
    kv_name(d, "level", level_name(d->level));
    kv_bool(d, "lossy", c->diag.lossy);
    kv_bool(d, "chaining", !c->disable_chaining);
    kv_int(d, "ring_capacity", d->ring_size);
}

/* ---- the summary ---------------------------------------------------------- */

void weir__diag_encode_summary(struct weir__diag *d, int64_t t)
{
    weir_job *job = d->job;
    const weir__plan *plan = job->plan;
    encode_begin(d);
    /* A run that failed says so, with its first error: its counters stop
     * where the run was canceled, so they need not add up. (The workers are
     * joined: the message is settled.) */
    bool failed = job->errors.code != 0;
    /* weir_job_cancel stopped it (not a run that had failed before) */
    bool cancelled = failed && job->errors.code == WEIR_ECANCELED && atomic_load(&job->cancel);
    e_map(d, 6 + failed + cancelled);
    kv_name(d, "kind", "summary");
    kv_int(d, "t", t);
    size_t nctx = 0;
    for (int s = 0; s < plan->nsubs; s++)
        nctx += (size_t)plan->subs[s]->nctx;
    e_name(d, "operators");
    e_array(d, nctx);
    /* in node order, then subtask order: stable for readers and tests */
    for (int n = 0; n < job->graph.nnodes; n++) {
        const weir__node *node = job->graph.nodes[n];
        for (int i = 0; i < node->parallelism; i++) {
            const weir_ctx *ctx = plan->node_ctx[n][i];
            const int64_t *cnt = ctx->diag.counters;
            e_map(d, 10);
            kv_str(d, "op", node->name);
            kv_int(d, "subtask", i);
            kv_name(d, "accounting", accounting_name(node->accounting, node->is_source));
            kv_int(d, "in", cnt[WEIR__CNT_IN]);
            kv_int(d, "out", cnt[WEIR__CNT_OUT]);
            kv_int(d, "filtered", cnt[WEIR__CNT_FILTERED]);
            kv_int(d, "late_dropped", cnt[WEIR__CNT_LATE_DROPPED]);
            kv_int(d, "late_side", cnt[WEIR__CNT_LATE_SIDE]);
            kv_int(d, "absorbed", cnt[WEIR__CNT_ABSORBED]);
            kv_int(d, "side_out", cnt[WEIR__CNT_SIDE_OUT]);
        }
    }
    kv_int(d, "events", d->events);
    kv_int(d, "dropped_events", weir__diag_dropped(d));
    kv_bool(d, "lossy", job->cfg.diag.lossy);
    if (failed)
        kv_str(d, "error", job->errors.msg);
    if (cancelled)
        kv_bool(d, "cancelled", true);
}
