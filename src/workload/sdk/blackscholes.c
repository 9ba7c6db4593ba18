/*
 * blackscholes.c -- the CUDA SDK's BlackScholes (its grid-stride version):
 * each thread prices options opt = gid, gid + gridDim.x * blockDim.x, ...:
 * loads StockPrice, OptionStrike and OptionYears, computes the call and
 * put prices (square root, logarithm, exponentials, two cumulative normal
 * distributions: about fifty instructions), stores CallResult and
 * PutResult. Launched `iterations` times. Default: LADM's BLK (spec
 * ladm.md 10, Table 3.4: TB (128,1), 80 MB, 1920 TBs): the SDK's 4,000,000
 * options (5 arrays of floats, 80 MB) over 480 work-groups of 128 threads,
 * launched 4 times (1920 work-groups). ALU counts from nvcc 13 -arch=sm_90
 * PTX (docs/workloads/blackscholes.md). Abstracted: no data values.
 */
#include <string.h>

#include "workload/sdk/sdk.h"

static const struct cfg_key blk_keys[] = {
    {"options", CFG_INT, "4000000", 1, 1073741824, "options priced (OPT_N)", NULL},
    {"blocks", CFG_INT, "480", 1, 65535, "work-groups", NULL},
    {"threads", CFG_INT, "128", 1, 1024, "threads per work-group", NULL},
    {"iterations", CFG_INT, "4", 1, 1000000, "kernel launches (NUM_ITERATIONS)", NULL},
    CFG_END,
};

/* BlackScholesGPU's PTX: the entry (parameters, tid, the first test) 32;
 * per option 1 between the first two loads, 50 (the pricing) before the
 * call's store, 6 before the put's, and 4 to the next option (nvcc peels
 * the first option and unrolls the rest by two: 1 + 3, then 4 and 3 +
 * 4 per pair). */
static const struct kd_desc blk_kd = {
    .name = "BlackScholesGPU",
    .params = (const char *const[]){"n", "iters", NULL},
    .bufs = (const char *const[]){"CallResult", "PutResult", "StockPrice", "OptionStrike",
                                  "OptionYears", NULL},
    .body = "alu 32\n"
            "for m0 = 0 .. iters\n"
            "  if gid + m0*gdx*bdx < n\n"
            "    load OptionYears[gid + m0*gdx*bdx] 4 -> r1\n"
            "    alu 1\n"
            "    load OptionStrike[gid + m0*gdx*bdx] 4 -> r2\n"
            "    load StockPrice[gid + m0*gdx*bdx] 4 -> r3\n"
            "    alu 50 < r1 r2 r3\n"
            "    store CallResult[gid + m0*gdx*bdx] 4 < r1 r2 r3\n"
            "    alu 6\n"
            "    store PutResult[gid + m0*gdx*bdx] 4 < r1 r2 r3\n"
            "    alu 4\n"
            "  end\n"
            "end\n",
};

struct blk {
    struct kdw w;
    uint64_t options;
    uint32_t blocks, threads;
    unsigned iterations;
    const struct kernel_buf *bufs[5];
};

static int blk_setup(struct kdw *w, const struct cfg_sec *sec, struct err *e)
{
    (void)e;
    struct blk *b = (struct blk *)w;
    b->options = cfg_uint(sec, "options");
    b->blocks = (uint32_t)cfg_uint(sec, "blocks");
    b->threads = (uint32_t)cfg_uint(sec, "threads");
    b->iterations = (unsigned)cfg_uint(sec, "iterations");
    for (unsigned i = 0; i < 5; i++)
        b->bufs[i] = wl_alloc(w->env, blk_kd.bufs[i], b->options * 4);
    return 0;
}

static bool blk_plan(struct kdw *w, uint64_t i, struct kdw_launch *l)
{
    const struct blk *b = (const struct blk *)w;
    if (i == b->iterations)
        return false;
    sdk_launch(l, 0, b->blocks, 1, b->threads, 1);
    l->params[0] = (int64_t)b->options;
    l->params[1] = (int64_t)div_ceil(b->options, (uint64_t)b->blocks * b->threads);
    memcpy(l->bufs, b->bufs, sizeof b->bufs);
    return true;
}

static const struct kd_desc *const blk_descs[] = {&blk_kd, NULL};
static const struct kdw_model blk_model = {
    .size = sizeof(struct blk), .descs = blk_descs, .setup = blk_setup, .plan = blk_plan};

static void *blk_create(struct wl_env *env, const struct cfg_sec *sec, struct err *e)
{
    return kdw_create(&blk_model, env, sec, e);
}

static const char *const blk_small[] = {"options=1500", "blocks=8", "iterations=2", NULL};

const struct wl_ops wl_blackscholes = {
    .name = "blackscholes",
    .suite = "CUDA SDK",
    .desc = "CUDA SDK BlackScholes: call and put prices of options, grid-stride loop",
    .keys = blk_keys,
    .small = blk_small,
    .create = blk_create,
    .next_kernel = kdw_next_kernel,
    .destroy = kdw_destroy,
};
