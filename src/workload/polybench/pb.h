/*
 * pb.h -- what the PolyBench/GPU models share (src/workload/polybench/):
 * the row and column of a thread of the 2D kernels (32 x 8 work-groups,
 * DIM_THREAD_BLOCK_X/Y), the matrix product loop that gemm, 2mm and 3mm
 * run in each thread (the compiler's four-way unrolled loop and its
 * remainder, as nvcc 13 -arch=sm_90 makes it; ALU counts from its PTX, see
 * docs/workloads/gemm.md), and the launch of such a kernel.
 */
#ifndef CHIPSIM_PB_H
#define CHIPSIM_PB_H

#include "workload/kdw.h"

#define PB_BX 32 /* DIM_THREAD_BLOCK_X */
#define PB_BY 8  /* DIM_THREAD_BLOCK_Y */
/* The rows of a 2D work-group are pieces of their own; rows less than a
 * line apart (a partial last work-group column) join, since the checker
 * tests a line access against one range. */
#define PB_JOIN 128

/* i (row) and j (column) of a thread of a 2D kernel. */
#define PB_I "(by*bdy + ty)"
#define PB_J "(bx*bdx + tx)"

/* X[i][j] += Y[i][k] * Z[k][j] for k = 0 .. nk (Y has nk columns, Z and X
 * nj): the two loads at k and the multiply-add and store, which wait for
 * both (the sum stands for them). */
#define PB_LD_Y(K) "    load Y[" PB_I "*nk + " K "] 4 -> r3\n"
#define PB_LD_Z(K) "    load Z[(" K ")*nj + " PB_J "] 4 -> r2\n"
#define PB_ST_X "    alu 1 < r2 r3\n    store X[" PB_I "*nj + " PB_J "] 4 < r2 r3\n"
#define PB_ALU(N) "    alu " #N "\n"

/* The product loop of 2mm and 3mm (mm3_kernel): m0 counts groups of four
 * (q = nk / 4 of them), m1 the remainder; nvcc loads Z[k][j] first. */
#define PB_MM_STEP(A, K) A PB_LD_Z(K) PB_LD_Y(K) PB_ST_X
#define PB_MM_LOOP                                                                            \
    "  for m0 = 0 .. q\n" PB_MM_STEP(PB_ALU(1), "4*m0") PB_MM_STEP(PB_ALU(1), "4*m0 + 1")      \
        PB_MM_STEP(PB_ALU(1), "4*m0 + 2") PB_MM_STEP(PB_ALU(2), "4*m0 + 3") PB_ALU(5)          \
    "  end\n"                                                                                 \
    "  alu 2 + 7 [4*q < nk]\n"                                                                \
    "  for m1 = 4*q .. nk\n" PB_MM_STEP("", "m1") PB_ALU(5) "  end\n"

/* mm3_kernel of PolyBench/GPU 3mm (2mm's two kernels are the same code):
 * X = Y * Z, X zeroed first; parameters ni nj nk q, buffers X Y Z. */
extern const struct kd_desc pb_mm_kd;

/* The matrix-vector kernels of atax and bicg (256 threads, one per output
 * element o[gid], A nx x ny): a row kernel accumulates A[gid][k] * v[k],
 * a column kernel A[k][gid] * v[k]. nvcc unrolls the loop four ways
 * (m0, q groups) and leaves the remainder (m1); ALU counts from its PTX
 * (docs/workloads/atax.md). */
#define PB_MV_BLOCK 256
#define PB_MV_STEP(A, LD, K)                                                                  \
    A LD(K) "    load v[" K "] 4 -> r3\n"                                                     \
            "    alu 1 < r2 r3\n"                                                             \
            "    store o[gid] 4 < r2 r3\n"
#define PB_ROW_LD(K) "    load A[gid*ny + " K "] 4 -> r2\n"
#define PB_COL_LD(K) "    load A[(" K ")*ny + gid] 4 -> r2\n"
#define PB_ROW_MAIN                                                                           \
    "  for m0 = 0 .. q\n" PB_MV_STEP("", PB_ROW_LD, "4*m0") PB_MV_STEP("", PB_ROW_LD, "4*m0 + 1") \
        PB_MV_STEP("", PB_ROW_LD, "4*m0 + 2") PB_MV_STEP("", PB_ROW_LD, "4*m0 + 3") PB_ALU(6)  \
    "  end\n"
#define PB_COL_MAIN                                                                           \
    "  for m0 = 0 .. q\n" PB_MV_STEP("", PB_COL_LD, "4*m0")                                   \
        PB_MV_STEP(PB_ALU(1), PB_COL_LD, "4*m0 + 1") PB_MV_STEP(PB_ALU(1), PB_COL_LD, "4*m0 + 2") \
            PB_MV_STEP(PB_ALU(2), PB_COL_LD, "4*m0 + 3") PB_ALU(5)                             \
    "  end\n"
#define PB_MV_REM(LD, N) "  for m1 = 4*q .. " N "\n" PB_MV_STEP("", LD, "m1") PB_ALU(5) "  end\n"

/* atax and bicg: A (nx x ny) and vectors vecs[] (long[v] set: nx
 * elements, else ny); launch k is description k with v = vec[v[k]] and
 * o = vec[o[k]], over as many threads as o has elements; parameters nx
 * ny q. */
struct pb_mv_def {
    const char *const *vecs;
    uint8_t nx_long[4];
    uint8_t v[2], o[2];
};

struct pb_mv {
    struct kdw w;
    const struct pb_mv_def *def;
    uint64_t n[2]; /* nx, ny */
    const struct kernel_buf *a, *vec[4];
};

extern const char *const pb_mv_params[], *const pb_mv_bufs[];
struct pb_mv_model {
    struct kdw_model m;
    const struct pb_mv_def *def;
};
int pb_mv_setup(struct kdw *w, const struct cfg_sec *sec, struct err *e);
bool pb_mv_plan(struct kdw *w, uint64_t i, struct kdw_launch *l);

/* Launch of a 2D kernel over rows x cols threads (32 x 8 work-groups). */
void pb_launch_2d(struct kdw_launch *l, unsigned prog, uint64_t rows, uint64_t cols);

/* A chain of matrix products (2mm, 3mm): matrix m is dim[rows[m]] x
 * dim[cols[m]]; product p computes matrix x[p] = y[p] * z[p]. */
#define PB_MAX_MATS 7
#define PB_MAX_DIMS 5
struct pb_chain_def {
    const char *const *dims;  /* the size keys, NULL-terminated */
    const char *const *mats;  /* the matrices' names, NULL-terminated */
    uint8_t rows[PB_MAX_MATS], cols[PB_MAX_MATS];
    uint8_t nprod, x[3], y[3], z[3];
};

struct pb_chain {
    struct kdw w;
    const struct pb_chain_def *def;
    uint64_t dim[PB_MAX_DIMS];
    const struct kernel_buf *buf[PB_MAX_MATS];
};

/* A model of a chain: its kdw_model (setup pb_chain_setup, plan
 * pb_chain_plan) and the chain. */
struct pb_chain_model {
    struct kdw_model m;
    const struct pb_chain_def *def;
};
int pb_chain_setup(struct kdw *w, const struct cfg_sec *sec, struct err *e);
bool pb_chain_plan(struct kdw *w, uint64_t i, struct kdw_launch *l);

#endif
