/* script_parse.h — the words of a `weir script` line (script_parse.c):
 * integers and indexes, an `op` statement's NAME=VALUE settings, and what
 * such a statement parses into (weir_script_op) with the script's record
 * type, which the reader and the operators share. */
#ifndef WEIR_TOOLS_SCRIPT_PARSE_H
#define WEIR_TOOLS_SCRIPT_PARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <weir.h>

/* The size of a buffer for a message about one script line: a line is at
 * most 4096 characters, and a message echoes at most two of its parts. */
#define WEIR_SCRIPT_WHY (2 * 4096 + 512)

/* Parses a whole token as a signed 64-bit integer (MIN and MAX too if
 * `words`). 0, or -1 with the reason in `why`. */
int weir_script_parse_int(const char *tok, bool words, int64_t *out, char *why, size_t whysize);
/* Parses a whole token as a count or index: decimal digits only, no sign
 * (so "-0" and "+3" are refused), at most 9 digits. Returns 0, or
 * writes why into `why`. */
int weir_script_parse_index(const char *tok, int *out, char *why, size_t whysize);

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

#endif
