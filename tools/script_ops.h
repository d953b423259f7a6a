/* script_ops.h — the operators `weir script` can run, their settings as
 * parsed from the `op` statement, the script's record type, and how each
 * becomes a harness whose output is printed in SCRIPT.md's format. */
#ifndef WEIR_TOOLS_SCRIPT_OPS_H
#define WEIR_TOOLS_SCRIPT_OPS_H

#include <stdbool.h>
#include <stdint.h>

#include <weir.h>

/* A script record: `rec CH TS key=K value=V mark=1`, and a window result. */
typedef struct weir_script_rec {
    char key[32]; /* NUL-padded: the key bytes are the whole array */
    int64_t value;
    int64_t window_start;
    int64_t window_end;
    int32_t mark;
    int32_t kind; /* 0 plain, 1 a window result, 2 a global-window result */
} weir_script_rec;

typedef enum weir_script_kind {
    WEIR_SCRIPT_PASSTHROUGH,
    WEIR_SCRIPT_TIMESTAMPS,
    WEIR_SCRIPT_WINDOW
} weir_script_kind;

typedef enum weir_script_fn {
    WEIR_SCRIPT_SUM,
    WEIR_SCRIPT_COUNT,
    WEIR_SCRIPT_MIN,
    WEIR_SCRIPT_MAX
} weir_script_fn;

typedef struct weir_script_op {
    uint64_t line;
    weir_script_kind kind;
    int inputs;
    int channels[2];
    /* timestamps */
    weir_watermark_strategy strategy;
    /* window */
    int assigner;        /* weir_window_kind */
    int64_t size, slide, offset, gap;
    int64_t lateness;
    bool purging;
    weir_script_fn fn;
    bool late_side;
} weir_script_op;

/* One NAME=VALUE setting of the `op` statement. */
typedef struct weir_script_param {
    const char *name;
    const char *value;
    bool used;
} weir_script_param;

/* The value of setting `name` (marking it used), or NULL. */
const char *weir_script_param_get(weir_script_param *p, int np, const char *name);
/* -1 with why naming the first setting nobody used. */
int weir_script_param_unused(const char *op, weir_script_param *p, int np, const char *allowed,
                             char *why, size_t whysize);
/* A setting in ms: >= 0, or > 0 if `positive`. */
int weir_script_param_ms(const char *op, const char *name, const char *v, bool positive,
                         int64_t *out, char *why, size_t whysize);

/* script_window.c: `op window ...`; both return 0, -1 (WEIR_EINVAL) or
 * the operator's error code (WEIR_ENOMEM), with why. */
int weir_script_window_parse(weir_script_op *op, weir_script_param *p, int np, char *why,
                             size_t whysize);
int weir_script_window_spec(const weir_script_op *op, weir_process_spec *spec, char *why,
                            size_t whysize);

/* Parses the words after `op`. 0, or with why: WEIR_EINVAL (-1) for a
 * malformed or invalid setting, WEIR_ENOMEM when memory ran out. */
int weir_script_op_parse(weir_script_op *op, char **tok, int n, char *why, size_t whysize);

/* The harness for the operator, printing its output to stdout. 0, or a
 * weir error code with why (WEIR_ENOMEM: out of memory). */
int weir_script_op_harness(const weir_script_op *op, weir_harness **out, char *why,
                           size_t whysize);

#endif
