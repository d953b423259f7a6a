// wf_common.hpp — what the WindFlow programs of bench/windflow share: the
// element, the command line, the timed runs and the report line
// (bench/windflow/README.md). The work a record is bench/work.c's, through
// wf_shim.h.
#ifndef WEIR_BENCH_WF_COMMON_HPP
#define WEIR_BENCH_WF_COMMON_HPP

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include <windflow.hpp>

#include "wf_shim.h"

// bench/work.c's bench_elem
struct wf_elem {
    int64_t key;
    int64_t value;
};
static_assert(sizeof(wf_elem) == 16, "bench_elem is 16 bytes");

// A window's result, as WindFlow's FFAT builds it: (key, window id), a count.
struct wf_result {
    int64_t key;
    uint64_t id;
    int64_t value;
    wf_result() : key(0), id(0), value(0) {}
    wf_result(int64_t k, uint64_t i) : key(k), id(i), value(0) {}
};

// Output batches of every operator whose output crosses threads.
#ifndef WF_BENCH_BATCH
#define WF_BENCH_BATCH 64
#endif

#if defined(BLOCKING_MODE)
#define WF_BENCH_BUILD "blocking"
#else
#define WF_BENCH_BUILD "spinning"
#endif

struct wf_args {
    size_t parallelism = 1;
    int64_t records = 20000000;
    int reps = 5;
};

static inline wf_args wf_parse(int argc, char **argv, const char *name, int64_t records)
{
    wf_args a;
    a.records = records;
    for (int i = 1; i < argc; i++) {
        if (i + 1 < argc && std::strcmp(argv[i], "-p") == 0)
            a.parallelism = (size_t)std::atoi(argv[++i]);
        else if (i + 1 < argc && std::strcmp(argv[i], "-n") == 0)
            a.records = std::atoll(argv[++i]);
        else if (i + 1 < argc && std::strcmp(argv[i], "-r") == 0)
            a.reps = std::atoi(argv[++i]);
        else {
            std::fprintf(stderr,
                         "usage: %s [-p PARALLELISM] [-n RECORDS] [-r REPS]\n"
                         "one warm-up run, then REPS timed runs; prints the median M records/s\n",
                         name);
            std::exit(2);
        }
    }
    if (a.parallelism < 1 || a.records < 1 || a.reps < 1) {
        std::fprintf(stderr, "%s: -p, -n and -r must be at least 1\n", name);
        std::exit(2);
    }
    return a;
}

// The records of source replica `i` of `p`: the i-th of p contiguous slices
// of 0..n-1, as weir-bench's chain and rebalance sources take them.
static inline void wf_slice(int64_t n, size_t i, size_t p, int64_t *lo, int64_t *hi)
{
    *lo = (int64_t)((__int128)n * (int64_t)i / (int64_t)p);
    *hi = (int64_t)((__int128)n * (int64_t)(i + 1) / (int64_t)p);
}

// One warm-up run and `reps` timed ones of `run` (which builds a PipeGraph,
// runs it and checks its sinks: false on a mismatch, after printing why);
// prints one line: scenario, build, parallelism, records, median, min, max.
static inline int wf_measure(const char *scenario, const wf_args &a,
                             const std::function<bool(double *seconds)> &run)
{
    double s;
    if (!run(&s))
        return 1;
    std::vector<double> rates;
    for (int r = 0; r < a.reps; r++) {
        if (!run(&s))
            return 1;
        rates.push_back((double)a.records / s / 1e6);
    }
    std::sort(rates.begin(), rates.end());
    double median = rates.size() % 2 ? rates[rates.size() / 2]
                                     : (rates[rates.size() / 2 - 1] + rates[rates.size() / 2]) / 2;
    std::printf("windflow %-10s %-8s p=%zu records=%lld median=%.2f min=%.2f max=%.2f M rec/s "
                "(batch %d, %d runs)\n",
                scenario, WF_BENCH_BUILD, a.parallelism, (long long)a.records, median,
                rates.front(), rates.back(), WF_BENCH_BATCH, a.reps);
    return 0;
}

// Times graph.run() (threads start and end inside it, as weir's workers do
// inside weir_job_run). WindFlow's status lines on std::cout are dropped.
static inline double wf_time(wf::PipeGraph &graph)
{
    std::ostringstream quiet;
    std::streambuf *out = std::cout.rdbuf(quiet.rdbuf());
    auto t0 = std::chrono::steady_clock::now();
    graph.run();
    auto t1 = std::chrono::steady_clock::now();
    std::cout.rdbuf(out);
    return std::chrono::duration<double>(t1 - t0).count();
}

#endif
