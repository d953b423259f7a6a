/* capture.c — `weir capture`: convert, validate and summarize the captures
 * the diagnostic channel writes (docs/CAPTURE.md).
 *
 *   weir capture convert IN.msgpack OUT.jsonl
 *   weir capture validate FILE
 *   weir capture summary FILE
 *
 * All three read through the library's capture reader (weir/capture.h), which
 * detects the format and gives every event as one canonical JSON line; the
 * tool parses the lines with jansson. Nothing is written half-way: convert
 * writes OUT.partial and renames it only when every event is in (a bad input
 * removes it and leaves OUT as it was); summary builds its report in memory
 * and prints it only for a capture that passed the checks. Problems are
 * printed as the reader prints its own, "FILE:LINE: ..." or
 * "FILE: byte offset N: ...", on stderr. Exit status: 0 done, 1 a bad
 * capture or an I/O error, 2 a usage error.
 */
#include "capture.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <weir.h>

#define ERRSIZE 2048

static const char usage_text[] =
    "usage: weir capture COMMAND [ARGS]\n"
    "\n"
    "Reads the captures of weir's diagnostic channel (docs/CAPTURE.md), JSONL or\n"
    "msgpack: a capture whose first non-space byte is '{' is JSONL, else msgpack.\n"
    "\n"
    "commands:\n"
    "  convert IN OUT   write the msgpack capture IN as JSONL to OUT\n"
    "  validate FILE    check that FILE is a whole, consistent capture\n"
    "  summary FILE     print a readable report of FILE: per operator watermarks,\n"
    "                   stalls, windows, late elements, throughput, backpressure\n"
    "\n"
    "FILE may be '-' for standard input. Problems are reported as FILE:LINE: ...\n"
    "(JSONL) or FILE: byte offset N: ... (msgpack). Exit status: 0 success, 1 a bad\n"
    "capture, 2 a usage error.\n"
    "\n"
    "Run 'weir capture COMMAND --help' for a command's details.\n";

static const char convert_help[] =
    "usage: weir capture convert IN.msgpack OUT.jsonl\n"
    "\n"
    "Writes the msgpack capture IN as JSONL: one JSON object per event and line,\n"
    "byte for byte what the run would have written to a JSONL file. OUT is written\n"
    "as OUT.partial and renamed when complete; if IN is truncated or malformed,\n"
    "OUT.partial is removed, OUT is left as it was, and the exit status is 1.\n"
    "IN may be '-' for standard input. Events are converted, not checked: run\n"
    "'weir capture validate' for that.\n";

static const char validate_help[] =
    "usage: weir capture validate FILE\n"
    "\n"
    "Checks a JSONL or msgpack capture against docs/CAPTURE.md and itself:\n"
    "  - every line is JSON (parse errors with line and column); every event is an\n"
    "    object with a string \"kind\" and an integer \"t\"; the known kinds have\n"
    "    their fields with the documented types;\n"
    "  - the first event is the job event (version 1), the last the summary, and\n"
    "    nothing comes after it;\n"
    "  - \"op\" names an operator of the job and \"subtask\" is below its parallelism;\n"
    "    valve events name an input and channel that exist;\n"
    "  - watermarks never go back, per operator subtask and per valve channel;\n"
    "  - the summary's counters add up by accounting class (source: in = 0;\n"
    "    one_to_one: in = out + filtered + late_dropped + late_side; window: in =\n"
    "    absorbed + filtered + late_dropped + late_side and late_side = side_out;\n"
    "    sink: out = 0), its \"events\" is the number of events before it, and a lossless\n"
    "    capture dropped none. Unless the run failed or events were dropped, each\n"
    "    subtask's throughput events add up to its counters, and each operator fed\n"
    "    only by main outputs took in what they sent it.\n"
    "Prints \"valid: N events\" and exits 0, or prints the first problem as\n"
    "FILE:LINE: ... (FILE: byte offset N: ... for msgpack) and exits 1.\n";

static const char summary_help[] =
    "usage: weir capture summary FILE\n"
    "\n"
    "Prints a readable report of a valid capture (see 'weir capture validate'):\n"
    "  - operators: parallelism, task, records in and out, per second of the run's\n"
    "    processing time, and the busiest subtask interval;\n"
    "  - watermarks, per operator subtask output: advances, the final watermark,\n"
    "    the lag behind the largest element timestamp seen (from record and late\n"
    "    events: verbose captures, or late elements), and the longest stall: the\n"
    "    longest processing time between two advances while the output was not\n"
    "    idle, up to MAX, with the valve channel that held the minimum back then\n"
    "    (and the producer subtask feeding it) or the operator that generates the\n"
    "    watermark;\n"
    "  - windows: firings on time and late, late elements dropped and sent to the\n"
    "    side output, merges and cleanups;\n"
    "  - backpressure: time blocked on a full output and the fullest channel fill;\n"
    "  - idleness: time each output spent idle.\n"
    "A capture that is not valid gets its first problem printed instead, as in\n"
    "validate, and exit status 1; nothing of the report is printed then.\n";

/* ---- reading -------------------------------------------------------------- */

static int open_reader(const char *path, weir_capture_reader **r, char *err, size_t errsize)
{
    if (strcmp(path, "-") == 0)
        return weir_capture_reader_open_file(stdin, "stdin", r, err, errsize);
    return weir_capture_reader_open(path, r, err, errsize);
}

static void where_msg(const weir_capture_reader *r, const char *msg, char *err, size_t errsize)
{
    char where[1024];
    weir_capture_reader_where(r, where, sizeof where);
    snprintf(err, errsize, "%s: %s", where, msg);
}

int cap_read(const char *path, cap_check *c, cap_visit_fn visit, void *arg, char *err,
             size_t errsize)
{
    weir_capture_reader *r;
    if (open_reader(path, &r, err, errsize))
        return -1;
    int result = -1;
    char msg[1024];
    c->msgpack = weir_capture_reader_format(r) == WEIR_CAPTURE_MSGPACK;
    for (;;) {
        const char *line;
        size_t len;
        int e = weir_capture_reader_next(r, &line, &len);
        if (e < 0) {
            snprintf(err, errsize, "%s", weir_capture_reader_error(r));
            goto out;
        }
        if (e == WEIR_CAPTURE_END)
            break;
        json_error_t je;
        json_t *ev = json_loadb(line, len, JSON_REJECT_DUPLICATES, &je);
        if (!ev) {
            char where[1024];
            weir_capture_reader_where(r, where, sizeof where);
            if (weir_capture_reader_format(r) == WEIR_CAPTURE_JSONL)
                snprintf(err, errsize, "%s:%d: not JSON: %s", where, je.column, je.text);
            else
                snprintf(err, errsize, "%s: not JSON at column %d: %s", where, je.column, je.text);
            goto out;
        }
        int bad = cap_check_event(c, ev);
        if (bad) {
            where_msg(r, c->msg, err, errsize);
        } else if (visit && visit(arg, c, ev, msg)) {
            where_msg(r, msg, err, errsize);
            bad = -1;
        }
        json_decref(ev);
        if (bad)
            goto out;
    }
    if (cap_check_end(c)) {
        if (weir_capture_reader_event_number(r) == 0)
            snprintf(err, errsize, "%s: %s", weir_capture_reader_name(r), c->msg);
        else
            where_msg(r, c->msg, err, errsize);
        goto out;
    }
    result = 0;
out:
    weir_capture_reader_close(r);
    return result;
}

/* ---- convert -------------------------------------------------------------- */

static int convert(const char *in, const char *out)
{
    char err[ERRSIZE];
    weir_capture_reader *r;
    if (open_reader(in, &r, err, sizeof err)) {
        fprintf(stderr, "%s\n", err);
        return 1;
    }
    if (weir_capture_reader_format(r) != WEIR_CAPTURE_MSGPACK) {
        fprintf(stderr, "%s: is JSONL already (convert reads a msgpack capture)\n",
                weir_capture_reader_name(r));
        weir_capture_reader_close(r);
        return 1;
    }
    size_t n = strlen(out) + sizeof ".partial";
    char *tmp = malloc(n);
    if (!tmp) {
        fprintf(stderr, "weir capture convert: out of memory\n");
        weir_capture_reader_close(r);
        return 1;
    }
    snprintf(tmp, n, "%s.partial", out);
    FILE *f = fopen(tmp, "wb");
    if (!f) {
        fprintf(stderr, "%s: cannot create: %s\n", tmp, strerror(errno));
        free(tmp);
        weir_capture_reader_close(r);
        return 1;
    }
    int64_t events = 0;
    bool ok = true;
    for (;;) {
        const char *line;
        size_t len;
        int e = weir_capture_reader_next(r, &line, &len);
        if (e < 0) {
            fprintf(stderr, "%s\n", weir_capture_reader_error(r));
            ok = false;
            break;
        }
        if (e == WEIR_CAPTURE_END)
            break;
        if (fwrite(line, 1, len, f) != len || fputc('\n', f) == EOF) {
            fprintf(stderr, "%s: cannot write: %s\n", tmp, strerror(errno));
            ok = false;
            break;
        }
        events++;
    }
    if (fclose(f) != 0 && ok) {
        fprintf(stderr, "%s: cannot write: %s\n", tmp, strerror(errno));
        ok = false;
    }
    if (ok && rename(tmp, out) != 0) {
        fprintf(stderr, "%s: cannot rename to %s: %s\n", tmp, out, strerror(errno));
        ok = false;
    }
    if (!ok)
        remove(tmp);
    else
        printf("converted %" PRId64 " events to %s\n", events, out);
    free(tmp);
    weir_capture_reader_close(r);
    return ok ? 0 : 1;
}

/* ---- validate ------------------------------------------------------------- */

static int validate(const char *path)
{
    char err[ERRSIZE];
    cap_check c;
    cap_check_init(&c);
    int r = cap_read(path, &c, NULL, NULL, err, sizeof err);
    if (r) {
        fprintf(stderr, "%s\n", err);
    } else {
        printf("valid: %" PRId64 " events", c.events);
        if (c.dropped_events)
            printf(" (and %" PRId64 " dropped by the lossy channel)", c.dropped_events);
        if (c.unknown)
            printf("; %" PRId64 " of kinds this weir does not know, skipped", c.unknown);
        if (c.run_failed)
            printf("; the run failed (%s), so its counters were not checked", c.run_error);
        printf("\n");
    }
    cap_check_free(&c);
    return r ? 1 : 0;
}

/* ---- dispatch ------------------------------------------------------------- */

static bool is_help(const char *a)
{
    return strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0;
}

/* Checks a subcommand's arguments: --help anywhere prints its help, else
 * exactly `want` operands that are not options. -1 when they are fine. */
static int args(int argc, char **argv, int want, const char *help)
{
    for (int i = 1; i < argc; i++) {
        if (is_help(argv[i])) {
            fputs(help, stdout);
            return 0;
        }
    }
    for (int i = 1; i < argc; i++) {
        if (argv[i][0] == '-' && argv[i][1] != '\0') {
            fprintf(stderr, "weir capture %s: unknown option '%s'\n\n%s", argv[0], argv[i], help);
            return 2;
        }
    }
    if (argc - 1 != want) {
        fprintf(stderr, "weir capture %s: expected %d argument%s, got %d\n\n%s", argv[0], want,
                want == 1 ? "" : "s", argc - 1, help);
        return 2;
    }
    return -1;
}

int weir_capture_main(int argc, char **argv)
{
    if (argc < 2) {
        fputs(usage_text, stderr);
        return 2;
    }
    const char *cmd = argv[1];
    int r;
    if (is_help(cmd) || strcmp(cmd, "help") == 0) {
        fputs(usage_text, stdout);
        return 0;
    }
    if (strcmp(cmd, "convert") == 0) {
        if ((r = args(argc - 1, argv + 1, 2, convert_help)) >= 0)
            return r;
        return convert(argv[2], argv[3]);
    }
    if (strcmp(cmd, "validate") == 0) {
        if ((r = args(argc - 1, argv + 1, 1, validate_help)) >= 0)
            return r;
        return validate(argv[2]);
    }
    if (strcmp(cmd, "summary") == 0) {
        if ((r = args(argc - 1, argv + 1, 1, summary_help)) >= 0)
            return r;
        char err[ERRSIZE];
        if (cap_summary_main(argv[2], stdout, err, sizeof err)) {
            fprintf(stderr, "%s\n", err);
            return 1;
        }
        return 0;
    }
    fprintf(stderr, "weir capture: unknown command '%s'\n\n%s", cmd, usage_text);
    return 2;
}
