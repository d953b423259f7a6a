/* state_ttl.c — state time-to-live (Flink's StateTtlConfig): failed logins
 * counted per user, forgotten after a quiet spell.
 *
 * Concept: weir_state_set_ttl() gives a declared state a time to live (in
 * open(), after the declaration): a value expires `ttl_ms` after it was last
 * written (WEIR_TTL_ON_CREATE_AND_WRITE; WEIR_TTL_ON_READ_AND_WRITE counts a
 * read too), in processing time (the job clock, as Flink's default) or in
 * event time (the operator's watermark). An expired value is never returned:
 * weir_state_value finds nothing, as if the key had never written it. Expired
 * entries are also removed as the state is used (a few looked at per call,
 * Flink's incremental cleanup) and left out of checkpoints, so a key space
 * that never ends holds state bounded by the time to live (docs/STATE.md).
 *
 * The operator counts each user's failed logins in a row in a value state
 * with a 2 s time to live: a success clears it, a third failure locks the
 * user out, and a quiet spell of 2 s forgets the count. Beside it a value
 * state without a time to live keeps the time of the user's last failure
 * (cleared with the count by a success or a lock), only so that the example
 * can say when the count was forgotten. The logins
 * come from the generator (5 users, 3 a second, a failure when the value is
 * not a multiple of 3), paced on the virtual clock (WEIR_CLOCK_VIRTUAL), so
 * the run is fast and prints the same every time.
 *
 * A write, for the time to live, is a call that may write: weir_state_value
 * with create (and the list and map calls docs/STATE.md names); a pointer
 * got without create is a read, and writing through it does not start the
 * time to live again (here that would forget a count 2 s after its first
 * failure, not its last).
 *
 * What to look for: "forgotten" lines, where a user's failure found no count
 * although the user had failed before: the last failure was 2 s or more ago
 * (the gap printed: user 2's at 6333 ms is exactly 2 s, the time to live
 * reached), and the count starts again at 1; and LOCKED lines at the third
 * failure in a row, each within 2 s of the one before.
 *
 * Run: ./build/release/examples/state_ttl
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <weir.h>

#define TTL_MS 2000

typedef struct verdict {
    int64_t user;
    int64_t failures; /* in a row, counted since the count was last forgotten */
    int64_t gap_ms;   /* forgotten: the time since the last failure; else 0 */
    int64_t locked;
} verdict;

typedef struct login_state {
    int failures;     /* int64, with a time to live */
    int last_failure; /* int64 processing time, no time to live (to tell the story) */
} login_state;

static int login_open(weir_ctx *ctx)
{
    login_state *s = calloc(1, sizeof *s);
    if (!s)
        return WEIR_ENOMEM;
    weir_ctx_set_state(ctx, s);
    int r = weir_state_declare(ctx, WEIR_STATE_VALUE, sizeof(int64_t), &s->failures);
    if (r == 0)
        r = weir_state_set_ttl(ctx, s->failures,
                               &(weir_state_ttl){.ttl_ms = TTL_MS,
                                                 .time = WEIR_TTL_PROCESSING_TIME,
                                                 .update = WEIR_TTL_ON_CREATE_AND_WRITE});
    if (r == 0)
        r = weir_state_declare(ctx, WEIR_STATE_VALUE, sizeof(int64_t), &s->last_failure);
    return r;
}

static void login_close(weir_ctx *ctx)
{
    free(weir_ctx_state(ctx));
}

static int login_record(weir_ctx *ctx, int input, const void *elem, int64_t ts)
{
    (void)input;
    login_state *s = weir_ctx_state(ctx);
    const weir_gen_event *e = elem;
    int64_t now = weir_ctx_now(ctx);
    if (e->value % 3 == 0) { /* a success: the count goes (and the story) */
        weir_state_clear(ctx, s->failures, 0);
        weir_state_clear(ctx, s->last_failure, 0);
        return 0;
    }
    verdict v = {.user = e->key};
    if (!weir_state_value(ctx, s->failures, 0, false)) {
        /* no count (a read): never failed, or the count expired */
        const int64_t *last = weir_state_value(ctx, s->last_failure, 0, false);
        if (last)
            v.gap_ms = now - *last;
    }
    /* a write is weir_state_value with create (a new value starts at 0):
     * its time to live starts again. A pointer got without create is a
     * read; writing through it would not restart the time to live */
    int64_t *count = weir_state_value(ctx, s->failures, 0, true);
    if (!count)
        return weir_ctx_state_error(ctx);
    v.failures = ++*count;
    int64_t *last = weir_state_value(ctx, s->last_failure, 0, true);
    if (!last)
        return weir_ctx_state_error(ctx);
    *last = now;
    if (v.failures == 3) {
        v.locked = 1;
        weir_state_clear(ctx, s->failures, 0);
        weir_state_clear(ctx, s->last_failure, 0);
    }
    return v.gap_ms || v.locked ? weir_emit(ctx, &v, ts) : 0;
}

static const weir_operator_vtable login_vtable = {
    .version = WEIR_OPERATOR_VTABLE_V1,
    .open = login_open,
    .on_record = login_record,
    .close = login_close,
};

static void user_key(const void *elem, void *key, void *arg)
{
    (void)arg;
    memcpy(key, &((const weir_gen_event *)elem)->key, sizeof(int64_t));
}

int main(void)
{
    weir_job *job;
    if (weir_job_create(&(weir_job_config){.workers = 2, .clock = WEIR_CLOCK_VIRTUAL}, &job) != 0)
        return 1;
    /* event time 1 ms = processing time 1 ms: a login's time is its clock time */
    weir_generator_config g = {.partitions = 1, .keys = 5, .rate = 3, .count = 60,
                               .pace = WEIR_GEN_PACED, .seed = 11};
    weir_stream *s = weir_source_generator(job, &g);
    s = weir_stream_key_by(s, &(weir_key_spec){.key_size = 8, .extract = user_key});
    s = weir_stream_process(s, &(weir_process_spec){.name = "logins", .vtable = &login_vtable,
                                                     .out_size = sizeof(verdict),
                                                     .parallelism = 1});
    weir_collect *out;
    weir_sink_collect(s, &out);
    if (weir_job_run(job) != 0) {
        fprintf(stderr, "state_ttl failed: %s\n", weir_job_error(job));
        weir_job_destroy(job);
        return 1;
    }
    printf("failed logins in a row per user, the count forgotten %d ms after its last write\n\n",
           TTL_MS);
    printf("%7s  %4s  %s\n", "at ms", "user", "what happened");
    int forgotten = 0, locked = 0;
    for (size_t i = 0; i < weir_collect_count(out); i++) {
        const verdict *v = weir_collect_elem(out, i);
        printf("%7" PRId64 "  %4" PRId64 "  ", weir_collect_timestamp(out, i), v->user);
        if (v->gap_ms) {
            printf("forgotten: the last failure was %" PRId64 " ms ago; failure 1 again",
                   v->gap_ms);
            forgotten++;
        }
        if (v->locked) {
            printf("LOCKED: 3 failures in a row");
            locked++;
        }
        printf("\n");
    }
    printf("\n%d counts forgotten, %d users locked\n", forgotten, locked);
    /* the test suite runs this: a count is forgotten only after its time to live */
    int bad = forgotten == 0;
    for (size_t i = 0; i < weir_collect_count(out); i++) {
        const verdict *v = weir_collect_elem(out, i);
        bad |= v->gap_ms != 0 && v->gap_ms < TTL_MS;
    }
    weir_job_destroy(job);
    return bad;
}
