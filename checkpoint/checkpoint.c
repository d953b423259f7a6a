/* checkpoint.c — the public view of checkpoints on disk (weir/checkpoint.h)
 * over checkpoint_store.c. */
#include "weir/checkpoint.h"

#include <msgpack.h>
#include <stdio.h>
#include <stdlib.h>

#include "capture_json.h"
#include "checkpoint_store.h"
#include "weir/error.h"

struct weir_checkpoint {
    weir__chk chk;
    weir__buf json; /* the job object as JSON, made on first asking */
    bool json_made;
};

static int refuse(char *why, size_t whysize, int code, const char *msg)
{
    if (why && whysize)
        snprintf(why, whysize, "%s", msg);
    return code;
}

int weir_checkpoint_open(const char *path, weir_checkpoint_skip_fn skipped, void *arg,
                         weir_checkpoint **out, char *why, size_t whysize)
{
    if (out)
        *out = NULL;
    if (!path || !out)
        return refuse(why, whysize, WEIR_EINVAL, "a path and an out pointer are required");
    weir_checkpoint *c = calloc(1, sizeof *c);
    if (!c)
        return refuse(why, whysize, WEIR_ENOMEM, "out of memory");
    char err[512];
    int r = weir__chk_open(path, skipped, arg, &c->chk, err, sizeof err);
    if (r) {
        free(c);
        return refuse(why, whysize, r, err);
    }
    *out = c;
    return 0;
}

int64_t weir_checkpoint_id(const weir_checkpoint *c)
{
    return c ? c->chk.id : -1;
}

const char *weir_checkpoint_folder(const weir_checkpoint *c)
{
    return c ? c->chk.dir : NULL;
}

size_t weir_checkpoint_file_count(const weir_checkpoint *c)
{
    return c ? c->chk.nfiles : 0;
}

const char *weir_checkpoint_file_name(const weir_checkpoint *c, size_t i)
{
    return c && i < c->chk.nfiles ? c->chk.files[i].name : NULL;
}

uint64_t weir_checkpoint_file_bytes(const weir_checkpoint *c, size_t i)
{
    return c && i < c->chk.nfiles ? c->chk.files[i].bytes : 0;
}

const char *weir_checkpoint_job_json(weir_checkpoint *c)
{
    if (!c)
        return NULL;
    if (!c->json_made) {
        msgpack_unpacked up;
        msgpack_unpacked_init(&up);
        weir__buf_reset(&c->json);
        /* the job object verified as one msgpack object when it was opened */
        if (msgpack_unpack_next(&up, c->chk.job, c->chk.job_len, NULL) != MSGPACK_UNPACK_SUCCESS ||
            weir__msgpack_to_json(&up.data, &c->json) != 0)
            c->json.failed = true;
        msgpack_unpacked_destroy(&up);
        weir__buf_cstr(&c->json);
        c->json_made = !c->json.failed;
        if (!c->json_made)
            return NULL;
    }
    return c->json.data;
}

void weir_checkpoint_close(weir_checkpoint *c)
{
    if (!c)
        return;
    weir__chk_close(&c->chk);
    weir__buf_free(&c->json);
    free(c);
}

int weir_checkpoint_list(const char *path, char ***folders, size_t *n, char *why,
                         size_t whysize)
{
    if (folders)
        *folders = NULL;
    if (n)
        *n = 0;
    if (!path || !folders || !n)
        return refuse(why, whysize, WEIR_EINVAL, "a path and out pointers are required");
    char err[512];
    bool single;
    int r = weir__chk_list(path, folders, n, &single, err, sizeof err);
    return r ? refuse(why, whysize, r, err) : 0;
}

void weir_checkpoint_list_free(char **folders, size_t n)
{
    weir__chk_list_free(folders, n);
}

int weir_checkpoint_check(const char *folder, weir_checkpoint_file_fn file, void *arg, char *why,
                          size_t whysize)
{
    if (!folder || !file)
        return refuse(why, whysize, WEIR_EINVAL, "a folder and a file callback are required");
    char err[512];
    int r = weir__chk_check(folder, file, arg, err, sizeof err);
    return r ? refuse(why, whysize, r, err) : 0;
}
