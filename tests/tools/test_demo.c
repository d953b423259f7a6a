/* test_demo.c — `weir demo` as a user runs it: it finishes, writes the three
 * captures and report.html, and what it prints is what the experiments are
 * for: without idleness the merged watermark stalls for at least the idle
 * period (20 s), with idleness (2 s) for less than the timeout plus a few
 * watermark intervals; late elements go to the side output in one window and
 * are dropped in its twin, in equal numbers. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define WEIR_BIN WEIR_BINARY_DIR "/tools/weir"

static char *run_demo(const char *dir)
{
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "'%s' demo --out '%s' 2>/dev/null", WEIR_BIN, dir);
    FILE *p = popen(cmd, "r");
    cr_assert_not_null(p);
    size_t cap = 1 << 16, n = 0;
    char *out = malloc(cap);
    size_t got;
    while ((got = fread(out + n, 1, cap - n - 1, p)) > 0)
        n += got;
    out[n] = '\0';
    cr_assert_eq(pclose(p), 0, "weir demo failed:\n%s", out);
    return out;
}

/* The number of seconds after `label` on its line. */
static double seconds_after(const char *out, const char *label)
{
    const char *at = strstr(out, label);
    cr_assert_not_null(at, "no '%s' in:\n%s", label, out);
    double s = -1;
    cr_assert_eq(sscanf(at + strlen(label), " %lf s", &s), 1, "no seconds after '%s'", label);
    return s;
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
    char *out = run_demo(dir);

    double without = seconds_after(out, "without idleness");
    double with = seconds_after(out, "with idleness (2 s)");
    cr_expect_geq(without, 20.0, "stall without idleness %.1f s < the 20 s idle period", without);
    /* declared idle between T and T + 3 intervals after the last element */
    cr_expect_lt(with, 2.0 + 3 * 0.2 + 0.2, "stall with idleness %.1f s", with);
    cr_expect_gt(with, 0.0);

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
    free(out);

    /* Reproducible: a second run writes the same captures byte for byte. */
    char dir2[] = "/tmp/weir-demo-test-XXXXXX";
    cr_assert_not_null(mkdtemp(dir2));
    free(run_demo(dir2));
    char cmd[2200];
    snprintf(cmd, sizeof cmd, "cmp -s '%s/lateness.jsonl' '%s/lateness.jsonl' && "
             "cmp -s '%s/idle-with-idleness.jsonl' '%s/idle-with-idleness.jsonl'",
             dir, dir2, dir, dir2);
    cr_expect_eq(system(cmd), 0, "two demo runs wrote different captures");
    snprintf(cmd, sizeof cmd, "rm -rf '%s' '%s'", dir, dir2);
    cr_expect_eq(system(cmd), 0);
}
