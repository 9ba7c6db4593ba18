/*
 * cmd_validate.c -- `chipsim validate`: run the validation set of
 * ../shared/validation/references.csv (cycles and cache counts that others
 * measured for the same traces: Accel-Sim on its QV100 configuration, real
 * H100 runs) and compare chipsim's figures with them, case by case and per
 * reference source (mean absolute error, mean signed error, Pearson r), as
 * spec accelsim.md 6.2 and A13 define them (docs/validation.md).
 *
 * Compared like with like: kernel cycles without launch latency on both
 * sides (an Accel-Sim reference counts its configuration's kernel launch
 * latency in gpu_tot_sim_cycle: the source table below removes it), at the
 * reference's core clock; a "stock build" Accel-Sim reference did not warm
 * its L2 with the host copies, so neither does chipsim's run of it. The
 * synthetic traces are written by the generator beside the references.
 * Runs go through the sweep worker pool; the table goes to stdout and
 * DIR/summary.txt, one row per case to DIR/validation.csv, and
 * tools/validate_plot.py draws DIR/correlation.png (and .pdf) from the CSV.
 */
#include <csv.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/opts.h"
#include "stats/report.h"
#include "sweep.h"
#include "sweep_db.h"

/* What a reference source's figure contains besides the kernels' own cycles. */
struct vsource {
    const char *name;
    unsigned launch_cycles; /* per kernel, counted in the reference figure */
};

static const struct vsource vsources[] = {
    /* Accel-Sim's trace_kernel_info_t starts each kernel with m_kernel_TB_latency =
     * -gpgpu_kernel_launch_latency (5000 in SM7_QV100) + blocks x TB launch latency
     * (0); gpgpu_sim::cycle() counts it down one core cycle at a time and
     * select_kernel() dispatches nothing until it is 0, so gpu_tot_sim_cycle holds it. */
    {"accelsim-qv100", 5000},
    {"h100-silicon-ncu", 0},  /* kernel duration as measured on the GPU */
    {"h100-silicon-nsys", 0},
};
#define NSOURCES (sizeof vsources / sizeof vsources[0])

enum { VC_L1, VC_L2, VC_DRAM_R, VC_DRAM_W, VC_NCOUNT };
static const char *const count_col[VC_NCOUNT] = {"l1_accesses_sectors", "l2_accesses_sectors",
                                                 "dram_reads_sectors", "dram_writes_sectors"};
static const char *const count_sum[VC_NCOUNT] = {"l1_sectors", "l2_sectors", "dram_read_sectors",
                                                 "dram_write_sectors"};
static const char *const count_name[VC_NCOUNT] = {"L1 accesses", "L2 accesses", "DRAM reads",
                                                  "DRAM writes"};

struct vcase {
    char *name, *source, *trace, *make_trace, *preset, *notes;
    unsigned line;
    const struct vsource *src;
    double clock_mhz, value, ref[VC_NCOUNT]; /* ref: NAN where not given */
    char path[PATH_MAX];                     /* the kernelslist.g run */
    bool ok;
    char error[SWEEP_ERROR_MAX];
    double kernels, cycles, launch, sim[VC_NCOUNT];
};

struct vopts {
    const char *refs, *shared, *out;
    const char **only;
    size_t nonly;
    unsigned jobs;
    bool small;
};

/* ---- the references file ------------------------------------------------------ */

enum { C_CASE, C_SOURCE, C_TRACE, C_MAKE, C_PRESET, C_CLOCK, C_METRIC, C_VALUE, C_NOTES, C_N };
static const char *const col_name[C_N] = {"case",   "source",   "trace", "make_trace", "preset",
                                          "clock_mhz", "metric", "value", "notes"};

struct csv_rows {
    char ***row;       /* row[i][j], NULL-ended */
    size_t *nfield;
    size_t n, cap;
    char **cur;
    size_t ncur, capcur;
};

static void csv_field(void *s, size_t len, void *data)
{
    struct csv_rows *t = data;
    if (t->ncur + 1 >= t->capcur) {
        t->capcur = t->capcur ? 2 * t->capcur : 16;
        t->cur = xrealloc(t->cur, t->capcur * sizeof *t->cur);
    }
    char *f = xmalloc(len + 1);
    memcpy(f, s ? s : "", len);
    f[len] = 0;
    t->cur[t->ncur++] = f;
}

static void csv_row(int c, void *data)
{
    (void)c;
    struct csv_rows *t = data;
    if (t->n == t->cap) {
        t->cap = t->cap ? 2 * t->cap : 32;
        t->row = xrealloc(t->row, t->cap * sizeof *t->row);
        t->nfield = xrealloc(t->nfield, t->cap * sizeof *t->nfield);
    }
    t->row[t->n] = t->cur;
    t->nfield[t->n++] = t->ncur;
    t->cur = NULL;
    t->ncur = t->capcur = 0;
}

static void csv_rows_free(struct csv_rows *t)
{
    for (size_t i = 0; i < t->n; i++) {
        for (size_t j = 0; j < t->nfield[i]; j++)
            free(t->row[i][j]);
        free(t->row[i]);
    }
    for (size_t j = 0; j < t->ncur; j++) /* a row the parser stopped in */
        free(t->cur[j]);
    free(t->cur);
    free(t->row);
    free(t->nfield);
    *t = (struct csv_rows){0};
}

static int read_csv(const char *path, struct csv_rows *t, struct err *e)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return err_set(e, "%s: cannot open: %s", path, strerror(errno));
    struct csv_parser p;
    csv_init(&p, CSV_STRICT | CSV_STRICT_FINI | CSV_APPEND_NULL);
    char buf[8192];
    size_t n;
    int rc = 0;
    while (!rc && (n = fread(buf, 1, sizeof buf, f)) > 0)
        if (csv_parse(&p, buf, n, csv_field, csv_row, t) != n)
            rc = -1;
    if (!rc && csv_fini(&p, csv_field, csv_row, t))
        rc = -1;
    if (rc)
        err_set(e, "%s:%zu: malformed CSV: %s", path, t->n + 1, csv_strerror(csv_error(&p)));
    csv_free(&p);
    fclose(f);
    return rc;
}

static int parse_num(const char *path, unsigned line, const char *col, const char *s, double *v,
                     struct err *e)
{
    char *end;
    errno = 0;
    *v = strtod(s, &end);
    if (!*s || *end || errno || !isfinite(*v) || *v < 0)
        return err_set(e, "%s:%u: %s = '%s': expected a non-negative number", path, line, col, s);
    return 0;
}

static const struct vsource *find_source(const char *name)
{
    for (size_t i = 0; i < NSOURCES; i++)
        if (!strcmp(vsources[i].name, name))
            return &vsources[i];
    return NULL;
}

#define MT_WORDS 20

/* Split a make_trace command ("gen-synth-trace.py OUT KIND [options]") into
 * words, in place; false if it has another form or more than MT_WORDS words. */
static bool split_make_trace(char *cmd, char **words, size_t *nw)
{
    char *save = NULL;
    *nw = 0;
    for (char *w = strtok_r(cmd, " \t", &save); w; w = strtok_r(NULL, " \t", &save)) {
        if (*nw == MT_WORDS)
            return false;
        words[(*nw)++] = w;
    }
    return *nw >= 3 && !strcmp(words[0], "gen-synth-trace.py") && !strcmp(words[1], "OUT");
}

static bool valid_make_trace(const char *cmd)
{
    char *copy = xstrdup(cmd), *words[MT_WORDS];
    size_t nw;
    bool ok = split_make_trace(copy, words, &nw);
    free(copy);
    return ok;
}

/* One data row into *c; col[k] is the column of field k (-1: absent). */
static int parse_case(const char *path, unsigned line, char **f, size_t nf, const int *col,
                      const int *ccol, struct vcase *c, struct err *e)
{
    const char *v[C_N];
    for (unsigned k = 0; k < C_N; k++)
        v[k] = col[k] >= 0 && (size_t)col[k] < nf ? f[col[k]] : "";
    *c = (struct vcase){.line = line};
    if (!*v[C_CASE])
        return err_set(e, "%s:%u: case: empty", path, line);
    if (!(c->src = find_source(v[C_SOURCE])))
        return err_set(e, "%s:%u: source = '%s': unknown (chipsim knows accelsim-qv100, "
                          "h100-silicon-ncu, h100-silicon-nsys)", path, line, v[C_SOURCE]);
    if (strcmp(v[C_METRIC], "kernel_cycles"))
        return err_set(e, "%s:%u: metric = '%s': only kernel_cycles is compared", path, line,
                       v[C_METRIC]);
    if (!*v[C_TRACE] == !*v[C_MAKE])
        return err_set(e, "%s:%u: case %s: give exactly one of trace and make_trace", path,
                       line, v[C_CASE]);
    if (*v[C_MAKE] && !valid_make_trace(v[C_MAKE]))
        return err_set(e, "%s:%u: make_trace = '%s': expected 'gen-synth-trace.py OUT KIND "
                          "[options]' (at most %d words)", path, line, v[C_MAKE], MT_WORDS);
    if (strcmp(v[C_PRESET], "qv100") && strcmp(v[C_PRESET], "h100"))
        return err_set(e, "%s:%u: preset = '%s': expected qv100 or h100", path, line,
                       v[C_PRESET]);
    if (parse_num(path, line, "clock_mhz", v[C_CLOCK], &c->clock_mhz, e) ||
        parse_num(path, line, "value", v[C_VALUE], &c->value, e))
        return -1;
    for (unsigned k = 0; k < VC_NCOUNT; k++) {
        const char *s = ccol[k] >= 0 && (size_t)ccol[k] < nf ? f[ccol[k]] : "";
        c->ref[k] = NAN;
        if (*s && parse_num(path, line, count_col[k], s, &c->ref[k], e))
            return -1;
    }
    c->name = xstrdup(v[C_CASE]);
    c->source = xstrdup(v[C_SOURCE]);
    c->trace = xstrdup(v[C_TRACE]);
    c->make_trace = xstrdup(v[C_MAKE]);
    c->preset = xstrdup(v[C_PRESET]);
    c->notes = xstrdup(v[C_NOTES]);
    return 0;
}

static void case_free(struct vcase *c)
{
    free(c->name);
    free(c->source);
    free(c->trace);
    free(c->make_trace);
    free(c->preset);
    free(c->notes);
}

static void cases_free(struct vcase *c, size_t n)
{
    for (size_t i = 0; i < n; i++)
        case_free(&c[i]);
    free(c);
}

static int header_cols(const char *path, char **f, size_t nf, int *col, int *ccol, struct err *e)
{
    for (unsigned k = 0; k < C_N; k++)
        col[k] = -1;
    for (unsigned k = 0; k < VC_NCOUNT; k++)
        ccol[k] = -1;
    for (size_t j = 0; j < nf; j++) {
        for (unsigned k = 0; k < C_N; k++)
            if (!strcmp(f[j], col_name[k]))
                col[k] = (int)j;
        for (unsigned k = 0; k < VC_NCOUNT; k++)
            if (!strcmp(f[j], count_col[k]))
                ccol[k] = (int)j;
    }
    for (unsigned k = 0; k < C_N; k++)
        if (col[k] < 0 && k != C_NOTES)
            return err_set(e, "%s:1: no column '%s' in the header", path, col_name[k]);
    return 0;
}

static bool selected(const struct vopts *o, const struct vcase *c)
{
    if (o->small && *c->make_trace)
        return false;
    if (!o->nonly)
        return true;
    for (size_t i = 0; i < o->nonly; i++)
        if (!strcmp(o->only[i], c->name))
            return true;
    return false;
}

static int load_cases(const struct vopts *o, struct vcase **out, size_t *n, struct err *e)
{
    struct csv_rows t = {0};
    int rc = read_csv(o->refs, &t, e);
    if (!rc && !t.n)
        rc = err_set(e, "%s: empty", o->refs);
    int col[C_N], ccol[VC_NCOUNT];
    if (!rc)
        rc = header_cols(o->refs, t.row[0], t.nfield[0], col, ccol, e);
    struct vcase *c = xcalloc(t.n + 1, sizeof *c);
    size_t nc = 0;
    for (size_t i = 1; !rc && i < t.n; i++) {
        if (t.nfield[i] == 1 && !t.row[i][0][0])
            continue; /* a blank line */
        rc = parse_case(o->refs, (unsigned)i + 1, t.row[i], t.nfield[i], col, ccol, &c[nc], e);
        if (!rc && selected(o, &c[nc]))
            nc++;
        else if (!rc)
            case_free(&c[nc]);
    }
    for (size_t i = 0; !rc && i < o->nonly; i++) {
        bool found = false;
        for (size_t j = 0; j < nc; j++)
            found |= !strcmp(c[j].name, o->only[i]);
        if (!found)
            rc = err_set(e, "--case %s: no such case in %s", o->only[i], o->refs);
    }
    if (!rc && !nc)
        rc = err_set(e, "%s: no case selected", o->refs);
    csv_rows_free(&t);
    if (rc) {
        cases_free(c, nc);
        return -1;
    }
    *out = c;
    *n = nc;
    return 0;
}

/* ---- traces --------------------------------------------------------------------- */

/* Write a synthetic trace with the generator unless DIR already holds the
 * one this command describes. */
static int make_trace(const struct vopts *o, struct vcase *c, struct err *e)
{
    char *words[MT_WORDS], *cmd = xstrdup(c->make_trace);
    size_t nw;
    split_make_trace(cmd, words, &nw); /* checked when the references were read */
    char dir[PATH_MAX - 64], gen[PATH_MAX], stamp[PATH_MAX + 16], have[1024] = "";
    snprintf(dir, sizeof dir, "%s/traces/%s", o->out, c->name);
    snprintf(gen, sizeof gen, "%s/validation/gen-synth-trace.py", o->shared);
    snprintf(stamp, sizeof stamp, "%s/command", dir);
    snprintf(c->path, sizeof c->path, "%s/kernelslist.g", dir);
    FILE *f = fopen(stamp, "r");
    if (f) {
        if (!fgets(have, sizeof have, f))
            have[0] = 0;
        fclose(f);
    }
    int rc = 0;
    if (strcmp(have, c->make_trace) || access(c->path, R_OK)) {
        const char *argv[MT_WORDS + 2] = {CLI_PYTHON, gen, dir};
        for (size_t i = 2; i < nw; i++)
            argv[i + 1] = words[i];
        argv[nw + 1] = NULL;
        fprintf(stderr, "validate: writing the %s trace (%s)\n", c->name, c->make_trace);
        if (cli_mkdirs(dir) || cli_run_program(argv, true))
            rc = err_set(e, "%s:%u: %s: the trace generator failed (%s)", o->refs, c->line,
                         c->name, gen);
        else if (!(f = fopen(stamp, "w")) || fputs(c->make_trace, f) < 0 || fclose(f))
            rc = err_set(e, "%s: cannot write", stamp);
    }
    free(cmd);
    return rc;
}

static int prepare_trace(const struct vopts *o, struct vcase *c, struct err *e)
{
    if (*c->make_trace)
        return make_trace(o, c, e);
    snprintf(c->path, sizeof c->path, "%s/%s", o->shared, c->trace);
    if (access(c->path, R_OK))
        return err_set(e, "%s:%u: trace %s: %s", o->refs, c->line, c->path, strerror(errno));
    return 0;
}

/* ---- runs ----------------------------------------------------------------------- */

static int build_run(struct vcase *c, struct sweep_run *r, struct err *e)
{
    char cfg[PATH_MAX], rel[64];
    snprintf(rel, sizeof rel, "configs/%s.ini", c->preset);
    if (!cli_find_bundled(rel, cfg, sizeof cfg))
        return err_set(e, "%s not found (beside the executable's directory or in the current "
                          "one)", rel);
    bool stock = strstr(c->notes, "stock build") != NULL;
    *r = (struct sweep_run){.config = xstrdup(cfg), .workload = xstrdup("trace")};
    r->overrides = xcalloc(4, sizeof *r->overrides);
    r->overrides[r->noverrides++] = xasprintf("workload.path=%s", c->path);
    r->overrides[r->noverrides++] = xasprintf("gpu.clock_mhz=%g", c->clock_mhz);
    if (stock) /* the reference's build did not warm its L2 with the copies */
        r->overrides[r->noverrides++] = xstrdup("cp.memcpy_warm_l2=false");
    r->key = xasprintf("%s %s", c->name, cfg);
    return 0;
}

static double sum_num(json_t *sum, const char *k)
{
    return json_number_value(json_object_get(sum, k));
}

static int run_done(void *ctx, size_t run, const struct sweep_outcome *o)
{
    struct vcase *c = &((struct vcase *)ctx)[run];
    json_t *sum = o->result ? json_object_get(o->result, "summary") : NULL;
    c->ok = !o->status && sum;
    if (!c->ok) {
        snprintf(c->error, sizeof c->error, "%s", o->error[0] ? o->error : "no result");
        fprintf(stderr, "validate: %s FAILED: %s\n", c->name, c->error);
        return 0;
    }
    c->kernels = sum_num(sum, "kernels");
    c->cycles = sum_num(sum, "kernel_cycles");
    c->launch = sum_num(sum, "launch_cycles");
    for (unsigned k = 0; k < VC_NCOUNT; k++)
        c->sim[k] = sum_num(sum, count_sum[k]);
    fprintf(stderr, "validate: %s: %.0f kernel cycles (%.2f s)\n", c->name, c->cycles,
            o->wall_s);
    return 0;
}

static int run_cases(const struct vopts *o, struct vcase *c, size_t n, struct err *e)
{
    struct sweep_run *runs = xcalloc(n, sizeof *runs);
    size_t *todo = xcalloc(n, sizeof *todo);
    int rc = 0;
    for (size_t i = 0; i < n && !rc; i++) {
        rc = build_run(&c[i], &runs[i], e);
        todo[i] = i;
    }
    char dir[PATH_MAX];
    snprintf(dir, sizeof dir, "%s/tmp", o->out);
    if (!rc && cli_mkdirs(dir))
        rc = err_set(e, "%s: cannot create", dir);
    if (!rc)
        sweep_pool(runs, todo, n, o->jobs, dir, "validate", run_done, c);
    rmdir(dir);
    for (size_t i = 0; i < n; i++)
        sweep_run_free(&runs[i]);
    free(runs);
    free(todo);
    return rc;
}

/* ---- comparison ----------------------------------------------------------------- */

static double ref_kernel_cycles(const struct vcase *c)
{
    return c->value - (double)c->src->launch_cycles * c->kernels;
}

struct vstat {
    size_t n;
    double mae, signed_err, r;
};

/* Mean absolute and signed relative error of sim vs ref, and Pearson r. */
static struct vstat vstat_of(const double *ref, const double *sim, size_t n)
{
    struct vstat s = {.n = n};
    double mr = 0, ms = 0;
    for (size_t i = 0; i < n; i++) {
        double d = (sim[i] - ref[i]) / ref[i];
        s.mae += fabs(d) / (double)n;
        s.signed_err += d / (double)n;
        mr += ref[i] / (double)n;
        ms += sim[i] / (double)n;
    }
    double sxy = 0, sxx = 0, syy = 0;
    for (size_t i = 0; i < n; i++) {
        sxy += (ref[i] - mr) * (sim[i] - ms);
        sxx += (ref[i] - mr) * (ref[i] - mr);
        syy += (sim[i] - ms) * (sim[i] - ms);
    }
    s.r = sxx > 0 && syy > 0 ? sxy / sqrt(sxx * syy) : NAN;
    return s;
}

static void print_cycles(FILE *f, const struct vcase *c, size_t n)
{
    fprintf(f, "== kernel cycles (launch latency excluded on both sides) ==\n");
    fprintf(f, "%-30s %-18s %7s %11s %11s %11s %8s\n", "case", "source", "kernels", "reference",
            "ref kernel", "chipsim", "error");
    for (size_t i = 0; i < n; i++) {
        if (!c[i].ok) {
            fprintf(f, "%-30s %-18s FAILED: %s\n", c[i].name, c[i].source, c[i].error);
            continue;
        }
        double ref = ref_kernel_cycles(&c[i]);
        fprintf(f, "%-30s %-18s %7.0f %11.0f %11.0f %11.0f %+7.1f%%\n", c[i].name, c[i].source,
                c[i].kernels, c[i].value, ref, c[i].cycles, 100 * (c[i].cycles - ref) / ref);
    }
}

static void print_sources(FILE *f, const struct vcase *c, size_t n)
{
    double *ref = xcalloc(n + 1, sizeof *ref), *sim = xcalloc(n + 1, sizeof *sim);
    fprintf(f, "\n%-18s %6s %9s %9s %10s\n", "source", "cases", "MAE", "signed", "Pearson r");
    for (size_t s = 0; s < NSOURCES; s++) {
        size_t m = 0;
        for (size_t i = 0; i < n; i++)
            if (c[i].ok && c[i].src == &vsources[s]) {
                ref[m] = ref_kernel_cycles(&c[i]);
                sim[m++] = c[i].cycles;
            }
        if (!m)
            continue;
        struct vstat v = vstat_of(ref, sim, m);
        fprintf(f, "%-18s %6zu %8.1f%% %+8.1f%% %10.3f\n", vsources[s].name, m, 100 * v.mae,
                100 * v.signed_err, v.r);
    }
    free(ref);
    free(sim);
}

/* The iteration count N of a case named PREFIX-iN[-SUFFIX], and the series
 * name PREFIX-i*[-SUFFIX]; false if the name has no such part. */
static bool series_of(const char *name, char *series, size_t len, double *iters)
{
    for (const char *p = strstr(name, "-i"); p; p = strstr(p + 1, "-i")) {
        char *end;
        long v = strtol(p + 2, &end, 10);
        if (end == p + 2 || (*end && *end != '-') || v <= 0)
            continue;
        snprintf(series, len, "%.*s-i*%s", (int)(p - name), name, end);
        *iters = (double)v;
        return true;
    }
    return false;
}

/* Least-squares line y = a + b x. */
static void fit(const double *x, const double *y, size_t n, double *a, double *b)
{
    double mx = 0, my = 0, sxy = 0, sxx = 0;
    for (size_t i = 0; i < n; i++) {
        mx += x[i] / (double)n;
        my += y[i] / (double)n;
    }
    for (size_t i = 0; i < n; i++) {
        sxy += (x[i] - mx) * (y[i] - my);
        sxx += (x[i] - mx) * (x[i] - mx);
    }
    *b = sxx > 0 ? sxy / sxx : 0;
    *a = my - *b * mx;
}

/* Series of cases that differ only in an iteration count (ffma-1x32-i10,
 * -i20, ...): the cycles per iteration (slope) and the fixed part (intercept)
 * of the reference and of chipsim, judged apart. */
static void print_series(FILE *f, const struct vcase *c, size_t n)
{
    bool *done = xcalloc(n + 1, sizeof *done), header = false;
    double *x = xcalloc(n + 1, sizeof *x), *yr = xcalloc(n + 1, sizeof *yr),
           *ys = xcalloc(n + 1, sizeof *ys);
    for (size_t i = 0; i < n; i++) {
        char si[256], sj[256];
        double it;
        if (done[i] || !c[i].ok || !series_of(c[i].name, si, sizeof si, &it))
            continue;
        size_t m = 0;
        for (size_t j = i; j < n; j++)
            if (!done[j] && c[j].ok && c[j].src == c[i].src &&
                series_of(c[j].name, sj, sizeof sj, &it) && !strcmp(si, sj)) {
                done[j] = true;
                x[m] = it;
                yr[m] = ref_kernel_cycles(&c[j]);
                ys[m++] = c[j].cycles;
            }
        if (m < 2)
            continue;
        if (!header)
            fprintf(f, "\n%-30s %-18s %24s %24s\n", "series (cycles = a + b x N)", "source",
                    "reference a, b", "chipsim a, b");
        header = true;
        double ra, rb, sa, sb;
        fit(x, yr, m, &ra, &rb);
        fit(x, ys, m, &sa, &sb);
        fprintf(f, "%-30s %-18s %12.0f, %9.1f %12.0f, %9.1f\n", si, c[i].source, ra, rb, sa, sb);
    }
    free(done);
    free(x);
    free(yr);
    free(ys);
}

static void print_counts(FILE *f, const struct vcase *c, size_t n)
{
    fprintf(f, "\n== cache and DRAM counts (32 B sectors) ==\n%-30s", "case");
    for (unsigned k = 0; k < VC_NCOUNT; k++)
        fprintf(f, " %26s", count_name[k]);
    fprintf(f, "\n");
    double err[VC_NCOUNT] = {0};
    unsigned nerr[VC_NCOUNT] = {0};
    for (size_t i = 0; i < n; i++) {
        if (!c[i].ok || isnan(c[i].ref[VC_L1]))
            continue;
        fprintf(f, "%-30s", c[i].name);
        for (unsigned k = 0; k < VC_NCOUNT; k++) {
            double r = c[i].ref[k], s = c[i].sim[k];
            if (r > 0) {
                err[k] += fabs(s - r) / r;
                nerr[k]++;
                fprintf(f, " %9.0f %9.0f %+5.1f%%", r, s, 100 * (s - r) / r);
            } else {
                fprintf(f, " %9.0f %9.0f %6s", r, s, "");
            }
        }
        fprintf(f, "\n");
    }
    fprintf(f, "%-30s", "mean absolute error");
    for (unsigned k = 0; k < VC_NCOUNT; k++) {
        if (nerr[k])
            fprintf(f, " %25.1f%%", 100 * err[k] / nerr[k]);
        else
            fprintf(f, " %26s", "-");
    }
    fprintf(f, "\n");
}

static int write_csv(const char *path, const struct vcase *c, size_t n, struct err *e)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    fprintf(f, "case,source,preset,clock_mhz,kernels,reference,reference_kernel_cycles,"
               "chipsim_kernel_cycles,chipsim_launch_cycles,error");
    for (unsigned k = 0; k < VC_NCOUNT; k++)
        fprintf(f, ",ref_%s,chipsim_%s", count_col[k], count_col[k]);
    fprintf(f, "\n");
    for (size_t i = 0; i < n; i++) {
        if (!c[i].ok)
            continue;
        double ref = ref_kernel_cycles(&c[i]);
        fprintf(f, "%s,%s,%s,%g,%.0f,%.2f,%.2f,%.0f,%.0f,%.6f", c[i].name, c[i].source,
                c[i].preset, c[i].clock_mhz, c[i].kernels, c[i].value, ref, c[i].cycles,
                c[i].launch, (c[i].cycles - ref) / ref);
        for (unsigned k = 0; k < VC_NCOUNT; k++) {
            if (isnan(c[i].ref[k]))
                fprintf(f, ",,%.0f", c[i].sim[k]);
            else
                fprintf(f, ",%.0f,%.0f", c[i].ref[k], c[i].sim[k]);
        }
        fprintf(f, "\n");
    }
    fclose(f);
    int rc = report_write_atomic(path, buf, len, e);
    free(buf);
    return rc;
}

static int report(const struct vopts *o, const struct vcase *c, size_t n, struct err *e)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    print_cycles(f, c, n);
    print_sources(f, c, n);
    print_series(f, c, n);
    print_counts(f, c, n);
    fclose(f);
    fwrite(buf, 1, len, stdout);
    char path[PATH_MAX + 32], png[PATH_MAX + 32];
    snprintf(path, sizeof path, "%s/summary.txt", o->out);
    int rc = report_write_atomic(path, buf, len, e);
    free(buf);
    snprintf(path, sizeof path, "%s/validation.csv", o->out);
    snprintf(png, sizeof png, "%s/correlation.png", o->out);
    if (!rc)
        rc = write_csv(path, c, n, e);
    const char *args[] = {"--csv", path, "--out", png, NULL};
    if (!rc && cli_run_python("tools/validate_plot.py", args))
        rc = err_set(e, "tools/validate_plot.py failed");
    if (!rc)
        printf("\ntable: %s/summary.txt, one row per case: %s, plot: %s\n", o->out, path, png);
    return rc;
}

/* ---- the command ---------------------------------------------------------------- */

enum { O_SMALL = 1, O_CASE, O_SHARED, O_REFS, O_OUT, O_JOBS };

static const struct cli_opt val_opts[] = {
    {O_SMALL, 0, "small", NULL, "only the cases whose traces are stored (no trace generation)"},
    {O_CASE, 0, "case", "NAME", "only this case (repeatable)"},
    {O_SHARED, 0, "shared", "DIR", "the shared inputs (default $CHIPSIM_SHARED, else ../shared)"},
    {O_REFS, 0, "refs", "FILE", "the references (default DIR/validation/references.csv)"},
    {O_OUT, 0, "out", "DIR",
     "results (default results/validation): summary.txt,\nvalidation.csv, correlation.png and .pdf, "
     "generated traces"},
    {O_JOBS, 0, "jobs", "N", "parallel runs (default: the number of CPUs)"},
    {0},
};

static const struct cli_optgroup val_groups[] = {{NULL, val_opts}, {NULL, NULL}};

const struct cli_cmd cli_cmd_validate = {
    .name = "validate",
    .args = "[--small] [--case NAME]... [--out DIR] [--jobs N]",
    .summary = "kernel cycles and cache counts against Accel-Sim and real GPUs",
    .about = "Runs the validation set and compares kernel cycles and cache and DRAM counts\n"
             "with the references in ../shared/validation (docs/validation.md): a table per\n"
             "case, the errors and correlation per reference source, and a scatter plot.",
    .groups = val_groups,
    .fn = cli_validate,
};

/* 0, or CLI_HELP / CLI_BAD (message printed). */
static int parse_opts(int argc, char **argv, struct vopts *o)
{
    const struct cli_cmd *c = &cli_cmd_validate;
    struct cli_parser p;
    cli_parser_init(&p, c, argc, argv);
    char *v;
    int id;
    while ((id = cli_next(&p, &v)) > 0) {
        switch (id) {
        case O_SMALL: o->small = true; break;
        case O_CASE:
            o->only = xrealloc(o->only, (o->nonly + 1) * sizeof *o->only);
            o->only[o->nonly++] = v;
            break;
        case O_SHARED: o->shared = v; break;
        case O_REFS: o->refs = v; break;
        case O_OUT: o->out = v; break;
        case O_JOBS:
            if (cli_uint_arg(c, "--jobs", v, 1, 1024, &o->jobs))
                id = CLI_BAD;
            break;
        }
        if (id < 0)
            break;
    }
    if (id == CLI_END && p.npos)
        id = cli_bad(c, "unexpected argument '%s'", p.pos[0]);
    cli_parser_free(&p);
    return id;
}

int cli_validate(int argc, char **argv)
{
    struct vopts o = {.out = "results/validation", .jobs = cli_default_jobs()};
    int prc = parse_opts(argc, argv, &o);
    struct err e;
    if (!prc && cli_check_out_dir(o.out, "--out", &e))
        prc = cli_bad(&cli_cmd_validate, "%s", e.msg);
    if (prc) {
        free(o.only);
        return prc == CLI_HELP ? EXIT_OK : EXIT_USAGE;
    }
    char refs[PATH_MAX];
    if (!o.shared)
        o.shared = getenv("CHIPSIM_SHARED") ? getenv("CHIPSIM_SHARED") : "../shared";
    if (!o.refs) {
        snprintf(refs, sizeof refs, "%s/validation/references.csv", o.shared);
        o.refs = refs;
    }
    struct vcase *c = NULL;
    size_t n = 0;
    int status = EXIT_USAGE;
    if (load_cases(&o, &c, &n, &e))
        goto fail;
    if (cli_mkdirs(o.out)) {
        err_set(&e, "%s: cannot create the output directory", o.out);
        goto fail;
    }
    for (size_t i = 0; i < n; i++)
        if (prepare_trace(&o, &c[i], &e))
            goto fail;
    status = EXIT_SIMFAIL;
    if (run_cases(&o, c, n, &e) || report(&o, c, n, &e))
        goto fail;
    status = EXIT_OK;
    for (size_t i = 0; i < n; i++)
        if (!c[i].ok)
            status = EXIT_SIMFAIL;
    cases_free(c, n);
    free(o.only);
    return status;
fail:
    fprintf(stderr, "chipsim: %s\n", e.msg);
    cases_free(c, n);
    free(o.only);
    return status;
}
