#!/bin/sh
# run.sh — weir-bench's chain, rebalance, window-tumbling and window-sliding
# rows beside the WindFlow programs, interleaved, and the side-by-side table
# of medians (bench/windflow/README.md).
#
#   bench/windflow/run.sh [WF_DIR] [ROUNDS] [PARALLELISMS]
#
# WF_DIR: what build.sh wrote (default build/windflow); ROUNDS (default 10):
# each round runs, at each parallelism, one weir-bench invocation of the four
# rows (--reps 1, after its warm-up) and then each WindFlow program, spinning
# and blocking (-r 1, after its warm-up), so that a busy minute lands on both
# systems; PARALLELISMS default "1 2". RECORDS, if set, is every run's record
# count (default: each row's own, 20 M). Raw results go to
# $OUT (default build/windflow-run): weir.jsonl and windflow.txt.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
weir=$(cd "$here/../.." && pwd)
wf=${1:-$weir/build/windflow}
rounds=${2:-10}
plist=${3:-"1 2"}
out=${OUT:-$weir/build/windflow-run}
bench=${WEIR_BENCH:-$weir/build/release/bench/weir-bench}
mkdir -p "$out"
: > "$out/weir.jsonl"
: > "$out/windflow.txt"
nrec=
wfrec=
if [ -n "${RECORDS:-}" ]; then
    nrec="--records $RECORDS"
    wfrec="-n $RECORDS"
fi
r=1
while [ "$r" -le "$rounds" ]; do
    for p in $plist; do
        echo "round $r/$rounds p=$p" >&2
        # shellcheck disable=SC2086
        "$bench" --scenario chain,rebalance,window-tumbling,window-sliding --parallelism "$p" \
            --reps 1 --json --quiet $nrec >> "$out/weir.jsonl"
        for s in chain rebalance tumbling sliding; do
            for m in spin block; do
                # shellcheck disable=SC2086
                "$wf/wf-$s-$m" -p "$p" -r 1 $wfrec >> "$out/windflow.txt"
            done
        done
    done
    r=$((r + 1))
done
# medians: weir per (scenario, p); WindFlow per (program, build, p)
awk -v plist="$plist" '
function median(list,   n, a, i, j, t) {
    n = split(list, a, " ")
    for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
    return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
FILENAME ~ /weir.jsonl$/ {
    if (match($0, /"scenario":"[^"]*"/) == 0) next
    sc = substr($0, RSTART + 12, RLENGTH - 13)
    if (sc != "chain" && sc != "rebalance" && sc != "window-tumbling" && sc != "window-sliding") next
    match($0, /"parallelism":[0-9]+/); p = substr($0, RSTART + 14, RLENGTH - 14)
    if (match($0, /"records_per_s":[0-9.e+]+/) == 0) next
    v = substr($0, RSTART + 16, RLENGTH - 16) / 1e6
    name = sc == "window-tumbling" ? "tumbling" : sc == "window-sliding" ? "sliding" : sc
    W[name, p] = W[name, p] " " v
    next
}
/^windflow / {
    split($0, f, " "); name = f[2]; build = f[3]; p = substr(f[4], 3)
    for (i = 1; i <= NF; i++) if (f[i] ~ /^median=/) v = substr(f[i], 8)
    F[name, build, p] = F[name, build, p] " " v
}
END {
    np = split(plist, P, " ")
    printf "| scenario | weir | WindFlow spinning | WindFlow blocking | weir / WindFlow best |\n|---|---|---|---|---|\n"
    split("chain rebalance tumbling sliding", S, " ")
    for (k = 1; k <= 4; k++) {
        s = S[k]; wl = ""; sl = ""; bl = ""; rl = ""
        for (q = 1; q <= np; q++) {
            p = P[q]; sep = q > 1 ? " / " : ""
            w = median(W[s, p]); a = median(F[s, "spinning", p]); b = median(F[s, "blocking", p])
            best = a > b ? a : b
            wl = wl sep sprintf("%.1f", w); sl = sl sep sprintf("%.1f", a); bl = bl sep sprintf("%.1f", b)
            rl = rl sep (best > 0 ? sprintf("%.2f", w / best) : "-")
        }
        pl = ""; for (q = 1; q <= np; q++) pl = pl (q > 1 ? " / p" : "p") P[q]
        printf "| %s %s | %s | %s | %s | %s |\n", s, pl, wl, sl, bl, rl
    }
}' "$out/weir.jsonl" "$out/windflow.txt"
