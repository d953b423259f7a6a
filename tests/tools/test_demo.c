/* test_demo.c — `weir demo` as a user runs it: it finishes, writes the three
 * captures and report.html, and what it prints is what the experiments are
 * for: without idleness the merged watermark stalls for at least the idle
 * period (20 s), with idleness (2 s) for less than the timeout plus a few
 * watermark intervals; late elements go to the side output in one window and
 * are dropped in its twin, in equal numbers.
 *
 * The stalls are measured here again, exactly in milliseconds, from the
 * captures the demo wrote (the window operator's output watermarks), and
 * the printed seconds must be that number: nothing is rounded on either
 * side of the comparison. report.html is written through a link (the link
 * stays) and into a FIFO in place (its reader gets the report; the FIFO
 * stays), each the test's own in its temporary folder. */
#include <criterion/criterion.h>
#include <sys/wait.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "support/fifo_reader.h"

#define WEIR_BIN WEIR_BINARY_DIR "/tools/weir"

#define IDLE_MS 20000
#define IDLENESS_MS 2000
#define INTERVAL_MS 200

/* Runs `weir demo ARGS`; returns what it printed on stdout (and on stderr
 * when `with_stderr`) and its exit status in *status. */
static char *run_weir(const char *args, bool with_stderr, int *status)
{
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "'%s' demo %s %s", WEIR_BIN, args,
             with_stderr ? "2>&1" : "2>/dev/null");
    FILE *p = popen(cmd, "r");
    cr_assert_not_null(p);
    size_t cap = 1 << 16, n = 0;
    char *out = malloc(cap);
    size_t got;
    while ((got = fread(out + n, 1, cap - n - 1, p)) > 0)
        n += got;
    out[n] = '\0';
    *status = pclose(p);
    return out;
}

static char *run_demo(const char *dir)
{
    char args[600];
    snprintf(args, sizeof args, "--out '%s'", dir);
    int status;
    char *out = run_weir(args, false, &status);
    cr_assert_eq(status, 0, "weir demo failed:\n%s", out);
    return out;
}

/* The printed stall after `label`, in milliseconds: the demo prints exact
 * milliseconds as seconds with three decimals. */
static long printed_ms(const char *out, const char *label)
{
    const char *at = strstr(out, label);
    cr_assert_not_null(at, "no '%s' in:\n%s", label, out);
    char digits[32];
    cr_assert_eq(sscanf(at + strlen(label), " %31[0-9.] s", digits), 1, "no seconds after '%s'",
                 label);
    const char *dot = strchr(digits, '.');
    cr_assert(dot && strlen(dot + 1) == 3, "'%s' is not seconds with three decimals", digits);
    return strtol(digits, NULL, 10) * 1000 + strtol(dot + 1, NULL, 10);
}

/* The longest stall of the output watermark of operator `op` in a capture:
 * the longest processing time between two advances of one subtask before it
 * reached MAX (how the demo defines it). */
static long capture_stall_ms(const char *dir, const char *name, const char *op)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "r");
    cr_assert_not_null(f, "cannot open %s", path);
    long last[64];
    for (int i = 0; i < 64; i++)
        last[i] = -1;
    long best = -1;
    char *line = NULL;
    size_t cap = 0;
    int advances = 0;
    while (getline(&line, &cap, f) > 0) {
        json_error_t err;
        json_t *e = json_loads(line, 0, &err);
        cr_assert_not_null(e, "%s: not JSON: %s", path, err.text);
        const char *kind = json_string_value(json_object_get(e, "kind"));
        const char *eop = json_string_value(json_object_get(e, "op"));
        json_t *wm = json_object_get(e, "watermark");
        if (kind && strcmp(kind, "watermark") == 0 && eop && strcmp(eop, op) == 0 &&
            !json_object_get(e, "input") && json_is_integer(wm)) {
            int s = (int)json_integer_value(json_object_get(e, "subtask"));
            long t = (long)json_integer_value(json_object_get(e, "t"));
            cr_assert(s >= 0 && s < 64);
            if (last[s] >= 0 && t - last[s] > best)
                best = t - last[s];
            last[s] = t;
            advances++;
        }
        json_decref(e);
    }
    free(line);
    fclose(f);
    cr_assert_gt(advances, 10, "%s: only %d watermark advances of %s", path, advances, op);
    return best;
}

static long count_before(const char *line, const char *what)
{
    const char *at = strstr(line, what);
    cr_assert_not_null(at);
    while (at > line && at[-1] == ' ')
        at--;
    while (at > line && at[-1] >= '0' && at[-1] <= '9')
        at--;
    return strtol(at, NULL, 10);
}

/* What the demo found: its output up to the list of files (which names
 * the directory). */
static char *findings(const char *out)
{
    const char *end = strstr(out, "Captures:");
    cr_assert_not_null(end, "no 'Captures:' in:\n%s", out);
    return strndup(out, (size_t)(end - out));
}

static bool exists(const char *dir, const char *name)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    struct stat st;
    return stat(path, &st) == 0 && st.st_size > 0;
}

Test(demo, shows_the_stall_and_the_late_data, .timeout = 300)
{
    char dir[] = "/tmp/weir-demo-test-XXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    /* the report through a link: the file it names gets it */
    char link[200], elsewhere[200];
    snprintf(link, sizeof link, "%s/report.html", dir);
    snprintf(elsewhere, sizeof elsewhere, "%s/elsewhere.html", dir);
    cr_assert_eq(symlink("elsewhere.html", link), 0);
    char *out = run_demo(dir);
    struct stat lst;
    cr_assert_eq(lstat(link, &lst), 0);
    cr_expect(S_ISLNK(lst.st_mode), "report.html (a link) was replaced by a file");
    cr_expect(exists(dir, "elsewhere.html"), "the report did not go where the link points");

    long without = capture_stall_ms(dir, "idle-without-idleness.jsonl", "window");
    long with = capture_stall_ms(dir, "idle-with-idleness.jsonl", "window");
    cr_expect_geq(without, IDLE_MS, "stall without idleness %ld ms < the %d ms idle period",
                  without, IDLE_MS);
    /* declared idle between T and T + 3 intervals after the last element;
     * the merged watermark then moves at the next probe */
    cr_expect_lt(with, IDLENESS_MS + 4 * INTERVAL_MS, "stall with idleness %ld ms", with);
    cr_expect_gt(with, 0);
    cr_expect_eq(printed_ms(out, "without idleness"), without,
                 "printed stall without idleness differs from the capture's %ld ms", without);
    cr_expect_eq(printed_ms(out, "with idleness (2 s)"), with,
                 "printed stall with idleness differs from the capture's %ld ms", with);
    /* Who held it: the channel from the quiet partition, named through the
     * topology (channel -> timestamps subtask -> generator partition). */
    cr_expect(strstr(out, "held by its input channel 2") &&
                  strstr(out, "(from timestamps[2], fed by generator partition 2)"),
              "the stall should name channel 2 and where it comes from:\n%s", out);

    const char *side = strstr(out, "window-side-output ");
    const char *drop = strstr(out, "window-drop ");
    cr_assert(side && drop, "no lateness lines in:\n%s", out);
    long side_out = count_before(side, "elements to the side output");
    long dropped = count_before(drop, " dropped");
    cr_expect_gt(side_out, 0);
    cr_expect_eq(side_out, dropped, "same input: %ld to the side output, %ld dropped", side_out,
                 dropped);
    cr_expect_gt(count_before(side, "late firings"), 0);
    cr_expect_gt(count_before(side, "on-time firings"), 0);

    cr_expect(exists(dir, "idle-without-idleness.jsonl"));
    cr_expect(exists(dir, "idle-with-idleness.jsonl"));
    cr_expect(exists(dir, "lateness.jsonl"));
    cr_expect(exists(dir, "report.html"));
    cr_expect(strstr(out, "report.html") != NULL, "no word on how to open the captures");

    /* Reproducible: a second run writes the same captures byte for byte
     * (into a directory whose parents do not exist yet: --out makes them). */
    char dir2[] = "/tmp/weir-demo-test-XXXXXX";
    cr_assert_not_null(mkdtemp(dir2));
    char nested[200];
    snprintf(nested, sizeof nested, "%s/a/b/c", dir2);
    char *out2 = run_demo(nested);
    char *summary = findings(out), *summary2 = findings(out2);
    cr_expect_str_eq(summary2, summary, "two demo runs printed different findings");
    free(summary);
    free(summary2);
    free(out2);
    char cmd[2200];
    static const char *const names[] = {"idle-without-idleness.jsonl", "idle-with-idleness.jsonl",
                                        "lateness.jsonl"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        snprintf(cmd, sizeof cmd, "cmp -s '%s/%s' '%s/%s'", dir, names[i], nested, names[i]);
        cr_expect_eq(system(cmd), 0, "two demo runs wrote different %s", names[i]);
    }
    free(out);
    snprintf(cmd, sizeof cmd, "rm -rf '%s' '%s'", dir, dir2);
    cr_expect_eq(system(cmd), 0);
}

/* report.html is a FIFO: the report is written into it in place, whole,
 * and it stays a FIFO. */
Test(demo, the_report_goes_into_a_fifo_in_place, .timeout = 300)
{
    char dir[] = "/tmp/weir-demo-fifo-XXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    char fifo[200];
    snprintf(fifo, sizeof fifo, "%s/report.html", dir);
    cr_assert_eq(mkfifo(fifo, 0600), 0);
    fifo_reader r;
    fifo_reader_start(&r, fifo);
    char *out = run_demo(dir);
    size_t len = 0;
    char *html = fifo_reader_join(&r, &len);
    struct stat st;
    cr_assert_eq(lstat(fifo, &st), 0);
    cr_assert(S_ISFIFO(st.st_mode), "report.html (a FIFO) was replaced by a file");
    cr_assert(strstr(html, "<script id=\"weir-embedded-captures\" type=\"application/json\">"
                           "[{\"name\":\"idle-without-idleness.jsonl\""),
              "the FIFO's reader got no report with the captures (%zu bytes)", len);
    cr_assert(strstr(html, "</html>"), "the report the FIFO's reader got is cut short");
    free(html);
    free(out);
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    cr_expect_eq(system(cmd), 0);
}

Test(demo, out_without_a_directory_says_so)
{
    int status;
    char *out = run_weir("--out", true, &status);
    cr_expect_neq(status, 0);
    cr_expect(strstr(out, "'--out' needs a directory") != NULL, "message:\n%s", out);
    cr_expect(strstr(out, "unknown argument") == NULL, "message:\n%s", out);
    free(out);
}

Test(demo, out_under_a_file_names_the_path)
{
    char file[] = "/tmp/weir-demo-file-XXXXXX";
    int fd = mkstemp(file);
    cr_assert_geq(fd, 0);
    close(fd);
    char args[300];
    snprintf(args, sizeof args, "--out '%s/x/y'", file);
    int status;
    char *out = run_weir(args, true, &status);
    cr_expect_neq(status, 0);
    char want[400];
    snprintf(want, sizeof want,
             "weir demo: %s/x/y: cannot create the folder %s: it is a regular file", file, file);
    cr_expect(strstr(out, want) != NULL, "expected '%s' in:\n%s", want, out);
    free(out);
    unlink(file);
}

Test(demo, serve_with_a_bad_address_says_why)
{
    int status;
    char *out = run_weir("--serve 127.0.0.1", true, &status);
    cr_expect_eq(WEXITSTATUS(status), 2);
    cr_expect(strstr(out, "weir demo: --serve: http_addr: '127.0.0.1' is not HOST:PORT") != NULL,
              "message:\n%s", out);
    free(out);
    out = run_weir("--serve", true, &status);
    cr_expect_neq(status, 0);
    cr_expect(strstr(out, "'--serve' needs an address") != NULL, "message:\n%s", out);
    free(out);
}
