/* fn_regex.c — pattern matching (fn.h): REGEXP_EXTRACT, REGEXP_REPLACE,
 * REGEXP, SIMILAR TO (regular expressions, by PCRE2) and LIKE (its own
 * matcher: % and _ need no regular expression).
 *
 * Flink's patterns are Java's java.util.regex; PCRE2 (Debian's
 * libpcre2-8) reads the same Perl-style syntax — classes, quantifiers,
 * lazy and possessive ones, groups, named groups (?<n>...), look-around,
 * \Q...\E, inline flags (?i) — where POSIX ERE would not (no lazy
 * quantifiers, no \d, no look-around). Where they differ (Java's
 * \p{Alpha}-style classes and class intersections [a-z&&[^b]], which PCRE2
 * refuses; (?i) folding non-ASCII letters, which Java does only with
 * (?u)), a pattern follows PCRE2 (docs/SQL.md). Patterns are UTF-8 (a
 * '.' is a character, not a byte); '.' and '$' know CR, LF, CRLF and the
 * Unicode line ends, nearly Java's set (PCRE2 adds VT and FF).
 *
 * A literal pattern is compiled once, when the expression is bound, and
 * JIT-compiled; a pattern that is an expression is compiled when a row
 * first needs it and kept in a small cache per thread (8 patterns, the
 * oldest replaced), so that a steady stream of rows compiles nothing and
 * allocates nothing. Matching uses a match block per thread, made once.
 * An invalid pattern makes REGEXP_EXTRACT and REGEXP_REPLACE NULL and
 * REGEXP FALSE, row after row, as Flink's (which catches the exception
 * and logs it); in SIMILAR TO it fails the query, as there.
 */
#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fn.h"
#include "weir/error.h"

/* ---- compiling, and the per-thread cache ------------------------------------------------- */

/* A compiled pattern: code NULL for one that did not compile (its message
 * in why). */
typedef struct re_pat {
    pcre2_code *code;
    /* The same pattern for a subject that is not valid UTF-8 (its bad
     * bytes then match nothing but themselves, never a '.'), interpreted:
     * PCRE2 10.42's JIT mismatches \S and others in this mode. NULL where
     * `code` is compiled so itself (a pattern cached per row). */
    pcre2_code *code_invalid;
    uint32_t groups; /* capturing groups */
    char why[160];
} re_pat;

static void re_pat_free(void *p)
{
    re_pat *r = p;
    if (r) {
        pcre2_code_free(r->code);
        pcre2_code_free(r->code_invalid);
    }
    free(r);
}

/* Compiles `len` bytes of pattern into r (anchored at both ends for a
 * whole-string match). With `jit` (plan time), JIT-compiled for valid
 * UTF-8 subjects and compiled again for invalid ones; else one code for
 * both. */
static void re_compile(re_pat *r, const char *pat, size_t len, bool whole, bool jit)
{
    int err;
    PCRE2_SIZE off;
    pcre2_compile_context *cc = pcre2_compile_context_create(NULL);
    if (cc)
        pcre2_set_newline(cc, PCRE2_NEWLINE_ANY);
    uint32_t opts = PCRE2_UTF;
    if (whole)
        opts |= PCRE2_ANCHORED | PCRE2_ENDANCHORED;
    r->code = pcre2_compile((PCRE2_SPTR)pat, len, opts | (jit ? 0 : PCRE2_MATCH_INVALID_UTF),
                            &err, &off, cc);
    r->code_invalid = NULL;
    r->groups = 0;
    r->why[0] = 0;
    if (!r->code) {
        pcre2_compile_context_free(cc);
        char m[120];
        pcre2_get_error_message(err, (PCRE2_UCHAR *)m, sizeof m);
        snprintf(r->why, sizeof r->why, "%s at %zu", m, (size_t)off + 1);
        return;
    }
    pcre2_pattern_info(r->code, PCRE2_INFO_CAPTURECOUNT, &r->groups);
    if (jit) {
        pcre2_jit_compile(r->code, PCRE2_JIT_COMPLETE); /* if it cannot: interpreted */
        r->code_invalid = pcre2_compile((PCRE2_SPTR)pat, len, opts | PCRE2_MATCH_INVALID_UTF,
                                        &err, &off, cc);
    }
    pcre2_compile_context_free(cc);
}

#define RE_CACHE 8

typedef struct re_tls {
    pcre2_match_data *md;
    uint32_t md_pairs; // cppcheck-suppress unusedStructMember ; read and written in re_match_data
    struct {
        char *key; /* kind byte, then the pattern */
        size_t len;
        re_pat pat;
    } cache[RE_CACHE];
    unsigned next;
} re_tls;

static _Thread_local re_tls *tls;
static pthread_key_t tls_key;
static pthread_once_t tls_once = PTHREAD_ONCE_INIT;

static void tls_free(void *p)
{
    re_tls *t = p;
    if (!t)
        return;
    pcre2_match_data_free(t->md);
    for (int i = 0; i < RE_CACHE; i++) {
        free(t->cache[i].key);
        pcre2_code_free(t->cache[i].pat.code);
    }
    free(t);
}

static void tls_make_key(void) { pthread_key_create(&tls_key, tls_free); }

/* This thread's matching state, with a match block of `pairs` pairs at
 * least; NULL when out of memory. */
static re_tls *thread_state(uint32_t pairs)
{
    if (!tls) {
        pthread_once(&tls_once, tls_make_key);
        if (!(tls = calloc(1, sizeof *tls)))
            return NULL;
        pthread_setspecific(tls_key, tls);
    }
    if (pairs < 16)
        pairs = 16;
    if (tls->md_pairs < pairs) {
        pcre2_match_data *md = pcre2_match_data_create(pairs, NULL);
        if (!md)
            return NULL;
        pcre2_match_data_free(tls->md);
        tls->md = md;
        tls->md_pairs = pairs;
    }
    return tls;
}

/* The compiled pattern for a pattern known only per row: from this
 * thread's cache, or compiled into it (replacing the oldest). `kind`
 * tells patterns of different translations apart. NULL when out of
 * memory. */
static const re_pat *cached(char kind, const char *pat, size_t len, bool whole)
{
    re_tls *t = thread_state(16);
    if (!t)
        return NULL;
    for (int i = 0; i < RE_CACHE; i++)
        if (t->cache[i].key && t->cache[i].len == len + 1 && t->cache[i].key[0] == kind &&
            memcmp(t->cache[i].key + 1, pat, len) == 0)
            return &t->cache[i].pat;
    unsigned i = t->next++ % RE_CACHE;
    char *key = malloc(len + 1);
    if (!key)
        return NULL;
    key[0] = kind;
    memcpy(key + 1, pat, len);
    free(t->cache[i].key);
    pcre2_code_free(t->cache[i].pat.code);
    t->cache[i].key = key;
    t->cache[i].len = len + 1;
    re_compile(&t->cache[i].pat, pat, len, whole, false);
    return &t->cache[i].pat;
}

/* ---- the functions' patterns -------------------------------------------------------------- */

/* Argument k's pattern: compiled at plan time if a literal (into n->data),
 * else read per row. */
static bool t_pattern(weir__fnbind *b, int k, bool whole)
{
    const weir__val *v;
    if (!weir__fn_literal(b, k, &v))
        return true;
    re_pat *r = calloc(1, sizeof *r);
    if (!r) {
        weir__bind_nomem(b->p);
        return false;
    }
    re_compile(r, v->s, v->len, whole, true);
    b->n->data = r;
    b->n->data_free = re_pat_free;
    return true;
}

/* The compiled pattern of a call: the plan's, or the cache's for the
 * pattern p; NULL (why set) when out of memory. */
static const re_pat *pattern_of(const weir__fncall *c, const weir__val *p, char kind, bool whole,
                                const char **why)
{
    const re_pat *r = c->n->data ? c->n->data : cached(kind, p->s, p->len, whole);
    if (!r)
        *why = "out of memory compiling a regular expression";
    return r;
}

/* Matches r in s from byte `from`: the count pcre2_match returns (> 0 a
 * match, PCRE2_ERROR_NOMATCH none, other < 0 an error). */
static int re_match(const re_pat *r, const weir__val *s, size_t from, uint32_t opts, re_tls **t)
{
    *t = thread_state(r->groups + 1);
    if (!*t)
        return PCRE2_ERROR_NOMEMORY;
    PCRE2_SPTR subject = (PCRE2_SPTR)(s->s ? s->s : "");
    int rc = pcre2_match(r->code, subject, s->len, from, opts, (*t)->md, NULL);
    if (rc <= PCRE2_ERROR_UTF8_ERR1 && rc >= PCRE2_ERROR_UTF8_ERR21 && r->code_invalid)
        rc = pcre2_match(r->code_invalid, subject, s->len, from, opts, (*t)->md, NULL);
    return rc;
}

/* ---- REGEXP_EXTRACT, REGEXP, REGEXP_REPLACE ----------------------------------------------- */

static bool t_extract(weir__fnbind *b)
{
    b->n->type = weir__fn_varchar(b->n->args[0]->type.capacity, false);
    return t_pattern(b, 1, false);
}

/* The group's text of the first match: NULL for no match, a group that
 * did not take part, an index out of range, or a pattern that does not
 * compile. */
static int e_extract(const weir__fncall *c, weir__val *o, const char **why)
{
    const weir__val *s = &c->args[0];
    const re_pat *r = pattern_of(c, &c->args[1], 'r', false, why);
    if (!r)
        return WEIR_ENOMEM;
    int64_t g = c->n->nargs > 2 ? (int32_t)(uint32_t)(uint64_t)c->args[2].i : 0;
    o->null = true;
    if (!r->code || g < 0 || g > r->groups)
        return 0;
    re_tls *t;
    int rc = re_match(r, s, 0, 0, &t);
    if (rc == PCRE2_ERROR_NOMEMORY) {
        *why = "out of memory matching a regular expression";
        return WEIR_ENOMEM;
    }
    if (rc <= 0)
        return 0;
    PCRE2_SIZE *ov = pcre2_get_ovector_pointer(t->md);
    if (g >= rc || ov[2 * g] == PCRE2_UNSET)
        return 0;
    o->null = false;
    o->s = s->s + ov[2 * g];
    o->len = (uint32_t)(ov[2 * g + 1] - ov[2 * g]);
    return 0;
}

static bool t_regexp(weir__fnbind *b)
{
    b->n->type = (weir_type){.id = WEIR_TYPE_BOOLEAN, .not_null = weir__fn_args_not_null(b)};
    return t_pattern(b, 1, false);
}

/* REGEXP(s, p): whether p matches anywhere in s; FALSE for an empty or
 * invalid pattern. */
static int e_regexp(const weir__fncall *c, weir__val *o, const char **why)
{
    if (c->args[1].len == 0)
        return 0;
    const re_pat *r = pattern_of(c, &c->args[1], 'r', false, why);
    if (!r)
        return WEIR_ENOMEM;
    if (!r->code)
        return 0;
    re_tls *t;
    int rc = re_match(r, &c->args[0], 0, 0, &t);
    if (rc == PCRE2_ERROR_NOMEMORY) {
        *why = "out of memory matching a regular expression";
        return WEIR_ENOMEM;
    }
    o->i = rc > 0;
    return 0;
}

static bool t_replace(weir__fnbind *b)
{
    const weir__val *to;
    uint32_t cap = b->n->args[0]->type.capacity, dflt = weir__bind_string_capacity(b->p);
    /* an empty replacement only shortens; else the schema's capacity
     * bounds it (checked per row) */
    bool shrinks = weir__fn_literal(b, 2, &to) && to->len == 0;
    b->n->type = weir__fn_varchar(shrinks || cap > dflt ? cap : dflt, false);
    return t_pattern(b, 1, false);
}

/* Java's String.replaceAll(p, Matcher.quoteReplacement(r)): every match
 * from the left replaced by r as it is; after an empty match the search
 * goes on one character further (Java's Matcher.find). NULL for a pattern
 * that does not compile. */
static int e_replace(const weir__fncall *c, weir__val *o, const char **why)
{
    const weir__val *s = &c->args[0], *to = &c->args[2];
    const re_pat *r = pattern_of(c, &c->args[1], 'r', false, why);
    if (!r)
        return WEIR_ENOMEM;
    if (!r->code) {
        o->null = true;
        return 0;
    }
    uint32_t cap = c->n->type.capacity, len = 0;
    size_t from = 0, copied = 0;
    while (from <= s->len) {
        re_tls *t;
        int rc = re_match(r, s, from, 0, &t);
        if (rc == PCRE2_ERROR_NOMATCH)
            break;
        if (rc < 0) {
            if (rc == PCRE2_ERROR_NOMEMORY) {
                *why = "out of memory matching a regular expression";
                return WEIR_ENOMEM;
            }
            o->null = true; /* Java's exception, caught: NULL */
            return 0;
        }
        PCRE2_SIZE *ov = pcre2_get_ovector_pointer(t->md);
        size_t ms = ov[0], me = ov[1];
        if (len + (ms - copied) + to->len > cap)
            return weir__fn_too_long(c, why);
        memmove(c->buf + len, s->s + copied, ms - copied);
        len += (uint32_t)(ms - copied);
        memmove(c->buf + len, to->s, to->len);
        len += to->len;
        copied = me;
        if (me == ms) {
            if (me >= s->len)
                break;
            from = me + weir__utf8_len((unsigned char)s->s[me]);
            if (from > s->len)
                from = s->len;
        } else {
            from = me;
        }
    }
    if (len + (s->len - copied) > cap)
        return weir__fn_too_long(c, why);
    memmove(c->buf + len, s->s + copied, s->len - copied);
    len += (uint32_t)(s->len - copied);
    o->s = c->buf;
    o->len = len;
    return 0;
}

/* ---- LIKE -------------------------------------------------------------------------------------- */

/* One element of a LIKE pattern: a character, '_' (any one character but
 * a line end, as Java's '.' that Flink makes of it) or '%' (any run). */
enum { LK_CHAR, LK_ONE, LK_ANY, LK_END, LK_BAD };

/* The element at p[*i] (advancing *i); esc the escape character (0:
 * none). cp and its bytes (at p + *at, *len) for LK_CHAR. */
static int like_elem(const char *p, uint32_t n, uint32_t *i, uint32_t esc, uint32_t *at,
                     uint32_t *len)
{
    if (*i >= n)
        return LK_END;
    uint32_t used;
    uint32_t cp = weir__utf8_decode(p + *i, n - *i, &used);
    if (esc && cp == esc) {
        if (*i + used >= n)
            return LK_BAD;
        uint32_t u2;
        uint32_t next = weir__utf8_decode(p + *i + used, n - *i - used, &u2);
        if (next != '_' && next != '%' && next != esc)
            return LK_BAD;
        *at = *i + used;
        *len = u2;
        *i += used + u2;
        return LK_CHAR;
    }
    *at = *i;
    *len = used;
    *i += used;
    return cp == '_' ? LK_ONE : cp == '%' ? LK_ANY : LK_CHAR;
}

/* Java's line terminators, which '.' does not match. */
static bool line_end(const char *s, uint32_t n)
{
    uint32_t used;
    uint32_t cp = weir__utf8_decode(s, n, &used);
    return cp == '\n' || cp == '\r' || cp == 0x85 || cp == 0x2028 || cp == 0x2029;
}

/* Whether the whole of s matches the pattern (the greedy wildcard match
 * with one point to go back to, which is exact for patterns of single
 * characters and runs). -1 for a bad escape. */
static int like_match(const weir__val *s, const weir__val *p, uint32_t esc)
{
    uint32_t si = 0, pi = 0, star_p = UINT32_MAX, star_s = 0;
    while (si < s->len) {
        uint32_t save = pi, at = 0, len = 0;
        int e = like_elem(p->s, p->len, &pi, esc, &at, &len);
        if (e == LK_BAD)
            return -1;
        uint32_t cl;
        weir__utf8_decode(s->s + si, s->len - si, &cl); /* a bad byte is one character */
        if (e == LK_ANY) {
            star_p = pi;
            star_s = si;
            continue;
        }
        if ((e == LK_ONE && !line_end(s->s + si, s->len - si)) ||
            (e == LK_CHAR && len == cl && memcmp(p->s + at, s->s + si, len) == 0)) {
            si += cl;
            continue;
        }
        (void)save;
        if (star_p == UINT32_MAX)
            return 0;
        /* back to the last %: it takes one more character */
        uint32_t step;
        weir__utf8_decode(s->s + star_s, s->len - star_s, &step);
        star_s += step;
        si = star_s;
        pi = star_p;
    }
    for (;;) {
        uint32_t at, len;
        int e = like_elem(p->s, p->len, &pi, esc, &at, &len);
        if (e == LK_END)
            return 1;
        if (e == LK_BAD)
            return -1;
        if (e != LK_ANY)
            return 0;
    }
}

/* The escape character of an ESCAPE string: one character (Flink's
 * "Invalid escape character" otherwise); 0 for none. */
static bool escape_of(const weir__val *e, uint32_t *esc)
{
    uint32_t used;
    if (e->len == 0)
        return false;
    *esc = weir__utf8_decode(e->s, e->len, &used);
    return used == e->len;
}

/* Whether every escape in p is valid (the pattern's whole check). */
static bool like_valid(const weir__val *p, uint32_t esc)
{
    uint32_t i = 0, at, len;
    for (;;) {
        int e = like_elem(p->s, p->len, &i, esc, &at, &len);
        if (e == LK_END)
            return true;
        if (e == LK_BAD)
            return false;
    }
}

static bool t_like(weir__fnbind *b)
{
    const weir__val *p, *e;
    uint32_t esc = 0;
    b->n->type = (weir_type){.id = WEIR_TYPE_BOOLEAN, .not_null = weir__fn_args_not_null(b)};
    b->n->aux[1] = b->a->negate;
    if (b->n->nargs > 2 && weir__fn_literal(b, 2, &e) && !escape_of(e, &esc)) {
        weir__bind_fail(b->p, b->n->args[2]->pos, "Invalid escape character '%.*s'",
                        (int)e->len, e->s);
        return false;
    }
    if (weir__fn_literal(b, 1, &p) && (b->n->nargs == 2 || weir__fn_literal(b, 2, NULL)) &&
        !like_valid(p, esc)) {
        weir__bind_fail(b->p, b->n->args[1]->pos, "Invalid escape sequence '%.*s'", (int)p->len,
                        p->s);
        return false;
    }
    return true;
}

static int e_like(const weir__fncall *c, weir__val *o, const char **why)
{
    uint32_t esc = 0;
    if (c->n->nargs > 2 && !escape_of(&c->args[2], &esc)) {
        *why = "Invalid escape character: LIKE's ESCAPE is not one character";
        return WEIR_EINVAL;
    }
    int m = like_match(&c->args[0], &c->args[1], esc);
    if (m < 0 || (m == 0 && esc && !like_valid(&c->args[1], esc))) {
        *why = "Invalid escape sequence in a LIKE pattern";
        return WEIR_EINVAL;
    }
    o->i = (m == 1) != (c->n->aux[1] != 0);
    return 0;
}

/* ---- SIMILAR TO ---------------------------------------------------------------------------------- */

/* Flink's SqlLikeUtils.sqlToRegexSimilar, writing PCRE2's syntax where
 * Java's differs (POSIX classes inside [...]). 0, or -1 with why. The
 * output takes at most 12 bytes per byte in. */
static int similar_to_regex(const char *p, uint32_t n, uint32_t esc, char *out, size_t *olen,
                            const char **why)
{
    static const char specials[] = "[]()|^-+*_%?{}";
    static const char java_specials[] = "[]()|^-+*?{}$\\.";
    static const char *const classes[][2] = {
        {"[:ALPHA:]", "[:alpha:]"}, {"[:alpha:]", "[:alpha:]"}, {"[:UPPER:]", "[:upper:]"},
        {"[:upper:]", "[:upper:]"}, {"[:LOWER:]", "[:lower:]"}, {"[:lower:]", "[:lower:]"},
        {"[:DIGIT:]", "\\d"},       {"[:digit:]", "\\d"},       {"[:SPACE:]", " "},
        {"[:space:]", " "},         {"[:WHITESPACE:]", "\\s"},  {"[:whitespace:]", "\\s"},
        {"[:ALNUM:]", "[:alnum:]"}, {"[:alnum:]", "[:alnum:]"}};
    size_t k = 0;
#define OUT(str)                                                                    \
    do {                                                                            \
        size_t l_ = strlen(str);                                                    \
        memcpy(out + k, (str), l_);                                                 \
        k += l_;                                                                    \
    } while (0)
    bool in_class = false;
    for (uint32_t i = 0; i < n;) {
        uint32_t used;
        uint32_t cp = weir__utf8_decode(p + i, n - i, &used);
        if (esc && cp == esc) {
            if (i + used >= n) {
                *why = "Invalid escape sequence in a SIMILAR TO pattern";
                return -1;
            }
            uint32_t u2;
            uint32_t next = weir__utf8_decode(p + i + used, n - i - used, &u2);
            if (next < 128 && strchr(specials, (int)next)) {
                if (strchr(java_specials, (int)next))
                    out[k++] = '\\';
                out[k++] = (char)next;
            } else if (next == esc) {
                memcpy(out + k, p + i + used, u2);
                k += u2;
            } else {
                *why = "Invalid escape sequence in a SIMILAR TO pattern";
                return -1;
            }
            i += used + u2;
            continue;
        }
        if (in_class) {
            if (cp == ']') {
                in_class = false;
                out[k++] = ']';
                i += used;
                continue;
            }
            if (cp == '[') {
                bool found = false;
                for (size_t j = 0; j < sizeof classes / sizeof classes[0]; j++) {
                    size_t cl = strlen(classes[j][0]);
                    if (n - i >= cl && memcmp(p + i, classes[j][0], cl) == 0) {
                        OUT(classes[j][1]);
                        i += (uint32_t)cl;
                        found = true;
                        break;
                    }
                }
                if (!found) {
                    *why = "Invalid regular expression in a SIMILAR TO pattern";
                    return -1;
                }
                continue;
            }
            if (cp == '-' || cp == '^') {
                out[k++] = (char)cp;
            } else if (cp < 128 && strchr(specials, (int)cp)) {
                *why = "Invalid regular expression in a SIMILAR TO pattern";
                return -1;
            } else {
                memcpy(out + k, p + i, used);
                k += used;
            }
            i += used;
            continue;
        }
        switch (cp) {
        case '_': out[k++] = '.'; break;
        case '%': OUT("(?s:.*)"); break;
        case '[': out[k++] = '['; in_class = true; break;
        case ']':
            *why = "Invalid regular expression in a SIMILAR TO pattern";
            return -1;
        case '\\': OUT("\\\\"); break;
        case '$': OUT("\\$"); break;
        default:
            memcpy(out + k, p + i, used);
            k += used;
            break;
        }
        i += used;
    }
    if (in_class) {
        *why = "Invalid regular expression in a SIMILAR TO pattern";
        return -1;
    }
#undef OUT
    *olen = k;
    return 0;
}

static bool t_similar(weir__fnbind *b)
{
    const weir__val *p, *e;
    uint32_t esc = 0;
    b->n->type = (weir_type){.id = WEIR_TYPE_BOOLEAN, .not_null = weir__fn_args_not_null(b)};
    b->n->aux[1] = b->a->negate;
    bool lit_esc = b->n->nargs < 3 || weir__fn_literal(b, 2, &e);
    if (b->n->nargs > 2 && lit_esc && !escape_of(e, &esc)) {
        weir__bind_fail(b->p, b->n->args[2]->pos, "Invalid escape character '%.*s'",
                        (int)e->len, e->s);
        return false;
    }
    uint32_t cap = b->n->args[1]->type.capacity;
    b->work = 12 * cap + 16;
    if (weir__fn_literal(b, 1, &p) && lit_esc) {
        size_t len;
        const char *why = NULL;
        char *rx = malloc(12 * (size_t)p->len + 16);
        if (!rx) {
            weir__bind_nomem(b->p);
            return false;
        }
        if (similar_to_regex(p->s, p->len, esc, rx, &len, &why)) {
            free(rx);
            weir__bind_fail(b->p, b->n->args[1]->pos, "%s: '%.*s'", why, (int)p->len, p->s);
            return false;
        }
        re_pat *r = calloc(1, sizeof *r);
        if (!r) {
            free(rx);
            weir__bind_nomem(b->p);
            return false;
        }
        re_compile(r, rx, len, true, true);
        free(rx);
        b->n->data = r;
        b->n->data_free = re_pat_free;
        if (!r->code) {
            weir__bind_fail(b->p, b->n->args[1]->pos, "Invalid regular expression '%.*s' (%s)",
                            (int)p->len, p->s, r->why);
            return false;
        }
    }
    return true;
}

static int e_similar(const weir__fncall *c, weir__val *o, const char **why)
{
    const re_pat *r = c->n->data;
    if (!r) {
        uint32_t esc = 0;
        if (c->n->nargs > 2 && !escape_of(&c->args[2], &esc)) {
            *why = "Invalid escape character: SIMILAR TO's ESCAPE is not one character";
            return WEIR_EINVAL;
        }
        size_t len;
        char *rx = (char *)c->work;
        if (similar_to_regex(c->args[1].s, c->args[1].len, esc, rx, &len, why))
            return WEIR_EINVAL;
        r = cached('s', rx, len, true);
        if (!r) {
            *why = "out of memory compiling a regular expression";
            return WEIR_ENOMEM;
        }
        if (!r->code) {
            *why = "Invalid regular expression in a SIMILAR TO pattern";
            return WEIR_EINVAL;
        }
    }
    re_tls *t;
    int rc = re_match(r, &c->args[0], 0, 0, &t);
    if (rc == PCRE2_ERROR_NOMEMORY) {
        *why = "out of memory matching a regular expression";
        return WEIR_ENOMEM;
    }
    o->i = (rc > 0) != (c->n->aux[1] != 0);
    return 0;
}

/* ---- the table --------------------------------------------------------------------------------- */

#define CALL WEIR_AST_FORM_CALL
#define INFIX WEIR_AST_FORM_INFIX

const weir__builtin weir__fn_regex[] = {
    {"REGEXP_EXTRACT", 2, 3, CALL, 0, "S,S,I;S,S", t_extract, e_extract, 0},
    {"REGEXP_REPLACE", 3, 3, CALL, 0, "S,S,S", t_replace, e_replace, 0},
    {"REGEXP", 2, 2, CALL, 0, "S,S", t_regexp, e_regexp, 0},
    {"LIKE", 2, 3, INFIX, 0, "S,S;S,S,S", t_like, e_like, 0},
    {"SIMILAR TO", 2, 3, INFIX, 0, "S,S;S,S,S", t_similar, e_similar, 0},
    {NULL, 0, 0, CALL, 0, NULL, NULL, NULL, 0},
};
