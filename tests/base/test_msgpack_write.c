/* test_msgpack_write.c — the capture writer's own msgpack encoders
 * (base/msgpack_write.h) against msgpack-c's packer, which wrote the
 * captures before: the same bytes for every integer form (each boundary and
 * its neighbours, and random values of every magnitude), string, map and
 * array header, and the constants. A capture written either way reads the
 * same (and converts to the same JSONL).
 */
#include <criterion/criterion.h>
#include <msgpack.h>
#include <stdint.h>
#include <string.h>

#include "msgpack_write.h"

/* What the packer writes for one call. */
typedef struct packed {
    msgpack_sbuffer sb;
    msgpack_packer pk;
} packed;

static void packed_init(packed *p)
{
    msgpack_sbuffer_init(&p->sb);
    msgpack_packer_init(&p->pk, &p->sb, msgpack_sbuffer_write);
}

static void assert_same(packed *p, const unsigned char *mine, const unsigned char *end,
                        const char *what, long long v)
{
    size_t n = (size_t)(end - mine);
    cr_assert_eq(n, p->sb.size, "%s %lld: %zu bytes, the packer's %zu", what, v, n, p->sb.size);
    cr_assert_eq(memcmp(mine, p->sb.data, n), 0, "%s %lld: other bytes than the packer's", what, v);
    msgpack_sbuffer_clear(&p->sb);
}

static void check_int(packed *p, int64_t v)
{
    unsigned char buf[WEIR__MP_MAX];
    msgpack_pack_int64(&p->pk, v);
    assert_same(p, buf, weir__mp_int(buf, v), "int", (long long)v);
}

Test(msgpack_write, integers_take_the_packers_form)
{
    packed p;
    packed_init(&p);
    /* every boundary of the forms, both signs, and its neighbours */
    static const int64_t edges[] = {0,          31,         32,         127,        128,
                                    255,        256,        65535,      65536,      4294967295LL,
                                    4294967296LL, INT64_MAX};
    for (size_t i = 0; i < sizeof edges / sizeof edges[0]; i++) {
        for (int64_t d = -2; d <= 2; d++) {
            int64_t v;
            if (!__builtin_add_overflow(edges[i], d, &v))
                check_int(&p, v);
            if (!__builtin_sub_overflow(-edges[i], d, &v))
                check_int(&p, v);
        }
    }
    check_int(&p, INT64_MIN);
    check_int(&p, INT64_MIN + 1);
    /* random values of every magnitude */
    uint64_t x = 0x9e3779b97f4a7c15ULL;
    for (int i = 0; i < 200000; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        int64_t v = (int64_t)(x >> (x % 64));
        check_int(&p, (x & 1) ? v : -v);
    }
    msgpack_sbuffer_destroy(&p.sb);
}

Test(msgpack_write, headers_and_constants_take_the_packers_form)
{
    packed p;
    packed_init(&p);
    unsigned char buf[WEIR__MP_MAX];
    static const size_t sizes[] = {0,   1,   15,    16,    31,    32,     255,
                                   256, 257, 65535, 65536, 65537, 1 << 20};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        size_t n = sizes[i];
        msgpack_pack_str(&p.pk, n);
        assert_same(&p, buf, weir__mp_str(buf, n), "str", (long long)n);
        msgpack_pack_map(&p.pk, n);
        assert_same(&p, buf, weir__mp_map(buf, n), "map", (long long)n);
        msgpack_pack_array(&p.pk, n);
        assert_same(&p, buf, weir__mp_array(buf, n), "array", (long long)n);
    }
    msgpack_pack_true(&p.pk);
    assert_same(&p, buf, weir__mp_bool(buf, 1), "true", 1);
    msgpack_pack_false(&p.pk);
    assert_same(&p, buf, weir__mp_bool(buf, 0), "false", 0);
    msgpack_pack_nil(&p.pk);
    assert_same(&p, buf, weir__mp_nil(buf), "nil", 0);
    msgpack_sbuffer_destroy(&p.sb);
}
