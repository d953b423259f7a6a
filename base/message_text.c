/* message_text.c — expression echoes and name distances for messages
 * (message_text.h). */
#include "message_text.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

const char *weir__expr_echo(const char *text, char *buf)
{
    size_t n = strlen(text);
    if (n <= WEIR__EXPR_ECHO + 3) {
        memcpy(buf, text, n + 1);
        return buf;
    }
    n = WEIR__EXPR_ECHO;
    while (n > 0 && ((unsigned char)text[n] & 0xC0) == 0x80)
        n--; /* text[n] continues a character: cut before the character */
    memcpy(buf, text, n);
    memcpy(buf + n, "...", 4);
    return buf;
}

int weir__edit_distance(const char *a, const char *b)
{
    size_t na = strlen(a), nb = strlen(b);
    if (na > 63 || nb > 63)
        return 64;
    int row[64];
    for (size_t j = 0; j <= nb; j++)
        row[j] = (int)j;
    for (size_t i = 1; i <= na; i++) {
        int diag = row[0];
        row[0] = (int)i;
        for (size_t j = 1; j <= nb; j++) {
            int up = row[j];
            int cost = tolower((unsigned char)a[i - 1]) != tolower((unsigned char)b[j - 1]);
            int best = diag + cost;
            if (up + 1 < best)
                best = up + 1;
            if (row[j - 1] + 1 < best)
                best = row[j - 1] + 1;
            row[j] = best;
            diag = up;
        }
    }
    return row[nb];
}

void weir__append(char *buf, size_t size, size_t *n, const char *fmt, ...)
{
    size_t room = buf && *n < size ? size - *n : 0;
    char dummy[1];
    va_list ap;
    va_start(ap, fmt);
    int w = vsnprintf(room ? buf + *n : dummy, room ? room : 1, fmt, ap);
    va_end(ap);
    if (w > 0)
        *n += (size_t)w;
}

void weir__append_name(char *buf, size_t size, size_t *n, const char *before, const char *name)
{
    weir__append(buf, size, n, "%s`", before);
    for (const char *q; (q = strchr(name, '`')); name = q + 1)
        weir__append(buf, size, n, "%.*s``", (int)(q - name), name);
    weir__append(buf, size, n, "%s`", name);
}
