/* fuzz_sql.c — fuzz target for weir's SQL front-end: the input is a file of
 * statements, parsed, its tables made and its queries planned by a session
 * that runs none (weir_sql_config.plan_only), as `weir sql --check` does.
 * With WEIR_LIBFUZZER it is a libFuzzer binary (the `fuzz` preset);
 * without, test_replay.c calls it. */
#include "fuzz.h"

#include <stdio.h>
#include <stdlib.h>

#include "weir.h"

int weir_fuzz_sql(const uint8_t *data, size_t size)
{
    static FILE *sink;
    if (!sink && !(sink = fopen("/dev/null", "w"))) {
        perror("fuzz_sql: /dev/null");
        abort();
    }
    /* 'path' options are read from a folder that has no files in it */
    weir_sql_config cfg = {.out = sink, .plan_only = true, .base_dir = "/nonexistent"};
    weir_sql_session *s;
    if (weir_sql_session_create(&cfg, &s) != 0)
        return 0;
    int r = weir_sql_execute(s, (const char *)data, size);
    /* an error always says what it is */
    if (r != 0 && weir_sql_error(s)[0] == '\0') {
        fprintf(stderr, "fuzz_sql: error %d without a message\n", r);
        abort();
    }
    weir_sql_session_destroy(s);
    return 0;
}

#ifdef WEIR_LIBFUZZER
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return weir_fuzz_sql(data, size);
}
#endif
