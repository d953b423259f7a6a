// rebalance.cpp — weir-bench's `rebalance` in WindFlow: source -> map,
// chained, then added (not chained) to p filter replicas with the sink
// chained to them: every record crosses one queue between threads, in
// output batches of WF_BENCH_BATCH. Records, work and checks as chain.cpp.
//
// Not round-robin: WindFlow 4.2.2's Filter_Builder::withRebalancing() exits
// ("wrong use of withRebalancing()") whatever the routing, its check being
// the wrong way round, so the filter keeps the default FORWARD routing,
// which at equal parallelism connects each map replica to one filter
// replica. One hop a record, as weir's rebalance; at p >= 2 weir's spreads
// each producer's records over every consumer and WindFlow's does not.
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

int main(int argc, char **argv)
{
    wf_args a = wf_parse(argc, argv, "wf-rebalance", 20000000);
    uint64_t want_count, want_sum;
    wfb_expected(a.records, &want_count, &want_sum);
    return wf_measure("rebalance", a, [&](double *seconds) {
        void *acc = wfb_acc_create((int)a.parallelism);
        PipeGraph graph("wf-rebalance", Execution_Mode_t::DEFAULT, Time_Policy_t::EVENT_TIME);
        Source source = Source_Builder(chain_source{a.records})
                            .withName("source")
                            .withParallelism(a.parallelism)
                            .withOutputBatchSize(WF_BENCH_BATCH)
                            .build();
        MultiPipe &mp = graph.add_source(source);
        Map map = Map_Builder(chain_map{})
                      .withName("map")
                      .withParallelism(a.parallelism)
                      .withOutputBatchSize(WF_BENCH_BATCH)
                      .build();
        mp.chain(map);
        Filter filter = Filter_Builder(chain_filter{})
                            .withName("filter")
                            .withParallelism(a.parallelism)
                            .build();
        mp.add(filter);
        Sink sink = Sink_Builder(count_sink{acc}).withName("sink").withParallelism(a.parallelism).build();
        mp.chain_sink(sink);
        *seconds = wf_time(graph);
        uint64_t count, sum;
        wfb_acc_total(acc, (int)a.parallelism, &count, &sum);
        std::free(acc);
        if (count != want_count || sum != want_sum) {
            std::fprintf(stderr, "wf-rebalance: the sinks got %llu records (checksum %llx), expected %llu (%llx)\n",
                         (unsigned long long)count, (unsigned long long)sum,
                         (unsigned long long)want_count, (unsigned long long)want_sum);
            return false;
        }
        return true;
    });
}
