/* fn_pattern.c — date-time patterns (fn_datetime.h) as Java reads them:
 * DateTimeFormatter.ofPattern (java.time), which Flink's DATE_FORMAT of a
 * TIMESTAMP and TO_TIMESTAMP(s, format) use, and SimpleDateFormat, which
 * FROM_UNIXTIME, UNIX_TIMESTAMP, DATE_FORMAT of a string and CONVERT_TZ use.
 * The letters are mostly the same; they differ in S (java.time: a
 * fraction of the second, "S" its tenths; SimpleDateFormat: the
 * milliseconds as a number), u (the year; the day of the week) and in
 * parsing (java.time: each field's width exactly, the whole text, a day
 * past the month's end clamped; SimpleDateFormat: any digits where a
 * field is not next to another number, the rest of the text ignored, a
 * month 13 rolled over into the next year). Names are English (Java's
 * default locale in Flink's images, en-US: weeks start on Sunday).
 *
 * The calendar is the proleptic Gregorian one throughout (before
 * 1582-10-15 SimpleDateFormat would switch to the Julian calendar).
 */
#include <stdio.h>
#include <string.h>

#include "fn_datetime.h"

static const char *const month_names[] = {"January", "February", "March",     "April",
                                          "May",     "June",     "July",      "August",
                                          "September", "October", "November", "December"};
static const char *const day_names[] = {"Sunday",   "Monday", "Tuesday", "Wednesday",
                                        "Thursday", "Friday", "Saturday"};

/* ---- calendar ------------------------------------------------------------------------ */

int64_t weir__days_from_civil(int64_t y, unsigned m, unsigned d)
{
    /* Howard Hinnant's algorithm */
    y -= m <= 2;
    int64_t era = (y >= 0 ? y : y - 399) / 400;
    unsigned yoe = (unsigned)(y - era * 400);
    unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + (int64_t)doe - 719468;
}

void weir__civil_from_days(int64_t z, int64_t *y, unsigned *m, unsigned *d)
{
    z += 719468;
    int64_t era = (z >= 0 ? z : z - 146096) / 146097;
    unsigned doe = (unsigned)(z - era * 146097);
    unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    int64_t yy = (int64_t)yoe + era * 400;
    unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    unsigned mp = (5 * doy + 2) / 153;
    *d = doy - (153 * mp + 2) / 5 + 1;
    *m = mp < 10 ? mp + 3 : mp - 9;
    *y = yy + (*m <= 2);
}

static bool leap(int64_t y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }

static unsigned month_days(int64_t y, unsigned m)
{
    static const unsigned md[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    return md[m - 1] + (m == 2 && leap(y));
}

void dt_split(int64_t ms, dt_fields *f)
{
    int64_t days = ms / 86400000 - (ms % 86400000 < 0);
    int64_t rest = ms - days * 86400000;
    f->days = days;
    weir__civil_from_days(days, &f->year, &f->month, &f->day);
    f->hour = (int)(rest / 3600000);
    f->minute = (int)(rest / 60000 % 60);
    f->second = (int)(rest / 1000 % 60);
    f->milli = (int)(rest % 1000);
    f->dow = (int)(((days + 4) % 7 + 7) % 7);
    f->doy = (int)(days - weir__days_from_civil(f->year, 1, 1)) + 1;
}

/* The week-based year and week (weeks from Sunday, week 1 the one with
 * January 1st: en-US). */
static void us_week(const dt_fields *f, int64_t *wyear, int *week)
{
    int64_t sow = f->days - f->dow; /* that week's Sunday */
    int64_t y;
    unsigned m, d;
    weir__civil_from_days(sow + 6, &y, &m, &d); /* its Saturday's year */
    int64_t jan1 = weir__days_from_civil(y, 1, 1);
    int jan1_dow = (int)(((jan1 + 4) % 7 + 7) % 7);
    *wyear = y;
    *week = (int)((sow - (jan1 - jan1_dow)) / 7) + 1;
}

/* ---- compiling --------------------------------------------------------------------------- */

static bool is_letter(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

/* The most letters of one kind a field takes (0: not a letter of the
 * dialect). */
static int max_count(char c, bool sdf)
{
    if (sdf)
        return strchr("GyYMLwWDdFEuaHkKhmsSzZX", c) ? 255 : 0;
    switch (c) {
    case 'G': case 'M': case 'L': case 'Q': case 'q': case 'E': case 'e': case 'c': return 5;
    case 'u': case 'y': case 'Y': case 'n': case 'N': case 'A': case 'S': return 19;
    case 'D': return 3;
    case 'd': case 'h': case 'K': case 'k': case 'H': case 'm': case 's': case 'w': return 2;
    case 'W': case 'a': return 1;
    default: return 0;
    }
}

int dt_compile(dt_pat *p, const char *text, uint32_t len, bool sdf, dt_tok *tok, char *why,
               size_t whysize)
{
    p->text = text;
    p->sdf = sdf;
    p->tok = tok;
    p->n = 0;
    int depth = 0;
    for (uint32_t i = 0; i < len;) {
        char c = text[i];
        if (c == '\'') {
            if (i + 1 < len && text[i + 1] == '\'') { /* '' is a quote */
                tok[p->n++] = (dt_tok){.off = (uint16_t)i, .len = 1};
                i += 2;
                continue;
            }
            uint32_t j = i + 1;
            for (;;) {
                if (j >= len) {
                    snprintf(why, whysize, "Pattern ends with an incomplete string literal: %.*s",
                             (int)len, text);
                    return -1;
                }
                if (text[j] == '\'') {
                    if (j + 1 < len && text[j + 1] == '\'') {
                        if (j > i + 1)
                            tok[p->n++] = (dt_tok){.off = (uint16_t)(i + 1),
                                                   .len = (uint16_t)(j - i - 1)};
                        tok[p->n++] = (dt_tok){.off = (uint16_t)j, .len = 1};
                        i = j + 1;
                        j = i;
                        continue;
                    }
                    break;
                }
                j++;
            }
            if (j > i + 1)
                tok[p->n++] = (dt_tok){.off = (uint16_t)(i + 1), .len = (uint16_t)(j - i - 1)};
            i = j + 1;
            continue;
        }
        if (is_letter(c)) {
            uint32_t j = i;
            while (j < len && text[j] == c)
                j++;
            uint32_t count = j - i;
            int most = max_count(c, sdf);
            if (!most) {
                if (!sdf && strchr("VzOXxZ", c))
                    snprintf(why, whysize, "pattern letter '%c' is a time zone's, and a "
                             "TIMESTAMP has none (Java: Unable to extract ZoneId)", c);
                else if (sdf)
                    snprintf(why, whysize, "Illegal pattern character '%c'", c);
                else
                    snprintf(why, whysize, "Unknown pattern letter: %c", c);
                return -1;
            }
            if (count > (uint32_t)most) {
                snprintf(why, whysize, "Too many pattern letters: %c", c);
                return -1;
            }
            tok[p->n++] = (dt_tok){.off = (uint16_t)i, .letter = c, .count = (uint8_t)count};
            i = j;
            continue;
        }
        if (!sdf && (c == '[' || c == ']')) {
            if (c == ']' && depth == 0) {
                snprintf(why, whysize, "Pattern invalid as it contains ] without previous [");
                return -1;
            }
            depth += c == '[' ? 1 : -1;
            tok[p->n++] = (dt_tok){.off = (uint16_t)i, .letter = c};
            i++;
            continue;
        }
        if (!sdf && (c == '{' || c == '}' || c == '#')) {
            snprintf(why, whysize, "Pattern includes reserved character: '%c'", c);
            return -1;
        }
        /* a literal: up to the next special character */
        uint32_t j = i + 1;
        while (j < len && !is_letter(text[j]) && text[j] != '\'' &&
               (sdf || (text[j] != '[' && text[j] != ']')))
            j++;
        tok[p->n++] = (dt_tok){.off = (uint16_t)i, .len = (uint16_t)(j - i)};
        i = j;
    }
    return 0;
}

uint32_t dt_max_len(const dt_pat *p)
{
    uint32_t n = 0;
    for (int i = 0; i < p->n; i++) {
        const dt_tok *t = &p->tok[i];
        uint32_t c = t->count, w;
        switch (t->letter) {
        case 0: w = t->len; break;
        case '[': case ']': w = 0; break;
        case 'M': case 'L': w = c >= 4 ? 9 : c == 3 ? 3 : 2; break;
        case 'E': w = c >= 4 ? 9 : 3; break;
        case 'G': w = c == 4 ? 11 : 2; break;
        case 'Q': case 'q': w = c == 4 ? 11 : 2; break;
        case 'a': w = 2; break;
        case 'z': w = c >= 4 ? 26 : 3; break;
        case 'Z': w = 5; break;
        case 'X': w = 1; break;
        case 'n': w = 9; break;
        case 'N': w = 14; break;
        case 'A': w = 8; break;
        case 'y': case 'u': case 'Y': w = 11; break; /* a sign and ten digits */
        default: w = 3; break;
        }
        n += w > c ? w : c;
    }
    return n;
}

/* ---- formatting -------------------------------------------------------------------------- */

typedef struct out {
    char *p;
    uint32_t len, cap;
    bool full;
} out;

static void put(out *o, const char *s, uint32_t n)
{
    if (o->len + n > o->cap) {
        o->full = true;
        return;
    }
    memcpy(o->p + o->len, s, n);
    o->len += n;
}

static void put_str(out *o, const char *s) { put(o, s, (uint32_t)strlen(s)); }

/* v with at least `width` digits, '-' before a negative one (by hand:
 * snprintf was most of a DATE_FORMAT's time). */
static void put_num(out *o, int64_t v, int width)
{
    char b[48];
    int k = (int)sizeof b;
    uint64_t u = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;
    do {
        b[--k] = (char)('0' + u % 10);
        u /= 10;
    } while (u);
    if (width > 40)
        width = 40;
    while ((int)sizeof b - k < width)
        b[--k] = '0';
    if (v < 0)
        b[--k] = '-';
    put(o, b + k, (uint32_t)(sizeof b - (size_t)k));
}

/* A text field: count 1-3 short, 4 full, 5 narrow (java.time); in
 * SimpleDateFormat 4 or more full, else short. */
static void put_name(out *o, const char *full, unsigned count, bool sdf)
{
    if (count >= 4 && (sdf || count == 4))
        put_str(o, full);
    else if (!sdf && count == 5)
        put(o, full, 1);
    else
        put(o, full, 3);
}

int dt_format(const dt_pat *p, int64_t ms, int32_t nanos, char *buf, uint32_t cap)
{
    dt_fields f;
    dt_split(ms, &f);
    out o = {.p = buf, .cap = cap};
    for (int i = 0; i < p->n; i++) {
        const dt_tok *t = &p->tok[i];
        int c = t->count;
        switch (t->letter) {
        case 0: put(&o, p->text + t->off, t->len); break;
        case '[': case ']': break;
        case 'G': put_str(&o, f.year > 0 ? (c == 4 ? "Anno Domini" : c == 5 ? "A" : "AD")
                                         : (c == 4 ? "Before Christ" : c == 5 ? "B" : "BC"));
            break;
        case 'y':
        case 'u':
        case 'Y': {
            int64_t y = f.year;
            int wk;
            if (t->letter == 'Y')
                us_week(&f, &y, &wk);
            if (p->sdf && t->letter == 'u') { /* SimpleDateFormat: day number of week */
                put_num(&o, f.dow == 0 ? 7 : f.dow, c);
                break;
            }
            if (t->letter != 'u' && y <= 0)
                y = 1 - y; /* year of era */
            if (c == 2) {
                put_num(&o, ((y % 100) + 100) % 100, 2);
            } else if (!p->sdf && c >= 4 && y > 9999) {
                put_str(&o, "+"); /* java.time's EXCEEDS_PAD */
                put_num(&o, y, c);
            } else {
                put_num(&o, y, p->sdf || c != 1 ? c : 1);
            }
            break;
        }
        case 'M':
        case 'L':
            if (c >= 3)
                put_name(&o, month_names[f.month - 1], (unsigned)c, p->sdf);
            else
                put_num(&o, f.month, c);
            break;
        case 'd': put_num(&o, f.day, c); break;
        case 'D': put_num(&o, f.doy, c); break;
        case 'Q':
        case 'q': {
            int q = (int)(f.month + 2) / 3;
            static const char *const qs[] = {"1st quarter", "2nd quarter", "3rd quarter",
                                             "4th quarter"};
            if (c == 3) {
                char b[3] = {'Q', (char)('0' + q), 0};
                put_str(&o, b);
            } else if (c == 4) {
                put_str(&o, qs[q - 1]);
            } else {
                put_num(&o, q, c == 2 ? 2 : 1);
            }
            break;
        }
        case 'w': {
            int64_t wy;
            int wk;
            us_week(&f, &wy, &wk);
            put_num(&o, wk, c);
            break;
        }
        case 'W': {
            int first_dow = (int)(((f.days - (f.day - 1) + 4) % 7 + 7) % 7);
            put_num(&o, (int)(f.day - 1 + (unsigned)first_dow) / 7 + 1, c);
            break;
        }
        case 'F': put_num(&o, (int)(f.day - 1) / 7 + 1, c); break;
        case 'E': put_name(&o, day_names[f.dow], (unsigned)c, p->sdf); break;
        case 'e':
        case 'c':
            if (c <= 2)
                put_num(&o, f.dow + 1, c); /* en-US: Sunday is 1 */
            else
                put_name(&o, day_names[f.dow], (unsigned)c, false);
            break;
        case 'a': put_str(&o, f.hour < 12 ? "AM" : "PM"); break;
        case 'H': put_num(&o, f.hour, c); break;
        case 'k': put_num(&o, f.hour == 0 ? 24 : f.hour, c); break;
        case 'K': put_num(&o, f.hour % 12, c); break;
        case 'h': put_num(&o, f.hour % 12 == 0 ? 12 : f.hour % 12, c); break;
        case 'm': put_num(&o, f.minute, c); break;
        case 's': put_num(&o, f.second, c); break;
        case 'S':
            if (p->sdf) {
                put_num(&o, f.milli, c); /* the milliseconds, a number */
            } else {
                /* the fraction's first c digits */
                char d[24];
                snprintf(d, sizeof d, "%03d%06d000000000", f.milli, (int)nanos);
                put(&o, d, (uint32_t)c);
            }
            break;
        case 'n': put_num(&o, (int64_t)f.milli * 1000000 + nanos, c); break;
        case 'N':
            put_num(&o, ((int64_t)f.hour * 3600000 + f.minute * 60000 + f.second * 1000 + f.milli) *
                                1000000 + nanos,
                    c);
            break;
        case 'A':
            put_num(&o, (int64_t)f.hour * 3600000 + f.minute * 60000 + f.second * 1000 + f.milli, c);
            break;
        case 'z': put_str(&o, c >= 4 ? "Coordinated Universal Time" : "UTC"); break;
        case 'Z': put_str(&o, "+0000"); break;
        case 'X': put_str(&o, "Z"); break;
        }
    }
    return o.full ? -1 : (int)o.len;
}

/* ---- parsing ----------------------------------------------------------------------------- */

static bool is_num_tok(const dt_tok *t, bool sdf)
{
    switch (t->letter) {
    case 'M': case 'L': return t->count <= 2;
    case 'E': case 'a': case 'G': case 0: case '[': case ']': case 'z': case 'Z': case 'X':
        return false;
    case 'Q': case 'q': return t->count <= 2;
    default: (void)sdf; return true;
    }
}

/* The fixed width of a numeric java.time field (0: it takes 1 digit or
 * more). */
static int fixed_width(const dt_tok *t)
{
    switch (t->letter) {
    case 'y': case 'u': case 'Y': return t->count == 2 ? 2 : 0;
    case 'S': return t->count;
    case 'n': case 'N': case 'A': return 0;
    default: return t->count >= 2 ? t->count : 0;
    }
}

/* A name of `names` (12 months or 7 days) at s: its index, its length in
 * *used; full names tried before short ones when `full` allows. */
static int match_name(const char *s, uint32_t n, const char *const *names, int k, bool full,
                      bool shrt, uint32_t *used)
{
    for (int i = 0; full && i < k; i++) {
        size_t l = strlen(names[i]);
        if (l <= n && memcmp(s, names[i], l) == 0) {
            *used = (uint32_t)l;
            return i;
        }
    }
    for (int i = 0; shrt && i < k; i++)
        if (n >= 3 && memcmp(s, names[i], 3) == 0) {
            *used = 3;
            return i;
        }
    return -1;
}

int dt_parse(const dt_pat *p, const char *s, uint32_t n, dt_parsed *f)
{
    memset(f, 0, sizeof *f);
    f->ampm = -1;
    uint32_t pos = 0;
    uint32_t opt_pos = 0;
    int opt_at = -1;
    for (int i = 0; i < p->n; i++) {
        const dt_tok *t = &p->tok[i];
        if (t->letter == '[') {
            opt_at = i;
            opt_pos = pos;
            continue;
        }
        if (t->letter == ']') {
            opt_at = -1;
            continue;
        }
        bool ok = true;
        if (t->letter == 0) {
            ok = pos + t->len <= n && memcmp(s + pos, p->text + t->off, t->len) == 0;
            if (ok)
                pos += t->len;
        } else if (!is_num_tok(t, p->sdf)) {
            uint32_t used = 0;
            int k = -1;
            switch (t->letter) {
            case 'M': case 'L':
                k = match_name(s + pos, n - pos, month_names, 12, p->sdf || t->count == 4,
                               p->sdf || t->count == 3, &used);
                if (k >= 0) {
                    f->month = k + 1;
                    f->has_month = true;
                }
                break;
            case 'E':
                k = match_name(s + pos, n - pos, day_names, 7, p->sdf || t->count == 4,
                               p->sdf || t->count <= 3, &used);
                break;
            case 'a':
                if (n - pos >= 2 && (memcmp(s + pos, "AM", 2) == 0 || memcmp(s + pos, "PM", 2) == 0)) {
                    f->ampm = s[pos] == 'P';
                    k = 0;
                    used = 2;
                }
                break;
            case 'G':
                if (n - pos >= 2 && (memcmp(s + pos, "AD", 2) == 0)) {
                    k = 0;
                    used = 2;
                }
                break;
            default: break;
            }
            ok = k >= 0;
            pos += used;
        } else {
            /* a number: how many digits it may take */
            int fw = p->sdf ? 0 : fixed_width(t);
            uint32_t most = 19, least = 1;
            if (fw) {
                most = least = (uint32_t)fw;
            } else if (p->sdf && i + 1 < p->n && is_num_tok(&p->tok[i + 1], true)) {
                most = least = t->count; /* abutting numbers: each its own width */
            } else if (!p->sdf) {
                if ((t->letter == 'y' || t->letter == 'u' || t->letter == 'Y') && t->count >= 4)
                    least = t->count;
                /* adjacent fixed-width numbers after it keep their digits */
                uint32_t reserve = 0;
                for (int j = i + 1; j < p->n && is_num_tok(&p->tok[j], false) &&
                                    fixed_width(&p->tok[j]);
                     j++)
                    reserve += (uint32_t)fixed_width(&p->tok[j]);
                uint32_t avail = 0;
                while (pos + avail < n && s[pos + avail] >= '0' && s[pos + avail] <= '9')
                    avail++;
                if (reserve && avail > reserve && avail - reserve < most)
                    most = avail - reserve;
            }
            uint32_t k = 0;
            int64_t v = 0;
            while (k < most && pos + k < n && s[pos + k] >= '0' && s[pos + k] <= '9' &&
                   v < (int64_t)1e17)
                v = v * 10 + (s[pos + k++] - '0');
            ok = k >= least;
            if (ok) {
                switch (t->letter) {
                case 'y': case 'u': case 'Y':
                    if (p->sdf ? (t->count <= 2 && k == 2) : t->count == 2)
                        v += 2000; /* a two-digit year: 2000-2099 (java.time's base) */
                    f->year = v;
                    f->has_year = true;
                    break;
                case 'M': case 'L': f->month = (int)v; f->has_month = true; break;
                case 'd': f->day = (int)v; f->has_day = true; break;
                case 'H': f->hour = (int)v; f->has_hour = true; break;
                case 'k': f->hour = v == 24 ? 0 : (int)v; f->has_hour = true; break;
                case 'h': f->hour12 = (int)v % 12; f->has_hour12 = true; break;
                case 'K': f->hour12 = (int)v; f->has_hour12 = true; break;
                case 'm': f->minute = (int)v; f->has_minute = true; break;
                case 's': f->second = (int)v; f->has_second = true; break;
                case 'S':
                    if (p->sdf) {
                        f->nano = v; /* milliseconds */
                    } else {
                        int64_t nano = v;
                        for (uint32_t z = k; z < 9; z++)
                            nano *= 10;
                        f->nano = nano;
                    }
                    break;
                case 'n': f->nano = v; break;
                default: break; /* D, w, W, e, ... read and not used */
                }
                pos += k;
            }
        }
        if (!ok) {
            if (opt_at < 0)
                return -1;
            /* an optional section that does not fit: skipped */
            pos = opt_pos;
            while (i + 1 < p->n && p->tok[i + 1].letter != ']')
                i++;
        }
    }
    if (!p->sdf && pos != n)
        return -1;
    if (f->has_hour12 && f->ampm >= 0 && !f->has_hour) {
        f->hour = f->hour12 + 12 * f->ampm;
        f->has_hour = true;
    } else if (f->has_hour12 && !f->has_hour) {
        f->hour = f->hour12;
        f->has_hour = true;
    }
    return 0;
}

int64_t dt_resolve_lenient(const dt_parsed *f)
{
    int64_t y = f->has_year ? f->year : 1970;
    int64_t m0 = (f->has_month ? f->month : 1) - 1;
    y += m0 / 12 - (m0 % 12 < 0);
    m0 = ((m0 % 12) + 12) % 12;
    int64_t days = weir__days_from_civil(y, (unsigned)m0 + 1, 1) + (f->has_day ? f->day : 1) - 1;
    return days * 86400000 + (int64_t)f->hour * 3600000 + (int64_t)f->minute * 60000 +
           (int64_t)f->second * 1000 + f->nano;
}

int dt_resolve_smart(const dt_parsed *f, int64_t *ms)
{
    int64_t y = f->has_year ? f->year : 1970;
    int m = f->has_month ? f->month : 1, d = f->has_day ? f->day : 1;
    if (m < 1 || m > 12 || d < 1 || d > 31 || y < -999999999 || y > 999999999)
        return -1;
    if ((unsigned)d > month_days(y, (unsigned)m)) {
        if (!(f->has_year && f->has_month && f->has_day))
            return -1; /* LocalDate.of refuses it */
        d = (int)month_days(y, (unsigned)m); /* SMART: the month's last day */
    }
    int extra = 0, h = f->hour;
    if (h == 24 && f->minute == 0 && f->second == 0 && f->nano == 0) {
        h = 0;
        extra = 1; /* SMART: 24:00 is the next day's start */
    }
    if (h < 0 || h > 23 || f->minute < 0 || f->minute > 59 || f->second < 0 || f->second > 59)
        return -1;
    int64_t days = weir__days_from_civil(y, (unsigned)m, (unsigned)d) + extra;
    *ms = days * 86400000 + (int64_t)h * 3600000 + (int64_t)f->minute * 60000 +
          (int64_t)f->second * 1000 + f->nano / 1000000;
    return 0;
}
