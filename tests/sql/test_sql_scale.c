/* test_sql_scale.c — SQL text of any size: a file of thousands of
 * statements plans in memory linear in its length (the real binary,
 * WEIR_BINARY_DIR/tools/weir, run as a child whose peak resident size
 * getrusage reports), and the session API's long select lists, IN lists and
 * CASE expressions, whose errors keep their reason and their place. */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "weir.h"

#define WEIR WEIR_BINARY_DIR "/tools/weir"

/* ---- the binary's peak memory ---------------------------------------------------- */

/* Writes `n` statements planning a query each into path. */
static void write_statements(const char *path, int n)
{
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f, "%s: %s", path, strerror(errno));
    fprintf(f, "CREATE TABLE clicks (`key` BIGINT, `value` BIGINT, ts TIMESTAMP(3),\n"
               "  WATERMARK FOR ts AS ts)\n"
               "WITH ('connector'='datagen', 'number-of-rows'='5', 'seed'='3');\n");
    for (int i = 0; i < n; i++) {
        if (i % 2)
            fprintf(f, "SET 'parallelism.default' = '1';\n");
        else
            fprintf(f, "SELECT `key` + %d AS k, `value` FROM clicks WHERE `value` > %d;\n", i, i);
    }
    cr_assert_eq(fclose(f), 0);
}

/* `weir sql --check path`: its exit status and peak resident size (KB). */
static long check_maxrss(const char *path, int *status)
{
    cr_assert_eq(access(WEIR, X_OK), 0, "%s is missing: build the weir-cli target", WEIR);
    pid_t pid = fork();
    cr_assert_neq(pid, -1);
    if (pid == 0) {
        int null = open("/dev/null", O_WRONLY);
        if (null < 0 || dup2(null, 1) < 0)
            _exit(121);
        execl(WEIR, "weir", "sql", "--check", path, (char *)NULL);
        _exit(122);
    }
    struct rusage ru;
    cr_assert_eq(wait4(pid, status, 0, &ru), pid);
    return ru.ru_maxrss;
}

Test(sql_scale, memory_is_linear_in_the_number_of_statements, .timeout = 120)
{
    char dir[] = "/tmp/weir-sql-scale-XXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    char one[600], many[600];
    snprintf(one, sizeof one, "%s/one.sql", dir);
    snprintf(many, sizeof many, "%s/many.sql", dir);
    write_statements(one, 1);
    write_statements(many, 4000);
    int st;
    long base = check_maxrss(one, &st);
    cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "weir sql --check failed on one statement");
    long big = check_maxrss(many, &st);
    cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "weir sql --check failed on 4000");
    /* The file is 190 KB; its tokens, statements and plans a few MB. Each
     * statement's array grown by one element at a time made it 1.2 GB. */
    cr_assert_lt(big - base, 64 * 1024, "4000 statements took %ld KB more than one", big - base);
    unlink(one);
    unlink(many);
    rmdir(dir);
}
