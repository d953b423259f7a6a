/* report.h — one measured row of weir-bench (a scenario at one parallelism)
 * and the three ways of printing a run: the human table, JSON lines and the
 * SVG scaling plot. main.c measures the rows; report.c derives the ratios,
 * judges the targets and prints.
 */
#ifndef WEIR_BENCH_REPORT_H
#define WEIR_BENCH_REPORT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "bench.h"

#define BENCH_MAX_REPS 1000

typedef enum bench_verdict {
    BENCH_TARGET_NA = 0, /* does not apply to this row, or nothing to compare with */
    BENCH_TARGET_MET,
    BENCH_TARGET_MISSED
} bench_verdict;

typedef struct bench_row {
    const bench_scenario *sc;
    int parallelism;
    int workers; /* as the job resolved them; 0: no runtime */
    int64_t records;
    double rate;  /* paced scenarios: the asked rate */
    int reps;     /* measured repetitions: the median is of this many */
    double *rates; /* records/s of each repetition */
    double median, min, max, spread; /* records/s; spread = (max - min) / median */
    /* CPU seconds per wall second over the measured runs: this process's,
     * and every other process's on the machine (the noise) */
    double cpu_self, cpu_other;
    /* This process's CPU seconds (getrusage: user + sys, every thread) of
     * each measured run, and their median: beside the rate, what the rate
     * cost — a worker that spins for work counts here as busy */
    double *cpu_runs;
    double cpu_seconds;
    /* CPU seconds this process spent per record (a client's left out:
     * bench_result.cpu_client), the median of the repetitions', and its
     * ratio to the baseline's: base / this, so below 1 costs more */
    double *cpu_recs;
    double cpu_per_rec, cpu_ratio;
    int64_t diag_events; /* diagnostic events in the last measured run (0: off) */
    /* the checkpoint scenario, summed over the measured runs */
    int64_t checkpoints;
    double chk_max_align_ms;
    int64_t chk_max_bytes; /* the largest checkpoint of the measured runs */
    /* paced scenarios: medians over the repetitions, microseconds */
    double p50_us, p99_us, max_us, p99_spread;
    /* derived by bench_report_derive */
    const struct bench_row *base; /* the baseline row, or NULL */
    double ratio;                 /* median / base->median; NAN without a baseline */
    double vs_p1;                 /* median / this scenario's median at p=1; NAN if none */
    bench_verdict verdict[BENCH_MAX_TARGETS];
    bool failed;
    char err[256];
} bench_row;

/* Median and (max - min) / median of v[0..n-1] (n >= 1); v is reordered. */
double bench_median(double *v, int n);
double bench_spread(double *v, int n);

/* Fills base, ratio, vs_p1 and verdict of every row. */
void bench_report_derive(bench_row *rows, int n);

/* The human-readable tables (throughput, then latency), with the targets;
 * load_before is bench_loadavg() from before the first run. */
void bench_report_table(FILE *out, const bench_row *rows, int n, int reps, bool quick,
                        double load_before);

/* The 1-minute load average from /proc/loadavg, or -1. */
double bench_loadavg(void);

/* One JSON object per row, one a line. */
void bench_report_json(FILE *out, const bench_row *rows, int n);

/* records/s against parallelism per scenario, log scale, plain baselines as
 * dashed lines, written by weir/outfile.h's writer (a regular file replaced
 * whole, a link written through, a FIFO or a device in place). Returns 0,
 * or -1 with the reason, naming the file, in errbuf. */
int bench_report_svg(const char *path, const bench_row *rows, int n, char *errbuf,
                     size_t errsize);

/* Whether any row missed a target. */
bool bench_report_missed(const bench_row *rows, int n);

#endif
