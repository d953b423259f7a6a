/* test_sql_checkpoints.c — `weir sql` queries that checkpoint, are killed
 * and restored (the real binary, WEIR_BINARY_DIR/tools/weir, run as a
 * child process in a temporary folder).
 *
 * A datagen table paced on the system clock (two partitions, 500 rows a
 * second each) feeds a group aggregate or a window aggregate, and an upsert
 * file paced at its rowtime a ChangelogNormalize and a group aggregate of
 * its retractions, with a checkpoint every 30 ms into ckpt/. The test waits until the query has
 * printed rows and a checkpoint completed after that (it looks at the
 * folder: chk-N/_metadata), kills it with SIGKILL, and runs it again with
 * --from-checkpoint ckpt, at the same parallelism or another one (SET
 * 'parallelism.default'), to its end. Then:
 *   - the last row per key of both runs' printed changelogs, the killed
 *     run's first, equals the last row per key of a failure-free run (the
 *     print sink is at-least-once: rows after the checkpoint come again);
 *   - the restored run did restore: for a group aggregate some key's first
 *     row is a -U, whose row the killed run printed (the state it had at
 *     the checkpoint, flushed there); for windows, it prints fewer rows than
 *     the failure-free run (the windows fired before the checkpoint are not
 *     fired again).
 * A Kafka -> SQL -> Kafka INSERT with the exactly-once sink, on the mock
 * cluster (its brokers listen on localhost: the child reaches them), is
 * killed after a checkpoint, given more input, restored and stopped once
 * its output is whole: every input row is in the output exactly once.
 * SIGINT with --savepoint-on-stop stops an unbounded query with a savepoint
 * and exits 0, naming it; the savepoint verifies and a run restored from it
 * (bounded, to be compared) ends as a failure-free run does. SIGTERM without
 * it names the last checkpoint.
 *
 * No timing is asserted: every wait looks at files and is bounded (60 s),
 * and each run has seconds of input left when it is stopped.
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>

#include "diag/test_diag_support.h"
#include "support/kafka_testutil.h"
#include "weir/checkpoint.h"
#include "weir/sql.h"
#include "weir/table.h"

#define WEIR WEIR_BINARY_DIR "/tools/weir"

static void sleep_ms(int ms)
{
    nanosleep(&(struct timespec){ms / 1000, (long)(ms % 1000) * 1000000}, NULL);
}

/* `weir sql ARGS... q.sql` in dir, stdout and stderr into OUT and ERR. */
static pid_t spawn_sql(const char *dir, const char *out, const char *err, const char *a1,
                       const char *a2)
{
    cr_assert(td_exists(WEIR), "%s is missing: build the weir-cli target", WEIR);
    pid_t pid = fork();
    cr_assert_neq(pid, -1);
    if (pid == 0) {
        if (chdir(dir) != 0)
            _exit(120);
        int o = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        int e = open(err, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        int in = open("/dev/null", O_RDONLY);
        if (o < 0 || e < 0 || in < 0 || dup2(in, 0) < 0 || dup2(o, 1) < 0 || dup2(e, 2) < 0)
            _exit(121);
        if (a1)
            execl(WEIR, "weir", "sql", a1, a2, "q.sql", (char *)NULL);
        else
            execl(WEIR, "weir", "sql", "q.sql", (char *)NULL);
        _exit(122);
    }
    return pid;
}

/* The child's wait status, within 60 s (else it is killed and the test
 * fails). */
static int wait_bounded(pid_t pid)
{
    int status;
    for (int i = 0; i < 6000; i++) {
        pid_t r = waitpid(pid, &status, WNOHANG);
        cr_assert_neq(r, -1);
        if (r == pid)
            return status;
        sleep_ms(10);
    }
    kill(pid, SIGKILL);
    waitpid(pid, &status, 0);
    cr_assert_fail("weir sql did not exit within 60 s");
    return status;
}

/* Runs it to its end: exit status 0, or the test fails with its stderr. */
static void run_ok(const char *dir, const char *out, const char *a1, const char *a2)
{
    int status = wait_bounded(spawn_sql(dir, out, "err.txt", a1, a2));
    char *err = td_read(td_path(dir, "err.txt"), NULL);
    cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "weir sql: status %d; stderr:\n%s",
              status, err);
    free(err);
}

/* The newest complete checkpoint (chk-N with its _metadata) in `folder`;
 * 0 if none. */
static long newest_complete(const char *folder)
{
    DIR *d = opendir(folder);
    if (!d)
        return 0;
    long best = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        long n;
        char meta[700];
        if (sscanf(e->d_name, "chk-%ld", &n) != 1 || n <= best)
            continue;
        snprintf(meta, sizeof meta, "%s/%s/_metadata", folder, e->d_name);
        if (td_exists(meta))
            best = n;
    }
    closedir(d);
    return best;
}

static long file_size(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 ? (long)st.st_size : 0;
}

/* Waits until the running query printed rows and then completed a
 * checkpoint triggered after that (bounded: 60 s; the run must not end
 * first): one at a time, so when N was the newest complete one as the
 * rows were seen, N + 1 may have been under way, and N + 2 was triggered
 * after them. */
static void await_checkpoint_after_output(pid_t pid, const char *dir, const char *out)
{
    long before = -1;
    for (int i = 0; i < 6000; i++) {
        int status;
        cr_assert_eq(waitpid(pid, &status, WNOHANG), 0, "weir sql ended before it was stopped:"
                     " status %d", status);
        if (before < 0 && file_size(td_path(dir, out)) > 0)
            before = newest_complete(td_path(dir, "ckpt"));
        if (before >= 0 && newest_complete(td_path(dir, "ckpt")) >= before + 2)
            return;
        sleep_ms(10);
    }
    cr_assert_fail("no checkpoint completed after the first rows within 60 s");
}

/* ---- the printed changelog ------------------------------------------------ */

#define MAX_KEYS 4096

/* The last row per key of a changelog: a key is the row's first `nkey`
 * fields ("+U[3, 41, 2050]": "3" for nkey 1). */
typedef struct last_rows {
    int n;
    char key[MAX_KEYS][64];
    char row[MAX_KEYS][160];
    bool deleted[MAX_KEYS];
    /* the kind of each key's first row ('I' or 'U' of a -U, ...) */
    char first[MAX_KEYS];
    long rows; /* +I and +U rows */
} last_rows;

static int find_key(last_rows *l, const char *key)
{
    for (int i = 0; i < l->n; i++)
        if (strcmp(l->key[i], key) == 0)
            return i;
    cr_assert_lt(l->n, MAX_KEYS);
    snprintf(l->key[l->n], sizeof l->key[0], "%s", key);
    l->row[l->n][0] = '\0';
    l->first[l->n] = 0;
    return l->n++;
}

/* Folds the complete lines of `path` into `l` (a run killed may have cut
 * its last one). */
static void fold(last_rows *l, const char *path, int nkey)
{
    char *text = td_read(path, NULL);
    for (char *line = text, *nl; (nl = strchr(line, '\n')); line = nl + 1) {
        *nl = '\0';
        cr_assert(strlen(line) > 3 && line[2] == '[', "not a row: '%s'", line);
        const char *p = line + 3;
        for (int f = 0; f < nkey && p; f++)
            p = strchr(f ? p + 1 : p, ',');
        cr_assert_not_null(p, "no key in '%s'", line);
        char key[64];
        snprintf(key, sizeof key, "%.*s", (int)(p - (line + 3)), line + 3);
        int i = find_key(l, key);
        char kind = line[1];
        if (!l->first[i])
            l->first[i] = line[0] == '-' && kind == 'U' ? 'u' : kind;
        if (line[0] == '+') {
            snprintf(l->row[i], sizeof l->row[0], "%s", line + 2);
            l->deleted[i] = false;
            l->rows++;
        } else if (kind == 'D') {
            l->deleted[i] = true;
        }
    }
    free(text);
}

/* Whether `path` holds a row "+?ROW" (ROW from "[...]"). */
static bool printed(const char *path, const char *row)
{
    char *text = td_read(path, NULL);
    bool found = false;
    for (char *line = text, *nl; !found && (nl = strchr(line, '\n')); line = nl + 1) {
        *nl = '\0';
        found = line[0] == '+' && strcmp(line + 2, row) == 0;
    }
    free(text);
    return found;
}

static void assert_same_final(const last_rows *got, const last_rows *want)
{
    int live = 0;
    for (int i = 0; i < want->n; i++) {
        if (want->deleted[i])
            continue;
        live++;
        int j = 0;
        while (j < got->n && strcmp(got->key[j], want->key[i]) != 0)
            j++;
        cr_assert_lt(j, got->n, "key %s is missing after the restore", want->key[i]);
        cr_assert(!got->deleted[j], "key %s was deleted", want->key[i]);
        cr_assert_str_eq(got->row[j], want->row[i], "key %s", want->key[i]);
    }
    int got_live = 0;
    for (int j = 0; j < got->n; j++)
        got_live += !got->deleted[j];
    cr_assert_eq(got_live, live, "%d keys after the restore, %d without failure", got_live, live);
}

/* ---- the queries ------------------------------------------------------------- */

#define GROUP_QUERY "SELECT `key`, COUNT(*) AS n, SUM(`value`) AS s FROM clicks GROUP BY `key`;\n"
#define WINDOW_QUERY                                                                    \
    "SELECT `key`, window_start, COUNT(*) AS n, SUM(`value`) AS s\n"                    \
    "FROM TABLE(TUMBLE(TABLE clicks, DESCRIPTOR(ts), INTERVAL '100' MILLISECOND))\n"     \
    "GROUP BY window_start, window_end, `key`;\n"

/* The table a query reads: its CREATE TABLE into buf, paced or not; a file
 * it reads is written into dir the first time. */
typedef void (*table_fn)(const char *dir, char *buf, size_t size, bool paced, long rows);

/* Two datagen partitions of `rows` rows (0: unbounded), 500 a second. */
static void datagen(const char *dir, char *buf, size_t size, bool paced, long rows)
{
    (void)dir;
    char count[64] = "";
    if (rows)
        snprintf(count, sizeof count, "'number-of-rows' = '%ld', ", rows);
    snprintf(buf, size,
             "CREATE TABLE clicks (`key` BIGINT, `value` BIGINT, ts TIMESTAMP(3),\n"
             "  WATERMARK FOR ts AS ts)\n"
             "WITH ('connector' = 'datagen', %s'partitions' = '2', 'keys' = '20',\n"
             "      'rows-per-second' = '500', 'pace' = '%s', 'seed' = '11');\n",
             count, paced ? "paced" : "fast");
}

/* An upsert file of 1500 rows 1 ms of rowtime apart (+I, +U and -D of 30
 * keys, read through a ChangelogNormalize), paced at its rowtime. */
static void upsert_file(const char *dir, char *buf, size_t size, bool paced, long rows)
{
    (void)rows;
    if (!td_exists(td_path(dir, "up.json"))) {
        FILE *f = fopen(td_path(dir, "up.json"), "w");
        cr_assert_not_null(f);
        uint64_t x = 7;
        for (int i = 0; i < 1500; i++) {
            x = x * 6364136223846793005ull + 1442695040888963407ull;
            unsigned r = (unsigned)(x >> 33);
            fprintf(f, "{\"op\": \"%s\", \"id\": %u, \"v\": %u, "
                       "\"ts\": \"1970-01-01 00:00:%02d.%03d\"}\n",
                    r % 10 == 0 ? "-D" : r % 2 ? "+U" : "+I", r % 30, (r >> 8) % 1000, i / 1000,
                    i % 1000);
        }
        cr_assert_eq(fclose(f), 0);
    }
    snprintf(buf, size,
             "CREATE TABLE up (id BIGINT, v BIGINT, ts TIMESTAMP(3),\n"
             "  PRIMARY KEY (id) NOT ENFORCED, WATERMARK FOR ts AS ts)\n"
             "WITH ('connector' = 'filesystem', 'path' = 'up.json', 'format' = 'json',\n"
             "      'changelog-mode' = 'upsert', 'changelog.kind-field' = 'op'%s);\n",
             paced ? ", 'scan.speed' = '1'" : "");
}

/* q.sql: the table, paced or not, at `parallelism`, with checkpoints or
 * without, then `query`. */
static void write_sql(const char *dir, int parallelism, bool checkpoints, table_fn table,
                      bool paced, long rows, const char *query)
{
    char sql[4096], create[2048];
    table(dir, create, sizeof create, paced, rows);
    int n = snprintf(sql, sizeof sql, "SET 'parallelism.default' = '%d';\n%s%s%s", parallelism,
                     checkpoints ? "SET 'execution.checkpointing.interval' = '30 ms';\n"
                                   "SET 'state.checkpoints.dir' = 'ckpt';\n"
                                 : "",
                     create, query);
    cr_assert_lt(n, (int)sizeof sql);
    td_write(td_path(dir, "q.sql"), sql, (size_t)n);
}

/* The last rows per key of a failure-free run of `rows` a partition. */
static void reference(const char *dir, table_fn table, long rows, const char *query, int nkey,
                      last_rows *want)
{
    write_sql(dir, 1, false, table, false, rows, query);
    run_ok(dir, "ref.txt", NULL, NULL);
    fold(want, td_path(dir, "ref.txt"), nkey);
    cr_assert_gt(want->n, 0);
}

/* A query of 1500 rows a partition (3 s paced) killed with SIGKILL after a
 * checkpoint and restored at parallelism `p2` to its end. */
static void kill_and_restore(table_fn table, const char *query, int nkey, int p1, int p2)
{
    char *dir = td_tmpdir();
    static last_rows want, got, restored;
    memset(&want, 0, sizeof want);
    memset(&got, 0, sizeof got);
    memset(&restored, 0, sizeof restored);
    reference(dir, table, 1500, query, nkey, &want);

    write_sql(dir, p1, true, table, true, 1500, query);
    pid_t pid = spawn_sql(dir, "killed.txt", "err.txt", NULL, NULL);
    await_checkpoint_after_output(pid, dir, "killed.txt");
    cr_assert_eq(kill(pid, SIGKILL), 0);
    int status;
    cr_assert_eq(waitpid(pid, &status, 0), pid);
    cr_assert(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);

    write_sql(dir, p2, true, table, false, 1500, query);
    run_ok(dir, "restored.txt", "--from-checkpoint", "ckpt");
    fold(&got, td_path(dir, "killed.txt"), nkey);
    fold(&got, td_path(dir, "restored.txt"), nkey);
    assert_same_final(&got, &want);

    fold(&restored, td_path(dir, "restored.txt"), nkey);
    if (nkey == 1) {
        /* a key the checkpoint held goes on from its row there */
        int continued = 0;
        for (int i = 0; i < restored.n; i++) {
            if (restored.first[i] != 'u')
                continue;
            continued++;
            char *text = td_read(td_path(dir, "restored.txt"), NULL);
            char row[200], prefix[80];
            snprintf(prefix, sizeof prefix, "-U[%s, ", restored.key[i]);
            char *at = strstr(text, prefix);
            cr_assert_not_null(at);
            char *end = strchr(at, '\n');
            snprintf(row, sizeof row, "%.*s", (int)(end - at - 2), at + 2);
            free(text);
            cr_assert(printed(td_path(dir, "killed.txt"), row),
                      "the restored state %s of key %s was never printed before the kill", row,
                      restored.key[i]);
        }
        cr_assert_gt(continued, 0, "no key went on from the checkpoint's state");
    } else {
        cr_assert_lt(restored.rows, want.rows,
                     "the restored run fired every window again (%ld rows)", restored.rows);
    }
    td_rmdir(dir);
}

Test(sql_checkpoints, group_aggregate_killed_and_restored, .timeout = 180)
{
    kill_and_restore(datagen, GROUP_QUERY, 1, 2, 2);
}

Test(sql_checkpoints, group_aggregate_restored_at_another_parallelism, .timeout = 180)
{
    kill_and_restore(datagen, GROUP_QUERY, 1, 2, 3);
}

Test(sql_checkpoints, window_aggregate_restored_at_another_parallelism, .timeout = 180)
{
    kill_and_restore(datagen, WINDOW_QUERY, 2, 3, 1);
}

/* INSERT INTO a print table: its sink flushes at checkpoints as the
 * result sink does (one subtask: no prefix, the rows as a SELECT's). */
#define INSERT_QUERY                                                                   \
    "CREATE TABLE totals (k BIGINT, n BIGINT, s BIGINT)\n"                               \
    "WITH ('connector' = 'print', 'sink.parallelism' = '1');\n"                          \
    "INSERT INTO totals SELECT `key`, COUNT(*), SUM(`value`) FROM clicks GROUP BY `key`;\n"

Test(sql_checkpoints, insert_into_print_killed_and_restored_at_another_parallelism,
     .timeout = 180)
{
    kill_and_restore(datagen, INSERT_QUERY, 1, 2, 1);
}

Test(sql_checkpoints, upsert_file_normalized_and_aggregated_at_another_parallelism,
     .timeout = 180)
{
    kill_and_restore(upsert_file, "SELECT v % 7 AS b, COUNT(*) AS n, SUM(v) AS s FROM up "
                                  "GROUP BY v % 7;\n", 1, 3, 2);
}

/* ---- an exactly-once sink -------------------------------------------------------- */

/* The lines of the committed files of `folder` (names not starting with
 * '.'), sorted, into *lines (n of them). */
static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The lines of the committed parts under folder/rel (its partitions'
 * folders too), each "REL|LINE" in a partition's folder; *hidden counts
 * the hidden files. */
static void tree_lines(const char *folder, const char *rel, char ***lines, size_t *n,
                       size_t *cap, size_t *hidden)
{
    char here[1200];
    snprintf(here, sizeof here, "%s%s%s", folder, *rel ? "/" : "", rel);
    DIR *d = opendir(here);
    cr_assert_not_null(d, "%s", here);
    struct dirent *e;
    while ((e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        if (e->d_name[0] == '.') {
            (*hidden)++;
            continue;
        }
        char path[1600], sub[800];
        snprintf(path, sizeof path, "%s/%s", here, e->d_name);
        snprintf(sub, sizeof sub, "%s%s%s", rel, *rel ? "/" : "", e->d_name);
        struct stat st;
        cr_assert_eq(lstat(path, &st), 0);
        if (S_ISDIR(st.st_mode)) {
            tree_lines(folder, sub, lines, n, cap, hidden);
            continue;
        }
        char *text = td_read(path, NULL);
        for (char *line = text, *nl; (nl = strchr(line, '\n')); line = nl + 1) {
            *nl = '\0';
            if (*n == *cap) {
                *cap = *cap ? *cap * 2 : 256;
                *lines = realloc(*lines, *cap * sizeof **lines);
                cr_assert_not_null(*lines);
            }
            char *l = malloc(strlen(rel) + strlen(line) + 2);
            sprintf(l, "%s%s%s", rel, *rel ? "|" : "", line);
            (*lines)[(*n)++] = l;
        }
        free(text);
    }
    closedir(d);
}

static char **committed_lines(const char *folder, size_t *n, size_t *hidden)
{
    char **lines = NULL;
    size_t cap = 0;
    *n = *hidden = 0;
    tree_lines(folder, "", &lines, n, &cap, hidden);
    if (*n)
        qsort(lines, *n, sizeof *lines, cmp_str);
    return lines;
}

#define FS_INSERT(folder)                                                                  \
    "CREATE TABLE counts (k BIGINT, ws TIMESTAMP(3), n BIGINT)\n"                          \
    "WITH ('connector' = 'filesystem', 'path' = '" folder "', 'format' = 'json');\n"       \
    "INSERT INTO counts SELECT `key`, window_start, COUNT(*)\n"                             \
    "FROM TABLE(TUMBLE(TABLE clicks, DESCRIPTOR(ts), INTERVAL '100' MILLISECOND))\n"       \
    "GROUP BY window_start, window_end, `key`;\n"

/* The same into a table partitioned by the window's start (ws=2024-...T...
 * folders), with success files: its rows are shuffled by partition, so the
 * sink is keyed, and a restore at another parallelism gives an old writer's
 * state to each new subtask whose key groups overlap its own. */
#define FS_INSERT_PARTITIONED(folder)                                                      \
    "CREATE TABLE counts (k BIGINT, ws TIMESTAMP(3), n BIGINT) PARTITIONED BY (ws)\n"      \
    "WITH ('connector' = 'filesystem', 'path' = '" folder "', 'format' = 'json',\n"        \
    "      'sink.partition-commit.policy.kind' = 'success-file');\n"                       \
    "INSERT INTO counts SELECT `key`, window_start, COUNT(*)\n"                             \
    "FROM TABLE(TUMBLE(TABLE clicks, DESCRIPTOR(ts), INTERVAL '100' MILLISECOND))\n"       \
    "GROUP BY window_start, window_end, `key`;\n"

/* INSERT INTO the exactly-once file sink, killed after parts were
 * committed and restored at another parallelism: the committed lines are a
 * failure-free run's, none lost, none twice, and no hidden part is left. */
static void filesystem_across_a_kill(const char *ref_query, const char *out_query)
{
    char *dir = td_tmpdir();
    cr_assert_eq(mkdir(td_path(dir, "ref"), 0700), 0);
    cr_assert_eq(mkdir(td_path(dir, "out"), 0700), 0);
    write_sql(dir, 1, false, datagen, false, 1500, ref_query);
    run_ok(dir, "stdout.txt", NULL, NULL);

    write_sql(dir, 2, true, datagen, true, 1500, out_query);
    pid_t pid = spawn_sql(dir, "stdout.txt", "err.txt", NULL, NULL);
    /* parts are committed when a checkpoint completes: some were, and a
     * checkpoint after that one is under way or done */
    size_t n = 0, hidden = 0;
    for (int i = 0; i < 6000; i++) {
        int status;
        cr_assert_eq(waitpid(pid, &status, WNOHANG), 0, "weir sql ended before it was killed");
        char **l = committed_lines(td_path(dir, "out"), &n, &hidden);
        for (size_t j = 0; j < n; j++)
            free(l[j]);
        free(l);
        if (n > 0)
            break;
        sleep_ms(10);
    }
    cr_assert_gt(n, 0, "nothing was committed within 60 s");
    long seen = newest_complete(td_path(dir, "ckpt"));
    for (int i = 0; i < 6000 && newest_complete(td_path(dir, "ckpt")) < seen + 1; i++)
        sleep_ms(10);
    cr_assert_eq(kill(pid, SIGKILL), 0);
    int status;
    cr_assert_eq(waitpid(pid, &status, 0), pid);

    write_sql(dir, 3, true, datagen, false, 1500, out_query);
    run_ok(dir, "stdout.txt", "--from-checkpoint", "ckpt");
    size_t nw, nh, gw, gh;
    char **want = committed_lines(td_path(dir, "ref"), &nw, &nh);
    char **got = committed_lines(td_path(dir, "out"), &gw, &gh);
    cr_assert_gt(nw, 0);
    cr_assert_eq(gw, nw, "%zu lines committed, %zu without failure", gw, nw);
    for (size_t i = 0; i < nw; i++)
        cr_assert_str_eq(got[i], want[i]);
    cr_assert_eq(gh, 0, "%zu hidden parts left", gh);
    for (size_t i = 0; i < nw; i++) {
        free(want[i]);
        free(got[i]);
    }
    free(want);
    free(got);
    td_rmdir(dir);
}

Test(sql_checkpoints, insert_into_filesystem_is_exactly_once_across_a_kill, .timeout = 180)
{
    filesystem_across_a_kill(FS_INSERT("ref"), FS_INSERT("out"));
}

/* Partitioned: every line in its partition's folder, each once. */
Test(sql_checkpoints, insert_into_partitioned_filesystem_is_exactly_once_across_a_kill,
     .timeout = 180)
{
    filesystem_across_a_kill(FS_INSERT_PARTITIONED("ref"), FS_INSERT_PARTITIONED("out"));
}

/* ---- stopping ------------------------------------------------------------------ */

Test(sql_checkpoints, sigint_stops_an_unbounded_query_with_a_savepoint, .timeout = 180)
{
    char *dir = td_tmpdir();
    static last_rows want, got;
    memset(&want, 0, sizeof want);
    memset(&got, 0, sizeof got);
    reference(dir, datagen, 20000, GROUP_QUERY, 1, &want);

    write_sql(dir, 2, true, datagen, true, 0, GROUP_QUERY);
    pid_t pid = spawn_sql(dir, "stopped.txt", "err.txt", "--savepoint-on-stop", "sp");
    await_checkpoint_after_output(pid, dir, "stopped.txt");
    cr_assert_eq(kill(pid, SIGINT), 0);
    int status = wait_bounded(pid);
    char *err = td_read(td_path(dir, "err.txt"), NULL);
    cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "status %d; stderr:\n%s", status,
              err);
    long long id = 0, id2 = 0;
    cr_assert_eq(sscanf(err, "weir sql: stopped by SIGINT with savepoint %lld: sp/chk-%lld\n",
                        &id, &id2), 2, "%s", err);
    cr_assert_eq(id, id2);
    free(err);
    /* it verifies, file by file */
    char folder[600], why[512];
    snprintf(folder, sizeof folder, "%s/sp/chk-%lld", dir, id);
    weir_checkpoint *c = NULL;
    cr_assert_eq(weir_checkpoint_open(folder, NULL, NULL, &c, why, sizeof why), 0, "%s", why);
    cr_assert_eq(weir_checkpoint_id(c), id);
    weir_checkpoint_close(c);

    /* restored, as a bounded table, it ends as a failure-free run does */
    char from[64];
    snprintf(from, sizeof from, "sp/chk-%lld", id);
    write_sql(dir, 2, true, datagen, false, 20000, GROUP_QUERY);
    run_ok(dir, "restored.txt", "--from-checkpoint", from);
    fold(&got, td_path(dir, "stopped.txt"), 1);
    fold(&got, td_path(dir, "restored.txt"), 1);
    assert_same_final(&got, &want);
    td_rmdir(dir);
}

Test(sql_checkpoints, sigterm_names_the_last_checkpoint, .timeout = 120)
{
    char *dir = td_tmpdir();
    write_sql(dir, 2, true, datagen, true, 0, GROUP_QUERY);
    pid_t pid = spawn_sql(dir, "out.txt", "err.txt", NULL, NULL);
    await_checkpoint_after_output(pid, dir, "out.txt");
    cr_assert_eq(kill(pid, SIGTERM), 0);
    int status = wait_bounded(pid);
    char *err = td_read(td_path(dir, "err.txt"), NULL);
    cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "status %d; stderr:\n%s", status,
              err);
    long long id = 0, id2 = 0;
    cr_assert_eq(sscanf(err, "weir sql: stopped by SIGTERM; its last checkpoint is %lld: "
                             "ckpt/chk-%lld\n", &id, &id2), 2, "%s", err);
    cr_assert_eq(id, id2);
    cr_assert_geq(newest_complete(td_path(dir, "ckpt")), id);
    char meta[600];
    snprintf(meta, sizeof meta, "%s/ckpt/chk-%lld/_metadata", dir, id);
    cr_assert(td_exists(meta), "%s", meta);
    free(err);
    td_rmdir(dir);
}

Test(sql_checkpoints, savepoint_on_stop_needs_a_checkpoint_folder, .timeout = 60)
{
    char *dir = td_tmpdir();
    write_sql(dir, 1, false, datagen, false, 5, GROUP_QUERY);
    int status = wait_bounded(spawn_sql(dir, "out.txt", "err.txt", "--savepoint-on-stop", "sp"));
    char *err = td_read(td_path(dir, "err.txt"), NULL);
    cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 2, "status %d; stderr:\n%s", status,
              err);
    cr_assert_str_eq(err, "weir sql: q.sql: a query stopped with a savepoint runs with "
                          "checkpoints: SET 'state.checkpoints.dir', the folder they are "
                          "written to\n");
    free(err);
    td_rmdir(dir);
}

/* SQL in a program's job: the job's checkpoints are its config's, and a
 * SET of them is refused rather than ignored. */
Test(sql_checkpoints, a_programs_job_refuses_checkpoint_settings)
{
    static const char *const sets[] = {
        "SET 'execution.checkpointing.interval' = '1 s';",
        "SET 'execution.checkpointing.mode' = 'AT_LEAST_ONCE';",
        "SET 'state.checkpoints.dir' = 'ckpt';",
        "SET 'execution.savepoint.path' = 'ckpt';",
    };
    for (size_t i = 0; i < sizeof sets / sizeof *sets; i++) {
        weir_job *job = NULL;
        weir_table_env *env = NULL;
        cr_assert_eq(weir_job_create(NULL, &job), 0);
        cr_assert_eq(weir_table_env_create(job, NULL, &env), 0);
        cr_assert_neq(weir_table_env_execute_sql(env, sets[i]), 0, "%s", sets[i]);
        cr_assert(strstr(weir_job_error(job), "the job is the program's: its checkpoints are "
                                              "its weir_job_config's"),
                  "%s", weir_job_error(job));
        weir_table_env_destroy(env);
        weir_job_destroy(job);
    }
}

/* ---- Kafka -> SQL -> Kafka, exactly once across a kill ------------------------- */

/* Produces {"id": i, "v": i} for i in [from, to) into topic `in`'s two
 * partitions. */
static void produce_ids(weir_kafka_mock *m, int from, int to)
{
    rd_kafka_t *p = tk_producer(m);
    for (int i = from; i < to; i++) {
        char v[64];
        int n = snprintf(v, sizeof v, "{\"id\": %d, \"v\": %d}", i, i);
        cr_assert_eq(tk_produce(p, "in", i % 2, v, (size_t)n, -1, NULL, NULL), 0);
    }
    cr_assert_eq(rd_kafka_flush(p, 30000), 0);
    rd_kafka_destroy(p);
}

/* The ids a read_committed consumer finds in topic `out` (one partition),
 * each counted in seen[id] (ids below max); the number of rows. */
static int committed_ids(weir_kafka_mock *m, int *seen, int max)
{
    char err[512];
    rd_kafka_conf_t *conf = rd_kafka_conf_new();
    rd_kafka_conf_set(conf, "bootstrap.servers", weir_kafka_mock_bootstrap(m), err, sizeof err);
    rd_kafka_conf_set(conf, "group.id", "checker", err, sizeof err);
    rd_kafka_conf_set(conf, "isolation.level", "read_committed", err, sizeof err);
    rd_kafka_conf_set(conf, "enable.partition.eof", "true", err, sizeof err);
    rd_kafka_conf_set(conf, "enable.auto.commit", "false", err, sizeof err);
    rd_kafka_t *rk = rd_kafka_new(RD_KAFKA_CONSUMER, conf, err, sizeof err);
    cr_assert_not_null(rk, "%s", err);
    rd_kafka_topic_partition_list_t *l = rd_kafka_topic_partition_list_new(1);
    rd_kafka_topic_partition_list_add(l, "out", 0)->offset = RD_KAFKA_OFFSET_BEGINNING;
    cr_assert_eq(rd_kafka_assign(rk, l), 0);
    rd_kafka_topic_partition_list_destroy(l);
    memset(seen, 0, (size_t)max * sizeof *seen);
    int rows = 0;
    time_t deadline = time(NULL) + 30;
    for (bool eof = false; !eof;) {
        cr_assert(time(NULL) < deadline, "reading the output took over 30 s");
        rd_kafka_message_t *msg = rd_kafka_consumer_poll(rk, 100);
        if (!msg)
            continue;
        if (msg->err == RD_KAFKA_RESP_ERR__PARTITION_EOF) {
            eof = true;
        } else if (!msg->err && msg->payload) {
            char v[128] = "";
            memcpy(v, msg->payload, msg->len < 127 ? msg->len : 127);
            int id = -1, w = -1;
            if (sscanf(v, "{\"id\":%d,\"w\":%d}", &id, &w) == 2) {
                cr_assert_eq(w, 2 * id, "%s", v);
                cr_assert(id >= 0 && id < max, "%s", v);
                seen[id]++;
                rows++;
            }
        }
        rd_kafka_message_destroy(msg);
    }
    rd_kafka_consumer_close(rk);
    rd_kafka_destroy(rk);
    return rows;
}

#define KAFKA_IDS 2000

/* An unbounded `weir sql` INSERT from a topic into another with the
 * exactly-once sink, killed with SIGKILL after a checkpoint committed rows,
 * more input produced, restored with --from-checkpoint and stopped with a
 * savepoint once its output is whole: every id is in the output once. */
Test(sql_checkpoints, kafka_to_kafka_is_exactly_once_across_a_kill, .timeout = 180)
{
    weir_kafka_mock *m = tk_mock();
    cr_assert_eq(weir_kafka_mock_topic(m, "in", 2), 0);
    cr_assert_eq(weir_kafka_mock_topic(m, "out", 1), 0);
    produce_ids(m, 0, KAFKA_IDS / 2);
    char *dir = td_tmpdir();
    char sql[2048];
    int n = snprintf(sql, sizeof sql,
                     "SET 'parallelism.default' = '2';\n"
                     "SET 'execution.checkpointing.interval' = '50 ms';\n"
                     "SET 'state.checkpoints.dir' = 'ckpt';\n"
                     "CREATE TABLE src (id BIGINT, v BIGINT) WITH ('connector' = 'kafka',\n"
                     "  'topic' = 'in', 'properties.bootstrap.servers' = '%s',\n"
                     "  'format' = 'json', 'scan.startup.mode' = 'earliest-offset');\n"
                     "CREATE TABLE dst (id BIGINT, w BIGINT) WITH ('connector' = 'kafka',\n"
                     "  'topic' = 'out', 'properties.bootstrap.servers' = '%s',\n"
                     "  'format' = 'json', 'sink.delivery-guarantee' = 'exactly-once',\n"
                     "  'sink.transactional-id-prefix' = 'sql-eo');\n"
                     "INSERT INTO dst SELECT id, v * 2 FROM src;\n",
                     weir_kafka_mock_bootstrap(m), weir_kafka_mock_bootstrap(m));
    td_write(td_path(dir, "q.sql"), sql, (size_t)n);
    static int seen[KAFKA_IDS];

    /* the first run: killed once some rows are committed and a checkpoint
     * after them completed */
    pid_t pid = spawn_sql(dir, "out1.txt", "err1.txt", NULL, NULL);
    long before = -1;
    for (int i = 0; i < 3000; i++) {
        int status;
        cr_assert_eq(waitpid(pid, &status, WNOHANG), 0, "weir sql ended: status %d", status);
        if (before < 0 && committed_ids(m, seen, KAFKA_IDS) > 0)
            before = newest_complete(td_path(dir, "ckpt"));
        if (before >= 0 && newest_complete(td_path(dir, "ckpt")) >= before + 1)
            break;
        sleep_ms(20);
    }
    cr_assert_geq(before, 0, "nothing was committed in time");
    cr_assert_eq(kill(pid, SIGKILL), 0);
    int status;
    cr_assert_eq(waitpid(pid, &status, 0), pid);

    /* more input while it is down, then the restored run until the output
     * holds every id, stopped with a savepoint */
    produce_ids(m, KAFKA_IDS / 2, KAFKA_IDS);
    pid = spawn_sql(dir, "out2.txt", "err2.txt", "--from-checkpoint", "ckpt");
    int rows = 0;
    for (int i = 0; i < 3000 && rows < KAFKA_IDS; i++) {
        cr_assert_eq(waitpid(pid, &status, WNOHANG), 0, "the restored run ended: %s",
                     td_read(td_path(dir, "err2.txt"), NULL));
        rows = committed_ids(m, seen, KAFKA_IDS);
        sleep_ms(20);
    }
    cr_assert_eq(kill(pid, SIGTERM), 0);
    status = wait_bounded(pid);
    cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "status %d: %s", status,
              td_read(td_path(dir, "err2.txt"), NULL));
    rows = committed_ids(m, seen, KAFKA_IDS);
    cr_assert_eq(rows, KAFKA_IDS, "%d rows committed for %d ids", rows, KAFKA_IDS);
    for (int i = 0; i < KAFKA_IDS; i++)
        cr_assert_eq(seen[i], 1, "id %d committed %d times", i, seen[i]);
    td_rmdir(dir);
    weir_kafka_mock_destroy(m);
}
