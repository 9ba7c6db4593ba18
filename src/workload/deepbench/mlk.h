/*
 * mlk.h -- kernels shared by the machine-learning models (DeepBench RNNs in
 * rnn.c, the DNNMark CNN in ../dnnmark/cnn.c) and by the DL layers of the
 * benchmark library (dl_fc.c, dl_rnn.c, dl_lstm.c, dl_conv.c: fully
 * connected, RNN forward, DGRAD and WGRAD, LSTM, convolution as GEMM),
 * written as kernel descriptions (workload/kd.h): a tiled single-precision
 * GEMM with LDS staging, as the rocBLAS/Tensile and MIOpenGEMM kernels
 * behind MIOpen's RNN and DNNMark's fully connected layer are built, and a
 * 1D element-wise kernel (activations, gate math, state updates, fills).
 *
 * GEMM: C[m][n] (+)= sum_k A[m][k] * B[n][k], all row-major fp32 with row
 * strides lda/ldb/ldc ("NT": both operands are K-contiguous, as x * W^T with
 * W stored one output unit per row); or NN (B stored K x N: dX = dY W, the
 * data gradient) or TN (A stored K x M, B K x N: dW = dY^T X, the weight
 * gradient), whose K-major tiles are loaded with tx along the contiguous
 * dimension and stored into LDS as they are. Macro tile 32 x 32, K step 16, 16 x 16
 * threads with a 2 x 2 strided micro-tile; optional split-K (grid z) that
 * accumulates with atomics (Tensile's GlobalSplitU). One description with
 * parameters for the sizes, strides, offsets and split (mlk.c). Abstracted:
 * no data values, no prefetch/double-buffering of the LDS tiles.
 */
#ifndef CHIPSIM_MLK_H
#define CHIPSIM_MLK_H

#include "workload/kdw.h"
#include "workload/wl.h"

#define MLK_TM 32 /* macro tile rows (M) */
#define MLK_TN 32 /* macro tile columns (N) */
#define MLK_TK 16 /* K step */
#define MLK_GEMM_LDS_B (2 * MLK_TK * (MLK_TM + 1) * 4)

/* The compiled descriptions of one model's kernels. */
struct mlk;

struct mlk *mlk_new(struct err *e);
void mlk_free(struct mlk *l);

/* How A and B are stored (row-major BLAS names: C = op(A) op(B)). */
enum mlk_layout {
    MLK_L_NT, /* A m x k, B n x k (K contiguous in both) */
    MLK_L_NN, /* A m x k, B k x n */
    MLK_L_TN, /* A k x m, B k x n */
    MLK_NLAYOUTS
};

/* The GEMM's descriptions, one per layout (kernels sgemm_nt, sgemm_nn,
 * sgemm_tn), for a kdw model that lists them among its descs. */
extern const struct kd_desc mlk_gemm_kd[MLK_NLAYOUTS];
/* The three, for the start of a model's descs (first = 0). */
#define MLK_GEMM_DESCS &mlk_gemm_kd[MLK_L_NT], &mlk_gemm_kd[MLK_L_NN], &mlk_gemm_kd[MLK_L_TN]

struct mlk_gemm {
    const struct kernel_buf *a, *b, *c;
    uint64_t a_off, b_off, c_off; /* bytes from each buffer's base to element [0][0] */
    uint32_t m, n, k;             /* C is m x n; inner dimension k */
    uint32_t lda, ldb, ldc;       /* row strides in elements */
    uint32_t splits;              /* requested split-K factor; > 1: atomics into C */
    bool beta;                    /* C += A B^T (C is read first); else C = A B^T */
    enum mlk_layout layout;       /* MLK_L_NT unless set */
    /* set by mlk_gemm_init */
    uint32_t kchunk;              /* K elements per split, a multiple of MLK_TK */
    uint32_t gz;                  /* splits actually launched (none is empty) */
};

/* Derive kchunk and gz from the shape; call before mlk_gemm_launch. */
void mlk_gemm_init(struct mlk_gemm *g);
/* Launch g of a kdw model whose descs hold mlk_gemm_kd from index first:
 * l->prog = first + layout, the geometry, parameters, buffers and LDS. */
void mlk_gemm_plan(const struct mlk_gemm *g, unsigned first, struct kdw_launch *l);
/* Launch the GEMM as kernel `name`: args A (R), B (R), C (R/W) and their
 * per-work-group ranges derived from the description. 0, or -1 with the
 * reason in e. */
int mlk_gemm_launch(struct mlk *l, struct kernel *k, const char *name, const struct mlk_gemm *g,
                    struct err *e);

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
 * with no element runs `alu_none` instructions (its bounds test, at most
 * alu_pre) and exits. The arguments are the distinct buffers, read-write if a
 * stream stores to them. */
struct mlk_ew {
    uint32_t rows, cols, block;
    uint32_t alu_pre, alu, alu_none;
    unsigned ns;
    struct mlk_ew_stream s[MLK_EW_MAX];
};

void mlk_ew_add(struct mlk_ew *e, const struct kernel_buf *b, uint64_t off, uint32_t ld,
                bool store);
/* Launch the element-wise kernel `name` (its description is written from the
 * streams once per shape and kept in l). 0, or -1 with the reason in err. */
int mlk_ew_launch(struct mlk *l, struct kernel *k, const char *name, const struct mlk_ew *e,
                  struct err *err);

#endif
