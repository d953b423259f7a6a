/* scheduler.c — the worker threads: run queues, wake-ups, parking, timers
 * and the virtual clock (design in scheduler.h).
 *
 * A worker's loop: take the runnable subtasks other threads queued for it
 * (inbox), run the first subtask of its local FIFO for one step, put it back
 * at the tail if it can do more, otherwise let it go (clear its flag, then
 * look once more, so a batch that arrived meanwhile is not missed). Every few
 * steps, and whenever the FIFO runs dry, it schedules the subtasks whose
 * processing-time deadline has come. With nothing to do it parks on a futex
 * until someone queues work for it or its earliest deadline comes.
 */
#include "scheduler.h"

#include <errno.h>
#include <poll.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "diag.h"
#include "futex.h"
#include "job_state.h"
#include "subtask.h"
#include "task.h"
#include "weir/error.h"

#define DUE_CHECK_EVERY 16
/* A worker with nothing to do looks at its inbox for a while before it
 * parks. A batch that comes meanwhile costs its producer no futex wake and
 * this worker no sleep: where two workers hand every batch to each other,
 * parking on each one cost a system call pair per batch. But a spin is CPU
 * burnt for nothing when the work comes later: the spin lasts as long as a
 * hand-off through parking costs (the worker's wake_ns, measured on its own
 * wake-ups), which bounds the waste to what parking at once would have
 * cost in latency. Within SPIN_MIN_NS..SPIN_MAX_NS, SPIN_FIRST_NS before
 * the first measurement. */
#define SPIN_FIRST_NS 10000
#define SPIN_MIN_NS 2000
#define SPIN_MAX_NS 50000
/* Every this many looks the spinning worker reads the clock and yields its
 * CPU instead of pausing, and a yield that kept it off the CPU longer than
 * SPIN_YIELD_NS ends the spin (spin_for_work). */
#define SPIN_YIELD_EVERY 64
#define SPIN_YIELD_NS 20000

static _Thread_local weir__worker *current_worker;

/* Unparks w if it is parked, counting it back in as running first. */
static void unpark(weir__worker *w)
{
    /* An exchange, not a load first: enqueue's look at `parked` must be an
     * RMW that pairs with park's (scheduler.h, "hand-offs"). */
    if (atomic_exchange(&w->parked, 0) == 1) {
        atomic_fetch_add(&w->job->running, 1);
        atomic_store_explicit(&w->unparked_at, weir__monotonic_ns(), memory_order_relaxed);
        atomic_fetch_add(&w->wake_seq, 1);
        weir__futex_wake(&w->wake_seq);
    }
}

static void push_local(weir__worker *w, weir__subtask *sub)
{
    sub->run_next = NULL;
    if (w->run_tail)
        w->run_tail->run_next = sub;
    else
        w->run_head = sub;
    w->run_tail = sub;
}

static weir__subtask *pop_local(weir__worker *w)
{
    weir__subtask *sub = w->run_head;
    if (sub) {
        w->run_head = sub->run_next;
        if (!w->run_head)
            w->run_tail = NULL;
    }
    return sub;
}

/* Queues a subtask whose scheduled flag the caller just won. */
static void enqueue(weir__subtask *sub)
{
    weir__worker *w = sub->worker;
    if (current_worker == w) {
        push_local(w, sub);
        return;
    }
    cds_wfcq_enqueue(&w->inbox_head, &w->inbox_tail, &sub->inbox_node);
    unpark(w);
}

void weir__sched_wake(weir__subtask *sub)
{
    int expected = 0;
    if (atomic_compare_exchange_strong(&sub->scheduled, &expected, 1))
        enqueue(sub);
}

static void notify_data(weir__subtask *consumer)
{
    if (!consumer->worker)
        return; /* not running under the scheduler (planning, tests) */
    /* Takes the flag whatever it was (1 over 1 changes nothing): an RMW, so
     * that it pairs with run_one's clearing exchange (scheduler.h). */
    if (atomic_exchange(&consumer->scheduled, 1) == 0)
        enqueue(consumer);
}

static void notify_credit(weir__subtask *producer)
{
    if (!producer->worker)
        return;
    /* An RMW that pairs with run_one's exchange of want_credit. */
    if (atomic_exchange(&producer->want_credit, 0) == 1) {
        if (current_worker)
            current_worker->credit_wakes++;
        weir__sched_wake(producer);
    }
}

/* The producer runs this itself, on its own worker: a plain write. */
static void mark_out_blocked(weir__subtask *producer)
{
    producer->out_blocked = true;
}

const weir__channel_events weir__sched_channel_events = {
    .published = notify_data,
    .returned = notify_credit,
    .went_pending = mark_out_blocked,
};

static void drain_inbox(weir__worker *w)
{
    struct cds_wfcq_node *node;
    while ((node = __cds_wfcq_dequeue_nonblocking(&w->inbox_head, &w->inbox_tail)) != NULL &&
           node != CDS_WFCQ_WOULDBLOCK) {
        weir__subtask *sub = caa_container_of(node, weir__subtask, inbox_node);
        cds_wfcq_node_init(&sub->inbox_node);
        push_local(w, sub);
    }
}

/* Ends every weir__sched_wait_fd of the job, now and later: the eventfd
 * stays readable (nobody reads it). A write, no more: async-signal-safe. */
static void wake_fd_waiters(weir_job *job)
{
    int fd = atomic_load(&job->wake_fd);
    if (fd >= 0) {
        uint64_t one = 1;
        ssize_t w = write(fd, &one, sizeof one);
        (void)w; /* EAGAIN only if written 2^64 - 2 times: readable anyway */
    }
}

static void stop_all(weir_job *job)
{
    atomic_store(&job->stop, 1);
    wake_fd_waiters(job);
    for (int i = 0; i < job->nworkers; i++) {
        weir__worker *w = &job->workers[i];
        atomic_fetch_add(&w->wake_seq, 1);
        weir__futex_wake(&w->wake_seq);
    }
}

/* A worker that finds weir_job_cancel's flag fails the run with
 * WEIR_ECANCELED (the first error wins: a run that failed already keeps its
 * own) and stops everyone, as an operator's failure does. */
static void cancel_run(weir_job *job)
{
    weir__job_fail(job, WEIR_ECANCELED, "the job was cancelled (weir_job_cancel)");
    stop_all(job);
}

void weir__sched_cancel(weir_job *job)
{
    atomic_store(&job->cancel, 1);
    /* A source waiting for its input (weir__sched_wait_fd) wakes to see it;
     * one whose look at the flag came before the store finds the eventfd
     * (set before that look) written here. */
    wake_fd_waiters(job);
    /* Parked workers wake to see it: the same increment and wake as
     * unpark's, on the workers published so far. One that parks after this
     * load finds the flag in park()'s last look; one whose look came before
     * the store waits on a wake_seq that has moved, and returns at once.
     * Atomics and a futex system call only: async-signal-safe. */
    int n = atomic_load(&job->published);
    for (int i = 0; i < n; i++) {
        weir__worker *w = &job->workers[i];
        atomic_fetch_add(&w->wake_seq, 1);
        weir__futex_wake(&w->wake_seq);
    }
}

/* The job's wake-up eventfd, made at the first wait. -1 if it cannot be
 * made (out of descriptors): the caller then waits in short slices. */
static int job_wake_fd(weir_job *job)
{
    int fd = atomic_load(&job->wake_fd);
    if (fd >= 0)
        return fd;
    int mine = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    if (mine < 0)
        return -1;
    int expected = -1;
    if (!atomic_compare_exchange_strong(&job->wake_fd, &expected, mine)) {
        close(mine); /* another source's wait made it first */
        return expected;
    }
    return mine;
}

/* How long one poll may last when the job has no wake-up descriptor: the
 * bound on how late a cancellation is seen then. */
#define WAIT_FD_FALLBACK_MS 20

int weir__sched_wait_fd(weir_job *job, int fd, short events, int timeout_ms)
{
    struct pollfd p[2] = {{.fd = fd, .events = events}, {.fd = -1, .events = POLLIN}};
    if (job) {
        p[1].fd = job_wake_fd(job);
        /* After the eventfd is set (the CAS above, seq_cst): a cancel whose
         * store comes later finds it and writes to it. */
        if (atomic_load(&job->cancel) || atomic_load(&job->stop))
            return 0;
        if (p[1].fd < 0 && (timeout_ms < 0 || timeout_ms > WAIT_FD_FALLBACK_MS))
            timeout_ms = WAIT_FD_FALLBACK_MS;
    }
    int n = poll(p, p[1].fd >= 0 ? 2 : 1, timeout_ms);
    if (n < 0)
        return errno == EINTR ? 0 : errno == ENOMEM ? WEIR_ENOMEM : WEIR_EIO;
    return n > 0 && p[0].revents != 0;
}

static bool blocked_can_drain(weir__subtask *sub)
{
    for (int i = 0; i < sub->nouts; i++) {
        weir__channel *ch = sub->outs[i];
        if (weir__channel_blocked(ch) && weir__channel_has_credit(ch))
            return true;
    }
    return false;
}

/* Whether the subtask should run again: work now, or credit came back. */
static bool wants_to_run(weir__subtask *sub, int64_t now)
{
    if (sub->out_blocked)
        return blocked_can_drain(sub);
    return weir__subtask_ready(sub, now);
}

static void run_one(weir__worker *w, weir__subtask *sub)
{
    weir_job *job = w->job;
    int64_t now = weir__clock_now(&job->clock);
    bool was_blocked = sub->out_blocked;
    int r = weir__subtask_step(sub, now);
    sub->steps++;
    if (job->clock.is_virtual && sub->ctxs[0]->is_source && r >= 0)
        weir__sched_virtual_work(sub);
    /* Time spent with a full output, for the backpressure samples: from the
     * step that blocked to the step that got unblocked. */
    if (sub->out_blocked != was_blocked || (sub->out_blocked && sub->blocked_since_ns == 0)) {
        int64_t ns = job->clock.is_virtual ? now * 1000000 : weir__clock_now_ns(&job->clock);
        if (sub->out_blocked && sub->blocked_since_ns == 0)
            sub->blocked_since_ns = ns > 0 ? ns : 1;
        else if (!sub->out_blocked && sub->blocked_since_ns) {
            sub->blocked_ns += ns - sub->blocked_since_ns;
            sub->blocked_since_ns = 0;
        }
    }
    if (r < 0) {
        if (!atomic_load(&job->errors.failed))
            weir__job_fail(job, r, "operator '%s' subtask %d failed: %s",
                           sub->ctxs[0]->node->name, sub->index, weir_strerror(r));
        stop_all(job);
        return;
    }
    if (r == 1) {
        /* Finished: its flag stays set, so nobody queues it again. */
        if (atomic_fetch_sub(&job->remaining, 1) == 1)
            stop_all(job);
        return;
    }
    if (wants_to_run(sub, now)) {
        push_local(w, sub);
        return;
    }
    /* Clear the flag first, then ask for credit. A consumer that takes
     * want_credit must find the subtask unscheduled, so that its wake-up
     * succeeds. In the other order a credit on a channel that is not blocked
     * could take the flag while this run still holds the subtask (the wake
     * fails), the check below would find no credit on the blocked channel,
     * and the later credit on that channel would find no flag: a lost
     * wake-up that parks the whole job. */
    (void)atomic_exchange(&sub->scheduled, 0);
    if (sub->out_blocked)
        (void)atomic_exchange(&sub->want_credit, 1);
    if (wants_to_run(sub, now)) {
        int expected = 0;
        if (atomic_compare_exchange_strong(&sub->scheduled, &expected, 1))
            push_local(w, sub);
    }
}

/* Whether the subtask's deadline counts now. A subtask whose output is full
 * cannot do anything at its deadline (its step returns at once, without
 * moving the deadline), and the credit that unblocks it wakes it anyway
 * (want_credit): counting its past deadline would requeue it on every round
 * and park the worker with a zero timeout, a busy spin for as long as the
 * consumer stays slow. Nor does a draining one's (END sent, waiting for the
 * final checkpoint): credit and the coordinator's completions wake it. A
 * new one is queued from the start. */
static bool deadline_counts(const weir__subtask *sub)
{
    return sub->phase == WEIR__SUB_RUNNING && !sub->out_blocked;
}

/* Schedules owned subtasks whose deadline has come; returns how many. */
static int schedule_due(weir__worker *w, int64_t now)
{
    int n = 0;
    for (int i = 0; i < w->nowned; i++) {
        weir__subtask *sub = w->owned[i];
        if (!deadline_counts(sub) || sub->deadline > now)
            continue;
        if (atomic_load_explicit(&sub->scheduled, memory_order_relaxed))
            continue;
        int expected = 0;
        if (atomic_compare_exchange_strong(&sub->scheduled, &expected, 1)) {
            push_local(w, sub);
            n++;
        }
    }
    return n;
}

static int64_t earliest_owned(const weir__worker *w)
{
    int64_t d = INT64_MAX;
    for (int i = 0; i < w->nowned; i++) {
        const weir__subtask *sub = w->owned[i];
        if (deadline_counts(sub) && sub->deadline < d)
            d = sub->deadline;
    }
    return d;
}

/* Virtual clock, called by the worker that found every worker parked (it
 * brought `running` to 0): moves time to the earliest deadline in the job and
 * unparks the workers that own a subtask due then.
 *
 * It counts itself in while it reads the deadlines and wakes the owners, and
 * reads them all before the first wake-up. Otherwise a worker
 * it woke could run, park, find itself the last one running and advance the
 * clock a second time while this one is still reading deadlines (a data race
 * with the steps that write them) or is about to run due work of its own at
 * the old time. If it is not due itself it gives its count back; if every
 * worker it woke has parked again by then, nobody else will move the clock,
 * so it goes round again. */
static void advance_virtual(weir__worker *self)
{
    weir_job *job = self->job;
    for (;;) {
        atomic_fetch_add(&job->running, 1);
        /* Every worker published its earliest deadline before it stopped
         * counting itself in `running` (park); this worker's RMWs on
         * `running` come after those in its modification order, so relaxed
         * loads see them. Other workers' subtasks are never read here. */
        int64_t d = INT64_MAX;
        for (int i = 0; i < job->nworkers; i++) {
            int64_t e = atomic_load_explicit(&job->workers[i].due, memory_order_relaxed);
            if (e < d)
                d = e;
        }
        const int64_t self_due = atomic_load_explicit(&self->due, memory_order_relaxed);
        if (d == INT64_MAX) {
            if (atomic_load(&job->remaining) > 0 && !atomic_load(&job->stop)) {
                weir__job_fail(job, WEIR_EINTERNAL,
                               "virtual clock: no subtask can make progress and none waits for a "
                               "time (%d subtasks unfinished)",
                               atomic_load(&job->remaining));
                stop_all(job);
            }
            atomic_fetch_sub(&job->running, 1);
            return;
        }
        /* Never back: a source's work may have moved it past d meanwhile
         * (a worker woken from outside, by the checkpoint coordinator). */
        const int64_t now = weir__clock_advance_to(&job->clock, d);
        for (int i = 0; i < job->nworkers; i++) {
            if (&job->workers[i] != self &&
                atomic_load_explicit(&job->workers[i].due, memory_order_relaxed) <= now)
                unpark(&job->workers[i]);
        }
        if (self_due <= now) {
            /* Due itself: stay counted and stop being parked. If a waker
             * took the flag first, it counted this worker in once more. */
            if (atomic_exchange(&self->parked, 0) == 0)
                atomic_fetch_sub(&job->running, 1);
            return;
        }
        if (atomic_fetch_sub(&job->running, 1) != 1)
            return;
    }
}

void weir__sched_virtual_work(weir__subtask *sub)
{
    weir_job *job = sub->job;
    const int64_t out = sub->ctxs[0]->diag.counters[WEIR__CNT_OUT];
    const int64_t n = out - sub->work_counted;
    sub->work_counted = out;
    /* Work counts only since the clock last moved: a jump at quiescence, or
     * another source's work, starts the count again, so a source that
     * emits a few records between waits (a paced one) never moves it, and
     * n busy sources move it 1 ms per WEIR__VIRTUAL_RECORDS_PER_MS records
     * each, as parallel subtasks spend processing time side by side. */
    int64_t now = weir__clock_now(&job->clock);
    if (now != sub->work_since) {
        sub->work_credit = 0;
        sub->work_since = now;
    }
    sub->work_credit += n;
    if (sub->work_credit < WEIR__VIRTUAL_RECORDS_PER_MS)
        return;
    now = weir__clock_add(&job->clock, sub->work_credit / WEIR__VIRTUAL_RECORDS_PER_MS);
    sub->work_credit %= WEIR__VIRTUAL_RECORDS_PER_MS;
    sub->work_since = now;
    /* Wake the parked workers whose deadline has come (scheduler.h): the
     * look at `parked` is an RMW, after the clock's. */
    weir__worker *self = sub->worker;
    for (int i = 0; i < job->nworkers; i++) {
        weir__worker *w = &job->workers[i];
        if (w != self && atomic_fetch_or(&w->parked, 0) == 1 &&
            atomic_load_explicit(&w->due, memory_order_relaxed) <= now)
            unpark(w);
    }
}

/* After a park: an unpark's time to get this worker running again goes
 * into its wake_ns (an average over the last eight or so). */
static void note_wake(weir__worker *w)
{
    int64_t at = atomic_exchange_explicit(&w->unparked_at, 0, memory_order_relaxed);
    if (at <= 0)
        return;
    int64_t ns = weir__monotonic_ns() - at;
    if (ns < 0)
        return;
    w->wake_ns = w->wake_ns == 0 ? ns : w->wake_ns + (ns - w->wake_ns) / 8;
}

/* How long the spin before parking may last: the hand-off's cost. */
static int64_t spin_budget_ns(const weir__worker *w)
{
    int64_t ns = w->wake_ns ? w->wake_ns : SPIN_FIRST_NS;
    return ns < SPIN_MIN_NS ? SPIN_MIN_NS : ns > SPIN_MAX_NS ? SPIN_MAX_NS : ns;
}

/* A worker looks at its inbox one last time while it still counts as
 * running, and only then stops counting itself. In the other order it could
 * find work after it had stopped counting and run it while another worker,
 * seeing itself as the last one running, moved the virtual clock (and read
 * the deadlines this worker was writing). Work queued after the last look
 * finds `parked` set (the exchanges pair with enqueue's), and its unpark counts
 * this worker back in before the enqueuer itself can park. */
static void park(weir__worker *w)
{
    weir_job *job = w->job;
    uint32_t seq = atomic_load(&w->wake_seq);
    /* What the virtual clock's advance reads instead of this worker's
     * subtasks (they do not change while it is parked). */
    const int64_t due = earliest_owned(w);
    atomic_store_explicit(&w->due, due, memory_order_relaxed);
    /* No unpark can come before `parked` is set below: what an earlier one
     * left (a park that ended without sleeping) is not this wait's. */
    atomic_store_explicit(&w->unparked_at, 0, memory_order_relaxed);
    /* An RMW, so that it pairs with unpark's exchange: of the two, the later
     * one sees what the earlier one's side published (the queued subtask,
     * or the flag). */
    (void)atomic_exchange(&w->parked, 1);
    /* On the virtual clock a busy source may have moved time past this
     * worker's deadline since it last looked: then it does not sleep (the
     * advancer, which moved the clock first and looks at `parked` after,
     * may have found it not parked yet). */
    if (!cds_wfcq_empty(&w->inbox_head, &w->inbox_tail) || atomic_load(&job->stop) ||
        atomic_load(&job->cancel) ||
        (job->clock.is_virtual && due != INT64_MAX && due <= weir__clock_now_rmw(&job->clock))) {
        /* Never stopped counting; if an unpark took the flag first it
         * counted this worker in once more: take that back. */
        if (atomic_exchange(&w->parked, 0) == 0)
            atomic_fetch_sub(&job->running, 1);
        return;
    }
    int before = atomic_fetch_sub(&job->running, 1);
    w->parks++;
    int64_t timeout = -1;
    if (job->clock.is_virtual) {
        if (before == 1)
            advance_virtual(w);
        if (!atomic_load(&w->parked))
            return; /* advance_virtual unparked us (and counted us in) */
    } else {
        if (due != INT64_MAX) {
            int64_t now = weir__clock_now(&job->clock);
            timeout = due > now ? due - now : 0;
        }
    }
    weir__futex_wait(&w->wake_seq, seq, timeout);
    if (atomic_exchange(&w->parked, 0) == 1)
        atomic_fetch_add(&job->running, 1);
    note_wake(w);
}

static bool work_came(weir__worker *w)
{
    weir_job *job = w->job;
    return !cds_wfcq_empty(&w->inbox_head, &w->inbox_tail) ||
           atomic_load_explicit(&job->stop, memory_order_relaxed) ||
           atomic_load_explicit(&job->cancel, memory_order_relaxed);
}

/* Whether work came while the worker spun a little (spin_budget_ns). It
 * counts as running meanwhile, so the virtual clock does not move.
 *
 * A spin pays only while the thread that will queue the work runs on
 * another CPU. Where threads outnumber CPUs (a loaded machine, more workers
 * than cores) that thread may be waiting for the very CPU the spinner
 * holds, and a spin of pauses alone held it for all its looks (~45 us) at
 * every hand-off before that thread could run: two workers handing
 * single-record batches to each other ran 7-9 times slower on a loaded
 * 2-core machine than with no spin at all, and
 * backpressure::repeated_runs_no_lost_wakeup passed its 240 s timeout as if
 * a wake-up had been lost (none was: every park ended with its wake). So
 * the spin yields the CPU every SPIN_YIELD_EVERY looks. On a CPU nobody else
 * wants the yield returns at once and the spin goes on as before; where a
 * thread was waiting for it, that thread runs (often the one that queues
 * our work), and a yield that kept this worker off the CPU for long says
 * the CPU is wanted: the worker parks rather than spin on (park looks at
 * the inbox once more). */
static bool spin_for_work(weir__worker *w)
{
    const int64_t start = weir__monotonic_ns();
    const int64_t budget = spin_budget_ns(w);
    for (int i = 1;; i++) {
        if (work_came(w))
            return true;
        if (i % SPIN_YIELD_EVERY != 0) {
            caa_cpu_relax();
            continue;
        }
        int64_t before = weir__monotonic_ns();
        sched_yield();
        int64_t after = weir__monotonic_ns();
        if (after - before > SPIN_YIELD_NS)
            return false;
        if (after - start >= budget) {
            /* what the yield let run may have queued it */
            if (work_came(w))
                return true;
            break;
        }
    }
    w->spins_to_end++;
    return false;
}

static void *worker_main(void *arg)
{
    weir__worker *w = arg;
    weir_job *job = w->job;
    current_worker = w;
    unsigned steps = 0;
    while (!atomic_load_explicit(&job->stop, memory_order_relaxed)) {
        if (WEIR__UNLIKELY(atomic_load_explicit(&job->cancel, memory_order_relaxed))) {
            cancel_run(job);
            break;
        }
        drain_inbox(w);
        if (++steps % DUE_CHECK_EVERY == 0)
            schedule_due(w, weir__clock_now(&job->clock));
        weir__subtask *sub = pop_local(w);
        if (sub) {
            run_one(w, sub);
            continue;
        }
        if (schedule_due(w, weir__clock_now(&job->clock)) > 0 || spin_for_work(w))
            continue;
        park(w);
    }
    current_worker = NULL;
    return NULL;
}

int weir__sched_prepare(weir_job *job)
{
    weir__plan *plan = job->plan;
    int nworkers = job->cfg.workers;
    if (nworkers > plan->nsubs)
        nworkers = plan->nsubs;
    /* Cache-line aligned, so that the struct's alignas holds: each worker's
     * lines are its own. */
    job->workers = aligned_alloc(WEIR__CACHELINE, (size_t)nworkers * sizeof *job->workers);
    if (!job->workers)
        return weir__job_fail(job, WEIR_ENOMEM, "starting workers: out of memory");
    memset(job->workers, 0, (size_t)nworkers * sizeof *job->workers);
    job->nworkers = nworkers;
    for (int i = 0; i < nworkers; i++) {
        weir__worker *w = &job->workers[i];
        w->id = i;
        w->job = job;
        __cds_wfcq_init(&w->inbox_head, &w->inbox_tail);
        w->owned = calloc((size_t)plan->nsubs, sizeof *w->owned);
        if (!w->owned)
            return weir__job_fail(job, WEIR_ENOMEM, "starting workers: out of memory");
    }
    /* Spread subtasks round-robin, task by task: the subtasks of one task
     * land on different workers, and so do consecutive tasks. */
    for (int s = 0; s < plan->nsubs; s++) {
        weir__worker *w = &job->workers[s % nworkers];
        weir__subtask *sub = plan->subs[s];
        sub->worker = w;
        w->owned[w->nowned++] = sub;
        atomic_store(&sub->scheduled, 1);
        push_local(w, sub);
    }
    return 0;
}

int weir__sched_run(weir_job *job)
{
    weir__plan *plan = job->plan;
    int nworkers = job->nworkers;
    atomic_store(&job->remaining, plan->nsubs);
    atomic_store(&job->running, nworkers);
    atomic_store(&job->stop, 0);
    atomic_store(&job->published, nworkers);
    int err = 0;
    for (int i = 0; i < nworkers; i++) {
        weir__worker *w = &job->workers[i];
        /* pthread_create returns its error instead of setting errno; with
         * default attributes that is EAGAIN, a lack of resources. */
        int pe = pthread_create(&w->thread, NULL, worker_main, w);
        if (pe != 0) {
            err = weir__job_fail(job, WEIR_ENOMEM, "starting worker %d of %d: %s", i, nworkers,
                                 strerror(pe));
            stop_all(job);
            break;
        }
        w->started = true;
    }
    for (int i = 0; i < nworkers; i++) {
        if (job->workers[i].started)
            pthread_join(job->workers[i].thread, NULL);
    }
    for (int s = 0; s < plan->nsubs; s++) {
        job->futile_steps += plan->subs[s]->futile_steps;
        job->steps += plan->subs[s]->steps;
    }
    for (int i = 0; i < nworkers; i++) {
        job->spins_to_end += job->workers[i].spins_to_end;
        job->parks += job->workers[i].parks;
        job->credit_wakes += job->workers[i].credit_wakes;
    }
    if (err)
        return err;
    return job->errors.code;
}
