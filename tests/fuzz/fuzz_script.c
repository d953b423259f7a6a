/* fuzz_script.c — fuzz target for `weir script`'s parser and harness: the
 * input is a script, read through a memory stream by weir_script_run() as
 * `weir script FILE` reads a file. With WEIR_LIBFUZZER it is a libFuzzer
 * binary (the `fuzz` preset); without, test_replay.c calls it. */
#include "fuzz.h"

#include <stdio.h>
#include <stdlib.h>

#include "script.h"

int weir_fuzz_script(const uint8_t *data, size_t size)
{
    /* fmemopen wants a buffer even for an empty input. */
    static const uint8_t empty[1];
    FILE *in = fmemopen((void *)(size ? data : empty), size, "r");
    if (!in) {
        perror("fuzz_script: fmemopen");
        abort();
    }
    int rc = weir_script_run(in, "fuzz.weir");
    fclose(in);
    /* 0, 1 (a run-time error) and 2 (a malformed script) are the statuses
     * of `weir script`; anything else is a bug. */
    if (rc < 0 || rc > 2) {
        fprintf(stderr, "fuzz_script: weir_script_run returned %d\n", rc);
        abort();
    }
    return 0;
}

#ifdef WEIR_LIBFUZZER
int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    /* The operators' output is not checked here and would slow the run. */
    if (!freopen("/dev/null", "w", stdout)) {
        perror("fuzz_script: /dev/null");
        abort();
    }
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return weir_fuzz_script(data, size);
}
#endif
