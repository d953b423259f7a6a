/* capture.c — `weir capture`: convert, validate and summarize the captures
 * the diagnostic channel writes (docs/CAPTURE.md).
 *
 *   weir capture convert [--partial] IN.msgpack OUT.jsonl
 *   weir capture convert --to chrome-trace IN OUT.json
 *   weir capture validate FILE
 *   weir capture summary FILE
 *
 * All three read through the library's capture reader (weir/capture.h), which
 * detects the format and gives every event as one canonical JSON line; the
 * tool parses the lines with jansson. Nothing is written half-way: convert
 * writes OUT.partial and renames it only when every event is in (a bad input
 * removes it and leaves OUT as it was), and refuses a capture cut short (its
 * last event not the summary) unless asked with --partial; summary builds
 * its report in memory and prints it only for a capture that passed the
 * checks. Problems are printed as the reader prints its own, "FILE:LINE: ..."
 * or "FILE: byte offset N: ...", on stderr. Standard output is flushed and
 * closed before the exit, and a report or message that could not be written
 * there (a full disk, a closed pipe) is an error too. Exit status: 0 done, 1
 * a bad capture or an I/O error, 2 a usage error.
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
    "msgpack: a file that starts with a msgpack map is msgpack, any other is read\n"
    "as JSONL.\n"
    "\n"
    "commands:\n"
    "  convert IN OUT   write the msgpack capture IN as JSONL to OUT\n"
    "                   (--partial: also a capture cut short; --to chrome-trace:\n"
    "                   a JSON trace for Perfetto or chrome://tracing)\n"
    "  validate FILE    check that FILE is a whole, consistent capture\n"
    "  summary FILE     print a readable report of FILE: per operator watermarks,\n"
    "                   stalls, windows, late elements, throughput, backpressure\n"
    "\n"
    "FILE may be '-' for standard input. Problems are reported as FILE:LINE: ...\n"
    "(JSONL) or FILE: byte offset N: ... (msgpack). Exit status: 0 success, 1 a bad\n"
    "capture or output that could not be written, 2 a usage error.\n"
    "\n"
    "Run 'weir capture COMMAND --help' for a command's details.\n";

static const char convert_help[] =
    "usage: weir capture convert [--partial] IN.msgpack OUT.jsonl\n"
    "       weir capture convert --to chrome-trace IN OUT.json\n"
    "\n"
    "Writes the msgpack capture IN as JSONL: one JSON object per event and line,\n"
    "byte for byte what the run would have written to a JSONL file. OUT is written\n"
    "as OUT.partial and renamed when complete; if IN is truncated or malformed, or\n"
    "cut short (its last event is not the summary, as when a file was cut between\n"
    "two events), OUT.partial is removed, OUT is left as it was, and the exit\n"
    "status is 1.\n"
    "\n"
    "  --partial   convert a capture cut short between two events anyway (to look\n"
    "              at what a run that never finished wrote); a cut in the middle\n"
    "              of an event is still refused\n"
    "\n"
    "IN may be '-' for standard input. Events are converted, not checked: run\n"
    "'weir capture validate' for that.\n"
    "\n"
    "  --to chrome-trace  write IN (JSONL or msgpack) in the Trace Event Format that\n"
    "              Perfetto's UI (ui.perfetto.dev) and chrome://tracing open: one\n"
    "              process per operator, one thread per subtask, processing time\n"
    "              as the time axis; the output watermark and throughput as\n"
    "              counters, firings and late elements as instants, idle spans and\n"
    "              backpressure as slices (docs/CAPTURE.md). IN is checked as\n"
    "              validate checks it; a capture that is not valid writes nothing.\n";

static const char validate_help[] =
    "usage: weir capture validate FILE\n"
    "\n"
    "Checks a JSONL or msgpack capture against docs/CAPTURE.md and itself:\n"
    "  - every line is JSON (parse errors with line and column); every event is an\n"
    "    object with a string \"kind\" and an integer \"t\"; the known kinds have\n"
    "    their fields with the documented types, and watermarks and timestamps at\n"
    "    INT64_MIN / INT64_MAX are the strings \"MIN\" / \"MAX\", not integers;\n"
    "  - the first event is the job event (version 1 or 2), the last the summary,\n"
    "    and nothing comes after it (a capture without it was cut short);\n"
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
    "    the lag behind the largest element timestamp it had taken in (at each\n"
    "    throughput event: the largest, and the last one while the watermark was\n"
    "    finite; n/a without throughput events, as at level summary; 0 when the\n"
    "    watermark had passed every element seen), and the longest stall: the\n"
    "    longest processing time between two advances while the output was not\n"
    "    idle, up to MAX, with the valve channel that held the minimum back then\n"
    "    (and the producer subtask feeding it) or the operator that generates the\n"
    "    watermark;\n"
    "  - windows: firings on time and late, late elements dropped and sent to the\n"
    "    side output, merges and cleanups;\n"
    "  - backpressure: time blocked on a full output and the fullest channel fill;\n"
    "  - idleness: time each output spent idle.\n"
    "A capture that is not valid gets its first problem printed instead, as in\n"
    "validate, and exit status 1; nothing of the report is printed then. That\n"
    "includes a capture cut short (without its summary event): its counters\n"
    "cannot be checked.\n";

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

/* Why IN, read as JSONL, is no msgpack capture: empty, JSONL already (its
 * first line is an object), or something else. */
static void not_msgpack(weir_capture_reader *r)
{
    const char *name = weir_capture_reader_name(r);
    const char *line;
    int e = weir_capture_reader_next(r, &line, NULL);
    if (e == WEIR_CAPTURE_END)
        fprintf(stderr, "%s: is empty: no events (convert reads a msgpack capture)\n", name);
    else if (e == WEIR_CAPTURE_EVENT && line[strspn(line, " \t\r")] == '{')
        fprintf(stderr, "%s: is JSONL already (convert reads a msgpack capture)\n", name);
    else
        fprintf(stderr,
                "%s: is not a msgpack capture (it does not start with a msgpack map)\n", name);
}

/* The `kind` of an event's JSON text, into buf ("" if it has none). */
static void kind_of(const char *json, size_t len, char *buf, size_t size)
{
    buf[0] = '\0';
    json_t *ev = json_loadb(json, len, 0, NULL);
    json_t *k = json_object_get(ev, "kind");
    if (json_is_string(k))
        snprintf(buf, size, "%s", json_string_value(k));
    json_decref(ev);
}

/* OUT is written as OUT.partial and renamed only when complete: out_begin()
 * creates OUT.partial (NULL, with the message printed, when it cannot);
 * out_end() closes it and, if `ok` and everything was written, renames it to
 * OUT, else removes it. Either way it frees *tmp. True when OUT is in place. */
static FILE *out_begin(const char *out, char **tmp)
{
    size_t n = strlen(out) + sizeof ".partial";
    *tmp = malloc(n);
    if (!*tmp) {
        fprintf(stderr, "weir capture convert: out of memory\n");
        return NULL;
    }
    snprintf(*tmp, n, "%s.partial", out);
    FILE *f = fopen(*tmp, "wb");
    if (!f) {
        fprintf(stderr, "%s: cannot create: %s\n", *tmp, strerror(errno));
        free(*tmp);
        *tmp = NULL;
    }
    return f;
}

static bool out_end(FILE *f, char *tmp, const char *out, bool ok)
{
    if (ok && (fflush(f) != 0 || ferror(f))) {
        fprintf(stderr, "%s: cannot write: %s\n", tmp, strerror(errno ? errno : EIO));
        ok = false;
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
    free(tmp);
    return ok;
}

/* --to chrome-trace: the capture IN (either format, checked as validate
 * checks it) as the Trace Event Format (capture_chrome_trace.c). */
static int convert_chrome_trace(const char *in, const char *out)
{
    char *tmp;
    FILE *f = out_begin(out, &tmp);
    if (!f)
        return 1;
    char err[ERRSIZE];
    bool ok = cap_chrome_trace(in, f, err, sizeof err) == 0;
    if (!ok)
        fprintf(stderr, "%s\n", err);
    else if (ferror(f)) {
        fprintf(stderr, "%s: cannot write: %s\n", tmp, strerror(errno ? errno : EIO));
        ok = false;
    }
    if (!out_end(f, tmp, out, ok))
        return 1;
    printf("converted %s to a chrome trace in %s\n", in, out);
    return 0;
}

static int convert(const char *in, const char *out, bool partial)
{
    char err[ERRSIZE];
    weir_capture_reader *r;
    if (open_reader(in, &r, err, sizeof err)) {
        fprintf(stderr, "%s\n", err);
        return 1;
    }
    if (weir_capture_reader_format(r) != WEIR_CAPTURE_MSGPACK) {
        not_msgpack(r);
        weir_capture_reader_close(r);
        return 1;
    }
    char *tmp;
    FILE *f = out_begin(out, &tmp);
    if (!f) {
        weir_capture_reader_close(r);
        return 1;
    }
    int64_t events = 0;
    bool ok = true;
    /* the last event, to tell a whole capture from one cut between events */
    char *last = NULL;
    size_t last_cap = 0, last_len = 0;
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
        if (len + 1 > last_cap) {
            char *b = realloc(last, len + 1);
            if (!b) {
                fprintf(stderr, "weir capture convert: out of memory\n");
                ok = false;
                break;
            }
            last = b;
            last_cap = len + 1;
        }
        memcpy(last, line, len);
        last_len = len;
        events++;
    }
    if (ok && !partial) {
        char kind[64];
        kind_of(last, last_len, kind, sizeof kind);
        if (strcmp(kind, "summary") != 0) {
            char where[1024];
            weir_capture_reader_where(r, where, sizeof where);
            fprintf(stderr,
                    "%s: the capture is cut short: its last event is %s%s%s, not the summary "
                    "(convert --partial converts it anyway)\n",
                    where, *kind ? "a " : "one without a kind", kind, *kind ? " event" : "");
            ok = false;
        }
    }
    free(last);
    ok = out_end(f, tmp, out, ok);
    if (ok)
        printf("converted %" PRId64 " events to %s%s\n", events, out,
               partial ? " (--partial: it may be cut short)" : "");
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
 * exactly `want` operands besides the options named in `opts` (NULL for
 * none; each that is given sets its flag in `set`). -1 when they are fine;
 * operands are then moved to the front of argv[1..]. */
static int args(int argc, char **argv, int want, const char *help, const char *const *opts,
                bool *set)
{
    for (int i = 1; i < argc; i++) {
        if (is_help(argv[i])) {
            fputs(help, stdout);
            return 0;
        }
    }
    int n = 1;
    for (int i = 1; i < argc; i++) {
        if (argv[i][0] == '-' && argv[i][1] != '\0') {
            int k = 0;
            while (opts && opts[k] && strcmp(opts[k], argv[i]) != 0)
                k++;
            if (!opts || !opts[k]) {
                fprintf(stderr, "weir capture %s: unknown option '%s'\n\n%s", argv[0], argv[i],
                        help);
                return 2;
            }
            set[k] = true;
            continue;
        }
        argv[n++] = argv[i];
    }
    if (n - 1 != want) {
        fprintf(stderr, "weir capture %s: expected %d argument%s, got %d\n\n%s", argv[0], want,
                want == 1 ? "" : "s", n - 1, help);
        return 2;
    }
    return -1;
}

/* Standard output is where the report or the message goes: when it did not
 * get there (a full disk, a closed pipe), the command failed. */
static int close_stdout(int status)
{
    errno = 0;
    bool bad = fflush(stdout) != 0 || ferror(stdout);
    int err = errno;
    if (fclose(stdout) != 0 && !bad) {
        bad = true;
        err = errno;
    }
    if (!bad)
        return status;
    fprintf(stderr, "weir capture: cannot write to standard output: %s\n",
            strerror(err ? err : EIO));
    return status ? status : 1;
}

/* convert's `--to FORMAT` (or `--to=FORMAT`), taken out of argv: FORMAT is
 * "jsonl" (the default) or "chrome-trace". -1 when fine, else the exit status. */
static int take_to(int *argc, char **argv, const char **to)
{
    int n = 0;
    for (int i = 0; i < *argc; i++) {
        const char *v = NULL;
        if (strcmp(argv[i], "--to") == 0) {
            if (i + 1 >= *argc) {
                fprintf(stderr, "weir capture convert: --to needs a format (jsonl or chrome-trace)\n");
                return 2;
            }
            v = argv[++i];
        } else if (strncmp(argv[i], "--to=", 5) == 0) {
            v = argv[i] + 5;
        } else {
            argv[n++] = argv[i];
            continue;
        }
        if (strcmp(v, "jsonl") != 0 && strcmp(v, "chrome-trace") != 0) {
            fprintf(stderr, "weir capture convert: unknown format '%s' (--to jsonl or --to chrome-trace)\n", v);
            return 2;
        }
        *to = v;
    }
    *argc = n;
    return -1;
}

static int capture_command(int argc, char **argv);

int weir_capture_main(int argc, char **argv)
{
    return close_stdout(capture_command(argc, argv));
}

static int capture_command(int argc, char **argv)
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
        const char *to = "jsonl";
        if ((r = take_to(&argc, argv, &to)) >= 0)
            return r;
        static const char *const opts[] = {"--partial", NULL};
        bool set[1] = {false};
        if ((r = args(argc - 1, argv + 1, 2, convert_help, opts, set)) >= 0)
            return r;
        if (strcmp(to, "chrome-trace") == 0) {
            if (set[0]) {
                fprintf(stderr, "weir capture convert: --partial is for --to jsonl only (a chrome "
                                "trace is made of a whole, valid capture)\n");
                return 2;
            }
            return convert_chrome_trace(argv[2], argv[3]);
        }
        return convert(argv[2], argv[3], set[0]);
    }
    if (strcmp(cmd, "validate") == 0) {
        if ((r = args(argc - 1, argv + 1, 1, validate_help, NULL, NULL)) >= 0)
            return r;
        return validate(argv[2]);
    }
    if (strcmp(cmd, "summary") == 0) {
        if ((r = args(argc - 1, argv + 1, 1, summary_help, NULL, NULL)) >= 0)
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
