/* checkpoint.c — `weir checkpoint inspect PATH` (checkpoint.h).
 *
 * PATH is a chk-N folder or a job's checkpoint folder (a parent of chk-N
 * folders). For each checkpoint, newest first, it prints whether it is
 * complete and verifies, each file with its bytes and "ok" or what is wrong,
 * and what the job recorded about it (JSON); then which checkpoint a
 * restore from PATH would take. */
#include "checkpoint.h"

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <weir.h>

#include "message.h"

static const char usage_text[] =
    "usage: weir checkpoint inspect PATH\n"
    "\n"
    "PATH is a checkpoint folder (chk-N) or the folder a job writes its checkpoints to.\n"
    "Prints each checkpoint, newest first: whether it is complete and every file\n"
    "verifies, each file with its size, and what the job recorded in it; then which\n"
    "checkpoint a restore from PATH would take. Exit status: 0 if one would be taken,\n"
    "1 if none verifies, 2 for bad usage.\n";

/* The chk-N name's N, or -1. */
static int64_t id_of(const char *name)
{
    if (strncmp(name, "chk-", 4) != 0 || name[4] < '1' || name[4] > '9')
        return -1;
    char *end;
    errno = 0;
    long long v = strtoll(name + 4, &end, 10);
    return *end || errno ? -1 : (int64_t)v;
}

static void print_file(const char *name, uint64_t bytes, const char *problem, void *arg)
{
    (void)arg;
    printf("  %-24s %12" PRIu64 " bytes  ", name, bytes);
    if (problem) {
        weir_tool_escape(stdout, problem, strlen(problem));
        putchar('\n');
    } else {
        puts("ok");
    }
}

/* One chk-N folder: its files and, if it verifies, its job record. */
static void inspect_one(const char *dir, const char *label)
{
    char why[1024];
    fputs(label, stdout);
    printf(":\n");
    if (weir_checkpoint_check(dir, print_file, NULL, why, sizeof why) != 0) {
        printf("  does not verify\n");
        return;
    }
    weir_checkpoint *c;
    if (weir_checkpoint_open(dir, NULL, NULL, &c, why, sizeof why) != 0) {
        printf("  does not verify: ");
        weir_tool_escape(stdout, why, strlen(why));
        putchar('\n');
        return;
    }
    uint64_t total = 0;
    for (size_t i = 0; i < weir_checkpoint_file_count(c); i++)
        total += weir_checkpoint_file_bytes(c, i);
    size_t nfiles = weir_checkpoint_file_count(c);
    printf("  complete, every file verifies: checkpoint %" PRId64 ", %zu state file%s, %" PRIu64
           " bytes of state\n",
           weir_checkpoint_id(c), nfiles, nfiles == 1 ? "" : "s", total);
    const char *job = weir_checkpoint_job_json(c);
    printf("  job: %s\n", job ? job : "(out of memory)");
    weir_checkpoint_close(c);
}

static int cmp_desc(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x < y) - (x > y);
}

/* Every chk-N of the parent, newest first. */
static int inspect_parent(const char *path)
{
    DIR *d = opendir(path);
    if (!d) {
        weir_tool_error("weir checkpoint inspect: %s: %s", path, weir_tool_strerror(errno));
        return 1;
    }
    int64_t *ids = NULL;
    size_t n = 0, cap = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        int64_t id = id_of(e->d_name);
        if (id < 0)
            continue;
        if (n == cap) {
            cap = cap ? 2 * cap : 16;
            int64_t *p = realloc(ids, cap * sizeof *p);
            if (!p) {
                closedir(d);
                free(ids);
                weir_tool_error("weir checkpoint inspect: out of memory");
                return 1;
            }
            ids = p;
        }
        ids[n++] = id;
    }
    closedir(d);
    if (n)
        qsort(ids, n, sizeof *ids, cmp_desc);
    size_t len = strlen(path) + 32;
    char *dir = malloc(len);
    for (size_t i = 0; dir && i < n; i++) {
        char label[32];
        snprintf(label, sizeof label, "chk-%" PRId64, ids[i]);
        snprintf(dir, len, "%s/%s", path, label);
        inspect_one(dir, label);
    }
    free(dir);
    free(ids);
    return 0;
}

static int inspect(const char *path)
{
    struct stat st;
    if (stat(path, &st) != 0 || !S_ISDIR(st.st_mode)) {
        weir_tool_error("weir checkpoint inspect: %s: no such folder", path);
        return 1;
    }
    const char *base = strrchr(path, '/');
    base = base && base[1] ? base + 1 : path;
    if (id_of(base) >= 0)
        inspect_one(path, base);
    else if (inspect_parent(path) != 0)
        return 1;
    char why[1024];
    weir_checkpoint *c;
    if (weir_checkpoint_open(path, NULL, NULL, &c, why, sizeof why) != 0) {
        weir_tool_error("weir checkpoint inspect: no checkpoint to restore: %s", why);
        return 1;
    }
    printf("a restore from ");
    weir_tool_escape(stdout, path, strlen(path));
    printf(" takes checkpoint %" PRId64 "\n", weir_checkpoint_id(c));
    weir_checkpoint_close(c);
    return 0;
}

int weir_checkpoint_main(int argc, char **argv)
{
    if (argc >= 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
                      strcmp(argv[1], "help") == 0)) {
        fputs(usage_text, stdout);
        return 0;
    }
    if (argc != 3 || strcmp(argv[1], "inspect") != 0) {
        if (argc >= 2 && strcmp(argv[1], "inspect") != 0)
            weir_tool_error("weir checkpoint: unknown command '%s'", argv[1]);
        fputs(usage_text, stderr);
        return 2;
    }
    return inspect(argv[2]);
}
