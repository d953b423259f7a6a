/* checkpoint.c — `weir checkpoint inspect PATH` (checkpoint.h).
 *
 * PATH is a chk-N folder or a job's checkpoint folder (a parent of chk-N
 * folders). For each checkpoint, newest first, it prints whether it is
 * complete and verifies, each file with its bytes and "ok" or what is wrong,
 * and what the job recorded about it (JSON); then which checkpoint a
 * restore from PATH would take. */
#include "checkpoint.h"

#include <inttypes.h>
#include <jansson.h>
#include <stdio.h>
#include <string.h>

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

static uint64_t file_bytes(const weir_checkpoint *c, const char *name)
{
    for (size_t i = 0; i < weir_checkpoint_file_count(c); i++) {
        if (strcmp(weir_checkpoint_file_name(c, i), name) == 0)
            return weir_checkpoint_file_bytes(c, i);
    }
    return 0;
}

static void print_name(const char *s)
{
    weir_tool_escape(stdout, s, strlen(s));
}

/* A job record the runtime wrote (docs/CHECKPOINTS.md, "_metadata"): the
 * operators, each subtask's file, size and key groups. false if `job` is not
 * one (then the caller prints it as JSON). */
static bool print_operators(const weir_checkpoint *c, const char *job)
{
    json_t *root = json_loads(job, 0, NULL);
    json_t *ops = json_object_get(root, "operators");
    json_t *maxp = json_object_get(root, "max_parallelism");
    if (!json_is_array(ops) || !json_is_integer(maxp) || json_integer_value(maxp) < 1) {
        json_decref(root);
        return false;
    }
    json_int_t m = json_integer_value(maxp);
    const char *mode = json_string_value(json_object_get(root, "mode"));
    printf("  taken at %" JSON_INTEGER_FORMAT " ms of processing time, %s, max parallelism %"
           JSON_INTEGER_FORMAT "%s\n",
           json_integer_value(json_object_get(root, "time_ms")), mode ? mode : "?", m,
           json_is_true(json_object_get(root, "final")) ? ", the job's final checkpoint" : "");
    size_t i;
    json_t *op;
    json_array_foreach(ops, i, op) {
        const char *uid = json_string_value(json_object_get(op, "uid"));
        const char *name = json_string_value(json_object_get(op, "name"));
        json_int_t p = json_integer_value(json_object_get(op, "parallelism"));
        bool keyed = json_is_true(json_object_get(op, "keyed"));
        bool source = json_is_true(json_object_get(op, "source"));
        json_t *files = json_object_get(op, "files");
        printf("  operator ");
        print_name(uid ? uid : "?");
        if (name && uid && strcmp(name, uid) != 0) {
            printf(" (");
            print_name(name);
            printf(")");
        }
        printf(": %s, parallelism %" JSON_INTEGER_FORMAT "\n",
               source ? "source" : keyed ? "keyed" : "not keyed", p);
        size_t j;
        json_t *f;
        json_array_foreach(files, j, f) {
            const char *fn = json_string_value(f);
            printf("    subtask %-3zu %-28s %10" PRIu64 " bytes", j, fn ? fn : "?",
                   fn ? file_bytes(c, fn) : 0);
            if (keyed && p > 0) {
                /* subtask j of p owns ceil(jM/p) .. floor(((j+1)M-1)/p) */
                json_int_t first = ((json_int_t)j * m + p - 1) / p;
                json_int_t last = (((json_int_t)j + 1) * m - 1) / p;
                printf("  key groups %" JSON_INTEGER_FORMAT "-%" JSON_INTEGER_FORMAT, first,
                       last);
            }
            putchar('\n');
        }
    }
    json_decref(root);
    return true;
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
    if (!job || !print_operators(c, job))
        printf("  job: %s\n", job ? job : "(out of memory)");
    weir_checkpoint_close(c);
}

static int inspect(const char *path)
{
    char why[1024];
    char **folders;
    size_t n;
    if (weir_checkpoint_list(path, &folders, &n, why, sizeof why) != 0) {
        weir_tool_error("weir checkpoint inspect: %s", why);
        return 1;
    }
    for (size_t i = 0; i < n; i++) {
        const char *base = strrchr(folders[i], '/');
        inspect_one(folders[i], base && base[1] ? base + 1 : folders[i]);
    }
    weir_checkpoint_list_free(folders, n);
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
