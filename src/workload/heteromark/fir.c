/*
 * fir.c -- Hetero-Mark FIR: a finite impulse response filter of `taps`
 * coefficients over a stream of samples processed in blocks of `n`, one
 * launch per block (spec dualopt.md 9: "local dominated").
 *
 * Modelled (kernel descriptions, kd.h): one thread per output sample of the
 * block; per tap i, coeff[i] times input[tid - i] of the block, or, for the
 * first taps - 1 threads, of the history (the previous block's last `taps`
 * samples, which the host copies between launches); the sum is stored to
 * output. Launch b reads block b of the input and writes block b of the
 * output. The two loads of a tap are one selected address in the real code
 * (a select, one load); a warp whose lanes take both sides issues both.
 * ALU counts from nvcc 13 -arch=sm_90 PTX of a CUDA version, the tap loop
 * kept rolled (docs/workloads/fir.md).
 * Abstracted: no data values; the host's copy of the history.
 */
#include <string.h>

#include "workload/kdw.h"

static const struct cfg_key fir_keys[] = {
    {"n", CFG_INT, "1048576", 1, 2147483647.0, "samples per block (one launch each)", NULL},
    {"taps", CFG_INT, "16", 1, 4096, "filter coefficients", NULL},
    {"blocks", CFG_INT, "8", 1, 1000000, "blocks of samples (launches)", NULL},
    {"block", CFG_INT, "256", 1, 1024, "threads per work-group", NULL},
    CFG_END,
};

/* PTX: the entry (parameters, tid, the zero sum, the loop test: 17); per tap
 * the two candidate addresses, the test tid >= i and the select (8), the
 * loads of the sample and of coeff[i], then the fma, the coefficient
 * pointer's step, i++, compare, branch (5); the address of output[tid] (2). */
static const char *const fir_params[] = {"taps", "off", NULL};
static const char *const fir_bufs[] = {"input", "output", "coeff", "history", NULL};
static const struct kd_desc fir_kd = {
    .name = "fir",
    .params = fir_params,
    .bufs = fir_bufs,
    .body = "alu 17\n"
            "for m0 = 0 .. taps\n"
            "  alu 8\n"
            "  if m0 < gid + 1                  # tid >= i: this block's samples\n"
            "    load input[off + gid - m0] 4 -> r1\n"
            "  end\n"
            "  if gid < m0                      # else: the history\n"
            "    load history[taps + gid - m0] 4 -> r1\n"
            "  end\n"
            "  load coeff[m0] 4 -> r2\n"
            "  alu 5 < r1 r2\n"
            "end\n"
            "alu 2\n"
            "store output[off + gid] 4\n",
};

struct fir {
    struct kdw w;
    const struct kernel_buf *bufs[4];
    uint64_t n, taps, blocks;
    uint32_t block;
};

static int fir_setup(struct kdw *w, const struct cfg_sec *sec, struct err *e)
{
    struct fir *f = (struct fir *)w;
    f->n = cfg_uint(sec, "n");
    f->taps = cfg_uint(sec, "taps");
    f->blocks = cfg_uint(sec, "blocks");
    f->block = (uint32_t)cfg_uint(sec, "block");
    if (f->n % f->block)
        return cfg_err(e, sec, "n", "must be a multiple of block (%u): one thread per sample",
                       f->block);
    if (f->n * f->blocks > UINT32_MAX)
        return cfg_err(e, sec, "blocks", "n x blocks must be at most %u samples", UINT32_MAX);
    f->bufs[0] = wl_alloc(w->env, "input", f->n * f->blocks * 4);
    f->bufs[1] = wl_alloc(w->env, "output", f->n * f->blocks * 4);
    f->bufs[2] = wl_alloc(w->env, "coeff", f->taps * 4);
    f->bufs[3] = wl_alloc(w->env, "history", f->taps * 4);
    return 0;
}

static bool fir_plan(struct kdw *w, uint64_t i, struct kdw_launch *l)
{
    const struct fir *f = (const struct fir *)w;
    if (i == f->blocks)
        return false;
    l->grid = (struct kernel_dim){(uint32_t)(f->n / f->block), 1, 1};
    l->block = (struct kernel_dim){f->block, 1, 1};
    l->params[0] = (int64_t)f->taps;
    l->params[1] = (int64_t)(i * f->n);
    memcpy(l->bufs, f->bufs, sizeof f->bufs);
    return true;
}

static const struct kd_desc *const fir_descs[] = {&fir_kd, NULL};
static const struct kdw_model fir_model = {
    .size = sizeof(struct fir), .descs = fir_descs, .setup = fir_setup, .plan = fir_plan};

static void *fir_create(struct wl_env *env, const struct cfg_sec *sec, struct err *e)
{
    return kdw_create(&fir_model, env, sec, e);
}

static const char *const fir_small[] = {"n=2048", "taps=4", "blocks=2", NULL};

const struct wl_ops wl_fir = {
    .name = "fir",
    .suite = "HeteroMark",
    .desc = "Hetero-Mark FIR filter over blocks of samples, one launch per block",
    .keys = fir_keys,
    .small = fir_small,
    .create = fir_create,
    .next_kernel = kdw_next_kernel,
    .destroy = kdw_destroy,
};
