/* script.c — `weir script FILE|-`: one operator, a scripted sequence of
 * records, watermarks, idle/active changes and processing-time steps, and
 * every element it emits printed one per line (docs/SCRIPT.md is the
 * format, byte for byte).
 *
 * The whole script is parsed and checked before anything runs, so a malformed
 * line stops it with `FILE:LINE: what is wrong` (exit 2) and nothing printed.
 * Running goes through weir's harness (weir/harness.h), i.e. the real
 * operator with the real valves, combiner, gate, timers and keyed state.
 */
#include "script.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <weir.h>

#include "script_ops.h"

#define MAX_LINE 4096
#define MAX_TOKENS 32

typedef enum cmd_kind { CMD_REC, CMD_WM, CMD_IDLE, CMD_ACTIVE, CMD_TIME, CMD_END } cmd_kind;

typedef struct cmd {
    cmd_kind kind;
    int line;
    int input, channel;
    int64_t ts; /* rec: timestamp; wm: watermark; time: T */
    weir_script_rec rec;
} cmd;

typedef struct script {
    const char *file;
    weir_script_op op;
    cmd *cmds;
    size_t ncmds, cap;
} script;

static int errorf(const char *file, int line, const char *fmt, ...) WEIR_PRINTF(3, 4);

static int errorf(const char *file, int line, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    if (line > 0)
        fprintf(stderr, "%s:%d: ", file, line);
    else
        fprintf(stderr, "%s: ", file);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    return 2;
}

/* ---- parsing helpers ------------------------------------------------------ */

/* Parses a whole token as a signed 64-bit integer (or MIN/MAX if `words`).
 * Returns 0, or writes why into `why`. */
int weir_script_parse_int(const char *tok, bool words, int64_t *out, char *why, size_t whysize)
{
    if (words && strcmp(tok, "MIN") == 0) {
        *out = WEIR_TS_MIN;
        return 0;
    }
    if (words && strcmp(tok, "MAX") == 0) {
        *out = WEIR_TS_MAX;
        return 0;
    }
    const char *p = tok;
    if (*p == '+' || *p == '-')
        p++;
    if (!isdigit((unsigned char)*p)) {
        snprintf(why, whysize, "'%s' is not a number%s", tok, words ? " (nor MIN or MAX)" : "");
        return -1;
    }
    for (const char *q = p; *q; q++) {
        if (!isdigit((unsigned char)*q)) {
            snprintf(why, whysize, "'%s' is not a number%s", tok, words ? " (nor MIN or MAX)" : "");
            return -1;
        }
    }
    errno = 0;
    char *end;
    long long v = strtoll(tok, &end, 10);
    if (errno == ERANGE) {
        snprintf(why, whysize, "'%s' is out of the range of a 64-bit integer", tok);
        return -1;
    }
    *out = (int64_t)v;
    return 0;
}

int weir_script_parse_index(const char *tok, int *out, char *why, size_t whysize)
{
    if (*tok == '+' || *tok == '-') {
        snprintf(why, whysize, "'%s' has a sign (write the number alone)", tok);
        return -1;
    }
    size_t n = 0;
    for (const char *q = tok; *q; q++, n++) {
        if (!isdigit((unsigned char)*q)) {
            snprintf(why, whysize, "'%s' is not a number of digits", tok);
            return -1;
        }
    }
    if (n == 0 || n > 9) {
        snprintf(why, whysize, n ? "'%s' is too large" : "a number is missing", tok);
        return -1;
    }
    *out = atoi(tok);
    return 0;
}

static int split(char *line, char **tok)
{
    char *hash = strchr(line, '#');
    if (hash)
        *hash = '\0';
    int n = 0;
    char *save = NULL;
    for (char *t = strtok_r(line, " \t\r\n", &save); t; t = strtok_r(NULL, " \t\r\n", &save)) {
        if (n == MAX_TOKENS)
            return -1;
        tok[n++] = t;
    }
    return n;
}

static bool valid_key(const char *k)
{
    if (!*k)
        return false;
    for (const char *p = k; *p; p++) {
        if (!isalnum((unsigned char)*p) && *p != '_' && *p != '-')
            return false;
    }
    return true;
}

static int parse_channel(const script *s, int line, const char *tok, int *input, int *channel)
{
    const weir_script_op *op = &s->op;
    char why[160];
    int a, b;
    const char *dot = strchr(tok, '.');
    if (op->inputs == 1) {
        if (dot)
            return errorf(s->file, line, "channel '%s': the operator has one input, write just "
                          "the channel number", tok);
        if (weir_script_parse_index(tok, &a, why, sizeof why))
            return errorf(s->file, line, "channel %s: channels are numbered 0..%d", why,
                          op->channels[0] - 1);
        if (a >= op->channels[0])
            return errorf(s->file, line, "channel %s is out of range (the input has %d channel%s: "
                          "0..%d)", tok, op->channels[0], op->channels[0] == 1 ? "" : "s",
                          op->channels[0] - 1);
        *input = 0;
        *channel = (int)a;
        return 0;
    }
    if (!dot)
        return errorf(s->file, line, "channel '%s': the operator has two inputs, write "
                      "INPUT.CHANNEL (e.g. 0.1)", tok);
    char first[32];
    size_t len = (size_t)(dot - tok);
    if (len == 0 || len >= sizeof first)
        return errorf(s->file, line, "channel '%s' is not INPUT.CHANNEL", tok);
    memcpy(first, tok, len);
    first[len] = '\0';
    if (weir_script_parse_index(first, &a, why, sizeof why) ||
        weir_script_parse_index(dot + 1, &b, why, sizeof why))
        return errorf(s->file, line, "channel '%s' is not INPUT.CHANNEL: %s", tok, why);
    if (a > 1)
        return errorf(s->file, line, "input %s in '%s' is out of range (0 or 1)", first, tok);
    if (b >= op->channels[a])
        return errorf(s->file, line, "channel %s in '%s' is out of range (input %d"
                      " has %d channel%s: 0..%d)", dot + 1, tok, a, op->channels[a],
                      op->channels[a] == 1 ? "" : "s", op->channels[a] - 1);
    *input = a;
    *channel = b;
    return 0;
}

static int push(script *s, const cmd *c)
{
    if (s->ncmds == s->cap) {
        size_t cap = s->cap ? s->cap * 2 : 64;
        cmd *n = realloc(s->cmds, cap * sizeof *n);
        if (!n)
            return errorf(s->file, c->line, "out of memory");
        s->cmds = n;
        s->cap = cap;
    }
    s->cmds[s->ncmds++] = *c;
    return 0;
}

static int parse_command(script *s, int line, char **tok, int n, int64_t *now, bool *ended)
{
    cmd c;
    memset(&c, 0, sizeof c);
    c.line = line;
    char why[160];
    const char *name = tok[0];
    if (*ended)
        return errorf(s->file, line, "'%s' after end: the input has ended", name);
    if (strcmp(name, "rec") == 0) {
        if (n < 3)
            return errorf(s->file, line, "rec needs a channel and a timestamp: rec CH TS "
                          "[key=K] [value=V] [mark=1]");
        c.kind = CMD_REC;
        int r = parse_channel(s, line, tok[1], &c.input, &c.channel);
        if (r)
            return r;
        if (weir_script_parse_int(tok[2], true, &c.ts, why, sizeof why))
            return errorf(s->file, line, "timestamp %s", why);
        strcpy(c.rec.key, "k");
        c.rec.value = 1;
        bool seen_key = false, seen_value = false, seen_mark = false;
        for (int i = 3; i < n; i++) {
            const char *eq = strchr(tok[i], '=');
            if (!eq)
                return errorf(s->file, line, "'%s' is not key=K, value=V or mark=1", tok[i]);
            size_t klen = (size_t)(eq - tok[i]);
            const char *v = eq + 1;
            if (klen == 3 && strncmp(tok[i], "key", 3) == 0) {
                if (seen_key)
                    return errorf(s->file, line, "key given twice");
                seen_key = true;
                if (!valid_key(v))
                    return errorf(s->file, line, "key '%s': keys are words of letters, digits, "
                                  "'_' and '-'", v);
                if (strlen(v) >= sizeof c.rec.key)
                    return errorf(s->file, line, "key '%s' is longer than %zu characters", v,
                                  sizeof c.rec.key - 1);
                strcpy(c.rec.key, v);
            } else if (klen == 5 && strncmp(tok[i], "value", 5) == 0) {
                if (seen_value)
                    return errorf(s->file, line, "value given twice");
                seen_value = true;
                if (weir_script_parse_int(v, false, &c.rec.value, why, sizeof why))
                    return errorf(s->file, line, "value %s", why);
            } else if (klen == 4 && strncmp(tok[i], "mark", 4) == 0) {
                if (seen_mark)
                    return errorf(s->file, line, "mark given twice");
                seen_mark = true;
                if (strcmp(v, "1") != 0 && strcmp(v, "0") != 0)
                    return errorf(s->file, line, "mark '%s' is not 1 (or 0)", v);
                c.rec.mark = v[0] == '1';
            } else {
                return errorf(s->file, line, "unknown record field '%.*s' (expected key, value "
                              "or mark)", (int)klen, tok[i]);
            }
        }
    } else if (strcmp(name, "wm") == 0) {
        if (n != 3)
            return errorf(s->file, line, "wm needs a channel and a watermark: wm CH W");
        c.kind = CMD_WM;
        int r = parse_channel(s, line, tok[1], &c.input, &c.channel);
        if (r)
            return r;
        if (weir_script_parse_int(tok[2], true, &c.ts, why, sizeof why))
            return errorf(s->file, line, "watermark %s", why);
    } else if (strcmp(name, "idle") == 0 || strcmp(name, "active") == 0) {
        if (n != 2)
            return errorf(s->file, line, "%s needs exactly a channel: %s CH", name, name);
        c.kind = name[0] == 'i' ? CMD_IDLE : CMD_ACTIVE;
        int r = parse_channel(s, line, tok[1], &c.input, &c.channel);
        if (r)
            return r;
    } else if (strcmp(name, "time") == 0) {
        if (n != 2)
            return errorf(s->file, line, "time needs exactly one time: time T");
        c.kind = CMD_TIME;
        if (weir_script_parse_int(tok[1], false, &c.ts, why, sizeof why))
            return errorf(s->file, line, "time %s", why);
        if (c.ts < *now)
            return errorf(s->file, line, "time %" PRId64 " is before the current time %" PRId64
                          " (time only moves forward)", c.ts, *now);
        *now = c.ts;
    } else if (strcmp(name, "end") == 0) {
        if (n != 1)
            return errorf(s->file, line, "end takes no arguments");
        c.kind = CMD_END;
        *ended = true;
    } else if (strcmp(name, "op") == 0) {
        return errorf(s->file, line, "a second 'op': a script runs one operator");
    } else {
        return errorf(s->file, line, "unknown command '%s' (expected rec, wm, idle, active, "
                      "time or end)", name);
    }
    return push(s, &c);
}

static int parse(script *s, FILE *in)
{
    char buf[MAX_LINE + 2];
    char *tok[MAX_TOKENS];
    int line = 0;
    bool have_op = false, ended = false;
    int64_t now = 0;
    while (fgets(buf, sizeof buf, in)) {
        line++;
        size_t len = strlen(buf);
        if (len == sizeof buf - 1 && buf[len - 1] != '\n')
            return errorf(s->file, line, "line longer than %d characters", MAX_LINE);
        int n = split(buf, tok);
        if (n < 0)
            return errorf(s->file, line, "more than %d words on one line", MAX_TOKENS);
        if (n == 0)
            continue;
        if (!have_op) {
            if (strcmp(tok[0], "op") != 0)
                return errorf(s->file, line, "the first statement must declare the operator "
                              "(op passthrough|timestamps|window ...), not '%s'", tok[0]);
            char why[256];
            int err_line = line;
            if (weir_script_op_parse(&s->op, tok + 1, n - 1, why, sizeof why))
                return errorf(s->file, err_line, "%s", why);
            s->op.line = line;
            have_op = true;
            continue;
        }
        int r = parse_command(s, line, tok, n, &now, &ended);
        if (r)
            return r;
    }
    /* Not a malformed script: the file could not be read (exit 1, as the
     * usage says; 2 is kept for what is wrong in the script itself). */
    if (ferror(in)) {
        errorf(s->file, 0, "read error: %s", strerror(errno));
        return 1;
    }
    /* Reported at the last line (line 1 for an empty file), so that the
     * message keeps the FILE:LINE: form of every other one. */
    if (!have_op)
        return errorf(s->file, line > 0 ? line : 1, "no operator: the script has no statement "
                      "(its first statement must be 'op ...')");
    return 0;
}

/* ---- running -------------------------------------------------------------- */

static int run(script *s)
{
    weir_harness *h;
    char why[1024];
    int r = weir_script_op_harness(&s->op, &h, why, sizeof why);
    if (r)
        return errorf(s->file, s->op.line, "%s", why);
    for (size_t i = 0; i < s->ncmds && r == 0; i++) {
        const cmd *c = &s->cmds[i];
        switch (c->kind) {
        case CMD_REC:
            r = weir_harness_record(h, c->input, c->channel, &c->rec, c->ts);
            break;
        case CMD_WM:
            r = weir_harness_watermark(h, c->input, c->channel, c->ts);
            break;
        case CMD_IDLE:
            r = weir_harness_idle(h, c->input, c->channel);
            break;
        case CMD_ACTIVE:
            r = weir_harness_active(h, c->input, c->channel);
            break;
        case CMD_TIME:
            r = weir_harness_advance(h, c->ts);
            break;
        case CMD_END:
            r = weir_harness_end(h);
            break;
        }
        if (r) {
            fflush(stdout);
            errorf(s->file, c->line, "%s", weir_harness_last_error(h));
        }
    }
    weir_harness_destroy(h);
    fflush(stdout);
    return r ? 1 : 0;
}

int weir_script_main(int argc, char **argv)
{
    if (argc != 2 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
        FILE *out = argc == 2 ? stdout : stderr;
        fprintf(out,
                "usage: weir script FILE|-\n"
                "Runs one operator on a scripted input (records, watermarks, idle/active,\n"
                "processing time) on a virtual clock and prints everything it emits.\n"
                "The format is documented in docs/SCRIPT.md. Exit status: 0 ran, 1 the\n"
                "operator failed or the file could not be read, 2 malformed script or\n"
                "invalid operator setting (FILE:LINE: reason on standard error).\n");
        return argc == 2 ? 0 : 2;
    }
    script s;
    memset(&s, 0, sizeof s);
    FILE *in = stdin;
    s.file = "<stdin>";
    if (strcmp(argv[1], "-") != 0) {
        s.file = argv[1];
        in = fopen(argv[1], "r");
        if (!in) {
            fprintf(stderr, "%s: cannot open: %s\n", argv[1], strerror(errno));
            return 1;
        }
    }
    int r = parse(&s, in);
    if (in != stdin)
        fclose(in);
    if (r == 0)
        r = run(&s);
    free(s.cmds);
    return r;
}
