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
 * writes a regular OUT through a temporary file beside it and renames that
 * only when every event is in (a bad input removes it and leaves OUT as it
 * was; a device or a pipe is written in place: weir/outfile.h), and refuses a capture cut
 * short (its last event not the summary) unless asked with --partial; summary builds
 * its report in memory and prints it only for a capture that passed the
 * checks. Problems are printed as the reader prints its own, "FILE:LINE: ..."
 * or "FILE: byte offset N: ...", on stderr. A report or message that could
 * not be written to standard output (a full disk, a closed pipe) is an error
 * too (weir.c checks it for every command). Exit status: 0 done, 1 a bad
 * capture or an I/O error, 2 a usage error.
 */
#include "capture.h"


#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <weir.h>

#include "capture_chrome_trace.h"
#include "capture_read.h"
#include "capture_summary.h"
#include "capture_validate.h"
#include "message.h"
#include "signals.h"

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
    "byte for byte what the run would have written to a JSONL file. A regular OUT\n"
    "(or a new one) is written into a temporary file beside it, renamed over OUT\n"
    "when complete; a symbolic link OUT is followed (the file it names is\n"
    "replaced, the link stays); a device such as /dev/null or a pipe is written\n"
    "in place, never replaced; a folder is refused. If IN is malformed or cut short (its last event is not\n"
    "the summary, as when the run writing it was stopped), the temporary file is\n"
    "removed, OUT is left as it was, and the exit status is 1. IN and OUT must be\n"
    "different files.\n"
    "\n"
    "  --partial   convert a capture cut short anyway, up to its last complete\n"
    "              event (to look at what a run that never finished wrote)\n"
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
    "  - the first event is the job event (version 1, 2 or 3), the last the summary,\n"
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
    "  - operators: kind, parallelism, task and accounting;\n"
    "  - records: in and out, per second of the run's processing time, and the\n"
    "    busiest subtask interval;\n"
    "  - watermarks, per operator subtask output: advances, the final watermark,\n"
    "    the lag behind the largest element timestamp it had taken in (at each\n"
    "    throughput event: the largest, and the last one while the watermark was\n"
    "    finite; n/a without throughput events, as at level summary; 0 when the\n"
    "    watermark had passed every element seen), and the longest stall: the\n"
    "    longest processing time between two advances while the output was not\n"
    "    idle, up to MAX; under it, when, and the valve channel that held the\n"
    "    minimum back then (and the producer subtask feeding it) or the operator\n"
    "    that generates the watermark; and, for a run that ended with watermarks\n"
    "    below MAX (cancelled, failed), each output not idle that had not moved\n"
    "    for over two watermark intervals: since when, and what held it then;\n"
    "  - windows: firings on time and late, late elements dropped and sent to the\n"
    "    side output, merges and cleanups;\n"
    "  - backpressure: time blocked on a full output and the fullest channel fill;\n"
    "  - idleness: time each output spent idle.\n"
    "Lines stay within 100 columns: the tables cut an operator's name to 24\n"
    "characters (the operators section gives it whole) and longer text wraps.\n"
    "A capture that is not valid gets its first problem printed instead, as in\n"
    "validate, and exit status 1; nothing of the report is printed then. That\n"
    "includes a capture cut short (without its summary event): its counters\n"
    "cannot be checked.\n";

/* ---- convert -------------------------------------------------------------- */

/* Why IN, read as JSONL, is no msgpack capture: empty, JSONL already (its
 * first line is an object), or something else. */
static void not_msgpack(weir_capture_reader *r)
{
    const char *name = weir_capture_reader_name(r);
    const char *line;
    int e = weir_capture_reader_next(r, &line, NULL);
    if (e == WEIR_CAPTURE_END)
        weir_tool_error("%s: is empty: no events (convert reads a msgpack capture)", name);
    else if (e == WEIR_CAPTURE_EVENT && line[strspn(line, " \t\r")] == '{')
        weir_tool_error("%s: is JSONL already (convert reads a msgpack capture)", name);
    else
        weir_tool_error("%s: is not a msgpack capture (it does not start with a msgpack map)", name);
}

/* The `kind` of an event's JSON text, into buf ("" if it has none): the
 * value of its top-level "kind" member, a string without escapes. Scanned,
 * not parsed: the text is the reader's printing of an msgpack map, valid
 * JSON, and a scan allocates nothing, where jansson, out of memory, may
 * say the text is not JSON (and the capture would be called cut short). */
static void kind_of(const char *json, size_t len, char *buf, size_t size)
{
    buf[0] = '\0';
    int depth = 0;
    char prev = 0; /* the last '{', ',' or ':' of the top-level object */
    for (size_t i = 0; i < len; i++) {
        char c = json[i];
        if (c == '"') {
            size_t start = ++i;
            while (i < len && json[i] != '"')
                i += json[i] == '\\' ? 2 : 1;
            if (i >= len)
                return;
            bool key = depth == 1 && (prev == '{' || prev == ',');
            if (key && i - start == 4 && memcmp(json + start, "kind", 4) == 0) {
                size_t v = i + 2, end;
                if (v > len || json[i + 1] != ':' || json[v] != '"')
                    return;
                for (end = v + 1; end < len && json[end] != '"' && json[end] != '\\'; end++)
                    ;
                if (end < len && json[end] == '"')
                    snprintf(buf, size, "%.*s", (int)(end - v - 1), json + v + 1);
                return;
            }
            if (depth == 1)
                prev = '"';
        } else if (c == '{' || c == '[') {
            if (++depth == 1)
                prev = c;
        } else if (c == '}' || c == ']') {
            depth--;
        } else if (depth == 1 && (c == ',' || c == ':')) {
            prev = c;
        }
    }
}

/* ---- convert's output ----------------------------------------------------- */

/* Where convert writes OUT: weir/outfile.h's writer. A regular file, or one
 * that does not exist yet, is written atomically: into a temporary file
 * made new beside it (a fresh name, so it can be neither OUT nor the input,
 * whatever they are called), renamed over it when complete and removed
 * otherwise. A symbolic link is written through: the file it names is the
 * one replaced, and the link stays. A FIFO or a character device (a pipe,
 * /dev/null) is written in place: renaming over it would replace the pipe
 * or the device node with a regular file; a failure there leaves what was
 * written. Anything else (a folder) is refused. */
typedef struct output {
    weir_outfile *w;
    FILE *f;
} output;

static int output_open(output *o, const char *out, const char *in)
{
    memset(o, 0, sizeof *o);
    struct stat in_st, st;
    bool have_in = strcmp(in, "-") == 0 ? fstat(STDIN_FILENO, &in_st) == 0
                                        : stat(in, &in_st) == 0;
    if (have_in && stat(out, &st) == 0 /* follows a link */ && st.st_dev == in_st.st_dev &&
        st.st_ino == in_st.st_ino) {
        weir_tool_error("%s: is the input too (convert writes a new file, not over its input)",
                out);
        return -1;
    }
    char err[4200];
    weir_outfile_config cfg = {.flags = WEIR_OUTFILE_IN_PLACE};
    if (weir_outfile_open(out, &cfg, &o->w, err, sizeof err) != 0) {
        weir_tool_error("%s", err);
        return -1;
    }
    o->f = weir_outfile_stream(o->w);
    return 0;
}

/* The name write errors go under: the file being written. */
static const char *output_file(const output *o)
{
    return weir_outfile_writing(o->w);
}

/* Closes the output; when ok, the temporary file becomes OUT. Returns
 * whether everything got there. */
static bool output_close(output *o, bool ok)
{
    if (!o->w)
        return false;
    if (ok) {
        char err[4200];
        if (weir_outfile_commit(o->w, err, sizeof err) != 0) {
            weir_tool_error("%s", err);
            ok = false;
        }
    } else {
        weir_outfile_discard(o->w);
    }
    o->w = NULL;
    o->f = NULL;
    return ok;
}

/* --to chrome-trace: the capture IN (either format, checked as validate
 * checks it) as the Trace Event Format (capture_chrome_trace.c). */
static int convert_chrome_trace(const char *in, const char *out)
{
    output o;
    if (output_open(&o, out, in)) {
        output_close(&o, false);
        return 1;
    }
    char err[ERRSIZE];
    bool ok = cap_chrome_trace(in, o.f, err, sizeof err) == 0;
    if (!ok)
        weir_tool_error("%s", err);
    else if (ferror(o.f)) {
        weir_tool_error("%s: cannot write: %s", output_file(&o),
                        weir_tool_strerror(weir_tool_lost_write_errno(o.f)));
        ok = false;
    }
    if (!output_close(&o, ok))
        return 1;
    printf("converted %s to a chrome trace in %s\n", in, out);
    return 0;
}

/* ---- convert -------------------------------------------------------------- */

static int convert(const char *in, const char *out, bool partial)
{
    char err[ERRSIZE];
    weir_capture_reader *r;
    if (cap_open(in, &r, err, sizeof err)) {
        weir_tool_error("%s", err);
        return 1;
    }
    if (weir_capture_reader_format(r) != WEIR_CAPTURE_MSGPACK) {
        not_msgpack(r);
        weir_capture_reader_close(r);
        return 1;
    }
    output o;
    if (output_open(&o, out, in)) {
        output_close(&o, false);
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
        if (weir_cli_stopped()) {
            /* a signal: OUT is left as it was (a read it interrupted
             * reports EINTR first, which fails the conversion too) */
            ok = false;
            break;
        }
        if (e < 0 && weir_capture_reader_cut(r) && partial)
            break; /* what is complete is in */
        if (e < 0) {
            weir_tool_error("%s%s", weir_capture_reader_error(r),
                    weir_capture_reader_cut(r) ? "; --partial reads what is complete" : "");
            ok = false;
            break;
        }
        if (e == WEIR_CAPTURE_END)
            break;
        if (fwrite(line, 1, len, o.f) != len || fputc('\n', o.f) == EOF) {
            weir_tool_error("%s: cannot write: %s", output_file(&o), weir_tool_strerror(errno));
            ok = false;
            break;
        }
        if (len + 1 > last_cap) {
            char *b = realloc(last, len + 1);
            if (!b) {
                weir_tool_error("weir capture convert: out of memory");
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
            weir_tool_error("%s: the capture is cut short: its last event is %s%s%s, not the summary "
                    "(convert --partial converts it anyway)",
                    where, *kind ? "a " : "one without a kind", kind, *kind ? " event" : "");
            ok = false;
        }
    }
    free(last);
    ok = output_close(&o, ok);
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
        weir_tool_error("%s", err);
    } else {
        printf("valid: %" PRId64 " events", c.events);
        if (c.dropped_events)
            printf(" (and %" PRId64 " dropped by the lossy channel)", c.dropped_events);
        if (c.unknown)
            printf("; %" PRId64 " of kinds this weir does not know, skipped", c.unknown);
        if (c.run_cancelled)
            printf("; the run was cancelled, so its counters were not checked");
        else if (c.run_failed)
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
                weir_tool_error("weir capture %s: unknown option '%s'", argv[0], argv[i]);
                fprintf(stderr, "\n%s", help);
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

/* convert's `--to FORMAT` (or `--to=FORMAT`), taken out of argv: FORMAT is
 * "jsonl" (the default) or "chrome-trace". -1 when fine, else the exit status. */
static int take_to(int *argc, char **argv, const char **to)
{
    int n = 0;
    for (int i = 0; i < *argc; i++) {
        const char *v = NULL;
        if (strcmp(argv[i], "--to") == 0) {
            if (i + 1 >= *argc) {
                weir_tool_error("weir capture convert: --to needs a format (jsonl or chrome-trace)");
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
            weir_tool_error("weir capture convert: unknown format '%s' (--to jsonl or --to chrome-trace)", v);
            return 2;
        }
        *to = v;
    }
    *argc = n;
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
        const char *to = "jsonl";
        if ((r = take_to(&argc, argv, &to)) >= 0)
            return r;
        static const char *const opts[] = {"--partial", NULL};
        bool set[1] = {false};
        if ((r = args(argc - 1, argv + 1, 2, convert_help, opts, set)) >= 0)
            return r;
        if (strcmp(to, "chrome-trace") == 0) {
            if (set[0]) {
                weir_tool_error("weir capture convert: --partial is for --to jsonl only (a chrome "
                                "trace is made of a whole, valid capture)");
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
            weir_tool_error("%s", err);
            if (ferror(stdout))
                weir_tool_stdout_said(); /* the message says why */
            return 1;
        }
        return 0;
    }
    weir_tool_error("weir capture: unknown command '%s'", cmd);
    fprintf(stderr, "\n%s", usage_text);
    return 2;
}
