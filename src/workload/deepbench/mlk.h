/*
 * mlk.h -- kernels shared by the machine-learning models (DeepBench RNNs in
 * rnn.c, the DNNMark CNN in ../dnnmark/cnn.c): a tiled single-precision GEMM
 * with LDS staging, as the rocBLAS/Tensile and MIOpenGEMM kernels behind
 * MIOpen's RNN and DNNMark's fully connected layer are built, and a 1D
 * element-wise kernel (activations, gate math, state updates, fills).
 *
 * GEMM: C[m][n] (+)= sum_k A[m][k] * B[n][k], all row-major fp32 with row
 * strides lda/ldb/ldc ("NT": both operands are K-contiguous, as x * W^T with
 * W stored one output unit per row). Macro tile 32 x 32, K step 16, 16 x 16
 * threads with a 2 x 2 strided micro-tile; optional split-K (grid z) that
 * accumulates with atomics (Tensile's GlobalSplitU). See mlk.c for the exact
 * op sequence and where its instruction counts come from. Abstracted: no data
 * values, no prefetch/double-buffering of the LDS tiles.
 */
#ifndef CHIPSIM_MLK_H
#define CHIPSIM_MLK_H

#include "workload/wl.h"

#define MLK_TM 32 /* macro tile rows (M) */
#define MLK_TN 32 /* macro tile columns (N) */
#define MLK_TK 16 /* K step */
#define MLK_GEMM_LDS_B (2 * MLK_TK * (MLK_TM + 1) * 4)

struct mlk_gemm {
    const struct kernel_buf *a, *b, *c;
    uint64_t a_off, b_off, c_off; /* bytes from each buffer's base to element [0][0] */
    uint32_t m, n, k;             /* C is m x n; inner dimension k */
    uint32_t lda, ldb, ldc;       /* row strides in elements */
    uint32_t splits;              /* requested split-K factor; > 1: atomics into C */
    bool beta;                    /* C += A B^T (C is read first); else C = A B^T */
    /* set by mlk_gemm_init */
    uint32_t kchunk;              /* K elements per split, a multiple of MLK_TK */
    uint32_t gz;                  /* splits actually launched (none is empty) */
};

/* Derive kchunk and gz from the shape; call before mlk_gemm_kernel. */
void mlk_gemm_init(struct mlk_gemm *g);
/* Describe the GEMM kernel: args A (R), B (R), C (R/W), per-WG ranges. g must
 * outlive the run. */
void mlk_gemm_kernel(struct kernel *k, const char *name, const struct mlk_gemm *g);
/* Work-groups of the kernel. */
uint32_t mlk_gemm_wgs(const struct mlk_gemm *g);

#define MLK_EW_MAX 8

/* One operand of an element-wise kernel: element (row, col) is at
 * buf->base + off + (row * ld + col) * 4. */
struct mlk_ew_stream {
    const struct kernel_buf *buf;
    uint64_t off;
    uint32_t ld;
    bool store;
};

/* One thread per element of a rows x cols view (element e = row * cols +
 * col), `block` threads per work-group. Each thread: `alu_pre` instructions
 * (index and address arithmetic), a load of every load stream in order, `alu`
 * instructions (waiting for the loads), a store to every store stream. A warp
 * with no element runs `alu_none` instructions (its bounds test) and exits. */
struct mlk_ew {
    uint32_t rows, cols, block;
    uint32_t alu_pre, alu, alu_none;
    unsigned ns;
    struct mlk_ew_stream s[MLK_EW_MAX];
    /* set by mlk_ew_kernel: distinct buffers, R/W if any stream stores */
    unsigned nargs;
    const struct kernel_buf *arg[MLK_EW_MAX];
    bool arg_rw[MLK_EW_MAX];
};

void mlk_ew_add(struct mlk_ew *e, const struct kernel_buf *b, uint64_t off, uint32_t ld,
                bool store);
/* Describe the kernel (fills e's argument list); e must outlive the run. */
void mlk_ew_kernel(struct kernel *k, const char *name, struct mlk_ew *e);

#endif
