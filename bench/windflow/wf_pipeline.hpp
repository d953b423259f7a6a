// wf_pipeline.hpp — weir-bench's `chain` and `rebalance` in WindFlow
// (chain.cpp, rebalance.cpp): source -> map -> filter -> sink. The source
// replica i generates the i-th of p slices of 0..N-1 with work.c's gen; map,
// filter and sink are work.c's. The sinks' count and checksum must be
// bench_expected's. `hop` false chains every operator onto its source
// replica's thread (WindFlow's chain(): one thread a replica, as weir chains
// them into one task); true adds the filter (with the sink chained to it)
// behind a queue, the map's output batches WF_BENCH_BATCH records: one hop
// between threads a record.
#ifndef WEIR_BENCH_WF_PIPELINE_HPP
#define WEIR_BENCH_WF_PIPELINE_HPP

#include "wf_common.hpp"

using namespace wf;


struct chain_source {
    int64_t records;
    void operator()(Source_Shipper<wf_elem> &sh, RuntimeContext &rc)
    {
        int64_t lo, hi;
        wf_slice(records, rc.getReplicaIndex(), rc.getParallelism(), &lo, &hi);
        wf_elem e;
        for (int64_t s = lo; s < hi; s++) {
            wfb_gen(s, &e);
            sh.pushWithTimestamp(e, (uint64_t)s);
        }
    }
};

struct chain_map {
    void operator()(wf_elem &e)
    {
        wf_elem in = e;
        wfb_map(&in, &e);
    }
};

struct chain_filter {
    bool operator()(wf_elem &e) { return wfb_filter(&e) != 0; }
};

struct count_sink {
    void *acc;
    void operator()(std::optional<wf_elem> &e, RuntimeContext &rc)
    {
        if (e)
            wfb_sink(&*e, (int64_t)rc.getCurrentTimestamp(), (int)rc.getReplicaIndex(), acc);
    }
};

static inline int wf_run_pipeline(int argc, char **argv, const char *prog, const char *scenario,
                                  bool hop)
{
    wf_args a = wf_parse(argc, argv, prog, 20000000);
    uint64_t want_count, want_sum;
    wfb_expected(a.records, &want_count, &want_sum);
    return wf_measure(scenario, a, [&](double *seconds) {
        void *acc = wfb_acc_create((int)a.parallelism);
        PipeGraph graph(prog, Execution_Mode_t::DEFAULT, Time_Policy_t::EVENT_TIME);
        Source source = Source_Builder(chain_source{a.records})
                            .withName("source")
                            .withParallelism(a.parallelism)
                            .withOutputBatchSize(WF_BENCH_BATCH)
                            .build();
        MultiPipe &mp = graph.add_source(source);
        Map map = Map_Builder(chain_map{})
                      .withName("map")
                      .withParallelism(a.parallelism)
                      .withOutputBatchSize(hop ? WF_BENCH_BATCH : 0)
                      .build();
        mp.chain(map);
        Filter filter = Filter_Builder(chain_filter{})
                            .withName("filter")
                            .withParallelism(a.parallelism)
                            .build();
        if (hop)
            mp.add(filter);
        else
            mp.chain(filter);
        Sink sink = Sink_Builder(count_sink{acc}).withName("sink").withParallelism(a.parallelism).build();
        mp.chain_sink(sink);
        *seconds = wf_time(graph);
        uint64_t count, sum;
        wfb_acc_total(acc, (int)a.parallelism, &count, &sum);
        std::free(acc);
        if (count != want_count || sum != want_sum) {
            std::fprintf(stderr, "%s: the sinks got %llu records (checksum %llx), expected %llu (%llx)\n",
                         prog, (unsigned long long)count, (unsigned long long)sum,
                         (unsigned long long)want_count, (unsigned long long)want_sum);
            return false;
        }
        return true;
    });
}

#endif
