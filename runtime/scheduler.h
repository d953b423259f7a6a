/* scheduler.h — worker threads and how subtasks get to run on them.
 *
 * Every subtask is owned by one worker for the whole run. A subtask is
 * "scheduled" (atomic flag) while it sits in its worker's run queue or runs;
 * whoever makes it runnable — a producer that sent it a batch, a consumer that
 * returned a batch it was waiting for, a timer — sets the flag with a CAS and,
 * if it won, queues it: on the same worker straight into the local FIFO, from
 * another thread through the worker's wait-free inbox (liburcu cds_wfcq,
 * many producers, one consumer). A worker with nothing runnable spins a
 * little (yielding its CPU to any thread that wants it) and then parks on a
 * futex, woken by whoever queues work for it, or by its earliest timer. An
 * idle pipeline therefore uses no CPU.
 *
 * Hand-offs. Lost wake-ups are excluded the Dekker way: the notifier
 * publishes (a batch, a credit, a queued subtask) and then looks at a flag
 * (`scheduled`, `want_credit`, `parked`); the other side sets or clears that
 * flag and then looks at what would have been published. Both looks are
 * read-modify-writes (exchanges) on the flag itself, not a load after a
 * fence: RMWs on one location are totally ordered, and the later one reads
 * from the earlier, so it synchronizes with it and sees what the earlier
 * side published before. At least one side therefore sees the other, by the
 * C11 model alone (no fence, no CPU-specific instruction), and
 * ThreadSanitizer, which models atomics but not fences, sees the same
 * edges.
 *
 * Virtual clock: time moves in two ways. When the whole job is quiescent it
 * jumps: `running` counts workers that are not parked; a waker that unparks a
 * worker counts it back in before waking it, so `running` can only reach 0
 * when every worker is parked with an empty inbox. The worker that brings it
 * to 0 moves the clock to the earliest deadline of any subtask and wakes the
 * owners. And while the job is busy it advances with the work done: a source
 * subtask that has emitted WEIR__VIRTUAL_RECORDS_PER_MS records since the
 * clock last moved moves it 1 ms (weir__sched_virtual_work), as if each
 * record took 10 us, so periodic watermarks, idleness and timers keep their
 * period in a job that never waits (without it a source read at full speed
 * saw no watermark before its end). Such an advance wakes the parked workers
 * whose deadline it passed: the advancer moves the clock and then looks at
 * `parked` by an RMW; a parking worker exchanges `parked` and then looks at
 * the clock by an RMW, and does not sleep if its deadline has come (the
 * hand-off above, on two words).
 */
#ifndef WEIR_RUNTIME_SCHEDULER_H
#define WEIR_RUNTIME_SCHEDULER_H

#include <pthread.h>
#include <stdalign.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <urcu/wfcqueue.h>

#include "channel.h"
#include "util.h"

struct weir__subtask;
struct weir__diag_ring;
typedef struct weir_job weir_job;

typedef struct weir__worker {
    int id;
    weir_job *job;
    pthread_t thread;
    bool started;
    struct weir__subtask *run_head, *run_tail;
    struct weir__subtask **owned;
    int nowned;
    struct weir__diag_ring *diag;
    /* Spins before parking that looked for their whole budget in vain with
     * every yield returning at once (scheduler.c, spin_for_work). */
    unsigned long spins_to_end;
    /* Times it parked: stopped counting itself as running and waited for a
     * wake-up or its deadline (scheduler.c, park). Written by the worker
     * only; read once it has been joined. */
    unsigned long parks;
    /* Producers this worker's consumers woke with credit (scheduler.c,
     * notify_credit); summed the same way. */
    unsigned long credit_wakes;
    /* What a hand-off through parking costs here: a moving average of the
     * time from an unpark to the woken worker running, in ns. The spin
     * before parking lasts no longer (scheduler.c, spin_for_work). Written
     * by this worker only. */
    int64_t wake_ns;
    /* The earliest deadline of this worker's subtasks, published by it as it
     * parks, before it stops counting itself in job->running; the virtual
     * clock's advance reads it instead of the subtasks. Relaxed: the RMWs on
     * `running` order it (scheduler.c, advance_virtual). */
    _Atomic int64_t due;
    /* What another thread touches to hand this worker work — the inbox
     * (its tail exchanged by whoever queues, its head read at every look of
     * the spin), `parked` and `wake_seq` — share one line, apart from the
     * fields this worker writes at every step. */
    alignas(WEIR__CACHELINE) struct __cds_wfcq_head inbox_head;
    struct cds_wfcq_tail inbox_tail;
    /* 1 while parked or about to. Only ever exchanged (park, unpark): seq_cst
     * RMWs, the pair of the parked/queued hand-off above (acq_rel would do;
     * seq_cst is what plain atomic_exchange gives). */
    _Atomic int parked;
    /* When the unpark that woke it began (monotonic ns, 0: none since),
     * stored by the waker before its futex wake, taken by the woken worker
     * to measure wake_ns. */
    _Atomic int64_t unparked_at;
    /* The futex word: bumped (seq_cst RMW) before every futex wake, read
     * before publishing `parked`, so a wake-up between the last look and the
     * wait is not lost (futex.h). */
    _Atomic uint32_t wake_seq;
} weir__worker;

/* What the planner gives every channel (channel.h): a published batch
 * schedules its consumer, a returned batch wakes a producer that waits for
 * credit, a pending batch marks its producer's output blocked. */
extern const weir__channel_events weir__sched_channel_events;
/* Makes `sub` runnable (from any thread). */
void weir__sched_wake(struct weir__subtask *sub);

/* Virtual clock: records a source subtask emits per 1 ms of processing time
 * while the job is busy (10 us a record, a job doing 100 000 records a second
 * per source subtask). */
#define WEIR__VIRTUAL_RECORDS_PER_MS 100

/* Virtual clock, after a step of a source subtask on its worker: counts the
 * records it emitted since the clock last moved and moves the clock 1 ms per
 * WEIR__VIRTUAL_RECORDS_PER_MS of them, waking the workers whose deadline
 * that passes. */
void weir__sched_virtual_work(struct weir__subtask *sub);

/* Makes the job's workers (job->workers) and spreads the subtasks over
 * them, starting no thread: the diagnostic channel and the checkpoint
 * coordinator are attached to them in between (weir_job_run). Then runs the
 * subtasks on the workers until all finished or the job failed, and joins
 * them. Both on the job's thread; 0 or a WEIR_E* code (recorded). */
int weir__sched_prepare(weir_job *job);
int weir__sched_run(weir_job *job);

/* weir_job_cancel's work: raises the job's cancel flag and wakes the
 * workers that are running. Async-signal-safe, any thread. */
void weir__sched_cancel(weir_job *job);

/* Waits until `fd` is ready for `events` (poll(2)), the job is cancelled or
 * stopping, or timeout_ms passes (-1: no limit): 1 ready, 0 not, or a
 * negative WEIR_E* code (errno says why). weir_source_wait_fd's work
 * (weir/operator.h); a source's worker calls it. The job's wake-up
 * descriptor, an eventfd that cancelling and stopping write to, is made at
 * the first call and kept until weir_job_destroy. */
int weir__sched_wait_fd(weir_job *job, int fd, short events, int timeout_ms);

#endif
