/* fn_string.c — the string functions (fn.h), as Flink's runtime computes
 * them (flink-table-runtime's BinaryStringDataUtil and SqlFunctionUtils,
 * Calcite's SqlFunctions for INITCAP, commons-lang for SPLIT_INDEX).
 * Characters are UTF-8 code points, as Flink's BinaryStringData counts
 * them (weir has no UTF-16: LPAD and RPAD, which Flink computes on Java
 * chars, count code points too, which differs for characters outside the
 * Basic Multilingual Plane only).
 *
 * A result's capacity is the most bytes it can take: exact where the
 * arguments bound it (SUBSTRING: its string's; CONCAT: the sum; LPAD with
 * a literal length: 4 bytes a character), else the schema's string
 * capacity, and a longer result fails the row with the function's name
 * (never cut).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <unicase.h>

#include "fn.h"
#include "weir/error.h"

/* ---- type rules ------------------------------------------------------------------------------ */

static uint32_t cap_of(const weir__enode *x)
{
    return weir__type_is_string(x->type.id) ? x->type.capacity : 1;
}

/* A result of the capacity of argument 0 (SUBSTRING, TRIM, REVERSE ...),
 * nullable as Calcite's ARG0_VARCHAR_FORCE_NULLABLE or ARG0 says. */
static bool t_arg0(weir__fnbind *b)
{
    b->n->type = weir__fn_varchar(cap_of(b->n->args[0]), weir__fn_args_not_null(b));
    return true;
}

static bool t_int(weir__fnbind *b)
{
    b->n->type = (weir_type){.id = WEIR_TYPE_INT, .not_null = weir__fn_args_not_null(b)};
    return true;
}

/* ---- CONCAT, CONCAT_WS -------------------------------------------------------------------------- */

static bool t_concat(weir__fnbind *b)
{
    uint64_t cap = 0;
    for (int i = 0; i < b->n->nargs; i++)
        cap += cap_of(b->n->args[i]);
    if (cap > WEIR_STRING_MAX_CAPACITY) {
        weir__bind_fail(b->p, b->a->start, "%s result longer than %u", b->f->name,
                        WEIR_STRING_MAX_CAPACITY);
        return false;
    }
    b->n->type = weir__fn_varchar(cap, weir__fn_args_not_null(b));
    return true;
}

static int e_concat(const weir__fncall *c, weir__val *o, const char **why)
{
    (void)why;
    uint32_t len = 0;
    for (int i = 0; i < c->n->nargs; i++) {
        memmove(c->buf + len, c->args[i].s, c->args[i].len);
        len += c->args[i].len;
    }
    o->s = c->buf;
    o->len = len;
    return 0;
}

/* CONCAT_WS(sep, s, ...): NULL when the separator is; NULL strings left
 * out (not their separators' places); no strings: ''. */
static bool t_concat_ws(weir__fnbind *b)
{
    uint64_t cap = 0, sep = cap_of(b->n->args[0]);
    for (int i = 1; i < b->n->nargs; i++)
        cap += cap_of(b->n->args[i]) + (i > 1 ? sep : 0);
    if (cap > WEIR_STRING_MAX_CAPACITY) {
        weir__bind_fail(b->p, b->a->start, "CONCAT_WS result longer than %u",
                        WEIR_STRING_MAX_CAPACITY);
        return false;
    }
    b->n->type = weir__fn_varchar(cap, b->n->args[0]->type.not_null);
    return true;
}

static int e_concat_ws(const weir__fncall *c, weir__val *o, const char **why)
{
    (void)why;
    const weir__val *sep = &c->args[0];
    if (sep->null) {
        o->null = true;
        return 0;
    }
    uint32_t len = 0;
    bool first = true;
    for (int i = 1; i < c->n->nargs; i++) {
        const weir__val *x = &c->args[i];
        if (x->null)
            continue;
        if (!first) {
            memmove(c->buf + len, sep->s, sep->len);
            len += sep->len;
        }
        first = false;
        memmove(c->buf + len, x->s, x->len);
        len += x->len;
    }
    o->s = c->buf;
    o->len = len;
    return 0;
}

/* ---- SUBSTRING, LEFT, RIGHT ------------------------------------------------------------------- */

/* Java's (int) of a long. */
static int32_t jint(int64_t v) { return (int32_t)(uint32_t)(uint64_t)v; }

/* BinaryStringDataUtil.substringSQL: characters from pos (1-based; a
 * negative pos counts from the end; 0 is 1), len of them; NULL for a
 * negative len. */
static void substring_sql(const weir__val *s, int64_t pos, int64_t len, weir__val *o)
{
    if (len < 0) {
        o->null = true;
        return;
    }
    o->s = s->s;
    o->len = 0;
    if (s->len == 0)
        return;
    int64_t n = weir__utf8_count(s->s, s->len), start;
    if (pos > 0) {
        start = pos - 1;
        if (start >= n)
            return;
    } else if (pos < 0) {
        start = n + pos;
        if (start < 0)
            return;
    } else {
        start = 0;
    }
    int64_t end = n - start < len ? n : start + len;
    uint32_t a = weir__utf8_offset(s->s, s->len, start);
    uint32_t e = a + weir__utf8_offset(s->s + a, s->len - a, end - start);
    o->s = s->s + a;
    o->len = e - a;
}

static int e_substring(const weir__fncall *c, weir__val *o, const char **why)
{
    (void)why;
    substring_sql(&c->args[0], jint(c->args[1].i),
                  c->n->nargs > 2 ? jint(c->args[2].i) : INT32_MAX, o);
    return 0;
}

/* LEFT(s, n): '' for n <= 0; RIGHT(s, n): '' for n <= 0, s when n is at
 * least its length. */
static int e_left_right(const weir__fncall *c, weir__val *o, const char **why)
{
    (void)why;
    int32_t n = jint(c->args[1].i);
    const weir__val *s = &c->args[0];
    o->s = s->s;
    if (n <= 0)
        return 0;
    if (c->n->aux[0] == 0) {
        substring_sql(s, 1, n, o);
    } else if ((uint32_t)n >= weir__utf8_count(s->s, s->len)) {
        *o = *s;
    } else {
        substring_sql(s, -(int64_t)n, INT32_MAX, o);
    }
    return 0;
}

/* ---- TRIM, LTRIM, RTRIM ------------------------------------------------------------------------ */

/* Whether the character at s (l bytes) is one of `chars` (TRIM's set). */
static bool in_set(const char *s, uint32_t l, const weir__val *chars)
{
    for (uint32_t i = 0; i < chars->len;) {
        uint32_t k = weir__utf8_len((unsigned char)chars->s[i]);
        if (k == l && i + k <= chars->len && memcmp(chars->s + i, s, l) == 0)
            return true;
        i += k;
    }
    return false;
}

/* The string without the characters of `chars` at its start (left) and
 * end (right); a set ' ' trims spaces (0x20) only, as Flink's. */
static void trim(const weir__val *s, const weir__val *chars, bool left, bool right, weir__val *o)
{
    uint32_t a = 0, e = s->len;
    if (left) {
        while (a < e) {
            uint32_t l = weir__utf8_len((unsigned char)s->s[a]);
            if (a + l > e || !in_set(s->s + a, l, chars))
                break;
            a += l;
        }
    }
    if (right) {
        while (e > a) {
            uint32_t k = e - 1;
            while (k > a && ((unsigned char)s->s[k] & 0xC0) == 0x80)
                k--;
            if (!in_set(s->s + k, e - k, chars))
                break;
            e = k;
        }
    }
    o->s = s->s + a;
    o->len = e - a;
}

static bool t_trim(weir__fnbind *b)
{
    int side = 0;
    if (b->nsym > 0)
        side = strcmp(b->sym[0], "LEADING") == 0 ? 1 : strcmp(b->sym[0], "TRAILING") == 0 ? 2 : 0;
    b->n->aux[0] = side;
    b->n->type = weir__fn_varchar(cap_of(b->n->args[1]), weir__fn_args_not_null(b));
    return true;
}

static int e_trim(const weir__fncall *c, weir__val *o, const char **why)
{
    (void)why;
    int side = (int)c->n->aux[0];
    trim(&c->args[1], &c->args[0], side != 2, side != 1, o);
    return 0;
}

/* LTRIM(s[, chars]), RTRIM(s[, chars]): which 1 left, 2 right. */
static int e_ltrim_rtrim(const weir__fncall *c, weir__val *o, const char **why)
{
    (void)why;
    static const weir__val space = {.s = " ", .len = 1};
    trim(&c->args[0], c->n->nargs > 1 ? &c->args[1] : &space, c->n->aux[0] == 1,
         c->n->aux[0] == 2, o);
    return 0;
}

/* ---- REPLACE, REPEAT, LPAD, RPAD, REVERSE, INITCAP ------------------------------------------- */

/* A capacity bounded by `bytes` when known (>= 0), else the schema's
 * string capacity (the result checked when made). */
static weir_type bounded(weir__fnbind *b, int64_t bytes, bool not_null)
{
    if (bytes < 0)
        return weir__fn_varchar(weir__bind_string_capacity(b->p), not_null);
    return weir__fn_varchar((uint64_t)bytes, not_null);
}

static bool t_replace(weir__fnbind *b)
{
    const weir__val *from, *to;
    uint64_t cap = cap_of(b->n->args[0]);
    int64_t bytes = -1;
    if (weir__fn_literal(b, 1, &from) && weir__fn_literal(b, 2, &to)) {
        if (from->len == 0)
            bytes = (int64_t)(cap + (cap + 1) * to->len); /* '' matches between characters */
        else if (to->len <= from->len)
            bytes = (int64_t)cap;
        else
            bytes = (int64_t)(cap / from->len * to->len + cap % from->len);
    }
    if (bytes > WEIR_STRING_MAX_CAPACITY)
        bytes = -1;
    b->n->type = bounded(b, bytes, weir__fn_args_not_null(b));
    return true;
}

/* Java's String.replace: every match of `from` from the left, none
 * overlapping; an empty `from` matches before every character and at the
 * end. */
static int e_replace(const weir__fncall *c, weir__val *o, const char **why)
{
    const weir__val *s = &c->args[0], *from = &c->args[1], *to = &c->args[2];
    uint32_t cap = c->n->type.capacity, len = 0, i = 0;
#define PUT(p, k)                                                                   \
    do {                                                                            \
        if (len + (k) > cap)                                                        \
            return weir__fn_too_long(c, why);                                       \
        memmove(c->buf + len, (p), (k));                                            \
        len += (k);                                                                 \
    } while (0)
    if (from->len == 0) {
        while (i < s->len) {
            uint32_t l = weir__utf8_len((unsigned char)s->s[i]);
            if (i + l > s->len)
                l = s->len - i;
            PUT(to->s, to->len);
            PUT(s->s + i, l);
            i += l;
        }
        PUT(to->s, to->len);
    } else {
        while (i < s->len) {
            if (i + from->len <= s->len && memcmp(s->s + i, from->s, from->len) == 0) {
                PUT(to->s, to->len);
                i += from->len;
            } else {
                PUT(s->s + i, 1);
                i++;
            }
        }
    }
#undef PUT
    o->s = c->buf;
    o->len = len;
    return 0;
}

static bool t_repeat(weir__fnbind *b)
{
    const weir__val *n;
    int64_t bytes = -1;
    if (weir__fn_literal(b, 1, &n))
        bytes = n->i <= 0 ? 0 : (int64_t)cap_of(b->n->args[0]) * n->i;
    if (bytes > WEIR_STRING_MAX_CAPACITY)
        bytes = -1;
    b->n->type = bounded(b, bytes, weir__fn_args_not_null(b));
    return true;
}

static int e_repeat(const weir__fncall *c, weir__val *o, const char **why)
{
    const weir__val *s = &c->args[0];
    int32_t n = jint(c->args[1].i);
    o->s = c->buf;
    if (n <= 0 || s->len == 0)
        return 0;
    if ((uint64_t)s->len * (uint64_t)n > c->n->type.capacity)
        return weir__fn_too_long(c, why);
    for (int32_t k = 0; k < n; k++)
        memmove(c->buf + (size_t)k * s->len, s->s, s->len);
    o->len = s->len * (uint32_t)n;
    return 0;
}

static bool t_pad(weir__fnbind *b)
{
    const weir__val *n;
    int64_t bytes = -1;
    if (weir__fn_literal(b, 1, &n))
        bytes = n->i <= 0 ? 0 : 4 * n->i;
    if (bytes > WEIR_STRING_MAX_CAPACITY)
        bytes = -1;
    b->n->type = bounded(b, bytes, false);
    return true;
}

/* LPAD(s, len, pad) / RPAD: s padded with pad (repeated, the last copy
 * cut) to len characters, or cut to len; NULL for a negative len or an
 * empty pad. */
static int e_pad(const weir__fncall *c, weir__val *o, const char **why)
{
    const weir__val *s = &c->args[0], *pad = &c->args[2];
    int32_t n = jint(c->args[1].i);
    if (n < 0 || pad->len == 0) {
        o->null = true;
        return 0;
    }
    o->s = c->buf;
    uint32_t cap = c->n->type.capacity, len = 0;
    uint32_t sn = weir__utf8_count(s->s, s->len);
    uint32_t keep = sn < (uint32_t)n ? sn : (uint32_t)n; /* characters of s */
    uint32_t fill = (uint32_t)n - keep;                    /* characters of padding */
    uint32_t sbytes = weir__utf8_offset(s->s, s->len, keep);
    bool left = c->n->aux[0] == 0;
    if (!left) {
        if (sbytes > cap)
            return weir__fn_too_long(c, why);
        memmove(c->buf, s->s, sbytes);
        len = sbytes;
    }
    for (uint32_t k = 0, i = 0; k < fill; k++) {
        uint32_t l = weir__utf8_len((unsigned char)pad->s[i]);
        if (i + l > pad->len)
            l = pad->len - i;
        if (len + l > cap)
            return weir__fn_too_long(c, why);
        memcpy(c->buf + len, pad->s + i, l);
        len += l;
        i += l;
        if (i >= pad->len)
            i = 0;
    }
    if (left) {
        if (len + sbytes > cap)
            return weir__fn_too_long(c, why);
        memmove(c->buf + len, s->s, sbytes);
        len += sbytes;
    }
    o->len = len;
    return 0;
}

/* REVERSE: the characters in reverse order (each one's bytes kept). */
static int e_reverse(const weir__fncall *c, weir__val *o, const char **why)
{
    (void)why;
    const weir__val *s = &c->args[0];
    for (uint32_t i = 0; i < s->len;) {
        uint32_t l = weir__utf8_len((unsigned char)s->s[i]);
        if (i + l > s->len)
            l = s->len - i;
        memcpy(c->buf + s->len - i - l, s->s + i, l);
        i += l;
    }
    o->s = c->buf;
    o->len = s->len;
    return 0;
}

/* Calcite's INITCAP: words of ASCII letters and digits, each one's first
 * letter upper case and the rest lower; anything else (a non-ASCII
 * character too) separates words. */
static int e_initcap(const weir__fncall *c, weir__val *o, const char **why)
{
    (void)why;
    const weir__val *s = &c->args[0];
    bool start = true;
    for (uint32_t i = 0; i < s->len; i++) {
        unsigned char ch = (unsigned char)s->s[i];
        bool digit = ch >= '0' && ch <= '9', upper = ch >= 'A' && ch <= 'Z',
             lower = ch >= 'a' && ch <= 'z';
        if (start) {
            if (digit || upper || lower)
                start = false;
            if (lower)
                ch = (unsigned char)(ch - 32);
        } else if (upper) {
            ch = (unsigned char)(ch + 32);
        } else if (!digit && !lower) {
            start = true;
        }
        c->buf[i] = (char)ch;
    }
    o->s = c->buf;
    o->len = s->len;
    return 0;
}

/* ---- UPPER, LOWER, CHAR_LENGTH ------------------------------------------------------------------ */

static bool t_case(weir__fnbind *b)
{
    /* The result keeps the argument's capacity; the room is Unicode's
     * largest case mapping, 3 bytes out for each byte in (U+0390 to
     * U+0399 U+0308 U+0301), and a result longer than the capacity fails
     * the row. */
    uint32_t cap = cap_of(b->n->args[0]);
    b->n->type = weir__fn_varchar(cap, b->n->args[0]->type.not_null);
    b->n->room = 3 * cap + 1;
    return true;
}

/* UPPER and LOWER are Unicode's full case mappings in no language's
 * special rules, as Java's String.toUpperCase(Locale.ROOT) that Flink calls
 * ('üß' is 'ÜSS', a final sigma lowers to 'ς'), by libunistring into the
 * room (it never allocates); a byte that is not UTF-8 becomes U+FFFD, as
 * Java's decoding makes it. */
static int e_case(const weir__fncall *c, weir__val *o, const char **why)
{
    const weir__val *a = &c->args[0];
    uint8_t *buf = (uint8_t *)c->buf;
    bool upper = c->n->aux[0] == 0;
    /* ASCII, the usual case (codes, names, channels), maps byte by byte:
     * Unicode's mapping of the ASCII letters is the ASCII one, with no
     * special rule, and it keeps the length. */
    uint32_t i = 0;
    while (i < a->len && (unsigned char)a->s[i] < 0x80)
        i++;
    if (i == a->len && a->len <= c->n->room) {
        for (i = 0; i < a->len; i++) {
            unsigned char ch = (unsigned char)a->s[i];
            buf[i] = upper ? (ch >= 'a' && ch <= 'z' ? ch - 32 : ch)
                           : (ch >= 'A' && ch <= 'Z' ? ch + 32 : ch);
        }
        o->s = (const char *)buf;
        o->len = a->len;
        return 0;
    }
    size_t room = c->n->room, len = room;
    uint8_t *r = upper
                     ? u8_toupper((const uint8_t *)a->s, a->len, NULL, NULL, buf, &len)
                     : u8_tolower((const uint8_t *)a->s, a->len, NULL, NULL, buf, &len);
    if (r != buf) {
        free(r); /* it allocated: the room was too small, which 3x rules out */
        *why = "internal: a case mapping longer than its room";
        return WEIR_EINTERNAL;
    }
    if (len > c->n->type.capacity) {
        *why = c->n->aux[0] == 0 ? "UPPER's result is longer than its argument's capacity"
                                 : "LOWER's result is longer than its argument's capacity";
        return WEIR_ERANGE;
    }
    o->s = (const char *)buf;
    o->len = (uint32_t)len;
    return 0;
}

static int e_char_length(const weir__fncall *c, weir__val *o, const char **why)
{
    (void)why;
    o->i = weir__utf8_count(c->args[0].s, c->args[0].len);
    return 0;
}

/* ---- POSITION, LOCATE, ASCII, CHR --------------------------------------------------------------- */

/* BinaryStringData.indexOf(seek, from) + 1, as Flink's position(): the
 * character where seek starts at or after character from - 1 (1-based; 0
 * when not found); an empty seek is at 1. */
static int e_position(const weir__fncall *c, weir__val *o, const char **why)
{
    (void)why;
    const weir__val *seek = &c->args[0], *s = &c->args[1];
    int64_t from = c->n->nargs > 2 ? (int64_t)jint(c->args[2].i) - 1 : 0;
    if (seek->len == 0) {
        o->i = 1;
        return 0;
    }
    uint32_t b = 0;
    int64_t ci = 0;
    while (b < s->len && ci < from) {
        b += weir__utf8_len((unsigned char)s->s[b]);
        ci++;
    }
    o->i = 0;
    do {
        if (b + seek->len > s->len)
            return 0;
        if (memcmp(s->s + b, seek->s, seek->len) == 0) {
            o->i = ci + 1;
            return 0;
        }
        b += weir__utf8_len((unsigned char)s->s[b]);
        ci++;
    } while (b < s->len);
    return 0;
}

/* ASCII: the first byte's value, as Java's (int) of a byte (signed: a
 * non-ASCII first character gives a negative number, as in Flink); 0 for
 * ''. */
static int e_ascii(const weir__fncall *c, weir__val *o, const char **why)
{
    (void)why;
    o->i = c->args[0].len ? (int8_t)c->args[0].s[0] : 0;
    return 0;
}

static bool t_chr(weir__fnbind *b)
{
    b->n->type = weir__fn_varchar(2, false);
    return true;
}

/* CHR(n): '' for a negative n, else the character n & 0xFF (Latin-1;
 * U+0000 for 0). */
static int e_chr(const weir__fncall *c, weir__val *o, const char **why)
{
    (void)why;
    o->s = c->buf;
    int64_t n = c->args[0].i;
    o->len = n < 0 ? 0 : weir__utf8_encode((uint32_t)(n & 0xFF), c->buf);
    return 0;
}

/* ---- SPLIT_INDEX ----------------------------------------------------------------------------------- */

/* Java's Character.isWhitespace for the code points a UTF-8 string holds. */
static bool java_whitespace(uint32_t cp)
{
    if ((cp >= 0x09 && cp <= 0x0D) || (cp >= 0x1C && cp <= 0x20))
        return true;
    if (cp == 0x1680 || (cp >= 0x2000 && cp <= 0x2006) || (cp >= 0x2008 && cp <= 0x200A) ||
        cp == 0x2028 || cp == 0x2029 || cp == 0x205F || cp == 0x3000)
        return true;
    return false;
}

/* commons-lang's splitByWholeSeparatorPreserveAllTokens(str, sep)[index]
 * (an empty sep splits at each whitespace character), or
 * splitPreserveAllTokens(str, (char) c)[index] for a separator given as a
 * character code (1..255, else NULL): NULL for an index out of range or an
 * empty string. */
static int e_split_index(const weir__fncall *c, weir__val *o, const char **why)
{
    (void)why;
    const weir__val *s = &c->args[0];
    int32_t index = jint(c->args[2].i);
    char sepbuf[4];
    weir__val sep;
    bool by_char = weir__type_is_integer(c->n->args[1]->type.id);
    if (by_char) {
        int64_t ch = c->args[1].i;
        if (ch > 255 || ch < 1 || index < 0) {
            o->null = true;
            return 0;
        }
        sep.s = sepbuf;
        sep.len = weir__utf8_encode((uint32_t)ch, sepbuf);
    } else {
        sep = c->args[1];
    }
    o->null = true;
    if (index < 0 || s->len == 0)
        return 0;
    int32_t k = 0;
    uint32_t beg = 0;
    if (by_char || sep.len == 0) {
        /* splitWorker, preserving all tokens: a token ends at every
         * separator (a whitespace character for ''); the last one is
         * added when non-empty or after a separator */
        bool match = false, last = false;
        uint32_t i = 0;
        while (i < s->len) {
            uint32_t used;
            bool is_sep;
            if (by_char) {
                used = weir__utf8_len((unsigned char)s->s[i]);
                is_sep = i + sep.len <= s->len && memcmp(s->s + i, sep.s, sep.len) == 0;
                if (is_sep)
                    used = sep.len;
            } else {
                is_sep = java_whitespace(weir__utf8_decode(s->s + i, s->len - i, &used));
            }
            if (is_sep) {
                if (k++ == index) {
                    o->null = false;
                    o->s = s->s + beg;
                    o->len = i - beg;
                    return 0;
                }
                match = false;
                last = true;
                i += used;
                beg = i;
                continue;
            }
            last = false;
            match = true;
            i += used;
        }
        if ((match || last) && k == index) {
            o->null = false;
            o->s = s->s + beg;
            o->len = s->len - beg;
        }
        return 0;
    }
    /* splitByWholeSeparatorWorker, preserving all tokens */
    uint32_t end = 0;
    while (end < s->len) {
        const char *f = memmem(s->s + beg, s->len - beg, sep.s, sep.len);
        if (f) {
            end = (uint32_t)(f - s->s);
            if (k++ == index) {
                o->null = false;
                o->s = s->s + beg;
                o->len = end - beg;
                return 0;
            }
            beg = end + sep.len;
        } else {
            if (k == index) {
                o->null = false;
                o->s = s->s + beg;
                o->len = s->len - beg;
            }
            return 0;
        }
    }
    return 0;
}

/* ---- MD5, SHA1, SHA2 ---------------------------------------------------------------------------------- */

/* fn_hash.c: the digest of the bytes into out (its size), for algorithm
 * bits 0 MD5, 1 SHA-1, 224, 256, 384, 512; its length. */
size_t weir__fn_digest(int algorithm, const void *data, size_t len, unsigned char *out);

static bool t_hash(weir__fnbind *b)
{
    int alg = (int)b->f->which;
    uint32_t hex = alg == 0 ? 32 : alg == 1 ? 40 : (uint32_t)alg / 4;
    if (alg < 0) {
        /* SHA2(s, bits): a literal length checked here */
        const weir__val *v;
        if (weir__fn_literal(b, 1, &v) && v->i != 224 && v->i != 256 && v->i != 384 &&
            v->i != 512 && v->i != 1) {
            weir__bind_fail(b->p, b->a->start, "SHA2: unsupported hash length %" PRId64
                            " (224, 256, 384 or 512)", v->i);
            return false;
        }
        b->n->type = weir__fn_varchar(128, false);
        return true;
    }
    b->n->type = (weir_type){.id = WEIR_TYPE_CHAR, .capacity = hex,
                             .not_null = weir__fn_args_not_null(b)};
    return true;
}

static int e_hash(const weir__fncall *c, weir__val *o, const char **why)
{
    int alg = (int)c->n->aux[0];
    if (alg < 0) {
        int64_t bits = c->args[1].i;
        if (bits != 224 && bits != 256 && bits != 384 && bits != 512 && bits != 1) {
            *why = "SHA2's hash length is not 224, 256, 384 or 512";
            return WEIR_EINVAL;
        }
        alg = (int)bits;
    }
    unsigned char d[64];
    size_t n = weir__fn_digest(alg, c->args[0].s, c->args[0].len, d);
    static const char hexd[] = "0123456789abcdef";
    for (size_t i = 0; i < n; i++) {
        c->buf[2 * i] = hexd[d[i] >> 4];
        c->buf[2 * i + 1] = hexd[d[i] & 15];
    }
    o->s = c->buf;
    o->len = (uint32_t)(2 * n);
    return 0;
}

/* ---- TO_BASE64, FROM_BASE64, UUID ---------------------------------------------------------------------- */

static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

static bool t_to_base64(weir__fnbind *b)
{
    uint64_t cap = cap_of(b->n->args[0]);
    b->n->type = weir__fn_varchar((cap + 2) / 3 * 4, weir__fn_args_not_null(b));
    if ((cap + 2) / 3 * 4 > WEIR_STRING_MAX_CAPACITY) {
        weir__bind_fail(b->p, b->a->start, "TO_BASE64 result longer than %u",
                        WEIR_STRING_MAX_CAPACITY);
        return false;
    }
    return true;
}

static int e_to_base64(const weir__fncall *c, weir__val *o, const char **why)
{
    (void)why;
    const unsigned char *s = (const unsigned char *)c->args[0].s;
    uint32_t n = c->args[0].len, len = 0;
    for (uint32_t i = 0; i < n; i += 3) {
        uint32_t v = (uint32_t)s[i] << 16 | (i + 1 < n ? (uint32_t)s[i + 1] << 8 : 0) |
                     (i + 2 < n ? s[i + 2] : 0);
        c->buf[len++] = b64[v >> 18];
        c->buf[len++] = b64[(v >> 12) & 63];
        c->buf[len++] = i + 1 < n ? b64[(v >> 6) & 63] : '=';
        c->buf[len++] = i + 2 < n ? b64[v & 63] : '=';
    }
    o->s = c->buf;
    o->len = len;
    return 0;
}

/* Java's Base64.getDecoder(): the basic alphabet, padding optional at the
 * end but never inside, nothing else (a line break is an error, as
 * there): a bad input fails the row, as Java's exception fails Flink's
 * job. */
static int e_from_base64(const weir__fncall *c, weir__val *o, const char **why)
{
    const unsigned char *s = (const unsigned char *)c->args[0].s;
    uint32_t n = c->args[0].len, len = 0, bits = 0, acc = 0, pad = 0;
    for (uint32_t i = 0; i < n; i++) {
        unsigned char ch = s[i];
        int v = ch >= 'A' && ch <= 'Z'   ? ch - 'A'
                : ch >= 'a' && ch <= 'z' ? ch - 'a' + 26
                : ch >= '0' && ch <= '9' ? ch - '0' + 52
                : ch == '+'              ? 62
                : ch == '/'              ? 63
                                         : -1;
        if (ch == '=') {
            pad++;
            continue;
        }
        if (v < 0 || pad) {
            *why = "FROM_BASE64 of a string that is not Base64";
            return WEIR_EFORMAT;
        }
        acc = acc << 6 | (uint32_t)v;
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            c->buf[len++] = (char)(acc >> bits);
            acc &= (1u << bits) - 1;
        }
    }
    /* a last group of 1 character, or padding that does not fit */
    uint32_t rest = (n - pad) % 4;
    if (rest == 1 || (pad && (pad > 2 || (rest + pad) % 4))) {
        *why = "FROM_BASE64 of a string that is not Base64";
        return WEIR_EFORMAT;
    }
    o->s = c->buf;
    o->len = len;
    return 0;
}

static bool t_uuid(weir__fnbind *b)
{
    b->n->type = (weir_type){.id = WEIR_TYPE_CHAR, .capacity = 36, .not_null = true};
    return true;
}

/* UUID(): a random (version 4) UUID, as Java's UUID.randomUUID(). */
static int e_uuid(const weir__fncall *c, weir__val *o, const char **why)
{
    (void)why;
    unsigned char r[16];
    weir__fn_random_bytes(r, sizeof r);
    r[6] = (unsigned char)((r[6] & 0x0F) | 0x40);
    r[8] = (unsigned char)((r[8] & 0x3F) | 0x80);
    static const char hexd[] = "0123456789abcdef";
    uint32_t k = 0;
    for (int i = 0; i < 16; i++) {
        if (i == 4 || i == 6 || i == 8 || i == 10)
            c->buf[k++] = '-';
        c->buf[k++] = hexd[r[i] >> 4];
        c->buf[k++] = hexd[r[i] & 15];
    }
    o->s = c->buf;
    o->len = k;
    return 0;
}

/* ---- the table --------------------------------------------------------------------------------------- */

#define CALL WEIR_AST_FORM_CALL

const weir__builtin weir__fn_string[] = {
    {"CONCAT", 1, -1, CALL, 0, "S*", t_concat, e_concat, 0},
    {"CONCAT_WS", 1, -1, CALL, FN_NULLS, "S*", t_concat_ws, e_concat_ws, 0},
    {"SUBSTRING", 2, 3, WEIR_AST_FORM_SUBSTRING, FN_CALL_TOO | FN_FORCE_NULL, "C,I;C,I,I",
     t_arg0, e_substring, 0},
    {"SUBSTR", 2, 3, CALL, FN_FORCE_NULL, "C,I;C,I,I", t_arg0, e_substring, 0},
    {"LEFT", 2, 2, CALL, FN_FORCE_NULL, "S,I", t_arg0, e_left_right, 0},
    {"RIGHT", 2, 2, CALL, FN_FORCE_NULL, "S,I", t_arg0, e_left_right, 1},
    {"TRIM", 2, 2, WEIR_AST_FORM_TRIM, 0, "S,S", t_trim, e_trim, 0},
    {"LTRIM", 1, 2, CALL, 0, "S;S,S", t_arg0, e_ltrim_rtrim, 1},
    {"RTRIM", 1, 2, CALL, 0, "S;S,S", t_arg0, e_ltrim_rtrim, 2},
    {"REPLACE", 3, 3, CALL, 0, "S,S,S", t_replace, e_replace, 0},
    {"REPEAT", 2, 2, CALL, 0, "S,I", t_repeat, e_repeat, 0},
    {"LPAD", 3, 3, CALL, 0, "S,I,S", t_pad, e_pad, 0},
    {"RPAD", 3, 3, CALL, 0, "S,I,S", t_pad, e_pad, 1},
    {"REVERSE", 1, 1, CALL, FN_FORCE_NULL, "S", t_arg0, e_reverse, 0},
    {"INITCAP", 1, 1, CALL, 0, "C", t_arg0, e_initcap, 0},
    {"UPPER", 1, 1, CALL, 0, "C", t_case, e_case, 0},
    {"LOWER", 1, 1, CALL, 0, "C", t_case, e_case, 1},
    {"CHAR_LENGTH", 1, 1, CALL, 0, "C", t_int, e_char_length, 0},
    {"CHARACTER_LENGTH", 1, 1, CALL, 0, "C", t_int, e_char_length, 0},
    {"POSITION", 2, 3, WEIR_AST_FORM_POSITION, FN_CALL_TOO, "S,S;S,S,I", t_int, e_position, 0},
    {"LOCATE", 2, 3, CALL, 0, "S,S;S,S,I", t_int, e_position, 0},
    {"ASCII", 1, 1, CALL, 0, "C", t_int, e_ascii, 0},
    {"CHR", 1, 1, CALL, 0, "I", t_chr, e_chr, 0},
    {"SPLIT_INDEX", 3, 3, CALL, FN_FORCE_NULL, "S,I,I;S,S,I", t_arg0, e_split_index, 0},
    {"MD5", 1, 1, CALL, 0, "S", t_hash, e_hash, 0},
    {"SHA1", 1, 1, CALL, 0, "S", t_hash, e_hash, 1},
    {"SHA224", 1, 1, CALL, 0, "S", t_hash, e_hash, 224},
    {"SHA256", 1, 1, CALL, 0, "S", t_hash, e_hash, 256},
    {"SHA384", 1, 1, CALL, 0, "S", t_hash, e_hash, 384},
    {"SHA512", 1, 1, CALL, 0, "S", t_hash, e_hash, 512},
    {"SHA2", 2, 2, CALL, 0, "S,I", t_hash, e_hash, -1},
    {"TO_BASE64", 1, 1, CALL, 0, "S", t_to_base64, e_to_base64, 0},
    {"FROM_BASE64", 1, 1, CALL, 0, "S", t_arg0, e_from_base64, 0},
    {"UUID", 0, 0, CALL, 0, NULL, t_uuid, e_uuid, 0},
    {NULL, 0, 0, CALL, 0, NULL, NULL, NULL, 0},
};
