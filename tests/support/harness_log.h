/* harness_log.h — what an operator under the harness (weir/harness.h) emitted,
 * as one line of text, for the timestamps and idleness suites.
 *
 * Every output becomes a word: a record "r<TS>", a watermark "w<W>@<NOW>",
 * idle "i@<NOW>", active "a@<NOW>" (NOW is the harness's processing time
 * when it left; MIN and MAX are printed as words). A test states the whole
 * expected line, so a failure shows both sequences in full: what came out,
 * in which order and at which processing time. Watermark and status times
 * matter for these operators (probes run on the clock); record times do
 * not, so records carry none.
 *
 * Static (inline) like weir_testutil.h: each Criterion binary gets its own
 * copy. Not a test file itself.
 */
#ifndef WEIR_TESTS_HARNESS_LOG_H
#define WEIR_TESTS_HARNESS_LOG_H

#include <criterion/criterion.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "weir.h"

#define HL_TEXT 8192

typedef struct hl_log {
    char text[HL_TEXT];
    size_t len;
    int records, watermarks, idles, actives;
    bool idle;                  /* the output's status, as the log saw it */
    const weir_harness *h;      /* for the time; set once created */
} hl_log;

/* Appends one word: kind 'r' (value only), 'w' (value and time), 'i' or 'a'
 * (time only). */
static inline void hl_word(hl_log *l, char kind, int64_t value, int64_t now)
{
    char tv[21], tn[21], word[64];
    weir_ts_format(value, tv);
    weir_ts_format(now, tn);
    if (kind == 'r')
        snprintf(word, sizeof word, "r%s", tv);
    else if (kind == 'w')
        snprintf(word, sizeof word, "w%s@%s", tv, tn);
    else
        snprintf(word, sizeof word, "%c@%s", kind, tn);
    size_t n = strlen(word);
    if (l->len + n + 2 >= sizeof l->text)
        return; /* a test that overflows this fails on the comparison anyway */
    if (l->len)
        l->text[l->len++] = ' ';
    memcpy(l->text + l->len, word, n + 1);
    l->len += n;
}

static inline int64_t hl_now(const hl_log *l)
{
    return l->h ? weir_harness_now(l->h) : 0;
}

static inline void hl_on_record(int tag, const void *elem, int64_t ts, void *arg)
{
    (void)tag;
    (void)elem;
    hl_log *l = arg;
    l->records++;
    hl_word(l, 'r', ts, 0);
}

static inline void hl_on_watermark(int64_t wm, void *arg)
{
    hl_log *l = arg;
    l->watermarks++;
    hl_word(l, 'w', wm, hl_now(l));
}

static inline void hl_on_status(bool idle, void *arg)
{
    hl_log *l = arg;
    if (idle)
        l->idles++;
    else
        l->actives++;
    l->idle = idle;
    hl_word(l, idle ? 'i' : 'a', 0, hl_now(l));
}

static inline weir_harness_output hl_output(hl_log *l)
{
    return (weir_harness_output){.on_record = hl_on_record,
                                 .on_watermark = hl_on_watermark,
                                 .on_status = hl_on_status,
                                 .arg = l};
}

/* A harness of one input with `channels` channels of `in_size` bytes around
 * `op` (ownership of op->arg passes to it), logging into `l`; fails the test
 * if creation fails. */
static inline weir_harness *hl_create(const weir_process_spec *op, size_t in_size, int channels,
                                      int64_t interval, hl_log *l)
{
    memset(l, 0, sizeof *l);
    weir_harness_config cfg = {.op = op,
                               .channels = {channels},
                               .in_size = {in_size},
                               .watermark_interval_ms = interval,
                               .output = hl_output(l)};
    weir_harness *h = NULL;
    char why[256] = "";
    int r = weir_harness_create(&cfg, &h, why, sizeof why);
    cr_assert_eq(r, 0, "weir_harness_create: %s (%s)", weir_strerror(r), why);
    l->h = h;
    return h;
}

#define hl_ok(call)                                                                               \
    do {                                                                                          \
        int hl_r_ = (call);                                                                       \
        cr_assert_eq(hl_r_, 0, "%s returned %d (%s)", #call, hl_r_, weir_strerror(hl_r_));         \
    } while (0)

#define hl_expect(l, expected)                                                                    \
    cr_assert_str_eq((l)->text, (expected), "emitted\n  \"%s\"\nexpected\n  \"%s\"", (l)->text,   \
                     (expected))

#endif
