/* sql_error.c — the SQL front-end's errors (sql_internal.h): a message at
 * its line and column in the statements, and the job's error as a SQL user
 * reads it. Its own file: the session, the catalog and the planner all
 * report through it, and it calls none of them. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "sql_internal.h"
#include "sql_lexer.h"

void *sql_vfail(weir_sql_session *s, const sql_script *sc, uint32_t offset, const char *fmt,
                va_list ap)
{
    uint32_t line = 1, col = 1;
    int n = 0;
    if (sc) {
        sql_position(sc->text, offset, &line, &col);
        n = snprintf(s->err, sizeof s->err, "line %u, column %u: ", line, col);
    }
    if (n >= 0 && (size_t)n < sizeof s->err)
        vsnprintf(s->err + n, sizeof s->err - (size_t)n, fmt, ap);
    return NULL;
}

void *sql_fail(weir_sql_session *s, const sql_script *sc, uint32_t offset, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    sql_vfail(s, sc, offset, fmt, ap);
    va_end(ap);
    return NULL;
}

const char *sql_job_message(const weir_job *job)
{
    const char *m = weir_job_error(job);
    if (strncmp(m, "weir_", 5) == 0) {
        size_t n = strspn(m, "abcdefghijklmnopqrstuvwxyz_");
        if (strncmp(m + n, ": ", 2) == 0)
            return m + n + 2;
    }
    return m;
}
