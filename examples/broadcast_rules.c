/* broadcast_rules.c — the broadcast state pattern (weir/broadcast.h,
 * Flink's KeyedBroadcastProcessFunction): a stream of alert thresholds per
 * sensor is broadcast to every subtask of a keyed operator, which keeps
 * them in a broadcast map state; temperature readings, keyed by sensor,
 * are checked against the threshold that held at their time.
 *
 * Each rule is valid from its timestamp. A reading is not checked when it
 * arrives but at its event-time timer: the operator's watermark is the
 * least of both inputs', so when the timer at t fires every rule stamped at
 * or before t has arrived, whichever input the threads delivered first.
 * Look at the output: the reading of 31 C at t=2500 alerts under the
 * threshold of 30 set at t=2000, the one of 31 C at t=1500 does not (the
 * threshold was 35 then), and the operator's three subtasks print the same
 * rule count at their end: each holds the whole broadcast state.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <weir.h>

typedef struct reading {
    char sensor[8];
    int64_t celsius;
} reading;

typedef struct rule {
    char sensor[8];
    int64_t max_celsius;
} rule;

typedef struct rule_key { /* a rule of a sensor, valid from `from` */
    char sensor[8];
    int64_t from;
} rule_key;

typedef struct alert {
    char sensor[8];
    int64_t celsius, max_celsius;
} alert;

typedef struct ids {
    int pending; /* keyed list state: readings waiting for their timer */
} ids;

static int open_op(weir_ctx *ctx)
{
    ids *s = calloc(1, sizeof *s);
    if (!s)
        return WEIR_ENOMEM;
    weir_ctx_set_state(ctx, s);
    return weir_state_declare(ctx, WEIR_STATE_LIST, sizeof(reading), &s->pending);
}

static void close_op(weir_ctx *ctx)
{
    free(weir_ctx_state(ctx));
}

static int on_reading(weir_ctx *ctx, const void *elem, int64_t ts)
{
    const ids *s = weir_ctx_state(ctx);
    int r = weir_state_list_add(ctx, s->pending, ts, elem);
    return r ? r : weir_timer_register(ctx, WEIR_EVENT_TIME, ts, ts);
}

/* processBroadcastElement: every subtask stores the rule */
static int on_rule(weir_ctx *ctx, const void *elem, int64_t ts)
{
    const rule *r = elem;
    rule_key k;
    memset(&k, 0, sizeof k);
    memcpy(k.sensor, r->sensor, sizeof k.sensor);
    k.from = ts;
    return weir_broadcast_put(ctx, 0, &k, &r->max_celsius);
}

/* The threshold of `sensor` at `t`: the newest rule from at or before t. */
static int64_t threshold_at(weir_ctx *ctx, const char *sensor, int64_t t)
{
    weir_broadcast_iter it;
    weir_broadcast_begin(ctx, 0, &it);
    const void *k, *v;
    int64_t best = INT64_MIN, max = INT64_MAX;
    while (weir_broadcast_next(&it, &k, &v)) {
        const rule_key *rk = k;
        if (memcmp(rk->sensor, sensor, 8) == 0 && rk->from <= t && rk->from > best) {
            best = rk->from;
            memcpy(&max, v, sizeof max);
        }
    }
    return max;
}

static int on_timer(weir_ctx *ctx, const weir_timer *t)
{
    const ids *s = weir_ctx_state(ctx);
    size_t n = 0;
    const reading *list = weir_state_list_get(ctx, s->pending, t->ns, &n);
    reading batch[16];
    if (n > 16)
        n = 16;
    memcpy(batch, list, n * sizeof *batch);
    weir_state_clear(ctx, s->pending, t->ns);
    for (size_t i = 0; i < n; i++) {
        int64_t max = threshold_at(ctx, batch[i].sensor, t->timestamp);
        if (batch[i].celsius > max) {
            alert a;
            memcpy(a.sensor, batch[i].sensor, 8);
            a.celsius = batch[i].celsius;
            a.max_celsius = max;
            int r = weir_emit(ctx, &a, t->timestamp);
            if (r)
                return r;
        }
    }
    return 0;
}

static int on_end(weir_ctx *ctx)
{
    printf("subtask %d holds %zu rules\n", weir_ctx_subtask(ctx), weir_broadcast_count(ctx, 0));
    return 0;
}

static void by_sensor(const void *e, void *key, void *arg)
{
    (void)arg;
    memcpy(key, ((const reading *)e)->sensor, 8);
}

static int format(const void *e, int64_t ts, char *buf, size_t n, void *arg)
{
    const alert *a = e;
    (void)arg;
    return snprintf(buf, n, "t=%lld ALERT %.8s %lld C > %lld C", (long long)ts, a->sensor,
                    (long long)a->celsius, (long long)a->max_celsius);
}

int main(void)
{
    static const reading readings[] = {{"north", 31}, {"south", 25}, {"north", 31},
                                       {"south", 29}, {"north", 36}};
    static const int64_t reading_ts[] = {1500, 1600, 2500, 2600, 3000};
    static const rule rules[] = {{"north", 35}, {"south", 28}, {"north", 30}};
    static const int64_t rule_ts[] = {0, 0, 2000};
    static const weir_broadcast_vtable vt = {
        .version = WEIR_OPERATOR_VTABLE_V1,
        .open = open_op,
        .on_record = on_reading,
        .on_broadcast = on_rule,
        .on_timer = on_timer,
        .on_end = on_end,
        .close = close_op,
    };
    static const weir_broadcast_state_desc states[] = {{sizeof(rule_key), sizeof(int64_t)}};
    weir_job *job;
    if (weir_job_create(&(weir_job_config){.workers = 2}, &job) != 0)
        return 1;
    weir_timestamps_spec ascending = {.strategy = weir_watermarks_bounded(0)};
    weir_stream *in = weir_stream_assign_timestamps(
        weir_source_array(job, readings, 5, sizeof(reading), reading_ts), &ascending);
    weir_stream *r = weir_stream_assign_timestamps(
        weir_source_array(job, rules, 3, sizeof(rule), rule_ts), &ascending);
    weir_stream *alerts = weir_stream_broadcast_process(
        weir_stream_key_by(in, &(weir_key_spec){.key_size = 8, .extract = by_sensor}), r,
        &(weir_broadcast_spec){.name = "thresholds", .vtable = &vt, .out_size = sizeof(alert),
                               .parallelism = 3, .states = states, .nstates = 1});
    weir_sink_print(alerts, format, NULL, stdout);
    int rc = weir_job_run(job);
    if (rc)
        fprintf(stderr, "%s\n", weir_job_error(job));
    weir_job_destroy(job);
    return rc != 0;
}
