// sliding.cpp — weir-bench's `window-sliding` in WindFlow: 60 s windows
// every 1 s counting per key (wf_windows.hpp).
#include "wf_windows.hpp"

int main(int argc, char **argv)
{
    return wf_run_windows(argc, argv, "wf-sliding", "sliding", 60000, 1000, 60000);
}
