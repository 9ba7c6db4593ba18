/*
 * histogram.c -- the CUDA SDK's histogram256: histogram256Kernel (`partials`
 * work-groups of 192 threads, six warps of 32, each with its own 256-bin
 * sub-histogram in LDS) clears its sub-histograms, reads the data as 32-bit
 * words over a grid-stride loop and counts each word's four bytes with LDS
 * atomics into its warp's sub-histogram, then sums the six sub-histograms
 * bin by bin into its partial histogram in global memory;
 * mergeHistogram256Kernel (256 work-groups, one per bin) sums the bin over
 * the partial histograms (a column of them: consecutive threads 1 KiB
 * apart) and reduces it in LDS.
 *
 * Substitute: LADM's Histo-main and Histo-final (spec ladm.md 10, Table
 * 3.4: 36 MB, a main kernel in 2D work-groups with row/column locality and
 * a final kernel with an X-stride) are Parboil's histo, whose input (an
 * image of a silicon wafer's defects) is not public; the SDK's histogram
 * has the same two roles (counting into private sub-histograms, then a
 * strided merge) and runs here on LADM's 36 MiB of uniformly random bytes
 * from the run's seed (the SDK's own input is random bytes). The LDS
 * address of a byte (its warp's sub-histogram + the byte) is a host table
 * indexed by thread and byte: the data repeat every grid-stride pass.
 * ALU counts from nvcc 13 -arch=sm_90 PTX (docs/workloads/histogram.md).
 * Abstracted: an LDS atomic add is an LDS load and an LDS store.
 */
#include <stdlib.h>

#include "workload/sdk/sdk.h"

#define HG_THREADS 192 /* HISTOGRAM256_THREADBLOCK_SIZE: 6 warps of 32 */
#define HG_BINS 256

static const struct cfg_key hg_keys[] = {
    {"bytes", CFG_INT, "37748736", 4, 4294967296.0, "bytes of data (a multiple of 4)", NULL},
    {"partials", CFG_INT, "240", 1, 4096,
     "work-groups of histogram256Kernel (PARTIAL_HISTOGRAM256_COUNT)", NULL},
    {"merge_threads", CFG_INT, "256", 32, 1024,
     "threads per work-group of the merge (MERGE_THREADBLOCK_SIZE, a power of two)", NULL},
    CFG_END,
};

enum { K_MAIN, K_MERGE };

/* histogram256Kernel's PTX: the entry 8 and the eight LDS stores of the
 * clearing, then the barrier and 9; per word 2, the load, 4, then per byte
 * its atomic and 5, 5, 4 and 3 after the four; the barrier and 5; per bin
 * 0, 0, 1, 1, 1, 1 between the six LDS loads, 3 before the store and 5
 * after. The LDS address of byte k of word pos comes from @bin[4 gid +
 * k]. */
#define HG_BYTE(K, A)                                                                         \
    "    lds_load lds[@bin[4*gid + " #K "]] 4 -> r2 < r1\n"                                  \
    "    lds_store lds[@bin[4*gid + " #K "]] 4 < r2\n"                                       \
    "    alu " #A "\n"
#define HG_SUB(J) "    lds_load lds[tx + 192*m1 + " #J "*256] 4 -> r3\n"
static const char *const hg_params[] = {"cnt", "iters", "mt", "nh", NULL};
static const struct kd_desc hg_kd[2] = {
    [K_MAIN] = {
        .name = "histogram256Kernel", .params = hg_params,
        .bufs = (const char *const[]){"d_PartialHistograms", "d_Data", NULL},
        .arrays = (const char *const[]){"bin", NULL},
        .body = "alu 8\n"
                "for m0 = 0 .. 8\n"
                "  lds_store lds[tx + 192*m0] 4\n"
                "end\n"
                "barrier\n"
                "alu 9\n"
                "for m0 = 0 .. iters\n"
                "  if gid + m0*gdx*bdx < cnt\n"
                "    alu 2\n"
                "    load d_Data[gid + m0*gdx*bdx] 4 -> r1\n"
                "    alu 4 < r1\n" HG_BYTE(0, 5) HG_BYTE(1, 5) HG_BYTE(2, 4) HG_BYTE(3, 3)
                "  end\n"
                "end\n"
                "barrier\n"
                "alu 5\n"
                "for m1 = 0 .. 2\n"
                "  if tx + 192*m1 < 256\n" HG_SUB(0) HG_SUB(1) "    alu 1\n" HG_SUB(2)
                "    alu 1\n" HG_SUB(3) "    alu 1\n" HG_SUB(4) "    alu 1\n" HG_SUB(5)
                "    alu 3 < r3\n"
                "    store d_PartialHistograms[256*bx + tx + 192*m1] 4 < r3\n"
                "    alu 5\n"
                "  end\n"
                "end\n"},
    /* mergeHistogram256Kernel's PTX: the entry 12; per partial histogram 2,
     * the load, 5; 3 before the LDS store; per halving step the barrier, 2
     * (the test), two LDS loads, 1, the LDS store; thread 0 does the last
     * step (offset 1) with the final read: 2, two LDS loads, 1, the store,
     * the LDS load, 3, the global store. */
    [K_MERGE] = {
        .name = "mergeHistogram256Kernel", .params = hg_params,
        .bufs = (const char *const[]){"d_Histogram", "d_PartialHistograms", NULL},
        .arrays = (const char *const[]){"half", NULL},
        .body = "alu 12\n"
                "for m0 = 0 .. iters\n"
                "  if tx + mt*m0 < cnt\n"
                "    alu 2\n"
                "    load d_PartialHistograms[bx + 256*tx + 256*mt*m0] 4 -> r1\n"
                "    alu 5 < r1\n"
                "  end\n"
                "end\n"
                "alu 3\n"
                "lds_store lds[tx] 4\n"
                "for m1 = 0 .. nh\n"
                "  barrier\n"
                "  alu 2\n"
                "  if tx < @half[m1]\n"
                "    lds_load lds[tx] 4 -> r2\n"
                "    lds_load lds[tx + @half[m1]] 4 -> r3\n"
                "    alu 1 < r2 r3\n"
                "    lds_store lds[tx] 4 < r2 r3\n"
                "  end\n"
                "end\n"
                "barrier\n"
                "alu 2\n"
                "if tx < 1\n"
                "  lds_load lds[1] 4 -> r4\n"
                "  lds_load lds[0] 4 -> r5\n"
                "  alu 1 < r4 r5\n"
                "  lds_store lds[0] 4 < r4 r5\n"
                "  lds_load lds[0] 4 -> r6\n"
                "  alu 3 < r6\n"
                "  store d_Histogram[bx] 4 < r6\n"
                "end\n"},
};

struct hg {
    struct kdw w;
    uint64_t words;
    uint32_t partials, merge_threads;
    unsigned nhalf;
    uint32_t half[10];
    uint32_t *bin;  /* [4 * gid + k]: the LDS word of byte k of thread gid's words */
    uint64_t nbin;
    const struct kernel_buf *data, *partial, *hist;
};

/* The bytes' LDS words: thread gid's warp's sub-histogram + a random byte. */
static void hg_bins(struct hg *h, uint64_t seed)
{
    struct rng r;
    rng_seed(&r, seed ^ 0x4157ull);
    h->nbin = 4ull * h->partials * HG_THREADS;
    h->bin = xcalloc(h->nbin, sizeof *h->bin);
    for (uint64_t i = 0; i < h->nbin; i++)
        h->bin[i] = (uint32_t)((i / 4 % HG_THREADS / 32) * HG_BINS + rng_below(&r, HG_BINS));
}

static int hg_setup(struct kdw *w, const struct cfg_sec *sec, struct err *e)
{
    struct hg *h = (struct hg *)w;
    uint64_t bytes = cfg_uint(sec, "bytes");
    h->partials = (uint32_t)cfg_uint(sec, "partials");
    h->merge_threads = (uint32_t)cfg_uint(sec, "merge_threads");
    if (sdk_multiple(sec, "bytes", bytes, 4, "32-bit words", e) ||
        sdk_pow2(sec, "merge_threads", h->merge_threads, e))
        return -1;
    h->words = bytes / 4;
    h->nhalf = sdk_halves(h->half, h->merge_threads / 2, 1);
    hg_bins(h, w->env->seed);
    h->data = wl_alloc(w->env, "d_Data", bytes);
    h->partial = wl_alloc(w->env, "d_PartialHistograms", (uint64_t)h->partials * HG_BINS * 4);
    h->hist = wl_alloc(w->env, "d_Histogram", HG_BINS * 4);
    return 0;
}

static bool hg_plan(struct kdw *w, uint64_t i, struct kdw_launch *l)
{
    const struct hg *h = (const struct hg *)w;
    if (i == 2)
        return false;
    if (i == K_MAIN) {
        sdk_launch(l, K_MAIN, h->partials, 1, HG_THREADS, 1);
        l->params[0] = (int64_t)h->words;
        l->params[1] = (int64_t)div_ceil(h->words, (uint64_t)h->partials * HG_THREADS);
        l->bufs[0] = h->partial;
        l->bufs[1] = h->data;
        l->arrays[0] = (struct kd_array){h->bin, h->nbin};
        l->lds_b = 6 * HG_BINS * 4;
        return true;
    }
    sdk_launch(l, K_MERGE, HG_BINS, 1, h->merge_threads, 1);
    l->params[0] = h->partials;
    l->params[1] = (int64_t)div_ceil(h->partials, h->merge_threads);
    l->params[2] = h->merge_threads;
    l->params[3] = h->nhalf;
    l->bufs[0] = h->hist;
    l->bufs[1] = h->partial;
    l->arrays[0] = (struct kd_array){h->half, h->nhalf};
    l->lds_b = h->merge_threads * 4;
    return true;
}

static void hg_release(struct kdw *w)
{
    free(((struct hg *)w)->bin);
}

static const struct kd_desc *const hg_descs[] = {&hg_kd[K_MAIN], &hg_kd[K_MERGE], NULL};
static const struct kdw_model hg_model = {
    .size = sizeof(struct hg), .descs = hg_descs, .setup = hg_setup, .plan = hg_plan,
    .release = hg_release};

static void *hg_create(struct wl_env *env, const struct cfg_sec *sec, struct err *e)
{
    return kdw_create(&hg_model, env, sec, e);
}

static const char *const hg_small[] = {"bytes=6144", "partials=4", "merge_threads=32", NULL};

const struct wl_ops wl_histogram = {
    .name = "histogram",
    .suite = "CUDA SDK",
    .desc = "CUDA SDK histogram256 (substitute for LADM's Histo): LDS sub-histograms, then a merge",
    .keys = hg_keys,
    .small = hg_small,
    .create = hg_create,
    .next_kernel = kdw_next_kernel,
    .destroy = kdw_destroy,
};
