/* live.c — the live sink of the diagnostic channel and the job's HTTP server
 * (docs/LIVE.md, live.h).
 *
 * Threads. The collector (and the job's thread for the job and summary
 * events) calls weir__live_event, which updates the state below under `mu`.
 * The server's thread runs libmicrohttpd in its external polling mode: it
 * waits on the daemon's epoll descriptor itself (and on an eventfd the job's
 * end wakes it by), 50 ms at most at a time, so every
 * libmicrohttpd callback runs on that one thread, and between two polls it
 * resumes the SSE connections that have something new to send. An answer
 * is built from a copy taken under `mu` (the metrics) or a few events at a
 * time (SSE), never with `mu` held while writing to a socket.
 *
 * Memory. The history of events is their JSON lines one after the other in
 * a byte ring of WEIR__LIVE_HISTORY_BYTES, mapped at the start and touched
 * as it fills (huge pages where the kernel has them), each line found by its
 * entry in a ring of WEIR__LIVE_HISTORY: keeping an event is one copy, no
 * allocation (a buffer per line made the collector allocate and fault in a
 * page every few events until the ring was full). The oldest lines leave
 * when either ring is full. An SSE client holds a cursor into it; its events
 * are copied from the history straight into libmicrohttpd's buffer of the
 * connection (WEIR__LIVE_SSE_BLOCK bytes at a time), and only an event
 * longer than that goes through a buffer of the client's own. A client whose
 * cursor fell out of the ring gets a `gap` event with the number of events
 * it missed and goes on from the oldest kept. Nothing grows with a slow
 * client.
 */
#include "live.h"

#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include <xxhash.h>

#include "capture_json.h"
#include "diag_internal.h"
#include "job_state.h"
#include "task.h"
#include "weir/error.h"
#include "weir/time.h"
#include "weir/version.h"

/* viewer/index.html, embedded by the build (tools/embed_viewer.cmake) */
extern const unsigned char weir__live_viewer_html[];
extern const size_t weir__live_viewer_html_size;

#define KEEPALIVE_MS 5000
/* At its end the job waits for its event streams to take the last events:
 * while one still takes some, up to DRAIN_MS after the last it took, and
 * DRAIN_MAX_MS in all. */
#define DRAIN_MS 1000
#define DRAIN_MAX_MS 10000
#define CHK_HISTORY 10

/* ---- the state the collector keeps ------------------------------------- */

typedef struct live_input {
    int held_by;        /* -1: none */
    int64_t held_wm;    /* the held_by channel's watermark */
} live_input;

typedef struct live_sub {
    int64_t in_wm, out_wm; /* WEIR_TS_MIN: none yet */
    int64_t out_wm_t;      /* job time the output watermark last advanced */
    bool idle;
    int64_t in_total, out_total;
    double in_rate, out_rate;  /* records per second over the last interval */
    double bp_ms_per_s;        /* backpressured ms per second, last interval */
    int64_t late_dropped, late_side;
    int64_t fired_on_time, fired_late;
    live_input in[2];
} live_sub;

typedef struct live_op {
    const char *name, *kind; /* the graph's (live as long as the job) */
    int parallelism, task, inputs;
    bool source, window;
    bool source_task; /* in a task that a source heads: its watermark is the source's */
    bool valve; /* a valve merges its input channels (held_by applies) */
    live_sub *subs;
} live_op;

typedef struct live_chk {
    int64_t id, trigger_t, end_t, bytes, duration_ms;
    bool aborted, savepoint;
    char reason[64];
} live_chk;

/* An event's line: where it starts in the byte stream of the history (the
 * byte ring's place is off % WEIR__LIVE_HISTORY_BYTES) and its length (0: a
 * gap, an event too long to keep). */
typedef struct live_line {
    uint64_t off;
    size_t len;
} live_line;

typedef struct sse_client sse_client;

#define HISTORY_MAP (WEIR__LIVE_HISTORY_BYTES + WEIR__LIVE_HISTORY * sizeof(live_line))

struct weir__live {
    weir_job *job;
    pthread_mutex_t mu;
    /* guarded by mu */
    live_op *ops;
    int nops;
    int64_t last_t;       /* job time of the newest event */
    int64_t chk_completed, chk_failed, chk_triggered, chk_restored_id;
    live_chk chk[CHK_HISTORY]; /* the last ones ended, newest at chk_n - 1 */
    int64_t chk_n;
    struct {
        int64_t id, t;
        bool savepoint;
    } pending[CHK_HISTORY];    /* triggered, by id % CHK_HISTORY */
    int64_t min_bytes, max_bytes, sum_bytes, min_dur, max_dur, sum_dur;
    char state[16];           /* RUNNING, FINISHED, CANCELED, FAILED */
    int64_t end_wall_ms;
    char *job_line;
    size_t job_len;
    live_line *ring;          /* the index, in the mapping after the bytes */
    char *bytes;              /* the byte ring (mmap'd, HISTORY_MAP with the index) */
    uint64_t wpos;            /* bytes written to it so far */
    uint64_t first, next;     /* events kept: [first, next) */
    bool finished;
    /* set once at start, then read-only */
    int64_t start_wall_ms;
    char job_id[33];
    char (*vertex_id)[33];    /* per task */
    char **task_name;         /* per task: its operators' names joined by " -> " */
    int ntasks;
    char *html;
    size_t html_len;
    char host[64];
    /* the server */
    struct MHD_Daemon *mhd;
    pthread_t thread;
    bool thread_started;
    _Atomic int stop;         /* the server's thread leaves */
    _Atomic int ending;       /* the job ended: the server polls briefly */
    _Atomic uint64_t rounds;  /* the server's polls so far (weir__live_stop) */
    int wake_fd;              /* an eventfd that ends the server's poll */
    _Atomic int clients;      /* SSE connections open */
    _Atomic int64_t sent_ms;  /* when an SSE client was last sent events */
    sse_client *suspended;    /* the server's thread only */
    bool failed_alloc;
};

/* ---- small helpers ------------------------------------------------------ */

static int64_t wall_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int64_t mono_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void bprintf(weir__buf *b, const char *fmt, ...) WEIR_PRINTF(2, 3);
static void bprintf(weir__buf *b, const char *fmt, ...)
{
    char tmp[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    if ((size_t)n < sizeof tmp) {
        weir__buf_append(b, tmp, (size_t)n);
        return;
    }
    if (!weir__buf_grow(b, (size_t)n + 1))
        return;
    va_start(ap, fmt);
    vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
}

static void bputs(weir__buf *b, const char *s)
{
    weir__buf_append(b, s, strlen(s));
}

/* A JSON string, quoted. */
static void bjson(weir__buf *b, const char *s)
{
    bputs(b, "\"");
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\') {
            char e[2] = {'\\', (char)*p};
            weir__buf_append(b, e, 2);
        } else if (*p < 0x20) {
            bprintf(b, "\\u%04x", *p);
        } else {
            weir__buf_append(b, (const char *)p, 1);
        }
    }
    bputs(b, "\"");
}

/* A Prometheus label value: \ " and newline escaped. */
static void blabel(weir__buf *b, const char *s)
{
    for (const char *p = s; *p; p++) {
        if (*p == '\\')
            bputs(b, "\\\\");
        else if (*p == '"')
            bputs(b, "\\\"");
        else if (*p == '\n')
            bputs(b, "\\n");
        else
            weir__buf_append(b, p, 1);
    }
}

/* ---- the address -------------------------------------------------------- */

typedef struct parsed_addr {
    struct sockaddr_storage sa;
    socklen_t len;
    bool v6;
} parsed_addr;

static int parse_addr(const char *addr, parsed_addr *out, char *why, size_t whysize)
{
    memset(out, 0, sizeof *out);
    const char *colon;
    char host[64];
    if (addr[0] == '[') {
        const char *close = strchr(addr, ']');
        if (!close || close[1] != ':') {
            snprintf(why, whysize, "'%s' is not [IPV6]:PORT", addr);
            return WEIR_EINVAL;
        }
        size_t n = (size_t)(close - addr - 1);
        if (n >= sizeof host) {
            snprintf(why, whysize, "'%s': the address is too long", addr);
            return WEIR_EINVAL;
        }
        memcpy(host, addr + 1, n);
        host[n] = '\0';
        colon = close + 1;
        out->v6 = true;
    } else {
        colon = strrchr(addr, ':');
        if (!colon || colon == addr) {
            snprintf(why, whysize, "'%s' is not HOST:PORT (\"127.0.0.1:8081\")", addr);
            return WEIR_EINVAL;
        }
        size_t n = (size_t)(colon - addr);
        if (n >= sizeof host) {
            snprintf(why, whysize, "'%s': the host is too long", addr);
            return WEIR_EINVAL;
        }
        memcpy(host, addr, n);
        host[n] = '\0';
        if (strcmp(host, "localhost") == 0)
            strcpy(host, "127.0.0.1");
    }
    const char *p = colon + 1;
    char *end;
    errno = 0;
    long port = *p >= '0' && *p <= '9' ? strtol(p, &end, 10) : -1;
    if (port < 0 || port > 65535 || errno || *end) {
        snprintf(why, whysize, "'%s': the port is not a number in 0..65535", addr);
        return WEIR_EINVAL;
    }
    if (out->v6) {
        struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&out->sa;
        s6->sin6_family = AF_INET6;
        s6->sin6_port = htons((uint16_t)port);
        if (inet_pton(AF_INET6, host, &s6->sin6_addr) != 1) {
            snprintf(why, whysize, "'%s': '%s' is not an IPv6 address", addr, host);
            return WEIR_EINVAL;
        }
        out->len = sizeof *s6;
    } else {
        struct sockaddr_in *s4 = (struct sockaddr_in *)&out->sa;
        s4->sin_family = AF_INET;
        s4->sin_port = htons((uint16_t)port);
        if (inet_pton(AF_INET, host, &s4->sin_addr) != 1) {
            snprintf(why, whysize, "'%s': '%s' is not an IPv4 address (or localhost)", addr, host);
            return WEIR_EINVAL;
        }
        out->len = sizeof *s4;
    }
    return 0;
}

int weir__diag_http_addr_check(const char *addr, char *why, size_t whysize)
{
    parsed_addr a;
    char tmp[160];
    if (!why || !whysize) {
        why = tmp;
        whysize = sizeof tmp;
    }
    return parse_addr(addr, &a, why, whysize);
}

/* ---- the live sink ------------------------------------------------------ */

static live_sub *sub_of(weir__live *l, const weir_diag_event *ev, const weir__diag_rec *rec)
{
    int op = rec ? rec->op : -1;
    if (op < 0 || op >= l->nops || ev->subtask < 0 || ev->subtask >= l->ops[op].parallelism)
        return NULL;
    return &l->ops[op].subs[ev->subtask];
}

static void keep_line(weir__live *l, const char *json, size_t len)
{
    const size_t size = WEIR__LIVE_HISTORY_BYTES;
    uint64_t pos = l->wpos;
    if (len > size / 16) {
        len = 0; /* kept as a gap of one */
    } else if (pos % size + len > size) {
        pos += size - pos % size; /* a line is never cut: it starts the ring again */
    }
    uint64_t end = pos + len;
    /* the oldest lines this one overwrites leave */
    while (l->first < l->next && end - l->ring[l->first % WEIR__LIVE_HISTORY].off > size)
        l->first++;
    memcpy(l->bytes + pos % size, json, len);
    l->ring[l->next % WEIR__LIVE_HISTORY] = (live_line){.off = pos, .len = len};
    l->wpos = end;
    l->next++;
    if (l->next - l->first > WEIR__LIVE_HISTORY)
        l->first = l->next - WEIR__LIVE_HISTORY;
}

static void take_checkpoint_end(weir__live *l, const weir_diag_event *ev)
{
    live_chk *c = &l->chk[l->chk_n % CHK_HISTORY];
    memset(c, 0, sizeof *c);
    c->id = ev->checkpoint_id;
    c->end_t = ev->t;
    c->trigger_t = ev->t - ev->duration_ms;
    int slot = (int)(ev->checkpoint_id % CHK_HISTORY);
    if (l->pending[slot].id == ev->checkpoint_id) {
        c->trigger_t = l->pending[slot].t;
        c->savepoint = l->pending[slot].savepoint;
        l->pending[slot].id = 0;
    }
    c->bytes = ev->bytes;
    c->duration_ms = ev->duration_ms;
    c->aborted = ev->aborted;
    if (ev->reason)
        snprintf(c->reason, sizeof c->reason, "%s", ev->reason);
    l->chk_n++;
    if (ev->aborted) {
        l->chk_failed++;
        return;
    }
    if (l->chk_completed == 0 || ev->bytes < l->min_bytes)
        l->min_bytes = ev->bytes;
    if (l->chk_completed == 0 || ev->bytes > l->max_bytes)
        l->max_bytes = ev->bytes;
    if (l->chk_completed == 0 || ev->duration_ms < l->min_dur)
        l->min_dur = ev->duration_ms;
    if (l->chk_completed == 0 || ev->duration_ms > l->max_dur)
        l->max_dur = ev->duration_ms;
    l->sum_bytes += ev->bytes;
    l->sum_dur += ev->duration_ms;
    l->chk_completed++;
}

void weir__live_hold(weir__live *l)
{
    pthread_mutex_lock(&l->mu);
}

void weir__live_release(weir__live *l)
{
    pthread_mutex_unlock(&l->mu);
}

void weir__live_event(weir__live *l, const weir_diag_event *ev, const char *json, size_t len,
                      const weir__diag_rec *rec, bool held)
{
    if (!held)
        pthread_mutex_lock(&l->mu);
    // cppcheck-suppress ctuuninitvar ; a live sink sets want_event: write_rec builds the whole event
    if (ev->kind == WEIR_DIAG_KIND_JOB) {
        char *s = malloc(len + 1);
        if (s) {
            memcpy(s, json, len);
            s[len] = '\0';
            free(l->job_line);
            l->job_line = s;
            l->job_len = len;
        } else {
            l->failed_alloc = true;
        }
        if (!held)
            pthread_mutex_unlock(&l->mu);
        return;
    }
    keep_line(l, json, len);
    if (ev->t > l->last_t && ev->kind != WEIR_DIAG_KIND_SUMMARY)
        l->last_t = ev->t;
    live_sub *s = sub_of(l, ev, rec);
    switch (ev->kind) {
    case WEIR_DIAG_KIND_WATERMARK:
        if (!s)
            break;
        if (ev->input < 0) {
            if (ev->watermark > s->out_wm) {
                s->out_wm = ev->watermark;
                s->out_wm_t = ev->t;
            }
        } else if (ev->input < 2) {
            l->ops[rec->op].valve = true;
            live_input *in = &s->in[ev->input];
            in->held_by = ev->held_by;
            if (ev->channel == ev->held_by)
                in->held_wm = ev->watermark;
            /* one input: the channel holding the minimum back is the input's
             * watermark */
            if (l->ops[rec->op].inputs == 1 && ev->channel == ev->held_by &&
                ev->watermark > s->in_wm && !ev->partition)
                s->in_wm = ev->watermark;
        }
        break;
    case WEIR_DIAG_KIND_STATUS:
        if (!s)
            break;
        if (ev->input < 0)
            s->idle = ev->idle;
        else if (ev->input < 2)
            s->in[ev->input].held_by = ev->held_by;
        break;
    case WEIR_DIAG_KIND_THROUGHPUT:
        if (!s)
            break;
        s->in_total += ev->records_in;
        s->out_total += ev->records_out;
        if (rec && rec->interval_ms > 0) {
            s->in_rate = (double)ev->records_in * 1000.0 / (double)rec->interval_ms;
            s->out_rate = (double)ev->records_out * 1000.0 / (double)rec->interval_ms;
        }
        break;
    case WEIR_DIAG_KIND_BACKPRESSURE:
        if (s && rec && rec->interval_ms > 0)
            s->bp_ms_per_s = (double)ev->blocked_ms * 1000.0 / (double)rec->interval_ms;
        break;
    case WEIR_DIAG_KIND_WINDOW_FIRE:
        if (s) {
            if (ev->firing == 0)
                s->fired_on_time++;
            else
                s->fired_late++;
        }
        break;
    case WEIR_DIAG_KIND_LATE:
        if (s) {
            if (ev->dropped)
                s->late_dropped++;
            else
                s->late_side++;
        }
        break;
    case WEIR_DIAG_KIND_CHECKPOINT_TRIGGER: {
        int slot = (int)(ev->checkpoint_id % CHK_HISTORY);
        l->pending[slot].id = ev->checkpoint_id;
        l->pending[slot].t = ev->t;
        l->pending[slot].savepoint = ev->savepoint;
        l->chk_triggered++;
        break;
    }
    case WEIR_DIAG_KIND_CHECKPOINT_END:
        take_checkpoint_end(l, ev);
        break;
    case WEIR_DIAG_KIND_CHECKPOINT_RESTORE:
        if (ev->checkpoint_id > 0)
            l->chk_restored_id = ev->checkpoint_id;
        break;
    default:
        break;
    }
    /* Every record of an operator carries the input watermark it had when
     * the event was made (the watermark and late events carry their own). */
    if (s && rec && ev->kind != WEIR_DIAG_KIND_WATERMARK && rec->wm > s->in_wm &&
        !l->ops[rec->op].source && ev->kind != WEIR_DIAG_KIND_LATE &&
        ev->kind != WEIR_DIAG_KIND_WINDOW_FIRE)
        s->in_wm = rec->wm;
    if (!held)
        pthread_mutex_unlock(&l->mu);
}

/* ---- answers: metrics --------------------------------------------------- */

/* A copy of the state (taken under mu, formatted without it). */
typedef struct snapshot {
    live_op *ops; /* subs copied */
    int nops;
    int64_t last_t, chk_completed, chk_failed, chk_triggered, chk_restored_id, chk_n;
    live_chk chk[CHK_HISTORY];
    int64_t min_bytes, max_bytes, sum_bytes, min_dur, max_dur, sum_dur;
    char state[16];
    int64_t end_wall_ms;
} snapshot;

static void snapshot_free(snapshot *s)
{
    if (s->ops) {
        for (int i = 0; i < s->nops; i++)
            free(s->ops[i].subs);
        free(s->ops);
    }
}

static bool take_snapshot(weir__live *l, snapshot *s)
{
    memset(s, 0, sizeof *s);
    s->ops = calloc((size_t)l->nops, sizeof *s->ops);
    if (!s->ops)
        return false;
    s->nops = l->nops;
    /* (parallelism does not change: the arrays are made before the lock) */
    for (int i = 0; i < l->nops; i++) {
        s->ops[i].subs = malloc((size_t)(l->ops[i].parallelism > 0 ? l->ops[i].parallelism : 1) *
                                sizeof(live_sub));
        if (!s->ops[i].subs) {
            snapshot_free(s);
            return false;
        }
    }
    pthread_mutex_lock(&l->mu);
    for (int i = 0; i < l->nops; i++) {
        live_sub *subs = s->ops[i].subs;
        s->ops[i] = l->ops[i];
        s->ops[i].subs = subs;
        memcpy(subs, l->ops[i].subs, (size_t)l->ops[i].parallelism * sizeof(live_sub));
    }
    s->last_t = l->last_t;
    s->chk_completed = l->chk_completed;
    s->chk_failed = l->chk_failed;
    s->chk_triggered = l->chk_triggered;
    s->chk_restored_id = l->chk_restored_id;
    s->chk_n = l->chk_n;
    memcpy(s->chk, l->chk, sizeof s->chk);
    s->min_bytes = l->min_bytes;
    s->max_bytes = l->max_bytes;
    s->sum_bytes = l->sum_bytes;
    s->min_dur = l->min_dur;
    s->max_dur = l->max_dur;
    s->sum_dur = l->sum_dur;
    memcpy(s->state, l->state, sizeof s->state);
    s->end_wall_ms = l->end_wall_ms;
    pthread_mutex_unlock(&l->mu);
    /* An operator chained to its input takes its input watermark from the
     * operator before it, which reports only its output (edges in order:
     * a chain's upstream end comes first). */
    const weir__graph *g = &l->job->graph;
    for (int e = 0; e < g->nedges; e++) {
        const weir__edge *ed = &g->edges[e];
        live_op *to = &s->ops[ed->to];
        if (!ed->chained || to->inputs != 1)
            continue;
        for (int j = 0; j < to->parallelism && j < s->ops[ed->from].parallelism; j++)
            if (s->ops[ed->from].subs[j].out_wm > to->subs[j].in_wm)
                to->subs[j].in_wm = s->ops[ed->from].subs[j].out_wm;
    }
    return true;
}

static const live_chk *last_completed(const snapshot *s)
{
    for (int64_t k = s->chk_n - 1; k >= 0 && k >= s->chk_n - CHK_HISTORY; k--) {
        const live_chk *c = &s->chk[k % CHK_HISTORY];
        if (!c->aborted)
            return c;
    }
    return NULL;
}

enum scope { SCOPE_OPERATOR, SCOPE_TASK, SCOPE_JOB, SCOPE_WEIR };

static const char *scope_name(enum scope sc)
{
    switch (sc) {
    case SCOPE_OPERATOR:
        return "taskmanager_job_task_operator";
    case SCOPE_TASK:
        return "taskmanager_job_task";
    case SCOPE_JOB:
        return "jobmanager_job";
    default:
        return "weir_operator";
    }
}

/* "# HELP" and "# TYPE" of a family, as Flink's Prometheus reporter writes
 * them: every Flink metric (counters included) is a gauge. */
static void family(weir__buf *b, enum scope sc, const char *name, const char *help)
{
    const char *prefix = sc == SCOPE_WEIR ? "" : "flink_";
    bprintf(b, "# HELP %s%s_%s ", prefix, scope_name(sc), name);
    if (help)
        bputs(b, help);
    else
        bprintf(b, "%s (scope: %s)", name, scope_name(sc));
    bprintf(b, "\n# TYPE %s%s_%s gauge\n", prefix, scope_name(sc), name);
}

static void labels_task(weir__buf *b, const weir__live *l, int task, int subtask)
{
    bprintf(b, "{host=\"");
    blabel(b, l->host);
    bprintf(b, "\",tm_id=\"weir\",job_id=\"%s\",job_name=\"weir\",task_id=\"%s\",task_name=\"",
            l->job_id, l->vertex_id[task]);
    blabel(b, l->task_name[task]);
    bprintf(b, "\",task_attempt_num=\"0\",subtask_index=\"%d\"", subtask);
}

static void sample_start(weir__buf *b, const weir__live *l, enum scope sc, const char *name,
                         const live_op *op, int task, int subtask)
{
    const char *prefix = sc == SCOPE_WEIR ? "" : "flink_";
    bprintf(b, "%s%s_%s", prefix, scope_name(sc), name);
    if (sc == SCOPE_JOB) {
        bputs(b, "{host=\"");
        blabel(b, l->host);
        bprintf(b, "\",job_id=\"%s\",job_name=\"weir\"", l->job_id);
        return;
    }
    labels_task(b, l, task, subtask);
    if (op) {
        bprintf(b, ",operator_id=\"%016" PRIx64 "%016" PRIx64 "\",operator_name=\"",
                XXH64(op->name, strlen(op->name), 1), XXH64(op->name, strlen(op->name), 2));
        blabel(b, op->name);
        bputs(b, "\"");
    }
}

static void sample_int(weir__buf *b, const char *extra, int64_t v)
{
    bprintf(b, "%s} %" PRId64 "\n", extra ? extra : "", v);
}

static void sample_double(weir__buf *b, const char *extra, double v)
{
    bprintf(b, "%s} %.6g\n", extra ? extra : "", v);
}

/* Operator metrics: a value per subtask where `has` says there is one. */
typedef enum opm {
    M_IN_WM, M_OUT_WM, M_WM_LAG, M_IN, M_OUT, M_IN_RATE, M_OUT_RATE, M_LATE_DROPPED
} opm;

static bool op_has(const live_op *op, const live_sub *s, opm m)
{
    switch (m) {
    case M_IN_WM:
        return !op->source;
    case M_WM_LAG:
        return op->source_task && s->out_wm > WEIR_TS_MIN && s->out_wm < WEIR_TS_MAX;
    case M_LATE_DROPPED:
        return op->window || s->late_dropped > 0;
    default:
        return true;
    }
}

static void op_value(weir__buf *b, const live_op *op, const live_sub *s, opm m, int64_t now_wall)
{
    (void)op;
    switch (m) {
    case M_IN_WM:
        sample_int(b, NULL, s->in_wm);
        break;
    case M_OUT_WM:
        sample_int(b, NULL, s->out_wm);
        break;
    case M_WM_LAG:
        sample_int(b, NULL, now_wall - s->out_wm);
        break;
    case M_IN:
        sample_int(b, NULL, s->in_total);
        break;
    case M_OUT:
        sample_int(b, NULL, s->out_total);
        break;
    case M_IN_RATE:
        sample_double(b, NULL, s->in_rate);
        break;
    case M_OUT_RATE:
        sample_double(b, NULL, s->out_rate);
        break;
    case M_LATE_DROPPED:
        sample_int(b, NULL, s->late_dropped);
        break;
    }
}

static void write_metrics(const weir__live *l, const snapshot *s, weir__buf *b)
{
    static const struct {
        opm m;
        const char *name;
    } opms[] = {
        {M_IN_WM, "currentInputWatermark"},  {M_OUT_WM, "currentOutputWatermark"},
        {M_WM_LAG, "watermarkLag"},          {M_IN, "numRecordsIn"},
        {M_OUT, "numRecordsOut"},            {M_IN_RATE, "numRecordsInPerSecond"},
        {M_OUT_RATE, "numRecordsOutPerSecond"}, {M_LATE_DROPPED, "numLateRecordsDropped"},
    };
    int64_t now = wall_ms();
    for (size_t k = 0; k < sizeof opms / sizeof opms[0]; k++) {
        bool any = false;
        for (int i = 0; i < s->nops && !any; i++)
            for (int j = 0; j < s->ops[i].parallelism && !any; j++)
                any = op_has(&s->ops[i], &s->ops[i].subs[j], opms[k].m);
        if (!any)
            continue;
        family(b, SCOPE_OPERATOR, opms[k].name, NULL);
        for (int i = 0; i < s->nops; i++) {
            const live_op *op = &s->ops[i];
            for (int j = 0; j < op->parallelism; j++) {
                if (!op_has(op, &op->subs[j], opms[k].m))
                    continue;
                sample_start(b, l, SCOPE_OPERATOR, opms[k].name, op, op->task, j);
                op_value(b, op, &op->subs[j], opms[k].m, now);
            }
        }
    }
    /* Task metrics: a chain's subtask is backpressured as its most
     * backpressured operator (each reports the subtask's blocked time). */
    family(b, SCOPE_TASK, "backPressuredTimeMsPerSecond", NULL);
    for (int t = 0; t < l->ntasks; t++) {
        int par = 0;
        for (int i = 0; i < s->nops; i++)
            if (s->ops[i].task == t && s->ops[i].parallelism > par)
                par = s->ops[i].parallelism;
        for (int j = 0; j < par; j++) {
            double bp = 0;
            for (int i = 0; i < s->nops; i++)
                if (s->ops[i].task == t && j < s->ops[i].parallelism &&
                    s->ops[i].subs[j].bp_ms_per_s > bp)
                    bp = s->ops[i].subs[j].bp_ms_per_s;
            sample_start(b, l, SCOPE_TASK, "backPressuredTimeMsPerSecond", NULL, t, j);
            sample_double(b, NULL, bp > 1000 ? 1000 : bp);
        }
    }
    /* Job metrics (Flink's job manager's) */
    const live_chk *c = last_completed(s);
    family(b, SCOPE_JOB, "lastCheckpointDuration", NULL);
    sample_start(b, l, SCOPE_JOB, "lastCheckpointDuration", NULL, 0, 0);
    sample_int(b, NULL, c ? c->duration_ms : -1);
    family(b, SCOPE_JOB, "lastCheckpointSize", NULL);
    sample_start(b, l, SCOPE_JOB, "lastCheckpointSize", NULL, 0, 0);
    sample_int(b, NULL, c ? c->bytes : -1);
    family(b, SCOPE_JOB, "numberOfCompletedCheckpoints", NULL);
    sample_start(b, l, SCOPE_JOB, "numberOfCompletedCheckpoints", NULL, 0, 0);
    sample_int(b, NULL, s->chk_completed);
    family(b, SCOPE_JOB, "numberOfFailedCheckpoints", NULL);
    sample_start(b, l, SCOPE_JOB, "numberOfFailedCheckpoints", NULL, 0, 0);
    sample_int(b, NULL, s->chk_failed);
    family(b, SCOPE_JOB, "numberOfInProgressCheckpoints", NULL);
    sample_start(b, l, SCOPE_JOB, "numberOfInProgressCheckpoints", NULL, 0, 0);
    int64_t inprog = s->chk_triggered - s->chk_completed - s->chk_failed;
    sample_int(b, NULL, inprog > 0 ? inprog : 0);
    family(b, SCOPE_JOB, "uptime", NULL);
    sample_start(b, l, SCOPE_JOB, "uptime", NULL, 0, 0);
    sample_int(b, NULL, (s->end_wall_ms ? s->end_wall_ms : now) - l->start_wall_ms);
    /* weir's own */
    family(b, SCOPE_WEIR, "heldByChannel",
           "The input channel that holds the subtask's watermark back (-1: none)");
    for (int i = 0; i < s->nops; i++) {
        const live_op *op = &s->ops[i];
        if (!op->valve)
            continue;
        for (int in = 0; in < (op->inputs > 0 ? op->inputs : 1); in++) {
            for (int j = 0; j < op->parallelism; j++) {
                sample_start(b, l, SCOPE_WEIR, "heldByChannel", op, op->task, j);
                char extra[32];
                snprintf(extra, sizeof extra, ",input=\"%d\"", in);
                sample_int(b, extra, op->subs[j].in[in].held_by);
            }
        }
    }
    family(b, SCOPE_WEIR, "watermarkStallSeconds",
           "Seconds of job time since the subtask's output watermark last advanced");
    for (int i = 0; i < s->nops; i++) {
        const live_op *op = &s->ops[i];
        for (int j = 0; j < op->parallelism; j++) {
            const live_sub *x = &op->subs[j];
            sample_start(b, l, SCOPE_WEIR, "watermarkStallSeconds", op, op->task, j);
            sample_double(b, NULL, x->out_wm > WEIR_TS_MIN ? (double)(s->last_t - x->out_wm_t) / 1000.0
                                                          : (double)s->last_t / 1000.0);
        }
    }
    family(b, SCOPE_WEIR, "idle", "1 while the subtask's output is idle, else 0");
    for (int i = 0; i < s->nops; i++) {
        const live_op *op = &s->ops[i];
        for (int j = 0; j < op->parallelism; j++) {
            sample_start(b, l, SCOPE_WEIR, "idle", op, op->task, j);
            sample_int(b, NULL, op->subs[j].idle);
        }
    }
    bool windows = false;
    for (int i = 0; i < s->nops; i++)
        windows |= s->ops[i].window;
    if (windows) {
        family(b, SCOPE_WEIR, "windowFirings",
               "Window firings: on time (firing=\"on_time\") or late (allowed lateness)");
        for (int i = 0; i < s->nops; i++) {
            const live_op *op = &s->ops[i];
            if (!op->window)
                continue;
            for (int j = 0; j < op->parallelism; j++) {
                sample_start(b, l, SCOPE_WEIR, "windowFirings", op, op->task, j);
                sample_int(b, ",firing=\"on_time\"", op->subs[j].fired_on_time);
                sample_start(b, l, SCOPE_WEIR, "windowFirings", op, op->task, j);
                sample_int(b, ",firing=\"late\"", op->subs[j].fired_late);
            }
        }
        family(b, SCOPE_WEIR, "numLateRecordsSideOutput",
               "Late elements sent to the late side output");
        for (int i = 0; i < s->nops; i++) {
            const live_op *op = &s->ops[i];
            if (!op->window)
                continue;
            for (int j = 0; j < op->parallelism; j++) {
                sample_start(b, l, SCOPE_WEIR, "numLateRecordsSideOutput", op, op->task, j);
                sample_int(b, NULL, op->subs[j].late_side);
            }
        }
    }
}

/* ---- answers: Flink's REST API ----------------------------------------- */

static const char *vertex_status(const char *job_state)
{
    return strcmp(job_state, "RUNNING") == 0 ? "RUNNING" : job_state;
}

static void write_jobs(const weir__live *l, const snapshot *s, weir__buf *b)
{
    bprintf(b, "{\"jobs\":[{\"id\":\"%s\",\"status\":\"%s\"}]}", l->job_id, s->state);
}

static void task_totals(const snapshot *s, int t, int64_t *in, int64_t *out, double *bp_ms)
{
    *in = *out = 0;
    *bp_ms = 0;
    int head = -1, tail = -1;
    for (int i = 0; i < s->nops; i++) {
        if (s->ops[i].task != t)
            continue;
        if (head < 0)
            head = i;
        tail = i;
    }
    if (head < 0)
        return;
    for (int j = 0; j < s->ops[head].parallelism; j++) {
        *in += s->ops[head].subs[j].in_total;
        *out += s->ops[tail].subs[j].out_total;
        *bp_ms += s->ops[head].subs[j].bp_ms_per_s;
    }
}

static int task_parallelism(const snapshot *s, int t)
{
    for (int i = 0; i < s->nops; i++)
        if (s->ops[i].task == t)
            return s->ops[i].parallelism;
    return 0;
}

static void write_job_details(const weir__live *l, const snapshot *s, weir__buf *b)
{
    int64_t now = wall_ms();
    int64_t end = s->end_wall_ms ? s->end_wall_ms : -1;
    int64_t dur = (s->end_wall_ms ? s->end_wall_ms : now) - l->start_wall_ms;
    const weir_job *job = l->job;
    bprintf(b,
            "{\"jid\":\"%s\",\"name\":\"weir\",\"isStoppable\":false,\"state\":\"%s\","
            "\"job-type\":\"STREAMING\",\"start-time\":%" PRId64 ",\"end-time\":%" PRId64
            ",\"duration\":%" PRId64 ",\"maxParallelism\":%d,\"now\":%" PRId64
            ",\"timestamps\":{\"RUNNING\":%" PRId64 ",\"CREATED\":%" PRId64,
            l->job_id, s->state, l->start_wall_ms, end, dur, (int)job->max_parallelism, now,
            l->start_wall_ms, l->start_wall_ms);
    if (s->end_wall_ms)
        bprintf(b, ",\"%s\":%" PRId64, s->state, s->end_wall_ms);
    bputs(b, "},\"vertices\":[");
    for (int t = 0; t < l->ntasks; t++) {
        int par = task_parallelism(s, t);
        int64_t in, out;
        double bp;
        task_totals(s, t, &in, &out, &bp);
        bprintf(b, "%s{\"id\":\"%s\",\"name\":", t ? "," : "", l->vertex_id[t]);
        bjson(b, l->task_name[t]);
        bprintf(b,
                ",\"maxParallelism\":%d,\"parallelism\":%d,\"status\":\"%s\",\"start-time\":%" PRId64
                ",\"end-time\":%" PRId64 ",\"duration\":%" PRId64 ",\"tasks\":{\"%s\":%d}"
                ",\"metrics\":{\"read-bytes\":0,\"read-bytes-complete\":true,\"write-bytes\":0,"
                "\"write-bytes-complete\":true,\"read-records\":%" PRId64
                ",\"read-records-complete\":true,\"write-records\":%" PRId64
                ",\"write-records-complete\":true}}",
                (int)job->max_parallelism, par, vertex_status(s->state), l->start_wall_ms, end, dur,
                vertex_status(s->state), par, in, out);
    }
    bprintf(b, "],\"status-counts\":{\"%s\":%d},\"plan\":{\"jid\":\"%s\",\"name\":\"weir\","
               "\"type\":\"STREAMING\",\"nodes\":[",
            vertex_status(s->state), l->ntasks, l->job_id);
    const weir__graph *g = &job->graph;
    for (int t = 0; t < l->ntasks; t++) {
        bprintf(b, "%s{\"id\":\"%s\",\"parallelism\":%d,\"operator\":\"\",\"operator_strategy\":\"\","
                   "\"description\":",
                t ? "," : "", l->vertex_id[t], task_parallelism(s, t));
        bjson(b, l->task_name[t]);
        bputs(b, ",\"inputs\":[");
        int k = 0;
        for (int e = 0; e < g->nedges; e++) {
            const weir__edge *ed = &g->edges[e];
            if (ed->chained || s->ops[ed->to].task != t)
                continue;
            const char *ship = weir__partitioning_name(ed->resolved);
            bprintf(b, "%s{\"num\":%d,\"id\":\"%s\",\"ship_strategy\":\"%s\",\"exchange\":\"pipelined_bounded\"}",
                    k ? "," : "", k, l->vertex_id[s->ops[ed->from].task],
                    strcmp(ship, "hash") == 0 ? "HASH" : strcmp(ship, "forward") == 0 ? "FORWARD"
                                                     : strcmp(ship, "broadcast") == 0 ? "BROADCAST"
                                                                                       : "REBALANCE");
            k++;
        }
        bputs(b, "],\"optimizer_properties\":{}}");
    }
    bputs(b, "]}}");
}

static void write_watermarks(const snapshot *s, int t, weir__buf *b)
{
    /* Flink: the task's input watermark per subtask: its head operator's */
    bputs(b, "[");
    for (int i = 0; i < s->nops; i++) {
        if (s->ops[i].task != t)
            continue;
        const live_op *op = &s->ops[i];
        for (int j = 0; j < op->parallelism; j++)
            bprintf(b, "%s{\"id\":\"%d.currentInputWatermark\",\"value\":\"%" PRId64 "\"}",
                    j ? "," : "", j, op->source ? op->subs[j].out_wm : op->subs[j].in_wm);
        break;
    }
    bputs(b, "]");
}

static const char *bp_level(double ratio)
{
    return ratio <= 0.10 ? "ok" : ratio <= 0.5 ? "low" : "high";
}

static void write_backpressure(const snapshot *s, int t, weir__buf *b)
{
    int par = task_parallelism(s, t);
    double worst = 0;
    weir__buf subs = {0};
    for (int j = 0; j < par; j++) {
        double bp = 0;
        for (int i = 0; i < s->nops; i++)
            if (s->ops[i].task == t && j < s->ops[i].parallelism && s->ops[i].subs[j].bp_ms_per_s > bp)
                bp = s->ops[i].subs[j].bp_ms_per_s;
        double ratio = bp / 1000.0 > 1 ? 1 : bp / 1000.0;
        if (ratio > worst)
            worst = ratio;
        bprintf(&subs, "%s{\"subtask\":%d,\"backpressureLevel\":\"%s\",\"ratio\":%.3f}", j ? "," : "",
                j, bp_level(ratio), ratio);
    }
    bprintf(b, "{\"status\":\"ok\",\"backpressureLevel\":\"%s\",\"end-timestamp\":%" PRId64
               ",\"subtasks\":[%s]}",
            bp_level(worst), wall_ms(), subs.data ? weir__buf_cstr(&subs) : "");
    if (subs.failed)
        b->failed = true;
    weir__buf_free(&subs);
}

static void write_stat(weir__buf *b, const char *name, int64_t min, int64_t max, int64_t sum,
                       int64_t n, bool comma)
{
    bprintf(b, "%s\"%s\":{\"min\":%" PRId64 ",\"max\":%" PRId64 ",\"avg\":%" PRId64 "}",
            comma ? "," : "", name, n ? min : 0, n ? max : 0, n ? sum / n : 0);
}

static void write_chk(const weir__live *l, weir__buf *b, const live_chk *c)
{
    bprintf(b,
            "{\"className\":\"%s\",\"id\":%" PRId64 ",\"status\":\"%s\",\"is_savepoint\":%s,"
            "\"trigger_timestamp\":%" PRId64 ",\"latest_ack_timestamp\":%" PRId64
            ",\"checkpointed_size\":%" PRId64 ",\"state_size\":%" PRId64
            ",\"end_to_end_duration\":%" PRId64 ",\"alignment_buffered\":0,\"processed_data\":0,"
            "\"persisted_data\":0,\"checkpoint_type\":\"%s\"",
            c->aborted ? ".FailedCheckpointStatistics" : ".CompletedCheckpointStatistics", c->id,
            c->aborted ? "FAILED" : "COMPLETED", c->savepoint ? "true" : "false",
            l->start_wall_ms + c->trigger_t, l->start_wall_ms + c->end_t, c->bytes, c->bytes,
            c->duration_ms, c->savepoint ? "SAVEPOINT" : "CHECKPOINT");
    if (c->aborted) {
        bprintf(b, ",\"failure_timestamp\":%" PRId64 ",\"failure_message\":",
                l->start_wall_ms + c->end_t);
        bjson(b, c->reason);
    }
    bputs(b, "}");
}

static void write_checkpoints(const weir__live *l, const snapshot *s, weir__buf *b)
{
    int64_t inprog = s->chk_triggered - s->chk_completed - s->chk_failed;
    if (inprog < 0)
        inprog = 0;
    bprintf(b,
            "{\"counts\":{\"restored\":%d,\"total\":%" PRId64 ",\"in_progress\":%" PRId64
            ",\"completed\":%" PRId64 ",\"failed\":%" PRId64 "},\"summary\":{",
            s->chk_restored_id ? 1 : 0, s->chk_completed + s->chk_failed + inprog, inprog,
            s->chk_completed, s->chk_failed);
    write_stat(b, "checkpointed_size", s->min_bytes, s->max_bytes, s->sum_bytes, s->chk_completed,
               false);
    write_stat(b, "state_size", s->min_bytes, s->max_bytes, s->sum_bytes, s->chk_completed, true);
    write_stat(b, "end_to_end_duration", s->min_dur, s->max_dur, s->sum_dur, s->chk_completed, true);
    bputs(b, "},\"latest\":{\"completed\":");
    const live_chk *done = NULL, *failed = NULL, *savepoint = NULL;
    for (int64_t k = s->chk_n - 1; k >= 0 && k >= s->chk_n - CHK_HISTORY; k--) {
        const live_chk *c = &s->chk[k % CHK_HISTORY];
        if (c->aborted && !failed)
            failed = c;
        if (!c->aborted && !c->savepoint && !done)
            done = c;
        if (!c->aborted && c->savepoint && !savepoint)
            savepoint = c;
    }
    if (done)
        write_chk(l, b, done);
    else
        bputs(b, "null");
    bputs(b, ",\"savepoint\":");
    if (savepoint)
        write_chk(l, b, savepoint);
    else
        bputs(b, "null");
    bputs(b, ",\"failed\":");
    if (failed)
        write_chk(l, b, failed);
    else
        bputs(b, "null");
    bputs(b, ",\"restored\":");
    if (s->chk_restored_id)
        bprintf(b, "{\"id\":%" PRId64 ",\"restore_timestamp\":%" PRId64 ",\"is_savepoint\":false}",
                s->chk_restored_id, l->start_wall_ms);
    else
        bputs(b, "null");
    bputs(b, "},\"history\":[");
    int k = 0;
    for (int64_t n = s->chk_n - 1; n >= 0 && n >= s->chk_n - CHK_HISTORY; n--, k++) {
        if (k)
            bputs(b, ",");
        write_chk(l, b, &s->chk[n % CHK_HISTORY]);
    }
    bputs(b, "]}");
}

/* ---- the server: Server-Sent Events ------------------------------------- */

struct sse_client {
    weir__live *l;
    struct MHD_Connection *conn;
    uint64_t cursor;
    bool sent_job, suspended, ended;
    bool hung_up;    /* its socket says the client went (resume_clients) */
    weir__buf out;   /* what is to be sent */
    size_t off;      /* of out, sent */
    int64_t last_ms; /* when it last sent something */
    sse_client *next_suspended;
};

/* Where sse_fill writes: straight into libmicrohttpd's buffer (`buf`, `max`
 * bytes, `n` written), or into the client's own buffer for an event that
 * does not fit in an empty one. */
typedef struct sse_dest {
    sse_client *c;
    char *buf;
    size_t max, n;
} sse_dest;

/* One event ("data: LINE\n\n", or a gap's `event` line first) into d;
 * false when it waits for the next call (d has something already, or the
 * client's buffer failed). */
static bool sse_put(sse_dest *d, const char *event, const char *line, size_t len)
{
    size_t ev = event ? strlen(event) : 0;
    size_t need = ev + 6 + len + 2;
    if (d->max - d->n >= need) {
        char *o = d->buf + d->n;
        if (ev)
            memcpy(o, event, ev);
        memcpy(o + ev, "data: ", 6);
        memcpy(o + ev + 6, line, len);
        memcpy(o + ev + 6 + len, "\n\n", 2);
        d->n += need;
        return true;
    }
    if (d->n > 0)
        return false;
    /* longer than the whole buffer: by the client's own, sent in parts */
    weir__buf *b = &d->c->out;
    if (event)
        bputs(b, event);
    bputs(b, "data: ");
    weir__buf_append(b, line, len);
    bputs(b, "\n\n");
    return false;
}

/* Writes what is next into d, under mu: the job event first, then the
 * events from the cursor on (a gap event where the history was cut) while
 * they fit. Copied once, from the history to the socket's buffer. */
static void sse_fill(sse_client *c, sse_dest *d)
{
    weir__live *l = c->l;
    weir__buf_reset(&c->out);
    c->off = 0;
    pthread_mutex_lock(&l->mu);
    if (!c->sent_job) {
        if (!l->job_line) {
            pthread_mutex_unlock(&l->mu);
            return;
        }
        c->sent_job = true;
        if (!sse_put(d, NULL, l->job_line, l->job_len)) {
            pthread_mutex_unlock(&l->mu);
            return;
        }
    }
    if (c->cursor < l->first) {
        char missed[48];
        int k = snprintf(missed, sizeof missed, "{\"missed\":%" PRIu64 "}", l->first - c->cursor);
        c->cursor = l->first;
        if (!sse_put(d, "event: gap\n", missed, (size_t)k)) {
            pthread_mutex_unlock(&l->mu);
            return;
        }
    }
    while (c->cursor < l->next) {
        const live_line *s = &l->ring[c->cursor % WEIR__LIVE_HISTORY];
        bool put = s->len == 0
                       ? sse_put(d, "event: gap\n", "{\"missed\":1}", 12)
                       : sse_put(d, NULL, l->bytes + s->off % WEIR__LIVE_HISTORY_BYTES, s->len);
        if (put || c->out.len > 0)
            c->cursor++;
        if (!put)
            break;
    }
    bool end = l->finished && c->cursor == l->next;
    pthread_mutex_unlock(&l->mu);
    if (end && d->n == 0 && c->out.len == 0)
        c->ended = true;
}

static ssize_t sse_read(void *cls, uint64_t pos, char *buf, size_t max)
{
    (void)pos;
    sse_client *c = cls;
    weir__live *l = c->l;
    if (c->off == c->out.len) {
        if (atomic_load(&l->stop))
            return MHD_CONTENT_READER_END_OF_STREAM;
        sse_dest d = {.c = c, .buf = buf, .max = max};
        sse_fill(c, &d);
        if (c->out.failed) {
            weir__buf_free(&c->out);
            return MHD_CONTENT_READER_END_WITH_ERROR;
        }
        if (d.n > 0) {
            c->last_ms = mono_ms();
            atomic_store(&l->sent_ms, c->last_ms);
            return (ssize_t)d.n;
        }
        if (c->ended)
            return MHD_CONTENT_READER_END_OF_STREAM;
        if (c->out.len == 0) {
            int64_t now = mono_ms();
            if (now - c->last_ms >= KEEPALIVE_MS) {
                /* a comment line: keeps proxies open, finds vanished clients */
                bputs(&c->out, ": keepalive\n\n");
            } else {
                c->suspended = true;
                c->next_suspended = l->suspended;
                l->suspended = c;
                MHD_suspend_connection(c->conn);
                return 0;
            }
        }
    }
    size_t n = c->out.len - c->off;
    if (n > max)
        n = max;
    memcpy(buf, c->out.data + c->off, n);
    c->off += n;
    c->last_ms = mono_ms();
    atomic_store(&l->sent_ms, c->last_ms);
    return (ssize_t)n;
}

static void sse_free(void *cls)
{
    sse_client *c = cls;
    weir__live *l = c->l;
    /* never while suspended: a suspended connection is resumed before the
     * daemon stops */
    for (sse_client **p = &l->suspended; *p; p = &(*p)->next_suspended) {
        if (*p == c) {
            *p = c->next_suspended;
            break;
        }
    }
    weir__buf_free(&c->out);
    free(c);
    atomic_fetch_sub(&l->clients, 1);
}

/* Resumes the suspended clients that have something to send (or all). */
static void resume_clients(weir__live *l, bool all)
{
    pthread_mutex_lock(&l->mu);
    uint64_t next = l->next;
    bool finished = l->finished;
    bool has_job = l->job_line != NULL;
    pthread_mutex_unlock(&l->mu);
    int64_t now = mono_ms();
    /* A suspended connection is not watched by the daemon: one whose client
     * hung up is found here (its socket readable: the end of the stream, or
     * bytes a client of an event stream does not send) and resumed, so that
     * the daemon reads, sees the close and frees it at once. */
    struct pollfd fds[WEIR__LIVE_CONNECTIONS];
    sse_client *who[WEIR__LIVE_CONNECTIONS];
    int nfds = 0;
    for (sse_client *c = l->suspended; c && nfds < WEIR__LIVE_CONNECTIONS; c = c->next_suspended) {
        const union MHD_ConnectionInfo *ci =
            MHD_get_connection_info(c->conn, MHD_CONNECTION_INFO_CONNECTION_FD);
        if (!ci)
            continue;
        fds[nfds] = (struct pollfd){.fd = ci->connect_fd, .events = POLLIN | POLLRDHUP};
        who[nfds++] = c;
        c->hung_up = false;
    }
    if (nfds > 0 && poll(fds, (nfds_t)nfds, 0) > 0) {
        for (int i = 0; i < nfds; i++)
            if (fds[i].revents)
                who[i]->hung_up = true;
    }
    sse_client **p = &l->suspended;
    while (*p) {
        sse_client *c = *p;
        bool go = all || finished || c->hung_up || (has_job && !c->sent_job) || c->cursor < next ||
                  now - c->last_ms >= KEEPALIVE_MS;
        if (go) {
            *p = c->next_suspended;
            c->suspended = false;
            MHD_resume_connection(c->conn);
        } else {
            p = &c->next_suspended;
        }
    }
}

/* ---- the server: requests ----------------------------------------------- */

static enum MHD_Result answer(struct MHD_Connection *conn, unsigned status, const char *type,
                              weir__buf *body)
{
    if (body->failed) {
        weir__buf_free(body);
        static const char oom[] = "{\"errors\":[\"out of memory\"]}";
        struct MHD_Response *r =
            MHD_create_response_from_buffer(sizeof oom - 1, (void *)oom, MHD_RESPMEM_PERSISTENT);
        if (!r)
            return MHD_NO;
        MHD_add_response_header(r, "Content-Type", "application/json");
        enum MHD_Result ok = MHD_queue_response(conn, 500, r);
        MHD_destroy_response(r);
        return ok;
    }
    struct MHD_Response *r = MHD_create_response_from_buffer(
        body->len, body->len ? body->data : (void *)"", body->len ? MHD_RESPMEM_MUST_FREE : MHD_RESPMEM_PERSISTENT);
    if (!r) {
        weir__buf_free(body);
        return MHD_NO;
    }
    if (!body->len)
        weir__buf_free(body);
    body->data = NULL;
    MHD_add_response_header(r, "Content-Type", type);
    MHD_add_response_header(r, "Cache-Control", "no-store");
    if (status == MHD_HTTP_METHOD_NOT_ALLOWED)
        MHD_add_response_header(r, "Allow", "GET, HEAD");
    enum MHD_Result ok = MHD_queue_response(conn, status, r);
    MHD_destroy_response(r);
    return ok;
}

static enum MHD_Result error_answer(struct MHD_Connection *conn, unsigned status, const char *msg,
                                    const char *url)
{
    weir__buf b = {0};
    bputs(&b, "{\"errors\":[");
    weir__buf m = {0};
    bputs(&m, msg);
    if (url) {
        bputs(&m, ": ");
        /* the path as asked, cut */
        char cut[128];
        snprintf(cut, sizeof cut, "%s", url);
        bputs(&m, cut);
    }
    bjson(&b, m.data ? weir__buf_cstr(&m) : msg);
    weir__buf_free(&m);
    bputs(&b, "]}");
    return answer(conn, status, "application/json; charset=UTF-8", &b);
}

static enum MHD_Result start_sse(weir__live *l, struct MHD_Connection *conn)
{
    sse_client *c = calloc(1, sizeof *c);
    if (!c)
        return MHD_NO;
    c->l = l;
    c->conn = conn;
    c->last_ms = mono_ms();
    /* from the first event: where the history was cut already, the first
     * answer is a gap event that says how many are missing */
    c->cursor = 0;
    struct MHD_Response *r =
        MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, WEIR__LIVE_SSE_BLOCK, sse_read, c,
                                          sse_free);
    if (!r) {
        free(c);
        return MHD_NO;
    }
    atomic_fetch_add(&l->clients, 1);
    MHD_add_response_header(r, "Content-Type", "text/event-stream");
    MHD_add_response_header(r, "Cache-Control", "no-store");
    MHD_add_response_header(r, "X-Accel-Buffering", "no");
    enum MHD_Result ok = MHD_queue_response(conn, MHD_HTTP_OK, r);
    MHD_destroy_response(r);
    return ok;
}

/* The task of vertex id `vid`, or -1. */
static int task_of_vertex(const weir__live *l, const char *vid, size_t n)
{
    for (int t = 0; t < l->ntasks; t++)
        if (n == 32 && memcmp(l->vertex_id[t], vid, 32) == 0)
            return t;
    return -1;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *conn, const char *url,
                                  const char *method, const char *version,
                                  const char *upload_data, size_t *upload_data_size, void **con_cls)
{
    (void)version;
    (void)upload_data;
    weir__live *l = cls;
    /* Answered at the first call, with the headers; a body is not read. */
    if (*con_cls) {
        *upload_data_size = 0;
        return MHD_YES;
    }
    *con_cls = (void *)1;
    bool head = strcmp(method, MHD_HTTP_METHOD_HEAD) == 0;
    if (!head && strcmp(method, MHD_HTTP_METHOD_GET) != 0)
        return error_answer(conn, MHD_HTTP_METHOD_NOT_ALLOWED, "Method not allowed", method);
    if (strcmp(url, "/") == 0 || strcmp(url, "/index.html") == 0) {
        struct MHD_Response *r =
            MHD_create_response_from_buffer(l->html_len, l->html, MHD_RESPMEM_PERSISTENT);
        if (!r)
            return MHD_NO;
        MHD_add_response_header(r, "Content-Type", "text/html; charset=utf-8");
        MHD_add_response_header(r, "Cache-Control", "no-store");
        enum MHD_Result ok = MHD_queue_response(conn, MHD_HTTP_OK, r);
        MHD_destroy_response(r);
        return ok;
    }
    if (strcmp(url, "/events") == 0) {
        if (head) {
            weir__buf b = {0};
            return answer(conn, MHD_HTTP_OK, "text/event-stream", &b);
        }
        return start_sse(l, conn);
    }
    snapshot s;
    if (!take_snapshot(l, &s))
        return MHD_NO;
    weir__buf b = {0};
    enum MHD_Result ok;
    const char *json = "application/json; charset=UTF-8";
    if (strcmp(url, "/metrics") == 0) {
        write_metrics(l, &s, &b);
        ok = answer(conn, MHD_HTTP_OK, "text/plain; version=0.0.4; charset=utf-8", &b);
    } else if (strcmp(url, "/jobs") == 0 || strcmp(url, "/jobs/") == 0) {
        write_jobs(l, &s, &b);
        ok = answer(conn, MHD_HTTP_OK, json, &b);
    } else if (strncmp(url, "/jobs/", 6) == 0) {
        const char *id = url + 6;
        const char *rest = strchr(id, '/');
        size_t idn = rest ? (size_t)(rest - id) : strlen(id);
        if (idn != 32 || memcmp(id, l->job_id, 32) != 0) {
            ok = error_answer(conn, MHD_HTTP_NOT_FOUND, "Job could not be found", url);
        } else if (!rest || strcmp(rest, "/") == 0) {
            write_job_details(l, &s, &b);
            ok = answer(conn, MHD_HTTP_OK, json, &b);
        } else if (strcmp(rest, "/checkpoints") == 0) {
            write_checkpoints(l, &s, &b);
            ok = answer(conn, MHD_HTTP_OK, json, &b);
        } else if (strncmp(rest, "/vertices/", 10) == 0) {
            const char *vid = rest + 10;
            const char *what = strchr(vid, '/');
            int t = what ? task_of_vertex(l, vid, (size_t)(what - vid)) : -1;
            if (t < 0)
                ok = error_answer(conn, MHD_HTTP_NOT_FOUND, "Vertex could not be found", url);
            else if (strcmp(what, "/watermarks") == 0) {
                write_watermarks(&s, t, &b);
                ok = answer(conn, MHD_HTTP_OK, json, &b);
            } else if (strcmp(what, "/backpressure") == 0) {
                write_backpressure(&s, t, &b);
                ok = answer(conn, MHD_HTTP_OK, json, &b);
            } else {
                ok = error_answer(conn, MHD_HTTP_NOT_FOUND, "Not found", url);
            }
        } else {
            ok = error_answer(conn, MHD_HTTP_NOT_FOUND, "Not found", url);
        }
    } else {
        ok = error_answer(conn, MHD_HTTP_NOT_FOUND, "Not found", url);
    }
    weir__buf_free(&b);
    snapshot_free(&s);
    return ok;
}

/* ---- the server's thread ------------------------------------------------ */

static void *server_main(void *arg)
{
    weir__live *l = arg;
    /* The daemon's sockets are behind one epoll descriptor (no FD_SETSIZE
     * limit on a process with many files open). */
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(l->mhd, MHD_DAEMON_INFO_EPOLL_FD);
    int epfd = info ? info->epoll_fd : -1;
    while (!atomic_load(&l->stop)) {
        int wait_ms = atomic_load(&l->ending) ? 1 : 50;
        MHD_UNSIGNED_LONG_LONG to;
        if (MHD_get_timeout(l->mhd, &to) == MHD_YES && to < (MHD_UNSIGNED_LONG_LONG)wait_ms)
            wait_ms = (int)to;
        if (epfd >= 0) {
            struct pollfd p[2] = {{.fd = epfd, .events = POLLIN},
                                  {.fd = l->wake_fd, .events = POLLIN}};
            if (poll(p, l->wake_fd >= 0 ? 2 : 1, wait_ms) > 0 && p[1].revents) {
                uint64_t v;
                if (read(l->wake_fd, &v, sizeof v) < 0) {
                    /* EAGAIN: another poll took it */
                }
            }
        } else {
            struct timespec ts = {0, (long)wait_ms * 1000000L};
            nanosleep(&ts, NULL);
        }
        MHD_run(l->mhd);
        resume_clients(l, false);
        atomic_fetch_add(&l->rounds, 1);
    }
    /* Leaving: every suspended client is resumed (it ends: stop is set) and
     * the daemon runs until they are gone or a little while passed. */
    resume_clients(l, true);
    int64_t until = mono_ms() + 200;
    while (atomic_load(&l->clients) > 0 && mono_ms() < until) {
        MHD_run(l->mhd);
        resume_clients(l, true);
        struct timespec ts = {0, 5000000};
        nanosleep(&ts, NULL);
    }
    return NULL;
}

/* ---- lifecycle ---------------------------------------------------------- */

static void live_free(weir__live *l)
{
    if (l->ops) {
        for (int i = 0; i < l->nops; i++)
            free(l->ops[i].subs);
        free(l->ops);
    }
    if (l->bytes)
        munmap(l->bytes, HISTORY_MAP);
    if (l->wake_fd >= 0)
        close(l->wake_fd);
    if (l->task_name) {
        for (int t = 0; t < l->ntasks; t++)
            free(l->task_name[t]);
        free(l->task_name);
    }
    free(l->vertex_id);
    free(l->job_line);
    free(l->html);
    pthread_mutex_destroy(&l->mu);
    free(l);
}

/* The viewer with live mode on (index.html's file mode is the page as it
 * is): its Content-Security-Policy, which forbids every request, lets it
 * connect to this server (connect-src 'self': /events), and a line before
 * </head> tells it where the events are. */
static bool make_html(weir__live *l)
{
    static const char inject[] = "<script>window.WEIR_LIVE = '/events';</script>\n";
    static const char csp[] = "default-src 'none';";
    static const char connect[] = " connect-src 'self';";
    const char *src = (const char *)weir__live_viewer_html;
    size_t n = weir__live_viewer_html_size;
    const char *at = strstr(src, "</head>");
    const char *pol = strstr(src, csp);
    if (!at || !pol || pol > at)
        return false;
    size_t head = (size_t)(pol - src) + sizeof csp - 1, pre = (size_t)(at - src);
    l->html = malloc(n + sizeof inject + sizeof connect);
    if (!l->html)
        return false;
    char *o = l->html;
    memcpy(o, src, head);
    o += head;
    memcpy(o, connect, sizeof connect - 1);
    o += sizeof connect - 1;
    memcpy(o, src + head, pre - head);
    o += pre - head;
    memcpy(o, inject, sizeof inject - 1);
    o += sizeof inject - 1;
    memcpy(o, src + pre, n - pre);
    o += n - pre;
    l->html_len = (size_t)(o - l->html);
    return true;
}

static bool make_topology(weir__live *l)
{
    weir_job *job = l->job;
    const weir__graph *g = &job->graph;
    const weir__plan *plan = job->plan;
    l->nops = g->nnodes;
    l->ops = calloc((size_t)g->nnodes, sizeof *l->ops);
    l->ntasks = plan->ntasks;
    l->vertex_id = calloc((size_t)plan->ntasks, sizeof *l->vertex_id);
    l->task_name = calloc((size_t)plan->ntasks, sizeof *l->task_name);
    if (!l->ops || !l->vertex_id || !l->task_name)
        return false;
    for (int i = 0; i < g->nnodes; i++) {
        const weir__node *n = g->nodes[i];
        live_op *op = &l->ops[i];
        op->name = n->name;
        op->kind = n->kind;
        op->parallelism = n->parallelism;
        op->inputs = n->inputs;
        op->source = n->is_source;
        op->window = strstr(n->kind, "window") != NULL;
        for (int e = 0; e < g->nedges; e++)
            op->valve |= g->edges[e].to == i && !g->edges[e].chained;
        op->task = 0;
        for (int t = 0; t < plan->ntasks; t++)
            for (int k = 0; k < plan->tasks[t].nnodes; k++)
                if (plan->tasks[t].nodes[k] == i) {
                    op->task = t;
                    op->source_task = g->nodes[plan->tasks[t].nodes[0]]->is_source;
                }
        op->subs = calloc((size_t)(n->parallelism > 0 ? n->parallelism : 1), sizeof *op->subs);
        if (!op->subs)
            return false;
        for (int j = 0; j < n->parallelism; j++) {
            live_sub *s = &op->subs[j];
            s->in_wm = s->out_wm = WEIR_TS_MIN;
            s->in[0].held_by = s->in[1].held_by = -1;
            s->in[0].held_wm = s->in[1].held_wm = WEIR_TS_MIN;
        }
    }
    for (int t = 0; t < plan->ntasks; t++) {
        weir__buf name = {0};
        XXH3_state_t *st = XXH3_createState();
        if (!st)
            return false;
        XXH3_128bits_reset(st);
        for (int k = 0; k < plan->tasks[t].nnodes; k++) {
            const weir__node *n = g->nodes[plan->tasks[t].nodes[k]];
            if (k)
                bputs(&name, " -> ");
            bputs(&name, n->name);
            const char *uid = n->uid ? n->uid : n->name;
            XXH3_128bits_update(st, uid, strlen(uid) + 1);
        }
        XXH128_hash_t h = XXH3_128bits_digest(st);
        XXH3_freeState(st);
        snprintf(l->vertex_id[t], sizeof l->vertex_id[t], "%016" PRIx64 "%016" PRIx64,
                 (uint64_t)h.high64, (uint64_t)h.low64);
        weir__buf_cstr(&name);
        if (name.failed || !name.data) {
            weir__buf_free(&name);
            return false;
        }
        l->task_name[t] = name.data;
    }
    return true;
}

int weir__live_start(struct weir__diag *d, weir__live **out, char *why, size_t whysize)
{
    weir_job *job = d->job;
    *out = NULL;
    parsed_addr a;
    int r = parse_addr(job->cfg.http_addr, &a, why, whysize);
    if (r)
        return r;
    weir__live *l = calloc(1, sizeof *l);
    if (!l) {
        snprintf(why, whysize, "out of memory");
        return WEIR_ENOMEM;
    }
    pthread_mutex_init(&l->mu, NULL);
    l->job = job;
    /* without it the server still ends its polls, 50 ms at most apart */
    l->wake_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    snprintf(l->state, sizeof l->state, "RUNNING");
    l->start_wall_ms = wall_ms();
    if (gethostname(l->host, sizeof l->host) != 0)
        snprintf(l->host, sizeof l->host, "localhost");
    l->host[sizeof l->host - 1] = '\0';
    uint64_t seed[3] = {(uint64_t)l->start_wall_ms, (uint64_t)getpid(), (uint64_t)(uintptr_t)job};
    XXH128_hash_t id = XXH3_128bits(seed, sizeof seed);
    snprintf(l->job_id, sizeof l->job_id, "%016" PRIx64 "%016" PRIx64, (uint64_t)id.high64,
             (uint64_t)id.low64);
    /* the byte ring and, after it, the index: one mapping of zero pages
     * (a calloc of the index from the heap would clear a megabyte a job) */
    void *bytes = mmap(NULL, HISTORY_MAP, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                       -1, 0);
    if (bytes != MAP_FAILED) {
        l->bytes = bytes;
        l->ring = (live_line *)(l->bytes + WEIR__LIVE_HISTORY_BYTES);
#ifdef MADV_HUGEPAGE
        madvise(bytes, HISTORY_MAP, MADV_HUGEPAGE); /* fewer faults; a hint */
#endif
    }
    if (!l->bytes || !make_topology(l) || !make_html(l)) {
        live_free(l);
        snprintf(why, whysize, "out of memory");
        return WEIR_ENOMEM;
    }
    unsigned flags = MHD_ALLOW_SUSPEND_RESUME | MHD_USE_EPOLL | (a.v6 ? MHD_USE_IPv6 : 0);
    l->mhd = MHD_start_daemon(flags, 0, NULL, NULL, on_request, l, MHD_OPTION_SOCK_ADDR,
                              (struct sockaddr *)&a.sa, MHD_OPTION_CONNECTION_LIMIT,
                              (unsigned)WEIR__LIVE_CONNECTIONS, MHD_OPTION_CONNECTION_TIMEOUT,
                              (unsigned)15, MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)32768,
                              MHD_OPTION_END);
    if (!l->mhd) {
        int e = errno;
        snprintf(why, whysize, "cannot listen on %s: %s", job->cfg.http_addr,
                 e ? strerror(e) : "the HTTP server did not start");
        live_free(l);
        return WEIR_EIO;
    }
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(l->mhd, MHD_DAEMON_INFO_BIND_PORT);
    int pe = pthread_create(&l->thread, NULL, server_main, l);
    if (pe) {
        MHD_stop_daemon(l->mhd);
        live_free(l);
        snprintf(why, whysize, "cannot start the HTTP server's thread: %s", strerror(pe));
        return WEIR_ENOMEM;
    }
    l->thread_started = true;
    atomic_store(&job->http_port, info ? (int)info->port : 0);
    *out = l;
    return 0;
}

void weir__live_stop(weir__live *l, int code)
{
    if (!l)
        return;
    pthread_mutex_lock(&l->mu);
    l->finished = true;
    l->end_wall_ms = wall_ms();
    snprintf(l->state, sizeof l->state, "%s",
             code == 0 ? "FINISHED" : code == WEIR_ECANCELED ? "CANCELED" : "FAILED");
    pthread_mutex_unlock(&l->mu);
    /* A request already sent is answered: an event stream asked for just
     * before the end counts among the clients below. The server polls
     * three more times, woken: the poll under way when `finished` was set,
     * one that accepts the connection, one that reads its request. */
    if (l->thread_started) {
        uint64_t until_round = atomic_load(&l->rounds) + 3;
        atomic_store(&l->ending, 1);
        int64_t give_up = mono_ms() + 1000;
        while (atomic_load(&l->rounds) < until_round && mono_ms() < give_up) {
            if (l->wake_fd >= 0) {
                uint64_t one = 1;
                if (write(l->wake_fd, &one, sizeof one) < 0) {
                    /* EAGAIN: the counter is full, the server wakes anyway */
                }
            }
            struct timespec ts = {0, 1000000};
            nanosleep(&ts, NULL);
        }
        atomic_store(&l->ending, 0);
    }
    /* The clients take the last events (the summary): while they still
     * take some, a second after the last, ten in all. */
    int64_t start = mono_ms();
    atomic_store(&l->sent_ms, start);
    for (;;) {
        int64_t now = mono_ms();
        if (atomic_load(&l->clients) == 0 || now - start >= DRAIN_MAX_MS ||
            now - atomic_load(&l->sent_ms) >= DRAIN_MS)
            break;
        struct timespec ts = {0, 10000000};
        nanosleep(&ts, NULL);
    }
    atomic_store(&l->stop, 1);
    if (l->thread_started)
        pthread_join(l->thread, NULL);
    atomic_store(&l->job->http_port, 0);
    MHD_stop_daemon(l->mhd);
    live_free(l);
}
