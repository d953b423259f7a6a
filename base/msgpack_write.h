/* msgpack_write.h — the msgpack headers and integers the capture writer
 * puts into its buffer itself, a map member at a time, instead of one
 * packer call (and one buffer write) per piece. Byte for byte what
 * msgpack-c's packer writes for the same call (its pack_template.h: the
 * smallest form, str8 included), so a capture reads the same either way;
 * tests/base/test_msgpack_write.c compares the two.
 *
 * Each writes at p (room for what it writes: WEIR__MP_MAX bytes at most for
 * a header or an integer) and returns the byte after. Inline, header-only.
 */
#ifndef WEIR_BASE_MSGPACK_WRITE_H
#define WEIR_BASE_MSGPACK_WRITE_H

#include <stddef.h>
#include <stdint.h>

/* The most bytes a header or an integer takes. */
#define WEIR__MP_MAX 9

static inline unsigned char *weir__mp_be(unsigned char *p, uint64_t v, int bytes)
{
    for (int i = bytes - 1; i >= 0; i--) {
        p[i] = (unsigned char)(v & 0xff);
        v >>= 8;
    }
    return p + bytes;
}

/* msgpack_pack_int64 */
static inline unsigned char *weir__mp_int(unsigned char *p, int64_t d)
{
    if (d < -(1LL << 5)) {
        if (d < -(1LL << 15)) {
            if (d < -(1LL << 31)) {
                *p++ = 0xd3;
                return weir__mp_be(p, (uint64_t)d, 8);
            }
            *p++ = 0xd2;
            return weir__mp_be(p, (uint32_t)(int32_t)d, 4);
        }
        if (d < -(1 << 7)) {
            *p++ = 0xd1;
            return weir__mp_be(p, (uint16_t)(int16_t)d, 2);
        }
        *p++ = 0xd0;
        *p++ = (unsigned char)(int8_t)d;
        return p;
    }
    if (d < (1 << 7)) {
        *p++ = (unsigned char)(int8_t)d; /* fixnum, positive or negative */
        return p;
    }
    if (d < (1LL << 16)) {
        if (d < (1 << 8)) {
            *p++ = 0xcc;
            *p++ = (unsigned char)d;
            return p;
        }
        *p++ = 0xcd;
        return weir__mp_be(p, (uint64_t)d, 2);
    }
    if (d < (1LL << 32)) {
        *p++ = 0xce;
        return weir__mp_be(p, (uint64_t)d, 4);
    }
    *p++ = 0xcf;
    return weir__mp_be(p, (uint64_t)d, 8);
}

/* msgpack_pack_str (the header; the bytes follow) */
static inline unsigned char *weir__mp_str(unsigned char *p, size_t n)
{
    if (n < 32) {
        *p++ = (unsigned char)(0xa0 | n);
        return p;
    }
    if (n < 256) {
        *p++ = 0xd9;
        *p++ = (unsigned char)n;
        return p;
    }
    if (n < 65536) {
        *p++ = 0xda;
        return weir__mp_be(p, n, 2);
    }
    *p++ = 0xdb;
    return weir__mp_be(p, (uint32_t)n, 4);
}

/* msgpack_pack_map (base 0x80) and msgpack_pack_array (base 0x90) */
static inline unsigned char *weir__mp_container(unsigned char *p, size_t n, unsigned char fix,
                                                unsigned char c16)
{
    if (n < 16) {
        *p++ = (unsigned char)(fix | n);
        return p;
    }
    if (n < 65536) {
        *p++ = c16;
        return weir__mp_be(p, n, 2);
    }
    *p++ = (unsigned char)(c16 + 1);
    return weir__mp_be(p, (uint32_t)n, 4);
}

static inline unsigned char *weir__mp_map(unsigned char *p, size_t n)
{
    return weir__mp_container(p, n, 0x80, 0xde);
}

static inline unsigned char *weir__mp_array(unsigned char *p, size_t n)
{
    return weir__mp_container(p, n, 0x90, 0xdc);
}

/* msgpack_pack_true / _false / _nil */
static inline unsigned char *weir__mp_bool(unsigned char *p, int v)
{
    *p++ = v ? 0xc3 : 0xc2;
    return p;
}

static inline unsigned char *weir__mp_nil(unsigned char *p)
{
    *p++ = 0xc0;
    return p;
}

#endif
