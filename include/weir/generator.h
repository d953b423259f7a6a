/* weir/generator.h — a synthetic source made for watching event time work:
 * parallel partitions, keys with skew, a rate, disorder, a share of late
 * events, partitions that go quiet, all reproducible from a seed.
 *
 * Each source subtask is one partition. Partition p has a fixed schedule of
 * slots i = 0, 1, 2, ...: slot i is due at event time
 *     nominal(i) = start_ms + floor(i * 1000 / rate)
 * and yields one event unless p is idle at nominal(i). The event's timestamp
 * is nominal(i) shifted back by a random delay in [0, disorder_ms]. With
 * probability late_fraction it is instead shifted back further, by a delay in
 * [disorder_ms + late_ms + 1, disorder_ms + 2 * late_ms + 1]: more than
 * late_ms behind nominal(i) - disorder_ms, the lowest timestamp an on-time
 * event of the same slot can have. That is a promise about the event's own
 * nominal time, not about any watermark. A bounded(disorder_ms) watermark
 * that has seen the events before it has typically passed its timestamp,
 * but by how much (more or less than late_ms), or whether at all, depends on
 * the timestamps of those events, on when the watermark was last emitted,
 * and on the other partitions merged into it: just after the start or after
 * an idle span nothing may have passed it. No event is stamped before
 * start_ms, the start of the schedule's event time (as Flink's datagen makes
 * no timestamp outside its range): a shift that would take an event of the
 * first slots there stops at start_ms, so with start_ms = 0 no timestamp is
 * negative. The same seed and config give the same events in the same order
 * per partition, whatever the pace.
 *
 * The schedule is computed in doubles, so a config must keep every slot
 * number, nominal time, delay and (PACED) due time within 2^53 (ms, or
 * slots): weir_generator_check refuses a rate so small that slots are more
 * than 2^53 ms apart, a count, duration or idle end at the rate given that
 * would pass 2^53 slots or ms, |start_ms|, disorder_ms or late_ms above 2^53,
 * and a speed so small that the schedule would take more than 2^53 ms.
 *
 * Pace: WEIR_GEN_FAST emits as fast as the pipeline takes; WEIR_GEN_PACED
 * emits slot i when the job clock reaches (nominal(i) - start_ms) / speed ms —
 * real time on WEIR_CLOCK_SYSTEM, simulated and reproducible on
 * WEIR_CLOCK_VIRTUAL.
 */
#ifndef WEIR_GENERATOR_H
#define WEIR_GENERATOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "weir/export.h"
#include "weir/stream.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The element every generator emits (40 bytes). */
typedef struct weir_gen_event {
    int64_t key;       /* 0 .. keys-1 */
    int64_t value;     /* 1 .. 100, uniform */
    int64_t timestamp; /* event time, ms (also the record's timestamp) */
    int32_t partition; /* the source subtask that made it */
    int32_t late;      /* 1 if it was made late on purpose (late_fraction) */
    int64_t seq;       /* the slot index i in its partition */
} weir_gen_event;

typedef enum weir_gen_skew {
    WEIR_GEN_UNIFORM = 0,
    WEIR_GEN_ZIPF = 1 /* P(key k) ~ 1 / (k + 1)^zipf_s */
} weir_gen_skew;

typedef enum weir_gen_pace {
    WEIR_GEN_FAST = 0,
    WEIR_GEN_PACED = 1
} weir_gen_pace;

/* A partition that emits nothing for slots due in [from_ms, to_ms) of event
 * time; to_ms = WEIR_TS_MAX: from then on, for ever (until the run ends). */
typedef struct weir_gen_idle {
    int partition;
    int64_t from_ms;
    int64_t to_ms;
} weir_gen_idle;

#define WEIR_GEN_MAX_IDLE 16

typedef struct weir_generator_config {
    const char *name;     /* NULL: "generator" */
    int partitions;       /* the source parallelism; 0: the job's default */
    int64_t keys;         /* 0: 100 */
    weir_gen_skew skew;
    double zipf_s;        /* 0: 1.0; zipf supports up to 1 << 20 keys */
    double rate;          /* events per second of event time per partition; required, > 0 */
    int64_t start_ms;     /* event time of slot 0 */
    weir_gen_pace pace;
    double speed;         /* PACED: event-time ms per processing ms; 0: 1.0 */
    int64_t disorder_ms;  /* >= 0 */
    double late_fraction; /* 0..1 */
    int64_t late_ms;      /* >= 0 */
    weir_gen_idle idle[WEIR_GEN_MAX_IDLE];
    int nidle;
    int64_t count;        /* slots per partition; 0: use duration_ms */
    int64_t duration_ms;  /* event time per partition; 0: use count (one is required) */
    uint64_t seed;
} weir_generator_config;

/* Checks a config: 0, or WEIR_EINVAL with the reason in why (rate <= 0,
 * late_fraction outside [0, 1], an idle interval with to < from or naming no
 * partition, neither count nor duration, negative sizes, a schedule that
 * reaches past 2^53 ms or slots as said above, ...). `why` is written only on
 * refusal. MT safe. */
WEIR_EXPORT int weir_generator_check(const weir_generator_config *cfg, int partitions, char *why,
                                     size_t whysize);

/* A generator source of weir_gen_event. The config is copied. With
 * cfg->partitions 0 the job's default parallelism is the partition count
 * (checked when the job runs). */
WEIR_EXPORT weir_stream *weir_source_generator(weir_job *job, const weir_generator_config *cfg);

/* How to key_by the generator's events by their key: 8 key bytes (the int64
 * key), printed as "k<key>" in captures ("k42"). A static table: never
 * freed, MT safe; weir_stream_key_by copies it. */
WEIR_EXPORT const weir_key_spec *weir_generator_key(void);

/* The nominal event time of slot i (for tests and readers of seq). */
WEIR_EXPORT int64_t weir_generator_nominal(const weir_generator_config *cfg, int64_t slot);

#ifdef __cplusplus
}
#endif
#endif
