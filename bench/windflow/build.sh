#!/bin/sh
# build.sh — builds the WindFlow programs of bench/windflow against a
# WindFlow and a FastFlow checkout (bench/windflow/README.md); neither is
# part of weir's tree.
#
#   bench/windflow/build.sh WINDFLOW_DIR FASTFLOW_DIR [OUT_DIR]
#
# WINDFLOW_DIR holds wf/windflow.hpp (WindFlow 4.2.2 was used), FASTFLOW_DIR
# holds ff/ff.hpp. OUT_DIR (default build/windflow) gets, for each program
# (chain, rebalance, tumbling, sliding), a spinning build wf-NAME-spin and a
# blocking one wf-NAME-block (FastFlow's -DBLOCKING_MODE: a thread with an
# empty input or a full output queue sleeps instead of spinning). Both use
# bounded queues (-DFF_BOUNDED_BUFFER: backpressure, as weir's channels) and
# leave the threads to the OS scheduler (-DNO_DEFAULT_MAPPING: weir does not
# pin its workers either). CXX, CC and CXXFLAGS may be set.
set -eu
if [ $# -lt 2 ]; then
    echo "usage: $0 WINDFLOW_DIR FASTFLOW_DIR [OUT_DIR]" >&2
    exit 2
fi
wf=$1
ff=$2
here=$(cd "$(dirname "$0")" && pwd)
weir=$(cd "$here/../.." && pwd)
out=${3:-$weir/build/windflow}
if [ ! -f "$wf/wf/windflow.hpp" ]; then
    echo "$0: $wf/wf/windflow.hpp: not found (WINDFLOW_DIR is the checkout's root)" >&2
    exit 1
fi
if [ ! -f "$ff/ff/ff.hpp" ]; then
    echo "$0: $ff/ff/ff.hpp: not found (FASTFLOW_DIR is the checkout's root)" >&2
    exit 1
fi
CC=${CC:-cc}
CXX=${CXX:-c++}
CXXFLAGS=${CXXFLAGS:--O3 -march=native}
mkdir -p "$out"
# bench/work.c and its shim, as C (the same -O2 as weir's release build)
"$CC" -std=c11 -O2 -D_GNU_SOURCE -I"$weir/include" -I"$weir/bench" -c "$weir/bench/work.c" -o "$out/work.o"
"$CC" -std=c11 -O2 -D_GNU_SOURCE -I"$weir/include" -I"$weir/bench" -c "$here/work_shim.c" -o "$out/work_shim.o"
for prog in chain rebalance tumbling sliding; do
    for mode in spin block; do
        extra=
        [ "$mode" = block ] && extra=-DBLOCKING_MODE
        echo "building $out/wf-$prog-$mode"
        # shellcheck disable=SC2086
        "$CXX" -std=c++17 $CXXFLAGS -DFF_BOUNDED_BUFFER -DNO_DEFAULT_MAPPING $extra \
            -I"$wf/wf" -I"$ff" -I"$here" "$here/$prog.cpp" "$out/work.o" "$out/work_shim.o" \
            -o "$out/wf-$prog-$mode" -pthread
    done
done
