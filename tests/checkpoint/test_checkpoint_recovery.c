/* test_checkpoint_recovery.c — checkpoints proven by killing the process
 * (docs/CHECKPOINTS.md): a child process runs a keyed windowed pipeline
 * from a replayable source into the exactly-once file sink with
 * checkpoints; the test kills it with SIGKILL at moments drawn from fixed
 * seeds, restarts it from the checkpoint folder until it completes, and
 * the committed output must equal a failure-free run's, also with the
 * sink's results put into bucket folders by key. Lines are compared
 * as sorted multisets: which part file a line lands in, and the order of
 * window results of different keys, depend on timing; their content does
 * not. Also: at-least-once loses nothing; rescaling the window between a
 * checkpoint and its restore; one worker and one-batch channels.
 *
 * Bounded time: each run is about a second of paced input; the whole file
 * takes about a minute on 2 cores.
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <fcntl.h>
#include <msgpack.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "checkpoint_store.h"
#include "diag/test_diag_support.h"
#include "weir/checkpoint.h"
#include "weir/error.h"
#include "weir/file_sink.h"
#include "weir/file_source.h"
#include "weir/row.h"
#include "weir/generator.h"
#include "weir/job.h"
#include "weir/stream.h"
#include "weir/window.h"

typedef struct sums {
    int64_t sum, count;
} sums;

typedef struct result {
    int64_t key, start, sum, count;
} result;

static void sum_add(void *acc, const void *elem, void *arg)
{
    (void)arg;
    sums *s = acc;
    const weir_gen_event *e = elem;
    s->sum += e->value;
    s->count++;
}

static void sum_result(const void *acc, const weir_window_info *w, void *out, void *arg)
{
    (void)arg;
    const sums *s = acc;
    result *r = out;
    memcpy(&r->key, w->key, sizeof r->key);
    r->start = w->start;
    r->sum = s->sum;
    r->count = s->count;
}

/* run_small's second window: the results of the first, counted per key */
static void result_key(const void *elem, void *key, void *arg)
{
    (void)arg;
    memcpy(key, &((const result *)elem)->key, sizeof(int64_t));
}

static void result_add(void *acc, const void *elem, void *arg)
{
    (void)arg;
    sums *s = acc;
    s->sum += ((const result *)elem)->sum;
    s->count++;
}

static int format_result(const void *elem, int64_t ts, char *buf, size_t size, void *arg)
{
    (void)arg;
    const result *r = elem;
    return snprintf(buf, size, "k%lld %lld %lld %lld %lld", (long long)r->key,
                    (long long)r->start, (long long)ts, (long long)r->sum, (long long)r->count);
}

static int format_event(const void *elem, int64_t ts, char *buf, size_t size, void *arg)
{
    (void)arg;
    const weir_gen_event *e = elem;
    return snprintf(buf, size, "%d %lld %lld %lld", e->partition, (long long)e->seq,
                    (long long)e->key, (long long)ts);
}

/* A window result's bucket: two levels of folders by its key. */
static int bucket_result(const void *elem, int64_t ts, char *buf, size_t size, void *arg)
{
    (void)ts;
    const result *r = elem;
    int n = *(const int *)arg;
    return snprintf(buf, size, "m%d=%lld/odd=%lld", n, (long long)(r->key % n),
                    (long long)(r->key % 2));
}

/* An event's bucket: its sequence number modulo the buckets, so that
 * consecutive events go to different buckets, more than a subtask keeps
 * open: parts are parked and opened again all the time. */
static int bucket_event(const void *elem, int64_t ts, char *buf, size_t size, void *arg)
{
    (void)ts;
    const weir_gen_event *e = elem;
    int n = *(const int *)arg;
    return snprintf(buf, size, "s%d=%lld", n, (long long)(e->seq % n));
}

/* Partition 1 stalls now and then (a slow record): its barriers then reach
 * the window well after partition 0's, with partition 0's later records in
 * between, which only alignment keeps out of the snapshot. */
static int stall_now_and_then(const void *in, void *out, void *arg)
{
    (void)arg;
    const weir_gen_event *e = in;
    if (e->partition == 1 && e->seq % 100 == 50) {
        struct timespec t = {0, 15 * 1000000L};
        nanosleep(&t, NULL);
    }
    memcpy(out, in, sizeof *e);
    return 0;
}

typedef struct run_spec {
    const char *out;   /* the sink's folder */
    const char *chk;   /* checkpoints' folder; NULL: no checkpoints */
    int window_p;      /* the window's parallelism */
    bool at_least_once;
    bool windows;      /* else every event goes to the sink as it is */
    int workers;
    int channel_batches;
    int batch_capacity;
    double speed;      /* event-time ms per ms */
    const char *restore; /* restore from here (else from chk, if it has one) */
    int buckets;       /* > 0: the results go into folders "mB=K % B/odd=K % 2", B buckets */
    int event_buckets; /* > 0 (events): each into folder "sB=SEQ % B", B buckets */
} run_spec;

/* The job, built and not run; NULL on failure. */
static weir_job *build_job(const run_spec *rs)
{
    weir_job_config cfg = {.workers = rs->workers ? rs->workers : 2,
                           .parallelism = 2,
                           .channel_batches = rs->channel_batches,
                           .batch_capacity = rs->batch_capacity,
                           .diag = {.level = WEIR_DIAG_OFF}};
    if (rs->chk) {
        cfg.checkpoint.interval_ms = 30;
        cfg.checkpoint.dir = rs->chk;
        cfg.checkpoint.mode =
            rs->at_least_once ? WEIR_CHECKPOINT_AT_LEAST_ONCE : WEIR_CHECKPOINT_EXACTLY_ONCE;
        weir_checkpoint *c = NULL;
        char err[512];
        if (weir_checkpoint_open(rs->chk, NULL, NULL, &c, err, sizeof err) == 0) {
            cfg.checkpoint.restore_from = rs->chk;
            weir_checkpoint_close(c);
        }
    }
    if (rs->restore)
        cfg.checkpoint.restore_from = rs->restore;
    weir_job *job = NULL;
    if (weir_job_create(&cfg, &job))
        return NULL;
    weir_generator_config g = {.name = "events",
                               .partitions = 2,
                               .keys = 40,
                               .rate = 2000,
                               .pace = WEIR_GEN_PACED,
                               .speed = rs->speed > 0 ? rs->speed : 1.0,
                               .count = 2400,
                               .seed = 11};
    weir_stream *s = weir_source_generator(job, &g);
    weir_timestamps_spec ts = {.strategy = weir_watermarks_bounded(0)};
    s = weir_stream_assign_timestamps(s, &ts);
    s = weir_stream_map(s, sizeof(weir_gen_event), stall_now_and_then, NULL);
    s = weir_stream_key_by(s, weir_generator_key());
    weir_file_sink_config fc = {.dir = rs->out, .roll_bytes = 4096};
    if (rs->windows) {
        weir_window_spec w = {.assigner = weir_window_tumbling(100, 0),
                              .aggregate = {.acc_size = sizeof(sums),
                                            .add = sum_add,
                                            .result = sum_result},
                              .out_size = sizeof(result)};
        s = weir_stream_set_parallelism(weir_stream_window(s, &w), rs->window_p);
        s = weir_stream_set_uid(s, "sums");
        fc.format = format_result;
        if (rs->buckets > 0) {
            static int nbuckets;
            nbuckets = rs->buckets;
            fc.bucket = bucket_result;
            fc.bucket_arg = &nbuckets;
        }
    } else {
        fc.format = format_event;
        if (rs->event_buckets > 0) {
            static int nbuckets;
            nbuckets = rs->event_buckets;
            fc.bucket = bucket_event;
            fc.bucket_arg = &nbuckets;
        }
    }
    weir_stream_set_parallelism(weir_sink_file(s, &fc), rs->window_p);
    return job;
}

/* The job; returns weir_job_run's result. */
static int run_job(const run_spec *rs)
{
    weir_job *job = build_job(rs);
    if (!job)
        return -1;
    int r = weir_job_run(job);
    if (r)
        fprintf(stderr, "run: %s\n", weir_job_error(job));
    weir_job_destroy(job);
    return r;
}

/* The child is this test program again, started fresh (fork, then exec of
 * itself): a process that forks while it has threads may not start new ones
 * under ThreadSanitizer, and a job starts threads. The run's spec travels
 * in the environment; the constructor below runs the job before Criterion
 * starts, and exits. */
#define CHILD_ENV "WEIR_RECOVERY_CHILD"

static void spec_to_env(const run_spec *rs, char *buf, size_t size)
{
    snprintf(buf, size, "%d %d %d %d %d %d %d %d %.17g\n%s\n%s\n%s\n", rs->window_p,
             rs->at_least_once, rs->windows, rs->workers, rs->channel_batches, rs->batch_capacity,
             rs->buckets, rs->event_buckets, rs->speed, rs->out, rs->chk ? rs->chk : "",
             rs->restore ? rs->restore : "");
}

__attribute__((constructor)) static void maybe_child(void)
{
    const char *env = getenv(CHILD_ENV);
    if (!env)
        return;
    static char text[3 * 4096 + 128];
    snprintf(text, sizeof text, "%s", env);
    run_spec rs = {0};
    int al = 0, w = 0;
    char *line[4] = {0};
    char *p = text;
    for (int i = 0; i < 4 && p; i++) { /* four lines, any of the last two empty */
        line[i] = p;
        p = strchr(p, '\n');
        if (p)
            *p++ = '\0';
    }
    if (!line[3] || sscanf(line[0], "%d %d %d %d %d %d %d %d %lg", &rs.window_p, &al, &w,
                           &rs.workers, &rs.channel_batches, &rs.batch_capacity, &rs.buckets,
                           &rs.event_buckets, &rs.speed) != 9)
        _exit(4);
    char *out = line[1], *chk = line[2], *restore = line[3];
    rs.at_least_once = al;
    rs.windows = w;
    rs.out = out;
    rs.chk = chk && *chk ? chk : NULL;
    rs.restore = restore && *restore ? restore : NULL;
    _exit(run_job(&rs) == 0 ? 0 : 3);
}

/* Starts the job in a child process. */
static pid_t start_child(const run_spec *rs)
{
    static char env[3 * 4096 + 128];
    spec_to_env(rs, env, sizeof env);
    fflush(NULL);
    pid_t pid = fork();
    cr_assert(pid >= 0);
    if (pid == 0) {
        setenv(CHILD_ENV, env, 1);
        char *argv[] = {"recovery-child", NULL};
        execv("/proc/self/exe", argv);
        _exit(5);
    }
    return pid;
}

/* 0 if the child's status says it completed, 1 killed, -1 failed. */
static int child_result(int st)
{
    if (WIFSIGNALED(st))
        return 1;
    return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : -1;
}

/* Runs the job in a child process; kill_after_ms >= 0 kills it with SIGKILL
 * then. Returns 0 if it completed, 1 if it was killed, -1 if it failed. */
static int run_child(const run_spec *rs, int kill_after_ms)
{
    pid_t pid = start_child(rs);
    if (kill_after_ms >= 0) {
        struct timespec t = {kill_after_ms / 1000, (long)(kill_after_ms % 1000) * 1000000L};
        nanosleep(&t, NULL);
        kill(pid, SIGKILL);
    }
    int st = 0;
    cr_assert(waitpid(pid, &st, 0) == pid);
    return child_result(st);
}

/* The id of the newest complete checkpoint in chk; 0 if none (yet). */
static int64_t newest_complete(const char *chk)
{
    weir_checkpoint *c = NULL;
    char err[512];
    if (weir_checkpoint_open(chk, NULL, NULL, &c, err, sizeof err) != 0)
        return 0;
    int64_t id = weir_checkpoint_id(c);
    weir_checkpoint_close(c);
    return id;
}

/* Calls each(path relative to dir, name, arg) for every file under dir,
 * in its folders too (the sink's buckets); folders starting with '.' are
 * not entered. */
static void each_file(const char *dir, const char *rel,
                      void (*each)(const char *dir, const char *rel, const char *name, void *arg),
                      void *arg)
{
    char path[8192];
    snprintf(path, sizeof path, "%s%s%s", dir, *rel ? "/" : "", rel);
    DIR *d = opendir(path);
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        char sub[4096], full[8192 + 256];
        if (snprintf(sub, sizeof sub, "%s%s%s", rel, *rel ? "/" : "", e->d_name) >=
                (int)sizeof sub ||
            snprintf(full, sizeof full, "%s/%s", path, e->d_name) >= (int)sizeof full)
            cr_assert_fail("a path too long under %s", dir);
        struct stat st;
        if (e->d_name[0] != '.' && lstat(full, &st) == 0 && S_ISDIR(st.st_mode))
            each_file(dir, sub, each, arg);
        else
            each(dir, rel, e->d_name, arg);
    }
    closedir(d);
}

typedef struct count_arg {
    int sub, n;
} count_arg;

static void count_part(const char *dir, const char *rel, const char *name, void *arg)
{
    (void)dir;
    (void)rel;
    count_arg *c = arg;
    if (name[0] == '.')
        return;
    const char *last = strrchr(name, '-');
    const char *prev = last;
    while (prev && prev > name && prev[-1] != '-')
        prev--;
    c->n += c->sub < 0 || (last && prev > name && atoi(prev) == c->sub);
}

/* How many files under dir are committed parts (names not starting with
 * '.') of sink subtask `sub` (-1: of any): PREFIX[-RUN]-SUB-N. */
static int committed_files(const char *dir, int sub)
{
    count_arg c = {sub, 0};
    each_file(dir, "", count_part, &c);
    return c.n;
}

typedef struct names_arg {
    char *buf;
    size_t size, len;
} names_arg;

static void add_hidden(const char *dir, const char *rel, const char *name, void *arg)
{
    (void)dir;
    names_arg *a = arg;
    if (name[0] == '.' && a->len < a->size - 1)
        a->len += (size_t)snprintf(a->buf + a->len, a->size - a->len, "%s%s%s\n", rel,
                                   *rel ? "/" : "", name);
}

/* The hidden files under dir (in-progress and pending parts), one a line. */
static char *hidden_files(const char *dir)
{
    static char names[4096];
    names[0] = '\0';
    struct stat st;
    cr_assert(stat(dir, &st) == 0, "no output folder %s", dir);
    names_arg a = {names, sizeof names, 0};
    each_file(dir, "", add_hidden, &a);
    return names;
}

/* Runs the job in a child process and kills it with SIGKILL once it has
 * completed `more` checkpoints beyond the newest there was and (sub >= 0)
 * its sink subtask `sub` has a committed part more than before: a moment
 * its own progress reaches, not a clock. Returns 1 if it was killed, 0 if
 * it completed first, -1 if it failed. Bounded: the child is killed after
 * 60 s and the test fails. */
static int run_child_until(const run_spec *rs, int more, int sub)
{
    int64_t from = newest_complete(rs->chk);
    int files = committed_files(rs->out, sub);
    pid_t pid = start_child(rs);
    for (int waited = 0;; waited += 5) {
        int st = 0;
        pid_t w = waitpid(pid, &st, WNOHANG);
        cr_assert(w >= 0);
        if (w == pid)
            return child_result(st);
        if (waited > 60000 || (newest_complete(rs->chk) >= from + more &&
                               (sub < 0 || committed_files(rs->out, sub) > files))) {
            kill(pid, SIGKILL);
            cr_assert(waitpid(pid, &st, 0) == pid);
            cr_assert(waited <= 60000, "the run made no progress in 60 s");
            return child_result(st);
        }
        struct timespec t = {0, 5 * 1000000L};
        nanosleep(&t, NULL);
    }
}

static int cmp_lines(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

typedef struct lines_arg {
    char **lines;
    size_t n, cap;
} lines_arg;

/* A committed part's lines, each "FOLDER|LINE" in a bucket's folder (a
 * result in the folder of its key: checked here), "LINE" in the sink's. */
static void add_lines(const char *dir, const char *rel, const char *name, void *arg)
{
    lines_arg *a = arg;
    if (name[0] == '.')
        return;
    char path[8192];
    snprintf(path, sizeof path, "%s%s%s/%s", dir, *rel ? "/" : "", rel, name);
    size_t len = 0;
    char *text = td_read(path, &len);
    char *save = NULL;
    for (char *l = strtok_r(text, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
        if (a->n == a->cap) {
            a->cap = a->cap ? 2 * a->cap : 1024;
            a->lines = realloc(a->lines, a->cap * sizeof *a->lines);
        }
        char *line = malloc(strlen(rel) + strlen(l) + 2);
        sprintf(line, "%s%s%s", rel, *rel ? "|" : "", l);
        long long key, m, mod, odd, seq;
        if (*rel && rel[0] == 's') { /* an event: "PARTITION SEQ KEY TS" in sB=SEQ % B */
            cr_assert(sscanf(l, "%*d %lld", &seq) == 1 &&
                      sscanf(rel, "s%lld=%lld", &m, &mod) == 2, "%s", line);
            cr_assert(m > 0 && mod == seq % m, "in another event's folder: %s", line);
        } else if (*rel) {
            cr_assert(sscanf(l, "k%lld", &key) == 1 &&
                      sscanf(rel, "m%lld=%lld/odd=%lld", &m, &mod, &odd) == 3, "%s", line);
            cr_assert(m > 0 && mod == key % m && odd == key % 2, "in another key's folder: %s",
                      line);
        }
        a->lines[a->n++] = line;
    }
    free(text);
}

/* Every line of every committed part file under dir (names not starting
 * with '.'), sorted, as one string. */
static char *committed(const char *dir, size_t *nlines)
{
    struct stat st;
    cr_assert(stat(dir, &st) == 0, "no output folder %s", dir);
    lines_arg la = {0};
    each_file(dir, "", add_lines, &la);
    char **lines = la.lines;
    size_t n = la.n;
    qsort(lines, n, sizeof *lines, cmp_lines);
    size_t total = 1;
    for (size_t i = 0; i < n; i++)
        total += strlen(lines[i]) + 1;
    char *all = malloc(total), *p = all;
    for (size_t i = 0; i < n; i++) {
        size_t l = strlen(lines[i]);
        memcpy(p, lines[i], l);
        p[l] = '\n';
        p += l + 1;
        free(lines[i]);
    }
    *p = '\0';
    free(lines);
    *nlines = n;
    return all;
}

static char *reference_into(char *tmp, int window_p, bool windows, int buckets, size_t *n)
{
    char out[4096];
    snprintf(out, sizeof out, "%s/reference", tmp);
    run_spec rs = {.out = out, .window_p = window_p, .windows = windows, .speed = 20,
                   .buckets = buckets};
    cr_assert_eq(run_child(&rs, -1), 0, "the failure-free run failed");
    return committed(out, n);
}

static char *reference(char *tmp, int window_p, bool windows, size_t *n)
{
    return reference_into(tmp, window_p, windows, 0, n);
}

/* Kills the job `kills` times at moments from `seed`, then lets it finish;
 * returns how many runs were killed. `ps` (NULL: the run_spec's) is the
 * parallelism of each run, the kills' and the last one's (kills + 1). */
static int kill_and_restore(run_spec *rs, unsigned seed, int kills, const int *ps)
{
    int killed = 0;
    for (int k = 0; k < kills; k++) {
        seed = seed * 1103515245u + 12345u;
        int at = 120 + (int)((seed >> 8) % 700);
        if (ps)
            rs->window_p = ps[k];
        int r = run_child(rs, at);
        cr_assert(r >= 0, "attempt %d (parallelism %d) failed (not killed)", k, rs->window_p);
        if (r == 0)
            return killed; /* finished before the kill */
        killed++;
    }
    if (ps)
        rs->window_p = ps[kills];
    cr_assert_eq(run_child(rs, -1), 0, "the last run, from the checkpoint, failed");
    return killed;
}

static void exactly_once_into(int window_p, unsigned seed, const int *ps, int buckets)
{
    char *tmp = td_tmpdir();
    size_t nref = 0, ngot = 0;
    char *ref = reference_into(tmp, window_p, true, buckets, &nref);
    cr_assert_gt(nref, 100);
    char out[4096], chk[4096];
    snprintf(out, sizeof out, "%s/out", tmp);
    snprintf(chk, sizeof chk, "%s/chk", tmp);
    run_spec rs = {.out = out, .chk = chk, .window_p = window_p, .windows = true,
                   .buckets = buckets};
    int killed = kill_and_restore(&rs, seed, 6, ps);
    cr_assert_gt(killed, 0, "no run was killed: the test proved nothing");
    cr_log_info("parallelism %d: %d kills, %zu results", window_p, killed, nref);
    char *got = committed(out, &ngot);
    cr_assert_eq(ngot, nref, "%zu committed lines after %d kills, %zu without failures", ngot,
                 killed, nref);
    cr_assert_str_eq(got, ref, "the committed output differs from the failure-free run's");
    free(got);
    free(ref);
    td_rmdir(tmp);
}

static void exactly_once_at(int window_p, unsigned seed, const int *ps)
{
    exactly_once_into(window_p, seed, ps, 0);
}

Test(checkpoint_recovery, kill_and_restore_p2, .timeout = 120)
{
    exactly_once_at(2, 1, NULL);
}

/* The results in bucket folders by key (two levels, five and two ways),
 * each restart at another parallelism: every result committed once, in
 * its key's folder (committed() checks), as in a run never killed. */
Test(checkpoint_recovery, kill_and_restore_into_buckets_rescaled, .timeout = 120)
{
    static const int ps[] = {2, 3, 1, 2, 4, 2, 3};
    exactly_once_into(3, 5, ps, 5);
}

/* Each restart at another parallelism than the run it follows: up, down,
 * up again. */
Test(checkpoint_recovery, kill_and_restore_p3_rescaled, .timeout = 120)
{
    static const int ps[] = {3, 1, 4, 2, 3, 1, 3};
    exactly_once_at(3, 2, ps);
}

Test(checkpoint_recovery, kill_and_restore_p4, .timeout = 120)
{
    exactly_once_at(4, 3, NULL);
}

/* At-least-once: every event of the failure-free run is committed at least
 * once; duplicates are allowed and counted. */
Test(checkpoint_recovery, at_least_once_loses_nothing, .timeout = 120)
{
    char *tmp = td_tmpdir();
    size_t nref = 0, ngot = 0;
    char *ref = reference(tmp, 2, false, &nref);
    char out[4096], chk[4096];
    snprintf(out, sizeof out, "%s/out", tmp);
    snprintf(chk, sizeof chk, "%s/chk", tmp);
    run_spec rs = {.out = out, .chk = chk, .window_p = 2, .at_least_once = true};
    int killed = kill_and_restore(&rs, 9, 3, NULL);
    cr_assert_gt(killed, 0);
    char *got = committed(out, &ngot);
    /* Both sorted: walk them together; every reference line must be met. */
    size_t dup = 0, missing = 0;
    char *g = got, *r = ref;
    while (*r) {
        char *rn = strchr(r, '\n');
        size_t rl = (size_t)(rn - r);
        while (*g && (strncmp(g, r, rl) < 0 || (strncmp(g, r, rl) == 0 && g[rl] != '\n'))) {
            g = strchr(g, '\n') + 1;
        }
        if (!*g || strncmp(g, r, rl) != 0 || g[rl] != '\n') {
            missing++;
        } else {
            g += rl + 1;
            while (*g && strncmp(g, r, rl) == 0 && g[rl] == '\n') {
                dup++;
                g += rl + 1;
            }
        }
        r = rn + 1;
    }
    cr_log_info("at-least-once: %zu events, %zu duplicates after %d kills", nref, dup, killed);
    cr_assert_eq(missing, 0, "%zu of %zu events lost", missing, nref);
    cr_assert_eq(ngot, nref + dup);
    free(got);
    free(ref);
    td_rmdir(tmp);
}

/* A checkpoint taken with the window at parallelism 2 restores at 1, 3 and
 * 4 (key groups): the same results as a run that never stopped. */
Test(checkpoint_recovery, rescale, .timeout = 120)
{
    char *tmp = td_tmpdir();
    size_t nref = 0;
    char *ref = reference(tmp, 2, true, &nref);
    int targets[] = {1, 3, 4};
    for (int t = 0; t < 3; t++) {
        char out[4096], chk[4096];
        snprintf(out, sizeof out, "%s/out%d", tmp, t);
        snprintf(chk, sizeof chk, "%s/chk%d", tmp, t);
        run_spec rs = {.out = out, .chk = chk, .window_p = 2, .windows = true};
        int r = run_child(&rs, 500);
        cr_assert_eq(r, 1, "the first run should have been killed");
        rs.window_p = targets[t];
        cr_assert_eq(run_child(&rs, -1), 0, "the restore at parallelism %d failed", targets[t]);
        size_t n = 0;
        char *got = committed(out, &n);
        cr_assert_str_eq(got, ref, "restored at parallelism %d: other results", targets[t]);
        free(got);
    }
    free(ref);
    td_rmdir(tmp);
}

/* Killed at parallelism 2, restored at 1 and killed, restored at 2 again
 * to the end: every run's sink subtasks commit parts, and the one that is
 * new at parallelism 2 again (subtask 1, whose state the run at 1 did not
 * have) must not take a name the first run's subtask 1 committed. The
 * committed output is the failure-free run's, and no hidden part is left:
 * each restore deleted what the run before it wrote after its checkpoint.
 * Each run is killed once its own progress (checkpoints completed, a part
 * committed) reaches the point, not at a time. */
static void find_part(const char *dir, const char *rel, const char *name, void *arg)
{
    (void)dir;
    char *found = arg;
    if (!found[0] && *rel && strncmp(name, "part-", 5) == 0 &&
        snprintf(found, 512, "%s/%s", rel, name) >= 512)
        found[0] = '\0';
}

/* What a killed writer may leave in a bucket's folder that no restore
 * commits: a part written after its last checkpoint. One is made in
 * another folder than the killed run's committed part P ("FOLDER/P"),
 * under P's writer's name with a number it never reached: a restore must
 * find it there and delete it, whatever the kill's timing left. */
static void plant_stale_part(const char *out)
{
    char found[512] = "";
    each_file(out, "", find_part, found);
    cr_assert(found[0], "the killed run committed no part in a bucket folder");
    const char *name = strrchr(found, '/') + 1, *last = strrchr(name, '-');
    char path[8192];
    snprintf(path, sizeof path, "%s/m3=2/odd=1/.%.*s-99999.inprogress", out,
             (int)(last - name), name);
    char folder[8192];
    snprintf(folder, sizeof folder, "%s/m3=2", out);
    mkdir(folder, 0755); /* (made by the run already, or not yet) */
    snprintf(folder, sizeof folder, "%s/m3=2/odd=1", out);
    mkdir(folder, 0755);
    td_write(path, "stale\n", 6);
}

static void up_down_and_up(int buckets)
{
    char *tmp = td_tmpdir();
    size_t nref = 0, ngot = 0;
    char *ref = reference_into(tmp, 2, true, buckets, &nref);
    char out[4096], chk[4096];
    snprintf(out, sizeof out, "%s/out", tmp);
    snprintf(chk, sizeof chk, "%s/chk", tmp);
    run_spec rs = {.out = out, .chk = chk, .windows = true, .buckets = buckets};
    /* the first run is killed once its subtask 1 committed a part, the
     * second once it completed checkpoints of its own (its restore was
     * the first run's) */
    static const int ps[] = {2, 1}, subs[] = {1, -1};
    for (int i = 0; i < 2; i++) {
        rs.window_p = ps[i];
        int r = run_child_until(&rs, 2, subs[i]);
        cr_assert_eq(r, 1, "the run at parallelism %d %s", ps[i],
                     r == 0 ? "completed before it could be killed" : "failed");
        if (buckets && i == 0)
            plant_stale_part(out);
    }
    rs.window_p = 2;
    cr_assert_eq(run_child(&rs, -1), 0,
                 "the run at parallelism 2 after 1 failed (its message is above)");
    char *got = committed(out, &ngot);
    cr_assert_eq(ngot, nref, "%zu committed lines, %zu without failures", ngot, nref);
    cr_assert_str_eq(got, ref, "the committed output differs from the failure-free run's");
    cr_assert_str_eq(hidden_files(out), "", "hidden parts left behind");
    free(got);
    free(ref);
    td_rmdir(tmp);
}

Test(checkpoint_recovery, rescale_up_down_and_up_across_kills, .timeout = 120)
{
    up_down_and_up(0);
}

/* Every event straight into the sink, each into the next of 150 buckets
 * (more than the 128 a subtask keeps open): parts are parked and opened
 * again between every two checkpoints, and killed runs leave parked parts
 * behind. Restored until done, each event is committed once, in its
 * folder, as in a run never killed. */
Test(checkpoint_recovery, parked_parts_across_kills, .timeout = 120)
{
    char *tmp = td_tmpdir();
    size_t nref = 0, ngot = 0;
    char ref_out[4096], out[4096], chk[4096];
    snprintf(ref_out, sizeof ref_out, "%s/reference", tmp);
    run_spec ref = {.out = ref_out, .window_p = 2, .speed = 20, .event_buckets = 150};
    cr_assert_eq(run_child(&ref, -1), 0, "the failure-free run failed");
    char *want = committed(ref_out, &nref);
    cr_assert_gt(nref, 1000);
    snprintf(out, sizeof out, "%s/out", tmp);
    snprintf(chk, sizeof chk, "%s/chk", tmp);
    /* three times the pace: some 180 events reach a sink subtask between
     * two checkpoints (30 ms), more buckets than its 128 slots, so parts
     * that are being written are parked; each run is killed once it
     * completed three checkpoints of its own */
    run_spec rs = {.out = out, .chk = chk, .window_p = 2, .event_buckets = 150, .speed = 3};
    int killed = 0, r = 1;
    for (int k = 0; k < 3 && r == 1; k++) {
        r = run_child_until(&rs, 3, -1);
        cr_assert(r >= 0, "run %d failed (not killed)", k);
        killed += r;
    }
    if (r == 1)
        cr_assert_eq(run_child(&rs, -1), 0, "the last run, from the checkpoint, failed");
    cr_assert_gt(killed, 0, "no run was killed: the test proved nothing");
    char *got = committed(out, &ngot);
    cr_assert_eq(ngot, nref, "%zu committed lines after %d kills, %zu without failures", ngot,
                 killed, nref);
    cr_assert_str_eq(got, want, "the committed output differs from the failure-free run's");
    free(got);
    free(want);
    td_rmdir(tmp);
}

/* The same into bucket folders: each restore finds the hidden parts its
 * old writers left in every folder (none is left at the end). */
Test(checkpoint_recovery, buckets_rescaled_across_kills_leave_nothing_hidden, .timeout = 120)
{
    up_down_and_up(3);
}

/* One worker, one-record batches, one batch per channel: alignment under
 * the hardest backpressure neither deadlocks nor loses anything. */
Test(checkpoint_recovery, alignment_under_backpressure, .timeout = 120)
{
    char *tmp = td_tmpdir();
    size_t nref = 0, ngot = 0;
    char *ref = reference(tmp, 2, true, &nref);
    char out[4096], chk[4096];
    snprintf(out, sizeof out, "%s/out", tmp);
    snprintf(chk, sizeof chk, "%s/chk", tmp);
    run_spec rs = {.out = out, .chk = chk, .window_p = 3, .windows = true, .workers = 1,
                   .channel_batches = 1, .batch_capacity = 1, .speed = 6};
    cr_assert_eq(run_child(&rs, -1), 0);
    char *got = committed(out, &ngot);
    cr_assert_str_eq(got, ref);
    free(got);
    free(ref);
    td_rmdir(tmp);
}

/* ---- savepoints ------------------------------------------------------------ */

static void sleep_ms(int ms)
{
    struct timespec t = {ms / 1000, (long)(ms % 1000) * 1000000L};
    nanosleep(&t, NULL);
}

/* A savepoint while the job runs: complete in its own folder, and the job
 * goes on to its end. */
Test(checkpoint_recovery, savepoint_on_demand, .timeout = 60)
{
    char *tmp = td_tmpdir();
    char out[4096], chk[4096], sp[4096];
    snprintf(out, sizeof out, "%s/out", tmp);
    snprintf(chk, sizeof chk, "%s/chk", tmp);
    snprintf(sp, sizeof sp, "%s/savepoints", tmp);
    run_spec rs = {.out = out, .chk = chk, .window_p = 2, .windows = true};
    tu_runner r;
    weir_job *job = build_job(&rs);
    cr_assert_not_null(job);
    tu_runner_start(&r, job);
    sleep_ms(300);
    int64_t id = 0;
    char why[512];
    int e = weir_job_savepoint(r.job, sp, false, &id, why, sizeof why);
    pthread_join(r.thread, NULL);
    cr_assert_eq(e, 0, "savepoint: %s", why);
    cr_assert_eq(r.result, 0, "%s", weir_job_error(r.job));
    weir_checkpoint *c = NULL;
    cr_assert_eq(weir_checkpoint_open(sp, NULL, NULL, &c, why, sizeof why), 0, "%s", why);
    cr_assert_eq(weir_checkpoint_id(c), id);
    cr_assert(strstr(weir_checkpoint_job_json(c), "\"savepoint\":true"));
    weir_checkpoint_close(c);
    /* after the run: refused, with why */
    cr_assert_eq(weir_job_savepoint(r.job, sp, false, &id, why, sizeof why), WEIR_ESTATE);
    cr_assert(strstr(why, "not running"), "%s", why);
    weir_job_destroy(r.job);
    td_rmdir(tmp);
}

/* Stop-with-savepoint, then a new run from the savepoint: the committed
 * output is the failure-free run's. */
Test(checkpoint_recovery, stop_with_savepoint_and_resume, .timeout = 60)
{
    char *tmp = td_tmpdir();
    size_t nref = 0, ngot = 0;
    char *ref = reference(tmp, 2, true, &nref);
    char out[4096], chk[4096], sp[4096];
    snprintf(out, sizeof out, "%s/out", tmp);
    snprintf(chk, sizeof chk, "%s/chk", tmp);
    snprintf(sp, sizeof sp, "%s/savepoints", tmp);
    run_spec rs = {.out = out, .chk = chk, .window_p = 2, .windows = true};
    tu_runner r;
    tu_runner_start(&r, build_job(&rs));
    sleep_ms(400);
    tu_runner_stop_with_savepoint(&r, sp);
    cr_assert(strstr(weir_job_error(r.job), "stopped with savepoint"), "%s",
              weir_job_error(r.job));
    weir_job_destroy(r.job);
    /* what the savepoint covers is committed already */
    size_t nmid = 0;
    free(committed(out, &nmid));
    cr_assert_gt(nmid, 0, "nothing was committed by the savepoint");
    cr_assert_lt(nmid, nref);
    run_spec again = rs;
    again.restore = sp;
    again.chk = NULL;
    cr_assert_eq(run_child(&again, -1), 0);
    char *got = committed(out, &ngot);
    cr_assert_str_eq(got, ref);
    free(got);
    free(ref);
    td_rmdir(tmp);
}

/* ---- restore's choices ------------------------------------------------------ */

/* events -> timestamps -> [key_by -> window "sums"] -> discard, paced over
 * about 300 ms, with checkpoints every 20 ms into chk, restoring from
 * `restore` (NULL: none). Returns weir_job_run's result; stats and the
 * error in *st and err. */
/* When set, run_small's capture goes here (else it has none). */
static weir_diag_memory *small_capture;
/* The uid of run_small's window; when small_name is set, the window has no
 * uid but that name, and a second window after it small_name2. */
static const char *small_name, *small_name2;

static int run_small(const char *chk, const char *restore, bool window, bool allow,
                     weir_checkpoint_stats *st, char *err, size_t errsize)
{
    weir_job_config cfg = {.workers = 2,
                           .parallelism = 2,
                           .diag = {.level = small_capture ? WEIR_DIAG_STANDARD : WEIR_DIAG_OFF,
                                    .memory = small_capture},
                           .checkpoint = {.interval_ms = 20,
                                          .dir = chk,
                                          .retain = 3,
                                          .restore_from = restore,
                                          .allow_non_restored_state = allow}};
    weir_job *job = NULL;
    cr_assert_eq(weir_job_create(&cfg, &job), 0);
    /* 300 ms of paced input, 15 checkpoints at 20 ms on an idle machine; a
     * sanitized build on a loaded one may take far fewer in that time, and
     * the tests need three: it reads for a second and a half */
    weir_generator_config g = {.name = "events",
                               .keys = 20,
                               .rate = 1000,
                               .count = WEIR_TEST_SANITIZED ? 3000 : 600,
                               .pace = WEIR_GEN_PACED,
                               .speed = 2,
                               .seed = 5};
    weir_stream *s = weir_source_generator(job, &g);
    weir_timestamps_spec ts = {.strategy = weir_watermarks_bounded(0)};
    s = weir_stream_assign_timestamps(s, &ts);
    if (window) {
        weir_window_spec w = {.assigner = weir_window_tumbling(100, 0),
                              .aggregate = {.acc_size = sizeof(sums),
                                            .add = sum_add,
                                            .result = sum_result},
                              .out_size = sizeof(result)};
        s = weir_stream_window(weir_stream_key_by(s, weir_generator_key()), &w);
        if (small_name)
            s = weir_stream_set_name(s, small_name);
        else
            s = weir_stream_set_uid(s, "sums");
        if (small_name2) {
            static const weir_key_spec k = {.key_size = sizeof(int64_t), .extract = result_key};
            weir_window_spec w2 = {.assigner = weir_window_tumbling(100, 0),
                                   .aggregate = {.acc_size = sizeof(sums),
                                                 .add = result_add,
                                                 .result = sum_result},
                                   .out_size = sizeof(result)};
            s = weir_stream_set_name(weir_stream_window(weir_stream_key_by(s, &k), &w2),
                                     small_name2);
        }
    }
    weir_sink_discard(s);
    int r = weir_job_run(job);
    snprintf(err, errsize, "%s", weir_job_error(job));
    weir_job_checkpoint_stats(job, st);
    weir_job_destroy(job);
    return r;
}

static int64_t newest_id(const char *chk)
{
    char **f = NULL;
    size_t n = 0;
    char why[512];
    cr_assert_eq(weir_checkpoint_list(chk, &f, &n, why, sizeof why), 0, "%s", why);
    cr_assert_geq(n, 3, "%zu checkpoints kept", n);
    long long id = 0;
    sscanf(strrchr(f[0], '/') + 1, "chk-%lld", &id);
    weir_checkpoint_list_free(f, n);
    return id;
}

/* The capture's checkpoint_restore events of a run: the reasons of those
 * skipped, in order, into `reasons` (joined by newlines), and the id
 * restored; they come right after the job event. */
static int64_t restore_events(const weir_diag_memory *mem, char *reasons, size_t size)
{
    int64_t restored = -1;
    size_t used = 0;
    reasons[0] = '\0';
    size_t n = weir_diag_memory_count(mem);
    cr_assert_gt(n, 1);
    cr_assert_eq(weir_diag_memory_event(mem, 0)->kind, WEIR_DIAG_KIND_JOB);
    for (size_t i = 1; i < n && restored < 0; i++) {
        const weir_diag_event *ev = weir_diag_memory_event(mem, i);
        cr_assert_eq(ev->kind, WEIR_DIAG_KIND_CHECKPOINT_RESTORE, "event %zu: %s", i, ev->json);
        cr_assert_null(ev->op);
        if (ev->reason) {
            cr_assert(strstr(ev->json, "\"status\":\"skipped\""), "%s", ev->json);
            used += (size_t)snprintf(reasons + used, size - used, "%s\n", ev->reason);
        } else {
            cr_assert(strstr(ev->json, "\"status\":\"restored\""), "%s", ev->json);
            restored = ev->checkpoint_id;
        }
    }
    return restored;
}

/* A corrupt state file and a missing _metadata: each newer checkpoint is
 * skipped, with its reason, and the next older one restored; the capture
 * says which and why, and nothing is printed. */
Test(checkpoint_recovery, restore_skips_what_does_not_verify, .timeout = 60)
{
    char *tmp = td_tmpdir();
    char chk[2048], path[4096], err[1024];
    snprintf(chk, sizeof chk, "%s/chk", tmp);
    weir_checkpoint_stats st;
    cr_assert_eq(run_small(chk, NULL, true, false, &st, err, sizeof err), 0, "%s", err);
    int64_t n = newest_id(chk);
    /* flip a byte in the middle of the newest's window state */
    snprintf(path, sizeof path, "%s/chk-%lld/sums-0", chk, (long long)n);
    size_t len = 0;
    char *bytes = td_read(path, &len);
    cr_assert_gt(len, 40);
    bytes[len / 2] ^= 0x5a;
    td_write(path, bytes, len);
    free(bytes);
    /* standard error into a file of ours for the run: it must stay empty */
    char errpath[4096];
    snprintf(errpath, sizeof errpath, "%s/stderr", tmp);
    fflush(stderr);
    int saved = dup(2), fd = open(errpath, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    cr_assert(saved >= 0 && fd >= 0);
    dup2(fd, 2);
    close(fd);
    cr_assert_eq(weir_diag_memory_create(&small_capture), 0);
    int ran = run_small(chk, chk, true, false, &st, err, sizeof err);
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    cr_assert_eq(ran, 0, "%s", err);
    size_t printed = 0;
    free(td_read(errpath, &printed));
    cr_assert_eq(printed, 0, "the restore printed to standard error");
    cr_assert_eq(st.restored_id, n - 1);
    cr_assert_eq(st.skipped, 1);
    cr_assert(strstr(st.last_problem, "sums-0: checksum mismatch"), "%s", st.last_problem);
    char reasons[2048];
    cr_assert_eq(restore_events(small_capture, reasons, sizeof reasons), n - 1);
    cr_assert(strstr(reasons, "sums-0: checksum mismatch") && !strchr(strchr(reasons, '\n') + 1, '\n'),
              "one skipped, with its reason: %s", reasons);
    weir_diag_memory_destroy(small_capture);
    small_capture = NULL;
    /* a fresh run's checkpoints (the restored run above had little input
     * left and may have kept the corrupt one among its newest three): take
     * two away from the top */
    snprintf(chk, sizeof chk, "%s/chk2", tmp);
    cr_assert_eq(run_small(chk, NULL, true, false, &st, err, sizeof err), 0, "%s", err);
    n = newest_id(chk);
    snprintf(path, sizeof path, "%s/chk-%lld/_metadata", chk, (long long)n);
    cr_assert_eq(unlink(path), 0);
    snprintf(path, sizeof path, "%s/chk-%lld/events-1", chk, (long long)(n - 1));
    cr_assert_eq(truncate(path, 10), 0);
    cr_assert_eq(weir_diag_memory_create(&small_capture), 0);
    cr_assert_eq(run_small(chk, chk, true, false, &st, err, sizeof err), 0, "%s", err);
    cr_assert_eq(st.restored_id, n - 2);
    cr_assert_eq(st.skipped, 2);
    cr_assert_eq(restore_events(small_capture, reasons, sizeof reasons), n - 2);
    char want[64];
    snprintf(want, sizeof want, "chk-%lld/_metadata", (long long)n);
    cr_assert(strstr(reasons, want) && strstr(reasons, "events-1"), "%s", reasons);
    cr_assert_lt(strstr(reasons, want), strstr(reasons, "events-1"), "newest first: %s", reasons);
    weir_diag_memory_destroy(small_capture);
    small_capture = NULL;
    td_rmdir(tmp);
}

/* A FIFO in place of the newest checkpoint's _metadata: skipped, named as
 * not a regular file, without waiting in open() for a writer, and the next
 * older one restored. A FIFO in place of a state file of the checkpoint
 * named on its own: refused with the reason. */
Test(checkpoint_recovery, restore_refuses_a_fifo_in_place_of_a_file, .timeout = 60)
{
    char *tmp = td_tmpdir();
    char chk[2048], path[4096], err[1024];
    snprintf(chk, sizeof chk, "%s/chk", tmp);
    weir_checkpoint_stats st;
    cr_assert_eq(run_small(chk, NULL, true, false, &st, err, sizeof err), 0, "%s", err);
    char **f = NULL;
    size_t nf = 0;
    cr_assert_eq(weir_checkpoint_list(chk, &f, &nf, err, sizeof err), 0, "%s", err);
    cr_assert_geq(nf, 2, "%zu checkpoints kept", nf);
    long long n = 0;
    sscanf(strrchr(f[0], '/') + 1, "chk-%lld", &n);
    weir_checkpoint_list_free(f, nf);
    snprintf(path, sizeof path, "%s/chk-%lld/_metadata", chk, n);
    cr_assert_eq(unlink(path), 0);
    cr_assert_eq(mkfifo(path, 0600), 0);
    snprintf(path, sizeof path, "%s/chk-%lld/sums-1", chk, n - 1);
    char keep[4200];
    snprintf(keep, sizeof keep, "%s.kept", path);
    cr_assert_eq(rename(path, keep), 0);
    cr_assert_eq(mkfifo(path, 0600), 0);
    char one[4096];
    snprintf(one, sizeof one, "%s/chk-%lld", chk, n - 1);
    cr_assert_neq(run_small(chk, one, true, false, &st, err, sizeof err), 0);
    cr_assert(strstr(err, "sums-1: is a FIFO, not a regular file"), "%s", err);
    cr_assert_eq(unlink(path), 0);
    cr_assert_eq(rename(keep, path), 0);
    cr_assert_eq(run_small(chk, chk, true, false, &st, err, sizeof err), 0, "%s", err);
    cr_assert_eq(st.restored_id, n - 1);
    cr_assert_eq(st.skipped, 1);
    cr_assert(strstr(st.last_problem, "_metadata: is a FIFO, not a regular file"), "%s",
              st.last_problem);
    td_rmdir(tmp);
}

/* State for an operator the job no longer has: refused, naming it, unless
 * allow_non_restored_state. */
Test(checkpoint_recovery, state_of_a_removed_operator, .timeout = 60)
{
    char *tmp = td_tmpdir();
    char chk[4096], err[1024];
    snprintf(chk, sizeof chk, "%s/chk", tmp);
    weir_checkpoint_stats st;
    cr_assert_eq(run_small(chk, NULL, true, false, &st, err, sizeof err), 0, "%s", err);
    cr_assert_eq(run_small(chk, chk, false, false, &st, err, sizeof err), WEIR_EINVAL);
    cr_assert(strstr(err, "it holds state for the operator 'sums', which this job does not "
                          "have (set checkpoint.allow_non_restored_state"),
              "%s", err);
    cr_assert_eq(run_small(chk, chk, false, true, &st, err, sizeof err), 0, "%s", err);
    cr_assert_gt(st.restored_id, 0);
    td_rmdir(tmp);
}

/* SQL names an operator by its whole text ("Calc(select=[...])"), and an
 * operator without a uid is known in a checkpoint by its name: a name longer
 * than a state file's may be (the store's 200 bytes) is cut and gets a hash
 * of the whole, so that two long names that begin alike keep files of their
 * own, and the checkpoint restores. */
Test(checkpoint_recovery, long_names_checkpoint_and_restore, .timeout = 60)
{
    char *tmp = td_tmpdir();
    char chk[4096], err[1024], a[400], b[400];
    snprintf(chk, sizeof chk, "%s/chk", tmp);
    memset(a, 'x', 350);
    a[350] = '\0';
    snprintf(b, sizeof b, "%s", a);
    a[349] = 'a';
    b[349] = 'b';
    small_name = a;
    small_name2 = b;
    weir_checkpoint_stats st;
    int r = run_small(chk, NULL, true, false, &st, err, sizeof err);
    cr_assert_eq(r, 0, "%s", err);
    cr_assert_gt(st.completed, 0);
    cr_assert_eq(run_small(chk, chk, true, false, &st, err, sizeof err), 0, "%s", err);
    cr_assert_gt(st.restored_id, 0);
    small_name = small_name2 = NULL;
    td_rmdir(tmp);
}

/* ---- the file source's position ------------------------------------------- */

static weir_schema *lines_schema(void)
{
    weir_schema_builder *b = weir_schema_builder_create("lines");
    weir_schema_column_sql(b, "id", "BIGINT");
    weir_schema_column_sql(b, "note", "VARCHAR(40)");
    weir_schema_column_sql(b, "ts", "TIMESTAMP(3)");
    weir_schema_watermark(b, "ts", "ts");
    weir_schema *s = NULL;
    char err[256];
    cr_assert_eq(weir_schema_build(b, &s, err, sizeof err), 0, "%s", err);
    return s;
}

/* CSV file -> file sink (CSV), the source paced by rowtime. */
static weir_job *file_job(const weir_schema *sc, const char *in, const char *out,
                          const char *chk, const char *restore)
{
    weir_job_config cfg = {.workers = 2,
                           .diag = {.level = WEIR_DIAG_OFF},
                           .checkpoint = {.interval_ms = chk ? 20 : 0,
                                          .dir = chk,
                                          .restore_from = restore}};
    weir_job *job = NULL;
    cr_assert_eq(weir_job_create(&cfg, &job), 0);
    weir_file_source_config fs = {.name = "lines", .path = in, .format = WEIR_FILE_CSV,
                                  .speed = 4};
    weir_file_sink_config fc = {.dir = out, .schema = sc, .csv = true, .roll_bytes = 2000};
    cr_assert_not_null(weir_sink_file(weir_source_file(job, sc, &fs), &fc), "%s",
                       weir_job_error(job));
    return job;
}

/* Stop-with-savepoint part-way through a CSV file (with rows whose quoted
 * field spans lines), then a run from the savepoint: every row committed
 * once, in the file's order. */
Test(checkpoint_recovery, file_source_resumes_at_its_position, .timeout = 60)
{
    char *tmp = td_tmpdir();
    char in[256], out[256], chk[256], sp[256];
    snprintf(in, sizeof in, "%s/in.csv", tmp);
    snprintf(out, sizeof out, "%s/out", tmp);
    snprintf(chk, sizeof chk, "%s/chk", tmp);
    snprintf(sp, sizeof sp, "%s/sp", tmp);
    size_t cap = 1 << 20, len = 0;
    char *text = malloc(cap), *want = malloc(cap);
    size_t wlen = 0;
    for (int i = 0; i < 2000; i++) {
        char ts[32];
        weir_timestamp_format(i, ts, sizeof ts);
        bool multi = i % 97 == 5;
        len += (size_t)snprintf(text + len, cap - len, "%d,%s,%s\n", i,
                                multi ? "\"two\nlines\"" : "plain", ts);
        wlen += (size_t)snprintf(want + wlen, cap - wlen, "%d,%s,%s\n", i,
                                 multi ? "\"two\nlines\"" : "plain", ts);
    }
    td_write(in, text, len);
    weir_schema *sc = lines_schema();
    tu_runner r;
    tu_runner_start(&r, file_job(sc, in, out, chk, NULL));
    sleep_ms(200);
    tu_runner_stop_with_savepoint(&r, sp);
    weir_job_destroy(r.job);
    weir_job *job = file_job(sc, in, out, NULL, sp);
    cr_assert_eq(weir_job_run(job), 0, "%s", weir_job_error(job));
    weir_job_destroy(job);
    /* one subtask: its parts in number order are the output in order (the
     * restored run's numbers go on from the first run's; each run's parts
     * carry its own run id: part-RUN-0-N) */
    char *got = calloc(1, cap);
    size_t glen = 0;
    int parts = 0;
    for (int n = 0;; n++) {
        char name[256] = "";
        DIR *d = opendir(out);
        cr_assert_not_null(d);
        struct dirent *de;
        while ((de = readdir(d)) != NULL) {
            char run[17];
            int sub = -1, num = -1, end = 0;
            if (sscanf(de->d_name, "part-%16[0-9a-f]-%d-%d%n", run, &sub, &num, &end) == 3 &&
                de->d_name[end] == '\0' && sub == 0 && num == n) {
                cr_assert_str_eq(name, "", "two parts numbered %d", n);
                snprintf(name, sizeof name, "%s", de->d_name);
            }
        }
        closedir(d);
        if (!*name)
            break;
        size_t l = 0;
        char *p = td_read(td_path(out, name), &l);
        memcpy(got + glen, p, l);
        glen += l;
        free(p);
        parts++;
    }
    cr_assert_gt(parts, 2);
    want[wlen] = '\0';
    cr_assert_str_eq(got, want);
    free(got);
    free(text);
    free(want);
    weir_schema_destroy(sc);
    td_rmdir(tmp);
}

/* ---- a checkpoint of an older weir's file sink ------------------------------ */

/* The sink's part of an older weir's state: "fks1", [subtask, next part,
 * count], then [subtask, n] per pending part; its names had no run id. */
static void legacy_sink_state(msgpack_sbuffer *sb, int64_t subtask, int64_t pending_n)
{
    uint32_t tag = 0x666b7331u;
    int64_t head[3] = {subtask, pending_n + 1, 1}, part[2] = {subtask, pending_n};
    msgpack_sbuffer_write(sb, (const char *)&tag, sizeof tag);
    msgpack_sbuffer_write(sb, (const char *)head, sizeof head);
    msgpack_sbuffer_write(sb, (const char *)part, sizeof part);
}

/* A copy of the checkpoint at `from` as dest/chk-1, the file sink's state
 * ("op" of the files whose name starts with "sink") replaced by an older
 * weir's listing part pending_n as pending. */
static void make_legacy_checkpoint(const char *from, const char *dest, int64_t pending_n)
{
    weir__chk c;
    char err[512];
    cr_assert_eq(weir__chk_open(from, NULL, NULL, &c, err, sizeof err), 0, "%s", err);
    weir__chk_writer w;
    cr_assert_eq(weir__chk_begin(&w, dest, 1), 0, "%s", w.err);
    int sinks = 0;
    for (size_t i = 0; i < c.nfiles; i++) {
        void *payload;
        size_t len;
        cr_assert_eq(weir__chk_read(&c, c.files[i].name, &payload, &len, err, sizeof err), 0,
                     "%s", err);
        msgpack_sbuffer out;
        msgpack_sbuffer_init(&out);
        if (strncmp(c.files[i].name, "sink", 4) != 0) {
            msgpack_sbuffer_write(&out, payload, len);
        } else {
            msgpack_unpacked up;
            msgpack_unpacked_init(&up);
            cr_assert_eq(msgpack_unpack_next(&up, payload, len, NULL), MSGPACK_UNPACK_SUCCESS);
            const msgpack_object_map *m = &up.data.via.map;
            cr_assert_eq(up.data.type, MSGPACK_OBJECT_MAP);
            msgpack_packer pk;
            msgpack_packer_init(&pk, &out, msgpack_sbuffer_write);
            msgpack_pack_map(&pk, m->size);
            for (uint32_t k = 0; k < m->size; k++) {
                msgpack_pack_object(&pk, m->ptr[k].key);
                const msgpack_object_str *key = &m->ptr[k].key.via.str;
                if (key->size == 2 && memcmp(key->ptr, "op", 2) == 0) {
                    msgpack_sbuffer op;
                    msgpack_sbuffer_init(&op);
                    legacy_sink_state(&op, 0, pending_n);
                    msgpack_pack_bin(&pk, op.size);
                    msgpack_pack_bin_body(&pk, op.data, op.size);
                    msgpack_sbuffer_destroy(&op);
                    sinks++;
                } else {
                    msgpack_pack_object(&pk, m->ptr[k].val);
                }
            }
            msgpack_unpacked_destroy(&up);
        }
        cr_assert_eq(weir__chk_write(&w, c.files[i].name, out.data, out.size), 0, "%s", w.err);
        msgpack_sbuffer_destroy(&out);
        free(payload);
    }
    cr_assert_eq(sinks, 1, "the checkpoint has %d file sink states", sinks);
    cr_assert_eq(weir__chk_commit(&w, c.job, c.job_len, 3), 0, "%s", w.err);
    weir__chk_writer_free(&w);
    weir__chk_close(&c);
}

/* A checkpoint whose file sink state is an older weir's restores: its
 * pending part is committed under its old name (PREFIX-i-N), the old
 * writer's other hidden parts (in progress, pending and not listed) are
 * deleted, and nothing the run committed before is touched. The checkpoint
 * is a finished run's final one, so the restored run ends at once. */
Test(checkpoint_recovery, a_checkpoint_of_an_older_file_sink_restores, .timeout = 60)
{
    char *tmp = td_tmpdir();
    char in[256], out[256], chk[256], legacy[256], final[300];
    snprintf(in, sizeof in, "%s/in.csv", tmp);
    snprintf(out, sizeof out, "%s/out", tmp);
    snprintf(chk, sizeof chk, "%s/chk", tmp);
    snprintf(legacy, sizeof legacy, "%s/legacy", tmp);
    char text[4096];
    size_t len = 0;
    for (int i = 0; i < 50; i++) {
        char ts[32];
        weir_timestamp_format(i, ts, sizeof ts);
        len += (size_t)snprintf(text + len, sizeof text - len, "%d,row,%s\n", i, ts);
    }
    td_write(in, text, len);
    weir_schema *sc = lines_schema();
    weir_job *job = file_job(sc, in, out, chk, NULL);
    cr_assert_eq(weir_job_run(job), 0, "%s", weir_job_error(job));
    weir_job_destroy(job);
    size_t before = 0;
    char *was = committed(out, &before);
    cr_assert_eq(before, 50);
    make_legacy_checkpoint(chk, legacy, 900);
    td_write(td_path(out, ".part-0-900.pending"), "900,legacy,1970-01-01 00:00:00.900\n", 35);
    td_write(td_path(out, ".part-0-901.inprogress"), "stale\n", 6);
    td_write(td_path(out, ".part-0-902.pending"), "stale\n", 6);
    job = file_job(sc, in, out, NULL, legacy);
    cr_assert_eq(weir_job_run(job), 0, "%s", weir_job_error(job));
    weir_job_destroy(job);
    snprintf(final, sizeof final, "%s/part-0-900", out);
    char *got = td_read(final, NULL);
    cr_assert_str_eq(got, "900,legacy,1970-01-01 00:00:00.900\n");
    free(got);
    cr_assert(!td_exists(td_path(out, ".part-0-900.pending")));
    cr_assert(!td_exists(td_path(out, ".part-0-901.inprogress")), "a stale part was left");
    cr_assert(!td_exists(td_path(out, ".part-0-902.pending")), "a stale part was left");
    size_t after = 0;
    char *now = committed(out, &after);
    cr_assert_eq(after, before + 1);
    cr_assert(strstr(now, "900,legacy,"));
    free(now);
    free(was);
    weir_schema_destroy(sc);
    td_rmdir(tmp);
}
