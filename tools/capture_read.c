/* capture_read.c — the read loop of `weir capture`: a capture read once
 * through the library's reader (weir/capture.h), each event parsed by
 * jansson, checked (capture_validate.c) and handed to a visitor (the
 * summary, the chrome trace); and jansson's allocations watched. Calls the
 * checker and the visitor it is given, nothing of its callers.
 */
#include "capture_read.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <weir.h>

#include "signals.h"

/* jansson's lexer does not survive a failed allocation: a string token
 * whose buffer could not grow loses bytes, and then an assertion fails or
 * a block is freed twice (jansson 2.14). So jansson never sees one: an
 * allocation the C library refuses is served from a reserve instead, and
 * recorded, and the tool then fails with "out of memory" at that event.
 * Blocks from the reserve are never freed one by one; the reserve is
 * emptied when the next read starts (cap_json_watch), after the failed
 * one's values were all released. A single event that needs more than the
 * reserve while memory is out still gets NULL. */
#define JSON_RESERVE (256 * 1024)
static _Alignas(max_align_t) unsigned char json_reserve[JSON_RESERVE];
static size_t json_reserve_used;
static bool json_oom;

static bool in_reserve(const void *p)
{
    uintptr_t a = (uintptr_t)p, lo = (uintptr_t)json_reserve;
    return a >= lo && a < lo + JSON_RESERVE;
}

static void *json_alloc(size_t n)
{
    void *p = malloc(n);
    if (p)
        return p;
    json_oom = true;
    size_t a = _Alignof(max_align_t);
    size_t need = (n + a - 1) / a * a;
    if (need > JSON_RESERVE - json_reserve_used)
        return NULL;
    p = json_reserve + json_reserve_used;
    json_reserve_used += need;
    return p;
}

static void json_free(void *p)
{
    if (!in_reserve(p))
        free(p);
}

void cap_json_watch(void)
{
    static bool installed;
    if (!installed) {
        json_set_alloc_funcs(json_alloc, json_free);
        installed = true;
    }
    json_oom = false;
    json_reserve_used = 0;
}

bool cap_json_failed(void)
{
    return json_oom;
}

int cap_open(const char *path, weir_capture_reader **r, char *err, size_t errsize)
{
    if (strcmp(path, "-") == 0)
        return weir_capture_reader_open_file(stdin, "stdin", r, err, errsize);
    return weir_capture_reader_open(path, r, err, errsize);
}

static void where_msg(const weir_capture_reader *r, const char *msg, char *err, size_t errsize)
{
    char where[1024];
    weir_capture_reader_where(r, where, sizeof where);
    snprintf(err, errsize, "%s: %s", where, msg);
}

int cap_read(const char *path, cap_check *c, cap_visit_fn visit, void *arg, char *err,
             size_t errsize)
{
    weir_capture_reader *r;
    if (cap_open(path, &r, err, errsize))
        return -1;
    int result = -1;
    char msg[1024];
    cap_json_watch();
    c->msgpack = weir_capture_reader_format(r) == WEIR_CAPTURE_MSGPACK;
    for (;;) {
        const char *line;
        size_t len;
        int e = weir_capture_reader_next(r, &line, &len);
        if (e < 0) {
            snprintf(err, errsize, "%s", weir_capture_reader_error(r));
            goto out;
        }
        if (e == WEIR_CAPTURE_END)
            break;
        if (weir_cli_stopped()) {
            snprintf(err, errsize, "%s: stopped before its end", weir_capture_reader_name(r));
            goto out;
        }
        json_error_t je;
        json_t *ev = json_loadb(line, len, JSON_REJECT_DUPLICATES, &je);
        if (!ev) {
            char where[1024];
            weir_capture_reader_where(r, where, sizeof where);
            if (cap_json_failed())
                snprintf(err, errsize, "%s: out of memory", where);
            else if (weir_capture_reader_cut(r))
                snprintf(err, errsize,
                         "%s: the capture was cut short in the middle of its last line (the "
                         "writing process stopped)", where);
            else if (weir_capture_reader_format(r) == WEIR_CAPTURE_JSONL)
                snprintf(err, errsize, "%s:%d: not JSON: %s", where, je.column, je.text);
            else
                snprintf(err, errsize, "%s: not JSON at column %d: %s", where, je.column, je.text);
            goto out;
        }
        if (cap_json_failed()) {
            /* parsed, but with the reserve: memory ran out */
            json_decref(ev);
            where_msg(r, "out of memory", err, errsize);
            goto out;
        }
        int bad = cap_check_event(c, ev);
        if (bad) {
            where_msg(r, c->msg, err, errsize);
        } else if (visit && visit(arg, c, ev, msg)) {
            where_msg(r, msg, err, errsize);
            bad = -1;
        }
        json_decref(ev);
        if (bad)
            goto out;
    }
    if (cap_check_end(c)) {
        if (weir_capture_reader_event_number(r) == 0)
            snprintf(err, errsize, "%s: %s", weir_capture_reader_name(r), c->msg);
        else
            where_msg(r, c->msg, err, errsize);
        goto out;
    }
    result = 0;
out:
    weir_capture_reader_close(r);
    return result;
}
