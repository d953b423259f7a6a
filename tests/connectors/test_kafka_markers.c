/* test_kafka_markers.c — the wire format of the Kafka sink's watermark
 * markers (connectors/kafka/kafka_markers.h), which the sink writes and the source
 * reads: every marker reads back as written, and what is not a marker is
 * refused. The sink and source tests (test_sink_kafka, test_kafka_scaleout)
 * cover the markers end to end on the mock cluster. */
#include <criterion/criterion.h>
#include <stdint.h>
#include <string.h>

#include "kafka_markers.h"
#include "weir/error.h"
#include "weir/time.h"

Test(kafka_markers, every_marker_reads_back_as_written)
{
    static const weir__kafka_mark kinds[] = {WEIR__KAFKA_MARK_WATERMARK, WEIR__KAFKA_MARK_IDLE,
                                             WEIR__KAFKA_MARK_ACTIVE, WEIR__KAFKA_MARK_END};
    static const int64_t wms[] = {WEIR_TS_MIN, -1, 0, 1, 1700000000123, WEIR_TS_MAX};
    static const int writers[][2] = {{0, 1}, {3, 4}, {65535, WEIR__KAFKA_MAX_WRITERS}};
    for (size_t k = 0; k < 4; k++)
        for (size_t w = 0; w < sizeof wms / sizeof *wms; w++)
            for (size_t i = 0; i < 3; i++) {
                weir__kafka_marker m = {.writer = writers[i][0],
                                        .writers = writers[i][1],
                                        .kind = kinds[k],
                                        .watermark = wms[w]};
                char text[WEIR__KAFKA_MARKER_MAX];
                int n = weir__kafka_marker_format(&m, text, sizeof text);
                cr_assert(n > 0 && (size_t)n < sizeof text);
                weir__kafka_marker back;
                cr_assert_eq(weir__kafka_marker_parse(text, (size_t)n, &back), 0, "%s", text);
                cr_assert(back.writer == m.writer && back.writers == m.writers &&
                              back.kind == m.kind && back.watermark == m.watermark,
                          "%s", text);
            }
}

Test(kafka_markers, what_is_not_a_marker_is_refused)
{
    static const char *bad[] = {"",
                                "0 1 W",
                                "0 1 X 5",
                                "1 1 W 5",
                                "-1 2 W 5",
                                "0 0 W 5",
                                "0 65537 W 5",
                                "0 1 W 5 ",
                                "0 1 W 5 6",
                                " 0 1 W 5",
                                "0 +1 W 5",
                                "0  1 W 5",
                                "0 1 WW 5",
                                "0 1 W -",
                                "0 1 W 99999999999999999999",
                                /* longer than any marker */
                                ("0 1 W 1234567890123456789012345678901234567890123456789"
                                 "0123456789012345678901234567890123456789012345678"),
                                NULL};
    for (size_t i = 0; bad[i]; i++) {
        weir__kafka_marker m;
        cr_assert_eq(weir__kafka_marker_parse(bad[i], strlen(bad[i]), &m), WEIR_EFORMAT, "\"%s\"",
                     bad[i]);
    }
    /* not NUL-terminated: only len bytes are read */
    weir__kafka_marker m;
    cr_assert_eq(weir__kafka_marker_parse("2 3 I 7xyz", 7, &m), 0);
    cr_assert(m.writer == 2 && m.writers == 3 && m.kind == WEIR__KAFKA_MARK_IDLE &&
              m.watermark == 7);
}
