/* scenario_diag.c — what the diagnostic channel costs, at each level, for
 * chain, shuffle and window-tumbling.
 *
 *   diag-PIPE-off       the pipeline with a JSONL capture configured and the
 *                       level WEIR_DIAG_OFF: nothing is recorded (and no
 *                       file written). Baseline: PIPE itself (chain,
 *                       shuffle, window-tumbling), which configures no
 *                       capture at all, so its ratio is the noise.
 *   diag-PIPE-summary   WEIR_DIAG_SUMMARY: the job and summary events only.
 *                       Baseline: diag-PIPE-off. Target: within 2%.
 *   diag-PIPE-standard  WEIR_DIAG_STANDARD (the default level): watermarks,
 *                       throughput, window firings, ... Baseline:
 *                       diag-PIPE-off. Target: within 5%.
 *
 *   diag-window-served  diag-window-standard with the job's HTTP server on
 *                       (weir_job_config.http_addr, docs/LIVE.md) and a
 *                       client connected as the live view is: /events read
 *                       as it comes to its end, /metrics scraped every
 *                       second (Prometheus scrapes every 15 s by default,
 *                       Flink's web UI polls every few). The client stands
 *                       for a browser and a Prometheus elsewhere: its
 *                       thread's CPU is left out of the row's CPU per
 *                       record. Baseline: diag-window-standard. Target:
 *                       within 2% by CPU per record (the wall clock of this
 *                       shared machine moves more than that between runs).
 *
 * The capture goes where a user would send it: a JSONL file
 * ($TMPDIR/weir-bench-PID.jsonl, counted and removed after each run; a
 * run whose capture is missing fails). The three levels of a pipeline are
 * adjacent in the table, so each round measures them one right after the
 * other.
 */
#include "bench.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

enum { PIPE_CHAIN = 0, PIPE_SHUFFLE, PIPE_WINDOW };

#define DIAG_ARG(pipe, level) ((int64_t)(pipe) * 16 + (level))

static int run_diag(const bench_scenario *sc, const bench_params *p, bench_result *out, char *err,
                    size_t errsize)
{
    int pipe = (int)(sc->arg / 16);
    weir_diag_level level = (weir_diag_level)(sc->arg % 16);
    if (pipe == PIPE_WINDOW)
        return bench_run_window(BENCH_WINDOW_TUMBLING, level, p, out, err, errsize);
    bench_pipeline pl = {.shuffle = pipe == PIPE_SHUFFLE, .diag = level};
    return bench_run_pipeline(&pl, p, out, err, errsize);
}

#define DIAG_ROWS(PIPE, BASE, ENUM, RECORDS, QUICK)                                              \
    {                                                                                            \
        .name = "diag-" PIPE "-off",                                                             \
        .what = BASE " with a JSONL capture at level off",                                       \
        .baseline = BASE,                                                                        \
        .records = RECORDS,                                                                      \
        .quick_records = QUICK,                                                                  \
        .arg = DIAG_ARG(ENUM, WEIR_DIAG_OFF),                                                    \
        .flags = BENCH_NO_PLOT,                                                                  \
        .run = run_diag,                                                                         \
    },                                                                                           \
    {                                                                                            \
        .name = "diag-" PIPE "-summary",                                                         \
        .what = BASE " with a JSONL capture at level summary",                                   \
        .baseline = "diag-" PIPE "-off",                                                         \
        .records = RECORDS,                                                                      \
        .quick_records = QUICK,                                                                  \
        .arg = DIAG_ARG(ENUM, WEIR_DIAG_SUMMARY),                                                \
        .flags = BENCH_NO_PLOT,                                                                  \
        .run = run_diag,                                                                         \
        .targets = {{BENCH_TARGET_RATIO, 0.98, 0, "diag summary within 2% of off (" PIPE ")"}},  \
    },                                                                                           \
    {                                                                                            \
        .name = "diag-" PIPE "-standard",                                                        \
        .what = BASE " with a JSONL capture at level standard",                                  \
        .baseline = "diag-" PIPE "-off",                                                         \
        .records = RECORDS,                                                                      \
        .quick_records = QUICK,                                                                  \
        .arg = DIAG_ARG(ENUM, WEIR_DIAG_STANDARD),                                               \
        .flags = BENCH_NO_PLOT,                                                                  \
        .run = run_diag,                                                                         \
        .targets = {{BENCH_TARGET_RATIO, 0.95, 0, "diag standard within 5% of off (" PIPE ")"}}, \
    }

/* ---- the served job's client --------------------------------------------- */

#define SCRAPE_EVERY_MS 1000

typedef struct served_client {
    int port;
    atomic_int stop;
    int64_t bytes, scrapes;
    double cpu; /* the thread's CPU seconds, at its end */
} served_client;

static int connect_local(int port)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0)
        return -1;
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    inet_pton(AF_INET, "127.0.0.1", &sa.sin_addr);
    if (connect(fd, (struct sockaddr *)&sa, sizeof sa) != 0) {
        close(fd);
        return -1;
    }
    return fd;
}

static void send_request(int fd, const char *path)
{
    char req[256];
    int n = snprintf(req, sizeof req, "GET %s HTTP/1.1\r\nHost: bench\r\n\r\n", path);
    if (send(fd, req, (size_t)n, MSG_NOSIGNAL) != n) {
        /* the server went away: the next round finds out */
    }
}

/* Reads /events as a browser does, and scrapes /metrics every second on a
 * second connection, while the run's job serves. Once its event stream
 * ended it waits for the run's end: connecting again would be served the
 * whole history again by a job that has not closed its port yet (a
 * browser's EventSource waits seconds before it tries again). */
static void *served_client_main(void *arg)
{
    served_client *c = arg;
    char buf[65536];
    bool streamed = false;
    while (!atomic_load(&c->stop)) {
        int ev = streamed ? -1 : connect_local(c->port);
        if (ev < 0) {
            struct timespec ts = {0, 1000000};
            nanosleep(&ts, NULL);
            continue;
        }
        send_request(ev, "/events");
        struct timespec last;
        clock_gettime(CLOCK_MONOTONIC, &last);
        for (;;) {
            struct pollfd p = {.fd = ev, .events = POLLIN};
            int r = poll(&p, 1, 50);
            if (r > 0) {
                ssize_t k = recv(ev, buf, sizeof buf, 0);
                if (k <= 0)
                    break;
                c->bytes += k;
            } else if (atomic_load(&c->stop)) {
                break;
            }
            struct timespec now;
            clock_gettime(CLOCK_MONOTONIC, &now);
            if ((now.tv_sec - last.tv_sec) * 1000 + (now.tv_nsec - last.tv_nsec) / 1000000 >=
                SCRAPE_EVERY_MS) {
                last = now;
                int m = connect_local(c->port);
                if (m >= 0) {
                    send_request(m, "/metrics");
                    shutdown(m, SHUT_WR);
                    ssize_t k;
                    while ((k = recv(m, buf, sizeof buf, 0)) > 0)
                        c->bytes += k;
                    close(m);
                    c->scrapes++;
                }
            }
        }
        close(ev);
        streamed = true;
    }
    struct timespec cpu;
    if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &cpu) == 0)
        c->cpu = (double)cpu.tv_sec + (double)cpu.tv_nsec / 1e9;
    return NULL;
}

/* A free port on the loopback (bound and let go: the job binds it next). */
static int free_port(void)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in sa = {.sin_family = AF_INET};
    inet_pton(AF_INET, "127.0.0.1", &sa.sin_addr);
    socklen_t len = sizeof sa;
    int port = -1;
    if (fd >= 0 && bind(fd, (struct sockaddr *)&sa, sizeof sa) == 0 &&
        getsockname(fd, (struct sockaddr *)&sa, &len) == 0)
        port = ntohs(sa.sin_port);
    if (fd >= 0)
        close(fd);
    return port;
}

static int run_served(const bench_scenario *sc, const bench_params *p, bench_result *out,
                      char *err, size_t errsize)
{
    (void)sc;
    served_client c = {.port = free_port()};
    if (c.port <= 0) {
        snprintf(err, errsize, "no free port on 127.0.0.1");
        return -1;
    }
    char addr[64];
    snprintf(addr, sizeof addr, "127.0.0.1:%d", c.port);
    pthread_t t;
    if (pthread_create(&t, NULL, served_client_main, &c) != 0) {
        snprintf(err, errsize, "cannot start the client thread");
        return -1;
    }
    bench_http_addr = addr;
    int r = bench_run_window(BENCH_WINDOW_TUMBLING, WEIR_DIAG_STANDARD, p, out, err, errsize);
    bench_http_addr = NULL;
    atomic_store(&c.stop, 1);
    pthread_join(t, NULL);
    out->cpu_client = c.cpu;
    if (r == 0 && c.bytes == 0) {
        snprintf(err, errsize, "the client read nothing from %s", addr);
        return -1;
    }
    return r;
}

const bench_scenario bench_scenarios_diag[] = {
    DIAG_ROWS("chain", "chain", PIPE_CHAIN, 20000000, 8000000),
    DIAG_ROWS("shuffle", "shuffle", PIPE_SHUFFLE, 10000000, 4000000),
    DIAG_ROWS("window", "window-tumbling", PIPE_WINDOW, 20000000, 4000000),
    {
        .name = "diag-window-served",
        .what = "diag-window-standard with the HTTP server on and a live-view client connected",
        .baseline = "diag-window-standard",
        .records = 20000000,
        .quick_records = 4000000,
        .flags = BENCH_NO_PLOT,
        .run = run_served,
        .targets = {{BENCH_TARGET_CPU_RATIO, 0.98, 0,
                     "served within 2% of standard (window, CPU)"}},
    },
};

const size_t bench_nscenarios_diag = sizeof bench_scenarios_diag / sizeof bench_scenarios_diag[0];
