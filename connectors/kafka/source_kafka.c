/* source_kafka.c — the Kafka source (weir/kafka.h, docs/KAFKA.md): each
 * subtask reads the partitions the assignment rule gives it with its own
 * librdkafka consumer, runs the watermark strategy per partition, and lets
 * the runtime merge the partitions' watermarks (weir_source_partitions).
 *
 * open() asks the cluster for the topics' partitions, resolves every
 * assigned partition's start offset (earliest, latest, committed, by
 * timestamp) and, when bounded, its end, and assigns them with explicit
 * offsets. next() never blocks: it takes what the consumer's queue holds
 * (rd_kafka_consume_batch_queue with timeout 0), else waits a few ms on the
 * job clock. Discovery runs on a thread of its own (a metadata request
 * blocks), which hands the partition counts over under a mutex; the
 * worker adds new partitions at the start of a next(). Offsets are the
 * source's position in checkpoints (every old subtask's, kept by the
 * partitions now owned: weir_source_union_state), committed to Kafka on
 * notify_complete with a group id. Written against the public headers.
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <regex.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <librdkafka/rdkafka.h>

#include "weir/error.h"
#include "weir/job.h"
#include "weir/kafka.h"
#include "weir/operator.h"
#include "weir/stream.h"
#include "weir/time.h"
#include "kafka_config.h"
#include "kafka_markers.h"

#define KAFKA_POSITION_TAG 0x4b414631u /* "KAF1" */
#define KAFKA_WRITERS_TAG 0x4b414632u  /* "KAF2": positions with writers' watermarks */
#define POLL_WAIT_MS 2

/* ---- configuration ------------------------------------------------------- */

typedef struct kafka_arg {
    weir_kafka_source_config cfg; /* strings below are the copies */
    char *bootstrap;
    char **topics;
    char **props; /* NULL-terminated pairs */
    char *group;
    bool has_pattern; /* topic_pattern, compiled (regexec: MT safe) */
    regex_t pattern;
} kafka_arg;

static void arg_free(void *p)
{
    kafka_arg *a = p;
    if (!a)
        return;
    free(a->bootstrap);
    for (int i = 0; a->topics && i < a->cfg.ntopics; i++)
        free(a->topics[i]);
    free(a->topics);
    weir__kafka_free_properties(a->props);
    free(a->group);
    if (a->has_pattern)
        regfree(&a->pattern);
    free(a);
}

/* ---- a subtask's partitions ---------------------------------------------- */

/* Where a new partition's first offset comes from while resolve_and_assign
 * finds it: known at once, or asked for every new partition together (its
 * offset for the start timestamp, the group's committed offset). */
typedef enum part_start {
    START_KNOWN = 0,
    START_BY_TIMESTAMP,
    START_BY_COMMIT
} part_start;

typedef struct part {
    int topic;          /* index into the config's topics */
    int32_t partition;
    int64_t next;       /* the offset of the next record to emit; < 0 while unknown */
    part_start start;
    int64_t stop;       /* bounded: the end when the job started; -1 unbounded */
    bool done;          /* bounded and read to its end */
    /* the watermark strategy, per partition (SEMANTICS.md 1-2) */
    int64_t max_ts;
    int64_t elements, last_elements;
    bool countdown;
    int64_t countdown_start;
    bool idle;          /* marked idle by the idleness wrapper (or done) */
    void *gen;          /* a custom generator's instance */
    /* inband_watermarks: what each writer of the partition said last */
    struct writer_mark *writers;
    int nwriters;
    int channel; /* its channel of the source's valve (weir_source_partitions) */
    int wchan;   /* inband_watermarks: writer k's channel is wchan + k */
} part;

/* A writer's last marker in a partition (inband_watermarks). */
typedef struct writer_mark {
    int64_t watermark;
    bool heard, idle, ended;
} writer_mark;

/* A topic the source reads and its partition count (0: it does not exist
 * yet), as the cluster's metadata tells them. */
typedef struct topic_count {
    char *name;
    int count;
} topic_count;

typedef struct kafka_src {
    const kafka_arg *a;
    /* the topics read: the config's, or those the pattern matched so far;
     * a part's topic is an index here */
    char **topics;
    int ntopics, topics_cap;
    rd_kafka_t *rk;
    rd_kafka_queue_t *queue;
    part *parts;
    int nparts, cap;
    int last_hit;
    unsigned char *elem; /* the deserializer's element */
    rd_kafka_message_t **batch;
    int batch_cap;
    int64_t next_probe, interval;
    int64_t next_commit;
    bool declared;       /* weir_source_partitions called */
    /* the valve's channels: one a partition, and with inband_watermarks one
     * a (partition, writer) once the partition's writers are known */
    char (*chan_name)[64];
    int nchan, chan_cap;
    bool restored;
    /* discovery */
    pthread_t thread;
    bool thread_started;
    pthread_mutex_t lock;
    pthread_cond_t wake;
    bool stop;
    topic_count *found; /* the discovery thread's latest look */
    int nfound;
    atomic_int found_new;
} kafka_src;

/* The reader this subtask is of all readers across instances. */
static int reader_of(const weir_ctx *ctx, const weir_kafka_source_config *c)
{
    return c->instance * weir_ctx_parallelism(ctx) + weir_ctx_subtask(ctx);
}

static int readers(const weir_ctx *ctx, const weir_kafka_source_config *c)
{
    return (c->instances > 0 ? c->instances : 1) * weir_ctx_parallelism(ctx);
}

/* Flink's KafkaSourceEnumerator.getSplitOwner: partition p of a topic
 * belongs to reader (start + p) % readers, start = ((hashCode(topic) * 31)
 * & 0x7FFFFFFF) % readers with Java's String.hashCode (of the name's bytes:
 * the same for ASCII names). Stable when partitions are added. */
static bool owns(const weir_ctx *ctx, const kafka_arg *a, const char *topic, int32_t p)
{
    uint32_t h = 0;
    for (const unsigned char *c = (const unsigned char *)topic; *c; c++)
        h = 31u * h + *c;
    int n = readers(ctx, &a->cfg);
    int64_t start = (int64_t)((h * 31u) & 0x7FFFFFFFu) % n;
    return (start + p) % n == reader_of(ctx, &a->cfg);
}

static int find_part(kafka_src *s, int topic, int32_t partition)
{
    if (s->last_hit < s->nparts && s->parts[s->last_hit].topic == topic &&
        s->parts[s->last_hit].partition == partition)
        return s->last_hit;
    for (int i = 0; i < s->nparts; i++) {
        if (s->parts[i].topic == topic && s->parts[i].partition == partition)
            return s->last_hit = i;
    }
    return -1;
}

static int topic_index(const kafka_src *s, const char *name)
{
    for (int i = 0; i < s->ntopics; i++) {
        if (strcmp(s->topics[i], name) == 0)
            return i;
    }
    return -1;
}

/* The index of topic `name` in s->topics, added if new; -1 out of memory. */
static int topic_add(kafka_src *s, const char *name)
{
    int t = topic_index(s, name);
    if (t >= 0)
        return t;
    if (s->ntopics == s->topics_cap) {
        int cap = s->topics_cap ? 2 * s->topics_cap : 8;
        char **v = realloc(s->topics, (size_t)cap * sizeof *v);
        if (!v)
            return -1;
        s->topics = v;
        s->topics_cap = cap;
    }
    if (!(s->topics[s->ntopics] = strdup(name)))
        return -1;
    return s->ntopics++;
}

static void free_counts(topic_count *c, int n)
{
    for (int i = 0; c && i < n; i++)
        free(c[i].name);
    free(c);
}

/* Whether a topic of the cluster is one the pattern reads: its whole name
 * matches, and it is not one of Kafka's own ("__consumer_offsets",
 * "__transaction_state"), as a Java consumer's pattern leaves them out. */
static bool pattern_reads(const kafka_arg *a, const char *topic)
{
    return strncmp(topic, "__", 2) != 0 && regexec(&a->pattern, topic, 0, NULL, 0) == 0;
}

static int64_t timeout_of(const kafka_arg *a)
{
    return a->cfg.timeout_ms > 0 ? a->cfg.timeout_ms : 10000;
}

/* The topics the source reads with their partition counts: the config's
 * (0 for one that does not exist), or every topic the pattern matches.
 * 0 with *out (free_counts) and *n; WEIR_ENOMEM; or WEIR_EIO with the
 * cluster's error in *kerr and, for a configured topic (not authorised,
 * say), its name in *bad (NULL otherwise). A topic the pattern matches
 * with an error is left out. */
static int list_topics(rd_kafka_t *rk, const kafka_arg *a, topic_count **out, int *n,
                       int timeout_ms, rd_kafka_resp_err_t *kerr, const char **bad)
{
    *bad = NULL;
    *out = NULL;
    *n = 0;
    const struct rd_kafka_metadata *md = NULL;
    rd_kafka_resp_err_t err = *kerr = rd_kafka_metadata(rk, 1, NULL, &md, timeout_ms);
    if (err)
        return WEIR_EIO;
    int cap = a->has_pattern ? md->topic_cnt : a->cfg.ntopics;
    topic_count *c = calloc((size_t)(cap ? cap : 1), sizeof *c);
    if (!c) {
        rd_kafka_metadata_destroy(md);
        return WEIR_ENOMEM;
    }
    int k = 0, r = 0;
    if (a->has_pattern) {
        for (int i = 0; i < md->topic_cnt; i++) {
            if (md->topics[i].err || !pattern_reads(a, md->topics[i].topic))
                continue;
            if (!(c[k].name = strdup(md->topics[i].topic))) {
                r = WEIR_ENOMEM;
                break;
            }
            c[k++].count = md->topics[i].partition_cnt;
        }
    }
    for (int t = 0; !a->has_pattern && !r && !err && t < a->cfg.ntopics; t++) {
        if (!(c[k].name = strdup(a->cfg.topics[t]))) {
            r = WEIR_ENOMEM;
            break;
        }
        for (int i = 0; i < md->topic_cnt; i++) {
            if (strcmp(md->topics[i].topic, a->cfg.topics[t]) != 0)
                continue;
            if (!md->topics[i].err)
                c[k].count = md->topics[i].partition_cnt;
            else if (md->topics[i].err != RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_OR_PART && !err) {
                err = md->topics[i].err;
                *bad = a->cfg.topics[t];
            }
        }
        k++;
    }
    rd_kafka_metadata_destroy(md);
    *kerr = err;
    if (err && !r)
        r = WEIR_EIO;
    if (r) {
        free_counts(c, k);
        return r;
    }
    *out = c;
    *n = k;
    return 0;
}

static int add_part(weir_ctx *ctx, const kafka_arg *a, kafka_src *s, int topic, int32_t partition);

/* Adds the partitions of `found` this subtask owns and does not read yet
 * (new topics too); their first index is the old s->nparts. */
static int add_owned(weir_ctx *ctx, const kafka_arg *a, kafka_src *s, const topic_count *found,
                     int nfound)
{
    for (int i = 0; i < nfound; i++) {
        int t = -1;
        for (int32_t p = 0; p < found[i].count; p++) {
            if (!owns(ctx, a, found[i].name, p))
                continue;
            if (t < 0 && (t = topic_add(s, found[i].name)) < 0)
                return weir_ctx_fail(ctx, WEIR_ENOMEM, "out of memory for topics");
            if (find_part(s, t, p) < 0) {
                int r = add_part(ctx, a, s, t, p);
                if (r < 0)
                    return r;
            }
        }
    }
    return 0;
}

/* ---- per-partition watermarks -------------------------------------------- */

static const weir_watermark_strategy *strategy(const kafka_arg *a)
{
    return &a->cfg.watermarks;
}

static int part_gen_create(weir_ctx *ctx, const kafka_arg *a, part *p)
{
    const weir_watermark_strategy *st = strategy(a);
    p->max_ts = WEIR_TS_MIN;
    if (st->kind == WEIR_WATERMARKS_CUSTOM && st->custom->create) {
        int r = st->custom->create(st->arg, &p->gen);
        if (r < 0)
            return weir_ctx_fail(ctx, r, "the custom watermark generator's create failed");
    }
    return 0;
}

static void part_gen_destroy(const kafka_arg *a, part *p)
{
    const weir_watermark_strategy *st = strategy(a);
    free(p->writers);
    p->writers = NULL;
    p->nwriters = 0;
    if (st->kind == WEIR_WATERMARKS_CUSTOM && st->custom->destroy && p->gen)
        st->custom->destroy(p->gen);
    p->gen = NULL;
}

/* A record of partition i went out: the generator sees it. */
static int part_event(weir_ctx *ctx, const kafka_arg *a, part *p, int i, const void *elem,
                      int64_t ts)
{
    const weir_watermark_strategy *st = strategy(a);
    p->elements++;
    if (a->cfg.inband_watermarks)
        return 0; /* the writers' markers are the watermarks */
    switch (st->kind) {
    case WEIR_WATERMARKS_BOUNDED:
    case WEIR_WATERMARKS_ASCENDING:
        if (ts > p->max_ts)
            p->max_ts = ts;
        return 0;
    case WEIR_WATERMARKS_PUNCTUATED: {
        int64_t w = st->punctuated(elem, ts, st->arg);
        return w == WEIR_TS_MIN ? 0 : weir_source_partition_watermark(ctx, p->channel, w);
    }
    case WEIR_WATERMARKS_CUSTOM:
        if (st->custom->on_event) {
            weir_watermark_output out = {.ctx = ctx, .partition = p->channel};
            st->custom->on_event(p->gen, elem, ts, &out);
            return out.err;
        }
        return 0;
    default:
        return 0;
    }
}

/* The wrapped generator's periodic proposal for partition i. */
static int part_wrapped_probe(weir_ctx *ctx, const kafka_arg *a, part *p, int i)
{
    const weir_watermark_strategy *st = strategy(a);
    switch (st->kind) {
    case WEIR_WATERMARKS_BOUNDED:
    case WEIR_WATERMARKS_ASCENDING: {
        int64_t bound = st->kind == WEIR_WATERMARKS_BOUNDED ? st->bound_ms : 0;
        if (p->max_ts == WEIR_TS_MIN || p->max_ts < WEIR_TS_MIN + bound + 1)
            return 0;
        return weir_source_partition_watermark(ctx, p->channel, p->max_ts - bound - 1);
    }
    case WEIR_WATERMARKS_CUSTOM:
        if (st->custom->on_periodic) {
            weir_watermark_output out = {.ctx = ctx, .partition = p->channel};
            st->custom->on_periodic(p->gen, &out);
            return out.err;
        }
        return 0;
    default:
        return 0;
    }
}

/* One periodic probe of partition i, through the idleness wrapper
 * (SEMANTICS.md 2: the countdown starts at the first probe that saw
 * nothing; idle strictly after T). */
static int part_probe(weir_ctx *ctx, const kafka_arg *a, part *p, int i, int64_t now)
{
    int64_t idleness = strategy(a)->idleness_ms;
    if (p->done || a->cfg.inband_watermarks)
        return 0;
    if (idleness <= 0)
        return part_wrapped_probe(ctx, a, p, i);
    if (p->elements != p->last_elements) {
        p->last_elements = p->elements;
        p->countdown = false;
        p->idle = false;
        return part_wrapped_probe(ctx, a, p, i);
    }
    if (!p->countdown) {
        p->countdown = true;
        p->countdown_start = now;
        return part_wrapped_probe(ctx, a, p, i);
    }
    if (now - p->countdown_start > idleness) {
        p->idle = true;
        return weir_source_partition_status(ctx, p->channel, true);
    }
    return part_wrapped_probe(ctx, a, p, i);
}

static int probe_all(weir_ctx *ctx, const kafka_arg *a, kafka_src *s, int64_t now)
{
    for (int i = 0; i < s->nparts; i++) {
        int r = part_probe(ctx, a, &s->parts[i], i, now);
        if (r < 0)
            return r;
    }
    return 0;
}

/* ---- opening --------------------------------------------------------------- */

static int set_conf(weir_ctx *ctx, rd_kafka_conf_t *conf, const char *k, const char *v)
{
    return weir__kafka_conf_set(ctx, conf, "kafka", k, v);
}

static int make_consumer(weir_ctx *ctx, const kafka_arg *a, kafka_src *s)
{
    rd_kafka_conf_t *conf = rd_kafka_conf_new();
    int r = set_conf(ctx, conf, "bootstrap.servers", a->bootstrap);
    /* librdkafka's consumer queue needs a group even for assigned
     * partitions; without the user's, one that never commits or joins */
    if (!r)
        r = set_conf(ctx, conf, "group.id", a->group ? a->group : "weir-unmanaged");
    if (!r)
        r = set_conf(ctx, conf, "enable.auto.commit", "false");
    if (!r)
        r = set_conf(ctx, conf, "enable.auto.offset.store", "false");
    if (!r)
        r = set_conf(ctx, conf, "enable.partition.eof", "true");
    /* librdkafka stops fetching a partition whose queue holds more than
     * queued.min.messages (100 000) and looks again only about a second
     * later; next() drains the queue in bursts without waiting on it, so a
     * partition of small records would idle most of each second. The byte
     * bound (queued.max.messages.kbytes) still caps the memory. Properties
     * below may set it otherwise. */
    if (!r)
        r = set_conf(ctx, conf, "queued.min.messages", "10000000");
    for (int i = 0; !r && a->props && a->props[i]; i += 2)
        r = set_conf(ctx, conf, a->props[i], a->props[i + 1]);
    if (r) {
        rd_kafka_conf_destroy(conf);
        return r;
    }
    char err[512];
    s->rk = rd_kafka_new(RD_KAFKA_CONSUMER, conf, err, sizeof err);
    if (!s->rk) {
        rd_kafka_conf_destroy(conf);
        return weir_ctx_fail(ctx, WEIR_EIO, "kafka consumer: %s", err);
    }
    s->queue = rd_kafka_queue_get_consumer(s->rk);
    if (!s->queue)
        return weir_ctx_fail(ctx, WEIR_EIO, "kafka consumer: no consumer queue");
    return 0;
}

/* A new channel of the source's valve, named for the capture; its index. */
static int add_channel(weir_ctx *ctx, kafka_src *s, const char *name)
{
    if (s->nchan == s->chan_cap) {
        int cap = s->chan_cap ? 2 * s->chan_cap : 8;
        char(*n)[64] = realloc(s->chan_name, (size_t)cap * sizeof *n);
        if (!n)
            return weir_ctx_fail(ctx, WEIR_ENOMEM, "out of memory for partitions");
        s->chan_name = n;
        s->chan_cap = cap;
    }
    snprintf(s->chan_name[s->nchan], sizeof s->chan_name[0], "%s", name);
    return s->nchan++;
}

static int add_part(weir_ctx *ctx, const kafka_arg *a, kafka_src *s, int topic, int32_t partition)
{
    if (s->nparts == s->cap) {
        int cap = s->cap ? 2 * s->cap : 8;
        part *np = realloc(s->parts, (size_t)cap * sizeof *np);
        if (!np)
            return weir_ctx_fail(ctx, WEIR_ENOMEM, "out of memory for partitions");
        s->parts = np;
        s->cap = cap;
    }
    char name[64];
    snprintf(name, sizeof name, "%s-%" PRId32, s->topics[topic], partition);
    int ch = add_channel(ctx, s, name);
    if (ch < 0)
        return ch;
    part *p = &s->parts[s->nparts];
    *p = (part){.topic = topic, .partition = partition, .next = RD_KAFKA_OFFSET_INVALID, .stop = -1,
                .channel = ch, .wchan = -1};
    int r = part_gen_create(ctx, a, p);
    if (r < 0)
        return r;
    s->nparts++;
    return 0;
}

/* Hands parts[from..] to the consumer at their next offsets. */
static int assign_parts(weir_ctx *ctx, kafka_src *s, int from)
{
    int n = s->nparts - from;
    if (n <= 0)
        return 0;
    rd_kafka_topic_partition_list_t *list = rd_kafka_topic_partition_list_new(n);
    for (int i = from; i < s->nparts; i++)
        rd_kafka_topic_partition_list_add(list, s->topics[s->parts[i].topic],
                                          s->parts[i].partition)
            ->offset = s->parts[i].next;
    int r = 0;
    rd_kafka_error_t *e = rd_kafka_incremental_assign(s->rk, list);
    if (e) {
        r = weir_ctx_fail(ctx, WEIR_EIO, "kafka: assigning %d partitions: %s", n,
                          rd_kafka_error_string(e));
        rd_kafka_error_destroy(e);
    }
    rd_kafka_topic_partition_list_destroy(list);
    return r;
}

/* Resolves the start of parts[from..] the checkpoint did not place, by
 * `mode`, and, bounded, their end offsets; then assigns them. The queries
 * wait for the cluster (up to timeout_ms): this runs when the source opens
 * or restores, never for a partition discovered while it runs. */
static int resolve_and_assign(weir_ctx *ctx, const kafka_arg *a, kafka_src *s, int from,
                              weir_kafka_start mode)
{
    int n = s->nparts - from;
    if (n <= 0)
        return 0;
    int tmo = (int)timeout_of(a);
    /* each partition's first offsets, then its end offsets */
    int64_t *range = calloc(2 * (size_t)n, sizeof *range);
    if (!range)
        return weir_ctx_fail(ctx, WEIR_ENOMEM, "out of memory for %d partitions", n);
    rd_kafka_topic_partition_list_t *list = rd_kafka_topic_partition_list_new(n);
    for (int i = from; i < s->nparts; i++)
        rd_kafka_topic_partition_list_add(list, s->topics[s->parts[i].topic],
                                          s->parts[i].partition);
    int64_t *lows = range, *highs = range + n;
    int bad = -1;
    rd_kafka_resp_err_t err =
        weir__kafka_list_offsets(s->rk, list, RD_KAFKA_OFFSET_BEGINNING, lows, tmo, &bad);
    if (!err)
        err = weir__kafka_list_offsets(s->rk, list, RD_KAFKA_OFFSET_END, highs, tmo, &bad);
    int r = 0;
    if (err) {
        if (bad >= 0)
            r = weir_ctx_fail(ctx, WEIR_EIO, "kafka %s-%" PRId32 ": its offsets: %s",
                              list->elems[bad].topic, list->elems[bad].partition,
                              rd_kafka_err2str(err));
        else {
            char names[256] = "";
            size_t used = 0;
            for (int i = 0; i < list->cnt && used < sizeof names - 64; i++)
                used += (size_t)snprintf(names + used, sizeof names - used, "%s%s-%" PRId32,
                                         i ? ", " : "", list->elems[i].topic,
                                         list->elems[i].partition);
            r = weir_ctx_fail(ctx, WEIR_EIO, "kafka %s%s: their offsets: %s", names,
                              used >= sizeof names - 64 ? ", ..." : "", rd_kafka_err2str(err));
        }
    }
    for (int i = from; !r && i < s->nparts; i++) {
        part *p = &s->parts[i];
        rd_kafka_topic_partition_t *tp = &list->elems[i - from];
        int64_t lo = lows[i - from], hi = highs[i - from];
        if (a->cfg.bounded && !a->cfg.inband_watermarks)
            p->stop = hi; /* in-band: the writers' end markers end it */
        if (p->next == RD_KAFKA_OFFSET_INVALID) { /* not restored: the start mode */
            switch (mode) {
            case WEIR_KAFKA_LATEST:
                p->next = hi;
                break;
            case WEIR_KAFKA_TIMESTAMP:
                tp->offset = a->cfg.start_timestamp;
                p->start = START_BY_TIMESTAMP;
                break;
            case WEIR_KAFKA_COMMITTED:
                p->start = START_BY_COMMIT;
                break;
            default:
                p->next = lo;
                break;
            }
            if (p->next >= 0 && p->next < lo)
                p->next = lo;
        }
    }
    if (!r && mode == WEIR_KAFKA_TIMESTAMP) {
        rd_kafka_topic_partition_list_t *q = rd_kafka_topic_partition_list_copy(list);
        err = rd_kafka_offsets_for_times(s->rk, q, tmo);
        for (int i = 0; !r && i < q->cnt; i++) {
            part *p = &s->parts[from + i];
            if (p->start != START_BY_TIMESTAMP)
                continue;
            p->start = START_KNOWN;
            if (err || q->elems[i].err)
                r = weir_ctx_fail(ctx, WEIR_EIO, "kafka %s-%" PRId32 ": offset for time %" PRId64
                                  ": %s", s->topics[p->topic], p->partition,
                                  a->cfg.start_timestamp,
                                  rd_kafka_err2str(err ? err : q->elems[i].err));
            else if (q->elems[i].offset < 0) /* none that late: its end */
                p->next = highs[i];
            else {
                p->next = q->elems[i].offset;
            }
        }
        rd_kafka_topic_partition_list_destroy(q);
    }
    if (!r && mode == WEIR_KAFKA_COMMITTED) {
        rd_kafka_topic_partition_list_t *q = rd_kafka_topic_partition_list_copy(list);
        err = rd_kafka_committed(s->rk, q, tmo);
        if (err)
            r = weir_ctx_fail(ctx, WEIR_EIO, "kafka group %s: its committed offsets: %s", a->group,
                              rd_kafka_err2str(err));
        for (int i = 0; !r && i < q->cnt; i++) {
            part *p = &s->parts[from + i];
            if (p->start != START_BY_COMMIT)
                continue;
            p->start = START_KNOWN;
            p->next = q->elems[i].offset >= 0 ? q->elems[i].offset : lows[i];
        }
        rd_kafka_topic_partition_list_destroy(q);
    }
    for (int i = 0; !r && i < list->cnt; i++) {
        part *p = &s->parts[from + i];
        if (p->stop >= 0 && p->next >= p->stop)
            p->done = true;
    }
    rd_kafka_topic_partition_list_destroy(list);
    free(range);
    return r < 0 ? r : assign_parts(ctx, s, from);
}

/* The discovery thread: the topics' partition counts every interval,
 * handed to the worker (take_discovered). */
static void *discover(void *arg)
{
    kafka_src *s = arg;
    const kafka_arg *a = s->a;
    int64_t every = a->cfg.discovery_interval_ms > 0 ? a->cfg.discovery_interval_ms : 30000;
    pthread_mutex_lock(&s->lock);
    while (!s->stop) {
        struct timespec until;
        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_sec += every / 1000;
        until.tv_nsec += (every % 1000) * 1000000L;
        if (until.tv_nsec >= 1000000000L) {
            until.tv_sec++;
            until.tv_nsec -= 1000000000L;
        }
        while (!s->stop && pthread_cond_timedwait(&s->wake, &s->lock, &until) != ETIMEDOUT) {
        }
        if (s->stop)
            break;
        pthread_mutex_unlock(&s->lock);
        topic_count *found;
        int n;
        const char *bad;
        rd_kafka_resp_err_t kerr;
        /* a failed look is tried again at the next interval */
        int err = list_topics(s->rk, a, &found, &n, (int)timeout_of(a), &kerr, &bad);
        pthread_mutex_lock(&s->lock);
        if (!err) {
            free_counts(s->found, s->nfound); /* a look the worker did not take yet */
            s->found = found;
            s->nfound = n;
            atomic_store(&s->found_new, 1);
        }
    }
    pthread_mutex_unlock(&s->lock);
    return NULL;
}

/* Tells the runtime the subtask's channels: its partitions, named
 * "topic-partition", and their writers, "topic-partition/wK". */
static int declare_partitions(weir_ctx *ctx, kafka_src *s)
{
    const char **names = calloc((size_t)s->nchan + 1, sizeof *names);
    if (!names)
        return weir_ctx_fail(ctx, WEIR_ENOMEM, "out of memory for partition names");
    for (int c = 0; c < s->nchan; c++)
        names[c] = s->chan_name[c];
    int r = weir_source_partitions(ctx, s->nchan, names);
    free(names);
    return r;
}

static int take_discovered(weir_ctx *ctx, const kafka_arg *a, kafka_src *s)
{
    pthread_mutex_lock(&s->lock);
    topic_count *found = s->found;
    int nfound = s->nfound;
    s->found = NULL;
    s->nfound = 0;
    atomic_store(&s->found_new, 0);
    pthread_mutex_unlock(&s->lock);
    int from = s->nparts;
    int r = add_owned(ctx, a, s, found, nfound);
    free_counts(found, nfound);
    if (r < 0)
        return r;
    if (s->nparts == from)
        return 0;
    /* A partition that appeared while the job ran is read from its first
     * record whatever the start mode (Flink's FLIP-288): one started at its
     * end would lose what was written before it was discovered. librdkafka
     * finds that offset itself, so the worker waits for no query. */
    for (int i = from; i < s->nparts; i++)
        s->parts[i].next = RD_KAFKA_OFFSET_BEGINNING;
    r = assign_parts(ctx, s, from);
    if (r < 0)
        return r;
    return declare_partitions(ctx, s);
}

static void src_close(weir_ctx *ctx);

static int open_consumer(weir_ctx *ctx);

/* A failed open is not followed by close (weir/operator.h): what it made
 * is freed here. */
static int src_open(weir_ctx *ctx)
{
    int r = open_consumer(ctx);
    if (r < 0)
        src_close(ctx);
    return r;
}

static int open_consumer(weir_ctx *ctx)
{
    const kafka_arg *a = weir_ctx_arg(ctx);
    kafka_src *s = calloc(1, sizeof *s);
    if (!s)
        return WEIR_ENOMEM;
    s->a = a;
    weir_ctx_set_state(ctx, s);
    pthread_mutex_init(&s->lock, NULL);
    pthread_cond_init(&s->wake, NULL);
    s->elem = calloc(1, a->cfg.elem_size);
    s->batch_cap = weir_ctx_batch_hint(ctx);
    if (s->batch_cap < 1)
        s->batch_cap = 1;
    s->batch = calloc((size_t)s->batch_cap, sizeof *s->batch);
    if (!s->elem || !s->batch)
        return WEIR_ENOMEM;
    int r = make_consumer(ctx, a, s);
    if (r < 0)
        return r;
    topic_count *found;
    int nfound;
    const char *bad;
    rd_kafka_resp_err_t kerr;
    r = list_topics(s->rk, a, &found, &nfound, (int)timeout_of(a), &kerr, &bad);
    if (r == WEIR_ENOMEM)
        return weir_ctx_fail(ctx, WEIR_ENOMEM, "kafka %s: out of memory for the topics",
                             a->bootstrap);
    if (r && bad)
        return weir_ctx_fail(ctx, WEIR_EIO, "kafka topic %s at %s: %s", bad, a->bootstrap,
                             rd_kafka_err2str(kerr));
    if (r)
        return weir_ctx_fail(ctx, WEIR_EIO, "kafka %s: the topics' partitions: %s", a->bootstrap,
                             rd_kafka_err2str(kerr));
    r = add_owned(ctx, a, s, found, nfound);
    free_counts(found, nfound);
    if (r < 0)
        return r;
    const weir_watermark_strategy *st = strategy(a);
    s->interval = st->interval_ms > 0   ? st->interval_ms
                  : st->interval_ms == 0 ? weir_ctx_watermark_interval(ctx)
                                         : WEIR_DISABLED;
    s->next_probe = s->interval > 0 ? weir_ctx_now(ctx) + s->interval : INT64_MAX;
    int64_t ci = a->cfg.commit_interval_ms > 0 ? a->cfg.commit_interval_ms : 5000;
    s->next_commit = a->group && !weir_ctx_checkpoints(ctx) ? weir_ctx_now(ctx) + ci : INT64_MAX;
    if (!a->cfg.bounded && a->cfg.discovery_interval_ms != WEIR_DISABLED) {
        if (pthread_create(&s->thread, NULL, discover, s) != 0)
            return weir_ctx_fail(ctx, WEIR_EIO, "kafka: cannot start partition discovery");
        s->thread_started = true;
    }
    return 0;
}

static void src_close(weir_ctx *ctx)
{
    const kafka_arg *a = weir_ctx_arg(ctx);
    kafka_src *s = weir_ctx_state(ctx);
    if (!s)
        return;
    if (s->thread_started) {
        pthread_mutex_lock(&s->lock);
        s->stop = true;
        pthread_cond_signal(&s->wake);
        pthread_mutex_unlock(&s->lock);
        pthread_join(s->thread, NULL);
    }
    for (int i = 0; i < s->nparts; i++)
        part_gen_destroy(a, &s->parts[i]);
    if (s->queue)
        rd_kafka_queue_destroy(s->queue);
    if (s->rk) {
        rd_kafka_consumer_close(s->rk);
        rd_kafka_destroy(s->rk);
    }
    pthread_mutex_destroy(&s->lock);
    pthread_cond_destroy(&s->wake);
    free(s->parts);
    free(s->chan_name);
    free(s->elem);
    free_counts(s->found, s->nfound);
    for (int t = 0; t < s->ntopics; t++)
        free(s->topics[t]);
    free(s->topics);
    free(s->batch);
    free(s);
    weir_ctx_set_state(ctx, NULL);
}

/* ---- committing offsets ---------------------------------------------------- */

static int commit_offsets(weir_ctx *ctx, const kafka_arg *a, kafka_src *s, bool wait)
{
    if (!a->group || !s->nparts)
        return 0;
    rd_kafka_topic_partition_list_t *list = rd_kafka_topic_partition_list_new(s->nparts);
    for (int i = 0; i < s->nparts; i++) {
        if (s->parts[i].next >= 0)
            rd_kafka_topic_partition_list_add(list, s->topics[s->parts[i].topic],
                                              s->parts[i].partition)
                ->offset = s->parts[i].next;
    }
    /* The offsets are for monitoring (and COMMITTED starts): a failure is
     * not a reason to stop. Asynchronous while running; the last one, at
     * the end of a bounded read, waits, or the consumer's close may drop it. */
    if (list->cnt)
        rd_kafka_commit(s->rk, list, wait ? 0 : 1);
    rd_kafka_topic_partition_list_destroy(list);
    (void)ctx;
    return 0;
}

/* ---- reading ----------------------------------------------------------------- */

static int mark_done(weir_ctx *ctx, kafka_src *s, int i)
{
    part *p = &s->parts[i];
    if (p->done && p->idle)
        return 0;
    p->done = true;
    p->idle = true;
    /* a finished partition holds nothing back */
    return weir_source_partition_status(ctx, p->channel, true);
}

static bool all_done(const kafka_src *s)
{
    for (int i = 0; i < s->nparts; i++) {
        if (!s->parts[i].done)
            return false;
    }
    return true;
}

/* With inband_watermarks each writer of a partition is a channel of the
 * source's valve (SEMANTICS.md 3 as for any channel: the minimum over the
 * active ones, an idle one left out, the maximum when all are idle, one
 * not heard from yet holding at MIN). The partition's own channel, which
 * held at MIN until the writers were known, goes idle. */
static int open_writers(weir_ctx *ctx, const kafka_arg *a, kafka_src *s, int i)
{
    part *p = &s->parts[i];
    p->wchan = s->nchan;
    for (int k = 0; k < p->nwriters; k++) {
        char name[64];
        snprintf(name, sizeof name, "%s-%" PRId32 "/w%d", s->topics[p->topic], p->partition, k);
        int r = add_channel(ctx, s, name);
        if (r < 0)
            return r;
    }
    int r = declare_partitions(ctx, s);
    if (r < 0)
        return r;
    p->idle = true;
    return weir_source_partition_status(ctx, p->channel, true);
}

/* Writer k's mark, to its channel; a bounded read finishes the partition
 * when every writer has ended. */
static int apply_writer(weir_ctx *ctx, const kafka_arg *a, kafka_src *s, int i, int k)
{
    part *p = &s->parts[i];
    const writer_mark *w = &p->writers[k];
    int ch = p->wchan + k, r = 0;
    if (!w->heard)
        return 0;
    if (w->watermark != WEIR_TS_MIN && !w->idle && !w->ended)
        r = weir_source_partition_watermark(ctx, ch, w->watermark);
    if (r == 0)
        r = weir_source_partition_status(ctx, ch, w->idle || w->ended);
    if (r < 0 || !a->cfg.bounded)
        return r;
    for (int j = 0; j < p->nwriters; j++) {
        if (!p->writers[j].ended)
            return 0;
    }
    return mark_done(ctx, s, i);
}

/* A writer's marker (kafka_markers.h) at partition i. A marker that names
 * another number of writers is from a writing job that was rescaled or
 * restarted differently: the writers are counted anew from it. */
static int on_marker(weir_ctx *ctx, const kafka_arg *a, kafka_src *s, int i,
                     const rd_kafka_message_t *m, const void *text, size_t len)
{
    part *p = &s->parts[i];
    weir__kafka_marker mk;
    if (weir__kafka_marker_parse(text, len, &mk) < 0) {
        char shown[WEIR__KAFKA_MARKER_MAX];
        size_t n = len < sizeof shown - 1 ? len : sizeof shown - 1;
        memcpy(shown, text, n);
        shown[n] = '\0';
        return weir_ctx_fail(ctx, WEIR_EFORMAT,
                             "kafka %s-%" PRId32 " offset %" PRId64 ": not a weir watermark "
                             "marker: \"%s\"",
                             s->topics[p->topic], p->partition, m->offset, shown);
    }
    int writer = mk.writer, writers = mk.writers;
    int64_t wm = mk.watermark;
    if (writers != p->nwriters) {
        writer_mark *wr = calloc((size_t)writers, sizeof *wr);
        if (!wr)
            return weir_ctx_fail(ctx, WEIR_ENOMEM, "out of memory for %d writers", writers);
        for (int k = 0; k < writers; k++)
            wr[k].watermark = WEIR_TS_MIN;
        /* the old writers' channels hold nothing any more */
        for (int k = 0; p->wchan >= 0 && k < p->nwriters; k++) {
            int r = weir_source_partition_status(ctx, p->wchan + k, true);
            if (r < 0) {
                free(wr);
                return r;
            }
        }
        free(p->writers);
        p->writers = wr;
        p->nwriters = writers;
        int r = open_writers(ctx, a, s, i);
        if (r < 0)
            return r;
    }
    writer_mark *w = &p->writers[writer];
    w->heard = true;
    switch (mk.kind) {
    case WEIR__KAFKA_MARK_WATERMARK:
        if (wm > w->watermark)
            w->watermark = wm;
        w->idle = false; /* a watermark reactivates its channel (weir/operator.h) */
        break;
    case WEIR__KAFKA_MARK_IDLE:
        w->idle = true;
        break;
    case WEIR__KAFKA_MARK_ACTIVE:
        w->idle = false;
        break;
    case WEIR__KAFKA_MARK_END:
        w->ended = true;
        break;
    }
    return apply_writer(ctx, a, s, i, writer);
}

static int one_message(weir_ctx *ctx, const kafka_arg *a, kafka_src *s, rd_kafka_message_t *m)
{
    const char *topic = m->rkt ? rd_kafka_topic_name(m->rkt) : "?";
    int t = m->rkt ? topic_index(s, topic) : -1;
    int i = t >= 0 ? find_part(s, t, m->partition) : -1;
    if (m->err == RD_KAFKA_RESP_ERR__PARTITION_EOF) {
        if (i >= 0 && s->parts[i].stop >= 0 && m->offset >= s->parts[i].stop)
            return mark_done(ctx, s, i);
        return 0;
    }
    if (m->err) {
        if (weir__kafka_retriable(m->err))
            return 0; /* librdkafka reconnects and fetches again */
        if (i < 0)
            return weir_ctx_fail(ctx, WEIR_EIO, "kafka: %s", rd_kafka_message_errstr(m));
        return weir_ctx_fail(ctx, WEIR_EIO, "kafka %s-%" PRId32 ": %s", topic, m->partition,
                             rd_kafka_message_errstr(m));
    }
    if (i < 0)
        return 0; /* not (or no longer) this subtask's */
    part *p = &s->parts[i];
    if (p->done || m->offset < p->next)
        return 0;
    if (p->stop >= 0 && m->offset >= p->stop)
        return mark_done(ctx, s, i);
    rd_kafka_headers_t *hdrs = NULL;
    if (rd_kafka_message_headers(m, &hdrs) != RD_KAFKA_RESP_ERR_NO_ERROR)
        hdrs = NULL;
    const void *hv;
    size_t hl;
    if (hdrs && rd_kafka_header_get_last(hdrs, WEIR__KAFKA_TXN_HEADER, &hv, &hl) ==
                    RD_KAFKA_RESP_ERR_NO_ERROR) {
        p->next = m->offset + 1; /* an exactly-once sink's commit marker */
        return 0;
    }
    if (a->cfg.inband_watermarks && !m->payload && !m->key && hdrs) {
        const void *text;
        size_t tlen;
        if (rd_kafka_header_get_last(hdrs, WEIR__KAFKA_MARKER_HEADER, &text, &tlen) ==
            RD_KAFKA_RESP_ERR_NO_ERROR) {
            p->next = m->offset + 1;
            return on_marker(ctx, a, s, i, m, text, tlen);
        }
    }
    size_t max = a->cfg.max_value_bytes ? a->cfg.max_value_bytes : (size_t)1 << 20;
    if (m->len > max)
        return weir_ctx_fail(ctx, WEIR_EFORMAT,
                             "kafka %s-%" PRId32 " offset %" PRId64 ": a value of %zu bytes, over "
                             "max_value_bytes (%zu)",
                             topic, m->partition, m->offset, m->len, max);
    rd_kafka_timestamp_type_t tstype;
    int64_t kts = rd_kafka_message_timestamp(m, &tstype);
    weir_kafka_message km = {.topic = topic,
                             .partition = m->partition,
                             .offset = m->offset,
                             .key = m->key,
                             .key_len = m->key_len,
                             .value = m->payload,
                             .value_len = m->len,
                             .timestamp = kts >= 0 ? kts : WEIR_NO_TIMESTAMP,
                             .headers_ = hdrs,
                             .timestamp_type = kts < 0 ? WEIR_KAFKA_NO_TIMESTAMP_TYPE
                                               : tstype == RD_KAFKA_TIMESTAMP_LOG_APPEND_TIME
                                                   ? WEIR_KAFKA_LOG_APPEND_TIME
                                               : tstype == RD_KAFKA_TIMESTAMP_CREATE_TIME
                                                   ? WEIR_KAFKA_CREATE_TIME
                                                   : WEIR_KAFKA_NO_TIMESTAMP_TYPE};
    int64_t ts = km.timestamp;
    char why[256] = "";
    int r = a->cfg.deserialize(&km, s->elem, &ts, why, sizeof why, a->cfg.arg);
    p->next = m->offset + 1;
    if (r < 0)
        return weir_ctx_fail(ctx, r, "kafka %s-%" PRId32 " offset %" PRId64 ": %s", topic,
                             m->partition, m->offset, why[0] ? why : weir_strerror(r));
    if (r == WEIR_KAFKA_SKIP) {
        weir_ctx_count(ctx, WEIR_COUNTER_FILTERED, 1);
        return 0;
    }
    if (r != WEIR_KAFKA_EMIT)
        return weir_ctx_fail(ctx, WEIR_ECALLBACK,
                             "kafka %s-%" PRId32 " offset %" PRId64 ": the deserializer returned "
                             "%d (WEIR_KAFKA_EMIT, WEIR_KAFKA_SKIP or a negative WEIR_E* code "
                             "expected)",
                             topic, m->partition, m->offset, r);
    r = weir_emit(ctx, s->elem, ts);
    if (r < 0)
        return r;
    r = part_event(ctx, a, p, i, s->elem, ts);
    if (r < 0)
        return r;
    if (p->stop >= 0 && p->next >= p->stop)
        return mark_done(ctx, s, i);
    return 0;
}

static int src_next(weir_ctx *ctx)
{
    const kafka_arg *a = weir_ctx_arg(ctx);
    kafka_src *s = weir_ctx_state(ctx);
    int r;
    if (!s->declared) {
        s->declared = true;
        /* no partition: idle at once (Flink's rule) */
        r = declare_partitions(ctx, s);
        if (r < 0)
            return r;
        if (!s->restored && (r = resolve_and_assign(ctx, a, s, 0, a->cfg.start)) < 0)
            return r;
        for (int i = 0; i < s->nparts; i++) {
            if (s->parts[i].done && (r = mark_done(ctx, s, i)) < 0)
                return r;
            /* restored writers' marks: a partition whose writers had all
             * ended before the checkpoint hears none of them again */
            if (s->parts[i].nwriters && (r = open_writers(ctx, a, s, i)) < 0)
                return r;
            for (int k = 0; k < s->parts[i].nwriters && !s->parts[i].done; k++) {
                if ((r = apply_writer(ctx, a, s, i, k)) < 0)
                    return r;
            }
        }
    }
    if (atomic_load(&s->found_new) && (r = take_discovered(ctx, a, s)) < 0)
        return r;
    ssize_t got = rd_kafka_consume_batch_queue(s->queue, 0, s->batch, (size_t)s->batch_cap);
    if (got < 0)
        return weir_ctx_fail(ctx, WEIR_EIO, "kafka: reading: %s",
                             rd_kafka_err2str(rd_kafka_last_error()));
    r = 0;
    for (ssize_t k = 0; k < got; k++) {
        if (r == 0)
            r = one_message(ctx, a, s, s->batch[k]);
        rd_kafka_message_destroy(s->batch[k]);
    }
    if (r < 0)
        return r;
    int64_t now = weir_ctx_now(ctx);
    if (now >= s->next_probe) {
        if ((r = probe_all(ctx, a, s, now)) < 0)
            return r;
        while (s->next_probe <= now)
            s->next_probe += s->interval;
    }
    if (now >= s->next_commit) {
        commit_offsets(ctx, a, s, false);
        s->next_commit = now + (a->cfg.commit_interval_ms > 0 ? a->cfg.commit_interval_ms : 5000);
    }
    if (a->cfg.bounded && all_done(s)) {
        if (!weir_ctx_checkpoints(ctx))
            commit_offsets(ctx, a, s, true);
        return WEIR_SOURCE_END;
    }
    if (got > 0)
        return WEIR_SOURCE_MORE;
    int64_t until = now + POLL_WAIT_MS;
    if (s->next_probe < until)
        until = s->next_probe;
    weir_source_wait_until(ctx, until);
    return WEIR_SOURCE_WAIT;
}

/* ---- checkpoints ------------------------------------------------------------- */

/* One partition's position: a piece is the tag, a count, then these; with
 * KAFKA_WRITERS_TAG each is followed by its writers' marks (nwriters of
 * saved_writer). */
typedef struct saved_part {
    char topic[256];
    int32_t partition;
    int32_t nwriters;
    int64_t next;
} saved_part;

typedef struct saved_writer {
    int64_t watermark;
    uint8_t heard, idle, ended, pad_[5];
} saved_writer;

static int src_snapshot(weir_ctx *ctx, weir_snapshot_writer *w)
{
    kafka_src *s = weir_ctx_state(ctx);
    uint32_t head[2] = {KAFKA_WRITERS_TAG, 0};
    for (int i = 0; i < s->nparts; i++)
        head[1] += s->parts[i].next >= 0;
    int r = weir_snapshot_write(w, head, sizeof head);
    for (int i = 0; !r && i < s->nparts; i++) {
        const part *p = &s->parts[i];
        if (p->next < 0)
            continue;
        saved_part sp = {.partition = p->partition, .nwriters = p->nwriters, .next = p->next};
        snprintf(sp.topic, sizeof sp.topic, "%s", s->topics[p->topic]);
        r = weir_snapshot_write(w, &sp, sizeof sp);
        for (int k = 0; !r && k < p->nwriters; k++) {
            const writer_mark *m = &p->writers[k];
            saved_writer sw = {.watermark = m->watermark, .heard = m->heard, .idle = m->idle,
                               .ended = m->ended};
            r = weir_snapshot_write(w, &sw, sizeof sw);
        }
    }
    return r;
}

/* Partition sp's writers' marks, from the checkpoint: a writer that ended
 * before it is not heard again. */
static int restore_writers(weir_ctx *ctx, part *p, const saved_part *sp, const unsigned char *b)
{
    free(p->writers);
    p->writers = NULL;
    p->nwriters = 0;
    if (sp->nwriters == 0)
        return 0;
    if (!(p->writers = calloc((size_t)sp->nwriters, sizeof *p->writers)))
        return weir_ctx_fail(ctx, WEIR_ENOMEM, "out of memory for %d writers", sp->nwriters);
    p->nwriters = sp->nwriters;
    for (int k = 0; k < sp->nwriters; k++) {
        saved_writer sw;
        memcpy(&sw, b + (size_t)k * sizeof sw, sizeof sw);
        p->writers[k] = (writer_mark){.watermark = sw.watermark, .heard = sw.heard != 0,
                                      .idle = sw.idle != 0, .ended = sw.ended != 0};
    }
    return 0;
}

static int src_restore(weir_ctx *ctx, weir_snapshot_reader *rd)
{
    const kafka_arg *a = weir_ctx_arg(ctx);
    kafka_src *s = weir_ctx_state(ctx);
    const void *data;
    size_t len;
    while (weir_snapshot_next(rd, &data, &len) == 1) {
        const unsigned char *b = data;
        uint32_t head[2];
        if (len < sizeof head)
            goto bad;
        memcpy(head, b, sizeof head);
        if (head[0] != KAFKA_POSITION_TAG && head[0] != KAFKA_WRITERS_TAG)
            goto bad;
        bool writers = head[0] == KAFKA_WRITERS_TAG;
        size_t at = sizeof head;
        for (uint32_t k = 0; k < head[1]; k++) {
            saved_part sp;
            if (len - at < sizeof sp)
                goto bad;
            memcpy(&sp, b + at, sizeof sp);
            at += sizeof sp;
            sp.topic[sizeof sp.topic - 1] = '\0';
            if (!writers)
                sp.nwriters = 0; /* KAF1 had padding there */
            if (sp.nwriters < 0 || sp.nwriters > WEIR__KAFKA_MAX_WRITERS ||
                (len - at) / sizeof(saved_writer) < (size_t)sp.nwriters)
                goto bad;
            int t = topic_index(s, sp.topic);
            int i = t >= 0 ? find_part(s, t, sp.partition) : -1;
            if (i >= 0) { /* owned now: go on where the checkpoint was */
                s->parts[i].next = sp.next;
                int r = restore_writers(ctx, &s->parts[i], &sp, b + at);
                if (r < 0)
                    return r;
            }
            at += (size_t)sp.nwriters * sizeof(saved_writer);
        }
        if (at != len)
            goto bad;
    }
    /* Partitions the checkpoint did not know appeared after the job
     * started (or had nothing read yet): from their first record, as a
     * discovered one (take_discovered). */
    s->restored = true;
    return resolve_and_assign(ctx, a, s, 0, WEIR_KAFKA_EARLIEST);
bad:
    return weir_ctx_fail(ctx, WEIR_EFORMAT, "restore: not a Kafka source's state");
}

static int src_notify(weir_ctx *ctx, int64_t id)
{
    (void)id;
    return commit_offsets(ctx, weir_ctx_arg(ctx), weir_ctx_state(ctx), false);
}

static const weir_source_vtable kafka_vtable = {
    .version = WEIR_SOURCE_VTABLE_V2,
    .open = src_open,
    .next = src_next,
    .close = src_close,
    .snapshot = src_snapshot,
    .restore = src_restore,
    .notify_complete = src_notify,
};

/* ---- the builder --------------------------------------------------------------- */

int weir_kafka_header(const weir_kafka_message *m, const char *name, const void **value,
                      size_t *len)
{
    if (!m || !m->headers_ || !name)
        return 0;
    const void *v = NULL;
    size_t n = 0;
    if (rd_kafka_header_get_last((const rd_kafka_headers_t *)m->headers_, name, &v, &n) !=
        RD_KAFKA_RESP_ERR_NO_ERROR)
        return 0;
    if (value)
        *value = v;
    if (len)
        *len = n;
    return 1;
}

static const char *const reserved[] = {"bootstrap.servers", "group.id", "enable.auto.commit",
                                       "enable.auto.offset.store", "enable.partition.eof"};

static const char *check_config(const weir_kafka_source_config *c, char *why, size_t size)
{
    if (!c)
        return "a config is required";
    if (!c->bootstrap_servers || !*c->bootstrap_servers)
        return "bootstrap_servers is required";
    if (c->topic_pattern && (c->topics || c->ntopics))
        return "topics or topic_pattern, not both";
    if (c->topic_pattern && !*c->topic_pattern)
        return "an empty topic_pattern";
    if (!c->topic_pattern && (!c->topics || c->ntopics < 1 || c->ntopics > 64))
        return "1 to 64 topics, or a topic_pattern, are required";
    for (int i = 0; i < c->ntopics; i++) {
        if (!c->topics[i] || !*c->topics[i] || strlen(c->topics[i]) > 249)
            return "every topic needs a name of 1 to 249 bytes";
    }
    if (!c->deserialize)
        return "a deserialize function is required";
    if (c->elem_size < 1 || c->elem_size > WEIR_MAX_ELEM_SIZE)
        return "elem_size must be 1..WEIR_MAX_ELEM_SIZE";
    if (c->start == WEIR_KAFKA_COMMITTED && !c->group_id)
        return "start WEIR_KAFKA_COMMITTED needs a group_id";
    if ((int)c->start < 0 || c->start > WEIR_KAFKA_TIMESTAMP)
        return "start is not a weir_kafka_start";
    if (c->instances < 0 || c->instance < 0 || (c->instances > 0 && c->instance >= c->instances) ||
        (c->instances == 0 && c->instance != 0))
        return "instance must be 0..instances-1";
    const weir_watermark_strategy *st = &c->watermarks;
    if (st->kind == WEIR_WATERMARKS_BOUNDED && st->bound_ms < 0)
        return "the watermark bound is negative";
    if (st->kind == WEIR_WATERMARKS_PUNCTUATED && !st->punctuated)
        return "a punctuated strategy needs its function";
    if (st->kind == WEIR_WATERMARKS_CUSTOM && !st->custom)
        return "a custom strategy needs its generator";
    if (st->idleness_ms < 0)
        return "with_idleness needs a timeout > 0";
    return weir__kafka_check_properties(c->properties, reserved,
                                        sizeof reserved / sizeof reserved[0], "source", why,
                                        size);
}

weir_stream *weir_source_kafka(weir_job *job, const weir_kafka_source_config *cfg)
{
    if (!job)
        return NULL;
    char buf[200];
    const char *why = check_config(cfg, buf, sizeof buf);
    if (why) {
        weir_job_record_error(job, WEIR_EINVAL, "weir_source_kafka: %s", why);
        return NULL;
    }
    kafka_arg *a = calloc(1, sizeof *a);
    if (!a) {
        weir_job_record_error(job, WEIR_ENOMEM, "weir_source_kafka: out of memory");
        return NULL;
    }
    a->cfg = *cfg;
    a->bootstrap = strdup(cfg->bootstrap_servers);
    a->topics = calloc((size_t)(cfg->ntopics ? cfg->ntopics : 1), sizeof *a->topics);
    a->props = weir__kafka_copy_properties(cfg->properties);
    a->group = cfg->group_id ? strdup(cfg->group_id) : NULL;
    bool ok = a->bootstrap && a->topics && a->props && (!cfg->group_id || a->group);
    for (int i = 0; ok && i < cfg->ntopics; i++)
        ok = (a->topics[i] = strdup(cfg->topics[i])) != NULL;
    if (!ok) {
        arg_free(a);
        weir_job_record_error(job, WEIR_ENOMEM, "weir_source_kafka: out of memory");
        return NULL;
    }
    if (cfg->topic_pattern) {
        /* the whole name matches, as Java's Pattern.matcher(topic).matches() */
        size_t n = strlen(cfg->topic_pattern) + 5;
        char *whole = malloc(n);
        int e = whole ? (snprintf(whole, n, "^(%s)$", cfg->topic_pattern),
                         regcomp(&a->pattern, whole, REG_EXTENDED | REG_NOSUB))
                      : REG_ESPACE;
        free(whole);
        if (e) {
            char msg[128];
            regerror(e, &a->pattern, msg, sizeof msg);
            arg_free(a);
            weir_job_record_error(job, e == REG_ESPACE ? WEIR_ENOMEM : WEIR_EINVAL,
                                  "weir_source_kafka: topic_pattern '%s': %s", cfg->topic_pattern,
                                  msg);
            return NULL;
        }
        a->has_pattern = true;
    }
    a->cfg.topic_pattern = NULL; /* not kept: a->pattern is */
    a->cfg.name = NULL;
    a->cfg.bootstrap_servers = a->bootstrap;
    a->cfg.topics = (const char *const *)a->topics;
    a->cfg.properties = (const char *const *)a->props;
    a->cfg.group_id = a->group;
    weir_source_spec spec = {
        .name = cfg->name ? cfg->name : "kafka",
        .kind = "kafka",
        .vtable = &kafka_vtable,
        .arg = a,
        .arg_free = arg_free,
        .elem_size = cfg->elem_size,
    };
    /* partitions go by the assignment rule, not by old subtask: every
     * subtask sees every old subtask's offsets at a restore */
    return weir_source_union_state(weir_job_add_source(job, &spec));
}
