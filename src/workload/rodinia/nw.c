/*
 * nw.c -- Rodinia nw (needle.cu, needle_kernel.cu): Needleman-Wunsch global
 * sequence alignment on an (n+1) x (n+1) int score matrix, swept by
 * anti-diagonals of 16x16 blocks.
 *
 * Modelled (kernel descriptions, src/workload/kd.h): runTest()'s two loops:
 * needle_cuda_shared_1 for i = 1 .. n/16 (grid i) over the top-left triangle
 * of blocks, then needle_cuda_shared_2 for i = n/16 - 1 .. 1 (grid i) over
 * the bottom-right one; 16 threads per work-group; the real index arithmetic
 * (index, index_n, index_w, index_nw from b_index_x/y); the LDS arrays
 * temp[17][17] and ref[16][16]; the loads of the reference tile (16 rows),
 * of the west column, the north row and the north-west corner; the 31
 * anti-diagonal steps inside the tile with lanes tx <= m active, each with
 * its 4 LDS loads, LDS store and __syncthreads(); and the 16 row stores of
 * the tile. The reference matrix is R, the score matrix R/W, each
 * work-group's rows derived from the description. The constant 16-iteration
 * copy loops are unrolled as nvcc does (all loads, then all stores). ALU
 * counts per basic block from nvcc 13 -arch=sm_90 PTX of Rodinia 3.1's
 * needle_kernel.cu (every instruction but global and LDS loads and stores,
 * barriers, ret and cvta.to.global): the compiler unrolls both step loops
 * and folds every LDS address into an offset, so a step is its test and 5
 * instructions; all the once-per-thread work is counted in the first op.
 * See docs/workloads/nw.md.
 * Abstracted: no data values; input generation (srand(7), blosum62) is host
 * work and not modelled.
 */
#include <stdlib.h>

#include "workload/kd.h"
#include "workload/wl.h"

#define NW_B 16                               /* BLOCK_SIZE */
#define NW_LDS ((NW_B + 1) * (NW_B + 1) * 4 + NW_B * NW_B * 4) /* temp[17][17], ref[16][16] */

static const struct cfg_key nw_keys[] = {
    {"n", CFG_INT, "8192", 16, 1048576, "sequence length (argv[1]), a multiple of 16", NULL},
    {"penalty", CFG_INT, "10", 0, 1000000, "gap penalty (argv[2]; no effect on addresses)",
     NULL},
    CFG_END,
};

/* cols x 16 b_index_y + 16 b_index_x, with b_index_y = r0 - bx and
 * b_index_x = bx + x0 (_1: r0 = i - 1, x0 = 0; _2: r0 = block_width - 1,
 * x0 = block_width - i). LDS in elements: temp[y][x] at 17 y + x, ref[y][x]
 * at 289 + 16 y + x. */
#define NW_BLK "(16*c*(r0 - bx) + 16*(bx + x0))"
/* Row ty of the tile: the reference and output registers. */
#define NW_ROWS(X)                                                                                 \
    X(0, 2, 24) X(1, 3, 25) X(2, 4, 26) X(3, 5, 27) X(4, 6, 28) X(5, 7, 29) X(6, 8, 30)           \
    X(7, 9, 31) X(8, 10, 32) X(9, 11, 33) X(10, 12, 34) X(11, 13, 35) X(12, 14, 36)               \
    X(13, 15, 37) X(14, 16, 38) X(15, 17, 39)
#define NW_LD_REF(t, r, o) "load referrence[" NW_BLK " + c*" #t " + c + 1 + tx] 4 -> r" #r "\n"
#define NW_ST_REF(t, r, o) "lds_store lds[289 + 16*" #t " + tx] 4 < r" #r "\n"
#define NW_LD_OUT(t, r, o) "lds_load lds[17*" #t " + 18 + tx] 4 -> r" #o "\n"
#define NW_ST_OUT(t, r, o) "store matrix_cuda[" NW_BLK " + c*" #t " + c + 1 + tx] 4 < r" #o "\n"

/* The kernel; `first` is the first op's ALU count, `last` the ALU op of the
 * second loop's steps. ALU counts from the PTX (docs/workloads/nw.md): the
 * first op carries every once-per-thread instruction (_1 114: parameters,
 * ids, the four indices, the tx == 0 test 16; the reference copy's addresses
 * 27; the west and north copies 13; the LDS base addresses 5; after the
 * loops the indices, recomputed, 34 and the output copy's addresses 19; _2
 * 98, a 12-instruction tail). A step's test tx <= m is a compare and a
 * branch (2) in the first loop; the second loop reuses the first loop's
 * predicates (1), but for _1's last step (2). The step: an add, two
 * subtractions, two max (5). Step m0 of the first loop is m = m0 (temp[y][x]
 * with y = m + 1 - tx, x = 1 + tx); step m0 of the second is m = 30 - m0
 * (y = 16 - tx, x = m0 - 14 + tx). */
#define NW_BODY(first, last)                                                                       \
    "alu " first "\n"                                                                              \
    "if tx < 1                                # thread 0: temp[0][0] = matrix_cuda[index_nw]\n"    \
    "  load matrix_cuda[" NW_BLK " + tx] 4 -> r1\n"                                               \
    "  lds_store lds[tx] 4 < r1\n"                                                                 \
    "end\n" NW_ROWS(NW_LD_REF) NW_ROWS(NW_ST_REF)                                                  \
    "barrier\n"                                                                                    \
    "load matrix_cuda[" NW_BLK " + c + c*tx] 4 -> r18   # index_w + cols * tx\n"                  \
    "lds_store lds[17 + 17*tx] 4 < r18\n"                                                          \
    "barrier\n"                                                                                    \
    "load matrix_cuda[" NW_BLK " + tx + 1] 4 -> r19     # index_n\n"                              \
    "lds_store lds[tx + 1] 4 < r19\n"                                                              \
    "barrier\n"                                                                                    \
    "for m0 = 0 .. 16\n"                                                                           \
    "  if tx < m0 + 1\n"                                                                           \
    "    alu 2\n"                                                                                  \
    "    lds_load lds[17*m0 - 16*tx] 4 -> r20           # temp[y-1][x-1]\n"                       \
    "    lds_load lds[289 + 16*m0 - 15*tx] 4 -> r21     # ref[y-1][x-1]\n"                        \
    "    lds_load lds[17*m0 + 17 - 16*tx] 4 -> r22      # temp[y][x-1]\n"                         \
    "    lds_load lds[17*m0 + 1 - 16*tx] 4 -> r23       # temp[y-1][x]\n"                         \
    "    alu 5 < r21 r23\n"                                                                        \
    "    lds_store lds[17*m0 + 18 - 16*tx] 4            # temp[y][x]\n"                           \
    "  end\n"                                                                                      \
    "  barrier\n"                                                                                  \
    "end\n"                                                                                        \
    "for m0 = 16 .. 31\n"                                                                          \
    "  if tx + m0 < 31\n"                                                                          \
    "    " last "\n"                                                                               \
    "    lds_load lds[240 + m0 - 16*tx] 4 -> r20\n"                                                \
    "    lds_load lds[514 + m0 - 15*tx] 4 -> r21\n"                                                \
    "    lds_load lds[257 + m0 - 16*tx] 4 -> r22\n"                                                \
    "    lds_load lds[241 + m0 - 16*tx] 4 -> r23\n"                                                \
    "    alu 5 < r21 r23\n"                                                                        \
    "    lds_store lds[258 + m0 - 16*tx] 4\n"                                                      \
    "  end\n"                                                                                      \
    "  barrier\n"                                                                                  \
    "end\n" NW_ROWS(NW_LD_OUT) NW_ROWS(NW_ST_OUT)

static const char *const nw_params[] = {"c", "r0", "x0", NULL};
static const char *const nw_bufs[] = {"referrence", "matrix_cuda", NULL};
static const struct kd_desc nw_kd[2] = {
    {.name = "needle_cuda_shared_1", .params = nw_params, .bufs = nw_bufs,
     .body = NW_BODY("114", "alu 1 + 1 [29 < m0]")},
    {.name = "needle_cuda_shared_2", .params = nw_params, .bufs = nw_bufs,
     .body = NW_BODY("98", "alu 1")},
};

struct nw {
    struct wl_env *env;
    struct kd_prog *prog[2];
    const struct kernel_buf *bufs[2]; /* referrence_cuda, matrix_cuda */
    int64_t cols;     /* n + 1 */
    uint32_t bw;      /* block_width = n / 16 */
    uint32_t kernels; /* launched so far */
};

static void nw_destroy(void *self)
{
    struct nw *q = self;
    kd_progs_free(q->prog, 2);
    free(q);
}

static void *nw_create(struct wl_env *env, const struct cfg_sec *sec, struct err *e)
{
    uint64_t n = cfg_uint(sec, "n");
    if (n % NW_B) {
        cfg_err(e, sec, "n", "must be a multiple of 16");
        return NULL;
    }
    struct nw *q = xcalloc(1, sizeof *q);
    q->env = env;
    if (kd_compile_all(nw_kd, 2, q->prog, e)) {
        nw_destroy(q);
        return NULL;
    }
    q->cols = (int64_t)n + 1;
    q->bw = (uint32_t)(n / NW_B);
    uint64_t size = (uint64_t)(q->cols * q->cols) * 4;
    q->bufs[0] = wl_alloc(env, "referrence_cuda", size);
    q->bufs[1] = wl_alloc(env, "matrix_cuda", size);
    return q;
}

static bool nw_next_kernel(void *self, struct kernel *k)
{
    struct nw *q = self;
    if (q->kernels == 2 * q->bw - 1)
        return false;
    bool first = q->kernels < q->bw;
    int64_t i = first ? q->kernels + 1 : 2 * q->bw - 1 - q->kernels;
    int64_t params[] = {q->cols, first ? i - 1 : q->bw - 1, first ? 0 : q->bw - i};
    struct err e;
    if (kd_launch(q->prog[!first], k, (struct kernel_dim){(uint32_t)i, 1, 1},
                  (struct kernel_dim){NW_B, 1, 1}, params, q->bufs, NULL, &e))
        return wl_fail(q->env, &e);
    k->lds_b = NW_LDS;
    q->kernels++;
    return true;
}

static const char *const nw_small[] = {"n=64", NULL};

const struct wl_ops wl_nw = {
    .name = "nw",
    .suite = "Rodinia",
    .desc = "Rodinia nw: Needleman-Wunsch, anti-diagonal wavefront of 16x16 LDS tiles",
    .keys = nw_keys,
    .small = nw_small,
    .create = nw_create,
    .next_kernel = nw_next_kernel,
    .destroy = nw_destroy,
};
