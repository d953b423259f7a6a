/* report.c — writes the viewer with captures embedded (report.h).
 *
 * The viewer declares one element
 *     <script id="weir-embedded-captures" type="application/json">[]</script>
 * and loads whatever array it holds on start. The report replaces the `[]`
 * with [{"name": NAME, "text": JSONL}, ...], every `<` written as \u003c so
 * that no "</script>" can end the element early (docs/VIEWER.md). The file
 * is written by weir/outfile.h's writer: a regular or new PATH through a
 * temporary file renamed over it when whole, a link through to the file it
 * names, a FIFO or a device (a pipe to a browser's helper) in place.
 */
#include "report.h"
#include "message.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "weir/outfile.h"

static const char marker[] = "<script id=\"weir-embedded-captures\" type=\"application/json\">[]";

/* Writes s as a JSON string body (without quotes), `<` escaped. */
static int put_json_string(FILE *out, const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        int r;
        switch (c) {
        case '"': r = fputs("\\\"", out); break;
        case '\\': r = fputs("\\\\", out); break;
        case '\n': r = fputs("\\n", out); break;
        case '\r': r = fputs("\\r", out); break;
        case '\t': r = fputs("\\t", out); break;
        case '<': r = fputs("\\u003c", out); break;
        default:
            r = c < 0x20 ? fprintf(out, "\\u%04x", c) : fputc(c, out);
        }
        if (r < 0)
            return -1;
    }
    return 0;
}

static char *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    char *buf = NULL;
    size_t cap = 0, n = 0;
    for (;;) {
        if (n == cap) {
            cap = cap ? cap * 2 : 1 << 16;
            char *b = realloc(buf, cap);
            if (!b) {
                free(buf);
                fclose(f);
                errno = ENOMEM;
                return NULL;
            }
            buf = b;
        }
        size_t got = fread(buf + n, 1, cap - n, f);
        n += got;
        if (got == 0)
            break;
    }
    int err = ferror(f);
    fclose(f);
    if (err) {
        free(buf);
        return NULL;
    }
    *len = n;
    return buf;
}

int weir_report_write(const char *path, const char *const *names, const char *const *files,
                      size_t n)
{
    const char *html = (const char *)weir_viewer_html;
    const char *at = weir_viewer_html_size ? strstr(html, marker) : NULL;
    if (!at) {
        fprintf(stderr, "weir: this build's viewer has no place for embedded captures; "
                        "%s not written\n", path);
        return 1;
    }
    size_t head = (size_t)(at - html) + sizeof marker - 3; /* up to, not with, "[]" */
    char err[4200];
    weir_outfile *of;
    weir_outfile_config cfg = {.flags = WEIR_OUTFILE_IN_PLACE};
    if (weir_outfile_open(path, &cfg, &of, err, sizeof err) != 0) {
        weir_tool_error("weir: the report: %s", err);
        return 1;
    }
    FILE *out = weir_outfile_stream(of);
    int bad = fwrite(html, 1, head, out) != head || fputc('[', out) == EOF;
    for (size_t i = 0; i < n && !bad; i++) {
        size_t len;
        char *text = read_file(files[i], &len);
        if (!text) {
            weir_tool_error("weir: cannot read %s: %s", files[i], weir_tool_strerror(errno));
            weir_outfile_discard(of);
            return 1;
        }
        bad = (i && fputc(',', out) == EOF) || fputs("{\"name\":\"", out) < 0 ||
              put_json_string(out, names[i], strlen(names[i])) < 0 ||
              fputs(".jsonl\",\"text\":\"", out) < 0 || put_json_string(out, text, len) < 0 ||
              fputs("\"}", out) < 0;
        free(text);
    }
    const char *rest = at + sizeof marker - 1;
    size_t rest_len = weir_viewer_html_size - (size_t)(rest - html);
    if (!bad)
        bad = fputc(']', out) == EOF || fwrite(rest, 1, rest_len, out) != rest_len;
    if (bad) {
        weir_tool_error("weir: cannot write %s: %s", weir_outfile_writing(of),
                        weir_tool_strerror(errno ? errno : EIO));
        weir_outfile_discard(of);
        return 1;
    }
    if (weir_outfile_commit(of, err, sizeof err) != 0) {
        weir_tool_error("weir: the report: %s", err);
        return 1;
    }
    return 0;
}
