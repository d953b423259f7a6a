/* test_replay.c — the fuzz targets' committed inputs as a test of the normal
 * suite (no libFuzzer needed): every file of tests/fuzz/corpus/<target>/
 * (the seeds) and tests/fuzz/regressions/<target>/ (inputs a fuzz run once
 * crashed on, kept when fixed) goes through the same entry point the
 * libFuzzer binary calls (fuzz.h). A crash, a sanitizer report (asan preset)
 * or an abort() of the target's own checks fails the test. Bounded by the
 * corpus: a few dozen small files, well under a second. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz/fuzz.h"

typedef int (*fuzz_fn)(const uint8_t *data, size_t size);

static uint8_t *read_all(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    cr_assert_not_null(f, "cannot open %s", path);
    size_t cap = 4096, n = 0;
    uint8_t *buf = malloc(cap);
    cr_assert_not_null(buf);
    size_t got;
    while ((got = fread(buf + n, 1, cap - n, f)) > 0) {
        n += got;
        if (n == cap) {
            cap *= 2;
            buf = realloc(buf, cap);
            cr_assert_not_null(buf);
        }
    }
    cr_assert(!ferror(f), "cannot read %s", path);
    fclose(f);
    *size = n;
    return buf;
}

/* Feeds every regular file of WEIR_SOURCE_DIR/<folder> whose name ends
 * with `suffix` ("" for all) to fn; returns how many (0 if the folder is
 * absent). */
static int replay_folder(const char *folder, const char *suffix, fuzz_fn fn)
{
    char dir[1024];
    snprintf(dir, sizeof dir, "%s/%s", WEIR_SOURCE_DIR, folder);
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    int count = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        size_t n = strlen(e->d_name), k = strlen(suffix);
        if (e->d_name[0] == '.' || n < k || strcmp(e->d_name + n - k, suffix) != 0)
            continue;
        char path[2048];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        size_t size;
        uint8_t *data = read_all(path, &size);
        /* Which input it was, if it brings the test down. */
        fprintf(stderr, "replay %s\n", path);
        fn(data, size);
        free(data);
        count++;
    }
    closedir(d);
    return count;
}

/* tests/fuzz/<kind>/<target>, every file. */
static int replay_dir(const char *kind, const char *target, fuzz_fn fn)
{
    char folder[256];
    snprintf(folder, sizeof folder, "tests/fuzz/%s/%s", kind, target);
    return replay_folder(folder, "", fn);
}

static void replay(const char *target, fuzz_fn fn)
{
    /* The scripts' output is not what is tested here. */
    cr_assert_not_null(freopen("/dev/null", "w", stdout));
    /* The SQL target's seeds are the goldens themselves: the .sql files of tests/sql. */
    int seeds = strcmp(target, "sql") == 0 ? replay_folder("tests/sql", ".sql", fn)
                                           : replay_dir("corpus", target, fn);
    replay_dir("regressions", target, fn);
    /* An empty or missing corpus would make this test pass on nothing. */
    cr_assert_gt(seeds, 0, "no seed for the %s target", target);
}

Test(fuzz_replay, script)
{
    replay("script", weir_fuzz_script);
}

Test(fuzz_replay, capture)
{
    replay("capture", weir_fuzz_capture);
}

Test(fuzz_replay, sql)
{
    replay("sql", weir_fuzz_sql);
}
