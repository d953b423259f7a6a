/* report.c — what weir-bench prints: the ratios against baselines and
 * against parallelism 1, the verdict on each target, and the three outputs
 * (the human tables, JSON lines, the SVG scaling plot).
 *
 * Ratios are derived only from rows of the same invocation. A row's baseline
 * row is the baseline scenario's row at the same parallelism if there is
 * one, else its first row (a plain-C baseline runs once, single-threaded).
 */
#include "report.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "weir/outfile.h"

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double bench_median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

double bench_spread(double *v, int n)
{
    double m = bench_median(v, n);
    return m > 0 ? (v[n - 1] - v[0]) / m : 0;
}

static const bench_row *find_row(const bench_row *rows, int n, const char *name, int parallelism)
{
    const bench_row *first = NULL;
    for (int i = 0; i < n; i++) {
        if (strcmp(rows[i].sc->name, name) != 0 || rows[i].failed)
            continue;
        if (rows[i].parallelism == parallelism)
            return &rows[i];
        if (!first)
            first = &rows[i];
    }
    return parallelism == 0 ? first : NULL;
}

void bench_report_derive(bench_row *rows, int n)
{
    for (int i = 0; i < n; i++) {
        bench_row *r = &rows[i];
        r->ratio = NAN;
        r->vs_p1 = NAN;
        r->cpu_ratio = NAN;
        r->base = NULL;
        if (r->failed)
            continue;
        if (r->sc->baseline) {
            r->base = find_row(rows, n, r->sc->baseline, r->parallelism);
            if (!r->base)
                r->base = find_row(rows, n, r->sc->baseline, 0);
            if (r->base)
                r->ratio = r->median / r->base->median;
            if (r->base && r->cpu_per_rec > 0 && r->base->cpu_per_rec > 0)
                r->cpu_ratio = r->base->cpu_per_rec / r->cpu_per_rec;
        }
        const bench_row *p1 = find_row(rows, n, r->sc->name, 1);
        if (p1 && p1->parallelism == 1)
            r->vs_p1 = r->median / p1->median;
        for (int t = 0; t < BENCH_MAX_TARGETS; t++) {
            const bench_target *tg = &r->sc->targets[t];
            r->verdict[t] = BENCH_TARGET_NA;
            if (tg->kind == BENCH_TARGET_NONE ||
                (tg->parallelism && tg->parallelism != r->parallelism))
                continue;
            double have = tg->kind == BENCH_TARGET_RATIO       ? r->ratio
                          : tg->kind == BENCH_TARGET_CPU_RATIO ? r->cpu_ratio
                          : tg->kind == BENCH_TARGET_SCALE     ? r->vs_p1
                                                               : r->median;
            if (isnan(have))
                continue;
            r->verdict[t] = have >= tg->value ? BENCH_TARGET_MET : BENCH_TARGET_MISSED;
        }
    }
}

bool bench_report_missed(const bench_row *rows, int n)
{
    for (int i = 0; i < n; i++) {
        for (int t = 0; t < BENCH_MAX_TARGETS; t++) {
            if (rows[i].verdict[t] == BENCH_TARGET_MISSED)
                return true;
        }
    }
    return false;
}

static const char *timeout_text(int64_t ms, char *buf, size_t size)
{
    if (ms == WEIR_FLUSH_AT_ONCE)
        return "at once";
    if (ms == 0)
        return "default";
    snprintf(buf, size, "%lld ms", (long long)ms);
    return buf;
}

/* ---- the table ------------------------------------------------------------ */

static void workers_text(const bench_row *r, char *buf, size_t size)
{
    if (r->workers > 0)
        snprintf(buf, size, "%d", r->workers);
    else
        snprintf(buf, size, "-");
}

/* The 1-minute load average, or -1: a benchmark on a shared machine should
 * say how busy the machine was. */
double bench_loadavg(void)
{
    double l = -1;
    FILE *f = fopen("/proc/loadavg", "r");
    if (f) {
        if (fscanf(f, "%lf", &l) != 1)
            l = -1;
        fclose(f);
    }
    return l;
}

void bench_report_table(FILE *out, const bench_row *rows, int n, int reps, bool quick,
                        double load_before)
{
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    fprintf(out,
            "weir-bench%s: %ld CPUs, load average %.2f before and %.2f after; each row: 1 warm-up\n"
            "run, then the median of %d measured runs. records/s = records generated / seconds\n"
            "in weir_job_run; spread = (max - min) / median. CPU s: this process's CPU seconds\n"
            "(user + sys) of a run, median; CPUs: its CPU time per second of the measured runs;\n"
            "other: every other process's (the noise).\n",
            quick ? " --quick" : "", cpus, load_before, bench_loadavg(), reps);
    bool any_tp = false, any_lat = false;
    for (int i = 0; i < n; i++) {
        if (rows[i].sc->flags & BENCH_LATENCY)
            any_lat = true;
        else
            any_tp = true;
    }
    char wbuf[16];
    if (any_tp) {
        fprintf(out, "\n%-24s %3s %7s %11s %10s %7s %7s %18s %6s %5s %5s\n", "scenario", "p",
                "workers", "records", "M rec/s", "spread", "CPU s", "x baseline", "x p=1", "CPUs",
                "other");
        for (int i = 0; i < n; i++) {
            const bench_row *r = &rows[i];
            if (r->sc->flags & BENCH_LATENCY)
                continue;
            workers_text(r, wbuf, sizeof wbuf);
            if (r->failed) {
                fprintf(out, "%-24s %3d %7s %11lld  FAILED: %s\n", r->sc->name, r->parallelism,
                        wbuf, (long long)r->records, r->err);
                continue;
            }
            char base[64] = "-", p1[16] = "-";
            if (!isnan(r->ratio))
                snprintf(base, sizeof base, "%.2f %s", r->ratio, r->base->sc->name);
            else if (r->sc->baseline)
                snprintf(base, sizeof base, "(no %s)", r->sc->baseline);
            if (!isnan(r->vs_p1) && !(r->sc->flags & BENCH_PLAIN) && r->sc->parallelism == 0)
                snprintf(p1, sizeof p1, "%.2f", r->vs_p1);
            /* Slow rows (sql-plan: plans, not records) get the digits they need. */
            fprintf(out, "%-24s %3d %7s %11lld %10.*f %6.1f%% %7.3f %18s %6s %5.2f %5.2f\n",
                    r->sc->name, r->parallelism, wbuf, (long long)r->records,
                    r->median < 1e5 ? 5 : 2, r->median / 1e6,
                    100 * r->spread, r->cpu_seconds, base, p1, r->cpu_self, r->cpu_other);
        }
    }
    if (any_lat) {
        fprintf(out, "\n%-29s %3s %7s %9s %11s %5s %9s %9s %9s %10s %5s %5s\n",
                "latency scenario", "p", "workers", "timeout", "rec/s", "load", "p50 us", "p99 us",
                "max us", "p99 spread", "CPUs", "other");
        for (int i = 0; i < n; i++) {
            const bench_row *r = &rows[i];
            if (!(r->sc->flags & BENCH_LATENCY))
                continue;
            workers_text(r, wbuf, sizeof wbuf);
            char tbuf[32];
            const char *tt = timeout_text(r->sc->arg, tbuf, sizeof tbuf);
            if (r->failed) {
                fprintf(out, "%-29s %3d %7s %9s  FAILED: %s\n", r->sc->name, r->parallelism, wbuf,
                        tt, r->err);
                continue;
            }
            /* the achieved rate against the peak it was paced at a share of */
            char lbuf[16] = "-";
            if (r->sc->load > 0 && !isnan(r->ratio))
                snprintf(lbuf, sizeof lbuf, "%.0f%%", 100 * r->ratio);
            fprintf(out, "%-29s %3d %7s %9s %11.0f %5s %9.1f %9.1f %9.1f %9.1f%% %5.2f %5.2f\n",
                    r->sc->name, r->parallelism, wbuf, tt, r->median, lbuf, r->p50_us, r->p99_us,
                    r->max_us, 100 * r->p99_spread, r->cpu_self, r->cpu_other);
        }
    }
    bool header = false;
    for (int i = 0; i < n; i++) {
        const bench_row *r = &rows[i];
        for (int t = 0; t < BENCH_MAX_TARGETS; t++) {
            const bench_target *tg = &r->sc->targets[t];
            if (tg->kind == BENCH_TARGET_NONE ||
                (tg->parallelism && tg->parallelism != r->parallelism) || r->failed)
                continue;
            if (!header)
                fprintf(out, "\ntargets:\n");
            header = true;
            char have[64];
            if (tg->kind == BENCH_TARGET_RATE)
                snprintf(have, sizeof have, r->median < 1e5 ? "%.0f /s at p=%d" : "%.1f M/s at p=%d",
                         r->median < 1e5 ? r->median : r->median / 1e6, r->parallelism);
            else if (tg->kind == BENCH_TARGET_RATIO)
                snprintf(have, sizeof have, "%.2f at p=%d", r->ratio, r->parallelism);
            else if (tg->kind == BENCH_TARGET_CPU_RATIO)
                snprintf(have, sizeof have, "%.3f by CPU per record at p=%d", r->cpu_ratio,
                         r->parallelism);
            else
                snprintf(have, sizeof have, "%.2f x p=1 at p=%d", r->vs_p1, r->parallelism);
            const char *v = r->verdict[t] == BENCH_TARGET_MET      ? "met   "
                            : r->verdict[t] == BENCH_TARGET_MISSED ? "MISSED"
                                                                   : "n/a   ";
            fprintf(out, "  %s  %-44s (%s)\n", v, tg->text, have);
        }
    }
}

/* ---- JSON lines ------------------------------------------------------------ */

static void json_string(FILE *out, const char *s)
{
    fputc('"', out);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            fprintf(out, "\\%c", c);
        else if (c < 0x20)
            fprintf(out, "\\u%04x", c);
        else
            fputc(c, out);
    }
    fputc('"', out);
}

void bench_report_json(FILE *out, const bench_row *rows, int n)
{
    for (int i = 0; i < n; i++) {
        const bench_row *r = &rows[i];
        fprintf(out, "{\"scenario\":");
        json_string(out, r->sc->name);
        fprintf(out, ",\"parallelism\":%d,\"workers\":%d,\"records\":%lld", r->parallelism,
                r->workers, (long long)r->records);
        if (r->failed) {
            fprintf(out, ",\"error\":");
            json_string(out, r->err);
            fprintf(out, "}\n");
            continue;
        }
        fprintf(out,
                ",\"records_per_s\":%.0f,\"median_of\":%d,\"spread\":%.4f,"
                "\"min_records_per_s\":%.0f,\"max_records_per_s\":%.0f",
                r->median, r->reps, r->spread, r->min, r->max);
        fprintf(out, ",\"cpu_self\":%.3f,\"cpu_other\":%.3f", r->cpu_self, r->cpu_other);
        /* CPU seconds of a run (median), and per record without a client's
         * (bench_result.cpu_client): the cost beside the rate */
        fprintf(out, ",\"cpu_seconds\":%.4f,\"cpu_ns_per_record\":%.2f,\"runs_cpu_seconds\":[",
                r->cpu_seconds, 1e9 * r->cpu_per_rec);
        for (int k = 0; k < r->reps; k++)
            fprintf(out, "%s%.4f", k ? "," : "", r->cpu_runs[k]);
        fputc(']', out);
        if (!isnan(r->cpu_ratio))
            fprintf(out, ",\"cpu_ratio\":%.4f", r->cpu_ratio);
        fprintf(out, ",\"runs_records_per_s\":[");
        for (int k = 0; k < r->reps; k++)
            fprintf(out, "%s%.0f", k ? "," : "", r->rates[k]);
        fputc(']', out);
        if (r->diag_events > 0)
            fprintf(out, ",\"diag_events\":%lld", (long long)r->diag_events);
        if (r->checkpoints > 0)
            fprintf(out,
                    ",\"checkpoints\":%lld,\"checkpoint_max_alignment_ms\":%.3f,"
                    "\"checkpoint_max_bytes\":%lld",
                    (long long)r->checkpoints, r->chk_max_align_ms,
                    (long long)r->chk_max_bytes);
        if (r->sc->baseline && !isnan(r->ratio)) {
            fprintf(out, ",\"baseline\":");
            json_string(out, r->base->sc->name);
            fprintf(out, ",\"ratio_to_baseline\":%.4f", r->ratio);
        }
        if (!isnan(r->vs_p1) && r->sc->parallelism == 0 && !(r->sc->flags & BENCH_PLAIN))
            fprintf(out, ",\"ratio_to_parallelism_1\":%.4f", r->vs_p1);
        if (r->sc->flags & BENCH_LATENCY) {
            fprintf(out,
                    ",\"rate\":%.0f,\"buffer_timeout_ms\":%lld,\"latency_p50_us\":%.2f,"
                    "\"latency_p99_us\":%.2f,\"latency_max_us\":%.2f,\"latency_p99_spread\":%.4f",
                    r->rate, (long long)r->sc->arg, r->p50_us, r->p99_us, r->max_us,
                    r->p99_spread);
            if (r->sc->load > 0)
                fprintf(out, ",\"load\":%.2f", r->sc->load);
        }
        bool first = true;
        for (int t = 0; t < BENCH_MAX_TARGETS; t++) {
            if (r->verdict[t] == BENCH_TARGET_NA)
                continue;
            fprintf(out, first ? ",\"targets\":[" : ",");
            first = false;
            fprintf(out, "{\"target\":");
            json_string(out, r->sc->targets[t].text);
            fprintf(out, ",\"met\":%s}", r->verdict[t] == BENCH_TARGET_MET ? "true" : "false");
        }
        if (!first)
            fputc(']', out);
        fprintf(out, "}\n");
    }
}

/* ---- the SVG plot ----------------------------------------------------------- */

#define SVG_W 800
#define SVG_H 460
#define PLOT_L 80
#define PLOT_R 580
#define PLOT_T 56
#define PLOT_B 400

static const char *const palette[] = {"#1f77b4", "#d62728", "#2ca02c", "#9467bd",
                                      "#ff7f0e", "#17becf", "#8c564b", "#e377c2",
                                      "#7f7f7f", "#bcbd22", "#000000", "#aec7e8"};

/* Value labels already placed, so that the labels of series that nearly
 * coincide at one parallelism are stacked instead of printed on each other. */
#define MAX_LABELS 256

typedef struct label_pos {
    double x, y;
} label_pos;

static double place_label(label_pos *placed, int *n, double x, double y)
{
    for (bool moved = true; moved;) {
        moved = false;
        for (int i = 0; i < *n; i++) {
            if (fabs(placed[i].x - x) < 1 && fabs(placed[i].y - y) < 11) {
                y = placed[i].y + 11;
                moved = true;
            }
        }
    }
    if (*n < MAX_LABELS)
        placed[(*n)++] = (label_pos){x, y};
    return y;
}

static bool plotted(const bench_row *r)
{
    return !r->failed && !(r->sc->flags & (BENCH_LATENCY | BENCH_NO_PLOT)) && r->median > 0;
}

int bench_report_svg(const char *path, const bench_row *rows, int n, char *errbuf,
                     size_t errsize)
{
    double vmin = INFINITY, vmax = 0;
    int pmin = 1 << 30, pmax = 0;
    bool any = false;
    for (int i = 0; i < n; i++) {
        const bench_row *r = &rows[i];
        if (!plotted(r))
            continue;
        any = true;
        /* A log scale: a run that measured next to nothing must not drag
         * the axis (or a loop over its decades) down to zero. */
        double lo = fmax(r->min, r->median / 1000) / 1e6, hi = r->max / 1e6;
        vmin = lo < vmin ? lo : vmin;
        vmax = hi > vmax ? hi : vmax;
        if (!(r->sc->flags & BENCH_PLAIN)) {
            pmin = r->parallelism < pmin ? r->parallelism : pmin;
            pmax = r->parallelism > pmax ? r->parallelism : pmax;
        }
    }
    if (pmax == 0)
        pmin = pmax = 1;
    weir_outfile *of;
    weir_outfile_config cfg = {.flags = WEIR_OUTFILE_IN_PLACE};
    if (weir_outfile_open(path, &cfg, &of, errbuf, errsize) != 0)
        return -1;
    FILE *f = weir_outfile_stream(of);
    double ylo = any && vmin > 0 && isfinite(vmin) ? pow(10, floor(log10(vmin))) : 1;
    double yhi = any ? pow(10, ceil(log10(vmax))) : 10;
    if (yhi <= ylo)
        yhi = ylo * 10;
    double lx0 = log2((double)pmin), lx1 = log2((double)pmax);
#define XOF(p) (lx1 > lx0 ? PLOT_L + 40 + (log2((double)(p)) - lx0) / (lx1 - lx0) * (PLOT_R - PLOT_L - 80) \
                          : (PLOT_L + PLOT_R) / 2.0)
#define YOF(v) (PLOT_B - (log10(v) - log10(ylo)) / (log10(yhi) - log10(ylo)) * (PLOT_B - PLOT_T))

    fprintf(f,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
            "viewBox=\"0 0 %d %d\" font-family=\"sans-serif\" font-size=\"12\">\n"
            "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n",
            SVG_W, SVG_H, SVG_W, SVG_H);
    fprintf(f,
            "<text x=\"%d\" y=\"24\" font-size=\"15\" font-weight=\"bold\">weir-bench: records/s "
            "against parallelism</text>\n"
            "<text x=\"%d\" y=\"42\" fill=\"#555\">median of each row's runs, bars: min..max; "
            "%ld CPUs; dashed: plain-C baselines (one thread)</text>\n",
            PLOT_L, PLOT_L, sysconf(_SC_NPROCESSORS_ONLN));
    /* Grid: 1, 2, 5 of every decade. */
    for (double d = ylo; d < yhi * 1.001; d *= 10) {
        static const double steps[] = {1, 2, 5};
        for (int s = 0; s < 3; s++) {
            double v = d * steps[s];
            if (v > yhi * 1.001)
                break;
            double y = YOF(v);
            fprintf(f,
                    "<line x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"%s\"/>\n"
                    "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\" fill=\"#333\">%g</text>\n",
                    PLOT_L, PLOT_R, y, y, s == 0 ? "#bbb" : "#e6e6e6", PLOT_L - 6, y + 4, v);
        }
    }
    for (int p = pmin; p <= pmax; p *= 2) {
        double x = XOF(p);
        fprintf(f,
                "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%d\" y2=\"%d\" stroke=\"#e6e6e6\"/>\n"
                "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%d</text>\n",
                x, x, PLOT_T, PLOT_B, x, PLOT_B + 18, p);
    }
    fprintf(f,
            "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\" stroke=\"#333\"/>\n"
            "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">parallelism</text>\n"
            "<text transform=\"translate(24 %d) rotate(-90)\" text-anchor=\"middle\">"
            "million records/s (log scale)</text>\n",
            PLOT_L, PLOT_T, PLOT_R - PLOT_L, PLOT_B - PLOT_T, (PLOT_L + PLOT_R) / 2, PLOT_B + 38,
            (PLOT_T + PLOT_B) / 2);

    int series = 0;
    label_pos labels[MAX_LABELS];
    int nlabels = 0;
    for (int i = 0; i < n; i++) {
        const bench_row *r = &rows[i];
        if (!plotted(r))
            continue;
        /* One series per scenario, drawn at its first row. */
        bool seen = false;
        for (int j = 0; j < i; j++)
            seen = seen || (plotted(&rows[j]) && rows[j].sc == r->sc);
        if (seen)
            continue;
        const char *color = palette[series % (sizeof palette / sizeof palette[0])];
        double ly = PLOT_T + 8 + 18.0 * series;
        series++;
        if (r->sc->flags & BENCH_PLAIN) {
            double y = YOF(r->median / 1e6);
            fprintf(f,
                    "<line x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
                    "stroke-width=\"1.5\" stroke-dasharray=\"6 4\"><title>%s: %.2f M/s</title>"
                    "</line>\n",
                    PLOT_L, PLOT_R, y, y, color, r->sc->name, r->median / 1e6);
            fprintf(f, "<text x=\"%d\" y=\"%.1f\" font-size=\"10\" fill=\"%s\">%.1f</text>\n",
                    PLOT_L + 6, y - 5, color, r->median / 1e6);
            fprintf(f,
                    "<line x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
                    "stroke-width=\"2\" stroke-dasharray=\"6 4\"/>\n",
                    PLOT_R + 16, PLOT_R + 40, ly, ly, color);
        } else {
            fprintf(f, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\" points=\"",
                    color);
            for (int j = i; j < n; j++) {
                if (plotted(&rows[j]) && rows[j].sc == r->sc)
                    fprintf(f, "%.1f,%.1f ", XOF(rows[j].parallelism),
                            YOF(rows[j].median / 1e6));
            }
            fprintf(f, "\"/>\n");
            for (int j = i; j < n; j++) {
                const bench_row *q = &rows[j];
                if (!plotted(q) || q->sc != r->sc)
                    continue;
                double x = XOF(q->parallelism);
                fprintf(f,
                        "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"%s\"/>\n"
                        "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"4\" fill=\"%s\"><title>%s p=%d: "
                        "%.2f M/s (min %.2f, max %.2f)</title></circle>\n",
                        x, x, YOF(fmax(q->min, q->median / 1000) / 1e6), YOF(q->max / 1e6), color, x,
                        YOF(q->median / 1e6), color, q->sc->name, q->parallelism,
                        q->median / 1e6, q->min / 1e6, q->max / 1e6);
                fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"10\" fill=\"%s\">%.1f</text>\n",
                        x + 7, place_label(labels, &nlabels, x, YOF(q->median / 1e6) - 6), color,
                        q->median / 1e6);
            }
            fprintf(f,
                    "<line x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
                    "stroke-width=\"2\"/><circle cx=\"%d\" cy=\"%.1f\" r=\"4\" fill=\"%s\"/>\n",
                    PLOT_R + 16, PLOT_R + 40, ly, ly, color, PLOT_R + 28, ly, color);
        }
        fprintf(f, "<text x=\"%d\" y=\"%.1f\">%s</text>\n", PLOT_R + 46, ly + 4, r->sc->name);
    }
#undef XOF
#undef YOF
    fprintf(f, "</svg>\n");
    if (ferror(f)) {
        snprintf(errbuf, errsize, "%s: cannot write: %s", weir_outfile_writing(of),
                 strerror(errno ? errno : EIO));
        weir_outfile_discard(of);
        return -1;
    }
    return weir_outfile_commit(of, errbuf, errsize) == 0 ? 0 : -1;
}
