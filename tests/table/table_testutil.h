/* table_testutil.h — helpers the table suites share: a schema from a
 * compact text ("id BIGINT NOT NULL, name STRING"), rows built from
 * Row.toString-like values, and a job that runs a table pipeline over an
 * array of rows and returns what came out, one Row.toString line each.
 *
 * Static (inline) functions only: each Criterion binary gets its own copy.
 * Not a test file itself (the suite glob picks up test_*.c only).
 */
#ifndef WEIR_TESTS_TABLE_TESTUTIL_H
#define WEIR_TESTS_TABLE_TESTUTIL_H

#include <criterion/criterion.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "support/weir_testutil.h"
#include "weir.h"
#include "weir/harness.h"

/* "a BIGINT NOT NULL, b STRING" → a schema named `name`; optional pk, and
 * optionally `rowtime` as the rowtime column with the watermark expression
 * `watermark` ("SOURCE_WATERMARK()", "ts - INTERVAL '1' SECOND"). */
static inline weir_schema *tt_schema_wm(const char *name, const char *cols, const char *pk,
                                        const char *rowtime, const char *watermark)
{
    weir_schema_builder *b = weir_schema_builder_create(name);
    cr_assert(b);
    char buf[1024];
    snprintf(buf, sizeof buf, "%s", cols);
    /* columns split at the commas outside parentheses (DECIMAL(10, 2)) */
    int depth = 0;
    for (char *q = buf; *q; q++) {
        if (*q == '(')
            depth++;
        else if (*q == ')')
            depth--;
        else if (*q == ',' && depth == 0)
            *q = '\x1f';
    }
    char *save = NULL;
    for (char *c = strtok_r(buf, "\x1f", &save); c; c = strtok_r(NULL, "\x1f", &save)) {
        while (*c == ' ')
            c++;
        char *sp = strchr(c, ' ');
        cr_assert(sp, "bad column spec %s", c);
        *sp = 0;
        weir_schema_column_sql(b, c, sp + 1);
    }
    if (pk)
        weir_schema_primary_key(b, pk);
    if (rowtime)
        weir_schema_watermark(b, rowtime, watermark);
    weir_schema *s;
    char err[256];
    int r = weir_schema_build(b, &s, err, sizeof err);
    cr_assert_eq(r, 0, "schema: %s", err);
    return s;
}

static inline weir_schema *tt_schema(const char *name, const char *cols, const char *pk)
{
    return tt_schema_wm(name, cols, pk, NULL, NULL);
}

/* Fills row from "kind v1|v2|..." ("+I 1|alice|null"). */
static inline void tt_row(const weir_schema *s, void *row, const char *text)
{
    weir_row_kind kind = WEIR_ROW_INSERT;
    if (strncmp(text, "-U", 2) == 0)
        kind = WEIR_ROW_UPDATE_BEFORE;
    else if (strncmp(text, "+U", 2) == 0)
        kind = WEIR_ROW_UPDATE_AFTER;
    else if (strncmp(text, "-D", 2) == 0)
        kind = WEIR_ROW_DELETE;
    weir_row_init(s, row, kind);
    char buf[1024];
    snprintf(buf, sizeof buf, "%s", text + 3);
    char *p = buf;
    for (int c = 0; c < weir_schema_ncolumns(s); c++) {
        char *bar = strchr(p, '|');
        if (bar)
            *bar = 0;
        weir_type t = weir_schema_column_type(s, c);
        int r = 0;
        if (strcmp(p, "null") == 0)
            r = weir_row_set_null(s, row, c);
        else if (t.id == WEIR_TYPE_DOUBLE)
            r = weir_row_set_double(s, row, c, strtod(p, NULL));
        else if (t.id == WEIR_TYPE_BOOLEAN)
            r = weir_row_set_bool(s, row, c, strcmp(p, "true") == 0);
        else if (t.id == WEIR_TYPE_VARCHAR || t.id == WEIR_TYPE_CHAR)
            r = weir_row_set_string(s, row, c, p, strlen(p));
        else if (t.id == WEIR_TYPE_DECIMAL || t.id == WEIR_TYPE_DATE || t.id == WEIR_TYPE_TIME ||
                 t.id == WEIR_TYPE_FLOAT || t.id == WEIR_TYPE_VARBINARY || /* base64 */
                 t.id == WEIR_TYPE_BINARY || ((t.id == WEIR_TYPE_TIMESTAMP ||
                                              t.id == WEIR_TYPE_TIMESTAMP_LTZ) && p[0] && strchr(p + 1, '-')))
            r = weir_row_set_text(s, row, c, p, strlen(p)); /* their SQL text */
        else
            r = weir_row_set_int(s, row, c, strtoll(p, NULL, 10));
        cr_assert_eq(r, 0, "setting column %d from '%s'", c, p);
        if (!bar)
            break;
        p = bar + 1;
    }
}

/* Every collected row as Row.toString, joined by "\n". Caller frees. */
static inline char *tt_collected(const weir_schema *s, const weir_collect *c)
{
    size_t n = weir_collect_count(c), cap = 64 + n * 128, len = 0;
    char *out = malloc(cap);
    cr_assert(out);
    out[0] = 0;
    for (size_t i = 0; i < n; i++) {
        char line[512];
        int w = weir_row_format(s, weir_collect_elem(c, i), line, sizeof line);
        if (len + (size_t)w + 2 > cap) {
            cap = 2 * cap + (size_t)w;
            out = realloc(out, cap);
            cr_assert(out);
        }
        memcpy(out + len, line, (size_t)w);
        len += (size_t)w;
        out[len++] = '\n';
        out[len] = 0;
    }
    return out;
}

/* ---- the join tests' harness and differential helpers ---------------------------------- */

/* The row `text` ("+I 1|a", tt_row) of schema s into the harness's input
 * `input`, its timestamp ts. */
static inline void tt_harness_row(weir_harness *h, int input, const weir_schema *s,
                                  const char *text, int64_t ts)
{
    unsigned char row[1024];
    cr_assert_leq(weir_schema_row_size(s), sizeof row);
    tt_row(s, row, text);
    int r = weir_harness_record(h, input, 0, row, ts);
    cr_assert_eq(r, 0, "%s", weir_harness_last_error(h));
}

static inline void tt_harness_wm(weir_harness *h, int input, int64_t wm)
{
    int r = weir_harness_watermark(h, input, 0, wm);
    cr_assert_eq(r, 0, "%s", weir_harness_last_error(h));
}

/* The harness's (virtual) clock moved on to `at`; never back. */
static inline void tt_harness_advance_to(weir_harness *h, int64_t at)
{
    if (at > weir_harness_now(h))
        cr_assert_eq(weir_harness_advance(h, at), 0, "%s", weir_harness_last_error(h));
}

/* xorshift64: the differential tests' seeded random numbers */
static inline uint64_t tt_rnd(uint64_t *state)
{
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    return *state;
}

/* qsort's comparison of strings (char *) */
static inline int tt_cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* A sink callback that counts rows into the atomic_int at `arg`: a test
 * watches a job's progress with it while the job runs. */
static inline int tt_count_row(const void *elem, int64_t ts, int subtask, void *arg)
{
    (void)elem;
    (void)ts;
    (void)subtask;
    atomic_fetch_add((atomic_int *)arg, 1);
    return 0;
}

/* The rows a collect sink of `schema` took, one Row.toString line each
 * (strdup'ed), into out[at...]; the new count. */
static inline int tt_collect_lines(const weir_schema *schema, const weir_collect *c, char **out,
                                   int at)
{
    for (size_t j = 0; j < weir_collect_count(c); j++) {
        char line[256];
        weir_row_format(schema, weir_collect_elem(c, j), line, sizeof line);
        out[at++] = strdup(line);
    }
    return at;
}

static inline void tt_free_lines(char **x, int n)
{
    for (int j = 0; j < n; j++)
        free(x[j]);
    free(x);
}

/* A savepoint's restore checked on one node's lines (each sorted here):
 * what the restored run emitted (restored, nz), the uninterrupted run emits
 * too, as often (ref, ny) — nothing replayed from the start, no value
 * computed from lost state; and the run stopped with the savepoint and the
 * restored one together (both, nx) emit all of it (rows the first emitted
 * after its savepoint, before it stopped, come again from the second). */
static inline void tt_check_restore_lines(const char *what, int parallelism, char **both, int nx,
                                          char **ref, int ny, char **restored, int nz)
{
    qsort(both, (size_t)nx, sizeof *both, tt_cmp_str);
    qsort(ref, (size_t)ny, sizeof *ref, tt_cmp_str);
    qsort(restored, (size_t)nz, sizeof *restored, tt_cmp_str);
    for (int j = 0, k = 0; j < nz; j++) {
        while (k < ny && strcmp(ref[k], restored[j]) < 0)
            k++;
        cr_assert(k < ny && strcmp(ref[k], restored[j]) == 0,
                  "%s at %d: the restored run emitted %s, which the uninterrupted one did not "
                  "(as often)", what, parallelism, restored[j]);
        k++;
    }
    for (int j = 0, k = 0; j < ny; j++) {
        while (k < nx && strcmp(both[k], ref[j]) < 0)
            k++;
        cr_assert(k < nx && strcmp(both[k], ref[j]) == 0,
                  "%s at %d: %s is missing from the two runs", what, parallelism, ref[j]);
        k++;
    }
}

#endif
