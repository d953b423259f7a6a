/* script.c — `weir script FILE|-`: one operator, a scripted sequence of
 * records, watermarks, idle/active changes and processing-time steps, and
 * every element it emits printed one per line (docs/SCRIPT.md is the
 * format, byte for byte).
 *
 * A script is read one line at a time and nothing of it is kept: memory is
 * the same for ten lines and for an endless `yes 'rec 0 5' |`. A regular
 * file (named, or on standard input) is read twice: the first pass checks
 * every line and keeps nothing, so that a malformed line stops it with
 * `FILE:LINE: what is wrong` (exit 2) before anything runs; the second pass
 * parses again and runs each command as it is read. A pipe, FIFO or
 * terminal cannot be read twice, so it is run as it is read: a malformed line
 * still stops it with the same message and exit 2, after the output of the
 * lines before it (docs/SCRIPT.md says so).
 *
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
#include <sys/stat.h>

#include <weir.h>

#include "message.h"
#include "script_ops.h"
#include "script_parse.h"

#define MAX_LINE 4096
#define MAX_TOKENS 32

typedef enum cmd_kind { CMD_REC, CMD_WM, CMD_IDLE, CMD_ACTIVE, CMD_TIME, CMD_END } cmd_kind;

typedef struct cmd {
    cmd_kind kind;
    int input, channel;
    int64_t ts; /* rec: timestamp; wm: watermark; time: T */
    weir_script_rec rec;
} cmd;

/* One pass over the script: the reader, what the lines so far declared
 * (the operator, the time, whether the input ended) and, when running, the
 * harness. Nothing per line is kept. */
typedef struct script {
    const char *file;
    FILE *in;
    uint64_t line; /* 64-bit: a streamed script may have more than 2^31 lines */
    weir_script_op op;
    bool have_op, ended;
    int64_t now;
    weir_harness *h; /* NULL in a checking pass */
    bool run;
    char buf[MAX_LINE + 1];
} script;

static int errorf(const char *file, uint64_t line, const char *fmt, ...) WEIR_PRINTF(3, 4);

/* Every message is FILE:LINE: what is wrong, escaped (message.h): a script
 * is any bytes, and its tokens are echoed. Returns 2, the status of a
 * malformed script. */
static int errorf(const char *file, uint64_t line, const char *fmt, ...)
{
    char prefix[64];
    va_list ap;
    va_start(ap, fmt);
    if (line > 0)
        snprintf(prefix, sizeof prefix, ":%" PRIu64 ": ", line);
    else
        snprintf(prefix, sizeof prefix, ": ");
    weir_tool_escape(stderr, file, strlen(file));
    weir_tool_errorv(prefix, fmt, ap);
    va_end(ap);
    return 2;
}

/* The exit status for a weir error code met while parsing or building the
 * operator: out of memory is not a malformed script (1, not 2). */
static int status_of(int err)
{
    return err == WEIR_ENOMEM ? 1 : 2;
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

static int parse_channel(const script *s, uint64_t line, const char *tok, int *input, int *channel)
{
    const weir_script_op *op = &s->op;
    char why[WEIR_SCRIPT_WHY];
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

/* Output written while the script runs goes through stdout's buffer; a
 * write that failed (a full disk, a pipe whose reader has gone, with SIGPIPE
 * ignored) leaves its error flag, checked after every command: the script
 * stops at once (exit 1) rather than run on into a closed pipe, and weir's
 * exit, which flushes standard output, says why (weir.c). */
static bool output_failed(void)
{
    return ferror(stdout) != 0;
}

/* Runs one command on the harness; a failing operator stops the script
 * with its message at the command's line (exit 1). */
static int run_command(script *s, const cmd *c)
{
    weir_harness *h = s->h;
    int r = 0;
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
    if (r == 0)
        return output_failed() ? 1 : 0;
    fflush(stdout);
    errorf(s->file, s->line, "%s", weir_harness_last_error(h));
    return 1;
}

static int parse_command(script *s, char **tok, int n)
{
    cmd c;
    memset(&c, 0, sizeof c);
    uint64_t line = s->line;
    char why[WEIR_SCRIPT_WHY];
    const char *name = tok[0];
    if (s->ended)
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
        if (c.ts < s->now)
            return errorf(s->file, line, "time %" PRId64 " is before the current time %" PRId64
                          " (time only moves forward)", c.ts, s->now);
        s->now = c.ts;
    } else if (strcmp(name, "end") == 0) {
        if (n != 1)
            return errorf(s->file, line, "end takes no arguments");
        c.kind = CMD_END;
        s->ended = true;
    } else if (strcmp(name, "op") == 0) {
        return errorf(s->file, line, "a second 'op': a script runs one operator");
    } else {
        return errorf(s->file, line, "unknown command '%s' (expected rec, wm, idle, active, "
                      "time or end)", name);
    }
    return s->run ? run_command(s, &c) : 0;
}

/* Reads the next line into s->buf (without its newline). 0 with *eof set at
 * the end of the input; else 0, or the exit status of what stopped it: a
 * NUL byte or a line too long (2, at that line), a read error (1). The line
 * is read whole before anything of it is parsed, so that nothing hidden in
 * or after a NUL or past the limit can run. */
static int read_line(script *s, bool *eof, size_t *length)
{
    FILE *in = s->in;
    int c = getc_unlocked(in);
    *eof = false;
    if (c == EOF) {
        if (ferror(in)) {
            errorf(s->file, 0, "read error: %s", weir_tool_strerror(errno));
            return 1;
        }
        *eof = true;
        return 0;
    }
    s->line++;
    size_t len = 0;
    for (; c != EOF && c != '\n'; c = getc_unlocked(in)) {
        if (c == '\0')
            return errorf(s->file, s->line, "a NUL byte at column %zu (a script is text)",
                          len + 1);
        if (len == MAX_LINE)
            return errorf(s->file, s->line, "line longer than %d characters", MAX_LINE);
        s->buf[len++] = (char)c;
    }
    if (c == EOF && ferror(in)) {
        errorf(s->file, 0, "read error: %s", weir_tool_strerror(errno));
        return 1;
    }
    s->buf[len] = '\0';
    *length = len;
    return 0;
}

/* The `op` statement; when running, its harness too (an operator the
 * harness refuses is an invalid setting: exit 2 at the op line). */
static int parse_op(script *s, char **tok, int n)
{
    char why[WEIR_SCRIPT_WHY];
    if (strcmp(tok[0], "op") != 0)
        return errorf(s->file, s->line, "the first statement must declare the operator "
                      "(op passthrough|timestamps|window ...), not '%s'", tok[0]);
    int r = weir_script_op_parse(&s->op, tok + 1, n - 1, why, sizeof why);
    if (r) {
        errorf(s->file, s->line, "%s", why);
        return status_of(r);
    }
    s->op.line = s->line;
    s->have_op = true;
    if (!s->run)
        return 0;
    r = weir_script_op_harness(&s->op, &s->h, why, sizeof why);
    if (r) {
        errorf(s->file, s->line, "%s", why);
        return status_of(r);
    }
    return 0;
}

/* One pass over the input from where it stands. */
static int pass(script *s)
{
    char *tok[MAX_TOKENS];
    for (;;) {
        bool eof;
        size_t len = 0;
        int r = read_line(s, &eof, &len);
        if (r)
            return r;
        if (eof)
            break;
        if (len == 0)
            continue;
        int n = split(s->buf, tok);
        if (n < 0)
            return errorf(s->file, s->line, "more than %d words on one line", MAX_TOKENS);
        if (n == 0)
            continue;
        r = s->have_op ? parse_command(s, tok, n) : parse_op(s, tok, n);
        if (r)
            return r;
    }
    /* Reported at the last line (line 1 for an empty file), so that the
     * message keeps the FILE:LINE: form of every other one. */
    if (!s->have_op)
        return errorf(s->file, s->line > 0 ? s->line : 1, "no operator: the script has no "
                      "statement (its first statement must be 'op ...')");
    return 0;
}

/* A regular file can be read a second time from where it started. */
static bool rereadable(FILE *in, off_t *start)
{
    struct stat st;
    int fd = fileno(in);
    if (fd >= 0 && (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)))
        return false;
    *start = ftello(in);
    return *start >= 0;
}

int weir_script_run(FILE *in, const char *name)
{
    script *s = calloc(1, sizeof *s);
    if (!s) {
        errorf(name, 0, "out of memory");
        return 1;
    }
    s->file = name;
    s->in = in;
    off_t start;
    int r = 0;
    if (rereadable(in, &start)) {
        /* The checking pass: nothing runs, nothing is kept. */
        r = pass(s);
        if (r == 0) {
            if (fseeko(in, start, SEEK_SET) != 0) {
                errorf(name, 0, "cannot read it again: %s", weir_tool_strerror(errno));
                r = 1;
            }
            memset(s, 0, sizeof *s);
            s->file = name;
            s->in = in;
        }
    }
    if (r == 0) {
        s->run = true;
        r = pass(s);
    }
    weir_harness_destroy(s->h);
    free(s);
    return r;
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
                "operator failed, the file could not be read or memory ran out, 2\n"
                "malformed script or invalid operator setting (FILE:LINE: reason on\n"
                "standard error).\n");
        return argc == 2 ? 0 : 2;
    }
    if (strcmp(argv[1], "-") == 0)
        return weir_script_run(stdin, "<stdin>");
    FILE *in = fopen(argv[1], "r");
    if (!in) {
        /* fopen allocates: without memory it fails with ENOMEM, which is
         * said as every other allocation failure is */
        weir_tool_error("%s: cannot open: %s", argv[1],
                        weir_tool_strerror(errno));
        return 1;
    }
    int r = weir_script_run(in, argv[1]);
    fclose(in);
    return r;
}
