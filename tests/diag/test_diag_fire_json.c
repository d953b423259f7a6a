/* test_diag_fire_json.c — a window_fire event's JSON line written in one
 * pass (diag/diag_events.c, fire_json_direct) is byte for byte the general
 * path's, which writes it member by member beside its msgpack form.
 *
 * The collector takes the one-pass way when only JSON text is wanted and
 * the key needs no escaping; a msgpack file makes it take the general way.
 * So each record is encoded twice, once each way, and the texts compared:
 * random times, counts and firings, MIN and MAX timestamps, the cleanup
 * flag, operator names that need escaping, keys that need it (which must
 * fall back, and still agree). Every encoding must leave a whole event.
 */
#include <criterion/criterion.h>
#include <msgpack.h>
#include <string.h>

#include "diag_internal.h"
#include "job_state.h"
#include "support/weir_testutil.h"
#include "test_diag_support.h"

/* An encoder over the job's operators, JSON only or JSON and msgpack. */
static void encoder(struct weir__diag *d, weir_job *job, bool msgpack)
{
    memset(d, 0, sizeof *d);
    d->job = job;
    d->want_json = true;
    d->want_msgpack = msgpack;
    msgpack_sbuffer_init(&d->sbuf);
}

static void encoder_free(struct weir__diag *d)
{
    msgpack_sbuffer_destroy(&d->sbuf);
    weir__buf_free(&d->json);
    for (int i = 0; d->op_json && i < d->nop_json; i++)
        weir__buf_free(&d->op_json[i]);
    free(d->op_json);
}

/* The record's JSON line by d (a copy). */
static char *encode(struct weir__diag *d, const weir__diag_rec *r)
{
    weir__diag_encode_rec(d, r);
    cr_assert(weir__diag_encoded_whole(d), "the event is not whole");
    cr_assert(!d->jw.invalid && d->jw.depth == 0, "the JSON writer is left open");
    cr_assert_not(d->json.failed);
    return strndup(d->json.data, d->json.len);
}

static int64_t pick_ts(uint64_t *rng)
{
    *rng = tu_mix(*rng);
    switch (*rng % 8) {
    case 0:
        return WEIR_TS_MIN;
    case 1:
        return WEIR_TS_MAX;
    case 2:
        return (int64_t)(*rng >> 3) - (int64_t)(UINT64_MAX >> 4); /* any sign, any size */
    default:
        return (int64_t)((*rng >> 8) % 2000000000000ull); /* milliseconds, 13 digits */
    }
}

static void random_key(uint64_t *rng, char *key, size_t size)
{
    static const char plain[] = "abcXYZ019 _-:./(){}[]";
    static const char *const odd[] = {"\"", "\\", "\n", "\x01", "\xc3\xa9", "\xff"};
    *rng = tu_mix(*rng);
    size_t n = (size_t)(*rng % 12), k = 0;
    bool escape = (*rng >> 8) % 4 == 0;
    for (size_t i = 0; i < n && k + 3 < size; i++) {
        *rng = tu_mix(*rng);
        if (escape && *rng % 5 == 0) {
            const char *o = odd[(*rng >> 8) % (sizeof odd / sizeof *odd)];
            for (; *o && k + 1 < size; o++)
                key[k++] = *o;
        } else {
            key[k++] = plain[(*rng >> 8) % (sizeof plain - 1)];
        }
    }
    key[k] = '\0';
}

Test(diag_fire_json, one_pass_text_is_the_general_paths)
{
    weir_job *job = tu_job(&(weir_job_config){.workers = 1});
    weir_generator_config g = {.partitions = 1, .keys = 5, .rate = 1000, .count = 10, .seed = 1};
    weir_stream *s = weir_source_generator(job, &g);
    weir_stream *w = td_window(weir_stream_key_by(s, td_gen_keys()), "win \"dow\" \\ \xc3\xa9", 2);
    cr_assert_not_null(w, "%s", weir_job_error(job));
    struct weir__diag one, general;
    encoder(&one, job, false);
    encoder(&general, job, true);
    int nops = job->graph.nnodes;
    uint64_t rng = 12345;
    int direct = 0;
    for (int i = 0; i < 20000; i++) {
        weir__diag_rec r;
        memset(&r, 0, sizeof r);
        r.kind = WEIR_DIAG_KIND_WINDOW_FIRE;
        rng = tu_mix(rng);
        r.op = (int)(rng % (uint64_t)nops);
        r.t = (int64_t)((rng >> 8) % 100000000);
        r.subtask = (int32_t)((rng >> 40) % 300);
        r.firing = (rng >> 50) % 3 == 0 ? (int32_t)((rng >> 52) % 1000) : 0;
        r.flag = (rng >> 60) & 1;
        rng = tu_mix(rng);
        r.count = (rng & 1) ? (int64_t)(rng >> 1) : (int64_t)(rng % 1000);
        r.start = pick_ts(&rng);
        r.end = pick_ts(&rng);
        r.wm = pick_ts(&rng);
        r.input = -1;
        random_key(&rng, r.key, sizeof r.key);
        if (i % 100 == 0) { /* every number at its longest */
            r.t = r.count = INT64_MIN;
            r.subtask = r.firing = INT32_MIN;
            r.start = r.end = r.wm = WEIR_TS_MIN + 1;
            r.flag = true;
            memset(r.key, 'k', sizeof r.key - 1);
            r.key[sizeof r.key - 1] = '\0';
        }
        char *a = encode(&one, &r);
        char *b = encode(&general, &r);
        cr_assert_str_eq(a, b, "record %d: the one-pass line differs from the general one", i);
        direct += strchr(r.key, '"') == NULL && strchr(r.key, '\\') == NULL &&
                  strpbrk(r.key, "\n\x01\xc3\xff") == NULL;
        free(a);
        free(b);
    }
    /* both ways were taken: most keys are plain, some need escaping */
    cr_assert_gt(direct, 10000);
    cr_assert_lt(direct, 20000);
    encoder_free(&one);
    encoder_free(&general);
    td_destroy_job(job);
}
