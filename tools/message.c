/* message.c — error messages of the `weir` command line. A message echoes
 * what was wrong in the input (a token of a script, a name from a capture,
 * an argument), and input is any bytes: written raw, a NUL-free line of a
 * script could send terminal escape sequences to whoever reads standard
 * error, or split one message over two lines. Every message therefore goes
 * through weir_tool_escape, which keeps printable text (UTF-8 included) and
 * writes every other byte as an escape.
 */
#include "message.h"

#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* The length of the valid UTF-8 sequence at s (2..4 bytes), or 0. */
static size_t utf8_len(const unsigned char *s, size_t n, uint32_t *cp)
{
    size_t len;
    uint32_t c, min;
    if (s[0] >= 0xc2 && s[0] <= 0xdf) {
        len = 2, c = s[0] & 0x1fu, min = 0x80;
    } else if (s[0] >= 0xe0 && s[0] <= 0xef) {
        len = 3, c = s[0] & 0x0fu, min = 0x800;
    } else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
        len = 4, c = s[0] & 0x07u, min = 0x10000;
    } else {
        return 0;
    }
    if (n < len)
        return 0;
    for (size_t i = 1; i < len; i++) {
        if ((s[i] & 0xc0) != 0x80)
            return 0;
        c = (c << 6) | (s[i] & 0x3fu);
    }
    /* overlong forms, UTF-16 surrogates and code points past U+10FFFF */
    if (c < min || (c >= 0xd800 && c <= 0xdfff) || c > 0x10ffff)
        return 0;
    *cp = c;
    return len;
}

static bool unsafe_cp(uint32_t c)
{
    return c <= 0x9f || (c >= 0x202a && c <= 0x202e) || (c >= 0x2066 && c <= 0x2069);
}

void weir_tool_escape(FILE *out, const char *str, size_t n)
{
    const unsigned char *s = (const unsigned char *)str;
    static const char hex[] = "0123456789abcdef";
    /* Escaped into a buffer and written in pieces: standard error is
     * unbuffered, and one write per byte would be one system call each. */
    char buf[1024];
    size_t o = 0;
    for (size_t i = 0; i < n;) {
        if (o > sizeof buf - 32) {
            fwrite(buf, 1, o, out);
            o = 0;
        }
        unsigned char b = s[i];
        if (b >= 0x20 && b < 0x7f) {
            buf[o++] = (char)b;
            i++;
            continue;
        }
        uint32_t cp = 0;
        size_t len = b >= 0x80 ? utf8_len(s + i, n - i, &cp) : 0;
        if (len && !unsafe_cp(cp)) {
            for (size_t k = 0; k < len; k++)
                buf[o++] = (char)s[i + k];
            i += len;
            continue;
        }
        if (len == 0)
            len = 1;
        for (size_t k = 0; k < len; k++) {
            unsigned char e = s[i + k];
            buf[o++] = '\\';
            if (e == '\n') {
                buf[o++] = 'n';
            } else if (e == '\t') {
                buf[o++] = 't';
            } else if (e == '\r') {
                buf[o++] = 'r';
            } else {
                buf[o++] = 'x';
                buf[o++] = hex[e >> 4];
                buf[o++] = hex[e & 15];
            }
        }
        i += len;
    }
    if (o > 0)
        fwrite(buf, 1, o, out);
}

void weir_tool_errorv(const char *prefix, const char *fmt, va_list ap)
{
    char stack[2048];
    va_list again;
    va_copy(again, ap);
    int n = vsnprintf(stack, sizeof stack, fmt, ap);
    if (n < 0) {
        va_end(again);
        fputs("weir: an error message could not be formatted\n", stderr);
        return;
    }
    char *msg = stack;
    bool cut = false;
    if ((size_t)n >= sizeof stack) {
        msg = malloc((size_t)n + 1);
        if (msg) {
            vsnprintf(msg, (size_t)n + 1, fmt, again);
        } else {
            /* No memory for the whole message: say it is cut rather than
             * cut it silently. */
            msg = stack;
            n = (int)sizeof stack - 1;
            cut = true;
        }
    }
    va_end(again);
    if (prefix)
        weir_tool_escape(stderr, prefix, strlen(prefix));
    weir_tool_escape(stderr, msg, (size_t)n);
    if (cut)
        fputs(" ... (the rest of this message is lost: out of memory)", stderr);
    fputc('\n', stderr);
    if (msg != stack)
        free(msg);
}

void weir_tool_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    weir_tool_errorv(NULL, fmt, ap);
    va_end(ap);
}

const char *weir_tool_strerror(int err)
{
    return err == ENOMEM ? "out of memory" : strerror(err);
}

int weir_tool_lost_write_errno(FILE *f)
{
    struct stat st;
    int fd = fileno(f);
    if (fd < 0 || fstat(fd, &st) != 0 || !(S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode)))
        return EIO;
    /* A pipe without a reader polls as POLLERR for its writer, a socket
     * whose peer has closed as POLLHUP; a write to either fails with EPIPE. */
    struct pollfd p = {.fd = fd, .events = POLLOUT};
    if (poll(&p, 1, 0) == 1 && (p.revents & (POLLERR | POLLHUP)))
        return EPIPE;
    return EIO;
}

static bool stdout_said;

void weir_tool_stdout_said(void)
{
    stdout_said = true;
}

bool weir_tool_stdout_was_said(void)
{
    return stdout_said;
}
