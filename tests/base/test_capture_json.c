/* test_capture_json.c — the canonical JSON text of capture events
 * (base/capture_json.h).
 *
 * The collector writes an event's JSON with the writer directly, while
 * `weir capture convert` prints a msgpack object it read through the same
 * writer; a capture is only convertible byte for byte if both give the same
 * text. These tests pin the writer's output for each kind of value
 * (punctuation of nested and empty containers, escapes, UTF-8 repair, the
 * integer extremes, floats), and check on random value trees that writing a
 * tree directly and writing its msgpack form through weir__msgpack_to_json
 * give identical bytes.
 */
#include <criterion/criterion.h>
#include <msgpack.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "capture_json.h"

static const char *text(weir__buf *b)
{
    return weir__buf_cstr(b);
}

/* The writer the fixed-output tests write with, and its buffer. */
static weir__buf b;
static weir__json_writer jw;

static void writer_setup(void)
{
    b = (weir__buf){0};
    weir__json_begin(&jw, &b);
}

static void writer_teardown(void)
{
    weir__buf_free(&b);
}

#define WRITER_TEST(name) Test(capture_json, name, .init = writer_setup, .fini = writer_teardown)

WRITER_TEST(containers_punctuate_and_close_themselves)
{
    weir__json_map(&jw, 3);
    weir__json_plain(&jw, "a", 1);
    weir__json_array(&jw, 2);
    weir__json_int(&jw, 1);
    weir__json_map(&jw, 0);
    weir__json_plain(&jw, "b", 1);
    weir__json_array(&jw, 0);
    weir__json_plain(&jw, "c", 1);
    weir__json_nil(&jw);
    cr_assert_eq(jw.depth, 0);
    cr_assert_str_eq(text(&b), "{\"a\":[1,{}],\"b\":[],\"c\":null}");
}

WRITER_TEST(scalars)
{
    weir__json_array(&jw, 9);
    weir__json_int(&jw, INT64_MIN);
    weir__json_int(&jw, INT64_MAX);
    weir__json_uint(&jw, UINT64_MAX);
    weir__json_int(&jw, 0);
    weir__json_bool(&jw, true);
    weir__json_bool(&jw, false);
    cr_assert(weir__json_double(&jw, 1.0));
    cr_assert(weir__json_double(&jw, 0.25));
    cr_assert_not(weir__json_double(&jw, NAN), "NaN has no JSON form");
    cr_assert_not(weir__json_double(&jw, INFINITY));
    weir__json_double(&jw, -2e300);
    cr_assert_str_eq(text(&b), "[-9223372036854775808,9223372036854775807,"
                               "18446744073709551615,0,true,false,1.0,0.25,"
                               "-2.0000000000000001e+300]");
}

WRITER_TEST(strings_are_escaped_and_utf8_repaired)
{
    const char s[] = "q\"b\\n\n\t\x01\x7f"
                     "\xc3\xa9"   /* é: well-formed */
                     "\xff"       /* never UTF-8 */
                     "\xe2\x82";  /* a cut sequence at the end */
    weir__json_array(&jw, 2);
    weir__json_str(&jw, s, sizeof s - 1);
    weir__json_str(&jw, NULL, 0);
    cr_assert_str_eq(text(&b),
                     "[\"q\\\"b\\\\n\\n\\t\\u0001\x7f\xc3\xa9\\ufffd\\ufffd\\ufffd\",\"\"]");
}

WRITER_TEST(too_deep_is_invalid_not_overflowing)
{
    for (int i = 0; i < WEIR__JSON_DEPTH + 5; i++)
        weir__json_array(&jw, 1);
    cr_assert(jw.invalid);
    cr_assert_eq(jw.depth, WEIR__JSON_DEPTH);
}

/* ---- direct writing and the msgpack route agree --------------------------- */

static uint64_t rng_state;

static uint64_t rnd(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

/* One random value, written to both the writer and the packer. */
static void random_value(weir__json_writer *w, msgpack_packer *pk, int depth)
{
    static const char *const strings[] = {"", "plain", "tab\there", "quote\"", "\xc3\xa9t\xc3\xa9",
                                          "bad\xfe", "ctl\x1f", "slash\\"};
    int kind = (int)(rnd() % (depth < 4 ? 8 : 6));
    switch (kind) {
    case 0:
        weir__json_nil(w);
        msgpack_pack_nil(pk);
        break;
    case 1: {
        bool v = rnd() & 1;
        weir__json_bool(w, v);
        if (v)
            msgpack_pack_true(pk);
        else
            msgpack_pack_false(pk);
        break;
    }
    case 2: {
        int64_t v = (int64_t)rnd() >> (rnd() % 64);
        weir__json_int(w, v);
        msgpack_pack_int64(pk, v);
        break;
    }
    case 3: {
        uint64_t v = rnd();
        weir__json_uint(w, v);
        msgpack_pack_uint64(pk, v);
        break;
    }
    case 4: {
        double v = (double)(int64_t)rnd() / (double)(1 + rnd() % 1000);
        weir__json_double(w, v);
        msgpack_pack_double(pk, v);
        break;
    }
    case 5: {
        const char *s = strings[rnd() % (sizeof strings / sizeof *strings)];
        weir__json_str(w, s, strlen(s));
        msgpack_pack_str(pk, strlen(s));
        msgpack_pack_str_body(pk, s, strlen(s));
        break;
    }
    case 6: {
        uint32_t n = (uint32_t)(rnd() % 4);
        weir__json_array(w, n);
        msgpack_pack_array(pk, n);
        for (uint32_t i = 0; i < n; i++)
            random_value(w, pk, depth + 1);
        break;
    }
    default: {
        uint32_t n = (uint32_t)(rnd() % 4);
        weir__json_map(w, n);
        msgpack_pack_map(pk, n);
        for (uint32_t i = 0; i < n; i++) {
            const char *k = strings[rnd() % (sizeof strings / sizeof *strings)];
            weir__json_str(w, k, strlen(k));
            msgpack_pack_str(pk, strlen(k));
            msgpack_pack_str_body(pk, k, strlen(k));
            random_value(w, pk, depth + 1);
        }
        break;
    }
    }
}

Test(capture_json, direct_and_msgpack_routes_give_the_same_bytes)
{
    rng_state = 0x9E3779B97F4A7C15u;
    msgpack_sbuffer sbuf;
    msgpack_sbuffer_init(&sbuf);
    msgpack_packer pk;
    msgpack_packer_init(&pk, &sbuf, msgpack_sbuffer_write);
    msgpack_unpacked up;
    msgpack_unpacked_init(&up);
    weir__buf direct = {0}, routed = {0};
    for (int i = 0; i < 2000; i++) {
        msgpack_sbuffer_clear(&sbuf);
        weir__buf_reset(&direct);
        weir__buf_reset(&routed);
        weir__json_writer w;
        weir__json_begin(&w, &direct);
        random_value(&w, &pk, 0);
        cr_assert_eq(w.depth, 0, "tree %d left open", i);
        size_t off = 0;
        cr_assert_eq(msgpack_unpack_next(&up, sbuf.data, sbuf.size, &off), MSGPACK_UNPACK_SUCCESS);
        cr_assert_eq(weir__msgpack_to_json(&up.data, &routed), 0, "tree %d", i);
        cr_assert_str_eq(text(&direct), text(&routed), "tree %d", i);
    }
    weir__buf_free(&direct);
    weir__buf_free(&routed);
    msgpack_unpacked_destroy(&up);
    msgpack_sbuffer_destroy(&sbuf);
}

/* ---- map members in one piece ---------------------------------------------- */

/* A member written as a pair (the key, then the value's own call) or in one
 * piece (weir__json_kv_*), chosen per member: the text must not tell. */
static void member(weir__json_writer *w, bool piece, int kind, const char *key, int64_t i,
                   const char *s)
{
    size_t kn = strlen(key), n = s ? strlen(s) : 0;
    if (piece) {
        switch (kind) {
        case 0: weir__json_kv_int(w, key, kn, i); break;
        case 1: weir__json_kv_plain(w, key, kn, "MAX", 3); break;
        case 2: weir__json_kv_str(w, key, kn, s, n); break;
        case 3: weir__json_kv_bool(w, key, kn, i & 1); break;
        default: weir__json_kv_raw(w, key, kn, "\"r\\\"aw\"", 7); break;
        }
        return;
    }
    weir__json_plain(w, key, kn);
    switch (kind) {
    case 0: weir__json_int(w, i); break;
    case 1: weir__json_plain(w, "MAX", 3); break;
    case 2: weir__json_str(w, s, n); break;
    case 3: weir__json_bool(w, i & 1); break;
    default: weir__json_str(w, "r\"aw", 4); break;
    }
}

Test(capture_json, members_in_one_piece_are_the_pairs_text)
{
    static const char *const strings[] = {"", "plain", "tab\there", "quote\"", "\xc3\xa9t\xc3\xa9",
                                          "bad\xfe", "ctl\x1f", "slash\\", "1234"};
    rng_state = 0x2545f4914f6cdd1dULL;
    for (int round = 0; round < 2000; round++) {
        weir__buf a = {0}, c = {0};
        weir__json_writer wa, wc;
        weir__json_begin(&wa, &a);
        weir__json_begin(&wc, &c);
        /* a map of members, one of them a map of members in an array */
        uint32_t n = (uint32_t)(rnd() % 6);
        weir__json_map(&wa, n + 1);
        weir__json_map(&wc, n + 1);
        for (uint32_t k = 0; k <= n; k++) {
            char key[16];
            snprintf(key, sizeof key, "k%u", k);
            if (k == n) {
                uint32_t m = (uint32_t)(rnd() % 3);
                weir__json_plain(&wa, key, strlen(key));
                weir__json_plain(&wc, key, strlen(key));
                weir__json_array(&wa, 1);
                weir__json_array(&wc, 1);
                weir__json_map(&wa, m);
                weir__json_map(&wc, m);
                for (uint32_t j = 0; j < m; j++) {
                    int kind = (int)(rnd() % 5);
                    int64_t i = (int64_t)rnd() >> (rnd() % 64);
                    const char *s = strings[rnd() % (sizeof strings / sizeof *strings)];
                    member(&wa, false, kind, "in", i, s);
                    member(&wc, true, kind, "in", i, s);
                }
                continue;
            }
            int kind = (int)(rnd() % 5);
            int64_t i = (int64_t)rnd() >> (rnd() % 64);
            const char *s = strings[rnd() % (sizeof strings / sizeof *strings)];
            member(&wa, false, kind, key, i, s);
            member(&wc, rnd() & 1, kind, key, i, s);
        }
        cr_assert_eq(wa.depth, 0);
        cr_assert_eq(wc.depth, 0, "the members closed their map");
        cr_assert_str_eq(weir__buf_cstr(&c), weir__buf_cstr(&a));
        weir__buf_free(&a);
        weir__buf_free(&c);
    }
    /* every digit count, both signs, and the extremes */
    for (int neg = 0; neg < 2; neg++) {
        for (uint64_t t = 1, k = 0; k < 20; k++, t *= 10) {
            for (int64_t d = -1; d <= 1; d++) {
                int64_t v;
                if (__builtin_add_overflow((int64_t)(t > (uint64_t)INT64_MAX ? (uint64_t)INT64_MAX : t),
                                           d, &v) ||
                    v < 0)
                    continue;
                v = neg ? -v : v;
                weir__buf a = {0}, c = {0};
                weir__json_writer wa, wc;
                weir__json_begin(&wa, &a);
                weir__json_begin(&wc, &c);
                weir__json_map(&wa, 1);
                weir__json_map(&wc, 1);
                member(&wa, false, 0, "v", v, NULL);
                member(&wc, true, 0, "v", v, NULL);
                cr_assert_str_eq(weir__buf_cstr(&c), weir__buf_cstr(&a));
                weir__buf_free(&a);
                weir__buf_free(&c);
            }
        }
    }
    {
        weir__buf a = {0};
        weir__json_writer w;
        weir__json_begin(&w, &a);
        weir__json_map(&w, 2);
        weir__json_kv_int(&w, "min", 3, INT64_MIN);
        weir__json_kv_int(&w, "max", 3, INT64_MAX);
        cr_assert_str_eq(weir__buf_cstr(&a),
                         "{\"min\":-9223372036854775808,\"max\":9223372036854775807}");
        weir__buf_free(&a);
    }
    /* outside a map at a key (an array's element, the top) the pieces fall
     * back to the pair and still give its text */
    weir__buf a = {0};
    weir__json_writer w;
    weir__json_begin(&w, &a);
    weir__json_array(&w, 2);
    weir__json_kv_int(&w, "a", 1, -5);
    cr_assert_str_eq(weir__buf_cstr(&a), "[\"a\",-5]");
    weir__buf_free(&a);
}
