// chain.cpp — weir-bench's `chain` in WindFlow: source -> map -> filter ->
// sink, every operator chained onto its source replica's thread
// (wf_pipeline.hpp).
#include "wf_pipeline.hpp"

int main(int argc, char **argv)
{
    return wf_run_pipeline(argc, argv, "wf-chain", "chain", false);
}
