/* checkpoints.c — a job that checkpoints, is stopped with a savepoint part
 * of the way through, and resumes from it: every event counted once.
 *
 * Concept (docs/CHECKPOINTS.md): with checkpoint.interval_ms set, the job's
 * coordinator injects a barrier at the sources every interval; each subtask
 * snapshots its state when the barrier has come on all its inputs (aligned),
 * and a checkpoint is complete when every sink has acknowledged it. A
 * savepoint is the same thing on demand, from another thread
 * (weir_job_savepoint); with `stop` the job ends right after it.
 * The exactly-once file sink (weir/file_sink.h) commits its part files only
 * when the checkpoint that closed them completes, so the committed output
 * is exactly that of the records before the last completed checkpoint.
 *
 * The job: a paced generator with 2 partitions (2 000 events/s each, 3 100
 * each: 1.55 s of event time, on the system clock, which checkpoints need)
 * -> timestamps bounded(50) -> key_by key -> 100 ms tumbling windows summing
 * per key (uid "sums") -> the file sink into checkpoints-run/out/.
 * Checkpoints every 250 ms (apart from the watermarks' 200 ms, so that the
 * viewer shows them apart) into checkpoints-run/checkpoints/. The first run
 * is stopped with a savepoint into checkpoints-run/savepoints/ after about
 * 0.7 s; the second restores from it and runs to the end, which comes
 * between two triggers: its last checkpoint is the final one, made of the
 * subtasks' last snapshots, and commits the rest.
 *
 * What to look for: the two runs' checkpoint statistics, and the committed
 * window results, whose counts add up to the 6 200 events exactly: none
 * lost at the stop, none counted twice by the resume. The captures are
 * checkpoints-stop.jsonl and checkpoints-resume.jsonl: in viewer/index.html
 * each checkpoint is a band across the timeline (the savepoint violet) and
 * each subtask's snapshot a mark on its watermark line; `weir checkpoint
 * inspect checkpoints-run/savepoints` lists the savepoint's files. Takes
 * about 1.5 s (real time, on purpose); the number of checkpoints varies a
 * little.
 *
 * Run: ./build/release/examples/checkpoints
 */
#define _XOPEN_SOURCE 700 /* nftw */
#include <dirent.h>
#include <ftw.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <weir.h>

/* All under one folder, named apart from the program itself. */
#define RUN_DIR "checkpoints-run"
#define OUT_DIR RUN_DIR "/out"
#define CHK_DIR RUN_DIR "/checkpoints"
#define SAVEPOINT_DIR RUN_DIR "/savepoints"

/* 1.55 s of events: the input ends between two checkpoints' triggers (at
 * 1 500 and 1 750 ms), so the resumed run's last checkpoint is its final one. */
enum { PARTITIONS = 2, PER_PARTITION = 3100, STOP_AFTER_MS = 700 };

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

/* One committed line per window and key: "k<key> <start> <sum> <count>". */
static int format_result(const void *elem, int64_t ts, char *buf, size_t size, void *arg)
{
    (void)arg;
    (void)ts;
    const result *r = elem;
    return snprintf(buf, size, "k%" PRId64 " %" PRId64 " %" PRId64 " %" PRId64, r->key, r->start,
                    r->sum, r->count);
}

/* The same job for both runs; restore_from NULL: a fresh start. */
static weir_job *build(const char *capture, const char *restore_from)
{
    weir_job *job;
    weir_job_config cfg = {.workers = 2,
                           .parallelism = PARTITIONS,
                           .clock = WEIR_CLOCK_SYSTEM,
                           .checkpoint = {.interval_ms = 250,
                                          .dir = CHK_DIR,
                                          .restore_from = restore_from},
                           .diag = {.jsonl_path = capture}};
    if (weir_job_create(&cfg, &job) != 0)
        return NULL;
    weir_stream *s = weir_source_generator(job, &(weir_generator_config){
                                                    .name = "events",
                                                    .partitions = PARTITIONS,
                                                    .keys = 20,
                                                    .rate = 2000,
                                                    .pace = WEIR_GEN_PACED,
                                                    .count = PER_PARTITION,
                                                    .seed = 3,
                                                });
    s = weir_stream_assign_timestamps(
        s, &(weir_timestamps_spec){.strategy = weir_watermarks_bounded(50)});
    s = weir_stream_key_by(s, weir_generator_key());
    weir_window_spec w = {.assigner = weir_window_tumbling(100, 0),
                          .aggregate = {.acc_size = sizeof(sums), .add = sum_add, .result = sum_result},
                          .out_size = sizeof(result)};
    /* An explicit uid: what a restore matches state by, so that renaming
     * the operator later keeps its state. */
    s = weir_stream_set_uid(weir_stream_set_name(weir_stream_window(s, &w), "window"), "sums");
    weir_sink_file(s, &(weir_file_sink_config){.dir = OUT_DIR, .format = format_result});
    return job;
}

typedef struct stopper {
    weir_job *job;
    int r;
    int64_t id;
    char why[512];
} stopper;

/* Another thread: stop the running job with a savepoint after a while. */
static void *stop_with_savepoint(void *arg)
{
    stopper *st = arg;
    struct timespec wait = {0, STOP_AFTER_MS * 1000000L};
    nanosleep(&wait, NULL);
    st->r = weir_job_savepoint(st->job, SAVEPOINT_DIR, true, &st->id, st->why, sizeof st->why);
    return NULL;
}

static void print_stats(const char *run, weir_job *job)
{
    weir_checkpoint_stats cs;
    if (weir_job_checkpoint_stats(job, &cs) != 0)
        return;
    printf("%s: restored checkpoint %" PRId64 "; %" PRId64 " checkpoints completed, %" PRId64
           " aborted; the last, %" PRId64 ", holds %" PRId64 " bytes; longest alignment %.3f ms\n",
           run, cs.restored_id, cs.completed, cs.aborted, cs.last_completed_id, cs.last_bytes,
           cs.max_alignment_ms);
}

/* Adds up the committed part files (names without a leading dot). */
static int read_committed(int64_t *lines, int64_t *events)
{
    DIR *d = opendir(OUT_DIR);
    if (!d)
        return -1;
    struct dirent *de;
    while ((de = readdir(d))) {
        if (de->d_name[0] == '.')
            continue;
        char path[512];
        snprintf(path, sizeof path, "%s/%s", OUT_DIR, de->d_name);
        FILE *f = fopen(path, "r");
        if (!f)
            continue;
        char line[256];
        while (fgets(line, sizeof line, f)) {
            long long key, start, sum, count;
            if (sscanf(line, "k%lld %lld %lld %lld", &key, &start, &sum, &count) == 4) {
                ++*lines;
                *events += count;
            }
        }
        fclose(f);
    }
    closedir(d);
    return 0;
}

static int remove_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)sb;
    (void)flag;
    (void)ftw;
    return remove(path);
}

int main(void)
{
    /* A fresh start: the folders of an earlier run would be restored from
     * (and their committed files are never overwritten). */
    nftw(RUN_DIR, remove_entry, 16, FTW_DEPTH | FTW_PHYS);

    printf("events (p=2, paced) -> timestamps -> key_by -> window 100 ms (uid sums) -> file sink\n"
           "checkpoints every 250 ms into %s/\n\n",
           CHK_DIR);

    weir_job *job = build("checkpoints-stop.jsonl", NULL);
    if (!job)
        return 1;
    stopper st = {.job = job};
    pthread_t thread;
    if (pthread_create(&thread, NULL, stop_with_savepoint, &st) != 0) {
        weir_job_destroy(job);
        return 1;
    }
    int r = weir_job_run(job);
    pthread_join(thread, NULL);
    if (st.r != 0 || r != WEIR_ECANCELED) {
        fprintf(stderr, "checkpoints: the stop with a savepoint failed: %s (run: %s)\n", st.why,
                weir_job_error(job));
        weir_job_destroy(job);
        return 1;
    }
    printf("run 1 (%s)\n", weir_job_error(job));
    print_stats("run 1", job);
    weir_job_destroy(job);
    int64_t lines = 0, events = 0;
    read_committed(&lines, &events);
    printf("committed after run 1: %" PRId64 " window results counting %" PRId64 " events\n\n",
           lines, events);

    job = build("checkpoints-resume.jsonl", SAVEPOINT_DIR);
    if (!job)
        return 1;
    r = weir_job_run(job);
    if (r != 0) {
        fprintf(stderr, "checkpoints: the resumed run failed: %s\n", weir_job_error(job));
        weir_job_destroy(job);
        return 1;
    }
    printf("run 2, resumed from savepoint %" PRId64 "\n", st.id);
    print_stats("run 2", job);
    weir_job_destroy(job);

    lines = events = 0;
    read_committed(&lines, &events);
    printf("committed after run 2: %" PRId64 " window results counting %" PRId64
           " events, of %d: %s\n",
           lines, events, PARTITIONS * PER_PARTITION,
           events == PARTITIONS * PER_PARTITION ? "each once" : "NOT each once");
    printf("\nThe captures are checkpoints-stop.jsonl and checkpoints-resume.jsonl: open\n"
           "viewer/index.html in a browser and load them; `weir checkpoint inspect %s`\n"
           "lists the savepoint's files.\n",
           SAVEPOINT_DIR);
    return events == PARTITIONS * PER_PARTITION ? 0 : 1;
}
