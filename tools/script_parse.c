/* script_parse.c — the words of a `weir script` line (SCRIPT.md): whole
 * tokens as integers and indexes, and the NAME=VALUE settings of an `op`
 * statement. Used by the script's reader (script.c) and by the operators'
 * parsers (script_ops.c, script_window.c); calls neither.
 */
#include "script_parse.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <weir.h>

/* ---- numbers -------------------------------------------------------------- */

/* Parses a whole token as a signed 64-bit integer (or MIN/MAX if `words`).
 * Returns 0, or writes why into `why`. */
int weir_script_parse_int(const char *tok, bool words, int64_t *out, char *why, size_t whysize)
{
    if (words && strcmp(tok, "MIN") == 0) {
        *out = WEIR_TS_MIN;
        return 0;
    }
    if (words && strcmp(tok, "MAX") == 0) {
        *out = WEIR_TS_MAX;
        return 0;
    }
    const char *p = tok;
    if (*p == '+' || *p == '-')
        p++;
    if (!isdigit((unsigned char)*p)) {
        snprintf(why, whysize, "'%s' is not a number%s", tok, words ? " (nor MIN or MAX)" : "");
        return -1;
    }
    for (const char *q = p; *q; q++) {
        if (!isdigit((unsigned char)*q)) {
            snprintf(why, whysize, "'%s' is not a number%s", tok, words ? " (nor MIN or MAX)" : "");
            return -1;
        }
    }
    errno = 0;
    char *end;
    long long v = strtoll(tok, &end, 10);
    if (errno == ERANGE) {
        snprintf(why, whysize, "'%s' is out of the range of a 64-bit integer", tok);
        return -1;
    }
    *out = (int64_t)v;
    return 0;
}

int weir_script_parse_index(const char *tok, int *out, char *why, size_t whysize)
{
    if (*tok == '+' || *tok == '-') {
        snprintf(why, whysize, "'%s' has a sign (write the number alone)", tok);
        return -1;
    }
    size_t n = 0;
    for (const char *q = tok; *q; q++, n++) {
        if (!isdigit((unsigned char)*q)) {
            snprintf(why, whysize, "'%s' is not a number of digits", tok);
            return -1;
        }
    }
    if (n == 0 || n > 9) {
        snprintf(why, whysize, n ? "'%s' is too large" : "a number is missing", tok);
        return -1;
    }
    *out = atoi(tok);
    return 0;
}

/* ---- an op statement's settings ------------------------------------------- */

const char *weir_script_param_get(weir_script_param *p, int np, const char *name)
{
    for (int k = 0; k < np; k++) {
        if (strcmp(p[k].name, name) == 0) {
            p[k].used = true;
            return p[k].value;
        }
    }
    return NULL;
}

int weir_script_param_unused(const char *op, weir_script_param *p, int np, const char *allowed,
                             char *why, size_t whysize)
{
    for (int k = 0; k < np; k++) {
        if (!p[k].used) {
            snprintf(why, whysize, "op %s: unknown setting '%s' (allowed: %s)", op, p[k].name,
                     allowed);
            return -1;
        }
    }
    return 0;
}

/* A non-negative or positive integer setting. */
int weir_script_param_ms(const char *op, const char *name, const char *v, bool positive,
                         int64_t *out, char *why, size_t whysize)
{
    char inner[WEIR_SCRIPT_WHY];
    if (weir_script_parse_int(v, false, out, inner, sizeof inner)) {
        snprintf(why, whysize, "op %s: %s: %s", op, name, inner);
        return -1;
    }
    if (positive ? *out <= 0 : *out < 0) {
        snprintf(why, whysize, "op %s: %s=%s: must be %s", op, name, v,
                 positive ? "> 0" : ">= 0");
        return -1;
    }
    return 0;
}
