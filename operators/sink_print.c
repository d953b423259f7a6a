/* sink_print.c — one line per record through a user formatter. Each subtask
 * formats into its own buffer and writes the whole line with one fwrite, so
 * lines of parallel subtasks never interleave mid-line (stdio locks the FILE
 * per call). A write that fails fails the job with the C library's reason:
 * a pipe whose reader has gone is a broken pipe (EPIPE when SIGPIPE is
 * ignored, as under a supervisor), not some input/output error. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "weir/error.h"
#include "weir/operator.h"
#include "weir/stream.h"

#include "builder.h"

#define LINE_MAX_TEXT 1024

typedef struct print_arg {
    weir_format_fn fmt;
    void *arg;
    FILE *out;
} print_arg;

static int print_open(weir_ctx *ctx)
{
    char *buf = malloc(LINE_MAX_TEXT + 32);
    if (!buf)
        return WEIR_ENOMEM;
    weir_ctx_set_state(ctx, buf);
    return 0;
}

static int print_record(weir_ctx *ctx, int input, const void *elem, int64_t ts)
{
    (void)input;
    const print_arg *p = weir_ctx_arg(ctx);
    char *buf = weir_ctx_state(ctx);
    size_t pre = 0;
    if (weir_ctx_parallelism(ctx) > 1)
        pre = (size_t)snprintf(buf, 32, "%d> ", weir_ctx_subtask(ctx));
    int n = p->fmt(elem, ts, buf + pre, LINE_MAX_TEXT, p->arg);
    if (n < 0)
        return weir_ctx_fail(ctx, WEIR_ECALLBACK, "the print formatter failed (%d)", n);
    size_t len = pre + ((size_t)n < LINE_MAX_TEXT ? (size_t)n : LINE_MAX_TEXT - 1);
    buf[len++] = '\n';
    FILE *out = p->out ? p->out : stdout;
    if (fwrite(buf, 1, len, out) != len)
        return weir_ctx_fail(ctx, WEIR_EIO, "writing a printed record failed: %s",
                             strerror(errno));
    return 0;
}

/* The last lines may still be in the FILE's buffer: flushed here, so that a
 * write that fails then fails the job too. */
static int print_end(weir_ctx *ctx)
{
    const print_arg *p = weir_ctx_arg(ctx);
    if (fflush(p->out ? p->out : stdout) != 0)
        return weir_ctx_fail(ctx, WEIR_EIO, "writing the printed records failed: %s",
                             strerror(errno));
    return 0;
}

static void print_close(weir_ctx *ctx)
{
    free(weir_ctx_state(ctx));
}

static const weir_operator_vtable print_vtable = {
    .version = WEIR_OPERATOR_VTABLE_V1,
    .open = print_open,
    .on_record = print_record,
    .on_end = print_end,
    .close = print_close,
};

weir_stream *weir_sink_print(weir_stream *s, weir_format_fn fmt, void *arg, FILE *out)
{
    const weir__builder_call call = {.name = "weir_sink_print", .fn_name = "fmt",
                                     .has_fn = fmt != NULL};
    print_arg p = {.fmt = fmt, .arg = arg, .out = out};
    return weir__builder_add(s, &call,
                             (weir_process_spec){.kind = "sink",
                                                 .vtable = &print_vtable,
                                                 .accounting = WEIR_ACCOUNTING_SINK},
                             &p, sizeof p);
}
