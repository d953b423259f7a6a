// wf_windows.hpp — weir-bench's window scenarios in WindFlow (tumbling.cpp,
// sliding.cpp): event source -> FFAT windows keyed by the element's key,
// counting -> sink chained to the windows. The source replica i of p emits
// records i, i+p, i+2p, ... of work.c's gen_event (10 000 keys, 1 M records
// a second of event time, up to 100 ms out of order) with their event time,
// and after each one the bounded-out-of-orderness watermark (largest
// timestamp - 100 ms - 1), as weir's timestamps operator computes it (weir
// emits it every 200 ms; WindFlow takes it with the next record). The FFAT
// operator (WindFlow's incremental windows: a FlatFAT of per-pane partial
// aggregates per key) lifts a record into a count with work.c's count_add
// and combines with its count_merge; its output batches hold
// WF_BENCH_BATCH results. The sinks' results, counts and checksum must be a
// reference's computed before the first run (work_shim.c), the totals
// weir-bench checks its window rows against.
//
// WindFlow's time is unsigned microseconds and its windows start at 0, so
// every timestamp is shifted by `offset_ms` (a multiple of the slide, and
// at least the longest window: no window weir has starts before 0); a
// result's window is its id (the key's window number from 0).
#ifndef WEIR_BENCH_WF_WINDOWS_HPP
#define WEIR_BENCH_WF_WINDOWS_HPP

#include "wf_common.hpp"

struct event_source {
    int64_t records;
    int64_t offset_ms;
    void operator()(wf::Source_Shipper<wf_elem> &sh, wf::RuntimeContext &rc)
    {
        const int64_t step = (int64_t)rc.getParallelism();
        const uint64_t bound_us = (100 + 1) * 1000;
        uint64_t max_us = 0, wm = 0;
        wf_elem e;
        for (int64_t s = (int64_t)rc.getReplicaIndex(); s < records; s += step) {
            uint64_t ts = (uint64_t)(wfb_gen_event(s, &e) + offset_ms) * 1000;
            sh.pushWithTimestamp(e, ts);
            if (ts > max_us)
                max_us = ts;
            if (max_us > bound_us && max_us - bound_us > wm) {
                wm = max_us - bound_us;
                sh.setNextWatermark(wm);
            }
        }
    }
};

struct count_lift {
    void operator()(const wf_elem &e, wf_result &r)
    {
        r.value = 0;
        wfb_count_add(&r.value, &e);
    }
};

struct count_comb {
    // FlatFAT calls it with `out` the same object as `b`
    void operator()(const wf_result &a, const wf_result &b, wf_result &out)
    {
        int64_t acc = a.value;
        wfb_count_merge(&acc, &b.value);
        out.value = acc;
    }
};

struct window_sink {
    void *wacc;
    int64_t size_ms, slide_ms, offset_ms;
    void operator()(std::optional<wf_result> &r, wf::RuntimeContext &rc)
    {
        // a window of a key that began with empty panes (before its first
        // record) is no result: weir makes windows of records only
        if (r && r->value > 0)
            wfb_sink_window(r->key, r->value,
                            (int64_t)r->id * slide_ms + size_ms - 1 - offset_ms,
                            (int)rc.getReplicaIndex(), wacc);
    }
};

static inline int wf_run_windows(int argc, char **argv, const char *name, const char *scenario,
                                 int64_t size_ms, int64_t slide_ms, int64_t offset_ms)
{
    using namespace wf;
    wf_args a = wf_parse(argc, argv, name, 20000000);
    wfb_wtotals want;
    if (wfb_window_reference(a.records, size_ms, slide_ms, &want) != 0) {
        std::fprintf(stderr, "%s: out of memory for the reference\n", name);
        return 1;
    }
    return wf_measure(scenario, a, [&](double *seconds) {
        void *wacc = wfb_wacc_create((int)a.parallelism);
        PipeGraph graph(name, Execution_Mode_t::DEFAULT, Time_Policy_t::EVENT_TIME);
        Source source = Source_Builder(event_source{a.records, offset_ms})
                            .withName("events")
                            .withParallelism(a.parallelism)
                            .withOutputBatchSize(WF_BENCH_BATCH)
                            .build();
        MultiPipe &mp = graph.add_source(source);
        Ffat_Windows win = Ffat_Windows_Builder(count_lift{}, count_comb{})
                               .withName("window")
                               .withParallelism(a.parallelism)
                               .withKeyBy([](const wf_elem &e) -> int64_t { return e.key; })
                               .withTBWindows(std::chrono::milliseconds(size_ms),
                                              std::chrono::milliseconds(slide_ms))
                               .withOutputBatchSize(WF_BENCH_BATCH)
                               .build();
        mp.add(win);
        Sink sink = Sink_Builder(window_sink{wacc, size_ms, slide_ms, offset_ms})
                        .withName("sink")
                        .withParallelism(a.parallelism)
                        .build();
        mp.chain_sink(sink);
        *seconds = wf_time(graph);
        wfb_wtotals got;
        wfb_wacc_total(wacc, (int)a.parallelism, &got);
        std::free(wacc);
        if (got.results != want.results || got.counts != want.counts || got.mix != want.mix) {
            std::fprintf(stderr,
                         "%s: the sinks got %llu results counting %llu records (mix %llx), "
                         "expected %llu counting %llu (%llx)\n",
                         name, (unsigned long long)got.results, (unsigned long long)got.counts,
                         (unsigned long long)got.mix, (unsigned long long)want.results,
                         (unsigned long long)want.counts, (unsigned long long)want.mix);
            return false;
        }
        return true;
    });
}

#endif
