/* fuzz_capture.c — fuzz target for the capture reader (weir/capture.h):
 * the input is a capture, JSONL or msgpack (the reader tells them by the
 * first byte), read from memory to its end or its first error. A msgpack
 * event the reader hands out is its own JSON text, so it must parse as
 * JSON (jansson); the JSONL reader does not parse lines, so those are only
 * read. With WEIR_LIBFUZZER it is a libFuzzer binary (the `fuzz` preset);
 * without, test_replay.c calls it. */
#include "fuzz.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <weir/capture.h>

int weir_fuzz_capture(const uint8_t *data, size_t size)
{
    static const uint8_t empty[1];
    weir_capture_reader *r = NULL;
    char err[512];
    if (weir_capture_reader_open_memory(size ? data : empty, size, "fuzz.capture", &r, err,
                                        sizeof err) != 0) {
        if (r) {
            fprintf(stderr, "fuzz_capture: a failed open left a reader\n");
            abort();
        }
        return 0;
    }
    bool msgpack = weir_capture_reader_format(r) == WEIR_CAPTURE_MSGPACK;
    for (;;) {
        const char *json = NULL;
        size_t len = 0;
        int rc = weir_capture_reader_next(r, &json, &len);
        if (rc != WEIR_CAPTURE_EVENT) {
            /* An error carries its message. */
            if (rc < 0 && weir_capture_reader_error(r)[0] == '\0') {
                fprintf(stderr, "fuzz_capture: error %d without a message\n", rc);
                abort();
            }
            break;
        }
        if (!json || strlen(json) != len) {
            fprintf(stderr, "fuzz_capture: event length %zu does not match its text\n", len);
            abort();
        }
        int64_t off = weir_capture_reader_offset(r);
        if (off < 0 || (uint64_t)off > size) {
            fprintf(stderr, "fuzz_capture: offset %lld outside %zu bytes\n", (long long)off, size);
            abort();
        }
        if (msgpack) {
            json_error_t jerr;
            /* INT_AS_REAL: a msgpack uint64 above INT64_MAX is valid JSON
             * that jansson's integers cannot hold. A NUL in a key is valid
             * JSON ("\u0000") that jansson refuses: not a reader bug. */
            json_t *v = json_loadb(json, len,
                                   JSON_DECODE_ANY | JSON_ALLOW_NUL | JSON_DECODE_INT_AS_REAL, &jerr);
            if (!v && json_error_code(&jerr) == json_error_null_byte_in_key)
                continue;
            if (!v) {
                fprintf(stderr, "fuzz_capture: msgpack event %lld is not JSON (%s): %.200s\n",
                        (long long)weir_capture_reader_event_number(r), jerr.text, json);
                abort();
            }
            json_decref(v);
        }
    }
    weir_capture_reader_close(r);
    return 0;
}

#ifdef WEIR_LIBFUZZER
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return weir_fuzz_capture(data, size);
}
#endif
