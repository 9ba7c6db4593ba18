/*
 * reduction.c -- the CUDA SDK's reduction, kernel 6 (reduce6, n a power of
 * two): each work-group of `threads` threads sums a grid-stride slice of
 * the input, two elements per thread per step (i and i + blockSize),
 * stores its partial sum in LDS, halves it with a barrier per step down to
 * 64, finishes the last 64 within one warp (tid < 32, no barrier), and
 * thread 0 stores the work-group's sum. The host launches it again on the
 * partial sums (in place, as the SDK does) until one remains, each pass
 * with the SDK's choice of threads (the next power of two of half the
 * input, at most `threads`) and blocks (at most `blocks`). Default: LADM's
 * Reduction-k6 (spec ladm.md 10, Table 3.4: TB (256,1), 32 MB, 2048 TBs):
 * 2^23 floats, 256 threads, 2048 work-groups (the SDK's 16M ints over at
 * most 64). ALU counts from nvcc 13 -arch=sm_90 PTX
 * (docs/workloads/reduction.md). Abstracted: no data values.
 */
#include "workload/sdk/sdk.h"

#define RD_MAX_PASSES 40

static const struct cfg_key rd_keys[] = {
    {"n", CFG_INT, "8388608", 2, 1073741824, "elements (floats, a power of two)", NULL},
    {"threads", CFG_INT, "256", 64, 512, "threads per work-group at most (a power of two)",
     NULL},
    {"blocks", CFG_INT, "2048", 1, 65536, "work-groups at most (maxBlocks, a power of two)",
     NULL},
    CFG_END,
};

/* reduce6's PTX: the entry 13; per grid-stride step 2 before the first
 * load, 4 between the loads and 4 after (the sums, i += gridSize, the
 * test); 3 before the LDS store; per halving step with a barrier 2 (the
 * test), 1 between the LDS load and store; 2 for tid < 32, then 1 per warp
 * step; thread 0: 2 for its test and 2 before the global store. The
 * offsets of the barrier steps (blockSize / 2 .. 64) and of the warp steps
 * (32 .. 1, those below blockSize) come from arrays. */
#define RD_BODY(IN) "alu 13\n" \
    "for m0 = 0 .. iters\n" \
    "  if 2*bdx*bx + tx + 2*bdx*gdx*m0 < n\n" \
    "    alu 2\n" \
    "    load " IN "[2*bdx*bx + tx + 2*bdx*gdx*m0] 4 -> r1\n" \
    "    alu 4\n" \
    "    load " IN "[2*bdx*bx + tx + 2*bdx*gdx*m0 + bdx] 4 -> r2\n" \
    "    alu 4 < r1 r2\n" \
    "  end\n" \
    "end\n" \
    "alu 3\n" \
    "lds_store lds[tx] 4\n" \
    "for m1 = 0 .. nb\n" \
    "  barrier\n" \
    "  alu 2\n" \
    "  if tx < @bh[m1]\n" \
    "    lds_load lds[tx + @bh[m1]] 4 -> r3\n" \
    "    alu 1 < r3\n" \
    "    lds_store lds[tx] 4 < r3\n" \
    "  end\n" \
    "end\n" \
    "barrier\n" \
    "alu 2\n" \
    "if tx < 32\n" \
    "  for m2 = 0 .. nw\n" \
    "    lds_load lds[tx + @wh[m2]] 4 -> r4\n" \
    "    alu 1 < r4\n" \
    "    lds_store lds[tx] 4 < r4\n" \
    "  end\n" \
    "end\n" \
    "alu 2\n" \
    "if tx < 1\n" \
    "  lds_load lds[0] 4 -> r5\n" \
    "  alu 2 < r5\n" \
    "  store g_odata[bx] 4 < r5\n" \
    "end\n"
static const char *const rd_params[] = {"n", "iters", "nb", "nw", NULL};
static const char *const rd_arrays[] = {"bh", "wh", NULL};
/* The first pass reads the input; the later ones the partial sums, in
 * place (one argument). */
static const struct kd_desc rd_kd[2] = {
    {.name = "reduce6", .params = rd_params, .arrays = rd_arrays,
     .bufs = (const char *const[]){"g_idata", "g_odata", NULL}, .body = RD_BODY("g_idata")},
    {.name = "reduce6", .params = rd_params, .arrays = rd_arrays,
     .bufs = (const char *const[]){"g_odata", NULL}, .body = RD_BODY("g_odata")},
};

/* One pass: its input size, threads and work-groups, and its tree. */
struct rd_pass {
    uint64_t s;
    uint32_t threads, blocks;
    unsigned nb, nw;
    uint32_t bh[4], wh[6];
};

struct rd {
    struct kdw w;
    struct rd_pass pass[RD_MAX_PASSES];
    unsigned npass;
    const struct kernel_buf *in, *out;
};

static uint64_t next_pow2(uint64_t x)
{
    uint64_t p = 1;
    while (p < x)
        p *= 2;
    return p;
}

/* The SDK's passes: s elements each, until one remains. */
static void rd_passes(struct rd *r, uint64_t n, uint32_t max_threads, uint32_t max_blocks)
{
    for (uint64_t s = n; s > 1; r->npass++) {
        struct rd_pass *p = &r->pass[r->npass];
        p->s = s;
        p->threads = (uint32_t)(s < 2ull * max_threads ? next_pow2((s + 1) / 2) : max_threads);
        p->blocks = (uint32_t)min_u64(max_blocks, div_ceil(s, 2ull * p->threads));
        p->nb = sdk_halves(p->bh, p->threads / 2, 32);
        p->nw = sdk_halves(p->wh, min_u64(32, p->threads / 2), 0);
        s = p->blocks;
    }
}

static int rd_setup(struct kdw *w, const struct cfg_sec *sec, struct err *e)
{
    struct rd *r = (struct rd *)w;
    uint64_t n = cfg_uint(sec, "n"), threads = cfg_uint(sec, "threads");
    uint64_t blocks = cfg_uint(sec, "blocks");
    if (sdk_pow2(sec, "n", n, e) || sdk_pow2(sec, "threads", threads, e) ||
        sdk_pow2(sec, "blocks", blocks, e))
        return -1;
    rd_passes(r, n, (uint32_t)threads, (uint32_t)blocks);
    r->in = wl_alloc(w->env, "g_idata", n * 4);
    r->out = wl_alloc(w->env, "g_odata", blocks * 4);
    return 0;
}

/* Pass i reads the input (the first) or the partial sums, in place. */
static bool rd_plan(struct kdw *w, uint64_t i, struct kdw_launch *l)
{
    const struct rd *r = (const struct rd *)w;
    if (i == r->npass)
        return false;
    const struct rd_pass *p = &r->pass[i];
    sdk_launch(l, i ? 1 : 0, p->blocks, 1, p->threads, 1);
    l->params[0] = (int64_t)p->s;
    l->params[1] = (int64_t)div_ceil(p->s, 2ull * p->threads * p->blocks);
    l->params[2] = p->nb;
    l->params[3] = p->nw;
    l->bufs[0] = i ? r->out : r->in;
    l->bufs[1] = i ? NULL : r->out;
    l->arrays[0] = (struct kd_array){p->bh, p->nb};
    l->arrays[1] = (struct kd_array){p->wh, p->nw};
    l->lds_b = p->threads * 4;
    return true;
}

static const struct kd_desc *const rd_descs[] = {&rd_kd[0], &rd_kd[1], NULL};
static const struct kdw_model rd_model = {
    .size = sizeof(struct rd), .descs = rd_descs, .setup = rd_setup, .plan = rd_plan};

static void *rd_create(struct wl_env *env, const struct cfg_sec *sec, struct err *e)
{
    return kdw_create(&rd_model, env, sec, e);
}

static const char *const rd_small[] = {"n=16384", "blocks=8", NULL};

const struct wl_ops wl_reduction = {
    .name = "reduction",
    .suite = "CUDA SDK",
    .desc = "CUDA SDK reduction, kernel 6: grid-stride sums, LDS tree, passes until one remains",
    .keys = rd_keys,
    .small = rd_small,
    .create = rd_create,
    .next_kernel = kdw_next_kernel,
    .destroy = kdw_destroy,
};
