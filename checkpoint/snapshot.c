/* snapshot.c — one operator subtask's state into a checkpoint and back
 * (snapshot.h), and the snapshot writer and reader an operator's hooks get
 * (weir/operator.h).
 *
 * The file of an operator subtask, one msgpack map:
 *   "uid", "subtask", "parallelism"   who wrote it
 *   "key_groups"  [first, last]: the key groups it owned
 *   "time"        [input watermark, input idle, output gate's last
 *                 watermark, output idle]
 *   "valves"      for the head of a subtask: per input [last watermark,
 *                 last idle, [[watermark, idle] per channel]], then the
 *                 multi-input combiner the same way as one more entry; nil
 *                 for a chained operator
 *   "keyed"       keyed state and timers (keyed_snapshot.h)
 *   "op"          what the snapshot hook wrote (bin), nil without a hook
 */
#include "snapshot.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "job_state.h"
#include "keyed_snapshot.h"
#include "msgpack_read.h"
#include "restore.h"
#include "task.h"
#include "weir/error.h"

struct weir_snapshot_writer {
    msgpack_sbuffer sb;
    int64_t id;
};

int64_t weir_snapshot_checkpoint_id(const weir_snapshot_writer *w)
{
    return w ? w->id : 0;
}

struct weir_snapshot_reader {
    const msgpack_object **blobs;
    int n, next;
};

int weir_snapshot_write(weir_snapshot_writer *w, const void *data, size_t len)
{
    if (!w || (!data && len))
        return WEIR_EINVAL;
    return msgpack_sbuffer_write(&w->sb, data, len) ? WEIR_ENOMEM : 0;
}

int weir_snapshot_next(weir_snapshot_reader *r, const void **data, size_t *len)
{
    if (!r || !data || !len)
        return WEIR_EINVAL;
    if (r->next >= r->n)
        return 0;
    const msgpack_object *b = r->blobs[r->next++];
    *data = b->via.bin.ptr;
    *len = b->via.bin.size;
    return 1;
}

int weir_snapshot_write_record(weir_snapshot_writer *w, uint32_t tag, const void *rec,
                               size_t size)
{
    int r = weir_snapshot_write(w, &tag, sizeof tag);
    return r ? r : weir_snapshot_write(w, rec, size);
}

int weir_restore_records(weir_ctx *ctx, weir_snapshot_reader *r, uint32_t tag, size_t size,
                         int (*each)(weir_ctx *ctx, const void *rec, void *arg), void *arg)
{
    const void *data;
    size_t len;
    int got;
    while ((got = weir_snapshot_next(r, &data, &len)) == 1) {
        uint32_t t;
        if (len != sizeof t + size || (memcpy(&t, data, sizeof t), t != tag))
            return weir_ctx_fail(ctx, WEIR_EFORMAT,
                                 "restore: the checkpoint's state (%zu bytes) is not this "
                                 "operator's (a %zu-byte record tagged %08x)",
                                 len, sizeof t + size, (unsigned)tag);
        int e = each(ctx, (const unsigned char *)data + sizeof t, arg);
        if (e < 0)
            return e;
    }
    return got;
}

/* ---- writing -------------------------------------------------------------- */

static int pack_str(msgpack_packer *pk, const char *s)
{
    return msgpack_pack_str_with_body(pk, s, strlen(s));
}

static int pack_bool(msgpack_packer *pk, bool b)
{
    return b ? msgpack_pack_true(pk) : msgpack_pack_false(pk);
}

static int pack_valves(msgpack_packer *pk, const weir__subtask *sub)
{
    int r = msgpack_pack_array(pk, (size_t)sub->ninputs + 1);
    for (int i = 0; i < sub->ninputs; i++) {
        const weir__valve *v = &sub->in[i].valve;
        r |= msgpack_pack_array(pk, 3);
        r |= msgpack_pack_int64(pk, v->last_wm);
        r |= pack_bool(pk, v->last_idle);
        r |= msgpack_pack_array(pk, (size_t)v->n);
        for (int c = 0; c < v->n; c++) {
            r |= msgpack_pack_array(pk, 2);
            r |= msgpack_pack_int64(pk, v->ch[c].wm);
            r |= pack_bool(pk, v->ch[c].idle);
        }
    }
    const weir__combiner *cb = &sub->comb;
    r |= msgpack_pack_array(pk, 3);
    r |= msgpack_pack_int64(pk, cb->last_wm);
    r |= pack_bool(pk, cb->last_idle);
    r |= msgpack_pack_array(pk, (size_t)cb->n);
    for (int k = 0; k < cb->n; k++) {
        r |= msgpack_pack_array(pk, 2);
        r |= msgpack_pack_int64(pk, cb->wm[k]);
        r |= pack_bool(pk, cb->idle[k]);
    }
    return r;
}

static const char *ctx_uid(const weir_ctx *ctx)
{
    return ctx->node->uid ? ctx->node->uid : ctx->node->name;
}

static bool ctx_keyed(const weir_ctx *ctx)
{
    return ctx->keyed.key_size > 0;
}

/* The hook's bytes, or none (NULL) when the operator has no hook. */
static int run_snapshot_hook(weir_ctx *ctx, weir_snapshot_writer *w, bool *has)
{
    int (*hook)(weir_ctx *, weir_snapshot_writer *) =
        ctx->is_source ? ctx->svt.snapshot : ctx->vt.snapshot;
    *has = hook != NULL;
    if (!hook)
        return 0;
    int r = hook(ctx, w);
    if (r < 0 && !ctx->error)
        weir_ctx_fail(ctx, r, "snapshot failed: %s (%s)", weir_strerror(r), weir_err_name(r));
    return r < 0 ? r : 0;
}

#define HUGE_PAGE ((uintptr_t)2 << 20)

/* The snapshot's buffer made `n` bytes at once: written without a copy
 * each time it would have doubled, and a large one on huge pages where the
 * kernel gives them (a fault every 2 MB as it is written, not every 4 KB:
 * the faults were most of a large snapshot's time). Without the memory it
 * grows as it is written. */
static void reserve(msgpack_sbuffer *sb, size_t n)
{
    if (n <= MSGPACK_SBUFFER_INIT_SIZE)
        return;
    char *d = malloc(n);
    if (!d)
        return;
    sb->data = d;
    sb->alloc = n;
#ifdef MADV_HUGEPAGE
    if (n >= 2 * HUGE_PAGE) {
        uintptr_t from = ((uintptr_t)d + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1);
        uintptr_t to = ((uintptr_t)d + n) & ~(HUGE_PAGE - 1);
        if (to > from)
            madvise((void *)from, to - from, MADV_HUGEPAGE); /* a hint */
    }
#endif
}

int weir__snapshot_ctx(weir_ctx *ctx, int64_t id, weir__snap_piece *out)
{
    weir_job *job = ctx->job;
    uint32_t maxp = job->max_parallelism;
    out->data = NULL;
    out->len = 0;
    weir_snapshot_writer w = {.id = id};
    msgpack_sbuffer_init(&w.sb);
    bool has_hook = false;
    int r = run_snapshot_hook(ctx, &w, &has_hook);
    if (r < 0) {
        msgpack_sbuffer_destroy(&w.sb);
        return r;
    }
    msgpack_sbuffer sb;
    msgpack_sbuffer_init(&sb);
    /* the header and the valves are small; the keyed state and the hook's
     * bytes are most of it */
    reserve(&sb, 4096 + (ctx_keyed(ctx) ? weir__keyed_snapshot_bound(ctx) : 0) +
                     (has_hook ? w.sb.size + 8 : 0));
    msgpack_packer pk;
    msgpack_packer_init(&pk, &sb, msgpack_sbuffer_write);
    uint32_t first = 0, last = maxp - 1;
    if (ctx_keyed(ctx))
        weir__key_group_range(maxp, (uint32_t)ctx->parallelism, (uint32_t)ctx->subtask, &first,
                              &last);
    int e = msgpack_pack_map(&pk, 8);
    e |= pack_str(&pk, "uid");
    e |= pack_str(&pk, ctx_uid(ctx));
    e |= pack_str(&pk, "subtask");
    e |= msgpack_pack_int(&pk, ctx->subtask);
    e |= pack_str(&pk, "parallelism");
    e |= msgpack_pack_int(&pk, ctx->parallelism);
    e |= pack_str(&pk, "key_groups");
    e |= msgpack_pack_array(&pk, 2);
    e |= msgpack_pack_uint32(&pk, first);
    e |= msgpack_pack_uint32(&pk, last);
    e |= pack_str(&pk, "time");
    e |= msgpack_pack_array(&pk, 4);
    e |= msgpack_pack_int64(&pk, ctx->input.wm);
    e |= pack_bool(&pk, ctx->input.idle);
    e |= msgpack_pack_int64(&pk, ctx->out.gate.last);
    e |= pack_bool(&pk, ctx->out.gate.idle);
    e |= pack_str(&pk, "valves");
    if (ctx->sub && ctx->sub->ctxs[0] == ctx && !ctx->is_source)
        e |= pack_valves(&pk, ctx->sub);
    else
        e |= msgpack_pack_nil(&pk);
    e |= pack_str(&pk, "keyed");
    if (e == 0)
        e = weir__keyed_snapshot(ctx, maxp, &pk);
    e |= pack_str(&pk, "op");
    if (has_hook) {
        e |= msgpack_pack_bin(&pk, w.sb.size);
        e |= msgpack_pack_bin_body(&pk, w.sb.data, w.sb.size);
    } else {
        e |= msgpack_pack_nil(&pk);
    }
    msgpack_sbuffer_destroy(&w.sb);
    if (e) {
        msgpack_sbuffer_destroy(&sb);
        return weir_ctx_fail(ctx, WEIR_ENOMEM, "snapshot: out of memory");
    }
    out->len = sb.size;
    out->data = msgpack_sbuffer_release(&sb);
    if (!out->data) { /* an empty buffer: cannot happen after a map */
        out->data = malloc(1);
        if (!out->data)
            return weir_ctx_fail(ctx, WEIR_ENOMEM, "snapshot: out of memory");
    }
    return 0;
}

/* ---- restoring ------------------------------------------------------------ */

static bool get_wm_idle(const msgpack_object *pair, int64_t *wm, bool *idle)
{
    if (!pair || pair->type != MSGPACK_OBJECT_ARRAY || pair->via.array.size != 2 ||
        !weir__mp_is_int(&pair->via.array.ptr[0]) ||
        pair->via.array.ptr[1].type != MSGPACK_OBJECT_BOOLEAN)
        return false;
    *wm = pair->via.array.ptr[0].via.i64;
    *idle = pair->via.array.ptr[1].via.boolean;
    return true;
}

/* [last watermark, last idle, [[wm, idle]...]] with n channels. */
static const msgpack_object *valve_entry(const msgpack_object *e, int n, int64_t *last_wm,
                                         bool *last_idle)
{
    if (!e || e->type != MSGPACK_OBJECT_ARRAY || e->via.array.size != 3 ||
        !weir__mp_is_int(&e->via.array.ptr[0]) ||
        e->via.array.ptr[1].type != MSGPACK_OBJECT_BOOLEAN ||
        e->via.array.ptr[2].type != MSGPACK_OBJECT_ARRAY ||
        e->via.array.ptr[2].via.array.size != (uint32_t)n)
        return NULL;
    *last_wm = e->via.array.ptr[0].via.i64;
    *last_idle = e->via.array.ptr[1].via.boolean;
    return &e->via.array.ptr[2];
}

/* The valves as they were, channel by channel: only when the subtask has the
 * same inputs and channels as the one that wrote them (same parallelism
 * upstream). Otherwise each valve starts with every channel at the restored
 * input watermark, active: no channel can then pull the merged watermark
 * below what the operator already saw. */
static void restore_valves(weir__subtask *sub, const msgpack_object *valves, int64_t wm)
{
    bool exact = valves && valves->type == MSGPACK_OBJECT_ARRAY &&
                 valves->via.array.size == (uint32_t)sub->ninputs + 1;
    for (int i = 0; exact && i < sub->ninputs; i++) {
        int64_t lw;
        bool li;
        exact = valve_entry(&valves->via.array.ptr[i], sub->in[i].nch, &lw, &li) != NULL;
    }
    for (int i = 0; i < sub->ninputs; i++) {
        weir__input *in = &sub->in[i];
        weir__valve_init(&in->valve, in->vch, in->nch);
        int64_t lw = wm;
        bool li = false;
        const msgpack_object *chs = exact ? valve_entry(&valves->via.array.ptr[i], in->nch, &lw,
                                                        &li)
                                          : NULL;
        for (int c = 0; c < in->nch; c++) {
            int64_t cw = wm;
            bool ci = false;
            if (chs)
                get_wm_idle(&chs->via.array.ptr[c], &cw, &ci);
            if (cw > WEIR_TS_MIN)
                (void)weir__valve_watermark(&in->valve, c, cw);
            if (ci)
                (void)weir__valve_idle(&in->valve, c);
        }
        in->valve.last_wm = lw;
        in->valve.last_idle = li;
    }
    weir__combiner *cb = &sub->comb;
    int64_t lw = wm;
    bool li = false;
    const msgpack_object *chs =
        exact ? valve_entry(&valves->via.array.ptr[sub->ninputs], cb->n, &lw, &li) : NULL;
    for (int k = 0; k < cb->n; k++) {
        cb->wm[k] = wm;
        cb->idle[k] = false;
        if (chs)
            get_wm_idle(&chs->via.array.ptr[k], &cb->wm[k], &cb->idle[k]);
    }
    cb->last_wm = lw;
    cb->last_idle = li;
}

static bool time_of(const msgpack_object *piece, int64_t t[2], bool idle[2])
{
    const msgpack_object *tm = weir__mp_member(piece, "time");
    if (!tm || tm->type != MSGPACK_OBJECT_ARRAY || tm->via.array.size != 4)
        return false;
    for (int k = 0; k < 2; k++) {
        const msgpack_object *w = &tm->via.array.ptr[2 * k], *b = &tm->via.array.ptr[2 * k + 1];
        if (!weir__mp_is_int(w) || b->type != MSGPACK_OBJECT_BOOLEAN)
            return false;
        t[k] = w->via.i64;
        idle[k] = b->via.boolean;
    }
    return true;
}

/* Which old subtasks' files a subtask restores from: at the same
 * parallelism its own; at another, a keyed operator takes every old subtask
 * whose key groups overlap its own (and keeps its own groups' entries), one
 * that is not keyed the old subtasks j with j % parallelism == its index. */
static bool takes_from(const weir__restore_op *op, const weir_ctx *ctx, uint32_t maxp, int j)
{
    if (ctx->node->union_state)
        return true;
    if (op->parallelism == ctx->parallelism)
        return j == ctx->subtask;
    if (!op->keyed)
        return j % ctx->parallelism == ctx->subtask;
    uint32_t f, l, of, ol;
    weir__key_group_range(maxp, (uint32_t)ctx->parallelism, (uint32_t)ctx->subtask, &f, &l);
    weir__key_group_range(maxp, (uint32_t)op->parallelism, (uint32_t)j, &of, &ol);
    return of <= l && f <= ol;
}

static int restore_ctx(weir_ctx *ctx, const weir__restore *rs, const weir__restore_op *op)
{
    uint32_t maxp = rs->max_parallelism;
    uint32_t first = 0, last = maxp - 1;
    if (ctx_keyed(ctx))
        weir__key_group_range(maxp, (uint32_t)ctx->parallelism, (uint32_t)ctx->subtask, &first,
                              &last);
    const msgpack_object **blobs = calloc((size_t)op->parallelism, sizeof *blobs);
    if (!blobs)
        return weir_ctx_fail(ctx, WEIR_ENOMEM, "restore: out of memory");
    int nblobs = 0;
    int64_t wm = WEIR_TS_MAX, gate = WEIR_TS_MAX, own_wm = WEIR_TS_MIN, own_gate = WEIR_TS_MIN;
    bool in_idle = false, out_idle = false;
    const msgpack_object *valves = NULL;
    char err[256];
    int r = 0;
    for (int j = 0; r == 0 && j < op->parallelism; j++) {
        const msgpack_object *piece = &op->pieces[j].data;
        int64_t t[2];
        bool idle[2];
        if (!time_of(piece, t, idle)) {
            r = weir_ctx_fail(ctx, WEIR_EFORMAT, "restore: checkpoint %" PRId64 ", subtask %d "
                              "of '%s': not an operator subtask's state", rs->id, j, op->uid);
            break;
        }
        /* Event time comes back as the least of every old subtask's: never
         * ahead of what any part of the old operator had seen. */
        if (t[0] < wm)
            wm = t[0];
        if (t[1] < gate)
            gate = t[1];
        if (!takes_from(op, ctx, maxp, j))
            continue;
        if (op->parallelism == ctx->parallelism && j == ctx->subtask) {
            in_idle = idle[0];
            out_idle = idle[1];
            own_wm = t[0];
            own_gate = t[1];
            valves = weir__mp_member(piece, "valves");
        }
        r = weir__keyed_restore(ctx, weir__mp_member(piece, "keyed"), maxp, first, last, err,
                                sizeof err);
        if (r < 0) {
            r = weir_ctx_fail(ctx, r, "restore: checkpoint %" PRId64 ", subtask %d of '%s': %s",
                              rs->id, j, op->uid, err);
            break;
        }
        const msgpack_object *b = weir__mp_member(piece, "op");
        if (b && b->type == MSGPACK_OBJECT_BIN)
            blobs[nblobs++] = b;
    }
    if (op->parallelism == ctx->parallelism) { /* the subtask's own event time */
        wm = own_wm;
        gate = own_gate;
    }
    if (r == 0) {
        ctx->input.wm = wm;
        ctx->input.idle = in_idle;
        ctx->out.gate.last = gate;
        ctx->out.gate.idle = out_idle;
        if (ctx->sub && ctx->sub->ctxs[0] == ctx && !ctx->is_source)
            restore_valves(ctx->sub, valves, wm);
        int (*hook)(weir_ctx *, weir_snapshot_reader *) =
            ctx->is_source ? ctx->svt.restore : ctx->vt.restore;
        if (hook) {
            weir_snapshot_reader rd = {.blobs = blobs, .n = nblobs};
            r = hook(ctx, &rd);
            if (r < 0 && !ctx->error)
                weir_ctx_fail(ctx, r, "restore failed: %s (%s)", weir_strerror(r),
                              weir_err_name(r));
        } else if (nblobs > 0) {
            r = weir_ctx_fail(ctx, WEIR_EINVAL,
                              "restore: checkpoint %" PRId64 " holds state the operator's "
                              "snapshot hook wrote, and this operator has no restore hook",
                              rs->id);
        }
    }
    free(blobs);
    return r < 0 ? r : 0;
}

int weir__restore_subtask(weir__subtask *sub)
{
    const weir__restore *rs = sub->job->restore;
    if (!rs)
        return 0;
    for (int i = 0; i < sub->nctx; i++) {
        weir_ctx *ctx = sub->ctxs[i];
        int k = rs->op_of_node[ctx->node->id];
        if (k < 0)
            continue;
        int r = restore_ctx(ctx, rs, &rs->ops[k]);
        if (r < 0)
            return r;
    }
    return 0;
}
