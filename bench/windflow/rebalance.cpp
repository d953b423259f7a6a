// rebalance.cpp — weir-bench's `rebalance` in WindFlow: source -> map,
// chained, then added (not chained) to p filter replicas with the sink
// chained to them: every record crosses one queue between threads, in
// output batches of WF_BENCH_BATCH. Records, work and checks as chain.cpp
// (wf_pipeline.hpp).
//
// Not round-robin: WindFlow 4.2.2's Filter_Builder::withRebalancing() exits
// ("wrong use of withRebalancing()") whatever the routing, its check being
// the wrong way round, so the filter keeps the default FORWARD routing,
// which at equal parallelism connects each map replica to one filter
// replica. One hop a record, as weir's rebalance; at p >= 2 weir's spreads
// each producer's records over every consumer and WindFlow's does not.
#include "wf_pipeline.hpp"

int main(int argc, char **argv)
{
    return wf_run_pipeline(argc, argv, "wf-rebalance", "rebalance", true);
}
