/* sql_settings.c — a session's settings: SET 'key' = 'value' checked and
 * kept (Flink's names where Flink has the setting, weir.* where it is
 * weir's own), and the job configuration each query's job is made with. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sql_internal.h"
#include "sql_text.h"

static const char *const set_keys[] = {"parallelism.default", "weir.string-capacity",
                                       "weir.capture.file", "weir.capture.level", "weir.clock",
                                       "pipeline.auto-watermark-interval", NULL};

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

int sql_settings_set(weir_sql_session *s, const sql_script *sc, const sql_stmt *st)
{
    const char *k = st->set_key, *v = st->set_value;
    long x;
    if (strcmp(k, "parallelism.default") == 0) {
        if (set_int(v, 1, 1024, &x))
            return set_bad(s, sc, st, "expected a parallelism from 1 to 1024");
        s->parallelism = (int)x;
    } else if (strcmp(k, "weir.string-capacity") == 0) {
        if (set_int(v, 1, 65535, &x))
            return set_bad(s, sc, st, "expected a capacity from 1 to 65535 bytes");
        s->string_capacity = (uint32_t)x;
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
    } else if (strcmp(k, "pipeline.auto-watermark-interval") == 0) {
        /* Flink's 0 disables periodic watermarks: a periodic strategy then
         * emits only its final watermark (on-event ones are unchanged). */
        int64_t ms;
        if (sql_duration_ms(v, &ms) || ms < 0)
            return set_bad(s, sc, st, "expected a duration ('200 ms'), or 0 for no periodic "
                           "watermarks");
        s->watermark_interval_ms = ms ? ms : WEIR_DISABLED;
    } else {
        const char *hint = NULL;
        for (int i = 0; set_keys[i]; i++)
            if (sql_edit_distance(k, set_keys[i]) <= 3)
                hint = set_keys[i];
        if (hint) {
            sql_fail(s, sc, st->at.start, "unknown setting '%s' (did you mean '%s'?)", k, hint);
            return WEIR_EINVAL;
        }
        sql_fail(s, sc, st->at.start, "unknown setting '%s' (weir knows parallelism.default, "
                 "weir.string-capacity, weir.capture.file, weir.capture.level, weir.clock, "
                 "pipeline.auto-watermark-interval)", k);
        return WEIR_EINVAL;
    }
    return 0;
}

void sql_settings_job_config(const weir_sql_session *s, weir_job_config *jc)
{
    *jc = (weir_job_config){
        .workers = s->cfg.workers,
        .parallelism = s->parallelism,
        .clock = s->clock,
        .watermark_interval_ms = s->watermark_interval_ms,
        .diag = {.level = s->capture_level},
    };
}
