/* fuzz.h — the fuzz targets' entry points (tests/fuzz/README.md). Each takes
 * one input as libFuzzer gives it; the libFuzzer binaries (tests/fuzz/
 * CMakeLists.txt, the `fuzz` preset) call them from LLVMFuzzerTestOneInput,
 * and test_replay.c calls the same functions on every committed corpus and
 * regression file, so that an input once found stays a test in the normal
 * suite. They return 0; a finding is a crash or a sanitizer report. */
#ifndef WEIR_TESTS_FUZZ_H
#define WEIR_TESTS_FUZZ_H

#include <stddef.h>
#include <stdint.h>

/* The bytes as a `weir script` script, run in process (weir_script_run),
 * its output going to stdout. */
int weir_fuzz_script(const uint8_t *data, size_t size);
/* The bytes as a capture (JSONL or msgpack), read to its end or first
 * error with the capture reader; each event of a msgpack capture must come
 * out as valid JSON. */
int weir_fuzz_capture(const uint8_t *data, size_t size);
/* The bytes as SQL statements: parsed, tables made and queries planned by
 * a session that runs none (weir_sql_config.plan_only). */
int weir_fuzz_sql(const uint8_t *data, size_t size);

#endif
