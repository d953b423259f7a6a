/* sql_sinks.c — the 'print' and 'blackhole' connectors, sinks only:
 *
 *   print       every kind; each row as Flink's print connector writes it:
 *               PREFIX + Row.toString(), PREFIX being 'print-identifier',
 *               then ":n" (the subtask from 1) at a parallelism above 1,
 *               then "> " when not empty (SEMANTICS.md 10); timestamps as
 *               Java's toString (weir_row_format_style)
 *   blackhole   every kind; discarded
 *
 * A printing sink (print's, and the session's result sink) flushes what it
 * wrote at every checkpoint: a job killed once the checkpoint completed has
 * printed every row before it, and a restored one prints again what came
 * after it (at least once, as Flink's print sink).
 */
#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sql_internal.h"
#include "weir/operator.h"

/* ---- a sink that prints: flushed at every checkpoint ----------------------------------- */

typedef struct flushing_sink {
    weir_sink_fn fn;
    void *arg;
    FILE *out;
    int *write_errno;
} flushing_sink;

static int flushing_failed(weir_ctx *ctx, int r)
{
    return weir_ctx_fail(ctx, r, "the sink function failed: %s (%s)", weir_strerror(r),
                         weir_err_name(r));
}

static int flushing_record(weir_ctx *ctx, int input, const void *elem, int64_t ts)
{
    (void)input;
    const flushing_sink *f = weir_ctx_arg(ctx);
    int r = f->fn(elem, ts, weir_ctx_subtask(ctx), f->arg);
    return r < 0 ? flushing_failed(ctx, r) : 0;
}

static int flushing_batch(weir_ctx *ctx, int input, const weir_batch *b)
{
    (void)input;
    const flushing_sink *f = weir_ctx_arg(ctx);
    int subtask = weir_ctx_subtask(ctx);
    for (uint32_t i = 0; i < b->count; i++) {
        int r = f->fn(weir_batch_elem(b, i), weir_batch_ts(b, i), subtask, f->arg);
        if (r < 0)
            return flushing_failed(ctx, r);
    }
    return 0;
}

static int flushing_snapshot(weir_ctx *ctx, weir_snapshot_writer *w)
{
    (void)w;
    const flushing_sink *f = weir_ctx_arg(ctx);
    if (!f->out || fflush(f->out) == 0)
        return 0;
    if (f->write_errno)
        *f->write_errno = errno;
    return flushing_failed(ctx, WEIR_EIO);
}

/* Its snapshot holds no state: the rows before a checkpoint are out. */
static int flushing_restore(weir_ctx *ctx, weir_snapshot_reader *r)
{
    (void)ctx;
    (void)r;
    return 0;
}

static const weir_operator_vtable flushing_vtable = {
    .version = WEIR_OPERATOR_VTABLE_V2,
    .on_record = flushing_record,
    .on_batch = flushing_batch,
    .snapshot = flushing_snapshot,
    .restore = flushing_restore,
};

weir_stream *sql_print_sink(weir_stream *in, weir_sink_fn fn, void *arg, FILE *out,
                            int *write_errno)
{
    if (!in)
        return NULL;
    flushing_sink *f = malloc(sizeof *f);
    if (!f) {
        weir_job_record_error(weir_stream_job(in), WEIR_ENOMEM, "out of memory");
        return NULL;
    }
    *f = (flushing_sink){.fn = fn, .arg = arg, .out = out, .write_errno = write_errno};
    weir_process_spec spec = {.kind = "sink", .vtable = &flushing_vtable, .arg = f,
                              .arg_free = free, .accounting = WEIR_ACCOUNTING_SINK};
    return weir_stream_process(in, &spec);
}

/* ---- print --------------------------------------------------------------------------------- */

typedef struct print_table print_table;

/* One print sink of a job: its table, the rows' schema and the sink's
 * parallelism (for the prefix). */
typedef struct print_sink {
    const print_table *table;
    const weir_schema *schema;
    int parallelism;
} print_sink;

/* A print table: where it writes, its identifier, and the sinks made for
 * it, which live as long as it does (its catalog outlives the jobs). */
struct print_table {
    FILE *out;
    char identifier[SQL_NAME_MAX];
    print_sink **sinks;
    int nsinks;
};

static void print_free(void *state)
{
    print_table *t = state;
    for (int i = 0; i < t->nsinks; i++)
        free(t->sinks[i]);
    free(t->sinks);
    free(t);
}

int sql_print_line(FILE *out, const char *prefix, const weir_schema *schema, const void *row,
                   weir_row_style style, const weir_time_zone *zone, int *write_errno)
{
    char line[16384], *buf = line;
    size_t size = sizeof line;
    size_t np = strlen(prefix), n;
    for (;;) {
        if (np + 2 > size)
            return WEIR_EINVAL; /* a prefix is at most a name and a subtask */
        memcpy(buf, prefix, np);
        int w = weir_row_format_zoned(schema, row, style, zone, buf + np, size - np);
        if (w < 0) {
            if (buf != line)
                free(buf);
            return WEIR_EINVAL;
        }
        n = np + (size_t)w;
        if (n + 1 < size)
            break;
        /* a row longer than the line (a long string): written whole from a
         * buffer of its size, never cut — rare, and this is the print
         * sink's I/O, not the data path */
        if (buf != line)
            free(buf);
        size = n + 2;
        if (!(buf = malloc(size)))
            return WEIR_ENOMEM;
    }
    buf[n++] = '\n';
    int r = 0;
    if (fwrite(buf, 1, n, out) != n) {
        if (write_errno)
            *write_errno = errno;
        r = WEIR_EIO;
    }
    if (buf != line)
        free(buf);
    return r;
}

static int print_row(const void *elem, int64_t timestamp, int subtask, void *arg)
{
    (void)timestamp;
    const print_sink *ps = arg;
    const char *id = ps->table->identifier;
    char prefix[SQL_NAME_MAX + 16] = "";
    if (ps->parallelism > 1)
        snprintf(prefix, sizeof prefix, "%s%s%d> ", id, id[0] ? ":" : "", subtask + 1);
    else if (id[0])
        snprintf(prefix, sizeof prefix, "%s> ", id);
    return sql_print_line(ps->table->out, prefix, ps->schema, elem,
                          WEIR_ROW_STYLE_PRINT_CONNECTOR, NULL, NULL);
}

static int print_validate(weir_connector_context *c, void **state)
{
    print_table *p = calloc(1, sizeof *p);
    if (!p)
        return WEIR_ENOMEM;
    *state = p;
    const char *id = weir_connector_option(c, "print-identifier");
    if (id && snprintf(p->identifier, sizeof p->identifier, "%s", id) >=
                  (int)sizeof p->identifier)
        return weir_connector_fail(c, "print-identifier", "longer than %d bytes",
                                   SQL_NAME_MAX - 1);
    bool err = false;
    int r = weir_connector_option_bool(c, "standard-error", &err);
    /* standard output is the session's output (a FILE the session's config
     * may give), where its results go too */
    p->out = err ? stderr : c->s->cfg.out ? c->s->cfg.out : stdout;
    return r;
}

static weir_stream *print_sink_make(void *state, const weir_schema *schema, weir_stream *rows,
                                    const char *name, int parallelism)
{
    (void)name;
    print_table *t = state;
    print_sink *ps = calloc(1, sizeof *ps);
    print_sink **v = realloc(t->sinks, (size_t)(t->nsinks + 1) * sizeof *v);
    if (v)
        t->sinks = v;
    if (!ps || !v) {
        free(ps);
        weir_job_record_error(weir_stream_job(rows), WEIR_ENOMEM, "out of memory");
        return NULL;
    }
    *ps = (print_sink){.table = t, .schema = schema, .parallelism = parallelism};
    t->sinks[t->nsinks++] = ps;
    return sql_print_sink(rows, print_row, ps, t->out, NULL);
}

const weir_connector_factory sql_print_factory = {
    .version = WEIR_CONNECTOR_V1,
    .name = "print",
    .options = "'print-identifier', 'standard-error'",
    .validate = print_validate,
    .free_state = print_free,
    .sink = print_sink_make,
    .sink_kinds = WEIR_CHANGELOG_ALL,
};

static int blackhole_validate(weir_connector_context *c, void **state)
{
    (void)c;
    *state = NULL;
    return 0;
}

static weir_stream *blackhole_sink(void *state, const weir_schema *schema, weir_stream *rows,
                                   const char *name, int parallelism)
{
    (void)state;
    (void)schema;
    (void)name;
    (void)parallelism;
    return weir_sink_discard(rows);
}

const weir_connector_factory sql_blackhole_factory = {
    .version = WEIR_CONNECTOR_V1,
    .name = "blackhole",
    .options = "",
    .validate = blackhole_validate,
    .sink = blackhole_sink,
    .sink_kinds = WEIR_CHANGELOG_ALL,
};
