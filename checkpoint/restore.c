/* restore.c — opening the checkpoint a job restores and matching it to the
 * job (restore.h). The job's thread, before any worker starts. */
#include "restore.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coordinator.h"
#include "job_state.h"
#include "msgpack_read.h"
#include "util.h"
#include "weir/error.h"

/* Owned alongside each op: the payloads its parsed pieces point into. */
typedef struct restore_owned {
    void **payloads;
    size_t n, cap;
} restore_owned;

static restore_owned *owned_of(weir__restore *r)
{
    return (restore_owned *)(void *)(r + 1);
}

void weir__restore_free(weir__restore *r)
{
    if (!r)
        return;
    for (int i = 0; i < r->nops; i++) {
        weir__restore_op *op = &r->ops[i];
        if (op->pieces) {
            for (int j = 0; j < op->parallelism; j++)
                msgpack_unpacked_destroy(&op->pieces[j]);
        }
        free(op->pieces);
        free(op->uid);
    }
    free(r->ops);
    free(r->op_of_node);
    restore_owned *o = owned_of(r);
    for (size_t i = 0; i < o->n; i++)
        free(o->payloads[i]);
    free(o->payloads);
    weir__chk_close(&r->chk);
    free(r);
}

void weir__restore_report_free(weir__restore_report *r)
{
    for (int i = 0; i < r->nreasons; i++)
        free(r->skip_reasons[i]);
    free(r->skip_reasons);
    free(r->path);
    *r = (weir__restore_report){0};
}

/* weir__chk_open's report of a checkpoint it skipped: kept for the stats
 * and the capture. Out of memory loses the reason, not the count. */
static void skipped(const char *why, void *arg)
{
    weir__restore_report *r = arg;
    r->nskipped++;
    char *copy = weir__strdup(why);
    char **more = copy && r->nreasons == r->nskipped - 1
                      ? realloc(r->skip_reasons, (size_t)r->nskipped * sizeof *more)
                      : NULL;
    if (!more) {
        free(copy);
        return;
    }
    r->skip_reasons = more;
    r->skip_reasons[r->nreasons++] = copy;
}

static int bad(weir_job *job, const weir__restore *r, const char *what)
{
    return weir__job_fail(job, WEIR_EFORMAT, "restoring %s: its _metadata's job record %s",
                          r->chk.dir, what);
}

static int keep_payload(weir__restore *r, void *p)
{
    restore_owned *o = owned_of(r);
    if (o->n == o->cap) {
        size_t cap = o->cap ? 2 * o->cap : 16;
        void **a = realloc(o->payloads, cap * sizeof *a);
        if (!a)
            return WEIR_ENOMEM;
        o->payloads = a;
        o->cap = cap;
    }
    o->payloads[o->n++] = p;
    return 0;
}

static int read_op(weir_job *job, weir__restore *r, const msgpack_object *o, weir__restore_op *op)
{
    const msgpack_object *uid = weir__mp_member(o, "uid"), *par = weir__mp_member(o, "parallelism"),
                         *keyed = weir__mp_member(o, "keyed"), *src = weir__mp_member(o, "source"),
                         *files = weir__mp_member(o, "files");
    if (!uid || uid->type != MSGPACK_OBJECT_STR || !weir__mp_is_uint(par) || par->via.u64 < 1 ||
        par->via.u64 > WEIR_MAX_PARALLELISM || !keyed || keyed->type != MSGPACK_OBJECT_BOOLEAN ||
        !src || src->type != MSGPACK_OBJECT_BOOLEAN || !files ||
        files->type != MSGPACK_OBJECT_ARRAY || files->via.array.size != par->via.u64)
        return bad(job, r, "has an operator entry of another shape");
    op->uid = malloc(uid->via.str.size + 1);
    if (op->uid) {
        memcpy(op->uid, uid->via.str.ptr, uid->via.str.size);
        op->uid[uid->via.str.size] = '\0';
    }
    op->parallelism = (int)par->via.u64;
    op->keyed = keyed->via.boolean;
    op->is_source = src->via.boolean;
    op->node = -1;
    op->pieces = calloc((size_t)op->parallelism, sizeof *op->pieces);
    if (!op->uid || !op->pieces)
        return weir__job_fail(job, WEIR_ENOMEM, "restoring %s: out of memory", r->chk.dir);
    for (int j = 0; j < op->parallelism; j++)
        msgpack_unpacked_init(&op->pieces[j]);
    for (int j = 0; j < op->parallelism; j++) {
        const msgpack_object *f = &files->via.array.ptr[j];
        if (f->type != MSGPACK_OBJECT_STR)
            return bad(job, r, "names a file that is not a string");
        char name[512];
        snprintf(name, sizeof name, "%.*s", (int)f->via.str.size, f->via.str.ptr);
        void *payload = NULL;
        size_t len = 0;
        char err[600];
        int e = weir__chk_read(&r->chk, name, &payload, &len, err, sizeof err);
        if (e)
            return weir__job_fail(job, e, "restoring: %s", err);
        if (keep_payload(r, payload)) {
            free(payload);
            return weir__job_fail(job, WEIR_ENOMEM, "restoring %s: out of memory", r->chk.dir);
        }
        size_t off = 0;
        if (msgpack_unpack_next(&op->pieces[j], payload, len, &off) != MSGPACK_UNPACK_SUCCESS ||
            off != len || op->pieces[j].data.type != MSGPACK_OBJECT_MAP)
            return weir__job_fail(job, WEIR_EFORMAT,
                                  "restoring %s/%s: not one msgpack map of an operator subtask's "
                                  "state",
                                  r->chk.dir, name);
    }
    return 0;
}

int weir__restore_open(weir_job *job)
{
    const char *from = job->chk_restore_from;
    if (!from)
        return 0;
    weir__restore *r = calloc(1, sizeof *r + sizeof(restore_owned));
    if (!r)
        return weir__job_fail(job, WEIR_ENOMEM, "restoring: out of memory");
    job->restore = r;
    char err[700];
    int e = weir__chk_open(from, skipped, &job->restored, &r->chk, err, sizeof err);
    if (e)
        return weir__job_fail(job, e, "restoring from %s: %s", from, err);
    r->id = r->chk.id;
    msgpack_unpacked u;
    msgpack_unpacked_init(&u);
    size_t off = 0;
    if (msgpack_unpack_next(&u, r->chk.job, r->chk.job_len, &off) != MSGPACK_UNPACK_SUCCESS) {
        msgpack_unpacked_destroy(&u);
        return bad(job, r, "is not msgpack");
    }
    const msgpack_object *o = &u.data, *maxp = weir__mp_member(o, "max_parallelism"),
                         *time = weir__mp_member(o, "time_ms"), *ops = weir__mp_member(o, "operators");
    int rc = 0;
    if (!weir__mp_is_uint(maxp) || maxp->via.u64 < 1 || maxp->via.u64 > 32768 ||
        !weir__mp_is_int(time) || !ops || ops->type != MSGPACK_OBJECT_ARRAY) {
        rc = bad(job, r, "lacks max_parallelism, time_ms or operators");
    } else {
        r->max_parallelism = (uint32_t)maxp->via.u64;
        r->time_ms = time->via.i64;
        r->ops = calloc(ops->via.array.size + 1, sizeof *r->ops);
        if (!r->ops)
            rc = weir__job_fail(job, WEIR_ENOMEM, "restoring: out of memory");
        for (uint32_t i = 0; rc == 0 && i < ops->via.array.size; i++) {
            r->nops++;
            rc = read_op(job, r, &ops->via.array.ptr[i], &r->ops[i]);
        }
    }
    msgpack_unpacked_destroy(&u);
    if (rc == 0) {
        job->max_parallelism = r->max_parallelism;
        weir__restore_report *rep = &job->restored;
        rep->id = r->id;
        rep->time_ms = r->time_ms;
        rep->path = weir__strdup(r->chk.dir);
        if (!rep->path)
            return weir__job_fail(job, WEIR_ENOMEM, "restoring: out of memory");
        weir__coord_note_restore(job->coord, r->id, rep->nskipped,
                                 rep->nreasons == rep->nskipped && rep->nreasons
                                     ? rep->skip_reasons[rep->nreasons - 1]
                                     : NULL);
    }
    return rc;
}

static int find_node(const weir__graph *g, const char *uid)
{
    for (int n = 0; n < g->nnodes; n++) {
        const weir__node *node = g->nodes[n];
        if (strcmp(node->uid ? node->uid : node->name, uid) == 0)
            return n;
    }
    return -1;
}

int weir__restore_match(weir_job *job)
{
    weir__restore *r = job->restore;
    if (!r)
        return 0;
    const weir__graph *g = &job->graph;
    r->op_of_node = malloc((size_t)g->nnodes * sizeof *r->op_of_node);
    if (!r->op_of_node)
        return weir__job_fail(job, WEIR_ENOMEM, "restoring: out of memory");
    for (int n = 0; n < g->nnodes; n++)
        r->op_of_node[n] = -1;
    for (int i = 0; i < r->nops; i++) {
        weir__restore_op *op = &r->ops[i];
        int n = find_node(g, op->uid);
        if (n < 0) {
            if (job->cfg.checkpoint.allow_non_restored_state)
                continue;
            return weir__job_fail(job, WEIR_EINVAL,
                                  "restoring checkpoint %" PRId64 " (%s): it holds state for the "
                                  "operator '%s', which this job does not have (set "
                                  "checkpoint.allow_non_restored_state to run without it)",
                                  r->id, r->chk.dir, op->uid);
        }
        const weir__node *node = g->nodes[n];
        bool keyed = job->plan->node_ctx[n][0]->keyed.key_size > 0;
        if (r->op_of_node[n] >= 0)
            return weir__job_fail(job, WEIR_EFORMAT, "restoring checkpoint %" PRId64
                                  ": the operator '%s' appears twice", r->id, op->uid);
        if (op->is_source != node->is_source || op->keyed != keyed)
            return weir__job_fail(job, WEIR_EINVAL,
                                  "restoring checkpoint %" PRId64 ": the operator '%s' was %s "
                                  "there and is %s here",
                                  r->id, op->uid,
                                  op->is_source ? "a source" : op->keyed ? "keyed" : "not keyed",
                                  node->is_source ? "a source" : keyed ? "keyed" : "not keyed");
        if (node->is_source && !node->union_state && node->parallelism != op->parallelism)
            return weir__job_fail(job, WEIR_EINVAL,
                                  "restoring checkpoint %" PRId64 ": the source '%s' ran at "
                                  "parallelism %d and is at %d here: a source restores at its "
                                  "own parallelism (its position is per subtask)",
                                  r->id, op->uid, op->parallelism, node->parallelism);
        op->node = n;
        r->op_of_node[n] = i;
    }
    return 0;
}
