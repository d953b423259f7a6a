/* test_live.c — the HTTP server of a running job (weir_job_config.http_addr,
 * diag/live.c, docs/LIVE.md), with a small HTTP client of the test's own.
 *
 * The job: two generator partitions on the virtual clock, timestamps,
 * key_by, 100 ms tumbling windows counting, collected. A filter in front of
 * the windows holds the job at a gate (its worker waits in the filter) once
 * partition 0 reached GATE_SEQ, so that requests meet a job that is running
 * and has done most of its work; the test opens the gate and the job ends.
 *   - /metrics is Prometheus's text exposition, line by line (HELP, TYPE,
 *     samples with well-formed labels and values, a family's samples
 *     together, no series twice), with Flink's names and the values the
 *     collector gathered;
 *   - /events carries the capture's events: the same JSON lines, in the same
 *     order, as the JSONL capture the same run writes;
 *   - a client that connects after the history was cut gets a gap event;
 *   - /jobs and its children answer as Flink's REST API;
 *   - bad requests (a long URL, a bad method, garbage, more connections than
 *     the server holds) are refused with a status, and the job's results are
 *     those of a run without a server;
 *   - a bad or taken address is refused.
 */
#include <arpa/inet.h>
#include <criterion/criterion.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <regex.h>
#include <stdatomic.h>
#include <sys/socket.h>
#include <time.h>

#include "diag/test_diag_support.h"
#include "weir/window.h"

#define GATE_SEQ 400
#define PER_PARTITION 500

/* ---- the job ------------------------------------------------------------- */

static void pause_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

static atomic_int gate_open, gate_reached;
static int64_t gate_seq = GATE_SEQ;

static int gate(const void *in, void *arg)
{
    (void)arg;
    const weir_gen_event *e = in;
    if (e->partition == 0 && e->seq == gate_seq) {
        atomic_store(&gate_reached, 1);
        while (!atomic_load(&gate_open))
            pause_ms(1);
    }
    return 1;
}

typedef struct counted {
    int64_t key, start, count;
} counted;

static void c_add(void *acc, const void *elem, void *arg)
{
    (void)elem;
    (void)arg;
    ((int64_t *)acc)[0]++;
}

static void c_merge(void *acc, const void *other, void *arg)
{
    (void)arg;
    ((int64_t *)acc)[0] += ((const int64_t *)other)[0];
}

static void c_result(const void *acc, const weir_window_info *w, void *out, void *arg)
{
    (void)arg;
    counted *r = out;
    memcpy(&r->key, w->key, 8);
    r->start = w->start;
    r->count = ((const int64_t *)acc)[0];
}

typedef struct live_job {
    weir_job *job;
    weir_collect *results;
    tu_runner rn;
} live_job;

static void make_job(live_job *lj, const char *addr, const char *jsonl, weir_diag_level level,
                     int64_t per_partition, bool gated)
{
    atomic_store(&gate_open, gated ? 0 : 1);
    atomic_store(&gate_reached, 0);
    weir_job_config cfg = {.workers = 1,
                           .clock = WEIR_CLOCK_VIRTUAL,
                           .watermark_interval_ms = 10,
                           .diag = {.jsonl_path = jsonl, .level = level},
                           .http_addr = addr};
    lj->job = tu_job(&cfg);
    weir_generator_config g = {
        .partitions = 2,
        .keys = 5,
        .rate = 1000,
        .pace = WEIR_GEN_PACED,
        .count = per_partition,
        .disorder_ms = 5,
        .late_fraction = 0.02,
        .late_ms = 150,
        .seed = 3,
    };
    weir_stream *s = weir_source_generator(lj->job, &g);
    weir_timestamps_spec ts = {.strategy = weir_watermarks_bounded(5)};
    s = weir_stream_set_parallelism(weir_stream_assign_timestamps(s, &ts), 2);
    s = weir_stream_set_parallelism(weir_stream_set_name(weir_stream_filter(s, gate, NULL), "gate"),
                                    2);
    weir_window_spec spec = {
        .name = "window",
        .assigner = weir_window_tumbling(100, 0),
        .aggregate = {.acc_size = sizeof(int64_t), .add = c_add, .merge = c_merge,
                      .result = c_result},
        .out_size = sizeof(counted),
        .parallelism = 2,
    };
    s = weir_stream_window(weir_stream_key_by(s, weir_generator_key()), &spec);
    cr_assert_not_null(weir_sink_collect(s, &lj->results), "%s", weir_job_error(lj->job));
}

static int wait_port(live_job *lj)
{
    for (int i = 0; i < 20000; i++) {
        int port = weir_job_http_port(lj->job);
        if (port > 0)
            return port;
        cr_assert(!atomic_load(&lj->rn.done), "the job ended before it listened: %s",
                  weir_job_error(lj->job));
        pause_ms(1);
    }
    cr_assert_fail("the server never listened");
    return 0;
}

static void wait_gate(void)
{
    for (int i = 0; i < 60000 && !atomic_load(&gate_reached); i++)
        pause_ms(1);
    cr_assert(atomic_load(&gate_reached), "the job never reached the gate");
}

static void finish(live_job *lj)
{
    atomic_store(&gate_open, 1);
    pthread_join(lj->rn.thread, NULL);
    cr_assert_eq(lj->rn.result, 0, "weir_job_run: %s", weir_job_error(lj->job));
}

/* The results, sorted, as text: what a run computed. */
static char *results_text(const weir_collect *c)
{
    size_t n = weir_collect_count(c);
    counted *v = malloc((n ? n : 1) * sizeof *v);
    cr_assert_not_null(v);
    for (size_t i = 0; i < n; i++)
        memcpy(&v[i], weir_collect_elem(c, i), sizeof v[i]);
    for (size_t i = 1; i < n; i++)
        for (size_t j = i; j > 0 && (v[j - 1].start > v[j].start ||
                                     (v[j - 1].start == v[j].start && v[j - 1].key > v[j].key));
             j--) {
            counted t = v[j];
            v[j] = v[j - 1];
            v[j - 1] = t;
        }
    char *out = malloc(n * 64 + 1);
    cr_assert_not_null(out);
    size_t len = 0;
    out[0] = '\0';
    for (size_t i = 0; i < n; i++)
        len += (size_t)sprintf(out + len, "%lld %lld %lld\n", (long long)v[i].key,
                               (long long)v[i].start, (long long)v[i].count);
    free(v);
    return out;
}

/* ---- a small HTTP client ----------------------------------------------- */

static int connect_to(int port)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    cr_assert(fd >= 0);
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    inet_pton(AF_INET, "127.0.0.1", &sa.sin_addr);
    cr_assert_eq(connect(fd, (struct sockaddr *)&sa, sizeof sa), 0, "connect: %s", strerror(errno));
    return fd;
}

static void send_all(int fd, const char *s, size_t n)
{
    while (n > 0) {
        ssize_t w = send(fd, s, n, MSG_NOSIGNAL);
        if (w <= 0)
            return; /* the server may close a hostile request early */
        s += w;
        n -= (size_t)w;
    }
}

/* Reads until the server closes (10 s at most); the bytes, NUL-ended. */
static char *read_all(int fd, size_t *len)
{
    size_t cap = 65536, n = 0;
    char *buf = malloc(cap);
    cr_assert_not_null(buf);
    for (;;) {
        struct pollfd p = {.fd = fd, .events = POLLIN};
        int r = poll(&p, 1, 10000);
        cr_assert(r > 0, "the server sent nothing for 10 s");
        if (n + 4096 > cap) {
            cap *= 2;
            buf = realloc(buf, cap);
            cr_assert_not_null(buf);
        }
        ssize_t k = recv(fd, buf + n, cap - n - 1, 0);
        if (k <= 0)
            break;
        n += (size_t)k;
    }
    buf[n] = '\0';
    *len = n;
    return buf;
}

typedef struct response {
    int status;
    char *raw;      /* the whole answer */
    char *body;     /* into raw, de-chunked if it was chunked */
    size_t body_len;
} response;

/* Undoes chunked transfer coding in place. */
static size_t dechunk(char *b)
{
    char *in = b, *out = b;
    for (;;) {
        char *end;
        unsigned long size = strtoul(in, &end, 16);
        char *crlf = strstr(end, "\r\n");
        if (!crlf || size == 0)
            break;
        in = crlf + 2;
        memmove(out, in, size);
        out += size;
        in += size + 2;
    }
    *out = '\0';
    return (size_t)(out - b);
}

static response request(int port, const char *raw_request, size_t n)
{
    int fd = connect_to(port);
    send_all(fd, raw_request, n);
    /* nothing more comes: a request cut short is a client that went away */
    shutdown(fd, SHUT_WR);
    response r = {0};
    size_t len;
    r.raw = read_all(fd, &len);
    close(fd);
    if (sscanf(r.raw, "HTTP/1.%*d %d", &r.status) != 1)
        r.status = -1;
    char *body = strstr(r.raw, "\r\n\r\n");
    r.body = body ? body + 4 : r.raw + len;
    r.body_len = strlen(r.body);
    if (body && strcasestr(r.raw, "Transfer-Encoding: chunked") &&
        strcasestr(r.raw, "Transfer-Encoding: chunked") < body)
        r.body_len = dechunk(r.body);
    return r;
}

static response get(int port, const char *path)
{
    char req[1024];
    int n = snprintf(req, sizeof req, "GET %s HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
                     path);
    return request(port, req, (size_t)n);
}

/* ---- the Prometheus text format ------------------------------------------ */

/* Checks every line of an exposition (version 0.0.4): comments HELP and
 * TYPE, then samples `name{l="v",...} value`; returns the number of
 * samples. */
static int check_exposition(const char *text)
{
    regex_t help, type, sample;
    cr_assert_eq(regcomp(&help, "^# HELP [a-zA-Z_:][a-zA-Z0-9_:]* .*$", REG_EXTENDED), 0);
    cr_assert_eq(regcomp(&type, "^# TYPE ([a-zA-Z_:][a-zA-Z0-9_:]*) (gauge|counter|untyped)$",
                         REG_EXTENDED),
                 0);
    cr_assert_eq(regcomp(&sample,
                         "^([a-zA-Z_:][a-zA-Z0-9_:]*)"
                         "\\{([a-zA-Z_][a-zA-Z0-9_]*=\"([^\"\\\\\n]|\\\\[\"\\\\n])*\""
                         "(,[a-zA-Z_][a-zA-Z0-9_]*=\"([^\"\\\\\n]|\\\\[\"\\\\n])*\")*)\\} "
                         "([^ ]+)$",
                         REG_EXTENDED),
                 0);
    char family[256] = "";
    char seen_families[64][256];
    int nfam = 0, samples = 0;
    char **series = NULL;
    int nseries = 0;
    const char *p = text;
    int lineno = 0;
    while (*p) {
        const char *nl = strchr(p, '\n');
        cr_assert_not_null(nl, "the exposition does not end with a newline");
        char line[4096];
        size_t n = (size_t)(nl - p);
        cr_assert_lt(n, sizeof line);
        memcpy(line, p, n);
        line[n] = '\0';
        p = nl + 1;
        lineno++;
        regmatch_t m[8];
        if (regexec(&help, line, 0, NULL, 0) == 0)
            continue;
        if (regexec(&type, line, 3, m, 0) == 0) {
            snprintf(family, sizeof family, "%.*s", (int)(m[1].rm_eo - m[1].rm_so),
                     line + m[1].rm_so);
            for (int i = 0; i < nfam; i++)
                cr_assert_str_neq(seen_families[i], family, "line %d: family %s twice", lineno,
                                  family);
            cr_assert_lt(nfam, 64);
            snprintf(seen_families[nfam++], sizeof seen_families[0], "%s", family);
            continue;
        }
        cr_assert_eq(regexec(&sample, line, 8, m, 0), 0, "line %d is not a sample: %s", lineno,
                     line);
        char name[256];
        snprintf(name, sizeof name, "%.*s", (int)(m[1].rm_eo - m[1].rm_so), line + m[1].rm_so);
        cr_assert_str_eq(name, family, "line %d: sample %s outside its family %s", lineno, name,
                         family);
        char *end;
        const char *value = line + m[6].rm_so;
        strtod(value, &end);
        cr_assert(end != value && *end == '\0', "line %d: value '%s' is not a number", lineno,
                  value);
        /* no series twice */
        char key[4096];
        snprintf(key, sizeof key, "%.*s", (int)(m[6].rm_so - 1), line);
        for (int i = 0; i < nseries; i++)
            cr_assert_str_neq(series[i], key, "line %d: series twice: %s", lineno, key);
        series = realloc(series, (size_t)(nseries + 1) * sizeof *series);
        series[nseries++] = strdup(key);
        samples++;
    }
    for (int i = 0; i < nseries; i++)
        free(series[i]);
    free(series);
    regfree(&help);
    regfree(&type);
    regfree(&sample);
    return samples;
}

/* The value of the first sample of `name` whose labels contain `labels`
 * and `more` (NULL: any), in *value; false when there is none. */
static bool find_metric(const char *text, const char *name, const char *labels, const char *more,
                        double *value)
{
    size_t n = strlen(name);
    for (const char *p = text; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
        if (strncmp(p, name, n) != 0 || p[n] != '{')
            continue;
        const char *close = strstr(p, "} ");
        const char *nl = strchr(p, '\n');
        if (!close || (nl && close > nl))
            continue;
        char lab[4096];
        snprintf(lab, sizeof lab, "%.*s", (int)(close - p), p);
        if ((labels && !strstr(lab, labels)) || (more && !strstr(lab, more)))
            continue;
        *value = strtod(close + 2, NULL);
        return true;
    }
    return false;
}

static double metric2(const char *text, const char *name, const char *labels, const char *more)
{
    double v = 0;
    cr_assert(find_metric(text, name, labels, more, &v), "no sample %s{%s,%s}", name,
              labels ? labels : "", more ? more : "");
    return v;
}

static double metric(const char *text, const char *name, const char *labels)
{
    return metric2(text, name, labels, NULL);
}

/* ---- tests ----------------------------------------------------------------- */

/* GET path again (10 s at most) until `ready` says the collector, which
 * runs beside the job, has taken in what the job did before the gate. */
static response get_when(int port, const char *path, bool (*ready)(const char *body))
{
    response r = get(port, path);
    for (int i = 0; i < 500 && r.status == 200 && !ready(r.body); i++) {
        free(r.raw);
        pause_ms(20);
        r = get(port, path);
    }
    return r;
}

/* Whether the collector has taken in what the job did before the gate:
 * the generator's throughput samples, the window's watermark and firings.
 * It runs beside the job, so a request may come before it has. */
static bool metrics_caught_up(const char *text)
{
    double out = 0, in = 0, wm = 0, fired = 0;
    return find_metric(text, "flink_taskmanager_job_task_operator_numRecordsOut",
                       "operator_name=\"generator\"", "subtask_index=\"1\"", &out) &&
           out > 100 &&
           find_metric(text, "flink_taskmanager_job_task_operator_numRecordsIn",
                       "operator_name=\"window\"", NULL, &in) &&
           in > 0 &&
           find_metric(text, "flink_taskmanager_job_task_operator_currentInputWatermark",
                       "operator_name=\"window\"", NULL, &wm) &&
           wm > 0 &&
           find_metric(text, "weir_operator_windowFirings", "operator_name=\"window\"",
                       "firing=\"on_time\"", &fired) &&
           fired > 0;
}

Test(live, metrics_are_prometheus_text_with_flinks_names)
{
    live_job lj;
    make_job(&lj, "127.0.0.1:0", NULL, WEIR_DIAG_DEFAULT, PER_PARTITION, true);
    tu_runner_start(&lj.rn, lj.job);
    int port = wait_port(&lj);
    wait_gate();
    response r = get_when(port, "/metrics", metrics_caught_up);
    cr_assert_eq(r.status, 200, "%s", r.raw);
    cr_assert(strcasestr(r.raw, "Content-Type: text/plain; version=0.0.4"), "%s", r.raw);
    int samples = check_exposition(r.body);
    cr_assert_gt(samples, 20);
    tu_assert_contains(r.body,
                       "# HELP flink_taskmanager_job_task_operator_currentInputWatermark "
                       "currentInputWatermark (scope: taskmanager_job_task_operator)\n",
                       "# TYPE flink_taskmanager_job_task_operator_currentInputWatermark gauge\n",
                       "flink_taskmanager_job_task_operator_currentOutputWatermark{",
                       "flink_taskmanager_job_task_operator_numRecordsInPerSecond{",
                       "flink_taskmanager_job_task_operator_numRecordsOutPerSecond{",
                       "flink_taskmanager_job_task_operator_numLateRecordsDropped{",
                       "flink_taskmanager_job_task_operator_watermarkLag{",
                       "flink_taskmanager_job_task_backPressuredTimeMsPerSecond{",
                       "flink_jobmanager_job_numberOfCompletedCheckpoints{",
                       "flink_jobmanager_job_numberOfFailedCheckpoints{",
                       "flink_jobmanager_job_lastCheckpointDuration{",
                       "flink_jobmanager_job_lastCheckpointSize{", "weir_operator_heldByChannel{",
                       "weir_operator_watermarkStallSeconds{", "weir_operator_windowFirings{",
                       "operator_name=\"window\"", "subtask_index=\"1\"", "job_name=\"weir\"",
                       "task_name=\"generator -> timestamps -> gate\"");
    /* values the collector gathered: the generator made records, the window
     * took them in and its watermark advanced */
    cr_assert_gt(metric2(r.body, "flink_taskmanager_job_task_operator_numRecordsOut",
                         "operator_name=\"generator\"", "subtask_index=\"1\""),
                 100);
    cr_assert_gt(metric(r.body, "flink_taskmanager_job_task_operator_numRecordsIn",
                        "operator_name=\"window\""),
                 0);
    cr_assert_gt(metric(r.body, "flink_taskmanager_job_task_operator_currentInputWatermark",
                        "operator_name=\"window\""),
                 0);
    cr_assert_gt(metric2(r.body, "weir_operator_windowFirings", "operator_name=\"window\"",
                         "firing=\"on_time\""),
                 0);
    free(r.raw);
    finish(&lj);
    weir_job_destroy(lj.job);
}

/* The SSE stream's events: data lines, in order ("gap" events counted). */
static char *sse_data(const char *body, int *gaps)
{
    char *out = malloc(strlen(body) + 1);
    cr_assert_not_null(out);
    size_t n = 0;
    *gaps = 0;
    bool gap = false;
    for (const char *p = body; *p;) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        if (len > 6 && strncmp(p, "event: gap", 10) == 0) {
            gap = true;
            (*gaps)++;
        } else if (len >= 6 && strncmp(p, "data: ", 6) == 0) {
            if (!gap) {
                memcpy(out + n, p + 6, len - 6);
                n += len - 6;
                out[n++] = '\n';
            }
        } else if (len == 0) {
            gap = false;
        }
        p += len + (nl ? 1 : 0);
    }
    out[n] = '\0';
    return out;
}

Test(live, events_are_the_captures_events)
{
    char *dir = td_tmpdir();
    const char *path = td_path(dir, "run.jsonl");
    live_job lj;
    make_job(&lj, "127.0.0.1:0", path, WEIR_DIAG_DEFAULT, PER_PARTITION, true);
    tu_runner_start(&lj.rn, lj.job);
    int port = wait_port(&lj);
    int fd = connect_to(port);
    const char *req = "GET /events HTTP/1.1\r\nHost: x\r\nAccept: text/event-stream\r\n\r\n";
    send_all(fd, req, strlen(req));
    wait_gate();
    atomic_store(&gate_open, 1);
    /* the stream ends with the job, after the summary */
    size_t len;
    char *raw = read_all(fd, &len);
    close(fd);
    pthread_join(lj.rn.thread, NULL);
    cr_assert_eq(lj.rn.result, 0, "%s", weir_job_error(lj.job));
    cr_assert(strstr(raw, "Content-Type: text/event-stream"), "%.300s", raw);
    char *body = strstr(raw, "\r\n\r\n");
    cr_assert_not_null(body);
    body += 4;
    if (strcasestr(raw, "Transfer-Encoding: chunked"))
        dechunk(body);
    int gaps;
    char *events = sse_data(body, &gaps);
    cr_assert_eq(gaps, 0);
    static char capture[8 << 20];
    tu_slurp(path, capture, sizeof capture);
    cr_assert_gt(strlen(capture), 1000);
    cr_assert(strstr(events, "\"kind\":\"summary\""), "the stream ends without the summary");
    cr_assert_str_eq(events, capture, "the SSE events differ from the capture");
    free(events);
    free(raw);
    weir_job_destroy(lj.job);
    td_rmdir(dir);
}

Test(live, a_client_behind_the_history_gets_a_gap_event)
{
    /* verbose: a record event per record and operator; at the gate the job
     * made several times what the history holds (the collector is at most a
     * worker's ring, 8192 events, behind) */
    gate_seq = 12000;
    live_job lj;
    make_job(&lj, "127.0.0.1:0", NULL, WEIR_DIAG_VERBOSE, 12100, true);
    tu_runner_start(&lj.rn, lj.job);
    int port = wait_port(&lj);
    wait_gate();
    int fd = connect_to(port);
    const char *req = "GET /events HTTP/1.1\r\nHost: x\r\n\r\n";
    send_all(fd, req, strlen(req));
    atomic_store(&gate_open, 1);
    size_t len;
    char *raw = read_all(fd, &len);
    close(fd);
    pthread_join(lj.rn.thread, NULL);
    cr_assert_eq(lj.rn.result, 0, "%s", weir_job_error(lj.job));
    char *body = strstr(raw, "\r\n\r\n");
    cr_assert_not_null(body);
    if (strcasestr(raw, "Transfer-Encoding: chunked"))
        dechunk(body + 4);
    int gaps;
    char *events = sse_data(body + 4, &gaps);
    /* the job event first, whatever was cut */
    cr_assert_eq(strncmp(events, "{\"kind\":\"job\"", 13), 0, "%.200s", events);
    cr_assert_geq(gaps, 1, "no gap event for %zu bytes of events", strlen(events));
    const char *g = strstr(body + 4, "event: gap\ndata: {\"missed\":");
    cr_assert_not_null(g);
    cr_assert_gt(atol(g + strlen("event: gap\ndata: {\"missed\":")), 0);
    free(events);
    free(raw);
    weir_job_destroy(lj.job);
}

/* /jobs/ID: the window (the second vertex) read records */
static bool window_read_records(const char *body)
{
    json_t *details = json_loads(body, 0, NULL);
    json_t *v1 = json_array_get(json_object_get(details, "vertices"), 1);
    bool read =
        json_integer_value(json_object_get(json_object_get(v1, "metrics"), "read-records")) > 0;
    json_decref(details);
    return read;
}

/* /jobs/ID/vertices/VID/watermarks: subtask 0's is set */
static bool first_watermark_set(const char *body)
{
    json_t *w = json_loads(body, 0, NULL);
    const char *v = json_string_value(json_object_get(json_array_get(w, 0), "value"));
    bool set = v && atoll(v) > 0;
    json_decref(w);
    return set;
}

Test(live, rest_api_answers_as_flinks)
{
    live_job lj;
    make_job(&lj, "127.0.0.1:0", NULL, WEIR_DIAG_DEFAULT, PER_PARTITION, true);
    tu_runner_start(&lj.rn, lj.job);
    int port = wait_port(&lj);
    wait_gate();
    response r = get(port, "/jobs");
    cr_assert_eq(r.status, 200);
    json_error_t err;
    json_t *jobs = json_loads(r.body, 0, &err);
    cr_assert_not_null(jobs, "%s: %s", err.text, r.body);
    json_t *j0 = json_array_get(json_object_get(jobs, "jobs"), 0);
    cr_assert_str_eq(json_string_value(json_object_get(j0, "status")), "RUNNING");
    char id[64];
    snprintf(id, sizeof id, "%s", json_string_value(json_object_get(j0, "id")));
    cr_assert_eq(strlen(id), 32);
    json_decref(jobs);
    free(r.raw);

    char path[256];
    snprintf(path, sizeof path, "/jobs/%s", id);
    r = get_when(port, path, window_read_records);
    cr_assert_eq(r.status, 200);
    json_t *d = json_loads(r.body, 0, &err);
    cr_assert_not_null(d, "%s: %s", err.text, r.body);
    cr_assert_str_eq(json_string_value(json_object_get(d, "jid")), id);
    cr_assert_str_eq(json_string_value(json_object_get(d, "state")), "RUNNING");
    json_t *vertices = json_object_get(d, "vertices");
    /* generator -> timestamps -> gate, window, sink (parallelism 1) */
    cr_assert_eq(json_array_size(vertices), 3);
    json_t *v1 = json_array_get(vertices, 1);
    cr_assert_str_eq(json_string_value(json_object_get(v1, "name")), "window");
    cr_assert_eq(json_integer_value(json_object_get(v1, "parallelism")), 2);
    cr_assert_gt(json_integer_value(json_object_get(json_object_get(v1, "metrics"),
                                                    "read-records")),
                 0);
    json_t *plan = json_object_get(d, "plan");
    json_t *n1 = json_array_get(json_object_get(plan, "nodes"), 1);
    json_t *in0 = json_array_get(json_object_get(n1, "inputs"), 0);
    cr_assert_str_eq(json_string_value(json_object_get(in0, "ship_strategy")), "HASH");
    char vid[64];
    snprintf(vid, sizeof vid, "%s", json_string_value(json_object_get(v1, "id")));
    json_decref(d);
    free(r.raw);

    snprintf(path, sizeof path, "/jobs/%s/vertices/%s/watermarks", id, vid);
    r = get_when(port, path, first_watermark_set);
    cr_assert_eq(r.status, 200, "%s", r.raw);
    json_t *w = json_loads(r.body, 0, &err);
    cr_assert_not_null(w, "%s: %s", err.text, r.body);
    cr_assert_eq(json_array_size(w), 2);
    cr_assert_str_eq(json_string_value(json_object_get(json_array_get(w, 1), "id")),
                     "1.currentInputWatermark");
    cr_assert_gt(atoll(json_string_value(json_object_get(json_array_get(w, 0), "value"))), 0);
    json_decref(w);
    free(r.raw);

    snprintf(path, sizeof path, "/jobs/%s/vertices/%s/backpressure", id, vid);
    r = get(port, path);
    cr_assert_eq(r.status, 200, "%s", r.raw);
    json_t *bp = json_loads(r.body, 0, &err);
    cr_assert_not_null(bp, "%s", r.body);
    cr_assert_str_eq(json_string_value(json_object_get(bp, "status")), "ok");
    cr_assert_eq(json_array_size(json_object_get(bp, "subtasks")), 2);
    json_decref(bp);
    free(r.raw);

    snprintf(path, sizeof path, "/jobs/%s/checkpoints", id);
    r = get(port, path);
    cr_assert_eq(r.status, 200);
    json_t *c = json_loads(r.body, 0, &err);
    cr_assert_not_null(c, "%s", r.body);
    cr_assert_eq(json_integer_value(json_object_get(json_object_get(c, "counts"), "completed")), 0);
    cr_assert(json_is_null(json_object_get(json_object_get(c, "latest"), "completed")));
    json_decref(c);
    free(r.raw);

    r = get(port, "/jobs/00000000000000000000000000000000");
    cr_assert_eq(r.status, 404);
    cr_assert(strstr(r.body, "{\"errors\":["), "%s", r.body);
    free(r.raw);
    snprintf(path, sizeof path, "/jobs/%s/vertices/nope/watermarks", id);
    r = get(port, path);
    cr_assert_eq(r.status, 404);
    free(r.raw);
    finish(&lj);
    weir_job_destroy(lj.job);
}

Test(live, hostile_requests_are_refused_and_the_results_unchanged)
{
    /* the results of a run without a server */
    live_job ref;
    make_job(&ref, NULL, NULL, WEIR_DIAG_DEFAULT, PER_PARTITION, false);
    tu_run_ok(ref.job);
    char *expected = results_text(ref.results);
    cr_assert_gt(strlen(expected), 10);
    weir_job_destroy(ref.job);

    live_job lj;
    make_job(&lj, "127.0.0.1:0", NULL, WEIR_DIAG_DEFAULT, PER_PARTITION, true);
    tu_runner_start(&lj.rn, lj.job);
    int port = wait_port(&lj);
    wait_gate();

    /* a URL of 100 kB */
    size_t big = 100000;
    char *req = malloc(big + 64);
    cr_assert_not_null(req);
    memcpy(req, "GET /", 5);
    memset(req + 5, 'a', big);
    size_t n = 5 + big;
    n += (size_t)sprintf(req + n, " HTTP/1.1\r\nHost: x\r\n\r\n");
    response r = request(port, req, n);
    cr_assert(r.status == 414 || r.status == 431 || r.status == 400, "long URL: %d", r.status);
    free(r.raw);
    free(req);
    /* methods that are not GET or HEAD */
    static const char *const methods[] = {"POST /jobs HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\nabc",
                                          "DELETE /metrics HTTP/1.1\r\nHost: x\r\n\r\n",
                                          "BREW /events HTTP/1.1\r\nHost: x\r\n\r\n"};
    for (size_t i = 0; i < sizeof methods / sizeof methods[0]; i++) {
        r = request(port, methods[i], strlen(methods[i]));
        cr_assert(r.status == 405 || r.status == 501 || r.status == 400, "%s: %d", methods[i],
                  r.status);
        free(r.raw);
    }
    /* garbage and a request cut short */
    static const char garbage[] = "\x01\x02\xff garbage\r\n\r\n";
    r = request(port, garbage, sizeof garbage - 1);
    cr_assert(r.status == 400 || r.status == -1, "garbage: %d", r.status);
    free(r.raw);
    /* a client that goes away in the middle of its request */
    int cut = connect_to(port);
    send_all(cut, "GET / HTTP/1.1\r\nHo", 19);
    close(cut);
    /* HEAD has no body; an unknown path is a 404 */
    static const char head[] = "HEAD /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";
    r = request(port, head, sizeof head - 1);
    cr_assert_eq(r.status, 200);
    cr_assert_eq(r.body_len, 0);
    free(r.raw);
    r = get(port, "/no/such/thing");
    cr_assert_eq(r.status, 404);
    free(r.raw);
    /* more connections than the server holds: the extra ones are closed */
    enum { MANY = 150 };
    int fds[MANY];
    for (int i = 0; i < MANY; i++) {
        fds[i] = connect_to(port);
        send_all(fds[i], "GET /events HTTP/1.1\r\nHost: x\r\n\r\n", 34);
    }
    for (int i = 0; i < MANY; i++)
        close(fds[i]);
    /* still serving */
    bool served = false;
    for (int i = 0; i < 100 && !served; i++) {
        r = get(port, "/metrics");
        served = r.status == 200;
        free(r.raw);
        if (!served)
            pause_ms(20);
    }
    cr_assert(served, "the server stopped answering");
    finish(&lj);
    char *got = results_text(lj.results);
    cr_assert_str_eq(got, expected);
    free(got);
    free(expected);
    weir_job_destroy(lj.job);
    cr_assert_eq(weir_job_http_port(NULL), 0);
}

Test(live, bad_and_taken_addresses_are_refused)
{
    static const char *const bad[] = {"nohost", "localhost", "1.2.3.4:99999", "[::1]8081",
                                      "300.1.1.1:80", "127.0.0.1:", "127.0.0.1:80x", ":80"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        weir_job_config cfg = {.http_addr = bad[i]};
        char why[256];
        cr_assert_eq(weir_job_config_check(&cfg, why, sizeof why), WEIR_EINVAL, "%s", bad[i]);
        cr_assert(strstr(why, "http_addr: "), "%s", why);
        weir_job *job = NULL;
        cr_assert_eq(weir_job_create(&cfg, &job), WEIR_EINVAL);
    }
    weir_job_config ok = {.http_addr = "[::1]:0"};
    cr_assert_eq(weir_job_config_check(&ok, NULL, 0), 0);
    /* a port taken: the run fails naming the address, the capture is not
     * left half-written */
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in sa = {.sin_family = AF_INET};
    inet_pton(AF_INET, "127.0.0.1", &sa.sin_addr);
    cr_assert_eq(bind(fd, (struct sockaddr *)&sa, sizeof sa), 0);
    cr_assert_eq(listen(fd, 1), 0);
    socklen_t sl = sizeof sa;
    getsockname(fd, (struct sockaddr *)&sa, &sl);
    char addr[64];
    snprintf(addr, sizeof addr, "127.0.0.1:%d", ntohs(sa.sin_port));
    live_job lj;
    make_job(&lj, addr, NULL, WEIR_DIAG_DEFAULT, 10, false);
    int r = weir_job_run(lj.job);
    cr_assert_neq(r, 0);
    cr_assert(strstr(weir_job_error(lj.job), "cannot listen on 127.0.0.1:"), "%s",
              weir_job_error(lj.job));
    weir_job_destroy(lj.job);
    close(fd);
}
