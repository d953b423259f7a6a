/* state_ttl_harness.h — what the state TTL tests (test_state_ttl.c,
 * test_list_state_ttl.c) share: a command record keyed by its first field,
 * a harness of one keyed input around the test's operator on a virtual
 * clock without periodic watermarks, and the command sent at timestamp 0.
 */
#ifndef WEIR_TESTS_STATE_TTL_HARNESS_H
#define WEIR_TESTS_STATE_TTL_HARNESS_H

#include <criterion/criterion.h>
#include <string.h>

#include "support/weir_testutil.h"

/* a command to the test's operator: op (the test's enum) on key, with a, b */
typedef struct ttl_cmd {
    int64_t key;
    int32_t op;
    int32_t pad;
    int64_t a, b;
} ttl_cmd;

static inline void ttl_cmd_key(const void *elem, void *key, void *arg)
{
    (void)arg;
    memcpy(key, elem, 8);
}

/* A harness around the operator vt (its records out_size bytes, each handed
 * to on_record); NULL and err when it is refused. */
static inline weir_harness *ttl_harness_open(const weir_operator_vtable *vt, size_t out_size,
                                             void (*on_record)(int, const void *, int64_t,
                                                               void *),
                                             char *err, size_t errsize)
{
    static const weir_key_spec key_spec = {.key_size = 8, .extract = ttl_cmd_key};
    weir_process_spec op = {.vtable = vt, .out_size = out_size};
    weir_harness_config cfg = {.op = &op,
                               .in_size = {sizeof(ttl_cmd)},
                               .key = {&key_spec},
                               .watermark_interval_ms = WEIR_DISABLED,
                               .output = {.on_record = on_record}};
    weir_harness *h = NULL;
    if (weir_harness_create(&cfg, &h, err, errsize))
        return NULL;
    return h;
}

static inline weir_harness *ttl_harness_open_ok(const weir_operator_vtable *vt, size_t out_size,
                                                void (*on_record)(int, const void *, int64_t,
                                                                  void *))
{
    char err[256];
    weir_harness *h = ttl_harness_open(vt, out_size, on_record, err, sizeof err);
    cr_assert_not_null(h, "%s", err);
    return h;
}

static inline void ttl_cmd_send(weir_harness *h, int64_t key, int op, int64_t a, int64_t b)
{
    ttl_cmd c = {.key = key, .op = op, .a = a, .b = b};
    cr_assert_eq(weir_harness_record(h, 0, 0, &c, 0), 0, "%s", weir_harness_last_error(h));
}

#endif
