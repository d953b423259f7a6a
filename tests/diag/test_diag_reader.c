/* test_diag_reader.c — the capture reader (weir/capture.h): format
 * detection (msgpack only when the first byte starts a map, anything else
 * JSONL, a byte order mark skipped), one JSON line per event from either
 * encoding, the same events
 * whether read from a path, a stream or memory (across its buffer refills),
 * and errors that name their place: a msgpack capture cut at every byte
 * gives exactly the events before the cut and then "byte offset N: the
 * capture was cut short ..." at the start of the cut one; what is not a map,
 * not msgpack, or has no JSON form is refused at its offset, and so are
 * headers no event can have (4 G entries, 100 000 levels of nesting) before
 * anything is allocated for them; an empty string converts; JSONL problems
 * carry their line; a missing file says so.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <msgpack.h>

#include "diag/test_diag_support.h"

typedef struct events {
    char **v;
    int64_t *offset;
    size_t n, cap;
} events;

static void events_free(events *e)
{
    for (size_t i = 0; i < e->n; i++)
        free(e->v[i]);
    free(e->v);
    free(e->offset);
    memset(e, 0, sizeof *e);
}

/* Reads every event; returns the final result (END or an error code). */
static int read_events(weir_capture_reader *r, events *e)
{
    const char *json;
    size_t len;
    int k;
    while ((k = weir_capture_reader_next(r, &json, &len)) == WEIR_CAPTURE_EVENT) {
        cr_assert_eq(strlen(json), len);
        if (e->n == e->cap) {
            e->cap = e->cap ? e->cap * 2 : 64;
            e->v = realloc(e->v, e->cap * sizeof *e->v);
            e->offset = realloc(e->offset, e->cap * sizeof *e->offset);
            cr_assert(e->v && e->offset);
        }
        e->v[e->n] = strdup(json);
        e->offset[e->n] = weir_capture_reader_offset(r);
        e->n++;
        cr_assert_eq(weir_capture_reader_event_number(r), (int64_t)e->n);
    }
    return k;
}

static weir_capture_reader *open_mem(const void *data, size_t size)
{
    weir_capture_reader *r = NULL;
    char err[256];
    cr_assert_eq(weir_capture_reader_open_memory(data, size, "mem", &r, err, sizeof err), 0, "%s",
                 err);
    cr_assert_not_null(r);
    return r;
}

/* ---- opening -------------------------------------------------------------- */

Test(diag_reader, a_missing_file_says_so)
{
    weir_capture_reader *r = (weir_capture_reader *)1;
    char err[256];
    int e = weir_capture_reader_open("/nonexistent/capture.jsonl", &r, err, sizeof err);
    cr_assert_eq(e, WEIR_ENOENT);
    cr_assert_null(r);
    cr_assert_str_eq(err, "/nonexistent/capture.jsonl: cannot open: No such file or directory");
    /* a directory opens, but cannot be read */
    e = weir_capture_reader_open("/tmp", &r, err, sizeof err);
    cr_assert_eq(e, WEIR_EIO);
    cr_assert_null(r);
    cr_assert_str_eq(err, "/tmp: cannot read: Is a directory");
    cr_assert_eq(weir_capture_reader_open(NULL, &r, err, sizeof err), WEIR_EINVAL);
    cr_assert_eq(weir_capture_reader_open("x", NULL, err, sizeof err), WEIR_EINVAL);
    cr_assert_eq(weir_capture_reader_next(NULL, NULL, NULL), WEIR_EINVAL);
    weir_capture_reader_close(NULL);
}

Test(diag_reader, detects_the_format_by_its_first_byte)
{
    /* msgpack only when the first byte starts a map: fixmap, map 16, map 32 */
    static const unsigned char maps[][3] = {{0x80}, {0x8f}, {0xde, 0, 0}, {0xdf}};
    for (size_t i = 0; i < sizeof maps / sizeof maps[0]; i++) {
        weir_capture_reader *m = open_mem(maps[i], 1);
        cr_assert_eq(weir_capture_reader_format(m), WEIR_CAPTURE_MSGPACK, "0x%02x", maps[i][0]);
        weir_capture_reader_close(m);
    }
    /* anything else is JSONL: text that is not JSON comes back as its line
     * (for the tool to say "not JSON" at line 1), not as bad msgpack; so do
     * bytes that msgpack would read as an integer or an array */
    static const struct {
        const char *data;
        const char *line;
    } texts[] = {
        {"hello\n", "hello"},
        {"[1,2]\n", "[1,2]"},
        {"\x91\x01", "\x91\x01"},
        {"7", "7"},
    };
    for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++) {
        weir_capture_reader *t = open_mem(texts[i].data, strlen(texts[i].data));
        cr_assert_eq(weir_capture_reader_format(t), WEIR_CAPTURE_JSONL, "case %zu", i);
        events te = {0};
        cr_assert_eq(read_events(t, &te), WEIR_CAPTURE_END, "case %zu: %s", i,
                     weir_capture_reader_error(t));
        cr_assert_eq(te.n, 1);
        cr_assert_str_eq(te.v[0], texts[i].line);
        cr_assert_eq(weir_capture_reader_line(t), 1);
        weir_capture_reader_close(t);
        events_free(&te);
    }
    /* a NUL byte first: JSONL, refused at line 1 */
    weir_capture_reader *z = open_mem("\0{}", 3);
    cr_assert_eq(weir_capture_reader_format(z), WEIR_CAPTURE_JSONL);
    cr_assert_eq(weir_capture_reader_next(z, &(const char *){NULL}, NULL), WEIR_EFORMAT);
    cr_assert_str_eq(weir_capture_reader_error(z), "mem:1: NUL byte in the line (not JSONL text)");
    weir_capture_reader_close(z);
    /* a UTF-8 byte order mark in front of JSONL is skipped; offsets still
     * count it */
    const char bom[] = "\xef\xbb\xbf{\"kind\":\"job\"}\n{\"kind\":\"summary\"}\n";
    weir_capture_reader *b = open_mem(bom, sizeof bom - 1);
    cr_assert_eq(weir_capture_reader_format(b), WEIR_CAPTURE_JSONL);
    events be = {0};
    cr_assert_eq(read_events(b, &be), WEIR_CAPTURE_END);
    cr_assert_eq(be.n, 2);
    cr_assert_str_eq(be.v[0], "{\"kind\":\"job\"}");
    cr_assert_eq(be.offset[0], 3);
    cr_assert_eq(be.offset[1], 18);
    weir_capture_reader_close(b);
    events_free(&be);

    const char jl[] = "\n\t{\"kind\":\"job\"}\n{\"kind\":\"summary\"}";
    weir_capture_reader *r = open_mem(jl, sizeof jl - 1);
    cr_assert_eq(weir_capture_reader_format(r), WEIR_CAPTURE_JSONL);
    events e = {0};
    /* the leading blank line is line 1: it is an empty line */
    cr_assert_eq(read_events(r, &e), WEIR_EFORMAT);
    cr_assert_str_eq(weir_capture_reader_error(r),
                     "mem:1: empty line (a capture has one JSON object per line)");
    weir_capture_reader_close(r);
    events_free(&e);

    const char jl2[] = "  \t{\"kind\":\"job\"}\n{\"kind\":\"summary\"}";
    r = open_mem(jl2, sizeof jl2 - 1);
    cr_assert_eq(read_events(r, &e), WEIR_CAPTURE_END);
    cr_assert_eq(e.n, 2);
    /* a line is returned as it is, leading blanks and all; the last one
     * needs no newline */
    cr_assert_str_eq(e.v[0], "  \t{\"kind\":\"job\"}");
    cr_assert_str_eq(e.v[1], "{\"kind\":\"summary\"}");
    cr_assert_eq(e.offset[1], 18);
    cr_assert_eq(weir_capture_reader_line(r), 2);
    /* END again, and again */
    cr_assert_eq(weir_capture_reader_next(r, &(const char *){NULL}, NULL), WEIR_CAPTURE_END);
    cr_assert_str_eq(weir_capture_reader_error(r), "");
    weir_capture_reader_close(r);
    events_free(&e);

    const unsigned char mp[] = {0x81, 0xa1, 'a', 0x01};
    r = open_mem(mp, sizeof mp);
    cr_assert_eq(weir_capture_reader_format(r), WEIR_CAPTURE_MSGPACK);
    cr_assert_eq(read_events(r, &e), WEIR_CAPTURE_END);
    cr_assert_eq(e.n, 1);
    cr_assert_str_eq(e.v[0], "{\"a\":1}");
    cr_assert_eq(weir_capture_reader_line(r), 0);
    weir_capture_reader_close(r);
    events_free(&e);

    r = open_mem("", 0);
    cr_assert_eq(read_events(r, &e), WEIR_CAPTURE_END);
    cr_assert_eq(e.n, 0);
    weir_capture_reader_close(r);
}

/* ---- msgpack errors ------------------------------------------------------- */

/* A small real capture in msgpack, and where each event starts and ends. */
static char *small_capture(size_t *size, size_t **ends, size_t *nevents)
{
    char *dir = td_tmpdir();
    static uint64_t vals[20];
    static int64_t ts[20];
    for (int i = 0; i < 20; i++) {
        vals[i] = (uint64_t)i;
        ts[i] = i * 10;
    }
    weir_job_config cfg = {.workers = 1, .clock = WEIR_CLOCK_VIRTUAL,
                           .diag.msgpack_path = td_path(dir, "c.msgpack")};
    weir_job *job = tu_job(&cfg);
    cr_assert_not_null(weir_sink_discard(weir_stream_rebalance(
        weir_source_array(job, vals, 20, sizeof vals[0], ts))));
    tu_run_ok(job);
    weir_job_destroy(job);
    char *data = td_read(td_path(dir, "c.msgpack"), size);
    td_rmdir(dir);
    size_t cap = 64, n = 0, off = 0;
    *ends = malloc(cap * sizeof **ends);
    msgpack_unpacked up;
    msgpack_unpacked_init(&up);
    while (off < *size) {
        cr_assert_eq(msgpack_unpack_next(&up, data, *size, &off), MSGPACK_UNPACK_SUCCESS);
        if (n == cap)
            *ends = realloc(*ends, (cap *= 2) * sizeof **ends);
        (*ends)[n++] = off;
    }
    msgpack_unpacked_destroy(&up);
    *nevents = n;
    cr_assert_gt(n, 4);
    return data;
}

Test(diag_reader, a_msgpack_capture_cut_anywhere_is_truncated_at_the_cut_event, .timeout = 120)
{
    size_t size, *ends, n;
    char *data = small_capture(&size, &ends, &n);
    events all = {0};
    weir_capture_reader *r = open_mem(data, size);
    cr_assert_eq(read_events(r, &all), WEIR_CAPTURE_END);
    weir_capture_reader_close(r);
    cr_assert_eq(all.n, n);
    for (size_t cut = 1; cut < size; cut++) {
        size_t k = 0;
        while (k < n && ends[k] <= cut)
            k++;
        bool boundary = k > 0 && ends[k - 1] == cut;
        events e = {0};
        r = open_mem(data, cut);
        int res = read_events(r, &e);
        cr_assert_eq(e.n, k, "cut at %zu: %zu events, expected %zu", cut, e.n, k);
        for (size_t i = 0; i < k; i++)
            cr_assert_str_eq(e.v[i], all.v[i]);
        if (boundary) {
            cr_assert_eq(res, WEIR_CAPTURE_END, "cut at the boundary %zu", cut);
        } else {
            char want[160];
            snprintf(want, sizeof want,
                     "mem: byte offset %zu: the capture was cut short in the middle of an event "
                     "(the writing process stopped)",
                     k ? ends[k - 1] : 0);
            cr_assert(weir_capture_reader_cut(r));
            cr_assert_eq(res, WEIR_EFORMAT);
            cr_assert_str_eq(weir_capture_reader_error(r), want);
            cr_assert_eq(weir_capture_reader_offset(r), (int64_t)(k ? ends[k - 1] : 0));
            /* the error stays */
            cr_assert_eq(weir_capture_reader_next(r, &(const char *){NULL}, NULL), WEIR_EFORMAT);
            cr_assert_str_eq(weir_capture_reader_error(r), want);
        }
        weir_capture_reader_close(r);
        events_free(&e);
    }
    events_free(&all);
    free(ends);
    free(data);
}

static void assert_msgpack_error(const void *data, size_t size, size_t nok, const char *msg)
{
    weir_capture_reader *r = open_mem(data, size);
    events e = {0};
    cr_assert_eq(read_events(r, &e), WEIR_EFORMAT);
    cr_assert_eq(e.n, nok);
    cr_assert_str_eq(weir_capture_reader_error(r), msg);
    weir_capture_reader_close(r);
    events_free(&e);
}

Test(diag_reader, what_is_not_an_event_is_refused_at_its_offset)
{
    msgpack_sbuffer sb;
    msgpack_packer pk;
    msgpack_sbuffer_init(&sb);
    msgpack_packer_init(&pk, &sb, msgpack_sbuffer_write);
    /* a map, then an array (an array first is no msgpack capture at all:
     * detects_the_format_by_its_first_byte) */
    msgpack_pack_map(&pk, 0);
    msgpack_pack_array(&pk, 1);
    msgpack_pack_int(&pk, 1);
    assert_msgpack_error(sb.data, sb.size, 1, "mem: byte offset 1: event is not a map");
    /* a map, then an integer */
    msgpack_sbuffer_clear(&sb);
    msgpack_sbuffer_clear(&sb);
    msgpack_pack_map(&pk, 1);
    msgpack_pack_str_with_body(&pk, "kind", 4);
    msgpack_pack_str_with_body(&pk, "job", 3);
    size_t first = sb.size;
    msgpack_pack_int(&pk, 7);
    char want[128];
    snprintf(want, sizeof want, "mem: byte offset %zu: event is not a map", first);
    assert_msgpack_error(sb.data, sb.size, 1, want);
    /* a byte that is no msgpack at all */
    msgpack_sbuffer_clear(&sb);
    msgpack_pack_map(&pk, 0);
    msgpack_sbuffer_write(&sb, "\xc1", 1);
    assert_msgpack_error(sb.data, sb.size, 1,
                         "mem: byte offset 1: malformed msgpack event: byte 0xc1 is no msgpack "
                         "type, at byte offset 1");
    /* maps JSON cannot hold: a key that is not a string, binary data, NaN */
    const char *nojson =
        ": event has no JSON form (a map key that is not a string, binary or ext data, or a "
        "float that is not finite)";
    msgpack_sbuffer_clear(&sb);
    msgpack_pack_map(&pk, 1);
    msgpack_pack_int(&pk, 1);
    msgpack_pack_int(&pk, 2);
    snprintf(want, sizeof want, "mem: byte offset 0%s", nojson);
    assert_msgpack_error(sb.data, sb.size, 0, want);
    msgpack_sbuffer_clear(&sb);
    msgpack_pack_map(&pk, 1);
    msgpack_pack_str_with_body(&pk, "b", 1);
    msgpack_pack_bin_with_body(&pk, "xy", 2);
    assert_msgpack_error(sb.data, sb.size, 0, want);
    msgpack_sbuffer_clear(&sb);
    msgpack_pack_map(&pk, 1);
    msgpack_pack_str_with_body(&pk, "fill", 4);
    msgpack_pack_double(&pk, NAN);
    assert_msgpack_error(sb.data, sb.size, 0, want);
    /* and one it can: floats stay floats, strings are escaped */
    msgpack_sbuffer_clear(&sb);
    msgpack_pack_map(&pk, 3);
    msgpack_pack_str_with_body(&pk, "fill", 4);
    msgpack_pack_double(&pk, 1.0);
    msgpack_pack_str_with_body(&pk, "key", 3);
    msgpack_pack_str_with_body(&pk, "a\"b\\\n", 5);
    msgpack_pack_str_with_body(&pk, "n", 1);
    msgpack_pack_nil(&pk);
    weir_capture_reader *r = open_mem(sb.data, sb.size);
    events e = {0};
    cr_assert_eq(read_events(r, &e), WEIR_CAPTURE_END);
    cr_assert_str_eq(e.v[0], "{\"fill\":1.0,\"key\":\"a\\\"b\\\\\\n\",\"n\":null}");
    weir_capture_reader_close(r);
    events_free(&e);
    /* JSON text is UTF-8: what is not well-formed UTF-8 becomes U+FFFD, one
     * per byte, and the rest passes as it is */
    static const struct {
        const char *in, *out;
    } utf8[] = {
        {"caf\xc3\xa9 \xe6\x97\xa5 \xf0\x9f\x8c\x8a", "caf\xc3\xa9 \xe6\x97\xa5 \xf0\x9f\x8c\x8a"},
        {"caf\xe9", "caf\\ufffd"},                   /* Latin-1 */
        {"x\xe6\x97", "x\\ufffd\\ufffd"},            /* cut short */
        {"\xed\xa0\x80", "\\ufffd\\ufffd\\ufffd"},     /* a surrogate */
        {"\xc0\xaf", "\\ufffd\\ufffd"},              /* overlong */
        {"\xf4\x90\x80\x80", "\\ufffd\\ufffd\\ufffd\\ufffd"}, /* above U+10FFFF */
        {"\x80" "a", "\\ufffd" "a"},                /* a stray continuation */
    };
    for (size_t i = 0; i < sizeof utf8 / sizeof utf8[0]; i++) {
        msgpack_sbuffer_clear(&sb);
        msgpack_pack_map(&pk, 1);
        msgpack_pack_str_with_body(&pk, "key", 3);
        msgpack_pack_str_with_body(&pk, utf8[i].in, strlen(utf8[i].in));
        r = open_mem(sb.data, sb.size);
        cr_assert_eq(read_events(r, &e), WEIR_CAPTURE_END);
        char line[128];
        snprintf(line, sizeof line, "{\"key\":\"%s\"}", utf8[i].out);
        cr_assert_str_eq(e.v[0], line, "case %zu", i);
        json_decref(td_json(e.v[0]));
        weir_capture_reader_close(r);
        events_free(&e);
    }
    msgpack_sbuffer_destroy(&sb);
}

/* ---- JSONL errors --------------------------------------------------------- */

Test(diag_reader, jsonl_problems_carry_their_line)
{
    const char empty[] = "{\"a\":1}\n\n{\"b\":2}\n";
    weir_capture_reader *r = open_mem(empty, sizeof empty - 1);
    events e = {0};
    cr_assert_eq(read_events(r, &e), WEIR_EFORMAT);
    cr_assert_eq(e.n, 1);
    cr_assert_str_eq(weir_capture_reader_error(r),
                     "mem:2: empty line (a capture has one JSON object per line)");
    char where[64];
    weir_capture_reader_where(r, where, sizeof where);
    cr_assert_str_eq(where, "mem:2");
    weir_capture_reader_close(r);
    events_free(&e);

    const char nul[] = "{\"a\":1}\n{\"a\":1}\n{\"b\0\":2}\n";
    r = open_mem(nul, sizeof nul - 1);
    cr_assert_eq(read_events(r, &e), WEIR_EFORMAT);
    cr_assert_eq(e.n, 2);
    cr_assert_str_eq(weir_capture_reader_error(r), "mem:3: NUL byte in the line (not JSONL text)");
    weir_capture_reader_close(r);
    events_free(&e);

    /* CRLF line ends pass through (JSON takes \r as a blank) */
    const char crlf[] = "{\"a\":1}\r\n{\"b\":2}\r\n";
    r = open_mem(crlf, sizeof crlf - 1);
    cr_assert_eq(read_events(r, &e), WEIR_CAPTURE_END);
    cr_assert_eq(e.n, 2);
    cr_assert_str_eq(e.v[1], "{\"b\":2}\r");
    weir_capture_reader_close(r);
    events_free(&e);
}

/* ---- the same events from a path, a stream and memory --------------------- */

static void assert_same_three_ways(const char *path, size_t expect_at_least)
{
    size_t size;
    char *data = td_read(path, &size);
    cr_assert_gt(size, 3 * 64 * 1024, "the capture is too small to refill the buffer");
    events a = {0}, b = {0}, c = {0};
    char err[256];
    weir_capture_reader *r;
    cr_assert_eq(weir_capture_reader_open(path, &r, err, sizeof err), 0, "%s", err);
    cr_assert_str_eq(weir_capture_reader_name(r), path);
    cr_assert_eq(read_events(r, &a), WEIR_CAPTURE_END, "%s", weir_capture_reader_error(r));
    weir_capture_reader_close(r);
    FILE *f = fopen(path, "rb");
    cr_assert_not_null(f);
    cr_assert_eq(weir_capture_reader_open_file(f, "stream", &r, err, sizeof err), 0, "%s", err);
    cr_assert_eq(read_events(r, &b), WEIR_CAPTURE_END, "%s", weir_capture_reader_error(r));
    weir_capture_reader_close(r);
    /* the reader did not close a stream it was given */
    cr_assert_eq(fclose(f), 0);
    r = open_mem(data, size);
    cr_assert_eq(read_events(r, &c), WEIR_CAPTURE_END);
    weir_capture_reader_close(r);
    cr_assert_geq(a.n, expect_at_least);
    cr_assert_eq(b.n, a.n);
    cr_assert_eq(c.n, a.n);
    for (size_t i = 0; i < a.n; i++) {
        cr_assert_str_eq(b.v[i], a.v[i], "event %zu", i);
        cr_assert_str_eq(c.v[i], a.v[i], "event %zu", i);
        cr_assert_eq(b.offset[i], a.offset[i]);
        cr_assert_eq(c.offset[i], a.offset[i]);
    }
    events_free(&a);
    events_free(&b);
    events_free(&c);
    free(data);
}

Test(diag_reader, a_path_a_stream_and_memory_read_the_same, .timeout = 120)
{
    char *dir = td_tmpdir();
    const char *jl = td_path(dir, "v.jsonl"), *mp = td_path(dir, "v.msgpack");
    weir_job_config cfg = {
        .diag = {.level = WEIR_DIAG_VERBOSE, .jsonl_path = jl, .msgpack_path = mp}};
    td_window_job w;
    td_window_job_make(&w, &cfg);
    tu_run_ok(w.job);
    weir_job_destroy(w.job);
    assert_same_three_ways(mp, 1000);
    assert_same_three_ways(jl, 1000);

    /* one line far longer than the read buffer */
    size_t n = 300 * 1024;
    char *big = malloc(n + 16);
    cr_assert_not_null(big);
    memcpy(big, "{\"k\":\"", 6);
    memset(big + 6, 'x', n);
    memcpy(big + 6 + n, "\"}\n{}\n", 6);
    const char *p = td_path(dir, "big.jsonl");
    td_write(p, big, n + 12);
    char err[256];
    weir_capture_reader *r;
    cr_assert_eq(weir_capture_reader_open(p, &r, err, sizeof err), 0, "%s", err);
    events e = {0};
    cr_assert_eq(read_events(r, &e), WEIR_CAPTURE_END);
    cr_assert_eq(e.n, 2);
    cr_assert_eq(strlen(e.v[0]), n + 8);
    cr_assert_str_eq(e.v[1], "{}");
    cr_assert_eq(e.offset[1], (int64_t)n + 9);
    weir_capture_reader_close(r);
    events_free(&e);
    free(big);
    td_rmdir(dir);
}

/* msgpack-c's unpacker allocates for a container's elements when it reads
 * its header, and reports nesting beyond its stack as out of memory: a
 * header no event can have is refused as malformed, at its byte offset,
 * before the unpacker sees it. Deep but legal nesting (32 levels) still
 * reads. */
Test(diag_reader, headers_no_event_can_have_are_malformed_at_their_offset)
{
    /* {"kind": {map claiming 4294967295 entries ... */
    static const unsigned char huge_map[] = {0x81, 0xa4, 'k', 'i', 'n', 'd',
                                             0xdf, 0xff, 0xff, 0xff, 0xff, 0xa1, 'k', 0x01};
    assert_msgpack_error(huge_map, sizeof huge_map, 0,
                         "mem: byte offset 0: malformed msgpack event: a map of 4294967295 "
                         "entries (an event of at most 64 MiB holds fewer), at byte offset 6");
    static const unsigned char huge_array[] = {0x81, 0xa1, 'k', 0xdd, 0x7f, 0xff, 0xff, 0xff, 0x01};
    assert_msgpack_error(huge_array, sizeof huge_array, 0,
                         "mem: byte offset 0: malformed msgpack event: an array of 2147483647 "
                         "elements (an event of at most 64 MiB holds fewer), at byte offset 3");
    static const unsigned char huge_str[] = {0x81, 0xa1, 'k', 0xdb, 0xff, 0xff, 0xff, 0xf0, 'x'};
    assert_msgpack_error(huge_str, sizeof huge_str, 0,
                         "mem: byte offset 0: malformed msgpack event: a string, binary or ext "
                         "value of 4294967280 bytes (an event of at most 64 MiB holds fewer), at "
                         "byte offset 3");
    /* {"k": [[[[...1]]]] } 100 000 levels deep */
    size_t depth = 100000;
    unsigned char *deep = malloc(depth + 4);
    cr_assert_not_null(deep);
    memcpy(deep, "\x81\xa1k", 3);
    memset(deep + 3, 0x91, depth);
    deep[3 + depth] = 0x01;
    assert_msgpack_error(deep, depth + 4, 0,
                         "mem: byte offset 0: malformed msgpack event: nested deeper than 32 "
                         "levels, at byte offset 34");
    /* 32 levels (the map and 31 arrays) are fine */
    deep[3 + 31] = 0x01;
    weir_capture_reader *r = open_mem(deep, 3 + 31 + 1);
    events e = {0};
    cr_assert_eq(read_events(r, &e), WEIR_CAPTURE_END, "%s", weir_capture_reader_error(r));
    cr_assert_eq(e.n, 1);
    char want[128] = "{\"k\":";
    for (int i = 0; i < 31; i++)
        strcat(want, "[");
    strcat(want, "1");
    for (int i = 0; i < 31; i++)
        strcat(want, "]");
    strcat(want, "}");
    cr_assert_str_eq(e.v[0], want);
    weir_capture_reader_close(r);
    events_free(&e);
    free(deep);
}

/* An empty msgpack string has no bytes, and msgpack-c gives the first one of
 * an event a NULL pointer: it prints as "" (UBSan, in the asan build, fails
 * this on pointer arithmetic or a memcpy with NULL). */
Test(diag_reader, an_empty_string_converts)
{
    static const unsigned char ev[] = {0x83, 0xa0, 0xa1, 'x', 0xa4, 'k', 'i', 'n',
                                       'd', 0xa0, 0xa1, 't', 0xa0};
    weir_capture_reader *r = open_mem(ev, sizeof ev);
    events e = {0};
    cr_assert_eq(read_events(r, &e), WEIR_CAPTURE_END, "%s", weir_capture_reader_error(r));
    cr_assert_eq(e.n, 1);
    cr_assert_str_eq(e.v[0], "{\"\":\"x\",\"kind\":\"\",\"t\":\"\"}");
    weir_capture_reader_close(r);
    events_free(&e);
}
