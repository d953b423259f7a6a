/* sql_settings.c — a session's settings: SET 'key' = 'value' checked and
 * kept (Flink's names where Flink has the setting, weir.* where it is
 * weir's own), and the job configuration each query's job is made with. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "sql_internal.h"
#include "sql_text.h"

static const char *const set_keys[] = {
    "parallelism.default", "weir.string-capacity", "weir.collection-capacity",
    "weir.capture.file", "weir.capture.level",
    "weir.clock", "pipeline.auto-watermark-interval", "execution.checkpointing.interval",
    "execution.checkpointing.mode", "state.checkpoints.dir", "execution.savepoint.path",
    "table.exec.source.idle-timeout", "table.local-time-zone", "table.exec.state.ttl",
    "sql-client.execution.result-mode", NULL};

/* Flink's shortest checkpoint interval (CheckpointConfig.MINIMAL_CHECKPOINT_TIME). */
#define MIN_CHECKPOINT_INTERVAL_MS 10

/* The keys of the job's checkpoints, which a program's job takes from its
 * weir_job_config instead. */
static bool checkpoint_key(const char *k)
{
    static const char *const keys[] = {"execution.checkpointing.interval",
                                       "execution.checkpointing.mode", "state.checkpoints.dir",
                                       "execution.savepoint.path"};
    for (size_t i = 0; i < sizeof keys / sizeof *keys; i++)
        if (strcmp(k, keys[i]) == 0)
            return true;
    return false;
}

/* A folder of a setting into `out`: a local path, or Flink's file:// URI of
 * one; NULL, or why not. */
static const char *folder_value(const char *v, char *out, size_t size)
{
    const char *path = v;
    if (strncmp(v, "file://", 7) == 0)
        path = v + 7;
    else if (strstr(v, "://"))
        return "weir keeps checkpoints in local folders only: a path, or file:///path";
    if (!path[0])
        return "expected a folder";
    if (strlen(path) >= size)
        return "the path is too long";
    snprintf(out, size, "%s", path);
    return NULL;
}

static int set_bad(weir_sql_session *s, const sql_script *sc, const sql_stmt *st,
                   const char *what)
{
    sql_fail(s, sc, st->at.start, "SET '%s' = '%s': %s", st->set_key, st->set_value, what);
    return WEIR_EINVAL;
}

static int set_int(const char *v, long lo, long hi, long *out)
{
    char *end;
    errno = 0;
    long x = strtol(v, &end, 10);
    if (errno || end == v || *end || x < lo || x > hi)
        return -1;
    *out = x;
    return 0;
}

/* Settings of the job itself, which a session of a program's env cannot
 * change: the program made its job (weir_job_config, weir_table_config). */
static bool job_key(const char *k)
{
    static const char *const keys[] = {"parallelism.default", "weir.capture.file",
                                       "weir.capture.level", "weir.clock",
                                       "pipeline.auto-watermark-interval",
                                       "table.exec.source.idle-timeout",
                                       "table.local-time-zone", "table.exec.state.ttl", NULL};
    for (int i = 0; keys[i]; i++)
        if (strcmp(k, keys[i]) == 0)
            return true;
    return false;
}

/* The settings as a session starts (its config's capture and restore
 * folder). */
static void settings_defaults(weir_sql_session *s)
{
    s->parallelism = 1;
    s->string_capacity = 0;
    s->collection_capacity = 0;
    s->zone = NULL;
    if (s->env) { /* a session of a program's env starts from the env's */
        const weir_table_config *tc = weir_table_env_config(s->env);
        s->string_capacity = tc->string_capacity;
        s->zone = tc->time_zone;
    }
    s->capture_level = WEIR_DIAG_STANDARD;
    s->clock = WEIR_CLOCK_VIRTUAL;
    s->clock_set = false;
    s->watermark_interval_ms = 0;
    s->source_idle_ms = 0;
    s->checkpoint_interval_ms = 0;
    s->checkpoint_mode = (weir_checkpoint_mode)0;
    s->checkpoint_dir[0] = '\0';
    memcpy(s->savepoint_path, s->default_savepoint, sizeof s->savepoint_path);
    memcpy(s->capture_path, s->default_capture, sizeof s->capture_path);
    s->cfg.capture_path = s->capture_path[0] ? s->capture_path : NULL;
    s->jobs = 0;
    s->interval_at = s->clock_at = s->savepoint_at = (sql_place){0};
}

static int set_one(weir_sql_session *s, const sql_script *sc, const sql_stmt *st);

/* The SET (sc, st) in force: the key's earlier one replaced. */
static int remember(weir_sql_session *s, const sql_script *sc, const sql_stmt *st)
{
    for (int i = 0; i < s->nsets; i++)
        if (strcmp(s->sets[i].st->set_key, st->set_key) == 0) {
            memmove(&s->sets[i], &s->sets[i + 1], (size_t)(s->nsets - i - 1) * sizeof *s->sets);
            s->nsets--;
            break;
        }
    if (s->nsets == s->sets_cap) {
        int cap = s->sets_cap ? 2 * s->sets_cap : 16;
        sql_place *v = realloc(s->sets, (size_t)cap * sizeof *v);
        if (!v) {
            snprintf(s->err, sizeof s->err, "out of memory");
            return WEIR_ENOMEM;
        }
        s->sets = v;
        s->sets_cap = cap;
    }
    s->sets[s->nsets++] = (sql_place){sc, st};
    return 0;
}

static int by_key(const void *a, const void *b)
{
    return strcmp((*(const sql_place *const *)a)->st->set_key,
                  (*(const sql_place *const *)b)->st->set_key);
}

/* SET alone: the SETs in force, by key. */
static int list_settings(weir_sql_session *s)
{
    const sql_place **v = malloc((size_t)(s->nsets ? s->nsets : 1) * sizeof *v);
    const char **cells = malloc((size_t)(s->nsets ? 2 * s->nsets : 1) * sizeof *cells);
    int r = WEIR_ENOMEM;
    if (v && cells) {
        for (int i = 0; i < s->nsets; i++)
            v[i] = &s->sets[i];
        qsort(v, (size_t)s->nsets, sizeof *v, by_key);
        for (int i = 0; i < s->nsets; i++) {
            cells[2 * i] = v[i]->st->set_key;
            cells[2 * i + 1] = v[i]->st->set_value;
        }
        static const char *const headers[] = {"key", "value"};
        r = sql_print_tableau(s, 2, headers, cells, s->nsets);
    } else {
        snprintf(s->err, sizeof s->err, "out of memory");
    }
    free(v);
    free(cells);
    return r;
}

int sql_settings_set(weir_sql_session *s, const sql_script *sc, const sql_stmt *st)
{
    if (!st->set_key)
        return list_settings(s);
    int r = set_one(s, sc, st);
    return r ? r : remember(s, sc, st);
}

int sql_settings_reset(weir_sql_session *s, const sql_script *sc, const sql_stmt *st)
{
    (void)sc;
    int kept = 0;
    for (int i = 0; i < s->nsets; i++)
        if (st->set_key && strcmp(s->sets[i].st->set_key, st->set_key) != 0)
            s->sets[kept++] = s->sets[i];
    s->nsets = kept;
    settings_defaults(s);
    /* the SETs left, replayed onto the defaults: each was accepted once */
    for (int i = 0; i < s->nsets; i++) {
        int r = set_one(s, s->sets[i].sc, s->sets[i].st);
        if (r)
            return r;
    }
    return 0;
}

const char *weir_sql_setting(const weir_sql_session *s, const char *key)
{
    for (int i = 0; s && key && i < s->nsets; i++)
        if (strcmp(s->sets[i].st->set_key, key) == 0)
            return s->sets[i].st->set_value;
    return NULL;
}

void sql_settings_free(weir_sql_session *s)
{
    free(s->sets);
    s->sets = NULL;
    s->nsets = s->sets_cap = 0;
}

static int set_one(weir_sql_session *s, const sql_script *sc, const sql_stmt *st)
{
    const char *k = st->set_key, *v = st->set_value;
    long x;
    if (s->env && job_key(k))
        return set_bad(s, sc, st, "the job is the program's: set it in its weir_job_config "
                       "(parallelism, diag, clock, watermark_interval_ms) or its "
                       "weir_table_config (source_idle_timeout_ms, state_ttl_ms)");
    if (strcmp(k, "parallelism.default") == 0) {
        if (set_int(v, 1, 1024, &x))
            return set_bad(s, sc, st, "expected a parallelism from 1 to 1024");
        s->parallelism = (int)x;
    } else if (strcmp(k, "weir.string-capacity") == 0) {
        if (set_int(v, 1, 65535, &x))
            return set_bad(s, sc, st, "expected a capacity from 1 to 65535 bytes");
        s->string_capacity = (uint32_t)x;
    } else if (strcmp(k, "weir.collection-capacity") == 0) {
        if (set_int(v, 1, WEIR_COLLECTION_MAX_CAPACITY, &x))
            return set_bad(s, sc, st, "expected a capacity from 1 to 4096 elements");
        s->collection_capacity = (uint32_t)x;
    } else if (strcmp(k, "weir.capture.file") == 0) {
        if (strlen(v) >= sizeof s->capture_path)
            return set_bad(s, sc, st, "the path is too long");
        snprintf(s->capture_path, sizeof s->capture_path, "%s", v);
        s->jobs = 0;
    } else if (strcmp(k, "weir.capture.level") == 0) {
        static const char *const names[] = {"off", "summary", "standard", "verbose"};
        static const weir_diag_level levels[] = {WEIR_DIAG_OFF, WEIR_DIAG_SUMMARY,
                                                 WEIR_DIAG_STANDARD, WEIR_DIAG_VERBOSE};
        int i = 0;
        while (i < 4 && strcmp(v, names[i]) != 0)
            i++;
        if (i == 4)
            return set_bad(s, sc, st, "expected off, summary, standard or verbose");
        s->capture_level = levels[i];
    } else if (strcmp(k, "weir.clock") == 0) {
        if (strcmp(v, "virtual") == 0)
            s->clock = WEIR_CLOCK_VIRTUAL;
        else if (strcmp(v, "system") == 0)
            s->clock = WEIR_CLOCK_SYSTEM;
        else
            return set_bad(s, sc, st, "expected virtual or system");
        s->clock_set = true;
        s->clock_at = (sql_place){sc, st};
    } else if (strcmp(k, "pipeline.auto-watermark-interval") == 0) {
        /* Flink's 0 disables periodic watermarks: a periodic strategy then
         * emits only its final watermark (on-event ones are unchanged). */
        int64_t ms;
        if (sql_duration_ms(v, &ms) || ms < 0)
            return set_bad(s, sc, st, "expected a duration ('200 ms'), or 0 for no periodic "
                           "watermarks");
        s->watermark_interval_ms = ms ? ms : WEIR_DISABLED;
    } else if (strcmp(k, "table.exec.source.idle-timeout") == 0) {
        /* Flink's: the idle timeout of a table whose WATERMARK has no
         * 'scan.watermark.idle-timeout' of its own; 0 disables it */
        int64_t ms;
        if (sql_duration_ms(v, &ms) || ms < 0)
            return set_bad(s, sc, st, "expected a duration ('5 s'), or 0 for none");
        s->source_idle_ms = ms;
    } else if (strcmp(k, "table.exec.state.ttl") == 0) {
        /* Flink's: idle state of regular joins and group aggregates is
         * dropped after this long (processing time); 0 keeps it forever */
        int64_t ms;
        if (sql_duration_ms(v, &ms) || ms < 0)
            return set_bad(s, sc, st, "expected a duration ('1 h', '3600000 ms'), or 0 to keep "
                           "state forever");
        s->state_ttl_ms = ms;
    } else if (strcmp(k, "table.local-time-zone") == 0) {
        /* Flink's zone names, refused with its message; weir's default is
         * UTC, not the machine's zone: results do not change with where
         * they run ('default' asks for the machine's, as Flink's default) */
        const weir_time_zone *z;
        char why[512];
        int r = weir_time_zone_get(v, &z, why, sizeof why);
        if (r == WEIR_ENOMEM) {
            snprintf(s->err, sizeof s->err, "out of memory");
            return r;
        }
        if (r)
            return set_bad(s, sc, st, why);
        s->zone = z;
    } else if (strcmp(k, "sql-client.execution.result-mode") == 0) {
        /* the shell's (sql_shell.c reads it with weir_sql_setting); a
         * file's SELECT prints its changelog whatever it says */
        if (strcasecmp(v, "changelog") != 0 && strcasecmp(v, "table") != 0 &&
            strcasecmp(v, "tableau") != 0)
            return set_bad(s, sc, st, "expected table, changelog or tableau");
    } else if (s->env && checkpoint_key(k)) {
        /* A session of weir_table_env_execute_sql plans into the program's
         * job, made with the program's configuration. */
        return set_bad(s, sc, st, "the job is the program's: its checkpoints are its "
                       "weir_job_config's (checkpoint.interval_ms, dir, mode, restore_from)");
    } else if (strcmp(k, "execution.checkpointing.interval") == 0) {
        int64_t ms;
        if (sql_duration_ms(v, &ms))
            return set_bad(s, sc, st, "expected a duration ('10 s', '500 ms')");
        if (ms < MIN_CHECKPOINT_INTERVAL_MS)
            return set_bad(s, sc, st, "Checkpoint interval must be larger than or equal to "
                           "10 ms");
        s->checkpoint_interval_ms = ms;
        s->interval_at = (sql_place){sc, st};
    } else if (strcmp(k, "execution.checkpointing.mode") == 0) {
        if (strcasecmp(v, "EXACTLY_ONCE") == 0)
            s->checkpoint_mode = WEIR_CHECKPOINT_EXACTLY_ONCE;
        else if (strcasecmp(v, "AT_LEAST_ONCE") == 0)
            s->checkpoint_mode = WEIR_CHECKPOINT_AT_LEAST_ONCE;
        else
            return set_bad(s, sc, st, "expected EXACTLY_ONCE or AT_LEAST_ONCE");
    } else if (strcmp(k, "state.checkpoints.dir") == 0 ||
               strcmp(k, "execution.savepoint.path") == 0) {
        bool dir = k[0] == 's';
        char *out = dir ? s->checkpoint_dir : s->savepoint_path;
        char path[sizeof s->checkpoint_dir];
        const char *why = folder_value(v, path, sizeof path);
        if (why)
            return set_bad(s, sc, st, why);
        memcpy(out, path, sizeof path);
        if (!dir)
            s->savepoint_at = (sql_place){sc, st};
    } else {
        const char *hint = NULL;
        for (int i = 0; set_keys[i]; i++)
            if (sql_edit_distance(k, set_keys[i]) <= 3)
                hint = set_keys[i];
        if (hint) {
            sql_fail(s, sc, st->at.start, "unknown setting '%s' (did you mean '%s'?)", k, hint);
            return WEIR_EINVAL;
        }
        char known[512] = "";
        size_t n = 0;
        for (int i = 0; set_keys[i]; i++)
            n += (size_t)snprintf(known + n, sizeof known - n, "%s%s", i ? ", " : "",
                                  set_keys[i]);
        sql_fail(s, sc, st->at.start, "unknown setting '%s' (weir knows %s)", k, known);
        return WEIR_EINVAL;
    }
    return 0;
}

int sql_settings_init(weir_sql_session *s)
{
    const char *from = s->cfg.restore_from;
    s->cfg.restore_from = NULL;
    memcpy(s->default_capture, s->capture_path, sizeof s->default_capture);
    if (!from)
        return 0;
    if (!from[0] || strlen(from) >= sizeof s->savepoint_path)
        return WEIR_EINVAL;
    snprintf(s->savepoint_path, sizeof s->savepoint_path, "%s", from);
    memcpy(s->default_savepoint, s->savepoint_path, sizeof s->default_savepoint);
    return 0;
}

/* A refusal at the SET that asked for what cannot be had, or without a
 * place when none did. */
static int refuse_at(weir_sql_session *s, sql_place p, const char *why)
{
    if (p.sc)
        sql_fail(s, p.sc, p.st->at.start, "SET '%s' = '%s': %s", p.st->set_key,
                 p.st->set_value, why);
    else
        snprintf(s->err, sizeof s->err, "%s", why);
    return WEIR_EINVAL;
}

int sql_settings_job_config(weir_sql_session *s, weir_job_config *jc)
{
    *jc = (weir_job_config){
        .workers = s->cfg.workers,
        .parallelism = s->parallelism,
        .clock = s->clock,
        .watermark_interval_ms = s->watermark_interval_ms,
        .diag = {.level = s->capture_level},
    };
    if (s->savepoint_path[0]) {
        /* a folder that is not there is said before anything is planned
         * (the job says what is wrong with one that is) */
        struct stat st;
        const char *problem = NULL;
        if (stat(s->savepoint_path, &st) != 0)
            problem = errno == ENOENT || errno == ENOTDIR ? "no such folder" : strerror(errno);
        else if (!S_ISDIR(st.st_mode))
            problem = "not a folder";
        if (problem) {
            if (s->savepoint_at.sc)
                return refuse_at(s, s->savepoint_at, problem);
            snprintf(s->err, sizeof s->err, "restoring from %.900s: %s", s->savepoint_path,
                     problem);
            return WEIR_EINVAL;
        }
        jc->checkpoint.restore_from = s->savepoint_path;
    }
    bool interval = s->checkpoint_interval_ms > 0;
    if (!interval && !s->cfg.require_checkpoints)
        return 0;
    if (!s->checkpoint_dir[0])
        return interval ? refuse_at(s, s->interval_at, "checkpoints need a folder: SET "
                                    "'state.checkpoints.dir' too")
                        : refuse_at(s, (sql_place){0}, "a query stopped with a savepoint runs "
                                    "with checkpoints: SET 'state.checkpoints.dir', the folder "
                                    "they are written to");
    /* Checkpoints are taken in processing time, which the virtual clock
     * moves only when the whole job waits: they need the system clock,
     * which a query that checkpoints runs on unless told otherwise. */
    if (s->clock_set && s->clock == WEIR_CLOCK_VIRTUAL)
        return refuse_at(s, s->clock_at, "checkpoints need the system clock (the virtual "
                         "clock moves only when the whole job waits)");
    jc->clock = WEIR_CLOCK_SYSTEM;
    jc->checkpoint.interval_ms = s->checkpoint_interval_ms;
    jc->checkpoint.dir = s->checkpoint_dir;
    jc->checkpoint.mode = s->checkpoint_mode;
    return 0;
}
