/*
 * srad_v2.c -- Rodinia srad_v2 (srad.cu, srad_kernel.cu): speckle-reducing
 * anisotropic diffusion on a rows x cols float image, niter iterations of
 * srad_cuda_1 and srad_cuda_2 over 16x16 blocks with LDS tiles.
 *
 * Modelled (kernel descriptions, src/workload/kd.h): grid (cols/16,
 * rows/16) of 16x16 threads per kernel; the real index arithmetic (index,
 * index_n/s/w/e and the replacement loads of the image borders), the LDS
 * tiles (srad_cuda_1: temp, temp_result, north, south, east, west;
 * srad_cuda_2: south_c, east_c, c_cuda_temp, c_cuda_result, temp), every
 * __syncthreads(), the divergent if-chains that pick the neighbours (each
 * region of a warp runs its own LDS loads with its lanes), the stores of C,
 * E, W, S, N (srad_cuda_1) and of J (srad_cuda_2). Each work-group's ranges
 * are derived from the descriptions. The ROI statistics (q0sqr) are reduced
 * on the host between iterations (srad_v2 has no kernel for it): nothing is
 * issued for them.
 * Abstracted: no data values (the saturation of c is one LDS store with every
 * lane); the real code also reads a few elements just outside J / C at the
 * image edges (index_n of the first block row, index_s of the last, index_w
 * of element 0, index_e of the last element) before overwriting the values:
 * those lanes are masked off here, so every access stays inside its array.
 * ALU counts per basic block from nvcc 13 -arch=sm_90 PTX of Rodinia 3.1's
 * srad_kernel.cu (every instruction but global and LDS loads and stores,
 * barriers, ret and cvta.to.global); blocks with no op of their own are
 * counted in the nearest op run as often. See docs/workloads/srad-v2.md.
 */
#include <stdlib.h>

#include "workload/kd.h"
#include "workload/wl.h"

#define SR_B 16 /* BLOCK_SIZE */

static const struct cfg_key srad_keys[] = {
    {"rows", CFG_INT, "2048", 16, 65536, "image rows (argv[1]), a multiple of 16", NULL},
    {"cols", CFG_INT, "2048", 16, 65536, "image columns (argv[2]), a multiple of 16", NULL},
    {"r1", CFG_INT, "0", 0, 65535, "first row of the ROI (argv[3])", NULL},
    {"r2", CFG_INT, "127", 0, 65535, "last row of the ROI (argv[4])", NULL},
    {"c1", CFG_INT, "0", 0, 65535, "first column of the ROI (argv[5])", NULL},
    {"c2", CFG_INT, "127", 0, 65535, "last column of the ROI (argv[6])", NULL},
    {"lambda", CFG_FLOAT, "0.5", 0, 1e9, "update step (argv[7]; no effect on addresses)", NULL},
    {"niter", CFG_INT, "2", 1, 1000000, "iterations (argv[8])", NULL},
    CFG_END,
};

/* Indices (c = cols, n = rows x cols): index = cols x 16 by + 16 bx +
 * cols x ty + tx; an LDS tile's element [ty][tx] is 16 ty + tx from its
 * start (in elements; the tiles lie in declaration order, 256 each).
 * index_n/s/w/e of an image edge fall outside the image: those lanes are
 * masked off (an `if` on the index), their replacement loads follow. */
#define SR_BLK "16*c*by + 16*bx"
#define SR_IDX SR_BLK " + c*ty + tx"
#define SR_T "16*ty + tx"
#define SR_IN(i) "if -1 < " i " < n\n"
#define SR_LD(tile, r) "    lds_load lds[" tile " + " SR_T "] 4 -> r" #r "\n"

/* One region of an if-chain (its lanes: both conditions), in code order:
 * its tests, the LDS loads of its sources (registers 8..), the rest of its
 * block. ALU counts (docs/workloads/srad-v2.md): the compiler turns each
 * if-chain into one chain of tests that the interior lanes, present in
 * every warp of 32 or more lanes, walk to its end: the whole chain is the
 * interior region's first op (srad_cuda_1 24, srad_cuda_2 10); every other
 * region carries its own block (srad_cuda_1: 5, 6 for n and s, 1 for w plus
 * the test that picks it; srad_cuda_2: e 3; se has no block of its own and
 * shares s's 5, the two appear in the same warps), split over its two ops. */
#define SR_REGION1(c1, c2, a0, n, s, w, e, a1)                                                     \
    "if " c1 "\n  if " c2 "\n    alu " #a0 "\n" SR_LD(n, 8) SR_LD(s, 9) SR_LD(w, 10) SR_LD(e, 11)  \
    "    alu " #a1 " < r11 r6\n  end\nend\n"
#define SR_REGION2(c1, c2, a0, s, e, a1)                                                           \
    "if " c1 "\n  if " c2 "\n    alu " #a0 "\n" SR_LD(s, 8) SR_LD(e, 9)                           \
    "    alu " #a1 " < r9 r6\n  end\nend\n"

/* srad_cuda_1. LDS tiles: temp 0, temp_result 256, north 512, south 768,
 * east 1024, west 1280. The first op: the PTX blocks up to the LDS load of
 * jc, none of which has an op of its own: parameters, ids, the indices, the
 * edge tests and LDS addresses (66 in the first block row of an interior
 * column); the replacement addresses of the other block rows take 2 more,
 * of the last row 2 more, of the first column 2 more, of the last 4 more.
 * The math op: the e and w subtractions, g2, l, num, den (double precision:
 * the literals are doubles), qsqr, den, c (four div.rn.f32 and one
 * rcp.rn.f64, one PTX instruction each), the saturation tests with
 * 0 <= c <= 1 (37 + 3); and the tail's output addresses (6), which have no
 * op of their own. */
static const char sr1_body[] =
    "alu 66 + 2 [0 < by] + 2 [gdy - 2 < by] + 2 [bx < 1] + 4 [gdx - 2 < bx]\n"
    SR_IN(SR_BLK " + tx - c")
    "  load J_cuda[" SR_BLK " + tx - c] 4 -> r1         # index_n\n"
    "end\n"
    "lds_store lds[512 + " SR_T "] 4 < r1                # north\n"
    SR_IN(SR_BLK " + 16*c + tx")
    "  load J_cuda[" SR_BLK " + 16*c + tx] 4 -> r2      # index_s\n"
    "end\n"
    "lds_store lds[768 + " SR_T "] 4 < r2                # south\n"
    "if by < 1\n"
    "  load J_cuda[16*bx + tx] 4 -> r3\n"
    "  lds_store lds[512 + " SR_T "] 4 < r3\n"
    "end\n"
    "if 0 < by                                           # else if (by == gridDim.y - 1)\n"
    "  if gdy - 2 < by\n"
    "    load J_cuda[16*c*(gdy - 1) + 16*bx + 15*c + tx] 4 -> r3\n"
    "    lds_store lds[768 + " SR_T "] 4 < r3\n"
    "  end\n"
    "end\n"
    "barrier\n"
    SR_IN(SR_BLK " + c*ty - 1")
    "  load J_cuda[" SR_BLK " + c*ty - 1] 4 -> r1       # index_w\n"
    "end\n"
    "lds_store lds[1280 + " SR_T "] 4 < r1               # west\n"
    SR_IN(SR_BLK " + c*ty + 16")
    "  load J_cuda[" SR_BLK " + c*ty + 16] 4 -> r2      # index_e\n"
    "end\n"
    "lds_store lds[1024 + " SR_T "] 4 < r2               # east\n"
    "if bx < 1\n"
    "  load J_cuda[16*c*by + c*ty] 4 -> r3\n"
    "  lds_store lds[1280 + " SR_T "] 4 < r3\n"
    "end\n"
    "if 0 < bx                                           # else if (bx == gridDim.x - 1)\n"
    "  if gdx - 2 < bx\n"
    "    load J_cuda[16*c*by + 16*(gdx - 1) + c*ty + 15] 4 -> r3\n"
    "    lds_store lds[1024 + " SR_T "] 4 < r3\n"
    "  end\n"
    "end\n"
    "barrier\n"
    "load J_cuda[" SR_IDX "] 4 -> r4\n"
    "lds_store lds[" SR_T "] 4 < r4                      # temp\n"
    "barrier\n"
    "lds_load lds[" SR_T "] 4 -> r6                      # jc\n"
    /* nw, ne, se, sw, n, e, s, w, interior; sources n, s, w, e */
    SR_REGION1("ty < 1", "tx < 1", 1, "512", "16", "1280", "1", 4)
    SR_REGION1("ty < 1", "14 < tx", 1, "512", "16", "-1", "1024", 4)
    SR_REGION1("14 < ty", "14 < tx", 1, "-16", "768", "-1", "1024", 4)
    SR_REGION1("14 < ty", "tx < 1", 1, "-16", "768", "1280", "1", 4)
    SR_REGION1("ty < 1", "0 < tx < 15", 1, "512", "16", "-1", "1", 5)
    SR_REGION1("14 < tx", "0 < ty < 15", 1, "-16", "16", "-1", "1024", 4)
    SR_REGION1("14 < ty", "0 < tx < 15", 1, "-16", "768", "-1", "1", 5)
    SR_REGION1("tx < 1", "0 < ty < 15", 1, "-16", "16", "1280", "1", 1)
    SR_REGION1("0 < tx < 15", "0 < ty < 15", 24, "-16", "16", "-1", "1", 3)
    "alu 46 < r6 r11\n"
    "lds_store lds[256 + " SR_T "] 4                     # temp_result\n"
    "barrier\n"
    "lds_load lds[256 + " SR_T "] 4 -> r5\n"
    "store C_cuda[" SR_IDX "] 4 < r5\n"
    "store E_C[" SR_IDX "] 4\n"
    "store W_C[" SR_IDX "] 4\n"
    "store S_C[" SR_IDX "] 4\n"
    "store N_C[" SR_IDX "] 4\n";

/* srad_cuda_2. LDS tiles: south_c 0, east_c 256, c_cuda_temp 512,
 * c_cuda_result 768, temp 1024. The first op: the PTX blocks up to the LDS
 * load of cc (no op of their own): parameters, ids, indices, the edge tests
 * and LDS addresses, 54 in an interior work-group; the last block row's
 * replacement address takes 2 more, the last column's 4 more. d_sum = cn *
 * N + cs * S + cw * W + ce * E: the four load addresses, a multiply and an
 * FMA (6), then 2; the update, temp + 0.25 * lambda * d_sum in double
 * precision (6), and c_cuda_result's LDS address (3). */
static const char sr2_body[] =
    "alu 54 + 2 [gdy - 2 < by] + 4 [gdx - 2 < bx]\n"
    "load J_cuda[" SR_IDX "] 4 -> r1\n"
    "lds_store lds[1024 + " SR_T "] 4 < r1               # temp\n"
    "barrier\n"
    SR_IN(SR_BLK " + 16*c + tx")
    "  load C_cuda[" SR_BLK " + 16*c + tx] 4 -> r2      # index_s\n"
    "end\n"
    "lds_store lds[" SR_T "] 4 < r2                      # south_c\n"
    "if gdy - 2 < by\n"
    "  load C_cuda[16*c*(gdy - 1) + 16*bx + 15*c + tx] 4 -> r3\n"
    "  lds_store lds[" SR_T "] 4 < r3\n"
    "end\n"
    "barrier\n"
    SR_IN(SR_BLK " + c*ty + 16")
    "  load C_cuda[" SR_BLK " + c*ty + 16] 4 -> r2      # index_e\n"
    "end\n"
    "lds_store lds[256 + " SR_T "] 4 < r2                # east_c\n"
    "if gdx - 2 < bx\n"
    "  load C_cuda[16*c*by + 16*(gdx - 1) + c*ty + 15] 4 -> r3\n"
    "  lds_store lds[256 + " SR_T "] 4 < r3\n"
    "end\n"
    "barrier\n"
    "load C_cuda[" SR_IDX "] 4 -> r4\n"
    "lds_store lds[512 + " SR_T "] 4 < r4                # c_cuda_temp\n"
    "barrier\n"
    "lds_load lds[512 + " SR_T "] 4 -> r6                # cc\n"
    /* se, e, s, interior; sources cs, ce */
    SR_REGION2("14 < ty", "14 < tx", 1, "0", "256", 1)
    SR_REGION2("14 < tx", "ty < 15", 1, "528", "256", 2)
    SR_REGION2("14 < ty", "tx < 15", 1, "0", "513", 2)
    SR_REGION2("tx < 15", "ty < 15", 10, "528", "513", 2)
    "load N_C[" SR_IDX "] 4 -> r12\n"
    "load S_C[" SR_IDX "] 4 -> r13\n"
    "load W_C[" SR_IDX "] 4 -> r14\n"
    "load E_C[" SR_IDX "] 4 -> r15\n"
    "alu 6 < r12 r13\n"
    "alu 2 < r14 r15\n"
    "lds_load lds[1024 + " SR_T "] 4 -> r16\n"
    "alu 9 < r16\n"
    "lds_store lds[768 + " SR_T "] 4                     # c_cuda_result\n"
    "barrier\n"
    "lds_load lds[768 + " SR_T "] 4 -> r5\n"
    "store J_cuda[" SR_IDX "] 4 < r5\n";

static const char *const sr_params[] = {"c", "n", NULL};
/* the kernels' arguments, in their order */
static const char *const sr_bufs[] = {"E_C", "W_C", "N_C", "S_C", "J_cuda", "C_cuda", NULL};
static const struct kd_desc sr_kd[2] = {
    {.name = "srad_cuda_1", .params = sr_params, .bufs = sr_bufs, .body = sr1_body},
    {.name = "srad_cuda_2", .params = sr_params, .bufs = sr_bufs, .body = sr2_body},
};

struct srad {
    struct wl_env *env;
    struct kd_prog *prog[2];
    const struct kernel_buf *bufs[6]; /* in sr_bufs' order */
    int64_t rows, cols;
    unsigned niter, kernels;
};

static int srad_check(const struct cfg_sec *sec, struct err *e)
{
    uint64_t rows = cfg_uint(sec, "rows"), cols = cfg_uint(sec, "cols");
    if (rows % SR_B)
        return cfg_err(e, sec, "rows", "rows and cols must be multiples of 16");
    if (cols % SR_B)
        return cfg_err(e, sec, "cols", "rows and cols must be multiples of 16");
    if (cfg_uint(sec, "r2") >= rows || cfg_uint(sec, "r1") > cfg_uint(sec, "r2"))
        return cfg_err(e, sec, "r2", "the ROI rows must satisfy r1 <= r2 < rows");
    if (cfg_uint(sec, "c2") >= cols || cfg_uint(sec, "c1") > cfg_uint(sec, "c2"))
        return cfg_err(e, sec, "c2", "the ROI columns must satisfy c1 <= c2 < cols");
    return 0;
}

static void srad_destroy(void *self)
{
    struct srad *q = self;
    kd_progs_free(q->prog, 2);
    free(q);
}

static void *srad_create(struct wl_env *env, const struct cfg_sec *sec, struct err *e)
{
    if (srad_check(sec, e))
        return NULL;
    struct srad *q = xcalloc(1, sizeof *q);
    q->env = env;
    if (kd_compile_all(sr_kd, 2, q->prog, e)) {
        srad_destroy(q);
        return NULL;
    }
    q->rows = (int64_t)cfg_uint(sec, "rows");
    q->cols = (int64_t)cfg_uint(sec, "cols");
    q->niter = (unsigned)cfg_uint(sec, "niter");
    static const unsigned order[] = {4, 5, 0, 1, 3, 2}; /* srad.cu's cudaMalloc order */
    for (unsigned i = 0; i < 6; i++)
        q->bufs[order[i]] = wl_alloc(env, sr_bufs[order[i]], (uint64_t)(q->rows * q->cols) * 4);
    return q;
}

static bool srad_next_kernel(void *self, struct kernel *k)
{
    struct srad *q = self;
    if (q->kernels == 2 * q->niter)
        return false;
    bool first = q->kernels % 2 == 0;
    int64_t params[] = {q->cols, q->rows * q->cols};
    struct err e;
    if (kd_launch(q->prog[!first], k,
                  (struct kernel_dim){(uint32_t)(q->cols / SR_B), (uint32_t)(q->rows / SR_B), 1},
                  (struct kernel_dim){SR_B, SR_B, 1}, params, q->bufs, NULL, &e))
        return wl_fail(q->env, &e);
    k->lds_b = (first ? 6 : 5) * SR_B * SR_B * 4;
    /* srad_cuda_2 reads each tile srad_cuda_1 wrote on the same chiplet, and
     * the next srad_cuda_1 writes the tiles srad_cuda_2 read */
    for (unsigned i = 0; i < 4; i++)
        k->args[i].same_pattern = q->kernels > 0;
    q->kernels++;
    return true;
}

static const char *const srad_small[] = {"rows=64", "cols=64", "r2=15", "c2=15", NULL};

const struct wl_ops wl_srad_v2 = {
    .name = "srad-v2",
    .suite = "Rodinia",
    .desc = "Rodinia srad_v2: speckle-reducing diffusion stencil, two LDS-tiled kernels per "
            "iteration",
    .keys = srad_keys,
    .small = srad_small,
    .create = srad_create,
    .next_kernel = srad_next_kernel,
    .destroy = srad_destroy,
};
