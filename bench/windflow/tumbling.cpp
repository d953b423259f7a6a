// tumbling.cpp — weir-bench's `window-tumbling` in WindFlow: 1 s tumbling
// windows counting per key (wf_windows.hpp).
#include "wf_windows.hpp"

int main(int argc, char **argv)
{
    return wf_run_windows(argc, argv, "wf-tumbling", "tumbling", 1000, 1000, 1000);
}
