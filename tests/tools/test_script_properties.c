/* test_script_properties.c — random `weir script` scripts against the
 * properties that hold whatever the details of the rules (issue 12's
 * "Also"): a seeded generator writes thousands of valid scripts for every
 * operator kind (passthrough of one or two inputs, timestamps with every
 * strategy, interval and idleness, windows of every assigner, lateness,
 * trigger and late mode), with disorder, idle/active changes, MAX on some
 * channels, processing-time steps small and huge (up to MAX), and an end or
 * none. Each script runs three times: command by command through the
 * script tool's own operator and harness (tools/script_ops.c, so that every
 * output line is known to come from one input command), and twice as a file
 * through weir_script_main, the `weir script` command itself. Checked:
 *
 *   - the three outputs are the same (the same script gives the same output);
 *   - the watermarks out of the operator strictly increase;
 *   - after MAX nothing leaves but statuses, and the records (or late/drop
 *     elements) of records that arrive after it;
 *   - every record in comes out: passthrough and timestamps forward each one
 *     at once, unchanged, and nothing else prints a record; a window accounts
 *     for each one — in the windows (their final counts add up to the
 *     records they took, after `end`), late (side output) or dropped, once;
 *   - a window result carries end - 1 and leaves before its watermark;
 *   - no script hangs: each has a time limit (SCRIPT_LIMIT_S, generous: a
 *     script runs in microseconds), past which the test stops with the
 *     script on standard error.
 *
 * Bound: SCRIPTS scripts of at most 48 commands, three runs each; measured
 * on the 2-core machine about 1 s in Release and 16 s under ASan with other
 * builds loading it (load 7), and the test stops at 240 s whatever happens
 * (.timeout), besides each script's own limit. WEIR_SCRIPT_SEED and
 * WEIR_SCRIPT_COUNT in the environment pick another seed and count (a
 * longer soak, or a failing seed replayed).
 */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "script.h"
#include "script_ops.h"

#define SCRIPTS 3000
#define MAX_CMDS 48
#define SCRIPT_LIMIT_S 20
#define TEXT_CAP 8192
#define OUT_CAP (1 << 16)

/* ---- the generator ------------------------------------------------------------- */

static uint64_t rng;

static uint64_t next_u64(void)
{
    /* splitmix64 */
    uint64_t z = (rng += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static int64_t rnd(int64_t n)
{
    return (int64_t)(next_u64() % (uint64_t)n);
}

static bool chance(int percent)
{
    return rnd(100) < percent;
}

typedef enum { C_REC, C_WM, C_IDLE, C_ACTIVE, C_TIME, C_END } cmd_kind;

typedef struct cmd {
    cmd_kind kind;
    int input, channel;
    int64_t v; /* rec: timestamp; wm: watermark; time: T */
    weir_script_rec rec;
} cmd;

typedef struct script {
    char op_words[8][64];
    int nwords;
    weir_script_kind kind;
    int inputs, channels[2];
    bool global, purging, sliding, session, late_side;
    cmd cmds[MAX_CMDS];
    int ncmds;
    bool ended;
    char text[TEXT_CAP];
    size_t len;
} script;

static void text_add(script *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void text_add(script *s, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(s->text + s->len, TEXT_CAP - s->len, fmt, ap);
    va_end(ap);
    cr_assert(n >= 0 && (size_t)n < TEXT_CAP - s->len, "a generated script outgrew its buffer");
    s->len += (size_t)n;
}

static void word(script *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void word(script *s, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(s->op_words[s->nwords++], sizeof s->op_words[0], fmt, ap);
    va_end(ap);
}

static void gen_op(script *s)
{
    memset(s, 0, sizeof *s);
    switch (rnd(3)) {
    case 0:
        s->kind = WEIR_SCRIPT_PASSTHROUGH;
        word(s, "passthrough");
        s->inputs = chance(30) ? 2 : 1;
        s->channels[0] = 1 + (int)rnd(3);
        s->channels[1] = 1 + (int)rnd(2);
        if (s->inputs == 2)
            word(s, "inputs=%d+%d", s->channels[0], s->channels[1]);
        else
            word(s, "inputs=%d", s->channels[0]);
        break;
    case 1: {
        s->kind = WEIR_SCRIPT_TIMESTAMPS;
        s->inputs = 1;
        s->channels[0] = 1;
        word(s, "timestamps");
        static const char *strategies[] = {"ascending", "punctuated", "none"};
        int64_t k = rnd(4);
        if (k == 3)
            word(s, "strategy=bounded:%" PRId64, rnd(4) == 0 ? 0 : rnd(300));
        else
            word(s, "strategy=%s", strategies[k]);
        if (chance(70))
            word(s, "interval=%" PRId64, chance(10) ? 0 : 1 + rnd(300));
        if (chance(60))
            word(s, "idleness=%" PRId64, 1 + rnd(chance(20) ? 5 : 600));
        break;
    }
    default: {
        s->kind = WEIR_SCRIPT_WINDOW;
        s->inputs = 1;
        s->channels[0] = 1; /* a script's window has one input channel */
        word(s, "window");
        switch (rnd(4)) {
        case 0:
            word(s, "assign=tumbling:%" PRId64, 10 + rnd(200));
            break;
        case 1: {
            /* the size a multiple of the slide: every element lies in size /
             * slide windows, none falls between two */
            int64_t slide = 10 + rnd(100);
            word(s, "assign=sliding:%" PRId64 ":%" PRId64, slide * (1 + rnd(4)), slide);
            s->sliding = true;
            break;
        }
        case 2:
            word(s, "assign=session:%" PRId64, 1 + rnd(150));
            s->session = true;
            break;
        default:
            word(s, "assign=global");
            s->global = true;
            break;
        }
        if (chance(50))
            word(s, "lateness=%" PRId64, rnd(300));
        if (chance(40)) {
            word(s, "trigger=purging");
            s->purging = true;
        }
        word(s, "fn=count");
        s->late_side = chance(50);
        word(s, "late=%s", s->late_side ? "side" : "drop");
        break;
    }
    }
    if (s->inputs == 0)
        s->inputs = 1;
    text_add(s, "op");
    for (int i = 0; i < s->nwords; i++)
        text_add(s, " %s", s->op_words[i]);
    text_add(s, "\n");
}

static void channel_text(const script *s, const cmd *c, char *buf, size_t size)
{
    if (s->inputs == 2)
        snprintf(buf, size, "%d.%d", c->input, c->channel);
    else
        snprintf(buf, size, "%d", c->channel);
}

static const char *ts_word(int64_t v, char *buf)
{
    return weir_ts_format(v, buf);
}

static void gen_cmds(script *s)
{
    int64_t now = 0, et = rnd(1000) - 200;
    bool at_max[2][4] = {{false}};
    int n = 1 + (int)rnd(MAX_CMDS - 1);
    static const char *keys[] = {"k", "a", "b", "c"};
    for (int i = 0; i < n; i++) {
        cmd *c = &s->cmds[s->ncmds];
        memset(c, 0, sizeof *c);
        c->input = s->inputs == 2 ? (int)rnd(2) : 0;
        c->channel = (int)rnd(s->channels[c->input]);
        int64_t k = rnd(100);
        char ch[16], b1[24];
        channel_text(s, c, ch, sizeof ch);
        /* A channel that sent MAX mostly sends nothing more; now and then
         * a record still comes (an element after MAX, as a union's late
         * channel can send). */
        bool done = at_max[c->input][c->channel];
        if (k < 45 && (!done || chance(30))) {
            c->kind = C_REC;
            et += rnd(60) - 15;
            c->v = et - (chance(25) ? rnd(400) : 0);
            if (s->kind != WEIR_SCRIPT_WINDOW && chance(3))
                c->v = chance(50) ? INT64_MIN : INT64_MAX;
            strcpy(c->rec.key, keys[rnd(4)]);
            c->rec.value = 1;
            c->rec.mark = chance(30);
            text_add(s, "rec %s %s key=%s%s\n", ch, ts_word(c->v, b1), c->rec.key,
                     c->rec.mark ? " mark=1" : "");
        } else if (k < 65 && !done) {
            c->kind = C_WM;
            c->v = chance(6) ? INT64_MAX : et - rnd(300);
            if (c->v == INT64_MAX)
                at_max[c->input][c->channel] = true;
            text_add(s, "wm %s %s\n", ch, ts_word(c->v, b1));
        } else if (k < 72) {
            c->kind = C_IDLE;
            text_add(s, "idle %s\n", ch);
        } else if (k < 79) {
            c->kind = C_ACTIVE;
            text_add(s, "active %s\n", ch);
        } else {
            c->kind = C_TIME;
            int64_t j = rnd(100);
            if (j < 4)
                now = INT64_MAX;
            else if (j < 8 && now < 4000000000000000000)
                now += 1000000000000000000 + rnd(1000);
            else if (now <= INT64_MAX - 1000)
                now += rnd(j < 70 ? 150 : 1000);
            c->v = now;
            text_add(s, "time %" PRId64 "\n", now);
        }
        s->ncmds++;
    }
    if (s->ncmds < MAX_CMDS && chance(75)) {
        s->cmds[s->ncmds++] = (cmd){.kind = C_END};
        s->ended = true;
        text_add(s, "end\n");
    }
}

/* ---- running ------------------------------------------------------------------- */

/* Standard output goes to a scratch file while a script runs; the bytes each
 * command added are read back from it after that command. */
static int out_fd = -1, out_rd = -1, saved_stdout = -1;
static char script_path[64];
static const script *current;

static void on_time_limit(int sig)
{
    (void)sig;
    static const char msg[] = "\ntest_script_properties: a script ran past its time limit:\n";
    if (write(2, msg, sizeof msg - 1) < 0 || (current && write(2, current->text, current->len) < 0))
        _exit(3);
    _exit(3);
}

static void capture_start(void)
{
    fflush(stdout);
    cr_assert_eq(ftruncate(out_fd, 0), 0);
    cr_assert_eq(lseek(out_fd, 0, SEEK_SET), 0);
    dup2(out_fd, STDOUT_FILENO);
}

/* What standard output got since `*off`, appended to buf. */
static void capture_take(char *buf, size_t *len, off_t *off)
{
    fflush(stdout);
    for (;;) {
        cr_assert_lt(*len, (size_t)OUT_CAP - 1, "a script printed more than %d bytes", OUT_CAP);
        ssize_t n = pread(out_rd, buf + *len, OUT_CAP - 1 - *len, *off);
        cr_assert_geq(n, 0);
        if (n == 0)
            break;
        *len += (size_t)n;
        *off += n;
    }
    buf[*len] = '\0';
}

static void capture_stop(void)
{
    fflush(stdout);
    dup2(saved_stdout, STDOUT_FILENO);
}

typedef struct run_out {
    char text[OUT_CAP];
    size_t len;
    /* per command: where its output starts in text (cmds + 1 entries) */
    size_t at[MAX_CMDS + 1];
} run_out;

/* Command by command through the script tool's harness. */
static void run_driver(const script *s, run_out *o)
{
    weir_script_op op;
    char *words[8];
    char copy[8][64];
    for (int i = 0; i < s->nwords; i++) {
        memcpy(copy[i], s->op_words[i], sizeof copy[i]);
        words[i] = copy[i];
    }
    char why[512] = "";
    cr_assert_eq(weir_script_op_parse(&op, words, s->nwords, why, sizeof why), 0,
                 "the generator wrote a bad op: %s\n%s", why, s->text);
    weir_harness *h = NULL;
    cr_assert_eq(weir_script_op_harness(&op, &h, why, sizeof why), 0, "%s\n%s", why, s->text);
    o->len = 0;
    off_t off = 0;
    capture_start();
    for (int i = 0; i < s->ncmds; i++) {
        const cmd *c = &s->cmds[i];
        int r = 0;
        switch (c->kind) {
        case C_REC:
            r = weir_harness_record(h, c->input, c->channel, &c->rec, c->v);
            break;
        case C_WM:
            r = weir_harness_watermark(h, c->input, c->channel, c->v);
            break;
        case C_IDLE:
            r = weir_harness_idle(h, c->input, c->channel);
            break;
        case C_ACTIVE:
            r = weir_harness_active(h, c->input, c->channel);
            break;
        case C_TIME:
            r = weir_harness_advance(h, c->v);
            break;
        case C_END:
            r = weir_harness_end(h);
            break;
        }
        o->at[i] = o->len;
        capture_take(o->text, &o->len, &off);
        if (r != 0) {
            capture_stop();
            cr_assert_fail("command %d failed (%d): %s\n%s", i + 1, r, weir_harness_last_error(h),
                           s->text);
        }
    }
    o->at[s->ncmds] = o->len;
    capture_stop();
    weir_harness_destroy(h);
}

/* The script as a file through `weir script`'s own entry point. */
static void run_main(const script *s, char *out, size_t *len)
{
    FILE *f = fopen(script_path, "w");
    cr_assert_not_null(f);
    cr_assert_eq(fwrite(s->text, 1, s->len, f), s->len);
    cr_assert_eq(fclose(f), 0);
    char *argv[] = {"script", script_path, NULL};
    *len = 0;
    off_t off = 0;
    capture_start();
    int r = weir_script_main(2, argv);
    capture_take(out, len, &off);
    capture_stop();
    cr_assert_eq(r, 0, "weir script exited %d on:\n%s", r, s->text);
}

/* ---- the properties ------------------------------------------------------------ */

typedef struct line {
    char what[8]; /* rec late drop wm idle active */
    int64_t ts;   /* rec/late/drop: TS; wm: W */
    char key[32];
    int64_t value;
    bool window, global;
    int64_t start, end;
} line;

static int64_t parse_ts(const char *t)
{
    if (strcmp(t, "MIN") == 0)
        return INT64_MIN;
    if (strcmp(t, "MAX") == 0)
        return INT64_MAX;
    return strtoll(t, NULL, 10);
}

static line parse_line(const char *p, const char *end, const script *s)
{
    char buf[256];
    size_t n = (size_t)(end - p);
    cr_assert_lt(n, sizeof buf);
    memcpy(buf, p, n);
    buf[n] = '\0';
    line l;
    memset(&l, 0, sizeof l);
    char ts[32] = "", key[40] = "", win[64] = "";
    int k = sscanf(buf, "%7s %31s key=%39s value=%" SCNd64 " window=%63s", l.what, ts, key,
                   &l.value, win);
    cr_assert_geq(k, 1, "empty output line in:\n%s", s->text);
    if (strcmp(l.what, "wm") == 0) {
        cr_assert_eq(k, 2, "bad line '%s'", buf);
        l.ts = parse_ts(ts);
    } else if (strcmp(l.what, "idle") == 0 || strcmp(l.what, "active") == 0) {
        cr_assert_eq(k, 1, "bad line '%s'", buf);
    } else {
        cr_assert(strcmp(l.what, "rec") == 0 || strcmp(l.what, "late") == 0 ||
                      strcmp(l.what, "drop") == 0,
                  "unknown output line '%s' in:\n%s", buf, s->text);
        cr_assert_geq(k, 4, "bad line '%s'", buf);
        l.ts = parse_ts(ts);
        snprintf(l.key, sizeof l.key, "%s", key);
        if (k == 5) {
            l.window = true;
            if (strcmp(win, "global") == 0) {
                l.global = true;
            } else {
                char a[24], b[24];
                cr_assert_eq(sscanf(win, "%23[^,],%23s", a, b), 2, "bad window in '%s'", buf);
                l.start = parse_ts(a);
                l.end = parse_ts(b);
            }
        }
    }
    return l;
}

typedef struct fired {
    char key[32];
    int64_t start, end;
    int64_t last, sum;
    bool global;
} fired;

static bool same_element(const line *l, const cmd *c)
{
    return l->ts == c->v && strcmp(l->key, c->rec.key) == 0 && l->value == c->rec.value;
}

static void check(const script *s, const run_out *o)
{
    static fired win[MAX_CMDS * 8];
    int nwin = 0;
    bool max_out = false;
    int64_t last_wm = INT64_MIN;
    bool any_wm = false;
    int64_t in = 0, late = 0, joined_after_max = 0;
    for (int i = 0; i < s->ncmds; i++) {
        const cmd *c = &s->cmds[i];
        const char *p = o->text + o->at[i], *stop = o->text + o->at[i + 1];
        int recs = 0, lates = 0;
        bool wm_here = false;
        bool max_before = max_out;
        if (c->kind == C_REC)
            in++;
        while (p < stop) {
            const char *nl = memchr(p, '\n', (size_t)(stop - p));
            cr_assert_not_null(nl, "an output line without its newline:\n%s", s->text);
            line l = parse_line(p, nl, s);
            p = nl + 1;
            const char *where = s->text;
            if (strcmp(l.what, "wm") == 0) {
                cr_assert(!any_wm || l.ts > last_wm, "command %d: wm %" PRId64 " after wm %"
                          PRId64 ": watermarks must strictly increase\n%s", i + 1, l.ts, last_wm,
                          where);
                any_wm = true;
                last_wm = l.ts;
                wm_here = true;
                if (l.ts == INT64_MAX)
                    max_out = true;
                continue;
            }
            if (strcmp(l.what, "idle") == 0 || strcmp(l.what, "active") == 0)
                continue;
            /* a record, late or dropped element */
            cr_assert(!wm_here, "command %d: '%s' after the watermark it came with: results "
                      "come before their watermark\n%s", i + 1, l.what, where);
            if (max_out)
                cr_assert(c->kind == C_REC && !l.window, "command %d: '%s' after MAX from "
                          "something that is not a record of its own\n%s", i + 1, l.what, where);
            if (s->kind != WEIR_SCRIPT_WINDOW) {
                cr_assert(c->kind == C_REC && strcmp(l.what, "rec") == 0 && recs == 0 &&
                              same_element(&l, c),
                          "command %d: a record out that is not the record in, at once and "
                          "unchanged\n%s", i + 1, where);
                recs++;
                continue;
            }
            if (!l.window) {
                cr_assert(c->kind == C_REC && lates == 0 && same_element(&l, c) &&
                              strcmp(l.what, s->late_side ? "late" : "drop") == 0,
                          "command %d: a %s element that is not the record in, once, as the "
                          "op's late= says\n%s", i + 1, l.what, where);
                lates++;
                late++;
                continue;
            }
            /* a window result */
            cr_assert_eq(l.global, s->global, "command %d: the window kind\n%s", i + 1, where);
            if (!l.global)
                cr_assert(l.end == INT64_MAX ? l.ts == INT64_MAX : l.ts == l.end - 1,
                          "command %d: a result of [%" PRId64 ",%" PRId64 ") at %" PRId64
                          ", not end - 1\n%s", i + 1, l.start, l.end, l.ts, where);
            else
                cr_assert_eq(l.ts, INT64_MAX, "command %d: a global result not at MAX\n%s",
                             i + 1, where);
            cr_assert_gt(l.value, 0, "command %d: an empty window fired\n%s", i + 1, where);
            int w = 0;
            while (w < nwin && !(strcmp(win[w].key, l.key) == 0 && win[w].start == l.start &&
                                 win[w].end == l.end))
                w++;
            if (w == nwin) {
                cr_assert_lt(nwin, (int)(sizeof win / sizeof win[0]));
                win[nwin] = (fired){.start = l.start, .end = l.end, .global = l.global};
                snprintf(win[nwin].key, sizeof win[nwin].key, "%s", l.key);
                nwin++;
            }
            win[w].last = l.value;
            win[w].sum += l.value;
        }
        if (c->kind == C_REC && s->kind == WEIR_SCRIPT_PASSTHROUGH)
            cr_assert_eq(recs, 1, "command %d: the record did not pass at once\n%s", i + 1,
                         s->text);
        if (c->kind == C_REC && s->kind == WEIR_SCRIPT_TIMESTAMPS)
            cr_assert_eq(recs, 1, "command %d: the record was not forwarded at once\n%s", i + 1,
                         s->text);
        if (c->kind == C_REC && s->kind == WEIR_SCRIPT_WINDOW && max_before) {
            /* After MAX: the global window takes it silently; every other
             * window is past its cleanup, so it is late. */
            if (s->global) {
                cr_assert_eq(lates, 0, "command %d: a global window's element was late\n%s",
                             i + 1, s->text);
                joined_after_max++;
            } else {
                cr_assert_eq(lates, 1, "command %d: an element after MAX was not late\n%s",
                             i + 1, s->text);
            }
        }
        if (c->kind == C_END)
            cr_assert(max_out, "the end did not bring MAX\n%s", s->text);
    }
    if (s->kind != WEIR_SCRIPT_WINDOW || !s->ended)
        return;
    /* Every record is accounted for: the windows' final contents add up to
     * what they took. Without purging a window's last firing has its whole
     * contents, and a session merged into a later one is covered by it;
     * with purging every firing emptied the window. */
    int64_t taken = in - late - joined_after_max, total = 0;
    for (int w = 0; w < nwin; w++) {
        if (s->purging) {
            total += win[w].sum;
            continue;
        }
        bool covered = false;
        for (int v = 0; s->session && v < nwin && !covered; v++)
            covered = v != w && strcmp(win[v].key, win[w].key) == 0 &&
                      win[v].start <= win[w].start && win[v].end >= win[w].end;
        if (!covered)
            total += win[w].last;
    }
    if (s->sliding)
        cr_assert(total >= taken, "the windows hold %" PRId64 " records, fewer than the %" PRId64
                  " they took\n%s", total, taken, s->text);
    else
        cr_assert_eq(total, taken, "the windows hold %" PRId64 " records, not the %" PRId64
                     " in that were neither late nor dropped\n%s", total, taken, s->text);
}

/* ---- the test ------------------------------------------------------------------ */

static uint64_t env_u64(const char *name, uint64_t dflt)
{
    const char *v = getenv(name);
    return v && *v ? strtoull(v, NULL, 0) : dflt;
}

Test(script_properties, random_scripts, .timeout = 240)
{
    uint64_t seed = env_u64("WEIR_SCRIPT_SEED", 12);
    uint64_t count = env_u64("WEIR_SCRIPT_COUNT", SCRIPTS);
    char out_path[] = "/tmp/weir_script_props_out_XXXXXX";
    out_fd = mkstemp(out_path);
    cr_assert_geq(out_fd, 0);
    out_rd = open(out_path, O_RDONLY);
    cr_assert_geq(out_rd, 0);
    unlink(out_path);
    snprintf(script_path, sizeof script_path, "/tmp/weir_script_props_%d.weir", (int)getpid());
    saved_stdout = dup(STDOUT_FILENO);
    cr_assert_geq(saved_stdout, 0);
    signal(SIGALRM, on_time_limit);

    static script s;
    static run_out driver, main1, main2;
    int kinds[3] = {0};
    for (uint64_t i = 0; i < count; i++) {
        rng = seed * 1000003u + i;
        gen_op(&s);
        gen_cmds(&s);
        kinds[s.kind]++;
        current = &s;
        alarm(SCRIPT_LIMIT_S);
        run_driver(&s, &driver);
        run_main(&s, main1.text, &main1.len);
        run_main(&s, main2.text, &main2.len);
        alarm(0);
        cr_assert_str_eq(main1.text, main2.text, "script %" PRIu64 " (seed %" PRIu64 "): two runs "
                         "differ\n%s", i, seed, s.text);
        cr_assert_str_eq(driver.text, main1.text, "script %" PRIu64 " (seed %" PRIu64 "): weir "
                         "script and the command-by-command run differ\n%s", i, seed, s.text);
        check(&s, &driver);
    }
    current = NULL;
    unlink(script_path);
    close(out_fd);
    close(out_rd);
    close(saved_stdout);
    /* every kind ran, many times */
    for (int k = 0; k < 3; k++)
        cr_assert_gt(kinds[k], (int)(count / 6), "operator kind %d ran only %d times", k,
                     kinds[k]);
}
