/* test_build_errors.c — bad configurations are refused with a clear message
 * before any thread starts.
 *
 * DESIGN.md promises that a bad graph or setting is found when the job is
 * built or planned, that the builder call that found it returns NULL (or an
 * error) and records why, that later calls given the NULL pass it on, and
 * that weir_job_run then reports the first problem without starting
 * anything. Each test here makes one mistake and checks all of that: the
 * builder's NULL, weir_job_run's code, the words of weir_job_error (the call
 * and the value at fault), and that no operator was ever opened — every job
 * has a probe source that counts its opens, which would run on a worker
 * thread if one had started.
 */
#include <criterion/criterion.h>
#include <stdatomic.h>
#include <string.h>

#include "support/weir_testutil.h"

static _Atomic int opens;

static int probe_open(weir_ctx *ctx)
{
    (void)ctx;
    atomic_fetch_add(&opens, 1);
    return 0;
}

static int probe_next(weir_ctx *ctx)
{
    (void)ctx;
    return WEIR_SOURCE_END;
}

static const weir_source_vtable probe_vtable = {
    .version = WEIR_SOURCE_VTABLE_V1,
    .open = probe_open,
    .next = probe_next,
};

static weir_stream *probe_source(weir_job *job, size_t elem_size)
{
    weir_source_spec spec = {.vtable = &probe_vtable, .elem_size = elem_size};
    weir_stream *s = weir_job_add_source(job, &spec);
    cr_assert_not_null(s, "%s", weir_job_error(job));
    return s;
}

/* Runs the job and checks it was refused with `code`, a message holding
 * every one of the words, and nothing opened. */
#define expect_refused(job, code, ...)                                                            \
    do {                                                                                          \
        int r_ = weir_job_run(job);                                                               \
        cr_assert_eq(r_, (code), "weir_job_run returned %d (%s), expected %s: \"%s\"", r_,        \
                     weir_err_name(r_), weir_err_name(code), weir_job_error(job));                \
        cr_assert_eq(weir_job_error_code(job), (code));                                           \
        tu_assert_contains(weir_job_error(job), __VA_ARGS__);                                     \
        cr_assert_eq(atomic_load(&opens), 0, "an operator was opened: a thread started");         \
    } while (0)

static int ident(const void *in, void *out, void *arg)
{
    (void)arg;
    memcpy(out, in, 8);
    return 0;
}

static void extract8(const void *elem, void *key, void *arg)
{
    (void)arg;
    memcpy(key, elem, 8);
}

/* ---- NULL callbacks ------------------------------------------------------- */

Test(build_errors, map_without_fn)
{
    weir_job *job = tu_job(NULL);
    weir_stream *m = weir_stream_map(probe_source(job, 8), 8, NULL, NULL);
    cr_assert_null(m);
    /* Later calls on the NULL pass it on and do not replace the message. */
    cr_assert_null(weir_sink_discard(weir_stream_map(m, 8, ident, NULL)));
    expect_refused(job, WEIR_EINVAL, "weir_stream_map", "fn");
    weir_job_destroy(job);
}

Test(build_errors, filter_flat_map_and_sinks_without_fn)
{
    weir_job *job = tu_job(NULL);
    cr_assert_null(weir_stream_filter(probe_source(job, 8), NULL, NULL));
    expect_refused(job, WEIR_EINVAL, "weir_stream_filter", "fn");
    weir_job_destroy(job);

    atomic_store(&opens, 0);
    job = tu_job(NULL);
    cr_assert_null(weir_stream_flat_map(probe_source(job, 8), 8, NULL, NULL));
    expect_refused(job, WEIR_EINVAL, "weir_stream_flat_map", "fn");
    weir_job_destroy(job);

    job = tu_job(NULL);
    cr_assert_null(weir_sink_callback(probe_source(job, 8), NULL, NULL));
    expect_refused(job, WEIR_EINVAL, "weir_sink_callback", "fn");
    weir_job_destroy(job);

    job = tu_job(NULL);
    cr_assert_null(weir_sink_print(probe_source(job, 8), NULL, NULL, NULL));
    expect_refused(job, WEIR_EINVAL, "weir_sink_print", "fmt");
    weir_job_destroy(job);

    job = tu_job(NULL);
    cr_assert_null(weir_sink_collect(probe_source(job, 8), NULL));
    expect_refused(job, WEIR_EINVAL, "weir_sink_collect", "out");
    weir_job_destroy(job);
}

Test(build_errors, process_without_on_record)
{
    static const weir_operator_vtable no_record = {.version = WEIR_OPERATOR_VTABLE_V1};
    weir_job *job = tu_job(NULL);
    weir_process_spec spec = {.vtable = &no_record, .out_size = 8};
    cr_assert_null(weir_stream_process(probe_source(job, 8), &spec));
    expect_refused(job, WEIR_EINVAL, "weir_stream_process", "on_record");
    weir_job_destroy(job);

    job = tu_job(NULL);
    weir_process_spec no_vtable = {.out_size = 8};
    cr_assert_null(weir_stream_process(probe_source(job, 8), &no_vtable));
    expect_refused(job, WEIR_EINVAL, "weir_stream_process", "vtable");
    weir_job_destroy(job);
}

Test(build_errors, vtable_versions)
{
    static const weir_operator_vtable v4 = {.version = 4, .on_record = tu_pass_record};
    weir_job *job = tu_job(NULL);
    weir_process_spec spec = {.vtable = &v4, .out_size = 8};
    cr_assert_null(weir_stream_process(probe_source(job, 8), &spec));
    expect_refused(job, WEIR_EINVAL, "version 4");
    weir_job_destroy(job);

    static const weir_source_vtable s0 = {.version = 0, .next = probe_next};
    job = tu_job(NULL);
    weir_source_spec src = {.vtable = &s0, .elem_size = 8};
    cr_assert_null(weir_job_add_source(job, &src));
    expect_refused(job, WEIR_EINVAL, "weir_job_add_source", "version 0");
    weir_job_destroy(job);
}

Test(build_errors, source_without_next)
{
    static const weir_source_vtable no_next = {.version = WEIR_SOURCE_VTABLE_V1,
                                               .open = probe_open};
    weir_job *job = tu_job(NULL);
    weir_source_spec src = {.vtable = &no_next, .elem_size = 8};
    cr_assert_null(weir_job_add_source(job, &src));
    expect_refused(job, WEIR_EINVAL, "weir_job_add_source", "next");
    weir_job_destroy(job);
}

Test(build_errors, key_by_without_extract)
{
    weir_job *job = tu_job(NULL);
    weir_key_spec key = {.key_size = 8};
    cr_assert_null(weir_stream_key_by(probe_source(job, 8), &key));
    expect_refused(job, WEIR_EINVAL, "weir_stream_key_by", "extract");
    weir_job_destroy(job);

    job = tu_job(NULL);
    cr_assert_null(weir_stream_key_by(probe_source(job, 8), NULL));
    expect_refused(job, WEIR_EINVAL, "weir_stream_key_by", "extract");
    weir_job_destroy(job);
}

/* ---- element types and partitioning -------------------------------------- */

Test(build_errors, union_element_size_mismatch)
{
    weir_job *job = tu_job(NULL);
    weir_stream *s[] = {probe_source(job, 8), probe_source(job, 8), probe_source(job, 12)};
    cr_assert_null(weir_stream_union(s, 3));
    expect_refused(job, WEIR_ETYPE, "weir_stream_union", "stream 2", "12 bytes", "8");
    weir_job_destroy(job);
}

Test(build_errors, union_of_a_partitioned_stream)
{
    weir_job *job = tu_job(NULL);
    weir_stream *s[] = {probe_source(job, 8), weir_stream_rebalance(probe_source(job, 8))};
    cr_assert_null(weir_stream_union(s, 2));
    expect_refused(job, WEIR_EINVAL, "weir_stream_union", "stream 1", "partitioned");
    weir_job_destroy(job);
}

Test(build_errors, union_across_jobs)
{
    weir_job *a = tu_job(NULL), *b = tu_job(NULL);
    weir_stream *s[] = {probe_source(a, 8), probe_source(b, 8)};
    cr_assert_null(weir_stream_union(s, 2));
    expect_refused(a, WEIR_EINVAL, "different jobs");
    weir_job_destroy(a);
    weir_job_destroy(b);
}

/* Found only by planning, and still before any thread: the source's open
 * count proves it. */
Test(build_errors, forward_between_different_parallelism)
{
    weir_job *job = tu_job(&(weir_job_config){.workers = 2});
    weir_stream *src = weir_stream_set_parallelism(probe_source(job, 8), 2);
    weir_stream *m = weir_stream_map(weir_stream_forward(src), 8, ident, NULL);
    cr_assert_not_null(m, "%s", weir_job_error(job));
    weir_stream_set_name(weir_stream_set_parallelism(m, 3), "mapper");
    weir_sink_discard(m);
    expect_refused(job, WEIR_EINVAL, "forward", "parallelism 2", "parallelism 3", "mapper");
    weir_job_destroy(job);
}

Test(build_errors, connect_keyed_with_unkeyed)
{
    weir_job *job = tu_job(NULL);
    weir_key_spec key = {.key_size = 8, .extract = extract8};
    weir_process_spec spec = {.vtable = &tu_pass_vtable, .out_size = 8};
    cr_assert_null(weir_stream_connect(weir_stream_key_by(probe_source(job, 8), &key),
                                       probe_source(job, 8), &spec));
    expect_refused(job, WEIR_EINVAL, "weir_stream_connect", "keyed");
    weir_job_destroy(job);
}

/* ---- sizes ---------------------------------------------------------------- */

Test(build_errors, map_out_size_zero_and_too_big)
{
    weir_job *job = tu_job(NULL);
    cr_assert_null(weir_stream_map(probe_source(job, 8), 0, ident, NULL));
    expect_refused(job, WEIR_EINVAL, "weir_stream_map", "out_size 0");
    weir_job_destroy(job);

    job = tu_job(NULL);
    cr_assert_null(weir_stream_map(probe_source(job, 8), WEIR_MAX_ELEM_SIZE + 1, ident, NULL));
    expect_refused(job, WEIR_EINVAL, "weir_stream_map", "out_size 65537");
    weir_job_destroy(job);
}

Test(build_errors, source_elem_size_zero_and_too_big)
{
    weir_job *job = tu_job(NULL);
    weir_source_spec spec = {.vtable = &probe_vtable, .elem_size = 0};
    cr_assert_null(weir_job_add_source(job, &spec));
    expect_refused(job, WEIR_EINVAL, "weir_job_add_source", "elem_size 0");
    weir_job_destroy(job);

    job = tu_job(NULL);
    spec.elem_size = WEIR_MAX_ELEM_SIZE + 1;
    cr_assert_null(weir_job_add_source(job, &spec));
    expect_refused(job, WEIR_EINVAL, "weir_job_add_source", "elem_size 65537");
    weir_job_destroy(job);

    /* The array source goes through the same check. */
    static const uint64_t v = 1;
    job = tu_job(NULL);
    cr_assert_null(weir_source_array(job, &v, 1, 0, NULL));
    expect_refused(job, WEIR_EINVAL, "elem_size 0");
    weir_job_destroy(job);

    /* The largest allowed size is accepted. */
    job = tu_job(NULL);
    spec.elem_size = WEIR_MAX_ELEM_SIZE;
    cr_assert_not_null(weir_job_add_source(job, &spec));
    weir_job_destroy(job);
}

Test(build_errors, side_output_specs)
{
    weir_job *job = tu_job(NULL);
    weir_side_output_spec zero_tag[] = {{.tag = 0, .elem_size = 8}};
    weir_process_spec spec = {
        .vtable = &tu_pass_vtable, .out_size = 8, .side_outputs = zero_tag, .nside = 1};
    cr_assert_null(weir_stream_process(probe_source(job, 8), &spec));
    expect_refused(job, WEIR_EINVAL, "side output tag 0");
    weir_job_destroy(job);

    job = tu_job(NULL);
    weir_side_output_spec twice[] = {{.tag = 4, .elem_size = 8}, {.tag = 4, .elem_size = 16}};
    spec.side_outputs = twice;
    spec.nside = 2;
    cr_assert_null(weir_stream_process(probe_source(job, 8), &spec));
    expect_refused(job, WEIR_EINVAL, "tag 4", "twice");
    weir_job_destroy(job);

    job = tu_job(NULL);
    weir_side_output_spec empty[] = {{.tag = 1, .elem_size = 0}};
    spec.side_outputs = empty;
    spec.nside = 1;
    cr_assert_null(weir_stream_process(probe_source(job, 8), &spec));
    expect_refused(job, WEIR_EINVAL, "side output elem_size 0");
    weir_job_destroy(job);

    /* Asking for a side output the operator does not declare. */
    job = tu_job(NULL);
    weir_side_output_spec one[] = {{.tag = 1, .elem_size = 8}};
    spec.side_outputs = one;
    weir_stream *s = weir_stream_process(probe_source(job, 8), &spec);
    cr_assert_not_null(s);
    cr_assert_null(weir_stream_side_output(s, 2));
    expect_refused(job, WEIR_EINVAL, "weir_stream_side_output", "tag 2");
    weir_job_destroy(job);
}

Test(build_errors, key_size_zero_and_too_big)
{
    weir_job *job = tu_job(NULL);
    weir_key_spec key = {.key_size = 0, .extract = extract8};
    cr_assert_null(weir_stream_key_by(probe_source(job, 8), &key));
    expect_refused(job, WEIR_EINVAL, "weir_stream_key_by", "key_size 0");
    weir_job_destroy(job);

    job = tu_job(NULL);
    key.key_size = WEIR_MAX_KEY_SIZE + 1;
    cr_assert_null(weir_stream_key_by(probe_source(job, 8), &key));
    expect_refused(job, WEIR_EINVAL, "weir_stream_key_by", "key_size 257");
    weir_job_destroy(job);
}

Test(build_errors, parallelism_zero_and_too_big)
{
    weir_job *job = tu_job(NULL);
    cr_assert_null(weir_stream_set_parallelism(probe_source(job, 8), 0));
    expect_refused(job, WEIR_EINVAL, "weir_stream_set_parallelism", "parallelism 0");
    weir_job_destroy(job);

    job = tu_job(NULL);
    cr_assert_null(weir_stream_set_parallelism(probe_source(job, 8), WEIR_MAX_PARALLELISM + 1));
    expect_refused(job, WEIR_EINVAL, "weir_stream_set_parallelism", "parallelism 1025");
    weir_job_destroy(job);

    /* In a spec, 0 means the default and WEIR_PARALLELISM_INHERIT (-1) the
     * input's, but other negative values and too big are refused. */
    job = tu_job(NULL);
    weir_process_spec spec = {.vtable = &tu_pass_vtable, .out_size = 8, .parallelism = -2};
    cr_assert_null(weir_stream_process(probe_source(job, 8), &spec));
    expect_refused(job, WEIR_EINVAL, "weir_stream_process", "parallelism -2");
    weir_job_destroy(job);

    job = tu_job(NULL);
    weir_source_spec src = {.vtable = &probe_vtable, .elem_size = 8, .parallelism = 5000};
    cr_assert_null(weir_job_add_source(job, &src));
    expect_refused(job, WEIR_EINVAL, "weir_job_add_source", "parallelism 5000");
    weir_job_destroy(job);
}

/* ---- names, views, sinks, runs -------------------------------------------- */

Test(build_errors, duplicate_operator_name)
{
    weir_job *job = tu_job(NULL);
    weir_process_spec spec = {.name = "twin", .vtable = &tu_pass_vtable, .out_size = 8};
    weir_stream *a = weir_stream_process(probe_source(job, 8), &spec);
    cr_assert_not_null(a);
    cr_assert_null(weir_stream_process(a, &spec));
    expect_refused(job, WEIR_EINVAL, "'twin'", "already used");
    weir_job_destroy(job);

    /* Renaming onto a taken name, too (sources and operators share names). */
    job = tu_job(NULL);
    weir_stream *s = weir_stream_set_name(probe_source(job, 8), "first");
    cr_assert_not_null(s);
    weir_stream *m = weir_stream_map(s, 8, ident, NULL);
    cr_assert_null(weir_stream_set_name(m, "first"));
    expect_refused(job, WEIR_EINVAL, "weir_stream_set_name", "'first'", "already used");
    weir_job_destroy(job);

    /* Unnamed operators of one kind get distinct names by themselves. */
    job = tu_job(NULL);
    weir_stream *x = weir_stream_map(probe_source(job, 8), 8, ident, NULL);
    cr_assert_not_null(weir_stream_map(x, 8, ident, NULL));
    cr_assert_str_empty(weir_job_error(job));
    weir_job_destroy(job);
}

Test(build_errors, empty_name)
{
    weir_job *job = tu_job(NULL);
    cr_assert_null(weir_stream_set_name(probe_source(job, 8), ""));
    expect_refused(job, WEIR_EINVAL, "weir_stream_set_name", "empty");
    weir_job_destroy(job);
}

Test(build_errors, set_parallelism_on_views)
{
    weir_key_spec key = {.key_size = 8, .extract = extract8};
    for (int which = 0; which < 4; which++) {
        atomic_store(&opens, 0);
        weir_job *job = tu_job(NULL);
        weir_stream *s = probe_source(job, 8);
        weir_stream *two[] = {s, probe_source(job, 8)};
        weir_stream *v = which == 0   ? weir_stream_key_by(s, &key)
                         : which == 1 ? weir_stream_rebalance(s)
                         : which == 2 ? weir_stream_broadcast(s)
                                      : weir_stream_union(two, 2);
        cr_assert_not_null(v);
        cr_assert_null(weir_stream_set_parallelism(v, 2), "view %d took a parallelism", which);
        expect_refused(job, WEIR_EINVAL, "weir_stream_set_parallelism", "view");
        weir_job_destroy(job);
    }
    weir_job *job = tu_job(NULL);
    cr_assert_null(weir_stream_set_name(weir_stream_key_by(probe_source(job, 8), &key), "k"));
    expect_refused(job, WEIR_EINVAL, "weir_stream_set_name", "view");
    weir_job_destroy(job);
}

Test(build_errors, consuming_a_sinks_handle)
{
    weir_job *job = tu_job(NULL);
    weir_stream *sink = weir_sink_discard(probe_source(job, 8));
    cr_assert_not_null(sink);
    /* A sink's handle takes a name and a parallelism ... */
    cr_assert_eq(weir_stream_set_name(sink, "drain"), sink);
    cr_assert_eq(weir_stream_set_parallelism(sink, 2), sink);
    /* ... but has no elements to consume. */
    cr_assert_null(weir_stream_map(sink, 8, ident, NULL));
    expect_refused(job, WEIR_EINVAL, "sink", "no elements");
    weir_job_destroy(job);

    job = tu_job(NULL);
    weir_collect *c;
    sink = weir_sink_collect(probe_source(job, 8), &c);
    cr_assert_null(weir_stream_rebalance(sink));
    expect_refused(job, WEIR_EINVAL, "weir_stream_rebalance", "sink");
    weir_job_destroy(job);
}

Test(build_errors, empty_job)
{
    weir_job *job = tu_job(NULL);
    expect_refused(job, WEIR_EINVAL, "no sources");
    weir_job_destroy(job);
}

Test(build_errors, first_error_wins)
{
    weir_job *job = tu_job(NULL);
    weir_stream *s = probe_source(job, 8);
    cr_assert_null(weir_stream_map(s, 0, ident, NULL));
    /* A second, different mistake on a valid stream does not replace it. */
    weir_key_spec key = {.key_size = 0, .extract = extract8};
    cr_assert_null(weir_stream_key_by(s, &key));
    expect_refused(job, WEIR_EINVAL, "out_size 0");
    cr_assert_null(strstr(weir_job_error(job), "key_size"), "%s", weir_job_error(job));
    weir_job_destroy(job);
}

/* weir_job_record_error is the hook for builders written on top of
 * weir_stream_process: the job then fails with it. */
Test(build_errors, record_error_from_a_user_builder)
{
    weir_job *job = tu_job(NULL);
    probe_source(job, 8);
    cr_assert_eq(weir_job_record_error(job, WEIR_ERANGE, "my_window: size %d too small", -3),
                 WEIR_ERANGE);
    expect_refused(job, WEIR_ERANGE, "my_window", "size -3");
    weir_job_destroy(job);
}

/* Calls given a NULL stream return NULL without recording anything. */
Test(build_errors, null_streams_pass_through)
{
    cr_assert_null(weir_stream_map(NULL, 8, ident, NULL));
    cr_assert_null(weir_stream_key_by(NULL, NULL));
    cr_assert_null(weir_stream_rebalance(NULL));
    cr_assert_null(weir_stream_broadcast(NULL));
    cr_assert_null(weir_stream_forward(NULL));
    cr_assert_null(weir_stream_set_name(NULL, "x"));
    cr_assert_null(weir_stream_set_parallelism(NULL, 2));
    cr_assert_null(weir_stream_side_output(NULL, 1));
    cr_assert_null(weir_sink_discard(NULL));
    weir_collect *c = (weir_collect *)&opens;
    cr_assert_null(weir_sink_collect(NULL, &c));
    cr_assert_null(c);
    cr_assert_null(weir_source_array(NULL, NULL, 0, 8, NULL));
    weir_stream *none[] = {NULL, NULL};
    cr_assert_null(weir_stream_union(none, 2));
    cr_assert_eq(weir_stream_elem_size(NULL), 0u);
    cr_assert_null(weir_stream_job(NULL));
}

/* ---- sizes that only fail together ---------------------------------------- */

Test(build_errors, array_source_without_elements)
{
    weir_job *job = tu_job(NULL);
    cr_assert_null(weir_source_array(job, NULL, 10, 8, NULL));
    expect_refused(job, WEIR_EINVAL, "weir_source_array", "elems is NULL", "10");
    weir_job_destroy(job);

    /* No elements and a count of 0 is an empty source, not a mistake. */
    job = tu_job(NULL);
    weir_sink_discard(weir_source_array(job, NULL, 0, 8, NULL));
    tu_run_ok(job);
    weir_job_destroy(job);
}

/* Each size is allowed alone, but a batch of 65536 slots of 64 KiB elements
 * (4 GiB) would be allocated on a worker thread once the job ran: the plan
 * refuses it first, naming the edge. */
Test(build_errors, batch_of_huge_elements)
{
    weir_job *job = tu_job(&(weir_job_config){.batch_capacity = 65536});
    weir_stream *s = weir_stream_set_name(probe_source(job, WEIR_MAX_ELEM_SIZE), "big");
    weir_sink_discard(weir_stream_rebalance(s));
    expect_refused(job, WEIR_EINVAL, "batch of 65536 elements", "65536 bytes", "'big'",
                   "batch_capacity");
    weir_job_destroy(job);

    /* The same elements in batches of 16 run. */
    job = tu_job(&(weir_job_config){.batch_capacity = 16});
    weir_sink_discard(weir_stream_rebalance(probe_source(job, WEIR_MAX_ELEM_SIZE)));
    tu_run_ok(job);
    weir_job_destroy(job);
}
