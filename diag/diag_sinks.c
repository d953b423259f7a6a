/* diag_sinks.c — where capture events go: a JSONL file, a msgpack file, the
 * in-memory sink and a user callback (weir/diag.h). All are written by one
 * thread at a time (the job thread for the job and summary events, the
 * collector in between).
 *
 * Files are written under NAME.partial and renamed to NAME only when the run
 * has written its summary, so a reader never mistakes a capture cut short for
 * a whole one; a write error removes the partial file and fails the run with
 * the reason. The writer is weir/outfile.h's: a link NAME is written through
 * (the file it names is replaced, the link stays), a FIFO or a character
 * device (a pipe to a viewer, /dev/null) is written in place, and anything
 * else that is not a regular file is refused when the run starts. Memory running out on the way (an event that cannot be built,
 * decoded, printed or kept) fails the run the same way, with WEIR_ENOMEM and
 * "out of memory": it is no broken invariant.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diag_internal.h"
#include "live.h"
#include "job_state.h"
#include "util.h"
#include "weir/error.h"

/* ---- the in-memory sink --------------------------------------------------- */

int weir_diag_memory_create(weir_diag_memory **out)
{
    if (!out)
        return WEIR_EINVAL;
    *out = calloc(1, sizeof **out);
    return *out ? 0 : WEIR_ENOMEM;
}

void weir_diag_memory_destroy(weir_diag_memory *mem)
{
    if (!mem)
        return;
    for (size_t i = 0; i < mem->n; i++) {
        free((char *)mem->events[i].json);
        free((char *)mem->events[i].op);
        free((char *)mem->events[i].key);
        free((char *)mem->events[i].reason);
    }
    free(mem->events);
    free(mem);
}

size_t weir_diag_memory_count(const weir_diag_memory *mem)
{
    return mem ? mem->n : 0;
}

const weir_diag_event *weir_diag_memory_event(const weir_diag_memory *mem, size_t i)
{
    return mem && i < mem->n ? &mem->events[i] : NULL;
}

static bool memory_add(weir_diag_memory *mem, const weir_diag_event *ev)
{
    if (mem->n == mem->cap) {
        size_t cap = mem->cap ? mem->cap * 2 : 256;
        weir_diag_event *e = realloc(mem->events, cap * sizeof *e);
        if (!e)
            return false;
        mem->events = e;
        mem->cap = cap;
    }
    weir_diag_event *e = &mem->events[mem->n];
    *e = *ev;
    e->json = weir__strdup(ev->json);
    e->op = weir__strdup(ev->op);
    e->key = weir__strdup(ev->key);
    e->reason = weir__strdup(ev->reason);
    if (!e->json || (ev->op && !e->op) || (ev->key && !e->key) || (ev->reason && !e->reason)) {
        free((char *)e->json);
        free((char *)e->op);
        free((char *)e->key);
        free((char *)e->reason);
        return false;
    }
    mem->n++;
    return true;
}

/* ---- files ---------------------------------------------------------------- */

static void sink_failed(weir__diag_sinks *s, const char *what, const char *path)
{
    if (s->failed)
        return;
    s->failed = true;
    /* stdio that could not allocate its buffer says ENOMEM */
    int err = errno;
    s->failure_code = err == ENOMEM ? WEIR_ENOMEM : WEIR_EIO;
    snprintf(s->failure, sizeof s->failure, "%s %s: %s", what, path,
             err == ENOMEM ? "out of memory" : strerror(err));
}

static void sink_out_of_memory(weir__diag_sinks *s, const char *what)
{
    if (s->failed)
        return;
    s->failed = true;
    s->failure_code = WEIR_ENOMEM;
    snprintf(s->failure, sizeof s->failure, "out of memory (%s)", what);
}

int weir__diag_pack_write(void *data, const char *buf, size_t len)
{
    struct weir__diag *d = data;
    if (msgpack_sbuffer_write(&d->sbuf, buf, len) != 0) {
        d->pack_failed = true;
        return -1;
    }
    return 0;
}

/* A failure the writer described (its message names the file). */
static void sink_failed_msg(weir__diag_sinks *s, int code, const char *msg)
{
    if (s->failed)
        return;
    s->failed = true;
    s->failure_code = code == WEIR_ENOMEM ? WEIR_ENOMEM : WEIR_EIO;
    snprintf(s->failure, sizeof s->failure, "%s", msg);
}

static int open_capture(weir__diag_sinks *s, const char *path, weir_outfile **out, FILE **f)
{
    weir_outfile_config cfg = {.flags = WEIR_OUTFILE_IN_PLACE, .temp_suffix = ".partial"};
    char err[sizeof s->failure];
    int r = weir_outfile_open(path, &cfg, out, err, sizeof err);
    if (r) {
        sink_failed_msg(s, r, err);
        return r;
    }
    *f = weir_outfile_stream(*out);
    return 0;
}

int weir__diag_sinks_open(struct weir__diag *d)
{
    weir_job *job = d->job;
    const weir_diag_config *c = &job->cfg.diag;
    weir__diag_sinks *s = &d->sinks;
    if (c->jsonl_path && open_capture(s, c->jsonl_path, &s->jsonl_out, &s->jsonl) != 0)
        goto fail;
    if (c->msgpack_path && open_capture(s, c->msgpack_path, &s->msgpack_out, &s->msgpack) != 0)
        goto fail;
    s->memory = c->memory;
    s->callback = c->callback;
    s->callback_arg = c->callback_arg;
    if (job->cfg.http_addr) {
        char why[512];
        int r = weir__live_start(d, &s->live, why, sizeof why);
        if (r) {
            sink_failed_msg(s, r, why);
            /* a server that cannot listen is the run's error as it is */
            s->failure_code = r;
            snprintf(s->failure, sizeof s->failure, "http_addr: %s", why);
            goto fail;
        }
    }
    d->want_msgpack = s->msgpack != NULL;
    d->want_json = s->jsonl || s->memory || s->callback || s->live;
    d->want_event = s->memory || s->callback || s->live;
    return 0;
fail:
    if (!s->failed)
        sink_out_of_memory(s, "opening the capture files");
    weir__job_fail(job, s->failure_code, "diagnostics: %s", s->failure);
    weir__diag_sinks_close(d, false);
    return s->failure_code;
}

void weir__diag_sinks_write(struct weir__diag *d, const weir_diag_event *event)
{
    weir__diag_sinks *s = &d->sinks;
    if (s->failed)
        return;
    if (d->pack_failed || d->json.failed) {
        sink_out_of_memory(s, "building a capture event");
        return;
    }
    /* a capture event's declared sizes match its members */
    WEIR__ASSERT(weir__diag_encoded_whole(d));
    d->events++;
    if (s->msgpack && fwrite_unlocked(d->sbuf.data, 1, d->sbuf.size, s->msgpack) != d->sbuf.size)
        sink_failed(s, "writing", weir_outfile_writing(s->msgpack_out));
    if (!d->want_json)
        return;
    /* weir's events nest 4 deep at most */
    /* no capture event is left unbalanced */
    WEIR__ASSERT(!d->jw.invalid && d->jw.depth == 0);
    const char *json = weir__buf_cstr(&d->json);
    if (d->json.failed) {
        sink_out_of_memory(s, "building a capture event");
        return;
    }
    if (s->jsonl) {
        /* the line and its newline in one write (cstr left room for the
         * NUL, which the newline takes until the write is done); one
         * thread writes the file at a time, so without stdio's lock */
        d->json.data[d->json.len] = '\n';
        size_t n = d->json.len + 1;
        bool ok = fwrite_unlocked(json, 1, n, s->jsonl) == n;
        d->json.data[d->json.len] = '\0';
        if (!ok)
            sink_failed(s, "writing", weir_outfile_writing(s->jsonl_out));
    }
    if (s->live) /* it reads the line from json, not the event's (no copy of the event) */
        weir__live_event(s->live, event, json, d->json.len, d->cur_rec, d->live_held);
    if (!s->memory && !s->callback)
        return;
    weir_diag_event ev = *event;
    ev.json = json;
    if (ev.kind == WEIR_DIAG_KIND_JOB || ev.kind == WEIR_DIAG_KIND_SUMMARY) {
        ev.op = NULL;
        ev.key = NULL;
        ev.subtask = ev.input = ev.channel = ev.held_by = ev.firing = -1;
        ev.watermark = ev.window_start = ev.window_end = ev.timestamp = INT64_MIN;
        ev.records_in = ev.records_out = ev.count = ev.blocked_ms = -1;
    }
    if (s->memory && !memory_add(s->memory, &ev))
        sink_out_of_memory(s, "keeping a capture event in memory");
    if (s->callback)
        s->callback(&ev, s->callback_arg);
}

/* Keeps the capture (renamed into place; in place: closed) or discards it
 * (the partial file removed). */
static void close_file(weir__diag_sinks *s, weir_outfile **out, FILE **f, bool keep)
{
    *f = NULL;
    if (!*out)
        return;
    if (keep && !s->failed) {
        char err[sizeof s->failure];
        int r = weir_outfile_commit(*out, err, sizeof err);
        if (r)
            sink_failed_msg(s, r, err);
    } else {
        weir_outfile_discard(*out);
    }
    *out = NULL;
}

void weir__diag_sinks_close(struct weir__diag *d, bool keep)
{
    weir__diag_sinks *s = &d->sinks;
    close_file(s, &s->jsonl_out, &s->jsonl, keep);
    close_file(s, &s->msgpack_out, &s->msgpack, keep);
    /* the server ends with the job, after its clients had the summary */
    weir__live_stop(s->live, d->job->errors.code);
    s->live = NULL;
}
