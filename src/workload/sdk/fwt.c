/*
 * fwt.c -- the CUDA SDK's fastWalshTransform: the Walsh-Hadamard transform
 * of 2^log2 floats (d_Data) and of the zero-padded filter (d_Kernel), their
 * element-wise product (modulateKernel), and the transform of the product:
 * the dyadic convolution. Each transform is fwtBatch2Kernel (256 threads,
 * one radix-4 butterfly each over the whole array: stride N/4, N/16, ...)
 * while more than 2^11 points remain per batch, then fwtBatch1Kernel (one
 * work-group of N/4 threads per batch of N <= 2^11 points, loaded into LDS,
 * radix-4 stages with a barrier each, a radix-2 stage when log2 N is odd,
 * stored back).
 *
 * A butterfly's first index is 4 pos - 3 (pos mod stride), which an index
 * expression cannot hold: the host gives stride * floor(pos / stride) per
 * work-group of fwtBatch2Kernel (sdk_floor_table) and the four LDS indices
 * of each thread in each stage of fwtBatch1Kernel, as arrays. Accesses
 * through an array give no per-work-group ranges (the whole array).
 *
 * Default: the SDK's log2Data = 23 (2 x 32 MiB): LADM's FWT-k2 (spec
 * ladm.md 10, Table 3.4: TB (256,1), 64 MB). ALU counts from nvcc 13
 * -arch=sm_90 PTX (docs/workloads/fwt.md). Abstracted: no data values; the
 * host's copy of the filter into d_Kernel.
 */
#include <stdlib.h>

#include "workload/sdk/sdk.h"

#define FWT_ELEM_LOG 11  /* ELEMENTARY_LOG2SIZE */
#define FWT_THREADS 256  /* fwtBatch2Kernel's THREAD_N */
#define FWT_MAX_STAGES 6
#define FWT_MAX_LAUNCHES 64

static const struct cfg_key fwt_keys[] = {
    {"log2", CFG_INT, "23", 4, 28, "log2 of the points of the data (log2Data)", NULL},
    CFG_END,
};

enum { K_B2, K_B1, K_MOD };

/* fwtBatch2Kernel's PTX: the entry (parameters, pos, lo, i0 and the
 * addresses) 22; 2, 1, 1 between the four loads; 6 (the butterflies)
 * before the first store, 2 between the stores. i0 = gid + 3 fl[bx]. */
#define FWT_I0 "gid + 3*@fl[bx]"
/* fwtBatch1Kernel's PTX: the entry 13; per load 4 before it, 3 before its
 * LDS store, 3 after; 4 before the stages; per radix-4 stage 6, the
 * barrier, 6, two LDS loads, 2, two more, 3, the four LDS stores with 1
 * between, 3 after; 6; the radix-2 stage (odd log2 N): the barrier, 7, and
 * per pair 3, a paired (8-byte) LDS load, 2, its store, 3; the barrier, 3;
 * per store 2, the LDS load, 4, the global store, 3. */
#define FWT_LDS(A) "lds[@" A "[bdx*m1 + tx]]"
static const char *const fwt_params[] = {"n", "st", "ns", "odd", "iters", NULL};
static const char *const fwt_bufs[] = {"d", NULL};
static const struct kd_desc fwt_kd[3] = {
    [K_B2] = {
        .name = "fwtBatch2Kernel", .params = fwt_params, .bufs = fwt_bufs,
        .arrays = (const char *const[]){"fl", NULL},
        .body = "alu 22\n"
                "load d[" FWT_I0 "] 4 -> r1\n"
                "alu 2\n"
                "load d[" FWT_I0 " + st] 4 -> r2\n"
                "alu 1\n"
                "load d[" FWT_I0 " + 2*st] 4 -> r3\n"
                "alu 1\n"
                "load d[" FWT_I0 " + 3*st] 4 -> r4\n"
                "alu 6 < r1 r2 r3 r4\n"
                "store d[" FWT_I0 "] 4 < r1 r2 r3 r4\n"
                "alu 2\n"
                "store d[" FWT_I0 " + st] 4 < r1 r2 r3 r4\n"
                "alu 2\n"
                "store d[" FWT_I0 " + 2*st] 4 < r1 r2 r3 r4\n"
                "alu 2\n"
                "store d[" FWT_I0 " + 3*st] 4 < r1 r2 r3 r4\n"},
    [K_B1] = {
        .name = "fwtBatch1Kernel", .params = fwt_params, .bufs = fwt_bufs,
        .arrays = (const char *const[]){"i0", "i1", "i2", "i3", NULL},
        .body = "alu 13\n"
                "for m0 = 0 .. 4\n"
                "  alu 4\n"
                "  load d[n*bx + tx + bdx*m0] 4 -> r1\n"
                "  alu 3\n"
                "  lds_store lds[tx + bdx*m0] 4 < r1\n"
                "  alu 3\n"
                "end\n"
                "alu 4\n"
                "for m1 = 0 .. ns\n"
                "  alu 6\n"
                "  barrier\n"
                "  alu 6\n"
                "  lds_load " FWT_LDS("i0") " 4 -> r2\n"
                "  lds_load " FWT_LDS("i2") " 4 -> r3\n"
                "  alu 2\n"
                "  lds_load " FWT_LDS("i1") " 4 -> r4\n"
                "  lds_load " FWT_LDS("i3") " 4 -> r5\n"
                "  alu 3 < r2 r3 r4 r5\n"
                "  lds_store " FWT_LDS("i0") " 4 < r2 r3 r4 r5\n"
                "  alu 1\n"
                "  lds_store " FWT_LDS("i1") " 4 < r2 r3 r4 r5\n"
                "  alu 1\n"
                "  lds_store " FWT_LDS("i2") " 4 < r2 r3 r4 r5\n"
                "  alu 1\n"
                "  lds_store " FWT_LDS("i3") " 4 < r2 r3 r4 r5\n"
                "  alu 3\n"
                "end\n"
                "alu 6\n"
                "if 0 < odd\n"
                "  barrier\n"
                "  alu 7\n"
                "  for m2 = 0 .. 2\n"
                "    alu 3\n"
                "    lds_load lds[tx + bdx*m2] 8 -> r6\n"
                "    alu 2 < r6\n"
                "    lds_store lds[tx + bdx*m2] 8 < r6\n"
                "    alu 3\n"
                "  end\n"
                "end\n"
                "barrier\n"
                "alu 3\n"
                "for m0 = 0 .. 4\n"
                "  alu 2\n"
                "  lds_load lds[tx + bdx*m0] 4 -> r7\n"
                "  alu 4 < r7\n"
                "  store d[n*bx + tx + bdx*m0] 4 < r7\n"
                "  alu 3\n"
                "end\n"},
    /* modulateKernel's PTX: the entry and the remainder's set-up 26 + 3;
     * per element 2 before each load, 1 before the store, 1 after (the
     * four-way loop's 23 over four elements, its remainder's 0, 1, 1, 6:
     * counted 6 each). */
    [K_MOD] = {
        .name = "modulateKernel", .params = fwt_params,
        .bufs = (const char *const[]){"d_A", "d_B", NULL},
        .body = "alu 29\n"
                "for m0 = 0 .. iters\n"
                "  if gid + m0*gdx*bdx < n\n"
                "    alu 2\n"
                "    load d_B[gid + m0*gdx*bdx] 4 -> r1\n"
                "    alu 2\n"
                "    load d_A[gid + m0*gdx*bdx] 4 -> r2\n"
                "    alu 1 < r1 r2\n"
                "    store d_A[gid + m0*gdx*bdx] 4 < r1 r2\n"
                "    alu 1\n"
                "  end\n"
                "end\n"},
};

/* One launch of the sequence. */
struct fwt_launch {
    uint8_t kind, data; /* data: d_Data (1) or d_Kernel (0) */
    uint32_t stride;    /* K_B2 */
    const uint32_t *fl; /* K_B2: its table */
};

struct fwt {
    struct kdw w;
    unsigned log2, log2n; /* log2n: the points of fwtBatch1Kernel's batches */
    uint32_t b1_threads, b2_grid;
    unsigned ns;          /* fwtBatch1Kernel's radix-4 stages */
    uint32_t *fl[16];     /* fwtBatch2Kernel's tables, one per stride */
    uint32_t *idx[4];     /* fwtBatch1Kernel's LDS indices, [stage * threads + tx] */
    struct fwt_launch seq[FWT_MAX_LAUNCHES];
    unsigned nseq;
    const struct kernel_buf *data, *kernel;
};


/* fwtBatch1Kernel's LDS indices of each thread in each radix-4 stage. */
static void fwt_b1_tables(struct fwt *f)
{
    uint32_t b = f->b1_threads;
    for (unsigned a = 0; a < 4; a++)
        f->idx[a] = xcalloc((size_t)f->ns * b, sizeof *f->idx[a]);
    uint32_t st = 1u << f->log2n >> 2;
    for (unsigned j = 0; j < f->ns; j++, st >>= 2)
        for (uint32_t t = 0; t < b; t++) {
            uint32_t lo = t & (st - 1), i0 = ((t - lo) << 2) + lo;
            for (unsigned a = 0; a < 4; a++)
                f->idx[a][j * b + t] = i0 + a * st;
        }
}

/* One transform of d_Data (data) or d_Kernel: fwtBatch2Kernel per stride,
 * then fwtBatch1Kernel. */
static void fwt_transform(struct fwt *f, bool data)
{
    unsigned k = 0;
    for (unsigned l = f->log2; l > FWT_ELEM_LOG; l -= 2, k++)
        f->seq[f->nseq++] = (struct fwt_launch){K_B2, data, 1u << (l - 2), f->fl[k]};
    f->seq[f->nseq++] = (struct fwt_launch){K_B1, data, 0, NULL};
}

static int fwt_setup(struct kdw *w, const struct cfg_sec *sec, struct err *e)
{
    (void)e;
    struct fwt *f = (struct fwt *)w;
    f->log2 = (unsigned)cfg_uint(sec, "log2");
    f->log2n = f->log2;
    unsigned k = 0;
    for (; f->log2n > FWT_ELEM_LOG; f->log2n -= 2, k++) {
        f->b2_grid = (uint32_t)((1ull << f->log2) / (4 * FWT_THREADS));
        f->fl[k] = xcalloc(f->b2_grid, sizeof *f->fl[k]);
        sdk_floor_table(f->fl[k], f->b2_grid, FWT_THREADS, 1u << (f->log2n - 2));
    }
    f->b1_threads = 1u << f->log2n >> 2;
    f->ns = f->log2n / 2;
    fwt_b1_tables(f);
    fwt_transform(f, true);
    fwt_transform(f, false);
    f->seq[f->nseq++] = (struct fwt_launch){K_MOD, true, 0, NULL};
    fwt_transform(f, true);
    f->data = wl_alloc(w->env, "d_Data", 4ull << f->log2);
    f->kernel = wl_alloc(w->env, "d_Kernel", 4ull << f->log2);
    return 0;
}

static bool fwt_plan(struct kdw *w, uint64_t i, struct kdw_launch *l)
{
    const struct fwt *f = (const struct fwt *)w;
    if (i == f->nseq)
        return false;
    const struct fwt_launch *s = &f->seq[i];
    uint64_t n = 1ull << (s->kind == K_B1 ? f->log2n : f->log2);
    l->params[0] = (int64_t)n;
    l->bufs[0] = s->data ? f->data : f->kernel;
    if (s->kind == K_B2) {
        sdk_launch(l, K_B2, f->b2_grid, 1, FWT_THREADS, 1);
        l->params[1] = s->stride;
        l->arrays[0] = (struct kd_array){s->fl, f->b2_grid};
    } else if (s->kind == K_B1) {
        sdk_launch(l, K_B1, 1u << (f->log2 - f->log2n), 1, f->b1_threads, 1);
        l->params[2] = f->ns;
        l->params[3] = f->log2n & 1;
        for (unsigned a = 0; a < 4; a++)
            l->arrays[a] = (struct kd_array){f->idx[a], (uint64_t)f->ns * f->b1_threads};
        l->lds_b = (uint32_t)(4 * n);
    } else {
        sdk_launch(l, K_MOD, 128, 1, 256, 1);
        l->params[4] = (int64_t)div_ceil(n, 128 * 256);
        l->bufs[1] = f->kernel;
    }
    return true;
}

static uint64_t fwt_count(const struct kdw *w)
{
    return ((const struct fwt *)w)->nseq;
}

static void fwt_release(struct kdw *w)
{
    struct fwt *f = (struct fwt *)w;
    for (unsigned k = 0; k < 16; k++)
        free(f->fl[k]);
    for (unsigned a = 0; a < 4; a++)
        free(f->idx[a]);
}

static const struct kd_desc *const fwt_descs[] = {&fwt_kd[K_B2], &fwt_kd[K_B1], &fwt_kd[K_MOD],
                                                  NULL};
static const struct kdw_model fwt_model = {
    .size = sizeof(struct fwt), .descs = fwt_descs, .setup = fwt_setup, .plan = fwt_plan,
    .count = fwt_count, .release = fwt_release};

static void *fwt_create(struct wl_env *env, const struct cfg_sec *sec, struct err *e)
{
    return kdw_create(&fwt_model, env, sec, e);
}

static const char *const fwt_small[] = {"log2=12", NULL};

const struct wl_ops wl_fwt = {
    .name = "fwt",
    .suite = "CUDA SDK",
    .desc = "CUDA SDK fastWalshTransform: radix-4 butterflies in global memory and in LDS",
    .keys = fwt_keys,
    .small = fwt_small,
    .create = fwt_create,
    .next_kernel = kdw_next_kernel,
    .destroy = kdw_destroy,
    .kernels = kdw_kernels,
};
