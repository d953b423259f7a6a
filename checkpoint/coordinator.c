/* coordinator.c — the checkpoint coordinator's thread (coordinator.h):
 * triggers, acks, writing a checkpoint's files, completion, aborts, the
 * final checkpoint, statistics.
 *
 * One checkpoint at a time: N+1 is triggered no sooner than interval_ms
 * after N was and min_pause_ms after N ended. N is complete when every
 * subtask has acked N or acked its final snapshot (a subtask that finished
 * contributes its final state: everything it ever received came before
 * N's barrier). Writing happens here, off the workers: the files named
 * "<operator uid>-<subtask>" and `_metadata` last (checkpoint_store.h).
 */
#include "coordinator.h"

#include <inttypes.h>
#include <msgpack.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checkpoint_store.h"
#include "diag.h"
#include "futex.h"
#include "job_state.h"
#include "restore.h"
#include "scheduler.h"
#include "util.h"
#include "weir/error.h"

#define DEFAULT_TIMEOUT_MS 600000
#define DEFAULT_RETAIN 3
#define POLL_MS 50 /* the longest the thread sleeps without a reason */

void weir__coord_ack(weir_job *job, weir__ack *ack)
{
    weir__coord *c = job->coord;
    pthread_mutex_lock(&c->ack_lock);
    ack->next = c->acks;
    c->acks = ack;
    pthread_mutex_unlock(&c->ack_lock);
    atomic_fetch_add(&c->wake, 1);
    weir__futex_wake(&c->wake);
}

void weir__coord_note_restore(weir__coord *c, int64_t restored_id, int skipped,
                              const char *last_skip)
{
    pthread_mutex_lock(&c->stats_lock);
    c->stats.restored_id = restored_id;
    c->stats.skipped = skipped;
    if (last_skip)
        snprintf(c->stats.last_problem, sizeof c->stats.last_problem, "%s", last_skip);
    pthread_mutex_unlock(&c->stats_lock);
}

int weir_job_checkpoint_stats(const weir_job *job, weir_checkpoint_stats *out)
{
    if (!job || !out)
        return WEIR_EINVAL;
    weir__coord *c = job->coord;
    pthread_mutex_lock(&c->stats_lock);
    *out = c->stats;
    pthread_mutex_unlock(&c->stats_lock);
    return 0;
}

/* ---- names ---------------------------------------------------------------- */

static const char *node_uid(const weir__node *n)
{
    return n->uid ? n->uid : n->name;
}

/* The longest part of a uid a state file's name keeps: the store takes
 * names under 200 bytes, and a name gains "-<subtask>" and may gain
 * "~<node id>" (make_names). */
#define FILE_NAME_UID_MAX 120

/* A state file's name: the uid with every byte that is not a letter, digit,
 * '.', '-' made '_' (a name is any text), then "-<subtask>". A uid longer
 * than FILE_NAME_UID_MAX (SQL names an operator by its whole expression
 * text) keeps its first 103 bytes and "~" and 16 hex digits of a hash of
 * the whole uid, so that long uids that begin alike still differ. */
static char *file_name(const weir__node *n, int subtask)
{
    const char *uid = node_uid(n);
    size_t len = strlen(uid);
    uint64_t hash = 0;
    if (len > FILE_NAME_UID_MAX) {
        hash = UINT64_C(14695981039346656037); /* FNV-1a */
        for (size_t i = 0; i < len; i++)
            hash = (hash ^ (unsigned char)uid[i]) * UINT64_C(1099511628211);
        len = FILE_NAME_UID_MAX - 17;
    }
    char *s = malloc(len + 48);
    if (!s)
        return NULL;
    for (size_t i = 0; i < len; i++) {
        unsigned char ch = (unsigned char)uid[i];
        bool ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
                  (ch >= '0' && ch <= '9') || ch == '-' || (ch == '.' && i > 0);
        s[i] = ok ? (char)ch : '_';
    }
    if (s[0] == '_')
        s[0] = 'x'; /* the store reserves names that start with '_' or '.' */
    if (hash)
        len += (size_t)snprintf(s + len, 24, "~%016" PRIx64, hash);
    snprintf(s + len, 24, "-%d", subtask);
    return s;
}

/* ---- writing a checkpoint ------------------------------------------------- */

static int pack_str(msgpack_packer *pk, const char *s)
{
    return msgpack_pack_str_with_body(pk, s, strlen(s));
}

/* The snapshot of subtask s for the checkpoint being written. */
static const weir__ack *ack_of(const weir__coord *c, int s)
{
    return c->have[s] ? c->have[s] : c->final[s];
}

/* `_metadata`'s "job": what the restore needs to match files to operators. */
static int pack_job(weir_job *job, bool final, int64_t now, char ***names, msgpack_sbuffer *sb)
{
    weir__plan *plan = job->plan;
    const weir__graph *g = &job->graph;
    msgpack_packer pk;
    msgpack_packer_init(&pk, sb, msgpack_sbuffer_write);
    int e = msgpack_pack_map(&pk, 6);
    e |= pack_str(&pk, "savepoint");
    e |= job->coord->pending_savepoint ? msgpack_pack_true(&pk) : msgpack_pack_false(&pk);
    e |= pack_str(&pk, "max_parallelism");
    e |= msgpack_pack_uint32(&pk, job->max_parallelism);
    e |= pack_str(&pk, "mode");
    e |= pack_str(&pk, job->chk.exactly_once ? "exactly_once" : "at_least_once");
    e |= pack_str(&pk, "time_ms");
    e |= msgpack_pack_int64(&pk, now);
    e |= pack_str(&pk, "final");
    e |= final ? msgpack_pack_true(&pk) : msgpack_pack_false(&pk);
    e |= pack_str(&pk, "operators");
    e |= msgpack_pack_array(&pk, (size_t)g->nnodes);
    for (int n = 0; n < g->nnodes; n++) {
        const weir__node *node = g->nodes[n];
        weir_ctx **ctxs = plan->node_ctx[n];
        e |= msgpack_pack_map(&pk, 6);
        e |= pack_str(&pk, "uid");
        e |= pack_str(&pk, node_uid(node));
        e |= pack_str(&pk, "name");
        e |= pack_str(&pk, node->name);
        e |= pack_str(&pk, "parallelism");
        e |= msgpack_pack_int(&pk, node->parallelism);
        e |= pack_str(&pk, "keyed");
        e |= ctxs[0]->keyed.key_size > 0 ? msgpack_pack_true(&pk) : msgpack_pack_false(&pk);
        e |= pack_str(&pk, "source");
        e |= node->is_source ? msgpack_pack_true(&pk) : msgpack_pack_false(&pk);
        e |= pack_str(&pk, "files");
        e |= msgpack_pack_array(&pk, (size_t)node->parallelism);
        for (int i = 0; i < node->parallelism; i++)
            e |= pack_str(&pk, names[n][i]);
    }
    return e ? WEIR_ENOMEM : 0;
}

static void free_names(char ***names, int nnodes)
{
    if (!names)
        return;
    for (int n = 0; n < nnodes; n++) {
        if (names[n]) {
            for (int i = 0; names[n][i]; i++)
                free(names[n][i]);
            free(names[n]);
        }
    }
    free(names);
}

static bool name_used(char ***names, int upto, const char *s)
{
    for (int m = 0; m < upto; m++) {
        for (int i = 0; names[m][i]; i++) {
            if (strcmp(names[m][i], s) == 0)
                return true;
        }
    }
    return false;
}

/* Every node's file names, unique in the checkpoint: a node one of whose
 * names comes out the same as an earlier node's gets "~<node id>" on all. */
static char ***make_names(weir_job *job)
{
    const weir__graph *g = &job->graph;
    char ***names = calloc((size_t)g->nnodes, sizeof *names);
    if (!names)
        return NULL;
    for (int n = 0; n < g->nnodes; n++) {
        const weir__node *node = g->nodes[n];
        names[n] = calloc((size_t)node->parallelism + 1, sizeof *names[n]);
        if (!names[n])
            goto oom;
        bool clash = false;
        for (int i = 0; i < node->parallelism; i++) {
            if (!(names[n][i] = file_name(node, i)))
                goto oom;
            clash = clash || name_used(names, n, names[n][i]);
        }
        for (int i = 0; clash && i < node->parallelism; i++) {
            size_t len = strlen(names[n][i]) + 24;
            char *t = malloc(len);
            if (!t)
                goto oom;
            snprintf(t, len, "%s~%d", names[n][i], n);
            free(names[n][i]);
            names[n][i] = t;
        }
    }
    return names;
oom:
    free_names(names, g->nnodes);
    return NULL;
}

/* Writes checkpoint `id` from the acks in hand. 0, or a WEIR_E* code with the
 * reason in why. */
static int write_checkpoint(weir_job *job, int64_t id, bool final, int64_t now, int64_t *bytes,
                            char *why, size_t whysize)
{
    weir__coord *c = job->coord;
    weir__plan *plan = job->plan;
    char ***names = make_names(job);
    if (!names) {
        snprintf(why, whysize, "out of memory");
        return WEIR_ENOMEM;
    }
    weir__chk_writer w = {0};
    msgpack_sbuffer sb;
    msgpack_sbuffer_init(&sb);
    *bytes = 0;
    const char *parent = c->pending_savepoint ? c->asked->dir : job->chk_dir;
    int r = weir__chk_begin(&w, parent, id);
    for (int s = 0; r == 0 && s < plan->nsubs; s++) {
        const weir__subtask *sub = plan->subs[s];
        const weir__ack *ack = ack_of(c, s);
        for (int k = 0; r == 0 && k < ack->npieces; k++) {
            const weir_ctx *ctx = sub->ctxs[k];
            const char *name = names[ctx->node->id][ctx->subtask];
            r = weir__chk_write(&w, name, ack->pieces[k].data, ack->pieces[k].len);
            *bytes += (int64_t)ack->pieces[k].len;
        }
    }
    if (r == 0) {
        r = pack_job(job, final, now, names, &sb);
        if (r)
            snprintf(w.err, sizeof w.err, "out of memory");
    }
    if (r == 0) {
        /* A savepoint's folder keeps every savepoint: they are the user's. */
        int retain = c->pending_savepoint               ? INT32_MAX
                     : job->cfg.checkpoint.retain > 0 ? job->cfg.checkpoint.retain
                                                      : DEFAULT_RETAIN;
        r = weir__chk_commit(&w, sb.data, sb.size, retain);
    }
    if (r)
        snprintf(why, whysize, "%s", w.err);
    if (r && w.dir)
        weir__chk_abort(&w);
    weir__chk_writer_free(&w);
    msgpack_sbuffer_destroy(&sb);
    free_names(names, job->graph.nnodes);
    return r;
}

/* ---- the checkpoint in progress ------------------------------------------- */

static void wake_all(weir_job *job, bool sources_only)
{
    for (int s = 0; s < job->plan->nsubs; s++) {
        weir__subtask *sub = job->plan->subs[s];
        if (!sources_only || sub->ctxs[0]->is_source)
            weir__sched_wake(sub);
    }
}

static void drop_have(weir__coord *c)
{
    for (int s = 0; s < c->nsubs; s++) {
        weir__ack_free(c->have[s]);
        c->have[s] = NULL;
    }
}

/* Answers the savepoint request in progress (weir_job_savepoint waits). */
static void answer(weir__coord *c, int result, int64_t id, const char *why)
{
    pthread_mutex_lock(&c->sp_lock);
    if (c->asked && !c->asked->done) {
        c->asked->result = result;
        c->asked->id = id;
        snprintf(c->asked->why, sizeof c->asked->why, "%s", why ? why : "");
        c->asked->done = true;
        pthread_cond_broadcast(&c->sp_done);
    }
    pthread_mutex_unlock(&c->sp_lock);
}

static void abort_pending(weir_job *job, int64_t now, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void abort_pending(weir_job *job, int64_t now, const char *fmt, ...)
{
    weir__coord *c = job->coord;
    char msg[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    weir__diag_checkpoint_end(job, c->pending, true, 0, now - c->pending_since, msg);
    pthread_mutex_lock(&c->stats_lock);
    c->stats.aborted++;
    snprintf(c->stats.last_problem, sizeof c->stats.last_problem,
             "checkpoint %" PRId64 " aborted: %s", c->pending, msg);
    pthread_mutex_unlock(&c->stats_lock);
    drop_have(c);
    if (c->pending_savepoint)
        answer(c, WEIR_EIO, c->pending, c->stats.last_problem);
    c->pending_savepoint = false;
    c->pending = 0;
    c->last_end = now;
}

/* Writes and completes checkpoint `id` (the pending one, or the final one),
 * then tells every subtask. */
static int complete(weir_job *job, int64_t id, bool final, int64_t now)
{
    weir__coord *c = job->coord;
    int64_t bytes = 0;
    double align_ms = 0;
    char why[600];
    /* A checkpoint of final snapshots only is the job's final one, whether
     * the end or a trigger made it. */
    bool all_final = c->nfinal == c->nsubs;
    for (int s = 0; s < c->nsubs && all_final; s++)
        all_final = c->have[s] == NULL;
    final = final || all_final;
    int r = write_checkpoint(job, id, final, now, &bytes, why, sizeof why);
    /* complete once its files are on disk: the fsyncs count in its duration */
    now = weir__clock_now(&job->clock);
    for (int s = 0; s < c->nsubs; s++) {
        const weir__ack *a = ack_of(c, s);
        if ((double)a->align_ns / 1e6 > align_ms)
            align_ms = (double)a->align_ns / 1e6;
    }
    if (r) {
        if (final) {
            weir__job_fail(job, r, "the job's final checkpoint %" PRId64 " could not be written: %s",
                           id, why);
            weir__sched_cancel(job);
            return r;
        }
        abort_pending(job, now, "%s", why);
        return r;
    }
    /* the final checkpoint has no trigger: it took no time to align */
    int64_t duration = c->pending == id ? now - c->pending_since : 0;
    weir__diag_checkpoint_end(job, id, false, bytes, duration, NULL);
    pthread_mutex_lock(&c->stats_lock);
    c->stats.completed++;
    c->stats.last_completed_id = id;
    c->stats.last_bytes = bytes;
    if (bytes > c->stats.max_bytes)
        c->stats.max_bytes = bytes;
    c->stats.last_duration_ms = duration;
    if (align_ms > c->stats.max_alignment_ms)
        c->stats.max_alignment_ms = align_ms;
    pthread_mutex_unlock(&c->stats_lock);
    c->last_all_final = all_final;
    drop_have(c);
    c->pending = 0;
    c->last_end = now;
    atomic_store(&job->chk.completed, id);
    if (c->pending_savepoint) {
        c->pending_savepoint = false;
        pthread_mutex_lock(&c->sp_lock);
        bool stop = c->asked && c->asked->stop;
        pthread_mutex_unlock(&c->sp_lock);
        if (stop) { /* answered once every subtask heard of it */
            c->stopping = true;
            c->stop_id = id;
        } else {
            answer(c, 0, id, NULL);
        }
    }
    if (c->last_all_final) {
        c->final_written = true;
        atomic_store(&job->chk.final_done, 1);
    }
    wake_all(job, false);
    return 0;
}

static bool pending_complete(const weir__coord *c)
{
    for (int s = 0; s < c->nsubs; s++) {
        if (!c->have[s] && !c->final[s])
            return false;
    }
    return true;
}

static void take_acks(weir_job *job, int64_t now)
{
    weir__coord *c = job->coord;
    pthread_mutex_lock(&c->ack_lock);
    weir__ack *list = NULL;
    while (c->acks) { /* reversed: in the order they came */
        weir__ack *a = c->acks;
        c->acks = a->next;
        a->next = list;
        list = a;
    }
    pthread_mutex_unlock(&c->ack_lock);
    while (list) {
        weir__ack *ack = list;
        list = ack->next;
        if (ack->final) {
            if (!c->final[ack->sub])
                c->nfinal++;
            weir__ack_free(c->final[ack->sub]);
            c->final[ack->sub] = ack;
        } else if (c->pending && ack->id == c->pending) {
            weir__ack_free(c->have[ack->sub]);
            c->have[ack->sub] = ack;
        } else {
            weir__ack_free(ack); /* of a checkpoint aborted meanwhile */
        }
    }
    if (c->pending && pending_complete(c))
        complete(job, c->pending, false, now);
}

static int64_t cfg_timeout(const weir_job *job)
{
    int64_t t = job->cfg.checkpoint.timeout_ms;
    return t > 0 ? t : DEFAULT_TIMEOUT_MS;
}

/* Stop-with-savepoint: once every subtask ran notify_complete for it (or
 * finished), the job ends, with the savepoint named as why. Returns true
 * when it did. */
static bool stop_heard(weir_job *job)
{
    weir__coord *c = job->coord;
    for (int s = 0; s < job->plan->nsubs; s++) {
        weir__subtask *sub = job->plan->subs[s];
        if (atomic_load(&sub->notified_seen) < c->stop_id && !c->final[s])
            return false;
    }
    char why[600];
    pthread_mutex_lock(&c->sp_lock);
    snprintf(why, sizeof why, "stopped with savepoint %" PRId64 " in %s", c->stop_id,
             c->asked ? c->asked->dir : "?");
    pthread_mutex_unlock(&c->sp_lock);
    weir__job_fail(job, WEIR_ECANCELED, "%s", why);
    answer(c, 0, c->stop_id, NULL);
    weir__sched_cancel(job);
    return true;
}

static void *coord_main(void *arg)
{
    weir_job *job = arg;
    weir__coord *c = job->coord;
    const weir_checkpoint_config *cc = &job->cfg.checkpoint;
    int64_t last_trigger = weir__clock_now(&job->clock);
    while (!atomic_load(&c->stop)) {
        uint32_t seen = atomic_load(&c->wake);
        int64_t now = weir__clock_now(&job->clock);
        take_acks(job, now);
        if (c->pending && now - c->pending_since >= cfg_timeout(job))
            abort_pending(job, now, "not complete after %" PRId64 " ms (checkpoint.timeout_ms)",
                          cfg_timeout(job));
        if (c->stopping) {
            if (stop_heard(job))
                break;
            weir__futex_wait(&c->wake, seen, 1);
            continue;
        }
        bool asked = false;
        pthread_mutex_lock(&c->sp_lock);
        asked = c->asked && !c->asked->done;
        pthread_mutex_unlock(&c->sp_lock);
        if (asked && !c->pending && c->nfinal == c->nsubs) {
            answer(c, WEIR_ESTATE, 0, "the job has finished: there is nothing to take a "
                                      "savepoint of");
            continue;
        }
        if (asked && !c->pending) {
            c->pending = c->next_id++;
            c->pending_since = now;
            c->pending_savepoint = true;
            weir__diag_checkpoint_trigger(job, c->pending, true);
            atomic_store(&job->chk.trigger, c->pending);
            wake_all(job, true);
            continue;
        }
        if (!c->final_written && c->nfinal == c->nsubs && !c->pending) {
            /* Every subtask finished: the final checkpoint, of final
             * snapshots only (unless the last one already was). */
            if (c->last_all_final) {
                c->final_written = true;
                atomic_store(&job->chk.final_done, 1);
                wake_all(job, false);
            } else if (complete(job, c->next_id++, true, now) != 0) {
                break;
            }
            continue;
        }
        int64_t due = last_trigger + cc->interval_ms;
        if (c->last_end + cc->min_pause_ms > due)
            due = c->last_end + cc->min_pause_ms;
        if (cc->interval_ms > 0 && !c->pending && c->nfinal < c->nsubs && now >= due) {
            c->pending = c->next_id++;
            c->pending_since = now;
            last_trigger = now;
            weir__diag_checkpoint_trigger(job, c->pending, false);
            atomic_store(&job->chk.trigger, c->pending);
            wake_all(job, true);
            /* subtasks that already finished acked their final state */
            if (pending_complete(c))
                complete(job, c->pending, false, now);
            continue;
        }
        int64_t wait = POLL_MS;
        if (cc->interval_ms > 0 && !c->pending && due - now < wait)
            wait = due - now > 0 ? due - now : 0;
        if (c->pending && c->pending_since + cfg_timeout(job) - now < wait)
            wait = c->pending_since + cfg_timeout(job) - now;
        if (wait > 0)
            weir__futex_wait(&c->wake, seen, wait);
    }
    return NULL;
}

/* ---- start and stop ------------------------------------------------------- */

/* The first id this run uses: above the restored checkpoint's and above
 * every chk-N already in the folder (ids only grow there). */
static int64_t first_id(weir_job *job)
{
    int64_t id = job->restore ? job->restore->id : 0;
    char **dirs = NULL;
    size_t n = 0;
    bool single = false;
    char err[256];
    if (weir__chk_list(job->chk_dir, &dirs, &n, &single, err, sizeof err) == 0 && !single) {
        for (size_t i = 0; i < n; i++) {
            const char *base = strrchr(dirs[i], '/');
            base = base ? base + 1 : dirs[i];
            long long v = 0;
            if (sscanf(base, "chk-%lld", &v) == 1 && v > id)
                id = v;
        }
    }
    weir__chk_list_free(dirs, n);
    return id + 1;
}

int weir__coord_create(weir_job *job)
{
    weir__coord *c = calloc(1, sizeof *c);
    if (!c)
        return WEIR_ENOMEM;
    pthread_mutex_init(&c->stats_lock, NULL);
    pthread_mutex_init(&c->sp_lock, NULL);
    pthread_mutex_init(&c->ack_lock, NULL);
    pthread_cond_init(&c->sp_done, NULL);
    job->coord = c;
    return 0;
}

void weir__coord_destroy(weir_job *job)
{
    weir__coord *c = job->coord;
    if (!c)
        return;
    weir__coord_stop(job);
    pthread_mutex_destroy(&c->stats_lock);
    pthread_mutex_destroy(&c->sp_lock);
    pthread_mutex_destroy(&c->ack_lock);
    pthread_cond_destroy(&c->sp_done);
    free(c);
    job->coord = NULL;
}

int weir__coord_start(weir_job *job)
{
    weir__coord *c = job->coord;
    weir__plan *plan = job->plan;
    job->chk.enabled = job->cfg.checkpoint.interval_ms > 0 || job->chk_dir;
    job->chk.exactly_once = job->cfg.checkpoint.mode == WEIR_CHECKPOINT_EXACTLY_ONCE;
    if (!job->chk.enabled)
        return 0;
    for (int n = 0; n < job->graph.nnodes; n++) {
        const weir__node *node = job->graph.nodes[n];
        if (node->is_source && !node->source.snapshot)
            return weir__job_fail(job, WEIR_EINVAL,
                                  "checkpoints need every source's position: the source '%s' has "
                                  "no snapshot hook (weir_source_vtable V2)",
                                  node->name);
    }
    c->nsubs = plan->nsubs;
    c->have = calloc((size_t)c->nsubs, sizeof *c->have);
    c->final = calloc((size_t)c->nsubs, sizeof *c->final);
    if (!c->have || !c->final)
        return weir__job_fail(job, WEIR_ENOMEM, "starting checkpoints: out of memory");
    c->next_id = first_id(job);
    c->last_end = INT64_MIN / 2;
    pthread_mutex_lock(&c->sp_lock);
    int pe = pthread_create(&c->thread, NULL, coord_main, job);
    c->started = pe == 0;
    pthread_mutex_unlock(&c->sp_lock);
    if (pe != 0)
        return weir__job_fail(job, WEIR_ENOMEM, "starting the checkpoint coordinator: %s",
                              strerror(pe));
    return 0;
}

void weir__coord_stop(weir_job *job)
{
    weir__coord *c = job->coord;
    pthread_mutex_lock(&c->sp_lock);
    bool started = c->started;
    c->started = false; /* weir_job_savepoint refuses from now on */
    pthread_mutex_unlock(&c->sp_lock);
    if (started) {
        atomic_store(&c->stop, 1);
        atomic_fetch_add(&c->wake, 1);
        weir__futex_wake(&c->wake);
        pthread_join(c->thread, NULL);
    }
    answer(c, WEIR_ECANCELED, 0, "the job ended before the savepoint completed");
    if (!c->have)
        return;
    while (c->acks) {
        weir__ack *a = c->acks;
        c->acks = a->next;
        weir__ack_free(a);
    }
    for (int s = 0; s < c->nsubs; s++) {
        weir__ack_free(c->have[s]);
        weir__ack_free(c->final[s]);
    }
    free(c->have);
    free(c->final);
    c->have = c->final = NULL;
}

int weir_job_savepoint(weir_job *job, const char *dir, bool stop, int64_t *id, char *why,
                       size_t whysize)
{
    if (why && whysize)
        why[0] = '\0';
    if (id)
        *id = 0;
    if (!job || !dir || !*dir)
        return WEIR_EINVAL;
    weir__coord *c = job->coord;
    weir__savepoint req = {.dir = dir, .stop = stop};
    pthread_mutex_lock(&c->sp_lock);
    int r = 0;
    if (!c->started) {
        r = WEIR_ESTATE;
        snprintf(req.why, sizeof req.why, "the job is not running with checkpoints (a savepoint "
                                          "needs checkpoint.dir or checkpoint.interval_ms)");
    } else if (c->asked) {
        r = WEIR_ESTATE;
        snprintf(req.why, sizeof req.why, "another savepoint is being taken");
    } else {
        c->asked = &req;
        atomic_fetch_add(&c->wake, 1);
        weir__futex_wake(&c->wake);
        while (!req.done)
            pthread_cond_wait(&c->sp_done, &c->sp_lock);
        c->asked = NULL;
        r = req.result;
    }
    pthread_mutex_unlock(&c->sp_lock);
    if (why && whysize)
        snprintf(why, whysize, "%s", req.why);
    if (id)
        *id = req.id;
    return r;
}
