/* nexmark.c — `weir nexmark` (nexmark.h).
 *
 * The options are the 'nexmark' table's, as KEY=VALUE words ('events.num'
 * is required: the dump ends); the events are weir_nexmark_event_at's for
 * the config they make, numbers 0 to events.num - 1, which every query over
 * a table of the same options reads (whatever its parallelism). With -o
 * FILE they go to a temporary file beside FILE, renamed to FILE once all
 * are written: FILE is never half-written (a failed write, or SIGINT or
 * SIGTERM, removes the temporary file). */
#include "nexmark.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <weir.h>
#include <weir/nexmark.h>

#include "message.h"
#include "signals.h"

static const char usage_text[] =
    "usage: weir nexmark [-o FILE] OPTION=VALUE ...\n"
    "\n"
    "Writes the events of a 'nexmark' table with these options (its WITH options:\n"
    "'events.num', required, 'first-event.rate', 'seed', 'base-time', the proportions,\n"
    "sizes and hot ratios), one JSON object a line with every field: the event's\n"
    "number, event_type, and its person, auction or bid (the other two null), as the\n"
    "table's nested ROWs hold them. To standard output, or to FILE (written whole or\n"
    "not at all). Exit status: 0, 1 if the output could not be written, 2 for bad\n"
    "usage or options.\n"
    "\n"
    "  weir nexmark events.num=1000 seed=7 'base-time=2024-01-01 00:00:00' -o events.jsonl\n";

static int bad_usage(void)
{
    fputs(usage_text, stderr);
    return 2;
}

int weir_nexmark_main(int argc, char **argv)
{
    weir_nexmark_config cfg = {0};
    const char *path = NULL;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            fputs(usage_text, stdout);
            return 0;
        }
        if (strcmp(a, "-o") == 0 || strcmp(a, "--output") == 0) {
            if (i + 1 == argc)
                return bad_usage();
            path = argv[++i];
            continue;
        }
        const char *eq = strchr(a, '=');
        if (!eq || eq == a) {
            weir_tool_error("weir nexmark: '%s' is not OPTION=VALUE", a);
            return bad_usage();
        }
        char key[64];
        if ((size_t)(eq - a) >= sizeof key) {
            weir_tool_error("weir nexmark: unknown option '%.*s' (the options: %s)",
                            (int)(eq - a), a, WEIR_NEXMARK_OPTIONS);
            return 2;
        }
        memcpy(key, a, (size_t)(eq - a));
        key[eq - a] = '\0';
        char why[512];
        if (weir_nexmark_config_set(&cfg, key, eq + 1, why, sizeof why)) {
            weir_tool_error("weir nexmark: %s", why);
            return 2;
        }
    }
    char why[256];
    if (weir_nexmark_check(&cfg, why, sizeof why)) {
        weir_tool_error("weir nexmark: %s", why);
        return 2;
    }
    if (cfg.events <= 0) {
        weir_tool_error("weir nexmark: 'events.num' is required (how many events to write)");
        return bad_usage();
    }

    FILE *out = stdout;
    char tmp[4096] = "";
    if (path) {
        if (snprintf(tmp, sizeof tmp, "%s.XXXXXX", path) >= (int)sizeof tmp) {
            weir_tool_error("weir nexmark: %s: the name is too long", path);
            return 2;
        }
        int fd = mkstemp(tmp);
        if (fd < 0 || !(out = fdopen(fd, "w"))) {
            weir_tool_error("weir nexmark: %s: cannot write beside it: %s", path,
                            strerror(errno));
            if (fd >= 0) {
                close(fd);
                unlink(tmp);
            }
            return 1;
        }
    }
    static char line[3 * WEIR_NEXMARK_EXTRA_MAX + 4096];
    int status = 0;
    for (int64_t n = 0; n < cfg.events; n++) {
        if ((n & 1023) == 0 && weir_cli_stopped())
            break;
        weir_nexmark_event e;
        weir_nexmark_event_at(&cfg, n, &e);
        int len = weir_nexmark_write_json(&e, line, sizeof line - 1);
        if (len < 0 || (size_t)len >= sizeof line - 1) {
            weir_tool_error("weir nexmark: event %lld is longer than %zu bytes", (long long)n,
                            sizeof line);
            status = 1;
            break;
        }
        line[len++] = '\n';
        if (fwrite(line, 1, (size_t)len, out) != (size_t)len)
            break; /* said below (ferror) */
    }
    if (!path)
        return status; /* weir.c flushes standard output and says a failed write */
    int err = ferror(out) ? (errno ? errno : EIO) : 0;
    if (fclose(out) != 0 && !err)
        err = errno ? errno : EIO;
    if (err || status || weir_cli_stopped()) {
        if (err)
            weir_tool_error("weir nexmark: %s: %s", path, strerror(err));
        unlink(tmp);
        return status ? status : err ? 1 : 0;
    }
    if (rename(tmp, path) != 0) {
        weir_tool_error("weir nexmark: %s: %s", path, strerror(errno));
        unlink(tmp);
        return 1;
    }
    return 0;
}
