/* sql_text.c — interval literals, durations, rewritten texts and their
 * origins (sql_text.h). */
#include "sql_text.h"
#include "message_text.h"
#include "sql_parser.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* ---- intervals and durations ------------------------------------------------ */

typedef struct unit {
    const char *name;
    int64_t ms;
} unit;

/* Largest first: a TO range runs down this list. */
static const unit units[] = {
    {"DAY", 86400000}, {"HOUR", 3600000}, {"MINUTE", 60000}, {"SECOND", 1000}, {"MILLISECOND", 1},
};
enum { NUNITS = sizeof units / sizeof *units };

/* The unit the word names (singular or plural), or -1. */
static int unit_of(const char *w, size_t n)
{
    for (int u = 0; u < NUNITS; u++) {
        size_t k = strlen(units[u].name);
        if ((n == k || (n == k + 1 && (w[k] == 's' || w[k] == 'S'))) &&
            strncasecmp(w, units[u].name, k) == 0)
            return u;
    }
    return -1;
}

static const char *skip_space(const char *s, const char *end)
{
    while (s < end && isspace((unsigned char)*s))
        s++;
    return s;
}

static const char *word_end(const char *s, const char *end)
{
    while (s < end && (isalnum((unsigned char)*s) || *s == '_'))
        s++;
    return s;
}

/* A field of an interval's value: digits, and for seconds a fraction. */
static int field(const char **s, const char *end, bool fraction, int64_t unit_ms, int64_t *ms)
{
    const char *p = *s;
    int64_t v = 0;
    if (p >= end || !isdigit((unsigned char)*p))
        return -1;
    while (p < end && isdigit((unsigned char)*p)) {
        if (v > INT64_MAX / 10 - 10)
            return -1;
        v = v * 10 + (*p++ - '0');
    }
    if (v > INT64_MAX / unit_ms)
        return -1;
    v *= unit_ms;
    if (fraction && p < end && *p == '.') {
        p++;
        int64_t scale = unit_ms / 10;
        if (p >= end || !isdigit((unsigned char)*p))
            return -1;
        while (p < end && isdigit((unsigned char)*p)) {
            if (scale == 0 && *p != '0')
                return -1; /* finer than a millisecond */
            v += (*p++ - '0') * scale;
            scale /= 10;
        }
    }
    *s = p;
    *ms = v;
    return 0;
}

int sql_interval_ms(const char *text, size_t len, int64_t *ms, char *why, size_t whysize)
{
    const char *s = text, *end = text + len;
    s = skip_space(s, end);
    const char *w = word_end(s, end);
    if ((size_t)(w - s) != 8 || strncasecmp(s, "INTERVAL", 8) != 0) {
        snprintf(why, whysize, "expected an interval (INTERVAL '1' MINUTE)");
        return -1;
    }
    s = skip_space(w, end);
    if (s >= end || *s != '\'') {
        snprintf(why, whysize, "expected the interval's value in quotes (INTERVAL '1' MINUTE)");
        return -1;
    }
    const char *v = ++s;
    while (s < end && *s != '\'')
        s++;
    if (s >= end) {
        snprintf(why, whysize, "the interval's value has no closing quote");
        return -1;
    }
    const char *vend = s++;
    s = skip_space(s, end);
    w = word_end(s, end);
    int from = unit_of(s, (size_t)(w - s));
    if (from < 0) {
        snprintf(why, whysize, "expected an interval unit (MILLISECOND, SECOND, MINUTE, HOUR "
                 "or DAY) after the value");
        return -1;
    }
    int to = from;
    s = skip_space(w, end);
    if (s < end) {
        w = word_end(s, end);
        if ((size_t)(w - s) == 2 && strncasecmp(s, "TO", 2) == 0) {
            s = skip_space(w, end);
            w = word_end(s, end);
            to = unit_of(s, (size_t)(w - s));
            if (to <= from || to == NUNITS - 1) {
                snprintf(why, whysize, "expected a smaller unit after TO (MINUTE TO SECOND, "
                         "HOUR TO MINUTE, DAY TO HOUR, ...)");
                return -1;
            }
            s = skip_space(w, end);
        }
        if (s < end) {
            snprintf(why, whysize, "unexpected text after the interval");
            return -1;
        }
    }
    /* The value's fields, one per unit of the range: DAY then ' ', the
     * others then ':'. */
    const char *p = v;
    int64_t total = 0;
    bool neg = p < vend && *p == '-';
    if (neg)
        p++;
    for (int u = from; u <= to; u++) {
        int64_t part;
        if (field(&p, vend, units[u].ms == 1000, units[u].ms, &part) || total > INT64_MAX - part) {
            snprintf(why, whysize, "'%.*s' is not a %s%s%s interval value", (int)(vend - v), v,
                     units[from].name, to != from ? " TO " : "", to != from ? units[to].name : "");
            return -1;
        }
        total += part;
        if (u < to) {
            char sep = units[u].ms == 86400000 ? ' ' : ':';
            if (p >= vend || *p != sep) {
                snprintf(why, whysize, "'%.*s' is not a %s TO %s interval value", (int)(vend - v),
                         v, units[from].name, units[to].name);
                return -1;
            }
            p++;
        }
    }
    if (p != vend) {
        snprintf(why, whysize, "'%.*s' is not a %s interval value", (int)(vend - v), v,
                 units[from].name);
        return -1;
    }
    *ms = neg ? -total : total;
    return 0;
}

int sql_duration_ms(const char *text, int64_t *ms)
{
    static const unit words[] = {
        {"ms", 1},          {"milli", 1},       {"millis", 1},   {"millisecond", 1},
        {"milliseconds", 1}, {"s", 1000},       {"sec", 1000},   {"secs", 1000},
        {"second", 1000},   {"seconds", 1000},  {"min", 60000},  {"mins", 60000},
        {"minute", 60000},  {"minutes", 60000}, {"h", 3600000},  {"hour", 3600000},
        {"hours", 3600000}, {"d", 86400000},    {"day", 86400000}, {"days", 86400000},
    };
    const char *s = text;
    while (isspace((unsigned char)*s))
        s++;
    if (!isdigit((unsigned char)*s))
        return -1;
    char *e;
    double v = strtod(s, &e);
    while (isspace((unsigned char)*e))
        e++;
    size_t n = strlen(e);
    while (n && isspace((unsigned char)e[n - 1]))
        n--;
    int64_t scale = n == 0 ? 1 : 0;
    for (size_t k = 0; n && k < sizeof words / sizeof *words; k++)
        if (strlen(words[k].name) == n && strncasecmp(e, words[k].name, n) == 0)
            scale = words[k].ms;
    if (!scale || v * (double)scale > 9.0e15)
        return -1;
    double r = v * (double)scale;
    if (r != (double)(int64_t)r)
        return -1; /* finer than a millisecond */
    *ms = (int64_t)r;
    return 0;
}

/* ---- rewritten texts -------------------------------------------------------------- */

void sql_text_init(sql_text *t, sql_arena **arena)
{
    *t = (sql_text){.arena = arena, .buf = (char *)""};
}

/* Room for `more` bytes (and the NUL) and one more piece. */
static bool reserve(sql_text *t, size_t more)
{
    if (t->len + more + 1 > t->cap) {
        size_t cap = t->cap ? t->cap : 64;
        while (cap < t->len + more + 1)
            cap *= 2;
        char *b = sql_arena_alloc(t->arena, cap);
        if (!b)
            return false;
        memcpy(b, t->buf, t->len + 1);
        t->buf = b;
        t->cap = cap;
    }
    if (t->npieces == t->pcap) {
        int cap = t->pcap ? 2 * t->pcap : 8;
        sql_piece *v = sql_arena_alloc(t->arena, (size_t)cap * sizeof *v);
        if (!v)
            return false;
        if (t->npieces)
            memcpy(v, t->pieces, (size_t)t->npieces * sizeof *v);
        t->pieces = v;
        t->pcap = cap;
    }
    return true;
}

static void add(sql_text *t, const char *s, size_t n, uint32_t orig, bool replaced)
{
    if (t->nomem)
        return;
    if (!reserve(t, n)) {
        t->nomem = true;
        return;
    }
    t->pieces[t->npieces++] = (sql_piece){.out = (uint32_t)t->len, .orig = orig,
                                          .replaced = replaced};
    memcpy(t->buf + t->len, s, n);
    t->len += n;
    t->buf[t->len] = '\0';
}

void sql_text_copy(sql_text *t, const char *script, uint32_t orig, uint32_t len)
{
    add(t, script + orig, len, orig, false);
}

void sql_text_put(sql_text *t, uint32_t orig, const char *s)
{
    add(t, s, strlen(s), orig, true);
}

void sql_text_glue(sql_text *t, const char *s)
{
    uint32_t orig = t->npieces ? t->pieces[t->npieces - 1].orig : 0;
    add(t, s, strlen(s), orig, true);
}

void sql_text_glue_n(sql_text *t, const char *s, size_t n)
{
    uint32_t orig = t->npieces ? t->pieces[t->npieces - 1].orig : 0;
    add(t, s, n, orig, true);
}

void sql_text_append(sql_text *t, const sql_text *from)
{
    if (from->nomem)
        t->nomem = true;
    for (int k = 0; k < from->npieces; k++) {
        const sql_piece *pc = &from->pieces[k];
        size_t end = k + 1 < from->npieces ? from->pieces[k + 1].out : from->len;
        add(t, from->buf + pc->out, end - pc->out, pc->orig, pc->replaced);
    }
}

uint32_t sql_text_origin(const sql_text *t, size_t pos)
{
    uint32_t orig = 0;
    for (int i = 0; i < t->npieces && t->pieces[i].out <= pos; i++) {
        const sql_piece *p = &t->pieces[i];
        orig = p->replaced ? p->orig : p->orig + (uint32_t)(pos - p->out);
    }
    return orig;
}

const char *sql_expr_message(const char *text, const char *msg, size_t *pos)
{
    char buf[WEIR__EXPR_ECHO + 4];
    const char *echo = weir__expr_echo(text, buf);
    size_t n = strlen(echo);
    *pos = 0;
    if (strncmp(msg, echo, n) != 0 || strncmp(msg + n, " at ", 4) != 0)
        return msg;
    const char *p = msg + n + 4;
    char *e;
    unsigned long v = strtoul(p, &e, 10);
    if (e == p || strncmp(e, ": ", 2) != 0)
        return msg;
    *pos = v;
    return e + 2;
}

int sql_edit_distance(const char *a, const char *b)
{
    return weir__edit_distance(a, b);
}
