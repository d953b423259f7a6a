/* weir.h — the umbrella header: everything public and stable in weir (not
 * weir/operator_builtin.h, which only weir's own operators include).
 *
 * weir is a small, fast, multi-threaded dataflow engine for event-time stream
 * processing, with Apache Flink's watermark semantics and a diagnostic channel
 * that records what event time does in every operator.
 *
 * The engine's functions are libweir's (pkg-config weir, CMake weir::weir).
 * The connectors' headers included here declare functions of their own
 * libraries: weir/kafka.h libweir-kafka's (weir-kafka, weir::weir-kafka),
 * weir/file_source.h and weir/file_sink.h libweir-file's (weir-file,
 * weir::weir-file). No inline function of any public header calls them,
 * so a program that includes weir.h and calls none links libweir alone. */
#ifndef WEIR_H
#define WEIR_H

#include "weir/capture.h"
#include "weir/checkpoint.h"
#include "weir/connector.h"
#include "weir/diag.h"
#include "weir/error.h"
#include "weir/expr.h"
#include "weir/file_sink.h"
#include "weir/file_source.h"
#include "weir/function.h"
#include "weir/kafka.h"
#include "weir/export.h"
#include "weir/generator.h"
#include "weir/harness.h"
#include "weir/job.h"
#include "weir/async.h"
#include "weir/broadcast.h"
#include "weir/keyed.h"
#include "weir/operator.h"
#include "weir/outfile.h"
#include "weir/row.h"
#include "weir/sql.h"
#include "weir/state.h"
#include "weir/stream.h"
#include "weir/table.h"
#include "weir/time.h"
#include "weir/time_zone.h"
#include "weir/version.h"
#include "weir/window.h"

#endif
