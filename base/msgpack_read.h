/* msgpack_read.h — reading weir's own msgpack documents back (checkpoint
 * metadata, keyed snapshots): a string compared with a C string, a map's
 * member by key, the integer kinds. Inline and header-only: a few lines
 * each, used where a document is checked field by field. */
#ifndef WEIR_BASE_MSGPACK_READ_H
#define WEIR_BASE_MSGPACK_READ_H

#include <msgpack.h>
#include <stdbool.h>
#include <string.h>

/* o is the string s. */
static inline bool weir__mp_str_is(const msgpack_object *o, const char *s)
{
    size_t n = strlen(s);
    return o && o->type == MSGPACK_OBJECT_STR && o->via.str.size == n &&
           memcmp(o->via.str.ptr, s, n) == 0;
}

/* The value of map's member `key` (the first), or NULL (no such member, or
 * map is not a map). */
static inline const msgpack_object *weir__mp_member(const msgpack_object *map, const char *key)
{
    if (!map || map->type != MSGPACK_OBJECT_MAP)
        return NULL;
    for (uint32_t i = 0; i < map->via.map.size; i++) {
        if (weir__mp_str_is(&map->via.map.ptr[i].key, key))
            return &map->via.map.ptr[i].val;
    }
    return NULL;
}

/* o is a non-negative integer (via.u64). */
static inline bool weir__mp_is_uint(const msgpack_object *o)
{
    return o && o->type == MSGPACK_OBJECT_POSITIVE_INTEGER;
}

/* o is an integer of either sign (via.i64 for those that fit). */
static inline bool weir__mp_is_int(const msgpack_object *o)
{
    return o && (o->type == MSGPACK_OBJECT_POSITIVE_INTEGER ||
                 o->type == MSGPACK_OBJECT_NEGATIVE_INTEGER);
}

#endif
