/* generator.c — the synthetic source of weir/generator.h.
 *
 * Every random choice of partition p comes from its own splitmix64 stream
 * seeded by (seed, p), drawn in a fixed order per slot (key, value, disorder,
 * late), so a partition's events do not depend on pacing, batching or the
 * other partitions. Zipf keys are drawn by binary search in a cumulative
 * table built once per subtask. Written against weir/operator.h only.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "weir/error.h"
#include "weir/generator.h"
#include "weir/job.h"
#include "weir/operator.h"
#include "builder.h"

#define ZIPF_MAX_KEYS (1 << 20)

/* The largest time (ms) or count a config may lead to: 2^53, about 285 000
 * years of milliseconds. The schedule is computed in doubles (slot * 1000 /
 * rate) and converted to int64_t; below 2^53 a double holds every integer
 * exactly and no conversion can overflow, so weir_generator_check refuses
 * any config whose schedule reaches past it instead of converting out of
 * range later (undefined behaviour in C). */
#define SCHEDULE_LIMIT 9007199254740992.0

/* A uniform draw from [0, n): n and its rejection limit, the largest
 * multiple of n that fits (worked out once, not per draw). */
typedef struct gen_range {
    uint64_t n, limit;
} gen_range;

typedef struct gen_state {
    weir_generator_config cfg; /* with defaults resolved */
    int partition;
    uint64_t rng;
    int64_t slot;
    double *zipf_cdf;
    gen_range keys, values, disorder, late;
} gen_state;

static uint64_t splitmix64(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static gen_range range_of(uint64_t n)
{
    return (gen_range){n, UINT64_MAX - UINT64_MAX % n};
}

/* Uniform in [0, r->n) (n > 0), by rejection: no modulo bias. */
static uint64_t below_in(uint64_t *s, const gen_range *r)
{
    uint64_t x;
    do
        x = splitmix64(s);
    while (x >= r->limit);
    return r->n == 1 ? 0 : x % r->n;
}

/* below_in for n = 100, the values' range: the remainder by a constant,
 * which the compiler makes a multiplication. */
static uint64_t below_100(uint64_t *s, const gen_range *r)
{
    uint64_t x;
    do
        x = splitmix64(s);
    while (x >= r->limit);
    return x % 100;
}

static double unit(uint64_t *s)
{
    return (double)(splitmix64(s) >> 11) * (1.0 / 9007199254740992.0);
}

static void resolve(weir_generator_config *c)
{
    if (c->keys == 0)
        c->keys = 100;
    if (c->zipf_s == 0)
        c->zipf_s = 1.0;
    if (c->speed == 0)
        c->speed = 1.0;
}

static void event_key(const void *elem, void *key, void *arg)
{
    (void)arg;
    memcpy(key, &((const weir_gen_event *)elem)->key, sizeof(int64_t));
}

static int event_key_format(const void *key, char *buf, size_t size, void *arg)
{
    (void)arg;
    int64_t k;
    memcpy(&k, key, sizeof k);
    return snprintf(buf, size, "k%lld", (long long)k);
}

const weir_key_spec *weir_generator_key(void)
{
    static const weir_key_spec spec = {
        .key_size = sizeof(int64_t), .extract = event_key, .format = event_key_format};
    return &spec;
}

int64_t weir_generator_nominal(const weir_generator_config *cfg, int64_t slot)
{
    return cfg->start_ms + (int64_t)floor((double)slot * 1000.0 / cfg->rate);
}

/* Longer than 80 lines on purpose: one refusal per rule of
 * weir/generator.h, in its order, so that the checks read as the rules. */
int weir_generator_check(const weir_generator_config *cfg, int partitions, char *why,
                         size_t whysize)
{
#define REFUSE(...)                                                              \
    do {                                                                         \
        snprintf(why, whysize, __VA_ARGS__);                                     \
        return WEIR_EINVAL;                                                      \
    } while (0)
    if (!cfg)
        REFUSE("a config is required");
    if (!(cfg->rate > 0) || !isfinite(cfg->rate))
        REFUSE("rate %g is not > 0 (events per second of event time per partition)", cfg->rate);
    if (cfg->partitions < 0 || cfg->partitions > WEIR_MAX_PARALLELISM)
        REFUSE("partitions %d is not in 0..%d", cfg->partitions, WEIR_MAX_PARALLELISM);
    if (cfg->keys < 0)
        REFUSE("keys %lld is negative", (long long)cfg->keys);
    if (cfg->skew != WEIR_GEN_UNIFORM && cfg->skew != WEIR_GEN_ZIPF)
        REFUSE("unknown skew %d", (int)cfg->skew);
    if (cfg->skew == WEIR_GEN_ZIPF && cfg->keys > ZIPF_MAX_KEYS)
        REFUSE("zipf skew supports up to %d keys, not %lld", ZIPF_MAX_KEYS, (long long)cfg->keys);
    if (cfg->zipf_s < 0 || !isfinite(cfg->zipf_s))
        REFUSE("zipf_s %g is negative", cfg->zipf_s);
    if (cfg->pace != WEIR_GEN_FAST && cfg->pace != WEIR_GEN_PACED)
        REFUSE("unknown pace %d", (int)cfg->pace);
    if (cfg->speed < 0 || !isfinite(cfg->speed))
        REFUSE("speed %g is negative", cfg->speed);
    if (cfg->disorder_ms < 0)
        REFUSE("disorder_ms %lld is negative", (long long)cfg->disorder_ms);
    if (!(cfg->late_fraction >= 0 && cfg->late_fraction <= 1))
        REFUSE("late_fraction %g is not in [0, 1]", cfg->late_fraction);
    if (cfg->late_ms < 0)
        REFUSE("late_ms %lld is negative", (long long)cfg->late_ms);
    if (cfg->count < 0 || cfg->duration_ms < 0)
        REFUSE("count and duration_ms must not be negative");
    if (cfg->count == 0 && cfg->duration_ms == 0)
        REFUSE("neither count nor duration_ms is set: the generator would never end");
    if (cfg->nidle < 0 || cfg->nidle > WEIR_GEN_MAX_IDLE)
        REFUSE("nidle %d is not in 0..%d", cfg->nidle, WEIR_GEN_MAX_IDLE);

    /* Sizes of the schedule (SCHEDULE_LIMIT above): every slot number,
     * nominal time, delay and due time it can reach must stay below 2^53. */
    const double limit = SCHEDULE_LIMIT;
    const double gap = 1000.0 / cfg->rate; /* ms of event time between slots */
    if (gap > limit)
        REFUSE("rate %g is too small: its slots would be %g ms of event time apart, more "
               "than the 2^53 ms the schedule can reach",
               cfg->rate, gap);
    if ((double)cfg->start_ms > limit || (double)cfg->start_ms < -limit)
        REFUSE("start_ms %lld is beyond +-2^53 ms", (long long)cfg->start_ms);
    if ((double)cfg->disorder_ms > limit || (double)cfg->late_ms > limit)
        REFUSE("disorder_ms %lld and late_ms %lld must each be at most 2^53 ms",
               (long long)cfg->disorder_ms, (long long)cfg->late_ms);
    if ((double)cfg->count > limit || (double)cfg->duration_ms > limit)
        REFUSE("count %lld and duration_ms %lld must each be at most 2^53",
               (long long)cfg->count, (long long)cfg->duration_ms);
    /* How far the schedule runs: by duration (plus the slot that ends it) or
     * by count, whichever ends first. */
    double span = cfg->count > 0 ? (double)cfg->count * gap : INFINITY;
    if (cfg->duration_ms > 0) {
        if ((double)cfg->duration_ms * cfg->rate / 1000.0 > limit)
            REFUSE("rate %g over duration_ms %lld makes more than 2^53 slots", cfg->rate,
                   (long long)cfg->duration_ms);
        if ((double)cfg->duration_ms + gap < span)
            span = (double)cfg->duration_ms + gap;
    }
    if (span > limit)
        REFUSE("count %lld at rate %g spans %g ms of event time, more than 2^53 ms",
               (long long)cfg->count, cfg->rate, span);
    if (cfg->pace == WEIR_GEN_PACED && cfg->speed != 0 && span / cfg->speed > limit)
        REFUSE("speed %g is too small: the schedule's %g ms of event time would take more "
               "than 2^53 ms of processing time",
               cfg->speed, span);

    for (int i = 0; i < cfg->nidle; i++) {
        const weir_gen_idle *idle = &cfg->idle[i];
        if (idle->to_ms < idle->from_ms)
            REFUSE("idle interval %d is reversed: [%lld, %lld)", i, (long long)idle->from_ms,
                   (long long)idle->to_ms);
        if (idle->partition < 0 || (partitions > 0 && idle->partition >= partitions))
            REFUSE("idle interval %d names partition %d, but there are %d", i, idle->partition,
                   partitions);
        /* A quiet span is skipped by computing the slot at its end; from_ms
         * is only compared, so any value (WEIR_TS_MIN too) is fine. */
        if (idle->to_ms != WEIR_TS_MAX && idle->to_ms > cfg->start_ms &&
            ((double)idle->to_ms > limit ||
             ((double)idle->to_ms - (double)cfg->start_ms) * cfg->rate / 1000.0 > limit))
            REFUSE("idle interval %d ends at %lld ms, so far past start_ms %lld at rate %g that "
                   "its slot number would exceed 2^53 (WEIR_TS_MAX as to_ms means for ever)",
                   i, (long long)idle->to_ms, (long long)cfg->start_ms, cfg->rate);
    }
    return 0;
#undef REFUSE
}

static int gen_open(weir_ctx *ctx)
{
    const weir_generator_config *arg = weir_ctx_arg(ctx);
    char why[200];
    if (weir_generator_check(arg, weir_ctx_parallelism(ctx), why, sizeof why))
        return weir_ctx_fail(ctx, WEIR_EINVAL, "generator: %s", why);
    gen_state *s = calloc(1, sizeof *s);
    if (!s)
        return WEIR_ENOMEM;
    weir_ctx_set_state(ctx, s);
    s->cfg = *arg;
    resolve(&s->cfg);
    s->partition = weir_ctx_subtask(ctx);
    s->rng = s->cfg.seed ^ ((uint64_t)(s->partition + 1) * 0xD1B54A32D192ED03ull);
    splitmix64(&s->rng);
    s->keys = range_of((uint64_t)s->cfg.keys);
    s->values = range_of(100);
    s->disorder = range_of((uint64_t)s->cfg.disorder_ms + 1);
    s->late = range_of((uint64_t)s->cfg.late_ms + 1);
    if (s->cfg.skew == WEIR_GEN_ZIPF) {
        size_t n = (size_t)s->cfg.keys;
        s->zipf_cdf = malloc(n * sizeof *s->zipf_cdf);
        if (!s->zipf_cdf)
            return WEIR_ENOMEM;
        double sum = 0;
        for (size_t k = 0; k < n; k++) {
            sum += 1.0 / pow((double)(k + 1), s->cfg.zipf_s);
            s->zipf_cdf[k] = sum;
        }
        for (size_t k = 0; k < n; k++)
            s->zipf_cdf[k] /= sum;
    }
    return 0;
}

static void gen_close(weir_ctx *ctx)
{
    gen_state *s = weir_ctx_state(ctx);
    if (s)
        free(s->zipf_cdf);
    free(s);
}

static int64_t draw_key(gen_state *s)
{
    if (s->cfg.skew == WEIR_GEN_UNIFORM)
        return (int64_t)below_in(&s->rng, &s->keys);
    double u = unit(&s->rng);
    size_t lo = 0, hi = (size_t)s->cfg.keys - 1;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (s->zipf_cdf[mid] < u)
            lo = mid + 1;
        else
            hi = mid;
    }
    return (int64_t)lo;
}

static bool idle_at(const gen_state *s, int64_t t)
{
    for (int i = 0; i < s->cfg.nidle; i++) {
        const weir_gen_idle *idle = &s->cfg.idle[i];
        if (idle->partition == s->partition && t >= idle->from_ms && t < idle->to_ms)
            return true;
    }
    return false;
}

static bool finished(const gen_state *s, int64_t nominal)
{
    if (s->cfg.count > 0 && s->slot >= s->cfg.count)
        return true;
    return s->cfg.duration_ms > 0 && nominal >= s->cfg.start_ms + s->cfg.duration_ms;
}

/* The first slot whose nominal time is at or after t. */
static int64_t first_slot_at(const weir_generator_config *c, int64_t t)
{
    if (t <= c->start_ms)
        return 0;
    int64_t k = (int64_t)ceil((double)(t - c->start_ms) * c->rate / 1000.0);
    while (k > 0 && weir_generator_nominal(c, k - 1) >= t)
        k--;
    while (weir_generator_nominal(c, k) < t)
        k++;
    return k;
}

/* The slot after the end of the schedule. */
static int64_t end_slot(const weir_generator_config *c)
{
    int64_t end = INT64_MAX;
    if (c->count > 0)
        end = c->count;
    if (c->duration_ms > 0) {
        int64_t k = first_slot_at(c, c->start_ms + c->duration_ms);
        if (k < end)
            end = k;
    }
    return end;
}

/* From an idle slot: the next slot that emits, or the end of the schedule. */
static int64_t resume_slot(const gen_state *s, int64_t slot)
{
    const weir_generator_config *c = &s->cfg;
    int64_t end = end_slot(c);
    while (slot < end) {
        int64_t nominal = weir_generator_nominal(c, slot);
        int64_t to = INT64_MIN;
        for (int i = 0; i < c->nidle; i++) {
            const weir_gen_idle *idle = &c->idle[i];
            if (idle->partition == s->partition && nominal >= idle->from_ms &&
                nominal < idle->to_ms && idle->to_ms > to)
                to = idle->to_ms;
        }
        if (to == INT64_MIN)
            return slot;
        if (to == WEIR_TS_MAX)
            return end;
        slot = first_slot_at(c, to);
    }
    return end;
}

static int64_t due_at(const weir_generator_config *c, int64_t slot)
{
    return (int64_t)ceil((double)(weir_generator_nominal(c, slot) - c->start_ms) / c->speed);
}

static int gen_next(weir_ctx *ctx)
{
    gen_state *s = weir_ctx_state(ctx);
    const weir_generator_config *c = &s->cfg;
    int budget = weir_ctx_batch_hint(ctx);
    int64_t now = c->pace == WEIR_GEN_PACED ? weir_ctx_now(ctx) : 0;
    /* Slots are looked at in bulk when idle (they emit nothing), so a long
     * quiet span costs no more than its slots, not one call each. */
    int looked = 0;
    while (budget > 0 && looked < 1 << 16) {
        int64_t nominal = weir_generator_nominal(c, s->slot);
        if (finished(s, nominal))
            return WEIR_SOURCE_END;
        bool idle = idle_at(s, nominal);
        if (c->pace == WEIR_GEN_PACED) {
            int64_t due = due_at(c, s->slot);
            if (due > now) {
                /* A quiet span is waited out in one go: until the slot that
                 * emits next (or the end: an idle-forever partition ends
                 * when its schedule does, not before). */
                if (idle)
                    due = due_at(c, resume_slot(s, s->slot));
                if (due > now) {
                    weir_source_wait_until(ctx, due);
                    return WEIR_SOURCE_WAIT;
                }
            }
        }
        looked++;
        /* Every slot draws the same numbers, emitted or not, so idleness
         * does not shift the other slots' randomness. */
        int64_t key = draw_key(s);
        int64_t value = 1 + (int64_t)below_100(&s->rng, &s->values);
        int64_t delay = c->disorder_ms > 0 ? (int64_t)below_in(&s->rng, &s->disorder) : 0;
        bool late = c->late_fraction > 0 && unit(&s->rng) < c->late_fraction;
        int64_t late_extra = (int64_t)below_in(&s->rng, &s->late);
        if (late)
            delay = c->disorder_ms + c->late_ms + 1 + late_extra;
        int64_t slot = s->slot++;
        if (idle)
            continue;
        /* Written in place in the output (every field: the struct has no
         * padding), not built here and copied by the emit. */
        weir_gen_event *e = weir_emit_reserve(ctx);
        if (!e)
            return weir_ctx_error(ctx);
        e->key = key;
        e->value = value;
        /* No event before the schedule's start (weir/generator.h): the
         * first slots' shifts stop at start_ms. */
        int64_t ts = nominal - delay < c->start_ms ? c->start_ms : nominal - delay;
        e->timestamp = ts;
        e->partition = s->partition;
        e->late = late;
        e->seq = slot;
        int r = weir_emit_commit(ctx, ts);
        if (r < 0)
            return r;
        budget--;
    }
    return WEIR_SOURCE_MORE;
}

/* A partition's position: the next slot and the random stream's state
 * (the events before the slot are behind the checkpoint). */
typedef struct gen_position {
    uint64_t rng;
    int64_t slot;
} gen_position;

#define GEN_POSITION_TAG 0x67656e31u /* "gen1" */

static int gen_snapshot(weir_ctx *ctx, weir_snapshot_writer *w)
{
    const gen_state *s = weir_ctx_state(ctx);
    gen_position p = {.rng = s->rng, .slot = s->slot};
    return weir_snapshot_write_record(w, GEN_POSITION_TAG, &p, sizeof p);
}

static int gen_seek(weir_ctx *ctx, const void *rec, void *arg)
{
    (void)arg;
    gen_state *s = weir_ctx_state(ctx);
    gen_position p;
    memcpy(&p, rec, sizeof p);
    s->rng = p.rng;
    s->slot = p.slot;
    return 0;
}

static int gen_restore(weir_ctx *ctx, weir_snapshot_reader *r)
{
    return weir_restore_records(ctx, r, GEN_POSITION_TAG, sizeof(gen_position), gen_seek, NULL);
}

static const weir_source_vtable gen_vtable = {
    .version = WEIR_SOURCE_VTABLE_V2,
    .open = gen_open,
    .next = gen_next,
    .close = gen_close,
    .snapshot = gen_snapshot,
    .restore = gen_restore,
};

weir_stream *weir_source_generator(weir_job *job, const weir_generator_config *cfg)
{
    if (!job)
        return NULL;
    char why[200];
    if (weir_generator_check(cfg, cfg ? cfg->partitions : 0, why, sizeof why)) {
        weir_job_record_error(job, WEIR_EINVAL, "weir_source_generator: %s", why);
        return NULL;
    }
    weir_generator_config copy = *cfg;
    copy.name = NULL;
    weir_source_spec spec = {
        .name = cfg->name,
        .kind = "generator",
        .vtable = &gen_vtable,
        .elem_size = sizeof(weir_gen_event),
        .parallelism = cfg->partitions,
    };
    return weir__builder_add_source(job, "weir_source_generator", spec, &copy, sizeof copy);
}
