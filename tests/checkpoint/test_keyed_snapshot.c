/* test_keyed_snapshot.c — keyed state and timers through a snapshot, by key
 * group (checkpoint/keyed_snapshot.h).
 *
 * The key-group arithmetic is Flink's KeyGroupRangeAssignment: every
 * parallelism's ranges are contiguous, cover every key group once, and agree
 * with the subtask a key group maps to. The round trip is the property a
 * checkpoint needs: a windowed operator (tumbling windows with allowed
 * lateness, so it keeps panes in list state and cleanup timers) runs the
 * first half of an input, its state is snapshotted and restored into one,
 * two or three fresh operators (each keeping the key groups its range owns
 * and fed only its keys), which run the second half; together they emit
 * exactly what one uninterrupted operator emits. A restore into an operator
 * that declared other states is refused. The bytes packed are within the
 * bound the snapshot's buffer is made with (weir__keyed_snapshot_bound).
 */
#include <criterion/criterion.h>
#include <msgpack.h>

#include "keyed_snapshot.h"
#include "window/test_window_util.h"
#include "task.h"
#include "weir/error.h"

#define MAXP 128u

Test(keyed_snapshot, key_group_ranges_partition_the_key_groups)
{
    for (uint32_t maxp = 1; maxp <= 300; maxp += 37) {
        for (uint32_t p = 1; p <= maxp && p <= 64; p++) {
            uint32_t next = 0;
            for (uint32_t i = 0; i < p; i++) {
                uint32_t first, last;
                weir__key_group_range(maxp, p, i, &first, &last);
                cr_assert_eq(first, next, "maxp %u p %u subtask %u", maxp, p, i);
                cr_assert_geq(last + 1, first + 1);
                for (uint32_t kg = first; kg <= last; kg++)
                    cr_assert_eq(weir__key_group_subtask(maxp, p, kg), i, "maxp %u p %u kg %u",
                                 maxp, p, kg);
                next = last + 1;
            }
            cr_assert_eq(next, maxp);
        }
    }
}

/* The input: 40 keys, 400 records over 200 ms, 1 in 10 up to 12 ms late;
 * a watermark every 10 records (the largest timestamp so far - 1). */
#define NREC 400

static void input_record(int i, char key[8], int64_t *ts)
{
    snprintf(key, 8, "k%d", (i * 7) % 40);
    *ts = i / 2 - (i % 10 == 3 ? 12 : 0);
}

static uint32_t key_group_of(const char *key)
{
    char k[8] = {0};
    snprintf(k, sizeof k, "%s", key);
    return weir__key_group(weir__hash_bytes(k, 8), MAXP);
}

/* Feeds records [from, to) with their watermarks to t; with n_sub > 1 only
 * the keys whose key group subtask `sub` of n_sub owns. */
static void feed(wt *t, int from, int to, uint32_t sub, uint32_t n_sub, int64_t *wm)
{
    for (int i = from; i < to; i++) {
        char key[8];
        int64_t ts;
        input_record(i, key, &ts);
        if (weir__key_group_subtask(MAXP, n_sub, key_group_of(key)) == sub)
            wt_rec(t, key, i, ts);
        if (i % 10 == 9) {
            int64_t w = i / 2 - 1;
            if (w > *wm) {
                *wm = w;
                wt_wm(t, w);
            }
        }
    }
}

static weir_window_spec window_spec(void)
{
    weir_window_spec s = wt_tumbling_sum(10, 0);
    s.allowed_lateness_ms = 5;
    s.late_tag = WEIR_WINDOW_LATE_TAG;
    return s;
}

/* What an operator emitted, without the watermarks (each restored operator
 * forwards every watermark), as sortable lines. */
static size_t lines_of(const wt *t, char (*out)[128], size_t at)
{
    for (size_t i = 0; i < t->n; i++) {
        const wt_item *it = &t->items[i];
        if (it->what == 3)
            continue;
        if (it->what == 0)
            snprintf(out[at++], 128, "R %s %lld [%lld,%lld) n=%lld f=%d", it->r.key,
                     (long long)it->r.value, (long long)it->r.start, (long long)it->r.end,
                     (long long)it->r.count, it->r.firing);
        else
            snprintf(out[at++], 128, "%c %s %lld @%lld", it->what == 1 ? 'L' : 'D', it->e.key,
                     (long long)it->e.value, (long long)it->ts);
    }
    return at;
}

static int cmp_line(const void *a, const void *b)
{
    return strcmp(a, b);
}

static void snapshot_of(wt *t, msgpack_sbuffer *sb)
{
    msgpack_sbuffer_init(sb);
    msgpack_packer pk;
    msgpack_packer_init(&pk, sb, msgpack_sbuffer_write);
    cr_assert_eq(weir__keyed_snapshot(weir__harness_ctx(t->h), MAXP, &pk), 0);
    /* the snapshot's buffer is made this large before packing */
    size_t bound = weir__keyed_snapshot_bound(weir__harness_ctx(t->h));
    cr_assert_leq(sb->size, bound, "packed %zu bytes, bound %zu", sb->size, bound);
    cr_assert_gt(sb->size, bound / 4, "packed %zu bytes, bound %zu: far above", sb->size, bound);
}

/* Half the input, a snapshot, the other half across n_sub restored
 * operators: the same lines as one operator's whole run. */
static void round_trip(uint32_t n_sub)
{
    weir_window_spec s = window_spec();
    int64_t wm = INT64_MIN;
    wt *whole = wt_open(&s);
    feed(whole, 0, NREC, 0, 1, &wm);
    wt_end(whole);

    static char want[4 * NREC][128], got[4 * NREC][128];
    size_t nwant = lines_of(whole, want, 0);
    wt_close(whole);

    wt *first = wt_open(&s);
    wm = INT64_MIN;
    feed(first, 0, NREC / 2, 0, 1, &wm);
    msgpack_sbuffer sb;
    snapshot_of(first, &sb);
    size_t ngot = lines_of(first, got, 0);
    wt_close(first);
    int64_t wm_at_snapshot = wm;

    msgpack_unpacked up;
    msgpack_unpacked_init(&up);
    cr_assert_eq(msgpack_unpack_next(&up, sb.data, sb.size, NULL), MSGPACK_UNPACK_SUCCESS);
    for (uint32_t i = 0; i < n_sub; i++) {
        wt *t = wt_open(&s);
        uint32_t lo, hi;
        weir__key_group_range(MAXP, n_sub, i, &lo, &hi);
        char err[256];
        int r = weir__keyed_restore(weir__harness_ctx(t->h), &up.data, MAXP, lo, hi, err,
                                    sizeof err);
        cr_assert_eq(r, 0, "%s", err);
        /* a restored operator starts at watermark MIN, as in Flink; the
         * source's first watermark after the restore brings it back */
        wt_wm(t, wm_at_snapshot);
        wm = wm_at_snapshot;
        feed(t, NREC / 2, NREC, i, n_sub, &wm);
        wt_end(t);
        ngot = lines_of(t, got, ngot);
        wt_close(t);
    }
    msgpack_unpacked_destroy(&up);
    msgpack_sbuffer_destroy(&sb);
    qsort(want, nwant, sizeof want[0], cmp_line);
    qsort(got, ngot, sizeof got[0], cmp_line);
    cr_assert_gt(nwant, 50u, "the input should give results and late elements");
    cr_assert_eq(ngot, nwant, "%zu lines, want %zu", ngot, nwant);
    for (size_t i = 0; i < nwant; i++)
        cr_assert_str_eq(got[i], want[i], "line %zu", i);
}

Test(keyed_snapshot, a_window_resumes_from_its_snapshot)
{
    round_trip(1);
}

Test(keyed_snapshot, a_window_resumes_at_two_and_three_subtasks)
{
    round_trip(2);
    round_trip(3);
}

Test(keyed_snapshot, a_snapshot_of_other_states_is_refused)
{
    weir_window_spec s = window_spec();
    wt *t = wt_open(&s);
    int64_t wm = INT64_MIN;
    feed(t, 0, 50, 0, 1, &wm);
    msgpack_sbuffer sb;
    snapshot_of(t, &sb);
    wt_close(t);
    /* one state more than the operator declared */
    msgpack_unpacked up;
    msgpack_unpacked_init(&up);
    cr_assert_eq(msgpack_unpack_next(&up, sb.data, sb.size, NULL), MSGPACK_UNPACK_SUCCESS);
    msgpack_object *states = NULL;
    for (uint32_t i = 0; i < up.data.via.map.size; i++) {
        const msgpack_object_str *k = &up.data.via.map.ptr[i].key.via.str;
        if (k->size == 6 && memcmp(k->ptr, "states", 6) == 0)
            states = &up.data.via.map.ptr[i].val;
    }
    cr_assert_not_null(states);
    states->via.array.size++;
    wt *u = wt_open(&s);
    char err[256];
    cr_assert_eq(weir__keyed_restore(weir__harness_ctx(u->h), &up.data, MAXP, 0, MAXP - 1, err,
                                     sizeof err),
                 WEIR_EINVAL);
    cr_assert(strstr(err, "states, the operator declared"), "%s", err);
    states->via.array.size--;
    /* as it was taken, it restores */
    cr_assert_eq(weir__keyed_restore(weir__harness_ctx(u->h), &up.data, MAXP, 0, MAXP - 1, err,
                                     sizeof err),
                 0, "%s", err);
    wt_close(u);
    msgpack_unpacked_destroy(&up);
    msgpack_sbuffer_destroy(&sb);
}
